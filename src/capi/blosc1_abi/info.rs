//! Chunk inspection (`blosc_cbuffer_*`), codec names and versions.
//!
//! The `cbuffer` functions read only the 16-byte header and, as in 1.21,
//! report zeros for a chunk of another format version.

use std::ffi::{c_char, c_int, c_void, CStr};

use super::super::boundary::{ffi_boundary, put};
use super::super::misc::{blosc2_compname_to_compcode, blosc2_get_complib_info, blosc2_list_compressors};
use super::compress::static_compname;
use super::decompress::{Header, VERSION_FORMAT};
use super::rules::{MAX_BUFFERSIZE, MAX_OVERHEAD};

/// The header at `cbuffer` when it is of the format 1.21 reads.
///
/// # Safety
/// `cbuffer` must be NULL or readable for 16 bytes.
unsafe fn v1_header(cbuffer: *const c_void) -> Option<Header> {
    // SAFETY: per the contract.
    unsafe { Header::read(cbuffer) }.filter(|h| h.version == VERSION_FORMAT)
}

/// Uncompressed size, compressed size and block size of the chunk at
/// `cbuffer` (zeros for another format version).
///
/// # Safety
/// `cbuffer` must be NULL or readable for 16 bytes; the outputs NULL or
/// writable.
#[no_mangle]
pub unsafe extern "C" fn blosc_cbuffer_sizes(
    cbuffer: *const c_void,
    nbytes: *mut usize,
    cbytes: *mut usize,
    blocksize: *mut usize,
) {
    ffi_boundary!((), {
        // SAFETY: per the contract.
        let h = unsafe { v1_header(cbuffer) };
        // Negative sizes are sign-extended, as 1.21's cast does.
        let (n, c, b) = h.map_or((0, 0, 0), |h| {
            (h.nbytes as usize, h.cbytes as usize, h.blocksize as usize)
        });
        // SAFETY: NULL or writable per the contract.
        unsafe {
            put(nbytes, n);
            put(cbytes, c);
            put(blocksize, b);
        }
    })
}

/// Check that `cbytes` bytes at `cbuffer` may hold a chunk (its header
/// says so). Stores the uncompressed size in `*nbytes`. Returns 0 or -1.
///
/// # Safety
/// `cbuffer` must be NULL or readable for 16 bytes (when `cbytes` >= 16);
/// `nbytes` NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn blosc_cbuffer_validate(cbuffer: *const c_void, cbytes: usize, nbytes: *mut usize) -> c_int {
    ffi_boundary!(-1, {
        if cbytes < MAX_OVERHEAD as usize {
            return -1;
        }
        let (mut n, mut c) = (0usize, 0usize);
        // SAFETY: per the contract; the outputs are locals.
        unsafe { blosc_cbuffer_sizes(cbuffer, &mut n, &mut c, std::ptr::null_mut()) };
        // SAFETY: NULL or writable per the contract.
        unsafe { put(nbytes, n) };
        if c != cbytes || n > MAX_BUFFERSIZE as usize {
            return -1;
        }
        0
    })
}

/// Typesize and the low three flag bits (`BLOSC_DOSHUFFLE`,
/// `BLOSC_MEMCPYED`, `BLOSC_DOBITSHUFFLE`) of the chunk at `cbuffer`.
///
/// # Safety
/// As for `blosc_cbuffer_sizes`.
#[no_mangle]
pub unsafe extern "C" fn blosc_cbuffer_metainfo(cbuffer: *const c_void, typesize: *mut usize, flags: *mut c_int) {
    ffi_boundary!((), {
        // SAFETY: per the contract.
        let h = unsafe { v1_header(cbuffer) };
        let (t, f) = h.map_or((0, 0), |h| (usize::from(h.typesize), c_int::from(h.flags & 7)));
        // SAFETY: NULL or writable per the contract.
        unsafe {
            put(typesize, t);
            put(flags, f);
        }
    })
}

/// Format version and codec format version of the chunk at `cbuffer`.
///
/// # Safety
/// As for `blosc_cbuffer_sizes`.
#[no_mangle]
pub unsafe extern "C" fn blosc_cbuffer_versions(cbuffer: *const c_void, version: *mut c_int, versionlz: *mut c_int) {
    ffi_boundary!((), {
        // SAFETY: per the contract.
        let (v, vlz) = unsafe { Header::read(cbuffer) }.map_or((0, 0), |h| (h.version, h.versionlz));
        // SAFETY: NULL or writable per the contract.
        unsafe {
            put(version, c_int::from(v));
            put(versionlz, c_int::from(vlz));
        }
    })
}

/// Name of the codec library of the chunk at `cbuffer` ("BloscLZ", "LZ4",
/// "Snappy", "Zlib", "Zstd"), NULL for other codes.
///
/// # Safety
/// `cbuffer` must be NULL or readable for 16 bytes.
#[no_mangle]
pub unsafe extern "C" fn blosc_cbuffer_complib(cbuffer: *const c_void) -> *const c_char {
    ffi_boundary!(std::ptr::null(), {
        // SAFETY: per the contract.
        let Some(h) = (unsafe { Header::read(cbuffer) }) else {
            return std::ptr::null();
        };
        let name: &CStr = match h.flags >> 5 {
            0 => c"BloscLZ",
            1 => c"LZ4",
            2 => c"Snappy",
            3 => c"Zlib",
            4 => c"Zstd",
            _ => return std::ptr::null(),
        };
        name.as_ptr()
    })
}

/// Comma-separated names of the codecs in this build.
#[no_mangle]
pub extern "C" fn blosc_list_compressors() -> *const c_char {
    blosc2_list_compressors()
}

/// The version of c-blosc this library stands in for.
#[no_mangle]
pub extern "C" fn blosc_get_version_string() -> *const c_char {
    c"1.21.3".as_ptr()
}

/// Name of codec `compcode` in `*compname` (NULL when unknown). Returns
/// the code, or -1 when unknown.
///
/// # Safety
/// `compname` must be NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn blosc_compcode_to_compname(compcode: c_int, compname: *mut *const c_char) -> c_int {
    let name = static_compname(compcode);
    // SAFETY: NULL or writable per the contract.
    unsafe { put(compname, name.map_or(std::ptr::null(), CStr::as_ptr)) };
    name.map_or(-1, |_| compcode)
}

/// Code of the codec named `compname`, or -1 when this build does not
/// have it.
///
/// # Safety
/// `compname` must be NULL or a NUL-terminated string.
#[no_mangle]
pub unsafe extern "C" fn blosc_compname_to_compcode(compname: *const c_char) -> c_int {
    // SAFETY: forwarded contract.
    unsafe { blosc2_compname_to_compcode(compname) }
}

/// Library name and version of the codec named `compname`, as strings the
/// caller must `free()`. Returns the library code, or -1 when this build
/// does not have the codec (then both are NULL).
///
/// # Safety
/// `compname` must be NULL or a NUL-terminated string; `complib` and
/// `version` NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn blosc_get_complib_info(
    compname: *const c_char,
    complib: *mut *mut c_char,
    version: *mut *mut c_char,
) -> c_int {
    // SAFETY: forwarded contract.
    let rc = unsafe { blosc2_get_complib_info(compname, complib, version) };
    rc.max(-1)
}
