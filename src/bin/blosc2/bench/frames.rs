//! The super-chunk cells: `schunk`, chunks appended to a super-chunk (in
//! memory, as an in-memory frame or in a frame file) and read back from
//! it; `frame`, a super-chunk written as a frame and read back the way
//! programs get frames (`frame`: from a contiguous buffer, copied or
//! read in place, or by reopening a frame file), and frames of special
//! chunks (`special`: `fill_special` of zeros or NaNs, or a frame whose
//! vlmetalayer is updated a few times). The compression time covers
//! building the frame; the decompression time covers getting the
//! super-chunk (from the buffer, or opening the file) and decompressing
//! every chunk. The "ratio" of these cells is nbytes / frame size (the
//! file's size once closed, for frames on disk), so frames larger than
//! the reference's show up as a ratio below 1.

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Instant;

use blosc2::engine::schunk::SpecialKind;

use super::measure::{even, finish, order, poison, rel, touched, verify, Budget, Measured, WHO};
use super::reference::{RefLib, Settings};
use super::store::{self, Sc};

/// Bytes of the one chunk of the vlmetalayer cell.
const VLMETA_CHUNK: usize = 4096;

/// How a `frame` cell gets its super-chunk back.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Reread {
    /// `blosc2_schunk_from_buffer(copy = true)`.
    BufferCopy,
    /// `blosc2_schunk_from_buffer(copy = false)`.
    BufferShared,
    /// `blosc2_schunk_open` of the frame file written.
    Reopened,
}

impl Reread {
    pub fn name(self) -> &'static str {
        match self {
            Reread::BufferCopy => "buffer-copy",
            Reread::BufferShared => "buffer-nocopy",
            Reread::Reopened => "file-reopened",
        }
    }
}

/// What a `special` cell builds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Special {
    /// `fill_special` of zeros in an in-memory frame, or in a file.
    Zeros { file: bool },
    /// `fill_special` of NaNs in an in-memory frame, or in a file.
    Nans { file: bool },
    /// A file frame of one 4 KiB chunk whose vlmetalayer is added and
    /// updated five times (each update a commit).
    Vlmeta,
}

impl Special {
    pub fn name(self) -> &'static str {
        match self {
            Special::Zeros { file: false } => "zeros-cframe",
            Special::Zeros { file: true } => "zeros-file",
            Special::Nans { file: false } => "nans-cframe",
            Special::Nans { file: true } => "nans-file",
            Special::Vlmeta => "vlmeta-file",
        }
    }
}

/// Where a `schunk` cell's super-chunk lives.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Where {
    /// In memory, as separate chunks (`contiguous = false`).
    Memory,
    /// In memory, as a contiguous frame.
    CFrame,
    /// In a contiguous frame file.
    File,
}

impl Where {
    pub fn name(self) -> &'static str {
        match self {
            Where::Memory => "mem",
            Where::CFrame => "cframe",
            Where::File => "file",
        }
    }
}

fn paths(tmpdir: &Path, ns: usize, tag: &str) -> Vec<PathBuf> {
    (0..ns)
        .map(|k| tmpdir.join(format!("blosc2-bench-{}-{tag}-{}.b2frame", std::process::id(), WHO[k])))
        .collect()
}

fn file_len(p: &Path) -> Result<i64, String> {
    std::fs::metadata(p)
        .map(|m| m.len() as i64)
        .map_err(|e| format!("{}: {e}", p.display()))
}

/// Decompress every chunk of `sc` into `out` (chunks of `chunk` bytes).
fn read_all(sc: &mut Sc<'_>, out: &mut [u8], chunk: usize, who: &str) -> Result<(), String> {
    for (i, o) in out.chunks_mut(chunk).enumerate() {
        let got = sc.decompress(i as i64, o)?;
        if got != o.len() {
            return Err(format!("{who}: chunk {i} gave {got} bytes, expected {}", o.len()));
        }
    }
    Ok(())
}

/// A new super-chunk on side `k` (in the file `file` when given, which is
/// removed first) with `src` appended in `chunk`-byte pieces, and the
/// seconds that took.
fn build<'l>(
    k: usize,
    lib: Option<&'l RefLib>,
    s: &Settings,
    contiguous: bool,
    file: Option<&Path>,
    src: &[u8],
    chunk: usize,
) -> Result<(Sc<'l>, f64), String> {
    if let Some(p) = file {
        store::remove(p);
    }
    let t = Instant::now();
    let mut sc = store::new_sc(k, lib, s, contiguous, file)?;
    for p in src.chunks(chunk) {
        sc.append(p)?;
    }
    Ok((sc, t.elapsed().as_secs_f64()))
}

