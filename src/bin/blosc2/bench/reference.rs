//! The reference C-Blosc2 (`libblosc2.so` from the python-blosc2 wheel),
//! loaded at run time with `dlopen` and called through its C API.
//!
//! This is the only module of the tool with `unsafe`: every block says why
//! it is sound. The rest of the benchmark sees safe wrappers: [`RefLib`]
//! (the loaded library), [`RefCtx`] (a compression plus a decompression
//! context) and [`RefSChunk`] (a super-chunk).

#![allow(unsafe_code)]
#![deny(unsafe_op_in_unsafe_fn)]
#![deny(clippy::undocumented_unsafe_blocks)]

use std::ffi::{c_char, c_int, c_void, CStr, CString};
use std::path::{Path, PathBuf};

use blosc2::capi::types::{blosc2_cparams, blosc2_dparams};
use blosc2::capi::types_schunk::{b2nd_array_t, blosc2_metalayer, blosc2_schunk, blosc2_storage};

/// Compression settings of one benchmark cell, as both engines take them.
#[derive(Debug, Clone, Copy)]
pub struct Settings {
    pub compcode: u8,
    pub clevel: u8,
    pub typesize: i32,
    pub nthreads: i16,
    pub filters: [u8; 6],
}

type Ctx = *mut c_void;

/// The entry points used, resolved once with `dlsym`.
struct Api {
    init: unsafe extern "C" fn(),
    version: unsafe extern "C" fn() -> *const c_char,
    cparams_defaults: unsafe extern "C" fn() -> blosc2_cparams,
    dparams_defaults: unsafe extern "C" fn() -> blosc2_dparams,
    storage_defaults: unsafe extern "C" fn() -> blosc2_storage,
    create_cctx: unsafe extern "C" fn(blosc2_cparams) -> Ctx,
    create_dctx: unsafe extern "C" fn(blosc2_dparams) -> Ctx,
    free_ctx: unsafe extern "C" fn(Ctx),
    compress_ctx: unsafe extern "C" fn(Ctx, *const c_void, i32, *mut c_void, i32) -> c_int,
    decompress_ctx: unsafe extern "C" fn(Ctx, *const c_void, i32, *mut c_void, i32) -> c_int,
    getitem_ctx: unsafe extern "C" fn(Ctx, *const c_void, i32, c_int, c_int, *mut c_void, i32) -> c_int,
    schunk_new: unsafe extern "C" fn(*mut blosc2_storage) -> *mut blosc2_schunk,
    schunk_free: unsafe extern "C" fn(*mut blosc2_schunk) -> c_int,
    schunk_append_buffer: unsafe extern "C" fn(*mut blosc2_schunk, *const c_void, i32) -> i64,
    schunk_decompress_chunk: unsafe extern "C" fn(*mut blosc2_schunk, i64, *mut c_void, i32) -> c_int,
    error_string: unsafe extern "C" fn(c_int) -> *const c_char,
    schunk_to_buffer: unsafe extern "C" fn(*mut blosc2_schunk, *mut *mut u8, *mut bool) -> i64,
    schunk_from_buffer: unsafe extern "C" fn(*mut u8, i64, bool) -> *mut blosc2_schunk,
    schunk_open: unsafe extern "C" fn(*const c_char) -> *mut blosc2_schunk,
    schunk_get_slice_buffer: unsafe extern "C" fn(*mut blosc2_schunk, i64, i64, *mut c_void) -> c_int,
    schunk_fill_special: unsafe extern "C" fn(*mut blosc2_schunk, i64, c_int, i32) -> i64,
    schunk_frame_len: unsafe extern "C" fn(*mut blosc2_schunk) -> i64,
    vlmeta_add: VlmetaSet,
    vlmeta_update: VlmetaSet,
    b2nd_create_ctx: B2ndCreateCtx,
    b2nd_free_ctx: unsafe extern "C" fn(*mut c_void) -> c_int,
    b2nd_from_cbuffer: unsafe extern "C" fn(*mut c_void, *mut *mut b2nd_array_t, *const c_void, i64) -> c_int,
    b2nd_get_slice_cbuffer:
        unsafe extern "C" fn(*const b2nd_array_t, *const i64, *const i64, *mut c_void, *const i64, i64) -> c_int,
    b2nd_free: unsafe extern "C" fn(*mut b2nd_array_t) -> c_int,
}

