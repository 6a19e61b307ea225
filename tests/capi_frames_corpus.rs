//! The conformance corpus through the C ABI: every frame C-Blosc2 3.3.5
//! wrote (contiguous files, sparse directories, b2nd arrays) opens with
//! `blosc2_schunk_open_offset` (also from inside a file holding several
//! frames) and `blosc2_schunk_from_buffer` (copy and no copy), and decodes
//! through `blosc2_schunk_decompress_chunk`, lazy chunks, the public
//! metalayer arrays and `blosc2_vlmeta_get` to the manifest's hashes.
//! Malformed frames give NULL or an error code.

mod frames_common;

use std::ffi::{c_void, CStr, CString};
use std::ptr;

use blosc2::capi::blosc2_schunk;
use blosc2::capi::chunkinfo::blosc2_cbuffer_sizes;
use blosc2::capi::context_read::blosc2_decompress_ctx;
use blosc2::capi::schunk::*;
use blosc2::capi::schunk_frame::*;
use blosc2::capi::schunk_meta::*;
use frames_common::*;
use serde_json::Value;

/// Decoded content of a super-chunk through the C ABI, or the first
/// negative code met.
struct Decoded {
    nchunks: i64,
    nbytes: i64,
    chunks: Vec<Vec<u8>>,
    metas: Vec<(String, Vec<u8>)>,
    vlmetas: Vec<(String, Vec<u8>)>,
}

/// Every chunk (decompressed, and again from its lazy chunk through
/// `schunk->dctx`), metalayer and vlmetalayer of `sc`.
///
/// # Safety
/// `sc` must be a live super-chunk.
unsafe fn decode(sc: *mut blosc2_schunk) -> Result<Decoded, String> {
    // SAFETY: a live super-chunk per the contract.
    let p = unsafe { &*sc };
    let mut chunks = Vec::new();
    for i in 0..p.nchunks {
        let mut c: *mut u8 = ptr::null_mut();
        let mut nf = false;
        // SAFETY: live handle, writable outputs.
        let cb = unsafe { blosc2_schunk_get_chunk(sc, i, &mut c, &mut nf) };
        if cb < 0 {
            return Err(format!("get_chunk {i}: {cb}"));
        }
        let mut nbytes = 0i32;
        // SAFETY: `c` is a whole chunk.
        let rc = unsafe { blosc2_cbuffer_sizes(c.cast(), &mut nbytes, ptr::null_mut(), ptr::null_mut()) };
        if nf {
            // SAFETY: malloc'ed by the library.
            unsafe { libc::free(c.cast()) };
        }
        if rc < 0 || nbytes < 0 {
            return Err(format!("cbuffer_sizes {i}: {rc}"));
        }
        let mut out = vec![0u8; nbytes as usize];
        // SAFETY: `out` holds `nbytes` bytes.
        let got = unsafe { blosc2_schunk_decompress_chunk(sc, i, out.as_mut_ptr().cast(), nbytes) };
        if got != nbytes {
            return Err(format!("decompress_chunk {i}: {got}"));
        }
        // The same bytes from the lazy chunk through schunk->dctx.
        let mut lc: *mut u8 = ptr::null_mut();
        // SAFETY: live handle, writable outputs.
        let lcb = unsafe { blosc2_schunk_get_lazychunk(sc, i, &mut lc, &mut nf) };
        if lcb < 0 {
            return Err(format!("get_lazychunk {i}: {lcb}"));
        }
        let mut out2 = vec![0u8; nbytes as usize];
        // SAFETY: `lc` holds `lcb` bytes, `out2` `nbytes`.
        let got2 = unsafe { blosc2_decompress_ctx(p.dctx, lc.cast(), lcb, out2.as_mut_ptr().cast(), nbytes) };
        if nf {
            // SAFETY: malloc'ed by the library.
            unsafe { libc::free(lc.cast()) };
        }
        if got2 != nbytes || out2 != out {
            return Err(format!("lazy chunk {i}: {got2}"));
        }
        chunks.push(out);
    }
    let mut metas = Vec::new();
    for i in 0..usize::from(p.nmetalayers) {
        // SAFETY: populated entries below `nmetalayers`.
        let m = unsafe { &*p.metalayers[i] };
        // SAFETY: malloc'ed NUL-terminated name.
        let name = unsafe { CStr::from_ptr(m.name) }.to_string_lossy().into_owned();
        // SAFETY: `content_len` bytes.
        let content = unsafe { std::slice::from_raw_parts(m.content, m.content_len as usize) }.to_vec();
        metas.push((name, content));
    }
    let mut vlmetas = Vec::new();
    let n = usize::try_from(p.nvlmetalayers).unwrap_or(0);
    let mut names = vec![ptr::null_mut(); n];
    // SAFETY: `names` holds `nvlmetalayers` pointers.
    let rc = unsafe { blosc2_vlmeta_get_names(sc, names.as_mut_ptr()) };
    if rc != n as i32 {
        return Err(format!("vlmeta_get_names: {rc}"));
    }
    for name in names {
        let mut content: *mut u8 = ptr::null_mut();
        let mut len = 0i32;
        // SAFETY: `name` is the library's NUL-terminated string.
        let rc = unsafe { blosc2_vlmeta_get(sc, name, &mut content, &mut len) };
        if rc < 0 {
            return Err(format!("vlmeta_get: {rc}"));
        }
        let data = if content.is_null() {
            Vec::new()
        } else {
            // SAFETY: `len` bytes, malloc'ed by the library.
            let d = unsafe { std::slice::from_raw_parts(content, len as usize) }.to_vec();
            // SAFETY: malloc'ed by the library.
            unsafe { libc::free(content.cast()) };
            d
        };
        // SAFETY: NUL-terminated.
        vlmetas.push((unsafe { CStr::from_ptr(name) }.to_string_lossy().into_owned(), data));
    }
    Ok(Decoded {
        nchunks: p.nchunks,
        nbytes: p.nbytes,
        chunks,
        metas,
        vlmetas,
    })
}

