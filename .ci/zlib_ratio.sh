#!/usr/bin/env bash
# zlib at every clevel is no more than 1% larger than the reference on data
# that tests its noise finder.
set -euo pipefail
cd "$(dirname "$0")/.."
python3 -c "import blosc2" 2>/dev/null || python3 -m pip install -q "blosc2==4.14.1"
cargo build --release --lib
python3 .ci/zlib_ratio.py "${CARGO_TARGET_DIR:-target}/release/libblosc2.so"