/// `blosc2_vlmeta_add` / `blosc2_vlmeta_update(schunk, name, content,
/// content_len, cparams)`.
type VlmetaSet =
    unsafe extern "C" fn(*mut blosc2_schunk, *const c_char, *const u8, i32, *const blosc2_cparams) -> c_int;

/// `b2nd_create_ctx(storage, ndim, shape, chunkshape, blockshape, dtype,
/// dtype_format, metalayers, nmetalayers)`.
type B2ndCreateCtx = unsafe extern "C" fn(
    *const blosc2_storage,
    i8,
    *const i64,
    *const i32,
    *const i32,
    *const c_char,
    i8,
    *const blosc2_metalayer,
    i32,
) -> *mut c_void;

/// The loaded reference library. It is never unloaded: its worker threads
/// and static state live until the process exits.
pub struct RefLib {
    api: Api,
    path: PathBuf,
    version: String,
}

/// Where to find the reference: `--reference PATH`, else
/// `$BLOSC2_REFERENCE_LIB`, else the python-blosc2 package's `lib/`.
pub fn locate(explicit: Option<&str>) -> Result<PathBuf, String> {
    if let Some(p) = explicit {
        return Ok(PathBuf::from(p));
    }
    if let Some(p) = std::env::var_os("BLOSC2_REFERENCE_LIB").filter(|p| !p.is_empty()) {
        return Ok(PathBuf::from(p));
    }
    let out = std::process::Command::new("python3")
        .args(["-c", "import blosc2,os;print(os.path.dirname(blosc2.__file__))"])
        .output()
        .map_err(|e| format!("cannot run python3 to find the reference library: {e}"))?;
    if !out.status.success() {
        return Err(
            "python-blosc2 is not importable; install it with `pip install blosc2==4.14.1`, \
             or pass --reference PATH or set BLOSC2_REFERENCE_LIB"
                .into(),
        );
    }
    let dir = String::from_utf8_lossy(&out.stdout).trim().to_string();
    Ok(Path::new(&dir).join("lib").join("libblosc2.so"))
}

/// Resolve `name` in `handle` as a function pointer of type `F`.
///
/// # Safety
/// `F` must be an `unsafe extern "C" fn` type matching the C prototype of
/// `name` in the loaded library.
unsafe fn sym<F: Copy>(handle: *mut c_void, name: &str) -> Result<F, String> {
    let cname = CString::new(name).map_err(|_| format!("bad symbol name {name}"))?;
    // SAFETY: `handle` came from a successful dlopen and is never closed;
    // `cname` is NUL-terminated.
    let p = unsafe { libc::dlsym(handle, cname.as_ptr()) };
    if p.is_null() {
        return Err(format!("symbol {name} not found in the reference library"));
    }
    assert_eq!(std::mem::size_of::<F>(), std::mem::size_of::<*mut c_void>());
    // SAFETY: a non-null data pointer from dlsym for a function symbol is
    // that function's address; the caller guarantees `F` is its prototype
    // (and `F` is pointer-sized, checked above).
    Ok(unsafe { std::mem::transmute_copy::<*mut c_void, F>(&p) })
}

