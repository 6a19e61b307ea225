//! Concurrency stress on the safe engine, checking every byte, with a
//! deadline on each test so that a deadlock fails instead of hanging:
//! threads compressing and decompressing with their own contexts (every
//! codec, 1 and 2 threads inside a context), threads reading one on-disk
//! frame through their own handles, and one writer appending to a disk
//! frame (file and sparse) while readers follow it with
//! `refresh_if_changed` and reopen it now and then.
//! (`capi-tests/stress_threads.c` does the same through the C API, where
//! several threads also share one handle.)

use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{mpsc, Arc};
use std::thread;
use std::time::{Duration, Instant};

use blosc2::engine::constants::{codec, filter, MAX_FILTERS, MAX_OVERHEAD};
use blosc2::engine::context::Context;
use blosc2::engine::params::{CParams, DParams};
use blosc2::engine::schunk::{SChunk, Storage};

const WORKERS: usize = 4;
const DEADLINE: Duration = Duration::from_secs(120);
/// Rounds over every codec, filter and thread count per worker.
const ROUNDS: u32 = 3;

/// Run `f` on its own thread; fail if it panics or does not finish before
/// the deadline (a deadlock).
fn with_deadline(name: &str, f: impl FnOnce() + Send + 'static) {
    let (tx, rx) = mpsc::channel();
    let handle = thread::spawn(move || {
        f();
        let _ = tx.send(());
    });
    match rx.recv_timeout(DEADLINE) {
        Ok(()) => handle.join().expect("worker"),
        Err(mpsc::RecvTimeoutError::Disconnected) => {
            if let Err(p) = handle.join() {
                std::panic::resume_unwind(p);
            }
        }
        Err(mpsc::RecvTimeoutError::Timeout) => panic!("{name}: not done after {DEADLINE:?} (deadlock?)"),
    }
}

/// Deterministic, compressible bytes, different for every `seed`.
fn data(len: usize, seed: u32) -> Vec<u8> {
    let mut x = seed.wrapping_mul(2_654_435_761).wrapping_add(12345);
    (0..len)
        .map(|i| {
            x = x.wrapping_mul(1_103_515_245).wrapping_add(12345);
            ((i / 7) as u8).wrapping_add(((x >> 16) & 3) as u8)
        })
        .collect()
}

/// Chunk `k` of the frames below: 4-byte items `k * 1000 + i / 3`.
fn chunk_bytes(k: usize, nitems: usize) -> Vec<u8> {
    (0..nitems)
        .flat_map(|i| ((k * 1000 + i / 3) as i32).to_le_bytes())
        .collect()
}

fn cparams(compcode: u8, clevel: u8, nthreads: i16) -> CParams {
    CParams {
        compcode,
        clevel,
        typesize: 4,
        nthreads,
        ..CParams::default()
    }
}

/// A fresh scratch path under the system temporary directory.
fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("blosc2-stress-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let _ = std::fs::remove_file(&dir);
    dir
}

#[test]
fn threads_with_own_contexts_every_codec() {
    with_deadline("own contexts", || {
        let codecs = [codec::BLOSCLZ, codec::LZ4, codec::LZ4HC, codec::ZLIB, codec::ZSTD];
        let filters = [filter::SHUFFLE, filter::BITSHUFFLE, filter::DELTA];
        let workers: Vec<_> = (0..WORKERS)
            .map(|id| {
                thread::spawn(move || {
                    let mut checked = 0usize;
                    let len = 80 * 1024 + id * 4099;
                    for round in 0..ROUNDS {
                        for (ci, &compcode) in codecs.iter().enumerate() {
                            for &f in &filters {
                                for nthreads in 1..=2i16 {
                                    let src = data(len, id as u32 * 100 + round * 10 + ci as u32);
                                    let mut cp = cparams(compcode, 1 + ((id as u32 + round) % 9) as u8, nthreads);
                                    cp.filters[MAX_FILTERS - 1] = f;
                                    let mut cctx = Context::compressor(cp);
                                    let mut dctx = Context::decompressor(DParams {
                                        nthreads,
                                        ..DParams::default()
                                    });
                                    let mut comp = vec![0u8; len + MAX_OVERHEAD];
                                    let csize = cctx.compress(&src, &mut comp).expect("compress");
                                    assert!(csize > 0);
                                    let mut back = vec![0xA5u8; len];
                                    assert_eq!(dctx.decompress(&comp[..csize], &mut back).expect("decompress"), len);
                                    assert!(
                                        back == src,
                                        "worker {id}: codec {compcode} filter {f} nthreads {nthreads}"
                                    );
                                    let at = (id * 977 + ci) % (len / 4);
                                    let mut item = [0u8; 4];
                                    dctx.getitem(&comp[..csize], at as i64, 1, &mut item).expect("getitem");
                                    assert_eq!(item, src[at * 4..at * 4 + 4]);
                                    checked += 1;
                                }
                            }
                        }
                    }
                    checked
                })
            })
            .collect();
        let total: usize = workers.into_iter().map(|w| w.join().expect("worker")).sum();
        assert_eq!(total, WORKERS * ROUNDS as usize * 5 * 3 * 2);
    });
}

