//! Shared helpers of the conformance tests and the interop example
//! (`examples/write_chunks.rs` includes this file with `#[path]`):
//! manifest parsing, the reference decoding procedure for chunks, and
//! compressing a corpus entry with our engine.
//!
//! The corpus lives in `tests/corpus/` (a copy of the conformance corpus:
//! `manifest.json`, the files it names, `gen_data.py`,
//! `verify_with_reference.py`). Its README describes every field used here.

#![allow(dead_code)]

use std::fmt::Write as _;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::path::{Path, PathBuf};

use blosc2::datagen::{DataSpec, Smooth};
use blosc2::engine::chunk::{make_special, SpecialKind};
use blosc2::engine::constants::{codec, splitmode, EXTENDED_HEADER_LENGTH, MAX_FILTERS};
use blosc2::engine::context::{compress_vec, Context};
use blosc2::engine::params::{CParams, DParams};
use serde_json::Value;
use sha2::{Digest, Sha256};

/// `tests/corpus` of this package.
pub fn corpus_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests").join("corpus")
}

/// Lower-case hex SHA-256 of `data`.
pub fn sha256_hex(data: &[u8]) -> String {
    let digest = Sha256::digest(data);
    let mut s = String::with_capacity(64);
    for b in digest {
        let _ = write!(s, "{b:02x}");
    }
    s
}

// ---------------------------------------------------------------------------
// Manifest
// ---------------------------------------------------------------------------

/// Entry kinds of the manifest.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Kind {
    /// A Blosc2 chunk (`chunks/*.chunk`).
    Chunk,
    /// A Blosc1 chunk written by c-blosc 1.21.
    Blosc1Chunk,
    /// A contiguous frame file.
    CFrame,
    /// A sparse frame directory.
    SFrameDir,
    /// A b2nd array.
    B2nd,
    /// A corrupted copy of a valid entry (expected: error).
    Malformed,
}

impl Kind {
    /// Parse the manifest's `kind` string.
    pub fn parse(s: &str) -> Option<Kind> {
        Some(match s {
            "chunk" => Kind::Chunk,
            "blosc1-chunk" => Kind::Blosc1Chunk,
            "cframe" => Kind::CFrame,
            "sframe-dir" => Kind::SFrameDir,
            "b2nd" => Kind::B2nd,
            "malformed" => Kind::Malformed,
            _ => return None,
        })
    }

    /// The manifest's spelling.
    pub fn as_str(self) -> &'static str {
        match self {
            Kind::Chunk => "chunk",
            Kind::Blosc1Chunk => "blosc1-chunk",
            Kind::CFrame => "cframe",
            Kind::SFrameDir => "sframe-dir",
            Kind::B2nd => "b2nd",
            Kind::Malformed => "malformed",
        }
    }
}

/// Blosc2 compression parameters of an entry (`params` of chunk, frame and
/// b2nd entries).
#[derive(Debug, Clone)]
pub struct Blosc2Params {
    /// Codec name.
    pub codec: String,
    /// Codec id.
    pub codec_id: u8,
    /// Compression level.
    pub clevel: u8,
    /// Type size.
    pub typesize: i32,
    /// Filter ids of the six slots.
    pub filters: [u8; MAX_FILTERS],
    /// Filter names of the six slots.
    pub filter_names: Vec<String>,
    /// Filter metas as stored in the header.
    pub filters_meta_u8: [u8; MAX_FILTERS],
    /// Requested blocksize (0 = automatic).
    pub blocksize_requested: i32,
    /// Split mode id.
    pub splitmode_id: i32,
    /// Threads the reference compressed with.
    pub nthreads: i16,
    /// Dictionary requested.
    pub use_dict: bool,
    /// Frame chunk size (frames only).
    pub chunksize: Option<i64>,
}

impl Blosc2Params {
    /// Engine cparams for these parameters, with `nthreads` threads.
    pub fn cparams(&self, nthreads: i16) -> CParams {
        CParams {
            compcode: self.codec_id,
            compcode_meta: 0,
            clevel: self.clevel,
            use_dict: self.use_dict,
            typesize: self.typesize,
            nthreads,
            blocksize: self.blocksize_requested,
            splitmode: self.splitmode_id,
            filters: self.filters,
            filters_meta: self.filters_meta_u8,
            ..CParams::default()
        }
    }

