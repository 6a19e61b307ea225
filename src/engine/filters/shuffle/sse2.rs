//! SSE2 byte shuffle kernels (16 items per step).
//!
//! Item sizes 2, 4, 8 and 16 have dedicated transposes; every other size
//! goes through 16x16 byte tiles, one per 16-byte slice of the item. The
//! transposes are the `unpack` networks of the parent module. Items the
//! vector loop cannot take are finished by [`super::generic`].

#![allow(unsafe_code)]

#[cfg(target_arch = "x86")]
use core::arch::x86::*;
#[cfg(target_arch = "x86_64")]
use core::arch::x86_64::*;

use super::{
    by_item_size, chunk_register, generic, items_from_planes, plane_order8, planes_from_items, transpose16,
    unpack_pairs,
};
use crate::engine::cpu;

/// True when this CPU can run the SSE2 kernels.
#[inline]
pub fn is_available() -> bool {
    cpu::hw_has_sse2()
}

/// SSE2 version of [`super::shuffle`] (same contract; runs the scalar code
/// when SSE2 is missing).
pub fn shuffle(typesize: usize, src: &[u8], dst: &mut [u8]) {
    super::whole_items(typesize, src, dst, |n, s, d| shuffle_planes(typesize, n, s, d));
}

/// SSE2 version of [`super::unshuffle`] (same contract).
pub fn unshuffle(typesize: usize, src: &[u8], dst: &mut [u8]) {
    super::whole_items(typesize, src, dst, |n, s, d| unshuffle_planes(typesize, n, s, d));
}

/// Shuffle the first `n` items of `src` into `typesize` planes of `n` bytes
/// at the start of `dst`. Bytes of `src` past `n * typesize` may be read
/// (never changed); only `dst[..n * typesize]` is written.
///
/// # Panics
/// If `typesize < 2` or a slice is shorter than `n * typesize`.
pub(crate) fn shuffle_planes(typesize: usize, n: usize, src: &[u8], dst: &mut [u8]) {
    assert!(typesize >= 2 && src.len() >= n * typesize && dst.len() >= n * typesize);
    let mut done = 0;
    if is_available() {
        // SAFETY: SSE2 is available and the slice lengths were checked.
        done = unsafe { shuffle_items(typesize, 0, n, src, dst) };
    }
    if done < n {
        generic::shuffle_items(typesize, done, n, src, dst);
    }
}

/// Inverse of [`shuffle_planes`]: rebuild `n` items in `dst` from planes of
/// `n` bytes in `src`. Writes `dst[..n * typesize]`, and may also write
/// garbage into the rest of `dst`, which the caller must overwrite.
///
/// # Panics
/// If `typesize < 2` or a slice is shorter than `n * typesize`.
pub(crate) fn unshuffle_planes(typesize: usize, n: usize, src: &[u8], dst: &mut [u8]) {
    assert!(typesize >= 2 && src.len() >= n * typesize && dst.len() >= n * typesize);
    let mut done = 0;
    if is_available() {
        // SAFETY: SSE2 is available and the slice lengths were checked.
        done = unsafe { unshuffle_items(typesize, 0, n, src, dst) };
    }
    if done < n {
        generic::unshuffle_items(typesize, done, n, src, dst);
    }
}

/// Offsets of the 16-byte slices a tile pass reads from items larger than
/// 16 bytes: 0, then `typesize % 16` (when non-zero), then every 16 bytes,
/// the last one ending exactly at the end of the item. Slices may overlap,
/// which only writes some planes twice with the same bytes. For items of
/// at most 16 bytes there is a single pass at offset 0.
pub(crate) fn tile_offsets(typesize: usize) -> impl Iterator<Item = usize> {
    let (first, last) = if typesize > 16 {
        let r = typesize % 16;
        (if r == 0 { 16 } else { r }, typesize - 16)
    } else {
        (1, 0)
    };
    core::iter::once(0).chain((first..=last).step_by(16))
}

/// End of the item range, from `start` in whole blocks of `block` items,
/// that the tile kernels may take. Items of less than 16 bytes are read (or
/// written) as 16 bytes, so the last one must still leave 16 bytes before
/// `room`, the length of the slice accessed that way.
pub(crate) fn tiled_items(typesize: usize, start: usize, n: usize, room: usize, block: usize) -> usize {
    let mut end = start + n.saturating_sub(start) / block * block;
    if typesize < 16 {
        while end > start && (end - 1) * typesize + 16 > room {
            end -= block;
        }
    }
    end
}

