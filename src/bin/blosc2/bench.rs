//! `blosc2 bench`: the speed benchmark of issue #4.
//!
//! Runs our engine and, with `--vs-reference`, the reference C-Blosc2
//! (`libblosc2.so` from python-blosc2, loaded with dlopen) in the same
//! process, alternating them in every repetition and keeping medians, over
//! a matrix of data sets, codecs, filters, levels and thread counts:
//!
//! - `chunk`:   4 MiB chunks with automatic block size;
//! - `small`:   4, 16 and 64 KiB chunks, where per-call overhead dominates;
//! - `clevel0`: clevel 0 (memcpyed chunks), against memcpy bandwidth;
//! - `schunk`:  256 chunks appended to a super-chunk and read back, in
//!   memory (chunks or a contiguous frame) and in a frame file;
//! - `getitem`: one item at random positions of a 4 MiB chunk;
//! - `b2nd`:    a 3-D float64 array built from a buffer, and a box or a
//!   plane sliced out of it (speed in MB/s of the slice);
//! - `frame`:   4 MiB chunks written as a frame and read back from a buffer
//!   (copied or read in place) or by reopening the frame file;
//! - `slice`:   `get_slice_buffer` of 1, 16 and 4096 items at random
//!   positions, in memory, in frames in memory and in frame files
//!   (calls/s);
//! - `special`: frames of special chunks (zeros, NaNs) in memory and on
//!   disk, and a frame file whose vlmetalayer is updated five times (the
//!   ratio of these and of `frame` cells is nbytes / frame size).
//!
//! Every round trip is verified. Output: one line per cell (ratio of
//! compression ratios, of compression speeds and of decompression speeds,
//! plus absolute numbers), geometric means, the worst cells, memcpy
//! bandwidth, and a CSV with `--csv FILE`.

#![deny(unsafe_code)]

mod data;
mod frames;
mod measure;
mod memory;
mod ndslice;
mod reference;
mod slices;
mod store;

use std::fmt::Write as _;
use std::io::Write as _;
use std::path::PathBuf;
use std::time::Instant;

use blosc2::engine::codecs;
use blosc2::engine::constants::{codec, filter};
use clap::{ArgMatches, Command};

use crate::args;
use data::Dataset;
use frames::{Reread, Special, Where};
use measure::{Budget, Measured};
use ndslice::SliceKind;
use reference::{RefLib, Settings};
use slices::SliceWhere;

/// The clap definition of `blosc2 bench`.
pub fn command() -> Command {
    args::command(
        "bench",
        "blosc2 bench [--vs-reference] [--reference PATH] [--size MIB] [--reps N]
                    [--quick] [--csv FILE] [--filter TERMS]... [--cell-seconds S] [--list]",
        "The speed benchmark: our engine, and with --vs-reference the reference
C-Blosc2 libblosc2.so in the same process, over a matrix of data sets,
codecs, filters, levels and thread counts.",
    )
    .after_help("cell ids: group/dataset/codec/filter/cLEVEL/tTHREADS[/chunk size|storage|slice]")
    .args([
        args::flag(
            "vs-reference",
            None,
            "also run the reference C-Blosc2 (libblosc2.so) and compare",
        ),
        args::valued(
            "reference",
            None,
            "PATH",
            "the reference library (default: $BLOSC2_REFERENCE_LIB, else python-blosc2's \
             lib/libblosc2.so found through python3)",
        ),
        args::valued("size", None, "MIB", "bytes per data set (default 32; 8 with --quick)"),
        args::valued(
            "reps",
            None,
            "N",
            "timed repetitions per cell, medians reported (default 5)",
        ),
        args::flag(
            "quick",
            None,
            "a reduced matrix for a run of a few minutes: 8 MiB data sets, 4 MiB chunks at \
             clevel 5 with every filter and at clevel 1 with shuffle, and fewer \
             small/schunk/getitem cells",
        ),
        args::valued("csv", None, "FILE", "also write one CSV row per cell"),
        args::repeated(
            "filter",
            None,
            "TERMS",
            "run only cells whose id has one of the comma-separated components (repeat for \
             AND), e.g. --filter lz4,zstd --filter t2",
        ),
        args::valued(
            "cell-seconds",
            None,
            "S",
            "time budget of one cell; slow cells time fewer chunks (default 0.7; 0.25 with --quick)",
        ),
        args::flag("list", None, "print the cell ids and exit"),
        args::flag(
            "memory",
            None,
            "instead of the matrix: peak memory of a 1 GiB super-chunk round trip, ours and \
             the reference's, each in a child process",
        ),
        args::valued("memory-child", None, "SIDE", "internal: the child of --memory").hide(true),
    ])
}

struct Options {
    vs_reference: bool,
    reference: Option<String>,
    size_mib: usize,
    reps: usize,
    quick: bool,
    csv: Option<PathBuf>,
    filters: Vec<Vec<String>>,
    cell_seconds: f64,
    list: bool,
    memory: bool,
    memory_child: Option<String>,
}