/// Append `nchunks` pieces of `data` to a new super-chunk stored `wh` and
/// read them back with `decompress_chunk`; the compression time includes
/// creating the super-chunk (and its file).
pub fn schunk(
    data: &[u8],
    nchunks: usize,
    s: &Settings,
    wh: Where,
    lib: Option<&RefLib>,
    budget: Budget,
    tmpdir: &Path,
) -> Result<Measured, String> {
    round_trip(data, nchunks, s, wh, None, lib, budget, tmpdir)
}

/// Write `nchunks` pieces of `data` as a frame and read them back `how`.
pub fn reread(
    data: &[u8],
    nchunks: usize,
    s: &Settings,
    how: Reread,
    lib: Option<&RefLib>,
    budget: Budget,
    tmpdir: &Path,
) -> Result<Measured, String> {
    let wh = if how == Reread::Reopened {
        Where::File
    } else {
        Where::CFrame
    };
    round_trip(data, nchunks, s, wh, Some(how), lib, budget, tmpdir)
}

/// The `schunk` (`back` None: the super-chunk built is read) and `frame`
/// cells (`back`: a new super-chunk over the frame written is read).
#[allow(clippy::too_many_arguments)]
fn round_trip(
    data: &[u8],
    nchunks: usize,
    s: &Settings,
    wh: Where,
    back: Option<Reread>,
    lib: Option<&RefLib>,
    budget: Budget,
    tmpdir: &Path,
) -> Result<Measured, String> {
    let ns = if lib.is_some() { 2 } else { 1 };
    let chunk = (data.len() / nchunks) / 8 * 8;
    if chunk == 0 {
        return Err("data too small for the super-chunk".into());
    }
    let src = &data[..chunk * nchunks];
    let files = paths(tmpdir, ns, if back.is_some() { "frame" } else { "schunk" });
    let mut outs: Vec<Vec<u8>> = (0..ns).map(|_| touched(src.len())).collect();
    let (mut ct, mut dt) = (vec![Vec::new(); ns], vec![Vec::new(); ns]);
    let mut ratio = vec![0.0; ns];
    let reps = even(budget.reps);
    // Repetition 0 is a warm-up.
    for rep in 0..=reps {
        // Declared first: the super-chunks read from it and `built` share
        // one lifetime.
        let mut cframes: Vec<Arc<Vec<u8>>> = (0..ns).map(|_| Arc::new(Vec::new())).collect();
        let mut built: Vec<Option<Sc<'_>>> = (0..ns).map(|_| None).collect();
        // The frame's size for `frame` cells (the file's once closed).
        let mut frame_len = vec![0i64; ns];
        for k in order(rep, ns) {
            let file = (wh == Where::File).then(|| files[k].as_path());
            let (mut sc, secs) = build(k, lib, s, wh != Where::Memory, file, src, chunk)?;
            if rep > 0 {
                ct[k].push(secs);
            }
            match (back, file) {
                (None, _) => built[k] = Some(sc),
                (Some(_), Some(p)) => {
                    drop(sc);
                    frame_len[k] = file_len(p)?;
                }
                (Some(_), None) => {
                    cframes[k] = Arc::new(sc.cframe()?);
                    frame_len[k] = cframes[k].len() as i64;
                }
            }
        }
        for out in outs.iter_mut() {
            poison(out, src, rep);
        }
        for k in order(rep, ns) {
            let t = Instant::now();
            let mut reread;
            let sc = match back {
                None => built[k].as_mut().ok_or("no super-chunk")?,
                Some(how) => {
                    reread = match how {
                        Reread::BufferCopy => store::from_buffer(k, lib, &cframes[k], true)?,
                        Reread::BufferShared => store::from_buffer(k, lib, &cframes[k], false)?,
                        Reread::Reopened => store::open(k, lib, &files[k])?,
                    };
                    &mut reread
                }
            };
            read_all(sc, &mut outs[k], chunk, WHO[k])?;
            if rep > 0 {
                dt[k].push(t.elapsed().as_secs_f64());
            }
            let (nb, cb) = sc.sizes();
            if nb != src.len() as i64 {
                return Err(format!("{}: nbytes {nb}, expected {}", WHO[k], src.len()));
            }
            let stored = if back.is_some() { frame_len[k] } else { cb };
            ratio[k] = src.len() as f64 / stored.max(1) as f64;
        }
        for k in 0..ns {
            verify(&outs[k], src, WHO[k])?;
        }
    }
    for p in &files {
        store::remove(p);
    }
    Ok(Measured {
        sides: finish(ratio, src.len(), &ct, &dt),
        rel: rel(&ct, &dt),
        kind: if back.is_some() { "frame" } else { "schunk" },
        identical: None,
        units: (nchunks, nchunks),
        reps,
        bytes: src.len(),
        memcpy: None,
        memcpy_rel: None,
    })
}

