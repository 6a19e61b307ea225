/* The eleven blosc1_* functions and the BLOSC1_COMPAT spellings. */
#define BLOSC1_COMPAT
#include "blosc2.h"
#include "capi_check.h"

int main(void) {
  blosc_init();
  const size_t n = 100000;
  uint8_t *src = xmalloc(n);
  uint8_t *comp = xmalloc(n + BLOSC_MAX_OVERHEAD);
  uint8_t *back = xmalloc(n);
  fill_data(src, n, 11);

  /* Compressor selection. */
  CHECK(strcmp(blosc_get_compressor(), "blosclz") == 0);
  CHECK_EQ(blosc_set_compressor("zstd"), BLOSC_ZSTD);
  CHECK(strcmp(blosc_get_compressor(), "zstd") == 0);
  CHECK_EQ(blosc_set_compressor("nonexistent"), -1);
  CHECK(blosc_get_compressor() == NULL);
  CHECK_EQ(blosc_set_compressor("lz4"), BLOSC_LZ4);

  /* Block size and split mode. */
  CHECK_EQ(blosc_get_blocksize(), 0);
  blosc_set_blocksize(8192);
  CHECK_EQ(blosc_get_blocksize(), 8192);
  blosc_set_splitmode(BLOSC_NEVER_SPLIT);

  /* Threads. */
  CHECK_EQ(blosc_get_nthreads(), 1);
  CHECK_EQ(blosc_set_nthreads(2), 1);
  CHECK_EQ(blosc_get_nthreads(), 2);
  CHECK_EQ(blosc_set_nthreads(0), BLOSC2_ERROR_INVALID_PARAM);
  CHECK_EQ(blosc_get_nthreads(), 2);

  int csize = blosc_compress(5, BLOSC_SHUFFLE, 4, n, src, comp, n + BLOSC_MAX_OVERHEAD);
  CHECK(csize > 0);

  size_t nbytes, cbytes, blocksize, typesize;
  int flags;
  blosc_cbuffer_sizes(comp, &nbytes, &cbytes, &blocksize);
  CHECK_EQ(nbytes, n);
  CHECK_EQ(cbytes, csize);
  CHECK_EQ(blocksize, 8192);
  blosc_cbuffer_metainfo(comp, &typesize, &flags);
  CHECK_EQ(typesize, 4);
  CHECK((flags & 0x5) == 0x5); /* extended header */
  size_t vn = 12345;
  CHECK_EQ(blosc_cbuffer_validate(comp, (size_t)csize, &vn), 0);
  CHECK_EQ(vn, n);
  CHECK_EQ(blosc_cbuffer_validate(comp, (size_t)csize + 1, &vn), BLOSC2_ERROR_INVALID_HEADER);
  CHECK_EQ(vn, 0);
  CHECK_EQ(blosc_cbuffer_validate(comp, 10, &vn), BLOSC2_ERROR_WRITE_BUFFER);
  int version, versionlz;
  blosc_cbuffer_versions(comp, &version, &versionlz);
  CHECK_EQ(version, BLOSC2_VERSION_FORMAT_STABLE);
  CHECK_EQ(versionlz, 1);
  const char *lib = blosc_cbuffer_complib(comp);
  CHECK(lib != NULL && (strcmp(lib, "LZ4") == 0 || strcmp(lib, "BloscLZ") == 0));

  CHECK_EQ(blosc_decompress(comp, back, n), n);
  CHECK(memcmp(src, back, n) == 0);
  CHECK_EQ(blosc_decompress(comp, back, n - 1), BLOSC2_ERROR_WRITE_BUFFER);
  uint8_t items[40];
  CHECK_EQ(blosc_getitem(comp, 100, 10, items), 40);
  CHECK(memcmp(items, src + 400, 40) == 0);

  /* Delta through the global API. */
  blosc2_set_delta(1);
  csize = blosc_compress(9, BLOSC_BITSHUFFLE, 8, n, src, comp, n + BLOSC_MAX_OVERHEAD);
  CHECK(csize > 0);
  memset(back, 0, n);
  CHECK_EQ(blosc_decompress(comp, back, n), n);
  CHECK(memcmp(src, back, n) == 0);
  blosc2_set_delta(0);

  /* Names and versions. */
  const char *name = NULL;
  CHECK_EQ(blosc_compcode_to_compname(BLOSC_ZLIB, &name), BLOSC_ZLIB);
  CHECK(name != NULL && strcmp(name, "zlib") == 0);
  CHECK_EQ(blosc_compname_to_compcode("lz4hc"), BLOSC_LZ4HC);
  CHECK(strcmp(blosc_list_compressors(), "blosclz,lz4,lz4hc,zlib,zstd") == 0);
  CHECK(strcmp(blosc_get_version_string(), BLOSC_VERSION_STRING) == 0);
  char *clib = NULL, *cver = NULL;
  CHECK_EQ(blosc_get_complib_info("zstd", &clib, &cver), BLOSC_ZSTD_LIB);
  CHECK(clib != NULL && strcmp(clib, "Zstd") == 0);
  free(clib);
  free(cver);

  /* Reset the global state. */
  blosc_set_blocksize(0);
  blosc_set_splitmode(BLOSC_FORWARD_COMPAT_SPLIT);
  blosc_set_compressor("blosclz");
  CHECK_EQ(blosc_set_nthreads(1), 2);
  CHECK_EQ(blosc_free_resources(), 0);
  blosc_destroy();
  CHECK_EQ(blosc_free_resources(), BLOSC2_ERROR_FAILURE);
  free(src);
  free(comp);
  free(back);
  TEST_DONE();
}
