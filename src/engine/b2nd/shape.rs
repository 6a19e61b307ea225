//! Shape changes: `b2nd_resize`, `b2nd_insert`, `b2nd_append` and
//! `b2nd_delete`, as 3.3.5 performs them (whole chunks are inserted as
//! zero chunks or deleted; chunks cut by the new shape keep their data).

use std::borrow::BorrowMut;

use super::{Array, Geometry, MAX_DIM};
use crate::engine::chunk::{self, SpecialKind};
use crate::engine::constants::EXTENDED_HEADER_LENGTH;
use crate::engine::error::{Error, Result};
use crate::engine::schunk::SChunk;

impl<S: BorrowMut<SChunk>> Array<S> {
    /// Change the shape (`b2nd_resize`). Without `start`, dimensions grow
    /// or shrink at their end; with it, `start[i]` is where items are
    /// added or removed along dimension `i` (a multiple of the chunk shape,
    /// by a multiple of the chunk shape, unless at the end). New items
    /// read as zeros where new chunks are made.
    pub fn resize(&mut self, new_shape: &[i64], start: Option<&[i64]>) -> Result<()> {
        self.refresh()?;
        let g = self.geom.clone();
        let nd = g.ndim;
        if new_shape.len() < nd || start.is_some_and(|s| s.len() < nd) {
            return Err(Error::InvalidParam("shape arrays shorter than ndim"));
        }
        let new_shape = &new_shape[..nd];
        if new_shape.iter().any(|&s| s < 0) {
            return Err(Error::InvalidParam("shape cannot be negative"));
        }
        // Checks the new geometry (overflows, zero chunks) up front.
        g.with_shape(new_shape)?;
        if let Some(start) = start {
            for i in 0..nd {
                let (old, new, s) = (g.shape[i], new_shape[i], start[i]);
                if s < 0 || s > old {
                    return Err(Error::InvalidParam("`start` must be lower or equal than the old shape"));
                }
                let cs = i64::from(g.chunkshape[i]);
                let inner = (new > old && s != old) || (new < old && s + old - new != old);
                if inner && (s % cs != 0 || (new - old) % cs != 0) {
                    return Err(Error::InvalidParam(
                        "away from the end, `start` and the size change must be multiples of the chunkshape",
                    ));
                }
                if new < old && s + old - new > old {
                    return Err(Error::InvalidParam("cannot remove items past the end"));
                }
            }
        }
        let shrunk: Vec<i64> = (0..nd).map(|i| new_shape[i].min(g.shape[i])).collect();
        self.shrink(&shrunk, start)?;
        self.extend(new_shape, start)
    }

    /// A zero chunk of one extended chunk, as `blosc2_chunk_zeros` builds
    /// it from the super-chunk's parameters.
    fn zero_chunk(&self) -> Result<Vec<u8>> {
        let sc = self.sc.borrow();
        let mut cp = sc.cparams();
        cp.blocksize = sc.blocksize();
        let nbytes = self.geom.chunk_nbytes(sc.typesize())?;
        let mut c = vec![0u8; EXTENDED_HEADER_LENGTH];
        let n = chunk::make_special(&cp, nbytes, Some(SpecialKind::Zeros), None, &mut c)?;
        c.truncate(n);
        Ok(c)
    }

    /// 3.3.5's `extend_shape`.
    fn extend(&mut self, new_shape: &[i64], start: Option<&[i64]>) -> Result<()> {
        let old = self.geom.clone();
        let nd = old.ndim;
        if new_shape == old.shape() {
            return Ok(());
        }
        let new = old.with_shape(new_shape)?;
        let nchunks = new.nchunks();
        if nchunks != self.schunk().nchunks() {
            // 3.3.5 would walk every chunk of a crafted shape before an
            // insertion failed.
            if !self.holds_its_chunks() {
                return Err(Error::ChunkInsert);
            }
            let start: Vec<i64> = start.map_or_else(|| old.shape().to_vec(), |s| s[..nd].to_vec());
            let zero = self.zero_chunk()?;
            for i in 0..nchunks {
                let c = new.chunk_coords(i);
                let inserted = (0..nd).any(|j| {
                    let pos = i64::from(new.chunkshape[j]) * c[j];
                    start[j] <= pos && pos < start[j] + new_shape[j] - old.shape[j]
                });
                if inserted {
                    self.sc.borrow_mut().insert_chunk(i, &zero)?;
                }
            }
        }
        self.geom = new;
        self.publish_meta()
    }

