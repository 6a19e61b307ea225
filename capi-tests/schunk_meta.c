/* Metalayers through the header's inline blosc2_meta_exists/meta_get and
 * blosc2_meta_add/update, and variable-length metalayers, on every
 * storage, kept across copies, frame buffers and reopening. */
#include "schunk_common.h"

static void check_metas(blosc2_schunk *sc, uint8_t first) {
  CHECK_EQ(sc->nmetalayers, 2);
  CHECK_EQ(blosc2_meta_exists(sc, "shape"), 0);
  CHECK_EQ(blosc2_meta_exists(sc, "empty"), 1);
  CHECK_EQ(blosc2_meta_exists(sc, "nope"), BLOSC2_ERROR_NOT_FOUND);
  uint8_t *content = NULL;
  int32_t len = -1;
  CHECK_EQ(blosc2_meta_get(sc, "shape", &content, &len), 0);
  CHECK_EQ(len, 5);
  if (content != NULL) {
    CHECK_EQ(content[0], first);
    CHECK_EQ(content[4], 5);
    free(content);
  }
  CHECK_EQ(blosc2_meta_get(sc, "empty", &content, &len), 1);
  CHECK_EQ(len, 0);
  CHECK(content == NULL);
  CHECK(strcmp(sc->metalayers[0]->name, "shape") == 0);
  CHECK_EQ(sc->metalayers[0]->content_len, 5);
}

static void check_vlmetas(blosc2_schunk *sc) {
  CHECK_EQ(sc->nvlmetalayers, 2);
  CHECK_EQ(blosc2_vlmeta_exists(sc, "info"), 0);
  CHECK_EQ(blosc2_vlmeta_exists(sc, "big"), 1);
  CHECK_EQ(blosc2_vlmeta_exists(sc, "gone"), BLOSC2_ERROR_NOT_FOUND);
  uint8_t *content = NULL;
  int32_t len = 0;
  CHECK_EQ(blosc2_vlmeta_get(sc, "info", &content, &len), 0);
  CHECK_EQ(len, 13);
  if (content != NULL) {
    CHECK(memcmp(content, "updated value", 13) == 0);
    free(content);
  }
  CHECK_EQ(blosc2_vlmeta_get(sc, "big", &content, &len), 1);
  CHECK_EQ(len, 40000);
  if (content != NULL) {
    int ok = 1;
    for (int i = 0; i < 40000; i++) ok &= content[i] == (uint8_t)(i / 100);
    CHECK(ok);
    free(content);
  }
  char *names[2] = {NULL, NULL};
  CHECK_EQ(blosc2_vlmeta_get_names(sc, names), 2);
  CHECK(names[0] != NULL && strcmp(names[0], "info") == 0);
  CHECK(names[1] != NULL && strcmp(names[1], "big") == 0);
  /* The public entries hold the compressed contents. */
  int32_t nb, cb;
  CHECK_EQ(blosc2_cbuffer_sizes(sc->vlmetalayers[1]->content, &nb, &cb, NULL), 0);
  CHECK_EQ(nb, 40000);
  CHECK_EQ(cb, sc->vlmetalayers[1]->content_len);
}

