//! The blocks of one chunk of a region being written, gathered one at a
//! time from the caller's buffer: for a chunk the region covers, by the
//! worker compressing the block (no chunk-sized staging buffer is filled
//! and read back); for one it covers in part, into the decoded chunk.

use super::copy::{copy_buffer, for_each_row};
use super::slice::Region;
use super::MAX_DIM;
use crate::engine::chunk::compress::BlockSource;
use crate::engine::error::Result;
use crate::engine::filters::shuffle;
use crate::engine::prefetch::prefetch_read;

/// How many buffer rows ahead of the row being shuffled the gather
/// prefetches: a 4 KiB page ahead for 1 KiB buffer rows.
const PREFETCH_ROWS: usize = 4;

/// Where a block sits and which part of the region falls in it: the
/// block's first item and the region's part `[s0, s1)`, in array
/// coordinates.
pub(super) type BlockPart = ([i64; MAX_DIM], [i64; MAX_DIM], [i64; MAX_DIM]);

/// One chunk of a region to write, block by block.
pub(super) struct RegionBlocks<'a> {
    pub nd: usize,
    pub itemsize: usize,
    /// The caller's buffer and its shape.
    pub buffer: &'a [u8],
    pub bufshape: &'a [i64],
    pub blockshape: &'a [i64],
    pub region: Region,
    /// The chunk's first item and its end (clipped to the array), in
    /// array coordinates.
    pub chunk_start: [i64; MAX_DIM],
    pub chunk_stop: [i64; MAX_DIM],
    /// Blocks of the chunk along each dimension, and in all.
    pub blocks_in_dim: [i64; MAX_DIM],
    pub nblocks: usize,
    pub block_len: usize,
}

impl RegionBlocks<'_> {
    /// Where block `j` sits and the region's part in it; None when the
    /// region misses it. Worked out per block rather than kept for every
    /// block of the chunk: a hostile header with blocks of one item made a
    /// table of the chunk's millions of blocks take 1.7 GB (fuzz).
    fn part(&self, j: usize) -> Option<BlockPart> {
        if j >= self.nblocks {
            return None;
        }
        let mut rest = j as i64;
        let (mut bstart, mut s0, mut s1) = ([0i64; MAX_DIM], [0i64; MAX_DIM], [0i64; MAX_DIM]);
        for i in (0..self.nd).rev() {
            if self.blocks_in_dim[i] <= 0 {
                return None;
            }
            let bc = rest % self.blocks_in_dim[i];
            rest /= self.blocks_in_dim[i];
            let bs = self.blockshape[i];
            bstart[i] = self.chunk_start[i] + bc * bs;
            (s0[i], s1[i]) = self.region.part_in_block(i, bstart[i], bs, self.chunk_stop[i]);
            if s0[i] >= s1[i] {
                return None;
            }
        }
        Some((bstart, s0, s1))
    }

    /// The region's part in block `j` as a copy between the caller's
    /// buffer and the block: the part's start and stop in the buffer, and
    /// its start in the block; `None` when the region misses the block.
    fn block_part(&self, j: usize) -> Option<[[i64; MAX_DIM]; 3]> {
        let (bstart, s0, s1) = self.part(j)?;
        let mut part = [[0i64; MAX_DIM]; 3];
        for i in 0..self.nd {
            part[0][i] = s0[i] - self.region.start[i];
            part[1][i] = s1[i] - self.region.start[i];
            part[2][i] = s0[i] - bstart[i];
        }
        Some(part)
    }

    /// Copy the region's part in block `j` into `dst` (the block), leaving
    /// its other bytes as they are.
    pub fn copy_into(&self, j: usize, dst: &mut [u8]) -> Result<()> {
        let Some([src_start, src_stop, dst_start]) = self.block_part(j) else {
            return Ok(());
        };
        let nd = self.nd;
        copy_buffer(
            nd,
            self.itemsize,
            self.buffer,
            self.bufshape,
            &src_start[..nd],
            &src_stop[..nd],
            dst,
            self.blockshape,
            &dst_start[..nd],
        )
    }
}

/// A chunk the region covers: each block is the region's part, padding
/// (items past the array's shape or the chunk's) zeros, as 3.3.5 writes a
/// chunk it rebuilds from a zeroed buffer.
impl BlockSource for RegionBlocks<'_> {
    fn nbytes(&self) -> usize {
        self.nblocks * self.block_len
    }

    fn block_len(&self) -> usize {
        self.block_len
    }

    fn fill_block(&self, j: usize, out: &mut [u8]) -> Result<()> {
        if !self.covers_block(j) {
            out.fill(0);
        }
        self.copy_into(j, out)
    }

    /// A block the region covers whole is shuffled row by row straight
    /// from the caller's buffer, when each row is whole shuffle items the
    /// SIMD kernel takes 32 at a time; saves writing the gathered block
    /// and reading it back. Other blocks (padding, short rows) are
    /// gathered first.
    fn fill_block_shuffled(&self, j: usize, width: usize, out: &mut [u8]) -> Result<bool> {
        let nd = self.nd;
        let row_len = self
            .blockshape
            .get(nd.wrapping_sub(1))
            .map_or(0, |&r| r as usize * self.itemsize);
        if nd == 0
            || !self.itemsize.is_multiple_of(width)
            || !row_len.is_multiple_of(32 * width)
            || out.len() != self.block_len
            || !self.block_len.is_multiple_of(width)
            || !shuffle::run_has_simd(width)
            || !self.covers_block(j)
        {
            return Ok(false);
        }
        let Some([src_start, src_stop, dst_start]) = self.block_part(j) else {
            return Ok(false);
        };
        let n = self.block_len / width;
        let buffer_row = self.bufshape[nd - 1] as usize * self.itemsize;
        for_each_row(
            nd,
            self.itemsize,
            self.buffer,
            self.bufshape,
            &src_start[..nd],
            &src_stop[..nd],
            out.len(),
            self.blockshape,
            &dst_start[..nd],
            |row, at| {
                // The row a few buffer rows further on (next page's rows).
                let here = row.as_ptr() as usize - self.buffer.as_ptr() as usize;
                prefetch_read(self.buffer, here + PREFETCH_ROWS * buffer_row, row.len());
                shuffle::shuffle_run(width, n, at / width, row, out)
            },
        )?;
        Ok(true)
    }
}

impl RegionBlocks<'_> {
    /// Whether the region covers block `j` whole (no padding to zero).
    fn covers_block(&self, j: usize) -> bool {
        match self.part(j) {
            Some((_, s0, s1)) => (0..self.nd).all(|i| s1[i] - s0[i] == self.blockshape[i]),
            None => false,
        }
    }
}
