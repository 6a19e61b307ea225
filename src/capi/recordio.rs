//! The C API of the recordio files (`include/blosc2/blosc2-recordio.h`):
//! writers and scanners as opaque handles, transformers registered from C,
//! and the error of the last failed call on the calling thread.
//!
//! Every function validates its arguments, converts them, calls
//! [`crate::recordio`] and maps its error to a `BLOSC2_ERROR_*` code. The
//! message (with the file offset, when known) is kept per thread for
//! `blosc2_recordio_last_error`. Buffers handed to C come from `malloc`.
//! These functions are not in `blosc2.h` (cbindgen skips this module).

#![allow(non_camel_case_types)]

use std::cell::RefCell;
use std::ffi::{c_char, c_int, c_void, CString};
use std::fs::File;
use std::io::{BufReader, BufWriter, Cursor, Read, Seek, SeekFrom, Write};
use std::sync::Arc;

use crate::recordio::{
    self, Error, ErrorKind, Format, ItemLocation, Scanner, ScannerOpts, TransformFn, Value, Writer, WriterOpts,
};

use super::alloc::MallocBuf;
use super::boundary::{
    bytes, c_str, ffi_boundary, put, ERR_DATA, ERR_FAILURE, ERR_INVALID_HEADER, ERR_INVALID_PARAM, ERR_NOT_FOUND,
    ERR_NULL_POINTER, ERR_READ_BUFFER, SUCCESS,
};

/// `BLOSC2_ERROR_FILE_READ`.
const ERR_FILE_READ: c_int = -13;
/// `BLOSC2_ERROR_FILE_WRITE`.
const ERR_FILE_WRITE: c_int = -14;
/// `BLOSC2_ERROR_FILE_OPEN`.
const ERR_FILE_OPEN: c_int = -15;
/// `BLOSC2_ERROR_FILTER_PIPELINE`: a transformer failed.
const ERR_FILTER_PIPELINE: c_int = -18;

/// Writer flag: add `trailer: true` to the header.
const KEY_TRAILER: c_int = 0x1;
/// Writer flag: write no header block.
const SKIP_HEADER: c_int = 0x2;
/// Scanner flag: skip corrupted blocks and report them.
const RECOVER: c_int = 0x1;

thread_local! {
    static LAST_ERROR: RefCell<(CString, i64)> = RefCell::new((CString::default(), -1));
}

fn set_last_error(msg: &str, offset: Option<u64>) {
    let c = CString::new(msg.replace('\0', " ")).unwrap_or_default();
    let off = offset.and_then(|o| i64::try_from(o).ok()).unwrap_or(-1);
    LAST_ERROR.with(|l| *l.borrow_mut() = (c, off));
}

/// Record `e` as the thread's last error and return its code.
fn fail(e: &Error, writing: bool) -> c_int {
    set_last_error(&e.to_string(), e.offset());
    match e.kind() {
        ErrorKind::Io if writing => ERR_FILE_WRITE,
        ErrorKind::Io => ERR_FILE_READ,
        ErrorKind::Truncated => ERR_READ_BUFFER,
        ErrorKind::Corrupt => ERR_DATA,
        ErrorKind::Malformed => ERR_INVALID_HEADER,
        ErrorKind::Transform => ERR_FILTER_PIPELINE,
        ErrorKind::NotFound => ERR_NOT_FOUND,
        ErrorKind::InvalidArgument => ERR_INVALID_PARAM,
        _ => ERR_FAILURE,
    }
}

/// Record a plain message and return `code`.
fn fail_code(code: c_int, msg: &str) -> c_int {
    set_last_error(&format!("recordio: {msg}"), None);
    code
}

/// The message of the last failed call on this thread ("" when none). The
/// string stays valid until the next failed call on the same thread.
#[no_mangle]
pub extern "C" fn blosc2_recordio_last_error() -> *const c_char {
    LAST_ERROR.with(|l| l.borrow().0.as_ptr())
}

/// The file offset of the last error on this thread, -1 when unknown.
#[no_mangle]
pub extern "C" fn blosc2_recordio_last_error_offset() -> i64 {
    LAST_ERROR.with(|l| l.borrow().1)
}

/// The index callback of `blosc2_recordio_writer_options`.
pub type blosc2_recordio_index_cb =
    Option<unsafe extern "C" fn(user: *mut c_void, block: u64, item: i64, data: *const u8, len: i64) -> c_int>;

/// A transformer function: reads the concatenation of `nparts` buffers,
/// stores a `malloc`ed result in `*out` / `*outlen` (freed by the library)
/// and returns 0, or non-zero on failure.
pub type blosc2_recordio_transform_cb = Option<
    unsafe extern "C" fn(
        user: *mut c_void,
        config: *const c_char,
        parts: *const *const u8,
        lens: *const i64,
        nparts: c_int,
        out: *mut *mut u8,
        outlen: *mut i64,
    ) -> c_int,
>;

