//! Operations on arrays (`b2nd.h`): slices to and from C buffers,
//! scattered and orthogonal selections, shape changes, slices into new
//! arrays, copies, concatenation and views. See `b2nd.rs` for handles.
//!
//! Operations between two arrays lock both super-chunks, in address order;
//! when both are the same super-chunk (concatenating an array with
//! itself), the source is a snapshot taken first.

use std::ffi::c_int;
use std::ptr;

use crate::engine::b2nd::multi::{concatenated_shape, copy_vlmetas, same_partition, user_metalayers};
use crate::engine::b2nd::{concatenate, get_slice_array, view, Array, Geometry, ViewPlan, MAX_DIM};
use crate::engine::schunk::{SChunk, Storage};

use super::b2nd::{
    array_parts, array_sc, ctx_mut, ecode, free_array, new_array, only_b2nd_meta, read_array, register_array,
    set_array_geom, status, storage_params, with_array, Ctx,
};
use super::boundary::{bytes, bytes_mut, ffi_boundary, put, ERR_FAILURE, ERR_INVALID_PARAM, ERR_NULL_POINTER, SUCCESS};
use super::schunk::{blosc2_schunk_copy, lookup, with_state, State};
use super::types_schunk::{b2nd_array_t, b2nd_context_t, blosc2_schunk};

// ---------------------------------------------------------------------------
// Helpers
// ---------------------------------------------------------------------------

/// Run `f` with the states of two different super-chunks locked (in
/// address order), then re-sync both.
fn with_two<T>(
    a: *mut blosc2_schunk,
    b: *mut blosc2_schunk,
    f: impl FnOnce(&mut State, &mut State) -> Result<T, c_int>,
) -> Result<T, c_int> {
    if a == b {
        return Err(ERR_INVALID_PARAM);
    }
    let (ha, hb) = (lookup(a)?, lookup(b)?);
    let a_first = (a as usize) < (b as usize);
    let (first, second) = if a_first { (&ha, &hb) } else { (&hb, &ha) };
    let mut g1 = first.lock()?;
    let mut g2 = second.lock()?;
    let r = if a_first {
        f(&mut g1, &mut g2)
    } else {
        f(&mut g2, &mut g1)
    };
    g1.sync();
    g2.sync();
    r
}

/// Store a geometry computed outside `with_array` (table and public
/// struct).
fn store_geom(array: *const b2nd_array_t, geom: &Geometry, st: &mut State, metas_changed: bool) -> Result<(), c_int> {
    if metas_changed {
        st.sync_metas()?;
    }
    let tick = st.change_tick();
    set_array_geom(array, geom)?;
    // SAFETY: a live array struct owned by the table.
    let p = unsafe { &mut *array.cast_mut() };
    p.shape = geom.shape;
    p.chunkshape = geom.chunkshape;
    p.extshape = geom.extshape;
    p.blockshape = geom.blockshape;
    p.extchunkshape = geom.extchunkshape;
    p.nitems = geom.nitems;
    p.chunknitems = geom.chunknitems;
    p.extnitems = geom.extnitems;
    p.blocknitems = geom.blocknitems;
    p.extchunknitems = geom.extchunknitems;
    p.ndim = geom.ndim as i8;
    p.item_array_strides = geom.item_array_strides;
    p.item_chunk_strides = geom.item_chunk_strides;
    p.item_extchunk_strides = geom.item_extchunk_strides;
    p.item_block_strides = geom.item_block_strides;
    p.block_chunk_strides = geom.block_chunk_strides;
    p.chunk_array_strides = geom.chunk_array_strides;
    p.set_last_tick(tick);
    Ok(())
}

/// The array's geometry after following changes on disk.
fn refreshed(array: *const b2nd_array_t) -> Result<Geometry, c_int> {
    with_array(array, false, |a| {
        a.refresh()?;
        Ok(a.geometry().clone())
    })
}

/// Run `f` on two arrays (destination first) with both super-chunks
/// locked; their geometries are stored back afterwards.
fn with_two_arrays<T>(
    dst: *const b2nd_array_t,
    src: *const b2nd_array_t,
    f: impl FnOnce(&mut Array<&mut SChunk>, &mut Array<&mut SChunk>) -> crate::engine::error::Result<T>,
) -> Result<T, c_int> {
    let (dsc, ssc) = (array_sc(dst)?, array_sc(src)?);
    with_two(dsc, ssc, |ds, ss| {
        let (dg, dd, df) = array_parts(dst)?;
        let (sg, sd, sf) = array_parts(src)?;
        let mut d = Array::from_parts(&mut ds.sc, dg, dd, df);
        let mut s = Array::from_parts(&mut ss.sc, sg, sd, sf);
        let r = f(&mut d, &mut s);
        let (_, dg, _, _) = d.into_parts();
        let (_, sg, _, _) = s.into_parts();
        store_geom(dst, &dg, ds, true)?;
        store_geom(src, &sg, ss, false)?;
        r.map_err(ecode)
    })
}

