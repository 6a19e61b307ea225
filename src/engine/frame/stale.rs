//! Cheap staleness check for disk frames: has another handle (or
//! process) changed the frame since this one last read or wrote it?

use super::format::{self, FrameHeader, HEADER_MINLEN};
use super::open::read_whole;
use super::{io, Frame, FrameKind};
use crate::engine::error::{Error, Result};

impl Frame {
    /// Whether the header or metalayers stored on disk differ from the
    /// ones this frame holds (always false in memory). Reads only the
    /// header of a file frame (the index file of a sparse one); every
    /// edit rewrites it, so an unchanged header means an unchanged frame.
    pub fn changed_on_disk(&mut self) -> Result<bool> {
        let header = match &self.kind {
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
                full
            }
            FrameKind::Sparse { dir } => {
                let buf = read_whole(&*self.fs, &io::sframe_index_path(dir))?;
                let hdr = FrameHeader::parse(&buf)?;
                if hdr != self.hdr {
                    return Ok(true);
                }
                let len = usize::try_from(hdr.header_len).map_err(|_| Error::InvalidHeader)?;
                buf.get(..len).ok_or(Error::InvalidHeader)?.to_vec()
            }
        };
        Ok(format::decode_metalayers(&header)? != self.metas)
    }
}
