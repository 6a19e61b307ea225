//! The file system backend's callbacks (`blosc2_stdio_*`), which C code
//! also calls directly (user backends often wrap them). A stream is a
//! `malloc`ed `blosc2_stdio_file` holding a `FILE *`; transfers are
//! positioned (`pread`/`pwrite` through the engine), as in 3.3.5, so the
//! `FILE`'s own position and buffer are never used.

use std::ffi::{c_char, c_int, c_void};
use std::fs::File;
use std::mem::ManuallyDrop;
use std::path::Path;
use std::ptr;

use crate::engine::io::stdio;

use super::boundary::{c_str, ffi_boundary};
use super::types_schunk::blosc2_stdio_file;

/// The `FILE`'s descriptor as a borrowed `File` (never closed by Rust).
///
/// # Safety
/// `file` must be a live `FILE *`.
#[cfg(unix)]
unsafe fn borrowed(file: *mut libc::FILE) -> Option<ManuallyDrop<File>> {
    use std::os::fd::FromRawFd;
    // SAFETY: a live FILE per the contract.
    let fd = unsafe { libc::fileno(file) };
    // SAFETY: the descriptor stays open while the FILE is; ManuallyDrop
    // keeps Rust from closing it.
    (fd >= 0).then(|| ManuallyDrop::new(unsafe { File::from_raw_fd(fd) }))
}

/// The stream's `FILE`, NULL for a NULL stream.
///
/// # Safety
/// `stream` must be NULL or a `blosc2_stdio_file` from `blosc2_stdio_open`.
unsafe fn file_of(stream: *mut c_void) -> *mut libc::FILE {
    if stream.is_null() {
        return ptr::null_mut();
    }
    // SAFETY: per the contract.
    unsafe { (*stream.cast::<blosc2_stdio_file>()).file }
}

/// `size * nitems` as a byte count, when both are non-negative and the
/// product fits.
fn byte_count(size: i64, nitems: i64) -> Option<usize> {
    if size < 0 || nitems < 0 {
        return None;
    }
    usize::try_from(size.checked_mul(nitems)?).ok()
}

/// Open `urlpath` with a C `fopen` mode. Returns a stream for the other
/// `blosc2_stdio_*` functions, or NULL (NULL arguments, unknown modes,
/// files that cannot be opened). `params` is unused.
///
/// # Safety
/// `urlpath` and `mode` must be NULL or NUL-terminated.
#[no_mangle]
pub unsafe extern "C" fn blosc2_stdio_open(
    urlpath: *const c_char,
    mode: *const c_char,
    params: *mut c_void,
) -> *mut c_void {
    let _ = params;
    ffi_boundary!(ptr::null_mut(), {
        // SAFETY: NULL or NUL-terminated per the contract.
        let (Some(path), Some(m)) = (unsafe { c_str(urlpath) }, unsafe { c_str(mode) }) else {
            return ptr::null_mut();
        };
        let Ok(f) = stdio::open_c_mode(Path::new(path), m) else {
            return ptr::null_mut();
        };
        #[cfg(unix)]
        {
            use std::os::fd::IntoRawFd;
            let fd = f.into_raw_fd();
            // SAFETY: `fd` is ours; `mode` is NUL-terminated.
            let file = unsafe { libc::fdopen(fd, mode) };
            if file.is_null() {
                // SAFETY: still ours, closed once.
                unsafe { libc::close(fd) };
                return ptr::null_mut();
            }
            let s = super::alloc::malloc_value(blosc2_stdio_file { file });
            if s.is_null() {
                // SAFETY: our FILE, closed once.
                unsafe { libc::fclose(file) };
            }
            s.cast()
        }
        #[cfg(not(unix))]
        {
            drop(f);
            ptr::null_mut()
        }
    })
}

/// Close a stream from `blosc2_stdio_open` and free it. Returns 0, or -1
/// for NULL (or `fclose`'s error).
///
/// # Safety
/// `stream` must be NULL or a live stream from `blosc2_stdio_open`.
#[no_mangle]
pub unsafe extern "C" fn blosc2_stdio_close(stream: *mut c_void) -> c_int {
    ffi_boundary!(-1, {
        // SAFETY: per the contract.
        let file = unsafe { file_of(stream) };
        if file.is_null() {
            return -1;
        }
        // SAFETY: a live FILE and our malloc'ed wrapper, released once.
        unsafe {
            let rc = libc::fclose(file);
            libc::free(stream);
            rc
        }
    })
}

