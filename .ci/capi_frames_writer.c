/* Writes frames through our C ABI (include/blosc2.h + libblosc2.so) for
 * .ci/capi_frames_interop.py to open with the reference C-Blosc2 3.3.5
 * (python-blosc2): in-memory frames saved from blosc2_schunk_to_buffer,
 * frame files, sparse directories, frames appended at offsets, with
 * metalayers, vlmetalayers, special chunks, variable chunk sizes and
 * VL-block chunks, after inserts, updates, deletes and reorders.
 *
 * Usage: capi_frames_writer OUTDIR  (writes OUTDIR/frames.json)
 *        capi_frames_writer --edit PATH  (edits a frame python-blosc2 wrote:
 *        chunk 0 := chunk(51), delete chunk 1, append chunk(50, 1000),
 *        vlmetalayer c_edit = "edited by C")
 *
 * Chunk contents are described, not copied, in frames.json: {"k": K,
 * "n": N} is chunk(K, N) below (N int32 items), {"special": "zero"|"nan"|
 * "uninit", "nbytes": N} a special chunk, {"hex": H} literal bytes (the
 * blocks of a VL-block chunk, concatenated). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "blosc2.h"

static const char *outdir;
static FILE *js;
static int first_entry = 1;
static int failures = 0;

#define REQUIRE(cond)                                                    \
  do {                                                                   \
    if (!(cond)) {                                                       \
      fprintf(stderr, "%s:%d: failed: %s\n", __FILE__, __LINE__, #cond); \
      failures++;                                                        \
    }                                                                    \
  } while (0)

/* Must match chunk() in capi_frames_interop.py. */
static void chunk(int32_t *buf, int32_t n, int32_t k) {
  for (int32_t i = 0; i < n; i++) buf[i] = k * 100003 + (i / 5) * (k % 7 + 1);
}

static char *path_of(const char *name) {
  static char bufs[4][1024];
  static int next = 0;
  char *b = bufs[next++ % 4];
  snprintf(b, 1024, "%s/%s", outdir, name);
  return b;
}

/* What a frame is expected to hold, built alongside the edits. */
typedef struct {
  char desc[64][256];
  int n;
  char metas[8][2][256];
  int nmetas;
  char vlnames[8][64];
  char vlvalues[8][8192];
  int nvlmetas;
} expect_t;

static void ex_data(expect_t *e, int at, int32_t k, int32_t n) {
  memmove(e->desc[at + 1], e->desc[at], sizeof(e->desc[0]) * (size_t)(e->n - at));
  snprintf(e->desc[at], 256, "{\"k\": %d, \"n\": %d}", k, n);
  e->n++;
}

static void ex_special(expect_t *e, int at, const char *kind, int32_t nbytes) {
  memmove(e->desc[at + 1], e->desc[at], sizeof(e->desc[0]) * (size_t)(e->n - at));
  snprintf(e->desc[at], 256, "{\"special\": \"%s\", \"nbytes\": %d}", kind, nbytes);
  e->n++;
}

static void ex_delete(expect_t *e, int at) {
  memmove(e->desc[at], e->desc[at + 1], sizeof(e->desc[0]) * (size_t)(e->n - at - 1));
  e->n--;
}

static void hex(char *out, const uint8_t *b, int n) {
  for (int i = 0; i < n; i++) sprintf(out + 2 * i, "%02x", b[i]);
  out[2 * n] = 0;
}

static void ex_meta(expect_t *e, const char *name, const uint8_t *c, int n) {
  for (int i = 0; i < e->nmetas; i++) {
    if (strcmp(e->metas[i][0], name) == 0) {
      hex(e->metas[i][1], c, n);
      return;
    }
  }
  snprintf(e->metas[e->nmetas][0], 256, "%s", name);
  hex(e->metas[e->nmetas][1], c, n);
  e->nmetas++;
}

static void ex_vlmeta(expect_t *e, const char *name, const uint8_t *c, int n) {
  if (2 * n + 1 > (int)sizeof(e->vlvalues[0])) {
    fprintf(stderr, "vlmetalayer too large for the description\n");
    exit(2);
  }
  for (int i = 0; i < e->nvlmetas; i++) {
    if (strcmp(e->vlnames[i], name) == 0) {
      hex(e->vlvalues[i], c, n);
      return;
    }
  }
  snprintf(e->vlnames[e->nvlmetas], 64, "%s", name);
  hex(e->vlvalues[e->nvlmetas], c, n);
  e->nvlmetas++;
}