    /// A short label such as `zstd/shuffle+delta/ts4/cl5`.
    pub fn label(&self) -> String {
        let f: Vec<&str> = self
            .filter_names
            .iter()
            .map(String::as_str)
            .filter(|n| *n != "nofilter")
            .collect();
        let f = if f.is_empty() {
            "nofilter".to_string()
        } else {
            f.join("+")
        };
        format!("{}/{}/ts{}/cl{}", self.codec, f, self.typesize, self.clevel)
    }
}

/// What a special chunk stands for.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Special {
    /// All zeros.
    Zero,
    /// All NaN.
    Nan,
    /// Unspecified content.
    Uninit,
    /// One repeated value.
    Value,
}

/// The `params` of an entry.
#[derive(Debug, Clone)]
pub enum Params {
    /// Blosc2 parameters (`compress2`, `vlcompress`, frames, b2nd).
    Blosc2(Blosc2Params),
    /// A Blosc1 chunk: `cname`, `clevel`, `shuffle` (0/1/2), `typesize`.
    Blosc1 {
        /// Codec name.
        cname: String,
        /// Compression level.
        clevel: u8,
        /// 0 none, 1 byte shuffle, 2 bit shuffle.
        shuffle: u8,
        /// Type size.
        typesize: i32,
    },
    /// A special chunk made with `SChunk.fill_special`.
    Special {
        /// Type size.
        typesize: i32,
        /// Which special value.
        special: Special,
        /// Codec of the super-chunk it came from.
        codec_of_schunk: Option<String>,
    },
    /// No params (malformed entries).
    None,
}

impl Params {
    /// The Blosc2 params, if that is what these are.
    pub fn blosc2(&self) -> Option<&Blosc2Params> {
        match self {
            Params::Blosc2(p) => Some(p),
            _ => None,
        }
    }

    /// A short label for reports.
    pub fn label(&self) -> String {
        match self {
            Params::Blosc2(p) => p.label(),
            Params::Blosc1 {
                cname,
                clevel,
                shuffle,
                typesize,
            } => {
                let f = ["noshuffle", "shuffle", "bitshuffle"]
                    .get(*shuffle as usize)
                    .copied()
                    .unwrap_or("?");
                format!("{cname}/{f}/ts{typesize}/cl{clevel}")
            }
            Params::Special { typesize, special, .. } => format!("special-{special:?}/ts{typesize}").to_lowercase(),
            Params::None => String::new(),
        }
    }
}

/// One chunk of a frame or b2nd entry.
#[derive(Debug, Clone)]
pub struct FrameChunk {
    /// Position in the frame.
    pub index: usize,
    /// Decoded size.
    pub nbytes: i64,
    /// Hash of the decoded bytes.
    pub sha256: Option<String>,
    /// Generator spec, when the chunk came from generated data.
    pub data: Option<DataSpec>,
    /// Hash of the generated input.
    pub input_sha256: Option<String>,
    /// Uninit chunk: compare nbytes only.
    pub content_unspecified: bool,
    /// Special kind written (zero/nan/uninit/value), if any.
    pub special: Option<String>,
    /// Cparams of a separately compressed chunk (`append_chunk`).
    pub chunk_cparams: Option<Value>,
}

