//! Converting super-chunks: copies, contiguous frame buffers, files, and
//! lazy chunks.

use std::borrow::Cow;
use std::path::PathBuf;

use super::{Backend, SChunk, Storage};
use crate::engine::chunk;
use crate::engine::constants::blosc2_flags;
use crate::engine::error::{Error, Result};
use crate::engine::frame::{io, FrameKind};
use crate::engine::params::{CParams, DParams};

impl SChunk {
    /// A copy of the super-chunk with a new storage (`blosc2_schunk_copy`).
    /// Chunks are copied as they are when the compression parameters are
    /// unchanged (or the chunks are VL-block chunks), recompressed
    /// otherwise.
    pub fn copy(&mut self, storage: Storage) -> Result<SChunk> {
        let same = {
            let a = &self.cparams;
            let b = &storage.cparams;
            let bs = if b.blocksize == 0 {
                self.sticky_blocksize
            } else {
                b.blocksize
            };
            a.typesize == b.typesize
                && a.clevel == b.clevel
                && a.compcode == b.compcode
                && a.use_dict == b.use_dict
                && self.sticky_blocksize == bs
                && a.filters == b.filters
                && a.filters_meta == b.filters_meta
                && a.prefilter.is_none()
                && self.dparams.postfilter.is_none()
        };
        let mut new = SChunk::new(storage)?;
        self.copy_into(&mut new, same)?;
        Ok(new)
    }

    /// Move chunks, metalayers and vlmetalayers into `new` (empty).
    fn copy_into(&mut self, new: &mut SChunk, raw_chunks: bool) -> Result<()> {
        new.chunksize = self.chunksize;
        new.flags2 = self.flags2;
        for (name, content) in self.metas.clone() {
            new.meta_add(&name, &content)?;
        }
        let vl = self.flags2 & crate::engine::constants::blosc2_flags2::VL_BLOCKS != 0;
        for i in 0..self.nchunks() {
            if raw_chunks || vl {
                // Borrowed where the chunk is held in memory, and read into
                // the frame's reused buffer from a file: appending copies it
                // once, into `new`.
                let c = self.chunk_to_decode(i)?;
                new.append_chunk(&c)?;
            } else {
                // 3.3.5 decompresses each chunk into a buffer of the chunk
                // size: a chunk claiming more (a crafted frame's special
                // chunk may claim 2 GB in 32 bytes) is an error, not that
                // much work.
                if self.chunksize > 0 && self.chunk_nbytes(i)? > self.chunksize {
                    return Err(Error::WriteBuffer);
                }
                let data = self.decompress_chunk_vec(i)?;
                new.append_buffer(&data)?;
            }
        }
        // 3.3.5 decompresses each vlmetalayer and adds it again with the
        // default compression parameters.
        for name in self.vlmeta_names() {
            let content = self.vlmeta_get(&name)?;
            new.vlmeta_add(&name, &content, None)?;
        }
        Ok(())
    }

    /// The storage 3.3.5 uses for its internal copies: contiguous, with
    /// the super-chunk's parameters but zero compression threads.
    fn copy_storage(&self, urlpath: Option<String>) -> Storage {
        let cparams = CParams {
            nthreads: 0,
            blocksize: self.sticky_blocksize,
            ..self.cparams.clone()
        };
        Storage {
            contiguous: true,
            urlpath,
            cparams,
            dparams: DParams::default(),
            fs: Some(self.fs.clone()),
        }
    }

    /// The super-chunk as one contiguous frame (`blosc2_schunk_to_buffer`).
    /// An in-memory contiguous super-chunk returns its own frame; any
    /// other is copied into one first, as 3.3.5 does.
    pub fn to_cframe(&mut self) -> Result<Vec<u8>> {
        if let Backend::Frame(f) = &mut self.backend {
            if matches!(f.kind(), FrameKind::Memory) {
                return f.to_cframe();
            }
        }
        self.to_cframe_with(|len| Ok(vec![0u8; len]))
    }

