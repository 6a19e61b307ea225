//! Reading a range of items out of a chunk, decoding only the blocks that
//! hold them (plus block 0 when DELTA needs it as the reference, which
//! 3.3.5 forgets, returning wrong bytes).

use crate::engine::bulk;
use crate::engine::codecs::{self, Dict};
use crate::engine::constants::{codec_format, filter, special};
use crate::engine::error::{Error, Result};
use crate::engine::filters::shuffle::unshuffle;
use crate::engine::filters::{shuffle_width, FilterSpec};
use crate::engine::header::ChunkHeader;
use crate::engine::threads::{Pool, WorkerScratch};

use super::decompress::{
    check_block_fits, copy_range, decode_block, for_each_stream, read_header_inline, stream_count, Chunk,
    DecodeOptions, Stream,
};

/// Copy items `start..start+nitems` (in units of the chunk's typesize)
/// into `dest`. Returns the number of bytes written. `pool` lends the
/// block scratch, taken only when blocks are decoded.
pub fn getitem(
    src: &[u8],
    start: i64,
    nitems: i64,
    dest: &mut [u8],
    pool: &mut Pool,
    opts: &DecodeOptions<'_>,
) -> Result<usize> {
    let hdr = getitem_header(src)?;
    let ts = i64::from(hdr.typesize);
    if nitems == 0 {
        return Ok(0);
    }
    if nitems < 0 {
        return Err(Error::InvalidParam("nitems"));
    }
    let want = nitems * ts;
    if want > i64::from(i32::MAX) || want > dest.len() as i64 {
        return Err(Error::WriteBuffer);
    }
    let nbytes = i64::from(hdr.nbytes);
    if start < 0 || start * ts > nbytes {
        return Err(Error::InvalidParam("start"));
    }
    let stop = start + nitems;
    if stop > i64::from(i32::MAX) || stop * ts > nbytes {
        return Err(Error::InvalidParam("start + nitems"));
    }
    getitem_range(src, hdr, (start * ts) as usize, (stop * ts) as usize, dest, pool, opts)
}

/// Copy the byte range `start..start+nbytes` (both multiples of the
/// chunk's typesize) into `dest`: [`getitem`] in bytes, with the same
/// checks in the same order, and no division by the typesize (a slice of
/// one item costs a few tens of ns, of which each division is several).
pub fn getitem_bytes(
    src: &[u8],
    start: i64,
    nbytes: i64,
    dest: &mut [u8],
    pool: &mut Pool,
    opts: &DecodeOptions<'_>,
) -> Result<usize> {
    let hdr = getitem_header(src)?;
    let ts = usize::from(hdr.typesize);
    if start < 0
        || nbytes < 0
        || !is_multiple_of_typesize(start as usize, ts)
        || !is_multiple_of_typesize(nbytes as usize, ts)
    {
        return Err(Error::InvalidParam("byte range not aligned to the typesize"));
    }
    if nbytes == 0 {
        return Ok(0);
    }
    if nbytes > i64::from(i32::MAX) || nbytes > dest.len() as i64 {
        return Err(Error::WriteBuffer);
    }
    let chunk_bytes = i64::from(hdr.nbytes);
    if start > chunk_bytes {
        return Err(Error::InvalidParam("start"));
    }
    // Both are at most i32::MAX here, so the sum does not overflow; and
    // the end in items passes i32::MAX only when it passes the chunk.
    let stop = start + nbytes;
    if stop > chunk_bytes {
        return Err(Error::InvalidParam("start + nitems"));
    }
    getitem_range(src, hdr, start as usize, stop as usize, dest, pool, opts)
}

/// The header of the chunk in `src`, which getitem reads items of (any
/// chunk but a VL-block one).
#[inline(always)]
fn getitem_header(src: &[u8]) -> Result<ChunkHeader> {
    let hdr = read_header_inline(src)?;
    if hdr.vl_blocks() {
        return Err(Error::InvalidParam("getitem on a VL-block chunk"));
    }
    Ok(hdr)
}

