//! SSE2 bit shuffle kernels.
//!
//! Both directions work on tiles of items through a buffer of byte planes
//! (plane `j` = byte `j` of the tile's items):
//!
//! * forward: the byte shuffle kernels fill the buffer; then for each plane
//!   and each run of 16 groups of 8 items, [`load_planes`] with 8-byte
//!   "items" puts byte `t` of every group in register `t`, an 8x8 bit
//!   transpose across the 8 registers turns them into the 8 bit planes of
//!   that byte, and each register is stored as 16 bytes of its bit plane;
//! * inverse: the same steps backwards ([`store_items`] puts the groups
//!   back in item order), then the byte unshuffle kernels.
//!
//! Tiles are sized so that each bit plane gets a long contiguous run per
//! tile, although the planes of a large block are far apart (see
//! [`TILE_BYTES`]).

#![allow(unsafe_code)]

#[cfg(target_arch = "x86")]
use core::arch::x86::*;
#[cfg(target_arch = "x86_64")]
use core::arch::x86_64::*;

use super::generic::{self, transposed_items};
use super::{bitshuffle_kernels, swap_blocks, transpose_bits8};
use crate::engine::cpu;

bitshuffle_kernels!(
    feature = "sse2",
    unit = 128,
    planes = crate::engine::filters::shuffle::sse2,
    vec = __m128i,
    loadu = _mm_loadu_si128,
    storeu = _mm_storeu_si128,
    setzero = _mm_setzero_si128,
    srli = _mm_srli_epi16,
    slli = _mm_slli_epi16,
    xor = _mm_xor_si128,
    and = _mm_and_si128,
    set1 = _mm_set1_epi8,
);

/// True when this CPU can run the SSE2 kernels.
#[inline]
pub fn is_available() -> bool {
    cpu::hw_has_sse2()
}

/// SSE2 version of [`super::bitshuffle`] (same contract; runs the scalar
/// code when SSE2 is missing).
pub fn bitshuffle(typesize: usize, src: &[u8], dst: &mut [u8]) {
    let dst = &mut dst[..src.len()];
    let done = bitshuffle_from(typesize, 0, src, dst);
    generic::bitshuffle_from(typesize, done, src, dst);
}

/// SSE2 version of the format-3+ inverse (see [`super::bitunshuffle`]).
pub fn bitunshuffle(typesize: usize, src: &[u8], dst: &mut [u8]) {
    let dst = &mut dst[..src.len()];
    let done = bitunshuffle_from(typesize, 0, src, dst);
    generic::bitunshuffle_from(typesize, done, src, dst);
}
