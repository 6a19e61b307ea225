//! The noise runs of a block, for the zlib encoder to Huffman-code alone
//! ([`super::zlib_choice`]).
//!
//! Noise here is bytes in which zlib-ng finds no matches worth having:
//! random or encrypted bytes, the low mantissa byte planes of shuffled
//! floats, unshuffled floats with noisy mantissas. zlib-ng's match finder
//! crawls through them (35 MB/s, against GB/s on the exponent planes of
//! shuffled floats), yet all it ends up with there is Huffman coding of
//! literals. Huffman coding alone codes them as small at several times the
//! speed.
//!
//! Were a stretch with matches taken for noise, the block would grow. So a
//! stretch of the block counts as noise only when
//! - a quick look at the first 512 bytes of each of its 4 KiB segments finds
//!   next to no matches; and then
//! - a search as thorough as zlib-ng's first probe (every position of the
//!   block hashed, matches within DEFLATE's 32 KiB window) finds matches over
//!   less than a hundredth of each segment, counting both the bytes a match
//!   covers and those it copies: the Huffman-coded bytes are not in zlib's
//!   hash chains, so nothing later may need to copy them. A sampled probe
//!   misses the sparse matches of planes that are mostly, but not quite,
//!   noise, and noise that repeats beyond its windows.
//!
//! The search gives up after 32 KiB of segments none of which is noise
//! any more, some for matches found after the quick look: data that fools
//! the quick look all over (text XORed by the delta filter) then costs a
//! window's search, not the block's.
//!
//! At zlib-ng's level 9, which hashes 3 bytes, matches of 3 bytes count.
//! A run becomes its own DEFLATE blocks (a new Huffman table, some 100
//! bytes), so only runs of two segments or more are kept. A block that is
//! all noise is one run.

use std::ops::Range;

use super::lz4::block::count_forward;

/// The unit judged at once.
pub(super) const SEGMENT: usize = 4096;
/// The shortest run worth its own DEFLATE block.
const MIN_RUN: usize = 2 * SEGMENT;
/// The smallest block judged: one with room for a run and the rest.
pub(super) const MIN_BLOCK: usize = 2 * MIN_RUN;
/// DEFLATE's window: how far back zlib-ng's matches reach.
const WINDOW: usize = 32 * 1024;
/// Matches over this fraction of a segment (1 / it) make it not noise.
const MATCHED_FRACTION: usize = 100;
/// The thorough search's table: 16 Ki entries, small enough for the L1
/// cache.
type Table = [u16; TABLE_LEN];
const TABLE_LEN: usize = 1 << 14;
/// The first look at a segment: its first 512 bytes (patterns repeating
/// within 256 bytes, such as a byte ramp, show there), with a small table.
const QUICK_WINDOW: usize = 512;
type QuickTable = [u16; QUICK_TABLE_LEN];
const QUICK_TABLE_LEN: usize = 1 << 10;
/// Matches over this fraction of the first look (1 / it: one match of 6
/// bytes) make a segment compressible.
const QUICK_MATCHED_FRACTION: usize = 100;
/// The shortest match zlib-ng's levels 2-8 find (they hash 4 bytes; level 9
/// hashes 3 and finds matches of 3).
pub(super) const MIN_MATCH: usize = 4;
/// Longest DEFLATE match.
const MAX_MATCH: usize = 258;

/// Finds the noise runs of blocks; keeps its tables between blocks.
pub struct NoiseRuns {
    runs: Vec<Range<usize>>,
    /// Whether each segment of the block at hand is noise.
    noise: Vec<bool>,
    /// Bytes of matches counted against each segment of the block: those
    /// a match covers there, and those it copies from there.
    matched: Vec<usize>,
    /// The last position with each hash, modulo 2^16 (the table stays
    /// small enough for the L1 cache). Allocated by the first thorough
    /// search: every worker of every context holds a `NoiseRuns`, and
    /// only zlib compression of big enough blocks searches (32 KiB per
    /// worker otherwise written and never read).
    table: Option<Box<Table>>,
    quick_table: QuickTable,
}

