//! The checks every export goes through: panics stopped at the boundary,
//! NULL pointers and negative lengths refused before any slice is made,
//! and engine errors turned into `BLOSC2_ERROR_*` codes in one place.

use std::ffi::{c_char, c_int, c_void, CStr};

use crate::engine::error::Error;

use super::trace;

/// `BLOSC2_ERROR_SUCCESS`.
pub(crate) const SUCCESS: c_int = 0;
/// `BLOSC2_ERROR_FAILURE`.
pub(crate) const ERR_FAILURE: c_int = -1;
/// `BLOSC2_ERROR_DATA`.
pub(crate) const ERR_DATA: c_int = -3;
/// `BLOSC2_ERROR_MEMORY_ALLOC`.
pub(crate) const ERR_MEMORY_ALLOC: c_int = -4;
/// `BLOSC2_ERROR_READ_BUFFER`.
pub(crate) const ERR_READ_BUFFER: c_int = -5;
/// `BLOSC2_ERROR_WRITE_BUFFER`.
pub(crate) const ERR_WRITE_BUFFER: c_int = -6;
/// `BLOSC2_ERROR_CODEC_SUPPORT`.
pub(crate) const ERR_CODEC_SUPPORT: c_int = -7;
/// `BLOSC2_ERROR_INVALID_HEADER`.
pub(crate) const ERR_INVALID_HEADER: c_int = -11;
/// `BLOSC2_ERROR_INVALID_PARAM`.
pub(crate) const ERR_INVALID_PARAM: c_int = -12;
/// `BLOSC2_ERROR_NOT_FOUND`.
pub(crate) const ERR_NOT_FOUND: c_int = -16;
/// `BLOSC2_ERROR_NULL_POINTER`.
pub(crate) const ERR_NULL_POINTER: c_int = -32;
/// `BLOSC2_ERROR_MAX_BUFSIZE_EXCEEDED`.
pub(crate) const ERR_MAX_BUFSIZE_EXCEEDED: c_int = -35;

/// Run `body`, turning a panic into `on_panic` so that nothing unwinds
/// into C (the release profile aborts on panic anyway; tests unwind). A
/// NULL-pointer or invalid-parameter code returned without a trace line
/// gets 3.3.5's (see [`explain`]).
macro_rules! ffi_boundary {
    ($on_panic:expr, $body:block) => {{
        let traced_before = $crate::capi::trace::lines_so_far();
        let outcome = match ::std::panic::catch_unwind(::std::panic::AssertUnwindSafe(|| $body)) {
            Ok(v) => v,
            Err(_) => $on_panic,
        };
        $crate::capi::boundary::explain(&outcome, traced_before);
        outcome
    }};
}
pub(crate) use ffi_boundary;

/// What an export returns, as far as tracing is concerned: the error code
/// it carries, if it is one.
pub(crate) trait Outcome {
    /// The `BLOSC2_ERROR_*` code this value stands for, if any.
    fn error_code(&self) -> Option<c_int> {
        None
    }
}

impl Outcome for c_int {
    fn error_code(&self) -> Option<c_int> {
        Some(*self)
    }
}

impl Outcome for i64 {
    fn error_code(&self) -> Option<c_int> {
        c_int::try_from(*self).ok()
    }
}

impl Outcome for i16 {
    fn error_code(&self) -> Option<c_int> {
        Some(c_int::from(*self))
    }
}

impl Outcome for () {}
impl Outcome for bool {}
impl<T> Outcome for *mut T {}
impl<T> Outcome for *const T {}

/// 3.3.5 prints an `[error]` line for the arguments it refuses
/// (`BLOSC_ERROR_NULL`'s "Pointer is null", `BLOSC_TRACE_ERROR` before
/// returning `BLOSC2_ERROR_INVALID_PARAM`). The exports return those codes
/// straight from their argument checks, so the line is printed here, once
/// per call: only when the call printed no line of its own since
/// `traced_before` (see [`trace::lines_so_far`]).
#[track_caller]
pub(crate) fn explain(outcome: &impl Outcome, traced_before: u64) {
    let message = match outcome.error_code() {
        Some(ERR_NULL_POINTER) => "Pointer is null",
        Some(code @ ERR_INVALID_PARAM) => Error::describe_code(code),
        _ => return,
    };
    if trace::lines_so_far() == traced_before {
        trace::error(message);
    }
}

/// The one place where an engine error becomes a C error code; with
/// `BLOSC_TRACE` set, the reason is printed as 3.3.5's `[error]` lines are.
#[track_caller]
pub(crate) fn code_of(e: &Error) -> c_int {
    if trace::enabled() {
        trace::error(&e.to_string());
    }
    e.code()
}