/// One manifest entry.
#[derive(Debug, Clone)]
pub struct Entry {
    /// Unique id.
    pub id: String,
    /// Path relative to the corpus root.
    pub file: String,
    /// Entry kind.
    pub kind: Kind,
    /// The call sequence that wrote the file.
    pub api: String,
    /// `expected == "error"`.
    pub expect_error: bool,
    /// Decoded size.
    pub nbytes: Option<i64>,
    /// Hash of the decoded bytes.
    pub sha256: Option<String>,
    /// Hash of the generated input.
    pub input_sha256: Option<String>,
    /// Generator spec of the input.
    pub data: Option<DataSpec>,
    /// Compression parameters.
    pub params: Params,
    /// TRUNC_PREC entries.
    pub lossy: bool,
    /// Uninit special chunks: compare nbytes only.
    pub content_unspecified: bool,
    /// Free-form labels.
    pub tags: Vec<String>,
    /// Malformed entries: `chunk`, `frame` or `b2nd`.
    pub decode_procedure: Option<String>,
    /// Malformed entries: what the reference returned.
    pub reference_error: Option<String>,
    /// VL-blocks chunks: the size of each block.
    pub vl_block_sizes: Option<Vec<usize>>,
    /// Frames and b2nd: the chunks.
    pub chunks: Vec<FrameChunk>,
    /// The whole entry as JSON (header, frame_header, metalayers, ...).
    pub raw: Value,
}

impl Entry {
    /// Absolute path of the entry's file.
    pub fn path(&self) -> PathBuf {
        corpus_dir().join(&self.file)
    }

    /// Does the entry carry `tag`?
    pub fn has_tag(&self, tag: &str) -> bool {
        self.tags.iter().any(|t| t == tag)
    }

    /// A VL-blocks chunk (`vlcompress`).
    pub fn is_vl_blocks(&self) -> bool {
        self.vl_block_sizes.is_some()
    }

    /// The decoding procedure to use (malformed entries name theirs).
    pub fn procedure(&self) -> &str {
        if let Some(p) = &self.decode_procedure {
            return p;
        }
        match self.kind {
            Kind::Chunk | Kind::Blosc1Chunk => "chunk",
            Kind::CFrame | Kind::SFrameDir => "frame",
            Kind::B2nd => "b2nd",
            Kind::Malformed => "",
        }
    }
}

/// A reproducer of a known reference bug (`known_reference_bugs`).
#[derive(Debug, Clone)]
pub struct KnownBug {
    /// Path relative to the corpus root.
    pub file: String,
    /// Generator spec of the input.
    pub data: Option<DataSpec>,
    /// Hash of the input.
    pub input_sha256: Option<String>,
    /// The whole record.
    pub raw: Value,
}

/// The parsed `manifest.json`.
#[derive(Debug, Clone)]
pub struct Manifest {
    /// Test entries.
    pub entries: Vec<Entry>,
    /// Known reference bugs (not test entries).
    pub known_bugs: Vec<KnownBug>,
    /// The whole manifest.
    pub raw: Value,
}

impl Manifest {
    /// Load and parse `tests/corpus/manifest.json`.
    pub fn load() -> Manifest {
        Self::load_from(&corpus_dir().join("manifest.json"))
    }

    /// Load and parse a manifest file; panics with a message when it is
    /// unreadable or malformed (the corpus is part of the test).
    pub fn load_from(path: &Path) -> Manifest {
        let text = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("read {}: {e}", path.display()));
        let raw: Value = serde_json::from_str(&text).unwrap_or_else(|e| panic!("parse {}: {e}", path.display()));
        parse_manifest(raw).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
    }

    /// Entries of one kind.
    pub fn of_kind(&self, kind: Kind) -> impl Iterator<Item = &Entry> {
        self.entries.iter().filter(move |e| e.kind == kind)
    }
}

fn parse_manifest(raw: Value) -> Result<Manifest, String> {
    let mut entries = Vec::new();
    for e in raw["entries"].as_array().ok_or("no entries array")? {
        entries.push(parse_entry(e).map_err(|m| format!("entry {}: {m}", e["id"]))?);
    }
    let mut known_bugs = Vec::new();
    if let Some(list) = raw["known_reference_bugs"].as_array() {
        for b in list {
            known_bugs.push(KnownBug {
                file: str_field(b, "file")?,
                data: opt_spec(&b["data"])?,
                input_sha256: b["input_sha256"].as_str().map(str::to_string),
                raw: b.clone(),
            });
        }
    }
    Ok(Manifest {
        entries,
        known_bugs,
        raw,
    })
}

fn str_field(v: &Value, key: &str) -> Result<String, String> {
    v[key]
        .as_str()
        .map(str::to_string)
        .ok_or_else(|| format!("missing string field {key:?}"))
}

