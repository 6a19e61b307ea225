//! `fork()` with the library's helper threads: the child of a process whose
//! contexts used 2 threads has none of the parent's helpers, and may have
//! been forked while one of them held the helpers' lock. Its round trips
//! must still be correct, finish (no deadlock), and run on helpers of its
//! own again. A C-API context another thread of the parent was inside at
//! the fork fails at once in the child rather than wait for that thread.
//! The same holds for every lock a C program reaches: a super-chunk another
//! thread was inside fails in the child, while the registry of
//! super-chunks, the global settings, the global functions' contexts, the
//! plugin registry and the table of memory-mapped files go on working.
//! Each child reports by exit status; the parent waits with a deadline and
//! kills a child that hangs. The tests run one at a time: one of them sets
//! the process-wide threads callback.

use std::cell::Cell;
use std::ffi::{c_int, c_void, CStr};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};
use std::thread;
use std::time::{Duration, Instant};

use blosc2::capi::b2nd::{b2nd_create_ctx, b2nd_free, b2nd_free_ctx, b2nd_from_cbuffer};
use blosc2::capi::b2nd_ops::b2nd_to_cbuffer;
use blosc2::capi::context::{blosc2_compress_ctx, blosc2_create_cctx, blosc2_free_ctx};
use blosc2::capi::global::{
    blosc1_get_compressor, blosc1_set_compressor, blosc2_compress, blosc2_decompress, blosc2_destroy,
    blosc2_get_nthreads, blosc2_init, blosc2_set_nthreads, blosc2_set_threads_callback,
};
use blosc2::capi::io_cb::{blosc2_get_io_cb, blosc2_register_io_cb};
use blosc2::capi::misc::{
    blosc2_compname_to_compcode, blosc2_get_blosc2_cparams_defaults, blosc2_get_blosc2_dparams_defaults,
    blosc2_get_blosc2_stdio_mmap_defaults,
};
use blosc2::capi::plugins::blosc2_register_codec;
use blosc2::capi::schunk::{
    blosc2_schunk_append_buffer, blosc2_schunk_decompress_chunk, blosc2_schunk_free, blosc2_schunk_new,
};
use blosc2::capi::stdio_mmap::{
    blosc2_stdio_mmap_destroy, blosc2_stdio_mmap_open, blosc2_stdio_mmap_read, blosc2_stdio_mmap_write,
};
use blosc2::capi::types::{blosc2_codec, blosc2_io_cb};
use blosc2::capi::types::{blosc2_context, blosc2_cparams, blosc2_prefilter_params};
use blosc2::capi::types_schunk::{b2nd_array_t, b2nd_context_t, blosc2_schunk, blosc2_stdio_mmap, blosc2_storage};
use blosc2::engine::constants::{codec, filter, MAX_FILTERS, MAX_OVERHEAD};
use blosc2::engine::context::Context;
use blosc2::engine::params::{CParams, DParams};
use blosc2::engine::schunk::{SChunk, Storage};

const DEADLINE: Duration = Duration::from_secs(60);
const LEN: usize = 4 << 20;

/// One test at a time (see the module comment).
fn serial() -> MutexGuard<'static, ()> {
    static SERIAL: Mutex<()> = Mutex::new(());
    SERIAL.lock().unwrap_or_else(|p| p.into_inner())
}

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

/// A thread running `round(0)`, `round(1)`, ... (made by `make` on that
/// thread) until stopped, so that forks catch it at every point of a round.
struct Busy {
    stop: Arc<AtomicBool>,
    thread: thread::JoinHandle<()>,
}

fn keep_busy<R: FnMut(u64)>(make: impl FnOnce() -> R + Send + 'static) -> Busy {
    let stop = Arc::new(AtomicBool::new(false));
    let thread = {
        let stop = stop.clone();
        thread::spawn(move || {
            let mut round = make();
            let mut k = 0;
            while !stop.load(Ordering::Relaxed) {
                round(k);
                k += 1;
            }
        })
    };
    Busy { stop, thread }
}

