//! Arbitrary bytes as the frame of a b2nd array: opened kept, copied and
//! from a file, then read the ways a C program reads one (the whole array,
//! a slice, an orthogonal selection, a squeezed view, a copy, the frame
//! again) and edited (a row appended, rows deleted). The same bytes are
//! also handed to `b2nd_deserialize_meta` as a "b2nd" metalayer's content.

use std::ffi::c_char;
use std::ptr;

use blosc2::capi::b2nd::{
    b2nd_create_ctx, b2nd_deserialize_meta, b2nd_free, b2nd_free_ctx, b2nd_from_cframe, b2nd_open, b2nd_to_cframe,
};
use blosc2::capi::b2nd_array_t;
use blosc2::capi::b2nd_ops::{
    b2nd_append, b2nd_copy, b2nd_delete, b2nd_get_orthogonal_selection, b2nd_get_slice_cbuffer, b2nd_squeeze,
    b2nd_to_cbuffer,
};
use blosc2::capi::misc::blosc2_get_blosc2_storage_defaults;

use super::chunk_decode::MAX_DEST;

/// `B2ND_MAX_DIM`: the length of the shape arrays in `b2nd_array_t`.
const MAX_DIM: usize = 16;
/// Chunks of an array above which it is not squeezed or copied: both
/// make every chunk of the shape in memory, as 3.3.5 does, so a frame
/// that really holds millions of chunks costs that much in C too.
const MAX_MADE_CHUNKS: i64 = 1 << 16;
/// Bytes of a chunk above which the array is not edited: an edit
/// rewrites whole chunks (a 64 MiB chunk of 65536-byte items takes a
/// third of a second in release, minutes under ASan), legitimately.
const MAX_EDITED_CHUNK: i64 = 4 << 20;

/// The fuzz body.
pub fn run(data: &[u8]) {
    for copy in [false, true] {
        let mut buf = data.to_vec();
        let mut array: *mut b2nd_array_t = ptr::dangling_mut();
        // SAFETY: `buf` is readable for its length and outlives the array
        // (freed below, before `buf`); `array` is writable.
        let rc = unsafe { b2nd_from_cframe(buf.as_mut_ptr(), buf.len() as i64, copy, &mut array) };
        if rc < 0 {
            assert!(array.is_null(), "b2nd_from_cframe failed ({rc}) but left *array set");
            continue;
        }
        assert!(!array.is_null(), "b2nd_from_cframe succeeded without an array");
        read_and_edit(array);
    }
    from_file(data);
    deserialize_meta(data);
}

/// Every read, then the edits, then free the array.
fn read_and_edit(array: *mut b2nd_array_t) {
    let items = Items::of(array);
    read(array, &items);
    edit(array, &items);
    // SAFETY: live, freed once.
    assert_eq!(unsafe { b2nd_free(array) }, 0);
}

/// The bytes as a file opened with `b2nd_open`: the same reads, and the
/// edits go to the file.
fn from_file(data: &[u8]) {
    let path = std::env::temp_dir().join(format!("blosc2-fuzz-b2nd-{}.b2nd", std::process::id()));
    if std::fs::write(&path, data).is_err() {
        return;
    }
    let cpath = std::ffi::CString::new(path.to_string_lossy().into_owned()).expect("no NUL in a temp path");
    let mut array: *mut b2nd_array_t = ptr::dangling_mut();
    // SAFETY: a NUL-terminated path; `array` is writable.
    let rc = unsafe { b2nd_open(cpath.as_ptr(), &mut array) };
    if rc < 0 {
        assert!(array.is_null(), "b2nd_open failed ({rc}) but left *array set");
    } else {
        read_and_edit(array);
    }
    let _ = std::fs::remove_file(&path);
}

/// The array's shape and item size, checked for sanity.
struct Items {
    ndim: usize,
    shape: [i64; MAX_DIM],
    chunkshape: [i32; MAX_DIM],
    blockshape: [i32; MAX_DIM],
    itemsize: i64,
    /// Bytes of the whole array, when that fits in an `i64`.
    bytes: Option<i64>,
    /// Chunks the shape implies.
    nchunks: i64,
    /// Bytes of one (extended) chunk, when that fits in an `i64`.
    chunk_bytes: Option<i64>,
}

