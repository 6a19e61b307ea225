//! The reference C-Blosc2 (`libblosc2.so` of python-blosc2) loaded with
//! dlopen, as an oracle for the differential target. Found through
//! `$BLOSC2_REFERENCE_LIB`, else python's site-packages; absent means the
//! differential checks are skipped.

use std::ffi::{c_char, c_int, c_void, CString};
use std::sync::OnceLock;

use blosc2::capi::{blosc2_context, blosc2_cparams, blosc2_dparams};

type CreateCctx = unsafe extern "C" fn(blosc2_cparams) -> *mut blosc2_context;
type CreateDctx = unsafe extern "C" fn(blosc2_dparams) -> *mut blosc2_context;
type FreeCtx = unsafe extern "C" fn(*mut blosc2_context);
type Codec = unsafe extern "C" fn(*mut blosc2_context, *const c_void, i32, *mut c_void, i32) -> c_int;
type DparamsDefaults = unsafe extern "C" fn() -> blosc2_dparams;

/// The reference's entry points used here.
pub struct Reference {
    create_cctx: CreateCctx,
    create_dctx: CreateDctx,
    free_ctx: FreeCtx,
    compress_ctx: Codec,
    decompress_ctx: Codec,
    dparams_defaults: DparamsDefaults,
}

/// The reference library, loaded once per process (None when absent).
pub fn get() -> Option<&'static Reference> {
    static REF: OnceLock<Option<Reference>> = OnceLock::new();
    REF.get_or_init(|| {
        let r = load();
        if let Err(e) = &r {
            eprintln!("differential: reference C-Blosc2 not available, checks skipped: {e}");
        }
        r.ok()
    })
    .as_ref()
}

/// Where the reference is.
fn locate() -> Result<String, String> {
    if let Some(p) = std::env::var_os("BLOSC2_REFERENCE_LIB").filter(|p| !p.is_empty()) {
        return Ok(p.to_string_lossy().into_owned());
    }
    let out = std::process::Command::new("python3")
        .args(["-c", "import blosc2,os;print(os.path.dirname(blosc2.__file__))"])
        .output()
        .map_err(|e| format!("python3: {e}"))?;
    if !out.status.success() {
        return Err("python-blosc2 is not importable".into());
    }
    Ok(format!(
        "{}/lib/libblosc2.so",
        String::from_utf8_lossy(&out.stdout).trim()
    ))
}

/// Resolve `name` as a function of type `F`.
///
/// # Safety
/// `F` must be the `extern "C" fn` type of `name`'s C prototype.
unsafe fn sym<F: Copy>(handle: *mut c_void, name: &str) -> Result<F, String> {
    let cname = CString::new(name).map_err(|e| e.to_string())?;
    // SAFETY: a live handle and a NUL-terminated name.
    let p = unsafe { libc::dlsym(handle, cname.as_ptr()) };
    if p.is_null() {
        return Err(format!("no {name} in the reference"));
    }
    assert_eq!(std::mem::size_of::<F>(), std::mem::size_of::<*mut c_void>());
    // SAFETY: a function symbol's address, of the prototype the caller names.
    Ok(unsafe { std::mem::transmute_copy::<*mut c_void, F>(&p) })
}

/// Whether this process exports the C API globally (then the reference's
/// calls to its own functions could bind to ours without RTLD_DEEPBIND).
fn ours_exported() -> bool {
    let name = c"blosc2_compress_ctx";
    // SAFETY: RTLD_DEFAULT lookup of a NUL-terminated name.
    !unsafe { libc::dlsym(libc::RTLD_DEFAULT, name.as_ptr()) }.is_null()
}

