//! Item slices of super-chunks and the index helpers of the N-dimensional
//! layer (`blosc2_get_slice_nchunks` understands the `b2nd` metalayer).

use std::ffi::{c_int, c_void};
use std::ptr;

use super::boundary::{bytes, ffi_boundary, put, ERR_FAILURE, ERR_INVALID_PARAM, ERR_MEMORY_ALLOC, SUCCESS};
use super::schunk::{malloc_bytes, out_bytes, with_state, State};
use super::types_schunk::blosc2_schunk;
use crate::engine::b2nd::meta::deserialize_meta_dims;

/// `BLOSC2_ERROR_NULL_POINTER`.
const ERR_NULL_POINTER: c_int = -32;
/// `B2ND_MAX_DIM`.
const MAX_DIM: usize = 16;

fn ecode(e: crate::engine::error::Error) -> c_int {
    super::boundary::code_of(&e)
}

/// Bytes of the item range `[start, stop)` to read, as 3.3.5 bounds its
/// reads: an empty or reversed range reads nothing (`Ok(None)`, success),
/// one reaching past the end fails with `ERR_FAILURE` (its chunk loop finds
/// no chunk there).
fn get_len(st: &State, start: i64, stop: i64) -> Result<Option<i64>, c_int> {
    let ts = i64::from(st.sc.typesize());
    if stop <= start {
        return Ok(None);
    }
    if start < 0 || ts <= 0 {
        return Err(ERR_FAILURE);
    }
    let end = stop.checked_mul(ts).ok_or(ERR_FAILURE)?;
    if end > st.sc.nbytes() {
        return Err(ERR_FAILURE);
    }
    Ok(Some((stop - start) * ts))
}

/// The item range `[start, stop')` to write and its bytes, as 3.3.5
/// bounds its writes: an empty or reversed range writes nothing
/// (`Ok(None)`, success); a range ending past the last item but inside
/// the last chunk's `chunksize` writes up to the last item and drops the
/// rest (3.3.5 copies them past the chunk's end and recompresses only
/// its bytes); one reaching a chunk past the last fails with
/// `ERR_FAILURE`. A negative start is refused (3.3.5 writes before its
/// buffer).
fn set_range(st: &State, start: i64, stop: i64) -> Result<Option<(i64, i64)>, c_int> {
    let ts = i64::from(st.sc.typesize());
    if stop <= start {
        return Ok(None);
    }
    if start < 0 || ts <= 0 {
        return Err(ERR_INVALID_PARAM);
    }
    let end = stop.checked_mul(ts).ok_or(ERR_INVALID_PARAM)?;
    let nbytes = st.sc.nbytes();
    let mut stop = stop;
    if end > nbytes {
        let cs = i64::from(st.sc.chunksize());
        if cs <= 0 || (end - 1) / cs >= st.sc.nchunks() {
            return Err(ERR_FAILURE);
        }
        stop = nbytes / ts;
        if stop <= start {
            return Ok(None);
        }
    }
    Ok(Some((stop, (stop - start) * ts)))
}

/// `get_slice_buffer` through `schunk->dctx` (whole chunks decompressed),
/// for a dctx with a postfilter.
fn get_slice_with_ctx(st: &mut State, start: i64, stop: i64, out: &mut [u8]) -> Result<(), c_int> {
    let ts = i64::from(st.sc.typesize());
    let mut pos = 0usize;
    for p in st.sc.pieces(start * ts, stop * ts).map_err(ecode)? {
        let (off, len) = (p.start, p.len);
        let data = st.decompress_vec_with_dctx(p.nchunk)?;
        let part = data.get(off..off + len).ok_or(ERR_FAILURE)?;
        out[pos..pos + len].copy_from_slice(part);
        pos += len;
    }
    Ok(())
}

/// `set_slice_buffer` through `schunk->dctx` and `schunk->cctx`, as 3.3.5
/// does, for contexts with pre/postfilters or swapped in by the caller.
fn set_slice_with_ctx(st: &mut State, start: i64, stop: i64, src: &[u8]) -> Result<(), c_int> {
    let ts = i64::from(st.sc.typesize());
    let mut pos = 0usize;
    for p in st.sc.pieces(start * ts, stop * ts).map_err(ecode)? {
        let (n, off, len) = (p.nchunk, p.start, p.len);
        let chunk_len = p.chunk_len;
        let part = &src[pos..pos + len];
        let chunk = if off == 0 && len == chunk_len {
            st.compress_with_cctx(part, n)?
        } else {
            let mut data = st.decompress_vec_with_dctx(n)?;
            data.get_mut(off..off + len).ok_or(ERR_FAILURE)?.copy_from_slice(part);
            st.compress_with_cctx(&data, n)?
        };
        st.sc.update_chunk(n, &chunk).map_err(ecode)?;
        pos += len;
    }
    Ok(())
}