fn opt_spec(v: &Value) -> Result<Option<DataSpec>, String> {
    if v.is_object() && v.get("gen").is_some() {
        parse_data_spec(v).map(Some)
    } else {
        Ok(None)
    }
}

fn u8_array6(v: &Value, key: &str) -> Result<[u8; MAX_FILTERS], String> {
    let a = v[key].as_array().ok_or_else(|| format!("missing array {key:?}"))?;
    if a.len() != MAX_FILTERS {
        return Err(format!("{key:?} must have {MAX_FILTERS} items"));
    }
    let mut out = [0u8; MAX_FILTERS];
    for (o, x) in out.iter_mut().zip(a) {
        *o = x
            .as_u64()
            .and_then(|n| u8::try_from(n).ok())
            .ok_or_else(|| format!("bad item in {key:?}"))?;
    }
    Ok(out)
}

fn parse_params(p: &Value) -> Result<Params, String> {
    if !p.is_object() {
        return Ok(Params::None);
    }
    if let Some(s) = p["special"].as_str() {
        let special = match s {
            "zero" => Special::Zero,
            "nan" => Special::Nan,
            "uninit" => Special::Uninit,
            "value" => Special::Value,
            _ => return Err(format!("unknown special {s:?}")),
        };
        return Ok(Params::Special {
            typesize: p["typesize"].as_i64().ok_or("special without typesize")? as i32,
            special,
            codec_of_schunk: p["codec_of_schunk"].as_str().map(str::to_string),
        });
    }
    if p.get("cname").is_some() {
        return Ok(Params::Blosc1 {
            cname: str_field(p, "cname")?,
            clevel: p["clevel"].as_u64().ok_or("clevel")? as u8,
            shuffle: p["shuffle"].as_u64().ok_or("shuffle")? as u8,
            typesize: p["typesize"].as_i64().ok_or("typesize")? as i32,
        });
    }
    if p.get("codec_id").is_none() {
        return Ok(Params::None);
    }
    let num = |k: &str| p[k].as_i64().ok_or_else(|| format!("missing number {k:?}"));
    Ok(Params::Blosc2(Blosc2Params {
        codec: str_field(p, "codec")?,
        codec_id: num("codec_id")? as u8,
        clevel: num("clevel")? as u8,
        typesize: num("typesize")? as i32,
        filters: u8_array6(p, "filters_ids")?,
        filter_names: p["filters"]
            .as_array()
            .map(|a| a.iter().filter_map(|x| x.as_str().map(str::to_string)).collect())
            .unwrap_or_default(),
        filters_meta_u8: u8_array6(p, "filters_meta_u8")?,
        blocksize_requested: num("blocksize_requested")? as i32,
        splitmode_id: num("splitmode_id")? as i32,
        nthreads: num("nthreads")? as i16,
        use_dict: p["use_dict"].as_bool().unwrap_or(false),
        chunksize: p["chunksize"].as_i64(),
    }))
}

