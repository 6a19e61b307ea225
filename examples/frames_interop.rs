//! Frames interop writer: builds super-chunks on every storage with this
//! library, following scripted operations, and writes them (plus the
//! frames left behind by edits that failed at every possible point) to a
//! directory with a `frames.json` manifest. `.ci/frames_interop.py` then
//! checks that C-Blosc2 3.3.5 (python-blosc2) reads every one of them, and
//! replays the scripts with the reference to compare bytes.
//!
//! ```text
//! cargo run --example frames_interop -- OUTDIR
//! cargo run --example frames_interop -- --check OUTDIR/checks.json
//! ```
//!
//! `--check FILE` reads a list of `{path, offset, chunks}` written by the
//! Python side (frames the reference edited) and verifies we read them.

use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::{Arc, Mutex};

use blosc2::engine::chunk::{make_special, SpecialKind};
use blosc2::engine::frame::io::{FrameFile, FrameFs, StdFs};
use blosc2::engine::params::{CParams, DParams};
use blosc2::engine::schunk::{SChunk, Storage};
use blosc2::{Error, Result};
use serde_json::{json, Value};
use sha2::{Digest, Sha256};

/// The data of op `k`: the same formula as in `.ci/frames_interop.py`.
fn gen(k: u64, len: u64) -> Vec<u8> {
    (0..len).map(|i| ((i / 7 + k * 31) % 251) as u8).collect()
}

fn hex(b: &[u8]) -> String {
    b.iter().map(|x| format!("{x:02x}")).collect()
}

fn sha(b: &[u8]) -> String {
    hex(&Sha256::digest(b))
}

/// msgpack of a short string (what python-blosc2 stores for a str value).
fn packstr(s: &str) -> Vec<u8> {
    let mut v = vec![0xA0 + s.len() as u8];
    v.extend_from_slice(s.as_bytes());
    v
}

fn cparams_of(c: &Value) -> CParams {
    let filters: Vec<u8> = c["filters"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v.as_u64().unwrap() as u8)
        .collect();
    let mut f = [0u8; 6];
    f.copy_from_slice(&filters);
    CParams {
        compcode: c["codec"].as_u64().unwrap() as u8,
        clevel: c["clevel"].as_u64().unwrap() as u8,
        typesize: c["typesize"].as_i64().unwrap() as i32,
        filters: f,
        blocksize: c["blocksize"].as_i64().unwrap_or(0) as i32,
        splitmode: 3,
        nthreads: 1,
        ..CParams::default()
    }
}

/// python-blosc2's vlmeta compression parameters.
fn vlmeta_cparams() -> CParams {
    CParams {
        compcode: 5,
        clevel: 5,
        typesize: 1,
        splitmode: 3,
        nthreads: 1,
        ..CParams::default()
    }
}

fn special(name: &str) -> SpecialKind {
    match name {
        "zero" => SpecialKind::Zeros,
        "nan" => SpecialKind::Nans,
        _ => SpecialKind::Uninit,
    }
}

fn apply(s: &mut SChunk, op: &Value) -> Result<()> {
    let g = |k: &str| op[k].as_u64().unwrap_or(0);
    match op["op"].as_str().unwrap() {
        "append" => s.append_buffer(&gen(g("k"), g("len"))).map(drop),
        "insert" => s.insert_buffer(g("n") as i64, &gen(g("k"), g("len"))).map(drop),
        "update" => s.update_buffer(g("n") as i64, &gen(g("k"), g("len"))).map(drop),
        "delete" => s.delete_chunk(g("n") as i64).map(drop),
        "reorder" => {
            let order: Vec<i64> = op["order"]
                .as_array()
                .unwrap()
                .iter()
                .map(|v| v.as_i64().unwrap())
                .collect();
            s.reorder_offsets(&order)
        }
        "vlmeta" => s
            .vlmeta_add(
                op["name"].as_str().unwrap(),
                &packstr(op["value"].as_str().unwrap()),
                Some(&vlmeta_cparams()),
            )
            .map(drop),
        "vlmeta_update" => s
            .vlmeta_update(
                op["name"].as_str().unwrap(),
                &packstr(op["value"].as_str().unwrap()),
                Some(&vlmeta_cparams()),
            )
            .map(drop),
        "vlmeta_delete" => s.vlmeta_delete(op["name"].as_str().unwrap()).map(drop),
        "update_special" => {
            let n = g("n") as i64;
            let nbytes = s.chunk_nbytes(n)?;
            let mut out = vec![0u8; 64];
            let len = make_special(
                &s.cparams(),
                nbytes,
                Some(special(op["special"].as_str().unwrap())),
                None,
                &mut out,
            )?;
            s.update_chunk(n, &out[..len]).map(drop)
        }
        "fill_special" => s
            .fill_special(
                g("nitems") as i64,
                special(op["special"].as_str().unwrap()),
                g("chunksize") as i32,
            )
            .map(drop),
        other => panic!("unknown op {other}"),
    }
}

