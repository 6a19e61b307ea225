//! zlib streams (zlib format with header and adler32), as C-Blosc2 writes
//! them with `compress2(level = clevel)`.

#![allow(unsafe_code)]

use crate::engine::error::{Error, Result};

/// Compress `src` into `dst` at `clevel`; 0 when it does not fit.
pub fn compress(clevel: u8, src: &[u8], dst: &mut [u8]) -> Result<usize> {
    let mut dest_len = dst.len() as libz_rs_sys::uLongf;
    let src_len = libz_rs_sys::uLong::try_from(src.len()).map_err(|_| Error::TwoGbLimit)?;
    // SAFETY: `dst` is valid for `dest_len` writable bytes and `src` for
    // `src_len` readable bytes; zlib writes at most `dest_len` bytes and
    // reports the written length through `dest_len`.
    let rc = unsafe {
        libz_rs_sys::compress2(
            dst.as_mut_ptr(),
            &mut dest_len,
            src.as_ptr(),
            src_len,
            i32::from(clevel.min(9)),
        )
    };
    match rc {
        libz_rs_sys::Z_OK => Ok(dest_len as usize),
        // Z_BUF_ERROR: output does not fit, i.e. not compressible enough.
        libz_rs_sys::Z_BUF_ERROR => Ok(0),
        _ => Err(Error::CodecParam),
    }
}

/// `data` as one zlib stream at `level` (test inputs).
#[cfg(test)]
pub fn compressed(level: u8, data: &[u8]) -> Vec<u8> {
    let mut c = vec![0u8; data.len() + data.len() / 8 + 64];
    let n = compress(level, data, &mut c).expect("zlib level");
    assert!(n > 0, "room for the stream");
    c.truncate(n);
    c
}

/// `good` cut at every length up to 200 bytes, then 2000 copies of its
/// first 120 bytes with 3 bits flipped past the zlib header (test inputs
/// for readers that must refuse without panicking).
#[cfg(test)]
pub fn cut_and_damaged(good: &[u8]) -> Vec<Vec<u8>> {
    let mut out: Vec<Vec<u8>> = (0..good.len().min(200)).map(|cut| good[..cut].to_vec()).collect();
    let mut state = 0x1234_5678u32;
    for _ in 0..2000 {
        let mut bad = good[..good.len().min(120)].to_vec();
        for _ in 0..3 {
            state = state.wrapping_mul(1_103_515_245).wrapping_add(12345);
            let at = 2 + (state >> 8) as usize % (bad.len() - 2);
            bad[at] ^= 1 << (state >> 28 & 7);
        }
        out.push(bad);
    }
    out
}

/// Decompress a zlib stream into `dst`; `None` when malformed.
pub fn decompress(src: &[u8], dst: &mut [u8]) -> Option<usize> {
    let mut dest_len = dst.len() as libz_rs_sys::uLongf;
    let src_len = libz_rs_sys::uLong::try_from(src.len()).ok()?;
    // SAFETY: `dst` is valid for `dest_len` writable bytes and `src` for
    // `src_len` readable bytes; `uncompress` never writes past `dest_len`
    // and never reads past `src_len`.
    let rc = unsafe { libz_rs_sys::uncompress(dst.as_mut_ptr(), &mut dest_len, src.as_ptr(), src_len) };
    (rc == libz_rs_sys::Z_OK).then_some(dest_len as usize)
}

/// Version string of the linked zlib.
pub fn version() -> String {
    let p = libz_rs_sys::zlibVersion();
    if p.is_null() {
        return String::from("unknown");
    }
    // SAFETY: non-null, static and NUL-terminated (zlib's contract).
    let version = unsafe { std::ffi::CStr::from_ptr(p) };
    // `to_str`, not `to_string_lossy`: the version is ASCII, and the lossy
    // conversion's code lies outside the hot functions' pages (build.rs), so
    // python-blosc2's import, which asks every codec's version, kept 64 KiB
    // more of the library's code resident for this one call.
    version.to_str().unwrap_or("unknown").to_string()
}

/// zlib's allocator hook: `calloc`, as zlib's own default would use.
///
/// # Safety
/// Called by zlib only, with the sizes it needs.
unsafe extern "C" fn zalloc(
    _opaque: libz_rs_sys::voidpf,
    items: libz_rs_sys::uInt,
    size: libz_rs_sys::uInt,
) -> libz_rs_sys::voidpf {
    // SAFETY: calloc has no preconditions; zlib checks for NULL.
    unsafe { libc::calloc(items as usize, size as usize) }
}

/// zlib's deallocator hook, the twin of [`zalloc`].
///
/// # Safety
/// `p` must come from [`zalloc`] (zlib guarantees it).
unsafe extern "C" fn zfree(_opaque: libz_rs_sys::voidpf, p: libz_rs_sys::voidpf) {
    // SAFETY: `p` was returned by calloc in `zalloc`.
    unsafe { libc::free(p) }
}

