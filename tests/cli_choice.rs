//! What `blosc2 compress` chooses by default (`--filter auto`,
//! `--typesize auto`) on built-in data of each kind, that the result is
//! smaller than `zstd -3` and than the old default (shuffle at type size
//! 8) on each, and the chunk checksums: stored by default, checked by
//! `verify` and `decompress`, which name the chunk whose data changed.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use serde_json::Value;

fn run(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_blosc2"))
        .args(args)
        .output()
        .expect("run blosc2")
}

fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

fn ok(o: &Output, what: &str) {
    assert_eq!(o.status.code(), Some(0), "{what}: {}", text(&o.stderr));
}

fn scratch(name: &str) -> PathBuf {
    let d = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("cli_choice").join(name);
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).expect("scratch dir");
    d
}

fn p(path: &Path) -> &str {
    path.to_str().unwrap()
}

fn info_json(path: &Path) -> Value {
    let o = run(&["info", "--json", p(path)]);
    ok(&o, "info --json");
    serde_json::from_slice(&o.stdout).expect("json")
}

/// A pseudo-random generator, so that the data are the same every run.
struct Lcg(u64);
impl Lcg {
    fn next(&mut self) -> u64 {
        self.0 = self
            .0
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        self.0 >> 33
    }
}

/// An HTML page: tags, words, attribute values.
fn html(n: usize) -> Vec<u8> {
    let words = [
        "blosc",
        "compresses",
        "chunks",
        "of",
        "data",
        "in",
        "blocks",
        "with",
        "shuffle",
        "and",
        "codecs",
        "the",
        "frame",
        "holds",
        "super-chunks",
        "metalayers",
    ];
    let mut r = Lcg(1);
    let mut out = String::from("<!DOCTYPE html>\n<html><body>\n");
    while out.len() < n {
        out.push_str(&format!("<p class=\"c{}\">", r.next() % 7));
        for _ in 0..(5 + r.next() % 30) {
            out.push_str(words[(r.next() % words.len() as u64) as usize]);
            out.push(' ');
        }
        out.push_str(&format!("<a href=\"/doc/{}.html\">more</a></p>\n", r.next() % 1000));
    }
    out.truncate(n);
    out.into_bytes()
}

/// CSV rows: an id, a date, a float reading, a city, a count.
fn csv(n: usize) -> Vec<u8> {
    let cities = ["Paris", "Berlin", "Madrid", "Rome", "Lisbon", "Vienna"];
    let mut r = Lcg(2);
    let mut out = String::from("id,date,temp,city,count\n");
    let mut i = 0u64;
    while out.len() < n {
        out.push_str(&format!(
            "{i},2024-{:02}-{:02},{}.{:02},{},{}\n",
            1 + i % 12,
            1 + i % 28,
            r.next() % 40,
            r.next() % 100,
            cities[(i % 6) as usize],
            r.next() % 1000
        ));
        i += 1;
    }
    out.truncate(n);
    out.into_bytes()
}

/// A smooth float64 signal with a little noise.
fn float64(n: usize) -> Vec<u8> {
    let mut r = Lcg(3);
    (0..n / 8)
        .flat_map(|i| ((i as f64 * 1e-4).sin() * 100.0 + (r.next() % 1000) as f64 * 1e-5).to_le_bytes())
        .collect()
}

/// A float32 random walk.
fn float32(n: usize) -> Vec<u8> {
    let mut r = Lcg(4);
    let mut v = 0f32;
    (0..n / 4)
        .flat_map(|_| {
            v += (r.next() % 1000) as f32 / 1000.0 - 0.5;
            v.to_le_bytes()
        })
        .collect()
}

/// An executable: the first bytes of this tool's own binary.
fn executable(n: usize) -> Vec<u8> {
    let mut b = std::fs::read(env!("CARGO_BIN_EXE_blosc2")).expect("read the tool");
    b.truncate(n);
    b
}

fn compressed_size(dir: &Path, input: &Path, name: &str, extra: &[&str]) -> u64 {
    let out = dir.join(name);
    let mut args = vec!["compress", "-q", "-f", "--chunksize", "1M"];
    args.extend_from_slice(extra);
    args.extend_from_slice(&[p(input), p(&out)]);
    ok(&run(&args), name);
    std::fs::metadata(&out).unwrap().len()
}

