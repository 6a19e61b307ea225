#!/usr/bin/env python3
"""Plugin interop with the reference C-Blosc2 3.3.5 (python-blosc2 4.14.1).

1. Write direction of the plugin corpus (tests/corpus/plugins): every
   entry marked `write` is written by our library (chunks with
   blosc2_compress_ctx, b2nd arrays as contiguous frame files), then the
   reference decodes each file in another process: lossless entries give
   the input, lossy ones the reference's own output (`sha256`).
2. User plugins: a codec (id 200, zlib of the bytes XORed with the codec
   meta) and a filter (id 201, adds its meta to every byte), registered
   through ctypes callbacks in both libraries. Chunks and b2nd frames
   written by either library decode in the other, whole and by getitem,
   and the callbacks see the metas, the typesize and, in a super-chunk,
   a non-NULL `schunk`.
3. Registration return codes (ids below 160, name clashes, the same name
   again, separate codec/filter namespaces, every free id up to 255) and
   refusals (unregistered codec or filter ids, a failing user encoder or
   decoder) are the reference's, or negative where it returns negative.

Each library runs in its own process (they share a SONAME). Prints one
line per step; exit status 0 when everything passes.

Usage: .ci/plugins_interop.py [--lib target/debug/libblosc2.so]
"""

import argparse
import ctypes as C
import hashlib
import json
import os
import subprocess
import sys
import tempfile
import zlib

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from capi_diff import CParams, DParams, Storage, reference_lib  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
# Plugin groups still being written (as PENDING in tests/plugins_corpus.rs):
# reported, not failed.
PENDING = set()
CORPUS = os.path.join(ROOT, "tests", "corpus", "plugins")

ENC = C.CFUNCTYPE(C.c_int, C.POINTER(C.c_uint8), C.c_int32, C.POINTER(C.c_uint8), C.c_int32, C.c_uint8,
                  C.POINTER(CParams), C.c_void_p)
DEC = C.CFUNCTYPE(C.c_int, C.POINTER(C.c_uint8), C.c_int32, C.POINTER(C.c_uint8), C.c_int32, C.c_uint8,
                  C.POINTER(DParams), C.c_void_p)
FWD = C.CFUNCTYPE(C.c_int, C.POINTER(C.c_uint8), C.POINTER(C.c_uint8), C.c_int32, C.c_uint8,
                  C.POINTER(CParams), C.c_uint8)
BWD = C.CFUNCTYPE(C.c_int, C.POINTER(C.c_uint8), C.POINTER(C.c_uint8), C.c_int32, C.c_uint8,
                  C.POINTER(DParams), C.c_uint8)


class Codec(C.Structure):
    _fields_ = [("compcode", C.c_uint8), ("compname", C.c_char_p), ("complib", C.c_uint8),
                ("version", C.c_uint8), ("encoder", ENC), ("decoder", DEC)]


class Filter(C.Structure):
    _fields_ = [("id", C.c_uint8), ("name", C.c_char_p), ("version", C.c_uint8),
                ("forward", FWD), ("backward", BWD)]


def sha(b):
    return hashlib.sha256(b).hexdigest()


def load(path):
    lib = C.CDLL(path)
    vp, i, i8, i64 = C.c_void_p, C.c_int, C.c_int8, C.c_int64
    p64, p32 = C.POINTER(C.c_int64), C.POINTER(C.c_int32)
    sigs = {
        "blosc2_init": (None, []),
        "blosc2_create_cctx": (vp, [CParams]),
        "blosc2_create_dctx": (vp, [DParams]),
        "blosc2_free_ctx": (None, [vp]),
        "blosc2_compress_ctx": (i, [vp, vp, C.c_int32, vp, C.c_int32]),
        "blosc2_decompress_ctx": (i, [vp, vp, C.c_int32, vp, C.c_int32]),
        "blosc2_getitem_ctx": (i, [vp, vp, C.c_int32, i, i, vp, C.c_int32]),
        "blosc2_cbuffer_sizes": (i, [vp, p32, p32, p32]),
        "blosc2_register_codec": (i, [C.POINTER(Codec)]),
        "blosc2_register_filter": (i, [C.POINTER(Filter)]),
        "b2nd_create_ctx": (vp, [C.POINTER(Storage), i8, p64, p32, p32, C.c_char_p, i8, vp, C.c_int32]),
        "b2nd_free_ctx": (i, [vp]),
        "b2nd_from_cbuffer": (i, [vp, C.POINTER(vp), vp, i64]),
        "b2nd_to_cbuffer": (i, [vp, vp, i64]),
        "b2nd_open": (i, [C.c_char_p, C.POINTER(vp)]),
        "b2nd_free": (i, [vp]),
    }
    for name, (res, args) in sigs.items():
        f = getattr(lib, name)
        f.restype = res
        f.argtypes = args
    lib.blosc2_init()
    return lib