/// The `ndim` of a live array.
fn ndim_of(array: *const b2nd_array_t) -> Result<usize, c_int> {
    array_parts(array).map(|(g, _, _)| g.ndim)
}

/// `ndim` coordinates from C.
///
/// # Safety
/// `p` must be NULL or hold `n` entries.
unsafe fn coords(p: *const i64, n: usize) -> Result<Vec<i64>, c_int> {
    if p.is_null() {
        return Err(ERR_NULL_POINTER);
    }
    // SAFETY: forwarded contract.
    unsafe { read_array(p, n) }
}

// ---------------------------------------------------------------------------
// Slices to and from C buffers
// ---------------------------------------------------------------------------

/// Read the slice `[start, stop)` into `buffer` (`buffersize` bytes, C
/// order, shaped `buffershape`, which must hold the slice); what the slice
/// does not cover is zeroed. Only the chunks and blocks the slice touches
/// are decompressed (and read from disk).
///
/// # Safety
/// `array` must be NULL or live; `start`, `stop` and `buffershape` NULL or
/// `ndim` entries; `buffer` NULL or writable for `buffersize` bytes.
#[no_mangle]
pub unsafe extern "C" fn b2nd_get_slice_cbuffer(
    array: *const b2nd_array_t,
    start: *const i64,
    stop: *const i64,
    buffer: *mut libc::c_void,
    buffershape: *const i64,
    buffersize: i64,
) -> c_int {
    ffi_boundary!(ERR_FAILURE, {
        if array.is_null() || start.is_null() || stop.is_null() || buffershape.is_null() || buffer.is_null() {
            return ERR_NULL_POINTER;
        }
        if buffersize < 0 {
            return ERR_INVALID_PARAM;
        }
        let r = (|| {
            let nd = ndim_of(array)?;
            // SAFETY: `ndim` entries each per the contract.
            let (s0, s1, bs) = unsafe { (coords(start, nd)?, coords(stop, nd)?, coords(buffershape, nd)?) };
            // SAFETY: writable for `buffersize` bytes per the contract.
            let buf = unsafe { bytes_mut(buffer, buffersize) }.map_err(|e| e.code())?;
            with_array(array, false, |a| a.get_slice_buffer(&s0, &s1, buf, &bs))
        })();
        status(r)
    })
}

/// Write `buffer` (`buffersize` bytes, C order, shaped `buffershape`,
/// which must hold the slice) into the slice `[start, stop)`. Each chunk
/// involved is recompressed once.
///
/// # Safety
/// `array` must be NULL or live; `start`, `stop` and `buffershape` NULL or
/// `ndim` entries; `buffer` NULL or readable for `buffersize` bytes.
#[no_mangle]
pub unsafe extern "C" fn b2nd_set_slice_cbuffer(
    buffer: *const libc::c_void,
    buffershape: *const i64,
    buffersize: i64,
    start: *const i64,
    stop: *const i64,
    array: *mut b2nd_array_t,
) -> c_int {
    ffi_boundary!(ERR_FAILURE, {
        if array.is_null() || start.is_null() || stop.is_null() || buffershape.is_null() || buffer.is_null() {
            return ERR_NULL_POINTER;
        }
        if buffersize < 0 {
            return ERR_INVALID_PARAM;
        }
        let r = (|| {
            let nd = ndim_of(array)?;
            // SAFETY: `ndim` entries each per the contract.
            let (s0, s1, bs) = unsafe { (coords(start, nd)?, coords(stop, nd)?, coords(buffershape, nd)?) };
            // SAFETY: readable for `buffersize` bytes per the contract.
            let buf = unsafe { bytes(buffer, buffersize) }.map_err(|e| e.code())?;
            with_array(array, false, |a| a.set_slice_buffer(&s0, &s1, buf, &bs))
        })();
        status(r)
    })
}