impl RefLib {
    /// `dlopen` the library at `path` and resolve every entry point used.
    pub fn load(path: &Path) -> Result<RefLib, String> {
        let cpath =
            CString::new(path.as_os_str().as_encoded_bytes()).map_err(|_| format!("bad path {}", path.display()))?;
        // RTLD_DEEPBIND: the library's calls to its own exported functions
        // must not be interposed by same-named symbols elsewhere in the
        // process (this tool links the Rust implementation of that API).
        #[cfg(all(target_os = "linux", target_env = "gnu"))]
        let flags = libc::RTLD_NOW | libc::RTLD_LOCAL | libc::RTLD_DEEPBIND;
        #[cfg(not(all(target_os = "linux", target_env = "gnu")))]
        let flags = libc::RTLD_NOW | libc::RTLD_LOCAL;
        // SAFETY: `cpath` is NUL-terminated; loading runs the library's
        // initialisers, which is what using it requires.
        let handle = unsafe { libc::dlopen(cpath.as_ptr(), flags) };
        if handle.is_null() {
            // SAFETY: dlerror returns NULL or a NUL-terminated string valid
            // until the next dl* call on this thread.
            let err = unsafe { libc::dlerror() };
            let msg = if err.is_null() {
                String::from("unknown error")
            } else {
                // SAFETY: non-null and NUL-terminated (see above).
                unsafe { CStr::from_ptr(err) }.to_string_lossy().into_owned()
            };
            return Err(format!("cannot load reference {}: {msg}", path.display()));
        }
        // SAFETY: for every `sym` call, the type of the field is the
        // prototype of the symbol in blosc2.h 3.3.5; the parameter structs
        // are the layout-checked mirrors of `blosc2::capi::types`.
        let api = unsafe {
            Api {
                init: sym(handle, "blosc2_init")?,
                version: sym(handle, "blosc2_get_version_string")?,
                cparams_defaults: sym(handle, "blosc2_get_blosc2_cparams_defaults")?,
                dparams_defaults: sym(handle, "blosc2_get_blosc2_dparams_defaults")?,
                storage_defaults: sym(handle, "blosc2_get_blosc2_storage_defaults")?,
                create_cctx: sym(handle, "blosc2_create_cctx")?,
                create_dctx: sym(handle, "blosc2_create_dctx")?,
                free_ctx: sym(handle, "blosc2_free_ctx")?,
                compress_ctx: sym(handle, "blosc2_compress_ctx")?,
                decompress_ctx: sym(handle, "blosc2_decompress_ctx")?,
                getitem_ctx: sym(handle, "blosc2_getitem_ctx")?,
                schunk_new: sym(handle, "blosc2_schunk_new")?,
                schunk_free: sym(handle, "blosc2_schunk_free")?,
                schunk_append_buffer: sym(handle, "blosc2_schunk_append_buffer")?,
                schunk_decompress_chunk: sym(handle, "blosc2_schunk_decompress_chunk")?,
                error_string: sym(handle, "blosc2_error_string")?,
                schunk_to_buffer: sym(handle, "blosc2_schunk_to_buffer")?,
                schunk_from_buffer: sym(handle, "blosc2_schunk_from_buffer")?,
                schunk_open: sym(handle, "blosc2_schunk_open")?,
                schunk_get_slice_buffer: sym(handle, "blosc2_schunk_get_slice_buffer")?,
                schunk_fill_special: sym(handle, "blosc2_schunk_fill_special")?,
                schunk_frame_len: sym(handle, "blosc2_schunk_frame_len")?,
                vlmeta_add: sym(handle, "blosc2_vlmeta_add")?,
                vlmeta_update: sym(handle, "blosc2_vlmeta_update")?,
                b2nd_create_ctx: sym(handle, "b2nd_create_ctx")?,
                b2nd_free_ctx: sym(handle, "b2nd_free_ctx")?,
                b2nd_from_cbuffer: sym(handle, "b2nd_from_cbuffer")?,
                b2nd_get_slice_cbuffer: sym(handle, "b2nd_get_slice_cbuffer")?,
                b2nd_free: sym(handle, "b2nd_free")?,
            }
        };
        // SAFETY: blosc2_init takes no arguments and may be called once
        // before anything else.
        unsafe { (api.init)() };
        // SAFETY: returns a pointer to a static NUL-terminated string.
        let v = unsafe { (api.version)() };
        let version = if v.is_null() {
            String::from("?")
        } else {
            // SAFETY: non-null, static and NUL-terminated.
            unsafe { CStr::from_ptr(v) }.to_string_lossy().into_owned()
        };
        Ok(RefLib {
            api,
            path: path.to_path_buf(),
            version,
        })
    }

    /// Path the library was loaded from.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// `blosc2_get_version_string()`.
    pub fn version(&self) -> &str {
        &self.version
    }

    fn err(&self, what: &str, rc: i64) -> String {
        let code = c_int::try_from(rc).unwrap_or(c_int::MIN);
        // SAFETY: blosc2_error_string returns a static NUL-terminated
        // string for every code (including unknown ones).
        let s = unsafe { (self.api.error_string)(code) };
        let msg = if s.is_null() {
            String::new()
        } else {
            // SAFETY: non-null, static, NUL-terminated.
            unsafe { CStr::from_ptr(s) }.to_string_lossy().into_owned()
        };
        format!("reference {what} failed with {rc} ({msg})")
    }

