//! Compressing one buffer into one chunk, byte-compatible with what
//! C-Blosc2 3.3.5 writes (header flags, block size, split, runs, special
//! zero collapse, dictionaries, memcpy fallback), but with block order
//! independent of the number of threads.

use crate::engine::bulk;
use crate::engine::codecs::{self, Dict};
use crate::engine::constants::{
    blosc2_flags, codec, flags, special, version, EXTENDED_HEADER_LENGTH, MAX_BUFFERSIZE, MAX_DICT_SIZE, MAX_TYPESIZE,
    MAX_TYPESIZE_PARAM, MIN_BUFFERSIZE, MIN_HEADER_LENGTH, MIN_USEFUL_DICT,
};
use crate::engine::error::{Error, Result};
use crate::engine::filters::{self, FilterSpec};
use crate::engine::header::{codec_format_of, ChunkHeader};
use crate::engine::params::{CParams, HeaderFormat, Prefilter, PrefilterArgs};
use crate::engine::plugins::{self, Call};
use crate::engine::prefault;
use crate::engine::threads::{filter_ttmp_len, grow_scratch, Pool, WorkerScratch};

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Condvar, Mutex};

use super::blocksize::{compute_blocksize, split_block};
use super::instr;

/// Everything fixed for one chunk before its blocks are encoded.
pub(crate) struct Plan<'a> {
    pub cp: &'a CParams,
    /// The buffer compressed; empty when `gather` brings the blocks.
    pub src: &'a [u8],
    /// Where each raw block comes from when there is no `src` buffer.
    pub gather: Option<&'a dyn BlockSource>,
    /// Bytes of the buffer compressed.
    pub nbytes: usize,
    pub typesize: usize,
    pub blocksize: usize,
    pub nblocks: usize,
    pub leftover: usize,
    pub split: bool,
    pub spec: FilterSpec,
    pub nchunk: i64,
    /// Header length: 32, or 16 for Blosc1 headers.
    pub hl: usize,
    /// Whether a block of zeros skips the filters (see [`zeros_skip_filters`]).
    pub zero_blocks_skip_filters: bool,
    /// Whether streams are replaced by instrumentation records (`instr_codec`).
    pub instr: bool,
    /// Whether `dest` is fresh memory whose pages are faulted in a block
    /// at a time before they are written (see [`prefault`]).
    pub prefault: bool,
    /// Whether a block finished ahead of its turn may wait in `dest` past
    /// the room of the blocks before it (see [`Commit::park_in_dest`]).
    pub park_in_dest: bool,
    /// The shuffle's item width when it is the only filter and blocks
    /// come from `gather`, which may then shuffle each block as it
    /// gathers it ([`BlockSource::fill_block_shuffled`]).
    pub shuffle_only: Option<usize>,
}

impl Plan<'_> {
    fn block_range(&self, j: usize) -> (usize, usize) {
        let start = j * self.blocksize;
        let len = if j + 1 == self.nblocks && self.leftover > 0 {
            self.leftover
        } else {
            self.blocksize
        };
        (start, len)
    }

    fn nstreams(&self, j: usize, bsize: usize) -> usize {
        let leftover_block = j + 1 == self.nblocks && self.leftover > 0;
        if self.split && !leftover_block && bsize >= self.typesize {
            self.typesize
        } else {
            1
        }
    }

    /// Size the worker scratch `filter_block` will use: the filter
    /// ping-pong buffers when a filter runs (the second only for two or
    /// more: a block's worth of memory a lone shuffle never touches, which
    /// a zeroed allocation from a reused heap would still fault in), the
    /// staging buffer when a prefilter does.
    fn reserve(&self, ws: &mut WorkerScratch) {
        if self.spec.forward_needs_tmp() {
            ws.reserve(self.blocksize);
        } else if self.spec.any_forward() {
            grow_scratch(&mut ws.a, self.blocksize);
        }
        if self.cp.prefilter.is_some() {
            ws.reserve_staging(self.blocksize, self.ttmp_len());
        }
        if self.gather.is_some() {
            ws.reserve_staging(self.blocksize, 0);
        }
    }

    /// What plugin filters and codecs get for each block (what 3.3.5
    /// builds with `blosc2_ctx_get_cparams`).
    fn call(&self) -> Call<'_> {
        Call {
            typesize: self.typesize as i32,
            nthreads: self.cp.nthreads,
            env: &self.cp.plugins,
            cparams: Some(self.cp),
            chunk: self.src,
        }
    }

    /// Bytes of the `ttmp` scratch handed to the prefilter.
    fn ttmp_len(&self) -> usize {
        filter_ttmp_len(self.blocksize, self.typesize)
    }

    /// Whether blocks are stored as zero runs after the prefilter ran
    /// (3.3.5 simulates runs for disposable output; runs exist only in
    /// extended headers).
    fn output_disposed(&self) -> bool {
        self.cp.prefilter.is_some() && self.cp.prefilter_output_disposable && self.hl == EXTENDED_HEADER_LENGTH
    }

    /// Total number of streams over the chunk (for the zero-run collapse).
    fn total_streams(&self) -> usize {
        (0..self.nblocks).map(|j| self.nstreams(j, self.block_range(j).1)).sum()
    }

    /// Upper bound of block `j` once encoded.
    fn block_bound(&self, j: usize) -> usize {
        let bsize = self.block_range(j).1;
        let nstreams = self.nstreams(j, bsize);
        let records = if self.instr {
            (4 + instr::RECORD_LEN) * nstreams
        } else {
            0
        };
        block_bound(bsize, nstreams).max(records)
    }

    /// Give the header of the `n`-byte instrumented chunk in `dest` the
    /// sizes of its records, as 3.3.5 does after encoding (memcpyed
    /// chunks included: it counts their streams from the split flag).
    fn finish_instr(&self, dest: &mut [u8], n: usize) {
        if !self.instr || n < EXTENDED_HEADER_LENGTH {
            return;
        }
        let split = dest[2] & flags::DONT_SPLIT == 0;
        let nstreams = match (split, self.leftover > 0) {
            (false, _) => self.nblocks,
            (true, true) => (self.nblocks - 1) * self.typesize + 1,
            (true, false) => self.nblocks * self.typesize,
        };
        let (nbytes, blocksize) = instr::header_sizes(nstreams, split, self.typesize);
        dest[4..8].copy_from_slice(&nbytes.to_le_bytes());
        dest[8..12].copy_from_slice(&blocksize.to_le_bytes());
    }
}

