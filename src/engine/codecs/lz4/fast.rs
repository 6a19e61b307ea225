//! The fast LZ4 compressor: a single-probe hash table and greedy parsing, the
//! classic LZ4 scheme, including its `acceleration` knob (the probing step
//! starts at `acceleration` bytes and grows by one every 64 misses, so larger
//! values skip incompressible regions sooner at the cost of missed matches).
//!
//! The probe loop's loads (the 8 bytes at the next probe position, the 4 at
//! a candidate) go through [`Loads`]: unchecked in the product, where the
//! loop's own position test and the tables' contents prove them in bounds
//! (see the `SAFETY` comments in [`body`]), checked in the twin the tests
//! compare byte for byte. Their bounds checks were 5 of the loop's 22
//! instructions per probe (C's loop has 20). The match path's loads (the
//! first 8 bytes past a match's minimum, the refill's) go the same way,
//! and a match found right at the end of the previous one is written
//! without a literals step, as C's `_next_match` does.

#![allow(unsafe_code)]

use super::block::{
    count_backward, count_forward, read_u64, Writer, LAST_LITERALS, MAX_DISTANCE, MF_LIMIT, MIN_INPUT, MIN_MATCH,
};
use crate::engine::codecs::match_end::{first_difference, EndGuess};

/// The probe loop's loads. Every method's contract is that the loaded
/// range lies inside `buf`: [`Unchecked`] relies on it, [`Checked`]
/// verifies it (and panics).
trait Loads {
    /// The little-endian `u32` at `buf[at..at + 4]`.
    ///
    /// # Safety
    /// `at + 4 <= buf.len()`.
    unsafe fn u32_at(buf: &[u8], at: usize) -> u32;
    /// The little-endian `u64` at `buf[at..at + 8]`.
    ///
    /// # Safety
    /// `at + 8 <= buf.len()`.
    unsafe fn u64_at(buf: &[u8], at: usize) -> u64;
}

/// Raw unaligned loads: the product.
struct Unchecked;

impl Loads for Unchecked {
    #[inline(always)]
    unsafe fn u32_at(buf: &[u8], at: usize) -> u32 {
        debug_assert!(at + 4 <= buf.len());
        // SAFETY: the caller guarantees `at + 4 <= buf.len()`.
        u32::from_le_bytes(unsafe { buf.as_ptr().add(at).cast::<[u8; 4]>().read_unaligned() })
    }
    #[inline(always)]
    unsafe fn u64_at(buf: &[u8], at: usize) -> u64 {
        debug_assert!(at + 8 <= buf.len());
        // SAFETY: the caller guarantees `at + 8 <= buf.len()`.
        u64::from_le_bytes(unsafe { buf.as_ptr().add(at).cast::<[u8; 8]>().read_unaligned() })
    }
}

/// Slice indexing: the safe twin the tests compare [`Unchecked`] with.
#[cfg(test)]
struct Checked;

#[cfg(test)]
impl Loads for Checked {
    unsafe fn u32_at(buf: &[u8], at: usize) -> u32 {
        super::block::read_u32(buf, at)
    }
    unsafe fn u64_at(buf: &[u8], at: usize) -> u64 {
        read_u64(buf, at)
    }
}

/// Misses before the probing step grows by one (as LZ4's `LZ4_skipTrigger`).
const SKIP_TRIGGER: u32 = 6;

/// Position table keyed by a hash of the bytes at a position.
trait Table {
    /// Hash of `bytes`, the 8 bytes at a position (little-endian).
    fn hash_of(bytes: u64) -> usize;
    /// Hash of the bytes at `pos` (needs 8 readable bytes there).
    #[inline(always)]
    fn hash(buf: &[u8], pos: usize) -> usize {
        Self::hash_of(read_u64(buf, pos))
    }
    fn get(&self, h: usize) -> usize;
    fn put(&mut self, h: usize, pos: usize);
    /// Whether `cand` (a value from this table) can be referenced from `cur`.
    fn in_reach(cand: usize, cur: usize) -> bool;
}

