//! zlib stream compression with libdeflate, for the blocks where it beats
//! zlib-ng's algorithm (see [`super::zlib_choice`]).
//!
//! libdeflate writes a standard zlib stream (header, DEFLATE blocks,
//! adler32) that every inflater reads, C-Blosc2's zlib-ng included; only
//! the parse differs from `compress2`'s.

#![allow(unsafe_code)]

use std::ptr::NonNull;

use libdeflate_sys::{
    libdeflate_alloc_compressor, libdeflate_compressor, libdeflate_free_compressor, libdeflate_zlib_compress,
};

/// A libdeflate compressor for one level, kept across calls (it holds the
/// match finder's tables, a few hundred KiB).
pub struct Deflater {
    c: NonNull<libdeflate_compressor>,
    level: i32,
}

// SAFETY: the compressor is owned by this value alone; libdeflate keeps no
// thread-local or shared state for it.
unsafe impl Send for Deflater {}

impl Drop for Deflater {
    fn drop(&mut self) {
        // SAFETY: allocated by libdeflate_alloc_compressor, freed once.
        unsafe { libdeflate_free_compressor(self.c.as_ptr()) };
    }
}

impl Deflater {
    /// A compressor for libdeflate `level` (0-12); `None` when the level is
    /// out of range or libdeflate cannot allocate its tables.
    pub fn new(level: i32) -> Option<Deflater> {
        if !(0..=12).contains(&level) {
            return None;
        }
        // SAFETY: no preconditions; NULL (bad level, out of memory) is
        // handled.
        let c = NonNull::new(unsafe { libdeflate_alloc_compressor(level) })?;
        Some(Deflater { c, level })
    }

    /// The libdeflate level this compressor was made for.
    pub fn level(&self) -> i32 {
        self.level
    }

    /// Compress `src` into `dst` as one zlib stream; 0 when it does not
    /// fit (as `compress2`'s Z_BUF_ERROR).
    pub fn compress(&mut self, src: &[u8], dst: &mut [u8]) -> usize {
        // SAFETY: `src` is readable for `src.len()` bytes and `dst`
        // writable for `dst.len()`; libdeflate stays within both and
        // returns the bytes written, or 0 when they do not fit.
        unsafe {
            libdeflate_zlib_compress(
                self.c.as_ptr(),
                src.as_ptr().cast(),
                src.len(),
                dst.as_mut_ptr().cast(),
                dst.len(),
            )
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::zlib;
    use super::Deflater;

    /// Every level writes streams that zlib-rs's `uncompress` (an
    /// independent inflater) decodes to the input; too little room gives 0.
    #[test]
    fn streams_decode_with_zlib() {
        let words: Vec<u8> = (0..120_000u32)
            .flat_map(|i| [b"blosc ", b"zlib  ", b"frame "][(i.wrapping_mul(2_654_435_761) >> 29) as usize % 3])
            .copied()
            .collect();
        let noise: Vec<u8> = (0..70_000u32)
            .map(|i| (i.wrapping_mul(2_654_435_761) >> 11) as u8)
            .collect();
        for src in [words, noise, vec![9u8; 5], Vec::new()] {
            for level in [1, 5, 6, 8, 12] {
                let mut d = Deflater::new(level).unwrap();
                assert_eq!(d.level(), level);
                let mut c = vec![0u8; src.len() + 64];
                let n = d.compress(&src, &mut c);
                assert!(n > 0, "level {level}");
                let mut out = vec![0u8; src.len()];
                assert_eq!(zlib::decompress(&c[..n], &mut out), Some(src.len()));
                assert_eq!(out, src);
                if n > 1 {
                    assert_eq!(d.compress(&src, &mut c[..n - 1]), 0);
                }
            }
        }
        assert!(Deflater::new(13).is_none());
        assert!(Deflater::new(-1).is_none());
    }
}
