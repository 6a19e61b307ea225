//! Unit tests: the metalayer bytes, geometry, the copy routine and every
//! array operation against a plain C-order model, in memory and on disk.

use super::copy::{copy_buffer, strides};
use super::geometry::Geometry;
use super::meta::{deserialize_meta, serialize_meta};
use super::*;
use crate::engine::error::Error;
use crate::engine::params::CParams;
use crate::engine::schunk::{SChunk, Storage};

/// A small deterministic generator.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
    fn below(&mut self, n: i64) -> i64 {
        if n <= 0 {
            0
        } else {
            (self.next() % n as u64) as i64
        }
    }
}

/// A plain C-order array.
#[derive(Clone, Debug, PartialEq)]
struct Model {
    shape: Vec<i64>,
    ts: usize,
    data: Vec<u8>,
}

impl Model {
    fn new(shape: &[i64], ts: usize, seed: u64) -> Model {
        let n: i64 = shape.iter().product();
        let mut r = Rng(seed | 1);
        let data = (0..n as usize * ts).map(|_| r.next() as u8).collect();
        Model {
            shape: shape.to_vec(),
            ts,
            data,
        }
    }
    fn slice(&self, start: &[i64], stop: &[i64]) -> Vec<u8> {
        let nd = self.shape.len();
        let sub: Vec<i64> = (0..nd).map(|i| stop[i] - start[i]).collect();
        let mut out = vec![0u8; sub.iter().product::<i64>() as usize * self.ts];
        if out.is_empty() {
            return out;
        }
        copy_buffer(
            nd,
            self.ts,
            &self.data,
            &self.shape,
            start,
            stop,
            &mut out,
            &sub,
            &vec![0; nd],
        )
        .unwrap();
        out
    }
    fn set(&mut self, start: &[i64], stop: &[i64], buf: &[u8]) {
        let nd = self.shape.len();
        let sub: Vec<i64> = (0..nd).map(|i| stop[i] - start[i]).collect();
        if sub.iter().product::<i64>() == 0 {
            return;
        }
        copy_buffer(
            nd,
            self.ts,
            buf,
            &sub,
            &vec![0; nd],
            &sub,
            &mut self.data,
            &self.shape,
            start,
        )
        .unwrap();
    }
    /// Resize at the end, new items zero.
    fn resized(&self, shape: &[i64]) -> Model {
        let mut m = Model {
            shape: shape.to_vec(),
            ts: self.ts,
            data: vec![0; shape.iter().product::<i64>() as usize * self.ts],
        };
        let common: Vec<i64> = (0..shape.len()).map(|i| shape[i].min(self.shape[i])).collect();
        let z = vec![0; shape.len()];
        let part = self.slice(&z, &common);
        m.set(&z, &common, &part);
        m
    }
}

fn storage(ts: i32, contiguous: bool, urlpath: Option<String>) -> Storage {
    Storage {
        contiguous,
        urlpath,
        cparams: CParams {
            typesize: ts,
            compcode: 1,
            clevel: 5,
            ..CParams::default()
        },
        ..Storage::default()
    }
}

fn params(st: Storage, shape: &[i64], chunks: &[i32], blocks: &[i32]) -> ArrayParams {
    ArrayParams::new(st, shape, chunks, blocks, Some("<i4"), 0, Vec::new()).unwrap()
}

