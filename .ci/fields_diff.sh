#!/usr/bin/env bash
# capi-tests/fields_dump.c built against the reference C-Blosc2 3.3.5
# (python-blosc2's libblosc2.so): its output must be
# tests/corpus/fields/fields_dump.expected, the file tests/capi.rs
# (fields_match_3_3_5) compares our library's output with.
# `--update` rewrites that file from the reference run instead.
set -euo pipefail
cd "$(dirname "$0")/.."
python3 -c "import blosc2" 2>/dev/null || python3 -m pip install -q "blosc2==4.14.1"
ref=$(python3 -c "import blosc2, os; print(os.path.dirname(blosc2.__file__))")
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
"${CC:-cc}" -std=c11 -O1 -I "$ref/include" capi-tests/fields_dump.c -o "$work/fields_dump" \
  -L "$ref/lib" -lblosc2 "-Wl,-rpath,$ref/lib" -lm -lpthread
mkdir "$work/scratch"
"$work/fields_dump" "$work/scratch" > "$work/out.txt"
expected=tests/corpus/fields/fields_dump.expected
if [ "${1:-}" = "--update" ]; then
  cp "$work/out.txt" "$expected"
  echo "updated $expected"
else
  diff -u "$expected" "$work/out.txt"
  echo "fields_dump: the reference prints $expected ($(wc -l < "$expected") lines)"
fi
