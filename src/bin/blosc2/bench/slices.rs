//! The `slice` cells: `blosc2_schunk_get_slice_buffer` of 1, 16 or 4096
//! items at pseudo-random positions of a super-chunk of 4 MiB chunks, in
//! memory, in an in-memory frame, in a frame read in place from a buffer,
//! in a frame file as written, and in one reopened (whose chunks are read
//! lazily, block by block). Speeds are calls per second; every slice is
//! checked against the data.

use std::hint::black_box;
use std::path::Path;
use std::sync::Arc;
use std::time::Instant;

use super::measure::{calls_and_reps, finish, order, rel, Budget, Measured, WHO};
use super::reference::{RefLib, Settings};
use super::store::{self, Sc};

/// Where the sliced super-chunk lives.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SliceWhere {
    Memory,
    CFrame,
    /// From a contiguous frame buffer, read in place (copy = false).
    Shared,
    File,
    /// The frame file reopened.
    Reopened,
}

impl SliceWhere {
    pub fn name(self) -> &'static str {
        match self {
            SliceWhere::Memory => "mem",
            SliceWhere::CFrame => "cframe",
            SliceWhere::Shared => "buffer-nocopy",
            SliceWhere::File => "file",
            SliceWhere::Reopened => "file-reopened",
        }
    }
}

/// Slices of `nitems` items of super-chunks of `data` in `chunk`-byte
/// chunks stored `wh`.
#[allow(clippy::too_many_arguments)]
pub fn slices(
    data: &[u8],
    chunk: usize,
    s: &Settings,
    wh: SliceWhere,
    nitems: usize,
    lib: Option<&RefLib>,
    budget: Budget,
    tmpdir: &Path,
) -> Result<Measured, String> {
    let ns = if lib.is_some() { 2 } else { 1 };
    let ts = s.typesize.max(1) as usize;
    let chunk = chunk / ts * ts;
    let src = &data[..data.len() / ts * ts];
    let total = src.len() / ts;
    if total < nitems || chunk == 0 {
        return Err("data too small for the slice cell".into());
    }
    let files: Vec<_> = (0..ns)
        .map(|k| tmpdir.join(format!("blosc2-bench-{}-slice-{}.b2frame", std::process::id(), WHO[k])))
        .collect();
    // The super-chunks (and the frames they read in place) of both sides.
    let mut cframes: Vec<Arc<Vec<u8>>> = (0..ns).map(|_| Arc::new(Vec::new())).collect();
    let mut sizes = vec![0i64; ns];
    let mut built: Vec<Option<Sc<'_>>> = (0..ns).map(|_| None).collect();
    for k in 0..ns {
        let file = matches!(wh, SliceWhere::File | SliceWhere::Reopened).then(|| files[k].as_path());
        if let Some(p) = file {
            store::remove(p);
        }
        let mut sc = store::new_sc(k, lib, s, wh != SliceWhere::Memory, file)?;
        for p in src.chunks(chunk) {
            sc.append(p)?;
        }
        sizes[k] = sc.sizes().1;
        match wh {
            SliceWhere::Shared => cframes[k] = Arc::new(sc.cframe()?),
            SliceWhere::Reopened => {}
            _ => built[k] = Some(sc),
        }
    }
    let mut scs: Vec<Sc<'_>> = Vec::new();
    for (k, b) in built.into_iter().enumerate() {
        scs.push(match (wh, b) {
            (SliceWhere::Shared, _) => store::from_buffer(k, lib, &cframes[k], false)?,
            (SliceWhere::Reopened, _) => store::open(k, lib, &files[k])?,
            (_, Some(sc)) => sc,
            (_, None) => return Err("super-chunk not built".into()),
        });
    }
    let mut rng = blosc2::datagen::SplitMix64::new(0x5_11CE);
    let idx: Vec<i64> = (0..1 << 14)
        .map(|_| (rng.next() % (total - nitems + 1) as u64) as i64)
        .collect();
    let mut out = vec![0u8; nitems * ts];
    let mut run = |sc: &mut Sc<'_>, calls: usize, who: &str| -> Result<f64, String> {
        let t = Instant::now();
        for &a in &idx[..calls] {
            sc.slice(a, a + nitems as i64, &mut out)?;
            let at = a as usize * ts;
            if out[..] != src[at..at + nitems * ts] {
                return Err(format!("{who}: slice at item {a} returned wrong bytes"));
            }
        }
        Ok(black_box(t.elapsed().as_secs_f64()))
    };
    // Calibrate (also the warm-up).
    let mut per_call = 0.0;
    for k in 0..ns {
        per_call += run(&mut scs[k], 8, WHO[k])? / 8.0;
    }
    let (calls, reps) = calls_and_reps(budget, per_call, 8, idx.len());
    let mut dt = vec![Vec::new(); ns];
    for rep in 0..reps {
        for k in order(rep, ns) {
            let t = run(&mut scs[k], calls, WHO[k])?;
            dt[k].push(t);
        }
    }
    drop(scs);
    for p in &files {
        store::remove(p);
    }
    let ratio: Vec<f64> = sizes.iter().map(|&c| src.len() as f64 / c.max(1) as f64).collect();
    // Speed as calls/s: "bytes" = calls * 1e6 so that MB/s = calls/s.
    let none = vec![Vec::new(); ns];
    let mut sides = finish(ratio, calls * 1_000_000, &none, &dt);
    for r in sides.iter_mut() {
        r.cspeed = None;
    }
    Ok(Measured {
        rel: rel(&none, &dt),
        sides,
        kind: "slice",
        identical: None,
        units: (calls, calls),
        reps,
        bytes: nitems * ts,
        memcpy: None,
        memcpy_rel: None,
    })
}
