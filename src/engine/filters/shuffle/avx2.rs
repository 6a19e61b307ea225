//! AVX2 byte shuffle kernels (32 items per step).
//!
//! AVX2 unpack instructions work inside each 128-bit lane, so the kernels
//! run the SSE2 networks lane by lane: the low lane handles items
//! `i..i + 16` and the high lane items `i + 16..i + 32`. A plane register
//! then holds 32 consecutive bytes of its plane and is stored in one go.
//! A remaining block of 16 items goes to the SSE2 kernels, the rest to
//! [`super::generic`].

#![allow(unsafe_code)]

#[cfg(target_arch = "x86")]
use core::arch::x86::*;
#[cfg(target_arch = "x86_64")]
use core::arch::x86_64::*;

use super::sse2::{tile_offsets, tiled_items};
use super::{
    by_item_size, chunk_register, generic, items_from_planes, plane_order8, planes_from_items, sse2, transpose16,
    unpack_pairs,
};
use crate::engine::cpu;

/// True when this CPU can run the AVX2 kernels.
#[inline]
pub fn is_available() -> bool {
    cpu::hw_has_avx2()
}

/// From this many planes on, plane rows are handled 64 bytes (two steps)
/// at a time. Planes of a large block are often a power-of-two distance
/// apart and then share one L1 set; with more such rows than the cache has
/// ways, a line written (or read) half at a time would be evicted between
/// the halves.
const PAIR_ROWS: usize = 12;

/// How far ahead of the items being shuffled [`shuffle_pow2`] asks for
/// the source's cache lines. The source is the caller's buffer, read once
/// and mostly from DRAM or L3 (a super-chunk appends chunk after chunk of
/// a large array); the loop stalled on its loads (most of its samples on
/// the first unpack after them), the hardware prefetcher, which starts
/// over at every 4 KiB page, not keeping up. Measured with
/// `/work/notes/harness/lz4c_sc.c` (256 chunks appended to an in-memory
/// super-chunk, f64 smooth data, LZ4 clevel 5, shuffle, one thread,
/// alternating with C-Blosc2 3.3.5 in one process), t_C/t_ours: 32 KiB
/// chunks 1.02 without, 1.05 at 1 KiB ahead, 1.08 at 2 KiB, 1.11 at
/// 4 KiB, 1.06-1.11 at 8 KiB; 128 KiB chunks 1.07, 1.17, 1.18, 1.20,
/// 1.12-1.18. A hint only: lines past the source are never faulted in.
const PREFETCH_AHEAD: usize = 4096;

/// Asks for the `lines` cache lines [`PREFETCH_AHEAD`] bytes past `at`.
#[target_feature(enable = "avx2")]
#[inline]
fn prefetch_ahead(at: *const u8, lines: usize) {
    let ahead = at.wrapping_add(PREFETCH_AHEAD);
    for k in 0..lines {
        // A prefetch never faults, wherever it points.
        _mm_prefetch::<_MM_HINT_T0>(ahead.wrapping_add(64 * k).cast());
    }
}

/// Bytes of items per run of the tiled unshuffle (stays in L1).
const RUN_BYTES: usize = 16 * 1024;

/// AVX2 version of [`super::shuffle`] (same contract; runs the scalar code
/// when AVX2 is missing).
pub fn shuffle(typesize: usize, src: &[u8], dst: &mut [u8]) {
    super::whole_items(typesize, src, dst, |n, s, d| shuffle_planes(typesize, n, s, d));
}

/// AVX2 version of [`super::unshuffle`] (same contract).
pub fn unshuffle(typesize: usize, src: &[u8], dst: &mut [u8]) {
    super::whole_items(typesize, src, dst, |n, s, d| unshuffle_planes(typesize, n, s, d));
}

