/* Checks shared by the c-blosc 1.21 API test programs. */
#ifndef BLOSC1_CHECK_H
#define BLOSC1_CHECK_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int check_failures __attribute__((unused)) = 0;

#define CHECK(cond)                                                             \
  do {                                                                          \
    if (!(cond)) {                                                              \
      fprintf(stderr, "%s:%d: check failed: %s\n", __FILE__, __LINE__, #cond); \
      if (++check_failures > 20) exit(1);                                       \
    }                                                                           \
  } while (0)

#define CHECK_EQ(a, b)                                                                            \
  do {                                                                                            \
    long long check_a_ = (long long)(a), check_b_ = (long long)(b);                               \
    if (check_a_ != check_b_) {                                                                   \
      fprintf(stderr, "%s:%d: %s == %lld, expected %s == %lld\n", __FILE__, __LINE__, #a, check_a_, \
              #b, check_b_);                                                                      \
      if (++check_failures > 20) exit(1);                                                         \
    }                                                                                             \
  } while (0)

/* Deterministic test data: runs, slow ramps and noise, so that every codec
   and filter has something to do. The same `seed` gives the same bytes in
   every program. */
static void fill_data(unsigned char *buf, size_t n, unsigned seed) {
  unsigned state = seed * 2654435761u + 1;
  for (size_t i = 0; i < n; i++) {
    state = state * 1103515245u + 12345u;
    switch ((i / 4096 + seed) % 3) {
      case 0: buf[i] = 0; break;
      case 1: buf[i] = (unsigned char)((i / 7) ^ (i % 5 == 0 ? state >> 24 : 0)); break;
      default: buf[i] = (unsigned char)(state >> 16); break;
    }
  }
}

/* True when the running library has codec `compcode`. */
__attribute__((unused)) static int has_codec(int compcode) {
  const char *name = NULL;
  return blosc_compcode_to_compname(compcode, &name) == compcode;
}

#endif
