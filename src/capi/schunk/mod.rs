//! Super-chunks (`blosc2_schunk_*`): creation, copies, chunk edits and
//! reads, parameters and special fills.
//!
//! # Handles
//!
//! A `blosc2_schunk*` given to C points to a `calloc`ed
//! [`blosc2_schunk`] whose public fields C programs read directly. The
//! engine [`SChunk`] behind it lives in a side table ([`REGISTRY`]) keyed by
//! that address, together with what the handle owns on the C heap; a
//! pointer that is not in the table is refused with an error code instead
//! of being dereferenced. Each handle has its own mutex: calls on one
//! super-chunk from several threads are serialized, and a pre/postfilter
//! that calls back into the API with the super-chunk it is running for
//! gets `BLOSC2_ERROR_FAILURE` instead of a deadlock.
//!
//! Every call on an on-disk super-chunk first picks up changes another
//! handle or process made to the frame ([`State::follow_disk`], a header
//! read), as 3.3.5 does on chunk and vlmetalayer accesses.
//!
//! After every call [`State::sync`] copies the counters (`nchunks`,
//! `nbytes`, `cbytes`, `chunksize`, `blocksize`, `flags2`,
//! `current_nchunk`, `frame`) from the engine into the public struct, and
//! [`State::sync_metas`] keeps `metalayers`/`vlmetalayers` populated with
//! `malloc`ed names and contents for the header's inline `blosc2_meta_get`
//! and `blosc2_meta_exists`. The compression parameters of the public
//! struct (`typesize`, `compcode`, `filters`, ...) are written once, when
//! the handle is made, so that C code adjusting them (as python-blosc2
//! does) keeps its values.
//!
//! `frame` is NULL for an in-memory super-chunk without frame and an opaque
//! non-NULL marker otherwise (as in 3.3.5, C code only tests it); `data`
//! stays NULL (chunks are reached through `blosc2_schunk_get_chunk`).
//! `cctx`/`dctx` are real contexts whose params point back to the
//! super-chunk, and they are used as in 3.3.5: `decompress_chunk` and
//! `get_vlblock` always go through `schunk->dctx`; slices and sparse reads
//! go through it when it has a postfilter; `append_buffer` and
//! `set_slice_buffer` compress through `schunk->cctx` when it has a
//! prefilter or parameters other than the super-chunk's (a context swapped
//! in by the caller, environment overrides). Otherwise the engine does the
//! work (same results; it also reproduces 3.3.5's block sizes across
//! chunks).

use std::collections::BTreeMap;
use std::ffi::{c_char, c_int, c_void};
use std::ptr;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, MutexGuard, TryLockError};

use crate::engine::chunk::{self, SpecialKind};
use crate::engine::constants::{blosc2_flags, EXTENDED_HEADER_LENGTH, MAX_OVERHEAD};
use crate::engine::frame::FrameKind;
use crate::engine::params::CParams;
use crate::engine::schunk::{SChunk, Storage};

use super::alloc::malloc_cstring;
use super::boundary::{
    blosc1_chunk_len, bytes, bytes_mut, c_str, code_of, ffi_boundary, put, ERR_FAILURE, ERR_INVALID_PARAM,
    ERR_MEMORY_ALLOC, ERR_NULL_POINTER, ERR_READ_BUFFER, ERR_WRITE_BUFFER, SUCCESS,
};
use super::context::{
    blosc2_compress_ctx, blosc2_context, blosc2_create_cctx, blosc2_create_dctx, blosc2_ctx_get_cparams,
    blosc2_ctx_get_dparams, blosc2_decompress_ctx, blosc2_free_ctx, ctx_ref,
};
use super::convert::{cctx_setup, dctx_setup, CPARAMS_DEFAULTS, DPARAMS_DEFAULTS};
use super::types::{blosc2_cparams, blosc2_dparams, blosc2_io};
use super::types_schunk::{blosc2_frame, blosc2_metalayer, blosc2_schunk, blosc2_storage};
use super::vl::blosc2_vldecompress_block_ctx;

/// `BLOSC2_ERROR_SCHUNK_SPECIAL`.
const ERR_SCHUNK_SPECIAL: c_int = -29;
/// `BLOSC2_IO_FILESYSTEM`.
const IO_FILESYSTEM: u8 = 0;
/// `BLOSC2_IO_FILESYSTEM_MMAP`.
const IO_FILESYSTEM_MMAP: u8 = 1;

// ---------------------------------------------------------------------------
// C heap helpers
// ---------------------------------------------------------------------------

/// A `malloc`ed copy of `value` (NULL when allocation fails).
pub(crate) fn malloc_value<T: Copy>(value: T) -> *mut T {
    // SAFETY: malloc has no preconditions; the result is checked.
    let p = unsafe { libc::malloc(std::mem::size_of::<T>().max(1)) }.cast::<T>();
    if !p.is_null() {
        // SAFETY: `p` is a fresh allocation large and aligned enough for T
        // (malloc aligns for every fundamental type).
        unsafe { p.write(value) };
    }
    p
}

/// A `malloc`ed copy of `data` (at least one byte is allocated, so the
/// pointer is NULL only when allocation fails).
pub(crate) fn malloc_bytes(data: &[u8]) -> *mut u8 {
    // SAFETY: malloc has no preconditions; the result is checked.
    let p = unsafe { libc::malloc(data.len().max(1)) }.cast::<u8>();
    if !p.is_null() {
        // SAFETY: `p` holds `data.len()` bytes, disjoint from `data`.
        unsafe { ptr::copy_nonoverlapping(data.as_ptr(), p, data.len()) };
    }
    p
}

/// `free()` a pointer handed out by the helpers above (NULL is fine).
fn cfree<T>(p: *mut T) {
    // SAFETY: NULL or a pointer from malloc/calloc, freed once by callers.
    unsafe { libc::free(p.cast()) };
}

/// A C error code as the `int64_t` some functions return.
fn code64(c: c_int) -> i64 {
    i64::from(c)
}

/// An engine error as a C code.
fn ecode(e: crate::engine::error::Error) -> c_int {
    code_of(&e)
}

// ---------------------------------------------------------------------------
// The handle registry
// ---------------------------------------------------------------------------

/// What the registry keeps for one `blosc2_schunk*`.
pub(crate) struct Handle {
    state: Mutex<State>,
    /// Token of the thread inside `state` (0 = none).
    owner: AtomicUsize,
}

/// Live handles, keyed by the address of their public struct.
static REGISTRY: Mutex<BTreeMap<usize, Arc<Handle>>> = Mutex::new(BTreeMap::new());

fn registry() -> MutexGuard<'static, BTreeMap<usize, Arc<Handle>>> {
    REGISTRY.lock().unwrap_or_else(|p| p.into_inner())
}

thread_local! {
    static THREAD_TOKEN: u8 = const { 0 };
}

/// A non-zero number unique to the calling thread while it lives.
fn thread_token() -> usize {
    THREAD_TOKEN.with(|t| t as *const u8 as usize)
}

/// Exclusive use of a handle's state.
pub(crate) struct Guard<'a> {
    guard: MutexGuard<'a, State>,
    owner: &'a AtomicUsize,
}

impl std::ops::Deref for Guard<'_> {
    type Target = State;
    fn deref(&self) -> &State {
        &self.guard
    }
}

impl std::ops::DerefMut for Guard<'_> {
    fn deref_mut(&mut self) -> &mut State {
        &mut self.guard
    }
}

impl Drop for Guard<'_> {
    fn drop(&mut self) {
        self.owner.store(0, Ordering::Release);
    }
}

