//! `blosc2 compress IN OUT` and `blosc2 decompress IN OUT`: streaming
//! conversion between plain bytes and a contiguous frame on disk. Only a
//! few chunks are ever in memory: compress reads one chunk of input at a
//! time and appends it to the frame file; decompress writes one chunk at
//! a time. `-` is stdin or stdout.

use std::fs::File;
use std::io::{Read, Write};
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use blosc2::engine::constants::{filter, splitmode, MAX_BLOCKSIZE, MAX_BUFFERSIZE, MAX_FILTERS};
use blosc2::engine::params::CParams;
use blosc2::engine::pipeline_choice::Pipeline;
use blosc2::engine::plugins;
use blosc2::engine::schunk::{SChunk, Storage};

use clap::{ArgMatches, Command};

use crate::args::{self, failed, finish, usage, Failure, Parsed};
use crate::checksum::{self, Checker};
use crate::encoder::{self, Encoder, FilterArg};
use crate::inspect::{self, Decoder, Kind};
use crate::plugin_args::{self, ZfpGeometry};
use crate::progress::{Progress, Unit};

/// The clap definition of `blosc2 compress`.
pub fn compress_command() -> Command {
    args::command(
        "compress",
        "blosc2 compress [options] IN OUT",
        "Compress IN (a file, or - for stdin) into the contiguous frame OUT (a
.b2frame file, or - for stdout), one chunk at a time: memory use stays at a
few chunks whatever the input size.",
    )
    .after_help("exit codes: 0 ok, 1 the operation failed, 2 bad arguments or missing files")
    .args([
        args::valued("codec", None, "NAME", plugin_args::CODEC_HELP),
        args::valued("clevel", Some('l'), "N", "compression level 0-9 (default 5)"),
        args::valued(
            "filter",
            None,
            "LIST",
            "auto (the default) chooses per chunk: the pipeline that compresses a \
             128 KiB sample of the chunk smallest at the chosen codec and level, out of \
             none and shuffle, bitshuffle, delta,shuffle and shuffle,bytedelta at type \
             sizes 1-8 (14 candidates, all lossless; the sample costs at most 1.75 MiB \
             of extra compression per chunk, see `blosc2 info` for the choices); or none, \
             shuffle, bitshuffle, delta, bytedelta, the lossy int_trunc:N (keep N bits of \
             each integer item, or zero -N; needs --typesize), or a comma-separated \
             pipeline such as delta,shuffle or int_trunc:12,shuffle",
        ),
        args::valued(
            "typesize",
            Some('t'),
            "N",
            "item size in bytes for the filters, 1-255, or auto (the default: chosen \
             per chunk with the filters, 1, 2, 4 or 8)",
        ),
        args::valued(
            "chunksize",
            Some('c'),
            "N",
            "bytes per chunk, with an optional K, M or G suffix (default 4M)",
        ),
        args::valued("blocksize", None, "N", "bytes per block (default 0: automatic)"),
        args::valued(
            "nthreads",
            Some('n'),
            "N",
            "compression threads (default: available cores, at most 4)",
        ),
        args::flag(
            "no-checksum",
            None,
            "do not store the XXH3-64 checksum of each chunk's data (vlmetalayer \
             chunk_checksums, checked by verify and decompress)",
        ),
        args::flag("force", Some('f'), "overwrite OUT if it exists"),
        args::flag("quiet", Some('q'), "no progress bar and no summary on stderr"),
        args::positionals("IN OUT", "input file (- for stdin), then output frame (- for stdout)"),
    ])
}