/// log2 of the entries of [`SmallTable`].
const SMALL_LOG: u32 = 13;
/// log2 of the entries of [`LargeTable`].
const LARGE_LOG: u32 = 12;

/// Hash tables the fast compressor keeps from one block to the next (in a
/// worker's codec scratch), so that a short block need not start by
/// clearing 16 KiB as C's `LZ4_compress_fast` does for every block: the
/// 512-byte streams of a shuffled 4 KiB chunk cleared 16 KiB each.
///
/// The bytes stay those of a zeroed table. Blocks shorter than
/// [`TAGGED_BELOW`] are "tagged": a slot holds a position plus the block's
/// base, and every block gets a base above all the values stored before
/// it, so a slot below the base is stale and reads as position 0, which is
/// what an empty slot of a zeroed table names (C tests that candidate like
/// any other). Longer blocks clear the table and store plain positions:
/// there the clear costs less than the tag arithmetic on every probe (and
/// the 32-bit table, for blocks over 64 KiB, is always cleared). The
/// 16-bit table is also cleared when a base would pass 65536 (every 64 KiB
/// of tagged blocks).
#[derive(Default)]
pub struct FastTables {
    small: Option<Box<Slots<u16, { 1 << SMALL_LOG }>>>,
    large: Option<Box<[u32; 1 << LARGE_LOG]>>,
}

/// Blocks at least this long clear the table rather than tag positions:
/// the tags' extra work per probe outweighs a 16 KiB clear on longer ones
/// (LZ4's own `LZ4_prepareTable` clears from 4 KB on as well). Measured on
/// 16 KiB streams of shuffled f64 data, tagging was 2% slower.
const TAGGED_BELOW: usize = 4096;

/// One table's slots and the base the next tagged block may use.
struct Slots<S, const N: usize> {
    slots: [S; N],
    next_base: u64,
}

impl<S: Copy + Default, const N: usize> Slots<S, N> {
    fn new() -> Box<Self> {
        Box::new(Slots {
            slots: [S::default(); N],
            next_base: 0,
        })
    }

    /// The base for a tagged block storing positions below `span`, so that
    /// base + position stays below `limit` (clearing the slots when it
    /// would not).
    fn begin_tagged(&mut self, span: usize, limit: u64) -> usize {
        let span = span as u64;
        if self.next_base + span > limit {
            self.slots.fill(S::default());
            self.next_base = 0;
        }
        let base = self.next_base;
        self.next_base += span;
        base as usize
    }

    /// Clears the slots for an untagged block storing positions below
    /// `span` (with base 0); later tagged blocks start above them.
    fn begin_untagged(&mut self, span: usize) {
        self.slots.fill(S::default());
        self.next_base = span as u64;
    }
}

#[cfg(test)]
impl FastTables {
    /// Moves the 16-bit table's next base forward by `n` (as many blocks
    /// would), so that tests reach its clearing point quickly.
    pub(super) fn skip_base(&mut self, n: u64) {
        let s = self.small.get_or_insert_with(Slots::new);
        s.next_base = (s.next_base + n).min(1 << 16);
    }
}

/// 16-bit positions for buffers of at most 64 KiB: twice the entries of
/// [`LargeTable`] in the same 16 KiB (as LZ4's `byU16` mode), and no distance
/// check needed since every position is within reach. `TAGGED`: positions
/// are stored plus `base` (see [`FastTables`]).
struct SmallTable<'a, const TAGGED: bool> {
    slots: &'a mut [u16; 1 << SMALL_LOG],
    base: usize,
}