fn parse(m: &ArgMatches) -> Result<Options, String> {
    let p = args::Parsed::new(m);
    let num = |name: &str| -> Result<f64, String> {
        match p.value(name) {
            None => Ok(0.0),
            Some(v) => v
                .parse::<f64>()
                .ok()
                .filter(|x| *x > 0.0)
                .ok_or_else(|| format!("--{name} needs a positive number, not '{v}'")),
        }
    };
    let reference = p.value("reference").map(str::to_string);
    let mut o = Options {
        vs_reference: p.flag("vs-reference") || reference.is_some(),
        reference,
        size_mib: num("size")? as usize,
        reps: num("reps")? as usize,
        quick: p.flag("quick"),
        csv: p.value("csv").map(PathBuf::from),
        filters: p
            .values("filter")
            .iter()
            .map(|t| t.split(',').map(str::to_string).collect())
            .collect(),
        cell_seconds: num("cell-seconds")?,
        list: p.flag("list"),
        memory: p.flag("memory"),
        memory_child: p.value("memory-child").map(str::to_string),
    };
    if o.size_mib == 0 {
        o.size_mib = if o.quick { 8 } else { 32 };
    }
    if o.reps == 0 {
        // Rounded up to 6: three ABBA pairs, whose median sets aside one
        // pair the machine disturbed (with two, the median is their mean).
        o.reps = 5;
    }
    if o.cell_seconds == 0.0 {
        o.cell_seconds = if o.quick { 0.25 } else { 0.7 };
    }
    Ok(o)
}

const MIB: usize = 1024 * 1024;
const KIB: usize = 1024;

const CODECS: [u8; 5] = [codec::BLOSCLZ, codec::LZ4, codec::LZ4HC, codec::ZLIB, codec::ZSTD];

/// The four filter pipelines of the matrix.
const FILTERS: [(&str, [u8; 6]); 4] = [
    ("none", [0; 6]),
    ("shuffle", [0, 0, 0, 0, 0, filter::SHUFFLE]),
    ("bitshuffle", [0, 0, 0, 0, 0, filter::BITSHUFFLE]),
    ("delta+shuffle", [0, 0, 0, 0, filter::DELTA, filter::SHUFFLE]),
];

#[derive(Clone, Copy)]
enum What {
    Chunked { chunk: usize, limit: usize },
    SChunk { wh: Where, nchunks: usize },
    GetItem { chunk: usize },
    NdSlice { kind: SliceKind },
    Frame { how: Reread },
    Slice { wh: SliceWhere, nitems: usize },
    Special { what: Special },
}

struct Cell {
    group: &'static str,
    ds: usize,
    codec: &'static str,
    filter: &'static str,
    s: Settings,
    what: What,
    id: String,
}

fn size_label(n: usize) -> String {
    if n >= MIB && n.is_multiple_of(MIB) {
        format!("{}M", n / MIB)
    } else {
        format!("{}K", n / KIB)
    }
}

#[allow(clippy::too_many_arguments)]
fn cell(
    group: &'static str,
    ds: usize,
    dsets: &[Dataset],
    c: u8,
    f: usize,
    clevel: u8,
    nthreads: i16,
    what: What,
) -> Cell {
    let codec = codecs::compname(c).unwrap_or("?");
    let (filter, filters) = FILTERS[f];
    let extra = match what {
        What::Chunked { chunk, .. } if group != "chunk" => format!("/{}", size_label(chunk)),
        What::SChunk { wh, .. } => format!("/{}", wh.name()),
        What::NdSlice { kind } => format!("/{}", kind.name()),
        What::Frame { how } => format!("/{}", how.name()),
        What::Slice { wh, nitems } => format!("/{}/{nitems}", wh.name()),
        What::Special { what } => format!("/{}", what.name()),
        _ => String::new(),
    };
    let id = format!(
        "{group}/{}/{codec}/{filter}/c{clevel}/t{nthreads}{extra}",
        dsets[ds].name
    );
    Cell {
        group,
        ds,
        codec,
        filter,
        s: Settings {
            compcode: c,
            clevel,
            typesize: dsets[ds].typesize,
            nthreads,
            filters,
        },
        what,
        id,
    }
}

fn ds_index(dsets: &[Dataset], name: &str) -> usize {
    dsets.iter().position(|d| d.name == name).unwrap_or(0)
}