/// A `z_stream` with no buffers attached yet.
pub(super) fn new_stream() -> libz_rs_sys::z_stream {
    libz_rs_sys::z_stream {
        next_in: std::ptr::null_mut(),
        avail_in: 0,
        total_in: 0,
        next_out: std::ptr::null_mut(),
        avail_out: 0,
        total_out: 0,
        msg: std::ptr::null_mut(),
        state: std::ptr::null_mut(),
        zalloc: Some(zalloc),
        zfree: Some(zfree),
        opaque: std::ptr::null_mut(),
        data_type: 0,
        adler: 0,
        reserved: 0,
    }
}

/// The largest piece handed to zlib at once (`avail_in` is a `uInt`).
const ZPIECE: usize = 1 << 30;

/// Make room at the end of `out` (zeroed, so that zlib writes initialised
/// memory) without going past `cap` bytes in all. Returns the length
/// before the room and the room's size.
fn grow(out: &mut Vec<u8>, cap: usize) -> (usize, usize) {
    let used = out.len();
    if out.capacity() - used < 64 {
        out.reserve(out.capacity().max(4096));
    }
    let room = (out.capacity() - used).min(ZPIECE).min(cap.saturating_sub(used));
    out.resize(used + room, 0);
    (used, room)
}

/// Raw DEFLATE (RFC 1951: no zlib header, no checksum; windowBits -15) of
/// the concatenation of `parts`, finished with `Z_FINISH`. `level` is -1
/// (zlib's default) or 0..=9; -2 selects Huffman-only coding.
pub fn deflate_raw(level: i32, parts: &[&[u8]]) -> Result<Vec<u8>> {
    let (level, strategy) = match level {
        -2 => (libz_rs_sys::Z_DEFAULT_COMPRESSION, libz_rs_sys::Z_HUFFMAN_ONLY),
        -1..=9 => (level, libz_rs_sys::Z_DEFAULT_STRATEGY),
        _ => return Err(Error::InvalidParam("deflate level must be -2..=9")),
    };
    let total: usize = parts.iter().map(|p| p.len()).sum();
    let mut strm = new_stream();
    // SAFETY: `strm` is a fully initialised z_stream with valid allocator
    // hooks; it is not moved while zlib holds state for it (it stays in
    // this frame until deflateEnd below).
    let rc = unsafe {
        libz_rs_sys::deflateInit2_(
            &mut strm,
            level,
            libz_rs_sys::Z_DEFLATED,
            -15,
            8,
            strategy,
            libz_rs_sys::zlibVersion(),
            std::mem::size_of::<libz_rs_sys::z_stream>() as i32,
        )
    };
    if rc != libz_rs_sys::Z_OK {
        return Err(Error::CodecParam);
    }
    let mut out: Vec<u8> = Vec::with_capacity(total / 2 + 64);
    let mut result = Ok(());
    let pieces: Vec<&[u8]> = parts.iter().flat_map(|p| p.chunks(ZPIECE)).collect();
    let n = pieces.len().max(1);
    'outer: for i in 0..n {
        let input: &[u8] = pieces.get(i).copied().unwrap_or(&[]);
        let finish = i + 1 == n;
        strm.next_in = input.as_ptr().cast_mut();
        strm.avail_in = input.len() as libz_rs_sys::uInt;
        let flush = if finish {
            libz_rs_sys::Z_FINISH
        } else {
            libz_rs_sys::Z_NO_FLUSH
        };
        loop {
            let (used, room) = grow(&mut out, usize::MAX);
            strm.next_out = out[used..].as_mut_ptr();
            strm.avail_out = room as libz_rs_sys::uInt;
            // SAFETY: next_in/avail_in describe `input`, which outlives the
            // call and is only read; next_out/avail_out describe the
            // zeroed tail of `out`, which zlib may write.
            let rc = unsafe { libz_rs_sys::deflate(&mut strm, flush) };
            out.truncate(used + room - strm.avail_out as usize);
            match rc {
                libz_rs_sys::Z_STREAM_END => break 'outer,
                libz_rs_sys::Z_OK | libz_rs_sys::Z_BUF_ERROR => {}
                _ => {
                    result = Err(Error::CodecParam);
                    break 'outer;
                }
            }
            if !finish && strm.avail_in == 0 && strm.avail_out != 0 {
                break;
            }
        }
    }
    // SAFETY: the stream was initialised by deflateInit2_ above.
    unsafe { libz_rs_sys::deflateEnd(&mut strm) };
    result.map(|()| out)
}

