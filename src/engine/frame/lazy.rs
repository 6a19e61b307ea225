//! Lazy chunks: reading only the parts of a stored chunk a request needs
//! (header, block starts, dictionary and the blocks holding the wanted
//! bytes), and 3.3.5's lazy-chunk format (`blosc2_schunk_get_lazychunk`).

use std::borrow::Cow;

use super::offsets::Entry;
use super::{io, Frame, FrameFile, FrameKind};
use crate::engine::chunk;
use crate::engine::constants::{blosc2_flags, filter, EXTENDED_HEADER_LENGTH, MAX_DICT_SIZE};
use crate::engine::error::{Error, Result};
use crate::engine::header::{read_i32, ChunkHeader};

/// Where the bytes of a stored chunk come from.
enum Source {
    /// The data region of a file frame, at this offset.
    File(i64),
    /// An open sparse chunk file.
    Sparse(Box<dyn FrameFile>),
}

impl Frame {
    fn source(&mut self, off: i64) -> Result<Source> {
        match &self.kind {
            FrameKind::File { .. } => Ok(Source::File(off)),
            FrameKind::Sparse { dir } => Ok(Source::Sparse(self.fs.open(&io::sframe_chunk_path(dir, off)?, false)?)),
            FrameKind::Memory => Err(Error::FrameType),
        }
    }

    /// Check that the stored chunk at `off` really is `cbytes` long.
    fn check_extent(&mut self, off: i64, cbytes: usize) -> Result<()> {
        match self.source(off)? {
            Source::File(_) => {
                let end = off.checked_add(cbytes as i64).ok_or(Error::InvalidHeader)?;
                if end > self.hdr.cbytes {
                    return Err(Error::InvalidHeader);
                }
            }
            Source::Sparse(mut f) => {
                if f.size()? != cbytes as u64 {
                    return Err(Error::InvalidHeader);
                }
            }
        }
        Ok(())
    }

    fn read_src(&mut self, src: &mut Source, pos: usize, buf: &mut [u8]) -> Result<()> {
        match src {
            Source::File(off) => self.read_data(*off + pos as i64, buf),
            Source::Sparse(f) => f.read_at(pos as u64, buf),
        }
    }