    fn cparams(&self, s: &Settings) -> blosc2_cparams {
        // SAFETY: returns BLOSC2_CPARAMS_DEFAULTS by value.
        let mut cp = unsafe { (self.api.cparams_defaults)() };
        cp.compcode = s.compcode;
        cp.clevel = s.clevel;
        cp.typesize = s.typesize;
        cp.nthreads = s.nthreads;
        cp.filters = s.filters;
        cp.filters_meta = [0; 6];
        cp.blocksize = 0;
        cp
    }

    fn dparams(&self, nthreads: i16) -> blosc2_dparams {
        // SAFETY: returns BLOSC2_DPARAMS_DEFAULTS by value.
        let mut dp = unsafe { (self.api.dparams_defaults)() };
        dp.nthreads = nthreads;
        dp
    }

    /// A compression and a decompression context with `s`.
    pub fn contexts(&self, s: &Settings) -> Result<RefCtx<'_>, String> {
        // SAFETY: the params are plain values with null pointers (no
        // prefilter, postfilter, tuner or plugins); the contexts are owned
        // by the returned RefCtx and freed in its Drop.
        let cctx = unsafe { (self.api.create_cctx)(self.cparams(s)) };
        // SAFETY: as above.
        let dctx = unsafe { (self.api.create_dctx)(self.dparams(s.nthreads)) };
        let ctx = RefCtx { lib: self, cctx, dctx };
        if ctx.cctx.is_null() || ctx.dctx.is_null() {
            return Err("reference context creation failed".into());
        }
        Ok(ctx)
    }

    /// A new super-chunk with `s`, in memory (`urlpath` None) or in a file
    /// (`contiguous` frame) / directory (sparse frame).
    pub fn schunk(&self, s: &Settings, contiguous: bool, urlpath: Option<&Path>) -> Result<RefSChunk<'_>, String> {
        let mut cp = self.cparams(s);
        let mut dp = self.dparams(s.nthreads);
        let path = match urlpath {
            Some(p) => {
                Some(CString::new(p.as_os_str().as_encoded_bytes()).map_err(|_| format!("bad path {}", p.display()))?)
            }
            None => None,
        };
        // SAFETY: returns BLOSC2_STORAGE_DEFAULTS by value.
        let mut st = unsafe { (self.api.storage_defaults)() };
        st.contiguous = contiguous;
        st.urlpath = path.as_ref().map_or(std::ptr::null_mut(), |c| c.as_ptr().cast_mut());
        st.cparams = &mut cp;
        st.dparams = &mut dp;
        // SAFETY: `st` and everything it points to (cp, dp, the path) live
        // across the call; schunk_new copies the params and the path.
        let sc = unsafe { (self.api.schunk_new)(&mut st) };
        if sc.is_null() {
            return Err("reference blosc2_schunk_new failed".into());
        }
        Ok(RefSChunk { lib: self, sc })
    }

    /// `blosc2_schunk_from_buffer` over `cframe`. Without `copy` the
    /// super-chunk reads `cframe` in place, so it borrows it for its
    /// lifetime (3.3.5 never frees a buffer it was given this way unless
    /// told to, and never writes it unless the super-chunk is edited,
    /// which the benchmark does not do).
    pub fn schunk_from_buffer<'a>(&'a self, cframe: &'a [u8], copy: bool) -> Result<RefSChunk<'a>, String> {
        let len = i64::try_from(cframe.len()).map_err(|_| "frame too large".to_string())?;
        // SAFETY: `cframe` is readable for `len` bytes and outlives the
        // returned super-chunk (the lifetime ties them); see above for
        // why the library does not write or free it.
        let sc = unsafe { (self.api.schunk_from_buffer)(cframe.as_ptr().cast_mut(), len, copy) };
        if sc.is_null() {
            return Err("reference blosc2_schunk_from_buffer failed".into());
        }
        Ok(RefSChunk { lib: self, sc })
    }

    /// `blosc2_schunk_open` of the frame at `path`.
    pub fn schunk_open(&self, path: &Path) -> Result<RefSChunk<'_>, String> {
        let c =
            CString::new(path.as_os_str().as_encoded_bytes()).map_err(|_| format!("bad path {}", path.display()))?;
        // SAFETY: `c` is NUL-terminated and lives across the call, which
        // copies it.
        let sc = unsafe { (self.api.schunk_open)(c.as_ptr()) };
        if sc.is_null() {
            return Err(format!("reference blosc2_schunk_open({}) failed", path.display()));
        }
        Ok(RefSChunk { lib: self, sc })
    }

    /// A new in-memory b2nd array holding `buffer` (C order) with
    /// `b2nd_from_cbuffer`.
    pub fn array(
        &self,
        s: &Settings,
        shape: &[i64],
        chunkshape: &[i32],
        blockshape: &[i32],
        buffer: &[u8],
    ) -> Result<RefArray<'_>, String> {
        let mut cp = self.cparams(s);
        let mut dp = self.dparams(s.nthreads);
        // SAFETY: returns BLOSC2_STORAGE_DEFAULTS by value.
        let mut st = unsafe { (self.api.storage_defaults)() };
        st.cparams = &mut cp;
        st.dparams = &mut dp;
        let ndim = i8::try_from(shape.len()).map_err(|_| "too many dimensions".to_string())?;
        if chunkshape.len() != shape.len() || blockshape.len() != shape.len() {
            return Err("shape, chunkshape and blockshape differ in length".into());
        }
        // SAFETY: `st` (and cp, dp) and the three shape arrays of `ndim`
        // entries live across the call, which copies them; no dtype, no
        // metalayers.
        let ctx = unsafe {
            (self.api.b2nd_create_ctx)(
                &st,
                ndim,
                shape.as_ptr(),
                chunkshape.as_ptr(),
                blockshape.as_ptr(),
                std::ptr::null(),
                0,
                std::ptr::null(),
                0,
            )
        };
        if ctx.is_null() {
            return Err("reference b2nd_create_ctx failed".into());
        }
        let mut arr: *mut b2nd_array_t = std::ptr::null_mut();
        let len = i64::try_from(buffer.len()).map_err(|_| "buffer too large".to_string())?;
        // SAFETY: `ctx` is live; `arr` is a valid out-pointer; `buffer` is
        // readable for `len` bytes.
        let rc = unsafe { (self.api.b2nd_from_cbuffer)(ctx, &mut arr, buffer.as_ptr().cast(), len) };
        // SAFETY: created above, freed once; the array keeps its own copy
        // of the context's parameters.
        unsafe { (self.api.b2nd_free_ctx)(ctx) };
        if rc < 0 || arr.is_null() {
            return Err(self.err("b2nd_from_cbuffer", rc.into()));
        }
        Ok(RefArray { lib: self, arr })
    }
}

