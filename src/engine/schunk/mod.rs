//! Super-chunks: ordered collections of chunks sharing compression
//! parameters, kept as a plain list of chunks in memory or in a frame (in
//! memory, in a file, or in a sparse directory), with fixed metalayers
//! and variable-length metalayers. This is the engine behind
//! `blosc2_schunk_*`; every C function maps to one method here.

#![forbid(unsafe_code)]

mod access;
mod convert;
mod meta;
mod ops;
mod plugins;
mod slice;
mod stored;

use std::path::PathBuf;
use std::sync::Arc;

use crate::engine::constants::{blosc2_flags2, MAX_FILTERS};
use crate::engine::context::Context;
use crate::engine::error::{Error, Result};
use crate::engine::frame::edit::Props;
use crate::engine::frame::io::{self, FrameFs};
use crate::engine::frame::lock::FrameLock;
use crate::engine::frame::{Frame, FrameBytes, FrameKind, Meta};
use crate::engine::params::{CParams, DParams};

pub use crate::engine::chunk::SpecialKind;
pub use stored::{HandedBytes, Refused, StoredChunk};

/// Where and how a super-chunk is stored (`blosc2_storage`).
#[derive(Clone, Default)]
pub struct Storage {
    /// Store as a contiguous frame (`true`) or as separate chunks / a
    /// sparse directory (`false`).
    pub contiguous: bool,
    /// File (contiguous) or directory (sparse) to persist to; `None` keeps
    /// the super-chunk in memory.
    pub urlpath: Option<String>,
    /// Compression parameters.
    pub cparams: CParams,
    /// Decompression parameters.
    pub dparams: DParams,
    /// File system to use (the real one when `None`); tests inject faults
    /// through it.
    pub fs: Option<Arc<dyn FrameFs>>,
}

impl std::fmt::Debug for Storage {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Storage")
            .field("contiguous", &self.contiguous)
            .field("urlpath", &self.urlpath)
            .finish_non_exhaustive()
    }
}

/// How the chunks are held.
enum Backend {
    /// In memory, one buffer per chunk (no frame).
    Chunks(Vec<StoredChunk>),
    /// In a frame (memory, file or sparse directory).
    Frame(Box<Frame>),
}

/// A super-chunk (`blosc2_schunk`).
pub struct SChunk {
    cparams: CParams,
    dparams: DParams,
    /// Block size recorded in frame headers (`schunk->blocksize`).
    blocksize: i32,
    /// Chunk size: -1 until the first chunk, 0 when sizes vary.
    chunksize: i32,
    /// `blosc2_flags2` of the chunks (VL blocks).
    flags2: u8,
    nbytes: i64,
    cbytes: i64,
    /// The block size the compression context would use next: 3.3.5's
    /// context keeps the block size of the previous chunk.
    sticky_blocksize: i32,
    /// Where chunks are compressed before their exact bytes are kept:
    /// one chunk-sized buffer for the super-chunk's lifetime instead of a
    /// zeroed chunk-sized allocation per chunk. b2nd slices borrow it for
    /// the blocks they decode.
    compress_scratch: Vec<u8>,
    /// The lowest index of the in-memory chunk list whose entry may hold
    /// other bytes (at another address) since [`SChunk::take_moved_chunks`]
    /// last asked; `usize::MAX` when none. The C layer re-points only
    /// those `schunk->data` entries instead of all of them on every call.
    chunks_moved_from: usize,
    /// Whether `dctx` holds the worker scratch the two contexts share
    /// (see [`SChunk::use_dctx`]).
    scratch_in_dctx: bool,
    metas: Vec<Meta>,
    vlmetas: Vec<Meta>,
    backend: Backend,
    contiguous: bool,
    urlpath: Option<String>,
    fs: Arc<dyn FrameFs>,
    cctx: Context,
    dctx: Context,
    current_nchunk: i64,
    /// Opt-in cross-process frame lock (`BLOSC_LOCKING`, stdio `locking`).
    lock: Option<FrameLock>,
}

impl std::fmt::Debug for SChunk {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SChunk")
            .field("nchunks", &self.nchunks())
            .field("nbytes", &self.nbytes)
            .field("cbytes", &self.cbytes)
            .field("chunksize", &self.chunksize)
            .field("contiguous", &self.contiguous)
            .field("urlpath", &self.urlpath)
            .finish_non_exhaustive()
    }
}