/// The cells of the full matrix, or of the reduced one with `quick`.
fn matrix(dsets: &[Dataset], quick: bool) -> Vec<Cell> {
    let mut v = Vec::new();
    let all_ds: Vec<usize> = (0..dsets.len()).collect();
    // 4 MiB chunks.
    for &d in &all_ds {
        for c in CODECS {
            for (f, (fname, _)) in FILTERS.iter().enumerate() {
                for clevel in [1u8, 5, 9] {
                    if quick && (clevel == 9 || (clevel != 5 && *fname != "shuffle")) {
                        continue;
                    }
                    for t in [1i16, 2] {
                        let what = What::Chunked {
                            chunk: 4 * MIB,
                            limit: usize::MAX,
                        };
                        v.push(cell("chunk", d, dsets, c, f, clevel, t, what));
                    }
                }
            }
        }
    }
    // Small chunks: per-call overhead.
    let small_ds: Vec<usize> = if quick {
        ["f64-smooth", "random", "zeros", "text"]
            .iter()
            .map(|n| ds_index(dsets, n))
            .collect()
    } else {
        all_ds.clone()
    };
    let small_threads: &[i16] = if quick { &[1] } else { &[1, 2] };
    for &size in &[4 * KIB, 16 * KIB, 64 * KIB] {
        for &d in &small_ds {
            for c in CODECS {
                for &t in small_threads {
                    let what = What::Chunked {
                        chunk: size,
                        limit: if quick { 2 * MIB } else { 8 * MIB },
                    };
                    v.push(cell("small", d, dsets, c, 1, 5, t, what));
                }
            }
        }
    }
    // clevel 0: memcpyed chunks.
    for &d in &all_ds {
        for t in [1i16, 2] {
            let what = What::Chunked {
                chunk: 4 * MIB,
                limit: usize::MAX,
            };
            v.push(cell("clevel0", d, dsets, codec::BLOSCLZ, 0, 0, t, what));
        }
    }
    // Super-chunks of 256 chunks.
    let sc_ds: Vec<usize> = if quick {
        vec![ds_index(dsets, "f64-smooth")]
    } else {
        ["i64-arange", "f64-smooth", "text"]
            .iter()
            .map(|n| ds_index(dsets, n))
            .collect()
    };
    let sc_threads: &[i16] = if quick { &[1] } else { &[1, 2] };
    for &d in &sc_ds {
        for c in [codec::BLOSCLZ, codec::LZ4, codec::ZSTD] {
            for &t in sc_threads {
                for wh in [Where::Memory, Where::CFrame, Where::File] {
                    let what = What::SChunk { wh, nchunks: 256 };
                    v.push(cell("schunk", d, dsets, c, 1, 5, t, what));
                }
            }
        }
    }
    // getitem of one item.
    let gi_ds = sc_ds.clone();
    let gi_filters: &[usize] = if quick { &[1] } else { &[0, 1, 2] };
    for &d in &gi_ds {
        for c in CODECS {
            for &f in gi_filters {
                v.push(cell("getitem", d, dsets, c, f, 5, 1, What::GetItem { chunk: 4 * MIB }));
            }
        }
    }
    // A 3-D array slice.
    let nd = ds_index(dsets, "f64-smooth");
    let nd_codecs: &[u8] = if quick {
        &[codec::LZ4]
    } else {
        &[codec::BLOSCLZ, codec::LZ4, codec::ZSTD]
    };
    for &c in nd_codecs {
        for &t in sc_threads {
            for kind in [SliceKind::Box, SliceKind::Plane] {
                v.push(cell("b2nd", nd, dsets, c, 1, 5, t, What::NdSlice { kind }));
            }
        }
    }
    frame_cells(&mut v, dsets, quick);
    v
}

/// Frames read back, slices, special-chunk frames.
fn frame_cells(v: &mut Vec<Cell>, dsets: &[Dataset], quick: bool) {
    let names: &[&str] = if quick {
        &["f64-smooth", "random"]
    } else {
        &["i64-arange", "f64-smooth", "random", "text"]
    };
    let codecs: &[u8] = if quick {
        &[codec::LZ4]
    } else {
        &[codec::BLOSCLZ, codec::LZ4, codec::ZSTD]
    };
    let threads: &[i16] = if quick { &[1] } else { &[1, 2] };
    for d in names.iter().map(|n| ds_index(dsets, n)) {
        for &c in codecs {
            for &t in threads {
                for how in [Reread::BufferCopy, Reread::BufferShared, Reread::Reopened] {
                    v.push(cell("frame", d, dsets, c, 1, 5, t, What::Frame { how }));
                }
            }
        }
    }
    let slice_ds: &[&str] = if quick {
        &["f64-smooth", "random", "zeros"]
    } else {
        &["i64-arange", "f64-smooth", "random", "zeros", "text"]
    };
    let slice_codecs: &[u8] = if quick {
        &[codec::LZ4]
    } else {
        &[codec::LZ4, codec::ZSTD]
    };
    for d in slice_ds.iter().map(|n| ds_index(dsets, n)) {
        for &c in slice_codecs {
            for wh in [
                SliceWhere::Memory,
                SliceWhere::CFrame,
                SliceWhere::Shared,
                SliceWhere::File,
                SliceWhere::Reopened,
            ] {
                for nitems in [1, 16, 4096] {
                    v.push(cell("slice", d, dsets, c, 1, 5, 1, What::Slice { wh, nitems }));
                }
            }
        }
    }
    let d = ds_index(dsets, "f64-smooth");
    for what in [
        Special::Zeros { file: false },
        Special::Zeros { file: true },
        Special::Nans { file: false },
        Special::Nans { file: true },
        Special::Vlmeta,
    ] {
        v.push(cell("special", d, dsets, codec::LZ4, 1, 5, 1, What::Special { what }));
    }
}

