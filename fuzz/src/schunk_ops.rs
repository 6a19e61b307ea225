//! A drawn sequence of super-chunk operations (append, insert, update,
//! delete, reorder, slices, special chunks, metalayers, vlmetalayers,
//! reopen) on one storage kind (in memory or a file; contiguous or
//! sparse), checked after every step against a plain in-memory model.

use std::collections::BTreeMap;
use std::ffi::{CStr, CString};
use std::ptr;

use blosc2::capi::chunkinfo::blosc2_chunk_zeros;
use blosc2::capi::misc::{blosc2_get_blosc2_dparams_defaults, blosc2_get_blosc2_storage_defaults};
use blosc2::capi::schunk::{
    blosc2_schunk_append_buffer, blosc2_schunk_append_chunk, blosc2_schunk_decompress_chunk,
    blosc2_schunk_delete_chunk, blosc2_schunk_free, blosc2_schunk_insert_chunk, blosc2_schunk_new,
    blosc2_schunk_reorder_offsets, blosc2_schunk_update_chunk,
};
use blosc2::capi::schunk_frame::{
    blosc2_remove_urlpath, blosc2_schunk_from_buffer, blosc2_schunk_open, blosc2_schunk_to_buffer,
};
use blosc2::capi::schunk_meta::{
    blosc2_meta_add, blosc2_meta_update, blosc2_vlmeta_add, blosc2_vlmeta_delete, blosc2_vlmeta_get,
    blosc2_vlmeta_update,
};
use blosc2::capi::schunk_slice::{blosc2_schunk_get_slice_buffer, blosc2_schunk_set_slice_buffer};
use blosc2::capi::{blosc2_cparams, blosc2_schunk};

use super::input::{fill, Input};
use super::params::CODECS;
use super::roundtrip::{compress, MAX_OVERHEAD};

/// Operations per input at most.
const MAX_OPS: usize = 48;

/// What the super-chunk should hold.
#[derive(Default)]
struct Model {
    chunks: Vec<Vec<u8>>,
    metas: Vec<(String, Vec<u8>)>,
    vlmetas: BTreeMap<String, Vec<u8>>,
}

/// The super-chunk under test and how it was made.
struct Subject {
    sc: *mut blosc2_schunk,
    cparams: blosc2_cparams,
    chunksize: usize,
    typesize: usize,
    urlpath: Option<CString>,
    contiguous: bool,
}

/// The fuzz body.
pub fn run(bytes: &[u8]) {
    let mut input = Input::new(bytes);
    let mut s = Subject::new(&mut input);
    let mut model = Model::default();
    for step in 0..MAX_OPS {
        if input.is_empty() {
            break;
        }
        let op = input.byte() % 12;
        s.apply(op, &mut input, &mut model);
        s.check(&model, &format!("after step {step} (op {op})"));
    }
    s.reopen();
    s.check(&model, "after the final reopen");
}

impl Subject {
    fn new(input: &mut Input) -> Subject {
        let kind = input.byte() % 4;
        let typesize = input.pick(&[1usize, 2, 4, 8]);
        let chunksize = (1 + input.below(512)) * typesize;
        let mut cparams = blosc2::capi::misc::blosc2_get_blosc2_cparams_defaults();
        cparams.typesize = typesize as i32;
        cparams.compcode = input.pick(&CODECS);
        cparams.clevel = input.byte() % 10;
        cparams.nthreads = 1;
        let urlpath = (kind >= 2).then(|| {
            let p = std::env::temp_dir().join(format!("blosc2-fuzz-schunk-{}.b2frame", std::process::id()));
            CString::new(p.to_string_lossy().into_owned()).expect("no NUL in a temp path")
        });
        let contiguous = kind % 2 == 1;
        if let Some(p) = &urlpath {
            // SAFETY: NUL-terminated.
            unsafe { blosc2_remove_urlpath(p.as_ptr()) };
        }
        let mut dparams = blosc2_get_blosc2_dparams_defaults();
        let mut storage = blosc2_get_blosc2_storage_defaults();
        storage.contiguous = contiguous;
        storage.urlpath = urlpath.as_ref().map_or(ptr::null_mut(), |p| p.as_ptr().cast_mut());
        storage.cparams = &mut cparams;
        storage.dparams = &mut dparams;
        // SAFETY: the storage and what it points to are live for the call.
        let sc = unsafe { blosc2_schunk_new(&mut storage) };
        assert!(!sc.is_null(), "blosc2_schunk_new failed (kind {kind})");
        Subject {
            sc,
            cparams,
            chunksize,
            typesize,
            urlpath,
            contiguous,
        }
    }

