//! Snappy (raw format, as c-blosc 1.x's `snappy_compress` writes it), for
//! c-blosc 1.x chunks; built with the Cargo feature `snappy`.

use snap::raw::{decompress_len, max_compress_len, Decoder, Encoder};

/// Compress `src` into `dst`. Returns the compressed size, or 0 when it
/// does not fit (Snappy may need more than `src.len()` bytes).
pub fn compress(src: &[u8], dst: &mut [u8]) -> usize {
    let mut encoder = Encoder::new();
    if dst.len() >= max_compress_len(src.len()) {
        return encoder.compress(src, dst).unwrap_or(0);
    }
    match encoder.compress_vec(src) {
        Ok(out) if out.len() <= dst.len() => {
            dst[..out.len()].copy_from_slice(&out);
            out.len()
        }
        _ => 0,
    }
}

/// Decompress `src` into `dst`; `None` when it is not a Snappy stream of
/// at most `dst.len()` bytes.
pub fn decompress(src: &[u8], dst: &mut [u8]) -> Option<usize> {
    if decompress_len(src).ok()? > dst.len() {
        return None;
    }
    Decoder::new().decompress(src, dst).ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trip_and_limits() {
        let src: Vec<u8> = (0..10_000u32).map(|i| (i / 10) as u8).collect();
        let mut dst = vec![0u8; src.len()];
        let n = compress(&src, &mut dst);
        assert!(n > 0 && n < src.len());
        let mut back = vec![0u8; src.len()];
        assert_eq!(decompress(&dst[..n], &mut back), Some(src.len()));
        assert_eq!(back, src);
        assert_eq!(decompress(&dst[..n], &mut back[..100]), None);
        assert_eq!(decompress(&[0xff, 0xff, 0xff], &mut back), None);
        let mut state = 0x9E37_79B9_7F4A_7C15u64;
        let noise: Vec<u8> = (0..1000)
            .map(|_| {
                state ^= state << 13;
                state ^= state >> 7;
                state ^= state << 17;
                (state >> 32) as u8
            })
            .collect();
        assert_eq!(compress(&noise, &mut dst[..1000]), 0);
    }
}
