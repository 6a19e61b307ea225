/* Slices of super-chunks (get/set/sparse), chunk indexes of slices (plain
 * and with a b2nd metalayer), the index helpers and VL-block chunks. */
#include "schunk_common.h"

enum { NITEMS = 2500, NBYTES = NITEMS * 4, TOTAL = 4 * NITEMS + 1000 };

/* Item i of the whole super-chunk built below. */
static int32_t item(int32_t i) {
  int32_t k = i / NITEMS;
  return k * 1000 + (i % NITEMS) / 3;
}

static void slices(int kind) {
  char *path = kind == 2 ? scratch_path("sl.b2frame") : kind == 3 ? scratch_path("sl_dir.b2frame") : NULL;
  blosc2_cparams cp = int32_cparams(BLOSC_BLOSCLZ, 5);
  cp.blocksize = 2048;
  blosc2_storage st = {.contiguous = kind == 1 || kind == 2, .urlpath = path, .cparams = &cp};
  blosc2_schunk *sc = make_schunk(&st, 4, NITEMS);
  CHECK(sc != NULL);
  if (sc == NULL) return;
  int32_t last[1000];
  fill_chunk(last, 1000, 4);
  CHECK_EQ(blosc2_schunk_append_buffer(sc, last, sizeof(last)), 5);
  CHECK_EQ(sc->nbytes, (int64_t)TOTAL * 4);

  int32_t *buf = xmalloc(TOTAL * 4);
  CHECK_EQ(blosc2_schunk_get_slice_buffer(sc, 0, TOTAL, buf), 0);
  int ok = 1;
  for (int32_t i = 0; i < TOTAL; i++) ok &= buf[i] == item(i);
  CHECK(ok);
  CHECK_EQ(blosc2_schunk_get_slice_buffer(sc, 2400, 7600, buf), 0);
  ok = 1;
  for (int32_t i = 2400; i < 7600; i++) ok &= buf[i - 2400] == item(i);
  CHECK(ok);
  CHECK_EQ(blosc2_schunk_get_slice_buffer(sc, 10400, 10401, buf), 0);
  CHECK_EQ(buf[0], item(10400));

  /* Overwrite a range spanning a partial, a whole and a partial chunk. */
  int32_t *w = xmalloc(6000 * 4);
  for (int32_t i = 0; i < 6000; i++) w[i] = -i;
  CHECK_EQ(blosc2_schunk_set_slice_buffer(sc, 2000, 8000, w), 0);
  CHECK_EQ(sc->nchunks, 5);
  CHECK_EQ(blosc2_schunk_get_slice_buffer(sc, 0, TOTAL, buf), 0);
  ok = 1;
  for (int32_t i = 0; i < TOTAL; i++) ok &= buf[i] == (i >= 2000 && i < 8000 ? -(i - 2000) : item(i));
  CHECK(ok);

  /* Scattered items, in any order, repeated. */
  int64_t coords[7] = {10999, 0, 2500, 2001, 2001, 9000, 7999};
  int32_t got[7];
  CHECK_EQ(blosc2_schunk_get_sparse_buffer(sc, 7, coords, got), 0);
  for (int i = 0; i < 7; i++) CHECK_EQ(got[i], buf[coords[i]]);
  CHECK_EQ(blosc2_schunk_get_sparse_buffer(sc, 0, NULL, NULL), 0);

  /* Chunks of a slice. */
  int64_t start = 2400, stop = 5100;
  int64_t *idx = NULL;
  CHECK_EQ(blosc2_get_slice_nchunks(sc, &start, &stop, &idx), 3);
  CHECK(idx != NULL);
  if (idx != NULL) {
    CHECK_EQ(idx[0], 0);
    CHECK_EQ(idx[1], 1);
    CHECK_EQ(idx[2], 2);
    free(idx);
  }
  start = 10000;
  stop = 11000;
  CHECK_EQ(blosc2_get_slice_nchunks(sc, &start, &stop, &idx), 1);
  if (idx != NULL) {
    CHECK_EQ(idx[0], 4);
    free(idx);
  }

#ifndef CAPI_REFERENCE
  /* Out of range (3.3.5 reads past the end). */
  CHECK(blosc2_schunk_get_slice_buffer(sc, 0, TOTAL + 1, buf) < 0);
  /* A reversed range reads nothing, as 3.3.5 (capi-tests/slice_edges.c). */
  CHECK_EQ(blosc2_schunk_get_slice_buffer(sc, 5, 4, buf), 0);
  CHECK(blosc2_schunk_set_slice_buffer(sc, -1, 4, buf) < 0);
  int64_t bad = TOTAL;
  CHECK(blosc2_schunk_get_sparse_buffer(sc, 1, &bad, got) < 0);
#endif
  CHECK(blosc2_schunk_get_sparse_buffer(sc, -1, coords, got) < 0);

  blosc2_schunk_free(sc);
  if (path != NULL) {
    sc = blosc2_schunk_open(path);
    CHECK(sc != NULL);
    if (sc != NULL) {
      int32_t one;
      CHECK_EQ(blosc2_schunk_get_slice_buffer(sc, 7999, 8000, &one), 0);
      CHECK_EQ(one, -5999);
      blosc2_schunk_free(sc);
    }
    blosc2_remove_urlpath(path);
  }
  free(buf);
  free(w);
}

