//! Chunk inspection (`*_cbuffer_*`), special-value chunks and the raw
//! shuffle functions.

use std::ffi::{c_char, c_int, c_void, CStr};

use crate::engine::chunk::{make_special, SpecialKind};
use crate::engine::constants::{version, MAX_BLOCKSIZE, MAX_BUFFERSIZE, MIN_HEADER_LENGTH};
use crate::engine::filters::{bitshuffle, shuffle};

use super::boundary::{
    bytes, bytes_mut, code_of, ffi_boundary, put, ERR_DATA, ERR_FAILURE, ERR_INVALID_HEADER, ERR_INVALID_PARAM,
    ERR_MEMORY_ALLOC, ERR_NULL_POINTER, ERR_WRITE_BUFFER, SUCCESS,
};
use super::convert::cctx_setup;
use super::types::blosc2_cparams;

/// The first 16 bytes of a chunk header, validated the way C-Blosc2's
/// `read_chunk_header` does when it is asked for the basic header only.
#[derive(Default, Clone, Copy)]
struct MinHeader {
    version: u8,
    versionlz: u8,
    flags: u8,
    typesize: u8,
    nbytes: i32,
    blocksize: i32,
    cbytes: i32,
}

/// Read and check the 16-byte header at `cbuffer`.
///
/// # Safety
/// `cbuffer` must be NULL or readable for 16 bytes.
unsafe fn min_header(cbuffer: *const c_void) -> Result<MinHeader, c_int> {
    // SAFETY: 16 readable bytes per the caller's contract (NULL refused).
    let b = unsafe { bytes(cbuffer, MIN_HEADER_LENGTH as i64) }.map_err(|e| e.code())?;
    let rd = |o: usize| i32::from_le_bytes([b[o], b[o + 1], b[o + 2], b[o + 3]]);
    let mut h = MinHeader {
        version: b[0],
        versionlz: b[1],
        flags: b[2],
        typesize: b[3],
        nbytes: rd(4),
        blocksize: rd(8),
        cbytes: rd(12),
    };
    if h.cbytes < MIN_HEADER_LENGTH as i32 || h.blocksize <= 0 || h.blocksize > MAX_BLOCKSIZE || h.typesize == 0 {
        return Err(ERR_INVALID_HEADER);
    }
    if h.nbytes > 0 && h.blocksize > h.nbytes {
        h.blocksize = h.nbytes;
    }
    Ok(h)
}

/// Sizes of a chunk from its header: uncompressed bytes, compressed bytes
/// and block size (all 0 when the header is invalid). Returns 0 or a
/// negative code.
///
/// # Safety
/// `cbuffer` must be NULL or readable for 16 bytes; each output pointer
/// NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn blosc2_cbuffer_sizes(
    cbuffer: *const c_void,
    nbytes: *mut i32,
    cbytes: *mut i32,
    blocksize: *mut i32,
) -> c_int {
    ffi_boundary!(ERR_FAILURE, {
        // SAFETY: per the contract.
        let (h, rc) = match unsafe { min_header(cbuffer) } {
            Ok(h) => (h, SUCCESS),
            Err(code) => (MinHeader::default(), code),
        };
        // SAFETY: NULL or writable per the contract.
        unsafe {
            put(nbytes, h.nbytes);
            put(cbytes, h.cbytes);
            put(blocksize, h.blocksize);
        }
        rc
    })
}

/// Blosc1 interface of `blosc2_cbuffer_sizes`.
///
/// # Safety
/// As for `blosc2_cbuffer_sizes`.
#[no_mangle]
pub unsafe extern "C" fn blosc1_cbuffer_sizes(
    cbuffer: *const c_void,
    nbytes: *mut usize,
    cbytes: *mut usize,
    blocksize: *mut usize,
) {
    ffi_boundary!((), {
        // SAFETY: per the contract.
        let h = unsafe { min_header(cbuffer) }.unwrap_or_default();
        // SAFETY: NULL or writable per the contract. Negative values are
        // sign-extended, as the C conversion does.
        unsafe {
            put(nbytes, h.nbytes as usize);
            put(cbytes, h.cbytes as usize);
            put(blocksize, h.blocksize as usize);
        }
    })
}

