//! Frames and persistence of super-chunks: opening frames from files,
//! directories and buffers, writing them out, frame properties, locking
//! and the file helpers (`blosc2_remove_urlpath` ...).
//!
//! `blosc2_schunk_from_buffer` with `copy` false reads the caller's frame
//! in place (the super-chunk keeps it as a frame and copies its data only
//! when an edit changes it); with `copy` true it copies the chunks out as
//! separate ones. The caller's buffer is never written to, and is
//! `free()`d with the super-chunk only after
//! `blosc2_schunk_avoid_cframe_free(schunk, false)`, as in 3.3.5.

use std::ffi::{c_char, c_int};
use std::ptr;
use std::sync::Arc;

use crate::engine::frame::{FrameBytes, LentBytes};
use crate::engine::schunk::{self as eschunk, SChunk};

use super::alloc::MallocBuf;
use super::boundary::{bytes, ffi_boundary, put, ERR_FAILURE, ERR_INVALID_PARAM, ERR_MEMORY_ALLOC, SUCCESS};
use super::io_cb::{backend_for, destroy_backend};
use super::schunk::{io_defaults, locking_requested, lookup, malloc_bytes, path_arg, register, with_state, Init};
use super::types::blosc2_io;
use super::types_schunk::blosc2_schunk;

/// `BLOSC2_ERROR_NOT_FOUND`.
const ERR_NOT_FOUND: c_int = -16;
/// `BLOSC2_ERROR_FRAME_TYPE`.
const ERR_FRAME_TYPE: c_int = -24;
/// `BLOSC2_ERROR_SCHUNK_COPY`.
const ERR_SCHUNK_COPY: c_int = -23;
/// Smallest possible frame (`FRAME_HEADER_MINLEN`).
const FRAME_HEADER_MINLEN: i64 = 87;

fn ecode(e: crate::engine::error::Error) -> c_int {
    super::boundary::code_of(&e)
}

/// Open the frame stored in file `urlpath` at byte `offset` (0 for a frame
/// file or a sparse frame directory). No copy is made: chunks are read
/// from disk when needed and edits go to disk. Returns NULL for NULL or
/// non-UTF-8 paths, negative offsets, missing, truncated or corrupted
/// frames.
///
/// # Safety
/// `urlpath` must be NULL or a NUL-terminated string.
#[no_mangle]
pub unsafe extern "C" fn blosc2_schunk_open_offset(urlpath: *const c_char, offset: i64) -> *mut blosc2_schunk {
    let io = io_defaults();
    // SAFETY: forwarded contract; the default io has no params.
    unsafe { blosc2_schunk_open_offset_udio(urlpath, offset, &io) }
}

/// `blosc2_schunk_open_offset` through the I/O backend `udio` names
/// (every file access of the super-chunk then goes through it). Returns
/// NULL for a NULL `udio`, an id nothing is registered under, or what
/// `blosc2_schunk_open_offset` refuses. With file locking requested the
/// frame is read under the shared lock (waiting for a writer that holds
/// it); on failure the backend's params
/// are released with its `destroy` callback, as in 3.3.5.
///
/// # Safety
/// `urlpath` must be NULL or NUL-terminated; `udio` NULL or valid, with
/// params that its backend's callbacks accept.
#[no_mangle]
pub unsafe extern "C" fn blosc2_schunk_open_offset_udio(
    urlpath: *const c_char,
    offset: i64,
    udio: *const blosc2_io,
) -> *mut blosc2_schunk {
    ffi_boundary!(ptr::null_mut(), {
        if udio.is_null() {
            return ptr::null_mut();
        }
        // SAFETY: valid per the contract.
        let io = unsafe { *udio };
        let Ok(fs) = backend_for(&io) else {
            return ptr::null_mut();
        };
        // SAFETY: NULL or NUL-terminated per the contract.
        let path = match unsafe { path_arg(urlpath) } {
            Ok(p) if !p.is_empty() && offset >= 0 => p,
            _ => return ptr::null_mut(),
        };
        let fs = fs.unwrap_or_else(crate::engine::io::std_fs);
        // SAFETY: the io params are valid per the contract.
        let opened = if unsafe { locking_requested(&io) } {
            SChunk::open_locking(path, offset, fs)
        } else {
            SChunk::open_with(path, offset, fs)
        };
        match opened {
            Ok(sc) => {
                let mut init = Init::from_engine(&sc, Some(path.to_string()));
                init.io = io;
                register(sc, init)
            }
            Err(_) => {
                // SAFETY: the caller's params, for its backend.
                unsafe { destroy_backend(&io) };
                ptr::null_mut()
            }
        }
    })
}