impl Default for NoiseRuns {
    fn default() -> Self {
        NoiseRuns {
            runs: Vec::new(),
            noise: Vec::new(),
            matched: Vec::new(),
            table: None,
            quick_table: [0; QUICK_TABLE_LEN],
        }
    }
}

impl NoiseRuns {
    /// The runs [`Self::find`] found, in order and apart.
    pub fn runs(&self) -> &[Range<usize>] {
        &self.runs
    }

    /// Forget the runs of the last block.
    pub fn clear(&mut self) {
        self.runs.clear();
    }

    /// Find the noise runs of `block` (none when it is under
    /// [`MIN_BLOCK`]).
    pub fn find(&mut self, block: &[u8], shortest: usize) {
        self.runs.clear();
        if block.len() < MIN_BLOCK {
            return;
        }
        // A run of MIN_RUN (two segments) or more holds an even-numbered
        // segment: when none looks like noise, there is no run (and blocks
        // without noise are told at half the cost).
        let segments = block.len() / SEGMENT;
        self.noise.clear();
        self.noise.resize(segments, false);
        let mut any = false;
        for parity in [0, 1] {
            for k in (parity..segments).step_by(2) {
                let segment = &block[k * SEGMENT..(k + 1) * SEGMENT];
                self.noise[k] = segment_looks_like_noise(segment, shortest, &mut self.quick_table);
                any |= self.noise[k];
            }
            if !any {
                return;
            }
        }
        let long_enough = self.noise.windows(MIN_RUN / SEGMENT).any(|w| w.iter().all(|&n| n));
        if !long_enough {
            return;
        }
        // The thorough search, over the whole block: a match makes both
        // its segment and the one it copies from not noise, since the
        // Huffman-coded stretches are not in zlib's hash chains (later
        // bytes could not match them).
        //
        // It gives up after a window's worth of segments none of which is
        // noise any more, some of them candidates spoiled by matches (text
        // XORed by the delta filter looks like noise at a glance, and has
        // matches all over): the segments from there on are taken as not
        // noise. Runs before that window stay as the whole search would find
        // them, since nothing after it reaches back into them.
        self.matched.clear();
        self.matched.resize(self.noise.len() + 1, 0);
        let (noise, matched) = (&self.noise, &mut self.matched);
        let mut judged = 0;
        let (mut loud_streak, mut spoiled_in_streak) = (0, 0);
        let mut gave_up_at = None;
        let table = self.table.get_or_insert_with(|| Box::new([0; TABLE_LEN]));
        scan_matches(block, 0, shortest, table, |p, back, len| {
            let segment = p / SEGMENT;
            // The segments before this match's are searched through.
            while judged < segment {
                if noise[judged] && !has_matches(matched[judged]) {
                    (loud_streak, spoiled_in_streak) = (0, 0);
                } else {
                    loud_streak += 1;
                    spoiled_in_streak += usize::from(noise[judged]);
                }
                judged += 1;
            }
            if loud_streak * SEGMENT >= WINDOW && spoiled_in_streak > 0 {
                gave_up_at = Some(segment);
                return false;
            }
            matched[segment] += len;
            matched[(p - back) / SEGMENT] += len;
            true
        });
        if let Some(segment) = gave_up_at {
            self.noise[segment..].fill(false);
        }
        // The stretches of quiet noise segments (a false after the end
        // closes the last), long enough to keep.
        let quiet = self
            .noise
            .iter()
            .zip(&self.matched)
            .map(|(&noise, &m)| noise && !has_matches(m));
        let mut first_quiet = None;
        for (i, quiet) in quiet.chain([false]).enumerate() {
            match (quiet, first_quiet) {
                (true, None) => first_quiet = Some(i),
                (false, Some(q)) => {
                    if (i - q) * SEGMENT >= MIN_RUN {
                        self.runs.push(q * SEGMENT..i * SEGMENT);
                    }
                    first_quiet = None;
                }
                _ => {}
            }
        }
    }
}