/// The whole array in C order into `buffer` (at least `nitems *
/// typesize` bytes).
///
/// # Safety
/// `array` must be NULL or live; `buffer` NULL or writable for
/// `buffersize` bytes.
#[no_mangle]
pub unsafe extern "C" fn b2nd_to_cbuffer(
    array: *const b2nd_array_t,
    buffer: *mut libc::c_void,
    buffersize: i64,
) -> c_int {
    ffi_boundary!(ERR_FAILURE, {
        if array.is_null() || buffer.is_null() {
            return ERR_NULL_POINTER;
        }
        if buffersize < 0 {
            return ERR_INVALID_PARAM;
        }
        // SAFETY: writable for `buffersize` bytes per the contract.
        let buf = match unsafe { bytes_mut(buffer, buffersize) } {
            Ok(b) => b,
            Err(e) => return e.code(),
        };
        status(with_array(array, false, |a| a.to_buffer(buf)))
    })
}

/// Gather the items at the flat (C-order) coordinates `coords` into
/// `buffer`, in the order given. Not for 0-dimensional arrays.
///
/// # Safety
/// `array` must be NULL or live; `coords` NULL or `ncoords` entries;
/// `buffer` NULL or writable for `buffersize` bytes.
#[no_mangle]
pub unsafe extern "C" fn b2nd_get_sparse_cbuffer(
    array: *const b2nd_array_t,
    ncoords: i64,
    coords: *const i64,
    buffer: *mut libc::c_void,
    buffersize: i64,
) -> c_int {
    ffi_boundary!(ERR_FAILURE, {
        if array.is_null() {
            return ERR_NULL_POINTER;
        }
        let r = (|| {
            let ts = with_array(array, false, |a| {
                a.refresh()?;
                Ok(i64::from(a.typesize()))
            })?;
            let n = usize::try_from(ncoords).map_err(|_| ERR_INVALID_PARAM)?;
            if n == 0 {
                return Ok(());
            }
            if coords.is_null() || buffer.is_null() {
                return Err(ERR_NULL_POINTER);
            }
            if ncoords.checked_mul(ts).is_none_or(|need| buffersize < need) {
                return Err(ERR_INVALID_PARAM);
            }
            // SAFETY: `ncoords` entries per the contract.
            let c = unsafe { read_array(coords, n)? };
            // SAFETY: writable for `buffersize` bytes per the contract.
            let buf = unsafe { bytes_mut(buffer, buffersize) }.map_err(|e| e.code())?;
            with_array(array, false, |a| a.get_sparse_buffer(&c, buf))
        })();
        status(r)
    })
}

/// The index lists of an orthogonal selection, read from C.
///
/// # Safety
/// As `b2nd_get_orthogonal_selection`.
unsafe fn selection_args(
    array: *const b2nd_array_t,
    selection: *mut *mut i64,
    selection_size: *mut i64,
    buffershape: *mut i64,
    buffersize: i64,
) -> Result<(Vec<Vec<i64>>, Vec<i64>), c_int> {
    if array.is_null() || selection.is_null() || selection_size.is_null() {
        return Err(ERR_NULL_POINTER);
    }
    let (g, _, _) = array_parts(array)?;
    let nd = g.ndim;
    // SAFETY: `ndim` entries per the contract.
    let sizes = unsafe { read_array(selection_size.cast_const(), nd)? };
    // SAFETY: `ndim` pointers per the contract.
    let ptrs = unsafe { read_array(selection.cast_const(), nd)? };
    let mut sels = Vec::with_capacity(nd);
    for (i, &p) in ptrs.iter().enumerate() {
        if p.is_null() {
            return Err(ERR_NULL_POINTER);
        }
        let n = usize::try_from(sizes[i]).map_err(|_| ERR_INVALID_PARAM)?;
        // SAFETY: `selection_size[i]` entries per the contract.
        sels.push(unsafe { read_array(p.cast_const(), n)? });
    }
    // 3.3.5 refuses a buffer larger than the selection.
    let ts = with_array(array, false, |a| Ok(i64::from(a.typesize())))?;
    let sel_bytes = sizes.iter().try_fold(ts, |acc, &s| acc.checked_mul(s));
    if sel_bytes.is_none_or(|n| n < buffersize) || buffersize < 0 {
        return Err(ERR_INVALID_PARAM);
    }
    if nd > 0 && buffershape.is_null() {
        return Err(ERR_NULL_POINTER);
    }
    // SAFETY: `ndim` entries per the contract.
    let bshape = unsafe { read_array(buffershape.cast_const(), nd)? };
    Ok((sels, bshape))
}