/// Validate cparams the way `initialize_context_compression` does and
/// return the typesize used for the split machinery (capped to 1 above 255).
pub(crate) fn checked_typesize(cp: &CParams, srclen: usize, destlen: usize) -> Result<usize> {
    if srclen > MAX_BUFFERSIZE as usize {
        return Err(Error::MaxBufsizeExceeded);
    }
    if destlen < EXTENDED_HEADER_LENGTH {
        return Err(Error::MaxBufsizeExceeded);
    }
    if cp.clevel > 9 {
        return Err(Error::CodecParam);
    }
    if cp.use_dict && !matches!(cp.compcode, codec::ZSTD | codec::LZ4 | codec::LZ4HC) {
        return Err(Error::CodecParam);
    }
    if cp.typesize <= 0 || cp.typesize > MAX_TYPESIZE_PARAM {
        return Err(Error::InvalidParam("typesize"));
    }
    if cp.blocksize < 0 {
        return Err(Error::InvalidParam("blocksize"));
    }
    if cp.compcode >= codec::LAST && cp.compcode < codec::GLOBAL_REGISTERED_START {
        return Err(Error::CodecSupport(cp.compcode));
    }
    Ok(if cp.typesize > MAX_TYPESIZE {
        1
    } else {
        cp.typesize as usize
    })
}

/// Whose buffer a chunk is compressed into, which decides where its
/// pages may be written.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum DestBuffer {
    /// The caller's, kept whole after the call (C's `blosc2_compress_ctx`
    /// into a buffer of `nbytes` plus overhead): nothing is written past
    /// the chunk's end, as in C-Blosc2, since pages touched there would
    /// stay resident in every buffer kept (5 MB over a 1 GiB round trip of
    /// 4 MiB chunks when blocks were parked there).
    Kept,
    /// The engine's own, reused for the next chunk or shrunk to this one.
    Own,
    /// The engine's own, just allocated and never written.
    Fresh,
}

/// Compress `src` into `dest` with `cp`. Returns the chunk size, or 0 when
/// the chunk does not fit in `dest` (as C-Blosc2 does).
pub fn compress(cp: &CParams, src: &[u8], dest: &mut [u8], pool: &mut Pool, nchunk: i64) -> Result<usize> {
    compress_from(cp, Input::Bytes(src), dest, DestBuffer::Kept, pool, nchunk)
}

/// [`compress`] into a buffer of the engine's own that is reused or shrunk
/// to the chunk afterwards, so blocks may wait in it past the chunk's
/// final end (see [`Commit::park_in_dest`]). Same bytes.
pub fn compress_to_own(cp: &CParams, src: &[u8], dest: &mut [u8], pool: &mut Pool, nchunk: i64) -> Result<usize> {
    compress_from(cp, Input::Bytes(src), dest, DestBuffer::Own, pool, nchunk)
}

/// [`compress_to_own`] into `dest` that was just allocated and never
/// written (its pages not yet mapped): they are faulted in a block at a
/// time before they are written (see [`prefault`]). Same bytes.
pub fn compress_to_fresh(cp: &CParams, src: &[u8], dest: &mut [u8], pool: &mut Pool, nchunk: i64) -> Result<usize> {
    compress_from(cp, Input::Bytes(src), dest, DestBuffer::Fresh, pool, nchunk)
}

/// A buffer to compress that exists block by block only: a b2nd chunk is
/// gathered from the caller's array one block at a time, by the worker
/// that encodes the block, while it is in cache, instead of being copied
/// whole into a chunk-sized buffer first.
pub trait BlockSource: Sync {
    /// Bytes of the whole buffer: a multiple of [`BlockSource::block_len`].
    fn nbytes(&self) -> usize;
    /// Bytes of each block.
    fn block_len(&self) -> usize;
    /// Write block `j` (`block_len` bytes) into `out`.
    fn fill_block(&self, j: usize, out: &mut [u8]) -> Result<()>;
    /// Write block `j` byte-shuffled with items of `width` bytes into
    /// `out`, the bytes [`fill_block`](Self::fill_block) and the shuffle
    /// would give, if the source can do so without gathering the block
    /// first; `false` (and `out` untouched) when it cannot.
    fn fill_block_shuffled(&self, _j: usize, _width: usize, _out: &mut [u8]) -> Result<bool> {
        Ok(false)
    }
}

/// [`compress`] of the buffer `source` describes. Its blocks are gathered
/// as they are encoded when the chunk is cut in the source's blocks and
/// nothing needs the whole buffer (no prefilter, dictionary, DELTA, plugin
/// filter or codec, instrumentation); otherwise the buffer is gathered
/// whole first and compressed as usual. Same bytes either way.
pub fn compress_blocks(
    cp: &CParams,
    source: &dyn BlockSource,
    dest: &mut [u8],
    fresh_dest: bool,
    pool: &mut Pool,
    nchunk: i64,
) -> Result<usize> {
    let (len, bl) = (source.nbytes(), source.block_len());
    if bl == 0 || len % bl != 0 || len > MAX_BUFFERSIZE as usize {
        return Err(Error::InvalidParam("block source length not a multiple of its blocks"));
    }
    let dest_buffer = if fresh_dest { DestBuffer::Fresh } else { DestBuffer::Own };
    compress_from(cp, Input::Blocks(source), dest, dest_buffer, pool, nchunk)
}

/// Whether a chunk of blocks of `blocksize` bytes can be encoded from
/// `source` block by block: it is cut in the source's blocks and nothing
/// needs the whole buffer.
fn gathers_blockwise(cp: &CParams, source: &dyn BlockSource, blocksize: usize) -> bool {
    use crate::engine::constants::filter::{BITSHUFFLE, NOFILTER, SHUFFLE};
    blocksize == source.block_len()
        && source.nbytes() > 0
        && cp.prefilter.is_none()
        && !cp.use_dict
        && !cp.instr_codec
        && cp.header_format == HeaderFormat::Extended
        && cp.compcode < codec::GLOBAL_REGISTERED_START
        && cp.filters.iter().all(|f| [NOFILTER, SHUFFLE, BITSHUFFLE].contains(f))
}