/// Writer options (`blosc2_recordio_writer_options`).
#[repr(C)]
pub struct blosc2_recordio_writer_options {
    /// `ntransformers` spec strings ("zstd 3", "blosc2 codec=lz4" ...).
    pub transformers: *const *const c_char,
    /// Number of transformer specs.
    pub ntransformers: c_int,
    /// Items per block: flushed at `max_items + 1` items; 0 for 16384.
    pub max_items: u32,
    /// `BLOSC2_RECORDIO_KEY_TRAILER` | `BLOSC2_RECORDIO_SKIP_HEADER`.
    pub flags: c_int,
    /// Called for each item once its block is written (may be NULL).
    pub index: blosc2_recordio_index_cb,
    /// Passed to `index`.
    pub index_user: *mut c_void,
}

/// A raw pointer the caller promised to make usable from any thread.
#[derive(Clone, Copy)]
struct UserPtr(*mut c_void);
// SAFETY: the header documents that callbacks and their user pointers must
// be usable from the threads that use the writer/scanner or registry.
unsafe impl Send for UserPtr {}
// SAFETY: as above.
unsafe impl Sync for UserPtr {}

enum Sink {
    File(BufWriter<File>),
    Memory(Vec<u8>),
}

impl Write for Sink {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        match self {
            Sink::File(f) => f.write(buf),
            Sink::Memory(v) => v.write(buf),
        }
    }
    fn flush(&mut self) -> std::io::Result<()> {
        match self {
            Sink::File(f) => f.flush(),
            Sink::Memory(_) => Ok(()),
        }
    }
}

enum Source {
    File(BufReader<File>),
    Memory(Cursor<Vec<u8>>),
}

impl Read for Source {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        match self {
            Source::File(f) => f.read(buf),
            Source::Memory(c) => c.read(buf),
        }
    }
}

impl Seek for Source {
    fn seek(&mut self, pos: SeekFrom) -> std::io::Result<u64> {
        match self {
            Source::File(f) => f.seek(pos),
            Source::Memory(c) => c.seek(pos),
        }
    }
}

const WRITER_MAGIC: u64 = 0x7772_6974_6572_5249; // "IRwriter"
const SCANNER_MAGIC: u64 = 0x7363_616e_6e65_7252; // "Rscanner"

/// A recordio writer handle.
pub struct blosc2_recordio_writer {
    magic: u64,
    w: Writer<Sink>,
}

/// One header entry as C sees it.
struct CEntry {
    key: CString,
    value: Value,
    string: CString,
}

/// A recordio scanner handle.
pub struct blosc2_recordio_scanner {
    magic: u64,
    s: Scanner<Source>,
    header: Vec<CEntry>,
}

/// # Safety
/// `w` must be NULL or a handle from this module not yet freed.
unsafe fn writer_mut<'a>(w: *mut blosc2_recordio_writer) -> Option<&'a mut blosc2_recordio_writer> {
    // SAFETY: NULL or a live handle per the caller's contract.
    let w = unsafe { w.as_mut() }?;
    (w.magic == WRITER_MAGIC).then_some(w)
}

/// # Safety
/// `s` must be NULL or a handle from this module not yet freed.
unsafe fn scanner_mut<'a>(s: *mut blosc2_recordio_scanner) -> Option<&'a mut blosc2_recordio_scanner> {
    // SAFETY: NULL or a live handle per the caller's contract.
    let s = unsafe { s.as_mut() }?;
    (s.magic == SCANNER_MAGIC).then_some(s)
}

fn cstring_lossy(s: &str) -> CString {
    CString::new(s.split('\0').next().unwrap_or("")).unwrap_or_default()
}

/// Convert C writer options.
///
/// # Safety
/// `opts` must be NULL or valid, with `transformers` holding
/// `ntransformers` NUL-terminated strings.
unsafe fn writer_opts(opts: *const blosc2_recordio_writer_options) -> Result<WriterOpts, c_int> {
    // SAFETY: NULL or valid per the contract.
    let Some(o) = (unsafe { opts.as_ref() }) else {
        return Ok(WriterOpts::default());
    };
    if o.ntransformers < 0 || (o.ntransformers > 0 && o.transformers.is_null()) {
        return Err(fail_code(ERR_INVALID_PARAM, "bad transformer list"));
    }
    let mut transformers = Vec::new();
    for i in 0..o.ntransformers as usize {
        // SAFETY: `transformers` holds `ntransformers` pointers.
        let p = unsafe { *o.transformers.add(i) };
        // SAFETY: NULL or a NUL-terminated string per the contract.
        let s =
            unsafe { c_str(p) }.ok_or_else(|| fail_code(ERR_INVALID_PARAM, "transformer spec is NULL or not UTF-8"))?;
        transformers.push(s.to_owned());
    }
    let index: Option<recordio::IndexFn> = o.index.map(|cb| {
        let user = UserPtr(o.index_user);
        let f: recordio::IndexFn = Box::new(move |loc: ItemLocation, item: &[u8]| {
            let u = user;
            // SAFETY: the caller's callback, with a pointer/length pair
            // describing `item`, valid during the call.
            let rc = unsafe { cb(u.0, loc.block, loc.item as i64, item.as_ptr(), item.len() as i64) };
            if rc == 0 {
                Ok(())
            } else {
                Err(Error::new(ErrorKind::Callback, format!("index callback returned {rc}")))
            }
        });
        f
    });
    Ok(WriterOpts {
        transformers,
        key_trailer: o.flags & KEY_TRAILER != 0,
        max_items: o.max_items,
        skip_header: o.flags & SKIP_HEADER != 0,
        index,
    })
}

