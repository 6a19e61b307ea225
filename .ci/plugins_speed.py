#!/usr/bin/env python3
"""Compression speed and ratio of the BYTEDELTA and INT_TRUNC filters,
ours next to the reference C-Blosc2 3.3.5 (python-blosc2 4.14.1), in the
same run, one thread, each library in its own process.

Usage: .ci/plugins_speed.py [--lib target/release/libblosc2.so] [--reps 7]
(not a CI step: timings depend on the machine).
"""

import argparse
import ctypes as C
import json
import os
import subprocess
import sys
import time

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from capi_diff import CParams, DParams, reference_lib  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
N = 4 * 1024 * 1024  # bytes per chunk


def datasets():
    x = np.linspace(0, 60, N // 4)
    f4 = (np.sin(x) * 1000 + x * 3).astype("<f4").tobytes()
    i4 = (np.cumsum(np.random.default_rng(7).integers(-50, 60, N // 4)) + 1_000_000).astype("<i4").tobytes()
    f8 = (np.sin(np.linspace(0, 30, N // 8)) * 1e6).astype("<f8").tobytes()
    return {"f4-smooth": f4, "i4-walk": i4, "f8-smooth": f8}


CASES = [
    # name, data, typesize, codec, clevel, filters, metas
    ("bytedelta f4 zstd5", "f4-smooth", 4, 5, 5, [1, 35], [0, 4]),
    ("bytedelta f4 lz4-5", "f4-smooth", 4, 1, 5, [1, 35], [0, 4]),
    ("bytedelta i4 zstd5", "i4-walk", 4, 5, 5, [1, 35], [0, 4]),
    ("bytedelta f8 blosclz5", "f8-smooth", 8, 0, 5, [1, 35], [0, 8]),
    ("int_trunc i4:-8 zstd5", "i4-walk", 4, 5, 5, [36, 1], [256 - 8, 0]),
    ("int_trunc f8:40 lz4-5", "f8-smooth", 8, 1, 5, [36, 1], [40, 0]),
]


def run(libpath, reps):
    lib = C.CDLL(libpath)
    vp = C.c_void_p
    lib.blosc2_init()
    lib.blosc2_create_cctx.restype = vp
    lib.blosc2_create_cctx.argtypes = [CParams]
    lib.blosc2_create_dctx.restype = vp
    lib.blosc2_create_dctx.argtypes = [DParams]
    lib.blosc2_compress_ctx.argtypes = [vp, vp, C.c_int32, vp, C.c_int32]
    lib.blosc2_decompress_ctx.argtypes = [vp, vp, C.c_int32, vp, C.c_int32]
    lib.blosc2_free_ctx.argtypes = [vp]
    data = datasets()
    out = {}
    for name, dname, ts, codec, clevel, filters, metas in CASES:
        src = data[dname]
        cp = CParams()
        cp.compcode, cp.clevel, cp.typesize, cp.nthreads, cp.splitmode = codec, clevel, ts, 1, 4
        for k, (f, m) in enumerate(zip(filters, metas)):
            cp.filters[k], cp.filters_meta[k] = f, m
        dp = DParams()
        dp.nthreads, dp.typesize = 1, ts
        cctx, dctx = lib.blosc2_create_cctx(cp), lib.blosc2_create_dctx(dp)
        sbuf = C.create_string_buffer(src, len(src))
        dest = C.create_string_buffer(len(src) + 64)
        back = C.create_string_buffer(len(src))
        ct, dt, cbytes = [], [], 0
        for _ in range(reps):
            t = time.perf_counter()
            cbytes = lib.blosc2_compress_ctx(cctx, sbuf, len(src), dest, len(src) + 64)
            ct.append(time.perf_counter() - t)
            t = time.perf_counter()
            n = lib.blosc2_decompress_ctx(dctx, dest, cbytes, back, len(src))
            dt.append(time.perf_counter() - t)
            assert n == len(src), (name, n)
        lib.blosc2_free_ctx(cctx)
        lib.blosc2_free_ctx(dctx)
        mb = len(src) / 1e6
        out[name] = {"ratio": len(src) / cbytes, "c_mbs": mb / min(ct), "d_mbs": mb / min(dt)}
    return out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--lib", default=os.path.join(ROOT, "target", "release", "libblosc2.so"))
    ap.add_argument("--reps", type=int, default=7)
    ap.add_argument("--child")
    a = ap.parse_args()
    if a.child:
        print(json.dumps(run(a.child, a.reps)))
        return 0
    res = {}
    for who, path in (("ours", a.lib), ("reference", reference_lib())):
        p = subprocess.run([sys.executable, __file__, "--child", path, "--reps", str(a.reps)],
                           capture_output=True, text=True, check=True)
        res[who] = json.loads(p.stdout.strip().splitlines()[-1])
    print(f"{'case':26} {'ratio ours/ref':>16} {'compress MB/s ours/ref (x)':>34} {'decompress MB/s ours/ref (x)':>36}")
    for name, *_ in CASES:
        o, r = res["ours"][name], res["reference"][name]
        print(f"{name:26} {o['ratio']:7.2f}/{r['ratio']:<7.2f}  "
              f"{o['c_mbs']:8.0f}/{r['c_mbs']:<8.0f} ({o['c_mbs'] / r['c_mbs']:4.2f}x)     "
              f"{o['d_mbs']:8.0f}/{r['d_mbs']:<8.0f} ({o['d_mbs'] / r['d_mbs']:4.2f}x)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