/// Whether `x` is a multiple of the typesize `ts` (at least 1): a mask for
/// powers of two (nearly every typesize), a division for the rest, which
/// a one-item slice would feel.
pub fn is_multiple_of_typesize(x: usize, ts: usize) -> bool {
    if ts.is_power_of_two() {
        x & (ts - 1) == 0
    } else {
        x.is_multiple_of(ts)
    }
}

/// Bytes `b0..b1` (checked against the chunk's nbytes and `dest`) of the
/// chunk in `src`, whose header `hdr` was read by [`read_header_inline`].
/// Inlined into its two callers so that the header stays in registers
/// (see [`read_header_inline`]).
#[inline(always)]
fn getitem_range(
    src: &[u8],
    hdr: ChunkHeader,
    b0: usize,
    b1: usize,
    dest: &mut [u8],
    pool: &mut Pool,
    opts: &DecodeOptions<'_>,
) -> Result<usize> {
    if hdr.cbytes as usize > src.len() {
        return Err(Error::InvalidHeader);
    }
    let out = &mut dest[..b1 - b0];
    // A well-formed memcpyed chunk: the items are right there. (Anything
    // else, malformed ones included, goes through Chunk's validation.)
    let hl = hdr.header_len;
    if opts.postfilter.is_none()
        && hdr.memcpyed()
        && hdr.special_type() == 0
        && !hdr.lazy()
        && !hdr.vl_blocks()
        && hdr.cbytes as usize == hdr.nbytes as usize + hl
    {
        out.copy_from_slice(&src[hl + b0..hl + b1]);
        return Ok(b1 - b0);
    }
    // An all-zeros special chunk (what fills and zero appends store): the
    // header is all there is to check, as `Chunk::with_header` would.
    if opts.postfilter.is_none() && hdr.special_type() == special::ZERO && !hdr.memcpyed() {
        bulk::zero(out);
        return Ok(b1 - b0);
    }
    let chunk = Chunk::with_header(src, hdr)?;
    // Memcpyed and special chunks: straight from the chunk, no block
    // decoding (postfilters work on whole blocks, so they take the long way).
    if opts.postfilter.is_none() && copy_range(&chunk, b0, out)? {
        return Ok(b1 - b0);
    }
    // Blocks to decode: only now is the scratch taken (for a pool sharing
    // its scratch with others, that is a lock).
    let mut ws = pool.serial_scratch();
    let ws = &mut *ws;
    let last_block = (b1 - 1) / chunk.blocksize;
    let mut block0 = Vec::new();
    if chunk.needs_block0() && last_block > 0 {
        check_block_fits(&chunk, 0, chunk.block_len(0))?;
        block0.resize(chunk.block_len(0), 0);
        decode_block(&chunk, 0, &mut block0, None, opts, ws)?;
    }
    // Partial blocks are decoded into the worker's spare buffer `c`
    // (decode_block uses the others), kept across calls.
    let mut tmp = std::mem::take(&mut ws.c);
    let r = decode_range(&chunk, b0, b1, out, &block0, &mut tmp, opts, ws);
    ws.c = tmp;
    r?;
    Ok(b1 - b0)
}

