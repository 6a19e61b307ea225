"""Writes the ZFP test vectors in this folder with the reference C-Blosc2
3.3.5 (python-blosc2 4.14.1, whose libblosc2.so links zfp 1.0.1).

Each case is one b2nd array of one chunk of one block, so the chunk holds a
single block stream. Per case NAME: NAME.in (the input block, raw
little-endian, C order), NAME.zfp (the block's ZFP stream; absent when the
codec declined and the block is stored as is) and NAME.out (what the
reference decodes). cases.txt lists: name mode meta dtype blockshape.

Run: python generate.py (from this folder); nothing else reads it.
"""
import struct

import blosc2
import numpy as np

CASES = [
    # name, codec, meta, dtype, blockshape
    ("acc_f4_2d", "acc", -3, "f4", (12, 20)),
    ("acc_f8_3d", "acc", -6, "f8", (12, 7, 8)),
    ("acc_f4_1d", "acc", 0, "f4", (1030,)),
    ("acc_f8_4d", "acc", -2, "f8", (5, 4, 4, 4)),
    ("acc_f4_coarse", "acc", 127, "f4", (16, 16)),
    ("acc_f8_exact", "acc", -128, "f8", (8, 8)),
    ("prec_f4_2d", "prec", 12, "f4", (12, 20)),
    ("prec_f8_3d", "prec", 30, "f8", (12, 8, 9)),
    ("prec_f4_4d", "prec", 8, "f4", (4, 4, 4, 4)),
    ("prec_f8_1d", "prec", 20, "f8", (1032,)),
    ("prec_f4_max", "prec", 255, "f4", (8, 8)),
    ("rate_f4_2d", "rate", 30, "f4", (8, 24)),
    ("rate_f8_3d", "rate", 50, "f8", (8, 8, 8)),
    ("rate_f4_1d", "rate", 70, "f4", (1756,)),
    ("rate_f8_4d", "rate", 20, "f8", (4, 4, 4, 8)),
    ("rate_f4_zero", "rate", 0, "f4", (16, 16)),
    ("rate_f8_partial", "rate", 50, "f8", (7, 6, 6)),
    ("rate_f4_full", "rate", 100, "f4", (16, 16)),
]
CODECS = {"acc": blosc2.Codec.ZFP_ACC, "prec": blosc2.Codec.ZFP_PREC, "rate": blosc2.Codec.ZFP_RATE}


def values(shape, dtype, seed):
    rng = np.random.default_rng(seed)
    grids = np.meshgrid(*[np.linspace(0, 3, n) for n in shape], indexing="ij")
    smooth = sum(np.sin((i + 1) * g) for i, g in enumerate(grids)) * 100
    return (smooth + rng.normal(0, 0.5, shape)).astype("<" + dtype)


def block_stream(chunk):
    """The only block's stream, or None when it is stored as is."""
    flags, blosc2_flags = chunk[2], chunk[31]
    nbytes, blocksize, cbytes = struct.unpack_from("<iii", chunk, 4)
    assert nbytes == blocksize, "one block per chunk"
    if flags & 0x2 or cbytes == nbytes + 32 or (blosc2_flags & 0x70):
        return None  # memcpyed chunk
    (bstart,) = struct.unpack_from("<i", chunk, 32)
    (csize,) = struct.unpack_from("<i", chunk, bstart)
    if csize == nbytes:
        return None  # the codec declined: the block is stored as is
    return bytes(chunk[bstart + 4 : bstart + 4 + csize])


def main():
    lines = []
    for seed, (name, mode, meta, dtype, shape) in enumerate(CASES):
        data = values(shape, dtype, seed)
        cparams = {"codec": CODECS[mode], "codec_meta": meta % 256, "nthreads": 1, "filters": [],
                   "filters_meta": [], "splitmode": blosc2.SplitMode.NEVER_SPLIT}
        arr = blosc2.asarray(data, chunks=shape, blocks=shape, cparams=cparams)
        chunk = arr.schunk.get_chunk(0)
        out = arr[...]
        stream = block_stream(chunk)
        open(name + ".in", "wb").write(data.tobytes())
        open(name + ".out", "wb").write(np.ascontiguousarray(out).tobytes())
        if stream is not None:
            open(name + ".zfp", "wb").write(stream)
        lines.append(f"{name} {mode} {meta % 256} {dtype} {'x'.join(map(str, shape))}"
                     f" {'stream' if stream is not None else 'declined'}")
    open("cases.txt", "w").write("\n".join(lines) + "\n")


if __name__ == "__main__":
    main()
