//! `blosc_compress`, `blosc_compress_ctx` and the global parameters of
//! c-blosc 1.21.
//!
//! The forced block size and the threads are the global parameters the
//! `blosc1_*`/`blosc2_*` functions of `global.rs` keep; the codec (which
//! may be Snappy here) and the split mode (whose meaning differs in 1.21)
//! are kept here. Chunks get a 16-byte header with version byte 2, 1.21's
//! block size and its split decision, so c-blosc 1.21 reads them.

use std::ffi::{c_char, c_int, c_void, CStr};
use std::sync::atomic::{AtomicI32, Ordering};

use crate::engine::codecs;
use crate::engine::constants::{codec, flags, splitmode, EXTENDED_HEADER_LENGTH};
use crate::engine::context::Context;
use crate::engine::error::{Error, Result as EngineResult};
use crate::engine::header::codec_format_of;
use crate::engine::params::{CParams, HeaderFormat};
use crate::engine::threads::fork_lock::{ForkSlots, SlotGuard};

use super::super::boundary::{bytes, bytes_mut, c_str, ffi_boundary};
use super::super::convert::build_filters;
use super::super::env;
use super::super::global::{
    blosc1_get_blocksize, blosc1_set_blocksize, blosc2_destroy, blosc2_free_resources, blosc2_get_nthreads,
    blosc2_init, blosc2_set_nthreads,
};
use super::rules::{self, MAX_BUFFERSIZE, MAX_OVERHEAD, MAX_THREADS, MIN_BUFFERSIZE};

/// The error code 1.21 returns for most failures.
pub(super) const ERR_FAILURE: c_int = -1;
/// 1.21's code for a codec this build does not have.
pub(super) const ERR_NO_CODEC: c_int = -5;
/// 1.21's code for a clevel or shuffle out of range.
const ERR_BAD_PARAM: c_int = -10;

/// The split mode of the global functions (`blosc_set_splitmode`).
static SPLITMODE: AtomicI32 = AtomicI32::new(splitmode::FORWARD_COMPAT);
/// The codec of the global functions (`blosc_set_compressor`; -1 after
/// an unknown name).
static COMPRESSOR: AtomicI32 = AtomicI32::new(codec::BLOSCLZ as i32);

/// The engine contexts of `blosc_compress`/`blosc_decompress`, reused
/// across calls; their lock is 1.21's global lock. A child forked while a
/// parent thread held it starts new contexts (see `ForkSlots`).
#[derive(Default)]
pub(super) struct GlobalContexts {
    pub cctx: Option<Context>,
    pub dctx: Option<Context>,
}

static GLOBAL_CONTEXTS: ForkSlots<GlobalContexts> = ForkSlots::new();

/// Take 1.21's global lock; None when this thread holds it already, or
/// after more forks that each caught a thread inside than it has slots.
pub(super) fn global_contexts() -> Option<SlotGuard<'static, GlobalContexts>> {
    GLOBAL_CONTEXTS.lock(|_| GlobalContexts::default())
}

/// An engine result as 1.21 reports it: the count, -5 for a missing
/// codec, -1 for anything else.
pub(super) fn v1_code(r: EngineResult<usize>) -> c_int {
    match r {
        Ok(n) => c_int::try_from(n).unwrap_or(c_int::MAX),
        Err(Error::CodecSupport(_)) => ERR_NO_CODEC,
        Err(_) => ERR_FAILURE,
    }
}

/// True when the two buffers share bytes (which 1.21 forbids, and which
/// the slices made of them must not do).
pub(super) fn overlap(a: &[u8], b: &[u8]) -> bool {
    let (a, b) = (a.as_ptr_range(), b.as_ptr_range());
    a.start < b.end && b.start < a.end
}

/// One compression request, after the environment overrides.
struct Request {
    clevel: c_int,
    doshuffle: c_int,
    typesize: usize,
    /// Codec id, `None` for a name this build does not know.
    compcode: Option<u8>,
    blocksize: usize,
    nthreads: c_int,
    splitmode: i32,
}