fn new_writer(sink: Sink, opts: WriterOpts, out: *mut *mut blosc2_recordio_writer) -> c_int {
    match Writer::new(sink, opts) {
        Ok(w) => {
            let h = Box::new(blosc2_recordio_writer { magic: WRITER_MAGIC, w });
            // SAFETY: `out` was checked non-NULL by the caller.
            unsafe { put(out, Box::into_raw(h)) };
            SUCCESS
        }
        Err(e) => fail(&e, true),
    }
}

/// Create a writer to a new file at `path` (truncated if it exists).
/// `opts` may be NULL for the defaults. Stores the handle in `*out`.
///
/// # Safety
/// `path` must be NULL or a NUL-terminated string, `opts` NULL or valid,
/// `out` NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn blosc2_recordio_writer_open(
    path: *const c_char,
    opts: *const blosc2_recordio_writer_options,
    out: *mut *mut blosc2_recordio_writer,
) -> c_int {
    ffi_boundary!(ERR_FAILURE, {
        if out.is_null() {
            return fail_code(ERR_NULL_POINTER, "out is NULL");
        }
        // SAFETY: NULL or NUL-terminated per the contract.
        let Some(path) = (unsafe { c_str(path) }) else {
            return fail_code(ERR_NULL_POINTER, "path is NULL or not UTF-8");
        };
        // SAFETY: per the contract.
        let opts = match unsafe { writer_opts(opts) } {
            Ok(o) => o,
            Err(c) => return c,
        };
        // Check the transformers before creating the file.
        if let Err(e) = recordio::Chain::forward(&opts.transformers) {
            return fail(&e, true);
        }
        let f = match File::create(path) {
            Ok(f) => f,
            Err(e) => return fail_code(ERR_FILE_OPEN, &format!("creating {path}: {e}")),
        };
        new_writer(Sink::File(BufWriter::new(f)), opts, out)
    })
}

/// Create a writer to memory; get the bytes with
/// `blosc2_recordio_writer_buffer` after `blosc2_recordio_writer_finish`.
///
/// # Safety
/// `opts` NULL or valid, `out` NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn blosc2_recordio_writer_new_buffer(
    opts: *const blosc2_recordio_writer_options,
    out: *mut *mut blosc2_recordio_writer,
) -> c_int {
    ffi_boundary!(ERR_FAILURE, {
        if out.is_null() {
            return fail_code(ERR_NULL_POINTER, "out is NULL");
        }
        // SAFETY: per the contract.
        let opts = match unsafe { writer_opts(opts) } {
            Ok(o) => o,
            Err(c) => return c,
        };
        new_writer(Sink::Memory(Vec::new()), opts, out)
    })
}

/// Shared body of the `add_header_*` functions.
///
/// # Safety
/// `w` NULL or live, `key` NULL or NUL-terminated.
unsafe fn add_header(
    w: *mut blosc2_recordio_writer,
    key: *const c_char,
    value: impl FnOnce() -> Option<Value>,
) -> c_int {
    // SAFETY: per the contract.
    let Some(w) = (unsafe { writer_mut(w) }) else {
        return fail_code(ERR_NULL_POINTER, "invalid writer");
    };
    // SAFETY: per the contract.
    let Some(key) = (unsafe { c_str(key) }) else {
        return fail_code(ERR_NULL_POINTER, "key is NULL or not UTF-8");
    };
    let Some(value) = value() else {
        return fail_code(ERR_NULL_POINTER, "value is NULL or not UTF-8");
    };
    match w.w.add_header(key, value) {
        Ok(()) => SUCCESS,
        Err(e) => fail(&e, true),
    }
}

/// Add a bool header entry (before the first append/trailer/finish).
///
/// # Safety
/// `w` NULL or live, `key` NULL or NUL-terminated.
#[no_mangle]
pub unsafe extern "C" fn blosc2_recordio_writer_add_header_bool(
    w: *mut blosc2_recordio_writer,
    key: *const c_char,
    value: bool,
) -> c_int {
    ffi_boundary!(ERR_FAILURE, {
        // SAFETY: forwarded contract.
        unsafe { add_header(w, key, || Some(Value::Bool(value))) }
    })
}

/// Add a signed integer header entry.
///
/// # Safety
/// `w` NULL or live, `key` NULL or NUL-terminated.
#[no_mangle]
pub unsafe extern "C" fn blosc2_recordio_writer_add_header_int(
    w: *mut blosc2_recordio_writer,
    key: *const c_char,
    value: i64,
) -> c_int {
    ffi_boundary!(ERR_FAILURE, {
        // SAFETY: forwarded contract.
        unsafe { add_header(w, key, || Some(Value::Int(value))) }
    })
}

