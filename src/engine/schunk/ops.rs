//! Chunk-level operations of a super-chunk: append, insert, update,
//! delete, reorder, read and decompress.

use std::borrow::Cow;

use super::stored::{HandedBytes, Refused, StoredChunk};
use super::{Backend, SChunk};
use crate::engine::chunk::{self, compress::BlockSource, SpecialKind};
use crate::engine::constants::{blosc2_flags2, EXTENDED_HEADER_LENGTH, MAX_OVERHEAD};
use crate::engine::error::{Error, Result};
use crate::engine::frame::edit::{Edit, Props};
use crate::engine::frame::offsets;
use crate::engine::frame::Fetched;

/// Sizes and flags of a chunk handed in by the caller.
#[derive(Clone, Copy)]
struct Incoming {
    nbytes: i32,
    cbytes: usize,
    vl: bool,
}

/// Check a caller's chunk: a readable header whose cbytes fits the buffer.
fn inspect(c: &[u8]) -> Result<Incoming> {
    let h = chunk::read_header(c)?;
    let cbytes = h.cbytes as usize;
    if cbytes > c.len() {
        return Err(Error::ReadBuffer);
    }
    Ok(Incoming {
        nbytes: h.nbytes,
        cbytes,
        vl: h.is_extended() && h.vl_blocks(),
    })
}

/// What an edit does to the counters, decided before anything is written.
struct Next {
    nbytes: i64,
    chunksize: i32,
    flags2: u8,
}

/// `chunksize`, or 0 (sizes vary) when a frame reader could not count the
/// `nchunks` chunks from it: a fixed-size frame records no chunk count, so
/// readers (3.3.5's and ours) take `ceil(nbytes / chunksize)`. The edits
/// keep that true for a layout that was sound, but a crafted frame may
/// hold chunks of other sizes; editing one would otherwise write a frame
/// that no longer opens. A variable-size frame counts its offsets.
fn countable_chunksize(nbytes: i64, chunksize: i32, nchunks: i64) -> i32 {
    if chunksize <= 0 || nbytes <= 0 {
        return chunksize;
    }
    let cs = i64::from(chunksize);
    if (nbytes + cs - 1) / cs == nchunks {
        chunksize
    } else {
        0
    }
}

/// The counters `next` checked for a super-chunk of `after` chunks.
fn checked_next(mut next: Next, after: i64) -> Result<Next> {
    // A damaged chunk may claim more bytes than the frame holds: taking
    // it out would write a header that no reader opens.
    if next.nbytes < 0 {
        return Err(Error::InvalidHeader);
    }
    next.chunksize = countable_chunksize(next.nbytes, next.chunksize, after);
    Ok(next)
}

impl SChunk {
    pub(super) fn check_index(&self, n: i64, allow_end: bool) -> Result<usize> {
        let nchunks = self.nchunks();
        if n < 0 || n > nchunks || (n == nchunks && !allow_end) {
            return Err(Error::InvalidParam("nchunk out of range"));
        }
        Ok(n as usize)
    }

    /// Uncompressed size of chunk `n` (reads only its header).
    pub fn chunk_nbytes(&mut self, n: i64) -> Result<i32> {
        let i = self.check_index(n, false)?;
        match &mut self.backend {
            Backend::Chunks(c) => Ok(chunk::cbuffer_sizes(&c[i])?.0),
            Backend::Frame(f) => Ok(chunk::cbuffer_sizes(&f.chunk_head(n)?)?.0),
        }
    }

    /// Whether the chunks are VL-block chunks, judged from chunk `n`.
    fn chunk_is_vl(&mut self, n: i64) -> Result<bool> {
        // Only the header is read: borrowed in memory (a copy of the whole
        // chunk here cost every append and update a chunk-sized memcpy).
        let h = match &mut self.backend {
            Backend::Chunks(c) => chunk::read_header(&c[n as usize])?,
            Backend::Frame(f) => chunk::read_header(&f.chunk_head(n)?)?,
        };
        Ok(h.is_extended() && h.vl_blocks())
    }

    /// The flags2 to record, refusing to mix VL-block and regular chunks
    /// (`reference` is a chunk that stays).
    fn next_flags2(&mut self, inc: &Incoming, reference: Option<i64>, err: Error) -> Result<u8> {
        match reference {
            Some(r) => {
                if self.chunk_is_vl(r)? != inc.vl {
                    return Err(err);
                }
                Ok(self.flags2)
            }
            None => Ok(if inc.vl { blosc2_flags2::VL_BLOCKS } else { 0 }),
        }
    }

