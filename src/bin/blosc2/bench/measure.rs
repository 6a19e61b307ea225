//! Timing one benchmark cell on our engine and, when loaded, on the
//! reference, alternating the two within every repetition (ABBA order),
//! verifying every round trip, and keeping medians.

use std::hint::black_box;
use std::time::Instant;

use blosc2::engine::constants::{blosc2_flags, flags, special, EXTENDED_HEADER_LENGTH, MAX_OVERHEAD};
use blosc2::engine::context::Context;
use blosc2::engine::params::{CParams, DParams};

use super::reference::{RefCtx, RefLib, Settings};

/// What one side produced in one cell.
#[derive(Debug, Clone, Default)]
pub struct SideResult {
    /// Uncompressed / compressed size.
    pub ratio: f64,
    /// Median compression speed, MB/s (None when not measured).
    pub cspeed: Option<f64>,
    /// Median decompression speed, MB/s (getitem: calls per second).
    pub dspeed: f64,
    /// (max - min) / median of the compression times.
    pub cspread: f64,
    /// (max - min) / median of the decompression times.
    pub dspread: f64,
}

/// The outcome of one cell.
#[derive(Debug, Clone, Default)]
pub struct Measured {
    /// Index 0: ours; 1: the reference (when loaded).
    pub sides: Vec<SideResult>,
    /// What the chunks are: normal, memcpy(ed), special or mixed.
    pub kind: &'static str,
    /// Whether our chunks are byte-identical to the reference's.
    pub identical: Option<bool>,
    /// Units of work timed per repetition (chunks or getitem calls), and
    /// how many the full data set has.
    pub units: (usize, usize),
    /// Repetitions timed.
    pub reps: usize,
    /// Bytes processed per repetition.
    pub bytes: usize,
    /// Speed of ours relative to the reference, as the median over the
    /// repetitions of the paired time ratios t_ref / t_ours (each pair ran
    /// back to back, so slow drifts of the machine's load cancel):
    /// compression (None for getitem) and decompression.
    pub rel: Option<(Option<f64>, f64)>,
    /// memcpy bandwidth (MB/s) measured in the cell: the same chunks
    /// copied into the same destination, in the same alternation.
    pub memcpy: Option<f64>,
    /// Per side, decompression speed relative to that memcpy, as the median
    /// over the repetitions of t_memcpy / t_decompress (each repetition's
    /// memcpy ran right before its decompressions, so drifts cancel as in
    /// `rel`).
    pub memcpy_rel: Option<Vec<f64>>,
}

/// How long a cell may take, and how many repetitions it wants.
///
/// Every cell times at least `reps` repetitions (rounded up to whole ABBA
/// pairs), however slow: with one or two pairs, one disturbed pair decides
/// the cell. On a shared 2-vCPU machine, cells running the same C zstd in
/// both engines came out at 0.73-0.84 that way. A slow cell times less
/// data per repetition instead (down to one chunk).
#[derive(Debug, Clone, Copy)]
pub struct Budget {
    /// Wanted repetitions (medians over these).
    pub reps: usize,
    /// Target seconds for the timed repetitions of one cell.
    pub seconds: f64,
}

/// Our CParams / DParams for `s`.
pub fn our_params(s: &Settings) -> (CParams, DParams) {
    (
        CParams {
            compcode: s.compcode,
            clevel: s.clevel,
            typesize: s.typesize,
            nthreads: s.nthreads,
            filters: s.filters,
            ..CParams::default()
        },
        DParams {
            nthreads: s.nthreads,
            ..DParams::default()
        },
    )
}

/// One engine under test.
enum Side<'l> {
    Ours { c: Box<Context>, d: Box<Context> },
    Ref(RefCtx<'l>),
}

impl Side<'_> {
    fn compress(&mut self, src: &[u8], dst: &mut [u8]) -> Result<usize, String> {
        let n = match self {
            Side::Ours { c, .. } => c.compress(src, dst).map_err(|e| format!("our compress: {e}"))?,
            Side::Ref(r) => r.compress(src, dst)?,
        };
        if n == 0 {
            return Err("compressed chunk did not fit in nbytes + MAX_OVERHEAD".into());
        }
        Ok(n)
    }

    fn decompress(&mut self, src: &[u8], dst: &mut [u8]) -> Result<usize, String> {
        match self {
            Side::Ours { d, .. } => d.decompress(src, dst).map_err(|e| format!("our decompress: {e}")),
            Side::Ref(r) => r.decompress(src, dst),
        }
    }

    fn getitem(&mut self, src: &[u8], start: usize, dst: &mut [u8]) -> Result<usize, String> {
        match self {
            Side::Ours { d, .. } => d
                .getitem(src, start as i64, 1, dst)
                .map_err(|e| format!("our getitem: {e}")),
            Side::Ref(r) => r.getitem(src, start as i32, 1, dst),
        }
    }
}

