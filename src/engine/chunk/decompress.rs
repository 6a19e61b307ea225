//! Decompressing a chunk (and parts of it): header validation as strict as
//! C-Blosc2 3.3.5's, then block decoding with every offset and size
//! checked against the buffer before use.

use std::sync::OnceLock;

use crate::engine::bulk;
use crate::engine::codecs::{self, Dict};
use crate::engine::constants::{
    blosc2_flags, blosc2_flags2, codec_format, special, version, EXTENDED_HEADER_LENGTH, MAX_BLOCKSIZE, MAX_DICT_SIZE,
    MAX_TYPESIZE_PARAM, MIN_HEADER_LENGTH,
};
use crate::engine::error::{Error, Result};
use crate::engine::filters::shuffle::planes::{self, PlaneSource, PlaneSources};
use crate::engine::filters::{self, FilterSpec};
use crate::engine::header::{read_i32, ChunkHeader};
use crate::engine::params::{Postfilter, PostfilterArgs};
use crate::engine::plugins::{self, Call, PluginEnv};
use crate::engine::threads::{filter_ttmp_len, grow_scratch, Pool, WorkerScratch};

/// Optional behaviour of a decompression call.
#[derive(Default, Clone, Copy)]
pub struct DecodeOptions<'a> {
    /// Postfilter run on each decoded block.
    pub postfilter: Option<&'a Postfilter>,
    /// Blocks to skip (`blosc2_set_maskout`); must have one entry per block.
    pub maskout: Option<&'a [bool]>,
    /// Chunk number handed to the postfilter (-1 outside a super-chunk).
    pub nchunk: i64,
    /// The super-chunk as plugins see it (none outside one).
    pub plugins: Option<&'a PluginEnv>,
}

/// Parse and validate a chunk header the way `read_chunk_header` does.
/// `src` is the whole buffer the caller handed in.
pub fn read_header(src: &[u8]) -> Result<ChunkHeader> {
    read_header_inline(src)
}

/// [`read_header`], inlined into the per-chunk paths (decompress,
/// getitem): a 4 KiB chunk decompresses in ~100 ns, and a header handed
/// back through memory is written field by field and then copied in wider
/// loads, which stall on store forwarding at every hand-over.
#[inline(always)]
pub(crate) fn read_header_inline(src: &[u8]) -> Result<ChunkHeader> {
    if src.len() < MIN_HEADER_LENGTH {
        return Err(Error::ReadBuffer);
    }
    let cbytes = read_i32(src, 12)?;
    if cbytes < MIN_HEADER_LENGTH as i32 {
        return Err(Error::InvalidHeader);
    }
    // An extended header must claim room for itself before the buffer
    // length is looked at (3.3.5's order of checks, hence its codes).
    let fl = src[2];
    if fl & 0x05 == 0x05 && cbytes < EXTENDED_HEADER_LENGTH as i32 {
        return Err(Error::InvalidHeader);
    }
    let mut h = ChunkHeader::parse(src)?;
    if h.blocksize <= 0 || h.blocksize > MAX_BLOCKSIZE {
        return Err(Error::InvalidHeader);
    }
    if h.typesize == 0 {
        return Err(Error::InvalidHeader);
    }
    if h.is_extended() {
        let st = h.special_type();
        if h.vl_blocks() && st != 0 {
            return Err(Error::InvalidHeader);
        }
        if st == special::VALUE {
            let ts = h.cbytes - EXTENDED_HEADER_LENGTH as i32;
            if ts <= 0 || ts > MAX_TYPESIZE_PARAM || ts > h.nbytes || h.nbytes % ts != 0 {
                return Err(Error::InvalidHeader);
            }
        } else if st != 0 && st != special::ZERO && h.nbytes % i32::from(h.typesize) != 0 {
            return Err(Error::InvalidHeader);
        }
    }
    if h.version > version::LATEST && h.blosc2_flags2 & !blosc2_flags2::VL_BLOCKS != 0 {
        return Err(Error::VersionSupport);
    }
    if h.vl_blocks() && h.memcpyed() {
        return Err(Error::InvalidHeader);
    }
    if !h.vl_blocks() && h.nbytes > 0 && h.blocksize > h.nbytes {
        h.blocksize = h.nbytes;
    }
    Ok(h)
}

/// The data size of a chunk stored as is (memcpyed: its `nbytes` bytes
/// follow its 32-byte header unchanged), from that header alone (as
/// [`read_header`] accepted it); None for any other chunk. Decompressing
/// such a chunk with no postfilter and no mask copies those bytes, so a
/// reader can put them straight where they go instead of reading the
/// chunk first.
pub fn stored_as_is(h: &ChunkHeader) -> Option<usize> {
    let plain = h.is_extended() && h.memcpyed() && h.special_type() == 0 && !h.vl_blocks() && !h.lazy();
    let nbytes = usize::try_from(h.nbytes).ok()?;
    (plain && nbytes > 0 && h.cbytes as usize == nbytes + EXTENDED_HEADER_LENGTH).then_some(nbytes)
}