fn parse_entry(e: &Value) -> Result<Entry, String> {
    let kind_s = str_field(e, "kind")?;
    let kind = Kind::parse(&kind_s).ok_or_else(|| format!("unknown kind {kind_s:?}"))?;
    let mut chunks = Vec::new();
    if let Some(list) = e["chunks"].as_array() {
        for c in list {
            chunks.push(FrameChunk {
                index: c["index"].as_u64().ok_or("chunk index")? as usize,
                nbytes: c["nbytes"].as_i64().ok_or("chunk nbytes")?,
                sha256: c["sha256"].as_str().map(str::to_string),
                data: opt_spec(&c["data"])?,
                input_sha256: c["input_sha256"].as_str().map(str::to_string),
                content_unspecified: c["content_unspecified"].as_bool().unwrap_or(false),
                special: c["special"].as_str().map(str::to_string),
                chunk_cparams: c.get("chunk_cparams").cloned(),
            });
        }
    }
    let vl_block_sizes = match e["vl_block_sizes"].as_array() {
        Some(a) => Some(
            a.iter()
                .map(|x| x.as_u64().map(|n| n as usize).ok_or("vl_block_sizes"))
                .collect::<Result<_, _>>()?,
        ),
        None => None,
    };
    Ok(Entry {
        id: str_field(e, "id")?,
        file: str_field(e, "file")?,
        kind,
        api: e["api"].as_str().unwrap_or("").to_string(),
        expect_error: e["expected"].as_str() == Some("error"),
        nbytes: e["nbytes"].as_i64(),
        sha256: e["sha256"].as_str().map(str::to_string),
        input_sha256: e["input_sha256"].as_str().map(str::to_string),
        data: opt_spec(&e["data"])?,
        params: parse_params(&e["params"])?,
        lossy: e["lossy"].as_bool().unwrap_or(false),
        content_unspecified: e["content_unspecified"].as_bool().unwrap_or(false),
        tags: e["tags"]
            .as_array()
            .map(|a| a.iter().filter_map(|x| x.as_str().map(str::to_string)).collect())
            .unwrap_or_default(),
        decode_procedure: e["decode_procedure"].as_str().map(str::to_string),
        reference_error: e["reference_error"].as_str().map(str::to_string),
        vl_block_sizes,
        chunks,
        raw: e.clone(),
    })
}

/// Convert a manifest `data` object into a [`DataSpec`], applying
/// `gen_data.py`'s defaults. Checks that the result has the spec's `size`.
pub fn parse_data_spec(v: &Value) -> Result<DataSpec, String> {
    let gen = v["gen"].as_str().ok_or("data spec without gen")?;
    let size = || -> Result<usize, String> {
        v["size"]
            .as_u64()
            .map(|n| n as usize)
            .ok_or_else(|| format!("{gen}: missing size"))
    };
    // Python: seed mod 2^64 (negative seeds wrap).
    let seed = || -> Result<u64, String> {
        match &v["seed"] {
            Value::Null => Ok(0),
            s => s
                .as_u64()
                .or_else(|| s.as_i64().map(|n| n as u64))
                .ok_or_else(|| format!("{gen}: bad seed")),
        }
    };
    let u64_or = |k: &str, d: u64| -> Result<u64, String> {
        match &v[k] {
            Value::Null => Ok(d),
            x => x.as_u64().ok_or_else(|| format!("{gen}: bad {k}")),
        }
    };
    let i64_or = |k: &str, d: i64| -> Result<i64, String> {
        match &v[k] {
            Value::Null => Ok(d),
            x => x.as_i64().ok_or_else(|| format!("{gen}: bad {k}")),
        }
    };
    let f64_or = |k: &str, d: f64| -> Result<f64, String> {
        match &v[k] {
            Value::Null => Ok(d),
            x => x.as_f64().ok_or_else(|| format!("{gen}: bad {k}")),
        }
    };
    let smooth = || -> Result<Smooth, String> {
        let d = Smooth::new(size()?);
        Ok(Smooth {
            size: d.size,
            seed: seed()?,
            base: f64_or("base", d.base)?,
            slope: f64_or("slope", d.slope)?,
            amp: f64_or("amp", d.amp)?,
            period: u64_or("period", d.period)?,
            noise: f64_or("noise", d.noise)?,
        })
    };
    let spec = match gen {
        "zeros" => DataSpec::Zeros { size: size()? },
        "repeat" => DataSpec::Repeat {
            size: size()?,
            pattern: parse_hex(v["value_hex"].as_str().ok_or("repeat: value_hex")?)?,
        },
        "random" => DataSpec::Random {
            size: size()?,
            seed: seed()?,
        },
        "arange" => DataSpec::Arange {
            size: size()?,
            typesize: u64_or("typesize", 1)? as usize,
            start: i64_or("start", 0)?,
            step: i64_or("step", 1)?,
        },
        "text" => DataSpec::Text {
            size: size()?,
            seed: seed()?,
        },
        "runs" => DataSpec::Runs {
            size: size()?,
            seed: seed()?,
            maxrun: u64_or("maxrun", 64)?,
        },
        "sparse" => DataSpec::Sparse {
            size: size()?,
            seed: seed()?,
            density: u64_or("density", 16)?,
        },
        "smooth_f64" => DataSpec::SmoothF64(smooth()?),
        "smooth_f32" => DataSpec::SmoothF32(smooth()?),
        "bool" => DataSpec::Bool {
            size: size()?,
            seed: seed()?,
        },
        "concat" => {
            let parts = v["parts"].as_array().ok_or("concat: parts")?;
            DataSpec::Concat(parts.iter().map(parse_data_spec).collect::<Result<_, _>>()?)
        }
        other => return Err(format!("unknown generator {other:?}")),
    };
    if let Some(want) = v["size"].as_u64() {
        if spec.size() as u64 != want {
            return Err(format!(
                "{gen}: parts add up to {} bytes, size says {want}",
                spec.size()
            ));
        }
    }
    Ok(spec)
}