/// AVX2 version of [`sse2::shuffle_planes`] (same contract).
pub(crate) fn shuffle_planes(typesize: usize, n: usize, src: &[u8], dst: &mut [u8]) {
    assert!(typesize >= 2 && src.len() >= n * typesize && dst.len() >= n * typesize);
    let mut done = 0;
    if is_available() {
        // SAFETY: AVX2 (and with it SSE2, see `cpu`) is available and the
        // slice lengths were checked.
        done = unsafe {
            let done = shuffle_items(typesize, 0, n, src, dst);
            if done < n {
                sse2::shuffle_items(typesize, done, n, src, dst)
            } else {
                done
            }
        };
    }
    if done < n {
        generic::shuffle_items(typesize, done, n, src, dst);
    }
}

/// AVX2 version of [`sse2::unshuffle_planes`] (same contract: bytes of
/// `dst` past `n * typesize` may receive garbage).
pub(crate) fn unshuffle_planes(typesize: usize, n: usize, src: &[u8], dst: &mut [u8]) {
    assert!(typesize >= 2 && src.len() >= n * typesize && dst.len() >= n * typesize);
    let mut done = 0;
    if is_available() {
        // SAFETY: AVX2 and SSE2 are available and the lengths were checked.
        done = unsafe {
            let done = unshuffle_items(typesize, 0, n, src, dst);
            if done < n {
                sse2::unshuffle_items(typesize, done, n, src, dst)
            } else {
                done
            }
        };
    }
    if done < n {
        generic::unshuffle_items(typesize, done, n, src, dst);
    }
}

/// AVX2 version of [`sse2::shuffle_items`], 32 items at a time.
///
/// # Safety
/// AVX2 must be available, `typesize >= 2`, and both slices must hold at
/// least `n * typesize` bytes.
#[target_feature(enable = "avx2")]
pub(crate) unsafe fn shuffle_items(typesize: usize, start: usize, n: usize, src: &[u8], dst: &mut [u8]) -> usize {
    debug_assert!(typesize >= 2 && src.len() >= n * typesize && dst.len() >= n * typesize);
    // SAFETY: the caller's contract gives the features and `n * typesize`
    // bytes in both slices, which is what the kernels need.
    unsafe { by_item_size!(shuffle_pow2, shuffle_tiled, typesize, start, n, src, dst) }
}

/// AVX2 version of [`sse2::unshuffle_items`], 32 items at a time.
///
/// # Safety
/// As [`shuffle_items`].
#[target_feature(enable = "avx2")]
pub(crate) unsafe fn unshuffle_items(typesize: usize, start: usize, n: usize, src: &[u8], dst: &mut [u8]) -> usize {
    debug_assert!(typesize >= 2 && src.len() >= n * typesize && dst.len() >= n * typesize);
    // SAFETY: as in `shuffle_items`.
    unsafe { by_item_size!(unshuffle_pow2, unshuffle_tiled, typesize, start, n, src, dst) }
}

/// [`shuffle_items`] for items of `T` bytes (`T` in 2, 4, 8, 16).
///
/// # Safety
/// AVX2; `src` readable and `dst` writable for `T * n` bytes.
#[target_feature(enable = "avx2")]
// Out of line: inlined into the dispatch over every item size, the loop ran
// short of registers and reloaded the plane stride from the stack.
#[inline(never)]
unsafe fn shuffle_pow2<const T: usize>(start: usize, n: usize, src: *const u8, dst: *mut u8) -> usize {
    let end = start + n.saturating_sub(start) / 32 * 32;
    let mut i = start;
    // With 16 planes, two steps at once so that each plane gets a whole
    // 64-byte line at a time (see `PAIR_ROWS`).
    while T >= PAIR_ROWS && i + 64 <= end {
        prefetch_ahead(src.wrapping_add(T * i), T);
        // SAFETY: `i + 64 <= n`: items `T * i .. T * (i + 64)` are readable
        // and plane bytes `j * n + i .. + 64` (`j < T`) writable.
        unsafe {
            let a = load_planes::<T>(src.add(T * i));
            let b = load_planes::<T>(src.add(T * (i + 32)));
            for (j, (va, vb)) in a.iter().zip(&b).enumerate().take(T) {
                _mm256_storeu_si256(dst.add(j * n + i).cast(), *va);
                _mm256_storeu_si256(dst.add(j * n + i + 32).cast(), *vb);
            }
        }
        i += 64;
    }
    while i < end {
        prefetch_ahead(src.wrapping_add(T * i), T / 2);
        // SAFETY: `i + 32 <= n`: items `T * i .. T * (i + 32)` are readable
        // and plane bytes `j * n + i .. + 32` (`j < T`) writable.
        unsafe {
            let planes = load_planes::<T>(src.add(T * i));
            for (j, v) in planes.iter().enumerate().take(T) {
                _mm256_storeu_si256(dst.add(j * n + i).cast(), *v);
            }
        }
        i += 32;
    }
    end
}