    /// Append a compressed chunk (`blosc2_schunk_append_chunk`). Returns
    /// the new number of chunks.
    pub fn append_chunk(&mut self, c: &[u8]) -> Result<i64> {
        let (next, inc) = self.plan_append(c)?;
        self.commit(next, Edit::Append(c), |chunks| {
            chunks.push(c[..inc.cbytes].to_vec().into());
            inc.cbytes as i64
        })?;
        Ok(self.nchunks())
    }

    /// Append a chunk handed over by its owner
    /// (`blosc2_schunk_append_chunk` with `copy = false`): an in-memory
    /// list keeps the buffer itself, as 3.3.5 does; a frame copies the
    /// chunk in and the buffer is released. A refused chunk comes back.
    pub fn append_handed(&mut self, c: Box<dyn HandedBytes>) -> std::result::Result<i64, Refused> {
        self.append_stored(StoredChunk::Handed(c))
    }

    /// Append a chunk this super-chunk just compressed: an in-memory list
    /// keeps the vector itself instead of a copy of it.
    fn append_owned(&mut self, c: Vec<u8>) -> Result<i64> {
        self.append_stored(c.into()).map_err(|r| r.error)
    }

    /// Append `c`, kept as it is by an in-memory list.
    fn append_stored(&mut self, c: StoredChunk) -> std::result::Result<i64, Refused> {
        let (next, inc) = match self.plan_append(&c) {
            Ok(p) => p,
            Err(e) => return Err(c.refused(e)),
        };
        let at = self.nchunks() as usize;
        self.keep_or_commit(next, c, inc, Keep::Insert(at))
    }

    /// Check chunk `c` for an append; the counters after it and its
    /// sizes.
    fn plan_append(&mut self, c: &[u8]) -> Result<(Next, Incoming)> {
        let inc = inspect(c)?;
        let nchunks = self.nchunks();
        let flags2 = self.next_flags2(&inc, (nchunks > 0).then_some(0), Error::ChunkAppend)?;
        let mut chunksize = self.chunksize;
        let mut variable = chunksize == 0;
        if chunksize == -1 {
            chunksize = inc.nbytes;
        }
        if !variable && nchunks > 0 {
            let last = self.chunk_nbytes(nchunks - 1)?;
            if last < chunksize || inc.nbytes > chunksize {
                variable = true;
            }
        }
        // An empty chunk after others would make the chunk count
        // unrecoverable from the sizes (3.3.5's known bug 6): go variable.
        // 3.3.5 refuses a first chunk larger than a preset chunk size; a
        // variable size keeps the frame consistent instead.
        if (inc.nbytes == 0 && nchunks > 0) || inc.nbytes > chunksize {
            variable = true;
        }
        let next = Next {
            nbytes: self.nbytes + i64::from(inc.nbytes),
            chunksize: if variable { 0 } else { chunksize },
            flags2,
        };
        self.current_nchunk = nchunks;
        Ok((next, inc))
    }

    /// Insert a compressed chunk before position `n`
    /// (`blosc2_schunk_insert_chunk`). Returns the new number of chunks.
    pub fn insert_chunk(&mut self, n: i64, c: &[u8]) -> Result<i64> {
        let (i, next, inc) = self.plan_insert(n, c)?;
        self.commit(next, Edit::Insert(i, c), |chunks| {
            chunks.insert(i, c[..inc.cbytes].to_vec().into());
            inc.cbytes as i64
        })?;
        Ok(self.nchunks())
    }

    /// Insert a chunk handed over by its owner before position `n`
    /// (`blosc2_schunk_insert_chunk` with `copy = false`); kept as in
    /// [`SChunk::append_handed`].
    pub fn insert_handed(&mut self, n: i64, c: Box<dyn HandedBytes>) -> std::result::Result<i64, Refused> {
        let c = StoredChunk::Handed(c);
        let (i, next, inc) = match self.plan_insert(n, &c) {
            Ok(p) => p,
            Err(e) => return Err(c.refused(e)),
        };
        self.keep_or_commit(next, c, inc, Keep::Insert(i))
    }

