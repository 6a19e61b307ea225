//! The NDMEAN filter (id 33) of C-Blosc2 3.3.5, lossy.
//!
//! NDMEAN walks one block of a float32/float64 b2nd array cell by cell, as
//! NDCELL does (cells of `meta` items per side, each side clipped to the
//! block's), and writes for every item of a cell the cell's mean: the
//! output is cell-ordered, each cell a run of one repeated value, which
//! the codec then packs. `backward` only scatters the cells back into C
//! order; the means stay.
//!
//! The mean is 3.3.5's exactly: items added in walk order in the item's
//! own precision, then divided by the cell's item count. Cell origins use
//! the first dimension's (clipped) edge for every dimension, as 3.3.5
//! does: with a cell larger than the first block dimension but not all of
//! them, cells overlap and some items are in none (3.3.5 cannot read such
//! arrays back; the forward output is still its own, byte for byte).

use super::ndcell::{check_block, scatter, CellGrid, MAX_DIM};
use crate::engine::b2nd::meta::Meta;
use crate::engine::error::{Error, Result};

/// Replace every item of each cell by the cell's mean, cell by cell
/// (`ndmean_forward`). `typesize` (of the compression parameters) must be
/// 4 (float32) or 8 (float64).
pub fn forward(src: &[u8], dst: &mut [u8], meta: u8, typesize: usize, b2nd: &Meta) -> Result<()> {
    check_ndim(b2nd)?;
    if typesize != 4 && typesize != 8 {
        return Err(Error::Failure("NDMEAN: only float32 and float64"));
    }
    let grid = grid(b2nd, meta, typesize, src.len())?;
    let dst = dst
        .get_mut(..src.len())
        .ok_or(Error::Failure("NDMEAN: output smaller than the block"))?;
    let mut op = 0;
    grid.for_each_cell(|runs| {
        let items: usize = runs.iter().map(|r| r.1).sum();
        let n = items * typesize;
        let out = &mut dst[op..op + n];
        if typesize == 4 {
            let mut sum = 0f32;
            for &(start, len) in runs {
                for v in src[start * 4..(start + len) * 4].chunks_exact(4) {
                    sum += f32::from_le_bytes([v[0], v[1], v[2], v[3]]);
                }
            }
            let mean = (sum / items as f32).to_le_bytes();
            for o in out.chunks_exact_mut(4) {
                o.copy_from_slice(&mean);
            }
        } else {
            let mut sum = 0f64;
            for &(start, len) in runs {
                for v in src[start * 8..(start + len) * 8].chunks_exact(8) {
                    sum += f64::from_le_bytes([v[0], v[1], v[2], v[3], v[4], v[5], v[6], v[7]]);
                }
            }
            let mean = (sum / items as f64).to_le_bytes();
            for o in out.chunks_exact_mut(8) {
                o.copy_from_slice(&mean);
            }
        }
        op += n;
        Ok(())
    })
}

/// Put the cells of `src` back in C order (`ndmean_backward`). `typesize`
/// is the super-chunk's; 3.3.5 reads it as an `int8_t`.
pub fn backward(src: &[u8], dst: &mut [u8], meta: u8, typesize: usize, b2nd: &Meta) -> Result<()> {
    check_ndim(b2nd)?;
    let typesize = typesize as u8 as i8;
    if typesize <= 0 {
        return Err(Error::Failure("NDMEAN: invalid typesize"));
    }
    let typesize = typesize as usize;
    let grid = grid(b2nd, meta, typesize, src.len())?;
    scatter(&grid, src, dst, typesize)
}

fn check_ndim(b2nd: &Meta) -> Result<()> {
    if b2nd.ndim() == 0 || b2nd.ndim() > MAX_DIM {
        return Err(Error::Failure("NDMEAN: ndim out of range"));
    }
    Ok(())
}

/// NDMEAN's cells: edge `meta` (read as an `int8_t`, so 1..=127), clipped
/// per dimension to the block.
fn grid(b2nd: &Meta, meta: u8, typesize: usize, length: usize) -> Result<CellGrid> {
    let edge = meta as i8;
    if edge <= 0 {
        return Err(Error::Failure("NDMEAN: invalid cell shape"));
    }
    let block = check_block(b2nd, typesize, length)?;
    let ndim = b2nd.ndim();
    let mut cell = [1usize; MAX_DIM];
    for d in 0..ndim {
        cell[d] = (edge as usize).min(block[d]);
    }
    Ok(CellGrid::new(ndim, block, cell, cell[0]))
}

#[cfg(test)]
mod tests {
    use super::super::ndcell::tests::{check_reference, meta_for};
    use super::*;

    #[test]
    fn matches_the_reference() {
        check_reference("ndmean", forward, backward, false);
    }

    #[test]
    fn refuses_what_the_reference_refuses() {
        let m = meta_for(&[8, 8]);
        let src = vec![0u8; 256];
        let mut dst = vec![0u8; 256];
        // Integer typesizes, cell edge 0 and >= 128, ndim 0 and 9.
        assert!(forward(&src, &mut dst, 4, 2, &meta_for(&[8, 16])).is_err());
        assert!(forward(&src, &mut dst, 4, 1, &meta_for(&[16, 16])).is_err());
        assert!(forward(&src, &mut dst, 0, 4, &m).is_err());
        assert!(backward(&src, &mut dst, 0, 4, &m).is_err());
        assert!(forward(&src, &mut dst, 128, 4, &m).is_err());
        assert!(backward(&src, &mut dst, 200, 4, &m).is_err());
        assert!(forward(&src, &mut dst, 4, 4, &meta_for(&[])).is_err());
        assert!(forward(&src, &mut dst, 4, 4, &meta_for(&[1, 1, 1, 1, 1, 1, 1, 1, 64])).is_err());
        // Block geometry that is not the buffer's.
        assert!(forward(&src, &mut dst, 4, 4, &meta_for(&[8, 9])).is_err());
        assert!(backward(&src, &mut dst, 4, 4, &meta_for(&[0, 8])).is_err());
        assert!(backward(&src, &mut dst, 4, 128, &m).is_err());
        assert!(forward(&src, &mut dst[..10], 4, 4, &m).is_err());
    }

    #[test]
    fn cell_origin_quirk_as_the_reference() {
        // Block 2x8, cell 4: clipped to 2x4 but placed with edge 2 along the
        // second dimension too, so the two cells overlap.
        check_reference("ndmean-quirk", forward, backward, true);
    }

    #[test]
    fn means_of_whole_cells() {
        let vals: Vec<f64> = (0..16).map(|i| i as f64).collect();
        let src: Vec<u8> = vals.iter().flat_map(|v| v.to_le_bytes()).collect();
        let mut fwd = vec![0u8; src.len()];
        forward(&src, &mut fwd, 2, 8, &meta_for(&[4, 4])).unwrap();
        let got: Vec<f64> = fwd
            .chunks_exact(8)
            .map(|c| f64::from_le_bytes(c.try_into().unwrap()))
            .collect();
        // Cell (0,0) holds 0,1,4,5: mean 2.5.
        assert_eq!(&got[..4], &[2.5; 4]);
        assert_eq!(&got[12..], &[12.5; 4]);
    }
}