    /// Chunk `n` with at least the bytes needed to decode the uncompressed
    /// byte range `[start, start + len)` filled in; other blocks are left
    /// zeroed. In-memory frames return the chunk itself.
    pub fn partial_chunk(&mut self, n: i64, start: usize, len: usize) -> Result<Cow<'_, [u8]>> {
        let mut buf = Vec::new();
        if self.read_partial(n, start, len, &mut buf, false)? {
            return Ok(Cow::Owned(buf));
        }
        self.chunk(n)
    }

    /// [`Frame::partial_chunk`] for a getitem of `[start, start + len)`
    /// (a slice): read into a buffer the frame keeps for the next call
    /// (other blocks hold stale bytes, not zeros), and of a memcpyed chunk
    /// only the bytes of the range.
    pub fn partial_chunk_for_getitem(&mut self, n: i64, start: usize, len: usize) -> Result<Cow<'_, [u8]>> {
        let mut buf = std::mem::take(&mut self.partial_scratch);
        match self.read_partial(n, start, len, &mut buf, true) {
            Ok(true) => {
                self.partial_scratch = buf;
                Ok(Cow::Borrowed(&self.partial_scratch))
            }
            Ok(false) => {
                self.partial_scratch = buf;
                self.chunk(n)
            }
            Err(e) => Err(e),
        }
    }

    /// Read what [`Frame::partial_chunk`] needs of chunk `n` into `buf`
    /// (made `cbytes` long); false when the whole chunk is needed (or is
    /// in memory). With `exact`, a memcpyed chunk gets only the range.
    fn read_partial(&mut self, n: i64, start: usize, len: usize, buf: &mut Vec<u8>, exact: bool) -> Result<bool> {
        let off = match self.entry(n)? {
            Entry::Stored(off) if !matches!(self.kind, FrameKind::Memory) => off,
            _ => return Ok(false),
        };
        let head = self.chunk_head(n)?;
        let h = chunk::read_header(&head)?;
        let cbytes = h.cbytes as usize;
        let simple = h.is_extended()
            && cbytes >= EXTENDED_HEADER_LENGTH
            && h.special_type() == 0
            && !h.vl_blocks()
            && !h.lazy()
            && h.nbytes > 0;
        if !simple || len == 0 || start.checked_add(len).is_none_or(|e| e > h.nbytes as usize) {
            return Ok(false);
        }
        self.check_extent(off, cbytes)?;
        let mut src = self.source(off)?;
        if buf.capacity() == 0 {
            // Fresh zeroed pages: only the bytes read are ever touched.
            *buf = vec![0u8; cbytes];
        } else {
            buf.resize(cbytes, 0);
        }
        buf[..EXTENDED_HEADER_LENGTH].copy_from_slice(&head);
        let bs = h.blocksize as usize;
        let nblocks = (h.nbytes as usize).div_ceil(bs);
        let (first, last) = (start / bs, (start + len - 1) / bs);
        let mut wanted: Vec<usize> = (first..=last).collect();
        if h.filters.contains(&filter::DELTA) && first > 0 {
            wanted.insert(0, 0);
        }
        if h.memcpyed() && exact {
            let lo = EXTENDED_HEADER_LENGTH + start;
            let hi = (lo + len).min(cbytes);
            if lo < hi {
                self.read_src(&mut src, lo, &mut buf[lo..hi])?;
            }
            return Ok(true);
        }
        if h.memcpyed() {
            for &j in &wanted {
                let lo = EXTENDED_HEADER_LENGTH + j * bs;
                let hi = (lo + bs).min(cbytes);
                if lo < hi {
                    self.read_src(&mut src, lo, &mut buf[lo..hi])?;
                }
            }
            return Ok(true);
        }
        let bstarts_end = EXTENDED_HEADER_LENGTH + 4 * nblocks;
        if bstarts_end > cbytes {
            return Err(Error::InvalidHeader);
        }
        self.read_src(
            &mut src,
            EXTENDED_HEADER_LENGTH,
            &mut buf[EXTENDED_HEADER_LENGTH..bstarts_end],
        )?;
        if h.use_dict() {
            let mut d = [0u8; 4];
            self.read_src(&mut src, bstarts_end, &mut d)?;
            let dsize = i32::from_le_bytes(d);
            if dsize <= 0 || dsize as usize > MAX_DICT_SIZE || bstarts_end + 4 + dsize as usize > cbytes {
                return Err(Error::CodecDict);
            }
            let end = bstarts_end + 4 + dsize as usize;
            self.read_src(&mut src, bstarts_end, &mut buf[bstarts_end..end])?;
        }
        let mut starts: Vec<usize> = Vec::with_capacity(nblocks);
        for j in 0..nblocks {
            let v = read_i32(buf, EXTENDED_HEADER_LENGTH + 4 * j)?;
            let v = usize::try_from(v).map_err(|_| Error::Data("negative block offset"))?;
            if v < bstarts_end || v >= cbytes {
                return Err(Error::Data("block offset out of range"));
            }
            starts.push(v);
        }
        let mut sorted = starts.clone();
        sorted.sort_unstable();
        for &j in &wanted {
            let lo = starts[j];
            // Blocks may be stored in any order: a block ends where the
            // next stored block starts.
            let hi = sorted.iter().copied().find(|&s| s > lo).unwrap_or(cbytes);
            self.read_src(&mut src, lo, &mut buf[lo..hi])?;
        }
        Ok(true)
    }

    /// 3.3.5's lazy chunk for chunk `n` of a disk frame: header, block
    /// starts and a trailer `{i32 nchunk, i64 offset, i32 block_csizes[]}`,
    /// with `blosc2_flags` bit 3 set. Special and in-memory chunks are
    /// returned whole, as 3.3.5 does.
    pub fn lazy_chunk(&mut self, n: i64) -> Result<Cow<'_, [u8]>> {
        let off = match self.entry(n)? {
            Entry::Stored(off) if !matches!(self.kind, FrameKind::Memory) => off,
            _ => return self.chunk(n),
        };
        let head = self.chunk_head(n)?;
        let h = ChunkHeader::parse(&head)?;
        if h.special_type() != 0 {
            let len = (h.cbytes as usize).min(EXTENDED_HEADER_LENGTH + h.typesize.max(1) as usize);
            let mut out = vec![0u8; len];
            let mut src = self.source(off)?;
            self.read_src(&mut src, 0, &mut out)?;
            return Ok(Cow::Owned(out));
        }
        let bs = h.blocksize.max(1) as usize;
        let nblocks = if h.vl_blocks() {
            h.blocksize.max(0) as usize
        } else {
            (h.nbytes.max(0) as usize).div_ceil(bs)
        };
        let cbytes = h.cbytes as usize;
        // Bound what a corrupted header can make us allocate: a memcpyed
        // chunk holds its data, any other one its block starts.
        let memcpy_ok = !h.memcpyed() || cbytes == h.nbytes as usize + EXTENDED_HEADER_LENGTH;
        if nblocks == 0 || nblocks > cbytes || !memcpy_ok {
            return Err(Error::InvalidHeader);
        }
        self.check_extent(off, cbytes)?;
        let stored_bstarts = if h.memcpyed() { 0 } else { 4 * nblocks };
        if EXTENDED_HEADER_LENGTH + stored_bstarts > cbytes {
            return Err(Error::InvalidHeader);
        }
        let trailer_at = EXTENDED_HEADER_LENGTH + 4 * nblocks;
        let mut out = vec![0u8; trailer_at + 12 + 4 * nblocks];
        out[..EXTENDED_HEADER_LENGTH].copy_from_slice(&head);
        let mut src = self.source(off)?;
        if stored_bstarts > 0 {
            self.read_src(
                &mut src,
                EXTENDED_HEADER_LENGTH,
                &mut out[EXTENDED_HEADER_LENGTH..trailer_at],
            )?;
        }
        out[31] |= blosc2_flags::LAZY_CHUNK;
        let (id, pos) = match &self.kind {
            FrameKind::Sparse { .. } => (off as i32, off),
            _ => (n as i32, i64::from(self.hdr.header_len) + off),
        };
        out[trailer_at..trailer_at + 4].copy_from_slice(&id.to_le_bytes());
        out[trailer_at + 4..trailer_at + 12].copy_from_slice(&pos.to_le_bytes());
        let csizes_at = trailer_at + 12;
        if h.memcpyed() {
            let leftover = h.nbytes.max(0) as usize % bs;
            for j in 0..nblocks {
                let v = if j + 1 == nblocks && leftover > 0 { leftover } else { bs };
                out[csizes_at + 4 * j..csizes_at + 4 * j + 4].copy_from_slice(&(v as i32).to_le_bytes());
            }
        } else {
            let starts: Vec<i32> = (0..nblocks)
                .map(|j| read_i32(&out, EXTENDED_HEADER_LENGTH + 4 * j))
                .collect::<Result<_>>()?;
            let mut sorted: Vec<(i32, usize)> = starts.iter().copied().zip(0..).collect();
            sorted.sort_unstable();
            for k in 0..nblocks {
                let end = if k + 1 < nblocks { sorted[k + 1].0 } else { h.cbytes };
                let v = end.wrapping_sub(sorted[k].0);
                let j = sorted[k].1;
                out[csizes_at + 4 * j..csizes_at + 4 * j + 4].copy_from_slice(&v.to_le_bytes());
            }
        }
        Ok(Cow::Owned(out))
    }
}
