//! A compression or decompression context: parameters plus the persistent
//! worker pool and scratch buffers. Contexts are independent of each
//! other, so any number can be used from different threads at once.

use super::chunk::{self, DecodeOptions};
use super::error::{Error, Result};
use super::params::{CParams, DParams};
use super::threads::Pool;

/// What a context is for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Mode {
    /// Compression context.
    Compress,
    /// Decompression context.
    Decompress,
}

/// The engine's `blosc2_context`.
pub struct Context {
    mode: Mode,
    /// Compression parameters (compression contexts).
    pub cparams: CParams,
    /// Decompression parameters.
    pub dparams: DParams,
    pool: Pool,
    maskout: Option<Vec<bool>>,
    /// Chunk number handed to pre/postfilters (-1 outside a super-chunk).
    pub nchunk: i64,
}

impl Context {
    /// A compression context.
    pub fn compressor(cparams: CParams) -> Context {
        let n = cparams.nthreads.max(1) as usize;
        Context {
            mode: Mode::Compress,
            cparams,
            dparams: DParams::default(),
            pool: Pool::new(n),
            maskout: None,
            nchunk: -1,
        }
    }

    /// A decompression context.
    pub fn decompressor(dparams: DParams) -> Context {
        let n = dparams.nthreads.max(1) as usize;
        Context {
            mode: Mode::Decompress,
            cparams: CParams::default(),
            dparams,
            pool: Pool::new(n),
            maskout: None,
            nchunk: -1,
        }
    }

    /// Compression or decompression.
    pub fn mode(&self) -> Mode {
        self.mode
    }

    /// Change the number of threads.
    pub fn set_nthreads(&mut self, nthreads: i16) {
        match self.mode {
            Mode::Compress => self.cparams.nthreads = nthreads,
            Mode::Decompress => self.dparams.nthreads = nthreads,
        }
        self.pool.set_nthreads(nthreads.max(1) as usize);
    }

    fn sync_threads(&mut self) {
        let n = match self.mode {
            Mode::Compress => self.cparams.nthreads,
            Mode::Decompress => self.dparams.nthreads,
        };
        self.pool.set_nthreads(n.max(1) as usize);
    }

    /// An error unless this is a context for `mode`.
    fn check_mode(&self, mode: Mode) -> Result<()> {
        if self.mode == mode {
            return Ok(());
        }
        Err(Error::InvalidParam(match mode {
            Mode::Compress => "context is not for compression",
            Mode::Decompress => "context is not for decompression",
        }))
    }

    /// [`Context::check_mode`], then size the pool to its parameters'
    /// thread count: what every threaded entry point does first.
    fn ready_for(&mut self, mode: Mode) -> Result<()> {
        self.check_mode(mode)?;
        self.sync_threads();
        Ok(())
    }

    /// Trade worker scratch with `other` (see [`Pool::trade_scratch`]),
    /// each at the thread count of its parameters; whether they did.
    pub(crate) fn trade_scratch(&mut self, other: &mut Context) -> bool {
        self.sync_threads();
        other.sync_threads();
        self.pool.trade_scratch(&mut other.pool)
    }

    /// Compress `src` into `dest`. Returns the chunk size, or 0 when it
    /// does not fit.
    pub fn compress(&mut self, src: &[u8], dest: &mut [u8]) -> Result<usize> {
        self.ready_for(Mode::Compress)?;
        chunk::compress(&self.cparams, src, dest, &mut self.pool, self.nchunk)
    }

    /// Compress the buffer `source` describes into `dest`, gathering its
    /// blocks as they are encoded (see [`chunk::compress::compress_blocks`]).
    /// `fresh_dest`: `dest` was just allocated and never written (see
    /// [`chunk::compress::compress_to_fresh`]).
    pub fn compress_blocks(
        &mut self,
        source: &dyn chunk::compress::BlockSource,
        dest: &mut [u8],
        fresh_dest: bool,
    ) -> Result<usize> {
        self.ready_for(Mode::Compress)?;
        chunk::compress::compress_blocks(&self.cparams, source, dest, fresh_dest, &mut self.pool, self.nchunk)
    }

    /// [`Context::compress`] into a buffer of the engine's own, reused or
    /// shrunk afterwards (see [`chunk::compress::compress_to_own`]).
    pub fn compress_to_own(&mut self, src: &[u8], dest: &mut [u8]) -> Result<usize> {
        self.ready_for(Mode::Compress)?;
        chunk::compress::compress_to_own(&self.cparams, src, dest, &mut self.pool, self.nchunk)
    }

    /// [`Context::compress`] into `dest` that was just allocated and never
    /// written (see [`chunk::compress::compress_to_fresh`]).
    pub fn compress_to_fresh(&mut self, src: &[u8], dest: &mut [u8]) -> Result<usize> {
        self.ready_for(Mode::Compress)?;
        chunk::compress::compress_to_fresh(&self.cparams, src, dest, &mut self.pool, self.nchunk)
    }

    /// Run `fill(k, piece)` on every `piece`-byte piece of `dest` with
    /// the context's threads: work that prepares a buffer for this context
    /// (a b2nd chunk gathered block by block before it is compressed).
    pub fn fill_pieces<F>(&mut self, dest: &mut [u8], piece: usize, fill: F) -> Result<()>
    where
        F: Fn(usize, &mut [u8]) -> Result<()> + Sync,
    {
        let piece = piece.max(1);
        self.sync_threads();
        let n = dest.len().div_ceil(piece);
        self.pool
            .run(n, dest.chunks_mut(piece).enumerate(), |(k, d), _| fill(k, d))
    }