fn selected(id: &str, filters: &[Vec<String>]) -> bool {
    let parts: Vec<&str> = id.split('/').collect();
    filters.iter().all(|alts| {
        alts.iter()
            .any(|a| parts.contains(&a.as_str()) || (a.contains('/') && id.contains(a.as_str())))
    })
}

struct Row {
    cell: Cell,
    m: Measured,
    memcpy: f64,
    /// Wall time of the whole cell (calibration, warm-up, verification).
    secs: f64,
}

impl Row {
    fn has_ref(&self) -> bool {
        self.m.sides.len() == 2 && self.m.rel.is_some()
    }
    fn rel_ratio(&self) -> f64 {
        self.m.sides[0].ratio / self.m.sides[1].ratio
    }
    fn rel_c(&self) -> Option<f64> {
        self.m.rel?.0
    }
    fn rel_d(&self) -> f64 {
        self.m.rel.map_or(f64::NAN, |r| r.1)
    }
    /// The lower of the two speed ratios.
    fn worst(&self) -> f64 {
        self.rel_c().unwrap_or(f64::INFINITY).min(self.rel_d())
    }
    fn noise(&self) -> f64 {
        self.m
            .sides
            .iter()
            .map(|s| s.cspread.max(s.dspread))
            .fold(0.0, f64::max)
    }
}

fn geomean(v: impl Iterator<Item = f64>) -> (f64, usize) {
    let (sum, n) = v.fold((0.0, 0usize), |(s, n), x| (s + x.ln(), n + 1));
    if n == 0 {
        (f64::NAN, 0)
    } else {
        ((sum / n as f64).exp(), n)
    }
}

const BAR_CELL: f64 = 0.85;
const BAR_RATIO: f64 = 0.99;
const BAR_MEMCPY: f64 = 0.9;

fn header_line(with_ref: bool) -> String {
    if with_ref {
        format!(
            "{:<46} {:>9} {:>6} | {:>7} {:>7} {:>5} | {:>7} {:>7} {:>5} | {:>4} {:<7} {:>3} {}",
            "cell", "ratio", "r/ref", "c MB/s", "ref", "c/ref", "d MB/s", "ref", "d/ref", "spr%", "kind", "id", "units"
        )
    } else {
        format!(
            "{:<46} {:>9} | {:>7} | {:>7} | {:>4} {:<7} {}",
            "cell", "ratio", "c MB/s", "d MB/s", "spr%", "kind", "units"
        )
    }
}

fn fmt_row(r: &Row) -> String {
    let o = &r.m.sides[0];
    let units = format!("{}/{}x{} {:.1}s", r.m.units.0, r.m.units.1, r.m.reps, r.secs);
    let fc = |x: Option<f64>| x.map_or("-".to_string(), |v| format!("{v:.0}"));
    let noise = r.noise() * 100.0;
    if !r.has_ref() {
        return format!(
            "{:<46} {:>9.2} | {:>7} | {:>7.0} | {:>4.0} {:<7} {}",
            r.cell.id,
            o.ratio,
            fc(o.cspeed),
            o.dspeed,
            noise,
            r.m.kind,
            units
        );
    }
    let f = &r.m.sides[1];
    let mut flags = String::new();
    if r.worst() < BAR_CELL {
        flags.push_str(" SLOW");
    }
    if r.rel_ratio() < BAR_RATIO {
        flags.push_str(" RATIO");
    }
    format!(
        "{:<46} {:>9.2} {:>6.3} | {:>7} {:>7} {:>5} | {:>7.0} {:>7.0} {:>5.2} | {:>4.0} {:<7} {:>3} {}{}",
        r.cell.id,
        o.ratio,
        r.rel_ratio(),
        fc(o.cspeed),
        fc(f.cspeed),
        r.rel_c().map_or("-".to_string(), |v| format!("{v:.2}")),
        o.dspeed,
        f.dspeed,
        r.rel_d(),
        noise,
        r.m.kind,
        match r.m.identical {
            Some(true) => "=",
            Some(false) => "!=",
            None => "",
        },
        units,
        flags
    )
}

const CSV_HEADER: &str =
    "id,group,dataset,codec,filter,clevel,nthreads,size,kind,identical,units,units_total,reps,bytes,\
ratio_ours,ratio_ref,ratio_rel,cspeed_ours,cspeed_ref,cspeed_rel,dspeed_ours,dspeed_ref,dspeed_rel,\
cspread_ours,cspread_ref,dspread_ours,dspread_ref,memcpy_mbs,cell_seconds";