/// The clap definition of `blosc2 decompress`.
pub fn decompress_command() -> Command {
    args::command(
        "decompress",
        "blosc2 decompress [options] IN OUT",
        "Decompress the frame IN (a .b2frame or .b2nd file, a sparse frame directory,
a single chunk, or - for a frame on stdin) into OUT (a file, or - for
stdout), one chunk at a time. For b2nd arrays the output is the stored
chunks (padded to the chunk shape), not the C-order array.",
    )
    .after_help("exit codes: 0 ok, 1 corrupt input or the operation failed, 2 bad arguments or missing files")
    .args([
        args::valued(
            "nthreads",
            Some('n'),
            "N",
            "decompression threads (default: available cores, at most 4)",
        ),
        args::flag("force", Some('f'), "overwrite OUT if it exists"),
        args::flag("quiet", Some('q'), "no progress bar and no notes on stderr"),
        args::positionals(
            "IN OUT",
            "input frame or chunk (- for stdin), then output file (- for stdout)",
        ),
    ])
}

/// Default chunk size.
const DEFAULT_CHUNKSIZE: u64 = 4 << 20;

/// Run `blosc2 compress`.
pub fn compress_main(m: &ArgMatches) -> ExitCode {
    finish(compress(m))
}

/// Run `blosc2 decompress`.
pub fn decompress_main(m: &ArgMatches) -> ExitCode {
    finish(decompress(m))
}

/// A file removed when dropped, unless kept.
struct TempFile {
    path: PathBuf,
    keep: bool,
    /// Made next to the output file, under whose name it ends up.
    near_out: bool,
}

impl TempFile {
    /// A fresh name next to `near` (same file system, for the final
    /// rename), or in the temporary directory.
    fn new(near: Option<&Path>, tag: &str) -> TempFile {
        let dir = match near.and_then(Path::parent) {
            Some(d) if !d.as_os_str().is_empty() => d.to_path_buf(),
            Some(_) => PathBuf::from("."),
            None => std::env::temp_dir(),
        };
        let base = near
            .and_then(Path::file_name)
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_else(|| "blosc2".into());
        let path = dir.join(format!(".{base}.{tag}-{}.tmp", std::process::id()));
        let _ = std::fs::remove_file(&path);
        TempFile {
            path,
            keep: false,
            near_out: near.is_some(),
        }
    }
}

impl TempFile {
    /// What to call this file in messages: the user's output path when
    /// it stands in for it, else the directory it is in (never the
    /// temporary name, which means nothing to the user).
    fn what(&self, out: &str) -> String {
        if out != "-" && self.near_out {
            format!("'{out}'")
        } else {
            let dir = self.path.parent().unwrap_or(Path::new("."));
            format!("a temporary file in '{}'", dir.display())
        }
    }
}

impl Drop for TempFile {
    fn drop(&mut self) {
        if !self.keep {
            let _ = std::fs::remove_file(&self.path);
        }
    }
}

/// Where the output goes.
enum Sink {
    /// Standard output.
    Stdout,
    /// A file written under a temporary name and renamed into place.
    Replace(PathBuf),
    /// An existing special file (a device, a pipe) written directly.
    Direct(PathBuf),
}

fn sink(out: &str, force: bool) -> Result<Sink, Failure> {
    if out == "-" {
        return Ok(Sink::Stdout);
    }
    let path = PathBuf::from(out);
    match std::fs::metadata(&path) {
        Err(_) => Ok(Sink::Replace(path)),
        Ok(m) if m.is_dir() => Err(usage(format!("'{out}' is a directory"))),
        Ok(m) if m.is_file() => {
            if force {
                Ok(Sink::Replace(path))
            } else {
                Err(usage(format!("'{out}' exists; use --force to overwrite it")))
            }
        }
        Ok(_) => Ok(Sink::Direct(path)),
    }
}

/// Standard output as a file (unbuffered; we write whole chunks).
fn stdout_writer() -> Result<Box<dyn Write>, Failure> {
    #[cfg(unix)]
    {
        use std::os::fd::AsFd;
        let fd = std::io::stdout()
            .as_fd()
            .try_clone_to_owned()
            .map_err(|e| failed(format!("stdout: {e}")))?;
        Ok(Box::new(File::from(fd)))
    }
    #[cfg(not(unix))]
    {
        Ok(Box::new(std::io::stdout()))
    }
}