impl SChunk {
    /// A new, empty super-chunk (`blosc2_schunk_new`). With a `urlpath`,
    /// the file (contiguous) or directory (sparse) must not exist yet.
    pub fn new(storage: Storage) -> Result<SChunk> {
        let fs = storage.fs.clone().unwrap_or_else(io::std_fs);
        let mut s = SChunk::bare(storage.cparams, storage.dparams, fs.clone());
        s.contiguous = storage.contiguous;
        let urlpath = storage.urlpath.as_deref().map(|p| io::normalize_urlpath(p).to_string());
        let props = s.props();
        s.backend = match (&urlpath, storage.contiguous) {
            (None, false) => Backend::Chunks(Vec::new()),
            (None, true) => Backend::Frame(Box::new(Frame::new_memory(&props, Vec::new())?)),
            (Some(p), true) => Backend::Frame(Box::new(Frame::create_file(fs, &PathBuf::from(p), &props, Vec::new())?)),
            (Some(p), false) => {
                let trimmed = p.trim_end_matches(['/', '\\']);
                Backend::Frame(Box::new(Frame::create_sparse(
                    fs,
                    &PathBuf::from(trimmed),
                    &props,
                    Vec::new(),
                )?))
            }
        };
        s.urlpath = urlpath;
        Ok(s)
    }

    fn bare(cparams: CParams, dparams: DParams, fs: Arc<dyn FrameFs>) -> SChunk {
        let mut s = SChunk {
            blocksize: cparams.blocksize,
            sticky_blocksize: cparams.blocksize,
            compress_scratch: Vec::new(),
            chunks_moved_from: 0,
            scratch_in_dctx: false,
            cctx: Context::compressor(cparams.clone()),
            dctx: Context::decompressor(dparams.clone()),
            cparams,
            dparams,
            chunksize: -1,
            flags2: 0,
            nbytes: 0,
            cbytes: 0,
            metas: Vec::new(),
            vlmetas: Vec::new(),
            backend: Backend::Chunks(Vec::new()),
            contiguous: false,
            urlpath: None,
            fs,
            // 3.3.5 starts every super-chunk (new, opened, copied) at 0.
            current_nchunk: 0,
            lock: None,
        };
        s.refresh_plugin_env();
        s
    }

    /// A super-chunk over an opened frame, with its parameters taken from
    /// the frame header.
    fn from_frame(frame: Frame, fs: Arc<dyn FrameFs>) -> Result<SChunk> {
        let h = frame.header().clone();
        let cparams = CParams {
            compcode: h.compcode(),
            compcode_meta: h.compcode_meta,
            clevel: h.clevel(),
            use_dict: h.use_dict(),
            typesize: h.typesize,
            nthreads: 1,
            blocksize: h.blocksize,
            splitmode: h.splitmode(),
            filters: h.filters,
            filters_meta: h.filters_meta,
            ..CParams::default()
        };
        let mut s = SChunk::bare(
            cparams,
            DParams {
                typesize: h.typesize,
                ..DParams::default()
            },
            fs,
        );
        s.load_from_frame(frame)?;
        Ok(s)
    }

    /// Take counters and metalayers from `frame` and attach it.
    fn load_from_frame(&mut self, frame: Frame) -> Result<()> {
        let h = frame.header().clone();
        self.nbytes = h.nbytes;
        self.cbytes = h.cbytes;
        self.chunksize = h.chunksize;
        self.blocksize = h.blocksize;
        self.metas = frame.metas().to_vec();
        self.vlmetas = frame.vlmetas().to_vec();
        self.contiguous = !matches!(frame.kind(), FrameKind::Sparse { .. });
        let nchunks = frame.nchunks();
        self.backend = Backend::Frame(Box::new(frame));
        self.refresh_plugin_env();
        self.flags2 = 0;
        if nchunks > 0 {
            if let Backend::Frame(f) = &mut self.backend {
                let head = f.chunk_head(0)?;
                // Only an extended header has a flags2 byte.
                self.flags2 = if head[2] & 0x05 == 0x05 { head[30] } else { 0 };
            }
        }
        Ok(())
    }