/// Everything a reader must see.
fn describe(s: &mut SChunk) -> Result<Value> {
    let mut chunks = Vec::new();
    for i in 0..s.nchunks() {
        let c = s.decompress_chunk_vec(i)?;
        let uninit = s.special_kind(i) == Some(SpecialKind::Uninit);
        chunks.push(json!({"nbytes": c.len(), "sha256": if uninit { Value::Null } else { json!(sha(&c)) }}));
    }
    let metas: serde_json::Map<String, Value> =
        s.metalayers().iter().map(|(n, c)| (n.clone(), json!(hex(c)))).collect();
    let mut vl = serde_json::Map::new();
    for n in s.vlmeta_names() {
        vl.insert(n.clone(), json!(hex(&s.vlmeta_get(&n)?)));
    }
    Ok(json!({"chunks": chunks, "metas": metas, "vlmetas": vl}))
}

fn scenarios() -> Vec<Value> {
    let zstd = json!({"codec": 5, "clevel": 5, "typesize": 4, "filters": [0, 0, 0, 0, 0, 1]});
    let lz4 = json!({"codec": 1, "clevel": 9, "typesize": 8, "filters": [0, 0, 0, 0, 0, 2]});
    let appends = |n: u64, len: u64| {
        (0..n)
            .map(|k| json!({"op": "append", "k": k, "len": len}))
            .collect::<Vec<_>>()
    };
    let mut edited = appends(6, 20000);
    edited.extend([
        json!({"op": "insert", "n": 2, "k": 10, "len": 20000}),
        json!({"op": "update", "n": 0, "k": 11, "len": 20000}),
        json!({"op": "delete", "n": 4}),
        json!({"op": "update_special", "n": 1, "special": "zero"}),
        json!({"op": "update", "n": 3, "k": 12, "len": 20000}),
        json!({"op": "reorder", "order": [5, 4, 3, 2, 1, 0]}),
        json!({"op": "vlmeta", "name": "info", "value": "written by the Rust engine"}),
        json!({"op": "vlmeta", "name": "second", "value": "x"}),
        json!({"op": "vlmeta_update", "name": "info", "value": "updated"}),
        json!({"op": "vlmeta_delete", "name": "second"}),
        json!({"op": "append", "k": 13, "len": 7000}),
    ]);
    let mut variable = appends(2, 16000);
    variable.extend([
        json!({"op": "append", "k": 3, "len": 4000}),
        json!({"op": "append", "k": 4, "len": 40000}),
    ]);
    let fill = vec![json!({"op": "fill_special", "nitems": 5000, "special": "zero", "chunksize": 4000})];
    let fill_nan = vec![json!({"op": "fill_special", "nitems": 999, "special": "nan", "chunksize": 800})];
    let mut out = Vec::new();
    for storage in ["memory", "chunks", "file", "sparse"] {
        let c = |name: &str, cp: &Value, ops: &Vec<Value>, metas: Value| json!({"name": format!("{storage}_{name}"), "storage": storage, "cparams": cp, "ops": ops, "metas": metas});
        out.push(c("appends", &zstd, &appends(4, 40000), json!({"m": "meta value"})));
        out.push(c("lz4", &lz4, &appends(3, 64000), json!({})));
        out.push(c("edited", &zstd, &edited, json!({"shape": "abc"})));
        out.push(c("variable", &zstd, &variable, json!({})));
        out.push(c(
            "fill_zero",
            &json!({"codec": 5, "clevel": 5, "typesize": 8, "filters": [0, 0, 0, 0, 0, 1]}),
            &fill,
            json!({}),
        ));
        out.push(c(
            "fill_nan",
            &json!({"codec": 5, "clevel": 5, "typesize": 8, "filters": [0, 0, 0, 0, 0, 1]}),
            &fill_nan,
            json!({}),
        ));
        out.push(c("empty", &zstd, &Vec::new(), json!({"m": "only a meta"})));
    }
    out
}