/// The SIMD part of [`super::shuffle_run`]: the run's first items, 32 at a
/// time, for items of 2, 4, 8 or 16 bytes. Returns how many items it did
/// (0 without AVX2 or for other sizes).
///
/// # Panics
/// If the run is not whole items inside a block of `n` items that fits in
/// `dst` (what `shuffle_run` checks).
pub(crate) fn shuffle_run(typesize: usize, n: usize, first: usize, run: &[u8], dst: &mut [u8]) -> usize {
    assert!(typesize > 0 && run.len().is_multiple_of(typesize));
    let m = run.len() / typesize;
    assert!(first.checked_add(m).is_some_and(|e| e <= n) && n.checked_mul(typesize).is_some_and(|l| l <= dst.len()));
    if !is_available() {
        return 0;
    }
    let (s, d) = (run.as_ptr(), dst.as_mut_ptr());
    // SAFETY: AVX2 is available; `run` holds `m * typesize` bytes and
    // `dst` at least `n * typesize`, with `first + m <= n` (checked above).
    unsafe {
        match typesize {
            2 => run_pow2::<2>(n, first, m, s, d),
            4 => run_pow2::<4>(n, first, m, s, d),
            8 => run_pow2::<8>(n, first, m, s, d),
            16 => run_pow2::<16>(n, first, m, s, d),
            _ => 0,
        }
    }
}

/// [`shuffle_run`] for items of `T` bytes (`T` in 2, 4, 8, 16): items
/// `0..m` of `src` are items `first..first + m` of a block of `n`.
///
/// # Safety
/// AVX2; `src` readable for `T * m` bytes, `dst` writable for `T * n`,
/// `first + m <= n`.
#[target_feature(enable = "avx2")]
#[inline(never)]
unsafe fn run_pow2<const T: usize>(n: usize, first: usize, m: usize, src: *const u8, dst: *mut u8) -> usize {
    let end = m / 32 * 32;
    let mut i = 0;
    while i < end {
        // SAFETY: `i + 32 <= m`: bytes `T * i .. T * (i + 32)` of `src` are
        // readable, and plane bytes `j * n + first + i .. + 32` (`j < T`)
        // lie below `j * n + n <= T * n`.
        unsafe {
            let planes = load_planes::<T>(src.add(T * i));
            for (j, v) in planes.iter().enumerate().take(T) {
                _mm256_storeu_si256(dst.add(j * n + first + i).cast(), *v);
            }
        }
        i += 32;
    }
    end
}

/// [`unshuffle_items`] for items of `T` bytes (`T` in 2, 4, 8, 16).
///
/// # Safety
/// AVX2; `src` readable and `dst` writable for `T * n` bytes.
#[target_feature(enable = "avx2")]
// Out of line: inlined into the dispatch over every item size, the loop ran
// short of registers and reloaded the plane stride from the stack.
#[inline(never)]
unsafe fn unshuffle_pow2<const T: usize>(start: usize, n: usize, src: *const u8, dst: *mut u8) -> usize {
    let end = start + n.saturating_sub(start) / 32 * 32;
    let mut i = start;
    while i < end {
        // SAFETY: `i + 32 <= n`: plane reads `j * n + i .. + 32` and item
        // writes `T * i .. T * (i + 32)` are in bounds.
        unsafe {
            if T == 16 {
                unshuffle16_step(src.add(i), n, dst.add(T * i));
            } else {
                let mut x = [_mm256_setzero_si256(); 16];
                for (j, v) in x.iter_mut().enumerate().take(T) {
                    *v = _mm256_loadu_si256(src.add(j * n + i).cast());
                }
                store_items::<T>(&x, dst.add(T * i));
            }
        }
        i += 32;
    }
    end
}

