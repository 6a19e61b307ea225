//! The handle behind a `blosc2_schunk*`: the registry that maps public
//! structs to engine super-chunks, the per-handle state and its sync into
//! the public struct (see the module documentation of `schunk`).

use std::collections::BTreeMap;
use std::ffi::{c_char, c_int, c_void};
use std::ptr;
use std::sync::Arc;

use crate::engine::chunk::{self};
use crate::engine::constants::MAX_OVERHEAD;
use crate::engine::context::Mode;
use crate::engine::frame::Fetched;
use crate::engine::params::CParams;
use crate::engine::schunk::{SChunk, Storage};
use crate::engine::threads::fork_lock::{ForkGuard, ForkLock, ForkSlots, SlotGuard};

use super::super::alloc::malloc_cstring;
use super::super::boundary::{
    bytes_mut, c_str, ERR_FAILURE, ERR_INVALID_PARAM, ERR_NULL_POINTER, ERR_READ_BUFFER, ERR_WRITE_BUFFER, SUCCESS,
};
use super::super::context::{
    blosc2_compress_ctx, blosc2_create_cctx, blosc2_create_dctx, blosc2_ctx_get_dparams, blosc2_free_ctx, ctx_in_mode,
    ctx_ref, decompress_with,
};
use super::super::defaults::{CPARAMS_DEFAULTS, DPARAMS_DEFAULTS};
use super::super::types::{blosc2_context, blosc2_cparams, blosc2_dparams, blosc2_io};
use super::super::types_schunk::{blosc2_frame, blosc2_schunk, blosc2_storage};

/// `BLOSC2_ERROR_SCHUNK_SPECIAL`.
pub(super) const ERR_SCHUNK_SPECIAL: c_int = -29;
/// `BLOSC2_IO_FILESYSTEM`.
const IO_FILESYSTEM: u8 = 0;

use super::heap::{cfree, ecode, free_metalayer, free_storage, malloc_value, reconcile};

// ---------------------------------------------------------------------------
// The handle registry
// ---------------------------------------------------------------------------

/// What the registry keeps for one `blosc2_schunk*`: its state, behind a
/// lock a forked child never waits on (a super-chunk another thread of the
/// parent was inside at the fork fails in the child with `ERR_FAILURE`).
pub(crate) struct Handle {
    state: ForkLock<State>,
}

/// Live handles, keyed by the address of their public struct. A child
/// forked while a parent thread was inside moves on to a copy its writers
/// keep (see `ForkSlots`): a super-chunk being created or freed at that
/// moment may be missing from it, every other one is there.
static REGISTRY: ForkSlots<BTreeMap<usize, Arc<Handle>>> = ForkSlots::new();

/// The registry, alone; `ERR_FAILURE` once forks caught threads inside it
/// more often than it has slots.
pub(super) fn registry() -> Result<SlotGuard<'static, BTreeMap<usize, Arc<Handle>>>, c_int> {
    REGISTRY.lock_mirrored().ok_or(ERR_FAILURE)
}

/// Change the registry (and its mirrors); `ERR_FAILURE` as for
/// [`registry`].
pub(super) fn change_registry<R>(change: impl Fn(&mut BTreeMap<usize, Arc<Handle>>) -> R) -> Result<R, c_int> {
    REGISTRY.change(change).ok_or(ERR_FAILURE)
}

/// Exclusive use of a handle's state.
pub(crate) type Guard<'a> = ForkGuard<'a, State>;

impl Handle {
    /// Whether some thread is inside the super-chunk right now.
    pub(crate) fn busy(&self) -> bool {
        self.state.is_held()
    }

    /// The state, or `ERR_FAILURE` when this thread is already inside it
    /// (a callback re-entering the API) or a fork caught another thread
    /// of the parent inside; `ERR_NULL_POINTER` when the handle was freed
    /// while this call waited.
    pub(crate) fn lock(&self) -> Result<Guard<'_>, c_int> {
        let mut g = self.state.lock().map_err(|_| ERR_FAILURE)?;
        if g.freed {
            return Err(ERR_NULL_POINTER);
        }
        g.adopt_caller_writes();
        Ok(g)
    }
}