/// Add an unsigned integer header entry.
///
/// # Safety
/// `w` NULL or live, `key` NULL or NUL-terminated.
#[no_mangle]
pub unsafe extern "C" fn blosc2_recordio_writer_add_header_uint(
    w: *mut blosc2_recordio_writer,
    key: *const c_char,
    value: u64,
) -> c_int {
    ffi_boundary!(ERR_FAILURE, {
        // SAFETY: forwarded contract.
        unsafe { add_header(w, key, || Some(Value::Uint(value))) }
    })
}

/// Add a string header entry.
///
/// # Safety
/// `w` NULL or live; `key` and `value` NULL or NUL-terminated.
#[no_mangle]
pub unsafe extern "C" fn blosc2_recordio_writer_add_header_string(
    w: *mut blosc2_recordio_writer,
    key: *const c_char,
    value: *const c_char,
) -> c_int {
    ffi_boundary!(ERR_FAILURE, {
        // SAFETY: forwarded contract; `value` NULL or NUL-terminated.
        unsafe { add_header(w, key, || c_str(value).map(|s| Value::String(s.to_owned()))) }
    })
}

/// Append one item of `len` bytes.
///
/// # Safety
/// `w` NULL or live; `item` readable for `len` bytes (NULL when 0).
#[no_mangle]
pub unsafe extern "C" fn blosc2_recordio_writer_append(
    w: *mut blosc2_recordio_writer,
    item: *const c_void,
    len: i64,
) -> c_int {
    ffi_boundary!(ERR_FAILURE, {
        // SAFETY: per the contract.
        let Some(w) = (unsafe { writer_mut(w) }) else {
            return fail_code(ERR_NULL_POINTER, "invalid writer");
        };
        // SAFETY: per the contract.
        let data = match unsafe { bytes(item, len) } {
            Ok(d) => d,
            Err(e) => return fail_code(e.code(), "bad item buffer"),
        };
        match w.w.append(data) {
            Ok(()) => SUCCESS,
            Err(e) => fail(&e, true),
        }
    })
}

/// End the current block (the next item starts a new one).
///
/// # Safety
/// `w` NULL or live.
#[no_mangle]
pub unsafe extern "C" fn blosc2_recordio_writer_flush(w: *mut blosc2_recordio_writer) -> c_int {
    ffi_boundary!(ERR_FAILURE, {
        // SAFETY: per the contract.
        let Some(w) = (unsafe { writer_mut(w) }) else {
            return fail_code(ERR_NULL_POINTER, "invalid writer");
        };
        match w.w.flush() {
            Ok(()) => SUCCESS,
            Err(e) => fail(&e, true),
        }
    })
}

/// Write the trailer block (the header must have `trailer: true`).
///
/// # Safety
/// `w` NULL or live; `data` readable for `len` bytes (NULL when 0).
#[no_mangle]
pub unsafe extern "C" fn blosc2_recordio_writer_set_trailer(
    w: *mut blosc2_recordio_writer,
    data: *const c_void,
    len: i64,
) -> c_int {
    ffi_boundary!(ERR_FAILURE, {
        // SAFETY: per the contract.
        let Some(w) = (unsafe { writer_mut(w) }) else {
            return fail_code(ERR_NULL_POINTER, "invalid writer");
        };
        // SAFETY: per the contract.
        let data = match unsafe { bytes(data, len) } {
            Ok(d) => d,
            Err(e) => return fail_code(e.code(), "bad trailer buffer"),
        };
        match w.w.set_trailer(data) {
            Ok(()) => SUCCESS,
            Err(e) => fail(&e, true),
        }
    })
}

/// Write what is pending and flush the file. The handle must still be
/// freed with `blosc2_recordio_writer_free`.
///
/// # Safety
/// `w` NULL or live.
#[no_mangle]
pub unsafe extern "C" fn blosc2_recordio_writer_finish(w: *mut blosc2_recordio_writer) -> c_int {
    ffi_boundary!(ERR_FAILURE, {
        // SAFETY: per the contract.
        let Some(w) = (unsafe { writer_mut(w) }) else {
            return fail_code(ERR_NULL_POINTER, "invalid writer");
        };
        match w.w.finish() {
            Ok(()) => SUCCESS,
            Err(e) => fail(&e, true),
        }
    })
}

/// Bytes written so far (a multiple of 32768 for whole blocks), or a
/// negative code.
///
/// # Safety
/// `w` NULL or live.
#[no_mangle]
pub unsafe extern "C" fn blosc2_recordio_writer_bytes(w: *mut blosc2_recordio_writer) -> i64 {
    ffi_boundary!(i64::from(ERR_FAILURE), {
        // SAFETY: per the contract.
        match unsafe { writer_mut(w) } {
            Some(w) => w.w.bytes_written() as i64,
            None => i64::from(fail_code(ERR_NULL_POINTER, "invalid writer")),
        }
    })
}

