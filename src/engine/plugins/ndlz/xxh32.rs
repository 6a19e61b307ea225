//! XXH32 (xxHash, 32-bit), the hash NDLZ keys its match tables with.
//!
//! Our own few lines rather than a crate: NDLZ hashes 8 to 64 bytes at a
//! time, so only the one-shot function is needed, and its value is part of
//! the format (it decides which matches the encoder finds).

const P1: u32 = 0x9E37_79B1;
const P2: u32 = 0x85EB_CA77;
const P3: u32 = 0xC2B2_AE3D;
const P4: u32 = 0x27D4_EB2F;
const P5: u32 = 0x1656_67B1;

#[inline(always)]
fn read32(b: &[u8]) -> u32 {
    u32::from_le_bytes([b[0], b[1], b[2], b[3]])
}

#[inline(always)]
fn round(acc: u32, input: u32) -> u32 {
    acc.wrapping_add(input.wrapping_mul(P2))
        .rotate_left(13)
        .wrapping_mul(P1)
}

/// `XXH32(data, len, seed)`. Inlined so that the fixed lengths NDLZ
/// hashes unroll.
#[inline(always)]
pub(super) fn xxh32(data: &[u8], seed: u32) -> u32 {
    let stripes = data.chunks_exact(16);
    let mut rest = stripes.remainder();
    let mut h = if data.len() >= 16 {
        let mut v = [
            seed.wrapping_add(P1).wrapping_add(P2),
            seed.wrapping_add(P2),
            seed,
            seed.wrapping_sub(P1),
        ];
        for stripe in stripes {
            for (k, acc) in v.iter_mut().enumerate() {
                *acc = round(*acc, read32(&stripe[4 * k..4 * k + 4]));
            }
        }
        v[0].rotate_left(1)
            .wrapping_add(v[1].rotate_left(7))
            .wrapping_add(v[2].rotate_left(12))
            .wrapping_add(v[3].rotate_left(18))
    } else {
        seed.wrapping_add(P5)
    };
    h = h.wrapping_add(data.len() as u32);
    while rest.len() >= 4 {
        h = h
            .wrapping_add(read32(rest).wrapping_mul(P3))
            .rotate_left(17)
            .wrapping_mul(P4);
        rest = &rest[4..];
    }
    for &b in rest {
        h = h
            .wrapping_add((b as u32).wrapping_mul(P5))
            .rotate_left(11)
            .wrapping_mul(P1);
    }
    h ^= h >> 15;
    h = h.wrapping_mul(P2);
    h ^= h >> 13;
    h = h.wrapping_mul(P3);
    h ^ (h >> 16)
}

#[cfg(test)]
mod tests {
    use super::xxh32;

    #[test]
    fn known_values() {
        // From xxHash's own tests and the reference's ZSTD_XXH32.
        assert_eq!(xxh32(b"", 0), 0x02CC_5D05);
        assert_eq!(xxh32(b"a", 0), 0x550D_7456);
        assert_eq!(xxh32(b"abc", 0), 0x32D1_53FF);
        let seq: Vec<u8> = (0..64).collect();
        for (len, want) in [
            (12, 0x3CFF_C34F),
            (16, 0xC65A_436E),
            (24, 0xEB0E_891C),
            (64, 0x55E9_E5A0),
        ] {
            assert_eq!(xxh32(&seq[..len], 1), want, "{len} bytes");
        }
    }
}