fn check(e: &Value, sc: *mut blosc2_schunk, how: &str) {
    let id = e["id"].as_str().unwrap_or("?");
    assert!(!sc.is_null(), "{id} {how}: NULL super-chunk");
    // SAFETY: a live super-chunk from the library.
    let d = unsafe { decode(sc) }.unwrap_or_else(|err| panic!("{id} {how}: {err}"));
    assert_eq!(d.nchunks, e["nchunks"].as_i64().unwrap(), "{id} {how}: nchunks");
    let mut all = Vec::new();
    for (i, c) in d.chunks.iter().enumerate() {
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
        assert_eq!(d.nbytes, e["nbytes"].as_i64().unwrap(), "{id} {how}: nbytes");
    }
    let want_meta = e["metalayers"].as_object().cloned().unwrap_or_default();
    assert_eq!(d.metas.len(), want_meta.len(), "{id} {how}: metalayer count");
    for (name, content) in &d.metas {
        let want = unhex(want_meta[name]["content_hex"].as_str().unwrap());
        assert_eq!(*content, want, "{id} {how}: meta {name}");
    }
    let want_vl = e["vlmetalayers"].as_object().cloned().unwrap_or_default();
    assert_eq!(d.vlmetas.len(), want_vl.len(), "{id} {how}: vlmetalayer count");
    for (name, content) in &d.vlmetas {
        let want = unhex(want_vl[name]["content_hex"].as_str().unwrap());
        assert_eq!(*content, want, "{id} {how}: vlmeta {name}");
    }
    if let Some(h) = e.get("frame_header") {
        // SAFETY: live super-chunk.
        let p = unsafe { &*sc };
        assert_eq!(
            p.typesize,
            h["typesize"].as_i64().unwrap() as i32,
            "{id} {how}: typesize"
        );
        assert_eq!(i64::from(p.clevel), h["clevel"].as_i64().unwrap(), "{id} {how}: clevel");
    }
    // SAFETY: live super-chunk, freed once.
    assert_eq!(unsafe { blosc2_schunk_free(sc) }, 0, "{id} {how}: free");
}

fn cpath(p: &std::path::Path) -> CString {
    CString::new(p.to_str().unwrap()).unwrap()
}

fn frame_entries() -> Vec<Value> {
    entries()
        .into_iter()
        .filter(|e| matches!(e["kind"].as_str(), Some("cframe" | "sframe-dir" | "b2nd")))
        .collect()
}

#[test]
fn corpus_frames_through_the_c_abi() {
    let mut n = 0;
    for e in frame_entries() {
        let path = corpus().join(e["file"].as_str().unwrap());
        let cp = cpath(&path);
        // SAFETY: a NUL-terminated path.
        check(&e, unsafe { blosc2_schunk_open_offset(cp.as_ptr(), 0) }, "open_offset");
        // SAFETY: as above.
        check(&e, unsafe { blosc2_schunk_open(cp.as_ptr()) }, "open");
        if path.is_file() {
            let mut bytes = std::fs::read(&path).unwrap();
            for copy in [false, true] {
                // SAFETY: `bytes` is readable for its length and outlives
                // the super-chunk.
                let sc = unsafe { blosc2_schunk_from_buffer(bytes.as_mut_ptr(), bytes.len() as i64, copy) };
                check(&e, sc, if copy { "from_buffer copy" } else { "from_buffer" });
            }
        }
        n += 1;
    }
    assert_eq!(n, 38);
}

