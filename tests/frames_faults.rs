//! "Nothing lost": a failure at any point of an edit of a disk frame (a
//! failing write, a torn write, the process stopping) leaves a frame that
//! opens and holds either the state before the edit or the one after it.

mod frames_common;

use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use blosc2::engine::frame::io::{FrameFile, FrameFs, StdFs};
use blosc2::engine::params::CParams;
use blosc2::engine::schunk::{SChunk, Storage};
use blosc2::{Error, Result};
use frames_common::*;

#[derive(Clone, Copy, Debug, PartialEq)]
enum Mode {
    /// The k-th mutating call fails having done nothing.
    Fail,
    /// The k-th write writes its first half, then fails (writes of up to
    /// 512 bytes at the start of the file are sector-atomic: nothing).
    Torn,
    /// The process stops: the k-th and every later mutating call fail.
    Crash,
}

#[derive(Debug)]
struct State {
    calls: usize,
    fail_at: usize,
    mode: Mode,
    bytes_read: u64,
    /// Whether the backend offers atomic renames (as the file system does;
    /// callback and mmap backends do not).
    renames: bool,
}

impl State {
    /// Whether this mutating call must fail.
    fn hit(&mut self) -> bool {
        let k = self.calls;
        self.calls += 1;
        k == self.fail_at || (self.mode == Mode::Crash && k > self.fail_at)
    }
}

#[derive(Clone)]
struct FaultyFs(Arc<Mutex<State>>);

struct FaultyFile {
    inner: Box<dyn FrameFile>,
    st: Arc<Mutex<State>>,
}

impl FaultyFs {
    fn new(fail_at: usize, mode: Mode) -> FaultyFs {
        FaultyFs::with_renames(fail_at, mode, true)
    }
    fn with_renames(fail_at: usize, mode: Mode, renames: bool) -> FaultyFs {
        FaultyFs(Arc::new(Mutex::new(State {
            calls: 0,
            fail_at,
            mode,
            bytes_read: 0,
            renames,
        })))
    }
    fn calls(&self) -> usize {
        self.0.lock().unwrap().calls
    }
    fn hit(&self) -> bool {
        self.0.lock().unwrap().hit()
    }
}

impl FrameFile for FaultyFile {
    fn size(&mut self) -> Result<u64> {
        self.inner.size()
    }
    fn read_at(&mut self, pos: u64, buf: &mut [u8]) -> Result<()> {
        self.st.lock().unwrap().bytes_read += buf.len() as u64;
        self.inner.read_at(pos, buf)
    }
    fn write_at(&mut self, pos: u64, data: &[u8]) -> Result<()> {
        let (hit, mode) = {
            let mut st = self.st.lock().unwrap();
            (st.hit(), st.mode)
        };
        if !hit {
            return self.inner.write_at(pos, data);
        }
        if mode == Mode::Torn && !(pos == 0 && data.len() <= 512) {
            self.inner.write_at(pos, &data[..data.len() / 2])?;
        }
        Err(Error::FileWrite)
    }
    fn truncate(&mut self, len: u64) -> Result<()> {
        if self.st.lock().unwrap().hit() {
            return Err(Error::FileTruncate);
        }
        self.inner.truncate(len)
    }
    fn sync(&mut self) -> Result<()> {
        if self.st.lock().unwrap().hit() {
            return Err(Error::FileWrite);
        }
        self.inner.sync()
    }
}

