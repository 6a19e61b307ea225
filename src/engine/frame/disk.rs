//! Edits of frames on disk (files and sparse directories), written so that
//! a failure at any point leaves the last committed state readable; see
//! the module documentation of `edit.rs` for the scheme.

use std::borrow::Cow;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU8, Ordering};
use std::sync::{Arc, Mutex};

use super::edit::{fixed_header, header_bytes, special_for, stored_bytes, Edit, Props, Slot};
use super::format::{self, Meta, HEADER_MINLEN};
use super::io::{self, FrameFile};
use super::offsets::{self, Entry};
use super::{Frame, FrameKind};
use crate::engine::constants::EXTENDED_HEADER_LENGTH;
use crate::engine::error::{Error, Result};

/// Dead bytes tolerated before a file frame is compacted automatically.
const COMPACT_MIN_DEAD: i64 = 1 << 20;
/// Copy unit for rewrites.
const COPY_BLOCK: usize = 1 << 20;

/// Whether commits of file frames wait for their bytes to reach the disk:
/// 0 = not decided yet (read `BLOSC2_FSYNC`), 1 = no, 2 = yes.
static DURABLE_COMMITS: AtomicU8 = AtomicU8::new(0);

/// Make every later commit of a file frame `fdatasync` the bytes of each
/// step before the next header switch, and each header after it (`on`),
/// or not.
///
/// Off by default, as C-Blosc2 never syncs: the write order alone keeps
/// the last committed state readable when the process dies at any point,
/// and syncing extends that to power loss at the price of up to four disk flushes
/// per edit (milliseconds each). The environment variable `BLOSC2_FSYNC=1`
/// turns it on for a whole process.
pub fn set_durable_commits(on: bool) {
    DURABLE_COMMITS.store(if on { 2 } else { 1 }, Ordering::Relaxed);
}

pub(super) fn durable_commits() -> bool {
    match DURABLE_COMMITS.load(Ordering::Relaxed) {
        0 => {
            let on = std::env::var("BLOSC2_FSYNC").is_ok_and(|v| v == "1");
            set_durable_commits(on);
            on
        }
        v => v == 2,
    }
}

/// The bytes of a frame rewritten in memory (from file offset `base`),
/// for backends that write it over the old one.
struct FrameImage {
    base: u64,
    bytes: Arc<Mutex<Vec<u8>>>,
}

impl FrameFile for FrameImage {
    fn size(&mut self) -> Result<u64> {
        Ok(self.base + self.bytes.lock().map_err(|_| Error::FileRead)?.len() as u64)
    }
    fn read_at(&mut self, _pos: u64, _buf: &mut [u8]) -> Result<()> {
        Err(Error::FileRead)
    }
    fn write_at(&mut self, pos: u64, data: &[u8]) -> Result<()> {
        let at = pos.checked_sub(self.base).ok_or(Error::FileWrite)?;
        let at = usize::try_from(at).map_err(|_| Error::FileWrite)?;
        let end = at.checked_add(data.len()).ok_or(Error::FileWrite)?;
        let mut b = self.bytes.lock().map_err(|_| Error::FileWrite)?;
        if b.len() < end {
            b.resize(end, 0);
        }
        b[at..end].copy_from_slice(data);
        Ok(())
    }
    fn truncate(&mut self, len: u64) -> Result<()> {
        let keep = usize::try_from(len.saturating_sub(self.base)).map_err(|_| Error::FileTruncate)?;
        self.bytes.lock().map_err(|_| Error::FileTruncate)?.resize(keep, 0);
        Ok(())
    }
    fn sync(&mut self) -> Result<()> {
        Ok(())
    }
}

/// Everything an edit of a disk frame decided, before it is written.
struct Plan<'a> {
    slots: Vec<Slot<'a>>,
    /// Stored entries the edit unreferenced (sparse: chunk ids to remove).
    dropped: Vec<i64>,
    metas: Vec<Meta>,
    vlmetas: Vec<Meta>,
    /// A ready-made offsets chunk (`fill_special`).
    off_chunk: Option<Vec<u8>>,
    /// Whether the offsets changed.
    index_changed: bool,
    /// Spare entries of room to compress the offsets with (1 after a
    /// delete, see [`offsets::encode_with_room`]).
    index_room: usize,
}