    /// Compress several blocks into one VL-block chunk.
    pub fn vlcompress(&mut self, blocks: &[&[u8]], dest: &mut [u8]) -> Result<usize> {
        self.ready_for(Mode::Compress)?;
        chunk::vlcompress(&self.cparams, blocks, dest, &mut self.pool)
    }

    /// Skip the blocks whose entry is true in the next decompression only.
    pub fn set_maskout(&mut self, maskout: Vec<bool>) {
        self.maskout = Some(maskout);
    }

    /// Forget a maskout set with [`Context::set_maskout`].
    pub fn clear_maskout(&mut self) {
        self.maskout = None;
    }

    /// Whether decompressing a chunk stored as is ([`chunk::stored_as_is`])
    /// with this context is a plain copy of its data: a decompression
    /// context with no postfilter and no mask.
    pub fn copies_stored_as_is(&self) -> bool {
        self.mode == Mode::Decompress && self.dparams.postfilter.is_none() && self.maskout.is_none()
    }

    /// Decompress a chunk into `dest`. Returns the bytes written.
    pub fn decompress(&mut self, src: &[u8], dest: &mut [u8]) -> Result<usize> {
        self.ready_for(Mode::Decompress)?;
        let mask = self.maskout.take();
        let opts = DecodeOptions {
            postfilter: self.dparams.postfilter.as_ref(),
            maskout: mask.as_deref(),
            nchunk: self.nchunk,
            plugins: Some(&self.dparams.plugins),
        };
        chunk::decompress(src, dest, &mut self.pool, &opts)
    }

    /// The blocks `blocks` of a chunk, each handed to `sink` as soon as a
    /// worker has decoded it ([`chunk::decode_blocks_each`]); `Ok(false)`
    /// when the chunk's blocks are not `blocksize` bytes each.
    pub fn decode_blocks_each<S>(&mut self, src: &[u8], blocks: &[usize], blocksize: usize, sink: S) -> Result<bool>
    where
        S: Fn(usize, &[u8]) -> Result<()> + Sync,
    {
        self.ready_for(Mode::Decompress)?;
        let opts = DecodeOptions {
            postfilter: self.dparams.postfilter.as_ref(),
            maskout: None,
            nchunk: self.nchunk,
            plugins: Some(&self.dparams.plugins),
        };
        chunk::decode_blocks_each(src, blocks, blocksize, &mut self.pool, &opts, sink)
    }

    /// Items `start..start+nitems` of a chunk into `dest`.
    pub fn getitem(&mut self, src: &[u8], start: i64, nitems: i64, dest: &mut [u8]) -> Result<usize> {
        // Borrowed, not cloned: the pool is a different field, and an Arc
        // clone is two atomic operations on every call.
        let opts = DecodeOptions {
            postfilter: self.dparams.postfilter.as_ref(),
            maskout: None,
            nchunk: self.nchunk,
            plugins: Some(&self.dparams.plugins),
        };
        chunk::getitem(src, start, nitems, dest, &mut self.pool, &opts)
    }

    /// Bytes `start..start+nbytes` of a chunk into `dest`.
    pub fn getitem_bytes(&mut self, src: &[u8], start: i64, nbytes: i64, dest: &mut [u8]) -> Result<usize> {
        let opts = DecodeOptions {
            postfilter: self.dparams.postfilter.as_ref(),
            maskout: None,
            nchunk: self.nchunk,
            plugins: Some(&self.dparams.plugins),
        };
        chunk::getitem_bytes(src, start, nbytes, dest, &mut self.pool, &opts)
    }

    /// Decode every block of a VL-block chunk into buffers from `alloc`.
    pub fn vldecompress<B, A>(&mut self, src: &[u8], alloc: A) -> Result<Vec<B>>
    where
        B: AsMut<[u8]> + Send,
        A: FnMut(usize) -> Result<B>,
    {
        self.ready_for(Mode::Decompress)?;
        chunk::vldecompress(src, &mut self.pool, alloc)
    }

    /// Decode one block of a VL-block chunk into a buffer from `alloc`.
    pub fn vldecompress_block<B, A>(&mut self, src: &[u8], nblock: i32, alloc: A) -> Result<B>
    where
        B: AsMut<[u8]>,
        A: FnOnce(usize) -> Result<B>,
    {
        self.check_mode(Mode::Decompress)?;
        chunk::vldecompress_block(src, nblock, &mut self.pool.serial_scratch(), alloc)
    }
}

/// Compress `src` with `cparams` into a new vector (Rust convenience).
pub fn compress_vec(cparams: &CParams, src: &[u8]) -> Result<Vec<u8>> {
    let mut ctx = Context::compressor(cparams.clone());
    let mut out = vec![0u8; src.len() + super::constants::MAX_OVERHEAD];
    let n = ctx.compress(src, &mut out)?;
    if n == 0 {
        return Err(Error::WriteBuffer);
    }
    out.truncate(n);
    Ok(out)
}

/// Decompress a chunk into a new vector (Rust convenience).
pub fn decompress_vec(chunk_bytes: &[u8]) -> Result<Vec<u8>> {
    let (nbytes, _, _) = chunk::cbuffer_sizes(chunk_bytes)?;
    let mut out = vec![0u8; nbytes as usize];
    let mut ctx = Context::decompressor(DParams::default());
    let n = ctx.decompress(chunk_bytes, &mut out)?;
    out.truncate(n);
    Ok(out)
}
