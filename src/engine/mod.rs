//! The safe engine: everything C-Blosc2 does, without C types or raw pointers.
//!
//! `unsafe` is denied here; only the SIMD kernels (`filters::*::{sse2,avx2}`)
//! and the zlib FFI calls (`codecs::zlib`) opt out, each block with a
//! `SAFETY` comment, and each SIMD kernel has a scalar twin its tests
//! compare against.

#![deny(unsafe_code)]

pub mod b2nd;
pub mod chunk;
pub mod codecs;
pub mod constants;
pub mod context;
pub mod cpu;
pub mod error;
pub mod filters;
pub mod frame;
pub mod header;
pub mod params;
pub mod schunk;
pub mod threads;
