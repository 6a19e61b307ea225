#!/usr/bin/env bash
# Chunks we write for inputs 3.3.5 cannot round-trip must decode with both.
set -euo pipefail
cd "$(dirname "$0")/.."
python3 -c "import blosc2" 2>/dev/null || python3 -m pip install -q "blosc2==4.14.1"
cargo build --release --lib
python3 .ci/known_bugs_interop.py "${CARGO_TARGET_DIR:-target}/release/libblosc2.so"