/// Shuffle items `start..` (start a multiple of 16) of the first `n` items
/// of `src` into planes of `n` bytes in `dst`, 16 at a time; returns the
/// first item not done.
///
/// # Safety
/// SSE2 must be available, `typesize >= 2`, and both slices must hold at
/// least `n * typesize` bytes.
#[target_feature(enable = "sse2")]
pub(crate) unsafe fn shuffle_items(typesize: usize, start: usize, n: usize, src: &[u8], dst: &mut [u8]) -> usize {
    debug_assert!(typesize >= 2 && src.len() >= n * typesize && dst.len() >= n * typesize);
    // SAFETY: the caller's contract gives the features and `n * typesize`
    // bytes in both slices, which is what the kernels need.
    unsafe { by_item_size!(shuffle_pow2, shuffle_tiled, typesize, start, n, src, dst) }
}

/// Unshuffle counterpart of [`shuffle_items`]. Bytes of `dst` past
/// `n * typesize` may receive garbage.
///
/// # Safety
/// As [`shuffle_items`].
#[target_feature(enable = "sse2")]
pub(crate) unsafe fn unshuffle_items(typesize: usize, start: usize, n: usize, src: &[u8], dst: &mut [u8]) -> usize {
    debug_assert!(typesize >= 2 && src.len() >= n * typesize && dst.len() >= n * typesize);
    // SAFETY: as in `shuffle_items`.
    unsafe { by_item_size!(unshuffle_pow2, unshuffle_tiled, typesize, start, n, src, dst) }
}

/// [`shuffle_items`] for items of `T` bytes (`T` in 2, 4, 8, 16).
///
/// # Safety
/// SSE2; `src` readable and `dst` writable for `T * n` bytes.
#[target_feature(enable = "sse2")]
unsafe fn shuffle_pow2<const T: usize>(start: usize, n: usize, src: *const u8, dst: *mut u8) -> usize {
    let end = start + n.saturating_sub(start) / 16 * 16;
    let mut i = start;
    while i < end {
        // SAFETY: `i + 16 <= n`, so the items read (`T * i .. T * (i + 16)`)
        // and the plane bytes written (`j * n + i .. + 16`, `j < T`) are in
        // bounds.
        unsafe {
            let planes = load_planes::<T>(src.add(T * i));
            for (j, v) in planes.iter().enumerate().take(T) {
                _mm_storeu_si128(dst.add(j * n + i).cast(), *v);
            }
        }
        i += 16;
    }
    end
}

/// [`unshuffle_items`] for items of `T` bytes (`T` in 2, 4, 8, 16).
///
/// # Safety
/// SSE2; `src` readable and `dst` writable for `T * n` bytes.
#[target_feature(enable = "sse2")]
unsafe fn unshuffle_pow2<const T: usize>(start: usize, n: usize, src: *const u8, dst: *mut u8) -> usize {
    let end = start + n.saturating_sub(start) / 16 * 16;
    let mut i = start;
    while i < end {
        // SAFETY: `i + 16 <= n`: plane reads `j * n + i .. + 16` and item
        // writes `T * i .. T * (i + 16)` are in bounds.
        unsafe {
            let mut x = [_mm_setzero_si128(); 16];
            for (j, v) in x.iter_mut().enumerate().take(T) {
                *v = _mm_loadu_si128(src.add(j * n + i).cast());
            }
            store_items::<T>(&x, dst.add(T * i));
        }
        i += 16;
    }
    end
}

/// [`shuffle_items`] for other item sizes, through 16x16 tiles.
///
/// # Safety
/// As [`shuffle_items`].
#[target_feature(enable = "sse2")]
unsafe fn shuffle_tiled(typesize: usize, start: usize, n: usize, src: &[u8], dst: &mut [u8]) -> usize {
    let end = tiled_items(typesize, start, n, src.len(), 16);
    let rows = typesize.min(16);
    let s = src.as_ptr();
    let d = dst.as_mut_ptr();
    let mut i = start;
    while i < end {
        for o in tile_offsets(typesize) {
            // SAFETY: the tile reads 16 bytes at `(i + e) * typesize + o`
            // for e < 16: for items above 16 bytes `o + 16 <= typesize`
            // keeps that inside item `i + e < n`; for smaller items
            // `tiled_items` checked `(end - 1) * typesize + 16 <= src.len()`.
            // Planes `o + k < typesize` are written at `(o + k) * n + i ..
            // + 16 <= typesize * n`.
            unsafe {
                let x = load_tile(s.add(i * typesize + o), typesize);
                for (k, v) in x.iter().enumerate().take(rows) {
                    _mm_storeu_si128(d.add((o + k) * n + i).cast(), *v);
                }
            }
        }
        i += 16;
    }
    end
}