impl Items {
    fn of(array: *const b2nd_array_t) -> Items {
        // SAFETY: a live array; its public fields and its super-chunk are
        // readable.
        let (ndim, shape, chunkshape, blockshape, itemsize, nchunks, chunk_items) = unsafe {
            let a = &*array;
            assert!(!a.sc.is_null(), "array without a super-chunk");
            let nchunks = if a.chunknitems > 0 {
                a.extnitems / i64::from(a.chunknitems)
            } else {
                0
            };
            (
                a.ndim,
                a.shape,
                a.chunkshape,
                a.blockshape,
                i64::from((*a.sc).typesize),
                nchunks,
                a.extchunknitems,
            )
        };
        assert!((0..=MAX_DIM as i8).contains(&ndim), "ndim {ndim}");
        let ndim = ndim as usize;
        assert!(
            shape[..ndim].iter().all(|&s| s >= 0),
            "negative shape {:?}",
            &shape[..ndim]
        );
        let bytes = shape[..ndim].iter().try_fold(itemsize, |acc, &s| acc.checked_mul(s));
        Items {
            ndim,
            shape,
            chunkshape,
            blockshape,
            itemsize,
            bytes,
            nchunks,
            chunk_bytes: chunk_items.checked_mul(itemsize),
        }
    }

    /// Bytes of a box of `extent` items per dimension, when small enough
    /// to read.
    fn box_bytes(&self, extent: &[i64]) -> Option<i64> {
        let n = extent.iter().try_fold(self.itemsize, |acc, &e| acc.checked_mul(e))?;
        (n <= i64::from(MAX_DEST)).then_some(n)
    }
}

/// Every read a C program makes of an opened array.
fn read(array: *mut b2nd_array_t, items: &Items) {
    let nd = items.ndim;
    if let Some(n) = items.bytes.filter(|&n| n <= i64::from(MAX_DEST)) {
        let mut whole = vec![0u8; n as usize];
        // SAFETY: `whole` writable for `n` bytes.
        std::hint::black_box(unsafe { b2nd_to_cbuffer(array, whole.as_mut_ptr().cast(), n) });
    }
    // The middle third of every dimension (at most 64 items of each).
    let start: Vec<i64> = items.shape[..nd].iter().map(|&s| s / 3).collect();
    let stop: Vec<i64> = items.shape[..nd]
        .iter()
        .zip(&start)
        .map(|(&s, &b)| (s - s / 3).min(b + 64))
        .collect();
    let extent: Vec<i64> = start.iter().zip(&stop).map(|(&b, &e)| (e - b).max(0)).collect();
    if let Some(n) = items.box_bytes(&extent) {
        let mut part = vec![0u8; n as usize];
        // SAFETY: `start`, `stop`, `extent` have `ndim` entries; `part`
        // writable for `n` bytes.
        std::hint::black_box(unsafe {
            b2nd_get_slice_cbuffer(
                array,
                start.as_ptr(),
                stop.as_ptr(),
                part.as_mut_ptr().cast(),
                extent.as_ptr(),
                n,
            )
        });
    }
    orthogonal(array, items);
    if items.nchunks <= MAX_MADE_CHUNKS {
        squeezed(array);
        copied(array, items);
    }
    reframed(array, items);
}

/// The first and last index of every dimension.
fn orthogonal(array: *mut b2nd_array_t, items: &Items) {
    let nd = items.ndim;
    let mut lists: Vec<Vec<i64>> = items.shape[..nd]
        .iter()
        .map(|&s| if s > 1 { vec![s - 1, 0] } else { vec![0; s as usize] })
        .collect();
    let mut sizes: Vec<i64> = lists.iter().map(|l| l.len() as i64).collect();
    let mut ptrs: Vec<*mut i64> = lists.iter_mut().map(|l| l.as_mut_ptr()).collect();
    let Some(n) = items.box_bytes(&sizes) else { return };
    let mut out = vec![0u8; n as usize];
    let mut bshape = sizes.clone();
    // SAFETY: `ndim` lists of `sizes[i]` indices each, `ndim` buffer
    // dimensions, `out` writable for `n` bytes.
    std::hint::black_box(unsafe {
        b2nd_get_orthogonal_selection(
            array,
            ptrs.as_mut_ptr(),
            sizes.as_mut_ptr(),
            out.as_mut_ptr().cast(),
            bshape.as_mut_ptr(),
            n,
        )
    });
}

/// A view without the dimensions of length 1.
fn squeezed(array: *mut b2nd_array_t) {
    let mut view: *mut b2nd_array_t = ptr::dangling_mut();
    // SAFETY: live array, writable output.
    let rc = unsafe { b2nd_squeeze(array, &mut view) };
    if rc < 0 {
        assert!(view.is_null(), "b2nd_squeeze failed ({rc}) but left *view set");
        return;
    }
    // SAFETY: a view we own, freed once.
    unsafe { b2nd_free(view) };
}

