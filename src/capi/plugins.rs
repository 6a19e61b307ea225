//! Plugins from C: `blosc2_register_codec`, `blosc2_register_filter`,
//! `blosc2_register_tuner`, the wrappers through which the engine calls C
//! callbacks, and what a context whose params name a super-chunk tells
//! plugins about it.
//!
//! A C callback gets a `blosc2_cparams*` / `blosc2_dparams*` built for the
//! call (as 3.3.5's `blosc2_ctx_get_cparams` does), whose `schunk` is the
//! public `blosc2_schunk*` of the super-chunk being worked on, so that a
//! plugin can read its metalayers and typesize.

use std::collections::BTreeMap;
use std::ffi::{c_int, c_void};
use std::ptr;
use std::sync::{Arc, Mutex, MutexGuard};

use crate::engine::plugins::registry::{self, Refusal};
use crate::engine::plugins::{Call, HostRef, PluginEnv, UserCodec, UserFilter};

use super::boundary::{c_str, ffi_boundary, ERR_CODEC_SUPPORT, ERR_FAILURE, ERR_INVALID_PARAM, SUCCESS};
use super::convert::{CPARAMS_DEFAULTS, DPARAMS_DEFAULTS};
use super::types::{
    blosc2_codec, blosc2_codec_decoder_cb, blosc2_codec_encoder_cb, blosc2_cparams, blosc2_dparams, blosc2_filter,
    blosc2_filter_backward_cb, blosc2_filter_forward_cb, blosc2_tuner,
};

/// `BLOSC2_ERROR_CODEC_PARAM`.
const ERR_CODEC_PARAM: c_int = -8;

/// The address of a public `blosc2_schunk`, as user callbacks get it.
pub(crate) struct SchunkAddr(pub usize);

/// What plugins see of each live super-chunk handle, by public address.
/// Contexts whose params name a super-chunk read it on every call
/// (without taking the super-chunk's own lock, which the calling thread
/// may hold).
static ENVS: Mutex<BTreeMap<usize, PluginEnv>> = Mutex::new(BTreeMap::new());

fn envs() -> MutexGuard<'static, BTreeMap<usize, PluginEnv>> {
    ENVS.lock().unwrap_or_else(|p| p.into_inner())
}

/// The handle user callbacks get for the super-chunk at `public`.
pub(crate) fn host_of(public: *const c_void) -> HostRef {
    Arc::new(SchunkAddr(public as usize))
}

/// Record what plugins see of the super-chunk at `public`.
pub(crate) fn publish_env(public: *const c_void, env: PluginEnv) {
    envs().insert(public as usize, env);
}

/// Forget a freed super-chunk.
pub(crate) fn forget_env(public: *const c_void) {
    envs().remove(&(public as usize));
}

