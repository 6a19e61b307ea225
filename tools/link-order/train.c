/* The code a typical C program runs in libblosc2.so.9, for the link order
 * of its hot functions (see generate.sh). `train roundtrip` is the memory
 * harness's round trip, smaller: super-chunk in memory, 4 MiB chunks of
 * f64, LZ4 clevel 5, shuffle, 2 threads. `train contexts` is the harness's
 * contexts round trip (blosc2_compress_ctx into malloc'ed buffers, then
 * blosc2_decompress_ctx), `train python` python-blosc2's super-chunk
 * (chunks compressed with its context and handed over with copy = false)
 * and `train zstd` the super-chunk round trip with Zstd level 1, all with
 * the same chunks. `train frames` is the harness's
 * two frame round trips with the same chunks: a frame on disk written,
 * closed, reopened and read, and an in-memory super-chunk serialized with
 * blosc2_schunk_to_buffer and read in place (copy = false). `train extras`
 * adds the other common paths: the context-free API with the default codec
 * (BloscLZ), Zstd (levels 5 and 1) and zlib through contexts,
 * contexts of 2 threads, bitshuffle, getitem, frames in memory (also
 * serialized from separate chunks and read in place) and on disk, and a
 * b2nd array from and to a C buffer. Every result is checked, so a wrong
 * build fails here rather than in a profile. */
#include <b2nd.h>
#include <blosc2.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define CHUNK (4 << 20)
#define NCHUNKS 4
/* Frames get enough chunks that their offsets chunk is compressed (with
 * BloscLZ, shuffled by the SSE2 code for short buffers), as a real frame's
 * is; with 4 it is stored as a copy. */
#define FRAME_NCHUNKS 16

static void fill(int k, double *out, size_t n) {
  for (size_t i = 0; i < n; i++) {
    double x = (double)(k * n + i);
    out[i] = sin(x * 1e-3) * 100.0 + x * 1e-9;
  }
}

static int fail(const char *what) {
  fprintf(stderr, "train: %s\n", what);
  return 1;
}

/* The settings of the memory harness's round trips: LZ4 5, shuffle,
   8-byte items, 2 threads. */
static void harness_params(blosc2_cparams *cp, blosc2_dparams *dp) {
  *cp = BLOSC2_CPARAMS_DEFAULTS;
  cp->compcode = BLOSC_LZ4;
  cp->clevel = 5;
  cp->typesize = 8;
  cp->nthreads = 2;
  cp->filters[BLOSC2_MAX_FILTERS - 1] = BLOSC_SHUFFLE;
  *dp = BLOSC2_DPARAMS_DEFAULTS;
  dp->nthreads = 2;
}

/* The harness's super-chunk round trip with codec `compcode` at `clevel`. */
static int roundtrip(double *src, double *out, int compcode, int clevel) {
  blosc2_cparams cp;
  blosc2_dparams dp;
  harness_params(&cp, &dp);
  cp.compcode = compcode;
  cp.clevel = clevel;
  blosc2_storage st = {.contiguous = false, .cparams = &cp, .dparams = &dp};
  blosc2_schunk *sc = blosc2_schunk_new(&st);
  if (sc == NULL) return fail("schunk_new");
  for (int k = 0; k < NCHUNKS; k++) {
    fill(k, src, CHUNK / 8);
    if (blosc2_schunk_append_buffer(sc, src, CHUNK) != k + 1) return fail("append");
  }
  for (int k = 0; k < NCHUNKS; k++) {
    fill(k, src, CHUNK / 8);
    if (blosc2_schunk_decompress_chunk(sc, k, out, CHUNK) != CHUNK || memcmp(out, src, CHUNK))
      return fail("decompress_chunk");
  }
  blosc2_schunk_free(sc);
  return 0;
}

/* The harness's contexts round trip: each chunk compressed by one context
 * into a malloc'ed buffer of its own, all kept, then decompressed by
 * another. */
