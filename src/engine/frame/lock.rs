//! Opt-in advisory locking of on-disk frames, compatible with C-Blosc2
//! 3.3.5's: an exclusive or shared `flock` on a sidecar file
//! (`<file>.b2lock` next to a contiguous frame, `<dir>/.b2lock` inside a
//! sparse one) holding a little-endian generation counter at byte 8 that
//! every exclusive locker bumps, so other handles (ours or C's) notice
//! changes even when the frame length stays the same.

use std::fs::{File, OpenOptions};
use std::path::PathBuf;

use crate::engine::error::{Error, Result};

/// Where the generation counter lives in the sidecar.
const SEQ_OFFSET: u64 = 8;

/// The lock of one frame handle; nested acquisitions only count.
#[derive(Debug)]
pub struct FrameLock {
    path: PathBuf,
    file: Option<File>,
    depth: u32,
    seq: u64,
}

impl FrameLock {
    /// The lock for the frame at `urlpath` (`sparse` for a directory frame).
    pub fn new(urlpath: &str, sparse: bool) -> FrameLock {
        let path = if sparse {
            format!("{urlpath}/.b2lock")
        } else {
            format!("{urlpath}.b2lock")
        };
        FrameLock {
            path: PathBuf::from(path),
            file: None,
            depth: 0,
            seq: 0,
        }
    }

    /// True while this handle holds the lock.
    pub fn held(&self) -> bool {
        self.depth > 0
    }

    /// Take the lock (exclusive for writers). Returns true when another
    /// handle changed the frame since this one last held the lock.
    pub fn acquire(&mut self, exclusive: bool) -> Result<bool> {
        if self.depth > 0 {
            self.depth += 1;
            return Ok(false);
        }
        if self.file.is_none() {
            let f = OpenOptions::new()
                .read(true)
                .write(true)
                .create(true)
                .truncate(false)
                .open(&self.path)
                .map_err(|_| Error::Lock)?;
            self.file = Some(f);
        }
        let f = self.file.as_ref().ok_or(Error::Lock)?;
        if exclusive { f.lock() } else { f.lock_shared() }.map_err(|_| Error::Lock)?;
        let seq = match read_seq(f) {
            Ok(s) => s,
            Err(e) => {
                let _ = f.unlock();
                return Err(e);
            }
        };
        if exclusive {
            if let Err(e) = write_seq(f, seq.wrapping_add(1)) {
                let _ = f.unlock();
                return Err(e);
            }
        }
        let changed = seq != self.seq;
        self.seq = if exclusive { seq.wrapping_add(1) } else { seq };
        self.depth = 1;
        Ok(changed)
    }

    /// Release one level of the lock.
    pub fn release(&mut self) -> Result<()> {
        if self.depth == 0 {
            return Ok(());
        }
        self.depth -= 1;
        if self.depth == 0 {
            if let Some(f) = &self.file {
                f.unlock().map_err(|_| Error::Lock)?;
            }
        }
        Ok(())
    }
}

#[cfg(unix)]
fn read_seq(f: &File) -> Result<u64> {
    use std::os::unix::fs::FileExt;
    let mut b = [0u8; 8];
    match f.read_at(&mut b, SEQ_OFFSET) {
        // A fresh (short) sidecar reads as generation 0.
        Ok(8) => Ok(u64::from_le_bytes(b)),
        Ok(_) => Ok(0),
        Err(_) => Err(Error::Lock),
    }
}

#[cfg(unix)]
fn write_seq(f: &File, seq: u64) -> Result<()> {
    use std::os::unix::fs::FileExt;
    f.write_all_at(&seq.to_le_bytes(), SEQ_OFFSET).map_err(|_| Error::Lock)
}

#[cfg(not(unix))]
fn read_seq(_f: &File) -> Result<u64> {
    Ok(0)
}

#[cfg(not(unix))]
fn write_seq(_f: &File, _seq: u64) -> Result<()> {
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn generations_and_nesting() {
        let dir = std::env::temp_dir().join(format!("b2lock-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let frame = dir.join("f.b2frame");
        let p = frame.to_str().unwrap();
        let mut a = FrameLock::new(p, false);
        let mut b = FrameLock::new(p, false);
        assert!(
            !a.acquire(true).unwrap(),
            "fresh sidecar: generation 0 -> 1, seen as ours"
        );
        assert!(!a.acquire(true).unwrap(), "nested");
        a.release().unwrap();
        assert!(a.held());
        a.release().unwrap();
        assert!(!a.held());
        // b has not seen generation 1 yet.
        assert!(b.acquire(false).unwrap());
        b.release().unwrap();
        assert!(!b.acquire(false).unwrap());
        b.release().unwrap();
        assert!(dir.join("f.b2frame.b2lock").exists());
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
