//! `blosc2 recordio info|cat|pack`: grailbio recordio files.

use std::fmt::Write as _;
use std::fs::File;
use std::io::{BufReader, BufWriter, Read, Write};

use clap::{ArgMatches, Command};

use crate::args;
use blosc2::recordio::{self, Format, Scanner, ScannerOpts, Value, Writer, WriterOpts, KEY_TRAILER, KEY_TRANSFORMER};

/// The clap definition of `blosc2 recordio` and its subcommands.
pub fn command() -> Command {
    let recover = || args::flag("recover", None, "skip damaged blocks and report them (not in Go)");
    let legacy = || {
        args::valued(
            "legacy-transform",
            None,
            "SPEC",
            "transform of legacy packed records (default from the name: .grail-rpk-gz means flate)",
        )
    };
    let file = || args::positionals("FILE", "the recordio file");
    args::command(
        "recordio",
        "blosc2 recordio info|cat|pack ...",
        "Read and write grailbio recordio files.",
    )
    .subcommand_required(true)
    .arg_required_else_help(true)
    .disable_help_subcommand(true)
    .subcommands([
        args::command(
            "info",
            "blosc2 recordio info FILE [--recover] [--legacy-transform SPEC]",
            "Print the format, header, blocks, items and trailer of a file.",
        )
        .args([recover(), legacy(), file()]),
        args::command(
            "cat",
            "blosc2 recordio cat FILE [--json] [--recover] [--legacy-transform SPEC] [--shard I/N]",
            "Write every item to stdout, back to back; with --json print the header, each
item's location, length and sha256, and the trailer.",
        )
        .args([
            args::flag("json", None, "print JSON instead of the items"),
            recover(),
            legacy(),
            args::valued("shard", None, "I/N", "read shard I of N (v2 files)"),
            file(),
        ]),
        args::command(
            "pack",
            "blosc2 recordio pack -o OUT [-t SPEC]... [--header KEY[:TYPE]=VALUE]... [--trailer FILE]
                            [--max-items N] [--from FILE] [--lines] [INPUT...]",
            "Write a recordio file: one item per INPUT file ('-' is stdin), or one per line
with --lines, or the items, header and trailer of an existing recordio file
with --from (to change its transformers).",
        )
        .args([
            args::valued("output", Some('o'), "OUT", "the recordio file to write"),
            args::repeated(
                "transformer",
                Some('t'),
                "SPEC",
                "'flate [N]', 'zstd [N]', 'blosc2 [codec=zstd,clevel=5,filter=shuffle,\
                 typesize=1,nthreads=1,format=chunk]', in order",
            ),
            args::repeated(
                "header",
                None,
                "KEY[:TYPE]=V",
                "header entry; TYPE is string (default), int, uint or bool",
            ),
            args::valued("trailer", None, "FILE", "the trailer's bytes"),
            args::valued(
                "max-items",
                None,
                "N",
                "a block is flushed at N+1 items (Go's rule; default 16384)",
            ),
            args::valued("from", None, "FILE", "repack the items of this recordio file"),
            args::flag("lines", None, "one item per line of the inputs"),
            args::positionals("INPUT", "one item per file ('-' is stdin)"),
        ]),
    ])
}

/// Run `blosc2 recordio ...`.
pub fn run(m: &ArgMatches) -> Result<(), String> {
    match m.subcommand() {
        Some(("info", m)) => info(m),
        Some(("cat", m)) => cat(m),
        Some(("pack", m)) => pack(m),
        _ => Err("recordio needs info, cat or pack (blosc2 recordio --help)".into()),
    }
}

/// Options shared by `info` and `cat`.
struct ReadArgs {
    path: String,
    json: bool,
    opts: ScannerOpts,
    shard: (usize, usize, usize),
}

