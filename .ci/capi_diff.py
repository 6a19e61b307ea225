#!/usr/bin/env python3
"""Differential check of the C API against the reference C-Blosc2 3.3.5.

Calls the same functions, with NULL, garbage and edge-case arguments, on
our libblosc2.so and on the one shipped with python-blosc2, each call in a
forked child so that a crash of either library is recorded instead of
ending the run. Also checks that each library decompresses the chunks the
other one writes.

Usage: python3 .ci/capi_diff.py path/to/our/libblosc2.so [--verbose]

Exit status 0 when every call where the reference returns (does not crash)
gives the same result with our library, and our library never crashes. On
garbage chunks, any negative code matches any other (the brief asks for a
negative BLOSC2_ERROR_* code there, not 3.3.5's choice among them); where
3.3.5 returns data for garbage that we refuse, the reason is listed
(KNOWN, known_garbage). Run by CI through .ci/capi_diff.sh.
"""

import ctypes as C
import os
import pickle
import random
import sys

HERE = os.path.dirname(os.path.abspath(__file__))


def reference_lib():
    import blosc2  # noqa: F401  (python-blosc2 ships the reference library)

    d = os.path.join(os.path.dirname(blosc2.__file__), "lib")
    for name in ("libblosc2.so", "libblosc2.so.9"):
        p = os.path.join(d, name)
        if os.path.exists(p):
            return p
    raise SystemExit("reference libblosc2.so not found in %s" % d)


class CParams(C.Structure):
    _fields_ = [
        ("compcode", C.c_uint8),
        ("compcode_meta", C.c_uint8),
        ("clevel", C.c_uint8),
        ("use_dict", C.c_int),
        ("typesize", C.c_int32),
        ("nthreads", C.c_int16),
        ("blocksize", C.c_int32),
        ("splitmode", C.c_int32),
        ("schunk", C.c_void_p),
        ("filters", C.c_uint8 * 6),
        ("filters_meta", C.c_uint8 * 6),
        ("prefilter", C.c_void_p),
        ("preparams", C.c_void_p),
        ("tuner_params", C.c_void_p),
        ("tuner_id", C.c_int),
        ("instr_codec", C.c_bool),
        ("codec_params", C.c_void_p),
        ("filter_params", C.c_void_p * 6),
    ]


class DParams(C.Structure):
    _fields_ = [
        ("nthreads", C.c_int16),
        ("schunk", C.c_void_p),
        ("postfilter", C.c_void_p),
        ("postparams", C.c_void_p),
        ("typesize", C.c_int32),
    ]


class Storage(C.Structure):
    _fields_ = [
        ("contiguous", C.c_bool),
        ("urlpath", C.c_char_p),
        ("cparams", C.POINTER(CParams)),
        ("dparams", C.POINTER(DParams)),
        ("io", C.c_void_p),
    ]


def cparams(**kw):
    p = CParams()
    p.compcode, p.clevel, p.typesize, p.nthreads, p.splitmode = 0, 5, 8, 1, 4
    p.filters[5] = 1
    for k, v in kw.items():
        if k == "filters":
            for i, f in enumerate(v):
                p.filters[i] = f
        else:
            setattr(p, k, v)
    return p


def dparams(**kw):
    p = DParams()
    p.nthreads, p.typesize = 1, 8
    for k, v in kw.items():
        setattr(p, k, v)
    return p