/// `blosc2_schunk_open_offset_udio` at offset 0.
///
/// # Safety
/// As for `blosc2_schunk_open_offset_udio`.
#[no_mangle]
pub unsafe extern "C" fn blosc2_schunk_open_udio(urlpath: *const c_char, udio: *const blosc2_io) -> *mut blosc2_schunk {
    // SAFETY: forwarded contract.
    unsafe { blosc2_schunk_open_offset_udio(urlpath, 0, udio) }
}

/// Open the frame in file (or sparse directory) `urlpath`; see
/// `blosc2_schunk_open_offset`.
///
/// # Safety
/// `urlpath` must be NULL or a NUL-terminated string.
#[no_mangle]
pub unsafe extern "C" fn blosc2_schunk_open(urlpath: *const c_char) -> *mut blosc2_schunk {
    // SAFETY: forwarded contract.
    unsafe { blosc2_schunk_open_offset(urlpath, 0) }
}

/// The caller's frame buffer, read in place by a super-chunk from
/// `blosc2_schunk_from_buffer`.
struct CallerFrame {
    ptr: *const u8,
    len: usize,
}

// SAFETY: the buffer is only read, never written, and 3.3.5's contract
// has the caller keep it alive and unchanged while the super-chunk (or
// the call, with `copy`) lives; reading it from any thread is sound.
unsafe impl Send for CallerFrame {}
// SAFETY: as above (shared reads only).
unsafe impl Sync for CallerFrame {}

impl LentBytes for CallerFrame {
    fn bytes(&self) -> &[u8] {
        // SAFETY: non-NULL and readable for `len` bytes (checked when made,
        // kept so by the caller; see the Send impl).
        unsafe { std::slice::from_raw_parts(self.ptr, self.len) }
    }
}

/// A super-chunk out of the contiguous frame of `len` bytes at `cframe`.
/// With `copy` false it reads the caller's buffer in place (contiguous
/// in-memory storage; the buffer must stay alive and unchanged until the
/// super-chunk is freed, as in 3.3.5; it is never written to: the first
/// edit of the chunk data copies it); with `copy` true it copies the
/// chunks into separate ones of its own. Returns NULL for NULL, short,
/// truncated or corrupted frames.
///
/// # Safety
/// `cframe` must be NULL or readable for `len` bytes.
#[no_mangle]
pub unsafe extern "C" fn blosc2_schunk_from_buffer(cframe: *mut u8, len: i64, copy: bool) -> *mut blosc2_schunk {
    ffi_boundary!(ptr::null_mut(), {
        if cframe.is_null() || len < FRAME_HEADER_MINLEN {
            return ptr::null_mut();
        }
        // SAFETY: readable for `len` bytes per the contract (this only
        // checks the pointer and length; the view is not kept).
        let Ok(view) = (unsafe { bytes(cframe.cast_const().cast(), len) }) else {
            return ptr::null_mut();
        };
        let lent = FrameBytes::Lent(Arc::new(CallerFrame {
            ptr: view.as_ptr(),
            len: view.len(),
        }));
        let Ok(mut sc) = SChunk::from_frame_bytes(lent, false) else {
            return ptr::null_mut();
        };
        // The parameters come from the frame header, as in 3.3.5, also
        // when the copy below sets the super-chunk's block size to the one
        // its chunks share.
        let mut init = Init::from_engine(&sc, None);
        if copy {
            if sc.detach_to_chunks().is_err() {
                return ptr::null_mut();
            }
            init.copied_frame = true;
        } else {
            init.user_cframe = cframe;
        }
        register(sc, init)
    })
}

/// Whether `blosc2_schunk_free` leaves alone (true, the default) or
/// `free()`s (false) the caller's frame buffer of a super-chunk made with
/// `blosc2_schunk_from_buffer(..., copy = false)`. No effect on other
/// super-chunks, NULL or unknown pointers.
///
/// # Safety
/// `schunk` must be NULL or a live super-chunk.
#[no_mangle]
pub unsafe extern "C" fn blosc2_schunk_avoid_cframe_free(schunk: *mut blosc2_schunk, avoid_cframe_free: bool) {
    ffi_boundary!((), {
        let _ = with_state(schunk, |st| {
            st.set_avoid_cframe_free(avoid_cframe_free);
            Ok(())
        });
    })
}

