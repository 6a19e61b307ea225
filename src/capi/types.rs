//! `#[repr(C)]` mirrors of the public structs and callback types of
//! `blosc2.h` (parameters, contexts, plugins, I/O). Layouts are checked at
//! compile time against the numbers measured on C-Blosc2 3.3.5 (x86_64).
//!
//! cbindgen reads this file to write `include/blosc2.h`; the doc comments
//! below end up in the header.

#![allow(non_camel_case_types)]

use std::cell::UnsafeCell;
use std::ffi::{c_char, c_int, c_void};
use std::sync::atomic::{AtomicI32, AtomicU64};

use crate::engine::context::{Context, Mode};

/// Instrumentation record written by codecs built with `instr_codec`.
#[repr(C)]
#[derive(Debug, Clone, Copy, Default)]
pub struct blosc2_instr {
    /// Compression ratio of the block.
    pub cratio: f32,
    /// Compression speed.
    pub cspeed: f32,
    /// Filter speed.
    pub filter_speed: f32,
    /// Free-form flags.
    pub flags: [u8; 4],
}

/// Custom threading backend: run `dojob(jobdata + i * jobdata_elsize)` for
/// every `i < numjobs`, possibly in parallel, and return when all are done.
pub type blosc_threads_callback = Option<
    unsafe extern "C" fn(
        callback_data: *mut c_void,
        dojob: Option<unsafe extern "C" fn(arg: *mut c_void)>,
        numjobs: c_int,
        jobdata_elsize: usize,
        jobdata: *mut c_void,
    ),
>;

/// Open callback of an I/O backend.
pub type blosc2_open_cb =
    Option<unsafe extern "C" fn(urlpath: *const c_char, mode: *const c_char, params: *mut c_void) -> *mut c_void>;
/// Close callback of an I/O backend.
pub type blosc2_close_cb = Option<unsafe extern "C" fn(stream: *mut c_void) -> c_int>;
/// Size callback of an I/O backend.
pub type blosc2_size_cb = Option<unsafe extern "C" fn(stream: *mut c_void) -> i64>;
/// Positioned write callback of an I/O backend.
pub type blosc2_write_cb =
    Option<unsafe extern "C" fn(ptr: *const c_void, size: i64, nitems: i64, position: i64, stream: *mut c_void) -> i64>;
/// Positioned read callback of an I/O backend.
pub type blosc2_read_cb = Option<
    unsafe extern "C" fn(ptr: *mut *mut c_void, size: i64, nitems: i64, position: i64, stream: *mut c_void) -> i64,
>;
/// Truncate callback of an I/O backend.
pub type blosc2_truncate_cb = Option<unsafe extern "C" fn(stream: *mut c_void, size: i64) -> c_int>;
/// Destroy callback of an I/O backend (frees its params).
pub type blosc2_destroy_cb = Option<unsafe extern "C" fn(params: *mut c_void) -> c_int>;

/// A set of I/O callbacks registered under an id.
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct blosc2_io_cb {
    /// Backend id.
    pub id: u8,
    /// Backend name.
    pub name: *mut c_char,
    /// True when `read` expects the caller to provide the buffer.
    pub is_allocation_necessary: bool,
    /// Open a stream.
    pub open: blosc2_open_cb,
    /// Close a stream.
    pub close: blosc2_close_cb,
    /// Size of a stream.
    pub size: blosc2_size_cb,
    /// Write to a stream.
    pub write: blosc2_write_cb,
    /// Read from a stream.
    pub read: blosc2_read_cb,
    /// Truncate a stream.
    pub truncate: blosc2_truncate_cb,
    /// Release the backend params.
    pub destroy: blosc2_destroy_cb,
}

/// Which I/O backend a storage uses, and its parameters.
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct blosc2_io {
    /// Backend id (`BLOSC2_IO_FILESYSTEM` ...).
    pub id: u8,
    /// Backend name.
    pub name: *const c_char,
    /// Backend parameters.
    pub params: *mut c_void,
}

