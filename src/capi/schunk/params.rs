//! Parameters, offsets reordering and special fills.

use std::ffi::c_int;
use std::ptr;

use crate::engine::chunk::SpecialKind;

use super::super::boundary::{ffi_boundary, put, ERR_FAILURE, ERR_MEMORY_ALLOC, ERR_NULL_POINTER, SUCCESS};
use super::super::types::{blosc2_cparams, blosc2_dparams};
use super::super::types_schunk::blosc2_schunk;

use super::handle::*;
use super::heap::*;

// ---------------------------------------------------------------------------
// Parameters
// ---------------------------------------------------------------------------

/// Store in `*out` a `malloc`ed copy of what `read` gets from the handle's
/// state (NULL first, and left NULL on failure): the shared body of
/// `blosc2_schunk_get_cparams` and `blosc2_schunk_get_dparams`.
///
/// # Safety
/// `out` must be NULL or writable.
unsafe fn malloc_param_copy<T: Copy>(
    schunk: *mut blosc2_schunk,
    out: *mut *mut T,
    read: impl FnOnce(&mut State) -> Result<T, c_int>,
) -> c_int {
    ffi_boundary!(ERR_FAILURE, {
        // SAFETY: NULL or writable per the contract.
        unsafe { put(out, ptr::null_mut()) };
        if out.is_null() {
            return ERR_NULL_POINTER;
        }
        match with_state(schunk, read) {
            Ok(value) => {
                let p = malloc_value(value);
                if p.is_null() {
                    return ERR_MEMORY_ALLOC;
                }
                // SAFETY: non-NULL and writable per the contract.
                unsafe { out.write(p) };
                SUCCESS
            }
            Err(code) => code,
        }
    })
}

/// Store in `*cparams` a `malloc`ed copy (to `free()`) of the super-chunk's
/// compression parameters, read from its public fields (threads from
/// `schunk->cctx`). Returns 0, or a negative code with `*cparams` NULL.
///
/// # Safety
/// `schunk` must be NULL or live; `cparams` NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn blosc2_schunk_get_cparams(
    schunk: *mut blosc2_schunk,
    cparams: *mut *mut blosc2_cparams,
) -> c_int {
    // SAFETY: forwarded contract.
    unsafe { malloc_param_copy(schunk, cparams, |st| Ok(public_cparams(st))) }
}

/// Store in `*dparams` a `malloc`ed copy (to `free()`) of the super-chunk's
/// decompression parameters (threads from `schunk->dctx`). Returns 0, or a
/// negative code with `*dparams` NULL.
///
/// # Safety
/// `schunk` must be NULL or live; `dparams` NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn blosc2_schunk_get_dparams(
    schunk: *mut blosc2_schunk,
    dparams: *mut *mut blosc2_dparams,
) -> c_int {
    // SAFETY: forwarded contract.
    unsafe {
        malloc_param_copy(schunk, dparams, |st| {
            let public = st.public_ptr();
            let nthreads = ctx_dparams(st.public().dctx).map_or(1, |d| d.nthreads);
            Ok(blosc2_dparams {
                nthreads,
                schunk: public.cast(),
                postfilter: None,
                postparams: ptr::null_mut(),
                typesize: 0,
            })
        })
    }
}

/// Reorder the chunks: chunk `i` becomes the old chunk `offsets_order[i]`
/// (`nchunks` entries, a permutation). Returns 0 or a negative code.
///
/// # Safety
/// `schunk` must be NULL or live; `offsets_order` NULL or `nchunks` entries.
#[no_mangle]
pub unsafe extern "C" fn blosc2_schunk_reorder_offsets(schunk: *mut blosc2_schunk, offsets_order: *mut i64) -> c_int {
    ffi_boundary!(ERR_FAILURE, {
        with_state(schunk, |st| {
            let n = usize::try_from(st.sc.nchunks()).map_err(|_| ERR_FAILURE)?;
            if n == 0 {
                return Ok(SUCCESS);
            }
            if offsets_order.is_null() {
                return Err(ERR_NULL_POINTER);
            }
            // SAFETY: `nchunks` entries per the contract.
            let order = unsafe { std::slice::from_raw_parts(offsets_order.cast_const(), n) };
            st.sc.reorder_offsets(order).map_err(ecode)?;
            Ok(SUCCESS)
        })
        .unwrap_or_else(|c| c)
    })
}

/// Fill an empty super-chunk with `nitems` items of a special value
/// (`BLOSC2_SPECIAL_ZERO`, `_NAN` or `_UNINIT`) in chunks of `chunksize`
/// bytes. Returns the number of chunks or a negative code.
///
/// # Safety
/// `schunk` must be NULL or a live super-chunk.
#[no_mangle]
pub unsafe extern "C" fn blosc2_schunk_fill_special(
    schunk: *mut blosc2_schunk,
    nitems: i64,
    special_value: c_int,
    chunksize: i32,
) -> i64 {
    ffi_boundary!(code64(ERR_FAILURE), {
        let kind = match special_value {
            1 => Some(SpecialKind::Zeros),
            2 => Some(SpecialKind::Nans),
            4 => Some(SpecialKind::Uninit),
            _ => None,
        };
        with_state(schunk, |st| {
            if nitems == 0 {
                return Ok(0);
            }
            let kind = kind.ok_or(ERR_SCHUNK_SPECIAL)?;
            st.sc.fill_special(nitems, kind, chunksize).map_err(ecode)
        })
        .unwrap_or_else(code64)
    })
}