    /// Open a frame stored in a file (at `offset`) or in a sparse
    /// directory (`blosc2_schunk_open_offset`).
    pub fn open(urlpath: &str, offset: i64) -> Result<SChunk> {
        SChunk::open_with(urlpath, offset, io::std_fs())
    }

    /// [`SChunk::open`] through a given file system.
    pub fn open_with(urlpath: &str, offset: i64, fs: Arc<dyn FrameFs>) -> Result<SChunk> {
        let offset = u64::try_from(offset).map_err(|_| Error::InvalidParam("negative frame offset"))?;
        let p = io::normalize_urlpath(urlpath);
        let path = PathBuf::from(p.trim_end_matches(['/', '\\']));
        let frame = Frame::open(fs.clone(), &path, offset)?;
        let mut s = SChunk::from_frame(frame, fs)?;
        s.urlpath = Some(urlpath.to_string());
        Ok(s)
    }

    /// [`SChunk::open_with`] with file locking on, as 3.3.5 opens when
    /// locking is requested: the frame is read under the shared lock, so
    /// the open waits while another handle (or process) holds the lock
    /// for an edit, and never reads a state a writer is halfway through.
    pub fn open_locking(urlpath: &str, offset: i64, fs: Arc<dyn FrameFs>) -> Result<SChunk> {
        let p = io::normalize_urlpath(urlpath);
        let trimmed = p.trim_end_matches(['/', '\\']);
        // A missing frame fails before a sidecar is created for it.
        let sparse = fs.stat(std::path::Path::new(trimmed)).ok_or(Error::FileOpen)?;
        let mut lock = FrameLock::new(urlpath, sparse);
        lock.acquire(false)?;
        let opened = SChunk::open_with(urlpath, offset, fs);
        let released = lock.release();
        let mut s = opened?;
        released?;
        s.lock = Some(lock);
        Ok(s)
    }

    /// A super-chunk out of a contiguous frame buffer
    /// (`blosc2_schunk_from_buffer`). Without `copy` the super-chunk keeps
    /// the frame (contiguous storage); with `copy` it holds separate
    /// chunks.
    pub fn from_cframe(cframe: Vec<u8>, copy: bool) -> Result<SChunk> {
        SChunk::from_frame_bytes(FrameBytes::owned(cframe), copy)
    }

    /// [`SChunk::from_cframe`] over shared or lent bytes: without `copy`
    /// the frame reads its chunks from `cframe` (no copy of the frame is
    /// made until an edit changes the chunk data); with `copy` each chunk
    /// is copied out once.
    pub fn from_frame_bytes(cframe: FrameBytes, copy: bool) -> Result<SChunk> {
        let frame = Frame::from_bytes(cframe)?;
        let mut s = SChunk::from_frame(frame, io::std_fs())?;
        if copy {
            s.detach_to_chunks()?;
        }
        Ok(s)
    }

    /// The properties a frame header records.
    fn props(&self) -> Props {
        Props {
            nbytes: self.nbytes,
            typesize: self.cparams.typesize,
            blocksize: self.blocksize,
            chunksize: self.chunksize,
            compcode: self.cparams.compcode,
            compcode_meta: self.cparams.compcode_meta,
            clevel: self.cparams.clevel,
            splitmode: self.cparams.splitmode,
            filters: self.cparams.filters,
            filters_meta: self.cparams.filters_meta,
            use_dict: self.cparams.use_dict,
            nthreads_c: self.cparams.nthreads,
            nthreads_d: self.dparams.nthreads,
            vl_blocks: self.flags2 & blosc2_flags2::VL_BLOCKS != 0,
        }
    }

    /// Number of chunks.
    pub fn nchunks(&self) -> i64 {
        match &self.backend {
            Backend::Chunks(c) => c.len() as i64,
            Backend::Frame(f) => f.nchunks(),
        }
    }

    /// Uncompressed bytes.
    pub fn nbytes(&self) -> i64 {
        self.nbytes
    }

    /// Compressed bytes (for frames, the length of the chunk data region,
    /// as 3.3.5 reports it).
    pub fn cbytes(&self) -> i64 {
        self.cbytes
    }

    /// Item size.
    pub fn typesize(&self) -> i32 {
        self.cparams.typesize
    }

    /// Chunk size (-1 before the first chunk, 0 when sizes vary).
    pub fn chunksize(&self) -> i32 {
        self.chunksize
    }