/// `get_sparse_buffer` through `schunk->dctx`.
fn get_sparse_with_ctx(st: &mut State, coords: &[i64], out: &mut [u8]) -> Result<(), c_int> {
    let ts = st.sc.typesize() as usize;
    let mut cached: Option<(usize, Vec<u8>)> = None;
    for (ci, off, k) in st.sc.sparse_order(coords).map_err(ecode)? {
        if cached.as_ref().map(|c| c.0) != Some(ci) {
            cached = Some((ci, st.decompress_vec_with_dctx(ci as i64)?));
        }
        let data = cached.as_ref().map(|c| &c.1).ok_or(ERR_FAILURE)?;
        let item = data.get(off..off + ts).ok_or(ERR_FAILURE)?;
        out[k * ts..(k + 1) * ts].copy_from_slice(item);
    }
    Ok(())
}

/// Copy items `[start, stop)` into `buffer` (`(stop - start) * typesize`
/// bytes), decoding only the blocks needed. Works with variable chunk
/// sizes too. Returns 0 (also for `stop <= start`: nothing read) or a
/// negative code (`BLOSC2_ERROR_FAILURE` past the end, as 3.3.5).
///
/// # Safety
/// `schunk` must be NULL or live; `buffer` writable for the slice's bytes.
#[no_mangle]
pub unsafe extern "C" fn blosc2_schunk_get_slice_buffer(
    schunk: *mut blosc2_schunk,
    start: i64,
    stop: i64,
    buffer: *mut c_void,
) -> c_int {
    ffi_boundary!(ERR_FAILURE, {
        with_state(schunk, |st| {
            let Some(len) = get_len(st, start, stop)? else {
                return Ok(SUCCESS);
            };
            // SAFETY: writable for the slice's bytes per the contract.
            let out = unsafe { out_bytes(buffer, len) }?;
            if st.plain_dctx() {
                st.sc.get_slice_buffer(start, stop, out).map_err(ecode)?;
            } else {
                get_slice_with_ctx(st, start, stop, out)?;
            }
            Ok(SUCCESS)
        })
        .unwrap_or_else(|c| c)
    })
}

/// Overwrite items `[start, stop)` with `buffer`, recompressing the chunks
/// involved. Returns 0 or a negative code. As 3.3.5: `stop <= start`
/// writes nothing and succeeds, items past the end but inside the last
/// chunk's `chunksize` are dropped, a chunk past the last one fails.
///
/// # Safety
/// `schunk` must be NULL or live; `buffer` readable for the slice's bytes.
#[no_mangle]
pub unsafe extern "C" fn blosc2_schunk_set_slice_buffer(
    schunk: *mut blosc2_schunk,
    start: i64,
    stop: i64,
    buffer: *mut c_void,
) -> c_int {
    ffi_boundary!(ERR_FAILURE, {
        with_state(schunk, |st| {
            let Some((stop, len)) = set_range(st, start, stop)? else {
                return Ok(SUCCESS);
            };
            // SAFETY: readable for the slice's bytes per the contract.
            let src = unsafe { bytes(buffer.cast_const(), len) }.map_err(|e| e.code())?;
            if st.plain_cctx() && st.plain_dctx() {
                st.sc.set_slice_buffer(start, stop, src).map_err(ecode)?;
            } else {
                set_slice_with_ctx(st, start, stop, src)?;
            }
            Ok(SUCCESS)
        })
        .unwrap_or_else(|c| c)
    })
}

