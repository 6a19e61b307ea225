//! Byte shuffle filter (`BLOSC_SHUFFLE`): byte-plane transpose of a block.
//!
//! A block of `n = len / typesize` items becomes `typesize` planes of `n`
//! bytes, plane `j` holding byte `j` of every item; the last
//! `len % typesize` bytes are copied unchanged. This is exactly what
//! C-Blosc2's `shuffle()` / `unshuffle()` produce, whatever kernel runs.
//!
//! Kernels: [`generic`] (safe scalar, always present) and, on x86 / x86_64,
//! [`sse2`] and [`avx2`]. The entry points pick the best one the CPU offers
//! (AVX2 > SSE2 > generic, see [`crate::engine::cpu`]) on every call.

pub mod generic;
pub mod planes;

#[cfg(any(target_arch = "x86", target_arch = "x86_64"))]
pub mod avx2;
#[cfg(any(target_arch = "x86", target_arch = "x86_64"))]
pub mod sse2;

#[cfg(any(target_arch = "x86", target_arch = "x86_64"))]
use crate::engine::cpu;

/// One interleave step on listed register pairs of the array `$x`:
/// `(a, b)` becomes `($lo(a, b), $hi(a, b))`. The pairs are spelled out so
/// that the whole network is straight-line code on registers.
///
/// Value-only, like every macro here: expand it inside the `unsafe` block
/// of a kernel whose target features provide the intrinsics passed in.
#[cfg(any(target_arch = "x86", target_arch = "x86_64"))]
macro_rules! unpack_pairs {
    ($x:ident, $lo:ident, $hi:ident, [$(($a:literal, $b:literal)),* $(,)?]) => {
        $(
            let (p, q) = ($x[$a], $x[$b]);
            $x[$a] = $lo(p, q);
            $x[$b] = $hi(p, q);
        )*
    };
}
#[cfg(any(target_arch = "x86", target_arch = "x86_64"))]
pub(crate) use unpack_pairs;

/// Transpose in place the 16x16 byte matrix held in an array of 16 SIMD
/// registers (row `r` = register `r`; with 256-bit registers, each 128-bit
/// lane separately). `$lo` / `$hi` are the `unpack{lo,hi}_epi8` intrinsics
/// of the register width.
///
/// An `epi8` interleave of a register pair moves the top bit of the byte
/// position into the register index and the register bit into the bottom
/// of the position; steps on pairs 8, 4, 2 and 1 apart swap the four
/// position bits with the four register bits.
#[cfg(any(target_arch = "x86", target_arch = "x86_64"))]
macro_rules! transpose16 {
    ($x:ident, $lo:ident, $hi:ident) => {
        unpack_pairs!(
            $x,
            $lo,
            $hi,
            [
                (0, 8),
                (1, 9),
                (2, 10),
                (3, 11),
                (4, 12),
                (5, 13),
                (6, 14),
                (7, 15)
            ]
        );
        unpack_pairs!(
            $x,
            $lo,
            $hi,
            [
                (0, 4),
                (1, 5),
                (2, 6),
                (3, 7),
                (8, 12),
                (9, 13),
                (10, 14),
                (11, 15)
            ]
        );
        unpack_pairs!(
            $x,
            $lo,
            $hi,
            [
                (0, 2),
                (1, 3),
                (4, 6),
                (5, 7),
                (8, 10),
                (9, 11),
                (12, 14),
                (13, 15)
            ]
        );
        unpack_pairs!(
            $x,
            $lo,
            $hi,
            [
                (0, 1),
                (2, 3),
                (4, 5),
                (6, 7),
                (8, 9),
                (10, 11),
                (12, 13),
                (14, 15)
            ]
        );
    };
}
#[cfg(any(target_arch = "x86", target_arch = "x86_64"))]
pub(crate) use transpose16;

