//! Building and editing super-chunks on every storage (chunk list,
//! in-memory frame, file frame, sparse directory), checked against a plain
//! model after every operation and after reopening.

mod frames_common;

use blosc2::engine::chunk::SpecialKind;
use blosc2::engine::params::CParams;
use blosc2::engine::schunk::{SChunk, Storage};
use blosc2::Error;
use frames_common::*;

fn cparams(typesize: i32) -> CParams {
    CParams {
        compcode: 5,
        clevel: 5,
        typesize,
        filters: [0, 0, 0, 0, 0, 1],
        ..CParams::default()
    }
}

/// Test data: compressible, different for every `k`.
fn buf(k: usize, len: usize) -> Vec<u8> {
    (0..len).map(|i| ((i / 7 + k * 31) % 251) as u8).collect()
}

fn contents(s: &mut SChunk) -> Vec<Vec<u8>> {
    (0..s.nchunks()).map(|i| s.decompress_chunk_vec(i).unwrap()).collect()
}

/// The four storages, as (name, storage) for a scratch directory.
fn storages(dir: &std::path::Path, ts: i32) -> Vec<(&'static str, Storage)> {
    let p = |n: &str| Some(dir.join(n).to_str().unwrap().to_string());
    let mk = |contiguous, urlpath| Storage {
        contiguous,
        urlpath,
        cparams: cparams(ts),
        ..Storage::default()
    };
    vec![
        ("chunks", mk(false, None)),
        ("memory", mk(true, None)),
        ("file", mk(true, p("f.b2frame"))),
        ("sparse", mk(false, p("s.b2frame"))),
    ]
}

/// Reopen a super-chunk the way its storage allows and compare.
fn check(s: &mut SChunk, model: &[Vec<u8>], what: &str) {
    assert_eq!(contents(s), model, "{what}: live");
    assert_eq!(
        s.nbytes(),
        model.iter().map(|c| c.len() as i64).sum::<i64>(),
        "{what}: nbytes"
    );
    if let Some(p) = s.urlpath().map(str::to_string) {
        let mut r = SChunk::open(&p, 0).unwrap_or_else(|e| panic!("{what}: reopen: {e}"));
        assert_eq!(contents(&mut r), model, "{what}: reopened");
        assert_eq!(r.vlmeta_names(), s.vlmeta_names(), "{what}: vlmeta names");
    }
    let cf = s.to_cframe().unwrap();
    if let Some(r) = s.cframe_ref().unwrap() {
        assert_eq!(r, &cf[..], "{what}: cframe_ref");
    }
    let mut r = SChunk::from_cframe(cf, false).unwrap();
    assert_eq!(contents(&mut r), model, "{what}: via cframe");
}

