//! The geometry of an array: shapes, padded shapes, item counts and the
//! strides `b2nd_array_t` publishes, computed as 3.3.5's
//! `update_shape_struct` does, with every product checked.

use super::MAX_DIM;
use crate::engine::constants::MAX_BUFFERSIZE;
use crate::engine::error::{Error, Result};

/// Shapes and derived quantities of an array. Entries past `ndim` are 1
/// (shapes) or 0 (strides).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Geometry {
    /// Number of dimensions (0 to 16).
    pub ndim: usize,
    /// Shape.
    pub shape: [i64; MAX_DIM],
    /// Chunk shape.
    pub chunkshape: [i32; MAX_DIM],
    /// Block shape.
    pub blockshape: [i32; MAX_DIM],
    /// Shape rounded up to whole chunks.
    pub extshape: [i64; MAX_DIM],
    /// Chunk shape rounded up to whole blocks.
    pub extchunkshape: [i64; MAX_DIM],
    /// Items in the array.
    pub nitems: i64,
    /// Items in a chunk.
    pub chunknitems: i32,
    /// Items in the extended shape.
    pub extnitems: i64,
    /// Items in a block.
    pub blocknitems: i32,
    /// Items in an extended chunk (what a stored chunk holds).
    pub extchunknitems: i64,
    /// Item strides in the array.
    pub item_array_strides: [i64; MAX_DIM],
    /// Item strides in a chunk.
    pub item_chunk_strides: [i64; MAX_DIM],
    /// Item strides in an extended chunk.
    pub item_extchunk_strides: [i64; MAX_DIM],
    /// Item strides in a block.
    pub item_block_strides: [i64; MAX_DIM],
    /// Block strides in an extended chunk.
    pub block_chunk_strides: [i64; MAX_DIM],
    /// What 3.3.5 stores as `chunk_array_strides` (its formula multiplies
    /// where a division was meant; kept for clients reading the field,
    /// not used here).
    pub chunk_array_strides: [i64; MAX_DIM],
}

fn mul_i64(a: i64, b: i64) -> Result<i64> {
    if a < 0 || b < 0 {
        return Err(Error::InvalidParam("negative shape"));
    }
    a.checked_mul(b)
        .ok_or(Error::InvalidParam("shape, chunkshape or blockshape product overflows"))
}

fn mul_i32(a: i32, b: i32) -> Result<i32> {
    if a < 0 || b < 0 {
        return Err(Error::InvalidParam("negative shape"));
    }
    a.checked_mul(b)
        .ok_or(Error::InvalidParam("chunkshape or blockshape product overflows"))
}

/// 3.3.5's `validate_shape_chunkshape_blockshape`: no negative entries,
/// and a zero block dimension only with a zero chunk dimension. Also
/// refuses a non-empty dimension without chunks or blocks, which 3.3.5
/// lets through to a division by zero.
pub fn validate(shape: &[i64], chunkshape: &[i32], blockshape: &[i32]) -> Result<()> {
    validate_for_context(shape, chunkshape, blockshape)?;
    if shape.iter().zip(chunkshape).any(|(&s, &c)| s != 0 && c == 0) {
        return Err(Error::InvalidParam(
            "chunkshape cannot be zero for a non-empty dimension",
        ));
    }
    Ok(())
}

/// The checks 3.3.5's `b2nd_create_ctx` makes: lenient about a zero
/// chunkshape on a non-empty dimension, since a context may only serve
/// empty slices (`example_empty_shape.c`). Arrays made from such a context
/// still go through [`validate`].
pub fn validate_for_context(shape: &[i64], chunkshape: &[i32], blockshape: &[i32]) -> Result<()> {
    let ndim = shape.len();
    if ndim > MAX_DIM || chunkshape.len() != ndim || blockshape.len() != ndim {
        return Err(Error::InvalidParam("ndim must be in [0, 16]"));
    }
    for i in 0..ndim {
        if shape[i] < 0 {
            return Err(Error::InvalidParam("shape cannot be negative"));
        }
        if chunkshape[i] < 0 || blockshape[i] < 0 {
            return Err(Error::InvalidParam("chunkshape and blockshape cannot be negative"));
        }
        if blockshape[i] == 0 && chunkshape[i] != 0 {
            return Err(Error::InvalidParam("blockshape cannot be zero when chunkshape is not"));
        }
    }
    Ok(())
}

