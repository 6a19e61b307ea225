//! Hyper-rectangular slices: reading them into and writing them from C
//! buffers (`b2nd_get_slice_cbuffer`, `b2nd_set_slice_cbuffer`,
//! `b2nd_to_cbuffer`), touching only the chunks and blocks involved.

use std::borrow::BorrowMut;
use std::sync::Mutex;

use super::copy::{copy_buffer, nitems};
use super::gather::RegionBlocks;
use super::{Array, MAX_DIM};
use crate::engine::bulk;
use crate::engine::error::{Error, Result};
use crate::engine::schunk::SChunk;

/// A checked slice `[start, stop)` of an array.
#[derive(Clone, Copy)]
pub(super) struct Region {
    pub start: [i64; MAX_DIM],
    pub stop: [i64; MAX_DIM],
}

impl Region {
    /// Along dimension `i`, the region's part `[s0, s1)` of the block that
    /// starts at `bstart` and spans `bs` items, clipped to the chunk's end
    /// `chunk_stop`; empty when `s0 >= s1`.
    pub(super) fn part_in_block(&self, i: usize, bstart: i64, bs: i64, chunk_stop: i64) -> (i64, i64) {
        let bstop = (bstart + bs).min(chunk_stop);
        (self.start[i].max(bstart), self.stop[i].min(bstop))
    }
}

/// Iterate over all index tuples in `lo[i]..=hi[i]` (C order).
pub(super) fn for_each_index(
    ndim: usize,
    lo: &[i64; MAX_DIM],
    hi: &[i64; MAX_DIM],
    mut f: impl FnMut(&[i64; MAX_DIM]) -> Result<()>,
) -> Result<()> {
    if (0..ndim).any(|i| hi[i] < lo[i]) {
        return Ok(());
    }
    let mut idx = *lo;
    loop {
        f(&idx)?;
        let mut i = ndim;
        loop {
            if i == 0 {
                return Ok(());
            }
            i -= 1;
            idx[i] += 1;
            if idx[i] <= hi[i] {
                break;
            }
            idx[i] = lo[i];
        }
    }
}

/// The blocks of one chunk a region touches.
struct ChunkPart {
    nchunk: i64,
    chunk_start: [i64; MAX_DIM],
    chunk_stop: [i64; MAX_DIM],
    /// Block coordinates range, inclusive.
    blo: [i64; MAX_DIM],
    bhi: [i64; MAX_DIM],
    /// The region covers the whole (clipped) chunk.
    covered: bool,
}

impl ChunkPart {
    fn nblocks(&self, ndim: usize) -> i64 {
        (0..ndim).map(|i| self.bhi[i] - self.blo[i] + 1).product()
    }
}

impl<S: BorrowMut<SChunk>> Array<S> {
    /// Check `start`/`stop` against the shape and `buffershape`, and the
    /// buffer length against `buffershape`.
    pub(super) fn region(&self, start: &[i64], stop: &[i64], buffershape: &[i64], buflen: usize) -> Result<Region> {
        self.check_dims(&[start, stop, buffershape])?;
        let g = &self.geom;
        let mut r = Region {
            start: [0; MAX_DIM],
            stop: [0; MAX_DIM],
        };
        for i in 0..g.ndim {
            if start[i] < 0 || stop[i] < start[i] || stop[i] > g.shape[i] {
                return Err(Error::InvalidParam("slice outside the array"));
            }
            if stop[i] - start[i] > buffershape[i] {
                return Err(Error::InvalidParam(
                    "the buffer shape cannot be smaller than the slice shape",
                ));
            }
            r.start[i] = start[i];
            r.stop[i] = stop[i];
        }
        let need = nitems(&buffershape[..g.ndim])?
            .checked_mul(i64::from(self.typesize()))
            .ok_or(Error::InvalidParam("buffer shape too large"))?;
        if (buflen as u64) < need as u64 {
            return Err(Error::InvalidParam("buffer smaller than its shape"));
        }
        Ok(r)
    }

