//! N-dimensional arrays (`b2nd.h`): contexts, creation, release,
//! persistence and the metalayer helpers. Slices, selections, shape
//! changes, copies and views are in `b2nd_ops.rs`.
//!
//! # Handles
//!
//! A `b2nd_array_t*` points to a `calloc`ed [`b2nd_array_t`] whose fields
//! C programs read directly; its `sc` is an ordinary super-chunk handle
//! (see `schunk.rs`) that the array owns. The geometry the engine works
//! with sits in a side table keyed by the array's address, next to that
//! super-chunk; a pointer that is not in the table is refused with an
//! error code. Operations run under the super-chunk's lock, and after each
//! one the public fields (shape, extended shapes, item counts, strides,
//! `last_tick`) are rewritten from the engine's geometry. `dtype` is a
//! `malloc`ed string, `chunk_cache` starts empty (`data` NULL, `nchunk`
//! -1) and is left to the caller, as in 3.3.5.
//!
//! A `b2nd_context_t*` is a boxed copy of everything `b2nd_create_ctx`
//! received (the storage, its parameters and path, the shapes, dtype and
//! metalayers are all copied), also checked against a table of live
//! contexts.

use std::collections::{BTreeMap, BTreeSet};
use std::ffi::{c_char, c_int, CString};
use std::ptr;

use crate::engine::b2nd::copy::{copy_buffer, copy_extents};
use crate::engine::b2nd::meta::{deserialize_meta, deserialize_meta_dims, serialize_meta};
use crate::engine::b2nd::{init_schunk, Array, ArrayParams, Fill, Geometry, MAX_DIM, MAX_METALAYERS};
use crate::engine::error::Error;
use crate::engine::schunk::{SChunk, Storage};
use crate::engine::threads::fork_lock::{ForkSlots, SlotGuard};

use super::alloc::malloc_cstring;
use super::boundary::{
    bytes, bytes_mut, c_str, code_of, ffi_boundary, put, ERR_FAILURE, ERR_INVALID_PARAM, ERR_MEMORY_ALLOC,
    ERR_NULL_POINTER, SUCCESS,
};
use super::defaults::CPARAMS_DEFAULTS;
use super::schunk::{blosc2_schunk_copy, blosc2_schunk_free, blosc2_schunk_new};
use super::schunk::{lookup, malloc_bytes, with_state, with_state_unlocked, State};
use super::schunk_frame::{
    blosc2_remove_urlpath, blosc2_schunk_append_file, blosc2_schunk_from_buffer, blosc2_schunk_open_offset,
    blosc2_schunk_to_buffer,
};
use super::types::{blosc2_cparams, blosc2_dparams, blosc2_io};
use super::types_schunk::{b2nd_array_t, b2nd_context_t, blosc2_metalayer, blosc2_schunk, blosc2_storage};

/// `BLOSC2_ERROR_METALAYER_NOT_FOUND`.
const ERR_METALAYER_NOT_FOUND: c_int = -34;
/// The metalayer of arrays.
const NAME: &str = crate::engine::b2nd::META_NAME;

pub(crate) fn ecode(e: Error) -> c_int {
    code_of(&e)
}

/// `free()` a C heap pointer (NULL is fine).
pub(crate) fn cfree<T>(p: *mut T) {
    // SAFETY: NULL or a pointer from malloc/calloc, freed once by callers.
    unsafe { libc::free(p.cast()) };
}

// ---------------------------------------------------------------------------
// Array handles
// ---------------------------------------------------------------------------

/// What the side table keeps for one `b2nd_array_t*`.
#[derive(Clone)]
pub(crate) struct Entry {
    /// The super-chunk handle the array owns.
    pub(crate) sc: *mut blosc2_schunk,
    /// The engine's geometry.
    pub(crate) geom: Geometry,
    /// The dtype recorded for the array (`None`: the metalayer had none).
    pub(crate) dtype: Option<String>,
    /// Its format.
    pub(crate) dtype_format: i8,
}

// SAFETY: the pointer is a super-chunk handle, itself reached only through
// its own registry and mutex; the entry is plain data otherwise.
unsafe impl Send for Entry {}

/// Live arrays. A child forked while a parent thread was inside goes on
/// with a copy (see `ForkSlots`), which may lack an array being made or
/// freed at that moment.
static ARRAYS: ForkSlots<BTreeMap<usize, Entry>> = ForkSlots::new();

/// The table of arrays, alone; `ERR_FAILURE` once forks caught threads
/// inside it more often than it has slots.
fn arrays() -> Result<SlotGuard<'static, BTreeMap<usize, Entry>>, c_int> {
    ARRAYS.lock_mirrored().ok_or(ERR_FAILURE)
}

/// Change the table of arrays (and its mirrors).
fn change_arrays<R>(change: impl Fn(&mut BTreeMap<usize, Entry>) -> R) -> Result<R, c_int> {
    ARRAYS.change(change).ok_or(ERR_FAILURE)
}

/// Record the geometry an array has now.
pub(crate) fn set_array_geom(array: *const b2nd_array_t, geom: &Geometry) -> Result<(), c_int> {
    change_arrays(|t| {
        if let Some(e) = t.get_mut(&(array as usize)) {
            e.geom = geom.clone();
        }
    })
}

/// The super-chunk of a live array: `ERR_NULL_POINTER` for NULL,
/// `ERR_INVALID_PARAM` for a pointer that is not an array.
pub(crate) fn array_sc(array: *const b2nd_array_t) -> Result<*mut blosc2_schunk, c_int> {
    if array.is_null() {
        return Err(ERR_NULL_POINTER);
    }
    arrays()?.get(&(array as usize)).map(|e| e.sc).ok_or(ERR_INVALID_PARAM)
}

/// The geometry, dtype and dtype format of a live array.
pub(crate) fn array_parts(array: *const b2nd_array_t) -> Result<(Geometry, Option<String>, i8), c_int> {
    arrays()?
        .get(&(array as usize))
        .map(|e| (e.geom.clone(), e.dtype.clone(), e.dtype_format))
        .ok_or(ERR_INVALID_PARAM)
}

/// Copy the geometry into the public struct.
fn publish(public: *mut b2nd_array_t, g: &Geometry, last_tick: i64) {
    // SAFETY: `public` is a live calloc'ed array struct owned by the table.
    let p = unsafe { &mut *public };
    p.shape = g.shape;
    p.chunkshape = g.chunkshape;
    p.extshape = g.extshape;
    p.blockshape = g.blockshape;
    p.extchunkshape = g.extchunkshape;
    p.nitems = g.nitems;
    p.chunknitems = g.chunknitems;
    p.extnitems = g.extnitems;
    p.blocknitems = g.blocknitems;
    p.extchunknitems = g.extchunknitems;
    p.ndim = g.ndim as i8;
    p.item_array_strides = g.item_array_strides;
    p.item_chunk_strides = g.item_chunk_strides;
    p.item_extchunk_strides = g.item_extchunk_strides;
    p.item_block_strides = g.item_block_strides;
    p.block_chunk_strides = g.block_chunk_strides;
    p.chunk_array_strides = g.chunk_array_strides;
    p.set_last_tick(last_tick);
}

