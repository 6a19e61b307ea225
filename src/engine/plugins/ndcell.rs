//! The NDCELL filter (id 32) of C-Blosc2 3.3.5.
//!
//! NDCELL reorders one block of a b2nd array so that each cell (a hypercube
//! of `meta` items per side, clipped at the block's edges) becomes
//! contiguous: cells in C order over the cell grid, the items of a cell in
//! C order. Data close in every dimension then sits together for the codec.
//! `backward` scatters the cells back.
//!
//! The cell walk ([`CellGrid`]) is shared with NDMEAN, which averages each
//! cell instead of copying it.

use crate::engine::b2nd::meta::Meta;
use crate::engine::error::{Error, Result};

/// The most dimensions NDCELL and NDMEAN accept (`NDCELL_MAX_DIM`).
pub(super) const MAX_DIM: usize = 8;

/// Reorder the block `src` into cells of `meta` items per side into `dst`
/// (`ndcell_forward`). `typesize` is the item size of the compression
/// parameters.
pub fn forward(src: &[u8], dst: &mut [u8], meta: u8, typesize: usize, b2nd: &Meta) -> Result<()> {
    let grid = CellGrid::for_ndcell(b2nd, meta, typesize, src.len())?;
    let dst = dst
        .get_mut(..src.len())
        .ok_or(Error::Failure("NDCELL: output smaller than the block"))?;
    let mut op = 0;
    grid.for_each_cell(|runs| {
        for &(start, len) in runs {
            let n = len * typesize;
            dst[op..op + n].copy_from_slice(&src[start * typesize..start * typesize + n]);
            op += n;
        }
        Ok(())
    })
}

/// Undo [`forward`] (`ndcell_backward`): scatter the cells of `src` back
/// into C order in `dst`. `typesize` is the super-chunk's.
pub fn backward(src: &[u8], dst: &mut [u8], meta: u8, typesize: usize, b2nd: &Meta) -> Result<()> {
    let grid = CellGrid::for_ndcell(b2nd, meta, typesize, src.len())?;
    scatter(&grid, src, dst, typesize)
}

/// Write the cells of `src` (as [`CellGrid::for_each_cell`] lists them)
/// back to their places in `dst`: the backward step of NDCELL and NDMEAN.
pub(super) fn scatter(grid: &CellGrid, src: &[u8], dst: &mut [u8], typesize: usize) -> Result<()> {
    let dst = dst
        .get_mut(..src.len())
        .ok_or(Error::Failure("output smaller than the block"))?;
    let mut ip = 0;
    grid.for_each_cell(|runs| {
        for &(start, len) in runs {
            let n = len * typesize;
            dst[start * typesize..start * typesize + n].copy_from_slice(&src[ip..ip + n]);
            ip += n;
        }
        Ok(())
    })
}

/// The cells of one block: the grid both cell filters walk.
pub(super) struct CellGrid {
    ndim: usize,
    /// Block shape, in items.
    block: [usize; MAX_DIM],
    /// Cell shape per dimension (NDCELL: the same edge everywhere; NDMEAN
    /// clips it to the block).
    cell: [usize; MAX_DIM],
    /// The edge that places a cell's origin (`edge * Σ ii[d] stride[d]`
    /// for cell `ii`). 3.3.5's NDMEAN uses its first dimension's cell edge
    /// for every dimension here, which this keeps.
    origin_edge: usize,
    /// Items in the block.
    nitems: usize,
}

/// Checks both cell filters make on the block geometry, in 3.3.5's order:
/// `ndim` in `1..=8`, every block dimension positive, and
/// `typesize * prod(blockshape) == length` (computed without overflow).
pub(super) fn check_block(b2nd: &Meta, typesize: usize, length: usize) -> Result<[usize; MAX_DIM]> {
    let ndim = b2nd.ndim();
    if ndim == 0 || ndim > MAX_DIM || b2nd.blockshape.len() != ndim {
        return Err(Error::Failure("cell filter: ndim out of range"));
    }
    if typesize == 0 {
        return Err(Error::Failure("cell filter: invalid typesize"));
    }
    let mut block = [1usize; MAX_DIM];
    let mut blocksize = typesize;
    for (d, &b) in b2nd.blockshape.iter().enumerate() {
        if b <= 0 {
            return Err(Error::Failure("cell filter: invalid blockshape"));
        }
        block[d] = b as usize;
        blocksize = blocksize
            .checked_mul(b as usize)
            .filter(|&s| s <= length)
            .ok_or(Error::Failure("cell filter: blockshape too large for the block"))?;
    }
    if blocksize != length {
        return Err(Error::Failure("cell filter: length not equal to blocksize"));
    }
    Ok(block)
}