/// The super-chunk as a contiguous frame: for an in-memory contiguous
/// super-chunk `*cframe` points to its own frame (valid until it is edited
/// or freed, `*needs_free` false); otherwise to a `malloc`ed frame to
/// `free()` (`*needs_free` true). Returns the frame length, or a negative
/// code with `*cframe` NULL.
///
/// # Safety
/// `schunk` must be NULL or live; `cframe`/`needs_free` NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn blosc2_schunk_to_buffer(
    schunk: *mut blosc2_schunk,
    cframe: *mut *mut u8,
    needs_free: *mut bool,
) -> i64 {
    ffi_boundary!(i64::from(ERR_FAILURE), {
        // SAFETY: NULL or writable per the contract.
        unsafe {
            put(cframe, ptr::null_mut());
            put(needs_free, false);
        }
        if cframe.is_null() || needs_free.is_null() {
            return i64::from(super::boundary::ERR_NULL_POINTER);
        }
        let r = with_state(schunk, |st| {
            if let Some(b) = st.sc.cframe_ref().map_err(ecode)? {
                return Ok((b.as_ptr().cast_mut(), b.len(), false));
            }
            // Written straight into the malloc'ed buffer handed out: a copy
            // of a Vec would hold the frame twice at once.
            let buf = st.sc.to_cframe_with(MallocBuf::zeroed).map_err(|e| match e {
                crate::engine::error::Error::MemoryAlloc => ERR_MEMORY_ALLOC,
                _ => ERR_SCHUNK_COPY,
            })?;
            let len = buf.len();
            Ok((buf.into_raw(), len, true))
        });
        match r {
            Ok((p, len, free)) => {
                // SAFETY: both non-NULL and writable per the contract.
                unsafe {
                    cframe.write(p);
                    needs_free.write(free);
                }
                len as i64
            }
            Err(code) => i64::from(code),
        }
    })
}

/// Write the super-chunk as a contiguous frame file `urlpath` (replacing
/// it). Returns the frame length or a negative code.
///
/// # Safety
/// `schunk` must be NULL or live; `urlpath` NULL or NUL-terminated.
#[no_mangle]
pub unsafe extern "C" fn blosc2_schunk_to_file(schunk: *mut blosc2_schunk, urlpath: *const c_char) -> i64 {
    ffi_boundary!(i64::from(ERR_FAILURE), {
        // SAFETY: NULL or NUL-terminated per the contract.
        let path = match unsafe { path_arg(urlpath) } {
            Ok(p) => p,
            Err(_) => return i64::from(ERR_INVALID_PARAM),
        };
        with_state(schunk, |st| st.sc.to_file(path).map_err(ecode)).unwrap_or_else(i64::from)
    })
}

/// Append the super-chunk as a contiguous frame at the end of file
/// `urlpath` (created if missing). Returns the offset where the frame
/// starts (for `blosc2_schunk_open_offset`) or a negative code.
///
/// # Safety
/// `schunk` must be NULL or live; `urlpath` NULL or NUL-terminated.
#[no_mangle]
pub unsafe extern "C" fn blosc2_schunk_append_file(schunk: *mut blosc2_schunk, urlpath: *const c_char) -> i64 {
    ffi_boundary!(i64::from(ERR_FAILURE), {
        // SAFETY: NULL or NUL-terminated per the contract.
        let path = match unsafe { path_arg(urlpath) } {
            Ok(p) => p,
            Err(_) => return i64::from(ERR_INVALID_PARAM),
        };
        with_state(schunk, |st| st.sc.append_file(path).map_err(ecode)).unwrap_or_else(i64::from)
    })
}

/// Length of the super-chunk's frame in bytes (without a frame, the
/// estimate `cbytes + 8 * nchunks`), or a negative code.
///
/// # Safety
/// `schunk` must be NULL or a live super-chunk.
#[no_mangle]
pub unsafe extern "C" fn blosc2_schunk_frame_len(schunk: *mut blosc2_schunk) -> i64 {
    ffi_boundary!(i64::from(ERR_FAILURE), {
        with_state(schunk, |st| Ok(st.sc.frame_len())).unwrap_or_else(i64::from)
    })
}

/// The offsets of the frame's chunks (`nchunks` `int64_t`, relative to the
/// end of the header, special chunks with bit 63 set; chunk numbers for
/// sparse frames) in a `malloc`ed array to `free()`; NULL without a frame
/// or on error.
///
/// # Safety
/// `schunk` must be NULL or a live super-chunk.
#[no_mangle]
pub unsafe extern "C" fn blosc2_frame_get_offsets(schunk: *mut blosc2_schunk) -> *mut i64 {
    ffi_boundary!(ptr::null_mut(), {
        let r = with_state(schunk, |st| {
            let offs = st.sc.offsets().map_err(|_| ERR_FRAME_TYPE)?;
            let raw: Vec<u8> = offs.iter().flat_map(|o| o.to_ne_bytes()).collect();
            Ok(malloc_bytes(&raw).cast::<i64>())
        });
        r.unwrap_or(ptr::null_mut())
    })
}