fn csv_row(r: &Row) -> String {
    let c = &r.cell;
    let size = match c.what {
        What::Chunked { chunk, .. } => size_label(chunk),
        What::SChunk { wh, .. } => wh.name().to_string(),
        What::GetItem { chunk } => size_label(chunk),
        What::NdSlice { kind } => kind.name().to_string(),
        What::Frame { how } => how.name().to_string(),
        What::Slice { wh, nitems } => format!("{}/{nitems}", wh.name()),
        What::Special { what } => what.name().to_string(),
    };
    let o = &r.m.sides[0];
    let f = r.m.sides.get(1);
    let opt = |x: Option<f64>| x.map_or(String::new(), |v| format!("{v:.6}"));
    format!(
        "{},{},{},{},{},{},{},{},{},{},{},{},{},{},{:.6},{},{},{},{},{},{:.3},{},{},{:.4},{},{:.4},{},{:.1},{:.2}",
        c.id,
        c.group,
        c.id.split('/').nth(1).unwrap_or(""),
        c.codec,
        c.filter,
        c.s.clevel,
        c.s.nthreads,
        size,
        r.m.kind,
        r.m.identical.map_or(String::new(), |b| b.to_string()),
        r.m.units.0,
        r.m.units.1,
        r.m.reps,
        r.m.bytes,
        o.ratio,
        opt(f.map(|f| f.ratio)),
        opt(f.map(|_| r.rel_ratio())),
        opt(o.cspeed),
        opt(f.and_then(|f| f.cspeed)),
        opt(f.and_then(|_| r.rel_c())),
        o.dspeed,
        opt(f.map(|f| f.dspeed)),
        opt(f.map(|_| r.rel_d())),
        o.cspread,
        opt(f.map(|f| f.cspread)),
        o.dspread,
        opt(f.map(|f| f.dspread)),
        r.memcpy,
        r.secs
    )
}

/// Run the benchmark with the command-line `args` (after `bench`).
pub fn run(m: &ArgMatches) -> Result<(), String> {
    let o = parse(m)?;
    if let Some(who) = &o.memory_child {
        return memory::child(who, o.reference.as_deref());
    }
    if o.memory {
        return memory::run(o.reference.as_deref());
    }
    let t_start = Instant::now();
    let lib = if o.vs_reference && !o.list {
        let path = reference::locate(o.reference.as_deref())?;
        Some(RefLib::load(&path)?)
    } else {
        None
    };
    let size = o.size_mib * MIB;
    let dsets = if o.list { data::all(64) } else { data::all(size) };
    let cells: Vec<Cell> = matrix(&dsets, o.quick)
        .into_iter()
        .filter(|c| selected(&c.id, &o.filters))
        .collect();
    if o.list {
        for c in &cells {
            println!("{}", c.id);
        }
        return Ok(());
    }
    if cells.is_empty() {
        return Err("no cell matches the --filter terms (see --list)".into());
    }
    println!(
        "blosc2 {} bench: {} cells, {} MiB per data set, {} reps (medians), {:.2} s budget per cell{}",
        env!("CARGO_PKG_VERSION"),
        cells.len(),
        o.size_mib,
        o.reps,
        o.cell_seconds,
        if o.quick { ", quick matrix" } else { "" }
    );
    match &lib {
        Some(l) => println!("reference: C-Blosc2 {} from {}", l.version(), l.path().display()),
        None => println!("reference: not loaded (use --vs-reference)"),
    }
    println!(
        "cpus: {} available; speeds are MB/s (1e6 bytes/s) of uncompressed data (getitem cells: calls/s);\n\
         c/ref, d/ref: t_ref/t_ours from paired repetitions (both engines back to back, ours first in\n\
         even repetitions, the reference first in odd ones; each such pair gives the geometric mean of\n\
         its two ratios, the median over pairs is shown); spr%: largest (max-min)/median of the timings;\n\
         id: '=' when our chunks are byte-identical to the reference's; units: chunks timed/chunks in the\n\
         data set x repetitions, then the cell's wall time",
        std::thread::available_parallelism().map_or(1, |n| n.get())
    );
    let mut csv = match &o.csv {
        Some(p) => {
            let mut f = std::fs::File::create(p).map_err(|e| format!("cannot create {}: {e}", p.display()))?;
            writeln!(f, "{CSV_HEADER}").map_err(|e| e.to_string())?;
            Some(f)
        }
        None => None,
    };

    // memcpy bandwidth on the same buffers, the physical limit.
    let memcpy: Vec<f64> = dsets.iter().map(|d| measure::memcpy_bw(&d.bytes, 9)).collect();
    println!(
        "memcpy bandwidth (single thread, {} MiB buffers): {}",
        o.size_mib,
        dsets
            .iter()
            .zip(&memcpy)
            .map(|(d, m)| format!("{} {m:.0}", d.name))
            .collect::<Vec<_>>()
            .join(", ")
    );
    let tmpdir = std::env::temp_dir();
    let budget = Budget {
        reps: o.reps,
        seconds: o.cell_seconds,
    };
    let mut rows: Vec<Row> = Vec::new();
    let mut group = "";
    let mut t_group = Instant::now();
    for c in cells {
        if c.group != group {
            if !group.is_empty() {
                println!("({group}: {:.0} s)", t_group.elapsed().as_secs_f64());
            }
            group = c.group;
            t_group = Instant::now();
            println!("\n== {group}\n{}", header_line(lib.is_some()));
        }
        let d = &dsets[c.ds].bytes;
        let t_cell = Instant::now();
        let res = match c.what {
            What::Chunked { chunk, limit } => {
                measure::chunked(&d[..limit.min(d.len())], chunk, &c.s, lib.as_ref(), budget)
            }
            What::SChunk { wh, nchunks } => frames::schunk(d, nchunks, &c.s, wh, lib.as_ref(), budget, &tmpdir),
            What::GetItem { chunk } => measure::getitem(d, chunk, &c.s, lib.as_ref(), budget),
            What::NdSlice { kind } => ndslice::slice(d, &c.s, kind, lib.as_ref(), budget),
            What::Frame { how } => {
                let n = (d.len() / (4 * MIB)).max(1);
                frames::reread(d, n, &c.s, how, lib.as_ref(), budget, &tmpdir)
            }
            What::Slice { wh, nitems } => slices::slices(d, 4 * MIB, &c.s, wh, nitems, lib.as_ref(), budget, &tmpdir),
            What::Special { what } => frames::special(d, 4 * MIB, &c.s, what, lib.as_ref(), budget, &tmpdir),
        };
        let m = match res {
            Ok(m) => m,
            Err(e) => return Err(format!("cell {}: {e}", c.id)),
        };
        let row = Row {
            secs: t_cell.elapsed().as_secs_f64(),
            memcpy: m.memcpy.unwrap_or(memcpy[c.ds]),
            cell: c,
            m,
        };
        println!("{}", fmt_row(&row));
        if let Some(f) = csv.as_mut() {
            writeln!(f, "{}", csv_row(&row)).map_err(|e| e.to_string())?;
            let _ = f.flush();
        }
        rows.push(row);
    }
    println!("({group}: {:.0} s)", t_group.elapsed().as_secs_f64());
    print!("{}", summary(&rows, &dsets, &memcpy));
    println!("total time: {:.0} s", t_start.elapsed().as_secs_f64());
    if let Some(p) = &o.csv {
        println!("CSV: {}", p.display());
    }
    Ok(())
}

