//! Which process a lock holder belongs to, after `fork()`.
//!
//! A child process starts with one thread, the one that forked, but with
//! every lock word of the parent as the fork caught it: one held by another
//! thread of the parent stays held, and waiting for it would never end.
//! A [`token`] names the calling thread and the process generation it runs
//! in: the number of forks since the library was loaded along this line of
//! processes, counted by a `pthread_atfork` child handler. A lock holder
//! whose token is of an older generation ([`of_this_process`] false) is a
//! thread of an ancestor process, caught inside by the fork: it is not in
//! this process and will never let go.
//!
//! The generation costs two atomic loads; asking the kernel for the pid
//! (`getpid`, no longer cached by glibc) costs about 0.7 us on the VM we
//! measure on, a tenth of a small chunk's decompression.
//!
//! On Linux the forks are seen without any handler: one page of the
//! library's, which the kernel empties in a child at fork
//! (`MADV_WIPEONFORK`, Linux 4.14), holds the generation; a child finds it
//! empty and takes the next one. glibc's `pthread_atfork` and `getpid` sit
//! in a 64 KiB stretch of its code that C-Blosc2 3.3.5 never runs, which
//! each program then had resident. Where the page cannot be had (older
//! kernels, valgrind) the `pthread_atfork` counter does it.

// mmap and madvise for the page and pthread_atfork are C functions; the
// handler only adds to an atomic.
#![allow(unsafe_code)]

use std::cell::Cell;
use std::sync::atomic::{AtomicBool, AtomicPtr, AtomicU32, Ordering};

/// Forks along this line of processes since the library was loaded.
static FORKS: AtomicU32 = AtomicU32::new(0);

/// Whether the fork counter is registered with `pthread_atfork`.
static COUNTING: AtomicBool = AtomicBool::new(false);

/// The page that a fork empties in the child, holding the generation plus
/// one; null until first needed, or when it cannot be had.
static MARK: AtomicPtr<AtomicU32> = AtomicPtr::new(std::ptr::null_mut());

/// Whether the page was tried and cannot be had.
static NO_MARK: AtomicBool = AtomicBool::new(false);

/// The generation this process last read from the page (a child starts
/// with its parent's: the generation before the fork).
static LAST_MARKED: AtomicU32 = AtomicU32::new(0);

/// Serial numbers handed to threads (0 is never one).
static NEXT_SERIAL: AtomicU32 = AtomicU32::new(1);

thread_local! {
    static SERIAL: Cell<u32> = const { Cell::new(0) };
}

/// Runs in the child of every fork (async-signal-safe: one atomic add).
extern "C" fn count_fork() {
    FORKS.fetch_add(1, Ordering::Relaxed);
}

/// The generation of the calling process (see the module comment).
pub(super) fn generation() -> u32 {
    let mark = MARK.load(Ordering::Acquire);
    if !mark.is_null() {
        // SAFETY: a page mapped by `map_mark`, never unmapped, and a fork
        // copies or empties it, never leaves it unmapped.
        return marked_generation(unsafe { &*mark });
    }
    if !NO_MARK.load(Ordering::Acquire) {
        if let Some(mark) = map_mark() {
            return marked_generation(mark);
        }
    }
    counted_generation()
}

/// The generation the page holds, or the next one after the generation
/// this process last read when a fork has emptied it.
fn marked_generation(mark: &AtomicU32) -> u32 {
    let held = mark.load(Ordering::Acquire);
    if held != 0 {
        return held - 1;
    }
    // A child's first look since the fork: threads racing here agree on the
    // value the first of them stores.
    let next = LAST_MARKED.load(Ordering::Acquire).wrapping_add(1);
    match mark.compare_exchange(0, next.wrapping_add(1).max(1), Ordering::AcqRel, Ordering::Acquire) {
        Ok(_) => {
            LAST_MARKED.store(next, Ordering::Release);
            next
        }
        Err(held) => held - 1,
    }
}

