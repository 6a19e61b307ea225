//! Version, codec names, error strings, timing helpers and the parameter
//! defaults getters.

use std::ffi::{c_char, c_int, CStr};
#[cfg(windows)]
use std::sync::OnceLock;

use crate::engine::codecs;
use crate::engine::error::Error;
use crate::engine::plugins::registry;

use super::alloc::malloc_cstring;
use super::boundary::{c_str, ffi_boundary, put, ERR_FAILURE, ERR_NOT_FOUND, ERR_NULL_POINTER};
use super::defaults::{CPARAMS_DEFAULTS, DPARAMS_DEFAULTS};
use super::global::static_compname;
use super::types::{blosc2_cparams, blosc2_dparams, blosc2_io};
use super::types_schunk::{blosc2_stdio_mmap, blosc2_storage, blosc_timestamp_t};

/// The library version, "3.3.5".
#[no_mangle]
pub extern "C" fn blosc2_get_version_string() -> *const c_char {
    // "2.23.1" in the 2.23 ABI (include/v2 says so too).
    if cfg!(feature = "abi-v2") {
        c"2.23.1".as_ptr()
    } else {
        c"3.3.5".as_ptr()
    }
}

/// Comma-separated names of the codecs in this build.
#[no_mangle]
pub extern "C" fn blosc2_list_compressors() -> *const c_char {
    ffi_boundary!(std::ptr::null(), { codecs::COMPRESSOR_LIST_C.as_ptr() })
}

/// Name of codec `compcode` in `*compname` (NULL when unknown). Returns
/// the code, or -1 when unknown.
///
/// # Safety
/// `compname` must be NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn blosc2_compcode_to_compname(compcode: c_int, compname: *mut *const c_char) -> c_int {
    ffi_boundary!(ERR_FAILURE, {
        if compname.is_null() {
            return ERR_NULL_POINTER;
        }
        let name = static_compname(compcode).or_else(|| super::plugins::plugin_compname(compcode));
        // SAFETY: non-NULL and writable per the contract.
        unsafe { put(compname, name.map_or(std::ptr::null(), CStr::as_ptr)) };
        name.map_or(-1, |_| compcode)
    })
}

/// Code of the codec named `compname`, or -1 when unknown.
///
/// # Safety
/// `compname` must be NULL or a NUL-terminated string.
#[no_mangle]
pub unsafe extern "C" fn blosc2_compname_to_compcode(compname: *const c_char) -> c_int {
    ffi_boundary!(ERR_FAILURE, {
        if compname.is_null() {
            return ERR_NULL_POINTER;
        }
        // SAFETY: non-NULL and NUL-terminated per the contract.
        let name = unsafe { c_str(compname) }.unwrap_or("");
        codecs::compcode(name)
            .or_else(|| registry::codec_id(name))
            .map_or(-1, c_int::from)
    })
}

/// Library name and version of the codec named `compname`, as new
/// strings in `*complib` and `*version` that the caller must `free()`.
/// Returns the library code, or a negative code (then both are NULL).
///
/// # Safety
/// `compname` must be NULL or a NUL-terminated string; `complib` and
/// `version` NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn blosc2_get_complib_info(
    compname: *const c_char,
    complib: *mut *mut c_char,
    version: *mut *mut c_char,
) -> c_int {
    ffi_boundary!(ERR_FAILURE, {
        // SAFETY: NULL or writable per the contract.
        unsafe {
            put(complib, std::ptr::null_mut());
            put(version, std::ptr::null_mut());
        }
        if compname.is_null() {
            return ERR_NULL_POINTER;
        }
        // SAFETY: non-NULL and NUL-terminated per the contract.
        let name = unsafe { c_str(compname) }.unwrap_or("");
        let (libcode, lib, ver) = match (codecs::compcode(name), codecs::complib_info(name)) {
            (Some(code), Some((lib, ver))) => (
                c_int::from(crate::engine::header::codec_format_of(code)),
                lib.to_string(),
                ver,
            ),
            // Plugin codecs: 3.3.5 names the library after the first codec
            // registered with that library number, version "unknown".
            _ => match registry::codec_complib(name) {
                Some(lib) => (
                    c_int::from(lib),
                    registry::complib_name(lib).unwrap_or_default(),
                    "unknown".to_string(),
                ),
                None => return ERR_NOT_FOUND,
            },
        };
        // SAFETY: NULL or writable per the contract.
        unsafe {
            if !complib.is_null() {
                put(complib, malloc_cstring(&lib));
            }
            if !version.is_null() {
                put(version, malloc_cstring(&ver));
            }
        }
        libcode
    })
}

