//! Arbitrary bytes as a chunk, through every C entry point that reads one:
//! sizes, validation, whole decompression (global, context with 1 and 2
//! threads, blosc1), a too-small destination, and item ranges (blosc2,
//! context, blosc1). None may crash, overrun, or allocate without bound;
//! all successful decodings of the same bytes must agree.

use std::ffi::c_void;

use blosc2::capi::chunkinfo::{blosc1_cbuffer_validate, blosc2_cbuffer_sizes};
use blosc2::capi::context::{blosc2_create_dctx, blosc2_free_ctx};
use blosc2::capi::context_read::{blosc2_decompress_ctx, blosc2_getitem_ctx};
use blosc2::capi::global::{blosc1_decompress, blosc1_getitem, blosc2_decompress, blosc2_getitem};
use blosc2::capi::misc::blosc2_get_blosc2_dparams_defaults;

/// Largest whole-chunk destination allocated (bigger chunks get ranges only).
pub const MAX_DEST: i32 = 32 << 20;
/// Largest item range decoded at once, in bytes.
const MAX_RANGE_BYTES: i64 = 1 << 20;
/// `BLOSC_MIN_HEADER_LENGTH`: what the C contract lets sizes read.
const MIN_HEADER: usize = 16;

/// A decompression context with `nthreads` threads.
fn dctx(nthreads: i16) -> *mut blosc2::capi::blosc2_context {
    let mut dparams = blosc2_get_blosc2_dparams_defaults();
    dparams.nthreads = nthreads;
    // SAFETY: the parameters are the defaults with a thread count.
    let ctx = unsafe { blosc2_create_dctx(dparams) };
    assert!(!ctx.is_null(), "blosc2_create_dctx failed");
    ctx
}

/// The header's sizes `(nbytes, cbytes, blocksize)`, if it parses.
fn sizes(chunk: &[u8]) -> Option<(i32, i32, i32)> {
    // The C contract lets the sizes functions read a full minimal header.
    let mut padded = chunk.to_vec();
    if padded.len() < MIN_HEADER {
        padded.resize(MIN_HEADER, 0);
    }
    let (mut nbytes, mut cbytes, mut blocksize) = (0, 0, 0);
    // SAFETY: `padded` holds at least a minimal header; outputs are locals.
    let rc = unsafe { blosc2_cbuffer_sizes(padded.as_ptr().cast(), &mut nbytes, &mut cbytes, &mut blocksize) };
    (rc >= 0).then_some((nbytes, cbytes, blocksize))
}

/// One decoding attempt: its return code and output.
struct Decoded {
    rc: i32,
    out: Vec<u8>,
}

impl Decoded {
    fn ok(&self) -> bool {
        self.rc >= 0
    }
}

/// Decode into `destsize` bytes with `f(dest)`.
fn decode_with(destsize: usize, f: impl FnOnce(*mut c_void) -> i32) -> Decoded {
    let mut out = vec![0u8; destsize];
    let rc = f(out.as_mut_ptr().cast());
    assert!(rc <= destsize as i32, "decoder wrote {rc} bytes into {destsize}");
    Decoded { rc, out }
}

/// Assert that two successful decodings agree.
fn agree(what: &str, a: &Decoded, b: &Decoded) {
    if a.ok() && b.ok() {
        assert_eq!(a.rc, b.rc, "{what}: sizes differ");
        let first = a.out.iter().zip(&b.out).position(|(x, y)| x != y);
        assert!(a.out == b.out, "{what}: bytes differ (first at {first:?} of {})", a.rc);
    }
}