/// Make a new array handle over the super-chunk handle `sc` (which it
/// then owns). NULL when memory runs out (or the table of arrays was
/// lost to forks, see [`ARRAYS`]).
pub(crate) fn register_array(
    sc: *mut blosc2_schunk,
    geom: Geometry,
    dtype: Option<String>,
    dtype_format: i8,
    last_tick: i64,
) -> *mut b2nd_array_t {
    // SAFETY: calloc has no preconditions; the result is checked. All-zero
    // bytes are a valid b2nd_array_t.
    let public = unsafe { libc::calloc(1, std::mem::size_of::<b2nd_array_t>()) }.cast::<b2nd_array_t>();
    if public.is_null() {
        return ptr::null_mut();
    }
    let cdtype = match &dtype {
        Some(d) => {
            let p = malloc_cstring(d);
            if p.is_null() {
                cfree(public);
                return ptr::null_mut();
            }
            p
        }
        None => ptr::null_mut(),
    };
    {
        // SAFETY: our fresh, exclusively owned struct.
        let p = unsafe { &mut *public };
        p.sc = sc;
        p.dtype = cdtype;
        p.dtype_format = dtype_format;
        p.chunk_cache.data = ptr::null_mut();
        p.chunk_cache.nchunk = -1;
    }
    publish(public, &geom, last_tick);
    let entry = Entry {
        sc,
        geom,
        dtype,
        dtype_format,
    };
    if change_arrays(|t| t.insert(public as usize, entry.clone())).is_err() {
        cfree(cdtype);
        cfree(public);
        return ptr::null_mut();
    }
    public
}

/// Run `f` on the array under its super-chunk's lock, then store the
/// geometry it leaves (in the table and the public struct). With
/// `metas_changed`, the super-chunk's public metalayers are re-synced.
pub(crate) fn with_array<T>(
    array: *const b2nd_array_t,
    metas_changed: bool,
    f: impl FnOnce(&mut Array<&mut SChunk>) -> crate::engine::error::Result<T>,
) -> Result<T, c_int> {
    let sc = array_sc(array)?;
    with_state(sc, |st| {
        let (geom, dtype, fmt) = array_parts(array)?;
        let mut a = Array::from_parts(&mut st.sc, geom, dtype, fmt);
        let r = f(&mut a);
        let (_, geom, _, _) = a.into_parts();
        if metas_changed {
            st.sync_metas()?;
        }
        let tick = st.change_tick();
        set_array_geom(array, &geom)?;
        publish(array.cast_mut(), &geom, tick);
        r.map_err(ecode)
    })
}

/// A C `int` result: `SUCCESS` or the code.
pub(crate) fn status(r: Result<(), c_int>) -> c_int {
    match r {
        Ok(()) => SUCCESS,
        Err(c) => c,
    }
}

// ---------------------------------------------------------------------------
// Contexts
// ---------------------------------------------------------------------------

/// Everything `b2nd_create_ctx` received, copied.
pub(crate) struct Ctx {
    pub(crate) ndim: usize,
    pub(crate) shape: [i64; MAX_DIM],
    pub(crate) chunkshape: [i32; MAX_DIM],
    pub(crate) blockshape: [i32; MAX_DIM],
    pub(crate) dtype: Option<String>,
    pub(crate) dtype_format: i8,
    pub(crate) metalayers: Vec<(String, Vec<u8>)>,
    pub(crate) contiguous: bool,
    pub(crate) urlpath: Option<CString>,
    /// The compression parameters, block size set to one array block.
    pub(crate) cparams: blosc2_cparams,
    pub(crate) dparams: Option<blosc2_dparams>,
    pub(crate) io: Option<blosc2_io>,
}

/// Live contexts (kept across forks as [`ARRAYS`] is).
static CTXS: ForkSlots<BTreeSet<usize>> = ForkSlots::new();

/// Whether `ctx` is a live context (false when the table is lost).
fn is_ctx(ctx: *mut b2nd_context_t) -> bool {
    CTXS.lock_mirrored().is_some_and(|t| t.contains(&(ctx as usize)))
}

/// Change the table of contexts (and its mirrors).
fn change_ctxs<R>(change: impl Fn(&mut BTreeSet<usize>) -> R) -> Option<R> {
    CTXS.change(change)
}

/// The context behind a `b2nd_context_t*`.
///
/// # Safety
/// No other reference to the same context may be live.
pub(crate) unsafe fn ctx_mut<'a>(ctx: *mut b2nd_context_t) -> Result<&'a mut Ctx, c_int> {
    if ctx.is_null() {
        return Err(ERR_NULL_POINTER);
    }
    if !is_ctx(ctx) {
        return Err(ERR_INVALID_PARAM);
    }
    // SAFETY: a live context from Box::into_raw (checked in the table);
    // exclusive per the contract.
    Ok(unsafe { &mut *ctx.cast::<Ctx>() })
}

impl Ctx {
    /// Engine parameters for the shapes, dtype and metalayers (the storage
    /// is created through the C layer).
    pub(crate) fn params(&self) -> ArrayParams {
        let nd = self.ndim;
        ArrayParams {
            storage: Storage::default(),
            shape: self.shape[..nd].to_vec(),
            chunkshape: self.chunkshape[..nd].to_vec(),
            blockshape: self.blockshape[..nd].to_vec(),
            dtype: self.dtype.clone(),
            dtype_format: self.dtype_format,
            metalayers: self.metalayers.clone(),
        }
    }

    /// A new super-chunk handle with the context's storage.
    pub(crate) fn new_schunk(&self) -> Result<*mut blosc2_schunk, c_int> {
        let mut cparams = self.cparams;
        let mut dparams = self.dparams;
        let mut io = self.io;
        let mut storage = blosc2_storage {
            contiguous: self.contiguous,
            urlpath: self.urlpath.as_ref().map_or(ptr::null_mut(), |u| u.as_ptr().cast_mut()),
            cparams: &mut cparams,
            dparams: dparams.as_mut().map_or(ptr::null_mut(), |d| d as *mut _),
            io: io.as_mut().map_or(ptr::null_mut(), |i| i as *mut _),
        };
        // SAFETY: every pointer of `storage` refers to live locals.
        let sc = unsafe { blosc2_schunk_new(&mut storage) };
        if sc.is_null() {
            Err(ERR_FAILURE)
        } else {
            Ok(sc)
        }
    }

