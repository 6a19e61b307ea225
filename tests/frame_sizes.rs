//! Frames on disk end up no larger than the in-memory frame of the same
//! edits (which has 3.3.5's exact bytes): appends of special chunks leave
//! no dead bytes, and `cbytes` counts only stored chunk bytes.

use blosc2::engine::chunk::{make_special, SpecialKind};
use blosc2::engine::params::CParams;
use blosc2::engine::schunk::{SChunk, Storage};

fn cparams() -> CParams {
    CParams {
        compcode: 1,
        typesize: 4,
        ..CParams::default()
    }
}

fn special(kind: SpecialKind, nbytes: i32) -> Vec<u8> {
    let mut c = vec![0u8; 32];
    let n = make_special(&cparams(), nbytes, Some(kind), None, &mut c).unwrap();
    c.truncate(n);
    c
}

fn new(path: Option<&str>) -> SChunk {
    SChunk::new(Storage {
        contiguous: true,
        urlpath: path.map(str::to_string),
        cparams: cparams(),
        ..Storage::default()
    })
    .unwrap()
}

#[test]
fn special_appends_leave_no_dead_bytes() {
    let path = std::env::temp_dir().join(format!("blosc2-frame-sizes-{}.b2frame", std::process::id()));
    let _ = std::fs::remove_file(&path);
    let p = path.to_string_lossy().into_owned();
    let data: Vec<u8> = (0..40_000u32).flat_map(|i| (i / 5).to_le_bytes()).collect();
    let mut mem = new(None);
    let mut file = new(Some(&p));
    for s in [&mut mem, &mut file] {
        for i in 0..12 {
            match i % 4 {
                0 => s.append_chunk(&special(SpecialKind::Zeros, 160_000)).unwrap(),
                1 => s.append_chunk(&special(SpecialKind::Nans, 160_000)).unwrap(),
                2 => s.append_buffer(&data).unwrap(),
                _ => s.append_chunk(&special(SpecialKind::Uninit, 160_000)).unwrap(),
            };
        }
        s.insert_chunk(1, &special(SpecialKind::Zeros, 160_000)).unwrap();
    }
    assert_eq!(file.cbytes(), mem.cbytes(), "cbytes");
    assert_eq!(file.frame_len(), mem.frame_len(), "frame length");
    drop(file);
    let on_disk = std::fs::metadata(&path).unwrap().len() as i64;
    assert_eq!(on_disk, mem.frame_len(), "file size");
    let mut again = SChunk::open(&p, 0).unwrap();
    assert_eq!(again.nchunks(), 13);
    assert_eq!(again.decompress_chunk_vec(3).unwrap(), data);
    assert_eq!(again.decompress_chunk_vec(1).unwrap(), vec![0u8; 160_000]);
    for i in 0..13 {
        let same = again.decompress_chunk_vec(i).unwrap() == mem.decompress_chunk_vec(i).unwrap();
        assert!(same, "chunk {i}");
    }
    let _ = std::fs::remove_file(&path);
}
