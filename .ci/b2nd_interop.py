#!/usr/bin/env python3
"""b2nd interop with the reference C-Blosc2 3.3.5 (python-blosc2 4.14.1).

The same scenarios (arrays of 1 to 8 dimensions, item sizes 1 to 16,
partial chunks and blocks, in memory and on disk, contiguous and sparse,
made with from_cbuffer / zeros / full / nans and edited with set_slice,
resize, insert, append, delete, concatenate, copy and get_slice) run
through the b2nd C API of two libraries, each in its own process driven by
ctypes: ours (target/debug/libblosc2.so) and the reference (the
libblosc2.so.9 of the python-blosc2 wheel). Then:

1. both libraries' arrays hold what a numpy model of the scenario says;
2. python-blosc2 opens every array our library wrote (files, sparse
   directories, saved copies and in-memory frames) with the right shape,
   chunk shape, block shape, dtype and content;
3. the in-memory frames (b2nd_to_cframe) of both libraries are byte for
   byte identical;
4. our library reads every array the reference wrote;
5. the b2nd C tests (capi-tests/b2nd_*.c), built with -DCAPI_REFERENCE,
   pass against the reference library: their expectations are 3.3.5's.

Usage: .ci/b2nd_interop.py [--no-build] [--keep] [--verbose]
Exit status 0 when everything passes.
"""

import argparse
import ctypes as C
import hashlib
import json
import os
import random
import shutil
import subprocess
import sys
import tempfile

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from capi_diff import CParams, DParams, Storage  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
FAILS = []

# ---------------------------------------------------------------------------
# The C API through ctypes
# ---------------------------------------------------------------------------


def declare(lib):
    vp, i, i8, i64 = C.c_void_p, C.c_int, C.c_int8, C.c_int64
    p64, p32 = C.POINTER(C.c_int64), C.POINTER(C.c_int32)
    sigs = {
        "blosc2_init": (None, []),
        "blosc2_destroy": (None, []),
        "b2nd_create_ctx": (vp, [C.POINTER(Storage), i8, p64, p32, p32, C.c_char_p, i8, vp, C.c_int32]),
        "b2nd_free_ctx": (i, [vp]),
        "b2nd_from_cbuffer": (i, [vp, C.POINTER(vp), vp, i64]),
        "b2nd_zeros": (i, [vp, C.POINTER(vp)]),
        "b2nd_nans": (i, [vp, C.POINTER(vp)]),
        "b2nd_full": (i, [vp, C.POINTER(vp), vp]),
        "b2nd_to_cbuffer": (i, [vp, vp, i64]),
        "b2nd_set_slice_cbuffer": (i, [vp, p64, i64, p64, p64, vp]),
        "b2nd_resize": (i, [vp, p64, p64]),
        "b2nd_insert": (i, [vp, vp, i64, i8, i64]),
        "b2nd_append": (i, [vp, vp, i64, i8]),
        "b2nd_delete": (i, [vp, i8, i64, i64]),
        "b2nd_concatenate": (i, [vp, vp, vp, i8, C.c_bool, C.POINTER(vp)]),
        "b2nd_copy": (i, [vp, vp, C.POINTER(vp)]),
        "b2nd_get_slice": (i, [vp, C.POINTER(vp), vp, p64, p64]),
        "b2nd_to_cframe": (i, [vp, C.POINTER(C.POINTER(C.c_uint8)), p64, C.POINTER(C.c_bool)]),
        "b2nd_save": (i, [vp, C.c_char_p]),
        "b2nd_open": (i, [C.c_char_p, C.POINTER(vp)]),
        "b2nd_from_cframe": (i, [vp, i64, C.c_bool, C.POINTER(vp)]),
        "b2nd_free": (i, [vp]),
    }
    for name, (res, args) in sigs.items():
        f = getattr(lib, name)
        f.restype = res
        f.argtypes = args


def arr64(v):
    return (C.c_int64 * max(len(v), 1))(*v)


def arr32(v):
    return (C.c_int32 * max(len(v), 1))(*v)


# ---------------------------------------------------------------------------
# Scenarios
# ---------------------------------------------------------------------------

