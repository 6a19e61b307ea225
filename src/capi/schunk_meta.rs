//! Metalayers (fixed size, in the frame header) and variable-length
//! metalayers (compressed, in the frame trailer) of super-chunks.
//!
//! `blosc2_meta_exists` and `blosc2_meta_get` are inline functions of the
//! header reading `schunk->metalayers`; every change made here is mirrored
//! there (see `State::sync_metas`), and in `schunk->vlmetalayers` (whose
//! `content` is the compressed chunk, as in 3.3.5).

use std::ffi::{c_char, c_int};
use std::ptr;

use super::boundary::{bytes, c_str, ffi_boundary, put, ERR_FAILURE, ERR_INVALID_PARAM, ERR_MEMORY_ALLOC};
use super::convert::cctx_setup;
use super::defaults::CPARAMS_DEFAULTS;
use super::schunk::{malloc_bytes, with_state, State};
use super::types::blosc2_cparams;
use super::types_schunk::blosc2_schunk;

/// `BLOSC2_ERROR_NULL_POINTER`, what 3.3.5 returns when it cannot make the
/// compression context of a vlmetalayer.
const ERR_NULL_POINTER: c_int = -32;
/// `BLOSC2_ERROR_NOT_FOUND`.
const ERR_NOT_FOUND: c_int = -16;
/// `BLOSC2_METALAYER_NAME_MAXLEN`.
const NAME_MAXLEN: usize = 31;

fn ecode(e: crate::engine::error::Error) -> c_int {
    super::boundary::code_of(&e)
}

/// A metalayer name: `ERR_INVALID_PARAM` for NULL, non-UTF-8 or longer
/// than 31 bytes.
///
/// # Safety
/// `name` must be NULL or NUL-terminated.
unsafe fn name_arg<'a>(name: *const c_char) -> Result<&'a str, c_int> {
    // SAFETY: NULL or NUL-terminated per the contract.
    let n = unsafe { c_str(name) }.ok_or(ERR_INVALID_PARAM)?;
    if n.len() > NAME_MAXLEN {
        return Err(ERR_INVALID_PARAM);
    }
    Ok(n)
}

/// Metalayer content: negative lengths and NULL with a positive length are
/// refused.
///
/// # Safety
/// `content` must be NULL or readable for `len` bytes.
unsafe fn content_arg<'a>(content: *const u8, len: i32) -> Result<&'a [u8], c_int> {
    if len < 0 || (len > 0 && content.is_null()) {
        return Err(ERR_INVALID_PARAM);
    }
    // SAFETY: readable for `len` bytes per the contract.
    unsafe { bytes(content.cast(), i64::from(len)) }.map_err(|_| ERR_INVALID_PARAM)
}

/// Run a metalayer edit, then mirror the metalayers in the public struct.
fn meta_edit(schunk: *mut blosc2_schunk, f: impl FnOnce(&mut State) -> Result<c_int, c_int>) -> c_int {
    with_state(schunk, |st| {
        let r = f(st);
        if r.is_ok() {
            st.sync_metas()?;
        }
        r
    })
    .unwrap_or_else(|c| c)
}

/// Add a metalayer `name` with `content_len` bytes of `content`. Frames
/// only accept new metalayers before the first chunk. Returns its index
/// or a negative code (`BLOSC2_ERROR_INVALID_PARAM` when it exists).
///
/// # Safety
/// `schunk` must be NULL or live; `name` NULL or NUL-terminated; `content`
/// NULL or readable for `content_len` bytes.
#[no_mangle]
pub unsafe extern "C" fn blosc2_meta_add(
    schunk: *mut blosc2_schunk,
    name: *const c_char,
    content: *mut u8,
    content_len: i32,
) -> c_int {
    ffi_boundary!(ERR_FAILURE, {
        // SAFETY: per the contract.
        let args = unsafe { name_arg(name).and_then(|n| Ok((n, content_arg(content, content_len)?))) };
        let (n, c) = match args {
            Ok(a) => a,
            Err(code) => return code,
        };
        meta_edit(schunk, |st| st.sc.meta_add(n, c).map(|i| i as c_int).map_err(ecode))
    })
}

/// Overwrite the content of metalayer `name` (`content_len` may not exceed
/// its size; a shorter content replaces the first bytes). Returns its
/// index or a negative code.
///
/// # Safety
/// As for `blosc2_meta_add`.
#[no_mangle]
pub unsafe extern "C" fn blosc2_meta_update(
    schunk: *mut blosc2_schunk,
    name: *const c_char,
    content: *mut u8,
    content_len: i32,
) -> c_int {
    ffi_boundary!(ERR_FAILURE, {
        // SAFETY: per the contract.
        let args = unsafe { name_arg(name).and_then(|n| Ok((n, content_arg(content, content_len)?))) };
        let (n, c) = match args {
            Ok(a) => a,
            Err(code) => return code,
        };
        meta_edit(schunk, |st| {
            if st.sc.meta_exists(n).map_err(ecode)?.is_none() {
                return Err(ERR_NOT_FOUND);
            }
            st.sc.meta_update(n, c).map(|i| i as c_int).map_err(ecode)
        })
    })
}

