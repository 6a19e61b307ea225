//! Variable-length-block chunks (format version 6): one chunk holding
//! several independently sized blocks, each stored as one stream whose
//! `csize` word holds the block's *uncompressed* size.

use crate::engine::codecs::{self, Dict};
use crate::engine::constants::{
    blosc2_flags, blosc2_flags2, codec, flags, version, EXTENDED_HEADER_LENGTH, MAX_BUFFERSIZE, MAX_DICT_SIZE,
    MIN_USEFUL_DICT,
};
use crate::engine::error::{Error, Result};
use crate::engine::filters::{self, FilterSpec};
use crate::engine::header::{codec_format_of, ChunkHeader};
use crate::engine::params::CParams;
use crate::engine::plugins::{self, Call};
use crate::engine::threads::{Pool, WorkerScratch};

use super::compress::checked_typesize;
use super::decompress::{decode_block, read_header, Chunk, DecodeOptions};

/// Compress `blocks` into one VL-block chunk. Returns its size, or 0 when
/// it does not fit in `dest`.
pub fn vlcompress(cp: &CParams, blocks: &[&[u8]], dest: &mut [u8], pool: &mut Pool) -> Result<usize> {
    if blocks.is_empty() || blocks.iter().any(|b| b.is_empty()) {
        return Err(Error::InvalidParam("VL blocks must be non-empty"));
    }
    let total: usize = blocks.iter().map(|b| b.len()).sum();
    if total > MAX_BUFFERSIZE as usize {
        return Err(Error::MaxBufsizeExceeded);
    }
    let typesize = checked_typesize(cp, total, dest.len())?;
    let spec = FilterSpec {
        filters: cp.filters,
        meta: cp.filters_meta,
        typesize,
        chunk_version: version::BLOSC2_VL_BLOCKS,
    };
    let nblocks = blocks.len();
    let maxlen = blocks.iter().map(|b| b.len()).max().unwrap_or(0);
    let call = Call {
        typesize: typesize as i32,
        nthreads: cp.nthreads,
        env: &cp.plugins,
        cparams: Some(cp),
        chunk: &[],
    };
    let mut hdr = ChunkHeader {
        version: version::BLOSC2_VL_BLOCKS,
        versionlz: 1,
        flags: flags::EXTENDED_HEADER | flags::DONT_SPLIT | (codec_format_of(cp.compcode) << 5),
        typesize: typesize as u8,
        nbytes: total as i32,
        blocksize: nblocks as i32,
        cbytes: 0,
        filters: cp.filters,
        filters_meta: cp.filters_meta,
        compcode: cp.compcode,
        compcode_meta: cp.compcode_meta,
        blosc2_flags2: blosc2_flags2::VL_BLOCKS,
        blosc2_flags: 0,
        header_len: EXTENDED_HEADER_LENGTH,
    };
    if spec.has_delta() {
        hdr.flags |= flags::DODELTA;
    }
    let mut dict_bytes = None;
    if cp.use_dict && cp.clevel > 0 {
        let dict_maxsize = MAX_DICT_SIZE.min(total / 20);
        let sample_size = total / nblocks / 16;
        if dict_maxsize >= MIN_USEFUL_DICT && nblocks >= 8 && sample_size > 0 {
            let mut serial = pool.serial_scratch();
            let ws = &mut *serial;
            ws.reserve(maxlen);
            let mut samples = Vec::with_capacity(total);
            let mut sizes = Vec::with_capacity(nblocks);
            for b in blocks {
                let WorkerScratch { a, b: tb, .. } = &mut *ws;
                let f = filters::forward(&spec, b, None, a, tb, &call)?;
                samples.extend_from_slice(f);
                sizes.push(b.len());
            }
            dict_bytes = if cp.compcode == codec::ZSTD {
                codecs::zstd::train_dict(&samples, &sizes, dict_maxsize).filter(|d| !d.is_empty())
            } else {
                samples.truncate(dict_maxsize);
                Some(samples)
            };
        }
    }
    let mut pos = EXTENDED_HEADER_LENGTH + 4 * nblocks;
    if pos > dest.len() {
        return Ok(0);
    }
    if let Some(d) = &dict_bytes {
        if pos + 4 + d.len() > dest.len() {
            return Ok(0);
        }
        dest[pos..pos + 4].copy_from_slice(&(d.len() as i32).to_le_bytes());
        dest[pos + 4..pos + 4 + d.len()].copy_from_slice(d);
        pos += 4 + d.len();
        hdr.blosc2_flags |= blosc2_flags::USEDICT;
    }
    let dict = dict_bytes.as_deref().map(|bytes| Dict { bytes });
    let mut outs: Vec<Vec<u8>> = blocks.iter().map(|b| vec![0u8; b.len() + 4]).collect();
    let mut lens = vec![0usize; nblocks];
    let items = blocks.iter().zip(outs.iter_mut().zip(lens.iter_mut()));
    pool.run(nblocks, items, |(blk, (out, len)), ws| {
        ws.reserve(blk.len());
        let WorkerScratch { a, b, codec, .. } = ws;
        let f = filters::forward(&spec, blk, None, a, b, &call)?;
        out[..4].copy_from_slice(&(blk.len() as i32).to_le_bytes());
        let n = if cp.clevel == 0 {
            0
        } else if cp.compcode >= codec::GLOBAL_REGISTERED_START {
            let dst = &mut out[4..4 + blk.len()];
            plugins::codec_encode(cp.compcode, cp.compcode_meta, f, dst, &call)?
        } else {
            codecs::compress_stream(
                cp.compcode,
                cp.clevel,
                f,
                &mut out[4..4 + blk.len()],
                dict.as_ref(),
                codec,
            )?
        };
        let n = if n == 0 || n >= blk.len() {
            out[4..4 + blk.len()].copy_from_slice(f);
            blk.len()
        } else {
            n
        };
        *len = 4 + n;
        Ok(())
    })?;
    for j in 0..nblocks {
        let n = lens[j];
        if pos + n > dest.len() {
            return Ok(0);
        }
        let at = EXTENDED_HEADER_LENGTH + 4 * j;
        dest[at..at + 4].copy_from_slice(&(pos as i32).to_le_bytes());
        dest[pos..pos + n].copy_from_slice(&outs[j][..n]);
        pos += n;
    }
    hdr.cbytes = pos as i32;
    hdr.write_extended(dest);
    Ok(pos)
}

