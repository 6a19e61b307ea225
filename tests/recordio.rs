//! RecordIO: the Go test vectors read as their manifest says, files
//! written here without compression equal Go's byte for byte, and every
//! transformer round-trips (with seek, shards, trailer and recovery).

mod recordio_common;

use std::io::Cursor;
use std::sync::{Arc, Mutex};

use blosc2::recordio::{
    self, chunk, legacy, Chain, ErrorKind, Format, ItemLocation, Scanner, ScannerOpts, Value, Writer, WriterOpts,
};
use recordio_common::*;
use serde_json::Value as J;

fn hex(data: &[u8]) -> String {
    data.iter().map(|b| format!("{b:02x}")).collect()
}

fn json_value(v: &Value) -> (&'static str, J) {
    match v {
        Value::Bool(b) => ("bool", J::from(*b)),
        Value::Int(i) => ("int", J::from(*i)),
        Value::Uint(u) => ("uint", J::from(*u)),
        Value::String(s) => ("string", J::from(s.as_str())),
    }
}

fn scan(name: &str, data: Vec<u8>, opts: ScannerOpts) -> Scanner<Cursor<Vec<u8>>> {
    Scanner::new(Cursor::new(data), opts).unwrap_or_else(|e| panic!("{name}: open: {e}"))
}

#[test]
fn corpus_reads_as_the_manifest_says() {
    register_test_transformers();
    let entries = manifest();
    assert_eq!(entries.len(), 14);
    for e in &entries {
        let name = e["file"].as_str().unwrap();
        let data = read(name);
        assert_eq!(data.len() as u64, e["size"].as_u64().unwrap(), "{name}: size");
        assert_eq!(sha256_hex(&data), e["sha256"].as_str().unwrap(), "{name}: sha256");
        let mut s = scan(name, data, ScannerOpts::for_path(name));
        let want_format = if name.starts_with("legacy") {
            Format::Legacy
        } else {
            Format::V2
        };
        assert_eq!(s.format(), want_format, "{name}");

        // Header: key, type and value of every entry, in order.
        let want_header = e.get("header").and_then(J::as_array).cloned().unwrap_or_default();
        let got: Vec<(String, &str, J)> = s
            .header()
            .entries
            .iter()
            .map(|kv| {
                let (t, v) = json_value(&kv.value);
                (kv.key.clone(), t, v)
            })
            .collect();
        let want: Vec<(String, &str, J)> = want_header
            .iter()
            .map(|h| {
                (
                    h["key"].as_str().unwrap().to_owned(),
                    h["type"].as_str().unwrap(),
                    h["value"].clone(),
                )
            })
            .collect();
        if e.get("expect_error").is_none() {
            assert_eq!(got, want, "{name}: header");
        }

        if e.get("expect_error").and_then(J::as_bool) == Some(true) {
            // v2_basic with the F3 block's payload damaged: Go yields F0..F2,
            // then a sticky checksum error.
            let trailer = s.trailer().unwrap();
            assert_eq!(
                trailer.as_deref(),
                Some(&b"Trailer2"[..]),
                "trailer works before the error"
            );
            for want in [&b"F0"[..], b"F1", b"F2"] {
                assert_eq!(s.next_item().unwrap(), Some(want), "{name}");
            }
            let err = s.next_item().unwrap_err();
            assert_eq!(err.kind(), ErrorKind::Corrupt, "{name}: {err}");
            assert_eq!(err.offset(), Some(3 * 32768), "{name}: {err}");
            assert!(err.to_string().contains("checksum mismatch"), "{err}");
            assert!(err.to_string().contains("98304"), "{err}");
            assert_eq!(s.next_item().unwrap_err(), err, "the error is sticky");
            assert!(s.trailer().is_err(), "no trailer after the error, as in Go");
            continue;
        }

        // Items: lengths, sha256, hex when given, and locations.
        let lens: Vec<u64> = e["item_lengths"]
            .as_array()
            .unwrap()
            .iter()
            .map(|v| v.as_u64().unwrap())
            .collect();
        let shas: Vec<&str> = e["items_sha256"]
            .as_array()
            .unwrap()
            .iter()
            .map(|v| v.as_str().unwrap())
            .collect();
        let hexes = e.get("items_hex").and_then(J::as_array);
        let locs = e.get("index_block_item").and_then(J::as_array);
        let mut n = 0;
        while let Some(item) = s.next_item().unwrap_or_else(|err| panic!("{name}: item {n}: {err}")) {
            assert_eq!(item.len() as u64, lens[n], "{name}: item {n} length");
            assert_eq!(sha256_hex(item), shas[n], "{name}: item {n} sha256");
            if let Some(h) = hexes {
                assert_eq!(hex(item), h[n].as_str().unwrap(), "{name}: item {n}");
            }
            if let Some(l) = locs {
                let loc = s.last_location().unwrap();
                assert_eq!(
                    J::from(vec![loc.block, loc.item as u64]),
                    l[n],
                    "{name}: item {n} location"
                );
            }
            n += 1;
        }
        assert_eq!(n, lens.len(), "{name}: item count");
        assert!(s.error().is_none());

        // Trailer, in constant time from the end.
        let trailer = s.trailer().unwrap();
        match e.get("trailer_hex").and_then(J::as_str) {
            None => assert_eq!(trailer, None, "{name}"),
            Some(t) => {
                let t_bytes = trailer.unwrap_or_else(|| panic!("{name}: no trailer"));
                match t.strip_prefix("sha256:") {
                    Some(sha) => assert_eq!(sha256_hex(&t_bytes), sha, "{name}: trailer"),
                    None => assert_eq!(hex(&t_bytes), t, "{name}: trailer"),
                }
            }
        }
    }
}