#[test]
fn edits_on_every_storage() {
    let dir = scratch("edits");
    for (name, st) in storages(&dir, 4) {
        let mut s = SChunk::new(st).unwrap();
        s.meta_add("m1", b"abcdef").unwrap();
        let mut model: Vec<Vec<u8>> = Vec::new();
        for k in 0..5 {
            let b = buf(k, 4000);
            assert_eq!(s.append_buffer(&b).unwrap(), k as i64 + 1);
            model.push(b);
        }
        check(&mut s, &model, name);
        assert!(matches!(s.meta_add("late", b"x"), Err(Error::InvalidParam(_))) || name == "chunks");
        let c = s.compress_buffer_for_test(&buf(10, 4000));
        s.insert_chunk(2, &c).unwrap();
        model.insert(2, buf(10, 4000));
        check(&mut s, &model, name);
        let c = s.compress_buffer_for_test(&buf(11, 4000));
        s.update_chunk(0, &c).unwrap();
        model[0] = buf(11, 4000);
        check(&mut s, &model, name);
        s.delete_chunk(4).unwrap();
        model.remove(4);
        check(&mut s, &model, name);
        s.reorder_offsets(&[4, 0, 3, 1, 2]).unwrap();
        model = [4, 0, 3, 1, 2].iter().map(|&k| model[k].clone()).collect();
        check(&mut s, &model, name);
        // Specials: zeros stored as a special offset, then a regular chunk again.
        let mut z = vec![0u8; 64];
        let n = blosc2::engine::chunk::make_special(&cparams(4), 4000, Some(SpecialKind::Zeros), None, &mut z).unwrap();
        s.update_chunk(1, &z[..n]).unwrap();
        model[1] = vec![0; 4000];
        check(&mut s, &model, name);
        let c = s.compress_buffer_for_test(&buf(12, 4000));
        s.update_chunk(1, &c).unwrap();
        model[1] = buf(12, 4000);
        check(&mut s, &model, name);
        // Metalayers and vlmetalayers.
        s.meta_update("m1", b"ABC").unwrap();
        assert_eq!(s.meta_get("m1").unwrap(), b"ABCdef");
        assert!(s.meta_update("m1", b"toolong!").is_err());
        s.vlmeta_add("v1", b"hello", None).unwrap();
        s.vlmeta_add("v2", &buf(3, 1000), Some(&cparams(1))).unwrap();
        s.vlmeta_update("v1", b"hello again, longer", None).unwrap();
        check(&mut s, &model, name);
        assert_eq!(s.vlmeta_get("v1").unwrap(), b"hello again, longer");
        assert_eq!(s.vlmeta_delete("v2").unwrap(), 1);
        assert_eq!(s.vlmeta_names(), vec!["v1".to_string()]);
        check(&mut s, &model, name);
        if let Some(p) = s.urlpath().map(str::to_string) {
            let r = SChunk::open(&p, 0).unwrap();
            assert_eq!(r.meta_get("m1").unwrap(), b"ABCdef");
            assert_eq!(r.vlmeta_get("v1").unwrap(), b"hello again, longer");
        }
        // Delete everything.
        while s.nchunks() > 0 {
            s.delete_chunk(0).unwrap();
            model.remove(0);
            check(&mut s, &model, name);
        }
        s.append_buffer(&buf(20, 4000)).unwrap();
        model.push(buf(20, 4000));
        check(&mut s, &model, name);
    }
}

/// Chunks of different sizes, empty chunks and a short last chunk whose
/// size is not a multiple of the typesize all round-trip (3.3.5 fails on
/// the last two: known bugs 2 and 6).
#[test]
fn odd_sizes_round_trip() {
    let dir = scratch("odd");
    for (name, st) in storages(&dir, 4) {
        let mut s = SChunk::new(st).unwrap();
        let mut model = Vec::new();
        for len in [40000usize, 40000, 27655] {
            s.append_buffer(&buf(len, len)).unwrap();
            model.push(buf(len, len));
        }
        assert_eq!(s.chunksize(), 40000, "{name}");
        check(&mut s, &model, name);
        s.append_buffer(&[]).unwrap();
        model.push(Vec::new());
        assert_eq!(s.chunksize(), 0, "{name}: an empty chunk makes sizes variable");
        check(&mut s, &model, name);
        for len in [5usize, 0, 100_003, 1] {
            s.append_buffer(&buf(len, len)).unwrap();
            model.push(buf(len, len));
        }
        check(&mut s, &model, name);
    }
    let mut only_empty = SChunk::new(Storage {
        contiguous: true,
        cparams: cparams(8),
        ..Storage::default()
    })
    .unwrap();
    only_empty.append_buffer(&[]).unwrap();
    let mut r = SChunk::from_cframe(only_empty.to_cframe().unwrap(), false).unwrap();
    assert_eq!(r.nchunks(), 1);
    assert_eq!(contents(&mut r), vec![Vec::<u8>::new()]);
}

/// Moving a short last (special) chunk makes the sizes variable, so every
/// chunk keeps its size.
#[test]
fn reorder_short_special_last_chunk() {
    let dir = scratch("reorder_short");
    for (name, st) in storages(&dir, 8) {
        let mut s = SChunk::new(st).unwrap();
        s.fill_special(250, SpecialKind::Zeros, 800).unwrap();
        assert_eq!(s.nchunks(), 3);
        s.reorder_offsets(&[2, 0, 1]).unwrap();
        assert_eq!(s.chunksize(), 0, "{name}");
        let model = vec![vec![0u8; 400], vec![0u8; 800], vec![0u8; 800]];
        check(&mut s, &model, name);
    }
}

