/* The c-blosc 1.21 API: every function, with the results c-blosc 1.21.3
   gives. Built against either blosc.h and run on either library. */
#include <blosc.h>

#include "check.h"

static void names_and_versions(void) {
  CHECK(strcmp(blosc_get_version_string(), "1.21.") > 0);
  CHECK(strncmp(blosc_get_version_string(), "1.21.", 5) == 0);
  const char *list = blosc_list_compressors();
  CHECK(strncmp(list, "blosclz,lz4,lz4hc,", 18) == 0);
  CHECK(strstr(list, "zlib") != NULL && strstr(list, "zstd") != NULL);

  const char *name = NULL;
  CHECK_EQ(blosc_compcode_to_compname(BLOSC_ZSTD, &name), BLOSC_ZSTD);
  CHECK(name != NULL && strcmp(name, "zstd") == 0);
  CHECK_EQ(blosc_compcode_to_compname(BLOSC_LZ4HC, &name), BLOSC_LZ4HC);
  CHECK(strcmp(name, "lz4hc") == 0);
  CHECK_EQ(blosc_compcode_to_compname(BLOSC_SNAPPY, &name), has_codec(BLOSC_SNAPPY) ? BLOSC_SNAPPY : -1);
  CHECK(name != NULL && strcmp(name, "snappy") == 0);
  CHECK_EQ(blosc_compcode_to_compname(42, &name), -1);
  CHECK(name == NULL);
  CHECK_EQ(blosc_compname_to_compcode("blosclz"), BLOSC_BLOSCLZ);
  CHECK_EQ(blosc_compname_to_compcode("zlib"), BLOSC_ZLIB);
  CHECK_EQ(blosc_compname_to_compcode("LZ4"), -1);
  CHECK_EQ(blosc_compname_to_compcode("nope"), -1);

  char *lib = NULL, *ver = NULL;
  CHECK_EQ(blosc_get_complib_info("lz4hc", &lib, &ver), BLOSC_LZ4_LIB);
  CHECK(lib != NULL && strcmp(lib, "LZ4") == 0 && ver != NULL && strlen(ver) > 0);
  free(lib);
  free(ver);
  CHECK_EQ(blosc_get_complib_info("zstd", &lib, NULL), BLOSC_ZSTD_LIB);
  CHECK(strcmp(lib, "Zstd") == 0);
  free(lib);
  lib = (char *)1;
  CHECK_EQ(blosc_get_complib_info("nope", &lib, &ver), -1);
  CHECK(lib == NULL && ver == NULL);
}

static void global_parameters(void) {
  CHECK_EQ(blosc_get_nthreads(), 1);
  CHECK_EQ(blosc_set_nthreads(2), 1);
  CHECK_EQ(blosc_get_nthreads(), 2);
  CHECK_EQ(blosc_set_nthreads(1), 2);
  CHECK(strcmp(blosc_get_compressor(), "blosclz") == 0);
  CHECK_EQ(blosc_set_compressor("zstd"), BLOSC_ZSTD);
  CHECK(strcmp(blosc_get_compressor(), "zstd") == 0);
  CHECK_EQ(blosc_set_compressor("nope"), -1);
  CHECK(blosc_get_compressor() == NULL);
  CHECK_EQ(blosc_set_compressor("blosclz"), BLOSC_BLOSCLZ);
  CHECK_EQ(blosc_get_blocksize(), 0);
  blosc_set_blocksize(4096);
  CHECK_EQ(blosc_get_blocksize(), 4096);
  blosc_set_blocksize(0);
  blosc_set_splitmode(BLOSC_FORWARD_COMPAT_SPLIT);
}

