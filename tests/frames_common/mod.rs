//! Helpers shared by the frame tests: the corpus manifest and its data
//! specs.

#![allow(dead_code)]

use std::path::PathBuf;

use blosc2::datagen::{generate, DataSpec, Smooth};
use blosc2::engine::schunk::SChunk;
use serde_json::Value;
use sha2::{Digest, Sha256};

/// The corpus directory.
pub fn corpus() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/corpus")
}

/// The manifest's entries.
pub fn entries() -> Vec<Value> {
    let text = std::fs::read_to_string(corpus().join("manifest.json")).expect("manifest");
    let v: Value = serde_json::from_str(&text).expect("manifest json");
    v["entries"].as_array().expect("entries").clone()
}

/// Lower-case hex SHA-256.
pub fn sha256(b: &[u8]) -> String {
    Sha256::digest(b).iter().map(|x| format!("{x:02x}")).collect()
}

/// Decode a hex string.
pub fn unhex(s: &str) -> Vec<u8> {
    (0..s.len() / 2)
        .map(|i| u8::from_str_radix(&s[2 * i..2 * i + 2], 16).expect("hex"))
        .collect()
}

fn u(v: &Value, k: &str, d: u64) -> u64 {
    v.get(k).and_then(Value::as_u64).unwrap_or(d)
}

fn seed(v: &Value) -> u64 {
    match v.get("seed") {
        Some(s) if s.is_i64() => s.as_i64().unwrap_or(0) as u64,
        Some(s) => s.as_u64().unwrap_or(0),
        None => 0,
    }
}

fn smooth(v: &Value) -> Smooth {
    let mut s = Smooth::new(u(v, "size", 0) as usize);
    s.seed = seed(v);
    let f = |k: &str, d: f64| v.get(k).and_then(Value::as_f64).unwrap_or(d);
    s.base = f("base", 0.0);
    s.slope = f("slope", 0.001);
    s.amp = f("amp", 10.0);
    s.period = u(v, "period", 1000);
    s.noise = f("noise", 0.0);
    s
}

/// A manifest `data` object as a spec.
pub fn spec(v: &Value) -> DataSpec {
    let size = u(v, "size", 0) as usize;
    match v["gen"].as_str().expect("gen") {
        "zeros" => DataSpec::Zeros { size },
        "repeat" => DataSpec::Repeat {
            size,
            pattern: unhex(v["value_hex"].as_str().unwrap_or("")),
        },
        "random" => DataSpec::Random { size, seed: seed(v) },
        "arange" => DataSpec::Arange {
            size,
            typesize: u(v, "typesize", 1) as usize,
            start: v.get("start").and_then(Value::as_i64).unwrap_or(0),
            step: v.get("step").and_then(Value::as_i64).unwrap_or(1),
        },
        "text" => DataSpec::Text { size, seed: seed(v) },
        "runs" => DataSpec::Runs {
            size,
            seed: seed(v),
            maxrun: u(v, "maxrun", 64),
        },
        "sparse" => DataSpec::Sparse {
            size,
            seed: seed(v),
            density: u(v, "density", 16),
        },
        "smooth_f64" => DataSpec::SmoothF64(smooth(v)),
        "smooth_f32" => DataSpec::SmoothF32(smooth(v)),
        "bool" => DataSpec::Bool { size, seed: seed(v) },
        "concat" => DataSpec::Concat(v["parts"].as_array().expect("parts").iter().map(spec).collect()),
        g => panic!("unknown generator {g}"),
    }
}

/// Generate the bytes of a manifest `data` object.
pub fn data(v: &Value) -> Vec<u8> {
    generate(&spec(v))
}

/// The frame decoding procedure of the corpus README: every chunk
/// decompressed (concatenated), every metalayer and vlmetalayer read.
/// Decoded chunks, metalayers and vlmetalayers.
pub type Decoded = (Vec<Vec<u8>>, Vec<(String, Vec<u8>)>, Vec<(String, Vec<u8>)>);

pub fn decode_all(s: &mut SChunk) -> blosc2::Result<Decoded> {
    let mut chunks = Vec::new();
    for i in 0..s.nchunks() {
        chunks.push(s.decompress_chunk_vec(i)?);
    }
    let mut metas = Vec::new();
    for (name, _) in s.metalayers().to_vec() {
        metas.push((name.clone(), s.meta_get(&name)?));
    }
    let mut vl = Vec::new();
    for name in s.vlmeta_names() {
        vl.push((name.clone(), s.vlmeta_get(&name)?));
    }
    Ok((chunks, metas, vl))
}

/// A fresh scratch directory under the target dir.
pub fn scratch(name: &str) -> PathBuf {
    let d = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("frames").join(name);
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).expect("scratch dir");
    d
}