    /// Block size recorded for the super-chunk (0 = automatic).
    pub fn blocksize(&self) -> i32 {
        self.blocksize
    }

    /// Codec id.
    pub fn compcode(&self) -> u8 {
        self.cparams.compcode
    }

    /// Codec metadata.
    pub fn compcode_meta(&self) -> u8 {
        self.cparams.compcode_meta
    }

    /// Compression level.
    pub fn clevel(&self) -> u8 {
        self.cparams.clevel
    }

    /// Split mode.
    pub fn splitmode(&self) -> i32 {
        self.cparams.splitmode
    }

    /// Filter pipeline.
    pub fn filters(&self) -> [u8; MAX_FILTERS] {
        self.cparams.filters
    }

    /// Filter metadata.
    pub fn filters_meta(&self) -> [u8; MAX_FILTERS] {
        self.cparams.filters_meta
    }

    /// Whether chunks use dictionaries.
    pub fn use_dict(&self) -> bool {
        self.cparams.use_dict
    }

    /// `blosc2_flags2` of the chunks (bit 0: VL blocks).
    pub fn flags2(&self) -> u8 {
        self.flags2
    }

    /// The block size the compression context keeps from the last chunk
    /// it compressed (what 3.3.5's `blosc2_ctx_get_cparams` reports for
    /// `schunk->cctx`).
    pub fn context_blocksize(&self) -> i32 {
        self.sticky_blocksize
    }

    /// The chunk last accessed (`current_nchunk`).
    pub fn current_nchunk(&self) -> i64 {
        self.current_nchunk
    }

    /// Whether the storage is contiguous.
    pub fn contiguous(&self) -> bool {
        self.contiguous
    }

    /// The file or directory the super-chunk lives in.
    pub fn urlpath(&self) -> Option<&str> {
        self.urlpath.as_deref()
    }

    /// The frame behind the super-chunk, if any.
    pub fn frame(&self) -> Option<&Frame> {
        match &self.backend {
            Backend::Frame(f) => Some(f),
            Backend::Chunks(_) => None,
        }
    }

    /// The compression parameters (`blosc2_schunk_get_cparams`).
    pub fn cparams(&self) -> CParams {
        self.cparams.clone()
    }

    /// The decompression parameters (`blosc2_schunk_get_dparams`).
    pub fn dparams(&self) -> DParams {
        self.dparams.clone()
    }

    /// Length of the frame (`blosc2_schunk_frame_len`); without a frame,
    /// 3.3.5's estimate `cbytes + 8 * nchunks`.
    pub fn frame_len(&self) -> i64 {
        match &self.backend {
            Backend::Frame(f) => f.len(),
            Backend::Chunks(_) => self.cbytes + 8 * self.nchunks(),
        }
    }

    /// The raw offsets of the frame (`blosc2_frame_get_offsets`).
    pub fn offsets(&self) -> Result<Vec<i64>> {
        match &self.backend {
            Backend::Frame(f) => Ok(f.offsets().to_vec()),
            Backend::Chunks(_) => Err(Error::FrameType),
        }
    }

    /// Re-read a disk frame another handle may have changed
    /// (`blosc2_schunk_refresh`); a no-op in memory.
    pub fn refresh(&mut self) -> Result<()> {
        match &mut self.backend {
            Backend::Frame(f) if !matches!(f.kind(), FrameKind::Memory) => {
                f.refresh()?;
            }
            _ => return Ok(()),
        };
        let backend = std::mem::replace(&mut self.backend, Backend::Chunks(Vec::new()));
        match backend {
            Backend::Frame(f) => self.load_from_frame(*f),
            other => {
                self.backend = other;
                Ok(())
            }
        }
    }

    /// Turn on advisory file locking for this on-disk frame, interoperable
    /// with C-Blosc2 3.3.5's `.b2lock` sidecar. A no-op in memory.
    pub fn enable_locking(&mut self) {
        if self.lock.is_some() {
            return;
        }
        if let Some(path) = self.urlpath.clone() {
            self.lock = Some(FrameLock::new(&path, !self.contiguous));
        }
    }

    /// True when advisory file locking is on.
    pub fn locking(&self) -> bool {
        self.lock.is_some()
    }

