/* Compression round trips through the context API and the global API:
 * every codec x filter pipeline x typesize x clevel x split mode x thread
 * count on small buffers, and a reduced matrix on 1 MiB buffers. */
#include "blosc2.h"
#include "capi_check.h"

enum { F_NONE, F_SHUFFLE, F_BITSHUFFLE, F_DELTA_SHUFFLE, F_TRUNC_PREC, NFILTERS };

static const uint8_t codecs[] = {BLOSC_BLOSCLZ, BLOSC_LZ4, BLOSC_LZ4HC, BLOSC_ZLIB, BLOSC_ZSTD};
static const int32_t typesizes[] = {1, 2, 4, 8, 16, 3, 7, 33};
static const int splitmodes[] = {BLOSC_ALWAYS_SPLIT, BLOSC_NEVER_SPLIT, BLOSC_AUTO_SPLIT,
                                 BLOSC_FORWARD_COMPAT_SPLIT};
#define TRUNC_BITS 10

static void set_filters(blosc2_cparams *cp, int f) {
  memset(cp->filters, 0, sizeof(cp->filters));
  memset(cp->filters_meta, 0, sizeof(cp->filters_meta));
  switch (f) {
    case F_SHUFFLE: cp->filters[5] = BLOSC_SHUFFLE; break;
    case F_BITSHUFFLE: cp->filters[5] = BLOSC_BITSHUFFLE; break;
    case F_DELTA_SHUFFLE: cp->filters[4] = BLOSC_DELTA; cp->filters[5] = BLOSC_SHUFFLE; break;
    case F_TRUNC_PREC: cp->filters[5] = BLOSC_TRUNC_PREC; cp->filters_meta[5] = TRUNC_BITS; break;
    default: break;
  }
}

/* What a TRUNC_PREC round trip must give back. */
static void truncate_expected(uint8_t *buf, size_t n, int32_t typesize) {
  size_t items = n / (size_t)typesize;
  for (size_t i = 0; i < items; i++) {
    if (typesize == 4) {
      uint32_t v;
      memcpy(&v, buf + 4 * i, 4);
      v &= ~((1u << (23 - TRUNC_BITS)) - 1);
      memcpy(buf + 4 * i, &v, 4);
    } else {
      uint64_t v;
      memcpy(&v, buf + 8 * i, 8);
      v &= ~((1ull << (52 - TRUNC_BITS)) - 1);
      memcpy(buf + 8 * i, &v, 8);
    }
  }
}

static long ncases = 0;

static void roundtrip_ctx(const uint8_t *src, size_t n, uint8_t codec, int filt, int32_t ts, int clevel,
                          int split, int16_t nthreads) {
  blosc2_cparams cp = BLOSC2_CPARAMS_DEFAULTS;
  cp.compcode = codec;
  cp.clevel = (uint8_t)clevel;
  cp.typesize = ts;
  cp.splitmode = split;
  cp.nthreads = nthreads;
  set_filters(&cp, filt);
  blosc2_dparams dp = BLOSC2_DPARAMS_DEFAULTS;
  dp.nthreads = nthreads;
  blosc2_context *cctx = blosc2_create_cctx(cp);
  blosc2_context *dctx = blosc2_create_dctx(dp);
  CHECK(cctx != NULL && dctx != NULL);
  if (cctx == NULL || dctx == NULL) return;

  size_t destsize = n + BLOSC2_MAX_OVERHEAD;
  uint8_t *comp = xmalloc(destsize);
  uint8_t *back = xmalloc(n + 1);
  int csize = blosc2_compress_ctx(cctx, src, (int32_t)n, comp, (int32_t)destsize);
  bool trunc_bad = filt == F_TRUNC_PREC && ts != 4 && ts != 8;
  if (trunc_bad) {
    /* Unsupported typesize for TRUNC_PREC: an error unless nothing was filtered. */
    CHECK(csize < 0 || csize == (int)(n + BLOSC2_MAX_OVERHEAD));
  } else {
    if (csize <= 0) {
      fprintf(stderr, "compress failed: %d (codec %d filt %d ts %d clevel %d split %d nt %d n %zu)\n", csize,
              codec, filt, ts, clevel, split, nthreads, n);
    }
    CHECK(csize > 0);
  }
  if (csize > 0) {
    CHECK(csize <= (int)destsize);
    int32_t nbytes, cbytes, blocksize;
    CHECK_EQ(blosc2_cbuffer_sizes(comp, &nbytes, &cbytes, &blocksize), 0);
    CHECK_EQ(nbytes, n);
    CHECK_EQ(cbytes, csize);
    int dsize = blosc2_decompress_ctx(dctx, comp, csize, back, (int32_t)n);
    CHECK_EQ(dsize, n);
    uint8_t *expected = xmalloc(n + 1);
    memcpy(expected, src, n);
    size_t hts;
    int hflags;
    blosc1_cbuffer_metainfo(comp, &hts, &hflags);
    if (filt == F_TRUNC_PREC && !(hflags & BLOSC_MEMCPYED)) {
      truncate_expected(expected, n, ts);
    }
    if (dsize == (int)n && memcmp(back, expected, n) != 0) {
      fprintf(stderr, "data mismatch (codec %d filt %d ts %d clevel %d split %d nt %d n %zu)\n", codec, filt, ts,
              clevel, split, nthreads, n);
      CHECK(0);
    }
    /* The global API decompresses what the context API wrote. */
    memset(back, 0, n + 1);
    CHECK_EQ(blosc2_decompress(comp, csize, back, (int32_t)n), n);
    CHECK(memcmp(back, expected, n) == 0);
    free(expected);
  }
  ncases++;
  free(comp);
  free(back);
  blosc2_free_ctx(cctx);
  blosc2_free_ctx(dctx);
}

