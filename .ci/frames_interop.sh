#!/usr/bin/env bash
# Frames interop with the reference C-Blosc2 3.3.5 (python-blosc2 4.14.1):
# the reference must read every frame our engine writes (in memory, on
# disk, sparse, edited, after crashes), produce the same bytes for the same
# operations, and we must read the frames it edits. See frames_interop.py.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
py="${PYTHON:-python3}"
if ! "$py" -c "import blosc2" >/dev/null 2>&1; then
    "$py" -m pip install --quiet "blosc2==4.14.1" || "$py" -m pip install --quiet --user "blosc2==4.14.1"
fi
exec "$py" "$root/.ci/frames_interop.py" "$@"
