/* The recordio C API (blosc2/blosc2-recordio.h): reading the Go vectors,
 * writing them back byte for byte, errors with offsets, recovery, seek,
 * shards, the trailer, user transformers registered from C and the blosc2
 * transformer. RECORDIO_DIR names the vectors' directory, RECORDIO_OUT a
 * file the test may create. */
#include <stdbool.h>

#include "blosc2.h"
#include "blosc2/blosc2-recordio.h"
#include "capi_check.h"

static const char *dir;

static char *path_of(const char *name) {
  static char buf[4096];
  snprintf(buf, sizeof buf, "%s/%s", dir, name);
  return buf;
}

static uint8_t *slurp(const char *name, int64_t *len) {
  FILE *f = fopen(path_of(name), "rb");
  if (f == NULL) return NULL;
  fseek(f, 0, SEEK_END);
  long n = ftell(f);
  fseek(f, 0, SEEK_SET);
  uint8_t *buf = malloc((size_t)n);
  if (buf == NULL || fread(buf, 1, (size_t)n, f) != (size_t)n) {
    fclose(f);
    free(buf);
    return NULL;
  }
  fclose(f);
  *len = n;
  return buf;
}

typedef struct {
  uint64_t blocks[16];
  int64_t items[16];
  int n;
} index_log;

static int on_index(void *user, uint64_t block, int64_t item, const uint8_t *data, int64_t len) {
  index_log *log = user;
  (void)data;
  (void)len;
  if (log->n < 16) {
    log->blocks[log->n] = block;
    log->items[log->n] = item;
  }
  log->n++;
  return 0;
}

static void read_basic(void) {
  blosc2_recordio_scanner *s = NULL;
  CHECK_EQ(blosc2_recordio_scanner_open(path_of("v2_basic.rio"), 0, &s), 0);
  CHECK(s != NULL);
  CHECK_EQ(blosc2_recordio_scanner_format(s), BLOSC2_RECORDIO_FORMAT_V2);
  CHECK_EQ(blosc2_recordio_scanner_header_count(s), 6);
  const char *key, *sval;
  int type;
  int64_t ival;
  uint64_t uval;
  CHECK_EQ(blosc2_recordio_scanner_header_entry(s, 0, &key, &type, &ival, &uval, &sval), 0);
  CHECK(strcmp(key, "trailer") == 0);
  CHECK_EQ(type, BLOSC2_RECORDIO_BOOL);
  CHECK_EQ(ival, 1);
  CHECK_EQ(blosc2_recordio_scanner_header_entry(s, 1, &key, &type, NULL, NULL, &sval), 0);
  CHECK(strcmp(key, "hh0") == 0 && strcmp(sval, "vv0") == 0);
  CHECK_EQ(type, BLOSC2_RECORDIO_STRING);
  CHECK_EQ(blosc2_recordio_scanner_header_entry(s, 2, &key, &type, &ival, NULL, NULL), 0);
  CHECK_EQ(type, BLOSC2_RECORDIO_INT);
  CHECK_EQ(ival, 12345);
  CHECK_EQ(blosc2_recordio_scanner_header_entry(s, 3, &key, &type, NULL, &uval, NULL), 0);
  CHECK_EQ(type, BLOSC2_RECORDIO_UINT);
  CHECK_EQ(uval, 234);
  CHECK_EQ(blosc2_recordio_scanner_header_entry(s, 4, NULL, &type, &ival, NULL, NULL), 0);
  CHECK_EQ(ival, -3);
  CHECK(blosc2_recordio_scanner_header_entry(s, 6, &key, NULL, NULL, NULL, NULL) < 0);

  const char *want[] = {"F0", "F1", "F2", "F3"};
  const uint64_t want_block[] = {32768, 32768, 65536, 98304};
  const int64_t want_item[] = {0, 1, 0, 0};
  const uint8_t *item;
  int64_t len;
  for (int i = 0; i < 4; i++) {
    CHECK_EQ(blosc2_recordio_scanner_next(s, &item, &len), 1);
    CHECK_EQ(len, 2);
    CHECK(memcmp(item, want[i], 2) == 0);
    uint64_t block;
    int64_t idx;
    CHECK_EQ(blosc2_recordio_scanner_location(s, &block, &idx), 0);
    CHECK_EQ(block, want_block[i]);
    CHECK_EQ(idx, want_item[i]);
  }
  CHECK_EQ(blosc2_recordio_scanner_next(s, &item, &len), 0);

  uint8_t *trailer = NULL;
  int64_t tlen = 0;
  CHECK_EQ(blosc2_recordio_scanner_trailer(s, &trailer, &tlen), 1);
  CHECK_EQ(tlen, 8);
  CHECK(trailer != NULL && memcmp(trailer, "Trailer2", 8) == 0);
  free(trailer);

  CHECK_EQ(blosc2_recordio_scanner_seek(s, 32768, 1), 0);
  CHECK_EQ(blosc2_recordio_scanner_next(s, &item, &len), 1);
  CHECK(len == 2 && memcmp(item, "F1", 2) == 0);
  CHECK_EQ(blosc2_recordio_scanner_seek(s, 65536, 1), BLOSC2_ERROR_INVALID_PARAM);
  CHECK_EQ(blosc2_recordio_scanner_seek(s, 98304, 0), 0);
  CHECK_EQ(blosc2_recordio_scanner_next(s, &item, &len), 1);
  CHECK(len == 2 && memcmp(item, "F3", 2) == 0);
  blosc2_recordio_scanner_free(s);
}

