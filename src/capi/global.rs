//! The global (non-context) API: library lifecycle, global parameters,
//! `blosc2_compress`/`decompress`/`getitem` and the `blosc1_*` functions.
//!
//! Global parameters live behind one mutex, which the global compression
//! functions hold while they run (unless `BLOSC_NOLOCK` is set), as in
//! C-Blosc2. `blosc2_init` is optional and idempotent.

use std::ffi::{c_char, c_int, c_void, CStr};
use std::sync::Arc;

use crate::engine::codecs;
use crate::engine::constants::codec;
use crate::engine::context::Context;
use crate::engine::params::{CParams, DParams, HeaderFormat};
use crate::engine::threads::{set_job_runner, JobRunner};

use super::boundary::{
    blosc1_chunk_len, bytes, bytes_mut, c_str, code_of, ffi_boundary, to_code, ERR_CODEC_SUPPORT, ERR_FAILURE,
    ERR_INVALID_PARAM, ERR_MAX_BUFSIZE_EXCEEDED, ERR_NULL_POINTER, SUCCESS,
};
use super::context::{
    blosc2_compress_ctx, blosc2_create_cctx, blosc2_create_dctx, blosc2_free_ctx, compress_buffers, decompress_buffers,
    getitem_with, Range,
};
use super::context_read::{blosc2_decompress_ctx, lazy_item_range, with_whole_chunk};
use super::convert::{build_filters, clevel_u8};
use super::defaults::{CPARAMS_DEFAULTS, DPARAMS_DEFAULTS};
use super::env;
use super::global_state::{global_contexts, globals, globals_as_they_are, Globals};
use super::types::blosc_threads_callback;

/// Initialise the library. Optional: every function works without it.
/// Calling it again does nothing.
#[no_mangle]
pub extern "C" fn blosc2_init() {
    ffi_boundary!((), {
        super::plugin_load::install();
        drop(globals());
    })
}

/// Release the library's global resources. Global parameters set with
/// `blosc1_set_compressor` and friends keep their values.
#[no_mangle]
pub extern "C" fn blosc2_destroy() {
    ffi_boundary!((), {
        if let Some(mut g) = globals_as_they_are() {
            g.initialized = false;
        }
        if let Some(mut ctxs) = global_contexts() {
            ctxs.cctx = None;
            ctxs.dctx = None;
        }
    })
}

/// Release the thread pools of the global API. Returns 0, or -1 when the
/// library is not initialised.
#[no_mangle]
pub extern "C" fn blosc2_free_resources() -> c_int {
    ffi_boundary!(ERR_FAILURE, {
        if !super::global_state::is_initialized() {
            return ERR_FAILURE;
        }
        let Some(mut ctxs) = global_contexts() else {
            return ERR_FAILURE;
        };
        ctxs.cctx = None;
        ctxs.dctx = None;
        SUCCESS
    })
}

/// Number of threads used by the global API.
#[no_mangle]
pub extern "C" fn blosc2_get_nthreads() -> i16 {
    ffi_boundary!(1, { super::global_state::nthreads() })
}

fn set_nthreads_locked(g: &mut Globals, nthreads: i16) -> i16 {
    let old = g.nthreads;
    if nthreads != old {
        if nthreads <= 0 {
            return ERR_INVALID_PARAM as i16;
        }
        g.nthreads = nthreads;
    }
    old
}

/// Set the number of threads of the global API. Returns the previous
/// number, or a negative code when `nthreads` <= 0.
#[no_mangle]
pub extern "C" fn blosc2_set_nthreads(nthreads: i16) -> i16 {
    ffi_boundary!(ERR_FAILURE as i16, {
        globals().map_or(ERR_FAILURE as i16, |mut g| set_nthreads_locked(&mut g, nthreads))
    })
}

/// Static C name of a built-in codec id.
pub(crate) fn static_compname(code: i32) -> Option<&'static CStr> {
    Some(match u8::try_from(code).ok()? {
        codec::BLOSCLZ => c"blosclz",
        codec::LZ4 => c"lz4",
        codec::LZ4HC => c"lz4hc",
        codec::ZLIB => c"zlib",
        codec::ZSTD => c"zstd",
        _ => return None,
    })
}

