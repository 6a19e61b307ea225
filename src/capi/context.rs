//! Compression and decompression contexts: `blosc2_create_cctx`,
//! `blosc2_create_dctx`, the `*_ctx` functions and the parameter getters.
//!
//! A `blosc2_context*` is a boxed [`blosc2_context`]. Everything the C side
//! can read (the parameter mirrors, the pre/postfilter params) is immutable
//! after creation; the engine context sits behind a lock, so a callback
//! that re-enters the API with its own context gets an error, not UB.

use std::cell::UnsafeCell;
use std::ffi::{c_int, c_void};
use std::sync::atomic::{AtomicI32, AtomicU64, Ordering};

use crate::engine::constants::{EXTENDED_HEADER_LENGTH, MAX_BUFFERSIZE, MIN_HEADER_LENGTH};
use crate::engine::context::{Context, Mode};
use crate::engine::threads::forks;

use super::boundary::{
    bytes, bytes_mut, code_of, ffi_boundary, put, to_code, ERR_FAILURE, ERR_INVALID_PARAM, ERR_MAX_BUFSIZE_EXCEEDED,
    ERR_MEMORY_ALLOC, ERR_NULL_POINTER, ERR_READ_BUFFER, ERR_WRITE_BUFFER, SUCCESS,
};
use super::convert::{cctx_setup, dctx_setup, postfilter_hook, prefilter_hook};
use super::defaults::{CPARAMS_DEFAULTS, DPARAMS_DEFAULTS};
use super::types::{
    blosc2_context, blosc2_cparams, blosc2_dparams, blosc2_postfilter_params, blosc2_prefilter_params, blosc2_tuner,
    CONTEXT_MAGIC,
};

/// Exclusive use of a context's engine; releases it when dropped.
pub(crate) struct EngineGuard<'a> {
    ctx: &'a blosc2_context,
}

impl std::ops::Deref for EngineGuard<'_> {
    type Target = Context;
    fn deref(&self) -> &Context {
        // SAFETY: this guard's thread holds `owner`, so no other reference
        // to the engine exists (see `blosc2_context::engine`).
        unsafe { &*self.ctx.engine.get() }
    }
}

impl std::ops::DerefMut for EngineGuard<'_> {
    fn deref_mut(&mut self) -> &mut Context {
        // SAFETY: as in `deref`; `&mut self` makes this the only borrow
        // through the guard.
        unsafe { &mut *self.ctx.engine.get() }
    }
}

impl Drop for EngineGuard<'_> {
    fn drop(&mut self) {
        self.ctx.owner.store(0, Ordering::Release);
    }
}

impl blosc2_context {
    /// The engine, or `ERR_FAILURE` when this thread is already inside it
    /// (a pre/postfilter calling back with its own context). Another thread
    /// using the context (undefined behaviour in C) is waited for, unless
    /// it is a thread of the process this one was forked from, which the
    /// fork caught inside: it is not here to let go, and the engine holds
    /// whatever its call had half done, so that is `ERR_FAILURE` too.
    pub(crate) fn engine(&self) -> Result<EngineGuard<'_>, c_int> {
        let me = forks::token();
        let mut tries = 0u32;
        loop {
            match self.owner.compare_exchange(0, me, Ordering::Acquire, Ordering::Relaxed) {
                Ok(_) => {
                    let mut guard = EngineGuard { ctx: self };
                    self.refresh_plugin_env(&mut guard);
                    return Ok(guard);
                }
                Err(holder) if forks::same_thread(holder, me) || !forks::of_this_process(holder, me) => {
                    return Err(ERR_FAILURE)
                }
                Err(_) if tries < 64 => {
                    tries += 1;
                    std::thread::yield_now();
                }
                Err(_) => std::thread::sleep(std::time::Duration::from_micros(50)),
            }
        }
    }

    /// Compression or decompression.
    pub(crate) fn mode(&self) -> Mode {
        self.mode
    }

    /// The super-chunk the params name (`cparams.schunk` or
    /// `dparams.schunk`): plugins learn about it on every call, as 3.3.5's
    /// read it through the pointer when they run.
    fn refresh_plugin_env(&self, engine: &mut Context) {
        let schunk = match self.mode {
            Mode::Compress => self.cparams.schunk,
            Mode::Decompress => self.dparams.schunk,
        };
        if schunk.is_null() {
            return;
        }
        let env = super::plugin_calls::env_for(schunk);
        match self.mode {
            Mode::Compress => engine.cparams.plugins = env,
            Mode::Decompress => engine.dparams.plugins = env,
        }
    }

    /// The super-chunk of the context's params (`dparams.schunk`), which
    /// completes lazy chunks.
    pub(crate) fn schunk(&self) -> *mut c_void {
        self.dparams.schunk
    }
}