    /// Check chunk `c` for an insert before position `n`: its index, the
    /// counters after it and its sizes.
    fn plan_insert(&mut self, n: i64, c: &[u8]) -> Result<(usize, Next, Incoming)> {
        let i = self.check_index(n, true)?;
        let inc = inspect(c)?;
        let nchunks = self.nchunks();
        let flags2 = self.next_flags2(&inc, (nchunks > 0).then_some(0), Error::ChunkInsert)?;
        let mut chunksize = self.chunksize;
        let mut variable = chunksize == 0;
        if chunksize == -1 {
            chunksize = inc.nbytes;
        }
        if !variable && nchunks > 0 {
            let last = self.chunk_nbytes(nchunks - 1)?;
            if last < chunksize || inc.nbytes > chunksize || (n != nchunks && inc.nbytes != chunksize) {
                variable = true;
            }
        }
        // 3.3.5 refuses a first chunk larger than a preset chunk size; a
        // variable size keeps the frame consistent instead.
        if (inc.nbytes == 0 && nchunks > 0) || inc.nbytes > chunksize {
            variable = true;
        }
        let next = Next {
            nbytes: self.nbytes + i64::from(inc.nbytes),
            chunksize: if variable { 0 } else { chunksize },
            flags2,
        };
        self.current_nchunk = n;
        Ok((i, next, inc))
    }

    /// Replace chunk `n` (`blosc2_schunk_update_chunk`). Returns the
    /// number of chunks.
    pub fn update_chunk(&mut self, n: i64, c: &[u8]) -> Result<i64> {
        let (i, next, inc) = self.plan_update(n, c)?;
        self.current_nchunk = n;
        self.commit(next, Edit::Update(i, c), |chunks| {
            let old = std::mem::replace(&mut chunks[i], c[..inc.cbytes].to_vec().into());
            inc.cbytes as i64 - counted_cbytes(&old)
        })?;
        Ok(self.nchunks())
    }

    /// Replace chunk `n` with one handed over by its owner
    /// (`blosc2_schunk_update_chunk` with `copy = false`); kept as in
    /// [`SChunk::append_handed`], and the old chunk released.
    pub fn update_handed(&mut self, n: i64, c: Box<dyn HandedBytes>) -> std::result::Result<i64, Refused> {
        self.update_stored(n, StoredChunk::Handed(c))
    }

    /// Replace chunk `n` with one this super-chunk just compressed: an
    /// in-memory list keeps the vector itself instead of a copy of it.
    pub(crate) fn update_owned(&mut self, n: i64, c: Vec<u8>) -> Result<i64> {
        self.update_stored(n, c.into()).map_err(|r| r.error)
    }

    /// Replace chunk `n` with `c`, kept as it is by an in-memory list.
    fn update_stored(&mut self, n: i64, c: StoredChunk) -> std::result::Result<i64, Refused> {
        let (i, next, inc) = match self.plan_update(n, &c) {
            Ok(p) => p,
            Err(e) => return Err(c.refused(e)),
        };
        self.current_nchunk = n;
        self.keep_or_commit(next, c, inc, Keep::Replace(i))
    }

    /// Add or put in `c` (checked, with the counters `next` after it): an
    /// in-memory list keeps it as it is, a frame writes its bytes.
    fn keep_or_commit(
        &mut self,
        next: Next,
        c: StoredChunk,
        inc: Incoming,
        keep: Keep,
    ) -> std::result::Result<i64, Refused> {
        if let Backend::Chunks(chunks) = &mut self.backend {
            let after = chunks.len() as i64 + i64::from(matches!(keep, Keep::Insert(_)));
            let next = match checked_next(next, after) {
                Ok(n) => n,
                Err(e) => return Err(c.refused(e)),
            };
            let c = c.settle(inc.cbytes, inc.nbytes);
            let i = match keep {
                Keep::Insert(i) => {
                    chunks.insert(i, c);
                    self.cbytes += inc.cbytes as i64;
                    i
                }
                Keep::Replace(i) => {
                    let old = std::mem::replace(&mut chunks[i], c);
                    self.cbytes += inc.cbytes as i64 - counted_cbytes(&old);
                    i
                }
            };
            self.chunks_moved_from = self.chunks_moved_from.min(i);
            self.set_counters(next);
            return Ok(self.nchunks());
        }
        let edit = match keep {
            Keep::Insert(i) if i as i64 == self.nchunks() => Edit::Append(&c),
            Keep::Insert(i) => Edit::Insert(i, &c),
            Keep::Replace(i) => Edit::Update(i, &c),
        };
        match self.commit(next, edit, |_| 0) {
            Ok(()) => Ok(self.nchunks()),
            Err(e) => Err(c.refused(e)),
        }
    }