#[test]
fn fill_special_on_every_storage() {
    let dir = scratch("fill");
    for kind in [SpecialKind::Zeros, SpecialKind::Nans, SpecialKind::Uninit] {
        let sub = dir.join(format!("{kind:?}"));
        std::fs::create_dir_all(&sub).unwrap();
        for (name, st) in storages(&sub, 8) {
            let mut s = SChunk::new(st).unwrap();
            assert_eq!(s.fill_special(1001, kind, 800).unwrap(), 11, "{name}");
            assert_eq!(s.nbytes(), 8008);
            let item: [u8; 8] = match kind {
                SpecialKind::Nans => f64::NAN.to_le_bytes(),
                _ => [0; 8],
            };
            let mut model: Vec<Vec<u8>> = (0..11).map(|i| item.repeat(if i == 10 { 1 } else { 100 })).collect();
            if kind != SpecialKind::Uninit {
                check(&mut s, &model, name);
            }
            assert!(
                s.fill_special(10, kind, 800).is_err(),
                "{name}: only on empty super-chunks"
            );
            // Editing a special frame.
            s.update_chunk(3, &s.compress_buffer_for_test(&buf(1, 800))).unwrap();
            model[3] = buf(1, 800);
            if kind != SpecialKind::Uninit {
                check(&mut s, &model, name);
            } else {
                assert_eq!(s.decompress_chunk_vec(3).unwrap(), model[3]);
            }
        }
    }
}

#[test]
fn slices_on_every_storage() {
    let dir = scratch("slices");
    for (name, st) in storages(&dir, 2) {
        let mut s = SChunk::new(st).unwrap();
        let mut flat = Vec::new();
        for (k, len) in [6000usize, 6000, 6000, 2000].iter().enumerate() {
            s.append_buffer(&buf(k, *len)).unwrap();
            flat.extend(buf(k, *len));
        }
        let nitems = flat.len() as i64 / 2;
        for (a, b) in [
            (0, nitems),
            (1, 2),
            (2999, 3001),
            (100, 9000),
            (nitems - 1, nitems),
            (5, 5),
        ] {
            let mut out = vec![0u8; ((b - a) * 2) as usize];
            s.get_slice_buffer(a, b, &mut out).unwrap();
            assert_eq!(out, flat[(a * 2) as usize..(b * 2) as usize], "{name}: slice {a}..{b}");
        }
        assert!(s
            .get_slice_buffer(0, nitems + 1, &mut vec![0u8; flat.len() + 2])
            .is_err());
        assert_eq!(s.get_slice_nchunks(2999, 3001).unwrap(), vec![0, 1]);
        assert_eq!(s.get_slice_nchunks(0, nitems).unwrap(), vec![0, 1, 2, 3]);
        let patch: Vec<u8> = (0..5000u32).map(|i| (i * 7) as u8).collect();
        s.set_slice_buffer(1000, 3500, &patch).unwrap();
        flat[2000..7000].copy_from_slice(&patch);
        let mut all = vec![0u8; flat.len()];
        s.get_slice_buffer(0, nitems, &mut all).unwrap();
        assert_eq!(all, flat, "{name}: after set_slice_buffer");
        let coords = [0i64, 9_998, 3, 3, 9_999, 4_321];
        let mut got = vec![0u8; coords.len() * 2];
        s.get_sparse_buffer(&coords, &mut got).unwrap();
        let want: Vec<u8> = coords
            .iter()
            .flat_map(|&c| flat[c as usize * 2..c as usize * 2 + 2].to_vec())
            .collect();
        assert_eq!(got, want, "{name}: sparse");
        assert!(s.get_sparse_buffer(&[nitems], &mut [0u8; 2]).is_err());
    }
}

