//! Which DEFLATE encoder writes a zlib block at a given clevel.
//!
//! C-Blosc2 compresses zlib blocks with zlib-ng's `compress2`. zlib-rs runs
//! the same algorithm and writes the same bytes, but on noise (random or
//! encrypted bytes, already-compressed data, the mantissa bytes of floats)
//! zlib-ng's match finder walks its hash chains at every byte and finds
//! nothing: 35 MB/s from clevel 4 up, 60-100 MB/s at clevels 2-3 ("fast"),
//! for a Huffman coding of literals in the end. So from clevel 2, the noise
//! of a block is found ([`super::noise_runs`], which also says how) and
//! Huffman-coded alone, 1.3-2x as fast and no larger; the rest of the block
//! stays with zlib-ng's algorithm. Blocks without noise are zlib-ng's bytes.
//! Level 1 ("quick": one probe a byte, fixed codes) gets through noise
//! faster than the search for its runs does, and stays with zlib-ng's
//! algorithm.
//!
//! From clevel 4, blocks too small for that search (under 16 KiB) that a
//! quick probe of a sample takes for noise (LZ4 finds no matches, and the
//! bytes are near-uniform: order-0 entropy; floats, whose exponent bytes
//! repeat, stay below 7.6 bits a byte) go to libdeflate, which gives up on
//! noise 1.5-2.5x as fast as zlib-ng's algorithm and still finds matches if
//! the sample misled. Only noise: on other blocks one of libdeflate's
//! trade-offs breaks the bar (on shuffled numbers its streams, rich in short
//! matches, decode at 0.5-0.65x of zlib-ng's; on runs and ramps it is
//! 0.15-0.3x as fast).
//!
//! The choice depends on the block alone, so the chunk is the same for any
//! number of threads.

use super::lz4;
use super::noise_runs::{self, NoiseRuns};

/// The encoder for one block.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Encoder {
    /// zlib-rs: zlib-ng's algorithm and bytes, as C-Blosc2 writes them.
    ZlibNg,
    /// libdeflate at this level.
    Libdeflate(i32),
    /// zlib-rs, Huffman-coding alone the noise runs [`choose`] found.
    NoiseRunsHuffmanOnly,
}

/// LZ4 ratio on the sample below which LZ4 found next to nothing.
const NO_MATCHES: f64 = 1.05;

/// Order-0 entropy, in bits a byte, from which the sample's bytes count as
/// near-uniform. Random bytes estimate at 7.83 and up on 512-byte samples,
/// floats at 7.6 and below.
const UNIFORM_BITS: f64 = 7.75;

/// The libdeflate level for a clevel whose noise blocks go to libdeflate:
/// level 6 (lazy parsing) for zlib-ng's "medium" levels 4-6, level 8 (lazy
/// parsing looking two positions ahead, deeper search) for its "slow"
/// levels 7-9.
fn libdeflate_level(clevel: u8) -> Option<i32> {
    match clevel {
        4..=6 => Some(6),
        7..=9 => Some(8),
        _ => None,
    }
}

/// Pick the encoder for `block` at `clevel`. For
/// [`Encoder::NoiseRunsHuffmanOnly`], `finder` holds the noise runs.
pub fn choose(clevel: u8, block: &[u8], finder: &mut NoiseRuns) -> Encoder {
    finder.clear();
    if block.len() < noise_runs::MIN_BLOCK {
        // Too small for runs: from clevel 4, the sample decides.
        return match libdeflate_level(clevel) {
            Some(level) if looks_like_noise(block) => Encoder::Libdeflate(level),
            _ => Encoder::ZlibNg,
        };
    }
    if clevel <= 1 {
        // zlib-ng's level 1 ("quick": one probe a byte, fixed codes) gets
        // through noise faster than the search for its runs would.
        return Encoder::ZlibNg;
    }
    // zlib-ng's level 9 hashes 3 bytes (a rolling hash, for its long
    // chains), so it finds matches of 3 bytes; the other levels, of 4.
    let shortest = if clevel >= 9 { 3 } else { noise_runs::MIN_MATCH };
    finder.find(block, shortest);
    match finder.runs() {
        [] => Encoder::ZlibNg,
        _ => Encoder::NoiseRunsHuffmanOnly,
    }
}

/// The sample is at most an eighth of the block, in at most [`WINDOWS`]
/// windows of [`WINDOW_MIN`] to [`WINDOW_MAX`] bytes spread evenly over it
/// (so every byte plane of a shuffled block is seen).
const WINDOWS: usize = 8;
const WINDOW_MIN: usize = 512;
const WINDOW_MAX: usize = 4096;

