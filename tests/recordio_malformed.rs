//! RecordIO scanner robustness: truncated files, bad CRCs, bad varints,
//! lengths beyond the block, and a deterministic mutation fuzzer over
//! every test vector. Every case must give an error (or items), never a
//! panic or a hang.

mod recordio_common;

use std::io::Cursor;

use blosc2::recordio::chunk::{write_block, CHUNK_SIZE, MAGIC_HEADER, MAGIC_PACKED, MAGIC_TRAILER};
use blosc2::recordio::varint::put_uvarint;
use blosc2::recordio::{ErrorKind, Header, ItemLocation, Scanner, ScannerOpts, Writer, WriterOpts};
use recordio_common::*;

/// A v2 file with the default header and the given raw body payloads.
fn file_with_bodies(bodies: &[&[u8]], trailer: Option<&[u8]>) -> Vec<u8> {
    let mut h = Header::default();
    if trailer.is_some() {
        h.push("trailer", true);
    }
    let item = h.encode();
    let mut block = Vec::new();
    put_uvarint(&mut block, 1);
    put_uvarint(&mut block, item.len() as u64);
    block.extend_from_slice(&item);
    let mut f = Vec::new();
    write_block(&mut f, &MAGIC_HEADER, &block).unwrap();
    for b in bodies {
        write_block(&mut f, &MAGIC_PACKED, b).unwrap();
    }
    if let Some(t) = trailer {
        write_block(&mut f, &MAGIC_TRAILER, t).unwrap();
    }
    f
}

/// Every item, or the first error.
fn scan_all(data: &[u8], opts: ScannerOpts) -> Result<Vec<Vec<u8>>, blosc2::recordio::Error> {
    let mut s = Scanner::new(Cursor::new(data.to_vec()), opts)?;
    s.read_all()
}

#[test]
fn bad_block_contents_are_errors() {
    let cases: &[(&str, &[u8])] = &[
        ("empty block", &[]),
        ("count varint cut", &[0x80]),
        (
            "count overflows",
            &[0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x7f],
        ),
        ("more items than bytes", &[0x05, 0x00]),
        ("size varint cut", &[0x02, 0x01, 0x80]),
        ("length beyond the block", &[0x01, 0x05, b'a']),
        ("lengths sum beyond the block", &[0x02, 0x02, 0x02, b'a', b'b', b'c']),
        ("bytes left over", &[0x01, 0x01, b'a', b'b']),
        (
            "huge length",
            &[0x01, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x7f, b'a'],
        ),
        (
            "overflowing sum",
            &[
                0x02, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01, 0x02, 0xaa,
            ],
        ),
    ];
    for (what, body) in cases {
        let f = file_with_bodies(&[b"\x01\x01x", body], None);
        let e = scan_all(&f, ScannerOpts::default()).unwrap_err();
        assert_eq!(e.kind(), ErrorKind::Malformed, "{what}: {e}");
        assert_eq!(e.offset(), Some(2 * CHUNK_SIZE as u64), "{what}: {e}");
        // Recovery skips the bad block and keeps the good one.
        let mut s = Scanner::new(
            Cursor::new(f),
            ScannerOpts {
                recover: true,
                ..ScannerOpts::default()
            },
        )
        .unwrap();
        assert_eq!(s.read_all().unwrap(), [b"x".to_vec()], "{what}");
        assert_eq!(s.skipped().len(), 1, "{what}");
    }
    // A zero-item block is valid and yields nothing.
    let f = file_with_bodies(&[&[0x00], b"\x01\x01y"], None);
    assert_eq!(scan_all(&f, ScannerOpts::default()).unwrap(), [b"y".to_vec()]);
}

