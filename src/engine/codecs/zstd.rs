//! Zstandard streams, with the level mapping and dictionary use of
//! C-Blosc2 3.3.5.

use crate::engine::error::{Error, Result};

/// The zstd level C-Blosc2 uses for a Blosc clevel: `2*clevel-1`, and the
/// maximum level for clevel 9.
pub fn zstd_level(clevel: u8) -> i32 {
    if clevel >= 9 {
        zstd::compression_level_range().end().to_owned()
    } else {
        2 * i32::from(clevel) - 1
    }
}

/// Reusable zstd contexts of one worker thread.
#[derive(Default)]
pub struct ZstdState {
    cctx: Option<(i32, zstd::bulk::Compressor<'static>)>,
    dctx: Option<zstd::bulk::Decompressor<'static>>,
}

impl ZstdState {
    /// Compress `src` into `dst`; 0 when it does not fit. With a dict,
    /// zstd level 1 is used for the dictionary, as C-Blosc2 does.
    pub fn compress(&mut self, clevel: u8, src: &[u8], dst: &mut [u8], dict: Option<&[u8]>) -> Result<usize> {
        let level = zstd_level(clevel);
        let r = match dict {
            Some(d) => {
                let mut c = zstd::bulk::Compressor::with_dictionary(1, d).map_err(|_| Error::CodecDict)?;
                c.compress_to_buffer(src, dst)
            }
            None => {
                let c = match &mut self.cctx {
                    Some((l, c)) if *l == level => c,
                    slot => {
                        let c = zstd::bulk::Compressor::new(level).map_err(|_| Error::CodecParam)?;
                        &mut slot.insert((level, c)).1
                    }
                };
                c.compress_to_buffer(src, dst)
            }
        };
        // An error here means "destination too small": not compressible.
        Ok(r.unwrap_or(0))
    }

    /// Decompress a zstd frame into `dst`; `None` when malformed.
    pub fn decompress(&mut self, src: &[u8], dst: &mut [u8], dict: Option<&[u8]>) -> Option<usize> {
        match dict {
            Some(d) => {
                let mut dc = zstd::bulk::Decompressor::with_dictionary(d).ok()?;
                dc.decompress_to_buffer(src, dst).ok()
            }
            None => {
                if self.dctx.is_none() {
                    self.dctx = Some(zstd::bulk::Decompressor::new().ok()?);
                }
                self.dctx.as_mut()?.decompress_to_buffer(src, dst).ok()
            }
        }
    }
}

/// Train a zstd dictionary of at most `max_size` bytes from `samples`
/// (concatenated) with the given sample sizes. `None` if training fails.
pub fn train_dict(samples: &[u8], sizes: &[usize], max_size: usize) -> Option<Vec<u8>> {
    zstd::dict::from_continuous(samples, sizes, max_size).ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn levels_match_cblosc2() {
        assert_eq!(zstd_level(1), 1);
        assert_eq!(zstd_level(5), 9);
        assert_eq!(zstd_level(8), 15);
        assert_eq!(zstd_level(9), 22);
    }

    #[test]
    fn round_trip() {
        let src: Vec<u8> = (0..20000u32).flat_map(|i| (i / 7).to_le_bytes()).collect();
        let mut st = ZstdState::default();
        let mut c = vec![0u8; src.len()];
        let n = st.compress(5, &src, &mut c, None).unwrap();
        assert!(n > 0);
        let mut d = vec![0u8; src.len()];
        assert_eq!(st.decompress(&c[..n], &mut d, None), Some(src.len()));
        assert_eq!(d, src);
        assert_eq!(st.decompress(&c[..n - 1], &mut d, None), None);
    }
}