static void run(int kind) {
  char *path = kind == 2 ? scratch_path("meta.b2frame") : kind == 3 ? scratch_path("meta_dir.b2frame") : NULL;
  blosc2_cparams cp = int32_cparams(BLOSC_ZLIB, 5);
  blosc2_storage st = {.contiguous = kind == 1 || kind == 2, .urlpath = path, .cparams = &cp};
  blosc2_schunk *sc = blosc2_schunk_new(&st);
  CHECK(sc != NULL);
  if (sc == NULL) return;
  int64_t tick = sc->change_tick;
  uint8_t shape[5] = {1, 2, 3, 4, 5};
  CHECK_EQ(blosc2_meta_add(sc, "shape", shape, 5), 0);
  CHECK_EQ(blosc2_meta_add(sc, "empty", NULL, 0), 1);
  CHECK(sc->change_tick > tick);
  CHECK_EQ(blosc2_meta_add(sc, "shape", shape, 5), BLOSC2_ERROR_INVALID_PARAM);
#ifndef CAPI_REFERENCE
  /* 3.3.5 adds it (blosc2_meta_exists refuses the name, so it is "new"). */
  CHECK(blosc2_meta_add(sc, "this-name-is-longer-than-31-chars", shape, 5) < 0);
#endif
  CHECK(blosc2_meta_add(sc, "neg", shape, -1) < 0);
  CHECK(blosc2_meta_add(sc, "nullc", NULL, 3) < 0);
  check_metas(sc, 1);

  /* Updates keep the entry (and its content pointer) in place. */
  uint8_t *before = sc->metalayers[0]->content;
  uint8_t upd[2] = {9, 9};
  tick = sc->change_tick;
  CHECK_EQ(blosc2_meta_update(sc, "shape", upd, 2), 0);
  CHECK(sc->change_tick > tick);
  CHECK(sc->metalayers[0]->content == before);
  CHECK_EQ(sc->metalayers[0]->content[0], 9);
  CHECK_EQ(sc->metalayers[0]->content[2], 3);
  CHECK_EQ(blosc2_meta_update(sc, "nope", upd, 2), BLOSC2_ERROR_NOT_FOUND);
  uint8_t back[1] = {7};
  CHECK_EQ(blosc2_meta_update(sc, "shape", back, 1), 0);
  check_metas(sc, 7);

  /* Data, then vlmetalayers. */
  int32_t buf[1000];
  fill_chunk(buf, 1000, 0);
  CHECK_EQ(blosc2_schunk_append_buffer(sc, buf, sizeof(buf)), 1);
#ifndef CAPI_REFERENCE
  /* Frames do not take new metalayers once they hold data (3.3.5 fails
     too, but leaves the metalayer added and the frame unusable). */
  if (sc->frame != NULL) CHECK(blosc2_meta_add(sc, "late", shape, 5) < 0);
#endif

  CHECK_EQ(blosc2_vlmeta_add(sc, "info", (uint8_t *)"first", 5, NULL), 0);
  uint8_t *big = xmalloc(40000);
  for (int i = 0; i < 40000; i++) big[i] = (uint8_t)(i / 100);
  blosc2_cparams vcp = BLOSC2_CPARAMS_DEFAULTS;
  vcp.typesize = 1;
  vcp.compcode = BLOSC_ZSTD;
  CHECK_EQ(blosc2_vlmeta_add(sc, "big", big, 40000, &vcp), 1);
  CHECK(sc->vlmetalayers[1]->content_len < 40000);
  CHECK_EQ(blosc2_vlmeta_add(sc, "info", big, 3, NULL), BLOSC2_ERROR_INVALID_PARAM);
  CHECK_EQ(blosc2_vlmeta_add(sc, "tmp", big, 10, NULL), 2);
  CHECK_EQ(blosc2_vlmeta_update(sc, "info", (uint8_t *)"updated value", 13, NULL), 0);
  CHECK_EQ(blosc2_vlmeta_update(sc, "absent", big, 3, NULL), BLOSC2_ERROR_NOT_FOUND);
  CHECK_EQ(blosc2_vlmeta_delete(sc, "tmp"), 2);
  CHECK_EQ(blosc2_vlmeta_delete(sc, "tmp"), BLOSC2_ERROR_NOT_FOUND);
  uint8_t *content = (uint8_t *)1;
  int32_t clen = 99;
  CHECK_EQ(blosc2_vlmeta_get(sc, "tmp", &content, &clen), BLOSC2_ERROR_NOT_FOUND);
#ifndef CAPI_REFERENCE
  /* Out-parameters are set on every path (3.3.5 leaves them). */
  CHECK(content == NULL);
  CHECK_EQ(clen, 0);
#endif
  check_vlmetas(sc);
  check_metas(sc, 7);

  /* Copies and frame buffers keep everything. */
  blosc2_storage mst = {.contiguous = true};
  blosc2_schunk *copy = blosc2_schunk_copy(sc, &mst);
  CHECK(copy != NULL);
  if (copy != NULL) {
    check_metas(copy, 7);
    check_vlmetas(copy);
    uint8_t *cframe;
    bool nf;
    int64_t len = blosc2_schunk_to_buffer(copy, &cframe, &nf);
    blosc2_schunk *fb = blosc2_schunk_from_buffer(cframe, len, true);
    CHECK(fb != NULL);
    if (fb != NULL) {
      check_metas(fb, 7);
      check_vlmetas(fb);
      CHECK(chunk_is(fb, 0, 0, 1000));
      blosc2_schunk_free(fb);
    }
    if (nf) free(cframe);
    blosc2_schunk_free(copy);
  }
  blosc2_schunk_free(sc);

  if (path != NULL) {
    sc = blosc2_schunk_open(path);
    CHECK(sc != NULL);
    if (sc != NULL) {
      check_metas(sc, 7);
      check_vlmetas(sc);
      /* Edits of an opened frame persist. */
      CHECK_EQ(blosc2_meta_update(sc, "shape", shape, 5), 0);
      CHECK_EQ(blosc2_vlmeta_update(sc, "big", big, 40000, NULL), 1);
      blosc2_schunk_free(sc);
      sc = blosc2_schunk_open(path);
      CHECK(sc != NULL);
      if (sc != NULL) {
        check_metas(sc, 1);
        check_vlmetas(sc);
        blosc2_schunk_free(sc);
      }
    }
    blosc2_remove_urlpath(path);
  }
  free(big);
}

int main(void) {
  blosc2_init();
  scratch_init("meta");
  for (int kind = 0; kind < 4; kind++) run(kind);
  scratch_done();
  blosc2_destroy();
  TEST_DONE();
}