/// Picks the ids (file names) of a sparse frame's new chunk files.
///
/// Ids are never reused while they can grow: a reader that read the index
/// just before two commits then finds a missing file, never another
/// chunk's. But 3.3.5 refuses a sparse frame with an id above
/// `cbytes - 32` (its offsets check), which growing ids reach with small
/// chunks after a few updates; past that bound, new chunks take the
/// smallest ids that neither the committed state nor the edit uses.
struct SparseIds {
    used: std::collections::HashSet<i64>,
    next_new: i64,
    bound: i64,
}

impl SparseIds {
    /// For ids `used` by the committed state and the edit, and the frame's
    /// `cbytes` after the edit.
    fn new(used: impl Iterator<Item = i64>, cbytes: i64) -> SparseIds {
        let used: std::collections::HashSet<i64> = used.collect();
        let next_new = used.iter().max().map_or(0, |m| m + 1);
        SparseIds {
            used,
            next_new,
            bound: cbytes - EXTENDED_HEADER_LENGTH as i64,
        }
    }

    fn next(&mut self) -> i64 {
        let id = if self.next_new <= self.bound {
            self.next_new
        } else {
            (0..).find(|id| !self.used.contains(id)).unwrap_or(self.next_new)
        };
        self.used.insert(id);
        self.next_new = self.next_new.max(id + 1);
        id
    }
}

/// The slot for a chunk to be added: a special offset or stored bytes.
fn slot_for(c: &[u8], variable: bool) -> Result<Slot<'_>> {
    Ok(match special_for(c, variable) {
        Some(k) => Slot::Old(offsets::special_offset(k)),
        None => Slot::New(stored_bytes(c)?),
    })
}

impl Frame {
    /// Plan and write an edit of a file or sparse frame.
    pub(crate) fn apply_logged(&mut self, edit: Edit<'_>, props: &Props) -> Result<()> {
        let variable = props.chunksize == 0;
        let mut slots: Vec<Slot<'_>> = self.offsets.iter().map(|&o| Slot::Old(o)).collect();
        if self.must_materialize(props) {
            for (i, slot) in slots.iter_mut().enumerate() {
                if let Slot::Old(o) = *slot {
                    if let Entry::Special(k) = offsets::decode_entry(o)? {
                        *slot = Slot::New(Cow::Owned(self.materialized_special(i, k)?));
                    }
                }
            }
        }
        let mut plan = Plan {
            slots: Vec::new(),
            dropped: Vec::new(),
            metas: self.metas.clone(),
            vlmetas: self.vlmetas.clone(),
            off_chunk: None,
            index_changed: true,
            index_room: 0,
        };
        let drop_old = |plan: &mut Plan<'_>, s: &Slot<'_>| {
            if let Slot::Old(o) = s {
                if *o >= 0 {
                    plan.dropped.push(*o);
                }
            }
        };
        match edit {
            Edit::Append(c) => slots.push(slot_for(c, variable)?),
            Edit::Insert(i, c) => slots.insert(i, slot_for(c, variable)?),
            Edit::Update(i, c) => {
                let new = slot_for(c, variable)?;
                let old = std::mem::replace(&mut slots[i], new);
                drop_old(&mut plan, &old);
            }
            Edit::Delete(i) => {
                let old = slots.remove(i);
                drop_old(&mut plan, &old);
                plan.index_room = 1;
            }
            Edit::Reorder(order) => {
                let mut old: Vec<Option<Slot<'_>>> = slots.into_iter().map(Some).collect();
                slots = order
                    .iter()
                    .map(|&k| old[k].take().ok_or(Error::InvalidParam("repeated index")))
                    .collect::<Result<_>>()?;
            }
            Edit::FillSpecial(nchunks, kind) => {
                let v = offsets::special_offset(kind);
                let n = usize::try_from(nchunks).map_err(|_| Error::InvalidParam("nchunks"))?;
                slots = (0..n).map(|_| Slot::Old(v)).collect();
                plan.off_chunk = Some(offsets::encode_repeated(nchunks, v)?);
            }
            Edit::Metas(m) => {
                plan.metas = m;
                plan.index_changed = false;
            }
            Edit::Vlmetas(m) => {
                plan.vlmetas = m;
                plan.index_changed = false;
            }
            Edit::Touch => plan.index_changed = false,
        }
        if slots.iter().any(|s| matches!(s, Slot::New(_))) {
            plan.index_changed = true;
        }
        plan.slots = slots;
        match self.kind.clone() {
            FrameKind::Sparse { dir } => self.commit_sparse(&dir, plan, props),
            FrameKind::File { .. } => self.commit_file(plan, props),
            FrameKind::Memory => Err(Error::FrameType),
        }
    }