impl Handle {
    /// The state, or `ERR_FAILURE` when this thread is already inside it
    /// (a callback re-entering the API), or when the handle was freed
    /// while this call waited.
    pub(crate) fn lock(&self) -> Result<Guard<'_>, c_int> {
        let me = thread_token();
        let guard = match self.state.try_lock() {
            Ok(g) => g,
            Err(TryLockError::Poisoned(p)) => p.into_inner(),
            Err(TryLockError::WouldBlock) => {
                if self.owner.load(Ordering::Acquire) == me {
                    return Err(ERR_FAILURE);
                }
                self.state.lock().unwrap_or_else(|p| p.into_inner())
            }
        };
        self.owner.store(me, Ordering::Release);
        let g = Guard {
            guard,
            owner: &self.owner,
        };
        if g.freed {
            return Err(ERR_NULL_POINTER);
        }
        Ok(g)
    }
}

/// The handle of `schunk`: `ERR_NULL_POINTER` for NULL,
/// `ERR_INVALID_PARAM` for a pointer that is not a live super-chunk.
pub(crate) fn lookup(schunk: *const blosc2_schunk) -> Result<Arc<Handle>, c_int> {
    if schunk.is_null() {
        return Err(ERR_NULL_POINTER);
    }
    registry().get(&(schunk as usize)).cloned().ok_or(ERR_INVALID_PARAM)
}

/// Run `f` on the locked state of `schunk`, then re-sync the public
/// counters.
pub(crate) fn with_state<T>(
    schunk: *const blosc2_schunk,
    f: impl FnOnce(&mut State) -> Result<T, c_int>,
) -> Result<T, c_int> {
    let h = lookup(schunk)?;
    let mut g = h.lock()?;
    // With opt-in file locking every call holds the frame lock, as 3.3.5
    // does around its frame accesses (exclusive: it also bumps the
    // generation counter other handles watch).
    let locked = !g.freed && g.sc.locking();
    if locked {
        g.sc.lock().map_err(|e| e.code())?;
    }
    g.follow_disk();
    let r = f(&mut g);
    if locked && !g.freed {
        let _ = g.sc.unlock();
    }
    g.sync();
    r
}

// ---------------------------------------------------------------------------
// Per-handle state
// ---------------------------------------------------------------------------

/// A super-chunk handle: the engine object and what it owns on the C heap.
pub(crate) struct State {
    /// The engine super-chunk.
    pub(crate) sc: SChunk,
    /// The public struct (calloc'ed, address = registry key).
    public: *mut blosc2_schunk,
    /// `blosc2_schunk_from_buffer(copy = false)`: the caller's frame, freed
    /// with the handle when `avoid_cframe_free` is turned off.
    user_cframe: *mut u8,
    avoid_cframe_free: bool,
    /// Set once `blosc2_schunk_free` released everything.
    freed: bool,
}

// SAFETY: the raw pointers are C-heap allocations owned by this state (or
// the caller's frame buffer, which C code may free from any thread); the
// state is only reached through the handle's mutex. The engine super-chunk
// is plain owned data.
unsafe impl Send for State {}

impl State {
    /// The public struct.
    pub(crate) fn public(&mut self) -> &mut blosc2_schunk {
        // SAFETY: `public` is our live calloc'ed struct while the state is
        // not freed (every caller holds the lock and checked `freed`).
        unsafe { &mut *self.public }
    }

    /// The public struct's address.
    pub(crate) fn public_ptr(&self) -> *mut blosc2_schunk {
        self.public
    }

    /// `blosc2_schunk_avoid_cframe_free`: only super-chunks with a frame
    /// record it (it matters for a caller's buffer from
    /// `blosc2_schunk_from_buffer`).
    pub(crate) fn set_avoid_cframe_free(&mut self, avoid: bool) {
        if self.sc.frame().is_some() {
            self.avoid_cframe_free = avoid;
        }
    }

    /// Pick up what another handle (or process) changed in a disk frame
    /// since this one last read or wrote it, as 3.3.5 does on its chunk
    /// and vlmetalayer accesses. Returns whether anything changed; a frame
    /// that cannot be read right now keeps its cached state.
    pub(crate) fn follow_disk(&mut self) -> bool {
        if self.freed || !self.sc.on_disk() {
            return false;
        }
        match self.sc.refresh_if_changed() {
            Ok(true) => {
                let _ = self.sync_metas();
                true
            }
            _ => false,
        }
    }

    /// Copy the engine counters into the public struct.
    pub(crate) fn sync(&mut self) {
        if self.freed {
            return;
        }
        let marker = if self.sc.frame().is_some() {
            // Opaque, non-NULL, never dereferenced by C.
            self.public.cast::<blosc2_frame>()
        } else {
            ptr::null_mut()
        };
        let (nchunks, nbytes, cbytes) = (self.sc.nchunks(), self.sc.nbytes(), self.sc.cbytes());
        let (chunksize, blocksize, flags2) = (self.sc.chunksize(), self.sc.blocksize(), self.sc.flags2());
        let current = self.sc.current_nchunk();
        let contiguous = self.sc.contiguous();
        let p = self.public();
        p.nchunks = nchunks;
        p.nbytes = nbytes;
        p.cbytes = cbytes;
        p.chunksize = chunksize;
        p.blocksize = blocksize;
        p.flags2 = flags2;
        p.current_nchunk = current;
        p.frame = marker;
        if !p.storage.is_null() {
            // SAFETY: our malloc'ed storage, alive with the handle.
            unsafe { (*p.storage).contiguous = contiguous };
        }
    }

    /// Make the public metalayer arrays match the engine: entries whose
    /// name and length are unchanged are updated in place (pointers stay
    /// valid, as with 3.3.5's `blosc2_meta_update`), others are rebuilt
    /// with `malloc`ed names and contents.
    pub(crate) fn sync_metas(&mut self) -> Result<(), c_int> {
        let metas: Vec<(String, Vec<u8>)> = self.sc.metalayers().to_vec();
        let mut vlmetas = Vec::new();
        for name in self.sc.vlmeta_names() {
            let raw = self.sc.vlmeta_raw(&name).map_err(ecode)?.to_vec();
            vlmetas.push((name, raw));
        }
        let p = self.public();
        let n = reconcile(&mut p.metalayers[..], usize::from(p.nmetalayers), &metas)?;
        p.nmetalayers = n as u16;
        let nvl = usize::try_from(p.nvlmetalayers).unwrap_or(0);
        let nvl = reconcile(&mut p.vlmetalayers[..], nvl, &vlmetas)?;
        p.nvlmetalayers = nvl as i16;
        p.change_tick += 1;
        Ok(())
    }
}

impl State {
    /// Whether `schunk->cctx` compresses exactly as the engine does (same
    /// parameters, no prefilter): then the engine's own path is used,
    /// which also reproduces 3.3.5's block sizes across chunks.
    pub(crate) fn plain_cctx(&mut self) -> bool {
        let cctx = self.public().cctx;
        cctx_matches_engine(cctx, &self.sc.cparams())
    }

    /// Whether `schunk->dctx` decompresses exactly as the engine does (no
    /// postfilter).
    pub(crate) fn plain_dctx(&mut self) -> bool {
        let dctx = self.public().dctx;
        ctx_dparams(dctx).is_some_and(|d| d.postfilter.is_none())
    }