    /// The storage as a C struct pointing into this context.
    pub(crate) fn storage(&mut self) -> blosc2_storage {
        blosc2_storage {
            contiguous: self.contiguous,
            urlpath: self.urlpath.as_ref().map_or(ptr::null_mut(), |u| u.as_ptr().cast_mut()),
            cparams: &mut self.cparams,
            dparams: self.dparams.as_mut().map_or(ptr::null_mut(), |d| d as *mut _),
            io: self.io.as_mut().map_or(ptr::null_mut(), |i| i as *mut _),
        }
    }
}

/// Release a super-chunk handle made for an array that could not be
/// completed, and what it wrote to disk.
pub(crate) fn discard_schunk(sc: *mut blosc2_schunk) {
    let path = with_state(sc, |st| Ok(st.sc.urlpath().map(str::to_string)))
        .ok()
        .flatten();
    // SAFETY: our own live handle, not used afterwards.
    unsafe { blosc2_schunk_free(sc) };
    if let Some(p) = path.and_then(|p| CString::new(p).ok()) {
        // SAFETY: a NUL-terminated path.
        unsafe { blosc2_remove_urlpath(p.as_ptr()) };
    }
}

/// Make a new array with the context's parameters, filled with `fill`
/// (3.3.5's `array_new`).
pub(crate) fn new_array(ctx: &Ctx, fill: &Fill) -> Result<*mut b2nd_array_t, c_int> {
    let params = ctx.params();
    let sc = ctx.new_schunk()?;
    let made = with_state(sc, |st| {
        let g = init_schunk(&mut st.sc, &params, fill).map_err(ecode)?;
        st.sync_metas()?;
        Ok((g, st.change_tick()))
    });
    match made {
        Ok((geom, tick)) => {
            let a = register_array(sc, geom, params.dtype, params.dtype_format, tick);
            if a.is_null() {
                discard_schunk(sc);
                return Err(ERR_MEMORY_ALLOC);
            }
            Ok(a)
        }
        Err(c) => {
            discard_schunk(sc);
            Err(c)
        }
    }
}

/// Read `n` entries of a C array (NULL allowed when `n` is 0).
///
/// # Safety
/// `p` must be NULL or readable for `n` items.
pub(crate) unsafe fn read_array<T: Copy>(p: *const T, n: usize) -> Result<Vec<T>, c_int> {
    if n == 0 {
        return Ok(Vec::new());
    }
    if p.is_null() {
        return Err(ERR_NULL_POINTER);
    }
    // SAFETY: readable for `n` items per the contract.
    Ok(unsafe { std::slice::from_raw_parts(p, n) }.to_vec())
}

/// Create the parameters of new arrays: storage (NULL: defaults),
/// dimensions, chunk and block shapes (`ndim` entries each), dtype (NULL:
/// `|S<typesize>`), its format and up to 15 extra metalayers. Everything
/// is copied. Returns NULL for `ndim` outside 0-16, NULL shapes with
/// `ndim` > 0, negative sizes, zero block sizes with non-zero chunk sizes,
/// non-empty dimensions without chunks, a block larger than
/// `INT32_MAX` bytes, more than 15 metalayers or a non-UTF-8 path.
///
/// # Safety
/// Every non-NULL pointer must be valid for what it describes.
#[no_mangle]
pub unsafe extern "C" fn b2nd_create_ctx(
    b2_storage: *const blosc2_storage,
    ndim: i8,
    shape: *const i64,
    chunkshape: *const i32,
    blockshape: *const i32,
    dtype: *const c_char,
    dtype_format: i8,
    metalayers: *const blosc2_metalayer,
    nmetalayers: i32,
) -> *mut b2nd_context_t {
    ffi_boundary!(ptr::null_mut(), {
        // SAFETY: forwarded contract.
        match unsafe {
            create_ctx(
                b2_storage,
                ndim,
                shape,
                chunkshape,
                blockshape,
                dtype,
                dtype_format,
                metalayers,
                nmetalayers,
            )
        } {
            Ok(ctx) => {
                let p = Box::into_raw(Box::new(ctx)).cast::<b2nd_context_t>();
                if change_ctxs(|t| t.insert(p as usize)).is_none() {
                    // SAFETY: made just above, never handed out.
                    drop(unsafe { Box::from_raw(p.cast::<Ctx>()) });
                    return ptr::null_mut();
                }
                p
            }
            Err(_) => ptr::null_mut(),
        }
    })
}

/// The body of `b2nd_create_ctx`.
///
/// # Safety
/// As `b2nd_create_ctx`.
#[allow(clippy::too_many_arguments)]
unsafe fn create_ctx(
    b2_storage: *const blosc2_storage,
    ndim: i8,
    shape: *const i64,
    chunkshape: *const i32,
    blockshape: *const i32,
    dtype: *const c_char,
    dtype_format: i8,
    metalayers: *const blosc2_metalayer,
    nmetalayers: i32,
) -> Result<Ctx, c_int> {
    let nd = usize::try_from(ndim)
        .ok()
        .filter(|n| *n <= MAX_DIM)
        .ok_or(ERR_INVALID_PARAM)?;
    // SAFETY: `nd` entries each per the contract.
    let (s, c, b) = unsafe {
        (
            read_array(shape, nd)?,
            read_array(chunkshape, nd)?,
            read_array(blockshape, nd)?,
        )
    };
    crate::engine::b2nd::geometry::validate_for_context(&s, &c, &b).map_err(ecode)?;
    let nmeta = usize::try_from(nmetalayers).map_err(|_| ERR_INVALID_PARAM)?;
    if nmeta > MAX_METALAYERS {
        return Err(ERR_INVALID_PARAM);
    }
    // SAFETY: `nmeta` entries per the contract.
    let metas = unsafe { read_array(metalayers, nmeta)? };
    let mut user_metas = Vec::with_capacity(nmeta);
    for m in metas {
        // SAFETY: NUL-terminated name and `content_len` bytes per the contract.
        let name = unsafe { c_str(m.name) }.ok_or(ERR_INVALID_PARAM)?;
        // SAFETY: as above.
        let content = unsafe { bytes(m.content.cast(), i64::from(m.content_len)) }.map_err(|e| e.code())?;
        user_metas.push((name.to_string(), content.to_vec()));
    }
    let (contiguous, urlpath, cparams, dparams, io) = if b2_storage.is_null() {
        (false, None, CPARAMS_DEFAULTS, None, None)
    } else {
        // SAFETY: valid per the contract.
        let st = unsafe { &*b2_storage };
        let urlpath = if st.urlpath.is_null() {
            None
        } else {
            // SAFETY: NUL-terminated per the contract.
            let u = unsafe { c_str(st.urlpath) }.ok_or(ERR_INVALID_PARAM)?;
            Some(CString::new(u).map_err(|_| ERR_INVALID_PARAM)?)
        };
        let cparams = if st.cparams.is_null() {
            CPARAMS_DEFAULTS
        } else {
            // SAFETY: valid per the contract.
            unsafe { *st.cparams }
        };
        // SAFETY: as above.
        let dparams = (!st.dparams.is_null()).then(|| unsafe { *st.dparams });
        // SAFETY: as above.
        let io = (!st.io.is_null()).then(|| unsafe { *st.io });
        (st.contiguous, urlpath, cparams, dparams, io)
    };
    let mut cparams = cparams;
    let blocknitems = b.iter().try_fold(1i32, |acc, &x| acc.checked_mul(x));
    cparams.blocksize = blocknitems
        .and_then(|n| n.checked_mul(cparams.typesize))
        .filter(|n| *n >= 0)
        .ok_or(ERR_INVALID_PARAM)?;
    let dtype = if dtype.is_null() {
        format!("|S{}", cparams.typesize)
    } else {
        // SAFETY: NUL-terminated per the contract.
        unsafe { std::ffi::CStr::from_ptr(dtype) }
            .to_string_lossy()
            .into_owned()
    };
    let mut ctx = Ctx {
        ndim: nd,
        shape: [0; MAX_DIM],
        chunkshape: [0; MAX_DIM],
        blockshape: [0; MAX_DIM],
        dtype: Some(dtype),
        dtype_format,
        metalayers: user_metas,
        contiguous,
        urlpath,
        cparams,
        dparams,
        io,
    };
    ctx.shape[..nd].copy_from_slice(&s);
    ctx.chunkshape[..nd].copy_from_slice(&c);
    ctx.blockshape[..nd].copy_from_slice(&b);
    Ok(ctx)
}

