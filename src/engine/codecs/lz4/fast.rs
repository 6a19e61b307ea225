//! The fast LZ4 compressor: a single-probe hash table and greedy parsing, the
//! classic LZ4 scheme, including its `acceleration` knob (the probing step
//! starts at `acceleration` bytes and grows by one every 64 misses, so larger
//! values skip incompressible regions sooner at the cost of missed matches).

use super::block::{
    count_backward, count_forward_guessed, read_u32, read_u64, Writer, LAST_LITERALS, MAX_DISTANCE, MF_LIMIT,
    MIN_INPUT, MIN_MATCH,
};
use crate::engine::codecs::match_end::EndGuess;

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
    if takes_small_table(buf, start) {
        run_small::<false>(&mut [0; 1 << SMALL_LOG], 0, buf, start, acceleration, out)
    } else {
        let mut slots = [0; 1 << LARGE_LOG];
        run(&mut LargeTable(&mut slots), buf, start, acceleration, out)
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
    let tagged = buf.len() < TAGGED_BELOW;
    if takes_small_table(buf, start) {
        // Positions stored are below min(len, 65536) (see `takes_small_table`).
        let span = buf.len().min(1 << 16);
        let t = tables.small.get_or_insert_with(Slots::new);
        if tagged {
            let base = t.begin_tagged(span, 1 << 16);
            run_small::<true>(&mut t.slots, base, buf, start, acceleration, out)
        } else {
            t.begin_untagged(span);
            run_small::<false>(&mut t.slots, 0, buf, start, acceleration, out)
        }
    } else {
        let t = tables.large.get_or_insert_with(|| Box::new([0; 1 << LARGE_LOG]));
        t.fill(0);
        run(&mut LargeTable(t), buf, start, acceleration, out)
    }
}

/// [`run`] over the 16-bit `slots`, positions stored plus `base` when
/// `TAGGED` (see [`FastTables`]).
#[inline(always)]
fn run_small<const TAGGED: bool>(
    slots: &mut [u16; 1 << SMALL_LOG],
    base: usize,
    buf: &[u8],
    start: usize,
    acceleration: u32,
    out: &mut [u8],
) -> usize {
    run(&mut SmallTable::<TAGGED> { slots, base }, buf, start, acceleration, out)
}

#[inline(always)]
fn run<T: Table>(t: &mut T, buf: &[u8], start: usize, acceleration: u32, out: &mut [u8]) -> usize {
    let mut w = Writer::new(out);
    match body(t, buf, start, acceleration, &mut w) {
        Some(()) => w.len(),
        None => 0,
    }
}

#[inline(always)]
fn body<T: Table>(t: &mut T, buf: &[u8], start: usize, acceleration: u32, w: &mut Writer<'_>) -> Option<()> {
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
    // The probes' 8-byte loads end within this view (so they need no
    // bounds check of their own once `fwd_ip <= probe_limit`).
    const _: () = assert!(MF_LIMIT >= 9, "the view must end inside buf");
    let probes = &buf[..probe_limit + 8];
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
            // Past `probe_limit`, the 8 bytes at `fwd_ip` leave `probes`.
            let Some(next) = probes.get(fwd_ip..).and_then(|rest| rest.first_chunk::<8>()) else {
                break 'search;
            };
            cand = t.get(h);
            fwd_bytes = u64::from_le_bytes(*next);
            t.put(h, ip);
            if T::in_reach(cand, ip) && read_u32(buf, cand) == bytes as u32 {
                break;
            }
        }
        // Extend the match backward over pending literals.
        let back = count_backward(buf, cand, ip, anchor, 0);
        ip -= back;
        cand -= back;

        loop {
            let ml = MIN_MATCH + count_forward_guessed(buf, cand + MIN_MATCH, ip + MIN_MATCH, match_limit, &mut guess);
            w.sequence(buf, anchor, ip - anchor, ip - cand, ml)?;
            ip += ml;
            anchor = ip;
            if ip >= probe_limit {
                break 'search;
            }
            // Cheap refill: remember a position inside the match, then try
            // the position right after it before going back to probing.
            t.put(T::hash(buf, ip - 2), ip - 2);
            let bytes = read_u64(buf, ip);
            let h = T::hash_of(bytes);
            cand = t.get(h);
            t.put(h, ip);
            if !(T::in_reach(cand, ip) && read_u32(buf, cand) == bytes as u32) {
                fwd_bytes = read_u64(probes, ip + 1);
                break;
            }
        }
        ip += 1;
    }
    w.last_literals(&buf[anchor..])
}