/// Inflate a raw DEFLATE stream (see [`deflate_raw`]) read from the
/// concatenation of `parts`. Bytes after the end of the stream are
/// ignored. Fails when the stream is malformed or truncated, or when it
/// would decode to more than `limit` bytes.
pub fn inflate_raw(parts: &[&[u8]], limit: usize) -> std::result::Result<Vec<u8>, &'static str> {
    let mut strm = new_stream();
    // SAFETY: as in `deflate_raw`: initialised, not moved until inflateEnd.
    let rc = unsafe {
        libz_rs_sys::inflateInit2_(
            &mut strm,
            -15,
            libz_rs_sys::zlibVersion(),
            std::mem::size_of::<libz_rs_sys::z_stream>() as i32,
        )
    };
    if rc != libz_rs_sys::Z_OK {
        return Err("inflateInit2 failed");
    }
    let total: usize = parts.iter().map(|p| p.len()).sum();
    let mut out: Vec<u8> = Vec::with_capacity(total.saturating_mul(3).clamp(64, 1 << 24).min(limit.saturating_add(1)));
    let pieces: Vec<&[u8]> = parts.iter().flat_map(|p| p.chunks(ZPIECE)).collect();
    let mut next = 0;
    let result = loop {
        if strm.avail_in == 0 && next < pieces.len() {
            strm.next_in = pieces[next].as_ptr().cast_mut();
            strm.avail_in = pieces[next].len() as libz_rs_sys::uInt;
            next += 1;
        }
        // One byte past the limit tells "more than the limit" apart.
        let (used, room) = grow(&mut out, limit.saturating_add(1));
        if room == 0 {
            break Err("deflate stream decodes to more than the limit");
        }
        strm.next_out = out[used..].as_mut_ptr();
        strm.avail_out = room as libz_rs_sys::uInt;
        // SAFETY: next_in/avail_in describe a piece of `parts` (read only,
        // alive) or nothing; next_out/avail_out describe the zeroed tail
        // of `out`.
        let rc = unsafe { libz_rs_sys::inflate(&mut strm, libz_rs_sys::Z_NO_FLUSH) };
        out.truncate(used + room - strm.avail_out as usize);
        match rc {
            libz_rs_sys::Z_STREAM_END if out.len() > limit => {
                break Err("deflate stream decodes to more than the limit")
            }
            libz_rs_sys::Z_STREAM_END => break Ok(()),
            libz_rs_sys::Z_OK => {}
            libz_rs_sys::Z_BUF_ERROR if strm.avail_in == 0 && next >= pieces.len() => {
                break Err("unexpected EOF in deflate stream")
            }
            libz_rs_sys::Z_BUF_ERROR => {}
            _ => break Err("invalid deflate stream"),
        }
    };
    // SAFETY: the stream was initialised by inflateInit2_ above.
    unsafe { libz_rs_sys::inflateEnd(&mut strm) };
    result.map(|()| out)
}

#[cfg(test)]
mod tests {
    #[test]
    fn version_is_zlibs_own_string() {
        // SAFETY: zlibVersion returns a static NUL-terminated string.
        let own = unsafe { std::ffi::CStr::from_ptr(libz_rs_sys::zlibVersion()) };
        assert_eq!(super::version(), own.to_string_lossy());
        assert!(super::version().starts_with("1."), "{}", super::version());
    }

    #[test]
    fn round_trip() {
        let src: Vec<u8> = (0..10000u32).flat_map(|i| (i % 251).to_le_bytes()).collect();
        let mut c = vec![0u8; src.len()];
        let n = super::compress(5, &src, &mut c).unwrap();
        assert!(n > 0 && n < src.len());
        let mut d = vec![0u8; src.len()];
        assert_eq!(super::decompress(&c[..n], &mut d), Some(src.len()));
        assert_eq!(d, src);
        assert_eq!(super::decompress(&c[..n / 2], &mut d), None);
    }

    #[test]
    fn raw_deflate_round_trip() {
        let src: Vec<u8> = (0..100_000u32).map(|i| (i % 7 + i / 5000) as u8).collect();
        for level in [-2, -1, 0, 1, 6, 9] {
            let (a, b) = src.split_at(12345);
            let c = super::deflate_raw(level, &[a, b]).unwrap();
            // No zlib header: the first block header is raw.
            let d = super::inflate_raw(&[&c], usize::MAX).unwrap();
            assert_eq!(d, src, "level {level}");
            let (x, y) = c.split_at(c.len() / 3);
            assert_eq!(super::inflate_raw(&[x, y], usize::MAX).unwrap(), src);
            assert!(super::inflate_raw(&[&c[..c.len() - 1]], usize::MAX).is_err());
            assert!(super::inflate_raw(&[&c], 1000).is_err());
        }
        let empty = super::deflate_raw(-1, &[]).unwrap();
        assert_eq!(super::inflate_raw(&[&empty], 10).unwrap(), Vec::<u8>::new());
        // Go's flate writer ends with an empty final stored block.
        assert_eq!(super::inflate_raw(&[&[0x03, 0x00]], 10).unwrap(), Vec::<u8>::new());
        assert!(super::inflate_raw(&[&[0xff, 0xff, 0xff]], 10).is_err());
        assert!(super::deflate_raw(10, &[b"x"]).is_err());
    }
}
