//! Plugin chunks and b2nd frames with plugins. The first bytes draw a
//! plugin set-up (every plugin codec and filter id 3.3.5 knows, the ones it
//! loads at run time included, with a drawn meta), an item size and a b2nd
//! geometry; the rest is data. Then:
//!
//! 1. a b2nd array with those parameters is made from the data (the
//!    plugins may refuse the geometry) and read back: lossless plugins
//!    must give the data back;
//! 2. one chunk is compressed in that array's super-chunk and decoded
//!    whole and by item ranges in it, in a super-chunk whose `b2nd`
//!    metalayer lies (another drawn geometry and item size), and in none;
//! 3. the same with drawn bytes of the chunk flipped, and with the chunk's
//!    streams replaced by the fuzzer's bytes;
//! 4. the array's frame, as written and with bytes flipped, goes through
//!    the b2nd frame target's reads and edits.
//!
//! No step may crash; a decode that succeeds fills its destination.

use std::ptr;

use blosc2::capi::b2nd::{b2nd_create_ctx, b2nd_free, b2nd_free_ctx, b2nd_from_cbuffer, b2nd_to_cframe, b2nd_zeros};
use blosc2::capi::b2nd_ops::b2nd_to_cbuffer;
use blosc2::capi::context::{blosc2_compress_ctx, blosc2_create_cctx, blosc2_create_dctx, blosc2_free_ctx};
use blosc2::capi::context_read::{blosc2_decompress_ctx, blosc2_getitem_ctx};
use blosc2::capi::misc::{
    blosc2_get_blosc2_cparams_defaults, blosc2_get_blosc2_dparams_defaults, blosc2_get_blosc2_storage_defaults,
};
use blosc2::capi::{b2nd_array_t, blosc2_cparams};

use super::input::{fill, Input};

/// Plugin codec ids: NDLZ, the three ZFP, and those 3.3.5 loads by name.
const CODECS: [u8; 9] = [32, 33, 34, 35, 36, 37, 38, 39, 40];
/// Plugin filter ids: NDCELL, NDMEAN, both BYTEDELTA, INT_TRUNC.
const FILTERS: [u8; 5] = [32, 33, 34, 35, 36];
/// Built-in codecs and filters the plugins are mixed with.
const PLAIN_CODECS: [u8; 3] = [0, 1, 5];
const PLAIN_FILTERS: [u8; 4] = [0, 1, 2, 3];
/// Extended chunk header length, and where cbytes is in it.
const HEADER: usize = 32;
const CBYTES_AT: usize = 12;

/// A drawn b2nd geometry (at most 4 dimensions of at most 12 items per
/// block, so a chunk stays small).
struct Geometry {
    ndim: usize,
    shape: [i64; 4],
    chunkshape: [i32; 4],
    blockshape: [i32; 4],
}

impl Geometry {
    fn draw(input: &mut Input) -> Geometry {
        let ndim = 1 + input.below(4);
        let mut g = Geometry {
            ndim,
            shape: [1; 4],
            chunkshape: [1; 4],
            blockshape: [1; 4],
        };
        for d in 0..ndim {
            let b = 1 + input.below(12) as i32;
            let c = b * (1 + input.below(2) as i32);
            g.blockshape[d] = b;
            g.chunkshape[d] = c;
            g.shape[d] = i64::from(c) + input.below(c as usize + 1) as i64 - 1;
            g.shape[d] = g.shape[d].max(1);
        }
        g
    }

    fn items(&self) -> usize {
        self.shape[..self.ndim].iter().product::<i64>() as usize
    }

    fn block_items(&self) -> usize {
        self.blockshape[..self.ndim].iter().product::<i32>() as usize
    }
}

