//! `blosc2 info FILE...`: what a frame (contiguous file, sparse directory,
//! b2nd array) or a single chunk holds: header fields, metalayers and
//! vlmetalayers decoded from msgpack, the b2nd layout, and the chunk table.
//! `--json` prints the same as JSON with stable keys.

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::io::{Read, Write};
use std::path::Path;
use std::process::ExitCode;

use blosc2::engine::chunk::read_header;
use blosc2::engine::constants::EXTENDED_HEADER_LENGTH;
use blosc2::engine::frame::FrameKind;
use blosc2::engine::header::ChunkHeader;
use blosc2::engine::pipeline_choice;

use clap::{ArgMatches, Command};
use serde_json::{json, Value};

use crate::args::{self, failed, finish, Failure};
use crate::inspect::{self, Kind, Location};
use crate::msgpack::{self, hex};

/// The clap definition of `blosc2 info`.
pub fn command() -> Command {
    args::command(
        "info",
        "blosc2 info [--json] [--no-chunks] FILE...",
        "Show what a Blosc2 file holds: a contiguous frame (.b2frame, .b2nd), a sparse
frame directory, or a single chunk (.chunk, Blosc1 chunks).

For frames: the header fields, the metalayers and vlmetalayers (decoded from
msgpack when they are msgpack), the b2nd array layout when there is one, and
one line per chunk (offset, sizes, ratio, codec, filters, special value).",
    )
    .after_help("exit codes: 0 ok, 1 unreadable or corrupt input, 2 bad arguments or missing files")
    .args([
        args::flag(
            "json",
            None,
            "print JSON (one object per file; an array for several files)",
        ),
        args::flag("no-chunks", None, "leave out the chunk table"),
        args::positionals("FILE", "frames, sparse frame directories or chunks"),
    ])
}

/// Metalayer contents longer than this are shown truncated.
const HEX_MAX: usize = 4096;

/// Run `blosc2 info`.
pub fn main(m: &ArgMatches) -> ExitCode {
    finish(run(m))
}

fn run(m: &ArgMatches) -> Result<(), Failure> {
    let p = args::Parsed::new(m);
    if p.positional.is_empty() {
        return Err(args::usage("info needs a FILE (blosc2 info --help)"));
    }
    let json = p.flag("json");
    let with_chunks = !p.flag("no-chunks");
    let mut reports = Vec::new();
    // Every file is reported; the exit code is the worst seen (2 for
    // usage errors and missing files, 1 for unreadable input).
    let mut worst = 0u8;
    for path in &p.positional {
        match report(Path::new(path), with_chunks) {
            Ok(r) => reports.push(r),
            Err(f) => worst = worst.max(f.report()),
        }
    }
    let mut out = String::new();
    if json {
        let mut v: Vec<Value> = reports.iter_mut().map(|r| r.json.take()).collect();
        let doc = if p.positional.len() == 1 && v.len() == 1 {
            v.remove(0)
        } else {
            Value::Array(v)
        };
        out.push_str(&serde_json::to_string_pretty(&doc).map_err(|e| failed(format!("JSON: {e}")))?);
        out.push('\n');
    } else {
        for (k, r) in reports.iter().enumerate() {
            if k > 0 {
                out.push('\n');
            }
            out.push_str(&r.text);
        }
    }
    let mut so = std::io::stdout().lock();
    if let Err(e) = so.write_all(out.as_bytes()).and_then(|_| so.flush()) {
        if e.kind() != std::io::ErrorKind::BrokenPipe {
            return Err(failed(format!("writing to stdout: {e}")));
        }
    }
    if reports.iter().any(|r| r.broken) {
        eprintln!("blosc2: some chunks or metalayers could not be read (see above); `blosc2 verify` gives details");
        worst = worst.max(1);
    }
    match worst {
        0 => Ok(()),
        code => Err(Failure::Reported(code)),
    }
}

/// One file's report, as text and as JSON.
struct Report {
    text: String,
    json: Value,
    /// Something could not be read.
    broken: bool,
}

fn report(path: &Path, with_chunks: bool) -> Result<Report, Failure> {
    match inspect::detect(path)? {
        Kind::Frame { sparse } => frame_report(path, sparse, with_chunks),
        Kind::Chunk => chunk_report(path),
    }
}

fn ratio(nbytes: i64, cbytes: i64) -> Option<f64> {
    (cbytes > 0).then(|| nbytes as f64 / cbytes as f64)
}

