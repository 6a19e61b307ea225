//! Reading a range of items out of a chunk, decoding only the blocks that
//! hold them (plus block 0 when DELTA needs it as the reference, which
//! 3.3.5 forgets, returning wrong bytes).

use crate::engine::error::{Error, Result};
use crate::engine::threads::WorkerScratch;

use super::decompress::{decode_block, read_header, Chunk, DecodeOptions};

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
    let ts = i64::from(hdr.typesize);
    getitem_bytes_checked(src, start, nitems, ts, dest, ws, opts)
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
    getitem_bytes_checked(src, start / ts, nbytes / ts, ts, dest, ws, opts)
}

fn getitem_bytes_checked(
    src: &[u8],
    start: i64,
    nitems: i64,
    ts: i64,
    dest: &mut [u8],
    ws: &mut WorkerScratch,
    opts: &DecodeOptions<'_>,
) -> Result<usize> {
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
    let hdr = read_header(src)?;
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
    let chunk = Chunk::open(src)?;
    let (b0, b1) = ((start * ts) as usize, (stop * ts) as usize);
    let out = &mut dest[..b1 - b0];
    let bs = chunk.blocksize;
    let first_block = b0 / bs;
    let last_block = (b1 - 1) / bs;
    let mut block0 = Vec::new();
    if chunk.needs_block0() && last_block > 0 {
        block0.resize(chunk.block_len(0), 0);
        decode_block(&chunk, 0, &mut block0, None, opts, ws)?;
    }
    let mut tmp = Vec::new();
    for j in first_block..=last_block {
        let blen = chunk.block_len(j);
        let boff = j * bs;
        let lo = b0.max(boff);
        let hi = b1.min(boff + blen);
        let r = if block0.is_empty() { None } else { Some(&block0[..]) };
        if lo == boff && hi == boff + blen {
            // Whole block wanted: decode straight into the destination.
            decode_block(&chunk, j, &mut out[lo - b0..hi - b0], r, opts, ws)?;
        } else {
            tmp.resize(blen, 0);
            decode_block(&chunk, j, &mut tmp, r, opts, ws)?;
            out[lo - b0..hi - b0].copy_from_slice(&tmp[lo - boff..hi - boff]);
        }
    }
    Ok(b1 - b0)
}
