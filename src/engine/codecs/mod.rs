//! Codec dispatch: one compressed stream in, one out.
//!
//! The chunk engine calls [`compress_stream`] with an output slice as long
//! as the input (C-Blosc2's `maxout`): a result of 0 means "store raw".

pub mod blosclz;
mod deflate;
mod dynamic_header;
mod fixed_block;
mod inflate;
pub mod lz4;
pub mod lz4hc;
mod match_end;
mod noise_runs;
mod pattern;
#[cfg(feature = "snappy")]
pub mod snappy;
pub mod zlib;
mod zlib_choice;
mod zlib_stream;
pub mod zstd;

use std::ffi::CStr;

use super::constants::{codec, codec_format};
use super::error::{Error, Result};

/// Per-thread codec state kept across blocks and calls (zstd contexts and
/// zlib streams are expensive to create, so each worker keeps its own).
#[derive(Default)]
pub struct CodecScratch {
    /// Zstd compression/decompression contexts.
    pub zstd: zstd::ZstdState,
    /// zlib deflate/inflate streams.
    zlib: zlib_stream::ZlibState,
    /// LZ4's hash tables, kept so that a stream need not clear them.
    lz4: lz4::FastTables,
    /// BloscLZ's hash table, kept so that a stream need not clear it.
    blosclz: blosclz::Tables,
}

/// A dictionary shared by all blocks of one chunk.
pub struct Dict<'a> {
    /// The raw dictionary bytes as stored in the chunk.
    pub bytes: &'a [u8],
}

/// Compress one stream with codec `compcode` at `clevel` (1-9). Returns the
/// compressed size, or 0 when the result would not be smaller than `dst`.
pub fn compress_stream(
    compcode: u8,
    clevel: u8,
    src: &[u8],
    dst: &mut [u8],
    dict: Option<&Dict<'_>>,
    scratch: &mut CodecScratch,
) -> Result<usize> {
    let d = dict.map(|d| d.bytes);
    let n = match compcode {
        codec::BLOSCLZ => blosclz::compress_reusing(&mut scratch.blosclz, clevel, src, dst),
        codec::LZ4 => lz4::compress_reusing(&mut scratch.lz4, 10 - i32::from(clevel.min(9)), src, dst, d),
        codec::LZ4HC => lz4hc::compress(i32::from(clevel), src, dst, d),
        #[cfg(feature = "snappy")]
        codec::SNAPPY => snappy::compress(src, dst),
        codec::ZLIB => scratch.zlib.compress(clevel, src, dst)?,
        codec::ZSTD => scratch.zstd.compress(clevel, src, dst, d)?,
        other => return Err(Error::CodecSupport(other)),
    };
    Ok(n)
}

/// Decompress one stream whose codec is given by the header's codec
/// `format` (flags bits 5-7; LZ4 and LZ4HC share a format). The decoded
/// size must be exactly `dst.len()`.
pub fn decompress_stream(
    format: u8,
    src: &[u8],
    dst: &mut [u8],
    dict: Option<&Dict<'_>>,
    scratch: &mut CodecScratch,
) -> Result<usize> {
    let d = dict.map(|d| d.bytes);
    let n = match format {
        codec_format::BLOSCLZ => blosclz::decompress(src, dst),
        codec_format::LZ4 => lz4::decompress(src, dst, d),
        #[cfg(feature = "snappy")]
        codec_format::SNAPPY => snappy::decompress(src, dst),
        codec_format::ZLIB => scratch.zlib.decompress(src, dst),
        codec_format::ZSTD => scratch.zstd.decompress(src, dst, d),
        other => return Err(Error::CodecSupport(other)),
    };
    match n {
        Some(n) if n == dst.len() => Ok(n),
        _ => Err(Error::Data("stream does not decode to the block size")),
    }
}

/// Names of the built-in codecs, as `blosc2_list_compressors` lists them
/// (a C string constant: nothing is built at first use, so a process
/// forked during that first use has nothing half-built).
#[cfg(not(feature = "snappy"))]
pub const COMPRESSOR_LIST_C: &CStr = c"blosclz,lz4,lz4hc,zlib,zstd";
/// Names of the built-in codecs, Snappy included.
#[cfg(feature = "snappy")]
pub const COMPRESSOR_LIST_C: &CStr = c"blosclz,lz4,lz4hc,snappy,zlib,zstd";
/// [`COMPRESSOR_LIST_C`] as a `str`.
pub const COMPRESSOR_LIST: &str = match COMPRESSOR_LIST_C.to_str() {
    Ok(list) => list,
    Err(_) => panic!("codec names are ASCII"),
};

/// Name of a built-in codec id.
pub fn compname(compcode: u8) -> Option<&'static str> {
    Some(match compcode {
        codec::BLOSCLZ => "blosclz",
        codec::LZ4 => "lz4",
        codec::LZ4HC => "lz4hc",
        #[cfg(feature = "snappy")]
        codec::SNAPPY => "snappy",
        codec::ZLIB => "zlib",
        codec::ZSTD => "zstd",
        _ => return None,
    })
}

/// Id of a built-in codec name.
pub fn compcode(name: &str) -> Option<u8> {
    Some(match name {
        "blosclz" => codec::BLOSCLZ,
        "lz4" => codec::LZ4,
        "lz4hc" => codec::LZ4HC,
        #[cfg(feature = "snappy")]
        "snappy" => codec::SNAPPY,
        "zlib" => codec::ZLIB,
        "zstd" => codec::ZSTD,
        _ => return None,
    })
}

/// Library name and version for a codec name (`blosc2_get_complib_info`).
pub fn complib_info(name: &str) -> Option<(&'static str, String)> {
    use super::constants::complib;
    Some(match compcode(name)? {
        codec::BLOSCLZ => ("BloscLZ", complib::BLOSCLZ_VERSION.to_string()),
        codec::LZ4 | codec::LZ4HC => ("LZ4", complib::LZ4_VERSION.to_string()),
        #[cfg(feature = "snappy")]
        codec::SNAPPY => ("Snappy", complib::SNAPPY_VERSION.to_string()),
        codec::ZLIB => ("Zlib", zlib::version()),
        codec::ZSTD => ("Zstd", complib::ZSTD_VERSION.to_string()),
        _ => return None,
    })
}

/// Library name for a codec format number (`blosc2_cbuffer_complib`).
pub fn complib_name_of_format(format: u8) -> Option<&'static str> {
    Some(match format {
        codec_format::BLOSCLZ => "BloscLZ",
        codec_format::LZ4 => "LZ4",
        codec_format::ZLIB => "Zlib",
        codec_format::ZSTD => "Zstd",
        _ => return None,
    })
}