/// Decode the blocks holding bytes `b0..b1` of `chunk` into `out`.
#[allow(clippy::too_many_arguments)]
fn decode_range(
    chunk: &Chunk<'_>,
    b0: usize,
    b1: usize,
    out: &mut [u8],
    block0: &[u8],
    tmp: &mut Vec<u8>,
    opts: &DecodeOptions<'_>,
    ws: &mut WorkerScratch,
) -> Result<()> {
    let bs = chunk.blocksize;
    let r = if block0.is_empty() { None } else { Some(block0) };
    for j in b0 / bs..=(b1 - 1) / bs {
        let blen = chunk.block_len(j);
        let boff = j * bs;
        let lo = b0.max(boff);
        let hi = b1.min(boff + blen);
        if lo == boff && hi == boff + blen {
            // Whole block wanted: decode straight into the destination.
            decode_block(chunk, j, &mut out[lo - b0..hi - b0], r, opts, ws)?;
        } else {
            if opts.postfilter.is_none() && decode_part_shuffled(chunk, j, lo - boff, &mut out[lo - b0..hi - b0], ws)? {
                continue;
            }
            if tmp.len() < blen {
                check_block_fits(chunk, j, blen)?;
                tmp.resize(blen, 0);
            }
            if chunk.special == special::UNINIT {
                // Nothing is decoded: hand out zeros, not stale bytes.
                tmp[..blen].fill(0);
            }
            decode_block(chunk, j, &mut tmp[..blen], r, opts, ws)?;
            out[lo - b0..hi - b0].copy_from_slice(&tmp[lo - boff..hi - boff]);
        }
    }
    Ok(())
}

/// The shuffle width when the block pipeline is one SHUFFLE and nothing
/// else to undo (TRUNC_PREC needs nothing on decompression).
fn shuffle_only(spec: &FilterSpec) -> Option<usize> {
    let mut width = None;
    for (&f, &meta) in spec.filters.iter().zip(&spec.meta) {
        match f {
            filter::NOFILTER | filter::TRUNC_PREC => {}
            filter::SHUFFLE if width.is_none() => width = Some(shuffle_width(meta, spec.typesize)),
            _ => return None,
        }
    }
    width
}

/// Bytes `start..start + out.len()` of block `j`, when its only filter is a
/// shuffle of whole items, without undoing the shuffle for the whole block:
/// every stream is read and checked, and coded streams are decoded whole,
/// exactly as [`decode_block`] does (so the same inputs fail the same way),
/// but stored and run streams give only the bytes of the wanted items, and
/// only those items are unshuffled. A getitem of one item out of a block of
/// mostly stored planes (the low bytes of floats) then costs the decoding
/// of the coded planes and little else. Returns false, writing nothing,
/// for any other block. Any part of a block costs no more this way than
/// the whole block would: the wanted items are unshuffled with the same
/// vector kernel ([`gather_items`]).
fn decode_part_shuffled(
    chunk: &Chunk<'_>,
    j: usize,
    start: usize,
    out: &mut [u8],
    ws: &mut WorkerScratch,
) -> Result<bool> {
    let Some(width) = shuffle_only(&chunk.spec) else {
        return Ok(false);
    };
    let bsize = chunk.block_len(j);
    let nstreams = stream_count(chunk, j);
    // (Plugin codecs take the whole-block path.)
    if chunk.special != 0
        || chunk.memcpyed
        || chunk.hdr.vl_blocks()
        || chunk.hdr.codec_format() == codec_format::UDCODEC
        || out.is_empty()
        || width < 2
        || !bsize.is_multiple_of(width)
        || !bsize.is_multiple_of(nstreams)
    {
        return Ok(false);
    }
    check_block_fits(chunk, j, bsize)?;
    // Shuffled, the block is `width` planes of `nitems` bytes (byte k of
    // every item), cut into `nstreams` streams of `neblock` bytes.
    let nitems = bsize / width;
    let neblock = bsize / nstreams;
    let (first, last) = (start / width, (start + out.len() - 1) / width);
    let wanted = first..last + 1;
    if ws.a.len() < bsize {
        ws.a.resize(bsize, 0);
    }
    let WorkerScratch { a, b, codec, .. } = ws;
    let planes = &mut a[..bsize];
    let format = chunk.hdr.codec_format();
    let dict = chunk.dict.map(|bytes| Dict { bytes });
    for_each_stream(chunk, chunk.bstart(j)?, nstreams, neblock, |s, stream| {
        let (lo, hi) = (s * neblock, (s + 1) * neblock);
        let dst = &mut planes[lo..hi];
        // The wanted items' bytes in this stream: a run per plane it holds.
        let runs = (lo / nitems..=(hi - 1) / nitems).filter_map(|k| {
            let (r0, r1) = ((k * nitems + wanted.start).max(lo), (k * nitems + wanted.end).min(hi));
            (r0 < r1).then(|| r0 - lo..r1 - lo)
        });
        match stream {
            Stream::Zeros => runs.for_each(|r| dst[r].fill(0)),
            Stream::Run(byte) => runs.for_each(|r| dst[r].fill(byte)),
            Stream::Stored(payload) => runs.for_each(|r| dst[r.clone()].copy_from_slice(&payload[r])),
            Stream::Coded(payload) => {
                codecs::decompress_stream(format, payload, dst, dict.as_ref(), codec)?;
            }
        }
        Ok(())
    })?;
    let planes: &[u8] = planes;
    if out.len() <= SMALL_GATHER {
        let (mut item, mut k) = (start / width, start % width);
        for byte in out.iter_mut() {
            *byte = planes[k * nitems + item];
            k += 1;
            if k == width {
                k = 0;
                item += 1;
            }
        }
    } else {
        gather_items(planes, nitems, width, start, out, b);
    }
    Ok(true)
}

