//! The LZ4 decoder's hot loop without per-copy bounds checks.
//!
//! Shaped like C's `LZ4_decompress_generic` fast loop (lz4 1.9): while both
//! buffers have tens of bytes of room, every sequence is decoded with
//! fixed-size "wild" copies that may run past its end into bytes the next
//! sequences overwrite. One comparison per sequence (two for a long literal
//! run or a long match) proves all of a sequence's accesses in bounds. The
//! loop hands the first sequence it cannot take (too close to an end of
//! either buffer, an offset of 0 or reaching before the output, which a
//! dictionary may make valid) to the safe loop in `decode.rs`, which takes
//! it exactly and calls back.
//!
//! Copies per sequence: literals as one 16-byte chunk (a long run: 32-byte
//! chunks); a short match (at most 18 bytes) as two 8-byte chunks and a
//! 2-byte tail, or, for
//! an offset under 8 (runs in the byte planes of shuffled numbers), a
//! 16-byte repeated pattern stored twice; a long match as 32- or 16-byte
//! chunks (offset of 32 or more, of 16 or more) or as pattern stores
//! (offset under 16: each store a whole number of periods past the
//! previous one, so no store waits on a load of what was just written).
//!
//! Before this loop took long literal runs and long matches of short
//! periods (it left them to the safe loop, one call and return each), it
//! ran 4.2M instructions where C's `LZ4_decompress_safe` runs 3.1M on the
//! 745 LZ4 planes of 8 MiB of shuffled f64 data (32 KiB blocks); now 3.4M.
//!
//! A match 8 to 15 bytes back right after short literals (unshuffled
//! 64-bit integers that count up: a literal and a 7-byte match 8 back per
//! item) has its first bytes loaded before the literals are stored: see
//! [`loads_head_early`]. Text pays for even that one test per sequence (its
//! sequences take 9 cycles each), so the loop comes in two builds, and
//! `choose::mostly_short_periods` picks one per block from its first sequences.
//!
//! The loop is written once, over an [`Access`] to the buffers: [`run`]
//! with unchecked pointer reads and writes, [`run_checked`] with slice
//! indexing (which panics where the unchecked build would stray out of
//! bounds). The tests compare the two on valid, truncated and mutated
//! blocks.

#![allow(unsafe_code)]

use super::block::MIN_MATCH;
use super::decode::read_len_ext;
use crate::engine::codecs::pattern::{pattern16, PATTERN_STEP};

/// Input bytes the loop needs from a token on: the token, up to 14
/// literals read as one 16-byte chunk, and the 2-byte offset.
pub(super) const IN_ROOM: usize = 1 + 16 + 2;
/// Output bytes the loop needs from the sequence start: 14 literals
/// (written as 16), then a short match written as up to 32 bytes.
pub(super) const OUT_ROOM: usize = 14 + 32;
/// Room past a long literal run or a long match for its last wild chunk.
const WILD_ROOM: usize = 32;

/// The loop's reads and writes. Every method's contract is that the
/// accessed range lies inside the slice; [`Unchecked`] relies on it,
/// [`Checked`] verifies it (and panics).
pub(super) trait Access {
    /// `src[at]`.
    ///
    /// # Safety
    /// `at < src.len()`.
    unsafe fn byte(src: &[u8], at: usize) -> u8;
    /// The little-endian `u16` at `src[at..at + 2]`.
    ///
    /// # Safety
    /// `at + 2 <= src.len()`.
    unsafe fn le16(src: &[u8], at: usize) -> u16;
    /// Copies `src[from..from + N]` to `out[to..to + N]`.
    ///
    /// # Safety
    /// Both ranges in bounds.
    unsafe fn copy_in<const N: usize>(src: &[u8], from: usize, out: &mut [u8], to: usize);
    /// `out[at..at + N]`.
    ///
    /// # Safety
    /// `at + N <= out.len()`.
    unsafe fn load<const N: usize>(out: &[u8], at: usize) -> [u8; N];
    /// Writes `v` to `out[at..at + N]`.
    ///
    /// # Safety
    /// `at + N <= out.len()`.
    unsafe fn store<const N: usize>(out: &mut [u8], at: usize, v: [u8; N]);
}

/// Raw unaligned pointer accesses: the product.
pub(super) struct Unchecked;

