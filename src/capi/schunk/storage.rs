//! `blosc2_storage` read from C, and lazy chunks handed back to the
//! decompression functions.

use std::ffi::{c_int, c_void};
use std::ptr;
use std::sync::Arc;

use crate::engine::chunk;
use crate::engine::constants::{blosc2_flags, EXTENDED_HEADER_LENGTH};
use crate::engine::frame::FrameKind;
use crate::engine::params::CParams;
use crate::engine::schunk::Storage;

use super::super::boundary::{c_str, ERR_INVALID_PARAM};
use super::super::convert::{cctx_setup, dctx_setup};
use super::super::defaults::{CPARAMS_DEFAULTS, DPARAMS_DEFAULTS};
use super::super::types::blosc2_cparams;
use super::super::types_schunk::blosc2_storage;

use super::handle::*;
use super::heap::ecode;

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
/// tuner, an I/O backend id nothing is registered under) or for a non-UTF-8 path. `fallback`
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
    // An id no backend is registered under gives NULL, as in 3.3.5.
    let fs = crate::capi::io_cb::backend_for(&io).ok()?;
    let engine = Storage {
        contiguous: s.contiguous,
        urlpath: urlpath.clone(),
        cparams: engine_cp,
        dparams: dctx_setup(&dparams).engine,
        fs,
    };
    Some(CStorage {
        engine,
        init: Init {
            cparams,
            dparams,
            io,
            urlpath,
            user_cframe: ptr::null_mut(),
            copied_frame: false,
        },
    })
}

// ---------------------------------------------------------------------------
// Lazy chunks handed to the decompression functions
// ---------------------------------------------------------------------------

/// True when the 32 bytes at `head` are the header of a lazy chunk.
pub(crate) fn is_lazy_header(head: &[u8]) -> bool {
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
    chunk::check_lazy_trailer(lazy).map_err(ecode)?;
    let handles: Vec<Arc<Handle>> = if schunk.is_null() {
        registry()?.values().cloned().collect()
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