/// A copy into a new in-memory array with the same partitioning.
fn copied(array: *mut b2nd_array_t, items: &Items) {
    if items.bytes.is_none_or(|n| n > i64::from(MAX_DEST)) {
        return;
    }
    let storage = blosc2_get_blosc2_storage_defaults();
    // SAFETY: the shapes have `ndim` entries; no dtype, no metalayers.
    let ctx = unsafe {
        b2nd_create_ctx(
            &storage,
            items.ndim as i8,
            items.shape.as_ptr(),
            items.chunkshape.as_ptr(),
            items.blockshape.as_ptr(),
            ptr::null::<c_char>(),
            0,
            ptr::null(),
            0,
        )
    };
    if ctx.is_null() {
        return;
    }
    let mut copy: *mut b2nd_array_t = ptr::dangling_mut();
    // SAFETY: live context and array, writable output.
    let rc = unsafe { b2nd_copy(ctx, array, &mut copy) };
    if rc < 0 {
        assert!(copy.is_null(), "b2nd_copy failed ({rc}) but left *array set");
    } else {
        // SAFETY: an array we own, freed once.
        unsafe { b2nd_free(copy) };
    }
    // SAFETY: created above, freed once.
    unsafe { b2nd_free_ctx(ctx) };
}

/// The frame written again must open with the same shape.
fn reframed(array: *mut b2nd_array_t, items: &Items) {
    let mut frame: *mut u8 = ptr::null_mut();
    let (mut len, mut needs_free) = (0i64, false);
    // SAFETY: live array, writable outputs.
    let rc = unsafe { b2nd_to_cframe(array, &mut frame, &mut len, &mut needs_free) };
    if rc < 0 || frame.is_null() {
        return;
    }
    // SAFETY: `frame` readable for `len` bytes until freed.
    let mut bytes = unsafe { std::slice::from_raw_parts(frame, len as usize) }.to_vec();
    if needs_free {
        // SAFETY: malloc'ed for us.
        unsafe { libc::free(frame.cast()) };
    }
    let mut again: *mut b2nd_array_t = ptr::null_mut();
    // SAFETY: `bytes` readable and outlives `again`.
    let rc = unsafe { b2nd_from_cframe(bytes.as_mut_ptr(), bytes.len() as i64, false, &mut again) };
    assert!(rc >= 0 && !again.is_null(), "a frame we wrote does not open ({rc})");
    // SAFETY: live.
    let (nd, shape) = unsafe { ((*again).ndim as usize, (*again).shape) };
    assert_eq!(
        &shape[..nd],
        &items.shape[..items.ndim],
        "rewritten frame has another shape"
    );
    // SAFETY: live, freed once.
    unsafe { b2nd_free(again) };
}

/// One row appended along the first axis, then the first row deleted.
fn edit(array: *mut b2nd_array_t, items: &Items) {
    if items.ndim == 0 || items.chunk_bytes.is_none_or(|b| b > MAX_EDITED_CHUNK) {
        return;
    }
    let mut row = items.shape[..items.ndim].to_vec();
    row[0] = 1;
    if let Some(n) = items.box_bytes(&row) {
        let bytes = vec![0x5au8; n as usize];
        // SAFETY: `bytes` readable for `n` bytes.
        std::hint::black_box(unsafe { b2nd_append(array, bytes.as_ptr().cast(), n, 0) });
    }
    // The last row (a shrink), then the first chunk's rows (deletions
    // elsewhere must cover whole chunks).
    // SAFETY: live array.
    let rows = unsafe { (*array).shape[0] };
    // SAFETY: live array.
    std::hint::black_box(unsafe { b2nd_delete(array, 0, rows - 1, 1) });
    // SAFETY: live array.
    std::hint::black_box(unsafe { b2nd_delete(array, 0, 0, i64::from(items.chunkshape[0])) });
    // Whatever the edits did, the array still reads.
    Items::of(array);
}

/// `data` as the content of a "b2nd" metalayer.
fn deserialize_meta(data: &[u8]) {
    let Ok(len) = i32::try_from(data.len()) else { return };
    let mut ndim = -1i8;
    let mut shape = [0i64; MAX_DIM];
    let mut chunkshape = [0i32; MAX_DIM];
    let mut blockshape = [0i32; MAX_DIM];
    let mut dtype: *mut c_char = ptr::dangling_mut();
    let mut dtype_format = -1i8;
    // SAFETY: `data` readable for `len` bytes; the shapes hold MAX_DIM
    // entries; the other outputs are writable.
    let rc = unsafe {
        b2nd_deserialize_meta(
            data.as_ptr(),
            len,
            &mut ndim,
            shape.as_mut_ptr(),
            chunkshape.as_mut_ptr(),
            blockshape.as_mut_ptr(),
            &mut dtype,
            &mut dtype_format,
        )
    };
    assert!(
        rc < 0 || (0..=MAX_DIM as i8).contains(&ndim),
        "deserialized ndim {ndim}"
    );
    assert!(dtype != ptr::dangling_mut(), "dtype left unset");
    if !dtype.is_null() {
        // SAFETY: NUL-terminated, malloc'ed for us.
        unsafe {
            std::hint::black_box(std::ffi::CStr::from_ptr(dtype).to_bytes().len());
            libc::free(dtype.cast());
        }
    }
}