impl Drop for blosc2_context {
    fn drop(&mut self) {
        self.magic = 0;
        if !self.preparams.is_null() {
            // SAFETY: created by Box::into_raw in `create_cctx`, freed once.
            drop(unsafe { Box::from_raw(self.preparams) });
        }
        if !self.postparams.is_null() {
            // SAFETY: created by Box::into_raw in `create_dctx`, freed once.
            drop(unsafe { Box::from_raw(self.postparams) });
        }
    }
}

/// Borrow a context handle; `None` for NULL or a pointer that is not one
/// of ours.
///
/// # Safety
/// `ctx` must be NULL or a pointer returned by `blosc2_create_cctx`/`dctx`
/// and not yet freed.
pub(crate) unsafe fn ctx_ref<'a>(ctx: *mut blosc2_context) -> Option<&'a blosc2_context> {
    if ctx.is_null() {
        return None;
    }
    // SAFETY: a live handle per the caller's contract.
    let c = unsafe { &*ctx };
    (c.magic == CONTEXT_MAGIC).then_some(c)
}

/// The live context at `ctx` set up for `mode`: `BLOSC2_ERROR_NULL_POINTER`
/// for NULL or a pointer that is not a context, `BLOSC2_ERROR_INVALID_PARAM`
/// for a context of the other mode.
///
/// # Safety
/// As [`ctx_ref`].
pub(crate) unsafe fn ctx_in_mode<'a>(ctx: *mut blosc2_context, mode: Mode) -> Result<&'a blosc2_context, c_int> {
    // SAFETY: forwarded contract.
    let c = unsafe { ctx_ref(ctx) }.ok_or(ERR_NULL_POINTER)?;
    if c.mode() != mode {
        return Err(ERR_INVALID_PARAM);
    }
    Ok(c)
}

/// Copy `get(ctx)` into `*out`, or `empty` when `ctx` is NULL or not a
/// context (the shared body of `blosc2_ctx_get_cparams`/`_dparams`).
///
/// # Safety
/// `ctx` must be NULL or a live context; `out` NULL or writable.
unsafe fn copy_params<T>(
    ctx: *mut blosc2_context,
    out: *mut T,
    empty: T,
    get: impl FnOnce(&blosc2_context) -> T,
) -> c_int {
    ffi_boundary!(ERR_FAILURE, {
        // SAFETY: NULL or a live handle per the contract.
        let Some(c) = (unsafe { ctx_ref(ctx) }) else {
            // SAFETY: NULL or writable per the contract.
            unsafe { put(out, empty) };
            return ERR_NULL_POINTER;
        };
        if out.is_null() {
            return ERR_NULL_POINTER;
        }
        // SAFETY: non-NULL and writable per the contract.
        unsafe { put(out, get(c)) };
        SUCCESS
    })
}