/* Compress with the global functions and check the header 1.21 writes. */
static void roundtrip(int clevel, int doshuffle, size_t typesize, size_t nbytes) {
  unsigned char *src = malloc(nbytes + 1), *back = malloc(nbytes + 1);
  size_t destsize = nbytes + BLOSC_MAX_OVERHEAD;
  unsigned char *chunk = malloc(destsize);
  fill_data(src, nbytes, (unsigned)(nbytes + typesize));
  int csize = blosc_compress(clevel, doshuffle, typesize, nbytes, src, chunk, destsize);
  CHECK(csize >= BLOSC_MIN_HEADER_LENGTH && (size_t)csize <= destsize);
  CHECK_EQ(chunk[0], BLOSC_VERSION_FORMAT);
  CHECK_EQ(chunk[1], 1);
  CHECK_EQ(chunk[3], typesize > BLOSC_MAX_TYPESIZE ? 1 : typesize);

  size_t nb = 0, cb = 0, bs = 0, ts = 0;
  blosc_cbuffer_sizes(chunk, &nb, &cb, &bs);
  CHECK_EQ(nb, nbytes);
  CHECK_EQ(cb, csize);
  CHECK(bs >= 1 && (nbytes == 0 || bs <= nbytes));
  CHECK_EQ(blosc_cbuffer_validate(chunk, (size_t)csize, &nb), 0);
  CHECK_EQ(nb, nbytes);
  CHECK_EQ(blosc_cbuffer_validate(chunk, (size_t)csize + 1, &nb), -1);
  int flags = -1, version = 0, versionlz = 0;
  blosc_cbuffer_metainfo(chunk, &ts, &flags);
  CHECK_EQ(ts, chunk[3]);
  CHECK(flags >= 0 && flags <= 7);
  CHECK_EQ((flags & BLOSC_MEMCPYED) != 0, clevel == 0 || nbytes < 128 || (size_t)csize == nbytes + 16);
  blosc_cbuffer_versions(chunk, &version, &versionlz);
  CHECK_EQ(version, 2);
  CHECK_EQ(versionlz, 1);
  CHECK(strcmp(blosc_cbuffer_complib(chunk), "BloscLZ") == 0);

  memset(back, 0xA5, nbytes + 1);
  CHECK_EQ(blosc_decompress(chunk, back, nbytes), nbytes);
  CHECK(memcmp(src, back, nbytes) == 0);
  CHECK_EQ(back[nbytes], 0xA5);
  CHECK_EQ(blosc_decompress_ctx(chunk, back, nbytes, 2), nbytes);
  CHECK(memcmp(src, back, nbytes) == 0);
  if (nbytes > 0) {
    CHECK(blosc_decompress(chunk, back, nbytes - 1) <= 0);
  }

  size_t its = chunk[3], nitems = nbytes / its;
  if (nitems >= 3) {
    int start = (int)(nitems / 3), count = (int)(nitems / 2);
    CHECK_EQ(blosc_getitem(chunk, start, count, back), (long long)count * its);
    CHECK(memcmp(back, src + start * its, count * its) == 0);
    CHECK_EQ(blosc_getitem(chunk, (int)nitems, 1, back), -1);
    CHECK_EQ(blosc_getitem(chunk, -1, 1, back), -1);
  }
  free(src);
  free(back);
  free(chunk);
}

static void compress_ctx_codecs(void) {
  size_t nbytes = 200000;
  unsigned char *src = malloc(nbytes), *back = malloc(nbytes), *chunk = malloc(nbytes + 16);
  fill_data(src, nbytes, 7);
  static const char *names[] = {"blosclz", "lz4", "lz4hc", "snappy", "zlib", "zstd"};
  static const char *libs[] = {"BloscLZ", "LZ4", "LZ4", "Snappy", "Zlib", "Zstd"};
  for (int c = 0; c < 6; c++) {
    if (!has_codec(c)) continue;
    for (int shuffle = 0; shuffle <= 2; shuffle++) {
      int csize = blosc_compress_ctx(5, shuffle, 4, nbytes, src, chunk, nbytes + 16, names[c], 0, 2);
      CHECK(csize > 16 && csize <= (int)nbytes + 16);
      CHECK(strcmp(blosc_cbuffer_complib(chunk), libs[c]) == 0);
      int flags = 0;
      size_t ts = 0;
      blosc_cbuffer_metainfo(chunk, &ts, &flags);
      CHECK_EQ(flags & (BLOSC_DOSHUFFLE | BLOSC_DOBITSHUFFLE),
               shuffle == 1 ? BLOSC_DOSHUFFLE : shuffle == 2 ? BLOSC_DOBITSHUFFLE : 0);
      CHECK_EQ(blosc_decompress_ctx(chunk, back, nbytes, 1), nbytes);
      CHECK(memcmp(src, back, nbytes) == 0);
    }
  }
  /* A forced block size is used as given when blocks are not split (zstd
     under FORWARD_COMPAT); split blocks are enlarged to 64 KiB at least. */
  int csize = blosc_compress_ctx(5, 1, 4, nbytes, src, chunk, nbytes + 16, "zstd", 10000, 1);
  size_t nb, cb, bs;
  blosc_cbuffer_sizes(chunk, &nb, &cb, &bs);
  CHECK(csize > 16);
  CHECK_EQ(bs, 10000);
  csize = blosc_compress_ctx(5, 1, 4, nbytes, src, chunk, nbytes + 16, "lz4", 10000, 1);
  blosc_cbuffer_sizes(chunk, &nb, &cb, &bs);
  CHECK(csize > 16);
  CHECK_EQ(bs, 65536);
  free(src);
  free(back);
  free(chunk);
}