    fn nitems(&self, model: &Model) -> usize {
        model.chunks.len() * self.chunksize / self.typesize
    }

    fn apply(&mut self, op: u8, input: &mut Input, model: &mut Model) {
        let n = model.chunks.len();
        let sc = self.sc;
        match op {
            0 => {
                let data = fill(input.bytes(24), self.chunksize);
                // SAFETY: live super-chunk; `data` readable.
                let rc = unsafe { blosc2_schunk_append_buffer(sc, data.as_ptr().cast(), data.len() as i32) };
                assert_eq!(rc, n as i64 + 1, "append_buffer");
                model.chunks.push(data);
            }
            1 | 2 => {
                let pos = input.below(n + usize::from(op == 1));
                let data = fill(input.bytes(24), self.chunksize);
                let mut chunk = compress(&self.cparams, &data).expect("compressing a chunk");
                if op == 1 {
                    // SAFETY: live super-chunk; a valid chunk, copied.
                    let rc = unsafe { blosc2_schunk_insert_chunk(sc, pos as i64, chunk.as_mut_ptr(), true) };
                    assert_eq!(rc, n as i64 + 1, "insert_chunk({pos})");
                    model.chunks.insert(pos, data);
                } else if n > 0 {
                    // SAFETY: as above.
                    let rc = unsafe { blosc2_schunk_update_chunk(sc, pos as i64, chunk.as_mut_ptr(), true) };
                    assert!(rc >= 0, "update_chunk({pos}) = {rc}");
                    model.chunks[pos] = data;
                }
            }
            3 if n > 0 => {
                let pos = input.below(n);
                // SAFETY: live super-chunk.
                let rc = unsafe { blosc2_schunk_delete_chunk(sc, pos as i64) };
                assert_eq!(rc, n as i64 - 1, "delete_chunk({pos})");
                model.chunks.remove(pos);
            }
            4 => {
                let mut order: Vec<i64> = (0..n as i64).collect();
                for i in (1..n).rev() {
                    order.swap(i, input.below(i + 1));
                }
                // SAFETY: live super-chunk; `n` entries.
                let rc = unsafe { blosc2_schunk_reorder_offsets(sc, order.as_mut_ptr()) };
                assert_eq!(rc, 0, "reorder_offsets({order:?})");
                let old = std::mem::take(&mut model.chunks);
                model.chunks = order.iter().map(|&k| old[k as usize].clone()).collect();
            }
            5 | 6 => {
                let total = self.nitems(model);
                let start = input.below(total + 1);
                let stop = start + input.below(total - start + 1);
                if stop == start {
                    return;
                }
                let bytes = (stop - start) * self.typesize;
                let from = start * self.typesize;
                if op == 5 {
                    let mut out = vec![0u8; bytes];
                    // SAFETY: `out` holds the items asked for.
                    let rc = unsafe {
                        blosc2_schunk_get_slice_buffer(sc, start as i64, stop as i64, out.as_mut_ptr().cast())
                    };
                    assert_eq!(rc, 0, "get_slice_buffer({start}, {stop})");
                    let flat: Vec<u8> = model.chunks.concat();
                    assert!(
                        out[..] == flat[from..from + bytes],
                        "get_slice_buffer({start}, {stop}) differs"
                    );
                } else {
                    let mut data = fill(input.bytes(24), bytes);
                    // SAFETY: `data` holds the items written.
                    let rc = unsafe {
                        blosc2_schunk_set_slice_buffer(sc, start as i64, stop as i64, data.as_mut_ptr().cast())
                    };
                    assert_eq!(rc, 0, "set_slice_buffer({start}, {stop})");
                    let mut flat: Vec<u8> = model.chunks.concat();
                    flat[from..from + bytes].copy_from_slice(&data);
                    model.chunks = flat.chunks(self.chunksize).map(<[u8]>::to_vec).collect();
                }
            }
            7 => {
                let mut chunk = vec![0u8; MAX_OVERHEAD];
                // SAFETY: `chunk` has room for a special chunk's header.
                let rc = unsafe {
                    blosc2_chunk_zeros(
                        self.cparams,
                        self.chunksize as i32,
                        chunk.as_mut_ptr().cast(),
                        chunk.len() as i32,
                    )
                };
                assert!(rc > 0, "chunk_zeros = {rc}");
                // SAFETY: live super-chunk; a valid chunk, copied.
                let rc = unsafe { blosc2_schunk_append_chunk(sc, chunk.as_mut_ptr(), true) };
                assert_eq!(rc, n as i64 + 1, "append_chunk(zeros)");
                model.chunks.push(vec![0; self.chunksize]);
            }
            8 => self.meta(input, model),
            9 => self.vlmeta(input, model),
            10 => self.reopen(),
            _ => {}
        }
    }

