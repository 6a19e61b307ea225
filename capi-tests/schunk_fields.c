/* Public fields of blosc2_schunk that C code reads and writes directly, as
 * C-Blosc2 3.3.5 fills and keeps them:
 * - `data`/`data_len` of an in-memory super-chunk without a frame: after
 *   the first chunk `data` is an array of 4096 bytes (grown a page at a
 *   time) and `data[n]` is chunk `n` (python-blosc2's prefilters read
 *   `ndarr->sc->data[nchunk]`); frames leave it NULL.
 * - `chunksize` written by the caller after blosc2_schunk_new is kept
 *   (python-blosc2 does that; 3.3.5 judges the next chunks by it).
 * - `current_nchunk` written by the caller is kept until the library
 *   moves it. */
#include "schunk_common.h"

#define CHUNK_ITEMS 1000
#define CHUNK_BYTES (CHUNK_ITEMS * 4)

/* Chunk `n` as C reads it through schunk->data decompresses to what
 * blosc2_schunk_decompress_chunk gives. */
static void check_data_entry(blosc2_schunk *sc, int64_t n) {
  int32_t want_len = CHUNK_BYTES;
  uint8_t *want = xmalloc(want_len);
  uint8_t *got = xmalloc(want_len);
  CHECK_EQ(blosc2_schunk_decompress_chunk(sc, n, want, want_len), want_len);
  CHECK(sc->data[n] != NULL);
  int32_t nbytes, cbytes;
  CHECK_EQ(blosc2_cbuffer_sizes(sc->data[n], &nbytes, &cbytes, NULL), 0);
  CHECK_EQ(nbytes, want_len);
  CHECK_EQ(blosc2_decompress(sc->data[n], cbytes, got, want_len), want_len);
  CHECK(memcmp(want, got, want_len) == 0);
  free(want);
  free(got);
}

static void append_n(blosc2_schunk *sc, int n, uint32_t seed) {
  uint8_t *buf = xmalloc(CHUNK_BYTES);
  for (int i = 0; i < n; i++) {
    fill_data(buf, CHUNK_BYTES, seed + (uint32_t)i);
    CHECK(blosc2_schunk_append_buffer(sc, buf, CHUNK_BYTES) >= 0);
  }
  free(buf);
}

static blosc2_schunk *new_schunk(bool contiguous) {
  blosc2_cparams cparams = BLOSC2_CPARAMS_DEFAULTS;
  cparams.typesize = 4;
  blosc2_storage storage = {.contiguous = contiguous, .cparams = &cparams};
  return blosc2_schunk_new(&storage);
}

