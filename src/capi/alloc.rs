//! Memory handed to C callers, who release it with `free()`: everything
//! here comes from `libc::malloc`.

use std::ffi::c_char;
use std::ptr::NonNull;

use crate::engine::error::{Error, Result};

/// A `malloc`ed byte buffer owned by Rust until [`MallocBuf::into_raw`]
/// hands it to C; freed on drop otherwise.
pub(crate) struct MallocBuf {
    ptr: NonNull<u8>,
    len: usize,
}

// SAFETY: the buffer is exclusively owned heap memory; moving it to another
// thread moves that ownership, like a `Vec<u8>`.
unsafe impl Send for MallocBuf {}

impl MallocBuf {
    /// A zeroed buffer of `len` bytes (at least one byte is allocated, so
    /// the pointer is never NULL).
    pub(crate) fn zeroed(len: usize) -> Result<MallocBuf> {
        // SAFETY: calloc has no preconditions; the result is checked.
        let p = unsafe { libc::calloc(len.max(1), 1) }.cast::<u8>();
        let ptr = NonNull::new(p).ok_or(Error::MemoryAlloc)?;
        Ok(MallocBuf { ptr, len })
    }

    /// Give up ownership: the caller (C code) must `free()` the pointer.
    pub(crate) fn into_raw(self) -> *mut u8 {
        let p = self.ptr.as_ptr();
        std::mem::forget(self);
        p
    }

    /// Length in bytes.
    pub(crate) fn len(&self) -> usize {
        self.len
    }
}

impl AsMut<[u8]> for MallocBuf {
    fn as_mut(&mut self) -> &mut [u8] {
        // SAFETY: `ptr` holds `len` initialised (zeroed) bytes owned by self.
        unsafe { std::slice::from_raw_parts_mut(self.ptr.as_ptr(), self.len) }
    }
}

impl Drop for MallocBuf {
    fn drop(&mut self) {
        // SAFETY: `ptr` came from calloc and is still owned by self.
        unsafe { libc::free(self.ptr.as_ptr().cast()) };
    }
}

/// A `malloc`ed NUL-terminated copy of `s` (like `strdup`), or NULL when
/// allocation fails.
pub(crate) fn malloc_cstring(s: &str) -> *mut c_char {
    let bytes = s.as_bytes();
    // SAFETY: malloc has no preconditions; the result is checked below.
    let p = unsafe { libc::malloc(bytes.len() + 1) }.cast::<u8>();
    if p.is_null() {
        return std::ptr::null_mut();
    }
    // SAFETY: `p` holds `len + 1` bytes, disjoint from `bytes`.
    unsafe {
        std::ptr::copy_nonoverlapping(bytes.as_ptr(), p, bytes.len());
        p.add(bytes.len()).write(0);
    }
    p.cast()
}

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
