//! The b2nd arrays of the conformance corpus through the C ABI: each opens
//! with `b2nd_open` and `b2nd_from_cframe` (copy and no copy) with the
//! public fields of `b2nd_array_t` (shape, chunk and block shapes, padded
//! shapes, item counts, dtype) and the content 3.3.5 wrote; small slices
//! agree with the content; the malformed b2nd entries are errors.

mod frames_common;

use std::ffi::{CStr, CString};
use std::ptr;

use blosc2::capi::b2nd::*;
use blosc2::capi::b2nd_array_t;
use blosc2::capi::b2nd_ops::*;
use frames_common::*;
use serde_json::Value;

fn ints(v: &Value) -> Vec<i64> {
    v.as_array().unwrap().iter().map(|x| x.as_i64().unwrap()).collect()
}

/// Check an array against its manifest entry; frees it.
///
/// # Safety
/// `a` must be a live array.
unsafe fn check(e: &Value, a: *mut b2nd_array_t, how: &str) {
    let id = e["id"].as_str().unwrap();
    // SAFETY: a live array per the contract.
    let p = unsafe { &*a };
    let shape = ints(&e["shape"]);
    let chunks = ints(&e["chunkshape"]);
    let blocks = ints(&e["blockshape"]);
    let nd = shape.len();
    assert_eq!(p.ndim as usize, nd, "{id} {how}: ndim");
    assert_eq!(&p.shape[..nd], &shape[..], "{id} {how}: shape");
    for i in 0..nd {
        assert_eq!(i64::from(p.chunkshape[i]), chunks[i], "{id} {how}: chunkshape");
        assert_eq!(i64::from(p.blockshape[i]), blocks[i], "{id} {how}: blockshape");
        assert_eq!(p.extshape[i] % chunks[i], 0, "{id} {how}: extshape");
        assert!(p.extshape[i] >= shape[i] && p.extshape[i] < shape[i] + chunks[i]);
    }
    assert_eq!(p.nitems, shape.iter().product::<i64>(), "{id} {how}: nitems");
    // SAFETY: the array's NUL-terminated dtype.
    let dtype = unsafe { CStr::from_ptr(p.dtype) }.to_str().unwrap();
    assert_eq!(
        dtype,
        e["metalayers"]["b2nd"]["value"][6].as_str().unwrap(),
        "{id} {how}: dtype"
    );
    // SAFETY: the array's live super-chunk.
    let ts = unsafe { (*p.sc).typesize } as i64;
    assert_eq!(unsafe { (*p.sc).nchunks }, e["nchunks"].as_i64().unwrap());
    let n = p.nitems * ts;
    let mut buf = vec![0u8; n as usize];
    // SAFETY: live array, buffer of `n` bytes.
    assert_eq!(
        unsafe { b2nd_to_cbuffer(a, buf.as_mut_ptr().cast(), n) },
        0,
        "{id} {how}: to_cbuffer"
    );
    assert_eq!(sha256(&buf), e["sha256"].as_str().unwrap(), "{id} {how}: content");
    if nd > 0 {
        let start: Vec<i64> = shape.iter().map(|&s| s / 2).collect();
        let stop: Vec<i64> = shape.iter().map(|&s| (s / 2 + 2).min(s)).collect();
        let sub: Vec<i64> = start.iter().zip(&stop).map(|(a, b)| b - a).collect();
        let m: i64 = sub.iter().product::<i64>() * ts;
        let mut got = vec![0u8; m as usize];
        // SAFETY: live array, arrays of `nd` entries, buffer of `m` bytes.
        let rc = unsafe {
            b2nd_get_slice_cbuffer(
                a,
                start.as_ptr(),
                stop.as_ptr(),
                got.as_mut_ptr().cast(),
                sub.as_ptr(),
                m,
            )
        };
        assert_eq!(rc, 0, "{id} {how}: get_slice_cbuffer");
        let mut want = vec![0u8; m as usize];
        blosc2::engine::b2nd::copy::copy_buffer(
            nd,
            ts as usize,
            &buf,
            &shape,
            &start,
            &stop,
            &mut want,
            &sub,
            &vec![0; nd],
        )
        .unwrap();
        assert_eq!(got, want, "{id} {how}: slice");
    }
    // SAFETY: a live array, not used afterwards.
    assert_eq!(unsafe { b2nd_free(a) }, 0);
}

#[test]
fn corpus_arrays_through_the_c_abi() {
    let mut n = 0;
    for e in entries().into_iter().filter(|e| e["kind"] == "b2nd") {
        let path = corpus().join(e["file"].as_str().unwrap());
        let cpath = CString::new(path.to_str().unwrap()).unwrap();
        let mut a: *mut b2nd_array_t = ptr::null_mut();
        // SAFETY: a NUL-terminated path and a writable out-pointer.
        assert_eq!(unsafe { b2nd_open(cpath.as_ptr(), &mut a) }, 0, "{}", e["id"]);
        // SAFETY: the array just opened.
        unsafe { check(&e, a, "open") };
        if path.is_file() {
            let mut bytes = std::fs::read(&path).unwrap();
            for copy in [false, true] {
                let mut a: *mut b2nd_array_t = ptr::null_mut();
                // SAFETY: a readable frame, a writable out-pointer.
                let rc = unsafe { b2nd_from_cframe(bytes.as_mut_ptr(), bytes.len() as i64, copy, &mut a) };
                assert_eq!(rc, 0, "{}", e["id"]);
                // SAFETY: the array just made.
                unsafe { check(&e, a, if copy { "cframe copy" } else { "cframe" }) };
            }
        }
        n += 1;
    }
    assert_eq!(n, 15);
}

#[test]
fn malformed_corpus_arrays_are_errors_through_the_c_abi() {
    for e in entries() {
        if e["kind"] != "malformed" || e["decode_procedure"] != "b2nd" {
            continue;
        }
        let path = corpus().join(e["file"].as_str().unwrap());
        let cpath = CString::new(path.to_str().unwrap()).unwrap();
        let mut a: *mut b2nd_array_t = ptr::null_mut();
        // SAFETY: a NUL-terminated path and a writable out-pointer.
        let rc = unsafe { b2nd_open(cpath.as_ptr(), &mut a) };
        if rc == 0 {
            // The frame opened; the content must not read.
            // SAFETY: the array just opened.
            let p = unsafe { &*a };
            // SAFETY: its live super-chunk.
            let n = p.nitems * i64::from(unsafe { (*p.sc).typesize });
            let mut buf = vec![0u8; n.clamp(0, 1 << 24) as usize];
            // SAFETY: live array, buffer of `buf.len()` bytes.
            let r = unsafe { b2nd_to_cbuffer(a, buf.as_mut_ptr().cast(), buf.len() as i64) };
            assert!(r < 0, "{} read", e["id"]);
            // SAFETY: a live array.
            unsafe { b2nd_free(a) };
        } else {
            assert!(a.is_null());
        }
    }
}