/// A `malloc`ed copy of what a memory writer holds (call it after
/// finish); the caller frees `*buf` with `free()`.
///
/// # Safety
/// `w` NULL or live; `buf` and `len` NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn blosc2_recordio_writer_buffer(
    w: *mut blosc2_recordio_writer,
    buf: *mut *mut u8,
    len: *mut i64,
) -> c_int {
    ffi_boundary!(ERR_FAILURE, {
        // SAFETY: per the contract.
        let Some(w) = (unsafe { writer_mut(w) }) else {
            return fail_code(ERR_NULL_POINTER, "invalid writer");
        };
        if buf.is_null() || len.is_null() {
            return fail_code(ERR_NULL_POINTER, "buf or len is NULL");
        }
        let Sink::Memory(v) = w.w.get_ref() else {
            return fail_code(ERR_INVALID_PARAM, "not a memory writer");
        };
        let mut m = match MallocBuf::zeroed(v.len()) {
            Ok(m) => m,
            Err(_) => return fail_code(super::boundary::ERR_MEMORY_ALLOC, "out of memory"),
        };
        m.as_mut().copy_from_slice(v);
        let n = m.len() as i64;
        // SAFETY: both checked non-NULL and writable per the contract.
        unsafe {
            put(buf, m.into_raw());
            put(len, n);
        }
        SUCCESS
    })
}

/// Free a writer (without finishing it). NULL is ignored.
///
/// # Safety
/// `w` NULL or a live handle, not used afterwards.
#[no_mangle]
pub unsafe extern "C" fn blosc2_recordio_writer_free(w: *mut blosc2_recordio_writer) {
    ffi_boundary!((), {
        // SAFETY: per the contract.
        if unsafe { writer_mut(w) }.is_some() {
            // SAFETY: a live handle from Box::into_raw.
            let mut b = unsafe { Box::from_raw(w) };
            b.magic = 0;
            drop(b);
        }
    })
}

fn new_scanner(
    src: Source,
    opts: ScannerOpts,
    shard: (usize, usize, usize),
    out: *mut *mut blosc2_recordio_scanner,
) -> c_int {
    match Scanner::with_shard(src, opts, shard.0, shard.1, shard.2) {
        Ok(s) => {
            let header = s
                .header()
                .entries
                .iter()
                .map(|kv| CEntry {
                    key: cstring_lossy(&kv.key),
                    string: match &kv.value {
                        Value::String(v) => cstring_lossy(v),
                        _ => CString::default(),
                    },
                    value: kv.value.clone(),
                })
                .collect();
            let h = Box::new(blosc2_recordio_scanner {
                magic: SCANNER_MAGIC,
                s,
                header,
            });
            // SAFETY: `out` checked non-NULL by the caller.
            unsafe { put(out, Box::into_raw(h)) };
            SUCCESS
        }
        Err(e) => fail(&e, false),
    }
}

fn scanner_opts(flags: c_int, legacy: Option<String>) -> ScannerOpts {
    ScannerOpts {
        recover: flags & RECOVER != 0,
        legacy_transform: legacy,
    }
}

/// Open the file at `path` for scanning (v2 or legacy; a `.grail-rpk-gz`
/// name selects the flate legacy transform). `flags`:
/// `BLOSC2_RECORDIO_RECOVER`. Reads shard `[start, limit)` of `nshard`
/// (0, 1, 1 for the whole file).
///
/// # Safety
/// `path` NULL or NUL-terminated; `out` NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn blosc2_recordio_scanner_open_shard(
    path: *const c_char,
    flags: c_int,
    start: c_int,
    limit: c_int,
    nshard: c_int,
    out: *mut *mut blosc2_recordio_scanner,
) -> c_int {
    ffi_boundary!(ERR_FAILURE, {
        if out.is_null() {
            return fail_code(ERR_NULL_POINTER, "out is NULL");
        }
        // SAFETY: per the contract.
        let Some(path) = (unsafe { c_str(path) }) else {
            return fail_code(ERR_NULL_POINTER, "path is NULL or not UTF-8");
        };
        let (Ok(start), Ok(limit), Ok(nshard)) =
            (usize::try_from(start), usize::try_from(limit), usize::try_from(nshard))
        else {
            return fail_code(ERR_INVALID_PARAM, "negative shard numbers");
        };
        let f = match File::open(path) {
            Ok(f) => f,
            Err(e) => return fail_code(ERR_FILE_OPEN, &format!("opening {path}: {e}")),
        };
        let legacy = ScannerOpts::for_path(path).legacy_transform;
        new_scanner(
            Source::File(BufReader::new(f)),
            scanner_opts(flags, legacy),
            (start, limit, nshard),
            out,
        )
    })
}

/// Open the file at `path` for scanning (the whole file).
///
/// # Safety
/// `path` NULL or NUL-terminated; `out` NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn blosc2_recordio_scanner_open(
    path: *const c_char,
    flags: c_int,
    out: *mut *mut blosc2_recordio_scanner,
) -> c_int {
    // SAFETY: forwarded contract.
    unsafe { blosc2_recordio_scanner_open_shard(path, flags, 0, 1, 1, out) }
}