    /// Check chunk `c` for replacing chunk `n`: its index, the counters
    /// after it and its sizes.
    fn plan_update(&mut self, n: i64, c: &[u8]) -> Result<(usize, Next, Incoming)> {
        let i = self.check_index(n, false)?;
        let inc = inspect(c)?;
        let nchunks = self.nchunks();
        let reference = if nchunks > 1 {
            Some(if n == 0 { 1 } else { 0 })
        } else {
            None
        };
        let flags2 = self.next_flags2(&inc, reference, Error::ChunkUpdate)?;
        let mut chunksize = self.chunksize;
        let mut variable = chunksize == 0;
        if chunksize == -1 {
            chunksize = inc.nbytes;
        }
        if !variable && (inc.nbytes > chunksize || (n != nchunks - 1 && inc.nbytes != chunksize)) {
            variable = true;
        }
        if (inc.nbytes == 0 && nchunks > 1) || inc.nbytes > chunksize {
            variable = true;
        }
        let old = i64::from(self.chunk_nbytes(n)?);
        let next = Next {
            nbytes: self.nbytes + i64::from(inc.nbytes) - old,
            chunksize: if variable { 0 } else { chunksize },
            flags2,
        };
        Ok((i, next, inc))
    }

    /// Remove chunk `n` (`blosc2_schunk_delete_chunk`). Returns the new
    /// number of chunks.
    pub fn delete_chunk(&mut self, n: i64) -> Result<i64> {
        let i = self.check_index(n, false)?;
        let old = i64::from(self.chunk_nbytes(n)?);
        let flags2 = if self.nchunks() == 1 { 0 } else { self.flags2 };
        let next = Next {
            nbytes: self.nbytes - old,
            chunksize: self.chunksize,
            flags2,
        };
        self.current_nchunk = n;
        self.commit(next, Edit::Delete(i), |chunks| -counted_cbytes(&chunks.remove(i)))?;
        Ok(self.nchunks())
    }

    /// Reorder the chunks: chunk `i` becomes the old chunk `order[i]`
    /// (`blosc2_schunk_reorder_offsets`).
    pub fn reorder_offsets(&mut self, order: &[i64]) -> Result<()> {
        let n = self.nchunks() as usize;
        if order.len() != n {
            return Err(Error::Data("order length differs from the number of chunks"));
        }
        let mut seen = vec![false; n];
        let mut idx = Vec::with_capacity(n);
        for &k in order {
            let k = usize::try_from(k)
                .ok()
                .filter(|k| *k < n)
                .ok_or(Error::Data("index out of range"))?;
            if std::mem::replace(&mut seen[k], true) {
                return Err(Error::Data("repeated index"));
            }
            idx.push(k);
        }
        // Moving a short last chunk elsewhere breaks the fixed-size layout
        // (3.3.5 keeps the chunk size and then misplaces the items).
        let mut chunksize = self.chunksize;
        if chunksize > 0 && self.nbytes % i64::from(chunksize) != 0 && idx.last() != Some(&(n - 1)) {
            chunksize = 0;
        }
        let next = Next {
            nbytes: self.nbytes,
            chunksize,
            flags2: self.flags2,
        };
        let order2 = idx.clone();
        self.commit(next, Edit::Reorder(idx), move |chunks| {
            let old = std::mem::take(chunks);
            let mut old: Vec<Option<StoredChunk>> = old.into_iter().map(Some).collect();
            *chunks = order2
                .iter()
                .map(|&k| old[k].take().unwrap_or_else(|| Vec::new().into()))
                .collect();
            0
        })
    }

