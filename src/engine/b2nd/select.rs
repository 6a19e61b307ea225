//! Scattered items: gathering by flat coordinates
//! (`b2nd_get_sparse_cbuffer`) and orthogonal selections, one index list
//! per dimension (`b2nd_get_orthogonal_selection`,
//! `b2nd_set_orthogonal_selection`).

use std::borrow::BorrowMut;

use super::copy::{nitems, strides};
use super::slice::for_each_index;
use super::{Array, MAX_DIM};
use crate::engine::error::{Error, Result};
use crate::engine::schunk::SChunk;

/// One dimension of an orthogonal selection, sorted by (value, position)
/// as 3.3.5 sorts it, with where each entry lands in a chunk.
struct Axis {
    /// (chunk coordinate, block coordinate in the chunk, offset of the
    /// item in its chunk contributed by this dimension, offset in the
    /// caller's buffer contributed by this dimension), in sorted order.
    entries: Vec<(i64, i64, i64, i64)>,
    /// Ranges of `entries` sharing a chunk coordinate.
    groups: Vec<(usize, usize)>,
}

impl<S: BorrowMut<SChunk>> Array<S> {
    /// Gather the items at flat C-order coordinates `coords` into `buffer`
    /// (`b2nd_get_sparse_cbuffer`), in the order given.
    pub fn get_sparse_buffer(&mut self, coords: &[i64], buffer: &mut [u8]) -> Result<()> {
        self.refresh()?;
        if coords.is_empty() {
            return Ok(());
        }
        let ts = self.itemsize()?;
        if (buffer.len() / ts) < coords.len() {
            return Err(Error::InvalidParam("buffer is smaller than expected"));
        }
        let g = &self.geom;
        if g.ndim == 0 {
            return Err(Error::InvalidParam(
                "sparse indexing is not supported for 0-dimensional arrays",
            ));
        }
        let nd = g.ndim;
        let mut storage = Vec::with_capacity(coords.len());
        for &c in coords {
            if c < 0 || c >= g.nitems {
                return Err(Error::InvalidParam("coordinate out of bounds"));
            }
            let mut rest = c;
            let mut idx = [0i64; MAX_DIM];
            for i in (0..nd).rev() {
                idx[i] = rest % g.shape[i];
                rest /= g.shape[i];
            }
            let mut nchunk = 0i64;
            let mut nblock = 0i64;
            let mut item = 0i64;
            for i in 0..nd {
                let cs = i64::from(g.chunkshape[i]);
                let bs = i64::from(g.blockshape[i]);
                let in_chunk = idx[i] % cs;
                nchunk = nchunk * g.chunks_in_dim(i) + idx[i] / cs;
                nblock = nblock * g.blocks_in_dim(i) + in_chunk / bs;
                item += (in_chunk % bs) * g.item_block_strides[i];
            }
            storage.push(nchunk * g.extchunknitems + nblock * i64::from(g.blocknitems) + item);
        }
        self.sc.borrow_mut().get_sparse_buffer(&storage, buffer)
    }

    /// Sort and place one index list per dimension.
    fn axes(&self, selection: &[&[i64]], bufstrides: &[i64; MAX_DIM]) -> Result<Vec<Axis>> {
        let g = &self.geom;
        let mut out = Vec::with_capacity(g.ndim);
        for (i, sel) in selection.iter().enumerate().take(g.ndim) {
            let cs = i64::from(g.chunkshape[i]);
            let bs = i64::from(g.blockshape[i]);
            let mut sorted: Vec<(i64, i64)> = Vec::with_capacity(sel.len());
            for (j, &v) in sel.iter().enumerate() {
                if v < 0 || v >= g.shape[i] {
                    return Err(Error::InvalidIndex);
                }
                sorted.push((v, j as i64));
            }
            sorted.sort_unstable();
            let mut entries = Vec::with_capacity(sorted.len());
            let mut groups: Vec<(usize, usize)> = Vec::new();
            for (k, &(v, j)) in sorted.iter().enumerate() {
                let in_chunk = v % cs;
                let b = in_chunk / bs;
                let off =
                    b * g.block_chunk_strides[i] * i64::from(g.blocknitems) + (in_chunk % bs) * g.item_block_strides[i];
                let c = v / cs;
                match groups.last_mut() {
                    Some(last) if entries.get(last.0).map(|e: &(i64, i64, i64, i64)| e.0) == Some(c) => last.1 = k + 1,
                    _ => groups.push((k, k + 1)),
                }
                entries.push((c, b, off, j * bufstrides[i]));
            }
            out.push(Axis { entries, groups });
        }
        Ok(out)
    }

