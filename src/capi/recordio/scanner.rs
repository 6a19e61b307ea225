//! Scanners: opening (files, shards, buffers), header entries, items,
//! locations and seeks, trailer, and what recovery skipped.

use super::*;

fn new_scanner(
    src: Source,
    opts: ScannerOpts,
    shard: (usize, usize, usize),
    out: *mut *mut blosc2_recordio_scanner,
) -> c_int {
    match Scanner::with_shard(src, opts, shard.0, shard.1, shard.2) {
        Ok(s) => {
            let header = s
                .header()
                .entries
                .iter()
                .map(|kv| CEntry {
                    key: cstring_lossy(&kv.key),
                    string: match &kv.value {
                        Value::String(v) => cstring_lossy(v),
                        _ => CString::default(),
                    },
                    value: kv.value.clone(),
                })
                .collect();
            let h = Box::new(blosc2_recordio_scanner {
                magic: SCANNER_MAGIC,
                s,
                header,
            });
            // SAFETY: `out` checked non-NULL by the caller.
            unsafe { put(out, Box::into_raw(h)) };
            SUCCESS
        }
        Err(e) => fail(&e, false),
    }
}

fn scanner_opts(flags: c_int, legacy: Option<String>) -> ScannerOpts {
    ScannerOpts {
        recover: flags & RECOVER != 0,
        legacy_transform: legacy,
    }
}

/// Open the file at `path` for scanning (v2 or legacy; a `.grail-rpk-gz`
/// name selects the flate legacy transform). `flags`:
/// `BLOSC2_RECORDIO_RECOVER`. Reads shard `[start, limit)` of `nshard`
/// (0, 1, 1 for the whole file).
///
/// # Safety
/// `path` NULL or NUL-terminated; `out` NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn blosc2_recordio_scanner_open_shard(
    path: *const c_char,
    flags: c_int,
    start: c_int,
    limit: c_int,
    nshard: c_int,
    out: *mut *mut blosc2_recordio_scanner,
) -> c_int {
    guarded(|| {
        out_arg(out)?;
        // SAFETY: per the contract.
        let path = unsafe { path_arg(path) }?;
        let (Ok(start), Ok(limit), Ok(nshard)) =
            (usize::try_from(start), usize::try_from(limit), usize::try_from(nshard))
        else {
            return Err(fail_code(ERR_INVALID_PARAM, "negative shard numbers"));
        };
        let f = File::open(path).map_err(|e| fail_code(ERR_FILE_OPEN, &format!("opening {path}: {e}")))?;
        let legacy = ScannerOpts::for_path(path).legacy_transform;
        Ok(new_scanner(
            Source::File(BufReader::new(f)),
            scanner_opts(flags, legacy),
            (start, limit, nshard),
            out,
        ))
    })
}

/// Open the file at `path` for scanning (the whole file).
///
/// # Safety
/// `path` NULL or NUL-terminated; `out` NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn blosc2_recordio_scanner_open(
    path: *const c_char,
    flags: c_int,
    out: *mut *mut blosc2_recordio_scanner,
) -> c_int {
    // SAFETY: forwarded contract.
    unsafe { blosc2_recordio_scanner_open_shard(path, flags, 0, 1, 1, out) }
}

/// Scan a copy of `len` bytes at `buf`. `legacy_transform` (NULL for
/// none) is the transform of legacy packed record bodies, e.g. "flate".
///
/// # Safety
/// `buf` readable for `len` bytes; `legacy_transform` NULL or
/// NUL-terminated; `out` NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn blosc2_recordio_scanner_open_buffer(
    buf: *const c_void,
    len: i64,
    flags: c_int,
    legacy_transform: *const c_char,
    out: *mut *mut blosc2_recordio_scanner,
) -> c_int {
    guarded(|| {
        out_arg(out)?;
        // SAFETY: per the contract.
        let data = unsafe { buf_arg(buf, len, "bad buffer") }?.to_vec();
        let legacy = if legacy_transform.is_null() {
            None
        } else {
            // SAFETY: non-NULL and NUL-terminated per the contract.
            match unsafe { c_str(legacy_transform) } {
                Some(s) => Some(s.to_owned()),
                None => return Err(fail_code(ERR_INVALID_PARAM, "legacy_transform is not UTF-8")),
            }
        };
        Ok(new_scanner(
            Source::Memory(Cursor::new(data)),
            scanner_opts(flags, legacy),
            (0, 1, 1),
            out,
        ))
    })
}