static int contexts(double *src, double *out) {
  blosc2_cparams cp;
  blosc2_dparams dp;
  harness_params(&cp, &dp);
  blosc2_context *cctx = blosc2_create_cctx(cp);
  blosc2_context *dctx = blosc2_create_dctx(dp);
  if (cctx == NULL || dctx == NULL) return fail("contexts create");
  void *chunks[NCHUNKS];
  int csizes[NCHUNKS];
  for (int k = 0; k < NCHUNKS; k++) {
    fill(k, src, CHUNK / 8);
    chunks[k] = malloc(CHUNK + BLOSC2_MAX_OVERHEAD);
    csizes[k] = blosc2_compress_ctx(cctx, src, CHUNK, chunks[k], CHUNK + BLOSC2_MAX_OVERHEAD);
    if (csizes[k] <= 0) return fail("contexts compress_ctx");
  }
  for (int k = 0; k < NCHUNKS; k++) {
    fill(k, src, CHUNK / 8);
    if (blosc2_decompress_ctx(dctx, chunks[k], csizes[k], out, CHUNK) != CHUNK || memcmp(out, src, CHUNK))
      return fail("contexts decompress_ctx");
  }
  for (int k = 0; k < NCHUNKS; k++) free(chunks[k]);
  blosc2_free_ctx(cctx);
  blosc2_free_ctx(dctx);
  return 0;
}

/* The frame round trips of `train frames` (see the top). */
static int frames(double *src, double *out) {
  blosc2_cparams cp;
  blosc2_dparams dp;
  harness_params(&cp, &dp);
  const char *path = "train_link_order_rt.b2frame";
  blosc2_remove_urlpath(path);
  for (int on_disk = 1; on_disk >= 0; on_disk--) {
    blosc2_storage st = {.contiguous = on_disk, .urlpath = on_disk ? (char *)path : NULL, .cparams = &cp, .dparams = &dp};
    blosc2_schunk *sc = blosc2_schunk_new(&st);
    if (sc == NULL) return fail("frames schunk_new");
    for (int k = 0; k < FRAME_NCHUNKS; k++) {
      fill(k, src, CHUNK / 8);
      if (blosc2_schunk_append_buffer(sc, src, CHUNK) != k + 1) return fail("frames append");
    }
    uint8_t *cframe = NULL;
    bool needs_free = false;
    int64_t len = 0;
    if (!on_disk && (len = blosc2_schunk_to_buffer(sc, &cframe, &needs_free)) <= 0) return fail("frames to_buffer");
    blosc2_schunk_free(sc);
    sc = on_disk ? blosc2_schunk_open(path) : blosc2_schunk_from_buffer(cframe, len, false);
    if (sc == NULL) return fail("frames reopen");
    for (int k = 0; k < FRAME_NCHUNKS; k++) {
      fill(k, src, CHUNK / 8);
      if (blosc2_schunk_decompress_chunk(sc, k, out, CHUNK) != CHUNK || memcmp(out, src, CHUNK))
        return fail("frames decompress_chunk");
    }
    blosc2_schunk_free(sc);
    if (needs_free) free(cframe);
  }
  blosc2_remove_urlpath(path);
  return 0;
}

/* One chunk of `nbytes` through a context with `compcode` at `clevel`,
 * `filter` and `nthreads` threads. */
static int with_codec(int compcode, int clevel, int filter, int nthreads, const double *src, double *out,
                      int32_t nbytes) {
  blosc2_cparams cp = BLOSC2_CPARAMS_DEFAULTS;
  cp.compcode = compcode;
  cp.clevel = clevel;
  cp.typesize = 8;
  cp.nthreads = nthreads;
  cp.filters[BLOSC2_MAX_FILTERS - 1] = filter;
  blosc2_dparams dp = BLOSC2_DPARAMS_DEFAULTS;
  dp.nthreads = nthreads;
  blosc2_context *cctx = blosc2_create_cctx(cp);
  blosc2_context *dctx = blosc2_create_dctx(dp);
  int32_t cap = nbytes + BLOSC2_MAX_OVERHEAD;
  void *chunk = malloc(cap);
  int csize = blosc2_compress_ctx(cctx, src, nbytes, chunk, cap);
  if (csize <= 0) return fail("compress_ctx");
  if (blosc2_decompress_ctx(dctx, chunk, csize, out, nbytes) != nbytes || memcmp(out, src, nbytes))
    return fail("decompress_ctx");
  double item;
  if (blosc2_getitem_ctx(dctx, chunk, csize, 1000, 1, &item, sizeof item) != sizeof item || item != src[1000])
    return fail("getitem_ctx");
  free(chunk);
  blosc2_free_ctx(cctx);
  blosc2_free_ctx(dctx);
  return 0;
}