impl Request {
    /// Engine parameters for `nbytes` bytes, or 1.21's error code.
    fn cparams(&self, nbytes: i32) -> Result<CParams, c_int> {
        if !(0..=9).contains(&self.clevel) || !(0..=2).contains(&self.doshuffle) {
            return Err(ERR_BAD_PARAM);
        }
        let compcode = self.compcode.ok_or(ERR_NO_CODEC)?;
        if !(1..=MAX_THREADS).contains(&self.nthreads) {
            return Err(ERR_FAILURE);
        }
        // Larger typesizes are a stream of bytes; 0 (which 1.21 divides
        // by) is taken as 1 too, so that readers accept the header.
        let typesize = i32::try_from(self.typesize)
            .ok()
            .filter(|t| (1..=rules::MAX_TYPESIZE).contains(t))
            .unwrap_or(1);
        let forced = i32::try_from(self.blocksize).unwrap_or(rules::MAX_BLOCKSIZE);
        let blocksize = rules::compute_blocksize(compcode, self.clevel, typesize, nbytes, forced, self.splitmode);
        let split = rules::split_block(self.splitmode, compcode, typesize, blocksize);
        // 1.21 stores buffers below 128 bytes as they are.
        let clevel = if nbytes < MIN_BUFFERSIZE { 0 } else { self.clevel as u8 };
        let mut filters = [0u8; 6];
        build_filters(self.doshuffle, false, typesize, &mut filters);
        Ok(CParams {
            compcode,
            clevel,
            typesize,
            nthreads: self.nthreads as i16,
            blocksize,
            splitmode: if split { splitmode::ALWAYS } else { splitmode::NEVER },
            filters,
            header_format: HeaderFormat::Blosc1 { version: 2 },
            ..CParams::default()
        })
    }
}

/// The filter flag 1.21 writes for `doshuffle` (also for typesize 1,
/// where the engine leaves byte shuffle out as a no-op).
fn filter_flag(doshuffle: c_int) -> u8 {
    match doshuffle {
        1 => flags::DOSHUFFLE,
        2 => flags::DOBITSHUFFLE,
        _ => 0,
    }
}

/// The flags 1.21 writes on a memcpyed chunk: the filter, split and codec
/// bits of a compressed one (readers ignore them, but
/// `blosc_cbuffer_metainfo` and `blosc_cbuffer_complib` report them).
fn memcpyed_flags(cp: &CParams, doshuffle: c_int) -> u8 {
    let dont_split = if cp.splitmode == splitmode::ALWAYS {
        0
    } else {
        flags::DONT_SPLIT
    };
    flags::MEMCPYED | filter_flag(doshuffle) | dont_split | codec_format_of(cp.compcode) << 5
}

