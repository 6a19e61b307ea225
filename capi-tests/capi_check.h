/* Helpers shared by the C test programs of the Blosc2 C API. */
#ifndef CAPI_CHECK_H
#define CAPI_CHECK_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int capi_failures = 0;

#define CHECK(cond)                                                              \
  do {                                                                           \
    if (!(cond)) {                                                               \
      fprintf(stderr, "%s:%d: check failed: %s\n", __FILE__, __LINE__, #cond);  \
      if (++capi_failures > 20) exit(1);                                         \
    }                                                                            \
  } while (0)

#define CHECK_EQ(a, b)                                                                      \
  do {                                                                                      \
    long long capi_a_ = (long long)(a), capi_b_ = (long long)(b);                           \
    if (capi_a_ != capi_b_) {                                                               \
      fprintf(stderr, "%s:%d: %s == %lld, expected %s == %lld\n", __FILE__, __LINE__, #a,   \
              capi_a_, #b, capi_b_);                                                        \
      if (++capi_failures > 20) exit(1);                                                    \
    }                                                                                       \
  } while (0)

#define TEST_DONE()                                                   \
  do {                                                                \
    if (capi_failures) {                                              \
      fprintf(stderr, "%d check(s) failed\n", capi_failures);         \
      return 1;                                                       \
    }                                                                 \
    printf("ok\n");                                                   \
    return 0;                                                         \
  } while (0)

/* Deterministic, moderately compressible data. */
static void fill_data(uint8_t *buf, size_t n, uint32_t seed) {
  uint32_t x = seed * 2654435761u + 12345u;
  for (size_t i = 0; i < n; i++) {
    x = x * 1103515245u + 12345u;
    /* A slow ramp with some noise in the low bits. */
    buf[i] = (uint8_t)((i / 7) + ((x >> 16) & 0x3));
  }
}

static void *xmalloc(size_t n) {
  void *p = malloc(n ? n : 1);
  if (p == NULL) {
    fprintf(stderr, "out of memory\n");
    exit(2);
  }
  return p;
}

#endif
