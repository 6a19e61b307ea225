"""Test vectors for the NDCELL / NDMEAN filters and the NDLZ codec.

Written by the reference C-Blosc2 3.3.5 (python-blosc2 4.14.1), one block
per case (shape == chunkshape == blockshape), read by the unit tests in
src/engine/plugins/{ndcell,ndmean,ndlz}.rs.

* filter cases: a user codec (id 200) captures the block the filter hands
  to the codec, i.e. the filter's forward output; a second array with LZ4
  gives what the reference decodes (NDMEAN is lossy).
* ndlz cases: the block stream of the reference's chunk.

`cases.txt`: one line per case:
    kind meta typesize dims(comma) input forward_output decoded
(`-` when a file is not there: NDLZ declined, or no decode needed).
Run: python3 gen.py  (needs `pip install blosc2==4.14.1`).
"""
import hashlib
import os
import struct

import blosc2
import numpy as np

rng = np.random.default_rng(2024)
captured = []


def capture_encoder(inp, out, meta, schunk):
    captured.append(bytes(inp))
    out[0] = 0
    return 1


def capture_decoder(inp, out, meta, schunk):
    return 0


blosc2.register_codec("ndcapture", 200, capture_encoder, capture_decoder)
lines = []


def save(data: bytes) -> str:
    name = hashlib.sha256(data).hexdigest()[:16] + ".bin"
    with open(name, "wb") as f:
        f.write(data)
    return name


def filter_case(kind, fid, meta, arr, decode=True):
    shape = arr.shape
    captured.clear()
    cp = dict(codec=200, clevel=5, nthreads=1, filters=[fid], filters_meta=[meta],
              splitmode=blosc2.SplitMode.NEVER_SPLIT)
    blosc2.asarray(arr, chunks=shape, blocks=shape, cparams=cp, dparams={"nthreads": 1})
    assert len(captured) == 1, len(captured)
    fwd = captured[0]
    dec = "-"
    if decode:
        cp["codec"] = blosc2.Codec.LZ4
        b = blosc2.asarray(arr, chunks=shape, blocks=shape, cparams=cp, dparams={"nthreads": 1})
        dec = save(b[...].tobytes())
    lines.append(f"{kind} {meta} {arr.dtype.itemsize} {','.join(map(str, shape))} "
                 f"{save(arr.tobytes())} {save(fwd)} {dec}")


def ndlz_case(meta, arr):
    shape = arr.shape
    cp = dict(codec=blosc2.Codec.NDLZ, codec_meta=meta, clevel=5, nthreads=1,
              filters=[], filters_meta=[], splitmode=blosc2.SplitMode.NEVER_SPLIT)
    b = blosc2.asarray(arr, chunks=shape, blocks=shape, cparams=cp, dparams={"nthreads": 1})
    chunk = b.schunk.get_chunk(0)
    if len(chunk) <= 32:
        return  # a special chunk (zeros): no stream
    flags = chunk[2]
    nbytes, = struct.unpack_from("<i", chunk, 4)
    if flags & 0x2:  # memcpyed: the codec declined
        out = "-"
    else:
        bstart, = struct.unpack_from("<i", chunk, 32)
        csize, = struct.unpack_from("<i", chunk, bstart)
        if csize <= 0:
            return  # a run stream: NDLZ never called
        stream = chunk[bstart + 4: bstart + 4 + csize]
        out = "-" if csize == nbytes else save(stream)
    lines.append(f"ndlz {meta} 1 {','.join(map(str, shape))} {save(arr.tobytes())} {out} -")


def smooth(shape, dtype):
    grids = np.meshgrid(*[np.arange(s) for s in shape], indexing="ij")
    v = sum((g * (i + 1.7)) for i, g in enumerate(grids)) + rng.normal(0, 3, shape)
    return v.astype(dtype)