impl Access for Unchecked {
    #[inline(always)]
    unsafe fn byte(src: &[u8], at: usize) -> u8 {
        // SAFETY: the caller guarantees `at < src.len()`.
        unsafe { *src.get_unchecked(at) }
    }
    #[inline(always)]
    unsafe fn le16(src: &[u8], at: usize) -> u16 {
        // SAFETY: the caller guarantees `at + 2 <= src.len()`.
        u16::from_le_bytes(unsafe { src.as_ptr().add(at).cast::<[u8; 2]>().read_unaligned() })
    }
    #[inline(always)]
    unsafe fn copy_in<const N: usize>(src: &[u8], from: usize, out: &mut [u8], to: usize) {
        // SAFETY: the caller guarantees both ranges in bounds; `src` and
        // `out` are distinct borrows, so they do not overlap.
        unsafe { std::ptr::copy_nonoverlapping(src.as_ptr().add(from), out.as_mut_ptr().add(to), N) }
    }
    #[inline(always)]
    unsafe fn load<const N: usize>(out: &[u8], at: usize) -> [u8; N] {
        // SAFETY: the caller guarantees `at + N <= out.len()`.
        unsafe { out.as_ptr().add(at).cast::<[u8; N]>().read_unaligned() }
    }
    #[inline(always)]
    unsafe fn store<const N: usize>(out: &mut [u8], at: usize, v: [u8; N]) {
        // SAFETY: the caller guarantees `at + N <= out.len()`.
        unsafe { out.as_mut_ptr().add(at).cast::<[u8; N]>().write_unaligned(v) }
    }
}

/// Slice indexing: the safe twin the tests compare [`Unchecked`] with.
#[cfg(test)]
pub(super) struct Checked;

#[cfg(test)]
impl Access for Checked {
    unsafe fn byte(src: &[u8], at: usize) -> u8 {
        src[at]
    }
    unsafe fn le16(src: &[u8], at: usize) -> u16 {
        u16::from_le_bytes([src[at], src[at + 1]])
    }
    unsafe fn copy_in<const N: usize>(src: &[u8], from: usize, out: &mut [u8], to: usize) {
        out[to..to + N].copy_from_slice(&src[from..from + N]);
    }
    unsafe fn load<const N: usize>(out: &[u8], at: usize) -> [u8; N] {
        out[at..at + N].try_into().expect("N bytes")
    }
    unsafe fn store<const N: usize>(out: &mut [u8], at: usize, v: [u8; N]) {
        out[at..at + N].copy_from_slice(&v);
    }
}

/// Whether the first 8 bytes of a match `offset` (>= 8) back, after `lit`
/// literals, come from before those literals, as far as they belong to the
/// match (its `code + MIN_MATCH` bytes).
///
/// Then they can be loaded before the literals are stored. Loaded after,
/// as usual, they span the previous match's 8-byte store and this
/// sequence's 16-byte literal store, which the CPU cannot forward to one
/// load: it waits for both to reach the cache. For an int64 ramp that
/// stall was half the decoding time. Loaded before, they may hold stale
/// bytes where the literals go, but only past the match's end, which the
/// next sequence overwrites.
#[inline(always)]
fn loads_head_early(offset: usize, lit: usize, code: usize) -> bool {
    offset >= lit + (code + MIN_MATCH).min(8)
}

/// The 16-byte pattern of a period `offset` (1..8) whose first period
/// starts at `out[m]`: one dispatch on the period, which loads only what
/// it needs (1, 2, 4 or 8 bytes, as C's `LZ4_memcpy_using_offset`) and
/// repeats it in registers.
///
/// # Safety
/// `m + 8 <= out.len()` (as `A`'s loads).
#[inline(always)]
unsafe fn short_pattern<A: Access>(out: &[u8], m: usize, offset: usize) -> [u8; 16] {
    /// `q` (8 bytes of pattern) twice.
    fn twice(q: u64) -> [u8; 16] {
        (q as u128 | (q as u128) << 64).to_le_bytes()
    }
    // SAFETY: each load ends by m + 8 <= out.len() (the caller).
    unsafe {
        match offset {
            1 => twice(u64::from(A::load::<1>(out, m)[0]) * 0x0101_0101_0101_0101),
            2 => twice(u64::from(u16::from_le_bytes(A::load::<2>(out, m))) * 0x0001_0001_0001_0001),
            4 => twice(u64::from(u32::from_le_bytes(A::load::<4>(out, m))) * 0x0000_0001_0000_0001),
            _ => pattern16(
                u128::from(u64::from_le_bytes(A::load::<8>(out, m))).to_le_bytes(),
                offset,
            ),
        }
    }
}

/// [`run`] with early loads, as a function of its own: inlined next to the
/// plain build, it made the compiler spill registers in that one.
#[inline(never)]
pub(super) fn run_short_periods(src: &[u8], out: &mut [u8], ip: usize, op: usize) -> (usize, usize) {
    run::<true>(src, out, ip, op)
}