impl FrameFs for FaultyFs {
    fn open(&self, path: &Path, write: bool) -> Result<Box<dyn FrameFile>> {
        Ok(Box::new(FaultyFile {
            inner: StdFs.open(path, write)?,
            st: self.0.clone(),
        }))
    }
    fn create(&self, path: &Path) -> Result<Box<dyn FrameFile>> {
        if self.hit() {
            return Err(Error::FileOpen);
        }
        Ok(Box::new(FaultyFile {
            inner: StdFs.create(path)?,
            st: self.0.clone(),
        }))
    }
    fn rename(&self, from: &Path, to: &Path) -> Result<()> {
        if self.hit() {
            return Err(Error::FileWrite);
        }
        StdFs.rename(from, to)
    }
    fn remove_file(&self, path: &Path) -> Result<()> {
        if self.hit() {
            return Err(Error::FileRemove);
        }
        StdFs.remove_file(path)
    }
    fn create_dir(&self, path: &Path) -> Result<()> {
        if self.hit() {
            return Err(Error::FileOpen);
        }
        StdFs.create_dir(path)
    }
    fn stat(&self, path: &Path) -> Option<bool> {
        StdFs.stat(path)
    }
    fn sync_dir(&self, path: &Path) -> Result<()> {
        StdFs.sync_dir(path)
    }
    fn renames_atomically(&self) -> bool {
        self.0.lock().unwrap().renames
    }
}

fn cparams() -> CParams {
    CParams {
        compcode: 1,
        clevel: 5,
        typesize: 4,
        filters: [0, 0, 0, 0, 0, 1],
        ..CParams::default()
    }
}

fn buf(k: usize, len: usize) -> Vec<u8> {
    (0..len).map(|i| ((i / 5 + k * 17) % 253) as u8).collect()
}

type Snapshot = (Vec<Vec<u8>>, Vec<String>, Vec<Vec<u8>>);

/// Everything a reader sees: chunks, vlmeta names, metalayer contents.
fn snapshot(path: &str) -> Result<Snapshot> {
    let mut s = SChunk::open(path, 0)?;
    let (chunks, metas, vl) = decode_all(&mut s)?;
    let _ = vl;
    Ok((chunks, s.vlmeta_names(), metas.into_iter().map(|(_, c)| c).collect()))
}

fn copy_dir(from: &Path, to: &Path) {
    let _ = std::fs::remove_dir_all(to);
    std::fs::create_dir_all(to).unwrap();
    for e in std::fs::read_dir(from).unwrap() {
        let e = e.unwrap();
        std::fs::copy(e.path(), to.join(e.file_name())).unwrap();
    }
}

/// A frame with a metalayer, five chunks (one special, a deleted one's
/// bytes after the first) and a vlmetalayer.
fn base(path: &Path, contiguous: bool) {
    let st = Storage {
        contiguous,
        urlpath: Some(path.to_str().unwrap().into()),
        cparams: cparams(),
        ..Storage::default()
    };
    let mut s = SChunk::new(st).unwrap();
    s.meta_add("meta", b"0123456789").unwrap();
    for k in 0..4 {
        s.append_buffer(&buf(k, 6000)).unwrap();
        if k == 0 {
            // Deleted below: dead bytes after the first chunk, for
            // "compact" to reclaim.
            s.append_buffer(&buf(50, 6000)).unwrap();
        }
    }
    s.delete_chunk(1).unwrap();
    s.append_buffer(&[0u8; 6000]).unwrap();
    s.vlmeta_add("vl", b"first", None).unwrap();
}

type Op = fn(&mut SChunk) -> Result<()>;