static void write_basic_byte_for_byte(void) {
  index_log log = {{0}, {0}, 0};
  blosc2_recordio_writer_options opts = {NULL, 0, 0, BLOSC2_RECORDIO_KEY_TRAILER, on_index, &log};
  blosc2_recordio_writer *w = NULL;
  CHECK_EQ(blosc2_recordio_writer_new_buffer(&opts, &w), 0);
  CHECK_EQ(blosc2_recordio_writer_add_header_string(w, "hh0", "vv0"), 0);
  CHECK_EQ(blosc2_recordio_writer_add_header_int(w, "hh1", 12345), 0);
  CHECK_EQ(blosc2_recordio_writer_add_header_uint(w, "hh2", 234), 0);
  CHECK_EQ(blosc2_recordio_writer_add_header_int(w, "neg", -3), 0);
  CHECK_EQ(blosc2_recordio_writer_add_header_bool(w, "flag", false), 0);
  CHECK_EQ(blosc2_recordio_writer_append(w, "F0", 2), 0);
  CHECK_EQ(blosc2_recordio_writer_append(w, "F1", 2), 0);
  CHECK_EQ(blosc2_recordio_writer_flush(w), 0);
  CHECK_EQ(blosc2_recordio_writer_append(w, "F2", 2), 0);
  CHECK_EQ(blosc2_recordio_writer_flush(w), 0);
  CHECK_EQ(blosc2_recordio_writer_append(w, "F3", 2), 0);
  CHECK(blosc2_recordio_writer_add_header_bool(w, "late", true) < 0);
  CHECK_EQ(blosc2_recordio_writer_set_trailer(w, "Trailer2", 8), 0);
  CHECK_EQ(blosc2_recordio_writer_finish(w), 0);
  CHECK_EQ(blosc2_recordio_writer_bytes(w), 5 * 32768);
  uint8_t *buf = NULL;
  int64_t len = 0;
  CHECK_EQ(blosc2_recordio_writer_buffer(w, &buf, &len), 0);
  blosc2_recordio_writer_free(w);

  int64_t go_len = 0;
  uint8_t *go = slurp("v2_basic.rio", &go_len);
  CHECK(go != NULL);
  CHECK_EQ(len, go_len);
  CHECK(go != NULL && buf != NULL && len == go_len && memcmp(buf, go, (size_t)len) == 0);
  free(go);
  free(buf);
  CHECK_EQ(log.n, 4);
  CHECK_EQ(log.blocks[0], 32768);
  CHECK_EQ(log.items[1], 1);
  CHECK_EQ(log.blocks[2], 65536);
  CHECK_EQ(log.blocks[3], 98304);
}

