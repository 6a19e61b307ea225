#!/usr/bin/env bash
# Interop check: the real C-Blosc2 3.3.5 (from python-blosc2 4.14.1) must
# decode every chunk our engine writes for the conformance corpus.
#
#   .ci/interop.sh            # build, write, verify; exit 1 on any failure
#
# Environment: PYTHON (default python3), INTEROP_KEEP=1 keeps the output
# directory, INTEROP_ONLY=id,id restricts to some entries,
# CARGO_PROFILE_ARGS (default "--profile test") selects the build profile,
# CARGO_TARGET_DIR (default target/interop) the build directory: a separate
# one, because the lib's cdylib/staticlib crate types give its rlib an
# unhashed file name that builds with another panic strategy overwrite.
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
corpus="$root/tests/corpus"
py="${PYTHON:-python3}"
verifier="$corpus/verify_with_reference.py"
[[ -f "$verifier" ]] || { echo "interop: $verifier not found" >&2; exit 2; }

if ! "$py" -c "import blosc2" >/dev/null 2>&1; then
    echo "interop: installing blosc2==4.14.1"
    "$py" -m pip install --quiet "blosc2==4.14.1" ||
        "$py" -m pip install --quiet --user "blosc2==4.14.1"
fi
refver="$("$py" -c "import blosc2; print(blosc2.__version__)")"
if [[ "$refver" != "4.14.1" ]]; then
    echo "interop: warning: python-blosc2 is $refver, the corpus reference is 4.14.1" >&2
fi

out="$(mktemp -d "${TMPDIR:-/tmp}/blosc2-interop.XXXXXX")"
if [[ "${INTEROP_KEEP:-0}" == 1 ]]; then
    echo "interop: output kept in $out"
else
    trap 'rm -rf "$out"' EXIT
fi

only_args=()
if [[ -n "${INTEROP_ONLY:-}" ]]; then
    only_args=(--only "$INTEROP_ONLY")
fi
# shellcheck disable=SC2086
(cd "$root" && cargo run --quiet ${CARGO_PROFILE_ARGS:---profile test} --example write_chunks -- "$out" ${only_args[@]+"${only_args[@]}"})

set +e
"$py" "$verifier" --expect "$out/manifest.json" >"$out/verify.log" 2>&1
vrc=$?
set -e

grep -E '^FAIL' "$out/verify.log" || true
summary="$(grep -E '^[0-9]+ passed, [0-9]+ failed$' "$out/verify.log" | tail -n1 || true)"
if [[ -z "$summary" ]]; then
    echo "interop: the verifier did not finish (exit $vrc):" >&2
    tail -n 20 "$out/verify.log" >&2
    exit 1
fi
read -r npass _ nfail _ <<<"$summary"
grep -E '^reference:' "$out/verify.log" || true
echo "interop: $npass passed, $nfail failed"
if [[ "$nfail" -ne 0 || "$vrc" -ne 0 ]]; then
    exit 1
fi