    /// Take the exclusive frame lock (`blosc2_schunk_lock`); nested calls
    /// only count. When another handle changed the frame meanwhile, it is
    /// re-read. Without locking this only serializes through `&mut self`.
    pub fn lock(&mut self) -> Result<()> {
        self.lock_and_follow().map(|_| ())
    }

    /// [`SChunk::lock`], saying whether the frame was re-read (its chunks,
    /// metalayers and vlmetalayers may all have changed).
    pub fn lock_and_follow(&mut self) -> Result<bool> {
        let changed = match &mut self.lock {
            Some(l) => l.acquire(true)?,
            None => return Ok(false),
        };
        if changed {
            if let Err(e) = self.refresh() {
                let _ = self.unlock();
                return Err(e);
            }
        }
        Ok(changed)
    }

    /// Release one level of the frame lock (`blosc2_schunk_unlock`).
    pub fn unlock(&mut self) -> Result<()> {
        match &mut self.lock {
            Some(l) => l.release(),
            None => Ok(()),
        }
    }

    /// Rewrite a file frame without the dead bytes edits leave behind.
    pub fn compact(&mut self) -> Result<()> {
        let props = self.props();
        if let Backend::Frame(f) = &mut self.backend {
            f.compact(&props)?;
            self.cbytes = f.header().cbytes;
        }
        Ok(())
    }
}

/// Remove a sparse frame directory (`blosc2_remove_dir`).
pub fn remove_dir(path: &str) -> Result<()> {
    io::remove_dir(path)
}

/// Remove a file or directory (`blosc2_remove_urlpath`).
pub fn remove_urlpath(path: &str) -> Result<()> {
    io::remove_urlpath(path)
}

