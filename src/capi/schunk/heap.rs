//! What the handles own on the C heap: `malloc`ed copies, metalayer
//! entries and storages, and their release.

use std::ffi::c_int;
use std::ptr::{self, NonNull};

use crate::engine::schunk::HandedBytes;

use super::super::alloc::malloc_cstring;
pub(crate) use super::super::alloc::malloc_value;
use super::super::boundary::{c_str, code_of, ERR_MEMORY_ALLOC};
use super::super::types_schunk::{blosc2_metalayer, blosc2_storage};

// ---------------------------------------------------------------------------
// C heap helpers
// ---------------------------------------------------------------------------

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

/// A chunk the caller `malloc`ed and handed over with `copy = false`: an
/// in-memory super-chunk keeps it as the chunk's bytes, as 3.3.5 does
/// (shrunk with `realloc`, `free`d when the chunk is replaced or removed or
/// the super-chunk freed).
pub(super) struct MallocChunk {
    ptr: NonNull<u8>,
    len: usize,
}

// SAFETY: the buffer belongs to this value alone (its owner handed it
// over) and is only read through `&self`; malloc'ed memory may be read
// and freed from any thread.
unsafe impl Send for MallocChunk {}
// SAFETY: as above: shared access only reads.
unsafe impl Sync for MallocChunk {}

impl MallocChunk {
    /// Take over the `malloc`ed buffer at `ptr`.
    ///
    /// # Safety
    /// `ptr` must come from `malloc`/`realloc`, hold at least `len`
    /// readable bytes, and nobody else may write or free it while the
    /// returned value exists.
    pub(super) unsafe fn adopt(ptr: NonNull<u8>, len: usize) -> MallocChunk {
        MallocChunk { ptr, len }
    }
}

impl HandedBytes for MallocChunk {
    fn bytes(&self) -> &[u8] {
        // SAFETY: `len` readable bytes, unchanged while we hold them
        // (`adopt`'s contract; `shrink_to` only lowers `len`).
        unsafe { std::slice::from_raw_parts(self.ptr.as_ptr(), self.len) }
    }

    fn shrink_to(&mut self, len: usize) {
        if len >= self.len {
            return;
        }
        // SAFETY: a malloc'ed block we own; on failure realloc leaves it
        // as it was (and still ours), so only a non-NULL result replaces it.
        let p = unsafe { libc::realloc(self.ptr.as_ptr().cast(), len.max(1)) }.cast::<u8>();
        if let Some(p) = NonNull::new(p) {
            self.ptr = p;
        }
        self.len = len;
    }

    fn disown(self: Box<Self>) {
        // The box goes; the buffer stays with the caller, unfreed.
        std::mem::forget(*self);
    }
}

impl Drop for MallocChunk {
    fn drop(&mut self) {
        // A panic caught at the C boundary reports a failure, after which
        // the caller frees its chunk: leak it rather than free it twice.
        if !std::thread::panicking() {
            cfree(self.ptr.as_ptr());
        }
    }
}

/// `free()` a pointer handed out by the helpers above (NULL is fine).
pub(super) fn cfree<T>(p: *mut T) {
    // SAFETY: NULL or a pointer from malloc/calloc, freed once by callers.
    unsafe { libc::free(p.cast()) };
}

/// A C error code as the `int64_t` some functions return.
pub(super) fn code64(c: c_int) -> i64 {
    i64::from(c)
}

/// An engine error as a C code.
pub(super) fn ecode(e: crate::engine::error::Error) -> c_int {
    code_of(&e)
}

/// Update `slots[..old]` to hold `want`; returns the new count.
pub(super) fn reconcile(
    slots: &mut [*mut blosc2_metalayer],
    old: usize,
    want: &[(String, Vec<u8>)],
) -> Result<usize, c_int> {
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

pub(super) fn free_metalayer(m: *mut blosc2_metalayer) {
    if m.is_null() {
        return;
    }
    // SAFETY: a live entry we malloc'ed, freed once.
    let e = unsafe { &*m };
    cfree(e.name);
    cfree(e.content);
    cfree(m);
}

pub(super) fn free_storage(s: *mut blosc2_storage) {
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
