/* Environment variables read by the global API and by context creation.
 * The mode comes from CAPI_ENV_MODE (tests/capi.rs sets the variables). */
#include "blosc2.h"
#include "capi_check.h"

int main(void) {
  const char *mode = getenv("CAPI_ENV_MODE");
  const size_t n = 50000;
  uint8_t *src = xmalloc(n), *comp = xmalloc(n + 64), *back = xmalloc(n);
  fill_data(src, n, 5);

  if (mode == NULL) {
    /* Plain run (possibly with BLOSC_NOLOCK): round trips work. */
    for (int sh = 0; sh <= 2; sh++) {
      int csize = blosc2_compress(5, sh, 4, src, (int32_t)n, comp, (int32_t)n + 64);
      CHECK(csize > 0);
      CHECK_EQ(blosc2_decompress(comp, csize, back, (int32_t)n), n);
      CHECK(memcmp(src, back, n) == 0);
    }
  } else if (strcmp(mode, "overrides") == 0) {
    /* BLOSC_CLEVEL=0: stored, whatever clevel is asked for. */
    int csize = blosc2_compress(9, 1, 8, src, (int32_t)n, comp, (int32_t)n + 64);
    CHECK_EQ(csize, n + BLOSC_EXTENDED_HEADER_LENGTH);
    size_t ts;
    int flags;
    blosc1_cbuffer_metainfo(comp, &ts, &flags);
    CHECK_EQ(ts, 4); /* BLOSC_TYPESIZE=4 */
    CHECK(flags & BLOSC_MEMCPYED);
    /* BLOSC_COMPRESSOR and BLOSC_NTHREADS change the global state. */
    CHECK(strcmp(blosc1_get_compressor(), "zstd") == 0);
    CHECK_EQ(blosc2_get_nthreads(), 2);
    CHECK_EQ(blosc2_decompress(comp, csize, back, (int32_t)n), n);
    CHECK(memcmp(src, back, n) == 0);
    /* Context creation honours them too. */
    blosc2_cparams cp = BLOSC2_CPARAMS_DEFAULTS;
    cp.clevel = 9;
    blosc2_context *cctx = blosc2_create_cctx(cp);
    blosc2_cparams got;
    CHECK_EQ(blosc2_ctx_get_cparams(cctx, &got), 0);
    CHECK(got.clevel == 0 && got.compcode == BLOSC_ZSTD && got.typesize == 4 && got.nthreads == 2);
    CHECK(got.splitmode == BLOSC_NEVER_SPLIT);
    blosc2_free_ctx(cctx);
  } else if (strcmp(mode, "badthreads") == 0) {
    /* BLOSC_NTHREADS=0 makes the global decompression fail. */
    int csize = blosc2_compress(5, 1, 4, src, (int32_t)n, comp, (int32_t)n + 64);
    CHECK(csize > 0);
    CHECK_EQ(blosc2_decompress(comp, csize, back, (int32_t)n), BLOSC2_ERROR_INVALID_PARAM);
  } else if (strcmp(mode, "blosc1_compat") == 0) {
    /* BLOSC_BLOSC1_COMPAT: 16-byte headers that still round trip. */
    int csize = blosc2_compress(5, 1, 4, src, (int32_t)n, comp, (int32_t)n + 64);
    CHECK(csize > 0);
    size_t ts;
    int flags;
    blosc1_cbuffer_metainfo(comp, &ts, &flags);
    CHECK((flags & 0x05) != 0x05);
    CHECK_EQ(blosc2_decompress(comp, csize, back, (int32_t)n), n);
    CHECK(memcmp(src, back, n) == 0);
  }
  free(src);
  free(comp);
  free(back);
  TEST_DONE();
}
