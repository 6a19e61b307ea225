#!/usr/bin/env bash
# Install and swap-in checks (issue #5):
#   1. cmake -S . -B build && cmake --build build && cmake --install build
#      --prefix P, into a temporary P, and a check of every installed file
#      (stripped, sizes, docs, man page; the DEBUG component);
#   2. capi-tests/cmake_consumer (find_package(Blosc2), one program per
#      imported target) built and run with ctest, and
#      capi-tests/cmake_package_checks (versions and components);
#   3. capi-tests/pkgconfig_consumer built with pkg-config, the shared
#      library and the static one (linked with blosc2.pc's Libs.private only);
#   4. the README's shell example with the installed blosc2 tool, and the
#      tool's frames (filters chosen per chunk, checksums) read by the
#      reference C-Blosc2 3.3.5 (python-blosc2);
#   5. capi-tests/swapin/run.sh against P/lib: programs built against the
#      reference C-Blosc2 3.3.5 run with our libblosc2.so.9.
#   6. the older ABIs: a second install with -DBLOSC2_ABI_V2=ON (and
#      -DBLOSC1_ABI=ON once include/blosc1/blosc.h exists) into P2: the
#      names, links and SONAMEs (readelf -d) of libblosc2.so.7 and
#      libblosc.so.1 next to an unchanged libblosc2.so.9, the headers,
#      `pkg-config blosc2-v2`, and capi-tests/v2/swapin.sh against P2/lib
#      (programs built against the real C-Blosc2 2.23.1). Step 1 checks that
#      the default install has none of them. BLOSC2_INSTALL_OLDER_ABIS=0
#      skips step 6.
#
# cmake's cargo build uses $CARGO_TARGET_DIR (default target/), so it does
# nothing when `cargo build --release` has just run. BLOSC2_INSTALL_KEEP=1
# keeps the temporary directory.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"

