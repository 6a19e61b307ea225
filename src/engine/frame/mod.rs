//! Frames: the serialized form of a super-chunk, contiguous (one buffer or
//! file: header, chunks, offsets chunk, trailer) or sparse (a directory
//! with an index frame and one file per chunk), byte-compatible with
//! C-Blosc2 3.3.5.
//!
//! Three storages share one in-memory model ([`Frame`]): the decoded
//! header fields, metalayers, vlmetalayers and offsets.
//! - in memory, edits reproduce 3.3.5's byte layout exactly;
//! - in a file, edits leave 3.3.5's byte layout too, but never overwrite
//!   bytes the committed header references: what must move is first
//!   copied past the end and committed there (see `relayout.rs`);
//! - in a directory, chunk files get fresh ids and the index file is
//!   replaced by renaming a complete new copy over it.
//!
//! Every size, offset and count read from a frame is checked before use.

#![forbid(unsafe_code)]

pub mod bytes;
mod disk;
pub mod edit;
pub mod format;
pub mod io;
pub mod lazy;
pub mod lock;
pub mod offsets;
mod open;
mod relayout;
mod stale;

use std::borrow::Cow;
use std::path::PathBuf;
use std::sync::Arc;

use crate::engine::chunk::{self, SpecialKind};
use crate::engine::constants::{EXTENDED_HEADER_LENGTH, MAX_OVERHEAD};
use crate::engine::error::{Error, Result};
use crate::engine::header::ChunkHeader;
use crate::engine::params::CParams;

pub use bytes::{FrameBytes, LentBytes};
pub use disk::set_durable_commits;
pub use format::{FrameHeader, Meta};
pub use io::{FrameFile, FrameFs, StdFs};
pub use offsets::Entry;

/// How much of an in-memory frame's data region
/// [`Frame::into_cframe_with`] moves before giving that memory back: the
/// most it holds twice at once.
const MOVE_STEP: usize = 256 << 10;

/// Where a frame lives.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum FrameKind {
    /// A contiguous frame in memory.
    Memory,
    /// A contiguous frame in a file, starting at `offset`.
    File {
        /// The file.
        path: PathBuf,
        /// Where the frame starts in the file.
        offset: u64,
    },
    /// A sparse frame: a directory with `chunks.b2frame` and chunk files.
    Sparse {
        /// The directory.
        dir: PathBuf,
    },
}

/// A frame and the decoded state needed to use it.
pub struct Frame {
    kind: FrameKind,
    fs: Arc<dyn FrameFs>,
    /// The fixed header fields as currently stored.
    hdr: FrameHeader,
    metas: Vec<Meta>,
    vlmetas: Vec<Meta>,
    /// One entry per chunk (see [`offsets::decode_entry`]).
    offsets: Vec<i64>,
    /// The stored offsets chunk (absent in a frame that never had chunks).
    off_chunk: Option<Vec<u8>>,
    /// Length of the stored trailer.
    trailer_len: u32,
    /// In-memory frames: the chunk data region (`hdr.cbytes` bytes), a
    /// view on the bytes the frame was read from until an edit copies it.
    data: bytes::DataRegion,
    /// In-memory frames: the exact bytes the frame was loaded from, kept
    /// until the first edit so that serializing returns them unchanged.
    raw: Option<FrameBytes>,
    /// File frames: the open file (read-only until the first edit).
    file: Option<Box<dyn FrameFile>>,
    writable: bool,
    /// File frames: bytes appended by this handle since it was opened or
    /// compacted (drives automatic compaction).
    growth: i64,
    /// Disk frames: where slices read the blocks they need, kept from one
    /// call to the next (see [`Frame::partial_chunk_for_getitem`]).
    partial_scratch: Vec<u8>,
    /// File frames: where whole chunks are read, kept from one read to
    /// the next (see [`Frame::read_file_chunk`]).
    chunk_buf: ChunkBuf,
}

/// What [`Frame::chunk_to_decode_into`] got for a chunk.
pub enum Fetched<'a> {
    /// The chunk, to decode.
    Chunk(Cow<'a, [u8]>),
    /// The chunk's data, this many bytes, already in the destination.
    Copied(usize),
}

