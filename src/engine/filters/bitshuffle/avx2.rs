//! AVX2 bit shuffle kernels: the SSE2 design (see [`super::sse2`]) on 256-bit
//! registers, 32 groups of 8 items per step. Leftover items go to the SSE2
//! kernels, then to [`super::generic`].

#![allow(unsafe_code)]

#[cfg(target_arch = "x86")]
use core::arch::x86::*;
#[cfg(target_arch = "x86_64")]
use core::arch::x86_64::*;

use super::generic::{self, transposed_items};
use super::{bitshuffle_kernels, sse2, swap_blocks, transpose_bits8};
use crate::engine::cpu;

bitshuffle_kernels!(
    feature = "avx2",
    unit = 256,
    planes = crate::engine::filters::shuffle::avx2,
    vec = __m256i,
    loadu = _mm256_loadu_si256,
    storeu = _mm256_storeu_si256,
    setzero = _mm256_setzero_si256,
    srli = _mm256_srli_epi16,
    slli = _mm256_slli_epi16,
    xor = _mm256_xor_si256,
    and = _mm256_and_si256,
    set1 = _mm256_set1_epi8,
);

/// True when this CPU can run the AVX2 kernels.
#[inline]
pub fn is_available() -> bool {
    cpu::hw_has_avx2()
}

/// AVX2 version of [`super::bitshuffle`] (same contract; runs the scalar
/// code when AVX2 is missing).
pub fn bitshuffle(typesize: usize, src: &[u8], dst: &mut [u8]) {
    let dst = &mut dst[..src.len()];
    let done = bitshuffle_from(typesize, 0, src, dst);
    let done = sse2::bitshuffle_from(typesize, done, src, dst);
    generic::bitshuffle_from(typesize, done, src, dst);
}

/// AVX2 version of the format-3+ inverse (see [`super::bitunshuffle`]).
pub fn bitunshuffle(typesize: usize, src: &[u8], dst: &mut [u8]) {
    let dst = &mut dst[..src.len()];
    let done = bitunshuffle_from(typesize, 0, src, dst);
    let done = sse2::bitunshuffle_from(typesize, done, src, dst);
    generic::bitunshuffle_from(typesize, done, src, dst);
}