/// Byte planes of 16 items (per 128-bit lane) of `$t` bytes, `$t` in 4, 8,
/// 16: from registers holding the items in memory order (register `k` =
/// bytes `16 * k .. + 16`) to registers holding planes, in place; evaluates
/// to nothing. Four `epi8` steps; step `k` works on the register bit that
/// holds item-index bit `3 - k` at that point. Afterwards plane `j` is in
/// register `j`, except for `$t == 8` where it is in register
/// `((j & 1) << 2) | (j >> 1)` (see [`plane_order8`]).
#[cfg(any(target_arch = "x86", target_arch = "x86_64"))]
macro_rules! planes_from_items {
    ($x:ident, $t:expr, $lo:ident, $hi:ident) => {
        match $t {
            4 => {
                unpack_pairs!($x, $lo, $hi, [(0, 2), (1, 3)]);
                unpack_pairs!($x, $lo, $hi, [(0, 1), (2, 3)]);
                unpack_pairs!($x, $lo, $hi, [(0, 2), (1, 3)]);
                unpack_pairs!($x, $lo, $hi, [(0, 1), (2, 3)]);
            }
            8 => {
                unpack_pairs!($x, $lo, $hi, [(0, 4), (1, 5), (2, 6), (3, 7)]);
                unpack_pairs!($x, $lo, $hi, [(0, 2), (1, 3), (4, 6), (5, 7)]);
                unpack_pairs!($x, $lo, $hi, [(0, 1), (2, 3), (4, 5), (6, 7)]);
                unpack_pairs!($x, $lo, $hi, [(0, 4), (1, 5), (2, 6), (3, 7)]);
            }
            _ => {
                transpose16!($x, $lo, $hi);
            }
        }
    };
}
#[cfg(any(target_arch = "x86", target_arch = "x86_64"))]
pub(crate) use planes_from_items;

/// Inverse of [`planes_from_items`] for `$t` in 2, 4, 8, 16: from planes
/// (plane `j` in register `j`) to items. Steps of growing width (8, 16,
/// 32, 64 bits) on register bits 0, 1, 2, 3 each move one item-index bit
/// from the byte position to the register index. Afterwards the 16-byte
/// chunk `c` of the items is in register `c` with its log2(`$t`) bits
/// reversed (see [`chunk_register`]).
#[cfg(any(target_arch = "x86", target_arch = "x86_64"))]
macro_rules! items_from_planes {
    (
        $x:ident, $t:expr, $lo8:ident, $hi8:ident, $lo16:ident, $hi16:ident,
        $lo32:ident, $hi32:ident, $lo64:ident, $hi64:ident
    ) => {
        match $t {
            2 => {
                unpack_pairs!($x, $lo8, $hi8, [(0, 1)]);
            }
            4 => {
                unpack_pairs!($x, $lo8, $hi8, [(0, 1), (2, 3)]);
                unpack_pairs!($x, $lo16, $hi16, [(0, 2), (1, 3)]);
            }
            8 => {
                unpack_pairs!($x, $lo8, $hi8, [(0, 1), (2, 3), (4, 5), (6, 7)]);
                unpack_pairs!($x, $lo16, $hi16, [(0, 2), (1, 3), (4, 6), (5, 7)]);
                unpack_pairs!($x, $lo32, $hi32, [(0, 4), (1, 5), (2, 6), (3, 7)]);
            }
            _ => {
                unpack_pairs!(
                    $x,
                    $lo8,
                    $hi8,
                    [(0, 1), (2, 3), (4, 5), (6, 7), (8, 9), (10, 11), (12, 13), (14, 15)]
                );
                unpack_pairs!(
                    $x,
                    $lo16,
                    $hi16,
                    [(0, 2), (1, 3), (4, 6), (5, 7), (8, 10), (9, 11), (12, 14), (13, 15)]
                );
                unpack_pairs!(
                    $x,
                    $lo32,
                    $hi32,
                    [(0, 4), (1, 5), (2, 6), (3, 7), (8, 12), (9, 13), (10, 14), (11, 15)]
                );
                unpack_pairs!(
                    $x,
                    $lo64,
                    $hi64,
                    [(0, 8), (1, 9), (2, 10), (3, 11), (4, 12), (5, 13), (6, 14), (7, 15)]
                );
            }
        }
    };
}
#[cfg(any(target_arch = "x86", target_arch = "x86_64"))]
pub(crate) use items_from_planes;

