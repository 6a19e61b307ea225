#!/usr/bin/env python3
"""Frames written through our C ABI, read by the reference C-Blosc2 3.3.5.

1. Builds libblosc2.so (cargo, profile test) and compiles
   .ci/capi_frames_writer.c against include/blosc2.h and that library.
2. Runs it: it writes frames (in-memory frames saved from
   blosc2_schunk_to_buffer, frames appended at offsets, frame files,
   sparse directories; metalayers, vlmetalayers, special chunks, variable
   chunk sizes, VL-block chunks; inserts, updates, deletes, reorders,
   copies, reopen-and-edit) and OUTDIR/frames.json describing them.
3. Opens every frame with python-blosc2 (file at its offset, and buffer
   for whole files) and checks every chunk, metalayer and vlmetalayer.
4. python-blosc2 writes frames, the C program (`--edit`) edits them
   through our C ABI, python-blosc2 reads the result.
5. Builds the C tests capi-tests/schunk_*.c against the reference
   library (-DCAPI_REFERENCE) and runs them: their expectations are 3.3.5's.

Usage: .ci/capi_frames_interop.py [--keep] [--no-build]
Exit status 0 when everything passes.
"""

import argparse
import glob
import json
import math
import os
import shutil
import struct
import subprocess
import sys
import tempfile

import blosc2
from blosc2 import blosc2_ext

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
FAILS = []


def fail(msg):
    FAILS.append(msg)
    print("FAIL", msg)


