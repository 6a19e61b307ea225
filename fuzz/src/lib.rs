//! Bodies of the cargo-fuzz targets. Each `fuzz_targets/<name>.rs` calls
//! `<name>::run`; the stable test `tests/fuzz_regressions.rs` includes this
//! file with `#[path]` and replays the seeds and every saved finding
//! (`fuzz/regressions/<target>/`) through the same functions, so a fixed
//! crash stays fixed without nightly.
//!
//! Everything goes through the C ABI (`blosc2::capi`), pointers and lengths
//! as a C program passes them: that is the surface hostile bytes reach.

pub mod b2nd_frame;
pub mod chunk_decode;
pub mod differential;
pub mod frame_edit;
pub mod frame_open;
pub mod input;
pub mod params;
pub mod plugin_chunks;
pub mod reference;
pub mod roundtrip;
pub mod schunk_ops;