/// Take the exclusive frame lock and hold it across calls until
/// `blosc2_schunk_unlock`. With file locking requested (`BLOSC_LOCKING`
/// or `blosc2_stdio_params.locking`) this is an exclusive `flock` on the
/// `.b2lock` sidecar shared with C-Blosc2 3.3.5 processes; otherwise
/// operations on one handle are only serialized in-process and this
/// returns 0, as 3.3.5 does.
///
/// # Safety
/// `schunk` must be NULL or a live super-chunk.
#[no_mangle]
pub unsafe extern "C" fn blosc2_schunk_lock(schunk: *mut blosc2_schunk) -> c_int {
    ffi_boundary!(ERR_FAILURE, {
        with_state(schunk, |st| st.sc.lock().map(|_| SUCCESS).map_err(ecode)).unwrap_or_else(|c| c)
    })
}

/// Release the frame lock taken with `blosc2_schunk_lock`. Returns 0 or
/// `BLOSC2_ERROR_LOCK`.
///
/// # Safety
/// `schunk` must be NULL or a live super-chunk.
#[no_mangle]
pub unsafe extern "C" fn blosc2_schunk_unlock(schunk: *mut blosc2_schunk) -> c_int {
    ffi_boundary!(ERR_FAILURE, {
        with_state(schunk, |st| st.sc.unlock().map(|_| SUCCESS).map_err(ecode)).unwrap_or_else(|c| c)
    })
}

/// Re-read a disk frame another handle (or process) may have changed:
/// counters, metalayers and vlmetalayers are updated. Returns 1 when
/// something changed, 0 when not (always for in-memory super-chunks), or
/// a negative code.
///
/// # Safety
/// `schunk` must be NULL or a live super-chunk.
#[no_mangle]
pub unsafe extern "C" fn blosc2_schunk_refresh(schunk: *mut blosc2_schunk) -> c_int {
    ffi_boundary!(ERR_FAILURE, {
        let h = match lookup(schunk) {
            Ok(h) => h,
            Err(code) => return code,
        };
        let mut g = match h.lock() {
            Ok(g) => g,
            Err(code) => return code,
        };
        let changed = g.follow_disk();
        g.sync();
        c_int::from(changed)
    })
}

/// Remove directory `path` and the files in it. Returns 0,
/// `BLOSC2_ERROR_INVALID_PARAM` for NULL/empty paths,
/// `BLOSC2_ERROR_NOT_FOUND` when it does not exist, or another negative
/// code.
///
/// # Safety
/// `path` must be NULL or a NUL-terminated string.
#[no_mangle]
pub unsafe extern "C" fn blosc2_remove_dir(path: *const c_char) -> c_int {
    ffi_boundary!(ERR_FAILURE, {
        // SAFETY: NULL or NUL-terminated per the contract.
        let p = match unsafe { path_arg(path) } {
            Ok(p) if !p.is_empty() => p,
            _ => return ERR_INVALID_PARAM,
        };
        let norm = crate::engine::frame::io::normalize_urlpath(p);
        if !std::path::Path::new(norm).is_dir() {
            return ERR_NOT_FOUND;
        }
        match eschunk::remove_dir(p) {
            Ok(()) => SUCCESS,
            Err(e) => ecode(e),
        }
    })
}

/// Remove a file or a directory. A NULL or missing path is not an error.
/// Returns 0 or a negative code.
///
/// # Safety
/// `path` must be NULL or a NUL-terminated string.
#[no_mangle]
pub unsafe extern "C" fn blosc2_remove_urlpath(path: *const c_char) -> c_int {
    ffi_boundary!(ERR_FAILURE, {
        if path.is_null() {
            return SUCCESS;
        }
        // SAFETY: NUL-terminated per the contract.
        let p = match unsafe { path_arg(path) } {
            Ok(p) => p,
            Err(code) => return code,
        };
        match eschunk::remove_urlpath(p) {
            Ok(()) => SUCCESS,
            Err(e) => ecode(e),
        }
    })
}

/// Rename a file or directory (replacing `new_path`). NULL arguments do
/// nothing. Returns 0, or `BLOSC2_ERROR_FAILURE` when `old_urlpath` does
/// not exist or cannot be renamed.
///
/// # Safety
/// Both must be NULL or NUL-terminated strings.
#[no_mangle]
pub unsafe extern "C" fn blosc2_rename_urlpath(old_urlpath: *mut c_char, new_path: *mut c_char) -> c_int {
    ffi_boundary!(ERR_FAILURE, {
        if old_urlpath.is_null() || new_path.is_null() {
            return SUCCESS;
        }
        // SAFETY: NUL-terminated per the contract.
        let (from, to) = match unsafe { (path_arg(old_urlpath), path_arg(new_path)) } {
            (Ok(a), Ok(b)) => (a, b),
            _ => return ERR_FAILURE,
        };
        match eschunk::rename_urlpath(from, to) {
            Ok(()) => SUCCESS,
            Err(_) => ERR_FAILURE,
        }
    })
}
