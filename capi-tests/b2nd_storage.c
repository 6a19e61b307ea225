/* b2nd arrays and their storage through the C API: frames in memory
 * (to_cframe, from_cframe), files and sparse directories (save, open,
 * open_offset, save_append), arrays over existing super-chunks
 * (from_schunk), user metalayers and vlmetalayers, and refresh between
 * two handles of one file. */
#include "b2nd_common.h"

static const int64_t shape[3] = {9, 10, 11};
static const int32_t chunks[3] = {4, 5, 6};
static const int32_t blocks[3] = {2, 3, 3};
enum { NBYTES = 9 * 10 * 11 * 4 };

static b2nd_array_t *make_array(const char *path, bool contiguous, uint8_t *model, uint32_t seed) {
  b2nd_context_t *ctx = make_ctx(3, shape, chunks, blocks, 4, path, contiguous);
  CHECK(ctx != NULL);
  fill_bytes(model, NBYTES, seed);
  b2nd_array_t *a = NULL;
  CHECK_EQ(b2nd_from_cbuffer(ctx, &a, model, NBYTES), 0);
  CHECK_EQ(b2nd_free_ctx(ctx), 0);
  return a;
}

static void test_cframes(void) {
  uint8_t model[NBYTES];
  for (int contiguous = 0; contiguous < 2; contiguous++) {
    b2nd_array_t *a = make_array(NULL, contiguous, model, 3);
    uint8_t *cframe;
    int64_t len;
    bool needs_free;
    CHECK_EQ(b2nd_to_cframe(a, &cframe, &len, &needs_free), 0);
    CHECK(len > 0);
    /* An in-memory contiguous array hands out its own frame. */
    CHECK_EQ(needs_free, !contiguous);
    for (int copy = 0; copy < 2; copy++) {
      b2nd_array_t *b = NULL;
      CHECK_EQ(b2nd_from_cframe(cframe, len, copy, &b), 0);
      check_public(b, 3, shape, chunks, blocks);
      CHECK(content_is(b, model));
      CHECK(b->dtype != NULL && strcmp(b->dtype, "|S4") == 0);
      CHECK_EQ(b2nd_free(b), 0);
    }
    /* Corrupted and truncated frames are errors. */
    b2nd_array_t *b = (b2nd_array_t *)1;
    CHECK(b2nd_from_cframe(cframe, len / 2, false, &b) < 0);
#ifndef CAPI_REFERENCE
    CHECK(b == NULL);
#endif
    if (needs_free) free(cframe);
    CHECK_EQ(b2nd_free(a), 0);
  }
}

static void test_files(void) {
  uint8_t model[NBYTES], model2[NBYTES];
  for (int contiguous = 0; contiguous < 2; contiguous++) {
    const char *path = scratch_path(contiguous ? "c.b2nd" : "s.b2nd");
    b2nd_array_t *a = make_array(path, contiguous, model, 5);
    CHECK_EQ(a->sc->storage->contiguous, contiguous);
    b2nd_array_t *b = NULL;
    CHECK_EQ(b2nd_open(path, &b), 0);
    CHECK(content_is(b, model));
    CHECK_EQ(b2nd_free(b), 0);
    /* save copies an in-memory array to disk. */
    b2nd_array_t *m = make_array(NULL, contiguous, model2, 6);
    const char *saved = scratch_path(contiguous ? "saved-c.b2nd" : "saved-s.b2nd");
    CHECK_EQ(b2nd_save(m, (char *)saved), 0);
    CHECK_EQ(b2nd_open(saved, &b), 0);
    CHECK(content_is(b, model2));
    CHECK_EQ(b->sc->storage->contiguous, contiguous);
    CHECK_EQ(b2nd_free(b), 0);
    CHECK_EQ(b2nd_free(m), 0);
    CHECK_EQ(b2nd_free(a), 0);
  }
  /* Missing files. */
  b2nd_array_t *b = (b2nd_array_t *)1;
  CHECK(b2nd_open(scratch_path("missing.b2nd"), &b) < 0);
#ifndef CAPI_REFERENCE
  CHECK(b == NULL);
#endif

  /* Two arrays appended to one file, opened at their offsets. */
  const char *multi = scratch_path("multi.bin");
  FILE *f = fopen(multi, "wb");
  fputs("some header bytes", f);
  fclose(f);
  b2nd_array_t *a1 = make_array(NULL, true, model, 7);
  b2nd_array_t *a2 = make_array(NULL, false, model2, 8);
  int64_t off1 = b2nd_save_append(a1, multi);
  int64_t off2 = b2nd_save_append(a2, multi);
  CHECK_EQ(off1, 17);
  CHECK(off2 > off1);
  CHECK_EQ(b2nd_open_offset(multi, &b, off1), 0);
  CHECK(content_is(b, model));
  CHECK_EQ(b2nd_free(b), 0);
  CHECK_EQ(b2nd_open_offset(multi, &b, off2), 0);
  CHECK(content_is(b, model2));
  CHECK_EQ(b2nd_free(b), 0);
  CHECK_EQ(b2nd_free(a1), 0);
  CHECK_EQ(b2nd_free(a2), 0);
}