/// Build a frame of special chunks (or with vlmetalayer updates) and read
/// it back. `data` gives the size (and, for `Vlmeta`, the one chunk).
pub fn special(
    data: &[u8],
    chunk: usize,
    s: &Settings,
    what: Special,
    lib: Option<&RefLib>,
    budget: Budget,
    tmpdir: &Path,
) -> Result<Measured, String> {
    let ns = if lib.is_some() { 2 } else { 1 };
    let ts = s.typesize.max(1) as usize;
    let (kind, on_file) = match what {
        Special::Zeros { file } => (Some(SpecialKind::Zeros), file),
        Special::Nans { file } => (Some(SpecialKind::Nans), file),
        Special::Vlmeta => (None, true),
    };
    let src: Vec<u8> = match kind {
        Some(SpecialKind::Nans) if ts == 8 => f64::NAN.to_le_bytes().repeat(data.len() / 8),
        Some(SpecialKind::Nans) => f32::NAN.to_le_bytes().repeat(data.len() / 4),
        Some(_) => vec![0u8; data.len() / ts * ts],
        // A small chunk, so that a few hundred bytes of frame show.
        None => data[..VLMETA_CHUNK.min(data.len()) / ts * ts].to_vec(),
    };
    let chunk = if kind.is_some() { chunk / ts * ts } else { src.len() };
    let files = paths(tmpdir, ns, "special");
    let mut outs: Vec<Vec<u8>> = (0..ns).map(|_| touched(src.len())).collect();
    let (mut ct, mut dt) = (vec![Vec::new(); ns], vec![Vec::new(); ns]);
    let mut ratio = vec![0.0; ns];
    let reps = even(budget.reps);
    for rep in 0..=reps {
        let mut scs: Vec<Option<Sc<'_>>> = (0..ns).map(|_| None).collect();
        let mut sizes = vec![0i64; ns];
        for k in order(rep, ns) {
            let file = on_file.then(|| files[k].as_path());
            if let Some(p) = file {
                store::remove(p);
            }
            let t = Instant::now();
            let mut sc = store::new_sc(k, lib, s, true, file)?;
            match kind {
                Some(kind) => sc.fill_special((src.len() / ts) as i64, kind, chunk as i32)?,
                None => {
                    sc.append(&src)?;
                    sc.vlmeta_set("attrs", b"{\"version\": 0}", false)?;
                    for v in 1..=5 {
                        sc.vlmeta_set("attrs", format!("{{\"version\": {v}}}").as_bytes(), true)?;
                    }
                }
            }
            let secs = t.elapsed().as_secs_f64();
            if rep > 0 {
                ct[k].push(secs);
            }
            sizes[k] = match file {
                Some(p) => {
                    drop(sc);
                    let len = file_len(p)?;
                    scs[k] = Some(store::open(k, lib, p)?);
                    len
                }
                None => {
                    let len = sc.frame_len();
                    scs[k] = Some(sc);
                    len
                }
            };
        }
        for out in outs.iter_mut() {
            out.fill(0x5A);
        }
        for k in order(rep, ns) {
            let Some(sc) = scs[k].as_mut() else { continue };
            let t = Instant::now();
            read_all(sc, &mut outs[k], chunk, WHO[k])?;
            if rep > 0 {
                dt[k].push(t.elapsed().as_secs_f64());
            }
        }
        for k in 0..ns {
            // NaNs compare by bits: the expected bytes are exact.
            verify(&outs[k], &src, WHO[k])?;
            ratio[k] = src.len() as f64 / sizes[k].max(1) as f64;
        }
    }
    for p in &files {
        store::remove(p);
    }
    let n = src.len().div_ceil(chunk.max(1));
    Ok(Measured {
        sides: finish(ratio, src.len(), &ct, &dt),
        rel: rel(&ct, &dt),
        kind: if kind.is_some() { "special" } else { "frame" },
        identical: None,
        units: (n, n),
        reps,
        bytes: src.len(),
        memcpy: None,
        memcpy_rel: None,
    })
}