fn parse_read_args(m: &ArgMatches) -> Result<ReadArgs, String> {
    let p = args::Parsed::new(m);
    let json = p.flag("json");
    let recover = p.flag("recover");
    let legacy = p.value("legacy-transform").map(str::to_string);
    let mut shard = (0, 1, 1);
    if let Some(v) = p.value("shard") {
        let (i, n) = v.split_once('/').ok_or("--shard needs I/N")?;
        let i: usize = i.parse().map_err(|_| format!("bad shard {v}"))?;
        let n: usize = n.parse().map_err(|_| format!("bad shard {v}"))?;
        shard = (i, i + 1, n);
    }
    let path = match &p.positional[..] {
        [one] => one.clone(),
        [] => return Err("missing FILE (see --help)".into()),
        [_, extra, ..] => return Err(format!("unexpected argument {extra} (see --help)")),
    };
    let mut opts = ScannerOpts::for_path(&path);
    opts.recover = recover;
    if legacy.is_some() {
        opts.legacy_transform = legacy;
    }
    Ok(ReadArgs {
        path,
        json,
        opts,
        shard,
    })
}

fn open(a: &ReadArgs) -> Result<Scanner<BufReader<File>>, String> {
    let f = File::open(&a.path).map_err(|e| format!("{}: {e}", a.path))?;
    Scanner::with_shard(BufReader::new(f), a.opts.clone(), a.shard.0, a.shard.1, a.shard.2)
        .map_err(|e| format!("{}: {e}", a.path))
}

fn format_name(f: Format) -> &'static str {
    match f {
        Format::V2 => "v2",
        Format::Legacy => "legacy",
    }
}

fn value_text(v: &Value) -> String {
    match v {
        Value::Bool(b) => b.to_string(),
        Value::Int(i) => i.to_string(),
        Value::Uint(u) => u.to_string(),
        Value::String(s) => format!("{s:?}"),
    }
}

fn info(m: &ArgMatches) -> Result<(), String> {
    let a = parse_read_args(m)?;
    let mut s = open(&a)?;
    let size = std::fs::metadata(&a.path).map(|m| m.len()).unwrap_or(0);
    let mut out = String::new();
    let _ = writeln!(out, "file: {}", a.path);
    let _ = writeln!(out, "format: {}", format_name(s.format()));
    let _ = writeln!(out, "size: {size} bytes");
    if s.format() == Format::V2 {
        let _ = writeln!(out, "header: {} entries", s.header().len());
        for kv in &s.header().entries {
            let _ = writeln!(
                out,
                "  {} ({}) = {}",
                kv.key,
                kv.value.type_name(),
                value_text(&kv.value)
            );
        }
        let t = s.header().transformers().unwrap_or_default();
        let _ = writeln!(
            out,
            "transformers: {}",
            if t.is_empty() {
                "none".to_string()
            } else {
                t.join(" | ")
            }
        );
    }
    let (mut blocks, mut items, mut bytes, mut largest) = (0u64, 0u64, 0u64, 0usize);
    let mut last_block = None;
    let error = loop {
        match s.next_item() {
            Ok(Some(item)) => {
                items += 1;
                bytes += item.len() as u64;
                largest = largest.max(item.len());
                let b = s.last_location().map(|l| l.block);
                if b != last_block {
                    blocks += 1;
                    last_block = b;
                }
            }
            Ok(None) => break None,
            Err(e) => break Some(e),
        }
    };
    let _ = writeln!(out, "blocks: {blocks}");
    let _ = writeln!(out, "items: {items} ({bytes} bytes, largest {largest})");
    if error.is_none() {
        match s.trailer() {
            Ok(Some(t)) => {
                let _ = writeln!(out, "trailer: {} bytes", t.len());
            }
            Ok(None) => {
                let _ = writeln!(out, "trailer: none");
            }
            Err(e) => {
                let _ = writeln!(out, "trailer: unreadable: {e}");
            }
        }
    }
    for k in s.skipped() {
        let _ = writeln!(out, "skipped: {} bytes at offset {}: {}", k.length, k.offset, k.error);
    }
    print!("{out}");
    match error {
        Some(e) => Err(format!("{}: {e}", a.path)),
        None => Ok(()),
    }
}

