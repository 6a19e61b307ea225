//! The `blosc2` tool's file commands, run as a separate process:
//! `compress` / `decompress` round trips (files and pipes), `info` and
//! `info --json` on our frames and on the conformance corpus, `verify` on
//! good and malformed files, exit codes and messages for bad arguments,
//! missing files and corrupt input, and bounded memory on a 64 MiB input.

mod frames_common;

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

use frames_common::{corpus, entries, unhex};
use serde_json::Value;

/// The shell example of README.md ("Use from the shell"), run by
/// `readme_shell_example` with `data.bin` a few MiB of numbers.
const README_EXAMPLE: &str = r#"
blosc2 compress --codec zstd --clevel 5 --filter shuffle --typesize 8 data.bin data.b2frame
blosc2 info data.b2frame
blosc2 info --json data.b2frame > data.json
blosc2 verify data.b2frame
blosc2 decompress data.b2frame data.out
cmp data.bin data.out
"#;

fn bin() -> &'static str {
    env!("CARGO_BIN_EXE_blosc2")
}

fn run(args: &[&str]) -> Output {
    Command::new(bin()).args(args).output().expect("run blosc2")
}

fn run_in(dir: &Path, args: &[&str]) -> Output {
    Command::new(bin())
        .current_dir(dir)
        .args(args)
        .output()
        .expect("run blosc2")
}

fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

/// Exit code, with stdout and stderr in the panic message when it is not
/// the one expected.
fn expect_code(o: &Output, code: i32, what: &str) {
    assert_eq!(
        o.status.code(),
        Some(code),
        "{what}: exit code\nstdout: {}\nstderr: {}",
        text(&o.stdout),
        text(&o.stderr)
    );
}

fn scratch(name: &str) -> PathBuf {
    let d = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("cli").join(name);
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).expect("scratch dir");
    d
}

/// `n` bytes that compress a bit but not trivially: a slow ramp of int64
/// with pseudo-random low bits, and a run of text.
fn data(n: usize, seed: u64) -> Vec<u8> {
    let mut s = seed;
    let mut out = Vec::with_capacity(n + 8);
    let mut i: i64 = 0;
    while out.len() < n {
        s = s.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
        if (i / 4096) % 5 == 4 {
            out.extend_from_slice(b"blosc2 frame chunk ");
        } else {
            out.extend_from_slice(&(i * 17 + (s >> 58) as i64).to_le_bytes());
        }
        i += 1;
    }
    out.truncate(n);
    out
}

fn info_json(path: &Path) -> Value {
    let o = run(&["info", "--json", path.to_str().unwrap()]);
    expect_code(&o, 0, &format!("info --json {}", path.display()));
    serde_json::from_slice(&o.stdout)
        .unwrap_or_else(|e| panic!("info --json {}: {e}\n{}", path.display(), text(&o.stdout)))
}

fn path_str(p: &Path) -> &str {
    p.to_str().unwrap()
}

#[test]
fn round_trip_every_codec() {
    let dir = scratch("round_trip");
    let input = dir.join("in.bin");
    let bytes = data(3 * 1024 * 1024 + 12345, 7);
    std::fs::write(&input, &bytes).unwrap();
    for codec in ["blosclz", "lz4", "lz4hc", "zlib", "zstd"] {
        let frame = dir.join(format!("{codec}.b2frame"));
        let back = dir.join(format!("{codec}.out"));
        let o = run(&[
            "compress",
            "--codec",
            codec,
            "--chunksize",
            "1M",
            path_str(&input),
            path_str(&frame),
        ]);
        expect_code(&o, 0, codec);
        assert!(text(&o.stderr).contains("4 chunks"), "{codec}: {}", text(&o.stderr));
        let o = run(&["decompress", path_str(&frame), path_str(&back)]);
        expect_code(&o, 0, codec);
        assert!(std::fs::read(&back).unwrap() == bytes, "{codec}: round trip differs");
        let j = info_json(&frame);
        assert_eq!(j["kind"], "frame");
        assert_eq!(j["storage"], "contiguous");
        assert_eq!(j["header"]["codec"], codec);
        assert_eq!(j["header"]["clevel"], 5);
        // The filters and type size are chosen per chunk (each chunk's
        // header has its own); the frame's header says none, type size 1.
        assert_eq!(j["header"]["typesize"], 1);
        assert_eq!(j["header"]["chunksize"], 1 << 20);
        assert_eq!(j["header"]["filters_ids"], serde_json::json!([0, 0, 0, 0, 0, 0]));
        assert_eq!(j["nchunks"], 4);
        assert_eq!(j["nbytes"], bytes.len());
        let chunks = j["chunks"].as_array().unwrap();
        assert_eq!(chunks.len(), 4);
        assert_eq!(chunks[3]["nbytes"], bytes.len() - 3 * (1 << 20));
        for c in chunks {
            assert_eq!(c["codec"], codec);
            assert!(c["offset"].as_u64().unwrap() >= j["header"]["header_len"].as_u64().unwrap());
        }
        let o = run(&["verify", path_str(&frame)]);
        expect_code(&o, 0, codec);
        assert!(
            text(&o.stdout).contains("OK, contiguous frame, 4 chunks"),
            "{}",
            text(&o.stdout)
        );
    }
}

