//! Edits of frames on disk (files and sparse directories), written so that
//! a failure at any point leaves the last committed state readable; see
//! the module documentation of `edit.rs` for the scheme.

use std::borrow::Cow;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU8, Ordering};
use std::sync::{Arc, Mutex};

use super::edit::{fixed_header, header_bytes, special_for, stored_bytes, Edit, Props, Slot};
use super::format::{self, Meta};
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
pub(super) struct Plan<'a> {
    pub(super) slots: Vec<Slot<'a>>,
    /// Stored entries the edit unreferenced (sparse: chunk ids to remove).
    pub(super) dropped: Vec<i64>,
    /// An update of a stored chunk: its slot and old offset (contiguous
    /// files put the new chunk there, as 3.3.5 does).
    pub(super) replaced: Option<(usize, i64)>,
    pub(super) metas: Vec<Meta>,
    pub(super) vlmetas: Vec<Meta>,
    /// A ready-made offsets chunk (`fill_special`).
    pub(super) off_chunk: Option<Vec<u8>>,
    /// Whether the offsets changed.
    pub(super) index_changed: bool,
    /// Spare entries of room to compress the offsets with (1 after a
    /// delete, see [`offsets::encode_with_room`]).
    pub(super) index_room: usize,
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
            replaced: None,
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
                if let Slot::Old(o) = old {
                    if o >= 0 {
                        plan.replaced = Some((i, o));
                    }
                }
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

    /// Commit an edit of a contiguous file frame: in place, as 3.3.5 lays
    /// the bytes out (see `relayout.rs`), unless the header changes length
    /// or the frame loses its last chunk.
    fn commit_file(&mut self, plan: Plan<'_>, props: &Props) -> Result<()> {
        let base = match &self.kind {
            FrameKind::File { offset, .. } => *offset,
            _ => return Err(Error::FrameType),
        };
        self.check_nothing_follows(base)?;
        let hl = i64::from(self.hdr.header_len);
        let same_header_len = format::encode_header(&self.hdr, &plan.metas)?.len() as i64 == hl;
        // A frame 3.3.5 emptied keeps the deleted chunks' `cbytes` with
        // no data behind them: rewritten whole, it starts from 0 again.
        let phantom = self.offsets.is_empty() && hl + self.hdr.cbytes > self.hdr.frame_len;
        if !same_header_len || phantom {
            return self.rewrite_file(plan, props);
        }
        // Deleted chunks stay as dead bytes, as in 3.3.5; they count
        // towards compaction.
        let mut dead = 0i64;
        for &d in &plan.dropped {
            if plan.replaced.is_none_or(|(_, o)| o != d) {
                let head = self.read_file_chunk_header(d)?;
                dead += self.checked_chunk_len(d, &head)? as i64;
            }
        }
        self.commit_in_place(plan, props, base)?;
        self.growth += dead;
        self.maybe_compact(props)
    }

    /// Compact when this handle has left more dead bytes (deleted chunks)
    /// than live ones.
    /// Backends without atomic renames (user callbacks, mmap) are never
    /// compacted behind the caller's back: that writes a second file.
    /// Best effort: the edit that called it is committed already, and a
    /// compaction that fails leaves the frame as that edit left it.
    fn maybe_compact(&mut self, props: &Props) -> Result<()> {
        if self.growth < COMPACT_MIN_DEAD || self.growth * 2 < self.hdr.cbytes {
            return Ok(());
        }
        self.growth = 0;
        if let Ok(live) = self.live_bytes() {
            if self.hdr.cbytes - live > live.max(COMPACT_MIN_DEAD) {
                let _ = self.compact(props);
            }
        }
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

    /// Rewrite a file frame without dead bytes: through a new file renamed
    /// over the old one, or in place (crash-safely, see `relayout.rs`)
    /// through backends without renames. A no-op for other frames.
    pub fn compact(&mut self, props: &Props) -> Result<()> {
        let FrameKind::File { offset, .. } = self.kind else {
            return Ok(());
        };
        self.make_writable()?;
        if !self.fs.renames_atomically() {
            self.check_nothing_follows(offset)?;
            return self.compact_in_place(props, offset);
        }
        let plan = Plan {
            slots: self.offsets.iter().map(|&o| Slot::Old(o)).collect(),
            dropped: Vec::new(),
            replaced: None,
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