    /// Apply an edit to the backend and, only once it succeeded, to the
    /// counters. `on_chunks` edits an in-memory chunk list and returns by
    /// how much the stored bytes changed.
    fn commit(
        &mut self,
        next: Next,
        edit: Edit<'_>,
        on_chunks: impl FnOnce(&mut Vec<StoredChunk>) -> i64,
    ) -> Result<()> {
        let nchunks = self.nchunks();
        let after = match &edit {
            Edit::Append(_) | Edit::Insert(..) => nchunks + 1,
            Edit::Delete(_) => nchunks - 1,
            Edit::Update(..) | Edit::Reorder(_) | Edit::Metas(_) | Edit::Vlmetas(_) | Edit::Touch => nchunks,
            Edit::FillSpecial(n, _) => *n,
        };
        let next = checked_next(next, after)?;
        let mut props: Props = self.props();
        props.nbytes = next.nbytes;
        props.chunksize = next.chunksize;
        props.vl_blocks = next.flags2 & blosc2_flags2::VL_BLOCKS != 0;
        match &mut self.backend {
            Backend::Chunks(chunks) => {
                let moved_from = match &edit {
                    Edit::Append(_) => chunks.len(),
                    Edit::Insert(i, _) | Edit::Update(i, _) | Edit::Delete(i) => *i,
                    Edit::Reorder(_) | Edit::FillSpecial(..) => 0,
                    Edit::Metas(_) | Edit::Vlmetas(_) | Edit::Touch => usize::MAX,
                };
                self.cbytes += on_chunks(chunks);
                self.chunks_moved_from = self.chunks_moved_from.min(moved_from);
            }
            Backend::Frame(f) => {
                f.apply(edit, &props)?;
                self.cbytes = f.header().cbytes;
            }
        }
        self.set_counters(next);
        Ok(())
    }

    /// Take the counters after an edit, as [`checked_next`] made them for
    /// the number of chunks the edit leaves (its chunksize already the one
    /// that count allows).
    fn set_counters(&mut self, next: Next) {
        self.nbytes = next.nbytes;
        self.chunksize = next.chunksize;
        self.flags2 = next.flags2;
    }

    /// Compress `src` with the super-chunk's parameters and append it
    /// (`blosc2_schunk_append_buffer`). Returns the new number of chunks.
    pub fn append_buffer(&mut self, src: &[u8]) -> Result<i64> {
        let c = self.compress_buffer(src, self.nchunks())?;
        self.append_owned(c)
    }

    /// Compress `src` and insert it before position `n` (python-blosc2's
    /// `insert_data`). Returns the new number of chunks.
    pub fn insert_buffer(&mut self, n: i64, src: &[u8]) -> Result<i64> {
        let c = self.compress_buffer(src, n)?;
        self.insert_chunk(n, &c)
    }

    /// Compress `src` and replace chunk `n` with it (python-blosc2's
    /// `update_data`). Returns the number of chunks.
    pub fn update_buffer(&mut self, n: i64, src: &[u8]) -> Result<i64> {
        let c = self.compress_buffer(src, n)?;
        self.update_owned(n, c)
    }

    /// Compress the buffer `source` describes (gathered block by block as
    /// it is encoded) and replace chunk `n` with it. Returns the number of
    /// chunks.
    pub fn update_blocks(&mut self, n: i64, source: &dyn BlockSource) -> Result<i64> {
        let c = self.compress_source(Source::Blocks(source), n)?;
        self.update_owned(n, c)
    }

    /// Compress one buffer with the super-chunk's compression context, as
    /// chunk `nchunk` would be compressed.
    pub fn compress_buffer(&mut self, src: &[u8], nchunk: i64) -> Result<Vec<u8>> {
        self.compress_source(Source::Bytes(src), nchunk)
    }

