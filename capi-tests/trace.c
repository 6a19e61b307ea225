/* With BLOSC_TRACE set, a failing call prints the library's reason as an
 * "[error] - ..." line on stderr, as 3.3.5's BLOSC_TRACE_ERROR does;
 * without it nothing is printed. The run with the variable set is made by
 * tests/capi.rs. */
#define _POSIX_C_SOURCE 200809L

#include <fcntl.h>
#include <unistd.h>

#include "capi_check.h"

#include "b2nd.h"
#include "blosc2.h"

int main(void) {
  bool tracing = getenv("BLOSC_TRACE") != NULL;
  char path[] = "/tmp/blosc2-capi-trace-XXXXXX";
  int fd = mkstemp(path);
  CHECK(fd >= 0);
  fflush(stderr);
  int saved = dup(2);
  CHECK(dup2(fd, 2) == 2);

  blosc2_init();
  int32_t src[1000];
  for (int i = 0; i < 1000; i++) {
    src[i] = i;
  }
  uint8_t chunk[4000 + BLOSC2_MAX_OVERHEAD];
  int csize = blosc2_compress(5, BLOSC_SHUFFLE, 4, src, sizeof(src), chunk, sizeof(chunk));
  int32_t back[1000];
  /* Items past the end of the chunk. */
  int rc = blosc2_getitem(chunk, csize, 990, 20, back, sizeof(back));
  CHECK(rc < 0);
  /* A chunk past the end of a super-chunk. */
  blosc2_cparams cp = BLOSC2_CPARAMS_DEFAULTS;
  cp.typesize = 4;
  blosc2_storage st = {.cparams = &cp};
  blosc2_schunk *sc = blosc2_schunk_new(&st);
  CHECK(blosc2_schunk_decompress_chunk(sc, 5, back, sizeof(back)) < 0);
  blosc2_schunk_free(sc);
  /* Arguments refused before any work: one line each, as 3.3.5's
   * BLOSC_ERROR_NULL ("Pointer is null") and BLOSC_TRACE_ERROR print. */
  uint8_t *cframe;
  int64_t cframe_len;
  bool needs_free;
  CHECK_EQ(b2nd_to_cframe(NULL, &cframe, &cframe_len, &needs_free), BLOSC2_ERROR_NULL_POINTER);
  blosc2_dparams dp = BLOSC2_DPARAMS_DEFAULTS;
  blosc2_context *dctx = blosc2_create_dctx(dp);
  CHECK_EQ(blosc2_vldecompress_block_ctx(dctx, chunk, csize, 0, NULL, NULL), BLOSC2_ERROR_INVALID_PARAM);
  blosc2_free_ctx(dctx);
  blosc2_destroy();

  fflush(stderr);
  dup2(saved, 2);
  close(saved);
  char text[4096] = {0};
  lseek(fd, 0, SEEK_SET);
  ssize_t n = read(fd, text, sizeof(text) - 1);
  close(fd);
  unlink(path);
  CHECK(n >= 0);
  if (tracing) {
    CHECK(strstr(text, "[error] - ") != NULL);
    CHECK(strstr(text, "[error] - Pointer is null (") != NULL);
    /* At least one line per failing call. */
    int lines = 0;
    for (char *p = text; (p = strstr(p, "[error] - ")) != NULL; p++) {
      lines++;
    }
    CHECK(lines >= 4);
  } else {
    CHECK_EQ(n, 0);
  }
  TEST_DONE();
}