    /// Check an orthogonal selection and its buffer; `None` when it
    /// selects nothing.
    fn plan_selection(&self, selection: &[&[i64]], buflen: usize, buffershape: &[i64]) -> Result<Option<Vec<Axis>>> {
        let g = &self.geom;
        let nd = g.ndim;
        if nd == 0 {
            return Err(Error::InvalidParam("orthogonal selections need at least one dimension"));
        }
        if selection.len() < nd || buffershape.len() < nd {
            return Err(Error::InvalidParam("selection shorter than ndim"));
        }
        for i in 0..nd {
            if buffershape[i] < selection[i].len() as i64 {
                return Err(Error::InvalidParam("buffer shape smaller than the selection"));
            }
        }
        let need = nitems(&buffershape[..nd])?
            .checked_mul(i64::from(self.typesize()))
            .ok_or(Error::InvalidParam("buffer shape too large"))?;
        if (buflen as u64) < need as u64 {
            return Err(Error::InvalidParam("buffer smaller than its shape"));
        }
        self.geom.chunk_nbytes(self.typesize())?;
        let bufstrides = strides(&buffershape[..nd]);
        let axes = self.axes(selection, &bufstrides)?;
        if axes.iter().any(|a| a.entries.is_empty()) {
            return Ok(None);
        }
        Ok(Some(axes))
    }

    /// Visit each chunk the selection touches: its index, the group index
    /// per dimension.
    fn selection_chunks(
        &mut self,
        axes: &[Axis],
        mut f: impl FnMut(&mut Self, i64, &[i64; MAX_DIM]) -> Result<()>,
    ) -> Result<()> {
        let nd = self.geom.ndim;
        let lo = [0i64; MAX_DIM];
        let mut hi = [0i64; MAX_DIM];
        for i in 0..nd {
            hi[i] = axes[i].groups.len() as i64 - 1;
        }
        for_each_index(nd, &lo, &hi, |gi| {
            let mut cc = [0i64; MAX_DIM];
            for i in 0..nd {
                cc[i] = axes[i].entries[axes[i].groups[gi[i] as usize].0].0;
            }
            let n = self.geom.chunk_index(&cc[..nd]);
            f(self, n, gi)
        })
    }

    /// Every selected item of one chunk: (offset in the chunk, offset in
    /// the buffer), in items, in sorted order.
    fn selection_items(axes: &[Axis], nd: usize, gi: &[i64; MAX_DIM], mut f: impl FnMut(i64, i64)) {
        let mut lo = [0i64; MAX_DIM];
        let mut hi = [0i64; MAX_DIM];
        for i in 0..nd {
            let (a, b) = axes[i].groups[gi[i] as usize];
            lo[i] = a as i64;
            hi[i] = b as i64 - 1;
        }
        let _ = for_each_index(nd, &lo, &hi, |k| {
            let (mut co, mut bo) = (0i64, 0i64);
            for i in 0..nd {
                let e = axes[i].entries[k[i] as usize];
                co += e.2;
                bo += e.3;
            }
            f(co, bo);
            Ok(())
        });
    }