static void corrupted_file(void) {
  blosc2_recordio_scanner *s = NULL;
  const uint8_t *item;
  int64_t len;
  CHECK_EQ(blosc2_recordio_scanner_open(path_of("v2_basic_corrupt_F3block.rio"), 0, &s), 0);
  for (int i = 0; i < 3; i++) CHECK_EQ(blosc2_recordio_scanner_next(s, &item, &len), 1);
  CHECK_EQ(blosc2_recordio_scanner_next(s, &item, &len), BLOSC2_ERROR_DATA);
  CHECK_EQ(blosc2_recordio_last_error_offset(), 98304);
  CHECK(strstr(blosc2_recordio_last_error(), "98304") != NULL);
  CHECK(strstr(blosc2_recordio_last_error(), "checksum") != NULL);
  CHECK_EQ(blosc2_recordio_scanner_next(s, &item, &len), BLOSC2_ERROR_DATA);
  blosc2_recordio_scanner_free(s);

  CHECK_EQ(blosc2_recordio_scanner_open(path_of("v2_basic_corrupt_F3block.rio"), BLOSC2_RECORDIO_RECOVER, &s), 0);
  int n = 0;
  while (blosc2_recordio_scanner_next(s, &item, &len) == 1) n++;
  CHECK_EQ(n, 3);
  CHECK_EQ(blosc2_recordio_scanner_nskipped(s), 1);
  uint64_t off, skipped;
  int code;
  CHECK_EQ(blosc2_recordio_scanner_skipped(s, 0, &off, &skipped, &code), 0);
  CHECK_EQ(off, 98304);
  CHECK_EQ(skipped, 32768);
  CHECK_EQ(code, BLOSC2_ERROR_DATA);
  CHECK(blosc2_recordio_scanner_skipped(s, 1, &off, &skipped, &code) < 0);
  uint8_t *t = NULL;
  int64_t tlen;
  CHECK_EQ(blosc2_recordio_scanner_trailer(s, &t, &tlen), 1);
  free(t);
  blosc2_recordio_scanner_free(s);
}

static int xor_cb(void *user, const char *config, const uint8_t *const *parts, const int64_t *lens, int nparts,
                  uint8_t **out, int64_t *outlen) {
  int *calls = user;
  (*calls)++;
  int key = atoi(config);
  int64_t total = 0;
  for (int i = 0; i < nparts; i++) total += lens[i];
  uint8_t *o = malloc(total > 0 ? (size_t)total : 1);
  if (o == NULL) return -1;
  int64_t k = 0;
  for (int i = 0; i < nparts; i++)
    for (int64_t j = 0; j < lens[i]; j++) o[k++] = parts[i][j] ^ (uint8_t)key;
  *out = o;
  *outlen = total;
  return 0;
}

static int failing_cb(void *user, const char *config, const uint8_t *const *parts, const int64_t *lens, int nparts,
                      uint8_t **out, int64_t *outlen) {
  (void)user, (void)config, (void)parts, (void)lens, (void)nparts, (void)out, (void)outlen;
  return 42;
}