/// The options and calls that produced a vector, replayed with our writer.
fn rewrite(name: &str, transformers: &[&str]) -> (Vec<u8>, Vec<(u64, usize)>) {
    let locs = Arc::new(Mutex::new(Vec::new()));
    let l2 = locs.clone();
    let mut opts = WriterOpts {
        transformers: transformers.iter().map(|s| s.to_string()).collect(),
        index: Some(Box::new(move |loc: ItemLocation, _: &[u8]| {
            l2.lock().unwrap().push((loc.block, loc.item));
            Ok(())
        })),
        ..WriterOpts::default()
    };
    let compressible = transformers.is_empty().then_some(()).is_none() || name.starts_with("v2_testplus");
    opts.key_trailer = !matches!(name, "v2_empty.rio" | "v2_header_only.rio" | "v2_empty_items.rio");
    let mut w = Writer::new(Vec::new(), opts).unwrap();
    match name {
        "v2_empty.rio" => {}
        "v2_header_only.rio" => w.add_header("Foo", "Hah").unwrap(),
        "v2_trailer_only.rio" => w.set_trailer(b"TTT").unwrap(),
        "v2_basic.rio" => {
            w.add_header("hh0", "vv0").unwrap();
            w.add_header("hh1", 12345i64).unwrap();
            w.add_header("hh2", 234u64).unwrap();
            w.add_header("neg", -3i64).unwrap();
            w.add_header("flag", false).unwrap();
            w.append(b"F0").unwrap();
            w.append(b"F1").unwrap();
            w.flush().unwrap();
            w.append(b"F2").unwrap();
            w.flush().unwrap();
            w.append(b"F3").unwrap();
            w.set_trailer(b"Trailer2").unwrap();
        }
        "v2_empty_items.rio" => {
            for item in [&b""[..], b"a", b"", b""] {
                w.append(item).unwrap();
            }
        }
        "v2_multichunk.rio" => {
            w.append(&gen(1, 100_000)).unwrap();
            w.flush().unwrap();
            w.append(&gen(2, 5)).unwrap();
            w.append(&gen(3, 32732)).unwrap();
            w.set_trailer(&gen(9, 70_000)).unwrap();
        }
        _ if compressible => {
            w.add_header("k", "v").unwrap();
            for i in 0..300 {
                if i == 150 {
                    w.flush().unwrap();
                }
                w.append(&compressible_item(i)).unwrap();
            }
            w.set_trailer(b"IDX").unwrap();
        }
        _ => panic!("no recipe for {name}"),
    }
    w.finish().unwrap();
    let out = w.into_inner();
    let l = locs.lock().unwrap().clone();
    (out, l)
}

fn compressible_item(i: usize) -> Vec<u8> {
    recordio_common::compressible(i)
}

fn manifest_locations(name: &str) -> Vec<(u64, usize)> {
    let m = manifest();
    let e = m.iter().find(|e| e["file"] == name).unwrap();
    e.get("index_block_item")
        .and_then(J::as_array)
        .map(|a| {
            a.iter()
                .map(|p| (p[0].as_u64().unwrap(), p[1].as_u64().unwrap() as usize))
                .collect()
        })
        .unwrap_or_default()
}