/// A reference b2nd array, freed on drop.
pub struct RefArray<'l> {
    lib: &'l RefLib,
    arr: *mut b2nd_array_t,
}

impl RefArray<'_> {
    /// `b2nd_get_slice_cbuffer` of `[start, stop)` into `dst`, shaped
    /// `stop - start`.
    pub fn get_slice(&mut self, start: &[i64], stop: &[i64], dst: &mut [u8]) -> Result<(), String> {
        let shape: Vec<i64> = start.iter().zip(stop).map(|(a, b)| b - a).collect();
        if start.len() != stop.len() {
            return Err("start and stop differ in length".into());
        }
        let len = i64::try_from(dst.len()).map_err(|_| "buffer too large".to_string())?;
        // SAFETY: the array is live; start, stop and shape have ndim
        // entries (the array's, as the caller built them from it); `dst`
        // is writable for `len` bytes and the library checks the slice fits.
        let rc = unsafe {
            (self.lib.api.b2nd_get_slice_cbuffer)(
                self.arr,
                start.as_ptr(),
                stop.as_ptr(),
                dst.as_mut_ptr().cast(),
                shape.as_ptr(),
                len,
            )
        };
        if rc < 0 {
            return Err(self.lib.err("b2nd_get_slice_cbuffer", rc.into()));
        }
        Ok(())
    }

    /// `(nbytes, cbytes)` of the array's super-chunk.
    pub fn sizes(&self) -> (i64, i64) {
        // SAFETY: `arr` is live and its first field is the super-chunk
        // pointer, set by b2nd_from_cbuffer; the schunk layout is the
        // compile-time-checked mirror.
        unsafe { ((*(*self.arr).sc).nbytes, (*(*self.arr).sc).cbytes) }
    }
}

impl Drop for RefArray<'_> {
    fn drop(&mut self) {
        // SAFETY: created by b2nd_from_cbuffer, freed exactly once.
        unsafe { (self.lib.api.b2nd_free)(self.arr) };
    }
}