#[test]
fn the_default_chooses_per_kind_and_beats_zstd_3() {
    let dir = scratch("kinds");
    let n = 3 << 20;
    // (name, data, the type size the choice must have, or 0 for no filter)
    let kinds: [(&str, Vec<u8>, i64); 5] = [
        ("html", html(n), 0),
        ("csv", csv(n), 0),
        ("float64", float64(n), 8),
        ("float32", float32(n), 4),
        ("executable", executable(n), -1),
    ];
    for (name, data, typesize) in kinds {
        let input = dir.join(format!("{name}.in"));
        std::fs::write(&input, &data).unwrap();
        let ours = compressed_size(&dir, &input, &format!("{name}.auto"), &[]);
        let old_default = compressed_size(
            &dir,
            &input,
            &format!("{name}.old"),
            &["--filter", "shuffle", "--typesize", "8"],
        );
        let zstd3 = zstd::bulk::compress(&data, 3).unwrap().len() as u64;
        assert!(ours < zstd3, "{name}: ours {ours} vs zstd -3 {zstd3}");
        // Where shuffle/8 is the best choice, the choice is that one.
        assert!(ours <= old_default, "{name}: ours {ours} vs shuffle/8 {old_default}");

        let j = info_json(&dir.join(format!("{name}.auto")));
        let pipelines = j["pipelines"].as_object().expect("pipelines");
        assert_eq!(
            pipelines.values().map(|v| v.as_u64().unwrap()).sum::<u64>(),
            3,
            "{name}"
        );
        for chunk in j["chunks"].as_array().unwrap() {
            let unfiltered = chunk["filters"].as_array().unwrap().iter().all(|f| f == "nofilter");
            match typesize {
                0 => assert!(unfiltered, "{name}: {chunk}"),
                ts if ts > 0 => {
                    assert!(!unfiltered, "{name}: {chunk}");
                    assert_eq!(chunk["typesize"].as_i64(), Some(ts), "{name}: {chunk}");
                }
                _ => {}
            }
        }
        // The text report names the choices too, plugin filters by name.
        let o = run(&["info", p(&dir.join(format!("{name}.auto")))]);
        assert!(text(&o.stdout).contains("filter pipelines: "), "{name}");
        if name.starts_with("float") {
            assert!(text(&o.stdout).contains("bytedelta"), "{name}: {}", text(&o.stdout));
        }
        // And the data come back.
        let back = dir.join(format!("{name}.back"));
        ok(
            &run(&["decompress", "-q", p(&dir.join(format!("{name}.auto"))), p(&back)]),
            name,
        );
        assert!(std::fs::read(&back).unwrap() == data, "{name}: round trip");
    }
}

#[test]
fn fixed_filter_or_typesize_narrow_the_choice() {
    let dir = scratch("fixed");
    let input = dir.join("f64.in");
    std::fs::write(&input, float64(1 << 20)).unwrap();
    let out = dir.join("f.b2frame");
    for (args, want) in [
        (&["--filter", "shuffle"][..], "shuffle/8"),
        (&["--typesize", "4", "--filter", "shuffle"], "shuffle/4"),
        (&["--filter", "none"], "none"),
    ] {
        let mut a = vec!["compress", "-q", "-f"];
        a.extend_from_slice(args);
        a.extend_from_slice(&[p(&input), p(&out)]);
        ok(&run(&a), want);
        let j = info_json(&out);
        assert_eq!(j["pipelines"][want].as_u64(), Some(1), "{args:?}: {}", j["pipelines"]);
    }
}

/// Byte offsets of each chunk's data in a frame file (after its 32-byte
/// header), from `info --json`.
fn chunk_spans(frame: &Path) -> Vec<(u64, u64)> {
    let j = info_json(frame);
    j["chunks"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| (c["offset"].as_u64().unwrap(), c["cbytes"].as_u64().unwrap()))
        .collect()
}