impl Busy {
    fn stop(self) {
        self.stop.store(true, Ordering::Relaxed);
        self.thread.join().expect("busy thread");
    }
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
    let _serial = serial();
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
    let _serial = serial();
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
    let _serial = serial();
    let busy = keep_busy(|| {
        let src = data(1 << 20, 5);
        let mut cctx = Context::compressor(cparams(2));
        let mut dctx = Context::decompressor(dparams(2));
        move |_| assert!(round_trip(&mut cctx, &mut dctx, &src))
    });
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
    busy.stop();
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
    let _serial = serial();
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

/// A point where a thread of the parent stops until let go, so that a fork
/// catches it there.
struct Gate {
    inside: AtomicBool,
    let_go: AtomicBool,
}

impl Gate {
    const fn new() -> Gate {
        Gate {
            inside: AtomicBool::new(false),
            let_go: AtomicBool::new(false),
        }
    }

    fn stop_here(&self) {
        self.inside.store(true, Ordering::SeqCst);
        while !self.let_go.load(Ordering::SeqCst) {
            thread::sleep(Duration::from_millis(1));
        }
    }

    fn wait_until_inside(&self) {
        let start = Instant::now();
        while !self.inside.load(Ordering::SeqCst) {
            assert!(start.elapsed() < DEADLINE, "the thread never reached the gate");
            thread::sleep(Duration::from_millis(1));
        }
    }

