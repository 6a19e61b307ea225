//! `fork()` with the library's helper threads: the child of a process whose
//! contexts used 2 threads has none of the parent's helpers, and may have
//! been forked while one of them held the helpers' lock. Its round trips
//! must still be correct, finish (no deadlock), and run on helpers of its
//! own again. A C-API context another thread of the parent was inside at
//! the fork fails at once in the child rather than wait for that thread.
//! Each child reports by exit status; the parent waits with a deadline and
//! kills a child that hangs.

use std::ffi::c_int;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::thread;
use std::time::{Duration, Instant};

use blosc2::capi::context::{blosc2_compress_ctx, blosc2_create_cctx, blosc2_free_ctx};
use blosc2::capi::misc::blosc2_get_blosc2_cparams_defaults;
use blosc2::capi::types::{blosc2_context, blosc2_prefilter_params};
use blosc2::engine::constants::{codec, filter, MAX_FILTERS, MAX_OVERHEAD};
use blosc2::engine::context::Context;
use blosc2::engine::params::{CParams, DParams};
use blosc2::engine::schunk::{SChunk, Storage};

const DEADLINE: Duration = Duration::from_secs(60);
const LEN: usize = 4 << 20;

/// Compressible float-like bytes, different for every `seed`.
fn data(len: usize, seed: u64) -> Vec<u8> {
    (0..len / 8)
        .flat_map(|i| (((i as f64 + seed as f64) * 1e-3).sin() * 100.0).to_le_bytes())
        .collect()
}

fn cparams(nthreads: i16) -> CParams {
    let mut cp = CParams {
        compcode: codec::LZ4,
        clevel: 5,
        typesize: 8,
        nthreads,
        ..CParams::default()
    };
    cp.filters[MAX_FILTERS - 1] = filter::SHUFFLE;
    cp
}

fn dparams(nthreads: i16) -> DParams {
    DParams {
        nthreads,
        ..DParams::default()
    }
}

/// Compress and decompress `src` with the given contexts; whether the bytes
/// came back.
fn round_trip(cctx: &mut Context, dctx: &mut Context, src: &[u8]) -> bool {
    let mut comp = vec![0u8; src.len() + MAX_OVERHEAD];
    let Ok(csize) = cctx.compress(src, &mut comp) else {
        return false;
    };
    let mut back = vec![0u8; src.len()];
    csize > 0 && dctx.decompress(&comp[..csize], &mut back).ok() == Some(src.len()) && back == src
}

/// Threads of this process, from /proc.
fn thread_count() -> usize {
    std::fs::read_dir("/proc/self/task").map(|d| d.count()).unwrap_or(0)
}

/// Fork; the child runs `work` and exits with 0 when it returns true, 1
/// when false, 2 when it panicked. The parent waits for it up to the
/// deadline (killing it then) and returns its exit status, or None when it
/// did not finish in time.
fn in_child(work: impl FnOnce() -> bool) -> Option<i32> {
    // SAFETY: the child only runs `work` (the library and the allocator,
    // which glibc keeps usable after fork) and leaves with `_exit`, never
    // returning into the test harness.
    let pid = unsafe { libc::fork() };
    assert!(pid >= 0, "fork failed");
    if pid == 0 {
        let code = match std::panic::catch_unwind(std::panic::AssertUnwindSafe(work)) {
            Ok(true) => 0,
            Ok(false) => 1,
            Err(_) => 2,
        };
        // SAFETY: ends the child without running the parent's atexit
        // handlers or the harness.
        unsafe { libc::_exit(code) };
    }
    let start = Instant::now();
    loop {
        let mut status = 0;
        // SAFETY: waits for our own child; `status` is a valid out-pointer.
        let r = unsafe { libc::waitpid(pid, &mut status, libc::WNOHANG) };
        if r == pid {
            return Some(if libc::WIFEXITED(status) {
                libc::WEXITSTATUS(status)
            } else {
                -1
            });
        }
        assert_eq!(r, 0, "waitpid failed");
        if start.elapsed() > DEADLINE {
            // SAFETY: kills and reaps our own child.
            unsafe {
                libc::kill(pid, libc::SIGKILL);
                libc::waitpid(pid, &mut status, 0);
            }
            return None;
        }
        thread::sleep(Duration::from_millis(5));
    }
}

/// The parent compressed with 2 threads (its helpers run); the child, with
/// new contexts of 2 threads, gets the right bytes back and helper threads
/// of its own.
#[test]
fn a_child_round_trips_on_its_own_helpers() {
    let src = data(LEN, 1);
    assert!(round_trip(
        &mut Context::compressor(cparams(2)),
        &mut Context::decompressor(dparams(2)),
        &src
    ));
    let status = in_child(|| {
        let ok = round_trip(
            &mut Context::compressor(cparams(2)),
            &mut Context::decompressor(dparams(2)),
            &data(LEN, 2),
        );
        // The forking thread is the child's only thread until the library
        // starts a helper for it.
        ok && thread_count() >= 2
    });
    assert_eq!(
        status,
        Some(0),
        "child failed (1: wrong bytes or no helper; 2: panic; None: hung)"
    );
}