    /// Refuse to edit a frame that another frame follows in its file:
    /// growing it would overwrite that frame. (Other bytes past the end
    /// are dead bytes from an interrupted edit, which may be reused.)
    fn check_nothing_follows(&mut self, base: u64) -> Result<()> {
        let end = base + self.hdr.frame_len as u64;
        let file = self.file.as_mut().ok_or(Error::FileOpen)?;
        if file.size()? >= end + 10 {
            let mut magic = [0u8; 10];
            file.read_at(end, &mut magic)?;
            if &magic == b"\x9e\xa8b2frame\0" {
                return Err(Error::InvalidParam("another frame follows this one in the file"));
            }
        }
        Ok(())
    }

    /// Append-and-commit for a contiguous file frame.
    fn commit_file(&mut self, plan: Plan<'_>, props: &Props) -> Result<()> {
        let base = match &self.kind {
            FrameKind::File { offset, .. } => *offset,
            _ => return Err(Error::FrameType),
        };
        self.check_nothing_follows(base)?;
        let hl = i64::from(self.hdr.header_len);
        let same_header_len = format::encode_header(&self.hdr, &plan.metas)?.len() as i64 == hl;
        if !same_header_len || (plan.slots.is_empty() && props.nbytes == 0) {
            return self.rewrite_file(plan, props);
        }
        let keeps = self.keeps_chunks_and_index(&plan);
        let old_cbytes = self.hdr.cbytes;
        let rel = self.hdr.frame_len;
        // New chunks go where the old offsets chunk starts, as in 3.3.5, so
        // appends leave no dead bytes; `bridge_old_index` first moves the
        // old index out of the way. An edit of a frame with chunks that
        // adds no chunk bytes (vlmetalayers, deletes, reorders, specials)
        // writes past the end instead, leaving the old index as dead bytes:
        // then every commit grows `cbytes`, so no header ever comes back,
        // and a reader that finds the same header before and after its
        // reads (`open_file`) really saw one state; except that metalayer
        // and vlmetalayer edits then move the index back (see
        // `move_index_back`), as 3.3.5 keeps `cbytes` through them (a
        // reader without the lock may then see a trailer being rewritten,
        // as with 3.3.5). Appends and inserts of
        // special chunks go in place too (no dead bytes, `cbytes`
        // unchanged, as in 3.3.5): they grow `nbytes`, and every other
        // commit grows `cbytes`, so their headers never repeat either.
        let adds_chunks = plan.slots.iter().any(|s| matches!(s, Slot::New(_)));
        let grows_special = props.nbytes > self.hdr.nbytes && plan.dropped.is_empty();
        let in_place = adds_chunks || grows_special || self.offsets.is_empty();
        if self.hdr.cbytes < 0 || hl + self.hdr.cbytes > rel {
            return Err(Error::InvalidHeader);
        }
        let trailer = format::encode_trailer(&plan.vlmetas)?;
        let data_start = if in_place {
            self.hdr.cbytes
        } else if keeps {
            // Far enough that the second step's copy back to `cbytes`
            // cannot overlap what this step writes.
            let index_len = self.off_chunk.as_ref().map_or(0, Vec::len) as i64;
            (rel - hl).max(self.hdr.cbytes + index_len + trailer.len() as i64)
        } else {
            rel - hl
        };
        let tail_at = hl + data_start;
        let mut tail = Vec::new();
        let mut offs = Vec::with_capacity(plan.slots.len());
        for s in &plan.slots {
            match s {
                Slot::Old(o) => offs.push(*o),
                Slot::New(c) => {
                    offs.push(data_start + tail.len() as i64);
                    tail.extend_from_slice(c);
                }
            }
        }
        let cbytes = data_start + tail.len() as i64;
        let off_chunk = match (plan.off_chunk, plan.index_changed, &self.off_chunk) {
            (Some(o), _, _) => o,
            (None, false, Some(o)) => o.clone(),
            _ => offsets::encode_with_room(&offs, plan.index_room)?,
        };
        tail.extend_from_slice(&off_chunk);
        tail.extend_from_slice(&trailer);
        let mut hdr = fixed_header(props, cbytes, false, !plan.vlmetas.is_empty());
        let header = header_bytes(
            &mut hdr,
            &plan.metas,
            cbytes + off_chunk.len() as i64 + trailer.len() as i64,
        )?;
        let metas_changed = plan.metas != self.metas;
        let durable = durable_commits();
        // 1. The old state, moved so that nothing live lies where the new
        //    bytes go.
        if in_place {
            self.bridge_old_index(base, tail_at + tail.len() as i64, durable)?;
        }
        // 2. Everything new.
        let file = self.file.as_mut().ok_or(Error::FileOpen)?;
        file.write_at(base + tail_at as u64, &tail)?;
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
        // 4. Bytes past the new end (the bridge, or an earlier failed edit)
        //    are dead; dropping them is best effort, the state is already
        //    committed.
        let _ = file.truncate(base + hdr.frame_len as u64);
        self.hdr = hdr;
        self.offsets = offs;
        self.off_chunk = Some(off_chunk);
        self.metas = plan.metas;
        self.vlmetas = plan.vlmetas;
        self.trailer_len = trailer.len() as u32;
        if keeps {
            // Best effort: the edit is committed whatever happens here.
            let _ = self.move_index_back(base, old_cbytes, durable);
            return Ok(());
        }
        self.growth += tail.len() as i64;
        self.maybe_compact(props)
    }

