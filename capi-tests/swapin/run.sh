#!/usr/bin/env bash
# Swap-in check: C programs compiled and linked against the reference
# C-Blosc2 3.3.5 (headers and libblosc2.so.9 of the python-blosc2 4.14.1
# wheel) run unchanged with our libblosc2.so.9 put in its place through
# LD_LIBRARY_PATH.
#
#   capi-tests/swapin/run.sh [DIR]
#
# DIR holds our libblosc2.so.9 (e.g. an install prefix's lib/); without it,
# a temporary directory with a link to $CARGO_TARGET_DIR/release/libblosc2.so
# (default target/release; run `cargo build --release` first).
#
# Each program (swapin_chunks.c: chunks; swapin_schunk.c: super-chunks,
# frames on disk, metalayers) runs four times: the reference writes, we
# write, we read what the reference wrote, the reference reads what we wrote.
# Every run also checks what it wrote itself. A function of the reference's
# that a program uses and our library lacks fails that program's four runs.
# The line "swapin: N passed, N failed" sums the runs up.
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/../.." && pwd)"
py="${PYTHON:-python3}"
cc="${CC:-cc}"

if ! "$py" -c "import blosc2" >/dev/null 2>&1; then
    echo "swapin: installing blosc2==4.14.1 (the reference C-Blosc2 3.3.5)"
    "$py" -m pip install --quiet "blosc2==4.14.1" || "$py" -m pip install --quiet --user "blosc2==4.14.1"
fi
refdir="$("$py" -c "import blosc2, os; print(os.path.dirname(blosc2.__file__))")"
ref_lib="$refdir/lib"
ref_inc="$refdir/include"
for f in "$ref_lib/libblosc2.so.9" "$ref_inc/blosc2.h"; do
    [[ -e "$f" ]] || { echo "swapin: reference file $f not found" >&2; exit 2; }
done

work="$(mktemp -d "${TMPDIR:-/tmp}/blosc2-swapin.XXXXXX")"
if [[ "${SWAPIN_KEEP:-0}" == 1 ]]; then
    echo "swapin: work directory kept in $work"
else
    trap 'rm -rf "$work"' EXIT
fi

if [[ $# -ge 1 ]]; then
    ours="$(cd "$1" && pwd)"
else
    built="${CARGO_TARGET_DIR:-$root/target}/release/libblosc2.so"
    [[ -f "$built" ]] || { echo "swapin: $built not found: run cargo build --release" >&2; exit 2; }
    ours="$work/ours"
    mkdir -p "$ours"
    ln -s "$(cd "$(dirname "$built")" && pwd)/libblosc2.so" "$ours/libblosc2.so.9"
fi
[[ -e "$ours/libblosc2.so.9" ]] || { echo "swapin: $ours/libblosc2.so.9 not found" >&2; exit 2; }
soname="$(readelf -d "$ours/libblosc2.so.9" | sed -n 's/.*(SONAME).*\[\(.*\)\]/\1/p')"
if [[ "$soname" != "libblosc2.so.9" ]]; then
    echo "swapin: $ours/libblosc2.so.9 has SONAME '$soname', not libblosc2.so.9" >&2
    exit 1
fi
echo "swapin: reference $ref_lib/libblosc2.so.9"
echo "swapin: ours      $(readlink -f "$ours/libblosc2.so.9")"

passed=0
failed=0
failures=()

# Built against the reference only: its headers, its library, no rpath.
build() {
    local name="$1"
    "$cc" -O1 -g -Wall -Wextra -Wno-unused-function -Werror -I"$ref_inc" \
        -o "$work/$name" "$here/$name.c" -L"$ref_lib" -lblosc2 -ldl
    if ! readelf -d "$work/$name" | grep -q 'NEEDED.*\[libblosc2\.so\.9\]'; then
        echo "swapin: $name does not need libblosc2.so.9" >&2
        exit 1
    fi
}

# The blosc2 functions a program needs that our library does not define.
missing_symbols() {
    local name="$1"
    comm -23 \
        <(nm -u "$work/$name" | awk '{print $2}' | sed 's/@.*//' | grep -E '^(blosc|b2nd)' | sort -u) \
        <(nm -D --defined-only "$ours/libblosc2.so.9" | awk '{print $3}' | sed 's/@.*//' | sort -u)
}

# run LABEL LIBDIR PROGRAM ARGS...: one run, counted.
run() {
    local label="$1" libdir="$2"
    shift 2
    local resolved
    resolved="$(LD_LIBRARY_PATH="$libdir" ldd "$work/$1" | awk '/libblosc2\.so\.9/ {print $3}')"
    if [[ "$(readlink -f "$resolved")" != "$(readlink -f "$libdir/libblosc2.so.9")" ]]; then
        echo "swapin: FAIL $label: libblosc2.so.9 resolves to '$resolved', not $libdir" >&2
        failed=$((failed + 1))
        failures+=("$label")
        return
    fi
    local log="$work/$label.log"
    if LD_LIBRARY_PATH="$libdir" timeout 300 "$work/$1" "${@:2}" >"$log" 2>&1; then
        passed=$((passed + 1))
        echo "swapin: ok   $label ($(grep -E '^(read|write):' "$log" | head -n1))"
    else
        failed=$((failed + 1))
        failures+=("$label")
        echo "swapin: FAIL $label" >&2
        tail -n 25 "$log" >&2
    fi
}

# check PROGRAM: the four runs.
check() {
    local name="$1"
    mkdir -p "$work/$name.ref" "$work/$name.ours"
    run "$name-reference-writes" "$ref_lib" "$name" write "$work/$name.ref"
    run "$name-ours-writes" "$ours" "$name" write "$work/$name.ours"
    run "$name-ours-reads-reference" "$ours" "$name" read "$work/$name.ref"
    run "$name-reference-reads-ours" "$ref_lib" "$name" read "$work/$name.ours"
}

# check_program PROGRAM: build, refuse if our library lacks a function it
# uses (named in the report), then the four runs.
check_program() {
    local name="$1" missing
    build "$name"
    missing="$(missing_symbols "$name")"
    if [[ -n "$missing" ]]; then
        echo "swapin: FAIL our library lacks functions $name uses:" $missing >&2
        failed=$((failed + 4))
        failures+=("$name (missing symbols)")
        return
    fi
    check "$name"
}

# Chunks.
check_program swapin_chunks
if [[ -d "$work/swapin_chunks.ours" ]]; then
    same=0
    total=0
    for f in "$work/swapin_chunks.ref"/*.b2; do
        total=$((total + 1))
        if cmp -s "$f" "$work/swapin_chunks.ours/$(basename "$f")"; then
            same=$((same + 1))
        fi
    done
    echo "swapin: $same of $total chunks are byte-identical to the reference's (not required: zlib-ng" \
        "and LZ4HC differ, and the reference's own bytes vary between runs for a few chunks)"
fi

# Super-chunks, frames on disk, metalayers.
check_program swapin_schunk

echo "swapin: $passed passed, $failed failed"
if [[ $failed -ne 0 ]]; then
    printf 'swapin: failed: %s\n' "${failures[@]}" >&2
    exit 1
fi
