//! Block-level parallelism: persistent worker threads, and per-worker
//! scratch space reused across calls.
//!
//! Work is handed out one block at a time from a shared iterator behind a
//! mutex, so each worker borrows disjoint `&mut` output slices safely.
//!
//! The calling thread is one of the workers; the others are process-wide
//! helper threads ([`helpers`]), shared by every context. A context (a
//! super-chunk, a b2nd array) is cheap to create: it never starts threads
//! of its own. Pools with the same number of workers share one set of
//! scratch space while it is free and use their own otherwise
//! ([`shared_scratch`]), so contexts used from different threads at once
//! never wait for each other's buffers.

pub mod fork_lock;
pub mod forks;
mod helpers;
mod shared_scratch;

use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, MutexGuard, TryLockError};

use super::codecs::CodecScratch;
use super::error::{Error, Result};

/// Scratch space owned by one worker.
#[derive(Default)]
pub struct WorkerScratch {
    /// Filter ping-pong buffer.
    pub a: Vec<u8>,
    /// Filter ping-pong buffer.
    pub b: Vec<u8>,
    /// Staging buffer sized by its users (block output of a parallel
    /// compression, a partially wanted block in getitem); not touched by
    /// [`WorkerScratch::reserve`], as those users take it out meanwhile.
    pub c: Vec<u8>,
    /// Prefilter/postfilter output staging.
    pub d: Vec<u8>,
    /// Codec contexts.
    pub codec: CodecScratch,
    /// The worker's number within its pool (0 for the calling thread),
    /// handed to pre/postfilters as `tid`: no two workers running at once
    /// share one, so callbacks may index per-thread state with it.
    pub tid: i32,
}

/// Bytes of the scratch area pre/postfilters get as `ttmp`: what 3.3.5
/// hands out (`thread_context->tmp_nbytes`, four extended blocks).
pub fn filter_ttmp_len(blocksize: usize, typesize: usize) -> usize {
    4 * (blocksize + 4 * typesize)
}

impl WorkerScratch {
    /// Make sure the filter ping-pong buffers `a` and `b` hold at least
    /// `n` bytes. Callers reserve only what they will use: growing writes
    /// every new byte, and a context used once (`compress_vec`) would
    /// otherwise fault in several blocks' worth of pages per call.
    pub fn reserve(&mut self, n: usize) {
        for v in [&mut self.a, &mut self.b] {
            grow_scratch(v, n);
        }
    }

    /// Make sure the prefilter/postfilter staging buffer `d` holds an
    /// output of `n` bytes followed by a `ttmp` scratch area of `ttmp` bytes.
    pub fn reserve_staging(&mut self, n: usize, ttmp: usize) {
        grow_scratch(&mut self.d, n + ttmp);
    }
}

/// Makes the scratch buffer `v` at least `n` bytes long, dropping what it
/// held. A fresh zeroed allocation rather than `resize`: big ones are
/// pages the system hands out zeroed and maps only once written, so a
/// buffer a pipeline never uses (the second ping-pong buffer with a single
/// filter) or fills only in part (a compressed block) costs no resident
/// memory, as C's malloc'ed thread scratch does not.
pub fn grow_scratch(v: &mut Vec<u8>, n: usize) {
    if v.len() < n {
        *v = vec![0u8; n];
    }
}

/// A threading backend supplied by the embedding program
/// (`blosc2_set_threads_callback`): `run(n, job)` must call `job(i)` once
/// for every `i < n`, possibly in parallel, and return when all are done.
pub type JobRunner = dyn Fn(usize, &(dyn Fn(usize) + Sync)) + Send + Sync;

/// The job runner lives in one of a few slots, each entered by one thread
/// at a time (its token in [`RUNNER_HOLDERS`], see [`forks`]) for the
/// moment it takes to read or replace it. A process forked while a thread
/// of its parent was in the slot (a rare moment, but one a lock would turn
/// into a hang: that thread is not in the child to let go) leaves the slot
/// behind and moves to the next one, which starts with no runner (the
/// library's helper threads), as the helper sets do (see `helpers`).
const RUNNER_SLOTS: usize = 8;

