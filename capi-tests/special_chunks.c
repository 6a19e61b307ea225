/* Special-value chunks: zeros, NaNs, a repeated value, uninitialized. */
#include <math.h>
#include "blosc2.h"
#include "capi_check.h"

int main(void) {
  uint8_t chunk[BLOSC_EXTENDED_HEADER_LENGTH + 16];
  const int32_t nbytes = 8 * 10000;
  uint8_t *out = xmalloc((size_t)nbytes);
  blosc2_cparams cp = BLOSC2_CPARAMS_DEFAULTS;
  blosc2_context *dctx = blosc2_create_dctx(BLOSC2_DPARAMS_DEFAULTS);
  int32_t nb, cb, bs;

  /* Zeros. */
  int csize = blosc2_chunk_zeros(cp, nbytes, chunk, sizeof(chunk));
  CHECK_EQ(csize, BLOSC_EXTENDED_HEADER_LENGTH);
  CHECK_EQ(blosc2_cbuffer_sizes(chunk, &nb, &cb, &bs), 0);
  CHECK_EQ(nb, nbytes);
  CHECK_EQ(cb, BLOSC_EXTENDED_HEADER_LENGTH);
  CHECK_EQ((chunk[BLOSC2_CHUNK_BLOSC2_FLAGS] >> 4) & BLOSC2_SPECIAL_MASK, BLOSC2_SPECIAL_ZERO);
  memset(out, 0xFF, (size_t)nbytes);
  CHECK_EQ(blosc2_decompress_ctx(dctx, chunk, csize, out, nbytes), nbytes);
  for (int32_t i = 0; i < nbytes; i++) {
    if (out[i] != 0) { CHECK(0); break; }
  }
  CHECK_EQ(blosc2_getitem_ctx(dctx, chunk, csize, 5, 2, out, 16), 16);
  /* Zero-sized zeros chunk and non-multiple sizes. */
  CHECK_EQ(blosc2_chunk_zeros(cp, 0, chunk, sizeof(chunk)), BLOSC_EXTENDED_HEADER_LENGTH);
  CHECK_EQ(blosc2_chunk_zeros(cp, 7, chunk, sizeof(chunk)), BLOSC2_ERROR_DATA);
  CHECK_EQ(blosc2_chunk_zeros(cp, 8, chunk, 31), BLOSC2_ERROR_DATA);

  /* NaNs (float64 and float32). */
  csize = blosc2_chunk_nans(cp, nbytes, chunk, sizeof(chunk));
  CHECK_EQ(csize, BLOSC_EXTENDED_HEADER_LENGTH);
  CHECK_EQ(blosc2_decompress_ctx(dctx, chunk, csize, out, nbytes), nbytes);
  for (int32_t i = 0; i < nbytes / 8; i++) {
    double d;
    memcpy(&d, out + 8 * i, 8);
    if (!isnan(d)) { CHECK(0); break; }
  }
  cp.typesize = 4;
  csize = blosc2_chunk_nans(cp, nbytes, chunk, sizeof(chunk));
  CHECK_EQ(csize, BLOSC_EXTENDED_HEADER_LENGTH);
  CHECK_EQ(blosc2_decompress_ctx(dctx, chunk, csize, out, nbytes), nbytes);
  for (int32_t i = 0; i < nbytes / 4; i++) {
    float f;
    memcpy(&f, out + 4 * i, 4);
    if (!isnan(f)) { CHECK(0); break; }
  }

  /* A repeated value. */
  cp.typesize = 8;
  int64_t value = 0x0102030405060708LL;
  csize = blosc2_chunk_repeatval(cp, nbytes, chunk, sizeof(chunk), &value);
  CHECK_EQ(csize, BLOSC_EXTENDED_HEADER_LENGTH + 8);
  CHECK_EQ(blosc2_decompress_ctx(dctx, chunk, csize, out, nbytes), nbytes);
  for (int32_t i = 0; i < nbytes / 8; i++) {
    int64_t v;
    memcpy(&v, out + 8 * i, 8);
    if (v != value) { CHECK(0); break; }
  }
  int64_t items[3];
  CHECK_EQ(blosc2_getitem_ctx(dctx, chunk, csize, 100, 3, items, sizeof(items)), 24);
  CHECK(items[0] == value && items[2] == value);
  CHECK_EQ(blosc2_chunk_repeatval(cp, nbytes, chunk, BLOSC_EXTENDED_HEADER_LENGTH + 7, &value), BLOSC2_ERROR_DATA);
  /* A 3-byte value. */
  cp.typesize = 3;
  uint8_t v3[3] = {9, 8, 7};
  csize = blosc2_chunk_repeatval(cp, 3 * 1000, chunk, sizeof(chunk), v3);
  CHECK_EQ(csize, BLOSC_EXTENDED_HEADER_LENGTH + 3);
  CHECK_EQ(blosc2_decompress_ctx(dctx, chunk, csize, out, 3000), 3000);
  CHECK(out[0] == 9 && out[1] == 8 && out[2] == 7 && out[2997] == 9 && out[2999] == 7);

  /* Uninitialized. */
  cp.typesize = 8;
  csize = blosc2_chunk_uninit(cp, nbytes, chunk, sizeof(chunk));
  CHECK_EQ(csize, BLOSC_EXTENDED_HEADER_LENGTH);
  CHECK_EQ(blosc2_decompress_ctx(dctx, chunk, csize, out, nbytes), nbytes);
  CHECK_EQ(blosc2_decompress(chunk, csize, out, nbytes), nbytes);
  CHECK_EQ(blosc2_chunk_uninit(cp, 12, chunk, sizeof(chunk)), BLOSC2_ERROR_DATA);

  /* Special chunks decompress through the global API as well. */
  cp.typesize = 4;
  csize = blosc2_chunk_zeros(cp, 4000, chunk, sizeof(chunk));
  CHECK_EQ(blosc2_decompress(chunk, csize, out, 4000), 4000);
  CHECK_EQ(blosc1_decompress(chunk, out, 4000), 4000);
  CHECK_EQ(blosc2_decompress(chunk, csize, out, 3999), BLOSC2_ERROR_WRITE_BUFFER);

  /* All-zero data compresses into a zeros chunk. */
  memset(out, 0, 100000 < nbytes ? 100000 : (size_t)nbytes);
  uint8_t comp[256];
  csize = blosc2_compress(5, 1, 4, out, 40000, comp, sizeof(comp));
  CHECK_EQ(csize, BLOSC_EXTENDED_HEADER_LENGTH);

  blosc2_free_ctx(dctx);
  free(out);
  TEST_DONE();
}