/* python-blosc2's SChunk: settings read once, then each chunk compressed
 * with schunk->cctx into its own malloc'ed buffer, shrunk and handed over
 * (append_chunk with copy = false), and read back with get_chunk and
 * decompress_chunk. */
static int python_like(double *src, double *out) {
  /* python-blosc2's import asks every codec's library version. */
  static const char *const codecs[] = {"blosclz", "lz4", "lz4hc", "zlib", "zstd"};
  for (size_t i = 0; i < sizeof codecs / sizeof *codecs; i++) {
    char *lib, *version;
    if (blosc2_get_complib_info(codecs[i], &lib, &version) < 0) return fail("get_complib_info");
    free(lib);
    free(version);
  }
  blosc2_set_nthreads(2);
  if (blosc2_compname_to_compcode(blosc1_get_compressor()) < 0) return fail("compname");
  blosc2_cparams cp = BLOSC2_CPARAMS_DEFAULTS;
  cp.compcode = BLOSC_LZ4;
  cp.typesize = 8;
  cp.nthreads = 2;
  blosc2_dparams dp = BLOSC2_DPARAMS_DEFAULTS;
  dp.nthreads = 2;
  blosc2_storage st = {.contiguous = false, .cparams = &cp, .dparams = &dp};
  blosc2_schunk *sc = blosc2_schunk_new(&st);
  if (sc == NULL) return fail("python schunk_new");
  blosc2_cparams *got_cp;
  blosc2_dparams *got_dp;
  if (blosc2_schunk_get_cparams(sc, &got_cp) < 0 || blosc2_schunk_get_dparams(sc, &got_dp) < 0)
    return fail("get_cparams");
  free(got_cp);
  free(got_dp);
  for (int k = 0; k < 2; k++) {
    fill(k, src, CHUNK / 8);
    uint8_t *chunk = malloc(CHUNK + BLOSC2_MAX_OVERHEAD);
    int csize = blosc2_compress_ctx(sc->cctx, src, CHUNK, chunk, CHUNK + BLOSC2_MAX_OVERHEAD);
    if (csize <= 0) return fail("python compress_ctx");
    chunk = realloc(chunk, csize);
    if (blosc2_schunk_append_chunk(sc, chunk, false) != k + 1) return fail("append_chunk");
  }
  for (int k = 0; k < 2; k++) {
    uint8_t *chunk;
    bool needs_free;
    int32_t nbytes, cbytes, blocksize;
    if (blosc2_schunk_get_chunk(sc, k, &chunk, &needs_free) < 0) return fail("get_chunk");
    blosc2_cbuffer_sizes(chunk, &nbytes, &cbytes, &blocksize);
    if (needs_free) free(chunk);
    fill(k, src, CHUNK / 8);
    if (blosc2_schunk_decompress_chunk(sc, k, out, nbytes) != CHUNK || memcmp(out, src, CHUNK))
      return fail("python decompress_chunk");
  }
  blosc2_schunk_free(sc);
  return 0;
}