/// Static description of an error code ("Unknown error" for others).
#[no_mangle]
pub extern "C" fn blosc2_error_string(error_code: c_int) -> *const c_char {
    // Code 0 is not described by 3.3.5 either: "Unknown error".
    ffi_boundary!(c"Unknown error".as_ptr(), {
        Error::describe_code_c(error_code).as_ptr()
    })
}

/// Store the current time of a monotonic clock in `*timestamp`.
///
/// # Safety
/// `timestamp` must be NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn blosc_set_timestamp(timestamp: *mut blosc_timestamp_t) {
    ffi_boundary!((), {
        if timestamp.is_null() {
            return;
        }
        #[cfg(not(windows))]
        // SAFETY: non-NULL and writable per the contract.
        unsafe {
            libc::clock_gettime(libc::CLOCK_MONOTONIC, timestamp);
        }
        #[cfg(windows)]
        {
            let ns = START.get_or_init(std::time::Instant::now).elapsed().as_nanos();
            // SAFETY: non-NULL and writable per the contract.
            unsafe { put(timestamp, i64::try_from(ns).unwrap_or(i64::MAX)) };
        }
    })
}

#[cfg(windows)]
static START: OnceLock<std::time::Instant> = OnceLock::new();

/// Nanoseconds from `start_time` to `end_time`.
#[no_mangle]
pub extern "C" fn blosc_elapsed_nsecs(start_time: blosc_timestamp_t, end_time: blosc_timestamp_t) -> f64 {
    #[cfg(not(windows))]
    {
        1e9 * (end_time.tv_sec - start_time.tv_sec) as f64 + (end_time.tv_nsec - start_time.tv_nsec) as f64
    }
    #[cfg(windows)]
    {
        (end_time - start_time) as f64
    }
}

/// Seconds from `start_time` to `end_time`.
#[no_mangle]
pub extern "C" fn blosc_elapsed_secs(start_time: blosc_timestamp_t, end_time: blosc_timestamp_t) -> f64 {
    1e-9 * blosc_elapsed_nsecs(start_time, end_time)
}

/// `BLOSC2_CPARAMS_DEFAULTS`, for languages that cannot read the header.
#[no_mangle]
pub extern "C" fn blosc2_get_blosc2_cparams_defaults() -> blosc2_cparams {
    CPARAMS_DEFAULTS
}

/// `BLOSC2_DPARAMS_DEFAULTS`.
#[no_mangle]
pub extern "C" fn blosc2_get_blosc2_dparams_defaults() -> blosc2_dparams {
    DPARAMS_DEFAULTS
}

/// `BLOSC2_STORAGE_DEFAULTS`.
#[no_mangle]
pub extern "C" fn blosc2_get_blosc2_storage_defaults() -> blosc2_storage {
    blosc2_storage {
        contiguous: false,
        urlpath: std::ptr::null_mut(),
        cparams: std::ptr::null_mut(),
        dparams: std::ptr::null_mut(),
        io: std::ptr::null_mut(),
    }
}

/// `BLOSC2_IO_DEFAULTS`.
#[no_mangle]
pub extern "C" fn blosc2_get_blosc2_io_defaults() -> blosc2_io {
    blosc2_io {
        id: 0,
        name: c"filesystem".as_ptr(),
        params: std::ptr::null_mut(),
    }
}

/// `BLOSC2_STDIO_MMAP_DEFAULTS`.
#[no_mangle]
pub extern "C" fn blosc2_get_blosc2_stdio_mmap_defaults() -> blosc2_stdio_mmap {
    blosc2_stdio_mmap {
        mode: c"r".as_ptr(),
        initial_mapping_size: 1 << 30,
        needs_free: false,
        addr: std::ptr::null_mut(),
        urlpath: std::ptr::null_mut(),
        // 2.x declares these int64_t and defaults them to -1.
        file_size: if cfg!(feature = "abi-v2") { usize::MAX } else { 0 },
        mapping_size: if cfg!(feature = "abi-v2") { usize::MAX } else { 0 },
        is_memory_only: false,
        file: std::ptr::null_mut(),
        fd: -1,
        access_flags: -1,
        map_flags: -1,
    }
}
