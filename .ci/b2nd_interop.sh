#!/usr/bin/env bash
# b2nd interop with the reference C-Blosc2 3.3.5 (python-blosc2 4.14.1):
# the same scenarios run through the b2nd C API of our library and of the
# reference; python-blosc2 must open every array we write with the right
# shape, chunks, blocks, dtype and content, in-memory frames must be byte
# for byte the reference's, and we must read every array it writes. See
# b2nd_interop.py.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
py="${PYTHON:-python3}"
if ! "$py" -c "import blosc2" >/dev/null 2>&1; then
    "$py" -m pip install --quiet "blosc2==4.14.1" || "$py" -m pip install --quiet --user "blosc2==4.14.1"
fi
exec "$py" "$root/.ci/b2nd_interop.py" "$@"