/// Release a context. Returns 0, or a negative code for NULL or a pointer
/// that is not a live context.
///
/// # Safety
/// `ctx` must be NULL or a live context, not used afterwards.
#[no_mangle]
pub unsafe extern "C" fn b2nd_free_ctx(ctx: *mut b2nd_context_t) -> c_int {
    ffi_boundary!(ERR_FAILURE, {
        if ctx.is_null() {
            return ERR_NULL_POINTER;
        }
        if change_ctxs(|t| t.remove(&(ctx as usize))) != Some(true) {
            return ERR_INVALID_PARAM;
        }
        // SAFETY: a live context from Box::into_raw, removed from the table.
        drop(unsafe { Box::from_raw(ctx.cast::<Ctx>()) });
        SUCCESS
    })
}

// ---------------------------------------------------------------------------
// Creation
// ---------------------------------------------------------------------------

/// Make an array with `fill` and store it in `*array` (NULL on failure).
///
/// # Safety
/// `ctx` NULL or live; `array` NULL or writable.
unsafe fn create(ctx: *mut b2nd_context_t, array: *mut *mut b2nd_array_t, fill: Fill) -> c_int {
    // SAFETY: NULL or writable per the contract.
    unsafe { put(array, ptr::null_mut()) };
    if array.is_null() {
        return ERR_NULL_POINTER;
    }
    // SAFETY: forwarded contract.
    let ctx = match unsafe { ctx_mut(ctx) } {
        Ok(c) => c,
        Err(code) => return code,
    };
    match new_array(ctx, &fill) {
        Ok(a) => {
            // SAFETY: checked non-NULL and writable.
            unsafe { array.write(a) };
            SUCCESS
        }
        Err(code) => code,
    }
}

/// Create an array whose chunks are all zeros (`b2nd_empty` fills with
/// zeros too, "to avoid variable cratios", as 3.3.5 does). `*array` is
/// NULL on failure.
///
/// # Safety
/// `ctx` must be NULL or a live context; `array` NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn b2nd_empty(ctx: *mut b2nd_context_t, array: *mut *mut b2nd_array_t) -> c_int {
    // SAFETY: forwarded contract.
    ffi_boundary!(ERR_FAILURE, { unsafe { create(ctx, array, Fill::Zeros) } })
}

/// Create an array of zeros.
///
/// # Safety
/// `ctx` must be NULL or a live context; `array` NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn b2nd_zeros(ctx: *mut b2nd_context_t, array: *mut *mut b2nd_array_t) -> c_int {
    // SAFETY: forwarded contract.
    ffi_boundary!(ERR_FAILURE, { unsafe { create(ctx, array, Fill::Zeros) } })
}

/// Create an array with unspecified content.
///
/// # Safety
/// `ctx` must be NULL or a live context; `array` NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn b2nd_uninit(ctx: *mut b2nd_context_t, array: *mut *mut b2nd_array_t) -> c_int {
    // SAFETY: forwarded contract.
    ffi_boundary!(ERR_FAILURE, { unsafe { create(ctx, array, Fill::Uninit) } })
}

/// Create an array of NaNs; the item size must be 4 or 8
/// (`BLOSC2_ERROR_DATA` otherwise).
///
/// # Safety
/// `ctx` must be NULL or a live context; `array` NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn b2nd_nans(ctx: *mut b2nd_context_t, array: *mut *mut b2nd_array_t) -> c_int {
    // SAFETY: forwarded contract.
    ffi_boundary!(ERR_FAILURE, { unsafe { create(ctx, array, Fill::Nans) } })
}

/// Create an array whose items are all `fill_value` (typesize bytes).
///
/// # Safety
/// `ctx` must be NULL or a live context; `array` NULL or writable;
/// `fill_value` NULL or readable for the item size.
#[no_mangle]
pub unsafe extern "C" fn b2nd_full(
    ctx: *mut b2nd_context_t,
    array: *mut *mut b2nd_array_t,
    fill_value: *const libc::c_void,
) -> c_int {
    ffi_boundary!(ERR_FAILURE, {
        // SAFETY: NULL or writable per the contract.
        unsafe { put(array, ptr::null_mut()) };
        if fill_value.is_null() {
            return ERR_NULL_POINTER;
        }
        // SAFETY: forwarded contract.
        let ts = match unsafe { ctx_mut(ctx) } {
            Ok(c) => c.cparams.typesize,
            Err(code) => return code,
        };
        if ts <= 0 {
            return ERR_INVALID_PARAM;
        }
        // SAFETY: readable for the item size per the contract.
        let v = match unsafe { bytes(fill_value, i64::from(ts)) } {
            Ok(v) => v.to_vec(),
            Err(e) => return e.code(),
        };
        // SAFETY: forwarded contract.
        unsafe { create(ctx, array, Fill::Value(v)) }
    })
}