static void roundtrip_global(const uint8_t *src, size_t n, const char *compname, int doshuffle, int delta,
                             int32_t ts, int clevel, int16_t nthreads) {
  CHECK(blosc1_set_compressor(compname) >= 0);
  blosc2_set_delta(delta);
  blosc2_set_nthreads(nthreads);
  size_t destsize = n + BLOSC2_MAX_OVERHEAD;
  uint8_t *comp = xmalloc(destsize);
  uint8_t *back = xmalloc(n + 1);
  int csize = blosc2_compress(clevel, doshuffle, ts, src, (int32_t)n, comp, (int32_t)destsize);
  CHECK(csize > 0);
  if (csize > 0) {
    CHECK_EQ(blosc2_decompress(comp, csize, back, (int32_t)n), n);
    CHECK(memcmp(back, src, n) == 0);
    /* Blosc1 spelling of the same calls. */
    int c1 = blosc1_compress(clevel, doshuffle, (size_t)ts, n, src, comp, destsize);
    CHECK_EQ(c1, csize);
    memset(back, 0, n);
    CHECK_EQ(blosc1_decompress(comp, back, n), n);
    CHECK(memcmp(back, src, n) == 0);
  }
  ncases++;
  free(comp);
  free(back);
}

int main(void) {
  const size_t small_sizes[] = {0, 1, 31, 32, 1000};
  const size_t big = 1 << 20;
  uint8_t *data = xmalloc(big);
  fill_data(data, big, 7);

  for (size_t s = 0; s < sizeof(small_sizes) / sizeof(small_sizes[0]); s++)
    for (size_t c = 0; c < sizeof(codecs); c++)
      for (int f = 0; f < NFILTERS; f++)
        for (size_t t = 0; t < sizeof(typesizes) / sizeof(typesizes[0]); t++)
          for (int clevel = 0; clevel <= 9; clevel++)
            for (size_t m = 0; m < 4; m++)
              for (int16_t nt = 1; nt <= 2; nt++)
                roundtrip_ctx(data, small_sizes[s], codecs[c], f, typesizes[t], clevel, splitmodes[m], nt);

  /* 1 MiB: every codec and pipeline, fewer typesizes and levels. */
  const int32_t big_ts[] = {1, 4, 8, 7};
  const int big_clevels[] = {0, 1, 5, 9};
  for (size_t c = 0; c < sizeof(codecs); c++)
    for (int f = 0; f < NFILTERS; f++)
      for (size_t t = 0; t < 4; t++)
        for (size_t l = 0; l < 4; l++) {
          if (codecs[c] == BLOSC_ZSTD && big_clevels[l] == 9 && (f != F_SHUFFLE || big_ts[t] != 4)) continue;
          int split = splitmodes[(c + (size_t)f + t + l) % 4];
          roundtrip_ctx(data, big, codecs[c], f, big_ts[t], big_clevels[l], split, (int16_t)(1 + (l % 2)));
        }

  /* Global API. */
  const char *names[] = {"blosclz", "lz4", "lz4hc", "zlib", "zstd"};
  const size_t gsizes[] = {0, 1, 31, 32, 1000, big};
  for (size_t s = 0; s < 6; s++)
    for (size_t c = 0; c < 5; c++)
      for (int sh = 0; sh <= 2; sh++)
        for (int delta = 0; delta <= 1; delta++)
          for (size_t t = 0; t < sizeof(typesizes) / sizeof(typesizes[0]); t++) {
            if (gsizes[s] == big && t % 3 != 0) continue;
            int clevel = (int)((s + c + t) % 10);
            if (gsizes[s] == big && c == 4 && clevel == 9) clevel = 5;
            roundtrip_global(data, gsizes[s], names[c], sh, delta, typesizes[t], clevel, (int16_t)(1 + (t % 2)));
          }
  blosc2_set_delta(0);
  blosc2_set_nthreads(1);
  blosc1_set_compressor("blosclz");
  blosc2_destroy();

  printf("%ld cases\n", ncases);
  free(data);
  TEST_DONE();
}
