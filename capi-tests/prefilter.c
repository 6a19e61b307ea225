/* Prefilter and postfilter callbacks and the parameters they receive. */
#include <stdatomic.h>
#include "blosc2.h"
#include "capi_check.h"

#define N 100000 /* int32 items */
#define BLOCKSIZE 16384

typedef struct {
  atomic_int calls;
  atomic_int bad;
  blosc2_context *expected_ctx;
  int fail;
  int reenter;
} state_t;

static int prefilter(blosc2_prefilter_params *p) {
  state_t *st = (state_t *)p->user_data;
  atomic_fetch_add(&st->calls, 1);
  if (st->fail) return 1;
  if (p->ctx == NULL || (st->expected_ctx != NULL && p->ctx != st->expected_ctx)) atomic_fetch_add(&st->bad, 1);
  if (p->output_typesize != 4 || p->nchunk != -1 || p->ttmp == NULL || p->ttmp_nbytes == 0) atomic_fetch_add(&st->bad, 1);
  if (p->output_offset != p->nblock * BLOCKSIZE) atomic_fetch_add(&st->bad, 1);
  if (p->output_size <= 0 || p->output_size > BLOCKSIZE) atomic_fetch_add(&st->bad, 1);
  if (st->reenter) {
    blosc2_cparams cp;
    if (blosc2_ctx_get_cparams(p->ctx, &cp) != 0 || cp.typesize != 4) atomic_fetch_add(&st->bad, 1);
    uint8_t tmp[64];
    /* The context is busy: re-entering it fails instead of deadlocking. */
    if (blosc2_compress_ctx(p->ctx, tmp, 0, tmp, sizeof(tmp)) >= 0) atomic_fetch_add(&st->bad, 1);
  }
  const int32_t *in = (const int32_t *)p->input;
  int32_t *out = (int32_t *)p->output;
  for (int32_t i = 0; i < p->output_size / 4; i++) out[i] = in[i] * 2;
  return 0;
}

static int postfilter(blosc2_postfilter_params *p) {
  state_t *st = (state_t *)p->user_data;
  atomic_fetch_add(&st->calls, 1);
  if (st->fail) return 1;
  if (p->ctx == NULL || (st->expected_ctx != NULL && p->ctx != st->expected_ctx)) atomic_fetch_add(&st->bad, 1);
  if (p->typesize != 4 || p->nchunk != -1 || p->ttmp == NULL || p->ttmp_nbytes == 0) atomic_fetch_add(&st->bad, 1);
  if (p->offset != p->nblock * BLOCKSIZE || p->size <= 0 || p->size > BLOCKSIZE) atomic_fetch_add(&st->bad, 1);
  const int32_t *in = (const int32_t *)p->input;
  int32_t *out = (int32_t *)p->output;
  for (int32_t i = 0; i < p->size / 4; i++) out[i] = in[i] + 1;
  return 0;
}

static void run(int clevel, int16_t nthreads, uint8_t codec) {
  int32_t *src = xmalloc(N * 4);
  int32_t *back = xmalloc(N * 4);
  for (int i = 0; i < N; i++) src[i] = i * 3 - 1000;
  size_t destsize = N * 4 + BLOSC2_MAX_OVERHEAD;
  uint8_t *comp = xmalloc(destsize);

  state_t pre = {0}, post = {0};
  blosc2_prefilter_params preparams = {0};
  preparams.user_data = &pre;
  blosc2_cparams cp = BLOSC2_CPARAMS_DEFAULTS;
  cp.typesize = 4;
  cp.clevel = (uint8_t)clevel;
  cp.compcode = codec;
  cp.nthreads = nthreads;
  cp.blocksize = BLOCKSIZE;
  cp.prefilter = prefilter;
  cp.preparams = &preparams;
  blosc2_context *cctx = blosc2_create_cctx(cp);
  pre.expected_ctx = cctx;
  pre.reenter = nthreads == 1;
  /* The context keeps its own copy of the params. */
  preparams.user_data = NULL;
  blosc2_cparams got;
  CHECK_EQ(blosc2_ctx_get_cparams(cctx, &got), 0);
  CHECK(got.prefilter == prefilter && got.preparams != NULL && got.preparams != &preparams);
  CHECK(got.preparams->user_data == &pre);

  int csize = blosc2_compress_ctx(cctx, src, N * 4, comp, (int32_t)destsize);
  CHECK(csize > 0);
  CHECK_EQ(atomic_load(&pre.calls), (N * 4 + BLOCKSIZE - 1) / BLOCKSIZE);
  CHECK_EQ(atomic_load(&pre.bad), 0);

  /* Plain decompression gives the prefiltered data. */
  blosc2_context *plain = blosc2_create_dctx(BLOSC2_DPARAMS_DEFAULTS);
  CHECK_EQ(blosc2_decompress_ctx(plain, comp, csize, back, N * 4), N * 4);
  for (int i = 0; i < N; i++) {
    if (back[i] != src[i] * 2) { CHECK(0); break; }
  }
  blosc2_free_ctx(plain);

  /* With a postfilter. */
  blosc2_postfilter_params postparams = {0};
  postparams.user_data = &post;
  blosc2_dparams dp = BLOSC2_DPARAMS_DEFAULTS;
  dp.nthreads = nthreads;
  dp.postfilter = postfilter;
  dp.postparams = &postparams;
  blosc2_context *dctx = blosc2_create_dctx(dp);
  post.expected_ctx = dctx;
  blosc2_dparams dgot;
  CHECK_EQ(blosc2_ctx_get_dparams(dctx, &dgot), 0);
  CHECK(dgot.postfilter == postfilter && dgot.postparams != NULL && dgot.postparams->user_data == &post);
  CHECK_EQ(blosc2_decompress_ctx(dctx, comp, csize, back, N * 4), N * 4);
  for (int i = 0; i < N; i++) {
    if (back[i] != src[i] * 2 + 1) { CHECK(0); break; }
  }
  CHECK_EQ(atomic_load(&post.bad), 0);
  CHECK(atomic_load(&post.calls) >= (N * 4 + BLOCKSIZE - 1) / BLOCKSIZE);
  /* getitem runs the postfilter on the blocks it decodes. */
  int32_t items[10];
  CHECK_EQ(blosc2_getitem_ctx(dctx, comp, csize, 5000, 10, items, sizeof(items)), 40);
  for (int i = 0; i < 10; i++) CHECK_EQ(items[i], src[5000 + i] * 2 + 1);

  /* Failing callbacks. */
  post.fail = 1;
  CHECK_EQ(blosc2_decompress_ctx(dctx, comp, csize, back, N * 4), BLOSC2_ERROR_POSTFILTER);
  pre.fail = 1;
  CHECK(blosc2_compress_ctx(cctx, src, N * 4, comp, (int32_t)destsize) < 0);

  blosc2_free_ctx(cctx);
  blosc2_free_ctx(dctx);
  free(src);
  free(back);
  free(comp);
}

int main(void) {
  run(5, 1, BLOSC_BLOSCLZ);
  run(5, 2, BLOSC_ZSTD);
  run(0, 1, BLOSC_LZ4);
  run(9, 2, BLOSC_ZLIB);
  TEST_DONE();
}
