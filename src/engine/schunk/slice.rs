//! Item slices across chunks: reading, writing, gathering scattered items
//! and listing the chunks a slice touches. Unlike 3.3.5 these also work
//! with variable chunk sizes and check every bound.

use std::borrow::Cow;

use super::{Backend, SChunk};
use crate::engine::chunk::is_multiple_of_typesize;
use crate::engine::error::{Error, Result};

/// The part of one chunk a byte range covers.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Piece {
    pub nchunk: i64,
    /// Byte offset inside the chunk.
    pub start: usize,
    /// Bytes taken from the chunk.
    pub len: usize,
    /// Uncompressed size of the chunk.
    pub chunk_len: usize,
}

impl SChunk {
    /// Start offset (in bytes) of every chunk, plus the total at the end.
    fn chunk_starts(&mut self) -> Result<Vec<i64>> {
        let n = self.nchunks();
        let mut starts = Vec::with_capacity(n as usize + 1);
        let mut acc = 0i64;
        if self.chunksize > 0 {
            let cs = i64::from(self.chunksize);
            for i in 0..n {
                starts.push(acc);
                acc = if i + 1 == n { self.nbytes } else { acc + cs };
            }
        } else {
            for i in 0..n {
                starts.push(acc);
                acc += i64::from(self.chunk_nbytes(i)?);
            }
        }
        starts.push(acc);
        Ok(starts)
    }

    /// Split the byte range `[b0, b1)` into per-chunk pieces. With a fixed
    /// chunk size the chunks are found by division (a slice of a few items
    /// costs the same in a super-chunk of any length); otherwise from the
    /// chunk sizes. (The C API's slices through caller-set contexts read
    /// the same pieces.)
    pub fn pieces(&mut self, b0: i64, b1: i64) -> Result<Vec<Piece>> {
        let mut out = Vec::new();
        if b0 >= b1 {
            return Ok(out);
        }
        let n = self.nchunks();
        let cs = i64::from(self.chunksize);
        if cs > 0 && b0 >= 0 && (b1 - 1) / cs < n && self.nbytes > (n - 1) * cs {
            for i in b0 / cs..=(b1 - 1) / cs {
                let start = i * cs;
                let end = if i + 1 == n { self.nbytes } else { start + cs };
                let (lo, hi) = (b0.max(start), b1.min(end));
                if hi > lo {
                    out.push(Piece {
                        nchunk: i,
                        start: (lo - start) as usize,
                        len: (hi - lo) as usize,
                        chunk_len: (end - start) as usize,
                    });
                }
            }
            return Ok(out);
        }
        let starts = self.chunk_starts()?;
        let first = starts.partition_point(|&s| s <= b0).saturating_sub(1);
        for i in first..starts.len() - 1 {
            let (cs, ce) = (starts[i], starts[i + 1]);
            if cs >= b1 {
                break;
            }
            let lo = b0.max(cs);
            let hi = b1.min(ce);
            if hi > lo {
                out.push(Piece {
                    nchunk: i as i64,
                    start: (lo - cs) as usize,
                    len: (hi - lo) as usize,
                    chunk_len: (ce - cs) as usize,
                });
            }
        }
        Ok(out)
    }

    /// Checked byte range of the item range `[start, stop)`.
    fn byte_range(&self, start: i64, stop: i64, buflen: usize) -> Result<(i64, i64)> {
        let ts = i64::from(self.cparams.typesize);
        let b0 = start.checked_mul(ts).ok_or(Error::InvalidParam("start"))?;
        let b1 = stop.checked_mul(ts).ok_or(Error::InvalidParam("stop"))?;
        if start < 0 || stop < start || b1 > self.nbytes {
            return Err(Error::InvalidParam("slice out of range"));
        }
        if ((b1 - b0) as u64) > buflen as u64 {
            return Err(Error::WriteBuffer);
        }
        Ok((b0, b1))
    }

    /// Read `len` bytes at `start` of chunk `n` into `dest`.
    fn read_piece(&mut self, p: &Piece, dest: &mut [u8]) -> Result<()> {
        if p.start == 0 && p.len == p.chunk_len {
            let got = self.decompress_chunk(p.nchunk, dest)?;
            return if got == p.len {
                Ok(())
            } else {
                Err(Error::Failure("short chunk"))
            };
        }
        self.check_index(p.nchunk, false)?;
        self.current_nchunk = p.nchunk;
        self.use_dctx(p.nchunk);
        // Borrowed in memory (no copy of the chunk); from disk only the
        // blocks holding the range are read. getitem decodes only those
        // blocks, and copies straight out of memcpyed and special chunks.
        let c = piece_source(&mut self.backend, p)?;
        // The chunk's own typesize (byte 3 of its header; getitem checks
        // the rest of the header).
        let ts = usize::from(*c.get(3).ok_or(Error::ReadBuffer)?).max(1);
        if is_multiple_of_typesize(p.start, ts) && is_multiple_of_typesize(p.len, ts) {
            let got = self.dctx.getitem_bytes(&c, p.start as i64, p.len as i64, dest)?;
            if got != p.len {
                return Err(Error::Failure("short read"));
            }
        } else {
            drop(c);
            let mut whole = vec![0u8; p.chunk_len];
            if self.decompress_chunk(p.nchunk, &mut whole)? != p.chunk_len {
                return Err(Error::Failure("chunk size differs from the frame's"));
            }
            dest.copy_from_slice(&whole[p.start..p.start + p.len]);
        }
        Ok(())
    }

