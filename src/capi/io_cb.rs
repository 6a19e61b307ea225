//! User-defined I/O (`blosc2_register_io_cb`, `blosc2_get_io_cb`) and the
//! engine backend built over a `blosc2_io_cb`: frames whose storage names
//! a backend other than the plain file system do every open, read, write,
//! truncate and close through its callbacks.
//!
//! The table holds the two built-in backends (`BLOSC2_IO_FILESYSTEM` = 0,
//! the `blosc2_stdio_*` functions, and `BLOSC2_IO_FILESYSTEM_MMAP` = 1,
//! `blosc2_stdio_mmap_*`) and up to 254 registered ones (ids from
//! `BLOSC2_IO_REGISTERED` = 160), as 3.3.5. Frames on the file system
//! backend use the engine's [`StdFs`](crate::engine::io::StdFs) directly
//! (the same operations, without the detour through C).

use std::ffi::{c_char, c_int, c_void, CStr, CString};
use std::path::Path;
use std::ptr;
use std::sync::Arc;

use crate::engine::error::{Error, Result};
use crate::engine::io::{FrameFile, FrameFs};
use crate::engine::threads::fork_lock::ForkSlots;

use super::boundary::{ffi_boundary, ERR_INVALID_PARAM, SUCCESS};
use super::types::{blosc2_io, blosc2_io_cb};

/// `BLOSC2_IO_FILESYSTEM`.
pub(crate) const IO_FILESYSTEM: u8 = 0;
/// `BLOSC2_IO_FILESYSTEM_MMAP`.
pub(crate) const IO_FILESYSTEM_MMAP: u8 = 1;
/// `BLOSC2_IO_REGISTERED`: the first id users may register.
const IO_REGISTERED: u8 = 160;
/// `BLOSC2_ERROR_PLUGIN_IO`.
const ERR_PLUGIN_IO: c_int = -30;

/// The registered backends. Entries never move (C keeps the pointers
/// `blosc2_get_io_cb` returns) and are never removed, as in 3.3.5.
#[derive(Clone)]
struct Table {
    entries: Box<[blosc2_io_cb; 256]>,
    len: usize,
}

// SAFETY: the entries are plain function pointers and C string pointers
// that the registering caller keeps alive (C-Blosc2's contract); the table
// is only reached through its lock.
unsafe impl Send for Table {}

fn empty_entry() -> blosc2_io_cb {
    blosc2_io_cb {
        id: 0,
        name: ptr::null_mut(),
        is_allocation_necessary: false,
        open: None,
        close: None,
        size: None,
        write: None,
        read: None,
        truncate: None,
        destroy: None,
    }
}

fn builtin_filesystem() -> blosc2_io_cb {
    use super::stdio::*;
    blosc2_io_cb {
        id: IO_FILESYSTEM,
        name: c"filesystem".as_ptr().cast_mut(),
        is_allocation_necessary: true,
        open: Some(blosc2_stdio_open),
        close: Some(blosc2_stdio_close),
        size: Some(blosc2_stdio_size),
        write: Some(blosc2_stdio_write),
        read: Some(blosc2_stdio_read),
        truncate: Some(blosc2_stdio_truncate),
        destroy: Some(blosc2_stdio_destroy),
    }
}

fn builtin_mmap() -> blosc2_io_cb {
    use super::stdio_mmap::*;
    blosc2_io_cb {
        id: IO_FILESYSTEM_MMAP,
        name: c"filesystem_mmap".as_ptr().cast_mut(),
        is_allocation_necessary: false,
        open: Some(blosc2_stdio_mmap_open),
        close: Some(blosc2_stdio_mmap_close),
        size: Some(blosc2_stdio_mmap_size),
        write: Some(blosc2_stdio_mmap_write),
        read: Some(blosc2_stdio_mmap_read),
        truncate: Some(blosc2_stdio_mmap_truncate),
        destroy: Some(blosc2_stdio_mmap_destroy),
    }
}

impl Default for Table {
    /// The built-in backends alone.
    fn default() -> Table {
        let mut entries = Box::new([empty_entry(); 256]);
        entries[0] = builtin_filesystem();
        entries[1] = builtin_mmap();
        Table { entries, len: 2 }
    }
}

/// The registered backends. A child forked while a parent thread was
/// inside goes on with a copy (see `ForkSlots`), which may lack a backend
/// being registered at that moment; NULL from `blosc2_get_io_cb` and
/// `BLOSC2_ERROR_PLUGIN_IO` when forks lost the table.
static TABLE: ForkSlots<Table> = ForkSlots::new();

/// Register `io` in `t`: a `blosc2_register_io_cb` code.
fn register_in(t: &mut Table, io: blosc2_io_cb) -> c_int {
    if t.len == usize::from(u8::MAX) {
        return ERR_PLUGIN_IO;
    }
    if io.id < IO_REGISTERED {
        return ERR_PLUGIN_IO;
    }
    let len = t.len;
    if let Some(e) = t.entries[..len].iter().find(|e| e.id == io.id) {
        // SAFETY: registered names and the caller's are NUL-terminated.
        return if unsafe { same_name(e.name, io.name) } {
            SUCCESS
        } else {
            ERR_PLUGIN_IO
        };
    }
    t.entries[len] = io;
    t.len += 1;
    SUCCESS
}