    /// Whether `plan` only changes metalayers or vlmetalayers of a frame
    /// with chunks whose header, offsets chunk and trailer lie back to
    /// back (as every commit leaves them).
    fn keeps_chunks_and_index(&self, plan: &Plan<'_>) -> bool {
        let Some(off_chunk) = &self.off_chunk else {
            return false;
        };
        let trailer_end =
            i64::from(self.hdr.header_len) + self.hdr.cbytes + off_chunk.len() as i64 + i64::from(self.trailer_len);
        !plan.index_changed
            && plan.off_chunk.is_none()
            && plan.dropped.is_empty()
            && !self.offsets.is_empty()
            && plan.slots.iter().all(|s| matches!(s, Slot::Old(_)))
            && trailer_end == self.hdr.frame_len
    }

    /// Second step of a metalayer or vlmetalayer edit (the first wrote
    /// the new offsets chunk and trailer past the old ones and committed
    /// them): copy them back to where the old offsets chunk started
    /// (`cbytes` relative to the data region, now dead bytes no offset
    /// points into) and commit that, so that `cbytes` and the file size end
    /// as 3.3.5's `frame_update_header`/`frame_update_trailer` leave them
    /// (python-blosc2 bounds its proxy caches by `cbytes`). Each step is a
    /// commit of its own: a failure leaves the edit done.
    fn move_index_back(&mut self, base: u64, cbytes: i64, durable: bool) -> Result<()> {
        let hl = i64::from(self.hdr.header_len);
        let at = hl + self.hdr.cbytes;
        let to = hl + cbytes;
        let len = self.hdr.frame_len - at;
        if len < 0 || to + len > at {
            return Err(Error::InvalidHeader);
        }
        let mut moved = self.hdr.clone();
        moved.cbytes = cbytes;
        moved.frame_len = to + len;
        let header = format::encode_header(&moved, &self.metas)?;
        if header.len() as i64 != hl {
            return Err(Error::InvalidHeader);
        }
        let mut index = vec![0u8; usize::try_from(len).map_err(|_| Error::InvalidHeader)?];
        let file = self.file.as_mut().ok_or(Error::FileOpen)?;
        file.read_at(base + at as u64, &mut index)?;
        file.write_at(base + to as u64, &index)?;
        if durable {
            file.sync()?;
        }
        file.write_at(base, &header[..HEADER_MINLEN])?;
        if durable {
            file.sync()?;
        }
        self.hdr = moved;
        let _ = file.truncate(base + self.hdr.frame_len as u64);
        Ok(())
    }