/// Size of the stream's file in bytes, or -1.
///
/// # Safety
/// `stream` must be NULL or a live stream from `blosc2_stdio_open`.
#[no_mangle]
pub unsafe extern "C" fn blosc2_stdio_size(stream: *mut c_void) -> i64 {
    ffi_boundary!(-1, {
        // SAFETY: per the contract.
        let file = unsafe { file_of(stream) };
        if file.is_null() {
            return -1;
        }
        // SAFETY: a live FILE.
        let Some(f) = (unsafe { borrowed(file) }) else {
            return -1;
        };
        stdio::size(&f).ok().and_then(|n| i64::try_from(n).ok()).unwrap_or(-1)
    })
}

/// Write `nitems` items of `size` bytes at `position`. Returns the number
/// of whole items written (0 on invalid arguments).
///
/// # Safety
/// `ptr` must be readable for `size * nitems` bytes; `stream` NULL or live.
#[no_mangle]
pub unsafe extern "C" fn blosc2_stdio_write(
    ptr: *const c_void,
    size: i64,
    nitems: i64,
    position: i64,
    stream: *mut c_void,
) -> i64 {
    ffi_boundary!(0, {
        // SAFETY: per the contract.
        let file = unsafe { file_of(stream) };
        let Some(n) = byte_count(size, nitems) else { return 0 };
        if file.is_null() || ptr.is_null() || position < 0 {
            return 0;
        }
        // SAFETY: a live FILE.
        let Some(f) = (unsafe { borrowed(file) }) else { return 0 };
        // SAFETY: readable for `n` bytes per the contract.
        let data = unsafe { std::slice::from_raw_parts(ptr.cast::<u8>(), n) };
        let done = stdio::write_at(&f, position as u64, data);
        if size > 0 {
            done as i64 / size
        } else {
            0
        }
    })
}

/// Read `nitems` items of `size` bytes at `position` into `*ptr`. Returns
/// the number of whole items read (0 on invalid arguments or a NULL
/// `*ptr`).
///
/// # Safety
/// `ptr` must be NULL or point to a buffer pointer writable for
/// `size * nitems` bytes; `stream` NULL or live.
#[no_mangle]
pub unsafe extern "C" fn blosc2_stdio_read(
    ptr: *mut *mut c_void,
    size: i64,
    nitems: i64,
    position: i64,
    stream: *mut c_void,
) -> i64 {
    ffi_boundary!(0, {
        // SAFETY: per the contract.
        let file = unsafe { file_of(stream) };
        let Some(n) = byte_count(size, nitems) else { return 0 };
        if file.is_null() || ptr.is_null() || position < 0 {
            return 0;
        }
        // SAFETY: a valid pointer per the contract.
        let buf = unsafe { *ptr };
        if buf.is_null() {
            return 0;
        }
        // SAFETY: a live FILE.
        let Some(f) = (unsafe { borrowed(file) }) else { return 0 };
        // SAFETY: writable for `n` bytes per the contract.
        let out = unsafe { std::slice::from_raw_parts_mut(buf.cast::<u8>(), n) };
        let done = stdio::read_at(&f, position as u64, out);
        if size > 0 {
            done as i64 / size
        } else {
            0
        }
    })
}

/// Cut or extend the stream's file to `size` bytes. Returns 0 or -1.
///
/// # Safety
/// `stream` must be NULL or a live stream from `blosc2_stdio_open`.
#[no_mangle]
pub unsafe extern "C" fn blosc2_stdio_truncate(stream: *mut c_void, size: i64) -> c_int {
    ffi_boundary!(-1, {
        // SAFETY: per the contract.
        let file = unsafe { file_of(stream) };
        if file.is_null() || size < 0 {
            return -1;
        }
        // SAFETY: a live FILE.
        let Some(f) = (unsafe { borrowed(file) }) else {
            return -1;
        };
        match stdio::truncate(&f, size as u64) {
            Ok(()) => 0,
            Err(_) => -1,
        }
    })
}

/// Release the backend's params: nothing to do for the file system.
///
/// # Safety
/// None (the pointer is not used).
#[no_mangle]
pub unsafe extern "C" fn blosc2_stdio_destroy(params: *mut c_void) -> c_int {
    let _ = params;
    0
}