    /// Compress `data` with `schunk->cctx` as chunk `nchunk` (what 3.3.5
    /// does in every super-chunk function that compresses).
    pub(crate) fn compress_with_cctx(&mut self, data: &[u8], nchunk: i64) -> Result<Vec<u8>, c_int> {
        let cctx = self.public().cctx;
        // A prefilter reads it during the call.
        self.public().current_nchunk = nchunk;
        let nbytes = i32::try_from(data.len()).map_err(|_| super::boundary::ERR_MAX_BUFSIZE_EXCEEDED)?;
        let cap = data.len() + MAX_OVERHEAD;
        let mut out = vec![0u8; cap];
        // SAFETY: buffers of the sizes given; the context is validated by
        // blosc2_compress_ctx.
        let cb = unsafe {
            blosc2_compress_ctx(
                cctx,
                data.as_ptr().cast(),
                nbytes,
                out.as_mut_ptr().cast(),
                i32::try_from(cap).unwrap_or(i32::MAX),
            )
        };
        if cb < 0 {
            return Err(cb);
        }
        if cb == 0 {
            return Err(ERR_WRITE_BUFFER);
        }
        out.truncate(cb as usize);
        Ok(out)
    }

    /// Decompress chunk `nchunk` with `schunk->dctx` into `dest` (`nbytes`
    /// bytes). Returns the chunk's size.
    ///
    /// # Safety
    /// `dest` must be NULL or writable for `nbytes` bytes.
    pub(crate) unsafe fn decompress_with_dctx(
        &mut self,
        nchunk: i64,
        dest: *mut c_void,
        nbytes: i32,
    ) -> Result<i32, c_int> {
        let framed = self.sc.frame().is_some();
        let dctx = self.public().dctx;
        let public = self.public;
        let c = self.sc.get_chunk(nchunk).map_err(ecode)?;
        let (chunk_nbytes, chunk_cbytes, _) = chunk::cbuffer_sizes(&c).map_err(ecode)?;
        if chunk_nbytes > nbytes {
            return Err(if framed { ERR_WRITE_BUFFER } else { ERR_INVALID_PARAM });
        }
        if chunk_cbytes as usize > c.len() {
            return Err(ERR_READ_BUFFER);
        }
        if dest.is_null() && chunk_nbytes > 0 {
            return Err(ERR_NULL_POINTER);
        }
        // A postfilter reads it during the call.
        // SAFETY: our live public struct (the lock is held).
        unsafe { (*public).current_nchunk = nchunk };
        // SAFETY: `c` holds `chunk_cbytes` bytes; `dest` writable for
        // `nbytes` bytes per the contract.
        let got = unsafe { blosc2_decompress_ctx(dctx, c.as_ptr().cast(), chunk_cbytes, dest, nbytes) };
        if got < 0 {
            return Err(got);
        }
        if got != chunk_nbytes {
            return Err(ERR_FAILURE);
        }
        Ok(got)
    }

    /// Chunk `nchunk` decompressed with `schunk->dctx` into a new vector.
    pub(crate) fn decompress_vec_with_dctx(&mut self, nchunk: i64) -> Result<Vec<u8>, c_int> {
        let n = self.sc.chunk_nbytes(nchunk).map_err(ecode)?;
        let mut out = vec![0u8; usize::try_from(n).map_err(|_| ERR_FAILURE)?];
        // SAFETY: `out` holds `n` bytes.
        let got = unsafe { self.decompress_with_dctx(nchunk, out.as_mut_ptr().cast(), n) }?;
        out.truncate(got as usize);
        Ok(out)
    }
}

/// Update `slots[..old]` to hold `want`; returns the new count.
fn reconcile(slots: &mut [*mut blosc2_metalayer], old: usize, want: &[(String, Vec<u8>)]) -> Result<usize, c_int> {
    let old = old.min(slots.len());
    let new = want.len().min(slots.len());
    for (i, slot) in slots.iter_mut().enumerate().take(old.max(new)) {
        let keep = i < new && i < old && {
            let m = *slot;
            !m.is_null() && {
                // SAFETY: a live entry we malloc'ed.
                let e = unsafe { &*m };
                // SAFETY: our malloc'ed NUL-terminated name (or NULL).
                let name = unsafe { c_str(e.name) };
                name == Some(want[i].0.as_str()) && e.content_len as usize == want[i].1.len()
            }
        };
        if keep {
            // SAFETY: checked live entry of the same length.
            let e = unsafe { &mut **slot };
            if !want[i].1.is_empty() && !e.content.is_null() {
                // SAFETY: `content` holds `content_len` bytes.
                unsafe { ptr::copy_nonoverlapping(want[i].1.as_ptr(), e.content, want[i].1.len()) };
            }
            continue;
        }
        free_metalayer(*slot);
        *slot = ptr::null_mut();
        if i < new {
            *slot = new_metalayer(&want[i].0, &want[i].1).ok_or(ERR_MEMORY_ALLOC)?;
        }
    }
    Ok(new)
}

fn new_metalayer(name: &str, content: &[u8]) -> Option<*mut blosc2_metalayer> {
    let cname = malloc_cstring(name);
    let data = malloc_bytes(content);
    let m = malloc_value(blosc2_metalayer {
        name: cname,
        content: data,
        content_len: content.len() as i32,
    });
    if cname.is_null() || data.is_null() || m.is_null() {
        cfree(cname);
        cfree(data);
        cfree(m);
        return None;
    }
    Some(m)
}

fn free_metalayer(m: *mut blosc2_metalayer) {
    if m.is_null() {
        return;
    }
    // SAFETY: a live entry we malloc'ed, freed once.
    let e = unsafe { &*m };
    cfree(e.name);
    cfree(e.content);
    cfree(m);
}

/// What a new handle is made of, besides its engine object.
pub(crate) struct Init {
    /// The parameters recorded in `storage->cparams` (and used for `cctx`).
    pub cparams: blosc2_cparams,
    /// The parameters recorded in `storage->dparams` (and used for `dctx`).
    pub dparams: blosc2_dparams,
    /// `storage->io`.
    pub io: blosc2_io,
    /// `storage->urlpath`.
    pub urlpath: Option<String>,
    /// The caller's frame buffer (`blosc2_schunk_from_buffer(copy = false)`).
    pub user_cframe: *mut u8,
}

impl Init {
    /// Parameters 3.3.5 derives from an opened frame (`frame_to_schunk`):
    /// `blosc2_schunk_get_cparams`/`get_dparams` of the new super-chunk.
    pub(crate) fn from_engine(sc: &SChunk, urlpath: Option<String>) -> Init {
        let nthreads = super::global::blosc2_get_nthreads();
        Init {
            cparams: blosc2_cparams {
                compcode: sc.compcode(),
                compcode_meta: sc.compcode_meta(),
                clevel: sc.clevel(),
                use_dict: c_int::from(sc.use_dict()),
                typesize: sc.typesize(),
                nthreads,
                blocksize: sc.blocksize(),
                splitmode: sc.splitmode(),
                schunk: ptr::null_mut(),
                filters: sc.filters(),
                filters_meta: sc.filters_meta(),
                prefilter: None,
                preparams: ptr::null_mut(),
                tuner_params: ptr::null_mut(),
                tuner_id: 0,
                instr_codec: false,
                codec_params: ptr::null_mut(),
                filter_params: [ptr::null_mut(); 6],
            },
            dparams: blosc2_dparams {
                nthreads,
                schunk: ptr::null_mut(),
                postfilter: None,
                postparams: ptr::null_mut(),
                typesize: 0,
            },
            io: io_defaults(),
            urlpath,
            user_cframe: ptr::null_mut(),
        }
    }
}

/// `BLOSC2_IO_DEFAULTS`.
pub(crate) fn io_defaults() -> blosc2_io {
    blosc2_io {
        id: IO_FILESYSTEM,
        name: c"filesystem".as_ptr(),
        params: ptr::null_mut(),
    }
}