def cparams_of(p):
    cp = CParams()
    cp.compcode, cp.compcode_meta, cp.clevel = p["compcode"], p["compcode_meta"], p["clevel"]
    cp.use_dict, cp.typesize, cp.nthreads = p["use_dict"], p["typesize"], 1
    cp.blocksize, cp.splitmode = p["blocksize"], p["splitmode"]
    for k in range(6):
        cp.filters[k] = p["filters"][k]
        cp.filters_meta[k] = p["filters_meta"][k]
    return cp


def compress(lib, cp, data):
    cctx = lib.blosc2_create_cctx(cp)
    if not cctx:
        return None, "NULL cctx"
    src = C.create_string_buffer(data, len(data))
    dest = C.create_string_buffer(len(data) + 32)
    n = lib.blosc2_compress_ctx(cctx, src, len(data), dest, len(data) + 32)
    lib.blosc2_free_ctx(cctx)
    if n <= 0:
        return None, f"compress_ctx {n}"
    return dest.raw[:n], None


def decompress(lib, chunk, schunk=None):
    nb, cb, bs = C.c_int32(), C.c_int32(), C.c_int32()
    src = C.create_string_buffer(chunk, len(chunk))
    lib.blosc2_cbuffer_sizes(src, C.byref(nb), C.byref(cb), C.byref(bs))
    dp = DParams()
    dp.nthreads, dp.typesize, dp.schunk = 1, 8, schunk
    dctx = lib.blosc2_create_dctx(dp)
    out = C.create_string_buffer(max(nb.value, 1))
    n = lib.blosc2_decompress_ctx(dctx, src, len(chunk), out, nb.value)
    lib.blosc2_free_ctx(dctx)
    return (out.raw[:n], None) if n == nb.value else (None, f"decompress_ctx {n}")


def getitem(lib, chunk, start, nitems, ts):
    dp = DParams()
    dp.nthreads, dp.typesize = 1, 8
    dctx = lib.blosc2_create_dctx(dp)
    src = C.create_string_buffer(chunk, len(chunk))
    out = C.create_string_buffer(nitems * ts)
    n = lib.blosc2_getitem_ctx(dctx, src, len(chunk), start, nitems, out, nitems * ts)
    lib.blosc2_free_ctx(dctx)
    return out.raw[:n] if n == nitems * ts else None


def write_b2nd(lib, p, data, path, cp=None):
    cp = cp or cparams_of(p)
    dp = DParams()
    dp.nthreads, dp.typesize = 1, 8
    st = Storage()
    st.contiguous, st.urlpath = True, path.encode()
    st.cparams, st.dparams = C.pointer(cp), C.pointer(dp)
    nd = len(p["shape"])
    shape = (C.c_int64 * nd)(*p["shape"])
    chunks = (C.c_int32 * nd)(*p["chunkshape"])
    blocks = (C.c_int32 * nd)(*p["blockshape"])
    if os.path.exists(path):
        os.remove(path)
    ctx = lib.b2nd_create_ctx(C.byref(st), nd, shape, chunks, blocks, p["dtype"].encode(),
                              p.get("dtype_format", 0), None, 0)
    if not ctx:
        return "NULL b2nd ctx"
    arr = C.c_void_p()
    src = C.create_string_buffer(data, len(data))
    rc = lib.b2nd_from_cbuffer(ctx, C.byref(arr), src, len(data))
    lib.b2nd_free_ctx(ctx)
    if arr:
        lib.b2nd_free(arr)
    return None if rc >= 0 else f"b2nd_from_cbuffer {rc}"