DTYPES = {1: "|u1", 2: "<i2", 3: "|S3", 4: "<f4", 8: "<i8", 16: "<c16"}
CODECS = [(0, 1), (1, 1), (1, 2), (4, 1), (5, 1), (5, 0), (0, 2)]  # (codec, filter)
STORAGES = ["mem-c", "mem-s", "file-c", "file-s"]
BUDGET = {1: 400, 2: 40, 3: 14, 4: 7, 5: 5, 6: 4, 7: 3, 8: 3}


def layout(r, nd):
    shape = [1 + r.randrange(BUDGET[nd]) for _ in range(nd)]
    chunks = [1 + r.randrange(s) for s in shape]
    blocks = [1 + r.randrange(c) for c in chunks]
    return shape, chunks, blocks


def region(r, shape):
    start = [r.randrange(s) for s in shape]
    stop = [a + 1 + r.randrange(s - a) for a, s in zip(start, shape)]
    return start, stop


def scenarios():
    """A deterministic list of scenarios."""
    r = random.Random(20261122)
    out = []
    k = 0
    for nd in range(1, 9):
        for ts in (1, 2, 3, 4, 8, 16):
            shape, chunks, blocks = layout(r, nd)
            codec, filt = CODECS[k % len(CODECS)]
            storage = STORAGES[k % len(STORAGES)]
            ops = []
            made = ["from_cbuffer", "zeros", "full", "nans"][k % 4] if ts in (4, 8) else "from_cbuffer"
            cur = list(shape)
            for _ in range(2):
                start, stop = region(r, cur)
                ops.append(["set", start, stop, r.randrange(1 << 30)])
            axis = r.randrange(nd)
            # Grow at the end, insert whole chunks inside, append, delete.
            if made in ("from_cbuffer", "zeros"):
                # (Growing into the padding of full or NaN chunks shows
                # their fill value, which the model does not follow.)
                grown = list(cur)
                grown[axis] += 1 + r.randrange(3)
                ops.append(["resize", grown, None])
                cur = grown
            cs = chunks[axis]
            at = cs * r.randrange(cur[axis] // cs + 1)
            ops.append(["insert", axis, at, cs, r.randrange(1 << 30)])
            cur[axis] += cs
            ops.append(["append", axis, 1 + r.randrange(2), r.randrange(1 << 30)])
            cur[axis] += ops[-1][2]
            ops.append(["delete", axis, at, cs])
            cur[axis] -= cs
            start, stop = region(r, cur)
            ops.append(["set", start, stop, r.randrange(1 << 30)])
            out.append(dict(id="s%03d" % k, shape=shape, chunks=chunks, blocks=blocks, typesize=ts,
                            dtype=DTYPES[ts], codec=codec, filter=filt, clevel=1 + k % 9, storage=storage,
                            made=made, seed=k + 1, ops=ops))
            k += 1
    # Arrays made from arrays: concatenate (aligned or not, into a copy or
    # not), copies with another partition, slices into new arrays.
    for j in range(8):
        nd = 1 + j % 4
        shape, chunks, blocks = layout(r, nd)
        axis = r.randrange(nd)
        other = list(shape)
        other[axis] = 1 + r.randrange(6)
        if j % 2 == 0:
            chunks2, blocks2 = chunks, blocks
        else:
            chunks2 = [1 + r.randrange(s) for s in other]
            blocks2 = [1 + r.randrange(c) for c in chunks2]
        start, stop = region(r, shape)
        out.append(dict(id="m%03d" % j, shape=shape, chunks=chunks, blocks=blocks, typesize=4, dtype="<i4",
                        codec=1, filter=1, clevel=5, storage=STORAGES[j % 4], made="from_cbuffer", seed=900 + j,
                        ops=[["concatenate", other, chunks2, blocks2, axis, j % 4 >= 2, 1000 + j],
                             ["copy", [max(1, c // 2) for c in chunks], [max(1, b // 2) for b in blocks]],
                             ["get_slice", start, stop, chunks, blocks]]))
    return out


def data(seed, shape, ts):
    n = int(np.prod(shape, dtype=np.int64)) * ts
    return np.random.default_rng(seed).integers(0, 256, size=n, dtype=np.uint8).tobytes()


def model(sc):
    """The content a scenario leaves, as a numpy array of raw items."""
    ts = sc["typesize"]
    dt = np.dtype("V%d" % ts)
    shape = sc["shape"]
    if sc["made"] == "from_cbuffer":
        m = np.frombuffer(data(sc["seed"], shape, ts), dtype=dt).reshape(shape).copy()
    else:
        fill = fill_bytes(sc)
        m = np.frombuffer(fill * int(np.prod(shape)), dtype=dt).reshape(shape).copy()

    def buf(seed, shp):
        return np.frombuffer(data(seed, shp, ts), dtype=dt).reshape(shp)

    for op in sc["ops"]:
        kind = op[0]
        if kind == "set":
            _, start, stop, seed = op
            sl = tuple(slice(a, b) for a, b in zip(start, stop))
            m[sl] = buf(seed, [b - a for a, b in zip(start, stop)])
        elif kind == "resize":
            new = np.zeros(op[1], dtype=dt)
            common = tuple(slice(0, min(a, b)) for a, b in zip(op[1], m.shape))
            new[common] = m[common]
            m = new
        elif kind in ("insert", "append"):
            if kind == "insert":
                _, axis, at, n, seed = op
            else:
                _, axis, n, seed = op
                at = m.shape[axis]
            shp = list(m.shape)
            shp[axis] = n
            m = np.concatenate([m.take(range(at), axis=axis), buf(seed, shp),
                                m.take(range(at, m.shape[axis]), axis=axis)], axis=axis)
        elif kind == "delete":
            _, axis, at, n = op
            m = np.delete(m, range(at, at + n), axis=axis)
        elif kind == "concatenate":
            other, axis, seed = op[1], op[4], op[6]
            m = np.concatenate([m, buf(seed, other)], axis=axis)
        elif kind == "copy":
            pass
        elif kind == "get_slice":
            m = m[tuple(slice(a, b) for a, b in zip(op[1], op[2]))]
    return m


def reference_append_bug(sc):
    """Whether a b2nd_append of the scenario takes 3.3.5's fast path in a
    case where that path is wrong: one chunk's worth of bytes appended
    along axis 0 while the chunks do not span the other dimensions (or the
    first dimension does not end on a chunk boundary); 3.3.5 then appends
    it as one raw chunk and its array no longer matches its chunks."""
    shape = list(sc["shape"])
    chunks, blocks, ts = sc["chunks"], sc["blocks"], sc["typesize"]
    nd = len(shape)
    for op in sc["ops"]:
        kind = op[0]
        if kind == "resize":
            shape = list(op[1])
        elif kind == "insert":
            shape[op[1]] += op[3]
        elif kind == "delete":
            shape[op[1]] -= op[3]
        elif kind == "append":
            axis, n = op[1], op[2]
            slab = list(shape)
            slab[axis] = n
            nbytes = int(np.prod(slab)) * ts
            ext = [c if c % b == 0 else c + b - c % b for c, b in zip(chunks, blocks)]
            chunk_bytes = int(np.prod(ext)) * ts
            fast = axis == 0 and all(chunks[i] == blocks[i] for i in range(1, nd)) and nbytes == chunk_bytes
            sound = shape[0] % chunks[0] == 0 and all(shape[i] == chunks[i] for i in range(1, nd))
            if fast and not sound:
                return True
            shape[axis] += n
    return False


def codec_only_difference(ob, rb):
    """When two frames hold the same metalayers and chunks whose headers
    agree but for their compressed size and whose data are equal: the
    difference is in a codec's output (zlib, LZ4HC), not in the b2nd
    layout. Returns the chunks that differ, or None."""
    import blosc2

    try:
        a, b = blosc2.ndarray_from_cframe(ob), blosc2.ndarray_from_cframe(rb)
    except Exception:  # noqa: BLE001
        return None
    sa, sb = a.schunk, b.schunk
    if sa.nchunks != sb.nchunks or dict(sa.meta) != dict(sb.meta):
        return None
    differ = []
    for i in range(sa.nchunks):
        ca, cb = sa.get_chunk(i), sb.get_chunk(i)
        if ca == cb:
            continue
        same_header = ca[:12] == cb[:12] and ca[16:32] == cb[16:32]
        if not same_header or sa.decompress_chunk(i) != sb.decompress_chunk(i):
            return None
        differ.append(i)
    return differ


def fill_bytes(sc):
    ts = sc["typesize"]
    if sc["made"] == "zeros":
        return bytes(ts)
    if sc["made"] == "nans":
        return np.array([np.nan], dtype="<f%d" % ts).tobytes()
    return (123456789).to_bytes(8, "little")[:ts]


# ---------------------------------------------------------------------------
# The writer: one library, every scenario (run in a child process)
# ---------------------------------------------------------------------------


class Writer:
    def __init__(self, libpath, outdir):
        self.lib = C.CDLL(libpath)
        declare(self.lib)
        self.lib.blosc2_init()
        self.out = outdir
        self.keep = []

    def ctx(self, sc, shape, chunks, blocks, urlpath=None, contiguous=True):
        cp = CParams()
        cp.compcode, cp.clevel, cp.typesize, cp.nthreads, cp.splitmode = sc["codec"], sc["clevel"], sc["typesize"], 1, 4
        cp.filters[5] = sc["filter"]
        dp = DParams()
        dp.nthreads, dp.typesize = 1, 8
        st = Storage()
        st.contiguous = contiguous
        st.urlpath = urlpath.encode() if urlpath else None
        st.cparams = C.pointer(cp)
        st.dparams = C.pointer(dp)
        self.keep.append((cp, dp, st))  # 3.3.5 keeps the dparams pointer
        nd = len(shape)
        return self.lib.b2nd_create_ctx(C.byref(st), nd, arr64(shape), arr32(chunks), arr32(blocks),
                                        sc["dtype"].encode(), 0, None, 0)

    def check(self, rc, what):
        if rc < 0:
            raise RuntimeError("%s failed: %d" % (what, rc))

    def content(self, a, m_shape, ts):
        n = int(np.prod(m_shape, dtype=np.int64)) * ts
        buf = C.create_string_buffer(max(n, 1))
        self.check(self.lib.b2nd_to_cbuffer(a, buf, n), "to_cbuffer")
        return buf.raw[:n]

    def run(self, sc):
        ts = sc["typesize"]
        storage = sc["storage"]
        path = os.path.join(self.out, sc["id"] + ".b2nd") if storage.startswith("file") else None
        contiguous = storage.endswith("-c")
        ctx = self.ctx(sc, sc["shape"], sc["chunks"], sc["blocks"], path, contiguous)
        if not ctx:
            raise RuntimeError("create_ctx failed")
        a = C.c_void_p()
        if sc["made"] == "from_cbuffer":
            d = data(sc["seed"], sc["shape"], ts)
            self.check(self.lib.b2nd_from_cbuffer(ctx, C.byref(a), d, len(d)), "from_cbuffer")
        elif sc["made"] == "zeros":
            self.check(self.lib.b2nd_zeros(ctx, C.byref(a)), "zeros")
        elif sc["made"] == "nans":
            self.check(self.lib.b2nd_nans(ctx, C.byref(a)), "nans")
        else:
            self.check(self.lib.b2nd_full(ctx, C.byref(a), fill_bytes(sc)), "full")
        shape = list(sc["shape"])
        on_file = path is not None
        for op in sc["ops"]:
            kind = op[0]
            if kind == "set":
                _, start, stop, seed = op
                sub = [b - x for x, b in zip(start, stop)]
                d = data(seed, sub, ts)
                self.check(self.lib.b2nd_set_slice_cbuffer(d, arr64(sub), len(d), arr64(start), arr64(stop), a), "set")
            elif kind == "resize":
                self.check(self.lib.b2nd_resize(a, arr64(op[1]), None), "resize")
                shape = list(op[1])
            elif kind == "insert":
                _, axis, at, n, seed = op
                shp = list(shape)
                shp[axis] = n
                d = data(seed, shp, ts)
                self.check(self.lib.b2nd_insert(a, d, len(d), axis, at), "insert")
                shape[axis] += n
            elif kind == "append":
                _, axis, n, seed = op
                shp = list(shape)
                shp[axis] = n
                d = data(seed, shp, ts)
                self.check(self.lib.b2nd_append(a, d, len(d), axis), "append")
                shape[axis] += n
            elif kind == "delete":
                _, axis, at, n = op
                self.check(self.lib.b2nd_delete(a, axis, at, n), "delete")
                shape[axis] -= n
            elif kind == "concatenate":
                _, other, chunks2, blocks2, axis, copy, seed = op
                c2 = self.ctx(sc, other, chunks2, blocks2)
                b = C.c_void_p()
                d = data(seed, other, ts)
                self.check(self.lib.b2nd_from_cbuffer(c2, C.byref(b), d, len(d)), "from_cbuffer 2")
                r = C.c_void_p()
                dest = self.ctx(sc, shape, sc["chunks"], sc["blocks"])
                self.check(self.lib.b2nd_concatenate(dest, a, b, axis, copy, C.byref(r)), "concatenate")
                if copy:
                    self.lib.b2nd_free(a)
                    on_file = False
                a = r
                shape[axis] += other[axis]
                self.lib.b2nd_free(b)
                self.lib.b2nd_free_ctx(c2)
                self.lib.b2nd_free_ctx(dest)
            elif kind == "copy":
                c2 = self.ctx(sc, shape, op[1][:len(shape)], op[2][:len(shape)])
                r = C.c_void_p()
                self.check(self.lib.b2nd_copy(c2, a, C.byref(r)), "copy")
                self.lib.b2nd_free(a)
                a = r
                on_file = False
                self.lib.b2nd_free_ctx(c2)
            elif kind == "get_slice":
                _, start, stop, chunks, blocks = op
                c2 = self.ctx(sc, shape, chunks, blocks)
                r = C.c_void_p()
                self.check(self.lib.b2nd_get_slice(c2, C.byref(r), a, arr64(start), arr64(stop)), "get_slice")
                self.lib.b2nd_free(a)
                a = r
                on_file = False
                shape = [b - x for x, b in zip(start, stop)]
                self.lib.b2nd_free_ctx(c2)
        res = {"shape": shape, "sha": hashlib.sha256(self.content(a, shape, ts)).hexdigest(), "files": {}}
        cframe = C.POINTER(C.c_uint8)()
        n = C.c_int64()
        nf = C.c_bool()
        self.check(self.lib.b2nd_to_cframe(a, C.byref(cframe), C.byref(n), C.byref(nf)), "to_cframe")
        fname = os.path.join(self.out, sc["id"] + ".cframe")
        with open(fname, "wb") as f:
            f.write(C.string_at(cframe, n.value))
        res["files"]["cframe"] = fname
        if on_file:
            res["files"]["file"] = path
        saved = os.path.join(self.out, sc["id"] + ".saved.b2nd")
        self.check(self.lib.b2nd_save(a, saved.encode()), "save")
        res["files"]["saved"] = saved
        self.lib.b2nd_free(a)
        self.lib.b2nd_free_ctx(ctx)
        return res

    def read(self, fname, shape, ts, cframe):
        """Open a file (or frame) and return the sha of its content."""
        a = C.c_void_p()
        if cframe:
            with open(fname, "rb") as f:
                b = f.read()
            self.check(self.lib.b2nd_from_cframe(b, len(b), True, C.byref(a)), "from_cframe")
        else:
            self.check(self.lib.b2nd_open(fname.encode(), C.byref(a)), "open")
        sha = hashlib.sha256(self.content(a, shape, ts)).hexdigest()
        self.lib.b2nd_free(a)
        return sha


def writer_main(libpath, outdir, scen_file, read_from):
    with open(scen_file) as f:
        scens = json.load(f)
    w = Writer(libpath, outdir)
    results = {}
    for sc in scens:
        try:
            results[sc["id"]] = w.run(sc)
        except Exception as e:  # noqa: BLE001
            results[sc["id"]] = {"error": str(e)}
    reads = {}
    if read_from:
        with open(os.path.join(read_from, "results.json")) as f:
            other = json.load(f)
        for sid, res in other.items():
            if "error" in res:
                continue
            sc = next(s for s in scens if s["id"] == sid)
            for kind, fname in res["files"].items():
                try:
                    reads["%s/%s" % (sid, kind)] = w.read(fname, res["shape"], sc["typesize"], kind == "cframe")
                except Exception as e:  # noqa: BLE001
                    reads["%s/%s" % (sid, kind)] = "error: %s" % e
    with open(os.path.join(outdir, "results.json"), "w") as f:
        json.dump(results, f)
    with open(os.path.join(outdir, "reads.json"), "w") as f:
        json.dump(reads, f)
    return 0


# ---------------------------------------------------------------------------
# The checker
# ---------------------------------------------------------------------------


def fail(msg):
    FAILS.append(msg)
    print("FAIL", msg)


def reference_lib():
    import blosc2

    d = os.path.join(os.path.dirname(blosc2.__file__), "lib")
    for name in ("libblosc2.so.9", "libblosc2.so"):
        p = os.path.join(d, name)
        if os.path.exists(p):
            return p
    raise SystemExit("reference libblosc2.so not found in %s" % d)


def our_lib(build):
    if build:
        subprocess.run(["cargo", "build", "--quiet", "--profile", "test", "--lib"], cwd=ROOT, check=True)
    target = os.environ.get("CARGO_TARGET_DIR", os.path.join(ROOT, "target"))
    return os.path.join(target, "debug", "libblosc2.so")


def run_writer(lib, outdir, scen_file, read_from=None):
    cmd = [sys.executable, os.path.abspath(__file__), "--write", lib, outdir, scen_file]
    if read_from:
        cmd.append(read_from)
    rc = subprocess.run(cmd).returncode
    if rc != 0:
        fail("writer with %s exited with %d" % (lib, rc))
    with open(os.path.join(outdir, "results.json")) as f:
        res = json.load(f)
    with open(os.path.join(outdir, "reads.json")) as f:
        reads = json.load(f)
    return res, reads


def check_with_python_blosc2(sc, res, want):
    import blosc2

    for kind, fname in res["files"].items():
        try:
            if kind == "cframe":
                with open(fname, "rb") as f:
                    a = blosc2.ndarray_from_cframe(f.read())
            else:
                a = blosc2.open(fname)
        except Exception as e:  # noqa: BLE001
            fail("%s/%s: python-blosc2 cannot open it: %s" % (sc["id"], kind, e))
            continue
        if list(a.shape) != list(want.shape):
            fail("%s/%s: shape %s, expected %s" % (sc["id"], kind, a.shape, want.shape))
            continue
        if sc["ops"][-1][0] not in ("copy", "get_slice") and (list(a.chunks) != sc["chunks"] or list(a.blocks) != sc["blocks"]):
            fail("%s/%s: chunks %s blocks %s" % (sc["id"], kind, a.chunks, a.blocks))
        if a.dtype != np.dtype(sc["dtype"]):
            fail("%s/%s: dtype %s, expected %s" % (sc["id"], kind, a.dtype, sc["dtype"]))
        got = a[()] if a.ndim else a[()]
        if np.asarray(got).tobytes() != want.tobytes():
            fail("%s/%s: content differs from the model" % (sc["id"], kind))


def reference_c_tests(work):
    """Build the b2nd C tests against include/ and run them with the
    reference library."""
    ref = reference_lib()
    libdir = os.path.join(work, "reflib")
    os.makedirs(libdir)
    for name in ("libblosc2.so", "libblosc2.so.9"):
        shutil.copy(ref, os.path.join(libdir, name))
    cc = os.environ.get("CC", "cc")
    for name in ("b2nd_basic", "b2nd_storage", "b2nd_shape"):
        exe = os.path.join(work, name)
        src = os.path.join(ROOT, "capi-tests", name + ".c")
        subprocess.run([cc, "-std=c11", "-O1", "-DCAPI_REFERENCE", "-Wall", "-Wextra", "-Wno-unused-function",
                        "-I", os.path.join(ROOT, "include"), "-I", os.path.join(ROOT, "capi-tests"), src, "-o", exe,
                        "-L", libdir, "-lblosc2", "-Wl,-rpath," + libdir, "-lpthread", "-lm"], check=True)
        out = subprocess.run([exe], capture_output=True, text=True)
        if out.returncode != 0:
            fail("%s against the reference: %s%s" % (name, out.stdout[-500:], out.stderr[-2000:]))
        else:
            print("ok %s against the reference" % name)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--write", nargs="+", help=argparse.SUPPRESS)
    ap.add_argument("--no-build", action="store_true")
    ap.add_argument("--keep", action="store_true")
    ap.add_argument("--verbose", action="store_true")
    args = ap.parse_args()
    if args.write:
        lib, outdir, scen = args.write[:3]
        return writer_main(lib, outdir, scen, args.write[3] if len(args.write) > 3 else None)

    work = tempfile.mkdtemp(prefix="b2nd-interop-")
    ours_dir, ref_dir = os.path.join(work, "ours"), os.path.join(work, "ref")
    os.makedirs(ours_dir)
    os.makedirs(ref_dir)
    scens = scenarios()
    scen_file = os.path.join(work, "scenarios.json")
    with open(scen_file, "w") as f:
        json.dump(scens, f)
    ours = our_lib(not args.no_build)
    ref_res, _ = run_writer(reference_lib(), ref_dir, scen_file)
    our_res, our_reads = run_writer(ours, ours_dir, scen_file, ref_dir)

    identical = compared = known_bugs = codec_only = 0
    for sc in scens:
        sid = sc["id"]
        want = model(sc)
        wsha = hashlib.sha256(want.tobytes()).hexdigest()
        o, r = our_res.get(sid, {}), ref_res.get(sid, {})
        if "error" in o:
            fail("%s: our library: %s" % (sid, o["error"]))
            continue
        if o["sha"] != wsha or o["shape"] != list(want.shape):
            fail("%s: our content differs from the model" % sid)
        check_with_python_blosc2(sc, o, want)
        if reference_append_bug(sc):
            print("note %s: 3.3.5's b2nd_append fast path mishandles this array (%s); not compared" % (
                sid, r.get("error", "wrong content") if r.get("sha") != wsha else "content happens to match"))
            known_bugs += 1
            continue
        if "error" in r:
            fail("%s: the reference: %s" % (sid, r["error"]))
        elif r["sha"] != wsha:
            fail("%s: the reference's content differs from the model (scenario or model bug)" % sid)
        if "error" not in r:
            compared += 1
            with open(o["files"]["cframe"], "rb") as f:
                ob = f.read()
            with open(r["files"]["cframe"], "rb") as f:
                rb = f.read()
            if ob == rb:
                identical += 1
            else:
                chunks = codec_only_difference(ob, rb)
                if chunks is None:
                    fail("%s: in-memory frames differ (%d vs %d bytes)" % (sid, len(ob), len(rb)))
                else:
                    codec_only += 1
                    print("note %s: frames differ only in the codec output of chunks %s (codec %d)" % (
                        sid, chunks, sc["codec"]))
            for kind in r["files"]:
                got = our_reads.get("%s/%s" % (sid, kind))
                if got != wsha:
                    fail("%s/%s: our library reads the reference's array wrong: %s" % (sid, kind, got))
        if args.verbose:
            print("ok" if not FAILS else "..", sid, sc["shape"], sc["storage"], sc["made"])
    print("%d scenarios (%d hit a known 3.3.5 bug); %d in-memory frames identical to the reference's out of %d, "
          "%d differ only in codec output" % (len(scens), known_bugs, identical, compared, codec_only))
    reference_c_tests(work)
    if not args.keep:
        shutil.rmtree(work, ignore_errors=True)
    else:
        print("kept", work)
    if FAILS:
        print("%d failure(s)" % len(FAILS))
        return 1
    print("b2nd interop: all checks passed")
    return 0


if __name__ == "__main__":
    sys.exit(main())
