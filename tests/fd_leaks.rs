//! File handles on error paths: opening corrupt and truncated frames
//! (files and sparse directories), creating frames where nothing can be
//! written, and appends whose writes fail must all leave the number of
//! open descriptors (`/proc/self/fd`) where it was, through the engine
//! and through the C API.

use std::ffi::CString;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicI64, Ordering};
use std::sync::{Arc, Mutex};

use blosc2::capi::global::blosc2_init;
use blosc2::capi::schunk::{blosc2_schunk_decompress_chunk, blosc2_schunk_free, blosc2_schunk_new};
use blosc2::capi::schunk_frame::{blosc2_schunk_open, blosc2_schunk_to_file};
use blosc2::capi::types_schunk::blosc2_storage;
use blosc2::engine::constants::codec;
use blosc2::engine::frame::io::{self, FrameFile, FrameFs};
use blosc2::engine::params::CParams;
use blosc2::engine::schunk::{SChunk, Storage};
use blosc2::{Error, Result};

/// The tests count the descriptors of the whole process: one at a time,
/// each holding this for its whole body (setup and cleanup open files too).
static SERIAL: Mutex<()> = Mutex::new(());

fn serial() -> std::sync::MutexGuard<'static, ()> {
    SERIAL.lock().unwrap_or_else(|e| e.into_inner())
}

fn open_fds() -> usize {
    std::fs::read_dir("/proc/self/fd").expect("/proc/self/fd").count()
}

/// Run `f` and check that it leaves no descriptor open (call with
/// [`serial`] held).
fn no_fd_leak(what: &str, f: impl FnOnce()) {
    let before = open_fds();
    f();
    assert_eq!(open_fds(), before, "{what}: descriptors leaked");
}

fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("blosc2-fd-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("scratch dir");
    dir
}

fn storage(path: Option<&Path>, contiguous: bool) -> Storage {
    Storage {
        contiguous,
        urlpath: path.map(|p| p.to_str().expect("UTF-8").to_string()),
        cparams: CParams {
            compcode: codec::ZSTD,
            typesize: 4,
            ..CParams::default()
        },
        ..Storage::default()
    }
}

fn chunk_data(k: usize) -> Vec<u8> {
    (0..4000u32)
        .flat_map(|i| (i / 3 + k as u32 * 1000).to_le_bytes())
        .collect()
}

/// A frame with 3 chunks, a metalayer and a vlmetalayer at `path`.
fn write_frame(path: &Path, contiguous: bool) {
    let mut sc = SChunk::new(storage(Some(path), contiguous)).expect("create");
    sc.meta_add("m", b"meta").expect("meta");
    for k in 0..3 {
        sc.append_buffer(&chunk_data(k)).expect("append");
    }
    sc.vlmeta_add("v", b"vlmeta", None).expect("vlmeta");
}

/// Open `path` through the engine and the C API and read every chunk;
/// errors are expected, leaks and crashes are not.
fn open_and_read(path: &Path) {
    if let Ok(mut sc) = SChunk::open(path.to_str().expect("UTF-8"), 0) {
        let mut buf = vec![0u8; 16000];
        for k in 0..sc.nchunks().min(8) {
            let _ = sc.decompress_chunk(k, &mut buf);
        }
    }
    let c = CString::new(path.to_str().expect("UTF-8")).expect("no NUL");
    // SAFETY: a valid C string; the handle, if any, is freed once.
    unsafe {
        let sc = blosc2_schunk_open(c.as_ptr());
        if !sc.is_null() {
            let mut buf = vec![0u8; 16000];
            for k in 0..(*sc).nchunks.min(8) {
                blosc2_schunk_decompress_chunk(sc, k, buf.as_mut_ptr().cast(), buf.len() as i32);
            }
            blosc2_schunk_free(sc);
        }
    }
}

