//! Worker scratch shared by every pool with the same number of workers,
//! as 3.3.5's shared thread pools keep one set of block buffers per
//! thread for every context with that thread count. Without it a
//! compression context and a decompression context of 2 threads each held
//! two sets of block buffers, about 1 MiB more than 3.3.5 for 512 KiB
//! blocks (a `blosc2_compress_ctx` / `blosc2_decompress_ctx` round trip).
//!
//! A pool uses the shared set when it is free and its own set otherwise
//! (another thread is running a context with the same thread count, or a
//! callback runs a context from inside a worker): contexts used from
//! different threads at once still never wait for each other. Every lock
//! here is only ever tried, never waited for, so a process forked while a
//! thread of its parent held one carries on with its own buffers.

use std::sync::{Arc, Mutex, MutexGuard, TryLockError, Weak};

use super::WorkerScratch;

/// One set of worker scratch.
pub(super) type ScratchSet = Vec<WorkerScratch>;

/// A set shared by the pools of one worker count.
pub(super) type Shared = Arc<Mutex<ScratchSet>>;

/// The live shared sets, by worker count. A set is freed with the last
/// pool holding it, as 3.3.5 frees a shared pool with its last context.
static SETS: Mutex<Vec<(usize, Weak<Mutex<ScratchSet>>)>> = Mutex::new(Vec::new());

/// A fresh set for `nthreads` workers (buffers are grown on first use).
pub(super) fn fresh_set(nthreads: usize) -> ScratchSet {
    (0..nthreads)
        .map(|tid| WorkerScratch {
            tid: tid as i32,
            ..WorkerScratch::default()
        })
        .collect()
}

/// The shared set for `nthreads` workers, made if there is none; None when
/// the registry is held (see the module comment).
pub(super) fn shared_set(nthreads: usize) -> Option<Shared> {
    let mut sets = match SETS.try_lock() {
        Ok(g) => g,
        Err(TryLockError::Poisoned(p)) => p.into_inner(),
        Err(TryLockError::WouldBlock) => return None,
    };
    sets.retain(|(_, w)| w.strong_count() > 0);
    if let Some(set) = sets.iter().find(|(n, _)| *n == nthreads).and_then(|(_, w)| w.upgrade()) {
        return Some(set);
    }
    let set = Arc::new(Mutex::new(fresh_set(nthreads)));
    sets.push((nthreads, Arc::downgrade(&set)));
    Some(set)
}

/// The shared set, if no one else is using it.
pub(super) fn try_take(shared: &Option<Shared>) -> Option<MutexGuard<'_, ScratchSet>> {
    match shared.as_ref()?.try_lock() {
        Ok(g) => Some(g),
        Err(TryLockError::Poisoned(p)) => Some(p.into_inner()),
        Err(TryLockError::WouldBlock) => None,
    }
}