static void test_from_schunk_and_metalayers(void) {
  uint8_t model[NBYTES];
  /* User metalayers from the context, vlmetalayers added later. */
  blosc2_metalayer metas[2];
  uint8_t c1[3] = {1, 2, 3}, c2[1] = {9};
  metas[0].name = "units";
  metas[0].content = c1;
  metas[0].content_len = 3;
  metas[1].name = "version";
  metas[1].content = c2;
  metas[1].content_len = 1;
  blosc2_cparams cp = BLOSC2_CPARAMS_DEFAULTS;
  cp.typesize = 4;
  cp.nthreads = 1;
  blosc2_storage st = BLOSC2_STORAGE_DEFAULTS;
  st.cparams = &cp;
  st.contiguous = true;
  b2nd_context_t *ctx = b2nd_create_ctx(&st, 3, shape, chunks, blocks, "<i4", 0, metas, 2);
  CHECK(ctx != NULL);
  fill_bytes(model, NBYTES, 11);
  b2nd_array_t *a;
  CHECK_EQ(b2nd_from_cbuffer(ctx, &a, model, NBYTES), 0);
  CHECK(strcmp(a->dtype, "<i4") == 0);
  CHECK_EQ(a->sc->nmetalayers, 3);
  uint8_t *content;
  int32_t clen;
  CHECK_EQ(blosc2_meta_get(a->sc, "units", &content, &clen), 1);
  CHECK_EQ(clen, 3);
  CHECK(memcmp(content, c1, 3) == 0);
  free(content);
  CHECK(blosc2_vlmeta_add(a->sc, "note", (uint8_t *)"hello", 5, NULL) >= 0);

  /* Through a frame and a plain super-chunk. */
  uint8_t *cframe;
  int64_t len;
  bool needs_free;
  CHECK_EQ(b2nd_to_cframe(a, &cframe, &len, &needs_free), 0);
  blosc2_schunk *sc = blosc2_schunk_from_buffer(cframe, len, true);
  CHECK(sc != NULL);
  b2nd_array_t *b;
  CHECK_EQ(b2nd_from_schunk(sc, &b), 0);
  CHECK(b->sc == sc);
  CHECK(content_is(b, model));
  CHECK(strcmp(b->dtype, "<i4") == 0);
  CHECK_EQ(blosc2_vlmeta_get(b->sc, "note", &content, &clen), 0);
  CHECK_EQ(clen, 5);
  free(content);
  CHECK_EQ(b2nd_free(b), 0); /* frees sc too */
  if (needs_free) free(cframe);
  CHECK_EQ(b2nd_free(a), 0);
  CHECK_EQ(b2nd_free_ctx(ctx), 0);

  /* Super-chunks without (or with a broken) b2nd metalayer. */
  blosc2_storage plain = BLOSC2_STORAGE_DEFAULTS;
  plain.cparams = &cp;
  sc = blosc2_schunk_new(&plain);
  CHECK_EQ(b2nd_from_schunk(sc, &b), BLOSC2_ERROR_METALAYER_NOT_FOUND);
  uint8_t garbage[4] = {0xc1, 0xc1, 0xc1, 0xc1};
  CHECK(blosc2_meta_add(sc, "b2nd", garbage, 4) >= 0);
  CHECK(b2nd_from_schunk(sc, &b) < 0);
  blosc2_schunk_free(sc);
  /* A metalayer whose chunk shape is zero for a non-empty dimension. */
  int64_t sh1[1] = {10};
  int32_t zero[1] = {0};
  uint8_t *smeta;
  int slen = b2nd_serialize_meta(1, sh1, zero, zero, NULL, 0, &smeta);
  sc = blosc2_schunk_new(&plain);
  CHECK(blosc2_meta_add(sc, "b2nd", smeta, slen) >= 0);
  CHECK_EQ(b2nd_from_schunk(sc, &b), BLOSC2_ERROR_INVALID_PARAM);
  blosc2_schunk_free(sc);
  free(smeta);
#ifndef CAPI_REFERENCE
  /* Overflowing shapes are refused too. */
  int64_t sh2[2] = {INT64_MAX / 3, 7};
  int32_t c2s[2] = {5, 5};
  slen = b2nd_serialize_meta(2, sh2, c2s, c2s, NULL, 0, &smeta);
  sc = blosc2_schunk_new(&plain);
  CHECK(blosc2_meta_add(sc, "b2nd", smeta, slen) >= 0);
  CHECK_EQ(b2nd_from_schunk(sc, &b), BLOSC2_ERROR_INVALID_PARAM);
  blosc2_schunk_free(sc);
  free(smeta);
  CHECK_EQ(b2nd_from_schunk(NULL, &b), BLOSC2_ERROR_NULL_POINTER);
#endif
}

