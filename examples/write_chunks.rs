//! Interop writer: compress every `chunk` entry of the conformance corpus
//! with our engine, so that the real C-Blosc2 can check it can read them.
//!
//! ```text
//! cargo run --example write_chunks -- OUTDIR [--only chunk-0001,chunk-0002]
//! python3 tests/corpus/verify_with_reference.py --expect OUTDIR/manifest.json
//! ```
//!
//! For each entry it regenerates the input from the manifest's data spec,
//! compresses it with the entry's parameters (one thread), writes
//! `OUTDIR/<id>.chunk`, and lists it in `OUTDIR/manifest.json` with the
//! hash the reference must decode it to (the input's, or for lossy
//! TRUNC_PREC entries the corpus' decoded hash). An entry we fail to
//! compress is still listed, without a file, so the verifier counts it as
//! a failure. `.ci/interop.sh` runs both steps.

#[path = "../tests/common/mod.rs"]
mod common;

use std::path::PathBuf;
use std::process::ExitCode;

use common::{compress_entry, entry_input, expected_roundtrip_sha, Kind, Manifest};
use serde_json::{json, Value};

fn main() -> ExitCode {
    let mut args = std::env::args().skip(1);
    let mut outdir: Option<PathBuf> = None;
    let mut only: Option<Vec<String>> = None;
    while let Some(a) = args.next() {
        match a.as_str() {
            "--only" => {
                only = args
                    .next()
                    .map(|l| l.split(',').map(|s| s.trim().to_string()).collect())
            }
            "-h" | "--help" => {
                eprintln!("usage: write_chunks OUTDIR [--only ID,ID,...]");
                return ExitCode::SUCCESS;
            }
            _ if outdir.is_none() => outdir = Some(PathBuf::from(a)),
            _ => {
                eprintln!("write_chunks: unexpected argument {a:?}");
                return ExitCode::from(2);
            }
        }
    }
    let Some(outdir) = outdir else {
        eprintln!("usage: write_chunks OUTDIR [--only ID,ID,...]");
        return ExitCode::from(2);
    };
    if let Err(e) = std::fs::create_dir_all(&outdir) {
        eprintln!("write_chunks: create {}: {e}", outdir.display());
        return ExitCode::FAILURE;
    }

    let manifest = Manifest::load();
    let (mut written, mut failed) = (0usize, 0usize);
    let mut entries: Vec<Value> = Vec::new();
    for e in manifest.of_kind(Kind::Chunk) {
        if only.as_ref().is_some_and(|ids| !ids.contains(&e.id)) {
            continue;
        }
        let file = format!("{}.chunk", e.id);
        let Some(input) = entry_input(e) else {
            eprintln!("write_chunks: {}: no input spec, skipped", e.id);
            continue;
        };
        let sha = expected_roundtrip_sha(e, &input);
        entries.push(json!({
            "id": e.id,
            "file": file,
            "kind": "chunk",
            "nbytes": input.len(),
            "sha256": sha,
            "source_file": e.file,
            "params": e.params.label(),
        }));
        match compress_entry(e, &input) {
            Ok(chunk) => {
                if let Err(err) = std::fs::write(outdir.join(&file), &chunk) {
                    eprintln!("write_chunks: write {file}: {err}");
                    return ExitCode::FAILURE;
                }
                written += 1;
            }
            Err(msg) => {
                eprintln!("write_chunks: {} ({}): {msg}", e.id, e.params.label());
                failed += 1;
            }
        }
    }
    let out = json!({
        "corpus": "blosc2 (Rust) interop: chunks written by our engine",
        "source_manifest": "tests/corpus/manifest.json",
        "entries": entries,
    });
    let text = serde_json::to_string_pretty(&out).expect("JSON serialization");
    if let Err(err) = std::fs::write(outdir.join("manifest.json"), text) {
        eprintln!("write_chunks: write manifest.json: {err}");
        return ExitCode::FAILURE;
    }
    println!(
        "write_chunks: {written} chunks written, {failed} failed to compress, into {}",
        outdir.display()
    );
    ExitCode::SUCCESS
}
