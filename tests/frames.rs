//! The conformance corpus through the frame layer: every frame C-Blosc2
//! 3.3.5 wrote opens from its file and from a buffer and decodes to the
//! manifest hashes; every malformed frame is rejected without a panic.

mod frames_common;

use blosc2::engine::schunk::SChunk;
use frames_common::*;
use serde_json::Value;

fn check_frame(e: &Value, s: &mut SChunk, how: &str) {
    let id = e["id"].as_str().unwrap_or("?");
    assert_eq!(s.nchunks(), e["nchunks"].as_i64().unwrap(), "{id} {how}: nchunks");
    let (chunks, metas, vl) = decode_all(s).unwrap_or_else(|err| panic!("{id} {how}: {err}"));
    let mut all = Vec::new();
    for (i, c) in chunks.iter().enumerate() {
        let m = &e["chunks"][i];
        assert_eq!(
            c.len() as i64,
            m["nbytes"].as_i64().unwrap(),
            "{id} {how}: chunk {i} nbytes"
        );
        if !m["content_unspecified"].as_bool().unwrap_or(false) {
            assert_eq!(sha256(c), m["sha256"].as_str().unwrap(), "{id} {how}: chunk {i}");
        }
        all.extend_from_slice(c);
    }
    if e["kind"] == "b2nd" {
        assert_eq!(sha256(&all), e["chunks_sha256"].as_str().unwrap(), "{id} {how}: chunks");
    } else {
        assert_eq!(sha256(&all), e["sha256"].as_str().unwrap(), "{id} {how}: all chunks");
        assert_eq!(s.nbytes(), e["nbytes"].as_i64().unwrap(), "{id} {how}: nbytes");
    }
    let want_meta = e["metalayers"].as_object().cloned().unwrap_or_default();
    assert_eq!(metas.len(), want_meta.len(), "{id} {how}: metalayer count");
    for (name, content) in &metas {
        assert_eq!(
            *content,
            unhex(want_meta[name]["content_hex"].as_str().unwrap()),
            "{id} {how}: meta {name}"
        );
    }
    let want_vl = e["vlmetalayers"].as_object().cloned().unwrap_or_default();
    assert_eq!(vl.len(), want_vl.len(), "{id} {how}: vlmetalayer count");
    for (name, content) in &vl {
        assert_eq!(
            *content,
            unhex(want_vl[name]["content_hex"].as_str().unwrap()),
            "{id} {how}: vlmeta {name}"
        );
    }
}

#[test]
fn corpus_frames_open_from_file_and_buffer() {
    let mut seen = 0;
    let mut failures = Vec::new();
    for e in entries() {
        if let Err(msg) = std::panic::catch_unwind(|| check_entry(&e)).map_err(|p| panic_text(&p)) {
            failures.push(msg);
        }
        if matches!(e["kind"].as_str(), Some("cframe" | "sframe-dir" | "b2nd")) {
            seen += 1;
        }
    }
    assert!(
        failures.is_empty(),
        "{} of {seen} frames failed:\n{}",
        failures.len(),
        failures.join("\n")
    );
    assert_eq!(seen, 38);
}

fn panic_text(p: &Box<dyn std::any::Any + Send>) -> String {
    p.downcast_ref::<String>()
        .cloned()
        .or_else(|| p.downcast_ref::<&str>().map(|s| s.to_string()))
        .unwrap_or_default()
}

