#!/usr/bin/env bash
# Swap-in check of the 2.23 ABI: the programs of capi-tests/v2 compiled and
# linked against the real C-Blosc2 2.23.1 (headers and libblosc2.so.7 of
# the python-blosc2 4.1.2 wheel, which bundles v2.23.1) run unchanged with
# our libblosc2.so.7 put in its place through LD_LIBRARY_PATH.
#
#   capi-tests/v2/swapin.sh [DIR]
#
# DIR holds our libblosc2.so.7 (e.g. an install prefix's lib/); without it,
# `cargo build --lib --features abi-v2` into $CARGO_TARGET_DIR/abi-v2
# (default target/abi-v2) and that library.
#
# Runs: layout.c, b2nd_fields.c and schunk_meta.c on both libraries;
# schunk_meta.c writes a frame with each and read_frame.c reads it with the
# other; read_frame.c reads the reference 3.3.5 frames of tests/corpus with
# ours. The wheel is
# downloaded once with pip into $BLOSC2_V2_REFERENCE (default
# $CARGO_TARGET_DIR/abi-v2-reference). The line "swapin-v2: N passed, N
# failed" sums the runs up.
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/../.." && pwd)"
py="${PYTHON:-python3}"
cc="${CC:-cc}"
target_dir="${CARGO_TARGET_DIR:-$root/target}"
refdir="${BLOSC2_V2_REFERENCE:-$target_dir/abi-v2-reference}"

# --- the reference: C-Blosc2 2.23.1 from the python-blosc2 4.1.2 wheel ----------
if [[ ! -e "$refdir/blosc2/lib/libblosc2.so.7" ]]; then
    echo "swapin-v2: downloading the blosc2==4.1.2 wheel (C-Blosc2 2.23.1)"
    mkdir -p "$refdir/wheel"
    "$py" -m pip download --quiet --no-deps --only-binary=:all: -d "$refdir/wheel" "blosc2==4.1.2"
    "$py" -m zipfile -e "$refdir"/wheel/blosc2-4.1.2-*.whl "$refdir"
fi
ref_lib="$refdir/blosc2/lib"
ref_inc="$refdir/blosc2/include"
grep -q '#define BLOSC2_VERSION_STRING   "2.23.1"' "$ref_inc/blosc2.h" ||
    { echo "swapin-v2: $ref_inc/blosc2.h is not C-Blosc2 2.23.1" >&2; exit 2; }

work="$(mktemp -d "${TMPDIR:-/tmp}/blosc2-swapin-v2.XXXXXX")"
if [[ "${SWAPIN_KEEP:-0}" == 1 ]]; then
    echo "swapin-v2: work directory kept in $work"
else
    trap 'rm -rf "$work"' EXIT
fi

# --- ours ----------------------------------------------------------------------------
if [[ $# -ge 1 ]]; then
    ours="$(cd "$1" && pwd)"
else
    CARGO_TARGET_DIR="$target_dir/abi-v2" cargo build --quiet --lib --features abi-v2 --manifest-path "$root/Cargo.toml"
    ours="$work/ours"
    mkdir -p "$ours"
    ln -s "$target_dir/abi-v2/debug/libblosc2.so" "$ours/libblosc2.so.7"
fi
soname="$(readelf -d "$ours/libblosc2.so.7" | sed -n 's/.*(SONAME).*\[\(.*\)\]/\1/p')"
if [[ "$soname" != "libblosc2.so.7" ]]; then
    echo "swapin-v2: $ours/libblosc2.so.7 has SONAME '$soname', not libblosc2.so.7" >&2
    exit 1
fi
echo "swapin-v2: reference $ref_lib/libblosc2.so.7"
echo "swapin-v2: ours      $(readlink -f "$ours/libblosc2.so.7")"

# --- build against the reference only -------------------------------------------------
for name in layout schunk_meta b2nd_fields read_frame; do
    "$cc" -std=c11 -O1 -g -Wall -Wextra -Wno-unused-function -I"$ref_inc" -I"$root/capi-tests" \
        -o "$work/$name" "$here/$name.c" -L"$ref_lib" -lblosc2
    readelf -d "$work/$name" | grep -q 'NEEDED.*\[libblosc2\.so\.7\]' ||
        { echo "swapin-v2: $name does not need libblosc2.so.7" >&2; exit 1; }
done

passed=0
failed=0
# run LABEL LIBDIR PROGRAM ARGS...: one run, counted.
run() {
    local label="$1" libdir="$2"
    shift 2
    local log="$work/$label.log"
    if LD_LIBRARY_PATH="$libdir" timeout 300 "$work/$1" "${@:2}" >"$log" 2>&1; then
        passed=$((passed + 1))
        echo "swapin-v2: ok   $label"
    else
        failed=$((failed + 1))
        echo "swapin-v2: FAIL $label" >&2
        tail -n 25 "$log" >&2
    fi
}

metas=(shape=93030405 answer=2a label=a27632)
run layout-reference "$ref_lib" layout
run layout-ours "$ours" layout
run b2nd_fields-reference "$ref_lib" b2nd_fields
run b2nd_fields-ours "$ours" b2nd_fields
run schunk_meta-reference-writes "$ref_lib" schunk_meta "$work/ref.b2frame"
run schunk_meta-ours-writes "$ours" schunk_meta "$work/ours.b2frame"
run read_frame-ours-reads-reference "$ours" read_frame "$work/ref.b2frame" 5 100000 "${metas[@]}"
run read_frame-reference-reads-ours "$ref_lib" read_frame "$work/ours.b2frame" 5 100000 "${metas[@]}"

# The reference 3.3.5 frames of tests/corpus (but the VL-block one, a 3.x format).
while read -r file args; do
    # shellcheck disable=SC2086
    run "read_frame-ours-$(basename "$file")" "$ours" read_frame "$root/tests/corpus/$file" $args
done < <("$py" - "$root/tests/corpus/manifest.json" <<'EOF'
import json, sys
for e in json.load(open(sys.argv[1]))["entries"]:
    f = e["file"]
    if f.startswith("frames/") and "vlblocks" not in f and e.get("expected") == "ok":
        metas = " ".join(f"{k}={v['content_hex']}" for k, v in e.get("metalayers", {}).items())
        print(f, e["nchunks"], e["nbytes"], metas)
EOF
)

echo "swapin-v2: $passed passed, $failed failed"
[[ $failed -eq 0 ]]