/// The handle of `schunk`: `ERR_NULL_POINTER` for NULL,
/// `ERR_INVALID_PARAM` for a pointer that is not a live super-chunk.
pub(crate) fn lookup(schunk: *const blosc2_schunk) -> Result<Arc<Handle>, c_int> {
    if schunk.is_null() {
        return Err(ERR_NULL_POINTER);
    }
    registry()?.get(&(schunk as usize)).cloned().ok_or(ERR_INVALID_PARAM)
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
    if locked && g.sc.lock_and_follow().map_err(|e| e.code())? {
        // Re-read under the lock: what the other handle changed includes
        // the metalayers and vlmetalayers C reads from the struct.
        let _ = g.sync_metas();
    }
    g.follow_disk();
    let r = f(&mut g);
    if locked && !g.freed {
        let _ = g.sc.unlock();
    }
    g.sync();
    r
}

/// [`with_state`] without taking the frame's file lock (the in-process
/// handle lock is still taken): for calls 3.3.5 makes without locking,
/// which callers may make while another handle holds the file lock
/// (`b2nd_from_schunk`, called by python-blosc2 holding its GIL).
pub(crate) fn with_state_unlocked<T>(
    schunk: *const blosc2_schunk,
    f: impl FnOnce(&mut State) -> Result<T, c_int>,
) -> Result<T, c_int> {
    let h = lookup(schunk)?;
    let mut g = h.lock()?;
    g.follow_disk();
    let r = f(&mut g);
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
    /// Bumped whenever the metalayers change (mirrored in the public
    /// struct, except in the 2.x layout, which has no such field).
    change_tick: i64,
    /// What [`State::sync`] last wrote to the public fields C may write
    /// too: a different value there at the next call is the caller's.
    published: Published,
    /// `schunk->data`: a `malloc`ed array of `data_len` bytes pointing at
    /// the engine's chunks (in-memory super-chunks without a frame only).
    data: *mut *mut u8,
    data_len: usize,
    /// 3.3.5 leaves `data_len` at 0 in a super-chunk copied out of a frame
    /// (`blosc2_schunk_from_buffer(copy = true)`) until a chunk is added:
    /// published as 0 while this is set.
    data_len_unset: bool,
    /// The number of chunks at the last [`State::sync_data`], to see
    /// chunks being added.
    synced_nchunks: usize,
    /// Whether any entry of `data` may be stale (before the first sync and
    /// after a failed one): the next sync re-points all of them.
    data_stale: bool,
    /// Added to the engine's `cbytes` in `schunk->cbytes`: a view counts
    /// the placeholder chunks 3.3.5 made it with, not the data's.
    cbytes_offset: i64,
}

/// The public fields a C caller may write, as last published.
#[derive(Clone, Copy)]
struct Published {
    chunksize: i32,
    current_nchunk: i64,
    /// The engine's context block size last copied into `schunk->cctx`.
    context_blocksize: i32,
}

