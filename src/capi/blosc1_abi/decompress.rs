//! `blosc_decompress`, `blosc_decompress_ctx` and `blosc_getitem`.
//!
//! c-blosc 1.21 has no source size in these calls: the chunk's own header
//! says how long it is, and is checked the way 1.21 checks it (version 2
//! only, sizes within limits) before the engine decodes the chunk.

use std::ffi::{c_int, c_void};

use crate::engine::constants::{codec_format, flags, MIN_HEADER_LENGTH};
use crate::engine::context::Context;
use crate::engine::params::DParams;

use super::super::boundary::{bytes, bytes_mut, ffi_boundary};
use super::super::env;
use super::compress::{
    blosc_get_nthreads, blosc_set_nthreads, global_contexts, overlap, v1_code, ERR_FAILURE, ERR_NO_CODEC,
};
use super::rules::{MAX_BLOCKSIZE, MAX_OVERHEAD, MAX_THREADS};

/// The only chunk format version 1.21 reads and writes.
pub(super) const VERSION_FORMAT: u8 = 2;
/// `blosc_getitem`'s code for a chunk of another format version.
const ERR_VERSION: c_int = -9;
/// Flag bit 3, which 1.21 reserves ("compressor flags from the future").
const FUTURE_FLAG: u8 = 0x08;

/// The 16-byte header of a Blosc1 chunk.
pub(super) struct Header {
    pub version: u8,
    pub versionlz: u8,
    pub flags: u8,
    pub typesize: u8,
    pub nbytes: i32,
    pub blocksize: i32,
    pub cbytes: i32,
}

impl Header {
    /// Read the header at `src` (NULL gives `None`).
    ///
    /// # Safety
    /// `src` must be NULL or readable for 16 bytes.
    pub(super) unsafe fn read(src: *const c_void) -> Option<Header> {
        // SAFETY: NULL (refused) or 16 readable bytes per the contract.
        let b = unsafe { bytes(src, MIN_HEADER_LENGTH as i64) }.ok()?;
        let word = |o: usize| i32::from_le_bytes([b[o], b[o + 1], b[o + 2], b[o + 3]]);
        Some(Header {
            version: b[0],
            versionlz: b[1],
            flags: b[2],
            typesize: b[3],
            nbytes: word(4),
            blocksize: word(8),
            cbytes: word(12),
        })
    }

    fn memcpyed(&self) -> bool {
        self.flags & flags::MEMCPYED != 0
    }

    fn nblocks(&self) -> i64 {
        let (n, bs) = (i64::from(self.nbytes), i64::from(self.blocksize));
        n / bs + i64::from(n % bs != 0)
    }

    /// The checks every 1.21 decoder makes on the codec and the sizes.
    fn check_body(&self) -> Result<(), c_int> {
        if self.memcpyed() {
            if i64::from(self.nbytes) + i64::from(MAX_OVERHEAD) != i64::from(self.cbytes) {
                return Err(ERR_FAILURE);
            }
            return Ok(());
        }
        let format = self.flags >> 5;
        if !matches!(
            format,
            codec_format::BLOSCLZ | codec_format::LZ4 | codec_format::SNAPPY | codec_format::ZLIB | codec_format::ZSTD
        ) {
            return Err(ERR_NO_CODEC);
        }
        if self.nblocks() > (i64::from(self.cbytes) - 16) / 4 {
            return Err(ERR_FAILURE);
        }
        Ok(())
    }
}