/// [`run`] without early loads, as a function of its own: inlined into
/// the safe loop of `decode.rs`, it shared registers with that loop's
/// state and reloaded limits from the stack on every sequence.
#[inline(never)]
pub(super) fn run_plain(src: &[u8], out: &mut [u8], ip: usize, op: usize) -> (usize, usize) {
    run::<false>(src, out, ip, op)
}

/// Decodes sequences from `(ip, op)` on and returns the position of the
/// first one it leaves to the caller. Never reads or writes outside `src`
/// and `out`; writes past the sequences it decodes only bytes that later
/// sequences overwrite (or that lie beyond the decoded size).
///
/// `EARLY`: with the early loads of [`loads_head_early`].
#[inline(always)]
pub(super) fn run<const EARLY: bool>(src: &[u8], out: &mut [u8], ip: usize, op: usize) -> (usize, usize) {
    run_with::<EARLY, false, Unchecked>(src, out, ip, op)
}

/// The one sequence at `(ip, op)`, as [`run`] takes it (unchanged
/// positions: left to the safe loop): the rare sequences of
/// `decode_bare`'s loop, out of line so that loop keeps its state in
/// registers.
#[inline(never)]
pub(super) fn one_sequence<A: Access>(src: &[u8], out: &mut [u8], ip: usize, op: usize) -> (usize, usize) {
    run_with::<false, true, A>(src, out, ip, op)
}

/// [`run`] with checked indexing: the safe twin the tests compare it with.
#[cfg(test)]
pub(super) fn run_checked<const EARLY: bool>(src: &[u8], out: &mut [u8], ip: usize, op: usize) -> (usize, usize) {
    run_with::<EARLY, false, Checked>(src, out, ip, op)
}