/// Read an orthogonal selection: `selection[i]` lists `selection_size[i]`
/// indexes along dimension `i`; item `(j0, j1, ...)` of `buffer` (C order,
/// shaped `buffershape`) receives `array[selection[0][j0], ...]`.
/// `BLOSC2_ERROR_INVALID_INDEX` for an index outside the array.
///
/// # Safety
/// `array` must be NULL or live; `selection`/`selection_size`/
/// `buffershape` NULL or `ndim` entries, each list `selection_size[i]`
/// entries; `buffer` NULL or writable for `buffersize` bytes.
#[no_mangle]
pub unsafe extern "C" fn b2nd_get_orthogonal_selection(
    array: *const b2nd_array_t,
    selection: *mut *mut i64,
    selection_size: *mut i64,
    buffer: *mut libc::c_void,
    buffershape: *mut i64,
    buffersize: i64,
) -> c_int {
    ffi_boundary!(ERR_FAILURE, {
        let r = (|| {
            // SAFETY: forwarded contract.
            let (sels, bshape) = unsafe { selection_args(array, selection, selection_size, buffershape, buffersize)? };
            if buffer.is_null() && buffersize > 0 {
                return Err(ERR_NULL_POINTER);
            }
            // SAFETY: writable for `buffersize` bytes per the contract.
            let buf = unsafe { bytes_mut(buffer, buffersize) }.map_err(|e| e.code())?;
            let refs: Vec<&[i64]> = sels.iter().map(|v| &v[..]).collect();
            with_array(array, false, |a| a.get_orthogonal_selection(&refs, buf, &bshape))
        })();
        status(r)
    })
}

/// Write an orthogonal selection (see `b2nd_get_orthogonal_selection`);
/// a repeated index takes the value of its last position.
///
/// # Safety
/// As `b2nd_get_orthogonal_selection`, with `buffer` readable.
#[no_mangle]
pub unsafe extern "C" fn b2nd_set_orthogonal_selection(
    array: *mut b2nd_array_t,
    selection: *mut *mut i64,
    selection_size: *mut i64,
    buffer: *const libc::c_void,
    buffershape: *mut i64,
    buffersize: i64,
) -> c_int {
    ffi_boundary!(ERR_FAILURE, {
        let r = (|| {
            // SAFETY: forwarded contract.
            let (sels, bshape) = unsafe { selection_args(array, selection, selection_size, buffershape, buffersize)? };
            if buffer.is_null() && buffersize > 0 {
                return Err(ERR_NULL_POINTER);
            }
            // SAFETY: readable for `buffersize` bytes per the contract.
            let buf = unsafe { bytes(buffer, buffersize) }.map_err(|e| e.code())?;
            let refs: Vec<&[i64]> = sels.iter().map(|v| &v[..]).collect();
            with_array(array, false, |a| a.set_orthogonal_selection(&refs, buf, &bshape))
        })();
        status(r)
    })
}

// ---------------------------------------------------------------------------
// Shape changes
// ---------------------------------------------------------------------------

/// Change the shape. Without `start` (NULL) dimensions grow or shrink at
/// their end; with it, `start[i]` is where items are added or removed
/// along dimension `i` (away from the end, a multiple of the chunk shape,
/// by a multiple of the chunk shape). New chunks read as zeros.
///
/// # Safety
/// `array` must be NULL or live; `new_shape` NULL or `ndim` entries;
/// `start` NULL or `ndim` entries.
#[no_mangle]
pub unsafe extern "C" fn b2nd_resize(array: *mut b2nd_array_t, new_shape: *const i64, start: *const i64) -> c_int {
    ffi_boundary!(ERR_FAILURE, {
        if array.is_null() || new_shape.is_null() {
            return ERR_NULL_POINTER;
        }
        let r = (|| {
            let nd = ndim_of(array)?;
            // SAFETY: `ndim` entries per the contract.
            let ns = unsafe { coords(new_shape, nd)? };
            let st = if start.is_null() {
                None
            } else {
                // SAFETY: `ndim` entries per the contract.
                Some(unsafe { coords(start, nd)? })
            };
            with_array(array, true, |a| a.resize(&ns, st.as_deref()))
        })();
        status(r)
    })
}