#[test]
fn bad_headers_and_trailers_are_errors() {
    // Header block with two items, with a bad header item, a body first.
    let mut f = Vec::new();
    write_block(&mut f, &MAGIC_HEADER, &[0x02, 0x00, 0x00]).unwrap();
    assert_eq!(
        scan_all(&f, ScannerOpts::default()).unwrap_err().kind(),
        ErrorKind::Malformed
    );
    let mut f = Vec::new();
    write_block(&mut f, &MAGIC_HEADER, &[0x01, 0x02, 0x07, 0x00]).unwrap();
    assert_eq!(
        scan_all(&f, ScannerOpts::default()).unwrap_err().kind(),
        ErrorKind::Malformed
    );
    let mut f = Vec::new();
    write_block(&mut f, &MAGIC_HEADER, &[0x01, 0x02, 0x03, 0x00]).unwrap();
    write_block(&mut f, &MAGIC_HEADER, &[0x01, 0x02, 0x03, 0x00]).unwrap();
    assert!(
        scan_all(&f, ScannerOpts::default()).is_err(),
        "header block in the body"
    );
    // Trailer with two items, and a file whose last chunk is not a trailer.
    let f = file_with_bodies(&[b"\x01\x01x"], Some(&[0x02, 0x00, 0x00]));
    let mut s = Scanner::new(Cursor::new(f), ScannerOpts::default()).unwrap();
    assert_eq!(s.trailer().unwrap_err().kind(), ErrorKind::Malformed);
    let mut f = file_with_bodies(&[b"\x01\x01x"], Some(&[0x01, 0x01, b'T']));
    f.truncate(f.len() - CHUNK_SIZE);
    let mut s = Scanner::new(Cursor::new(f), ScannerOpts::default()).unwrap();
    assert!(s.trailer().is_err());
    assert_eq!(s.read_all().unwrap(), [b"x".to_vec()]);
    // A multi-chunk trailer whose index points before the file start.
    let mut f = file_with_bodies(&[], Some(&[0x01, 0x01, b'T']));
    let last = f.len() - CHUNK_SIZE;
    f[last + 24..last + 28].copy_from_slice(&9u32.to_le_bytes());
    f[last + 20..last + 24].copy_from_slice(&10u32.to_le_bytes());
    let crc = blosc2::recordio::crc::checksum(&f[last + 12..last + 28 + 3]);
    f[last + 8..last + 12].copy_from_slice(&crc.to_le_bytes());
    let mut s = Scanner::new(Cursor::new(f), ScannerOpts::default()).unwrap();
    assert!(s.trailer().is_err());
}

#[test]
fn chunk_header_damage_is_reported_with_its_offset() {
    let big = vec![7u8; 80_000];
    let mut block = vec![0x01];
    put_uvarint(&mut block, big.len() as u64);
    block.extend_from_slice(&big);
    let good = file_with_bodies(&[&block], Some(&[0x01, 0x01, b'T']));
    // (field offset in the chunk, new value, expected kind)
    let second = CHUNK_SIZE * 2;
    for (at, value, fix_crc, kind) in [
        (second + 16, 40_000u32, false, ErrorKind::Corrupt), // size > 32740
        (second + 24, 2, true, ErrorKind::Corrupt),          // index jumps
        (second + 20, 4, true, ErrorKind::Corrupt),          // total changes
        (second, 0x1234_5678, true, ErrorKind::Corrupt),     // magic changes
        (second + 8, 0, false, ErrorKind::Corrupt),          // crc
    ] {
        let mut f = good.clone();
        f[at..at + 4].copy_from_slice(&value.to_le_bytes());
        if fix_crc {
            let size = u32::from_le_bytes(f[second + 16..second + 20].try_into().unwrap()) as usize;
            let crc = blosc2::recordio::crc::checksum(&f[second + 12..second + 28 + size]);
            f[second + 8..second + 12].copy_from_slice(&crc.to_le_bytes());
        }
        let e = scan_all(&f, ScannerOpts::default()).unwrap_err();
        assert_eq!(e.kind(), kind, "{at}: {e}");
        assert_eq!(e.offset(), Some(second as u64), "{at}: {e}");
        let mut s = Scanner::new(
            Cursor::new(f),
            ScannerOpts {
                recover: true,
                ..ScannerOpts::default()
            },
        )
        .unwrap();
        assert!(s.read_all().unwrap().is_empty());
        assert_eq!(s.skipped()[0].offset, CHUNK_SIZE as u64);
        assert_eq!(s.trailer().unwrap().as_deref(), Some(&b"T"[..]));
    }
}

#[test]
fn truncations_are_errors_or_clean_ends() {
    for e in manifest() {
        let name = e["file"].as_str().unwrap();
        let data = read(name);
        let opts = ScannerOpts::for_path(name);
        let mut cuts: Vec<usize> = (0..data.len()).step_by(4093).collect();
        cuts.extend((0..=data.len() / CHUNK_SIZE).map(|i| i * CHUNK_SIZE));
        cuts.extend([1, 7, 8, 19, 20, 21, 27, 28, 29]);
        for cut in cuts.into_iter().filter(|&c| c < data.len()) {
            let r = Scanner::new(Cursor::new(data[..cut].to_vec()), opts.clone()).and_then(|mut s| {
                let items = s.read_all()?;
                let _ = s.trailer();
                Ok(items)
            });
            if cut % CHUNK_SIZE != 0 && name.starts_with("v2") {
                assert!(r.is_err(), "{name} cut at {cut} reads");
            }
            if let Err(err) = r {
                assert!(err.offset().is_some() || cut < 8, "{name} cut {cut}: {err}");
            }
        }
    }
}

/// xorshift64*: a deterministic pseudo-random sequence.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }

    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
}

