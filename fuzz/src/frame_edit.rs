//! Arbitrary bytes as a contiguous frame, opened from memory (kept and
//! copied) and from a file, and as the index of a sparse frame (whose
//! directory holds a few sound chunk files), then edited the ways a C
//! program edits one: a chunk appended, inserted, updated and deleted, the
//! offsets reordered, a metalayer rewritten and a vlmetalayer added. Every
//! edit may fail on a damaged frame, but the chunk count must follow the
//! ones that succeed, everything must still read, and when every chunk
//! decodes, the edited frame must reopen with that count (from disk too).

use std::ffi::CString;
use std::ptr;
use std::sync::OnceLock;

use blosc2::capi::blosc2_schunk;
use blosc2::capi::chunkinfo::{blosc2_cbuffer_sizes, blosc2_chunk_zeros};
use blosc2::capi::misc::blosc2_get_blosc2_cparams_defaults;
use blosc2::capi::schunk::{
    blosc2_schunk_append_buffer, blosc2_schunk_decompress_chunk, blosc2_schunk_delete_chunk, blosc2_schunk_free,
    blosc2_schunk_get_lazychunk, blosc2_schunk_insert_chunk, blosc2_schunk_reorder_offsets, blosc2_schunk_update_chunk,
};
use blosc2::capi::schunk_frame::blosc2_schunk_open;
use blosc2::capi::schunk_meta::{blosc2_meta_update, blosc2_vlmeta_add};

use super::chunk_decode::MAX_DEST;
use super::frame_open::{each_opening, reserialise, walk};
use super::roundtrip::compress;

/// Largest chunk appended (bytes); bigger claimed chunk sizes are skipped.
const MAX_APPEND: i32 = 1 << 20;
/// Offsets reordered only for this many chunks at most.
const MAX_REORDER: i64 = 4096;
/// Chunks decoded at most to tell whether a frame is sound.
const MAX_CHUNKS: i64 = 256;

/// The fuzz body.
pub fn run(frame: &[u8]) {
    each_opening(frame, |sc, copy| {
        let nchunks = edit(sc);
        walk(sc);
        if all_chunks_decode(sc) {
            reserialise(sc, nchunks, copy);
        }
    });
    in_file(frame);
    in_sparse_dir(frame);
}

/// Edit the frame in a temporary file, then reopen it.
fn in_file(frame: &[u8]) {
    let path = std::env::temp_dir().join(format!("blosc2-fuzz-edit-{}.b2frame", std::process::id()));
    if std::fs::write(&path, frame).is_err() {
        return;
    }
    reopen_after_edits(&path);
    let _ = std::fs::remove_file(&path);
}