/// The item width of the shuffle when it is the pipeline's only filter
/// and shuffles whole items (at least 2 bytes).
fn lone_shuffle_width(spec: &FilterSpec) -> Option<usize> {
    use crate::engine::constants::filter::{NOFILTER, SHUFFLE};
    let mut used = (0..spec.filters.len()).filter(|&k| spec.filters[k] != NOFILTER);
    let k = used.next()?;
    if used.next().is_some() || spec.filters[k] != SHUFFLE {
        return None;
    }
    let width = crate::engine::filters::shuffle_width(spec.meta[k], spec.typesize);
    (width >= 2).then_some(width)
}

/// What a chunk is compressed from.
#[derive(Clone, Copy)]
enum Input<'a> {
    /// A buffer.
    Bytes(&'a [u8]),
    /// The blocks of a block source.
    Blocks(&'a dyn BlockSource),
}

/// [`compress`] of `input` into `dest`, a buffer of `dest_buffer`'s kind.
fn compress_from(
    cp: &CParams,
    input: Input<'_>,
    dest: &mut [u8],
    dest_buffer: DestBuffer,
    pool: &mut Pool,
    nchunk: i64,
) -> Result<usize> {
    let (src, gather, nbytes): (&[u8], _, _) = match input {
        Input::Bytes(b) => (b, None, b.len()),
        Input::Blocks(g) => (&[], Some(g), g.nbytes()),
    };
    let typesize = checked_typesize(cp, nbytes, dest.len())?;
    let spec = FilterSpec {
        filters: cp.filters,
        meta: cp.filters_meta,
        typesize,
        // Version-2 (c-blosc 1.x) chunks bit-shuffle the way 1.x reads them.
        chunk_version: match cp.header_format {
            HeaderFormat::Blosc1 { version } => version,
            HeaderFormat::Extended => version::BLOSC2_STABLE,
        },
    };
    // 3.3.5 tunes the block size before capping typesizes above 255 to 1.
    let bs = compute_blocksize(
        cp.compcode,
        cp.clevel,
        cp.typesize,
        nbytes as i32,
        cp.blocksize,
        cp.splitmode,
        spec.has_shuffle(),
    ) as usize;
    if let Some(g) = gather.filter(|g| !gathers_blockwise(cp, *g, bs)) {
        let mut whole = vec![0u8; nbytes];
        for (j, out) in whole.chunks_mut(g.block_len()).enumerate() {
            g.fill_block(j, out)?;
        }
        return compress_from(cp, Input::Bytes(&whole), dest, dest_buffer, pool, nchunk);
    }
    let nblocks = nbytes.div_ceil(bs).max(if nbytes == 0 { 0 } else { 1 });
    let leftover = if bs > 0 { nbytes % bs } else { 0 };
    let split = split_block(
        cp.splitmode,
        cp.compcode,
        cp.clevel,
        spec.has_shuffle(),
        typesize as i32,
        bs as i32,
    );
    let (hl, hversion) = match cp.header_format {
        HeaderFormat::Extended => (EXTENDED_HEADER_LENGTH, version::BLOSC2_STABLE),
        HeaderFormat::Blosc1 { version } => (MIN_HEADER_LENGTH, version),
    };
    let extended = hl == EXTENDED_HEADER_LENGTH;
    // 3.3.5 flags instrumentation in the extended header only.
    let instr = cp.instr_codec && extended;
    let plan = Plan {
        cp,
        src,
        gather,
        nbytes,
        typesize,
        blocksize: bs,
        nblocks,
        leftover,
        split,
        spec,
        nchunk,
        hl,
        zero_blocks_skip_filters: !instr && zeros_skip_filters(cp, &spec, src, bs, hl),
        instr,
        prefault: dest_buffer == DestBuffer::Fresh,
        park_in_dest: dest_buffer != DestBuffer::Kept,
        shuffle_only: gather.and_then(|_| lone_shuffle_width(&spec)),
    };

    let mut hdr = ChunkHeader {
        version: hversion,
        // Plugin codecs record their own format version.
        versionlz: if cp.compcode >= codec::GLOBAL_REGISTERED_START {
            plugins::registry::codec_version(cp.compcode).unwrap_or(1)
        } else {
            1
        },
        flags: flags::EXTENDED_HEADER,
        typesize: typesize as u8,
        nbytes: nbytes as i32,
        blocksize: bs.min(nbytes.max(1)) as i32,
        cbytes: 0,
        filters: cp.filters,
        filters_meta: cp.filters_meta,
        compcode: cp.compcode,
        compcode_meta: cp.compcode_meta,
        blosc2_flags2: 0,
        blosc2_flags: if instr { blosc2_flags::INSTR_CODEC } else { 0 },
        header_len: hl,
    };
    let memcpy_from_start = cp.clevel == 0 || nbytes < MIN_BUFFERSIZE || hl + 4 * nblocks > dest.len();
    let base_flags = if extended { flags::EXTENDED_HEADER } else { 0 };
    if memcpy_from_start {
        let n = store_memcpyed(&mut hdr, base_flags | flags::MEMCPYED, &plan, dest, pool)?;
        plan.finish_instr(dest, n);
        return Ok(n);
    }
    // Header flags for a compressed chunk. Extended headers keep the
    // filters in bytes 16-29; Blosc1 headers signal them here.
    let mut hflags = base_flags;
    if !extended {
        if spec.filters.contains(&crate::engine::constants::filter::SHUFFLE) {
            hflags |= flags::DOSHUFFLE;
        }
        if spec.filters.contains(&crate::engine::constants::filter::BITSHUFFLE) {
            hflags |= flags::DOBITSHUFFLE;
        }
    }
    if spec.has_delta() {
        hflags |= flags::DODELTA;
    }
    if !split {
        hflags |= flags::DONT_SPLIT;
    }
    hflags |= codec_format_of(cp.compcode) << 5;
    hdr.flags = hflags;

    let n = if cp.use_dict && extended {
        compress_with_dict(&plan, &mut hdr, dest, pool)?
    } else {
        encode_blocks(&plan, &hdr, dest, pool, None)?
    };
    let n = if n == 0 {
        // Last chance: store the data as is when it fits.
        store_memcpyed(&mut hdr, hflags | flags::MEMCPYED, &plan, dest, pool)?
    } else {
        n
    };
    plan.finish_instr(dest, n);
    Ok(n)
}

/// Store `src` uncompressed after the header (the prefilter, if any, still
/// runs on each block).
fn store_memcpyed(
    hdr: &mut ChunkHeader,
    hflags: u8,
    plan: &Plan<'_>,
    dest: &mut [u8],
    pool: &mut Pool,
) -> Result<usize> {
    let nbytes = plan.nbytes;
    let total = plan.hl + nbytes;
    if total > dest.len() {
        return Ok(0);
    }
    hdr.flags = hflags;
    hdr.blosc2_flags &= !blosc2_flags::USEDICT;
    hdr.cbytes = total as i32;
    // 3.3.5 records the requested block size (clamped to nbytes) rather
    // than the one it used; for a memcpyed chunk the block size does not
    // affect decoding, so match its bytes.
    if plan.cp.blocksize > 0 {
        hdr.blocksize = if nbytes > 0 {
            plan.cp.blocksize.min(nbytes as i32)
        } else {
            plan.cp.blocksize
        };
    }
    hdr.write(dest);
    let body = &mut dest[plan.hl..total];
    match (&plan.cp.prefilter, plan.gather) {
        (None, Some(g)) => {
            let bl = g.block_len();
            bulk::share_out(pool, body, bl, |start, out| {
                for (k, block) in out.chunks_mut(bl).enumerate() {
                    g.fill_block(start / bl + k, block)?;
                }
                Ok(())
            })?
        }
        (None, None) => bulk::share_out(pool, body, 1, |start, out| {
            bulk::copy(out, &plan.src[start..start + out.len()]);
            Ok(())
        })?,
        (Some(pf), _) => {
            let mut serial = pool.serial_scratch();
            let ws = &mut *serial;
            ws.reserve_staging(0, plan.ttmp_len());
            let tid = ws.tid;
            for (j, out) in body.chunks_mut(plan.blocksize.max(1)).enumerate() {
                run_prefilter(plan, pf, j, out, &mut ws.d, tid)?;
            }
        }
    }
    Ok(total)
}

/// The ordered output of a parallel compression. Positions are handed out
/// in block order under the lock; the bytes are copied outside it, as
/// C-Blosc2 does, so the workers do not queue behind each other's copies.
struct Commit<'d> {
    /// The block-start words.
    bstarts: &'d mut [u8],
    /// The part of `dest` not yet handed out; it starts at `pos`.
    rest: &'d mut [u8],
    /// Where the next block goes.
    pos: usize,
    /// The next block to commit.
    next: usize,
    /// Blocks finished ahead of their turn, with their encoded length.
    parked: Vec<Option<(Parked, usize)>>,
    /// How many entries of `parked` hold a staging buffer.
    nbuffered: usize,
    /// No block at or past this one was ever parked in `dest`.
    parked_end: usize,
    /// Staging buffers not in use.
    spare: Vec<Vec<u8>>,
}