/// Name of the codec used by the global API (NULL when an unknown name
/// was set).
#[no_mangle]
pub extern "C" fn blosc1_get_compressor() -> *const c_char {
    ffi_boundary!(std::ptr::null(), {
        globals()
            .and_then(|g| static_compname(g.compressor))
            .map_or(std::ptr::null(), CStr::as_ptr)
    })
}

fn set_compressor_locked(g: &mut Globals, name: &str) -> c_int {
    // Plugin codec names are known too (and refused, as in 3.3.5).
    let code = codecs::compcode(name)
        .or_else(|| crate::engine::plugins::registry::codec_id(name))
        .map_or(-1, i32::from);
    if code >= i32::from(codec::LAST) {
        return ERR_CODEC_SUPPORT;
    }
    g.compressor = code;
    code
}

/// Select the codec of the global API by name. Returns its code, or -1
/// for an unknown name (which, as in C-Blosc2, is stored anyway).
///
/// # Safety
/// `compname` must be NULL or a NUL-terminated string.
#[no_mangle]
pub unsafe extern "C" fn blosc1_set_compressor(compname: *const c_char) -> c_int {
    ffi_boundary!(ERR_FAILURE, {
        if compname.is_null() {
            return ERR_NULL_POINTER;
        }
        // SAFETY: non-NULL and NUL-terminated per the contract.
        let name = unsafe { c_str(compname) }.unwrap_or("");
        globals().map_or(ERR_FAILURE, |mut g| set_compressor_locked(&mut g, name))
    })
}

/// Enable (non-zero) or disable the DELTA filter in the global API.
#[no_mangle]
pub extern "C" fn blosc2_set_delta(dodelta: c_int) {
    ffi_boundary!((), {
        if let Some(mut g) = globals() {
            g.delta = dodelta != 0;
        }
    })
}

/// Block size forced on the global API (0 = automatic).
#[no_mangle]
pub extern "C" fn blosc1_get_blocksize() -> c_int {
    ffi_boundary!(0, { globals().map_or(0, |g| g.blocksize) })
}

/// Force a block size in the global API (0 = automatic).
#[no_mangle]
pub extern "C" fn blosc1_set_blocksize(blocksize: usize) {
    ffi_boundary!((), {
        if let Some(mut g) = globals() {
            g.blocksize = blocksize as i32;
        }
    })
}

/// Set the split mode of the global API.
#[no_mangle]
pub extern "C" fn blosc1_set_splitmode(splitmode: c_int) {
    ffi_boundary!((), {
        if let Some(mut g) = globals() {
            g.splitmode = splitmode;
        }
    })
}

/// One job handed to a threads callback: worker `index` of a parallel
/// run. An array of these is the callback's `jobdata`.
struct CallbackJob<'a> {
    job: &'a (dyn Fn(usize) + Sync),
    index: usize,
}

