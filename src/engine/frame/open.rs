//! Opening frames: from a buffer, from a file (at any offset) and from a
//! sparse directory. The layout is located the way 3.3.5 does it (the
//! trailer from `frame_len`, the offsets chunk from `header_len + cbytes`)
//! and every piece is checked against the bytes really available.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use super::bytes::{DataRegion, FrameBytes};
use super::format::{self, FrameHeader, HEADER_MINLEN, TRAILER_MINLEN};
use super::io::{self, FrameFile, FrameFs};
use super::offsets::{self, Entry};
use super::{Frame, FrameKind};
use crate::engine::chunk;
use crate::engine::constants::{EXTENDED_HEADER_LENGTH, MIN_HEADER_LENGTH};
use crate::engine::error::{Error, Result};

/// Reads of a file frame tried before giving up on a writer that keeps
/// committing meanwhile.
const OPEN_ATTEMPTS: u32 = 64;

/// The bytes of a file frame that opening it reads.
struct FileParts {
    l: Layout,
    header: Vec<u8>,
    /// The offsets chunk.
    region: Vec<u8>,
    trailer: Vec<u8>,
}

/// Where the pieces of a frame are, relative to its start.
struct Layout {
    hdr: FrameHeader,
    trailer_pos: u64,
    trailer_len: u32,
    off_pos: u64,
}

/// Locate header, offsets and trailer from the fixed header and the last
/// bytes of the frame. `avail` is how many bytes exist from the frame
/// start; `exact` requires `frame_len == avail` (in-memory buffers).
fn layout(
    fixed: &[u8],
    tail_of: impl FnOnce(u64) -> Result<Vec<u8>>,
    avail: u64,
    exact: bool,
    sparse: bool,
) -> Result<Layout> {
    let hdr = FrameHeader::parse(fixed)?;
    let flen = u64::try_from(hdr.frame_len).map_err(|_| Error::InvalidHeader)?;
    if flen < (HEADER_MINLEN + TRAILER_MINLEN) as u64 || flen > avail || (exact && flen != avail) {
        return Err(Error::InvalidHeader);
    }
    hdr.validate(sparse)?;
    let tail = tail_of(flen)?;
    let trailer_len = format::trailer_len_from_tail(&tail)?;
    if (trailer_len as u64) < TRAILER_MINLEN as u64 || trailer_len as u64 > flen - HEADER_MINLEN as u64 {
        return Err(Error::InvalidHeader);
    }
    let trailer_pos = flen - u64::from(trailer_len);
    let hl = hdr.header_len as u64;
    if hl > trailer_pos {
        return Err(Error::InvalidHeader);
    }
    let off_pos = if sparse || (hdr.nbytes == 0 && trailer_pos == hl) {
        // 3.3.5 puts the trailer right after the header of a frame without
        // data, whatever `cbytes` says (all chunks deleted).
        hl
    } else {
        hl.checked_add(hdr.cbytes as u64).ok_or(Error::InvalidHeader)?
    };
    if off_pos > trailer_pos {
        return Err(Error::InvalidHeader);
    }
    Ok(Layout {
        hdr,
        trailer_pos,
        trailer_len,
        off_pos,
    })
}