/// A validated chunk, ready for block decoding.
pub(crate) struct Chunk<'a> {
    pub hdr: ChunkHeader,
    /// The chunk bytes (`cbytes` long).
    pub src: &'a [u8],
    pub nblocks: usize,
    pub blocksize: usize,
    pub leftover: usize,
    pub spec: FilterSpec,
    pub special: u8,
    pub memcpyed: bool,
    pub dict: Option<&'a [u8]>,
    /// For VL-block chunks: (uncompressed size, compressed size, output offset) per block.
    pub vl: Vec<(usize, usize, usize)>,
}

impl<'a> Chunk<'a> {
    /// Validate everything `initialize_context_decompression` checks.
    pub fn open(src: &'a [u8]) -> Result<Chunk<'a>> {
        Chunk::with_header(src, read_header(src)?)
    }

    /// [`Chunk::open`] for a header already read with [`read_header`]
    /// from `src`. Inlined for the reason [`read_header_inline`] is.
    #[inline(always)]
    pub fn with_header(src: &'a [u8], hdr: ChunkHeader) -> Result<Chunk<'a>> {
        if hdr.lazy() && hdr.special_type() == 0 {
            // Lazy chunks need the frame they came from.
            return Err(Error::InvalidParam("lazy chunk without its super-chunk"));
        }
        let cbytes = hdr.cbytes as usize;
        if cbytes > src.len() {
            return Err(Error::InvalidHeader);
        }
        let src = &src[..cbytes];
        let special = hdr.special_type();
        if special > special::UNINIT {
            return Err(Error::Data("unknown special value"));
        }
        let memcpyed = hdr.memcpyed();
        let hl = hdr.header_len;
        if memcpyed && cbytes != hdr.nbytes as usize + hl {
            return Err(Error::Data("memcpyed chunk with wrong cbytes"));
        }
        let (nblocks, blocksize, leftover) = if hdr.vl_blocks() {
            (hdr.blocksize as usize, 0, 0)
        } else {
            let bs = hdr.blocksize as usize;
            let nb = (hdr.nbytes as usize).div_ceil(bs);
            (nb, bs, hdr.nbytes as usize % bs)
        };
        // The filters did not make an instrumented chunk's records, so
        // they are not undone (3.3.5 skips them, postfilter included).
        let instr = hdr.is_extended() && hdr.blosc2_flags & blosc2_flags::INSTR_CODEC != 0;
        let spec = FilterSpec {
            filters: if instr { [0; 6] } else { hdr.filters },
            meta: hdr.filters_meta,
            typesize: hdr.effective_typesize(),
            chunk_version: hdr.version,
        };
        let mut chunk = Chunk {
            hdr,
            src,
            nblocks,
            blocksize,
            leftover,
            spec,
            special,
            memcpyed,
            dict: None,
            vl: Vec::new(),
        };
        if (chunk.hdr.nbytes == 0 && !chunk.hdr.vl_blocks()) || special != 0 || memcpyed {
            return Ok(chunk);
        }
        let bstarts_end = hl
            .checked_add(nblocks.checked_mul(4).ok_or(Error::InvalidHeader)?)
            .ok_or(Error::InvalidHeader)?;
        if bstarts_end > i32::MAX as usize {
            return Err(Error::InvalidHeader);
        }
        if src.len() < bstarts_end {
            return Err(Error::ReadBuffer);
        }
        if chunk.hdr.use_dict() {
            let dsize = read_i32(src, bstarts_end)?;
            if dsize <= 0 || dsize as usize > MAX_DICT_SIZE {
                return Err(Error::CodecDict);
            }
            let d0 = bstarts_end + 4;
            chunk.dict = Some(src.get(d0..d0 + dsize as usize).ok_or(Error::ReadBuffer)?);
        }
        if chunk.hdr.vl_blocks() {
            chunk.vl = vl_layout(&chunk, bstarts_end)?;
        }
        Ok(chunk)
    }

    /// Whether the chunk holds instrumentation records (`instr_codec`).
    pub(crate) fn instrumented(&self) -> bool {
        self.hdr.is_extended() && self.hdr.blosc2_flags & blosc2_flags::INSTR_CODEC != 0
    }

    /// Offset of block `j` (from bstarts).
    pub(crate) fn bstart(&self, j: usize) -> Result<usize> {
        let v = read_i32(self.src, self.hdr.header_len + 4 * j)?;
        if v <= 0 || v as usize >= self.src.len() {
            return Err(Error::Data("block offset out of range"));
        }
        Ok(v as usize)
    }

    /// Uncompressed size of block `j`.
    pub fn block_len(&self, j: usize) -> usize {
        if self.hdr.vl_blocks() {
            self.vl[j].0
        } else if j + 1 == self.nblocks && self.leftover > 0 {
            self.leftover
        } else {
            self.blocksize
        }
    }

    /// Output offset of block `j`.
    pub fn block_offset(&self, j: usize) -> usize {
        if self.hdr.vl_blocks() {
            self.vl[j].2
        } else {
            j * self.blocksize
        }
    }

    /// What plugin filters and codecs get (what 3.3.5 builds with
    /// `blosc2_ctx_get_dparams`).
    pub(crate) fn call<'c>(&'c self, env: Option<&'c PluginEnv>) -> Call<'c> {
        Call {
            typesize: i32::from(self.hdr.typesize),
            nthreads: 1,
            env: match env {
                Some(e) => e,
                None => plugins::no_env(),
            },
            cparams: None,
            chunk: self.src,
        }
    }

    /// Whether decoding block j > 0 needs the decoded block 0.
    pub fn needs_block0(&self) -> bool {
        self.special == 0 && !self.memcpyed && !self.hdr.vl_blocks() && self.spec.has_delta()
    }
}

/// Sizes of the blocks of a VL-block chunk, from its bstarts.
fn vl_layout(chunk: &Chunk<'_>, bstarts_end: usize) -> Result<Vec<(usize, usize, usize)>> {
    let cbytes = chunk.src.len();
    let mut out = Vec::with_capacity(chunk.nblocks.min(cbytes / 4));
    let mut total = 0usize;
    let mut prev = 0usize;
    for i in 0..chunk.nblocks {
        let b = read_i32(chunk.src, chunk.hdr.header_len + 4 * i)?;
        let next = if i + 1 < chunk.nblocks {
            read_i32(chunk.src, chunk.hdr.header_len + 4 * (i + 1))?
        } else {
            cbytes as i32
        };
        if b < 0 || next < 0 {
            return Err(Error::InvalidHeader);
        }
        let (b, next) = (b as usize, next as usize);
        if b < bstarts_end || b <= prev || next <= b || next > cbytes || b + 4 > cbytes {
            return Err(Error::InvalidHeader);
        }
        let n = read_i32(chunk.src, b)?;
        if n <= 0 {
            return Err(Error::InvalidHeader);
        }
        out.push((n as usize, next - b, total));
        total += n as usize;
        if total > chunk.hdr.nbytes as usize {
            return Err(Error::InvalidHeader);
        }
        prev = b;
    }
    if total != chunk.hdr.nbytes as usize {
        return Err(Error::InvalidHeader);
    }
    Ok(out)
}

/// The float NaN pattern C-Blosc2 writes for `typesize` 4 or 8.
pub(crate) fn nan_bytes(typesize: usize) -> Result<&'static [u8]> {
    const NAN32: [u8; 4] = 0x7FC0_0000u32.to_le_bytes();
    const NAN64: [u8; 8] = 0x7FF8_0000_0000_0000u64.to_le_bytes();
    match typesize {
        4 => Ok(&NAN32),
        8 => Ok(&NAN64),
        _ => Err(Error::Data("NaN chunks need typesize 4 or 8")),
    }
}

/// Fill `out` with `pattern` repeated (`out.len()` a multiple of it).
fn fill_pattern(out: &mut [u8], pattern: &[u8]) -> Result<()> {
    let p = pattern.len();
    if p == 0 || !out.len().is_multiple_of(p) {
        return Err(Error::Data("size not a multiple of the value size"));
    }
    // Item by item only for the first 4 KiB or so: the rest is copies of
    // that run (memcpy speed; a copy per item of a NaN chunk ran at a
    // seventh of C-Blosc2's speed).
    let run = (FILL_RUN / p).max(1) * p;
    let (head, rest) = out.split_at_mut(run.min(out.len()));
    for c in head.chunks_exact_mut(p) {
        c.copy_from_slice(pattern);
    }
    let mut pieces = rest.chunks_exact_mut(run);
    for c in &mut pieces {
        c.copy_from_slice(head);
    }
    let tail = pieces.into_remainder();
    let n = tail.len();
    tail.copy_from_slice(&head[..n]);
    Ok(())
}

/// Bytes of a repeated value written item by item before the rest of the
/// buffer is filled by copying them.
const FILL_RUN: usize = 4096;

/// The value a NaN or value chunk repeats; `None` for other chunks.
fn repeated_value<'a>(chunk: &Chunk<'a>) -> Result<Option<&'a [u8]>> {
    Ok(match chunk.special {
        special::NAN => Some(nan_bytes(chunk.spec.typesize)?),
        special::VALUE => Some(chunk.src.get(EXTENDED_HEADER_LENGTH..).unwrap_or(&[])),
        _ => None,
    })
}

