/* Swap-in check, super-chunks and frames: compiled against the reference
 * C-Blosc2 3.3.5 and run unchanged with either libblosc2.so.9 (see run.sh).
 *
 *   swapin_schunk write DIR   builds super-chunks in memory and on disk
 *                             (contiguous and sparse frames) with metalayers
 *                             and variable-length metalayers, checks them,
 *                             and leaves the frames in DIR
 *   swapin_schunk read DIR    opens the frames in DIR (written by either
 *                             library) and checks every chunk and metalayer
 *
 * The metalayers are read with blosc2_meta_exists/blosc2_meta_get, which the
 * header defines inline: they read struct blosc2_schunk's fields directly,
 * so they also check that the struct's layout is the reference's. */
#include "swapin_common.h"

#define NCHUNKS 10
#define CHUNK_ITEMS (50 * 1000) /* int32 items per chunk */
#define CHUNK_BYTES (CHUNK_ITEMS * (int32_t)sizeof(int32_t))
#define UPDATED_CHUNK 3

static const uint8_t meta_v1[] = {0x93, 0x01, 0x02, 0x03, 0x04}; /* msgpack-ish */
static const uint8_t meta_v2[] = {0x93, 0x05, 0x06, 0x07, 0x08}; /* same length */
static const char vlmeta_text[] = "written through the C-Blosc2 3.3.5 API";

/* Item j of chunk i; `updated` for the chunk that gets replaced. */
static int32_t item(int64_t i, int32_t j, int updated) {
  int32_t v = (int32_t)(i * 1000003 + j * 7 + (j % 13) * 100000);
  return updated ? -v : v;
}

static void fill_chunk(int32_t *buf, int64_t i, int updated) {
  for (int32_t j = 0; j < CHUNK_ITEMS; j++) buf[j] = item(i, j, updated);
}

static blosc2_cparams schunk_cparams(void) {
  blosc2_cparams cp = BLOSC2_CPARAMS_DEFAULTS;
  cp.compcode = BLOSC_ZSTD;
  cp.clevel = 5;
  cp.typesize = sizeof(int32_t);
  cp.nthreads = 2;
  cp.filters[BLOSC2_MAX_FILTERS - 1] = BLOSC_SHUFFLE;
  return cp;
}

/* A new super-chunk with the metalayer "swapin" and NCHUNKS chunks, chunk
 * UPDATED_CHUNK replaced, the metalayer updated and a vlmetalayer added. */
static blosc2_schunk *build(const char *urlpath, bool contiguous) {
  blosc2_cparams cp = schunk_cparams();
  blosc2_dparams dp = BLOSC2_DPARAMS_DEFAULTS;
  dp.nthreads = 2;
  blosc2_storage storage = BLOSC2_STORAGE_DEFAULTS;
  storage.contiguous = contiguous;
  storage.urlpath = (char *)urlpath;
  storage.cparams = &cp;
  storage.dparams = &dp;
  blosc2_schunk *schunk = blosc2_schunk_new(&storage);
  CHECK(schunk != NULL);
  if (schunk == NULL) return NULL;
  CHECK_EQ(schunk->typesize, 4);
  CHECK_EQ(schunk->compcode, BLOSC_ZSTD);
  CHECK_EQ(schunk->nchunks, 0);

  CHECK_EQ(blosc2_meta_add(schunk, "swapin", (uint8_t *)meta_v1, sizeof(meta_v1)), 0);
  CHECK_EQ(blosc2_meta_exists(schunk, "swapin"), 0);
  CHECK(blosc2_meta_exists(schunk, "absent") < 0);

  int32_t *buf = xmalloc(CHUNK_BYTES);
  for (int64_t i = 0; i < NCHUNKS; i++) {
    fill_chunk(buf, i, 0);
    CHECK_EQ(blosc2_schunk_append_buffer(schunk, buf, CHUNK_BYTES), i + 1);
  }
  CHECK_EQ(schunk->nchunks, NCHUNKS);
  CHECK_EQ(schunk->nbytes, (int64_t)NCHUNKS * CHUNK_BYTES);
  CHECK(schunk->cbytes > 0 && schunk->cbytes < schunk->nbytes);

  /* Replace one chunk with a chunk compressed outside. */
  fill_chunk(buf, UPDATED_CHUNK, 1);
  uint8_t *chunk = xmalloc(CHUNK_BYTES + BLOSC2_MAX_OVERHEAD);
  blosc2_context *cctx = blosc2_create_cctx(cp);
  int csize = blosc2_compress_ctx(cctx, buf, CHUNK_BYTES, chunk, CHUNK_BYTES + BLOSC2_MAX_OVERHEAD);
  blosc2_free_ctx(cctx);
  CHECK(csize > 0);
  CHECK_EQ(blosc2_schunk_update_chunk(schunk, UPDATED_CHUNK, chunk, true), NCHUNKS);
  free(chunk);
  free(buf);

  CHECK_EQ(blosc2_meta_update(schunk, "swapin", (uint8_t *)meta_v2, sizeof(meta_v2)), 0);
  CHECK(blosc2_vlmeta_add(schunk, "note", (uint8_t *)vlmeta_text, sizeof(vlmeta_text), NULL) >= 0);
  return schunk;
}

