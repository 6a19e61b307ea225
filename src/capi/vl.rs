//! Chunks with variable-length blocks (format version 6). Decompressed
//! blocks are `malloc`ed: the caller releases them with `free()`.

use std::ffi::{c_int, c_void};

use crate::engine::constants::{EXTENDED_HEADER_LENGTH, MAX_BUFFERSIZE, MIN_HEADER_LENGTH};
use crate::engine::context::Mode;

use super::alloc::MallocBuf;
use super::boundary::{
    bytes, bytes_mut, code_of, ffi_boundary, put, to_code, ERR_FAILURE, ERR_INVALID_HEADER, ERR_INVALID_PARAM,
    ERR_MAX_BUFSIZE_EXCEEDED, ERR_READ_BUFFER, SUCCESS,
};
use super::context::ctx_in_mode;
use super::context_read::with_whole_chunk;
use super::types::blosc2_context;

/// Refuse VL-block chunks that claim blocks but no bytes: the engine's
/// block layout is empty for them (see the report on `Chunk::open`).
fn check_vl_layout(src: &[u8]) -> Result<(), c_int> {
    match crate::engine::chunk::read_header(src) {
        Ok(h) if h.vl_blocks() && h.nbytes == 0 => Err(ERR_INVALID_HEADER),
        // A lazy chunk must carry its whole trailer (3.3.5: READ_BUFFER).
        Ok(_) => crate::engine::chunk::check_lazy_trailer(src).map_err(|e| code_of(&e)),
        Err(e) => Err(code_of(&e)),
    }
}

/// Run `read` on the whole VL-block chunk at `src` (`srcsize` bytes): a
/// lazy chunk is completed from the context's super-chunk first, and the
/// block layout is checked.
///
/// # Safety
/// `src` must be NULL or readable for `srcsize` bytes.
unsafe fn with_whole_vl_chunk(
    c: &blosc2_context,
    src: *const c_void,
    srcsize: i32,
    read: impl FnOnce(&[u8]) -> c_int,
) -> c_int {
    if srcsize < MIN_HEADER_LENGTH as i32 {
        return ERR_READ_BUFFER;
    }
    let whole = |src: *const c_void, srcsize: i32| {
        // SAFETY: the chunk `with_whole_chunk` hands over is readable for
        // `srcsize` bytes.
        let s = match unsafe { bytes(src, i64::from(srcsize)) } {
            Ok(s) => s,
            Err(e) => return e.code(),
        };
        match check_vl_layout(s) {
            Ok(()) => read(s),
            Err(code) => code,
        }
    };
    // SAFETY: forwarded contract.
    unsafe { with_whole_chunk(src, srcsize, c.schunk(), None, whole) }
}