    /// [`SChunk::compress_buffer`] of a buffer or of a block source.
    fn compress_source(&mut self, src: Source<'_>, nchunk: i64) -> Result<Vec<u8>> {
        let len = match src {
            Source::Bytes(b) => b.len(),
            Source::Blocks(g) => g.nbytes(),
        };
        if len > i32::MAX as usize - MAX_OVERHEAD {
            return Err(Error::MaxBufsizeExceeded);
        }
        // 3.3.5's compression context keeps the block size it computed for
        // the previous chunk and uses it as the requested one.
        self.cctx.cparams = self.cparams.clone();
        self.cctx.cparams.blocksize = self.sticky_blocksize;
        self.use_cctx(nchunk);
        let need = len + MAX_OVERHEAD;
        // A new scratch is fresh pages from the system (or zeroed heap):
        // the encoder faults them in a block at a time.
        let fresh = self.compress_scratch.len() < need;
        if fresh {
            self.compress_scratch = vec![0u8; need];
        }
        let dest = &mut self.compress_scratch[..need];
        let n = match src {
            Source::Bytes(b) if fresh => self.cctx.compress_to_fresh(b, dest)?,
            Source::Bytes(b) => self.cctx.compress_to_own(b, dest)?,
            Source::Blocks(g) => self.cctx.compress_blocks(g, dest, fresh)?,
        };
        if n == 0 {
            return Err(Error::WriteBuffer);
        }
        let out = if n > need / 2 {
            // A chunk that kept most of its size: hand the scratch over
            // (shrinking in place) rather than copying it out, as C
            // compresses into a fresh buffer and shrinks it. The next call
            // gets a new scratch; a chunk-sized one is fresh zeroed pages
            // from the system (what C's malloc gets too), with no memset.
            let mut chunk = std::mem::take(&mut self.compress_scratch);
            chunk.truncate(n);
            chunk.shrink_to_fit();
            chunk
        } else {
            self.compress_scratch[..n].to_vec()
        };
        // What 3.3.5's tuner leaves in the context: 1 for buffers smaller
        // than an item, else the block size really used.
        let ts = if self.cparams.typesize > 255 {
            1
        } else {
            self.cparams.typesize.max(1) as usize
        };
        if len < ts {
            self.sticky_blocksize = 1;
        } else if let Ok((_, _, bs)) = chunk::cbuffer_sizes(&out) {
            self.sticky_blocksize = bs;
        }
        Ok(out)
    }