/// 3.3.5 grows `schunk->data` one memory page at a time.
const DATA_PAGE: usize = 4096;

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

    /// The metalayer change counter (`change_tick` of 3.x's public struct).
    pub(crate) fn change_tick(&self) -> i64 {
        self.change_tick
    }

    /// Publish `schunk->cbytes` as `cbytes` from now on, moving with the
    /// engine's as chunks change (for views, see `cbytes_offset`).
    pub(crate) fn publish_cbytes_as(&mut self, cbytes: i64) {
        self.cbytes_offset = cbytes - self.sc.cbytes();
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

    /// Take into the engine what C wrote into the public struct since the
    /// last call (`chunksize`, `current_nchunk`), as 3.3.5 reads those
    /// fields back.
    fn adopt_caller_writes(&mut self) {
        let (chunksize, current) = {
            let p = self.public();
            (p.chunksize, p.current_nchunk)
        };
        if chunksize != self.published.chunksize && self.sc.adopt_chunksize(chunksize).is_ok() {
            self.published.chunksize = chunksize;
        }
        if current != self.published.current_nchunk {
            self.sc.set_current_nchunk(current);
            self.published.current_nchunk = current;
        }
    }

    /// Point `schunk->data[i]` at the engine's chunk `i`, as 3.3.5 keeps
    /// its chunk array: grown a page at a time (never shrunk), NULL past
    /// the last chunk, and left NULL for frames and before the first
    /// chunk. The engine keeps each chunk's bytes in place until the chunk
    /// is replaced or removed and says from which index entries changed,
    /// so a call that changed no chunk costs O(1), an append O(1)
    /// (amortised over the page-wise growth).
    fn sync_data(&mut self) {
        let ptr_size = std::mem::size_of::<*mut u8>();
        let moved_from = self.sc.take_moved_chunks();
        let Some(chunks) = self.sc.memory_chunks() else {
            return;
        };
        let nchunks = chunks.len();
        let old_slots = self.data_len / ptr_size;
        // Entries that may be stale: those the engine changed, those of
        // chunks added and those of chunks removed (now NULL); all of them
        // before the first sync or after a failed one.
        let (lo, old_nchunks) = if self.data_stale {
            (0, old_slots)
        } else {
            let old = self.synced_nchunks.min(old_slots);
            (moved_from.unwrap_or(usize::MAX).min(nchunks.min(old)), old)
        };
        if nchunks > self.synced_nchunks {
            self.data_len_unset = false;
        }
        self.synced_nchunks = nchunks;
        self.data_stale = true;
        let need = nchunks * ptr_size;
        if need > self.data_len {
            let new_len = need.div_ceil(DATA_PAGE) * DATA_PAGE;
            // SAFETY: `data` is NULL or our malloc'ed array; realloc keeps
            // it valid on failure, which is checked.
            let grown = unsafe { libc::realloc(self.data.cast(), new_len) }.cast::<*mut u8>();
            if grown.is_null() {
                return;
            }
            self.data = grown;
            self.data_len = new_len;
            // The new tail: NULL until chunks fill it.
            for i in old_slots..new_len / ptr_size {
                // SAFETY: `data` holds `new_len / ptr_size` pointers.
                unsafe { self.data.add(i).write(ptr::null_mut()) };
            }
        }
        if self.data.is_null() {
            // No array yet (no chunk yet): nothing to point.
            self.data_stale = false;
            return;
        }
        let slots = self.data_len / ptr_size;
        let hi = nchunks.max(old_nchunks).min(slots);
        for i in lo..hi {
            let p = chunks.get(i).map_or(ptr::null_mut(), |c| c.as_ptr().cast_mut());
            // SAFETY: `data` holds `slots` pointers (`data_len` bytes) and
            // `i < slots`.
            unsafe { self.data.add(i).write(p) };
        }
        self.data_stale = false;
        let data = self.data;
        let data_len = if self.data_len_unset { 0 } else { self.data_len };
        let p = self.public();
        p.data = data;
        p.data_len = data_len;
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
        let (nchunks, nbytes) = (self.sc.nchunks(), self.sc.nbytes());
        let cbytes = self.sc.cbytes() + self.cbytes_offset;
        let (chunksize, blocksize, flags2) = (self.sc.chunksize(), self.sc.blocksize(), self.sc.flags2());
        let current = self.sc.current_nchunk();
        let contiguous = self.sc.contiguous();
        let context_blocksize = self.sc.context_blocksize();
        let published_blocksize = self.published.context_blocksize;
        let p = self.public();
        p.nchunks = nchunks;
        p.nbytes = nbytes;
        p.cbytes = cbytes;
        p.chunksize = chunksize;
        p.blocksize = blocksize;
        p.set_flags2(flags2);
        p.current_nchunk = current;
        p.frame = marker;
        if !p.storage.is_null() {
            // SAFETY: our malloc'ed storage, alive with the handle.
            unsafe { (*p.storage).contiguous = contiguous };
        }
        if context_blocksize != published_blocksize {
            // 3.3.5's schunk->cctx keeps the block size of the last chunk
            // it compressed, and blosc2_ctx_get_cparams reports it.
            // SAFETY: NULL or the handle's live context.
            if let Some(c) = unsafe { ctx_ref(p.cctx) } {
                c.used_blocksize
                    .store(context_blocksize, std::sync::atomic::Ordering::Relaxed);
            }
        }
        self.published = Published {
            chunksize,
            current_nchunk: current,
            context_blocksize,
        };
        self.sync_data();
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
        super::super::plugin_calls::publish_env(self.public.cast(), self.sc.plugin_env().clone());
        let p = self.public();
        let n = reconcile(&mut p.metalayers[..], usize::from(p.nmetalayers), &metas)?;
        p.nmetalayers = n as u16;
        let nvl = usize::try_from(p.nvlmetalayers).unwrap_or(0);
        let nvl = reconcile(&mut p.vlmetalayers[..], nvl, &vlmetas)?;
        p.nvlmetalayers = nvl as i16;
        self.change_tick += 1;
        let tick = self.change_tick;
        self.public().set_change_tick(tick);
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
        let nbytes = i32::try_from(data.len()).map_err(|_| super::super::boundary::ERR_MAX_BUFSIZE_EXCEEDED)?;
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
        // The call borrows the super-chunk's block buffers: 3.3.5 keeps one
        // set of thread scratch, not one for compression and another for
        // `schunk->dctx` (1 MiB more resident with 2 threads and 512 KiB
        // blocks).
        // SAFETY: `schunk->dctx` is NULL or a live context.
        let dctx = unsafe { ctx_in_mode(self.public().dctx, Mode::Decompress) }.ok();
        let lent = dctx.is_some_and(|d| d.engine().is_ok_and(|mut e| self.sc.trade_scratch_with(&mut e)));
        // SAFETY: forwarded contract.
        let got = unsafe { self.decompress_with_own_dctx(nchunk, dest, nbytes) };
        if let (true, Some(d)) = (lent, dctx) {
            if let Ok(mut e) = d.engine() {
                self.sc.trade_scratch_with(&mut e);
            }
        }
        got
    }

    /// [`State::decompress_with_dctx`] with `schunk->dctx`'s scratch as it is.
    ///
    /// # Safety
    /// `dest` must be NULL or writable for `nbytes` bytes.
    unsafe fn decompress_with_own_dctx(&mut self, nchunk: i64, dest: *mut c_void, nbytes: i32) -> Result<i32, c_int> {
        let framed = self.sc.frame().is_some();
        let dctx = self.public().dctx;
        let public = self.public;
        // Only disk frames read chunks (whose data may go straight into
        // `dest`): in memory, the context is not looked at twice.
        // SAFETY: `schunk->dctx` is NULL or a live context.
        let plain = self.sc.on_disk()
            && unsafe { ctx_in_mode(dctx, Mode::Decompress) }
                .is_ok_and(|d| d.engine().is_ok_and(|e| e.copies_stored_as_is()));
        let c = match plain.then(|| {
            // SAFETY: `dest` writable for `nbytes` bytes per the contract.
            unsafe { bytes_mut(dest, i64::from(nbytes)) }
        }) {
            Some(Ok(d)) if !d.is_empty() => match self.sc.chunk_to_decode_into(nchunk, d).map_err(ecode)? {
                Fetched::Chunk(c) => c,
                Fetched::Copied(got) => {
                    // SAFETY: our live public struct (the lock is held).
                    unsafe { (*public).current_nchunk = nchunk };
                    return Ok(got as i32);
                }
            },
            _ => self.sc.chunk_to_decode(nchunk).map_err(ecode)?,
        };
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
        // SAFETY: `schunk->dctx` is NULL or a live context (ours, or one the
        // caller swapped in).
        let got = match unsafe { ctx_in_mode(dctx, Mode::Decompress) } {
            // SAFETY: `c` holds `chunk_cbytes` bytes; `dest` writable for
            // `nbytes` bytes per the contract.
            Ok(d) => unsafe { decompress_with(d, c.as_ptr().cast(), chunk_cbytes, dest, nbytes) },
            Err(code) => code,
        };
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
    /// Chunks copied out of a frame (`blosc2_schunk_from_buffer(copy =
    /// true)`): `data_len` stays 0 until a chunk is added, as in 3.3.5.
    pub copied_frame: bool,
}

impl Init {
    /// Parameters 3.3.5 derives from an opened frame (`frame_to_schunk`):
    /// `blosc2_schunk_get_cparams`/`get_dparams` of the new super-chunk.
    pub(crate) fn from_engine(sc: &SChunk, urlpath: Option<String>) -> Init {
        let nthreads = super::super::global_state::nthreads();
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
                filters: sc.filters(),
                filters_meta: sc.filters_meta(),
                ..CPARAMS_DEFAULTS
            },
            dparams: blosc2_dparams {
                nthreads,
                typesize: 0,
                ..DPARAMS_DEFAULTS
            },
            io: io_defaults(),
            urlpath,
            user_cframe: ptr::null_mut(),
            copied_frame: false,
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
    let params = io.params.cast::<super::super::types_schunk::blosc2_stdio_params>();
    // SAFETY: NULL or a valid stdio params struct per the contract.
    if !params.is_null() && unsafe { (*params).locking } {
        return true;
    }
    std::env::var_os("BLOSC_LOCKING").is_some_and(|v| !v.is_empty() && v != "0")
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
        p.set_use_dict(u8::from(cparams.use_dict != 0));
        p.filters = cparams.filters;
        p.filters_meta = cparams.filters_meta;
        p.tuner_params = cparams.tuner_params;
        p.tuner_id = cparams.tuner_id;
        p.storage = storage;
        p.cctx = cctx;
        p.dctx = dctx;
        p.view = false;
    }
    sc.set_plugin_host(Some(super::super::plugin_calls::host_of(public.cast())));
    let mut st = State {
        sc,
        public,
        user_cframe: init.user_cframe,
        avoid_cframe_free: true,
        freed: false,
        change_tick: 0,
        published: Published {
            chunksize: -1,
            current_nchunk: -1,
            context_blocksize: 0,
        },
        data: ptr::null_mut(),
        data_len: 0,
        data_len_unset: init.copied_frame,
        synced_nchunks: usize::MAX,
        data_stale: true,
        cbytes_offset: 0,
    };
    st.sync();
    if st.sync_metas().is_err() {
        release(&mut st);
        return ptr::null_mut();
    }
    st.change_tick = 0;
    st.public().set_change_tick(0);
    let h = Arc::new(Handle {
        state: ForkLock::new(st),
    });
    if change_registry(|reg| reg.insert(public as usize, h.clone())).is_err() {
        if let Ok(mut st) = h.state.lock() {
            release(&mut st);
        }
        return ptr::null_mut();
    }
    public
}