/// What plugins see when a context's params name `schunk`: the
/// super-chunk's metalayer and typesize when it is one of ours, and the
/// pointer itself for user callbacks in any case.
pub(crate) fn env_for(schunk: *const c_void) -> PluginEnv {
    if schunk.is_null() {
        return PluginEnv::default();
    }
    envs().get(&(schunk as usize)).cloned().unwrap_or_else(|| PluginEnv {
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
        let Some(f) = self.encoder else {
            return ERR_CODEC_SUPPORT;
        };
        let mut cp = cparams_for(call);
        let (n_in, n_out) = (len_i32(src.len()), len_i32(dst.len()));
        // SAFETY: the buffers are valid for the lengths given, `cp` lives
        // through the call; the callback is the caller's, registered for
        // exactly this signature.
        unsafe {
            f(
                src.as_ptr(),
                n_in,
                dst.as_mut_ptr(),
                n_out,
                meta,
                &mut cp,
                call.chunk.as_ptr().cast(),
            )
        }
    }

    fn decode(&self, src: &[u8], dst: &mut [u8], meta: u8, call: &Call<'_>) -> i32 {
        let Some(f) = self.decoder else {
            return ERR_CODEC_SUPPORT;
        };
        let mut dp = dparams_for(call);
        let (n_in, n_out) = (len_i32(src.len()), len_i32(dst.len()));
        // SAFETY: as in `encode`.
        unsafe {
            f(
                src.as_ptr(),
                n_in,
                dst.as_mut_ptr(),
                n_out,
                meta,
                &mut dp,
                call.chunk.as_ptr().cast(),
            )
        }
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

/// The name of plugin codec `code` as a C string that lives as long as
/// the process (names never change once registered).
pub(crate) fn plugin_compname(code: c_int) -> Option<&'static std::ffi::CStr> {
    static NAMES: Mutex<BTreeMap<u8, &'static std::ffi::CStr>> = Mutex::new(BTreeMap::new());
    let id = u8::try_from(code).ok()?;
    let mut names = NAMES.lock().unwrap_or_else(|p| p.into_inner());
    if let Some(n) = names.get(&id) {
        return Some(n);
    }
    let name = std::ffi::CString::new(registry::codec_name(id)?).ok()?;
    // At most one small string per id (256 in all), kept for C callers.
    let name: &'static std::ffi::CStr = Box::leak(name.into_boxed_c_str());
    names.insert(id, name);
    Some(name)
}

/// The callbacks of the tuner registered under `id`, loading 3.3.5's
/// run-time tuners (BTUNE) by name the first time.
pub(crate) fn tuner_callbacks(id: i32) -> Option<blosc2_tuner> {
    let id = u8::try_from(id).ok()?;
    if let Some(t) = registry::tuner(id) {
        return t.downcast_ref::<CTuner>().map(|c| c.0);
    }
    let name = registry::tuner_name(id)?;
    let Some(t) = super::plugin_load::load_tuner(id, &name) else {
        registry::trace_error(&format!("Could not load tuner {id}."));
        return None;
    };
    registry::fill_tuner(id, Arc::new(CTuner(t)));
    Some(t)
}

/// Say that a tuner callback failed (under `BLOSC_TRACE`).
pub(crate) fn trace_tuner_error(id: c_int, what: &str) {
    registry::trace_error(&format!("Error in tuner {id} {what} function"));
}

/// Register a user codec (ids 160-255). Returns 0, or
/// `BLOSC2_ERROR_CODEC_PARAM` for an id below 160 or a used id under
/// another name, as 3.3.5.
///
/// # Safety
/// `codec` must be NULL or point to a `blosc2_codec` whose `compname` is
/// NULL or a NUL-terminated string.
#[no_mangle]
pub unsafe extern "C" fn blosc2_register_codec(codec: *mut blosc2_codec) -> c_int {
    ffi_boundary!(ERR_FAILURE, {
        if codec.is_null() {
            return ERR_INVALID_PARAM;
        }
        // SAFETY: non-NULL per the check, readable per the contract.
        let c = unsafe { codec.read() };
        if c.compcode < crate::engine::plugins::ids::USER_START {
            registry::trace_error("The compcode must be greater or equal than 160");
            return ERR_CODEC_PARAM;
        }
        // A NULL name registers a nameless plugin, as 3.3.5 accepts
        // (python-blosc2 leaves it unset).
        let name = if c.compname.is_null() {
            ""
        } else {
            // SAFETY: non-NULL and NUL-terminated per the contract.
            match unsafe { c_str(c.compname) } {
                Some(name) => name,
                None => return ERR_INVALID_PARAM,
            }
        };
        // SAFETY: the caller registers callbacks with these signatures.
        let imp = Arc::new(unsafe { CCodec::new(c.encoder, c.decoder) });
        match registry::register_codec(c.compcode, name, c.version, c.complib, imp) {
            Ok(()) => SUCCESS,
            Err(Refusal::Full) => ERR_CODEC_SUPPORT,
            Err(_) => {
                registry::trace_error(&format!("The codec (ID: {}) is already registered", c.compcode));
                ERR_CODEC_PARAM
            }
        }
    })
}

/// Register a user filter (ids 160-255). Returns 0, or
/// `BLOSC2_ERROR_FAILURE` for an id below 160 or a used id under another
/// name, as 3.3.5.
///
/// # Safety
/// `filter` must be NULL or point to a `blosc2_filter` whose `name` is
/// NULL or a NUL-terminated string.
#[no_mangle]
pub unsafe extern "C" fn blosc2_register_filter(filter: *mut blosc2_filter) -> c_int {
    ffi_boundary!(ERR_FAILURE, {
        if filter.is_null() {
            return ERR_INVALID_PARAM;
        }
        // SAFETY: non-NULL per the check, readable per the contract.
        let f = unsafe { filter.read() };
        if f.id < crate::engine::plugins::ids::USER_START {
            registry::trace_error("The id must be greater or equal to 160");
            return ERR_FAILURE;
        }
        // A NULL name registers a nameless plugin, as 3.3.5 accepts
        // (python-blosc2 leaves it unset).
        let name = if f.name.is_null() {
            ""
        } else {
            // SAFETY: non-NULL and NUL-terminated per the contract.
            match unsafe { c_str(f.name) } {
                Some(name) => name,
                None => return ERR_INVALID_PARAM,
            }
        };
        // SAFETY: the caller registers callbacks with these signatures.
        let imp = Arc::new(unsafe { CFilter::new(f.forward, f.backward) });
        match registry::register_filter(f.id, name, f.version, imp) {
            Ok(()) => SUCCESS,
            Err(Refusal::Full) => ERR_CODEC_SUPPORT,
            Err(_) => {
                registry::trace_error(&format!("The filter (ID: {}) is already registered", f.id));
                ERR_FAILURE
            }
        }
    })
}

/// Register a user tuner (ids 160-255). Returns 0, or
/// `BLOSC2_ERROR_FAILURE` for an id below 160 or a used id under another
/// name, as 3.3.5.
///
/// # Safety
/// `tuner` must be NULL or point to a `blosc2_tuner` whose `name` is NULL
/// or a NUL-terminated string.
#[no_mangle]
pub unsafe extern "C" fn blosc2_register_tuner(tuner: *mut blosc2_tuner) -> c_int {
    ffi_boundary!(ERR_FAILURE, {
        if tuner.is_null() {
            return ERR_INVALID_PARAM;
        }
        // SAFETY: non-NULL per the check, readable per the contract.
        let t = unsafe { tuner.read() };
        if t.id < c_int::from(crate::engine::plugins::ids::USER_START) {
            registry::trace_error("The id must be greater or equal to 160");
            return ERR_FAILURE;
        }
        // (Tuner ids are stored in a byte, as `cparams.tuner_id`'s users
        // expect; 3.3.5 would take larger ones that no context can name.)
        let Ok(id) = u8::try_from(t.id) else {
            return ERR_FAILURE;
        };
        // SAFETY: NULL or NUL-terminated per the contract.
        let Some(name) = (unsafe { c_str(t.name) }) else {
            return ERR_INVALID_PARAM;
        };
        match registry::register_tuner(id, name, Arc::new(CTuner(t))) {
            Ok(()) => SUCCESS,
            Err(Refusal::Full) => ERR_CODEC_SUPPORT,
            Err(_) => ERR_FAILURE,
        }
    })
}