# cmake and pkg-config come from the system's packages.
missing_pkgs=()
command -v cmake >/dev/null 2>&1 || missing_pkgs+=(cmake)
command -v pkg-config >/dev/null 2>&1 || missing_pkgs+=(pkg-config)
command -v make >/dev/null 2>&1 || missing_pkgs+=(make)
if [[ ${#missing_pkgs[@]} -gt 0 ]]; then
    echo "install: apt-get install ${missing_pkgs[*]}"
    sudo_cmd=()
    [[ "$(id -u)" -eq 0 ]] || sudo_cmd=(sudo)
    "${sudo_cmd[@]}" apt-get update -qq
    DEBIAN_FRONTEND=noninteractive "${sudo_cmd[@]}" apt-get install -y -qq "${missing_pkgs[@]}" >/dev/null
fi
cmake --version | head -n1

export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$root/target}"
work="$(mktemp -d "${TMPDIR:-/tmp}/blosc2-install.XXXXXX")"
if [[ "${BLOSC2_INSTALL_KEEP:-0}" == 1 ]]; then
    echo "install: work directory kept in $work"
else
    trap 'rm -rf "$work"' EXIT
fi
prefix="$work/prefix"
passed=0
failed=0
fail() {
    echo "install: FAIL $*" >&2
    failed=$((failed + 1))
}
pass() {
    echo "install: ok   $*"
    passed=$((passed + 1))
}

# --- 1. the issue's three commands ------------------------------------------------
echo "== cmake -S . -B build && cmake --build build && cmake --install build --prefix P"
cmake -S "$root" -B "$work/build" >"$work/configure.log" 2>&1 || { cat "$work/configure.log"; exit 1; }
cmake --build "$work/build"
cmake --install "$work/build" --prefix "$prefix" >"$work/install.log"
sed 's/^/  /' "$work/install.log"

for f in lib/libblosc2.so.3.3.5 lib/libblosc2.a include/blosc2.h include/b2nd.h \
    include/blosc2/blosc2-export.h include/blosc2/blosc2-common.h include/blosc2/blosc2-stdio.h \
    include/blosc2/blosc2-recordio.h share/man/man1/blosc2.1 share/bash-completion/completions/blosc2 \
    share/zsh/site-functions/_blosc2 share/fish/vendor_completions.d/blosc2.fish \
    share/doc/blosc2/LICENSE share/doc/blosc2/THIRD-PARTY-NOTICES.md share/doc/blosc2/README.md \
    share/doc/blosc2/CHANGELOG.md \
    include/blosc2/filters-registry.h include/blosc2/codecs-registry.h include/blosc2/tuners-registry.h \
    lib/pkgconfig/blosc2.pc lib/cmake/Blosc2/Blosc2Config.cmake lib/cmake/Blosc2/Blosc2ConfigVersion.cmake \
    lib/cmake/Blosc2/Blosc2Targets.cmake lib/cmake/Blosc2/Blosc2Targets-release.cmake bin/blosc2; do
    if [[ -f "$prefix/$f" && ! -L "$prefix/$f" ]]; then pass "installed $f"; else fail "$f not installed"; fi
done
[[ "$(readlink "$prefix/lib/libblosc2.so.9")" == libblosc2.so.3.3.5 ]] &&
    pass "lib/libblosc2.so.9 -> libblosc2.so.3.3.5" || fail "lib/libblosc2.so.9 is not a link to libblosc2.so.3.3.5"
[[ "$(readlink "$prefix/lib/libblosc2.so")" == libblosc2.so.9 ]] &&
    pass "lib/libblosc2.so -> libblosc2.so.9" || fail "lib/libblosc2.so is not a link to libblosc2.so.9"
if readelf -d "$prefix/lib/libblosc2.so.3.3.5" | grep -q 'SONAME.*\[libblosc2\.so\.9\]'; then
    pass "SONAME libblosc2.so.9"
else
    fail "libblosc2.so.3.3.5 has no SONAME libblosc2.so.9"
fi
cmp -s "$root/include/blosc2.h" "$prefix/include/blosc2.h" && pass "installed blosc2.h is include/blosc2.h" ||
    fail "installed blosc2.h differs from include/blosc2.h"
# Stripped artifacts (issue #33): no debug sections, the shared library
# within 1.5x of the reference's 2.3 MB (python-blosc2 4.14.1's
# libblosc2.so.9: 2268488 bytes), the debug information in .debug files
# installed only with --component DEBUG and found through .gnu_debuglink.
size_of() { stat -c %s "$prefix/$1"; }
for f in lib/libblosc2.so.3.3.5 lib/libblosc2.a bin/blosc2; do
    if readelf -S "$prefix/$f" 2>/dev/null | grep -q '\.debug_info'; then
        fail "$f has debug sections"
    else
        pass "$f stripped: $(size_of "$f") bytes"
    fi
done
so_size="$(size_of lib/libblosc2.so.3.3.5)"
((so_size <= 2268488 * 3 / 2)) && pass "libblosc2.so.3.3.5 is $so_size bytes (at most 1.5 x 2268488)" ||
    fail "libblosc2.so.3.3.5 is $so_size bytes, over 1.5 x the reference's 2268488"
bin_size="$(size_of bin/blosc2)"
((bin_size <= 8000000)) && pass "bin/blosc2 is $bin_size bytes" || fail "bin/blosc2 is $bin_size bytes (over 8 MB)"
[[ ! -e "$prefix/lib/.debug" ]] && pass "no debug files in the default install" || fail "lib/.debug installed by default"
cmake --install "$work/build" --prefix "$work/prefix-debug" --component DEBUG >/dev/null
for f in lib/.debug/libblosc2.so.3.3.5.debug bin/.debug/blosc2.debug; do
    if readelf -S "$work/prefix-debug/$f" 2>/dev/null | grep -q '\.debug_info'; then
        pass "--component DEBUG installs $f"
    else
        fail "--component DEBUG: $f missing or without debug information"
    fi
done
readelf --string-dump=.gnu_debuglink "$prefix/lib/libblosc2.so.3.3.5" | grep -q 'libblosc2\.so\.3\.3\.5\.debug' &&
    pass "libblosc2.so.3.3.5 links to libblosc2.so.3.3.5.debug" || fail "libblosc2.so.3.3.5 has no .gnu_debuglink"
grep -q '^\.TH blosc2 1' "$prefix/share/man/man1/blosc2.1" && pass "man page blosc2(1)" || fail "man page"
for f in lib/libblosc2.so.7 lib/libblosc.so.1 lib/libblosc.so include/v2 include/blosc.h; do
    [[ ! -e "$prefix/$f" ]] && pass "default install has no $f" || fail "default install has $f"
done

# --- 2. CMake consumer --------------------------------------------------------------
echo "== capi-tests/cmake_consumer: find_package(Blosc2 REQUIRED)"
if cmake -S "$root/capi-tests/cmake_consumer" -B "$work/cmake_consumer" -DCMAKE_PREFIX_PATH="$prefix" \
    >"$work/consumer.log" 2>&1 && cmake --build "$work/cmake_consumer" >>"$work/consumer.log" 2>&1; then
    grep 'Blosc2 .* found' "$work/consumer.log" || true
    if ctest --test-dir "$work/cmake_consumer" --output-on-failure; then
        pass "cmake consumer (Blosc2::blosc2, Blosc2::blosc2_shared, Blosc2::blosc2_static)"
    else
        fail "cmake consumer tests"
    fi
    if readelf -d "$work/cmake_consumer/roundtrip_static" | grep -q libblosc2; then
        fail "roundtrip_static (Blosc2::blosc2_static) needs a shared libblosc2"
    else
        pass "Blosc2::blosc2_static links statically"
    fi
    if readelf -d "$work/cmake_consumer/roundtrip_shared" | grep -q 'NEEDED.*\[libblosc2\.so\.9\]'; then
        pass "Blosc2::blosc2_shared links libblosc2.so.9"
    else
        fail "roundtrip_shared (Blosc2::blosc2_shared) does not need libblosc2.so.9"
    fi
else
    cat "$work/consumer.log" >&2
    fail "cmake consumer did not build"
fi

echo "== capi-tests/cmake_package_checks: versions and components"
if cmake -S "$root/capi-tests/cmake_package_checks" -B "$work/cmake_package_checks" \
    -DCMAKE_PREFIX_PATH="$prefix" >"$work/checks.log" 2>&1; then
    grep -E '(ok|FAIL) ' "$work/checks.log" | sed 's/^-- /  /'
    pass "find_package versions (SameMajorVersion), components and targets"
else
    cat "$work/checks.log" >&2
    fail "find_package versions, components and targets"
fi

# --- 3. pkg-config consumer ---------------------------------------------------------
echo "== capi-tests/pkgconfig_consumer: pkg-config --cflags --libs blosc2"
export PKG_CONFIG_PATH="$prefix/lib/pkgconfig${PKG_CONFIG_PATH:+:$PKG_CONFIG_PATH}"
echo "  pkg-config --cflags --libs blosc2: $(pkg-config --cflags --libs blosc2)"
echo "  pkg-config --static --libs blosc2: $(pkg-config --static --libs blosc2)"
[[ "$(pkg-config --modversion blosc2)" == 3.3.5 ]] && pass "pkg-config --modversion blosc2 = 3.3.5" ||
    fail "pkg-config --modversion blosc2 = $(pkg-config --modversion blosc2)"
mkdir -p "$work/pkgconfig_consumer"
cp "$root/capi-tests/pkgconfig_consumer/main.c" "$root/capi-tests/pkgconfig_consumer/Makefile" \
    "$work/pkgconfig_consumer/"
if make -C "$work/pkgconfig_consumer" check; then
    pass "pkg-config consumer, shared and static"
else
    fail "pkg-config consumer"
fi
if [[ -f "$work/pkgconfig_consumer/roundtrip_static" ]] &&
    ! readelf -d "$work/pkgconfig_consumer/roundtrip_static" | grep -q libblosc2; then
    pass "libblosc2.a links with Libs.private only: $(pkg-config --variable=libdir blosc2)/libblosc2.a" \
        "$(pkg-config --static --libs-only-l blosc2 | sed 's/-lblosc2 *//')"
else
    fail "static link with Libs.private"
fi

# --- 4. the shell (README) -----------------------------------------------------------
echo "== README: blosc2 demo --size 1"
if "$prefix/bin/blosc2" demo --size 1 >"$work/demo.log" 2>&1; then
    head -n 4 "$work/demo.log" | sed 's/^/  /'
    pass "installed blosc2 tool"
else
    cat "$work/demo.log" >&2
    fail "installed blosc2 tool"
fi

echo "== the installed tool's frames (filters chosen per chunk, checksums) read by the reference"
py="${PYTHON:-python3}"
if ! "$py" -c "import blosc2" 2>/dev/null; then
    "$py" -m pip install --quiet "blosc2==4.14.1" || "$py" -m pip install --quiet --user "blosc2==4.14.1" || true
fi
"$py" - "$work/tool" >"$work/tool_data.log" 2>&1 <<'PYEOF' || true
import os, sys
import numpy as np
d = sys.argv[1]
os.makedirs(d, exist_ok=True)
rng = np.random.default_rng(5)
t = np.linspace(0, 100, 700_000)
open(f"{d}/floats.f64", "wb").write((np.sin(t) * 50 + rng.normal(0, 0.01, t.size)).astype("<f8").tobytes())
open(f"{d}/ints.i32", "wb").write(np.cumsum(rng.integers(0, 9, 1_500_000)).astype("<i4").tobytes())
words = ["blosc", "frame", "chunk", "<p>", "</p>\n", "data", "the"]
open(f"{d}/page.html", "w").write(" ".join(words[i % 7] for i in rng.integers(0, 7, 900_000)))
PYEOF
tool_ok=1
for f in floats.f64 ints.i32 page.html; do
    if ! "$prefix/bin/blosc2" compress -q --chunksize 1M "$work/tool/$f" "$work/tool/$f.b2frame"; then
        tool_ok=0
    fi
done
if ((tool_ok)) && "$py" - "$work/tool" <<'PYEOF'; then
import sys
import blosc2
d = sys.argv[1]
for f in ["floats.f64", "ints.i32", "page.html"]:
    s = blosc2.open(f"{d}/{f}.b2frame")
    data = open(f"{d}/{f}", "rb").read()
    assert s[:] == data, f"{f}: the reference decodes other bytes"
    sums = s.vlmeta["chunk_checksums"]
    assert sums["algorithm"] == "xxh3-64" and len(sums["chunks"]) == s.nchunks, f"{f}: {sums}"
    print(f"  {f}: {s.nchunks} chunks, {len(data)} bytes read back by C-Blosc2 3.3.5, checksums vlmetalayer decoded")
PYEOF
    pass "the reference C-Blosc2 reads the tool's frames and their checksums"
else
    cat "$work/tool_data.log" >&2
    fail "the reference C-Blosc2 on the tool's frames"
fi

# --- 5. swap-in against the reference -------------------------------------------------
echo "== capi-tests/swapin/run.sh $prefix/lib"
if "$root/capi-tests/swapin/run.sh" "$prefix/lib"; then
    pass "swap-in"
else
    fail "swap-in"
fi

# --- 6. the older ABIs ------------------------------------------------------------------
# link_to PATH TARGET: PATH is a symlink to TARGET.
link_to() {
    [[ -L "$prefix2/$1" && "$(readlink "$prefix2/$1")" == "$2" ]] && pass "$1 -> $2" || fail "$1 is not a link to $2"
}
# soname_of PATH SONAME: PATH is a regular file with that SONAME.
soname_of() {
    if [[ -f "$prefix2/$1" && ! -L "$prefix2/$1" ]] &&
        readelf -d "$prefix2/$1" | grep -q "SONAME.*\[${2//./\\.}\]"; then
        pass "$1 has SONAME $2"
    else
        fail "$1 is missing or has no SONAME $2"
    fi
}
if [[ "${BLOSC2_INSTALL_OLDER_ABIS:-1}" != 0 ]]; then
    # The dev profile reuses the debug builds `cargo test` made in
    # $CARGO_TARGET_DIR/abi-v2 and abi-blosc1 (tests/capi_v2.rs,
    # tests/capi_blosc1.rs): names, links and SONAMEs do not depend on it,
    # and two more release builds would cost CI ~10 minutes.
    abi_opts=(-DBLOSC2_OLDER_ABIS_PROFILE=dev -DBLOSC2_ABI_V2=ON)
    [[ -f "$root/include/blosc1/blosc.h" ]] && abi_opts+=(-DBLOSC1_ABI=ON)
    echo "== cmake ${abi_opts[*]} && cmake --build && cmake --install --prefix P2"
    prefix2="$work/prefix-abis"
    cmake -S "$root" -B "$work/build-abis" "${abi_opts[@]}" >"$work/configure-abis.log" 2>&1 ||
        { cat "$work/configure-abis.log"; exit 1; }
    cmake --build "$work/build-abis"
    cmake --install "$work/build-abis" --prefix "$prefix2" >"$work/install-abis.log"
    sed 's/^/  /' "$work/install-abis.log"
    soname_of lib/libblosc2.so.3.3.5 libblosc2.so.9
    link_to lib/libblosc2.so.9 libblosc2.so.3.3.5
    link_to lib/libblosc2.so libblosc2.so.9
    soname_of lib/libblosc2.so.2.23.1 libblosc2.so.7
    link_to lib/libblosc2.so.7 libblosc2.so.2.23.1
    link_to lib/blosc2-v2/libblosc2.so ../libblosc2.so.7
    cmp -s "$root/include/blosc2.h" "$prefix2/include/blosc2.h" && pass "include/blosc2.h is still 3.3's" ||
        fail "include/blosc2.h is not 3.3's"
    diff -r "$root/include/v2" "$prefix2/include/v2" >/dev/null && pass "include/v2 installed" ||
        fail "include/v2 differs from the source's"
    pc_v2="$(PKG_CONFIG_PATH="$prefix2/lib/pkgconfig" pkg-config --modversion blosc2-v2 || true)"
    [[ "$pc_v2" == 2.23.1 ]] && pass "pkg-config --modversion blosc2-v2 = 2.23.1" ||
        fail "pkg-config --modversion blosc2-v2 = '$pc_v2'"
    # A 2.23 program built with pkg-config links libblosc2.so.7 and runs.
    # shellcheck disable=SC2046
    if cc -std=c11 -O1 -I"$root/capi-tests" -o "$work/schunk_meta_v2" "$root/capi-tests/v2/schunk_meta.c" \
        $(PKG_CONFIG_PATH="$prefix2/lib/pkgconfig" pkg-config --cflags --libs blosc2-v2) &&
        readelf -d "$work/schunk_meta_v2" | grep -q 'NEEDED.*\[libblosc2\.so\.7\]' &&
        LD_LIBRARY_PATH="$prefix2/lib" "$work/schunk_meta_v2" >/dev/null; then
        pass "pkg-config blosc2-v2 consumer needs libblosc2.so.7 and runs"
    else
        fail "pkg-config blosc2-v2 consumer"
    fi
    if [[ -f "$root/include/blosc1/blosc.h" ]]; then
        soname_of lib/libblosc.so.1.21.3 libblosc.so.1
        link_to lib/libblosc.so.1 libblosc.so.1.21.3
        link_to lib/libblosc.so libblosc.so.1
        cmp -s "$root/include/blosc1/blosc.h" "$prefix2/include/blosc.h" && pass "include/blosc.h installed" ||
            fail "include/blosc.h differs from include/blosc1/blosc.h"
    fi
    echo "== capi-tests/v2/swapin.sh $prefix2/lib"
    if "$root/capi-tests/v2/swapin.sh" "$prefix2/lib"; then
        pass "2.23 swap-in"
    else
        fail "2.23 swap-in"
    fi
fi

echo "install: $passed passed, $failed failed"
[[ $failed -eq 0 ]]
