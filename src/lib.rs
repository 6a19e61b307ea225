//! A memory-safe re-implementation of C-Blosc2.
//!
//! Two walled layers:
//! - [`engine`]: the safe core (chunk format, codecs, filters, super-chunks,
//!   frames). It never uses raw pointers or C types; `unsafe` appears only in
//!   small hot-path modules (SIMD kernels), each with a safe twin.
//! - `capi`: the C ABI of C-Blosc2 3.3 (`include/blosc2.h`). The only place
//!   with `extern "C"` and raw pointers; every export validates its
//!   arguments, converts them, calls the engine and maps the error.

#![deny(unsafe_op_in_unsafe_fn)]
#![deny(clippy::undocumented_unsafe_blocks)]
#![deny(clippy::missing_safety_doc)]

pub mod engine;

pub mod datagen;

pub mod capi;

pub mod recordio;

pub use engine::error::{Error, Result};