fn cat(m: &ArgMatches) -> Result<(), String> {
    let a = parse_read_args(m)?;
    let mut s = open(&a)?;
    let stdout = std::io::stdout();
    let mut out = BufWriter::new(stdout.lock());
    let io = |e: std::io::Error| format!("writing stdout: {e}");
    if !a.json {
        let error = loop {
            match s.next_item() {
                Ok(Some(item)) => out.write_all(item).map_err(io)?,
                Ok(None) => break None,
                Err(e) => break Some(e),
            }
        };
        out.flush().map_err(io)?;
        for k in s.skipped() {
            eprintln!("blosc2: skipped {} bytes at offset {}: {}", k.length, k.offset, k.error);
        }
        return match error {
            Some(e) => Err(format!("{}: {e}", a.path)),
            None => Ok(()),
        };
    }
    let mut j = String::new();
    j.push_str("{\n");
    let _ = writeln!(j, "  \"file\": {},", json_str(&a.path));
    let _ = writeln!(j, "  \"format\": \"{}\",", format_name(s.format()));
    j.push_str("  \"header\": [");
    for (i, kv) in s.header().entries.iter().enumerate() {
        let v = match &kv.value {
            Value::Bool(b) => b.to_string(),
            Value::Int(x) => x.to_string(),
            Value::Uint(x) => x.to_string(),
            Value::String(x) => json_str(x),
        };
        let _ = write!(
            j,
            "{}\n    {{\"key\": {}, \"type\": \"{}\", \"value\": {v}}}",
            if i == 0 { "" } else { "," },
            json_str(&kv.key),
            kv.value.type_name()
        );
    }
    j.push_str(if s.header().is_empty() { "],\n" } else { "\n  ],\n" });
    j.push_str("  \"items\": [");
    out.write_all(j.as_bytes()).map_err(io)?;
    let mut n = 0u64;
    let error = loop {
        match s.next_item() {
            Ok(Some(item)) => {
                let (len, sha) = (item.len(), sha256::hex(item));
                let loc = s
                    .last_location()
                    .unwrap_or(recordio::ItemLocation { block: 0, item: 0 });
                let sep = if n == 0 { "" } else { "," };
                writeln!(out, "{sep}").map_err(io)?;
                write!(
                    out,
                    "    {{\"block\": {}, \"item\": {}, \"length\": {len}, \"sha256\": \"{sha}\"}}",
                    loc.block, loc.item
                )
                .map_err(io)?;
                n += 1;
            }
            Ok(None) => break None,
            Err(e) => break Some(e),
        }
    };
    let mut j = String::new();
    j.push_str(if n == 0 { "],\n" } else { "\n  ],\n" });
    let trailer = match &error {
        Some(_) => None,
        None => s.trailer().map_err(|e| format!("{}: trailer: {e}", a.path))?,
    };
    match trailer {
        None => j.push_str("  \"trailer\": null,\n"),
        Some(t) => {
            let hex = if t.len() <= 64 {
                format!(
                    ", \"hex\": \"{}\"",
                    t.iter().map(|b| format!("{b:02x}")).collect::<String>()
                )
            } else {
                String::new()
            };
            let _ = writeln!(
                j,
                "  \"trailer\": {{\"length\": {}, \"sha256\": \"{}\"{hex}}},",
                t.len(),
                sha256::hex(&t)
            );
        }
    }
    j.push_str("  \"skipped\": [");
    for (i, k) in s.skipped().iter().enumerate() {
        let _ = write!(
            j,
            "{}\n    {{\"offset\": {}, \"length\": {}, \"error\": {}}}",
            if i == 0 { "" } else { "," },
            k.offset,
            k.length,
            json_str(&k.error.to_string())
        );
    }
    j.push_str(if s.skipped().is_empty() { "],\n" } else { "\n  ],\n" });
    match &error {
        None => j.push_str("  \"error\": null\n"),
        Some(e) => {
            let off = e.offset().map_or("null".to_string(), |o| o.to_string());
            let _ = writeln!(
                j,
                "  \"error\": {{\"offset\": {off}, \"message\": {}}}",
                json_str(&e.to_string())
            );
        }
    }
    j.push_str("}\n");
    out.write_all(j.as_bytes()).map_err(io)?;
    out.flush().map_err(io)?;
    match error {
        Some(e) => Err(format!("{}: {e}", a.path)),
        None => Ok(()),
    }
}