fn sides<'l>(s: &Settings, lib: Option<&'l RefLib>) -> Result<Vec<Side<'l>>, String> {
    let (cp, dp) = our_params(s);
    let mut v = vec![Side::Ours {
        c: Box::new(Context::compressor(cp)),
        d: Box::new(Context::decompressor(dp)),
    }];
    if let Some(lib) = lib {
        v.push(Side::Ref(lib.contexts(s)?));
    }
    Ok(v)
}

/// Side order of repetition `rep`: ours first on even repetitions.
pub(super) fn order(rep: usize, n: usize) -> Vec<usize> {
    if rep.is_multiple_of(2) {
        (0..n).collect()
    } else {
        (0..n).rev().collect()
    }
}

/// The median of `v` (not empty).
pub fn median(v: &[f64]) -> f64 {
    let mut s = v.to_vec();
    s.sort_by(f64::total_cmp);
    let m = s.len() / 2;
    if s.len() % 2 == 1 {
        s[m]
    } else {
        (s[m - 1] + s[m]) / 2.0
    }
}

fn spread(v: &[f64]) -> f64 {
    let (lo, hi) = v
        .iter()
        .fold((f64::INFINITY, 0f64), |(lo, hi), &x| (lo.min(x), hi.max(x)));
    let m = median(v);
    if m > 0.0 {
        (hi - lo) / m
    } else {
        0.0
    }
}

/// Touch every page so that timing does not include first-use faults.
pub(super) fn touched(n: usize) -> Vec<u8> {
    let mut v = vec![0u8; n];
    v.fill(0x5A);
    v
}

/// Make sure a stale destination cannot pass verification: flip one byte
/// per page (cheap, and it leaves the caches alone).
pub(super) fn poison(out: &mut [u8], src: &[u8], rep: usize) {
    let first = (rep * 611) % 4096;
    for p in (first..out.len().min(src.len())).step_by(4096) {
        out[p] = !src[p];
    }
}

pub(super) fn verify(out: &[u8], src: &[u8], who: &str) -> Result<(), String> {
    if out != src {
        let at = out.iter().zip(src).position(|(a, b)| a != b).unwrap_or(0);
        return Err(format!("{who}: round trip differs from the input at byte {at}"));
    }
    Ok(())
}

pub(super) const WHO: [&str; 2] = ["ours", "reference"];

/// The kind of a chunk from its header.
fn chunk_kind(c: &[u8]) -> &'static str {
    if c.len() >= EXTENDED_HEADER_LENGTH && c[2] & flags::EXTENDED_HEADER == flags::EXTENDED_HEADER {
        let sp = (c[31] >> blosc2_flags::SPECIAL_SHIFT) & special::MASK;
        if sp != special::NONE {
            return "special";
        }
    }
    if c.len() > 2 && c[2] & flags::MEMCPYED != 0 {
        return "memcpy";
    }
    "normal"
}