/// Whether two backend names are the same (pointer-equal, or equal C
/// strings; a NULL name only equals NULL).
///
/// # Safety
/// Non-NULL names must be NUL-terminated.
unsafe fn same_name(a: *const c_char, b: *const c_char) -> bool {
    if a == b {
        return true;
    }
    if a.is_null() || b.is_null() {
        return false;
    }
    // SAFETY: both NUL-terminated per the contract.
    unsafe { CStr::from_ptr(a) == CStr::from_ptr(b) }
}

/// Register user-defined I/O callbacks under `io->id` (160 to 255). Returns
/// 0, also when the same id is registered again with the same name;
/// `BLOSC2_ERROR_PLUGIN_IO` (-30) for an id below 160, an id registered
/// under another name, or a full table; `BLOSC2_ERROR_INVALID_PARAM` for
/// NULL. The struct is copied; its name must outlive the registration.
///
/// # Safety
/// `io` must be NULL or point to a valid `blosc2_io_cb` whose name is NULL
/// or NUL-terminated.
#[no_mangle]
pub unsafe extern "C" fn blosc2_register_io_cb(io: *const blosc2_io_cb) -> c_int {
    ffi_boundary!(super::boundary::ERR_FAILURE, {
        if io.is_null() {
            return ERR_INVALID_PARAM;
        }
        // SAFETY: valid per the contract.
        let io = unsafe { *io };
        TABLE.change(|t| register_in(t, io)).unwrap_or(ERR_PLUGIN_IO)
    })
}

/// The callbacks registered under `id` (the built-in ones for 0 and 1), or
/// NULL when none are, or before `blosc2_init` (as 3.3.5).
#[no_mangle]
pub extern "C" fn blosc2_get_io_cb(id: u8) -> *mut blosc2_io_cb {
    ffi_boundary!(ptr::null_mut(), {
        if !super::global_state::is_initialized() {
            return ptr::null_mut();
        }
        lookup_ptr(id)
    })
}

/// Pointer to the table entry for `id`, NULL when none.
fn lookup_ptr(id: u8) -> *mut blosc2_io_cb {
    let Some(mut t) = TABLE.lock_mirrored() else {
        return ptr::null_mut();
    };
    let len = t.len;
    t.entries[..len]
        .iter_mut()
        .find(|e| e.id == id)
        .map_or(ptr::null_mut(), |e| e as *mut blosc2_io_cb)
}

/// A copy of the callbacks registered under `id`.
fn lookup(id: u8) -> Option<blosc2_io_cb> {
    let t = TABLE.lock_mirrored()?;
    t.entries[..t.len].iter().find(|e| e.id == id).copied()
}

/// The engine backend a storage's `io` names: `None` for the file system
/// (the engine default), the callbacks for any other registered id.
/// `Err` for an id nothing is registered under.
pub(crate) fn backend_for(io: &blosc2_io) -> std::result::Result<Option<Arc<dyn FrameFs>>, ()> {
    if io.id == IO_FILESYSTEM {
        return Ok(None);
    }
    let cb = lookup(io.id).ok_or(())?;
    if cb.open.is_none() || cb.close.is_none() || cb.read.is_none() || cb.write.is_none() {
        return Err(());
    }
    Ok(Some(Arc::new(CallbackFs { cb, params: io.params })))
}

/// Release a storage's backend parameters through its `destroy` callback,
/// as 3.3.5 does when a super-chunk is freed (or fails to open). Returns
/// the callback's result (0 when there is none).
///
/// # Safety
/// `io.params` must be what the backend's `destroy` accepts.
pub(crate) unsafe fn destroy_backend(io: &blosc2_io) -> c_int {
    match lookup(io.id).and_then(|cb| cb.destroy) {
        // SAFETY: per the contract.
        Some(destroy) => unsafe { destroy(io.params) },
        None => 0,
    }
}

/// Frames through a `blosc2_io_cb`.
struct CallbackFs {
    cb: blosc2_io_cb,
    params: *mut c_void,
}

// SAFETY: C-Blosc2's contract for I/O callbacks: they may be called from
// any thread (3.3.5 calls them from its worker threads), with the params
// the caller put in the storage, which outlive the super-chunk.
unsafe impl Send for CallbackFs {}
// SAFETY: as above.
unsafe impl Sync for CallbackFs {}

/// One open stream of a [`CallbackFs`], closed when dropped.
struct CallbackFile {
    cb: blosc2_io_cb,
    stream: *mut c_void,
}

// SAFETY: as for `CallbackFs`; a stream is used by one frame at a time.
unsafe impl Send for CallbackFile {}

fn c_path(path: &Path) -> Result<CString> {
    #[cfg(unix)]
    let bytes = {
        use std::os::unix::ffi::OsStrExt;
        path.as_os_str().as_bytes().to_vec()
    };
    #[cfg(not(unix))]
    let bytes = path.to_str().ok_or(Error::FileOpen)?.as_bytes().to_vec();
    CString::new(bytes).map_err(|_| Error::FileOpen)
}