/// The `dojob` given to a threads callback.
///
/// # Safety
/// `arg` must point to a live [`CallbackJob`] (an element of the `jobdata`
/// array, valid until the callback returns).
unsafe extern "C" fn run_callback_job(arg: *mut c_void) {
    if arg.is_null() {
        return;
    }
    // SAFETY: an element of the jobdata array per the contract.
    let slot = unsafe { &*arg.cast::<CallbackJob<'_>>() };
    (slot.job)(slot.index);
}

/// Use `callback` instead of the library's worker threads for every
/// parallel run (compression, decompression, super-chunk and b2nd reads
/// with several threads): it is called with `numjobs` jobs, one per
/// worker, and must run `dojob` on each element of `jobdata` before
/// returning. NULL goes back to the worker threads.
///
/// # Safety
/// `callback` must be NULL or a valid function honouring that contract,
/// callable from any thread with `callback_data`.
#[no_mangle]
pub unsafe extern "C" fn blosc2_set_threads_callback(callback: blosc_threads_callback, callback_data: *mut c_void) {
    ffi_boundary!((), {
        if let Some(mut g) = globals_as_they_are() {
            g.threads_callback = callback;
            g.threads_callback_data = callback_data as usize;
        }
        let data = callback_data as usize;
        let runner = callback.map(|cb| -> Arc<JobRunner> {
            Arc::new(move |n: usize, job: &(dyn Fn(usize) + Sync)| {
                let jobs: Vec<CallbackJob<'_>> = (0..n).map(|index| CallbackJob { job, index }).collect();
                let numjobs = c_int::try_from(n).unwrap_or(c_int::MAX);
                // SAFETY: the caller's callback per the contract; `jobs`
                // outlives the call, which runs every job before returning.
                unsafe {
                    cb(
                        data as *mut c_void,
                        Some(run_callback_job),
                        numjobs,
                        std::mem::size_of::<CallbackJob<'_>>(),
                        jobs.as_ptr().cast_mut().cast(),
                    )
                };
            })
        });
        set_job_runner(runner);
    })
}

/// Apply the environment overrides of `blosc2_compress` to the global
/// state; returns the (possibly overridden) clevel, doshuffle, typesize.
fn compress_env(g: &mut Globals, clevel: c_int, doshuffle: c_int, typesize: i32) -> (i64, i32, i32) {
    let clevel = env::clevel().unwrap_or(i64::from(clevel));
    let doshuffle = env::shuffle().unwrap_or(doshuffle);
    if let Some(d) = env::delta() {
        g.delta = d;
    }
    let typesize = env::typesize().map_or(typesize, |v| v as i32);
    if let Some(name) = env::compressor() {
        let _ = set_compressor_locked(g, &name);
    }
    if let Some(bs) = env::blocksize() {
        g.blocksize = bs as i32;
    }
    if let Some(n) = env::nthreads() {
        if n > 0 {
            let _ = set_nthreads_locked(g, n as i16);
        }
    }
    if let Some(sm) = env::splitmode() {
        g.splitmode = sm;
    }
    (clevel, doshuffle, typesize)
}

/// Compress `srcsize` bytes at `src` into `dest` with the global
/// parameters. Returns the compressed size, 0 when it does not fit, or a
/// negative code. Honours `BLOSC_CLEVEL`, `BLOSC_SHUFFLE`, `BLOSC_DELTA`,
/// `BLOSC_TYPESIZE`, `BLOSC_COMPRESSOR`, `BLOSC_BLOCKSIZE`,
/// `BLOSC_NTHREADS`, `BLOSC_SPLITMODE`, `BLOSC_NOLOCK` and
/// `BLOSC_BLOSC1_COMPAT`.
///
/// # Safety
/// `src` must be readable for `srcsize` bytes and `dest` writable for
/// `destsize` bytes (either may be NULL with a zero size).
#[no_mangle]
pub unsafe extern "C" fn blosc2_compress(
    clevel: c_int,
    doshuffle: c_int,
    typesize: i32,
    src: *const c_void,
    srcsize: i32,
    dest: *mut c_void,
    destsize: i32,
) -> c_int {
    ffi_boundary!(ERR_FAILURE, {
        let Some(mut g) = globals() else {
            return ERR_FAILURE;
        };
        let (clevel, doshuffle, typesize) = compress_env(&mut g, clevel, doshuffle, typesize);
        // The settings are let go of before compressing: the contexts
        // below are what one compression at a time holds.
        let settings: Globals = *g;
        drop(g);
        let g = settings;
        if env::nolock() {
            let mut cp = CPARAMS_DEFAULTS;
            build_filters(doshuffle, g.delta, typesize, &mut cp.filters);
            cp.typesize = i32::from(typesize as u8);
            cp.compcode = g.compressor as u8;
            cp.clevel = clevel as u8;
            cp.nthreads = g.nthreads;
            cp.splitmode = g.splitmode;
            // SAFETY: plain parameters, no prefilter.
            let cctx = unsafe { blosc2_create_cctx(cp) };
            if cctx.is_null() {
                return ERR_NULL_POINTER;
            }
            // SAFETY: live context; buffers per the contract.
            let rc = unsafe { blosc2_compress_ctx(cctx, src, srcsize, dest, destsize) };
            // SAFETY: the context is ours and freed once.
            unsafe { blosc2_free_ctx(cctx) };
            return rc;
        }
        let mut filters = [0u8; 6];
        build_filters(doshuffle, g.delta, typesize, &mut filters);
        let cp = CParams {
            compcode: g.compressor as u8,
            clevel: clevel_u8(clevel),
            typesize,
            nthreads: g.nthreads.max(1),
            blocksize: g.blocksize,
            splitmode: g.splitmode,
            filters,
            header_format: if env::blosc1_compat() {
                HeaderFormat::Blosc1 { version: 5 }
            } else {
                HeaderFormat::Extended
            },
            ..CParams::default()
        };
        // SAFETY: buffers per the contract.
        let (s, d) = match unsafe { compress_buffers(src, srcsize, dest, destsize) } {
            Ok(sd) => sd,
            Err(code) => return code,
        };
        let Some(mut ctxs) = global_contexts() else {
            return ERR_FAILURE;
        };
        let ctx = ctxs.cctx.get_or_insert_with(|| Context::compressor(CParams::default()));
        ctx.cparams = cp;
        to_code(ctx.compress(s, d))
    })
}

/// Decompress the chunk at `src` into `dest` with the global API. Returns
/// the decompressed size or a negative code. Honours `BLOSC_NTHREADS` and
/// `BLOSC_NOLOCK`.
///
/// # Safety
/// `src` must be readable for `srcsize` bytes and `dest` writable for
/// `destsize` bytes.
#[no_mangle]
pub unsafe extern "C" fn blosc2_decompress(
    src: *const c_void,
    srcsize: i32,
    dest: *mut c_void,
    destsize: i32,
) -> c_int {
    ffi_boundary!(ERR_FAILURE, {
        // A lazy chunk is completed from the on-disk super-chunk it came
        // from (before the global lock is taken).
        // SAFETY: `src` readable for `srcsize` bytes, `dest` writable for
        // `destsize`, per the contract.
        unsafe {
            with_whole_chunk(src, srcsize, std::ptr::null_mut(), None, |src, srcsize| {
                decompress_globally(src, srcsize, dest, destsize)
            })
        }
    })
}

/// `blosc2_decompress` of a whole (not lazy) chunk.
///
/// # Safety
/// As `blosc2_decompress`.
unsafe fn decompress_globally(src: *const c_void, srcsize: i32, dest: *mut c_void, destsize: i32) -> c_int {
    let Some(mut g) = globals() else {
        return ERR_FAILURE;
    };
    if let Some(n) = env::nthreads() {
        if n <= 0 || n > i64::from(i16::MAX) {
            return ERR_INVALID_PARAM;
        }
        let _ = set_nthreads_locked(&mut g, n as i16);
    }
    let settings: Globals = *g;
    drop(g);
    let g = settings;
    if env::nolock() {
        let dp = super::types::blosc2_dparams {
            nthreads: g.nthreads,
            ..DPARAMS_DEFAULTS
        };
        // SAFETY: plain parameters, no postfilter.
        let dctx = unsafe { blosc2_create_dctx(dp) };
        if dctx.is_null() {
            return ERR_NULL_POINTER;
        }
        // SAFETY: live context; buffers per the contract.
        let rc = unsafe { blosc2_decompress_ctx(dctx, src, srcsize, dest, destsize) };
        // SAFETY: the context is ours and freed once.
        unsafe { blosc2_free_ctx(dctx) };
        return rc;
    }
    // SAFETY: buffers per the contract.
    let (s, d) = match unsafe { decompress_buffers(src, srcsize, dest, destsize) } {
        Ok(sd) => sd,
        Err(code) => return code,
    };
    let n = g.nthreads;
    let Some(mut ctxs) = global_contexts() else {
        return ERR_FAILURE;
    };
    let ctx = ctxs
        .dctx
        .get_or_insert_with(|| Context::decompressor(DParams::default()));
    ctx.set_nthreads(n);
    to_code(ctx.decompress(s, d))
}

/// Copy `nitems` items starting at item `start` out of the chunk at `src`
/// into `dest` (serial, no global lock). Returns the bytes written or a
/// negative code.
///
/// # Safety
/// `src` must be readable for `srcsize` bytes and `dest` writable for
/// `destsize` bytes.
#[no_mangle]
pub unsafe extern "C" fn blosc2_getitem(
    src: *const c_void,
    srcsize: i32,
    start: c_int,
    nitems: c_int,
    dest: *mut c_void,
    destsize: i32,
) -> c_int {
    ffi_boundary!(ERR_FAILURE, {
        // Only the blocks holding the items are read from disk.
        // SAFETY: `src` readable for `srcsize` bytes per the contract.
        let range = unsafe { lazy_item_range(src, srcsize, i64::from(start), i64::from(nitems)) };
        let items = Range::Items(i64::from(start), i64::from(nitems));
        // SAFETY: as above; `dest` writable for `destsize` per the contract.
        unsafe {
            with_whole_chunk(src, srcsize, std::ptr::null_mut(), range, |src, srcsize| {
                let mut ctx = Context::decompressor(DParams::default());
                getitem_with(&mut ctx, src, srcsize, items, dest, destsize)
            })
        }
    })
}

/// Blosc1 interface of `blosc2_compress` (sizes are converted to 32 bits).
/// 3.3.5 truncates `nbytes` to 32 bits, so 4 GiB + 100 bytes compress as
/// 100 bytes; a size past `BLOSC2_MAX_BUFFERSIZE` is refused here instead
/// (the code 3.3.5 gives sizes it sees as too big). A `destsize` past
/// `INT32_MAX` is clamped: no chunk is bigger.
///
/// # Safety
/// `src` must be readable for `nbytes` bytes and `dest` writable for
/// `destsize` bytes.
#[no_mangle]
pub unsafe extern "C" fn blosc1_compress(
    clevel: c_int,
    doshuffle: c_int,
    typesize: usize,
    nbytes: usize,
    src: *const c_void,
    dest: *mut c_void,
    destsize: usize,
) -> c_int {
    let Ok(nbytes) = i32::try_from(nbytes) else {
        return ERR_MAX_BUFSIZE_EXCEEDED;
    };
    let destsize = i32::try_from(destsize).unwrap_or(i32::MAX);
    // SAFETY: forwarded contract.
    unsafe { blosc2_compress(clevel, doshuffle, typesize as i32, src, nbytes, dest, destsize) }
}

/// Blosc1 interface of `blosc2_decompress`: the chunk size is taken from
/// its header.
///
/// # Safety
/// `src` must be NULL or point to a whole chunk; `dest` writable for
/// `destsize` bytes.
#[no_mangle]
pub unsafe extern "C" fn blosc1_decompress(src: *const c_void, dest: *mut c_void, destsize: usize) -> c_int {
    ffi_boundary!(ERR_FAILURE, {
        if src.is_null() {
            return ERR_NULL_POINTER;
        }
        // SAFETY: a whole chunk per the contract.
        let len = unsafe { blosc1_chunk_len(src) };
        let srcsize = i32::try_from(len).unwrap_or(i32::MAX);
        // SAFETY: forwarded contract.
        // No chunk is bigger than INT32_MAX: a bigger `dest` is clamped
        // rather than truncated to a negative size as 3.3.5 does.
        unsafe { blosc2_decompress(src, srcsize, dest, i32::try_from(destsize).unwrap_or(i32::MAX)) }
    })
}

/// Blosc1 interface of `blosc2_getitem`: sizes come from the chunk
/// header, and `dest` must hold `nitems` items.
///
/// # Safety
/// `src` must be NULL or point to a whole chunk; `dest` writable for
/// `nitems` items of the chunk's typesize.
#[no_mangle]
pub unsafe extern "C" fn blosc1_getitem(src: *const c_void, start: c_int, nitems: c_int, dest: *mut c_void) -> c_int {
    ffi_boundary!(ERR_FAILURE, {
        if src.is_null() {
            return ERR_NULL_POINTER;
        }
        // SAFETY: a whole chunk per the contract.
        let len = unsafe { blosc1_chunk_len(src) };
        // SAFETY: `len` bytes readable per the contract.
        let s = match unsafe { bytes(src, len as i64) } {
            Ok(s) => s,
            Err(e) => return e.code(),
        };
        let ts = match crate::engine::chunk::read_header(s) {
            Ok(h) => i64::from(h.typesize),
            Err(e) => return code_of(&e),
        };
        let want = (i64::from(nitems) * ts).clamp(0, i64::from(i32::MAX));
        // SAFETY: `dest` holds `nitems` items per the contract.
        if let Err(e) = unsafe { bytes_mut(dest, want) } {
            return e.code();
        }
        let mut ctx = Context::decompressor(DParams::default());
        let srcsize = i32::try_from(len).unwrap_or(i32::MAX);
        // SAFETY: checked above; forwarded contract.
        unsafe {
            getitem_with(
                &mut ctx,
                src,
                srcsize,
                Range::Items(i64::from(start), i64::from(nitems)),
                dest,
                want as i32,
            )
        }
    })
}
