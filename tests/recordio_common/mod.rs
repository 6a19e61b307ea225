//! Helpers shared by the recordio tests: the Go test vectors, their
//! manifest, item generators and the upstream test transformers.
#![allow(dead_code)]

use std::path::PathBuf;
use std::sync::{Arc, Once};

use blosc2::recordio::{self, TransformFn, TransformerFactory};
use sha2::{Digest, Sha256};

/// `tests/recordio/`.
pub fn dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests").join("recordio")
}

/// The bytes of a test vector.
pub fn read(name: &str) -> Vec<u8> {
    std::fs::read(dir().join(name)).unwrap_or_else(|e| panic!("reading {name}: {e}"))
}

/// The parsed `MANIFEST.json`.
pub fn manifest() -> Vec<serde_json::Value> {
    let text = std::fs::read_to_string(dir().join("MANIFEST.json")).expect("MANIFEST.json");
    match serde_json::from_str(&text).expect("MANIFEST.json parses") {
        serde_json::Value::Array(v) => v,
        _ => panic!("MANIFEST.json is not a list"),
    }
}

/// Hex sha256.
pub fn sha256_hex(data: &[u8]) -> String {
    Sha256::digest(data).iter().map(|b| format!("{b:02x}")).collect()
}

/// `gen(seed,n)[j] = (seed*131 + (j%1000)*7 + j/1000) % 251`.
pub fn gen(seed: usize, n: usize) -> Vec<u8> {
    (0..n)
        .map(|j| ((seed * 131 + (j % 1000) * 7 + j / 1000) % 251) as u8)
        .collect()
}

/// The "compressible set": item i is `'A' + i%26` repeated `100+i` times.
pub fn compressible(i: usize) -> Vec<u8> {
    vec![b'A' + (i % 26) as u8; 100 + i]
}

fn bytewise(f: fn(u8, u8) -> u8) -> TransformerFactory {
    Arc::new(move |config: &str| {
        let n: u8 = config
            .trim()
            .parse::<i64>()
            .map_err(|_| recordio::Error::new(recordio::ErrorKind::InvalidArgument, "bad config"))?
            as u8;
        let t: TransformFn =
            Arc::new(move |input: &[&[u8]]| Ok(input.iter().flat_map(|p| p.iter()).map(|&b| f(b, n)).collect()));
        Ok(t)
    })
}

/// Register upstream's `testplus N` (adds N mod 256 to every byte) and
/// `testxor N` (xors every byte with N) as user transformers.
pub fn register_test_transformers() {
    static ONCE: Once = Once::new();
    ONCE.call_once(|| {
        recordio::register_transformer(
            "testplus",
            bytewise(|b, n| b.wrapping_add(n)),
            bytewise(|b, n| b.wrapping_sub(n)),
        )
        .unwrap();
        recordio::register_transformer("testxor", bytewise(|b, n| b ^ n), bytewise(|b, n| b ^ n)).unwrap();
    });
}