/// Decompress the chunk at `src` into `dest` with `ctx`, after 1.21's
/// header checks.
///
/// # Safety
/// `src` must be NULL or a whole chunk; `dest` writable for `destsize`.
unsafe fn decompress_with(ctx: &mut Context, src: *const c_void, dest: *mut c_void, destsize: usize) -> c_int {
    // SAFETY: per the contract.
    let Some(h) = (unsafe { Header::read(src) }) else {
        return ERR_FAILURE;
    };
    if h.nbytes == 0 {
        return 0;
    }
    let destlen = destsize.min(i32::MAX as usize);
    if h.blocksize <= 0
        || h.blocksize as usize > destlen
        || h.blocksize > MAX_BLOCKSIZE
        || h.typesize == 0
        || h.version != VERSION_FORMAT
        || h.flags & FUTURE_FLAG != 0
        || h.nbytes < 0
        || h.nbytes as usize > destlen
    {
        return ERR_FAILURE;
    }
    if let Err(code) = h.check_body() {
        return code;
    }
    // SAFETY: a whole chunk of `cbytes` bytes per the contract.
    let Ok(s) = (unsafe { bytes(src, i64::from(h.cbytes)) }) else {
        return ERR_FAILURE;
    };
    // SAFETY: writable for `destsize` >= `destlen` bytes per the contract.
    let Ok(d) = (unsafe { bytes_mut(dest, destlen as i64) }) else {
        return ERR_FAILURE;
    };
    if overlap(s, d) {
        return ERR_FAILURE;
    }
    if h.memcpyed() {
        // Stored as is: whatever codec the flags name (even one this build
        // lacks, such as Snappy) is not needed.
        let n = h.nbytes as usize;
        d[..n].copy_from_slice(&s[MIN_HEADER_LENGTH..MIN_HEADER_LENGTH + n]);
        return h.nbytes;
    }
    v1_code(ctx.decompress(s, d))
}

/// A decompression context with `nthreads` threads, or 1.21's code for an
/// unusable count.
fn decompressor(nthreads: c_int) -> Result<Context, c_int> {
    if !(1..=MAX_THREADS).contains(&nthreads) {
        return Err(ERR_FAILURE);
    }
    Ok(Context::decompressor(DParams {
        nthreads: nthreads as i16,
        ..DParams::default()
    }))
}

/// Decompress the chunk at `src` into `dest` (at most `destsize` bytes)
/// with the global thread count. Returns the decompressed size, or a
/// negative code. Honours `BLOSC_NTHREADS` and `BLOSC_NOLOCK`.
///
/// # Safety
/// `src` must be NULL or point to a whole chunk; `dest` writable for
/// `destsize` bytes.
#[no_mangle]
pub unsafe extern "C" fn blosc_decompress(src: *const c_void, dest: *mut c_void, destsize: usize) -> c_int {
    ffi_boundary!(ERR_FAILURE, {
        if let Some(n) = env::nthreads().filter(|&n| n > 0) {
            let rc = blosc_set_nthreads(c_int::try_from(n).unwrap_or(c_int::MAX));
            if rc < 0 {
                return rc;
            }
        }
        let nthreads = blosc_get_nthreads();
        if env::nolock() {
            // SAFETY: forwarded contract.
            return unsafe { blosc_decompress_ctx(src, dest, destsize, nthreads) };
        }
        let Some(mut g) = global_contexts() else {
            return ERR_FAILURE;
        };
        let ctx = g.dctx.get_or_insert_with(|| Context::decompressor(DParams::default()));
        ctx.set_nthreads(nthreads.clamp(1, MAX_THREADS) as i16);
        // SAFETY: forwarded contract.
        unsafe { decompress_with(ctx, src, dest, destsize) }
    })
}

/// `blosc_decompress` with its own thread count and no global lock.
///
/// # Safety
/// As for `blosc_decompress`.
#[no_mangle]
pub unsafe extern "C" fn blosc_decompress_ctx(
    src: *const c_void,
    dest: *mut c_void,
    destsize: usize,
    numinternalthreads: c_int,
) -> c_int {
    ffi_boundary!(ERR_FAILURE, {
        let mut ctx = match decompressor(numinternalthreads) {
            Ok(ctx) => ctx,
            Err(code) => return code,
        };
        // SAFETY: forwarded contract.
        unsafe { decompress_with(&mut ctx, src, dest, destsize) }
    })
}