/* Everything build() put in, read back. */
static void verify(blosc2_schunk *schunk, const char *what) {
  CHECK(schunk != NULL);
  if (schunk == NULL) {
    fprintf(stderr, "%s: no super-chunk\n", what);
    return;
  }
  int before = capi_failures;
  CHECK_EQ(schunk->nchunks, NCHUNKS);
  CHECK_EQ(schunk->typesize, 4);
  CHECK_EQ(schunk->compcode, BLOSC_ZSTD);
  CHECK_EQ(schunk->chunksize, CHUNK_BYTES);
  CHECK_EQ(schunk->nbytes, (int64_t)NCHUNKS * CHUNK_BYTES);

  int32_t *expected = xmalloc(CHUNK_BYTES);
  int32_t *out = xmalloc(CHUNK_BYTES);
  for (int64_t i = 0; i < NCHUNKS; i++) {
    fill_chunk(expected, i, i == UPDATED_CHUNK);
    memset(out, 0, CHUNK_BYTES);
    CHECK_EQ(blosc2_schunk_decompress_chunk(schunk, i, out, CHUNK_BYTES), CHUNK_BYTES);
    CHECK(memcmp(out, expected, CHUNK_BYTES) == 0);

    uint8_t *chunk = NULL;
    bool needs_free = false;
    int csize = blosc2_schunk_get_chunk(schunk, i, &chunk, &needs_free);
    CHECK(csize > 0 && chunk != NULL);
    if (csize > 0 && chunk != NULL) {
      int32_t nbytes = 0, cbytes = 0, blocksize = 0;
      CHECK_EQ(blosc2_cbuffer_sizes(chunk, &nbytes, &cbytes, &blocksize), 0);
      CHECK_EQ(nbytes, CHUNK_BYTES);
      CHECK_EQ(cbytes, csize);
      memset(out, 0, CHUNK_BYTES);
      CHECK_EQ(blosc2_decompress(chunk, csize, out, CHUNK_BYTES), CHUNK_BYTES);
      CHECK(memcmp(out, expected, CHUNK_BYTES) == 0);
    }
    if (needs_free) free(chunk);
  }
  free(out);
  free(expected);

  /* A slice across the boundary of chunks 2 and 3 (the updated one). */
  int64_t start = 3 * (int64_t)CHUNK_ITEMS - 10, stop = 3 * (int64_t)CHUNK_ITEMS + 10;
  int32_t slice[20];
  CHECK_EQ(blosc2_schunk_get_slice_buffer(schunk, start, stop, slice), 0);
  for (int k = 0; k < 20; k++) {
    int64_t n = start + k;
    CHECK_EQ(slice[k], item(n / CHUNK_ITEMS, (int32_t)(n % CHUNK_ITEMS), n / CHUNK_ITEMS == UPDATED_CHUNK));
  }

  /* The metalayer, through the header's inline functions. */
  CHECK_EQ(schunk->nmetalayers, 1);
  CHECK_EQ(blosc2_meta_exists(schunk, "swapin"), 0);
  uint8_t *content = NULL;
  int32_t len = 0;
  CHECK_EQ(blosc2_meta_get(schunk, "swapin", &content, &len), 0);
  CHECK_EQ(len, sizeof(meta_v2));
  CHECK(content != NULL && memcmp(content, meta_v2, sizeof(meta_v2)) == 0);
  free(content);

  /* The variable-length metalayer. */
  CHECK_EQ(schunk->nvlmetalayers, 1);
  CHECK(blosc2_vlmeta_exists(schunk, "note") >= 0);
  content = NULL;
  len = 0;
  CHECK(blosc2_vlmeta_get(schunk, "note", &content, &len) >= 0);
  CHECK_EQ(len, sizeof(vlmeta_text));
  CHECK(content != NULL && memcmp(content, vlmeta_text, sizeof(vlmeta_text)) == 0);
  free(content);

  if (capi_failures != before) fprintf(stderr, "%s: %d check(s) failed\n", what, capi_failures - before);
}