/// Whether a segment may be noise: its first [`QUICK_WINDOW`] bytes have
/// next to no matches (so compressible data is told apart at a glance).
fn segment_looks_like_noise(segment: &[u8], shortest: usize, table: &mut QuickTable) -> bool {
    let window = &segment[..QUICK_WINDOW];
    let mut matched = 0;
    scan_matches(window, 0, shortest, table, |_, _, len| {
        matched += len;
        matched * QUICK_MATCHED_FRACTION < QUICK_WINDOW
    });
    matched * QUICK_MATCHED_FRACTION < QUICK_WINDOW
}

/// Whether `matched` bytes of matches make a segment not noise.
fn has_matches(matched: usize) -> bool {
    matched * MATCHED_FRACTION >= SEGMENT
}

/// Greedy search for DEFLATE matches in `bytes[from..]`, with `bytes[..from]`
/// as history: at each position, the last earlier one whose `shortest` (3
/// or 4) bytes hash the same, if within the window, is compared with it.
/// `on_match(position, distance, length)` gets each match of `shortest`
/// bytes or more, and says whether to go on.
///
/// The table holds positions modulo 2^16; it is cleared first, so that what
/// is found depends on `bytes` alone (and the chunk on nothing else, not the
/// number of threads).
fn scan_matches<const N: usize>(
    bytes: &[u8],
    from: usize,
    shortest: usize,
    table: &mut [u16; N],
    mut on_match: impl FnMut(usize, usize, usize) -> bool,
) {
    let log = N.trailing_zeros();
    let key_mask = if shortest == 3 { 0x00FF_FFFF } else { u32::MAX };
    let hash = |v: u32| ((v & key_mask).wrapping_mul(2_654_435_761) >> (32 - log)) as usize;
    // Positions need 4 readable bytes (the last 3 or so are never judged).
    let Some(last) = bytes.len().checked_sub(MIN_MATCH) else {
        return;
    };
    table.fill(0);
    for p in from.saturating_sub(WINDOW)..from.min(last + 1) {
        table[hash(read_u32(bytes, p))] = p as u16;
    }
    let mut p = from;
    while p <= last {
        let v = read_u32(bytes, p);
        let h = hash(v);
        // The distance back to the entry, if within the window; else 0, no
        // candidate (the compare then reads `p` itself: no branch to
        // mispredict on noise, where entries are anywhere).
        let back = usize::from((p as u16).wrapping_sub(table[h]));
        let back = if back <= WINDOW.min(p) { back } else { 0 };
        table[h] = p as u16;
        if ((read_u32(bytes, p - back) ^ v) & key_mask == 0) & (back > 0) {
            let limit = bytes.len().min(p + MAX_MATCH);
            let len = shortest + count_forward(bytes, p - back + shortest, p + shortest, limit);
            if !on_match(p, back, len) {
                return;
            }
            p += len;
        } else {
            p += 1;
        }
    }
}

/// The 4 bytes at `p` (which must be readable), little-endian.
fn read_u32(bytes: &[u8], p: usize) -> u32 {
    let mut four = [0; 4];
    four.copy_from_slice(&bytes[p..p + 4]);
    u32::from_le_bytes(four)
}

#[cfg(test)]
// The tests compare lists of runs, which may hold one range.
#[allow(clippy::single_range_in_vec_init)]
mod tests {
    use super::{NoiseRuns, MIN_BLOCK, SEGMENT, WINDOW};
    use crate::engine::filters::shuffle::test_util::Rng;

    fn noise(rng: &mut Rng, n: usize) -> Vec<u8> {
        (0..n).map(|_| (rng.next() >> 32) as u8).collect()
    }

    fn runs_of(block: &[u8]) -> Vec<std::ops::Range<usize>> {
        let mut f = NoiseRuns::default();
        f.find(block, 4);
        f.runs().to_vec()
    }