/// Scan a copy of `len` bytes at `buf`. `legacy_transform` (NULL for
/// none) is the transform of legacy packed record bodies, e.g. "flate".
///
/// # Safety
/// `buf` readable for `len` bytes; `legacy_transform` NULL or
/// NUL-terminated; `out` NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn blosc2_recordio_scanner_open_buffer(
    buf: *const c_void,
    len: i64,
    flags: c_int,
    legacy_transform: *const c_char,
    out: *mut *mut blosc2_recordio_scanner,
) -> c_int {
    ffi_boundary!(ERR_FAILURE, {
        if out.is_null() {
            return fail_code(ERR_NULL_POINTER, "out is NULL");
        }
        // SAFETY: per the contract.
        let data = match unsafe { bytes(buf, len) } {
            Ok(d) => d.to_vec(),
            Err(e) => return fail_code(e.code(), "bad buffer"),
        };
        let legacy = if legacy_transform.is_null() {
            None
        } else {
            // SAFETY: non-NULL and NUL-terminated per the contract.
            match unsafe { c_str(legacy_transform) } {
                Some(s) => Some(s.to_owned()),
                None => return fail_code(ERR_INVALID_PARAM, "legacy_transform is not UTF-8"),
            }
        };
        new_scanner(
            Source::Memory(Cursor::new(data)),
            scanner_opts(flags, legacy),
            (0, 1, 1),
            out,
        )
    })
}

/// `BLOSC2_RECORDIO_FORMAT_V2` (2) or `BLOSC2_RECORDIO_FORMAT_LEGACY` (1),
/// or a negative code.
///
/// # Safety
/// `s` NULL or live.
#[no_mangle]
pub unsafe extern "C" fn blosc2_recordio_scanner_format(s: *mut blosc2_recordio_scanner) -> c_int {
    ffi_boundary!(ERR_FAILURE, {
        // SAFETY: per the contract.
        match unsafe { scanner_mut(s) } {
            Some(s) => match s.s.format() {
                Format::V2 => 2,
                Format::Legacy => 1,
            },
            None => fail_code(ERR_NULL_POINTER, "invalid scanner"),
        }
    })
}

/// Number of header entries, or a negative code.
///
/// # Safety
/// `s` NULL or live.
#[no_mangle]
pub unsafe extern "C" fn blosc2_recordio_scanner_header_count(s: *mut blosc2_recordio_scanner) -> i64 {
    ffi_boundary!(i64::from(ERR_FAILURE), {
        // SAFETY: per the contract.
        match unsafe { scanner_mut(s) } {
            Some(s) => s.header.len() as i64,
            None => i64::from(fail_code(ERR_NULL_POINTER, "invalid scanner")),
        }
    })
}

/// Header entry `i`: its key, its type (`BLOSC2_RECORDIO_BOOL`, `_INT`,
/// `_UINT`, `_STRING`) and value (`*ival` for bool and int, `*uval` for
/// uint, `*sval` for string; a bool is also stored as 0/1 in `*uval`).
/// Pointers stay valid until the scanner is freed. Any output may be NULL.
///
/// # Safety
/// `s` NULL or live; outputs NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn blosc2_recordio_scanner_header_entry(
    s: *mut blosc2_recordio_scanner,
    i: i64,
    key: *mut *const c_char,
    type_: *mut c_int,
    ival: *mut i64,
    uval: *mut u64,
    sval: *mut *const c_char,
) -> c_int {
    ffi_boundary!(ERR_FAILURE, {
        // SAFETY: per the contract.
        let Some(s) = (unsafe { scanner_mut(s) }) else {
            return fail_code(ERR_NULL_POINTER, "invalid scanner");
        };
        let Some(e) = usize::try_from(i).ok().and_then(|i| s.header.get(i)) else {
            return fail_code(ERR_INVALID_PARAM, "header entry out of range");
        };
        let (iv, uv) = match &e.value {
            Value::Bool(b) => (i64::from(*b), u64::from(*b)),
            Value::Int(v) => (*v, *v as u64),
            Value::Uint(v) => (*v as i64, *v),
            Value::String(_) => (0, 0),
        };
        // SAFETY: each output NULL or writable per the contract.
        unsafe {
            put(key, e.key.as_ptr());
            put(type_, c_int::from(e.value.type_code()));
            put(ival, iv);
            put(uval, uv);
            put(sval, e.string.as_ptr());
        }
        SUCCESS
    })
}

/// The next item: 1 with `*item`/`*len` set (valid until the next call on
/// this scanner), 0 at the end, or a negative code (the scanner stays
/// stopped; see `blosc2_recordio_last_error`).
///
/// # Safety
/// `s` NULL or live; `item` and `len` NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn blosc2_recordio_scanner_next(
    s: *mut blosc2_recordio_scanner,
    item: *mut *const u8,
    len: *mut i64,
) -> c_int {
    ffi_boundary!(ERR_FAILURE, {
        // SAFETY: per the contract.
        let Some(s) = (unsafe { scanner_mut(s) }) else {
            return fail_code(ERR_NULL_POINTER, "invalid scanner");
        };
        match s.s.next_item() {
            Ok(Some(data)) => {
                // SAFETY: outputs NULL or writable per the contract.
                unsafe {
                    put(item, data.as_ptr());
                    put(len, data.len() as i64);
                }
                1
            }
            Ok(None) => 0,
            Err(e) => fail(&e, false),
        }
    })
}