fn open_vl(src: &[u8]) -> Result<Chunk<'_>> {
    let hdr = read_header(src)?;
    if !hdr.vl_blocks() {
        return Err(Error::InvalidParam("not a VL-block chunk"));
    }
    Chunk::open(src)
}

/// Number of blocks of a VL-block chunk (header only).
pub fn vl_nblocks(src: &[u8]) -> Result<i32> {
    let hdr = read_header(src)?;
    if !hdr.vl_blocks() {
        return Err(Error::InvalidParam("not a VL-block chunk"));
    }
    Ok(hdr.blocksize)
}

/// Decode every block of a VL-block chunk, each into its own buffer.
/// `alloc` provides a zeroed buffer of the requested size.
pub fn vldecompress<B, A>(src: &[u8], pool: &mut Pool, mut alloc: A) -> Result<Vec<B>>
where
    B: AsMut<[u8]> + Send,
    A: FnMut(usize) -> Result<B>,
{
    let chunk = open_vl(src)?;
    let mut outs = Vec::with_capacity(chunk.nblocks);
    for j in 0..chunk.nblocks {
        outs.push(alloc(chunk.block_len(j))?);
    }
    let opts = DecodeOptions {
        nchunk: -1,
        ..Default::default()
    };
    let n = outs.len();
    pool.run(n, outs.iter_mut().enumerate(), |(j, out), ws| {
        decode_block(&chunk, j, out.as_mut(), None, &opts, ws)
    })?;
    Ok(outs)
}

/// Decode block `nblock` of a VL-block chunk into a buffer from `alloc`.
pub fn vldecompress_block<B, A>(src: &[u8], nblock: i32, ws: &mut WorkerScratch, alloc: A) -> Result<B>
where
    B: AsMut<[u8]>,
    A: FnOnce(usize) -> Result<B>,
{
    let chunk = open_vl(src)?;
    if nblock < 0 || nblock as usize >= chunk.nblocks {
        return Err(Error::InvalidParam("block index"));
    }
    let j = nblock as usize;
    let mut out = alloc(chunk.block_len(j))?;
    let opts = DecodeOptions {
        nchunk: -1,
        ..Default::default()
    };
    decode_block(&chunk, j, out.as_mut(), None, &opts, ws)?;
    Ok(out)
}