/// Whether file locking is asked for, as 3.3.5 decides it: the filesystem
/// backend with `blosc2_stdio_params.locking` set, or a `BLOSC_LOCKING`
/// environment variable that is neither empty nor "0".
///
/// # Safety
/// `io.params` must be NULL or point to a valid `blosc2_stdio_params` when
/// `io.id` is the filesystem backend.
pub(crate) unsafe fn locking_requested(io: &blosc2_io) -> bool {
    if io.id != IO_FILESYSTEM {
        return false;
    }
    let params = io.params.cast::<super::types_schunk::blosc2_stdio_params>();
    // SAFETY: NULL or a valid stdio params struct per the contract.
    if !params.is_null() && unsafe { (*params).locking } {
        return true;
    }
    std::env::var_os("BLOSC_LOCKING").is_some_and(|v| !v.is_empty() && v != "0")
}

/// Whether an I/O backend is one this library serves with plain file
/// access: the filesystem, or memory-mapped files in modes `r`, `r+` and
/// `w+` (same results). User-defined backends and the copy-on-write `c`
/// mode (whose changes must not reach the file) are not supported.
///
/// # Safety
/// For the mmap backend, `io.params` must be NULL or point to a valid
/// `blosc2_stdio_mmap`.
pub(crate) unsafe fn io_supported(io: &blosc2_io) -> bool {
    match io.id {
        IO_FILESYSTEM => true,
        IO_FILESYSTEM_MMAP => {
            let params = io.params.cast::<super::types_schunk::blosc2_stdio_mmap>();
            if params.is_null() {
                return true;
            }
            // SAFETY: a valid mmap params struct per the contract.
            let mode = unsafe { c_str((*params).mode) };
            matches!(mode, None | Some("r" | "r+" | "w+"))
        }
        _ => false,
    }
}

/// Wrap an engine super-chunk into a new handle. NULL when the contexts
/// cannot be created (undefined filters, tuners) or memory runs out.
pub(crate) fn register(mut sc: SChunk, init: Init) -> *mut blosc2_schunk {
    // SAFETY: `init.io` is the caller's io struct, whose params are valid
    // for the duration of the creating call.
    if unsafe { locking_requested(&init.io) } {
        sc.enable_locking();
    }
    // SAFETY: calloc has no preconditions; the result is checked. All-zero
    // bytes are a valid blosc2_schunk (NULL pointers, zero counters).
    let public = unsafe { libc::calloc(1, std::mem::size_of::<blosc2_schunk>()) }.cast::<blosc2_schunk>();
    if public.is_null() {
        return ptr::null_mut();
    }
    let mut cparams = init.cparams;
    let mut dparams = init.dparams;
    cparams.schunk = public.cast();
    dparams.schunk = public.cast();
    // SAFETY: plain parameter structs; pre/postfilter params are copied.
    let cctx = unsafe { blosc2_create_cctx(cparams) };
    // SAFETY: as above.
    let dctx = unsafe { blosc2_create_dctx(dparams) };
    let urlpath = init.urlpath.as_deref().map_or(ptr::null_mut(), malloc_cstring);
    let storage = malloc_value(blosc2_storage {
        contiguous: sc.contiguous(),
        urlpath,
        cparams: malloc_value(cparams),
        dparams: malloc_value(dparams),
        io: malloc_value(init.io),
    });
    let storage_ok = !storage.is_null() && {
        // SAFETY: fresh allocation.
        let s = unsafe { &*storage };
        !s.cparams.is_null()
            && !s.dparams.is_null()
            && !s.io.is_null()
            && (init.urlpath.is_none() || !urlpath.is_null())
    };
    if cctx.is_null() || dctx.is_null() || !storage_ok {
        // SAFETY: NULL or our fresh contexts.
        unsafe {
            blosc2_free_ctx(cctx);
            blosc2_free_ctx(dctx);
        }
        free_storage(storage);
        if storage.is_null() {
            cfree(urlpath);
        }
        cfree(public);
        return ptr::null_mut();
    }
    {
        // SAFETY: our fresh, exclusively owned struct.
        let p = unsafe { &mut *public };
        p.version = 0;
        p.compcode = cparams.compcode;
        p.compcode_meta = cparams.compcode_meta;
        p.clevel = cparams.clevel;
        p.splitmode = cparams.splitmode as u8;
        p.typesize = cparams.typesize;
        p.use_dict = u8::from(cparams.use_dict != 0);
        p.filters = cparams.filters;
        p.filters_meta = cparams.filters_meta;
        p.tuner_params = cparams.tuner_params;
        p.tuner_id = cparams.tuner_id;
        p.storage = storage;
        p.cctx = cctx;
        p.dctx = dctx;
        p.view = false;
    }
    let mut st = State {
        sc,
        public,
        user_cframe: init.user_cframe,
        avoid_cframe_free: true,
        freed: false,
    };
    st.sync();
    if st.sync_metas().is_err() {
        release(&mut st);
        return ptr::null_mut();
    }
    st.public().change_tick = 0;
    let h = Arc::new(Handle {
        state: Mutex::new(st),
        owner: AtomicUsize::new(0),
    });
    registry().insert(public as usize, h);
    public
}

fn free_storage(s: *mut blosc2_storage) {
    if s.is_null() {
        return;
    }
    // SAFETY: our malloc'ed storage, freed once.
    let st = unsafe { &*s };
    cfree(st.urlpath);
    cfree(st.cparams);
    cfree(st.dparams);
    cfree(st.io);
    cfree(s);
}

/// Release everything a state owns on the C heap (the engine object is
/// dropped with the state).
fn release(st: &mut State) {
    if st.freed {
        return;
    }
    let p = st.public();
    for m in p.metalayers.iter_mut().chain(p.vlmetalayers.iter_mut()) {
        free_metalayer(*m);
        *m = ptr::null_mut();
    }
    // SAFETY: NULL or live contexts (ours, or ones the caller swapped in,
    // which 3.3.5 frees here too).
    unsafe {
        blosc2_free_ctx(p.cctx);
        blosc2_free_ctx(p.dctx);
    }
    cfree(p.blockshape);
    free_storage(p.storage);
    if !st.user_cframe.is_null() && !st.avoid_cframe_free {
        cfree(st.user_cframe);
    }
    st.user_cframe = ptr::null_mut();
    cfree(st.public);
    st.freed = true;
}

// ---------------------------------------------------------------------------
// Storage from C
// ---------------------------------------------------------------------------

/// A `blosc2_storage` read from C: the engine storage and the handle's
/// initial C-side parameters.
pub(crate) struct CStorage {
    pub engine: Storage,
    pub init: Init,
}

/// Read a storage; `None` where 3.3.5 gives NULL (undefined filters, a
/// tuner, an unknown I/O backend) or for a non-UTF-8 path. `fallback`
/// supplies the engine and C compression parameters when
/// `storage->cparams` is NULL (the defaults for a new super-chunk).
///
/// # Safety
/// `storage` must be NULL or point to a valid `blosc2_storage` whose
/// non-NULL pointers are valid.
pub(crate) unsafe fn read_storage(
    storage: *const blosc2_storage,
    fallback: Option<(CParams, blosc2_cparams)>,
) -> Option<CStorage> {
    if storage.is_null() {
        return None;
    }
    // SAFETY: valid per the contract.
    let s = unsafe { &*storage };
    let urlpath = if s.urlpath.is_null() {
        None
    } else {
        // SAFETY: NUL-terminated per the contract.
        Some(crate::engine::frame::io::normalize_urlpath(unsafe { c_str(s.urlpath) }?).to_string())
    };
    if urlpath.as_deref() == Some("") {
        return None;
    }
    let (engine_cp, cparams) = if s.cparams.is_null() {
        match fallback {
            Some(f) => f,
            None => (cctx_setup(&CPARAMS_DEFAULTS)?.engine, CPARAMS_DEFAULTS),
        }
    } else {
        // SAFETY: valid per the contract.
        let cp = unsafe { *s.cparams };
        (cctx_setup(&cp)?.engine, cp)
    };
    let dparams = if s.dparams.is_null() {
        DPARAMS_DEFAULTS
    } else {
        // SAFETY: valid per the contract.
        unsafe { *s.dparams }
    };
    let io = if s.io.is_null() {
        io_defaults()
    } else {
        // SAFETY: valid per the contract.
        unsafe { *s.io }
    };
    // SAFETY: the io struct's params are valid per the contract.
    if !unsafe { io_supported(&io) } {
        return None;
    }
    let engine = Storage {
        contiguous: s.contiguous,
        urlpath: urlpath.clone(),
        cparams: engine_cp,
        dparams: dctx_setup(&dparams).engine,
        fs: None,
    };
    Some(CStorage {
        engine,
        init: Init {
            cparams,
            dparams,
            io,
            urlpath,
            user_cframe: ptr::null_mut(),
        },
    })
}

