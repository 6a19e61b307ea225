//! Byte shuffle: placeholder scalar version until the SIMD work lands.

/// Transpose `src` (items of `typesize` bytes) into `dst` byte planes.
/// Trailing bytes that do not form a whole item are copied unchanged.
pub fn shuffle(typesize: usize, src: &[u8], dst: &mut [u8]) {
    let n = src.len();
    let nelem = if typesize > 0 { n / typesize } else { 0 };
    if typesize <= 1 || nelem == 0 {
        dst[..n].copy_from_slice(src);
        return;
    }
    for i in 0..nelem {
        for j in 0..typesize {
            dst[j * nelem + i] = src[i * typesize + j];
        }
    }
    let done = nelem * typesize;
    dst[done..n].copy_from_slice(&src[done..]);
}

/// Inverse of [`shuffle`].
pub fn unshuffle(typesize: usize, src: &[u8], dst: &mut [u8]) {
    let n = src.len();
    let nelem = if typesize > 0 { n / typesize } else { 0 };
    if typesize <= 1 || nelem == 0 {
        dst[..n].copy_from_slice(src);
        return;
    }
    for i in 0..nelem {
        for j in 0..typesize {
            dst[i * typesize + j] = src[j * nelem + i];
        }
    }
    let done = nelem * typesize;
    dst[done..n].copy_from_slice(&src[done..]);
}