def read_b2nd(lib, path, nbytes):
    arr = C.c_void_p()
    rc = lib.b2nd_open(path.encode(), C.byref(arr))
    if rc < 0:
        return None, f"b2nd_open {rc}"
    out = C.create_string_buffer(max(nbytes, 1))
    rc = lib.b2nd_to_cbuffer(arr, out, nbytes)
    lib.b2nd_free(arr)
    return (out.raw[:nbytes], None) if rc >= 0 else (None, f"b2nd_to_cbuffer {rc}")


# ---------------------------------------------------------------------------
# User plugins (the same Python callbacks in both libraries)
# ---------------------------------------------------------------------------

SEEN = {"schunk": 0, "typesizes": set(), "metas": set()}
FAIL_ENCODE = {"on": False}


def _encoder(inp, n, out, maxout, meta, cparams, chunk):
    if FAIL_ENCODE["on"]:
        return -5
    SEEN["typesizes"].add(cparams.contents.typesize)
    SEEN["metas"].add(("codec", meta))
    if cparams.contents.schunk:
        SEEN["schunk"] += 1
    raw = bytes(bytearray(C.string_at(inp, n)))
    body = zlib.compress(bytes(b ^ meta for b in raw), 6)
    if len(body) >= maxout:
        return 0
    C.memmove(out, body, len(body))
    return len(body)


def _decoder(inp, n, out, maxout, meta, dparams, chunk):
    try:
        raw = zlib.decompress(C.string_at(inp, n))
    except zlib.error:
        return -3
    if len(raw) != maxout:
        return -3
    if dparams.contents.schunk:
        SEEN["schunk"] += 1
    C.memmove(out, bytes(b ^ meta for b in raw), len(raw))
    return len(raw)


def _forward(inp, out, size, meta, cparams, fid):
    SEEN["metas"].add(("filter", fid, meta))
    SEEN["typesizes"].add(cparams.contents.typesize)
    C.memmove(out, bytes((b + meta) & 0xFF for b in C.string_at(inp, size)), size)
    return 0


def _backward(inp, out, size, meta, dparams, fid):
    C.memmove(out, bytes((b - meta) & 0xFF for b in C.string_at(inp, size)), size)
    return 0


CALLBACKS = (ENC(_encoder), DEC(_decoder), FWD(_forward), BWD(_backward))


def register_user_plugins(lib):
    enc, dec, fwd, bwd = CALLBACKS
    c = Codec(200, b"pyzlibxor", 200, 1, enc, dec)
    f = Filter(201, b"pyaddmeta", 1, fwd, bwd)
    return [lib.blosc2_register_codec(C.byref(c)), lib.blosc2_register_filter(C.byref(f))]


def registration_codes(lib):
    """Return codes of register calls, in a fixed order."""
    enc, dec, fwd, bwd = CALLBACKS
    codes = register_user_plugins(lib)
    cases = [
        ("codec", 100, b"low"), ("codec", 159, b"low159"), ("codec", 32, b"ndlz"),
        ("codec", 200, b"othername"), ("codec", 200, b"pyzlibxor"),
        ("filter", 100, b"low"), ("filter", 35, b"bytedelta"), ("filter", 201, b"othername"),
        ("filter", 201, b"pyaddmeta"), ("filter", 200, b"pyzlibxor"), ("codec", 201, b"pyaddmeta"),
    ]
    for kind, ident, name in cases:
        if kind == "codec":
            codes.append(lib.blosc2_register_codec(C.byref(Codec(ident, name, ident, 1, enc, dec))))
        else:
            codes.append(lib.blosc2_register_filter(C.byref(Filter(ident, name, 1, fwd, bwd))))
    free = [i for i in range(160, 256) if i not in (200, 201)]
    codes.append(sum(lib.blosc2_register_codec(C.byref(Codec(i, b"c%d" % i, i, 1, enc, dec))) for i in free))
    codes.append(sum(lib.blosc2_register_filter(C.byref(Filter(i, b"f%d" % i, 1, fwd, bwd))) for i in free))
    return codes


