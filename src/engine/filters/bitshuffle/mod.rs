//! Bit shuffle filter (`BLOSC_BITSHUFFLE`), as C-Blosc2's `bitshuffle()` /
//! `bitunshuffle()` in shuffle.c (the bitshuffle library's
//! `bshuf_trans_bit_elem` / `bshuf_untrans_bit_elem`).
//!
//! For a block of `len` bytes and `n = len / typesize` items, the first
//! `floor(n / 8) * 8` items are bit-transposed and the remaining bytes are
//! copied unchanged. With `nb` = items / 8, the output is `8 * typesize`
//! bit planes of `nb` bytes: plane `8 * j + b` holds bit `b` of byte `j` of
//! every item, item `i` at bit `i % 8` of byte `i / 8`.
//!
//! Kernels: [`generic`] (safe scalar, always present) and, on x86 / x86_64,
//! [`sse2`] and [`avx2`], picked per call (AVX2 > SSE2 > generic, see
//! [`crate::engine::cpu`]). All produce the same bytes.

pub mod generic;

#[cfg(any(target_arch = "x86", target_arch = "x86_64"))]
pub mod avx2;
#[cfg(any(target_arch = "x86", target_arch = "x86_64"))]
pub mod sse2;

#[cfg(any(target_arch = "x86", target_arch = "x86_64"))]
use crate::engine::cpu;

#[cfg(any(target_arch = "x86", target_arch = "x86_64"))]
thread_local! {
    /// The SIMD kernels' tile buffer, kept per thread: a fresh zeroed
    /// 32 KiB per block was 5% of decoding a bitshuffled zlib chunk.
    static TILE: std::cell::RefCell<Vec<u8>> = const { std::cell::RefCell::new(Vec::new()) };
}

/// Runs `f` with a buffer of `len` bytes of unspecified content: the
/// thread's kept tile buffer, or a fresh one when that is in use or gone.
#[cfg(any(target_arch = "x86", target_arch = "x86_64"))]
fn with_tile<R>(len: usize, f: impl FnOnce(&mut [u8]) -> R) -> R {
    let mut f = Some(f);
    let kept = TILE.try_with(|cell| {
        let mut buf = cell.try_borrow_mut().ok()?;
        if buf.len() < len {
            buf.resize(len, 0);
        }
        Some((f.take().expect("called once"))(&mut buf[..len]))
    });
    match kept {
        Ok(Some(r)) => r,
        _ => (f.take().expect("called once"))(&mut vec![0u8; len]),
    }
}

/// Transpose, byte by byte, the 8x8 bit matrices spread over registers
/// 0..8 of the array `$p`: bit `c` of a byte of register `r` swaps with bit
/// `r` of the same byte of register `c`. Three steps exchange 1-bit, 2-bit
/// and 4-bit blocks between registers 1, 2 and 4 apart. The 16-bit shifts
/// cannot leak bits between bytes: the masks drop those.
///
/// Value-only; expand it inside the `unsafe` block of a kernel whose target
/// features provide the intrinsics passed in.
#[cfg(any(target_arch = "x86", target_arch = "x86_64"))]
macro_rules! transpose_bits8 {
    ($p:ident, $srli:ident, $slli:ident, $xor:ident, $and:ident, $set1:ident) => {{
        swap_blocks!(
            $p,
            $srli,
            $slli,
            $xor,
            $and,
            1,
            $set1(0x55),
            [(0, 1), (2, 3), (4, 5), (6, 7)]
        );
        swap_blocks!(
            $p,
            $srli,
            $slli,
            $xor,
            $and,
            2,
            $set1(0x33),
            [(0, 2), (1, 3), (4, 6), (5, 7)]
        );
        swap_blocks!(
            $p,
            $srli,
            $slli,
            $xor,
            $and,
            4,
            $set1(0x0f),
            [(0, 4), (1, 5), (2, 6), (3, 7)]
        );
    }};
}