impl CellGrid {
    /// NDCELL's grid, after NDCELL's checks: a cell edge `meta` > 0 and a
    /// cell (`meta^ndim` items) no larger than the block.
    fn for_ndcell(b2nd: &Meta, meta: u8, typesize: usize, length: usize) -> Result<CellGrid> {
        let ndim = b2nd.ndim();
        if ndim == 0 || ndim > MAX_DIM {
            return Err(Error::Failure("NDCELL: ndim out of range"));
        }
        if meta == 0 {
            return Err(Error::Failure("NDCELL: invalid cell shape"));
        }
        let edge = meta as usize;
        // 3.3.5 refuses cells whose item count overflows an int64.
        let mut cell_size: u64 = 1;
        for _ in 0..ndim {
            cell_size = cell_size
                .checked_mul(edge as u64)
                .filter(|&s| s <= i64::MAX as u64)
                .ok_or(Error::Failure("NDCELL: cell shape too large"))?;
        }
        let block = check_block(b2nd, typesize, length)?;
        if cell_size > (length / typesize) as u64 {
            return Err(Error::Failure("NDCELL: block smaller than the cell"));
        }
        Ok(CellGrid::new(ndim, block, [edge; MAX_DIM], edge))
    }

    /// A grid of `cell`-shaped cells over `block`, cell origins placed with
    /// `origin_edge`.
    pub(super) fn new(ndim: usize, block: [usize; MAX_DIM], cell: [usize; MAX_DIM], origin_edge: usize) -> CellGrid {
        let nitems = block[..ndim].iter().product();
        CellGrid {
            ndim,
            block,
            cell,
            origin_edge,
            nitems,
        }
    }

    /// Call `f` once per cell, in 3.3.5's order, with the cell's rows as
    /// `(first item, items)` runs of the block (in C order within the
    /// cell). Fails when a run would leave the block (only NDMEAN's
    /// origin quirk can place one there).
    pub(super) fn for_each_cell(&self, mut f: impl FnMut(&[(usize, usize)]) -> Result<()>) -> Result<()> {
        let nd = self.ndim;
        let mut ncells_dim = [1usize; MAX_DIM];
        let mut stride = [1usize; MAX_DIM];
        for d in (0..nd).rev() {
            ncells_dim[d] = self.block[d].div_ceil(self.cell[d]);
            if d + 1 < nd {
                stride[d] = stride[d + 1] * self.block[d + 1];
            }
        }
        let ncells: usize = ncells_dim[..nd].iter().product();
        let mut runs: Vec<(usize, usize)> = Vec::new();
        let mut ii = [0usize; MAX_DIM];
        let mut pad = [0usize; MAX_DIM];
        for _ in 0..ncells {
            let mut orig = 0usize;
            for d in 0..nd {
                let rem = self.block[d] % self.cell[d];
                pad[d] = if rem != 0 && ii[d] == ncells_dim[d] - 1 {
                    rem
                } else {
                    self.cell[d]
                };
                orig += ii[d] * self.origin_edge * stride[d];
            }
            // The rows of the cell: every position over the first ndim-1
            // dimensions of `pad`, C order.
            runs.clear();
            let row = pad[nd - 1];
            let mut kk = [0usize; MAX_DIM];
            loop {
                let mut start = orig;
                for d in 0..nd - 1 {
                    start += kk[d] * stride[d];
                }
                if start + row > self.nitems {
                    return Err(Error::Failure("cell outside the block"));
                }
                runs.push((start, row));
                if !next_index(&mut kk[..nd - 1], &pad[..nd - 1]) {
                    break;
                }
            }
            f(&runs)?;
            next_index(&mut ii[..nd], &ncells_dim[..nd]);
        }
        Ok(())
    }
}

/// Advance the C-order multi-index `idx` within `shape`; false when it
/// wraps around to all zeros.
fn next_index(idx: &mut [usize], shape: &[usize]) -> bool {
    for d in (0..idx.len()).rev() {
        idx[d] += 1;
        if idx[d] < shape[d] {
            return true;
        }
        idx[d] = 0;
    }
    false
}

#[cfg(test)]
pub(super) mod tests {
    use super::*;

    /// One case of `tests/corpus/plugins-nd/cases.txt`.
    pub(in crate::engine::plugins) struct Case {
        pub meta: u8,
        pub typesize: usize,
        pub b2nd: Meta,
        pub input: Vec<u8>,
        pub output: Option<Vec<u8>>,
        pub decoded: Option<Vec<u8>>,
    }

    /// The reference's vectors of one kind (`ndcell`, `ndmean`, `ndlz`).
    pub(in crate::engine::plugins) fn cases(kind: &str) -> Vec<Case> {
        let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/corpus/plugins-nd");
        let read = |name: &str| (name != "-").then(|| std::fs::read(dir.join(name)).unwrap());
        let list = std::fs::read_to_string(dir.join("cases.txt")).unwrap();
        let out: Vec<Case> = list
            .lines()
            .filter(|l| l.split(' ').next() == Some(kind))
            .map(|l| {
                let f: Vec<&str> = l.split(' ').collect();
                let blockshape: Vec<i32> = f[3].split(',').map(|s| s.parse().unwrap()).collect();
                Case {
                    meta: f[1].parse().unwrap(),
                    typesize: f[2].parse().unwrap(),
                    b2nd: meta_for(&blockshape),
                    input: read(f[4]).unwrap(),
                    output: read(f[5]),
                    decoded: read(f[6]),
                }
            })
            .collect();
        assert!(!out.is_empty());
        out
    }