static RUNNERS: [Mutex<Option<Arc<JobRunner>>>; RUNNER_SLOTS] = [const { Mutex::new(None) }; RUNNER_SLOTS];

/// The token of the thread in each slot (0: none).
static RUNNER_HOLDERS: [AtomicU64; RUNNER_SLOTS] = [const { AtomicU64::new(0) }; RUNNER_SLOTS];

/// The slot in use.
static RUNNER_SLOT: AtomicUsize = AtomicUsize::new(0);

/// Run `f` on the job runner, alone; None once forks that each caught a
/// thread in a slot have used up every slot.
fn with_job_runner<R>(f: impl FnOnce(&mut Option<Arc<JobRunner>>) -> R) -> Option<R> {
    let (at, mut runner) = enter_runner_slot()?;
    let r = f(&mut runner);
    drop(runner);
    RUNNER_HOLDERS[at].store(0, Ordering::Release);
    Some(r)
}

/// Enter the slot in use: its number and its runner.
fn enter_runner_slot() -> Option<(usize, MutexGuard<'static, Option<Arc<JobRunner>>>)> {
    let me = forks::token();
    loop {
        let at = RUNNER_SLOT.load(Ordering::Acquire);
        let holder = RUNNER_HOLDERS.get(at)?;
        match holder.compare_exchange(0, me, Ordering::Acquire, Ordering::Relaxed) {
            Ok(_) => match RUNNERS[at].try_lock() {
                Ok(runner) => return Some((at, runner)),
                Err(TryLockError::Poisoned(p)) => return Some((at, p.into_inner())),
                // Only the token's holder takes the mutex, so it is free
                // unless a fork caught a thread of the parent holding it.
                Err(TryLockError::WouldBlock) => {}
            },
            // Another thread of this process, in for a moment.
            Err(other) if forks::of_this_process(other, me) => {
                std::thread::yield_now();
                continue;
            }
            // A thread of an ancestor process, caught inside by the fork.
            Err(_) => {}
        }
        let _ = RUNNER_SLOT.compare_exchange(at, at + 1, Ordering::AcqRel, Ordering::Acquire);
    }
}

/// Run parallel work through `runner` instead of the library's worker
/// threads (`None`: back to the worker threads).
pub fn set_job_runner(runner: Option<Arc<JobRunner>>) {
    // The old runner is dropped outside the slot.
    let old = with_job_runner(|slot| std::mem::replace(slot, runner));
    drop(old);
}

fn job_runner() -> Option<Arc<JobRunner>> {
    with_job_runner(|slot| slot.clone()).flatten()
}

/// `nthreads` workers for one context: the caller plus up to
/// `nthreads - 1` shared helper threads.
pub struct Pool {
    nthreads: usize,
    /// The scratch shared by the pools of this worker count (None when
    /// the registry was busy at creation).
    shared: Option<shared_scratch::Shared>,
    /// This pool's own scratch, for when the shared set is in use.
    scratch: Vec<WorkerScratch>,
    /// Staging buffers handed between workers (parallel compression).
    spare: Vec<Vec<u8>>,
}

/// A worker's scratch lent for serial work: from the shared set or the
/// pool's own.
pub enum SerialScratch<'a> {
    /// The first worker's scratch of the shared set.
    Shared(MutexGuard<'a, Vec<WorkerScratch>>),
    /// The pool's own first worker's scratch.
    Own(&'a mut WorkerScratch),
}

impl std::ops::Deref for SerialScratch<'_> {
    type Target = WorkerScratch;
    fn deref(&self) -> &WorkerScratch {
        match self {
            SerialScratch::Shared(g) => &g[0],
            SerialScratch::Own(w) => w,
        }
    }
}

impl std::ops::DerefMut for SerialScratch<'_> {
    fn deref_mut(&mut self) -> &mut WorkerScratch {
        match self {
            SerialScratch::Shared(g) => &mut g[0],
            SerialScratch::Own(w) => w,
        }
    }
}