fn check_entry(e: &Value) {
    {
        let kind = e["kind"].as_str().unwrap();
        if !matches!(kind, "cframe" | "sframe-dir" | "b2nd") {
            return;
        }
        let path = corpus().join(e["file"].as_str().unwrap());
        let mut s = SChunk::open(path.to_str().unwrap(), 0).unwrap_or_else(|err| panic!("{}: {err}", e["id"]));
        check_frame(e, &mut s, "file");
        if let Some(h) = e.get("frame_header") {
            assert_eq!(s.frame_len(), h["frame_len"].as_i64().unwrap());
            assert_eq!(s.chunksize(), h["chunksize"].as_i64().unwrap() as i32);
            assert_eq!(s.typesize(), h["typesize"].as_i64().unwrap() as i32);
            assert_eq!(s.clevel() as i64, h["clevel"].as_i64().unwrap());
            assert_eq!(
                s.frame().unwrap().header().header_len as i64,
                h["header_len"].as_i64().unwrap()
            );
        }
        if path.is_file() {
            let bytes = std::fs::read(&path).unwrap();
            let mut m = SChunk::from_cframe(bytes.clone(), false).unwrap();
            check_frame(e, &mut m, "buffer");
            // An unedited in-memory frame serializes to the same bytes.
            assert_eq!(m.to_cframe().unwrap(), bytes, "{}: to_cframe", e["id"]);
            let mut c = SChunk::from_cframe(bytes, true).unwrap();
            check_frame(e, &mut c, "buffer copy");
        }
    }
}

/// The corpus procedure on one path; `Err` if any step fails.
fn procedure_file(path: &str) -> blosc2::Result<()> {
    let mut s = SChunk::open(path, 0)?;
    decode_all(&mut s).map(|_| ())
}

fn procedure_buffer(bytes: Vec<u8>, copy: bool) -> blosc2::Result<()> {
    let mut s = SChunk::from_cframe(bytes, copy)?;
    decode_all(&mut s).map(|_| ())
}

#[test]
fn corpus_malformed_frames_are_rejected() {
    let mut n = 0;
    for e in entries() {
        if e["kind"] != "malformed" || e["decode_procedure"] != "frame" {
            continue;
        }
        let path = corpus().join(e["file"].as_str().unwrap());
        let p = path.to_str().unwrap();
        assert!(
            procedure_file(p).is_err(),
            "{} ({}) accepted from file",
            e["id"],
            e["description"]
        );
        if path.is_file() {
            let bytes = std::fs::read(&path).unwrap();
            assert!(
                procedure_buffer(bytes.clone(), false).is_err(),
                "{} accepted from buffer",
                e["id"]
            );
            assert!(
                procedure_buffer(bytes, true).is_err(),
                "{} accepted from buffer (copy)",
                e["id"]
            );
        }
        n += 1;
    }
    assert_eq!(n, 20);
}

#[test]
fn corpus_malformed_b2nd_never_panic() {
    // These are b2nd-level corruptions (the b2nd layer rejects the bad
    // metalayer); the frame layer must just not crash on them.
    for e in entries() {
        if e["kind"] != "malformed" || e["decode_procedure"] != "b2nd" {
            continue;
        }
        let path = corpus().join(e["file"].as_str().unwrap());
        let _ = procedure_file(path.to_str().unwrap());
        if path.is_file() {
            let _ = procedure_buffer(std::fs::read(&path).unwrap(), false);
        }
    }
}

/// Every truncation and every single-byte corruption of a few frames is
/// either rejected or decoded, never a panic, and reads stay in bounds.
#[test]
fn mutated_frames_never_panic() {
    for name in [
        "f03_memory_meta_vlmeta.b2frame",
        "f07_memory_mixed_specials.b2frame",
        "f17_memory_vlblocks.b2frame",
    ] {
        let bytes = std::fs::read(corpus().join("frames").join(name)).unwrap();
        for cut in (0..bytes.len()).step_by(7) {
            let _ = procedure_buffer(bytes[..cut].to_vec(), false);
        }
        let header_len = 200.min(bytes.len());
        let tail_from = bytes.len().saturating_sub(300);
        for pos in (0..header_len).chain(tail_from..bytes.len()) {
            for v in [0x00u8, 0xFF, 0x80, 0x7F] {
                let mut b = bytes.clone();
                b[pos] = v;
                let _ = procedure_buffer(b, false);
            }
        }
    }
}