/// `s` as a JSON string literal.
fn json_str(s: &str) -> String {
    serde_json::Value::from(s).to_string()
}

fn parse_header_arg(s: &str) -> Result<(String, Value), String> {
    let (k, v) = s
        .split_once('=')
        .ok_or_else(|| format!("--header wants KEY[:TYPE]=VALUE, got {s}"))?;
    let (key, ty) = k.rsplit_once(':').unwrap_or((k, "string"));
    let bad = || format!("--header {s}: not a {ty}");
    let value = match ty {
        "string" | "str" => Value::String(v.to_string()),
        "int" => Value::Int(v.parse().map_err(|_| bad())?),
        "uint" => Value::Uint(v.parse().map_err(|_| bad())?),
        "bool" => Value::Bool(v.parse().map_err(|_| bad())?),
        _ => return Err(format!("--header {s}: unknown type {ty}")),
    };
    Ok((key.to_string(), value))
}

fn read_input(path: &str) -> Result<Vec<u8>, String> {
    if path == "-" {
        let mut v = Vec::new();
        std::io::stdin()
            .read_to_end(&mut v)
            .map_err(|e| format!("stdin: {e}"))?;
        Ok(v)
    } else {
        std::fs::read(path).map_err(|e| format!("{path}: {e}"))
    }
}

fn pack(m: &ArgMatches) -> Result<(), String> {
    let p = args::Parsed::new(m);
    let out_path = p.value("output").map(str::to_string);
    let transformers = p.values("transformer");
    let headers = p
        .values("header")
        .iter()
        .map(|h| parse_header_arg(h))
        .collect::<Result<Vec<_>, _>>()?;
    let trailer_file = p.value("trailer").map(str::to_string);
    let max_items: u32 = match p.value("max-items") {
        Some(v) => v.parse().map_err(|_| "bad --max-items".to_string())?,
        None => 0,
    };
    let from = p.value("from").map(str::to_string);
    let lines = p.flag("lines");
    let inputs = p.positional.clone();
    let out_path = out_path.ok_or_else(|| "pack needs -o OUT (see --help)".to_string())?;
    if from.is_none() && inputs.is_empty() {
        return Err("pack needs INPUT files or --from FILE (see --help)".to_string());
    }
    // The source file, when repacking: its non-reserved header entries and
    // its trailer come along.
    let mut source = match &from {
        Some(p) => Some(recordio::open(p).map_err(|e| format!("{p}: {e}"))?),
        None => None,
    };
    let mut trailer = match &trailer_file {
        Some(p) => Some(read_input(p)?),
        None => None,
    };
    if let (Some(s), None) = (source.as_mut(), &trailer) {
        trailer = s
            .trailer()
            .map_err(|e| format!("{}: trailer: {e}", from.as_deref().unwrap_or("")))?;
    }
    let file = File::create(&out_path).map_err(|e| format!("{out_path}: {e}"))?;
    let opts = WriterOpts {
        transformers,
        key_trailer: trailer.is_some(),
        max_items,
        ..WriterOpts::default()
    };
    let mut w = Writer::new(BufWriter::new(file), opts).map_err(|e| e.to_string())?;
    let werr = |e: recordio::Error| format!("{out_path}: {e}");
    if let Some(s) = &source {
        for kv in &s.header().entries {
            if kv.key != KEY_TRAILER && kv.key != KEY_TRANSFORMER {
                w.add_header(&kv.key, kv.value.clone()).map_err(werr)?;
            }
        }
    }
    for (k, v) in headers {
        w.add_header(&k, v).map_err(werr)?;
    }
    let mut n = 0u64;
    if let Some(s) = source.as_mut() {
        while let Some(item) = s
            .next_item()
            .map_err(|e| format!("{}: {e}", from.as_deref().unwrap_or("")))?
        {
            w.append(item).map_err(werr)?;
            n += 1;
        }
    }
    for input in &inputs {
        let data = read_input(input)?;
        if lines {
            let mut parts: Vec<&[u8]> = data.split(|&b| b == b'\n').collect();
            if data.ends_with(b"\n") {
                parts.pop();
            }
            for line in parts {
                w.append(line).map_err(werr)?;
                n += 1;
            }
        } else {
            w.append(&data).map_err(werr)?;
            n += 1;
        }
    }
    if let Some(t) = &trailer {
        w.set_trailer(t).map_err(werr)?;
    }
    w.finish().map_err(werr)?;
    println!("{out_path}: {n} items, {} bytes", w.bytes_written());
    Ok(())
}