impl Pool {
    /// A pool for `nthreads` workers (threads are started on first use).
    pub fn new(nthreads: usize) -> Pool {
        let nthreads = nthreads.max(1);
        Pool {
            nthreads,
            shared: shared_scratch::shared_set(nthreads),
            scratch: shared_scratch::fresh_set(nthreads),
            spare: Vec::new(),
        }
    }

    /// Number of workers.
    pub fn nthreads(&self) -> usize {
        self.nthreads
    }

    /// Change the number of workers.
    pub fn set_nthreads(&mut self, nthreads: usize) {
        let nthreads = nthreads.max(1);
        if nthreads != self.nthreads {
            *self = Pool::new(nthreads);
        }
    }

    /// Trade worker scratch with `other` when both have the same number
    /// of workers; whether they did. Two contexts never used at once (a
    /// super-chunk's compression and decompression contexts) can so keep
    /// one set of block buffers between them, as 3.3.5's shared thread
    /// pool keeps one per thread for every context, instead of a set each.
    pub fn trade_scratch(&mut self, other: &mut Pool) -> bool {
        if self.nthreads != other.nthreads {
            return false;
        }
        std::mem::swap(&mut self.scratch, &mut other.scratch);
        true
    }

    /// Spare staging buffers, kept across calls.
    pub fn spare_buffers(&mut self) -> &mut Vec<Vec<u8>> {
        &mut self.spare
    }

