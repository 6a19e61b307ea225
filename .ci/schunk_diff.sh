#!/usr/bin/env bash
# Randomised super-chunk edits through both libraries: same results, same
# frames, each reads the other's (see .ci/schunk_diff.py).
set -euo pipefail
cd "$(dirname "$0")/.."
python3 -c "import blosc2" 2>/dev/null || python3 -m pip install -q "blosc2==4.14.1"
cargo build --release --lib
python3 .ci/schunk_diff.py "${CARGO_TARGET_DIR:-target}/release/libblosc2.so" "${SCHUNK_DIFF_CASES:-600}" "${SCHUNK_DIFF_SEED:-1}"