def patches(shape, cell, nrows=6, ntiles=5):
    """A 2-D u1 image built from repeated tiles and rows, so that NDLZ meets
    every kind of match: constant cells, whole cells, row pairs/triples."""
    rows = rng.integers(0, 256, (nrows, cell), dtype=np.uint8)
    tiles = rng.integers(0, 256, (ntiles, cell, cell), dtype=np.uint8)
    img = np.zeros(shape, dtype=np.uint8)
    for r0 in range(0, shape[0], cell):
        for c0 in range(0, shape[1], cell):
            h = min(cell, shape[0] - r0)
            w = min(cell, shape[1] - c0)
            kind = rng.integers(0, 4)
            if kind == 0:
                t = np.full((cell, cell), rng.integers(0, 3), dtype=np.uint8)
            elif kind == 1:
                t = tiles[rng.integers(0, ntiles)]
            elif kind == 2:
                t = rows[rng.integers(0, nrows, cell)]
            else:
                t = rng.integers(0, 256, (cell, cell), dtype=np.uint8)
                t[: rng.integers(0, cell)] = rows[rng.integers(0, nrows)]
            img[r0:r0 + h, c0:c0 + w] = t[:h, :w]
    return img


for f in os.listdir("."):
    if f.endswith(".bin"):
        os.remove(f)

# NDCELL (32): 1-D..4-D, cells that divide the block or not, several typesizes.
for shape, meta, dtype in [
    ((64,), 4, "<i4"), ((61,), 3, "<i8"), ((14, 24), 4, "<i4"), ((13, 7), 3, "|u1"),
    ((5, 6, 6), 2, "|i1"), ((5, 9, 5), 3, "<i8"), ((5, 5, 4, 5), 2, "<i2"), ((8, 8), 8, "<f4"),
    ((9, 10), 1, "<i2"), ((6, 7, 3), 3, "<f8"),
]:
    filter_case("ndcell", 32, meta, smooth(shape, dtype))

# NDMEAN (33): float32/float64 only; cells larger than the block get clipped.
for shape, meta, dtype in [
    ((494,), 8, "<f4"), ((30, 18), 4, "<f4"), ((6, 7, 8), 2, "<f8"), ((4, 4, 4, 4), 3, "<f8"),
    ((8, 8), 20, "<f4"), ((13, 11), 5, "<f8"), ((7, 9, 5), 3, "<f4"), ((100,), 7, "<f8"),
]:
    filter_case("ndmean", 33, meta, smooth(shape, dtype))

# NDMEAN's cell origins use the first dimension's clipped edge: overlapping
# cells, which the reference cannot read back (forward only).
filter_case("ndmean-quirk", 33, 4, smooth((2, 8), "<f4"), decode=False)
filter_case("ndmean-quirk", 33, 5, smooth((3, 7, 9), "<f8"), decode=False)

# NDLZ (32): 2-D u1 blocks, metas 4 and 8, partial edge cells.
for shape, meta in [
    ((16, 16), 4), ((32, 24), 8), ((12, 20), 4), ((37, 29), 4), ((64, 64), 4),
    ((64, 64), 8), ((45, 70), 8), ((128, 96), 4), ((128, 96), 8), ((30, 30), 4),
]:
    ndlz_case(meta, patches(shape, meta))
half = np.zeros((32, 32), dtype=np.uint8)
half[16:] = 9
ndlz_case(4, half)
ndlz_case(8, half)
ndlz_case(4, rng.integers(0, 256, (32, 32), dtype=np.uint8))  # declines
ndlz_case(4, smooth((40, 40), "|u1"))
ndlz_case(8, smooth((40, 48), "|u1"))
# Tiles of 8x8 seen with the 4x4 codec and the other way round.
ndlz_case(4, patches((96, 96), 8))
ndlz_case(8, patches((96, 96), 4))

with open("cases.txt", "w") as f:
    f.write("\n".join(lines) + "\n")
print(len(lines), "cases")