    /// The chunks (and their blocks) a non-empty region touches, in the
    /// order 3.3.5 visits them.
    fn parts(&mut self, r: &Region, mut f: impl FnMut(&mut Self, ChunkPart) -> Result<()>) -> Result<()> {
        let g = self.geom.clone();
        let nd = g.ndim;
        let mut lo = [0i64; MAX_DIM];
        let mut hi = [0i64; MAX_DIM];
        for i in 0..nd {
            let cs = i64::from(g.chunkshape[i]);
            lo[i] = r.start[i] / cs;
            hi[i] = (r.stop[i] - 1) / cs;
        }
        for_each_index(nd, &lo, &hi, |cc| {
            let mut p = ChunkPart {
                nchunk: g.chunk_index(&cc[..nd]),
                chunk_start: [0; MAX_DIM],
                chunk_stop: [0; MAX_DIM],
                blo: [0; MAX_DIM],
                bhi: [0; MAX_DIM],
                covered: true,
            };
            for i in 0..nd {
                let cs = i64::from(g.chunkshape[i]);
                let bs = i64::from(g.blockshape[i]);
                p.chunk_start[i] = cc[i] * cs;
                p.chunk_stop[i] = (p.chunk_start[i] + cs).min(g.shape[i]);
                let s0 = r.start[i].max(p.chunk_start[i]);
                let s1 = r.stop[i].min(p.chunk_stop[i]);
                p.blo[i] = (s0 - p.chunk_start[i]) / bs;
                p.bhi[i] = (s1 - 1 - p.chunk_start[i]) / bs;
                p.covered &= p.chunk_start[i] >= r.start[i] && p.chunk_stop[i] <= r.stop[i];
            }
            f(self, p)
        })
    }

    /// For each block `bc` of `p`: its linear index in the chunk and the
    /// part of the region inside it (absolute coordinates).
    fn blocks_of(
        &self,
        p: &ChunkPart,
        r: &Region,
        mut f: impl FnMut(i64, &[i64; MAX_DIM], &[i64; MAX_DIM], &[i64; MAX_DIM]) -> Result<()>,
    ) -> Result<()> {
        let g = &self.geom;
        let nd = g.ndim;
        for_each_index(nd, &p.blo, &p.bhi, |bc| {
            let mut nblock = 0i64;
            let mut bstart = [0i64; MAX_DIM];
            let mut s0 = [0i64; MAX_DIM];
            let mut s1 = [0i64; MAX_DIM];
            for i in 0..nd {
                let bs = i64::from(g.blockshape[i]);
                nblock = nblock * g.blocks_in_dim(i) + bc[i];
                bstart[i] = p.chunk_start[i] + bc[i] * bs;
                (s0[i], s1[i]) = r.part_in_block(i, bstart[i], bs, p.chunk_stop[i]);
            }
            f(nblock, &bstart, &s0, &s1)
        })
    }

    /// 3.3.5's fast path: the region is exactly one whole chunk stored in
    /// C order (blocks split only the first dimensions), and the buffer
    /// has the region's shape. Returns the chunk index.
    fn whole_chunk(&self, r: &Region, buffershape: &[i64]) -> Option<i64> {
        let g = &self.geom;
        let mut k = 0usize;
        let mut coords = [0i64; MAX_DIM];
        for i in 0..g.ndim {
            let cs = i64::from(g.chunkshape[i]);
            let bs = i64::from(g.blockshape[i]);
            if r.start[i] % cs != 0 || r.stop[i] - r.start[i] != cs || buffershape[i] != cs || cs % bs != 0 {
                return None;
            }
            if i > k && cs != bs {
                return None;
            }
            if i == k && bs == 1 {
                k += 1;
            }
            coords[i] = r.start[i] / cs;
        }
        Some(g.chunk_index(&coords[..g.ndim]))
    }

    /// Read the slice `[start, stop)` into `buffer`, a C-order buffer of
    /// `buffershape` (at least the slice's shape) whose unread parts are
    /// zeroed (`b2nd_get_slice_cbuffer`). On an error the buffer is left
    /// all zeros.
    pub fn get_slice_buffer(
        &mut self,
        start: &[i64],
        stop: &[i64],
        buffer: &mut [u8],
        buffershape: &[i64],
    ) -> Result<()> {
        let read = self.read_slice(start, stop, buffer, buffershape);
        if read.is_err() {
            bulk::zero(buffer);
        }
        read
    }