static void data_array(void) {
  blosc2_schunk *sc = new_schunk(false);
  CHECK(sc != NULL);
  CHECK(sc->data == NULL);
  CHECK_EQ(sc->data_len, 0);
  append_n(sc, 3, 1);
  CHECK(sc->data != NULL);
  CHECK_EQ(sc->data_len, 4096);
  for (int64_t n = 0; n < 3; n++) {
    check_data_entry(sc, n);
  }

  /* Every edit keeps the entries in step with the chunks. */
  uint8_t *buf = xmalloc(CHUNK_BYTES);
  fill_data(buf, CHUNK_BYTES, 99);
  int32_t cap = CHUNK_BYTES + BLOSC2_MAX_OVERHEAD;
  uint8_t *chunk = xmalloc(cap);
  blosc2_context *cctx = blosc2_create_cctx(*sc->storage->cparams);
  int32_t csize = blosc2_compress_ctx(cctx, buf, CHUNK_BYTES, chunk, cap);
  CHECK(csize > 0);
  CHECK_EQ(blosc2_schunk_insert_chunk(sc, 0, chunk, true), 4);
  CHECK(memcmp(sc->data[0], chunk, csize) == 0);
  CHECK_EQ(blosc2_schunk_update_chunk(sc, 2, chunk, true), 4);
  CHECK(memcmp(sc->data[2], chunk, csize) == 0);
  CHECK_EQ(blosc2_schunk_delete_chunk(sc, 1), 3);
  CHECK(sc->data[3] == NULL);
  for (int64_t n = 0; n < sc->nchunks; n++) {
    check_data_entry(sc, n);
  }
  int64_t order[3] = {2, 0, 1};
  uint8_t *first = sc->data[0], *third = sc->data[2];
  CHECK_EQ(blosc2_schunk_reorder_offsets(sc, order), 0);
  CHECK(sc->data[1] == first);
  CHECK(sc->data[0] == third);

  /* Past 511 chunks the array grows by one more page. */
  append_n(sc, 520 - (int)sc->nchunks, 7);
  CHECK_EQ(sc->nchunks, 520);
  CHECK_EQ(sc->data_len, 8192);
  check_data_entry(sc, 519);
  /* Removing the last chunk clears its entry; the next append fills it. */
  CHECK_EQ(blosc2_schunk_delete_chunk(sc, 519), 519);
  CHECK(sc->data[519] == NULL);
  append_n(sc, 1, 11);
  check_data_entry(sc, 519);
  /* After all these edits every entry still points at its chunk. */
  for (int64_t n = 0; n < 520; n += 37) {
    check_data_entry(sc, n);
  }

  /* A copy into memory has an array of its own; a copy into a frame and
   * a frame-backed super-chunk have none. */
  blosc2_storage mem = {.contiguous = false};
  blosc2_schunk *copy = blosc2_schunk_copy(sc, &mem);
  CHECK(copy != NULL);
  CHECK(copy->data != NULL && copy->data != sc->data);
  CHECK_EQ(copy->data_len, 8192);
  check_data_entry(copy, 300);
  blosc2_storage framed = {.contiguous = true};
  blosc2_schunk *fcopy = blosc2_schunk_copy(sc, &framed);
  CHECK(fcopy != NULL);
  CHECK(fcopy->data == NULL);
  CHECK_EQ(fcopy->data_len, 0);

  blosc2_free_ctx(cctx);
  free(buf);
  free(chunk);
  CHECK_EQ(blosc2_schunk_free(fcopy), 0);
  CHECK_EQ(blosc2_schunk_free(copy), 0);
  CHECK_EQ(blosc2_schunk_free(sc), 0);

  blosc2_schunk *frame = new_schunk(true);
  append_n(frame, 3, 1);
  CHECK(frame->data == NULL);
  CHECK_EQ(frame->data_len, 0);
  CHECK_EQ(blosc2_schunk_free(frame), 0);
}

static void caller_chunksize(void) {
  /* python-blosc2 writes chunksize right after blosc2_schunk_new. */
  for (int contiguous = 0; contiguous < 2; contiguous++) {
    blosc2_schunk *sc = new_schunk(contiguous);
    CHECK_EQ(sc->chunksize, -1);
    sc->chunksize = 16 * 1024 * 1024;
    uint8_t *buf = xmalloc(512);
    fill_data(buf, 512, 3);
    CHECK_EQ(blosc2_schunk_append_buffer(sc, buf, 512), 1);
    CHECK_EQ(sc->chunksize, 16 * 1024 * 1024);
    CHECK_EQ(sc->nchunks, 1);
    CHECK_EQ(sc->nbytes, 512);
    free(buf);

    /* The written value goes into the frame as well. */
    if (contiguous) {
      uint8_t *cframe;
      bool needs_free;
      int64_t len = blosc2_schunk_to_buffer(sc, &cframe, &needs_free);
      CHECK(len > 0);
      blosc2_schunk *back = blosc2_schunk_from_buffer(cframe, len, true);
      CHECK(back != NULL);
      CHECK_EQ(back->chunksize, 16 * 1024 * 1024);
      CHECK_EQ(blosc2_schunk_free(back), 0);
      if (needs_free) {
        free(cframe);
      }
    }
    CHECK_EQ(blosc2_schunk_free(sc), 0);
  }
}

static void caller_current_nchunk(void) {
  blosc2_schunk *sc = new_schunk(false);
  append_n(sc, 2, 5);
  CHECK_EQ(sc->current_nchunk, 1);
  sc->current_nchunk = 0;
  /* A call that does not move it leaves the caller's value. */
  blosc2_cparams *cp = NULL;
  CHECK_EQ(blosc2_schunk_get_cparams(sc, &cp), 0);
  free(cp);
  CHECK_EQ(sc->current_nchunk, 0);
  CHECK_EQ(blosc2_schunk_free(sc), 0);
}

int main(void) {
  blosc2_init();
  data_array();
  caller_chunksize();
  caller_current_nchunk();
  blosc2_destroy();
  TEST_DONE();
}
