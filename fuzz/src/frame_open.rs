//! Arbitrary bytes as a contiguous frame: opened from memory (kept and
//! copied) and from a file at an offset, then every chunk read (whole,
//! lazy, decompressed, its VL blocks), every metalayer and vlmetalayer,
//! and the super-chunk serialised again, which must reopen.

use std::ffi::{c_char, CStr};
use std::ptr;

use blosc2::capi::blosc2_schunk;
use blosc2::capi::chunkinfo::blosc2_cbuffer_sizes;
use blosc2::capi::schunk::{
    blosc2_schunk_decompress_chunk, blosc2_schunk_free, blosc2_schunk_get_chunk, blosc2_schunk_get_lazychunk,
    blosc2_schunk_get_vlblock,
};
use blosc2::capi::schunk_frame::{blosc2_schunk_from_buffer, blosc2_schunk_open_offset, blosc2_schunk_to_buffer};
use blosc2::capi::schunk_meta::{blosc2_vlmeta_get, blosc2_vlmeta_get_names};
use blosc2::capi::vl::blosc2_vlchunk_get_nblocks;

use super::chunk_decode::MAX_DEST;

/// Chunks read per super-chunk at most (a frame may claim millions).
const MAX_CHUNKS: i64 = 2048;
/// VL blocks read per chunk at most.
const MAX_VLBLOCKS: i32 = 8;
/// Junk in front of the frame in the file, to exercise `open_offset`.
const FILE_OFFSET: usize = 5;

/// The fuzz body.
pub fn run(frame: &[u8]) {
    each_opening(frame, |sc, copy| {
        let nchunks = walk(sc);
        reserialise(sc, nchunks, copy);
    });
    from_file(frame);
}

/// Open `frame` from memory kept (`copy` false) and copied, and hand each
/// super-chunk that opens to `f` before freeing it.
pub fn each_opening(frame: &[u8], mut f: impl FnMut(*mut blosc2_schunk, bool)) {
    for copy in [false, true] {
        let mut buf = frame.to_vec();
        // SAFETY: `buf` is readable for its length and outlives the
        // super-chunk (freed below, before `buf`).
        let sc = unsafe { blosc2_schunk_from_buffer(buf.as_mut_ptr(), buf.len() as i64, copy) };
        if !sc.is_null() {
            f(sc, copy);
            // SAFETY: live, freed once.
            unsafe { blosc2_schunk_free(sc) };
        }
    }
}

/// Open `frame` from a temporary file at an offset and walk it.
fn from_file(frame: &[u8]) {
    let path = std::env::temp_dir().join(format!("blosc2-fuzz-frame-{}.b2frame", std::process::id()));
    let mut bytes = vec![0xa5u8; FILE_OFFSET];
    bytes.extend_from_slice(frame);
    if std::fs::write(&path, &bytes).is_err() {
        return;
    }
    let cpath = std::ffi::CString::new(path.to_string_lossy().into_owned()).expect("no NUL in a temp path");
    // SAFETY: a NUL-terminated path.
    let sc = unsafe { blosc2_schunk_open_offset(cpath.as_ptr(), FILE_OFFSET as i64) };
    if !sc.is_null() {
        walk(sc);
        // SAFETY: live, freed once.
        unsafe { blosc2_schunk_free(sc) };
    }
    let _ = std::fs::remove_file(&path);
}

/// Read everything a caller can read; returns the chunk count.
pub fn walk(sc: *mut blosc2_schunk) -> i64 {
    // SAFETY: `sc` is a live super-chunk; its public fields are readable.
    let nchunks = unsafe { (*sc).nchunks };
    assert!(nchunks >= 0, "negative nchunks {nchunks}");
    for i in 0..nchunks.min(MAX_CHUNKS) {
        read_chunk(sc, i);
    }
    for i in [nchunks, -1] {
        let mut dest = [0u8; 64];
        // SAFETY: out-of-range index; `dest` writable for 64 bytes.
        let rc = unsafe { blosc2_schunk_decompress_chunk(sc, i, dest.as_mut_ptr().cast(), 64) };
        assert!(rc < 0, "chunk {i} of {nchunks} decoded");
    }
    metalayers(sc);
    vlmetalayers(sc);
    nchunks
}

/// One chunk: raw, lazy, decompressed, VL blocks.
fn read_chunk(sc: *mut blosc2_schunk, i: i64) {
    for lazy in [false, true] {
        let mut chunk: *mut u8 = ptr::null_mut();
        let mut needs_free = false;
        // SAFETY: live super-chunk, writable outputs.
        let cbytes = unsafe {
            if lazy {
                blosc2_schunk_get_lazychunk(sc, i, &mut chunk, &mut needs_free)
            } else {
                blosc2_schunk_get_chunk(sc, i, &mut chunk, &mut needs_free)
            }
        };
        if cbytes < 0 || chunk.is_null() {
            continue;
        }
        // SAFETY: the returned chunk is readable for `cbytes` bytes; touch
        // every byte so an overread shows under ASan.
        let bytes = unsafe { std::slice::from_raw_parts(chunk, cbytes as usize) };
        let sum = bytes.iter().fold(0u8, |a, &b| a ^ b);
        std::hint::black_box(sum);
        let mut nbytes = -1;
        if cbytes >= 32 {
            let (mut cb, mut bs) = (0, 0);
            // SAFETY: at least a full header is readable.
            unsafe { blosc2_cbuffer_sizes(chunk.cast(), &mut nbytes, &mut cb, &mut bs) };
        }
        if !lazy {
            vlblocks(sc, i, chunk, cbytes);
        }
        if needs_free {
            // SAFETY: the chunk was malloc'ed for us.
            unsafe { libc::free(chunk.cast()) };
        }
        if !lazy && (0..=MAX_DEST).contains(&nbytes) {
            let mut dest = vec![0u8; nbytes as usize];
            // SAFETY: `dest` writable for `nbytes`.
            let rc = unsafe { blosc2_schunk_decompress_chunk(sc, i, dest.as_mut_ptr().cast(), nbytes) };
            assert!(rc <= nbytes, "chunk {i}: {rc} bytes into {nbytes}");
        }
    }
}