static void errors(void) {
  unsigned char src[1000], chunk[1100], back[1000];
  fill_data(src, sizeof src, 3);
  /* Bad parameters, unknown codec, no room. */
  CHECK_EQ(blosc_compress(10, 1, 4, sizeof src, src, chunk, sizeof chunk), -10);
  CHECK_EQ(blosc_compress(-1, 1, 4, sizeof src, src, chunk, sizeof chunk), -10);
  CHECK_EQ(blosc_compress(5, 3, 4, sizeof src, src, chunk, sizeof chunk), -10);
  CHECK_EQ(blosc_compress(5, 1, 4, sizeof src, src, chunk, 15), 0);
  CHECK_EQ(blosc_compress(5, 1, 4, sizeof src, src, chunk, 100), 0);
  CHECK_EQ(blosc_compress_ctx(5, 1, 4, sizeof src, src, chunk, sizeof chunk, "nope", 0, 1), -5);
  /* Tiny buffers fit in a tiny destination. */
  CHECK_EQ(blosc_compress(5, 1, 4, 0, src, chunk, 16), 16);
  CHECK_EQ(blosc_decompress(chunk, back, 0), 0);
  CHECK_EQ(blosc_compress(5, 1, 4, 10, src, chunk, 26), 26);
  CHECK_EQ(blosc_decompress(chunk, back, 10), 10);
  CHECK(memcmp(src, back, 10) == 0);
  CHECK_EQ(blosc_compress(5, 1, 4, 10, src, chunk, 25), 0);

  /* Damaged headers. */
  int csize = blosc_compress(5, 1, 4, sizeof src, src, chunk, sizeof chunk);
  CHECK(csize > 16);
  unsigned char bad[1100];
  memcpy(bad, chunk, (size_t)csize);
  bad[0] = 3;
  CHECK_EQ(blosc_decompress(bad, back, sizeof back), -1);
  CHECK_EQ(blosc_getitem(bad, 0, 1, back), -9);
  size_t nb = 1, cb = 1, bs = 1;
  blosc_cbuffer_sizes(bad, &nb, &cb, &bs);
  CHECK(nb == 0 && cb == 0 && bs == 0);
  CHECK_EQ(blosc_cbuffer_validate(bad, (size_t)csize, &nb), -1);
  CHECK_EQ(blosc_cbuffer_validate(chunk, 15, &nb), -1);
  memcpy(bad, chunk, (size_t)csize);
  bad[2] |= 0x08;
  CHECK_EQ(blosc_decompress(bad, back, sizeof back), -1);
  memcpy(bad, chunk, (size_t)csize);
  bad[3] = 0;
  CHECK_EQ(blosc_decompress(bad, back, sizeof back), -1);
  CHECK_EQ(blosc_decompress(chunk, back, 999), -1);
  CHECK_EQ(blosc_decompress_ctx(chunk, back, sizeof back, 1), 1000);
}

int main(void) {
  blosc_init();
  names_and_versions();
  global_parameters();
  static const size_t sizes[] = {0, 1, 7, 100, 127, 128, 129, 1000, 4099, 40000, 65539, 300001};
  static const size_t typesizes[] = {1, 2, 3, 4, 8, 16, 17, 300};
  for (size_t s = 0; s < sizeof sizes / sizeof *sizes; s++)
    for (size_t t = 0; t < sizeof typesizes / sizeof *typesizes; t++)
      for (int shuffle = 0; shuffle <= 2; shuffle++) roundtrip(s % 4 == 0 ? 0 : 5, shuffle, typesizes[t], sizes[s]);
  blosc_set_nthreads(3);
  roundtrip(9, 1, 4, 1 << 20);
  blosc_set_nthreads(1);
  compress_ctx_codecs();
  errors();
  CHECK_EQ(blosc_free_resources(), 0);
  blosc_destroy();
  CHECK_EQ(blosc_free_resources(), -1);
  if (check_failures) {
    fprintf(stderr, "%d checks failed\n", check_failures);
    return 1;
  }
  printf("api: ok\n");
  return 0;
}
