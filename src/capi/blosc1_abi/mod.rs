//! The c-blosc 1.21 ABI (`include/blosc1/blosc.h`), built into
//! `libblosc.so.1` under the Cargo feature `abi-blosc1`.
//!
//! The 25 `blosc_*` functions of 1.21, over the same engine and global
//! parameters as the `blosc1_*` functions of C-Blosc2, with the Snappy
//! codec 1.21 has (the feature brings `snappy`). Chunks are written the
//! way 1.21 writes them (16-byte header, format version 2, its block sizes
//! and split rule) and read as 1.21 reads them (version 2 only, its header
//! checks and return codes).
//!
//! The library exports 1.21's symbols only: every other `#[no_mangle]`
//! function of `src/capi` is marked hidden by `blosc1_hidden.s`, which
//! `build.rs` writes (rustc's own version script cannot be combined with
//! a second one by GNU ld).

mod compress;
mod decompress;
mod info;
mod rules;

#[cfg(target_os = "linux")]
core::arch::global_asm!(include_str!(concat!(env!("OUT_DIR"), "/blosc1_hidden.s")));