impl<const TAGGED: bool> Table for SmallTable<'_, TAGGED> {
    #[inline(always)]
    fn hash_of(bytes: u64) -> usize {
        ((bytes as u32).wrapping_mul(2_654_435_761) >> (32 - SMALL_LOG)) as usize
    }
    #[inline(always)]
    fn get(&self, h: usize) -> usize {
        let v = self.slots[h] as usize;
        if TAGGED {
            v.saturating_sub(self.base)
        } else {
            v
        }
    }
    #[inline(always)]
    fn put(&mut self, h: usize, pos: usize) {
        let v = if TAGGED { pos + self.base } else { pos };
        debug_assert!(v <= u16::MAX as usize);
        self.slots[h] = v as u16;
    }
    #[inline(always)]
    fn in_reach(_cand: usize, _cur: usize) -> bool {
        true
    }
}

/// 32-bit positions for larger buffers; hashes 5 bytes, which separates
/// candidates better than 4 on 64-bit loads (as LZ4's `byU32` mode).
/// Its buffers are never short enough for tags (see [`FastTables`]).
struct LargeTable<'a>(&'a mut [u32; 1 << LARGE_LOG]);

impl Table for LargeTable<'_> {
    #[inline(always)]
    fn hash_of(bytes: u64) -> usize {
        ((bytes << 24).wrapping_mul(889_523_592_379) >> (64 - LARGE_LOG)) as usize
    }
    #[inline(always)]
    fn get(&self, h: usize) -> usize {
        self.0[h] as usize
    }
    #[inline(always)]
    fn put(&mut self, h: usize, pos: usize) {
        self.0[h] = pos as u32;
    }
    #[inline(always)]
    fn in_reach(cand: usize, cur: usize) -> bool {
        cur - cand <= MAX_DISTANCE
    }
}

/// Whether `buf` (with the input starting at `start`) takes 16-bit
/// positions, all below 65536. Without a prefix, C takes them for inputs
/// below 64 KiB + MF_LIMIT - 1 (`LZ4_64Klimit`): positions hashed stay
/// below 65536 as no match starts in the last MF_LIMIT bytes.
fn takes_small_table(buf: &[u8], start: usize) -> bool {
    buf.len() <= 1 << 16 || (start == 0 && buf.len() < (1 << 16) + MF_LIMIT - 1)
}

/// Compresses `buf[start..]` as one block with fresh tables; `buf[..start]`
/// is a prefix (dictionary) that matches may reference. Returns 0 when
/// `out` is too small.
pub(crate) fn compress(buf: &[u8], start: usize, acceleration: u32, out: &mut [u8]) -> usize {
    compress_with::<Unchecked>(buf, start, acceleration, out)
}

/// [`compress`] with bounds-checked loads (the twin the tests compare).
#[cfg(test)]
pub(super) fn compress_checked(buf: &[u8], start: usize, acceleration: u32, out: &mut [u8]) -> usize {
    compress_with::<Checked>(buf, start, acceleration, out)
}

#[inline(always)]
fn compress_with<A: Loads>(buf: &[u8], start: usize, acceleration: u32, out: &mut [u8]) -> usize {
    if takes_small_table(buf, start) {
        run_small::<false, A>(&mut [0; 1 << SMALL_LOG], 0, buf, start, acceleration, out)
    } else {
        let mut slots = [0; 1 << LARGE_LOG];
        run::<_, A>(&mut LargeTable(&mut slots), buf, start, acceleration, out)
    }
}

/// [`compress`] with the tables kept in `tables`: the same bytes, without
/// clearing a table for short blocks.
pub(crate) fn compress_reusing(
    tables: &mut FastTables,
    buf: &[u8],
    start: usize,
    acceleration: u32,
    out: &mut [u8],
) -> usize {
    compress_reusing_with::<Unchecked>(tables, buf, start, acceleration, out)
}

/// [`compress_reusing`] with bounds-checked loads (the twin the tests
/// compare).
#[cfg(test)]
pub(super) fn compress_reusing_checked(
    tables: &mut FastTables,
    buf: &[u8],
    start: usize,
    acceleration: u32,
    out: &mut [u8],
) -> usize {
    compress_reusing_with::<Checked>(tables, buf, start, acceleration, out)
}

