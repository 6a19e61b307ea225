//! `blosc2 [config]`: each block stored as one Blosc2 chunk, or as one
//! contiguous Blosc2 frame (a super-chunk) when asked to or when the block
//! is larger than a chunk can hold.
//!
//! The config is a list of `key=value` separated by spaces or commas:
//!
//! | key | values | default |
//! |---|---|---|
//! | `codec` | blosclz, lz4, lz4hc, zlib, zstd | zstd |
//! | `clevel` | 0..=9 | 5 |
//! | `filter` | nofilter, shuffle, bitshuffle, delta, trunc_prec, or several joined with `+` | shuffle |
//! | `typesize` | 1..=255 | 1 |
//! | `nthreads` | 1..=1024 | 1 |
//! | `blocksize` | 0 (automatic) or bytes | 0 |
//! | `format` | chunk, frame | chunk |
//! | `chunksize` | bytes per chunk of a frame | 8 MiB |
//!
//! Decoding is driven by the stored bytes alone (a chunk or a frame), so
//! the config only matters on write, apart from `nthreads`.

use std::sync::Arc;

use super::TransformFn;
use crate::engine::chunk;
use crate::engine::codecs;
use crate::engine::constants::{filter, MAX_BUFFERSIZE, MAX_FILTERS, MAX_OVERHEAD};
use crate::engine::context::Context;
use crate::engine::params::{CParams, DParams};
use crate::engine::schunk::{SChunk, Storage};
use crate::recordio::error::{Error, Result};

/// Registry name.
pub const NAME: &str = "blosc2";

/// How blocks are stored.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Blosc2Format {
    /// One Blosc2 chunk per block (a frame when the block is too large).
    Chunk,
    /// One contiguous frame per block.
    Frame,
}

/// The parsed config of the `blosc2` transformer.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Blosc2Config {
    /// Codec id.
    pub codec: u8,
    /// Compression level 0..=9.
    pub clevel: u8,
    /// Filter pipeline (up to 6, applied in order).
    pub filters: Vec<u8>,
    /// Item size for the shuffle filters.
    pub typesize: i32,
    /// Threads for compression and decompression.
    pub nthreads: i16,
    /// Block size (0: automatic).
    pub blocksize: i32,
    /// Chunk or frame.
    pub format: Blosc2Format,
    /// Bytes per chunk when a block is stored as a frame.
    pub chunksize: usize,
}

impl Default for Blosc2Config {
    fn default() -> Self {
        Blosc2Config {
            codec: crate::engine::constants::codec::ZSTD,
            clevel: 5,
            filters: vec![filter::SHUFFLE],
            typesize: 1,
            nthreads: 1,
            blocksize: 0,
            format: Blosc2Format::Chunk,
            chunksize: 8 << 20,
        }
    }
}

fn filter_code(name: &str) -> Option<u8> {
    Some(match name {
        "nofilter" | "none" | "noshuffle" => filter::NOFILTER,
        "shuffle" => filter::SHUFFLE,
        "bitshuffle" => filter::BITSHUFFLE,
        "delta" => filter::DELTA,
        "trunc_prec" => filter::TRUNC_PREC,
        _ => return None,
    })
}

fn filter_name(code: u8) -> &'static str {
    match code {
        filter::NOFILTER => "nofilter",
        filter::SHUFFLE => "shuffle",
        filter::BITSHUFFLE => "bitshuffle",
        filter::DELTA => "delta",
        _ => "trunc_prec",
    }
}

impl Blosc2Config {
    /// Parse a config string (see the module documentation).
    pub fn parse(config: &str) -> Result<Blosc2Config> {
        let mut c = Blosc2Config::default();
        for item in config.split([' ', ',', '\t']).filter(|s| !s.is_empty()) {
            let (key, value) = item
                .split_once('=')
                .ok_or_else(|| Error::invalid(format!("blosc2: expected key=value, got {item:?}")))?;
            let num = |lo: i64, hi: i64| -> Result<i64> {
                let v = super::atoi(value)?;
                if (lo..=hi).contains(&v) {
                    Ok(v)
                } else {
                    Err(Error::invalid(format!("blosc2: {key}={v} out of range {lo}..={hi}")))
                }
            };
            match key {
                "codec" => {
                    c.codec = codecs::compcode(&value.to_ascii_lowercase())
                        .ok_or_else(|| Error::invalid(format!("blosc2: unknown codec {value:?}")))?;
                }
                "clevel" => c.clevel = num(0, 9)? as u8,
                "filter" | "filters" => {
                    c.filters = value
                        .split('+')
                        .map(|f| {
                            filter_code(&f.to_ascii_lowercase())
                                .ok_or_else(|| Error::invalid(format!("blosc2: unknown filter {f:?}")))
                        })
                        .collect::<Result<_>>()?;
                    c.filters.retain(|&f| f != filter::NOFILTER);
                    if c.filters.len() > MAX_FILTERS {
                        return Err(Error::invalid("blosc2: at most 6 filters"));
                    }
                }
                "typesize" => c.typesize = num(1, 255)? as i32,
                "nthreads" => c.nthreads = num(1, 1024)? as i16,
                "blocksize" => c.blocksize = num(0, i64::from(crate::engine::constants::MAX_BLOCKSIZE))? as i32,
                "format" => {
                    c.format = match value {
                        "chunk" => Blosc2Format::Chunk,
                        "frame" => Blosc2Format::Frame,
                        _ => return Err(Error::invalid(format!("blosc2: unknown format {value:?}"))),
                    }
                }
                "chunksize" => c.chunksize = num(1, i64::from(MAX_BUFFERSIZE))? as usize,
                _ => return Err(Error::invalid(format!("blosc2: unknown key {key:?}"))),
            }
        }
        Ok(c)
    }