    fn meta(&mut self, input: &mut Input, model: &mut Model) {
        let k = input.byte() % 4;
        let name = format!("m{k}");
        let cname = CString::new(name.clone()).expect("no NUL");
        if let Some((_, content)) = model.metas.iter_mut().find(|(m, _)| *m == name) {
            // Updates keep the length.
            let mut new = fill(input.bytes(8), content.len());
            // SAFETY: live super-chunk; name and content valid.
            let rc = unsafe { blosc2_meta_update(self.sc, cname.as_ptr(), new.as_mut_ptr(), new.len() as i32) };
            assert!(rc >= 0, "meta_update({name}) = {rc}");
            *content = new;
        } else {
            let mut content = fill(input.bytes(8), input.below(40));
            // SAFETY: as above.
            let rc = unsafe { blosc2_meta_add(self.sc, cname.as_ptr(), content.as_mut_ptr(), content.len() as i32) };
            // Frames refuse new metalayers once they hold chunks.
            if rc >= 0 {
                model.metas.push((name, content));
            }
        }
    }

    fn vlmeta(&mut self, input: &mut Input, model: &mut Model) {
        let k = input.byte() % 4;
        let name = format!("v{k}");
        let cname = CString::new(name.clone()).expect("no NUL");
        let sc = self.sc;
        let mut cp = self.cparams;
        if input.byte().is_multiple_of(4) {
            // SAFETY: live super-chunk, a valid name.
            let rc = unsafe { blosc2_vlmeta_delete(sc, cname.as_ptr()) };
            assert_eq!(
                rc >= 0,
                model.vlmetas.remove(&name).is_some(),
                "vlmeta_delete({name}) = {rc}"
            );
            return;
        }
        let len = input.below(300);
        let mut content = fill(input.bytes(8), len);
        // SAFETY: live super-chunk; valid name, content and parameters.
        let rc = unsafe {
            if model.vlmetas.contains_key(&name) {
                blosc2_vlmeta_update(sc, cname.as_ptr(), content.as_mut_ptr(), len as i32, &mut cp)
            } else {
                blosc2_vlmeta_add(sc, cname.as_ptr(), content.as_mut_ptr(), len as i32, &mut cp)
            }
        };
        assert!(rc >= 0, "vlmeta add/update({name}, {len} bytes) = {rc}");
        model.vlmetas.insert(name, content);
    }