/// `BLOSC2_RECORDIO_FORMAT_V2` (2) or `BLOSC2_RECORDIO_FORMAT_LEGACY` (1),
/// or a negative code.
///
/// # Safety
/// `s` NULL or live.
#[no_mangle]
pub unsafe extern "C" fn blosc2_recordio_scanner_format(s: *mut blosc2_recordio_scanner) -> c_int {
    // SAFETY: per the contract.
    unsafe {
        with_scanner(s, |s| {
            Ok(match s.s.format() {
                Format::V2 => 2,
                Format::Legacy => 1,
            })
        })
    }
}

/// Number of header entries, or a negative code.
///
/// # Safety
/// `s` NULL or live.
#[no_mangle]
pub unsafe extern "C" fn blosc2_recordio_scanner_header_count(s: *mut blosc2_recordio_scanner) -> i64 {
    // SAFETY: per the contract.
    unsafe { with_scanner(s, |s| Ok(s.header.len() as i64)) }
}

/// Header entry `i`: its key, its type (`BLOSC2_RECORDIO_BOOL`, `_INT`,
/// `_UINT`, `_STRING`) and value (`*ival` for bool and int, `*uval` for
/// uint, `*sval` for string; a bool is also stored as 0/1 in `*uval`).
/// Pointers stay valid until the scanner is freed. Any output may be NULL.
///
/// # Safety
/// `s` NULL or live; outputs NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn blosc2_recordio_scanner_header_entry(
    s: *mut blosc2_recordio_scanner,
    i: i64,
    key: *mut *const c_char,
    type_: *mut c_int,
    ival: *mut i64,
    uval: *mut u64,
    sval: *mut *const c_char,
) -> c_int {
    // SAFETY: per the contract.
    unsafe {
        with_scanner(s, |s| {
            let Some(e) = usize::try_from(i).ok().and_then(|i| s.header.get(i)) else {
                return Err(fail_code(ERR_INVALID_PARAM, "header entry out of range"));
            };
            let (iv, uv) = match &e.value {
                Value::Bool(b) => (i64::from(*b), u64::from(*b)),
                Value::Int(v) => (*v, *v as u64),
                Value::Uint(v) => (*v as i64, *v),
                Value::String(_) => (0, 0),
            };
            // SAFETY: each output NULL or writable per the contract.
            put(key, e.key.as_ptr());
            put(type_, c_int::from(e.value.type_code()));
            put(ival, iv);
            put(uval, uv);
            put(sval, e.string.as_ptr());
            Ok(SUCCESS)
        })
    }
}

/// The next item: 1 with `*item`/`*len` set (valid until the next call on
/// this scanner), 0 at the end, or a negative code (the scanner stays
/// stopped; see `blosc2_recordio_last_error`).
///
/// # Safety
/// `s` NULL or live; `item` and `len` NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn blosc2_recordio_scanner_next(
    s: *mut blosc2_recordio_scanner,
    item: *mut *const u8,
    len: *mut i64,
) -> c_int {
    // SAFETY: per the contract.
    unsafe {
        with_scanner(s, |s| {
            match s.s.next_item() {
                Ok(Some(data)) => {
                    // SAFETY: outputs NULL or writable per the contract.
                    put(item, data.as_ptr());
                    put(len, data.len() as i64);
                    Ok(1)
                }
                Ok(None) => Ok(0),
                Err(e) => Err(fail(&e, false)),
            }
        })
    }
}