/// Check that `cbytes` bytes at `cbuffer` may hold a chunk: the header is
/// valid and its compressed size equals `cbytes`. Stores the uncompressed
/// size in `*nbytes` (0 on error). Returns 0 or a negative code.
///
/// # Safety
/// `cbuffer` must be NULL or readable for 16 bytes; `nbytes` NULL or
/// writable.
#[no_mangle]
pub unsafe extern "C" fn blosc1_cbuffer_validate(cbuffer: *const c_void, cbytes: usize, nbytes: *mut usize) -> c_int {
    ffi_boundary!(ERR_FAILURE, {
        // SAFETY: NULL or writable per the contract.
        unsafe { put(nbytes, 0) };
        if cbytes < MIN_HEADER_LENGTH {
            return ERR_WRITE_BUFFER;
        }
        // SAFETY: per the contract.
        let h = match unsafe { min_header(cbuffer) } {
            Ok(h) => h,
            Err(code) => return code,
        };
        if h.cbytes as usize != cbytes {
            return ERR_INVALID_HEADER;
        }
        let n = h.nbytes as usize;
        if n > MAX_BUFFERSIZE as usize {
            return ERR_MEMORY_ALLOC;
        }
        // SAFETY: as above.
        unsafe { put(nbytes, n) };
        SUCCESS
    })
}

/// Typesize and flags byte of a chunk (both 0 when the header is invalid).
///
/// # Safety
/// `cbuffer` must be NULL or readable for 16 bytes; the outputs NULL or
/// writable.
#[no_mangle]
pub unsafe extern "C" fn blosc1_cbuffer_metainfo(cbuffer: *const c_void, typesize: *mut usize, flags: *mut c_int) {
    ffi_boundary!((), {
        // SAFETY: per the contract.
        let h = unsafe { min_header(cbuffer) }.unwrap_or_default();
        // SAFETY: NULL or writable per the contract.
        unsafe {
            put(typesize, usize::from(h.typesize));
            put(flags, c_int::from(h.flags));
        }
    })
}

/// Format version and codec format version of a chunk (0 when invalid).
///
/// # Safety
/// `cbuffer` must be NULL or readable for 16 bytes; the outputs NULL or
/// writable.
#[no_mangle]
pub unsafe extern "C" fn blosc2_cbuffer_versions(cbuffer: *const c_void, version: *mut c_int, versionlz: *mut c_int) {
    ffi_boundary!((), {
        // SAFETY: per the contract.
        let h = unsafe { min_header(cbuffer) }.unwrap_or_default();
        // SAFETY: NULL or writable per the contract.
        unsafe {
            put(version, c_int::from(h.version));
            put(versionlz, c_int::from(h.versionlz));
        }
    })
}

/// Name of the codec library a chunk was compressed with ("BloscLZ",
/// "LZ4", "Zlib", "Zstd"), or NULL.
///
/// # Safety
/// `cbuffer` must be NULL or readable for 16 bytes.
#[no_mangle]
pub unsafe extern "C" fn blosc2_cbuffer_complib(cbuffer: *const c_void) -> *const c_char {
    ffi_boundary!(std::ptr::null(), {
        // SAFETY: per the contract.
        let Ok(h) = (unsafe { min_header(cbuffer) }) else {
            return std::ptr::null();
        };
        libname_of_format(h.flags >> 5).map_or(std::ptr::null(), CStr::as_ptr)
    })
}

/// Static C name of a codec library (format) number.
pub(crate) fn libname_of_format(format: u8) -> Option<&'static CStr> {
    Some(match format {
        0 => c"BloscLZ",
        1 => c"LZ4",
        3 => c"Zlib",
        4 => c"Zstd",
        _ => return None,
    })
}

