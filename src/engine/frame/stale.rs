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
    /// sparse one): chunk edits always change the header, but vlmetalayer
    /// edits rewrite the trailer in place (as 3.3.5 does), where a
    /// same-sized one leaves the header as it was.
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