/// Gather the items at the `ncoords` item indexes `coords` into `buffer`
/// (`ncoords * typesize` bytes), in the order given. Returns 0 or a
/// negative code.
///
/// # Safety
/// `schunk` must be NULL or live; `coords` readable for `ncoords` entries
/// and `buffer` writable for `ncoords * typesize` bytes.
#[no_mangle]
pub unsafe extern "C" fn blosc2_schunk_get_sparse_buffer(
    schunk: *mut blosc2_schunk,
    ncoords: i64,
    coords: *const i64,
    buffer: *mut c_void,
) -> c_int {
    ffi_boundary!(ERR_FAILURE, {
        if schunk.is_null() || ncoords < 0 {
            return ERR_INVALID_PARAM;
        }
        with_state(schunk, |st| {
            if ncoords == 0 {
                return Ok(SUCCESS);
            }
            if coords.is_null() || buffer.is_null() {
                return Err(ERR_INVALID_PARAM);
            }
            let ts = i64::from(st.sc.typesize());
            if ts <= 0 {
                return Err(ERR_INVALID_PARAM);
            }
            let n = usize::try_from(ncoords).map_err(|_| ERR_INVALID_PARAM)?;
            let len = ncoords.checked_mul(ts).ok_or(ERR_INVALID_PARAM)?;
            // SAFETY: `ncoords` entries per the contract.
            let cs = unsafe { std::slice::from_raw_parts(coords, n) };
            // SAFETY: writable for `ncoords * typesize` bytes per the contract.
            let out = unsafe { out_bytes(buffer, len) }?;
            if st.plain_dctx() {
                st.sc.get_sparse_buffer(cs, out).map_err(ecode)?;
            } else {
                get_sparse_with_ctx(st, cs, out)?;
            }
            Ok(SUCCESS)
        })
        .unwrap_or_else(|c| c)
    })
}

/// Shape, chunk shape of a `b2nd` metalayer (version 0, msgpack).
struct B2nd {
    shape: Vec<i64>,
    chunkshape: Vec<i64>,
}

/// The shape and chunk shape of a `b2nd` (or `caterva`) metalayer, read
/// as 3.3.5's `b2nd_deserialize_meta` reads them.
fn parse_b2nd(m: &[u8]) -> Option<B2nd> {
    let (meta, _) = deserialize_meta_dims(m).ok()?;
    Some(B2nd {
        shape: meta.shape,
        chunkshape: meta.chunkshape.into_iter().map(i64::from).collect(),
    })
}

/// The chunks of an N-dimensional array touched by `[start, stop)`, in the
/// order of 3.3.5's `b2nd_get_slice_nchunks`.
fn b2nd_slice_chunks(a: &B2nd, start: &[i64], stop: &[i64]) -> Result<Vec<i64>, c_int> {
    let ndim = a.shape.len();
    if a.shape.contains(&0) {
        return Ok(Vec::new());
    }
    if ndim == 0 {
        return Ok(vec![0]);
    }
    let mut chunks_in_array = vec![0i64; ndim];
    for i in 0..ndim {
        let (s, c) = (a.shape[i], a.chunkshape[i]);
        if s < 0 || c <= 0 || start[i] < 0 || stop[i] < start[i] || stop[i] > s {
            return Err(ERR_INVALID_PARAM);
        }
        chunks_in_array[i] = s / c + i64::from(s % c != 0);
    }
    let mut strides = vec![1i64; ndim];
    for i in (0..ndim - 1).rev() {
        strides[i] = strides[i + 1]
            .checked_mul(chunks_in_array[i + 1])
            .ok_or(ERR_INVALID_PARAM)?;
    }
    let mut first = vec![0i64; ndim];
    let mut count = vec![0i64; ndim];
    let mut total = 1i64;
    for i in 0..ndim {
        let c = a.chunkshape[i];
        first[i] = start[i] / c;
        let end = (first[i] + 1).max(stop[i] / c + i64::from(stop[i] % c != 0));
        count[i] = end - first[i];
        total = total.checked_mul(count[i]).ok_or(ERR_INVALID_PARAM)?;
    }
    let mut out = Vec::new();
    for k in 0..total {
        let mut rem = k;
        let mut idx = vec![0i64; ndim];
        for i in (0..ndim).rev() {
            idx[i] = rem % count[i] + first[i];
            rem /= count[i];
        }
        let mut empty = false;
        let mut nchunk = 0i64;
        for i in 0..ndim {
            let c = a.chunkshape[i];
            let cs = idx[i] * c;
            let ce = (cs + c).min(a.shape[i]);
            empty |= ce <= start[i] || cs >= stop[i];
            nchunk += idx[i] * strides[i];
        }
        if !empty {
            out.push(nchunk);
        }
    }
    Ok(out)
}