static void transformers(const char *out_path) {
  int calls = 0;
  CHECK_EQ(blosc2_recordio_register_transformer("cxor", xor_cb, xor_cb, &calls), 0);
  CHECK(blosc2_recordio_register_transformer("cxor", xor_cb, xor_cb, &calls) < 0);
  CHECK(blosc2_recordio_register_transformer("zstd", xor_cb, xor_cb, NULL) < 0);
  CHECK_EQ(blosc2_recordio_register_transformer("cfail", failing_cb, failing_cb, NULL), 0);

  const char *chains[][2] = {
      {"cxor 7", "blosc2 codec=lz4,typesize=4,filter=shuffle"},
      {"blosc2 codec=zstd clevel=9 format=frame chunksize=5000", "cxor 200"},
      {"flate 6", "zstd 3"},
  };
  for (int c = 0; c < 3; c++) {
    blosc2_recordio_writer_options opts = {chains[c], 2, 10, BLOSC2_RECORDIO_KEY_TRAILER, NULL, NULL};
    blosc2_recordio_writer *w = NULL;
    CHECK_EQ(blosc2_recordio_writer_open(out_path, &opts, &w), 0);
    CHECK_EQ(blosc2_recordio_writer_add_header_string(w, "chain", chains[c][0]), 0);
    uint32_t data[3000];
    for (int i = 0; i < 100; i++) {
      for (int j = 0; j < 3000; j++) data[j] = (uint32_t)(i * 7 + j / 10);
      CHECK_EQ(blosc2_recordio_writer_append(w, data, (int64_t)(i * 30) * 4), 0);
    }
    CHECK_EQ(blosc2_recordio_writer_set_trailer(w, "idx", 3), 0);
    CHECK_EQ(blosc2_recordio_writer_finish(w), 0);
    CHECK(blosc2_recordio_writer_buffer(w, NULL, NULL) < 0);
    blosc2_recordio_writer_free(w);

    blosc2_recordio_scanner *s = NULL;
    CHECK_EQ(blosc2_recordio_scanner_open(out_path, 0, &s), 0);
    const char *key, *sval;
    CHECK_EQ(blosc2_recordio_scanner_header_entry(s, 0, &key, NULL, NULL, NULL, &sval), 0);
    CHECK(strcmp(key, "transformer") == 0 && strcmp(sval, chains[c][0]) == 0);
    const uint8_t *item;
    int64_t len;
    int n = 0;
    while (blosc2_recordio_scanner_next(s, &item, &len) == 1) {
      for (int j = 0; j < 3000; j++) data[j] = (uint32_t)(n * 7 + j / 10);
      CHECK_EQ(len, (int64_t)(n * 30) * 4);
      CHECK(memcmp(item, data, (size_t)len) == 0);
      n++;
    }
    CHECK_EQ(n, 100);
    uint8_t *t = NULL;
    int64_t tlen;
    CHECK_EQ(blosc2_recordio_scanner_trailer(s, &t, &tlen), 1);
    CHECK(tlen == 3 && memcmp(t, "idx", 3) == 0);
    free(t);
    blosc2_recordio_scanner_free(s);

    // Two shards read the same items.
    int total = 0;
    for (int shard = 0; shard < 2; shard++) {
      CHECK_EQ(blosc2_recordio_scanner_open_shard(out_path, 0, shard, shard + 1, 2, &s), 0);
      while (blosc2_recordio_scanner_next(s, &item, &len) == 1) total++;
      blosc2_recordio_scanner_free(s);
    }
    CHECK_EQ(total, 100);
  }
  CHECK(calls > 0);

  // A failing transformer stops the writer; an unknown one fails at creation.
  const char *fail_chain[] = {"cfail"};
  blosc2_recordio_writer_options opts = {fail_chain, 1, 0, 0, NULL, NULL};
  blosc2_recordio_writer *w = NULL;
  CHECK_EQ(blosc2_recordio_writer_new_buffer(&opts, &w), 0);
  CHECK_EQ(blosc2_recordio_writer_append(w, "x", 1), 0);
  CHECK(blosc2_recordio_writer_flush(w) < 0);
  CHECK(strstr(blosc2_recordio_last_error(), "42") != NULL);
  blosc2_recordio_writer_free(w);
  const char *unknown[] = {"nosuch 1"};
  opts.transformers = unknown;
  w = NULL;
  CHECK_EQ(blosc2_recordio_writer_new_buffer(&opts, &w), BLOSC2_ERROR_NOT_FOUND);
  CHECK(w == NULL);
  const char *badcfg[] = {"blosc2 codec=nope"};
  opts.transformers = badcfg;
  CHECK_EQ(blosc2_recordio_writer_new_buffer(&opts, &w), BLOSC2_ERROR_INVALID_PARAM);

  CHECK_EQ(blosc2_recordio_unregister_transformer("cxor"), 0);
  CHECK_EQ(blosc2_recordio_unregister_transformer("cfail"), 0);
  CHECK(blosc2_recordio_unregister_transformer("cxor") < 0);
  CHECK(blosc2_recordio_unregister_transformer("blosc2") < 0);
}