/// SHA-256 (FIPS 180-4), for `cat --json`.
mod sha256 {
    const K: [u32; 64] = [
        0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5, 0xd807aa98,
        0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174, 0xe49b69c1, 0xefbe4786,
        0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da, 0x983e5152, 0xa831c66d, 0xb00327c8,
        0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967, 0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13,
        0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85, 0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819,
        0xd6990624, 0xf40e3585, 0x106aa070, 0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a,
        0x5b9cca4f, 0x682e6ff3, 0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7,
        0xc67178f2,
    ];

    fn compress(h: &mut [u32; 8], block: &[u8]) {
        let mut w = [0u32; 64];
        for (i, c) in block.chunks_exact(4).enumerate() {
            w[i] = u32::from_be_bytes([c[0], c[1], c[2], c[3]]);
        }
        for i in 16..64 {
            let s0 = w[i - 15].rotate_right(7) ^ w[i - 15].rotate_right(18) ^ (w[i - 15] >> 3);
            let s1 = w[i - 2].rotate_right(17) ^ w[i - 2].rotate_right(19) ^ (w[i - 2] >> 10);
            w[i] = w[i - 16].wrapping_add(s0).wrapping_add(w[i - 7]).wrapping_add(s1);
        }
        let [mut a, mut b, mut c, mut d, mut e, mut f, mut g, mut hh] = *h;
        for i in 0..64 {
            let s1 = e.rotate_right(6) ^ e.rotate_right(11) ^ e.rotate_right(25);
            let ch = (e & f) ^ (!e & g);
            let t1 = hh
                .wrapping_add(s1)
                .wrapping_add(ch)
                .wrapping_add(K[i])
                .wrapping_add(w[i]);
            let s0 = a.rotate_right(2) ^ a.rotate_right(13) ^ a.rotate_right(22);
            let maj = (a & b) ^ (a & c) ^ (b & c);
            let t2 = s0.wrapping_add(maj);
            hh = g;
            g = f;
            f = e;
            e = d.wrapping_add(t1);
            d = c;
            c = b;
            b = a;
            a = t1.wrapping_add(t2);
        }
        for (x, y) in h.iter_mut().zip([a, b, c, d, e, f, g, hh]) {
            *x = x.wrapping_add(y);
        }
    }

    /// The digest of `data`.
    pub fn digest(data: &[u8]) -> [u8; 32] {
        let mut h: [u32; 8] = [
            0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a, 0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19,
        ];
        let mut blocks = data.chunks_exact(64);
        for b in &mut blocks {
            compress(&mut h, b);
        }
        let rest = blocks.remainder();
        let mut tail = [0u8; 128];
        tail[..rest.len()].copy_from_slice(rest);
        tail[rest.len()] = 0x80;
        let n = if rest.len() < 56 { 64 } else { 128 };
        tail[n - 8..n].copy_from_slice(&((data.len() as u64) * 8).to_be_bytes());
        for b in tail[..n].chunks_exact(64) {
            compress(&mut h, b);
        }
        let mut out = [0u8; 32];
        for (o, x) in out.chunks_exact_mut(4).zip(h) {
            o.copy_from_slice(&x.to_be_bytes());
        }
        out
    }

    /// The digest of `data` in lowercase hex.
    pub fn hex(data: &[u8]) -> String {
        digest(data).iter().map(|b| format!("{b:02x}")).collect()
    }

    #[cfg(test)]
    mod tests {
        #[test]
        fn known_digests() {
            assert_eq!(
                super::hex(b""),
                "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"
            );
            assert_eq!(
                super::hex(b"abc"),
                "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
            );
            assert_eq!(
                super::hex(b"abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq"),
                "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1"
            );
            let million = vec![b'a'; 1_000_000];
            assert_eq!(
                super::hex(&million),
                "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0"
            );
        }
    }
}