fn ratio_text(r: Option<f64>) -> String {
    r.map_or_else(|| "-".into(), |r| format!("{r:.2}x"))
}

fn filters_json(f: &[u8]) -> Value {
    f.iter().map(|x| inspect::filter_name(*x)).collect()
}

/// JSON fields of a chunk header.
fn chunk_header_json(h: &ChunkHeader) -> Value {
    json!({
        "version": h.version,
        "versionlz": h.versionlz,
        "flags": h.flags,
        "header_len": h.header_len,
        "typesize": h.typesize,
        "nbytes": h.nbytes,
        "blocksize": h.blocksize,
        "cbytes": h.cbytes,
        "ratio": ratio(i64::from(h.nbytes), i64::from(h.cbytes)),
        "codec": inspect::codec_name(h.compcode),
        "codec_id": h.compcode,
        "codec_meta": h.compcode_meta,
        "filters": filters_json(&h.filters),
        "filters_ids": h.filters,
        "filters_meta": h.filters_meta,
        "special": inspect::header_special(h),
        "memcpyed": h.memcpyed(),
        "split": !h.dont_split(),
        "use_dict": h.use_dict(),
        "vl_blocks": h.vl_blocks(),
        "lazy": h.lazy(),
    })
}

fn chunk_report(path: &Path) -> Result<Report, Failure> {
    let mut f = std::fs::File::open(path).map_err(|e| args::missing(path, &e))?;
    let size = f
        .metadata()
        .map_err(|e| failed(format!("{}: {e}", path.display())))?
        .len();
    let mut head = Vec::with_capacity(EXTENDED_HEADER_LENGTH);
    (&mut f)
        .take(EXTENDED_HEADER_LENGTH as u64)
        .read_to_end(&mut head)
        .map_err(|e| failed(format!("reading {}: {e}", path.display())))?;
    let h = read_header(&head).map_err(|e| {
        failed(format!(
            "{}: neither a frame nor a chunk ({size} bytes; chunk header: {e})",
            path.display()
        ))
    })?;
    let trailing = size as i64 - i64::from(h.cbytes);
    let format = if h.is_extended() { "blosc2" } else { "blosc1" };
    let json = json!({
        "path": path.display().to_string(),
        "kind": "chunk",
        "format": format,
        "file_size": size,
        "trailing_bytes": trailing,
        "chunk": chunk_header_json(&h),
    });
    let mut t = String::new();
    let _ = writeln!(t, "{}: {format} chunk, {size} bytes", path.display());
    let _ = writeln!(
        t,
        "  version {}, versionlz {}, header {} bytes, flags 0x{:02x}",
        h.version, h.versionlz, h.header_len, h.flags
    );
    let _ = writeln!(
        t,
        "  nbytes {}  cbytes {}  ratio {}  blocksize {}  typesize {}",
        h.nbytes,
        h.cbytes,
        ratio_text(ratio(i64::from(h.nbytes), i64::from(h.cbytes))),
        h.blocksize,
        h.typesize
    );
    let _ = writeln!(
        t,
        "  codec {} (meta {})  filters {}",
        inspect::codec_name(h.compcode),
        h.compcode_meta,
        inspect::filters_text(&h.filters, &h.filters_meta)
    );
    let mut props = Vec::new();
    if let Some(s) = inspect::header_special(&h) {
        props.push(format!("special value: {s}"));
    }
    for (on, name) in [
        (h.memcpyed(), "memcpyed"),
        (h.dont_split(), "blocks not split"),
        (h.use_dict(), "dictionary"),
        (h.vl_blocks(), "variable-length blocks"),
        (h.lazy(), "lazy"),
    ] {
        if on {
            props.push(name.to_string());
        }
    }
    if !props.is_empty() {
        let _ = writeln!(t, "  {}", props.join(", "));
    }
    if trailing > 0 {
        let _ = writeln!(t, "  {trailing} bytes after the chunk");
    } else if trailing < 0 {
        let _ = writeln!(t, "  truncated: {} bytes missing", -trailing);
    }
    Ok(Report {
        text: t,
        json,
        broken: trailing < 0,
    })
}

