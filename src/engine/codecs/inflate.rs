//! zlib stream decompression with libdeflate, and the streams that
//! zlib-rs decodes faster.
//!
//! zlib-rs copies a match that overlaps its own output one byte at a time,
//! and the byte and bit planes of shuffled numeric data are full of such
//! matches: bitshuffled int64 decoded at 0.7x the reference's zlib-ng.
//! libdeflate copies them a word at a time. Like `uncompress`, it checks
//! the header and the adler32 and ignores bytes after the stream.
//!
//! One kind of stream goes the other way ([`prefers_zlib_rs`]): unshuffled
//! 8-byte integers that count up, where each item is a literal and a 7-byte
//! match 8 bytes back. libdeflate copies every match as five 8-byte words,
//! and at distance 8 each word reads the one stored just before it: a chain
//! of store-to-load forwards. Such streams decoded at 0.85x the speed of
//! the reference's zlib-ng with libdeflate, and at 1.1x with zlib-rs.

#![allow(unsafe_code)]

use std::ptr::NonNull;

use super::{dynamic_header, fixed_block};
use libdeflate_sys::{
    libdeflate_alloc_decompressor, libdeflate_decompressor, libdeflate_free_decompressor,
    libdeflate_result_LIBDEFLATE_SUCCESS, libdeflate_zlib_decompress_ex,
};

/// Zero bytes appended to a copy of a small stream. libdeflate decodes the
/// last ~26 input bytes (its `FASTLOOP_MAX_BYTES_READ`) in a careful loop
/// that copies matches byte by byte; when a stream is tiny next to its
/// output (long runs), those bytes hold much of the output: a shuffled
/// int64 sequence decoded at 0.3x of zlib-ng that way. After the padding,
/// every byte of the stream is in reach of the fast loop.
const PADDING: usize = 64;

/// A libdeflate decompressor, kept across calls (it holds the decoding
/// tables, ~10 KiB), and the buffer for padded copies.
pub struct Inflater {
    d: NonNull<libdeflate_decompressor>,
    padded: Vec<u8>,
}

// SAFETY: the decompressor is owned by this value alone; libdeflate keeps
// no thread-local or shared state for it.
unsafe impl Send for Inflater {}

impl Drop for Inflater {
    fn drop(&mut self) {
        // SAFETY: allocated by libdeflate_alloc_decompressor, freed once.
        unsafe { libdeflate_free_decompressor(self.d.as_ptr()) };
    }
}

impl Inflater {
    /// `None` when libdeflate cannot allocate its tables.
    pub fn new() -> Option<Inflater> {
        // SAFETY: no preconditions; NULL (out of memory) is handled.
        let d = NonNull::new(unsafe { libdeflate_alloc_decompressor() })?;
        Some(Inflater { d, padded: Vec::new() })
    }

    /// Decompress the zlib stream at the start of `src` into `dst`: the
    /// decoded size, or `None` when the stream is malformed, truncated or
    /// does not fit in `dst`.
    pub fn decompress(&mut self, src: &[u8], dst: &mut [u8]) -> Option<usize> {
        // Padding costs a copy of the stream: only worth it when the stream
        // is small next to the output, which is when its tail matters.
        let input: &[u8] = if src.len() < dst.len() / 8 {
            self.padded.clear();
            self.padded.extend_from_slice(src);
            self.padded.resize(src.len() + PADDING, 0);
            &self.padded
        } else {
            src
        };
        let mut in_used = 0usize;
        let mut out_len = 0usize;
        // SAFETY: `input` is readable for `input.len()` bytes and `dst`
        // writable for `dst.len()`; libdeflate stays within both and
        // writes the two counts.
        let rc = unsafe {
            libdeflate_zlib_decompress_ex(
                self.d.as_ptr(),
                input.as_ptr().cast(),
                input.len(),
                dst.as_mut_ptr().cast(),
                dst.len(),
                &mut in_used,
                &mut out_len,
            )
        };
        // A stream that ends in the padding was cut short.
        (rc == libdeflate_result_LIBDEFLATE_SUCCESS && in_used <= src.len()).then_some(out_len)
    }
}