/// Decode the offsets chunk found in `region` (everything between the
/// header/data and the trailer) and check every entry.
fn decode_offsets(l: &Layout, region: &[u8], sparse: bool) -> Result<(Vec<i64>, Option<Vec<u8>>)> {
    let by_size = l.hdr.nchunks_from_sizes()?;
    if region.is_empty() {
        return match by_size {
            Some(0) => Ok((Vec::new(), None)),
            _ => Err(Error::InvalidHeader),
        };
    }
    if region.len() < EXTENDED_HEADER_LENGTH {
        return Err(Error::InvalidHeader);
    }
    let (_, cb, _) = chunk::cbuffer_sizes(region)?;
    let cb = cb as usize;
    if cb > region.len() {
        return Err(Error::InvalidHeader);
    }
    let stored = offsets::count(region)?;
    // 3.3.5 trusts the header sizes when the chunk size is fixed; we also
    // accept the offsets' own count when the sizes cannot tell (frames
    // whose chunks are all empty), so such frames round-trip.
    let n = match by_size {
        Some(n) if l.hdr.nbytes > 0 => {
            if n != stored {
                return Err(Error::InvalidHeader);
            }
            n
        }
        _ => stored,
    };
    let offs = offsets::decode(&region[..cb], n)?;
    for &o in &offs {
        match offsets::decode_entry(o)? {
            Entry::Special(_) => {}
            Entry::Stored(v) if sparse => {
                if v > i64::from(u32::MAX) {
                    return Err(Error::InvalidHeader);
                }
            }
            Entry::Stored(v) => {
                if v > l.hdr.cbytes - EXTENDED_HEADER_LENGTH as i64 {
                    return Err(Error::InvalidHeader);
                }
            }
        }
    }
    Ok((offs, Some(region[..cb].to_vec())))
}

fn assemble(
    kind: FrameKind,
    fs: Arc<dyn FrameFs>,
    l: Layout,
    header: &[u8],
    region: &[u8],
    trailer: &[u8],
) -> Result<Frame> {
    let sparse = matches!(kind, FrameKind::Sparse { .. });
    let metas = format::decode_metalayers(header)?;
    let vlmetas = format::decode_trailer(trailer)?;
    let (offsets, off_chunk) = decode_offsets(&l, region, sparse)?;
    Ok(Frame {
        kind,
        fs,
        hdr: l.hdr,
        metas,
        vlmetas,
        offsets,
        off_chunk,
        trailer_len: l.trailer_len,
        data: DataRegion::default(),
        raw: None,
        file: None,
        writable: false,
        growth: 0,
        partial_scratch: Vec::new(),
        chunk_buf: Default::default(),
    })
}

fn slice(buf: &[u8], from: u64, to: u64) -> Result<&[u8]> {
    let (from, to) = (
        usize::try_from(from).map_err(|_| Error::ReadBuffer)?,
        usize::try_from(to).map_err(|_| Error::ReadBuffer)?,
    );
    buf.get(from..to).ok_or(Error::ReadBuffer)
}

impl Frame {
    /// A frame from an in-memory buffer holding exactly one frame
    /// (`blosc2_schunk_from_buffer`). The buffer is kept, so serializing
    /// an unedited frame gives the same bytes back.
    pub fn from_cframe(buf: Vec<u8>) -> Result<Frame> {
        Frame::from_bytes(FrameBytes::owned(buf))
    }

    /// A frame over `buf`, which holds exactly one frame. Nothing is
    /// copied but header, offsets and trailer: chunks are read from `buf`
    /// until an edit gives the frame a data region of its own.
    pub fn from_bytes(buf: FrameBytes) -> Result<Frame> {
        if buf.len() < HEADER_MINLEN {
            return Err(Error::ReadBuffer);
        }
        let l = layout(
            &buf,
            |flen| Ok(buf[(flen as usize - TRAILER_MINLEN)..flen as usize].to_vec()),
            buf.len() as u64,
            true,
            false,
        )?;
        let header = slice(&buf, 0, l.hdr.header_len as u64)?;
        let region = slice(&buf, l.off_pos, l.trailer_pos)?;
        let trailer = slice(&buf, l.trailer_pos, l.hdr.frame_len as u64)?;
        let data_range = {
            let d = slice(&buf, l.hdr.header_len as u64, l.off_pos)?;
            let start = l.hdr.header_len as usize;
            start..start + d.len()
        };
        let mut f = assemble(FrameKind::Memory, io::std_fs(), l, header, region, trailer)?;
        f.data = DataRegion::view(buf.clone(), data_range);
        f.raw = Some(buf);
        Ok(f)
    }