fn combine_kind(kinds: impl Iterator<Item = &'static str>) -> &'static str {
    let mut out = "";
    for k in kinds {
        if out.is_empty() {
            out = k;
        } else if out != k {
            return "mixed";
        }
    }
    out
}

/// t_ref / t_ours, from the paired repetitions: repetitions 2i and 2i+1
/// run the two engines in opposite orders (ABBA), so whichever runs second
/// finds the shared input in cache once each; the geometric mean of the two
/// ratios of such a pair cancels that, and the median over pairs is kept.
fn paired(t: &[Vec<f64>]) -> Option<f64> {
    if t.len() < 2 || t[0].is_empty() || t[0].len() != t[1].len() {
        return None;
    }
    let r: Vec<f64> = t[0].iter().zip(&t[1]).map(|(o, r)| r / o.max(1e-12)).collect();
    let pairs: Vec<f64> = r.chunks_exact(2).map(|p| (p[0] * p[1]).sqrt()).collect();
    Some(if pairs.is_empty() { median(&r) } else { median(&pairs) })
}

/// The median over repetitions of `t_memcpy / t_decompress`; None unless
/// every repetition has both.
fn relative_to_memcpy(mt: &[f64], dt: &[f64]) -> Option<f64> {
    if mt.is_empty() || mt.len() != dt.len() {
        return None;
    }
    let r: Vec<f64> = mt.iter().zip(dt).map(|(m, d)| m / d.max(1e-12)).collect();
    Some(median(&r))
}

/// Round a repetition count up to whole ABBA pairs.
pub(super) fn even(n: usize) -> usize {
    n + n % 2
}

pub(super) fn rel(ct: &[Vec<f64>], dt: &[Vec<f64>]) -> Option<(Option<f64>, f64)> {
    Some((paired(ct), paired(dt)?))
}

pub(super) fn finish(ratio: Vec<f64>, bytes: usize, ct: &[Vec<f64>], dt: &[Vec<f64>]) -> Vec<SideResult> {
    let mb = bytes as f64 / 1e6;
    (0..ratio.len())
        .map(|s| SideResult {
            ratio: ratio[s],
            cspeed: (!ct[s].is_empty()).then(|| mb / median(&ct[s]).max(1e-9)),
            dspeed: mb / median(&dt[s]).max(1e-9),
            cspread: if ct[s].is_empty() { 0.0 } else { spread(&ct[s]) },
            dspread: spread(&dt[s]),
        })
        .collect()
}

/// Buffers and engines of a chunked cell.
struct Chunked<'l> {
    sd: Vec<Side<'l>>,
    chunk: usize,
    stride: usize,
    /// Compressed chunks per side, `stride` bytes apart.
    comp: Vec<Vec<u8>>,
    lens: Vec<Vec<usize>>,
    outs: Vec<Vec<u8>>,
}

/// Timings of one repetition, per side.
struct RepTimes {
    c: Vec<f64>,
    d: Vec<f64>,
    /// memcpy of the same sizes from the compressed buffer into the same
    /// destination.
    m: f64,
}

impl Chunked<'_> {
    /// Compress `src` on every side, then decompress and verify, in the
    /// side order of repetition `rep`. With `warm`, each side first
    /// decompresses its first chunk once untimed (a first call sizes the
    /// context's buffers; the calibration of a slow cell is also its first
    /// timed repetition).
    fn rep(&mut self, src: &[u8], rep: usize, warm: bool) -> Result<RepTimes, String> {
        let ns = self.sd.len();
        let (chunk, stride) = (self.chunk, self.stride);
        let pieces: Vec<&[u8]> = src.chunks(chunk).collect();
        let ord = order(rep, ns);
        let mut c = vec![0.0; ns];
        let mut d = vec![0.0; ns];
        for &k in &ord {
            let (side, buf, len) = (&mut self.sd[k], &mut self.comp[k], &mut self.lens[k]);
            let t = Instant::now();
            for (i, p) in pieces.iter().enumerate() {
                len[i] = side.compress(p, &mut buf[i * stride..(i + 1) * stride])?;
            }
            c[k] = t.elapsed().as_secs_f64();
        }
        if warm {
            for k in 0..ns {
                let first = pieces[0].len();
                self.sd[k].decompress(&self.comp[k][..self.lens[k][0]], &mut self.outs[k][..first])?;
            }
        }
        for out in self.outs.iter_mut() {
            poison(out, src, rep);
        }
        // memcpy of the same sizes, from where the first side's chunks are
        // to where they decompress, in the cache state the decompressions
        // find: the physical limit of a memcpyed chunk's decompression.
        let m = {
            let (buf, out) = (&self.comp[0], &mut self.outs[0]);
            let t = Instant::now();
            for (i, p) in pieces.iter().enumerate() {
                out[i * chunk..i * chunk + p.len()].copy_from_slice(black_box(&buf[i * stride..i * stride + p.len()]));
            }
            black_box(&mut *out);
            let m = t.elapsed().as_secs_f64();
            poison(out, src, rep);
            m
        };
        for &k in &ord {
            let (side, buf, len, out) = (&mut self.sd[k], &self.comp[k], &self.lens[k], &mut self.outs[k]);
            let t = Instant::now();
            for (i, p) in pieces.iter().enumerate() {
                let cb = &buf[i * stride..i * stride + len[i]];
                let got = side.decompress(cb, &mut out[i * chunk..i * chunk + p.len()])?;
                if got != p.len() {
                    return Err(format!("{}: decompressed {got} bytes, expected {}", WHO[k], p.len()));
                }
            }
            d[k] = t.elapsed().as_secs_f64();
        }
        for (out, who) in self.outs.iter().zip(WHO) {
            verify(&out[..src.len()], src, who)?;
        }
        Ok(RepTimes { c, d, m })
    }
}

