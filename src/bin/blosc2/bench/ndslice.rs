//! The `b2nd` cells: a 3-D array built from a buffer (`b2nd_from_cbuffer`,
//! timed as compression) and a slice of it read back into a C buffer
//! (`b2nd_get_slice_cbuffer`, timed as decompression; speed in MB/s of
//! the slice's bytes).

use std::time::Instant;

use blosc2::engine::b2nd::{Array, ArrayParams};
use blosc2::engine::schunk::{SChunk, Storage};

use super::measure::{even, finish, order, our_params, rel, touched, verify, Budget, Measured, WHO};
use super::reference::{RefArray, RefLib, Settings};

/// The slice a cell reads.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SliceKind {
    /// An off-grid box over many partial chunks and blocks.
    Box,
    /// One plane across the first axis (a thin cut through every chunk
    /// of one chunk row).
    Plane,
}

impl SliceKind {
    pub fn name(self) -> &'static str {
        match self {
            SliceKind::Box => "box",
            SliceKind::Plane => "plane",
        }
    }
}

/// Items per plane of the array: 128 x 128.
const PLANE: [i64; 2] = [128, 128];
const CHUNKSHAPE: [i32; 3] = [64, 64, 64];
const BLOCKSHAPE: [i32; 3] = [8, 32, 32];

/// The array's shape for `len` bytes of `itemsize`-byte items.
fn shape_for(len: usize, itemsize: usize) -> Result<[i64; 3], String> {
    let rows = (len / itemsize) as i64 / (PLANE[0] * PLANE[1]);
    if rows < 64 {
        return Err("data set too small for the b2nd cell (needs 8 MiB of 8-byte items)".into());
    }
    Ok([rows, PLANE[0], PLANE[1]])
}

fn slice_of(kind: SliceKind, shape: &[i64; 3]) -> ([i64; 3], [i64; 3]) {
    match kind {
        SliceKind::Box => ([shape[0] / 7, 21, 5], [shape[0] * 5 / 8, 100, 120]),
        SliceKind::Plane => ([shape[0] / 2, 0, 0], [shape[0] / 2 + 1, shape[1], shape[2]]),
    }
}

/// The slice `[start, stop)` of the C-order array `src`, computed directly.
fn expected_slice(src: &[u8], shape: &[i64; 3], start: &[i64; 3], stop: &[i64; 3], ts: usize) -> Vec<u8> {
    let mut out = Vec::new();
    let row = (stop[2] - start[2]) as usize * ts;
    for i in start[0]..stop[0] {
        for j in start[1]..stop[1] {
            let at = (((i * shape[1] + j) * shape[2] + start[2]) as usize) * ts;
            out.extend_from_slice(&src[at..at + row]);
        }
    }
    out
}

enum AnyArray<'l> {
    Ours(Box<Array<SChunk>>),
    Ref(RefArray<'l>),
}

/// Build the array from `data` and read the `kind` slice back, on both
/// sides, alternating them.
pub fn slice(
    data: &[u8],
    s: &Settings,
    kind: SliceKind,
    lib: Option<&RefLib>,
    budget: Budget,
) -> Result<Measured, String> {
    let ns = if lib.is_some() { 2 } else { 1 };
    let ts = s.typesize.max(1) as usize;
    let shape = shape_for(data.len(), ts)?;
    let src = &data[..shape.iter().product::<i64>() as usize * ts];
    let (start, stop) = slice_of(kind, &shape);
    let want = expected_slice(src, &shape, &start, &stop, ts);
    let (cp, dp) = our_params(s);
    let params = ArrayParams::new(
        Storage {
            contiguous: false,
            urlpath: None,
            cparams: cp,
            dparams: dp,
            fs: None,
        },
        &shape,
        &CHUNKSHAPE,
        &BLOCKSHAPE,
        None,
        0,
        Vec::new(),
    )
    .map_err(|e| format!("our b2nd params: {e}"))?;
    let slice_shape: Vec<i64> = start.iter().zip(&stop).map(|(a, b)| b - a).collect();
    let mut outs: Vec<Vec<u8>> = (0..ns).map(|_| touched(want.len())).collect();
    let mut ct = vec![Vec::new(); ns];
    let mut dt = vec![Vec::new(); ns];
    let mut ratio = vec![0.0; ns];
    let reps = even(budget.reps);
    let mut rep = 0;
    while rep <= reps {
        let mut arrays: Vec<Option<AnyArray<'_>>> = (0..ns).map(|_| None).collect();
        for k in order(rep, ns) {
            let t = Instant::now();
            arrays[k] = Some(if k == 0 {
                AnyArray::Ours(Box::new(
                    Array::from_buffer(&params, src).map_err(|e| format!("our b2nd from_buffer: {e}"))?,
                ))
            } else {
                let lib = lib.ok_or("no reference")?;
                AnyArray::Ref(lib.array(s, &shape, &CHUNKSHAPE, &BLOCKSHAPE, src)?)
            });
            if rep > 0 {
                ct[k].push(t.elapsed().as_secs_f64());
            }
        }
        for out in outs.iter_mut() {
            out.fill(0x5A);
        }
        for k in order(rep, ns) {
            let out = &mut outs[k];
            let Some(a) = arrays[k].as_mut() else { continue };
            let t = Instant::now();
            match a {
                AnyArray::Ours(x) => x
                    .get_slice_buffer(&start, &stop, out, &slice_shape)
                    .map_err(|e| format!("our b2nd get_slice_buffer: {e}"))?,
                AnyArray::Ref(r) => r.get_slice(&start, &stop, out)?,
            }
            if rep > 0 {
                dt[k].push(t.elapsed().as_secs_f64());
            }
        }
        for k in 0..ns {
            verify(&outs[k], &want, WHO[k])?;
            let (nb, cb) = match arrays[k].as_ref() {
                Some(AnyArray::Ours(x)) => (x.schunk().nbytes(), x.schunk().cbytes()),
                Some(AnyArray::Ref(r)) => r.sizes(),
                None => (0, 1),
            };
            ratio[k] = nb as f64 / cb.max(1) as f64;
        }
        drop(arrays);
        rep += 1;
    }
    // Speeds in MB/s of the slice for decompression; compression is the
    // whole array, so scale its times to the slice's bytes.
    let scale = want.len() as f64 / src.len() as f64;
    let ct: Vec<Vec<f64>> = ct.iter().map(|v| v.iter().map(|t| t * scale).collect()).collect();
    Ok(Measured {
        sides: finish(ratio, want.len(), &ct, &dt),
        rel: rel(&ct, &dt),
        kind: "b2nd",
        identical: None,
        units: (1, 1),
        reps,
        bytes: want.len(),
        memcpy: None,
        memcpy_rel: None,
    })
}