/// Compress `nbytes` at `src` into `dest` with `ctx` (a new context when
/// `None`). Returns the chunk size, 0 when it does not fit, or 1.21's
/// negative codes.
///
/// # Safety
/// `src` readable for `nbytes` bytes, `dest` writable for `destsize`.
unsafe fn compress_with(
    ctx: Option<&mut Context>,
    req: &Request,
    src: *const c_void,
    nbytes: usize,
    dest: *mut c_void,
    destsize: usize,
) -> c_int {
    let Ok(nbytes) = i32::try_from(nbytes) else {
        return 0;
    };
    if nbytes > MAX_BUFFERSIZE || destsize < MAX_OVERHEAD as usize {
        return 0;
    }
    let cp = match req.cparams(nbytes) {
        Ok(cp) => cp,
        Err(code) => return code,
    };
    // SAFETY: readable for `nbytes` bytes per the contract.
    let Ok(s) = (unsafe { bytes(src, i64::from(nbytes)) }) else {
        return ERR_FAILURE;
    };
    // A chunk cannot be longer than i32::MAX, so neither need `dest` be.
    let destlen = destsize.min(i32::MAX as usize);
    // SAFETY: writable for `destsize` >= `destlen` bytes per the contract.
    let Ok(d) = (unsafe { bytes_mut(dest, destlen as i64) }) else {
        return ERR_FAILURE;
    };
    if overlap(s, d) {
        return ERR_FAILURE;
    }
    let flags_if_memcpyed = memcpyed_flags(&cp, req.doshuffle);
    let mut owned;
    let ctx = match ctx {
        Some(ctx) => {
            ctx.cparams = cp;
            ctx
        }
        None => {
            owned = Context::compressor(cp);
            &mut owned
        }
    };
    let n = if d.len() >= EXTENDED_HEADER_LENGTH {
        v1_code(ctx.compress(s, d))
    } else {
        // The engine wants room for a 32-byte header; a 16-byte one plus a
        // few bytes may still fit in less.
        let mut small = [0u8; EXTENDED_HEADER_LENGTH];
        match ctx.compress(s, &mut small) {
            Ok(n) if n <= d.len() => {
                d[..n].copy_from_slice(&small[..n]);
                n as c_int
            }
            Ok(_) => 0,
            Err(e) => v1_code(Err(e)),
        }
    };
    if n >= MAX_OVERHEAD {
        d[2] = if d[2] & flags::MEMCPYED != 0 {
            flags_if_memcpyed
        } else {
            d[2] | filter_flag(req.doshuffle)
        };
    }
    n
}

/// The codec id the global functions use (`None`: unknown name set).
fn global_compcode() -> Option<u8> {
    u8::try_from(COMPRESSOR.load(Ordering::Relaxed)).ok()
}

/// Static C name of codec `code` (1.21's names, Snappy included).
pub(super) fn static_compname(code: c_int) -> Option<&'static CStr> {
    Some(match u8::try_from(code).ok()? {
        codec::SNAPPY => c"snappy",
        other => return super::super::global::static_compname(i32::from(other)),
    })
}

/// Initialise the library (optional: every function works without it).
#[no_mangle]
pub extern "C" fn blosc_init() {
    blosc2_init();
}

/// Release the library's resources; the global parameters stay.
#[no_mangle]
pub extern "C" fn blosc_destroy() {
    ffi_boundary!((), {
        blosc2_destroy();
        if let Some(mut g) = global_contexts() {
            *g = GlobalContexts::default();
        }
    })
}

/// Release the thread pools of the global functions. Returns 0, or -1
/// when the library is not initialised.
#[no_mangle]
pub extern "C" fn blosc_free_resources() -> c_int {
    ffi_boundary!(ERR_FAILURE, {
        let rc = blosc2_free_resources();
        if rc == 0 {
            if let Some(mut g) = global_contexts() {
                *g = GlobalContexts::default();
            }
        }
        rc
    })
}

/// Threads used by the global functions.
#[no_mangle]
pub extern "C" fn blosc_get_nthreads() -> c_int {
    c_int::from(blosc2_get_nthreads())
}

/// Set the threads of the global functions; returns the previous number.
/// Unlike 1.21, which accepts any value and fails later, values <= 0 are
/// refused here with a negative code.
#[no_mangle]
pub extern "C" fn blosc_set_nthreads(nthreads: c_int) -> c_int {
    let n = nthreads.clamp(c_int::from(i16::MIN), c_int::from(i16::MAX)) as i16;
    c_int::from(blosc2_set_nthreads(n))
}

/// Name of the codec of the global functions (NULL after an unknown name
/// was set).
#[no_mangle]
pub extern "C" fn blosc_get_compressor() -> *const c_char {
    static_compname(COMPRESSOR.load(Ordering::Relaxed)).map_or(std::ptr::null(), CStr::as_ptr)
}