/// [`store_items`] for 16 planes loaded from `src` (plane `j` at `src + j *
/// n`), in two halves: the 8-, 16- and 32-bit steps only combine planes
/// within 0..8 and within 8..16, so each half is loaded and combined on its
/// own and the 64-bit step pairs them up just before the stores. This keeps
/// far fewer registers live than loading all 16 planes first.
///
/// # Safety
/// AVX2; `src + j * n .. + 32` readable for `j < 16`, `dst` writable for
/// 512 bytes.
#[target_feature(enable = "avx2")]
#[inline]
unsafe fn unshuffle16_step(src: *const u8, n: usize, dst: *mut u8) {
    // SAFETY: the reads and writes of the contract.
    unsafe {
        let a = load_half16(src, n);
        let b = load_half16(src.add(8 * n), n);
        // Registers i and i + 8 of the full network hold chunks c and c + 1
        // for i = chunk_register(16, c) (a bit reversal, its own inverse).
        // Stored in address order, items 0..16 then 16..32, as in
        // `store_items`; each pass recombines its `lo`/`hi` (two cheap
        // unpacks) rather than keep all sixteen live across the passes.
        for c in (0..16).step_by(2) {
            let i = chunk_register(16, c);
            let lo = _mm256_unpacklo_epi64(a[i], b[i]);
            let hi = _mm256_unpackhi_epi64(a[i], b[i]);
            _mm256_storeu_si256(dst.add(16 * c).cast(), _mm256_permute2x128_si256::<0x20>(lo, hi));
        }
        for c in (0..16).step_by(2) {
            let i = chunk_register(16, c);
            let lo = _mm256_unpacklo_epi64(a[i], b[i]);
            let hi = _mm256_unpackhi_epi64(a[i], b[i]);
            _mm256_storeu_si256(dst.add(16 * (16 + c)).cast(), _mm256_permute2x128_si256::<0x31>(lo, hi));
        }
    }
}

/// Load 8 planes (`p + j * n`, 32 bytes each) and apply the 8-, 16- and
/// 32-bit steps of [`items_from_planes`] to them.
///
/// # Safety
/// AVX2; `p + j * n .. + 32` readable for `j < 8`.
#[target_feature(enable = "avx2")]
#[inline]
unsafe fn load_half16(p: *const u8, n: usize) -> [__m256i; 8] {
    // SAFETY: the reads of the contract.
    unsafe {
        let mut x = [_mm256_setzero_si256(); 8];
        for (j, v) in x.iter_mut().enumerate() {
            *v = _mm256_loadu_si256(p.add(j * n).cast());
        }
        unpack_pairs!(
            x,
            _mm256_unpacklo_epi8,
            _mm256_unpackhi_epi8,
            [(0, 1), (2, 3), (4, 5), (6, 7)]
        );
        unpack_pairs!(
            x,
            _mm256_unpacklo_epi16,
            _mm256_unpackhi_epi16,
            [(0, 2), (1, 3), (4, 6), (5, 7)]
        );
        unpack_pairs!(
            x,
            _mm256_unpacklo_epi32,
            _mm256_unpackhi_epi32,
            [(0, 4), (1, 5), (2, 6), (3, 7)]
        );
        x
    }
}

