/*
 * A super-chunk with metalayers and vlmetalayers, read the way programs
 * built against C-Blosc2 2.x read it: straight from the blosc2_schunk
 * fields (nchunks, nbytes, cbytes, filters, metalayers[i]->name,
 * nmetalayers) and through the header's inline blosc2_meta_exists /
 * blosc2_meta_get, which index the struct themselves.
 *
 * The same source is compiled against include/v2 (2.23 layout, linked to
 * libblosc2.so.7) and against include/ (3.3 layout, libblosc2.so.9): with
 * a path argument it writes the super-chunk there as an on-disk frame, so
 * that tests/capi_v2.rs can have the 2.23 build read what the 3.3 build
 * wrote (capi-tests/v2/read_frame.c).
 */
#include "blosc2.h"
#include "capi_check.h"

#define NCHUNKS 5
#define CHUNK_ITEMS 5000

static const char *const META_NAMES[] = {"shape", "answer", "label"};
static const uint8_t SHAPE[] = {0x93, 0x03, 0x04, 0x05};
static const uint8_t ANSWER[] = {0x2a};
static const uint8_t LABEL[] = {0xa2, 'v', '2'};

static void check_meta(blosc2_schunk *sc, const char *name, const uint8_t *want, int32_t want_len, int index) {
  CHECK_EQ(blosc2_meta_exists(sc, name), index);
  /* What the inline functions do, spelled out on the raw struct. */
  CHECK(sc->metalayers[index] != NULL);
  CHECK(strcmp(sc->metalayers[index]->name, name) == 0);
  CHECK_EQ(sc->metalayers[index]->content_len, want_len);
  CHECK(memcmp(sc->metalayers[index]->content, want, (size_t)want_len) == 0);
  uint8_t *content = NULL;
  int32_t len = -1;
  CHECK_EQ(blosc2_meta_get(sc, name, &content, &len), index);
  CHECK_EQ(len, want_len);
  CHECK(content != NULL && memcmp(content, want, (size_t)want_len) == 0);
  free(content);
}

static void check_struct(blosc2_schunk *sc, int64_t nchunks) {
  CHECK_EQ(sc->nchunks, nchunks);
  CHECK_EQ(sc->nbytes, nchunks * CHUNK_ITEMS * (int64_t)sizeof(int32_t));
  CHECK(sc->cbytes > 0 && sc->cbytes < sc->nbytes);
  CHECK_EQ(sc->typesize, 4);
  CHECK_EQ(sc->compcode, BLOSC_ZSTD);
  CHECK_EQ(sc->clevel, 5);
  CHECK_EQ(sc->filters[BLOSC2_MAX_FILTERS - 1], BLOSC_SHUFFLE);
  CHECK_EQ(sc->filters[BLOSC2_MAX_FILTERS - 2], BLOSC_DELTA);
  CHECK_EQ(sc->chunksize, CHUNK_ITEMS * (int32_t)sizeof(int32_t));
  CHECK_EQ(sc->nmetalayers, 3);
  CHECK_EQ(sc->nvlmetalayers, 2);
  CHECK(sc->storage != NULL && sc->storage->cparams != NULL);
  CHECK(sc->cctx != NULL && sc->dctx != NULL);
  check_meta(sc, "shape", SHAPE, (int32_t)sizeof(SHAPE), 0);
  check_meta(sc, "answer", ANSWER, (int32_t)sizeof(ANSWER), 1);
  check_meta(sc, "label", LABEL, (int32_t)sizeof(LABEL), 2);
  CHECK(blosc2_meta_exists(sc, "missing") < 0);
  for (int i = 0; i < 3; i++) {
    CHECK(strcmp(sc->metalayers[i]->name, META_NAMES[i]) == 0);
  }
  CHECK_EQ(blosc2_vlmeta_exists(sc, "info"), 0);
  CHECK_EQ(blosc2_vlmeta_exists(sc, "note"), 1);
  CHECK(strcmp(sc->vlmetalayers[1]->name, "note") == 0);
  uint8_t *content = NULL;
  int32_t len = 0;
  CHECK_EQ(blosc2_vlmeta_get(sc, "info", &content, &len), 0);
  CHECK(len == 5 && content != NULL && memcmp(content, "hello", 5) == 0);
  free(content);
}

