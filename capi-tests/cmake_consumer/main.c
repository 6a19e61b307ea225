/* A C program written for C-Blosc2 3.3.5: compresses 4 MB of integers with
 * Zstd and the shuffle filter, decompresses them and checks the result.
 * Built by capi-tests/cmake_consumer/CMakeLists.txt (find_package) and by
 * capi-tests/pkgconfig_consumer/build.sh (pkg-config); README.md shows it. */
#include <blosc2.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define N (1000 * 1000)

int main(void) {
  int32_t *data = malloc(N * sizeof(int32_t));
  int32_t *back = malloc(N * sizeof(int32_t));
  int32_t srcsize = N * sizeof(int32_t);
  int32_t destsize = srcsize + BLOSC2_MAX_OVERHEAD;
  uint8_t *chunk = malloc(destsize);
  for (int i = 0; i < N; i++) data[i] = i;

  blosc2_init();
  blosc2_cparams cparams = BLOSC2_CPARAMS_DEFAULTS;
  cparams.compcode = BLOSC_ZSTD;
  cparams.clevel = 5;
  cparams.typesize = sizeof(int32_t);
  cparams.nthreads = 2;
  blosc2_context *cctx = blosc2_create_cctx(cparams);
  int csize = blosc2_compress_ctx(cctx, data, srcsize, chunk, destsize);
  blosc2_free_ctx(cctx);
  if (csize <= 0) {
    fprintf(stderr, "compression failed: %d\n", csize);
    return 1;
  }

  blosc2_dparams dparams = BLOSC2_DPARAMS_DEFAULTS;
  blosc2_context *dctx = blosc2_create_dctx(dparams);
  int dsize = blosc2_decompress_ctx(dctx, chunk, csize, back, srcsize);
  blosc2_free_ctx(dctx);
  if (dsize != srcsize || memcmp(data, back, srcsize) != 0) {
    fprintf(stderr, "round trip failed: %d\n", dsize);
    return 1;
  }

  printf("blosc2 %s: %d -> %d bytes (%.1fx), round trip ok\n", blosc2_get_version_string(), srcsize, csize,
         (double)srcsize / csize);
  blosc2_destroy();
  free(data);
  free(back);
  free(chunk);
  return 0;
}
