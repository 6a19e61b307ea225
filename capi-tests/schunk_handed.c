/* Chunks handed over with copy = false (what python-blosc2 does for every
 * chunk): an in-memory super-chunk keeps the caller's malloc'ed buffer as
 * the chunk (shrunk when it is larger than the chunk), frames copy it in and
 * free it, and a refused chunk stays with the caller. Run under ASan or
 * valgrind (.ci/sanitizers.sh), a chunk freed twice or never fails. Passes
 * against C-Blosc2 3.3.5 too. */
#include "schunk_common.h"

enum { NITEMS = 5000, NBYTES = NITEMS * 4, BUFSIZE = NBYTES + BLOSC2_MAX_OVERHEAD };

/* A malloc'ed buffer of BUFSIZE bytes holding fill_chunk(k) compressed at
 * `clevel` (0: a memcpyed chunk, larger than its data). */
static uint8_t *new_chunk(int32_t k, int clevel) {
  int32_t *buf = xmalloc(NBYTES);
  fill_chunk(buf, NITEMS, k);
  blosc2_cparams cp = int32_cparams(BLOSC_LZ4, clevel);
  blosc2_context *cctx = blosc2_create_cctx(cp);
  uint8_t *chunk = xmalloc(BUFSIZE);
  int csize = blosc2_compress_ctx(cctx, buf, NBYTES, chunk, BUFSIZE);
  CHECK(csize > 0);
  blosc2_free_ctx(cctx);
  free(buf);
  return chunk;
}

static void check_content(blosc2_schunk *sc, const int32_t *ks, int n) {
  CHECK_EQ(sc->nchunks, n);
  CHECK_EQ(sc->nbytes, (int64_t)n * NBYTES);
  for (int i = 0; i < n; i++) {
    CHECK(chunk_is(sc, i, ks[i], NITEMS));
  }
  /* Items across the chunk boundaries, through the slice reader. */
  int32_t *got = xmalloc((size_t)NBYTES * 2);
  int32_t *want = xmalloc(NBYTES);
  if (n >= 2) {
    int64_t start = NITEMS / 2, stop = start + NITEMS;
    CHECK_EQ(blosc2_schunk_get_slice_buffer(sc, start, stop, got), 0);
    fill_chunk(want, NITEMS, ks[0]);
    CHECK(memcmp(got, want + NITEMS / 2, NBYTES / 2) == 0);
    fill_chunk(want, NITEMS, ks[1]);
    CHECK(memcmp(got + NITEMS / 2, want, NBYTES / 2) == 0);
  }
  free(got);
  free(want);
}

static void run(bool contiguous, const char *urlpath) {
  blosc2_storage storage = BLOSC2_STORAGE_DEFAULTS;
  blosc2_cparams cparams = int32_cparams(BLOSC_LZ4, 5);
  storage.cparams = &cparams;
  storage.contiguous = contiguous;
  storage.urlpath = (char *)urlpath;
  blosc2_remove_urlpath(urlpath);
  blosc2_schunk *sc = blosc2_schunk_new(&storage);
  CHECK(sc != NULL);
  if (sc == NULL) return;
  bool in_memory = !contiguous && urlpath == NULL;

  /* Appends: compressed chunks in buffers sized for their data, and one
   * memcpyed chunk (larger than its data, kept as it is). */
  for (int32_t k = 0; k < 3; k++) {
    CHECK_EQ(blosc2_schunk_append_chunk(sc, new_chunk(k, 5), false), k + 1);
  }
  uint8_t *plain = new_chunk(3, 0);
  CHECK_EQ(blosc2_schunk_append_chunk(sc, plain, false), 4);
  if (in_memory) {
    uint8_t *c;
    bool needs_free;
    int cb = blosc2_schunk_get_chunk(sc, 3, &c, &needs_free);
    CHECK_EQ(cb, NBYTES + BLOSC2_MAX_OVERHEAD);
    CHECK(!needs_free);
    /* The caller's buffer is the stored chunk. */
    CHECK(c == plain);
    CHECK(sc->data[3] == plain);
  }
  int32_t ks[4] = {0, 1, 2, 3};
  check_content(sc, ks, 4);

  /* Insert and update hand chunks over too; update and delete drop
   * handed-over chunks. */
  CHECK_EQ(blosc2_schunk_insert_chunk(sc, 0, new_chunk(10, 5), false), 5);
  CHECK_EQ(blosc2_schunk_update_chunk(sc, 4, new_chunk(11, 5), false), 5);
  CHECK_EQ(blosc2_schunk_update_chunk(sc, 1, new_chunk(12, 0), false), 5);
  CHECK_EQ(blosc2_schunk_delete_chunk(sc, 2), 4);
  int32_t ks2[4] = {10, 12, 2, 11};
  check_content(sc, ks2, 4);
  if (in_memory) {
    int64_t total = 0;
    for (int i = 0; i < 4; i++) {
      int32_t nb, cb, bs;
      CHECK_EQ(blosc2_cbuffer_sizes(sc->data[i], &nb, &cb, &bs), 0);
      total += cb;
    }
    CHECK_EQ(sc->cbytes, total);
  }

  /* Refused chunks stay with the caller, who frees them. */
  uint8_t *refused = new_chunk(20, 5);
  CHECK(blosc2_schunk_insert_chunk(sc, 9, refused, false) < 0);
  CHECK(blosc2_schunk_update_chunk(sc, 4, refused, false) < 0);
  CHECK(blosc2_schunk_update_chunk(sc, -1, refused, false) < 0);
  free(refused);
  check_content(sc, ks2, 4);

  /* Reorder, copy, and a frame written and read back. */
  int64_t order[4] = {3, 2, 1, 0};
  CHECK_EQ(blosc2_schunk_reorder_offsets(sc, order), 0);
  int32_t ks3[4] = {11, 2, 12, 10};
  check_content(sc, ks3, 4);
  blosc2_storage cst = BLOSC2_STORAGE_DEFAULTS;
  blosc2_schunk *copy = blosc2_schunk_copy(sc, &cst);
  CHECK(copy != NULL);
  if (copy != NULL) {
    check_content(copy, ks3, 4);
    CHECK_EQ(blosc2_schunk_free(copy), 0);
  }
  uint8_t *cframe;
  bool cframe_free;
  int64_t len = blosc2_schunk_to_buffer(sc, &cframe, &cframe_free);
  CHECK(len > 0);
  if (len > 0) {
    blosc2_schunk *back = blosc2_schunk_from_buffer(cframe, len, true);
    CHECK(back != NULL);
    if (back != NULL) {
      check_content(back, ks3, 4);
      CHECK_EQ(blosc2_schunk_free(back), 0);
    }
    if (cframe_free) free(cframe);
  }
  CHECK_EQ(blosc2_schunk_free(sc), 0);
  blosc2_remove_urlpath(urlpath);
}

int main(void) {
  blosc2_init();
  scratch_init("handed");
  run(false, NULL);
  run(true, NULL);
  run(true, scratch_path("handed.b2frame"));
  run(false, scratch_path("handed_dir.b2frame"));
  scratch_done();
  blosc2_destroy();
  TEST_DONE();
}
