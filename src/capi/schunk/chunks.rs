//! Chunk edits and reads.

use std::ffi::{c_int, c_void};
use std::ptr::{self, NonNull};

use crate::engine::schunk::{HandedBytes, Refused, SChunk};

use super::super::boundary::{
    blosc1_chunk_len, bytes, ffi_boundary, put, ERR_FAILURE, ERR_INVALID_PARAM, ERR_MEMORY_ALLOC, ERR_NULL_POINTER,
};
use super::super::types_schunk::blosc2_schunk;
use super::super::vl::blosc2_vldecompress_block_ctx;

use super::handle::*;
use super::heap::*;

// ---------------------------------------------------------------------------
// Chunk edits
// ---------------------------------------------------------------------------

/// The caller's chunk at `chunk`, sized from its header.
///
/// # Safety
/// `chunk` must be NULL or point to a whole chunk.
unsafe fn chunk_slice<'a>(chunk: *const u8) -> Result<&'a [u8], c_int> {
    if chunk.is_null() {
        return Err(ERR_NULL_POINTER);
    }
    // SAFETY: a whole chunk per the contract.
    let len = unsafe { blosc1_chunk_len(chunk.cast()) };
    // SAFETY: `len` readable bytes per the contract.
    unsafe { bytes(chunk.cast(), len as i64) }.map_err(|e| e.code())
}

/// Run a chunk edit. With `copy` the super-chunk copies the chunk; without,
/// it takes over the caller's `malloc`ed chunk as 3.3.5 does (kept as the
/// stored chunk in memory, `free`d once written into a frame). A failed
/// edit leaves the chunk with the caller either way.
///
/// # Safety
/// `chunk` must be NULL or a whole chunk (malloc'ed when `copy` is false).
unsafe fn chunk_edit(
    schunk: *mut blosc2_schunk,
    chunk: *mut u8,
    copy: bool,
    copied: impl FnOnce(&mut SChunk, &[u8]) -> crate::engine::error::Result<i64>,
    handed: impl FnOnce(&mut SChunk, Box<dyn HandedBytes>) -> Result<i64, Refused>,
) -> i64 {
    // SAFETY: forwarded contract.
    let len = match unsafe { chunk_slice(chunk) } {
        Ok(c) if copy => {
            return with_state(schunk, |st| copied(&mut st.sc, c).map_err(ecode)).unwrap_or_else(code64);
        }
        Ok(c) => c.len(),
        Err(code) => return code64(code),
    };
    let Some(ptr) = NonNull::new(chunk) else {
        return code64(ERR_NULL_POINTER);
    };
    // The chunk is taken over only inside the handle's lock, so an invalid
    // super-chunk leaves it with the caller.
    with_state(schunk, |st| {
        // SAFETY: with `copy` false the caller hands over its malloc'ed
        // chunk of `len` bytes (checked readable above); a refused one is
        // given back below.
        let c = unsafe { MallocChunk::adopt(ptr, len) };
        handed(&mut st.sc, Box::new(c)).map_err(|r| ecode(r.give_back()))
    })
    .unwrap_or_else(code64)
}

/// Append a compressed chunk. With `copy` false the super-chunk takes
/// ownership of `chunk` (a `malloc`ed buffer, freed here once appended).
/// Returns the new number of chunks or a negative code.
///
/// # Safety
/// `schunk` must be NULL or live; `chunk` NULL or a whole chunk.
#[no_mangle]
pub unsafe extern "C" fn blosc2_schunk_append_chunk(schunk: *mut blosc2_schunk, chunk: *mut u8, copy: bool) -> i64 {
    ffi_boundary!(code64(ERR_FAILURE), {
        // SAFETY: forwarded contract.
        unsafe {
            chunk_edit(
                schunk,
                chunk,
                copy,
                |sc, c| sc.append_chunk(c),
                |sc, c| sc.append_handed(c),
            )
        }
    })
}

/// Insert a compressed chunk before position `nchunk` (0..=nchunks).
/// Ownership of `chunk` as in `blosc2_schunk_append_chunk`. Returns the new
/// number of chunks or a negative code.
///
/// # Safety
/// `schunk` must be NULL or live; `chunk` NULL or a whole chunk.
#[no_mangle]
pub unsafe extern "C" fn blosc2_schunk_insert_chunk(
    schunk: *mut blosc2_schunk,
    nchunk: i64,
    chunk: *mut u8,
    copy: bool,
) -> i64 {
    ffi_boundary!(code64(ERR_FAILURE), {
        // SAFETY: forwarded contract.
        unsafe {
            chunk_edit(
                schunk,
                chunk,
                copy,
                |sc, c| sc.insert_chunk(nchunk, c),
                |sc, c| sc.insert_handed(nchunk, c),
            )
        }
    })
}