    /// A shuffled float block: noise planes, then a plane of few values
    /// and one of a constant.
    #[test]
    fn noise_planes_are_found_and_the_rest_is_not() {
        let mut rng = Rng(0x2545_F491_4F6C_DD1D);
        let plane = 32 * 1024;
        let mut block = noise(&mut rng, 5 * plane);
        block.extend((0..plane).map(|i| (i / 700 % 5) as u8));
        block.extend(std::iter::repeat_n(0x3F, plane));
        assert_eq!(runs_of(&block), vec![0..5 * plane]);
        // Noise between compressible planes, and at the end.
        let mut block: Vec<u8> = (0..plane).map(|i| (i / 300 % 9) as u8).collect();
        block.extend(noise(&mut rng, 3 * plane));
        block.extend(std::iter::repeat_n(7, plane));
        block.extend(noise(&mut rng, plane));
        assert_eq!(runs_of(&block), vec![plane..4 * plane, 5 * plane..6 * plane]);
    }

    /// Too little noise, or too small a block: no runs.
    #[test]
    fn short_runs_and_small_blocks_have_none() {
        let mut rng = Rng(7);
        let mut block = vec![1u8; 64 * 1024];
        block[8192..8192 + SEGMENT].copy_from_slice(&noise(&mut rng, SEGMENT));
        assert!(runs_of(&block).is_empty());
        assert!(runs_of(&noise(&mut rng, MIN_BLOCK - 1)).is_empty());
        assert_eq!(runs_of(&noise(&mut rng, MIN_BLOCK)), vec![0..MIN_BLOCK]);
        // The tail short of a segment stays out.
        assert_eq!(runs_of(&noise(&mut rng, MIN_BLOCK + 100)), vec![0..MIN_BLOCK]);
    }

    /// Noise that repeats (a period within DEFLATE's window, or a copy of
    /// noise before it) has matches: not noise, although its bytes are
    /// near-uniform and a sampled LZ4 probe may see none.
    #[test]
    fn repeated_noise_is_not_noise() {
        let mut rng = Rng(11);
        let period = noise(&mut rng, 6000);
        let block: Vec<u8> = period.iter().cycle().take(128 * 1024).copied().collect();
        assert!(runs_of(&block).is_empty());
        // Fresh noise, then the same noise again within the window: neither
        // copy is noise (the second matches the first, so the first must
        // stay in zlib's hash chains).
        let first = noise(&mut rng, WINDOW - 4096);
        let mut block = first.clone();
        block.extend(&first);
        block.extend(noise(&mut rng, 64 * 1024));
        assert_eq!(runs_of(&block), vec![2 * first.len()..block.len()]);
        // Noise repeating every 20000 bytes: the first period is copied
        // later, the rest copies it, so none of it is noise.
        let period = noise(&mut rng, 20_000);
        let block: Vec<u8> = period.iter().cycle().take(256 * 1024).copied().collect();
        assert!(runs_of(&block).is_empty());
        // Noise with a sparse sprinkling of repeats (2% of each segment).
        let mut block = noise(&mut rng, 128 * 1024);
        for at in (17_408..block.len()).step_by(400) {
            let from = at - 5000;
            block.copy_within(from..from + 8, at);
        }
        // Copies from 12408 on: the first three segments stay noise.
        assert_eq!(runs_of(&block), vec![0..3 * SEGMENT]);
    }

    /// After a window's worth of segments that looked like noise at a
    /// glance but have matches (as text XORed by the delta filter has), the
    /// search gives up: the runs before stay as the whole search finds them,
    /// and there are none after, even where there is noise.
    #[test]
    fn the_search_gives_up_after_a_window_of_false_noise() {
        let mut rng = Rng(13);
        let mut block = noise(&mut rng, 64 * 1024);
        let sprinkled = block.len()..block.len() + 64 * 1024;
        block.extend(noise(&mut rng, sprinkled.len()));
        for at in sprinkled.step_by(400) {
            let from = at - 5000;
            block.copy_within(from..from + 8, at);
        }
        block.extend(noise(&mut rng, 128 * 1024));
        // The copies reach 5000 bytes back: 3 of them into segment 14 (too
        // few to spoil it), 10 into segment 15.
        assert_eq!(runs_of(&block), vec![0..15 * SEGMENT]);
    }
}