fn summary(rows: &[Row], dsets: &[Dataset], memcpy: &[f64]) -> String {
    let mut s = String::new();
    let w = &mut s;
    let with_ref: Vec<&Row> = rows.iter().filter(|r| r.has_ref()).collect();
    let _ = writeln!(w, "\n== summary");
    let noise: Vec<f64> = rows.iter().map(Row::noise).collect();
    if !noise.is_empty() {
        let _ = writeln!(
            w,
            "noise: median over cells of (max-min)/median of the timed repetitions = {:.1}% (90th percentile {:.1}%)",
            measure::median(&noise) * 100.0,
            percentile(&noise, 0.9) * 100.0
        );
    }
    if with_ref.is_empty() {
        let _ = writeln!(w, "(no reference: absolute numbers only)");
        memcpy_section(w, rows, dsets, memcpy);
        return s;
    }
    let (gc, nc) = geomean(with_ref.iter().filter_map(|r| r.rel_c()));
    let (gd, nd) = geomean(with_ref.iter().map(|r| r.rel_d()));
    let (gr, _) = geomean(with_ref.iter().map(|r| r.rel_ratio()));
    let _ = writeln!(
        w,
        "geometric mean ours/reference: compression speed {gc:.3} ({nc} cells), decompression speed {gd:.3} ({nd} cells), compression ratio {gr:.4}"
    );
    // Breakdowns.
    let groups = [
        "chunk", "small", "clevel0", "schunk", "getitem", "b2nd", "frame", "slice", "special",
    ];
    let _ = writeln!(w, "\nby group:                  c/ref   d/ref  ratio   cells");
    for g in groups {
        breakdown_line(w, g, with_ref.iter().copied().filter(|r| r.cell.group == g));
    }
    paths_section(w, &with_ref);
    let chunk_rows: Vec<&Row> = with_ref.iter().copied().filter(|r| r.cell.group == "chunk").collect();
    if !chunk_rows.is_empty() {
        let _ = writeln!(w, "\n4 MiB chunks by codec / filter / clevel / threads / data set:");
        for c in CODECS {
            let name = codecs::compname(c).unwrap_or("?");
            breakdown_line(w, name, chunk_rows.iter().copied().filter(|r| r.cell.codec == name));
        }
        for (f, _) in FILTERS {
            breakdown_line(w, f, chunk_rows.iter().copied().filter(|r| r.cell.filter == f));
        }
        for cl in [1u8, 5, 9] {
            breakdown_line(
                w,
                &format!("clevel {cl}"),
                chunk_rows.iter().copied().filter(|r| r.cell.s.clevel == cl),
            );
        }
        for t in [1i16, 2] {
            breakdown_line(
                w,
                &format!("{t} thread(s)"),
                chunk_rows.iter().copied().filter(|r| r.cell.s.nthreads == t),
            );
        }
        for d in dsets {
            breakdown_line(
                w,
                d.name,
                chunk_rows.iter().copied().filter(|r| r.cell.id.contains(d.name)),
            );
        }
        let _ = writeln!(w, "\n4 MiB chunks by codec x threads:");
        for c in CODECS {
            let name = codecs::compname(c).unwrap_or("?");
            for t in [1i16, 2] {
                breakdown_line(
                    w,
                    &format!("{name} t{t}"),
                    chunk_rows
                        .iter()
                        .copied()
                        .filter(|r| r.cell.codec == name && r.cell.s.nthreads == t),
                );
            }
        }
    }
    let small_rows: Vec<&Row> = with_ref.iter().copied().filter(|r| r.cell.group == "small").collect();
    if !small_rows.is_empty() {
        let _ = writeln!(w, "\nsmall chunks by size / codec:");
        for sz in ["/4K", "/16K", "/64K"] {
            breakdown_line(w, sz, small_rows.iter().copied().filter(|r| r.cell.id.ends_with(sz)));
        }
        for c in CODECS {
            let name = codecs::compname(c).unwrap_or("?");
            breakdown_line(w, name, small_rows.iter().copied().filter(|r| r.cell.codec == name));
        }
    }
    let mut worst: Vec<&Row> = with_ref.clone();
    worst.sort_by(|a, b| a.worst().total_cmp(&b.worst()));
    let _ = writeln!(
        w,
        "\n10 worst cells (lowest of c/ref and d/ref):\n{}",
        header_line(true)
    );
    for r in worst.iter().take(10) {
        let _ = writeln!(w, "{}", fmt_row(r));
    }
    let slow: Vec<&&Row> = worst.iter().filter(|r| r.worst() < BAR_CELL).collect();
    let _ = writeln!(w, "\ncells below {BAR_CELL}x the reference: {}", slow.len());
    for r in slow.iter().take(60) {
        let _ = writeln!(w, "{}", fmt_row(r));
    }
    if slow.len() > 60 {
        let _ = writeln!(w, "... and {} more (see the CSV)", slow.len() - 60);
    }
    let mut bad_ratio: Vec<&Row> = with_ref.iter().copied().filter(|r| r.rel_ratio() < BAR_RATIO).collect();
    bad_ratio.sort_by(|a, b| a.rel_ratio().total_cmp(&b.rel_ratio()));
    let _ = writeln!(
        w,
        "\ncells with a compression ratio more than 1% below the reference: {}",
        bad_ratio.len()
    );
    for r in bad_ratio.iter().take(40) {
        let _ = writeln!(w, "{}", fmt_row(r));
    }
    let nident = with_ref.iter().filter(|r| r.m.identical == Some(true)).count();
    let ncomp = with_ref.iter().filter(|r| r.m.identical.is_some()).count();
    let _ = writeln!(w, "\nbyte-identical chunks: {nident} of {ncomp} cells");
    let mem_ok = memcpy_section(w, rows, dsets, memcpy);
    let pass_c = gc >= 1.0;
    let pass_d = gd >= 1.0;
    let pass_cells = slow.is_empty();
    let pass_ratio = bad_ratio.is_empty();
    let yn = |b: bool| if b { "PASS" } else { "FAIL" };
    let _ = writeln!(
        w,
        "\nbar: geomean c >= 1.0: {} ({gc:.3}); geomean d >= 1.0: {} ({gd:.3}); no cell < {BAR_CELL}: {} ({} below); \
         ratio within 1%: {} ({} worse); memcpyed/special d >= {BAR_MEMCPY} x memcpy: {}",
        yn(pass_c),
        yn(pass_d),
        yn(pass_cells),
        slow.len(),
        yn(pass_ratio),
        bad_ratio.len(),
        yn(mem_ok)
    );
    s
}