static void emit(const char *name, const char *file, int64_t offset, const expect_t *e) {
  fprintf(js, "%s\n  {\"name\": \"%s\", \"path\": \"%s\", \"offset\": %lld, \"chunks\": [", first_entry ? "" : ",", name,
          file, (long long)offset);
  first_entry = 0;
  for (int i = 0; i < e->n; i++) fprintf(js, "%s%s", i ? ", " : "", e->desc[i]);
  fprintf(js, "],\n   \"metas\": {");
  for (int i = 0; i < e->nmetas; i++) fprintf(js, "%s\"%s\": \"%s\"", i ? ", " : "", e->metas[i][0], e->metas[i][1]);
  fprintf(js, "}, \"vlmetas\": {");
  for (int i = 0; i < e->nvlmetas; i++)
    fprintf(js, "%s\"%s\": \"%s\"", i ? ", " : "", e->vlnames[i], e->vlvalues[i]);
  fprintf(js, "}}");
}

static void append(blosc2_schunk *sc, expect_t *e, int32_t k, int32_t n) {
  int32_t *buf = malloc((size_t)n * 4 + 1);
  chunk(buf, n, k);
  REQUIRE(blosc2_schunk_append_buffer(sc, buf, n * 4) == e->n + 1);
  free(buf);
  ex_data(e, e->n, k, n);
}

/* A compressed chunk(k, n) made with the super-chunk's own context. */
static uint8_t *compressed(blosc2_schunk *sc, int32_t k, int32_t n) {
  int32_t *buf = malloc((size_t)n * 4 + 1);
  chunk(buf, n, k);
  uint8_t *c = malloc((size_t)n * 4 + BLOSC2_MAX_OVERHEAD);
  int cs = blosc2_compress_ctx(sc->cctx, buf, n * 4, c, n * 4 + BLOSC2_MAX_OVERHEAD);
  REQUIRE(cs > 0);
  free(buf);
  return c;
}

static blosc2_cparams cparams(int codec, int clevel, int filter) {
  blosc2_cparams cp = BLOSC2_CPARAMS_DEFAULTS;
  cp.typesize = 4;
  cp.compcode = (uint8_t)codec;
  cp.clevel = (uint8_t)clevel;
  cp.filters[BLOSC2_MAX_FILTERS - 1] = (uint8_t)filter;
  cp.nthreads = 1;
  return cp;
}

/* msgpack contents, as python-blosc2 stores metalayers. */
static const uint8_t META_LIST[4] = {0x93, 0x01, 0x02, 0x03};
static const uint8_t META_STR[6] = {0xa5, 'h', 'e', 'l', 'l', 'o'};

