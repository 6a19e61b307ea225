#!/usr/bin/env bash
# Frames written through our C ABI (a C program built against
# include/blosc2.h and libblosc2.so) must open in the reference C-Blosc2
# 3.3.5 (python-blosc2 4.14.1) with the same content, frames the reference
# writes must survive edits through our C ABI, and the super-chunk C tests
# must pass against the reference too. See capi_frames_interop.py.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
py="${PYTHON:-python3}"
if ! "$py" -c "import blosc2" >/dev/null 2>&1; then
    "$py" -m pip install --quiet "blosc2==4.14.1" || "$py" -m pip install --quiet --user "blosc2==4.14.1"
fi
exec "$py" "$root/.ci/capi_frames_interop.py" "$@"