/// Create a context for compression with `cparams` (environment variables
/// `BLOSC_CLEVEL`, `BLOSC_SHUFFLE`, `BLOSC_DELTA`, `BLOSC_TYPESIZE`,
/// `BLOSC_COMPRESSOR`, `BLOSC_BLOCKSIZE`, `BLOSC_NTHREADS` and
/// `BLOSC_SPLITMODE` override it). Returns NULL for undefined filters, an
/// unknown tuner or codec override. Release it with `blosc2_free_ctx`.
///
/// # Safety
/// When `cparams.prefilter` is set, `cparams.preparams` must be NULL or
/// point to a valid `blosc2_prefilter_params` (it is copied).
#[no_mangle]
pub unsafe extern "C" fn blosc2_create_cctx(cparams: blosc2_cparams) -> *mut blosc2_context {
    ffi_boundary!(std::ptr::null_mut(), {
        let Some(setup) = cctx_setup(&cparams) else {
            return std::ptr::null_mut();
        };
        let preparams = if cparams.prefilter.is_some() {
            let copy = if cparams.preparams.is_null() {
                zeroed_preparams()
            } else {
                // SAFETY: non-NULL preparams are readable per the contract.
                unsafe { cparams.preparams.read() }
            };
            Box::into_raw(Box::new(copy))
        } else {
            std::ptr::null_mut()
        };
        let mut mirror = setup.mirror;
        mirror.preparams = preparams;
        let dmirror = blosc2_dparams {
            nthreads: setup.nthreads,
            schunk: mirror.schunk,
            ..DPARAMS_DEFAULTS
        };
        let handle = Box::new(blosc2_context {
            magic: CONTEXT_MAGIC,
            mode: Mode::Compress,
            cparams: mirror,
            dparams: blosc2_dparams {
                postfilter: None,
                postparams: std::ptr::null_mut(),
                typesize: 0,
                ..dmirror
            },
            preparams,
            postparams: std::ptr::null_mut(),
            tuner: None,
            engine: UnsafeCell::new(Context::compressor(setup.engine)),
            owner: AtomicU64::new(0),
            used_blocksize: AtomicI32::new(0),
        });
        let raw = Box::into_raw(handle);
        // SAFETY: `raw` was just created and is not shared yet.
        let h = unsafe { &mut *raw };
        let hook = prefilter_hook(cparams.prefilter, preparams, raw, cparams.schunk);
        // SAFETY: a non-NULL `preparams` is the context's own copy.
        let disposable = !preparams.is_null() && unsafe { (*preparams).output_is_disposable };
        let engine_cparams = &mut h.engine.get_mut().cparams;
        engine_cparams.prefilter = hook;
        engine_cparams.prefilter_output_disposable = disposable;
        if cparams.tuner_id > 0 {
            // (cctx_setup checked that the tuner exists.)
            h.tuner = super::plugins::tuner_callbacks(cparams.tuner_id);
            if let Some(init) = h.tuner.and_then(|t| t.init) {
                // SAFETY: the tuner's callback, with the context it tunes.
                if unsafe { init(cparams.tuner_params, raw, std::ptr::null_mut()) } < 0 {
                    super::plugins::trace_tuner_error(cparams.tuner_id, "init");
                    h.tuner = None;
                    // SAFETY: ours, not handed out yet.
                    drop(unsafe { Box::from_raw(raw) });
                    return std::ptr::null_mut();
                }
            }
        }
        raw
    })
}

/// Create a context for decompression with `dparams` (`BLOSC_NTHREADS`
/// overrides the thread count). Release it with `blosc2_free_ctx`.
///
/// # Safety
/// When `dparams.postfilter` is set, `dparams.postparams` must be NULL or
/// point to a valid `blosc2_postfilter_params` (it is copied).
#[no_mangle]
pub unsafe extern "C" fn blosc2_create_dctx(dparams: blosc2_dparams) -> *mut blosc2_context {
    ffi_boundary!(std::ptr::null_mut(), {
        let setup = dctx_setup(&dparams);
        let postparams = if dparams.postfilter.is_some() {
            let copy = if dparams.postparams.is_null() {
                zeroed_postparams()
            } else {
                // SAFETY: non-NULL postparams are readable per the contract.
                unsafe { dparams.postparams.read() }
            };
            Box::into_raw(Box::new(copy))
        } else {
            std::ptr::null_mut()
        };
        let mut mirror = setup.mirror;
        mirror.postparams = postparams;
        let cmirror = blosc2_cparams {
            compcode: 0,
            clevel: 0,
            typesize: 0,
            nthreads: setup.nthreads,
            splitmode: 0,
            schunk: mirror.schunk,
            filters: [0; 6],
            ..CPARAMS_DEFAULTS
        };
        let handle = Box::new(blosc2_context {
            magic: CONTEXT_MAGIC,
            mode: Mode::Decompress,
            cparams: cmirror,
            dparams: mirror,
            preparams: std::ptr::null_mut(),
            tuner: None,
            postparams,
            engine: UnsafeCell::new(Context::decompressor(setup.engine)),
            owner: AtomicU64::new(0),
            used_blocksize: AtomicI32::new(0),
        });
        let raw = Box::into_raw(handle);
        // SAFETY: `raw` was just created and is not shared yet.
        let h = unsafe { &mut *raw };
        let hook = postfilter_hook(dparams.postfilter, postparams, raw, dparams.schunk);
        h.engine.get_mut().dparams.postfilter = hook;
        raw
    })
}

