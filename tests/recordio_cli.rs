//! `blosc2 recordio info|cat|pack`: `cat --json` agrees with the test
//! vectors' manifest, errors name the offset, and `pack` round-trips.

mod recordio_common;

use std::path::PathBuf;
use std::process::{Command, Output};

use recordio_common::*;
use serde_json::Value as J;

fn blosc2(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_blosc2"))
        .args(args)
        .output()
        .expect("running blosc2")
}

fn json_of(out: &Output) -> J {
    serde_json::from_slice(&out.stdout).unwrap_or_else(|e| {
        panic!(
            "not JSON ({e}):\n{}\n{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        )
    })
}

fn tmp(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("recordio-cli-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    dir.join(name)
}

#[test]
fn cat_json_matches_the_manifest() {
    for e in manifest() {
        let name = e["file"].as_str().unwrap();
        let path = dir().join(name);
        let out = blosc2(&["recordio", "cat", "--json", path.to_str().unwrap()]);
        if name.contains("testplus") {
            // Upstream's test transformers are not registered in the tool.
            assert!(!out.status.success());
            assert!(String::from_utf8_lossy(&out.stderr).contains("transformer testplus 3 not found"));
            continue;
        }
        let j = json_of(&out);
        if e.get("expect_error").is_some() {
            assert!(!out.status.success(), "{name}");
            assert_eq!(j["items"].as_array().unwrap().len(), 3, "{name}");
            assert_eq!(j["error"]["offset"], 98304, "{name}");
            let out = blosc2(&["recordio", "cat", "--json", "--recover", path.to_str().unwrap()]);
            assert!(out.status.success(), "{name} --recover");
            let j = json_of(&out);
            assert_eq!(j["items"].as_array().unwrap().len(), 3);
            assert_eq!(j["skipped"][0]["offset"], 98304);
            assert_eq!(j["skipped"][0]["length"], 32768);
            assert_eq!(j["trailer"]["hex"], "547261696c657232");
            continue;
        }
        assert!(out.status.success(), "{name}: {}", String::from_utf8_lossy(&out.stderr));
        assert_eq!(
            j["header"],
            e.get("header").cloned().unwrap_or(J::Array(vec![])),
            "{name}"
        );
        let items = j["items"].as_array().unwrap();
        let lens = e["item_lengths"].as_array().unwrap();
        let shas = e["items_sha256"].as_array().unwrap();
        assert_eq!(items.len(), lens.len(), "{name}");
        for (i, item) in items.iter().enumerate() {
            assert_eq!(item["length"], lens[i], "{name} item {i}");
            assert_eq!(item["sha256"], shas[i], "{name} item {i}");
        }
        if let Some(locs) = e.get("index_block_item").and_then(J::as_array) {
            for (i, item) in items.iter().enumerate() {
                assert_eq!(
                    J::from(vec![item["block"].clone(), item["item"].clone()]),
                    locs[i],
                    "{name} item {i}"
                );
            }
        }
        match e.get("trailer_hex").and_then(J::as_str) {
            None => assert!(j["trailer"].is_null(), "{name}"),
            Some(t) => match t.strip_prefix("sha256:") {
                Some(sha) => assert_eq!(j["trailer"]["sha256"], sha, "{name}"),
                None => assert_eq!(j["trailer"]["hex"], t, "{name}"),
            },
        }
        assert!(j["error"].is_null());
    }
}

#[test]
fn cat_writes_raw_items_and_info_describes() {
    let path = dir().join("legacy_unpacked.grail-rio");
    let out = blosc2(&["recordio", "cat", path.to_str().unwrap()]);
    assert!(out.status.success());
    assert_eq!(out.stdout, b"ahello\nlast record");
    let out = blosc2(&["recordio", "info", dir().join("v2_multichunk.rio").to_str().unwrap()]);
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{text}");
    for want in [
        "format: v2",
        "blocks: 2",
        "items: 3 (132737 bytes",
        "trailer: 70000 bytes",
    ] {
        assert!(text.contains(want), "{want} in\n{text}");
    }
    let out = blosc2(&[
        "recordio",
        "info",
        dir().join("v2_basic_corrupt_F3block.rio").to_str().unwrap(),
    ]);
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("98304"));
    assert!(!blosc2(&["recordio", "cat", "/no/such/file"]).status.success());
    assert!(!blosc2(&["recordio", "frobnicate"]).status.success());
}

#[test]
fn pack_repacks_and_round_trips() {
    // Repack Go's flate file with the blosc2 transformer: same items,
    // header entries and trailer.
    let flate = dir().join("v2_flate.rio");
    let out_path = tmp("repacked.rio");
    let out = blosc2(&[
        "recordio",
        "pack",
        "-o",
        out_path.to_str().unwrap(),
        "-t",
        "blosc2 codec=lz4,clevel=9,typesize=1",
        "--from",
        flate.to_str().unwrap(),
    ]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let a = json_of(&blosc2(&["recordio", "cat", "--json", flate.to_str().unwrap()]));
    let b = json_of(&blosc2(&["recordio", "cat", "--json", out_path.to_str().unwrap()]));
    let strip = |j: &J| -> Vec<(J, J)> {
        j["items"]
            .as_array()
            .unwrap()
            .iter()
            .map(|i| (i["length"].clone(), i["sha256"].clone()))
            .collect()
    };
    assert_eq!(strip(&a), strip(&b));
    assert_eq!(strip(&a).len(), 300);
    assert_eq!(a["trailer"], b["trailer"]);
    assert_eq!(b["header"][0]["value"], "blosc2 codec=lz4,clevel=9,typesize=1");
    assert_eq!(
        b["header"][2],
        serde_json::json!({"key": "k", "type": "string", "value": "v"})
    );

    // Files and lines as items, typed header values, a trailer.
    let f1 = tmp("one.txt");
    std::fs::write(&f1, b"first line\nsecond\n\nlast").unwrap();
    let trailer = tmp("trailer.bin");
    std::fs::write(&trailer, gen(4, 1000)).unwrap();
    let packed = tmp("lines.rio");
    let out = blosc2(&[
        "recordio",
        "pack",
        "-o",
        packed.to_str().unwrap(),
        "--lines",
        "--header",
        "n:int=-5",
        "--header",
        "u:uint=7",
        "--header",
        "ok:bool=true",
        "--header",
        "name=x=y",
        "--trailer",
        trailer.to_str().unwrap(),
        "--max-items",
        "1",
        f1.to_str().unwrap(),
    ]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let j = json_of(&blosc2(&["recordio", "cat", "--json", packed.to_str().unwrap()]));
    let items = j["items"].as_array().unwrap();
    assert_eq!(items.len(), 4);
    assert_eq!(items[0]["sha256"], sha256_hex(b"first line"));
    assert_eq!(items[2]["length"], 0);
    // max-items 1: blocks of two items.
    assert_eq!(items[0]["block"], items[1]["block"]);
    assert_eq!(items[2]["block"], items[3]["block"]);
    assert_ne!(items[1]["block"], items[2]["block"]);
    assert_eq!(j["trailer"]["sha256"], sha256_hex(&gen(4, 1000)));
    assert_eq!(j["header"][0]["key"], "trailer");
    assert_eq!(j["header"][1]["value"], -5);
    assert_eq!(j["header"][2]["value"], 7);
    assert_eq!(j["header"][3]["value"], true);
    assert_eq!(j["header"][4]["value"], "x=y");
    let raw = blosc2(&["recordio", "cat", packed.to_str().unwrap()]);
    assert_eq!(raw.stdout, b"first linesecondlast");
    for bad in [
        &["recordio", "pack"][..],
        &["recordio", "pack", "-o", "/tmp/x.rio", "-t", "nosuch", "a"],
    ] {
        assert!(!blosc2(bad).status.success());
    }
    let _ = std::fs::remove_dir_all(
        tmp("")
            .parent()
            .unwrap()
            .join(format!("recordio-cli-{}", std::process::id())),
    );
}