/// Fill `buf` from `r` as far as the input goes; returns the bytes read.
fn read_full(r: &mut dyn Read, buf: &mut [u8]) -> std::io::Result<usize> {
    let mut n = 0;
    while n < buf.len() {
        match r.read(&mut buf[n..]) {
            Ok(0) => break,
            Ok(k) => n += k,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
    Ok(n)
}

/// The filter pipeline from `auto`, `none`, `shuffle`, `delta,shuffle`,
/// `int_trunc:10,shuffle`...
fn parse_filters(s: &str) -> Result<FilterArg, Failure> {
    if s.trim() == "auto" {
        return Ok(FilterArg::Auto);
    }
    let (filters, metas) = plugin_args::parse_filter_list(s)?;
    Ok(FilterArg::Fixed(filters, metas))
}

/// What `compress` writes: the compression parameters, the candidate
/// pipelines, the chunk size and, for ZFP, the 1-D geometry its frame
/// describes in a `b2nd` metalayer.
struct Plan {
    cparams: CParams,
    candidates: Vec<Pipeline>,
    chunksize: usize,
    zfp: Option<ZfpGeometry>,
}

/// The codec, level, block size and threads of `compress`, with the
/// candidate pipelines.
fn plan(p: &Parsed) -> Result<Plan, Failure> {
    let codec = plugin_args::parse_codec(p.value("codec").unwrap_or("zstd"))?;
    let typesize = match p.value("typesize") {
        None | Some("auto") => None,
        Some(_) => Some(p.number("typesize", 8i32, 1, 255)?),
    };
    let mut chunksize = p.size("chunksize", DEFAULT_CHUNKSIZE, 1, MAX_BUFFERSIZE as u64)? as usize;
    let mut blocksize = p.size("blocksize", 0, 0, MAX_BLOCKSIZE as u64)? as usize;
    let filter_arg = p.value("filter").unwrap_or("auto");
    let filters = parse_filters(filter_arg)?;
    if let FilterArg::Fixed(f, _) = &filters {
        if f.contains(&plugins::ids::FILTER_INT_TRUNC) && typesize.is_none() {
            // The bits INT_TRUNC keeps are bits of an item: the item size
            // cannot be left to a ratio contest (the most truncating would win).
            return Err(usage(
                "--filter int_trunc:N needs the item size: give --typesize 1, 2, 4 or 8",
            ));
        }
    }
    let zfp = if codec.zfp {
        if !matches!(filter_arg.trim(), "auto" | "none" | "nofilter") {
            return Err(usage(format!(
                "--codec zfp-*: ZFP compresses the floats themselves; use --filter none, not '{filter_arg}'"
            )));
        }
        let g = ZfpGeometry::new(typesize, chunksize, blocksize)?;
        chunksize = g.chunksize;
        blocksize = g.chunksize;
        Some(g)
    } else {
        None
    };
    let filters = if zfp.is_some() {
        FilterArg::Fixed([filter::NOFILTER; MAX_FILTERS], [0; MAX_FILTERS])
    } else {
        filters
    };
    let candidates = encoder::candidates(&filters, typesize);
    let cparams = CParams {
        compcode: codec.compcode,
        compcode_meta: codec.meta,
        clevel: p.number("clevel", 5u8, 0, 9)?,
        typesize: typesize.unwrap_or(candidates[0].typesize),
        nthreads: p.number("nthreads", inspect::default_nthreads(), 1, 256)?,
        blocksize: blocksize as i32,
        // ZFP codes whole blocks of the b2nd geometry: never split them.
        splitmode: if zfp.is_some() {
            splitmode::NEVER
        } else {
            CParams::default().splitmode
        },
        filters: candidates[0].filters,
        filters_meta: candidates[0].filters_meta,
        ..CParams::default()
    };
    Ok(Plan {
        cparams,
        candidates,
        chunksize,
        zfp,
    })
}

/// With `BLOSC2_REPORT_VMHWM` set, print the peak resident memory (for the
/// tests that check memory stays bounded).
fn report_peak_memory() {
    if std::env::var_os("BLOSC2_REPORT_VMHWM").is_none() {
        return;
    }
    if let Ok(s) = std::fs::read_to_string("/proc/self/status") {
        if let Some(l) = s.lines().find(|l| l.starts_with("VmHWM:")) {
            eprintln!("{l}");
        }
    }
}

fn compress(m: &ArgMatches) -> Result<(), Failure> {
    let p = Parsed::new(m);
    p.expect_positional(&["IN", "OUT"])
        .map_err(|f| usage(format!("{}\nusage: blosc2 compress [options] IN OUT", msg(f))))?;
    let Plan {
        cparams: mut cp,
        candidates,
        chunksize,
        mut zfp,
    } = plan(&p)?;
    let quiet = p.flag("quiet");
    let (inp, out) = (&p.positional[0], &p.positional[1]);

    let (mut input, total): (Box<dyn Read>, Option<u64>) = if inp == "-" {
        (Box::new(std::io::stdin().lock()), None)
    } else {
        let path = Path::new(inp);
        let f = File::open(path).map_err(|e| args::missing(path, &e))?;
        let md = f.metadata().map_err(|e| failed(format!("{inp}: {e}")))?;
        if md.is_dir() {
            return Err(usage(format!("'{inp}' is a directory")));
        }
        (Box::new(f), md.is_file().then_some(md.len()))
    };
    let zfp_item = zfp.map(|g| g.typesize as u64);
    let whole_items = |n: u64| match zfp_item {
        Some(item) if !n.is_multiple_of(item) => Err(usage(format!(
            "--codec zfp-*: {n} bytes are not a whole number of {item}-byte items"
        ))),
        _ => Ok(()),
    };
    if let Some(n) = total {
        whole_items(n)?;
    }
    // The first chunk is read before the frame is made: when it is all the
    // input, ZFP's geometry shrinks to it (a block shorter than the block
    // shape would be stored uncompressed).
    let mut buf = vec![0u8; chunksize];
    let mut pending = Some(read_full(&mut input, &mut buf).map_err(|e| failed(format!("reading {inp}: {e}")))?);
    if let (Some(g), Some(n)) = (&mut zfp, pending) {
        if n < g.chunksize && n.is_multiple_of(g.typesize as usize) && n >= 4 * g.typesize as usize {
            g.chunksize = n;
            cp.blocksize = n as i32;
        }
    }
    let sink = sink(out, p.flag("force"))?;
    let tmp = match &sink {
        Sink::Replace(path) => TempFile::new(Some(path), "compress"),
        Sink::Stdout | Sink::Direct(_) => TempFile::new(None, "compress"),
    };
    let tmp_str = tmp
        .path
        .to_str()
        .ok_or_else(|| usage(format!("'{out}': the output path must be valid UTF-8")))?
        .to_string();

    let storage = Storage {
        contiguous: true,
        urlpath: Some(tmp_str.clone()),
        cparams: cp.clone(),
        ..Storage::default()
    };
    // The frame is written under a temporary name next to OUT (renamed at
    // the end); create it here first so that a failure says why in the
    // OS's words, about the user's path rather than the temporary one.
    // (The engine then makes the file anew: it refuses an existing one.)
    File::create(&tmp.path).map_err(|e| failed(format!("cannot write {}: {e}", tmp.what(out))))?;
    let _ = std::fs::remove_file(&tmp.path);
    let mut s = SChunk::new(storage).map_err(|e| failed(format!("cannot write {}: {e}", tmp.what(out))))?;
    if let Some(g) = &zfp {
        s.meta_add("b2nd", &g.b2nd_meta(total.unwrap_or(0)))
            .map_err(|e| failed(format!("writing the b2nd metalayer to {}: {e}", tmp.what(out))))?;
    }
    // The encoder compresses on its own context: give it the super-chunk
    // as plugins see it (the b2nd geometry ZFP reads).
    let mut encoder = Encoder::new(
        CParams {
            plugins: s.plugin_env().clone(),
            ..cp
        },
        candidates,
        !p.flag("no-checksum"),
    );
    let mut progress = Progress::new("compress", Unit::Bytes, total, quiet);
    let mut nbytes: u64 = 0;
    let mut stored: i64 = 0;
    loop {
        let n = match pending.take() {
            Some(n) => n,
            None => read_full(&mut input, &mut buf).map_err(|e| failed(format!("reading {inp}: {e}")))?,
        };
        if n == 0 {
            break;
        }
        let nchunk = s.nchunks();
        let c = encoder
            .encode(&buf[..n])
            .map_err(|e| failed(format!("compressing chunk {nchunk}: {e}")))?;
        stored += c.len() as i64;
        s.append_chunk(c)
            .map_err(|e| failed(format!("writing chunk {nchunk} to {}: {e}", tmp.what(out))))?;
        nbytes += n as u64;
        progress.add(n as u64);
        if n < chunksize {
            break;
        }
    }
    progress.finish();
    if let Some(g) = &zfp {
        whole_items(nbytes)?;
        if total != Some(nbytes) {
            s.meta_update("b2nd", &g.b2nd_meta(nbytes))
                .map_err(|e| failed(format!("updating the b2nd metalayer of {}: {e}", tmp.what(out))))?;
        }
    }
    if let Some(sums) = &encoder.checksums {
        s.vlmeta_add(checksum::VLMETA, &checksum::encode(sums), None)
            .map_err(|e| failed(format!("writing the checksums to {}: {e}", tmp.what(out))))?;
    }
    // Each append leaves the previous offsets chunk and trailer behind as
    // dead bytes (the file is always consistent); drop them if they add
    // up to more than 1% of the data.
    let dead = s.cbytes() - stored;
    if dead > stored / 100 {
        s.compact()
            .map_err(|e| failed(format!("compacting {}: {e}", tmp.what(out))))?;
    }
    let (nchunks, frame_len) = (s.nchunks(), s.frame_len());
    drop(s);

    match &sink {
        Sink::Replace(path) => {
            std::fs::rename(&tmp.path, path).map_err(|e| failed(format!("renaming the frame to '{out}': {e}")))?;
        }
        Sink::Stdout | Sink::Direct(_) => {
            let mut w: Box<dyn Write> = match &sink {
                Sink::Direct(path) => Box::new(
                    std::fs::OpenOptions::new()
                        .write(true)
                        .open(path)
                        .map_err(|e| failed(format!("opening '{out}': {e}")))?,
                ),
                _ => stdout_writer()?,
            };
            let mut r = File::open(&tmp.path).map_err(|e| failed(format!("reading the frame back: {e}")))?;
            std::io::copy(&mut r, &mut w)
                .and_then(|_| w.flush())
                .map_err(|e| failed(format!("writing {}: {e}", if out == "-" { "stdout" } else { out })))?;
        }
    }
    if !quiet {
        let ratio = if nbytes > 0 && frame_len > 0 {
            format!(", ratio {:.2}x", nbytes as f64 / frame_len as f64)
        } else {
            String::new()
        };
        eprintln!(
            "blosc2: compressed {} ({nbytes} bytes) into {} ({frame_len} bytes, {nchunks} chunk{}{ratio})",
            if inp == "-" { "stdin" } else { inp },
            if out == "-" { "stdout" } else { out },
            if nchunks == 1 { "" } else { "s" }
        );
        if nchunks > 0 {
            eprintln!("blosc2: filters: {}", encoder.summary());
        }
    }
    report_peak_memory();
    Ok(())
}

fn msg(f: Failure) -> String {
    match f {
        Failure::Usage(m) | Failure::Failed(m) => m,
        Failure::Reported(_) => String::new(),
    }
}

fn decompress(m: &ArgMatches) -> Result<(), Failure> {
    let p = Parsed::new(m);
    p.expect_positional(&["IN", "OUT"])
        .map_err(|f| usage(format!("{}\nusage: blosc2 decompress [options] IN OUT", msg(f))))?;
    let quiet = p.flag("quiet");
    let nthreads = p.number("nthreads", inspect::default_nthreads(), 1, 256)?;
    let (inp, out) = (&p.positional[0], &p.positional[1]);

    // A frame on stdin is spooled to a temporary file first, so that it is
    // read chunk by chunk like any other.
    let spool = if inp == "-" {
        let t = TempFile::new(None, "stdin");
        let mut f =
            File::create(&t.path).map_err(|e| failed(format!("cannot spool stdin into {}: {e}", t.what("-"))))?;
        std::io::copy(&mut std::io::stdin().lock(), &mut f).map_err(|e| failed(format!("reading stdin: {e}")))?;
        Some(t)
    } else {
        None
    };
    let in_path = spool.as_ref().map_or_else(|| PathBuf::from(inp), |t| t.path.clone());
    let in_name = if inp == "-" { "stdin" } else { inp.as_str() };
    let kind = inspect::detect(&in_path)?;
    let sink = sink(out, p.flag("force"))?;
    let tmp = match &sink {
        Sink::Replace(path) => Some(TempFile::new(Some(path), "decompress")),
        _ => None,
    };
    let mut w: Box<dyn Write> = match (&sink, &tmp) {
        (Sink::Stdout, _) => stdout_writer()?,
        (Sink::Direct(path), _) => Box::new(
            std::fs::OpenOptions::new()
                .write(true)
                .open(path)
                .map_err(|e| failed(format!("opening '{out}': {e}")))?,
        ),
        (Sink::Replace(_), Some(t)) => {
            Box::new(File::create(&t.path).map_err(|e| failed(format!("cannot write '{out}': {e}")))?)
        }
        (Sink::Replace(_), None) => return Err(failed("no temporary file")),
    };
    let out_name = if out == "-" { "stdout" } else { out.as_str() };
    let write_err = |e: std::io::Error| failed(format!("writing {out_name}: {e}"));
    let mut dec = Decoder::new(nthreads);
    match kind {
        Kind::Frame { sparse } => {
            let mut frame = inspect::open_frame(&in_path, sparse).map_err(|f| match f {
                Failure::Failed(m) if inp == "-" => failed(m.replacen(&in_path.display().to_string(), "stdin", 1)),
                f => f,
            })?;
            if !quiet {
                if let Some((name, _)) = inspect::b2nd_of(&frame) {
                    eprintln!(
                        "blosc2: note: {in_name} is a b2nd array ({name} metalayer); writing its stored chunks, not the C-order array"
                    );
                }
            }
            let checker = Checker::for_frame(&frame).map_err(|e| failed(format!("{in_name}: {e}")))?;
            let total = frame.header().nbytes.max(0) as u64;
            let mut progress = Progress::new("decompress", Unit::Bytes, Some(total), quiet);
            for n in 0..frame.nchunks() {
                dec.frame_chunk(&mut frame, n)
                    .map_err(|e| failed(format!("{in_name}: {}: {e}", inspect::chunk_where(&frame, n))))?;
                if let Some(c) = &checker {
                    c.check(n, &dec.buf)
                        .map_err(|e| failed(format!("{in_name}: {}: {e}", inspect::chunk_where(&frame, n))))?;
                }
                w.write_all(&dec.buf).map_err(write_err)?;
                progress.add(dec.buf.len() as u64);
            }
            progress.finish();
        }
        Kind::Chunk => {
            let bytes = inspect::read_chunk_file(&in_path).map_err(|f| match f {
                Failure::Failed(m) if inp == "-" => failed(m.replacen(&in_path.display().to_string(), "stdin", 1)),
                f => f,
            })?;
            dec.chunk(&bytes)
                .map_err(|e| failed(format!("{in_name}: chunk at byte 0: {e}")))?;
            w.write_all(&dec.buf).map_err(write_err)?;
        }
    }
    w.flush().map_err(write_err)?;
    drop(w);
    if let (Sink::Replace(path), Some(t)) = (&sink, &tmp) {
        std::fs::rename(&t.path, path).map_err(|e| failed(format!("renaming the output to '{out}': {e}")))?;
    }
    report_peak_memory();
    Ok(())
}