#[inline(always)]
fn compress_reusing_with<A: Loads>(
    tables: &mut FastTables,
    buf: &[u8],
    start: usize,
    acceleration: u32,
    out: &mut [u8],
) -> usize {
    let tagged = buf.len() < TAGGED_BELOW;
    if takes_small_table(buf, start) {
        // Positions stored are below min(len, 65536) (see `takes_small_table`).
        let span = buf.len().min(1 << 16);
        let t = tables.small.get_or_insert_with(Slots::new);
        if tagged {
            let base = t.begin_tagged(span, 1 << 16);
            run_small::<true, A>(&mut t.slots, base, buf, start, acceleration, out)
        } else {
            t.begin_untagged(span);
            run_small::<false, A>(&mut t.slots, 0, buf, start, acceleration, out)
        }
    } else {
        let t = tables.large.get_or_insert_with(|| Box::new([0; 1 << LARGE_LOG]));
        t.fill(0);
        run::<_, A>(&mut LargeTable(t), buf, start, acceleration, out)
    }
}

/// [`run`] over the 16-bit `slots`, positions stored plus `base` when
/// `TAGGED` (see [`FastTables`]).
#[inline(always)]
fn run_small<const TAGGED: bool, A: Loads>(
    slots: &mut [u16; 1 << SMALL_LOG],
    base: usize,
    buf: &[u8],
    start: usize,
    acceleration: u32,
    out: &mut [u8],
) -> usize {
    run::<_, A>(&mut SmallTable::<TAGGED> { slots, base }, buf, start, acceleration, out)
}

#[inline(always)]
fn run<T: Table, A: Loads>(t: &mut T, buf: &[u8], start: usize, acceleration: u32, out: &mut [u8]) -> usize {
    let mut w = Writer::new(out);
    match body::<T, A>(t, buf, start, acceleration, &mut w) {
        Some(()) => w.len(),
        None => 0,
    }
}

