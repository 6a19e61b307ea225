/* Item slices of a super-chunk at and past its end return what 3.3.5
 * returns (python-blosc2's SChunk.get_slice/set_slice and the paths that
 * grow a super-chunk call them with such ranges and check the code):
 * - get: an empty or reversed range reads nothing and succeeds; a range
 *   reaching past the last item fails with BLOSC2_ERROR_FAILURE;
 * - set: an empty or reversed range succeeds; a range ending past the last
 *   item but inside the last chunk's chunksize succeeds, writes the items
 *   up to the last one and drops the rest (nbytes unchanged); a range
 *   reaching a chunk past the last fails with BLOSC2_ERROR_FAILURE.
 * Frames and plain super-chunks alike. */
#include "schunk_common.h"

#define CHUNK_ITEMS 100
#define NITEMS 250 /* two full chunks and half a chunk */

static void run(int contiguous, const char *urlpath) {
  blosc2_cparams cp = int32_cparams(BLOSC_LZ4, 5);
  blosc2_storage st = {.contiguous = contiguous, .urlpath = (char *)urlpath, .cparams = &cp};
  blosc2_schunk *sc = blosc2_schunk_new(&st);
  CHECK(sc != NULL);
  if (sc == NULL) return;
  int32_t buf[CHUNK_ITEMS];
  for (int k = 0; k < 3; k++) {
    for (int i = 0; i < CHUNK_ITEMS; i++) buf[i] = k * CHUNK_ITEMS + i;
    int32_t n = k == 2 ? NITEMS - 2 * CHUNK_ITEMS : CHUNK_ITEMS;
    CHECK_EQ(blosc2_schunk_append_buffer(sc, buf, n * 4), k + 1);
  }
  CHECK_EQ(sc->nbytes, NITEMS * 4);
  CHECK_EQ(sc->chunksize, CHUNK_ITEMS * 4);

  int32_t out[400];
  for (int i = 0; i < 400; i++) out[i] = -7;
  CHECK_EQ(blosc2_schunk_get_slice_buffer(sc, 10, 5, out), 0);
  CHECK_EQ(out[0], -7);
  CHECK_EQ(blosc2_schunk_get_slice_buffer(sc, NITEMS, NITEMS, out), 0);
  CHECK_EQ(blosc2_schunk_get_slice_buffer(sc, 240, NITEMS, out), 0);
  CHECK_EQ(out[9], NITEMS - 1);
  CHECK_EQ(blosc2_schunk_get_slice_buffer(sc, 240, NITEMS + 1, out), BLOSC2_ERROR_FAILURE);
  CHECK_EQ(blosc2_schunk_get_slice_buffer(sc, NITEMS, NITEMS + 1, out), BLOSC2_ERROR_FAILURE);
  CHECK_EQ(blosc2_schunk_get_slice_buffer(sc, 300, 310, out), BLOSC2_ERROR_FAILURE);
  CHECK_EQ(blosc2_schunk_get_slice_buffer(sc, -1, 5, out), BLOSC2_ERROR_FAILURE);

  int32_t src[400];
  for (int i = 0; i < 400; i++) src[i] = 5000 + i;
  CHECK_EQ(blosc2_schunk_set_slice_buffer(sc, 10, 5, src), 0);
  CHECK_EQ(blosc2_schunk_set_slice_buffer(sc, NITEMS, NITEMS, src), 0);
  /* One past the end of the partial last chunk: the last item is written. */
  CHECK_EQ(blosc2_schunk_set_slice_buffer(sc, 240, NITEMS + 1, src), 0);
  CHECK_EQ(sc->nbytes, NITEMS * 4);
  CHECK_EQ(sc->nchunks, 3);
  CHECK_EQ(blosc2_schunk_get_slice_buffer(sc, 239, NITEMS, out), 0);
  CHECK_EQ(out[0], 239);
  CHECK_EQ(out[1], 5000);
  CHECK_EQ(out[10], 5009);
  /* Up to the last chunk's chunksize: still that chunk. */
  CHECK_EQ(blosc2_schunk_set_slice_buffer(sc, NITEMS, NITEMS + 1, src), 0);
  CHECK_EQ(blosc2_schunk_set_slice_buffer(sc, 245, 300, src), 0);
  CHECK_EQ(sc->nbytes, NITEMS * 4);
  CHECK_EQ(blosc2_schunk_get_slice_buffer(sc, 245, NITEMS, out), 0);
  CHECK_EQ(out[0], 5000);
  CHECK_EQ(out[4], 5004);
  /* A chunk past the last one. */
  CHECK_EQ(blosc2_schunk_set_slice_buffer(sc, 240, 301, src), BLOSC2_ERROR_FAILURE);
  CHECK_EQ(blosc2_schunk_set_slice_buffer(sc, 300, 310, src), BLOSC2_ERROR_FAILURE);
  CHECK_EQ(sc->nbytes, NITEMS * 4);
  CHECK_EQ(sc->nchunks, 3);
  blosc2_schunk_free(sc);
}

int main(void) {
  blosc2_init();
  scratch_init("slice-edges");
  run(false, NULL);
  run(true, NULL);
  run(true, scratch_path("edges.b2frame"));
  run(false, scratch_path("edges.b2sframe"));
  scratch_done();
  blosc2_destroy();
  TEST_DONE();
}