#[test]
fn files_offsets_and_copies() {
    let dir = scratch("files");
    let mut s = SChunk::new(Storage {
        contiguous: true,
        cparams: cparams(4),
        ..Storage::default()
    })
    .unwrap();
    let model: Vec<Vec<u8>> = (0..3).map(|k| buf(k, 3000)).collect();
    for b in &model {
        s.append_buffer(b).unwrap();
    }
    s.vlmeta_add("x", b"y", None).unwrap();
    let f = dir.join("multi.bin");
    let fp = f.to_str().unwrap();
    std::fs::write(&f, b"some prefix").unwrap();
    let o1 = s.append_file(fp).unwrap();
    let o2 = s.append_file(fp).unwrap();
    assert_eq!(o1, 11);
    assert_eq!(o2, 11 + s.frame_len());
    for o in [o1, o2] {
        let mut r = SChunk::open(fp, o).unwrap();
        assert_eq!(contents(&mut r), model);
        assert_eq!(r.vlmeta_get("x").unwrap(), b"y");
    }
    // Editing the second frame, inside the file, keeps the first intact.
    let mut r = SChunk::open(fp, o2).unwrap();
    r.append_buffer(&buf(9, 3000)).unwrap();
    let mut m2 = model.clone();
    m2.push(buf(9, 3000));
    assert_eq!(contents(&mut SChunk::open(fp, o2).unwrap()), m2);
    assert_eq!(contents(&mut SChunk::open(fp, o1).unwrap()), model);
    // The first frame cannot grow without overwriting the second.
    let mut first = SChunk::open(fp, o1).unwrap();
    assert!(first.append_buffer(&buf(9, 3000)).is_err());
    assert!(first.compact().is_err());
    assert_eq!(contents(&mut SChunk::open(fp, o1).unwrap()), model);
    assert_eq!(contents(&mut SChunk::open(fp, o2).unwrap()), m2);
    assert!(SChunk::open(fp, o2 + 1).is_err());
    assert!(SChunk::open(fp, -1).is_err());
    // to_file and copies between storages.
    let t = dir.join("copy.b2frame");
    let len = s.to_file(t.to_str().unwrap()).unwrap();
    assert_eq!(len as u64, std::fs::metadata(&t).unwrap().len());
    let mut c = s
        .copy(Storage {
            contiguous: false,
            cparams: cparams(4),
            ..Storage::default()
        })
        .unwrap();
    assert_eq!(contents(&mut c), model);
    let mut c2 = s
        .copy(Storage {
            contiguous: true,
            cparams: CParams {
                compcode: 1,
                ..cparams(4)
            },
            ..Storage::default()
        })
        .unwrap();
    assert_eq!(contents(&mut c2), model);
    assert_eq!(c2.get_chunk(0).unwrap()[2] >> 5, 1, "recompressed with lz4");
    assert!(SChunk::new(Storage {
        contiguous: true,
        urlpath: Some(t.to_str().unwrap().into()),
        ..Storage::default()
    })
    .is_err());
    blosc2::engine::schunk::remove_urlpath(t.to_str().unwrap()).unwrap();
    assert!(!t.exists());
}

/// Reading a few items of a big chunk on disk reads only the blocks that
/// hold them, and the lazy chunk locates every block.
#[test]
fn lazy_reads_on_disk() {
    let dir = scratch("lazy");
    for contiguous in [true, false] {
        let p = dir.join(if contiguous { "c.b2frame" } else { "s.b2frame" });
        let cp = CParams {
            blocksize: 16384,
            ..cparams(4)
        };
        let st = Storage {
            contiguous,
            urlpath: Some(p.to_str().unwrap().into()),
            cparams: cp,
            ..Storage::default()
        };
        let mut s = SChunk::new(st).unwrap();
        let data: Vec<u8> = (0..1_000_000u32)
            .flat_map(|i| (i.wrapping_mul(2654435761) >> 7).to_le_bytes())
            .collect();
        s.append_buffer(&data).unwrap();
        let lazy = s.get_lazychunk(0).unwrap().into_owned();
        assert_eq!(lazy[31] & 0x08, 0x08, "lazy flag");
        assert_eq!(
            s.resolve_lazychunk(&lazy).unwrap(),
            s.get_chunk(0).unwrap().into_owned()
        );
        let mut out = vec![0u8; 40];
        s.get_slice_buffer(500_000, 500_010, &mut out).unwrap();
        assert_eq!(out, data[2_000_000..2_000_040]);
    }
}