fn ops() -> Vec<(&'static str, Op)> {
    let cp = cparams();
    let _ = cp;
    vec![
        ("append", |s| s.append_buffer(&buf(7, 6000)).map(drop)),
        ("update", |s| {
            let c = blosc2::engine::context::compress_vec(&cparams(), &buf(8, 6000))?;
            s.update_chunk(1, &c).map(drop)
        }),
        ("update larger", |s| {
            let stored = CParams { clevel: 0, ..cparams() };
            let c = blosc2::engine::context::compress_vec(&stored, &buf(11, 6000))?;
            s.update_chunk(0, &c).map(drop)
        }),
        ("update smaller", |s| {
            let c = blosc2::engine::context::compress_vec(&cparams(), &[7u8; 6000][..])?;
            s.update_chunk(2, &c).map(drop)
        }),
        ("update to special", |s| {
            let c = blosc2::engine::context::compress_vec(&cparams(), &[0u8; 6000][..])?;
            s.update_chunk(1, &c).map(drop)
        }),
        ("update special", |s| {
            let c = blosc2::engine::context::compress_vec(&cparams(), &buf(9, 6000))?;
            s.update_chunk(4, &c).map(drop)
        }),
        ("insert", |s| {
            let c = blosc2::engine::context::compress_vec(&cparams(), &buf(10, 6000))?;
            s.insert_chunk(0, &c).map(drop)
        }),
        ("delete", |s| s.delete_chunk(2).map(drop)),
        ("reorder", |s| s.reorder_offsets(&[4, 3, 2, 1, 0])),
        ("vlmeta update", |s| {
            s.vlmeta_update("vl", b"second, longer content", None).map(drop)
        }),
        ("vlmeta add", |s| s.vlmeta_add("vl2", b"more", None).map(drop)),
        ("vlmeta delete", |s| s.vlmeta_delete("vl").map(drop)),
        ("meta update", |s| s.meta_update("meta", b"abcdefghij").map(drop)),
        ("compact", |s| s.compact()),
    ]
}

fn run(contiguous: bool) {
    let checked = run_ops(contiguous, true, base, ops());
    assert!(checked > 40, "only {checked} failure points");
}