/// The python-style case: contexts and a super-chunk made and used with
/// 2 threads in the parent, used again by the child.
#[test]
fn a_child_uses_the_parents_contexts() {
    let src = data(LEN, 3);
    let mut cctx = Context::compressor(cparams(2));
    let mut dctx = Context::decompressor(dparams(2));
    assert!(round_trip(&mut cctx, &mut dctx, &src));
    let mut sc = SChunk::new(Storage {
        contiguous: false,
        urlpath: None,
        cparams: cparams(2),
        dparams: dparams(2),
        fs: None,
    })
    .expect("schunk");
    sc.append_buffer(&src).expect("append");
    let status = in_child(move || {
        let more = data(LEN, 4);
        if !round_trip(&mut cctx, &mut dctx, &more) || sc.append_buffer(&more).is_err() {
            return false;
        }
        let mut out = vec![0u8; LEN];
        [&src, &more]
            .iter()
            .enumerate()
            .all(|(k, want)| sc.decompress_chunk(k as i64, &mut out).ok() == Some(LEN) && out == **want)
    });
    assert_eq!(status, Some(0), "child failed (1: wrong bytes; 2: panic; None: hung)");
}

/// Forks taken while another thread keeps the helpers busy, so that some
/// catch a helper holding the helpers' lock: every child must finish its
/// round trip (a child that waited on that lock would hang).
#[test]
fn forks_during_parallel_work_do_not_hang() {
    let stop = Arc::new(AtomicBool::new(false));
    let busy = {
        let stop = stop.clone();
        thread::spawn(move || {
            let src = data(1 << 20, 5);
            let mut cctx = Context::compressor(cparams(2));
            let mut dctx = Context::decompressor(dparams(2));
            while !stop.load(Ordering::Relaxed) {
                assert!(round_trip(&mut cctx, &mut dctx, &src));
            }
        })
    };
    for k in 0..20u64 {
        let status = in_child(|| {
            round_trip(
                &mut Context::compressor(cparams(2)),
                &mut Context::decompressor(dparams(2)),
                &data(1 << 20, 10 + k),
            )
        });
        assert_eq!(
            status,
            Some(0),
            "fork {k}: child failed (1: wrong bytes; 2: panic; None: hung)"
        );
    }
    stop.store(true, Ordering::Relaxed);
    busy.join().expect("busy thread");
}

/// Set by the prefilter of the test below once it is inside a call.
static PREFILTER_INSIDE: AtomicBool = AtomicBool::new(false);
/// Lets that prefilter (and so its call) finish.
static PREFILTER_LET_GO: AtomicBool = AtomicBool::new(false);

/// A prefilter that copies its block, then waits until let go: the call
/// around it holds the context meanwhile.
unsafe extern "C" fn copy_and_hold(params: *mut blosc2_prefilter_params) -> c_int {
    // SAFETY: the library hands a valid params block whose `input` and
    // `output` each span `output_size` bytes.
    unsafe {
        let p = &*params;
        std::ptr::copy_nonoverlapping(p.input, p.output, p.output_size as usize);
    }
    PREFILTER_INSIDE.store(true, Ordering::SeqCst);
    while !PREFILTER_LET_GO.load(Ordering::SeqCst) {
        thread::sleep(Duration::from_millis(1));
    }
    0
}

/// A C-API context in use by another thread of the parent when it forks:
/// in the child that thread is gone and never lets go of the context, so
/// using it fails at once (it used to wait forever), while a new context
/// works.
#[test]
fn a_context_held_by_another_thread_at_the_fork_fails_in_the_child() {
    let mut cp = blosc2_get_blosc2_cparams_defaults();
    cp.typesize = 4;
    cp.nthreads = 1;
    cp.prefilter = Some(copy_and_hold);
    // SAFETY: valid parameters; the context is freed below.
    let held = unsafe { blosc2_create_cctx(cp) } as usize;
    assert_ne!(held, 0);
    let compress = |ctx: usize| {
        let src = data(1 << 16, 6);
        let mut dst = vec![0u8; src.len() + MAX_OVERHEAD];
        // SAFETY: a live context and buffers of the sizes given.
        unsafe {
            blosc2_compress_ctx(
                ctx as *mut blosc2_context,
                src.as_ptr().cast(),
                src.len() as i32,
                dst.as_mut_ptr().cast(),
                dst.len() as i32,
            )
        }
    };
    let user = thread::spawn(move || compress(held));
    while !PREFILTER_INSIDE.load(Ordering::SeqCst) {
        thread::sleep(Duration::from_millis(1));
    }
    let status = in_child(|| {
        let mut fresh = blosc2_get_blosc2_cparams_defaults();
        fresh.typesize = 4;
        // SAFETY: valid parameters; freed right after.
        let ctx = unsafe { blosc2_create_cctx(fresh) } as usize;
        let ok = ctx != 0 && compress(ctx) > 0;
        // SAFETY: created just above.
        unsafe { blosc2_free_ctx(ctx as *mut blosc2_context) };
        compress(held) < 0 && ok
    });
    PREFILTER_LET_GO.store(true, Ordering::SeqCst);
    assert!(user.join().expect("user thread") > 0);
    // SAFETY: created above, no longer in use.
    unsafe { blosc2_free_ctx(held as *mut blosc2_context) };
    assert_eq!(
        status,
        Some(0),
        "child failed (1: the held context worked or a new one failed; 2: panic; None: hung)"
    );
}