    fn open(&self) {
        self.let_go.store(true, Ordering::SeqCst);
    }
}

/// A new in-memory super-chunk of 8-byte items; `prefilter` may be None.
fn new_schunk(prefilter: Option<unsafe extern "C" fn(*mut blosc2_prefilter_params) -> c_int>) -> usize {
    let mut cp: blosc2_cparams = blosc2_get_blosc2_cparams_defaults();
    cp.typesize = 8;
    cp.nthreads = 1;
    cp.prefilter = prefilter;
    let mut dp = blosc2_get_blosc2_dparams_defaults();
    let mut storage = blosc2_storage {
        contiguous: false,
        urlpath: std::ptr::null_mut(),
        cparams: &mut cp,
        dparams: &mut dp,
        io: std::ptr::null_mut(),
    };
    // SAFETY: a valid storage for the duration of the call (it is copied).
    unsafe { blosc2_schunk_new(&mut storage) as usize }
}

/// Append `src` to the super-chunk: the chunk count or a negative code.
fn append(schunk: usize, src: &[u8]) -> i64 {
    // SAFETY: a super-chunk made by `new_schunk` (or a freed one, which
    // the library refuses) and a buffer of the size given.
    unsafe { blosc2_schunk_append_buffer(schunk as *mut blosc2_schunk, src.as_ptr().cast(), src.len() as i32) }
}

/// Whether chunk `nchunk` of the super-chunk decompresses to `want`.
fn chunk_is(schunk: usize, nchunk: i64, want: &[u8]) -> bool {
    let mut out = vec![0u8; want.len()];
    // SAFETY: as in `append`.
    let n = unsafe {
        blosc2_schunk_decompress_chunk(
            schunk as *mut blosc2_schunk,
            nchunk,
            out.as_mut_ptr().cast(),
            out.len() as i32,
        )
    };
    n == want.len() as c_int && out == want
}

fn free_schunk(schunk: usize) -> c_int {
    // SAFETY: a super-chunk made by `new_schunk`, not used afterwards.
    unsafe { blosc2_schunk_free(schunk as *mut blosc2_schunk) }
}

/// A new super-chunk gets a chunk back intact, and is freed.
fn new_schunk_round_trips(seed: u64) -> bool {
    let sc = new_schunk(None);
    let src = data(1 << 16, seed);
    sc != 0 && append(sc, &src) == 1 && chunk_is(sc, 0, &src) && free_schunk(sc) == 0
}

static SCHUNK_GATE: Gate = Gate::new();

/// A prefilter that copies its block, then stops at [`SCHUNK_GATE`].
unsafe extern "C" fn copy_and_stop(params: *mut blosc2_prefilter_params) -> c_int {
    // SAFETY: the library hands a valid params block whose `input` and
    // `output` each span `output_size` bytes.
    unsafe {
        let p = &*params;
        std::ptr::copy_nonoverlapping(p.input, p.output, p.output_size as usize);
    }
    SCHUNK_GATE.stop_here();
    0
}

/// A super-chunk another thread of the parent is appending to at the
/// fork: in the child it fails at once (it used to wait for ever), while
/// the parent's other super-chunks and new ones work.
#[test]
fn a_super_chunk_held_by_another_thread_at_the_fork_fails_in_the_child() {
    let _serial = serial();
    let other = new_schunk(None);
    let before = data(1 << 16, 20);
    assert_eq!(append(other, &before), 1);
    let held = new_schunk(Some(copy_and_stop));
    assert_ne!(held, 0);
    let user = thread::spawn(move || append(held, &data(1 << 16, 21)));
    SCHUNK_GATE.wait_until_inside();
    let status =
        in_child(|| append(held, &data(1 << 16, 22)) < 0 && chunk_is(other, 0, &before) && new_schunk_round_trips(23));
    SCHUNK_GATE.open();
    assert_eq!(user.join().expect("user thread"), 1);
    assert_eq!(free_schunk(held), 0);
    assert_eq!(free_schunk(other), 0);
    assert_eq!(
        status,
        Some(0),
        "child failed (1: the held super-chunk worked or another failed; 2: panic; None: hung)"
    );
}

/// Forks taken while one thread creates, uses and frees super-chunks and
/// another looks up a pointer that is none (which is almost all time in
/// the registry of super-chunks), so that most catch one of them inside
/// the registry: every child still finds the parent's older super-chunk
/// and makes new ones.
#[test]
fn forks_while_super_chunks_come_and_go_do_not_hang() {
    let _serial = serial();
    let old = new_schunk(None);
    let before = data(1 << 16, 30);
    assert_eq!(append(old, &before), 1);
    let busy = keep_busy(|| |k| assert!(new_schunk_round_trips(k)));
    let looking = keep_busy(|| {
        let not_a_schunk = 0u64;
        move |_| assert!(free_schunk(&not_a_schunk as *const u64 as usize) < 0)
    });
    for k in 0..20u64 {
        let status = in_child(|| chunk_is(old, 0, &before) && new_schunk_round_trips(40 + k));
        assert_eq!(
            status,
            Some(0),
            "fork {k}: child failed (1: old super-chunk lost or a new one failed; 2: panic; None: hung)"
        );
    }
    busy.stop();
    looking.stop();
    assert_eq!(free_schunk(old), 0);
}

/// A round trip through the global functions of the blosc2 API.
fn global_round_trip(seed: u64) -> bool {
    let src = data(1 << 20, seed);
    let mut comp = vec![0u8; src.len() + MAX_OVERHEAD];
    let mut back = vec![0u8; src.len()];
    // SAFETY: buffers of the sizes given.
    unsafe {
        let csize = blosc2_compress(
            5,
            1,
            8,
            src.as_ptr().cast(),
            src.len() as i32,
            comp.as_mut_ptr().cast(),
            comp.len() as i32,
        );
        csize > 0
            && blosc2_decompress(comp.as_ptr().cast(), csize, back.as_mut_ptr().cast(), back.len() as i32)
                == src.len() as c_int
            && back == src
    }
}

/// The global functions' lifecycle and a round trip, as a child uses them.
fn globals_work(seed: u64) -> bool {
    blosc2_init();
    let ok = blosc2_set_nthreads(2) >= 0 && blosc2_get_nthreads() == 2 && global_round_trip(seed);
    blosc2_destroy();
    blosc2_init();
    ok && global_round_trip(seed + 1)
}

thread_local! {
    /// Set on the thread whose global call the threads callback stops.
    static STOP_ON_THIS_THREAD: Cell<bool> = const { Cell::new(false) };
}

/// A threads callback that stops at the gate `data` points to on the
/// thread that asked for it, then runs the jobs one after the other.
unsafe extern "C" fn stop_then_run(
    data: *mut c_void,
    dojob: Option<unsafe extern "C" fn(*mut c_void)>,
    numjobs: c_int,
    elsize: usize,
    jobdata: *mut c_void,
) {
    if STOP_ON_THIS_THREAD.with(Cell::get) {
        // SAFETY: `data` is the `&'static Gate` given with the callback.
        unsafe { &*data.cast::<Gate>() }.stop_here();
    }
    let dojob = dojob.expect("dojob");
    for i in 0..numjobs as usize {
        // SAFETY: `jobdata` holds `numjobs` elements of `elsize` bytes.
        unsafe { dojob(jobdata.cast::<u8>().add(i * elsize).cast()) };
    }
}

/// Fork while another thread is inside a global compression (which holds
/// the global functions' contexts, as C-Blosc2's global lock): the child
/// uses the global functions all the same.
fn fork_during_a_global_compression(gate: &'static Gate, compress: fn(u64) -> bool) {
    let _serial = serial();
    // SAFETY: a callback honouring the contract; `gate` lives for ever.
    unsafe { blosc2_set_threads_callback(Some(stop_then_run), (gate as *const Gate).cast_mut().cast()) };
    assert!(blosc2_set_nthreads(2) >= 0);
    let user = thread::spawn(move || {
        STOP_ON_THIS_THREAD.with(|s| s.set(true));
        compress(50)
    });
    gate.wait_until_inside();
    let status = in_child(|| globals_work(51));
    gate.open();
    let user_ok = user.join().expect("user thread");
    // SAFETY: back to the library's helper threads.
    unsafe { blosc2_set_threads_callback(None, std::ptr::null_mut()) };
    blosc2_set_nthreads(1);
    assert!(user_ok, "the parent's round trip failed");
    assert_eq!(
        status,
        Some(0),
        "child failed (1: a global call failed; 2: panic; None: hung)"
    );
}

static GLOBAL_GATE: Gate = Gate::new();

#[test]
fn a_child_forked_during_a_global_compression_uses_the_global_functions() {
    fork_during_a_global_compression(&GLOBAL_GATE, global_round_trip);
}

/// Forks taken while another thread changes and reads the global settings
/// (so some catch it inside them): every child finds the settings made
/// before and uses the global functions.
#[test]
fn forks_while_the_global_settings_change_do_not_hang() {
    let _serial = serial();
    // SAFETY: a NUL-terminated name.
    assert!(unsafe { blosc1_set_compressor(c"lz4".as_ptr()) } >= 0);
    let busy = keep_busy(|| {
        |k| {
            blosc2_set_nthreads(1 + (k % 2) as i16);
            assert!(blosc2_get_nthreads() >= 1);
            // SAFETY: a NUL-terminated name.
            assert!(unsafe { blosc1_set_compressor(c"lz4".as_ptr()) } >= 0);
        }
    });
    for k in 0..20u64 {
        let status = in_child(|| {
            // SAFETY: the library's static codec name, or NULL.
            let name = unsafe { blosc1_get_compressor().as_ref().map(|p| CStr::from_ptr(p)) };
            name == Some(c"lz4") && globals_work(60 + 2 * k)
        });
        assert_eq!(
            status,
            Some(0),
            "fork {k}: child failed (1: settings lost or a global call failed; 2: panic; None: hung)"
        );
    }
    busy.stop();
    // SAFETY: a NUL-terminated name.
    unsafe { blosc1_set_compressor(c"blosclz".as_ptr()) };
    blosc2_set_nthreads(1);
}

/// A 2-D b2nd array of f64 holding `src` (64 x 128 items): its address,
/// 0 on failure. Its context is made and freed around it.
fn new_array(src: &[u8]) -> usize {
    let mut cp: blosc2_cparams = blosc2_get_blosc2_cparams_defaults();
    cp.typesize = 8;
    let mut dp = blosc2_get_blosc2_dparams_defaults();
    let storage = blosc2_storage {
        contiguous: false,
        urlpath: std::ptr::null_mut(),
        cparams: &mut cp,
        dparams: &mut dp,
        io: std::ptr::null_mut(),
    };
    let (shape, chunkshape, blockshape) = ([64i64, 128], [32i32, 64], [16i32, 32]);
    // SAFETY: valid storage and shapes of `ndim` entries; the context is
    // freed below and the array returned to the caller.
    unsafe {
        let ctx: *mut b2nd_context_t = b2nd_create_ctx(
            &storage,
            2,
            shape.as_ptr(),
            chunkshape.as_ptr(),
            blockshape.as_ptr(),
            c"<f8".as_ptr(),
            0,
            std::ptr::null(),
            0,
        );
        if ctx.is_null() {
            return 0;
        }
        let mut array: *mut b2nd_array_t = std::ptr::null_mut();
        let rc = b2nd_from_cbuffer(ctx, &mut array, src.as_ptr().cast(), src.len() as i64);
        b2nd_free_ctx(ctx);
        if rc < 0 {
            0
        } else {
            array as usize
        }
    }
}

/// Whether the array holds `want`.
fn array_is(array: usize, want: &[u8]) -> bool {
    let mut out = vec![0u8; want.len()];
    // SAFETY: an array made by `new_array` and a buffer of the size given.
    let rc = unsafe { b2nd_to_cbuffer(array as *const b2nd_array_t, out.as_mut_ptr().cast(), out.len() as i64) };
    rc >= 0 && out == want
}

fn free_array(array: usize) -> c_int {
    // SAFETY: an array made by `new_array`, not used afterwards.
    unsafe { b2nd_free(array as *mut b2nd_array_t) }
}

/// A new array gets its items back, and is freed.
fn new_array_round_trips(seed: u64) -> bool {
    let src = data(64 * 128 * 8, seed);
    let a = new_array(&src);
    a != 0 && array_is(a, &src) && free_array(a) == 0
}

/// Forks taken while another thread makes, reads and frees b2nd arrays
/// and contexts (so some catch it inside their tables): every child still
/// reads the parent's older array and makes new ones.
#[test]
fn forks_while_arrays_come_and_go_do_not_hang() {
    let _serial = serial();
    let before = data(64 * 128 * 8, 70);
    let old = new_array(&before);
    assert_ne!(old, 0);
    let busy = keep_busy(|| |k| assert!(new_array_round_trips(k)));
    for k in 0..20u64 {
        let status = in_child(|| array_is(old, &before) && new_array_round_trips(80 + k));
        assert_eq!(
            status,
            Some(0),
            "fork {k}: child failed (1: old array lost or a new one failed; 2: panic; None: hung)"
        );
    }
    busy.stop();
    assert_eq!(free_array(old), 0);
}

/// Forks taken while another thread looks up I/O backends (almost all
/// time in their table): every child finds the backend registered before
/// and registers one of its own.
#[test]
fn forks_while_io_backends_are_looked_up_do_not_hang() {
    let _serial = serial();
    blosc2_init();
    let backend = |id: u8, name: &'static CStr| blosc2_io_cb {
        id,
        name: name.as_ptr().cast_mut(),
        is_allocation_necessary: false,
        open: None,
        close: None,
        size: None,
        write: None,
        read: None,
        truncate: None,
        destroy: None,
    };
    // SAFETY: a valid struct whose name is a static C string.
    assert_eq!(unsafe { blosc2_register_io_cb(&backend(200, c"fork-test-parent")) }, 0);
    let busy = keep_busy(|| |_| assert!(!blosc2_get_io_cb(200).is_null()));
    for k in 0..20u8 {
        let status = in_child(|| {
            // SAFETY: as above.
            let registered = unsafe { blosc2_register_io_cb(&backend(201 + k, c"fork-test-child")) } == 0;
            registered && !blosc2_get_io_cb(200).is_null() && !blosc2_get_io_cb(201 + k).is_null()
        });
        assert_eq!(
            status,
            Some(0),
            "fork {k}: child failed (1: a backend lost or not registered; 2: panic; None: hung)"
        );
    }
    busy.stop();
}