/// Every op of `ops` on the frame `make` builds, failing at each call in
/// turn, through a backend with or without atomic renames.
fn run_ops(contiguous: bool, renames: bool, make: fn(&Path, bool), ops: Vec<(&'static str, Op)>) -> usize {
    let first = ops.first().map_or("none", |o| o.0).replace(' ', "_");
    let dir = scratch(&format!("faults_{contiguous}_{renames}_{first}"));
    let base_path = dir.join("base.b2frame");
    make(&base_path, contiguous);
    let work: PathBuf = dir.join("work.b2frame");
    let w = work.to_str().unwrap().to_string();
    let reset = || {
        if contiguous {
            std::fs::copy(&base_path, &work).unwrap();
        } else {
            copy_dir(&base_path, &work);
        }
    };
    let mut checked = 0;
    for (name, op) in ops {
        reset();
        let before = snapshot(&w).unwrap();
        let mut s = SChunk::open(&w, 0).unwrap();
        op(&mut s).unwrap_or_else(|e| panic!("{name}: {e}"));
        let after = snapshot(&w).unwrap();
        for mode in [Mode::Fail, Mode::Torn, Mode::Crash] {
            for k in 0.. {
                reset();
                let fs = FaultyFs::with_renames(k, mode, renames);
                let mut s = SChunk::open_with(&w, 0, Arc::new(fs.clone())).unwrap();
                let r = op(&mut s);
                let got = snapshot(&w).unwrap_or_else(|e| panic!("{name} {mode:?} at call {k}: unreadable: {e}"));
                if r.is_ok() {
                    // Either no call failed (all failure points are done),
                    // or a best-effort cleanup after the commit did.
                    assert_eq!(got, after, "{name} {mode:?} at call {k}: success but wrong state");
                    if fs.calls() <= k {
                        break;
                    }
                    continue;
                }
                assert!(
                    got == before || got == after,
                    "{name} {mode:?} at call {k}: neither the old nor the new state"
                );
                // The frame stays editable after a failure.
                let mut again = SChunk::open(&w, 0).unwrap();
                again.append_buffer(&buf(99, 6000)).unwrap();
                let mut expect = snapshot(&w).unwrap().0;
                expect.pop();
                assert_eq!(expect, got.0, "{name} {mode:?} at call {k}: append after failure");
                checked += 1;
                assert!(k < 100, "{name}: too many calls");
            }
        }
    }
    assert!(checked > 0, "no failure points");
    checked
}

#[test]
fn failures_in_contiguous_file_frames_lose_nothing() {
    // Without syncs (the default) and with them, which adds failure
    // points between the writes.
    blosc2::engine::frame::set_durable_commits(false);
    run(true);
    blosc2::engine::frame::set_durable_commits(true);
    run(true);
}

/// Through a backend without renames (as user callbacks and mmap), every
/// edit, compaction included, goes in place: nothing lost either.
#[test]
fn failures_through_backends_without_renames_lose_nothing() {
    for durable in [false, true] {
        blosc2::engine::frame::set_durable_commits(durable);
        let checked = run_ops(true, false, base, ops());
        assert!(checked > 40, "only {checked} failure points");
    }
}

/// Compaction through a backend without renames packs the chunks in
/// place: the deleted chunk's bytes are gone, the data is the same.
#[test]
fn compaction_in_place_reclaims_deleted_chunks() {
    let dir = scratch("compact_in_place");
    let p = dir.join("c.b2frame");
    base(&p, true);
    let w = p.to_str().unwrap();
    let before = std::fs::metadata(&p).unwrap().len();
    let want = snapshot(w).unwrap();
    let fs = FaultyFs::with_renames(usize::MAX, Mode::Fail, false);
    let mut s = SChunk::open_with(w, 0, Arc::new(fs)).unwrap();
    s.compact().unwrap();
    let after = std::fs::metadata(&p).unwrap().len();
    assert!(after < before, "{after} >= {before}");
    assert_eq!(after as i64, s.frame_len());
    assert_eq!(snapshot(w).unwrap(), want);
}

/// A frame with one chunk and a vlmetalayer.
fn single_chunk(path: &Path, contiguous: bool) {
    let st = Storage {
        contiguous,
        urlpath: Some(path.to_str().unwrap().into()),
        cparams: cparams(),
        ..Storage::default()
    };
    let mut s = SChunk::new(st).unwrap();
    s.append_buffer(&buf(3, 6000)).unwrap();
    s.vlmeta_add("vl", b"kept", None).unwrap();
}

/// Deleting the last chunk leaves header and trailer only, in place
/// through any backend: nothing lost at any failure.
#[test]
fn failures_emptying_a_frame_lose_nothing() {
    let ops: Vec<(&'static str, Op)> = vec![("delete the last chunk", |s| s.delete_chunk(0).map(drop))];
    run_ops(true, true, single_chunk, ops.clone());
    run_ops(true, false, single_chunk, ops);
}

#[test]
fn failures_in_sparse_frames_lose_nothing() {
    run(false);
}

/// A slice of a large chunk on disk reads far less than the chunk.
#[test]
fn partial_reads_read_only_needed_blocks() {
    let dir = scratch("partial");
    let p = dir.join("big.b2frame");
    let ps = p.to_str().unwrap();
    let cp = CParams {
        blocksize: 8192,
        ..cparams()
    };
    let mut s = SChunk::new(Storage {
        contiguous: true,
        urlpath: Some(ps.into()),
        cparams: cp,
        ..Storage::default()
    })
    .unwrap();
    let data: Vec<u8> = (0..500_000u32)
        .flat_map(|i| (i.wrapping_mul(2654435761) >> 9).to_le_bytes())
        .collect();
    s.append_buffer(&data).unwrap();
    let cbytes = s.cbytes() as u64;
    let fs = FaultyFs::new(usize::MAX, Mode::Fail);
    let mut r = SChunk::open_with(ps, 0, Arc::new(fs.clone())).unwrap();
    let before = fs.0.lock().unwrap().bytes_read;
    let mut out = vec![0u8; 16];
    r.get_slice_buffer(250_000, 250_004, &mut out).unwrap();
    assert_eq!(out, data[1_000_000..1_000_016]);
    let read = fs.0.lock().unwrap().bytes_read - before;
    assert!(read * 10 < cbytes, "read {read} bytes of a {cbytes}-byte chunk");
}