// ---------------------------------------------------------------------------
// Lazy chunks handed to the decompression functions
// ---------------------------------------------------------------------------

/// True when the 32 bytes at `head` are the header of a lazy chunk.
fn is_lazy_header(head: &[u8]) -> bool {
    head.len() >= EXTENDED_HEADER_LENGTH && {
        let extended = head[2] & 0x05 == 0x05;
        let bf = head[31];
        extended && bf & blosc2_flags::LAZY_CHUNK != 0 && (bf >> 4) & 0x07 == 0
    }
}

/// Whether `full` is the chunk the lazy chunk `lazy` was made from: same
/// header (but for the lazy bit) and, when stored compressed, same block
/// starts.
fn lazy_matches(lazy: &[u8], full: &[u8]) -> bool {
    if full.len() < EXTENDED_HEADER_LENGTH || lazy[..31] != full[..31] {
        return false;
    }
    if lazy[31] & !blosc2_flags::LAZY_CHUNK != full[31] & !blosc2_flags::LAZY_CHUNK {
        return false;
    }
    let Ok(h) = chunk::read_header(full) else {
        return false;
    };
    if h.memcpyed() {
        return true;
    }
    let nblocks = if h.vl_blocks() {
        h.blocksize.max(0) as usize
    } else {
        (h.nbytes.max(0) as usize).div_ceil(h.blocksize.max(1) as usize)
    };
    let end = EXTENDED_HEADER_LENGTH + 4 * nblocks;
    end <= lazy.len() && end <= full.len() && lazy[EXTENDED_HEADER_LENGTH..end] == full[EXTENDED_HEADER_LENGTH..end]
}

/// The chunk number the lazy chunk `lazy` of a disk frame stands for (its
/// trailer holds the chunk number, or the chunk file id for sparse frames).
fn lazy_nchunk(st: &mut State, lazy: &[u8]) -> Option<i64> {
    let h = chunk::read_header(lazy).ok()?;
    let nblocks = if h.vl_blocks() {
        usize::try_from(h.blocksize).ok()?
    } else {
        (h.nbytes.max(0) as usize).div_ceil(h.blocksize.max(1) as usize)
    };
    let at = nblocks.checked_mul(4)?.checked_add(EXTENDED_HEADER_LENGTH)?;
    let id = i64::from(i32::from_le_bytes(lazy.get(at..at.checked_add(4)?)?.try_into().ok()?));
    let n = match st.sc.frame()?.kind() {
        FrameKind::Sparse { .. } => st.sc.offsets().ok()?.iter().position(|&o| o == id)? as i64,
        _ => id,
    };
    (0..st.sc.nchunks()).contains(&n).then_some(n)
}

/// The chunk behind a lazy chunk of the super-chunk in `st`: complete, or
/// with only the blocks holding the uncompressed bytes `range` (start,
/// length) read from disk.
fn resolve_in(st: &mut State, lazy: &[u8], range: Option<(i64, i64)>) -> Option<Vec<u8>> {
    if !matches!(
        st.sc.frame().map(|f| f.kind()),
        Some(FrameKind::File { .. } | FrameKind::Sparse { .. })
    ) {
        return None;
    }
    let part = range.and_then(|(s, l)| Some((usize::try_from(s).ok()?, usize::try_from(l).ok()?)));
    let full = match part {
        Some((s, l)) if l > 0 => {
            let n = lazy_nchunk(st, lazy)?;
            st.sc.lazy_chunk_for(n, s, l).ok()?
        }
        _ => st.sc.resolve_lazychunk(lazy).ok()?,
    };
    lazy_matches(lazy, &full).then_some(full)
}

/// When `src` holds a lazy chunk (from `blosc2_schunk_get_lazychunk`), the
/// chunk it stands for, read from the super-chunk `schunk` (the
/// `dparams.schunk` of the context used), or from whichever live on-disk
/// super-chunk it belongs to when `schunk` is NULL (the global API). With
/// a `range` of uncompressed bytes (start, length) only the blocks holding
/// them are read (the others are left zeroed). `Ok(None)` for any other
/// chunk.
///
/// # Safety
/// `src` must be NULL or readable for `srcsize` bytes.
pub(crate) unsafe fn resolve_lazy(
    src: *const c_void,
    srcsize: i32,
    schunk: *mut c_void,
    range: Option<(i64, i64)>,
) -> Result<Option<Vec<u8>>, c_int> {
    if src.is_null() || srcsize < EXTENDED_HEADER_LENGTH as i32 {
        return Ok(None);
    }
    // SAFETY: readable for `srcsize` bytes per the contract.
    let lazy = unsafe { std::slice::from_raw_parts(src.cast::<u8>(), srcsize as usize) };
    if !is_lazy_header(lazy) {
        return Ok(None);
    }
    let handles: Vec<Arc<Handle>> = if schunk.is_null() {
        registry().values().cloned().collect()
    } else {
        vec![lookup(schunk.cast())?]
    };
    for h in handles {
        let Ok(mut g) = h.lock() else { continue };
        let r = resolve_in(&mut g, lazy, range);
        g.sync();
        if let Some(full) = r {
            return Ok(Some(full));
        }
    }
    Err(ERR_INVALID_PARAM)
}

/// The uncompressed byte range of `nitems` items from item `start` of the
/// chunk at `src` (typesize from its header), for [`resolve_lazy`].
///
/// # Safety
/// `src` must be NULL or readable for `srcsize` bytes.
pub(crate) unsafe fn item_range(src: *const c_void, srcsize: i32, start: i64, nitems: i64) -> Option<(i64, i64)> {
    if src.is_null() || srcsize < EXTENDED_HEADER_LENGTH as i32 {
        return None;
    }
    // SAFETY: readable for `srcsize` bytes per the contract.
    let head = unsafe { std::slice::from_raw_parts(src.cast::<u8>(), EXTENDED_HEADER_LENGTH) };
    let ts = i64::from(chunk::read_header(head).ok()?.effective_typesize() as u32);
    Some((start.checked_mul(ts)?, nitems.checked_mul(ts)?))
}

// ---------------------------------------------------------------------------
// Creation, copies, release
// ---------------------------------------------------------------------------

/// Create a new super-chunk with `storage` (NULL pointers inside it take
/// their defaults). A `urlpath` makes it persistent: a contiguous frame
/// file, or a sparse frame directory when `contiguous` is false; neither
/// may exist yet. Works without `blosc2_init`. Returns NULL for a NULL
/// storage, parameters 3.3.5 refuses (undefined filters, tuners), a
/// user-defined I/O backend, or a path that cannot be created.
///
/// # Safety
/// `storage` must be NULL or point to a valid `blosc2_storage`.
#[no_mangle]
pub unsafe extern "C" fn blosc2_schunk_new(storage: *mut blosc2_storage) -> *mut blosc2_schunk {
    ffi_boundary!(ptr::null_mut(), {
        // SAFETY: valid per the contract.
        let Some(cs) = (unsafe { read_storage(storage, None) }) else {
            return ptr::null_mut();
        };
        match SChunk::new(cs.engine) {
            Ok(sc) => {
                let mut init = cs.init;
                init.urlpath = sc.urlpath().map(str::to_string);
                register(sc, init)
            }
            Err(_) => ptr::null_mut(),
        }
    })
}