/// Blocks of dynamic-Huffman streams decoding to less than this stay with
/// libdeflate: on them, the look at the header (0.5 us) and zlib-rs's
/// per-call setup would cost what its faster decoding gains.
const MIN_ZLIB_RS_OUT: usize = 64 << 10;

/// The same for fixed-Huffman streams, whose look costs less: on counting
/// int64 at level 1, zlib-rs decoded 4 KiB blocks 1.05x and 32 KiB blocks
/// 1.26x as fast as libdeflate; 2 KiB blocks at the same speed.
const MIN_FIXED_ZLIB_RS_OUT: usize = 4 << 10;

/// Symbols of a fixed-Huffman block looked at.
const FIXED_SYMBOLS_SEEN: usize = 32;

/// Whether zlib-rs decodes `stream` (of a block of `out_len` bytes) faster
/// than libdeflate: its first block gives one-bit codes to the match length
/// 7 and to the distances 7-8 (each about half of the symbols of its kind,
/// or more), and no literal a code under 4 bits (frequent literals favour
/// libdeflate, which decodes them two or three at a time). Unshuffled int64
/// and float64 sequences that step by small amounts decode 1.2-1.3x as fast
/// with zlib-rs; every other kind measured (text, runs, shuffled numbers,
/// unshuffled floats, int32 or int16 sequences, timestamps with larger
/// steps, whose items hold 2 literals) 0.7-0.93x.
///
/// zlib-ng's level 1 writes fixed-Huffman blocks, which declare no code
/// lengths: there, a third or more of the first symbols being 7-byte
/// matches 7-8 bytes back picks zlib-rs (the same sequences, 1.05-1.26x;
/// other data measured at level 1 stays with libdeflate, where it was as
/// fast or faster).
pub fn prefers_zlib_rs(stream: &[u8], out_len: usize) -> bool {
    // A literal and a match per 8 bytes take 7 bits or more: such a stream
    // is at least 1/10 of its output. Smaller ones are not looked at.
    if stream.len() < out_len / 16 {
        return false;
    }
    if let Some(seen) = fixed_block::first_symbols(stream, FIXED_SYMBOLS_SEEN) {
        return out_len >= MIN_FIXED_ZLIB_RS_OUT && seen.seven_near * 3 >= seen.symbols;
    }
    if out_len < MIN_ZLIB_RS_OUT {
        return false;
    }
    let Some(code) = dynamic_header::first_block(stream) else {
        return false;
    };
    let shortest_literal = code.litlen()[..256].iter().filter(|&&l| l > 0).min();
    code.litlen().get(261) == Some(&1) && code.dist().get(5) == Some(&1) && shortest_literal.is_none_or(|&l| l >= 4)
}

#[cfg(test)]
mod tests {
    use super::super::zlib;
    use super::{prefers_zlib_rs, Inflater};

    /// Unshuffled int64 and float64 sequences with small steps go to
    /// zlib-rs, in blocks of 64 KiB and more; other kinds of data, and
    /// small blocks, do not.
    #[test]
    fn zlib_rs_takes_counting_int64() {
        let int64 = |start: u64, step: u64, n: u64| -> Vec<u8> {
            (0..n).flat_map(|i| (start + i * step).to_le_bytes()).collect()
        };
        let float64: Vec<u8> = (0..32_768).flat_map(|i| f64::from(i).to_le_bytes()).collect();
        for (data, level) in [
            (int64(0, 1, 32_768), 5),
            (int64(1_600_000_000_000, 3, 32_768), 5),
            (int64(0, 1, 8192), 5),
            (float64, 5),
            (int64(0, 1, 32_768), 9),
            (int64(0, 1, 4096), 1),
            (int64(7, 5, 32_768), 1),
        ] {
            assert!(prefers_zlib_rs(&zlib::compressed(level, &data), data.len()));
        }
        let shuffled: Vec<u8> = (0..8)
            .flat_map(|b| (0..32_768u64).map(move |i| (i >> (8 * b)) as u8))
            .collect();
        let text: Vec<u8> = b"one two three four five six seven eight nine ten\n"
            .iter()
            .cycle()
            .take(262_144)
            .copied()
            .collect();
        let int32: Vec<u8> = (0..65_536u32).flat_map(u32::to_le_bytes).collect();
        let steps_of_1000 = int64(1_600_000_000_000_000_000, 1000, 32_768);
        // Level 1 writes fixed-Huffman blocks, level 5 dynamic ones; each
        // has its own smallest block that goes to zlib-rs.
        for (level, too_few) in [(5, 4096), (1, 256)] {
            for data in [&shuffled, &text, &int32, &steps_of_1000, &int64(0, 1, too_few)] {
                assert!(
                    !prefers_zlib_rs(&zlib::compressed(level, data), data.len()),
                    "level {level}"
                );
            }
        }
    }