/// A reference compression context and decompression context.
pub struct RefCtx<'l> {
    lib: &'l RefLib,
    cctx: Ctx,
    dctx: Ctx,
}

fn len_i32(n: usize) -> Result<i32, String> {
    i32::try_from(n).map_err(|_| format!("buffer of {n} bytes too large for the C API"))
}

impl RefCtx<'_> {
    /// `blosc2_compress_ctx`: the chunk size, or 0 if it did not fit.
    pub fn compress(&mut self, src: &[u8], dst: &mut [u8]) -> Result<usize, String> {
        let (sl, dl) = (len_i32(src.len())?, len_i32(dst.len())?);
        // SAFETY: the context is live (owned by self); `src` is readable
        // for `sl` bytes and `dst` writable for `dl` bytes; the library
        // writes only within `dl`.
        let rc =
            unsafe { (self.lib.api.compress_ctx)(self.cctx, src.as_ptr().cast(), sl, dst.as_mut_ptr().cast(), dl) };
        usize::try_from(rc).map_err(|_| self.lib.err("blosc2_compress_ctx", rc.into()))
    }

    /// `blosc2_decompress_ctx`: the number of bytes written.
    pub fn decompress(&mut self, src: &[u8], dst: &mut [u8]) -> Result<usize, String> {
        let (sl, dl) = (len_i32(src.len())?, len_i32(dst.len())?);
        // SAFETY: as in `compress`; the library reads at most `sl` bytes
        // of `src` and writes at most `dl` bytes of `dst`.
        let rc =
            unsafe { (self.lib.api.decompress_ctx)(self.dctx, src.as_ptr().cast(), sl, dst.as_mut_ptr().cast(), dl) };
        usize::try_from(rc).map_err(|_| self.lib.err("blosc2_decompress_ctx", rc.into()))
    }

    /// `blosc2_getitem_ctx`: the number of bytes written.
    pub fn getitem(&mut self, src: &[u8], start: i32, nitems: i32, dst: &mut [u8]) -> Result<usize, String> {
        let (sl, dl) = (len_i32(src.len())?, len_i32(dst.len())?);
        // SAFETY: as in `decompress`; getitem writes at most `dl` bytes.
        let rc = unsafe {
            (self.lib.api.getitem_ctx)(
                self.dctx,
                src.as_ptr().cast(),
                sl,
                start,
                nitems,
                dst.as_mut_ptr().cast(),
                dl,
            )
        };
        usize::try_from(rc).map_err(|_| self.lib.err("blosc2_getitem_ctx", rc.into()))
    }
}

impl Drop for RefCtx<'_> {
    fn drop(&mut self) {
        for c in [self.cctx, self.dctx] {
            if !c.is_null() {
                // SAFETY: created by blosc2_create_*ctx, freed exactly once.
                unsafe { (self.lib.api.free_ctx)(c) };
            }
        }
    }
}

/// A reference super-chunk, freed on drop.
pub struct RefSChunk<'l> {
    lib: &'l RefLib,
    sc: *mut blosc2_schunk,
}

