//! The memory-mapped file backend's callbacks (`blosc2_stdio_mmap_*`).
//!
//! The stream is the caller's `blosc2_stdio_mmap` itself, as in 3.3.5:
//! `open` maps the file once per struct (later opens of the same path
//! return it, other paths are refused) and fills its public fields
//! (`addr`, `urlpath`, `file_size`, `mapping_size`, `is_memory_only`,
//! `file`, `fd`, `access_flags`, `map_flags`), kept current after every
//! write and truncation; `destroy` unmaps, closes and frees what `open`
//! allocated (and the struct itself when `needs_free`). The mapping is the
//! engine's [`MmapFile`], kept here by the struct's address.

use crate::engine::io::mmap::{MmapFile, MmapMode};
use crate::engine::threads::fork_lock::{ForkLock, ForkSlots};
use std::collections::BTreeMap;
use std::ffi::{c_char, c_int, c_void, CStr};
use std::path::Path;
use std::ptr;
use std::sync::Arc;

use super::alloc::malloc_cstring;
use super::boundary::{c_str, ffi_boundary};
use super::types_schunk::blosc2_stdio_mmap;

/// An open mapping. Each has its own lock, so that a process forked while
/// a parent's thread was inside one loses only that one (see `ForkLock`).
type Shared = Arc<ForkLock<MmapFile>>;

/// The open mappings, by the address of their `blosc2_stdio_mmap`.
static MAPS: ForkSlots<BTreeMap<usize, Shared>> = ForkSlots::new();

/// The table could not be had (see `ForkSlots::lock`).
struct Unavailable;

/// The mapping open at `at`, None when `at` is not one of ours.
fn mapping(at: *mut c_void) -> Result<Option<Shared>, Unavailable> {
    let maps = MAPS.lock_mirrored().ok_or(Unavailable)?;
    Ok(maps.get(&(at as usize)).cloned())
}

/// Use the mapping alone; None (traced) when a fork caught a parent's
/// thread inside it.
fn using<R>(m: &Shared, f: impl FnOnce(&mut MmapFile) -> R) -> Option<R> {
    match m.lock() {
        Ok(mut g) => Some(f(&mut g)),
        Err(_) => {
            trace_error("The memory-mapped file is unavailable: a fork caught a thread using it.");
            None
        }
    }
}

/// `[info]` lines, printed when `BLOSC_INFO` is set (3.3.5's `BLOSC_INFO`).
fn info(msg: &str) {
    if std::env::var_os("BLOSC_INFO").is_some() {
        eprintln!("[INFO] - {msg}");
    }
}

/// `[error]` lines, printed when `BLOSC_TRACE` is set.
fn trace_error(msg: &str) {
    if std::env::var_os("BLOSC_TRACE").is_some() {
        eprintln!("[error] - {msg} ({}:{})", file!(), line!());
    }
}

/// Copy the mapping's state into the public struct.
fn publish(s: &mut blosc2_stdio_mmap, m: &MmapFile) {
    s.addr = m.addr().cast_mut().cast::<c_char>();
    s.file_size = m.size() as usize;
    s.mapping_size = m.mapping_size();
}

#[cfg(unix)]
fn os_flags(mode: MmapMode) -> (i64, i64) {
    let access = match mode {
        MmapMode::Read => libc::PROT_READ,
        _ => libc::PROT_READ | libc::PROT_WRITE,
    };
    let map = if mode.memory_only() {
        libc::MAP_PRIVATE
    } else {
        libc::MAP_SHARED
    };
    (i64::from(access), i64::from(map))
}

#[cfg(not(unix))]
fn os_flags(_mode: MmapMode) -> (i64, i64) {
    (-1, -1)
}

/// A `FILE *` on a duplicate of the mapping's descriptor (3.3.5's `file`
/// field), NULL where that is not possible.
#[cfg(unix)]
fn stream_for(m: &MmapFile) -> (*mut libc::FILE, c_int) {
    use std::os::fd::AsRawFd;
    let fd = m.file().as_raw_fd();
    let mode = if m.mode() == MmapMode::Read || m.mode().memory_only() {
        c"rb"
    } else {
        c"rb+"
    };
    // SAFETY: `fd` is open; the duplicate is owned by the FILE (closed by
    // `destroy`) or closed here on failure.
    unsafe {
        let dup = libc::dup(fd);
        if dup < 0 {
            return (ptr::null_mut(), fd);
        }
        let f = libc::fdopen(dup, mode.as_ptr());
        if f.is_null() {
            libc::close(dup);
        }
        (f, fd)
    }
}

