#!/usr/bin/env bash
# capi-tests/fields_dump.c and capi-tests/frame_sizes.c built against the
# reference C-Blosc2 3.3.5 (python-blosc2's libblosc2.so): their output must
# be tests/corpus/fields/<name>.expected, the files tests/capi.rs
# (fields_match_3_3_5, frame_sizes_match_3_3_5) compares our library's
# output with. `--update` rewrites those files from the reference run instead.
set -euo pipefail
cd "$(dirname "$0")/.."
python3 -c "import blosc2" 2>/dev/null || python3 -m pip install -q "blosc2==4.14.1"
ref=$(python3 -c "import blosc2, os; print(os.path.dirname(blosc2.__file__))")
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
for name in fields_dump frame_sizes; do
  "${CC:-cc}" -std=c11 -O1 -I "$ref/include" "capi-tests/$name.c" -o "$work/$name" \
    -L "$ref/lib" -lblosc2 "-Wl,-rpath,$ref/lib" -lm -lpthread
  rm -rf "$work/scratch" && mkdir "$work/scratch"
  "$work/$name" "$work/scratch" > "$work/$name.txt"
  expected=tests/corpus/fields/$name.expected
  if [ "${1:-}" = "--update" ]; then
    cp "$work/$name.txt" "$expected"
    echo "updated $expected"
  else
    diff -u "$expected" "$work/$name.txt"
    echo "$name: the reference prints $expected ($(wc -l < "$expected") lines)"
  fi
done
