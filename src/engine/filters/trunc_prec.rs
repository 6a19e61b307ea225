//! TRUNC_PREC: zero low mantissa bits of float32/float64 items (lossy, so
//! nothing to undo on decompression).

use crate::engine::error::{Error, Result};

/// Apply the filter. `meta` is the signed filters_meta byte: >= 0 keeps
/// that many mantissa bits, < 0 zeroes `-meta` bits. Trailing bytes that
/// do not form an item are copied unchanged.
pub fn encode(meta: u8, typesize: usize, src: &[u8], dst: &mut [u8]) -> Result<()> {
    let prec = i32::from(meta as i8);
    let mantissa = match typesize {
        4 => 23,
        8 => 52,
        _ => return Err(Error::FilterPipeline),
    };
    if prec.abs() > mantissa {
        return Err(Error::FilterPipeline);
    }
    let zeroed = if prec >= 0 { mantissa - prec } else { -prec };
    if zeroed >= mantissa {
        return Err(Error::FilterPipeline);
    }
    let body = src.len() / typesize * typesize;
    if typesize == 4 {
        let mask = !((1u32 << zeroed) - 1);
        for (d, s) in dst[..body].chunks_exact_mut(4).zip(src[..body].chunks_exact(4)) {
            let v = u32::from_le_bytes([s[0], s[1], s[2], s[3]]) & mask;
            d.copy_from_slice(&v.to_le_bytes());
        }
    } else {
        let mask = !((1u64 << zeroed) - 1);
        for (d, s) in dst[..body].chunks_exact_mut(8).zip(src[..body].chunks_exact(8)) {
            let v = u64::from_le_bytes(s.try_into().unwrap_or([0; 8])) & mask;
            d.copy_from_slice(&v.to_le_bytes());
        }
    }
    dst[body..src.len()].copy_from_slice(&src[body..]);
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn truncates_and_validates() {
        let x = 1.234_567_f32.to_le_bytes();
        let mut d = [0u8; 4];
        encode(10, 4, &x, &mut d).unwrap();
        assert_eq!(u32::from_le_bytes(d) & ((1 << 13) - 1), 0);
        encode((-5i8) as u8, 4, &x, &mut d).unwrap();
        assert_eq!(u32::from_le_bytes(d) & 31, 0);
        assert!(encode(24, 4, &x, &mut d).is_err());
        assert!(encode((-23i8) as u8, 4, &x, &mut d).is_err());
        assert!(encode(3, 2, &x[..2], &mut d[..2]).is_err());
    }
}
