//! One super-chunk on either side of a cell (our engine or the reference),
//! and the ways to get one: new (in memory, as an in-memory frame or in a
//! frame file), from a contiguous frame buffer (copied or read in place),
//! or by opening a frame file.

use std::path::Path;
use std::sync::Arc;

use blosc2::engine::frame::FrameBytes;
use blosc2::engine::schunk::{SChunk, SpecialKind, Storage};

use super::measure::our_params;
use super::reference::{RefLib, RefSChunk, Settings};

/// A super-chunk of side 0 (ours) or 1 (the reference).
pub enum Sc<'l> {
    Ours(Box<SChunk>),
    Ref(RefSChunk<'l>),
}

fn ours(what: &str) -> impl Fn(blosc2::engine::error::Error) -> String + '_ {
    move |e| format!("our {what}: {e}")
}

/// A new super-chunk on side `k`: contiguous or not, in memory or in the
/// file `path`.
pub fn new_sc<'l>(
    k: usize,
    lib: Option<&'l RefLib>,
    s: &Settings,
    contiguous: bool,
    path: Option<&Path>,
) -> Result<Sc<'l>, String> {
    if k == 0 {
        let (cparams, dparams) = our_params(s);
        let sc = SChunk::new(Storage {
            contiguous,
            urlpath: path.map(|p| p.to_string_lossy().into_owned()),
            cparams,
            dparams,
            fs: None,
        })
        .map_err(ours("schunk_new"))?;
        return Ok(Sc::Ours(Box::new(sc)));
    }
    Ok(Sc::Ref(lib.ok_or("no reference")?.schunk(s, contiguous, path)?))
}

/// A super-chunk over the contiguous frame `cframe`, copied or read in
/// place (`blosc2_schunk_from_buffer`).
pub fn from_buffer<'l>(
    k: usize,
    lib: Option<&'l RefLib>,
    cframe: &'l Arc<Vec<u8>>,
    copy: bool,
) -> Result<Sc<'l>, String> {
    if k == 0 {
        let sc = SChunk::from_frame_bytes(FrameBytes::Owned(cframe.clone()), copy).map_err(ours("from_buffer"))?;
        return Ok(Sc::Ours(Box::new(sc)));
    }
    Ok(Sc::Ref(lib.ok_or("no reference")?.schunk_from_buffer(cframe, copy)?))
}

/// The frame file `path`, opened (`blosc2_schunk_open`).
pub fn open<'l>(k: usize, lib: Option<&'l RefLib>, path: &Path) -> Result<Sc<'l>, String> {
    if k == 0 {
        let sc = SChunk::open(&path.to_string_lossy(), 0).map_err(ours("schunk_open"))?;
        return Ok(Sc::Ours(Box::new(sc)));
    }
    lib.ok_or("no reference")?.schunk_open(path).map(Sc::Ref)
}

impl Sc<'_> {
    pub fn append(&mut self, src: &[u8]) -> Result<(), String> {
        match self {
            Sc::Ours(o) => o.append_buffer(src).map(drop).map_err(ours("append_buffer")),
            Sc::Ref(r) => r.append_buffer(src).map(drop),
        }
    }

    pub fn decompress(&mut self, n: i64, out: &mut [u8]) -> Result<usize, String> {
        match self {
            Sc::Ours(o) => o.decompress_chunk(n, out).map_err(ours("decompress_chunk")),
            Sc::Ref(r) => r.decompress_chunk(n, out),
        }
    }

    pub fn slice(&mut self, start: i64, stop: i64, out: &mut [u8]) -> Result<(), String> {
        match self {
            Sc::Ours(o) => o.get_slice_buffer(start, stop, out).map_err(ours("get_slice_buffer")),
            Sc::Ref(r) => r.get_slice(start, stop, out),
        }
    }

    /// `blosc2_schunk_fill_special` with 3.3.5's special value codes.
    pub fn fill_special(&mut self, nitems: i64, kind: SpecialKind, chunksize: i32) -> Result<(), String> {
        match self {
            Sc::Ours(o) => o
                .fill_special(nitems, kind, chunksize)
                .map(drop)
                .map_err(ours("fill_special")),
            Sc::Ref(r) => {
                let code = match kind {
                    SpecialKind::Zeros => 1,
                    SpecialKind::Nans => 2,
                    SpecialKind::Uninit => 4,
                };
                r.fill_special(nitems, code, chunksize).map(drop)
            }
        }
    }

    pub fn vlmeta_set(&mut self, name: &str, content: &[u8], update: bool) -> Result<(), String> {
        match self {
            Sc::Ours(o) => {
                let r = if update {
                    o.vlmeta_update(name, content, None)
                } else {
                    o.vlmeta_add(name, content, None)
                };
                r.map(drop).map_err(ours("vlmeta_add/update"))
            }
            Sc::Ref(r) => r.vlmeta_set(name, content, update),
        }
    }

    /// `(nbytes, cbytes)`.
    pub fn sizes(&self) -> (i64, i64) {
        match self {
            Sc::Ours(o) => (o.nbytes(), o.cbytes()),
            Sc::Ref(r) => r.sizes(),
        }
    }

    /// `blosc2_schunk_frame_len`.
    pub fn frame_len(&mut self) -> i64 {
        match self {
            Sc::Ours(o) => o.frame_len(),
            Sc::Ref(r) => r.frame_len(),
        }
    }

    /// The contiguous frame (`blosc2_schunk_to_buffer`), as a vector.
    pub fn cframe(&mut self) -> Result<Vec<u8>, String> {
        match self {
            Sc::Ours(o) => o.to_cframe().map_err(ours("to_cframe")),
            Sc::Ref(r) => r.cframe(),
        }
    }
}

/// Remove a file or directory left by an earlier cell.
pub fn remove(path: &Path) {
    let _ = std::fs::remove_file(path);
    let _ = std::fs::remove_dir_all(path);
}