    /// [`Array::get_slice_buffer`], but for the zeros on error.
    fn read_slice(&mut self, start: &[i64], stop: &[i64], buffer: &mut [u8], buffershape: &[i64]) -> Result<()> {
        self.refresh()?;
        let ts = self.itemsize()?;
        if self.geom.ndim == 0 {
            bulk::zero(buffer);
            let dest = buffer
                .get_mut(..ts)
                .ok_or(Error::InvalidParam("buffer smaller than one item"))?;
            let got = self.sc.borrow_mut().decompress_chunk(0, dest)?;
            return if got == ts {
                Ok(())
            } else {
                Err(Error::Data("chunk size differs from the array's"))
            };
        }
        let r = self.region(start, stop, buffershape, buffer.len())?;
        let nd = self.geom.ndim;
        // Zero what the slice leaves unwritten (3.3.5 clears the whole
        // buffer first): only the bytes past the buffer's shape when the
        // slice fills that shape, as each of its bytes is written below.
        let filled = (0..nd).all(|i| r.stop[i] - r.start[i] == buffershape[i]);
        let shaped = nitems(&buffershape[..nd])? as usize * ts;
        bulk::zero(if filled { &mut buffer[shaped..] } else { buffer });
        if self.geom.nitems == 0 || (0..nd).any(|i| r.start[i] == r.stop[i]) {
            return Ok(());
        }
        let chunk_len = self.geom.chunk_nbytes(self.typesize())? as usize;
        if let Some(n) = self.whole_chunk(&r, buffershape) {
            let sc = self.sc.borrow_mut();
            if sc.chunk_nbytes(n)? as usize != chunk_len
                || sc.decompress_chunk(n, &mut buffer[..chunk_len])? != chunk_len
            {
                return Err(Error::Data("chunk size differs from the array's"));
            }
            return Ok(());
        }
        let block_len = self.geom.block_nbytes(self.typesize())?;
        let nblocks = self.geom.nblocks();
        // On disk, reading only the blocks needed pays off when they are
        // a small part of the chunk.
        let frac = 4;
        let blockshape: Vec<i64> = self.geom.blockshape().iter().map(|&b| i64::from(b)).collect();
        let bufshape = &buffershape[..nd];
        let on_disk = self.schunk().on_disk();
        if !on_disk {
            return self.parts(&r, |a, p| {
                // Decode the blocks needed straight from the chunk, with the
                // context's threads, each into its worker's staging buffer,
                // and copy its part out right away, while it is in cache: no
                // buffer for the decoded blocks is allocated or cleared.
                let mut todo = Vec::with_capacity(p.nblocks(nd) as usize);
                a.blocks_of(&p, &r, |nb, bstart, s0, s1| {
                    todo.push((nb as usize, *bstart, *s0, *s1));
                    Ok(())
                })?;
                let sc = a.sc.borrow_mut();
                if sc.chunk_nbytes(p.nchunk)? as usize != chunk_len {
                    return Err(Error::Data("chunk size differs from the array's"));
                }
                let ids: Vec<usize> = todo.iter().map(|t| t.0).collect();
                // Workers copy into disjoint parts of the buffer, one at a
                // time: a part is a small fraction of a block's decoding.
                let out = Mutex::new(&mut *buffer);
                let decoded = sc.decompress_blocks_each(p.nchunk, &ids, block_len, |k, block| {
                    let (_, bstart, s0, s1) = &todo[k];
                    let mut out = out.lock().map_err(|_| Error::Failure("worker panicked"))?;
                    copy_out(nd, ts, block, &blockshape, bstart, s0, s1, &mut out, bufshape, &r)
                })?;
                if decoded {
                    return Ok(());
                }
                // Blocks of another size: the whole chunk, then the parts.
                let data = a.read_chunk(p.nchunk)?;
                a.blocks_of(&p, &r, |nb, bstart, s0, s1| {
                    let off = nb as usize * block_len;
                    let src = &data[off..off + block_len];
                    copy_out(nd, ts, src, &blockshape, bstart, s0, s1, buffer, bufshape, &r)
                })
            });
        }
        // The super-chunk's scratch buffer (kept between calls, also used
        // to compress), lent for the blocks read from disk.
        let mut block_buf = self.sc.borrow_mut().take_scratch();
        let done = self.parts(&r, |a, p| {
            let needed = p.nblocks(nd);
            if needed * frac <= nblocks {
                // Decode only the blocks needed (from disk, only they are read).
                let mut ranges = Vec::with_capacity(needed as usize);
                a.blocks_of(&p, &r, |nb, _, _, _| {
                    ranges.push((nb as usize * block_len, block_len));
                    Ok(())
                })?;
                if block_buf.len() < ranges.len() * block_len {
                    block_buf.resize(ranges.len() * block_len, 0);
                }
                a.sc.borrow_mut().read_chunk_ranges(p.nchunk, &ranges, &mut block_buf)?;
                let mut k = 0usize;
                a.blocks_of(&p, &r, |_, bstart, s0, s1| {
                    let src = &block_buf[k * block_len..(k + 1) * block_len];
                    k += 1;
                    copy_out(nd, ts, src, &blockshape, bstart, s0, s1, buffer, bufshape, &r)
                })
            } else {
                let data = a.read_chunk(p.nchunk)?;
                a.blocks_of(&p, &r, |nb, bstart, s0, s1| {
                    let off = nb as usize * block_len;
                    let src = &data[off..off + block_len];
                    copy_out(nd, ts, src, &blockshape, bstart, s0, s1, buffer, bufshape, &r)
                })
            }
        });
        self.sc.borrow_mut().put_scratch(block_buf);
        done
    }