    /// The canonical config string (what [`Blosc2Config::parse`] reads back).
    pub fn to_config_string(&self) -> String {
        let filters = if self.filters.is_empty() {
            "nofilter".to_string()
        } else {
            self.filters
                .iter()
                .map(|&f| filter_name(f))
                .collect::<Vec<_>>()
                .join("+")
        };
        let mut s = format!(
            "codec={},clevel={},filter={},typesize={},nthreads={}",
            codecs::compname(self.codec).unwrap_or("zstd"),
            self.clevel,
            filters,
            self.typesize,
            self.nthreads
        );
        if self.blocksize != 0 {
            s.push_str(&format!(",blocksize={}", self.blocksize));
        }
        if self.format == Blosc2Format::Frame {
            s.push_str(&format!(",format=frame,chunksize={}", self.chunksize));
        }
        s
    }

    /// The compression parameters.
    pub fn cparams(&self) -> CParams {
        let mut filters = [0u8; MAX_FILTERS];
        let start = MAX_FILTERS - self.filters.len();
        filters[start..].copy_from_slice(&self.filters);
        CParams {
            compcode: self.codec,
            clevel: self.clevel,
            typesize: self.typesize,
            nthreads: self.nthreads,
            blocksize: self.blocksize,
            filters,
            ..CParams::default()
        }
    }

    /// Store `data` as a chunk or a frame.
    pub fn encode(&self, data: &[u8]) -> Result<Vec<u8>> {
        let err = |e: crate::engine::error::Error| Error::transform(format!("blosc2: {e}"));
        if self.format == Blosc2Format::Chunk && data.len() <= MAX_BUFFERSIZE as usize {
            let mut ctx = Context::compressor(self.cparams());
            let mut out = vec![0u8; data.len() + MAX_OVERHEAD];
            let n = ctx.compress(data, &mut out).map_err(err)?;
            if n == 0 {
                return Err(Error::transform("blosc2: chunk does not fit"));
            }
            out.truncate(n);
            return Ok(out);
        }
        let storage = Storage {
            contiguous: true,
            cparams: self.cparams(),
            dparams: DParams {
                nthreads: self.nthreads,
                ..DParams::default()
            },
            ..Storage::default()
        };
        let mut sc = SChunk::new(storage).map_err(err)?;
        let step = self.chunksize.min(MAX_BUFFERSIZE as usize).max(1);
        for piece in data.chunks(step) {
            sc.append_buffer(piece).map_err(err)?;
        }
        sc.to_cframe().map_err(err)
    }
}

/// The most a block may decode to. A 32-byte special chunk or a frame of
/// them can claim gigabytes; a crafted block must get an error, not an
/// allocation the size of its claim.
pub const MAX_DECODED_BLOCK: u64 = 1 << 30;

fn check_decoded_size(total: u64) -> Result<()> {
    if total > MAX_DECODED_BLOCK {
        return Err(Error::transform(format!(
            "blosc2: block decodes to {total} bytes, more than {MAX_DECODED_BLOCK}"
        )));
    }
    Ok(())
}

