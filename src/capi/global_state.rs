//! The library-wide state behind the global API (`blosc1_set_*`,
//! `blosc2_set_nthreads`, the threads callback, the engine contexts the
//! global functions reuse). Kept apart from the exports in `global.rs` so
//! that the super-chunk handles, which read the global thread count, sit
//! below them.

use crate::engine::constants::{codec, splitmode};
use crate::engine::context::Context;
use crate::engine::threads::fork_lock::{ForkSlots, SlotGuard};

use super::types::blosc_threads_callback;

/// The library-wide settings of the global API.
#[derive(Clone, Copy)]
pub(crate) struct Globals {
    pub(crate) initialized: bool,
    pub(crate) compressor: i32,
    pub(crate) delta: bool,
    pub(crate) splitmode: i32,
    pub(crate) nthreads: i16,
    pub(crate) blocksize: i32,
    pub(crate) threads_callback: blosc_threads_callback,
    pub(crate) threads_callback_data: usize,
}

const DEFAULT_GLOBALS: Globals = Globals {
    initialized: false,
    compressor: codec::BLOSCLZ as i32,
    delta: false,
    splitmode: splitmode::FORWARD_COMPAT,
    nthreads: 1,
    blocksize: 0,
    threads_callback: None,
    threads_callback_data: 0,
};

/// The settings, held for a moment by each call. A child forked while a
/// parent thread was inside goes on with the settings as they were before
/// that thread's change (see `ForkSlots`).
static GLOBALS: ForkSlots<Globals> = ForkSlots::new();

/// The engine contexts reused by the global functions, held for the
/// whole of `blosc2_compress`/`blosc2_decompress` (C-Blosc2's global
/// lock; their thread pools are what `blosc2_free_resources` releases).
/// A child forked while a parent thread was compressing with them starts
/// new ones.
#[derive(Default)]
pub(crate) struct GlobalContexts {
    pub(crate) cctx: Option<Context>,
    pub(crate) dctx: Option<Context>,
}

static GLOBAL_CONTEXTS: ForkSlots<GlobalContexts> = ForkSlots::new();

impl Globals {
    /// Whether `self` and `other` hold the same settings (the callback
    /// compared by address).
    fn same_as(&self, other: &Globals) -> bool {
        let callback = |g: &Globals| g.threads_callback.map(|f| f as usize);
        self.initialized == other.initialized
            && self.compressor == other.compressor
            && self.delta == other.delta
            && self.splitmode == other.splitmode
            && self.nthreads == other.nthreads
            && self.blocksize == other.blocksize
            && callback(self) == callback(other)
            && self.threads_callback_data == other.threads_callback_data
    }
}

/// Exclusive use of the settings; what the holder changed is copied to
/// the mirrors when it lets go. Most calls only read them, and copying
/// into both mirrors on each (two more locks) cost 400 instructions a
/// call, 2% of a `blosc2_decompress` of a 4 KiB chunk.
pub(crate) struct GlobalsGuard {
    settings: SlotGuard<'static, Globals>,
    taken: Globals,
}

impl std::ops::Deref for GlobalsGuard {
    type Target = Globals;
    fn deref(&self) -> &Globals {
        &self.settings
    }
}

impl std::ops::DerefMut for GlobalsGuard {
    fn deref_mut(&mut self) -> &mut Globals {
        &mut self.settings
    }
}

impl Drop for GlobalsGuard {
    fn drop(&mut self) {
        if !self.settings.same_as(&self.taken) {
            self.settings.publish();
        }
    }
}

/// The settings without marking the library initialised; None when this
/// thread holds them already, or after more forks that each caught a
/// thread inside than there are slots.
pub(crate) fn globals_as_they_are() -> Option<GlobalsGuard> {
    let settings = GLOBALS.lock(|mirror| mirror.copied().unwrap_or(DEFAULT_GLOBALS))?;
    let taken = *settings;
    Some(GlobalsGuard { settings, taken })
}

/// The settings, initialised on first use (None as above).
pub(crate) fn globals() -> Option<GlobalsGuard> {
    let mut g = globals_as_they_are()?;
    g.initialized = true;
    Some(g)
}

/// The contexts of the global functions (None as for [`globals`]).
pub(crate) fn global_contexts() -> Option<SlotGuard<'static, GlobalContexts>> {
    GLOBAL_CONTEXTS.lock(|_| GlobalContexts::default())
}

/// The global thread count (`blosc2_get_nthreads`).
pub(crate) fn nthreads() -> i16 {
    globals().map_or(DEFAULT_GLOBALS.nthreads, |g| g.nthreads)
}

/// Whether `blosc2_init` was called (and `blosc2_destroy` not since).
pub(crate) fn is_initialized() -> bool {
    globals_as_they_are().is_some_and(|g| g.initialized)
}
