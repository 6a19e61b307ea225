//! A slice reads the same bytes on every path a super-chunk can take: in
//! memory (separate chunks), an in-memory frame, a frame read from a
//! buffer (owned or lent, copied or not), a file frame while written and
//! reopened (whose slices read only the blocks they need), and a sparse
//! frame; over normal, memcpyed and special chunks, single items, runs
//! within a block, runs across blocks and across chunks.

use std::sync::Arc;

use blosc2::engine::frame::{FrameBytes, LentBytes};
use blosc2::engine::params::CParams;
use blosc2::engine::schunk::{SChunk, SpecialKind, Storage};

const TS: usize = 4;
/// Items per chunk (not a multiple of the block size in items).
const CHUNK_ITEMS: usize = 10_000;
const NCHUNKS: usize = 5;

fn tmp(name: &str) -> String {
    let p = std::env::temp_dir().join(format!("blosc2-slices-{}-{name}", std::process::id()));
    let _ = std::fs::remove_file(&p);
    let _ = std::fs::remove_dir_all(&p);
    p.to_string_lossy().into_owned()
}

/// Item `i` of data set `kind`: smooth (compresses), noise (memcpyed
/// chunks), zeros (special chunks), or a mix chunk by chunk.
fn data(kind: &str) -> Vec<u8> {
    let mut state = 0x1234_5678_9abc_def0u64;
    let mut out = Vec::with_capacity(CHUNK_ITEMS * NCHUNKS * TS);
    for i in 0..CHUNK_ITEMS * NCHUNKS {
        state = state
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        let noise = (state >> 32) as u32;
        let v = match kind {
            "smooth" => (i / 3) as u32,
            "noise" => noise,
            "zeros" => 0,
            _ => match (i / CHUNK_ITEMS) % 3 {
                0 => (i / 7) as u32,
                1 => noise,
                _ => 0,
            },
        };
        out.extend_from_slice(&v.to_le_bytes());
    }
    out
}

fn cparams(clevel: u8) -> CParams {
    CParams {
        compcode: 1,
        clevel,
        typesize: TS as i32,
        blocksize: 4096,
        filters: [0, 0, 0, 0, 0, 1],
        ..CParams::default()
    }
}

fn build(src: &[u8], clevel: u8, contiguous: bool, urlpath: Option<String>) -> SChunk {
    let mut s = SChunk::new(Storage {
        contiguous,
        urlpath,
        cparams: cparams(clevel),
        ..Storage::default()
    })
    .unwrap();
    for c in src.chunks(CHUNK_ITEMS * TS) {
        s.append_buffer(c).unwrap();
    }
    s
}