static int extras(double *src, double *out) {
  int32_t nbytes = 1 << 20;
  fill(0, src, nbytes / 8);
  /* The context-free API, as most programs use it first. */
  void *chunk = malloc(nbytes + BLOSC2_MAX_OVERHEAD);
  int csize = blosc2_compress(5, BLOSC_SHUFFLE, 8, src, nbytes, chunk, nbytes + BLOSC2_MAX_OVERHEAD);
  if (csize <= 0) return fail("compress");
  if (blosc2_decompress(chunk, csize, out, nbytes) != nbytes || memcmp(out, src, nbytes)) return fail("decompress");
  double item;
  if (blosc2_getitem(chunk, csize, 7, 1, &item, sizeof item) != sizeof item || item != src[7]) return fail("getitem");
  free(chunk);
  if (with_codec(BLOSC_ZSTD, 5, BLOSC_SHUFFLE, 1, src, out, nbytes)) return 1;
  if (with_codec(BLOSC_ZLIB, 5, BLOSC_SHUFFLE, 1, src, out, nbytes)) return 1;
  if (with_codec(BLOSC_BLOSCLZ, 5, BLOSC_BITSHUFFLE, 1, src, out, nbytes)) return 1;
  /* Contexts of several threads, as programs without super-chunks use them. */
  if (with_codec(BLOSC_LZ4, 5, BLOSC_SHUFFLE, 2, src, out, CHUNK)) return 1;
  if (with_codec(BLOSC_BLOSCLZ, 5, BLOSC_SHUFFLE, 2, src, out, CHUNK)) return 1;
  if (with_codec(BLOSC_ZSTD, 5, BLOSC_SHUFFLE, 2, src, out, CHUNK)) return 1;
  /* Zstd's fastest level runs a block compressor of its own. */
  if (with_codec(BLOSC_ZSTD, 1, BLOSC_SHUFFLE, 2, src, out, CHUNK)) return 1;
  /* Frames: contiguous in memory, serialized and reopened, and on disk. */
  blosc2_cparams cp = BLOSC2_CPARAMS_DEFAULTS;
  cp.typesize = 8;
  blosc2_dparams dp = BLOSC2_DPARAMS_DEFAULTS;
  const char *path = "train_link_order.b2frame";
  blosc2_remove_urlpath(path);
  /* 0: contiguous in memory, reopened as a copy; 1: on disk, reopened;
   * 2: separate chunks, serialized and read in place (copy = false). */
  for (int on_disk = 0; on_disk < 3; on_disk++) {
    blosc2_storage st = {.contiguous = on_disk < 2, .urlpath = on_disk == 1 ? (char *)path : NULL, .cparams = &cp, .dparams = &dp};
    blosc2_schunk *sc = blosc2_schunk_new(&st);
    if (sc == NULL) return fail("frame schunk_new");
    for (int k = 0; k < 2; k++)
      if (blosc2_schunk_append_buffer(sc, src, nbytes) != k + 1) return fail("frame append");
    uint8_t *cframe;
    bool needs_free;
    int64_t len = blosc2_schunk_to_buffer(sc, &cframe, &needs_free);
    if (len <= 0) return fail("to_buffer");
    blosc2_schunk *back = on_disk == 1 ? blosc2_schunk_open(path) : blosc2_schunk_from_buffer(cframe, len, on_disk == 0);
    if (back == NULL) return fail("reopen");
    if (blosc2_schunk_decompress_chunk(back, 1, out, nbytes) != nbytes || memcmp(out, src, nbytes))
      return fail("frame decompress_chunk");
    blosc2_schunk_free(back);
    if (needs_free) free(cframe);
    blosc2_schunk_free(sc);
  }
  blosc2_remove_urlpath(path);
  /* A b2nd array from and back to a C buffer, 2 threads. */
  int64_t shape[2] = {256, 1024};
  int32_t chunkshape[2] = {128, 512}, blockshape[2] = {32, 256};
  cp.nthreads = 2;
  cp.filters[BLOSC2_MAX_FILTERS - 1] = BLOSC_SHUFFLE;
  dp.nthreads = 2;
  blosc2_storage st = {.contiguous = false, .cparams = &cp, .dparams = &dp};
  b2nd_context_t *ctx = b2nd_create_ctx(&st, 2, shape, chunkshape, blockshape, NULL, 0, NULL, 0);
  b2nd_array_t *arr;
  int64_t size = shape[0] * shape[1] * 8;
  fill(1, src, (size_t)(size / 8));
  if (ctx == NULL || b2nd_from_cbuffer(ctx, &arr, src, size) < 0) return fail("b2nd_from_cbuffer");
  if (b2nd_to_cbuffer(arr, out, size) < 0 || memcmp(out, src, size)) return fail("b2nd_to_cbuffer");
  b2nd_free(arr);
  b2nd_free_ctx(ctx);
  return 0;
}

int main(int argc, char **argv) {
  const char *what = argc > 1 ? argv[1] : "roundtrip";
  blosc2_init();
  double *src = malloc(CHUNK), *out = malloc(CHUNK);
  int rc;
  if (strcmp(what, "frames") == 0)
    rc = frames(src, out);
  else if (strcmp(what, "contexts") == 0)
    rc = contexts(src, out);
  else if (strcmp(what, "python") == 0)
    rc = python_like(src, out);
  else if (strcmp(what, "zstd") == 0)
    rc = roundtrip(src, out, BLOSC_ZSTD, 1);
  else
    rc = roundtrip(src, out, BLOSC_LZ4, 5);
  if (rc == 0 && strcmp(what, "extras") == 0) rc = extras(src, out);
  free(src);
  free(out);
  blosc2_destroy();
  return rc;
}