/// `frame` as the index (`chunks.b2frame`) of a sparse frame whose
/// directory holds sound chunk files 0 to 3, edited and reopened.
fn in_sparse_dir(frame: &[u8]) {
    static CHUNKS: OnceLock<Vec<Vec<u8>>> = OnceLock::new();
    let chunks = CHUNKS.get_or_init(|| {
        let mut cp = blosc2_get_blosc2_cparams_defaults();
        cp.typesize = 4;
        (0..4u32)
            .map(|k| {
                let data: Vec<u8> = (0..2000u32).flat_map(|i| (i * (k + 1)).to_le_bytes()).collect();
                compress(&cp, &data).expect("a sound chunk")
            })
            .collect()
    });
    let dir = std::env::temp_dir().join(format!("blosc2-fuzz-edit-{}.sparse", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let written = std::fs::create_dir_all(&dir).is_ok()
        && std::fs::write(dir.join("chunks.b2frame"), frame).is_ok()
        && chunks
            .iter()
            .enumerate()
            .all(|(id, c)| std::fs::write(dir.join(format!("{id:08X}.chunk")), c).is_ok());
    if written {
        reopen_after_edits(&dir);
    }
    let _ = std::fs::remove_dir_all(&dir);
}

/// Open the frame at `path`, edit it, close it; it must reopen with the
/// chunk count the edits left when every chunk decodes.
fn reopen_after_edits(path: &std::path::Path) {
    let cpath = CString::new(path.to_string_lossy().into_owned()).expect("no NUL in a temp path");
    // SAFETY: a NUL-terminated path.
    let sc = unsafe { blosc2_schunk_open(cpath.as_ptr()) };
    if sc.is_null() {
        return;
    }
    let nchunks = edit(sc);
    let sound = all_chunks_decode(sc);
    // SAFETY: live, freed once.
    unsafe { blosc2_schunk_free(sc) };
    // SAFETY: a NUL-terminated path.
    let again = unsafe { blosc2_schunk_open(cpath.as_ptr()) };
    assert!(
        !sound || !again.is_null(),
        "an edited frame does not reopen from {}",
        path.display()
    );
    if !again.is_null() {
        // SAFETY: live.
        let n = unsafe { (*again).nchunks };
        assert_eq!(n, nchunks, "the edited frame has another chunk count");
        walk(again);
        // SAFETY: live, freed once.
        unsafe { blosc2_schunk_free(again) };
    }
}

/// Whether every chunk decodes whole. Opening a frame reads the first
/// chunk's header, so an edit that moves a damaged chunk first (as
/// reordering does) leaves a frame that does not open, in 3.3.5 as here;
/// only frames of sound chunks must reopen.
fn all_chunks_decode(sc: *mut blosc2_schunk) -> bool {
    let n = count(sc);
    n <= MAX_CHUNKS
        && (0..n).all(|i| {
            let mut chunk: *mut u8 = ptr::null_mut();
            let mut needs_free = false;
            // SAFETY: live super-chunk, writable outputs.
            let cbytes = unsafe { blosc2_schunk_get_lazychunk(sc, i, &mut chunk, &mut needs_free) };
            let mut nbytes = -1;
            if cbytes >= 32 && !chunk.is_null() {
                let (mut cb, mut bs) = (0, 0);
                // SAFETY: at least a full header is readable.
                unsafe { blosc2_cbuffer_sizes(chunk.cast(), &mut nbytes, &mut cb, &mut bs) };
            }
            if needs_free {
                // SAFETY: malloc'ed for us.
                unsafe { libc::free(chunk.cast()) };
            }
            if !(0..=MAX_DEST).contains(&nbytes) {
                return false;
            }
            let mut dest = vec![0u8; nbytes as usize];
            // SAFETY: `dest` writable for `nbytes`.
            unsafe { blosc2_schunk_decompress_chunk(sc, i, dest.as_mut_ptr().cast(), nbytes) == nbytes }
        })
}

/// The chunk count of a live super-chunk.
fn count(sc: *mut blosc2_schunk) -> i64 {
    // SAFETY: live super-chunk; a public field.
    unsafe { (*sc).nchunks }
}

/// Every edit once; returns the chunk count after them.
fn edit(sc: *mut blosc2_schunk) -> i64 {
    // SAFETY: live super-chunk; public fields.
    let (chunksize, typesize) = unsafe { ((*sc).chunksize, (*sc).typesize) };
    let size = if (1..=MAX_APPEND).contains(&chunksize) {
        chunksize
    } else {
        4096
    };
    let data: Vec<u8> = (0..size).map(|i| (i / 7) as u8).collect();
    let n = count(sc);
    // SAFETY: `data` readable for `size` bytes.
    let rc = unsafe { blosc2_schunk_append_buffer(sc, data.as_ptr().cast(), size) };
    check(sc, rc, n, n + 1, "append_buffer");

    let mut cp = blosc2_get_blosc2_cparams_defaults();
    cp.typesize = typesize.max(1);
    let mut zeros = vec![0u8; 64];
    // SAFETY: `zeros` writable for 64 bytes.
    let zrc = unsafe { blosc2_chunk_zeros(cp, size, zeros.as_mut_ptr().cast(), 64) };
    if zrc > 0 {
        let n = count(sc);
        // SAFETY: a chunk of `zrc` bytes, copied by the call.
        let rc = unsafe { blosc2_schunk_insert_chunk(sc, 0, zeros.as_mut_ptr(), true) };
        check(sc, rc, n, n + 1, "insert_chunk");
        let n = count(sc);
        if n > 0 {
            // SAFETY: as above.
            let rc = unsafe { blosc2_schunk_update_chunk(sc, n / 2, zeros.as_mut_ptr(), true) };
            check(sc, rc, n, n, "update_chunk");
        }
    }
    let n = count(sc);
    if n > 0 {
        // SAFETY: live super-chunk.
        let rc = unsafe { blosc2_schunk_delete_chunk(sc, n - 1) };
        check(sc, rc, n, n - 1, "delete_chunk");
    }
    let n = count(sc);
    if (1..=MAX_REORDER).contains(&n) {
        let mut order: Vec<i64> = (0..n).rev().collect();
        // SAFETY: `n` entries.
        let rc = unsafe { blosc2_schunk_reorder_offsets(sc, order.as_mut_ptr()) };
        check(sc, i64::from(rc), n, 0, "reorder_offsets");
    }
    metalayers(sc);
    count(sc)
}

/// A failed edit leaves the chunk count alone; a successful one returns
/// `want` and leaves that many chunks (reordering returns 0 and keeps
/// the count).
fn check(sc: *mut blosc2_schunk, rc: i64, before: i64, want: i64, what: &str) {
    let now = count(sc);
    if rc < 0 {
        assert_eq!(now, before, "{what} failed ({rc}) but changed the chunk count");
    } else {
        assert_eq!(rc, want, "{what} returned {rc}");
        if want != 0 {
            assert_eq!(now, want, "{what}: {now} chunks");
        }
    }
}

/// The first metalayer rewritten with its own bytes reversed, and a
/// vlmetalayer added.
fn metalayers(sc: *mut blosc2_schunk) {
    // SAFETY: live super-chunk; entries below `nmetalayers` are valid.
    let first = unsafe {
        ((*sc).nmetalayers > 0).then(|| {
            let m = (*sc).metalayers[0];
            let len = (*m).content_len.max(0) as usize;
            let content = if len > 0 {
                std::slice::from_raw_parts((*m).content, len).to_vec()
            } else {
                Vec::new()
            };
            (std::ffi::CStr::from_ptr((*m).name).to_owned(), content)
        })
    };
    if let Some((name, mut content)) = first {
        content.reverse();
        // SAFETY: NUL-terminated name; `content` readable for its length.
        let rc = unsafe { blosc2_meta_update(sc, name.as_ptr(), content.as_mut_ptr(), content.len() as i32) };
        std::hint::black_box(rc);
    }
    let name = c"fuzz-edit";
    let mut content = *b"edited";
    // SAFETY: NUL-terminated name; `content` readable; default cparams.
    let rc = unsafe { blosc2_vlmeta_add(sc, name.as_ptr(), content.as_mut_ptr(), 6, ptr::null_mut()) };
    std::hint::black_box(rc);
}
