//! `blosc2 verify FILE...`: decode everything a frame or chunk holds and
//! report the first problem with where it is (chunk index, byte offset in
//! the file when known). Exit code 1 on any problem.

use std::path::Path;
use std::process::ExitCode;

use clap::{ArgMatches, Command};

use crate::args::{self, failed, finish, Failure};
use crate::checksum::{self, Checker};
use crate::inspect::{self, Decoder, Kind};
use crate::progress::{Progress, Unit};

/// The clap definition of `blosc2 verify`.
pub fn command() -> Command {
    args::command(
        "verify",
        "blosc2 verify [-q] [--nthreads N] FILE...",
        "Decode every chunk, metalayer and vlmetalayer of a frame (.b2frame, .b2nd,
sparse frame directory) or a single chunk, and check that the sizes agree
with the header (and, for b2nd arrays, with the array layout). Prints one OK
line per good file; on the first problem prints what and where (chunk index,
byte offset in the file) and exits with code 1.",
    )
    .after_help("exit codes: 0 all good, 1 a problem was found, 2 bad arguments or missing files")
    .args([
        args::flag("quiet", Some('q'), "print nothing for good files, no progress bar"),
        args::valued(
            "nthreads",
            Some('n'),
            "N",
            "decompression threads (default: available cores, at most 4)",
        ),
        args::positionals("FILE", "frames, sparse frame directories or chunks"),
    ])
}

/// Run `blosc2 verify`.
pub fn main(m: &ArgMatches) -> ExitCode {
    finish(run(m))
}

fn run(m: &ArgMatches) -> Result<(), Failure> {
    let p = args::Parsed::new(m);
    if p.positional.is_empty() {
        return Err(args::usage("verify needs a FILE (blosc2 verify --help)"));
    }
    let quiet = p.flag("quiet");
    let nthreads = p.number("nthreads", inspect::default_nthreads(), 1, 256)?;
    let mut worst = 0u8;
    for path in &p.positional {
        match verify(Path::new(path), nthreads, quiet) {
            Ok(summary) => {
                if !quiet {
                    println!("{path}: OK, {summary}");
                }
            }
            Err(f) => worst = worst.max(f.report()),
        }
    }
    match worst {
        0 => Ok(()),
        code => Err(Failure::Reported(code)),
    }
}

/// Verify one path; the summary of what was checked, or the problem.
pub fn verify(path: &Path, nthreads: i16, quiet: bool) -> Result<String, Failure> {
    match inspect::detect(path)? {
        Kind::Frame { sparse } => verify_frame(path, sparse, nthreads, quiet),
        Kind::Chunk => verify_chunk(path, nthreads),
    }
}

fn verify_chunk(path: &Path, nthreads: i16) -> Result<String, Failure> {
    let bytes = inspect::read_chunk_file(path)?;
    let mut dec = Decoder::new(nthreads);
    let h = dec
        .chunk(&bytes)
        .map_err(|e| failed(format!("{}: chunk at byte 0: {e}", path.display())))?;
    let trailing = bytes.len() - h.cbytes as usize;
    let mut s = format!(
        "{} chunk, {} bytes decoded from {}",
        if h.is_extended() { "blosc2" } else { "blosc1" },
        h.nbytes,
        h.cbytes
    );
    if trailing > 0 {
        s.push_str(&format!(" ({trailing} bytes after the chunk are not part of it)"));
    }
    Ok(s)
}

fn verify_frame(path: &Path, sparse: bool, nthreads: i16, quiet: bool) -> Result<String, Failure> {
    let p = path.display();
    let mut frame = inspect::open_frame(path, sparse)?;
    let h = frame.header().clone();
    let nchunks = frame.nchunks();

    // In file order: metalayers (header), chunks, vlmetalayers (trailer).
    let b2nd = inspect::b2nd_of(&frame);
    if let Some((name, parsed)) = &b2nd {
        let b = parsed
            .as_ref()
            .map_err(|e| failed(format!("{p}: metalayer '{name}' is not a valid b2nd layout: {e}")))?;
        inspect::check_b2nd_layout(b, &h, nchunks)
            .map_err(|e| failed(format!("{p}: metalayer '{name}' does not match the frame: {e}")))?;
    }

    let checker = Checker::for_frame(&frame).map_err(|e| failed(format!("{p}: {e}")))?;
    if let Some(c) = &checker {
        if c.len() as i64 != nchunks {
            return Err(failed(format!(
                "{p}: the {} vlmetalayer has {} checksums for {nchunks} chunks (chunks were added or removed)",
                checksum::VLMETA,
                c.len()
            )));
        }
    }
    let mut dec = Decoder::new(nthreads);
    let mut progress = Progress::new("verify", Unit::Chunks, Some(nchunks as u64), quiet);
    let mut total: i64 = 0;
    for n in 0..nchunks {
        let ch = dec
            .frame_chunk(&mut frame, n)
            .map_err(|e| failed(format!("{p}: {}: {e}", inspect::chunk_where(&frame, n))))?;
        if h.chunksize > 0 {
            let last = n + 1 == nchunks;
            let bad = if last {
                ch.nbytes > h.chunksize
            } else {
                ch.nbytes != h.chunksize
            };
            if bad {
                return Err(failed(format!(
                    "{p}: {}: holds {} bytes, but the frame's chunksize (byte 58) is {}",
                    inspect::chunk_where(&frame, n),
                    ch.nbytes,
                    h.chunksize
                )));
            }
        }
        if let Some(c) = &checker {
            c.check(n, &dec.buf)
                .map_err(|e| failed(format!("{p}: {}: {e}", inspect::chunk_where(&frame, n))))?;
        }
        total += i64::from(ch.nbytes);
        progress.add(1);
    }
    progress.finish();
    if total != h.nbytes {
        return Err(failed(format!(
            "{p}: the chunks hold {total} bytes, but the frame's nbytes (byte 30) is {}",
            h.nbytes
        )));
    }

    for (name, raw) in frame.vlmetas() {
        inspect::vlmeta_content(raw).map_err(|e| failed(format!("{p}: vlmetalayer '{name}' does not decode: {e}")))?;
    }

    let mut s = format!(
        "{} frame{}, {nchunks} chunk{}, {total} bytes decoded{}",
        if sparse { "sparse" } else { "contiguous" },
        if b2nd.is_some() { " (b2nd array)" } else { "" },
        if nchunks == 1 { "" } else { "s" },
        if checker.is_some() { ", checksums match" } else { "" },
    );
    s.push_str(&format!(
        ", {} metalayer{}, {} vlmetalayer{}",
        frame.metas().len(),
        if frame.metas().len() == 1 { "" } else { "s" },
        frame.vlmetas().len(),
        if frame.vlmetas().len() == 1 { "" } else { "s" },
    ));
    Ok(s)
}