/// Compress `nblocks` buffers (`srcs[i]`, `srcsizes[i]` bytes each) into
/// one VL-block chunk in `dest`. Returns the chunk size, 0 when it does
/// not fit, or a negative code.
///
/// # Safety
/// `context` must be NULL or a live context; `srcs` and `srcsizes` NULL or
/// arrays of `nblocks` entries, each `srcs[i]` readable for `srcsizes[i]`
/// bytes; `dest` writable for `destsize` bytes.
#[no_mangle]
pub unsafe extern "C" fn blosc2_vlcompress_ctx(
    context: *mut blosc2_context,
    srcs: *const *const c_void,
    srcsizes: *const i32,
    nblocks: i32,
    dest: *mut c_void,
    destsize: i32,
) -> c_int {
    ffi_boundary!(ERR_FAILURE, {
        // SAFETY: NULL or a live handle per the contract.
        let c = match unsafe { ctx_in_mode(context, Mode::Compress) } {
            Ok(c) => c,
            Err(code) => return code,
        };
        if srcs.is_null() || srcsizes.is_null() || nblocks <= 0 {
            return ERR_INVALID_PARAM;
        }
        let n = nblocks as usize;
        // SAFETY: arrays of `nblocks` entries per the contract.
        let (ptrs, sizes) = unsafe {
            (
                std::slice::from_raw_parts(srcs, n),
                std::slice::from_raw_parts(srcsizes, n),
            )
        };
        let mut total: i64 = 0;
        for (&p, &sz) in ptrs.iter().zip(sizes) {
            if p.is_null() || sz <= 0 {
                return ERR_INVALID_PARAM;
            }
            total += i64::from(sz);
            if total > i64::from(MAX_BUFFERSIZE) {
                return ERR_MAX_BUFSIZE_EXCEEDED;
            }
        }
        if destsize < EXTENDED_HEADER_LENGTH as i32 {
            return ERR_MAX_BUFSIZE_EXCEEDED;
        }
        let mut blocks = Vec::with_capacity(n);
        for (&p, &sz) in ptrs.iter().zip(sizes) {
            // SAFETY: `p` readable for `sz` bytes per the contract.
            match unsafe { bytes(p, i64::from(sz)) } {
                Ok(b) => blocks.push(b),
                Err(e) => return e.code(),
            }
        }
        // SAFETY: writable for `destsize` bytes per the contract.
        let d = match unsafe { bytes_mut(dest, i64::from(destsize)) } {
            Ok(d) => d,
            Err(e) => return e.code(),
        };
        let overlaps = blocks.iter().any(|b| {
            let (s, e) = (b.as_ptr_range(), d.as_ptr_range());
            s.start < e.end && e.start < s.end
        });
        if overlaps {
            return ERR_INVALID_PARAM;
        }
        match c.engine() {
            Ok(mut e) => to_code(e.vlcompress(&blocks, d)),
            Err(code) => code,
        }
    })
}

/// Number of blocks of a VL-block chunk (header only). Returns 0 or a
/// negative code; `*nblocks` is 0 on error.
///
/// # Safety
/// `src` must be NULL or readable for `srcsize` bytes; `nblocks` NULL or
/// writable.
#[no_mangle]
pub unsafe extern "C" fn blosc2_vlchunk_get_nblocks(src: *const c_void, srcsize: i32, nblocks: *mut i32) -> c_int {
    ffi_boundary!(ERR_FAILURE, {
        if src.is_null() || nblocks.is_null() {
            return ERR_INVALID_PARAM;
        }
        // SAFETY: writable per the contract.
        unsafe { put(nblocks, 0) };
        if srcsize < MIN_HEADER_LENGTH as i32 {
            return ERR_READ_BUFFER;
        }
        // SAFETY: readable for `srcsize` bytes per the contract.
        let s = match unsafe { bytes(src, i64::from(srcsize)) } {
            Ok(s) => s,
            Err(e) => return e.code(),
        };
        match crate::engine::chunk::vl_nblocks(s) {
            Ok(n) => {
                // SAFETY: as above.
                unsafe { put(nblocks, n) };
                SUCCESS
            }
            Err(e) => code_of(&e),
        }
    })
}

/// Decompress every block of a VL-block chunk into its own `malloc`ed
/// buffer: `dests[i]` / `destsizes[i]` for `i < nblocks`. Returns the
/// number of blocks or a negative code (then no buffer is left allocated
/// and the first `maxblocks` entries are NULL / 0).
///
/// # Safety
/// `context` must be NULL or a live context; `src` readable for `srcsize`
/// bytes; `dests` and `destsizes` NULL or arrays of `maxblocks` entries.
#[no_mangle]
pub unsafe extern "C" fn blosc2_vldecompress_ctx(
    context: *mut blosc2_context,
    src: *const c_void,
    srcsize: i32,
    dests: *mut *mut c_void,
    destsizes: *mut i32,
    maxblocks: i32,
) -> c_int {
    ffi_boundary!(ERR_FAILURE, {
        // SAFETY: NULL or a live handle per the contract.
        let c = match unsafe { ctx_in_mode(context, Mode::Decompress) } {
            Ok(c) => c,
            Err(code) => return code,
        };
        if dests.is_null() || destsizes.is_null() || maxblocks <= 0 {
            return ERR_INVALID_PARAM;
        }
        let m = maxblocks as usize;
        // SAFETY: arrays of `maxblocks` entries per the contract.
        let (outs, sizes) = unsafe {
            (
                std::slice::from_raw_parts_mut(dests, m),
                std::slice::from_raw_parts_mut(destsizes, m),
            )
        };
        outs.fill(std::ptr::null_mut());
        sizes.fill(0);
        // SAFETY: `src` readable for `srcsize` bytes per the contract.
        unsafe { with_whole_vl_chunk(c, src, srcsize, |s| vldecompress_in(c, s, outs, sizes, maxblocks)) }
    })
}

