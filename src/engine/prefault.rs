//! Faulting in the pages of a freshly allocated output buffer a block's
//! worth at a time, instead of one page fault per 4 KiB as the encoder
//! first writes each page.
//!
//! A compressed chunk goes to fresh memory (the chunk-sized allocation a
//! super-chunk keeps as the chunk), so every one of its pages is faulted
//! in on first write, as in C-Blosc2. On the VM we measure on a page fault
//! costs about 2.3 us, and a 32 MiB array built with `b2nd_from_cbuffer`
//! (26 MB compressed) spends ~40% of its time in them. One
//! `madvise(MADV_POPULATE_WRITE)` per encoded block does the same page
//! work without the exception per page: writing 16 fresh 1.7 MB buffers
//! took 15.2 ms page by page and 11.8 ms populated in 64 KiB steps.
//!
//! "Fresh" is often not fresh: once glibc's dynamic mmap threshold has
//! risen (any free of a large mmapped block in the process), a chunk-sized
//! `calloc` comes from reused heap memory and its memset has mapped every
//! page already. Populating such a range again is pure cost (the kernel
//! still walks it page by page): with the reference library in the same
//! process (`blosc2 bench --vs-reference --reps 9 --filter schunk --filter
//! f64-smooth --filter lz4,blosclz --filter mem`, five runs alternated) the
//! f64-smooth LZ4 cells ran at 0.94 (t1) and 1.00 (t2) of C-Blosc2 3.3.5
//! populating every range, 1.07 and 1.09 with the check below (strace: 257
//! of 1280 ranges still populated). So a range whose last page is in
//! memory already ([`resident`], one `mincore` call) is left alone: a
//! reused range was written all over, a fresh one (an mmapped block, a
//! newly grown heap) is not mapped at its end, and is populated as before.
//!
//! It is a hint: it never changes the bytes of the range (a write fault
//! that does not write), and a kernel without it (before 5.14) or any
//! other failure leaves the pages to be faulted in as usual.

#![allow(unsafe_code)]

/// The page size assumed for alignment; a larger one only makes the
/// calls cover less than they could.
const PAGE: usize = 4096;

/// Below this many new bytes a call is not worth its system call (about
/// a fifth of a page fault's cost).
const MIN_SPAN: usize = 2 * PAGE;

/// Fault in, writable, the whole pages of `region` from its first page
/// boundary on (the page it starts in is assumed touched already, by
/// whatever was written just before it), unless its last page is in
/// memory already. Returns how many bytes it took care of, asked for or
/// found in memory (0 when the span was too short to bother).
pub fn populate_write(region: &mut [u8]) -> usize {
    let addr = region.as_mut_ptr() as usize;
    let first = addr.next_multiple_of(PAGE);
    let end = addr + region.len();
    if end < first + MIN_SPAN {
        return 0;
    }
    let len = end - first;
    if !resident(end - 1) {
        populate(first, len);
    }
    len
}

/// Whether the page holding the byte at `addr` (in memory the caller
/// borrows) is in memory. False when it cannot tell.
#[cfg(target_os = "linux")]
fn resident(addr: usize) -> bool {
    let page = addr - addr % PAGE;
    let mut state = [0u8; 1];
    // SAFETY: `[page, page + PAGE)` is the page holding `addr`, inside the
    // caller's borrowed region, so inside a mapping of this process, and
    // `page` is page-aligned as mincore requires (with larger pages it is
    // not always: the call then fails and we answer false). mincore only
    // reads the page tables and writes one byte per page, here the one
    // byte of `state`.
    let rc = unsafe { libc::mincore(page as *mut libc::c_void, PAGE, state.as_mut_ptr()) };
    rc == 0 && state[0] & 1 == 1
}

#[cfg(not(target_os = "linux"))]
fn resident(_addr: usize) -> bool {
    false
}

#[cfg(target_os = "linux")]
fn populate(first: usize, len: usize) {
    // SAFETY: `[first, first + len)` lies inside `region`, memory this
    // process owns and borrows mutably, and `first` is page-aligned as
    // madvise requires. MADV_POPULATE_WRITE only maps the pages in (as a
    // write fault would, without writing): the contents of every byte, and
    // so the borrow's view of them, stay as they were. Errors (an old
    // kernel, memory pressure) are ignored: the pages then fault in on
    // first write as they would have.
    unsafe {
        libc::madvise(first as *mut libc::c_void, len, libc::MADV_POPULATE_WRITE);
    }
}

#[cfg(not(target_os = "linux"))]
fn populate(_first: usize, _len: usize) {}

#[cfg(test)]
mod tests {
    use super::*;

    /// The hint changes no byte: fresh zeroed memory stays zero, written
    /// memory keeps its contents, for every alignment of the range.
    #[test]
    fn populating_keeps_every_byte() {
        let mut fresh = vec![0u8; 1 << 20];
        for (start, len) in [(0, 1 << 20), (1, 70_000), (4095, 4 * PAGE + 1), (10, 100)] {
            populate_write(&mut fresh[start..start + len]);
        }
        assert!(fresh.iter().all(|&b| b == 0));
        let mut written: Vec<u8> = (0..300_000u32).map(|i| (i * 7 + 3) as u8).collect();
        let want = written.clone();
        for start in [0, 5, 4096, 8191] {
            populate_write(&mut written[start..]);
        }
        assert_eq!(written, want);
    }

    /// A page written is resident; one of a fresh mapping never touched
    /// is not (a zeroed allocation above glibc's largest mmap threshold,
    /// 32 MiB, is always a new mapping, left untouched by calloc).
    #[test]
    #[cfg(target_os = "linux")]
    fn resident_tells_written_pages() {
        let mut buf = vec![0u8; 64 * PAGE];
        buf[10] = 1;
        assert!(resident(buf.as_ptr() as usize + 10));
        let fresh = vec![0u8; 256 << 20];
        let last = fresh.as_ptr() as usize + fresh.len() - 1;
        assert!(!resident(last));
        assert_eq!(fresh[fresh.len() - 1], 0);
    }

    /// Short spans are left alone; long ones are asked for from the first
    /// page boundary.
    #[test]
    fn asks_only_for_whole_pages_of_long_spans() {
        let mut buf = vec![0u8; 64 * PAGE];
        assert_eq!(populate_write(&mut buf[..PAGE]), 0);
        let addr = buf.as_ptr() as usize;
        let skip = addr.next_multiple_of(PAGE) - addr;
        let n = populate_write(&mut buf[..]);
        assert_eq!(n, 64 * PAGE - skip);
    }
}
