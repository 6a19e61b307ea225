//! File access for frames, behind two small traits so that tests can inject
//! a failing write (or a short one) at any point of an operation.

use std::fs::{File, OpenOptions};
use std::io::{Read, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};
use std::sync::Arc;

use crate::engine::error::{Error, Result};

/// An open file with positional access.
pub trait FrameFile: Send {
    /// Current size in bytes.
    fn size(&mut self) -> Result<u64>;
    /// Fill `buf` from `pos`; fails (`FileRead`) if the file is shorter.
    fn read_at(&mut self, pos: u64, buf: &mut [u8]) -> Result<()>;
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
}

/// The real file system (`std::fs`).
#[derive(Debug, Default, Clone, Copy)]
pub struct StdFs;

/// A `std::fs::File` as a [`FrameFile`].
struct StdFile(File);

impl FrameFile for StdFile {
    fn size(&mut self) -> Result<u64> {
        self.0.metadata().map(|m| m.len()).map_err(|_| Error::FileRead)
    }
    fn read_at(&mut self, pos: u64, buf: &mut [u8]) -> Result<()> {
        self.0.seek(SeekFrom::Start(pos)).map_err(|_| Error::FileRead)?;
        self.0.read_exact(buf).map_err(|_| Error::FileRead)
    }
    fn write_at(&mut self, pos: u64, data: &[u8]) -> Result<()> {
        self.0.seek(SeekFrom::Start(pos)).map_err(|_| Error::FileWrite)?;
        self.0.write_all(data).map_err(|_| Error::FileWrite)
    }
    fn truncate(&mut self, len: u64) -> Result<()> {
        self.0.set_len(len).map_err(|_| Error::FileTruncate)
    }
    fn sync(&mut self) -> Result<()> {
        self.0.sync_data().map_err(|_| Error::FileWrite)
    }
}

impl FrameFs for StdFs {
    fn open(&self, path: &Path, write: bool) -> Result<Box<dyn FrameFile>> {
        let f = OpenOptions::new()
            .read(true)
            .write(write)
            .open(path)
            .map_err(|_| Error::FileOpen)?;
        Ok(Box::new(StdFile(f)))
    }
    fn create(&self, path: &Path) -> Result<Box<dyn FrameFile>> {
        let f = OpenOptions::new()
            .read(true)
            .write(true)
            .create(true)
            .truncate(true)
            .open(path);
        Ok(Box::new(StdFile(f.map_err(|_| Error::FileOpen)?)))
    }
    fn rename(&self, from: &Path, to: &Path) -> Result<()> {
        std::fs::rename(from, to).map_err(|_| Error::FileWrite)
    }
    fn remove_file(&self, path: &Path) -> Result<()> {
        std::fs::remove_file(path).map_err(|_| Error::FileRemove)
    }
    fn create_dir(&self, path: &Path) -> Result<()> {
        std::fs::create_dir(path).map_err(|_| Error::FileOpen)
    }
    fn stat(&self, path: &Path) -> Option<bool> {
        std::fs::metadata(path).ok().map(|m| m.is_dir())
    }
    fn sync_dir(&self, path: &Path) -> Result<()> {
        // Directories cannot be opened for syncing everywhere (Windows);
        // a failure here only weakens durability, never consistency.
        if let Ok(d) = File::open(path) {
            let _ = d.sync_all();
        }
        Ok(())
    }
}

/// The default file system, shared.
pub fn std_fs() -> Arc<dyn FrameFs> {
    Arc::new(StdFs)
}

/// Path of the index file of a sparse frame.
pub fn sframe_index_path(dir: &Path) -> PathBuf {
    dir.join("chunks.b2frame")
}

/// Path of chunk file `id` of a sparse frame (`%08X.chunk`).
pub fn sframe_chunk_path(dir: &Path, id: i64) -> Result<PathBuf> {
    let id = u32::try_from(id).map_err(|_| Error::InvalidParam("sparse chunk id out of range"))?;
    Ok(dir.join(format!("{id:08X}.chunk")))
}

/// A path next to `path` for writing a replacement before renaming it.
pub fn temp_path(path: &Path) -> PathBuf {
    let mut name = path.file_name().map(|n| n.to_os_string()).unwrap_or_default();
    name.push(".b2tmp");
    path.with_file_name(name)
}

/// Strip a `file:///` prefix, as C-Blosc2 does.
pub fn normalize_urlpath(p: &str) -> &str {
    p.strip_prefix("file:///").unwrap_or(p)
}

/// Remove a directory and the files in it (`blosc2_remove_dir`).
pub fn remove_dir(path: &str) -> Result<()> {
    std::fs::remove_dir_all(normalize_urlpath(path)).map_err(|_| Error::FileRemove)
}

/// Remove a file or a directory (`blosc2_remove_urlpath`); a missing path
/// is not an error.
pub fn remove_urlpath(path: &str) -> Result<()> {
    let p = Path::new(normalize_urlpath(path));
    match std::fs::metadata(p) {
        Err(_) => Ok(()),
        Ok(m) if m.is_dir() => std::fs::remove_dir_all(p).map_err(|_| Error::FileRemove),
        Ok(_) => std::fs::remove_file(p).map_err(|_| Error::FileRemove),
    }
}

/// Rename a file or a directory (`blosc2_rename_urlpath`).
pub fn rename_urlpath(from: &str, to: &str) -> Result<()> {
    let (from, to) = (Path::new(normalize_urlpath(from)), Path::new(normalize_urlpath(to)));
    if std::fs::metadata(from).is_err() {
        return Err(Error::NotFound);
    }
    if let Ok(m) = std::fs::metadata(to) {
        // C-Blosc2 replaces an existing destination.
        let r = if m.is_dir() {
            std::fs::remove_dir_all(to)
        } else {
            std::fs::remove_file(to)
        };
        r.map_err(|_| Error::FileRemove)?;
    }
    std::fs::rename(from, to).map_err(|_| Error::FileWrite)
}