/// Up to this many bytes are gathered byte by byte (a getitem of one or a
/// few items), where the copies and the call of [`gather_items`] would
/// cost more than they save.
const SMALL_GATHER: usize = 64;

/// Bytes `start..start + out.len()` of the items whose `width` byte planes
/// of `nitems` bytes each are `planes`: the wanted run of every plane is
/// copied next to the others into `packed`, which the vector unshuffle
/// then turns into whole items (a byte-by-byte gather cost about 16
/// instructions a byte: a slice of 4096 int64 out of a 4 MiB chunk ran
/// at 0.5x C-Blosc2, whose getitem unshuffles the whole block).
fn gather_items(planes: &[u8], nitems: usize, width: usize, start: usize, out: &mut [u8], packed: &mut Vec<u8>) {
    let (first, last) = (start / width, (start + out.len() - 1) / width);
    let n = last + 1 - first;
    let len = n * width;
    // Room for the planes and, when the range does not start and end on
    // item boundaries, the whole items after them.
    let aligned = start.is_multiple_of(width) && out.len() == len;
    let need = if aligned { len } else { 2 * len };
    if packed.len() < need {
        packed.resize(need, 0);
    }
    let (runs, items) = packed.split_at_mut(len);
    for (k, run) in runs.chunks_exact_mut(n).enumerate() {
        let from = k * nitems + first;
        run.copy_from_slice(&planes[from..from + n]);
    }
    if aligned {
        unshuffle(width, runs, out);
    } else {
        let items = &mut items[..len];
        unshuffle(width, runs, items);
        let skip = start - first * width;
        out.copy_from_slice(&items[skip..skip + out.len()]);
    }
}

#[cfg(test)]
mod tests {
    use crate::engine::constants::{codec, filter, splitmode};
    use crate::engine::context::{compress_vec, decompress_vec, Context};
    use crate::engine::params::{CParams, DParams};
    use crate::engine::threads::WorkerScratch;

    use super::{decode_part_shuffled, Chunk};

    /// Floats whose low bytes are noise (stored planes) and high bytes
    /// smooth (coded planes), plus runs of zeros (zero streams).
    fn data(n: usize) -> Vec<u8> {
        let mut x: u64 = 0x9E37_79B9_7F4A_7C15;
        (0..n)
            .map(|i| {
                x ^= x << 13;
                x ^= x >> 7;
                x ^= x << 17;
                match (i / 4096) % 3 {
                    0 => 0,
                    1 => x as u8,
                    _ => ((i / 8) as u64 >> (8 * (i % 8)).min(16)) as u8 ^ (x as u8 & 0x0F),
                }
            })
            .collect()
    }

