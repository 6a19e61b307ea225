//! `blosc2 compress` with plugin codecs and filters: ZFP frames carry a
//! 1-D `b2nd` metalayer and decode (lossy, within the accuracy asked) to
//! the input's length, INT_TRUNC zeroes the low bits, the checksums of
//! lossy chunks are of what decodes, `info` names the plugins, and what
//! cannot apply to a plain file is refused with a reason (exit code 2).
//! (`.ci/cli_plugins_interop.sh` has the reference read these frames.)

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn run(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_blosc2"))
        .args(args)
        .output()
        .expect("run blosc2")
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

fn ok(o: &Output, what: &str) {
    assert_eq!(o.status.code(), Some(0), "{what}: {}", stderr(o));
}

fn scratch(name: &str) -> PathBuf {
    let d = PathBuf::from(env!("CARGO_TARGET_TMPDIR"))
        .join("cli_plugins")
        .join(name);
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).expect("scratch dir");
    d
}

fn p(path: &Path) -> &str {
    path.to_str().unwrap()
}

fn floats(n: usize) -> Vec<f32> {
    (0..n)
        .map(|i| (i as f32 / 300.0).sin() * 50.0 + (i % 7) as f32 * 0.01)
        .collect()
}

fn f32_bytes(v: &[f32]) -> Vec<u8> {
    v.iter().flat_map(|x| x.to_le_bytes()).collect()
}

/// Compress `data` with `opts`, decompress it; returns the decoded bytes
/// and `info --json`.
fn round_trip(d: &Path, data: &[u8], opts: &[&str]) -> (Vec<u8>, serde_json::Value) {
    let (src, frame, back) = (d.join("in.bin"), d.join("out.b2frame"), d.join("back.bin"));
    std::fs::write(&src, data).unwrap();
    let mut args = vec!["compress", "-q", "-f"];
    args.extend_from_slice(opts);
    args.extend_from_slice(&[p(&src), p(&frame)]);
    ok(&run(&args), "compress");
    ok(&run(&["verify", "-q", p(&frame)]), "verify");
    ok(&run(&["decompress", "-q", "-f", p(&frame), p(&back)]), "decompress");
    let info = run(&["info", "--json", p(&frame)]);
    ok(&info, "info");
    (
        std::fs::read(&back).unwrap(),
        serde_json::from_slice(&info.stdout).unwrap(),
    )
}

#[test]
fn zfp_writes_a_1d_b2nd_array_and_decodes_within_the_accuracy() {
    let d = scratch("zfp");
    // Several whole chunks and a short last one, then a single short chunk.
    for (n, chunksize) in [(100_003usize, "64K"), (5_000, "4M")] {
        let x = floats(n);
        let (back, info) = round_trip(
            &d,
            &f32_bytes(&x),
            &["--codec", "zfp-acc:-3", "--typesize", "4", "--chunksize", chunksize],
        );
        assert_eq!(back.len(), n * 4);
        for (a, b) in back.chunks_exact(4).zip(&x) {
            let a = f32::from_le_bytes(a.try_into().unwrap());
            assert!((a - b).abs() <= 1e-3, "{a} vs {b}");
        }
        let text = info.to_string();
        assert!(text.contains("zfp_acc"), "{text}");
        assert!(
            text.contains(&format!("[{n}]")),
            "the b2nd shape is the item count: {text}"
        );
    }
    for codec in ["zfp-prec:10", "zfp-rate:40"] {
        let x = floats(20_000);
        let (back, _) = round_trip(&d, &f32_bytes(&x), &["--codec", codec, "--typesize", "4"]);
        assert_eq!(back.len(), x.len() * 4, "{codec}");
    }
}

#[test]
fn int_trunc_zeroes_the_low_bits() {
    let d = scratch("int_trunc");
    let x: Vec<u32> = (0..50_000u32).map(|i| i.wrapping_mul(2_654_435_761)).collect();
    let data: Vec<u8> = x.iter().flat_map(|v| v.to_le_bytes()).collect();
    let (back, info) = round_trip(&d, &data, &["--filter", "int_trunc:20,shuffle", "--typesize", "4"]);
    let want: Vec<u8> = x.iter().flat_map(|v| (v & !0xfff).to_le_bytes()).collect();
    assert!(back == want);
    assert!(info.to_string().contains("int_trunc"), "{info}");
    let (back, _) = round_trip(&d, &data, &["--filter", "int_trunc:-4", "--typesize", "4"]);
    let want: Vec<u8> = x.iter().flat_map(|v| (v & !0xf).to_le_bytes()).collect();
    assert!(back == want);
}

#[test]
fn refuses_what_does_not_apply_to_a_plain_file() {
    let d = scratch("refusals");
    let src = d.join("in.bin");
    std::fs::write(&src, f32_bytes(&floats(1000))).unwrap();
    let odd = d.join("odd.bin");
    std::fs::write(&odd, [0u8; 4003]).unwrap();
    let out = d.join("out.b2frame");
    for (opts, why, input) in [
        (&["--codec", "ndlz"][..], "2-D", &src),
        (&["--codec", "zfp-acc:-3"], "--typesize 4 or 8", &src),
        (&["--codec", "zfp-acc:-3", "--typesize", "2"], "--typesize 4 or 8", &src),
        (
            &["--codec", "zfp-rate:50", "--typesize", "4", "--filter", "shuffle"],
            "--filter none",
            &src,
        ),
        (
            &["--codec", "zfp-rate:50", "--typesize", "4", "--blocksize", "64K"],
            "one ZFP block",
            &src,
        ),
        (&["--codec", "zfp-rate:0", "--typesize", "4"], "1..100", &src),
        (&["--codec", "zfp-rate:50", "--typesize", "4"], "whole number", &odd),
        (&["--filter", "int_trunc:8"], "--typesize", &src),
        (&["--filter", "int_trunc:0", "--typesize", "4"], "bits kept", &src),
    ] {
        let mut args = vec!["compress", "-q", "-f"];
        args.extend_from_slice(opts);
        args.extend_from_slice(&[p(input), p(&out)]);
        let o = run(&args);
        assert_eq!(o.status.code(), Some(2), "{opts:?}: {}", stderr(&o));
        assert!(stderr(&o).contains(why), "{opts:?}: {}", stderr(&o));
    }
    let help = run(&["compress", "--help"]);
    let text = String::from_utf8_lossy(&help.stdout);
    for word in [
        "zfp-acc:N",
        "zfp-rate:N",
        "int_trunc:N",
        "ndlz is refused",
        "b2nd metalayer",
    ] {
        assert!(text.contains(word), "--help lacks {word}");
    }
}

#[test]
fn info_names_the_plugins_of_the_reference_corpus() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/corpus/plugins");
    for (file, names) in [
        ("b2nd/042-ndcell-nd2-u1-ndlz-ndcell.b2nd", &["ndlz", "ndcell"][..]),
        ("b2nd/044-ndmean-nd2-f4-zstd-ndmean+shuf.b2nd", &["ndmean"]),
        (
            "chunks/015-bytedelta-buggy-c-i4-lz4hc-shuf+bdbuggy.b2c",
            &["bytedelta_buggy"],
        ),
        ("chunks/029-zfp-acc-c-f4-zfpacc.b2c", &["zfp_acc"]),
    ] {
        let o = run(&["info", "--no-chunks", p(&dir.join(file))]);
        let text = String::from_utf8_lossy(&o.stdout);
        for n in names {
            assert!(text.contains(n), "{file}: {text}");
        }
    }
}