/// Insert `buffersize` bytes (C order; a whole number of slabs of the
/// array along `axis`) before index `insert_start` of `axis`.
///
/// # Safety
/// `array` must be NULL or live; `buffer` NULL or readable for
/// `buffersize` bytes.
#[no_mangle]
pub unsafe extern "C" fn b2nd_insert(
    array: *mut b2nd_array_t,
    buffer: *const libc::c_void,
    buffersize: i64,
    axis: i8,
    insert_start: i64,
) -> c_int {
    ffi_boundary!(ERR_FAILURE, {
        if array.is_null() || buffer.is_null() {
            return ERR_NULL_POINTER;
        }
        let Ok(axis) = usize::try_from(axis) else {
            return ERR_INVALID_PARAM;
        };
        // SAFETY: readable for `buffersize` bytes per the contract.
        let buf = match unsafe { bytes(buffer, buffersize) } {
            Ok(b) => b,
            Err(e) => return e.code(),
        };
        status(with_array(array, true, |a| a.insert(buf, axis, insert_start)))
    })
}

/// Append `buffersize` bytes (C order; whole slabs along `axis`) at the
/// end of `axis`.
///
/// # Safety
/// `array` must be NULL or live; `buffer` NULL or readable for
/// `buffersize` bytes.
#[no_mangle]
pub unsafe extern "C" fn b2nd_append(
    array: *mut b2nd_array_t,
    buffer: *const libc::c_void,
    buffersize: i64,
    axis: i8,
) -> c_int {
    ffi_boundary!(ERR_FAILURE, {
        if array.is_null() || buffer.is_null() {
            return ERR_NULL_POINTER;
        }
        let Ok(axis) = usize::try_from(axis) else {
            return ERR_INVALID_PARAM;
        };
        // SAFETY: readable for `buffersize` bytes per the contract.
        let buf = match unsafe { bytes(buffer, buffersize) } {
            Ok(b) => b,
            Err(e) => return e.code(),
        };
        status(with_array(array, true, |a| a.append(buf, axis)))
    })
}

/// Remove `delete_len` items along `axis` from `delete_start` (away from
/// the end, whole chunks only).
///
/// # Safety
/// `array` must be NULL or a live array.
#[no_mangle]
pub unsafe extern "C" fn b2nd_delete(array: *mut b2nd_array_t, axis: i8, delete_start: i64, delete_len: i64) -> c_int {
    ffi_boundary!(ERR_FAILURE, {
        if array.is_null() {
            return ERR_NULL_POINTER;
        }
        let Ok(axis) = usize::try_from(axis) else {
            return ERR_INVALID_PARAM;
        };
        status(with_array(array, true, |a| a.delete(axis, delete_start, delete_len)))
    })
}

// ---------------------------------------------------------------------------
// New arrays from others
// ---------------------------------------------------------------------------

/// Store the result of an array-making closure in `*out`.
///
/// # Safety
/// `out` must be NULL or writable.
unsafe fn deliver(out: *mut *mut b2nd_array_t, r: Result<*mut b2nd_array_t, c_int>) -> c_int {
    match r {
        Ok(a) => {
            // SAFETY: writable per the contract (callers checked non-NULL).
            unsafe { put(out, a) };
            SUCCESS
        }
        Err(code) => code,
    }
}

/// Make `dst` (new, empty) hold the slice of `src` starting at `start`;
/// `dst` is released on failure.
fn fill_from(dst: *mut b2nd_array_t, src: *const b2nd_array_t, start: &[i64]) -> Result<*mut b2nd_array_t, c_int> {
    let r = with_two_arrays(dst, src, |d, s| get_slice_array(d, s, start));
    match r {
        Ok(()) => Ok(dst),
        Err(code) => {
            free_array(dst, true);
            Err(code)
        }
    }
}

/// The slice `[start, stop)` of `src` as a new array made with `ctx`
/// (whose shape becomes the slice's, as in 3.3.5). `*array` is NULL on
/// failure.
///
/// # Safety
/// `ctx` must be NULL or live; `src` NULL or live; `start`/`stop` NULL or
/// `ndim` entries; `array` NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn b2nd_get_slice(
    ctx: *mut b2nd_context_t,
    array: *mut *mut b2nd_array_t,
    src: *const b2nd_array_t,
    start: *const i64,
    stop: *const i64,
) -> c_int {
    ffi_boundary!(ERR_FAILURE, {
        // SAFETY: NULL or writable per the contract.
        unsafe { put(array, ptr::null_mut()) };
        if src.is_null() || start.is_null() || stop.is_null() || array.is_null() {
            return ERR_NULL_POINTER;
        }
        let r = (|| {
            // SAFETY: forwarded contract.
            let ctx = unsafe { ctx_mut(ctx)? };
            let g = refreshed(src)?;
            let nd = g.ndim;
            // SAFETY: `ndim` entries per the contract.
            let (s0, s1) = unsafe { (coords(start, nd)?, coords(stop, nd)?) };
            if (0..nd).any(|i| s0[i] < 0 || s1[i] < s0[i] || s1[i] > g.shape[i]) {
                return Err(ERR_INVALID_PARAM);
            }
            ctx.ndim = nd;
            for i in 0..nd {
                ctx.shape[i] = s1[i] - s0[i];
            }
            let dst = new_array(ctx, &crate::engine::b2nd::Fill::Zeros)?;
            fill_from(dst, src, &s0)
        })();
        // SAFETY: `array` checked non-NULL.
        unsafe { deliver(array, r) }
    })
}