/// A metalayer's content for display: msgpack value (JSON text) or hex.
fn content_json(content: &[u8]) -> Value {
    let decoded = msgpack::decode(content);
    let shown = &content[..content.len().min(HEX_MAX)];
    json!({
        "size": content.len(),
        "hex": hex(shown),
        "hex_truncated": content.len() > HEX_MAX,
        "msgpack": decoded.is_ok(),
        "value": decoded.map_or(Value::Null, |v| v.to_json()),
    })
}

fn content_text(content: &[u8]) -> String {
    const MAX: usize = 160;
    let s = match msgpack::decode(content) {
        Ok(v) => v.to_json().to_string(),
        Err(_) => format!("0x{}", hex(&content[..content.len().min(MAX / 2)])),
    };
    if s.len() > MAX {
        let mut cut = MAX;
        while !s.is_char_boundary(cut) {
            cut -= 1;
        }
        format!("{}...", &s[..cut])
    } else {
        s
    }
}

fn frame_report(path: &Path, sparse: bool, with_chunks: bool) -> Result<Report, Failure> {
    let mut frame = inspect::open_frame(path, sparse)?;
    let h = frame.header().clone();
    let nchunks = frame.nchunks();
    let mut broken = false;
    let file_size = match frame.kind() {
        FrameKind::File { path, .. } => std::fs::metadata(path).ok().map(|m| m.len()),
        _ => None,
    };
    let storage = if sparse { "sparse" } else { "contiguous" };

    let header_json = json!({
        "header_len": h.header_len,
        "frame_len": h.frame_len,
        "version": h.version(),
        "general_flags": h.general_flags,
        "frame_type": h.frame_type,
        "variable_chunks": h.general_flags & format_flags::VARIABLE != 0,
        "vl_blocks": h.general_flags & format_flags::VL_BLOCKS != 0,
        "codec": inspect::codec_name(h.compcode()),
        "codec_id": h.compcode(),
        "codec_meta": h.compcode_meta,
        "clevel": h.clevel(),
        "splitmode": inspect::splitmode_name(h.splitmode()),
        "use_dict": h.use_dict(),
        "typesize": h.typesize,
        "blocksize": h.blocksize,
        "chunksize": h.chunksize,
        "nthreads_comp": h.nthreads_c,
        "nthreads_decomp": h.nthreads_d,
        "has_vlmetalayers": h.has_vlmeta,
        "filters": filters_json(&h.filters),
        "filters_ids": h.filters.to_vec(),
        "filters_meta": h.filters_meta.to_vec(),
        "nbytes": h.nbytes,
        "cbytes": h.cbytes,
    });

    let metas_json: serde_json::Map<String, Value> = frame
        .metas()
        .iter()
        .map(|(name, content)| (name.clone(), content_json(content)))
        .collect();
    let mut vl_json = serde_json::Map::new();
    let mut vl_text = Vec::new();
    for (name, raw) in frame.vlmetas() {
        match inspect::vlmeta_content(raw) {
            Ok(c) => {
                let mut j = content_json(&c);
                j["csize"] = json!(raw.len());
                j["error"] = Value::Null;
                vl_json.insert(name.clone(), j);
                vl_text.push(format!(
                    "  {name} ({} bytes, {} stored): {}",
                    c.len(),
                    raw.len(),
                    content_text(&c)
                ));
            }
            Err(e) => {
                broken = true;
                vl_json.insert(name.clone(), json!({"size": null, "csize": raw.len(), "error": e}));
                vl_text.push(format!("  {name} ({} bytes stored): cannot be decoded: {e}", raw.len()));
            }
        }
    }
    let b2nd = inspect::b2nd_of(&frame);
    let b2nd_json = match &b2nd {
        Some((_, Ok(b))) => b.to_json(),
        _ => Value::Null,
    };

    let mut rows = Vec::new();
    let mut chunks_json = Vec::new();
    // How many chunks use each filter pipeline (`blosc2 compress` chooses
    // per chunk).
    let mut pipelines: BTreeMap<String, u64> = BTreeMap::new();
    if with_chunks {
        for n in 0..nchunks {
            let loc = inspect::location(&frame, n);
            let head = frame.chunk_head(n);
            let hdr = head
                .as_ref()
                .map_err(|e| e.to_string())
                .and_then(|b| read_header(b).map_err(|e| e.to_string()));
            let (offset, file, stored, special) = match &loc {
                Location::Offset(o) => (Some(*o), None, true, None),
                Location::File(f) => (None, Some(f.clone()), true, None),
                Location::Index(k) => (None, None, false, Some(inspect::kind_name(*k))),
                Location::Invalid => (None, None, false, None),
            };
            let mut j = json!({"index": n, "offset": offset, "file": file, "stored": stored});
            match &hdr {
                Ok(ch) => {
                    let special = special.or_else(|| inspect::header_special(ch));
                    let cbytes = if stored { i64::from(ch.cbytes) } else { 0 };
                    j["special"] = json!(special);
                    j["nbytes"] = json!(ch.nbytes);
                    j["cbytes"] = json!(cbytes);
                    j["ratio"] = json!(ratio(i64::from(ch.nbytes), cbytes));
                    // A special value kept in the offsets has no header of
                    // its own: no codec, filters or block layout.
                    let own = |v: Value| if stored { v } else { Value::Null };
                    j["codec"] = own(inspect::codec_name(ch.compcode).into());
                    j["codec_id"] = own(ch.compcode.into());
                    j["typesize"] = own(ch.typesize.into());
                    j["blocksize"] = own(ch.blocksize.into());
                    j["filters"] = own(filters_json(&ch.filters));
                    j["filters_meta"] = own(ch.filters_meta.to_vec().into());
                    j["memcpyed"] = own(ch.memcpyed().into());
                    j["use_dict"] = own(ch.use_dict().into());
                    j["vl_blocks"] = own(ch.vl_blocks().into());
                    j["error"] = Value::Null;
                    if stored && special.is_none() {
                        *pipelines
                            .entry(pipeline_choice::name(&ch.filters, i32::from(ch.typesize)))
                            .or_default() += 1;
                    }
                    rows.push(vec![
                        n.to_string(),
                        match (&offset, &file) {
                            (Some(o), _) => o.to_string(),
                            (_, Some(f)) => f.clone(),
                            _ => "-".into(),
                        },
                        ch.nbytes.to_string(),
                        cbytes.to_string(),
                        ratio_text(ratio(i64::from(ch.nbytes), cbytes)),
                        if stored {
                            inspect::codec_name(ch.compcode)
                        } else {
                            "-".into()
                        },
                        if stored {
                            inspect::filters_text(&ch.filters, &ch.filters_meta)
                        } else {
                            "-".into()
                        },
                        if stored { ch.typesize.to_string() } else { "-".into() },
                        match (special, stored) {
                            (Some(s), false) => format!("{s} (index)"),
                            (Some(s), true) => s.to_string(),
                            (None, _) => String::new(),
                        },
                    ]);
                }
                Err(e) => {
                    broken = true;
                    j["special"] = json!(special);
                    for key in [
                        "nbytes",
                        "cbytes",
                        "ratio",
                        "codec",
                        "codec_id",
                        "typesize",
                        "blocksize",
                        "filters",
                        "filters_meta",
                        "memcpyed",
                        "use_dict",
                        "vl_blocks",
                    ] {
                        j[key] = Value::Null;
                    }
                    j["error"] = json!(e.clone());
                    rows.push(vec![
                        n.to_string(),
                        offset.map_or_else(|| file.clone().unwrap_or_else(|| "-".into()), |o| o.to_string()),
                        format!("unreadable: {e}"),
                    ]);
                }
            }
            chunks_json.push(j);
        }
    }

    let json = json!({
        "path": path.display().to_string(),
        "kind": "frame",
        "storage": storage,
        "file_size": file_size,
        "header": header_json,
        "nchunks": nchunks,
        "nbytes": h.nbytes,
        "cbytes": h.cbytes,
        "ratio": ratio(h.nbytes, h.cbytes),
        "metalayers": metas_json,
        "vlmetalayers": vl_json,
        "b2nd": b2nd_json,
        "pipelines": with_chunks.then_some(&pipelines),
        "chunks": with_chunks.then_some(chunks_json),
    });

    let mut t = String::new();
    let what = match &b2nd {
        Some(_) => format!("{storage} frame, b2nd array"),
        None => format!("{storage} frame"),
    };
    let _ = writeln!(t, "{}: {what}", path.display());
    let _ = writeln!(
        t,
        "  frame     {} bytes (header {}), format version {}, flags 0x{:02x}{}",
        h.frame_len,
        h.header_len,
        h.version(),
        h.general_flags,
        if h.general_flags & format_flags::VARIABLE != 0 {
            ", variable chunk sizes"
        } else {
            ""
        }
    );
    let _ = writeln!(
        t,
        "  codec     {} (meta {}), clevel {}, splitmode {}{}",
        inspect::codec_name(h.compcode()),
        h.compcode_meta,
        h.clevel(),
        inspect::splitmode_name(h.splitmode()),
        if h.use_dict() { ", dictionary" } else { "" }
    );
    let _ = writeln!(t, "  filters   {}", inspect::filters_text(&h.filters, &h.filters_meta));
    let _ = writeln!(
        t,
        "  sizes     typesize {}, blocksize {}, chunksize {}",
        h.typesize, h.blocksize, h.chunksize
    );
    let _ = writeln!(
        t,
        "  data      {} chunks, nbytes {}, cbytes {}, ratio {}",
        nchunks,
        h.nbytes,
        h.cbytes,
        ratio_text(ratio(h.nbytes, h.cbytes))
    );
    let _ = writeln!(
        t,
        "  threads   {} compression, {} decompression",
        h.nthreads_c, h.nthreads_d
    );
    let _ = writeln!(t, "metalayers ({}):", frame.metas().len());
    for (name, content) in frame.metas() {
        let _ = writeln!(t, "  {name} ({} bytes): {}", content.len(), content_text(content));
    }
    match &b2nd {
        Some((name, Ok(b))) => {
            let _ = writeln!(
                t,
                "b2nd array ({name} metalayer version {}): shape {:?}, chunks {:?}, blocks {:?}, dtype {}",
                b.version,
                b.shape,
                b.chunkshape,
                b.blockshape,
                b.dtype.as_deref().unwrap_or("(none)")
            );
        }
        Some((name, Err(e))) => {
            broken = true;
            let _ = writeln!(t, "b2nd array: the {name} metalayer is invalid: {e}");
        }
        None => {}
    }
    let _ = writeln!(t, "vlmetalayers ({}):", frame.vlmetas().len());
    for l in vl_text {
        let _ = writeln!(t, "{l}");
    }
    if with_chunks {
        let _ = writeln!(t, "chunks ({nchunks}):");
        let head: Vec<String> = [
            "#",
            if sparse { "file" } else { "offset" },
            "nbytes",
            "cbytes",
            "ratio",
            "codec",
            "filters",
            "typesize",
            "special",
        ]
        .iter()
        .map(|s| s.to_string())
        .collect();
        t.push_str(&table(&head, &rows));
        if !pipelines.is_empty() {
            let mut v: Vec<(&String, &u64)> = pipelines.iter().collect();
            v.sort_by(|a, b| b.1.cmp(a.1).then(a.0.cmp(b.0)));
            let list: Vec<String> = v
                .iter()
                .map(|(name, n)| format!("{name} ({n} chunk{})", if **n == 1 { "" } else { "s" }))
                .collect();
            let _ = writeln!(t, "filter pipelines: {}", list.join(", "));
        }
    }
    Ok(Report { text: t, json, broken })
}

