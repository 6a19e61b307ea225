/* Chunks with variable-length blocks. */
#include "blosc2.h"
#include "capi_check.h"

static void run(uint8_t codec, int use_dict, int16_t nthreads, int32_t nblocks) {
  void *srcs[64] = {0}; /* the invalid-sources checks below read srcs[1] */
  int32_t sizes[64];
  int64_t total = 0;
  for (int32_t i = 0; i < nblocks; i++) {
    sizes[i] = 100 + 37 * i * (i % 5) + (i % 3) * 1000;
    srcs[i] = xmalloc((size_t)sizes[i]);
    fill_data(srcs[i], (size_t)sizes[i], (uint32_t)i);
    total += sizes[i];
  }
  blosc2_cparams cp = BLOSC2_CPARAMS_DEFAULTS;
  cp.compcode = codec;
  cp.typesize = 1;
  cp.use_dict = use_dict;
  cp.nthreads = nthreads;
  blosc2_dparams dp = BLOSC2_DPARAMS_DEFAULTS;
  dp.nthreads = nthreads;
  blosc2_context *cctx = blosc2_create_cctx(cp);
  blosc2_context *dctx = blosc2_create_dctx(dp);
  int32_t destsize = (int32_t)total + BLOSC2_MAX_OVERHEAD + 8 * nblocks + 64 + (use_dict ? BLOSC2_MAXDICTSIZE + 4 : 0);
  uint8_t *chunk = xmalloc((size_t)destsize);
  int csize = blosc2_vlcompress_ctx(cctx, (const void *const *)srcs, sizes, nblocks, chunk, destsize);
  if (csize <= 0) fprintf(stderr, "vlcompress: %d (codec %d dict %d nt %d nblocks %d)\n", csize, codec, use_dict, nthreads, nblocks);
  CHECK(csize > 0);
  if (csize <= 0) return;

  int32_t nb = -1;
  CHECK_EQ(blosc2_vlchunk_get_nblocks(chunk, csize, &nb), 0);
  CHECK_EQ(nb, nblocks);
  int32_t nbytes, cbytes, blocksize;
  CHECK_EQ(blosc2_cbuffer_sizes(chunk, &nbytes, &cbytes, &blocksize), 0);
  CHECK_EQ(nbytes, total);
  CHECK_EQ(cbytes, csize);

  void *dests[64];
  int32_t dsizes[64];
  CHECK_EQ(blosc2_vldecompress_ctx(dctx, chunk, csize, dests, dsizes, 64), nblocks);
  for (int32_t i = 0; i < nblocks; i++) {
    CHECK_EQ(dsizes[i], sizes[i]);
    CHECK(memcmp(dests[i], srcs[i], (size_t)sizes[i]) == 0);
    free(dests[i]);
  }
  /* Not enough room for the block pointers. */
  if (nblocks > 1) {
    CHECK_EQ(blosc2_vldecompress_ctx(dctx, chunk, csize, dests, dsizes, nblocks - 1), BLOSC2_ERROR_INVALID_PARAM);
  }
  for (int32_t i = 0; i < nblocks; i++) {
    uint8_t *block = NULL;
    int32_t bsize = 0;
    CHECK_EQ(blosc2_vldecompress_block_ctx(dctx, chunk, csize, i, &block, &bsize), sizes[i]);
    CHECK_EQ(bsize, sizes[i]);
    CHECK(block != NULL && memcmp(block, srcs[i], (size_t)sizes[i]) == 0);
    free(block);
  }
  uint8_t *block = (uint8_t *)1;
  int32_t bsize = 77;
  CHECK_EQ(blosc2_vldecompress_block_ctx(dctx, chunk, csize, nblocks, &block, &bsize), BLOSC2_ERROR_INVALID_PARAM);
  CHECK(block == NULL && bsize == 0);
  CHECK_EQ(blosc2_vldecompress_block_ctx(dctx, chunk, csize, -1, &block, &bsize), BLOSC2_ERROR_INVALID_PARAM);

  /* A regular chunk is not a VL-block chunk. */
  uint8_t plain[64 + BLOSC2_MAX_OVERHEAD];
  int psize = blosc2_compress_ctx(cctx, srcs[0], 64, plain, sizeof(plain));
  CHECK(psize > 0);
  CHECK_EQ(blosc2_vlchunk_get_nblocks(plain, psize, &nb), BLOSC2_ERROR_INVALID_PARAM);
  CHECK_EQ(blosc2_vldecompress_ctx(dctx, plain, psize, dests, dsizes, 64), BLOSC2_ERROR_INVALID_PARAM);
  /* getitem refuses VL-block chunks. */
  uint8_t tmp[16];
  CHECK_EQ(blosc2_getitem_ctx(dctx, chunk, csize, 0, 1, tmp, 16), BLOSC2_ERROR_INVALID_PARAM);
  /* Invalid sources. */
  CHECK_EQ(blosc2_vlcompress_ctx(cctx, (const void *const *)srcs, sizes, 0, chunk, destsize), BLOSC2_ERROR_INVALID_PARAM);
  int32_t bad_sizes[2] = {10, 0};
  CHECK_EQ(blosc2_vlcompress_ctx(cctx, (const void *const *)srcs, bad_sizes, 2, chunk, destsize), BLOSC2_ERROR_INVALID_PARAM);
  /* Contexts of the wrong kind. */
  CHECK_EQ(blosc2_vlcompress_ctx(dctx, (const void *const *)srcs, sizes, nblocks, chunk, destsize), BLOSC2_ERROR_INVALID_PARAM);
  CHECK_EQ(blosc2_vldecompress_ctx(cctx, chunk, csize, dests, dsizes, 64), BLOSC2_ERROR_INVALID_PARAM);

  for (int32_t i = 0; i < nblocks; i++) free(srcs[i]);
  free(chunk);
  blosc2_free_ctx(cctx);
  blosc2_free_ctx(dctx);
}

int main(void) {
  const uint8_t codecs[] = {BLOSC_BLOSCLZ, BLOSC_LZ4, BLOSC_LZ4HC, BLOSC_ZLIB, BLOSC_ZSTD};
  for (size_t c = 0; c < 5; c++)
    for (int16_t nt = 1; nt <= 2; nt++) {
      run(codecs[c], 0, nt, 1);
      run(codecs[c], 0, nt, 13);
    }
  run(BLOSC_ZSTD, 1, 1, 40);
  run(BLOSC_LZ4, 1, 2, 40);
  TEST_DONE();
}
