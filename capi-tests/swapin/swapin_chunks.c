/* Swap-in check, chunks: compiled against the reference C-Blosc2 3.3.5 and
 * run unchanged with either libblosc2.so.9 (see run.sh).
 *
 *   swapin_chunks write DIR   round trips through the C API, then writes the
 *                             chunks it made to DIR
 *   swapin_chunks read DIR    decompresses the chunks in DIR (written by
 *                             either library) and checks them
 */
#include "swapin_common.h"

#define NBYTES (256 * 1024 + 40) /* not a multiple of the block size */

static const char *codecs[] = {"blosclz", "lz4", "lz4hc", "zlib", "zstd"};
static const int ncodecs = 5;
static const uint8_t filters[] = {BLOSC_NOSHUFFLE, BLOSC_SHUFFLE, BLOSC_BITSHUFFLE};
static const int32_t typesizes[] = {1, 4, 8};

static blosc2_cparams make_cparams(int codec, int filter, int ts, int16_t nthreads) {
  blosc2_cparams cp = BLOSC2_CPARAMS_DEFAULTS;
  cp.compcode = (uint8_t)blosc2_compname_to_compcode(codecs[codec]);
  cp.clevel = 5;
  cp.typesize = typesizes[ts];
  cp.nthreads = nthreads;
  cp.filters[BLOSC2_MAX_FILTERS - 1] = filters[filter];
  return cp;
}

static char *chunk_name(int codec, int filter, int ts) {
  static char name[64];
  snprintf(name, sizeof(name), "chunk_%s_f%d_t%d.b2", codecs[codec], filters[filter], typesizes[ts]);
  return name;
}

/* Decompress `chunk` every way the API offers and compare with `expected`. */
static void check_chunk(const uint8_t *chunk, int32_t csize, const uint8_t *expected, int32_t nbytes,
                        int32_t typesize, const char *compname) {
  int32_t nb = 0, cb = 0, bs = 0;
  CHECK_EQ(blosc2_cbuffer_sizes(chunk, &nb, &cb, &bs), 0);
  CHECK_EQ(nb, nbytes);
  CHECK_EQ(cb, csize);
  CHECK(bs > 0 && bs <= nbytes);
  size_t mtypesize = 0;
  int mflags = 0;
  blosc1_cbuffer_metainfo(chunk, &mtypesize, &mflags);
  CHECK_EQ(mtypesize, typesize);
  size_t vnbytes = 0;
  CHECK_EQ(blosc1_cbuffer_validate(chunk, (size_t)csize, &vnbytes), 0);
  CHECK_EQ(vnbytes, nbytes);
  if (compname != NULL) CHECK(strcmp(blosc2_cbuffer_complib(chunk), compname) == 0);

  uint8_t *out = xmalloc((size_t)nbytes);
  for (int16_t nthreads = 1; nthreads <= 2; nthreads++) {
    blosc2_dparams dp = BLOSC2_DPARAMS_DEFAULTS;
    dp.nthreads = nthreads;
    blosc2_context *dctx = blosc2_create_dctx(dp);
    memset(out, 0xa5, (size_t)nbytes);
    CHECK_EQ(blosc2_decompress_ctx(dctx, chunk, csize, out, nbytes), nbytes);
    CHECK(memcmp(out, expected, (size_t)nbytes) == 0);
    /* Items from the middle, across a block boundary. */
    int nitems = 100, start = (nbytes / typesize) / 2 - nitems / 2;
    CHECK_EQ(blosc2_getitem_ctx(dctx, chunk, csize, start, nitems, out, nbytes), nitems * typesize);
    CHECK(memcmp(out, expected + (size_t)start * typesize, (size_t)nitems * typesize) == 0);
    blosc2_free_ctx(dctx);
  }
  memset(out, 0, (size_t)nbytes);
  CHECK_EQ(blosc2_decompress(chunk, csize, out, nbytes), nbytes);
  CHECK(memcmp(out, expected, (size_t)nbytes) == 0);
  /* Too small a destination is an error, not a crash. */
  CHECK(blosc2_decompress(chunk, csize, out, nbytes - 1) < 0);
  free(out);
}

/* The library name blosc2_cbuffer_complib reports (LZ4HC writes LZ4). */
static const char *complib_of(int codec) {
  static const char *names[] = {"BloscLZ", "LZ4", "LZ4", "Zlib", "Zstd"};
  return names[codec];
}