    /// Copy the old offsets chunk and trailer to `at` (relative to the
    /// frame start) or past the frame's end if that is further, and commit
    /// a header that describes the unchanged state with its data region
    /// stretched to the copy: the bytes between the old data end and the
    /// copy are then unreferenced and free to overwrite.
    fn bridge_old_index(&mut self, base: u64, at: i64, durable: bool) -> Result<()> {
        let hl = i64::from(self.hdr.header_len);
        let old_at = hl + self.hdr.cbytes;
        let rel = self.hdr.frame_len;
        let at = at.max(rel);
        let mut old_index = vec![0u8; usize::try_from(rel - old_at).map_err(|_| Error::InvalidHeader)?];
        let mut bridge = self.hdr.clone();
        bridge.cbytes = at - hl;
        bridge.frame_len = at + old_index.len() as i64;
        let header = format::encode_header(&bridge, &self.metas)?;
        if header.len() as i64 != hl {
            return Err(Error::InvalidHeader);
        }
        let file = self.file.as_mut().ok_or(Error::FileOpen)?;
        file.read_at(base + old_at as u64, &mut old_index)?;
        file.write_at(base + at as u64, &old_index)?;
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
        Ok(())
    }

    /// Compact when this handle has produced more dead bytes than live ones.
    /// Backends without atomic renames (user callbacks, mmap) are never
    /// compacted behind the caller's back: that writes a second file.
    fn maybe_compact(&mut self, props: &Props) -> Result<()> {
        if !self.fs.renames_atomically() || self.growth < COMPACT_MIN_DEAD || self.growth * 2 < self.hdr.cbytes {
            return Ok(());
        }
        let live = self.live_bytes()?;
        if self.hdr.cbytes - live > live.max(COMPACT_MIN_DEAD) {
            self.compact(props)?;
        }
        self.growth = 0;
        Ok(())
    }

    /// Sum of the sizes of the stored chunks (reads their headers).
    pub fn live_bytes(&mut self) -> Result<i64> {
        let mut total = 0i64;
        for i in 0..self.offsets.len() {
            if self.offsets[i] >= 0 {
                let head = self.chunk_head(i as i64)?;
                total += i64::from(crate::engine::header::read_i32(&head, 12)?);
            }
        }
        Ok(total)
    }

    /// Rewrite a file frame without dead bytes (through a new file renamed
    /// over the old one). A no-op for other frames.
    pub fn compact(&mut self, props: &Props) -> Result<()> {
        if !matches!(self.kind, FrameKind::File { .. }) {
            return Ok(());
        }
        self.make_writable()?;
        let plan = Plan {
            slots: self.offsets.iter().map(|&o| Slot::Old(o)).collect(),
            dropped: Vec::new(),
            metas: self.metas.clone(),
            vlmetas: self.vlmetas.clone(),
            off_chunk: None,
            index_changed: true,
            index_room: 0,
        };
        self.rewrite_file(plan, props)
    }

