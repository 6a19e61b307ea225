//! Replays, on stable, the fuzz targets' seeds (from `tests/corpus`) and
//! every saved finding (`fuzz/regressions/<target>/`) through the same
//! bodies the cargo-fuzz targets run (`fuzz/src/`, included below). A panic
//! the C boundary caught still fails the test: a hook counts them.

#[path = "../fuzz/src/lib.rs"]
#[allow(dead_code)]
mod blosc2_fuzz;

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Mutex, Once};

static PANICS: AtomicUsize = AtomicUsize::new(0);

/// Count every panic, including those `ffi_boundary!` turns into codes.
fn count_panics() {
    static HOOK: Once = Once::new();
    HOOK.call_once(|| {
        let default = std::panic::take_hook();
        std::panic::set_hook(Box::new(move |info| {
            PANICS.fetch_add(1, Ordering::SeqCst);
            default(info);
        }));
    });
}

/// Files directly in `dir` (sorted; none if it does not exist).
fn files(dir: &Path) -> Vec<PathBuf> {
    let Ok(rd) = std::fs::read_dir(dir) else {
        return Vec::new();
    };
    let mut v: Vec<PathBuf> = rd
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.is_file())
        .collect();
    v.sort();
    v
}

/// Files of `sub` in the conformance corpus whose name ends in one of `exts`.
fn corpus(sub: &str, exts: &[&str]) -> Vec<PathBuf> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/corpus").join(sub);
    files(&dir)
        .into_iter()
        .filter(|p| exts.iter().any(|e| p.to_string_lossy().ends_with(e)))
        .collect()
}

