//! cargo-fuzz target; the body is `blosc2_fuzz::plugin_chunks::run` (see src/plugin_chunks.rs),
//! also replayed on stable by `tests/fuzz_regressions.rs`.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| blosc2_fuzz::plugin_chunks::run(data));