/// Where a block finished ahead of its turn waits.
enum Parked {
    /// In `dest` itself, at this offset, past the room the blocks before
    /// it can take (see [`Commit::park_in_dest`]).
    InDest(usize),
    /// In a staging buffer of its own.
    Buffer(Vec<u8>),
    /// A copy of a small block (see [`SMALL_PARK`]).
    Copy(Vec<u8>),
}

/// Blocks encoded to at most this many bytes (runs of zeros, very
/// compressible data) may always be parked as a copy: copying a few KiB
/// costs less than the worker's wait for its turn, which, for blocks that
/// take microseconds to encode, is most of the chunk's time (4 MiB of
/// zeros, filter none, 2 threads, into a caller's buffer: 0.04-0.19x
/// C-Blosc2 3.3.5 waiting, 0.35-0.45 with one spare buffer). At most one
/// such copy per block, freed when it is committed.
const SMALL_PARK: usize = 16 << 10;

impl<'d> Commit<'d> {
    /// Hand out the `n` bytes where block `j` (which must be `self.next`)
    /// goes; None when it does not fit.
    fn reserve(&mut self, j: usize, n: usize) -> Option<&'d mut [u8]> {
        if n > self.rest.len() {
            return None;
        }
        let (region, rest) = std::mem::take(&mut self.rest).split_at_mut(n);
        self.rest = rest;
        self.bstarts[4 * j..4 * j + 4].copy_from_slice(&(self.pos as i32).to_le_bytes());
        self.pos += n;
        self.next = j + 1;
        Some(region)
    }

    /// Copy block `j`, finished ahead of its turn, into the part of `dest`
    /// not handed out yet, where neither the blocks committed before it
    /// (each at most `bound(k)` bytes) nor the other blocks parked there
    /// will write; false when there is no such room. Parked so, the block
    /// keeps no staging buffer: its worker goes on with its own, and the
    /// pool holds no extra one across calls (C-Blosc2 keeps one staging
    /// block per thread and no more). The pages written past the chunk's
    /// final end are released when the chunk is shrunk to its size.
    fn park_in_dest(&mut self, j: usize, data: &[u8], bound: impl Fn(usize) -> usize) -> bool {
        // Blocks next..j end at most here, whatever their sizes.
        let mut at = self.pos + (self.next..j).map(bound).sum::<usize>();
        let mut limit = self.pos + self.rest.len();
        // Blocks parked in `dest` lie in block order, so only the nearest
        // ones on either side of `j` matter (the scan stays short however
        // many are parked).
        let in_dest = |p: &Option<(Parked, usize)>| match p {
            Some((Parked::InDest(o), n)) => Some((*o, *n)),
            _ => None,
        };
        if let Some((o, n)) = self.parked[self.next..j].iter().rev().find_map(in_dest) {
            at = at.max(o + n);
        }
        if let Some((o, _)) = self.parked[j + 1..self.parked_end.max(j + 1)].iter().find_map(in_dest) {
            limit = limit.min(o);
        }
        if at + data.len() > limit {
            return false;
        }
        let off = at - self.pos;
        self.rest[off..off + data.len()].copy_from_slice(data);
        self.parked[j] = Some((Parked::InDest(at), data.len()));
        self.parked_end = self.parked_end.max(j + 1);
        true
    }
}

