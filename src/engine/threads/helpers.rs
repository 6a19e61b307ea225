//! The process-wide helper threads, and the one place where a job that
//! borrows the caller's stack is handed to them.
//!
//! A call publishes its job with a number of helper slots, works on it
//! itself at once, then closes it and waits only for the helpers that
//! joined while it was open. A helper that has not been scheduled yet (a
//! busy machine) never holds the caller up: it finds the job closed and
//! gone, and the caller has done the work alone. Idle helpers sleep on a
//! condition variable, as C-Blosc2's pthreads do; they never spin or yield
//! in a loop, which on a machine whose cores are all busy takes time from
//! the caller and from everything else.
//!
//! Helpers are shared by every context and thread count: there are as many
//! as the largest request so far, and any of them serves any job.
//!
//! After `fork()` the child has none of them: its first parallel call
//! builds a fresh set of its own (see [`shared`]); the parent's set, whose
//! lock a helper may have held at the fork, is never touched again there.
//!
//! The tests compare [`broadcast`] with a safe twin on scoped threads
//! started per call (`broadcast_scoped`), which needs no lifetime erasure.

// The lifetime erasure of a job borrowed from the caller's stack, argued at
// `broadcast`.
#![allow(unsafe_code)]

use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::atomic::{AtomicU32, AtomicUsize, Ordering};
use std::sync::{Condvar, Mutex, MutexGuard, OnceLock};

/// A job as the helpers see it: called with a slot number.
type JobFn<'a> = dyn Fn(usize) + Sync + 'a;

/// A job's closure with its lifetime erased. Only [`broadcast`] makes one,
/// and only dereferences of it by helpers counted in the job's `active`
/// happen, see the SAFETY argument there.
#[derive(Clone, Copy)]
struct ErasedJob(*const JobFn<'static>);

// SAFETY: the closure behind the pointer is `Sync`, so calling it from
// another thread is sound; the pointer is sent only while the closure lives
// (see `broadcast`).
unsafe impl Send for ErasedJob {}

/// One published job.
struct Entry {
    id: u64,
    job: ErasedJob,
    /// Helper slots offered (numbered 1..=slots; the caller is slot 0).
    slots: usize,
    /// Slots handed out so far.
    claimed: usize,
    /// Helpers that joined and have not left yet.
    active: usize,
    /// Helpers may still join.
    open: bool,
    /// A helper's run of the job panicked.
    panicked: bool,
}

#[derive(Default)]
struct State {
    jobs: Vec<Entry>,
    next_id: u64,
    /// Helpers asleep in `wait_for_job`.
    idle: usize,
}

struct Shared {
    state: Mutex<State>,
    /// Signalled when a job is published.
    job_published: Condvar,
    /// Signalled when the last helper leaves a closed job.
    helpers_left: Condvar,
    /// Helper threads started (held while starting more, so that two
    /// callers growing the set do not both start the same threads).
    started: Mutex<usize>,
}

/// Helper sets, one per process generation. A process forked from one
/// that had helpers starts with none of those threads, and with the old
/// set's locks in whatever state the fork caught them (a helper may have
/// held `state`), so it must never touch that set: it claims the next slot
/// and builds a fresh set there, leaving the old one alone (its memory is
/// the fork's copy; nothing frees it). Each fork down a chain of forks
/// takes one more slot; past the last, calls run on the caller alone.
const GENERATIONS: usize = 8;

static SETS: [OnceLock<Shared>; GENERATIONS] = [const { OnceLock::new() }; GENERATIONS];

/// The process that claimed each slot, as its fork generation plus one
/// (see `forks`; 0: free), which differs from each of its ancestors'.
/// Claimed before the set is built, so a set whose building a fork
/// interrupted is someone else's to the child, which never waits on it.
static OWNERS: [AtomicU32; GENERATIONS] = [const { AtomicU32::new(0) }; GENERATIONS];

/// The newest slot this process (or an ancestor) claimed.
static CURRENT: AtomicUsize = AtomicUsize::new(0);

/// The helper set of this process; None once a chain of forks has used up
/// every slot. Lock-free up to the set itself, so a fork taken while a
/// thread of the parent was here cannot leave the child waiting.
fn shared() -> Option<&'static Shared> {
    // Not the pid: asking the kernel on every parallel call cost a
    // syscall and kept getpid's part of glibc resident.
    let me = super::forks::generation().wrapping_add(1).max(1);
    loop {
        let at = CURRENT.load(Ordering::Acquire);
        let owner = OWNERS.get(at)?;
        match owner.compare_exchange(0, me, Ordering::AcqRel, Ordering::Acquire) {
            Ok(_) => return Some(SETS[at].get_or_init(Shared::new)),
            Err(p) if p == me => return Some(SETS[at].get_or_init(Shared::new)),
            // An ancestor's set: move past it (threads of this process
            // racing here agree on the next slot).
            Err(_) => {
                let _ = CURRENT.compare_exchange(at, at + 1, Ordering::AcqRel, Ordering::Acquire);
            }
        }
    }
}