/// Copy a super-chunk into a new one with `storage` (its `cparams` NULL =
/// the source's parameters). Chunks are copied as they are when the
/// parameters match, recompressed otherwise; metalayers and vlmetalayers
/// are copied. Returns NULL on any failure.
///
/// # Safety
/// `schunk` must be NULL or a live super-chunk; `storage` NULL or valid.
#[no_mangle]
pub unsafe extern "C" fn blosc2_schunk_copy(
    schunk: *mut blosc2_schunk,
    storage: *mut blosc2_storage,
) -> *mut blosc2_schunk {
    ffi_boundary!(ptr::null_mut(), {
        let r = with_state(schunk, |st| {
            let fallback_c = public_cparams(st);
            let fallback = Some((st.sc.cparams(), fallback_c));
            // SAFETY: valid per the contract.
            let cs = unsafe { read_storage(storage, fallback) }.ok_or(ERR_INVALID_PARAM)?;
            let new = st.sc.copy(cs.engine).map_err(ecode)?;
            let mut init = cs.init;
            init.urlpath = new.urlpath().map(str::to_string);
            Ok((new, init))
        });
        match r {
            Ok((new, init)) => register(new, init),
            Err(_) => ptr::null_mut(),
        }
    })
}

/// The compression parameters recorded in the public struct, as
/// `blosc2_schunk_get_cparams` reports them (threads from `cctx`).
fn public_cparams(st: &mut State) -> blosc2_cparams {
    let public = st.public_ptr();
    let p = st.public();
    let nthreads = ctx_cparams(p.cctx).map_or(1, |c| c.nthreads);
    blosc2_cparams {
        compcode: p.compcode,
        compcode_meta: p.compcode_meta,
        clevel: p.clevel,
        use_dict: c_int::from(p.use_dict),
        typesize: p.typesize,
        nthreads,
        blocksize: p.blocksize,
        splitmode: c_int::from(p.splitmode),
        schunk: public.cast(),
        filters: p.filters,
        filters_meta: p.filters_meta,
        prefilter: None,
        preparams: ptr::null_mut(),
        tuner_params: ptr::null_mut(),
        tuner_id: 0,
        instr_codec: false,
        codec_params: ptr::null_mut(),
        filter_params: [ptr::null_mut(); 6],
    }
}

/// The parameters of a context, `None` when it is not a live context.
fn ctx_cparams(ctx: *mut blosc2_context) -> Option<blosc2_cparams> {
    // SAFETY: NULL or a context pointer taken from the public struct.
    unsafe { ctx_ref(ctx) }?;
    let mut cp = CPARAMS_DEFAULTS;
    // SAFETY: a live context and a writable struct.
    (unsafe { blosc2_ctx_get_cparams(ctx, &mut cp) } == SUCCESS).then_some(cp)
}

fn ctx_dparams(ctx: *mut blosc2_context) -> Option<blosc2_dparams> {
    // SAFETY: NULL or a context pointer taken from the public struct.
    unsafe { ctx_ref(ctx) }?;
    let mut dp = DPARAMS_DEFAULTS;
    // SAFETY: a live context and a writable struct.
    (unsafe { blosc2_ctx_get_dparams(ctx, &mut dp) } == SUCCESS).then_some(dp)
}

/// Release a super-chunk: its contexts, storage, metalayers, `blockshape`
/// and, for a frame taken over with `blosc2_schunk_avoid_cframe_free(...,
/// false)`, the caller's frame buffer. Returns 0, or a negative code for
/// NULL or a pointer that is not a live super-chunk.
///
/// # Safety
/// `schunk` must be NULL or a live super-chunk, not used afterwards.
#[no_mangle]
pub unsafe extern "C" fn blosc2_schunk_free(schunk: *mut blosc2_schunk) -> c_int {
    ffi_boundary!(ERR_FAILURE, {
        if schunk.is_null() {
            return ERR_NULL_POINTER;
        }
        let Some(h) = registry().remove(&(schunk as usize)) else {
            return ERR_INVALID_PARAM;
        };
        let mut g = match h.lock() {
            Ok(g) => g,
            Err(code) => return code,
        };
        release(&mut g);
        SUCCESS
    })
}

// ---------------------------------------------------------------------------
// Chunk edits
// ---------------------------------------------------------------------------

/// The caller's chunk at `chunk`, sized from its header.
///
/// # Safety
/// `chunk` must be NULL or point to a whole chunk.
unsafe fn chunk_slice<'a>(chunk: *const u8) -> Result<&'a [u8], c_int> {
    if chunk.is_null() {
        return Err(ERR_NULL_POINTER);
    }
    // SAFETY: a whole chunk per the contract.
    let len = unsafe { blosc1_chunk_len(chunk.cast()) };
    // SAFETY: `len` readable bytes per the contract.
    unsafe { bytes(chunk.cast(), len as i64) }.map_err(|e| e.code())
}

/// Run a chunk edit; with `copy == false` the super-chunk owns the
/// caller's chunk, as in 3.3.5, so it is freed once the edit succeeded.
///
/// # Safety
/// `chunk` must be NULL or a whole chunk (malloc'ed when `copy` is false).
unsafe fn chunk_edit(
    schunk: *mut blosc2_schunk,
    chunk: *mut u8,
    copy: bool,
    f: impl FnOnce(&mut SChunk, &[u8]) -> crate::engine::error::Result<i64>,
) -> i64 {
    // SAFETY: forwarded contract.
    let c = match unsafe { chunk_slice(chunk) } {
        Ok(c) => c,
        Err(code) => return code64(code),
    };
    match with_state(schunk, |st| f(&mut st.sc, c).map_err(ecode)) {
        Ok(n) => {
            if !copy {
                cfree(chunk);
            }
            n
        }
        Err(code) => code64(code),
    }
}

/// Append a compressed chunk. With `copy` false the super-chunk takes
/// ownership of `chunk` (a `malloc`ed buffer, freed here once appended).
/// Returns the new number of chunks or a negative code.
///
/// # Safety
/// `schunk` must be NULL or live; `chunk` NULL or a whole chunk.
#[no_mangle]
pub unsafe extern "C" fn blosc2_schunk_append_chunk(schunk: *mut blosc2_schunk, chunk: *mut u8, copy: bool) -> i64 {
    ffi_boundary!(code64(ERR_FAILURE), {
        // SAFETY: forwarded contract.
        unsafe { chunk_edit(schunk, chunk, copy, |sc, c| sc.append_chunk(c)) }
    })
}

/// Insert a compressed chunk before position `nchunk` (0..=nchunks).
/// Ownership of `chunk` as in `blosc2_schunk_append_chunk`. Returns the new
/// number of chunks or a negative code.
///
/// # Safety
/// `schunk` must be NULL or live; `chunk` NULL or a whole chunk.
#[no_mangle]
pub unsafe extern "C" fn blosc2_schunk_insert_chunk(
    schunk: *mut blosc2_schunk,
    nchunk: i64,
    chunk: *mut u8,
    copy: bool,
) -> i64 {
    ffi_boundary!(code64(ERR_FAILURE), {
        // SAFETY: forwarded contract.
        unsafe { chunk_edit(schunk, chunk, copy, |sc, c| sc.insert_chunk(nchunk, c)) }
    })
}