/// Copy `nitems` items from item `start` of the chunk at `src` into
/// `dest`. Returns the bytes copied, -9 for a chunk of another format
/// version, or another negative code.
///
/// # Safety
/// `src` must be NULL or point to a whole chunk; `dest` writable for
/// `nitems` items of the chunk's typesize.
#[no_mangle]
pub unsafe extern "C" fn blosc_getitem(src: *const c_void, start: c_int, nitems: c_int, dest: *mut c_void) -> c_int {
    ffi_boundary!(ERR_FAILURE, {
        // SAFETY: per the contract.
        let Some(h) = (unsafe { Header::read(src) }) else {
            return ERR_FAILURE;
        };
        if h.version != VERSION_FORMAT {
            return ERR_VERSION;
        }
        if h.blocksize <= 0 || h.blocksize > h.nbytes || h.blocksize > MAX_BLOCKSIZE || h.typesize == 0 {
            return ERR_FAILURE;
        }
        if let Err(code) = h.check_body() {
            return code;
        }
        let ts = i64::from(h.typesize);
        let (start, stop) = (i64::from(start), i64::from(start) + i64::from(nitems));
        let in_bounds = |item: i64| item >= 0 && item * ts <= i64::from(h.nbytes);
        if !in_bounds(start) || !in_bounds(stop) {
            return ERR_FAILURE;
        }
        let want = ((stop - start) * ts).max(0);
        // SAFETY: a whole chunk per the contract.
        let Ok(s) = (unsafe { bytes(src, i64::from(h.cbytes)) }) else {
            return ERR_FAILURE;
        };
        // SAFETY: `dest` holds `nitems` items per the contract.
        let Ok(d) = (unsafe { bytes_mut(dest, want) }) else {
            return ERR_FAILURE;
        };
        if overlap(s, d) {
            return ERR_FAILURE;
        }
        if h.memcpyed() {
            let at = MIN_HEADER_LENGTH + (start * ts) as usize;
            d.copy_from_slice(&s[at..at + d.len()]);
            return d.len() as c_int;
        }
        let mut ctx = Context::decompressor(DParams::default());
        v1_code(ctx.getitem(s, start, stop - start, d))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Damaged chunks give an error code or some bytes, never a crash:
    /// every byte but the compressed size (which the caller vouches for)
    /// is flipped in turn, over chunks of each filter.
    #[test]
    fn damaged_chunks_are_refused_safely() {
        let src: Vec<u8> = (0..20_000u32).flat_map(|i| (i / 5).to_le_bytes()).collect();
        let mut dest = vec![0u8; src.len()];
        for (doshuffle, compressor) in [(0, c"blosclz"), (1, c"lz4"), (2, c"zstd"), (1, c"snappy")] {
            let mut chunk = vec![0u8; src.len() + 16];
            // SAFETY: live buffers of the sizes passed; a static name.
            let n = unsafe {
                super::super::compress::blosc_compress_ctx(
                    5,
                    doshuffle,
                    4,
                    src.len(),
                    src.as_ptr().cast(),
                    chunk.as_mut_ptr().cast(),
                    chunk.len(),
                    compressor.as_ptr(),
                    0,
                    1,
                )
            };
            assert!(n > 16, "{compressor:?}: {n}");
            chunk.truncate(n as usize);
            for at in (0..chunk.len()).filter(|at| !(12..16).contains(at)).step_by(7) {
                let mut bad = chunk.clone();
                bad[at] ^= 0x5A;
                // SAFETY: `bad` holds the whole chunk its header describes.
                let rc = unsafe { blosc_decompress_ctx(bad.as_ptr().cast(), dest.as_mut_ptr().cast(), dest.len(), 1) };
                assert!(rc <= src.len() as c_int);
                // SAFETY: as above; `dest` holds any 10 items.
                let rc = unsafe { blosc_getitem(bad.as_ptr().cast(), 5, 10, dest.as_mut_ptr().cast()) };
                assert!(rc <= 40);
            }
        }
    }
}