/// A tuner plugin: callbacks that choose block sizes and parameters.
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct blosc2_tuner {
    /// Initialise the tuner for a pair of contexts (`dctx` may be NULL).
    pub init: Option<
        unsafe extern "C" fn(config: *mut c_void, cctx: *mut blosc2_context, dctx: *mut blosc2_context) -> c_int,
    >,
    /// Choose the next block size.
    pub next_blocksize: Option<unsafe extern "C" fn(context: *mut blosc2_context) -> c_int>,
    /// Choose the next compression parameters.
    pub next_cparams: Option<unsafe extern "C" fn(context: *mut blosc2_context) -> c_int>,
    /// Feed back the time a compression took.
    pub update: Option<unsafe extern "C" fn(context: *mut blosc2_context, ctime: f64) -> c_int>,
    /// Release the tuner state.
    pub free: Option<unsafe extern "C" fn(context: *mut blosc2_context) -> c_int>,
    /// Tuner id.
    pub id: c_int,
    /// Tuner name.
    pub name: *mut c_char,
}

/// What a prefilter receives for one block.
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct blosc2_prefilter_params {
    /// The user's pointer, copied from the params given at context creation.
    pub user_data: *mut c_void,
    /// The block of source data.
    pub input: *const u8,
    /// Where the prefilter writes its output.
    pub output: *mut u8,
    /// Bytes to write to `output`.
    pub output_size: i32,
    /// Typesize of the output.
    pub output_typesize: i32,
    /// Offset of the block in the source buffer.
    pub output_offset: i32,
    /// Chunk number in the super-chunk, or -1.
    pub nchunk: i64,
    /// Block number.
    pub nblock: i32,
    /// Thread id.
    pub tid: i32,
    /// Per-thread scratch space.
    pub ttmp: *mut u8,
    /// Size of `ttmp`.
    pub ttmp_nbytes: usize,
    /// The compression context.
    pub ctx: *mut blosc2_context,
    /// True when the output is going to be discarded.
    pub output_is_disposable: bool,
}

/// What a postfilter receives for one block.
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct blosc2_postfilter_params {
    /// The user's pointer, copied from the params given at context creation.
    pub user_data: *mut c_void,
    /// The decoded block.
    pub input: *const u8,
    /// Where the postfilter writes its output.
    pub output: *mut u8,
    /// Bytes in the block.
    pub size: i32,
    /// Typesize of the data.
    pub typesize: i32,
    /// Offset of the block in the destination buffer.
    pub offset: i32,
    /// Chunk number in the super-chunk, or -1.
    pub nchunk: i64,
    /// Block number.
    pub nblock: i32,
    /// Thread id.
    pub tid: i32,
    /// Per-thread scratch space.
    pub ttmp: *mut u8,
    /// Size of `ttmp`.
    pub ttmp_nbytes: usize,
    /// The decompression context.
    pub ctx: *mut blosc2_context,
}

/// Prefilter callback: returns 0 on success.
pub type blosc2_prefilter_fn = Option<unsafe extern "C" fn(params: *mut blosc2_prefilter_params) -> c_int>;
/// Postfilter callback: returns 0 on success.
pub type blosc2_postfilter_fn = Option<unsafe extern "C" fn(params: *mut blosc2_postfilter_params) -> c_int>;

/// Compression parameters.
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct blosc2_cparams {
    /// Codec id.
    pub compcode: u8,
    /// Codec metadata.
    pub compcode_meta: u8,
    /// Compression level, 0-9.
    pub clevel: u8,
    /// Non-zero to use a dictionary (zstd, lz4, lz4hc).
    pub use_dict: c_int,
    /// Item size in bytes.
    pub typesize: i32,
    /// Number of threads.
    pub nthreads: i16,
    /// Requested block size (0 = automatic).
    pub blocksize: i32,
    /// Split mode.
    pub splitmode: i32,
    /// The super-chunk these params belong to, if any.
    pub schunk: *mut c_void,
    /// Filter pipeline.
    pub filters: [u8; 6],
    /// Filter metadata.
    pub filters_meta: [u8; 6],
    /// Prefilter.
    pub prefilter: blosc2_prefilter_fn,
    /// Prefilter parameters (copied at context creation).
    pub preparams: *mut blosc2_prefilter_params,
    /// Tuner configuration.
    pub tuner_params: *mut c_void,
    /// Tuner id.
    pub tuner_id: c_int,
    /// Instrument the codec instead of compressing.
    pub instr_codec: bool,
    /// Parameters for a plugin codec.
    pub codec_params: *mut c_void,
    /// Parameters for plugin filters.
    pub filter_params: [*mut c_void; 6],
}

