#!/usr/bin/env python3
"""Randomised differential test of super-chunks and frames against the
reference C-Blosc2 3.3.5 (python-blosc2 4.14.1).

Each case draws compression parameters (one thread, so that chunks are the
reference's bytes), a storage (in memory, contiguous or sparse; a frame
file; a sparse directory), metalayers, and a sequence of operations:
append_buffer (a short last chunk included), append/insert/update_chunk,
delete_chunk, reorder_offsets, set_slice_buffer and vlmeta add/update/
delete. Both libraries run the same sequence on their own super-chunk.
Then:

1. every call returns the same value in both;
2. both hold what a model of the sequence says (every chunk, a random
   slice, nchunks, the metalayers and vlmetalayers);
3. both write byte-identical frames (`to_buffer`, and the files of frames
   on disk), unless the codec is zlib at clevel 2-9 (we Huffman-code the
   noise in blocks alone: other bytes, so other offsets);
4. each library opens the other's frame (from the buffer, and from disk)
   and reads the model's contents.

Usage: python3 .ci/schunk_diff.py path/to/our/libblosc2.so [CASES [SEED]]
Exit status 0 when no case fails.
"""

import ctypes as C
import os
import random
import shutil
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from capi_diff import CParams, DParams, Storage, in_child, randomised_args, reference_lib  # noqa: E402


# blosc2_schunk fields (API.md layout): int64_t nchunks, the metalayer
# pointers and uint16_t nmetalayers; blosc2_metalayer is {name, content,
# content_len}. (blosc2_meta_get is an inline function of blosc2.h that
# reads them this way.)
CHUNKSIZE_OFFSET = 16
NCHUNKS_OFFSET = 40
METALAYERS_OFFSET = 120
NMETALAYERS_OFFSET = 248


class Metalayer(C.Structure):
    _fields_ = [("name", C.c_char_p), ("content", C.POINTER(C.c_uint8)), ("content_len", C.c_int32)]
LIBC = C.CDLL(None)
LIBC.free.argtypes = [C.c_void_p]


def declare(lib):
    vp, i, i32, i64, b = C.c_void_p, C.c_int, C.c_int32, C.c_int64, C.c_bool
    pp8 = C.POINTER(C.POINTER(C.c_uint8))
    sigs = {
        "blosc2_init": (None, []),
        "blosc2_create_cctx": (vp, [CParams]),
        "blosc2_free_ctx": (None, [vp]),
        "blosc2_compress_ctx": (i, [vp, vp, i32, vp, i32]),
        "blosc2_schunk_new": (vp, [C.POINTER(Storage)]),
        "blosc2_schunk_free": (i, [vp]),
        "blosc2_schunk_open": (vp, [C.c_char_p]),
        "blosc2_schunk_from_buffer": (vp, [vp, i64, b]),
        "blosc2_schunk_to_buffer": (i64, [vp, pp8, C.POINTER(b)]),
        "blosc2_schunk_append_buffer": (i64, [vp, vp, i32]),
        "blosc2_schunk_append_chunk": (i64, [vp, vp, b]),
        "blosc2_schunk_insert_chunk": (i64, [vp, i64, vp, b]),
        "blosc2_schunk_update_chunk": (i64, [vp, i64, vp, b]),
        "blosc2_schunk_delete_chunk": (i64, [vp, i64]),
        "blosc2_schunk_reorder_offsets": (i, [vp, C.POINTER(i64)]),
        "blosc2_schunk_decompress_chunk": (i, [vp, i64, vp, i32]),
        "blosc2_schunk_get_chunk": (i, [vp, i64, pp8, C.POINTER(b)]),
        "blosc2_schunk_get_slice_buffer": (i, [vp, i64, i64, vp]),
        "blosc2_schunk_set_slice_buffer": (i, [vp, i64, i64, vp]),
        "blosc2_meta_add": (i, [vp, C.c_char_p, vp, i32]),
        "blosc2_vlmeta_add": (i, [vp, C.c_char_p, vp, i32, C.POINTER(CParams)]),
        "blosc2_vlmeta_update": (i, [vp, C.c_char_p, vp, i32, C.POINTER(CParams)]),
        "blosc2_vlmeta_delete": (i, [vp, C.c_char_p]),
        "blosc2_vlmeta_get": (i, [vp, C.c_char_p, pp8, C.POINTER(i32)]),
    }
    for name, (res, args) in sigs.items():
        f = getattr(lib, name)
        f.restype, f.argtypes = res, args
    lib.blosc2_init()
    return lib