/// Location of the item last returned: its block's offset and its index.
///
/// # Safety
/// `s` NULL or live; outputs NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn blosc2_recordio_scanner_location(
    s: *mut blosc2_recordio_scanner,
    block: *mut u64,
    item: *mut i64,
) -> c_int {
    ffi_boundary!(ERR_FAILURE, {
        // SAFETY: per the contract.
        let Some(s) = (unsafe { scanner_mut(s) }) else {
            return fail_code(ERR_NULL_POINTER, "invalid scanner");
        };
        let Some(loc) = s.s.last_location() else {
            return fail_code(ERR_NOT_FOUND, "no item read yet");
        };
        // SAFETY: outputs NULL or writable per the contract.
        unsafe {
            put(block, loc.block);
            put(item, loc.item as i64);
        }
        SUCCESS
    })
}

/// Position so that the next item is item `item` of the block at `block`.
///
/// # Safety
/// `s` NULL or live.
#[no_mangle]
pub unsafe extern "C" fn blosc2_recordio_scanner_seek(s: *mut blosc2_recordio_scanner, block: u64, item: i64) -> c_int {
    ffi_boundary!(ERR_FAILURE, {
        // SAFETY: per the contract.
        let Some(s) = (unsafe { scanner_mut(s) }) else {
            return fail_code(ERR_NULL_POINTER, "invalid scanner");
        };
        let Ok(item) = usize::try_from(item) else {
            return fail_code(ERR_INVALID_PARAM, "negative item");
        };
        match s.s.seek(ItemLocation { block, item }) {
            Ok(()) => SUCCESS,
            Err(e) => fail(&e, false),
        }
    })
}

/// The trailer: 1 with a `malloc`ed copy in `*data` (free it with
/// `free()`) and its length in `*len`, 0 when the file has none, or a
/// negative code.
///
/// # Safety
/// `s` NULL or live; `data` and `len` NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn blosc2_recordio_scanner_trailer(
    s: *mut blosc2_recordio_scanner,
    data: *mut *mut u8,
    len: *mut i64,
) -> c_int {
    ffi_boundary!(ERR_FAILURE, {
        // SAFETY: per the contract.
        let Some(s) = (unsafe { scanner_mut(s) }) else {
            return fail_code(ERR_NULL_POINTER, "invalid scanner");
        };
        if data.is_null() || len.is_null() {
            return fail_code(ERR_NULL_POINTER, "data or len is NULL");
        }
        match s.s.trailer() {
            Ok(None) => 0,
            Ok(Some(t)) => {
                let mut m = match MallocBuf::zeroed(t.len()) {
                    Ok(m) => m,
                    Err(_) => return fail_code(super::boundary::ERR_MEMORY_ALLOC, "out of memory"),
                };
                m.as_mut().copy_from_slice(&t);
                let n = t.len() as i64;
                // SAFETY: checked non-NULL, writable per the contract.
                unsafe {
                    put(data, m.into_raw());
                    put(len, n);
                }
                1
            }
            Err(e) => fail(&e, false),
        }
    })
}

/// Number of stretches the recovery mode skipped so far.
///
/// # Safety
/// `s` NULL or live.
#[no_mangle]
pub unsafe extern "C" fn blosc2_recordio_scanner_nskipped(s: *mut blosc2_recordio_scanner) -> i64 {
    ffi_boundary!(i64::from(ERR_FAILURE), {
        // SAFETY: per the contract.
        match unsafe { scanner_mut(s) } {
            Some(s) => s.s.skipped().len() as i64,
            None => i64::from(fail_code(ERR_NULL_POINTER, "invalid scanner")),
        }
    })
}

/// Skipped stretch `i`: its offset and length, and in `*code` the error
/// code of the damage found there.
///
/// # Safety
/// `s` NULL or live; outputs NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn blosc2_recordio_scanner_skipped(
    s: *mut blosc2_recordio_scanner,
    i: i64,
    offset: *mut u64,
    length: *mut u64,
    code: *mut c_int,
) -> c_int {
    ffi_boundary!(ERR_FAILURE, {
        // SAFETY: per the contract.
        let Some(s) = (unsafe { scanner_mut(s) }) else {
            return fail_code(ERR_NULL_POINTER, "invalid scanner");
        };
        let Some(k) = usize::try_from(i).ok().and_then(|i| s.s.skipped().get(i)).cloned() else {
            return fail_code(ERR_INVALID_PARAM, "skipped entry out of range");
        };
        let c = {
            let saved = LAST_ERROR.with(|l| l.borrow().clone());
            let c = fail(&k.error, false);
            LAST_ERROR.with(|l| *l.borrow_mut() = saved);
            c
        };
        // SAFETY: outputs NULL or writable per the contract.
        unsafe {
            put(offset, k.offset);
            put(length, k.length);
            put(code, c);
        }
        SUCCESS
    })
}