    /// [`SChunk::to_cframe`] into a buffer from `alloc` (given the exact
    /// length). A super-chunk not in an in-memory frame is copied into one
    /// whose data region then moves over (see
    /// [`crate::engine::frame::Frame::into_cframe_with`]), so its chunks are
    /// held about twice at the peak, as in 3.3.5, not three times. (An
    /// in-memory frame is serialized, then copied: callers that can use
    /// its bytes in place take [`SChunk::cframe_ref`] first.)
    pub fn to_cframe_with<B: AsMut<[u8]>>(&mut self, alloc: impl FnOnce(usize) -> Result<B>) -> Result<B> {
        if let Backend::Frame(f) = &mut self.backend {
            if matches!(f.kind(), FrameKind::Memory) {
                let v = f.to_cframe()?;
                let mut out = alloc(v.len())?;
                let buf = out.as_mut();
                if buf.len() != v.len() {
                    return Err(Error::MemoryAlloc);
                }
                buf.copy_from_slice(&v);
                return Ok(out);
            }
        }
        let storage = self.copy_storage(None);
        let mut copy = SChunk::new(storage)?;
        copy.cctx.cparams.nthreads = 0;
        self.copy_into(&mut copy, true)?;
        match std::mem::replace(&mut copy.backend, Backend::Chunks(Vec::new())) {
            Backend::Frame(f) => f.into_cframe_with(alloc),
            Backend::Chunks(_) => Err(Error::SchunkCopy),
        }
    }

    /// The frame of an in-memory contiguous super-chunk, without copying
    /// (valid until the next edit); `None` for other storages, which need
    /// [`SChunk::to_cframe`].
    pub fn cframe_ref(&mut self) -> Result<Option<&[u8]>> {
        match &mut self.backend {
            Backend::Frame(f) if matches!(f.kind(), FrameKind::Memory) => f.cframe_ref().map(Some),
            _ => Ok(None),
        }
    }

    /// Write the super-chunk as a contiguous frame file
    /// (`blosc2_schunk_to_file`), replacing `urlpath` atomically. Returns
    /// the frame length.
    pub fn to_file(&mut self, urlpath: &str) -> Result<i64> {
        let bytes = self.to_cframe()?;
        let path = PathBuf::from(io::normalize_urlpath(urlpath));
        let tmp = io::temp_path(&path);
        let fs = self.fs.clone();
        let r = (|| -> Result<()> {
            let mut f = fs.create(&tmp)?;
            f.write_at(0, &bytes)?;
            f.sync()?;
            drop(f);
            fs.rename(&tmp, &path)
        })();
        if let Err(e) = r {
            let _ = fs.remove_file(&tmp);
            return Err(e);
        }
        Ok(bytes.len() as i64)
    }

    /// Append the super-chunk as a contiguous frame at the end of
    /// `urlpath`, creating it if needed (`blosc2_schunk_append_file`).
    /// Returns the offset where the frame starts.
    pub fn append_file(&mut self, urlpath: &str) -> Result<i64> {
        let bytes = self.to_cframe()?;
        let path = PathBuf::from(io::normalize_urlpath(urlpath));
        let fs = self.fs.clone();
        let mut f = match fs.stat(&path) {
            Some(false) => fs.open(&path, true)?,
            Some(true) => return Err(Error::FileOpen),
            None => fs.create(&path)?,
        };
        let pos = f.size()?;
        f.write_at(pos, &bytes)?;
        f.sync()?;
        i64::try_from(pos).map_err(|_| Error::FileWrite)
    }

    /// Replace a frame backend by separate in-memory chunks (what
    /// `blosc2_schunk_from_buffer(copy = true)` gives).
    pub(crate) fn detach_to_chunks(&mut self) -> Result<()> {
        let n = self.nchunks();
        let mut chunks = Vec::with_capacity(n as usize);
        let mut cbytes = 0i64;
        let mut blocksize = None::<i32>;
        let mut nbytes = 0i64;
        for i in 0..n {
            let c = self.get_chunk(i)?;
            let (nb, cb, bs) = chunk::cbuffer_sizes(&c)?;
            nbytes += i64::from(nb);
            cbytes += i64::from(cb);
            blocksize = match blocksize {
                None => Some(bs),
                Some(b) if b == bs => Some(b),
                _ => Some(0),
            };
            // One copy of each chunk, of its exact length.
            let stored = c.get(..cb as usize).ok_or(Error::ReadBuffer)?.to_vec();
            chunks.push(stored.into());
        }
        if nbytes != self.nbytes {
            return Err(Error::InvalidHeader);
        }
        self.backend = Backend::Chunks(chunks);
        self.chunks_moved_from = 0;
        self.cbytes = cbytes;
        self.current_nchunk = 0;
        if let Some(b) = blocksize {
            self.blocksize = b;
        }
        self.contiguous = false;
        Ok(())
    }

    /// Chunk `n` for reading the bytes `[start, start + len)`: on disk only
    /// the blocks needed are read (the rest of the buffer is zeroed).
    pub(crate) fn lazy_chunk_for(&mut self, n: i64, start: usize, len: usize) -> Result<Vec<u8>> {
        self.current_nchunk = n;
        match &mut self.backend {
            Backend::Chunks(c) => Ok(c[n as usize].to_vec()),
            Backend::Frame(f) => Ok(f.partial_chunk(n, start, len)?.into_owned()),
        }
    }

