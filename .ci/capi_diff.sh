#!/usr/bin/env bash
# The C API on NULL, garbage and edge-case arguments against the reference
# (each call in a forked child; see .ci/capi_diff.py).
set -euo pipefail
cd "$(dirname "$0")/.."
python3 -c "import blosc2" 2>/dev/null || python3 -m pip install -q "blosc2==4.14.1"
cargo build --release --lib
python3 .ci/capi_diff.py "${CARGO_TARGET_DIR:-target}/release/libblosc2.so"
