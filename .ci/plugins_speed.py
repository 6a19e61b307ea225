#!/usr/bin/env python3
"""Compression speed and ratio of every plugin 3.3.5 ships (BYTEDELTA,
INT_TRUNC, NDCELL, NDMEAN, NDLZ, ZFP), ours next to the reference C-Blosc2
3.3.5 (python-blosc2 4.14.1), in the same run, one thread, each library in
its own process. One 4 MiB chunk per case; the b2nd-aware plugins get a
super-chunk whose `b2nd` metalayer makes the chunk a 2-D array (the
contexts' params name it, as b2nd does).

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
from capi_diff import CParams, DParams, Storage, reference_lib  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
N = 4 * 1024 * 1024  # bytes per chunk


def datasets():
    x = np.linspace(0, 60, N // 4)
    f4 = (np.sin(x) * 1000 + x * 3).astype("<f4").tobytes()
    i4 = (np.cumsum(np.random.default_rng(7).integers(-50, 60, N // 4)) + 1_000_000).astype("<i4").tobytes()
    f8 = (np.sin(np.linspace(0, 30, N // 8)) * 1e6).astype("<f8").tobytes()
    yy, xx = np.mgrid[0:2048, 0:2048]
    u1 = ((np.sin(xx / 40.0) + np.cos(yy / 25.0)) * 60 + 128).astype("u1").tobytes()
    return {"f4-smooth": f4, "i4-walk": i4, "f8-smooth": f8, "u1-image": u1}


def b2nd_meta(shape, chunkshape, blockshape):
    """A `b2nd` metalayer (version 0, no dtype)."""
    import struct

    n = len(shape)
    out = bytes([0x97, 0, n, 0x90 + n]) + b"".join(b"\xd3" + struct.pack(">q", v) for v in shape)
    for dims in (chunkshape, blockshape):
        out += bytes([0x90 + n]) + b"".join(b"\xd2" + struct.pack(">i", v) for v in dims)
    return out + bytes([0]) + b"\xdb" + struct.pack(">I", 3) + b"<f4"


CASES = [
    # name, data, typesize, codec, clevel, filters, metas
    ("bytedelta f4 zstd5", "f4-smooth", 4, 5, 5, [1, 35], [0, 4]),
    ("bytedelta f4 lz4-5", "f4-smooth", 4, 1, 5, [1, 35], [0, 4]),
    ("bytedelta i4 zstd5", "i4-walk", 4, 5, 5, [1, 35], [0, 4]),
    ("bytedelta f8 blosclz5", "f8-smooth", 8, 0, 5, [1, 35], [0, 8]),
    ("int_trunc i4:-8 zstd5", "i4-walk", 4, 5, 5, [36, 1], [256 - 8, 0]),
    ("int_trunc f8:40 lz4-5", "f8-smooth", 8, 1, 5, [36, 1], [40, 0]),
]

# The b2nd-aware plugins: name, data, typesize, codec, codec meta, clevel,
# filters, metas, (array shape, block shape).
ND_CASES = [
    ("ndcell:4 f4 zstd5", "f4-smooth", 4, 5, 0, 5, [32, 1], [4, 0], ((1024, 1024), (256, 256))),
    ("ndmean:4 f4 zstd5", "f4-smooth", 4, 5, 0, 5, [33, 1], [4, 0], ((1024, 1024), (256, 256))),
    ("ndlz:4 u1", "u1-image", 1, 32, 4, 5, [], [], ((2048, 2048), (256, 256))),
    ("ndlz:8 u1", "u1-image", 1, 32, 8, 5, [], [], ((2048, 2048), (256, 256))),
    ("zfp-acc:-3 f4", "f4-smooth", 4, 33, 256 - 3, 5, [], [], ((1024, 1024), (128, 128))),
    ("zfp-prec:20 f8", "f8-smooth", 8, 34, 20, 5, [], [], ((512, 1024), (128, 128))),
    ("zfp-rate:40 f4", "f4-smooth", 4, 35, 40, 5, [], [], ((1024, 1024), (128, 128))),
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
    lib.blosc2_schunk_new.restype = vp
    lib.blosc2_schunk_new.argtypes = [C.POINTER(Storage)]
    lib.blosc2_meta_add.argtypes = [vp, C.c_char_p, C.c_char_p, C.c_int32]
    lib.blosc2_schunk_free.argtypes = [vp]
    data = datasets()
    out = {}
    plain = [(n, d, ts, codec, 0, clevel, f, m, None) for n, d, ts, codec, clevel, f, m in CASES]
    for name, dname, ts, codec, codec_meta, clevel, filters, metas, nd in plain + ND_CASES:
        src = data[dname]
        cp = CParams()
        cp.compcode, cp.clevel, cp.typesize, cp.nthreads, cp.splitmode = codec, clevel, ts, 1, 4
        cp.compcode_meta = codec_meta
        for k, (f, m) in enumerate(zip(filters, metas)):
            cp.filters[k], cp.filters_meta[k] = f, m
        dp = DParams()
        dp.nthreads, dp.typesize = 1, ts
        sc = None
        if nd:
            shape, block = nd
            cp.blocksize = int(np.prod(block)) * ts
            cp.splitmode = 2  # never: the plugins see whole blocks
            sp = CParams.from_buffer_copy(cp)
            st = Storage()
            st.contiguous, st.cparams = True, C.pointer(sp)
            sc = lib.blosc2_schunk_new(C.byref(st))
            meta = b2nd_meta(shape, shape, block)
            assert lib.blosc2_meta_add(sc, b"b2nd", meta, len(meta)) >= 0, name
            cp.schunk = dp.schunk = sc
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
        if sc:
            lib.blosc2_schunk_free(sc)
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
    for name in [c[0] for c in CASES + ND_CASES]:
        o, r = res["ours"][name], res["reference"][name]
        print(f"{name:26} {o['ratio']:7.2f}/{r['ratio']:<7.2f}  "
              f"{o['c_mbs']:8.0f}/{r['c_mbs']:<8.0f} ({o['c_mbs'] / r['c_mbs']:4.2f}x)     "
              f"{o['d_mbs']:8.0f}/{r['d_mbs']:<8.0f} ({o['d_mbs'] / r['d_mbs']:4.2f}x)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