/// The loop of [`run`], over the accesses of `A`; `ONE`: at most one
/// sequence.
#[inline(always)]
fn run_with<const EARLY: bool, const ONE: bool, A: Access>(
    src: &[u8],
    out: &mut [u8],
    mut ip: usize,
    mut op: usize,
) -> (usize, usize) {
    let iend = src.len();
    let oend = out.len();
    let (Some(ilimit), Some(olimit)) = (iend.checked_sub(IN_ROOM), oend.checked_sub(OUT_ROOM)) else {
        return (ip, op);
    };
    let mut first = true;
    while ip <= ilimit && op <= olimit && (!ONE || first) {
        first = false;
        // Invariants here: ip + IN_ROOM <= iend, op + OUT_ROOM <= oend.
        // SAFETY: ip < iend.
        let token = unsafe { A::byte(src, ip) };
        let mut lit = (token >> 4) as usize;
        let mut lp = ip + 1;
        if EARLY && lit < 15 {
            // SAFETY: lp + lit + 2 <= ip + 17 <= iend.
            let offset = unsafe { A::le16(src, lp + lit) } as usize;
            let code = (token & 15) as usize;
            let mpos = op + lit;
            if code < 15 && (8..16).contains(&offset) && offset <= mpos && loads_head_early(offset, lit, code) {
                let m = mpos - offset;
                // The match's first chunk is loaded before the literals
                // are stored; the bytes it takes from where they go lie
                // past the match's end (see `loads_head_early`). SAFETY:
                // as for the literals and short matches below (m >= 0,
                // mpos + 24 <= op + 38 <= oend).
                unsafe {
                    let head = A::load::<8>(out, m);
                    A::copy_in::<16>(src, lp, out, op);
                    A::store::<8>(out, mpos, head);
                    let c1 = A::load::<8>(out, m + 8);
                    A::store::<8>(out, mpos + 8, c1);
                    let c2 = A::load::<8>(out, m + 16);
                    A::store::<8>(out, mpos + 16, c2);
                }
                op = mpos + code + MIN_MATCH;
                ip = lp + lit + 2;
                continue;
            }
        }
        if lit < 15 {
            // SAFETY: lp + 16 = ip + 17 <= iend; op + 16 <= oend.
            unsafe { A::copy_in::<16>(src, lp, out, op) };
        } else {
            // Length extensions are rare: read with bounds checks.
            let Some(n) = read_len_ext(src, &mut lp) else { break };
            lit = lit.saturating_add(n);
            // lp <= iend (ext read src[lp - 1]); the run and the 2-byte
            // offset after it, and the output up to the match plus its
            // short copy, must leave room for the last 32-byte chunk.
            if iend - lp < WILD_ROOM || lit > iend - lp - WILD_ROOM || lit > oend - op - OUT_ROOM {
                break;
            }
            let mut k = 0;
            while k < lit {
                // Two 16-byte copies per 32-byte step, not one 32-byte
                // copy: LLVM turns a loop of copies as long as its step
                // into a memcpy call, which costs more than this loop on
                // the runs of a few hundred bytes seen here.
                // SAFETY: k < lit, so lp + k + 32 <= lp + lit + 31 < iend
                // and op + k + 32 < op + lit + OUT_ROOM <= oend.
                unsafe {
                    A::copy_in::<16>(src, lp + k, out, op + k);
                    A::copy_in::<16>(src, lp + k + 16, out, op + k + 16);
                }
                k += 32;
            }
        }
        lp += lit;
        let mpos = op + lit;
        // SAFETY: lit < 15: lp + 2 <= ip + 17 <= iend; a long run: checked
        // above (lp + 2 <= lp + WILD_ROOM <= iend).
        let offset = unsafe { A::le16(src, lp) } as usize;
        lp += 2;
        // `offset == 0 || offset > mpos` in one comparison.
        if offset.wrapping_sub(1) >= mpos {
            // Invalid, or into a dictionary: the safe loop decides.
            break;
        }
        // Here mpos + 32 <= oend: mpos <= op + 14 (short run) or the
        // long-run check above.
        let m = mpos - offset;
        let code = (token & 15) as usize;
        if code < 15 {
            let ml = code + MIN_MATCH;
            if offset >= 8 {
                // Two 8-byte chunks and a 2-byte tail (ml <= 18, as C's
                // LZ4), each read 8 or more bytes before where it is
                // written: no chunk overlaps itself, and a later one may
                // read what an earlier one wrote (LZ4's forward copy). A
                // third 8-byte chunk, as this loop had, made text decode 3%
                // slower: its store lands on bytes the next sequence
                // rewrites, and text's matches (5 to 12 bytes, mostly 64 or
                // more back) wait on the stores still in flight. SAFETY:
                // reads from m >= 0 end by mpos - 8 + 18 < oend; writes end
                // by mpos + 18 <= oend.
                unsafe {
                    let head = A::load::<8>(out, m);
                    A::store::<8>(out, mpos, head);
                    let c1 = A::load::<8>(out, m + 8);
                    A::store::<8>(out, mpos + 8, c1);
                    let tail = A::load::<2>(out, m + 16);
                    A::store::<2>(out, mpos + 16, tail);
                }
            } else {
                // A short period: a 16-byte pattern stored twice covers
                // the up to 18 bytes. SAFETY: the pattern is read at
                // m..m + 16 <= mpos + 15 < oend; the stores end by
                // mpos + step + 16 <= mpos + 32 <= oend.
                unsafe {
                    let pat = short_pattern::<A>(out, m, offset);
                    let step = PATTERN_STEP[offset];
                    A::store::<16>(out, mpos, pat);
                    A::store::<16>(out, mpos + step, pat);
                }
            }
            op = mpos + ml;
            ip = lp;
            continue;
        }
        // Length extensions are rare: read with bounds checks.
        let Some(n) = read_len_ext(src, &mut lp) else { break };
        let ml = n.saturating_add(15 + MIN_MATCH);
        if ml > oend - mpos - WILD_ROOM {
            break;
        }
        let end = mpos + ml;
        if offset >= 32 {
            // 32-byte chunks (half the iterations of 16-byte ones), which
            // never read what they write at this distance.
            let mut d = mpos;
            while d < end {
                // SAFETY: d < end, so d + 32 <= end + 31 < oend, and the
                // read at d - offset >= m >= 0 ends by d.
                unsafe {
                    let c = A::load::<32>(out, d - offset);
                    A::store::<32>(out, d, c);
                }
                d += 32;
            }
        } else if offset >= 16 {
            // 16-byte chunks never read what they write.
            let mut d = mpos;
            while d < end {
                // SAFETY: d < end, so d + 16 <= end + 15 < oend, and the
                // read at d - offset >= m >= 0 ends before d.
                unsafe {
                    let c = A::load::<16>(out, d - offset);
                    A::store::<16>(out, d, c);
                }
                d += 16;
            }
        } else {
            let step = PATTERN_STEP[offset];
            // Two stores per round: half the loop's branches on long runs.
            // SAFETY: the pattern is read at m..m + 16 <= mpos + 15 < oend;
            // each round starts at d < end, so its stores (step <= 16)
            // end by d + 32 <= end + 31 < oend.
            unsafe {
                let pat = if offset < 8 {
                    short_pattern::<A>(out, m, offset)
                } else {
                    pattern16(A::load::<16>(out, m), offset)
                };
                let mut d = mpos;
                while d < end {
                    A::store::<16>(out, d, pat);
                    A::store::<16>(out, d + step, pat);
                    d += 2 * step;
                }
            }
        }
        op = end;
        ip = lp;
    }
    (ip, op)
}