#[test]
fn threads_reading_one_file_frame_through_own_handles() {
    const NCHUNKS: usize = 12;
    const NITEMS: usize = 20_000;
    let path = scratch("shared.b2frame");
    let urlpath = path.to_str().expect("UTF-8").to_string();
    let mut sc = SChunk::new(Storage {
        contiguous: true,
        urlpath: Some(urlpath.clone()),
        cparams: cparams(codec::LZ4, 5, 1),
        ..Storage::default()
    })
    .expect("create");
    for k in 0..NCHUNKS {
        sc.append_buffer(&chunk_bytes(k, NITEMS)).expect("append");
    }
    drop(sc);
    with_deadline("readers of one file", move || {
        let readers: Vec<_> = (0..WORKERS)
            .map(|id| {
                let urlpath = urlpath.clone();
                thread::spawn(move || {
                    let mut sc = SChunk::open(&urlpath, 0).expect("open");
                    let mut buf = vec![0u8; NITEMS * 4];
                    for i in 0..3 * NCHUNKS {
                        let k = (i * 5 + id) % NCHUNKS;
                        let want = chunk_bytes(k, NITEMS);
                        assert_eq!(sc.decompress_chunk(k as i64, &mut buf).expect("decompress"), NITEMS * 4);
                        assert!(buf == want, "reader {id}: chunk {k}");
                        let start = (k * NITEMS + 123) as i64;
                        let mut slice = vec![0u8; 400];
                        sc.get_slice_buffer(start, start + 100, &mut slice).expect("slice");
                        assert_eq!(slice, want[123 * 4..223 * 4]);
                    }
                })
            })
            .collect();
        for r in readers {
            r.join().expect("reader");
        }
    });
    std::fs::remove_file(&path).expect("remove frame");
}

/// One writer appends `appends` chunks to the frame at `urlpath` (which
/// holds chunk 0) while readers with their own handles follow it.
fn writer_with_followers(mut writer: SChunk, urlpath: String, appends: usize, nitems: usize) {
    let done = Arc::new(AtomicBool::new(false));
    let readers: Vec<_> = (0..WORKERS)
        .map(|id| {
            let urlpath = urlpath.clone();
            let done = done.clone();
            thread::spawn(move || {
                let mut sc = SChunk::open(&urlpath, 0).expect("open");
                let mut buf = vec![0u8; nitems * 4];
                let (mut seen, mut polls, mut refreshes) = (0usize, 0usize, 0usize);
                let started = Instant::now();
                while seen < appends {
                    let finished = done.load(Ordering::Acquire);
                    if sc.refresh_if_changed().expect("refresh") {
                        refreshes += 1;
                    }
                    // Everything the handle sees must be complete and right.
                    while (seen as i64) < sc.nchunks() {
                        let n = sc
                            .decompress_chunk(seen as i64, &mut buf)
                            .expect("decompress a seen chunk");
                        assert_eq!(n, nitems * 4);
                        assert!(buf == chunk_bytes(seen, nitems), "reader {id}: chunk {seen}");
                        seen += 1;
                    }
                    assert!(
                        !finished || seen == appends,
                        "reader {id}: {seen} chunks after the writer finished"
                    );
                    polls += 1;
                    if polls % (5 + id) == 0 {
                        sc = SChunk::open(&urlpath, 0).expect("reopen");
                    }
                    assert!(started.elapsed() < DEADLINE, "reader {id} stuck at {seen}");
                    thread::yield_now();
                }
                refreshes
            })
        })
        .collect();
    for k in 1..appends {
        assert_eq!(
            writer.append_buffer(&chunk_bytes(k, nitems)).expect("append"),
            k as i64 + 1
        );
    }
    done.store(true, Ordering::Release);
    for r in readers {
        r.join().expect("reader");
    }
    assert_eq!(writer.nchunks(), appends as i64);
}

#[test]
fn one_writer_appending_while_readers_follow() {
    const APPENDS: usize = 200;
    const NITEMS: usize = 10_000;
    for contiguous in [true, false] {
        let path = scratch(if contiguous {
            "follow.b2frame"
        } else {
            "follow.b2sframe"
        });
        let urlpath = path.to_str().expect("UTF-8").to_string();
        let mut writer = SChunk::new(Storage {
            contiguous,
            urlpath: Some(urlpath.clone()),
            cparams: cparams(codec::ZSTD, 3, 1),
            ..Storage::default()
        })
        .expect("create");
        writer.append_buffer(&chunk_bytes(0, NITEMS)).expect("first chunk");
        let url = urlpath.clone();
        with_deadline("writer and followers", move || {
            writer_with_followers(writer, url, APPENDS, NITEMS)
        });
        blosc2::engine::schunk::remove_urlpath(&urlpath).expect("remove");
        assert!(!path.exists());
    }
}