/// An engine result as a C return value: the count on success (saturated
/// to `c_int`), the error code otherwise.
#[track_caller]
pub(crate) fn to_code(r: crate::engine::error::Result<usize>) -> c_int {
    match r {
        Ok(n) => c_int::try_from(n).unwrap_or(c_int::MAX),
        Err(e) => code_of(&e),
    }
}

/// Why a raw buffer could not be turned into a slice.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum BufError {
    /// NULL pointer with a non-zero length.
    Null,
    /// Negative length.
    Negative,
}

impl BufError {
    /// The code reported for this problem.
    pub(crate) fn code(self) -> c_int {
        match self {
            BufError::Null => ERR_NULL_POINTER,
            BufError::Negative => ERR_INVALID_PARAM,
        }
    }
}

/// A read-only view of `len` bytes at `ptr`. A zero length gives an empty
/// slice whatever the pointer.
///
/// # Safety
/// When `ptr` is non-NULL and `len > 0`, `ptr` must be valid for reads of
/// `len` bytes for `'a`, and not written to meanwhile.
pub(crate) unsafe fn bytes<'a>(ptr: *const c_void, len: i64) -> Result<&'a [u8], BufError> {
    if len < 0 {
        return Err(BufError::Negative);
    }
    if len == 0 {
        return Ok(&[]);
    }
    if ptr.is_null() {
        return Err(BufError::Null);
    }
    let len = usize::try_from(len).map_err(|_| BufError::Negative)?;
    // SAFETY: non-NULL, and the caller guarantees `len` readable bytes.
    Ok(unsafe { std::slice::from_raw_parts(ptr.cast::<u8>(), len) })
}

/// A writable view of `len` bytes at `ptr` (see [`bytes`]).
///
/// # Safety
/// When `ptr` is non-NULL and `len > 0`, `ptr` must be valid for reads and
/// writes of `len` bytes for `'a`, with no other live reference to them.
pub(crate) unsafe fn bytes_mut<'a>(ptr: *mut c_void, len: i64) -> Result<&'a mut [u8], BufError> {
    if len < 0 {
        return Err(BufError::Negative);
    }
    if len == 0 {
        return Ok(&mut []);
    }
    if ptr.is_null() {
        return Err(BufError::Null);
    }
    let len = usize::try_from(len).map_err(|_| BufError::Negative)?;
    // SAFETY: non-NULL, and the caller guarantees `len` exclusive bytes.
    Ok(unsafe { std::slice::from_raw_parts_mut(ptr.cast::<u8>(), len) })
}

/// Store `value` through `out` when it is not NULL.
///
/// # Safety
/// `out` must be NULL or valid for a write of `T`.
pub(crate) unsafe fn put<T>(out: *mut T, value: T) {
    if !out.is_null() {
        // SAFETY: non-NULL and writable per the caller's contract.
        unsafe { out.write(value) };
    }
}

/// A NUL-terminated C string as UTF-8, `None` for NULL or invalid UTF-8.
///
/// # Safety
/// `s` must be NULL or point to a NUL-terminated string valid for `'a`.
pub(crate) unsafe fn c_str<'a>(s: *const c_char) -> Option<&'a str> {
    if s.is_null() {
        return None;
    }
    // SAFETY: non-NULL and NUL-terminated per the caller's contract.
    unsafe { CStr::from_ptr(s) }.to_str().ok()
}

/// How long a chunk at `src` says it is, for the Blosc1 entry points that
/// have no source size: the header is read first (16 bytes, then 32 when
/// it is extended) and `cbytes` is trusted, as C-Blosc2 does. Returns the
/// length of the slice to make (at least the header length).
///
/// # Safety
/// `src` must be non-NULL and point to a chunk header (16 bytes, or 32 when
/// its flags mark an extended header) followed by `cbytes` readable bytes.
pub(crate) unsafe fn blosc1_chunk_len(src: *const c_void) -> usize {
    const MIN: usize = crate::engine::constants::MIN_HEADER_LENGTH;
    const EXT: usize = crate::engine::constants::EXTENDED_HEADER_LENGTH;
    // SAFETY: the caller guarantees at least a 16-byte header.
    let head = unsafe { std::slice::from_raw_parts(src.cast::<u8>(), MIN) };
    let flags = head[2];
    let cbytes = i32::from_le_bytes([head[12], head[13], head[14], head[15]]);
    let extended = flags & 0x05 == 0x05;
    let hlen = if extended && cbytes >= EXT as i32 { EXT } else { MIN };
    usize::try_from(cbytes).unwrap_or(0).max(hlen)
}