    /// A `b2nd` metalayer whose array is one block of `blockshape`.
    pub(in crate::engine::plugins) fn meta_for(blockshape: &[i32]) -> Meta {
        Meta {
            shape: blockshape.iter().map(|&b| b as i64).collect(),
            chunkshape: blockshape.to_vec(),
            blockshape: blockshape.to_vec(),
            dtype: None,
            dtype_format: 0,
        }
    }

    /// One direction of a cell filter: `(src, dst, meta, typesize, b2nd)`.
    pub(in crate::engine::plugins) type Step = fn(&[u8], &mut [u8], u8, usize, &Meta) -> Result<()>;

    /// Run the reference's vectors of `kind` through `forward` (output
    /// byte for byte) and, unless `forward_only`, `backward` (the decoded
    /// vector when the case has one, else the input).
    pub(in crate::engine::plugins) fn check_reference(kind: &str, forward: Step, backward: Step, forward_only: bool) {
        for c in cases(kind) {
            let mut fwd = vec![0u8; c.input.len()];
            forward(&c.input, &mut fwd, c.meta, c.typesize, &c.b2nd).unwrap();
            let want = c.output.as_ref().unwrap();
            assert!(fwd == *want, "{kind} forward {:?} meta {}", c.b2nd.blockshape, c.meta);
            if forward_only {
                continue;
            }
            let mut back = vec![0u8; c.input.len()];
            backward(&fwd, &mut back, c.meta, c.typesize, &c.b2nd).unwrap();
            let want = c.decoded.as_ref().unwrap_or(&c.input);
            assert!(back == *want, "{kind} backward {:?} meta {}", c.b2nd.blockshape, c.meta);
        }
    }

    #[test]
    fn matches_the_reference() {
        check_reference("ndcell", forward, backward, false);
    }

    #[test]
    fn refuses_what_the_reference_refuses() {
        let m = meta_for(&[8, 8]);
        let src = vec![1u8; 256];
        let mut dst = vec![0u8; 256];
        // Cell edge 0, a cell larger than the block (9x9 > 8x8).
        assert!(forward(&src, &mut dst, 0, 4, &m).is_err());
        assert!(backward(&src, &mut dst, 0, 4, &m).is_err());
        assert!(forward(&src, &mut dst, 9, 4, &m).is_err());
        assert!(backward(&src, &mut dst, 9, 4, &m).is_err());
        // A length that is not the block's, typesize 0.
        assert!(forward(&src[..255], &mut dst, 4, 4, &m).is_err());
        assert!(forward(&src, &mut dst, 4, 0, &m).is_err());
        assert!(backward(&src, &mut dst, 4, 8, &m).is_err());
        // ndim 0, 9; non-positive and huge block dimensions; a small output.
        assert!(forward(&src, &mut dst, 4, 4, &meta_for(&[])).is_err());
        assert!(forward(&src, &mut dst, 1, 4, &meta_for(&[1, 1, 1, 1, 1, 1, 1, 1, 64])).is_err());
        assert!(forward(&src, &mut dst, 4, 4, &meta_for(&[-8, -8])).is_err());
        assert!(backward(&src, &mut dst, 2, 4, &meta_for(&[i32::MAX, i32::MAX, 0])).is_err());
        assert!(forward(&src, &mut dst[..100], 4, 4, &m).is_err());
        // 255^8 items overflow an int64: refused, not wrapped.
        let big = meta_for(&[1, 1, 1, 1, 1, 1, 1, 256]);
        assert!(forward(&src, &mut dst, 255, 1, &big).is_err());
    }

    #[test]
    fn round_trips_any_geometry() {
        let mut seed = 7u32;
        let mut rnd = move |n: u32| {
            seed = seed.wrapping_mul(1_103_515_245).wrapping_add(12345);
            (seed >> 16) % n
        };
        for _ in 0..300 {
            let ndim = 1 + rnd(5) as usize;
            let shape: Vec<i32> = (0..ndim).map(|_| 1 + rnd(7) as i32).collect();
            let typesize = 1 + rnd(8) as usize;
            let meta = 1 + rnd(4) as u8;
            let m = meta_for(&shape);
            let n = shape.iter().product::<i32>() as usize * typesize;
            let src: Vec<u8> = (0..n).map(|_| rnd(256) as u8).collect();
            let mut fwd = vec![0u8; n];
            let mut back = vec![0u8; n];
            let cell_items = (meta as usize).pow(ndim as u32);
            if forward(&src, &mut fwd, meta, typesize, &m).is_err() {
                assert!(cell_items > n / typesize);
                continue;
            }
            backward(&fwd, &mut back, meta, typesize, &m).unwrap();
            assert_eq!(back, src);
        }
    }
}