static void put_be(uint8_t *p, uint64_t v, int n) {
  for (int i = 0; i < n; i++) p[i] = (uint8_t)(v >> (8 * (n - 1 - i)));
}

/* A b2nd metalayer (version 0) for a 2-d uint8 array. */
static int32_t b2nd_meta(uint8_t *m, const int64_t *shape, const int32_t *chunkshape, const int32_t *blockshape) {
  int32_t p = 0;
  m[p++] = 0x97;
  m[p++] = 0;
  m[p++] = 2;
  m[p++] = 0x92;
  for (int i = 0; i < 2; i++) {
    m[p++] = 0xd3;
    put_be(m + p, (uint64_t)shape[i], 8);
    p += 8;
  }
  const int32_t *arrs[2] = {chunkshape, blockshape};
  for (int a = 0; a < 2; a++) {
    m[p++] = 0x92;
    for (int i = 0; i < 2; i++) {
      m[p++] = 0xd2;
      put_be(m + p, (uint64_t)(uint32_t)arrs[a][i], 4);
      p += 4;
    }
  }
  m[p++] = 0;
  m[p++] = 0xdb;
  put_be(m + p, 3, 4);
  p += 4;
  memcpy(m + p, "|u1", 3);
  return p + 3;
}

static void b2nd_chunks(void) {
  int64_t shape[2] = {10, 12};
  int32_t chunkshape[2] = {4, 5};
  int32_t blockshape[2] = {2, 5};
  uint8_t meta[128];
  int32_t mlen = b2nd_meta(meta, shape, chunkshape, blockshape);
  blosc2_cparams cp = BLOSC2_CPARAMS_DEFAULTS;
  cp.typesize = 1;
  cp.blocksize = 10;
  blosc2_storage st = {.contiguous = true, .cparams = &cp};
  blosc2_schunk *sc = blosc2_schunk_new(&st);
  CHECK_EQ(blosc2_meta_add(sc, "b2nd", meta, mlen), 0);
  uint8_t chunk[20];
  memset(chunk, 1, sizeof(chunk));
  for (int i = 0; i < 9; i++) CHECK_EQ(blosc2_schunk_append_buffer(sc, chunk, 20), i + 1);

  int64_t start[2] = {4, 5}, stop[2] = {8, 10};
  int64_t *idx = NULL;
  CHECK_EQ(blosc2_get_slice_nchunks(sc, start, stop, &idx), 1);
  if (idx != NULL) {
    CHECK_EQ(idx[0], 4);
    free(idx);
  }
  int64_t s2[2] = {3, 9}, e2[2] = {9, 11};
  CHECK_EQ(blosc2_get_slice_nchunks(sc, s2, e2, &idx), 6);
  if (idx != NULL) {
    int64_t want[6] = {1, 2, 4, 5, 7, 8};
    for (int i = 0; i < 6; i++) CHECK_EQ(idx[i], want[i]);
    free(idx);
  }
  int64_t s3[2] = {0, 0}, e3[2] = {10, 12};
  CHECK_EQ(blosc2_get_slice_nchunks(sc, s3, e3, &idx), 9);
  free(idx);
  blosc2_schunk_free(sc);
}