#[test]
fn checksums_catch_a_flipped_byte_in_every_chunk() {
    let dir = scratch("flip");
    let input = dir.join("in.bin");
    let data = float64(4 * 65536 + 1000);
    std::fs::write(&input, &data).unwrap();
    let frame = dir.join("f.b2frame");
    // clevel 0 stores the data as they are: a flipped byte decodes
    // without any codec error, and only the checksum can tell.
    ok(
        &run(&[
            "compress",
            "-q",
            "--clevel",
            "0",
            "--chunksize",
            "64K",
            p(&input),
            p(&frame),
        ]),
        "compress",
    );
    let o = run(&["verify", p(&frame)]);
    ok(&o, "verify");
    assert!(text(&o.stdout).contains("checksums match"), "{}", text(&o.stdout));
    let good = std::fs::read(&frame).unwrap();
    let spans = chunk_spans(&frame);
    assert_eq!(spans.len(), 5);
    for (n, &(offset, cbytes)) in spans.iter().enumerate() {
        for at in [32, cbytes / 2, cbytes - 1] {
            let mut bad = good.clone();
            bad[(offset + at) as usize] ^= 0x10;
            let f = dir.join(format!("bad{n}.b2frame"));
            std::fs::write(&f, &bad).unwrap();
            let o = run(&["verify", "-q", p(&f)]);
            assert_eq!(o.status.code(), Some(1), "chunk {n} byte {at}: verify said OK");
            let msg = text(&o.stderr);
            assert!(
                msg.contains(&format!("chunk {n} ")) && msg.contains("checksum mismatch"),
                "chunk {n}: {msg}"
            );
            let out = dir.join("out.bin");
            let o = run(&["decompress", "-q", "-f", p(&f), p(&out)]);
            assert_eq!(o.status.code(), Some(1), "chunk {n}: decompress succeeded");
            assert!(text(&o.stderr).contains(&format!("chunk {n} ")), "{}", text(&o.stderr));
            assert!(!out.exists(), "no output left behind");
        }
    }
    // --no-checksum stores none; verify still decodes everything.
    let plain = dir.join("plain.b2frame");
    ok(
        &run(&["compress", "-q", "--no-checksum", p(&input), p(&plain)]),
        "compress",
    );
    assert_eq!(info_json(&plain)["vlmetalayers"].as_object().unwrap().len(), 0);
    let o = run(&["verify", p(&plain)]);
    ok(&o, "verify");
    assert!(!text(&o.stdout).contains("checksums"));
}

#[test]
fn unwritable_output_names_the_users_path_and_the_reason() {
    let dir = scratch("unwritable");
    let input = dir.join("in.bin");
    std::fs::write(&input, html(1000)).unwrap();
    let out = dir.join("no/such/dir/out.b2frame");
    let o = run(&["compress", "-q", p(&input), p(&out)]);
    assert_eq!(o.status.code(), Some(1));
    let msg = text(&o.stderr);
    assert!(
        msg.contains(p(&out)) && msg.contains("No such file or directory"),
        "{msg}"
    );
    assert!(!msg.contains(".tmp"), "{msg}");
}

/// Compressed chunks (the default zstd, filters chosen): a flipped byte
/// anywhere in a chunk's stream never passes as good data. Either
/// `verify` fails (the codec or the checksum) and `decompress` refuses,
/// or the flip did not change the decoded bytes at all.
#[test]
fn a_flipped_byte_in_a_compressed_stream_never_passes_as_good_data() {
    let dir = scratch("flip_compressed");
    let input = dir.join("in.bin");
    let data = float64(4 * 65536 + 1000);
    std::fs::write(&input, &data).unwrap();
    let frame = dir.join("f.b2frame");
    ok(
        &run(&["compress", "-q", "--chunksize", "64K", p(&input), p(&frame)]),
        "compress",
    );
    let good = std::fs::read(&frame).unwrap();
    let spans = chunk_spans(&frame);
    assert_eq!(spans.len(), 5);
    let (mut caught, mut harmless) = (0, 0);
    for (n, &(offset, cbytes)) in spans.iter().enumerate() {
        assert!(cbytes > 64, "chunk {n} is {cbytes} bytes");
        for k in 0..8 {
            let at = offset + 32 + (cbytes - 33) * k / 7;
            let mut bad = good.clone();
            bad[at as usize] ^= 0x04;
            let f = dir.join(format!("bad{n}_{k}.b2frame"));
            std::fs::write(&f, &bad).unwrap();
            let out = dir.join("out.bin");
            let _ = std::fs::remove_file(&out);
            let v = run(&["verify", "-q", p(&f)]);
            let d = run(&["decompress", "-q", "-f", p(&f), p(&out)]);
            if v.status.code() == Some(0) {
                ok(&d, "decompress of a frame verify passed");
                assert!(
                    std::fs::read(&out).unwrap() == data,
                    "chunk {n} byte {at}: wrong data passed"
                );
                harmless += 1;
            } else {
                assert_eq!(v.status.code(), Some(1), "chunk {n} byte {at}: {}", text(&v.stderr));
                assert!(text(&v.stderr).contains(&format!("chunk {n}")), "{}", text(&v.stderr));
                assert_eq!(d.status.code(), Some(1), "chunk {n} byte {at}: decompress succeeded");
                assert!(!out.exists(), "no output left behind");
                caught += 1;
            }
            std::fs::remove_file(&f).unwrap();
        }
    }
    assert!(caught >= 35, "{caught} flips caught, {harmless} harmless");
}
