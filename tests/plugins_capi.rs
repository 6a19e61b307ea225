//! The plugin registry through the C ABI: names of plugin codec ids,
//! registration codes, a registered tuner driven through its callbacks,
//! and a run-time plugin that is not installed.

use std::ffi::{c_char, c_int, c_void, CStr};
use std::ptr;
use std::sync::atomic::{AtomicUsize, Ordering};

use blosc2::capi::context::*;
use blosc2::capi::context_read::*;
use blosc2::capi::misc::*;
use blosc2::capi::plugins::*;
use blosc2::capi::{blosc2_context, blosc2_cparams, blosc2_tuner};

mod plugins_common;
use plugins_common::compress_with;

fn cparams() -> blosc2_cparams {
    blosc2_get_blosc2_cparams_defaults()
}

#[test]
fn plugin_codec_names_are_3_3_5_s() {
    for (code, name) in [
        (32, "ndlz"),
        (33, "zfp_acc"),
        (34, "zfp_prec"),
        (35, "zfp_rate"),
        (36, "openhtj2k"),
        (37, "grok"),
        (38, "openzl"),
        (39, "j2k"),
        (40, "htj2k"),
    ] {
        let mut p: *const c_char = ptr::null();
        // SAFETY: out-parameter on the stack.
        assert_eq!(unsafe { blosc2_compcode_to_compname(code, &mut p) }, code);
        // SAFETY: a static NUL-terminated name.
        assert_eq!(unsafe { CStr::from_ptr(p) }.to_str().unwrap(), name);
        let c = std::ffi::CString::new(name).unwrap();
        // SAFETY: NUL-terminated.
        assert_eq!(unsafe { blosc2_compname_to_compcode(c.as_ptr()) }, code);
        let (mut lib, mut ver): (*mut c_char, *mut c_char) = (ptr::null_mut(), ptr::null_mut());
        // SAFETY: NUL-terminated name, out-parameters on the stack.
        assert_eq!(unsafe { blosc2_get_complib_info(c.as_ptr(), &mut lib, &mut ver) }, code);
        // SAFETY: malloc'ed strings for us.
        unsafe {
            assert_eq!(CStr::from_ptr(lib).to_str().unwrap(), name);
            assert_eq!(CStr::from_ptr(ver).to_str().unwrap(), "unknown");
            libc::free(lib.cast());
            libc::free(ver.cast());
        }
    }
    let mut p: *const c_char = ptr::null();
    // SAFETY: out-parameter on the stack.
    assert_eq!(unsafe { blosc2_compcode_to_compname(41, &mut p) }, -1);
    assert!(p.is_null());
    // The global API knows the names and refuses plugin codecs.
    // SAFETY: NUL-terminated names.
    unsafe {
        assert_eq!(blosc2::capi::global::blosc1_set_compressor(c"ndlz".as_ptr()), -7);
        assert_eq!(blosc2::capi::global::blosc1_set_compressor(c"blosclz".as_ptr()), 0);
    }
}

#[test]
fn codecs_loaded_at_run_time_fail_cleanly_when_missing() {
    let data: Vec<u8> = (0..100_000u32).flat_map(|i| (i % 1000).to_le_bytes()).collect();
    let mut cp = cparams();
    cp.compcode = 37; // grok: no libblosc2_grok.so here
    cp.typesize = 4;
    assert_eq!(compress_with(cp, &data), Err(-7), "BLOSC2_ERROR_CODEC_SUPPORT");
    // BTUNE is a run-time tuner too: not installed, no context.
    cp.compcode = 0;
    cp.tuner_id = 32;
    // SAFETY: plain params.
    assert!(unsafe { blosc2_create_cctx(cp) }.is_null());
}

static INIT: AtomicUsize = AtomicUsize::new(0);
static NEXT_BLOCKSIZE: AtomicUsize = AtomicUsize::new(0);
static NEXT_CPARAMS: AtomicUsize = AtomicUsize::new(0);
static UPDATE: AtomicUsize = AtomicUsize::new(0);
static FREE: AtomicUsize = AtomicUsize::new(0);

unsafe extern "C" fn t_init(_config: *mut c_void, cctx: *mut blosc2_context, _dctx: *mut blosc2_context) -> c_int {
    assert!(!cctx.is_null());
    INIT.fetch_add(1, Ordering::SeqCst);
    0
}
unsafe extern "C" fn t_next_blocksize(_ctx: *mut blosc2_context) -> c_int {
    NEXT_BLOCKSIZE.fetch_add(1, Ordering::SeqCst);
    0
}
unsafe extern "C" fn t_next_cparams(ctx: *mut blosc2_context) -> c_int {
    // The tuner may look at the context's parameters.
    let mut cp = blosc2_get_blosc2_cparams_defaults();
    // SAFETY: the live context handed to the callback.
    assert_eq!(unsafe { blosc2_ctx_get_cparams(ctx, &mut cp) }, 0);
    assert_eq!(cp.tuner_id, 170);
    NEXT_CPARAMS.fetch_add(1, Ordering::SeqCst);
    0
}
unsafe extern "C" fn t_update(_ctx: *mut blosc2_context, ctime: f64) -> c_int {
    assert!(ctime >= 0.0);
    UPDATE.fetch_add(1, Ordering::SeqCst);
    0
}
unsafe extern "C" fn t_free(_ctx: *mut blosc2_context) -> c_int {
    FREE.fetch_add(1, Ordering::SeqCst);
    0
}

