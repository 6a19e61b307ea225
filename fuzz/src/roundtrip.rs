//! Compress then decompress over drawn parameters (codec, level, filter
//! pipeline, typesize, block size, split mode, dictionary, threads): the
//! output must be the input (or, through trunc_prec, agree between thread
//! counts), and item ranges must match the whole.

use std::ffi::c_void;

use blosc2::capi::blosc2_cparams;
use blosc2::capi::chunkinfo::blosc2_cbuffer_sizes;
use blosc2::capi::context::{blosc2_compress_ctx, blosc2_create_cctx, blosc2_create_dctx, blosc2_free_ctx};
use blosc2::capi::context_read::{blosc2_decompress_ctx, blosc2_getitem_ctx};
use blosc2::capi::misc::blosc2_get_blosc2_dparams_defaults;

use super::input::{fill, Input};
use super::params::{draw, Drawn};

/// `BLOSC_ZSTD`.
const ZSTD: u8 = 5;
/// `BLOSC2_MAX_OVERHEAD`: room a chunk needs beyond its data.
pub const MAX_OVERHEAD: usize = 32;

/// Data of a drawn length from the rest of the input.
pub fn data(input: &mut Input) -> Vec<u8> {
    let len = match input.byte() % 4 {
        0 => usize::MAX,
        1 => input.below(256),
        2 => input.below(1 << 16),
        _ => input.below(1 << 18),
    };
    let seed = std::mem::replace(input, Input::new(&[])).rest();
    if len == usize::MAX {
        seed.to_vec()
    } else {
        fill(&seed[..seed.len().min(64)], len)
    }
}

/// Our compression of `src` with `cp`: the chunk, or the error code.
pub fn compress(cp: &blosc2_cparams, src: &[u8]) -> Result<Vec<u8>, i32> {
    // SAFETY: drawn parameters with NULL hooks and pointers.
    let cctx = unsafe { blosc2_create_cctx(*cp) };
    if cctx.is_null() {
        return Err(-1);
    }
    let mut dest = vec![0u8; src.len() + MAX_OVERHEAD];
    // SAFETY: `src` readable and `dest` writable for the sizes passed.
    let rc = unsafe {
        blosc2_compress_ctx(
            cctx,
            src.as_ptr().cast(),
            src.len() as i32,
            dest.as_mut_ptr().cast(),
            dest.len() as i32,
        )
    };
    // SAFETY: from blosc2_create_cctx, freed once.
    unsafe { blosc2_free_ctx(cctx) };
    if rc <= 0 {
        return Err(rc);
    }
    dest.truncate(rc as usize);
    Ok(dest)
}

/// Our decompression of `chunk` into `nbytes` with `nthreads` threads.
pub fn decompress(chunk: &[u8], nbytes: usize, nthreads: i16) -> Result<Vec<u8>, i32> {
    let mut dp = blosc2_get_blosc2_dparams_defaults();
    dp.nthreads = nthreads;
    // SAFETY: default parameters with a thread count.
    let dctx = unsafe { blosc2_create_dctx(dp) };
    assert!(!dctx.is_null(), "blosc2_create_dctx failed");
    let mut out = vec![0u8; nbytes];
    // SAFETY: `chunk` readable and `out` writable for the sizes passed.
    let rc = unsafe {
        blosc2_decompress_ctx(
            dctx,
            chunk.as_ptr().cast(),
            chunk.len() as i32,
            out.as_mut_ptr().cast(),
            nbytes as i32,
        )
    };
    // SAFETY: from blosc2_create_dctx, freed once.
    unsafe { blosc2_free_ctx(dctx) };
    if rc < 0 {
        return Err(rc);
    }
    assert_eq!(rc as usize, nbytes, "decompressed size");
    Ok(out)
}

/// The fuzz body.
pub fn run(bytes: &[u8]) {
    let mut input = Input::new(bytes);
    let Drawn { cparams, lossy } = draw(&mut input, 1 << 18);
    let start = input.u32();
    let count = input.u16();
    let src = data(&mut input);
    let chunk = match compress(&cparams, &src) {
        Ok(c) => c,
        Err(rc) => {
            // Dictionaries are for ZSTD only (3.3.5 refuses them too).
            let dict_refused = cparams.use_dict != 0 && cparams.compcode != ZSTD;
            assert!(
                lossy || dict_refused,
                "compress failed ({rc}) for {}",
                describe(&cparams, src.len())
            );
            return;
        }
    };
    let (mut nbytes, mut cbytes, mut blocksize) = (0, 0, 0);
    // SAFETY: `chunk` holds at least a header (compress succeeded).
    unsafe {
        blosc2_cbuffer_sizes(
            chunk.as_ptr().cast::<c_void>(),
            &mut nbytes,
            &mut cbytes,
            &mut blocksize,
        )
    };
    assert_eq!(nbytes as usize, src.len(), "header nbytes");
    assert_eq!(cbytes as usize, chunk.len(), "header cbytes");
    let one = decompress(&chunk, src.len(), 1);
    let two = decompress(&chunk, src.len(), 2);
    let one = one.unwrap_or_else(|rc| panic!("decompress failed ({rc}) for {}", describe(&cparams, src.len())));
    assert!(
        two.as_ref() == Ok(&one),
        "1 and 2 threads differ for {}",
        describe(&cparams, src.len())
    );
    if !lossy {
        assert!(one == src, "round trip differs for {}", describe(&cparams, src.len()));
    }
    items(&chunk, &one, cparams.typesize as usize, start, count);
}

/// A range of items must be the same bytes as in the whole.
fn items(chunk: &[u8], whole: &[u8], typesize: usize, start: u32, count: u16) {
    let nitems = whole.len() / typesize;
    if nitems == 0 {
        return;
    }
    let start = start as usize % nitems;
    let count = (count as usize).min(nitems - start);
    let dp = blosc2_get_blosc2_dparams_defaults();
    // SAFETY: default parameters.
    let dctx = unsafe { blosc2_create_dctx(dp) };
    let mut out = vec![0u8; count * typesize];
    // SAFETY: `chunk` readable and `out` writable for the sizes passed.
    let rc = unsafe {
        blosc2_getitem_ctx(
            dctx,
            chunk.as_ptr().cast(),
            chunk.len() as i32,
            start as i32,
            count as i32,
            out.as_mut_ptr().cast(),
            out.len() as i32,
        )
    };
    // SAFETY: from blosc2_create_dctx, freed once.
    unsafe { blosc2_free_ctx(dctx) };
    assert_eq!(rc as usize, out.len(), "getitem({start}, {count}) returned {rc}");
    assert!(
        out[..] == whole[start * typesize..(start + count) * typesize],
        "getitem({start}, {count}) differs"
    );
}

/// The parameters in a failure message.
pub fn describe(cp: &blosc2_cparams, len: usize) -> String {
    format!(
        "codec {} clevel {} typesize {} blocksize {} splitmode {} dict {} nthreads {} filters {:?} meta {:?} len {len}",
        cp.compcode,
        cp.clevel,
        cp.typesize,
        cp.blocksize,
        cp.splitmode,
        cp.use_dict,
        cp.nthreads,
        cp.filters,
        cp.filters_meta
    )
}
