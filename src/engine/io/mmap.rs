//! Memory-mapped files (`BLOSC2_IO_FILESYSTEM_MMAP`) in C-Blosc2 3.3.5's
//! modes, on `memmap2`:
//! - `r`: read-only, mapped at the file's size;
//! - `r+` / `w+`: shared read-write mappings (`w+` creates or empties the
//!   file) of at least `initial_mapping_size` bytes; a write past the end
//!   first extends the file, and one past the mapping remaps it at twice
//!   the new size, as 3.3.5 does;
//! - `c`: copy-on-write. Writes stay in this process's memory and the file
//!   never changes; the file's pages are mapped privately and, once a write
//!   goes past them, the contents move to an anonymous mapping (touching a
//!   private file mapping past the end of the file would fault).
//!
//! Reads past the logical size are refused, so no page beyond the end of
//! the file is ever touched.
//!
//! `unsafe` here is only the creation and remapping of mappings, which
//! memmap2 marks unsafe because another process may change or shrink the
//! mapped file meanwhile; see the `SAFETY` comments.

#![allow(unsafe_code)]

use std::fs::{File, OpenOptions};
use std::path::Path;

use memmap2::{Mmap, MmapMut, MmapOptions};

use crate::engine::error::{Error, Result};

/// How a file is mapped (C-Blosc2's `blosc2_stdio_mmap.mode`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MmapMode {
    /// `r`: read only.
    Read,
    /// `r+`: read and write an existing file.
    ReadWrite,
    /// `w+`: create (or empty) a file, read and write it.
    Create,
    /// `c`: copy-on-write; the file is never changed.
    CopyOnWrite,
}

impl MmapMode {
    /// The mode named by C's mode string, if it is one of the four.
    pub fn parse(mode: &str) -> Option<MmapMode> {
        match mode {
            "r" => Some(MmapMode::Read),
            "r+" => Some(MmapMode::ReadWrite),
            "w+" => Some(MmapMode::Create),
            "c" => Some(MmapMode::CopyOnWrite),
            _ => None,
        }
    }

    /// Whether writes are possible.
    pub fn writable(self) -> bool {
        self != MmapMode::Read
    }

    /// Whether writes stay in memory (`c`).
    pub fn memory_only(self) -> bool {
        self == MmapMode::CopyOnWrite
    }
}

/// The mapped bytes.
enum Region {
    ReadOnly(Mmap),
    Writable(MmapMut),
}

impl Region {
    fn bytes(&self) -> &[u8] {
        match self {
            Region::ReadOnly(m) => m,
            Region::Writable(m) => m,
        }
    }
}

/// An open memory-mapped file.
pub struct MmapFile {
    file: File,
    mode: MmapMode,
    region: Region,
    /// The file's logical size: what reads may reach.
    file_size: usize,
    /// The mapping size as 3.3.5 reports it (`mapping_size`).
    mapping_size: usize,
}

impl std::fmt::Debug for MmapFile {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("MmapFile")
            .field("mode", &self.mode)
            .field("file_size", &self.file_size)
            .field("mapping_size", &self.mapping_size)
            .finish_non_exhaustive()
    }
}

/// An anonymous, zero-filled mapping of `len` (at least 1) bytes.
fn anon(len: usize) -> Result<MmapMut> {
    MmapMut::map_anon(len.max(1)).map_err(|_| Error::FileOpen)
}

