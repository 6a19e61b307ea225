/* Metalayer and vlmetalayer edits of a file frame with chunks rewrite the
 * header and trailer where they lie, as 3.3.5 does: `cbytes` and the file
 * size do not grow with each edit. python-blosc2's proxies (RemoteArray
 * caches) record which chunks they fetched in a vlmetalayer updated after
 * every read and bound their cache by `schunk->cbytes`; an edit that grew
 * it overflowed those bounds (after 5 updates cbytes 1,039 where 3.3.5
 * reports 260).
 * With locking on (BLOSC_LOCKING=1, as python-blosc2's caches run), a
 * second handle still sees a same-sized vlmetalayer update, though the
 * header does not change then. */
#define _DEFAULT_SOURCE
#include <sys/stat.h>

#include "schunk_common.h"

#define NITEMS 20

static long long file_size(const char *path) {
  struct stat st;
  return stat(path, &st) == 0 ? (long long)st.st_size : -1;
}

static int vlmeta_byte(blosc2_schunk *sc, const char *name) {
  uint8_t *content = NULL;
  int32_t len = 0;
  if (blosc2_vlmeta_get(sc, name, &content, &len) < 0 || len != 1) {
    free(content);
    return -1;
  }
  int v = content[0];
  free(content);
  return v;
}

int main(void) {
  setenv("BLOSC_LOCKING", "1", 1);
  blosc2_init();
  scratch_init("vlmeta-in-place");
  const char *path = scratch_path("cache.b2frame");
  blosc2_cparams cp = int32_cparams(BLOSC_ZSTD, 5);
  blosc2_storage st = {.contiguous = true, .urlpath = (char *)path, .cparams = &cp};
  blosc2_schunk *sc = blosc2_schunk_new(&st);
  CHECK(sc != NULL);
  if (sc == NULL) return 1;
  uint8_t shape[4] = {1, 2, 3, 4};
  CHECK_EQ(blosc2_meta_add(sc, "shape", shape, sizeof(shape)), 0);
  int32_t buf[NITEMS];
  for (int k = 0; k < 5; k++) {
    fill_chunk(buf, NITEMS, k);
    CHECK_EQ(blosc2_schunk_append_buffer(sc, buf, sizeof(buf)), k + 1);
  }
  const int64_t cbytes = sc->cbytes;
  CHECK(cbytes > 0);

  uint8_t fetched = 0;
  CHECK(blosc2_vlmeta_add(sc, "proxy-fetched", &fetched, 1, NULL) >= 0);
  const int64_t cbytes_after_add = sc->cbytes;
  const long long size_after_add = file_size(path);
  CHECK_EQ(cbytes_after_add, cbytes);

  /* A second handle, opened now, follows later updates. */
  blosc2_schunk *reader = blosc2_schunk_open(path);
  CHECK(reader != NULL);
  if (reader == NULL) return 1;
  CHECK_EQ(vlmeta_byte(reader, "proxy-fetched"), 0);

  for (int i = 0; i < 5; i++) {
    fetched |= (uint8_t)(1u << i);
    CHECK(blosc2_vlmeta_update(sc, "proxy-fetched", &fetched, 1, NULL) >= 0);
    CHECK_EQ(sc->cbytes, cbytes);
    CHECK_EQ(file_size(path), size_after_add);
    CHECK_EQ(vlmeta_byte(reader, "proxy-fetched"), fetched);
  }

  /* Same-sized metalayer updates stay in place too. */
  shape[0] = 9;
  CHECK(blosc2_meta_update(sc, "shape", shape, sizeof(shape)) >= 0);
  CHECK_EQ(sc->cbytes, cbytes);
  CHECK_EQ(file_size(path), size_after_add);

  /* A larger vlmetalayer moves the end of the frame, not the chunks. */
  uint8_t big[300];
  memset(big, 7, sizeof(big));
  CHECK(blosc2_vlmeta_add(sc, "big", big, sizeof(big), NULL) >= 0);
  CHECK_EQ(sc->cbytes, cbytes);
  CHECK(file_size(path) > size_after_add);
  CHECK_EQ(blosc2_vlmeta_delete(sc, "big"), 1);
  CHECK_EQ(sc->cbytes, cbytes);
  CHECK_EQ(file_size(path), size_after_add);
  blosc2_schunk_free(reader);
  blosc2_schunk_free(sc);

  /* Everything reads back. */
  sc = blosc2_schunk_open(path);
  CHECK(sc != NULL);
  if (sc == NULL) return 1;
  CHECK_EQ(sc->nchunks, 5);
  CHECK_EQ(sc->cbytes, cbytes);
  CHECK_EQ(vlmeta_byte(sc, "proxy-fetched"), 0x1f);
  uint8_t *meta = NULL;
  int32_t meta_len = 0;
  CHECK_EQ(blosc2_meta_get(sc, "shape", &meta, &meta_len), 0);
  CHECK(meta_len == 4 && meta != NULL && meta[0] == 9);
  free(meta);
  for (int k = 0; k < 5; k++) {
    int32_t out[NITEMS];
    fill_chunk(buf, NITEMS, k);
    CHECK_EQ(blosc2_schunk_decompress_chunk(sc, k, out, sizeof(out)), (int)sizeof(out));
    CHECK(memcmp(out, buf, sizeof(buf)) == 0);
  }
  blosc2_schunk_free(sc);
  scratch_done();
  blosc2_destroy();
  TEST_DONE();
}
