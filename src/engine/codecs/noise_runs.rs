//! The noise runs of a block that is partly noise, for the zlib encoder to
//! Huffman-code alone ([`super::zlib_choice`]).
//!
//! Shuffled floats are such blocks: their byte planes of low mantissa bits
//! are noise, those of sign and exponent bits repeat. zlib-ng's match finder
//! crawls through noise (35 MB/s, against GB/s on the exponent planes), so
//! the noise planes take most of its time, yet all it ends up with there is
//! Huffman coding of literals. Huffman coding alone codes them as small at
//! several times the speed.
//!
//! "Noise" must mean that zlib-ng finds no matches worth having: otherwise
//! the block grows. So a stretch of the block counts as noise only when
//! - a quick look at the first 512 bytes of each 4 KiB segment finds next
//!   to no matches, and the segment's bytes are near-uniform (order-0
//!   entropy), so that even short matches are rare; and then
//! - a search as thorough as zlib-ng's first probe (every position hashed,
//!   the 32 KiB window before the stretch as history) finds matches over
//!   less than a hundredth of each segment. A sampled probe misses the
//!   sparse matches of planes that are mostly, but not quite, noise, and
//!   noise that repeats beyond its windows.
//!
//! A run becomes its own DEFLATE blocks (a new Huffman table, some 100
//! bytes), so only runs of two segments or more are kept. A block that is
//! all noise is one run.

use std::ops::Range;

use super::zlib_choice::{count_bytes, entropy_bits, UNIFORM_BITS};

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
/// Matches over this fraction of the first look (1 / it) make a segment
/// compressible.
const QUICK_MATCHED_FRACTION: usize = 20;
/// Shortest match counted (zlib-ng's shortest at the levels that use this).
const MIN_MATCH: usize = 4;
/// Longest DEFLATE match.
const MAX_MATCH: usize = 258;

/// Finds the noise runs of blocks; keeps its tables between blocks.
pub struct NoiseRuns {
    runs: Vec<Range<usize>>,
    /// Whether each segment of the block at hand is noise.
    noise: Vec<bool>,
    /// Bytes covered by matches starting in each segment of a run.
    matched: Vec<usize>,
    /// The last position with each hash, modulo 2^16 (the table stays
    /// small enough for the L1 cache).
    table: Box<Table>,
    quick_table: QuickTable,
}