fn tmpdir(name: &str) -> std::path::PathBuf {
    let d = std::env::temp_dir().join(format!("b2nd-unit-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

#[test]
fn metalayer_bytes_match_3_3_5() {
    // b2nd-0002 of the corpus.
    let want =
        "97000292d30000000000000025d3000000000000001792d20000000ad20000000892d200000005d20000000400db000000033c6638";
    let got = serialize_meta(&[37, 23], &[10, 8], &[5, 4], Some("<f8"), 0).unwrap();
    let hex: String = got.iter().map(|b| format!("{b:02x}")).collect();
    assert_eq!(hex, want);
    let (m, n) = deserialize_meta(&got).unwrap();
    assert_eq!(n, got.len());
    assert_eq!(
        (m.shape, m.chunkshape, m.blockshape),
        (vec![37, 23], vec![10, 8], vec![5, 4])
    );
    assert_eq!((m.dtype.as_deref(), m.dtype_format), (Some("<f8"), 0));
    // No dtype: the default; 0 dimensions.
    let z = serialize_meta(&[], &[], &[], None, 0).unwrap();
    assert_eq!(z, [0x97, 0, 0, 0x90, 0x90, 0x90, 0, 0xdb, 0, 0, 0, 3, b'|', b'u', b'1']);
    // 16 dimensions: 3.3.5's `0x90 + ndim` shape markers are 0xa0.
    let m16 = serialize_meta(&[1; 16], &[1; 16], &[1; 16], None, 0).unwrap();
    assert_eq!(&m16[..4], [0x97, 0, 16, 0xa0]);
    assert_eq!((m16[4], m16[3 + 16 * 9 + 1]), (0xd3, 0xa0));
    assert_eq!(m16.len(), 3 + 3 + 16 * (9 + 5 + 5) + 1 + 5 + 3);
    let (back, _) = deserialize_meta(&m16).unwrap();
    assert_eq!((back.shape, back.chunkshape), (vec![1; 16], vec![1; 16]));
    // A caterva metalayer (no dtype) reads with no dtype.
    let cat = &got[..got.len() - 9];
    let (m, _) = deserialize_meta(cat).unwrap();
    assert_eq!(m.dtype, None);
    // Every truncation fails, never panics.
    for cut in 0..got.len() - 9 {
        assert!(deserialize_meta(&got[..cut]).is_err(), "cut {cut}");
    }
    for cut in got.len() - 8..got.len() {
        assert!(deserialize_meta(&got[..cut]).is_err(), "cut {cut}");
    }
    let mut bad = got.clone();
    bad[2] = 17;
    assert!(deserialize_meta(&bad).is_err());
    bad[2] = 0x80;
    assert!(deserialize_meta(&bad).is_err());
    assert!(serialize_meta(&[1; 17], &[1; 17], &[1; 17], None, 0).is_err());
    assert!(serialize_meta(&[1], &[1], &[1], None, -1).is_err());
}

#[test]
fn geometry_like_3_3_5() {
    let g = Geometry::new(&[37, 23], &[10, 8], &[5, 4]).unwrap();
    assert_eq!(&g.extshape[..2], &[40, 24]);
    assert_eq!(&g.extchunkshape[..2], &[10, 8]);
    assert_eq!(
        (g.nitems, g.chunknitems, g.extnitems, g.blocknitems, g.extchunknitems),
        (851, 80, 960, 20, 80)
    );
    assert_eq!(&g.item_array_strides[..2], &[23, 1]);
    assert_eq!(&g.block_chunk_strides[..2], &[2, 1]);
    assert_eq!(&g.chunk_array_strides[..2], &[192, 1]);
    assert_eq!(g.nchunks(), 12);
    let g = Geometry::new(&[20, 30, 40], &[7, 11, 13], &[3, 5, 6]).unwrap();
    assert_eq!(&g.extchunkshape[..3], &[9, 15, 18]);
    assert_eq!(g.chunk_nbytes(1).unwrap(), 2430);
    assert_eq!(g.nchunks(), 36);
    let g0 = Geometry::new(&[], &[], &[]).unwrap();
    assert_eq!((g0.nitems, g0.nchunks()), (1, 1));
    // Bad input.
    for (s, c, b) in [
        (vec![-1i64], vec![1i32], vec![1i32]),
        (vec![10], vec![-1], vec![1]),
        (vec![10], vec![5], vec![0]),
        (vec![10], vec![0], vec![0]),
        (vec![i64::MAX], vec![10], vec![10]),
        (vec![1 << 40, 1 << 40], vec![1, 1], vec![1, 1]),
        (vec![10, 10], vec![1 << 16, 1 << 16], vec![1, 1]),
        (vec![10; 17], vec![1; 17], vec![1; 17]),
    ] {
        assert!(Geometry::new(&s, &c, &b).is_err(), "{s:?} {c:?} {b:?}");
    }
    // Empty dimensions are fine, with or without chunks.
    assert_eq!(Geometry::new(&[0, 5], &[0, 5], &[0, 5]).unwrap().nitems, 0);
    assert_eq!(Geometry::new(&[0, 5], &[4, 5], &[2, 5]).unwrap().nchunks(), 0);
    assert_eq!(
        Geometry::new(&[100], &[1 << 30], &[1 << 30]).unwrap().chunk_nbytes(4),
        Err(Error::MaxBufsizeExceeded)
    );
}

#[test]
fn copy_buffer_checks_bounds() {
    let src: Vec<u8> = (0..60).collect();
    let mut dst = vec![0u8; 24];
    copy_buffer(2, 2, &src, &[5, 6], &[1, 2], &[3, 5], &mut dst, &[3, 4], &[1, 1]).unwrap();
    let want: Vec<u8> = [0u8; 10]
        .iter()
        .chain(&[16, 17, 18, 19, 20, 21, 0, 0, 28, 29, 30, 31, 32, 33])
        .copied()
        .collect();
    assert_eq!(dst, want);
    assert!(copy_buffer(2, 2, &src, &[5, 6], &[1, 2], &[3, 7], &mut dst, &[3, 4], &[0, 0]).is_err());
    assert!(copy_buffer(2, 2, &src, &[5, 6], &[1, 2], &[3, 5], &mut dst, &[3, 4], &[2, 2]).is_err());
    // A padded shape larger than the buffer is fine as long as the region
    // stays inside it.
    assert!(copy_buffer(2, 2, &src, &[5, 7], &[0, 0], &[1, 1], &mut dst, &[3, 4], &[0, 0]).is_ok());
    assert!(copy_buffer(2, 2, &src, &[5, 7], &[4, 0], &[5, 4], &mut dst, &[3, 4], &[0, 0]).is_err());
    assert_eq!(
        super::copy::copy_extents(2, 2, &[5, 6], &[1, 2], &[3, 5], &[3, 4], &[1, 1]).unwrap(),
        Some((34, 24))
    );
    assert_eq!(
        super::copy::copy_extents(2, 2, &[5, 6], &[1, 2], &[1, 5], &[3, 4], &[1, 1]).unwrap(),
        None
    );
    assert!(super::copy::copy_extents(3, 1, &[1 << 40; 3], &[0; 3], &[1; 3], &[1; 3], &[0; 3]).is_err());
    assert!(copy_buffer(2, 2, &src, &[5, 6], &[2, 0], &[1, 1], &mut dst, &[3, 4], &[0, 0]).is_err());
    // 0 dimensions: one item.
    let mut one = [0u8; 2];
    copy_buffer(0, 2, &src, &[], &[], &[], &mut one, &[], &[]).unwrap();
    assert_eq!(one, [0, 1]);
    assert_eq!(&strides(&[2, 3, 4])[..3], &[12, 4, 1]);
}

/// Random shapes, 1 to 8 dimensions, with partial chunks and blocks.
fn random_layout(r: &mut Rng, nd: usize) -> (Vec<i64>, Vec<i32>, Vec<i32>) {
    let budget = [0, 300, 40, 12, 7, 5, 4, 3, 3][nd];
    let shape: Vec<i64> = (0..nd).map(|_| 1 + r.below(budget)).collect();
    let chunks: Vec<i32> = shape.iter().map(|&s| (1 + r.below(s)) as i32).collect();
    let blocks: Vec<i32> = chunks.iter().map(|&c| (1 + r.below(i64::from(c))) as i32).collect();
    (shape, chunks, blocks)
}

fn random_region(r: &mut Rng, shape: &[i64]) -> (Vec<i64>, Vec<i64>) {
    let start: Vec<i64> = shape.iter().map(|&s| r.below(s)).collect();
    let stop: Vec<i64> = shape
        .iter()
        .zip(&start)
        .map(|(&s, &a)| a + 1 + r.below(s - a))
        .collect();
    (start, stop)
}

fn check(a: &mut Array, m: &Model, what: &str) {
    assert_eq!(a.shape(), &m.shape[..], "{what}: shape");
    assert_eq!(a.to_vec().unwrap(), m.data, "{what}: content");
}

/// Every storage an array can live on.
fn storages(ts: i32, dir: &std::path::Path, k: usize) -> Vec<Storage> {
    vec![
        storage(ts, false, None),
        storage(ts, true, None),
        storage(ts, true, Some(dir.join(format!("c{k}.b2nd")).to_string_lossy().into())),
        storage(ts, false, Some(dir.join(format!("s{k}.b2nd")).to_string_lossy().into())),
    ]
}

#[test]
fn slices_match_the_model() {
    let dir = tmpdir("slices");
    let mut r = Rng(0x9e37_79b9_7f4a_7c15);
    let mut k = 0;
    for nd in 1..=8 {
        for ts in [1i32, 2, 4, 8, 3] {
            let (shape, chunks, blocks) = random_layout(&mut r, nd);
            for st in storages(ts, &dir, k) {
                k += 1;
                let p = params(st, &shape, &chunks, &blocks);
                let mut m = Model::new(&shape, ts as usize, r.next());
                let mut a = Array::from_buffer(&p, &m.data).unwrap();
                check(&mut a, &m, "from_buffer");
                for _ in 0..4 {
                    let (start, stop) = random_region(&mut r, &shape);
                    let sub: Vec<i64> = start.iter().zip(&stop).map(|(a, b)| b - a).collect();
                    let mut buf = vec![0u8; sub.iter().product::<i64>() as usize * ts as usize];
                    a.get_slice_buffer(&start, &stop, &mut buf, &sub).unwrap();
                    assert_eq!(buf, m.slice(&start, &stop), "get {start:?}..{stop:?} of {shape:?}");
                    let (start, stop) = random_region(&mut r, &shape);
                    let sub: Vec<i64> = start.iter().zip(&stop).map(|(a, b)| b - a).collect();
                    let data = Model::new(&sub, ts as usize, r.next()).data;
                    a.set_slice_buffer(&start, &stop, &data, &sub).unwrap();
                    m.set(&start, &stop, &data);
                    check(&mut a, &m, "set");
                }
                // Reopen what was written to disk.
                if let Some(path) = a.schunk().urlpath().map(str::to_string) {
                    let mut b = Array::open(&path, 0).unwrap();
                    check(&mut b, &m, "reopened");
                }
                let cframe = a.schunk_mut().to_cframe().unwrap();
                let mut b = Array::from_cframe(cframe, false).unwrap();
                check(&mut b, &m, "from_cframe");
                assert_eq!(b.dtype(), Some("<i4"));
            }
        }
    }
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn buffer_shapes_larger_than_the_slice() {
    let st = storage(2, true, None);
    let p = params(st, &[9, 11], &[4, 5], &[2, 3]);
    let m = Model::new(&[9, 11], 2, 7);
    let mut a = Array::from_buffer(&p, &m.data).unwrap();
    let mut buf = vec![0xAAu8; 6 * 7 * 2];
    a.get_slice_buffer(&[2, 3], &[5, 8], &mut buf, &[6, 7]).unwrap();
    let part = m.slice(&[2, 3], &[5, 8]);
    let mut want = vec![0u8; 6 * 7 * 2];
    copy_buffer(2, 2, &part, &[3, 5], &[0, 0], &[3, 5], &mut want, &[6, 7], &[0, 0]).unwrap();
    assert_eq!(buf, want);
    // Too small a buffer, slices outside, shapes too short: errors.
    assert!(a.get_slice_buffer(&[2, 3], &[5, 8], &mut buf[..40], &[6, 7]).is_err());
    assert!(a.get_slice_buffer(&[2, 3], &[5, 12], &mut buf, &[6, 9]).is_err());
    assert!(a.get_slice_buffer(&[3, 3], &[2, 8], &mut buf, &[6, 7]).is_err());
    assert!(a.get_slice_buffer(&[-1, 3], &[2, 8], &mut buf, &[6, 7]).is_err());
    assert!(a.get_slice_buffer(&[2, 3], &[5, 8], &mut buf, &[2, 7]).is_err());
    assert!(a.get_slice_buffer(&[2], &[5], &mut buf, &[6]).is_err());
    assert!(a.set_slice_buffer(&[2, 3], &[5, 8], &buf[..10], &[3, 5]).is_err());
}

/// A slice filling its buffer writes every byte of it (the buffer is not
/// cleared first), whatever the thread count, filters and padding: partial
/// chunks at the array's edges, blocks that do not tile their chunk, DELTA
/// (which needs block 0 decoded apart). A failed read leaves zeros.
#[test]
fn slices_write_every_byte_with_1_and_2_threads() {
    let mut r = Rng(0x2545_f491_4f6c_dd1d);
    for nd in 1..=4 {
        for (ts, filters) in [(4i32, [0u8, 0, 0, 0, 0, 1]), (8, [0, 0, 0, 0, 3, 1]), (3, [0; 6])] {
            let (shape, chunks, blocks) = random_layout(&mut r, nd);
            let m = Model::new(&shape, ts as usize, r.next());
            for (threads, contiguous) in [(1i16, false), (2, false), (2, true)] {
                let mut st = storage(ts, contiguous, None);
                st.cparams.filters = filters;
                st.cparams.nthreads = threads;
                st.dparams.nthreads = threads;
                let p = params(st, &shape, &chunks, &blocks);
                let mut a = Array::from_buffer(&p, &m.data).unwrap();
                for _ in 0..6 {
                    let (start, stop) = random_region(&mut r, &shape);
                    let sub: Vec<i64> = start.iter().zip(&stop).map(|(a, b)| b - a).collect();
                    let mut buf = vec![0xA5u8; sub.iter().product::<i64>() as usize * ts as usize + 3];
                    a.get_slice_buffer(&start, &stop, &mut buf, &sub).unwrap();
                    let want = m.slice(&start, &stop);
                    assert_eq!(
                        &buf[..want.len()],
                        &want[..],
                        "{threads} threads, {start:?}..{stop:?} of {shape:?}"
                    );
                    assert_eq!(&buf[want.len()..], &[0, 0, 0], "bytes past the buffer's shape");
                }
                let mut buf = vec![0xA5u8; 64];
                let past: Vec<i64> = shape.iter().map(|s| s + 1).collect();
                assert!(a.get_slice_buffer(&vec![0; nd], &past, &mut buf, &past).is_err());
                assert!(buf.iter().all(|&b| b == 0), "a failed read leaves zeros");
            }
        }
    }
}

/// `set_slice_buffer` (and so `from_buffer`) gathers each chunk's blocks
/// on the compression context's threads: with 1 and 2 threads the array
/// reads back the model and stores the very same chunks, for partial
/// chunks at the array's edges (padding), blocks that do not tile their
/// chunk, regions covering chunks whole or in part.
#[test]
fn set_slice_stores_the_same_chunks_with_1_and_2_threads() {
    let mut r = Rng(0x5851_f42d_4c95_7f2d);
    for nd in 1..=4 {
        let (shape, chunks, blocks) = random_layout(&mut r, nd);
        let seed = r.next();
        let edits: Vec<_> = (0..5)
            .map(|_| {
                let (start, stop) = random_region(&mut r, &shape);
                let sub: Vec<i64> = start.iter().zip(&stop).map(|(a, b)| b - a).collect();
                (start, stop, sub, r.next())
            })
            .collect();
        let mut stored: Vec<Vec<Vec<u8>>> = Vec::new();
        for threads in [1i16, 2] {
            let mut st = storage(8, false, None);
            st.cparams.filters = [0, 0, 0, 0, 0, 1];
            st.cparams.nthreads = threads;
            st.dparams.nthreads = threads;
            let p = params(st, &shape, &chunks, &blocks);
            let mut m = Model::new(&shape, 8, seed);
            let mut a = Array::from_buffer(&p, &m.data).unwrap();
            check(&mut a, &m, "from_buffer");
            for (start, stop, sub, seed) in &edits {
                let data = Model::new(sub, 8, *seed).data;
                a.set_slice_buffer(start, stop, &data, sub).unwrap();
                m.set(start, stop, &data);
                check(
                    &mut a,
                    &m,
                    &format!("{threads} threads, set {start:?}..{stop:?} of {shape:?}"),
                );
            }
            let sc = a.schunk_mut();
            stored.push((0..sc.nchunks()).map(|n| sc.get_chunk(n).unwrap().to_vec()).collect());
        }
        assert_eq!(
            stored[0], stored[1],
            "chunks differ between 1 and 2 threads ({shape:?})"
        );
    }
}

#[test]
fn a_chunk_with_other_blocks_is_read_whole() {
    // A chunk recompressed by another writer with its own block size: a
    // slice cannot pick its blocks, so it decodes the whole chunk.
    let st = storage(2, false, None);
    let p = params(st, &[9, 11], &[4, 5], &[2, 3]);
    let m = Model::new(&[9, 11], 2, 11);
    let mut a = Array::from_buffer(&p, &m.data).unwrap();
    let raw = a.schunk_mut().decompress_chunk_vec(0).unwrap();
    let cp = CParams {
        typesize: 2,
        blocksize: 8,
        ..CParams::default()
    };
    let other = crate::engine::context::compress_vec(&cp, &raw).unwrap();
    a.schunk_mut().update_chunk(0, &other).unwrap();
    let mut buf = vec![0u8; 3 * 4 * 2];
    a.get_slice_buffer(&[1, 2], &[4, 6], &mut buf, &[3, 4]).unwrap();
    assert_eq!(buf, m.slice(&[1, 2], &[4, 6]));
    check(&mut a, &m, "other blocks");
}

#[test]
fn zero_dimensional_and_empty_arrays() {
    let st = storage(4, true, None);
    let p = params(st.clone(), &[], &[], &[]);
    let mut a = Array::from_buffer(&p, &[1, 2, 3, 4]).unwrap();
    assert_eq!(a.to_vec().unwrap(), [1, 2, 3, 4]);
    a.set_slice_buffer(&[], &[], &[5, 6, 7, 8], &[]).unwrap();
    assert_eq!(a.to_vec().unwrap(), [5, 6, 7, 8]);
    assert_eq!(a.schunk().nchunks(), 1);
    for shape in [[0i64, 5], [3, 0]] {
        let p = params(st.clone(), &shape, &[2, 2], &[1, 2]);
        let mut a = Array::new(&p, Fill::Zeros).unwrap();
        assert_eq!(a.schunk().nchunks(), 0);
        assert!(a.to_vec().unwrap().is_empty());
        // The frame records the chunk size before any chunk exists.
        assert_eq!(a.schunk().chunksize(), 16);
        a.resize(&[4, 5], None).unwrap();
        assert_eq!(a.to_vec().unwrap(), vec![0u8; 80]);
    }
    let p = params(st, &[0, 5], &[0, 5], &[0, 5]);
    let mut a = Array::new(&p, Fill::Zeros).unwrap();
    assert!(a.to_vec().unwrap().is_empty());
    assert!(a.resize(&[3, 5], None).is_err());
}

#[test]
fn fills() {
    let st = storage(8, true, None);
    let p = params(st.clone(), &[7, 5], &[4, 3], &[2, 2]);
    let mut a = Array::new(&p, Fill::Value(42u64.to_le_bytes().to_vec())).unwrap();
    let want: Vec<u8> = (0..35).flat_map(|_| 42u64.to_le_bytes()).collect();
    assert_eq!(a.to_vec().unwrap(), want);
    let mut a = Array::new(&p, Fill::Nans).unwrap();
    let v = a.to_vec().unwrap();
    assert!(v.chunks(8).all(|c| f64::from_le_bytes(c.try_into().unwrap()).is_nan()));
    let mut a = Array::new(&p, Fill::Zeros).unwrap();
    assert_eq!(a.to_vec().unwrap(), vec![0u8; 280]);
    assert!(Array::new(&p, Fill::Uninit).is_ok());
    assert!(Array::new(&p, Fill::Value(vec![1, 2])).is_err());
    let p2 = params(storage(2, true, None), &[7, 5], &[4, 3], &[2, 2]);
    assert_eq!(
        Array::new(&p2, Fill::Nans).unwrap_err(),
        Error::Data("NaN needs a typesize of 4 or 8")
    );
    assert!(Array::from_buffer(&p, &[0u8; 279]).is_err());
}

#[test]
fn resize_insert_append_delete_match_the_model() {
    let dir = tmpdir("shape");
    let mut r = Rng(0x1234_5678_9abc_def1);
    let mut k = 0;
    for nd in 1..=4 {
        for ts in [1i32, 4] {
            let (shape, chunks, blocks) = random_layout(&mut r, nd);
            for st in storages(ts, &dir, k) {
                k += 1;
                let p = params(st, &shape, &chunks, &blocks);
                let mut m = Model::new(&shape, ts as usize, r.next());
                let mut a = Array::from_buffer(&p, &m.data).unwrap();
                let axis = r.below(nd as i64) as usize;
                let cs = i64::from(chunks[axis]);
                // Append one slab at the end.
                let mut slab_shape = m.shape.clone();
                slab_shape[axis] = 1 + r.below(3);
                let slab = Model::new(&slab_shape, ts as usize, r.next());
                a.append(&slab.data, axis).unwrap();
                let mut grown = m.shape.clone();
                grown[axis] += slab_shape[axis];
                let mut z = vec![0i64; nd];
                let mut m2 = m.resized(&grown);
                z[axis] = m.shape[axis];
                m2.set(&z, &grown, &slab.data);
                m = m2;
                check(&mut a, &m, "append");
                // Insert whole chunks at a chunk boundary inside the array.
                let at = cs * r.below(m.shape[axis] / cs + 1);
                let mut ins_shape = m.shape.clone();
                ins_shape[axis] = cs;
                let ins = Model::new(&ins_shape, ts as usize, r.next());
                a.insert(&ins.data, axis, at).unwrap();
                let mut new_shape = m.shape.clone();
                new_shape[axis] += cs;
                let mut m2 = Model {
                    shape: new_shape.clone(),
                    ts: m.ts,
                    data: vec![0; new_shape.iter().product::<i64>() as usize * m.ts],
                };
                let zero = vec![0i64; nd];
                let mut before = m.shape.clone();
                before[axis] = at;
                m2.set(&zero, &before, &m.slice(&zero, &before));
                let mut s = zero.clone();
                s[axis] = at;
                let mut e = new_shape.clone();
                e[axis] = at + cs;
                m2.set(&s, &e, &ins.data);
                let mut s_old = zero.clone();
                s_old[axis] = at;
                let mut s_new = zero.clone();
                s_new[axis] = at + cs;
                m2.set(&s_new, &new_shape, &m.slice(&s_old, &m.shape));
                m = m2;
                check(&mut a, &m, "insert");
                // Delete the chunks just inserted.
                a.delete(axis, at, cs).unwrap();
                let mut s_keep = zero.clone();
                s_keep[axis] = at + cs;
                let mut back = m.shape.clone();
                back[axis] -= cs;
                let mut m3 = Model {
                    shape: back.clone(),
                    ts: m.ts,
                    data: vec![0; back.iter().product::<i64>() as usize * m.ts],
                };
                m3.set(&zero, &before, &m.slice(&zero, &before));
                let mut s3 = zero.clone();
                s3[axis] = at;
                m3.set(&s3, &back, &m.slice(&s_keep, &m.shape));
                m = m3;
                check(&mut a, &m, "delete");
                // Shrink at the end, then grow back: 3.3.5 keeps the data
                // of cut chunks, so only compare the part that survived.
                let small: Vec<i64> = m.shape.iter().map(|&s| 1 + r.below(s)).collect();
                a.resize(&small, None).unwrap();
                let ms = Model {
                    shape: small.clone(),
                    ts: m.ts,
                    data: m.slice(&zero, &small),
                };
                check(&mut a, &ms, "shrink");
                // Bad resizes.
                assert!(a.resize(&vec![-1; nd], None).is_err());
                let mut mid = small.clone();
                mid[axis] += 1;
                let mut st = zero.clone();
                st[axis] = if small[axis] > 1 { 1 } else { 0 };
                if st[axis] % cs != 0 {
                    assert!(a.resize(&mid, Some(&st)).is_err());
                }
                assert!(a.delete(axis, 0, small[axis] + 1).is_err());
                assert!(a.delete(nd, 0, 1).is_err());
                if let Some(path) = a.schunk().urlpath().map(str::to_string) {
                    let mut b = Array::open(&path, 0).unwrap();
                    check(&mut b, &ms, "reopened");
                }
            }
        }
    }
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn selections_match_the_model() {
    let mut r = Rng(0xfeed_beef_cafe_f00d);
    for nd in 1..=5 {
        for contiguous in [false, true] {
            let (shape, chunks, blocks) = random_layout(&mut r, nd);
            let p = params(storage(2, contiguous, None), &shape, &chunks, &blocks);
            let mut m = Model::new(&shape, 2, r.next());
            let mut a = Array::from_buffer(&p, &m.data).unwrap();
            // Sparse gather.
            let n: i64 = shape.iter().product();
            let coords: Vec<i64> = (0..20).map(|_| r.below(n)).collect();
            let mut buf = vec![0u8; 40];
            a.get_sparse_buffer(&coords, &mut buf).unwrap();
            let want: Vec<u8> = coords
                .iter()
                .flat_map(|&c| m.data[c as usize * 2..c as usize * 2 + 2].to_vec())
                .collect();
            assert_eq!(buf, want);
            assert!(a.get_sparse_buffer(&[n], &mut buf).is_err());
            assert!(a.get_sparse_buffer(&[-1], &mut buf).is_err());
            // Orthogonal get and set.
            let sel: Vec<Vec<i64>> = shape
                .iter()
                .map(|&s| (0..1 + r.below(4)).map(|_| r.below(s)).collect())
                .collect();
            let refs: Vec<&[i64]> = sel.iter().map(|v| &v[..]).collect();
            let bshape: Vec<i64> = sel.iter().map(|v| v.len() as i64).collect();
            let total: i64 = bshape.iter().product();
            let mut got = vec![0u8; total as usize * 2];
            a.get_orthogonal_selection(&refs, &mut got, &bshape).unwrap();
            let bstr = strides(&bshape);
            let astr = strides(&shape);
            for j in 0..total {
                let mut rest = j;
                let (mut src, mut dst) = (0i64, 0i64);
                for i in (0..nd).rev() {
                    let ji = rest % bshape[i];
                    rest /= bshape[i];
                    src += sel[i][ji as usize] * astr[i];
                    dst += ji * bstr[i];
                }
                assert_eq!(
                    &got[dst as usize * 2..dst as usize * 2 + 2],
                    &m.data[src as usize * 2..src as usize * 2 + 2]
                );
            }
            let vals = Model::new(&bshape, 2, r.next()).data;
            a.set_orthogonal_selection(&refs, &vals, &bshape).unwrap();
            // The model: apply in sorted (value, position) order per dim,
            // so the last position of a repeated index wins.
            let mut order: Vec<Vec<usize>> = sel
                .iter()
                .map(|v| {
                    let mut o: Vec<usize> = (0..v.len()).collect();
                    o.sort_by_key(|&j| (v[j], j));
                    o
                })
                .collect();
            let mut idx = vec![0usize; nd];
            loop {
                let (mut src, mut dst) = (0i64, 0i64);
                for i in 0..nd {
                    let j = order[i][idx[i]];
                    dst += sel[i][j] * astr[i];
                    src += j as i64 * bstr[i];
                }
                m.data[dst as usize * 2..dst as usize * 2 + 2]
                    .copy_from_slice(&vals[src as usize * 2..src as usize * 2 + 2]);
                let mut i = nd;
                let mut done = true;
                while i > 0 {
                    i -= 1;
                    idx[i] += 1;
                    if idx[i] < order[i].len() {
                        done = false;
                        break;
                    }
                    idx[i] = 0;
                }
                if done {
                    break;
                }
            }
            order.clear();
            check(&mut a, &m, "set_orthogonal");
            let mut bad = sel.clone();
            bad[0][0] = shape[0];
            let refs: Vec<&[i64]> = bad.iter().map(|v| &v[..]).collect();
            assert_eq!(
                a.get_orthogonal_selection(&refs, &mut got, &bshape),
                Err(Error::InvalidIndex)
            );
        }
    }
}

#[test]
fn copies_slices_concatenation_and_views() {
    let mut r = Rng(0x0bad_c0de_dead_beef);
    for nd in 1..=4 {
        let (shape, chunks, blocks) = random_layout(&mut r, nd);
        let p = params(storage(4, true, None), &shape, &chunks, &blocks);
        let m = Model::new(&shape, 4, r.next());
        let mut a = Array::from_buffer(&p, &m.data).unwrap();
        a.schunk_mut().vlmeta_add("note", b"hello", None).unwrap();
        // Same partition: the super-chunk is copied.
        let mut c = copy_array(&mut a, &p).unwrap();
        check(&mut c, &m, "copy");
        // Another partition: re-chunked, vlmetalayers carried.
        let (_, chunks2, blocks2) = random_layout(&mut r, nd);
        let chunks2: Vec<i32> = chunks2.iter().zip(&shape).map(|(&c, &s)| c.min(s as i32)).collect();
        let blocks2: Vec<i32> = blocks2.iter().zip(&chunks2).map(|(&b, &c)| b.min(c)).collect();
        let p2 = params(storage(4, false, None), &shape, &chunks2, &blocks2);
        let mut c2 = copy_array(&mut a, &p2).unwrap();
        check(&mut c2, &m, "copy re-chunked");
        assert_eq!(c2.schunk().vlmeta_get("note").unwrap(), b"hello");
        // A slice into a new array.
        let (start, stop) = random_region(&mut r, &shape);
        let mut s = a.get_slice(&p2, &start, &stop).unwrap();
        let sub: Vec<i64> = start.iter().zip(&stop).map(|(a, b)| b - a).collect();
        let ms = Model {
            shape: sub,
            ts: 4,
            data: m.slice(&start, &stop),
        };
        check(&mut s, &ms, "get_slice");
        // Concatenate along each axis, aligned or not.
        for axis in 0..nd {
            let mut other_shape = shape.clone();
            other_shape[axis] = 1 + r.below(5);
            for chunks_b in [chunks.clone(), chunks2.clone()] {
                let blocks_b: Vec<i32> = chunks_b.iter().map(|&c| c.min(2)).collect();
                let pb = params(storage(4, true, None), &other_shape, &chunks_b, &blocks_b);
                let mb = Model::new(&other_shape, 4, r.next());
                let mut b = Array::from_buffer(&pb, &mb.data).unwrap();
                let mut d = copy_array(&mut a, &p).unwrap();
                concatenate(&mut d, &mut b, axis as i64).unwrap();
                let mut big = shape.clone();
                big[axis] += other_shape[axis];
                let mut mm = m.resized(&big);
                let mut s0 = vec![0i64; nd];
                s0[axis] = shape[axis];
                mm.set(&s0, &big, &mb.data);
                check(&mut d, &mm, "concatenate");
            }
            let mut wrong = shape.clone();
            wrong[(axis + 1) % nd] += 1;
            if nd > 1 {
                let pw = params(storage(4, true, None), &wrong, &chunks, &blocks);
                let mut w = Array::new(&pw, Fill::Zeros).unwrap();
                assert!(concatenate(&mut a, &mut w, axis as i64).is_err());
            }
        }
        // Views: add dimensions, then take them away again.
        let mut axis = vec![false; nd + 2];
        axis[0] = true;
        axis[nd + 1] = true;
        let mut v = a.expand_dims(&axis).unwrap();
        assert_eq!(v.ndim(), nd + 2);
        assert_eq!(v.to_vec().unwrap(), m.data);
        assert_eq!(v.schunk().vlmeta_get("note").unwrap(), b"hello");
        let mut back = v.squeeze().unwrap();
        assert!(back.ndim() <= nd);
        assert_eq!(back.to_vec().unwrap(), m.data);
        assert!(a.expand_dims(&vec![false; nd + 1]).is_err());
    }
    // A squeeze across a dimension whose chunks are larger than 1.
    let p = params(storage(4, true, None), &[1, 10, 3], &[4, 4, 3], &[2, 3, 2]);
    let m = Model::new(&[1, 10, 3], 4, 5);
    let mut a = Array::from_buffer(&p, &m.data).unwrap();
    let mut v = a.squeeze_index(&[true, false, false]).unwrap();
    assert_eq!(v.shape(), &[10, 3]);
    assert_eq!(v.to_vec().unwrap(), m.data);
    assert_eq!(a.squeeze_index(&[false, true, false]).unwrap_err(), Error::InvalidIndex);
    // Views refuse arrays with other metalayers.
    let mut pm = p.clone();
    pm.metalayers = vec![("extra".into(), vec![1])];
    let mut am = Array::from_buffer(&pm, &m.data).unwrap();
    assert!(am.squeeze().is_err());
}

/// A copy to another typesize moves bytes, chunk by chunk, as 3.3.5's
/// `b2nd_get_slice` does: with one chunk, the source's bytes then zeros.
/// The same partition is re-chunked too (3.3.5 copies the chunks as they
/// are there, into an array it cannot read back).
#[test]
fn copies_to_another_typesize_move_bytes() {
    let shape = [6i64, 5];
    let m = Model::new(&shape, 4, 7);
    let p = params(storage(4, false, None), &shape, &[6, 5], &[3, 5]);
    let mut a = Array::from_buffer(&p, &m.data).unwrap();
    let wide = params(storage(8, false, None), &shape, &[6, 5], &[3, 5]);
    let mut c = copy_array(&mut a, &wide).unwrap();
    assert_eq!(c.typesize(), 8);
    let mut want = m.data.clone();
    want.resize(m.data.len() * 2, 0);
    assert_eq!(c.to_vec().unwrap(), want);
    let narrow = params(storage(2, false, None), &shape, &[6, 5], &[3, 5]);
    assert!(copy_array(&mut a, &narrow).is_err());
}

#[test]
fn bad_metalayers_are_errors() {
    let base = serialize_meta(&[10, 10], &[5, 5], &[5, 5], Some("<i4"), 0).unwrap();
    let cases: Vec<Vec<u8>> = vec![
        // Zero chunk or block dimension for a non-empty one.
        serialize_meta(&[10, 10], &[0, 5], &[0, 5], None, 0).unwrap(),
        serialize_meta(&[10, 10], &[5, 5], &[5, 0], None, 0).unwrap(),
        // Overflowing products and negative values.
        serialize_meta(&[i64::MAX, 2], &[5, 5], &[5, 5], None, 0).unwrap(),
        serialize_meta(&[10, 10], &[1 << 20, 1 << 20], &[1, 1], None, 0).unwrap(),
        serialize_meta(&[-10, 10], &[5, 5], &[5, 5], None, 0).unwrap(),
        base[..base.len() - 2].to_vec(),
        vec![0xc1; 4],
    ];
    for (i, c) in cases.iter().enumerate() {
        let mut sc = SChunk::new(storage(4, true, None)).unwrap();
        sc.meta_add("b2nd", c).unwrap();
        assert!(Array::from_schunk(sc).is_err(), "case {i}");
    }
    let sc = SChunk::new(storage(4, true, None)).unwrap();
    assert_eq!(Array::from_schunk(sc).unwrap_err(), Error::MetalayerNotFound);
    // A metalayer that claims more chunks than are stored: reads fail.
    let mut sc = SChunk::new(storage(4, true, None)).unwrap();
    sc.meta_add("b2nd", &base).unwrap();
    sc.append_buffer(&[0u8; 100]).unwrap();
    let mut a = Array::from_schunk(sc).unwrap();
    assert!(a.to_vec().is_err());
    // Growing such an array fails at once, even when the shape claims
    // billions of chunks (3.3.5 walks them all first).
    let huge = serialize_meta(&[5 << 40, 10], &[5, 5], &[5, 5], Some("<i4"), 0).unwrap();
    for meta in [&base, &huge] {
        let mut sc = SChunk::new(storage(4, true, None)).unwrap();
        sc.meta_add("b2nd", meta).unwrap();
        sc.append_buffer(&[0u8; 100]).unwrap();
        let mut a = Array::from_schunk(sc).unwrap();
        assert_eq!(a.append(&[0u8; 40], 0).unwrap_err(), Error::ChunkInsert);
        assert_eq!(a.schunk().nchunks(), 1);
    }
    // Chunks of the wrong size: errors too.
    let mut sc = SChunk::new(storage(4, true, None)).unwrap();
    sc.meta_add("b2nd", &base).unwrap();
    for _ in 0..4 {
        sc.append_buffer(&[0u8; 96]).unwrap();
    }
    let mut a = Array::from_schunk(sc).unwrap();
    assert!(a.to_vec().is_err());
    let mut buf = [0u8; 4];
    assert!(a.get_slice_buffer(&[0, 0], &[1, 1], &mut buf, &[1, 1]).is_err());
}

#[test]
fn refresh_follows_another_handle() {
    let dir = tmpdir("refresh");
    let path = dir.join("r.b2nd").to_string_lossy().into_owned();
    let p = params(storage(4, true, Some(path.clone())), &[10, 4], &[4, 4], &[2, 2]);
    let m = Model::new(&[10, 4], 4, 3);
    let mut w = Array::from_buffer(&p, &m.data).unwrap();
    let mut rd = Array::open(&path, 0).unwrap();
    assert!(!rd.refresh().unwrap());
    assert!(!w.refresh().unwrap());
    w.resize(&[20, 4], None).unwrap();
    assert!(!w.refresh().unwrap());
    assert!(rd.refresh().unwrap());
    assert_eq!(rd.shape(), &[20, 4]);
    assert_eq!(rd.to_vec().unwrap(), m.resized(&[20, 4]).data);
    let _ = std::fs::remove_dir_all(&dir);
}

/// A file system counting the bytes read.
struct CountFs {
    read: std::sync::Arc<std::sync::atomic::AtomicU64>,
}

struct CountFile {
    inner: Box<dyn crate::engine::frame::FrameFile>,
    read: std::sync::Arc<std::sync::atomic::AtomicU64>,
}

impl crate::engine::frame::FrameFile for CountFile {
    fn size(&mut self) -> crate::engine::error::Result<u64> {
        self.inner.size()
    }
    fn read_at(&mut self, pos: u64, buf: &mut [u8]) -> crate::engine::error::Result<()> {
        self.read
            .fetch_add(buf.len() as u64, std::sync::atomic::Ordering::Relaxed);
        self.inner.read_at(pos, buf)
    }
    fn write_at(&mut self, pos: u64, data: &[u8]) -> crate::engine::error::Result<()> {
        self.inner.write_at(pos, data)
    }
    fn truncate(&mut self, len: u64) -> crate::engine::error::Result<()> {
        self.inner.truncate(len)
    }
    fn sync(&mut self) -> crate::engine::error::Result<()> {
        self.inner.sync()
    }
}

impl crate::engine::frame::FrameFs for CountFs {
    fn open(
        &self,
        path: &std::path::Path,
        write: bool,
    ) -> crate::engine::error::Result<Box<dyn crate::engine::frame::FrameFile>> {
        Ok(Box::new(CountFile {
            inner: crate::engine::frame::StdFs.open(path, write)?,
            read: self.read.clone(),
        }))
    }
    fn create(&self, path: &std::path::Path) -> crate::engine::error::Result<Box<dyn crate::engine::frame::FrameFile>> {
        crate::engine::frame::StdFs.create(path)
    }
    fn rename(&self, from: &std::path::Path, to: &std::path::Path) -> crate::engine::error::Result<()> {
        crate::engine::frame::StdFs.rename(from, to)
    }
    fn remove_file(&self, path: &std::path::Path) -> crate::engine::error::Result<()> {
        crate::engine::frame::StdFs.remove_file(path)
    }
    fn create_dir(&self, path: &std::path::Path) -> crate::engine::error::Result<()> {
        crate::engine::frame::StdFs.create_dir(path)
    }
    fn stat(&self, path: &std::path::Path) -> Option<bool> {
        crate::engine::frame::StdFs.stat(path)
    }
    fn sync_dir(&self, path: &std::path::Path) -> crate::engine::error::Result<()> {
        crate::engine::frame::StdFs.sync_dir(path)
    }
}

#[test]
fn small_slices_read_only_their_blocks_from_disk() {
    use std::sync::atomic::{AtomicU64, Ordering};
    let dir = tmpdir("lazy");
    for contiguous in [true, false] {
        let path = dir.join(format!("l{contiguous}.b2nd")).to_string_lossy().into_owned();
        let mut st = storage(8, contiguous, Some(path.clone()));
        st.cparams.clevel = 1;
        let p = params(st, &[400, 400], &[200, 200], &[20, 20]);
        let m = Model::new(&[400, 400], 8, 77);
        drop(Array::from_buffer(&p, &m.data).unwrap());
        let read = std::sync::Arc::new(AtomicU64::new(0));
        let fs = std::sync::Arc::new(CountFs { read: read.clone() });
        let sc = SChunk::open_with(&path, 0, fs).unwrap();
        let mut a = Array::from_schunk(sc).unwrap();
        read.store(0, Ordering::Relaxed);
        let mut buf = vec![0u8; 5 * 5 * 8];
        a.get_slice_buffer(&[203, 305], &[208, 310], &mut buf, &[5, 5]).unwrap();
        assert_eq!(buf, m.slice(&[203, 305], &[208, 310]));
        let got = read.load(Ordering::Relaxed);
        // One block is 3200 bytes (incompressible data); a chunk 320000.
        assert!(
            got < 12_000,
            "read {got} bytes for one block (contiguous: {contiguous})"
        );
        // A slice across two chunks reads two blocks' worth, not two chunks.
        read.store(0, Ordering::Relaxed);
        a.get_slice_buffer(&[198, 0], &[202, 2], &mut buf[..4 * 2 * 8], &[4, 2])
            .unwrap();
        assert_eq!(&buf[..64], &m.slice(&[198, 0], &[202, 2])[..]);
        let got = read.load(Ordering::Relaxed);
        assert!(
            got < 24_000,
            "read {got} bytes for two blocks (contiguous: {contiguous})"
        );
    }
    let _ = std::fs::remove_dir_all(&dir);
}

/// A chunk a region covers is stored as the plain compression of its
/// zero-padded C-order buffer, whether its blocks are shuffled row by row
/// as they are gathered (whole blocks with rows of 32 shuffle items or
/// more) or gathered first (padding, short rows, other item sizes,
/// BITSHUFFLE, no AVX2), with 1 and 2 threads.
#[test]
fn chunks_built_from_rows_are_the_plain_compression_of_the_chunk() {
    use crate::engine::context::Context;
    use crate::engine::cpu;
    let _mask = crate::engine::filters::shuffle::test_util::MASK_LOCK
        .lock()
        .unwrap_or_else(|e| e.into_inner());
    // (shape, chunkshape, blockshape): padding at the far edges with rows
    // of 32 and 64 items; rows of 20 items; a 1-D array.
    let layouts: &[(&[i64], &[i32], &[i32])] = &[
        (&[40, 100], &[16, 64], &[8, 32]),
        (&[7, 9, 128], &[4, 8, 64], &[2, 4, 64]),
        (&[33, 70], &[32, 64], &[16, 20]),
        (&[300], &[128], &[64]),
    ];
    let mut seed = 0x9e37_79b9_7f4a_7c15u64;
    for &(shape, chunks, blocks) in layouts {
        for ts in [2usize, 4, 8, 16, 3] {
            for filters in [[0, 0, 0, 0, 0, 1], [0, 0, 0, 0, 0, 2]] {
                for mask in [cpu::FEATURE_ALL, 0] {
                    let old = cpu::set_feature_mask(mask);
                    for threads in [1i16, 2] {
                        seed = seed.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1);
                        let mut st = storage(ts as i32, false, None);
                        st.cparams.filters = filters;
                        st.cparams.nthreads = threads;
                        let m = Model::new(shape, ts, seed);
                        let mut a = Array::from_buffer(&params(st, shape, chunks, blocks), &m.data).unwrap();
                        let what =
                            format!("{shape:?}/{chunks:?}/{blocks:?} ts {ts} {filters:?} mask {mask} t{threads}");
                        check(&mut a, &m, &what);
                        let sc = a.schunk_mut();
                        let mut ctx = Context::compressor(sc.cparams());
                        for n in 0..sc.nchunks() {
                            let raw = sc.decompress_chunk_vec(n).unwrap();
                            let mut want = vec![0u8; raw.len() + crate::engine::constants::MAX_OVERHEAD];
                            let len = ctx.compress(&raw, &mut want).unwrap();
                            assert_eq!(sc.get_chunk(n).unwrap()[..], want[..len], "chunk {n} of {what}");
                        }
                    }
                    cpu::set_feature_mask(old);
                }
            }
        }
    }
}