impl Shared {
    fn new() -> Shared {
        Shared {
            state: Mutex::new(State::default()),
            job_published: Condvar::new(),
            helpers_left: Condvar::new(),
            started: Mutex::new(0),
        }
    }

    /// The state; nothing panics while holding it, but a poisoned lock is
    /// still consistent, so carry on rather than spread the panic.
    fn lock(&self) -> MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Make sure at least `n` helper threads exist. A thread that cannot be
    /// started is not an error: the caller does the work the helper would
    /// have shared.
    fn ensure_helpers(&'static self, n: usize) {
        let mut started = self.started.lock().unwrap_or_else(|p| p.into_inner());
        while *started < n {
            let spawned = std::thread::Builder::new()
                .name(format!("blosc2-worker-{}", *started))
                .spawn(move || self.serve());
            if spawned.is_err() {
                break;
            }
            *started += 1;
        }
    }

    /// A helper thread's life: join open jobs with free slots, sleep when
    /// there are none.
    fn serve(&self) {
        let mut st = self.lock();
        loop {
            let Some(e) = st.jobs.iter_mut().find(|e| e.open && e.claimed < e.slots) else {
                st.idle += 1;
                st = self.job_published.wait(st).unwrap_or_else(|p| p.into_inner());
                st.idle -= 1;
                continue;
            };
            e.claimed += 1;
            e.active += 1;
            let (id, job, slot) = (e.id, e.job, e.claimed);
            drop(st);
            // SAFETY: this helper is counted in the entry's `active` and the
            // entry was open when it joined, so `broadcast` has not returned
            // and the closure is alive (see there).
            let ran = catch_unwind(AssertUnwindSafe(|| unsafe { (*job.0)(slot) }));
            st = self.lock();
            if let Some(e) = st.jobs.iter_mut().find(|e| e.id == id) {
                e.active -= 1;
                e.panicked |= ran.is_err();
                if e.active == 0 && !e.open {
                    self.helpers_left.notify_all();
                }
            }
        }
    }
}

/// A helper's run of the job panicked (the caller's own run unwinds instead).
#[derive(Debug, PartialEq, Eq)]
pub struct HelperPanicked;

/// Run `job(0)` on the calling thread while up to `helpers` shared helper
/// threads join in, each calling `job(slot)` once with a distinct slot in
/// `1..=helpers`. Returns once the caller's run is done and every helper
/// that joined has left; slots no helper took in time are simply not run,
/// so `job` must leave nothing undone that the caller's run would not do.
pub fn broadcast(helpers: usize, job: &JobFn<'_>) -> Result<(), HelperPanicked> {
    if helpers == 0 {
        job(0);
        return Ok(());
    }
    let Some(shared) = shared() else {
        job(0);
        return Ok(());
    };
    shared.ensure_helpers(helpers);
    // Lifetime erasure: helpers dereference the erased pointer only
    // between joining the entry (under the lock, while `open`) and leaving it
    // (`active -= 1`, under the lock). `Close` runs before this function
    // returns or unwinds past `job`: under the lock it clears `open`, so no
    // helper joins afterwards, then waits until `active` is 0, so every
    // helper that joined has left. Hence no dereference outlives the borrow.
    // (The library is built with panic=abort; tests unwind, and a helper's
    // panic is caught in `serve` before it leaves the entry.)
    // SAFETY: only the lifetime changes; see the argument just above.
    let erased = ErasedJob(unsafe { std::mem::transmute::<*const JobFn<'_>, *const JobFn<'static>>(job) });
    let id = {
        let mut st = shared.lock();
        let id = st.next_id;
        st.next_id += 1;
        st.jobs.push(Entry {
            id,
            job: erased,
            slots: helpers,
            claimed: 0,
            active: 0,
            open: true,
            panicked: false,
        });
        for _ in 0..helpers.min(st.idle) {
            shared.job_published.notify_one();
        }
        id
    };
    let close = Close { shared, id };
    job(0);
    close.finish()
}

/// Closes a published job and waits for the helpers inside it, on return
/// and on unwind alike.
struct Close {
    shared: &'static Shared,
    id: u64,
}

impl Close {
    fn finish(self) -> Result<(), HelperPanicked> {
        let panicked = self.close_and_wait();
        std::mem::forget(self);
        if panicked {
            Err(HelperPanicked)
        } else {
            Ok(())
        }
    }