#[inline(always)]
///
/// Every position the tables hold is below the position being probed
/// (`cand < ip` below): a table starts the block empty (zeroed, or tagged
/// so that earlier blocks' slots read as 0, and `ip >= 1`), the prefix
/// seeds positions below `start`, and the loop stores each position before
/// moving past it (a match ends past every position stored).
fn body<T: Table, A: Loads>(t: &mut T, buf: &[u8], start: usize, acceleration: u32, w: &mut Writer<'_>) -> Option<()> {
    let end = buf.len();
    if end - start < MIN_INPUT {
        return w.last_literals(&buf[start..]);
    }
    // Seed the table with the prefix. Every third position, as LZ4_loadDict
    // does: cheap, and later (closer) positions overwrite earlier ones anyway.
    let mut p = start.saturating_sub(MAX_DISTANCE);
    while p + MIN_MATCH <= start {
        t.put(T::hash(buf, p), p);
        p += 3;
    }
    // Probing stops once the next probe would be past here (a match may not
    // start in the last MF_LIMIT bytes), and matches stop before the last
    // literals.
    let probe_limit = end - MF_LIMIT + 1;
    // A probe position `p <= probe_limit` has its 8 bytes inside `buf`.
    const _: () = assert!(MF_LIMIT >= 9, "8 bytes at probe_limit must end inside buf");
    let match_limit = end - LAST_LITERALS;

    let mut anchor = start;
    let mut ip = start;
    if start == 0 {
        // Nothing precedes the first byte, so it cannot start a match.
        t.put(T::hash(buf, 0), 0);
        ip = 1;
    }
    let mut fwd_bytes = read_u64(buf, ip);
    let mut guess = EndGuess::default();

    'search: loop {
        // Probe forward until the 4 bytes at `ip` equal those at a candidate.
        let mut cand;
        let mut fwd_ip = ip;
        let mut step = 1usize;
        let mut attempts = acceleration << SKIP_TRIGGER;
        loop {
            let bytes = fwd_bytes;
            let h = T::hash_of(bytes);
            ip = fwd_ip;
            fwd_ip += step;
            step = (attempts >> SKIP_TRIGGER) as usize;
            attempts += 1;
            if fwd_ip > probe_limit {
                break 'search;
            }
            cand = t.get(h);
            // SAFETY: fwd_ip <= probe_limit (just tested), whose 8 bytes
            // lie inside `buf`.
            fwd_bytes = unsafe { A::u64_at(buf, fwd_ip) };
            t.put(h, ip);
            debug_assert!(cand < ip);
            // SAFETY: cand < ip (the tables hold only positions behind the
            // probe, see above) and ip, an earlier `fwd_ip`, has 8 bytes
            // inside `buf`.
            if T::in_reach(cand, ip) && unsafe { A::u32_at(buf, cand) } == bytes as u32 {
                break;
            }
        }
        // Extend the match backward over pending literals.
        let back = count_backward(buf, cand, ip, anchor, 0);
        ip -= back;
        cand -= back;

        let mut ml = match_length::<A, true>(buf, cand, ip, match_limit, &mut guess);
        w.sequence(buf, anchor, ip - anchor, ip - cand, ml)?;
        loop {
            ip += ml;
            anchor = ip;
            if ip >= probe_limit {
                break 'search;
            }
            // Cheap refill: remember a position inside the match, then try
            // the position right after it before going back to probing.
            // SAFETY: ip < probe_limit (tested above), so the 8 bytes at
            // ip - 2, ip and ip + 1 lie inside `buf`.
            t.put(T::hash_of(unsafe { A::u64_at(buf, ip - 2) }), ip - 2);
            // SAFETY: as above.
            let bytes = unsafe { A::u64_at(buf, ip) };
            let h = T::hash_of(bytes);
            cand = t.get(h);
            t.put(h, ip);
            debug_assert!(cand < ip);
            // SAFETY: cand < ip (as in the probe loop), whose bytes lie
            // inside `buf`.
            if !(T::in_reach(cand, ip) && unsafe { A::u32_at(buf, cand) } == bytes as u32) {
                // SAFETY: ip + 1 <= probe_limit.
                fwd_bytes = unsafe { A::u64_at(buf, ip + 1) };
                break;
            }
            // A match right at the end of the last one: no literals. Its
            // end is computed, not guessed: on text most matches come
            // this way, with lengths the guess does not predict, and its
            // bookkeeping cost 8 of the 55 instructions per match here.
            ml = match_length::<A, false>(buf, cand, ip, match_limit, &mut guess);
            w.match_only(buf, ip, ip - cand, ml)?;
        }
        ip += 1;
    }
    w.last_literals(&buf[anchor..])
}

/// Length of the match between `ip` and `cand` (`cand < ip`, their first
/// [`MIN_MATCH`] bytes equal) that ends before `match_limit`
/// (`<= buf.len()`): the next 8 bytes in one comparison, the end of a
/// short match perhaps guessed (see [`first_difference`]) when `GUESS`.
#[inline(always)]
fn match_length<A: Loads, const GUESS: bool>(
    buf: &[u8],
    cand: usize,
    ip: usize,
    match_limit: usize,
    guess: &mut EndGuess,
) -> usize {
    let (cand, ip) = (cand + MIN_MATCH, ip + MIN_MATCH);
    if ip + 8 <= match_limit {
        debug_assert!(cand < ip);
        // SAFETY: ip + 8 <= match_limit <= buf.len() and cand < ip.
        let diff = unsafe { A::u64_at(buf, ip) ^ A::u64_at(buf, cand) };
        if diff != 0 {
            if !GUESS {
                return MIN_MATCH + (diff.trailing_zeros() / 8) as usize;
            }
            return MIN_MATCH + first_difference(diff, guess);
        }
        return MIN_MATCH + 8 + count_forward(buf, cand + 8, ip + 8, match_limit);
    }
    MIN_MATCH + count_forward(buf, cand, ip, match_limit)
}