/// An array of this geometry and these parameters: from `data` when
/// given, zeros otherwise. Null when refused.
fn make_array(cparams: &blosc2_cparams, g: &Geometry, data: Option<&[u8]>) -> *mut b2nd_array_t {
    let mut cp = *cparams;
    cp.schunk = ptr::null_mut();
    let mut storage = blosc2_get_blosc2_storage_defaults();
    storage.cparams = &mut cp;
    // SAFETY: the shapes have `ndim` entries; `storage` and `cp` outlive
    // the call (the context copies them).
    let ctx = unsafe {
        b2nd_create_ctx(
            &storage,
            g.ndim as i8,
            g.shape.as_ptr(),
            g.chunkshape.as_ptr(),
            g.blockshape.as_ptr(),
            ptr::null(),
            0,
            ptr::null(),
            0,
        )
    };
    if ctx.is_null() {
        return ptr::null_mut();
    }
    let mut array: *mut b2nd_array_t = ptr::null_mut();
    // SAFETY: live context, writable output, `data` readable for its length.
    let rc = unsafe {
        match data {
            Some(d) => b2nd_from_cbuffer(ctx, &mut array, d.as_ptr().cast(), d.len() as i64),
            None => b2nd_zeros(ctx, &mut array),
        }
    };
    // SAFETY: created above, freed once.
    unsafe { b2nd_free_ctx(ctx) };
    if rc < 0 {
        assert!(array.is_null(), "b2nd array refused ({rc}) but left set");
        return ptr::null_mut();
    }
    array
}

/// Decode `chunk` whole and by two item ranges with `schunk` (may be
/// null) as the super-chunk.
fn decode(chunk: &[u8], schunk: *mut blosc2::capi::blosc2_schunk, nbytes: usize, typesize: usize) {
    let mut dparams = blosc2_get_blosc2_dparams_defaults();
    dparams.schunk = schunk.cast();
    // SAFETY: plain parameters; the super-chunk, if any, is live.
    let ctx = unsafe { blosc2_create_dctx(dparams) };
    assert!(!ctx.is_null());
    let mut out = vec![0u8; nbytes];
    // SAFETY: `chunk` readable, `out` writable for their lengths.
    let rc = unsafe {
        blosc2_decompress_ctx(
            ctx,
            chunk.as_ptr().cast(),
            chunk.len() as i32,
            out.as_mut_ptr().cast(),
            out.len() as i32,
        )
    };
    assert!(rc < 0 || rc as usize <= nbytes, "decoded {rc} bytes into {nbytes}");
    let items = nbytes / typesize.max(1);
    for (start, n) in [(0, items.min(3)), (items / 2, items - items / 2)] {
        let mut part = vec![0u8; n * typesize.max(1)];
        // SAFETY: as above.
        std::hint::black_box(unsafe {
            blosc2_getitem_ctx(
                ctx,
                chunk.as_ptr().cast(),
                chunk.len() as i32,
                start as i32,
                n as i32,
                part.as_mut_ptr().cast(),
                part.len() as i32,
            )
        });
    }
    // SAFETY: created above, freed once.
    unsafe { blosc2_free_ctx(ctx) };
}