/// Create an array holding the `buffersize` bytes at `buffer` (the items
/// in C order; at least `nitems * typesize` bytes). `*array` is NULL on
/// failure.
///
/// # Safety
/// `ctx` must be NULL or a live context; `array` NULL or writable;
/// `buffer` NULL or readable for `buffersize` bytes.
#[no_mangle]
pub unsafe extern "C" fn b2nd_from_cbuffer(
    ctx: *mut b2nd_context_t,
    array: *mut *mut b2nd_array_t,
    buffer: *const libc::c_void,
    buffersize: i64,
) -> c_int {
    ffi_boundary!(ERR_FAILURE, {
        // SAFETY: NULL or writable per the contract.
        unsafe { put(array, ptr::null_mut()) };
        if buffer.is_null() || array.is_null() {
            return ERR_NULL_POINTER;
        }
        // SAFETY: forwarded contract.
        let c = match unsafe { ctx_mut(ctx) } {
            Ok(c) => c,
            Err(code) => return code,
        };
        let p = c.params();
        let need = match Geometry::new(&p.shape, &p.chunkshape, &p.blockshape) {
            Ok(g) => g.nitems.checked_mul(i64::from(c.cparams.typesize)),
            Err(e) => return ecode(e),
        };
        if need.is_none_or(|n| buffersize < n) {
            return ERR_INVALID_PARAM;
        }
        // SAFETY: readable for `buffersize` bytes per the contract.
        let buf = match unsafe { bytes(buffer, buffersize) } {
            Ok(b) => b,
            Err(e) => return e.code(),
        };
        let a = match new_array(c, &Fill::Zeros) {
            Ok(a) => a,
            Err(code) => return code,
        };
        let r = with_array(a, false, |arr| {
            if arr.geometry().nitems == 0 {
                return Ok(());
            }
            let shape = arr.shape().to_vec();
            let start = vec![0i64; shape.len()];
            arr.set_slice_buffer(&start, &shape, buf, &shape)
        });
        match r {
            Ok(()) => {
                // SAFETY: checked non-NULL and writable.
                unsafe { array.write(a) };
                SUCCESS
            }
            Err(code) => {
                free_array(a, true);
                code
            }
        }
    })
}

/// Make an array over the live super-chunk handle `sc`, which it then owns.
fn array_from_schunk(sc: *mut blosc2_schunk) -> Result<*mut b2nd_array_t, c_int> {
    // No file lock, as in 3.3.5 (see `with_state_unlocked`).
    let (geom, dtype, fmt, tick) = with_state_unlocked(sc, |st| {
        let a = Array::from_schunk(&mut st.sc).map_err(ecode)?;
        let (_, g, d, f) = a.into_parts();
        Ok((g, d, f, st.change_tick()))
    })?;
    if arrays()?.values().any(|e| e.sc == sc) {
        // Two arrays owning one super-chunk would free it twice.
        return Err(ERR_INVALID_PARAM);
    }
    let a = register_array(sc, geom, dtype, fmt, tick);
    if a.is_null() {
        return Err(ERR_MEMORY_ALLOC);
    }
    Ok(a)
}

/// Make an array over a super-chunk carrying a `b2nd` (or `caterva`)
/// metalayer; the array owns the super-chunk from then on (`b2nd_free`
/// frees it). `BLOSC2_ERROR_METALAYER_NOT_FOUND` without the metalayer,
/// `BLOSC2_ERROR_FAILURE` for a metalayer that does not parse,
/// `BLOSC2_ERROR_INVALID_PARAM` for shapes that are inconsistent or
/// overflow.
///
/// # Safety
/// `schunk` must be NULL or a live super-chunk; `array` NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn b2nd_from_schunk(schunk: *mut blosc2_schunk, array: *mut *mut b2nd_array_t) -> c_int {
    ffi_boundary!(ERR_FAILURE, {
        // SAFETY: NULL or writable per the contract.
        unsafe { put(array, ptr::null_mut()) };
        if schunk.is_null() || array.is_null() {
            return ERR_NULL_POINTER;
        }
        if let Err(code) = lookup(schunk) {
            return code;
        }
        match array_from_schunk(schunk) {
            Ok(a) => {
                // SAFETY: checked non-NULL and writable.
                unsafe { array.write(a) };
                SUCCESS
            }
            Err(code) => code,
        }
    })
}

/// `b2nd_from_schunk` on a super-chunk made here, freed if that fails.
///
/// # Safety
/// `array` must be NULL or writable.
unsafe fn adopt(sc: *mut blosc2_schunk, array: *mut *mut b2nd_array_t, on_null: c_int) -> c_int {
    if sc.is_null() {
        return on_null;
    }
    match array_from_schunk(sc) {
        Ok(a) => {
            // SAFETY: non-NULL (checked by the callers) and writable.
            unsafe { array.write(a) };
            SUCCESS
        }
        Err(code) => {
            // SAFETY: our own live handle.
            unsafe { blosc2_schunk_free(sc) };
            code
        }
    }
}

/// Make an array out of a contiguous frame of `cframe_len` bytes (see
/// `blosc2_schunk_from_buffer` for `copy`). `*array` is NULL on failure.
///
/// # Safety
/// `cframe` must be NULL or readable for `cframe_len` bytes; `array` NULL
/// or writable.
#[no_mangle]
pub unsafe extern "C" fn b2nd_from_cframe(
    cframe: *mut u8,
    cframe_len: i64,
    copy: bool,
    array: *mut *mut b2nd_array_t,
) -> c_int {
    ffi_boundary!(ERR_FAILURE, {
        // SAFETY: NULL or writable per the contract.
        unsafe { put(array, ptr::null_mut()) };
        if cframe.is_null() || array.is_null() {
            return ERR_NULL_POINTER;
        }
        // SAFETY: forwarded contract.
        let sc = unsafe { blosc2_schunk_from_buffer(cframe, cframe_len, copy) };
        // SAFETY: `array` checked non-NULL.
        unsafe { adopt(sc, array, ERR_FAILURE) }
    })
}

/// Open the array stored in file (or sparse directory) `urlpath` at byte
/// `offset`. Chunks are read from disk when needed and edits go to disk.
/// `BLOSC2_ERROR_NULL_POINTER` when the frame cannot be opened (as in
/// 3.3.5); `*array` is NULL on failure.
///
/// # Safety
/// `urlpath` must be NULL or NUL-terminated; `array` NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn b2nd_open_offset(urlpath: *const c_char, array: *mut *mut b2nd_array_t, offset: i64) -> c_int {
    ffi_boundary!(ERR_FAILURE, {
        // SAFETY: NULL or writable per the contract.
        unsafe { put(array, ptr::null_mut()) };
        if urlpath.is_null() || array.is_null() {
            return ERR_NULL_POINTER;
        }
        // SAFETY: forwarded contract.
        let sc = unsafe { blosc2_schunk_open_offset(urlpath, offset) };
        // SAFETY: `array` checked non-NULL.
        unsafe { adopt(sc, array, ERR_NULL_POINTER) }
    })
}