/// Select the codec of the global functions by name. Returns its code, or
/// -1 when this build does not have it.
///
/// # Safety
/// `compname` must be NULL or a NUL-terminated string.
#[no_mangle]
pub unsafe extern "C" fn blosc_set_compressor(compname: *const c_char) -> c_int {
    ffi_boundary!(ERR_FAILURE, {
        blosc2_init();
        // SAFETY: NULL or NUL-terminated per the contract.
        let code = unsafe { c_str(compname) }
            .and_then(codecs::compcode)
            .map_or(-1, c_int::from);
        COMPRESSOR.store(code, Ordering::Relaxed);
        code
    })
}

/// Block size forced on the global functions (0 = automatic).
#[no_mangle]
pub extern "C" fn blosc_get_blocksize() -> c_int {
    blosc1_get_blocksize()
}

/// Force a block size on the global functions (0 = automatic).
#[no_mangle]
pub extern "C" fn blosc_set_blocksize(blocksize: usize) {
    blosc1_set_blocksize(blocksize);
}

/// Set the split mode of the global functions (`BLOSC_*_SPLIT`).
#[no_mangle]
pub extern "C" fn blosc_set_splitmode(splitmode: c_int) {
    SPLITMODE.store(splitmode, Ordering::Relaxed);
}

/// Apply 1.21's environment overrides; returns the request, or the code
/// `blosc_compress` must return.
fn global_request(clevel: c_int, doshuffle: c_int, typesize: usize) -> Result<Request, c_int> {
    let clevel = env::clevel().map_or(clevel, |v| c_int::try_from(v).unwrap_or(c_int::MAX));
    let doshuffle = env::shuffle().unwrap_or(doshuffle);
    let typesize = env::typesize().map_or(typesize, |v| usize::try_from(v).unwrap_or(usize::MAX));
    if let Some(name) = env::compressor() {
        let name = std::ffi::CString::new(name).unwrap_or_default();
        // SAFETY: a NUL-terminated string.
        let rc = unsafe { blosc_set_compressor(name.as_ptr()) };
        if rc < 0 {
            return Err(rc);
        }
    }
    if let Some(bs) = env::blocksize() {
        blosc_set_blocksize(usize::try_from(bs).unwrap_or(0));
    }
    if let Some(n) = env::nthreads().filter(|&n| n > 0) {
        let rc = blosc_set_nthreads(c_int::try_from(n).unwrap_or(c_int::MAX));
        if rc < 0 {
            return Err(rc);
        }
    }
    if std::env::var_os("BLOSC_SPLITMODE").is_some() {
        blosc_set_splitmode(env::splitmode().ok_or(ERR_FAILURE)?);
    }
    Ok(Request {
        clevel,
        doshuffle,
        typesize,
        compcode: global_compcode(),
        blocksize: usize::try_from(blosc_get_blocksize()).unwrap_or(0),
        nthreads: blosc_get_nthreads(),
        splitmode: SPLITMODE.load(Ordering::Relaxed),
    })
}

/// Compress `nbytes` bytes at `src` into `dest` with the global
/// parameters. Returns the chunk size, 0 when it does not fit in
/// `destsize`, or a negative code. Honours `BLOSC_CLEVEL`,
/// `BLOSC_SHUFFLE`, `BLOSC_TYPESIZE`, `BLOSC_COMPRESSOR`,
/// `BLOSC_BLOCKSIZE`, `BLOSC_NTHREADS`, `BLOSC_SPLITMODE` and
/// `BLOSC_NOLOCK`, as 1.21 does.
///
/// # Safety
/// `src` must be readable for `nbytes` bytes and `dest` writable for
/// `destsize` bytes.
#[no_mangle]
pub unsafe extern "C" fn blosc_compress(
    clevel: c_int,
    doshuffle: c_int,
    typesize: usize,
    nbytes: usize,
    src: *const c_void,
    dest: *mut c_void,
    destsize: usize,
) -> c_int {
    ffi_boundary!(ERR_FAILURE, {
        blosc2_init();
        let req = match global_request(clevel, doshuffle, typesize) {
            Ok(req) => req,
            Err(code) => return code,
        };
        if env::nolock() {
            // SAFETY: forwarded contract.
            return unsafe { compress_with(None, &req, src, nbytes, dest, destsize) };
        }
        let Some(mut g) = global_contexts() else {
            return ERR_FAILURE;
        };
        let ctx = g.cctx.get_or_insert_with(|| Context::compressor(CParams::default()));
        // SAFETY: forwarded contract.
        unsafe { compress_with(Some(ctx), &req, src, nbytes, dest, destsize) }
    })
}