USER_SHAPE = {"shape": [60, 50], "chunkshape": [30, 25], "blockshape": [10, 10], "dtype": "<i4"}


def user_data():
    return bytes((i * 7 + (i // 97)) % 251 for i in range(60 * 50 * 4))


def user_cparams(codec=200, filt=201):
    cp = CParams()
    cp.compcode, cp.compcode_meta, cp.clevel, cp.typesize, cp.nthreads, cp.splitmode = codec, 0x5A, 5, 4, 1, 4
    cp.filters[0], cp.filters_meta[0] = filt, 3
    cp.filters[1] = 1
    return cp


# ---------------------------------------------------------------------------
# Roles (one library per process)
# ---------------------------------------------------------------------------


def role_write(lib, out):
    """Write the corpus's write entries and the user-plugin samples."""
    m = json.load(open(os.path.join(CORPUS, "manifest.json")))
    done = {}
    for e in m["entries"]:
        if e["kind"] not in ("chunk", "b2nd-frame") or "write" not in e["directions"]:
            continue
        data = open(os.path.join(CORPUS, e["input"]), "rb").read()
        if e["kind"] == "chunk":
            chunk, err = compress(lib, cparams_of(e["params"]), data)
            if chunk is not None:
                open(os.path.join(out, e["id"] + ".b2c"), "wb").write(chunk)
        else:
            err = write_b2nd(lib, e["params"], data, os.path.join(out, e["id"] + ".b2nd"))
        done[e["id"]] = err
    register_user_plugins(lib)
    data = user_data()
    chunk, err = compress(lib, user_cparams(), data)
    if chunk is not None:
        open(os.path.join(out, "user.b2c"), "wb").write(chunk)
    done["user-chunk"] = err
    done["user-b2nd"] = write_b2nd(lib, USER_SHAPE, data, os.path.join(out, "user.b2nd"), user_cparams())
    done["seen"] = {"schunk": SEEN["schunk"], "typesizes": sorted(SEEN["typesizes"]),
                    "metas": sorted(str(x) for x in SEEN["metas"])}
    return done


def role_read(lib, src):
    """Decode what the other library wrote."""
    m = json.load(open(os.path.join(CORPUS, "manifest.json")))
    res = {}
    for e in m["entries"]:
        if e["kind"] not in ("chunk", "b2nd-frame") or "write" not in e["directions"]:
            continue
        want = e["sha256"] if e.get("lossy") else e["input_sha256"]
        path = os.path.join(src, e["id"] + (".b2c" if e["kind"] == "chunk" else ".b2nd"))
        if not os.path.exists(path):
            res[e["id"]] = "not written"
            continue
        if e["kind"] == "chunk":
            got, err = decompress(lib, open(path, "rb").read())
        else:
            got, err = read_b2nd(lib, path, e["nbytes"])
        res[e["id"]] = err if err else (None if sha(got) == want else "bytes differ")
    register_user_plugins(lib)
    data = user_data()
    path = os.path.join(src, "user.b2c")
    if os.path.exists(path):
        chunk = open(path, "rb").read()
        got, err = decompress(lib, chunk)
        res["user-chunk"] = err if err else (None if got == data else "bytes differ")
        gi = getitem(lib, chunk, 700, 50, 4)
        res["user-getitem"] = None if gi == data[2800:3000] else "getitem differs"
    else:
        res["user-chunk"] = "not written"
    got, err = read_b2nd(lib, os.path.join(src, "user.b2nd"), len(data))
    res["user-b2nd"] = err if err else (None if got == data else "bytes differ")
    # Refusals.
    refusals = {}
    refusals["unregistered codec"] = compress(lib, user_cparams(codec=250, filt=0), data)[0] is None
    refusals["unregistered filter"] = compress(lib, user_cparams(codec=0, filt=251), data)[0] is None
    FAIL_ENCODE["on"] = True
    refusals["failing encoder"] = compress(lib, user_cparams(filt=0), data)[0] is None
    FAIL_ENCODE["on"] = False
    if os.path.exists(path):
        bad = bytearray(open(path, "rb").read())
        bad[22] = 252  # a codec id nobody registered
        refusals["unknown udcompcode"] = decompress(lib, bytes(bad))[0] is None
    res["refusals"] = refusals
    return res


def child(role, libpath, d):
    lib = load(reference_lib() if libpath == "reference" else libpath)
    if role == "write":
        r = role_write(lib, d)
    elif role == "read":
        r = role_read(lib, d)
    else:
        r = registration_codes(lib)
    print(json.dumps(r))


def run_child(role, libpath, d):
    out = subprocess.run([sys.executable, __file__, "--child", role, "--lib", libpath, "--dir", d],
                         capture_output=True, text=True)
    if out.returncode != 0:
        raise SystemExit(f"child {role} {libpath} failed ({out.returncode}):\n{out.stderr[-3000:]}")
    return json.loads(out.stdout.strip().splitlines()[-1])


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--lib", default=os.path.join(ROOT, "target", "debug", "libblosc2.so"))
    ap.add_argument("--child")
    ap.add_argument("--dir")
    a = ap.parse_args()
    if a.child:
        child(a.child, a.lib, a.dir)
        return 0
    fails = []
    groups = {e["id"]: e["group"] for e in json.load(open(os.path.join(CORPUS, "manifest.json")))["entries"]}
    with tempfile.TemporaryDirectory() as ours_dir, tempfile.TemporaryDirectory() as ref_dir:
        wrote = run_child("write", a.lib, ours_dir)
        unwritten = {k: v for k, v in wrote.items() if k != "seen" and v}
        read = run_child("read", "reference", ours_dir)
        counts = {}
        for k, v in read.items():
            if k not in groups:
                continue
            ok = v is None and not unwritten.get(k)
            c = counts.setdefault(groups[k], [0, 0])
            c[0 if ok else 1] += 1
            if not ok and groups[k] not in PENDING:
                fails.append(f"reference reading our {k}: {unwritten.get(k) or v}")
        for g, (ok, bad) in sorted(counts.items()):
            print(f"write (ours) -> read (reference): {g}: {ok} passed, {bad} failed")
        for k in ("user-chunk", "user-getitem", "user-b2nd"):
            print(f"user plugins, ours -> reference: {k}: {read.get(k) or 'ok'}")
            if read.get(k):
                fails.append(f"reference reading our {k}: {read[k]}")
        print(f"our callbacks saw: {wrote['seen']}")
        if not wrote["seen"]["schunk"]:
            fails.append("our user callbacks never got a super-chunk")
        if unwritten:
            print(f"entries we could not write: {sorted(unwritten)}")
        for g in sorted(PENDING & set(counts)):
            print(f"(pending: {g} is not implemented yet; its failures are not counted)")
        run_child("write", "reference", ref_dir)
        back = run_child("read", a.lib, ref_dir)
        for k in ("user-chunk", "user-getitem", "user-b2nd"):
            print(f"user plugins, reference -> ours: {k}: {back.get(k) or 'ok'}")
            if back.get(k):
                fails.append(f"our library reading the reference's {k}: {back[k]}")
        for who, r in (("reference", read["refusals"]), ("ours", back["refusals"])):
            for k, v in r.items():
                if not v:
                    fails.append(f"{who}: {k} was not refused")
        print(f"refusals: reference {read['refusals']}, ours {back['refusals']}")
    ref_codes = run_child("codes", "reference", "")
    our_codes = run_child("codes", a.lib, "")
    print(f"registration codes: reference {ref_codes}, ours {our_codes}")
    if ref_codes != our_codes:
        fails.append(f"registration codes differ: reference {ref_codes}, ours {our_codes}")
    for f in fails:
        print("FAIL:", f)
    print(f"plugins interop: {'FAILED' if fails else 'passed'} ({len(fails)} failures)")
    return 1 if fails else 0


if __name__ == "__main__":
    sys.exit(main())