struct Leaked(&'static [u8]);

impl LentBytes for Leaked {
    fn bytes(&self) -> &[u8] {
        self.0
    }
}

/// Every storage path for `src`, with its name.
fn all_paths(src: &[u8], clevel: u8, tag: &str) -> Vec<(String, SChunk)> {
    let mut v = Vec::new();
    v.push(("memory".to_string(), build(src, clevel, false, None)));
    let mut cf = build(src, clevel, true, None);
    let cframe = cf.to_cframe().unwrap();
    v.push(("cframe".to_string(), cf));
    for copy in [false, true] {
        v.push((
            format!("from_cframe copy={copy}"),
            SChunk::from_cframe(cframe.clone(), copy).unwrap(),
        ));
        let lent: &'static [u8] = Box::leak(cframe.clone().into_boxed_slice());
        let bytes = FrameBytes::Lent(Arc::new(Leaked(lent)));
        v.push((
            format!("lent copy={copy}"),
            SChunk::from_frame_bytes(bytes, copy).unwrap(),
        ));
    }
    let file = tmp(&format!("{tag}.b2frame"));
    v.push(("file".to_string(), build(src, clevel, true, Some(file.clone()))));
    v.push(("file reopened".to_string(), SChunk::open(&file, 0).unwrap()));
    let dir = tmp(&format!("{tag}.dir"));
    build(src, clevel, false, Some(dir.clone()));
    v.push(("sparse reopened".to_string(), SChunk::open(&dir, 0).unwrap()));
    v
}

fn ranges() -> Vec<(i64, i64)> {
    let n = (CHUNK_ITEMS * NCHUNKS) as i64;
    let c = CHUNK_ITEMS as i64;
    let mut v = vec![
        (0, 1),
        (n - 1, n),
        (0, n),
        (c - 1, c + 1),
        (c, 2 * c),
        (3 * c + 5, 3 * c + 5),
    ];
    for start in [7, 1023, 1024, 2 * c - 8, 4 * c + 100] {
        for len in [1, 16, 1000, 4096, c + 3] {
            v.push((start, (start + len).min(n)));
        }
    }
    v
}

#[test]
fn slices_read_the_same_bytes_on_every_path() {
    for kind in ["smooth", "noise", "zeros", "mixed"] {
        let src = data(kind);
        for clevel in [0u8, 5] {
            let tag = format!("{kind}-c{clevel}");
            for (name, mut s) in all_paths(&src, clevel, &tag) {
                for &(a, b) in &ranges() {
                    let mut out = vec![0xA5u8; (b - a) as usize * TS];
                    s.get_slice_buffer(a, b, &mut out)
                        .unwrap_or_else(|e| panic!("{tag} {name} [{a},{b}): {e}"));
                    assert!(
                        out == src[a as usize * TS..b as usize * TS],
                        "{tag} {name}: slice [{a},{b}) differs"
                    );
                }
            }
            let _ = std::fs::remove_file(tmp(&format!("{tag}.b2frame")));
            let _ = std::fs::remove_dir_all(tmp(&format!("{tag}.dir")));
        }
    }
}

#[test]
fn special_frames_slice_like_their_contents() {
    for (kind, item) in [
        (SpecialKind::Zeros, [0u8; 4]),
        (SpecialKind::Nans, f32::NAN.to_le_bytes()),
    ] {
        let path = tmp(&format!("special-{kind:?}.b2frame"));
        let mut s = SChunk::new(Storage {
            contiguous: true,
            urlpath: Some(path.clone()),
            cparams: CParams {
                typesize: 4,
                ..CParams::default()
            },
            ..Storage::default()
        })
        .unwrap();
        s.fill_special(100_003, kind, 40_000).unwrap();
        let mut reopened = SChunk::open(&path, 0).unwrap();
        for s in [&mut s, &mut reopened] {
            for (a, b) in [(0i64, 1i64), (9_990, 10_010), (99_000, 100_003)] {
                let mut out = vec![0x5Au8; (b - a) as usize * 4];
                s.get_slice_buffer(a, b, &mut out).unwrap();
                assert!(out.chunks(4).all(|c| c == item), "{kind:?} [{a},{b})");
            }
        }
        let _ = std::fs::remove_file(&path);
    }
}

/// A frame over lent bytes reads them in place and never writes them: an
/// edit gives the super-chunk its own copy.
#[test]
fn lent_frame_is_copied_on_first_edit() {
    let src = data("smooth");
    let cframe = build(&src, 5, true, None).to_cframe().unwrap();
    let lent: &'static [u8] = Box::leak(cframe.clone().into_boxed_slice());
    let mut s = SChunk::from_frame_bytes(FrameBytes::Lent(Arc::new(Leaked(lent))), false).unwrap();
    assert_eq!(s.to_cframe().unwrap(), cframe);
    s.append_buffer(&src[..CHUNK_ITEMS * TS]).unwrap();
    s.update_buffer(0, &src[CHUNK_ITEMS * TS..2 * CHUNK_ITEMS * TS])
        .unwrap();
    assert_eq!(lent, &cframe[..], "the lent bytes changed");
    assert_eq!(s.nchunks(), NCHUNKS as i64 + 1);
    assert_eq!(
        s.decompress_chunk_vec(0).unwrap(),
        &src[CHUNK_ITEMS * TS..2 * CHUNK_ITEMS * TS]
    );
    assert_eq!(
        s.decompress_chunk_vec(1).unwrap(),
        &src[CHUNK_ITEMS * TS..2 * CHUNK_ITEMS * TS]
    );
    assert_eq!(
        s.decompress_chunk_vec(NCHUNKS as i64).unwrap(),
        &src[..CHUNK_ITEMS * TS]
    );
    let again = SChunk::from_cframe(s.to_cframe().unwrap(), false).unwrap();
    assert_eq!(again.nchunks(), NCHUNKS as i64 + 1);
}