/// The first VL blocks of a VL-block chunk.
fn vlblocks(sc: *mut blosc2_schunk, i: i64, chunk: *const u8, cbytes: i32) {
    let mut nblocks = 0;
    // SAFETY: `chunk` readable for `cbytes`.
    if unsafe { blosc2_vlchunk_get_nblocks(chunk.cast(), cbytes, &mut nblocks) } < 0 {
        return;
    }
    for b in 0..nblocks.min(MAX_VLBLOCKS) {
        let mut dest: *mut u8 = ptr::null_mut();
        let mut size = 0;
        // SAFETY: live super-chunk, writable outputs.
        let rc = unsafe { blosc2_schunk_get_vlblock(sc, i, b, &mut dest, &mut size) };
        if rc >= 0 && !dest.is_null() {
            // SAFETY: malloc'ed for us, `size` bytes.
            unsafe {
                std::hint::black_box(std::slice::from_raw_parts(dest, size.max(0) as usize).last());
                libc::free(dest.cast());
            }
        }
    }
}

/// Every fixed-size metalayer through the public struct fields.
fn metalayers(sc: *mut blosc2_schunk) {
    // SAFETY: live super-chunk; entries below `nmetalayers` are valid
    // pointers to a NUL-terminated name and `content_len` bytes.
    unsafe {
        let n = usize::from((*sc).nmetalayers);
        let all = &(*sc).metalayers;
        assert!(n <= all.len(), "{n} metalayers");
        for &m in &all[..n] {
            assert!(!m.is_null(), "NULL metalayer");
            std::hint::black_box(CStr::from_ptr((*m).name).to_bytes().len());
            let len = (*m).content_len;
            assert!(len >= 0, "negative metalayer length");
            if len > 0 {
                std::hint::black_box(std::slice::from_raw_parts((*m).content, len as usize).last());
            }
        }
    }
}

/// Every vlmetalayer by name.
fn vlmetalayers(sc: *mut blosc2_schunk) {
    // SAFETY: live super-chunk.
    let n = unsafe { (*sc).nvlmetalayers };
    assert!(n >= 0, "negative nvlmetalayers");
    let mut names: Vec<*mut c_char> = vec![ptr::null_mut(); n as usize];
    // SAFETY: room for `n` name pointers.
    let got = unsafe { blosc2_vlmeta_get_names(sc, names.as_mut_ptr()) };
    assert!(got <= i32::from(n), "{got} names for {n} vlmetalayers");
    for &name in &names[..got.max(0) as usize] {
        assert!(!name.is_null(), "NULL vlmetalayer name");
        let mut content: *mut u8 = ptr::null_mut();
        let mut len = 0;
        // SAFETY: a name owned by the super-chunk; writable outputs.
        let rc = unsafe { blosc2_vlmeta_get(sc, name, &mut content, &mut len) };
        // Success hands out an allocation even for empty content (as
        // 3.3.5's malloc(0) does), which the caller frees.
        assert!(rc < 0 || !content.is_null(), "vlmeta_get succeeded without content");
        if rc >= 0 {
            // SAFETY: malloc'ed for us, `len` bytes.
            unsafe {
                std::hint::black_box(std::slice::from_raw_parts(content, len.max(0) as usize).last());
                libc::free(content.cast());
            }
        }
    }
}

/// Serialise `sc` again; the frame must open the way `sc` was opened
/// (`copy` reads every chunk, so it refuses frames a kept frame accepts
/// lazily) with the same chunk count.
pub fn reserialise(sc: *mut blosc2_schunk, nchunks: i64, copy: bool) {
    let mut out: *mut u8 = ptr::null_mut();
    let mut needs_free = false;
    // SAFETY: live super-chunk; writable outputs.
    let len = unsafe { blosc2_schunk_to_buffer(sc, &mut out, &mut needs_free) };
    if len < 0 || out.is_null() {
        return;
    }
    // SAFETY: `out` readable for `len` bytes until freed or `sc` changes.
    let mut frame = unsafe { std::slice::from_raw_parts(out, len as usize) }.to_vec();
    if needs_free {
        // SAFETY: malloc'ed for us.
        unsafe { libc::free(out.cast()) };
    }
    // SAFETY: `frame` readable for its length, outlives the super-chunk.
    let again = unsafe { blosc2_schunk_from_buffer(frame.as_mut_ptr(), frame.len() as i64, copy) };
    assert!(!again.is_null(), "a frame we wrote does not open");
    // SAFETY: live.
    let n2 = unsafe { (*again).nchunks };
    assert_eq!(n2, nchunks, "rewritten frame has another chunk count");
    // SAFETY: live, freed once.
    unsafe { blosc2_schunk_free(again) };
}