/// The fuzz body.
pub fn run(data: &[u8]) {
    let mut input = Input::new(data);
    let mut cparams = blosc2_get_blosc2_cparams_defaults();
    cparams.nthreads = 1 + i16::from(input.flag());
    cparams.typesize = input.pick(&[1, 2, 4, 8]);
    cparams.clevel = input.byte() % 10;
    cparams.splitmode = input.pick(&[1, 2, 3, 4]);
    if input.flag() {
        cparams.compcode = input.pick(&CODECS);
        let any = input.byte();
        cparams.compcode_meta = input.pick(&[4, 8, 0, 12, 50, 100, 253, any]);
        cparams.filters = [0; 6];
    } else {
        cparams.compcode = input.pick(&PLAIN_CODECS);
    }
    let nfilters = input.below(3);
    for slot in 0..nfilters {
        let at = 5 - slot;
        if input.flag() {
            cparams.filters[at] = input.pick(&FILTERS);
            let any = input.byte();
            cparams.filters_meta[at] = input.pick(&[0, 1, 2, 4, 8, 12, 127, 200, any]);
        } else {
            cparams.filters[at] = input.pick(&PLAIN_FILTERS);
        }
    }
    let g = Geometry::draw(&mut input);
    let lie = Geometry::draw(&mut input);
    let lie_typesize: i32 = input.pick(&[1, 2, 4, 8, cparams.typesize]);
    let flips: Vec<(usize, u8)> = (0..input.below(5))
        .map(|_| (input.u16() as usize, input.byte() | 1))
        .collect();
    let seed = input.bytes(64).to_vec();
    let body = input.rest();

    let typesize = cparams.typesize as usize;
    let values = fill(&seed, g.items() * typesize);
    let array = make_array(&cparams, &g, Some(&values));
    if array.is_null() {
        return;
    }
    let lossless = !cparams.filters.iter().any(|f| [33, 36].contains(f)) && !(33..=35).contains(&cparams.compcode);
    let mut back = vec![0u8; values.len()];
    // SAFETY: live array, `back` writable for its length.
    let rc = unsafe { b2nd_to_cbuffer(array, back.as_mut_ptr().cast(), back.len() as i64) };
    if rc >= 0 && lossless {
        assert!(back == values, "a lossless plugin array does not read back");
    }

    // One chunk of whole blocks in the array's super-chunk.
    let mut cp = cparams;
    // SAFETY: a live array.
    cp.schunk = unsafe { (*array).sc }.cast();
    cp.blocksize = (g.block_items() * typesize) as i32;
    let src = fill(&seed, g.block_items() * typesize * 2);
    // SAFETY: plain parameters with a live super-chunk.
    let cctx = unsafe { blosc2_create_cctx(cp) };
    let mut chunk = vec![0u8; src.len() + HEADER];
    let rc = if cctx.is_null() {
        -1
    } else {
        // SAFETY: buffers readable/writable for their lengths.
        let rc = unsafe {
            blosc2_compress_ctx(
                cctx,
                src.as_ptr().cast(),
                src.len() as i32,
                chunk.as_mut_ptr().cast(),
                chunk.len() as i32,
            )
        };
        // SAFETY: created above, freed once.
        unsafe { blosc2_free_ctx(cctx) };
        rc
    };
    let liar = make_array(&cparams_with_typesize(&cparams, lie_typesize), &lie, None);
    // SAFETY: live arrays (the liar when not null).
    let (own, lying) = unsafe { ((*array).sc, if liar.is_null() { ptr::null_mut() } else { (*liar).sc }) };
    let schunks = [own, lying, ptr::null_mut()];
    if rc > 0 {
        chunk.truncate(rc as usize);
        for &sc in &schunks {
            decode(&chunk, sc, src.len(), typesize);
        }
        let mut bad = chunk.clone();
        for &(at, x) in &flips {
            let n = bad.len();
            bad[at % n] ^= x;
        }
        let mut swapped = chunk[..HEADER.min(chunk.len())].to_vec();
        swapped.extend_from_slice(body);
        if swapped.len() >= HEADER {
            let cbytes = (swapped.len() as u32).to_le_bytes();
            swapped[CBYTES_AT..CBYTES_AT + 4].copy_from_slice(&cbytes);
        }
        for &sc in &schunks {
            decode(&bad, sc, src.len(), typesize);
            decode(&swapped, sc, src.len(), typesize);
        }
    }

    frames(array, &flips);
    // SAFETY: live, freed once each.
    unsafe {
        b2nd_free(array);
        if !liar.is_null() {
            b2nd_free(liar);
        }
    }
}

fn cparams_with_typesize(cparams: &blosc2_cparams, typesize: i32) -> blosc2_cparams {
    let mut cp = *cparams;
    cp.typesize = typesize;
    cp
}

/// The array's frame, as written and with `flips`, through the b2nd frame
/// target.
fn frames(array: *mut b2nd_array_t, flips: &[(usize, u8)]) {
    let mut frame: *mut u8 = ptr::null_mut();
    let (mut len, mut needs_free) = (0i64, false);
    // SAFETY: live array, writable outputs.
    let rc = unsafe { b2nd_to_cframe(array, &mut frame, &mut len, &mut needs_free) };
    if rc < 0 || frame.is_null() {
        return;
    }
    // SAFETY: `frame` readable for `len` bytes until freed.
    let bytes = unsafe { std::slice::from_raw_parts(frame, len as usize) }.to_vec();
    if needs_free {
        // SAFETY: malloc'ed for us.
        unsafe { libc::free(frame.cast()) };
    }
    super::b2nd_frame::run(&bytes);
    if !flips.is_empty() && !bytes.is_empty() {
        let mut bad = bytes;
        for &(at, x) in flips {
            let n = bad.len();
            bad[at % n] ^= x;
        }
        super::b2nd_frame::run(&bad);
    }
}