/// The path of issue 32's bar a cell belongs to.
fn path_of(c: &Cell) -> &'static str {
    let on_file = |name: &str| name.starts_with("file") || name.ends_with("-file");
    match c.what {
        What::Chunked { .. } if c.group == "small" => "small chunks",
        What::Chunked { .. } => "chunk",
        What::GetItem { .. } => "getitem",
        What::NdSlice { .. } => "b2nd",
        What::SChunk { wh: Where::Memory, .. } => "super-chunk in memory",
        What::SChunk { wh: Where::CFrame, .. } => "in-memory frame",
        What::SChunk { wh: Where::File, .. } => "file frame",
        What::Frame { how } if on_file(how.name()) => "file frame",
        What::Frame { .. } => "in-memory frame",
        What::Special { what } if on_file(what.name()) => "file frame",
        What::Special { .. } => "in-memory frame",
        What::Slice { wh, .. } if on_file(wh.name()) => "slices: file frame",
        What::Slice {
            wh: SliceWhere::Memory, ..
        } => "slices: super-chunk in memory",
        What::Slice { .. } => "slices: in-memory frame",
    }
}

/// Geometric means per path and issue 32's bar for each: speeds at 1.1x
/// the reference (slices: 1.0x, no cell below 0.8x), ratios (frame sizes)
/// within 1% in every cell.
fn paths_section(w: &mut String, rows: &[&Row]) {
    let paths = [
        "chunk",
        "small chunks",
        "super-chunk in memory",
        "in-memory frame",
        "file frame",
        "b2nd",
        "getitem",
        "slices: super-chunk in memory",
        "slices: in-memory frame",
        "slices: file frame",
    ];
    let _ = writeln!(
        w,
        "\nby path (issue 32):                       c/ref   d/ref  ratio   cells  worst  bar"
    );
    for p in paths {
        let in_path: Vec<&Row> = rows.iter().copied().filter(|r| path_of(&r.cell) == p).collect();
        if in_path.is_empty() {
            continue;
        }
        let (gc, nc) = geomean(in_path.iter().filter_map(|r| r.rel_c()));
        let (gd, nd) = geomean(in_path.iter().map(|r| r.rel_d()));
        let (gr, _) = geomean(in_path.iter().map(|r| r.rel_ratio()));
        let worst = in_path.iter().map(|r| r.worst()).fold(f64::INFINITY, f64::min);
        let ratio_ok = in_path.iter().all(|r| r.rel_ratio() >= BAR_RATIO);
        let ok = if p.starts_with("slices") {
            gd >= 1.0 && worst >= 0.8
        } else {
            (nc == 0 || gc >= 1.1) && gd >= 1.1
        } && ratio_ok;
        let c = if nc == 0 {
            "    -".to_string()
        } else {
            format!("{gc:>7.3}")
        };
        let _ = writeln!(
            w,
            "  {p:<38}{c} {gd:>7.3} {gr:>6.3} {nd:>7} {worst:>6.2}  {}",
            if ok { "PASS" } else { "FAIL" }
        );
    }
}