#[test]
fn uncompressed_files_equal_gos_byte_for_byte() {
    register_test_transformers();
    for (name, transformers) in [
        ("v2_empty.rio", &[][..]),
        ("v2_header_only.rio", &[]),
        ("v2_trailer_only.rio", &[]),
        ("v2_basic.rio", &[]),
        ("v2_empty_items.rio", &[]),
        ("v2_multichunk.rio", &[]),
        ("v2_testplus3_testxor111.rio", &["testplus 3", "testxor 111"]),
    ] {
        let (ours, locs) = rewrite(name, transformers);
        let go = read(name);
        assert_eq!(ours.len(), go.len(), "{name}: length");
        if let Some(i) = ours.iter().zip(&go).position(|(a, b)| a != b) {
            panic!("{name}: first difference at byte {i}");
        }
        assert_eq!(locs, manifest_locations(name), "{name}: index callback");
    }
}

#[test]
fn legacy_files_equal_gos_byte_for_byte() {
    let mut unpacked = Vec::new();
    for item in [&b""[..], b"a", b"hello\n", b"last record"] {
        legacy::write_unpacked(&mut unpacked, item).unwrap();
    }
    assert_eq!(unpacked, read("legacy_unpacked.grail-rio"));
    let mut packed = Vec::new();
    for rec in [&[&b"Foo"[..], b"Baz"][..], &[b"", b"quux"], &[b"last"]] {
        legacy::write_packed(&mut packed, rec, None).unwrap();
    }
    assert_eq!(packed, read("legacy_packed.grail-rpk"));
}

#[test]
fn compressed_rewrites_read_back_and_match_gos_items() {
    // flate and zstd output need not be byte-identical to Go's (different
    // compressors); the files must still hold the same items, header,
    // index locations and trailer.
    for (name, transformers) in [
        ("v2_flate.rio", &["flate"][..]),
        ("v2_zstd.rio", &["zstd"]),
        ("v2_flate1_zstd19.rio", &["flate 1", "zstd 19"]),
    ] {
        let (ours, locs) = rewrite(name, transformers);
        assert_eq!(locs, manifest_locations(name), "{name}: index callback");
        let mut a = scan(name, ours.clone(), ScannerOpts::default());
        let mut b = scan(name, read(name), ScannerOpts::default());
        assert_eq!(a.header(), b.header(), "{name}");
        assert_eq!(a.read_all().unwrap(), b.read_all().unwrap(), "{name}");
        assert_eq!(a.trailer().unwrap(), b.trailer().unwrap(), "{name}");
        eprintln!(
            "{name}: ours {} bytes, Go's {} bytes, identical: {}",
            ours.len(),
            read(name).len(),
            ours == read(name)
        );
    }
}

fn write_file(
    transformers: &[&str],
    items: &[Vec<u8>],
    max_items: u32,
    trailer: Option<&[u8]>,
) -> (Vec<u8>, Vec<ItemLocation>) {
    let locs = Arc::new(Mutex::new(Vec::new()));
    let l2 = locs.clone();
    let opts = WriterOpts {
        transformers: transformers.iter().map(|s| s.to_string()).collect(),
        key_trailer: trailer.is_some(),
        max_items,
        index: Some(Box::new(move |loc, _| {
            l2.lock().unwrap().push(loc);
            Ok(())
        })),
        ..WriterOpts::default()
    };
    let mut w = Writer::new(Vec::new(), opts).unwrap();
    w.add_header("b", true).unwrap();
    w.add_header("i", i64::MIN).unwrap();
    w.add_header("u", u64::MAX).unwrap();
    w.add_header("s", "välue with spaces").unwrap();
    w.add_header("s", "repeated key").unwrap();
    for (i, item) in items.iter().enumerate() {
        w.append(item).unwrap();
        if i % 97 == 96 {
            w.flush().unwrap();
        }
    }
    if let Some(t) = trailer {
        w.set_trailer(t).unwrap();
    }
    w.finish().unwrap();
    let l = locs.lock().unwrap().clone();
    (w.into_inner(), l)
}

fn sample_items() -> Vec<Vec<u8>> {
    let mut items: Vec<Vec<u8>> = (0..400).map(|i| gen(i, (i * 37) % 1500)).collect();
    items.push(Vec::new());
    items.push(gen(7, 200_000));
    items.push(vec![0u8; 70_000]);
    items
}