fn build(dir: &Path, sc: &Value, fs: Option<Arc<dyn FrameFs>>) -> Result<(SChunk, String)> {
    let name = sc["name"].as_str().unwrap();
    let storage = sc["storage"].as_str().unwrap();
    let rel = format!("{name}.b2frame");
    let path = dir.join(&rel);
    let urlpath = matches!(storage, "file" | "sparse").then(|| path.to_str().unwrap().to_string());
    let st = Storage {
        contiguous: matches!(storage, "memory" | "file"),
        urlpath,
        cparams: cparams_of(&sc["cparams"]),
        dparams: DParams {
            nthreads: 1,
            ..DParams::default()
        },
        fs,
    };
    let mut s = SChunk::new(st)?;
    for (k, v) in sc["metas"].as_object().unwrap() {
        s.meta_add(k, &packstr(v.as_str().unwrap()))?;
    }
    for op in sc["ops"].as_array().unwrap() {
        apply(&mut s, op)?;
    }
    if matches!(storage, "memory" | "chunks") {
        std::fs::write(&path, s.to_cframe()?).map_err(|_| Error::FileWrite)?;
    }
    Ok((s, rel))
}

/// A file system that stops working (as if the process died) at the
/// `fail_at`-th mutating call.
#[derive(Clone)]
struct CrashFs(Arc<Mutex<(usize, usize)>>);

impl CrashFs {
    fn hit(&self) -> bool {
        let mut g = self.0.lock().unwrap();
        g.0 += 1;
        g.0 > g.1
    }
}

struct CrashFile(Box<dyn FrameFile>, CrashFs);

impl FrameFile for CrashFile {
    fn size(&mut self) -> Result<u64> {
        self.0.size()
    }
    fn read_at(&mut self, pos: u64, buf: &mut [u8]) -> Result<()> {
        self.0.read_at(pos, buf)
    }
    fn write_at(&mut self, pos: u64, data: &[u8]) -> Result<()> {
        if self.1.hit() {
            // A torn write: half of it lands (sector-sized commits do not tear).
            if data.len() > 512 {
                self.0.write_at(pos, &data[..data.len() / 2])?;
            }
            return Err(Error::FileWrite);
        }
        self.0.write_at(pos, data)
    }
    fn truncate(&mut self, len: u64) -> Result<()> {
        if self.1.hit() {
            return Err(Error::FileTruncate);
        }
        self.0.truncate(len)
    }
    fn sync(&mut self) -> Result<()> {
        if self.1.hit() {
            return Err(Error::FileWrite);
        }
        self.0.sync()
    }
}

impl FrameFs for CrashFs {
    fn open(&self, p: &Path, w: bool) -> Result<Box<dyn FrameFile>> {
        Ok(Box::new(CrashFile(StdFs.open(p, w)?, self.clone())))
    }
    fn create(&self, p: &Path) -> Result<Box<dyn FrameFile>> {
        if self.hit() {
            return Err(Error::FileOpen);
        }
        Ok(Box::new(CrashFile(StdFs.create(p)?, self.clone())))
    }
    fn rename(&self, a: &Path, b: &Path) -> Result<()> {
        if self.hit() {
            return Err(Error::FileWrite);
        }
        StdFs.rename(a, b)
    }
    fn remove_file(&self, p: &Path) -> Result<()> {
        if self.hit() {
            return Err(Error::FileRemove);
        }
        StdFs.remove_file(p)
    }
    fn create_dir(&self, p: &Path) -> Result<()> {
        StdFs.create_dir(p)
    }
    fn stat(&self, p: &Path) -> Option<bool> {
        StdFs.stat(p)
    }
    fn sync_dir(&self, p: &Path) -> Result<()> {
        StdFs.sync_dir(p)
    }
}

/// Frames left behind by an append and an update that stopped at every
/// mutating call, each with the two acceptable states.
fn crashed(dir: &Path) -> Result<Vec<Value>> {
    let mut out = Vec::new();
    for storage in ["file", "sparse"] {
        let base = json!({"name": format!("crash_base_{storage}"), "storage": storage,
            "cparams": {"codec": 5, "clevel": 5, "typesize": 4, "filters": [0, 0, 0, 0, 0, 1]},
            "ops": (0..4).map(|k| json!({"op": "append", "k": k, "len": 10000})).collect::<Vec<_>>(), "metas": {}});
        let (mut s, rel) = build(dir, &base, None)?;
        let before = describe(&mut s)?;
        drop(s);
        for (opname, op) in [
            ("append", json!({"op": "append", "k": 50, "len": 10000})),
            ("update", json!({"op": "update", "n": 1, "k": 51, "len": 10000})),
        ] {
            for k in 0..64 {
                let name = format!("crash_{storage}_{opname}_{k}");
                let target = dir.join(format!("{name}.b2frame"));
                copy_path(&dir.join(&rel), &target);
                let fs = CrashFs(Arc::new(Mutex::new((0, k))));
                let mut s = SChunk::open_with(target.to_str().unwrap(), 0, Arc::new(fs.clone()))?;
                let r = apply(&mut s, &op);
                drop(s);
                let mut after_s = SChunk::open(target.to_str().unwrap(), 0)?;
                let now = describe(&mut after_s)?;
                out.push(json!({"name": name, "path": format!("{name}.b2frame"), "offset": 0, "expect": now, "alternatives": [before.clone()], "crashed": r.is_err()}));
                if r.is_ok() {
                    break;
                }
            }
        }
    }
    Ok(out)
}

