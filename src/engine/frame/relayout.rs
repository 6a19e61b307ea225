//! Chunk edits of a contiguous file frame, leaving the bytes where 3.3.5's
//! `frame_{append,insert,update,delete}_chunk` and `frame_reorder_offsets`
//! leave them, without ever overwriting a byte the committed header still
//! references.
//!
//! 3.3.5's layout after an edit: the data region keeps every byte before
//! some position `from` (the replaced chunk's offset for an update of a
//! stored chunk, the end of the data otherwise), then come the new chunk
//! and the chunks that followed the replaced one (moved by the size
//! difference), then any appended chunk, then the offsets chunk and the
//! trailer. Deletes and reorders rewrite only the offsets chunk, as 3.3.5
//! does (deleted chunks stay as dead bytes, counted in `cbytes`).
//!
//! Written in two commits, with nothing but positioned reads, writes and
//! truncation (so through every backend):
//! 1. the "bridge": everything the old state references from `from` on
//!    (the chunks there, an offsets chunk pointing at their copies, the
//!    trailer) is copied past both the old end and the new end, and a
//!    header describing that copy is committed: the old state, unchanged
//!    but for where its tail lies, so the bytes from `from` on are dead;
//! 2. the new chunks, the moved chunks (read from the copy), the new
//!    offsets chunk and trailer are written at `from`, and one write of
//!    the 87-byte fixed header (inside the frame's first sector) commits
//!    them; the copy past the new end is cut off.
//!
//! Bytes written per edit: twice what 3.3.5 writes when chunks move (the
//! tail after the edited chunk once into the bridge, once back), the same
//! plus one offsets chunk and trailer otherwise.

use super::disk::{durable_commits, Plan};
use super::edit::{fixed_header, header_bytes, Props, Slot};
use super::format::{self, Meta, HEADER_MINLEN};
use super::offsets;
use super::Frame;
use crate::engine::constants::EXTENDED_HEADER_LENGTH;
use crate::engine::error::{Error, Result};

/// Copy unit when chunks move.
const COPY_BLOCK: usize = 1 << 20;

/// A part of the new data region after `from`.
enum Piece<'p> {
    /// Bytes of the old data region (`at`, `len` relative to its start).
    Old { at: i64, len: i64 },
    /// A new chunk.
    New(&'p [u8]),
}

/// The new data region, as 3.3.5 lays it out.
struct Relayout<'p> {
    /// Data offset up to which the old bytes stay as they are.
    from: i64,
    /// What follows `from`, in order.
    pieces: Vec<Piece<'p>>,
    /// The new offsets entries.
    offsets: Vec<i64>,
    /// The new `cbytes`.
    cbytes: i64,
}

impl Frame {
    /// Where 3.3.5 puts the chunks after `plan`.
    fn relayout<'p>(&mut self, plan: &'p Plan<'_>) -> Result<Relayout<'p>> {
        let c = self.hdr.cbytes;
        let mut from = c;
        let mut end = c;
        let mut pieces = Vec::new();
        // Offsets past the replaced chunk move by the size difference.
        let mut moved: Option<(i64, i64)> = None;
        if let Some((i, o)) = plan.replaced {
            let head = self.read_file_chunk_header(o)?;
            let old_len = self.checked_chunk_len(o, &head)? as i64;
            // 3.3.5 takes a 32-byte chunk for a special one and frees no
            // space for it: it stays, dead, before the moved tail.
            let freed = if old_len == EXTENDED_HEADER_LENGTH as i64 {
                0
            } else {
                old_len
            };
            let new_len = match plan.slots.get(i) {
                Some(Slot::New(b)) => {
                    pieces.push(Piece::New(b));
                    b.len() as i64
                }
                _ => 0,
            };
            if o + freed < c {
                pieces.push(Piece::Old {
                    at: o + freed,
                    len: c - o - freed,
                });
            }
            from = o;
            end = c + new_len - freed;
            moved = Some((o, new_len - freed));
        }
        let mut offs = Vec::with_capacity(plan.slots.len());
        for (k, s) in plan.slots.iter().enumerate() {
            match s {
                Slot::Old(v) => offs.push(match moved {
                    Some((o, d)) if *v > o => v + d,
                    _ => *v,
                }),
                Slot::New(_) if plan.replaced.is_some_and(|(i, _)| i == k) => offs.push(from),
                Slot::New(b) => {
                    offs.push(end);
                    pieces.push(Piece::New(b));
                    end += b.len() as i64;
                }
            }
        }
        Ok(Relayout {
            from,
            pieces,
            offsets: offs,
            cbytes: end,
        })
    }