/// Rename a file or directory (`blosc2_rename_urlpath`).
pub fn rename_urlpath(from: &str, to: &str) -> Result<()> {
    io::rename_urlpath(from, to)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::chunk;
    use crate::engine::params::{Postfilter, PostfilterArgs};

    fn storage(contiguous: bool) -> Storage {
        let cparams = CParams {
            compcode: 1,
            typesize: 4,
            ..CParams::default()
        };
        Storage {
            contiguous,
            cparams,
            ..Storage::default()
        }
    }

    #[test]
    fn append_read_and_bad_indexes() {
        for contiguous in [false, true] {
            let mut s = SChunk::new(storage(contiguous)).unwrap();
            let data: Vec<u8> = (0..10_000u32).map(|i| (i % 13) as u8).collect();
            assert_eq!(s.append_buffer(&data).unwrap(), 1);
            assert_eq!(s.append_buffer(&data[..400]).unwrap(), 2);
            assert_eq!((s.nchunks(), s.nbytes(), s.chunksize()), (2, 10_400, 10_000));
            assert_eq!(s.decompress_chunk_vec(1).unwrap(), &data[..400]);
            let mut small = [0u8; 10];
            assert_eq!(s.decompress_chunk(0, &mut small), Err(Error::WriteBuffer));
            for n in [-1, 2, i64::MAX] {
                assert!(s.get_chunk(n).is_err());
                assert!(s.decompress_chunk_vec(n).is_err());
                assert!(s.delete_chunk(n).is_err());
            }
            let c0 = s.get_chunk(0).unwrap().into_owned();
            assert!(s.insert_chunk(3, &c0).is_err());
            assert!(s.append_chunk(&[1, 2, 3]).is_err());
            assert!(s.reorder_offsets(&[0, 0]).is_err());
            assert!(s.reorder_offsets(&[1]).is_err());
            assert_eq!(s.frame().is_some(), contiguous);
            assert_eq!(s.offsets().is_ok(), contiguous);
        }
    }

    /// Chunks stored as is (memcpyed) of a file frame are read straight
    /// into the destination: the bytes and the errors are those of
    /// decompressing the chunk, a postfilter or a mask still applies, and
    /// chunks of growing and shrinking sizes share the read buffer.
    #[test]
    fn file_frame_chunks_stored_as_is_read_into_the_destination() {
        let dir = std::env::temp_dir().join(format!("b2-as-is-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("f.b2frame").to_string_lossy().into_owned();
        let stored = CParams {
            clevel: 0,
            blocksize: 4096,
            ..storage(true).cparams
        };
        let noise = |n: usize, seed: u32| -> Vec<u8> {
            (0..n as u32)
                .map(|i| (i.wrapping_mul(2_654_435_761) ^ seed).to_le_bytes()[2])
                .collect()
        };
        let sizes = [10_000, 400, 30_000, 20_000];
        let datas: Vec<Vec<u8>> = sizes.iter().zip(0..).map(|(&n, k)| noise(n, k)).collect();
        let bump: Postfilter = Arc::new(|a: &mut PostfilterArgs<'_>| {
            for (o, i) in a.output.iter_mut().zip(a.input.iter()) {
                *o = i.wrapping_add(1);
            }
            0
        });
        {
            let mut st = storage(true);
            st.urlpath = Some(path.clone());
            st.cparams = stored.clone();
            st.dparams.postfilter = Some(bump);
            let mut s = SChunk::new(st).unwrap();
            for d in &datas {
                s.append_buffer(d).unwrap();
            }
            // One compressed chunk among them.
            s.append_chunk(&crate::engine::context::compress_vec(&storage(true).cparams, &[7u8; 5000]).unwrap())
                .unwrap();
            let mut out = vec![0u8; 400];
            assert_eq!(s.decompress_chunk(1, &mut out), Ok(400));
            let bumped: Vec<u8> = datas[1].iter().map(|b| b.wrapping_add(1)).collect();
            assert_eq!(out, bumped, "the postfilter ran");
        }
        let mut s = SChunk::open(&path, 0).unwrap();
        for (n, d) in datas.iter().enumerate() {
            let h = chunk::read_header(&s.chunk_to_decode(n as i64).unwrap()).unwrap();
            assert!(h.memcpyed(), "chunk {n} stored as is");
            let mut out = vec![0xEEu8; d.len() + 100];
            assert_eq!(s.decompress_chunk(n as i64, &mut out), Ok(d.len()));
            assert_eq!(&out[..d.len()], &d[..]);
            assert!(out[d.len()..].iter().all(|&b| b == 0xEE), "nothing past nbytes written");
            let mut short = vec![0u8; d.len() - 1];
            assert_eq!(s.decompress_chunk(n as i64, &mut short), Err(Error::WriteBuffer));
        }
        assert_eq!(s.decompress_chunk_vec(4).unwrap(), vec![7u8; 5000]);
        // Blocks masked out keep what the destination held.
        let h = chunk::read_header(&s.chunk_to_decode(2).unwrap()).unwrap();
        let nblocks = (30_000usize).div_ceil(h.blocksize as usize);
        assert!(nblocks > 1);
        let mut mask = vec![false; nblocks];
        mask[0] = true;
        let mut out = vec![0xEEu8; 30_000];
        assert_eq!(s.decompress_chunk_masked(2, &mut out, mask), Ok(30_000));
        let bs = h.blocksize as usize;
        assert!(out[..bs].iter().all(|&b| b == 0xEE));
        assert_eq!(&out[bs..], &datas[2][bs..]);
        drop(s);
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn metalayer_rules() {
        let mut s = SChunk::new(storage(true)).unwrap();
        assert_eq!(s.meta_add("a", b"123").unwrap(), 0);
        assert!(s.meta_add("a", b"x").is_err());
        assert!(s.meta_add(&"n".repeat(32), b"x").is_err());
        assert_eq!(s.meta_get("zz"), Err(Error::MetalayerNotFound));
        for i in 1..16 {
            s.meta_add(&format!("m{i}"), b"").unwrap();
        }
        assert!(s.meta_add("one-too-many", b"").is_err());
        s.append_buffer(&[1u8; 100]).unwrap();
        assert_eq!(s.meta_update("a", b"9").unwrap(), 0);
        assert_eq!(s.meta_get("a").unwrap(), b"923");
        let r = SChunk::from_cframe(s.to_cframe().unwrap(), false).unwrap();
        assert_eq!(r.metalayers().len(), 16);
        assert_eq!(r.meta_get("a").unwrap(), b"923");
        for i in 0..16 {
            s.vlmeta_add(&format!("v{i}"), b"c", None).unwrap();
        }
        // 3.3.5's trailer holds at most 16 vlmetalayers.
        assert!(s.vlmeta_add("v16", b"c", None).is_err());
        assert_eq!(s.vlmeta_names().len(), 16);
    }
}