/// Decode a hex string.
pub fn parse_hex(s: &str) -> Result<Vec<u8>, String> {
    if !s.len().is_multiple_of(2) {
        return Err(format!("odd-length hex {s:?}"));
    }
    (0..s.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(&s[i..i + 2], 16).map_err(|e| format!("hex {s:?}: {e}")))
        .collect()
}

// ---------------------------------------------------------------------------
// The reference "chunk" decoding procedure
// ---------------------------------------------------------------------------

/// Result of the `chunk` decoding procedure.
#[derive(Debug, Clone)]
pub enum Decoded {
    /// The call returned exactly nbytes; the destination.
    Ok(Vec<u8>),
    /// The engine returned an error (its `BLOSC2_ERROR_*` code and text).
    Error(i32, String),
    /// The engine returned a size other than the header's nbytes.
    WrongSize {
        /// What the call returned.
        got: usize,
        /// The header's nbytes.
        nbytes: i32,
    },
    /// The engine panicked.
    Panic(String),
}

impl Decoded {
    /// A one-line description of a failure.
    pub fn describe(&self) -> String {
        match self {
            Decoded::Ok(d) => format!("ok nbytes={}", d.len()),
            Decoded::Error(code, msg) => format!("error {code} ({msg})"),
            Decoded::WrongSize { got, nbytes } => format!("returned {got}, header nbytes is {nbytes}"),
            Decoded::Panic(msg) => format!("PANIC: {msg}"),
        }
    }
}

/// Largest nbytes the procedure allocates (as `verify_with_reference.py`).
pub const MAX_NBYTES: i32 = 1 << 30;

/// Run `f`, turning a panic into `Err(message)`.
pub fn no_panic<T>(f: impl FnOnce() -> T) -> Result<T, String> {
    catch_unwind(AssertUnwindSafe(f)).map_err(|p| {
        if let Some(s) = p.downcast_ref::<&str>() {
            s.to_string()
        } else if let Some(s) = p.downcast_ref::<String>() {
            s.clone()
        } else {
            "non-string panic payload".to_string()
        }
    })
}

/// The README's `chunk` procedure, with our engine as the decoder:
/// nbytes = int32 at offset 4 (0 below 16 bytes), a zero-filled destination
/// of nbytes bytes, OK iff the call returns exactly nbytes. A negative or
/// huge nbytes gets an empty destination (a negative one decoding to 0
/// bytes is accepted, as the reference does).
pub fn decode_chunk(buf: &[u8]) -> Decoded {
    let nbytes = if buf.len() >= 16 {
        i32::from_le_bytes([buf[4], buf[5], buf[6], buf[7]])
    } else {
        0
    };
    let out_of_range = !(0..=MAX_NBYTES).contains(&nbytes);
    let mut dest = vec![0u8; if out_of_range { 0 } else { nbytes as usize }];
    let r = no_panic(|| {
        let mut ctx = Context::decompressor(DParams::default());
        ctx.decompress(buf, &mut dest)
    });
    match r {
        Err(msg) => Decoded::Panic(msg),
        Ok(Err(e)) => Decoded::Error(e.code(), format!("{e}")),
        Ok(Ok(n)) if out_of_range => {
            if nbytes < 0 && n == 0 {
                Decoded::Ok(Vec::new())
            } else {
                Decoded::WrongSize { got: n, nbytes }
            }
        }
        Ok(Ok(n)) if n == nbytes as usize => Decoded::Ok(dest),
        Ok(Ok(n)) => Decoded::WrongSize { got: n, nbytes },
    }
}