static void test_refresh(void) {
  uint8_t model[NBYTES];
  const char *path = scratch_path("shared.b2nd");
  b2nd_array_t *w = make_array(path, true, model, 13);
  b2nd_array_t *r;
  CHECK_EQ(b2nd_open(path, &r), 0);
  CHECK_EQ(b2nd_refresh(r), 0);
  int64_t grown[3] = {13, 10, 11};
  CHECK_EQ(b2nd_resize(w, grown, NULL), 0);
  CHECK_EQ(w->shape[0], 13);
  /* The reader follows: explicitly... */
  CHECK_EQ(b2nd_refresh(r), 1);
  CHECK_EQ(r->shape[0], 13);
  CHECK_EQ(r->nitems, 13 * 10 * 11);
  CHECK_EQ(b2nd_refresh(r), 0);
  /* ...and implicitly, on its next read. */
  int64_t shrunk[3] = {5, 10, 11};
  CHECK_EQ(b2nd_resize(w, shrunk, NULL), 0);
  uint8_t *buf = malloc(NBYTES);
  CHECK_EQ(b2nd_to_cbuffer(r, buf, NBYTES), 0);
  CHECK_EQ(r->shape[0], 5);
  CHECK(memcmp(buf, model, 5 * 10 * 11 * 4) == 0);
  free(buf);
  CHECK_EQ(b2nd_free(r), 0);
  CHECK_EQ(b2nd_free(w), 0);
}

int main(void) {
  blosc2_init();
  scratch_init("storage");
  test_cframes();
  test_files();
  test_from_schunk_and_metalayers();
  test_refresh();
  scratch_done();
  blosc2_destroy();
  TEST_DONE();
}
