/* With BLOSC_TRACE set, a failing call prints the library's reason as an
 * "[error] - ..." line on stderr, as 3.3.5's BLOSC_TRACE_ERROR does;
 * without it nothing is printed. The run with the variable set is made by
 * tests/capi.rs. */
#define _POSIX_C_SOURCE 200809L

#include <fcntl.h>
#include <unistd.h>

#include "test_common.h"

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
    CHECK(strstr(text, "\n") != NULL);
  } else {
    CHECK_EQ(n, 0);
  }
  TEST_DONE();
}
