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
    bytes, c_str, ffi_boundary, put, Outcome, ERR_DATA, ERR_FAILURE, ERR_INVALID_HEADER, ERR_INVALID_PARAM,
    ERR_MEMORY_ALLOC, ERR_NOT_FOUND, ERR_NULL_POINTER, ERR_READ_BUFFER, SUCCESS,
};

mod scanner;
mod writer;

pub use scanner::*;
pub use writer::*;

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

/// Run `f` inside the FFI boundary; an `Err` is the code returned (already
/// recorded as the thread's last error).
fn guarded<T: From<c_int> + Outcome>(f: impl FnOnce() -> Result<T, c_int>) -> T {
    ffi_boundary!(T::from(ERR_FAILURE), { f().unwrap_or_else(T::from) })
}

/// Run `f` on the writer behind `w` inside the FFI boundary (see
/// [`guarded`] and [`writer_arg`]).
///
/// # Safety
/// As [`writer_mut`].
unsafe fn with_writer<T: From<c_int> + Outcome>(
    w: *mut blosc2_recordio_writer,
    f: impl FnOnce(&mut blosc2_recordio_writer) -> Result<T, c_int>,
) -> T {
    // SAFETY: forwarded contract.
    guarded(|| f(unsafe { writer_arg(w) }?))
}

/// Run `f` on the scanner behind `s` inside the FFI boundary (see
/// [`guarded`] and [`scanner_arg`]).
///
/// # Safety
/// As [`scanner_mut`].
unsafe fn with_scanner<T: From<c_int> + Outcome>(
    s: *mut blosc2_recordio_scanner,
    f: impl FnOnce(&mut blosc2_recordio_scanner) -> Result<T, c_int>,
) -> T {
    // SAFETY: forwarded contract.
    guarded(|| f(unsafe { scanner_arg(s) }?))
}

/// The writer behind `w`, or `BLOSC2_ERROR_NULL_POINTER` ("invalid writer").
///
/// # Safety
/// As [`writer_mut`].
unsafe fn writer_arg<'a>(w: *mut blosc2_recordio_writer) -> Result<&'a mut blosc2_recordio_writer, c_int> {
    // SAFETY: forwarded contract.
    unsafe { writer_mut(w) }.ok_or_else(|| fail_code(ERR_NULL_POINTER, "invalid writer"))
}

/// The scanner behind `s`, or `BLOSC2_ERROR_NULL_POINTER` ("invalid scanner").
///
/// # Safety
/// As [`scanner_mut`].
unsafe fn scanner_arg<'a>(s: *mut blosc2_recordio_scanner) -> Result<&'a mut blosc2_recordio_scanner, c_int> {
    // SAFETY: forwarded contract.
    unsafe { scanner_mut(s) }.ok_or_else(|| fail_code(ERR_NULL_POINTER, "invalid scanner"))
}

/// `BLOSC2_ERROR_NULL_POINTER` ("out is NULL") when the handle out-param is NULL.
fn out_arg<T>(out: *mut *mut T) -> Result<(), c_int> {
    if out.is_null() {
        return Err(fail_code(ERR_NULL_POINTER, "out is NULL"));
    }
    Ok(())
}

/// A path argument as UTF-8.
///
/// # Safety
/// `path` must be NULL or NUL-terminated.
unsafe fn path_arg<'a>(path: *const c_char) -> Result<&'a str, c_int> {
    // SAFETY: NULL or NUL-terminated per the contract.
    unsafe { c_str(path) }.ok_or_else(|| fail_code(ERR_NULL_POINTER, "path is NULL or not UTF-8"))
}

/// `len` bytes at `ptr`; `what` is the message of a bad buffer.
///
/// # Safety
/// As [`bytes`].
unsafe fn buf_arg<'a>(ptr: *const c_void, len: i64, what: &str) -> Result<&'a [u8], c_int> {
    // SAFETY: forwarded contract.
    unsafe { bytes(ptr, len) }.map_err(|e| fail_code(e.code(), what))
}

/// `SUCCESS`, or the code of the engine error (`writing` as for [`fail`]).
fn status(r: Result<(), Error>, writing: bool) -> Result<c_int, c_int> {
    r.map(|()| SUCCESS).map_err(|e| fail(&e, writing))
}

/// Store a `malloc`ed copy of `data` in `*buf` and its length in `*len`.
///
/// # Safety
/// `buf` and `len` must be non-NULL and writable.
unsafe fn hand_out_copy(data: &[u8], buf: *mut *mut u8, len: *mut i64) -> Result<(), c_int> {
    let mut m = MallocBuf::zeroed(data.len()).map_err(|_| fail_code(ERR_MEMORY_ALLOC, "out of memory"))?;
    m.as_mut().copy_from_slice(data);
    let n = m.len() as i64;
    // SAFETY: both non-NULL and writable per the contract.
    unsafe {
        put(buf, m.into_raw());
        put(len, n);
    }
    Ok(())
}

fn cstring_lossy(s: &str) -> CString {
    CString::new(s.split('\0').next().unwrap_or("")).unwrap_or_default()
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