/// Produce block `j` of a memcpyed or special chunk into `out`.
fn copy_block(chunk: &Chunk<'_>, j: usize, out: &mut [u8]) -> Result<()> {
    let off = chunk.block_offset(j);
    match chunk.special {
        special::ZERO => out.fill(0),
        special::UNINIT => {}
        special::NAN | special::VALUE => fill_pattern(out, repeated_value(chunk)?.unwrap_or(&[]))?,
        _ => {
            let start = chunk.hdr.header_len + off;
            let data = chunk.src.get(start..start + out.len()).ok_or(Error::ReadBuffer)?;
            out.copy_from_slice(data);
        }
    }
    Ok(())
}

/// Bytes `start..start + out.len()` of a memcpyed or special chunk straight
/// into `out`, without going through whole blocks. Returns false (writing
/// nothing) when the chunk needs block decoding or the range does not line
/// up with the chunk's repeated value.
pub(crate) fn copy_range(chunk: &Chunk<'_>, start: usize, out: &mut [u8]) -> Result<bool> {
    let pattern = match chunk.special {
        special::ZERO => {
            bulk::zero(out);
            return Ok(true);
        }
        special::NAN | special::VALUE => repeated_value(chunk)?.unwrap_or(&[]),
        0 if chunk.memcpyed && !chunk.hdr.vl_blocks() => {
            let from = chunk.hdr.header_len + start;
            let data = chunk.src.get(from..from + out.len()).ok_or(Error::ReadBuffer)?;
            bulk::copy(out, data);
            return Ok(true);
        }
        _ => return Ok(false),
    };
    let p = pattern.len();
    if p == 0 || !start.is_multiple_of(p) || !out.len().is_multiple_of(p) {
        return Ok(false);
    }
    fill_pattern(out, pattern)?;
    Ok(true)
}

