//! The part of zfp 1.0.1's C API (`zfp.h`, `zfp/bitstream.h`) that the
//! ZFP codecs of C-Blosc2 use, declared by hand from those headers (so the
//! build needs neither bindgen nor libclang).
//!
//! `zfp_stream`, `zfp_field` and `bitstream` are opaque here: they are only
//! ever handled through pointers the library allocates.

#![no_std]
#![allow(non_camel_case_types)]

use core::ffi::{c_char, c_double, c_int, c_uint, c_void};

/// `zfp_stream` (opaque).
#[repr(C)]
pub struct zfp_stream {
    _private: [u8; 0],
}

/// `zfp_field` (opaque).
#[repr(C)]
pub struct zfp_field {
    _private: [u8; 0],
}

/// `bitstream` (opaque).
#[repr(C)]
pub struct bitstream {
    _private: [u8; 0],
}

/// `zfp_type` (a C enum).
pub type zfp_type = c_uint;
/// `zfp_type_float`.
pub const ZFP_TYPE_FLOAT: zfp_type = 3;
/// `zfp_type_double`.
pub const ZFP_TYPE_DOUBLE: zfp_type = 4;

/// `zfp_bool`.
pub type zfp_bool = c_int;

/// `ZFP_MAX_BITS`: the most bits one block of 4^d values takes.
pub const ZFP_MAX_BITS: u32 = 16658;
/// `ZFP_MAX_PREC`: the most bit planes a block codes.
pub const ZFP_MAX_PREC: u32 = 64;

extern "C" {
    /// `zfp_version_string`, e.g. "zfp version 1.0.1 (December 15, 2023)".
    pub static zfp_version_string: *const c_char;

    pub fn stream_open(buffer: *mut c_void, bytes: usize) -> *mut bitstream;
    pub fn stream_close(stream: *mut bitstream);

    pub fn zfp_stream_open(stream: *mut bitstream) -> *mut zfp_stream;
    pub fn zfp_stream_close(stream: *mut zfp_stream);
    pub fn zfp_stream_set_bit_stream(stream: *mut zfp_stream, bs: *mut bitstream);
    pub fn zfp_stream_rewind(stream: *mut zfp_stream);
    pub fn zfp_stream_maximum_size(stream: *const zfp_stream, field: *const zfp_field) -> usize;
    pub fn zfp_stream_set_rate(
        stream: *mut zfp_stream,
        rate: c_double,
        scalar: zfp_type,
        dims: c_uint,
        align: zfp_bool,
    ) -> c_double;
    pub fn zfp_stream_set_precision(stream: *mut zfp_stream, precision: c_uint) -> c_uint;
    pub fn zfp_stream_set_accuracy(stream: *mut zfp_stream, tolerance: c_double) -> c_double;
    /// Writes the stream's `minbits`, `maxbits`, `maxprec` and `minexp`
    /// (each pointer may be NULL).
    pub fn zfp_stream_params(
        stream: *const zfp_stream,
        minbits: *mut c_uint,
        maxbits: *mut c_uint,
        maxprec: *mut c_uint,
        minexp: *mut c_int,
    );

    pub fn zfp_field_1d(pointer: *mut c_void, scalar: zfp_type, nx: usize) -> *mut zfp_field;
    pub fn zfp_field_2d(pointer: *mut c_void, scalar: zfp_type, nx: usize, ny: usize) -> *mut zfp_field;
    pub fn zfp_field_3d(pointer: *mut c_void, scalar: zfp_type, nx: usize, ny: usize, nz: usize) -> *mut zfp_field;
    pub fn zfp_field_4d(
        pointer: *mut c_void,
        scalar: zfp_type,
        nx: usize,
        ny: usize,
        nz: usize,
        nw: usize,
    ) -> *mut zfp_field;
    pub fn zfp_field_free(field: *mut zfp_field);

    pub fn zfp_compress(stream: *mut zfp_stream, field: *const zfp_field) -> usize;
    pub fn zfp_decompress(stream: *mut zfp_stream, field: *mut zfp_field) -> usize;
}