/* The edit script shared by the disk scenarios. */
static void edit_script(blosc2_schunk *sc, expect_t *e) {
  enum { N = 4000 };
  REQUIRE(blosc2_meta_add(sc, "list", (uint8_t *)META_LIST, 4) == 0);
  ex_meta(e, "list", META_LIST, 4);
  REQUIRE(blosc2_meta_add(sc, "str", (uint8_t *)META_STR, 6) == 1);
  ex_meta(e, "str", META_STR, 6);
  for (int k = 0; k < 5; k++) append(sc, e, k, N);
  /* insert at 1 (handing the chunk over), update 3, delete 0 */
  uint8_t *c = compressed(sc, 10, N);
  REQUIRE(blosc2_schunk_insert_chunk(sc, 1, c, false) == 6);
  ex_data(e, 1, 10, N);
  c = compressed(sc, 11, N);
  REQUIRE(blosc2_schunk_update_chunk(sc, 3, c, true) == 6);
  free(c);
  ex_delete(e, 3);
  ex_data(e, 3, 11, N);
  REQUIRE(blosc2_schunk_delete_chunk(sc, 0) == 5);
  ex_delete(e, 0);
  /* a zeros chunk and a NaN chunk */
  blosc2_cparams cp = BLOSC2_CPARAMS_DEFAULTS;
  cp.typesize = 4;
  uint8_t special[BLOSC_EXTENDED_HEADER_LENGTH];
  REQUIRE(blosc2_chunk_zeros(cp, N * 4, special, sizeof(special)) > 0);
  REQUIRE(blosc2_schunk_append_chunk(sc, special, true) == 6);
  ex_special(e, 5, "zero", N * 4);
  REQUIRE(blosc2_chunk_nans(cp, N * 4, special, sizeof(special)) > 0);
  REQUIRE(blosc2_schunk_insert_chunk(sc, 2, special, true) == 7);
  ex_special(e, 2, "nan", N * 4);
  /* reorder: reverse */
  int64_t order[7];
  char saved[7][256];
  for (int i = 0; i < 7; i++) {
    order[i] = 6 - i;
    memcpy(saved[i], e->desc[i], 256);
  }
  REQUIRE(blosc2_schunk_reorder_offsets(sc, order) == 0);
  for (int i = 0; i < 7; i++) memcpy(e->desc[i], saved[6 - i], 256);
  /* metalayers and vlmetalayers */
  const uint8_t upd[4] = {0x93, 0x07, 0x08, 0x09};
  REQUIRE(blosc2_meta_update(sc, "list", (uint8_t *)upd, 4) == 0);
  ex_meta(e, "list", upd, 4);
  REQUIRE(blosc2_vlmeta_add(sc, "note", (uint8_t *)"written by the Rust C ABI", 25, NULL) == 0);
  ex_vlmeta(e, "note", (const uint8_t *)"written by the Rust C ABI", 25);
  uint8_t big[3000];
  for (int i = 0; i < 3000; i++) big[i] = (uint8_t)(i / 30);
  blosc2_cparams vcp = BLOSC2_CPARAMS_DEFAULTS;
  vcp.typesize = 1;
  vcp.compcode = BLOSC_ZSTD;
  REQUIRE(blosc2_vlmeta_add(sc, "big", big, 1000, &vcp) == 1);
  REQUIRE(blosc2_vlmeta_add(sc, "tmp", big, 10, NULL) == 2);
  REQUIRE(blosc2_vlmeta_update(sc, "big", big, 3000, &vcp) == 1);
  ex_vlmeta(e, "big", big, 3000);
  REQUIRE(blosc2_vlmeta_delete(sc, "tmp") == 2);
  /* one more chunk after all that */
  append(sc, e, 20, N);
}

static void scenario_disk(const char *name, int contiguous) {
  static expect_t e;
  memset(&e, 0, sizeof(e));
  blosc2_cparams cp = cparams(BLOSC_LZ4, 5, BLOSC_SHUFFLE);
  blosc2_storage st = {.contiguous = contiguous, .urlpath = path_of(name), .cparams = &cp};
  blosc2_schunk *sc = blosc2_schunk_new(&st);
  REQUIRE(sc != NULL);
  if (sc == NULL) return;
  edit_script(sc, &e);
  blosc2_schunk_free(sc);
  /* reopen and edit once more */
  sc = blosc2_schunk_open(path_of(name));
  REQUIRE(sc != NULL);
  if (sc == NULL) return;
  append(sc, &e, 21, 4000);
  uint8_t *c = compressed(sc, 22, 4000);
  REQUIRE(blosc2_schunk_update_chunk(sc, 0, c, false) == e.n);
  ex_delete(&e, 0);
  ex_data(&e, 0, 22, 4000);
  blosc2_schunk_free(sc);
  emit(name, name, 0, &e);
}

static void scenario_memory(const char *name, int contiguous, int codec, int filter) {
  expect_t e = {0};
  blosc2_cparams cp = cparams(codec, 7, filter);
  blosc2_storage st = {.contiguous = contiguous, .cparams = &cp};
  blosc2_schunk *sc = blosc2_schunk_new(&st);
  REQUIRE(sc != NULL);
  if (sc == NULL) return;
  edit_script(sc, &e);
  uint8_t *cframe;
  bool needs_free;
  int64_t len = blosc2_schunk_to_buffer(sc, &cframe, &needs_free);
  REQUIRE(len > 0);
  FILE *f = fopen(path_of(name), "wb");
  fwrite(cframe, 1, (size_t)len, f);
  fclose(f);
  /* the same frame appended to a shared file at an offset */
  int64_t off = blosc2_schunk_append_file(sc, path_of("appended.b2frames"));
  REQUIRE(off >= 0);
  char aname[128];
  snprintf(aname, sizeof(aname), "%s@appended", name);
  emit(aname, "appended.b2frames", off, &e);
  if (needs_free) free(cframe);
  blosc2_schunk_free(sc);
  emit(name, name, 0, &e);
}

