#!/usr/bin/env bash
# Randomised chunks through both libraries: each decodes the other's, and
# getitem agrees with decompression (see .ci/chunk_diff.py).
set -euo pipefail
cd "$(dirname "$0")/.."
python3 -c "import blosc2" 2>/dev/null || python3 -m pip install -q "blosc2==4.14.1"
cargo build --release --lib
python3 .ci/chunk_diff.py "${CARGO_TARGET_DIR:-target}/release/libblosc2.so" "${CHUNK_DIFF_CASES:-3000}" "${CHUNK_DIFF_SEED:-1}"
