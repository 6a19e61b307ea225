//! Reading a range of items out of a chunk, decoding only the blocks that
//! hold them (plus block 0 when DELTA needs it as the reference, which
//! 3.3.5 forgets, returning wrong bytes).

use crate::engine::constants::special;
use crate::engine::error::{Error, Result};
use crate::engine::header::ChunkHeader;
use crate::engine::threads::WorkerScratch;

use super::decompress::{check_block_fits, copy_range, decode_block, read_header, Chunk, DecodeOptions};

/// Copy items `start..start+nitems` (in units of the chunk's typesize)
/// into `dest`. Returns the number of bytes written.
pub fn getitem(
    src: &[u8],
    start: i64,
    nitems: i64,
    dest: &mut [u8],
    ws: &mut WorkerScratch,
    opts: &DecodeOptions<'_>,
) -> Result<usize> {
    let hdr = read_header(src)?;
    if hdr.vl_blocks() {
        return Err(Error::InvalidParam("getitem on a VL-block chunk"));
    }
    getitem_bytes_checked(src, hdr, start, nitems, dest, ws, opts)
}

/// Copy the byte range `start..start+nbytes` (both multiples of the
/// chunk's typesize) into `dest`.
pub fn getitem_bytes(
    src: &[u8],
    start: i64,
    nbytes: i64,
    dest: &mut [u8],
    ws: &mut WorkerScratch,
    opts: &DecodeOptions<'_>,
) -> Result<usize> {
    let hdr = read_header(src)?;
    if hdr.vl_blocks() {
        return Err(Error::InvalidParam("getitem on a VL-block chunk"));
    }
    let ts = i64::from(hdr.typesize);
    if start < 0 || nbytes < 0 || start % ts != 0 || nbytes % ts != 0 {
        return Err(Error::InvalidParam("byte range not aligned to the typesize"));
    }
    getitem_bytes_checked(src, hdr, start / ts, nbytes / ts, dest, ws, opts)
}

/// Items `start..start+nitems` (of the header's typesize) of the chunk in
/// `src`, whose header `hdr` was read by [`read_header`].
fn getitem_bytes_checked(
    src: &[u8],
    hdr: ChunkHeader,
    start: i64,
    nitems: i64,
    dest: &mut [u8],
    ws: &mut WorkerScratch,
    opts: &DecodeOptions<'_>,
) -> Result<usize> {
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
    if hdr.cbytes as usize > src.len() {
        return Err(Error::InvalidHeader);
    }
    let (b0, b1) = ((start * ts) as usize, (stop * ts) as usize);
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
    let chunk = Chunk::with_header(src, hdr)?;
    // Memcpyed and special chunks: straight from the chunk, no block
    // decoding (postfilters work on whole blocks, so they take the long way).
    if opts.postfilter.is_none() && copy_range(&chunk, b0, out)? {
        return Ok(b1 - b0);
    }
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
