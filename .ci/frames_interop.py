#!/usr/bin/env python3
"""Frames interop with the reference C-Blosc2 3.3.5 (python-blosc2 4.14.1).

1. Runs `cargo run --example frames_interop -- OUTDIR`, which writes
   super-chunks built by our engine on every storage (in-memory frames
   saved with to_cframe, contiguous files, sparse directories, frames
   appended at an offset, frames left behind by edits that crashed at
   every possible point) plus OUTDIR/frames.json describing them.
2. Opens every frame with python-blosc2 (from the file, at its offset, and
   for contiguous files also from a buffer) and checks chunks, metalayers
   and vlmetalayers against what our engine reads.
3. Replays the scripted operations of the in-memory scenarios with
   python-blosc2 and checks that its to_cframe() is byte-identical to ours.
4. Lets python-blosc2 append to and edit our disk frames, then asks the
   example (`--check`) to read them back.

Usage: .ci/frames_interop.py [--dir OUTDIR] [--no-build] [--keep]
Exit status 0 when everything passes.
"""

import argparse
import hashlib
import json
import os
import shutil
import subprocess
import sys
import tempfile

import blosc2

try:
    import msgpack  # python-blosc2 depends on it
except ImportError:  # pragma: no cover
    msgpack = None

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
FAILS = []


def fail(msg):
    FAILS.append(msg)
    print("FAIL", msg)