/// Open the array stored in file (or sparse directory) `urlpath`; see
/// `b2nd_open_offset`.
///
/// # Safety
/// `urlpath` must be NULL or NUL-terminated; `array` NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn b2nd_open(urlpath: *const c_char, array: *mut *mut b2nd_array_t) -> c_int {
    // SAFETY: forwarded contract.
    unsafe { b2nd_open_offset(urlpath, array, 0) }
}

/// Release an array handle (and, with `with_schunk`, its super-chunk).
pub(crate) fn free_array(array: *mut b2nd_array_t, with_schunk: bool) -> c_int {
    let e = match change_arrays(|t| t.remove(&(array as usize))) {
        Ok(Some(e)) => e,
        Ok(None) => return ERR_INVALID_PARAM,
        Err(code) => return code,
    };
    if with_schunk {
        // SAFETY: the super-chunk handle the array owned (NULL-safe).
        unsafe { blosc2_schunk_free(e.sc) };
    }
    // SAFETY: our live struct, removed from the table.
    let p = unsafe { &mut *array };
    cfree(p.dtype);
    cfree(array);
    SUCCESS
}

/// Release an array: its super-chunk, `dtype` and the struct itself
/// (`chunk_cache.data` is the caller's, as in 3.3.5). Returns 0, or a
/// negative code for NULL or a pointer that is not a live array.
///
/// # Safety
/// `array` must be NULL or a live array, not used afterwards.
#[no_mangle]
pub unsafe extern "C" fn b2nd_free(array: *mut b2nd_array_t) -> c_int {
    ffi_boundary!(ERR_FAILURE, {
        if array.is_null() {
            return ERR_NULL_POINTER;
        }
        free_array(array, true)
    })
}

// ---------------------------------------------------------------------------
// Persistence
// ---------------------------------------------------------------------------

/// The array as a contiguous frame: for an in-memory contiguous array
/// `*cframe` points to its own frame (valid until the next edit,
/// `*needs_free` false), otherwise to a `malloc`ed copy (`*needs_free`
/// true). Returns 0 or a negative code.
///
/// # Safety
/// `array` must be NULL or live; the out-pointers NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn b2nd_to_cframe(
    array: *const b2nd_array_t,
    cframe: *mut *mut u8,
    cframe_len: *mut i64,
    needs_free: *mut bool,
) -> c_int {
    ffi_boundary!(ERR_FAILURE, {
        if array.is_null() || cframe.is_null() || cframe_len.is_null() || needs_free.is_null() {
            return ERR_NULL_POINTER;
        }
        let sc = match array_sc(array) {
            Ok(sc) => sc,
            Err(code) => return code,
        };
        // SAFETY: live super-chunk, writable out-pointers.
        let len = unsafe { blosc2_schunk_to_buffer(sc, cframe, needs_free) };
        // SAFETY: checked non-NULL and writable.
        unsafe { cframe_len.write(len) };
        if len <= 0 {
            return ERR_FAILURE;
        }
        SUCCESS
    })
}

/// Write a copy of the array to `urlpath` (a contiguous frame file, or a
/// sparse directory when the array's storage is not contiguous), with the
/// array's compression parameters. An existing file or directory at
/// `urlpath` is replaced, unless it is the array's own.
///
/// # Safety
/// `array` must be NULL or live; `urlpath` NULL or NUL-terminated.
#[no_mangle]
pub unsafe extern "C" fn b2nd_save(array: *const b2nd_array_t, urlpath: *mut c_char) -> c_int {
    ffi_boundary!(ERR_FAILURE, {
        if array.is_null() || urlpath.is_null() {
            return ERR_NULL_POINTER;
        }
        // SAFETY: NUL-terminated per the contract.
        let Some(path) = (unsafe { c_str(urlpath) }) else {
            return ERR_INVALID_PARAM;
        };
        let path = crate::engine::frame::io::normalize_urlpath(path).to_string();
        let sc = match array_sc(array) {
            Ok(sc) => sc,
            Err(code) => return code,
        };
        let info = with_array(array, false, |a| {
            a.refresh()?;
            let sc = a.schunk();
            let own = sc
                .urlpath()
                .map(|p| crate::engine::frame::io::normalize_urlpath(p).to_string());
            Ok((own, sc.contiguous()))
        });
        let (own, contiguous) = match info {
            Ok(x) => x,
            Err(code) => return code,
        };
        if own.as_deref() == Some(path.as_str()) {
            return ERR_INVALID_PARAM;
        }
        if std::path::Path::new(&path).exists() {
            if let Err(e) = crate::engine::schunk::remove_urlpath(&path) {
                return ecode(e);
            }
        }
        let Ok(cpath) = CString::new(path) else {
            return ERR_INVALID_PARAM;
        };
        let mut storage = blosc2_storage {
            contiguous,
            urlpath: cpath.as_ptr().cast_mut(),
            cparams: ptr::null_mut(),
            dparams: ptr::null_mut(),
            io: ptr::null_mut(),
        };
        // SAFETY: a live super-chunk and a storage pointing to live locals;
        // NULL cparams keep the array's parameters.
        let copy = unsafe { blosc2_schunk_copy(sc, &mut storage) };
        if copy.is_null() {
            return ERR_FAILURE;
        }
        // SAFETY: our own live handle; its frame is on disk already.
        unsafe { blosc2_schunk_free(copy) };
        SUCCESS
    })
}

/// Append the array as a contiguous frame at the end of file `urlpath`
/// (created if missing). Returns the offset of the frame (for
/// `b2nd_open_offset`) or a negative code.
///
/// # Safety
/// `array` must be NULL or live; `urlpath` NULL or NUL-terminated.
#[no_mangle]
pub unsafe extern "C" fn b2nd_save_append(array: *const b2nd_array_t, urlpath: *const c_char) -> i64 {
    ffi_boundary!(i64::from(ERR_FAILURE), {
        match array_sc(array) {
            // SAFETY: live super-chunk; `urlpath` per the contract.
            Ok(sc) => unsafe { blosc2_schunk_append_file(sc, urlpath) },
            Err(code) => i64::from(code),
        }
    })
}

