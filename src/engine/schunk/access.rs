//! Accessors the N-dimensional layer (`engine::b2nd`) builds on: a chunk
//! size announced before the first chunk, reading only some blocks of a
//! chunk, and following changes another handle made on disk.

use super::{Backend, SChunk, StoredChunk};
use crate::engine::context::Context;
use crate::engine::error::{Error, Result};
use crate::engine::frame::FrameKind;

impl SChunk {
    /// Announce the size of the chunks to come (3.3.5's b2nd sets
    /// `schunk->chunksize` before adding its metalayer, so the frame
    /// header records it even while the super-chunk has no chunks).
    /// Refused once chunks exist.
    pub fn set_chunksize(&mut self, chunksize: i32) -> Result<()> {
        if self.nchunks() > 0 || chunksize < 0 {
            return Err(Error::InvalidParam(
                "the chunk size can only be set before the first chunk",
            ));
        }
        self.chunksize = chunksize;
        Ok(())
    }

    /// Take the chunk size a C caller wrote into `schunk->chunksize`: 3.3.5
    /// keeps whatever is there (python-blosc2 sets it right after creating
    /// a super-chunk) and judges the next chunks by it. -1 means no chunk
    /// yet, 0 sizes that vary.
    pub fn adopt_chunksize(&mut self, chunksize: i32) -> Result<()> {
        if chunksize < -1 {
            return Err(Error::InvalidParam("chunksize"));
        }
        self.chunksize = chunksize;
        Ok(())
    }

    /// Take the chunk number a C caller wrote into `schunk->current_nchunk`.
    pub fn set_current_nchunk(&mut self, n: i64) {
        self.current_nchunk = n;
    }

    /// The chunks of an in-memory super-chunk without a frame, in order
    /// (what C reads through `schunk->data`); `None` for frames. Each
    /// chunk's bytes stay where they are until that chunk is replaced or
    /// removed.
    pub fn memory_chunks(&self) -> Option<&[StoredChunk]> {
        match &self.backend {
            Backend::Chunks(chunks) => Some(chunks),
            Backend::Frame(_) => None,
        }
    }

    /// Ready the decompression context for chunk `n`. It takes over the
    /// worker scratch from the compression context (never used at the
    /// same time): one set of block buffers per super-chunk rather than
    /// two, 1 MiB less resident memory with 2 threads and 512 KiB blocks.
    pub(super) fn use_dctx(&mut self, n: i64) {
        self.dctx.nchunk = n;
        if !self.scratch_in_dctx && self.cctx.trade_scratch(&mut self.dctx) {
            self.scratch_in_dctx = true;
        }
    }

    /// Swap the worker scratch of `ctx` with the super-chunk's own set
    /// (the one its compression and decompression contexts share) when
    /// they have the same number of threads; whether they were swapped.
    /// Calling it again swaps them back. For a context used in turns with
    /// the super-chunk's own (the C API's `schunk->dctx`), which so keeps no
    /// block buffers of its own.
    pub fn trade_scratch_with(&mut self, ctx: &mut Context) -> bool {
        if self.scratch_in_dctx {
            self.dctx.trade_scratch(ctx)
        } else {
            self.cctx.trade_scratch(ctx)
        }
    }

    /// Ready the compression context for chunk `n` (taking the worker
    /// scratch back, see [`SChunk::use_dctx`]).
    pub(super) fn use_cctx(&mut self, n: i64) {
        self.cctx.nchunk = n;
        if self.scratch_in_dctx && self.cctx.trade_scratch(&mut self.dctx) {
            self.scratch_in_dctx = false;
        }
    }

    /// The lowest index of [`SChunk::memory_chunks`] whose entry may have
    /// changed (other bytes, or bytes at another address) since the last
    /// call; `None` when none did. A new list counts as changed from 0.
    pub fn take_moved_chunks(&mut self) -> Option<usize> {
        let from = std::mem::replace(&mut self.chunks_moved_from, usize::MAX);
        (from != usize::MAX).then_some(from)
    }

    /// Whether the super-chunk lives in a file or a sparse directory.
    pub fn on_disk(&self) -> bool {
        matches!(&self.backend, Backend::Frame(f) if !matches!(f.kind(), FrameKind::Memory))
    }