#[test]
fn truncated_and_corrupt_frame_files() {
    let _serial = serial();
    blosc2_init();
    let dir = scratch("corrupt");
    let good = dir.join("good.b2frame");
    write_frame(&good, true);
    let bytes = std::fs::read(&good).expect("frame bytes");
    let bad = dir.join("bad.b2frame");
    let mut variants: Vec<Vec<u8>> = Vec::new();
    for cut in [
        0,
        1,
        10,
        50,
        86,
        87,
        120,
        bytes.len() / 2,
        bytes.len() - 40,
        bytes.len() - 1,
    ] {
        variants.push(bytes[..cut].to_vec());
    }
    for pos in (0..bytes.len())
        .step_by(bytes.len() / 40 + 1)
        .chain([bytes.len() - 8, bytes.len() - 20])
    {
        let mut v = bytes.clone();
        v[pos] ^= 0xFF;
        variants.push(v);
    }
    variants.push(vec![0xFF; 4096]);
    no_fd_leak("truncated and corrupt frames", || {
        for v in &variants {
            std::fs::write(&bad, v).expect("write variant");
            open_and_read(&bad);
        }
        open_and_read(&dir.join("missing.b2frame"));
        open_and_read(&dir); // a directory that is not a sparse frame
    });
    std::fs::remove_dir_all(&dir).expect("cleanup");
}

#[test]
fn damaged_sparse_frames() {
    let _serial = serial();
    blosc2_init();
    let dir = scratch("sparse");
    let frame = dir.join("s.b2frame");
    no_fd_leak("damaged sparse frames", || {
        write_frame(&frame, false);
        let index = io::sframe_index_path(&frame);
        let chunk1 = io::sframe_chunk_path(&frame, 1).expect("chunk path");
        // A missing chunk file.
        std::fs::remove_file(&chunk1).expect("remove chunk 1");
        open_and_read(&frame);
        // A truncated chunk file.
        std::fs::write(&chunk1, b"\x05\x01\x07").expect("short chunk");
        open_and_read(&frame);
        // A truncated, then a missing index.
        let idx = std::fs::read(&index).expect("index");
        std::fs::write(&index, &idx[..idx.len() / 2]).expect("truncate index");
        open_and_read(&frame);
        std::fs::remove_file(&index).expect("remove index");
        open_and_read(&frame);
    });
    std::fs::remove_dir_all(&dir).expect("cleanup");
}

#[test]
fn frames_where_nothing_can_be_written() {
    let _serial = serial();
    blosc2_init();
    let dir = scratch("unwritable");
    let file = dir.join("plain-file");
    std::fs::write(&file, b"x").expect("plain file");
    // Root ignores permission bits, so "unwritable" means a missing parent
    // directory or a parent that is a regular file.
    let places = [
        dir.join("missing-dir").join("f.b2frame"),
        file.join("f.b2frame"),
        file.clone(), // exists already
    ];
    no_fd_leak("unwritable places", || {
        for p in &places {
            for contiguous in [true, false] {
                assert!(SChunk::new(storage(Some(p), contiguous)).is_err(), "{}", p.display());
                let c = CString::new(p.to_str().expect("UTF-8")).expect("no NUL");
                let mut st = blosc2_storage {
                    contiguous,
                    urlpath: c.as_ptr() as *mut _,
                    cparams: std::ptr::null_mut(),
                    dparams: std::ptr::null_mut(),
                    io: std::ptr::null_mut(),
                };
                // SAFETY: a valid storage whose strings outlive the call.
                let sc = unsafe { blosc2_schunk_new(&mut st) };
                assert!(sc.is_null(), "{}", p.display());
            }
            // Saving an in-memory super-chunk there fails too.
            let mut sc = SChunk::new(storage(None, true)).expect("memory");
            sc.append_buffer(&chunk_data(0)).expect("append");
            assert!(sc.to_file(p.to_str().expect("UTF-8")).is_err() || p == &file);
            let mut st = blosc2_storage {
                contiguous: true,
                urlpath: std::ptr::null_mut(),
                cparams: std::ptr::null_mut(),
                dparams: std::ptr::null_mut(),
                io: std::ptr::null_mut(),
            };
            let c = CString::new(p.to_str().expect("UTF-8")).expect("no NUL");
            // SAFETY: valid arguments; the handle is freed once.
            unsafe {
                let sc = blosc2_schunk_new(&mut st);
                assert!(!sc.is_null());
                let rc = blosc2_schunk_to_file(sc, c.as_ptr());
                assert!(rc < 0 || p == &file, "to_file {}: {rc}", p.display());
                blosc2_schunk_free(sc);
            }
        }
    });
    std::fs::remove_dir_all(&dir).expect("cleanup");
}

