//! Creating and editing frames.
//!
//! In memory, every edit reproduces the bytes 3.3.5 produces (chunks are
//! appended to the data region, updates compact it, deletes leave the
//! chunk bytes in place).
//!
//! In a file, the bytes end up where 3.3.5 puts them, but nothing live is
//! ever overwritten before a committed header says it is dead: see
//! `relayout.rs`. Edits that change the header's length write a complete
//! new file and rename it over the old one (or, through backends without
//! renames, write it over the old one); dead bytes (deleted chunks, as
//! 3.3.5 leaves them) are reclaimed by [`Frame::compact`], the same way
//! or in place.
//!
//! Sparse frames write chunk files under fresh ids, then replace the
//! index file by renaming a complete new one over it, and only then
//! remove chunk files that are no longer referenced.

use std::borrow::Cow;
use std::path::Path;
use std::sync::Arc;

use super::format::{self, FrameHeader, Meta};
use super::io::{self, FrameFs};
use super::offsets::{self, Entry};
use super::{Frame, FrameKind};
use crate::engine::chunk::{self, SpecialKind};
use crate::engine::constants::{EXTENDED_HEADER_LENGTH, MAX_FILTERS};
use crate::engine::error::{Error, Result};

/// The largest data region a frame without data may claim (see
/// `Frame::apply_memory`) that an edit writes out, as zeros.
const MAX_PHANTOM_DATA: usize = 64 << 20;

/// The super-chunk properties a frame header records.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Props {
    /// Uncompressed bytes.
    pub nbytes: i64,
    /// Item size.
    pub typesize: i32,
    /// Requested block size (0 automatic).
    pub blocksize: i32,
    /// Chunk size (-1 empty, 0 variable).
    pub chunksize: i32,
    /// Codec id.
    pub compcode: u8,
    /// Codec metadata.
    pub compcode_meta: u8,
    /// Compression level.
    pub clevel: u8,
    /// Split mode (1-4).
    pub splitmode: i32,
    /// Filter pipeline.
    pub filters: [u8; MAX_FILTERS],
    /// Filter metadata.
    pub filters_meta: [u8; MAX_FILTERS],
    /// Dictionaries in use.
    pub use_dict: bool,
    /// Compression threads recorded in the header.
    pub nthreads_c: i16,
    /// Decompression threads recorded in the header.
    pub nthreads_d: i16,
    /// The chunks are VL-block chunks.
    pub vl_blocks: bool,
}