def chunk(k, n):
    """Must match chunk() in capi_frames_writer.c (int32 items)."""
    return struct.pack("<%di" % n, *[k * 100003 + (i // 5) * (k % 7 + 1) for i in range(n)])


def expected(desc):
    """Expected bytes of a chunk description (None = unspecified content)
    and its length."""
    if "k" in desc:
        b = chunk(desc["k"], desc["n"])
        return b, len(b)
    if "hex" in desc:
        b = bytes.fromhex(desc["hex"])
        return b, len(b)
    n = desc["nbytes"]
    kind = desc["special"]
    if kind == "zero":
        return bytes(n), n
    if kind == "nan":
        return None, n  # checked item by item below
    return None, n


def check_schunk(name, s, e):
    if s.nchunks != len(e["chunks"]):
        fail(f"{name}: {s.nchunks} chunks, expected {len(e['chunks'])}")
        return
    for i, d in enumerate(e["chunks"]):
        got = s.decompress_chunk(i)
        want, n = expected(d)
        if len(got) != n:
            fail(f"{name}: chunk {i} has {len(got)} bytes, expected {n}")
            continue
        if d.get("special") == "nan":
            vals = struct.unpack("<%df" % (n // 4), got)
            if not all(math.isnan(v) for v in vals):
                fail(f"{name}: chunk {i} is not all NaN")
        elif want is not None and got != want:
            fail(f"{name}: chunk {i} differs")
    metas = {k: blosc2_ext.meta__getitem__(s.meta.schunk, k).hex() for k in s.meta.keys()}
    if metas != e["metas"]:
        fail(f"{name}: metalayers {metas} != {e['metas']}")
    vl = {}
    if s.vlmeta.nvlmetalayers():
        vl = {k: s.vlmeta.get_vlmeta(k).hex() for k in list(s.vlmeta)}
    if vl != e["vlmetas"]:
        fail(f"{name}: vlmetalayers {sorted(vl)} != {sorted(e['vlmetas'])}")


def open_checks(outdir, entries):
    for e in entries:
        path = os.path.join(outdir, e["path"])
        off = e["offset"]
        try:
            s = blosc2.open(path, mode="r", offset=off)
        except Exception as exc:  # noqa: BLE001
            fail(f"{e['name']}: the reference cannot open it: {exc}")
            continue
        check_schunk(e["name"] + " (file)", s, e)
        if os.path.isfile(path):
            data = open(path, "rb").read()[off:]
            data = data[:int.from_bytes(data[16:24], "big")]
            for copy in (True, False):
                try:
                    s = blosc2.schunk_from_cframe(data, copy=copy)
                except Exception as exc:  # noqa: BLE001
                    fail(f"{e['name']}: the reference cannot load it from a buffer: {exc}")
                    continue
                check_schunk(f"{e['name']} (buffer, copy={copy})", s, e)
    print(f"checked {len(entries)} frames written through the C ABI")


def build(args, work):
    if not args.no_build:
        subprocess.run(["cargo", "build", "--quiet", "--profile", "test", "--lib"], cwd=ROOT, check=True)
    lib = os.path.join(ROOT, "target", "debug", "libblosc2.so")
    libdir = os.path.join(work, "lib")
    os.makedirs(libdir)
    for name in ("libblosc2.so", "libblosc2.so.9"):
        shutil.copy(lib, os.path.join(libdir, name))
    exe = os.path.join(work, "capi_frames_writer")
    cc = os.environ.get("CC", "cc")
    subprocess.run([cc, "-std=c11", "-Wall", "-Wextra", "-Werror", "-O1", "-I", os.path.join(ROOT, "include"),
                    os.path.join(ROOT, ".ci", "capi_frames_writer.c"), "-o", exe, "-L", libdir, "-lblosc2",
                    "-Wl,-rpath," + libdir, "-lpthread"], check=True)
    return exe


def reverse(exe, work):
    """python-blosc2 writes, our C ABI edits, python-blosc2 reads."""
    n = 0
    for contiguous in (True, False):
        path = os.path.join(work, "py_%s.b2frame" % ("cframe" if contiguous else "sframe"))
        cparams = dict(codec=blosc2.Codec.ZSTD, clevel=5, typesize=4, nthreads=1)
        s = blosc2.SChunk(chunksize=4000 * 4, urlpath=path, contiguous=contiguous, cparams=cparams,
                          meta={"pymeta": [1, 2]}, mode="w")
        for k in range(3):
            s.append_data(chunk(k, 4000))
        s.vlmeta["pyvl"] = b"from python"
        del s
        rc = subprocess.run([exe, "--edit", path]).returncode
        if rc != 0:
            fail(f"{path}: the C editor failed ({rc})")
            continue
        s = blosc2.open(path, mode="r")
        want = [chunk(51, 4000), chunk(2, 4000), chunk(50, 1000)]
        if s.nchunks != len(want):
            fail(f"{path}: {s.nchunks} chunks after the C edits, expected {len(want)}")
            continue
        for i, w in enumerate(want):
            if s.decompress_chunk(i) != w:
                fail(f"{path}: chunk {i} differs after the C edits")
        if s.meta["pymeta"] != [1, 2]:
            fail(f"{path}: metalayer lost")
        if s.vlmeta["pyvl"] != b"from python" or s.vlmeta.get_vlmeta("c_edit") != b"edited by C":
            fail(f"{path}: vlmetalayers differ after the C edits")
        n += 1
    print(f"checked {n} reference frames edited through the C ABI")


def reference_c_tests(work):
    """The C tests' expectations hold for the reference 3.3.5 library."""
    ref = os.path.dirname(blosc2.__file__)
    inc, lib = os.path.join(ref, "include"), os.path.join(ref, "lib")
    if not os.path.exists(os.path.join(inc, "blosc2.h")):
        print("reference headers not found; skipping the reference run of the C tests")
        return
    cc = os.environ.get("CC", "cc")
    tests = sorted(glob.glob(os.path.join(ROOT, "capi-tests", "schunk_*.c")))
    for src in tests:
        name = os.path.basename(src)[:-2]
        if name == "schunk_null_args":
            continue  # NULL/garbage handling is where we differ on purpose
        exe = os.path.join(work, "ref_" + name)
        r = subprocess.run([cc, "-std=c11", "-O1", "-w", "-DCAPI_REFERENCE", "-I", inc, "-I",
                            os.path.join(ROOT, "capi-tests"), src, "-o", exe, "-L", lib, "-lblosc2",
                            "-Wl,-rpath," + lib, "-lm", "-lpthread"], capture_output=True, text=True)
        if r.returncode != 0:
            fail(f"{name}: does not build against the reference: {r.stderr[-2000:]}")
            continue
        r = subprocess.run([exe], capture_output=True, text=True, cwd=work)
        if r.returncode != 0:
            fail(f"{name}: fails against the reference: {r.stdout[-1000:]}{r.stderr[-2000:]}")
    print(f"ran {len(tests) - 1} C tests against the reference library")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--keep", action="store_true")
    ap.add_argument("--no-build", action="store_true")
    args = ap.parse_args()
    work = tempfile.mkdtemp(prefix="blosc2-capi-frames.")
    try:
        exe = build(args, work)
        outdir = os.path.join(work, "frames")
        os.makedirs(outdir)
        if subprocess.run([exe, outdir]).returncode != 0:
            fail("the C writer failed")
        else:
            with open(os.path.join(outdir, "frames.json")) as f:
                entries = json.load(f)
            open_checks(outdir, entries)
        reverse(exe, work)
        reference_c_tests(work)
    finally:
        if args.keep:
            print("kept", work)
        else:
            shutil.rmtree(work, ignore_errors=True)
    if FAILS:
        print(f"{len(FAILS)} failure(s)")
        return 1
    print("capi frames interop: all checks passed")
    return 0


if __name__ == "__main__":
    sys.exit(main())