impl RefSChunk<'_> {
    /// `blosc2_schunk_append_buffer`: the new number of chunks.
    pub fn append_buffer(&mut self, src: &[u8]) -> Result<i64, String> {
        let sl = len_i32(src.len())?;
        // SAFETY: the super-chunk is live; `src` is readable for `sl` bytes.
        let rc = unsafe { (self.lib.api.schunk_append_buffer)(self.sc, src.as_ptr().cast(), sl) };
        if rc < 0 {
            return Err(self.lib.err("blosc2_schunk_append_buffer", rc));
        }
        Ok(rc)
    }

    /// `blosc2_schunk_decompress_chunk`: the number of bytes written.
    pub fn decompress_chunk(&mut self, n: i64, dst: &mut [u8]) -> Result<usize, String> {
        let dl = len_i32(dst.len())?;
        // SAFETY: the super-chunk is live; `dst` is writable for `dl` bytes
        // and the library checks the chunk fits before writing.
        let rc = unsafe { (self.lib.api.schunk_decompress_chunk)(self.sc, n, dst.as_mut_ptr().cast(), dl) };
        usize::try_from(rc).map_err(|_| self.lib.err("blosc2_schunk_decompress_chunk", rc.into()))
    }

    /// `(nbytes, cbytes)` from the public struct.
    pub fn sizes(&self) -> (i64, i64) {
        // SAFETY: `sc` points to a live blosc2_schunk whose layout is the
        // compile-time-checked mirror; the fields are plain integers.
        unsafe { ((*self.sc).nbytes, (*self.sc).cbytes) }
    }

    /// The contiguous frame of the super-chunk (`blosc2_schunk_to_buffer`),
    /// copied into a vector of ours.
    pub fn cframe(&mut self) -> Result<Vec<u8>, String> {
        let mut p: *mut u8 = std::ptr::null_mut();
        let mut needs_free = false;
        // SAFETY: the super-chunk is live; both out-pointers are valid.
        let len = unsafe { (self.lib.api.schunk_to_buffer)(self.sc, &mut p, &mut needs_free) };
        if len < 0 || p.is_null() {
            return Err(self.lib.err("blosc2_schunk_to_buffer", len));
        }
        // SAFETY: the library returned `len` readable bytes at `p`, valid
        // until the super-chunk changes (it does not here) or, with
        // `needs_free`, until freed below.
        let v = unsafe { std::slice::from_raw_parts(p, len as usize) }.to_vec();
        if needs_free {
            // SAFETY: malloc'ed by the library for us to free, once.
            unsafe { libc::free(p.cast()) };
        }
        Ok(v)
    }

    /// `blosc2_schunk_get_slice_buffer` of items `[start, stop)` into `dst`
    /// (which must hold them: the library does not check).
    pub fn get_slice(&mut self, start: i64, stop: i64, dst: &mut [u8]) -> Result<(), String> {
        let (nbytes, _) = self.sizes();
        // SAFETY: the super-chunk is live; the typesize field is plain.
        let ts = i64::from(unsafe { (*self.sc).typesize });
        let need = (stop - start).checked_mul(ts).ok_or("slice too large")?;
        if start < 0 || stop < start || stop * ts > nbytes || need as u64 > dst.len() as u64 {
            return Err("slice out of range".into());
        }
        // SAFETY: live super-chunk; `dst` holds the slice's `need` bytes,
        // checked above against the super-chunk's size.
        let rc = unsafe { (self.lib.api.schunk_get_slice_buffer)(self.sc, start, stop, dst.as_mut_ptr().cast()) };
        if rc < 0 {
            return Err(self.lib.err("blosc2_schunk_get_slice_buffer", rc.into()));
        }
        Ok(())
    }

    /// `blosc2_schunk_fill_special`: the number of chunks.
    pub fn fill_special(&mut self, nitems: i64, special_value: i32, chunksize: i32) -> Result<i64, String> {
        // SAFETY: the super-chunk is live; plain integer arguments.
        let rc = unsafe { (self.lib.api.schunk_fill_special)(self.sc, nitems, special_value, chunksize) };
        if rc < 0 {
            return Err(self.lib.err("blosc2_schunk_fill_special", rc));
        }
        Ok(rc)
    }

    /// `blosc2_schunk_frame_len`.
    pub fn frame_len(&mut self) -> i64 {
        // SAFETY: the super-chunk is live.
        unsafe { (self.lib.api.schunk_frame_len)(self.sc) }
    }

    /// `blosc2_vlmeta_add` (or `_update` when `update`) of `content` with
    /// the default compression parameters.
    pub fn vlmeta_set(&mut self, name: &str, content: &[u8], update: bool) -> Result<(), String> {
        let cname = CString::new(name).map_err(|_| format!("bad name {name}"))?;
        let len = len_i32(content.len())?;
        let f = if update {
            self.lib.api.vlmeta_update
        } else {
            self.lib.api.vlmeta_add
        };
        // SAFETY: live super-chunk; `cname` NUL-terminated and `content`
        // readable for `len` bytes, both across the call (which copies
        // them); NULL cparams means the defaults.
        let rc = unsafe { f(self.sc, cname.as_ptr(), content.as_ptr(), len, std::ptr::null()) };
        if rc < 0 {
            return Err(self.lib.err("blosc2_vlmeta_add/update", rc.into()));
        }
        Ok(())
    }
}

impl Drop for RefSChunk<'_> {
    fn drop(&mut self) {
        // SAFETY: created by blosc2_schunk_new, freed exactly once.
        unsafe { (self.lib.api.schunk_free)(self.sc) };
    }
}