/// One step of [`transpose_bits8`]: for each register pair `(a, b)`, swap
/// the bits of `a` selected by `$mask << $sh` with the bits of `b` selected
/// by `$mask`.
#[cfg(any(target_arch = "x86", target_arch = "x86_64"))]
macro_rules! swap_blocks {
    (
        $p:ident, $srli:ident, $slli:ident, $xor:ident, $and:ident,
        $sh:literal, $mask:expr, [$(($a:literal, $b:literal)),*]
    ) => {
        let mask = $mask;
        $(
            let t = $and($xor($srli::<$sh>($p[$a]), $p[$b]), mask);
            $p[$b] = $xor($p[$b], t);
            $p[$a] = $xor($p[$a], $slli::<$sh>(t));
        )*
    };
}
#[cfg(any(target_arch = "x86", target_arch = "x86_64"))]
pub(crate) use swap_blocks;
#[cfg(any(target_arch = "x86", target_arch = "x86_64"))]
pub(crate) use transpose_bits8;

/// The tiled bit shuffle drivers and their register steps, shared by the
/// SSE2 and AVX2 kernels (the design is described in [`sse2`]). Expands to
/// `UNIT`, `TILE_BYTES`, `tile_items`, `bitshuffle_from`,
/// `bitunshuffle_from`, `scatter_bits` and `gather_bits` in the invoking
/// module: `$feat` is the target feature, `$unit` the items per register
/// step (8 per register byte), `$planes` the byte shuffle module of the
/// same register width (for `load_planes`, `store_items`, `shuffle_planes`
/// and `unshuffle_planes`), and the rest the intrinsics of that width. The
/// invoking module provides `is_available()` and imports
/// `transposed_items`, `transpose_bits8` and `swap_blocks`.
#[cfg(any(target_arch = "x86", target_arch = "x86_64"))]
macro_rules! bitshuffle_kernels {
    (
        feature = $feat:tt, unit = $unit:expr, planes = $planes:path,
        vec = $vec:ty, loadu = $loadu:ident, storeu = $storeu:ident, setzero = $setzero:ident,
        srli = $srli:ident, slli = $slli:ident, xor = $xor:ident, and = $and:ident, set1 = $set1:ident $(,)?
    ) => {
        use $planes::{load_planes, shuffle_planes, store_items, unshuffle_planes};

        /// Items per register step: groups of 8, one register per plane.
        const UNIT: usize = $unit;
        /// Input bytes per tile: the byte planes of a tile stay in L1/L2, and
        /// each bit plane receives `TILE_BYTES / typesize / 8` contiguous
        /// bytes per tile, written eight planes at a time, which the hardware
        /// prefetchers follow.
        const TILE_BYTES: usize = 32 * 1024;

        /// Items per tile for this item size (a multiple of [`UNIT`]), capped
        /// at the `avail` items left (itself at least one UNIT).
        fn tile_items(typesize: usize, avail: usize) -> usize {
            let tile = (TILE_BYTES / typesize / UNIT).max(1) * UNIT;
            tile.min(avail / UNIT * UNIT)
        }

        /// Bit-shuffle items from `start` (a multiple of 8) on, in tiles, as
        /// long as a whole [`UNIT`] remains; returns the first item not done.
        /// Does nothing when the CPU lacks the kernels' features.
        pub(crate) fn bitshuffle_from(typesize: usize, start: usize, src: &[u8], dst: &mut [u8]) -> usize {
            let n = transposed_items(typesize, src.len());
            if start + UNIT > n || !is_available() || dst.len() != src.len() {
                return start;
            }
            super::with_tile(tile_items(typesize, n - start) * typesize, |scratch| {
                let mut i = start;
                while i + UNIT <= n {
                    let items = tile_items(typesize, n - i);
                    let planes: &[u8] = if typesize == 1 {
                        // 1-byte items are their own byte plane, but reading
                        // them straight from memory leaves the transposition
                        // waiting on loads (0.73x the reference on random 4 MiB
                        // chunks); a memcpy streams the tile into cache at full
                        // bandwidth first, as C's bshuf_trans_byte_elem does.
                        scratch[..items].copy_from_slice(&src[i..i + items]);
                        &scratch[..items]
                    } else {
                        shuffle_planes(typesize, items, &src[i * typesize..], scratch);
                        &scratch[..items * typesize]
                    };
                    // SAFETY: the features are available; `i + items <= n`,
                    // `items` is a multiple of UNIT and `planes` holds
                    // `items * typesize` bytes.
                    unsafe { scatter_bits(typesize, i, items, planes, dst) };
                    i += items;
                }
                i
            })
        }

        /// Inverse of [`bitshuffle_from`].
        pub(crate) fn bitunshuffle_from(typesize: usize, start: usize, src: &[u8], dst: &mut [u8]) -> usize {
            let n = transposed_items(typesize, src.len());
            if start + UNIT > n || !is_available() || dst.len() != src.len() {
                return start;
            }
            let tile = if typesize > 1 {
                tile_items(typesize, n - start) * typesize
            } else {
                0
            };
            super::with_tile(tile, |scratch| {
                let mut i = start;
                while i + UNIT <= n {
                    let items = tile_items(typesize, n - i);
                    if typesize == 1 {
                        // SAFETY: as below, with the output slice as the plane
                        // buffer.
                        unsafe { gather_bits(typesize, i, items, src, &mut dst[i..i + items]) };
                    } else {
                        // SAFETY: the features are available; `i + items <= n`,
                        // `items` is a multiple of UNIT and `scratch` holds
                        // `items * typesize` bytes.
                        unsafe { gather_bits(typesize, i, items, src, scratch) };
                        // Garbage spilled past the tile lands in items done later
                        // (or in the leftover bytes, copied last).
                        unshuffle_planes(typesize, items, scratch, &mut dst[i * typesize..]);
                    }
                    i += items;
                }
                i
            })
        }

        /// Forward step: bit planes of items `i .. i + items` from their byte
        /// planes (`planes[j * items..]` = byte `j` of those items).
        ///
        /// # Safety
        /// The target features; `items` a multiple of [`UNIT`], `i + items`
        /// at most the transposed item count of `dst`,
        /// `planes.len() >= items * typesize`.
        #[target_feature(enable = $feat)]
        unsafe fn scatter_bits(typesize: usize, i: usize, items: usize, planes: &[u8], dst: &mut [u8]) {
            debug_assert!(items.is_multiple_of(UNIT) && planes.len() >= items * typesize);
            let nb = transposed_items(typesize, dst.len()) / 8;
            let p = planes.as_ptr();
            let d = dst.as_mut_ptr();
            for j in 0..typesize {
                let mut u = 0;
                while u < items {
                    // SAFETY: reads `j * items + u .. + UNIT` of `planes`;
                    // writes bit plane `8 * j + b` at `(i + u) / 8 ..
                    // + UNIT / 8 <= nb`, since `i + u + UNIT <= n`.
                    unsafe {
                        let mut q = load_planes::<8>(p.add(j * items + u));
                        transpose_bits8!(q, $srli, $slli, $xor, $and, $set1);
                        let out = d.add(8 * j * nb + (i + u) / 8);
                        for (b, v) in q.iter().enumerate().take(8) {
                            $storeu(out.add(b * nb).cast(), *v);
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
        /// The target features; `items` a multiple of [`UNIT`], `i + items`
        /// at most the transposed item count of `src`,
        /// `planes.len() >= items * typesize`.
        #[target_feature(enable = $feat)]
        unsafe fn gather_bits(typesize: usize, i: usize, items: usize, src: &[u8], planes: &mut [u8]) {
            debug_assert!(items.is_multiple_of(UNIT) && planes.len() >= items * typesize);
            let nb = transposed_items(typesize, src.len()) / 8;
            let s = src.as_ptr();
            let p = planes.as_mut_ptr();
            for j in 0..typesize {
                let mut u = 0;
                while u < items {
                    // SAFETY: reads bit plane `8 * j + b` at `(i + u) / 8 ..
                    // + UNIT / 8 <= nb`; writes `j * items + u .. + UNIT` of
                    // `planes`.
                    unsafe {
                        let mut q: [$vec; 16] = [$setzero(); 16];
                        let at = s.add(8 * j * nb + (i + u) / 8);
                        for (b, v) in q.iter_mut().enumerate().take(8) {
                            *v = $loadu(at.add(b * nb).cast());
                        }
                        transpose_bits8!(q, $srli, $slli, $xor, $and, $set1);
                        store_items::<8>(&q, p.add(j * items + u));
                    }
                    u += UNIT;
                }
            }
        }
    };
}
#[cfg(any(target_arch = "x86", target_arch = "x86_64"))]
pub(crate) use bitshuffle_kernels;

/// Bit-transpose the first `floor(nelems / 8) * 8` items of `src` into
/// `dst` (`nelems = src.len() / typesize`); the remaining bytes are copied
/// unchanged. `typesize` 0 is a plain copy. Writes `dst[..src.len()]`.
///
/// # Panics
/// If `dst` is shorter than `src`.
pub fn bitshuffle(typesize: usize, src: &[u8], dst: &mut [u8]) {
    #[cfg(any(target_arch = "x86", target_arch = "x86_64"))]
    {
        if cpu::has_avx2() {
            return avx2::bitshuffle(typesize, src, dst);
        }
        if cpu::has_sse2() {
            return sse2::bitshuffle(typesize, src, dst);
        }
    }
    generic::bitshuffle(typesize, src, dst);
}

/// [`bitshuffle`] as a chunk of format `chunk_version` stores it: c-blosc
/// 1.x (version 2) copies blocks whose item count is not a multiple of 8
/// instead (see [`bitunshuffle`]).
///
/// # Panics
/// If `dst` is shorter than `src`.
pub fn bitshuffle_for_version(typesize: usize, src: &[u8], dst: &mut [u8], chunk_version: u8) {
    if chunk_version == 2 && typesize > 0 && !(src.len() / typesize).is_multiple_of(8) {
        dst[..src.len()].copy_from_slice(src);
        return;
    }
    bitshuffle(typesize, src, dst);
}

/// Inverse of [`bitshuffle`]. `chunk_version` is byte 0 (format version)
/// of the chunk being decoded.
///
/// Version 2 chunks (c-blosc 1.x) were bit-shuffled only when
/// `nelems % 8 == 0`, as a whole: then all `nelems` items are
/// bit-unshuffled and the `src.len() % typesize` trailing bytes are copied
/// as c-blosc 1.x does (C-Blosc2 leaves them unwritten, which is the corpus'
/// known reference bug 5); otherwise the block is copied.
/// Other versions undo [`bitshuffle`] exactly.
///
/// # Panics
/// If `dst` is shorter than `src`.
pub fn bitunshuffle(typesize: usize, src: &[u8], dst: &mut [u8], chunk_version: u8) {
    let len = src.len();
    let dst = &mut dst[..len];
    if chunk_version == 2 && typesize > 0 {
        let nelems = len / typesize;
        if nelems.is_multiple_of(8) {
            let body = nelems * typesize;
            bitunshuffle_any(typesize, &src[..body], &mut dst[..body]);
            dst[body..].copy_from_slice(&src[body..]);
        } else {
            dst.copy_from_slice(src);
        }
        return;
    }
    bitunshuffle_any(typesize, src, dst);
}

/// Format-3+ inverse with the best kernel.
fn bitunshuffle_any(typesize: usize, src: &[u8], dst: &mut [u8]) {
    #[cfg(any(target_arch = "x86", target_arch = "x86_64"))]
    {
        if cpu::has_avx2() {
            return avx2::bitunshuffle(typesize, src, dst);
        }
        if cpu::has_sse2() {
            return sse2::bitunshuffle(typesize, src, dst);
        }
    }
    generic::bitunshuffle(typesize, src, dst);
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::filters::shuffle::test_util::*;

    /// (name, bitshuffle, format-3+ bitunshuffle) of every kernel this CPU
    /// can run.
    fn kernels() -> Kernels {
        let mut k: Kernels = vec![("generic", generic::bitshuffle, generic::bitunshuffle)];
        #[cfg(any(target_arch = "x86", target_arch = "x86_64"))]
        {
            if sse2::is_available() {
                k.push(("sse2", sse2::bitshuffle, sse2::bitunshuffle));
            }
            if avx2::is_available() {
                k.push(("avx2", avx2::bitshuffle, avx2::bitunshuffle));
            }
        }
        k.push(("dispatch", bitshuffle, |ts, s, d| bitunshuffle(ts, s, d, 5)));
        k
    }

    /// The definition, bit by bit.
    fn reference(typesize: usize, src: &[u8]) -> Vec<u8> {
        let mut out = src.to_vec();
        let n = src.len().checked_div(typesize).map_or(0, |n| n / 8 * 8);
        let nb = n / 8;
        out[..n * typesize].fill(0);
        for i in 0..n {
            for j in 0..typesize {
                for b in 0..8 {
                    let bit = (src[i * typesize + j] >> b) & 1;
                    out[(8 * j + b) * nb + i / 8] |= bit << (i % 8);
                }
            }
        }
        out
    }

    #[test]
    fn transpose_8x8_is_a_transpose() {
        let mut rng = Rng(77);
        for _ in 0..200 {
            let x = rng.next();
            let y = generic::transpose_8x8(x);
            for r in 0..8 {
                for c in 0..8 {
                    assert_eq!((x >> (8 * r + c)) & 1, (y >> (8 * c + r)) & 1);
                }
            }
        }
    }

    #[test]
    fn generic_matches_definition() {
        let mut rng = Rng(0x0123_4567_89ab_cdef);
        for ts in typesizes() {
            for len in (0..300).chain([1029]) {
                let src = rng.bytes(len);
                let mut out = vec![0; len];
                generic::bitshuffle(ts, &src, &mut out);
                assert_eq!(out, reference(ts, &src), "ts={ts} len={len}");
            }
        }
    }

    #[test]
    fn every_kernel_matches_generic_and_round_trips() {
        check_against_generic("bitshuffle", (generic::bitshuffle, generic::bitunshuffle), &kernels());
    }

    /// Hashes of C-Blosc2 3.3.5 `blosc2_bitshuffle(ts, len, golden_input(len))`.
    const GOLDEN: &[(usize, usize, u64)] = &[
        (1, 64, 0x7cd4_2452_b81c_3c7c),
        (1, 1000, 0xb6f4_f7c1_4978_7b38),
        (2, 1000, 0x96f9_4ae1_f114_83fb),
        (3, 999, 0xeb6d_151d_6065_4f36),
        (4, 4096, 0xfd4a_4136_4cdf_9063),
        (4, 4100, 0x8a78_e9b2_d97e_1536),
        (7, 1001, 0x14a2_e32d_b37d_c7b0),
        (8, 8192, 0x8d28_b41b_7cb0_e8b7),
        (8, 8200, 0x479e_a1b2_8f09_d948),
        (12, 1200, 0xc57f_fdec_8095_fd84),
        (16, 4096, 0xc055_6e88_cb58_fc18),
        (17, 5000, 0x2a73_e1e9_4fa3_725f),
        (24, 777, 0xfe0f_d2eb_a25a_cc9e),
        (32, 4096, 0x7234_23a9_bfe7_01e2),
        (64, 8192, 0xbfa2_5c0e_21a6_a28d),
        (255, 7777, 0x52ca_0c98_2de3_8222),
        (256, 5000, 0xfb79_6856_5558_7b45),
        (1, 40_000, 0xe90e_63b8_8e15_789d),
        (2, 65_541, 0x47d1_7621_ee2f_d67d),
        (4, 70_000, 0x8ff7_4ae4_822d_7dcc),
        (8, 100_003, 0x1e99_fa8c_6563_89af),
        (12, 50_000, 0x63a3_fec6_965e_d78b),
        (16, 65_536, 0x3076_1b6f_f2ef_ad69),
    ];

    #[test]
    fn golden_outputs_of_c_blosc2() {
        check_golden(GOLDEN, &kernels());
        // A small one spelled out: 24 items of 2 bytes (16 transposed, the
        // last 16 bytes copied).
        let src: Vec<u8> = (0..48u8).map(|i| i.wrapping_mul(37).wrapping_add(11)).collect();
        let want: [u8; 48] = [
            255, 255, 255, 85, 85, 85, 102, 102, 102, 45, 45, 45, 182, 73, 182, 56, 142, 199, 106, 165, 82, 76, 54,
            155, 0, 0, 0, 170, 170, 170, 204, 204, 204, 90, 90, 90, 147, 108, 147, 227, 112, 28, 86, 42, 181, 100, 179,
            217,
        ];
        let mut out = [0; 48];
        bitshuffle(2, &src, &mut out);
        assert_eq!(out, want);
    }

    #[test]
    fn chunk_version_2_roundtrip() {
        let mut rng = Rng(9);
        for (ts, len) in [(4, 4096), (4, 4099), (3, 3 * 65), (16, 40000), (1, 65539), (8, 8 * 41)] {
            let src = rng.bytes(len);
            let mut shuffled = vec![0; len];
            let mut back = vec![0; len];
            bitshuffle_for_version(ts, &src, &mut shuffled, 2);
            bitunshuffle(ts, &shuffled, &mut back, 2);
            assert_eq!(back, src, "ts={ts} len={len}");
        }
    }

    #[test]
    fn chunk_version_2_quirk() {
        let mut rng = Rng(5);
        for (ts, len) in [
            (4, 4096),
            (4, 4099),
            (4, 4100),
            (3, 3 * 64 + 2),
            (8, 8 * 40),
            (8, 8 * 41),
            (1, 7),
            (16, 10),
        ] {
            let src = rng.bytes(len);
            let nelems = len / ts;
            let mut out = vec![0xee; len + 3];
            bitunshuffle(ts, &src, &mut out, 2);
            if nelems % 8 == 0 {
                // The whole item range is unshuffled; trailing bytes are
                // copied, as c-blosc 1.x does.
                let body = nelems * ts;
                let mut want = vec![0; body];
                generic::bitunshuffle(ts, &src[..body], &mut want);
                assert_eq!(&out[..body], &want[..], "ts={ts} len={len}");
                assert_eq!(&out[body..len], &src[body..], "ts={ts} len={len}");
                assert!(out[len..].iter().all(|&b| b == 0xee), "ts={ts} len={len}");
            } else {
                assert_eq!(&out[..len], &src[..], "ts={ts} len={len}");
                assert!(out[len..].iter().all(|&b| b == 0xee));
            }
            // Every later version undoes `bitshuffle`.
            for version in [1, 3, 4, 5, 6] {
                let mut shuffled = vec![0; len];
                bitshuffle(ts, &src, &mut shuffled);
                let mut back = vec![0; len];
                bitunshuffle(ts, &shuffled, &mut back, version);
                assert_eq!(back, src, "ts={ts} len={len} version={version}");
            }
        }
    }

    #[test]
    fn small_blocks_and_typesizes_are_copied() {
        let src: Vec<u8> = (0..100u8).collect();
        for (ts, len) in [(0, 100), (4, 31), (13, 100), (200, 100), (1, 7)] {
            let mut out = vec![0xee; 120];
            bitshuffle(ts, &src[..len], &mut out);
            assert_eq!(&out[..len], &src[..len]);
            assert!(out[len..].iter().all(|&b| b == 0xee));
            bitunshuffle(ts, &src[..len], &mut out, 5);
            assert_eq!(&out[..len], &src[..len]);
        }
    }

    #[test]
    fn feature_mask_selects_lower_paths() {
        let _guard = MASK_LOCK.lock().unwrap_or_else(|e| e.into_inner());
        let src = golden_input(70_000);
        let mut want = vec![0; src.len()];
        generic::bitshuffle(8, &src, &mut want);
        #[cfg(any(target_arch = "x86", target_arch = "x86_64"))]
        {
            let old = cpu::feature_mask();
            for mask in [0, cpu::FEATURE_SSE2, cpu::FEATURE_ALL] {
                cpu::set_feature_mask(mask);
                let mut out = vec![0; src.len()];
                bitshuffle(8, &src, &mut out);
                assert!(out == want, "mask {mask}");
                let mut back = vec![0; src.len()];
                bitunshuffle(8, &out, &mut back, 5);
                assert!(back == src, "mask {mask}");
            }
            cpu::set_feature_mask(old);
        }
    }
}