/// The chunks holding the slice `[start, stop)`: for super-chunks with a
/// `b2nd` (or `caterva`) metalayer `start`/`stop` have one entry per
/// dimension and chunks are those of the array; otherwise item indexes
/// `start[0]`/`stop[0]`. `*chunks_idx` receives a `malloc`ed array (to
/// `free()`; NULL when there are none). Returns their number or a
/// negative code (then `*chunks_idx` is NULL).
///
/// # Safety
/// `schunk` must be NULL or live; `start`/`stop` NULL or readable for
/// `ndim` (1 without metalayer) entries; `chunks_idx` NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn blosc2_get_slice_nchunks(
    schunk: *mut blosc2_schunk,
    start: *mut i64,
    stop: *mut i64,
    chunks_idx: *mut *mut i64,
) -> i64 {
    ffi_boundary!(i64::from(ERR_FAILURE), {
        // SAFETY: NULL or writable per the contract.
        unsafe { put(chunks_idx, ptr::null_mut()) };
        if chunks_idx.is_null() || start.is_null() || stop.is_null() {
            return i64::from(ERR_NULL_POINTER);
        }
        let r = with_state(schunk, |st| {
            let meta = st.sc.meta_get("b2nd").or_else(|_| st.sc.meta_get("caterva")).ok();
            match meta {
                Some(m) => {
                    let a = parse_b2nd(&m).ok_or(ERR_INVALID_PARAM)?;
                    let n = a.shape.len();
                    // SAFETY: `ndim` entries each per the contract.
                    let (s0, s1) = unsafe {
                        (
                            std::slice::from_raw_parts(start.cast_const(), n),
                            std::slice::from_raw_parts(stop.cast_const(), n),
                        )
                    };
                    b2nd_slice_chunks(&a, s0, s1)
                }
                None => {
                    // SAFETY: one entry each per the contract.
                    let (s0, s1) = unsafe { (start.read(), stop.read()) };
                    st.sc.get_slice_nchunks(s0, s1).map_err(ecode)
                }
            }
        });
        match r {
            Ok(v) if v.is_empty() => 0,
            Ok(v) => {
                let raw: Vec<u8> = v.iter().flat_map(|x| x.to_ne_bytes()).collect();
                let p = malloc_bytes(&raw);
                if p.is_null() {
                    return i64::from(ERR_MEMORY_ALLOC);
                }
                // SAFETY: non-NULL and writable per the contract.
                unsafe { chunks_idx.write(p.cast()) };
                v.len() as i64
            }
            Err(code) => i64::from(code),
        }
    })
}

/// Convert the C-order linear index `i` into an `ndim`-dimensional index
/// (`index`) for an array of `shape`. `ndim` 0 or above 16 and a NULL
/// `index` do nothing; a NULL `shape` or zero-sized dimensions give an
/// all-zero index.
///
/// # Safety
/// `shape` and `index` must be NULL or hold `ndim` entries.
#[no_mangle]
pub unsafe extern "C" fn blosc2_unidim_to_multidim(ndim: u8, shape: *mut i64, i: i64, index: *mut i64) {
    ffi_boundary!((), {
        let n = usize::from(ndim);
        if n == 0 || n > MAX_DIM || index.is_null() {
            return;
        }
        if shape.is_null() {
            // SAFETY: `index` holds `ndim` entries per the contract.
            unsafe { std::slice::from_raw_parts_mut(index, n) }.fill(0);
            return;
        }
        // SAFETY: `ndim` entries each per the contract.
        let (shape, index) = unsafe {
            (
                std::slice::from_raw_parts(shape.cast_const(), n),
                std::slice::from_raw_parts_mut(index, n),
            )
        };
        let mut strides = [1i64; MAX_DIM];
        for j in (0..n - 1).rev() {
            strides[j] = shape[j + 1].wrapping_mul(strides[j + 1]);
        }
        if strides[..n].contains(&0) {
            index.fill(0);
            return;
        }
        index[0] = i.wrapping_div(strides[0]);
        for j in 1..n {
            index[j] = i.wrapping_rem(strides[j - 1]).wrapping_div(strides[j]);
        }
    })
}

/// Convert an `ndim`-dimensional index into a linear one with `strides`:
/// `*i = sum(index[j] * strides[j])`.
///
/// # Safety
/// `index` and `strides` must be NULL or hold `ndim` entries; `i` NULL or
/// writable.
#[no_mangle]
pub unsafe extern "C" fn blosc2_multidim_to_unidim(index: *const i64, ndim: i8, strides: *const i64, i: *mut i64) {
    ffi_boundary!((), {
        if i.is_null() {
            return;
        }
        let n = usize::try_from(ndim).unwrap_or(0);
        let mut acc = 0i64;
        if n > 0 && !index.is_null() && !strides.is_null() {
            // SAFETY: `ndim` entries each per the contract.
            let (idx, st) = unsafe {
                (
                    std::slice::from_raw_parts(index, n),
                    std::slice::from_raw_parts(strides, n),
                )
            };
            for (a, b) in idx.iter().zip(st) {
                acc = acc.wrapping_add(a.wrapping_mul(*b));
            }
        }
        // SAFETY: non-NULL and writable per the contract.
        unsafe { i.write(acc) };
    })
}