    /// Chunk `n` as stored (`blosc2_schunk_get_chunk`): a view for
    /// in-memory storage, a copy read from disk otherwise. Special chunks
    /// of frames come back as 32-byte special chunks.
    pub fn get_chunk(&mut self, n: i64) -> Result<Cow<'_, [u8]>> {
        self.check_index(n, false)?;
        self.current_nchunk = n;
        match &mut self.backend {
            Backend::Chunks(c) => Ok(Cow::Borrowed(&c[n as usize])),
            Backend::Frame(f) => f.chunk(n),
        }
    }

    /// Chunk `n` to decode right away: as [`SChunk::get_chunk`], but a
    /// chunk of a file frame is read into a buffer the frame reuses for
    /// the next read instead of a new copy (see `Frame::chunk_to_decode`).
    pub fn chunk_to_decode(&mut self, n: i64) -> Result<Cow<'_, [u8]>> {
        self.check_index(n, false)?;
        self.current_nchunk = n;
        stored_chunk(&mut self.backend, n)
    }

    /// [`SChunk::chunk_to_decode`] for a caller whose decompression of a
    /// chunk stored as is copies its data: such a chunk of a file frame
    /// comes back read straight into `dest` (see
    /// `Frame::chunk_to_decode_into`).
    pub fn chunk_to_decode_into(&mut self, n: i64, dest: &mut [u8]) -> Result<Fetched<'_>> {
        self.check_index(n, false)?;
        self.current_nchunk = n;
        stored_chunk_into(&mut self.backend, n, Some(dest))
    }

    /// Decompress chunk `n` into `dest` (`blosc2_schunk_decompress_chunk`).
    /// Returns the number of bytes written.
    pub fn decompress_chunk(&mut self, n: i64, dest: &mut [u8]) -> Result<usize> {
        self.decode_chunk(n, dest, None)
    }

    /// Decompress chunk `n` into `dest`, skipping the blocks whose
    /// `maskout` entry is true (their bytes in `dest` are left as they
    /// were), as `blosc2_set_maskout` before a decompression does. A chunk
    /// whose block count differs from the mask's (one written with other
    /// block sizes, say) is decompressed whole.
    pub fn decompress_chunk_masked(&mut self, n: i64, dest: &mut [u8], maskout: Vec<bool>) -> Result<usize> {
        self.decode_chunk(n, dest, Some(maskout))
    }

    /// Chunk `n` into `dest`, fetched once, with a block mask when it
    /// matches the chunk's block count.
    fn decode_chunk(&mut self, n: i64, dest: &mut [u8], maskout: Option<Vec<bool>>) -> Result<usize> {
        self.check_index(n, false)?;
        self.current_nchunk = n;
        self.use_dctx(n);
        let plain = maskout.is_none() && self.dctx.copies_stored_as_is();
        let c = match stored_chunk_into(&mut self.backend, n, plain.then_some(&mut *dest))? {
            Fetched::Chunk(c) => c,
            Fetched::Copied(got) => return Ok(got),
        };
        let (nbytes, cbytes, blocksize) = chunk::cbuffer_sizes(&c)?;
        if nbytes as usize > dest.len() {
            return Err(Error::WriteBuffer);
        }
        if cbytes as usize > c.len() {
            return Err(Error::ReadBuffer);
        }
        if let Some(mask) = maskout {
            let nblocks = if blocksize > 0 {
                (i64::from(nbytes) + i64::from(blocksize) - 1) / i64::from(blocksize)
            } else {
                -1
            };
            if nblocks == mask.len() as i64 {
                self.dctx.set_maskout(mask);
            }
        }
        // A mask is consumed by this decompression only.
        let got = self.dctx.decompress(&c, dest);
        self.dctx.clear_maskout();
        let got = got?;
        if got != nbytes as usize {
            return Err(Error::Failure("chunk decompressed to an unexpected size"));
        }
        Ok(got)
    }

    /// Decompress chunk `n` into a new vector.
    pub fn decompress_chunk_vec(&mut self, n: i64) -> Result<Vec<u8>> {
        let nbytes = self.chunk_nbytes(n)?;
        let mut out = vec![0u8; usize::try_from(nbytes).map_err(|_| Error::InvalidHeader)?];
        let got = self.decompress_chunk(n, &mut out)?;
        out.truncate(got);
        Ok(out)
    }

    /// Decode block `nblock` of VL-block chunk `n`
    /// (`blosc2_schunk_get_vlblock`).
    pub fn get_vlblock(&mut self, n: i64, nblock: i32) -> Result<Vec<u8>> {
        self.check_index(n, false)?;
        let c = self.get_chunk(n)?.into_owned();
        self.use_dctx(n);
        self.dctx.vldecompress_block(&c, nblock, |len| Ok(vec![0u8; len]))
    }

    /// Fill an empty super-chunk with `nitems` items of a special value in
    /// chunks of `chunksize` bytes (`blosc2_schunk_fill_special`).
    /// Returns the number of chunks.
    pub fn fill_special(&mut self, nitems: i64, kind: SpecialKind, chunksize: i32) -> Result<i64> {
        if nitems == 0 {
            return Ok(0);
        }
        let ts = self.cparams.typesize;
        if nitems < 0 || chunksize <= 0 || ts <= 0 {
            return Err(Error::InvalidParam("special fill parameters"));
        }
        if self.nbytes > 0 || self.cbytes > 0 {
            return Err(Error::FrameSpecial);
        }
        let chunkitems = chunksize / ts;
        if chunkitems <= 0 {
            return Err(Error::InvalidParam("chunksize smaller than the typesize"));
        }
        let full = nitems / i64::from(chunkitems);
        let leftover = nitems % i64::from(chunkitems);
        if full > i64::from(i32::MAX) || nitems > i64::MAX / i64::from(ts) {
            return Err(Error::SchunkSpecial);
        }
        let make = |nbytes: i32, cp: &crate::engine::params::CParams| -> Result<Vec<u8>> {
            let mut out = vec![0u8; EXTENDED_HEADER_LENGTH];
            let n = chunk::make_special(cp, nbytes, Some(kind), None, &mut out)?;
            out.truncate(n);
            Ok(out)
        };
        let sample = make(chunksize, &self.cparams)?;
        let nchunks = full + i64::from(leftover > 0);
        if let Backend::Chunks(chunks) = &mut self.backend {
            // One small buffer per chunk follows; a count whose table alone
            // cannot be allocated is an error, not an abort.
            chunks
                .try_reserve_exact(nchunks as usize)
                .map_err(|_| Error::MemoryAlloc)?;
            let last = make((leftover * i64::from(ts)) as i32, &self.cparams)?;
            for _ in 0..full {
                self.append_chunk(&sample)?;
            }
            if leftover > 0 {
                self.append_chunk(&last)?;
            }
            return Ok(self.nchunks());
        }
        nchunks
            .checked_mul(8)
            .filter(|b| *b <= i64::from(i32::MAX) - EXTENDED_HEADER_LENGTH as i64)
            .ok_or(Error::FrameSpecial)?;
        let (_, _, sample_bs) = chunk::cbuffer_sizes(&sample)?;
        let mut props = self.props();
        props.nbytes = nitems * i64::from(ts);
        props.chunksize = chunksize;
        props.blocksize = sample_bs;
        if let Backend::Frame(f) = &mut self.backend {
            f.apply(Edit::FillSpecial(nchunks, kind), &props)?;
            self.cbytes = f.header().cbytes;
        }
        self.nbytes = props.nbytes;
        self.chunksize = chunksize;
        self.blocksize = sample_bs;
        Ok(self.nchunks())
    }

    /// The offsets entry of chunk `n` says it is a special chunk of this
    /// kind (frames only).
    pub fn special_kind(&self, n: i64) -> Option<SpecialKind> {
        match &self.backend {
            Backend::Frame(f) => match f.entry(n) {
                Ok(offsets::Entry::Special(k)) => Some(k),
                _ => None,
            },
            Backend::Chunks(_) => None,
        }
    }
}