#[cfg(not(unix))]
fn stream_for(_m: &MmapFile) -> (*mut libc::FILE, c_int) {
    (ptr::null_mut(), -1)
}

/// Map `urlpath` as `params` (a `blosc2_stdio_mmap`) asks and return
/// `params` as the stream. Mapping happens once per struct: later calls
/// with the same path return it again, other paths (a sparse frame's chunk
/// files) give NULL. NULL also for NULL arguments, a NULL or unknown mode
/// (`r`, `r+`, `w+`, `c`), and files that cannot be opened or mapped.
/// `mode` is ignored (the struct's mode decides); the struct's `mode` is
/// set to NULL once mapped, as 3.3.5 does.
///
/// # Safety
/// `urlpath` must be NULL or NUL-terminated; `params` NULL or a valid
/// `blosc2_stdio_mmap` whose `mode` is NULL or NUL-terminated.
#[no_mangle]
pub unsafe extern "C" fn blosc2_stdio_mmap_open(
    urlpath: *const c_char,
    mode: *const c_char,
    params: *mut c_void,
) -> *mut c_void {
    let _ = mode;
    ffi_boundary!(ptr::null_mut(), {
        if urlpath.is_null() || params.is_null() {
            trace_error("Invalid arguments for memory-mapped open.");
            return ptr::null_mut();
        }
        // SAFETY: valid per the contract.
        let s = unsafe { &mut *params.cast::<blosc2_stdio_mmap>() };
        // SAFETY: NUL-terminated per the contract.
        let path = unsafe { CStr::from_ptr(urlpath) };
        let Ok(open) = mapping(params) else {
            return ptr::null_mut();
        };
        if let Some(m) = open {
            // SAFETY: our own malloc'ed copy of the path.
            let same = !s.urlpath.is_null() && unsafe { CStr::from_ptr(s.urlpath) } == path;
            if !same {
                trace_error("The memory-mapped file is already opened with another path (sparse frames cannot be memory-mapped).");
                return ptr::null_mut();
            }
            return match using(&m, |m| publish(s, m)) {
                Some(()) => params,
                None => ptr::null_mut(),
            };
        }
        if !s.addr.is_null() {
            trace_error("Memory-mapped file has invalid state: it is not open here.");
            return ptr::null_mut();
        }
        // SAFETY: NULL or NUL-terminated per the contract.
        let Some(mode_str) = (unsafe { c_str(s.mode) }) else {
            trace_error("Memory-mapped mode is NULL.");
            return ptr::null_mut();
        };
        let Some(mode) = MmapMode::parse(mode_str) else {
            trace_error(&format!("Mode {mode_str} not supported for memory-mapped files."));
            return ptr::null_mut();
        };
        let Ok(path_str) = path.to_str() else {
            return ptr::null_mut();
        };
        let m = match MmapFile::open(Path::new(path_str), mode, s.initial_mapping_size) {
            Ok(m) => m,
            Err(_) => {
                trace_error(&format!("Cannot open or map the file {path_str} in mode {mode_str}."));
                return ptr::null_mut();
            }
        };
        let owned_path = malloc_cstring(path_str);
        if owned_path.is_null() {
            return ptr::null_mut();
        }
        let (file, fd) = stream_for(&m);
        let (access, map) = os_flags(mode);
        s.urlpath = owned_path;
        s.is_memory_only = mode.memory_only();
        s.file = file;
        s.fd = fd;
        s.access_flags = access;
        s.map_flags = map;
        publish(s, &m);
        info(&format!(
            "Opened memory-mapped file {path_str} in mode {mode_str} with an mapping size of {} bytes.",
            m.mapping_size()
        ));
        let m: Shared = Arc::new(ForkLock::new(m));
        if MAPS.change(|maps| maps.insert(params as usize, m.clone())).is_none() {
            return ptr::null_mut();
        }
        s.mode = ptr::null();
        params
    })
}

/// Nothing to do: the mapping lives until `blosc2_stdio_mmap_destroy`.
///
/// # Safety
/// None (the pointer is not used).
#[no_mangle]
pub unsafe extern "C" fn blosc2_stdio_mmap_close(stream: *mut c_void) -> c_int {
    let _ = stream;
    0
}

