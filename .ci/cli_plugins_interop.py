#!/usr/bin/env python3
"""The reference reads what `blosc2 compress` writes with plugins.

For each plugin option of the tool (`--codec zfp-acc:N|zfp-prec:N|zfp-rate:N`,
`--filter int_trunc:N`, `--filter bytedelta`), our tool compresses a file;
python-blosc2 4.14.1 (C-Blosc2 3.3.5) then opens the frame in another
process and decodes it: ZFP frames as the 1-D b2nd arrays of floats the tool
describes them as (`blosc2.open(...)[:]`), the others chunk by chunk. The
reference's values must be exactly what our `blosc2 decompress` gives for
the same frame, and lossless/INT_TRUNC data what the filter promises (the
input, or the input with the low bits zeroed). ZFP errors must stay within
the requested accuracy. Prints one line per case; exit status 0 when all
pass.

Usage: .ci/cli_plugins_interop.py [--bin target/debug/blosc2]
"""

import argparse
import os
import subprocess
import sys
import tempfile

import blosc2
import numpy as np

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

# (name, dtype, compress options, check of the reference's values against the input)
CASES = [
    ("zfp-acc f32", np.float32, ["--codec", "zfp-acc:-3", "--typesize", "4"], lambda y, x: np.abs(y - x).max() <= 1e-3),
    ("zfp-acc f64", np.float64, ["--codec", "zfp-acc:-6", "--typesize", "8"], lambda y, x: np.abs(y - x).max() <= 1e-6),
    ("zfp-prec f32", np.float32, ["--codec", "zfp-prec:12", "--typesize", "4"], None),
    ("zfp-rate f64", np.float64, ["--codec", "zfp-rate:30", "--typesize", "8", "--chunksize", "64K"], None),
    ("zfp-rate f32 odd", np.float32, ["--codec", "zfp-rate:50", "--typesize", "4", "--chunksize", "100K"], None),
    ("int_trunc i32", np.int32, ["--filter", "int_trunc:12,shuffle", "--typesize", "4"],
     lambda y, x: np.array_equal(y, x & np.int32(~((1 << 20) - 1)))),
    # (A negative meta, bits zeroed, is what --filter int_trunc:-3 writes;
    # python-blosc2 cannot open any frame with a filters_meta above 127: it
    # reads them as int8_t.)
    ("int_trunc i16", np.int16, ["--filter", "int_trunc:13", "--typesize", "2", "--codec", "lz4"],
     lambda y, x: np.array_equal(y, x & np.int16(~7))),
    ("bytedelta f32", np.float32, ["--filter", "shuffle,bytedelta", "--typesize", "4"], np.array_equal),
]


def data(dtype, n=300_007):
    t = np.arange(n)
    if np.issubdtype(dtype, np.floating):
        return (np.sin(t / 500.0) * 100 + np.cos(t / 37.0)).astype(dtype)
    return (np.sin(t / 300.0) * 20000).astype(dtype)


def reference_values(path, dtype):
    """In another process: the reference's decode of `path`."""
    code = (
        "import blosc2, sys\n"
        "a = blosc2.open(sys.argv[1])\n"
        "if hasattr(a, 'schunk'):\n"
        "    sys.stdout.buffer.write(a[:].tobytes())\n"
        "else:\n"
        "    sys.stdout.buffer.write(b''.join(a.decompress_chunk(i) for i in range(a.nchunks)))\n"
    )
    out = subprocess.run([sys.executable, "-c", code, path], check=True, capture_output=True).stdout
    return np.frombuffer(out, dtype=dtype)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--bin", default=os.path.join(ROOT, "target", "debug", "blosc2"))
    a = ap.parse_args()
    print(f"reference: python-blosc2 {blosc2.__version__}, C-Blosc2 {blosc2.blosclib_version}")
    fails = []
    with tempfile.TemporaryDirectory() as d:
        for name, dtype, opts, check in CASES:
            x = data(dtype)
            src, frame, back = (os.path.join(d, f) for f in ("in.bin", "out.b2frame", "back.bin"))
            x.tofile(src)
            r = subprocess.run([a.bin, "compress", "-q", "-f", *opts, src, frame], capture_output=True, text=True)
            if r.returncode != 0:
                fails.append(f"{name}: our compress failed: {r.stderr.strip()}")
                continue
            subprocess.run([a.bin, "decompress", "-q", "-f", frame, back], check=True)
            ours = np.fromfile(back, dtype=dtype)
            try:
                y = reference_values(frame, dtype)
            except subprocess.CalledProcessError as e:
                fails.append(f"{name}: the reference cannot read our frame: {e.stderr.decode().strip()[-300:]}")
                continue
            same = np.array_equal(y, ours)
            good = check(y, x) if check else True
            ratio = x.nbytes / os.path.getsize(frame)
            print(f"{name}: {' '.join(opts)}: ratio {ratio:.2f}x, reference == ours: {same}, values ok: {good}")
            if not same or not good or len(y) != len(x):
                fails.append(f"{name}: reference values differ (same as ours {same}, check {good}, {len(y)} of {len(x)})")
    for f in fails:
        print("FAIL:", f)
    print(f"cli plugins interop: {'FAILED' if fails else 'passed'} ({len(fails)} failures)")
    return 1 if fails else 0


if __name__ == "__main__":
    sys.exit(main())