    /// Whether a helper panicked.
    fn close_and_wait(&self) -> bool {
        let mut st = self.shared.lock();
        let Some(at) = st.jobs.iter().position(|e| e.id == self.id) else {
            return false;
        };
        st.jobs[at].open = false;
        while st.jobs.iter().any(|e| e.id == self.id && e.active > 0) {
            st = self.shared.helpers_left.wait(st).unwrap_or_else(|p| p.into_inner());
        }
        let at = st.jobs.iter().position(|e| e.id == self.id).unwrap_or(at);
        st.jobs.swap_remove(at).panicked
    }
}

impl Drop for Close {
    fn drop(&mut self) {
        self.close_and_wait();
    }
}

/// The safe twin of [`broadcast`], which its tests compare it against:
/// the same contract (the caller runs slot 0, each helper slot runs at
/// most once, a helper's panic is reported) on scoped threads started for
/// the call, which need no lifetime erasure but cost a thread start each.
#[cfg(test)]
fn broadcast_scoped(helpers: usize, job: &JobFn<'_>) -> Result<(), HelperPanicked> {
    std::thread::scope(|s| {
        let started: Vec<_> = (1..=helpers).map(|slot| s.spawn(move || job(slot))).collect();
        job(0);
        let mut panicked = false;
        for h in started {
            panicked |= h.join().is_err();
        }
        if panicked {
            Err(HelperPanicked)
        } else {
            Ok(())
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::{AtomicUsize, Ordering};
    use std::time::Duration;

    #[test]
    fn slots_are_distinct_and_the_caller_is_slot_zero() {
        let seen: Vec<AtomicUsize> = (0..4).map(|_| AtomicUsize::new(0)).collect();
        let caller = std::thread::current().id();
        broadcast(3, &|slot| {
            assert_eq!(slot == 0, std::thread::current().id() == caller);
            seen[slot].fetch_add(1, Ordering::SeqCst);
            std::thread::sleep(Duration::from_millis(20));
        })
        .unwrap();
        assert_eq!(seen[0].load(Ordering::SeqCst), 1);
        assert!(seen.iter().all(|s| s.load(Ordering::SeqCst) <= 1));
    }

    #[test]
    fn a_helper_panic_is_reported_and_the_helper_survives() {
        let r = broadcast(1, &|slot| {
            if slot == 1 {
                panic!("helper fails");
            }
            // Give the helper time to join.
            std::thread::sleep(Duration::from_millis(50));
        });
        // The helper may not have joined in time on a busy machine.
        assert!(r.is_ok() || r == Err(HelperPanicked));
        let n = AtomicUsize::new(0);
        broadcast(1, &|_| {
            n.fetch_add(1, Ordering::SeqCst);
        })
        .unwrap();
        assert!(n.load(Ordering::SeqCst) >= 1);
    }

    /// The caller's own panic unwinds only after the helpers inside left.
    #[test]
    fn a_caller_panic_waits_for_the_helpers() {
        let inside = AtomicUsize::new(0);
        let r = catch_unwind(AssertUnwindSafe(|| {
            broadcast(1, &|slot| {
                if slot == 0 {
                    std::thread::sleep(Duration::from_millis(20));
                    panic!("caller fails");
                }
                inside.fetch_add(1, Ordering::SeqCst);
                std::thread::sleep(Duration::from_millis(50));
                inside.fetch_sub(1, Ordering::SeqCst);
            })
        }));
        assert!(r.is_err());
        assert_eq!(inside.load(Ordering::SeqCst), 0);
    }

    /// Work shared out as `Pool::run` does (items from one queue) gives
    /// the same result through `broadcast` as through its safe twin, for
    /// every helper count: each item done exactly once.
    #[test]
    fn broadcast_matches_its_scoped_twin() {
        type Broadcast = fn(usize, &JobFn<'_>) -> Result<(), HelperPanicked>;
        let run = |b: Broadcast, helpers: usize| {
            let queue = std::sync::Mutex::new(0..2000u32);
            let done: Vec<AtomicUsize> = (0..2000).map(|_| AtomicUsize::new(0)).collect();
            b(helpers, &|_slot| loop {
                let Some(i) = queue.lock().unwrap().next() else { break };
                done[i as usize].fetch_add(i as usize * 7 + 1, Ordering::SeqCst);
            })
            .unwrap();
            done.iter().map(|d| d.load(Ordering::SeqCst)).collect::<Vec<_>>()
        };
        for helpers in 0..4 {
            let twin = run(broadcast_scoped, helpers);
            assert!(twin.iter().enumerate().all(|(i, &v)| v == i * 7 + 1));
            assert_eq!(run(broadcast, helpers), twin);
        }
        assert_eq!(
            broadcast_scoped(1, &|slot| assert_eq!(slot, 0, "helper fails")),
            Err(HelperPanicked)
        );
    }
}