/// The body of `b2nd_copy`.
fn copy_impl(ctx: &mut Ctx, src: *const b2nd_array_t) -> Result<*mut b2nd_array_t, c_int> {
    let g = refreshed(src)?;
    let nd = g.ndim;
    ctx.ndim = nd;
    ctx.shape[..nd].copy_from_slice(g.shape());
    let params = ctx.params();
    let typesize = with_array(src, false, |a| Ok(a.typesize()))?;
    if same_partition(&g, (typesize, ctx.cparams.typesize), &params) {
        let sc = array_sc(src)?;
        let mut storage = ctx.storage();
        // SAFETY: a live super-chunk and a storage pointing into `ctx`.
        let new = unsafe { blosc2_schunk_copy(sc, &mut storage) };
        if new.is_null() {
            return Err(ERR_FAILURE);
        }
        let geom = Geometry::new(&params.shape, &params.chunkshape, &params.blockshape).map_err(ecode);
        let tick = with_state(new, |st| Ok(st.change_tick()));
        let (geom, tick) = match (geom, tick) {
            (Ok(g), Ok(t)) => (g, t),
            (Err(c), _) | (_, Err(c)) => {
                // SAFETY: our own live handle.
                unsafe { super::schunk::blosc2_schunk_free(new) };
                return Err(c);
            }
        };
        let a = register_array(new, geom, params.dtype, params.dtype_format, tick);
        if a.is_null() {
            // SAFETY: our own live handle.
            unsafe { super::schunk::blosc2_schunk_free(new) };
            return Err(super::boundary::ERR_MEMORY_ALLOC);
        }
        return Ok(a);
    }
    // Another partition: the metalayers other than b2nd replace the
    // context's, the data is re-chunked and the vlmetalayers follow.
    let metas = with_state(array_sc(src)?, |st| Ok(user_metalayers(&st.sc)))?;
    let saved = std::mem::replace(&mut ctx.metalayers, metas);
    let dst = new_array(ctx, &crate::engine::b2nd::Fill::Zeros);
    ctx.metalayers = saved;
    let dst = dst?;
    let start = vec![0i64; nd];
    let r = with_two_arrays(dst, src, |d, s| {
        get_slice_array(d, s, &start)?;
        let cp = d.schunk().cparams();
        copy_vlmetas(d.schunk_mut(), s.schunk(), Some(&cp))
    });
    match r {
        Ok(()) => Ok(dst),
        Err(code) => {
            free_array(dst, true);
            Err(code)
        }
    }
}

/// A copy of `src` made with `ctx` (its shape becomes `src`'s): the
/// super-chunk is copied as it is when the chunk and block shapes are the
/// same, the data is re-chunked otherwise. `*array` is NULL on failure.
///
/// # Safety
/// `ctx` must be NULL or live; `src` NULL or live; `array` NULL or
/// writable.
#[no_mangle]
pub unsafe extern "C" fn b2nd_copy(
    ctx: *mut b2nd_context_t,
    src: *const b2nd_array_t,
    array: *mut *mut b2nd_array_t,
) -> c_int {
    ffi_boundary!(ERR_FAILURE, {
        // SAFETY: NULL or writable per the contract.
        unsafe { put(array, ptr::null_mut()) };
        if src.is_null() || array.is_null() {
            return ERR_NULL_POINTER;
        }
        // SAFETY: forwarded contract.
        let r = unsafe { ctx_mut(ctx) }.and_then(|c| copy_impl(c, src));
        // SAFETY: `array` checked non-NULL.
        unsafe { deliver(array, r) }
    })
}