static void legacy_and_buffers(void) {
  blosc2_recordio_scanner *s = NULL;
  const uint8_t *item;
  int64_t len;
  CHECK_EQ(blosc2_recordio_scanner_open(path_of("legacy_packed.grail-rpk"), 0, &s), 0);
  CHECK_EQ(blosc2_recordio_scanner_format(s), BLOSC2_RECORDIO_FORMAT_LEGACY);
  CHECK_EQ(blosc2_recordio_scanner_header_count(s), 0);
  int n = 0;
  while (blosc2_recordio_scanner_next(s, &item, &len) == 1) n++;
  CHECK_EQ(n, 5);
  uint8_t *t = (uint8_t *)1;
  int64_t tlen = -1;
  CHECK_EQ(blosc2_recordio_scanner_trailer(s, &t, &tlen), 0);
  blosc2_recordio_scanner_free(s);

  int64_t flen = 0;
  uint8_t *file = slurp("v2_zstd.rio", &flen);
  CHECK(file != NULL);
  CHECK_EQ(blosc2_recordio_scanner_open_buffer(file, flen, 0, NULL, &s), 0);
  n = 0;
  while (blosc2_recordio_scanner_next(s, &item, &len) == 1) {
    CHECK_EQ(len, 100 + n);
    CHECK_EQ(item[0], 'A' + n % 26);
    n++;
  }
  CHECK_EQ(n, 300);
  blosc2_recordio_scanner_free(s);
  // Truncated in the middle of a chunk: an error, not a crash.
  CHECK_EQ(blosc2_recordio_scanner_open_buffer(file, flen - 100, 0, NULL, &s), 0);
  int rc;
  while ((rc = blosc2_recordio_scanner_next(s, &item, &len)) == 1) {
  }
  CHECK(rc < 0);
  blosc2_recordio_scanner_free(s);
  CHECK(blosc2_recordio_scanner_open_buffer(file, 5, 0, NULL, &s) < 0);
  free(file);
}

static void null_arguments(void) {
  blosc2_recordio_writer_free(NULL);
  blosc2_recordio_scanner_free(NULL);
  blosc2_recordio_scanner *s = NULL;
  blosc2_recordio_writer *w = NULL;
  CHECK_EQ(blosc2_recordio_scanner_open(NULL, 0, &s), BLOSC2_ERROR_NULL_POINTER);
  CHECK_EQ(blosc2_recordio_scanner_open(path_of("v2_basic.rio"), 0, NULL), BLOSC2_ERROR_NULL_POINTER);
  CHECK_EQ(blosc2_recordio_scanner_open(path_of("no-such-file"), 0, &s), BLOSC2_ERROR_FILE_OPEN);
  CHECK_EQ(blosc2_recordio_scanner_open_shard(path_of("v2_basic.rio"), 0, 1, 1, 2, &s), BLOSC2_ERROR_INVALID_PARAM);
  CHECK_EQ(blosc2_recordio_scanner_next(NULL, NULL, NULL), BLOSC2_ERROR_NULL_POINTER);
  CHECK_EQ(blosc2_recordio_scanner_seek(NULL, 0, 0), BLOSC2_ERROR_NULL_POINTER);
  CHECK(blosc2_recordio_scanner_header_count(NULL) < 0);
  CHECK_EQ(blosc2_recordio_writer_append(NULL, "x", 1), BLOSC2_ERROR_NULL_POINTER);
  CHECK_EQ(blosc2_recordio_writer_new_buffer(NULL, &w), 0);
  CHECK_EQ(blosc2_recordio_writer_append(w, NULL, 3), BLOSC2_ERROR_NULL_POINTER);
  CHECK_EQ(blosc2_recordio_writer_append(w, "x", -1), BLOSC2_ERROR_INVALID_PARAM);
  CHECK_EQ(blosc2_recordio_writer_append(w, NULL, 0), 0);
  CHECK(blosc2_recordio_writer_set_trailer(w, "t", 1) < 0); /* no trailer key */
  CHECK_EQ(blosc2_recordio_writer_add_header_string(w, "k", NULL), BLOSC2_ERROR_NULL_POINTER);
  CHECK_EQ(blosc2_recordio_writer_finish(w), 0);
  uint8_t *buf;
  int64_t len;
  CHECK_EQ(blosc2_recordio_writer_buffer(w, &buf, &len), 0);
  CHECK_EQ(len, 2 * 32768);
  free(buf);
  blosc2_recordio_writer_free(w);
  CHECK(blosc2_recordio_register_transformer(NULL, xor_cb, xor_cb, NULL) < 0);
  CHECK(blosc2_recordio_register_transformer("x", NULL, xor_cb, NULL) < 0);
  CHECK(blosc2_recordio_register_transformer("a b", xor_cb, xor_cb, NULL) < 0);
}

int main(void) {
  dir = getenv("RECORDIO_DIR");
  const char *out = getenv("RECORDIO_OUT");
  if (dir == NULL || out == NULL) {
    fprintf(stderr, "RECORDIO_DIR and RECORDIO_OUT must be set\n");
    return 1;
  }
  read_basic();
  write_basic_byte_for_byte();
  corrupted_file();
  transformers(out);
  legacy_and_buffers();
  null_arguments();
  remove(out);
  TEST_DONE();
}