static int do_write(const char *dir) {
  uint8_t *src = xmalloc(NBYTES);
  uint8_t *chunk = xmalloc(NBYTES + BLOSC2_MAX_OVERHEAD);
  fill_data(src, NBYTES, 1);
  long ncases = 0;

  for (int c = 0; c < ncodecs; c++) {
    for (int f = 0; f < 3; f++) {
      for (int t = 0; t < 3; t++) {
        int32_t csize[2];
        for (int16_t nthreads = 1; nthreads <= 2; nthreads++) {
          blosc2_cparams cp = make_cparams(c, f, t, nthreads);
          blosc2_context *cctx = blosc2_create_cctx(cp);
          CHECK(cctx != NULL);
          blosc2_cparams got;
          CHECK_EQ(blosc2_ctx_get_cparams(cctx, &got), 0);
          CHECK_EQ(got.compcode, cp.compcode);
          CHECK_EQ(got.typesize, cp.typesize);
          CHECK_EQ(got.filters[BLOSC2_MAX_FILTERS - 1], cp.filters[BLOSC2_MAX_FILTERS - 1]);
          csize[nthreads - 1] = blosc2_compress_ctx(cctx, src, NBYTES, chunk, NBYTES + BLOSC2_MAX_OVERHEAD);
          blosc2_free_ctx(cctx);
          CHECK(csize[nthreads - 1] > BLOSC2_MAX_OVERHEAD);
          check_chunk(chunk, csize[nthreads - 1], src, NBYTES, typesizes[t], complib_of(c));
          ncases++;
        }
        /* The thread count does not change the bytes. */
        CHECK_EQ(csize[0], csize[1]);
        char *path = path_join(dir, chunk_name(c, f, t));
        write_file(path, chunk, (size_t)csize[1]);
        free(path);
      }
    }
  }

  /* The global API: blosc1_set_compressor + blosc2_compress/decompress. */
  blosc2_set_nthreads(2);
  CHECK_EQ(blosc2_get_nthreads(), 2);
  for (int c = 0; c < ncodecs; c++) {
    CHECK(blosc1_set_compressor(codecs[c]) >= 0);
    CHECK(strcmp(blosc1_get_compressor(), codecs[c]) == 0);
    int csize = blosc2_compress(9, BLOSC_SHUFFLE, 4, src, NBYTES, chunk, NBYTES + BLOSC2_MAX_OVERHEAD);
    CHECK(csize > 0);
    check_chunk(chunk, csize, src, NBYTES, 4, complib_of(c));
    int bsize = blosc1_compress(9, BLOSC_BITSHUFFLE, 8, NBYTES, src, chunk, NBYTES + BLOSC2_MAX_OVERHEAD);
    CHECK(bsize > 0);
    uint8_t *out = xmalloc(NBYTES);
    CHECK_EQ(blosc1_decompress(chunk, out, NBYTES), NBYTES);
    CHECK(memcmp(out, src, NBYTES) == 0);
    CHECK_EQ(blosc1_getitem(chunk, 10, 5, out), 40);
    CHECK(memcmp(out, src + 80, 40) == 0);
    free(out);
    ncases += 2;
  }
  blosc2_set_nthreads(1);
  blosc1_set_compressor("blosclz");

  /* Special chunks. */
  blosc2_cparams cp = BLOSC2_CPARAMS_DEFAULTS;
  cp.typesize = 8;
  uint8_t *expected = xmalloc(NBYTES);
  int32_t snbytes = (NBYTES / 8) * 8;
  int csize = blosc2_chunk_zeros(cp, snbytes, chunk, BLOSC_EXTENDED_HEADER_LENGTH);
  CHECK_EQ(csize, BLOSC_EXTENDED_HEADER_LENGTH);
  memset(expected, 0, NBYTES);
  check_chunk(chunk, csize, expected, snbytes, 8, NULL);
  char *path = path_join(dir, "special_zeros.b2");
  write_file(path, chunk, (size_t)csize);
  free(path);
  double v = 3.25;
  csize = blosc2_chunk_repeatval(cp, snbytes, chunk, BLOSC_EXTENDED_HEADER_LENGTH + 8, &v);
  CHECK_EQ(csize, BLOSC_EXTENDED_HEADER_LENGTH + 8);
  for (int32_t i = 0; i < snbytes / 8; i++) memcpy(expected + 8 * i, &v, 8);
  check_chunk(chunk, csize, expected, snbytes, 8, NULL);
  path = path_join(dir, "special_repeat.b2");
  write_file(path, chunk, (size_t)csize);
  free(path);
  csize = blosc2_chunk_nans(cp, snbytes, chunk, BLOSC_EXTENDED_HEADER_LENGTH);
  CHECK_EQ(csize, BLOSC_EXTENDED_HEADER_LENGTH);
  uint8_t *out = xmalloc(NBYTES);
  CHECK_EQ(blosc2_decompress(chunk, csize, out, snbytes), snbytes);
  double d;
  memcpy(&d, out + 8 * 123, 8);
  CHECK(d != d);
  csize = blosc2_chunk_uninit(cp, snbytes, chunk, BLOSC_EXTENDED_HEADER_LENGTH);
  CHECK_EQ(csize, BLOSC_EXTENDED_HEADER_LENGTH);
  CHECK_EQ(blosc2_decompress(chunk, csize, out, snbytes), snbytes);
  free(out);
  free(expected);

  /* Damaged input is refused. */
  memset(chunk, 0xff, 64);
  uint8_t small[64];
  CHECK(blosc2_decompress(chunk, 64, small, sizeof(small)) < 0);
  CHECK(blosc2_error_string(BLOSC2_ERROR_DATA) != NULL);

  /* The codec registry. */
  const char *complib = NULL, *version = NULL;
  CHECK_EQ(blosc2_get_complib_info("zstd", (char **)&complib, (char **)&version), BLOSC_ZSTD_LIB);
  free((void *)complib);
  free((void *)version);
  CHECK(strstr(blosc2_list_compressors(), "zstd") != NULL);
  const char *name = NULL;
  CHECK_EQ(blosc2_compcode_to_compname(BLOSC_LZ4HC, &name), BLOSC_LZ4HC);
  CHECK(name != NULL && strcmp(name, "lz4hc") == 0);

  free(src);
  free(chunk);
  printf("write: %ld round trips, %d chunk files\n", ncases, ncodecs * 9 + 2);
  return 0;
}