static void scenario_special(const char *name, int contiguous, int kind) {
  expect_t e = {0};
  blosc2_cparams cp = cparams(BLOSC_BLOSCLZ, 5, BLOSC_SHUFFLE);
  blosc2_storage st = {.contiguous = contiguous, .urlpath = path_of(name), .cparams = &cp};
  blosc2_schunk *sc = blosc2_schunk_new(&st);
  REQUIRE(sc != NULL);
  if (sc == NULL) return;
  const char *kn = kind == BLOSC2_SPECIAL_NAN ? "nan" : kind == BLOSC2_SPECIAL_ZERO ? "zero" : "uninit";
  /* 7 chunks of 3000 items and one of 1234 */
  REQUIRE(blosc2_schunk_fill_special(sc, 7 * 3000 + 1234, kind, 3000 * 4) == 8);
  for (int i = 0; i < 7; i++) ex_special(&e, i, kn, 3000 * 4);
  ex_special(&e, 7, kn, 1234 * 4);
  /* overwrite chunk 2 with data through a slice */
  int32_t buf[3000];
  chunk(buf, 3000, 30);
  REQUIRE(blosc2_schunk_set_slice_buffer(sc, 2 * 3000, 3 * 3000, buf) == 0);
  ex_delete(&e, 2);
  ex_data(&e, 2, 30, 3000);
  blosc2_schunk_free(sc);
  emit(name, name, 0, &e);
}

static void scenario_variable(void) {
  expect_t e = {0};
  blosc2_cparams cp = cparams(BLOSC_ZLIB, 5, BLOSC_BITSHUFFLE);
  blosc2_storage st = {.contiguous = true, .urlpath = path_of("variable.b2frame"), .cparams = &cp};
  blosc2_schunk *sc = blosc2_schunk_new(&st);
  REQUIRE(sc != NULL);
  if (sc == NULL) return;
  append(sc, &e, 1, 3000);
  append(sc, &e, 2, 1000);
  append(sc, &e, 3, 3000);
  append(sc, &e, 4, 17);
  REQUIRE(sc->chunksize == 0);
  REQUIRE(blosc2_schunk_delete_chunk(sc, 1) == 3);
  ex_delete(&e, 1);
  blosc2_schunk_free(sc);
  emit("variable.b2frame", "variable.b2frame", 0, &e);
}

static void scenario_copies(void) {
  /* a sparse frame copied (recompressed with zstd) to a frame file, and
     written out with to_file */
  expect_t e = {0};
  blosc2_cparams cp = cparams(BLOSC_LZ4, 3, BLOSC_SHUFFLE);
  blosc2_storage st = {.contiguous = false, .urlpath = path_of("copy_src.b2frame"), .cparams = &cp};
  blosc2_schunk *sc = blosc2_schunk_new(&st);
  REQUIRE(sc != NULL);
  if (sc == NULL) return;
  edit_script(sc, &e);
  blosc2_cparams zcp = cparams(BLOSC_ZSTD, 9, BLOSC_BITSHUFFLE);
  blosc2_storage dst = {.contiguous = true, .urlpath = path_of("copy_zstd.b2frame"), .cparams = &zcp};
  blosc2_schunk *copy = blosc2_schunk_copy(sc, &dst);
  REQUIRE(copy != NULL);
  if (copy != NULL) {
    REQUIRE(copy->compcode == BLOSC_ZSTD);
    blosc2_schunk_free(copy);
    emit("copy_zstd.b2frame", "copy_zstd.b2frame", 0, &e);
  }
  REQUIRE(blosc2_schunk_to_file(sc, path_of("to_file.b2frame")) > 0);
  emit("to_file.b2frame", "to_file.b2frame", 0, &e);
  emit("copy_src.b2frame", "copy_src.b2frame", 0, &e);
  blosc2_schunk_free(sc);
  /* a frame loaded from a buffer (no copy), edited and saved */
  FILE *f = fopen(path_of("to_file.b2frame"), "rb");
  fseek(f, 0, SEEK_END);
  long len = ftell(f);
  fseek(f, 0, SEEK_SET);
  uint8_t *buf = malloc((size_t)len);
  REQUIRE(fread(buf, 1, (size_t)len, f) == (size_t)len);
  fclose(f);
  sc = blosc2_schunk_from_buffer(buf, len, false);
  REQUIRE(sc != NULL);
  if (sc != NULL) {
    append(sc, &e, 40, 500);
    REQUIRE(blosc2_schunk_to_file(sc, path_of("from_buffer_edited.b2frame")) > 0);
    blosc2_schunk_avoid_cframe_free(sc, false); /* the super-chunk frees buf */
    blosc2_schunk_free(sc);
    emit("from_buffer_edited.b2frame", "from_buffer_edited.b2frame", 0, &e);
  } else {
    free(buf);
  }
}

