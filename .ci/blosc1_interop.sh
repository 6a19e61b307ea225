#!/usr/bin/env bash
# libblosc.so.1 (feature abi-blosc1) against the system's c-blosc 1.21
# (Debian's libblosc-dev): the C programs of capi-tests/blosc1 built
# against either blosc.h run on either library, and each library reads the
# chunks the other writes. See tests/capi_blosc1.rs.
#   --install-only   install libblosc-dev if missing, then stop (.ci/run
#                    does this first, so its `cargo test` runs the system
#                    half of tests/capi_blosc1.rs and sets
#                    BLOSC1_SYSTEM_TESTED=1 to skip the second run here).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
if [ ! -e /usr/include/blosc.h ]; then
    sudo=""
    if [ "$(id -u)" != 0 ]; then sudo="sudo"; fi
    $sudo apt-get update -qq
    $sudo apt-get install -y -qq libblosc-dev
fi
if [ "${1:-}" = --install-only ]; then exit 0; fi
# The unit tests behind the feature (1.21's block sizes, Snappy, damaged
# chunks). Same target directory as `cargo test`: the dependencies are
# already built there, only this crate is compiled again with the feature.
cargo test --lib --features abi-blosc1 -- blosc1_abi snappy
if [ "${BLOSC1_SYSTEM_TESTED:-0}" = 1 ]; then exit 0; fi
# Fail instead of skipping when the system library is missing.
BLOSC1_REQUIRE_SYSTEM=1 exec cargo test --test capi_blosc1 -- --nocapture
