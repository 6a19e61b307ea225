//! The library-wide state behind the global API (`blosc1_set_*`,
//! `blosc2_set_nthreads`, the threads callback, the engine contexts the
//! global functions reuse). Kept apart from the exports in `global.rs` so
//! that the super-chunk handles, which read the global thread count, sit
//! below them.

use std::sync::{Mutex, MutexGuard};

use crate::engine::constants::{codec, splitmode};
use crate::engine::context::Context;

use super::types::blosc_threads_callback;

/// The library-wide state of the global API.
pub(crate) struct Globals {
    pub(crate) initialized: bool,
    pub(crate) compressor: i32,
    pub(crate) delta: bool,
    pub(crate) splitmode: i32,
    pub(crate) nthreads: i16,
    pub(crate) blocksize: i32,
    /// Engine contexts reused by the global functions (their thread pools
    /// are what `blosc2_free_resources` releases).
    pub(crate) cctx: Option<Context>,
    pub(crate) dctx: Option<Context>,
    pub(crate) threads_callback: blosc_threads_callback,
    pub(crate) threads_callback_data: usize,
}

pub(crate) static GLOBALS: Mutex<Globals> = Mutex::new(Globals {
    initialized: false,
    compressor: codec::BLOSCLZ as i32,
    delta: false,
    splitmode: splitmode::FORWARD_COMPAT,
    nthreads: 1,
    blocksize: 0,
    cctx: None,
    dctx: None,
    threads_callback: None,
    threads_callback_data: 0,
});

/// The global state, initialised on first use.
pub(crate) fn globals() -> MutexGuard<'static, Globals> {
    let mut g = GLOBALS.lock().unwrap_or_else(|p| p.into_inner());
    g.initialized = true;
    g
}

/// The global thread count (`blosc2_get_nthreads`).
pub(crate) fn nthreads() -> i16 {
    globals().nthreads
}

/// Whether `blosc2_init` was called (and `blosc2_destroy` not since).
pub(crate) fn is_initialized() -> bool {
    GLOBALS.lock().unwrap_or_else(|p| p.into_inner()).initialized
}