/// Index of vlmetalayer `name`, `BLOSC2_ERROR_NOT_FOUND`, or another
/// negative code. On-disk super-chunks are re-read first when another
/// handle changed them.
///
/// # Safety
/// `schunk` must be NULL or live; `name` NULL or NUL-terminated.
#[no_mangle]
pub unsafe extern "C" fn blosc2_vlmeta_exists(schunk: *mut blosc2_schunk, name: *const c_char) -> c_int {
    ffi_boundary!(ERR_FAILURE, {
        // SAFETY: per the contract.
        let n = match unsafe { name_arg(name) } {
            Ok(n) => n,
            Err(code) => return code,
        };
        with_state(schunk, |st| match st.sc.vlmeta_exists(n).map_err(ecode)? {
            Some(i) => Ok(i as c_int),
            None => Err(ERR_NOT_FOUND),
        })
        .unwrap_or_else(|c| c)
    })
}

/// Engine compression parameters for a vlmetalayer: `cparams`, or
/// `BLOSC2_CPARAMS_DEFAULTS`, read as `blosc2_create_cctx` does.
///
/// # Safety
/// `cparams` must be NULL or valid.
unsafe fn vl_cparams(cparams: *const blosc2_cparams) -> Result<crate::engine::params::CParams, c_int> {
    let cp = if cparams.is_null() {
        CPARAMS_DEFAULTS
    } else {
        // SAFETY: valid per the contract.
        unsafe { *cparams }
    };
    cctx_setup(&cp).map(|s| s.engine).ok_or(ERR_NULL_POINTER)
}

/// Add vlmetalayer `name`, compressing `content` with `cparams` (NULL =
/// `BLOSC2_CPARAMS_DEFAULTS`). Returns its index or a negative code.
///
/// # Safety
/// `schunk` must be NULL or live; `name` NULL or NUL-terminated; `content`
/// NULL or readable for `content_len` bytes; `cparams` NULL or valid.
#[no_mangle]
pub unsafe extern "C" fn blosc2_vlmeta_add(
    schunk: *mut blosc2_schunk,
    name: *const c_char,
    content: *mut u8,
    content_len: i32,
    cparams: *mut blosc2_cparams,
) -> c_int {
    ffi_boundary!(ERR_FAILURE, {
        // SAFETY: per the contract.
        let args = unsafe { name_arg(name).and_then(|n| Ok((n, content_arg(content, content_len)?))) };
        let (n, c) = match args {
            Ok(a) => a,
            Err(code) => return code,
        };
        meta_edit(schunk, |st| {
            if st.sc.vlmeta_exists(n).map_err(ecode)?.is_some() {
                return Err(ERR_INVALID_PARAM);
            }
            // SAFETY: per the contract.
            let cp = unsafe { vl_cparams(cparams) }?;
            st.sc.vlmeta_add(n, c, Some(&cp)).map(|i| i as c_int).map_err(ecode)
        })
    })
}

/// Replace the content of vlmetalayer `name` (compressed with `cparams`,
/// NULL = defaults). Returns its index or a negative code.
///
/// # Safety
/// As for `blosc2_vlmeta_add`.
#[no_mangle]
pub unsafe extern "C" fn blosc2_vlmeta_update(
    schunk: *mut blosc2_schunk,
    name: *const c_char,
    content: *mut u8,
    content_len: i32,
    cparams: *mut blosc2_cparams,
) -> c_int {
    ffi_boundary!(ERR_FAILURE, {
        // SAFETY: per the contract.
        let n = match unsafe { name_arg(name) } {
            Ok(n) => n,
            Err(code) => return code,
        };
        meta_edit(schunk, |st| {
            if st.sc.vlmeta_exists(n).map_err(ecode)?.is_none() {
                return Err(ERR_NOT_FOUND);
            }
            // SAFETY: per the contract.
            let c = unsafe { content_arg(content, content_len) }?;
            // SAFETY: per the contract.
            let cp = unsafe { vl_cparams(cparams) }?;
            st.sc.vlmeta_update(n, c, Some(&cp)).map(|i| i as c_int).map_err(ecode)
        })
    })
}

