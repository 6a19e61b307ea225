//! Unshuffling a block whose byte planes are not all in the block buffer:
//! some are one repeated byte, some are stored as they are in the chunk.
//!
//! A chunk stores each plane of a split block as a stream, and two kinds
//! of stream need no decoding: runs of one byte (the high bytes of
//! shuffled integers: 6 of the 8 planes of a 128 KiB block of counting
//! int64s) and stored planes (incompressible low bytes: 5 or 6 of the 8
//! planes of smooth float64s). Writing them into the block buffer only for
//! the unshuffle to read them back cost a memset or a memcpy per plane
//! (96 KiB per 128 KiB block of counting int64s: 17% of its decompression
//! time with the output in cache, 7% with it in memory). Here a run plane
//! comes from a register and a stored plane straight from the chunk.

/// Where plane `j` of a block is.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub enum PlaneSource<'a> {
    /// In the block buffer, at `j * n` (decoded there).
    #[default]
    Block,
    /// This byte repeated (not written to the block buffer).
    Run(u8),
    /// These bytes, at least `n` of them (not copied to the block buffer).
    Stored(&'a [u8]),
}

/// Where each plane of a block is, for items of up to [`MAX_PLANES`]
/// bytes.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub struct PlaneSources<'a> {
    planes: [PlaneSource<'a>; MAX_PLANES],
}

/// Most planes (item bytes) [`PlaneSources`] describes.
pub const MAX_PLANES: usize = 8;

impl<'a> PlaneSources<'a> {
    /// Say where plane `j` (< [`MAX_PLANES`]) is.
    pub fn set(&mut self, j: usize, source: PlaneSource<'a>) {
        self.planes[j] = source;
    }

    /// Whether every plane is in the block buffer.
    fn all_in_block(&self) -> bool {
        self.planes.iter().all(|p| *p == PlaneSource::Block)
    }
}

/// Whether [`unshuffle_from`] reads runs and stored planes where they are
/// for items of `typesize` bytes (otherwise it writes them into the block
/// buffer first, as a plain unshuffle needs).
pub fn reads_planes_in_place(typesize: usize) -> bool {
    #[cfg(any(target_arch = "x86", target_arch = "x86_64"))]
    {
        if crate::engine::cpu::has_avx2() {
            return matches!(typesize, 2 | 4 | 8);
        }
    }
    let _ = typesize;
    false
}

/// [`super::unshuffle`] of the block `block` into `dst` (`dst.len() >=
/// block.len()`), its planes being where `sources` says; the parts of
/// `block` for planes elsewhere hold nothing yet (and may be overwritten).
///
/// # Panics
/// If `typesize` exceeds [`MAX_PLANES`], a stored plane is shorter than a
/// plane, or `dst` is shorter than `block`.
pub fn unshuffle_from(typesize: usize, block: &mut [u8], sources: &PlaneSources<'_>, dst: &mut [u8]) {
    assert!(typesize <= MAX_PLANES, "at most 8 planes");
    let n = block.len() / typesize.max(1);
    if !reads_planes_in_place(typesize) || sources.all_in_block() || n == 0 {
        gather(typesize, n, block, sources);
        return super::unshuffle(typesize, block, dst);
    }
    let dst = &mut dst[..block.len()];
    let mut planes: [Option<&[u8]>; MAX_PLANES] = [None; MAX_PLANES];
    let mut fills = [0u8; MAX_PLANES];
    for (j, p) in block.chunks_exact(n).take(typesize).enumerate() {
        match sources.planes[j] {
            PlaneSource::Block => planes[j] = Some(p),
            PlaneSource::Stored(s) => planes[j] = Some(&s[..n]),
            PlaneSource::Run(b) => fills[j] = b,
        }
    }
    #[cfg(any(target_arch = "x86", target_arch = "x86_64"))]
    let done = super::avx2::unshuffle_from(typesize, n, &planes, &fills, dst);
    #[cfg(not(any(target_arch = "x86", target_arch = "x86_64")))]
    let done = 0;
    unshuffle_from_items(typesize, n, done, &planes, &fills, dst);
    let whole = n * typesize;
    dst[whole..].copy_from_slice(&block[whole..]);
}

/// Write every plane not in the block buffer into its place there (planes
/// of `n` bytes).
fn gather(typesize: usize, n: usize, block: &mut [u8], sources: &PlaneSources<'_>) {
    if n == 0 {
        return;
    }
    for (j, p) in block.chunks_exact_mut(n).take(typesize).enumerate() {
        match sources.planes[j] {
            PlaneSource::Block => {}
            PlaneSource::Run(b) => p.fill(b),
            PlaneSource::Stored(s) => p.copy_from_slice(&s[..n]),
        }
    }
}

/// Items `done..n` of [`unshuffle_from`], one at a time (plane `j` is
/// `planes[j]`, or `fills[j]` repeated where that is `None`): the scalar
/// twin of the SIMD kernel.
fn unshuffle_from_items(
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

    /// Every item size, mix of plane sources and length (with and without
    /// trailing bytes, below and above one SIMD step): the same bytes as
    /// gathering the planes into the block and unshuffling it with the
    /// scalar kernel; on this CPU's kernel and with SIMD turned off.
    #[test]
    fn unshuffle_from_matches_gathered_planes() {
        let mut rng = Rng(0x0123_4567_89AB_CDEF);
        for mask in [cpu::FEATURE_ALL, 0] {
            let old = cpu::set_feature_mask(mask);
            for typesize in 1..=MAX_PLANES {
                for len in [0usize, 7, 64, 255, 256, 1000, 4096 + 3, 16384] {
                    let n = len / typesize;
                    // Stored planes a little longer than a plane: only `n`
                    // bytes of them count.
                    let stored: Vec<Vec<u8>> = (0..typesize).map(|_| rng.bytes(n + 3)).collect();
                    for pattern in 0..3u32.pow(typesize as u32).min(40) {
                        let mut sources = PlaneSources::default();
                        let mut kinds = pattern;
                        for (j, s) in stored.iter().enumerate() {
                            match kinds % 3 {
                                1 => sources.set(j, PlaneSource::Run(rng.next() as u8)),
                                2 => sources.set(j, PlaneSource::Stored(s)),
                                _ => {}
                            }
                            kinds /= 3;
                        }
                        let block = rng.bytes(len);
                        let mut gathered = block.clone();
                        gather(typesize, n, &mut gathered, &sources);
                        let mut want = vec![0u8; len];
                        super::super::generic::unshuffle(typesize, &gathered, &mut want);
                        let mut got = vec![0xEEu8; len + 5];
                        unshuffle_from(typesize, &mut block.clone(), &sources, &mut got);
                        assert_eq!(
                            &got[..len],
                            &want[..],
                            "typesize {typesize} len {len} {sources:?} mask {mask}"
                        );
                        assert!(got[len..].iter().all(|&b| b == 0xEE), "wrote past the block");
                    }
                }
            }
            cpu::set_feature_mask(old);
        }
    }
}