    /// Open the frame stored in `path` (a file, at `offset`, or a sparse
    /// frame directory). Only the header, offsets and trailer are read.
    pub fn open(fs: Arc<dyn FrameFs>, path: &Path, offset: u64) -> Result<Frame> {
        // A path the file system does not know may still be a file of the
        // backend (user callbacks keeping files elsewhere): its open decides.
        match fs.stat(path) {
            Some(true) => Frame::open_sparse(fs, path),
            Some(false) | None => Frame::open_file(fs, path, offset),
        }
    }

    fn open_file(fs: Arc<dyn FrameFs>, path: &Path, offset: u64) -> Result<Frame> {
        let mut file = fs.open(path, false)?;
        // A writer may commit while this reads (see `relayout.rs`): it
        // changes no byte a header references before it has committed a
        // newer header. So a read that finds the same fixed header before
        // and after saw one consistent state, and one that did not is
        // retried; except that a reorder or a same-sized update ends with
        // the header it started from (as in 3.3.5), so a read spanning both
        // of its commits could see that header around an offsets chunk
        // being written: the offsets chunk and trailer are read again and
        // must not have changed either.
        let mut attempts = 0;
        let parsed = loop {
            let mut before = [0u8; HEADER_MINLEN];
            let parsed = Self::read_file_parts(&mut file, offset, &mut before);
            let mut after = [0u8; HEADER_MINLEN];
            let mut unchanged = file.read_at(offset, &mut after).is_ok() && after == before;
            if let (true, Ok(p)) = (unchanged, &parsed) {
                unchanged = Self::parts_still_there(&mut file, offset, p);
            }
            attempts += 1;
            if unchanged || attempts == OPEN_ATTEMPTS {
                break parsed?;
            }
        };
        let FileParts {
            l,
            header,
            region,
            trailer,
        } = parsed;
        let kind = FrameKind::File {
            path: path.to_path_buf(),
            offset,
        };
        let mut f = assemble(kind, fs, l, &header, &region, &trailer)?;
        f.file = Some(file);
        Ok(f)
    }

    /// Whether the offsets chunk and trailer of `p` are still what the
    /// file holds.
    fn parts_still_there(file: &mut Box<dyn FrameFile>, offset: u64, p: &FileParts) -> bool {
        let mut region = vec![0u8; p.region.len()];
        let mut trailer = vec![0u8; p.trailer.len()];
        file.read_at(offset + p.l.off_pos, &mut region).is_ok()
            && file.read_at(offset + p.l.trailer_pos, &mut trailer).is_ok()
            && region == p.region
            && trailer == p.trailer
    }

    /// Read a file frame's layout, header, offsets chunk and trailer,
    /// leaving the fixed header read first in `fixed`.
    fn read_file_parts(
        file: &mut Box<dyn FrameFile>,
        offset: u64,
        fixed: &mut [u8; HEADER_MINLEN],
    ) -> Result<FileParts> {
        let size = file.size()?;
        let avail = size
            .checked_sub(offset)
            .ok_or(Error::InvalidParam("offset beyond the end of the file"))?;
        if avail < HEADER_MINLEN as u64 {
            return Err(Error::FileRead);
        }
        file.read_at(offset, fixed)?;
        let mut tail = vec![0u8; TRAILER_MINLEN];
        let l = layout(
            fixed,
            |flen| {
                file.read_at(offset + flen - TRAILER_MINLEN as u64, &mut tail)?;
                Ok(tail)
            },
            avail,
            false,
            false,
        )?;
        let read = |file: &mut Box<dyn FrameFile>, from: u64, to: u64| -> Result<Vec<u8>> {
            let len = usize::try_from(to - from).map_err(|_| Error::MemoryAlloc)?;
            let mut b = vec![0u8; len];
            file.read_at(offset + from, &mut b)?;
            Ok(b)
        };
        let header = read(file, 0, l.hdr.header_len as u64)?;
        // Only the offsets chunk itself is read, not any slack after it.
        let region = if l.trailer_pos - l.off_pos >= EXTENDED_HEADER_LENGTH as u64 {
            let head = read(file, l.off_pos, l.off_pos + EXTENDED_HEADER_LENGTH as u64)?;
            let (_, cb, _) = chunk::cbuffer_sizes(&head)?;
            let end = l
                .off_pos
                .checked_add(cb as u64)
                .filter(|e| *e <= l.trailer_pos)
                .ok_or(Error::InvalidHeader)?;
            read(file, l.off_pos, end.max(l.off_pos + EXTENDED_HEADER_LENGTH as u64))?
        } else {
            read(file, l.off_pos, l.trailer_pos)?
        };
        let trailer = read(file, l.trailer_pos, l.hdr.frame_len as u64)?;
        Ok(FileParts {
            l,
            header,
            region,
            trailer,
        })
    }