/// The real file system, except that every write after the first
/// `writes_left` ones fails (as on a full disk).
struct FailingWrites {
    writes_left: Arc<AtomicI64>,
}

struct FailingFile {
    inner: Box<dyn FrameFile>,
    writes_left: Arc<AtomicI64>,
}

impl FrameFile for FailingFile {
    fn size(&mut self) -> Result<u64> {
        self.inner.size()
    }
    fn read_at(&mut self, pos: u64, buf: &mut [u8]) -> Result<()> {
        self.inner.read_at(pos, buf)
    }
    fn write_at(&mut self, pos: u64, data: &[u8]) -> Result<()> {
        if self.writes_left.fetch_sub(1, Ordering::SeqCst) <= 0 {
            return Err(Error::FileWrite);
        }
        self.inner.write_at(pos, data)
    }
    fn truncate(&mut self, len: u64) -> Result<()> {
        self.inner.truncate(len)
    }
    fn sync(&mut self) -> Result<()> {
        self.inner.sync()
    }
}

impl FrameFs for FailingWrites {
    fn open(&self, path: &Path, write: bool) -> Result<Box<dyn FrameFile>> {
        let inner = io::std_fs().open(path, write)?;
        Ok(Box::new(FailingFile {
            inner,
            writes_left: self.writes_left.clone(),
        }))
    }
    fn create(&self, path: &Path) -> Result<Box<dyn FrameFile>> {
        let inner = io::std_fs().create(path)?;
        Ok(Box::new(FailingFile {
            inner,
            writes_left: self.writes_left.clone(),
        }))
    }
    fn rename(&self, from: &Path, to: &Path) -> Result<()> {
        io::std_fs().rename(from, to)
    }
    fn remove_file(&self, path: &Path) -> Result<()> {
        io::std_fs().remove_file(path)
    }
    fn create_dir(&self, path: &Path) -> Result<()> {
        io::std_fs().create_dir(path)
    }
    fn stat(&self, path: &Path) -> Option<bool> {
        io::std_fs().stat(path)
    }
    fn sync_dir(&self, path: &Path) -> Result<()> {
        io::std_fs().sync_dir(path)
    }
}

#[test]
fn appends_whose_writes_fail() {
    let _serial = serial();
    let dir = scratch("append");
    no_fd_leak("failing appends", || {
        for contiguous in [true, false] {
            for allowed in 0..6 {
                let path = dir.join(format!("f-{contiguous}-{allowed}.b2frame"));
                write_frame(&path, contiguous);
                let writes_left = Arc::new(AtomicI64::new(allowed));
                let fs: Arc<dyn FrameFs> = Arc::new(FailingWrites {
                    writes_left: writes_left.clone(),
                });
                let urlpath = path.to_str().expect("UTF-8");
                let mut sc = SChunk::open_with(urlpath, 0, fs).expect("open");
                let mut failed = false;
                for k in 3..8 {
                    if sc.append_buffer(&chunk_data(k)).is_err() {
                        failed = true;
                        break;
                    }
                }
                assert!(failed || allowed >= 5, "no append failed with {allowed} writes allowed");
                drop(sc);
                // What was committed reads back whole.
                let mut back = SChunk::open(urlpath, 0).expect("reopen after a failed append");
                let mut buf = vec![0u8; 16000];
                for k in 0..back.nchunks() {
                    back.decompress_chunk(k, &mut buf).expect("committed chunk");
                    assert!(buf == chunk_data(k as usize), "chunk {k}");
                }
            }
        }
    });
    std::fs::remove_dir_all(&dir).expect("cleanup");
}
