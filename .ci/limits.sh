#!/usr/bin/env bash
# Size limits that need several GiB of RAM or disk (tests/limits.rs, the
# #[ignore]d tests): a chunk of exactly BLOSC2_MAX_BUFFERSIZE bytes through
# the blosc2 and blosc1 APIs, an incompressible chunk of INT32_MAX bytes, a
# 5 GiB file frame (removed afterwards). About 6 GiB of RAM at most.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
# One test at a time: together they would need twice the memory.
cargo test --release --test limits -- --ignored --test-threads=1 --nocapture