fn mutate(rng: &mut Rng, data: &[u8]) -> Vec<u8> {
    let mut d = data.to_vec();
    let n = 1 + rng.below(4);
    for _ in 0..n {
        if d.is_empty() {
            break;
        }
        match rng.below(8) {
            // A bit flip anywhere.
            0 | 1 => {
                let i = rng.below(d.len());
                d[i] ^= 1 << rng.below(8);
            }
            // A bit flip in a chunk or record header.
            2 => {
                let base = rng.below(d.len().div_ceil(CHUNK_SIZE)) * CHUNK_SIZE;
                let i = (base + rng.below(32)).min(d.len() - 1);
                d[i] ^= 1 << rng.below(8);
            }
            // A bit flip in the first bytes of a payload (varints, codec headers).
            3 => {
                let base = rng.below(d.len().div_ceil(CHUNK_SIZE)) * CHUNK_SIZE + 28;
                let i = (base + rng.below(40)).min(d.len() - 1);
                d[i] ^= 1 << rng.below(8);
            }
            // A random byte.
            4 => {
                let i = rng.below(d.len());
                d[i] = rng.next() as u8;
            }
            // Truncation.
            5 => {
                let keep = rng.below(d.len());
                d.truncate(keep);
            }
            // Extra bytes at the end.
            6 => {
                for _ in 0..rng.below(100) {
                    d.push(rng.next() as u8);
                }
            }
            // A copy of one chunk over another.
            _ => {
                let chunks = d.len() / CHUNK_SIZE;
                if chunks >= 2 {
                    let a = rng.below(chunks) * CHUNK_SIZE;
                    let b = rng.below(chunks) * CHUNK_SIZE;
                    let src = d[a..a + CHUNK_SIZE].to_vec();
                    d[b..b + CHUNK_SIZE].copy_from_slice(&src);
                }
            }
        }
    }
    d
}

/// Exercise a (possibly damaged) file every way the scanner offers.
fn exercise(data: &[u8], opts: &ScannerOpts, rng: &mut Rng) {
    let Ok(mut s) = Scanner::new(Cursor::new(data.to_vec()), opts.clone()) else {
        return;
    };
    let mut locs = Vec::new();
    let mut n = 0;
    loop {
        match s.next_item() {
            Ok(Some(_)) => {
                locs.push(s.last_location().unwrap());
                n += 1;
                assert!(n < 10_000_000, "runaway scan");
            }
            Ok(None) => break,
            Err(e) => {
                assert!(!opts.recover || e.kind() == ErrorKind::Io, "recovery stopped: {e}");
                break;
            }
        }
    }
    let _ = s.trailer();
    for _ in 0..3 {
        let loc = if !locs.is_empty() && rng.below(2) == 0 {
            locs[rng.below(locs.len())]
        } else {
            ItemLocation {
                block: (rng.below(data.len() + 1) as u64) & !(rng.below(2) as u64 * 0x7fff),
                item: rng.below(4),
            }
        };
        if s.seek(loc).is_ok() {
            let _ = s.next_item();
        }
    }
    if s.header().get("trailer").is_some() || data.len() > CHUNK_SIZE {
        for nshard in [2, 3] {
            for shard in 0..nshard {
                if let Ok(mut sh) =
                    Scanner::with_shard(Cursor::new(data.to_vec()), opts.clone(), shard, shard + 1, nshard)
                {
                    let _ = sh.read_all();
                }
            }
        }
    }
}

#[test]
fn mutation_fuzz_over_every_vector_never_panics() {
    register_test_transformers();
    // RECORDIO_FUZZ_ROUNDS and RECORDIO_FUZZ_SEED run it longer or elsewhere.
    let env = |k: &str| std::env::var(k).ok().and_then(|v| v.parse::<u64>().ok());
    let mut rng = Rng(env("RECORDIO_FUZZ_SEED").unwrap_or(0x9E37_79B9_7F4A_7C15) | 1);
    let mut corpus: Vec<(String, Vec<u8>)> = manifest()
        .iter()
        .map(|e| {
            let name = e["file"].as_str().unwrap().to_owned();
            let data = read(&name);
            (name, data)
        })
        .collect();
    // Files written here with the blosc2 transformer too.
    for spec in ["blosc2 codec=lz4,typesize=4", "blosc2 format=frame,chunksize=4096"] {
        let mut w = Writer::new(
            Vec::new(),
            WriterOpts {
                transformers: vec![spec.into()],
                key_trailer: true,
                max_items: 20,
                ..WriterOpts::default()
            },
        )
        .unwrap();
        for i in 0..60 {
            w.append(&gen(i, 500 + i * 30)).unwrap();
        }
        w.set_trailer(b"trailer").unwrap();
        w.finish().unwrap();
        corpus.push((spec.to_owned(), w.into_inner()));
    }
    let rounds = env("RECORDIO_FUZZ_ROUNDS").unwrap_or(400);
    for (name, data) in &corpus {
        let base = ScannerOpts::for_path(name);
        for _ in 0..rounds {
            let m = mutate(&mut rng, data);
            exercise(&m, &base, &mut rng);
            exercise(
                &m,
                &ScannerOpts {
                    recover: true,
                    ..base.clone()
                },
                &mut rng,
            );
        }
    }
}
