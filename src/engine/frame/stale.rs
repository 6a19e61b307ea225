//! Cheap staleness check for disk frames: has another handle (or
//! process) changed the frame since this one last read or wrote it?

use super::format::{self, FrameHeader, HEADER_MINLEN};
use super::open::read_whole;
use super::{io, Frame, FrameKind};
use crate::engine::error::{Error, Result};

impl Frame {
    /// Whether the header, metalayers or vlmetalayers stored on disk
    /// differ from the ones this frame holds (always false in memory).
    /// Reads the header and trailer of a file frame (the index file of a
    /// sparse one) and the offsets chunk: reorders and same-sized chunk
    /// updates, and same-sized vlmetalayer edits, leave the header as it
    /// was (as 3.3.5 does).
    pub fn changed_on_disk(&mut self) -> Result<bool> {
        let (header, trailer) = match &self.kind {
            FrameKind::Memory => return Ok(false),
            FrameKind::File { path, offset } => {
                let mut f = self.fs.open(path, false)?;
                let mut fixed = [0u8; HEADER_MINLEN];
                f.read_at(*offset, &mut fixed)?;
                let hdr = FrameHeader::parse(&fixed)?;
                if hdr != self.hdr {
                    return Ok(true);
                }
                let len = usize::try_from(hdr.header_len).map_err(|_| Error::InvalidHeader)?;
                if len < HEADER_MINLEN {
                    return Err(Error::InvalidHeader);
                }
                let mut full = vec![0u8; len];
                f.read_at(*offset, &mut full)?;
                let mut trailer = vec![0u8; self.trailer_len as usize];
                f.read_at(
                    *offset + (hdr.frame_len as u64).saturating_sub(u64::from(self.trailer_len)),
                    &mut trailer,
                )?;
                // Reorders and same-sized updates keep the header (as in
                // 3.3.5) but not the offsets chunk.
                if let Some(o) = &self.off_chunk {
                    let mut stored = vec![0u8; o.len()];
                    let at = *offset + len as u64 + u64::try_from(hdr.cbytes).map_err(|_| Error::InvalidHeader)?;
                    if f.read_at(at, &mut stored).is_err() || &stored != o {
                        return Ok(true);
                    }
                }
                (full, trailer)
            }
            FrameKind::Sparse { dir } => {
                let buf = read_whole(&*self.fs, &io::sframe_index_path(dir))?;
                let hdr = FrameHeader::parse(&buf)?;
                if hdr != self.hdr {
                    return Ok(true);
                }
                let len = usize::try_from(hdr.header_len).map_err(|_| Error::InvalidHeader)?;
                let end = usize::try_from(hdr.frame_len).map_err(|_| Error::InvalidHeader)?;
                let trailer_at = end.saturating_sub(self.trailer_len as usize);
                if let Some(o) = &self.off_chunk {
                    if buf.get(len..len + o.len()) != Some(&o[..]) {
                        return Ok(true);
                    }
                }
                let header = buf.get(..len).ok_or(Error::InvalidHeader)?.to_vec();
                (header, buf.get(trailer_at..end).unwrap_or_default().to_vec())
            }
        };
        if format::decode_metalayers(&header)? != self.metas {
            return Ok(true);
        }
        // A torn or different trailer reads as a change: the refresh that
        // follows re-reads the frame whole.
        Ok(format::decode_trailer(&trailer).map_or(true, |v| v != self.vlmetas))
    }
}
