//! The file system backend (`BLOSC2_IO_FILESYSTEM`): `std::fs` with
//! positioned reads and writes, so that one handle has no seek state and
//! serves readers and writers alike (as 3.3.5's `pread`/`pwrite`).
//!
//! Besides [`StdFs`] for frames, the helpers here back C's
//! `blosc2_stdio_*` functions, which hand a `FILE *` around: opening with
//! a C `fopen` mode and positioned transfers that report how many bytes
//! moved.

use std::fs::{File, OpenOptions};
use std::io::{Read, Seek, SeekFrom};
use std::path::Path;

use super::{FrameFile, FrameFs};
use crate::engine::error::{Error, Result};

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
        if read_at(&self.0, pos, buf) == buf.len() {
            Ok(())
        } else {
            Err(Error::FileRead)
        }
    }
    fn read_vec_at(&mut self, pos: u64, len: usize, buf: &mut Vec<u8>) -> Result<()> {
        let have = buf.len().min(len);
        self.read_at(pos, &mut buf[..have])?;
        if have < len {
            // `read_to_end` reads into the spare capacity as it is, where
            // a `resize` would write zeros first. The handle's own
            // position, which nothing else uses (every other transfer is
            // positioned), goes where the rest starts.
            let want = len - have;
            let mut file = &self.0;
            file.seek(SeekFrom::Start(pos + have as u64))
                .map_err(|_| Error::FileRead)?;
            buf.reserve(want);
            let got = file.take(want as u64).read_to_end(buf).map_err(|_| Error::FileRead)?;
            if got != want {
                return Err(Error::FileRead);
            }
        }
        Ok(())
    }
    fn write_at(&mut self, pos: u64, data: &[u8]) -> Result<()> {
        if write_at(&self.0, pos, data) == data.len() {
            Ok(())
        } else {
            Err(Error::FileWrite)
        }
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

/// Open `path` as C's `fopen(path, mode)` would (`r`, `w`, `a`, each
/// optionally with `+`, `b` anywhere after the first letter). Unknown
/// modes are refused (`InvalidParam`), failures to open are `FileOpen`.
pub fn open_c_mode(path: &Path, mode: &str) -> Result<File> {
    let mut chars = mode.chars();
    let first = chars.next().ok_or(Error::InvalidParam("empty fopen mode"))?;
    let mut plus = false;
    for c in chars {
        match c {
            '+' => plus = true,
            'b' | 't' => {}
            _ => return Err(Error::InvalidParam("unknown fopen mode")),
        }
    }
    let mut o = OpenOptions::new();
    match first {
        'r' => o.read(true).write(plus),
        'w' => o.write(true).read(plus).create(true).truncate(true),
        'a' => o.append(true).read(plus).create(true),
        _ => return Err(Error::InvalidParam("unknown fopen mode")),
    };
    o.open(path).map_err(|_| Error::FileOpen)
}

/// Size of an open file.
pub fn size(f: &File) -> Result<u64> {
    f.metadata().map(|m| m.len()).map_err(|_| Error::FileRead)
}

/// Read up to `buf.len()` bytes at `pos`; returns how many were read (fewer
/// at the end of the file or on an error).
pub fn read_at(f: &File, pos: u64, buf: &mut [u8]) -> usize {
    let mut done = 0;
    while done < buf.len() {
        match positioned::read(f, &mut buf[done..], pos + done as u64) {
            Ok(0) => break,
            Ok(n) => done += n,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
            Err(_) => break,
        }
    }
    done
}

/// Write `data` at `pos`; returns how many bytes were written (fewer on an
/// error).
pub fn write_at(f: &File, pos: u64, data: &[u8]) -> usize {
    let mut done = 0;
    while done < data.len() {
        match positioned::write(f, &data[done..], pos + done as u64) {
            Ok(0) => break,
            Ok(n) => done += n,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
            Err(_) => break,
        }
    }
    done
}

/// Cut or extend an open file to `len` bytes.
pub fn truncate(f: &File, len: u64) -> Result<()> {
    f.set_len(len).map_err(|_| Error::FileTruncate)
}

#[cfg(unix)]
mod positioned {
    use std::fs::File;
    use std::os::unix::fs::FileExt;

    pub fn read(f: &File, buf: &mut [u8], pos: u64) -> std::io::Result<usize> {
        f.read_at(buf, pos)
    }
    pub fn write(f: &File, data: &[u8], pos: u64) -> std::io::Result<usize> {
        f.write_at(data, pos)
    }
}

#[cfg(windows)]
mod positioned {
    use std::fs::File;
    use std::os::windows::fs::FileExt;

    pub fn read(f: &File, buf: &mut [u8], pos: u64) -> std::io::Result<usize> {
        f.seek_read(buf, pos)
    }
    pub fn write(f: &File, data: &[u8], pos: u64) -> std::io::Result<usize> {
        f.seek_write(data, pos)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn c_modes_and_positioned_transfers() {
        let dir = std::env::temp_dir().join(format!("b2stdio-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let p = dir.join("f");
        assert_eq!(open_c_mode(&p, "rb").unwrap_err(), Error::FileOpen);
        assert!(matches!(open_c_mode(&p, "x"), Err(Error::InvalidParam(_))));
        assert!(matches!(open_c_mode(&p, ""), Err(Error::InvalidParam(_))));
        let f = open_c_mode(&p, "wb+").unwrap();
        assert_eq!(write_at(&f, 4, b"abcd"), 4);
        assert_eq!(size(&f).unwrap(), 8);
        let mut b = [9u8; 10];
        assert_eq!(read_at(&f, 2, &mut b), 6, "short read at the end");
        assert_eq!(&b[..6], b"\0\0abcd");
        truncate(&f, 5).unwrap();
        assert_eq!(size(&f).unwrap(), 5);
        let r = open_c_mode(&p, "rb").unwrap();
        assert_eq!(write_at(&r, 0, b"x"), 0, "read-only handle");
        std::fs::remove_dir_all(&dir).unwrap();
    }

    /// `read_vec_at` grows the vector through its spare capacity, keeps
    /// the bytes past `len`, and fails on a short file as `read_at` does.
    #[test]
    fn read_vec_at_grows_into_spare_capacity() {
        let dir = std::env::temp_dir().join(format!("b2stdio-vec-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let p = dir.join("f");
        let bytes: Vec<u8> = (0..100_000u32).map(|i| (i % 251) as u8).collect();
        std::fs::write(&p, &bytes).unwrap();
        let mut f = StdFs.open(&p, false).unwrap();
        let mut buf = Vec::with_capacity(50_000);
        f.read_vec_at(10, 20_000, &mut buf).unwrap();
        assert_eq!(buf, &bytes[10..20_010]);
        f.read_vec_at(7, 100, &mut buf).unwrap();
        assert_eq!(
            (&buf[..100], buf.len()),
            (&bytes[7..107], 20_000),
            "longer contents kept"
        );
        f.read_vec_at(3, 60_000, &mut buf).unwrap();
        assert_eq!(buf, &bytes[3..60_003], "grown past the capacity");
        assert_eq!(f.read_vec_at(90_000, 20_000, &mut buf), Err(Error::FileRead));
        let mut b = [0u8; 5];
        f.read_at(1, &mut b).unwrap();
        assert_eq!(b, bytes[1..6], "positioned reads unaffected by the seek");
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
