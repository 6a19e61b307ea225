//! Helpers for the plugin corpus tests: the manifest, counts per group,
//! and each check through the C ABI.

#![allow(dead_code)]

use std::collections::BTreeMap;
use std::ffi::{c_void, CString};
use std::path::{Path, PathBuf};
use std::ptr;

use blosc2::capi::b2nd::*;
use blosc2::capi::b2nd_ops::*;
use blosc2::capi::chunkinfo::*;
use blosc2::capi::context::*;
use blosc2::capi::context_read::*;
use blosc2::capi::schunk::*;
use blosc2::capi::schunk_frame::*;
use blosc2::capi::{b2nd_array_t, blosc2_cparams, blosc2_dparams, blosc2_schunk, blosc2_storage};
use serde_json::Value;
use sha2::{Digest, Sha256};

/// The plugin corpus directory.
pub fn corpus() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/corpus/plugins")
}

/// The manifest's entries.
pub fn entries() -> Vec<Value> {
    let text = std::fs::read_to_string(corpus().join("manifest.json")).expect("manifest");
    let v: Value = serde_json::from_str(&text).expect("manifest json");
    v["entries"].as_array().expect("entries").clone()
}

/// The entry named `id`.
pub fn entry(id: &str) -> Option<Value> {
    entries().into_iter().find(|e| e["id"] == id)
}

/// Lower-case hex SHA-256.
pub fn sha256(b: &[u8]) -> String {
    Sha256::digest(b).iter().map(|x| format!("{x:02x}")).collect()
}

pub fn group_of(e: &Value) -> &str {
    e["group"].as_str().unwrap_or("")
}

pub fn has_direction(e: &Value, d: &str) -> bool {
    e["directions"].as_array().is_some_and(|a| a.iter().any(|x| x == d))
}