/// Chunk `n` (an index already checked) as `backend` stores it, to decode
/// right away: borrowed from an in-memory list, read from a frame (from a
/// file into the frame's reused buffer, see [`Frame::chunk_to_decode`]).
/// A free function so that the caller can keep using its other fields
/// (the contexts) meanwhile.
///
/// [`Frame::chunk_to_decode`]: crate::engine::frame::Frame::chunk_to_decode
pub(super) fn stored_chunk(backend: &mut Backend, n: i64) -> Result<Cow<'_, [u8]>> {
    match backend {
        Backend::Chunks(c) => Ok(Cow::Borrowed(&c[n as usize])),
        Backend::Frame(f) => f.chunk_to_decode(n),
    }
}

/// [`stored_chunk`], or with `dest` the data of a file frame's chunk
/// stored as is read into `dest` (see `Frame::chunk_to_decode_into`).
fn stored_chunk_into<'a>(backend: &'a mut Backend, n: i64, dest: Option<&mut [u8]>) -> Result<Fetched<'a>> {
    match backend {
        Backend::Chunks(c) => Ok(Fetched::Chunk(Cow::Borrowed(&c[n as usize]))),
        Backend::Frame(f) => f.chunk_to_decode_into(n, dest),
    }
}

/// What 3.3.5 takes off `cbytes` for a chunk an update or delete removes: its
/// size, but nothing for a chunk of `BLOSC2_MAX_OVERHEAD` bytes (a
/// special-value chunk: it counts those as free).
fn counted_cbytes(old: &[u8]) -> i64 {
    if old.len() == MAX_OVERHEAD {
        0
    } else {
        old.len() as i64
    }
}

#[cfg(test)]
mod tests {
    use super::countable_chunksize;

    /// A fixed chunk size stays only while readers can count the chunks
    /// from the sizes.
    #[test]
    fn chunksize_stays_fixed_only_while_countable() {
        // 3 chunks of 2000 bytes, the last one short or full.
        assert_eq!(countable_chunksize(6000, 2000, 3), 2000);
        assert_eq!(countable_chunksize(5001, 2000, 3), 2000);
        // A crafted frame's chunk of 500 bytes replaced by a full one:
        // 6000 - 500 + 2000 bytes count as 4 chunks, not 3.
        assert_eq!(countable_chunksize(7500, 2000, 3), 0);
        // Or one of 3000 bytes deleted: 3000 bytes in 2 chunks.
        assert_eq!(countable_chunksize(3000, 2000, 2), 2000);
        assert_eq!(countable_chunksize(1000, 2000, 2), 0);
        // Variable, unset and empty stay as they are.
        assert_eq!(countable_chunksize(7500, 0, 3), 0);
        assert_eq!(countable_chunksize(0, -1, 0), -1);
        assert_eq!(countable_chunksize(0, 2000, 2), 2000);
    }
}

/// Where [`SChunk::keep_or_commit`] puts a chunk.
#[derive(Clone, Copy)]
enum Keep {
    /// Before position `i` (at the end: an append).
    Insert(usize),
    /// In place of chunk `i`.
    Replace(usize),
}

/// What [`SChunk::compress_source`] compresses.
#[derive(Clone, Copy)]
enum Source<'a> {
    Bytes(&'a [u8]),
    Blocks(&'a dyn BlockSource),
}
