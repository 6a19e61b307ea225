//! Reads through a decompression context: `blosc2_decompress_ctx`,
//! `blosc2_getitem_ctx` and `blosc2_getitem_bytes_ctx`. A lazy chunk (one
//! read from a frame without its blocks) is completed from its super-chunk
//! first, which is why these sit above the super-chunk handles while the
//! rest of the context API sits below them.

use std::ffi::{c_int, c_void};

use crate::engine::constants::EXTENDED_HEADER_LENGTH;
use crate::engine::context::Mode;

use super::boundary::{ffi_boundary, ERR_FAILURE, ERR_NULL_POINTER};
use super::context::{ctx_in_mode, ctx_ref, decompress_with, getitem_with, Range};
use super::schunk::{is_lazy_header, item_range, resolve_lazy};
use super::types::blosc2_context;

/// Call `read` with the chunk at `src` (`srcsize` bytes): as it is, or,
/// for a lazy chunk, completed from its super-chunk (`schunk`, or any open
/// one when NULL; only the bytes in `range` when given) first. The one
/// place every read entry point turns a lazy chunk into a whole one.
///
/// # Safety
/// `src` must be NULL or readable for `srcsize` bytes.
pub(crate) unsafe fn with_whole_chunk(
    src: *const c_void,
    srcsize: i32,
    schunk: *mut c_void,
    range: Option<(i64, i64)>,
    read: impl FnOnce(*const c_void, i32) -> c_int,
) -> c_int {
    // SAFETY: forwarded contract.
    match unsafe { resolve_lazy(src, srcsize, schunk, range) } {
        Ok(Some(full)) => read(full.as_ptr().cast(), i32::try_from(full.len()).unwrap_or(i32::MAX)),
        Ok(None) => read(src, srcsize),
        Err(code) => code,
    }
}

/// Decompress the chunk at `src` (`srcsize` bytes available) into `dest`
/// with a decompression context. Returns the decompressed size or a
/// negative error code. A mask set with `blosc2_set_maskout` applies to
/// this call only.
///
/// # Safety
/// `context` must be NULL or a live context; `src` readable for `srcsize`
/// bytes and `dest` writable for `destsize` bytes (or NULL).
#[no_mangle]
pub unsafe extern "C" fn blosc2_decompress_ctx(
    context: *mut blosc2_context,
    src: *const c_void,
    srcsize: i32,
    dest: *mut c_void,
    destsize: i32,
) -> c_int {
    ffi_boundary!(ERR_FAILURE, {
        // SAFETY: NULL or a live handle per the contract.
        let c = match unsafe { ctx_in_mode(context, Mode::Decompress) } {
            Ok(c) => c,
            Err(code) => return code,
        };
        // A lazy chunk is completed from its super-chunk first (before the
        // engine is locked: the super-chunk may be using this context).
        // SAFETY: `src` readable for `srcsize` bytes, `dest` writable for
        // `destsize`, per the contract.
        unsafe {
            with_whole_chunk(src, srcsize, c.schunk(), None, |src, srcsize| {
                decompress_with(c, src, srcsize, dest, destsize)
            })
        }
    })
}

/// The byte range of items `start..start + nitems` when `src` holds a lazy
/// chunk (its super-chunk then reads only the blocks holding them), None
/// otherwise: the range costs a header parse, which for the other chunks
/// the engine does anyway (a one-item getitem is a few hundred ns).
///
/// # Safety
/// `src` must be NULL or readable for `srcsize` bytes.
pub(crate) unsafe fn lazy_item_range(src: *const c_void, srcsize: i32, start: i64, nitems: i64) -> Option<(i64, i64)> {
    if src.is_null() || srcsize < EXTENDED_HEADER_LENGTH as i32 {
        return None;
    }
    // SAFETY: at least EXTENDED_HEADER_LENGTH bytes readable per the contract.
    let head = unsafe { std::slice::from_raw_parts(src.cast::<u8>(), EXTENDED_HEADER_LENGTH) };
    if !is_lazy_header(head) {
        return None;
    }
    // SAFETY: as above.
    unsafe { item_range(src, srcsize, start, nitems) }
}

/// Copy `nitems` items starting at item `start` out of the chunk at `src`
/// into `dest`, decoding only the blocks needed. Returns the bytes written
/// or a negative error code.
///
/// # Safety
/// `context` must be NULL or a live context; `src` readable for `srcsize`
/// bytes and `dest` writable for `destsize` bytes (or NULL).
#[no_mangle]
pub unsafe extern "C" fn blosc2_getitem_ctx(
    context: *mut blosc2_context,
    src: *const c_void,
    srcsize: i32,
    start: c_int,
    nitems: c_int,
    dest: *mut c_void,
    destsize: i32,
) -> c_int {
    ffi_boundary!(ERR_FAILURE, {
        // SAFETY: NULL or a live handle per the contract.
        let Some(c) = (unsafe { ctx_ref(context) }) else {
            return ERR_NULL_POINTER;
        };
        // Only the blocks holding the items are read from disk.
        // SAFETY: `src` readable for `srcsize` bytes per the contract.
        let range = unsafe { lazy_item_range(src, srcsize, i64::from(start), i64::from(nitems)) };
        let items = Range::Items(i64::from(start), i64::from(nitems));
        // SAFETY: as above; `dest` writable for `destsize` per the contract.
        unsafe {
            with_whole_chunk(src, srcsize, c.schunk(), range, |src, srcsize| {
                getitem_in(c, src, srcsize, items, dest, destsize)
            })
        }
    })
}

/// Copy the byte range `start..start+nbytes` (multiples of the chunk's
/// typesize) out of the chunk at `src` into `dest`. Returns the bytes
/// written or a negative error code.
///
/// # Safety
/// `context` must be NULL or a live context; `src` readable for `srcsize`
/// bytes and `dest` writable for `destsize` bytes (or NULL).
#[no_mangle]
pub unsafe extern "C" fn blosc2_getitem_bytes_ctx(
    context: *mut blosc2_context,
    src: *const c_void,
    srcsize: i32,
    start: i32,
    nbytes: i32,
    dest: *mut c_void,
    destsize: i32,
) -> c_int {
    ffi_boundary!(ERR_FAILURE, {
        // SAFETY: NULL or a live handle per the contract.
        let Some(c) = (unsafe { ctx_ref(context) }) else {
            return ERR_NULL_POINTER;
        };
        // Only the blocks holding the bytes are read from disk.
        let range = Some((i64::from(start), i64::from(nbytes)));
        let bytes = Range::Bytes(i64::from(start), i64::from(nbytes));
        // SAFETY: `src` readable for `srcsize` bytes, `dest` writable for
        // `destsize`, per the contract.
        unsafe {
            with_whole_chunk(src, srcsize, c.schunk(), range, |src, srcsize| {
                getitem_in(c, src, srcsize, bytes, dest, destsize)
            })
        }
    })
}

/// `range` of the chunk at `src` into `dest` through the engine of `c`.
///
/// # Safety
/// `src` must be NULL or readable for `srcsize` bytes, `dest` NULL or
/// writable for `destsize` bytes.
unsafe fn getitem_in(
    c: &blosc2_context,
    src: *const c_void,
    srcsize: i32,
    range: Range,
    dest: *mut c_void,
    destsize: i32,
) -> c_int {
    match c.engine() {
        // SAFETY: forwarded contract.
        Ok(mut e) => unsafe { getitem_with(&mut e, src, srcsize, range, dest, destsize) },
        Err(code) => code,
    }
}