/// Compress `data` in chunks of `chunk` bytes and decompress them back.
/// Timed repetitions cover as many chunks as fit the budget (at least
/// one), `budget.reps` of them at least (also for cells slower than the
/// budget) and up to ten times that for cheap cells.
pub fn chunked(
    data: &[u8],
    chunk: usize,
    s: &Settings,
    lib: Option<&RefLib>,
    budget: Budget,
) -> Result<Measured, String> {
    let sd = sides(s, lib)?;
    let ns = sd.len();
    let total = data.len().div_ceil(chunk);
    let stride = chunk + MAX_OVERHEAD;
    let mut st = Chunked {
        sd,
        chunk,
        stride,
        comp: (0..ns).map(|_| touched(total * stride)).collect(),
        lens: vec![vec![0; total]; ns],
        outs: (0..ns).map(|_| touched(data.len())).collect(),
    };

    // Calibrate on the first chunk (twice when cheap: the first call also
    // starts thread pools), then pick how many chunks fit the budget. When
    // only one chunk fits, the calibration is the first repetition.
    let first = &data[..chunk.min(data.len())];
    let mut calib = st.rep(first, 0, true)?;
    let cost = |t: &RepTimes| t.c.iter().chain(&t.d).sum::<f64>();
    if cost(&calib) < 0.05 {
        calib = st.rep(first, 0, false)?;
    }
    let per_chunk = cost(&calib);
    let per_rep = |n: usize| per_chunk * n as f64;
    let mut nchunks = total;
    while nchunks > 1 && per_rep(nchunks) * budget.reps as f64 > budget.seconds {
        nchunks = nchunks.div_ceil(2).min(nchunks - 1);
    }
    // Cheap cells repeat more (up to half the budget, at most 10x), as a
    // single scheduling hiccup matters more the shorter a repetition is.
    let fit = (budget.seconds / per_rep(nchunks).max(1e-9)) as usize;
    // A cell slower than the budget still gets all its repetitions (see
    // `Budget`).
    let reps = even(if fit >= budget.reps {
        (fit / 2).clamp(budget.reps, 10 * budget.reps)
    } else {
        budget.reps
    });
    let src = &data[..(nchunks * chunk).min(data.len())];
    let npieces = nchunks.min(total);

    let mut ct = vec![Vec::new(); ns];
    let mut dt = vec![Vec::new(); ns];
    let mut mt = Vec::new();
    let mut first_rep = 0;
    if npieces == 1 {
        for k in 0..ns {
            ct[k].push(calib.c[k]);
            dt[k].push(calib.d[k]);
        }
        mt.push(calib.m);
        first_rep = 1;
    }
    let mut ratio = vec![0.0; ns];
    for rep in first_rep..reps {
        let t = st.rep(src, rep, false)?;
        for k in 0..ns {
            ct[k].push(t.c[k]);
            dt[k].push(t.d[k]);
        }
        if t.m > 0.0 {
            mt.push(t.m);
        }
    }
    // The chunks of the last repetition (the same every time).
    let chunk_of = |k: usize, i: usize| &st.comp[k][i * stride..i * stride + st.lens[k][i]];
    for (k, r) in ratio.iter_mut().enumerate() {
        let cbytes: usize = st.lens[k][..npieces].iter().sum();
        *r = src.len() as f64 / cbytes as f64;
    }
    let kind = combine_kind((0..npieces).map(|i| chunk_kind(chunk_of(0, i))));
    let identical = (ns == 2).then(|| (0..npieces).all(|i| chunk_of(0, i) == chunk_of(1, i)));
    Ok(Measured {
        sides: finish(ratio, src.len(), &ct, &dt),
        rel: rel(&ct, &dt),
        kind,
        identical,
        units: (npieces, total),
        reps,
        bytes: src.len(),
        memcpy: Some(src.len() as f64 / 1e6 / median(&mt).max(1e-9)),
        memcpy_rel: dt.iter().map(|d| relative_to_memcpy(&mt, d)).collect(),
    })
}

