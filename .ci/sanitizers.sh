#!/usr/bin/env bash
# The C programs of capi-tests/ under AddressSanitizer + UndefinedBehavior-
# Sanitizer (LeakSanitizer included), then under valgrind memcheck. ASan's
# malloc interposition also checks the library's own heap use (the Rust side
# allocates through libc malloc) and reports its leaks at exit; any report
# fails the step. See tests/capi.rs for BLOSC2_CAPI_SANITIZE and
# BLOSC2_CAPI_WRAPPER.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

if ! command -v valgrind >/dev/null 2>&1; then
    apt-get install -y --no-install-recommends valgrind >/dev/null 2>&1 ||
        { apt-get update >/dev/null && apt-get install -y --no-install-recommends valgrind >/dev/null; }
fi

echo "-- ASan + UBSan + LSan: every C program"
BLOSC2_CAPI_SANITIZE=address,undefined cargo test --test capi

# Valgrind runs programs ~30x slower: roundtrip (every codec over large
# buffers) alone takes ~8 minutes there and schunk_null_args (a NULL sweep
# over every function) a minute, so those two are left to the ASan pass;
# the others take ~2.5 minutes on 2 cores.
echo "-- valgrind memcheck: every C program but roundtrip and schunk_null_args"
BLOSC2_CAPI_WRAPPER="valgrind -q --error-exitcode=1 --leak-check=full --errors-for-leak-kinds=definite" \
    cargo test --test capi -- --skip roundtrip --skip schunk_null_args
echo "-- sanitizers: no reports"