    /// Copy items `[start, stop)` into `buffer`
    /// (`blosc2_schunk_get_slice_buffer`).
    pub fn get_slice_buffer(&mut self, start: i64, stop: i64, buffer: &mut [u8]) -> Result<()> {
        let (b0, b1) = self.byte_range(start, stop, buffer.len())?;
        if let Some(p) = self.single_piece(b0, b1) {
            return self.read_piece(&p, &mut buffer[..p.len]);
        }
        let mut pos = 0usize;
        for p in self.pieces(b0, b1)? {
            self.read_piece(&p, &mut buffer[pos..pos + p.len])?;
            pos += p.len;
        }
        Ok(())
    }

    /// The one piece of `[b0, b1)` when it lies within one chunk of a
    /// fixed-size super-chunk (most slices of a few items): no list.
    fn single_piece(&self, b0: i64, b1: i64) -> Option<Piece> {
        let cs = i64::from(self.chunksize);
        let n = self.nchunks();
        if cs <= 0 || b0 < 0 || b1 <= b0 || self.nbytes <= (n - 1) * cs {
            return None;
        }
        // One division: a slice of one item is a few tens of ns.
        let i = b0 / cs;
        let start = i * cs;
        if i >= n || b1 > start + cs {
            return None;
        }
        let end = if i + 1 == n { self.nbytes } else { start + cs };
        (b1 <= end).then(|| Piece {
            nchunk: i,
            start: (b0 - start) as usize,
            len: (b1 - b0) as usize,
            chunk_len: (end - start) as usize,
        })
    }

    /// Overwrite items `[start, stop)` with `buffer`, recompressing the
    /// chunks involved (`blosc2_schunk_set_slice_buffer`).
    pub fn set_slice_buffer(&mut self, start: i64, stop: i64, buffer: &[u8]) -> Result<()> {
        let (b0, b1) = self.byte_range(start, stop, buffer.len())?;
        let mut pos = 0usize;
        for p in self.pieces(b0, b1)? {
            let src = &buffer[pos..pos + p.len];
            let chunk = if p.start == 0 && p.len == p.chunk_len {
                self.compress_buffer(src, p.nchunk)?
            } else {
                let mut data = vec![0u8; p.chunk_len];
                if self.decompress_chunk(p.nchunk, &mut data)? != p.chunk_len {
                    return Err(Error::Failure("chunk size differs from the frame's"));
                }
                data[p.start..p.start + p.len].copy_from_slice(src);
                self.compress_buffer(&data, p.nchunk)?
            };
            self.update_chunk(p.nchunk, &chunk)?;
            pos += p.len;
        }
        Ok(())
    }

    /// Gather the items at `coords` into `buffer`, in the order given
    /// (`blosc2_schunk_get_sparse_buffer`).
    pub fn get_sparse_buffer(&mut self, coords: &[i64], buffer: &mut [u8]) -> Result<()> {
        if coords.is_empty() {
            return Ok(());
        }
        let ts = self.cparams.typesize as usize;
        if ts == 0 || buffer.len() / ts < coords.len() {
            return Err(Error::WriteBuffer);
        }
        let mut cached: Option<(usize, Vec<u8>)> = None;
        for (ci, off, k) in self.sparse_order(coords)? {
            if cached.as_ref().map(|(i, _)| *i) != Some(ci) {
                cached = Some((ci, self.decompress_chunk_vec(ci as i64)?));
            }
            let data = &cached.as_ref().ok_or(Error::Failure("chunk cache"))?.1;
            let item = data.get(off..off + ts).ok_or(Error::ReadBuffer)?;
            buffer[k * ts..(k + 1) * ts].copy_from_slice(item);
        }
        Ok(())
    }

    /// Where the items at `coords` lie, as (chunk, byte offset in the
    /// chunk, index in `coords`), sorted by chunk so that each chunk is
    /// decoded once. (The C API's sparse reads through a caller-set
    /// context follow the same order.)
    pub fn sparse_order(&mut self, coords: &[i64]) -> Result<Vec<(usize, usize, usize)>> {
        let ts = i64::from(self.cparams.typesize);
        if ts <= 0 {
            return Err(Error::InvalidParam("typesize"));
        }
        let nitems = self.nbytes / ts;
        let starts = self.chunk_starts()?;
        let mut order = Vec::with_capacity(coords.len());
        for (k, &c) in coords.iter().enumerate() {
            if c < 0 || c >= nitems {
                return Err(Error::InvalidParam("coordinate out of range"));
            }
            let b = c * ts;
            let ci = starts.partition_point(|&s| s <= b).saturating_sub(1);
            order.push((ci, (b - starts[ci]) as usize, k));
        }
        order.sort_unstable();
        Ok(order)
    }

    /// Indexes of the chunks holding items `[start, stop)`
    /// (`blosc2_get_slice_nchunks`).
    pub fn get_slice_nchunks(&mut self, start: i64, stop: i64) -> Result<Vec<i64>> {
        if self.nchunks() == 0 {
            return Ok(Vec::new());
        }
        let ts = i64::from(self.cparams.typesize);
        let b0 = start.checked_mul(ts).ok_or(Error::InvalidParam("start"))?;
        let b1 = stop.checked_mul(ts).ok_or(Error::InvalidParam("stop"))?;
        if start < 0 || stop < start || b1 > self.nbytes {
            return Err(Error::InvalidParam("slice out of range"));
        }
        Ok(self.pieces(b0, b1)?.iter().map(|p| p.nchunk).collect())
    }
}

/// The stored chunk a piece reads from: borrowed from memory, or with the
/// blocks the piece needs read from disk.
fn piece_source<'a>(backend: &'a mut Backend, p: &Piece) -> Result<Cow<'a, [u8]>> {
    match backend {
        Backend::Chunks(c) => Ok(Cow::Borrowed(
            c.get(p.nchunk as usize).ok_or(Error::InvalidParam("nchunk"))?,
        )),
        Backend::Frame(f) => f.partial_chunk_for_getitem(p.nchunk, p.start, p.len),
    }
}