    /// Lend the super-chunk's scratch buffer (compression uses it between
    /// calls): reading a slice decodes blocks into it instead of clearing
    /// a buffer of its own every time. Give it back with
    /// [`SChunk::put_scratch`].
    pub fn take_scratch(&mut self) -> Vec<u8> {
        std::mem::take(&mut self.compress_scratch)
    }

    /// Return a buffer lent by [`SChunk::take_scratch`] (the larger of it
    /// and any scratch allocated meanwhile is kept).
    pub fn put_scratch(&mut self, buf: Vec<u8>) {
        if buf.len() >= self.compress_scratch.len() {
            self.compress_scratch = buf;
        }
    }

    /// Decode the blocks `blocks` of chunk `n` with the context's threads,
    /// handing each to `sink(k, block)` (`k`: its index in `blocks`) from
    /// the worker that decoded it. `Ok(false)` (no block handed over) when
    /// the chunk's blocks are not `blocksize` bytes.
    pub fn decompress_blocks_each<S>(&mut self, n: i64, blocks: &[usize], blocksize: usize, sink: S) -> Result<bool>
    where
        S: Fn(usize, &[u8]) -> Result<()> + Sync,
    {
        self.check_index(n, false)?;
        self.current_nchunk = n;
        self.use_dctx(n);
        let c = super::ops::stored_chunk(&mut self.backend, n)?;
        self.dctx.decode_blocks_each(&c, blocks, blocksize, sink)
    }

    /// Run `fill(k, piece)` on every `piece`-byte piece of `dest` with
    /// the compression context's threads, as the compression of `dest`
    /// would use them (a b2nd chunk is gathered block by block so).
    pub fn prepare_in_pieces<F>(&mut self, dest: &mut [u8], piece: usize, fill: F) -> Result<()>
    where
        F: Fn(usize, &mut [u8]) -> Result<()> + Sync,
    {
        self.cctx.set_nthreads(self.cparams.nthreads);
        self.cctx.fill_pieces(dest, piece, fill)
    }

    /// Decode the byte ranges `ranges` (`(start, len)`, each within the
    /// chunk, aligned to items) of chunk `n` into `dest`, one after the
    /// other. From disk, only the blocks holding each range are read.
    pub fn read_chunk_ranges(&mut self, n: i64, ranges: &[(usize, usize)], dest: &mut [u8]) -> Result<()> {
        let total = ranges
            .iter()
            .try_fold(0usize, |acc, r| acc.checked_add(r.1))
            .ok_or(Error::InvalidParam("ranges"))?;
        if total > dest.len() {
            return Err(Error::WriteBuffer);
        }
        if n < 0 || n >= self.nchunks() {
            return Err(Error::InvalidParam("nchunk out of range"));
        }
        self.current_nchunk = n;
        self.use_dctx(n);
        let mut pos = 0usize;
        let one = |dctx: &mut crate::engine::context::Context, c: &[u8], (s, l): (usize, usize), d: &mut [u8]| {
            let got = dctx.getitem_bytes(c, s as i64, l as i64, d)?;
            if got != l {
                return Err(Error::Failure("short read"));
            }
            Ok(())
        };
        match &mut self.backend {
            Backend::Chunks(c) => {
                let c = &c[n as usize];
                for &r in ranges {
                    one(&mut self.dctx, c, r, &mut dest[pos..pos + r.1])?;
                    pos += r.1;
                }
            }
            Backend::Frame(f) if matches!(f.kind(), FrameKind::Memory) => {
                let c = f.chunk(n)?;
                for &r in ranges {
                    one(&mut self.dctx, &c, r, &mut dest[pos..pos + r.1])?;
                    pos += r.1;
                }
            }
            Backend::Frame(f) => {
                for &r in ranges {
                    let c = f.partial_chunk(n, r.0, r.1)?;
                    one(&mut self.dctx, &c, r, &mut dest[pos..pos + r.1])?;
                    pos += r.1;
                }
            }
        }
        Ok(())
    }

    /// Re-read a disk frame when another handle changed it since this one
    /// last read or wrote it. Returns whether it did.
    pub fn refresh_if_changed(&mut self) -> Result<bool> {
        let changed = match &mut self.backend {
            Backend::Frame(f) => f.changed_on_disk()?,
            Backend::Chunks(_) => false,
        };
        if changed {
            self.refresh()?;
        }
        Ok(changed)
    }
}
