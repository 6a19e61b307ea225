/* Version, codec names and libraries, error strings, timestamps, the
 * default parameter getters and the context parameter getters. */
#include "blosc2.h"
#include "capi_check.h"

static const char *expected_errors[] = {
    "Unknown error", "Generic failure", "Bad stream", "Invalid data", "Memory alloc/realloc failure",
    "Not enough space to read", "Not enough space to write", "Codec not supported",
    "Invalid parameter supplied to codec", "Codec dictionary error", "Version not supported",
    "Invalid value in header", "Invalid parameter supplied to function", "File read failure",
    "File write failure", "File open failure", "Not found", "Bad run length encoding", "Filter pipeline error",
    "Chunk insert failure", "Chunk append failure", "Chunk update failure", "Sizes larger than 2gb not supported",
    "Super-chunk copy failure", "Wrong type for frame", "File truncate failure",
    "Thread or thread context creation failure", "Postfilter failure", "Special frame failure",
    "Special super-chunk failure", "IO plugin error", "Remove file failure", "Pointer is null", "Invalid index",
    "Metalayer has not been found", "Maximum buffersize exceeded", "Tuner failure", "Frame lock failure",
};

int main(void) {
  CHECK(strcmp(blosc2_get_version_string(), BLOSC2_VERSION_STRING) == 0);
  CHECK(strcmp(blosc2_get_version_string(), "3.3.5") == 0);
  CHECK(strcmp(blosc2_list_compressors(), "blosclz,lz4,lz4hc,zlib,zstd") == 0);

  const char *names[] = {BLOSC_BLOSCLZ_COMPNAME, BLOSC_LZ4_COMPNAME, BLOSC_LZ4HC_COMPNAME, BLOSC_ZLIB_COMPNAME,
                         BLOSC_ZSTD_COMPNAME};
  const int codes[] = {BLOSC_BLOSCLZ, BLOSC_LZ4, BLOSC_LZ4HC, BLOSC_ZLIB, BLOSC_ZSTD};
  const char *libs[] = {BLOSC_BLOSCLZ_LIBNAME, BLOSC_LZ4_LIBNAME, BLOSC_LZ4_LIBNAME, BLOSC_ZLIB_LIBNAME,
                        BLOSC_ZSTD_LIBNAME};
  const int libcodes[] = {BLOSC_BLOSCLZ_LIB, BLOSC_LZ4_LIB, BLOSC_LZ4_LIB, BLOSC_ZLIB_LIB, BLOSC_ZSTD_LIB};
  for (int i = 0; i < 5; i++) {
    const char *name = NULL;
    CHECK_EQ(blosc2_compcode_to_compname(codes[i], &name), codes[i]);
    CHECK(name != NULL && strcmp(name, names[i]) == 0);
    CHECK_EQ(blosc2_compname_to_compcode(names[i]), codes[i]);
    char *lib = NULL, *ver = NULL;
    CHECK_EQ(blosc2_get_complib_info(names[i], &lib, &ver), libcodes[i]);
    CHECK(lib != NULL && strcmp(lib, libs[i]) == 0);
    CHECK(ver != NULL && strlen(ver) > 0);
    free(lib);
    free(ver);
  }
  const char *name = "x";
  CHECK_EQ(blosc2_compcode_to_compname(3, &name), -1);
  CHECK(name == NULL);
  CHECK_EQ(blosc2_compname_to_compcode("LZ4"), -1);

  for (int code = 0; code >= -37; code--) {
    CHECK(strcmp(blosc2_error_string(code), expected_errors[-code]) == 0);
  }
  CHECK(strcmp(blosc2_error_string(1), "Unknown error") == 0);
  CHECK(strcmp(blosc2_error_string(-38), "Unknown error") == 0);
  CHECK(strcmp(blosc2_error_string(-1000000), "Unknown error") == 0);
  CHECK(print_error(BLOSC2_ERROR_NULL_POINTER) == blosc2_error_string(BLOSC2_ERROR_NULL_POINTER));

  blosc_timestamp_t t0, t1;
  blosc_set_timestamp(&t0);
  volatile double acc = 0;
  for (int i = 0; i < 1000000; i++) acc += i * 0.5;
  blosc_set_timestamp(&t1);
  double ns = blosc_elapsed_nsecs(t0, t1);
  double s = blosc_elapsed_secs(t0, t1);
  CHECK(ns >= 0 && s >= 0 && s < 60);
  CHECK(s * 1e9 - ns < 1 && ns - s * 1e9 < 1);
  CHECK(blosc_elapsed_nsecs(t1, t0) <= 0);

  /* Default getters equal the header's static objects. */
  blosc2_cparams cp = blosc2_get_blosc2_cparams_defaults();
  CHECK(memcmp(&cp.compcode, &BLOSC2_CPARAMS_DEFAULTS.compcode, 3) == 0);
  CHECK(cp.use_dict == 0 && cp.typesize == 8 && cp.nthreads == 1 && cp.blocksize == 0);
  CHECK(cp.splitmode == BLOSC_FORWARD_COMPAT_SPLIT && cp.schunk == NULL && cp.prefilter == NULL);
  CHECK(memcmp(cp.filters, BLOSC2_CPARAMS_DEFAULTS.filters, 6) == 0);
  CHECK(memcmp(cp.filters_meta, BLOSC2_CPARAMS_DEFAULTS.filters_meta, 6) == 0);
  CHECK(cp.tuner_id == 0 && !cp.instr_codec && cp.codec_params == NULL && cp.filter_params[5] == NULL);
  blosc2_dparams dp = blosc2_get_blosc2_dparams_defaults();
  CHECK(dp.nthreads == 1 && dp.schunk == NULL && dp.postfilter == NULL && dp.postparams == NULL && dp.typesize == 8);
  blosc2_storage st = blosc2_get_blosc2_storage_defaults();
  CHECK(!st.contiguous && st.urlpath == NULL && st.cparams == NULL && st.dparams == NULL && st.io == NULL);
  blosc2_io io = blosc2_get_blosc2_io_defaults();
  CHECK(io.id == BLOSC2_IO_FILESYSTEM && strcmp(io.name, "filesystem") == 0 && io.params == NULL);
  blosc2_stdio_mmap mm = blosc2_get_blosc2_stdio_mmap_defaults();
  CHECK(strcmp(mm.mode, BLOSC2_STDIO_MMAP_DEFAULTS.mode) == 0);
  CHECK(mm.initial_mapping_size == BLOSC2_STDIO_MMAP_DEFAULTS.initial_mapping_size);
  CHECK(mm.fd == -1 && mm.access_flags == -1 && mm.map_flags == -1 && mm.file == NULL && !mm.needs_free);

  /* Context getters return what the context was created with. */
  blosc2_cparams in = BLOSC2_CPARAMS_DEFAULTS;
  in.compcode = BLOSC_ZSTD;
  in.clevel = 7;
  in.typesize = 4;
  in.nthreads = 2;
  in.blocksize = 4096;
  in.splitmode = BLOSC_NEVER_SPLIT;
  in.filters[3] = BLOSC_DELTA;
  in.filters_meta[5] = 4;
  in.use_dict = 1;
  in.compcode_meta = 3;
  blosc2_context *cctx = blosc2_create_cctx(in);
  blosc2_cparams outp;
  memset(&outp, 0xAB, sizeof(outp));
  CHECK_EQ(blosc2_ctx_get_cparams(cctx, &outp), 0);
  CHECK(outp.compcode == BLOSC_ZSTD && outp.clevel == 7 && outp.typesize == 4 && outp.nthreads == 2);
  CHECK(outp.blocksize == 4096 && outp.splitmode == BLOSC_NEVER_SPLIT && outp.use_dict == 1);
  CHECK(outp.compcode_meta == 3 && outp.filters[3] == BLOSC_DELTA && outp.filters[5] == BLOSC_SHUFFLE);
  CHECK(outp.filters_meta[5] == 4 && outp.prefilter == NULL && outp.preparams == NULL && outp.schunk == NULL);
  blosc2_dparams dout;
  CHECK_EQ(blosc2_ctx_get_dparams(cctx, &dout), 0);
  CHECK_EQ(dout.nthreads, 2);
  blosc2_free_ctx(cctx);

  blosc2_dparams din = BLOSC2_DPARAMS_DEFAULTS;
  din.nthreads = 3;
  blosc2_context *dctx = blosc2_create_dctx(din);
  CHECK_EQ(blosc2_ctx_get_dparams(dctx, &dout), 0);
  CHECK(dout.nthreads == 3 && dout.postfilter == NULL && dout.postparams == NULL && dout.schunk == NULL);
  blosc2_free_ctx(dctx);

  /* A thread callback is accepted (and not needed). */
  blosc2_set_threads_callback(NULL, NULL);

  /* Contexts created with nthreads <= 0 work serially (as in 3.3.5). */
  blosc2_cparams bad = BLOSC2_CPARAMS_DEFAULTS;
  bad.nthreads = 0;
  cctx = blosc2_create_cctx(bad);
  CHECK(cctx != NULL);
  uint8_t src[100] = {0}, dst[200];
  CHECK_EQ(blosc2_compress_ctx(cctx, src, 100, dst, 200), BLOSC_EXTENDED_HEADER_LENGTH);
  blosc2_free_ctx(cctx);
  TEST_DONE();
}