impl Default for NoiseRuns {
    fn default() -> Self {
        NoiseRuns {
            runs: Vec::new(),
            noise: Vec::new(),
            matched: Vec::new(),
            table: Box::new([0; TABLE_LEN]),
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
    pub fn find(&mut self, block: &[u8]) {
        self.runs.clear();
        if block.len() < MIN_BLOCK {
            return;
        }
        let quick_table = &mut self.quick_table;
        let mut looks_like_noise = |segment: &[u8]| segment_looks_like_noise(segment, quick_table);
        // A run of MIN_RUN (two segments) or more holds an even-numbered
        // segment: when none looks like noise, there is no run (and blocks
        // without noise are told at half the cost).
        if !block.chunks_exact(SEGMENT).step_by(2).any(&mut looks_like_noise) {
            return;
        }
        self.noise.clear();
        self.noise.extend(block.chunks_exact(SEGMENT).map(looks_like_noise));
        let mut k = 0;
        while k < self.noise.len() {
            let first = k;
            while k < self.noise.len() && self.noise[k] {
                k += 1;
            }
            if (k - first) * SEGMENT >= MIN_RUN {
                self.check_run(block, first..k);
            }
            k += 1;
        }
    }

    /// Keep the parts of the run of `segments` (by index) in which the
    /// thorough search finds next to no matches.
    fn check_run(&mut self, block: &[u8], segments: Range<usize>) {
        let run = segments.start * SEGMENT..segments.end * SEGMENT;
        self.matched.clear();
        self.matched.resize(segments.len(), 0);
        let history = run.start.saturating_sub(WINDOW);
        let bytes = &block[history..run.end];
        let matched = &mut self.matched;
        let from = run.start - history;
        scan_matches(bytes, from, &mut self.table, |p, len| {
            matched[(p - from) / SEGMENT] += len;
            true
        });
        // The quiet stretches of the run (a false after its end closes the
        // last), long enough to keep.
        let quiet = self.matched.iter().map(|&m| m * MATCHED_FRACTION < SEGMENT);
        let mut first_quiet = None;
        for (i, quiet) in quiet.chain([false]).enumerate() {
            match (quiet, first_quiet) {
                (true, None) => first_quiet = Some(i),
                (false, Some(q)) => {
                    if (i - q) * SEGMENT >= MIN_RUN {
                        self.runs.push(run.start + q * SEGMENT..run.start + i * SEGMENT);
                    }
                    first_quiet = None;
                }
                _ => {}
            }
        }
    }
}

/// A noise segment's first [`QUICK_WINDOW`] bytes have next to no matches
/// (so compressible data is told apart at a glance), and its bytes are
/// near-uniform.
fn segment_looks_like_noise(segment: &[u8], table: &mut QuickTable) -> bool {
    let window = &segment[..QUICK_WINDOW];
    let mut matched = 0;
    scan_matches(window, 0, table, |_, len| {
        matched += len;
        matched * QUICK_MATCHED_FRACTION < QUICK_WINDOW
    });
    if matched * QUICK_MATCHED_FRACTION >= QUICK_WINDOW {
        return false;
    }
    // The bytes of the first quarter, then of the whole segment.
    let mut counts = [0u32; 256];
    let (first, rest) = segment.split_at(SEGMENT / 4);
    count_bytes(first, &mut counts);
    if entropy_bits(&counts, first.len()) < UNIFORM_BITS {
        return false;
    }
    count_bytes(rest, &mut counts);
    entropy_bits(&counts, segment.len()) >= UNIFORM_BITS
}

/// Greedy search for DEFLATE matches in `bytes[from..]`, with `bytes[..from]`
/// as history: at each position, the last earlier one whose 4 bytes hash
/// the same, if within the window, is compared with it. `on_match(position,
/// length)` gets each match of [`MIN_MATCH`] bytes or more, and says
/// whether to go on.
///
/// The table holds positions modulo 2^16 and is not cleared: an entry left
/// from other bytes points at some earlier byte of `bytes` at worst, and the
/// compare tells whether it matches.
fn scan_matches<const N: usize>(
    bytes: &[u8],
    from: usize,
    table: &mut [u16; N],
    mut on_match: impl FnMut(usize, usize) -> bool,
) {
    let log = N.trailing_zeros();
    let hash = |v: u32| (v.wrapping_mul(2_654_435_761) >> (32 - log)) as usize;
    let Some(last) = bytes.len().checked_sub(MIN_MATCH) else {
        return;
    };
    for p in from.saturating_sub(WINDOW)..from.min(last + 1) {
        table[hash(read_u32(bytes, p))] = p as u16;
    }
    let mut p = from;
    while p <= last {
        let v = read_u32(bytes, p);
        let h = hash(v);
        // The distance back to the entry, if within the window; else 0,
        // no candidate.
        let back = usize::from((p as u16).wrapping_sub(table[h]));
        let back = if back <= WINDOW.min(p) { back } else { 0 };
        table[h] = p as u16;
        if back > 0 && read_u32(bytes, p - back) == v {
            let len = MIN_MATCH + common_prefix(&bytes[p - back + MIN_MATCH..], &bytes[p + MIN_MATCH..]);
            if !on_match(p, len) {
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
    u32::from_le_bytes([bytes[p], bytes[p + 1], bytes[p + 2], bytes[p + 3]])
}

/// How many leading bytes `a` and `b` share, short of a DEFLATE match's
/// longest.
fn common_prefix(a: &[u8], b: &[u8]) -> usize {
    a.iter()
        .zip(b)
        .take(MAX_MATCH - MIN_MATCH)
        .take_while(|(x, y)| x == y)
        .count()
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
        f.find(block);
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
        // Fresh noise, then the same noise again within the window.
        let first = noise(&mut rng, WINDOW - 4096);
        let mut block = first.clone();
        block.extend(&first);
        block.extend(noise(&mut rng, 64 * 1024));
        let runs = runs_of(&block);
        assert_eq!(runs.first().map(|r| r.start), Some(0));
        assert!(
            runs.iter().all(|r| r.end <= first.len() || r.start >= 2 * first.len()),
            "{runs:?}"
        );
        // Noise with a sparse sprinkling of repeats (2% of each segment).
        let mut block = noise(&mut rng, 128 * 1024);
        for at in (8192..block.len()).step_by(400) {
            let from = at - 5000;
            block.copy_within(from..from + 8, at);
        }
        assert_eq!(runs_of(&block), vec![0..8192]);
    }
}