/// [`unshuffle_items`] for other item sizes, through 16x16 tiles.
///
/// # Safety
/// As [`shuffle_items`].
#[target_feature(enable = "sse2")]
unsafe fn unshuffle_tiled(typesize: usize, start: usize, n: usize, src: &[u8], dst: &mut [u8]) -> usize {
    let end = tiled_items(typesize, start, n, dst.len(), 16);
    let rows = typesize.min(16);
    let s = src.as_ptr();
    let d = dst.as_mut_ptr();
    let mut i = start;
    while i < end {
        for o in tile_offsets(typesize) {
            // SAFETY: planes `o + k < typesize` are read at `(o + k) * n + i
            // .. + 16 <= typesize * n`. Item `i + e` gets 16 bytes at
            // `(i + e) * typesize + o`: inside the item when `o + 16 <=
            // typesize`, and below `dst.len()` for smaller items (checked by
            // `tiled_items`). Items are stored in increasing order, so the
            // bytes spilled past an item are rewritten by the next stores
            // (or, past item `n`, left to the caller as documented).
            unsafe {
                let mut x = [_mm_setzero_si128(); 16];
                for (k, v) in x.iter_mut().enumerate().take(rows) {
                    *v = _mm_loadu_si128(s.add((o + k) * n + i).cast());
                }
                transpose16!(x, _mm_unpacklo_epi8, _mm_unpackhi_epi8);
                for (e, v) in x.iter().enumerate() {
                    _mm_storeu_si128(d.add((i + e) * typesize + o).cast(), *v);
                }
            }
        }
        i += 16;
    }
    end
}

/// Load 16 items of `T` bytes (`T` in 2, 4, 8, 16) from `p` and return their
/// byte planes: register `j < T` = byte `j` of items 0..16 (the other
/// registers are unspecified).
///
/// # Safety
/// SSE2; `p` readable for `16 * T` bytes.
#[target_feature(enable = "sse2")]
#[inline]
pub(crate) unsafe fn load_planes<const T: usize>(p: *const u8) -> [__m128i; 16] {
    // SAFETY: the loads stay inside the `16 * T` readable bytes.
    unsafe {
        let mut x = [_mm_setzero_si128(); 16];
        for (k, v) in x.iter_mut().enumerate().take(T) {
            *v = _mm_loadu_si128(p.add(16 * k).cast());
        }
        if T == 2 {
            // Even bytes are byte 0, odd bytes byte 1: mask / shift them to
            // 16-bit lanes and pack.
            let lo = _mm_set1_epi16(0x00ff);
            let b0 = _mm_packus_epi16(_mm_and_si128(x[0], lo), _mm_and_si128(x[1], lo));
            let b1 = _mm_packus_epi16(_mm_srli_epi16::<8>(x[0]), _mm_srli_epi16::<8>(x[1]));
            x[0] = b0;
            x[1] = b1;
        } else {
            planes_from_items!(x, T, _mm_unpacklo_epi8, _mm_unpackhi_epi8);
            if T == 8 {
                let y = x;
                for (j, v) in x.iter_mut().enumerate().take(8) {
                    *v = y[plane_order8(j)];
                }
            }
        }
        x
    }
}

/// Store the planes `x` (byte `j` of 16 items in `x[j]`, `j < T`) as 16
/// items of `T` bytes (`T` in 2, 4, 8, 16) at `p`.
///
/// # Safety
/// SSE2; `p` writable for `16 * T` bytes.
#[target_feature(enable = "sse2")]
#[inline]
pub(crate) unsafe fn store_items<const T: usize>(x: &[__m128i; 16], p: *mut u8) {
    let mut x = *x;
    // SAFETY: the stores stay inside the `16 * T` writable bytes.
    unsafe {
        items_from_planes!(
            x,
            T,
            _mm_unpacklo_epi8,
            _mm_unpackhi_epi8,
            _mm_unpacklo_epi16,
            _mm_unpackhi_epi16,
            _mm_unpacklo_epi32,
            _mm_unpackhi_epi32,
            _mm_unpacklo_epi64,
            _mm_unpackhi_epi64
        );
        for c in 0..T {
            _mm_storeu_si128(p.add(16 * c).cast(), x[chunk_register(T, c)]);
        }
    }
}

/// Load one 16x16 tile: 16 bytes from each of 16 items `stride` bytes apart,
/// and return it transposed (register `k` = byte `k` of the 16 items).
///
/// # Safety
/// SSE2; `p + e * stride .. + 16` readable for `e < 16`.
#[target_feature(enable = "sse2")]
#[inline]
pub(crate) unsafe fn load_tile(p: *const u8, stride: usize) -> [__m128i; 16] {
    // SAFETY: exactly the readable ranges of the contract.
    unsafe {
        let mut x = [_mm_setzero_si128(); 16];
        for (e, v) in x.iter_mut().enumerate() {
            *v = _mm_loadu_si128(p.add(e * stride).cast());
        }
        transpose16!(x, _mm_unpacklo_epi8, _mm_unpackhi_epi8);
        x
    }
}