/// Shared body of the special-chunk constructors.
///
/// # Safety
/// `dest` writable for `destsize` bytes; `value` readable for the typesize.
unsafe fn special_chunk(
    cparams: &blosc2_cparams,
    nbytes: i32,
    dest: *mut c_void,
    destsize: i32,
    kind: Option<SpecialKind>,
    value: *const c_void,
) -> c_int {
    let ts = cparams.typesize;
    let need = 32i64 + if kind.is_none() { i64::from(ts) } else { 0 };
    if i64::from(destsize) < need {
        return ERR_DATA;
    }
    if ts == 0 {
        return ERR_INVALID_PARAM;
    }
    let zeros = kind == Some(SpecialKind::Zeros);
    if (!zeros || nbytes > 0) && nbytes % ts != 0 {
        return ERR_DATA;
    }
    let Some(setup) = cctx_setup(cparams) else {
        return ERR_NULL_POINTER;
    };
    let mut cp = setup.engine;
    // No data is compressed: the dictionary setting plays no part.
    cp.use_dict = false;
    // SAFETY: writable for `destsize` bytes per the contract.
    let d = match unsafe { bytes_mut(dest, i64::from(destsize)) } {
        Ok(d) => d,
        Err(e) => return e.code(),
    };
    let v = if kind.is_none() {
        // SAFETY: readable for `ts` bytes per the contract.
        match unsafe { bytes(value, i64::from(ts)) } {
            Ok(v) => Some(v),
            Err(e) => return e.code(),
        }
    } else {
        None
    };
    match make_special(&cp, nbytes, kind, v, d) {
        Ok(n) => c_int::try_from(n).unwrap_or(c_int::MAX),
        Err(e) => code_of(&e),
    }
}

/// A special chunk of `kind` (no repeated value) inside the FFI boundary:
/// the shared body of `blosc2_chunk_zeros`, `_nans` and `_uninit`.
///
/// # Safety
/// `dest` writable for `destsize` bytes.
unsafe fn special_kind_chunk(
    cparams: &blosc2_cparams,
    nbytes: i32,
    dest: *mut c_void,
    destsize: i32,
    kind: SpecialKind,
) -> c_int {
    ffi_boundary!(ERR_FAILURE, {
        // SAFETY: forwarded contract.
        unsafe { special_chunk(cparams, nbytes, dest, destsize, Some(kind), std::ptr::null()) }
    })
}

/// Write a chunk of `nbytes` zeros (a 32-byte header) into `dest`.
/// Returns its size or a negative code.
///
/// # Safety
/// `dest` must be writable for `destsize` bytes; pointers in `cparams` are
/// not followed except `preparams` as in `blosc2_create_cctx`.
#[no_mangle]
pub unsafe extern "C" fn blosc2_chunk_zeros(
    cparams: blosc2_cparams,
    nbytes: i32,
    dest: *mut c_void,
    destsize: i32,
) -> c_int {
    // SAFETY: forwarded contract.
    unsafe { special_kind_chunk(&cparams, nbytes, dest, destsize, SpecialKind::Zeros) }
}

/// Write a chunk of `nbytes` NaNs (typesize 4 or 8) into `dest`.
///
/// # Safety
/// As for `blosc2_chunk_zeros`.
#[no_mangle]
pub unsafe extern "C" fn blosc2_chunk_nans(
    cparams: blosc2_cparams,
    nbytes: i32,
    dest: *mut c_void,
    destsize: i32,
) -> c_int {
    // SAFETY: forwarded contract.
    unsafe { special_kind_chunk(&cparams, nbytes, dest, destsize, SpecialKind::Nans) }
}

/// Write a chunk of `nbytes` uninitialized bytes into `dest`.
///
/// # Safety
/// As for `blosc2_chunk_zeros`.
#[no_mangle]
pub unsafe extern "C" fn blosc2_chunk_uninit(
    cparams: blosc2_cparams,
    nbytes: i32,
    dest: *mut c_void,
    destsize: i32,
) -> c_int {
    // SAFETY: forwarded contract.
    unsafe { special_kind_chunk(&cparams, nbytes, dest, destsize, SpecialKind::Uninit) }
}

/// Write a chunk of `nbytes` made of the `cparams.typesize`-byte value at
/// `repeatval` into `dest` (32 + typesize bytes).
///
/// # Safety
/// As for `blosc2_chunk_zeros`; `repeatval` readable for the typesize.
#[no_mangle]
pub unsafe extern "C" fn blosc2_chunk_repeatval(
    cparams: blosc2_cparams,
    nbytes: i32,
    dest: *mut c_void,
    destsize: i32,
    repeatval: *const c_void,
) -> c_int {
    ffi_boundary!(ERR_FAILURE, {
        // SAFETY: forwarded contract.
        unsafe { special_chunk(&cparams, nbytes, dest, destsize, None, repeatval) }
    })
}

