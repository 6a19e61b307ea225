#!/usr/bin/env bash
# Size limits that need several GiB of RAM or disk (tests/limits.rs, the
# #[ignore]d tests): a chunk of exactly BLOSC2_MAX_BUFFERSIZE bytes through
# the blosc2 and blosc1 APIs and the engine, an incompressible chunk of
# INT32_MAX bytes, a 5 GiB file frame (removed afterwards). About 6 GiB of
# RAM at most; ~2 minutes on 2 cores.
#
# The test profile (opt-level 1, already built by `cargo test`) rather than
# --release: no second build, and `cargo test --release` currently fails to
# link the blosc2 binary against the thin-LTO library.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
# One test at a time: together they would need twice the memory.
cargo test --test limits -- --ignored --test-threads=1 --nocapture