def setup(lib):
    """Declare the prototypes used below."""
    vp, i32, i = C.c_void_p, C.c_int32, C.c_int
    sigs = {
        "blosc2_init": (None, []),
        "blosc2_destroy": (None, []),
        "blosc2_free_resources": (i, []),
        "blosc2_compress": (i, [i, i, i32, vp, i32, vp, i32]),
        "blosc2_decompress": (i, [vp, i32, vp, i32]),
        "blosc2_getitem": (i, [vp, i32, i, i, vp, i32]),
        "blosc1_compress": (i, [i, i, C.c_size_t, C.c_size_t, vp, vp, C.c_size_t]),
        "blosc1_decompress": (i, [vp, vp, C.c_size_t]),
        "blosc1_getitem": (i, [vp, i, i, vp]),
        "blosc2_create_cctx": (vp, [CParams]),
        "blosc2_create_dctx": (vp, [DParams]),
        "blosc2_free_ctx": (None, [vp]),
        "blosc2_compress_ctx": (i, [vp, vp, i32, vp, i32]),
        "blosc2_decompress_ctx": (i, [vp, vp, i32, vp, i32]),
        "blosc2_getitem_ctx": (i, [vp, vp, i32, i, i, vp, i32]),
        "blosc2_getitem_bytes_ctx": (i, [vp, vp, i32, i32, i32, vp, i32]),
        "blosc2_set_maskout": (i, [vp, vp, i]),
        "blosc2_cbuffer_sizes": (i, [vp, vp, vp, vp]),
        "blosc1_cbuffer_validate": (i, [vp, C.c_size_t, vp]),
        "blosc2_cbuffer_complib": (C.c_char_p, [vp]),
        "blosc2_chunk_zeros": (i, [CParams, i32, vp, i32]),
        "blosc2_chunk_nans": (i, [CParams, i32, vp, i32]),
        "blosc2_chunk_uninit": (i, [CParams, i32, vp, i32]),
        "blosc2_chunk_repeatval": (i, [CParams, i32, vp, i32, vp]),
        "blosc2_shuffle": (i32, [i32, i32, vp, vp]),
        "blosc2_unshuffle": (i32, [i32, i32, vp, vp]),
        "blosc2_bitshuffle": (i32, [i32, i32, vp, vp]),
        "blosc2_bitunshuffle": (i32, [i32, i32, vp, vp]),
        "blosc2_vlchunk_get_nblocks": (i, [vp, i32, vp]),
        "blosc2_vldecompress_ctx": (i, [vp, vp, i32, vp, vp, i32]),
        "blosc2_vldecompress_block_ctx": (i, [vp, vp, i32, i32, vp, vp]),
        "blosc2_vlcompress_ctx": (i, [vp, vp, vp, i32, vp, i32]),
        "blosc2_set_nthreads": (C.c_int16, [C.c_int16]),
        "blosc2_get_nthreads": (C.c_int16, []),
        "blosc1_set_compressor": (i, [C.c_char_p]),
        "blosc1_get_compressor": (C.c_char_p, []),
        "blosc2_compname_to_compcode": (i, [C.c_char_p]),
        "blosc2_compcode_to_compname": (i, [i, vp]),
        "blosc2_get_complib_info": (i, [C.c_char_p, vp, vp]),
        "blosc2_error_string": (C.c_char_p, [i]),
        "blosc2_list_compressors": (C.c_char_p, []),
        "blosc2_get_version_string": (C.c_char_p, []),
    }
    for name, (res, args) in sigs.items():
        f = getattr(lib, name)
        f.restype = res
        f.argtypes = args
    return lib


def buf(data):
    if isinstance(data, int):
        return C.create_string_buffer(data)
    return C.create_string_buffer(bytes(data), len(data))


def addr(b):
    return C.cast(b, C.c_void_p).value