fn zeroed_preparams() -> blosc2_prefilter_params {
    blosc2_prefilter_params {
        user_data: std::ptr::null_mut(),
        input: std::ptr::null(),
        output: std::ptr::null_mut(),
        output_size: 0,
        output_typesize: 0,
        output_offset: 0,
        nchunk: -1,
        nblock: 0,
        tid: 0,
        ttmp: std::ptr::null_mut(),
        ttmp_nbytes: 0,
        ctx: std::ptr::null_mut(),
        output_is_disposable: false,
    }
}

fn zeroed_postparams() -> blosc2_postfilter_params {
    blosc2_postfilter_params {
        user_data: std::ptr::null_mut(),
        input: std::ptr::null(),
        output: std::ptr::null_mut(),
        size: 0,
        typesize: 0,
        offset: 0,
        nchunk: -1,
        nblock: 0,
        tid: 0,
        ttmp: std::ptr::null_mut(),
        ttmp_nbytes: 0,
        ctx: std::ptr::null_mut(),
    }
}

/// Release a context (NULL is ignored).
///
/// # Safety
/// `context` must be NULL or a live context from `blosc2_create_cctx`/`dctx`,
/// not used afterwards.
#[no_mangle]
pub unsafe extern "C" fn blosc2_free_ctx(context: *mut blosc2_context) {
    ffi_boundary!((), {
        // SAFETY: NULL or a live handle per the contract.
        if let Some(c) = unsafe { ctx_ref(context) } {
            if let (Some(free), false) = (c.tuner.and_then(|t| t.free), c.cparams.tuner_params.is_null()) {
                // SAFETY: the tuner's callback, on the live context.
                unsafe { free(context) };
            }
            // SAFETY: the handle came from Box::into_raw and is freed once.
            drop(unsafe { Box::from_raw(context) });
        }
    })
}

/// Copy the compression parameters of `ctx` into `*cparams` (zeroed when
/// `ctx` is NULL).
///
/// # Safety
/// `ctx` must be NULL or a live context; `cparams` NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn blosc2_ctx_get_cparams(ctx: *mut blosc2_context, cparams: *mut blosc2_cparams) -> c_int {
    let empty = blosc2_cparams {
        clevel: 0,
        typesize: 0,
        nthreads: 0,
        splitmode: 0,
        filters: [0; 6],
        ..CPARAMS_DEFAULTS
    };
    // SAFETY: forwarded contract.
    unsafe {
        copy_params(ctx, cparams, empty, |c| {
            let used = c.used_blocksize.load(Ordering::Relaxed);
            blosc2_cparams {
                blocksize: if used > 0 { used } else { c.cparams.blocksize },
                ..c.cparams
            }
        })
    }
}

/// Copy the decompression parameters of `ctx` into `*dparams` (zeroed when
/// `ctx` is NULL).
///
/// # Safety
/// `ctx` must be NULL or a live context; `dparams` NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn blosc2_ctx_get_dparams(ctx: *mut blosc2_context, dparams: *mut blosc2_dparams) -> c_int {
    let empty = blosc2_dparams {
        nthreads: 0,
        typesize: 0,
        ..DPARAMS_DEFAULTS
    };
    // SAFETY: forwarded contract.
    unsafe { copy_params(ctx, dparams, empty, |c| c.dparams) }
}

/// Skip the blocks whose `maskout` entry is true in the next decompression
/// with `ctx` (`nblocks` must equal the chunk's number of blocks).
///
/// # Safety
/// `ctx` must be NULL or a live context; `maskout` NULL or `nblocks` bools.
#[no_mangle]
pub unsafe extern "C" fn blosc2_set_maskout(ctx: *mut blosc2_context, maskout: *mut bool, nblocks: c_int) -> c_int {
    ffi_boundary!(ERR_FAILURE, {
        // SAFETY: NULL or a live handle per the contract.
        let Some(c) = (unsafe { ctx_ref(ctx) }) else {
            return ERR_NULL_POINTER;
        };
        if nblocks < 0 {
            return ERR_MEMORY_ALLOC;
        }
        // SAFETY: `nblocks` readable bools per the contract (bool is 1 byte).
        let raw = match unsafe { bytes(maskout as *const c_void, i64::from(nblocks)) } {
            Ok(b) => b,
            Err(e) => return e.code(),
        };
        let mask: Vec<bool> = raw.iter().map(|&b| b != 0).collect();
        match c.engine() {
            Ok(mut e) => {
                e.set_maskout(mask);
                SUCCESS
            }
            Err(code) => code,
        }
    })
}