fn load() -> Result<Reference, String> {
    let path = locate()?;
    if !std::path::Path::new(&path).exists() {
        return Err(format!("{path} does not exist"));
    }
    let cpath = CString::new(path.clone()).map_err(|e| e.to_string())?;
    // RTLD_DEEPBIND only when needed: ASan refuses it, and fuzz binaries do
    // not export our symbols, so plain local binding is enough there.
    let mut flags = libc::RTLD_NOW | libc::RTLD_LOCAL;
    if ours_exported() {
        flags |= libc::RTLD_DEEPBIND;
    }
    // SAFETY: a NUL-terminated path; loading runs the library's initialisers.
    let handle = unsafe { libc::dlopen(cpath.as_ptr(), flags) };
    if handle.is_null() {
        // SAFETY: dlerror gives NULL or a NUL-terminated message.
        let err = unsafe { libc::dlerror() };
        let msg = if err.is_null() {
            "?".to_string()
        } else {
            // SAFETY: non-null and NUL-terminated.
            unsafe { std::ffi::CStr::from_ptr(err as *const c_char) }
                .to_string_lossy()
                .into_owned()
        };
        return Err(format!("dlopen {path}: {msg}"));
    }
    // SAFETY: each type is the blosc2.h 3.3.5 prototype of the symbol; the
    // parameter structs are our C-layout mirrors of the same header.
    unsafe {
        let init: unsafe extern "C" fn() = sym(handle, "blosc2_init")?;
        init();
        let r = Reference {
            create_cctx: sym(handle, "blosc2_create_cctx")?,
            create_dctx: sym(handle, "blosc2_create_dctx")?,
            free_ctx: sym(handle, "blosc2_free_ctx")?,
            compress_ctx: sym(handle, "blosc2_compress_ctx")?,
            decompress_ctx: sym(handle, "blosc2_decompress_ctx")?,
            dparams_defaults: sym(handle, "blosc2_get_blosc2_dparams_defaults")?,
        };
        let ours = blosc2::capi::context::blosc2_compress_ctx as Codec as usize;
        if r.compress_ctx as usize == ours {
            return Err("dlsym resolved to our own implementation".into());
        }
        Ok(r)
    }
}

impl Reference {
    /// The reference's compression of `src` with `cp`.
    pub fn compress(&self, cp: &blosc2_cparams, src: &[u8]) -> Result<Vec<u8>, i32> {
        // SAFETY: drawn parameters with NULL hooks and pointers.
        let ctx = unsafe { (self.create_cctx)(*cp) };
        if ctx.is_null() {
            return Err(-1);
        }
        let mut dest = vec![0u8; src.len() + super::roundtrip::MAX_OVERHEAD];
        // SAFETY: sizes match the buffers.
        let rc = unsafe {
            (self.compress_ctx)(
                ctx,
                src.as_ptr().cast(),
                src.len() as i32,
                dest.as_mut_ptr().cast(),
                dest.len() as i32,
            )
        };
        // SAFETY: created above, freed once.
        unsafe { (self.free_ctx)(ctx) };
        if rc <= 0 {
            return Err(rc);
        }
        dest.truncate(rc as usize);
        Ok(dest)
    }

    /// The reference's decompression of `chunk` into `nbytes`.
    pub fn decompress(&self, chunk: &[u8], nbytes: usize) -> Result<Vec<u8>, i32> {
        // SAFETY: no arguments.
        let dp = unsafe { (self.dparams_defaults)() };
        // SAFETY: default parameters.
        let ctx = unsafe { (self.create_dctx)(dp) };
        if ctx.is_null() {
            return Err(-1);
        }
        let mut out = vec![0u8; nbytes];
        // SAFETY: sizes match the buffers.
        let rc = unsafe {
            (self.decompress_ctx)(
                ctx,
                chunk.as_ptr().cast(),
                chunk.len() as i32,
                out.as_mut_ptr().cast(),
                nbytes as i32,
            )
        };
        // SAFETY: created above, freed once.
        unsafe { (self.free_ctx)(ctx) };
        if rc < 0 || rc as usize != nbytes {
            return Err(rc.min(-1));
        }
        Ok(out)
    }
}