/// Compress with the super-chunk's parameters.
trait CompressForTest {
    fn compress_buffer_for_test(&self, src: &[u8]) -> Vec<u8>;
}

impl CompressForTest for SChunk {
    fn compress_buffer_for_test(&self, src: &[u8]) -> Vec<u8> {
        blosc2::engine::context::compress_vec(&self.cparams(), src).unwrap()
    }
}

/// Another handle's edits become visible after `refresh`; updates leave
/// no dead bytes (as 3.3.5), deleted chunks do until `compact` reclaims
/// them, automatically once they dominate.
#[test]
fn refresh_and_compaction() {
    let dir = scratch("refresh");
    let p = dir.join("r.b2frame");
    let ps = p.to_str().unwrap().to_string();
    let st = Storage {
        contiguous: true,
        urlpath: Some(ps.clone()),
        cparams: cparams(4),
        ..Storage::default()
    };
    let mut a = SChunk::new(st).unwrap();
    a.append_buffer(&buf(0, 4000)).unwrap();
    let mut b = SChunk::open(&ps, 0).unwrap();
    a.append_buffer(&buf(1, 4000)).unwrap();
    assert_eq!(b.nchunks(), 1);
    b.refresh().unwrap();
    assert_eq!(b.nchunks(), 2);
    assert_eq!(contents(&mut b), vec![buf(0, 4000), buf(1, 4000)]);
    let mut model = contents(&mut a);
    let live_size = std::fs::metadata(&p).unwrap().len();
    for k in 0..300 {
        a.update_chunk(1, &a.compress_buffer_for_test(&buf(k + 2, 4000)))
            .unwrap();
        model[1] = buf(k + 2, 4000);
    }
    let updated = std::fs::metadata(&p).unwrap().len();
    assert_eq!(updated as i64, a.frame_len());
    assert!(
        updated < live_size + 200,
        "{updated} vs {live_size}: updates left dead bytes"
    );
    check(&mut a, &model, "updated");
    // A deleted chunk stays as dead bytes (as in 3.3.5) until compaction.
    a.append_buffer(&buf(500, 4000)).unwrap();
    let grown = std::fs::metadata(&p).unwrap().len();
    a.delete_chunk(2).unwrap();
    assert!(std::fs::metadata(&p).unwrap().len() + 100 > grown);
    a.compact().unwrap();
    let compacted = std::fs::metadata(&p).unwrap().len();
    assert!(compacted < grown - 100, "{compacted} vs {grown}");
    assert_eq!(compacted as i64, a.frame_len());
    check(&mut a, &model, "compacted");
    // Many appends and deletes of incompressible chunks: the automatic
    // compaction keeps the dead bytes bounded.
    let noise = |k: u64| -> Vec<u8> {
        let mut x = k.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1;
        (0..4000)
            .map(|_| {
                x ^= x << 13;
                x ^= x >> 7;
                x ^= x << 17;
                x as u8
            })
            .collect()
    };
    for k in 0..700 {
        a.update_chunk(0, &a.compress_buffer_for_test(&noise(k))).unwrap();
        model[0] = noise(k);
        a.append_buffer(&noise(k + 1000)).unwrap();
        a.delete_chunk(2).unwrap();
    }
    let size = std::fs::metadata(&p).unwrap().len();
    assert!(size < 2 << 20, "file grew to {size} bytes");
    check(&mut a, &model, "after many updates");
}

