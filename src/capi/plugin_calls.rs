//! The C side of plugin calls: the engine's plugin traits over C
//! callbacks (`CCodec`, `CFilter`, `CTuner`) and what a context whose
//! params name a super-chunk tells plugins about it.
//!
//! A C callback gets a `blosc2_cparams*` / `blosc2_dparams*` built for the
//! call (as 3.3.5's `blosc2_ctx_get_cparams` does), whose `schunk` is the
//! public `blosc2_schunk*` of the super-chunk being worked on, so that a
//! plugin can read its metalayers and typesize. The exports that register
//! plugins are in `plugins.rs`, the run-time loading in `plugin_load.rs`;
//! both build on this module, which depends on neither.

use std::collections::BTreeMap;
use std::ffi::{c_int, c_void};
use std::ptr;
use std::sync::Arc;

use crate::engine::plugins::{Call, HostRef, PluginEnv, UserCodec, UserFilter};
use crate::engine::threads::fork_lock::ForkSlots;

use super::boundary::{ERR_CODEC_SUPPORT, ERR_FAILURE};
use super::defaults::{CPARAMS_DEFAULTS, DPARAMS_DEFAULTS};
use super::types::{
    blosc2_codec_decoder_cb, blosc2_codec_encoder_cb, blosc2_cparams, blosc2_dparams, blosc2_filter_backward_cb,
    blosc2_filter_forward_cb, blosc2_tuner,
};

/// The address of a public `blosc2_schunk`, as user callbacks get it.
pub(crate) struct SchunkAddr(pub usize);

/// What plugins see of each live super-chunk handle, by public address.
/// Contexts whose params name a super-chunk read it on every call
/// (without taking the super-chunk's own lock, which the calling thread
/// may hold). A child forked while a parent thread was inside goes on
/// with a copy (see `ForkSlots`); a super-chunk missing from it (or from
/// a table lost to forks) gets the plain environment of `env_for`.
static ENVS: ForkSlots<BTreeMap<usize, PluginEnv>> = ForkSlots::new();

/// The handle user callbacks get for the super-chunk at `public`.
pub(crate) fn host_of(public: *const c_void) -> HostRef {
    Arc::new(SchunkAddr(public as usize))
}

/// Record what plugins see of the super-chunk at `public`.
pub(crate) fn publish_env(public: *const c_void, env: PluginEnv) {
    ENVS.change(|t| t.insert(public as usize, env.clone()));
}

/// Forget a freed super-chunk.
pub(crate) fn forget_env(public: *const c_void) {
    ENVS.change(|t| t.remove(&(public as usize)));
}

/// What plugins see when a context's params name `schunk`: the
/// super-chunk's metalayer and typesize when it is one of ours, and the
/// pointer itself for user callbacks in any case.
pub(crate) fn env_for(schunk: *const c_void) -> PluginEnv {
    if schunk.is_null() {
        return PluginEnv::default();
    }
    let known = ENVS.lock_mirrored().and_then(|t| t.get(&(schunk as usize)).cloned());
    known.unwrap_or_else(|| PluginEnv {
        host: Some(host_of(schunk)),
        ..PluginEnv::default()
    })
}

/// The super-chunk pointer a callback gets.
fn schunk_ptr(call: &Call<'_>) -> *mut c_void {
    call.env
        .host
        .as_ref()
        .and_then(|h| h.downcast_ref::<SchunkAddr>())
        .map_or(ptr::null_mut(), |a| a.0 as *mut c_void)
}

/// The `blosc2_cparams` 3.3.5 builds for a plugin call.
fn cparams_for(call: &Call<'_>) -> blosc2_cparams {
    let mut cp = CPARAMS_DEFAULTS;
    if let Some(p) = call.cparams {
        cp.compcode = p.compcode;
        cp.compcode_meta = p.compcode_meta;
        cp.clevel = p.clevel;
        cp.use_dict = c_int::from(p.use_dict);
        cp.blocksize = p.blocksize;
        cp.splitmode = p.splitmode;
        cp.filters = p.filters;
        cp.filters_meta = p.filters_meta;
        cp.instr_codec = p.instr_codec;
    }
    cp.typesize = call.typesize;
    cp.nthreads = call.nthreads;
    cp.schunk = schunk_ptr(call);
    cp
}

/// The `blosc2_dparams` 3.3.5 builds for a plugin call.
fn dparams_for(call: &Call<'_>) -> blosc2_dparams {
    blosc2_dparams {
        nthreads: call.nthreads,
        typesize: call.typesize,
        schunk: schunk_ptr(call),
        ..DPARAMS_DEFAULTS
    }
}

