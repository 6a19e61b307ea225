//! `blosc2 compress`'s `--codec` and `--filter` values, plugins included,
//! and the array geometry the b2nd-aware plugin codecs need.
//!
//! A plain file has no shape, but C-Blosc2 3.3.5's ZFP codecs read the
//! block shape from the super-chunk's `b2nd` metalayer (and fail without
//! one). So with `--codec zfp-*` the frame gets a `b2nd` metalayer that
//! describes the file as what it is, a 1-D array of float32 or float64
//! items: shape = the items in the file, chunk shape = block shape = the
//! items of a chunk (one block per chunk). Every chunk but the last is
//! whole; the last is shorter (the array's shape says where the data
//! ends), so `decompress` gives back exactly the file's length.
//!
//! NDLZ needs a 2-D image (3.3.5's NDLZ refuses any other `ndim`) and a
//! plain file has no row width, so `--codec ndlz` is refused with a note
//! saying so rather than inventing a geometry.

use blosc2::engine::b2nd::meta::serialize_meta;
use blosc2::engine::codecs;
use blosc2::engine::constants::{filter, MAX_FILTERS};
use blosc2::engine::plugins::ids;

use crate::args::{usage, Failure};

/// What `--codec` asked for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CodecArg {
    /// The codec id in the chunk headers.
    pub compcode: u8,
    /// Its meta byte (`compcode_meta`).
    pub meta: u8,
    /// A ZFP codec: the data needs a 1-D `b2nd` geometry of floats.
    pub zfp: bool,
}

/// The `--codec` help line.
pub const CODEC_HELP: &str = "blosclz, lz4, lz4hc, zlib or zstd (default zstd); or the lossy ZFP \
     codecs for float32/float64 data (--typesize 4 or 8, no filters): zfp-acc:N (absolute error \
     at most 10^N, N -128 to 127), zfp-prec:N (N+5 to N+11 bits of precision, N 0-255), \
     zfp-rate:N (N percent of the item size, 1-100). The frame then gets a b2nd metalayer \
     describing the file as a 1-D array of float32 or float64, each chunk one block. ndlz is refused: it needs a \
     2-D image, and a plain file has no row width";

/// Parse `--codec`: a built-in codec name, or `zfp-acc:N`, `zfp-prec:N`,
/// `zfp-rate:N`.
pub fn parse_codec(s: &str) -> Result<CodecArg, Failure> {
    if let Some(compcode) = codecs::compcode(s) {
        return Ok(CodecArg {
            compcode,
            meta: 0,
            zfp: false,
        });
    }
    let (name, value) = s.split_once(':').unwrap_or((s, ""));
    let zfp = |compcode: u8, meta: Option<u8>, range: &str| -> Result<CodecArg, Failure> {
        let meta = meta.ok_or_else(|| usage(format!("--codec {name}:N needs N in {range}, not '{value}'")))?;
        Ok(CodecArg {
            compcode,
            meta,
            zfp: true,
        })
    };
    match name {
        "zfp-acc" => zfp(
            ids::CODEC_ZFP_FIXED_ACCURACY,
            value.parse::<i8>().ok().map(|v| v as u8),
            "-128..127",
        ),
        "zfp-prec" => zfp(ids::CODEC_ZFP_FIXED_PRECISION, value.parse::<u8>().ok(), "0..255"),
        "zfp-rate" => zfp(
            ids::CODEC_ZFP_FIXED_RATE,
            value.parse::<u8>().ok().filter(|v| (1..=100).contains(v)),
            "1..100",
        ),
        "ndlz" => Err(usage(
            "--codec ndlz: NDLZ compresses 2-D images and needs their row width, which a plain \
             file does not have (3.3.5's NDLZ refuses data without a 2-D b2nd geometry); write \
             the array with b2nd (python-blosc2) instead",
        )),
        _ => Err(usage(format!(
            "--codec must be one of {}, zfp-acc:N, zfp-prec:N or zfp-rate:N, not '{s}'",
            codecs::COMPRESSOR_LIST.replace(',', ", ")
        ))),
    }
}

/// One `--filter` entry: the filter id and its meta byte.
pub fn parse_filter(name: &str) -> Result<Option<(u8, u8)>, Failure> {
    let (base, value) = name.split_once(':').unwrap_or((name, ""));
    let id = match base {
        "none" | "nofilter" => return Ok(None),
        "shuffle" => filter::SHUFFLE,
        "bitshuffle" => filter::BITSHUFFLE,
        "delta" => filter::DELTA,
        "bytedelta" => ids::FILTER_BYTEDELTA,
        "int_trunc" => {
            // INT_TRUNC's meta is an int8: bits kept (> 0) or zeroed (< 0).
            let bits = value.parse::<i8>().ok().filter(|&b| b != 0).ok_or_else(|| {
                usage(format!(
                    "--filter int_trunc:N needs N, the bits kept (1..127) or zeroed (-128..-1), not '{value}'"
                ))
            })?;
            return Ok(Some((ids::FILTER_INT_TRUNC, bits as u8)));
        }
        other => {
            return Err(usage(format!(
                "--filter: unknown filter '{other}' (auto, none, shuffle, bitshuffle, delta, bytedelta, int_trunc:N)"
            )))
        }
    };
    if !value.is_empty() {
        return Err(usage(format!("--filter: '{base}' takes no value, not '{name}'")));
    }
    Ok(Some((id, 0)))
}

