//! I/O backends: how frames reach their bytes.
//!
//! Every file operation of a frame (contiguous files, the index and chunk
//! files of sparse directories, lazy chunks) goes through a [`FrameFs`],
//! the backend the super-chunk's storage names:
//! - [`stdio::StdFs`], the real file system with positioned reads and
//!   writes (C-Blosc2's `BLOSC2_IO_FILESYSTEM`);
//! - [`mmap::MmapFile`], memory-mapped files in C-Blosc2's modes (`r`,
//!   `r+`, `w+` and copy-on-write `c`), served to frames through the C
//!   callbacks `blosc2_stdio_mmap_*` like any other registered backend;
//! - any other implementation, such as the one `capi` builds over a user's
//!   `blosc2_io_cb` callbacks, or the fault-injecting ones of the tests.
//!
//! A backend honours the contract below (reads fill the whole buffer or
//! fail, writes land whole or fail, truncation is exact); the crash-safety
//! scheme of file frames (`frame/disk.rs`) relies on nothing else.

pub mod mmap;
pub mod stdio;

use std::path::Path;
use std::sync::Arc;

use crate::engine::error::Result;

pub use stdio::StdFs;

/// An open file with positional access.
pub trait FrameFile: Send {
    /// Current size in bytes.
    fn size(&mut self) -> Result<u64>;
    /// Fill `buf` from `pos`; fails (`FileRead`) if the file is shorter.
    fn read_at(&mut self, pos: u64, buf: &mut [u8]) -> Result<()>;
    /// Fill `buf[..len]` from `pos` as [`FrameFile::read_at`] does, first
    /// growing `buf` to `len` bytes when it is shorter (bytes past `len`
    /// keep what they held). Backends that can read into a vector's spare
    /// capacity override it so that growing writes no zeros first.
    fn read_vec_at(&mut self, pos: u64, len: usize, buf: &mut Vec<u8>) -> Result<()> {
        if buf.len() < len {
            buf.resize(len, 0);
        }
        self.read_at(pos, &mut buf[..len])
    }
    /// Write all of `data` at `pos` (`FileWrite` on failure; a failure may
    /// leave any prefix of `data` written).
    fn write_at(&mut self, pos: u64, data: &[u8]) -> Result<()>;
    /// Cut or extend the file to `len` bytes.
    fn truncate(&mut self, len: u64) -> Result<()>;
    /// Make everything written so far durable.
    fn sync(&mut self) -> Result<()>;
}

/// A file system: how frames open, create, rename and remove files.
pub trait FrameFs: Send + Sync {
    /// Open an existing file, for reading only or for reading and writing.
    fn open(&self, path: &Path, write: bool) -> Result<Box<dyn FrameFile>>;
    /// Create (or truncate) a file for reading and writing.
    fn create(&self, path: &Path) -> Result<Box<dyn FrameFile>>;
    /// Atomically replace `to` with `from`.
    fn rename(&self, from: &Path, to: &Path) -> Result<()>;
    /// Remove a file.
    fn remove_file(&self, path: &Path) -> Result<()>;
    /// Create a directory (it must not exist).
    fn create_dir(&self, path: &Path) -> Result<()>;
    /// Whether `path` exists, and whether it is a directory.
    fn stat(&self, path: &Path) -> Option<bool>;
    /// Make a directory's entries (renames, new files) durable.
    fn sync_dir(&self, path: &Path) -> Result<()>;
    /// Whether [`FrameFs::rename`] is atomic and files other than the
    /// frame's own can be created. Backends that only know open, read,
    /// write, truncate and close (C's `blosc2_io_cb`) say no: frames then
    /// skip the automatic compaction that writes a copy and renames it.
    fn renames_atomically(&self) -> bool {
        true
    }
}

/// The default file system, shared.
pub fn std_fs() -> Arc<dyn FrameFs> {
    Arc::new(StdFs)
}