fn percentile(v: &[f64], p: f64) -> f64 {
    let mut s = v.to_vec();
    s.sort_by(f64::total_cmp);
    s[((s.len() - 1) as f64 * p).round() as usize]
}

fn breakdown_line<'a>(w: &mut String, name: &str, rows: impl Iterator<Item = &'a Row> + Clone) {
    let (gc, nc) = geomean(rows.clone().filter_map(|r| r.rel_c()));
    let (gd, nd) = geomean(rows.clone().map(|r| r.rel_d()));
    let (gr, _) = geomean(rows.clone().map(|r| r.rel_ratio()));
    if nd == 0 {
        return;
    }
    let c = if nc == 0 {
        "    -".to_string()
    } else {
        format!("{gc:>7.3}")
    };
    let _ = writeln!(w, "  {name:<24}{c} {gd:>7.3} {gr:>6.3} {nd:>7}");
}

/// Decompression of memcpyed and special chunks against memcpy bandwidth;
/// returns whether every such cell of ours reaches the bar.
fn memcpy_section(w: &mut String, rows: &[Row], dsets: &[Dataset], memcpy: &[f64]) -> bool {
    let _ = writeln!(w, "\nmemcpy bandwidth (MB/s, single thread, same buffers):");
    for (d, m) in dsets.iter().zip(memcpy) {
        let _ = writeln!(w, "  {:<12} {m:>8.0}", d.name);
    }
    let mut ok = true;
    let _ = writeln!(
        w,
        "decompression of memcpyed / special chunks vs memcpy (cells whose 4 MiB chunks all are):\n  {:<46} {:>8} {:>8} {:>8} {:>7} {:>7}",
        "cell", "ours", "ref", "memcpy", "ours/m", "ref/m"
    );
    for r in rows.iter().filter(|r| {
        matches!(r.m.kind, "memcpy" | "special") && matches!(r.cell.what, What::Chunked { chunk, .. } if chunk >= MIB)
    }) {
        let o = r.m.sides[0].dspeed;
        let f = r.m.sides.get(1).map(|s| s.dspeed);
        // The paired ratios where the cell timed its own memcpy, else the
        // ratio of the medians.
        let paired = |k: usize| r.m.memcpy_rel.as_ref().and_then(|v| v.get(k).copied());
        let rel = paired(0).unwrap_or(o / r.memcpy);
        let ref_rel = f.map(|f| paired(1).unwrap_or(f / r.memcpy));
        if rel < BAR_MEMCPY {
            ok = false;
        }
        let _ = writeln!(
            w,
            "  {:<46} {:>8.0} {:>8} {:>8.0} {:>7.2} {:>7}{}",
            r.cell.id,
            o,
            f.map_or("-".into(), |f| format!("{f:.0}")),
            r.memcpy,
            rel,
            ref_rel.map_or("-".into(), |x| format!("{x:.2}")),
            if rel < BAR_MEMCPY { " BELOW" } else { "" }
        );
    }
    ok
}
