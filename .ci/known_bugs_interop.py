"""Inputs that C-Blosc2 3.3.5 cannot round-trip itself (the corpus'
known_reference_bugs: three-filter pipelines, DELTA or TRUNC_PREC with a
partial trailing item, forced block sizes larger than nbytes or not a
multiple of the typesize): the chunks we write for them must decode to the
input with both our library and the reference.

usage: known_bugs_interop.py [path/to/our/libblosc2.so]
"""
import ctypes, os, blosc2, random, sys
ref = ctypes.CDLL(os.path.join(os.path.dirname(blosc2.__file__), "lib", "libblosc2.so"))
ours = ctypes.CDLL(sys.argv[1] if len(sys.argv) > 1 else "target/release/libblosc2.so")
class CP(ctypes.Structure):
    _fields_=[("compcode",ctypes.c_uint8),("compcode_meta",ctypes.c_uint8),("clevel",ctypes.c_uint8),("use_dict",ctypes.c_int),("typesize",ctypes.c_int32),("nthreads",ctypes.c_int16),("blocksize",ctypes.c_int32),("splitmode",ctypes.c_int32),("schunk",ctypes.c_void_p),("filters",ctypes.c_uint8*6),("filters_meta",ctypes.c_uint8*6),("prefilter",ctypes.c_void_p),("preparams",ctypes.c_void_p),("tuner_params",ctypes.c_void_p),("tuner_id",ctypes.c_int),("instr_codec",ctypes.c_bool),("codec_params",ctypes.c_void_p),("filter_params",ctypes.c_void_p*6)]
assert ctypes.sizeof(CP)==136
for lib in (ref, ours):
    lib.blosc2_init(); lib.blosc2_create_cctx.restype=ctypes.c_void_p; lib.blosc2_create_cctx.argtypes=[CP]
    lib.blosc2_compress_ctx.argtypes=[ctypes.c_void_p,ctypes.c_void_p,ctypes.c_int32,ctypes.c_void_p,ctypes.c_int32]
def comp(lib, data, **kw):
    cp = CP(); cp.compcode=kw.get("codec",0); cp.clevel=kw.get("clevel",5); cp.typesize=kw.get("typesize",4); cp.nthreads=1
    cp.blocksize=kw.get("blocksize",0); cp.splitmode=kw.get("splitmode",4)
    f=kw.get("filters",[0,0,0,0,0,1]); 
    for i in range(6): cp.filters[i]=f[i]
    cx=lib.blosc2_create_cctx(cp); out=ctypes.create_string_buffer(len(data)+64)
    n=lib.blosc2_compress_ctx(cx,data,len(data),out,len(out)); return out.raw[:n] if n>0 else n
def dec(lib, ch, n):
    out=ctypes.create_string_buffer(n+16); r=lib.blosc2_decompress(ch,len(ch),out,len(out)); return out.raw[:r] if r>=0 else r
rnd=random.Random(1)
data=bytes((i*7//3 + rnd.randrange(3))%256 for i in range(100003))
cases=[dict(filters=[3,1,2,0,0,0]), dict(filters=[1,2,1,0,0,0]), dict(filters=[0,0,0,0,3,1]), dict(filters=[0,0,0,0,0,3], typesize=4),
       dict(blocksize=1001, typesize=4), dict(blocksize=200000, typesize=4), dict(blocksize=30001,typesize=8, codec=5), dict(filters=[0,0,0,0,1,3], codec=1)]
bad=0
for c in cases:
    for d in (data, data[:99999]):
        ch=comp(ours,d,**c); r=dec(ref,ch,len(d)); o=dec(ours,ch,len(d))
        ok = (r==d and o==d)
        rc=comp(ref,d,**c); rr=dec(ref,rc,len(d)) if isinstance(rc,bytes) else rc
        print("ok " if ok else "BAD", c, len(d), "(reference on its own chunk:", "ok)" if rr == d else "wrong)")
        bad += not ok
print(f"known_bugs_interop: {2 * len(cases) - bad} passed, {bad} failed")
sys.exit(1 if bad else 0)