/// Re-read the shape when another handle (possibly another process)
/// changed the array on disk, e.g. with `b2nd_resize`. Only the shape may
/// change (`BLOSC2_ERROR_DATA` otherwise). Returns 1 when the shape was
/// re-read, 0 when it was current, or a negative code.
///
/// # Safety
/// `array` must be NULL or a live array.
#[no_mangle]
pub unsafe extern "C" fn b2nd_refresh(array: *mut b2nd_array_t) -> c_int {
    ffi_boundary!(ERR_FAILURE, {
        match with_array(array, true, |a| a.refresh()) {
            Ok(changed) => c_int::from(changed),
            Err(code) => code,
        }
    })
}

// ---------------------------------------------------------------------------
// Metalayer helpers
// ---------------------------------------------------------------------------

/// Print the array's metalayer (ndim, shape, chunk shape, dtype, block
/// shape) on stdout, as 3.3.5 does.
///
/// # Safety
/// `array` must be NULL or a live array.
#[no_mangle]
pub unsafe extern "C" fn b2nd_print_meta(array: *const b2nd_array_t) -> c_int {
    ffi_boundary!(ERR_FAILURE, {
        let sc = match array_sc(array) {
            Ok(sc) => sc,
            Err(code) => return code,
        };
        let smeta = with_state(sc, |st| {
            st.sc
                .meta_get(NAME)
                .or_else(|_| st.sc.meta_get(crate::engine::b2nd::CATERVA_META_NAME))
                .map_err(|_| ERR_METALAYER_NOT_FOUND)
        });
        let smeta = match smeta {
            Ok(m) => m,
            Err(code) => return code,
        };
        let m = match deserialize_meta(&smeta) {
            Ok((m, _)) => m,
            Err(e) => return ecode(e),
        };
        let list = |v: Vec<String>| if v.is_empty() { "1".to_string() } else { v.join(", ") };
        let mut out = format!(
            "b2nd metalayer parameters:\n Ndim:       {}\n shape:      {}\n chunkshape: {}",
            m.ndim(),
            list(m.shape.iter().map(i64::to_string).collect()),
            list(m.chunkshape.iter().map(i32::to_string).collect()),
        );
        if let Some(d) = &m.dtype {
            out.push_str(&format!("\n dtype: {d}"));
        }
        out.push_str(&format!(
            "\n blockshape: {}\n",
            list(m.blockshape.iter().map(i32::to_string).collect())
        ));
        let Ok(s) = CString::new(out.replace('\0', "")) else {
            return ERR_FAILURE;
        };
        // SAFETY: a "%s" format with one NUL-terminated string argument.
        unsafe { libc::printf(c"%s".as_ptr(), s.as_ptr()) };
        SUCCESS
    })
}

/// Serialize a `b2nd` metalayer into a `malloc`ed `*smeta` (to `free()`).
/// `dtype` NULL records `|u1`. Returns its length or a negative code
/// (`*smeta` NULL).
///
/// # Safety
/// Shapes must be NULL or hold `ndim` entries; `dtype` NULL or
/// NUL-terminated; `smeta` NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn b2nd_serialize_meta(
    ndim: i8,
    shape: *const i64,
    chunkshape: *const i32,
    blockshape: *const i32,
    dtype: *const c_char,
    dtype_format: i8,
    smeta: *mut *mut u8,
) -> c_int {
    ffi_boundary!(ERR_FAILURE, {
        // SAFETY: NULL or writable per the contract.
        unsafe { put(smeta, ptr::null_mut()) };
        if smeta.is_null() {
            return ERR_NULL_POINTER;
        }
        let Some(nd) = usize::try_from(ndim).ok().filter(|n| *n <= MAX_DIM) else {
            return ERR_FAILURE;
        };
        // SAFETY: `nd` entries each per the contract.
        let arrays = unsafe {
            (
                read_array(shape, nd),
                read_array(chunkshape, nd),
                read_array(blockshape, nd),
            )
        };
        let (Ok(s), Ok(c), Ok(b)) = arrays else {
            return ERR_NULL_POINTER;
        };
        let dtype = if dtype.is_null() {
            None
        } else {
            // SAFETY: NUL-terminated per the contract.
            Some(
                unsafe { std::ffi::CStr::from_ptr(dtype) }
                    .to_string_lossy()
                    .into_owned(),
            )
        };
        match serialize_meta(&s, &c, &b, dtype.as_deref(), dtype_format) {
            Ok(v) => {
                let Ok(len) = c_int::try_from(v.len()) else {
                    return ERR_FAILURE;
                };
                let p = malloc_bytes(&v);
                if p.is_null() {
                    return ERR_MEMORY_ALLOC;
                }
                // SAFETY: checked non-NULL and writable.
                unsafe { smeta.write(p) };
                len
            }
            Err(e) => ecode(e),
        }
    })
}

/// Read a `b2nd` metalayer (what the header's inline
/// `b2nd_deserialize_meta_inline` does, for callers that link rather than
/// include it): `ndim`, then `ndim` entries of `shape`, `chunkshape` and
/// `blockshape`; when both `dtype` and `dtype_format` are non-NULL, the
/// dtype (a `malloc`ed string, NULL when the metalayer has none) and its
/// format. Returns the bytes read or a negative code.
///
/// # Safety
/// `smeta` must be NULL or readable for `smeta_len` bytes; the shapes NULL
/// or writable for 16 entries; `ndim`, `dtype`, `dtype_format` NULL or
/// writable.
#[no_mangle]
pub unsafe extern "C" fn b2nd_deserialize_meta(
    smeta: *const u8,
    smeta_len: i32,
    ndim: *mut i8,
    shape: *mut i64,
    chunkshape: *mut i32,
    blockshape: *mut i32,
    dtype: *mut *mut c_char,
    dtype_format: *mut i8,
) -> c_int {
    ffi_boundary!(ERR_FAILURE, {
        if smeta.is_null() || ndim.is_null() || shape.is_null() || chunkshape.is_null() || blockshape.is_null() {
            return ERR_NULL_POINTER;
        }
        // SAFETY: NULL or writable per the contract.
        unsafe {
            put(dtype, ptr::null_mut());
            put(dtype_format, 0);
        }
        if smeta_len <= 0 {
            return ERR_FAILURE;
        }
        // SAFETY: readable for `smeta_len` bytes per the contract.
        let Ok(m) = (unsafe { bytes(smeta.cast(), i64::from(smeta_len)) }) else {
            return ERR_FAILURE;
        };
        let with_dtype = !dtype.is_null() && !dtype_format.is_null();
        let r = if with_dtype {
            deserialize_meta(m)
        } else {
            deserialize_meta_dims(m)
        };
        let (meta, n) = match r {
            Ok(x) => x,
            Err(e) => return ecode(e),
        };
        let nd = meta.ndim();
        // SAFETY: writable for 16 (>= nd) entries per the contract.
        unsafe {
            ndim.write(nd as i8);
            std::slice::from_raw_parts_mut(shape, nd).copy_from_slice(&meta.shape);
            std::slice::from_raw_parts_mut(chunkshape, nd).copy_from_slice(&meta.chunkshape);
            std::slice::from_raw_parts_mut(blockshape, nd).copy_from_slice(&meta.blockshape);
        }
        if with_dtype {
            if let Some(d) = &meta.dtype {
                let p = malloc_cstring(d);
                if p.is_null() {
                    return ERR_MEMORY_ALLOC;
                }
                // SAFETY: checked non-NULL and writable.
                unsafe {
                    dtype.write(p);
                    dtype_format.write(meta.dtype_format);
                }
            }
        }
        c_int::try_from(n).unwrap_or(ERR_FAILURE)
    })
}