/// Which raw transform to run.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Raw {
    Shuffle,
    Unshuffle,
    BitShuffle,
    BitUnshuffle,
}

/// Shared body of the raw shuffle functions.
///
/// # Safety
/// `src` readable and `dest` writable for `blocksize` bytes.
unsafe fn raw_transform(op: Raw, typesize: i32, blocksize: i32, src: *const c_void, dest: *mut c_void) -> i32 {
    if op == Raw::BitUnshuffle {
        // 3.3.5 checks nothing here; its bit transpose fails (-1) on a
        // negative size and divides by zero on a zero typesize.
        if blocksize < 0 {
            return ERR_FAILURE;
        }
        if typesize < 1 {
            return ERR_INVALID_PARAM;
        }
    } else if !(1..=256).contains(&typesize) || blocksize < 0 {
        return ERR_INVALID_PARAM;
    }
    // SAFETY: per the contract.
    let s = match unsafe { bytes(src, i64::from(blocksize)) } {
        Ok(s) => s,
        Err(e) => return e.code(),
    };
    // SAFETY: per the contract.
    let d = match unsafe { bytes_mut(dest, i64::from(blocksize)) } {
        Ok(d) => d,
        Err(e) => return e.code(),
    };
    if !s.is_empty() && s.as_ptr_range().start < d.as_ptr_range().end && d.as_ptr_range().start < s.as_ptr_range().end {
        return ERR_INVALID_PARAM;
    }
    let ts = typesize as usize;
    match op {
        Raw::Shuffle => shuffle::shuffle(ts, s, d),
        Raw::Unshuffle => shuffle::unshuffle(ts, s, d),
        Raw::BitShuffle => bitshuffle::bitshuffle(ts, s, d),
        Raw::BitUnshuffle => bitshuffle::bitunshuffle(ts, s, d, version::LATEST),
    }
    blocksize
}

/// Byte-shuffle `blocksize` bytes of `typesize`-byte items from `src` to
/// `dest`. Returns `blocksize` or a negative code.
///
/// # Safety
/// `src` readable and `dest` writable for `blocksize` bytes, not overlapping.
#[no_mangle]
pub unsafe extern "C" fn blosc2_shuffle(typesize: i32, blocksize: i32, src: *const c_void, dest: *mut c_void) -> i32 {
    ffi_boundary!(ERR_FAILURE, {
        // SAFETY: forwarded contract.
        unsafe { raw_transform(Raw::Shuffle, typesize, blocksize, src, dest) }
    })
}

/// Inverse of `blosc2_shuffle`.
///
/// # Safety
/// As for `blosc2_shuffle`.
#[no_mangle]
pub unsafe extern "C" fn blosc2_unshuffle(typesize: i32, blocksize: i32, src: *const c_void, dest: *mut c_void) -> i32 {
    ffi_boundary!(ERR_FAILURE, {
        // SAFETY: forwarded contract.
        unsafe { raw_transform(Raw::Unshuffle, typesize, blocksize, src, dest) }
    })
}

/// Bit-shuffle `blocksize` bytes (whole groups of 8 items; the remainder
/// is copied). Returns `blocksize` or a negative code.
///
/// # Safety
/// As for `blosc2_shuffle`.
#[no_mangle]
pub unsafe extern "C" fn blosc2_bitshuffle(
    typesize: i32,
    blocksize: i32,
    src: *const c_void,
    dest: *mut c_void,
) -> i32 {
    ffi_boundary!(ERR_FAILURE, {
        // SAFETY: forwarded contract.
        unsafe { raw_transform(Raw::BitShuffle, typesize, blocksize, src, dest) }
    })
}

/// Inverse of `blosc2_bitshuffle`.
///
/// # Safety
/// As for `blosc2_shuffle`.
#[no_mangle]
pub unsafe extern "C" fn blosc2_bitunshuffle(
    typesize: i32,
    blocksize: i32,
    src: *const c_void,
    dest: *mut c_void,
) -> i32 {
    ffi_boundary!(ERR_FAILURE, {
        // SAFETY: forwarded contract.
        unsafe { raw_transform(Raw::BitUnshuffle, typesize, blocksize, src, dest) }
    })
}