/// Concatenate `src2` to `src1` along `axis`: into a copy of `src1` made
/// with `ctx` (`copy` true) or into `src1` itself (`copy` false, then
/// `*array` is `src1`). The shapes must match outside `axis`; chunks are
/// copied as they are when the chunk and block shapes agree and `src1`
/// ends on a chunk boundary along `axis`.
///
/// # Safety
/// `ctx` must be NULL or live (it is used when `copy` is true); `src1`,
/// `src2` NULL or live; `array` NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn b2nd_concatenate(
    ctx: *mut b2nd_context_t,
    src1: *const b2nd_array_t,
    src2: *const b2nd_array_t,
    axis: i8,
    copy: bool,
    array: *mut *mut b2nd_array_t,
) -> c_int {
    ffi_boundary!(ERR_FAILURE, {
        // SAFETY: NULL or writable per the contract.
        unsafe { put(array, ptr::null_mut()) };
        if src1.is_null() || src2.is_null() || array.is_null() {
            return ERR_NULL_POINTER;
        }
        let r = (|| {
            let g1 = refreshed(src1)?;
            let g2 = refreshed(src2)?;
            let ts1 = with_array(src1, false, |a| Ok(a.typesize()))?;
            let ts2 = with_array(src2, false, |a| Ok(a.typesize()))?;
            concatenated_shape(g1.shape(), ts1, &g2, ts2, i64::from(axis)).map_err(ecode)?;
            let dst = if copy {
                // SAFETY: forwarded contract.
                let c = unsafe { ctx_mut(ctx)? };
                copy_impl(c, src1)?
            } else {
                src1.cast_mut()
            };
            let r = if array_sc(dst)? == array_sc(src2)? {
                concat_with_itself(dst, src2, axis)
            } else {
                with_two_arrays(dst, src2, |d, s| concatenate(d, s, i64::from(axis)))
            };
            match r {
                Ok(()) => Ok(dst),
                Err(code) => {
                    if copy {
                        free_array(dst, true);
                    }
                    Err(code)
                }
            }
        })();
        // SAFETY: `array` checked non-NULL.
        unsafe { deliver(array, r) }
    })
}

/// Concatenate an array with (a snapshot of) itself.
fn concat_with_itself(dst: *const b2nd_array_t, src2: *const b2nd_array_t, axis: i8) -> Result<(), c_int> {
    let (g2, d2, f2) = array_parts(src2)?;
    with_array(dst, true, |a| {
        let sc = a.schunk_mut();
        let storage = Storage {
            contiguous: false,
            cparams: sc.cparams(),
            ..Storage::default()
        };
        let snap = sc.copy(storage)?;
        let mut s = Array::from_parts(snap, g2, d2, f2);
        concatenate(a, &mut s, i64::from(axis))
    })
}

// ---------------------------------------------------------------------------
// Views
// ---------------------------------------------------------------------------

/// A new in-memory array laid out by `plan` holding the items of `array`
/// (3.3.5's views share the data; these are copies, with `sc->view` set).
fn make_view(array: *const b2nd_array_t, plan: &ViewPlan) -> Result<*mut b2nd_array_t, c_int> {
    // A view has as many chunks as the source's shape implies; 3.3.5's
    // reads past the source's chunks when a crafted frame holds fewer.
    if !with_array(array, false, |a| Ok(a.holds_its_chunks()))? {
        return Err(ERR_INVALID_PARAM);
    }
    let (_, dtype, fmt) = array_parts(array)?;
    let sc = array_sc(array)?;
    let (mut cparams, dparams, ts) = with_state(sc, |st| {
        only_b2nd_meta(st)?;
        let (c, d) = storage_params(st);
        Ok((c, d, st.sc.typesize()))
    })?;
    let blocknitems = plan.blockshape.iter().try_fold(1i32, |acc, &b| acc.checked_mul(b));
    cparams.blocksize = blocknitems
        .and_then(|n| n.checked_mul(cparams.typesize))
        .filter(|b| *b >= 0)
        .ok_or(ERR_INVALID_PARAM)?;
    cparams.schunk = ptr::null_mut();
    let nd = plan.shape.len();
    let mut ctx = Ctx {
        ndim: nd,
        shape: [0; MAX_DIM],
        chunkshape: [0; MAX_DIM],
        blockshape: [0; MAX_DIM],
        dtype: Some(dtype.unwrap_or_else(|| format!("|S{ts}"))),
        dtype_format: fmt,
        metalayers: Vec::new(),
        contiguous: false,
        urlpath: None,
        cparams,
        dparams: dparams.map(|mut d| {
            d.schunk = ptr::null_mut();
            d
        }),
        io: None,
    };
    ctx.shape[..nd].copy_from_slice(&plan.shape);
    ctx.chunkshape[..nd].copy_from_slice(&plan.chunkshape);
    ctx.blockshape[..nd].copy_from_slice(&plan.blockshape);
    let dst = new_array(&ctx, &crate::engine::b2nd::Fill::Zeros)?;
    let r = (|| {
        // 3.3.5 makes a view out of zero chunks, points it at the data
        // and keeps counting the zero chunks' `cbytes`.
        let placeholder_cbytes = with_state(array_sc(dst)?, |st| Ok(st.sc.cbytes()))?;
        with_two_arrays(dst, array, |d, s| {
            view(d, s, plan)?;
            copy_vlmetas(d.schunk_mut(), s.schunk(), None)
        })?;
        with_state(array_sc(dst)?, |st| {
            st.public().view = true;
            st.publish_cbytes_as(placeholder_cbytes);
            st.sync_metas()
        })
    })();
    if let Err(code) = r {
        free_array(dst, true);
        return Err(code);
    }
    Ok(dst)
}