/// Run `body` over the seeds and the target's saved findings.
fn replay(target: &str, seeds: Vec<PathBuf>, body: fn(&[u8])) {
    // One target at a time, so that a counted panic belongs to it.
    static SERIAL: Mutex<()> = Mutex::new(());
    let _serial = SERIAL.lock().unwrap_or_else(|p| p.into_inner());
    count_panics();
    let regressions = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("fuzz/regressions")
        .join(target);
    let all: Vec<PathBuf> = seeds.into_iter().chain(files(&regressions)).collect();
    assert!(!all.is_empty(), "{target}: nothing to replay");
    for path in &all {
        let data = std::fs::read(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        eprintln!("{target}: {}", path.display());
        let before = PANICS.load(Ordering::SeqCst);
        body(&data);
        assert_eq!(
            PANICS.load(Ordering::SeqCst),
            before,
            "{target}: a panic was caught on {}",
            path.display()
        );
    }
}

/// A few seeds that drive the parameter-drawing targets.
fn small_seeds() -> Vec<PathBuf> {
    let mut v = corpus("chunks", &[".chunk"]);
    v.truncate(24);
    v.extend(corpus("frames", &[".b2frame"]).into_iter().take(3));
    v
}

#[test]
fn chunk_decode() {
    let mut seeds = corpus("chunks", &[".chunk"]);
    seeds.extend(corpus("blosc1", &[".blosc1"]));
    seeds.extend(corpus("malformed", &[".chunk", ".blosc1"]));
    seeds.extend(corpus("known_bugs", &[".chunk", ".blosc1"]));
    replay("chunk_decode", seeds, blosc2_fuzz::chunk_decode::run);
}

/// Frames (contiguous, and the index files of the sparse ones), b2nd
/// arrays, malformed frames and those of 3.3.5's known bugs.
fn frame_seeds() -> Vec<PathBuf> {
    let mut seeds = corpus("frames", &[".b2frame"]);
    let frames = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/corpus/frames");
    let mut dirs: Vec<PathBuf> = std::fs::read_dir(&frames)
        .map(|rd| {
            rd.filter_map(|e| e.ok().map(|e| e.path()))
                .filter(|p| p.is_dir())
                .collect()
        })
        .unwrap_or_default();
    dirs.sort();
    seeds.extend(dirs.iter().map(|d| d.join("chunks.b2frame")).filter(|p| p.is_file()));
    seeds.extend(corpus("b2nd", &[".b2nd"]));
    seeds.extend(corpus("malformed", &[".b2frame", ".b2nd"]));
    seeds.extend(corpus("known_bugs", &[".b2frame"]));
    seeds
}

#[test]
fn frame_open() {
    replay("frame_open", frame_seeds(), blosc2_fuzz::frame_open::run);
}

#[test]
fn frame_edit() {
    replay("frame_edit", frame_seeds(), blosc2_fuzz::frame_edit::run);
}

#[test]
fn b2nd_frame() {
    let mut seeds = corpus("b2nd", &[".b2nd"]);
    seeds.extend(corpus("malformed", &[".b2nd"]));
    replay("b2nd_frame", seeds, blosc2_fuzz::b2nd_frame::run);
}

#[test]
fn plugin_chunks() {
    let mut seeds = corpus("plugins/chunks", &[".b2c"]);
    seeds.extend(corpus("plugins/b2nd", &[".b2nd"]));
    replay("plugin_chunks", seeds, blosc2_fuzz::plugin_chunks::run);
}

#[test]
fn schunk_ops() {
    replay("schunk_ops", small_seeds(), blosc2_fuzz::schunk_ops::run);
}

#[test]
fn roundtrip() {
    replay("roundtrip", small_seeds(), blosc2_fuzz::roundtrip::run);
}

#[test]
fn differential() {
    replay("differential", small_seeds(), blosc2_fuzz::differential::run);
}

/// Found by chunk_decode: a split block whose size is not a multiple of
/// typesize (3.3.5 writes one for a forced block size) left its last bytes
/// as whatever an earlier call had put in the context's scratch buffer.
#[test]
fn split_block_tail_is_not_stale_scratch() {
    use blosc2::capi::context::{blosc2_create_dctx, blosc2_free_ctx};
    use blosc2::capi::context_read::blosc2_decompress_ctx;
    let corpus = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/corpus");
    let dirty = std::fs::read(corpus.join("chunks/0007_blosclz_shuffle_ts16_cl9.chunk")).expect("seed chunk");
    let odd = std::fs::read(corpus.join("known_bugs/forced_blocksize_gt_nbytes_always_split.chunk")).expect("chunk");
    let decode = |ctx, chunk: &[u8], n: usize| {
        let mut out = vec![0xeeu8; n];
        // SAFETY: `chunk` readable and `out` writable for the sizes passed.
        let rc = unsafe {
            blosc2_decompress_ctx(
                ctx,
                chunk.as_ptr().cast(),
                chunk.len() as i32,
                out.as_mut_ptr().cast(),
                n as i32,
            )
        };
        assert_eq!(rc, n as i32);
        out
    };
    let dp = blosc2::capi::misc::blosc2_get_blosc2_dparams_defaults();
    // SAFETY: default parameters; contexts freed once below.
    let (used, fresh) = unsafe { (blosc2_create_dctx(dp), blosc2_create_dctx(dp)) };
    decode(used, &dirty, 10007);
    let after_other = decode(used, &odd, 1005);
    let first = decode(fresh, &odd, 1005);
    // SAFETY: live contexts, freed once.
    unsafe {
        blosc2_free_ctx(used);
        blosc2_free_ctx(fresh);
    }
    assert_eq!(after_other, first);
    assert_eq!(&first[1000..], &[0; 5]);
}

/// A 48-byte chunk whose header claims one 512 MiB shuffled block behind
/// 3-byte streams: decoding reserved over 1.5 GiB of scratch before the
/// streams were looked at (libFuzzer's 2 GiB RSS limit). Now refused.
#[test]
fn huge_block_claim_is_refused_without_allocating() {
    use blosc2::capi::global::blosc2_getitem;
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("fuzz/regressions/chunk_decode/huge_block_claim.chunk");
    let chunk = std::fs::read(path).expect("reproducer");
    let mut out = [0u8; 4];
    // SAFETY: `chunk` readable and `out` writable for the sizes passed.
    let rc = unsafe {
        blosc2_getitem(
            chunk.as_ptr().cast(),
            chunk.len() as i32,
            0,
            1,
            out.as_mut_ptr().cast(),
            4,
        )
    };
    assert!(rc < 0, "getitem on a 512 MiB block claim returned {rc}");
}

/// Found by b2nd_frame: b2nd arrays whose shape claims far more chunks
/// than their super-chunk holds (5.4e12 items in chunks of 1024 over one
/// chunk; 603979796 x 30 x 40 in 7 x 11 x 13 chunks). Appending walked
/// every chunk of the shape (44 s) and squeezing made them all in memory
/// (killed for want of memory; 3.3.5 crashes). Both now fail at once.
#[test]
fn crafted_shapes_fail_at_once() {
    use blosc2::capi::b2nd::{b2nd_free, b2nd_from_cframe};
    use blosc2::capi::b2nd_array_t;
    use blosc2::capi::b2nd_ops::{b2nd_append, b2nd_squeeze};
    let open = |frame: &mut Vec<u8>| {
        let mut array: *mut b2nd_array_t = std::ptr::null_mut();
        // SAFETY: `frame` readable for its length, kept (not copied) until
        // the array is freed below.
        let rc = unsafe { b2nd_from_cframe(frame.as_mut_ptr(), frame.len() as i64, false, &mut array) };
        assert_eq!(rc, 0, "it opens (as in 3.3.5)");
        array
    };
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("fuzz/regressions/b2nd_frame");
    let mut frame = std::fs::read(dir.join("append_to_a_shape_of_billions_of_missing_chunks.b2nd")).expect("file");
    let array = open(&mut frame);
    let row = [0u8; 8];
    // SAFETY: live array; `row` readable for 8 bytes.
    let rc = unsafe { b2nd_append(array, row.as_ptr().cast(), 8, 0) };
    assert_eq!(rc, -19, "BLOSC2_ERROR_CHUNK_INSERT");
    // SAFETY: live, freed once.
    unsafe { b2nd_free(array) };
    let mut frame = std::fs::read(dir.join("squeeze_a_shape_of_a_billion_missing_chunks.b2nd")).expect("file");
    let array = open(&mut frame);
    let mut view: *mut b2nd_array_t = std::ptr::dangling_mut();
    // SAFETY: live array, writable output.
    let rc = unsafe { b2nd_squeeze(array, &mut view) };
    assert_eq!(rc, -12, "BLOSC2_ERROR_INVALID_PARAM");
    assert!(view.is_null());
    // SAFETY: live, freed once.
    unsafe { b2nd_free(array) };
}

/// Found by b2nd_frame: a 10 x 20 x 30 array in 12 chunks of 4000 bytes
/// whose special chunks each claim gigabytes. b2nd_copy (with other
/// compression parameters) decompressed and recompressed all of them (11
/// s); 3.3.5 decompresses into a buffer of the chunk size, and so fails.
#[test]
fn copy_of_chunks_larger_than_the_chunk_size_fails() {
    use blosc2::capi::b2nd::{b2nd_create_ctx, b2nd_free, b2nd_free_ctx, b2nd_from_cframe};
    use blosc2::capi::b2nd_array_t;
    use blosc2::capi::b2nd_ops::b2nd_copy;
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("fuzz/regressions/b2nd_frame/copy_of_special_chunks_claiming_gigabytes.b2nd");
    let mut frame = std::fs::read(path).expect("reproducer");
    let mut array: *mut b2nd_array_t = std::ptr::null_mut();
    // SAFETY: `frame` readable, kept until the array is freed.
    let rc = unsafe { b2nd_from_cframe(frame.as_mut_ptr(), frame.len() as i64, false, &mut array) };
    assert_eq!(rc, 0);
    // SAFETY: a live array's public fields.
    let (nd, shape, cs, bs) = unsafe { ((*array).ndim, (*array).shape, (*array).chunkshape, (*array).blockshape) };
    let storage = blosc2::capi::misc::blosc2_get_blosc2_storage_defaults();
    // SAFETY: the shapes have `nd` entries; no dtype, no metalayers.
    let ctx = unsafe {
        b2nd_create_ctx(
            &storage,
            nd,
            shape.as_ptr(),
            cs.as_ptr(),
            bs.as_ptr(),
            std::ptr::null(),
            0,
            std::ptr::null(),
            0,
        )
    };
    assert!(!ctx.is_null());
    let mut copy: *mut b2nd_array_t = std::ptr::dangling_mut();
    // SAFETY: live context and array, writable output.
    let rc = unsafe { b2nd_copy(ctx, array, &mut copy) };
    assert!(rc < 0 && copy.is_null(), "copy gave {rc}");
    // SAFETY: live, freed once.
    unsafe {
        b2nd_free_ctx(ctx);
        b2nd_free(array);
    }
}

/// The bound above must not refuse real chunks: blocks past 1 MiB of the
/// most compressible data, every codec, decode whole and by items.
#[test]
fn big_compressible_blocks_still_decode() {
    use blosc2::capi::global::blosc2_getitem;
    let len = 6 << 20;
    let ramp: Vec<u8> = (0..len).map(|i| (i / 4096) as u8).collect();
    for data in [vec![0u8; len], vec![7u8; len], ramp] {
        for codec in blosc2_fuzz::params::CODECS {
            let mut cp = blosc2::capi::misc::blosc2_get_blosc2_cparams_defaults();
            cp.compcode = codec;
            cp.clevel = 9;
            cp.typesize = 4;
            cp.blocksize = 4 << 20;
            let chunk = blosc2_fuzz::roundtrip::compress(&cp, &data).expect("compress");
            let back = blosc2_fuzz::roundtrip::decompress(&chunk, len, 1).expect("decompress");
            assert!(back == data, "codec {codec}");
            let mut item = [0u8; 4];
            let start = (len / 4 - 2) as i32;
            // SAFETY: `chunk` readable and `item` writable for the sizes passed.
            let rc = unsafe {
                blosc2_getitem(
                    chunk.as_ptr().cast(),
                    chunk.len() as i32,
                    start,
                    1,
                    item.as_mut_ptr().cast(),
                    4,
                )
            };
            assert_eq!(rc, 4, "codec {codec}: getitem");
            assert_eq!(item[..], data[len - 8..len - 4]);
        }
    }
}