/// The mapped file's size (`file_size`, kept current by every write and
/// truncation), or -1 for NULL.
///
/// # Safety
/// `stream` must be NULL or a valid `blosc2_stdio_mmap`.
#[no_mangle]
pub unsafe extern "C" fn blosc2_stdio_mmap_size(stream: *mut c_void) -> i64 {
    ffi_boundary!(-1, {
        if stream.is_null() {
            return -1;
        }
        // SAFETY: valid per the contract.
        let s = unsafe { &*stream.cast::<blosc2_stdio_mmap>() };
        i64::try_from(s.file_size).unwrap_or(i64::MAX)
    })
}

/// The caller's own mapped region of a struct this library did not open
/// (3.3.5's functions work on any struct whose `addr`, `file_size` and
/// `mapping_size` describe memory): the bytes `[pos, pos + n)` when they
/// lie within both sizes.
///
/// # Safety
/// `s.addr` must be NULL or valid for `min(file_size, mapping_size)` bytes.
unsafe fn caller_region<'a>(s: &blosc2_stdio_mmap, pos: u64, n: usize) -> Option<&'a mut [u8]> {
    let start = usize::try_from(pos).ok()?;
    let end = start.checked_add(n)?;
    if s.addr.is_null() || end > s.file_size || end > s.mapping_size {
        return None;
    }
    // SAFETY: within the region the struct describes, per the contract.
    Some(unsafe { std::slice::from_raw_parts_mut(s.addr.cast::<u8>().add(start), n) })
}

/// `size * nitems` and `position + size * nitems`, when all fit.
fn extent(size: i64, nitems: i64, position: i64) -> Option<(usize, u64)> {
    if size < 0 || nitems < 0 || position < 0 {
        return None;
    }
    let n = size.checked_mul(nitems)?;
    position.checked_add(n)?;
    Some((usize::try_from(n).ok()?, position as u64))
}

/// Write `nitems` items of `size` bytes at `position`, growing the file
/// and the mapping as needed (in mode `c` only in memory). Returns
/// `nitems`, or 0 on invalid arguments, a read-only mapping or a failure.
/// A struct this library did not open is written in the region its
/// `addr` and sizes describe (no growth).
///
/// # Safety
/// `ptr` must be NULL or readable for `size * nitems` bytes; `stream` NULL
/// or a valid `blosc2_stdio_mmap` (opened by `blosc2_stdio_mmap_open`, or
/// describing memory the caller mapped).
#[no_mangle]
pub unsafe extern "C" fn blosc2_stdio_mmap_write(
    ptr: *const c_void,
    size: i64,
    nitems: i64,
    position: i64,
    stream: *mut c_void,
) -> i64 {
    ffi_boundary!(0, {
        let Some((n, pos)) = extent(size, nitems, position) else {
            trace_error("Invalid arguments for mmap write.");
            return 0;
        };
        if ptr.is_null() || n == 0 {
            return 0;
        }
        if stream.is_null() {
            return 0;
        }
        // SAFETY: readable for `n` bytes per the contract.
        let data = unsafe { std::slice::from_raw_parts(ptr.cast::<u8>(), n) };
        let Ok(open) = mapping(stream) else {
            return 0;
        };
        let Some(m) = open else {
            // SAFETY: a valid struct per the contract.
            let s = unsafe { &*stream.cast::<blosc2_stdio_mmap>() };
            // SAFETY: the region the struct describes.
            return match unsafe { caller_region(s, pos, n) } {
                Some(dst) => {
                    dst.copy_from_slice(data);
                    nitems
                }
                None => 0,
            };
        };
        // SAFETY: the open struct per the contract.
        let s = unsafe { &mut *stream.cast::<blosc2_stdio_mmap>() };
        let written = using(&m, |m| {
            let r = m.write(pos, data);
            publish(s, m);
            r.is_ok()
        });
        if written != Some(true) {
            trace_error("Cannot write to the memory-mapped file.");
            return 0;
        }
        nitems
    })
}