/// Replace chunk `nchunk`. Ownership of `chunk` as in
/// `blosc2_schunk_append_chunk`. Returns the number of chunks or a
/// negative code.
///
/// # Safety
/// `schunk` must be NULL or live; `chunk` NULL or a whole chunk.
#[no_mangle]
pub unsafe extern "C" fn blosc2_schunk_update_chunk(
    schunk: *mut blosc2_schunk,
    nchunk: i64,
    chunk: *mut u8,
    copy: bool,
) -> i64 {
    ffi_boundary!(code64(ERR_FAILURE), {
        // SAFETY: forwarded contract.
        unsafe {
            chunk_edit(
                schunk,
                chunk,
                copy,
                |sc, c| sc.update_chunk(nchunk, c),
                |sc, c| sc.update_handed(nchunk, c),
            )
        }
    })
}

/// Remove chunk `nchunk`. Returns the new number of chunks or a negative
/// code.
///
/// # Safety
/// `schunk` must be NULL or a live super-chunk.
#[no_mangle]
pub unsafe extern "C" fn blosc2_schunk_delete_chunk(schunk: *mut blosc2_schunk, nchunk: i64) -> i64 {
    ffi_boundary!(code64(ERR_FAILURE), {
        with_state(schunk, |st| st.sc.delete_chunk(nchunk).map_err(ecode)).unwrap_or_else(code64)
    })
}

/// Compress `nbytes` bytes at `src` into a new chunk and append it.
/// Returns the new number of chunks or a negative code.
///
/// # Safety
/// `schunk` must be NULL or live; `src` readable for `nbytes` bytes.
#[no_mangle]
pub unsafe extern "C" fn blosc2_schunk_append_buffer(
    schunk: *mut blosc2_schunk,
    src: *const c_void,
    nbytes: i32,
) -> i64 {
    ffi_boundary!(code64(ERR_FAILURE), {
        // SAFETY: readable for `nbytes` bytes per the contract.
        let data = match unsafe { bytes(src, i64::from(nbytes)) } {
            Ok(d) => d,
            Err(e) => return code64(e.code()),
        };
        with_state(schunk, |st| {
            if st.plain_cctx() {
                return st.sc.append_buffer(data).map_err(ecode);
            }
            // A prefilter or a context swapped in by the caller: compress
            // through schunk->cctx, as 3.3.5 always does.
            let n = st.sc.nchunks();
            let c = st.compress_with_cctx(data, n)?;
            st.sc.append_chunk(&c).map_err(ecode)
        })
        .unwrap_or_else(code64)
    })
}

// ---------------------------------------------------------------------------
// Reads
// ---------------------------------------------------------------------------

/// Decompress chunk `nchunk` into `dest` (`nbytes` bytes) with
/// `schunk->dctx`. Returns the decompressed size or a negative code
/// (`BLOSC2_ERROR_WRITE_BUFFER` for frames, `BLOSC2_ERROR_INVALID_PARAM`
/// otherwise, when `dest` is too small, as in 3.3.5).
///
/// # Safety
/// `schunk` must be NULL or live; `dest` writable for `nbytes` bytes.
#[no_mangle]
pub unsafe extern "C" fn blosc2_schunk_decompress_chunk(
    schunk: *mut blosc2_schunk,
    nchunk: i64,
    dest: *mut c_void,
    nbytes: i32,
) -> c_int {
    ffi_boundary!(ERR_FAILURE, {
        if nbytes < 0 {
            return ERR_INVALID_PARAM;
        }
        // SAFETY: `dest` writable for `nbytes` bytes per the contract.
        with_state(schunk, |st| unsafe { st.decompress_with_dctx(nchunk, dest, nbytes) }).unwrap_or_else(|c| c)
    })
}

/// A chunk on its way to C: borrowed from the super-chunk (valid until it
/// is edited or freed) or owned.
enum Out {
    Borrowed(*const u8, usize),
    Owned(Vec<u8>),
}

fn out_of(c: std::borrow::Cow<'_, [u8]>) -> Out {
    match c {
        std::borrow::Cow::Borrowed(b) => Out::Borrowed(b.as_ptr(), b.len()),
        std::borrow::Cow::Owned(v) => Out::Owned(v),
    }
}