/// The kernel choice of the SIMD `shuffle_items` / `unshuffle_items`:
/// `$pow2::<T>(start, n, s, d)` for item sizes `T` in 2, 4, 8, 16 (`s`, `d`
/// the slices' pointers), `$tiled(typesize, start, n, src, dst)` for the
/// others. Value-only; expand it inside an `unsafe` block of a kernel whose
/// contract meets both kernels' contracts.
#[cfg(any(target_arch = "x86", target_arch = "x86_64"))]
macro_rules! by_item_size {
    ($pow2:ident, $tiled:ident, $typesize:expr, $start:expr, $n:expr, $src:expr, $dst:expr) => {{
        let (s, d) = ($src.as_ptr(), $dst.as_mut_ptr());
        match $typesize {
            2 => $pow2::<2>($start, $n, s, d),
            4 => $pow2::<4>($start, $n, s, d),
            8 => $pow2::<8>($start, $n, s, d),
            16 => $pow2::<16>($start, $n, s, d),
            _ => $tiled($typesize, $start, $n, $src, $dst),
        }
    }};
}
#[cfg(any(target_arch = "x86", target_arch = "x86_64"))]
pub(crate) use by_item_size;

/// Register holding plane `j` after [`planes_from_items`] with 8-byte items.
#[cfg(any(target_arch = "x86", target_arch = "x86_64"))]
pub(crate) const fn plane_order8(j: usize) -> usize {
    ((j & 1) << 2) | (j >> 1)
}

/// Register holding the 16-byte chunk `c` of the items after
/// [`items_from_planes`] with `t`-byte items (`t` a power of two <= 16).
#[cfg(any(target_arch = "x86", target_arch = "x86_64"))]
pub(crate) const fn chunk_register(t: usize, c: usize) -> usize {
    let m = t.trailing_zeros();
    if m == 0 {
        c
    } else {
        c.reverse_bits() >> (usize::BITS - m)
    }
}

/// The frame of every kernel's `shuffle` / `unshuffle`: a plain copy for
/// `typesize` 0 or 1; otherwise `planes(n, src, dst)` on the `n` whole
/// items, then the trailing bytes copied. Writes `dst[..src.len()]`.
#[inline(always)]
pub(crate) fn whole_items(typesize: usize, src: &[u8], dst: &mut [u8], planes: impl FnOnce(usize, &[u8], &mut [u8])) {
    let dst = &mut dst[..src.len()];
    if typesize <= 1 {
        dst.copy_from_slice(src);
        return;
    }
    let n = src.len() / typesize;
    planes(n, src, dst);
    let whole = n * typesize;
    if whole < src.len() {
        // (The test spares the usual case a call to memcpy.)
        dst[whole..].copy_from_slice(&src[whole..]);
    }
}

/// Transpose `src` (items of `typesize` bytes) into `dst` byte planes.
/// Trailing bytes that do not form a whole item are copied unchanged;
/// `typesize` 0 or 1 is a plain copy. Writes `dst[..src.len()]`.
///
/// # Panics
/// If `dst` is shorter than `src`.
pub fn shuffle(typesize: usize, src: &[u8], dst: &mut [u8]) {
    #[cfg(any(target_arch = "x86", target_arch = "x86_64"))]
    {
        if cpu::has_avx2() {
            return avx2::shuffle(typesize, src, dst);
        }
        if cpu::has_sse2() {
            return sse2::shuffle(typesize, src, dst);
        }
    }
    generic::shuffle(typesize, src, dst);
}

/// Whether [`shuffle_run`] has a SIMD kernel for items of `typesize`
/// bytes (it takes 32 items at a time; the rest of a run is scalar code).
pub fn run_has_simd(typesize: usize) -> bool {
    #[cfg(any(target_arch = "x86", target_arch = "x86_64"))]
    {
        if cpu::has_avx2() {
            return matches!(typesize, 2 | 4 | 8 | 16);
        }
    }
    let _ = typesize;
    false
}

/// Shuffle `run`, whole items of `typesize` bytes, as items `first..` of a
/// block of `n` items: byte `k` of item `first + i` goes to
/// `dst[k * n + first + i]`, where [`shuffle`] of the whole block puts it.
/// A block is then shuffled run by run straight from where its items lie
/// (the rows of a b2nd block), without gathering it first.
///
/// # Panics
/// If `typesize` is 0, `run` is not whole items, the run does not fit in
/// the block, or `dst` is shorter than the block.
pub fn shuffle_run(typesize: usize, n: usize, first: usize, run: &[u8], dst: &mut [u8]) {
    assert!(
        typesize > 0 && run.len().is_multiple_of(typesize),
        "a run is whole items"
    );
    let m = run.len() / typesize;
    assert!(
        first.checked_add(m).is_some_and(|end| end <= n) && n.checked_mul(typesize).is_some_and(|len| len <= dst.len()),
        "the run lies in the block and the block in dst"
    );
    #[allow(unused_mut)]
    let mut done = 0;
    #[cfg(any(target_arch = "x86", target_arch = "x86_64"))]
    {
        if cpu::has_avx2() {
            done = avx2::shuffle_run(typesize, n, first, run, dst);
        }
    }
    generic::shuffle_run_items(typesize, n, first, done, run, dst);
}