/// A scratch directory under the target directory.
pub fn tempdir(name: &str) -> PathBuf {
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join(format!("{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("temp dir");
    dir
}

/// Passes and failures per group.
#[derive(Default)]
pub struct Tally(BTreeMap<String, (usize, usize)>);

impl Tally {
    pub fn add(&mut self, group: &str, ok: bool) {
        let t = self.0.entry(group.to_string()).or_default();
        if ok {
            t.0 += 1;
        } else {
            t.1 += 1;
        }
    }
    pub fn total(&self) -> usize {
        self.0.values().map(|t| t.0 + t.1).sum()
    }
    pub fn print(&self, what: &str) {
        for (g, (ok, bad)) in &self.0 {
            eprintln!("{what}: {g}: {ok} passed, {bad} failed");
        }
    }
}

fn ints(v: &Value) -> Vec<i64> {
    v.as_array()
        .map_or(Vec::new(), |a| a.iter().map(|x| x.as_i64().unwrap_or(0)).collect())
}

fn read(rel: &str) -> Vec<u8> {
    std::fs::read(corpus().join(rel)).unwrap_or_else(|e| panic!("{rel}: {e}"))
}

/// The entry's input bytes.
pub fn input(e: &Value) -> Vec<u8> {
    read(e["input"].as_str().expect("input"))
}

/// `BLOSC2_CPARAMS_DEFAULTS` with the entry's params.
pub fn cparams_of(e: &Value) -> blosc2_cparams {
    let p = &e["params"];
    let mut filters = [0u8; 6];
    let mut metas = [0u8; 6];
    for (i, (f, m)) in ints(&p["filters"]).iter().zip(ints(&p["filters_meta"])).enumerate() {
        filters[i] = *f as u8;
        metas[i] = m as u8;
    }
    blosc2_cparams {
        compcode: p["compcode"].as_u64().unwrap_or(0) as u8,
        compcode_meta: p["compcode_meta"].as_u64().unwrap_or(0) as u8,
        clevel: p["clevel"].as_u64().unwrap_or(5) as u8,
        use_dict: p["use_dict"].as_i64().unwrap_or(0) as i32,
        typesize: p["typesize"].as_i64().unwrap_or(8) as i32,
        nthreads: 1,
        blocksize: p["blocksize"].as_i64().unwrap_or(0) as i32,
        splitmode: p["splitmode"].as_i64().unwrap_or(4) as i32,
        schunk: ptr::null_mut(),
        filters,
        filters_meta: metas,
        prefilter: None,
        preparams: ptr::null_mut(),
        tuner_params: ptr::null_mut(),
        tuner_id: 0,
        instr_codec: false,
        codec_params: ptr::null_mut(),
        filter_params: [ptr::null_mut(); 6],
    }
}

/// `BLOSC2_DPARAMS_DEFAULTS` naming `schunk`.
pub fn dparams_with(schunk: *mut blosc2_schunk) -> blosc2_dparams {
    blosc2_dparams {
        nthreads: 1,
        schunk: schunk.cast(),
        postfilter: None,
        postparams: ptr::null_mut(),
        typesize: 8,
    }
}

fn check(cond: bool, msg: impl FnOnce() -> String) -> Result<(), String> {
    if cond {
        Ok(())
    } else {
        Err(msg())
    }
}

/// Decode a whole chunk with a fresh dctx naming `schunk`.
pub fn decode_chunk(chunk: &[u8], schunk: *mut blosc2_schunk) -> Result<Vec<u8>, String> {
    let (mut nbytes, mut cbytes, mut bs) = (0i32, 0i32, 0i32);
    // SAFETY: a chunk buffer of at least a header (checked by the caller's
    // corpus), out-parameters on the stack.
    let rc = unsafe { blosc2_cbuffer_sizes(chunk.as_ptr().cast(), &mut nbytes, &mut cbytes, &mut bs) };
    check(rc >= 0, || format!("cbuffer_sizes {rc}"))?;
    // (Corrupted headers may claim any size; the corpus's are small.)
    check(nbytes <= 64 << 20, || format!("nbytes {nbytes}"))?;
    let mut out = vec![0u8; nbytes.max(0) as usize];
    // SAFETY: plain params.
    let dctx = unsafe { blosc2_create_dctx(dparams_with(schunk)) };
    check(!dctx.is_null(), || "create_dctx".into())?;
    // SAFETY: live context, buffers of the sizes given.
    let n = unsafe {
        blosc2_decompress_ctx(
            dctx,
            chunk.as_ptr().cast(),
            chunk.len() as i32,
            out.as_mut_ptr().cast(),
            nbytes,
        )
    };
    // SAFETY: our context.
    unsafe { blosc2_free_ctx(dctx) };
    check(n == nbytes, || format!("decompress_ctx returned {n}, want {nbytes}"))?;
    Ok(out)
}

/// `getitem` of `nitems` items at `start`, through a dctx naming `schunk`.
fn getitem(chunk: &[u8], start: i64, nitems: i64, ts: i64, schunk: *mut blosc2_schunk) -> Result<Vec<u8>, String> {
    let want = (nitems * ts) as usize;
    let mut out = vec![0u8; want];
    // SAFETY: plain params.
    let dctx = unsafe { blosc2_create_dctx(dparams_with(schunk)) };
    // SAFETY: live context, buffers of the sizes given.
    let n = unsafe {
        blosc2_getitem_ctx(
            dctx,
            chunk.as_ptr().cast(),
            chunk.len() as i32,
            start as i32,
            nitems as i32,
            out.as_mut_ptr().cast(),
            want as i32,
        )
    };
    // SAFETY: our context.
    unsafe { blosc2_free_ctx(dctx) };
    check(n as usize == want, || {
        format!("getitem({start}, {nitems}) returned {n}")
    })?;
    Ok(out)
}

/// Read direction of a `chunk` entry.
pub fn read_chunk(e: &Value) -> Result<(), String> {
    let chunk = read(e["file"].as_str().unwrap_or(""));
    let (mut nbytes, mut cbytes, mut bs) = (0i32, 0i32, 0i32);
    // SAFETY: a corpus chunk, out-parameters on the stack.
    unsafe { blosc2_cbuffer_sizes(chunk.as_ptr().cast(), &mut nbytes, &mut cbytes, &mut bs) };
    check(
        i64::from(nbytes) == e["nbytes"].as_i64().unwrap_or(-1)
            && i64::from(cbytes) == e["cbytes"].as_i64().unwrap_or(-1)
            && i64::from(bs) == e["blocksize"].as_i64().unwrap_or(-1),
        || format!("sizes {nbytes} {cbytes} {bs}"),
    )?;
    let out = decode_chunk(&chunk, ptr::null_mut())?;
    check(sha256(&out) == e["sha256"], || "decoded bytes differ".into())?;
    let ts = e["params"]["typesize"].as_i64().unwrap_or(1);
    for g in e["getitem"].as_array().into_iter().flatten() {
        let (start, n) = (g[0].as_i64().unwrap_or(0), g[1].as_i64().unwrap_or(0));
        let got = getitem(&chunk, start, n, ts, ptr::null_mut())?;
        check(sha256(&got) == g[2], || format!("getitem({start}, {n}) bytes differ"))?;
    }
    Ok(())
}

/// Open a b2nd frame file.
fn open_array(path: &Path) -> Result<*mut b2nd_array_t, String> {
    let c = CString::new(path.to_str().unwrap_or("")).map_err(|e| e.to_string())?;
    let mut a: *mut b2nd_array_t = ptr::null_mut();
    // SAFETY: NUL-terminated path, out-parameter on the stack.
    let rc = unsafe { b2nd_open(c.as_ptr(), &mut a) };
    check(rc >= 0 && !a.is_null(), || format!("b2nd_open {rc}"))?;
    Ok(a)
}

/// The whole array, C order.
fn array_bytes(a: *mut b2nd_array_t) -> Result<Vec<u8>, String> {
    // SAFETY: a live array.
    let p = unsafe { &*a };
    // SAFETY: its live super-chunk.
    let ts = i64::from(unsafe { (*p.sc).typesize });
    let n = p.nitems.saturating_mul(ts);
    check((0..=256 << 20).contains(&n), || format!("{n} bytes"))?;
    let mut buf = vec![0u8; n as usize];
    // SAFETY: live array, buffer of `n` bytes.
    let rc = unsafe { b2nd_to_cbuffer(a, buf.as_mut_ptr().cast(), n) };
    check(rc >= 0, || format!("b2nd_to_cbuffer {rc}"))?;
    Ok(buf)
}

/// Read direction of a `b2nd-frame` entry.
pub fn read_b2nd(e: &Value) -> Result<(), String> {
    read_b2nd_file(e, &corpus().join(e["file"].as_str().unwrap_or("")), true)
}

/// Check the frame at `path` against entry `e`: content, slices and, with
/// `chunks`, the reference's chunk hashes and getitem ranges.
pub fn read_b2nd_file(e: &Value, path: &Path, chunks: bool) -> Result<(), String> {
    let a = open_array(path)?;
    let r: Result<(), String> = (|| {
        // SAFETY: a live array.
        let p = unsafe { &*a };
        let shape = ints(&e["params"]["shape"]);
        let nd = shape.len();
        check(p.ndim as usize == nd && p.shape[..nd] == shape[..], || "shape".into())?;
        let all = array_bytes(a)?;
        check(sha256(&all) == e["sha256"], || "b2nd_to_cbuffer bytes differ".into())?;
        // SAFETY: its live super-chunk.
        let ts = i64::from(unsafe { (*p.sc).typesize });
        for s in e["slices"].as_array().into_iter().flatten() {
            let (start, stop) = (ints(&s[0]), ints(&s[1]));
            let bshape: Vec<i64> = start.iter().zip(&stop).map(|(a, b)| b - a).collect();
            let n = bshape.iter().product::<i64>() * ts;
            check((0..=256 << 20).contains(&n), || format!("{n} bytes"))?;
            let mut buf = vec![0u8; n as usize];
            // SAFETY: live array, coordinates of `ndim` items, buffer of `n` bytes.
            let rc = unsafe {
                b2nd_get_slice_cbuffer(
                    a,
                    start.as_ptr(),
                    stop.as_ptr(),
                    buf.as_mut_ptr().cast(),
                    bshape.as_ptr(),
                    n,
                )
            };
            check(rc >= 0, || format!("slice {start:?}..{stop:?}: {rc}"))?;
            check(sha256(&buf) == s[2], || {
                format!("slice {start:?}..{stop:?} bytes differ")
            })?;
        }
        Ok(())
    })();
    // SAFETY: our array.
    unsafe { b2nd_free(a) };
    r?;
    if chunks {
        read_schunk_chunks(e, path)?;
    }
    Ok(())
}

/// The super-chunk view of a b2nd frame: every chunk, and getitem ranges
/// with a dctx whose `schunk` is the super-chunk.
fn read_schunk_chunks(e: &Value, path: &Path) -> Result<(), String> {
    let c = CString::new(path.to_str().unwrap_or("")).map_err(|e| e.to_string())?;
    // SAFETY: NUL-terminated path.
    let sc = unsafe { blosc2_schunk_open(c.as_ptr()) };
    check(!sc.is_null(), || "schunk_open".into())?;
    let r: Result<(), String> = (|| {
        // SAFETY: live super-chunk.
        let (nchunks, ts) = unsafe { ((*sc).nchunks, i64::from((*sc).typesize)) };
        check(nchunks == e["nchunks"].as_i64().unwrap_or(-1), || {
            format!("nchunks {nchunks}")
        })?;
        for (i, ch) in e["chunks"].as_array().into_iter().flatten().enumerate() {
            let nb = ch[0].as_i64().unwrap_or(0) as i32;
            check((0..=64 << 20).contains(&nb), || format!("{nb} bytes"))?;
            let mut buf = vec![0u8; nb as usize];
            // SAFETY: live super-chunk, buffer of `nb` bytes.
            let rc = unsafe { blosc2_schunk_decompress_chunk(sc, i as i64, buf.as_mut_ptr().cast(), nb) };
            check(rc == nb, || format!("decompress_chunk({i}) returned {rc}"))?;
            check(sha256(&buf) == ch[1], || format!("chunk {i} bytes differ"))?;
        }
        for g in e["getitem"].as_array().into_iter().flatten() {
            let (nc, start, n) = (
                g[0].as_i64().unwrap_or(0),
                g[1].as_i64().unwrap_or(0),
                g[2].as_i64().unwrap_or(0),
            );
            let (mut chunk, mut needs_free) = (ptr::null_mut::<u8>(), false);
            // SAFETY: live super-chunk, out-parameters on the stack.
            let cb = unsafe { blosc2_schunk_get_chunk(sc, nc, &mut chunk, &mut needs_free) };
            check(cb > 0, || format!("get_chunk({nc}) {cb}"))?;
            // SAFETY: `cb` bytes at `chunk`.
            let bytes = unsafe { std::slice::from_raw_parts(chunk, cb as usize) }.to_vec();
            if needs_free {
                // SAFETY: malloc'ed by the library for us.
                unsafe { libc::free(chunk.cast::<c_void>()) };
            }
            let got = getitem(&bytes, start, n, ts, sc)?;
            check(sha256(&got) == g[3], || {
                format!("chunk {nc} getitem({start}, {n}) bytes differ")
            })?;
        }
        Ok(())
    })();
    // SAFETY: our super-chunk.
    unsafe { blosc2_schunk_free(sc) };
    r
}

/// The header fields a written chunk must share with the reference's:
/// codec format, codec id (byte 22 for plugin codecs), codec meta,
/// typesize, filters and filter metas.
fn header_of(chunk: &[u8]) -> Vec<i64> {
    let mut v = vec![i64::from(chunk[2] >> 5), i64::from(chunk[23]), i64::from(chunk[3])];
    if chunk[2] >> 5 == 6 {
        v.push(i64::from(chunk[22]));
    }
    v.extend(chunk[16..22].iter().map(|&b| i64::from(b)));
    v.extend(chunk[24..30].iter().map(|&b| i64::from(b)));
    v
}

fn header_want(h: &Value) -> Vec<i64> {
    let mut v = vec![
        h[0].as_i64().unwrap_or(-1),
        h[2].as_i64().unwrap_or(-1),
        h[3].as_i64().unwrap_or(-1),
    ];
    if h[0] == 6 {
        v.push(h[1].as_i64().unwrap_or(-1));
    }
    v.extend(ints(&h[4]));
    v.extend(ints(&h[5]));
    v
}

/// Compress `data` with `cp` through a cctx; the chunk or the code.
pub fn compress_with(cp: blosc2_cparams, data: &[u8]) -> Result<Vec<u8>, i32> {
    // SAFETY: plain params.
    let cctx = unsafe { blosc2_create_cctx(cp) };
    if cctx.is_null() {
        return Err(i32::MIN);
    }
    let mut out = vec![0u8; data.len() + 32];
    // SAFETY: live context, buffers of the sizes given.
    let n = unsafe {
        blosc2_compress_ctx(
            cctx,
            data.as_ptr().cast(),
            data.len() as i32,
            out.as_mut_ptr().cast(),
            out.len() as i32,
        )
    };
    // SAFETY: our context.
    unsafe { blosc2_free_ctx(cctx) };
    if n <= 0 {
        return Err(n);
    }
    out.truncate(n as usize);
    Ok(out)
}

/// Write direction of a `chunk` entry; returns the chunk written.
pub fn write_chunk(e: &Value) -> Result<Vec<u8>, String> {
    let data = input(e);
    let chunk = compress_with(cparams_of(e), &data).map_err(|rc| format!("compress_ctx {rc}"))?;
    if chunk[2] & 0x2 == 0 {
        // (A memcpyed chunk declares its filters too.)
        check(header_of(&chunk) == header_want(&e["header"]), || {
            format!("header {:?}, want {:?}", header_of(&chunk), header_want(&e["header"]))
        })?;
    }
    let out = decode_chunk(&chunk, ptr::null_mut())?;
    let want = if e["lossy"] == true {
        e["sha256"].as_str().unwrap_or("").to_string()
    } else {
        sha256(&data)
    };
    check(sha256(&out) == want, || "our decode of our chunk differs".into())?;
    Ok(chunk)
}

/// Write a b2nd frame for entry `e` at `path` (through the C ABI).
pub fn create_b2nd(e: &Value, path: &Path) -> Result<(), String> {
    let p = &e["params"];
    let data = input(e);
    let mut cp = cparams_of(e);
    let mut dp = dparams_with(ptr::null_mut());
    let url = CString::new(path.to_str().unwrap_or("")).map_err(|e| e.to_string())?;
    let _ = std::fs::remove_file(path);
    let storage = blosc2_storage {
        contiguous: true,
        urlpath: url.as_ptr().cast_mut(),
        cparams: &mut cp,
        dparams: &mut dp,
        io: ptr::null_mut(),
    };
    let shape = ints(&p["shape"]);
    let chunkshape: Vec<i32> = ints(&p["chunkshape"]).iter().map(|&x| x as i32).collect();
    let blockshape: Vec<i32> = ints(&p["blockshape"]).iter().map(|&x| x as i32).collect();
    let dtype = CString::new(p["dtype"].as_str().unwrap_or("|u1")).map_err(|e| e.to_string())?;
    // SAFETY: the storage and shapes live through the call.
    let ctx = unsafe {
        b2nd_create_ctx(
            &storage,
            shape.len() as i8,
            shape.as_ptr(),
            chunkshape.as_ptr(),
            blockshape.as_ptr(),
            dtype.as_ptr(),
            p["dtype_format"].as_i64().unwrap_or(0) as i8,
            ptr::null(),
            0,
        )
    };
    check(!ctx.is_null(), || "b2nd_create_ctx".into())?;
    let mut a: *mut b2nd_array_t = ptr::null_mut();
    // SAFETY: live context, input of `data.len()` bytes.
    let rc = unsafe { b2nd_from_cbuffer(ctx, &mut a, data.as_ptr().cast(), data.len() as i64) };
    // SAFETY: ours.
    unsafe {
        b2nd_free_ctx(ctx);
        if !a.is_null() {
            b2nd_free(a);
        }
    }
    check(rc >= 0, || format!("b2nd_from_cbuffer {rc}"))
}

/// Write direction of a `b2nd-frame` entry; returns the frame's path.
pub fn write_b2nd(e: &Value, dir: &Path) -> Result<PathBuf, String> {
    let path = dir.join(format!("{}.b2nd", e["id"].as_str().unwrap_or("x")));
    create_b2nd(e, &path)?;
    // Same plugins declared in every chunk header.
    let c = CString::new(path.to_str().unwrap_or("")).map_err(|e| e.to_string())?;
    // SAFETY: NUL-terminated path.
    let sc = unsafe { blosc2_schunk_open(c.as_ptr()) };
    check(!sc.is_null(), || "schunk_open".into())?;
    let r: Result<(), String> = (|| {
        for (i, h) in e["chunk_headers"].as_array().into_iter().flatten().enumerate() {
            let (mut chunk, mut needs_free) = (ptr::null_mut::<u8>(), false);
            // SAFETY: live super-chunk, out-parameters on the stack.
            let cb = unsafe { blosc2_schunk_get_chunk(sc, i as i64, &mut chunk, &mut needs_free) };
            check(cb >= 32, || format!("get_chunk({i}) {cb}"))?;
            // SAFETY: `cb` bytes at `chunk`.
            let bytes = unsafe { std::slice::from_raw_parts(chunk, cb as usize) }.to_vec();
            if needs_free {
                // SAFETY: malloc'ed by the library for us.
                unsafe { libc::free(chunk.cast::<c_void>()) };
            }
            let special = (bytes[31] >> 4) & 7;
            if bytes[2] & 0x2 == 0 && special == 0 {
                check(header_of(&bytes) == header_want(h), || {
                    format!("chunk {i} header {:?}, want {:?}", header_of(&bytes), header_want(h))
                })?;
            }
        }
        Ok(())
    })();
    // SAFETY: ours.
    unsafe { blosc2_schunk_free(sc) };
    r?;
    // Our own read of it gives the input (lossless) or the reference's
    // output (lossy).
    let a = open_array(&path)?;
    let all = array_bytes(a);
    // SAFETY: ours.
    unsafe { b2nd_free(a) };
    let all = all?;
    let want = if e["lossy"] == true {
        e["sha256"].as_str().unwrap_or("").to_string()
    } else {
        e["input_sha256"].as_str().unwrap_or("").to_string()
    };
    check(sha256(&all) == want, || "our read of our frame differs".into())?;
    Ok(path)
}

/// Whether a refusal entry's control belongs to one of the `pending`
/// groups.
pub fn control_pending(e: &Value, pending: &[&str]) -> bool {
    let control = e["control"].as_str().unwrap_or("");
    let Some(c) = entry(control) else { return false };
    pending.contains(&group_of(&c))
}

/// A `write-error` entry: refused, and its control written.
pub fn write_error(e: &Value, dir: &Path) -> Result<(), String> {
    let refused = match e["target"].as_str() {
        Some("chunk") => compress_with(cparams_of(e), &input(e)).is_err(),
        _ => create_b2nd(e, &dir.join(format!("{}.b2nd", e["id"].as_str().unwrap_or("x")))).is_err(),
    };
    check(refused, || "not refused".into())?;
    let control = entry(e["control"].as_str().unwrap_or("")).ok_or("no control entry")?;
    match control["kind"].as_str() {
        Some("chunk") => write_chunk(&control).map(|_| ()),
        _ => write_b2nd(&control, dir).map(|_| ()),
    }
}
