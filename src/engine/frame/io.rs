//! Where frames keep their files: the paths of sparse frames' pieces and
//! the file helpers of the C API. File access itself goes through the
//! backend of `engine::io` (re-exported here).

use std::path::{Path, PathBuf};

use crate::engine::error::{Error, Result};

pub use crate::engine::io::{std_fs, FrameFile, FrameFs, StdFs};

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
/// is not an error. A file's `.b2lock` sidecar goes with it (a sparse
/// frame's lies inside its directory), as in 3.3.5.
pub fn remove_urlpath(path: &str) -> Result<()> {
    let p = Path::new(normalize_urlpath(path));
    match std::fs::metadata(p) {
        Err(_) => Ok(()),
        Ok(m) if m.is_dir() => std::fs::remove_dir_all(p).map_err(|_| Error::FileRemove),
        Ok(_) => {
            std::fs::remove_file(p).map_err(|_| Error::FileRemove)?;
            let mut sidecar = p.as_os_str().to_os_string();
            sidecar.push(".b2lock");
            // Best effort: there may be none.
            let _ = std::fs::remove_file(sidecar);
            Ok(())
        }
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