    /// Write the planned state as a fresh, compact frame in a new file
    /// (keeping any bytes before the frame) and rename it into place.
    /// Backends that cannot rename (user callbacks, mmap) get the new frame
    /// written over the old one instead, as 3.3.5 writes it: a failure
    /// there may leave the frame unreadable.
    fn rewrite_file(&mut self, plan: Plan<'_>, props: &Props) -> Result<()> {
        let (path, base) = match &self.kind {
            FrameKind::File { path, offset } => (path.clone(), *offset),
            _ => return Err(Error::FrameType),
        };
        self.check_nothing_follows(base)?;
        // Sizes first, so the header can be written before the chunks.
        let mut sizes = Vec::with_capacity(plan.slots.len());
        for s in &plan.slots {
            sizes.push(match s {
                Slot::New(c) => c.len() as i64,
                Slot::Old(o) if *o >= 0 => {
                    let head = self.read_file_chunk_header(*o)?;
                    self.checked_chunk_len(*o, &head)? as i64
                }
                Slot::Old(_) => 0,
            });
        }
        let empty = plan.slots.is_empty() && props.nbytes == 0;
        let mut offs = Vec::with_capacity(plan.slots.len());
        let mut pos = 0i64;
        for (s, len) in plan.slots.iter().zip(&sizes) {
            match s {
                Slot::Old(o) if *o < 0 => offs.push(*o),
                _ => {
                    offs.push(pos);
                    pos += len;
                }
            }
        }
        let cbytes = if empty { 0 } else { pos };
        let off_chunk = match (&plan.off_chunk, empty) {
            (_, true) => None,
            (Some(o), _) => Some(o.clone()),
            (None, false) => Some(offsets::encode_with_room(&offs, plan.index_room)?),
        };
        let trailer = format::encode_trailer(&plan.vlmetas)?;
        let mut hdr = fixed_header(props, cbytes, false, !plan.vlmetas.is_empty());
        let olen = off_chunk.as_ref().map_or(0, |o| o.len() as i64);
        let header = header_bytes(&mut hdr, &plan.metas, cbytes + olen + trailer.len() as i64)?;
        let tmp = io::temp_path(&path);
        let fs = self.fs.clone();
        let in_place = !fs.renames_atomically();
        let image = Arc::new(Mutex::new(Vec::new()));
        let mut out: Box<dyn FrameFile> = if in_place {
            Box::new(FrameImage {
                base,
                bytes: image.clone(),
            })
        } else {
            fs.create(&tmp)?
        };
        let result = (|| -> Result<()> {
            let mut w = base;
            // Keep whatever precedes the frame in the file (in place, it
            // stays where it is).
            let mut done = if in_place { base } else { 0u64 };
            let mut buf = vec![0u8; COPY_BLOCK];
            while done < base {
                let n = (base - done).min(COPY_BLOCK as u64) as usize;
                self.file
                    .as_mut()
                    .ok_or(Error::FileOpen)?
                    .read_at(done, &mut buf[..n])?;
                out.write_at(done, &buf[..n])?;
                done += n as u64;
            }
            out.write_at(w, &header)?;
            w += header.len() as u64;
            for (s, len) in plan.slots.iter().zip(&sizes) {
                match s {
                    Slot::New(c) => {
                        out.write_at(w, c)?;
                        w += c.len() as u64;
                    }
                    Slot::Old(o) if *o >= 0 => {
                        let mut c = vec![0u8; *len as usize];
                        self.read_data(*o, &mut c)?;
                        out.write_at(w, &c)?;
                        w += c.len() as u64;
                    }
                    Slot::Old(_) => {}
                }
            }
            if let Some(o) = &off_chunk {
                out.write_at(w, o)?;
                w += o.len() as u64;
            }
            out.write_at(w, &trailer)?;
            out.sync()
        })();
        drop(out);
        if in_place {
            result?;
            let bytes = std::mem::take(&mut *image.lock().unwrap_or_else(|p| p.into_inner()));
            let file = self.file.as_mut().ok_or(Error::FileOpen)?;
            file.write_at(base, &bytes)?;
            file.truncate(base + bytes.len() as u64)?;
            file.sync()?;
        } else {
            if let Err(e) = result {
                let _ = fs.remove_file(&tmp);
                return Err(e);
            }
            if let Err(e) = fs.rename(&tmp, &path) {
                let _ = fs.remove_file(&tmp);
                return Err(e);
            }
            if let Some(parent) = path.parent() {
                fs.sync_dir(parent)?;
            }
            self.file = Some(fs.open(&path, true)?);
        }
        self.hdr = hdr;
        self.offsets = offs;
        self.off_chunk = off_chunk;
        self.metas = plan.metas;
        self.vlmetas = plan.vlmetas;
        self.trailer_len = trailer.len() as u32;
        self.growth = 0;
        Ok(())
    }

