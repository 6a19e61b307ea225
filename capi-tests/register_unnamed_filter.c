/* A user filter registered with a name that is not text registers and
 * works, as 3.3.5, which copies the struct without reading the name.
 * python-blosc2's register_filter(id, forward, backward) leaves
 * `blosc2_filter.name` unset (whatever bytes its stack held), and every
 * test of its test_ufilters.py failed with "Error while registering
 * filter" while such names were refused. */
#include "schunk_common.h"

#define NITEMS 1000

static int add_one(const uint8_t *src, uint8_t *dest, int32_t size, uint8_t meta, blosc2_cparams *cparams,
                   uint8_t id) {
  (void)meta, (void)cparams, (void)id;
  for (int32_t i = 0; i < size; i++) dest[i] = (uint8_t)(src[i] + 1);
  return BLOSC2_ERROR_SUCCESS;
}

static int sub_one(const uint8_t *src, uint8_t *dest, int32_t size, uint8_t meta, blosc2_dparams *dparams,
                   uint8_t id) {
  (void)meta, (void)dparams, (void)id;
  for (int32_t i = 0; i < size; i++) dest[i] = (uint8_t)(src[i] - 1);
  return BLOSC2_ERROR_SUCCESS;
}

int main(void) {
  blosc2_init();
  static char not_text[] = {(char)0xff, (char)0xfe, (char)0x80, 'x', 0};
  blosc2_filter filter = {.id = 171, .name = not_text, .version = 1, .forward = add_one, .backward = sub_one};
  CHECK_EQ(blosc2_register_filter(&filter), 0);
  /* Registering it again under the same bytes is a no-op. */
  CHECK_EQ(blosc2_register_filter(&filter), 0);

  blosc2_cparams cp = int32_cparams(BLOSC_LZ4, 5);
  cp.filters[BLOSC2_MAX_FILTERS - 1] = 171;
  blosc2_context *cctx = blosc2_create_cctx(cp);
  blosc2_dparams dp = BLOSC2_DPARAMS_DEFAULTS;
  blosc2_context *dctx = blosc2_create_dctx(dp);
  int32_t src[NITEMS], out[NITEMS];
  fill_chunk(src, NITEMS, 3);
  uint8_t chunk[NITEMS * 4 + BLOSC2_MAX_OVERHEAD];
  int csize = blosc2_compress_ctx(cctx, src, sizeof(src), chunk, sizeof(chunk));
  CHECK(csize > 0);
  CHECK_EQ(blosc2_decompress_ctx(dctx, chunk, csize, out, sizeof(out)), (int)sizeof(out));
  CHECK(memcmp(src, out, sizeof(src)) == 0);
  blosc2_free_ctx(cctx);
  blosc2_free_ctx(dctx);
  blosc2_destroy();
  TEST_DONE();
}