/// [`shuffle_items`] for other item sizes, through 16x16 tiles per lane.
///
/// # Safety
/// As [`shuffle_items`].
#[target_feature(enable = "avx2")]
unsafe fn shuffle_tiled(typesize: usize, start: usize, n: usize, src: &[u8], dst: &mut [u8]) -> usize {
    let end = tiled_items(typesize, start, n, src.len(), 32);
    let rows = typesize.min(16);
    let pair = rows >= PAIR_ROWS;
    let s = src.as_ptr();
    let d = dst.as_mut_ptr();
    let mut i = start;
    while i < end {
        let step = if pair && i + 64 <= end { 64 } else { 32 };
        for o in tile_offsets(typesize) {
            // SAFETY: the tiles read 16 bytes at `(i + e) * typesize + o` for
            // e < step, inside item `i + e` when `o + 16 <= typesize` and
            // below `src.len()` for smaller items (`tiled_items`, `i + step
            // <= end`). Planes `o + k < typesize` get `step` bytes at
            // `(o + k) * n + i`, with `i + step <= n`.
            unsafe {
                let a = load_tile(s.add(i * typesize + o), typesize);
                if step == 64 {
                    let b = load_tile(s.add((i + 32) * typesize + o), typesize);
                    for (k, (va, vb)) in a.iter().zip(&b).enumerate().take(rows) {
                        _mm256_storeu_si256(d.add((o + k) * n + i).cast(), *va);
                        _mm256_storeu_si256(d.add((o + k) * n + i + 32).cast(), *vb);
                    }
                } else {
                    for (k, v) in a.iter().enumerate().take(rows) {
                        _mm256_storeu_si256(d.add((o + k) * n + i).cast(), *v);
                    }
                }
            }
        }
        i += step;
    }
    end
}

/// [`unshuffle_items`] for other item sizes, through 16x16 tiles per lane.
/// Items are taken in runs of about [`RUN_BYTES`]; within a run, each
/// 16-byte slice of the items is done for the whole run before the next
/// one, so 16 planes are read at a time while the run stays in L1.
///
/// # Safety
/// As [`shuffle_items`].
#[target_feature(enable = "avx2")]
unsafe fn unshuffle_tiled(typesize: usize, start: usize, n: usize, src: &[u8], dst: &mut [u8]) -> usize {
    let end = tiled_items(typesize, start, n, dst.len(), 32);
    let rows = typesize.min(16);
    let pair = rows >= PAIR_ROWS;
    let run = (RUN_BYTES / typesize / 64).max(1) * 64;
    let mut i = start;
    while i < end {
        let run_end = end.min(i + run);
        for o in tile_offsets(typesize) {
            let mut k = i;
            while k < run_end {
                let step = if pair && k + 64 <= run_end { 64 } else { 32 };
                // SAFETY: `k + step <= end`, as `unshuffle_step` requires.
                unsafe { unshuffle_step(typesize, n, k, o, step, rows, src, dst) };
                k += step;
            }
        }
        i = run_end;
    }
    end
}

/// Unshuffle items `i .. i + step` (`step` 32 or 64) for item bytes
/// `o .. o + 16`, through one 16x16 tile per lane and 32 items.
///
/// # Safety
/// AVX2; `o` from [`tile_offsets`], `rows = min(typesize, 16)`, `i + step`
/// at most the end computed by [`tiled_items`] for `dst.len()` and `n`,
/// slices as in [`shuffle_items`].
#[target_feature(enable = "avx2")]
#[inline]
#[allow(clippy::too_many_arguments)]
unsafe fn unshuffle_step(
    typesize: usize,
    n: usize,
    i: usize,
    o: usize,
    step: usize,
    rows: usize,
    src: &[u8],
    dst: &mut [u8],
) {
    let s = src.as_ptr();
    let d = dst.as_mut_ptr();
    // SAFETY: planes `o + k < typesize` are read at `(o + k) * n + i ..
    // + step <= typesize * n`. Item `i + e` (e < step) gets 16 bytes at
    // `(i + e) * typesize + o`, inside the item when `o + 16 <= typesize`
    // and below `dst.len()` otherwise (`tiled_items`); `store_tile` keeps
    // the stores in item order.
    unsafe {
        let mut a = [_mm256_setzero_si256(); 16];
        let mut b = [_mm256_setzero_si256(); 16];
        let base = s.add(o * n + i);
        if step == 64 {
            for (k, (va, vb)) in a.iter_mut().zip(b.iter_mut()).enumerate().take(rows) {
                *va = _mm256_loadu_si256(base.add(k * n).cast());
                *vb = _mm256_loadu_si256(base.add(k * n + 32).cast());
            }
            if typesize == 12 {
                store_tile12(a, d.add(i * typesize));
                store_tile12(b, d.add((i + 32) * typesize));
            } else {
                store_tile(a, d.add(i * typesize + o), typesize);
                store_tile(b, d.add((i + 32) * typesize + o), typesize);
            }
        } else {
            for (k, va) in a.iter_mut().enumerate().take(rows) {
                *va = _mm256_loadu_si256(base.add(k * n).cast());
            }
            if typesize == 12 {
                store_tile12(a, d.add(i * typesize));
            } else {
                store_tile(a, d.add(i * typesize + o), typesize);
            }
        }
    }
}