/// Decompression parameters.
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct blosc2_dparams {
    /// Number of threads.
    pub nthreads: i16,
    /// The super-chunk these params belong to, if any.
    pub schunk: *mut c_void,
    /// Postfilter.
    pub postfilter: blosc2_postfilter_fn,
    /// Postfilter parameters (copied at context creation).
    pub postparams: *mut blosc2_postfilter_params,
    /// Item size hint.
    pub typesize: i32,
}

/// Codec encoder callback.
pub type blosc2_codec_encoder_cb = Option<
    unsafe extern "C" fn(
        input: *const u8,
        input_len: i32,
        output: *mut u8,
        output_len: i32,
        meta: u8,
        cparams: *mut blosc2_cparams,
        chunk: *const c_void,
    ) -> c_int,
>;
/// Codec decoder callback.
pub type blosc2_codec_decoder_cb = Option<
    unsafe extern "C" fn(
        input: *const u8,
        input_len: i32,
        output: *mut u8,
        output_len: i32,
        meta: u8,
        dparams: *mut blosc2_dparams,
        chunk: *const c_void,
    ) -> c_int,
>;

/// A codec plugin.
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct blosc2_codec {
    /// Codec id.
    pub compcode: u8,
    /// Codec name.
    pub compname: *mut c_char,
    /// Library (format) number.
    pub complib: u8,
    /// Format version.
    pub version: u8,
    /// Encoder.
    pub encoder: blosc2_codec_encoder_cb,
    /// Decoder.
    pub decoder: blosc2_codec_decoder_cb,
}

/// Filter forward callback: (src, dest, size, meta, cparams, id).
pub type blosc2_filter_forward_cb =
    Option<unsafe extern "C" fn(*const u8, *mut u8, i32, u8, *mut blosc2_cparams, u8) -> c_int>;
/// Filter backward callback: (src, dest, size, meta, dparams, id).
pub type blosc2_filter_backward_cb =
    Option<unsafe extern "C" fn(*const u8, *mut u8, i32, u8, *mut blosc2_dparams, u8) -> c_int>;

/// A filter plugin.
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct blosc2_filter {
    /// Filter id.
    pub id: u8,
    /// Filter name.
    pub name: *mut c_char,
    /// Filter version.
    pub version: u8,
    /// Forward (compression) function.
    pub forward: blosc2_filter_forward_cb,
    /// Backward (decompression) function.
    pub backward: blosc2_filter_backward_cb,
}

/// Symbol names of a dynamically loaded codec (`codecs-registry.h`).
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct codec_info {
    /// Encoder symbol.
    pub encoder: *mut c_char,
    /// Decoder symbol.
    pub decoder: *mut c_char,
}

/// Symbol names of a dynamically loaded filter (`filters-registry.h`).
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct filter_info {
    /// Forward symbol.
    pub forward: *mut c_char,
    /// Backward symbol.
    pub backward: *mut c_char,
}

/// Symbol names of a dynamically loaded tuner (`tuners-registry.h`).
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct tuner_info {
    /// `init` symbol.
    pub init: *mut c_char,
    /// `next_blocksize` symbol.
    pub next_blocksize: *mut c_char,
    /// `next_cparams` symbol.
    pub next_cparams: *mut c_char,
    /// `update` symbol.
    pub update: *mut c_char,
    /// `free` symbol.
    pub free: *mut c_char,
}

/// Compile-time layout checks: size, alignment and field offsets.
macro_rules! check_layout {
    ($t:ty, size $s:expr, align $a:expr $(; $($f:ident @ $o:expr),+ $(,)?)?) => {
        const _: () = {
            assert!(::std::mem::size_of::<$t>() == $s);
            assert!(::std::mem::align_of::<$t>() == $a);
            $($(assert!(::std::mem::offset_of!($t, $f) == $o);)+)?
        };
    };
}
pub(crate) use check_layout;

