//! `blosc2 bench --memory`: peak resident memory of a 1 GiB super-chunk
//! round trip, ours next to the reference's.
//!
//! Peak memory is per process, so each side runs in a child process of
//! this tool (`blosc2 bench --memory-child ours|reference`): it generates
//! 256 chunks of 4 MiB one at a time, appends them to an in-memory
//! super-chunk (2 threads, LZ4, shuffle), reads every chunk back into one
//! 4 MiB buffer and checks it, and prints its VmHWM before the super-chunk
//! was made and at the end. The difference is what the library used
//! beyond the compressed data it holds. With `BLOSC2_BENCH_SMAPS_DIR` set,
//! each child also copies its `/proc/self/smaps` and `status` there at the
//! end (`ours.smaps`, `reference.smaps`, ...), to compare mapping by
//! mapping what each side keeps resident.

use std::process::Command;

use blosc2::engine::constants::{codec, filter};
use blosc2::engine::schunk::{SChunk, Storage};

use super::measure::our_params;
use super::reference::{self, RefLib, Settings};

const CHUNK: usize = 4 << 20;
const NCHUNKS: usize = 256;

fn settings() -> Settings {
    Settings {
        compcode: codec::LZ4,
        clevel: 5,
        typesize: 8,
        nthreads: 2,
        filters: [0, 0, 0, 0, 0, filter::SHUFFLE],
    }
}

/// Chunk `k` of the data: a float64 sine with a slow drift (compresses
/// about 1.3x with shuffle and LZ4, so the super-chunk holds ~800 MB).
fn fill_chunk(k: usize, out: &mut [u8]) {
    let per = out.len() / 8;
    for (i, item) in out.chunks_exact_mut(8).enumerate() {
        let x = (k * per + i) as f64;
        let v = (x * 1e-3).sin() * 100.0 + x * 1e-9;
        item.copy_from_slice(&v.to_le_bytes());
    }
}

/// Peak resident set (VmHWM) of this process, in KiB.
fn vm_hwm_kib() -> u64 {
    std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|s| {
            s.lines()
                .find(|l| l.starts_with("VmHWM:"))
                .and_then(|l| l.split_whitespace().nth(1).and_then(|v| v.parse().ok()))
        })
        .unwrap_or(0)
}

enum Side<'l> {
    Ours(Box<SChunk>),
    Ref(reference::RefSChunk<'l>),
}

/// The child: one side's round trip. Prints `hwm_before hwm_after cbytes`.
pub fn child(who: &str, reference_path: Option<&str>) -> Result<(), String> {
    let s = settings();
    let lib = if who == "reference" {
        Some(RefLib::load(&reference::locate(reference_path)?)?)
    } else {
        None
    };
    let mut src = vec![0u8; CHUNK];
    let mut out = vec![0u8; CHUNK];
    fill_chunk(0, &mut src);
    out.copy_from_slice(&src);
    let before = vm_hwm_kib();
    let mut sc = match &lib {
        Some(l) => Side::Ref(l.schunk(&s, false, None)?),
        None => {
            let (cparams, dparams) = our_params(&s);
            Side::Ours(Box::new(
                SChunk::new(Storage {
                    contiguous: false,
                    urlpath: None,
                    cparams,
                    dparams,
                    fs: None,
                })
                .map_err(|e| format!("our schunk: {e}"))?,
            ))
        }
    };
    for k in 0..NCHUNKS {
        fill_chunk(k, &mut src);
        match &mut sc {
            Side::Ours(o) => o.append_buffer(&src).map(|_| ()).map_err(|e| format!("append: {e}"))?,
            Side::Ref(r) => r.append_buffer(&src).map(|_| ())?,
        }
    }
    for k in 0..NCHUNKS {
        let got = match &mut sc {
            Side::Ours(o) => o
                .decompress_chunk(k as i64, &mut out)
                .map_err(|e| format!("decompress: {e}"))?,
            Side::Ref(r) => r.decompress_chunk(k as i64, &mut out)?,
        };
        fill_chunk(k, &mut src);
        if got != CHUNK || out != src {
            return Err(format!("{who}: chunk {k} read back wrong"));
        }
    }
    let cbytes = match &sc {
        Side::Ours(o) => o.cbytes(),
        Side::Ref(r) => r.sizes().1,
    };
    if let Some(dir) = std::env::var_os("BLOSC2_BENCH_SMAPS_DIR") {
        let _ = std::fs::copy(
            "/proc/self/smaps",
            std::path::Path::new(&dir).join(format!("{who}.smaps")),
        );
        let _ = std::fs::copy(
            "/proc/self/status",
            std::path::Path::new(&dir).join(format!("{who}.status")),
        );
    }
    println!("{before} {} {cbytes}", vm_hwm_kib());
    Ok(())
}

/// Run both children and print the comparison.
pub fn run(reference_path: Option<&str>) -> Result<(), String> {
    let exe = std::env::current_exe().map_err(|e| format!("current_exe: {e}"))?;
    println!(
        "peak memory of a {} MiB super-chunk round trip ({NCHUNKS} chunks of 4 MiB, LZ4, shuffle, 2 threads, in memory):",
        (NCHUNKS * CHUNK) >> 20
    );
    let mut deltas = Vec::new();
    for who in ["ours", "reference"] {
        let mut cmd = Command::new(&exe);
        cmd.args(["bench", "--memory-child", who]);
        if let Some(p) = reference_path {
            cmd.args(["--reference", p]);
        }
        let o = cmd.output().map_err(|e| format!("running {who}: {e}"))?;
        if !o.status.success() {
            return Err(format!("{who}: {}", String::from_utf8_lossy(&o.stderr).trim()));
        }
        let text = String::from_utf8_lossy(&o.stdout);
        let v: Vec<u64> = text.split_whitespace().filter_map(|x| x.parse().ok()).collect();
        let [before, after, cbytes] = v[..] else {
            return Err(format!("{who}: unexpected output {text:?}"));
        };
        let delta = after.saturating_sub(before);
        println!(
            "  {who:<9} peak {:>7.1} MiB, before the super-chunk {:>6.1} MiB, growth {:>7.1} MiB (compressed data {:>7.1} MiB, other {:>6.1} MiB)",
            after as f64 / 1024.0,
            before as f64 / 1024.0,
            delta as f64 / 1024.0,
            cbytes as f64 / 1048576.0,
            delta as f64 / 1024.0 - cbytes as f64 / 1048576.0
        );
        deltas.push(delta);
    }
    if let [ours, theirs] = deltas[..] {
        println!("  growth ours/reference: {:.3}", ours as f64 / theirs.max(1) as f64);
    }
    Ok(())
}