/// Transpose a tile of 16 plane slices (32 bytes each) and store its 32
/// items' 16-byte slices at `p`, `p + typesize`, ... in item order (all
/// low lanes, then all high lanes), so that with `typesize < 16` every
/// store overwrites the spill of the previous one.
///
/// # Safety
/// AVX2; `p + e * typesize .. + 16` writable for `e < 32`.
#[target_feature(enable = "avx2")]
#[inline]
unsafe fn store_tile(mut x: [__m256i; 16], p: *mut u8, typesize: usize) {
    // SAFETY: exactly the writable ranges of the contract.
    unsafe {
        transpose16!(x, _mm256_unpacklo_epi8, _mm256_unpackhi_epi8);
        for (e, v) in x.iter().enumerate() {
            _mm_storeu_si128(p.add(e * typesize).cast(), _mm256_castsi256_si128(*v));
        }
        let p = p.add(16 * typesize);
        for (e, v) in x.iter().enumerate() {
            _mm_storeu_si128(p.add(e * typesize).cast(), _mm256_extracti128_si256::<1>(*v));
        }
    }
}

/// [`store_tile`] for 12-byte items (`o == 0`): after the transpose, two
/// items at a time are moved into one register (`permute2x128`) and their
/// 24 valid bytes packed to its start (`permutevar8x32`), so most items go
/// out as 32-byte stores two at a time; each store's 8 spilled bytes are
/// rewritten by the next one. The last two items use 16-byte stores, which
/// keeps the spill within the 4 bytes `store_tile` allows.
///
/// # Safety
/// AVX2; `p + e * 12 .. + 16` writable for `e < 32`.
#[target_feature(enable = "avx2")]
#[inline]
unsafe fn store_tile12(mut x: [__m256i; 16], p: *mut u8) {
    // SAFETY: store k (k < 15) covers `24 * k .. + 32`, at most
    // `24 * 14 + 32 = 31 * 12 + 4 <= 31 * 12 + 16`; the last two cover items
    // 30 and 31 with 16 bytes each. Stores go in item order.
    unsafe {
        transpose16!(x, _mm256_unpacklo_epi8, _mm256_unpackhi_epi8);
        let pack = _mm256_setr_epi32(0, 1, 2, 4, 5, 6, 7, 7);
        for m in 0..8 {
            let pair = _mm256_permute2x128_si256::<0x20>(x[2 * m], x[2 * m + 1]);
            _mm256_storeu_si256(p.add(24 * m).cast(), _mm256_permutevar8x32_epi32(pair, pack));
        }
        let p = p.add(16 * 12);
        for m in 0..7 {
            let pair = _mm256_permute2x128_si256::<0x31>(x[2 * m], x[2 * m + 1]);
            _mm256_storeu_si256(p.add(24 * m).cast(), _mm256_permutevar8x32_epi32(pair, pack));
        }
        _mm_storeu_si128(p.add(14 * 12).cast(), _mm256_extracti128_si256::<1>(x[14]));
        _mm_storeu_si128(p.add(15 * 12).cast(), _mm256_extracti128_si256::<1>(x[15]));
    }
}