/// Compress `srcsize` bytes at `src` into `dest` with a compression
/// context. Returns the compressed size, 0 when it does not fit in
/// `destsize`, or a negative error code.
///
/// # Safety
/// `context` must be NULL or a live context; `src` readable for `srcsize`
/// bytes and `dest` writable for `destsize` bytes (or NULL).
#[no_mangle]
pub unsafe extern "C" fn blosc2_compress_ctx(
    context: *mut blosc2_context,
    src: *const c_void,
    srcsize: i32,
    dest: *mut c_void,
    destsize: i32,
) -> c_int {
    ffi_boundary!(ERR_FAILURE, {
        // SAFETY: NULL or a live handle per the contract.
        let c = match unsafe { ctx_in_mode(context, Mode::Compress) } {
            Ok(c) => c,
            Err(code) => return code,
        };
        // SAFETY: buffers per the contract.
        let (s, d) = match unsafe { compress_buffers(src, srcsize, dest, destsize) } {
            Ok(b) => b,
            Err(code) => return code,
        };
        let r = match c.tuner {
            None => match c.engine() {
                Ok(mut e) => to_code(e.compress(s, d)),
                Err(code) => code,
            },
            // SAFETY: the tuner's callbacks on the live context, which they
            // may query (the engine is not held while they run).
            Some(tuner) => unsafe { compress_tuned(c, context, &tuner, s, d) },
        };
        if r > 0 {
            // 3.3.5 reports the block size of the last chunk (its
            // header's) in blosc2_ctx_get_cparams.
            if let Some(bs) = d.get(8..12) {
                c.used_blocksize
                    .store(i32::from_le_bytes([bs[0], bs[1], bs[2], bs[3]]), Ordering::Relaxed);
            }
        }
        r
    })
}

/// A compression driven by a tuner: `next_cparams` (with tuner params)
/// or `next_blocksize` before, `update` with the time taken after, as
/// 3.3.5 does; a callback failing gives `BLOSC2_ERROR_TUNER`.
///
/// # Safety
/// `raw` is the live context `c`; the callbacks are the tuner's.
unsafe fn compress_tuned(
    c: &blosc2_context,
    raw: *mut blosc2_context,
    tuner: &blosc2_tuner,
    s: &[u8],
    d: &mut [u8],
) -> c_int {
    const ERR_TUNER: c_int = -36;
    let with_params = !c.cparams.tuner_params.is_null();
    let next = if with_params {
        tuner.next_cparams
    } else {
        tuner.next_blocksize
    };
    // SAFETY: per the contract.
    if next.is_some_and(|f| unsafe { f(raw) } < 0) {
        super::plugins::trace_tuner_error(c.cparams.tuner_id, "next_cparams/next_blocksize");
        return ERR_TUNER;
    }
    let t0 = std::time::Instant::now();
    let n = match c.engine() {
        Ok(mut e) => to_code(e.compress(s, d)),
        Err(code) => return code,
    };
    if n >= 0 && with_params {
        let ctime = t0.elapsed().as_secs_f64();
        // SAFETY: per the contract.
        if tuner.update.is_some_and(|f| unsafe { f(raw, ctime) } < 0) {
            super::plugins::trace_tuner_error(c.cparams.tuner_id, "update");
            return ERR_TUNER;
        }
    }
    n
}

/// The source and destination slices of a compression, with the codes
/// 3.3.5 gives for sizes out of range before touching the buffers.
///
/// # Safety
/// As for `blosc2_compress_ctx`.
pub(crate) unsafe fn compress_buffers<'a>(
    src: *const c_void,
    srcsize: i32,
    dest: *mut c_void,
    destsize: i32,
) -> Result<(&'a [u8], &'a mut [u8]), c_int> {
    if srcsize > MAX_BUFFERSIZE || destsize < EXTENDED_HEADER_LENGTH as i32 {
        return Err(ERR_MAX_BUFSIZE_EXCEEDED);
    }
    // SAFETY: readable for `srcsize` bytes per the caller's contract.
    let s = unsafe { bytes(src, i64::from(srcsize)) }.map_err(|e| e.code())?;
    // SAFETY: writable for `destsize` bytes per the caller's contract.
    let d = unsafe { bytes_mut(dest, i64::from(destsize)) }.map_err(|e| e.code())?;
    if !s.is_empty() && s.as_ptr_range().start < d.as_ptr_range().end && d.as_ptr_range().start < s.as_ptr_range().end {
        return Err(ERR_INVALID_PARAM);
    }
    Ok((s, d))
}