/// VL-block chunks: mixing with regular chunks is refused, single blocks
/// are read back, and the frame records the VL-block flag.
#[test]
fn vlblock_frames() {
    let dir = scratch("vl");
    let cp = CParams {
        typesize: 1,
        ..cparams(1)
    };
    let blocks: Vec<Vec<u8>> = (0..3).map(|k| buf(k, 200 + 50 * k)).collect();
    let refs: Vec<&[u8]> = blocks.iter().map(|b| &b[..]).collect();
    let mut ctx = blosc2::engine::context::Context::compressor(cp.clone());
    let mut out = vec![0u8; 4096];
    let n = ctx.vlcompress(&refs, &mut out).unwrap();
    let vl = out[..n].to_vec();
    for (name, st) in storages(&dir, 1) {
        let mut s = SChunk::new(Storage {
            cparams: cp.clone(),
            ..st
        })
        .unwrap();
        s.append_chunk(&vl).unwrap();
        s.append_chunk(&vl).unwrap();
        assert_eq!(s.flags2() & 1, 1, "{name}");
        assert!(s.append_buffer(&buf(0, 100)).is_err(), "{name}: mixing");
        for (j, b) in blocks.iter().enumerate() {
            assert_eq!(&s.get_vlblock(1, j as i32).unwrap(), b, "{name}: block {j}");
        }
        assert!(s.get_vlblock(0, 3).is_err());
        let mut r = SChunk::from_cframe(s.to_cframe().unwrap(), false).unwrap();
        assert_eq!(r.frame().unwrap().header().general_flags & 0x80, 0x80, "{name}");
        assert_eq!(r.get_vlblock(0, 2).unwrap(), blocks[2]);
    }
}

#[test]
fn rename_and_remove() {
    let dir = scratch("rename");
    let a = dir.join("a.b2frame");
    let b = dir.join("b.b2frame");
    let st = Storage {
        contiguous: false,
        urlpath: Some(a.to_str().unwrap().into()),
        cparams: cparams(4),
        ..Storage::default()
    };
    let mut s = SChunk::new(st).unwrap();
    s.append_buffer(&buf(1, 1000)).unwrap();
    drop(s);
    blosc2::engine::schunk::rename_urlpath(a.to_str().unwrap(), b.to_str().unwrap()).unwrap();
    let mut r = SChunk::open(b.to_str().unwrap(), 0).unwrap();
    assert_eq!(contents(&mut r), vec![buf(1, 1000)]);
    assert!(blosc2::engine::schunk::rename_urlpath(a.to_str().unwrap(), b.to_str().unwrap()).is_err());
    blosc2::engine::schunk::remove_dir(b.to_str().unwrap()).unwrap();
    assert!(!b.exists());
    blosc2::engine::schunk::remove_urlpath(b.to_str().unwrap()).unwrap();
}

#[test]
fn masked_chunk_decompression() {
    let dir = scratch("masked");
    for (name, st) in storages(&dir, 4) {
        let mut cp = st.cparams.clone();
        cp.blocksize = 4096;
        let mut s = SChunk::new(Storage { cparams: cp, ..st }).unwrap();
        let data = buf(3, 40000);
        s.append_buffer(&data).unwrap();
        // 40000 bytes in 4096-byte blocks: 10 blocks; decode blocks 1 and 9 only.
        let mut mask = vec![true; 10];
        mask[1] = false;
        mask[9] = false;
        let mut out = vec![0xEEu8; 40000];
        assert_eq!(s.decompress_chunk_masked(0, &mut out, mask).unwrap(), 40000, "{name}");
        assert_eq!(out[4096..8192], data[4096..8192], "{name}: block 1");
        assert_eq!(out[36864..], data[36864..], "{name}: block 9");
        assert!(out[..4096].iter().all(|&b| b == 0xEE), "{name}: block 0 left alone");
        // A mask of the wrong length decodes the whole chunk, and masks
        // do not outlive their call.
        let mut out = vec![0u8; 40000];
        s.decompress_chunk_masked(0, &mut out, vec![true; 3]).unwrap();
        assert_eq!(out, data, "{name}: wrong-length mask");
        let mut out = vec![0u8; 40000];
        s.decompress_chunk(0, &mut out).unwrap();
        assert_eq!(out, data, "{name}: after a mask");
        assert!(
            s.decompress_chunk_masked(1, &mut out, vec![false; 10]).is_err(),
            "{name}"
        );
    }
}

