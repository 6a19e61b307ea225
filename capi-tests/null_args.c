/* NULL and garbage arguments: every function returns an error (or NULL)
 * and nothing crashes. Also random and mutated chunks. */
#include "blosc2.h"
#include "capi_check.h"

static void garbage_chunk(blosc2_context *dctx, const uint8_t *chunk, int32_t len) {
  uint8_t out[4096];
  int32_t nb, cb, bs;
  (void)blosc2_decompress_ctx(dctx, chunk, len, out, sizeof(out));
  (void)blosc2_decompress(chunk, len, out, sizeof(out));
  (void)blosc2_getitem_ctx(dctx, chunk, len, 0, 4, out, sizeof(out));
  (void)blosc2_getitem_ctx(dctx, chunk, len, 3, 100, out, sizeof(out));
  (void)blosc2_getitem_bytes_ctx(dctx, chunk, len, 0, 16, out, sizeof(out));
  (void)blosc2_getitem(chunk, len, 1, 2, out, sizeof(out));
  (void)blosc2_cbuffer_sizes(chunk, &nb, &cb, &bs);
  (void)blosc2_vlchunk_get_nblocks(chunk, len, &nb);
  void *dests[8];
  int32_t dsizes[8];
  int r = blosc2_vldecompress_ctx(dctx, chunk, len, dests, dsizes, 8);
  for (int i = 0; i < r && i < 8; i++) free(dests[i]);
  uint8_t *block = NULL;
  int32_t bsize;
  if (blosc2_vldecompress_block_ctx(dctx, chunk, len, 0, &block, &bsize) > 0) free(block);
}