    /// The vector gather gives the bytes the byte-by-byte one gives, for
    /// ranges that start or end inside an item too.
    #[test]
    fn gather_items_matches_bytewise() {
        for width in [2usize, 3, 4, 8, 16] {
            let nitems = 1000;
            let items: Vec<u8> = (0..nitems * width).map(|i| (i * 31 % 251) as u8).collect();
            let mut planes = vec![0u8; items.len()];
            crate::engine::filters::shuffle::shuffle(width, &items, &mut planes);
            let mut packed = Vec::new();
            for (start, len) in [
                (0, 65),
                (width, 200 * width),
                (1, 100),
                (width * 7 + 1, 333),
                (5, items.len() - 5),
            ] {
                let mut out = vec![0u8; len];
                super::gather_items(&planes, nitems, width, start, &mut out, &mut packed);
                assert_eq!(out, items[start..start + len], "width {width} at {start}+{len}");
            }
        }
    }

    /// Every kind of partial-block getitem on shuffled chunks equals the
    /// same bytes of the whole decompression.
    #[test]
    fn partial_shuffled_blocks_match_the_whole_chunk() {
        // Four 24 KiB blocks and a leftover block of 816 bytes (a whole
        // number of items for every typesize below).
        let src = data(96 * 1024 + 816);
        let mut dctx = Context::decompressor(DParams::default());
        let mut taken = 0;
        for compcode in [codec::LZ4, codec::BLOSCLZ, codec::ZSTD] {
            for (typesize, meta) in [(8, 0), (4, 0), (8, 4), (3, 0)] {
                for split in [splitmode::ALWAYS, splitmode::NEVER] {
                    let mut filters = [0; 6];
                    let mut filters_meta = [0; 6];
                    filters[5] = filter::SHUFFLE;
                    filters_meta[5] = meta;
                    let cp = CParams {
                        compcode,
                        clevel: 5,
                        typesize,
                        blocksize: 24 * 1024,
                        splitmode: split,
                        filters,
                        filters_meta,
                        ..CParams::default()
                    };
                    let chunk = compress_vec(&cp, &src).unwrap();
                    let whole = decompress_vec(&chunk).unwrap();
                    assert_eq!(whole, src);
                    let ts = typesize as usize;
                    let nitems = src.len() / ts;
                    for (start, n) in [
                        (0, 1),
                        (1, 1),
                        (nitems - 1, 1),
                        (777, 5),
                        (3000, 400),
                        (8190, 3),
                        (9000, 1),
                    ] {
                        let n = n.min(nitems - start);
                        let mut out = vec![0u8; n * ts];
                        let got = dctx.getitem(&chunk, start as i64, n as i64, &mut out).unwrap();
                        assert_eq!(got, n * ts);
                        let what = format!("codec {compcode} ts {typesize} meta {meta} split {split} at {start}+{n}");
                        assert_eq!(out, src[start * ts..(start + n) * ts], "{what}");
                    }
                    // The shortcut itself takes every such block (the
                    // getitems above could pass through the general path).
                    let opened = Chunk::open(&chunk).unwrap();
                    let mut ws = WorkerScratch::default();
                    for (j, start) in [(0, 5), (1, 100), (3, 4095), (4, 9), (4, 809)] {
                        let mut out = [0u8; 7];
                        let at = j * opened.blocksize + start;
                        let took = decode_part_shuffled(&opened, j, start, &mut out, &mut ws).unwrap();
                        if opened.memcpyed {
                            assert!(!took);
                            continue;
                        }
                        assert!(
                            took,
                            "codec {compcode} ts {typesize} meta {meta} split {split} block {j}"
                        );
                        taken += 1;
                        assert_eq!(
                            out,
                            src[at..at + 7],
                            "codec {compcode} ts {typesize} meta {meta} split {split}"
                        );
                    }
                }
            }
        }
        assert!(taken >= 48, "only {taken} blocks took the shortcut");
    }
}