/// The sample windows of `block`; none for blocks below 4 KiB, which are
/// too small to judge and quick to compress anyway.
fn sample_windows(block: &[u8]) -> impl Iterator<Item = &[u8]> {
    let budget = block.len() / 8;
    let window = (budget / WINDOWS).clamp(WINDOW_MIN, WINDOW_MAX);
    let windows = if budget < WINDOW_MIN {
        0
    } else {
        (budget / window).min(WINDOWS)
    };
    let stride = block.len() / windows.max(1);
    (0..windows).map(move |k| &block[k * stride..k * stride + window])
}

/// Whether LZ4 (at acceleration 1, about 20x faster than deflate) finds
/// matches in `window`: it shrinks it by 5% or more.
fn lz4_finds_matches(window: &[u8]) -> bool {
    let mut out = [0u8; WINDOW_MAX];
    let room = window.len().min(WINDOW_MAX);
    // 0: did not fit, i.e. no smaller than the input.
    match lz4::compress(1, window, &mut out[..room], None) {
        0 => false,
        n => (n as f64) * NO_MATCHES < window.len() as f64,
    }
}

/// Noise: LZ4 finds no matches in any sample window (it stops at the first
/// that has some, so redundant blocks cost one small LZ4 call) and the bytes
/// are near-uniform: those of the windows, or of the whole block when it
/// is small (a window or two of a shuffled block may be all noisy mantissa
/// bytes).
fn looks_like_noise(block: &[u8]) -> bool {
    let mut windows = sample_windows(block).peekable();
    if windows.peek().is_none() {
        return false;
    }
    let whole = block.len() <= WINDOWS * WINDOW_MAX;
    let mut counts = [0u32; 256];
    let mut seen = 0usize;
    for window in windows {
        if lz4_finds_matches(window) {
            return false;
        }
        if !whole {
            count_bytes(window, &mut counts);
            seen += window.len();
        }
    }
    if whole {
        count_bytes(block, &mut counts);
        seen = block.len();
    }
    entropy_bits(&counts, seen) >= UNIFORM_BITS
}

/// Add the count of each byte value in `bytes` to `counts`. Four tables
/// take turns, so runs of one value do not make each increment wait for
/// the one before.
fn count_bytes(bytes: &[u8], counts: &mut [u32; 256]) {
    let mut lanes = [[0u32; 256]; 4];
    let mut quads = bytes.chunks_exact(4);
    for q in &mut quads {
        for (lane, &b) in lanes.iter_mut().zip(q) {
            lane[usize::from(b)] += 1;
        }
    }
    for &b in quads.remainder() {
        lanes[0][usize::from(b)] += 1;
    }
    for (v, c) in counts.iter_mut().enumerate() {
        *c += lanes.iter().map(|lane| lane[v]).sum::<u32>();
    }
}

/// Order-0 entropy in bits a byte of `n` bytes with these byte counts, with
/// the Miller-Madow correction for the sample's size (without it, 512
/// random bytes would estimate at 7.6).
fn entropy_bits(counts: &[u32; 256], n: usize) -> f64 {
    let n = n as f64;
    let mut bits = 0.0;
    let mut used = 0u32;
    for &c in counts.iter().filter(|&&c| c > 0) {
        let p = f64::from(c) / n;
        bits -= p * p.log2();
        used += 1;
    }
    bits + f64::from(used.saturating_sub(1)) / (2.0 * n * std::f64::consts::LN_2)
}

#[cfg(test)]
// The tests compare lists of runs, which may hold one range.
#[allow(clippy::single_range_in_vec_init)]
mod tests {
    use super::{
        choose, count_bytes, entropy_bits, looks_like_noise, lz4_finds_matches, sample_windows, Encoder, NoiseRuns,
        UNIFORM_BITS,
    };
    use crate::engine::filters::shuffle::test_util::Rng;

    fn noise(n: usize) -> Vec<u8> {
        let mut rng = Rng(0x2545_F491_4F6C_DD1D);
        (0..n).map(|_| (rng.next() >> 32) as u8).collect()
    }

    /// Byte planes of an int64 sequence, as shuffle leaves them.
    fn shuffled_counter(n: usize) -> Vec<u8> {
        let items = n / 8;
        let mut v = vec![0u8; items * 8];
        for i in 0..items {
            for (b, byte) in (i as u64).to_le_bytes().iter().enumerate() {
                v[b * items + i] = *byte;
            }
        }
        v
    }

    /// A sine with a little noise as float64, unshuffled: LZ4 finds no
    /// matches, but the exponent bytes repeat.
    fn floats(n: usize) -> Vec<u8> {
        noise(n / 8)
            .iter()
            .enumerate()
            .flat_map(|(i, &r)| ((i as f64 / 300.0).sin() + f64::from(r) * 1e-6).to_le_bytes())
            .collect()
    }