// ---------------------------------------------------------------------------
// Compressing an entry with our engine
// ---------------------------------------------------------------------------

/// Compress `input` the way the reference made `entry` (a `chunk` entry):
/// `compress2` with the entry's params and one thread, `vlcompress` for
/// VL-blocks entries, the special-chunk writer for `fill_special` entries.
pub fn compress_entry(entry: &Entry, input: &[u8]) -> Result<Vec<u8>, String> {
    match &entry.params {
        Params::Blosc2(p) => {
            let cp = p.cparams(1);
            if let Some(sizes) = &entry.vl_block_sizes {
                let mut blocks = Vec::with_capacity(sizes.len());
                let mut pos = 0usize;
                for &n in sizes {
                    blocks.push(input.get(pos..pos + n).ok_or("vl_block_sizes exceed the input")?);
                    pos += n;
                }
                if pos != input.len() {
                    return Err("vl_block_sizes do not add up to the input size".into());
                }
                let cap = input.len() + EXTENDED_HEADER_LENGTH + 16 * sizes.len() + 1024;
                let mut dest = vec![0u8; cap];
                let mut ctx = Context::compressor(cp);
                let n = ctx
                    .vlcompress(&blocks, &mut dest)
                    .map_err(|e| format!("vlcompress: {e} ({})", e.code()))?;
                if n == 0 {
                    return Err("vlcompress: output does not fit".into());
                }
                dest.truncate(n);
                Ok(dest)
            } else {
                compress_vec(&cp, input).map_err(|e| format!("compress: {e} ({})", e.code()))
            }
        }
        Params::Special { typesize, special, .. } => {
            // python-blosc2's SChunk defaults: zstd, clevel 1, auto split, shuffle.
            let cp = CParams {
                compcode: codec::ZSTD,
                clevel: 1,
                typesize: *typesize,
                splitmode: splitmode::AUTO,
                ..CParams::default()
            };
            let nbytes = i32::try_from(input.len()).map_err(|_| "input too large")?;
            let ts = usize::try_from(*typesize).map_err(|_| "bad typesize")?;
            let (kind, value) = match special {
                Special::Zero => (Some(SpecialKind::Zeros), None),
                Special::Nan => (Some(SpecialKind::Nans), None),
                Special::Uninit => (Some(SpecialKind::Uninit), None),
                Special::Value => (None, Some(input.get(..ts).ok_or("value chunk shorter than typesize")?)),
            };
            let mut dest = vec![0u8; EXTENDED_HEADER_LENGTH + ts];
            let n = make_special(&cp, nbytes, kind, value, &mut dest)
                .map_err(|e| format!("make_special: {e} ({})", e.code()))?;
            dest.truncate(n);
            Ok(dest)
        }
        other => Err(format!("cannot compress an entry with params {other:?}")),
    }
}

/// The input of a chunk entry: its generated data, or for an uninit special
/// chunk (which has no data spec) `nbytes` zeros.
pub fn entry_input(entry: &Entry) -> Option<Vec<u8>> {
    match &entry.data {
        Some(spec) => Some(blosc2::datagen::generate(spec)),
        None if entry.content_unspecified => Some(vec![0u8; entry.nbytes? as usize]),
        None => None,
    }
}

/// The hash a faithful decoder must produce for a round trip of `entry`:
/// the input's hash, or for lossy (TRUNC_PREC) entries the hash of the
/// input with the low mantissa bits of every whole item zeroed. Trailing
/// bytes of a partial item stay as they were: 3.3.5 leaves stale scratch
/// bytes there, which is its bug, not the format.
pub fn expected_roundtrip_sha(entry: &Entry, input: &[u8]) -> String {
    if entry.content_unspecified {
        return entry.sha256.clone().unwrap_or_default();
    }
    if entry.lossy {
        if let Params::Blosc2(p) = &entry.params {
            if let Some(slot) = p
                .filters
                .iter()
                .position(|&f| f == blosc2::engine::constants::filter::TRUNC_PREC)
            {
                let mut out = vec![0u8; input.len()];
                let meta = p.filters_meta_u8[slot];
                if blosc2::engine::filters::trunc_prec::encode(meta, p.typesize as usize, input, &mut out).is_ok() {
                    return sha256_hex(&out);
                }
            }
        }
        return entry.sha256.clone().unwrap_or_default();
    }
    sha256_hex(input)
}

