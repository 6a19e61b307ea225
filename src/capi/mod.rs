//! The C ABI of C-Blosc2 3.3 (`include/blosc2.h`).
//!
//! The only module with `extern "C"` functions and raw pointers. Every
//! export validates its arguments (NULL pointers, negative sizes, handles),
//! turns them into slices, calls the safe engine and maps its error to a
//! `BLOSC2_ERROR_*` code through [`boundary`]. Buffers handed to C callers
//! come from `malloc` ([`alloc`]).
//!
//! `include/blosc2.h` is generated from this module by cbindgen (see
//! `build.rs` and `cbindgen.toml`); functions of the 3.3.5 API that are
//! not implemented yet are declared from `header/prototypes.h`.

pub(crate) mod alloc;
pub mod b2nd;
pub mod b2nd_ops;
/// cbindgen:ignore
#[cfg(feature = "abi-blosc1")]
pub mod blosc1_abi;
pub(crate) mod boundary;
pub mod chunkinfo;
pub mod context;
pub mod context_read;
pub(crate) mod convert;
pub(crate) mod defaults;
pub(crate) mod env;
pub mod global;
pub(crate) mod global_state;
pub mod io_cb;
pub mod misc;
pub(crate) mod plugin_calls;
pub(crate) mod plugin_load;
pub mod plugins;
/// cbindgen:ignore
pub mod recordio;
pub mod schunk;
pub mod schunk_frame;
pub mod schunk_meta;
pub mod schunk_slice;
pub mod stdio;
pub mod stdio_mmap;
pub(crate) mod trace;
pub mod types;
pub mod types_schunk;
pub mod vl;

pub use types::*;
pub use types_schunk::*;