/// Load 16 bytes at `lo` into the low lane and 16 bytes at `hi` into the
/// high lane.
///
/// # Safety
/// AVX2; both 16-byte ranges readable.
#[target_feature(enable = "avx2")]
#[inline]
unsafe fn load_lanes(lo: *const u8, hi: *const u8) -> __m256i {
    // SAFETY: the two loads are the readable ranges of the contract.
    unsafe {
        _mm256_inserti128_si256::<1>(
            _mm256_castsi128_si256(_mm_loadu_si128(lo.cast())),
            _mm_loadu_si128(hi.cast()),
        )
    }
}

/// Load 32 items of `T` bytes (`T` in 2, 4, 8, 16) from `p` and return their
/// byte planes: register `j < T` = byte `j` of items 0..32, in order (the
/// other registers are unspecified).
///
/// # Safety
/// AVX2; `p` readable for `32 * T` bytes.
#[target_feature(enable = "avx2")]
#[inline]
pub(crate) unsafe fn load_planes<const T: usize>(p: *const u8) -> [__m256i; 16] {
    // SAFETY: lane loads of register k read `16 * k .. + 16` of items 0..16
    // (low lane) and of items 16..32 (high lane), inside the `32 * T` bytes.
    unsafe {
        let mut x = [_mm256_setzero_si256(); 16];
        for (k, v) in x.iter_mut().enumerate().take(T) {
            *v = load_lanes(p.add(16 * k), p.add(16 * (T + k)));
        }
        if T == 2 {
            let lo = _mm256_set1_epi16(0x00ff);
            let b0 = _mm256_packus_epi16(_mm256_and_si256(x[0], lo), _mm256_and_si256(x[1], lo));
            let b1 = _mm256_packus_epi16(_mm256_srli_epi16::<8>(x[0]), _mm256_srli_epi16::<8>(x[1]));
            x[0] = b0;
            x[1] = b1;
        } else {
            planes_from_items!(x, T, _mm256_unpacklo_epi8, _mm256_unpackhi_epi8);
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

/// Store the planes `x` (byte `j` of 32 items in `x[j]`, `j < T`) as 32
/// items of `T` bytes (`T` in 2, 4, 8, 16) at `p`.
///
/// # Safety
/// AVX2; `p` writable for `32 * T` bytes.
#[target_feature(enable = "avx2")]
#[inline]
pub(crate) unsafe fn store_items<const T: usize>(x: &[__m256i; 16], p: *mut u8) {
    let mut x = *x;
    // SAFETY: the stores cover `16 * c .. + 32` and `16 * (T + c) .. + 32`
    // for even c < T, inside the `32 * T` writable bytes.
    unsafe {
        items_from_planes!(
            x,
            T,
            _mm256_unpacklo_epi8,
            _mm256_unpackhi_epi8,
            _mm256_unpacklo_epi16,
            _mm256_unpackhi_epi16,
            _mm256_unpacklo_epi32,
            _mm256_unpackhi_epi32,
            _mm256_unpacklo_epi64,
            _mm256_unpackhi_epi64
        );
        // Chunk c of items 0..16 is in the low lane of its register, the
        // same chunk of items 16..32 in the high lane.
        // Items 0..16 first, then 16..32: stores in address order. Pairing
        // each low-lane store with its high-lane twin (128 bytes apart) made
        // unshuffling store-bound: 0.82x the reference's speed on 8-byte
        // items, against 1.0-1.1x in address order.
        for c in (0..T).step_by(2) {
            let (a, b) = (x[chunk_register(T, c)], x[chunk_register(T, c + 1)]);
            _mm256_storeu_si256(p.add(16 * c).cast(), _mm256_permute2x128_si256::<0x20>(a, b));
        }
        for c in (0..T).step_by(2) {
            let (a, b) = (x[chunk_register(T, c)], x[chunk_register(T, c + 1)]);
            _mm256_storeu_si256(p.add(16 * (T + c)).cast(), _mm256_permute2x128_si256::<0x31>(a, b));
        }
    }
}

/// Load a 32-item tile: 16 bytes from each of 32 items `stride` bytes apart,
/// transposed (register `k` = byte `k` of the 32 items, in order).
///
/// # Safety
/// AVX2; `p + e * stride .. + 16` readable for `e < 32`.
#[target_feature(enable = "avx2")]
#[inline]
pub(crate) unsafe fn load_tile(p: *const u8, stride: usize) -> [__m256i; 16] {
    // SAFETY: exactly the readable ranges of the contract.
    unsafe {
        let mut x = [_mm256_setzero_si256(); 16];
        for (e, v) in x.iter_mut().enumerate() {
            *v = load_lanes(p.add(e * stride), p.add((16 + e) * stride));
        }
        transpose16!(x, _mm256_unpacklo_epi8, _mm256_unpackhi_epi8);
        x
    }
}

/// The SIMD part of [`super::planes::unshuffle_from`]: items `0..` of a block
/// of `n` items, 32 at a time, for items of 2, 4 or 8 bytes. Plane `j` is
/// `planes[j]` (its `n` bytes) or, where `planes[j]` is `None`, the byte
/// `fills[j]` repeated. Returns how many items it did (0 without AVX2 or
/// for other sizes).
///
/// # Panics
/// If a plane given is shorter than `n` bytes or `dst` than `n * typesize`.
pub(crate) fn unshuffle_from(
    typesize: usize,
    n: usize,
    planes: &[Option<&[u8]>],
    fills: &[u8],
    dst: &mut [u8],
) -> usize {
    if !is_available() || !matches!(typesize, 2 | 4 | 8) {
        return 0;
    }
    assert!(
        planes.len() >= typesize && fills.len() >= typesize && n.checked_mul(typesize).is_some_and(|l| l <= dst.len())
    );
    // A repeated plane is read from 32 bytes of its byte, again and again
    // (a step of 0), so that the loop is the same for both kinds of plane.
    let mut repeated = [[0u8; 32]; 8];
    let mut from = [core::ptr::null::<u8>(); 8];
    let mut step = [0usize; 8];
    for j in 0..typesize {
        match planes[j] {
            Some(p) => {
                assert!(p.len() >= n);
                from[j] = p.as_ptr();
                step[j] = 32;
            }
            None => {
                repeated[j] = [fills[j]; 32];
                from[j] = repeated[j].as_ptr();
            }
        }
    }
    let d = dst.as_mut_ptr();
    // SAFETY: AVX2 is available; each plane pointer reads 32 bytes per step
    // either within a plane of at least `n` bytes (`n / 32` steps of 32) or
    // within its 32 bytes of `repeated` (step 0), which outlives the call;
    // `dst` holds `n * typesize` bytes (checked above).
    unsafe {
        match typesize {
            2 => planes_pow2::<2>(n, from, &step, d),
            4 => planes_pow2::<4>(n, from, &step, d),
            _ => planes_pow2::<8>(n, from, &step, d),
        }
    }
}

/// [`unshuffle_from`] for items of `T` bytes (`T` in 2, 4, 8).
///
/// # Safety
/// AVX2; `from[j] + k * step[j] .. + 32` readable for `j < T` and every
/// step `k < n / 32`; `dst` writable for `T * n` bytes.
#[target_feature(enable = "avx2")]
#[inline(never)]
unsafe fn planes_pow2<const T: usize>(n: usize, mut from: [*const u8; 8], step: &[usize; 8], dst: *mut u8) -> usize {
    let end = n / 32 * 32;
    let mut i = 0;
    while i < end {
        // SAFETY: step `i / 32 < n / 32` of the contract's reads; items
        // `i .. i + 32` are inside `dst`'s `T * n` bytes.
        unsafe {
            let mut x = [_mm256_setzero_si256(); 16];
            for j in 0..T {
                x[j] = _mm256_loadu_si256(from[j].cast());
                from[j] = from[j].wrapping_add(step[j]);
            }
            store_items::<T>(&x, dst.add(T * i));
        }
        i += 32;
    }
    end
}