def data(n, seed=1):
    r = random.Random(seed)
    return bytes((i // 7 + r.randrange(4)) & 0xFF for i in range(n))


def compressed(lib, n=4000, **kw):
    ctx = lib.blosc2_create_cctx(cparams(**kw))
    src = buf(data(n))
    dst = buf(n + 64)
    c = lib.blosc2_compress_ctx(ctx, src, n, dst, n + 64)
    lib.blosc2_free_ctx(ctx)
    return dst.raw[: max(c, 0)]


HEADERS = []


def garbage_headers():
    """Hand-made and random 16..64-byte headers."""
    if HEADERS:
        return HEADERS
    r = random.Random(42)
    base = bytearray(compressed_template())
    for k in range(40):
        h = bytearray(base[:64])
        pos = r.randrange(32)
        h[pos] = r.randrange(256)
        HEADERS.append(bytes(h))
    for ver in (0, 1, 2, 5, 6, 7, 200):
        for flags in (0x00, 0x01, 0x02, 0x05, 0x07, 0x15, 0x25, 0xE5):
            h = bytearray(64)
            h[0], h[1], h[2], h[3] = ver, 1, flags, 4
            h[4:8] = (1000).to_bytes(4, "little")
            h[8:12] = (256).to_bytes(4, "little")
            h[12:16] = (64).to_bytes(4, "little")
            HEADERS.append(bytes(h))
    for field, vals in ((4, (-1, 0, 1, 2**31 - 1)), (8, (-1, 0, 536866817)), (12, (-1, 0, 15, 16, 31, 32, 10**6))):
        for v in vals:
            h = bytearray(base[:64])
            h[field:field + 4] = (v & 0xFFFFFFFF).to_bytes(4, "little")
            HEADERS.append(bytes(h))
    for special in range(8):
        h = bytearray(base[:32])
        h[31] = special << 4
        h[12:16] = (32 + (8 if special == 3 else 0)).to_bytes(4, "little")
        HEADERS.append(bytes(h) + bytes(8))
    h = bytearray(base[:32])
    h[30] = 1  # VL blocks flag on a regular chunk
    HEADERS.append(bytes(h) + bytes(32))
    return HEADERS


_TEMPLATE = []


def compressed_template():
    if not _TEMPLATE:
        _TEMPLATE.append(compressed(REF, 4000, typesize=4, compcode=5))
    return _TEMPLATE[0]


def cases():
    """(name, fn(lib) -> picklable result) pairs."""
    out = []

    def add(name, fn):
        out.append((name, fn))

    NULL = None
    # Global API.
    add("free_resources before init", lambda L: L.blosc2_free_resources())
    for clevel, shuffle, ts, n, dsz in [(5, 1, 4, 1000, 1100), (10, 1, 4, 1000, 1100), (-1, 1, 4, 1000, 1100),
                                        (5, 1, 0, 1000, 1100), (5, 1, 4, 1000, 31), (5, 1, 4, 1000, 32),
                                        (5, 1, 4, 1000, 100), (5, 7, 4, 1000, 1100), (5, 1, 300, 1000, 1100),
                                        (5, 1, 4, 0, 32), (5, 1, 4, 2**31 - 1, 64), (5, 1, 4, 1000, -1)]:
        def f(L, a=(clevel, shuffle, ts, n, dsz)):
            src = buf(data(min(a[3], 5000)) + bytes(max(0, 0)))
            if a[3] > 5000:
                return "skip"
            dst = buf(max(a[4], 0) + 16)
            return L.blosc2_compress(a[0], a[1], a[2], src, a[3], dst, a[4])
        add("blosc2_compress%r" % ((clevel, shuffle, ts, n, dsz),), f)
    add("blosc2_compress srcsize>max", lambda L: L.blosc2_compress(5, 1, 4, NULL, 2**31 - 1, buf(64), 64))
    add("blosc2_decompress NULL 0", lambda L: L.blosc2_decompress(NULL, 0, buf(10), 10))
    add("blosc2_decompress short", lambda L: L.blosc2_decompress(buf(15), 15, buf(10), 10))
    add("blosc2_getitem short", lambda L: L.blosc2_getitem(buf(10), 10, 0, 1, buf(10), 10))
    add("set_nthreads(0)", lambda L: (L.blosc2_set_nthreads(0), L.blosc2_get_nthreads()))
    add("set_nthreads(-3)", lambda L: (L.blosc2_set_nthreads(-3), L.blosc2_get_nthreads()))
    add("set_compressor(foo)", lambda L: (L.blosc1_set_compressor(b"foo"), L.blosc1_get_compressor()))
    add("set_compressor(zstd)", lambda L: (L.blosc1_set_compressor(b"zstd"), L.blosc1_get_compressor()))
    # The plugin codecs (ndlz 32, grok 37, ...) join 3.3.5's codec table in
    # blosc2_init, so these cases, which name them, run after it as programs do.
    def compname_codes(L):
        L.blosc2_init()
        return [L.blosc2_compname_to_compcode(n) for n in
                (b"blosclz", b"lz4", b"lz4hc", b"zlib", b"zstd", b"", b"LZ4", b"ndlz")]
    add("compname_to_compcode", compname_codes)

    def compcode_names(L):
        L.blosc2_init()
        res = []
        for code in (-1, 0, 1, 2, 3, 4, 5, 6, 31, 32, 37, 255, 1000):
            p = C.c_char_p()
            r = L.blosc2_compcode_to_compname(code, C.byref(p))
            res.append((r, p.value))
        return res
    add("compcode_to_compname", compcode_names)

    def complib(L):
        res = []
        for n in (b"blosclz", b"lz4", b"lz4hc", b"zlib", b"zstd"):
            a, b = C.c_char_p(), C.c_char_p()
            r = L.blosc2_get_complib_info(n, C.byref(a), C.byref(b))
            res.append((r, a.value))
        return res
    add("get_complib_info", complib)
    add("error_string", lambda L: [L.blosc2_error_string(c) for c in range(-40, 3)])
    add("list_compressors", lambda L: L.blosc2_list_compressors())
    add("version", lambda L: L.blosc2_get_version_string())

    # Contexts.
    add("create_cctx undefined filter", lambda L: L.blosc2_create_cctx(cparams(filters=[17])) is None)
    add("create_cctx filter 40", lambda L: L.blosc2_create_cctx(cparams(filters=[40])) is None)
    add("create_cctx filter 36", lambda L: L.blosc2_create_cctx(cparams(filters=[36])) is None)
    add("create_cctx tuner 99", lambda L: L.blosc2_create_cctx(cparams(tuner_id=99)) is None)

    def ctx_call(kind, fn):
        def g(L):
            ctx = L.blosc2_create_cctx(cparams(typesize=4)) if kind == "c" else L.blosc2_create_dctx(dparams())
            try:
                return fn(L, ctx)
            finally:
                L.blosc2_free_ctx(ctx)
        return g

    add("compress_ctx on dctx", ctx_call("d", lambda L, c: L.blosc2_compress_ctx(c, buf(100), 100, buf(200), 200)))
    add("decompress_ctx on cctx", ctx_call("c", lambda L, c: L.blosc2_decompress_ctx(c, buf(100), 100, buf(200), 200)))
    for ss, ds in ((100, 10), (100, 31), (100, 32), (100, 133), (0, 40), (-1, 40), (2**31 - 33, 40)):
        add("compress_ctx sizes %r" % ((ss, ds),), ctx_call("c", lambda L, c, a=(ss, ds): L.blosc2_compress_ctx(
            c, buf(max(a[0], 0) if a[0] < 10**6 else 0) if a[0] < 10**6 else None, a[0], buf(max(a[1], 0)), a[1])))
    for clevel in (10, 255):
        add("compress_ctx clevel %d" % clevel, lambda L, cl=clevel: _cc(L, cparams(clevel=cl, typesize=4)))
    add("compress_ctx typesize 0", lambda L: _cc(L, cparams(typesize=0)))
    add("compress_ctx typesize huge", lambda L: _cc(L, cparams(typesize=536866817)))
    add("compress_ctx codec 3", lambda L: _cc(L, cparams(compcode=3, typesize=4)))
    add("compress_ctx codec 200", lambda L: _cc(L, cparams(compcode=200, typesize=4)))
    add("compress_ctx dict blosclz", lambda L: _cc(L, cparams(use_dict=1, typesize=4)))
    add("compress_ctx nthreads 0", lambda L: _cc(L, cparams(nthreads=0, typesize=4)))
    add("compress_ctx blocksize -5", lambda L: _cc(L, cparams(blocksize=-5, typesize=4)))
    add("compress_ctx trunc ts2", lambda L: _cc(L, cparams(typesize=2, filters=[0, 0, 0, 0, 0, 4])))
    add("decompress_ctx nthreads 0", lambda L: _dc(L, dparams(nthreads=0)))

    # Garbage chunks.
    for k, h in enumerate(garbage_headers()):
        for srcsize in (16, 31, 32, len(h)):
            add("decompress garbage %d/%d" % (k, srcsize), ctx_call("d", lambda L, c, h=h, s=srcsize:
                L.blosc2_decompress_ctx(c, buf(h), s, buf(4096), 4096)))
        add("cbuffer_sizes garbage %d" % k, lambda L, h=h: _sizes(L, h))
        add("validate garbage %d" % k, lambda L, h=h: _validate(L, h, len(h)))
        add("complib garbage %d" % k, lambda L, h=h: L.blosc2_cbuffer_complib(buf(h)))
        add("getitem garbage %d" % k, ctx_call("d", lambda L, c, h=h:
            L.blosc2_getitem_ctx(c, buf(h), len(h), 1, 2, buf(4096), 4096)))
        add("vl_nblocks garbage %d" % k, lambda L, h=h: _nblocks(L, h))
    # Truncated real chunks.
    for codec in (0, 1, 4, 5):
        full = compressed(REF, 3000, typesize=4, compcode=codec, blocksize=512)
        for cut in (16, 31, 32, 40, len(full) // 2, len(full) - 1, len(full)):
            add("truncated %d/%d" % (codec, cut), ctx_call("d", lambda L, c, f=full, n=cut:
                L.blosc2_decompress_ctx(c, buf(f), n, buf(4000), 4000)))
            add("getitem truncated %d/%d" % (codec, cut), ctx_call("d", lambda L, c, f=full, n=cut:
                L.blosc2_getitem_ctx(c, buf(f), n, 700, 10, buf(4000), 4000)))
        for st, ni, ds in ((0, 0, 10), (-1, 1, 10), (0, -1, 10), (749, 1, 10), (750, 1, 10), (0, 4, 15), (1, 2**30, 10)):
            add("getitem range %d %r" % (codec, (st, ni, ds)), ctx_call("d", lambda L, c, f=full, a=(st, ni, ds):
                L.blosc2_getitem_ctx(c, buf(f), len(f), a[0], a[1], buf(max(a[2], 0)), a[2])))
            add("getitem_bytes range %d %r" % (codec, (st, ni, ds)), ctx_call("d", lambda L, c, f=full, a=(st, ni, ds):
                L.blosc2_getitem_bytes_ctx(c, buf(f), len(f), a[0] * 4, a[1] * 4, buf(max(a[2], 0)), a[2])))
        add("getitem_bytes unaligned %d" % codec, ctx_call("d", lambda L, c, f=full:
            L.blosc2_getitem_bytes_ctx(c, buf(f), len(f), 2, 4, buf(64), 64)))
        add("decompress small dest %d" % codec, ctx_call("d", lambda L, c, f=full:
            L.blosc2_decompress_ctx(c, buf(f), len(f), buf(2999), 2999)))
        add("validate sizes %d" % codec, lambda L, f=full: [_validate(L, f, n) for n in (0, 15, 16, len(f) - 1, len(f), len(f) + 1)])
        add("maskout wrong length %d" % codec, ctx_call("d", lambda L, c, f=full: (
            L.blosc2_set_maskout(c, buf(3), 3), L.blosc2_decompress_ctx(c, buf(f), len(f), buf(3000), 3000),
            L.blosc2_decompress_ctx(c, buf(f), len(f), buf(3000), 3000))))

    # Special chunks.
    for fn in ("blosc2_chunk_zeros", "blosc2_chunk_nans", "blosc2_chunk_uninit"):
        for ts, nb, ds in ((8, 80, 64), (8, 80, 31), (8, 81, 64), (8, 0, 64), (4, 80, 64), (2, 80, 64),
                           (8, -8, 64), (3, 9, 64), (8, 2**31 - 8, 64)):
            add("%s %r" % (fn, (ts, nb, ds)), lambda L, fn=fn, a=(ts, nb, ds):
                getattr(L, fn)(cparams(typesize=a[0]), a[1], buf(max(a[2], 0)), a[2]))
        add("%s clevel 10" % fn, lambda L, fn=fn: getattr(L, fn)(cparams(clevel=10), 80, buf(64), 64))
        add("%s bad filter" % fn, lambda L, fn=fn: getattr(L, fn)(cparams(filters=[9]), 80, buf(64), 64))
    for ts, nb, ds in ((8, 80, 40), (8, 80, 39), (3, 9, 64), (8, 81, 64), (4, 0, 64)):
        add("repeatval %r" % ((ts, nb, ds),), lambda L, a=(ts, nb, ds):
            L.blosc2_chunk_repeatval(cparams(typesize=a[0]), a[1], buf(a[2]), a[2], buf(16)))

    # Raw shuffles.
    for fn in ("blosc2_shuffle", "blosc2_unshuffle", "blosc2_bitshuffle", "blosc2_bitunshuffle"):
        for ts, bs in ((4, 100), (1, 100), (256, 512), (257, 512), (4, -1), (4, 0), (3, 100), (-1, 100)):
            if fn == "blosc2_bitunshuffle" and ts <= 0:
                continue
            add("%s %r" % (fn, (ts, bs)), lambda L, fn=fn, a=(ts, bs):
                getattr(L, fn)(a[0], a[1], buf(max(a[1], 0) + 8), buf(max(a[1], 0) + 8)))

    # VL blocks.
    add("vl_nblocks NULL", lambda L: L.blosc2_vlchunk_get_nblocks(None, 100, buf(4)))
    add("vl_nblocks NULL out", lambda L: L.blosc2_vlchunk_get_nblocks(buf(100), 100, None))
    add("vldecompress bad args", ctx_call("d", lambda L, c: (
        L.blosc2_vldecompress_ctx(c, buf(100), 100, None, buf(8), 1),
        L.blosc2_vldecompress_ctx(c, buf(100), 100, buf(8), buf(8), 0))))
    add("vldecompress_block bad args", ctx_call("d", lambda L, c:
        L.blosc2_vldecompress_block_ctx(c, buf(100), 100, 0, None, None)))
    add("vlcompress bad args", ctx_call("c", lambda L, c: (
        L.blosc2_vlcompress_ctx(c, None, None, 1, buf(100), 100),
        L.blosc2_vlcompress_ctx(c, buf(8), buf(4), 0, buf(100), 100))))
    return out


def _cc(L, p):
    ctx = L.blosc2_create_cctx(p)
    if not ctx:
        return "NULL ctx"
    try:
        return L.blosc2_compress_ctx(ctx, buf(data(1000)), 1000, buf(1100), 1100)
    finally:
        L.blosc2_free_ctx(ctx)


def _dc(L, p):
    ctx = L.blosc2_create_dctx(p)
    chunk = compressed_template()
    try:
        return L.blosc2_decompress_ctx(ctx, buf(chunk), len(chunk), buf(4000), 4000)
    finally:
        L.blosc2_free_ctx(ctx)


def _sizes(L, h):
    a, b, c = C.c_int32(7), C.c_int32(7), C.c_int32(7)
    r = L.blosc2_cbuffer_sizes(buf(h), C.byref(a), C.byref(b), C.byref(c))
    return (r, a.value, b.value, c.value)


def _validate(L, h, n):
    out = C.c_size_t(7)
    return (L.blosc1_cbuffer_validate(buf(h), n, C.byref(out)), out.value)


def _nblocks(L, h):
    out = C.c_int32(0)
    r = L.blosc2_vlchunk_get_nblocks(buf(h), len(h), C.byref(out))
    return (r, out.value if r == 0 else None)


# Deliberate differences: 3.3.5 returns a result there that is not a valid
# outcome (a chunk with a negative size, garbage codes), or accepts what can
# never be decompressed. Prefix of the case name -> reason.
KNOWN = {
    "compress_ctx sizes (-1,": "negative srcsize: 3.3.5 writes a chunk claiming -1 bytes; we refuse (-12)",
    "compress_ctx sizes (2147483615,": "NULL src with a size: 3.3.5 does not read it when dest is tiny; we refuse (-32)",
    "compress_ctx blocksize -5": "negative blocksize: 3.3.5 returns a garbage code; we refuse (-12)",
    "blosc2_chunk_zeros (8, -8,": "negative nbytes: 3.3.5 writes a chunk claiming -8 bytes; we refuse (-12)",
    "blosc2_chunk_uninit (8, -8,": "negative nbytes, as above",
    "blosc2_chunk_nans (8, -8,": "negative nbytes, as above",
    "blosc2_chunk_nans (2,": "NaN chunks only exist for typesize 4 and 8; 3.3.5 writes one it cannot decode",
    "blosc2_chunk_nans (3,": "as above",
}


def known(name):
    for prefix, why in KNOWN.items():
        if name.startswith(prefix):
            return why
    return known_garbage().get(name)


_KNOWN_GARBAGE = {}


def known_garbage():
    """Garbage headers 3.3.5 returns data for where we refuse, by case name:
    it trusts a header field we check against another."""
    if not _KNOWN_GARBAGE:
        for k, h in enumerate(garbage_headers()):
            nbytes, cbytes = (int.from_bytes(h[o:o + 4], "little", signed=True) for o in (4, 12))
            extended = h[2] & 0x05 == 0x05
            if h[2] & 0x02 and cbytes != nbytes + (32 if extended else 16):
                _KNOWN_GARBAGE["getitem garbage %d" % k] = (
                    "memcpyed chunk whose cbytes does not match nbytes: 3.3.5 copies the items "
                    "anyway, we refuse the chunk")
            if extended and len(h) >= 32 and h[31] >> 4 & 7 and cbytes > len(h):
                why = "special-value chunk claiming more bytes than given: 3.3.5 decodes its header, we refuse"
                for srcsize in (16, 31, 32, len(h)):
                    _KNOWN_GARBAGE["decompress garbage %d/%d" % (k, srcsize)] = why
                _KNOWN_GARBAGE["getitem garbage %d" % k] = why
    return _KNOWN_GARBAGE


def both_refuse(ref, our):
    """Both libraries return an error (a negative code, or a pair starting
    with one): for garbage input the brief asks for a negative code, not
    3.3.5's exact one."""
    def code(r):
        v = r[1] if r[0] == "ok" else None
        return v[0] if isinstance(v, tuple) else v
    a, b = code(ref), code(our)
    return isinstance(a, int) and isinstance(b, int) and a < 0 and b < 0


def in_child(lib, fn):
    """Run fn(lib) in a forked child; ('ok', result) or ('crash', signal)."""
    rfd, wfd = os.pipe()
    pid = os.fork()
    if pid == 0:
        os.close(rfd)
        try:
            res = ("ok", fn(lib))
        except Exception as e:  # a Python-side problem in the case itself
            res = ("exception", repr(e))
        os.write(wfd, pickle.dumps(res))
        os._exit(0)
    os.close(wfd)
    chunks = []
    while True:
        b = os.read(rfd, 65536)
        if not b:
            break
        chunks.append(b)
    os.close(rfd)
    _, status = os.waitpid(pid, 0)
    if os.WIFSIGNALED(status):
        return ("crash", os.WTERMSIG(status))
    return pickle.loads(b"".join(chunks)) if chunks else ("crash", "no result")


def cross_check(ours):
    """Each library decompresses what the other compresses."""
    problems = []
    for codec in (0, 1, 2, 4, 5):
        for filters in ([0] * 6, [0, 0, 0, 0, 0, 1], [0, 0, 0, 0, 0, 2], [0, 0, 0, 0, 3, 1]):
            for ts in (1, 4, 8, 3):
                for n in (0, 31, 1000, 100000):
                    src = data(n, seed=codec * 31 + ts)
                    for writer, reader, tag in ((REF, ours, "ref->ours"), (ours, REF, "ours->ref")):
                        chunk = compressed_with(writer, src, compcode=codec, filters=filters, typesize=ts)
                        if chunk is None:
                            problems.append("%s: compress failed codec %d filters %r ts %d n %d" % (tag, codec, filters, ts, n))
                            continue
                        dctx = reader.blosc2_create_dctx(dparams())
                        out = buf(n + 1)
                        r = reader.blosc2_decompress_ctx(dctx, buf(chunk), len(chunk), out, n + 1)
                        reader.blosc2_free_ctx(dctx)
                        if r != n or out.raw[:n] != src:
                            problems.append("%s: codec %d filters %r ts %d n %d -> %d" % (tag, codec, filters, ts, n, r))
    return problems


def randomised_args(default_cases):
    """(our library, cases, seed) from the command line of the randomised
    tests (`chunk_diff.py`, `schunk_diff.py`): LIB [CASES [SEED]]."""
    ours = os.path.abspath(sys.argv[1])
    cases = int(sys.argv[2]) if len(sys.argv) > 2 else default_cases
    seed = int(sys.argv[3]) if len(sys.argv) > 3 else 1
    return ours, cases, seed


def compressed_with(lib, src, **kw):
    ctx = lib.blosc2_create_cctx(cparams(**kw))
    dst = buf(len(src) + 64)
    c = lib.blosc2_compress_ctx(ctx, buf(src) if src else None, len(src), dst, len(src) + 64)
    lib.blosc2_free_ctx(ctx)
    return dst.raw[:c] if c > 0 else None


def main():
    global REF
    if len(sys.argv) < 2:
        print(__doc__)
        return 2
    verbose = "--verbose" in sys.argv
    ours = setup(C.CDLL(os.path.abspath(sys.argv[1])))
    REF = setup(C.CDLL(reference_lib()))
    for var in [v for v in os.environ if v.startswith("BLOSC_")]:
        del os.environ[var]
    mismatches, crashes, ref_crashes, total = [], [], 0, 0
    for name, fn in cases():
        total += 1
        ref = in_child(REF, fn)
        our = in_child(ours, fn)
        if our[0] != "ok":
            crashes.append((name, our))
        if ref[0] == "crash":
            ref_crashes += 1
            if verbose:
                print("ref crashes: %s; ours: %r" % (name, our))
            continue
        if ref != our and "garbage" in name and both_refuse(ref, our):
            if verbose:
                print("both refuse %s: reference %r, ours %r" % (name, ref, our))
            continue
        if ref != our:
            why = known(name)
            if why:
                if verbose:
                    print("known difference %s: reference %r, ours %r (%s)" % (name, ref, our, why))
                continue
            mismatches.append((name, ref, our))
    problems = cross_check(ours)
    for name, ref, our in mismatches:
        print("MISMATCH %s: reference %r, ours %r" % (name, ref, our))
    for name, our in crashes:
        print("CRASH (ours) %s: %r" % (name, our))
    for p in problems:
        print("CROSS %s" % p)
    print("%d cases: %d mismatches, %d crashes of ours, %d where the reference crashes; %d cross-library problems"
          % (total, len(mismatches), len(crashes), ref_crashes, len(problems)))
    return 1 if (mismatches or crashes or problems) else 0


REF = None

if __name__ == "__main__":
    sys.exit(main())