    /// Read an orthogonal selection (`b2nd_get_orthogonal_selection`):
    /// `selection[i]` lists the indexes taken along dimension `i`; item
    /// `(j0, j1, ...)` of `buffer` (C order, of `buffershape`) receives
    /// `array[selection[0][j0], selection[1][j1], ...]`.
    pub fn get_orthogonal_selection(
        &mut self,
        selection: &[&[i64]],
        buffer: &mut [u8],
        buffershape: &[i64],
    ) -> Result<()> {
        self.refresh()?;
        let Some(axes) = self.plan_selection(selection, buffer.len(), buffershape)? else {
            return Ok(());
        };
        let ts = self.itemsize()?;
        let nd = self.geom.ndim;
        let block_len = self.geom.block_nbytes(self.typesize())?;
        let blocknitems = i64::from(self.geom.blocknitems);
        let nblocks = self.geom.nblocks();
        let frac = if self.schunk().on_disk() { 4 } else { 16 };
        let mut scratch = Vec::new();
        self.selection_chunks(&axes, |a, n, gi| {
            // The blocks needed: every combination of the block
            // coordinates each dimension's group touches.
            let mut per_dim: Vec<Vec<i64>> = Vec::with_capacity(nd);
            for (i, ax) in axes.iter().enumerate() {
                let (s, e) = ax.groups[gi[i] as usize];
                let mut bs: Vec<i64> = ax.entries[s..e].iter().map(|x| x.1).collect();
                bs.dedup();
                per_dim.push(bs);
            }
            let needed: i64 = per_dim.iter().map(|v| v.len() as i64).product();
            // Map from the linear block index to its place in `scratch`.
            let (data, place): (Vec<u8>, Option<Vec<(i64, usize)>>) = if needed * frac <= nblocks {
                let mut blocks = Vec::with_capacity(needed as usize);
                let lo = [0i64; MAX_DIM];
                let mut hi = [0i64; MAX_DIM];
                for i in 0..nd {
                    hi[i] = per_dim[i].len() as i64 - 1;
                }
                for_each_index(nd, &lo, &hi, |k| {
                    let mut nb = 0i64;
                    for i in 0..nd {
                        nb = nb * a.geom.blocks_in_dim(i) + per_dim[i][k[i] as usize];
                    }
                    blocks.push(nb);
                    Ok(())
                })?;
                blocks.sort_unstable();
                let ranges: Vec<(usize, usize)> = blocks.iter().map(|&b| (b as usize * block_len, block_len)).collect();
                scratch.resize(ranges.len() * block_len, 0);
                a.sc.borrow_mut().read_chunk_ranges(n, &ranges, &mut scratch)?;
                let place = blocks.iter().enumerate().map(|(k, &b)| (b, k)).collect();
                (std::mem::take(&mut scratch), Some(place))
            } else {
                (a.read_chunk(n)?, None)
            };
            let mut failed = false;
            Self::selection_items(&axes, nd, gi, |co, bo| {
                let src = match &place {
                    None => co as usize * ts,
                    Some(p) => {
                        let nb = co / blocknitems;
                        match p.binary_search_by_key(&nb, |x| x.0) {
                            Ok(k) => p[k].1 * block_len + (co % blocknitems) as usize * ts,
                            Err(_) => {
                                failed = true;
                                return;
                            }
                        }
                    }
                };
                let dst = bo as usize * ts;
                buffer[dst..dst + ts].copy_from_slice(&data[src..src + ts]);
            });
            if place.is_some() {
                scratch = data;
            }
            if failed {
                return Err(Error::Failure("selection block not read"));
            }
            Ok(())
        })
    }

    /// Write an orthogonal selection (`b2nd_set_orthogonal_selection`);
    /// see [`Array::get_orthogonal_selection`]. Repeated indexes are
    /// written in sorted order, the last position winning.
    pub fn set_orthogonal_selection(&mut self, selection: &[&[i64]], buffer: &[u8], buffershape: &[i64]) -> Result<()> {
        self.refresh()?;
        let Some(axes) = self.plan_selection(selection, buffer.len(), buffershape)? else {
            return Ok(());
        };
        let ts = self.itemsize()?;
        let nd = self.geom.ndim;
        self.selection_chunks(&axes, |a, n, gi| {
            let mut data = a.read_chunk(n)?;
            Self::selection_items(&axes, nd, gi, |co, bo| {
                let (d, s) = (co as usize * ts, bo as usize * ts);
                data[d..d + ts].copy_from_slice(&buffer[s..s + ts]);
            });
            a.write_chunk(n, &data)
        })
    }
}
