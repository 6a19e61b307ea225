#!/usr/bin/env bash
# On one thread, LZ4HC levels 1-9, zstd and zlib write the reference's bytes.
set -euo pipefail
cd "$(dirname "$0")/.."
python3 -c "import blosc2" 2>/dev/null || python3 -m pip install -q "blosc2==4.14.1"
cargo build --release --lib
python3 .ci/identity_interop.py "${CARGO_TARGET_DIR:-target}/release/libblosc2.so"