/// Decode a chunk or a frame written by [`Blosc2Config::encode`].
pub fn decode(data: &[u8], nthreads: i16) -> Result<Vec<u8>> {
    let err = |e: crate::engine::error::Error| Error::transform(format!("blosc2: {e}"));
    if data.first() == Some(&0x9e) {
        let mut sc = SChunk::from_cframe(data.to_vec(), false).map_err(err)?;
        let n = sc.nchunks();
        check_decoded_size(u64::try_from(sc.nbytes()).unwrap_or(u64::MAX))?;
        let mut out = Vec::new();
        for i in 0..n {
            let len = sc.chunk_nbytes(i).map_err(err)?;
            check_decoded_size(out.len() as u64 + u64::try_from(len).unwrap_or(u64::MAX))?;
            out.extend_from_slice(&sc.decompress_chunk_vec(i).map_err(err)?);
        }
        if out.len() as i64 != sc.nbytes() {
            return Err(Error::transform("blosc2: frame size mismatch"));
        }
        return Ok(out);
    }
    let (nbytes, cbytes, _) = chunk::cbuffer_sizes(data).map_err(err)?;
    if cbytes as usize != data.len() {
        return Err(Error::transform(format!(
            "blosc2: chunk says {cbytes} bytes, the block holds {}",
            data.len()
        )));
    }
    check_decoded_size(u64::try_from(nbytes).unwrap_or(u64::MAX))?;
    let mut out = vec![0u8; usize::try_from(nbytes).map_err(|_| Error::transform("blosc2: bad chunk size"))?];
    let mut ctx = Context::decompressor(DParams {
        nthreads,
        ..DParams::default()
    });
    let n = ctx.decompress(data, &mut out).map_err(err)?;
    if n != out.len() {
        return Err(Error::transform("blosc2: chunk decompressed to an unexpected size"));
    }
    Ok(out)
}

pub(super) fn forward(config: &str) -> Result<TransformFn> {
    let cfg = Blosc2Config::parse(config)?;
    Ok(Arc::new(move |input: &[&[u8]]| {
        let data;
        let flat: &[u8] = match input {
            [] => &[],
            [one] => one,
            many => {
                data = many.concat();
                &data
            }
        };
        cfg.encode(flat)
    }))
}

pub(super) fn inverse(config: &str) -> Result<TransformFn> {
    // Tolerate configs written by newer versions: only nthreads matters.
    let nthreads = Blosc2Config::parse(config).map(|c| c.nthreads).unwrap_or(1);
    Ok(Arc::new(move |input: &[&[u8]]| {
        let data;
        let flat: &[u8] = match input {
            [] => &[],
            [one] => one,
            many => {
                data = many.concat();
                &data
            }
        };
        decode(flat, nthreads)
    }))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn blocks_claiming_more_than_the_cap_are_errors() {
        use crate::engine::chunk::{special::make_special, SpecialKind};
        let cp = crate::engine::params::CParams::default();
        let mut c = vec![0u8; 64];
        let n = make_special(&cp, 1 << 20, Some(SpecialKind::Zeros), None, &mut c).unwrap();
        assert_eq!(decode(&c[..n], 1).unwrap(), vec![0u8; 1 << 20]);
        let n = make_special(&cp, (1 << 30) + 8, Some(SpecialKind::Zeros), None, &mut c).unwrap();
        assert!(decode(&c[..n], 1).is_err());
    }

    #[test]
    fn config_parsing() {
        let c = Blosc2Config::parse("").unwrap();
        assert_eq!(c, Blosc2Config::default());
        let c = Blosc2Config::parse("codec=lz4 clevel=9,filter=shuffle+delta typesize=8 nthreads=2").unwrap();
        assert_eq!(c.codec, crate::engine::constants::codec::LZ4);
        assert_eq!(c.filters, [filter::SHUFFLE, filter::DELTA]);
        assert_eq!(c.cparams().filters, [0, 0, 0, 0, filter::SHUFFLE, filter::DELTA]);
        assert_eq!(Blosc2Config::parse(&c.to_config_string()).unwrap(), c);
        for bad in [
            "codec=foo",
            "clevel=10",
            "typesize=0",
            "filter=x",
            "nthreads=0",
            "x=1",
            "clevel",
            "format=y",
        ] {
            assert!(Blosc2Config::parse(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn chunk_and_frame_round_trip() {
        let data: Vec<u8> = (0..300_000u32).flat_map(|i| (i / 7).to_le_bytes()).collect();
        for cfg in [
            "",
            "codec=blosclz,typesize=4",
            "codec=lz4hc,clevel=1,filter=bitshuffle,typesize=4,nthreads=2",
            "codec=zlib,filter=nofilter",
            "format=frame,chunksize=100000,typesize=4",
            "format=frame",
        ] {
            let c = Blosc2Config::parse(cfg).unwrap();
            let enc = c.encode(&data).unwrap();
            assert!(enc.len() < data.len() / 4, "{cfg}: {}", enc.len());
            assert_eq!(enc[0] == 0x9e, c.format == Blosc2Format::Frame);
            assert_eq!(decode(&enc, 2).unwrap(), data, "{cfg}");
            assert!(decode(&enc[..enc.len() - 1], 1).is_err());
        }
        let c = Blosc2Config::default();
        assert_eq!(decode(&c.encode(&[]).unwrap(), 1).unwrap(), b"");
        assert!(decode(&[], 1).is_err());
        assert!(decode(&[0x9e, 0, 0], 1).is_err());
    }
}