    /// Write new chunk files, then replace the index file, then remove the
    /// chunk files nothing references any more.
    fn commit_sparse(&mut self, dir: &Path, plan: Plan<'_>, props: &Props) -> Result<()> {
        let fs = self.fs.clone();
        let mut cbytes = self.hdr.cbytes;
        for &d in &plan.dropped {
            if let Ok(mut f) = fs.open(&io::sframe_chunk_path(dir, d)?, false) {
                cbytes -= f.size().map_or(0, |s| s as i64);
            }
        }
        let added: i64 = plan
            .slots
            .iter()
            .map(|s| match s {
                Slot::New(c) => c.len() as i64,
                Slot::Old(_) => 0,
            })
            .sum();
        let used = self.offsets.iter().chain(&plan.dropped).copied().filter(|&o| o >= 0);
        let mut ids = SparseIds::new(used, cbytes + added);
        let mut offs = Vec::with_capacity(plan.slots.len());
        let mut created: Vec<PathBuf> = Vec::new();
        let written = (|| -> Result<()> {
            for s in &plan.slots {
                match s {
                    Slot::Old(o) => offs.push(*o),
                    Slot::New(c) => {
                        let id = ids.next();
                        let p = io::sframe_chunk_path(dir, id)?;
                        created.push(p.clone());
                        let mut f = fs.create(&p)?;
                        f.write_at(0, c)?;
                        f.sync()?;
                        offs.push(id);
                        cbytes += c.len() as i64;
                    }
                }
            }
            Ok(())
        })();
        if let Err(e) = written {
            for p in &created {
                let _ = fs.remove_file(p);
            }
            return Err(e);
        }
        let empty = offs.is_empty() && props.nbytes == 0;
        let off_chunk = match (plan.off_chunk, plan.index_changed, &self.off_chunk, empty) {
            (_, _, _, true) => None,
            (Some(o), _, _, _) => Some(o),
            (None, false, Some(o), _) => Some(o.clone()),
            _ => Some(offsets::encode_with_room(&offs, plan.index_room)?),
        };
        let trailer = format::encode_trailer(&plan.vlmetas)?;
        let mut hdr = fixed_header(props, cbytes.max(0), true, !plan.vlmetas.is_empty());
        let olen = off_chunk.as_ref().map_or(0, |o| o.len() as i64);
        let mut index = header_bytes(&mut hdr, &plan.metas, olen + trailer.len() as i64)?;
        if let Some(o) = &off_chunk {
            index.extend_from_slice(o);
        }
        index.extend_from_slice(&trailer);
        self.replace_file(&io::sframe_index_path(dir), &index, &created)?;
        for &d in &plan.dropped {
            if !offs.contains(&d) {
                let _ = fs.remove_file(&io::sframe_chunk_path(dir, d)?);
            }
        }
        self.hdr = hdr;
        self.offsets = offs;
        self.off_chunk = off_chunk;
        self.metas = plan.metas;
        self.vlmetas = plan.vlmetas;
        self.trailer_len = trailer.len() as u32;
        Ok(())
    }

    /// Atomically replace a (small) file: write a temporary copy, sync it,
    /// rename it over `path`. On failure, `orphans` (files written for this
    /// edit) are removed.
    pub(crate) fn replace_file(&mut self, path: &Path, bytes: &[u8], orphans: &[PathBuf]) -> Result<()> {
        let fs = self.fs.clone();
        let tmp = io::temp_path(path);
        let r = (|| -> Result<()> {
            let mut f = fs.create(&tmp)?;
            f.write_at(0, bytes)?;
            f.sync()?;
            drop(f);
            fs.rename(&tmp, path)
        })();
        if let Err(e) = r {
            let _ = fs.remove_file(&tmp);
            for p in orphans {
                let _ = fs.remove_file(p);
            }
            return Err(e);
        }
        if let Some(parent) = path.parent() {
            fs.sync_dir(parent)?;
        }
        Ok(())
    }
}