#[test]
fn a_registered_tuner_is_driven_through_its_callbacks() {
    let mut t = blosc2_tuner {
        init: Some(t_init),
        next_blocksize: Some(t_next_blocksize),
        next_cparams: Some(t_next_cparams),
        update: Some(t_update),
        free: Some(t_free),
        id: 170,
        name: c"counting".as_ptr().cast_mut(),
    };
    // SAFETY: a valid tuner struct.
    unsafe {
        assert_eq!(blosc2_register_tuner(&mut t), 0);
        assert_eq!(blosc2_register_tuner(&mut t), 0);
        t.id = 100;
        assert_eq!(blosc2_register_tuner(&mut t), -1);
        t.id = 170;
        t.name = c"other".as_ptr().cast_mut();
        assert_eq!(blosc2_register_tuner(&mut t), -1);
    }
    let data: Vec<u8> = (0..50_000u32).flat_map(|i| i.to_le_bytes()).collect();
    let mut params = 0u8;
    for with_params in [false, true] {
        let mut cp = cparams();
        cp.typesize = 4;
        cp.tuner_id = 170;
        if with_params {
            cp.tuner_params = ptr::addr_of_mut!(params).cast();
        }
        // SAFETY: plain params.
        let cctx = unsafe { blosc2_create_cctx(cp) };
        assert!(!cctx.is_null());
        let mut out = vec![0u8; data.len() + 32];
        for _ in 0..3 {
            // SAFETY: live context, buffers of the sizes given.
            let n = unsafe {
                blosc2_compress_ctx(
                    cctx,
                    data.as_ptr().cast(),
                    data.len() as i32,
                    out.as_mut_ptr().cast(),
                    out.len() as i32,
                )
            };
            assert!(n > 0);
        }
        // SAFETY: ours.
        unsafe { blosc2_free_ctx(cctx) };
    }
    assert_eq!(INIT.load(Ordering::SeqCst), 2);
    assert_eq!(NEXT_BLOCKSIZE.load(Ordering::SeqCst), 3, "without tuner params");
    assert_eq!(NEXT_CPARAMS.load(Ordering::SeqCst), 3, "with tuner params");
    assert_eq!(UPDATE.load(Ordering::SeqCst), 3, "with tuner params");
    assert_eq!(FREE.load(Ordering::SeqCst), 1, "with tuner params");
    // An unregistered tuner id: no context.
    let mut cp = cparams();
    cp.tuner_id = 171;
    // SAFETY: plain params.
    assert!(unsafe { blosc2_create_cctx(cp) }.is_null());
}

unsafe extern "C" fn enc_tiny(
    _input: *const u8,
    _input_len: i32,
    output: *mut u8,
    output_len: i32,
    _meta: u8,
    _cparams: *mut blosc2_cparams,
    _chunk: *const c_void,
) -> c_int {
    assert!(output_len >= 8);
    // SAFETY: `output` holds `output_len` >= 8 bytes.
    unsafe { ptr::write_bytes(output, 7, 8) };
    8
}

unsafe extern "C" fn dec_failing(
    _input: *const u8,
    _input_len: i32,
    _output: *mut u8,
    _output_len: i32,
    _meta: u8,
    _dparams: *mut blosc2::capi::blosc2_dparams,
    _chunk: *const c_void,
) -> c_int {
    -1
}

unsafe extern "C" fn fwd_failing(
    _src: *const u8,
    _dst: *mut u8,
    _size: i32,
    _meta: u8,
    _cparams: *mut blosc2_cparams,
    _id: u8,
) -> c_int {
    -1
}

unsafe extern "C" fn fwd_copy(
    src: *const u8,
    dst: *mut u8,
    size: i32,
    _meta: u8,
    _cp: *mut blosc2_cparams,
    _id: u8,
) -> c_int {
    // SAFETY: both hold `size` bytes.
    unsafe { ptr::copy_nonoverlapping(src, dst, size as usize) };
    0
}

unsafe extern "C" fn bwd_failing(
    _src: *const u8,
    _dst: *mut u8,
    _size: i32,
    _meta: u8,
    _dparams: *mut blosc2::capi::blosc2_dparams,
    _id: u8,
) -> c_int {
    -1
}