/// A buffer for whole chunks read from a file, reused by every read
/// instead of a fresh one per chunk, as a careful C program would do. A
/// fresh buffer per chunk (sizes differing by a few bytes) made glibc's
/// heap keep two chunk-sized holes after its dynamic mmap threshold
/// rose: about 1 MiB more resident memory than 3.3.5 over a 1 GiB
/// round trip of a file frame.
///
/// Its allocation is grown, never shrunk, straight to the largest size
/// the chunk's `nbytes` allows, so that chunks of slightly different
/// sizes fit it; its length is the most bytes read into it so far.
/// Bytes past that length are never written before a read fills them
/// (see [`FrameFile::read_vec_at`]): a `vec![0; size]` of memory the
/// allocator had handed out before was a memset of the whole chunk on
/// every reopened frame's first read (8% of reading a file frame of two
/// 4 MiB chunks back), and pages past the bytes read are never touched.
#[derive(Default)]
struct ChunkBuf(Vec<u8>);

impl ChunkBuf {
    /// Make room for a chunk of `len` compressed bytes holding `nbytes`.
    fn reserve(&mut self, len: usize, nbytes: i32) {
        if self.0.capacity() < len {
            // The old buffer goes first, so that the allocator can reuse
            // its memory.
            self.0 = Vec::new();
            let most = usize::try_from(nbytes).unwrap_or(0).saturating_add(MAX_OVERHEAD);
            self.0 = Vec::with_capacity(len.max(most.min(len.saturating_mul(2))));
        }
    }
}

impl std::fmt::Debug for Frame {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Frame")
            .field("kind", &self.kind)
            .field("hdr", &self.hdr)
            .field("nchunks", &self.offsets.len())
            .finish()
    }
}

impl Frame {
    /// Where the frame lives.
    pub fn kind(&self) -> &FrameKind {
        &self.kind
    }

    /// The fixed header fields.
    pub fn header(&self) -> &FrameHeader {
        &self.hdr
    }

    /// The file system used by file and sparse frames.
    pub fn fs(&self) -> &Arc<dyn FrameFs> {
        &self.fs
    }

    /// Number of chunks.
    pub fn nchunks(&self) -> i64 {
        self.offsets.len() as i64
    }

    /// The raw offsets entries (`blosc2_frame_get_offsets`).
    pub fn offsets(&self) -> &[i64] {
        &self.offsets
    }

    /// The fixed metalayers.
    pub fn metas(&self) -> &[Meta] {
        &self.metas
    }

    /// The vlmetalayers (contents are compressed chunks).
    pub fn vlmetas(&self) -> &[Meta] {
        &self.vlmetas
    }

    /// Total frame length in bytes (`blosc2_schunk_frame_len`).
    pub fn len(&self) -> i64 {
        self.hdr.frame_len
    }

    /// Whether the frame is empty (never: a frame has at least a header).
    pub fn is_empty(&self) -> bool {
        false
    }

    /// Uncompressed size of chunk `n`, as implied by the header (used for
    /// special chunks, which store no header of their own).
    fn special_nbytes(&self, n: usize) -> Result<i32> {
        let cs = self.hdr.chunksize;
        if cs <= 0 {
            // 3.3.5 divides by zero here; a variable-size frame cannot
            // say how large a special chunk is.
            return Err(Error::FrameSpecial);
        }
        let full = i64::from(cs);
        let before = full.checked_mul(n as i64).ok_or(Error::InvalidHeader)?;
        let rest = self.hdr.nbytes - before;
        if rest <= 0 {
            return Err(Error::InvalidHeader);
        }
        Ok(rest.min(full) as i32)
    }

    /// Build the 32-byte chunk a special offset stands for.
    fn special_chunk(&self, n: usize, kind: SpecialKind) -> Result<Vec<u8>> {
        let cp = CParams {
            typesize: self.hdr.typesize,
            blocksize: self.hdr.blocksize.max(0),
            ..CParams::default()
        };
        let nbytes = self.special_nbytes(n)?;
        let mut out = vec![0u8; EXTENDED_HEADER_LENGTH];
        let len = chunk::make_special(&cp, nbytes, Some(kind), None, &mut out)?;
        out.truncate(len);
        Ok(out)
    }

