#!/usr/bin/env bash
# The reference C-Blosc2 3.3.5 (python-blosc2 4.14.1) reads the frames
# `blosc2 compress` writes with plugin codecs and filters (ZFP as 1-D b2nd
# arrays, INT_TRUNC, BYTEDELTA). See cli_plugins_interop.py.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
py="${PYTHON:-python3}"
if ! "$py" -c "import blosc2" >/dev/null 2>&1; then
    "$py" -m pip install --quiet "blosc2==4.14.1" || "$py" -m pip install --quiet --user "blosc2==4.14.1"
fi
if [ ! -x "$root/target/debug/blosc2" ]; then
    (cd "$root" && cargo build --bin blosc2)
fi
exec "$py" "$root/.ci/cli_plugins_interop.py" "$@"