    /// Words of a small vocabulary picked at random, as text.
    fn text(n: usize) -> Vec<u8> {
        const WORDS: [&str; 12] = [
            "chunk ",
            "frame ",
            "blosc ",
            "the ",
            "of ",
            "compress ",
            "data\n",
            "a ",
            "shuffle ",
            "to ",
            "and ",
            "in ",
        ];
        let mut v = Vec::with_capacity(n + 16);
        for p in noise(n) {
            if v.len() >= n {
                break;
            }
            v.extend_from_slice(WORDS[p as usize % WORDS.len()].as_bytes());
        }
        v.truncate(n);
        v
    }

    fn sample_entropy(block: &[u8]) -> f64 {
        let mut counts = [0u32; 256];
        let mut n = 0;
        for w in sample_windows(block) {
            count_bytes(w, &mut counts);
            n += w.len();
        }
        entropy_bits(&counts, n)
    }

    #[test]
    fn probe_tells_noise_from_the_rest() {
        for n in [0usize, 1, 100, 4095] {
            assert_eq!(sample_windows(&noise(n)).count(), 0, "{n}");
            assert!(!looks_like_noise(&noise(n)), "{n}");
        }
        for n in [4096usize, 16_384, 40_000, 300_000, 1 << 21] {
            assert!(looks_like_noise(&noise(n)), "noise {n}");
            // Floats: no LZ4 matches, but their bytes are not uniform.
            let f = floats(n);
            assert!(!sample_windows(&f).any(lz4_finds_matches), "floats {n}");
            assert!(sample_entropy(&f) < UNIFORM_BITS, "floats {n}");
            assert!(!looks_like_noise(&f), "floats {n}");
            assert!(lz4_finds_matches(sample_windows(&text(n)).next().unwrap()), "text {n}");
            assert!(!looks_like_noise(&text(n)), "text {n}");
        }
        for n in [65_536usize, 262_144, 1 << 20] {
            assert!(!looks_like_noise(&shuffled_counter(n)), "counter {n}");
        }
        // A small shuffled block whose one sample window is noisy mantissa
        // bytes: the whole block's bytes decide.
        let mut shuffled = noise(2048);
        shuffled.extend(std::iter::repeat_n(0x3F, 2048));
        assert!(!looks_like_noise(&shuffled));
    }

    #[test]
    fn levels_pick_their_encoder() {
        let mut finder = NoiseRuns::default();
        let hard = noise(200_000);
        for clevel in 0..=9 {
            for other in [text(300_000), text(5_000), shuffled_counter(1 << 20), noise(4000)] {
                assert_eq!(choose(clevel, &other, &mut finder), Encoder::ZlibNg, "clevel {clevel}");
            }
        }
        for clevel in 0..=1 {
            assert_eq!(choose(clevel, &hard, &mut finder), Encoder::ZlibNg);
        }
        for clevel in 2..=9 {
            assert_eq!(choose(clevel, &hard, &mut finder), Encoder::NoiseRunsHuffmanOnly);
            assert_eq!(finder.runs(), [0..200_000 / 4096 * 4096]);
        }
        // Small blocks: the sample decides, from clevel 4.
        let small = noise(12_000);
        for clevel in 0..=3 {
            assert_eq!(choose(clevel, &small, &mut finder), Encoder::ZlibNg);
        }
        for clevel in 4..=6 {
            assert_eq!(choose(clevel, &small, &mut finder), Encoder::Libdeflate(6));
        }
        for clevel in 7..=9 {
            assert_eq!(choose(clevel, &small, &mut finder), Encoder::Libdeflate(8));
        }
        // Noise repeating with a period longer than the sample's windows:
        // the sample takes it for noise, the thorough search does not.
        let period = noise(6000);
        let repeated: Vec<u8> = period.iter().cycle().take(200_000).copied().collect();
        assert!(looks_like_noise(&repeated));
        assert_eq!(choose(5, &repeated, &mut finder), Encoder::ZlibNg);
        // Noise planes next to compressible ones: their runs, from clevel 2.
        let mut planes = noise(3 * 32_768);
        planes.extend(text(32_768));
        for clevel in 0..=9 {
            let encoder = choose(clevel, &planes, &mut finder);
            if clevel < 2 {
                assert_eq!(encoder, Encoder::ZlibNg);
                assert!(finder.runs().is_empty());
            } else {
                assert_eq!(encoder, Encoder::NoiseRunsHuffmanOnly);
                assert_eq!(finder.runs(), [0..3 * 32_768]);
            }
        }
    }
}