    /// The bytes a special offset's chunk is stored as once the frame's
    /// chunk sizes become variable (see [`edit::stored_bytes`]).
    fn materialized_special(&self, n: usize, kind: SpecialKind) -> Result<Vec<u8>> {
        Ok(edit::stored_bytes(&self.special_chunk(n, kind)?)?.into_owned())
    }

    /// The offsets entry of chunk `n`, decoded.
    pub fn entry(&self, n: i64) -> Result<Entry> {
        let v = *usize::try_from(n)
            .ok()
            .and_then(|i| self.offsets.get(i))
            .ok_or(Error::InvalidParam("nchunk out of range"))?;
        offsets::decode_entry(v)
    }

    /// Chunk `n` (a view into an in-memory frame, a copy otherwise).
    pub fn chunk(&mut self, n: i64) -> Result<Cow<'_, [u8]>> {
        let idx = n as usize;
        match self.entry(n)? {
            Entry::Special(kind) => Ok(Cow::Owned(self.special_chunk(idx, kind)?)),
            Entry::Stored(off) => match self.kind.clone() {
                FrameKind::Memory => {
                    let (start, len) = self.stored_extent_mem(off)?;
                    Ok(Cow::Borrowed(&self.data[start..start + len]))
                }
                FrameKind::File { .. } => {
                    let head = self.read_file_chunk_header(off)?;
                    let len = self.checked_chunk_len(off, &head)?;
                    let mut buf = vec![0u8; len];
                    self.read_data(off, &mut buf)?;
                    Ok(Cow::Owned(buf))
                }
                FrameKind::Sparse { dir } => Ok(Cow::Owned(open::read_sparse_chunk(&*self.fs, &dir, off)?)),
            },
        }
    }

    /// Chunk `n` to decode right away: as [`Frame::chunk`], but a chunk of
    /// a file frame is read into a buffer the frame keeps and reuses for
    /// the next one, so the bytes are only valid until the next read.
    pub fn chunk_to_decode(&mut self, n: i64) -> Result<Cow<'_, [u8]>> {
        match self.chunk_to_decode_into(n, None)? {
            Fetched::Chunk(c) => Ok(c),
            Fetched::Copied(_) => Err(Error::Failure("chunk copied without a destination")),
        }
    }

    /// [`Frame::chunk_to_decode`], but a chunk of a file frame stored as is
    /// ([`chunk::stored_as_is`]) whose data fits `dest` is read straight
    /// into `dest` instead: one copy (file to destination) where reading
    /// the chunk and decompressing it makes two. For callers whose
    /// decompression of such a chunk is a plain copy (no postfilter, no
    /// mask). A read that fails may leave `dest` partly written.
    pub fn chunk_to_decode_into(&mut self, n: i64, dest: Option<&mut [u8]>) -> Result<Fetched<'_>> {
        match (self.entry(n)?, &self.kind) {
            (Entry::Stored(off), FrameKind::File { .. }) => self.read_file_chunk(off, dest),
            _ => self.chunk(n).map(Fetched::Chunk),
        }
    }

    /// The first 32 bytes of chunk `n` (enough for its sizes and flags),
    /// without reading the rest of it.
    pub fn chunk_head(&mut self, n: i64) -> Result<[u8; EXTENDED_HEADER_LENGTH]> {
        let idx = n as usize;
        let mut out = [0u8; EXTENDED_HEADER_LENGTH];
        match self.entry(n)? {
            Entry::Special(kind) => out.copy_from_slice(&self.special_chunk(idx, kind)?),
            Entry::Stored(off) => match self.kind.clone() {
                FrameKind::Memory => {
                    let (start, _) = self.stored_extent_mem(off)?;
                    let s = self
                        .data
                        .get(start..start + EXTENDED_HEADER_LENGTH)
                        .ok_or(Error::ReadBuffer)?;
                    out.copy_from_slice(s);
                }
                FrameKind::File { .. } => {
                    out = self.read_file_chunk_header(off)?;
                    // As `stored_extent_mem` for a frame in memory: a
                    // header whose chunk runs past the data is damaged,
                    // and its sizes (which edits account with) are not
                    // to be trusted.
                    self.checked_chunk_len(off, &out)?;
                }
                FrameKind::Sparse { dir } => {
                    // Only the header: slices of large chunks must not read
                    // whole chunk files (the extent is checked by readers).
                    let mut f = self.fs.open(&io::sframe_chunk_path(&dir, off)?, false)?;
                    if f.size()? < EXTENDED_HEADER_LENGTH as u64 {
                        return Err(Error::ReadBuffer);
                    }
                    f.read_at(0, &mut out)?;
                }
            },
        }
        Ok(out)
    }

    /// Start and length of a stored chunk in the in-memory data region.
    fn stored_extent_mem(&self, off: i64) -> Result<(usize, usize)> {
        let start = usize::try_from(off).map_err(|_| Error::InvalidHeader)?;
        let head = self.data.get(start..).ok_or(Error::InvalidHeader)?;
        let h = chunk::read_header(head)?;
        let len = h.cbytes as usize;
        if len < EXTENDED_HEADER_LENGTH && h.is_extended() || len > head.len() {
            return Err(Error::InvalidHeader);
        }
        Ok((start, len))
    }

    /// Read the 32-byte header of the chunk stored at data offset `off`.
    fn read_file_chunk_header(&mut self, off: i64) -> Result<[u8; EXTENDED_HEADER_LENGTH]> {
        let mut head = [0u8; EXTENDED_HEADER_LENGTH];
        if off < 0 || off > self.hdr.cbytes - EXTENDED_HEADER_LENGTH as i64 {
            return Err(Error::InvalidHeader);
        }
        self.read_data(off, &mut head)?;
        Ok(head)
    }

    /// Checked length of the chunk at data offset `off` whose header is `head`.
    fn checked_chunk_len(&self, off: i64, head: &[u8]) -> Result<usize> {
        self.checked_len(off, &chunk::read_header(head)?)
    }

    /// [`Frame::checked_chunk_len`] from the header already parsed.
    fn checked_len(&self, off: i64, h: &ChunkHeader) -> Result<usize> {
        let len = i64::from(h.cbytes);
        if len < EXTENDED_HEADER_LENGTH as i64 || off.checked_add(len).is_none_or(|end| end > self.hdr.cbytes) {
            return Err(Error::InvalidHeader);
        }
        Ok(len as usize)
    }

    /// The chunk stored at data offset `off` of a file frame, read into
    /// the frame's chunk buffer, or its data read into `dest` (see
    /// [`Frame::chunk_to_decode_into`]).
    fn read_file_chunk(&mut self, off: i64, dest: Option<&mut [u8]>) -> Result<Fetched<'_>> {
        let h = chunk::read_header(&self.read_file_chunk_header(off)?)?;
        let len = self.checked_len(off, &h)?;
        if let Some(dest) = dest {
            if let Some(data) = chunk::stored_as_is(&h).and_then(|nb| dest.get_mut(..nb)) {
                self.read_data(off + EXTENDED_HEADER_LENGTH as i64, data)?;
                return Ok(Fetched::Copied(data.len()));
            }
        }
        self.chunk_buf.reserve(len, h.nbytes);
        let pos = self.data_pos(off, len)?;
        let file = self.file.as_mut().ok_or(Error::FileOpen)?;
        file.read_vec_at(pos, len, &mut self.chunk_buf.0)?;
        Ok(Fetched::Chunk(Cow::Borrowed(&self.chunk_buf.0[..len])))
    }

    /// Read bytes of the data region of a file frame.
    fn read_data(&mut self, off: i64, buf: &mut [u8]) -> Result<()> {
        let pos = self.data_pos(off, buf.len())?;
        let file = self.file.as_mut().ok_or(Error::FileOpen)?;
        file.read_at(pos, buf)
    }

    /// File position of the `len` bytes at data offset `off` of a file
    /// frame, checked to lie in the data region.
    fn data_pos(&self, off: i64, len: usize) -> Result<u64> {
        let (base, hl) = match &self.kind {
            FrameKind::File { offset, .. } => (*offset, self.hdr.header_len as u64),
            _ => return Err(Error::FrameType),
        };
        let end = off.checked_add(len as i64).ok_or(Error::InvalidHeader)?;
        if off < 0 || end > self.hdr.cbytes {
            return Err(Error::InvalidHeader);
        }
        Ok(base + hl + off as u64)
    }

    /// The whole frame as one contiguous buffer. For in-memory and file
    /// frames these are the frame's own bytes; a sparse frame has none
    /// (convert it through a super-chunk copy instead).
    pub fn to_cframe(&mut self) -> Result<Vec<u8>> {
        match self.kind.clone() {
            FrameKind::Memory => match &self.raw {
                Some(r) => Ok(r.to_vec()),
                None => self.serialize_memory(),
            },
            FrameKind::File { offset, .. } => {
                let len = usize::try_from(self.hdr.frame_len).map_err(|_| Error::InvalidHeader)?;
                let mut buf = vec![0u8; len];
                self.file.as_mut().ok_or(Error::FileOpen)?.read_at(offset, &mut buf)?;
                Ok(buf)
            }
            FrameKind::Sparse { .. } => Err(Error::FrameType),
        }
    }

    /// The bytes of an in-memory frame in a buffer from `alloc`, which gets
    /// their exact length and must hand back that many bytes: the caller's
    /// own kind of memory (the C API's `malloc`), filled without an
    /// intermediate copy. The frame's data region moves over in steps of
    /// [`MOVE_STEP`], each step's memory given back before the next, so the
    /// chunks are held about once, not twice, while they move (a 1 GiB
    /// super-chunk's `blosc2_schunk_to_buffer` peaked at three copies).
    pub fn into_cframe_with<B: AsMut<[u8]>>(mut self, alloc: impl FnOnce(usize) -> Result<B>) -> Result<B> {
        if !matches!(self.kind, FrameKind::Memory) {
            return Err(Error::FrameType);
        }
        if let Some(r) = &self.raw {
            let mut out = alloc(r.len())?;
            let buf = out.as_mut();
            if buf.len() != r.len() {
                return Err(Error::MemoryAlloc);
            }
            buf.copy_from_slice(r);
            return Ok(out);
        }
        let header = format::encode_header(&self.hdr, &self.metas)?;
        let trailer = format::encode_trailer(&self.vlmetas)?;
        let mut data = std::mem::take(self.data.to_mut());
        let off_chunk = self.off_chunk.take().unwrap_or_default();
        let len = header.len() + data.len() + off_chunk.len() + trailer.len();
        if len as i64 != self.hdr.frame_len {
            return Err(Error::Failure("frame length mismatch"));
        }
        let mut out = alloc(len)?;
        let buf = out.as_mut();
        if buf.len() != len {
            return Err(Error::MemoryAlloc);
        }
        let (head, rest) = buf.split_at_mut(header.len());
        head.copy_from_slice(&header);
        let (body, tail) = rest.split_at_mut(data.len());
        tail[..off_chunk.len()].copy_from_slice(&off_chunk);
        tail[off_chunk.len()..].copy_from_slice(&trailer);
        // From the end, so that each step only shortens `data`.
        let mut end = data.len();
        while end > 0 {
            let start = end.saturating_sub(MOVE_STEP);
            body[start..end].copy_from_slice(&data[start..end]);
            data.truncate(start);
            data.shrink_to_fit();
            end = start;
        }
        Ok(out)
    }

    /// The bytes of an in-memory frame, serialized once and kept until the
    /// next edit (for callers that hand out a pointer without copying, as
    /// `blosc2_schunk_to_buffer` does).
    pub fn cframe_ref(&mut self) -> Result<&[u8]> {
        if !matches!(self.kind, FrameKind::Memory) {
            return Err(Error::FrameType);
        }
        if self.raw.is_none() {
            self.raw = Some(FrameBytes::owned(self.serialize_memory()?));
        }
        self.raw.as_deref().ok_or(Error::Failure("frame cache"))
    }

    /// Serialize an in-memory frame: header, data, offsets, trailer.
    fn serialize_memory(&self) -> Result<Vec<u8>> {
        let header = format::encode_header(&self.hdr, &self.metas)?;
        let trailer = format::encode_trailer(&self.vlmetas)?;
        let mut out = Vec::with_capacity(self.hdr.frame_len.max(0) as usize);
        out.extend_from_slice(&header);
        out.extend_from_slice(&self.data);
        if let Some(o) = &self.off_chunk {
            out.extend_from_slice(o);
        }
        out.extend_from_slice(&trailer);
        if out.len() as i64 != self.hdr.frame_len {
            return Err(Error::Failure("frame length mismatch"));
        }
        Ok(out)
    }
}
