//! The INT_TRUNC filter (C-Blosc2 3.3.5, filter 36): lossy, it zeroes the
//! low bits of each integer item. `meta`, read as an `i8`, is the number
//! of bits kept (> 0, 0 keeps none and is refused) or, negative, the number
//! of bits zeroed. Typesizes 1, 2, 4 and 8; decoding passes the block as it
//! is.

use crate::engine::error::{Error, Result};

/// The mask that keeps the wanted bits of an item of `bits` bits.
fn mask(prec_bits: i8, bits: u32) -> Result<u64> {
    // 3.3.5 computes the zeroed bits in a uint8_t: a precision above the
    // item size wraps around to a large number and is refused.
    let zeroed = if prec_bits >= 0 {
        (bits as u8).wrapping_sub(prec_bits as u8)
    } else {
        (prec_bits as i16).unsigned_abs() as u8
    };
    if u32::from(zeroed) >= bits {
        return Err(Error::Failure("INT_TRUNC: cannot zero all the bits of an item"));
    }
    Ok(!((1u64 << zeroed) - 1))
}

/// Zero the low bits of every whole item of `src` into `dst`; the bytes
/// after the last whole item are copied.
pub fn forward(src: &[u8], dst: &mut [u8], prec_bits: i8, typesize: i32) -> Result<()> {
    if dst.len() < src.len() {
        return Err(Error::InvalidParam("INT_TRUNC buffers"));
    }
    let dst = &mut dst[..src.len()];
    match typesize {
        1 => {
            let m = mask(prec_bits, 8)? as u8;
            for (o, &v) in dst.iter_mut().zip(src) {
                *o = v & m;
            }
        }
        2 => trunc_items::<2>(src, dst, mask(prec_bits, 16)?),
        4 => trunc_items::<4>(src, dst, mask(prec_bits, 32)?),
        8 => trunc_items::<8>(src, dst, mask(prec_bits, 64)?),
        _ => return Err(Error::Failure("INT_TRUNC handles typesizes 1, 2, 4 and 8")),
    }
    Ok(())
}

/// AND every `N`-byte little-endian item with the low `N` bytes of `mask`.
fn trunc_items<const N: usize>(src: &[u8], dst: &mut [u8], mask: u64) {
    let m = mask.to_le_bytes();
    let mut outs = dst.chunks_exact_mut(N);
    for (o, i) in outs.by_ref().zip(src.chunks_exact(N)) {
        for k in 0..N {
            o[k] = i[k] & m[k];
        }
    }
    let tail = src.len() / N * N;
    outs.into_remainder().copy_from_slice(&src[tail..]);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keeps_or_zeroes_bits() {
        let src: Vec<u8> = 0x1234_5678u32.to_le_bytes().to_vec();
        let mut dst = vec![0u8; 4];
        forward(&src, &mut dst, 8, 4).unwrap();
        assert_eq!(u32::from_le_bytes(dst[..].try_into().unwrap()), 0x1200_0000);
        forward(&src, &mut dst, -4, 4).unwrap();
        assert_eq!(u32::from_le_bytes(dst[..].try_into().unwrap()), 0x1234_5670);
        forward(&src, &mut dst, 32, 4).unwrap();
        assert_eq!(dst, src);
        assert!(forward(&src, &mut dst, 0, 4).is_err());
        assert!(forward(&src, &mut dst, 33, 4).is_err());
        assert!(forward(&src, &mut dst, -32, 4).is_err());
        assert!(forward(&src, &mut dst, 4, 3).is_err());
        let mut one = [0u8; 3];
        forward(&[0xff, 0x0f, 0xf0], &mut one, -4, 1).unwrap();
        assert_eq!(one, [0xf0, 0x00, 0xf0]);
    }
}