/// Inverse of [`shuffle`].
///
/// # Panics
/// If `dst` is shorter than `src`.
pub fn unshuffle(typesize: usize, src: &[u8], dst: &mut [u8]) {
    #[cfg(any(target_arch = "x86", target_arch = "x86_64"))]
    {
        if cpu::has_avx2() {
            return avx2::unshuffle(typesize, src, dst);
        }
        if cpu::has_sse2() {
            return sse2::unshuffle(typesize, src, dst);
        }
    }
    generic::unshuffle(typesize, src, dst);
}

/// Helpers shared by the shuffle and bitshuffle tests.
#[cfg(test)]
pub(crate) mod test_util {
    /// xorshift64 generator for test data.
    pub(crate) struct Rng(pub(crate) u64);

    impl Rng {
        pub(crate) fn next(&mut self) -> u64 {
            self.0 ^= self.0 << 13;
            self.0 ^= self.0 >> 7;
            self.0 ^= self.0 << 17;
            self.0
        }

        pub(crate) fn bytes(&mut self, len: usize) -> Vec<u8> {
            (0..len).map(|_| self.next() as u8).collect()
        }
    }

    /// 64-bit FNV-1a, to pin golden outputs as short hashes.
    pub(crate) fn fnv1a(data: &[u8]) -> u64 {
        data.iter().fold(0xcbf2_9ce4_8422_2325, |h, &b| {
            (h ^ u64::from(b)).wrapping_mul(0x0000_0100_0000_01b3)
        })
    }

    /// Deterministic input of the golden vectors (a slow ramp plus noise,
    /// like real data): the C library was run on exactly these bytes.
    pub(crate) fn golden_input(len: usize) -> Vec<u8> {
        let mut x: u32 = 0x9E37_79B9;
        (0..len)
            .map(|k| {
                x = x.wrapping_mul(1_664_525).wrapping_add(1_013_904_223);
                ((k as u32 / 3) as u8).wrapping_add((x >> 29) as u8)
            })
            .collect()
    }

    /// Serializes the tests that change the process-wide feature mask, so
    /// that each one restores what it found.
    pub(crate) static MASK_LOCK: std::sync::Mutex<()> = std::sync::Mutex::new(());

    /// Type sizes every kernel is checked with.
    pub(crate) fn typesizes() -> impl Iterator<Item = usize> {
        (1..=33).chain([48, 64, 255, 256])
    }

    /// Block lengths checked for `typesize`: all of 0..300 plus a few
    /// larger ones (a handful of type sizes get blocks of several tiles).
    pub(crate) fn lengths(typesize: usize) -> impl Iterator<Item = usize> {
        let large: &[usize] = match typesize {
            4 | 8 => &[4099, 70_001, 1 << 20],
            1 | 2 | 3 | 7 | 12 | 16 | 17 | 24 | 255 => &[4099, 70_001],
            _ => &[1029],
        };
        (0..300).chain(large.iter().copied())
    }

    /// A kernel entry point: `(typesize, src, dst)`.
    pub(crate) type Kernel = fn(usize, &[u8], &mut [u8]);