/// Appends to a file frame leave no dead bytes: the file holds exactly the
/// bytes of the same frame built in memory (3.3.5's layout, where each new
/// chunk takes the place of the old offsets chunk).
#[test]
fn file_appends_leave_no_dead_bytes() {
    let dir = scratch("no_dead_bytes");
    let p = dir.join("a.b2frame");
    let _ = std::fs::remove_file(&p);
    let mk = |urlpath: Option<String>| Storage {
        contiguous: true,
        urlpath,
        cparams: cparams(4),
        ..Storage::default()
    };
    let mut file = SChunk::new(mk(Some(p.to_str().unwrap().to_string()))).unwrap();
    let mut mem = SChunk::new(mk(None)).unwrap();
    file.vlmeta_add("note", b"some words", None).unwrap();
    mem.vlmeta_add("note", b"some words", None).unwrap();
    for k in 0..40 {
        let len = 1000 + 137 * k;
        file.append_buffer(&buf(k, len)).unwrap();
        mem.append_buffer(&buf(k, len)).unwrap();
        let on_disk = std::fs::read(&p).unwrap();
        assert_eq!(on_disk.len() as i64, file.frame_len(), "append {k}");
        assert_eq!(on_disk, mem.to_cframe().unwrap(), "append {k}");
    }
    // A vlmetalayer edit rewrites the trailer where it lies, as 3.3.5's
    // `frame_update_trailer`: no dead bytes, `cbytes` unchanged.
    let before = file.cbytes();
    file.vlmeta_add("more", b"words", None).unwrap();
    mem.vlmeta_add("more", b"words", None).unwrap();
    assert_eq!(file.cbytes(), before);
    assert_eq!(std::fs::read(&p).unwrap(), mem.to_cframe().unwrap());
    let mut reopened = SChunk::open(p.to_str().unwrap(), 0).unwrap();
    assert_eq!(reopened.vlmeta_get("more").unwrap(), b"words");
    assert_eq!(contents(&mut reopened), contents(&mut mem));
}

/// In a frame of variable chunk sizes a zeros (or NaN, uninitialized)
/// chunk cannot be a special offset (it would not say its size), so it is
/// stored, as the repeated-value chunk that decodes the same: 3.3.5 reads
/// those back from frames on disk, and refuses the other special kinds at
/// a real offset.
#[test]
fn special_chunks_in_variable_frames_are_stored_as_repeated_values() {
    let dir = scratch("variable_specials");
    for (name, st) in storages(&dir, 8) {
        if name == "chunks" {
            continue;
        }
        let mut s = SChunk::new(st).unwrap();
        s.append_buffer(&buf(0, 800)).unwrap();
        s.append_buffer(&buf(1, 80)).unwrap();
        s.append_buffer(&[0u8; 800]).unwrap();
        let mut nan = vec![0u8; 32];
        blosc2::engine::chunk::make_special(&cparams(8), 400, Some(SpecialKind::Nans), None, &mut nan).unwrap();
        s.append_chunk(&nan).unwrap();
        assert_eq!(s.chunksize(), 0, "{name}: variable chunk sizes");
        for (n, value) in [(2, vec![0u8; 8]), (3, f64::NAN.to_le_bytes().to_vec())] {
            let c = s.get_chunk(n).unwrap().into_owned();
            let h = blosc2::engine::chunk::read_header(&c).unwrap();
            assert_eq!(h.special_type(), 3, "{name}: chunk {n} is a repeated value");
            assert_eq!(&c[32..], value, "{name}: chunk {n} value");
        }
        let model = vec![buf(0, 800), buf(1, 80), vec![0; 800], f64::NAN.to_le_bytes().repeat(50)];
        check(&mut s, &model, name);
    }
}