/// Hand a chunk to C: a pointer into the super-chunk (`needs_free` false)
/// or a `malloc`ed copy (`needs_free` true). Returns the chunk length.
fn hand_out(c: Out, out: *mut *mut u8, needs_free: *mut bool) -> Result<c_int, c_int> {
    let (p, len, free) = match c {
        Out::Borrowed(p, len) => (p.cast_mut(), len, false),
        Out::Owned(v) => {
            let p = malloc_bytes(&v);
            if p.is_null() {
                return Err(ERR_MEMORY_ALLOC);
            }
            (p, v.len(), true)
        }
    };
    let Ok(len) = c_int::try_from(len) else {
        if free {
            cfree(p);
        }
        return Err(ERR_FAILURE);
    };
    // SAFETY: both checked non-NULL and writable by the callers.
    unsafe {
        out.write(p);
        needs_free.write(free);
    }
    Ok(len)
}

/// Get chunk `nchunk` as stored: `*chunk` points into the super-chunk
/// (`*needs_free` false) for in-memory storage, or to a `malloc`ed copy
/// to `free()` (`*needs_free` true) for disk frames and special chunks of
/// frames. Returns the chunk length or a negative code (then `*chunk` is
/// NULL).
///
/// # Safety
/// `schunk` must be NULL or live; `chunk`/`needs_free` NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn blosc2_schunk_get_chunk(
    schunk: *mut blosc2_schunk,
    nchunk: i64,
    chunk: *mut *mut u8,
    needs_free: *mut bool,
) -> c_int {
    ffi_boundary!(ERR_FAILURE, {
        // SAFETY: NULL or writable per the contract.
        unsafe {
            put(chunk, ptr::null_mut());
            put(needs_free, false);
        }
        if chunk.is_null() || needs_free.is_null() {
            return ERR_NULL_POINTER;
        }
        with_state(schunk, |st| {
            hand_out(out_of(st.sc.get_chunk(nchunk).map_err(ecode)?), chunk, needs_free)
        })
        .unwrap_or_else(|c| c)
    })
}

/// Get chunk `nchunk` for reading parts of it: for disk frames a lazy
/// chunk (header, block starts and a trailer locating the blocks, with the
/// lazy flag) that `blosc2_decompress_ctx(schunk->dctx, ...)`, the
/// getitem functions and `blosc2_decompress` complete from the frame;
/// otherwise as `blosc2_schunk_get_chunk`. Ownership as there.
///
/// # Safety
/// `schunk` must be NULL or live; `chunk`/`needs_free` NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn blosc2_schunk_get_lazychunk(
    schunk: *mut blosc2_schunk,
    nchunk: i64,
    chunk: *mut *mut u8,
    needs_free: *mut bool,
) -> c_int {
    ffi_boundary!(ERR_FAILURE, {
        // SAFETY: NULL or writable per the contract.
        unsafe {
            put(chunk, ptr::null_mut());
            put(needs_free, false);
        }
        if chunk.is_null() || needs_free.is_null() {
            return ERR_NULL_POINTER;
        }
        with_state(schunk, |st| {
            let o = match st.sc.get_lazychunk(nchunk).map(out_of) {
                Ok(o) => o,
                // 3.3.5 has no lazy form for some chunks (empty ones) and
                // fails; hand out the whole chunk instead.
                Err(_) => out_of(st.sc.get_chunk(nchunk).map_err(ecode)?),
            };
            hand_out(o, chunk, needs_free)
        })
        .unwrap_or_else(|c| c)
    })
}

/// Decode block `nblock` of VL-block chunk `nchunk` with `schunk->dctx`
/// into a `malloc`ed `*dest` of `*destsize` bytes. Returns the block size
/// or a negative code (then `*dest` is NULL and `*destsize` 0).
///
/// # Safety
/// `schunk` must be NULL or live; `dest`/`destsize` NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn blosc2_schunk_get_vlblock(
    schunk: *mut blosc2_schunk,
    nchunk: i64,
    nblock: i32,
    dest: *mut *mut u8,
    destsize: *mut i32,
) -> c_int {
    ffi_boundary!(ERR_FAILURE, {
        // SAFETY: NULL or writable per the contract.
        unsafe {
            put(dest, ptr::null_mut());
            put(destsize, 0);
        }
        if schunk.is_null() || dest.is_null() || destsize.is_null() {
            return ERR_INVALID_PARAM;
        }
        with_state(schunk, |st| {
            let dctx = st.public().dctx;
            let c = st.sc.get_chunk(nchunk).map_err(ecode)?.into_owned();
            if c.is_empty() {
                return Err(ERR_INVALID_PARAM);
            }
            let len = i32::try_from(c.len()).map_err(|_| ERR_INVALID_PARAM)?;
            // SAFETY: `c` holds `len` bytes; outputs writable per the contract.
            let r = unsafe { blosc2_vldecompress_block_ctx(dctx, c.as_ptr().cast(), len, nblock, dest, destsize) };
            if r < 0 {
                Err(r)
            } else {
                Ok(r)
            }
        })
        .unwrap_or_else(|c| c)
    })
}