static int do_read(const char *dir) {
  uint8_t *src = xmalloc(NBYTES);
  fill_data(src, NBYTES, 1);
  int nfiles = 0;
  for (int c = 0; c < ncodecs; c++) {
    for (int f = 0; f < 3; f++) {
      for (int t = 0; t < 3; t++) {
        char *path = path_join(dir, chunk_name(c, f, t));
        size_t n = 0;
        uint8_t *chunk = read_file(path, &n);
        CHECK(chunk != NULL);
        if (chunk != NULL) {
          check_chunk(chunk, (int32_t)n, src, NBYTES, typesizes[t], complib_of(c));
          free(chunk);
          nfiles++;
        } else {
          fprintf(stderr, "missing %s\n", path);
        }
        free(path);
      }
    }
  }
  int32_t snbytes = (NBYTES / 8) * 8;
  uint8_t *expected = xmalloc(NBYTES);
  const char *specials[] = {"special_zeros.b2", "special_repeat.b2"};
  for (int s = 0; s < 2; s++) {
    char *path = path_join(dir, specials[s]);
    size_t n = 0;
    uint8_t *chunk = read_file(path, &n);
    CHECK(chunk != NULL);
    if (chunk != NULL) {
      double v = s == 0 ? 0.0 : 3.25;
      for (int32_t i = 0; i < snbytes / 8; i++) memcpy(expected + 8 * i, &v, 8);
      check_chunk(chunk, (int32_t)n, expected, snbytes, 8, NULL);
      free(chunk);
      nfiles++;
    }
    free(path);
  }
  free(expected);
  free(src);
  printf("read: %d chunk files checked\n", nfiles);
  return 0;
}

int main(int argc, char **argv) {
  if (argc != 3) return usage(argv[0]);
  blosc2_init();
  print_library("swapin_chunks");
  CHECK(strcmp(blosc2_get_version_string(), "3.3.5") == 0);
  int rc;
  if (strcmp(argv[1], "write") == 0) {
    rc = do_write(argv[2]);
  } else if (strcmp(argv[1], "read") == 0) {
    rc = do_read(argv[2]);
  } else {
    return usage(argv[0]);
  }
  blosc2_destroy();
  if (rc != 0) return rc;
  TEST_DONE();
}
