//! The safe engine: everything C-Blosc2 does, without C types or raw pointers.
//!
//! `unsafe` is denied here; only the SIMD kernels (`filters::*::{sse2,avx2}`),
//! the unchecked LZ4 decoding loop (`codecs::lz4::decode_fast`) and the zlib
//! FFI calls (`codecs::zlib`, `codecs::zlib_stream`), the creation of
//! memory mappings (`io::mmap`), the hand-over of a borrowed job to the
//! helper threads (`threads::helpers`) and the page-population hint for
//! fresh output buffers (`prefault`) opt out, each block
//! with a `SAFETY` comment, and each kernel has a safe twin its tests
//! compare against.

#![deny(unsafe_code)]

pub mod b2nd;
pub mod bulk;
pub mod chunk;
pub mod codecs;
pub mod constants;
pub mod context;
pub mod cpu;
pub mod error;
pub mod filters;
pub mod frame;
pub mod header;
pub mod io;
pub mod params;
pub mod pipeline_choice;
pub mod plugins;
pub mod prefault;
pub mod prefetch;
pub mod schunk;
pub mod threads;
