//! zlib streams (zlib format with header and adler32), as C-Blosc2 writes
//! them with `compress2(level = clevel)`.

use crate::engine::error::{Error, Result};

/// Compress `src` into `dst` at `clevel`; 0 when it does not fit.
pub fn compress(clevel: u8, src: &[u8], dst: &mut [u8]) -> Result<usize> {
    let mut dest_len = dst.len() as libz_sys::uLongf;
    let src_len = libz_sys::uLong::try_from(src.len()).map_err(|_| Error::TwoGbLimit)?;
    // SAFETY: `dst` is valid for `dest_len` writable bytes and `src` for
    // `src_len` readable bytes; zlib writes at most `dest_len` bytes and
    // reports the written length through `dest_len`.
    let rc = unsafe {
        libz_sys::compress2(
            dst.as_mut_ptr(),
            &mut dest_len,
            src.as_ptr(),
            src_len,
            i32::from(clevel.min(9)),
        )
    };
    match rc {
        libz_sys::Z_OK => Ok(dest_len as usize),
        // Z_BUF_ERROR: output does not fit, i.e. not compressible enough.
        libz_sys::Z_BUF_ERROR => Ok(0),
        _ => Err(Error::CodecParam),
    }
}

/// Decompress a zlib stream into `dst`; `None` when malformed.
pub fn decompress(src: &[u8], dst: &mut [u8]) -> Option<usize> {
    let mut dest_len = dst.len() as libz_sys::uLongf;
    let src_len = libz_sys::uLong::try_from(src.len()).ok()?;
    // SAFETY: `dst` is valid for `dest_len` writable bytes and `src` for
    // `src_len` readable bytes; `uncompress` never writes past `dest_len`
    // and never reads past `src_len`.
    let rc = unsafe { libz_sys::uncompress(dst.as_mut_ptr(), &mut dest_len, src.as_ptr(), src_len) };
    (rc == libz_sys::Z_OK).then_some(dest_len as usize)
}

/// Version string of the linked zlib.
pub fn version() -> String {
    // SAFETY: zlibVersion returns a pointer to a static NUL-terminated string.
    let p = unsafe { libz_sys::zlibVersion() };
    if p.is_null() {
        return String::from("unknown");
    }
    // SAFETY: non-null, static and NUL-terminated (zlib's contract).
    unsafe { std::ffi::CStr::from_ptr(p) }.to_string_lossy().into_owned()
}

#[cfg(test)]
mod tests {
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
}