/// Upper bound of one encoded block (csize words, run tokens, raw data).
fn block_bound(bsize: usize, nstreams: usize) -> usize {
    bsize + 5 * nstreams
}

/// Encode every block after the header (and dict section, if any) and
/// finish the header. Returns 0 when the result does not fit in `dest`.
fn encode_blocks(
    plan: &Plan<'_>,
    hdr: &ChunkHeader,
    dest: &mut [u8],
    pool: &mut Pool,
    dict: Option<&[u8]>,
) -> Result<usize> {
    let nblocks = plan.nblocks;
    let bstarts_at = plan.hl;
    let mut pos = bstarts_at + 4 * nblocks;
    if let Some(d) = dict {
        if pos + 4 + d.len() > dest.len() {
            return Ok(0);
        }
        dest[pos..pos + 4].copy_from_slice(&(d.len() as i32).to_le_bytes());
        dest[pos + 4..pos + 4 + d.len()].copy_from_slice(d);
        pos += 4 + d.len();
    }
    let data_start = pos;
    let dict = dict.map(|bytes| Dict { bytes });
    let workers = pool.nthreads().min(nblocks);
    if workers <= 1 {
        // Serial: encode straight into `dest`.
        let mut serial = pool.serial_scratch();
        let ws = &mut *serial;
        plan.reserve(ws);
        // How far the pages of `dest` are faulted in (prefault only).
        let mut faulted = pos;
        for j in 0..nblocks {
            let start_of_block = pos;
            if plan.prefault {
                // What this block may write past what is faulted in: at most
                // its bound, so at most one block's bound more than the
                // chunk ends up mapped (given back when it is shrunk).
                let end = (pos + plan.block_bound(j)).min(dest.len());
                if end > faulted && prefault::populate_write(&mut dest[faulted..end]) > 0 {
                    faulted = end;
                }
            }
            let Some(n) = encode_block(plan, j, &mut dest[pos..], ws, dict.as_ref())? else {
                return Ok(0);
            };
            dest[bstarts_at + 4 * j..bstarts_at + 4 * j + 4].copy_from_slice(&(start_of_block as i32).to_le_bytes());
            pos += n;
        }
    } else {
        pos = encode_parallel(plan, pos, bstarts_at, dest, pool, dict.as_ref(), workers)?;
        if pos == 0 {
            return Ok(0);
        }
    }
    let mut h = hdr.clone();
    if dict.is_some() {
        h.blosc2_flags |= blosc2_flags::USEDICT;
    }
    // A chunk whose streams are all zero runs collapses into a header.
    if h.is_extended() && dict.is_none() && pos == data_start + 4 * plan.total_streams() {
        h.blosc2_flags |= special::ZERO << blosc2_flags::SPECIAL_SHIFT;
        h.cbytes = EXTENDED_HEADER_LENGTH as i32;
        h.write_extended(dest);
        return Ok(EXTENDED_HEADER_LENGTH);
    }
    h.cbytes = pos as i32;
    h.write(dest);
    Ok(pos)
}

