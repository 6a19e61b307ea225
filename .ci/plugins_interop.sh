#!/usr/bin/env bash
# Plugin interop with the reference C-Blosc2 3.3.5 (python-blosc2 4.14.1):
# the reference decodes every plugin-corpus entry our library writes, user
# codecs and filters registered in both libraries exchange chunks and b2nd
# frames both ways, and registration codes and refusals match. See
# plugins_interop.py.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
py="${PYTHON:-python3}"
if ! "$py" -c "import blosc2" >/dev/null 2>&1; then
    "$py" -m pip install --quiet "blosc2==4.14.1" || "$py" -m pip install --quiet --user "blosc2==4.14.1"
fi
exec "$py" "$root/.ci/plugins_interop.py" "$@"