impl CallbackFs {
    fn open_mode(&self, path: &Path, mode: &CStr) -> Result<Box<dyn FrameFile>> {
        let p = c_path(path)?;
        let open = self.cb.open.ok_or(Error::PluginIo)?;
        // SAFETY: NUL-terminated strings; params as the caller gave them.
        let stream = unsafe { open(p.as_ptr(), mode.as_ptr(), self.params) };
        if stream.is_null() {
            return Err(Error::FileOpen);
        }
        Ok(Box::new(CallbackFile { cb: self.cb, stream }))
    }
}

impl FrameFs for CallbackFs {
    fn open(&self, path: &Path, write: bool) -> Result<Box<dyn FrameFile>> {
        self.open_mode(path, if write { c"rb+" } else { c"rb" })
    }
    fn create(&self, path: &Path) -> Result<Box<dyn FrameFile>> {
        self.open_mode(path, c"wb+")
    }
    /// A copy through the backend (its callbacks know no rename), then the
    /// source is removed from the file system where it exists there.
    fn rename(&self, from: &Path, to: &Path) -> Result<()> {
        let mut src = self.open(from, false)?;
        let len = usize::try_from(src.size()?).map_err(|_| Error::FileRead)?;
        let mut bytes = vec![0u8; len];
        src.read_at(0, &mut bytes)?;
        drop(src);
        let mut dst = self.create(to)?;
        dst.write_at(0, &bytes)?;
        dst.truncate(len as u64)?;
        drop(dst);
        let _ = std::fs::remove_file(from);
        Ok(())
    }
    fn remove_file(&self, path: &Path) -> Result<()> {
        std::fs::remove_file(path).map_err(|_| Error::FileRemove)
    }
    fn create_dir(&self, path: &Path) -> Result<()> {
        // 3.3.5 creates sparse frame directories on the file system.
        std::fs::create_dir(path).map_err(|_| Error::FileOpen)
    }
    fn stat(&self, path: &Path) -> Option<bool> {
        // What the file system knows; a file only the backend has is
        // found by opening it (`Frame::open` tries when this says None).
        std::fs::metadata(path).ok().map(|m| m.is_dir())
    }
    fn sync_dir(&self, _path: &Path) -> Result<()> {
        Ok(())
    }
    fn renames_atomically(&self) -> bool {
        false
    }
}

impl FrameFile for CallbackFile {
    fn size(&mut self) -> Result<u64> {
        let size = self.cb.size.ok_or(Error::PluginIo)?;
        // SAFETY: a stream the backend's open returned.
        let n = unsafe { size(self.stream) };
        u64::try_from(n).map_err(|_| Error::FileRead)
    }
    fn read_at(&mut self, pos: u64, buf: &mut [u8]) -> Result<()> {
        if buf.is_empty() {
            return Ok(());
        }
        let read = self.cb.read.ok_or(Error::PluginIo)?;
        let len = i64::try_from(buf.len()).map_err(|_| Error::FileRead)?;
        let pos = i64::try_from(pos).map_err(|_| Error::FileRead)?;
        let mut p = buf.as_mut_ptr().cast::<c_void>();
        // SAFETY: `p` points to `len` writable bytes (backends that need
        // no allocation point it at their own memory instead).
        let n = unsafe { read(&mut p, 1, len, pos, self.stream) };
        if n != len || p.is_null() {
            return Err(Error::FileRead);
        }
        if p != buf.as_mut_ptr().cast::<c_void>() {
            // SAFETY: the backend returned `len` readable bytes at `p`.
            let src = unsafe { std::slice::from_raw_parts(p.cast::<u8>(), buf.len()) };
            buf.copy_from_slice(src);
        }
        Ok(())
    }
    fn write_at(&mut self, pos: u64, data: &[u8]) -> Result<()> {
        if data.is_empty() {
            return Ok(());
        }
        let write = self.cb.write.ok_or(Error::PluginIo)?;
        let len = i64::try_from(data.len()).map_err(|_| Error::FileWrite)?;
        let pos = i64::try_from(pos).map_err(|_| Error::FileWrite)?;
        // SAFETY: `data` is readable for `len` bytes.
        let n = unsafe { write(data.as_ptr().cast(), 1, len, pos, self.stream) };
        if n == len {
            Ok(())
        } else {
            Err(Error::FileWrite)
        }
    }
    fn truncate(&mut self, len: u64) -> Result<()> {
        let truncate = self.cb.truncate.ok_or(Error::PluginIo)?;
        let len = i64::try_from(len).map_err(|_| Error::FileTruncate)?;
        // SAFETY: a stream the backend's open returned.
        if unsafe { truncate(self.stream, len) } < 0 {
            return Err(Error::FileTruncate);
        }
        Ok(())
    }
    fn sync(&mut self) -> Result<()> {
        // The callbacks have no sync; closing is the backend's commit.
        Ok(())
    }
}

impl Drop for CallbackFile {
    fn drop(&mut self) {
        if let Some(close) = self.cb.close {
            // SAFETY: a stream the backend's open returned, closed once.
            unsafe { close(self.stream) };
        }
    }
}