/// For cells timed per call (getitem, slices): how many calls fill a
/// repetition's share of the budget, given the calibrated seconds per
/// call (at least `min_calls`, at most `max_calls`), and how many
/// repetitions; cheap cells (the call count is capped) repeat more, as in
/// `chunked`.
pub(super) fn calls_and_reps(budget: Budget, per_call: f64, min_calls: usize, max_calls: usize) -> (usize, usize) {
    let calls = ((budget.seconds / budget.reps as f64 / per_call.max(1e-9)) as usize).clamp(min_calls, max_calls);
    let reps = even(
        ((budget.seconds / 2.0 / (calls as f64 * per_call).max(1e-9)) as usize).clamp(budget.reps, 10 * budget.reps),
    );
    (calls, reps)
}

/// Getitem of one item at pseudo-random positions of a compressed chunk of
/// up to `chunk` bytes. Speeds are calls per second.
pub fn getitem(
    data: &[u8],
    chunk: usize,
    s: &Settings,
    lib: Option<&RefLib>,
    budget: Budget,
) -> Result<Measured, String> {
    let mut sd = sides(s, lib)?;
    let ns = sd.len();
    let src = &data[..chunk.min(data.len())];
    let ts = s.typesize.max(1) as usize;
    let nitems = src.len() / ts;
    let mut comps = Vec::new();
    for side in sd.iter_mut() {
        let mut c = vec![0u8; src.len() + MAX_OVERHEAD];
        let n = side.compress(src, &mut c)?;
        c.truncate(n);
        comps.push(c);
    }
    // When both engines wrote the same bytes, both read the same buffer:
    // random single-item reads are dominated by cache and TLB misses, and
    // two buffers can land on memory that behaves differently.
    let identical = (ns == 2).then(|| comps[0] == comps[1]);
    if identical == Some(true) {
        comps.truncate(1);
    }
    let comp_of = |k: usize| k.min(comps.len() - 1);
    let mut rng = blosc2::datagen::SplitMix64::new(0x006E_717E);
    let idx: Vec<usize> = (0..1 << 16).map(|_| (rng.next() % nitems as u64) as usize).collect();
    let mut item = vec![0u8; ts];
    let mut run = |side: &mut Side<'_>, c: &[u8], calls: usize, who: &str| -> Result<f64, String> {
        let t = Instant::now();
        for &i in &idx[..calls] {
            let got = side.getitem(c, i, &mut item)?;
            if got != ts || item[..] != src[i * ts..(i + 1) * ts] {
                return Err(format!("{who}: getitem({i}) returned wrong bytes"));
            }
        }
        Ok(black_box(t.elapsed().as_secs_f64()))
    };
    // Calibrate (also the warm-up).
    let mut per_call = 0.0;
    for k in 0..ns {
        per_call += run(&mut sd[k], &comps[comp_of(k)], 16, WHO[k])? / 16.0;
    }
    let (calls, reps) = calls_and_reps(budget, per_call, 16, idx.len());
    let mut dt = vec![Vec::new(); ns];
    for rep in 0..reps {
        for k in order(rep, ns) {
            let t = run(&mut sd[k], &comps[comp_of(k)], calls, WHO[k])?;
            dt[k].push(t);
        }
    }
    let ratio: Vec<f64> = (0..ns)
        .map(|k| src.len() as f64 / comps[comp_of(k)].len() as f64)
        .collect();
    // Express speed as calls/s: "bytes" = calls * 1e6 so that MB/s = calls/s.
    let mut sides_res = finish(ratio, calls * 1_000_000, &vec![Vec::new(); ns], &dt);
    for r in sides_res.iter_mut() {
        r.cspeed = None;
    }
    Ok(Measured {
        rel: rel(&vec![Vec::new(); ns], &dt),
        sides: sides_res,
        kind: chunk_kind(&comps[0]),
        identical,
        units: (calls, calls),
        reps,
        bytes: src.len(),
        memcpy: None,
        memcpy_rel: None,
    })
}

/// memcpy bandwidth (MB/s) on `src`, median of `reps` copies.
pub fn memcpy_bw(src: &[u8], reps: usize) -> f64 {
    let mut dst = touched(src.len());
    let mut t = Vec::new();
    for _ in 0..reps.max(3) {
        let t0 = Instant::now();
        dst.copy_from_slice(black_box(src));
        black_box(&mut dst);
        t.push(t0.elapsed().as_secs_f64());
    }
    src.len() as f64 / 1e6 / median(&t).max(1e-9)
}