/// How many streams block `j` is stored as: one per byte of the type when
/// split, one for the leftover block and unsplit chunks.
pub(crate) fn stream_count(chunk: &Chunk<'_>, j: usize) -> usize {
    let leftover_block = j + 1 == chunk.nblocks && chunk.leftover > 0;
    if !chunk.hdr.dont_split() && !leftover_block {
        chunk.spec.typesize
    } else {
        1
    }
}

/// Blocks up to this size are decoded without checking their streams
/// first: the scratch they need is small whatever the streams hold.
const UNCHECKED_BLOCK: usize = 1 << 20;

/// The most a stream of `csize` bytes can decode to: generous bounds on
/// each codec's best ratio (LZ4 and BloscLZ about 255:1, zlib 1032:1,
/// ZSTD about 32768:1 through RLE blocks).
fn stream_bound(format: u8, csize: usize) -> usize {
    // Plugin codecs (ZFP on smooth data) can reach ZSTD's ratios.
    let ratio = if matches!(format, codec_format::ZSTD | codec_format::UDCODEC) {
        1 << 16
    } else {
        1 << 11
    };
    csize.saturating_mul(ratio).saturating_add(1 << 16)
}

/// Refuse block `j` of `bsize` bytes when its streams cannot hold that
/// much, before anything of its size is allocated: a crafted header can
/// claim 512 MiB blocks behind a few bytes of streams, and decoding
/// reserves scratch of a few times the block size. Zero and run streams
/// fill any size, so they pass.
pub(crate) fn check_block_fits(chunk: &Chunk<'_>, j: usize, bsize: usize) -> Result<()> {
    if bsize <= UNCHECKED_BLOCK || chunk.special != 0 || chunk.memcpyed || chunk.hdr.vl_blocks() {
        return Ok(());
    }
    let nstreams = stream_count(chunk, j);
    let neblock = bsize / nstreams;
    let format = chunk.hdr.codec_format();
    let mut ip = chunk.src.get(chunk.bstart(j)?..).ok_or(Error::ReadBuffer)?;
    for _ in 0..nstreams {
        let csize = read_i32(ip, 0)?;
        ip = &ip[4..];
        if csize < 0 {
            ip = ip.get(1..).ok_or(Error::ReadBuffer)?;
        } else if csize > 0 {
            let c = csize as usize;
            if stream_bound(format, c) < neblock {
                return Err(Error::Data("block larger than its streams can hold"));
            }
            ip = ip.get(c..).ok_or(Error::ReadBuffer)?;
        }
    }
    Ok(())
}

