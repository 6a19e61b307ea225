#!/usr/bin/env python3
"""zlib at every clevel writes chunks no more than 1% (+16 bytes) larger than
the reference C-Blosc2 3.3.5's, on data that puts its noise finder to the
test (src/engine/codecs/noise_runs.rs): floats with noise of every size,
sensors, counters, images, CSV, sparse bytes, noise that repeats within and
beyond DEFLATE's window, and plain noise; with no filter, shuffle and
bitshuffle.

Usage: python3 .ci/zlib_ratio.py path/to/our/libblosc2.so [SEED]
Exit status 0 when no case is larger.
"""

import ctypes as C
import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from capi_diff import reference_lib  # noqa: E402

N = 1 << 20


def kinds(rng):
    t = np.arange(N // 8, dtype=np.float64)
    t32 = np.arange(N // 4, dtype=np.float64)
    for noise in (1e-2, 1e-4, 1e-7, 1e-10):
        yield "f64-sine-%g" % noise, (np.sin(t / 500) + rng.normal(0, noise, N // 8)).tobytes(), 8
        yield "f32-sine-%g" % noise, (np.sin(t32 / 500) + rng.normal(0, noise, N // 4)).astype(np.float32).tobytes(), 4
    yield "f32-walk", np.cumsum(rng.normal(0, 1, N // 4)).astype(np.float32).tobytes(), 4
    yield "f64-walk", np.cumsum(rng.normal(0, 1, N // 8)).tobytes(), 8
    yield "i16-sensor", (1000 * np.sin(np.arange(N // 2) / 50) + rng.normal(0, 30, N // 2)).astype(np.int16).tobytes(), 2
    yield "i32-counter", np.cumsum(rng.choice([1, 1, 1, 3], N // 4)).astype(np.int32).tobytes(), 4
    yield "i64-counter", np.cumsum(rng.choice([1, 2, 7], N // 8)).astype(np.int64).tobytes(), 8
    yield "u8-wave", np.clip(128 + 60 * np.sin(np.arange(N) / 300) + rng.normal(0, 8, N), 0, 255).astype(np.uint8).tobytes(), 1
    image = np.add.outer(np.sin(np.arange(1024) / 40), np.cos(np.arange(256) / 30)) * 100 + rng.normal(0, 3, (1024, 256))
    yield "f32-image", image.astype(np.float32).tobytes(), 4
    csv = b"".join(b"%d,%.5f,%d\n" % (i, rng.normal(), rng.integers(0, 1000)) for i in range(N // 20))[:N]
    yield "csv", csv, 1
    sparse = rng.integers(0, 256, N, dtype=np.uint8)
    sparse[rng.random(N) < 0.3] = 0
    yield "sparse", sparse.tobytes(), 1
    yield "noise-twice", rng.integers(0, 256, N // 2, dtype=np.uint8).tobytes() * 2, 1
    for period in (6000, 20000, 40000):
        p = rng.integers(0, 256, period, dtype=np.uint8).tobytes()
        yield "noise-period-%d" % period, (p * (N // period + 1))[:N], 1
    yield "u16-12bit-noise", rng.integers(0, 4096, N // 2).astype(np.uint16).tobytes(), 2
    yield "f64-uniform", rng.random(N // 8).tobytes(), 8
    yield "f32-normal", rng.normal(0, 1, N // 4).astype(np.float32).tobytes(), 4
    yield "noise", rng.integers(0, 256, N, dtype=np.uint8).tobytes(), 1


def main():
    if len(sys.argv) < 2:
        print(__doc__)
        return 2
    seed = int(sys.argv[2]) if len(sys.argv) > 2 else 5
    libs = {"ours": C.CDLL(sys.argv[1], mode=os.RTLD_LOCAL), "reference": C.CDLL(reference_lib(), mode=os.RTLD_LOCAL)}
    for lib in libs.values():
        lib.blosc2_init()
        lib.blosc1_set_compressor(b"zlib")
        lib.blosc2_set_nthreads(1)
    dst = C.create_string_buffer(N + 4096)
    cases, fails, worst = 0, 0, (0.0, "")
    for name, src, ts in kinds(np.random.default_rng(seed)):
        for clevel in range(1, 10):
            for shuffle in (0, 1, 2):
                size = {k: lib.blosc2_compress(clevel, shuffle, ts, src, len(src), dst, len(src) + 4096) for k, lib in libs.items()}
                cases += 1
                what = "%s clevel %d shuffle %d: %r" % (name, clevel, shuffle, size)
                worst = max(worst, (size["ours"] / size["reference"], what))
                if size["ours"] <= 0 or size["ours"] > size["reference"] * 1.01 + 16:
                    fails += 1
                    print("FAIL", what)
    print("zlib_ratio: %d cases (seed %d), %d failures; largest ours/reference %.4f (%s)" % (cases, seed, fails, worst[0], worst[1]))
    return 1 if fails else 0


if __name__ == "__main__":
    sys.exit(main())