impl MmapFile {
    /// Open and map `path` in `mode`; the writable shared modes map at
    /// least `initial_mapping_size` bytes.
    pub fn open(path: &Path, mode: MmapMode, initial_mapping_size: usize) -> Result<MmapFile> {
        let mut o = OpenOptions::new();
        match mode {
            MmapMode::Read | MmapMode::CopyOnWrite => o.read(true),
            MmapMode::ReadWrite => o.read(true).write(true),
            MmapMode::Create => o.read(true).write(true).create(true).truncate(true),
        };
        let file = o.open(path).map_err(|_| Error::FileOpen)?;
        let len = file.metadata().map_err(|_| Error::FileOpen)?.len();
        let file_size = usize::try_from(len).map_err(|_| Error::FileOpen)?;
        let wanted = match mode {
            MmapMode::Read => file_size,
            _ => initial_mapping_size.max(file_size),
        };
        let mapping_size = wanted.max(1);
        let region = match mode {
            MmapMode::Read if file_size == 0 => Region::Writable(anon(1)?),
            // SAFETY: the mapping covers the file's current bytes only;
            // like C-Blosc2, we rely on no other process shrinking the file
            // while it is mapped (that would fault on access, not corrupt).
            MmapMode::Read => Region::ReadOnly(unsafe { Mmap::map(&file) }.map_err(|_| Error::FileOpen)?),
            MmapMode::CopyOnWrite if file_size == 0 => Region::Writable(anon(mapping_size)?),
            // SAFETY: a private mapping of the file's current bytes: our
            // writes never reach the file; as above for other processes.
            MmapMode::CopyOnWrite => Region::Writable(
                unsafe { MmapOptions::new().len(file_size).map_copy(&file) }.map_err(|_| Error::FileOpen)?,
            ),
            // SAFETY: a shared mapping that may extend past the end of the
            // file; bytes past `file_size` are never touched (writes extend
            // the file before they copy).
            MmapMode::ReadWrite | MmapMode::Create => Region::Writable(
                unsafe { MmapOptions::new().len(mapping_size).map_mut(&file) }.map_err(|_| Error::FileOpen)?,
            ),
        };
        Ok(MmapFile {
            file,
            mode,
            region,
            file_size,
            mapping_size,
        })
    }

    /// The mode the file was opened in.
    pub fn mode(&self) -> MmapMode {
        self.mode
    }

    /// The logical file size.
    pub fn size(&self) -> u64 {
        self.file_size as u64
    }

    /// The mapping size as 3.3.5 reports it.
    pub fn mapping_size(&self) -> usize {
        self.mapping_size
    }

    /// Start address of the mapping (for C's `blosc2_stdio_mmap.addr`).
    pub fn addr(&self) -> *const u8 {
        self.region.bytes().as_ptr()
    }

    /// The underlying file.
    pub fn file(&self) -> &File {
        &self.file
    }

    /// The `len` bytes at `pos`, which must lie within the file.
    pub fn read(&self, pos: u64, len: usize) -> Result<&[u8]> {
        let start = usize::try_from(pos).map_err(|_| Error::FileRead)?;
        let end = start.checked_add(len).ok_or(Error::FileRead)?;
        if end > self.file_size {
            return Err(Error::FileRead);
        }
        self.region.bytes().get(start..end).ok_or(Error::FileRead)
    }

    /// Write `data` at `pos`, growing the file (and the mapping) as needed.
    pub fn write(&mut self, pos: u64, data: &[u8]) -> Result<()> {
        if !self.mode.writable() {
            return Err(Error::FileWrite);
        }
        if data.is_empty() {
            return Ok(());
        }
        let start = usize::try_from(pos).map_err(|_| Error::FileWrite)?;
        let end = start.checked_add(data.len()).ok_or(Error::FileWrite)?;
        if end > self.file_size {
            if !self.mode.memory_only() {
                self.file.set_len(end as u64).map_err(|_| Error::FileWrite)?;
            }
            self.file_size = end;
        }
        if self.mapping_size < self.file_size {
            self.mapping_size = self.file_size.checked_mul(2).unwrap_or(self.file_size);
        }
        if self.region.bytes().len() < end {
            self.grow(end)?;
        }
        match &mut self.region {
            Region::Writable(m) => m.get_mut(start..end).ok_or(Error::FileWrite)?.copy_from_slice(data),
            Region::ReadOnly(_) => return Err(Error::FileWrite),
        }
        Ok(())
    }

    /// Make the mapping cover at least `end` bytes.
    fn grow(&mut self, end: usize) -> Result<()> {
        let new_len = self.mapping_size.max(end);
        if self.mode.memory_only() {
            let mut fresh = anon(new_len)?;
            let old = self.region.bytes();
            fresh[..old.len()].copy_from_slice(old);
            self.region = Region::Writable(fresh);
            return Ok(());
        }
        let Region::Writable(m) = &mut self.region else {
            return Err(Error::FileWrite);
        };
        // Flush what was written so far: a remap must not lose it.
        m.flush().map_err(|_| Error::FileWrite)?;
        #[cfg(target_os = "linux")]
        {
            // SAFETY: the mapping is ours (no outstanding borrows: `self` is
            // borrowed mutably) and may move; bytes past the file's end are
            // not touched, as for `open`.
            unsafe { m.remap(new_len, memmap2::RemapOptions::new().may_move(true)) }.map_err(|_| Error::FileWrite)?;
        }
        #[cfg(not(target_os = "linux"))]
        {
            // SAFETY: as for the shared mapping of `open`.
            let fresh = unsafe { MmapOptions::new().len(new_len).map_mut(&self.file) }.map_err(|_| Error::FileWrite)?;
            *m = fresh;
        }
        Ok(())
    }