/// Replace chunk `nchunk`. Ownership of `chunk` as in
/// `blosc2_schunk_append_chunk`. Returns the number of chunks or a
/// negative code.
///
/// # Safety
/// `schunk` must be NULL or live; `chunk` NULL or a whole chunk.
#[no_mangle]
pub unsafe extern "C" fn blosc2_schunk_update_chunk(
    schunk: *mut blosc2_schunk,
    nchunk: i64,
    chunk: *mut u8,
    copy: bool,
) -> i64 {
    ffi_boundary!(code64(ERR_FAILURE), {
        // SAFETY: forwarded contract.
        unsafe { chunk_edit(schunk, chunk, copy, |sc, c| sc.update_chunk(nchunk, c)) }
    })
}

/// Remove chunk `nchunk`. Returns the new number of chunks or a negative
/// code.
///
/// # Safety
/// `schunk` must be NULL or a live super-chunk.
#[no_mangle]
pub unsafe extern "C" fn blosc2_schunk_delete_chunk(schunk: *mut blosc2_schunk, nchunk: i64) -> i64 {
    ffi_boundary!(code64(ERR_FAILURE), {
        with_state(schunk, |st| st.sc.delete_chunk(nchunk).map_err(ecode)).unwrap_or_else(code64)
    })
}

/// Whether `cctx` compresses exactly as the engine would with `cp`
/// (same parameters, no prefilter).
fn cctx_matches_engine(cctx: *mut blosc2_context, cp: &CParams) -> bool {
    let Some(c) = ctx_cparams(cctx) else {
        return false;
    };
    c.prefilter.is_none()
        && c.compcode == cp.compcode
        && c.compcode_meta == cp.compcode_meta
        && c.clevel == cp.clevel
        && (c.use_dict != 0) == cp.use_dict
        && c.typesize == cp.typesize
        && c.blocksize == cp.blocksize
        && c.splitmode == cp.splitmode
        && c.filters == cp.filters
        && c.filters_meta == cp.filters_meta
        && c.instr_codec == cp.instr_codec
}

/// Compress `nbytes` bytes at `src` into a new chunk and append it.
/// Returns the new number of chunks or a negative code.
///
/// # Safety
/// `schunk` must be NULL or live; `src` readable for `nbytes` bytes.
#[no_mangle]
pub unsafe extern "C" fn blosc2_schunk_append_buffer(
    schunk: *mut blosc2_schunk,
    src: *const c_void,
    nbytes: i32,
) -> i64 {
    ffi_boundary!(code64(ERR_FAILURE), {
        // SAFETY: readable for `nbytes` bytes per the contract.
        let data = match unsafe { bytes(src, i64::from(nbytes)) } {
            Ok(d) => d,
            Err(e) => return code64(e.code()),
        };
        with_state(schunk, |st| {
            if st.plain_cctx() {
                return st.sc.append_buffer(data).map_err(ecode);
            }
            // A prefilter or a context swapped in by the caller: compress
            // through schunk->cctx, as 3.3.5 always does.
            let n = st.sc.nchunks();
            let c = st.compress_with_cctx(data, n)?;
            st.sc.append_chunk(&c).map_err(ecode)
        })
        .unwrap_or_else(code64)
    })
}

// ---------------------------------------------------------------------------
// Reads
// ---------------------------------------------------------------------------

/// Decompress chunk `nchunk` into `dest` (`nbytes` bytes) with
/// `schunk->dctx`. Returns the decompressed size or a negative code
/// (`BLOSC2_ERROR_WRITE_BUFFER` for frames, `BLOSC2_ERROR_INVALID_PARAM`
/// otherwise, when `dest` is too small, as in 3.3.5).
///
/// # Safety
/// `schunk` must be NULL or live; `dest` writable for `nbytes` bytes.
#[no_mangle]
pub unsafe extern "C" fn blosc2_schunk_decompress_chunk(
    schunk: *mut blosc2_schunk,
    nchunk: i64,
    dest: *mut c_void,
    nbytes: i32,
) -> c_int {
    ffi_boundary!(ERR_FAILURE, {
        if nbytes < 0 {
            return ERR_INVALID_PARAM;
        }
        // SAFETY: `dest` writable for `nbytes` bytes per the contract.
        with_state(schunk, |st| unsafe { st.decompress_with_dctx(nchunk, dest, nbytes) }).unwrap_or_else(|c| c)
    })
}

/// A chunk on its way to C: borrowed from the super-chunk (valid until it
/// is edited or freed) or owned.
enum Out {
    Borrowed(*const u8, usize),
    Owned(Vec<u8>),
}

fn out_of(c: std::borrow::Cow<'_, [u8]>) -> Out {
    match c {
        std::borrow::Cow::Borrowed(b) => Out::Borrowed(b.as_ptr(), b.len()),
        std::borrow::Cow::Owned(v) => Out::Owned(v),
    }
}

/// Hand a chunk to C: a pointer into the super-chunk (`needs_free` false)
/// or a `malloc`ed copy (`needs_free` true). Returns the chunk length.
fn hand_out(c: Out, out: *mut *mut u8, needs_free: *mut bool) -> Result<c_int, c_int> {
    let (p, len, free) = match c {
        Out::Borrowed(p, len) => (p.cast_mut(), len, false),
        Out::Owned(v) => {
            let p = malloc_bytes(&v);
            if p.is_null() {
                return Err(ERR_MEMORY_ALLOC);
            }
            (p, v.len(), true)
        }
    };
    let Ok(len) = c_int::try_from(len) else {
        if free {
            cfree(p);
        }
        return Err(ERR_FAILURE);
    };
    // SAFETY: both checked non-NULL and writable by the callers.
    unsafe {
        out.write(p);
        needs_free.write(free);
    }
    Ok(len)
}

/// Get chunk `nchunk` as stored: `*chunk` points into the super-chunk
/// (`*needs_free` false) for in-memory storage, or to a `malloc`ed copy
/// to `free()` (`*needs_free` true) for disk frames and special chunks of
/// frames. Returns the chunk length or a negative code (then `*chunk` is
/// NULL).
///
/// # Safety
/// `schunk` must be NULL or live; `chunk`/`needs_free` NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn blosc2_schunk_get_chunk(
    schunk: *mut blosc2_schunk,
    nchunk: i64,
    chunk: *mut *mut u8,
    needs_free: *mut bool,
) -> c_int {
    ffi_boundary!(ERR_FAILURE, {
        // SAFETY: NULL or writable per the contract.
        unsafe {
            put(chunk, ptr::null_mut());
            put(needs_free, false);
        }
        if chunk.is_null() || needs_free.is_null() {
            return ERR_NULL_POINTER;
        }
        with_state(schunk, |st| {
            hand_out(out_of(st.sc.get_chunk(nchunk).map_err(ecode)?), chunk, needs_free)
        })
        .unwrap_or_else(|c| c)
    })
}

/// Get chunk `nchunk` for reading parts of it: for disk frames a lazy
/// chunk (header, block starts and a trailer locating the blocks, with the
/// lazy flag) that `blosc2_decompress_ctx(schunk->dctx, ...)`, the
/// getitem functions and `blosc2_decompress` complete from the frame;
/// otherwise as `blosc2_schunk_get_chunk`. Ownership as there.
///
/// # Safety
/// `schunk` must be NULL or live; `chunk`/`needs_free` NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn blosc2_schunk_get_lazychunk(
    schunk: *mut blosc2_schunk,
    nchunk: i64,
    chunk: *mut *mut u8,
    needs_free: *mut bool,
) -> c_int {
    ffi_boundary!(ERR_FAILURE, {
        // SAFETY: NULL or writable per the contract.
        unsafe {
            put(chunk, ptr::null_mut());
            put(needs_free, false);
        }
        if chunk.is_null() || needs_free.is_null() {
            return ERR_NULL_POINTER;
        }
        with_state(schunk, |st| {
            let o = match st.sc.get_lazychunk(nchunk).map(out_of) {
                Ok(o) => o,
                // 3.3.5 has no lazy form for some chunks (empty ones) and
                // fails; hand out the whole chunk instead.
                Err(_) => out_of(st.sc.get_chunk(nchunk).map_err(ecode)?),
            };
            hand_out(o, chunk, needs_free)
        })
        .unwrap_or_else(|c| c)
    })
}

