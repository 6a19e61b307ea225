/* Partial reads: blosc2_getitem_ctx, blosc2_getitem_bytes_ctx,
 * blosc2_getitem and blosc1_getitem against the decompressed data. */
#include "blosc2.h"
#include "capi_check.h"

static void check_chunk(const uint8_t *src, int32_t n, int32_t ts, blosc2_cparams cp) {
  int32_t destsize = n + BLOSC2_MAX_OVERHEAD;
  uint8_t *comp = xmalloc((size_t)destsize);
  uint8_t *out = xmalloc((size_t)n + 64);
  blosc2_context *cctx = blosc2_create_cctx(cp);
  blosc2_context *dctx = blosc2_create_dctx(BLOSC2_DPARAMS_DEFAULTS);
  int csize = blosc2_compress_ctx(cctx, src, n, comp, destsize);
  CHECK(csize > 0);
  int32_t nitems = n / ts;
  const int32_t starts[] = {0, 1, 7, nitems / 3, nitems - 1, nitems};
  const int32_t counts[] = {0, 1, 3, 100, nitems};
  for (size_t i = 0; i < 6; i++)
    for (size_t j = 0; j < 5; j++) {
      int32_t st = starts[i], cnt = counts[j];
      if (st < 0) continue;
      bool in_range = (int64_t)st + cnt <= nitems;
      int32_t want = in_range ? cnt * ts : -1;
      memset(out, 0xAA, (size_t)n + 64);
      int r = blosc2_getitem_ctx(dctx, comp, csize, st, cnt, out, n + 64);
      if (in_range) {
        CHECK_EQ(r, want);
        CHECK(memcmp(out, src + (size_t)st * (size_t)ts, (size_t)want) == 0);
      } else {
        CHECK_EQ(r, BLOSC2_ERROR_INVALID_PARAM);
      }
      /* Byte-range flavour. */
      r = blosc2_getitem_bytes_ctx(dctx, comp, csize, st * ts, cnt * ts, out, n + 64);
      if (in_range) {
        CHECK_EQ(r, want);
        CHECK(memcmp(out, src + (size_t)st * (size_t)ts, (size_t)want) == 0);
      }
      /* Global and Blosc1 flavours. */
      r = blosc2_getitem(comp, csize, st, cnt, out, n + 64);
      if (in_range) CHECK_EQ(r, want);
      if (in_range) {
        r = blosc1_getitem(comp, st, cnt, out);
        CHECK_EQ(r, want);
        CHECK(memcmp(out, src + (size_t)st * (size_t)ts, (size_t)want) == 0);
      }
    }
  /* Unaligned byte ranges are refused when typesize > 1. */
  if (ts > 1 && nitems > 2) {
    CHECK_EQ(blosc2_getitem_bytes_ctx(dctx, comp, csize, 1, ts, out, n), BLOSC2_ERROR_INVALID_PARAM);
    CHECK_EQ(blosc2_getitem_bytes_ctx(dctx, comp, csize, 0, ts + 1, out, n), BLOSC2_ERROR_INVALID_PARAM);
  }
  /* Destination too small. */
  if (nitems >= 4) {
    CHECK_EQ(blosc2_getitem_ctx(dctx, comp, csize, 0, 4, out, 4 * ts - 1), BLOSC2_ERROR_WRITE_BUFFER);
  }
  /* Negative counts. */
  CHECK_EQ(blosc2_getitem_ctx(dctx, comp, csize, 0, -1, out, n), BLOSC2_ERROR_INVALID_PARAM);
  CHECK_EQ(blosc2_getitem_ctx(dctx, comp, csize, -1, 1, out, n), BLOSC2_ERROR_INVALID_PARAM);
  /* A truncated chunk. */
  CHECK(blosc2_getitem_ctx(dctx, comp, 10, 0, 1, out, n) < 0);
  blosc2_free_ctx(cctx);
  blosc2_free_ctx(dctx);
  free(comp);
  free(out);
}

int main(void) {
  const int32_t n = 200000;
  uint8_t *src = xmalloc((size_t)n);
  fill_data(src, (size_t)n, 3);
  const int32_t typesizes[] = {1, 2, 4, 8, 3};
  const uint8_t codecs[] = {BLOSC_BLOSCLZ, BLOSC_LZ4, BLOSC_ZLIB, BLOSC_ZSTD};
  for (size_t t = 0; t < 5; t++)
    for (size_t c = 0; c < 4; c++)
      for (int delta = 0; delta <= 1; delta++) {
        blosc2_cparams cp = BLOSC2_CPARAMS_DEFAULTS;
        cp.typesize = typesizes[t];
        cp.compcode = codecs[c];
        cp.blocksize = 16384;
        if (delta) cp.filters[4] = BLOSC_DELTA;
        int32_t len = n - n % typesizes[t];
        check_chunk(src, len, typesizes[t], cp);
      }
  /* A memcpyed chunk (clevel 0). */
  blosc2_cparams cp = BLOSC2_CPARAMS_DEFAULTS;
  cp.clevel = 0;
  cp.typesize = 4;
  check_chunk(src, 4000, 4, cp);
  free(src);
  TEST_DONE();
}