/// `blosc2_vldecompress_ctx` of a whole (not lazy) chunk into `outs` /
/// `sizes` (NULL / 0 filled).
fn vldecompress_in(c: &blosc2_context, s: &[u8], outs: &mut [*mut c_void], sizes: &mut [i32], maxblocks: i32) -> c_int {
    let nblocks = match crate::engine::chunk::vl_nblocks(s) {
        Ok(n) => n,
        Err(e) => return code_of(&e),
    };
    if nblocks > maxblocks {
        return ERR_INVALID_PARAM;
    }
    let mut e = match c.engine() {
        Ok(e) => e,
        Err(code) => return code,
    };
    match e.vldecompress(s, MallocBuf::zeroed) {
        Ok(bufs) => {
            let n = bufs.len();
            for (i, b) in bufs.into_iter().enumerate() {
                sizes[i] = i32::try_from(b.len()).unwrap_or(i32::MAX);
                outs[i] = b.into_raw().cast();
            }
            c_int::try_from(n).unwrap_or(c_int::MAX)
        }
        Err(err) => code_of(&err),
    }
}

/// Decompress block `nblock` of a VL-block chunk into a new `malloc`ed
/// buffer (`*dest`, `*destsize` bytes). Returns its size or a negative
/// code (then `*dest` is NULL and `*destsize` 0).
///
/// # Safety
/// `context` must be NULL or a live context; `src` readable for `srcsize`
/// bytes; `dest` and `destsize` NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn blosc2_vldecompress_block_ctx(
    context: *mut blosc2_context,
    src: *const c_void,
    srcsize: i32,
    nblock: i32,
    dest: *mut *mut u8,
    destsize: *mut i32,
) -> c_int {
    ffi_boundary!(ERR_FAILURE, {
        // SAFETY: NULL or writable per the contract.
        unsafe {
            put(dest, std::ptr::null_mut());
            put(destsize, 0);
        }
        // SAFETY: NULL or a live handle per the contract.
        let c = match unsafe { ctx_in_mode(context, Mode::Decompress) } {
            Ok(c) => c,
            Err(code) => return code,
        };
        if dest.is_null() || destsize.is_null() {
            return ERR_INVALID_PARAM;
        }
        // 3.3.5 reads the block of a lazy chunk from the frame.
        // SAFETY: `src` readable for `srcsize` bytes per the contract.
        unsafe { with_whole_vl_chunk(c, src, srcsize, |s| vldecompress_block_in(c, s, nblock, dest, destsize)) }
    })
}

/// `blosc2_vldecompress_block_ctx` of a whole (not lazy) chunk.
///
/// # Safety
/// `dest` and `destsize` must be writable.
unsafe fn vldecompress_block_in(
    c: &blosc2_context,
    s: &[u8],
    nblock: i32,
    dest: *mut *mut u8,
    destsize: *mut i32,
) -> c_int {
    let mut e = match c.engine() {
        Ok(e) => e,
        Err(code) => return code,
    };
    match e.vldecompress_block(s, nblock, MallocBuf::zeroed) {
        Ok(b) => {
            let n = i32::try_from(b.len()).unwrap_or(i32::MAX);
            // SAFETY: both non-NULL and writable per the contract.
            unsafe {
                put(destsize, n);
                put(dest, b.into_raw());
            }
            n
        }
        Err(err) => code_of(&err),
    }
}