    fn open_sparse(fs: Arc<dyn FrameFs>, dir: &Path) -> Result<Frame> {
        let buf = read_whole(&*fs, &io::sframe_index_path(dir))?;
        if buf.len() < HEADER_MINLEN {
            return Err(Error::FileRead);
        }
        let l = layout(
            &buf,
            |flen| Ok(buf[(flen as usize - TRAILER_MINLEN)..flen as usize].to_vec()),
            buf.len() as u64,
            false,
            true,
        )?;
        let header = slice(&buf, 0, l.hdr.header_len as u64)?;
        let region = slice(&buf, l.off_pos, l.trailer_pos)?;
        let trailer = slice(&buf, l.trailer_pos, l.hdr.frame_len as u64)?;
        assemble(
            FrameKind::Sparse { dir: dir.to_path_buf() },
            fs,
            l,
            header,
            region,
            trailer,
        )
    }

    /// Re-read the header, offsets and trailer of a file or sparse frame
    /// (another handle may have changed it). In-memory frames are left
    /// as they are.
    pub fn refresh(&mut self) -> Result<()> {
        let fresh = match &self.kind {
            FrameKind::Memory => return Ok(()),
            FrameKind::File { path, offset } => Frame::open_file(self.fs.clone(), &path.clone(), *offset)?,
            FrameKind::Sparse { dir } => Frame::open_sparse(self.fs.clone(), &dir.clone())?,
        };
        let writable = self.writable;
        *self = fresh;
        if writable {
            self.make_writable()?;
        }
        Ok(())
    }

    /// Reopen a file frame for writing (once).
    pub(crate) fn make_writable(&mut self) -> Result<()> {
        if self.writable {
            return Ok(());
        }
        if let FrameKind::File { path, .. } = &self.kind {
            self.file = Some(self.fs.open(path, true)?);
        }
        self.writable = true;
        Ok(())
    }
}

/// Read a whole (small) file.
pub(crate) fn read_whole(fs: &dyn FrameFs, path: &Path) -> Result<Vec<u8>> {
    let mut f = fs.open(path, false)?;
    let size = f.size()?;
    let len = usize::try_from(size).map_err(|_| Error::MemoryAlloc)?;
    let mut buf = vec![0u8; len];
    f.read_at(0, &mut buf)?;
    Ok(buf)
}

/// Read chunk file `id` of a sparse frame, checking that it holds one
/// whole chunk.
pub(crate) fn read_sparse_chunk(fs: &dyn FrameFs, dir: &Path, id: i64) -> Result<Vec<u8>> {
    let path: PathBuf = io::sframe_chunk_path(dir, id)?;
    let buf = read_whole(fs, &path)?;
    if buf.len() < MIN_HEADER_LENGTH {
        return Err(Error::FileRead);
    }
    let (_, cbytes, _) = chunk::cbuffer_sizes(&buf)?;
    if cbytes as usize != buf.len() {
        return Err(Error::InvalidHeader);
    }
    Ok(buf)
}