#[test]
fn round_trips_with_every_transformer() {
    register_test_transformers();
    let items = sample_items();
    let trailer = gen(5, 50_000);
    let specs: &[&[&str]] = &[
        &[],
        &["flate"],
        &["flate -2"],
        &["flate 0"],
        &["flate 9"],
        &["zstd"],
        &["zstd 1"],
        &["zstd 22"],
        &["flate 1", "zstd 19"],
        &["zstd 3", "flate 6"],
        &["testplus 3", "testxor 111"],
        &["blosc2"],
        &["blosc2 codec=blosclz,clevel=9,filter=shuffle,typesize=4"],
        &["blosc2 codec=lz4 clevel=1 filter=bitshuffle typesize=8 nthreads=2"],
        &["blosc2 codec=lz4hc,clevel=5,filter=nofilter"],
        &["blosc2 codec=zlib,clevel=3,filter=shuffle+delta,typesize=2"],
        &["blosc2 codec=zstd,clevel=9,format=frame,chunksize=65536,nthreads=2"],
        &["blosc2 format=frame"],
        &["blosc2 codec=lz4", "testxor 9"],
        &["testplus 1", "blosc2 clevel=0"],
    ];
    for spec in specs {
        for max_items in [0, 1, 50] {
            let (file, locs) = write_file(spec, &items, max_items, Some(&trailer));
            assert_eq!(file.len() % 32768, 0);
            assert_eq!(locs.len(), items.len());
            let mut s = scan("round trip", file.clone(), ScannerOpts::default());
            let want: Vec<String> = spec.iter().map(|s| s.to_string()).collect();
            assert_eq!(s.header().transformers().unwrap(), want);
            assert_eq!(s.header().get_all("s").count(), 2);
            assert_eq!(s.header().get("i"), Some(&Value::Int(i64::MIN)));
            assert_eq!(s.header().get("u"), Some(&Value::Uint(u64::MAX)));
            assert!(s.header().has_trailer());
            let mut n = 0;
            while let Some(item) = s.next_item().unwrap() {
                assert_eq!(item, &items[n][..], "{spec:?} item {n}");
                assert_eq!(s.last_location(), Some(locs[n]), "{spec:?} item {n}");
                n += 1;
            }
            assert_eq!(n, items.len(), "{spec:?}");
            assert_eq!(s.trailer().unwrap().as_deref(), Some(&trailer[..]), "{spec:?}");
            // Seek to a spread of indexed locations, backwards and forwards.
            for &i in &[402usize, 0, 97, 250, 1, 401, 96] {
                s.seek(locs[i]).unwrap();
                assert_eq!(s.next_item().unwrap(), Some(&items[i][..]), "{spec:?} seek {i}");
                if i + 1 < items.len() {
                    assert_eq!(
                        s.next_item().unwrap(),
                        Some(&items[i + 1][..]),
                        "{spec:?} after seek {i}"
                    );
                }
            }
            if max_items != 0 {
                continue;
            }
            // Item counts per block follow the max_items+1 rule.
            let blocks: std::collections::BTreeMap<u64, usize> = locs.iter().fold(Default::default(), |mut m, l| {
                *m.entry(l.block).or_default() += 1;
                m
            });
            assert!(blocks.values().all(|&c| c <= 97));
        }
    }
}

#[test]
fn max_items_blocks_hold_max_items_plus_one() {
    let items: Vec<Vec<u8>> = (0..7).map(|i| vec![i as u8]).collect();
    let opts = WriterOpts {
        max_items: 2,
        ..WriterOpts::default()
    };
    let mut w = Writer::new(Vec::new(), opts).unwrap();
    for i in &items {
        w.append(i).unwrap();
    }
    w.finish().unwrap();
    let mut s = scan("maxitems", w.into_inner(), ScannerOpts::default());
    let mut per_block = Vec::<(u64, usize)>::new();
    while s.next_item().unwrap().is_some() {
        let loc = s.last_location().unwrap();
        match per_block.last_mut() {
            Some((b, c)) if *b == loc.block => *c += 1,
            _ => per_block.push((loc.block, 1)),
        }
    }
    assert_eq!(per_block.iter().map(|p| p.1).collect::<Vec<_>>(), [3, 3, 1]);
}

