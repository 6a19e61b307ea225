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
use super::{swap_blocks, transpose_bits8};
use crate::engine::cpu;
use crate::engine::filters::shuffle::sse2::{load_planes, shuffle_planes, store_items, unshuffle_planes};

/// Items per register step: 16 groups of 8, one 16-byte register per plane.
const UNIT: usize = 128;
/// Input bytes per tile: the byte planes of a tile stay in L1/L2, and each
/// bit plane receives `TILE_BYTES / typesize / 8` contiguous bytes per tile,
/// written eight planes at a time, which the hardware prefetchers follow.
const TILE_BYTES: usize = 32 * 1024;

/// Items per tile for this item size (a multiple of [`UNIT`]), capped at
/// the `avail` items left (itself at least one UNIT).
fn tile_items(typesize: usize, avail: usize) -> usize {
    let tile = (TILE_BYTES / typesize / UNIT).max(1) * UNIT;
    tile.min(avail / UNIT * UNIT)
}

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

/// Bit-shuffle items from `start` (a multiple of 8) on, in tiles, as long
/// as a whole [`UNIT`] remains; returns the first item not done. Does
/// nothing without SSE2.
pub(crate) fn bitshuffle_from(typesize: usize, start: usize, src: &[u8], dst: &mut [u8]) -> usize {
    let n = transposed_items(typesize, src.len());
    if start + UNIT > n || !is_available() || dst.len() != src.len() {
        return start;
    }
    let mut scratch = Vec::new();
    if typesize > 1 {
        scratch.resize(tile_items(typesize, n - start) * typesize, 0);
    }
    let mut i = start;
    while i + UNIT <= n {
        let items = tile_items(typesize, n - i);
        let planes: &[u8] = if typesize == 1 {
            &src[i..i + items]
        } else {
            shuffle_planes(typesize, items, &src[i * typesize..], &mut scratch);
            &scratch[..items * typesize]
        };
        // SAFETY: SSE2 is available; `i + items <= n`, `items` is a multiple
        // of UNIT and `planes` holds `items * typesize` bytes.
        unsafe { scatter_bits(typesize, i, items, planes, dst) };
        i += items;
    }
    i
}

/// Inverse of [`bitshuffle_from`].
pub(crate) fn bitunshuffle_from(typesize: usize, start: usize, src: &[u8], dst: &mut [u8]) -> usize {
    let n = transposed_items(typesize, src.len());
    if start + UNIT > n || !is_available() || dst.len() != src.len() {
        return start;
    }
    let mut scratch = Vec::new();
    if typesize > 1 {
        scratch.resize(tile_items(typesize, n - start) * typesize, 0);
    }
    let mut i = start;
    while i + UNIT <= n {
        let items = tile_items(typesize, n - i);
        if typesize == 1 {
            // SAFETY: as below, with the output slice as the plane buffer.
            unsafe { gather_bits(typesize, i, items, src, &mut dst[i..i + items]) };
        } else {
            // SAFETY: SSE2 is available; `i + items <= n`, `items` is a
            // multiple of UNIT and `scratch` holds `items * typesize` bytes.
            unsafe { gather_bits(typesize, i, items, src, &mut scratch) };
            // Garbage spilled past the tile lands in items done later (or
            // in the leftover bytes, copied last).
            unshuffle_planes(typesize, items, &scratch, &mut dst[i * typesize..]);
        }
        i += items;
    }
    i
}

/// Forward step: bit planes of items `i .. i + items` from their byte
/// planes (`planes[j * items..]` = byte `j` of those items).
///
/// # Safety
/// SSE2; `items` a multiple of [`UNIT`], `i + items` at most the transposed
/// item count of `dst`, `planes.len() >= items * typesize`.
#[target_feature(enable = "sse2")]
unsafe fn scatter_bits(typesize: usize, i: usize, items: usize, planes: &[u8], dst: &mut [u8]) {
    debug_assert!(items.is_multiple_of(UNIT) && planes.len() >= items * typesize);
    let nb = transposed_items(typesize, dst.len()) / 8;
    let p = planes.as_ptr();
    let d = dst.as_mut_ptr();
    for j in 0..typesize {
        let mut u = 0;
        while u < items {
            // SAFETY: reads `j * items + u .. + UNIT` of `planes`; writes bit
            // plane `8 * j + b` at `(i + u) / 8 .. + 16 <= nb`, since
            // `i + u + UNIT <= n`.
            unsafe {
                let mut q = load_planes::<8>(p.add(j * items + u));
                transpose_bits8!(
                    q,
                    _mm_srli_epi16,
                    _mm_slli_epi16,
                    _mm_xor_si128,
                    _mm_and_si128,
                    _mm_set1_epi8
                );
                let out = d.add(8 * j * nb + (i + u) / 8);
                for (b, v) in q.iter().enumerate().take(8) {
                    _mm_storeu_si128(out.add(b * nb).cast(), *v);
                }
            }
            u += UNIT;
        }
    }
}

/// Inverse step: byte planes of items `i .. i + items` (into
/// `planes[j * items..]`) from the bit planes in `src`.
///
/// # Safety
/// SSE2; `items` a multiple of [`UNIT`], `i + items` at most the transposed
/// item count of `src`, `planes.len() >= items * typesize`.
#[target_feature(enable = "sse2")]
unsafe fn gather_bits(typesize: usize, i: usize, items: usize, src: &[u8], planes: &mut [u8]) {
    debug_assert!(items.is_multiple_of(UNIT) && planes.len() >= items * typesize);
    let nb = transposed_items(typesize, src.len()) / 8;
    let s = src.as_ptr();
    let p = planes.as_mut_ptr();
    for j in 0..typesize {
        let mut u = 0;
        while u < items {
            // SAFETY: reads bit plane `8 * j + b` at `(i + u) / 8 .. + 16 <=
            // nb`; writes `j * items + u .. + UNIT` of `planes`.
            unsafe {
                let mut q = [_mm_setzero_si128(); 16];
                let at = s.add(8 * j * nb + (i + u) / 8);
                for (b, v) in q.iter_mut().enumerate().take(8) {
                    *v = _mm_loadu_si128(at.add(b * nb).cast());
                }
                transpose_bits8!(
                    q,
                    _mm_srli_epi16,
                    _mm_slli_epi16,
                    _mm_xor_si128,
                    _mm_and_si128,
                    _mm_set1_epi8
                );
                store_items::<8>(&q, p.add(j * items + u));
            }
            u += UNIT;
        }
    }
}