/// The body of `b2nd_copy_buffer2`.
///
/// # Safety
/// As `b2nd_copy_buffer2`.
#[allow(clippy::too_many_arguments)]
unsafe fn copy_buffer_ffi(
    ndim: i8,
    itemsize: i32,
    src: *const libc::c_void,
    src_pad_shape: *const i64,
    src_start: *const i64,
    src_stop: *const i64,
    dst: *mut libc::c_void,
    dst_pad_shape: *const i64,
    dst_start: *const i64,
) -> c_int {
    let Some(nd) = usize::try_from(ndim).ok().filter(|n| *n <= MAX_DIM) else {
        return ERR_INVALID_PARAM;
    };
    let Ok(ts) = usize::try_from(itemsize) else {
        return ERR_INVALID_PARAM;
    };
    // SAFETY: `nd` entries each per the contract.
    let shapes = unsafe {
        (
            read_array(src_pad_shape, nd),
            read_array(src_start, nd),
            read_array(src_stop, nd),
            read_array(dst_pad_shape, nd),
            read_array(dst_start, nd),
        )
    };
    let (Ok(sp), Ok(s0), Ok(s1), Ok(dp), Ok(d0)) = shapes else {
        return ERR_NULL_POINTER;
    };
    if (0..nd).any(|i| s1[i] == s0[i]) {
        return SUCCESS;
    }
    let (slen, dlen) = match copy_extents(nd, ts, &sp, &s0, &s1, &dp, &d0) {
        Ok(Some(x)) => x,
        Ok(None) => return SUCCESS,
        Err(e) => return ecode(e),
    };
    if src.is_null() || dst.is_null() {
        return ERR_NULL_POINTER;
    }
    // SAFETY: the caller's buffers cover their padded shapes, hence the
    // extents computed (which stop at the last item copied).
    let (s, d) = unsafe { (bytes(src, slen as i64), bytes_mut(dst, dlen as i64)) };
    let (Ok(s), Ok(d)) = (s, d) else {
        return ERR_INVALID_PARAM;
    };
    if (s.as_ptr() as usize) < (d.as_ptr() as usize + d.len())
        && (d.as_ptr() as usize) < (s.as_ptr() as usize + s.len())
    {
        // Overlapping buffers: copy through a private source.
        let own = s.to_vec();
        return match copy_buffer(nd, ts, &own, &sp, &s0, &s1, d, &dp, &d0) {
            Ok(()) => SUCCESS,
            Err(e) => ecode(e),
        };
    }
    match copy_buffer(nd, ts, s, &sp, &s0, &s1, d, &dp, &d0) {
        Ok(()) => SUCCESS,
        Err(e) => ecode(e),
    }
}

/// Copy the region `[src_start, src_stop)` of `src` (C order, padded to
/// `src_pad_shape` items of `itemsize` bytes) into `dst` (padded to
/// `dst_pad_shape`) at `dst_start`. Regions outside the padded shapes are
/// refused (`BLOSC2_ERROR_INVALID_PARAM`); an empty region copies nothing.
///
/// # Safety
/// The shapes must be NULL or hold `ndim` entries; `src`/`dst` must hold
/// their padded shapes.
#[no_mangle]
pub unsafe extern "C" fn b2nd_copy_buffer2(
    ndim: i8,
    itemsize: i32,
    src: *const libc::c_void,
    src_pad_shape: *const i64,
    src_start: *const i64,
    src_stop: *const i64,
    dst: *mut libc::c_void,
    dst_pad_shape: *const i64,
    dst_start: *const i64,
) -> c_int {
    ffi_boundary!(ERR_FAILURE, {
        // SAFETY: forwarded contract.
        unsafe {
            copy_buffer_ffi(
                ndim,
                itemsize,
                src,
                src_pad_shape,
                src_start,
                src_stop,
                dst,
                dst_pad_shape,
                dst_start,
            )
        }
    })
}

/// `b2nd_copy_buffer2` with a `uint8_t` item size (deprecated in 3.3.5).
///
/// # Safety
/// As `b2nd_copy_buffer2`.
#[no_mangle]
pub unsafe extern "C" fn b2nd_copy_buffer(
    ndim: i8,
    itemsize: u8,
    src: *const libc::c_void,
    src_pad_shape: *const i64,
    src_start: *const i64,
    src_stop: *const i64,
    dst: *mut libc::c_void,
    dst_pad_shape: *const i64,
    dst_start: *const i64,
) -> c_int {
    // SAFETY: forwarded contract.
    unsafe {
        b2nd_copy_buffer2(
            ndim,
            i32::from(itemsize),
            src,
            src_pad_shape,
            src_start,
            src_stop,
            dst,
            dst_pad_shape,
            dst_start,
        )
    }
}

/// The compression and decompression parameters recorded in a
/// super-chunk's storage (what views are made with).
pub(crate) fn storage_params(st: &mut State) -> (blosc2_cparams, Option<blosc2_dparams>) {
    let s = st.public().storage;
    if s.is_null() {
        return (CPARAMS_DEFAULTS, None);
    }
    // SAFETY: our malloc'ed storage, alive with the handle.
    let s = unsafe { &*s };
    let cp = if s.cparams.is_null() {
        CPARAMS_DEFAULTS
    } else {
        // SAFETY: our malloc'ed parameters.
        unsafe { *s.cparams }
    };
    // SAFETY: our malloc'ed parameters (or NULL).
    let dp = (!s.dparams.is_null()).then(|| unsafe { *s.dparams });
    (cp, dp)
}

/// Reject arrays whose super-chunk has a fixed metalayer that is not
/// `b2nd` (what 3.3.5 requires of views).
pub(crate) fn only_b2nd_meta(st: &State) -> Result<(), c_int> {
    if st.sc.metalayers().iter().any(|(n, _)| n != NAME) {
        return Err(ERR_INVALID_PARAM);
    }
    Ok(())
}