/// The filter slots and metas of a comma-separated `--filter` list; the
/// filters fill the last slots, in order, as C-Blosc2's defaults do.
pub fn parse_filter_list(s: &str) -> Result<([u8; MAX_FILTERS], [u8; MAX_FILTERS]), Failure> {
    let mut used = Vec::new();
    for name in s.split(',').map(str::trim) {
        if let Some(f) = parse_filter(name)? {
            used.push(f);
        }
    }
    if used.len() > MAX_FILTERS {
        return Err(usage(format!("--filter: at most {MAX_FILTERS} filters")));
    }
    let mut filters = [filter::NOFILTER; MAX_FILTERS];
    let mut metas = [0u8; MAX_FILTERS];
    let first = MAX_FILTERS - used.len();
    for (i, (id, meta)) in used.into_iter().enumerate() {
        filters[first + i] = id;
        metas[first + i] = meta;
    }
    Ok((filters, metas))
}

/// The geometry of a file seen as a 1-D array for ZFP.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ZfpGeometry {
    /// Item size: 4 (float32) or 8 (float64).
    pub typesize: i32,
    /// Bytes per chunk, a whole number of items: each chunk is one block.
    pub chunksize: usize,
}

/// ZFP's cell edge: 3.3.5's ZFP refuses block dimensions below it.
const ZFP_CELL: usize = 4;

impl ZfpGeometry {
    /// The geometry for `typesize` (`None`: not given) and the asked
    /// chunk and block sizes (block 0: automatic).
    ///
    /// Each chunk is a single block: the last chunk of a file is short,
    /// and 3.3.5's b2nd reader masks blocks by the count a whole chunk
    /// has, so a short chunk must have as many blocks as a whole one.
    pub fn new(typesize: Option<i32>, chunksize: usize, blocksize: usize) -> Result<ZfpGeometry, Failure> {
        let typesize = match typesize {
            Some(t @ (4 | 8)) => t,
            _ => {
                return Err(usage(
                    "--codec zfp-*: ZFP compresses float32 or float64 items; give --typesize 4 or 8",
                ))
            }
        };
        let item = typesize as usize;
        let chunksize = chunksize / item * item;
        if blocksize != 0 && blocksize != chunksize {
            return Err(usage(
                "--codec zfp-*: each chunk is one ZFP block; give --chunksize only, not --blocksize",
            ));
        }
        if chunksize < ZFP_CELL * item {
            return Err(usage(format!(
                "--codec zfp-*: chunks must hold at least {ZFP_CELL} items ({} bytes)",
                ZFP_CELL * item
            )));
        }
        Ok(ZfpGeometry { typesize, chunksize })
    }

    /// The `b2nd` metalayer for `nbytes` bytes of data. Its size does not
    /// depend on `nbytes`, so it can be written first and updated at the
    /// end.
    pub fn b2nd_meta(&self, nbytes: u64) -> Vec<u8> {
        let item = self.typesize as u64;
        let dtype = if self.typesize == 4 { "<f4" } else { "<f8" };
        let shape = [(nbytes / item) as i64];
        let chunk = [(self.chunksize as u64 / item) as i32];
        serialize_meta(&shape, &chunk, &chunk, Some(dtype), 0).expect("a 1-D metalayer always serializes")
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use blosc2::engine::b2nd::meta::deserialize_meta;

    #[test]
    fn codecs() {
        assert_eq!(parse_codec("zstd").unwrap().compcode, codecs::compcode("zstd").unwrap());
        let acc = parse_codec("zfp-acc:-3").unwrap();
        assert_eq!(
            (acc.compcode, acc.meta as i8, acc.zfp),
            (ids::CODEC_ZFP_FIXED_ACCURACY, -3, true)
        );
        assert_eq!(parse_codec("zfp-prec:20").unwrap().meta, 20);
        assert_eq!(parse_codec("zfp-rate:50").unwrap().compcode, ids::CODEC_ZFP_FIXED_RATE);
        for bad in [
            "zfp-rate:0",
            "zfp-rate:101",
            "zfp-acc",
            "zfp-acc:200",
            "zfp-prec:-1",
            "ndlz",
            "nope",
        ] {
            assert!(parse_codec(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn filters() {
        let (f, m) = parse_filter_list("int_trunc:10,shuffle").unwrap();
        assert_eq!(f[4..], [ids::FILTER_INT_TRUNC, filter::SHUFFLE]);
        assert_eq!(m[4..], [10, 0]);
        let (_, m) = parse_filter_list("int_trunc:-4").unwrap();
        assert_eq!(m[5] as i8, -4);
        for bad in ["int_trunc", "int_trunc:0", "int_trunc:x", "shuffle:3", "lz"] {
            assert!(parse_filter_list(bad).is_err(), "{bad}");
        }
        assert!(parse_filter_list("none").unwrap().0.iter().all(|&f| f == 0));
    }

    #[test]
    fn zfp_geometry() {
        assert!(ZfpGeometry::new(None, 1 << 20, 0).is_err());
        assert!(ZfpGeometry::new(Some(2), 1 << 20, 0).is_err());
        assert!(ZfpGeometry::new(Some(8), 16, 0).is_err());
        assert!(ZfpGeometry::new(Some(4), 1000, 300).is_err());
        assert_eq!(ZfpGeometry::new(Some(4), 1001, 1000).unwrap().chunksize, 1000);
        let g = ZfpGeometry::new(Some(8), 4 << 20, 0).unwrap();
        assert_eq!(g.chunksize, 4 << 20);
        let (meta, _) = deserialize_meta(&g.b2nd_meta(800)).unwrap();
        assert_eq!(meta.shape, [100]);
        assert_eq!(meta.blockshape, [512 << 10]);
        assert_eq!(meta.chunkshape, [512 << 10]);
        assert_eq!(meta.dtype.as_deref(), Some("<f8"));
        assert_eq!(g.b2nd_meta(0).len(), g.b2nd_meta(u64::MAX / 2).len());
    }
}