// ---------------------------------------------------------------------------
// Explaining byte differences
// ---------------------------------------------------------------------------

/// Name of a chunk header byte.
pub fn header_field(off: usize) -> &'static str {
    match off {
        0 => "version",
        1 => "versionlz",
        2 => "flags",
        3 => "typesize",
        4..=7 => "nbytes",
        8..=11 => "blocksize",
        12..=15 => "cbytes",
        16..=21 => "filters",
        22 => "udcodec",
        23 => "compcode_meta",
        24..=29 => "filters_meta",
        30 => "blosc2_flags2",
        31 => "blosc2_flags",
        _ => "?",
    }
}

fn le_i32(b: &[u8], off: usize) -> Option<i32> {
    b.get(off..off + 4)
        .map(|s| i32::from_le_bytes([s[0], s[1], s[2], s[3]]))
}

/// Where and how our chunk differs from the reference's: the first
/// differing offset and what sits there (header field, bstarts entry,
/// dictionary, or the stream data of some block), plus the sizes.
pub fn explain_diff(ours: &[u8], reference: &[u8]) -> Option<String> {
    if ours == reference {
        return None;
    }
    let first = ours
        .iter()
        .zip(reference)
        .position(|(a, b)| a != b)
        .unwrap_or(ours.len().min(reference.len()));
    let hlen = if reference.len() >= 32 && reference[2] & 0x05 == 0x05 {
        32
    } else {
        16
    };
    let mut what = if first < hlen {
        format!(
            "header byte {first} ({}): ours 0x{:02x}, ref 0x{:02x}",
            header_field(first),
            ours.get(first).copied().unwrap_or(0),
            reference.get(first).copied().unwrap_or(0)
        )
    } else {
        // Reference layout: header, bstarts[nblocks], [dict], streams.
        let nbytes = le_i32(reference, 4).unwrap_or(0).max(0) as usize;
        let memcpyed = reference.get(2).is_some_and(|f| f & 2 != 0);
        let vl = hlen == 32 && reference.get(30).is_some_and(|f| f & 1 != 0);
        let bs = le_i32(reference, 8).unwrap_or(0).max(0) as usize;
        let nblocks = if vl {
            bs
        } else if bs > 0 {
            nbytes.div_ceil(bs)
        } else {
            0
        };
        let bstarts_end = hlen + 4 * nblocks;
        if memcpyed {
            format!("memcpyed payload at {first}")
        } else if first < bstarts_end {
            format!("bstarts[{}]", (first - hlen) / 4)
        } else {
            let starts: Vec<usize> = (0..nblocks)
                .filter_map(|j| le_i32(reference, hlen + 4 * j))
                .map(|s| s.max(0) as usize)
                .collect();
            let min_start = starts.iter().copied().min().unwrap_or(reference.len());
            if first < min_start {
                "dictionary".to_string()
            } else {
                let block = starts
                    .iter()
                    .enumerate()
                    .filter(|(_, s)| **s <= first)
                    .max_by_key(|(_, s)| **s)
                    .map(|(j, _)| j);
                match block {
                    Some(j) => format!("stream data of block {j} (+{})", first - starts[j]),
                    None => "stream data".to_string(),
                }
            }
        }
    };
    let _ = write!(
        what,
        "; cbytes ours {} ref {}; blocksize ours {} ref {}",
        ours.len(),
        reference.len(),
        le_i32(ours, 8).unwrap_or(-1),
        le_i32(reference, 8).unwrap_or(-1)
    );
    Some(format!("first diff at offset {first}: {what}"))
}