    /// `(name, forward, inverse)` of the kernels a filter test checks.
    pub(crate) type Kernels = Vec<(&'static str, Kernel, Kernel)>;

    /// Every kernel gives the same bytes as the `generic` pair on random
    /// blocks of [`typesizes`] x [`lengths`], both ways, and round-trips.
    /// `op` names the forward filter in failure messages.
    pub(crate) fn check_against_generic(op: &str, generic: (Kernel, Kernel), kernels: &Kernels) {
        let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
        for ts in typesizes() {
            for len in lengths(ts) {
                let src = rng.bytes(len);
                let mut want = vec![0; len];
                generic.0(ts, &src, &mut want);
                let mut want_un = vec![0; len];
                generic.1(ts, &src, &mut want_un);
                for &(name, fwd, inv) in kernels {
                    let mut out = vec![0xa5; len];
                    fwd(ts, &src, &mut out);
                    assert!(out == want, "{name} {op} ts={ts} len={len}");
                    let mut back = vec![0x5a; len];
                    inv(ts, &out, &mut back);
                    assert!(back == src, "{name} round trip ts={ts} len={len}");
                    inv(ts, &src, &mut back);
                    assert!(back == want_un, "{name} un{op} ts={ts} len={len}");
                }
            }
        }
    }

    /// Every kernel hashes to the C-Blosc2 output of `golden` (`(typesize,
    /// len, fnv1a)` of the filtered [`golden_input`]) and round-trips.
    pub(crate) fn check_golden(golden: &[(usize, usize, u64)], kernels: &Kernels) {
        for &(ts, len, hash) in golden {
            let src = golden_input(len);
            for &(name, fwd, inv) in kernels {
                let mut out = vec![0; len];
                fwd(ts, &src, &mut out);
                assert_eq!(fnv1a(&out), hash, "{name} ts={ts} len={len}");
                let mut back = vec![0; len];
                inv(ts, &out, &mut back);
                assert!(back == src, "{name} ts={ts} len={len}");
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::test_util::*;
    use super::*;

    /// (name, shuffle, unshuffle) of every kernel this CPU can run.
    fn kernels() -> Kernels {
        let mut k: Kernels = vec![("generic", generic::shuffle, generic::unshuffle)];
        #[cfg(any(target_arch = "x86", target_arch = "x86_64"))]
        {
            if sse2::is_available() {
                k.push(("sse2", sse2::shuffle, sse2::unshuffle));
            }
            if avx2::is_available() {
                k.push(("avx2", avx2::shuffle, avx2::unshuffle));
            }
        }
        k.push(("dispatch", shuffle, unshuffle));
        k
    }

    /// The definition, item by item.
    fn reference(typesize: usize, src: &[u8]) -> Vec<u8> {
        let mut out = src.to_vec();
        if typesize > 1 {
            let n = src.len() / typesize;
            for i in 0..n {
                for j in 0..typesize {
                    out[j * n + i] = src[i * typesize + j];
                }
            }
        }
        out
    }

    #[test]
    fn generic_matches_definition() {
        let mut rng = Rng(0x0123_4567_89ab_cdef);
        for ts in typesizes() {
            for len in (0..300).chain([1029]) {
                let src = rng.bytes(len);
                let mut out = vec![0; len];
                generic::shuffle(ts, &src, &mut out);
                assert_eq!(out, reference(ts, &src), "ts={ts} len={len}");
            }
        }
    }

    /// A block shuffled run by run (runs of every length, SIMD kernel and
    /// scalar code alike) is the block shuffled whole.
    #[test]
    fn shuffle_run_by_run_is_the_whole_block_shuffled() {
        let _g = MASK_LOCK.lock().unwrap_or_else(|e| e.into_inner());
        let mut rng = Rng(0x5eed_f00d_1234_5678);
        for mask in [cpu::FEATURE_ALL, 0] {
            let old = cpu::set_feature_mask(mask);
            for ts in [1, 2, 3, 4, 8, 12, 16, 17] {
                for n in [0, 1, 31, 32, 33, 96, 200, 1024] {
                    let src = rng.bytes(n * ts);
                    let want = reference(ts, &src);
                    let mut out = vec![0xa5; n * ts + 3];
                    let mut first = 0;
                    while first < n {
                        let m = ((rng.next() % 80) as usize).min(n - first).max(1);
                        shuffle_run(ts, n, first, &src[first * ts..(first + m) * ts], &mut out);
                        first += m;
                    }
                    assert!(out[..n * ts] == want[..], "ts={ts} n={n} mask={mask}");
                    assert!(out[n * ts..].iter().all(|&b| b == 0xa5), "past the block ts={ts} n={n}");
                }
            }
            cpu::set_feature_mask(old);
        }
    }

    #[test]
    #[should_panic(expected = "the run lies in the block")]
    fn shuffle_run_refuses_a_run_past_the_block() {
        let mut out = vec![0; 64];
        shuffle_run(8, 8, 4, &[0; 40], &mut out);
    }

    #[test]
    fn every_kernel_matches_generic_and_round_trips() {
        check_against_generic("shuffle", (generic::shuffle, generic::unshuffle), &kernels());
    }

    /// Hashes of C-Blosc2 3.3.5 `blosc2_shuffle(ts, len, golden_input(len))`
    /// (the bitshuffle tests hold the `blosc2_bitshuffle` ones).
    const GOLDEN: &[(usize, usize, u64)] = &[
        (1, 64, 0x42e6_77e8_7034_e4de),
        (1, 1000, 0x4438_54d5_992f_4691),
        (2, 1000, 0x44f0_9cdd_7302_c955),
        (3, 999, 0xf035_19eb_a274_34f5),
        (4, 4096, 0x3b55_1c99_dde5_7b98),
        (4, 4100, 0x8459_74a8_cc9e_aa35),
        (7, 1001, 0xb8e3_dbee_9641_d9b1),
        (8, 8192, 0xa3a6_6d0a_702f_8734),
        (8, 8200, 0x9c80_fb38_82f5_fa43),
        (12, 1200, 0x42c4_265b_c435_84a5),
        (16, 4096, 0xde44_104c_71c3_0b38),
        (17, 5000, 0xd604_8fe2_d936_5be1),
        (24, 777, 0x5e8f_5e33_2fdd_3153),
        (32, 4096, 0xe4d6_170b_1d1d_0148),
        (64, 8192, 0x0ffa_2652_d6a8_18d2),
        (255, 7777, 0x7d97_df01_808c_23c6),
        (256, 5000, 0x15f1_88ad_1c46_ae73),
        (1, 40_000, 0x3aba_6753_6c2d_4224),
        (2, 65_541, 0x8b0d_5dc1_c46d_d50d),
        (4, 70_000, 0x5f95_57e5_48e5_4710),
        (8, 100_003, 0x6d52_0fbf_2f35_8c07),
        (12, 50_000, 0x6f51_6da8_aaa4_f2cb),
        (16, 65_536, 0xbcbb_1324_3111_bf01),
    ];

    #[test]
    fn golden_outputs_of_c_blosc2() {
        check_golden(GOLDEN, &kernels());
        // A small one spelled out: 16 items of 3 bytes.
        let src: Vec<u8> = (0..48u8).map(|i| i.wrapping_mul(37).wrapping_add(11)).collect();
        let want: [u8; 48] = [
            11, 122, 233, 88, 199, 54, 165, 20, 131, 242, 97, 208, 63, 174, 29, 140, 48, 159, 14, 125, 236, 91, 202,
            57, 168, 23, 134, 245, 100, 211, 66, 177, 85, 196, 51, 162, 17, 128, 239, 94, 205, 60, 171, 26, 137, 248,
            103, 214,
        ];
        let mut out = [0; 48];
        shuffle(3, &src, &mut out);
        assert_eq!(out, want);
    }

    #[test]
    fn writes_only_the_block_and_copies_small_typesizes() {
        let src: Vec<u8> = (0..100u8).collect();
        for ts in [0, 1, 4, 7, 200] {
            let mut out = vec![0xee; 130];
            shuffle(ts, &src, &mut out);
            assert!(out[100..].iter().all(|&b| b == 0xee));
            if ts <= 1 || ts > 100 {
                assert_eq!(&out[..100], &src[..]);
            }
            let mut back = vec![0xee; 130];
            unshuffle(ts, &out[..100], &mut back);
            assert_eq!(&back[..100], &src[..]);
            assert!(back[100..].iter().all(|&b| b == 0xee));
        }
    }

    #[test]
    #[should_panic]
    fn short_destination_panics() {
        shuffle(4, &[0; 64], &mut [0; 63]);
    }

    #[test]
    fn feature_mask_selects_lower_paths() {
        use crate::engine::cpu;
        let src = golden_input(70_000);
        let mut want = vec![0; src.len()];
        generic::shuffle(4, &src, &mut want);
        let _guard = MASK_LOCK.lock().unwrap_or_else(|e| e.into_inner());
        let old = cpu::feature_mask();
        for mask in [0, cpu::FEATURE_SSE2, cpu::FEATURE_ALL] {
            cpu::set_feature_mask(mask);
            let mut out = vec![0; src.len()];
            shuffle(4, &src, &mut out);
            assert!(out == want, "mask {mask}");
        }
        cpu::set_feature_mask(old);
    }
}
