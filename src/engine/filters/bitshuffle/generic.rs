//! Scalar bit shuffle: the reference kernels. They run on targets without
//! SIMD kernels and finish the groups the SIMD kernels leave over.
//!
//! Layout (`n` items of `typesize` bytes, `n` a multiple of 8, `nb = n / 8`):
//! the output has `8 * typesize` bit planes of `nb` bytes. Plane `8 * j + b`
//! holds bit `b` of byte `j` of every item, item `i` at bit `i % 8` of byte
//! `i / 8`. Each 8-item group and item byte `j` is one 8x8 bit transpose.

/// Bit-transpose `floor(n / 8) * 8` items of `src` into `dst` and copy the
/// remaining bytes unchanged (`n = src.len() / typesize`; typesize 0 copies).
pub fn bitshuffle(typesize: usize, src: &[u8], dst: &mut [u8]) {
    bitshuffle_from(typesize, 0, src, dst);
}

/// Inverse of [`bitshuffle`].
pub fn bitunshuffle(typesize: usize, src: &[u8], dst: &mut [u8]) {
    bitunshuffle_from(typesize, 0, src, dst);
}

/// Number of items the bit transpose covers: whole groups of 8.
#[inline]
pub(crate) fn transposed_items(typesize: usize, len: usize) -> usize {
    len.checked_div(typesize).map_or(0, |n| n / 8 * 8)
}

/// Transpose the 8x8 bit matrix packed in `x` (row `r` = byte `r`, column
/// `c` = bit `c`): bit `c` of byte `r` moves to bit `r` of byte `c`.
#[inline]
pub(crate) fn transpose_8x8(mut x: u64) -> u64 {
    // Swap the off-diagonal 1x1, then 2x2, then 4x4 blocks.
    let t = (x ^ (x >> 7)) & 0x00AA_00AA_00AA_00AA;
    x ^= t ^ (t << 7);
    let t = (x ^ (x >> 14)) & 0x0000_CCCC_0000_CCCC;
    x ^= t ^ (t << 14);
    let t = (x ^ (x >> 28)) & 0x0000_0000_F0F0_F0F0;
    x ^= t ^ (t << 28);
    x
}

/// Groups of 8 items per tile: every bit plane receives 64 contiguous bytes
/// per tile instead of single bytes scattered over `8 * typesize` planes.
const TILE_GROUPS: usize = 64;

/// Bit-shuffle items from `start` (a multiple of 8) to the end of the
/// transposed range, then copy the leftover bytes. Items before `start`
/// are left to the caller.
pub(crate) fn bitshuffle_from(typesize: usize, start: usize, src: &[u8], dst: &mut [u8]) {
    let len = src.len();
    let dst = &mut dst[..len];
    let n = transposed_items(typesize, len);
    let nb = n / 8;
    let mut rows = [[0u8; TILE_GROUPS]; 8];
    let mut g = start / 8;
    while g < nb {
        let gs = TILE_GROUPS.min(nb - g);
        for j in 0..typesize {
            for k in 0..gs {
                let first = 8 * (g + k) * typesize + j;
                let mut x = 0u64;
                for t in 0..8 {
                    x |= u64::from(src[first + t * typesize]) << (8 * t);
                }
                let x = transpose_8x8(x);
                for (b, row) in rows.iter_mut().enumerate() {
                    row[k] = (x >> (8 * b)) as u8;
                }
            }
            for (b, row) in rows.iter().enumerate() {
                let at = (8 * j + b) * nb + g;
                dst[at..at + gs].copy_from_slice(&row[..gs]);
            }
        }
        g += gs;
    }
    let done = n * typesize;
    dst[done..].copy_from_slice(&src[done..]);
}

/// Inverse of [`bitshuffle_from`].
pub(crate) fn bitunshuffle_from(typesize: usize, start: usize, src: &[u8], dst: &mut [u8]) {
    let len = src.len();
    let dst = &mut dst[..len];
    let n = transposed_items(typesize, len);
    let nb = n / 8;
    let mut rows = [[0u8; TILE_GROUPS]; 8];
    let mut g = start / 8;
    while g < nb {
        let gs = TILE_GROUPS.min(nb - g);
        for j in 0..typesize {
            for (b, row) in rows.iter_mut().enumerate() {
                let at = (8 * j + b) * nb + g;
                row[..gs].copy_from_slice(&src[at..at + gs]);
            }
            for k in 0..gs {
                let mut x = 0u64;
                for (b, row) in rows.iter().enumerate() {
                    x |= u64::from(row[k]) << (8 * b);
                }
                let x = transpose_8x8(x);
                let first = 8 * (g + k) * typesize + j;
                for t in 0..8 {
                    dst[first + t * typesize] = (x >> (8 * t)) as u8;
                }
            }
        }
        g += gs;
    }
    let done = n * typesize;
    dst[done..].copy_from_slice(&src[done..]);
}
