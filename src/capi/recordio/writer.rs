//! Writers: creation (to a file or to memory), header entries, items,
//! trailer, and the bytes of a memory writer.

use super::*;

/// Convert C writer options.
///
/// # Safety
/// `opts` must be NULL or valid, with `transformers` holding
/// `ntransformers` NUL-terminated strings.
unsafe fn writer_opts(opts: *const blosc2_recordio_writer_options) -> Result<WriterOpts, c_int> {
    // SAFETY: NULL or valid per the contract.
    let Some(o) = (unsafe { opts.as_ref() }) else {
        return Ok(WriterOpts::default());
    };
    if o.ntransformers < 0 || (o.ntransformers > 0 && o.transformers.is_null()) {
        return Err(fail_code(ERR_INVALID_PARAM, "bad transformer list"));
    }
    let mut transformers = Vec::new();
    for i in 0..o.ntransformers as usize {
        // SAFETY: `transformers` holds `ntransformers` pointers.
        let p = unsafe { *o.transformers.add(i) };
        // SAFETY: NULL or a NUL-terminated string per the contract.
        let s =
            unsafe { c_str(p) }.ok_or_else(|| fail_code(ERR_INVALID_PARAM, "transformer spec is NULL or not UTF-8"))?;
        transformers.push(s.to_owned());
    }
    let index: Option<recordio::IndexFn> = o.index.map(|cb| {
        let user = UserPtr(o.index_user);
        let f: recordio::IndexFn = Box::new(move |loc: ItemLocation, item: &[u8]| {
            let u = user;
            // SAFETY: the caller's callback, with a pointer/length pair
            // describing `item`, valid during the call.
            let rc = unsafe { cb(u.0, loc.block, loc.item as i64, item.as_ptr(), item.len() as i64) };
            if rc == 0 {
                Ok(())
            } else {
                Err(Error::new(ErrorKind::Callback, format!("index callback returned {rc}")))
            }
        });
        f
    });
    Ok(WriterOpts {
        transformers,
        key_trailer: o.flags & KEY_TRAILER != 0,
        max_items: o.max_items,
        skip_header: o.flags & SKIP_HEADER != 0,
        index,
    })
}

fn new_writer(sink: Sink, opts: WriterOpts, out: *mut *mut blosc2_recordio_writer) -> c_int {
    match Writer::new(sink, opts) {
        Ok(w) => {
            let h = Box::new(blosc2_recordio_writer { magic: WRITER_MAGIC, w });
            // SAFETY: `out` was checked non-NULL by the caller.
            unsafe { put(out, Box::into_raw(h)) };
            SUCCESS
        }
        Err(e) => fail(&e, true),
    }
}

/// Create a writer to a new file at `path` (truncated if it exists).
/// `opts` may be NULL for the defaults. Stores the handle in `*out`.
///
/// # Safety
/// `path` must be NULL or a NUL-terminated string, `opts` NULL or valid,
/// `out` NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn blosc2_recordio_writer_open(
    path: *const c_char,
    opts: *const blosc2_recordio_writer_options,
    out: *mut *mut blosc2_recordio_writer,
) -> c_int {
    guarded(|| {
        out_arg(out)?;
        // SAFETY: NULL or NUL-terminated per the contract.
        let path = unsafe { path_arg(path) }?;
        // SAFETY: per the contract.
        let opts = unsafe { writer_opts(opts) }?;
        // Check the transformers before creating the file.
        recordio::Chain::forward(&opts.transformers).map_err(|e| fail(&e, true))?;
        let f = File::create(path).map_err(|e| fail_code(ERR_FILE_OPEN, &format!("creating {path}: {e}")))?;
        Ok(new_writer(Sink::File(BufWriter::new(f)), opts, out))
    })
}

/// Create a writer to memory; get the bytes with
/// `blosc2_recordio_writer_buffer` after `blosc2_recordio_writer_finish`.
///
/// # Safety
/// `opts` NULL or valid, `out` NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn blosc2_recordio_writer_new_buffer(
    opts: *const blosc2_recordio_writer_options,
    out: *mut *mut blosc2_recordio_writer,
) -> c_int {
    guarded(|| {
        out_arg(out)?;
        // SAFETY: per the contract.
        let opts = unsafe { writer_opts(opts) }?;
        Ok(new_writer(Sink::Memory(Vec::new()), opts, out))
    })
}

/// Shared body of the `add_header_*` functions.
///
/// # Safety
/// `w` NULL or live, `key` NULL or NUL-terminated.
unsafe fn add_header(
    w: *mut blosc2_recordio_writer,
    key: *const c_char,
    value: impl FnOnce() -> Option<Value>,
) -> c_int {
    // SAFETY: per the contract.
    let Some(w) = (unsafe { writer_mut(w) }) else {
        return fail_code(ERR_NULL_POINTER, "invalid writer");
    };
    // SAFETY: per the contract.
    let Some(key) = (unsafe { c_str(key) }) else {
        return fail_code(ERR_NULL_POINTER, "key is NULL or not UTF-8");
    };
    let Some(value) = value() else {
        return fail_code(ERR_NULL_POINTER, "value is NULL or not UTF-8");
    };
    match w.w.add_header(key, value) {
        Ok(()) => SUCCESS,
        Err(e) => fail(&e, true),
    }
}

/// Add a bool header entry (before the first append/trailer/finish).
///
/// # Safety
/// `w` NULL or live, `key` NULL or NUL-terminated.
#[no_mangle]
pub unsafe extern "C" fn blosc2_recordio_writer_add_header_bool(
    w: *mut blosc2_recordio_writer,
    key: *const c_char,
    value: bool,
) -> c_int {
    ffi_boundary!(ERR_FAILURE, {
        // SAFETY: forwarded contract.
        unsafe { add_header(w, key, || Some(Value::Bool(value))) }
    })
}