/// The parallel part of [`encode_blocks`]: each worker encodes a block
/// into its own staging buffer, then commits it to `dest` in block order,
/// so the bytes do not depend on the thread count. A block finished ahead
/// of its turn is parked and committed by whoever commits its
/// predecessor:
/// - into the engine's own buffer, in `dest` itself when there is room
///   past what the blocks before it can take (the usual case), without
///   limit: such parks hold no memory of their own, so a worker stalled on
///   one block (a descheduled helper on a busy machine) never holds up the
///   others, as in C-Blosc2 3.3.5, whose threads write blocks in the order
///   they finish;
/// - else in a spare buffer swapped for the worker's own, at most
///   `workers - 1` at once (a worker finishing another block early waits
///   for its turn): unbounded, a stalled worker let the others park every
///   other block of the chunk, and the pool, which keeps spares across
///   calls, kept 8 blocks of 512 KiB for 4 MiB chunks, 3.5 MiB more
///   resident memory than 3.3.5;
/// - into a caller's buffer, nowhere: the block waits for its turn (see
///   `max_parked`), unless it is small enough to be parked as a copy
///   ([`SMALL_PARK`], any buffer).
///
/// Returns the end of the data, 0 when it does not fit.
fn encode_parallel(
    plan: &Plan<'_>,
    data_start: usize,
    bstarts_at: usize,
    dest: &mut [u8],
    pool: &mut Pool,
    dict: Option<&Dict<'_>>,
    workers: usize,
) -> Result<usize> {
    let nblocks = plan.nblocks;
    // A caller's buffer (no parking in dest) gets no spare buffers either:
    // a block finished ahead of its turn waits for it. A spare would stay
    // with the pool between calls, a block's bound (256 KiB and more) more
    // resident than C-Blosc2 3.3.5, whose threads keep nothing but their
    // own scratch; python-blosc2's 1 GiB round trip measured +380 KiB.
    let max_parked = if plan.park_in_dest { workers - 1 } else { 0 };
    let spare = std::mem::take(pool.spare_buffers());
    let (head, tail) = dest.split_at_mut(data_start);
    let commit = Mutex::new(Commit {
        bstarts: &mut head[bstarts_at..bstarts_at + 4 * nblocks],
        rest: tail,
        pos: data_start,
        next: 0,
        parked: (0..nblocks).map(|_| None).collect(),
        nbuffered: 0,
        parked_end: 0,
        spare,
    });
    // Signalled whenever `next` moves or the work is given up.
    let turn = Condvar::new();
    let giveup = AtomicBool::new(false);
    let lock = || commit.lock().map_err(|_| Error::Failure("worker panicked"));
    // Give up, waking the workers waiting for their turn (taking the lock
    // orders the flag before their check of it).
    let stop = || {
        giveup.store(true, Ordering::Relaxed);
        drop(commit.lock());
        turn.notify_all();
    };
    let r = pool.run(nblocks, 0..nblocks, |j, ws| {
        if giveup.load(Ordering::Relaxed) {
            return Ok(());
        }
        // A worker that panics must not leave the others waiting.
        let _unwind = StopOnUnwind(&stop);
        plan.reserve(ws);
        let mut buf = std::mem::take(&mut ws.c);
        let bound = plan.block_bound(j);
        grow_scratch(&mut buf, bound);
        let n = match encode_block(plan, j, &mut buf[..bound], ws, dict) {
            Ok(Some(n)) => n,
            Ok(None) => {
                ws.c = buf;
                stop();
                return Ok(());
            }
            Err(e) => {
                ws.c = buf;
                stop();
                return Err(e);
            }
        };
        let mut st = lock()?;
        if j != st.next {
            if plan.park_in_dest && st.park_in_dest(j, &buf[..n], |k| plan.block_bound(k)) {
                ws.c = buf;
                return Ok(());
            }
            if st.nbuffered < max_parked {
                st.parked[j] = Some((Parked::Buffer(buf), n));
                st.nbuffered += 1;
                ws.c = st.spare.pop().unwrap_or_default();
                return Ok(());
            }
            if n <= SMALL_PARK {
                st.parked[j] = Some((Parked::Copy(buf[..n].to_vec()), n));
                ws.c = buf;
                return Ok(());
            }
            while j != st.next && !giveup.load(Ordering::Relaxed) {
                st = turn.wait(st).map_err(|_| Error::Failure("worker panicked"))?;
            }
            if giveup.load(Ordering::Relaxed) {
                ws.c = buf;
                return Ok(());
            }
        }
        let region = st.reserve(j, n);
        drop(st);
        let Some(region) = region else {
            ws.c = buf;
            stop();
            return Ok(());
        };
        turn.notify_all();
        if plan.prefault {
            prefault::populate_write(region);
        }
        region.copy_from_slice(&buf[..n]);
        ws.c = buf;
        // Commit the blocks parked behind this one, one at a time, so
        // a worker finishing the block after can commit it meanwhile.
        let mut copied: Option<Vec<u8>> = None;
        loop {
            let mut st = lock()?;
            st.spare.extend(copied.take());
            let k = st.next;
            let Some((parked, n)) = st.parked.get_mut(k).and_then(Option::take) else {
                break;
            };
            let (b, reusable) = match parked {
                Parked::Buffer(b) => {
                    st.nbuffered -= 1;
                    (b, true)
                }
                Parked::Copy(b) => (b, false),
                Parked::InDest(at) => {
                    // Down to its place (under the lock: the bytes are in
                    // the part of `dest` the lock guards).
                    let off = at - st.pos;
                    if plan.prefault {
                        prefault::populate_write(&mut st.rest[..n]);
                    }
                    st.rest.copy_within(off..off + n, 0);
                    if st.reserve(k, n).is_none() {
                        drop(st);
                        stop();
                        break;
                    }
                    drop(st);
                    turn.notify_all();
                    continue;
                }
            };
            let Some(region) = st.reserve(k, n) else {
                if reusable {
                    st.spare.push(b);
                }
                drop(st);
                stop();
                break;
            };
            drop(st);
            turn.notify_all();
            if plan.prefault {
                prefault::populate_write(region);
            }
            region.copy_from_slice(&b[..n]);
            // A copy goes; a staging buffer becomes a spare.
            copied = reusable.then_some(b);
        }
        Ok(())
    });
    let st = commit.into_inner().map_err(|_| Error::Failure("worker panicked"))?;
    let Commit {
        next,
        pos: end,
        mut spare,
        parked,
        ..
    } = st;
    spare.extend(parked.into_iter().flatten().filter_map(|(p, _)| match p {
        Parked::Buffer(b) => Some(b),
        Parked::InDest(_) | Parked::Copy(_) => None,
    }));
    spare.truncate(max_parked);
    *pool.spare_buffers() = spare;
    r?;
    if giveup.into_inner() || next != nblocks {
        return Ok(0);
    }
    Ok(end)
}

/// Runs its function when dropped during a panic.
struct StopOnUnwind<'f, F: Fn()>(&'f F);

impl<F: Fn()> Drop for StopOnUnwind<'_, F> {
    fn drop(&mut self) {
        if std::thread::panicking() {
            (self.0)();
        }
    }
}

/// True when every byte of `s` equals the first one.
fn is_run(s: &[u8]) -> bool {
    /// Bytes tested between early exits: whole vectors' worth of words,
    /// so the test compiles to vector XOR/OR (a word-by-word early exit
    /// ran at half the speed of C's loop on zero-filled 4 MiB chunks).
    const SPAN: usize = 128;
    let Some(&x) = s.first() else {
        return true;
    };
    let word = u64::from_ne_bytes([x; 8]);
    let mut spans = s.chunks_exact(SPAN);
    for span in spans.by_ref() {
        let diff = span.chunks_exact(8).fold(0, |acc, w| {
            acc | (u64::from_ne_bytes(w.try_into().unwrap_or([!x; 8])) ^ word)
        });
        if diff != 0 {
            return false;
        }
    }
    spans.remainder().iter().all(|&b| b == x)
}

/// True when every byte of `s` is zero.
fn is_zero(s: &[u8]) -> bool {
    s.first().is_none_or(|&b| b == 0) && is_run(s)
}