/// The chunk and destination slices of a decompression.
///
/// # Safety
/// `src` readable for `srcsize` bytes, `dest` writable for `destsize`.
pub(crate) unsafe fn decompress_buffers<'a>(
    src: *const c_void,
    srcsize: i32,
    dest: *mut c_void,
    destsize: i32,
) -> Result<(&'a [u8], &'a mut [u8]), c_int> {
    if srcsize < MIN_HEADER_LENGTH as i32 {
        return Err(ERR_READ_BUFFER);
    }
    // SAFETY: readable for `srcsize` bytes per the caller's contract.
    let s = unsafe { bytes(src, i64::from(srcsize)) }.map_err(|e| e.code())?;
    if destsize < 0 {
        crate::engine::chunk::read_header(s).map_err(|e| code_of(&e))?;
        return Err(ERR_WRITE_BUFFER);
    }
    // SAFETY: writable for `destsize` bytes per the caller's contract.
    let d = unsafe { bytes_mut(dest, i64::from(destsize)) }.map_err(|e| e.code())?;
    if !d.is_empty() && s.as_ptr_range().start < d.as_ptr_range().end && d.as_ptr_range().start < s.as_ptr_range().end {
        return Err(ERR_INVALID_PARAM);
    }
    Ok((s, d))
}

/// Decompress `src` into `dest` with the engine of `c` (no lazy chunk
/// completion: that is `blosc2_decompress_ctx`'s job). A mask set with
/// `blosc2_set_maskout` applies to this call only.
///
/// # Safety
/// `src` readable for `srcsize` bytes and `dest` writable for `destsize`
/// bytes (or NULL).
pub(crate) unsafe fn decompress_with(
    c: &blosc2_context,
    src: *const c_void,
    srcsize: i32,
    dest: *mut c_void,
    destsize: i32,
) -> c_int {
    let mut e = match c.engine() {
        Ok(e) => e,
        Err(code) => return code,
    };
    // SAFETY: buffers per the contract.
    let r = match unsafe { decompress_buffers(src, srcsize, dest, destsize) } {
        Ok((s, d)) => to_code(e.decompress(s, d)),
        Err(code) => code,
    };
    if r < 0 {
        // The mask is for one call, successful or not.
        e.set_maskout(Vec::new());
        let _ = e.decompress(&[], &mut []);
    }
    r
}

/// What a getitem call reads: `(start, count)`.
#[derive(Clone, Copy)]
pub(crate) enum Range {
    /// Counted in items of the chunk's typesize.
    Items(i64, i64),
    /// Counted in bytes (multiples of the typesize).
    Bytes(i64, i64),
}

/// Shared body of the getitem entry points.
///
/// # Safety
/// `src` readable for `srcsize` bytes, `dest` writable for `destsize`.
pub(crate) unsafe fn getitem_with(
    engine: &mut Context,
    src: *const c_void,
    srcsize: i32,
    range: Range,
    dest: *mut c_void,
    destsize: i32,
) -> c_int {
    if srcsize < MIN_HEADER_LENGTH as i32 {
        return ERR_READ_BUFFER;
    }
    // SAFETY: readable for `srcsize` bytes per the caller's contract.
    let s = match unsafe { bytes(src, i64::from(srcsize)) } {
        Ok(s) => s,
        Err(e) => return e.code(),
    };
    // SAFETY: writable for `destsize` bytes per the caller's contract.
    let d = match unsafe { bytes_mut(dest, i64::from(destsize.max(0))) } {
        Ok(d) => d,
        Err(e) => return e.code(),
    };
    match range {
        Range::Items(start, n) => to_code(engine.getitem(s, start, n, d)),
        Range::Bytes(start, n) => to_code(engine.getitem_bytes(s, start, n, d)),
    }
}