    /// Both inflaters agree on the streams that go to zlib-rs, whole,
    /// cut short, damaged or into too little room.
    #[test]
    fn both_inflaters_agree_on_counting_int64() {
        let data: Vec<u8> = (0..16_384u64).flat_map(|i| (i * 5).to_le_bytes()).collect();
        for level in [1, 5] {
            both_agree_on_damaged(&zlib::compressed(level, &data), data.len());
        }
    }

    /// `good` (of `len` bytes decoded), whole, cut short, damaged or into
    /// too little room, decodes the same with both inflaters.
    fn both_agree_on_damaged(good: &[u8], len: usize) {
        assert!(prefers_zlib_rs(good, len));
        let mut inf = Inflater::new().unwrap();
        let mut cases: Vec<(Vec<u8>, usize)> = vec![(good.to_vec(), len), (good.to_vec(), len - 1)];
        for cut in [1, 4, good.len() / 2] {
            cases.push((good[..good.len() - cut].to_vec(), len));
        }
        for at in [40, good.len() / 2, good.len() - 2] {
            let mut bad = good.to_vec();
            bad[at] ^= 0x10;
            cases.push((bad, len));
        }
        for (src, room) in cases {
            let (mut a, mut b) = (vec![0u8; room], vec![0u8; room]);
            let (ra, rb) = (inf.decompress(&src, &mut a), zlib::decompress(&src, &mut b));
            assert_eq!(ra, rb);
            if let Some(n) = ra {
                assert_eq!(a[..n], b[..n]);
            }
        }
    }

    /// Same answers as zlib-rs's `uncompress` on whole, padded-path,
    /// truncated, corrupted and too-large streams.
    #[test]
    fn agrees_with_uncompress() {
        let mut inf = Inflater::new().unwrap();
        // Runs (tiny streams: the padded path) and noisier data.
        let runs: Vec<u8> = (0..200_000u32).map(|i| (i / 3000) as u8).collect();
        let noisy: Vec<u8> = (0..50_000u32)
            .map(|i| (i.wrapping_mul(2_654_435_761) >> 13) as u8 & 0x3f)
            .collect();
        for src in [runs, noisy, vec![7u8; 1], Vec::new()] {
            for level in [1u8, 5, 9] {
                let mut c = vec![0u8; src.len() + 64];
                let n = zlib::compress(level, &src, &mut c).unwrap();
                assert!(n > 0);
                let stream = &c[..n];
                let mut d = vec![0u8; src.len()];
                assert_eq!(inf.decompress(stream, &mut d), Some(src.len()));
                assert_eq!(d, src);
                // Bytes after the stream are ignored.
                let mut tail = stream.to_vec();
                tail.extend_from_slice(&[0xAB; 100]);
                assert_eq!(inf.decompress(&tail, &mut d), Some(src.len()));
                for cut in [1, 2, 4, 5, n / 2, n - 1] {
                    let cut = cut.min(n);
                    let mut e = vec![0u8; src.len()];
                    let want = zlib::decompress(&stream[..n - cut], &mut e);
                    assert_eq!(inf.decompress(&stream[..n - cut], &mut d), want, "cut {cut}");
                }
                for at in [0, 1, n / 2, n - 1] {
                    let mut bad = stream.to_vec();
                    bad[at] ^= 0x21;
                    let mut e = vec![0u8; src.len()];
                    let want = zlib::decompress(&bad, &mut e);
                    assert_eq!(inf.decompress(&bad, &mut d).is_some(), want.is_some(), "flip at {at}");
                }
                if !src.is_empty() {
                    let mut short = vec![0u8; src.len() - 1];
                    assert_eq!(inf.decompress(stream, &mut short), None);
                }
            }
        }
    }
}