    /// Write `plan` to a contiguous file frame whose header keeps its
    /// length (see the module documentation). A frame that loses its last
    /// chunk keeps only header and trailer, with `cbytes` 0.
    pub(super) fn commit_in_place(&mut self, plan: Plan<'_>, props: &Props, base: u64) -> Result<()> {
        self.check_data_region()?;
        let empty = plan.slots.is_empty() && props.nbytes == 0;
        let (lay, off_chunk) = if empty {
            let lay = Relayout {
                from: 0,
                pieces: Vec::new(),
                offsets: Vec::new(),
                cbytes: 0,
            };
            (lay, None)
        } else {
            let lay = self.relayout(&plan)?;
            let off_chunk = match (&plan.off_chunk, plan.index_changed, &self.off_chunk) {
                (Some(o), _, _) => o.clone(),
                (None, false, Some(o)) => o.clone(),
                _ => offsets::encode_with_room(&lay.offsets, plan.index_room)?,
            };
            (lay, Some(off_chunk))
        };
        let (metas, vlmetas) = (plan.metas.clone(), plan.vlmetas.clone());
        self.write_relayout(lay, off_chunk, metas, vlmetas, props, base)
    }

    /// Rewrite a contiguous file frame without dead bytes, in place: the
    /// stored chunks packed in the order they lie in, from the first gap on.
    pub(super) fn compact_in_place(&mut self, props: &Props, base: u64) -> Result<()> {
        self.check_data_region()?;
        let mut stored: Vec<i64> = self.offsets.iter().copied().filter(|&o| o >= 0).collect();
        stored.sort_unstable();
        stored.dedup();
        let mut moved = std::collections::HashMap::new();
        let mut pieces = Vec::new();
        let mut from = None;
        let mut pos = 0i64;
        for &o in &stored {
            let head = self.read_file_chunk_header(o)?;
            let len = self.checked_chunk_len(o, &head)? as i64;
            if o < pos {
                // Chunks sharing bytes (a crafted frame): not to be packed.
                return Err(Error::InvalidHeader);
            }
            if from.is_none() && o > pos {
                from = Some(pos);
            }
            if from.is_some() {
                pieces.push(Piece::Old { at: o, len });
            }
            moved.insert(o, pos);
            pos += len;
        }
        let Some(from) = from.or((pos < self.hdr.cbytes).then_some(pos)) else {
            return Ok(());
        };
        let offs: Vec<i64> = self.offsets.iter().map(|o| *moved.get(o).unwrap_or(o)).collect();
        let off_chunk = offsets::encode_with_room(&offs, 0)?;
        let lay = Relayout {
            from,
            pieces,
            offsets: offs,
            cbytes: pos,
        };
        let (metas, vlmetas) = (self.metas.clone(), self.vlmetas.clone());
        self.write_relayout(lay, Some(off_chunk), metas, vlmetas, props, base)
    }

    /// The committed header's data region must lie inside the frame.
    fn check_data_region(&self) -> Result<()> {
        if self.hdr.cbytes < 0 || i64::from(self.hdr.header_len) + self.hdr.cbytes > self.hdr.frame_len {
            return Err(Error::InvalidHeader);
        }
        Ok(())
    }

    /// Bridge, write and commit the state `lay` describes.
    fn write_relayout(
        &mut self,
        lay: Relayout<'_>,
        off_chunk: Option<Vec<u8>>,
        metas: Vec<Meta>,
        vlmetas: Vec<Meta>,
        props: &Props,
        base: u64,
    ) -> Result<()> {
        let hl = i64::from(self.hdr.header_len);
        let trailer = format::encode_trailer(&vlmetas)?;
        let olen = off_chunk.as_ref().map_or(0, |o| o.len() as i64);
        let mut hdr = fixed_header(props, lay.cbytes, false, !vlmetas.is_empty());
        let body = if off_chunk.is_some() { lay.cbytes + olen } else { 0 };
        let header = header_bytes(&mut hdr, &metas, body + trailer.len() as i64)?;
        let durable = durable_commits();
        // 1. The old state's tail, copied past both ends.
        let shift = self.bridge_tail(base, lay.from, hdr.frame_len, durable)?;
        // 2. Everything new, from `from` on.
        let mut at = base + (hl + lay.from) as u64;
        for p in &lay.pieces {
            match p {
                Piece::New(b) => {
                    self.file_mut()?.write_at(at, b)?;
                    at += b.len() as u64;
                }
                Piece::Old { at: src, len } => {
                    let src = base + (hl + src + shift) as u64;
                    self.copy_within_file(src, at, *len as u64)?;
                    at += *len as u64;
                }
            }
        }
        let mut index = off_chunk.clone().unwrap_or_default();
        index.extend_from_slice(&trailer);
        let metas_changed = metas != self.metas;
        let file = self.file_mut()?;
        file.write_at(at, &index)?;
        if durable {
            file.sync()?;
        }
        // 3. The commit: one write of the fixed header (the whole header
        //    when metalayer contents changed).
        let commit = if metas_changed {
            &header[..]
        } else {
            &header[..HEADER_MINLEN]
        };
        file.write_at(base, commit)?;
        if durable {
            file.sync()?;
        }
        // 4. The bridge past the new end is dead; dropping it is best
        //    effort, the state is already committed.
        let _ = file.truncate(base + hdr.frame_len as u64);
        self.hdr = hdr;
        self.offsets = lay.offsets;
        self.off_chunk = off_chunk;
        self.metas = metas;
        self.vlmetas = vlmetas;
        self.trailer_len = trailer.len() as u32;
        Ok(())
    }