static void check_chunks(blosc2_schunk *sc, int64_t nchunks) {
  int32_t *out = xmalloc(CHUNK_ITEMS * sizeof(int32_t));
  for (int64_t c = 0; c < nchunks; c++) {
    int n = blosc2_schunk_decompress_chunk(sc, c, out, CHUNK_ITEMS * (int32_t)sizeof(int32_t));
    CHECK_EQ(n, CHUNK_ITEMS * (int)sizeof(int32_t));
    for (int i = 0; i < CHUNK_ITEMS; i++) {
      if (out[i] != (int32_t)(c * CHUNK_ITEMS + i)) {
        CHECK_EQ(out[i], c * CHUNK_ITEMS + i);
        break;
      }
    }
  }
  free(out);
}

int main(int argc, char **argv) {
  const char *urlpath = argc > 1 ? argv[1] : NULL;
  blosc2_init();
  blosc2_cparams cparams = BLOSC2_CPARAMS_DEFAULTS;
  cparams.typesize = sizeof(int32_t);
  cparams.compcode = BLOSC_ZSTD;
  cparams.clevel = 5;
  cparams.filters[BLOSC2_MAX_FILTERS - 2] = BLOSC_DELTA;
  cparams.nthreads = 2;
  blosc2_storage storage = BLOSC2_STORAGE_DEFAULTS;
  storage.contiguous = true;
  storage.cparams = &cparams;
  if (urlpath != NULL) {
    blosc2_remove_urlpath(urlpath);
    storage.urlpath = (char *)urlpath;
  }
  blosc2_schunk *sc = blosc2_schunk_new(&storage);
  CHECK(sc != NULL);
  if (sc == NULL) {
    TEST_DONE();
  }
  CHECK_EQ(blosc2_meta_add(sc, "shape", (uint8_t *)SHAPE, (int32_t)sizeof(SHAPE)), 0);
  CHECK_EQ(blosc2_meta_add(sc, "answer", (uint8_t *)ANSWER, (int32_t)sizeof(ANSWER)), 1);
  CHECK_EQ(blosc2_meta_add(sc, "label", (uint8_t *)"\xa2xx", 3), 2);
  CHECK_EQ(sc->nmetalayers, 3);
  /* Same length: updated in place, as 2.x allows. */
  CHECK_EQ(blosc2_meta_update(sc, "label", (uint8_t *)LABEL, (int32_t)sizeof(LABEL)), 2);

  int32_t *data = xmalloc(CHUNK_ITEMS * sizeof(int32_t));
  for (int64_t c = 0; c < NCHUNKS; c++) {
    for (int i = 0; i < CHUNK_ITEMS; i++) {
      data[i] = (int32_t)(c * CHUNK_ITEMS + i);
    }
    CHECK_EQ(blosc2_schunk_append_buffer(sc, data, CHUNK_ITEMS * sizeof(int32_t)), c + 1);
    CHECK_EQ(sc->nchunks, c + 1);
  }
  free(data);
  blosc2_cparams vlparams = BLOSC2_CPARAMS_DEFAULTS;
  CHECK_EQ(blosc2_vlmeta_add(sc, "info", (uint8_t *)"hello", 5, &vlparams), 0);
  CHECK_EQ(blosc2_vlmeta_add(sc, "note", (uint8_t *)"a note", 6, &vlparams), 1);
  check_struct(sc, NCHUNKS);
  check_chunks(sc, NCHUNKS);

  /* A copy through a contiguous in-memory frame keeps it all. */
  uint8_t *cframe = NULL;
  bool needs_free = false;
  int64_t len = blosc2_schunk_to_buffer(sc, &cframe, &needs_free);
  CHECK(len > 0);
  blosc2_schunk *copy = blosc2_schunk_from_buffer(cframe, len, true);
  CHECK(copy != NULL);
  if (copy != NULL) {
    check_struct(copy, NCHUNKS);
    check_chunks(copy, NCHUNKS);
    blosc2_schunk_free(copy);
  }
  if (needs_free) {
    free(cframe);
  }
  blosc2_schunk_free(sc);

  if (urlpath != NULL) {
    /* Reopened from disk. */
    blosc2_schunk *back = blosc2_schunk_open(urlpath);
    CHECK(back != NULL);
    if (back != NULL) {
      check_struct(back, NCHUNKS);
      check_chunks(back, NCHUNKS);
      blosc2_schunk_free(back);
    }
  }
  blosc2_destroy();
  TEST_DONE();
}