int main(void) {
  uint8_t buf[256], out[256];
  memset(buf, 0, sizeof(buf));
  blosc2_context *cctx = blosc2_create_cctx(BLOSC2_CPARAMS_DEFAULTS);
  blosc2_context *dctx = blosc2_create_dctx(BLOSC2_DPARAMS_DEFAULTS);
  CHECK(cctx != NULL && dctx != NULL);

  /* Contexts. */
  CHECK(blosc2_compress_ctx(NULL, buf, 100, out, 200) < 0);
  CHECK(blosc2_decompress_ctx(NULL, buf, 100, out, 200) < 0);
  CHECK(blosc2_getitem_ctx(NULL, buf, 100, 0, 1, out, 200) < 0);
  CHECK(blosc2_getitem_bytes_ctx(NULL, buf, 100, 0, 1, out, 200) < 0);
  CHECK(blosc2_vlcompress_ctx(NULL, NULL, NULL, 1, out, 200) < 0);
  CHECK(blosc2_vldecompress_ctx(NULL, buf, 100, NULL, NULL, 1) < 0);
  CHECK(blosc2_vldecompress_block_ctx(NULL, buf, 100, 0, NULL, NULL) < 0);
  CHECK(blosc2_ctx_get_cparams(NULL, NULL) < 0);
  CHECK(blosc2_ctx_get_dparams(NULL, NULL) < 0);
  CHECK(blosc2_ctx_get_cparams(cctx, NULL) < 0);
  CHECK(blosc2_ctx_get_dparams(dctx, NULL) < 0);
  CHECK(blosc2_set_maskout(NULL, NULL, 0) < 0);
  CHECK(blosc2_set_maskout(dctx, NULL, 3) < 0);
  CHECK(blosc2_set_maskout(dctx, NULL, -1) < 0);
  blosc2_free_ctx(NULL);

  /* Wrong kind of context. */
  CHECK_EQ(blosc2_compress_ctx(dctx, buf, 100, out, 200), BLOSC2_ERROR_INVALID_PARAM);
  CHECK_EQ(blosc2_decompress_ctx(cctx, buf, 100, out, 200), BLOSC2_ERROR_INVALID_PARAM);

  /* Buffers: NULL with sizes, negative sizes, too small. */
  CHECK(blosc2_compress_ctx(cctx, NULL, 100, out, 200) < 0);
  CHECK(blosc2_compress_ctx(cctx, buf, 100, NULL, 200) < 0);
  CHECK_EQ(blosc2_compress_ctx(cctx, buf, 100, out, 10), BLOSC2_ERROR_MAX_BUFSIZE_EXCEEDED);
  CHECK_EQ(blosc2_compress_ctx(cctx, buf, 100, out, -1), BLOSC2_ERROR_MAX_BUFSIZE_EXCEEDED);
  CHECK(blosc2_compress_ctx(cctx, buf, -5, out, 200) < 0);
  CHECK_EQ(blosc2_compress_ctx(cctx, NULL, 0, out, 200), BLOSC_EXTENDED_HEADER_LENGTH);
  CHECK_EQ(blosc2_compress_ctx(cctx, buf, 100, buf, 200), BLOSC2_ERROR_INVALID_PARAM); /* overlap */
  CHECK_EQ(blosc2_decompress_ctx(dctx, NULL, 0, out, 200), BLOSC2_ERROR_READ_BUFFER);
  CHECK_EQ(blosc2_decompress_ctx(dctx, buf, 15, out, 200), BLOSC2_ERROR_READ_BUFFER);
  CHECK(blosc2_decompress_ctx(dctx, NULL, 100, out, 200) < 0);
  CHECK(blosc2_compress(5, 1, 4, NULL, 100, out, 200) < 0);
  CHECK(blosc2_compress(5, 1, 4, buf, 100, NULL, 200) < 0);
  CHECK(blosc2_compress(5, 1, 0, buf, 100, out, 200) < 0);
  CHECK(blosc2_compress(10, 1, 4, buf, 100, out, 200) < 0);
  CHECK(blosc2_compress(-1, 1, 4, buf, 100, out, 200) < 0);
  CHECK(blosc2_decompress(NULL, 100, out, 200) < 0);
  CHECK(blosc2_decompress(buf, 100, NULL, 200) < 0);
  CHECK(blosc2_getitem(NULL, 100, 0, 1, out, 200) < 0);
  CHECK(blosc1_compress(5, 1, 4, 100, NULL, out, 200) < 0);
  CHECK(blosc1_decompress(NULL, out, 200) < 0);
  CHECK(blosc1_getitem(NULL, 0, 1, out) < 0);

  /* A valid chunk with a NULL destination. */
  uint8_t chunk[512];
  fill_data(buf, sizeof(buf), 1);
  int csize = blosc2_compress_ctx(cctx, buf, 200, chunk, sizeof(chunk));
  CHECK(csize > 0);
  CHECK(blosc2_decompress_ctx(dctx, chunk, csize, NULL, 200) < 0);
  CHECK_EQ(blosc2_decompress_ctx(dctx, chunk, csize, out, -1), BLOSC2_ERROR_WRITE_BUFFER);
  CHECK(blosc2_getitem_ctx(dctx, chunk, csize, 0, 4, NULL, 200) < 0);
  CHECK(blosc1_getitem(chunk, 0, 4, NULL) < 0);

  /* Chunk inspection. */
  int32_t nb = 5, cb = 5, bs = 5;
  CHECK(blosc2_cbuffer_sizes(NULL, &nb, &cb, &bs) < 0);
  CHECK(nb == 0 && cb == 0 && bs == 0);
  CHECK_EQ(blosc2_cbuffer_sizes(chunk, NULL, NULL, NULL), 0);
  size_t snb = 5, scb = 5, sbs = 5, ts = 5;
  int flags = 5, ver = 5, verlz = 5;
  blosc1_cbuffer_sizes(NULL, &snb, &scb, &sbs);
  CHECK(snb == 0 && scb == 0 && sbs == 0);
  blosc1_cbuffer_sizes(chunk, NULL, NULL, NULL);
  blosc1_cbuffer_metainfo(NULL, &ts, &flags);
  CHECK(ts == 0 && flags == 0);
  blosc1_cbuffer_metainfo(chunk, NULL, NULL);
  blosc2_cbuffer_versions(NULL, &ver, &verlz);
  CHECK(ver == 0 && verlz == 0);
  blosc2_cbuffer_versions(chunk, NULL, NULL);
  CHECK(blosc2_cbuffer_complib(NULL) == NULL);
  CHECK(blosc1_cbuffer_validate(NULL, 100, &snb) < 0);
  CHECK(blosc1_cbuffer_validate(chunk, (size_t)csize, NULL) == 0);
  CHECK(blosc2_vlchunk_get_nblocks(NULL, 100, &nb) < 0);
  CHECK(blosc2_vlchunk_get_nblocks(chunk, csize, NULL) < 0);

  /* Special chunks and shuffles. */
  blosc2_cparams cp = BLOSC2_CPARAMS_DEFAULTS;
  CHECK(blosc2_chunk_zeros(cp, 80, NULL, 64) < 0);
  CHECK(blosc2_chunk_nans(cp, 80, NULL, 64) < 0);
  CHECK(blosc2_chunk_uninit(cp, 80, NULL, 64) < 0);
  CHECK(blosc2_chunk_repeatval(cp, 80, NULL, 64, buf) < 0);
  CHECK(blosc2_chunk_repeatval(cp, 80, out, 64, NULL) < 0);
  cp.typesize = 0;
  CHECK(blosc2_chunk_zeros(cp, 80, out, 64) < 0);
  CHECK(blosc2_chunk_nans(cp, 80, out, 64) < 0);
  CHECK(blosc2_chunk_repeatval(cp, 80, out, 64, buf) < 0);
  cp = BLOSC2_CPARAMS_DEFAULTS;
  cp.filters[0] = 17; /* undefined filter */
  CHECK_EQ(blosc2_chunk_zeros(cp, 80, out, 64), BLOSC2_ERROR_NULL_POINTER);
  CHECK(blosc2_create_cctx(cp) == NULL);
  cp = BLOSC2_CPARAMS_DEFAULTS;
  cp.tuner_id = 99; /* no such tuner */
  CHECK(blosc2_create_cctx(cp) == NULL);
  CHECK(blosc2_shuffle(4, 100, NULL, out) < 0);
  CHECK(blosc2_shuffle(4, 100, buf, NULL) < 0);
  CHECK_EQ(blosc2_shuffle(0, 100, buf, out), BLOSC2_ERROR_INVALID_PARAM);
  CHECK_EQ(blosc2_shuffle(257, 100, buf, out), BLOSC2_ERROR_INVALID_PARAM);
  CHECK_EQ(blosc2_shuffle(4, -1, buf, out), BLOSC2_ERROR_INVALID_PARAM);
  CHECK_EQ(blosc2_unshuffle(0, 100, buf, out), BLOSC2_ERROR_INVALID_PARAM);
  CHECK_EQ(blosc2_bitshuffle(0, 100, buf, out), BLOSC2_ERROR_INVALID_PARAM);
  CHECK_EQ(blosc2_bitunshuffle(0, 100, buf, out), BLOSC2_ERROR_INVALID_PARAM);
  CHECK(blosc2_bitunshuffle(4, 100, NULL, out) < 0);
  CHECK_EQ(blosc2_shuffle(4, 0, NULL, NULL), 0);

  /* Names. */
  const char *name = (const char *)1;
  CHECK_EQ(blosc2_compcode_to_compname(99, &name), -1);
  CHECK(name == NULL);
  CHECK(blosc2_compcode_to_compname(1, NULL) < 0);
  CHECK(blosc2_compname_to_compcode(NULL) < 0);
  CHECK_EQ(blosc2_compname_to_compcode("nope"), -1);
  char *clib = (char *)1, *cver = (char *)1;
  CHECK(blosc2_get_complib_info(NULL, &clib, &cver) < 0);
  CHECK(clib == NULL && cver == NULL);
  CHECK(blosc2_get_complib_info("nope", &clib, &cver) < 0);
  CHECK(clib == NULL && cver == NULL);
  CHECK(blosc2_get_complib_info("lz4", NULL, NULL) >= 0);
  CHECK(blosc1_set_compressor(NULL) < 0);
  blosc_set_timestamp(NULL);

  /* Garbage and truncated chunks. */
  uint32_t x = 12345;
  uint8_t rnd[300];
  for (int iter = 0; iter < 3000; iter++) {
    for (size_t i = 0; i < sizeof(rnd); i++) {
      x = x * 1103515245u + 12345u;
      rnd[i] = (uint8_t)(x >> 16);
    }
    if (iter % 3 == 0) {
      /* Plausible header fields make the decoder go further. */
      rnd[0] = (uint8_t)(1 + iter % 7);
      rnd[2] = (uint8_t)((rnd[2] & 0xE0) | 0x05 | (rnd[2] & 0x1A));
      rnd[3] = (uint8_t)(1 + rnd[3] % 16);
      int32_t nbytes = (int32_t)(rnd[4] % 200), blocks = (int32_t)(1 + rnd[8] % 64), cbytes = (int32_t)(32 + rnd[12] % 268);
      memcpy(rnd + 4, &nbytes, 4);
      memcpy(rnd + 8, &blocks, 4);
      memcpy(rnd + 12, &cbytes, 4);
    }
    garbage_chunk(dctx, rnd, (int32_t)(iter % sizeof(rnd)));
    garbage_chunk(dctx, rnd, sizeof(rnd));
  }
  /* Mutations and truncations of valid chunks. */
  const uint8_t codecs[] = {BLOSC_BLOSCLZ, BLOSC_LZ4, BLOSC_ZLIB, BLOSC_ZSTD};
  for (size_t c = 0; c < 4; c++) {
    blosc2_cparams p = BLOSC2_CPARAMS_DEFAULTS;
    p.compcode = codecs[c];
    p.typesize = 4;
    p.blocksize = 64;
    p.filters[4] = BLOSC_DELTA;
    blosc2_context *cc = blosc2_create_cctx(p);
    uint8_t data[2000], valid[2100], mutated[2100];
    fill_data(data, sizeof(data), (uint32_t)c);
    int vlen = blosc2_compress_ctx(cc, data, sizeof(data), valid, sizeof(valid));
    CHECK(vlen > 0);
    for (int32_t cut = 0; cut < vlen; cut += 7) garbage_chunk(dctx, valid, cut);
    for (int iter = 0; iter < 2000 && vlen > 0; iter++) {
      memcpy(mutated, valid, (size_t)vlen);
      for (int k = 0; k < 1 + iter % 4; k++) {
        x = x * 1103515245u + 12345u;
        mutated[(x >> 8) % (uint32_t)vlen] ^= (uint8_t)(1u << ((x >> 4) % 8));
      }
      garbage_chunk(dctx, mutated, vlen);
    }
    blosc2_free_ctx(cc);
  }

  blosc2_free_ctx(cctx);
  blosc2_free_ctx(dctx);
  TEST_DONE();
}