    /// The first worker's scratch, for serial work.
    pub fn serial_scratch(&mut self) -> SerialScratch<'_> {
        match shared_scratch::try_take(&self.shared) {
            Some(g) => SerialScratch::Shared(g),
            None => SerialScratch::Own(&mut self.scratch[0]),
        }
    }

    /// Run `f` on every item, on up to `nthreads` workers (serially when
    /// there is one worker or one item). Stops at the first error.
    pub fn run<T, I, F>(&mut self, nitems: usize, items: I, f: F) -> Result<()>
    where
        T: Send,
        I: Iterator<Item = T> + Send,
        F: Fn(T, &mut WorkerScratch) -> Result<()> + Sync,
    {
        let workers = self.nthreads.min(nitems);
        let mut shared = shared_scratch::try_take(&self.shared);
        let scratch: &mut Vec<WorkerScratch> = match shared.as_mut() {
            Some(g) => g,
            None => &mut self.scratch,
        };
        if workers <= 1 {
            let ws = &mut scratch[0];
            for it in items {
                f(it, ws)?;
            }
            return Ok(());
        }
        let runner = job_runner();
        let queue = Mutex::new(items);
        let failed = AtomicBool::new(false);
        let first_error: Mutex<Option<Error>> = Mutex::new(None);
        let work = |ws: &mut WorkerScratch| loop {
            if failed.load(Ordering::Relaxed) {
                break;
            }
            let next = match queue.lock() {
                Ok(mut q) => q.next(),
                Err(_) => None,
            };
            let Some(it) = next else { break };
            if let Err(e) = f(it, ws) {
                failed.store(true, Ordering::Relaxed);
                if let Ok(mut slot) = first_error.lock() {
                    slot.get_or_insert(e);
                }
                break;
            }
        };
        // One job per worker, each owning one worker's scratch (the lock is
        // never contended: a job number is run once).
        let slots: Vec<Mutex<&mut WorkerScratch>> = scratch[..workers].iter_mut().map(Mutex::new).collect();
        let job = |i: usize| {
            if let Some(slot) = slots.get(i) {
                work(&mut slot.lock().unwrap_or_else(|p| p.into_inner()));
            }
        };
        let mut helper_panicked = false;
        if let Some(runner) = runner {
            // As 3.3.5 hands its thread contexts to the callback.
            runner(workers, &job);
            // A backend that skipped jobs leaves items queued: finish them
            // here rather than return a partial result.
            job(0);
        } else {
            // The caller works through the queue as job 0; helpers that are
            // slow to start find it empty (or the job closed) and cost
            // nothing.
            helper_panicked = helpers::broadcast(workers - 1, &job).is_err();
        }
        drop(slots);
        if helper_panicked {
            return Err(Error::Failure("worker panicked"));
        }
        match first_error.into_inner() {
            Ok(Some(e)) => Err(e),
            Ok(None) => Ok(()),
            Err(_) => Err(Error::Failure("worker panicked")),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Pools of one worker count use one set of scratch while it is free,
    /// and their own while another pool holds it; other counts never share.
    /// (Worker counts no other test uses, so parallel tests cannot interfere.)
    #[test]
    fn pools_of_one_worker_count_share_scratch_while_free() {
        let mut a = Pool::new(37);
        let mut b = Pool::new(37);
        let mut other = Pool::new(38);
        grow_scratch(&mut a.serial_scratch().a, 1000);
        assert_eq!(b.serial_scratch().a.len(), 1000);
        assert_eq!(other.serial_scratch().a.len(), 0);
        {
            let _held = a.serial_scratch();
            assert_eq!(b.serial_scratch().a.len(), 0);
            // A run while the shared set is held uses the pool's own set.
            let mut out = vec![0u8; 37 * 8];
            b.run(37, out.chunks_mut(8).enumerate(), |(i, c), ws| {
                assert!(ws.tid < 37);
                c.fill(i as u8);
                Ok(())
            })
            .unwrap();
            assert!(out.chunks(8).enumerate().all(|(i, c)| c.iter().all(|&x| x == i as u8)));
        }
        assert_eq!(b.serial_scratch().a.len(), 1000);
        // The set goes with the last pool holding it.
        drop((a, b));
        assert_eq!(Pool::new(37).serial_scratch().a.len(), 0);
    }

    #[test]
    fn parallel_fills_disjoint_slices() {
        let mut pool = Pool::new(3);
        let mut out = vec![0u8; 1000];
        let n = out.chunks(100).count();
        pool.run(n, out.chunks_mut(100).enumerate(), |(i, c), _| {
            c.fill(i as u8);
            Ok(())
        })
        .unwrap();
        for (i, c) in out.chunks(100).enumerate() {
            assert!(c.iter().all(|&b| b == i as u8));
        }
        let r = pool.run(n, 0..n, |i, _| if i == 5 { Err(Error::Data("x")) } else { Ok(()) });
        assert_eq!(r, Err(Error::Data("x")));
    }

    /// Each worker carries its own number: callbacks see tids below the
    /// thread count, and a tid is never in use twice at once.
    #[test]
    fn workers_have_distinct_tids() {
        use std::sync::atomic::AtomicUsize;
        let mut pool = Pool::new(3);
        let busy: Vec<AtomicUsize> = (0..3).map(|_| AtomicUsize::new(0)).collect();
        let shared = AtomicUsize::new(0);
        pool.run(64, 0..64, |_, ws| {
            let tid = ws.tid as usize;
            assert!(tid < 3);
            if busy[tid].fetch_add(1, Ordering::SeqCst) != 0 {
                shared.fetch_add(1, Ordering::SeqCst);
            }
            std::thread::sleep(std::time::Duration::from_micros(200));
            busy[tid].fetch_sub(1, Ordering::SeqCst);
            Ok(())
        })
        .unwrap();
        assert_eq!(shared.load(Ordering::SeqCst), 0);
    }

    /// Many contexts running at once from several threads share the
    /// helpers: every item of every run is done once, and errors stay with
    /// their own run.
    #[test]
    fn many_contexts_at_once() {
        std::thread::scope(|s| {
            for t in 0..6usize {
                s.spawn(move || {
                    let mut pool = Pool::new(2 + t % 3);
                    for round in 0..50usize {
                        let mut out = vec![0u32; 64];
                        let n = out.len();
                        pool.run(n, out.iter_mut().enumerate(), |(i, v), _| {
                            *v = (i + round) as u32;
                            Ok(())
                        })
                        .unwrap();
                        assert!(out.iter().enumerate().all(|(i, &v)| v == (i + round) as u32));
                        let r = pool.run(n, 0..n, |i, _| if i == round { Err(Error::Data("x")) } else { Ok(()) });
                        assert_eq!(r, Err(Error::Data("x")));
                    }
                });
            }
        });
    }

    /// A run whose helpers are all held by another context's long run is
    /// finished by its caller alone, without waiting for them. (The only
    /// test that holds helpers for long: two such tests would wait for
    /// each other's helpers.)
    #[test]
    fn busy_helpers_do_not_delay_a_run() {
        use std::sync::atomic::AtomicUsize;
        use std::time::{Duration, Instant};
        let release = AtomicBool::new(false);
        let started = AtomicUsize::new(0);
        std::thread::scope(|s| {
            // Ends the long run after a while should the run under test wait
            // for its helpers after all (it then fails instead of hanging).
            s.spawn(|| {
                let t = Instant::now();
                while !release.load(Ordering::SeqCst) && t.elapsed() < Duration::from_secs(30) {
                    std::thread::sleep(Duration::from_millis(5));
                }
                release.store(true, Ordering::SeqCst);
            });
            s.spawn(|| {
                let mut long = Pool::new(3);
                long.run(3, 0..3, |_, _| {
                    started.fetch_add(1, Ordering::SeqCst);
                    while !release.load(Ordering::SeqCst) {
                        std::thread::sleep(Duration::from_millis(1));
                    }
                    Ok(())
                })
                .unwrap();
            });
            let t = Instant::now();
            while started.load(Ordering::SeqCst) < 3 && t.elapsed() < Duration::from_secs(20) {
                std::thread::sleep(Duration::from_millis(1));
            }
            let mut pool = Pool::new(3);
            let mut out = vec![0u8; 1000];
            pool.run(10, out.chunks_mut(100).enumerate(), |(i, c), _| {
                c.fill(i as u8 + 1);
                Ok(())
            })
            .unwrap();
            assert!(!release.swap(true, Ordering::SeqCst), "the run waited for busy helpers");
            for (i, c) in out.chunks(100).enumerate() {
                assert!(c.iter().all(|&b| b == i as u8 + 1));
            }
        });
    }

    /// Tests that set the process-wide job runner, one at a time.
    static RUNNER_TESTS: Mutex<()> = Mutex::new(());

    #[test]
    fn a_job_runner_gets_one_job_per_worker() {
        let _alone = RUNNER_TESTS.lock().unwrap_or_else(|p| p.into_inner());
        use std::sync::atomic::AtomicUsize;
        static JOBS: AtomicUsize = AtomicUsize::new(0);
        // Serial, and skipping the last job: the pool finishes its items.
        set_job_runner(Some(Arc::new(|n: usize, job: &(dyn Fn(usize) + Sync)| {
            for i in 0..n.saturating_sub(1) {
                JOBS.fetch_add(1, Ordering::SeqCst);
                job(i);
            }
        })));
        let mut pool = Pool::new(4);
        let mut out = vec![0u8; 1000];
        let r = pool.run(10, out.chunks_mut(100).enumerate(), |(i, c), _| {
            c.fill(i as u8 + 1);
            Ok(())
        });
        set_job_runner(None);
        r.unwrap();
        assert!(JOBS.load(Ordering::SeqCst) >= 3);
        for (i, c) in out.chunks(100).enumerate() {
            assert!(c.iter().all(|&b| b == i as u8 + 1));
        }
    }

    /// The job runner's slot held by a thread of an ancestor process (what
    /// a fork taken while another thread read or set the runner leaves in
    /// the child): setting and reading the runner move on to the next
    /// slot at once instead of waiting for a thread that is not there.
    #[test]
    fn a_runner_slot_left_held_by_a_fork_is_skipped() {
        let _alone = RUNNER_TESTS.lock().unwrap_or_else(|p| p.into_inner());
        let me = forks::token();
        let ancestor = me ^ (1 << 32);
        assert!(!forks::of_this_process(ancestor, me));
        let at = RUNNER_SLOT.load(Ordering::Acquire);
        // Wait out other tests' moments in the slot, then play the thread
        // the fork left behind.
        while RUNNER_HOLDERS[at]
            .compare_exchange(0, ancestor, Ordering::AcqRel, Ordering::Acquire)
            .is_err()
        {
            std::thread::yield_now();
        }
        set_job_runner(None);
        assert!(RUNNER_SLOT.load(Ordering::Acquire) > at);
        assert!(job_runner().is_none());
    }
}