/// General-flag bits of the frame header.
mod format_flags {
    pub use blosc2::engine::frame::format::{FLAG_VARIABLE_CHUNKS as VARIABLE, FLAG_VL_BLOCKS as VL_BLOCKS};
}

/// Right-aligned numeric columns, left-aligned text columns; rows shorter
/// than the header (errors) run their last cell to the end of the line.
fn table(head: &[String], rows: &[Vec<String>]) -> String {
    let mut w: Vec<usize> = head.iter().map(|h| h.len()).collect();
    for r in rows {
        if r.len() == head.len() {
            for (k, c) in r.iter().enumerate() {
                w[k] = w[k].max(c.len());
            }
        }
    }
    let left = |k: usize| k >= 5 || (k == 1 && head[1] == "file");
    let line = |cells: &[String]| {
        let mut s = String::from(" ");
        for (k, c) in cells.iter().enumerate() {
            s.push(' ');
            if k + 1 == cells.len() && cells.len() < head.len() {
                s.push_str(c);
            } else if left(k) {
                let _ = write!(s, "{c:<width$}", width = w[k]);
            } else {
                let _ = write!(s, "{c:>width$}", width = w[k]);
            }
        }
        s.truncate(s.trim_end().len());
        s.push('\n');
        s
    };
    let mut out = line(head);
    for r in rows {
        out.push_str(&line(r));
    }
    out
}