/// Decode the streams of block `j` into `out` (codec output, before the
/// filters are undone).
/// One stream of a split (or unsplit) block, as its header says it is
/// stored.
pub(crate) enum Stream<'a> {
    /// All zeros.
    Zeros,
    /// All this byte.
    Run(u8),
    /// The stream's bytes, as they are.
    Stored(&'a [u8]),
    /// The codec's bytes for the stream.
    Coded(&'a [u8]),
}

/// Walk the `nstreams` streams of `neblock` bytes of the block stored at
/// `start` (from [`Chunk::bstart`]), checking each stream header (sizes
/// against the chunk, run tokens) before handing it to `f` with its index.
pub(crate) fn for_each_stream<'a>(
    chunk: &Chunk<'a>,
    start: usize,
    nstreams: usize,
    neblock: usize,
    mut f: impl FnMut(usize, Stream<'a>) -> Result<()>,
) -> Result<()> {
    let mut ip = &chunk.src[start..];
    for s in 0..nstreams {
        if ip.len() < 4 {
            return Err(Error::ReadBuffer);
        }
        let csize = i32::from_le_bytes([ip[0], ip[1], ip[2], ip[3]]);
        ip = &ip[4..];
        let stream = if csize == 0 {
            Stream::Zeros
        } else if csize < 0 {
            let (&token, rest) = ip.split_first().ok_or(Error::ReadBuffer)?;
            ip = rest;
            if token & 0x1 == 0 || csize < -255 {
                return Err(Error::RunLength);
            }
            Stream::Run((-csize) as u8)
        } else {
            let c = csize as usize;
            let payload = ip.get(..c).ok_or(Error::ReadBuffer)?;
            ip = &ip[c..];
            if c == neblock {
                Stream::Stored(payload)
            } else {
                Stream::Coded(payload)
            }
        };
        f(s, stream)?;
    }
    Ok(())
}

/// Decode one coded stream (or VL block) into `dst`: built-in codecs by
/// the header's format, plugin codecs by the header's codec id.
pub(crate) fn decode_payload(
    chunk: &Chunk<'_>,
    payload: &[u8],
    dst: &mut [u8],
    dict: Option<&Dict<'_>>,
    scratch: &mut codecs::CodecScratch,
    call: &Call<'_>,
) -> Result<usize> {
    let format = chunk.hdr.codec_format();
    if format == codec_format::UDCODEC {
        return plugins::codec_decode(chunk.hdr.compcode, chunk.hdr.compcode_meta, payload, dst, call);
    }
    codecs::decompress_stream(format, payload, dst, dict, scratch)
}

/// Decode the streams of block `j` into `out`. With `sources`, streams
/// that are one repeated byte or stored as they are go there instead, and
/// their part of `out` is left as it was (the caller has checked there
/// are at most [`planes::MAX_PLANES`] streams).
fn decode_streams<'a>(
    chunk: &Chunk<'a>,
    j: usize,
    out: &mut [u8],
    scratch: &mut codecs::CodecScratch,
    call: &Call<'_>,
    mut sources: Option<&mut PlaneSources<'a>>,
) -> Result<()> {
    let bsize = out.len();
    let start = chunk.bstart(j)?;
    let dict = chunk.dict.map(|bytes| Dict { bytes });
    if chunk.hdr.vl_blocks() {
        let (n, csize, _) = chunk.vl[j];
        let body = chunk.src.get(start..start + csize).ok_or(Error::ReadBuffer)?;
        if body.len() < 4 || read_i32(body, 0)? as usize != n || n != bsize {
            return Err(Error::Data("VL block size mismatch"));
        }
        let payload = &body[4..];
        if payload.len() == bsize {
            out.copy_from_slice(payload);
        } else {
            decode_payload(chunk, payload, out, dict.as_ref(), scratch, call)?;
        }
        return Ok(());
    }
    let nstreams = stream_count(chunk, j);
    let neblock = bsize / nstreams;
    if neblock == 0 {
        return Err(Error::WriteBuffer);
    }
    for_each_stream(chunk, start, nstreams, neblock, |s, stream| {
        let dst = &mut out[s * neblock..(s + 1) * neblock];
        if let Some(to) = sources.as_deref_mut() {
            let source = match stream {
                Stream::Zeros => Some(PlaneSource::Run(0)),
                Stream::Run(byte) => Some(PlaneSource::Run(byte)),
                Stream::Stored(payload) => Some(PlaneSource::Stored(payload)),
                Stream::Coded(_) => None,
            };
            if let Some(source) = source {
                to.set(s, source);
                return Ok(());
            }
        }
        match stream {
            Stream::Zeros => dst.fill(0),
            Stream::Run(byte) => dst.fill(byte),
            Stream::Stored(payload) => dst.copy_from_slice(payload),
            Stream::Coded(payload) => {
                decode_payload(chunk, payload, dst, dict.as_ref(), scratch, call)?;
            }
        }
        Ok(())
    })?;
    // A split block whose size is not a multiple of typesize (3.3.5 writes
    // them for forced block sizes) has bytes no stream holds: zero them
    // rather than leave what the scratch buffer held from an earlier call.
    let covered = nstreams * neblock;
    if covered < bsize {
        // (The test spares the usual case a call to memset.)
        out[covered..].fill(0);
    }
    Ok(())
}