def chunksize(sc):
    return C.c_int32.from_address(sc + CHUNKSIZE_OFFSET).value


def nchunks(sc):
    return C.c_int64.from_address(sc + NCHUNKS_OFFSET).value


def metalayers(sc):
    n = C.c_uint16.from_address(sc + NMETALAYERS_OFFSET).value
    out = {}
    for k in range(n):
        m = C.cast(C.c_void_p.from_address(sc + METALAYERS_OFFSET + 8 * k).value, C.POINTER(Metalayer)).contents
        out[m.name] = C.string_at(m.content, m.content_len)
    return out


def chunk_data(r, nbytes, ts):
    kind = r.randrange(4)
    if kind == 0:
        return bytes(nbytes)
    if kind == 1:
        return r.randbytes(nbytes)
    base = r.randrange(1 << 16)
    if kind == 2:
        return b"".join(((base + i) & 0xFFFFFFFF).to_bytes(4, "little") for i in range(nbytes // 4 + 1))[:nbytes]
    return bytes((base + i // r.choice((1, 7, 50))) % 251 for i in range(nbytes))


class Case:
    """The parameters and operations of one case, drawn from `r`."""

    def __init__(self, r, workdir):
        self.ts = r.choice((1, 2, 4, 8, 16))
        self.chunk_nbytes = self.ts * r.choice((1, 100, 1000, 4096, 20000))
        self.cparams = dict(compcode=r.choice((0, 1, 2, 4, 5)), clevel=r.choice((0, 1, 5, 9)), typesize=self.ts,
                            nthreads=1, splitmode=r.choice((1, 2, 3, 4)),
                            filters=r.choice(([0] * 6, [0] * 5 + [1], [0] * 5 + [2], [0] * 4 + [3, 1])))
        self.storage = r.choice(("memory", "memory-sparse", "file", "dir"))
        self.workdir = workdir
        self.metas = [(b"meta%d" % k, r.randbytes(r.randrange(1, 40))) for k in range(r.randrange(3))]
        self.ops = []
        model_n = 0
        for _ in range(r.randrange(1, 14)):
            op = r.choice(("append", "append", "append_chunk", "insert", "update", "delete", "reorder",
                           "slice", "vlmeta", "short"))
            if op in ("update", "delete", "reorder", "slice") and model_n == 0:
                op = "append"
            if op in ("append", "append_chunk", "insert", "short"):
                model_n += 1
            elif op == "delete":
                model_n -= 1
            self.ops.append((op, random.Random(r.getrandbits(64))))


class Side:
    """One library's super-chunk, driven by the case's operations."""

    def __init__(self, lib, case, name):
        self.lib, self.case = lib, case
        self.cp = CParams()
        defaults = dict(compcode=0, clevel=5, typesize=8, nthreads=1, splitmode=4)
        for k, v in {**defaults, **case.cparams}.items():
            if k == "filters":
                for j, f in enumerate(v):
                    self.cp.filters[j] = f
            else:
                setattr(self.cp, k, v)
        self.dp = DParams()
        self.dp.nthreads, self.dp.typesize = 1, case.ts
        self.urlpath = None
        if case.storage in ("file", "dir"):
            self.urlpath = os.path.join(case.workdir, name + (".b2frame" if case.storage == "file" else ".b2dir"))
        contiguous = case.storage in ("memory", "file")
        self.st = Storage(contiguous, self.urlpath.encode() if self.urlpath else None,
                          C.pointer(self.cp), C.pointer(self.dp), None)
        self.sc = lib.blosc2_schunk_new(C.byref(self.st))

    def compress(self, data):
        ctx = self.lib.blosc2_create_cctx(self.cp)
        dst = C.create_string_buffer(len(data) + 64)
        c = self.lib.blosc2_compress_ctx(ctx, data, len(data), dst, len(data) + 64)
        self.lib.blosc2_free_ctx(ctx)
        return dst.raw[:c] if c > 0 else None


def to_buffer(lib, sc):
    p = C.POINTER(C.c_uint8)()
    needs_free = C.c_bool(False)
    n = lib.blosc2_schunk_to_buffer(sc, C.byref(p), C.byref(needs_free))
    if n < 0:
        return None
    data = C.string_at(p, n)
    if needs_free.value:
        LIBC.free(p)
    return data


def read_all(lib, sc, case, model):
    """Differences between the super-chunk `sc` and the model (a list of chunk contents)."""
    out = []
    if nchunks(sc) != len(model):
        return ["nchunks %d, model %d" % (nchunks(sc), len(model))]
    for k, want in enumerate(model):
        dst = C.create_string_buffer(case.chunk_nbytes + 1)
        d = lib.blosc2_schunk_decompress_chunk(sc, k, dst, case.chunk_nbytes)
        if d != len(want) or dst.raw[:d] != want:
            out.append("chunk %d: %d bytes, model %d" % (k, d, len(want)))
    if metalayers(sc) != dict(case.metas):
        out.append("metalayers %r, model %r" % (metalayers(sc), dict(case.metas)))
    return out


def read_vlmeta(lib, sc, names):
    got = {}
    for name in names:
        p, n = C.POINTER(C.c_uint8)(), C.c_int32(0)
        rc = lib.blosc2_vlmeta_get(sc, name, C.byref(p), C.byref(n))
        got[name] = C.string_at(p, n.value) if rc >= 0 else rc
        if rc >= 0:
            LIBC.free(p)
    return got


def apply(side, op, r, case, model, vlmeta):
    """Run one operation on one side; returns its result (for comparison)."""
    lib, sc, cs = side.lib, side.sc, case.chunk_nbytes
    if op in ("append", "short", "append_chunk", "insert", "update"):
        n = cs if op != "short" else r.randrange(1, cs + 1) // case.ts * case.ts or case.ts
        data = chunk_data(r, n, case.ts)
        where = r.randrange(len(model) + 1) if op == "insert" else r.randrange(max(len(model), 1))
        if op in ("append", "short"):
            rc = lib.blosc2_schunk_append_buffer(sc, data, n)
            if rc >= 0:
                model.append(data)
            return rc
        chunk = side.compress(data)
        if op == "append_chunk":
            rc = lib.blosc2_schunk_append_chunk(sc, chunk, True)
            if rc >= 0:
                model.append(data)
        elif op == "insert":
            rc = lib.blosc2_schunk_insert_chunk(sc, where, chunk, True)
            if rc >= 0:
                model.insert(where, data)
        else:
            rc = lib.blosc2_schunk_update_chunk(sc, where, chunk, True)
            if rc >= 0:
                model[where] = data
        return rc
    if op == "delete":
        where = r.randrange(len(model))
        rc = lib.blosc2_schunk_delete_chunk(sc, where)
        if rc >= 0:
            del model[where]
        return rc
    if op == "reorder":
        order = list(range(len(model)))
        r.shuffle(order)
        rc = lib.blosc2_schunk_reorder_offsets(sc, (C.c_int64 * len(order))(*order))
        if rc >= 0:
            model[:] = [model[k] for k in order]
        return rc
    if op == "slice":
        total = sum(len(m) for m in model) // case.ts
        start = r.randrange(total)
        stop = r.randrange(start, total) + 1
        data = chunk_data(r, (stop - start) * case.ts, case.ts)
        rc = lib.blosc2_schunk_set_slice_buffer(sc, start, stop, data)
        if rc >= 0:
            flat = b"".join(model)
            flat = flat[:start * case.ts] + data + flat[stop * case.ts:]
            pos = 0
            for k, m in enumerate(model):
                model[k] = flat[pos:pos + len(m)]
                pos += len(m)
        return rc
    # vlmeta: add a new one, or update or delete an existing one
    name = b"vl%d" % r.randrange(4)
    content = r.randbytes(r.randrange(1, 3000))
    if name in vlmeta:
        if r.random() < 0.3:
            rc = lib.blosc2_vlmeta_delete(sc, name)
            if rc >= 0:
                del vlmeta[name]
            return rc
        rc = lib.blosc2_vlmeta_update(sc, name, content, len(content), C.byref(side.cp))
    else:
        rc = lib.blosc2_vlmeta_add(sc, name, content, len(content), C.byref(side.cp))
    if rc >= 0:
        vlmeta[name] = content
    return rc


def run_case(seed, ours, ref):
    r = random.Random(seed)
    work = tempfile.mkdtemp(prefix="schunk_diff.")
    try:
        case = Case(r, work)
        what = "cparams=%r storage=%s chunk=%d ops=%s" % (case.cparams, case.storage, case.chunk_nbytes,
                                                          [op for op, _ in case.ops])
        return (*check_case(case, ours, ref), what)
    finally:
        shutil.rmtree(work, ignore_errors=True)


def check_case(case, ours, ref):
    """(failures, reference faults) of one case. Where the reference fails
    (refuses an operation ours does, or does not hold what the model says),
    the case goes on with ours alone: ours must still hold the model and
    the reference must still read our frame."""
    sides = [Side(ours, case, "ours"), Side(ref, case, "ref")]
    try:
        return run_sides(case, sides, ours, ref)
    finally:
        for side in sides:
            if side.sc:
                side.lib.blosc2_schunk_free(side.sc)


def run_sides(case, sides, ours, ref):
    if not all(s.sc for s in sides):
        return ["schunk_new: ours %r, reference %r" % (sides[0].sc, sides[1].sc)], []
    fails, ref_faults = [], []
    for name, content in case.metas:
        rcs = [s.lib.blosc2_meta_add(s.sc, name, content, len(content)) for s in sides]
        if rcs[0] != rcs[1]:
            fails.append("meta_add: ours %d, reference %d" % tuple(rcs))
    model, vlmeta = [], {}
    same_chunks = not (case.cparams["compcode"] == 4 and case.cparams["clevel"] >= 2)
    ref_ok, same_layout = True, same_chunks
    for k, (op, op_rng) in enumerate(case.ops):
        sizes = [len(m) for m in model]
        uniform = all(n == sizes[0] for n in sizes[:-1]) and (not sizes or sizes[-1] <= sizes[0])
        if ref_ok and op == "slice" and not (uniform and chunksize(sides[1].sc) > 0):
            # 3.3.5's set_slice_buffer assumes chunks of one size; with
            # others it divides by zero (SIGFPE).
            ref_faults.append("op %d slice: not run on the reference (variable chunk sizes)" % k)
            ref_ok = False
        # Each side updates its own copy of the model, from the same draws.
        state = op_rng.getstate()
        model_ref, vlmeta_ref = list(model), dict(vlmeta)
        rc_ours = apply(sides[0], op, op_rng, case, model, vlmeta)
        op_rng.setstate(state)
        rc_ref = apply(sides[1], op, op_rng, case, model_ref, vlmeta_ref) if ref_ok else rc_ours
        if os.environ.get("SCHUNK_DIFF_TRACE"):
            print("  op %d %s: ours %d, reference %d, model %r" % (k, op, rc_ours, rc_ref, [len(m) for m in model]))
        sizes = [len(m) for m in model]
        if op == "delete" and not model and case.storage == "file":
            # The last chunk deleted: 3.3.5 keeps the deleted chunks'
            # `cbytes` (and writes later chunks after that many missing
            # bytes), ours starts again from 0 (see README).
            same_layout = False
        if op == "reorder" and not (all(n == sizes[0] for n in sizes[:-1]) and sizes[-1] <= sizes[0]):
            # A short chunk moved off the end: 3.3.5 keeps its chunk size
            # (and then misplaces slice items); we mark the sizes variable,
            # so from here on the frames' headers differ by design.
            same_layout = False
        if rc_ours == rc_ref:
            continue
        if rc_ours < 0 <= rc_ref or rc_ref >= 0:
            return fails + ["op %d %s: ours %d, reference %d" % (k, op, rc_ours, rc_ref)], ref_faults
        ref_faults.append("op %d %s: reference %d, ours %d" % (k, op, rc_ref, rc_ours))
        ref_ok = False
    fails += ["ours: %s" % f for f in read_all(ours, sides[0].sc, case, model)]
    if read_vlmeta(ours, sides[0].sc, list(vlmeta)) != vlmeta:
        fails.append("ours: vlmetalayers differ from the model")
    if ref_ok:
        faults = read_all(ref, sides[1].sc, case, model)
        if read_vlmeta(ref, sides[1].sc, list(vlmeta)) != vlmeta:
            faults.append("vlmetalayers differ from the model")
        ref_faults += ["reference's own super-chunk: %s" % f for f in faults]
        ref_ok = not faults
    frames = [to_buffer(ours, sides[0].sc), to_buffer(ref, sides[1].sc) if ref_ok else None]
    if frames[0] is None:
        fails.append("ours: to_buffer failed")
    elif ref_ok and frames[1] is None:
        ref_faults.append("reference: to_buffer failed")
    ref_ok = ref_ok and frames[1] is not None and reads_own(ref, "frame", frames[1], case, model, ref_faults)
    if ref_ok and same_layout and frames[0] is not None and not same_live_bytes(ours, frames[0], frames[1]):
        fails.append("frames differ (%d, %d bytes)" % (len(frames[0]), len(frames[1])))
    for frame, wname in zip(frames, ("ours", "reference")):
        if frame is not None and (wname == "ours" or ref_ok):
            cross_read(ours, ref, wname, "frame", frame, case, model, fails)
    if case.storage not in ("file", "dir"):
        return fails, ref_faults
    for side in sides:
        side.lib.blosc2_schunk_free(side.sc)
        side.sc = None
    paths = [s.urlpath for s in sides]
    # Every edit leaves the reference's bytes in a frame file (see README,
    # "Frames on disk"), when both libraries compressed the same chunks.
    ref_ok = ref_ok and reads_own(ref, "frame on disk", paths[1], case, model, ref_faults)
    if case.storage == "file" and ref_ok and same_layout and read_file(paths[0]) != read_file(paths[1]):
        fails.append("frame files differ")
    for path, wname in zip(paths, ("ours", "reference")):
        if wname == "ours" or ref_ok:
            cross_read(ours, ref, wname, "frame on disk", path, case, model, fails)
    return fails, ref_faults


def open_and_read(lib, source, case, model):
    """Open a frame (bytes: from a buffer; str: the path of a frame on disk)
    with `lib` and compare it with the model: a list of differences."""
    if isinstance(source, bytes):
        fb = C.create_string_buffer(source, len(source))
        sc = lib.blosc2_schunk_from_buffer(fb, len(source), True)
    else:
        sc = lib.blosc2_schunk_open(source.encode())
    if not sc:
        return ["cannot open it"]
    out = read_all(lib, sc, case, model)
    lib.blosc2_schunk_free(sc)
    return out


def reads_own(ref, what, source, case, model, ref_faults):
    """Whether the reference reads back its own frame as the model says.
    It reads in a forked child: 3.3.5 crashes on some frames it wrote
    itself (special chunks in frames of variable chunk sizes)."""
    res = in_child(ref, lambda lib: open_and_read(lib, source, case, model))
    if res == ("ok", []):
        return True
    ref_faults.append("reference reading its own %s: %r" % (what, res))
    return False


def cross_read(ours, ref, writer, what, source, case, model, fails):
    """Both libraries read the `writer`'s frame (the reference in a child)."""
    fails += ["ours reading the %s %s: %s" % (writer, what, f) for f in open_and_read(ours, source, case, model)]
    res = in_child(ref, lambda lib: open_and_read(lib, source, case, model))
    if res != ("ok", []):
        fails.append("reference reading the %s %s: %r" % (writer, what, res))


def frame_chunks(lib, frame):
    """The header, the chunks (as stored) and the tail (offsets chunk and
    trailer) of a contiguous frame, split with `lib`."""
    header_len = int.from_bytes(frame[11:15], "big")  # msgpack int32 after 0xd2
    cbytes = int.from_bytes(frame[39:47], "big", signed=True)  # msgpack int64 after 0xd3
    fb = C.create_string_buffer(frame, len(frame))
    sc = lib.blosc2_schunk_from_buffer(fb, len(frame), False)
    chunks = []
    for k in range(nchunks(sc) if sc else 0):
        p, needs_free = C.POINTER(C.c_uint8)(), C.c_bool(False)
        n = lib.blosc2_schunk_get_chunk(sc, k, C.byref(p), C.byref(needs_free))
        chunks.append(C.string_at(p, n) if n > 0 else n)
        if needs_free.value:
            LIBC.free(p)
    if sc:
        lib.blosc2_schunk_free(sc)
    return frame[:header_len], chunks, frame[header_len + cbytes:]


def same_live_bytes(lib, a, b):
    """Whether frames `a` and `b` are the same but for the contents of dead
    bytes (left by deleted or replaced chunks, where 3.3.5 leaves whatever
    its buffer held before, even uninitialised memory, and we write zeros)."""
    return len(a) == len(b) and (a == b or frame_chunks(lib, a) == frame_chunks(lib, b))


def read_file(path):
    with open(path, "rb") as f:
        return f.read()


def main():
    if len(sys.argv) < 2:
        print(__doc__)
        return 2
    ours_path, cases, seed = randomised_args(600)
    ours = declare(C.CDLL(ours_path))
    ref = declare(C.CDLL(reference_lib()))
    failures, faulty_cases = 0, 0
    for case in range(cases):
        fails, ref_faults, what = run_case(seed * 1_000_003 + case, ours, ref)
        for f in fails:
            failures += 1
            print("FAIL case %d: %s: %s" % (case, f, what))
        if ref_faults:
            faulty_cases += 1
            if os.environ.get("SCHUNK_DIFF_TRACE"):
                print("reference fault in case %d: %s: %s" % (case, "; ".join(ref_faults), what))
    print("schunk_diff: %d cases (seed %d), %d failures; the reference failed in %d cases"
          % (cases, seed, failures, faulty_cases))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