    /// Write `buffer` (C order, of `buffershape`, at least the slice's
    /// shape) into the slice `[start, stop)` (`b2nd_set_slice_cbuffer`).
    /// Each chunk involved is recompressed once; a chunk the slice covers
    /// whole is rebuilt from zeros (its padding included), as in 3.3.5.
    pub fn set_slice_buffer(&mut self, start: &[i64], stop: &[i64], buffer: &[u8], buffershape: &[i64]) -> Result<()> {
        self.refresh()?;
        let ts = self.itemsize()?;
        if self.geom.ndim == 0 {
            let src = buffer
                .get(..ts)
                .ok_or(Error::InvalidParam("buffer smaller than one item"))?;
            return self.write_chunk(0, src);
        }
        let r = self.region(start, stop, buffershape, buffer.len())?;
        let nd = self.geom.ndim;
        if self.geom.nitems == 0 || (0..nd).any(|i| r.start[i] == r.stop[i]) {
            return Ok(());
        }
        let chunk_len = self.geom.chunk_nbytes(self.typesize())? as usize;
        if let Some(n) = self.whole_chunk(&r, buffershape) {
            return self.write_chunk(n, &buffer[..chunk_len]);
        }
        let block_len = self.geom.block_nbytes(self.typesize())?;
        let blockshape: Vec<i64> = self.geom.blockshape().iter().map(|&b| i64::from(b)).collect();
        let bufshape = &buffershape[..nd];
        let mut blocks_in_dim = [1i64; MAX_DIM];
        for (i, n) in blocks_in_dim.iter_mut().enumerate().take(nd) {
            *n = self.geom.blocks_in_dim(i);
        }
        let nblocks = usize::try_from(self.geom.nblocks()).map_err(|_| Error::Data("block count"))?;
        self.parts(&r, |a, p| {
            let blocks = RegionBlocks {
                nd,
                itemsize: ts,
                buffer,
                bufshape,
                blockshape: &blockshape,
                region: r,
                chunk_start: p.chunk_start,
                chunk_stop: p.chunk_stop,
                blocks_in_dim,
                nblocks,
                block_len,
            };
            if p.covered {
                // A chunk rebuilt from the region alone: each block is
                // gathered by the worker that compresses it.
                a.sc.borrow_mut().update_blocks(p.nchunk, &blocks)?;
                return Ok(());
            }
            // The region's parts go into the decoded chunk, block by block
            // on the compression context's threads.
            let mut data = a.read_chunk(p.nchunk)?;
            a.sc.borrow_mut()
                .prepare_in_pieces(&mut data, block_len, |nb, dst| blocks.copy_into(nb, dst))?;
            a.write_chunk(p.nchunk, &data)
        })
    }

    /// The whole array in C order (`b2nd_to_cbuffer`); `buffer` holds at
    /// least `nitems * typesize` bytes.
    pub fn to_buffer(&mut self, buffer: &mut [u8]) -> Result<()> {
        self.refresh()?;
        let need = self
            .geom
            .nitems
            .checked_mul(i64::from(self.typesize()))
            .ok_or(Error::InvalidParam("array too large"))?;
        if (buffer.len() as u64) < need as u64 {
            return Err(Error::InvalidParam("buffer smaller than the array"));
        }
        if self.geom.nitems == 0 {
            return Ok(());
        }
        let shape = self.geom.shape().to_vec();
        let start = vec![0i64; shape.len()];
        self.get_slice_buffer(&start, &shape, buffer, &shape)
    }

    /// The whole array as a new vector (C order).
    pub fn to_vec(&mut self) -> Result<Vec<u8>> {
        let n = self
            .geom
            .nitems
            .checked_mul(i64::from(self.typesize()))
            .and_then(|n| usize::try_from(n).ok())
            .ok_or(Error::InvalidParam("array too large"))?;
        let mut v = vec![0u8; n];
        self.to_buffer(&mut v)?;
        Ok(v)
    }
}

/// Copy the part `[s0, s1)` of a decoded block starting at `bstart` into
/// the caller's buffer (region `r`).
#[allow(clippy::too_many_arguments)]
fn copy_out(
    nd: usize,
    ts: usize,
    block: &[u8],
    blockshape: &[i64],
    bstart: &[i64; MAX_DIM],
    s0: &[i64; MAX_DIM],
    s1: &[i64; MAX_DIM],
    buffer: &mut [u8],
    bufshape: &[i64],
    r: &Region,
) -> Result<()> {
    let mut src_start = [0i64; MAX_DIM];
    let mut src_stop = [0i64; MAX_DIM];
    let mut dst_start = [0i64; MAX_DIM];
    for i in 0..nd {
        src_start[i] = s0[i] - bstart[i];
        src_stop[i] = s1[i] - bstart[i];
        dst_start[i] = s0[i] - r.start[i];
    }
    copy_buffer(
        nd,
        ts,
        block,
        blockshape,
        &src_start[..nd],
        &src_stop[..nd],
        buffer,
        bufshape,
        &dst_start[..nd],
    )
}