#[test]
fn options_are_recorded_in_the_frame() {
    let dir = scratch("options");
    let input = dir.join("in.bin");
    let bytes = data(500_000, 3);
    std::fs::write(&input, &bytes).unwrap();
    let frame = dir.join("f.b2frame");
    let o = run(&[
        "compress",
        "--codec=lz4hc",
        "-l",
        "9",
        "--filter",
        "delta,bitshuffle",
        "-t",
        "4",
        "-c",
        "100000",
        "--blocksize",
        "16K",
        "-n",
        "2",
        "-q",
        path_str(&input),
        path_str(&frame),
    ]);
    expect_code(&o, 0, "compress");
    assert!(o.stderr.is_empty(), "--quiet: {}", text(&o.stderr));
    let j = info_json(&frame);
    let h = &j["header"];
    assert_eq!(h["codec"], "lz4hc");
    assert_eq!(h["clevel"], 9);
    assert_eq!(h["typesize"], 4);
    assert_eq!(h["blocksize"], 16384);
    assert_eq!(h["chunksize"], 100000);
    assert_eq!(h["filters_ids"], serde_json::json!([0, 0, 0, 0, 3, 2]));
    assert_eq!(h["filters"][4], "delta");
    assert_eq!(j["nchunks"], 5);
    for c in j["chunks"].as_array().unwrap() {
        assert_eq!(c["blocksize"], 16384);
        assert_eq!(c["typesize"], 4);
    }
    let back = dir.join("back");
    expect_code(
        &run(&["decompress", "-q", path_str(&frame), path_str(&back)]),
        0,
        "decompress",
    );
    assert!(std::fs::read(&back).unwrap() == bytes);
    // An existing output needs --force.
    let o = run(&["compress", path_str(&input), path_str(&frame)]);
    expect_code(&o, 2, "existing output");
    assert!(text(&o.stderr).contains("--force"), "{}", text(&o.stderr));
    expect_code(
        &run(&["compress", "-f", "--filter", "none", path_str(&input), path_str(&frame)]),
        0,
        "--force",
    );
    assert_eq!(
        info_json(&frame)["header"]["filters_ids"],
        serde_json::json!([0, 0, 0, 0, 0, 0])
    );
    // Empty input: a frame without chunks.
    let empty = dir.join("empty");
    std::fs::write(&empty, b"").unwrap();
    let ef = dir.join("empty.b2frame");
    expect_code(&run(&["compress", path_str(&empty), path_str(&ef)]), 0, "empty");
    assert_eq!(info_json(&ef)["nchunks"], 0);
    expect_code(&run(&["verify", path_str(&ef)]), 0, "verify empty");
    let eb = dir.join("empty.out");
    expect_code(
        &run(&["decompress", path_str(&ef), path_str(&eb)]),
        0,
        "decompress empty",
    );
    assert_eq!(std::fs::read(&eb).unwrap().len(), 0);
    // No temporary files are left behind.
    for e in std::fs::read_dir(&dir).unwrap() {
        let name = e.unwrap().file_name().into_string().unwrap();
        assert!(!name.ends_with(".tmp"), "left behind: {name}");
    }
}