/// A sparse frame names new chunk files with new ids (a lagging reader
/// then finds a file missing, never another chunk), except where an id
/// would exceed `cbytes - 32`, which 3.3.5 refuses: small chunks after a
/// few updates. There the smallest free ids are taken.
#[test]
fn sparse_chunk_ids_grow_within_what_3_3_5_reads() {
    let dir = scratch("sparse_ids");
    for (len, grows) in [(2, false), (1000, true)] {
        let _ = std::fs::remove_dir_all(dir.join("s.b2frame"));
        let st = storages(&dir, 1).remove(3).1;
        let mut s = SChunk::new(st).unwrap();
        s.append_buffer(&buf(0, len)).unwrap();
        let mut last = 0;
        for k in 1..20 {
            let c = s.compress_buffer(&buf(k, len), 0).unwrap();
            s.update_chunk(0, &c).unwrap();
            let id = s.offsets().unwrap()[0];
            assert!(id <= s.cbytes() - 32, "len {len}, update {k}: id {id}");
            if grows {
                assert_eq!(id, last + 1, "len {len}, update {k}");
            }
            last = id;
        }
        check(&mut s, &[buf(19, len)], "sparse");
    }
}

/// After a delete, the offsets chunk is compressed as 3.3.5's
/// `frame_delete_chunk` does, into the room the offsets had before (one
/// entry more): five offsets then take a 40-byte stream (80 bytes in all)
/// where an append stores them raw (72 bytes).
#[test]
fn deletes_compress_offsets_in_the_old_room() {
    let dir = scratch("delete_room");
    for (name, st) in storages(&dir, 8) {
        if name == "chunks" || name == "sparse" {
            continue;
        }
        let mut s = SChunk::new(st).unwrap();
        for k in 0..6 {
            s.append_buffer(&buf(k, 8)).unwrap();
        }
        s.delete_chunk(0).unwrap();
        // The frame as stored (`to_cframe` of a file frame is a new copy).
        let frame = match s.urlpath() {
            Some(p) => std::fs::read(p).unwrap(),
            None => s.to_cframe().unwrap(),
        };
        // The header's msgpack fields: header_len (int32 after 0xd2 at
        // byte 10) and cbytes (int64 after 0xd3 at byte 38).
        let header_len = i32::from_be_bytes(frame[11..15].try_into().unwrap()) as usize;
        let cbytes = i64::from_be_bytes(frame[39..47].try_into().unwrap()) as usize;
        let index = &frame[header_len + cbytes..];
        let h = blosc2::engine::chunk::read_header(index).unwrap();
        assert_eq!((h.nbytes, h.cbytes, h.memcpyed()), (40, 80, false), "{name}");
        check(&mut s, &(1..6).map(|k| buf(k, 8)).collect::<Vec<_>>(), name);
    }
}

/// A file frame reads every chunk into one buffer it keeps: each read
/// returns exactly that chunk's bytes, whether the chunk before it was
/// larger (stale bytes past its end) or smaller (the buffer grows).
#[test]
fn file_chunk_reads_share_one_buffer() {
    let dir = scratch("chunkbuf");
    let path = dir.join("f.b2frame").to_str().unwrap().to_string();
    let mut s = SChunk::new(Storage {
        contiguous: true,
        urlpath: Some(path.clone()),
        cparams: cparams(4),
        ..Storage::default()
    })
    .unwrap();
    // Incompressible, compressible, then incompressible and larger.
    let noise = |len: usize, seed: u32| -> Vec<u8> {
        let mut x = seed;
        (0..len)
            .map(|_| {
                x = x.wrapping_mul(1_103_515_245).wrapping_add(12_345);
                (x >> 16) as u8
            })
            .collect()
    };
    let data = [noise(40000, 1), buf(3, 40000), noise(40000, 2), noise(24000, 3)];
    let mut stored = Vec::new();
    for d in &data {
        let c = blosc2::engine::context::compress_vec(&cparams(4), d).unwrap();
        s.append_chunk(&c).unwrap();
        stored.push(c);
    }
    drop(s);
    let mut r = SChunk::open(&path, 0).unwrap();
    for n in [0usize, 1, 2, 3, 1, 0, 2, 3, 1] {
        assert_eq!(&*r.get_chunk(n as i64).unwrap(), &stored[n][..], "chunk {n}");
        assert_eq!(
            r.decompress_chunk_vec(n as i64).unwrap(),
            data[n],
            "chunk {n} decompressed"
        );
    }
}