#[test]
fn shards_partition_the_items() {
    let items: Vec<Vec<u8>> = (0..300)
        .map(|i| gen(i, if i % 50 == 0 { 70_000 } else { 300 }))
        .collect();
    for spec in [&[][..], &["zstd"]] {
        let (file, _) = write_file(spec, &items, 10, Some(b"t"));
        for nshard in 1..=9 {
            let mut all = Vec::new();
            for shard in 0..nshard {
                let mut s = Scanner::with_shard(
                    Cursor::new(file.clone()),
                    ScannerOpts::default(),
                    shard,
                    shard + 1,
                    nshard,
                )
                .unwrap();
                all.extend(s.read_all().unwrap());
                assert_eq!(s.trailer().unwrap().as_deref(), Some(&b"t"[..]));
            }
            assert_eq!(all, items, "{spec:?} nshard {nshard}");
            // A range of shards reads the same as its parts.
            if nshard >= 3 {
                let mut s =
                    Scanner::with_shard(Cursor::new(file.clone()), ScannerOpts::default(), 1, 3, nshard).unwrap();
                let mid = s.read_all().unwrap();
                let mut parts = Vec::new();
                for shard in 1..3 {
                    let mut p = Scanner::with_shard(
                        Cursor::new(file.clone()),
                        ScannerOpts::default(),
                        shard,
                        shard + 1,
                        nshard,
                    )
                    .unwrap();
                    parts.extend(p.read_all().unwrap());
                }
                assert_eq!(mid, parts);
            }
        }
        for (a, b, n) in [(1, 1, 3), (2, 1, 3), (0, 4, 3), (0, 1, 0)] {
            assert!(Scanner::with_shard(Cursor::new(file.clone()), ScannerOpts::default(), a, b, n).is_err());
        }
    }
    // Legacy files cannot be sharded.
    assert!(Scanner::with_shard(
        Cursor::new(read("legacy_packed.grail-rpk")),
        ScannerOpts::default(),
        0,
        1,
        2
    )
    .is_err());
}

#[test]
fn recovery_skips_the_corrupted_block_and_reports_it() {
    let name = "v2_basic_corrupt_F3block.rio";
    let mut s = scan(
        name,
        read(name),
        ScannerOpts {
            recover: true,
            ..ScannerOpts::default()
        },
    );
    assert_eq!(s.read_all().unwrap(), [b"F0".to_vec(), b"F1".to_vec(), b"F2".to_vec()]);
    let skipped = s.skipped();
    assert_eq!(skipped.len(), 1);
    assert_eq!((skipped[0].offset, skipped[0].length), (98304, 32768));
    assert_eq!(skipped[0].error.kind(), ErrorKind::Corrupt);
    assert_eq!(s.trailer().unwrap().as_deref(), Some(&b"Trailer2"[..]));

    // Several damaged blocks in a larger file, multi-chunk ones included.
    let items: Vec<Vec<u8>> = (0..200)
        .map(|i| gen(i, if i % 40 == 7 { 80_000 } else { 500 }))
        .collect();
    for spec in [&[][..], &["flate"], &["blosc2 codec=lz4"]] {
        let (mut file, locs) = write_file(spec, &items, 9, Some(b"trailer"));
        let blocks: Vec<u64> = {
            let mut b: Vec<u64> = locs.iter().map(|l| l.block).collect();
            b.dedup();
            b
        };
        // Damage: a payload byte of block 2, one of the second chunk of
        // the first multi-chunk block (if any), and one of block 10.
        let mut victims = vec![blocks[2] + 40, blocks[10] + 30];
        let ends: Vec<u64> = blocks
            .iter()
            .skip(1)
            .copied()
            .chain([file.len() as u64 - 32768])
            .collect();
        if let Some((b, _)) = blocks.iter().zip(&ends).find(|(b, e)| *e - *b > 32768) {
            victims.push(b + 32768 + 30);
        }
        for &v in &victims {
            file[v as usize] ^= 0x55;
        }
        let mut damaged: Vec<u64> = victims
            .iter()
            .map(|&v| *blocks.iter().filter(|&&b| b <= v).max().unwrap())
            .collect();
        damaged.sort();
        damaged.dedup();
        let mut s = scan(
            "multi",
            file.clone(),
            ScannerOpts {
                recover: true,
                ..ScannerOpts::default()
            },
        );
        let mut got = Vec::new();
        while let Some(item) = s.next_item().unwrap() {
            let item = item.to_vec();
            got.push((s.last_location().unwrap(), item));
        }
        let want: Vec<(ItemLocation, Vec<u8>)> = locs
            .iter()
            .zip(&items)
            .filter(|(l, _)| !damaged.contains(&l.block))
            .map(|(l, i)| (*l, i.clone()))
            .collect();
        let got_locs: Vec<ItemLocation> = got.iter().map(|g| g.0).collect();
        let want_locs: Vec<ItemLocation> = want.iter().map(|w| w.0).collect();
        assert_eq!(got_locs, want_locs, "{spec:?}");
        assert!(got.iter().zip(&want).all(|(g, w)| g.1 == w.1), "{spec:?}: items differ");
        let mut offsets: Vec<u64> = s.skipped().iter().map(|k| k.offset).collect();
        offsets.sort();
        assert_eq!(offsets, damaged, "{spec:?}");
        for k in s.skipped() {
            let next = k.offset + k.length;
            assert!(locs.iter().any(|l| l.block == next) || next as usize >= file.len() - 32768);
            assert!(k.error.offset().is_some());
        }
        // Without recovery the scanner stops at the first damaged block.
        let mut s = scan("multi", file, ScannerOpts::default());
        let err = loop {
            match s.next_item() {
                Ok(Some(_)) => {}
                Ok(None) => panic!("no error"),
                Err(e) => break e,
            }
        };
        let first = blocks.iter().position(|&b| b == damaged[0]).unwrap();
        let at = err.offset().unwrap();
        assert!(at >= blocks[first] && at < blocks[first + 1], "{err}");
    }
}

