//! From the C parameter structs to the engine's, the way
//! `blosc2_create_cctx`/`blosc2_create_dctx` of 3.3.5 read them
//! (environment overrides included), and the C prefilter/postfilter
//! callbacks wrapped as engine closures.

use std::ffi::{c_int, c_void};
use std::ptr;
use std::sync::Arc;

use crate::engine::constants::{codec, filter};
use crate::engine::params::{CParams, DParams, Postfilter, PostfilterArgs, Prefilter, PrefilterArgs};

use super::env;
use super::types::{
    blosc2_context, blosc2_cparams, blosc2_dparams, blosc2_postfilter_fn, blosc2_postfilter_params,
    blosc2_prefilter_fn, blosc2_prefilter_params,
};
use super::types_schunk::blosc2_schunk;

/// Last built-in filter id + 1 (`BLOSC_LAST_FILTER`).
const LAST_FILTER: u8 = filter::LAST;
/// Last id of the Blosc-defined filter range.
const DEFINED_FILTERS_STOP: u8 = 31;
/// Last globally registered filter id (`BLOSC_LAST_REGISTERED_FILTER`).
const LAST_REGISTERED_FILTER: u8 = 36;
/// Last id of the globally registered filter range.
const GLOBAL_REGISTERED_FILTERS_STOP: u8 = 159;

/// `build_filters`: put the shuffle flavour in slot 5 and DELTA in slot 4.
/// `doshuffle` values other than 0, 1 and 2 leave slot 5 as it is.
pub(crate) fn build_filters(doshuffle: i32, delta: bool, typesize: i32, filters: &mut [u8; 6]) {
    if doshuffle == i32::from(filter::SHUFFLE) && typesize > 1 {
        filters[5] = filter::SHUFFLE;
    }
    if doshuffle == i32::from(filter::BITSHUFFLE) {
        filters[5] = filter::BITSHUFFLE;
    }
    if doshuffle == i32::from(filter::NOFILTER) {
        filters[5] = filter::NOFILTER;
    }
    if delta {
        filters[4] = filter::DELTA;
    }
}

/// A compression level as the engine's `u8`: out-of-range values (which
/// the engine refuses with `CODEC_PARAM`) stay out of range.
pub(crate) fn clevel_u8(clevel: i64) -> u8 {
    u8::try_from(clevel).unwrap_or(u8::MAX)
}

/// What `blosc2_create_cctx` derives from a `blosc2_cparams`.
pub(crate) struct CctxSetup {
    /// Engine parameters (no prefilter yet; the handle adds it).
    pub engine: CParams,
    /// Threads requested (values <= 0 run serially, as in 3.3.5).
    pub nthreads: i16,
    /// What `blosc2_ctx_get_cparams` reports.
    pub mirror: blosc2_cparams,
}

/// Read `cp` (plus the environment) like `blosc2_create_cctx`. `None`
/// where 3.3.5 returns a NULL context.
pub(crate) fn cctx_setup(cp: &blosc2_cparams) -> Option<CctxSetup> {
    super::plugin_load::install();
    let mut filters = cp.filters;
    for &f in &filters {
        let undefined = (LAST_FILTER..=DEFINED_FILTERS_STOP).contains(&f)
            || (LAST_REGISTERED_FILTER + 1..=GLOBAL_REGISTERED_FILTERS_STOP).contains(&f);
        if undefined {
            return None;
        }
    }
    let doshuffle = env::shuffle().unwrap_or(-1);
    let delta = env::delta().unwrap_or(false);
    let typesize = env::typesize().map_or(cp.typesize, |v| v as i32);
    build_filters(doshuffle, delta, typesize, &mut filters);
    let clevel = env::clevel().unwrap_or(i64::from(cp.clevel));
    let compcode = match env::compressor() {
        Some(name) => {
            let code = crate::engine::codecs::compcode(&name).map_or(-1, i32::from);
            if code >= i32::from(codec::LAST) {
                return None;
            }
            code as u8
        }
        None => cp.compcode,
    };
    let blocksize = env::blocksize().map_or(cp.blocksize, |v| v as i32);
    let nthreads = match env::nthreads() {
        Some(n) if n > 0 => n as i16,
        _ => cp.nthreads,
    };
    let splitmode = env::splitmode().unwrap_or(cp.splitmode);
    if cp.tuner_id > 0 && super::plugins::tuner_callbacks(cp.tuner_id).is_none() {
        // 3.3.5: "User-defined tuner not found" (BTUNE is a library it
        // loads at run time; none is shipped here).
        return None;
    }
    let engine = CParams {
        compcode,
        compcode_meta: cp.compcode_meta,
        clevel: clevel_u8(clevel),
        use_dict: cp.use_dict != 0,
        typesize,
        nthreads: nthreads.max(1),
        blocksize,
        splitmode,
        filters,
        filters_meta: cp.filters_meta,
        instr_codec: cp.instr_codec,
        ..CParams::default()
    };
    let mirror = blosc2_cparams {
        compcode,
        clevel: clevel as u8,
        typesize,
        nthreads,
        blocksize,
        splitmode,
        filters,
        tuner_id: cp.tuner_id.max(0),
        ..*cp
    };
    Some(CctxSetup {
        engine,
        nthreads,
        mirror,
    })
}

/// What `blosc2_create_dctx` derives from a `blosc2_dparams`.
pub(crate) struct DctxSetup {
    /// Engine parameters (no postfilter yet; the handle adds it).
    pub engine: DParams,
    /// Threads requested (values <= 0 run serially, as in 3.3.5).
    pub nthreads: i16,
    /// What `blosc2_ctx_get_dparams` reports.
    pub mirror: blosc2_dparams,
}

