//! Bit shuffle: placeholder until the real kernels land.

/// Bit-transpose the first `floor(nelems/8)*8` items of `src` into `dst`;
/// the remaining bytes are copied unchanged.
pub fn bitshuffle(_typesize: usize, src: &[u8], dst: &mut [u8]) {
    dst[..src.len()].copy_from_slice(src);
}

/// Inverse of [`bitshuffle`]. `chunk_version` selects the chunk-version-2
/// behaviour (blocks whose item count is not a multiple of 8 were stored
/// verbatim).
pub fn bitunshuffle(_typesize: usize, src: &[u8], dst: &mut [u8], _chunk_version: u8) {
    dst[..src.len()].copy_from_slice(src);
}