/// Release everything a state owns on the C heap (the engine object is
/// dropped with the state).
pub(super) fn release(st: &mut State) {
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
    let storage = p.storage;
    // Close the frame's files before the backend releases its params
    // (3.3.5 frees the frame after, but its streams are closed by then).
    if let Ok(empty) = SChunk::new(Storage::default()) {
        st.sc = empty;
    }
    // SAFETY: our malloc'ed storage and io copies; the io params are the
    // caller's, valid until the backend's destroy releases them.
    unsafe {
        if !storage.is_null() && !(*storage).io.is_null() {
            let _ = crate::capi::io_cb::destroy_backend(&*(*storage).io);
        }
    }
    free_storage(storage);
    if !st.user_cframe.is_null() && !st.avoid_cframe_free {
        cfree(st.user_cframe);
    }
    st.user_cframe = ptr::null_mut();
    cfree(st.data);
    st.data = ptr::null_mut();
    st.data_len = 0;
    super::super::plugin_calls::forget_env(st.public.cast());
    cfree(st.public);
    st.freed = true;
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

/// The compression parameters recorded in the public struct, as
/// `blosc2_schunk_get_cparams` reports them (threads from `cctx`).
pub(crate) fn public_cparams(st: &mut State) -> blosc2_cparams {
    let public = st.public_ptr();
    let engine_use_dict = u8::from(st.sc.use_dict());
    let p = st.public();
    let nthreads = ctx_cparams(p.cctx).map_or(1, |c| c.nthreads);
    blosc2_cparams {
        compcode: p.compcode,
        compcode_meta: p.compcode_meta,
        clevel: p.clevel,
        use_dict: c_int::from(p.use_dict_or(engine_use_dict)),
        typesize: p.typesize,
        nthreads,
        blocksize: p.blocksize,
        splitmode: c_int::from(p.splitmode),
        schunk: public.cast(),
        filters: p.filters,
        filters_meta: p.filters_meta,
        // No prefilter, tuner, instrumentation or plugin parameters: 3.3.5
        // reports none of them for a super-chunk.
        ..CPARAMS_DEFAULTS
    }
}

/// The parameters a context was made with, `None` when it is not a live
/// context (not the block size of its last chunk, which
/// `blosc2_ctx_get_cparams` reports).
pub(crate) fn ctx_cparams(ctx: *mut blosc2_context) -> Option<blosc2_cparams> {
    // SAFETY: NULL or a context pointer taken from the public struct.
    unsafe { ctx_ref(ctx) }.map(|c| c.cparams)
}

pub(crate) fn ctx_dparams(ctx: *mut blosc2_context) -> Option<blosc2_dparams> {
    // SAFETY: NULL or a context pointer taken from the public struct.
    unsafe { ctx_ref(ctx) }?;
    let mut dp = DPARAMS_DEFAULTS;
    // SAFETY: a live context and a writable struct.
    (unsafe { blosc2_ctx_get_dparams(ctx, &mut dp) } == SUCCESS).then_some(dp)
}

/// Whether `cctx` compresses exactly as the engine would with `cp`
/// (same parameters, no prefilter).
pub(crate) fn cctx_matches_engine(cctx: *mut blosc2_context, cp: &CParams) -> bool {
    let Some(c) = ctx_cparams(cctx) else {
        return false;
    };
    // (A tuner is driven around each compression of the context.)
    c.prefilter.is_none()
        && c.tuner_id <= 0
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
