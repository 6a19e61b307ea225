//! Creation, copies and release of super-chunks.

use std::ffi::c_int;
use std::ptr;

use crate::engine::schunk::SChunk;

use super::super::boundary::{ffi_boundary, ERR_FAILURE, ERR_INVALID_PARAM, ERR_NULL_POINTER, SUCCESS};
use super::super::types_schunk::{blosc2_schunk, blosc2_storage};

use super::handle::*;
use super::heap::*;
use super::storage::*;

// ---------------------------------------------------------------------------
// Creation, copies, release
// ---------------------------------------------------------------------------

/// Create a new super-chunk with `storage` (NULL pointers inside it take
/// their defaults). A `urlpath` makes it persistent: a contiguous frame
/// file, or a sparse frame directory when `contiguous` is false; neither
/// may exist yet. Works without `blosc2_init`. Returns NULL for a NULL
/// storage, parameters 3.3.5 refuses (undefined filters, tuners), a
/// user-defined I/O backend, or a path that cannot be created.
///
/// # Safety
/// `storage` must be NULL or point to a valid `blosc2_storage`.
#[no_mangle]
pub unsafe extern "C" fn blosc2_schunk_new(storage: *mut blosc2_storage) -> *mut blosc2_schunk {
    ffi_boundary!(ptr::null_mut(), {
        // SAFETY: valid per the contract.
        let Some(cs) = (unsafe { read_storage(storage, None) }) else {
            return ptr::null_mut();
        };
        let mut init = cs.init;
        if std::env::var_os("BTUNE_TRADEOFF").is_some() {
            // 3.3.5 turns BTUNE on for every new super-chunk then (and
            // fails to make it when the BTUNE plugin is not installed).
            init.cparams.tuner_id = c_int::from(crate::engine::plugins::ids::TUNER_BTUNE);
        }
        if init.cparams.tuner_id == c_int::from(crate::engine::plugins::ids::TUNER_BTUNE) {
            init.cparams.use_dict = 0;
        }
        match SChunk::new(cs.engine) {
            Ok(sc) => {
                init.urlpath = sc.urlpath().map(str::to_string);
                register(sc, init)
            }
            Err(_) => ptr::null_mut(),
        }
    })
}

/// Copy a super-chunk into a new one with `storage` (its `cparams` NULL =
/// the source's parameters). Chunks are copied as they are when the
/// parameters match, recompressed otherwise; metalayers and vlmetalayers
/// are copied. Returns NULL on any failure.
///
/// # Safety
/// `schunk` must be NULL or a live super-chunk; `storage` NULL or valid.
#[no_mangle]
pub unsafe extern "C" fn blosc2_schunk_copy(
    schunk: *mut blosc2_schunk,
    storage: *mut blosc2_storage,
) -> *mut blosc2_schunk {
    ffi_boundary!(ptr::null_mut(), {
        let r = with_state(schunk, |st| {
            let fallback_c = public_cparams(st);
            let fallback = Some((st.sc.cparams(), fallback_c));
            // SAFETY: valid per the contract.
            let cs = unsafe { read_storage(storage, fallback) }.ok_or(ERR_INVALID_PARAM)?;
            let new = st.sc.copy(cs.engine).map_err(ecode)?;
            let mut init = cs.init;
            init.urlpath = new.urlpath().map(str::to_string);
            Ok((new, init))
        });
        match r {
            Ok((new, init)) => register(new, init),
            Err(_) => ptr::null_mut(),
        }
    })
}

/// Release a super-chunk: its contexts, storage, metalayers, `blockshape`
/// and, for a frame taken over with `blosc2_schunk_avoid_cframe_free(...,
/// false)`, the caller's frame buffer. Returns 0, or a negative code for
/// NULL or a pointer that is not a live super-chunk.
///
/// # Safety
/// `schunk` must be NULL or a live super-chunk, not used afterwards.
#[no_mangle]
pub unsafe extern "C" fn blosc2_schunk_free(schunk: *mut blosc2_schunk) -> c_int {
    ffi_boundary!(ERR_FAILURE, {
        if schunk.is_null() {
            return ERR_NULL_POINTER;
        }
        let h = match change_registry(|reg| reg.remove(&(schunk as usize))) {
            Ok(Some(h)) => h,
            Ok(None) => return ERR_INVALID_PARAM,
            Err(code) => return code,
        };
        let mut g = match h.lock() {
            Ok(g) => g,
            Err(code) => return code,
        };
        release(&mut g);
        SUCCESS
    })
}