#[test]
fn legacy_formats_transform_seek_and_recover() {
    let name = "legacy_packed.grail-rpk";
    let mut s = scan(name, read(name), ScannerOpts::default());
    let mut locs = Vec::new();
    while s.next_item().unwrap().is_some() {
        locs.push(s.last_location().unwrap());
    }
    assert_eq!(locs.len(), 5);
    s.seek(locs[3]).unwrap();
    assert_eq!(s.next_item().unwrap(), Some(&b"quux"[..]));
    assert_eq!(s.next_item().unwrap(), Some(&b"last"[..]));
    assert_eq!(s.next_item().unwrap(), None);
    assert!(s
        .seek(ItemLocation {
            block: locs[4].block,
            item: 1
        })
        .is_err());
    assert_eq!(s.trailer().unwrap_or_default(), None);

    // `.grail-rpk-gz`: packed records whose bodies went through flate, mixed
    // with unpacked records.
    let flate = Chain::forward(&["flate".to_string()]).unwrap();
    let mut f = Vec::new();
    legacy::write_packed(&mut f, &[b"alpha", b"", b"gamma"], Some(&flate)).unwrap();
    legacy::write_unpacked(&mut f, b"plain").unwrap();
    legacy::write_packed(&mut f, &[&gen(3, 100_000)], Some(&flate)).unwrap();
    let mut s = scan("gz", f.clone(), ScannerOpts::for_path("x.grail-rpk-gz"));
    let all = s.read_all().unwrap();
    assert_eq!(
        all,
        [
            b"alpha".to_vec(),
            vec![],
            b"gamma".to_vec(),
            b"plain".to_vec(),
            gen(3, 100_000)
        ]
    );
    // Without the transform the sizes do not match the body.
    assert!(scan("gz", f.clone(), ScannerOpts::default()).read_all().is_err());

    // Recovery skips a damaged record.
    let mut bad = f.clone();
    bad[10] ^= 0xff;
    let mut s = scan(
        "gz",
        bad,
        ScannerOpts {
            recover: true,
            ..ScannerOpts::for_path("x.grail-rpk-gz")
        },
    );
    assert_eq!(s.read_all().unwrap(), [b"plain".to_vec(), gen(3, 100_000)]);
    assert_eq!(s.skipped().len(), 1);
    assert_eq!(s.skipped()[0].offset, 0);
}

