/* A C program written for C-Blosc2 3.3.5, built with pkg-config (see the
 * Makefile beside it): the global API (blosc1_set_compressor,
 * blosc2_compress, blosc2_decompress) and a few items read back with
 * blosc2_getitem. */
#include <blosc2.h>
#include <stdio.h>
#include <string.h>

#define N 100000

static double data[N], back[N];
static uint8_t chunk[N * sizeof(double) + BLOSC2_MAX_OVERHEAD];

int main(void) {
  for (int i = 0; i < N; i++) data[i] = i * 0.25;

  blosc2_init();
  blosc1_set_compressor("lz4");
  int csize = blosc2_compress(9, BLOSC_SHUFFLE, sizeof(double), data, sizeof(data), chunk, sizeof(chunk));
  int dsize = blosc2_decompress(chunk, csize, back, sizeof(back));
  double items[3];
  int gsize = blosc2_getitem(chunk, csize, 4000, 3, items, sizeof(items));
  blosc2_destroy();

  if (csize <= 0 || dsize != (int)sizeof(data) || memcmp(data, back, sizeof(data)) != 0 ||
      gsize != (int)sizeof(items) || items[0] != 1000.0 || items[2] != 1000.5) {
    fprintf(stderr, "failed: csize %d dsize %d getitem %d\n", csize, dsize, gsize);
    return 1;
  }
  printf("lz4 + shuffle: %d -> %d bytes, items 4000..4002 = %g %g %g, round trip ok\n", (int)sizeof(data), csize,
         items[0], items[1], items[2]);
  return 0;
}