/// A new array with dimensions of size 1 inserted: `axis` has
/// `final_dims` entries, true where a new dimension goes; the others take
/// the array's dimensions in order (there must be exactly `ndim` of them).
/// The result is an in-memory copy (3.3.5 shares the data). Arrays with
/// metalayers other than `b2nd` are refused.
///
/// # Safety
/// `array` must be NULL or live; `view` NULL or writable; `axis` NULL or
/// `final_dims` entries.
#[no_mangle]
pub unsafe extern "C" fn b2nd_expand_dims(
    array: *const b2nd_array_t,
    view: *mut *mut b2nd_array_t,
    axis: *const bool,
    final_dims: u8,
) -> c_int {
    ffi_boundary!(ERR_FAILURE, {
        // SAFETY: NULL or writable per the contract.
        unsafe { put(view, ptr::null_mut()) };
        if array.is_null() || view.is_null() {
            return ERR_NULL_POINTER;
        }
        let r = (|| {
            let g = refreshed(array)?;
            if usize::from(final_dims) > MAX_DIM {
                return Err(ERR_INVALID_PARAM);
            }
            // SAFETY: `final_dims` entries per the contract.
            let ax = unsafe { read_array(axis, usize::from(final_dims))? };
            let plan = ViewPlan::expand_dims(&g, &ax).map_err(ecode)?;
            make_view(array, &plan)
        })();
        // SAFETY: `view` checked non-NULL.
        unsafe { deliver(view, r) }
    })
}

/// A new array without the dimensions where `index` (`ndim` entries) is
/// true; their size must be 1 (`BLOSC2_ERROR_INVALID_INDEX` otherwise).
/// See `b2nd_expand_dims` for what the result is.
///
/// # Safety
/// `array` must be NULL or live; `view` NULL or writable; `index` NULL or
/// `ndim` entries.
#[no_mangle]
pub unsafe extern "C" fn b2nd_squeeze_index(
    array: *mut b2nd_array_t,
    view: *mut *mut b2nd_array_t,
    index: *const bool,
) -> c_int {
    ffi_boundary!(ERR_FAILURE, {
        // SAFETY: NULL or writable per the contract.
        unsafe { put(view, ptr::null_mut()) };
        if array.is_null() || view.is_null() {
            return ERR_NULL_POINTER;
        }
        let r = (|| {
            let g = refreshed(array)?;
            if index.is_null() && g.ndim > 0 {
                return Err(ERR_NULL_POINTER);
            }
            // SAFETY: `ndim` entries per the contract.
            let idx = unsafe { read_array(index, g.ndim)? };
            let plan = ViewPlan::squeeze(&g, &idx).map_err(ecode)?;
            make_view(array, &plan)
        })();
        // SAFETY: `view` checked non-NULL.
        unsafe { deliver(view, r) }
    })
}

/// A new array without any dimension of size 1 (see
/// `b2nd_squeeze_index`).
///
/// # Safety
/// `array` must be NULL or live; `view` NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn b2nd_squeeze(array: *mut b2nd_array_t, view: *mut *mut b2nd_array_t) -> c_int {
    ffi_boundary!(ERR_FAILURE, {
        // SAFETY: NULL or writable per the contract.
        unsafe { put(view, ptr::null_mut()) };
        if array.is_null() || view.is_null() {
            return ERR_NULL_POINTER;
        }
        let r = (|| {
            let g = refreshed(array)?;
            let plan = ViewPlan::squeeze(&g, &ViewPlan::squeeze_all(&g)).map_err(ecode)?;
            make_view(array, &plan)
        })();
        // SAFETY: `view` checked non-NULL.
        unsafe { deliver(view, r) }
    })
}