#[test]
fn empty_and_tiny_files() {
    let mut s = scan("empty", Vec::new(), ScannerOpts::default());
    assert_eq!(s.format(), Format::Legacy);
    assert_eq!(s.next_item().unwrap(), None);
    for n in 1..8 {
        assert!(Scanner::new(Cursor::new(vec![0u8; n]), ScannerOpts::default()).is_err());
    }
    // Seeking to the trailer block is the end of the items.
    let (file, _) = write_file(&[], &[b"x".to_vec()], 0, Some(b"T"));
    let mut s = scan("t", file.clone(), ScannerOpts::default());
    s.seek(ItemLocation {
        block: file.len() as u64 - 32768,
        item: 0,
    })
    .unwrap();
    assert_eq!(s.next_item().unwrap(), None);
    assert_eq!(
        s.seek(ItemLocation { block: 32768, item: 1 }).unwrap_err().kind(),
        ErrorKind::InvalidArgument
    );
    s.seek(ItemLocation { block: 32768, item: 0 }).unwrap();
    assert_eq!(s.next_item().unwrap(), Some(&b"x"[..]));
}

#[test]
fn skip_header_continues_a_file() {
    let mut w = Writer::new(Vec::new(), WriterOpts::default()).unwrap();
    w.append(b"one").unwrap();
    w.finish().unwrap();
    let mut file = w.into_inner();
    let base = file.len() as u64;
    let locs = Arc::new(Mutex::new(Vec::new()));
    let l2 = locs.clone();
    let mut w = Writer::new(
        Vec::new(),
        WriterOpts {
            skip_header: true,
            index: Some(Box::new(move |loc, _| {
                l2.lock().unwrap().push(loc);
                Ok(())
            })),
            ..WriterOpts::default()
        },
    )
    .unwrap();
    w.append(b"two").unwrap();
    w.finish().unwrap();
    file.extend(w.into_inner());
    assert_eq!(locs.lock().unwrap()[0].block, 0, "offsets are relative to the writer");
    let mut s = scan("cont", file, ScannerOpts::default());
    assert_eq!(s.read_all().unwrap(), [b"one".to_vec(), b"two".to_vec()]);
    s.seek(ItemLocation { block: base, item: 0 }).unwrap();
    assert_eq!(s.next_item().unwrap(), Some(&b"two"[..]));
}

#[test]
fn transformer_errors() {
    // A file naming an unregistered transformer fails at open.
    let mut w = Writer::new(
        Vec::new(),
        WriterOpts {
            transformers: vec!["zstd".into()],
            ..WriterOpts::default()
        },
    )
    .unwrap();
    w.append(b"x").unwrap();
    w.finish().unwrap();
    let mut file = w.into_inner();
    // Rename the transformer in the header to "zsxd" (same length), fixing the CRC.
    let pos = file.windows(4).position(|w| w == b"zstd").unwrap();
    file[pos + 2] = b'x';
    let size = u32::from_le_bytes(file[16..20].try_into().unwrap()) as usize;
    let crc = recordio::crc::checksum(&file[12..28 + size]);
    file[8..12].copy_from_slice(&crc.to_le_bytes());
    let e = Scanner::new(Cursor::new(file), ScannerOpts::default()).err().unwrap();
    assert_eq!(e.kind(), ErrorKind::NotFound);
    assert!(e.to_string().contains("zsxd"), "{e}");
    for bad in [
        "flate x",
        "flate 12",
        "zstd 1.5",
        "blosc2 codec=nope",
        "blosc2 clevel=12",
    ] {
        let r = Writer::new(
            Vec::new(),
            WriterOpts {
                transformers: vec![bad.into()],
                ..WriterOpts::default()
            },
        );
        assert!(r.is_err(), "{bad}");
    }
    // A user transformer that fails stops the writer.
    recordio::register_transformer(
        "failing",
        Arc::new(|_: &str| {
            Ok(
                Arc::new(|_: &[&[u8]]| Err(recordio::Error::new(ErrorKind::Transform, "boom")))
                    as recordio::TransformFn,
            )
        }),
        Arc::new(|_: &str| Ok(Arc::new(|i: &[&[u8]]| Ok(i.concat())) as recordio::TransformFn)),
    )
    .unwrap();
    let mut w = Writer::new(
        Vec::new(),
        WriterOpts {
            transformers: vec!["failing".into()],
            ..WriterOpts::default()
        },
    )
    .unwrap();
    w.append(b"x").unwrap();
    let e = w.flush().unwrap_err();
    assert_eq!(e.kind(), ErrorKind::Transform);
    assert!(w.finish().is_err());
    recordio::unregister_transformer("failing").unwrap();
    assert!(recordio::unregister_transformer("failing").is_err());
    let _ = chunk::CHUNK_SIZE;
}
