//! `blosc2 demo`: every codec on built-in data, with ratio and speed.

use std::time::Instant;

use clap::{ArgMatches, Command};

use crate::args;

use blosc2::engine::codecs;
use blosc2::engine::constants::{codec, filter};
use blosc2::engine::context::Context;
use blosc2::engine::params::{CParams, DParams};

/// A named built-in data set.
struct Dataset {
    name: &'static str,
    typesize: i32,
    bytes: Vec<u8>,
}

/// Deterministic data sets that look like what Blosc is used for.
fn datasets(size: usize) -> Vec<Dataset> {
    let n8 = size / 8;
    let arange: Vec<u8> = (0..n8 as i64).flat_map(|i| i.to_le_bytes()).collect();
    let smooth: Vec<u8> = (0..n8)
        .flat_map(|i| {
            let x = i as f64 * 1e-4;
            (x.sin() * 1000.0 + (i % 13) as f64 * 1e-3).to_le_bytes()
        })
        .collect();
    let words = [
        "blosc", "chunk", "frame", "shuffle", "codec", "block", "data", "fast", "the", "of",
    ];
    let mut text = Vec::with_capacity(size);
    let mut state: u64 = 42;
    while text.len() < size {
        state = state
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        text.extend_from_slice(words[(state >> 60) as usize % words.len()].as_bytes());
        text.push(if state & 0x100 != 0 { b' ' } else { b'\n' });
    }
    text.truncate(size);
    vec![
        Dataset {
            name: "int64 arange",
            typesize: 8,
            bytes: arange,
        },
        Dataset {
            name: "float64 smooth",
            typesize: 8,
            bytes: smooth,
        },
        Dataset {
            name: "text",
            typesize: 1,
            bytes: text,
        },
    ]
}

/// The clap definition of `blosc2 demo`.
pub fn command() -> Command {
    args::command(
        "demo",
        "blosc2 demo [--size MIB] [--clevel N] [--nthreads N]",
        "Compress and decompress built-in data (int64 arange, smooth float64, text)
with every codec and print ratio and speed. The default command.",
    )
    .args([
        args::valued("size", None, "MIB", "mebibytes per data set (default 16)"),
        args::valued("clevel", None, "N", "compression level 0-9 (default 5)"),
        args::valued("nthreads", None, "N", "threads (default 1)"),
    ])
}

fn number(m: &ArgMatches, name: &str, default: usize) -> Result<usize, String> {
    match m.try_get_one::<String>(name) {
        Ok(Some(v)) => v.parse().map_err(|_| format!("--{name} needs a number")),
        _ => Ok(default),
    }
}

/// Run the demo with `--size MIB`, `--clevel N` and `--nthreads N`.
pub fn run(m: &ArgMatches) -> Result<(), String> {
    let size = number(m, "size", 16)?.saturating_mul(1024 * 1024);
    let clevel = number(m, "clevel", 5)?;
    let nthreads = number(m, "nthreads", 1)?;
    if clevel > 9 || nthreads == 0 || nthreads > i16::MAX as usize || size == 0 {
        return Err("--clevel must be 0-9, --nthreads and --size positive".into());
    }
    println!(
        "blosc2 {} demo: {} MiB per data set, clevel {clevel}, {nthreads} thread(s)",
        env!("CARGO_PKG_VERSION"),
        size >> 20
    );
    println!(
        "{:<16} {:<8} {:>8} {:>12} {:>12}",
        "data", "codec", "ratio", "comp MB/s", "decomp MB/s"
    );
    for ds in datasets(size) {
        for c in [codec::BLOSCLZ, codec::LZ4, codec::LZ4HC, codec::ZLIB, codec::ZSTD] {
            let cp = CParams {
                compcode: c,
                clevel: clevel as u8,
                typesize: ds.typesize,
                nthreads: nthreads as i16,
                filters: [0, 0, 0, 0, 0, filter::SHUFFLE],
                ..CParams::default()
            };
            let (ratio, cs, ds_speed) = measure(&cp, &ds.bytes)?;
            let name = codecs::compname(c).unwrap_or("?");
            println!(
                "{:<16} {:<8} {:>8.2} {:>12.0} {:>12.0}",
                ds.name, name, ratio, cs, ds_speed
            );
        }
    }
    Ok(())
}

/// Compress and decompress `src` in 4 MiB chunks; returns the ratio and
/// the compression and decompression speeds in MB/s. Fails if the data
/// does not come back identical.
fn measure(cp: &CParams, src: &[u8]) -> Result<(f64, f64, f64), String> {
    const CHUNK: usize = 4 * 1024 * 1024;
    let mut cctx = Context::compressor(cp.clone());
    let mut dctx = Context::decompressor(DParams {
        nthreads: cp.nthreads,
        ..DParams::default()
    });
    let mut chunks = Vec::new();
    let t0 = Instant::now();
    for piece in src.chunks(CHUNK) {
        let mut out = vec![0u8; piece.len() + 32];
        let n = cctx.compress(piece, &mut out).map_err(|e| e.to_string())?;
        out.truncate(n);
        chunks.push(out);
    }
    let ct = t0.elapsed().as_secs_f64();
    let mut back = vec![0u8; src.len()];
    let t1 = Instant::now();
    for (chunk, out) in chunks.iter().zip(back.chunks_mut(CHUNK)) {
        dctx.decompress(chunk, out).map_err(|e| e.to_string())?;
    }
    let dt = t1.elapsed().as_secs_f64();
    if back != src {
        return Err("round trip mismatch".into());
    }
    let cbytes: usize = chunks.iter().map(Vec::len).sum();
    let mb = src.len() as f64 / 1e6;
    Ok((src.len() as f64 / cbytes as f64, mb / ct.max(1e-9), mb / dt.max(1e-9)))
}