/// `blosc_compress` with its own parameters instead of the global ones
/// and no global lock (no environment variables either).
///
/// # Safety
/// As for `blosc_compress`; `compressor` NULL or a NUL-terminated string.
#[no_mangle]
pub unsafe extern "C" fn blosc_compress_ctx(
    clevel: c_int,
    doshuffle: c_int,
    typesize: usize,
    nbytes: usize,
    src: *const c_void,
    dest: *mut c_void,
    destsize: usize,
    compressor: *const c_char,
    blocksize: usize,
    numinternalthreads: c_int,
) -> c_int {
    ffi_boundary!(ERR_FAILURE, {
        let req = Request {
            clevel,
            doshuffle,
            typesize,
            // SAFETY: NULL or NUL-terminated per the contract.
            compcode: unsafe { c_str(compressor) }.and_then(codecs::compcode),
            blocksize,
            nthreads: numinternalthreads,
            splitmode: SPLITMODE.load(Ordering::Relaxed),
        };
        // SAFETY: forwarded contract.
        unsafe { compress_with(None, &req, src, nbytes, dest, destsize) }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn request(compcode: u8, clevel: c_int, typesize: usize) -> Request {
        Request {
            clevel,
            doshuffle: 1,
            typesize,
            compcode: Some(compcode),
            blocksize: 0,
            nthreads: 1,
            splitmode: splitmode::FORWARD_COMPAT,
        }
    }

    #[test]
    fn parameters_checked_as_1_21_does() {
        assert_eq!(request(codec::LZ4, 10, 4).cparams(1000).err(), Some(ERR_BAD_PARAM));
        let mut r = request(codec::LZ4, 5, 4);
        r.doshuffle = 3;
        assert_eq!(r.cparams(1000).err(), Some(ERR_BAD_PARAM));
        r.doshuffle = 0;
        r.compcode = None;
        assert_eq!(r.cparams(1000).err(), Some(ERR_NO_CODEC));
        let cp = request(codec::ZSTD, 5, 300).cparams(1000).expect("valid");
        assert_eq!(
            (cp.typesize, cp.header_format),
            (1, HeaderFormat::Blosc1 { version: 2 })
        );
        assert_eq!(request(codec::ZSTD, 5, 4).cparams(100).expect("valid").clevel, 0);
    }

    #[test]
    fn chunks_have_a_version_2_header() {
        let src: Vec<u8> = (0..100_000u32).flat_map(|i| (i / 3).to_le_bytes()).collect();
        let mut dest = vec![0u8; src.len() + 16];
        let req = request(codec::BLOSCLZ, 5, 4);
        // SAFETY: both buffers are live and sized as passed.
        let n = unsafe {
            compress_with(
                None,
                &req,
                src.as_ptr().cast(),
                src.len(),
                dest.as_mut_ptr().cast(),
                dest.len(),
            )
        };
        assert!(n > 16 && (n as usize) < src.len());
        assert_eq!(&dest[..2], &[2, 1]);
        // One block: 1.21 splits blosclz blocks of typesize 4 up to 512 KiB.
        assert_eq!(i32::from_le_bytes([dest[8], dest[9], dest[10], dest[11]]), 400_000);
        let back = crate::engine::context::decompress_vec(&dest[..n as usize]).expect("decodes");
        assert_eq!(back, src);
    }
}