def gen(k, n):
    """Must match `gen` in examples/frames_interop.rs."""
    return bytes(((i // 7 + k * 31) % 251) for i in range(n))


def sha(b):
    return hashlib.sha256(b).hexdigest()


def run_example(*args):
    env = dict(os.environ)
    env.setdefault("CARGO_TARGET_DIR", os.path.join(ROOT, "target", "interop"))
    cmd = ["cargo", "run", "--quiet", "--profile", "test", "--example", "frames_interop", "--", *args]
    return subprocess.run(cmd, cwd=ROOT, env=env).returncode


def describe(s):
    chunks = []
    for i in range(s.nchunks):
        c = s.decompress_chunk(i)
        chunks.append((len(c), sha(c)))
    metas = {}
    for k in s.meta.keys():
        metas[k] = msgpack.packb(s.meta[k]).hex() if msgpack else None
    vl = {k: s.vlmeta.get_vlmeta(k).hex() for k in s.vlmeta.getall().keys()} if s.vlmeta.nvlmetalayers() else {}
    return chunks, metas, vl


def compare(name, got, expect):
    chunks, metas, vl = got
    want = [(c["nbytes"], c["sha256"]) for c in expect["chunks"]]
    if len(chunks) != len(want):
        fail(f"{name}: {len(chunks)} chunks, expected {len(want)}")
        return
    for i, ((n, h), (wn, wh)) in enumerate(zip(chunks, want)):
        if n != wn or (wh is not None and h != wh):
            fail(f"{name}: chunk {i} differs")
    if msgpack and metas != expect.get("metas", metas):
        fail(f"{name}: metalayers {metas} != {expect['metas']}")
    if vl != expect.get("vlmetas", {}):
        fail(f"{name}: vlmetalayers {vl} != {expect['vlmetas']}")


def open_checks(outdir, entries):
    for e in entries:
        path = os.path.join(outdir, e["path"])
        off = e.get("offset", 0)
        try:
            s = blosc2.open(path, mode="r", offset=off)
            compare(e["name"] + " (file)", describe(s), e["expect"])
        except Exception as exc:  # noqa: BLE001
            fail(f"{e['name']}: the reference cannot open it: {exc}")
            continue
        if os.path.isfile(path) and off == 0:
            try:
                data = open(path, "rb").read()
                # A frame left by a crashed edit may be followed by dead
                # bytes; a buffer must hold exactly the frame.
                data = data[:int.from_bytes(data[16:24], "big")]
                s = blosc2.schunk_from_cframe(data, copy=True)
                compare(e["name"] + " (buffer)", describe(s), e["expect"])
            except Exception as exc:  # noqa: BLE001
                fail(f"{e['name']}: the reference cannot load it from a buffer: {exc}")


SPECIAL = {"zero": blosc2.SpecialValue.ZERO, "nan": blosc2.SpecialValue.NAN, "uninit": blosc2.SpecialValue.UNINIT}


def replay(e):
    cp = e["cparams"]
    cparams = dict(codec=blosc2.Codec(cp["codec"]), clevel=cp["clevel"], typesize=cp["typesize"],
                   filters=[blosc2.Filter(f) for f in cp["filters"]], filters_meta=[0] * 6,
                   splitmode=blosc2.SplitMode.AUTO_SPLIT, nthreads=1, blocksize=cp.get("blocksize", 0))
    fill = [op for op in e["ops"] if op["op"] == "fill_special"]
    chunksize = fill[0]["chunksize"] if fill else -1
    meta = {k: v for k, v in e.get("metas", {}).items()}
    s = blosc2.SChunk(chunksize=chunksize, contiguous=e["storage"] in ("memory", "file"), cparams=cparams,
                      dparams=dict(nthreads=1), meta=meta or None)
    for op in e["ops"]:
        o = op["op"]
        if o == "append":
            s.append_data(gen(op["k"], op["len"]))
        elif o == "insert":
            s.insert_data(op["n"], gen(op["k"], op["len"]), copy=True)
        elif o == "update":
            s.update_data(op["n"], gen(op["k"], op["len"]), copy=True)
        elif o == "delete":
            s.delete_chunk(op["n"])
        elif o == "reorder":
            s.reorder_offsets(op["order"])
        elif o in ("vlmeta", "vlmeta_update"):
            s.vlmeta[op["name"]] = op["value"]
        elif o == "vlmeta_delete":
            del s.vlmeta[op["name"]]
        elif o == "update_special":
            s.update_special(op["n"], SPECIAL[op["special"]])
        elif o == "fill_special":
            s.fill_special(op["nitems"], SPECIAL[op["special"]])
        else:
            raise ValueError(o)
    return s.to_cframe()


def byte_checks(outdir, entries):
    n = 0
    for e in entries:
        if not e.get("byte_identical"):
            continue
        ours = open(os.path.join(outdir, e["path"]), "rb").read()
        try:
            theirs = replay(e)
        except Exception as exc:  # noqa: BLE001
            fail(f"{e['name']}: the reference cannot replay it: {exc}")
            continue
        if ours != theirs:
            at = next((i for i, (a, b) in enumerate(zip(ours, theirs)) if a != b), min(len(ours), len(theirs)))
            fail(f"{e['name']}: to_cframe differs from the reference at byte {at} "
                 f"(ours {len(ours)} bytes, reference {len(theirs)})")
        n += 1
    return n


def reference_edits(outdir, entries):
    """python-blosc2 edits our disk frames; our engine must read the result."""
    checks = []
    for e in entries:
        if e.get("storage") not in ("file", "sparse") or not e.get("ops"):
            continue
        src = os.path.join(outdir, e["path"])
        dst = os.path.join(outdir, "edited_" + e["path"])
        if os.path.isdir(dst):
            shutil.rmtree(dst)
        if os.path.isdir(src):
            shutil.copytree(src, dst)
        else:
            shutil.copy(src, dst)
        try:
            s = blosc2.open(dst, mode="a")
            cs = s.chunksize if s.chunksize > 0 else 1000
            last = len(s.decompress_chunk(s.nchunks - 1)) if s.nchunks else cs
            if s.chunksize > 0 and last < s.chunksize:
                s.update_data(s.nchunks - 1, gen(88, last), copy=True)
            else:
                s.append_data(gen(88, cs))
            s.vlmeta["py"] = "edited by the reference"
            got = describe(blosc2.open(dst, mode="r"))
        except Exception as exc:  # noqa: BLE001
            fail(f"{e['name']}: the reference cannot edit it: {exc}")
            continue
        checks.append({"path": os.path.basename(dst), "offset": 0,
                       "expect": {"chunks": [{"nbytes": n, "sha256": h} for n, h in got[0]], "vlmetas": got[2]}})
    lst = os.path.join(outdir, "checks.json")
    with open(lst, "w") as f:
        json.dump({"entries": checks}, f)
    if run_example("--check", lst) != 0:
        fail("our engine cannot read frames the reference edited (see above)")
    return len(checks)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--dir")
    ap.add_argument("--no-build", action="store_true", help="use frames already in --dir")
    ap.add_argument("--keep", action="store_true")
    args = ap.parse_args()
    outdir = args.dir or tempfile.mkdtemp(prefix="frames-interop-")
    try:
        if not args.no_build:
            if os.path.exists(outdir) and args.dir:
                shutil.rmtree(outdir)
            if run_example(outdir) != 0:
                print("frames_interop: the example failed")
                return 1
        entries = json.load(open(os.path.join(outdir, "frames.json")))["entries"]
        open_checks(outdir, entries)
        nbytes = byte_checks(outdir, entries)
        nedit = reference_edits(outdir, entries)
        print(f"frames_interop: {len(entries)} frames opened by the reference, {nbytes} compared byte for byte, "
              f"{nedit} edited by the reference and read back; {len(FAILS)} failures")
        return 1 if FAILS else 0
    finally:
        if not args.keep and not args.dir:
            shutil.rmtree(outdir, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