#[cfg(target_pointer_width = "64")]
mod layout {
    use super::*;
    check_layout!(blosc2_instr, size 16, align 4; cratio @ 0, cspeed @ 4, filter_speed @ 8, flags @ 12);
    check_layout!(blosc2_io_cb, size 80, align 8;
        id @ 0, name @ 8, is_allocation_necessary @ 16, open @ 24, close @ 32, size @ 40,
        write @ 48, read @ 56, truncate @ 64, destroy @ 72);
    check_layout!(blosc2_io, size 24, align 8; id @ 0, name @ 8, params @ 16);
    check_layout!(blosc2_tuner, size 56, align 8;
        init @ 0, next_blocksize @ 8, next_cparams @ 16, update @ 24, free @ 32, id @ 40, name @ 48);
    check_layout!(blosc2_prefilter_params, size 88, align 8;
        user_data @ 0, input @ 8, output @ 16, output_size @ 24, output_typesize @ 28,
        output_offset @ 32, nchunk @ 40, nblock @ 48, tid @ 52, ttmp @ 56, ttmp_nbytes @ 64,
        ctx @ 72, output_is_disposable @ 80);
    check_layout!(blosc2_postfilter_params, size 80, align 8;
        user_data @ 0, input @ 8, output @ 16, size @ 24, typesize @ 28, offset @ 32,
        nchunk @ 40, nblock @ 48, tid @ 52, ttmp @ 56, ttmp_nbytes @ 64, ctx @ 72);
    check_layout!(blosc2_cparams, size 136, align 8;
        compcode @ 0, compcode_meta @ 1, clevel @ 2, use_dict @ 4, typesize @ 8, nthreads @ 12,
        blocksize @ 16, splitmode @ 20, schunk @ 24, filters @ 32, filters_meta @ 38,
        prefilter @ 48, preparams @ 56, tuner_params @ 64, tuner_id @ 72, instr_codec @ 76,
        codec_params @ 80, filter_params @ 88);
    check_layout!(blosc2_dparams, size 40, align 8;
        nthreads @ 0, schunk @ 8, postfilter @ 16, postparams @ 24, typesize @ 32);
    check_layout!(blosc2_codec, size 40, align 8;
        compcode @ 0, compname @ 8, complib @ 16, version @ 17, encoder @ 24, decoder @ 32);
    check_layout!(blosc2_filter, size 40, align 8;
        id @ 0, name @ 8, version @ 16, forward @ 24, backward @ 32);
    check_layout!(codec_info, size 16, align 8; encoder @ 0, decoder @ 8);
    check_layout!(filter_info, size 16, align 8; forward @ 0, backward @ 8);
    check_layout!(tuner_info, size 40, align 8;
        init @ 0, next_blocksize @ 8, next_cparams @ 16, update @ 24, free @ 32);
}

/// Tag of a live [`blosc2_context`] ("blosc2cx").
pub(crate) const CONTEXT_MAGIC: u64 = 0x626c_6f73_6332_6378;

/// The opaque `blosc2_context` (a `struct blosc2_context_s` in C).
#[allow(non_camel_case_types)]
pub struct blosc2_context {
    pub(crate) magic: u64,
    pub(crate) mode: Mode,
    /// What `blosc2_ctx_get_cparams` reports.
    pub(crate) cparams: blosc2_cparams,
    /// What `blosc2_ctx_get_dparams` reports.
    pub(crate) dparams: blosc2_dparams,
    /// Private copies of the user's pre/postfilter params (C heap layout,
    /// owned here, released on free).
    pub(crate) preparams: *mut blosc2_prefilter_params,
    pub(crate) postparams: *mut blosc2_postfilter_params,
    /// The tuner `cparams.tuner_id` names (a registered one), driven
    /// around every compression as 3.3.5 drives it.
    pub(crate) tuner: Option<blosc2_tuner>,
    /// Reached only through `EngineGuard` (`context.rs`), i.e. by the thread in `owner`.
    pub(crate) engine: UnsafeCell<Context>,
    /// The lock of `engine`: the token of the thread using it
    /// (`engine::threads::forks::token`), 0 when free.
    /// A bare atomic rather than a `Mutex` because a call on a small chunk
    /// is tens of nanoseconds and a mutex costs two atomic exchanges per
    /// call (its release must look for sleepers); releasing this one is a
    /// plain store.
    pub(crate) owner: AtomicU64,
    /// The block size of the last chunk compressed (0 before the first),
    /// which `blosc2_ctx_get_cparams` reports as 3.3.5 does.
    pub(crate) used_blocksize: AtomicI32,
}