/// The item size when block `j` can be undone by
/// [`planes::unshuffle_from`] reading its runs and stored streams where
/// they are: SHUFFLE by the item size is the only filter to undo and the
/// block is split into one stream per plane, as many as
/// [`planes::reads_planes_in_place`] takes.
fn unshuffle_in_place(chunk: &Chunk<'_>, j: usize) -> Option<usize> {
    let width = chunk.spec.only_shuffle_width()?;
    let fits = width == chunk.spec.typesize
        && !chunk.hdr.vl_blocks()
        && stream_count(chunk, j) == width
        && planes::reads_planes_in_place(width);
    fits.then_some(width)
}

/// Where a block coded with DELTA finds the decoded block 0.
#[derive(Clone, Copy)]
enum Block0<'r, 'a> {
    /// Decoded already (or not needed).
    Ready(Option<&'a [u8]>),
    /// Being decoded by another worker, which publishes it here when done
    /// (`None` if it failed).
    Pending(&'r OnceLock<Option<&'a [u8]>>),
}

/// Decode block `j` into `out` (exactly the block's length). `block0` is
/// the decoded first block, needed by DELTA for every later block.
pub(crate) fn decode_block(
    chunk: &Chunk<'_>,
    j: usize,
    out: &mut [u8],
    block0: Option<&[u8]>,
    opts: &DecodeOptions<'_>,
    ws: &mut WorkerScratch,
) -> Result<()> {
    decode_block_at(chunk, j, out, Block0::Ready(block0), opts, ws)
}

/// [`decode_block`], waiting for a pending block 0 only once this block's
/// streams are decoded, right before its filters need it.
fn decode_block_at(
    chunk: &Chunk<'_>,
    j: usize,
    out: &mut [u8],
    block0: Block0<'_, '_>,
    opts: &DecodeOptions<'_>,
    ws: &mut WorkerScratch,
) -> Result<()> {
    let bsize = out.len();
    let post = opts.postfilter.filter(|_| !chunk.instrumented());
    let call = chunk.call(opts.plugins);
    let backward = chunk.spec.any_backward();
    let direct = chunk.special != 0 || chunk.memcpyed || !backward;
    if direct && post.is_none() {
        // Straight into `out`: no scratch needed (nor grown).
        if chunk.special != 0 || chunk.memcpyed {
            return copy_block(chunk, j, out);
        }
        return decode_streams(chunk, j, out, &mut ws.codec, &call, None);
    }
    check_block_fits(chunk, j, bsize)?;
    // The second ping-pong buffer only when a filter step needs it: a
    // fresh context's first block otherwise clears (and faults in) a
    // block's worth of memory it never uses.
    if chunk.spec.backward_needs_tmp() {
        ws.reserve(bsize);
    } else {
        grow_scratch(&mut ws.a, bsize);
    }
    let ttmp_len = filter_ttmp_len(chunk.blocksize, chunk.spec.typesize);
    if post.is_some() {
        ws.reserve_staging(bsize, ttmp_len);
    }
    let tid = ws.tid;
    let WorkerScratch { a, b, d, codec, .. } = ws;
    if chunk.special != 0 || chunk.memcpyed {
        if let Some(pf) = post {
            copy_block(chunk, j, &mut a[..bsize])?;
            let ttmp = &mut d[bsize..bsize + ttmp_len];
            run_postfilter(pf, chunk, j, &a[..bsize], out, ttmp, (opts.nchunk, tid))?;
        }
        return Ok(());
    }
    if post.is_none() {
        if let Some(typesize) = unshuffle_in_place(chunk, j) {
            let mut sources = PlaneSources::default();
            decode_streams(chunk, j, &mut a[..bsize], codec, &call, Some(&mut sources))?;
            planes::unshuffle_from(typesize, &mut a[..bsize], &sources, out);
            return Ok(());
        }
    }
    decode_streams(chunk, j, &mut a[..bsize], codec, &call, None)?;
    let dref = if j == 0 || chunk.hdr.vl_blocks() {
        None
    } else {
        match block0 {
            Block0::Ready(b) => b,
            Block0::Pending(cell) => *cell.wait(),
        }
    };
    if chunk.spec.has_delta() && j > 0 && dref.is_none() && !chunk.hdr.vl_blocks() {
        return Err(Error::Data("delta block without its reference"));
    }
    match post {
        None => filters::backward(&chunk.spec, &mut a[..bsize], b, out, dref, &call),
        Some(pf) => {
            let (staged, rest) = d.split_at_mut(bsize);
            filters::backward(&chunk.spec, &mut a[..bsize], b, staged, dref, &call)?;
            run_postfilter(pf, chunk, j, staged, out, &mut rest[..ttmp_len], (opts.nchunk, tid))
        }
    }
}

fn run_postfilter(
    pf: &Postfilter,
    chunk: &Chunk<'_>,
    j: usize,
    input: &[u8],
    out: &mut [u8],
    ttmp: &mut [u8],
    (nchunk, tid): (i64, i32),
) -> Result<()> {
    let mut args = PostfilterArgs {
        input,
        output: out,
        typesize: chunk.spec.typesize as i32,
        offset: chunk.block_offset(j) as i32,
        nchunk,
        nblock: j as i32,
        tid,
        ttmp,
    };
    if pf(&mut args) != 0 {
        return Err(Error::Postfilter);
    }
    Ok(())
}

/// Decompress the chunk at the start of `src` into `dest`. Returns the
/// number of bytes written (the chunk's nbytes).
pub fn decompress(src: &[u8], dest: &mut [u8], pool: &mut Pool, opts: &DecodeOptions<'_>) -> Result<usize> {
    let hdr = read_header_inline(src)?;
    if hdr.nbytes as usize > dest.len() {
        return Err(Error::WriteBuffer);
    }
    let chunk = Chunk::with_header(src, hdr)?;
    decompress_chunk(&chunk, dest, pool, opts)
}

/// Decode the blocks `blocks` of the chunk at the start of `src` one at a
/// time, each into a block-sized staging buffer of the worker decoding it,
/// and hand it to `sink(k, block)` (`k`: its index in `blocks`) while it
/// is still in that worker's cache. The staging buffers are the workers'
/// own, kept between calls: a caller needs no buffer of its own for the
/// decoded blocks (a b2nd slice copies its parts out of each one).
///
/// Returns `Ok(false)`, calling `sink` for no block, when the chunk's
/// blocks are not `blocksize` bytes each (a chunk written with other
/// parameters, or with variable-length blocks): decode it whole instead.
pub fn decode_blocks_each<S>(
    src: &[u8],
    blocks: &[usize],
    blocksize: usize,
    pool: &mut Pool,
    opts: &DecodeOptions<'_>,
    sink: S,
) -> Result<bool>
where
    S: Fn(usize, &[u8]) -> Result<()> + Sync,
{
    let chunk = Chunk::open(src)?;
    if chunk.hdr.vl_blocks() || chunk.blocksize != blocksize || chunk.hdr.nbytes == 0 {
        return Ok(false);
    }
    if blocks.iter().any(|&j| j >= chunk.nblocks) {
        return Err(Error::InvalidParam("block out of range"));
    }
    // DELTA blocks need the decoded block 0: decode it once, apart.
    let block0 = if chunk.needs_block0() {
        let mut b0 = vec![0u8; chunk.block_len(0)];
        decode_block(&chunk, 0, &mut b0, None, opts, &mut pool.serial_scratch())?;
        Some(b0)
    } else {
        None
    };
    pool.run(blocks.len(), blocks.iter().copied().enumerate(), |(k, j), ws| {
        if let (Some(b0), 0) = (&block0, j) {
            return sink(k, b0);
        }
        // The staging buffer is taken out so that the decoder can borrow
        // the rest of the scratch.
        let mut stage = std::mem::take(&mut ws.c);
        grow_scratch(&mut stage, blocksize);
        let out = &mut stage[..chunk.block_len(j)];
        let done = decode_block(&chunk, j, out, block0.as_deref(), opts, ws).and_then(|()| sink(k, out));
        ws.c = stage;
        done
    })?;
    Ok(true)
}

/// Decode an opened chunk into `dest` (at least nbytes long).
pub(crate) fn decompress_chunk(
    chunk: &Chunk<'_>,
    dest: &mut [u8],
    pool: &mut Pool,
    opts: &DecodeOptions<'_>,
) -> Result<usize> {
    let nbytes = chunk.hdr.nbytes as usize;
    if let Some(m) = opts.maskout {
        if m.len() != chunk.nblocks {
            return Err(Error::Data("maskout length differs from the number of blocks"));
        }
    }
    if nbytes == 0 {
        return Ok(0);
    }
    let dest = &mut dest[..nbytes];
    let masked = |j: usize| opts.maskout.is_some_and(|m| m[j]);
    let plain = chunk.special != 0 || (chunk.memcpyed && !chunk.hdr.vl_blocks());
    if plain && opts.postfilter.is_none() && opts.maskout.is_none() {
        // Whole-buffer fill or copy, in as many pieces as there are
        // workers: much faster than block by block.
        if chunk.special == special::UNINIT {
            return Ok(nbytes);
        }
        let unit = repeated_value(chunk)?.map_or(1, <[u8]>::len);
        bulk::share_out(pool, dest, unit, |start, out| match copy_range(chunk, start, out)? {
            true => Ok(()),
            false => Err(Error::Data("size not a multiple of the value size")),
        })?;
        return Ok(nbytes);
    }
    if chunk.hdr.vl_blocks() {
        let mut rest = &mut dest[..];
        let mut pieces = Vec::with_capacity(chunk.nblocks);
        for j in 0..chunk.nblocks {
            let (head, tail) = std::mem::take(&mut rest).split_at_mut(chunk.vl[j].0);
            pieces.push((j, head));
            rest = tail;
        }
        pool.run(chunk.nblocks, pieces.into_iter(), |(j, out), ws| {
            if masked(j) {
                return Ok(());
            }
            decode_block(chunk, j, out, None, opts, ws)
        })?;
        return Ok(nbytes);
    }
    let bs = chunk.blocksize;
    let (first, rest) = dest.split_at_mut(bs.min(nbytes));
    if chunk.needs_block0() && !masked(0) && pool.nthreads() > 1 && chunk.nblocks > 1 {
        // DELTA: every later block is XORed with the decoded block 0. As in
        // C, all blocks decode their streams at once and only the filter
        // step of blocks 1.. waits for block 0. No worker can wait on a
        // block that no worker runs: the queue hands out block 0 first.
        let ready: OnceLock<Option<&[u8]>> = OnceLock::new();
        let wanted = (0..chunk.nblocks).filter(|&j| !masked(j)).count();
        let blocks = std::iter::once(first)
            .chain(rest.chunks_mut(bs))
            .enumerate()
            .filter(|(j, _)| !masked(*j));
        pool.run(wanted, blocks, |(j, out), ws| {
            if j > 0 {
                return decode_block_at(chunk, j, out, Block0::Pending(&ready), opts, ws);
            }
            let decoded = decode_block(chunk, 0, out, None, opts, ws);
            let done: &[u8] = out;
            // Waiters see `None` (and fail) if block 0 did not decode.
            let _ = ready.set(decoded.is_ok().then_some(done));
            decoded
        })?;
    } else if chunk.needs_block0() {
        // DELTA on one thread (or with block 0 masked out): block 0 first,
        // then shared read-only.
        if !masked(0) {
            decode_block(chunk, 0, first, None, opts, &mut pool.serial_scratch())?;
        }
        let block0: &[u8] = first;
        pool.run(chunk.nblocks - 1, rest.chunks_mut(bs).enumerate(), |(i, out), ws| {
            if masked(i + 1) {
                return Ok(());
            }
            decode_block(chunk, i + 1, out, Some(block0), opts, ws)
        })?;
    } else {
        // Masked-out blocks never reach the workers, so that a few blocks
        // left (a b2nd slice) do not wake more threads than they need.
        let wanted = (0..chunk.nblocks).filter(|&j| !masked(j)).count();
        let blocks = std::iter::once(first)
            .chain(rest.chunks_mut(bs))
            .enumerate()
            .filter(|(j, _)| !masked(*j));
        pool.run(wanted, blocks, |(j, out), ws| {
            decode_block(chunk, j, out, None, opts, ws)
        })?;
    }
    Ok(nbytes)
}

#[cfg(test)]
mod tests {
    use super::fill_pattern;

    /// The copied runs repeat the value exactly, for values that divide the
    /// run and ones that do not, and buffers shorter than one run.
    #[test]
    fn fill_pattern_repeats_the_value() {
        for p in [1usize, 3, 8, 24, 5000] {
            let pattern: Vec<u8> = (0..p).map(|i| (i * 7 + 1) as u8).collect();
            for n in [1usize, 2, 100, 1000, 1365, 4097] {
                let mut out = vec![0u8; n * p];
                fill_pattern(&mut out, &pattern).unwrap();
                assert!(out.chunks(p).all(|c| c == pattern), "value of {p} bytes x {n}");
            }
        }
        assert!(fill_pattern(&mut [0u8; 10], &[1, 2, 3]).is_err());
        assert!(fill_pattern(&mut [0u8; 10], &[]).is_err());
    }
}
