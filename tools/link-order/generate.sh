#!/bin/sh
# Regenerate tools/link-order/hot-symbols.txt, the functions a typical C
# program runs in libblosc2.so.9, which build.rs hands to the linker so
# that they sit together at the start of .text (see build.rs). Run after
# renaming or moving hot functions, or on a new Rust toolchain; the list
# holds patterns free of symbol hashes, and a pattern that matches nothing
# is ignored by the linker, so an old list only costs memory, never a build.
#
# Needs valgrind (callgrind), a C compiler and python3. `--check` prints
# how many listed names the current release build lacks, instead.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
cd "$root"
lib=$(realpath -m "${CARGO_TARGET_DIR:-target}/release/libblosc2.so")
if [ "${1:-}" = "--check" ]; then
  cargo build --release --lib
  exec python3 "$here/hot_symbols.py" --check "$lib" "$here/hot-symbols.txt"
fi
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
# Profiled without the order (valgrind names no function placed outside
# .text); the patterns do not depend on the build. Rebuilt with it at the end.
BLOSC2_LINK_ORDER=off cargo build --release --lib
cp "$lib" "$work/libblosc2.so.9"
lib="$work/libblosc2.so.9"
cc -O2 -o "$work/train" "$here/train.c" -Iinclude -L"$work" -l:libblosc2.so.9 -lm -Wl,-rpath,"$work"
# The round trip's profile in two parts: up to its peak of memory (the
# first blosc2_schunk_free, roundtrip.cg.1), then the teardown, whose code
# is faulted in only once the chunks are freed, so it goes after. The
# harness's other round trips that peak before any teardown come next, each
# adding the functions the ones before did not run, so that each finds its
# own code in one run after the common code: contexts, python-blosc2's
# super-chunk, then Zstd level 1 (up to its peak, zstd.cg.1).
(cd "$work" && valgrind -q --tool=callgrind --demangle=no --dump-before=blosc2_schunk_free \
  --callgrind-out-file="$work/roundtrip.cg" ./train roundtrip)
(cd "$work" && valgrind -q --tool=callgrind --demangle=no --callgrind-out-file="$work/contexts.cg" ./train contexts)
(cd "$work" && valgrind -q --tool=callgrind --demangle=no --callgrind-out-file="$work/python.cg" ./train python)
(cd "$work" && valgrind -q --tool=callgrind --demangle=no --dump-before=blosc2_schunk_free \
  --callgrind-out-file="$work/zstd.cg" ./train zstd)
# The frame round trips next, whole: each one's peak comes after a
# super-chunk was freed, so its teardown code is resident at the peak.
(cd "$work" && valgrind -q --tool=callgrind --demangle=no --callgrind-out-file="$work/frames.cg" ./train frames)
(cd "$work" && valgrind -q --tool=callgrind --demangle=no --callgrind-out-file="$work/extras.cg" ./train extras)
python3 "$here/hot_symbols.py" "$lib" "$work/roundtrip.cg.1" "$work/contexts.cg" "$work/python.cg" \
  "$work/zstd.cg.1" "$work/frames.cg" "$work/roundtrip.cg" "$work/zstd.cg" "$work/extras.cg" \
  > "$here/hot-symbols.txt"
echo "$(wc -l < "$here/hot-symbols.txt") functions in $here/hot-symbols.txt"
cargo build --release --lib