/// Decompress vlmetalayer `name` into a `malloc`ed `*content` (to
/// `free()`; NULL when empty) of `*content_len` bytes. Returns its index,
/// or a negative code with `*content` NULL and `*content_len` 0.
///
/// # Safety
/// `schunk` must be NULL or live; `name` NULL or NUL-terminated;
/// `content`/`content_len` NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn blosc2_vlmeta_get(
    schunk: *mut blosc2_schunk,
    name: *const c_char,
    content: *mut *mut u8,
    content_len: *mut i32,
) -> c_int {
    ffi_boundary!(ERR_FAILURE, {
        // SAFETY: NULL or writable per the contract.
        unsafe {
            put(content, ptr::null_mut());
            put(content_len, 0);
        }
        if content.is_null() || content_len.is_null() {
            return ERR_INVALID_PARAM;
        }
        // SAFETY: per the contract.
        let n = match unsafe { name_arg(name) } {
            Ok(n) => n,
            Err(code) => return code,
        };
        let busy = super::schunk::lookup(schunk).is_ok_and(|h| h.busy());
        let r = if busy {
            // A plugin callback reading its super-chunk's vlmetalayers
            // during a compression or decompression of that super-chunk
            // (as C-Blosc2's plugins do): served from the public struct,
            // which the running call does not change.
            // SAFETY: a live super-chunk (it is in the handle table).
            unsafe { vlmeta_from_public(schunk, n) }
        } else {
            with_state(schunk, |st| {
                let i = st.sc.vlmeta_exists(n).map_err(ecode)?.ok_or(ERR_NOT_FOUND)?;
                let data = st.sc.vlmeta_get(n).map_err(ecode)?;
                Ok((i, data))
            })
        }
        .and_then(|(i, data)| Ok((i, i32::try_from(data.len()).map_err(|_| ERR_INVALID_PARAM)?, data)));
        let r = r.map(|(i, len, data)| (i, data, len));
        match r {
            Ok((i, data, len)) => {
                // An empty vlmetalayer still gets an allocation the caller
                // frees, as 3.3.5's malloc(0) gives one.
                let p = malloc_bytes(&data);
                if p.is_null() {
                    return ERR_MEMORY_ALLOC;
                }
                // SAFETY: both non-NULL and writable per the contract.
                unsafe {
                    content.write(p);
                    content_len.write(len);
                }
                i as c_int
            }
            Err(code) => code,
        }
    })
}

/// Vlmetalayer `name` decoded from the public struct's `vlmetalayers`
/// (each a compressed chunk), with its index.
///
/// # Safety
/// `schunk` must be a live super-chunk.
unsafe fn vlmeta_from_public(schunk: *mut blosc2_schunk, name: &str) -> Result<(usize, Vec<u8>), c_int> {
    // SAFETY: live per the contract.
    let p = unsafe { &*schunk };
    let n = usize::try_from(p.nvlmetalayers).unwrap_or(0).min(p.vlmetalayers.len());
    for (i, &m) in p.vlmetalayers.iter().enumerate().take(n) {
        if m.is_null() {
            continue;
        }
        // SAFETY: our live entry: a malloc'ed name and content.
        let (entry_name, content, len) = unsafe { ((*m).name, (*m).content, (*m).content_len) };
        // SAFETY: our NUL-terminated name.
        if unsafe { c_str(entry_name) } != Some(name) {
            continue;
        }
        // SAFETY: our content of `len` bytes.
        let chunk = unsafe { bytes(content.cast(), i64::from(len)) }.map_err(|_| ERR_INVALID_PARAM)?;
        let data = crate::engine::context::decompress_vec(chunk).map_err(ecode)?;
        return Ok((i, data));
    }
    Err(ERR_NOT_FOUND)
}

/// Remove vlmetalayer `name`. Returns the number of vlmetalayers left or a
/// negative code.
///
/// # Safety
/// `schunk` must be NULL or live; `name` NULL or NUL-terminated.
#[no_mangle]
pub unsafe extern "C" fn blosc2_vlmeta_delete(schunk: *mut blosc2_schunk, name: *const c_char) -> c_int {
    ffi_boundary!(ERR_FAILURE, {
        // SAFETY: per the contract.
        let n = match unsafe { name_arg(name) } {
            Ok(n) => n,
            Err(code) => return code,
        };
        meta_edit(schunk, |st| {
            if st.sc.vlmeta_exists(n).map_err(ecode)?.is_none() {
                return Err(ERR_NOT_FOUND);
            }
            st.sc.vlmeta_delete(n).map(|k| k as c_int).map_err(ecode)
        })
    })
}

/// Store in `names[i]` the name of every vlmetalayer (`names` must hold
/// `schunk->nvlmetalayers` pointers). The strings belong to the
/// super-chunk (do not free them; valid until its vlmetalayers change).
/// Returns the number of names or a negative code.
///
/// # Safety
/// `schunk` must be NULL or live; `names` NULL or writable for
/// `schunk->nvlmetalayers` pointers.
#[no_mangle]
pub unsafe extern "C" fn blosc2_vlmeta_get_names(schunk: *mut blosc2_schunk, names: *mut *mut c_char) -> c_int {
    ffi_boundary!(ERR_FAILURE, {
        with_state(schunk, |st| {
            let p = st.public();
            let n = usize::try_from(p.nvlmetalayers).unwrap_or(0).min(p.vlmetalayers.len());
            if n == 0 {
                return Ok(0);
            }
            if names.is_null() {
                return Err(ERR_NULL_POINTER);
            }
            for (i, &m) in p.vlmetalayers.iter().enumerate().take(n) {
                // SAFETY: `m` is one of our live entries (non-NULL below
                // `nvlmetalayers`); `names` holds `n` pointers per the
                // contract.
                unsafe {
                    names
                        .add(i)
                        .write(if m.is_null() { ptr::null_mut() } else { (*m).name })
                };
            }
            Ok(n as c_int)
        })
        .unwrap_or_else(|c| c)
    })
}
