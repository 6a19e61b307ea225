#!/usr/bin/env bash
# The size and speed table of the `blosc2` tool against zstd -3, gzip -6 and
# the tool's old default (shuffle at type size 8), on the files given
# (issue 33's closing note). Not run by CI: speeds are machine-dependent.
#
#   cargo build --release --bin blosc2
#   tools/size_table.sh FILE...        # BLOSC2=path/to/blosc2 to pick another build
#   tools/size_table.sh --make DIR     # writes DIR/table.csv and DIR/floats.f64 to try
#
# Every tool runs on one thread; each time is the best of three runs.
# Sizes are bytes; speeds MB/s of input (1 MB = 10^6 bytes).
set -euo pipefail

if [[ "${1:-}" == --make ]]; then
    dir=$2
    mkdir -p "$dir"
    python3 - "$dir" <<'PY'
import sys
import numpy as np
d = sys.argv[1]
rng = np.random.default_rng(33)
n = 400_000
t = np.datetime64("2024-01-01T00:00") + np.arange(n) * np.timedelta64(60, "s")
temp = 12 + 8 * np.sin(np.arange(n) * 2 * np.pi / 1440) + rng.normal(0, 0.3, n)
hum = np.clip(60 + np.cumsum(rng.normal(0, 0.2, n)), 5, 100)
wind = np.abs(rng.normal(4, 2, n))
station = rng.choice(["north", "south", "harbour", "airport"], n)
with open(f"{d}/table.csv", "w") as f:
    f.write("time,station,temperature_c,humidity_pct,wind_m_s,rain_mm\n")
    rain = np.where(rng.random(n) < 0.05, rng.exponential(1.5, n), 0.0)
    for row in zip(t.astype(str), station, temp, hum, wind, rain):
        f.write("%s,%s,%.2f,%.1f,%.2f,%.1f\n" % row)
x = np.linspace(0, 400, 4_000_000)
(np.sin(x) * 50 + 0.002 * x**2 + rng.normal(0, 0.01, x.size)).astype("<f8").tofile(f"{d}/floats.f64")
PY
    ls -l "$dir"
    exit 0
fi

tool=${BLOSC2:-target/release/blosc2}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# best_of_3 CMD...: the shortest wall time of three runs, in seconds.
best_of_3() {
    local best="" t0 t1 dt
    for _ in 1 2 3; do
        t0=$(date +%s%N)
        "$@" >/dev/null 2>&1
        t1=$(date +%s%N)
        dt=$(((t1 - t0) / 1000))
        if [[ -z "$best" ]] || ((dt < best)); then best=$dt; fi
    done
    echo "$best"
}
mbs() { awk -v n="$1" -v us="$2" 'BEGIN { printf "%.0f", n / (us > 0 ? us : 1) }'; }

echo "| file | bytes | method | compressed | ratio | compress MB/s | decompress MB/s |"
echo "| --- | ---: | --- | ---: | ---: | ---: | ---: |"
for f in "$@"; do
    n=$(stat -c %s "$f")
    row() { # method out compress-cmd decompress-cmd
        local c d size
        c=$(best_of_3 bash -c "$3")
        size=$(stat -c %s "$2")
        d=$(best_of_3 bash -c "$4")
        printf "| %s | %s | %s | %s | %.2f | %s | %s |\n" "$(basename "$f")" "$n" "$1" "$size" \
            "$(awk -v a="$n" -v b="$size" 'BEGIN { print a / b }')" "$(mbs "$n" "$c")" "$(mbs "$n" "$d")"
    }
    b="$tool compress -q -f -n 1"
    row "blosc2 (default: auto)" "$work/a.b2" "$b '$f' $work/a.b2" "$tool decompress -q -f -n 1 $work/a.b2 $work/out"
    row "blosc2 --filter none" "$work/n.b2" "$b --filter none '$f' $work/n.b2" "$tool decompress -q -f -n 1 $work/n.b2 $work/out"
    row "blosc2 old default (shuffle/8)" "$work/o.b2" "$b --filter shuffle --typesize 8 '$f' $work/o.b2" \
        "$tool decompress -q -f -n 1 $work/o.b2 $work/out"
    row "zstd -3" "$work/z.zst" "zstd -q -f -3 -T1 '$f' -o $work/z.zst" "zstd -q -f -d $work/z.zst -o $work/out"
    row "gzip -6" "$work/g.gz" "gzip -6 -c '$f' > $work/g.gz" "gzip -d -c $work/g.gz > $work/out"
done