#[test]
fn corpus_frames_at_offsets_in_one_file() {
    // Every contiguous frame of the corpus, back to back in one file.
    let dir = scratch("capi_corpus_offsets");
    let file = dir.join("all.b2frames");
    let mut all = Vec::new();
    let mut at = Vec::new();
    for e in frame_entries() {
        let path = corpus().join(e["file"].as_str().unwrap());
        if path.is_file() {
            at.push((e.clone(), all.len() as i64));
            all.extend_from_slice(&std::fs::read(&path).unwrap());
        }
    }
    std::fs::write(&file, &all).unwrap();
    let cp = cpath(&file);
    for (e, off) in &at {
        // SAFETY: a NUL-terminated path.
        check(
            e,
            unsafe { blosc2_schunk_open_offset(cp.as_ptr(), *off) },
            "open_offset in a file",
        );
    }
    // SAFETY: as above.
    assert!(unsafe { blosc2_schunk_open_offset(cp.as_ptr(), 1) }.is_null());
    // SAFETY: as above.
    assert!(unsafe { blosc2_schunk_open_offset(cp.as_ptr(), all.len() as i64) }.is_null());
    assert!(at.len() >= 30);
}

/// The corpus procedure through the C ABI; `false` when anything fails.
fn accepted(sc: *mut blosc2_schunk) -> bool {
    if sc.is_null() {
        return false;
    }
    // SAFETY: a live super-chunk from the library.
    let ok = unsafe { decode(sc) }.is_ok();
    // SAFETY: live, freed once.
    unsafe { blosc2_schunk_free(sc) };
    ok
}

#[test]
fn corpus_malformed_frames_through_the_c_abi() {
    let mut n = 0;
    for e in entries() {
        if e["kind"] != "malformed" || !matches!(e["decode_procedure"].as_str(), Some("frame" | "b2nd")) {
            continue;
        }
        let must_fail = e["decode_procedure"] == "frame";
        let path = corpus().join(e["file"].as_str().unwrap());
        let cp = cpath(&path);
        // SAFETY: a NUL-terminated path.
        let ok = accepted(unsafe { blosc2_schunk_open_offset(cp.as_ptr(), 0) });
        assert!(
            !(must_fail && ok),
            "{} ({}) accepted from file",
            e["id"],
            e["description"]
        );
        if path.is_file() {
            let mut bytes = std::fs::read(&path).unwrap();
            for copy in [false, true] {
                // SAFETY: readable for its length.
                let sc = unsafe { blosc2_schunk_from_buffer(bytes.as_mut_ptr(), bytes.len() as i64, copy) };
                let ok = accepted(sc);
                assert!(!(must_fail && ok), "{} accepted from buffer (copy {copy})", e["id"]);
            }
        }
        if must_fail {
            n += 1;
        }
    }
    assert_eq!(n, 20);
}

#[test]
fn frames_written_through_the_c_abi_reopen() {
    // Round trip of every corpus frame: from_buffer, to_file, reopen; and
    // to_buffer of the reopened one.
    let dir = scratch("capi_corpus_rewrite");
    for e in frame_entries() {
        let path = corpus().join(e["file"].as_str().unwrap());
        let cp = cpath(&path);
        // SAFETY: a NUL-terminated path.
        let sc = unsafe { blosc2_schunk_open(cp.as_ptr()) };
        assert!(!sc.is_null());
        let out = dir.join(format!("{}.b2frame", e["id"].as_str().unwrap()));
        let op = cpath(&out);
        // SAFETY: live handle, NUL-terminated path.
        let len = unsafe { blosc2_schunk_to_file(sc, op.as_ptr()) };
        assert!(len > 0, "{}: to_file {len}", e["id"]);
        let mut cframe: *mut u8 = ptr::null_mut();
        let mut nf = false;
        // SAFETY: live handle, writable outputs.
        let blen = unsafe { blosc2_schunk_to_buffer(sc, &mut cframe, &mut nf) };
        assert_eq!(blen, len, "{}", e["id"]);
        // SAFETY: `cframe` holds `blen` bytes.
        let sc2 = unsafe { blosc2_schunk_from_buffer(cframe, blen, true) };
        if nf {
            // SAFETY: malloc'ed by the library.
            unsafe { libc::free(cframe.cast::<c_void>()) };
        }
        check(&e, sc2, "to_buffer + from_buffer");
        // SAFETY: live, freed once.
        unsafe { blosc2_schunk_free(sc) };
        // SAFETY: a NUL-terminated path.
        check(&e, unsafe { blosc2_schunk_open(op.as_ptr()) }, "to_file + open");
    }
}