/// Forks taken while another thread looks up plugin codecs by name: every
/// child finds 3.3.5's built-in names and registers a codec of its own
/// (before, a lookup caught by the fork left the registry's read lock
/// held for ever and the child's registration waited on it).
#[test]
fn forks_while_plugin_codecs_are_looked_up_do_not_hang() {
    let _serial = serial();
    blosc2_init();
    // SAFETY: a static NUL-terminated name.
    let ndlz = || unsafe { blosc2_compname_to_compcode(c"ndlz".as_ptr()) };
    let expected = ndlz();
    assert!(expected > 0);
    let busy = keep_busy(move || move |_| assert_eq!(ndlz(), expected));
    for k in 0..20u8 {
        let status = in_child(|| {
            let name = std::ffi::CString::new(format!("fork-codec-{k}")).expect("no NUL");
            let mut codec = blosc2_codec {
                compcode: 200 + k,
                compname: name.as_ptr().cast_mut(),
                complib: 200 + k,
                version: 1,
                encoder: None,
                decoder: None,
            };
            // SAFETY: a valid struct with a NUL-terminated name; the
            // callbacks are never called.
            let registered = unsafe { blosc2_register_codec(&mut codec) } == 0;
            // SAFETY: as above.
            let found = unsafe { blosc2_compname_to_compcode(name.as_ptr()) };
            registered && found == c_int::from(200 + k) && ndlz() == expected
        });
        assert_eq!(
            status,
            Some(0),
            "fork {k}: child failed (1: a codec lost or not registered; 2: panic; None: hung)"
        );
    }
    busy.stop();
}

