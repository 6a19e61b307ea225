//! Plugins from C: the exports `blosc2_register_codec`,
//! `blosc2_register_filter`, `blosc2_register_tuner`, and the look-ups
//! other exports make (a plugin codec's name, a tuner's callbacks). The
//! adapters that call C callbacks are in `plugin_calls.rs`.

use std::collections::BTreeMap;
use std::ffi::{c_char, c_int};
use std::sync::Arc;

use crate::engine::plugins::registry::{self, Refusal};
use crate::engine::threads::fork_lock::ForkSlots;

use super::boundary::{c_str, ffi_boundary, ERR_CODEC_SUPPORT, ERR_FAILURE, ERR_INVALID_PARAM, SUCCESS};
use super::plugin_calls::{CCodec, CFilter, CTuner};
use super::types::{blosc2_codec, blosc2_filter, blosc2_tuner};

/// `BLOSC2_ERROR_CODEC_PARAM`.
const ERR_CODEC_PARAM: c_int = -8;

/// The name of plugin codec `code` as a C string that lives as long as
/// the process (names never change once registered). None also when
/// forks lost the cache (see `ForkSlots`).
pub(crate) fn plugin_compname(code: c_int) -> Option<&'static std::ffi::CStr> {
    static NAMES: ForkSlots<BTreeMap<u8, &'static std::ffi::CStr>> = ForkSlots::new();
    let id = u8::try_from(code).ok()?;
    let mut names = NAMES.lock_mirrored()?;
    if let Some(n) = names.get(&id) {
        return Some(n);
    }
    let name = std::ffi::CString::new(registry::codec_name(id)?).ok()?;
    // At most one small string per id (256 in all), kept for C callers.
    let name: &'static std::ffi::CStr = Box::leak(name.into_boxed_c_str());
    names.insert(id, name);
    names.mirror(|m| {
        m.get_or_insert_with(BTreeMap::new).insert(id, name);
    });
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

/// What tells a codec registration from a filter one in 3.3.5: the
/// words of its trace messages and the code for a refused id.
struct UserKind {
    /// The message for an id below 160.
    low_id: &'static str,
    /// "codec" or "filter".
    noun: &'static str,
    /// The code for an id below 160 or one already taken.
    refused: c_int,
}

/// The checks and codes both registrations share: the id range, the name
/// (NULL registers a nameless plugin, as 3.3.5 accepts: python-blosc2
/// leaves it unset), and the registry's refusals.
///
/// # Safety
/// `name` must be NULL or a NUL-terminated string.
unsafe fn register_user(
    kind: &UserKind,
    id: u8,
    name: *const c_char,
    register: impl FnOnce(&str) -> Result<(), Refusal>,
) -> c_int {
    if id < crate::engine::plugins::ids::USER_START {
        registry::trace_error(kind.low_id);
        return kind.refused;
    }
    // A NULL name, or one that is not text, registers a nameless plugin:
    // 3.3.5 copies the struct without reading the name, and python-blosc2
    // leaves a filter's name unset (stack bytes) when it registers Python
    // callbacks without one.
    let name = if name.is_null() {
        ""
    } else {
        // SAFETY: non-NULL and NUL-terminated per the contract.
        unsafe { c_str(name) }.unwrap_or("")
    };
    match register(name) {
        Ok(()) => SUCCESS,
        Err(Refusal::Full) => ERR_CODEC_SUPPORT,
        Err(_) => {
            registry::trace_error(&format!("The {} (ID: {id}) is already registered", kind.noun));
            kind.refused
        }
    }
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
    const CODEC: UserKind = UserKind {
        low_id: "The compcode must be greater or equal than 160",
        noun: "codec",
        refused: ERR_CODEC_PARAM,
    };
    ffi_boundary!(ERR_FAILURE, {
        if codec.is_null() {
            return ERR_INVALID_PARAM;
        }
        // SAFETY: non-NULL per the check, readable per the contract.
        let c = unsafe { codec.read() };
        // SAFETY: the name per the contract; the caller registers
        // callbacks with these signatures.
        unsafe {
            register_user(&CODEC, c.compcode, c.compname, |name| {
                let imp = Arc::new(CCodec::new(c.encoder, c.decoder));
                registry::register_codec(c.compcode, name, c.version, c.complib, imp)
            })
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
    const FILTER: UserKind = UserKind {
        low_id: "The id must be greater or equal to 160",
        noun: "filter",
        refused: ERR_FAILURE,
    };
    ffi_boundary!(ERR_FAILURE, {
        if filter.is_null() {
            return ERR_INVALID_PARAM;
        }
        // SAFETY: non-NULL per the check, readable per the contract.
        let f = unsafe { filter.read() };
        // SAFETY: the name per the contract; the caller registers
        // callbacks with these signatures.
        unsafe {
            register_user(&FILTER, f.id, f.name, |name| {
                let imp = Arc::new(CFilter::new(f.forward, f.backward));
                registry::register_filter(f.id, name, f.version, imp)
            })
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