/// Whether a block of zeros can skip the filter pipeline and be written as
/// zero runs straight away: the filters (SHUFFLE, BITSHUFFLE and DELTA, which
/// cannot fail) turn zeros into zeros, DELTA only when its reference, the
/// raw first block, is zeros too; no prefilter runs; and the header is an
/// extended one, where runs are encoded. The bytes are those the pipeline
/// would lead to; only the filter passes over the block are saved.
fn zeros_skip_filters(cp: &CParams, spec: &FilterSpec, src: &[u8], blocksize: usize, hl: usize) -> bool {
    use crate::engine::constants::filter::{BITSHUFFLE, DELTA, NOFILTER, SHUFFLE};
    hl == EXTENDED_HEADER_LENGTH
        && cp.prefilter.is_none()
        && spec.any_forward()
        && spec
            .filters
            .iter()
            .all(|f| [NOFILTER, SHUFFLE, BITSHUFFLE, DELTA].contains(f))
        && (!spec.has_delta() || is_zero(&src[..blocksize.min(src.len())]))
}

/// Run the prefilter over block `j` into `out` (the block's length), with
/// `ttmp` as its scratch and `tid` as the worker's number. A disposable
/// output's prefilter may fail: its output is not kept anyway.
fn run_prefilter(plan: &Plan<'_>, pf: &Prefilter, j: usize, out: &mut [u8], ttmp: &mut [u8], tid: i32) -> Result<()> {
    let (start, len) = plan.block_range(j);
    let ttmp_len = plan.ttmp_len().min(ttmp.len());
    let mut args = PrefilterArgs {
        input: &plan.src[start..start + len],
        output: out,
        output_typesize: plan.typesize as i32,
        output_offset: start as i32,
        nchunk: plan.nchunk,
        nblock: j as i32,
        tid,
        ttmp: &mut ttmp[..ttmp_len],
    };
    if pf(&mut args) != 0 && !plan.cp.prefilter_output_disposable {
        return Err(Error::FilterPipeline);
    }
    Ok(())
}

/// Run the prefilter and the filter pipeline over block `j`, using the
/// worker's scratch buffers `a`, `b` and `d`; returns the filtered block
/// (the raw block itself when nothing applies).
fn filter_block<'w>(
    plan: &'w Plan<'_>,
    j: usize,
    raw: &'w [u8],
    a: &'w mut [u8],
    b: &'w mut [u8],
    d: &'w mut [u8],
    tid: i32,
) -> Result<&'w [u8]> {
    let len = raw.len();
    let input: &[u8] = match &plan.cp.prefilter {
        None => raw,
        Some(pf) => {
            let (dout, dtmp) = d.split_at_mut(plan.blocksize);
            run_prefilter(plan, pf, j, &mut dout[..len], dtmp, tid)?;
            &d[..len]
        }
    };
    if !plan.spec.any_forward() {
        return Ok(input);
    }
    let dref = if j == 0 {
        None
    } else {
        Some(&plan.src[..plan.blocksize.min(plan.src.len())])
    };
    filters::forward(&plan.spec, input, dref, a, b, &plan.call())
}

/// A block whose every stream is a run of zeros: a zero csize word per
/// stream in `out`. Its length, or `None` when it does not fit.
fn zero_streams(out: &mut [u8], nstreams: usize) -> Option<usize> {
    out.get_mut(..4 * nstreams)?.fill(0);
    Some(4 * nstreams)
}

/// Encode block `j` into `out`: `int32 csize` + payload per stream.
/// Returns `None` when it does not fit.
fn encode_block(
    plan: &Plan<'_>,
    j: usize,
    out: &mut [u8],
    ws: &mut WorkerScratch,
    dict: Option<&Dict<'_>>,
) -> Result<Option<usize>> {
    let (start, bsize) = plan.block_range(j);
    let nstreams = plan.nstreams(j, bsize);
    if plan.gather.is_none() && plan.zero_blocks_skip_filters && is_zero(&plan.src[start..start + bsize]) {
        return Ok(zero_streams(out, nstreams));
    }
    let neblock = bsize / nstreams;
    let tid = ws.tid;
    let WorkerScratch { a, b, d, codec, .. } = ws;
    if plan.output_disposed() && dict.is_none() {
        // The prefilter runs for its side effects; its output becomes
        // runs of zeros, a zero csize word per stream, as 3.3.5 stores it.
        if let Some(pf) = &plan.cp.prefilter {
            let (dout, dtmp) = d.split_at_mut(plan.blocksize);
            run_prefilter(plan, pf, j, &mut dout[..bsize], dtmp, tid)?;
        }
        return Ok(zero_streams(out, nstreams));
    }
    let started = instr::now();
    // The raw block: in the source buffer, or gathered into the staging
    // buffer (free: no prefilter runs when blocks are gathered).
    let (raw, d): (&[u8], &mut [u8]) = match plan.gather {
        Some(g) => {
            if let Some(width) = plan.shuffle_only {
                // A lone shuffle: the source may shuffle the block as it
                // gathers it (zeros stay zeros, so the zero test holds).
                let block = a.get_mut(..bsize).ok_or(Error::Failure("staging buffer too small"))?;
                if g.fill_block_shuffled(j, width, block)? {
                    if plan.zero_blocks_skip_filters && is_zero(block) {
                        return Ok(zero_streams(out, nstreams));
                    }
                    return encode_streams(plan, &a[..bsize], nstreams, neblock, out, codec, dict);
                }
            }
            let block = d.get_mut(..bsize).ok_or(Error::Failure("staging buffer too small"))?;
            g.fill_block(j, block)?;
            if plan.zero_blocks_skip_filters && is_zero(block) {
                return Ok(zero_streams(out, nstreams));
            }
            (block, &mut [])
        }
        None => (&plan.src[start..start + bsize], d),
    };
    let filtered = filter_block(plan, j, raw, a, b, d, tid)?;
    if plan.instr {
        return encode_records(plan, filtered, nstreams, neblock, out, codec, started.elapsed());
    }
    encode_streams(plan, filtered, nstreams, neblock, out, codec, dict)
}