/// Read `dp` (plus `BLOSC_NTHREADS`) like `blosc2_create_dctx`.
pub(crate) fn dctx_setup(dp: &blosc2_dparams) -> DctxSetup {
    super::plugin_load::install();
    let nthreads = match env::nthreads() {
        Some(n) if n > 0 => n as i16,
        _ => dp.nthreads,
    };
    let engine = DParams {
        nthreads: nthreads.max(1),
        typesize: dp.typesize,
        ..DParams::default()
    };
    DctxSetup {
        engine,
        nthreads,
        mirror: blosc2_dparams { nthreads, ..*dp },
    }
}

/// Raw pointers a filter hook carries into worker threads.
#[derive(Clone, Copy)]
struct HookPtrs<P> {
    /// The context's own copy of the user's params (template per block).
    template: *const P,
    /// The context handed to the callback.
    ctx: *mut blosc2_context,
    /// The super-chunk of the params (its `current_nchunk` is reported).
    schunk: *const c_void,
}

// SAFETY: the pointers are only read (template, schunk) or passed through
// (ctx) to the C callback, which C-Blosc2 also calls from several threads
// at once; the context owning `template` outlives every compression call.
unsafe impl<P> Send for HookPtrs<P> {}
// SAFETY: as above; nothing is mutated through these pointers here.
unsafe impl<P> Sync for HookPtrs<P> {}

impl<P> HookPtrs<P> {
    /// `schunk->current_nchunk` when the params name a super-chunk.
    fn nchunk(&self, fallback: i64) -> i64 {
        if self.schunk.is_null() {
            return fallback;
        }
        let sc = self.schunk.cast::<blosc2_schunk>();
        // SAFETY: a non-NULL `schunk` in cparams/dparams is the caller's
        // live super-chunk (C-Blosc2 reads the same field).
        unsafe { ptr::addr_of!((*sc).current_nchunk).read() }
    }
}

fn len_i32(n: usize) -> i32 {
    i32::try_from(n).unwrap_or(i32::MAX)
}

/// Wrap a C prefilter as an engine closure. `template` must stay valid
/// as long as the closure can run (the context owns it).
pub(crate) fn prefilter_hook(
    func: blosc2_prefilter_fn,
    template: *const blosc2_prefilter_params,
    ctx: *mut blosc2_context,
    schunk: *mut c_void,
) -> Option<Prefilter> {
    let f = func?;
    let hp = HookPtrs { template, ctx, schunk };
    let hook = move |args: &mut PrefilterArgs<'_>| -> i32 {
        let hp = hp;
        // SAFETY: the template is the context's private copy, alive while
        // the context compresses.
        let mut p = unsafe { hp.template.read() };
        let ts = args.output_typesize.max(1);
        let out_ts = if p.output_typesize > 0 { p.output_typesize } else { ts };
        // A type-converting prefilter writes the block's items at
        // `output_typesize` bytes each (3.3.5: nelems * output_typesize);
        // a wider output than the block's buffer cannot be held.
        let len = args.output.len().min(args.input.len());
        let output_size = len / ts as usize * out_ts as usize;
        if output_size > args.output.len() {
            return -1;
        }
        let disposable = p.output_is_disposable;
        if !disposable {
            args.output[..output_size].fill(0);
        }
        p.input = args.input.as_ptr();
        p.output = args.output.as_mut_ptr();
        p.output_size = len_i32(output_size);
        p.output_typesize = out_ts;
        p.output_offset = args.output_offset;
        p.nchunk = hp.nchunk(args.nchunk);
        p.nblock = args.nblock;
        p.tid = args.tid;
        p.ttmp = args.ttmp.as_mut_ptr();
        p.ttmp_nbytes = args.ttmp.len();
        p.ctx = hp.ctx;
        p.output_is_disposable = disposable;
        // SAFETY: `p` points into buffers valid for the sizes given.
        let rc: c_int = unsafe { f(&mut p) };
        if rc != 0 && disposable {
            return 0;
        }
        rc
    };
    Some(Arc::new(hook))
}

/// Wrap a C postfilter as an engine closure (see [`prefilter_hook`]).
pub(crate) fn postfilter_hook(
    func: blosc2_postfilter_fn,
    template: *const blosc2_postfilter_params,
    ctx: *mut blosc2_context,
    schunk: *mut c_void,
) -> Option<Postfilter> {
    let f = func?;
    let hp = HookPtrs { template, ctx, schunk };
    let hook = move |args: &mut PostfilterArgs<'_>| -> i32 {
        let hp = hp;
        // SAFETY: the template is the context's private copy, alive while
        // the context decompresses.
        let mut p = unsafe { hp.template.read() };
        p.input = args.input.as_ptr();
        p.output = args.output.as_mut_ptr();
        p.size = len_i32(args.output.len().min(args.input.len()));
        p.typesize = args.typesize;
        p.offset = args.offset;
        p.nchunk = hp.nchunk(args.nchunk);
        p.nblock = args.nblock;
        p.tid = args.tid;
        p.ttmp = args.ttmp.as_mut_ptr();
        p.ttmp_nbytes = args.ttmp.len();
        p.ctx = hp.ctx;
        // SAFETY: `p` points into buffers valid for the sizes given.
        unsafe { f(&mut p) }
    };
    Some(Arc::new(hook))
}