static int do_write(const char *dir) {
  /* In memory: build, check, serialize to a contiguous frame, read back. */
  blosc2_schunk *mem = build(NULL, false);
  verify(mem, "in-memory super-chunk");
  uint8_t *cframe = NULL;
  bool needs_free = false;
  int64_t cframe_len = blosc2_schunk_to_buffer(mem, &cframe, &needs_free);
  CHECK(cframe_len > 0 && cframe != NULL);
  if (cframe_len > 0) {
    blosc2_schunk *copy = blosc2_schunk_from_buffer(cframe, cframe_len, true);
    verify(copy, "super-chunk from blosc2_schunk_to_buffer");
    if (copy != NULL) blosc2_schunk_free(copy);
    char *path = path_join(dir, "cframe.b2frame");
    write_file(path, cframe, (size_t)cframe_len);
    free(path);
  }
  if (needs_free) free(cframe);
  if (mem != NULL) blosc2_schunk_free(mem);

  /* On disk: a contiguous frame and a sparse one, closed and reopened. */
  const char *names[] = {"contiguous.b2frame", "sparse.b2frame"};
  for (int k = 0; k < 2; k++) {
    char *path = path_join(dir, names[k]);
    blosc2_schunk *disk = build(path, k == 0);
    verify(disk, names[k]);
    if (disk != NULL) blosc2_schunk_free(disk);
    blosc2_schunk *reopened = blosc2_schunk_open(path);
    verify(reopened, path);
    if (reopened != NULL) {
      CHECK(reopened->storage != NULL && reopened->storage->contiguous == (k == 0));
      blosc2_schunk_free(reopened);
    }
    free(path);
  }
  printf("write: in-memory super-chunk, cframe.b2frame, contiguous.b2frame, sparse.b2frame\n");
  return 0;
}

static int do_read(const char *dir) {
  const char *names[] = {"cframe.b2frame", "contiguous.b2frame", "sparse.b2frame"};
  for (int k = 0; k < 3; k++) {
    char *path = path_join(dir, names[k]);
    blosc2_schunk *schunk = blosc2_schunk_open(path);
    verify(schunk, path);
    if (schunk != NULL) blosc2_schunk_free(schunk);
    free(path);
  }
  /* The in-memory frame, from a buffer too. */
  char *path = path_join(dir, "cframe.b2frame");
  size_t n = 0;
  uint8_t *cframe = read_file(path, &n);
  CHECK(cframe != NULL);
  if (cframe != NULL) {
    blosc2_schunk *schunk = blosc2_schunk_from_buffer(cframe, (int64_t)n, false);
    verify(schunk, "cframe.b2frame from a buffer");
    if (schunk != NULL) blosc2_schunk_free(schunk);
    free(cframe);
  }
  free(path);
  printf("read: cframe.b2frame, contiguous.b2frame, sparse.b2frame\n");
  return 0;
}

int main(int argc, char **argv) {
  if (argc != 3) return usage(argv[0]);
  blosc2_init();
  print_library("swapin_schunk");
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