/// Map the page that forks empty, holding generation 0 (this process has
/// never had one, so no fork along its line was seen yet), and publish it;
/// None, and the `pthread_atfork` counter from then on, where the kernel
/// cannot empty a page at fork.
#[cfg(target_os = "linux")]
fn map_mark() -> Option<&'static AtomicU32> {
    let len = 4096;
    // SAFETY: a new private anonymous mapping; the result is checked.
    let page = unsafe {
        libc::mmap(
            std::ptr::null_mut(),
            len,
            libc::PROT_READ | libc::PROT_WRITE,
            libc::MAP_PRIVATE | libc::MAP_ANONYMOUS,
            -1,
            0,
        )
    };
    if page == libc::MAP_FAILED {
        NO_MARK.store(true, Ordering::Release);
        return None;
    }
    // SAFETY: the page just mapped, ours alone.
    if unsafe { libc::madvise(page, len, libc::MADV_WIPEONFORK) } != 0 {
        // SAFETY: the page just mapped, never published.
        unsafe { libc::munmap(page, len) };
        NO_MARK.store(true, Ordering::Release);
        return None;
    }
    let mark = page.cast::<AtomicU32>();
    // SAFETY: page-aligned, writable, and not yet shared with any thread.
    unsafe { (*mark).store(LAST_MARKED.load(Ordering::Acquire) + 1, Ordering::Release) };
    match MARK.compare_exchange(std::ptr::null_mut(), mark, Ordering::AcqRel, Ordering::Acquire) {
        // SAFETY: published and never unmapped from now on.
        Ok(_) => Some(unsafe { &*mark }),
        Err(first) => {
            // SAFETY: ours, never published; `first` won the race.
            unsafe { libc::munmap(page, len) };
            // SAFETY: as for `mark` above.
            Some(unsafe { &*first })
        }
    }
}

#[cfg(not(target_os = "linux"))]
fn map_mark() -> Option<&'static AtomicU32> {
    NO_MARK.store(true, Ordering::Release);
    None
}

/// The generation counted by a `pthread_atfork` child handler.
fn counted_generation() -> u32 {
    if !COUNTING.load(Ordering::Acquire) {
        // Threads racing here may all register: the handler then runs more
        // than once per fork, which still moves the child's generation on.
        // A fork before this returns leaves a child that registers again.
        // SAFETY: pthread_atfork only records the three handler pointers;
        // `count_fork` stays valid while the library is loaded, and glibc
        // drops the handlers of a library when it is unloaded.
        let rc = unsafe { libc::pthread_atfork(None, None, Some(count_fork as unsafe extern "C" fn())) };
        if rc == 0 {
            COUNTING.store(true, Ordering::Release);
        }
    }
    FORKS.load(Ordering::Acquire)
}

/// A non-zero token for the calling thread in this process: its serial
/// number, and the process generation in the high 32 bits. The thread
/// that forks keeps its serial in the child, so a token of its own from
/// before the fork still reads as its own through [`same_thread`].
pub fn token() -> u64 {
    let serial = SERIAL.with(|s| {
        if s.get() == 0 {
            let mut n = NEXT_SERIAL.fetch_add(1, Ordering::Relaxed);
            if n == 0 {
                n = NEXT_SERIAL.fetch_add(1, Ordering::Relaxed);
            }
            s.set(n);
        }
        s.get()
    });
    (u64::from(generation()) << 32) | u64::from(serial)
}

/// Whether `holder` (a [`token`]) names a thread of this process, given
/// `me`, the caller's token.
pub fn of_this_process(holder: u64, me: u64) -> bool {
    holder >> 32 == me >> 32
}

/// Whether `holder` names the caller's own thread, before or after a fork
/// it made.
pub fn same_thread(holder: u64, me: u64) -> bool {
    holder as u32 == me as u32
}

#[cfg(test)]
mod tests {
    use super::*;

    #[cfg(target_os = "linux")]
    #[test]
    fn a_forked_child_is_a_later_generation() {
        let parent = generation();
        // SAFETY: the child only reads and writes atomics, then exits.
        let pid = unsafe { libc::fork() };
        assert!(pid >= 0, "fork");
        if pid == 0 {
            let child = generation();
            let code = i32::from(child == parent || generation() != child);
            // SAFETY: leaves the child without running the test harness's exit.
            unsafe { libc::_exit(code) };
        }
        let mut status = 0;
        // SAFETY: waits for the child just forked.
        assert_eq!(unsafe { libc::waitpid(pid, &mut status, 0) }, pid);
        assert!(
            libc::WIFEXITED(status) && libc::WEXITSTATUS(status) == 0,
            "status {status}"
        );
        assert_eq!(generation(), parent);
    }

    #[test]
    fn tokens_name_threads_of_one_generation() {
        let me = token();
        assert_ne!(me, 0);
        assert_eq!(token(), me);
        let other = std::thread::spawn(token).join().unwrap();
        assert!(!same_thread(other, me));
        assert!(of_this_process(other, me));
        // The same thread as a fork's child sees its token from before.
        let before_fork = me ^ (1 << 32);
        assert!(same_thread(before_fork, me));
        assert!(!of_this_process(before_fork, me));
    }
}