/// Free a scanner. NULL is ignored.
///
/// # Safety
/// `s` NULL or a live handle, not used afterwards.
#[no_mangle]
pub unsafe extern "C" fn blosc2_recordio_scanner_free(s: *mut blosc2_recordio_scanner) {
    ffi_boundary!((), {
        // SAFETY: per the contract.
        if unsafe { scanner_mut(s) }.is_some() {
            // SAFETY: a live handle from Box::into_raw.
            let mut b = unsafe { Box::from_raw(s) };
            b.magic = 0;
            drop(b);
        }
    })
}

/// Wrap a C transform callback as a factory.
fn c_factory(
    name: String,
    cb: unsafe extern "C" fn(
        *mut c_void,
        *const c_char,
        *const *const u8,
        *const i64,
        c_int,
        *mut *mut u8,
        *mut i64,
    ) -> c_int,
    user: UserPtr,
) -> recordio::TransformerFactory {
    Arc::new(move |config: &str| {
        let config = CString::new(config)
            .map_err(|_| Error::new(ErrorKind::InvalidArgument, "transformer config holds a NUL byte"))?;
        let name = name.clone();
        let f: TransformFn = Arc::new(move |input: &[&[u8]]| {
            let u = user;
            let ptrs: Vec<*const u8> = input.iter().map(|p| p.as_ptr()).collect();
            let lens: Vec<i64> = input.iter().map(|p| p.len() as i64).collect();
            let nparts =
                c_int::try_from(input.len()).map_err(|_| Error::new(ErrorKind::Transform, "too many parts"))?;
            let mut out: *mut u8 = std::ptr::null_mut();
            let mut outlen: i64 = 0;
            // SAFETY: the caller's callback; every pointer describes live
            // memory for the duration of the call.
            let rc = unsafe {
                cb(
                    u.0,
                    config.as_ptr(),
                    ptrs.as_ptr(),
                    lens.as_ptr(),
                    nparts,
                    &mut out,
                    &mut outlen,
                )
            };
            let result = if rc != 0 {
                Err(Error::new(
                    ErrorKind::Transform,
                    format!("transformer {name} returned {rc}"),
                ))
            } else if outlen < 0 || (out.is_null() && outlen > 0) {
                Err(Error::new(
                    ErrorKind::Transform,
                    format!("transformer {name} returned no buffer"),
                ))
            } else if outlen == 0 {
                Ok(Vec::new())
            } else {
                // SAFETY: the callback promised `outlen` readable bytes at `out`.
                Ok(unsafe { std::slice::from_raw_parts(out, outlen as usize) }.to_vec())
            };
            if !out.is_null() {
                // SAFETY: the callback returned a malloc()ed buffer.
                unsafe { libc::free(out.cast()) };
            }
            result
        });
        Ok(f)
    })
}

/// Register a transformer named `name` (no spaces). `forward` transforms
/// blocks on write, `inverse` undoes it on read; both receive the spec's
/// config (the text after the first space, "" if none) and `user`. They
/// may be called from any thread that uses a writer or scanner.
///
/// # Safety
/// `name` NULL or NUL-terminated; the callbacks must follow the contract
/// of `blosc2_recordio_transform_cb` for as long as they are registered.
#[no_mangle]
pub unsafe extern "C" fn blosc2_recordio_register_transformer(
    name: *const c_char,
    forward: blosc2_recordio_transform_cb,
    inverse: blosc2_recordio_transform_cb,
    user: *mut c_void,
) -> c_int {
    ffi_boundary!(ERR_FAILURE, {
        // SAFETY: per the contract.
        let Some(name) = (unsafe { c_str(name) }) else {
            return fail_code(ERR_NULL_POINTER, "name is NULL or not UTF-8");
        };
        let (Some(f), Some(i)) = (forward, inverse) else {
            return fail_code(ERR_NULL_POINTER, "a callback is NULL");
        };
        let u = UserPtr(user);
        match recordio::register_transformer(name, c_factory(name.to_owned(), f, u), c_factory(name.to_owned(), i, u)) {
            Ok(()) => SUCCESS,
            Err(e) => fail(&e, false),
        }
    })
}

/// Remove a transformer registered with
/// `blosc2_recordio_register_transformer`.
///
/// # Safety
/// `name` NULL or NUL-terminated.
#[no_mangle]
pub unsafe extern "C" fn blosc2_recordio_unregister_transformer(name: *const c_char) -> c_int {
    ffi_boundary!(ERR_FAILURE, {
        // SAFETY: per the contract.
        let Some(name) = (unsafe { c_str(name) }) else {
            return fail_code(ERR_NULL_POINTER, "name is NULL or not UTF-8");
        };
        match recordio::unregister_transformer(name) {
            Ok(()) => SUCCESS,
            Err(e) => fail(&e, false),
        }
    })
}