/// Encode the streams of a filtered block as 3.3.5's `instr_codec` does:
/// each is coded (or found to be a run) and timed, and only its
/// [`instr::Record`] is stored, behind a csize word of 16.
fn encode_records(
    plan: &Plan<'_>,
    filtered: &[u8],
    nstreams: usize,
    neblock: usize,
    out: &mut [u8],
    codec_scratch: &mut codecs::CodecScratch,
    filter_time: std::time::Duration,
) -> Result<Option<usize>> {
    let step = 4 + instr::RECORD_LEN;
    if out.len() < nstreams * step {
        return Ok(None);
    }
    let mut coded = vec![0u8; neblock];
    for (s, slot) in out.chunks_exact_mut(step).take(nstreams).enumerate() {
        let started = instr::now();
        let stream = &filtered[s * neblock..(s + 1) * neblock];
        let (stored, run) = if is_run(stream) {
            (instr::run_stored_len(stream.first().copied().unwrap_or(0)), true)
        } else {
            let n = code_stream(plan, stream, &mut coded, codec_scratch, None)?;
            // An incompressible stream is stored raw; the word counts too.
            (if n == 0 { neblock } else { n } + 4, false)
        };
        let record = instr::Record::new(neblock, stored, started.elapsed(), filter_time, run);
        slot[..4].copy_from_slice(&(instr::RECORD_LEN as i32).to_le_bytes());
        slot[4..].copy_from_slice(&record.to_bytes());
    }
    Ok(Some(nstreams * step))
}

/// Code one stream into `out` with the chunk's codec; 0 when it did not
/// fit.
fn code_stream(
    plan: &Plan<'_>,
    stream: &[u8],
    out: &mut [u8],
    codec_scratch: &mut codecs::CodecScratch,
    dict: Option<&Dict<'_>>,
) -> Result<usize> {
    if plan.cp.compcode >= codec::GLOBAL_REGISTERED_START {
        plugins::codec_encode(plan.cp.compcode, plan.cp.compcode_meta, stream, out, &plan.call())
    } else {
        codecs::compress_stream(plan.cp.compcode, plan.cp.clevel, stream, out, dict, codec_scratch)
    }
}

fn encode_streams(
    plan: &Plan<'_>,
    filtered: &[u8],
    nstreams: usize,
    neblock: usize,
    out: &mut [u8],
    codec_scratch: &mut codecs::CodecScratch,
    dict: Option<&Dict<'_>>,
) -> Result<Option<usize>> {
    let mut pos = 0usize;
    for s in 0..nstreams {
        let stream = &filtered[s * neblock..(s + 1) * neblock];
        if pos + 4 > out.len() {
            return Ok(None);
        }
        let csize_at = pos;
        pos += 4;
        // Run encodings exist only in extended headers.
        if plan.hl == EXTENDED_HEADER_LENGTH && is_run(stream) {
            let v = stream.first().copied().unwrap_or(0);
            out[csize_at..csize_at + 4].copy_from_slice(&(-i32::from(v)).to_le_bytes());
            if v != 0 {
                if pos + 1 > out.len() {
                    return Ok(None);
                }
                out[pos] = 0x1;
                pos += 1;
            }
            continue;
        }
        let maxout = neblock.min(out.len() - pos);
        if maxout == 0 {
            return Ok(None);
        }
        let cbytes = code_stream(plan, stream, &mut out[pos..pos + maxout], codec_scratch, dict)?;
        let cbytes = if cbytes == 0 || cbytes >= neblock {
            if pos + neblock > out.len() {
                return Ok(None);
            }
            out[pos..pos + neblock].copy_from_slice(stream);
            neblock
        } else {
            cbytes
        };
        out[csize_at..csize_at + 4].copy_from_slice(&(cbytes as i32).to_le_bytes());
        pos += cbytes;
    }
    Ok(Some(pos))
}

/// Two-pass dictionary compression (zstd trains a dictionary, LZ4/LZ4HC use
/// raw samples), falling back to plain compression when the data is too
/// small for a useful dictionary.
fn compress_with_dict(plan: &Plan<'_>, hdr: &mut ChunkHeader, dest: &mut [u8], pool: &mut Pool) -> Result<usize> {
    let nbytes = plan.nbytes;
    let dict_maxsize = MAX_DICT_SIZE.min(nbytes / 20);
    let mut nsamples = plan.nblocks * if plan.split { plan.typesize } else { 1 };
    nsamples = nsamples.max(8);
    let sample_size = nbytes / nsamples / 16;
    if dict_maxsize < MIN_USEFUL_DICT || sample_size == 0 {
        return encode_blocks(plan, hdr, dest, pool, None);
    }
    // Pass 1: the filtered blocks, back to back, are the samples.
    let need = nsamples * sample_size;
    let mut samples = Vec::with_capacity(need);
    {
        let mut serial = pool.serial_scratch();
        let ws = &mut *serial;
        plan.reserve(ws);
        for j in 0..plan.nblocks {
            if samples.len() >= need {
                break;
            }
            let WorkerScratch { a, b, d, tid, .. } = &mut *ws;
            let (start, len) = plan.block_range(j);
            let f = filter_block(plan, j, &plan.src[start..start + len], a, b, d, *tid)?;
            samples.extend_from_slice(&f[..f.len().min(need - samples.len())]);
        }
    }
    let dict = if plan.cp.compcode == codec::ZSTD {
        let sizes = vec![sample_size; nsamples];
        match codecs::zstd::train_dict(&samples, &sizes, dict_maxsize) {
            Some(d) if !d.is_empty() => d,
            _ => return encode_blocks(plan, hdr, dest, pool, None),
        }
    } else {
        samples.truncate(dict_maxsize);
        samples
    };
    encode_blocks(plan, hdr, dest, pool, Some(&dict))
}

#[cfg(test)]
mod tests {
    /// `is_run` agrees with a byte-by-byte test wherever the odd byte is,
    /// across span boundaries and short remainders.
    #[test]
    fn is_run_agrees_with_a_byte_loop() {
        for len in [0usize, 1, 7, 8, 127, 128, 129, 255, 256, 1000] {
            for fill in [0u8, 0x5A] {
                let mut s = vec![fill; len];
                assert!(super::is_run(&s), "len {len}");
                // (One byte alone is always a run.)
                for at in (0..len).filter(|_| len > 1) {
                    s[at] ^= 1 << (at % 8);
                    assert!(!super::is_run(&s), "len {len} odd byte at {at}");
                    s[at] = fill;
                }
            }
        }
    }
}