#[test]
fn round_trip_through_pipes() {
    let bytes = data(2_500_000, 11);
    let mut c = Command::new(bin())
        .args(["compress", "-q", "--codec", "zstd", "-c", "256K", "-", "-"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdin = c.stdin.take().unwrap();
    let feed = bytes.clone();
    let writer = std::thread::spawn(move || stdin.write_all(&feed));
    let o = c.wait_with_output().unwrap();
    writer.join().unwrap().unwrap();
    expect_code(&o, 0, "compress - -");
    let frame = o.stdout;
    assert_eq!(&frame[..10], b"\x9e\xa8b2frame\0");
    let mut d = Command::new(bin())
        .args(["decompress", "-", "-"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdin = d.stdin.take().unwrap();
    let writer = std::thread::spawn(move || stdin.write_all(&frame));
    let o = d.wait_with_output().unwrap();
    writer.join().unwrap().unwrap();
    expect_code(&o, 0, "decompress - -");
    assert!(o.stdout == bytes, "pipe round trip differs");
}

/// The manifest entries of the given kinds.
fn corpus_entries(kinds: &[&str]) -> Vec<Value> {
    entries()
        .into_iter()
        .filter(|e| kinds.contains(&e["kind"].as_str().unwrap_or("")))
        .collect()
}

#[test]
fn info_json_on_corpus_frames() {
    let mut seen = 0;
    for e in corpus_entries(&["cframe", "sframe-dir", "b2nd"]) {
        let id = e["id"].as_str().unwrap();
        let path = corpus().join(e["file"].as_str().unwrap());
        let j = info_json(&path);
        assert_eq!(j["kind"], "frame", "{id}");
        assert_eq!(
            j["storage"],
            if path.is_dir() { "sparse" } else { "contiguous" },
            "{id}"
        );
        assert_eq!(j["nchunks"], e["nchunks"], "{id}: nchunks");
        if let Some(fh) = e.get("frame_header") {
            let h = &j["header"];
            for (mine, theirs) in [
                ("header_len", "header_len"),
                ("frame_len", "frame_len"),
                ("typesize", "typesize"),
                ("blocksize", "blocksize"),
                ("chunksize", "chunksize"),
                ("clevel", "clevel"),
                ("codec_id", "codec"),
                ("nbytes", "uncompressed_size"),
                ("cbytes", "compressed_size"),
                ("filters_ids", "filters"),
                ("filters_meta", "filters_meta"),
                ("has_vlmetalayers", "has_vlmetalayers"),
                ("version", "frame_format_version"),
                ("variable_chunks", "variable_chunks"),
            ] {
                assert_eq!(h[mine], fh[theirs], "{id}: header {mine}");
            }
        }
        // Chunk sizes.
        let chunks = j["chunks"].as_array().unwrap();
        for (k, c) in chunks.iter().enumerate() {
            assert_eq!(c["index"], k, "{id}");
            assert_eq!(c["nbytes"], e["chunks"][k]["nbytes"], "{id}: chunk {k} nbytes");
            assert!(c["error"].is_null(), "{id}: chunk {k}: {}", c["error"]);
        }
        // Metalayers and vlmetalayers, raw and decoded.
        for (key, want) in [("metalayers", &e["metalayers"]), ("vlmetalayers", &e["vlmetalayers"])] {
            let got = j[key].as_object().unwrap();
            let want = want.as_object().cloned().unwrap_or_default();
            assert_eq!(
                got.keys().collect::<Vec<_>>(),
                want.keys().collect::<Vec<_>>(),
                "{id}: {key} names"
            );
            for (name, w) in &want {
                let g = &got[name];
                let hex = w["content_hex"].as_str().unwrap();
                assert_eq!(g["hex"], hex, "{id}: {key} {name}");
                assert_eq!(g["size"], unhex(hex).len(), "{id}: {key} {name} size");
                if !w["value"].is_null() && name != "b2nd" {
                    assert_eq!(g["msgpack"], true, "{id}: {key} {name}");
                    assert_eq!(g["value"], w["value"], "{id}: {key} {name} value");
                }
            }
        }
        if e["kind"] == "b2nd" {
            let b = &j["b2nd"];
            assert_eq!(b["shape"], e["shape"], "{id}: b2nd shape");
            assert_eq!(b["chunkshape"], e["chunkshape"], "{id}: b2nd chunkshape");
            assert_eq!(b["blockshape"], e["blockshape"], "{id}: b2nd blockshape");
            // The dtype as stored (the manifest's `dtype` is NumPy's
            // normalised spelling).
            assert_eq!(b["dtype"], e["metalayers"]["b2nd"]["value"][6], "{id}: b2nd dtype");
            assert_eq!(b["ndim"], e["shape"].as_array().unwrap().len(), "{id}: ndim");
            // The decoded metalayer value is the manifest's too.
            assert_eq!(
                j["metalayers"]["b2nd"]["value"], e["metalayers"]["b2nd"]["value"],
                "{id}"
            );
        } else {
            assert!(j["b2nd"].is_null(), "{id}");
        }
        seen += 1;
    }
    assert_eq!(seen, 38);
}

#[test]
fn info_b2nd_shape_matches_manifest() {
    let e = corpus_entries(&["b2nd"])
        .into_iter()
        .find(|e| e["file"] == "b2nd/a02_2d_float64.b2nd")
        .expect("a02 in the manifest");
    let path = corpus().join("b2nd/a02_2d_float64.b2nd");
    let j = info_json(&path);
    assert_eq!(j["b2nd"]["shape"], e["shape"]);
    assert_eq!(j["b2nd"]["shape"], serde_json::json!([37, 23]));
    // The human form says the same.
    let o = run(&["info", path_str(&path)]);
    expect_code(&o, 0, "info");
    let t = text(&o.stdout);
    assert!(t.contains("b2nd array"), "{t}");
    assert!(
        t.contains("shape [37, 23], chunks [10, 8], blocks [5, 4], dtype <f8"),
        "{t}"
    );
    assert!(t.contains("chunks (12):"), "{t}");
    assert_eq!(t.lines().filter(|l| l.contains(" zstd  shuffle")).count(), 12, "{t}");
}

#[test]
fn info_on_corpus_chunks() {
    for e in corpus_entries(&["chunk", "blosc1-chunk"]) {
        let id = e["id"].as_str().unwrap();
        let path = corpus().join(e["file"].as_str().unwrap());
        let j = info_json(&path);
        assert_eq!(j["kind"], "chunk", "{id}");
        let h = &e["header"];
        let c = &j["chunk"];
        for k in [
            "version",
            "versionlz",
            "flags",
            "typesize",
            "nbytes",
            "blocksize",
            "cbytes",
        ] {
            assert_eq!(c[k], h[k], "{id}: {k}");
        }
        assert_eq!(
            j["format"],
            if e["kind"] == "chunk" { "blosc2" } else { "blosc1" },
            "{id}"
        );
        assert_eq!(j["trailing_bytes"], 0, "{id}");
        if e["kind"] == "chunk" {
            assert_eq!(c["filters_ids"], h["filters"], "{id}: filters");
            let special = h["special_name"].as_str();
            assert_eq!(c["special"].as_str(), special, "{id}: special");
            assert_eq!(c["vl_blocks"], h["vl_blocks"], "{id}");
            // Memcpyed chunks keep the BloscLZ format bits whatever the
            // codec asked for.
            if special.is_none() && h["memcpyed"] == false {
                assert_eq!(c["codec"], e["params"]["codec"], "{id}: codec");
            }
        } else {
            // A Blosc1 header names the codec library only: LZ4HC is LZ4.
            let cname = e["params"]["cname"].as_str().unwrap().replace("lz4hc", "lz4");
            assert_eq!(c["codec"], cname.as_str(), "{id}: codec");
        }
    }
    // The human form of one chunk.
    let o = run(&["info", path_str(&corpus().join("chunks/0184_vlblocks_zstd_cl5.chunk"))]);
    expect_code(&o, 0, "info chunk");
    let t = text(&o.stdout);
    assert!(
        t.contains("blosc2 chunk") && t.contains("codec zstd") && t.contains("variable-length blocks"),
        "{t}"
    );
}

#[test]
fn info_several_files_and_no_chunks() {
    let a = corpus().join("frames/f03_memory_meta_vlmeta.b2frame");
    let b = corpus().join("chunks/0001_blosclz_none_ts1_cl0.chunk");
    let o = run(&["info", "--json", "--no-chunks", path_str(&a), path_str(&b)]);
    expect_code(&o, 0, "info two files");
    let v: Value = serde_json::from_slice(&o.stdout).unwrap();
    let v = v.as_array().expect("an array for several files");
    assert_eq!(v.len(), 2);
    assert!(v[0]["chunks"].is_null());
    assert_eq!(v[0]["vlmetalayers"]["info"]["value"]["producer"], "make_corpus");
    assert_eq!(v[1]["kind"], "chunk");
    let o = run(&["info", path_str(&a)]);
    let t = text(&o.stdout);
    assert!(
        t.contains(r#"info (25 bytes, 57 stored): {"producer":"make_corpus","n":3}"#),
        "{t}"
    );
    assert!(t.contains("label (12 bytes): \"conformance\""), "{t}");
}

#[test]
fn verify_accepts_every_good_corpus_file() {
    let good: Vec<String> = entries()
        .iter()
        .filter(|e| e["expected"] == "ok")
        .map(|e| corpus().join(e["file"].as_str().unwrap()).display().to_string())
        .collect();
    assert_eq!(good.len(), 257);
    let mut args = vec!["verify"];
    args.extend(good.iter().map(String::as_str));
    let o = run(&args);
    expect_code(&o, 0, "verify good corpus");
    assert_eq!(
        text(&o.stdout).lines().filter(|l| l.contains(": OK, ")).count(),
        good.len()
    );
    // -q prints nothing.
    let o = run(&["verify", "-q", &good[0]]);
    expect_code(&o, 0, "verify -q");
    assert!(o.stdout.is_empty());
}

#[test]
fn verify_rejects_every_malformed_entry() {
    let mut n = 0;
    for e in corpus_entries(&["malformed"]) {
        let id = e["id"].as_str().unwrap();
        assert!(
            matches!(e["decode_procedure"].as_str(), Some("chunk" | "frame" | "b2nd")),
            "{id}"
        );
        let path = corpus().join(e["file"].as_str().unwrap());
        let o = run(&["verify", path_str(&path)]);
        expect_code(&o, 1, &format!("{id} ({})", e["description"]));
        let msg = text(&o.stderr);
        assert!(
            msg.starts_with("blosc2: ") && msg.contains(path_str(&path)),
            "{id}: message {msg}"
        );
        assert!(o.stdout.is_empty(), "{id}: no OK line");
        // info and decompress fail the same way on corrupt frames, never
        // with a usage error or a crash.
        let o = run(&["info", path_str(&path)]);
        assert!(matches!(o.status.code(), Some(0 | 1)), "{id}: info exit {:?}", o.status);
        let out = scratch(&format!("malformed_{id}")).join("out");
        let o = run(&["decompress", "-q", path_str(&path), path_str(&out)]);
        if e["decode_procedure"] != "b2nd" {
            expect_code(&o, 1, &format!("decompress {id}"));
            assert!(!out.exists(), "{id}: no partial output");
        }
        n += 1;
    }
    assert_eq!(n, 50);
}

#[test]
fn verify_says_which_chunk_and_where() {
    let dir = scratch("where");
    let input = dir.join("in.bin");
    std::fs::write(&input, data(400_000, 5)).unwrap();
    let frame = dir.join("f.b2frame");
    expect_code(
        &run(&["compress", "-q", "-c", "100000", path_str(&input), path_str(&frame)]),
        0,
        "compress",
    );
    let j = info_json(&frame);
    let off = j["chunks"][2]["offset"].as_u64().unwrap() as usize;
    let mut bytes = std::fs::read(&frame).unwrap();
    // Chunk 2's blocksize field (byte 8 of its header) becomes 0.
    bytes[off + 8..off + 12].copy_from_slice(&[0, 0, 0, 0]);
    let bad = dir.join("bad.b2frame");
    std::fs::write(&bad, &bytes).unwrap();
    let o = run(&["verify", path_str(&bad)]);
    expect_code(&o, 1, "verify corrupt chunk");
    let msg = text(&o.stderr);
    assert!(msg.contains(&format!("chunk 2 at byte {off}")), "{msg}");
    // info still shows the table, marks the chunk and exits with 1.
    let o = run(&["info", path_str(&bad)]);
    expect_code(&o, 1, "info corrupt chunk");
    assert!(text(&o.stdout).contains("unreadable"), "{}", text(&o.stdout));
    let o = run(&["info", "--json", path_str(&bad)]);
    expect_code(&o, 1, "info --json corrupt chunk");
    let v: Value = serde_json::from_slice(&o.stdout).unwrap();
    assert!(v["chunks"][2]["error"].is_string());
    assert!(v["chunks"][1]["error"].is_null());
    // A frame whose header length field is wrong: the byte is named.
    let mut bytes = std::fs::read(&frame).unwrap();
    bytes[16..24].copy_from_slice(&(1u64 << 40).to_be_bytes());
    std::fs::write(&bad, &bytes).unwrap();
    let o = run(&["verify", path_str(&bad)]);
    expect_code(&o, 1, "verify bad frame_len");
    assert!(text(&o.stderr).contains("frame_len (byte 16)"), "{}", text(&o.stderr));
    // Not a Blosc file at all.
    let o = run(&["verify", path_str(&input)]);
    expect_code(&o, 1, "verify plain file");
    assert!(
        text(&o.stderr).contains("neither a frame nor a valid chunk"),
        "{}",
        text(&o.stderr)
    );
}

#[test]
fn bad_arguments_and_missing_files_exit_2() {
    let dir = scratch("usage");
    let input = dir.join("in.bin");
    std::fs::write(&input, data(1000, 1)).unwrap();
    let inp = path_str(&input);
    let out = dir.join("out.b2frame");
    let o = path_str(&out);
    let missing = dir.join("missing.bin");
    let m = path_str(&missing);
    let cases: Vec<(Vec<&str>, &str)> = vec![
        (vec!["compress"], "expected 2 arguments"),
        (vec!["compress", inp], "expected 2 arguments"),
        (vec!["compress", inp, o, "extra"], "expected 2 arguments"),
        (vec!["compress", "--codec", "brotli", inp, o], "--codec must be one of"),
        (vec!["compress", "--clevel", "10", inp, o], "--clevel"),
        (vec!["compress", "--clevel", "x", inp, o], "--clevel"),
        (vec!["compress", "--typesize", "0", inp, o], "--typesize"),
        (vec!["compress", "--chunksize", "0", inp, o], "--chunksize"),
        (vec!["compress", "--chunksize", "3X", inp, o], "--chunksize"),
        (vec!["compress", "--filter", "zigzag", inp, o], "unknown filter"),
        (vec!["compress", "--nthreads", "0", inp, o], "--nthreads"),
        (vec!["compress", "--bogus", inp, o], "unknown option"),
        (vec!["compress", "--codec"], "needs a value"),
        (vec!["compress", m, o], "no such file"),
        (vec!["compress", inp, path_str(&dir)], "is a directory"),
        (vec!["decompress", m, o], "no such file"),
        (vec!["decompress", inp], "expected 2 arguments"),
        (vec!["info"], "needs a FILE"),
        (vec!["info", m], "no such file"),
        (vec!["info", "--jsn", inp], "unknown option"),
        (vec!["verify"], "needs a FILE"),
        (vec!["verify", m], "no such file"),
        (vec!["verify", "--nthreads", "-1", inp], "--nthreads"),
        (vec!["frobnicate"], "unknown command"),
    ];
    for (args, want) in cases {
        let r = run(&args);
        expect_code(&r, 2, &args.join(" "));
        let msg = text(&r.stderr);
        assert!(msg.starts_with("blosc2: ") && msg.contains(want), "{args:?}: {msg}");
        assert!(r.stdout.is_empty(), "{args:?}: stdout {}", text(&r.stdout));
    }
    assert!(!out.exists(), "nothing written on usage errors");
    // A missing file among good ones still gives 2, after reporting the rest.
    let good = corpus().join("chunks/0001_blosclz_none_ts1_cl0.chunk");
    let r = run(&["verify", path_str(&good), m]);
    expect_code(&r, 2, "verify good + missing");
    assert!(text(&r.stdout).contains(": OK, "));
    // --help is not an error.
    for cmd in ["compress", "decompress", "info", "verify"] {
        let r = run(&[cmd, "--help"]);
        expect_code(&r, 0, cmd);
        assert!(text(&r.stdout).starts_with(&format!("usage: blosc2 {cmd}")));
    }
    let r = run(&["--help"]);
    expect_code(&r, 0, "--help");
    for cmd in ["compress", "decompress", "info", "verify"] {
        assert!(text(&r.stdout).contains(&format!("blosc2 {cmd} ")), "{cmd}");
    }
}

#[test]
fn corrupt_input_exits_1() {
    let dir = scratch("corrupt");
    // Sparse frame with a missing chunk file: decompress fails cleanly and
    // leaves no output.
    let out = dir.join("out");
    let o = run(&[
        "decompress",
        path_str(&corpus().join("malformed/m044_sframe_missing_chunk.b2frame")),
        path_str(&out),
    ]);
    expect_code(&o, 1, "decompress m044");
    assert!(
        text(&o.stderr).contains("chunk 1 (file 00000001.chunk)"),
        "{}",
        text(&o.stderr)
    );
    assert!(!out.exists());
    // A truncated frame: info names the field.
    let o = run(&[
        "info",
        path_str(&corpus().join("malformed/m030_frame_trunc_half.b2frame")),
    ]);
    expect_code(&o, 1, "info m030");
    assert!(text(&o.stderr).contains("frame_len (byte 16)"), "{}", text(&o.stderr));
    // A directory that is not a sparse frame.
    let o = run(&["info", path_str(&dir)]);
    expect_code(&o, 1, "info dir");
    assert!(text(&o.stderr).contains("not a sparse frame"), "{}", text(&o.stderr));
}

#[test]
fn readme_shell_example() {
    let dir = scratch("readme");
    std::fs::write(dir.join("data.bin"), data(3 << 20, 9)).unwrap();
    let bin_dir = Path::new(bin()).parent().unwrap();
    let path = format!("{}:{}", bin_dir.display(), std::env::var("PATH").unwrap_or_default());
    let o = Command::new("sh")
        .arg("-ec")
        .arg(README_EXAMPLE)
        .current_dir(&dir)
        .env("PATH", path)
        .output()
        .expect("sh");
    expect_code(&o, 0, "README example");
    let t = text(&o.stdout);
    assert!(t.contains("data.b2frame: contiguous frame"), "{t}");
    assert!(t.contains("data.b2frame: OK, contiguous frame, 1 chunk,"), "{t}");
    let j: Value = serde_json::from_slice(&std::fs::read(dir.join("data.json")).unwrap()).unwrap();
    assert_eq!(j["header"]["codec"], "zstd");
}

/// Peak resident memory the child reports (`VmHWM`, kB), Linux only.
#[cfg(target_os = "linux")]
fn vmhwm_kb(o: &Output) -> u64 {
    let t = text(&o.stderr);
    let line = t
        .lines()
        .find(|l| l.starts_with("VmHWM:"))
        .unwrap_or_else(|| panic!("no VmHWM line: {t}"));
    line.split_whitespace().nth(1).unwrap().parse().unwrap()
}

#[cfg(target_os = "linux")]
#[test]
fn compress_of_64_mib_keeps_memory_bounded() {
    let dir = scratch("memory");
    let input = dir.join("big.bin");
    {
        let mut f = std::io::BufWriter::new(std::fs::File::create(&input).unwrap());
        let block = data(1 << 20, 21);
        for k in 0..64u8 {
            let mut b = block.clone();
            b[0] = k;
            f.write_all(&b).unwrap();
        }
    }
    let frame = dir.join("big.b2frame");
    let o = Command::new(bin())
        .args(["compress", "--codec", "lz4", "--clevel", "1", "-c", "4M"])
        .args([&input, &frame])
        .env("BLOSC2_REPORT_VMHWM", "1")
        .output()
        .unwrap();
    expect_code(&o, 0, "compress 64 MiB");
    let peak = vmhwm_kb(&o);
    // 64 MiB in, chunks of 4 MiB: a few chunks' worth, far below the input.
    assert!(peak < 48 * 1024, "compress peak {peak} kB");
    let back = dir.join("big.out");
    let o = Command::new(bin())
        .args(["decompress"])
        .args([&frame, &back])
        .env("BLOSC2_REPORT_VMHWM", "1")
        .output()
        .unwrap();
    expect_code(&o, 0, "decompress 64 MiB");
    let peak = vmhwm_kb(&o);
    assert!(peak < 48 * 1024, "decompress peak {peak} kB");
    assert_eq!(std::fs::metadata(&back).unwrap().len(), 64 << 20);
    assert!(std::fs::read(&back).unwrap() == std::fs::read(&input).unwrap());
    assert_eq!(info_json(&frame)["nchunks"], 16);
    let _ = std::fs::remove_file(&input);
    let _ = std::fs::remove_file(&back);
}

#[test]
fn relative_paths_work() {
    // Run from another directory: relative paths are relative to it.
    let dir = scratch("relative");
    std::fs::write(dir.join("a.bin"), data(10_000, 2)).unwrap();
    expect_code(
        &run_in(&dir, &["compress", "-q", "a.bin", "a.b2frame"]),
        0,
        "relative compress",
    );
    expect_code(&run_in(&dir, &["verify", "a.b2frame"]), 0, "relative verify");
}