/// Location of the item last returned: its block's offset and its index.
///
/// # Safety
/// `s` NULL or live; outputs NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn blosc2_recordio_scanner_location(
    s: *mut blosc2_recordio_scanner,
    block: *mut u64,
    item: *mut i64,
) -> c_int {
    // SAFETY: per the contract.
    unsafe {
        with_scanner(s, |s| {
            let Some(loc) = s.s.last_location() else {
                return Err(fail_code(ERR_NOT_FOUND, "no item read yet"));
            };
            // SAFETY: outputs NULL or writable per the contract.
            put(block, loc.block);
            put(item, loc.item as i64);
            Ok(SUCCESS)
        })
    }
}

/// Position so that the next item is item `item` of the block at `block`.
///
/// # Safety
/// `s` NULL or live.
#[no_mangle]
pub unsafe extern "C" fn blosc2_recordio_scanner_seek(s: *mut blosc2_recordio_scanner, block: u64, item: i64) -> c_int {
    // SAFETY: per the contract.
    unsafe {
        with_scanner(s, |s| {
            let Ok(item) = usize::try_from(item) else {
                return Err(fail_code(ERR_INVALID_PARAM, "negative item"));
            };
            status(s.s.seek(ItemLocation { block, item }), false)
        })
    }
}

/// The trailer: 1 with a `malloc`ed copy in `*data` (free it with
/// `free()`) and its length in `*len`, 0 when the file has none, or a
/// negative code.
///
/// # Safety
/// `s` NULL or live; `data` and `len` NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn blosc2_recordio_scanner_trailer(
    s: *mut blosc2_recordio_scanner,
    data: *mut *mut u8,
    len: *mut i64,
) -> c_int {
    // SAFETY: per the contract.
    unsafe {
        with_scanner(s, |s| {
            if data.is_null() || len.is_null() {
                return Err(fail_code(ERR_NULL_POINTER, "data or len is NULL"));
            }
            match s.s.trailer() {
                Ok(None) => Ok(0),
                Ok(Some(t)) => {
                    // SAFETY: both checked non-NULL, writable per the contract.
                    hand_out_copy(&t, data, len)?;
                    Ok(1)
                }
                Err(e) => Err(fail(&e, false)),
            }
        })
    }
}

/// Number of stretches the recovery mode skipped so far.
///
/// # Safety
/// `s` NULL or live.
#[no_mangle]
pub unsafe extern "C" fn blosc2_recordio_scanner_nskipped(s: *mut blosc2_recordio_scanner) -> i64 {
    // SAFETY: per the contract.
    unsafe { with_scanner(s, |s| Ok(s.s.skipped().len() as i64)) }
}

/// Skipped stretch `i`: its offset and length, and in `*code` the error
/// code of the damage found there.
///
/// # Safety
/// `s` NULL or live; outputs NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn blosc2_recordio_scanner_skipped(
    s: *mut blosc2_recordio_scanner,
    i: i64,
    offset: *mut u64,
    length: *mut u64,
    code: *mut c_int,
) -> c_int {
    // SAFETY: per the contract.
    unsafe {
        with_scanner(s, |s| {
            let Some(k) = usize::try_from(i).ok().and_then(|i| s.s.skipped().get(i)).cloned() else {
                return Err(fail_code(ERR_INVALID_PARAM, "skipped entry out of range"));
            };
            let c = {
                let saved = LAST_ERROR.with(|l| l.borrow().clone());
                let c = fail(&k.error, false);
                LAST_ERROR.with(|l| *l.borrow_mut() = saved);
                c
            };
            // SAFETY: outputs NULL or writable per the contract.
            put(offset, k.offset);
            put(length, k.length);
            put(code, c);
            Ok(SUCCESS)
        })
    }
}

/// Free a scanner. NULL is ignored.
///
/// # Safety
/// `s` NULL or a live handle, not used afterwards.
#[no_mangle]
pub unsafe extern "C" fn blosc2_recordio_scanner_free(s: *mut blosc2_recordio_scanner) {
    ffi_boundary!((), {
        // SAFETY: per the contract.
        if unsafe { scanner_mut(s) }.is_some() {
            // SAFETY: a live handle from Box::into_raw.
            let mut b = unsafe { Box::from_raw(s) };
            b.magic = 0;
            drop(b);
        }
    })
}