    /// Set the logical size to `len`, cutting (or extending) the file too
    /// except in copy-on-write mode.
    pub fn truncate(&mut self, len: u64) -> Result<()> {
        let target = usize::try_from(len).map_err(|_| Error::FileTruncate)?;
        if target == self.file_size {
            return Ok(());
        }
        if !self.mode.memory_only() {
            self.file.set_len(len).map_err(|_| Error::FileTruncate)?;
        }
        if target > self.region.bytes().len() && self.mode.memory_only() {
            self.mapping_size = self.mapping_size.max(target);
            self.grow(target)?;
        }
        self.file_size = target;
        Ok(())
    }

    /// Write modified pages of a shared mapping to the file.
    pub fn flush(&self) -> Result<()> {
        match (&self.region, self.mode) {
            (Region::Writable(m), MmapMode::ReadWrite | MmapMode::Create) => m
                .flush_range(0, self.file_size.min(m.len()))
                .map_err(|_| Error::FileWrite),
            _ => Ok(()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn dir(name: &str) -> std::path::PathBuf {
        let d = std::env::temp_dir().join(format!("b2mmap-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&d);
        std::fs::create_dir_all(&d).unwrap();
        d
    }

    #[test]
    fn modes_growth_and_truncation() {
        let d = dir("modes");
        let p = d.join("f");
        assert_eq!(MmapFile::open(&p, MmapMode::Read, 1).unwrap_err(), Error::FileOpen);
        // w+ with a tiny mapping: every write past it remaps.
        let mut w = MmapFile::open(&p, MmapMode::Create, 1).unwrap();
        assert_eq!((w.size(), w.mapping_size()), (0, 1));
        w.write(0, b"hello").unwrap();
        assert_eq!((w.size(), w.mapping_size()), (5, 10));
        w.write(100, &[7u8; 50]).unwrap();
        assert_eq!(w.size(), 150);
        assert_eq!(w.read(0, 5).unwrap(), b"hello");
        assert_eq!(w.read(100, 50).unwrap(), &[7u8; 50][..]);
        assert_eq!(w.read(140, 11).unwrap_err(), Error::FileRead, "past the end");
        w.truncate(120).unwrap();
        assert_eq!(w.read(119, 2).unwrap_err(), Error::FileRead);
        w.flush().unwrap();
        drop(w);
        assert_eq!(std::fs::metadata(&p).unwrap().len(), 120);
        // c: writes stay in memory, also past the end of the file.
        let mut c = MmapFile::open(&p, MmapMode::CopyOnWrite, 1 << 20).unwrap();
        c.write(0, b"HELLO").unwrap();
        c.write(200, b"tail").unwrap();
        assert_eq!(c.read(0, 5).unwrap(), b"HELLO");
        assert_eq!(c.read(200, 4).unwrap(), b"tail");
        c.truncate(10).unwrap();
        drop(c);
        let on_disk = std::fs::read(&p).unwrap();
        assert_eq!((on_disk.len(), &on_disk[..5]), (120, &b"hello"[..]));
        // r: no writes; r+: writes reach the file.
        let mut r = MmapFile::open(&p, MmapMode::Read, 1).unwrap();
        assert_eq!(r.write(0, b"x").unwrap_err(), Error::FileWrite);
        assert_eq!(r.truncate(3).unwrap_err(), Error::FileTruncate);
        drop(r);
        let mut rw = MmapFile::open(&p, MmapMode::ReadWrite, 1).unwrap();
        rw.write(1, b"E").unwrap();
        rw.flush().unwrap();
        drop(rw);
        assert_eq!(&std::fs::read(&p).unwrap()[..5], b"hEllo");
        assert_eq!(MmapMode::parse("w"), None);
        std::fs::remove_dir_all(&d).unwrap();
    }
}