    /// Copy the old state's bytes from data offset `from` on (chunks,
    /// offsets chunk, trailer) to the frame-relative position that is the
    /// larger of the current end and `new_end`, and commit a header (and,
    /// when chunks moved, an offsets chunk) describing the old state with
    /// its tail there. Returns how far the chunks moved.
    fn bridge_tail(&mut self, base: u64, from: i64, new_end: i64, durable: bool) -> Result<i64> {
        let hl = i64::from(self.hdr.header_len);
        let c = self.hdr.cbytes;
        let old_end = self.hdr.frame_len;
        let to = new_end.max(old_end);
        let shift = to - hl - from;
        let data_len = c - from;
        if data_len < 0 {
            return Err(Error::InvalidHeader);
        }
        let mut bridge = self.hdr.clone();
        bridge.cbytes = c + shift;
        let (offs, index) = if data_len == 0 {
            // Nothing moves: the old offsets chunk and trailer as they are.
            let mut rest = vec![0u8; usize::try_from(old_end - hl - c).map_err(|_| Error::InvalidHeader)?];
            self.file_mut()?.read_at(base + (hl + c) as u64, &mut rest)?;
            (None, rest)
        } else {
            let offs: Vec<i64> = self
                .offsets
                .iter()
                .map(|&o| if o >= from { o + shift } else { o })
                .collect();
            let mut index = offsets::encode(&offs)?;
            let tl = i64::from(self.trailer_len);
            let mut trailer = vec![0u8; usize::try_from(tl).map_err(|_| Error::InvalidHeader)?];
            self.file_mut()?.read_at(base + (old_end - tl) as u64, &mut trailer)?;
            let off_chunk = index.clone();
            index.extend_from_slice(&trailer);
            (Some((offs, off_chunk)), index)
        };
        bridge.frame_len = to + data_len + index.len() as i64;
        let header = format::encode_header(&bridge, &self.metas)?;
        if header.len() as i64 != hl {
            return Err(Error::InvalidHeader);
        }
        self.copy_within_file(base + (hl + from) as u64, base + to as u64, data_len as u64)?;
        let file = self.file_mut()?;
        file.write_at(base + (to + data_len) as u64, &index)?;
        if durable {
            file.sync()?;
        }
        file.write_at(base, &header[..HEADER_MINLEN])?;
        if durable {
            file.sync()?;
        }
        // This handle now follows the bridged state, so that an edit after a
        // failed one reads the intact copy, not the bytes that failed edit
        // may have overwritten.
        self.hdr = bridge;
        if let Some((offs, off_chunk)) = offs {
            self.offsets = offs;
            self.off_chunk = Some(off_chunk);
        }
        Ok(shift)
    }

    /// Copy `len` bytes of the frame file from `src` to a position `dst`
    /// whose range does not overlap the source's.
    fn copy_within_file(&mut self, src: u64, dst: u64, len: u64) -> Result<()> {
        let mut buf = vec![0u8; (len as usize).min(COPY_BLOCK)];
        let mut done = 0u64;
        let file = self.file_mut()?;
        while done < len {
            let n = (len - done).min(COPY_BLOCK as u64) as usize;
            file.read_at(src + done, &mut buf[..n])?;
            file.write_at(dst + done, &buf[..n])?;
            done += n as u64;
        }
        Ok(())
    }

    fn file_mut(&mut self) -> Result<&mut Box<dyn super::io::FrameFile>> {
        self.file.as_mut().ok_or(Error::FileOpen)
    }
}