fn len_i32(n: usize) -> i32 {
    i32::try_from(n).unwrap_or(i32::MAX)
}

/// A codec registered from C (or loaded by name).
pub(crate) struct CCodec {
    encoder: blosc2_codec_encoder_cb,
    decoder: blosc2_codec_decoder_cb,
}

impl CCodec {
    /// A codec calling these functions.
    ///
    /// # Safety
    /// Each function must be callable from any thread with the arguments
    /// `blosc2_codec` documents.
    pub(crate) unsafe fn new(encoder: blosc2_codec_encoder_cb, decoder: blosc2_codec_decoder_cb) -> CCodec {
        CCodec { encoder, decoder }
    }
}

impl UserCodec for CCodec {
    fn encode(&self, src: &[u8], dst: &mut [u8], meta: u8, call: &Call<'_>) -> i32 {
        call_codec(self.encoder, src, dst, meta, cparams_for(call), call)
    }

    fn decode(&self, src: &[u8], dst: &mut [u8], meta: u8, call: &Call<'_>) -> i32 {
        call_codec(self.decoder, src, dst, meta, dparams_for(call), call)
    }
}

/// A codec callback over its params struct (`blosc2_cparams` for the
/// encoder, `blosc2_dparams` for the decoder).
type CodecFn<P> = unsafe extern "C" fn(*const u8, i32, *mut u8, i32, u8, *mut P, *const c_void) -> c_int;

/// Run a codec callback from `src` into `dst` with the params built for
/// this call; a codec without that callback is not supported.
fn call_codec<P>(f: Option<CodecFn<P>>, src: &[u8], dst: &mut [u8], meta: u8, mut params: P, call: &Call<'_>) -> i32 {
    let Some(f) = f else {
        return ERR_CODEC_SUPPORT;
    };
    let (n_in, n_out) = (len_i32(src.len()), len_i32(dst.len()));
    // SAFETY: the buffers are valid for the lengths given, `params` lives
    // through the call; the callback is the caller's, registered for
    // exactly this signature.
    unsafe {
        f(
            src.as_ptr(),
            n_in,
            dst.as_mut_ptr(),
            n_out,
            meta,
            &mut params,
            call.chunk.as_ptr().cast(),
        )
    }
}

/// A filter registered from C (or loaded by name).
pub(crate) struct CFilter {
    forward: blosc2_filter_forward_cb,
    backward: blosc2_filter_backward_cb,
}

impl CFilter {
    /// A filter calling these functions.
    ///
    /// # Safety
    /// As for [`CCodec::new`], with `blosc2_filter`'s arguments.
    pub(crate) unsafe fn new(forward: blosc2_filter_forward_cb, backward: blosc2_filter_backward_cb) -> CFilter {
        CFilter { forward, backward }
    }
}

impl UserFilter for CFilter {
    fn forward(&self, src: &[u8], dst: &mut [u8], meta: u8, id: u8, call: &Call<'_>) -> i32 {
        let Some(f) = self.forward else {
            return ERR_FAILURE;
        };
        if dst.len() < src.len() {
            return ERR_FAILURE;
        }
        let mut cp = cparams_for(call);
        // SAFETY: `src` and `dst` hold `src.len()` bytes; `cp` lives
        // through the call.
        unsafe { f(src.as_ptr(), dst.as_mut_ptr(), len_i32(src.len()), meta, &mut cp, id) }
    }

    fn backward(&self, src: &[u8], dst: &mut [u8], meta: u8, id: u8, call: &Call<'_>) -> i32 {
        let Some(f) = self.backward else {
            return ERR_FAILURE;
        };
        if dst.len() < src.len() {
            return ERR_FAILURE;
        }
        let mut dp = dparams_for(call);
        // SAFETY: as in `forward`.
        unsafe { f(src.as_ptr(), dst.as_mut_ptr(), len_i32(src.len()), meta, &mut dp, id) }
    }
}

// SAFETY: the callbacks are plain C function pointers, which 3.3.5 calls
// from any of its threads as well.
unsafe impl Send for CCodec {}
// SAFETY: as above; nothing is mutated.
unsafe impl Sync for CCodec {}
// SAFETY: as for CCodec.
unsafe impl Send for CFilter {}
// SAFETY: as for CCodec.
unsafe impl Sync for CFilter {}

/// A tuner registered from C, kept for the contexts that name it.
#[derive(Clone, Copy)]
pub(crate) struct CTuner(pub blosc2_tuner);

// SAFETY: function pointers only.
unsafe impl Send for CTuner {}
// SAFETY: function pointers only.
unsafe impl Sync for CTuner {}