/// Add a signed integer header entry.
///
/// # Safety
/// `w` NULL or live, `key` NULL or NUL-terminated.
#[no_mangle]
pub unsafe extern "C" fn blosc2_recordio_writer_add_header_int(
    w: *mut blosc2_recordio_writer,
    key: *const c_char,
    value: i64,
) -> c_int {
    ffi_boundary!(ERR_FAILURE, {
        // SAFETY: forwarded contract.
        unsafe { add_header(w, key, || Some(Value::Int(value))) }
    })
}

/// Add an unsigned integer header entry.
///
/// # Safety
/// `w` NULL or live, `key` NULL or NUL-terminated.
#[no_mangle]
pub unsafe extern "C" fn blosc2_recordio_writer_add_header_uint(
    w: *mut blosc2_recordio_writer,
    key: *const c_char,
    value: u64,
) -> c_int {
    ffi_boundary!(ERR_FAILURE, {
        // SAFETY: forwarded contract.
        unsafe { add_header(w, key, || Some(Value::Uint(value))) }
    })
}

/// Add a string header entry.
///
/// # Safety
/// `w` NULL or live; `key` and `value` NULL or NUL-terminated.
#[no_mangle]
pub unsafe extern "C" fn blosc2_recordio_writer_add_header_string(
    w: *mut blosc2_recordio_writer,
    key: *const c_char,
    value: *const c_char,
) -> c_int {
    ffi_boundary!(ERR_FAILURE, {
        // SAFETY: forwarded contract; `value` NULL or NUL-terminated.
        unsafe { add_header(w, key, || c_str(value).map(|s| Value::String(s.to_owned()))) }
    })
}

/// Append one item of `len` bytes.
///
/// # Safety
/// `w` NULL or live; `item` readable for `len` bytes (NULL when 0).
#[no_mangle]
pub unsafe extern "C" fn blosc2_recordio_writer_append(
    w: *mut blosc2_recordio_writer,
    item: *const c_void,
    len: i64,
) -> c_int {
    // SAFETY: per the contract.
    unsafe {
        with_writer(w, |w| {
            let data = buf_arg(item, len, "bad item buffer")?;
            status(w.w.append(data), true)
        })
    }
}

/// End the current block (the next item starts a new one).
///
/// # Safety
/// `w` NULL or live.
#[no_mangle]
pub unsafe extern "C" fn blosc2_recordio_writer_flush(w: *mut blosc2_recordio_writer) -> c_int {
    // SAFETY: per the contract.
    unsafe { with_writer(w, |w| status(w.w.flush(), true)) }
}

/// Write the trailer block (the header must have `trailer: true`).
///
/// # Safety
/// `w` NULL or live; `data` readable for `len` bytes (NULL when 0).
#[no_mangle]
pub unsafe extern "C" fn blosc2_recordio_writer_set_trailer(
    w: *mut blosc2_recordio_writer,
    data: *const c_void,
    len: i64,
) -> c_int {
    // SAFETY: per the contract.
    unsafe {
        with_writer(w, |w| {
            let data = buf_arg(data, len, "bad trailer buffer")?;
            status(w.w.set_trailer(data), true)
        })
    }
}

/// Write what is pending and flush the file. The handle must still be
/// freed with `blosc2_recordio_writer_free`.
///
/// # Safety
/// `w` NULL or live.
#[no_mangle]
pub unsafe extern "C" fn blosc2_recordio_writer_finish(w: *mut blosc2_recordio_writer) -> c_int {
    // SAFETY: per the contract.
    unsafe { with_writer(w, |w| status(w.w.finish(), true)) }
}

/// Bytes written so far (a multiple of 32768 for whole blocks), or a
/// negative code.
///
/// # Safety
/// `w` NULL or live.
#[no_mangle]
pub unsafe extern "C" fn blosc2_recordio_writer_bytes(w: *mut blosc2_recordio_writer) -> i64 {
    // SAFETY: per the contract.
    unsafe { with_writer(w, |w| Ok(w.w.bytes_written() as i64)) }
}

/// A `malloc`ed copy of what a memory writer holds (call it after
/// finish); the caller frees `*buf` with `free()`.
///
/// # Safety
/// `w` NULL or live; `buf` and `len` NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn blosc2_recordio_writer_buffer(
    w: *mut blosc2_recordio_writer,
    buf: *mut *mut u8,
    len: *mut i64,
) -> c_int {
    // SAFETY: per the contract.
    unsafe {
        with_writer(w, |w| {
            if buf.is_null() || len.is_null() {
                return Err(fail_code(ERR_NULL_POINTER, "buf or len is NULL"));
            }
            let Sink::Memory(v) = w.w.get_ref() else {
                return Err(fail_code(ERR_INVALID_PARAM, "not a memory writer"));
            };
            // SAFETY: both checked non-NULL, writable per the contract.
            hand_out_copy(v, buf, len)?;
            Ok(SUCCESS)
        })
    }
}

/// Free a writer (without finishing it). NULL is ignored.
///
/// # Safety
/// `w` NULL or a live handle, not used afterwards.
#[no_mangle]
pub unsafe extern "C" fn blosc2_recordio_writer_free(w: *mut blosc2_recordio_writer) {
    ffi_boundary!((), {
        // SAFETY: per the contract.
        if unsafe { writer_mut(w) }.is_some() {
            // SAFETY: a live handle from Box::into_raw.
            let mut b = unsafe { Box::from_raw(w) };
            b.magic = 0;
            drop(b);
        }
    })
}