    /// Chunk `n` as 3.3.5's `blosc2_schunk_get_lazychunk` returns it: for
    /// disk frames only header and block starts plus a trailer locating
    /// the blocks; otherwise the whole chunk.
    pub fn get_lazychunk(&mut self, n: i64) -> Result<Cow<'_, [u8]>> {
        let nchunks = self.nchunks();
        if n < 0 || n >= nchunks {
            return Err(Error::InvalidParam("nchunk out of range"));
        }
        self.current_nchunk = n;
        match &mut self.backend {
            Backend::Chunks(c) => Ok(Cow::Borrowed(&c[n as usize])),
            Backend::Frame(f) => f.lazy_chunk(n),
        }
    }

    /// The complete chunk a lazy chunk from [`SChunk::get_lazychunk`]
    /// stands for (a non-lazy chunk is returned as it is).
    pub fn resolve_lazychunk(&mut self, lazy: &[u8]) -> Result<Vec<u8>> {
        let h = chunk::read_header(lazy)?;
        if !h.is_extended() || h.blosc2_flags & blosc2_flags::LAZY_CHUNK == 0 || h.special_type() != 0 {
            return Ok(lazy.to_vec());
        }
        let nblocks = if h.vl_blocks() {
            h.blocksize as usize
        } else {
            (h.nbytes.max(0) as usize).div_ceil(h.blocksize.max(1) as usize)
        };
        let at = 32 + 4 * nblocks;
        let id = crate::engine::header::read_i32(lazy, at)?;
        let n = match self.frame().map(|f| f.kind().clone()) {
            Some(FrameKind::Sparse { .. }) => {
                let offs = self.offsets()?;
                offs.iter().position(|&o| o == i64::from(id)).ok_or(Error::NotFound)? as i64
            }
            _ => i64::from(id),
        };
        Ok(self.get_chunk(n)?.into_owned())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A super-chunk of separate chunks (not a frame), with a metalayer, a
    /// vlmetalayer, a zero chunk and more incompressible data than one
    /// move step of `Frame::into_cframe_with`.
    fn separate_chunks() -> SChunk {
        let storage = Storage {
            cparams: CParams {
                typesize: 4,
                ..CParams::default()
            },
            ..Storage::default()
        };
        let mut s = SChunk::new(storage).unwrap();
        s.meta_add("m", b"meta").unwrap();
        let mut x = 0x9e37_79b9_u32;
        let noise: Vec<u8> = (0..(1 << 20))
            .map(|_| {
                x ^= x << 13;
                x ^= x >> 17;
                x ^= x << 5;
                x as u8
            })
            .collect();
        for k in 0..3u8 {
            let mut c = noise.clone();
            c[0] = k;
            s.append_buffer(&c).unwrap();
        }
        s.append_buffer(&vec![0u8; 1 << 20]).unwrap();
        s.vlmeta_add("v", b"vlmeta", None).unwrap();
        s
    }

    #[test]
    fn frame_written_into_a_buffer_is_the_serialized_copy() {
        let mut s = separate_chunks();
        // What `to_cframe` returned before it moved the data region: the
        // copy's frame serialized.
        let mut copy = SChunk::new(s.copy_storage(None)).unwrap();
        copy.cctx.cparams.nthreads = 0;
        s.copy_into(&mut copy, true).unwrap();
        let expected = match &mut copy.backend {
            Backend::Frame(f) => f.to_cframe().unwrap(),
            Backend::Chunks(_) => unreachable!("a contiguous copy is a frame"),
        };
        assert!(expected.len() > 3 << 20);
        assert_eq!(s.to_cframe().unwrap(), expected);
        let boxed = s.to_cframe_with(|n| Ok(vec![7u8; n].into_boxed_slice())).unwrap();
        assert_eq!(&boxed[..], &expected[..]);
        // A buffer of the wrong length is refused, not overrun.
        assert_eq!(s.to_cframe_with(|n| Ok(vec![0u8; n - 1])), Err(Error::MemoryAlloc));
        let mut back = SChunk::from_cframe(expected, false).unwrap();
        assert_eq!(back.nchunks(), 4);
        for i in 0..4 {
            assert_eq!(
                back.decompress_chunk_vec(i).unwrap(),
                s.decompress_chunk_vec(i).unwrap()
            );
        }
        assert_eq!(back.meta_get("m").unwrap(), b"meta");
    }
}
