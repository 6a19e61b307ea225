/* Super-chunks from several threads: each thread with its own super-chunk
 * (creation, appends, reads, frames, free all at once), and several
 * threads reading and appending to one shared super-chunk (calls on one
 * handle are serialized by the library; 3.3.5 is not safe there). */
#include <pthread.h>

#include "schunk_common.h"

enum { NTHREADS = 4, NITEMS = 2000, NCHUNKS = 8 };

static void *own_schunk(void *arg) {
  int id = (int)(intptr_t)arg;
  blosc2_cparams cp = int32_cparams(id % 2 ? BLOSC_LZ4 : BLOSC_ZSTD, 5);
  blosc2_storage st = {.contiguous = id % 2 == 0, .cparams = &cp};
  for (int round = 0; round < 5; round++) {
    blosc2_schunk *sc = make_schunk(&st, NCHUNKS, NITEMS);
    CHECK(sc != NULL);
    if (sc == NULL) continue;
    for (int k = 0; k < NCHUNKS; k++) CHECK(chunk_is(sc, k, k, NITEMS));
    uint8_t *cframe;
    bool nf;
    int64_t len = blosc2_schunk_to_buffer(sc, &cframe, &nf);
    blosc2_schunk *copy = blosc2_schunk_from_buffer(cframe, len, true);
    CHECK(copy != NULL);
    if (copy != NULL) {
      CHECK(chunk_is(copy, NCHUNKS - 1, NCHUNKS - 1, NITEMS));
      blosc2_schunk_free(copy);
    }
    if (nf) free(cframe);
    CHECK_EQ(blosc2_schunk_free(sc), 0);
  }
  return NULL;
}

static blosc2_schunk *shared;

static void *use_shared(void *arg) {
  int id = (int)(intptr_t)arg;
  int32_t buf[NITEMS];
  for (int i = 0; i < 50; i++) {
    int k = (i + id) % NCHUNKS;
    CHECK(chunk_is(shared, k, k, NITEMS));
    int32_t one;
    CHECK_EQ(blosc2_schunk_get_slice_buffer(shared, (int64_t)k * NITEMS + 7, (int64_t)k * NITEMS + 8, &one), 0);
    CHECK_EQ(one, k * 1000 + 7 / 3);
    if (i % 10 == 0) {
      fill_chunk(buf, NITEMS, 100 + id);
      CHECK(blosc2_schunk_append_buffer(shared, buf, sizeof(buf)) > NCHUNKS);
    }
  }
  return NULL;
}

int main(void) {
  blosc2_init();
  pthread_t th[NTHREADS];
  for (intptr_t i = 0; i < NTHREADS; i++) pthread_create(&th[i], NULL, own_schunk, (void *)i);
  for (int i = 0; i < NTHREADS; i++) pthread_join(th[i], NULL);

#ifndef CAPI_REFERENCE
  for (int contiguous = 0; contiguous < 2; contiguous++) {
    blosc2_cparams cp = int32_cparams(BLOSC_LZ4, 5);
    blosc2_storage st = {.contiguous = contiguous, .cparams = &cp};
    shared = make_schunk(&st, NCHUNKS, NITEMS);
    for (intptr_t i = 0; i < NTHREADS; i++) pthread_create(&th[i], NULL, use_shared, (void *)i);
    for (int i = 0; i < NTHREADS; i++) pthread_join(th[i], NULL);
    CHECK_EQ(shared->nchunks, NCHUNKS + NTHREADS * 5);
    blosc2_schunk_free(shared);
  }
#endif
  blosc2_destroy();
  TEST_DONE();
}
