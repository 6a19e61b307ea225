//! Unshuffling a block some of whose byte planes are one repeated byte.
//!
//! Shuffled integers keep their high bytes constant over a block, and a
//! chunk stores such a plane as a run token rather than as data: 6 of the
//! 8 planes of a 128 KiB block of counting int64s. Writing those runs out
//! into the scratch block only for the unshuffle to read them back cost
//! 96 KiB of memset per block (17% of the block's decompression time with
//! the output in cache, 7% with it in memory). Here a run plane comes from
//! a register instead, and only the planes the codec decoded are read.

/// The planes of a block that are one repeated byte, for items of up to
/// [`MAX_PLANES`] bytes: bit `j` of `mask` says plane `j` is `bytes[j]`.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub struct PlaneRuns {
    mask: u8,
    bytes: [u8; MAX_PLANES],
}

/// Most planes (item bytes) [`PlaneRuns`] describes.
pub const MAX_PLANES: usize = 8;

impl PlaneRuns {
    /// Record that plane `j` (< [`MAX_PLANES`]) is `byte` repeated.
    pub fn set(&mut self, j: usize, byte: u8) {
        self.mask |= 1 << j;
        self.bytes[j] = byte;
    }

    /// The byte plane `j` repeats, if it is a run.
    pub fn get(&self, j: usize) -> Option<u8> {
        (j < MAX_PLANES && self.mask & (1 << j) != 0).then(|| self.bytes[j])
    }
}

/// Whether [`unshuffle_runs`] reads runs from registers for items of
/// `typesize` bytes (otherwise it writes them out first, as before).
pub fn runs_in_registers(typesize: usize) -> bool {
    #[cfg(any(target_arch = "x86", target_arch = "x86_64"))]
    {
        if crate::engine::cpu::has_avx2() {
            return matches!(typesize, 2 | 4 | 8);
        }
    }
    let _ = typesize;
    false
}

/// [`super::unshuffle`] of `src` into `dst` (`dst.len() >= src.len()`),
/// where the planes `runs` lists hold nothing yet and stand for their
/// repeated byte. `typesize` is at most [`MAX_PLANES`]. Without a kernel
/// for the size ([`runs_in_registers`]) the runs are written into `src`
/// and it is unshuffled as usual.
///
/// # Panics
/// If `typesize` exceeds [`MAX_PLANES`] or `dst` is shorter than `src`.
pub fn unshuffle_runs(typesize: usize, src: &mut [u8], runs: &PlaneRuns, dst: &mut [u8]) {
    assert!(typesize <= MAX_PLANES, "at most 8 planes");
    let n = src.len() / typesize.max(1);
    if !runs_in_registers(typesize) || runs.mask == 0 || n == 0 {
        fill_runs(typesize, n, src, runs);
        return super::unshuffle(typesize, src, dst);
    }
    let dst = &mut dst[..src.len()];
    let mut planes: [Option<&[u8]>; MAX_PLANES] = [None; MAX_PLANES];
    for (j, p) in src.chunks_exact(n).take(typesize).enumerate() {
        if runs.get(j).is_none() {
            planes[j] = Some(p);
        }
    }
    #[cfg(any(target_arch = "x86", target_arch = "x86_64"))]
    let done = super::avx2::unshuffle_runs(typesize, n, &planes, &runs.bytes, dst);
    #[cfg(not(any(target_arch = "x86", target_arch = "x86_64")))]
    let done = 0;
    unshuffle_runs_items(typesize, n, done, &planes, &runs.bytes, dst);
    let whole = n * typesize;
    dst[whole..].copy_from_slice(&src[whole..]);
}

/// Write each run plane of `runs` into its place in `src` (planes of `n`
/// bytes).
fn fill_runs(typesize: usize, n: usize, src: &mut [u8], runs: &PlaneRuns) {
    if n == 0 {
        return;
    }
    for (j, p) in src.chunks_exact_mut(n).take(typesize).enumerate() {
        if let Some(b) = runs.get(j) {
            p.fill(b);
        }
    }
}

/// Items `done..n` of [`unshuffle_runs`], one at a time: the scalar twin of
/// the SIMD kernel.
fn unshuffle_runs_items(
    typesize: usize,
    n: usize,
    done: usize,
    planes: &[Option<&[u8]>],
    fills: &[u8],
    dst: &mut [u8],
) {
    for (i, item) in dst.chunks_exact_mut(typesize).take(n).enumerate().skip(done) {
        for (j, b) in item.iter_mut().enumerate() {
            *b = match planes[j] {
                Some(p) => p[i],
                None => fills[j],
            };
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::test_util::Rng;
    use super::*;
    use crate::engine::cpu;

    /// Every item size, plane mask and length (with and without trailing
    /// bytes, below and above one SIMD step): the same bytes as writing the
    /// runs out and unshuffling with the scalar kernel; on this CPU's
    /// kernel and with SIMD turned off.
    #[test]
    fn unshuffle_runs_matches_filled_planes() {
        let mut rng = Rng(0x0123_4567_89AB_CDEF);
        for mask in [cpu::FEATURE_ALL, 0] {
            let old = cpu::set_feature_mask(mask);
            for typesize in 1..=MAX_PLANES {
                for len in [0usize, 7, 64, 255, 256, 1000, 4096 + 3, 16384] {
                    for pattern in 0..(1u32 << typesize).min(24) {
                        let mut runs = PlaneRuns::default();
                        for j in 0..typesize {
                            if pattern >> j & 1 == 1 {
                                runs.set(j, rng.next() as u8);
                            }
                        }
                        let src = rng.bytes(len);
                        let mut filled = src.clone();
                        fill_runs(typesize, len / typesize, &mut filled, &runs);
                        let mut want = vec![0u8; len];
                        super::super::generic::unshuffle(typesize, &filled, &mut want);
                        let mut got = vec![0xEEu8; len + 5];
                        unshuffle_runs(typesize, &mut src.clone(), &runs, &mut got);
                        assert_eq!(
                            &got[..len],
                            &want[..],
                            "typesize {typesize} len {len} runs {runs:?} mask {mask}"
                        );
                        assert!(got[len..].iter().all(|&b| b == 0xEE), "wrote past the block");
                    }
                }
            }
            cpu::set_feature_mask(old);
        }
    }
}