impl Geometry {
    /// The geometry of an array of `shape` cut in `chunkshape` chunks of
    /// `blockshape` blocks (all of the same length, at most 16).
    pub fn new(shape: &[i64], chunkshape: &[i32], blockshape: &[i32]) -> Result<Geometry> {
        validate(shape, chunkshape, blockshape)?;
        let ndim = shape.len();
        let mut g = Geometry {
            ndim,
            shape: [1; MAX_DIM],
            chunkshape: [1; MAX_DIM],
            blockshape: [1; MAX_DIM],
            extshape: [1; MAX_DIM],
            extchunkshape: [1; MAX_DIM],
            nitems: 1,
            chunknitems: 1,
            extnitems: 1,
            blocknitems: 1,
            extchunknitems: 1,
            item_array_strides: [0; MAX_DIM],
            item_chunk_strides: [0; MAX_DIM],
            item_extchunk_strides: [0; MAX_DIM],
            item_block_strides: [0; MAX_DIM],
            block_chunk_strides: [0; MAX_DIM],
            chunk_array_strides: [0; MAX_DIM],
        };
        for i in 0..ndim {
            let (s, c, b) = (shape[i], chunkshape[i], blockshape[i]);
            g.shape[i] = s;
            g.chunkshape[i] = c;
            g.blockshape[i] = b;
            if c != 0 {
                let c64 = i64::from(c);
                g.extshape[i] = if s % c64 == 0 {
                    s
                } else {
                    s.checked_add(c64 - s % c64)
                        .ok_or(Error::InvalidParam("shape too large to round up to chunkshape"))?
                };
                let b64 = i64::from(b);
                g.extchunkshape[i] = if c64 % b64 == 0 { c64 } else { c64 + b64 - c64 % b64 };
            } else {
                g.extchunkshape[i] = 0;
                g.extshape[i] = 0;
            }
        }
        for i in 0..MAX_DIM {
            g.nitems = mul_i64(g.nitems, g.shape[i])?;
            g.extnitems = mul_i64(g.extnitems, g.extshape[i])?;
            g.extchunknitems = mul_i64(g.extchunknitems, g.extchunkshape[i])?;
            g.chunknitems = mul_i32(g.chunknitems, g.chunkshape[i])?;
            g.blocknitems = mul_i32(g.blocknitems, g.blockshape[i])?;
        }
        if ndim > 0 {
            let l = ndim - 1;
            g.item_array_strides[l] = 1;
            g.item_extchunk_strides[l] = 1;
            g.item_chunk_strides[l] = 1;
            g.item_block_strides[l] = 1;
            g.block_chunk_strides[l] = 1;
            g.chunk_array_strides[l] = 1;
        }
        for i in (0..ndim.saturating_sub(1)).rev() {
            let n = i + 1;
            if g.shape[n] != 0 && g.chunkshape[n] != 0 && g.blockshape[n] != 0 {
                // Bounded by the checked item counts above, except the
                // chunk_array_strides formula, which may wrap as in C.
                g.item_array_strides[i] = g.item_array_strides[n].wrapping_mul(g.shape[n]);
                g.item_extchunk_strides[i] = g.item_extchunk_strides[n].wrapping_mul(g.extchunkshape[n]);
                g.item_chunk_strides[i] = g.item_chunk_strides[n].wrapping_mul(i64::from(g.chunkshape[n]));
                g.item_block_strides[i] = g.item_block_strides[n].wrapping_mul(i64::from(g.blockshape[n]));
                g.block_chunk_strides[i] =
                    g.block_chunk_strides[n].wrapping_mul(g.extchunkshape[n] / i64::from(g.blockshape[n]));
                g.chunk_array_strides[i] =
                    g.chunk_array_strides[n].wrapping_mul(g.extshape[n].wrapping_mul(i64::from(g.chunkshape[n])));
            }
        }
        Ok(g)
    }

    /// The shape, `ndim` entries.
    pub fn shape(&self) -> &[i64] {
        &self.shape[..self.ndim]
    }

    /// The chunk shape, `ndim` entries.
    pub fn chunkshape(&self) -> &[i32] {
        &self.chunkshape[..self.ndim]
    }

    /// The block shape, `ndim` entries.
    pub fn blockshape(&self) -> &[i32] {
        &self.blockshape[..self.ndim]
    }

    /// The same chunk and block shapes over another shape.
    pub fn with_shape(&self, shape: &[i64]) -> Result<Geometry> {
        if shape.len() != self.ndim {
            return Err(Error::InvalidParam("shape has the wrong number of dimensions"));
        }
        Geometry::new(shape, self.chunkshape(), self.blockshape())
    }

    /// Chunks along dimension `i`.
    pub fn chunks_in_dim(&self, i: usize) -> i64 {
        match self.chunkshape[i] {
            0 => 0,
            c => self.extshape[i] / i64::from(c),
        }
    }

    /// Blocks along dimension `i` of a chunk.
    pub fn blocks_in_dim(&self, i: usize) -> i64 {
        match self.blockshape[i] {
            0 => 0,
            b => self.extchunkshape[i] / i64::from(b),
        }
    }

    /// Number of chunks the super-chunk holds (`extnitems / chunknitems`).
    pub fn nchunks(&self) -> i64 {
        if self.chunknitems == 0 {
            0
        } else {
            self.extnitems / i64::from(self.chunknitems)
        }
    }

    /// Blocks in a chunk.
    pub fn nblocks(&self) -> i64 {
        if self.blocknitems == 0 {
            0
        } else {
            self.extchunknitems / i64::from(self.blocknitems)
        }
    }

    /// Bytes in a stored (extended) chunk of items of `typesize` bytes;
    /// refused beyond what a chunk can hold (`BLOSC2_MAX_BUFFERSIZE`).
    pub fn chunk_nbytes(&self, typesize: i32) -> Result<i32> {
        let n = mul_i64(self.extchunknitems, i64::from(typesize))?;
        if n > i64::from(MAX_BUFFERSIZE) {
            return Err(Error::MaxBufsizeExceeded);
        }
        Ok(n as i32)
    }

    /// Bytes in a block.
    pub fn block_nbytes(&self, typesize: i32) -> Result<usize> {
        Ok(mul_i64(i64::from(self.blocknitems), i64::from(typesize))? as usize)
    }

    /// Index of the chunk at chunk coordinates `c` (C order).
    pub fn chunk_index(&self, c: &[i64]) -> i64 {
        let mut n = 0i64;
        for (i, &ci) in c.iter().enumerate().take(self.ndim) {
            n = n * self.chunks_in_dim(i) + ci;
        }
        n
    }

    /// Chunk coordinates of chunk `n`.
    pub fn chunk_coords(&self, n: i64) -> [i64; MAX_DIM] {
        let mut out = [0i64; MAX_DIM];
        let mut rest = n;
        for i in (0..self.ndim).rev() {
            let d = self.chunks_in_dim(i);
            if d > 0 {
                out[i] = rest % d;
                rest /= d;
            }
        }
        out
    }
}