/// Decode block `nblock` of VL-block chunk `nchunk` with `schunk->dctx`
/// into a `malloc`ed `*dest` of `*destsize` bytes. Returns the block size
/// or a negative code (then `*dest` is NULL and `*destsize` 0).
///
/// # Safety
/// `schunk` must be NULL or live; `dest`/`destsize` NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn blosc2_schunk_get_vlblock(
    schunk: *mut blosc2_schunk,
    nchunk: i64,
    nblock: i32,
    dest: *mut *mut u8,
    destsize: *mut i32,
) -> c_int {
    ffi_boundary!(ERR_FAILURE, {
        // SAFETY: NULL or writable per the contract.
        unsafe {
            put(dest, ptr::null_mut());
            put(destsize, 0);
        }
        if schunk.is_null() || dest.is_null() || destsize.is_null() {
            return ERR_INVALID_PARAM;
        }
        with_state(schunk, |st| {
            let dctx = st.public().dctx;
            let c = st.sc.get_chunk(nchunk).map_err(ecode)?.into_owned();
            if c.is_empty() {
                return Err(ERR_INVALID_PARAM);
            }
            let len = i32::try_from(c.len()).map_err(|_| ERR_INVALID_PARAM)?;
            // SAFETY: `c` holds `len` bytes; outputs writable per the contract.
            let r = unsafe { blosc2_vldecompress_block_ctx(dctx, c.as_ptr().cast(), len, nblock, dest, destsize) };
            if r < 0 {
                Err(r)
            } else {
                Ok(r)
            }
        })
        .unwrap_or_else(|c| c)
    })
}

// ---------------------------------------------------------------------------
// Parameters
// ---------------------------------------------------------------------------

/// Store in `*cparams` a `malloc`ed copy (to `free()`) of the super-chunk's
/// compression parameters, read from its public fields (threads from
/// `schunk->cctx`). Returns 0, or a negative code with `*cparams` NULL.
///
/// # Safety
/// `schunk` must be NULL or live; `cparams` NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn blosc2_schunk_get_cparams(
    schunk: *mut blosc2_schunk,
    cparams: *mut *mut blosc2_cparams,
) -> c_int {
    ffi_boundary!(ERR_FAILURE, {
        // SAFETY: NULL or writable per the contract.
        unsafe { put(cparams, ptr::null_mut()) };
        if cparams.is_null() {
            return ERR_NULL_POINTER;
        }
        match with_state(schunk, |st| Ok(public_cparams(st))) {
            Ok(cp) => {
                let p = malloc_value(cp);
                if p.is_null() {
                    return ERR_MEMORY_ALLOC;
                }
                // SAFETY: non-NULL and writable per the contract.
                unsafe { cparams.write(p) };
                SUCCESS
            }
            Err(code) => code,
        }
    })
}

/// Store in `*dparams` a `malloc`ed copy (to `free()`) of the super-chunk's
/// decompression parameters (threads from `schunk->dctx`). Returns 0, or a
/// negative code with `*dparams` NULL.
///
/// # Safety
/// `schunk` must be NULL or live; `dparams` NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn blosc2_schunk_get_dparams(
    schunk: *mut blosc2_schunk,
    dparams: *mut *mut blosc2_dparams,
) -> c_int {
    ffi_boundary!(ERR_FAILURE, {
        // SAFETY: NULL or writable per the contract.
        unsafe { put(dparams, ptr::null_mut()) };
        if dparams.is_null() {
            return ERR_NULL_POINTER;
        }
        let r = with_state(schunk, |st| {
            let public = st.public_ptr();
            let nthreads = ctx_dparams(st.public().dctx).map_or(1, |d| d.nthreads);
            Ok(blosc2_dparams {
                nthreads,
                schunk: public.cast(),
                postfilter: None,
                postparams: ptr::null_mut(),
                typesize: 0,
            })
        });
        match r {
            Ok(dp) => {
                let p = malloc_value(dp);
                if p.is_null() {
                    return ERR_MEMORY_ALLOC;
                }
                // SAFETY: non-NULL and writable per the contract.
                unsafe { dparams.write(p) };
                SUCCESS
            }
            Err(code) => code,
        }
    })
}

/// Reorder the chunks: chunk `i` becomes the old chunk `offsets_order[i]`
/// (`nchunks` entries, a permutation). Returns 0 or a negative code.
///
/// # Safety
/// `schunk` must be NULL or live; `offsets_order` NULL or `nchunks` entries.
#[no_mangle]
pub unsafe extern "C" fn blosc2_schunk_reorder_offsets(schunk: *mut blosc2_schunk, offsets_order: *mut i64) -> c_int {
    ffi_boundary!(ERR_FAILURE, {
        with_state(schunk, |st| {
            let n = usize::try_from(st.sc.nchunks()).map_err(|_| ERR_FAILURE)?;
            if n == 0 {
                return Ok(SUCCESS);
            }
            if offsets_order.is_null() {
                return Err(ERR_NULL_POINTER);
            }
            // SAFETY: `nchunks` entries per the contract.
            let order = unsafe { std::slice::from_raw_parts(offsets_order.cast_const(), n) };
            st.sc.reorder_offsets(order).map_err(ecode)?;
            Ok(SUCCESS)
        })
        .unwrap_or_else(|c| c)
    })
}

/// Fill an empty super-chunk with `nitems` items of a special value
/// (`BLOSC2_SPECIAL_ZERO`, `_NAN` or `_UNINIT`) in chunks of `chunksize`
/// bytes. Returns the number of chunks or a negative code.
///
/// # Safety
/// `schunk` must be NULL or a live super-chunk.
#[no_mangle]
pub unsafe extern "C" fn blosc2_schunk_fill_special(
    schunk: *mut blosc2_schunk,
    nitems: i64,
    special_value: c_int,
    chunksize: i32,
) -> i64 {
    ffi_boundary!(code64(ERR_FAILURE), {
        let kind = match special_value {
            1 => Some(SpecialKind::Zeros),
            2 => Some(SpecialKind::Nans),
            4 => Some(SpecialKind::Uninit),
            _ => None,
        };
        with_state(schunk, |st| {
            if nitems == 0 {
                return Ok(0);
            }
            let kind = kind.ok_or(ERR_SCHUNK_SPECIAL)?;
            st.sc.fill_special(nitems, kind, chunksize).map_err(ecode)
        })
        .unwrap_or_else(code64)
    })
}

// The handle state moves between threads with its mutex.
const _: () = {
    const fn send<T: Send>() {}
    send::<SChunk>();
};

/// Writable slice helper re-exported for the sibling modules.
///
/// # Safety
/// As [`bytes_mut`].
pub(crate) unsafe fn out_bytes<'a>(ptr: *mut c_void, len: i64) -> Result<&'a mut [u8], c_int> {
    // SAFETY: forwarded contract.
    unsafe { bytes_mut(ptr, len) }.map_err(|e| e.code())
}

/// A C path argument as UTF-8 (`ERR_INVALID_PARAM` when not).
///
/// # Safety
/// `s` must be NULL or NUL-terminated.
pub(crate) unsafe fn path_arg<'a>(s: *const c_char) -> Result<&'a str, c_int> {
    if s.is_null() {
        return Err(ERR_NULL_POINTER);
    }
    // SAFETY: NUL-terminated per the contract.
    unsafe { c_str(s) }.ok_or(ERR_INVALID_PARAM)
}