fn copy_path(from: &Path, to: &Path) {
    if from.is_dir() {
        let _ = std::fs::remove_dir_all(to);
        std::fs::create_dir_all(to).unwrap();
        for e in std::fs::read_dir(from).unwrap() {
            let e = e.unwrap();
            std::fs::copy(e.path(), to.join(e.file_name())).unwrap();
        }
    } else {
        std::fs::copy(from, to).unwrap();
    }
}

fn write_all(dir: &Path) -> Result<()> {
    std::fs::create_dir_all(dir).map_err(|_| Error::FileWrite)?;
    let mut entries = Vec::new();
    for sc in scenarios() {
        let (mut s, rel) = build(dir, &sc, None)?;
        let mut e = sc.clone();
        e["path"] = json!(rel);
        e["offset"] = json!(0);
        e["expect"] = describe(&mut s)?;
        e["byte_identical"] = json!(match sc["storage"].as_str() {
            Some("memory") | Some("chunks") => true,
            // Appends to a file put the new bytes where 3.3.5 puts them in
            // memory (no dead bytes); replaced chunks stay as dead bytes.
            Some("file") => sc["ops"].as_array().is_some_and(|ops| {
                ops.iter().all(|op| {
                    !matches!(
                        op["op"].as_str(),
                        Some("update" | "insert" | "delete" | "reorder" | "update_special")
                    )
                })
            }),
            _ => false,
        });
        entries.push(e);
    }
    // A compacted copy of the edited file frame.
    let compacted = dir.join("file_edited_compacted.b2frame");
    copy_path(&dir.join("file_edited.b2frame"), &compacted);
    let mut c = SChunk::open(compacted.to_str().unwrap(), 0)?;
    c.compact()?;
    entries.push(json!({"name": "file_edited_compacted", "path": "file_edited_compacted.b2frame", "offset": 0, "expect": describe(&mut c)?}));
    // Two frames appended to one file, opened at their offsets.
    let multi = dir.join("multi.bin");
    std::fs::write(&multi, b"prefix bytes").map_err(|_| Error::FileWrite)?;
    for sc in scenarios().into_iter().filter(|s| s["storage"] == "memory").take(2) {
        let (mut s, _) = build(dir, &sc, None)?;
        let off = s.append_file(multi.to_str().unwrap())?;
        entries.push(json!({"name": format!("multi_{}", sc["name"].as_str().unwrap()), "path": "multi.bin", "offset": off, "expect": describe(&mut s)?}));
    }
    entries.extend(crashed(dir)?);
    let text = serde_json::to_string_pretty(&json!({"entries": entries})).map_err(|_| Error::FileWrite)?;
    std::fs::write(dir.join("frames.json"), text).map_err(|_| Error::FileWrite)
}

/// Verify frames the reference wrote or edited.
fn check(list: &Path) -> Result<usize> {
    let text = std::fs::read_to_string(list).map_err(|_| Error::FileRead)?;
    let v: Value = serde_json::from_str(&text).map_err(|_| Error::FileRead)?;
    let base = list.parent().unwrap_or(Path::new("."));
    let mut bad = 0;
    for e in v["entries"].as_array().unwrap() {
        let p: PathBuf = base.join(e["path"].as_str().unwrap());
        let got =
            SChunk::open(p.to_str().unwrap(), e["offset"].as_i64().unwrap_or(0)).and_then(|mut s| describe(&mut s));
        match got {
            Ok(d) if d["chunks"] == e["expect"]["chunks"] && d["vlmetas"] == e["expect"]["vlmetas"] => {}
            Ok(d) => {
                eprintln!("FAIL {}: read {d} expected {}", e["path"], e["expect"]);
                bad += 1;
            }
            Err(err) => {
                eprintln!("FAIL {}: {err}", e["path"]);
                bad += 1;
            }
        }
    }
    Ok(bad)
}

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let r = match args.as_slice() {
        [flag, list] if flag == "--check" => check(Path::new(list)).map(|bad| bad == 0),
        [dir] => write_all(Path::new(dir)).map(|_| true),
        _ => {
            eprintln!("usage: frames_interop OUTDIR | --check LIST.json");
            return ExitCode::from(2);
        }
    };
    match r {
        Ok(true) => ExitCode::SUCCESS,
        Ok(false) => ExitCode::FAILURE,
        Err(e) => {
            eprintln!("frames_interop: {e}");
            ExitCode::FAILURE
        }
    }
}