/// Compress 200 KB of varied bytes with `cp`: the chunk or the code.
fn compress_varied(cp: blosc2_cparams) -> Result<Vec<u8>, i32> {
    let data: Vec<u8> = (0..200_000u32).map(|i| (i * 7 % 253) as u8).collect();
    compress_with(cp, &data)
}

/// Decompress and getitem `chunk`: both result codes.
fn decode_codes(chunk: &[u8]) -> (c_int, c_int) {
    let dp = blosc2_get_blosc2_dparams_defaults();
    // SAFETY: plain params.
    let dctx = unsafe { blosc2_create_dctx(dp) };
    let mut out = vec![0u8; 200_000];
    // SAFETY: live context, buffers of the sizes given.
    let d = unsafe {
        blosc2_decompress_ctx(
            dctx,
            chunk.as_ptr().cast(),
            chunk.len() as i32,
            out.as_mut_ptr().cast(),
            200_000,
        )
    };
    // SAFETY: as above.
    let g = unsafe {
        blosc2_getitem_ctx(
            dctx,
            chunk.as_ptr().cast(),
            chunk.len() as i32,
            10,
            100,
            out.as_mut_ptr().cast(),
            100,
        )
    };
    // SAFETY: ours.
    unsafe { blosc2_free_ctx(dctx) };
    (d, g)
}

#[test]
fn failing_user_callbacks_give_negative_codes() {
    use blosc2::capi::{blosc2_codec, blosc2_filter};
    let mut codec = blosc2_codec {
        compcode: 230,
        compname: c"fails-to-decode".as_ptr().cast_mut(),
        complib: 230,
        version: 1,
        encoder: Some(enc_tiny),
        decoder: Some(dec_failing),
    };
    let mut bad_fwd = blosc2_filter {
        id: 231,
        name: c"fails-forward".as_ptr().cast_mut(),
        version: 1,
        forward: Some(fwd_failing),
        backward: Some(bwd_failing),
    };
    let mut bad_bwd = blosc2_filter {
        id: 232,
        name: c"fails-backward".as_ptr().cast_mut(),
        version: 1,
        forward: Some(fwd_copy),
        backward: Some(bwd_failing),
    };
    // SAFETY: valid structs with static names.
    unsafe {
        assert_eq!(blosc2_register_codec(&mut codec), 0);
        assert_eq!(blosc2_register_filter(&mut bad_fwd), 0);
        assert_eq!(blosc2_register_filter(&mut bad_bwd), 0);
    }
    // A decoder that fails.
    let mut cp = cparams();
    cp.compcode = 230;
    cp.typesize = 1;
    cp.filters = [0; 6];
    let chunk = compress_varied(cp).unwrap();
    let (d, g) = decode_codes(&chunk);
    assert!(d < 0 && g < 0, "decoder failing: {d} {g}");
    // A forward filter that fails.
    let mut cp = cparams();
    cp.filters = [231, 0, 0, 0, 0, 0];
    assert!(compress_varied(cp).is_err());
    // A backward filter that fails.
    cp.filters = [232, 0, 0, 0, 0, 0];
    let chunk = compress_varied(cp).unwrap();
    let (d, g) = decode_codes(&chunk);
    assert!(d < 0 && g < 0, "backward failing: {d} {g}");
    // Unregistered ids: compression refused (-7 codec, -18 filter, as 3.3.5).
    let mut cp = cparams();
    cp.compcode = 240;
    assert_eq!(compress_varied(cp), Err(-7));
    let mut cp = cparams();
    cp.filters = [0, 0, 0, 0, 0, 241];
    assert_eq!(compress_varied(cp), Err(-18));
}

/// python-blosc2 registers its user codecs and filters without a name:
/// 3.3.5 accepts them (0), and again under the same id.
#[test]
fn nameless_user_plugins_register() {
    use blosc2::capi::{blosc2_codec, blosc2_filter};
    let mut codec = blosc2_codec {
        compcode: 233,
        compname: ptr::null_mut(),
        complib: 233,
        version: 1,
        encoder: Some(enc_tiny),
        decoder: Some(dec_failing),
    };
    let mut filter = blosc2_filter {
        id: 234,
        name: ptr::null_mut(),
        version: 1,
        forward: Some(fwd_copy),
        backward: Some(bwd_failing),
    };
    // SAFETY: valid structs; NULL names are part of the contract.
    unsafe {
        assert_eq!(blosc2_register_codec(&mut codec), 0);
        assert_eq!(blosc2_register_codec(&mut codec), 0);
        assert_eq!(blosc2_register_filter(&mut filter), 0);
        assert_eq!(blosc2_register_filter(&mut filter), 0);
    }
}
