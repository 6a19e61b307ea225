/* blosc2_set_threads_callback: every parallel run goes through the
 * caller's backend (one job per thread, as 3.3.5 hands its thread
 * contexts to it), and NULL goes back to the library's threads. */
#include "capi_check.h"

#include "blosc2.h"

static int callback_calls = 0;
static int jobs_run = 0;
static void *seen_data = NULL;

static void serial_backend(void *callback_data, void (*dojob)(void *), int numjobs, size_t jobdata_elsize,
                           void *jobdata) {
  callback_calls++;
  seen_data = callback_data;
  for (int i = 0; i < numjobs; i++) {
    jobs_run++;
    dojob((char *)jobdata + (size_t)i * jobdata_elsize);
  }
}

#define N (4 * 1000 * 1000)

int main(void) {
  blosc2_init();
  int32_t *src = xmalloc(N * sizeof(int32_t));
  int32_t *back = xmalloc(N * sizeof(int32_t));
  for (int i = 0; i < N; i++) {
    src[i] = i / 3;
  }
  int32_t nbytes = N * (int32_t)sizeof(int32_t);
  int32_t cap = nbytes + BLOSC2_MAX_OVERHEAD;
  uint8_t *chunk = xmalloc(cap);
  int marker;
  blosc2_set_threads_callback(serial_backend, &marker);

  blosc2_cparams cp = BLOSC2_CPARAMS_DEFAULTS;
  cp.typesize = 4;
  cp.nthreads = 4;
  cp.blocksize = 64 * 1024;
  blosc2_context *cctx = blosc2_create_cctx(cp);
  int32_t csize = blosc2_compress_ctx(cctx, src, nbytes, chunk, cap);
  CHECK(csize > 0);
  CHECK(callback_calls > 0);
  CHECK(seen_data == &marker);
  CHECK(jobs_run >= 2 * callback_calls);

  int before = callback_calls;
  blosc2_dparams dp = BLOSC2_DPARAMS_DEFAULTS;
  dp.nthreads = 4;
  blosc2_context *dctx = blosc2_create_dctx(dp);
  CHECK_EQ(blosc2_decompress_ctx(dctx, chunk, csize, back, nbytes), nbytes);
  CHECK(memcmp(src, back, nbytes) == 0);
  CHECK(callback_calls > before);

  /* The super-chunk paths too, sparse reads included. */
  before = callback_calls;
  blosc2_storage st = {.contiguous = false, .cparams = &cp, .dparams = &dp};
  blosc2_schunk *sc = blosc2_schunk_new(&st);
  CHECK(blosc2_schunk_append_buffer(sc, src, nbytes) == 1);
  CHECK(blosc2_schunk_append_buffer(sc, src, nbytes) == 2);
  CHECK_EQ(blosc2_schunk_decompress_chunk(sc, 1, back, nbytes), nbytes);
  CHECK(memcmp(src, back, nbytes) == 0);
  CHECK(callback_calls > before);
  int64_t coords[5] = {0, 17, 123456, N + 5, 2 * N - 1};
  int32_t sparse[5];
  CHECK_EQ(blosc2_schunk_get_sparse_buffer(sc, 5, coords, sparse), 0);
  CHECK_EQ(sparse[1], 17 / 3);
  CHECK_EQ(sparse[2], 123456 / 3);
  CHECK_EQ(sparse[3], 5 / 3);
  CHECK_EQ(sparse[4], (N - 1) / 3);
  CHECK_EQ(blosc2_schunk_free(sc), 0);

  /* Back to the library's threads (3.3.5 binds a context to the backend
   * it started with, so new contexts are made). */
  blosc2_set_threads_callback(NULL, NULL);
  blosc2_free_ctx(cctx);
  blosc2_free_ctx(dctx);
  cctx = blosc2_create_cctx(cp);
  dctx = blosc2_create_dctx(dp);
  before = callback_calls;
  CHECK(blosc2_compress_ctx(cctx, src, nbytes, chunk, cap) > 0);
  CHECK_EQ(blosc2_decompress_ctx(dctx, chunk, cap, back, nbytes), nbytes);
  CHECK(memcmp(src, back, nbytes) == 0);
  CHECK_EQ(callback_calls, before);

  blosc2_free_ctx(cctx);
  blosc2_free_ctx(dctx);
  free(src);
  free(back);
  free(chunk);
  blosc2_destroy();
  TEST_DONE();
}