    /// Close and reopen a file super-chunk; round-trip an in-memory
    /// contiguous one through its frame.
    fn reopen(&mut self) {
        let fresh = if let Some(p) = &self.urlpath {
            // SAFETY: live; freed once, then reopened from its path.
            unsafe {
                blosc2_schunk_free(self.sc);
                blosc2_schunk_open(p.as_ptr())
            }
        } else if self.contiguous {
            let mut frame: *mut u8 = ptr::null_mut();
            let mut needs_free = false;
            // SAFETY: live super-chunk; writable outputs.
            let len = unsafe { blosc2_schunk_to_buffer(self.sc, &mut frame, &mut needs_free) };
            assert!(len > 0 && !frame.is_null(), "schunk_to_buffer = {len}");
            // SAFETY: `frame` readable for `len` until freed; copied out.
            let mut copy = unsafe { std::slice::from_raw_parts(frame, len as usize) }.to_vec();
            // SAFETY: malloc'ed for us when `needs_free`; then the old
            // super-chunk is freed once.
            unsafe {
                if needs_free {
                    libc::free(frame.cast());
                }
                blosc2_schunk_free(self.sc);
            }
            // SAFETY: `copy` readable; copied into the new super-chunk.
            unsafe { blosc2_schunk_from_buffer(copy.as_mut_ptr(), copy.len() as i64, true) }
        } else {
            return;
        };
        assert!(!fresh.is_null(), "reopening failed");
        self.sc = fresh;
    }

    fn check(&self, model: &Model, when: &str) {
        // SAFETY: live super-chunk; its public fields are readable.
        let nchunks = unsafe { (*self.sc).nchunks };
        assert_eq!(nchunks, model.chunks.len() as i64, "nchunks {when}");
        let mut out = vec![0u8; self.chunksize];
        for (i, want) in model.chunks.iter().enumerate() {
            // SAFETY: `out` holds a chunk.
            let rc =
                unsafe { blosc2_schunk_decompress_chunk(self.sc, i as i64, out.as_mut_ptr().cast(), out.len() as i32) };
            assert_eq!(rc, self.chunksize as i32, "decompress_chunk({i}) {when}");
            assert!(out == *want, "chunk {i} differs {when}");
        }
        // SAFETY: live super-chunk; entries below `nmetalayers` are valid.
        unsafe {
            let nmeta = usize::from((*self.sc).nmetalayers);
            assert_eq!(nmeta, model.metas.len(), "metalayer count {when}");
            for (m, (name, content)) in (&(*self.sc).metalayers)[..nmeta].iter().zip(&model.metas) {
                let got = CStr::from_ptr((**m).name).to_string_lossy();
                assert_eq!(got, name.as_str(), "metalayer name {when}");
                let bytes = std::slice::from_raw_parts((**m).content, (**m).content_len as usize);
                assert!(bytes == &content[..], "metalayer {name} {when}");
            }
            assert_eq!(
                (*self.sc).nvlmetalayers as usize,
                model.vlmetas.len(),
                "vlmetalayer count {when}"
            );
        }
        for (name, want) in &model.vlmetas {
            let cname = CString::new(name.clone()).expect("no NUL");
            let mut content: *mut u8 = ptr::null_mut();
            let mut len = 0;
            // SAFETY: live super-chunk; writable outputs.
            let rc = unsafe { blosc2_vlmeta_get(self.sc, cname.as_ptr(), &mut content, &mut len) };
            // Even an empty vlmetalayer comes back as an allocation.
            assert!(rc >= 0 && !content.is_null(), "vlmeta_get({name}) = {rc} {when}");
            let got = if content.is_null() {
                Vec::new()
            } else {
                // SAFETY: malloc'ed for us, `len` bytes.
                unsafe {
                    let got = std::slice::from_raw_parts(content, len as usize).to_vec();
                    libc::free(content.cast());
                    got
                }
            };
            assert!(got == *want, "vlmetalayer {name} {when}");
        }
    }
}

impl Drop for Subject {
    fn drop(&mut self) {
        // SAFETY: live, freed once; then its files removed.
        unsafe {
            blosc2_schunk_free(self.sc);
            if let Some(p) = &self.urlpath {
                blosc2_remove_urlpath(p.as_ptr());
            }
        }
    }
}