/// One change to a frame.
#[derive(Debug, Clone)]
pub enum Edit<'a> {
    /// Append a chunk.
    Append(&'a [u8]),
    /// Insert a chunk before position `n`.
    Insert(usize, &'a [u8]),
    /// Replace chunk `n`.
    Update(usize, &'a [u8]),
    /// Remove chunk `n`.
    Delete(usize),
    /// New order: entry `i` becomes the old entry `order[i]`.
    Reorder(Vec<usize>),
    /// Fill an empty frame with `nchunks` special chunks.
    FillSpecial(i64, SpecialKind),
    /// Replace the fixed metalayers.
    Metas(Vec<Meta>),
    /// Replace the vlmetalayers.
    Vlmetas(Vec<Meta>),
    /// Only rewrite the header counters (nothing else changes).
    Touch,
}

/// An offsets slot while an edit is planned.
pub(crate) enum Slot<'a> {
    /// An existing entry, unchanged.
    Old(i64),
    /// A chunk to be stored.
    New(Cow<'a, [u8]>),
}

/// The header fields for `props`.
pub(crate) fn fixed_header(p: &Props, cbytes: i64, sparse: bool, has_vlmeta: bool) -> FrameHeader {
    let variable = p.chunksize == 0;
    let mut gf = if variable || p.vl_blocks {
        format::VERSION_VL
    } else {
        format::VERSION_RC1
    };
    gf += format::FLAG_OFFSETS_64;
    if variable {
        gf |= format::FLAG_VARIABLE_CHUNKS;
    }
    if p.vl_blocks {
        gf |= format::FLAG_VL_BLOCKS;
    }
    let codec_nibble = if p.compcode >= crate::engine::constants::codec::LAST {
        6
    } else {
        p.compcode
    };
    FrameHeader {
        header_len: 0,
        frame_len: 0,
        general_flags: gf,
        frame_type: if sparse {
            format::TYPE_SPARSE
        } else {
            format::TYPE_CONTIGUOUS
        },
        codec_flags: codec_nibble.wrapping_add(p.clevel << 4),
        other_flags: (p.splitmode - 1).clamp(0, 3) as u8,
        nbytes: p.nbytes,
        cbytes,
        typesize: p.typesize,
        blocksize: p.blocksize,
        chunksize: p.chunksize,
        nthreads_c: p.nthreads_c,
        nthreads_d: p.nthreads_d,
        has_vlmeta,
        nfilters: MAX_FILTERS as u8,
        filters: p.filters,
        filters_meta: p.filters_meta,
        udcodec: p.compcode,
        compcode_meta: p.compcode_meta,
        other_flags2: u8::from(p.use_dict),
    }
}

/// Encode a complete header and fix its `frame_len`.
pub(crate) fn header_bytes(h: &mut FrameHeader, metas: &[Meta], rest_len: i64) -> Result<Vec<u8>> {
    let probe = format::encode_header(h, metas)?;
    h.header_len = probe.len() as i32;
    h.frame_len = probe.len() as i64 + rest_len;
    format::encode_header(h, metas)
}

/// The special kind to store `c` as a special offset with, if any: not
/// in variable-size frames, and not for empty chunks, whose size the
/// frame could not recover.
pub(crate) fn special_for(c: &[u8], variable: bool) -> Option<SpecialKind> {
    if variable || chunk::cbuffer_sizes(c).map_or(true, |(nb, _, _)| nb <= 0) {
        return None;
    }
    offsets::chunk_special_kind(c)
}

/// The bytes chunk `c` is stored as where it is no special offset: itself,
/// or for a zeros, NaN or uninitialized chunk the equivalent repeated-value
/// chunk, which 3.3.5 can read back from a frame on disk (see
/// [`chunk::special::as_value_chunk`]).
pub(crate) fn stored_bytes(c: &[u8]) -> Result<Cow<'_, [u8]>> {
    let c = &c[..chunk_cbytes(c)?];
    Ok(match chunk::special::as_value_chunk(c)? {
        Some(v) => Cow::Owned(v),
        None => Cow::Borrowed(c),
    })
}

/// The stored size of a chunk (its header's cbytes), checked.
pub(crate) fn chunk_cbytes(c: &[u8]) -> Result<usize> {
    let (_, cb, _) = chunk::cbuffer_sizes(c)?;
    if cb as usize > c.len() || (cb as usize) < EXTENDED_HEADER_LENGTH {
        return Err(Error::InvalidParam("chunk shorter than its cbytes"));
    }
    Ok(cb as usize)
}

impl Frame {
    /// A new, empty in-memory frame.
    pub fn new_memory(props: &Props, metas: Vec<Meta>) -> Result<Frame> {
        let mut f = Frame::blank(FrameKind::Memory, io::std_fs(), props, metas)?;
        f.writable = true;
        Ok(f)
    }

    /// A new, empty frame in a new file (which must not exist yet).
    pub fn create_file(fs: Arc<dyn FrameFs>, path: &Path, props: &Props, metas: Vec<Meta>) -> Result<Frame> {
        if fs.stat(path).is_some() {
            return Err(Error::InvalidParam("the frame file already exists"));
        }
        let mut f = Frame::blank(
            FrameKind::File {
                path: path.to_path_buf(),
                offset: 0,
            },
            fs.clone(),
            props,
            metas,
        )?;
        let bytes = f.serialize_memory()?;
        let mut file = fs.create(path)?;
        file.write_at(0, &bytes)?;
        // As for commits: C-Blosc2 does not wait for the disk, and a
        // process that dies leaves the file written either way; only with
        // durable commits on does the new frame wait (two flushes, about
        // 10 ms, which a small file frame cost 100 times over).
        if super::disk::durable_commits() {
            file.sync()?;
            if let Some(parent) = path.parent() {
                fs.sync_dir(parent)?;
            }
        }
        f.file = Some(file);
        f.writable = true;
        Ok(f)
    }

    /// A new, empty sparse frame in a new directory.
    pub fn create_sparse(fs: Arc<dyn FrameFs>, dir: &Path, props: &Props, metas: Vec<Meta>) -> Result<Frame> {
        fs.create_dir(dir)?;
        let mut f = Frame::blank(FrameKind::Sparse { dir: dir.to_path_buf() }, fs, props, metas)?;
        let bytes = f.serialize_memory()?;
        f.replace_file(&io::sframe_index_path(dir), &bytes, &[])?;
        f.writable = true;
        Ok(f)
    }

    fn blank(kind: FrameKind, fs: Arc<dyn FrameFs>, props: &Props, metas: Vec<Meta>) -> Result<Frame> {
        let sparse = matches!(kind, FrameKind::Sparse { .. });
        let mut hdr = fixed_header(props, 0, sparse, false);
        let trailer = format::encode_trailer(&[])?;
        header_bytes(&mut hdr, &metas, trailer.len() as i64)?;
        Ok(Frame {
            kind,
            fs,
            hdr,
            metas,
            vlmetas: Vec::new(),
            offsets: Vec::new(),
            off_chunk: None,
            trailer_len: trailer.len() as u32,
            data: super::bytes::DataRegion::default(),
            raw: None,
            file: None,
            writable: false,
            growth: 0,
            partial_scratch: Vec::new(),
            chunk_buf: Default::default(),
        })
    }

    /// Apply `edit` and record `props` (computed by the super-chunk for
    /// the state after the edit) in the header.
    pub fn apply(&mut self, edit: Edit<'_>, props: &Props) -> Result<()> {
        self.make_writable()?;
        let n = self.offsets.len();
        match &edit {
            Edit::Insert(i, _) if *i > n => return Err(Error::InvalidParam("nchunk out of range")),
            Edit::Update(i, _) | Edit::Delete(i) if *i >= n => return Err(Error::InvalidParam("nchunk out of range")),
            Edit::Reorder(o) => {
                let mut seen = vec![false; n];
                if o.len() != n || o.iter().any(|&k| k >= n || std::mem::replace(&mut seen[k], true)) {
                    return Err(Error::InvalidParam("not a permutation of the chunks"));
                }
            }
            _ => {}
        }
        if let Edit::Metas(m) = &edit {
            if m.len() > format::MAX_METALAYERS {
                return Err(Error::InvalidParam("too many metalayers"));
            }
        }
        if let Edit::Vlmetas(m) = &edit {
            format::encode_trailer(m)?;
        }
        match self.kind.clone() {
            FrameKind::Memory => self.apply_memory(edit, props),
            FrameKind::File { .. } | FrameKind::Sparse { .. } => self.apply_logged(edit, props),
        }
    }

    /// Whether `props` turns a fixed chunk size into a variable one while
    /// special offsets exist: they would lose their size, so they must be
    /// stored as real chunks first.
    pub(crate) fn must_materialize(&self, props: &Props) -> bool {
        props.chunksize == 0 && self.hdr.chunksize > 0 && self.offsets.iter().any(|&o| o < 0)
    }

    /// The in-memory (3.3.5-exact) edit.
    fn apply_memory(&mut self, edit: Edit<'_>, props: &Props) -> Result<()> {
        // A frame without data (every chunk deleted) may still count the
        // deleted chunks' bytes in `cbytes`, and 3.3.5 writes new chunks
        // after that many (uninitialised) bytes; so do we, as zeros. A
        // crafted header may claim any count: past MAX_PHANTOM_DATA, new
        // chunks start the data region instead (a frame 3.3.5 reads alike).
        let cbytes = usize::try_from(self.hdr.cbytes).map_err(|_| Error::InvalidHeader)?;
        if cbytes > self.data.len() && cbytes - self.data.len() <= MAX_PHANTOM_DATA {
            self.data.to_mut().resize(cbytes, 0);
        }
        if self.must_materialize(props) {
            for i in 0..self.offsets.len() {
                if let Entry::Special(k) = offsets::decode_entry(self.offsets[i])? {
                    let c = self.materialized_special(i, k)?;
                    self.offsets[i] = self.data.len() as i64;
                    self.data.to_mut().extend_from_slice(&c);
                }
            }
        }
        let variable = props.chunksize == 0;
        // A special chunk is stored as a special offset unless the frame
        // has variable chunk sizes (its size would be unknown).
        let store = |data: &mut Vec<u8>, c: &[u8]| -> Result<i64> {
            match special_for(c, variable) {
                Some(k) => Ok(offsets::special_offset(k)),
                None => {
                    let off = data.len() as i64;
                    data.extend_from_slice(&stored_bytes(c)?);
                    Ok(off)
                }
            }
        };
        let mut index_changed = true;
        let mut index_room = 0;
        match edit {
            Edit::Append(c) => {
                let o = store(self.data.to_mut(), c)?;
                self.offsets.push(o);
            }
            Edit::Insert(i, c) => {
                let o = store(self.data.to_mut(), c)?;
                self.offsets.insert(i, o);
            }
            Edit::Update(i, c) => self.update_memory(i, c, variable)?,
            Edit::Delete(i) => {
                self.offsets.remove(i);
                index_room = 1;
            }
            Edit::Reorder(order) => {
                let old = self.offsets.clone();
                self.offsets = order.iter().map(|&k| old[k]).collect();
            }
            Edit::FillSpecial(nchunks, kind) => {
                let v = offsets::special_offset(kind);
                self.offsets = vec![v; usize::try_from(nchunks).map_err(|_| Error::InvalidParam("nchunks"))?];
                self.off_chunk = Some(offsets::encode_repeated(nchunks, v)?);
                index_changed = false;
            }
            Edit::Metas(m) => {
                self.metas = m;
                index_changed = false;
            }
            Edit::Vlmetas(m) => {
                self.vlmetas = m;
                index_changed = false;
            }
            Edit::Touch => index_changed = false,
        }
        if index_changed {
            self.off_chunk = Some(offsets::encode_with_room(&self.offsets, index_room)?);
        }
        let cbytes = self.data.len() as i64;
        self.finish_memory(props, cbytes)
    }

    /// 3.3.5's `frame_update_chunk` on an in-memory frame: the new chunk
    /// takes the old one's place and the bytes after it are shifted.
    fn update_memory(&mut self, i: usize, c: &[u8], variable: bool) -> Result<()> {
        let old = self.offsets[i];
        let special = special_for(c, variable);
        let stored = if special.is_some() {
            Cow::Borrowed(&[][..])
        } else {
            stored_bytes(c)?
        };
        let new_bytes: &[u8] = &stored;
        if old >= 0 {
            let (start, _) = self.stored_extent_mem(old)?;
            let mut old_cb = chunk_cbytes(&self.data[start..])?;
            // 3.3.5 takes a 32-byte old chunk for a special one and frees
            // no space for it.
            if old_cb == EXTENDED_HEADER_LENGTH {
                old_cb = 0;
            }
            let delta = new_bytes.len() as i64 - old_cb as i64;
            for (k, o) in self.offsets.iter_mut().enumerate() {
                if k != i && *o >= 0 && *o > old {
                    *o += delta;
                }
            }
            self.data
                .to_mut()
                .splice(start..start + old_cb, new_bytes.iter().copied());
            self.offsets[i] = match special {
                Some(k) => offsets::special_offset(k),
                None => old,
            };
        } else {
            self.offsets[i] = match special {
                Some(k) => offsets::special_offset(k),
                None => {
                    let off = self.data.len() as i64;
                    self.data.to_mut().extend_from_slice(new_bytes);
                    off
                }
            };
        }
        Ok(())
    }

    /// Record the new header of an in-memory frame.
    fn finish_memory(&mut self, props: &Props, cbytes: i64) -> Result<()> {
        let trailer = format::encode_trailer(&self.vlmetas)?;
        let mut hdr = fixed_header(props, cbytes, false, !self.vlmetas.is_empty());
        let body = if self.offsets.is_empty() && props.nbytes == 0 {
            // No chunks: 3.3.5 puts the trailer right after the header.
            self.data.clear();
            self.off_chunk = None;
            0
        } else {
            cbytes + self.off_chunk.as_ref().map_or(0, |o| o.len() as i64)
        };
        header_bytes(&mut hdr, &self.metas, body + trailer.len() as i64)?;
        self.hdr = hdr;
        self.trailer_len = trailer.len() as u32;
        self.raw = None;
        Ok(())
    }
}