/// Point `*ptr` at the `size * nitems` mapped bytes at `position` (valid
/// until the next write, truncation or destroy). Returns `nitems`, or 0
/// with `*ptr` NULL for invalid arguments or bytes past the end.
///
/// # Safety
/// `ptr` must be NULL or writable; `stream` NULL or a valid
/// `blosc2_stdio_mmap` (as for `blosc2_stdio_mmap_write`).
#[no_mangle]
pub unsafe extern "C" fn blosc2_stdio_mmap_read(
    ptr: *mut *mut c_void,
    size: i64,
    nitems: i64,
    position: i64,
    stream: *mut c_void,
) -> i64 {
    ffi_boundary!(0, {
        if ptr.is_null() {
            return 0;
        }
        // SAFETY: writable per the contract.
        unsafe { *ptr = ptr::null_mut() };
        let Some((n, pos)) = extent(size, nitems, position) else {
            trace_error("Invalid arguments for mmap read.");
            return 0;
        };
        if stream.is_null() {
            return 0;
        }
        let Ok(open) = mapping(stream) else {
            return 0;
        };
        let Some(m) = open else {
            // SAFETY: a valid struct per the contract.
            let s = unsafe { &*stream.cast::<blosc2_stdio_mmap>() };
            // SAFETY: the region the struct describes.
            return match unsafe { caller_region(s, pos, n) } {
                Some(src) => {
                    // SAFETY: writable per the contract.
                    unsafe { *ptr = src.as_mut_ptr().cast() };
                    nitems
                }
                None => 0,
            };
        };
        // The mapped bytes stay where they are until the next write,
        // truncation or destroy, as the contract says.
        match using(&m, |m| m.read(pos, n).map(|bytes| bytes.as_ptr())) {
            Some(Ok(at)) => {
                // SAFETY: writable per the contract.
                unsafe { *ptr = at.cast_mut().cast() };
                nitems
            }
            Some(Err(_)) => {
                trace_error("Cannot read beyond the end of the memory-mapped file.");
                0
            }
            None => 0,
        }
    })
}

/// Set the file size to `size` (the file itself is not changed in mode
/// `c`). Returns 0, or -1 for a negative size, a stream that is not open
/// or a failure.
///
/// # Safety
/// `stream` must be NULL or a `blosc2_stdio_mmap`.
#[no_mangle]
pub unsafe extern "C" fn blosc2_stdio_mmap_truncate(stream: *mut c_void, size: i64) -> c_int {
    ffi_boundary!(-1, {
        if size < 0 {
            return -1;
        }
        let Ok(Some(m)) = mapping(stream) else {
            return -1;
        };
        // SAFETY: the open struct per the contract.
        let s = unsafe { &mut *stream.cast::<blosc2_stdio_mmap>() };
        let truncated = using(&m, |m| {
            let r = m.truncate(size as u64);
            publish(s, m);
            r.is_ok()
        });
        if truncated == Some(true) {
            0
        } else {
            -1
        }
    })
}

/// Unmap (after writing modified pages of a shared mapping back) and close
/// the file, free the path copy, and the struct itself when `needs_free`.
/// Returns 0, or -1 for NULL, a struct that was never opened (it is still
/// released) or a failure to sync.
///
/// # Safety
/// `params` must be NULL or a valid `blosc2_stdio_mmap` (`malloc`ed when
/// `needs_free`), not used again when it was freed.
#[no_mangle]
pub unsafe extern "C" fn blosc2_stdio_mmap_destroy(params: *mut c_void) -> c_int {
    ffi_boundary!(-1, {
        if params.is_null() {
            return -1;
        }
        // Without the table (see `mapping`) the struct's own memory is
        // still released.
        let m = MAPS.change(|maps| maps.remove(&(params as usize))).flatten();
        // SAFETY: valid per the contract.
        let s = unsafe { &mut *params.cast::<blosc2_stdio_mmap>() };
        let mut err = 0;
        match m {
            Some(m) => {
                if using(&m, |m| m.flush().is_ok()) != Some(true) {
                    trace_error("Cannot sync the memory-mapped file to disk.");
                    err = -1;
                }
                // Unmapped with the last reference (a read of another
                // thread may still hold one).
                drop(m);
            }
            None => {
                trace_error("Invalid memory-mapped state during destroy.");
                err = -1;
            }
        }
        if !s.file.is_null() {
            // SAFETY: the FILE `open` made, closed once.
            if unsafe { libc::fclose(s.file) } != 0 {
                err = -1;
            }
        }
        // SAFETY: NULL or our malloc'ed path copy.
        unsafe { libc::free(s.urlpath.cast()) };
        s.urlpath = ptr::null_mut();
        s.file = ptr::null_mut();
        s.addr = ptr::null_mut();
        if s.needs_free {
            // SAFETY: malloc'ed per the contract; not used after this.
            unsafe { libc::free(params) };
        }
        err
    })
}