/// The fuzz body.
pub fn run(chunk: &[u8]) {
    let len = i32::try_from(chunk.len()).unwrap_or(i32::MAX);
    let src = chunk.as_ptr().cast::<c_void>();
    let mut vnbytes = 0usize;
    // SAFETY: `src` is readable for `len` bytes.
    let valid = unsafe { blosc1_cbuffer_validate(src, chunk.len(), &mut vnbytes) } >= 0;
    let Some((nbytes, cbytes, _blocksize)) = sizes(chunk) else {
        return;
    };
    // blosc1 entry points trust the header's cbytes for the source length.
    let blosc1_ok = chunk.len() >= MIN_HEADER && cbytes >= 0 && cbytes <= len;
    if valid {
        assert_eq!(vnbytes as i64, i64::from(nbytes), "validate and sizes disagree");
    }
    let (ctx1, ctx2) = (dctx(1), dctx(2));
    let whole = (0..=MAX_DEST)
        .contains(&nbytes)
        .then(|| whole_chunk(chunk, nbytes, blosc1_ok, ctx1, ctx2));
    let typesize = i64::from(chunk.get(3).copied().unwrap_or(1).max(1));
    let nitems = i64::from(nbytes.max(0)) / typesize;
    let ranges = [
        (0, 1),
        (nitems / 3, 64),
        (nitems - 1, 1),
        (0, nitems),
        (nitems, 1),
        (-1, 1),
        (1, -1),
    ];
    for (start, count) in ranges {
        let count = count.min(MAX_RANGE_BYTES / typesize);
        let destsize = (count.max(0) * typesize) as usize;
        let (s, n) = (start as i32, count as i32);
        // SAFETY: `src` readable for `len`; `dest` writable for `destsize`.
        let plain = decode_with(destsize, |d| unsafe {
            blosc2_getitem(src, len, s, n, d, destsize as i32)
        });
        // SAFETY: as above, with a live context.
        let ctx = decode_with(destsize, |d| unsafe {
            blosc2_getitem_ctx(ctx1, src, len, s, n, d, destsize as i32)
        });
        agree("getitem vs getitem_ctx", &plain, &ctx);
        if blosc1_ok && count >= 0 {
            // SAFETY: the header's cbytes fit in the buffer; `dest` holds
            // `count` items.
            let b1 = decode_with(destsize, |d| unsafe { blosc1_getitem(src, s, n, d) });
            agree("getitem vs blosc1_getitem", &plain, &b1);
        }
        if let Some(full) = whole.as_ref().filter(|w| w.ok() && plain.ok() && plain.rc > 0) {
            let from = (start * typesize) as usize;
            let part = &full.out[from..from + plain.rc as usize];
            assert!(
                part == &plain.out[..plain.rc as usize],
                "getitem({start}, {count}) differs from decompress"
            );
        }
    }
    // SAFETY: contexts from blosc2_create_dctx, freed once.
    unsafe {
        blosc2_free_ctx(ctx1);
        blosc2_free_ctx(ctx2);
    }
}

/// Whole-chunk decodings that must agree; returns the first.
fn whole_chunk(
    chunk: &[u8],
    nbytes: i32,
    blosc1_ok: bool,
    ctx1: *mut blosc2::capi::blosc2_context,
    ctx2: *mut blosc2::capi::blosc2_context,
) -> Decoded {
    let len = i32::try_from(chunk.len()).unwrap_or(i32::MAX);
    let src = chunk.as_ptr().cast::<c_void>();
    let n = nbytes as usize;
    // SAFETY (all calls below): `src` is readable for `len` bytes and each
    // destination is writable for the size passed with it.
    let plain = decode_with(n, |d| unsafe { blosc2_decompress(src, len, d, nbytes) });
    let one = decode_with(n, |d| unsafe { blosc2_decompress_ctx(ctx1, src, len, d, nbytes) });
    let two = decode_with(n, |d| unsafe { blosc2_decompress_ctx(ctx2, src, len, d, nbytes) });
    agree("decompress vs ctx(1)", &plain, &one);
    agree("ctx(1) vs ctx(2)", &one, &two);
    assert_eq!(
        one.ok(),
        two.ok(),
        "1 and 2 threads disagree on success: {} vs {}",
        one.rc,
        two.rc
    );
    if blosc1_ok {
        let b1 = decode_with(n, |d| unsafe { blosc1_decompress(src, d, n) });
        agree("decompress vs blosc1_decompress", &plain, &b1);
    }
    if nbytes > 0 {
        let short = decode_with(n - 1, |d| unsafe { blosc2_decompress(src, len, d, nbytes - 1) });
        assert!(
            !short.ok() || short.rc < nbytes,
            "decoded {} bytes into {}",
            short.rc,
            nbytes - 1
        );
    }
    plain
}