/// Forks taken while another thread reads a memory-mapped file: every
/// child maps a file of its own, writes and reads it back.
#[test]
fn forks_while_a_mapped_file_is_read_do_not_hang() {
    let _serial = serial();
    let dir = std::env::temp_dir().join(format!("blosc2-fork-mmap-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let parent_path = std::ffi::CString::new(dir.join("parent.bin").to_str().expect("utf-8")).expect("no NUL");
    std::fs::write(dir.join("parent.bin"), [7u8; 4096]).expect("write");
    let mut parent = Box::new(blosc2_get_blosc2_stdio_mmap_defaults());
    parent.mode = c"r".as_ptr();
    let parent_at = &mut *parent as *mut blosc2_stdio_mmap as usize;
    // SAFETY: a valid struct and path.
    let opened = unsafe { blosc2_stdio_mmap_open(parent_path.as_ptr(), c"r".as_ptr(), parent_at as *mut c_void) };
    assert!(!opened.is_null());
    let busy = keep_busy(move || {
        move |_| {
            let mut at: *mut c_void = std::ptr::null_mut();
            // SAFETY: the struct opened above, alive until after `stop`.
            let n = unsafe { blosc2_stdio_mmap_read(&mut at, 1, 16, 8, parent_at as *mut c_void) };
            assert_eq!(n, 16);
        }
    });
    for k in 0..20 {
        let path = dir.join(format!("child-{k}.bin"));
        let status = in_child(|| {
            let cpath = std::ffi::CString::new(path.to_str().expect("utf-8")).expect("no NUL");
            let mut s = blosc2_get_blosc2_stdio_mmap_defaults();
            s.mode = c"w+".as_ptr();
            let sp = &mut s as *mut blosc2_stdio_mmap as *mut c_void;
            let data = [k as u8; 64];
            let mut at: *mut c_void = std::ptr::null_mut();
            // SAFETY: a valid struct, path and buffers; destroyed once.
            unsafe {
                let ok = !blosc2_stdio_mmap_open(cpath.as_ptr(), c"w+".as_ptr(), sp).is_null()
                    && blosc2_stdio_mmap_write(data.as_ptr().cast(), 1, 64, 0, sp) == 64
                    && blosc2_stdio_mmap_read(&mut at, 1, 64, 0, sp) == 64
                    && std::slice::from_raw_parts(at.cast::<u8>(), 64) == data;
                blosc2_stdio_mmap_destroy(sp) == 0 && ok
            }
        });
        assert_eq!(
            status,
            Some(0),
            "fork {k}: child failed (1: the mapping failed; 2: panic; None: hung)"
        );
    }
    busy.stop();
    // SAFETY: the struct opened above; not used again.
    assert_eq!(unsafe { blosc2_stdio_mmap_destroy(parent_at as *mut c_void) }, 0);
    let _ = std::fs::remove_dir_all(&dir);
}

/// Forks taken while another thread builds recordio transformer chains
/// (a registry lookup each): every child still builds them and registers
/// a transformer of its own.
#[test]
fn forks_while_recordio_transformers_are_looked_up_do_not_hang() {
    use blosc2::recordio::{register_transformer, registered_transformers, Chain, TransformFn};
    let _serial = serial();
    let zstd = || Chain::forward(&["zstd 1".to_owned()]).is_ok();
    assert!(zstd());
    let busy = keep_busy(move || move |_| assert!(zstd()));
    for k in 0..20 {
        let status = in_child(|| {
            let name = format!("fork-transform-{k}");
            let identity: TransformFn = std::sync::Arc::new(|parts: &[&[u8]]| Ok(parts.concat()));
            let factory = std::sync::Arc::new(move |_: &str| Ok(identity.clone()));
            let registered = register_transformer(&name, factory.clone(), factory).is_ok();
            registered && registered_transformers().contains(&name) && zstd()
        });
        assert_eq!(
            status,
            Some(0),
            "fork {k}: child failed (1: a transformer lost or not registered; 2: panic; None: hung)"
        );
    }
    busy.stop();
}