    /// 3.3.5's `shrink_shape`.
    fn shrink(&mut self, new_shape: &[i64], start: Option<&[i64]>) -> Result<()> {
        let old = self.geom.clone();
        let nd = old.ndim;
        if new_shape == old.shape() {
            return Ok(());
        }
        let new = old.with_shape(new_shape)?;
        self.geom = new.clone();
        self.publish_meta()?;
        let start: Vec<i64> = start.map_or_else(|| new_shape.to_vec(), |s| s[..nd].to_vec());
        let old_nchunks = self.schunk().nchunks();
        for i in (0..old_nchunks).rev() {
            let c = old.chunk_coords(i);
            let deleted = (0..nd).any(|j| {
                let pos = i64::from(new.chunkshape[j]) * c[j];
                start[j] <= pos && pos < start[j] + old.shape[j] - new_shape[j]
            });
            if deleted {
                self.sc.borrow_mut().delete_chunk(i)?;
            }
        }
        Ok(())
    }

    /// Insert `buffer` (C order) along `axis` before index `at`
    /// (`b2nd_insert`); its length must be a multiple of one slab of the
    /// array (all dimensions but `axis`).
    pub fn insert(&mut self, buffer: &[u8], axis: usize, at: i64) -> Result<()> {
        self.refresh()?;
        let g = self.geom.clone();
        let nd = g.ndim;
        if axis >= nd {
            return Err(Error::InvalidParam(
                "`axis` cannot be greater than the number of dimensions",
            ));
        }
        let mut slab = i64::from(self.typesize());
        for i in (0..nd).filter(|&i| i != axis) {
            slab = slab
                .checked_mul(g.shape[i])
                .ok_or(Error::InvalidParam("array too large"))?;
        }
        let len = buffer.len() as i64;
        if slab == 0 || len % slab != 0 {
            return Err(Error::InvalidParam("`buffersize` must be a multiple of the array slab"));
        }
        let added = len / slab;
        if at < 0 || at > g.shape[axis] {
            return Err(Error::InvalidParam("insertion point outside the array"));
        }
        let mut new_shape = g.shape().to_vec();
        new_shape[axis] = new_shape[axis]
            .checked_add(added)
            .ok_or(Error::InvalidParam("array too large"))?;
        let mut start = [0i64; MAX_DIM];
        start[axis] = at;
        if at == g.shape[axis] {
            self.resize(&new_shape, None)?;
        } else {
            self.resize(&new_shape, Some(&start[..nd]))?;
        }
        let mut bufshape = g.shape().to_vec();
        bufshape[axis] = added;
        let mut stop = new_shape.clone();
        stop[axis] = at + added;
        self.set_slice_buffer(&start[..nd], &stop, buffer, &bufshape)
    }

    /// Append `buffer` (C order) at the end of `axis` (`b2nd_append`).
    /// One whole chunk appended along the first axis of an array whose
    /// chunks are whole slabs goes straight into the super-chunk.
    pub fn append(&mut self, buffer: &[u8], axis: usize) -> Result<()> {
        self.refresh()?;
        let g = self.geom.clone();
        let nd = g.ndim;
        if axis >= nd {
            return Err(Error::InvalidParam(
                "`axis` cannot be greater than the number of dimensions",
            ));
        }
        let ts = self.typesize();
        let chunk_len = g.chunk_nbytes(ts)?;
        let cs0 = i64::from(g.chunkshape[0]);
        let fast = axis == 0
            && buffer.len() as i64 == i64::from(chunk_len)
            && cs0 > 0
            && g.shape[0] % cs0 == 0
            && (1..nd).all(|i| g.chunkshape[i] == g.blockshape[i] && i64::from(g.chunkshape[i]) == g.shape[i]);
        if !fast {
            return self.insert(buffer, axis, g.shape[axis]);
        }
        self.sc.borrow_mut().append_buffer(buffer)?;
        let mut new_shape = g.shape().to_vec();
        new_shape[0] += cs0;
        self.resize(&new_shape, None)
    }

    /// Remove `len` items along `axis` from index `at` (`b2nd_delete`).
    pub fn delete(&mut self, axis: usize, at: i64, len: i64) -> Result<()> {
        self.refresh()?;
        let g = self.geom.clone();
        let nd = g.ndim;
        if axis >= nd {
            return Err(Error::InvalidParam(
                "axis cannot be greater than the number of dimensions",
            ));
        }
        if len < 0 || at < 0 || at.checked_add(len).is_none_or(|e| e > g.shape[axis]) {
            return Err(Error::InvalidParam("deleted range outside the array"));
        }
        let mut new_shape = g.shape().to_vec();
        new_shape[axis] -= len;
        let mut start = [0i64; MAX_DIM];
        start[axis] = at;
        if at == g.shape[axis] - len {
            self.resize(&new_shape, None)
        } else {
            self.resize(&new_shape, Some(&start[..nd]))
        }
    }

    /// The geometry after a resize to `shape` (for callers that plan).
    pub fn geometry_for(&self, shape: &[i64]) -> Result<Geometry> {
        self.geom.with_shape(shape)
    }
}
