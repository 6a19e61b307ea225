//! Plugins 3.3.5 loads at run time by name (codecs 36-40: `openhtj2k`,
//! `grok`, `openzl`, `j2k`, `htj2k`; the `btune` tuner), found as 3.3.5
//! finds them (`load_lib` in its `blosc-private.h`):
//!
//! 1. `dlopen("libblosc2_<name>.so")`, i.e. the dynamic loader's search
//!    path (`LD_LIBRARY_PATH`, the system directories);
//! 2. otherwise the Python package `blosc2_<name>` tells where its library
//!    is: `python -c "import blosc2_<name>; blosc2_<name>.print_libpath()"`
//!    (then `python3`), and that path is opened.
//!
//! The library exports a struct `info` naming its callbacks
//! (`codec_info`, `filter_info`, `tuner_info`). When nothing is found the
//! codec fails with `BLOSC2_ERROR_CODEC_SUPPORT` (a tuner makes the
//! context NULL), with a `BLOSC_TRACE` message saying what was looked for.
//! Libraries stay loaded for the life of the process, as in 3.3.5.

use std::ffi::{c_void, CStr, CString};
use std::sync::{Arc, Once};

use crate::engine::plugins::registry::{self, Loader};
use crate::engine::plugins::{UserCodec, UserFilter};

use super::plugin_calls::{CCodec, CFilter};
use super::types::{blosc2_tuner, codec_info, filter_info, tuner_info};

/// Names 3.3.5 accepts: letters, digits and underscores.
fn valid_name(name: &str) -> bool {
    !name.is_empty() && name.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_')
}

fn dlopen(path: &str) -> Option<*mut c_void> {
    let c = CString::new(path).ok()?;
    // SAFETY: a NUL-terminated path; dlopen has no other precondition.
    let h = unsafe { libc::dlopen(c.as_ptr(), libc::RTLD_LAZY) };
    (!h.is_null()).then_some(h)
}

/// The path `blosc2_<name>.print_libpath()` prints, asking `python`
/// then `python3`.
fn python_libpath(name: &str) -> Option<String> {
    let script = format!("import blosc2_{name}; blosc2_{name}.print_libpath()");
    for python in ["python", "python3"] {
        let Ok(out) = std::process::Command::new(python).args(["-c", &script]).output() else {
            continue;
        };
        let text = String::from_utf8_lossy(&out.stdout);
        let path = text.lines().next().unwrap_or("").trim();
        if out.status.success() && !path.is_empty() {
            return Some(path.to_string());
        }
    }
    None
}

/// Open the plugin library `name` the way 3.3.5 does.
fn open_library(name: &str) -> Option<*mut c_void> {
    if !valid_name(name) {
        registry::trace_error("Invalid plugin name");
        return None;
    }
    let direct = format!("libblosc2_{name}.so");
    if let Some(h) = dlopen(&direct) {
        return Some(h);
    }
    let Some(path) = python_libpath(name) else {
        registry::trace_error(&format!(
            "Plugin `{name}` not found: no {direct} on the library path, and no Python package blosc2_{name}"
        ));
        return None;
    };
    let h = dlopen(&path);
    if h.is_none() {
        registry::trace_error(&format!("Attempt to load plugin in path '{path}' failed"));
    }
    h
}

/// The address of symbol `name` in `lib`.
fn symbol(lib: *mut c_void, name: &CStr) -> Option<*mut c_void> {
    // SAFETY: a live handle from dlopen and a NUL-terminated name.
    let p = unsafe { libc::dlsym(lib, name.as_ptr()) };
    (!p.is_null()).then_some(p)
}

/// The library's `info` struct of type `T`.
fn info<T: Copy>(lib: *mut c_void) -> Option<T> {
    let p = symbol(lib, c"info")?;
    // SAFETY: the plugin ABI: `info` is a `T` (3.3.5 reads it the same way).
    Some(unsafe { p.cast::<T>().read() })
}

/// The symbol whose name the `info` struct gives.
fn named(lib: *mut c_void, name: *const std::ffi::c_char) -> Option<*mut c_void> {
    if name.is_null() {
        return None;
    }
    // SAFETY: the plugin's NUL-terminated symbol name.
    symbol(lib, unsafe { CStr::from_ptr(name) })
}

/// Reinterpret a symbol address as a callback of type `F` (an `Option` of
/// a function pointer, which has the layout of a pointer).
///
/// # Safety
/// The symbol must be a function with `F`'s signature.
unsafe fn as_callback<F: Copy>(p: *mut c_void) -> F {
    const { assert!(std::mem::size_of::<F>() == std::mem::size_of::<*mut c_void>()) };
    // SAFETY: same size (checked above); the signature per the contract.
    unsafe { std::mem::transmute_copy::<*mut c_void, F>(&p) }
}

struct DlLoader;

impl Loader for DlLoader {
    fn codec(&self, name: &str) -> Option<Arc<dyn UserCodec>> {
        let lib = open_library(name)?;
        let i: codec_info = info(lib)?;
        let (enc, dec) = (named(lib, i.encoder)?, named(lib, i.decoder)?);
        // SAFETY: the plugin ABI names encoder/decoder functions with the
        // `blosc2_codec` callback signatures.
        let codec = unsafe { CCodec::new(as_callback(enc), as_callback(dec)) };
        Some(Arc::new(codec))
    }

    fn filter(&self, name: &str) -> Option<Arc<dyn UserFilter>> {
        let lib = open_library(name)?;
        let i: filter_info = info(lib)?;
        let (fwd, bwd) = (named(lib, i.forward)?, named(lib, i.backward)?);
        // SAFETY: as for codecs, with the `blosc2_filter` signatures.
        let filter = unsafe { CFilter::new(as_callback(fwd), as_callback(bwd)) };
        Some(Arc::new(filter))
    }
}

/// Load tuner library `name` into a `blosc2_tuner` with id `id`.
pub(crate) fn load_tuner(id: u8, name: &str) -> Option<blosc2_tuner> {
    let lib = open_library(name)?;
    let i: tuner_info = info(lib)?;
    let init = named(lib, i.init)?;
    let next_blocksize = named(lib, i.next_blocksize)?;
    let next_cparams = named(lib, i.next_cparams)?;
    let update = named(lib, i.update)?;
    let free = named(lib, i.free)?;
    // SAFETY: the plugin ABI names functions with the `blosc2_tuner`
    // callback signatures.
    unsafe {
        Some(blosc2_tuner {
            init: as_callback(init),
            next_blocksize: as_callback(next_blocksize),
            next_cparams: as_callback(next_cparams),
            update: as_callback(update),
            free: as_callback(free),
            id: std::ffi::c_int::from(id),
            name: std::ptr::null_mut(),
        })
    }
}

/// Let the engine load plugin codecs and filters by name (once).
pub(crate) fn install() {
    static ONCE: Once = Once::new();
    ONCE.call_once(|| registry::set_loader(Arc::new(DlLoader)));
}
