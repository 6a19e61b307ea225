//! zlib stream decompression with libdeflate.
//!
//! zlib-rs copies a match that overlaps its own output one byte at a time,
//! and the byte and bit planes of shuffled numeric data are full of such
//! matches: bitshuffled int64 decoded at 0.7x the reference's zlib-ng.
//! libdeflate copies them a word at a time. Like `uncompress`, it checks
//! the header and the adler32 and ignores bytes after the stream.

#![allow(unsafe_code)]

use std::ptr::NonNull;

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

#[cfg(test)]
mod tests {
    use super::super::zlib;
    use super::Inflater;

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