static void scenario_vlblocks(void) {
  expect_t e = {0};
  blosc2_cparams cp = BLOSC2_CPARAMS_DEFAULTS;
  cp.typesize = 1;
  cp.compcode = BLOSC_LZ4;
  blosc2_storage st = {.contiguous = true, .urlpath = path_of("vlblocks.b2frame"), .cparams = &cp};
  blosc2_schunk *sc = blosc2_schunk_new(&st);
  REQUIRE(sc != NULL);
  if (sc == NULL) return;
  const char *blocks[3] = {"first block", "the second block is a bit longer, longer, longer", "3"};
  int32_t sizes[3];
  for (int i = 0; i < 3; i++) sizes[i] = (int32_t)strlen(blocks[i]);
  uint8_t c[1024];
  int cs = blosc2_vlcompress_ctx(sc->cctx, (const void *const *)blocks, sizes, 3, c, sizeof(c));
  REQUIRE(cs > 0);
  uint8_t all[99];
  int32_t total = 0;
  for (int i = 0; i < 3; i++) {
    memcpy(all + total, blocks[i], (size_t)sizes[i]);
    total += sizes[i];
  }
  for (int n = 0; n < 2; n++) {
    REQUIRE(blosc2_schunk_append_chunk(sc, c, true) == n + 1);
    char h[200];
    hex(h, all, total < 99 ? total : 99);
    snprintf(e.desc[e.n++], 256, "{\"hex\": \"%s\"}", h);
  }
  blosc2_schunk_free(sc);
  emit("vlblocks.b2frame", "vlblocks.b2frame", 0, &e);
}

static int edit(const char *path) {
  blosc2_schunk *sc = blosc2_schunk_open(path);
  REQUIRE(sc != NULL);
  if (sc == NULL) return 1;
  int32_t nbytes = 0;
  uint8_t *c0;
  bool nf;
  REQUIRE(blosc2_schunk_get_chunk(sc, 0, &c0, &nf) > 0);
  blosc2_cbuffer_sizes(c0, &nbytes, NULL, NULL);
  if (nf) free(c0);
  uint8_t *c = compressed(sc, 51, nbytes / 4);
  REQUIRE(blosc2_schunk_update_chunk(sc, 0, c, false) == sc->nchunks);
  REQUIRE(blosc2_schunk_delete_chunk(sc, 1) >= 0);
  int32_t buf[1000];
  chunk(buf, 1000, 50);
  REQUIRE(blosc2_schunk_append_buffer(sc, buf, sizeof(buf)) == sc->nchunks);
  REQUIRE(blosc2_vlmeta_add(sc, "c_edit", (uint8_t *)"edited by C", 11, NULL) >= 0);
  blosc2_schunk_free(sc);
  return failures ? 1 : 0;
}

int main(int argc, char **argv) {
  if (argc == 3 && strcmp(argv[1], "--edit") == 0) {
    return edit(argv[2]);
  }
  if (argc != 2) {
    fprintf(stderr, "usage: %s OUTDIR\n", argv[0]);
    return 2;
  }
  outdir = argv[1];
  js = fopen(path_of("frames.json"), "w");
  if (js == NULL) return 2;
  fprintf(js, "[");
  /* No blosc2_init: the super-chunk API works without it. */
  scenario_memory("memory_contiguous.b2frame", 1, BLOSC_LZ4, BLOSC_SHUFFLE);
  scenario_memory("memory_chunks.b2frame", 0, BLOSC_ZSTD, BLOSC_BITSHUFFLE);
  scenario_disk("disk.b2frame", 1);
  scenario_disk("sparse.b2frame", 0);
  scenario_special("special_nan.b2frame", 1, BLOSC2_SPECIAL_NAN);
  scenario_special("special_zero_dir.b2frame", 0, BLOSC2_SPECIAL_ZERO);
  scenario_special("special_uninit.b2frame", 1, BLOSC2_SPECIAL_UNINIT);
  scenario_variable();
  scenario_copies();
  scenario_vlblocks();
  fprintf(js, "\n]\n");
  fclose(js);
  if (failures) {
    fprintf(stderr, "%d failure(s)\n", failures);
    return 1;
  }
  printf("wrote frames to %s\n", outdir);
  return 0;
}