static void index_helpers(void) {
  int64_t shape[3] = {4, 5, 6};
  int64_t index[3] = {-1, -1, -1};
  blosc2_unidim_to_multidim(3, shape, 2 * 30 + 3 * 6 + 4, index);
  CHECK_EQ(index[0], 2);
  CHECK_EQ(index[1], 3);
  CHECK_EQ(index[2], 4);
  int64_t strides[3] = {30, 6, 1};
  int64_t lin = -1;
  blosc2_multidim_to_unidim(index, 3, strides, &lin);
  CHECK_EQ(lin, 82);
  blosc2_unidim_to_multidim(0, shape, 5, index); /* no-op */
  CHECK_EQ(index[0], 2);
}

static void vlblocks(void) {
  blosc2_cparams cp = BLOSC2_CPARAMS_DEFAULTS;
  cp.typesize = 1;
  blosc2_context *cctx = blosc2_create_cctx(cp);
  const char *blocks[3] = {"alpha", "a longer second block, repeated repeated repeated", "z"};
  int32_t sizes[3];
  for (int i = 0; i < 3; i++) sizes[i] = (int32_t)strlen(blocks[i]);
  uint8_t chunk[512];
  int csize = blosc2_vlcompress_ctx(cctx, (const void *const *)blocks, sizes, 3, chunk, sizeof(chunk));
  CHECK(csize > 0);
  for (int kind = 0; kind < 3; kind++) {
    char *path = kind == 2 ? scratch_path("vl.b2frame") : NULL;
    blosc2_storage st = {.contiguous = kind >= 1, .urlpath = path, .cparams = &cp};
    blosc2_schunk *sc = blosc2_schunk_new(&st);
    CHECK_EQ(blosc2_schunk_append_chunk(sc, chunk, true), 1);
    CHECK_EQ(blosc2_schunk_append_chunk(sc, chunk, true), 2);
    CHECK_EQ(sc->flags2 & BLOSC2_VL_BLOCKS, BLOSC2_VL_BLOCKS);
    for (int b = 0; b < 3; b++) {
      uint8_t *dest = NULL;
      int32_t dsize = 0;
      CHECK_EQ(blosc2_schunk_get_vlblock(sc, 1, b, &dest, &dsize), sizes[b]);
      CHECK_EQ(dsize, sizes[b]);
      CHECK(dest != NULL && memcmp(dest, blocks[b], (size_t)sizes[b]) == 0);
      free(dest);
    }
    uint8_t *dest = (uint8_t *)1;
    int32_t dsize = 7;
    CHECK(blosc2_schunk_get_vlblock(sc, 1, 3, &dest, &dsize) < 0);
    CHECK(blosc2_schunk_get_vlblock(sc, 2, 0, &dest, &dsize) < 0);
    /* Regular chunks cannot join VL-block ones. */
    int32_t data[100] = {0};
    CHECK(blosc2_schunk_append_buffer(sc, data, sizeof(data)) < 0);
    CHECK_EQ(sc->nchunks, 2);
    blosc2_schunk_free(sc);
    if (path != NULL) {
      sc = blosc2_schunk_open(path);
      CHECK(sc != NULL);
      if (sc != NULL) {
        CHECK_EQ(sc->flags2 & BLOSC2_VL_BLOCKS, BLOSC2_VL_BLOCKS);
        uint8_t *d2 = NULL;
        int32_t s2 = 0;
        CHECK_EQ(blosc2_schunk_get_vlblock(sc, 0, 1, &d2, &s2), sizes[1]);
        free(d2);
        blosc2_schunk_free(sc);
      }
      blosc2_remove_urlpath(path);
    }
  }
  blosc2_free_ctx(cctx);
}

int main(void) {
  blosc2_init();
  scratch_init("slices");
  for (int kind = 0; kind < 4; kind++) slices(kind);
  b2nd_chunks();
  index_helpers();
  vlblocks();
  scratch_done();
  blosc2_destroy();
  TEST_DONE();
}
