#!/usr/bin/env python3
"""Byte identity with the reference C-Blosc2 3.3.5 where we claim it.

On one thread, LZ4HC at levels 1-9, zstd, and zlib at levels 1-9 (on
these inputs, which hold no noise for its noise finder to code apart) must
write exactly the chunks the reference writes, for inputs that take the
match finders' special paths: words (long hash chains), runs of one byte
between noise and words (LZ4's pattern analysis at level 9), and shuffled
integers. For zlib this checks the Huffman trees of the vendored zlib-rs
(vendor/README.md) against zlib-ng's.

Usage: python3 .ci/identity_interop.py path/to/our/libblosc2.so
Exit status 0 when every chunk is identical.
"""

import ctypes as C
import os
import random
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from capi_diff import compressed_with, reference_lib, setup  # noqa: E402


def inputs():
    r = random.Random(7)
    words = [bytes(r.choice(b"abcdefghij") for _ in range(r.randint(2, 8))) for _ in range(300)]
    text = b" ".join(r.choice(words) for _ in range(40000))
    runs = bytearray()
    while len(runs) < 300000:
        k = r.random()
        if k < 0.3:
            runs += bytes([r.choice((0, 0, 32, 255))]) * r.randint(1, 3000)
        elif k < 0.6:
            runs += bytes(r.randrange(256) for _ in range(r.randint(1, 40)))
        else:
            runs += r.choice(words) * r.randint(1, 20)
    ints = b"".join((i * 3 + r.randrange(3)).to_bytes(8, "little") for i in range(40000))
    return [("text", text, 1, 0), ("runs", bytes(runs), 1, 0), ("ints", ints, 8, 1)]


def main():
    if len(sys.argv) != 2:
        print(__doc__)
        return 2
    ours = setup(C.CDLL(os.path.abspath(sys.argv[1])))
    ref = setup(C.CDLL(reference_lib()))
    checked, problems = 0, []
    for name, src, ts, shuffle in inputs():
        for codec, levels in ((2, range(1, 10)), (5, (1, 5, 9)), (4, range(1, 10))):
            for clevel in levels:
                for n in (4096, 65536, len(src)):
                    kw = dict(compcode=codec, clevel=clevel, typesize=ts, nthreads=1, filters=[0] * 5 + [shuffle])
                    a = compressed_with(ref, src[:n], **kw)
                    b = compressed_with(ours, src[:n], **kw)
                    checked += 1
                    if a is None or a != b:
                        problems.append("%s codec %d clevel %d n %d: reference %s bytes, ours %s"
                                        % (name, codec, clevel, n, a and len(a), b and len(b)))
    for p in problems:
        print("DIFFERS " + p)
    print("identity: %d chunks compared, %d differ" % (checked, len(problems)))
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
