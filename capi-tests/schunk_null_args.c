/* Bad arguments to the super-chunk API: NULL and foreign pointers, NULL
 * out-parameters, out-of-range indexes, and truncated or corrupted frames
 * from buffers and files. Everything must fail with NULL or a negative
 * code (never crash), setting every out-parameter. */
#include "schunk_common.h"

static uint8_t *sentinel(void) { return (uint8_t *)(uintptr_t)0x1234; }

/* Every entry point with a super-chunk pointer that is not one. */
static void bad_handle(blosc2_schunk *sc) {
  uint8_t *c = sentinel();
  bool nf = true;
  uint8_t buf[64] = {0};
  int64_t coords[1] = {0};
  CHECK(blosc2_schunk_append_buffer(sc, buf, 8) < 0);
  CHECK(blosc2_schunk_delete_chunk(sc, 0) < 0);
  CHECK(blosc2_schunk_decompress_chunk(sc, 0, buf, 64) < 0);
  CHECK(blosc2_schunk_get_chunk(sc, 0, &c, &nf) < 0);
  CHECK(c == NULL && !nf);
  c = sentinel();
  nf = true;
  CHECK(blosc2_schunk_get_lazychunk(sc, 0, &c, &nf) < 0);
  CHECK(c == NULL && !nf);
  blosc2_cparams *cp = (blosc2_cparams *)sentinel();
  CHECK(blosc2_schunk_get_cparams(sc, &cp) < 0);
  CHECK(cp == NULL);
  blosc2_dparams *dp = (blosc2_dparams *)sentinel();
  CHECK(blosc2_schunk_get_dparams(sc, &dp) < 0);
  CHECK(dp == NULL);
  int64_t order[1] = {0};
  CHECK(blosc2_schunk_reorder_offsets(sc, order) < 0);
  CHECK(blosc2_schunk_fill_special(sc, 10, BLOSC2_SPECIAL_ZERO, 80) < 0);
  CHECK(blosc2_schunk_get_slice_buffer(sc, 0, 1, buf) < 0);
  CHECK(blosc2_schunk_set_slice_buffer(sc, 0, 1, buf) < 0);
  CHECK(blosc2_schunk_get_sparse_buffer(sc, 1, coords, buf) < 0);
  int64_t start = 0, stop = 1;
  int64_t *idx = (int64_t *)sentinel();
  CHECK(blosc2_get_slice_nchunks(sc, &start, &stop, &idx) < 0);
  CHECK(idx == NULL);
  uint8_t *vb = sentinel();
  int32_t vbs = 5;
  CHECK(blosc2_schunk_get_vlblock(sc, 0, 0, &vb, &vbs) < 0);
  CHECK(vb == NULL && vbs == 0);
  c = sentinel();
  nf = true;
  CHECK(blosc2_schunk_to_buffer(sc, &c, &nf) < 0);
  CHECK(c == NULL && !nf);
  CHECK(blosc2_schunk_to_file(sc, scratch_path("never.b2frame")) < 0);
  CHECK(blosc2_schunk_append_file(sc, scratch_path("never.b2frame")) < 0);
  CHECK(blosc2_schunk_frame_len(sc) < 0);
  CHECK(blosc2_frame_get_offsets(sc) == NULL);
  CHECK(blosc2_schunk_lock(sc) < 0);
  CHECK(blosc2_schunk_unlock(sc) < 0);
  CHECK(blosc2_schunk_refresh(sc) < 0);
  CHECK(blosc2_schunk_copy(sc, NULL) == NULL);
  blosc2_storage st = BLOSC2_STORAGE_DEFAULTS;
  CHECK(blosc2_schunk_copy(sc, &st) == NULL);
  blosc2_schunk_avoid_cframe_free(sc, false);
  CHECK(blosc2_meta_add(sc, "m", buf, 4) < 0);
  CHECK(blosc2_meta_update(sc, "m", buf, 4) < 0);
  CHECK(blosc2_vlmeta_exists(sc, "m") < 0);
  CHECK(blosc2_vlmeta_add(sc, "m", buf, 4, NULL) < 0);
  CHECK(blosc2_vlmeta_update(sc, "m", buf, 4, NULL) < 0);
  uint8_t *content = sentinel();
  int32_t clen = 3;
  CHECK(blosc2_vlmeta_get(sc, "m", &content, &clen) < 0);
  CHECK(content == NULL && clen == 0);
  CHECK(blosc2_vlmeta_delete(sc, "m") < 0);
  char *names[1];
  CHECK(blosc2_vlmeta_get_names(sc, names) < 0);
  CHECK(blosc2_schunk_free(sc) < 0);
  CHECK(blosc2_schunk_append_chunk(sc, buf, true) < 0);
  CHECK(blosc2_schunk_insert_chunk(sc, 0, buf, true) < 0);
  CHECK(blosc2_schunk_update_chunk(sc, 0, buf, true) < 0);
}

/* NULL arguments and bad indexes with a real super-chunk. */
static void bad_args(blosc2_schunk *sc) {
  int32_t data[100];
  fill_chunk(data, 100, 0);
  CHECK(blosc2_schunk_append_buffer(sc, NULL, 400) < 0);
  CHECK(blosc2_schunk_append_buffer(sc, data, -1) < 0);
  CHECK(blosc2_schunk_append_chunk(sc, NULL, true) < 0);
  CHECK(blosc2_schunk_insert_chunk(sc, 0, NULL, true) < 0);
  CHECK(blosc2_schunk_update_chunk(sc, 0, NULL, true) < 0);
  /* A chunk whose header claims more bytes than it has is still read
     from its header; a garbage header is refused. */
  uint8_t garbage[64];
  memset(garbage, 0xEE, sizeof(garbage));
  CHECK(blosc2_schunk_append_chunk(sc, garbage, true) < 0);
  CHECK_EQ(sc->nchunks, 3);

  int64_t n = sc->nchunks;
  int64_t bad[4] = {-1, n, n + 1, INT64_MAX};
  uint8_t chunk[512];
  int cs = blosc2_compress_ctx(sc->cctx, data, sizeof(data), chunk, sizeof(chunk));
  CHECK(cs > 0);
  for (int i = 0; i < 4; i++) {
    uint8_t *c = sentinel();
    bool nf = true;
    CHECK(blosc2_schunk_get_chunk(sc, bad[i], &c, &nf) < 0);
    CHECK(c == NULL && !nf);
    c = sentinel();
    CHECK(blosc2_schunk_get_lazychunk(sc, bad[i], &c, &nf) < 0);
    CHECK(c == NULL && !nf);
    CHECK(blosc2_schunk_decompress_chunk(sc, bad[i], data, sizeof(data)) < 0);
    CHECK(blosc2_schunk_delete_chunk(sc, bad[i]) < 0);
    CHECK(blosc2_schunk_update_chunk(sc, bad[i], chunk, true) < 0);
    uint8_t *vb = sentinel();
    int32_t vbs = 1;
    CHECK(blosc2_schunk_get_vlblock(sc, bad[i], 0, &vb, &vbs) < 0);
    CHECK(vb == NULL && vbs == 0);
  }
  CHECK(blosc2_schunk_insert_chunk(sc, -1, chunk, true) < 0);
  CHECK(blosc2_schunk_insert_chunk(sc, n + 1, chunk, true) < 0);
  CHECK_EQ(sc->nchunks, n);

  CHECK(blosc2_schunk_get_chunk(sc, 0, NULL, NULL) < 0);
  bool nf;
  CHECK(blosc2_schunk_get_chunk(sc, 0, NULL, &nf) < 0);
  CHECK(blosc2_schunk_decompress_chunk(sc, 0, NULL, 4000) < 0);
  CHECK(blosc2_schunk_decompress_chunk(sc, 0, data, -5) < 0);
  CHECK(blosc2_schunk_get_cparams(sc, NULL) < 0);
  CHECK(blosc2_schunk_get_dparams(sc, NULL) < 0);
  CHECK(blosc2_schunk_reorder_offsets(sc, NULL) < 0);
  int64_t rep[3] = {0, 0, 1};
  CHECK(blosc2_schunk_reorder_offsets(sc, rep) < 0);
  int64_t oob[3] = {0, 1, 3};
  CHECK(blosc2_schunk_reorder_offsets(sc, oob) < 0);
  CHECK(blosc2_schunk_get_slice_buffer(sc, 0, 10, NULL) < 0);
  CHECK(blosc2_schunk_set_slice_buffer(sc, 0, 10, NULL) < 0);
  CHECK(blosc2_schunk_get_sparse_buffer(sc, 3, NULL, data) < 0);
  int64_t start = 0, stop = 10;
  CHECK(blosc2_get_slice_nchunks(sc, NULL, &stop, NULL) < 0);
  int64_t *idx = (int64_t *)sentinel();
  CHECK(blosc2_get_slice_nchunks(sc, NULL, &stop, &idx) < 0);
  CHECK(idx == NULL);
  start = 50;
  stop = 10;
  idx = (int64_t *)sentinel();
  CHECK(blosc2_get_slice_nchunks(sc, &start, &stop, &idx) < 0);
  CHECK(idx == NULL);
  CHECK(blosc2_schunk_to_buffer(sc, NULL, NULL) < 0);
  CHECK(blosc2_schunk_to_file(sc, NULL) < 0);
  CHECK(blosc2_schunk_append_file(sc, NULL) < 0);
  CHECK(blosc2_schunk_get_vlblock(sc, 0, 0, NULL, NULL) < 0);

  CHECK(blosc2_meta_add(sc, NULL, (uint8_t *)data, 4) < 0);
  CHECK(blosc2_meta_update(sc, NULL, (uint8_t *)data, 4) < 0);
  CHECK(blosc2_vlmeta_exists(sc, NULL) < 0);
  CHECK(blosc2_vlmeta_add(sc, NULL, (uint8_t *)data, 4, NULL) < 0);
  CHECK(blosc2_vlmeta_add(sc, "v", NULL, 4, NULL) < 0);
  CHECK(blosc2_vlmeta_add(sc, "v", (uint8_t *)data, -4, NULL) < 0);
  blosc2_cparams badcp = BLOSC2_CPARAMS_DEFAULTS;
  badcp.filters[0] = 100; /* undefined filter */
  CHECK(blosc2_vlmeta_add(sc, "v", (uint8_t *)data, 4, &badcp) < 0);
  CHECK_EQ(sc->nvlmetalayers, 0);
  CHECK(blosc2_vlmeta_update(sc, NULL, (uint8_t *)data, 4, NULL) < 0);
  CHECK(blosc2_vlmeta_get(sc, NULL, NULL, NULL) < 0);
  CHECK(blosc2_vlmeta_delete(sc, NULL) < 0);
  CHECK_EQ(blosc2_vlmeta_get_names(sc, NULL), 0);
  CHECK(blosc2_vlmeta_exists(sc, "0123456789012345678901234567890123") < 0);
  CHECK_EQ(blosc2_meta_exists(sc, NULL), BLOSC2_ERROR_INVALID_PARAM);

  /* Everything still works afterwards. */
  CHECK_EQ(sc->nchunks, 3);
  for (int i = 0; i < 3; i++) CHECK(chunk_is(sc, i, i, 1000));
}

/* Each prefix and each single-byte corruption of a frame is refused or
 * read without crashing. */
static void check_frame_variant(uint8_t *b, int64_t len, int *accepted) {
  for (int copy = 0; copy < 2; copy++) {
    blosc2_schunk *m = blosc2_schunk_from_buffer(b, len, copy);
    if (m == NULL) continue;
    (*accepted)++;
    int32_t out[1000];
    for (int64_t i = 0; i < m->nchunks && i < 10; i++) {
      (void)blosc2_schunk_decompress_chunk(m, i, out, sizeof(out));
      uint8_t *lc;
      bool nf;
      if (blosc2_schunk_get_lazychunk(m, i, &lc, &nf) > 0 && nf) free(lc);
    }
    uint8_t *content;
    int32_t clen;
    if (blosc2_vlmeta_get(m, "v", &content, &clen) >= 0) free(content);
    (void)blosc2_meta_get(m, "m", &content, &clen);
    if (blosc2_meta_exists(m, "m") >= 0) free(content);
    blosc2_schunk_free(m);
  }
}

static void corrupted_frames(void) {
  blosc2_cparams cp = int32_cparams(BLOSC_LZ4, 5);
  blosc2_storage st = {.contiguous = true, .cparams = &cp};
  blosc2_schunk *sc = blosc2_schunk_new(&st);
  uint8_t meta[4] = {1, 2, 3, 4};
  CHECK_EQ(blosc2_meta_add(sc, "m", meta, 4), 0);
  int32_t data[1000];
  for (int k = 0; k < 3; k++) {
    fill_chunk(data, 1000, k);
    CHECK_EQ(blosc2_schunk_append_buffer(sc, data, sizeof(data)), k + 1);
  }
  uint8_t zeros[BLOSC_EXTENDED_HEADER_LENGTH];
  CHECK_EQ(blosc2_chunk_zeros(cp, 4000, zeros, sizeof(zeros)), BLOSC_EXTENDED_HEADER_LENGTH);
  CHECK_EQ(blosc2_schunk_append_chunk(sc, zeros, true), 4);
  CHECK(blosc2_vlmeta_add(sc, "v", meta, 4, NULL) >= 0);
  uint8_t *cframe;
  bool nf;
  int64_t len = blosc2_schunk_to_buffer(sc, &cframe, &nf);
  CHECK(len > 0);
  uint8_t *b = xmalloc((size_t)len);
  memcpy(b, cframe, (size_t)len);
  int accepted = 0;
  /* Every truncation (as a malloc'ed buffer of exactly that size). */
  for (int64_t l = 0; l < len; l++) {
    uint8_t *t = xmalloc((size_t)(l ? l : 1));
    memcpy(t, b, (size_t)l);
    CHECK(blosc2_schunk_from_buffer(t, l, false) == NULL);
    CHECK(blosc2_schunk_from_buffer(t, l, true) == NULL);
    free(t);
  }
  /* Every byte flipped. */
  for (int64_t i = 0; i < len; i++) {
    for (int v = 0; v < 2; v++) {
      uint8_t old = b[i];
      b[i] = v ? (uint8_t)(old ^ 0xFF) : (uint8_t)(old + 1);
      check_frame_variant(b, len, &accepted);
      b[i] = old;
    }
  }
  CHECK(accepted > 0); /* corruptions of chunk payloads are accepted */
  /* Garbage of every small size. */
  uint8_t junk[256];
  memset(junk, 0xFF, sizeof(junk));
  for (int l = 0; l <= 256; l++) CHECK(blosc2_schunk_from_buffer(junk, l, false) == NULL);
  CHECK(blosc2_schunk_from_buffer(NULL, len, false) == NULL);
  CHECK(blosc2_schunk_from_buffer(b, -1, true) == NULL);

  /* The same from files: truncated and corrupted frame files. */
  char *f = scratch_path("bad.b2frame");
  for (int64_t l = 0; l < len; l += 7) {
    FILE *fp = fopen(f, "wb");
    fwrite(b, 1, (size_t)l, fp);
    fclose(fp);
    CHECK(blosc2_schunk_open(f) == NULL);
  }
  for (int64_t i = 0; i < len; i += 3) {
    b[i] ^= 0xA5;
    FILE *fp = fopen(f, "wb");
    fwrite(b, 1, (size_t)len, fp);
    fclose(fp);
    blosc2_schunk *m = blosc2_schunk_open(f);
    if (m != NULL) {
      for (int64_t k = 0; k < m->nchunks && k < 10; k++) {
        (void)blosc2_schunk_decompress_chunk(m, k, data, sizeof(data));
        uint8_t *lc;
        bool lnf;
        int lcb = blosc2_schunk_get_lazychunk(m, k, &lc, &lnf);
        if (lcb > 0) {
          (void)blosc2_decompress_ctx(m->dctx, lc, lcb, data, sizeof(data));
          if (lnf) free(lc);
        }
      }
      blosc2_schunk_free(m);
    }
    b[i] ^= 0xA5;
  }
  CHECK(blosc2_schunk_open_offset(f, -1) == NULL);
  CHECK(blosc2_schunk_open_offset(f, len + 100) == NULL);
  CHECK(blosc2_schunk_open(scratch_path("missing.b2frame")) == NULL);
  CHECK(blosc2_schunk_open(NULL) == NULL);
  CHECK(blosc2_schunk_open_udio(f, NULL) == NULL);
  blosc2_io uio = BLOSC2_IO_DEFAULTS;
  uio.id = 100; /* a user-defined backend */
  CHECK(blosc2_schunk_open_udio(f, &uio) == NULL);
  blosc2_stdio_mmap bad_mode = BLOSC2_STDIO_MMAP_DEFAULTS;
  bad_mode.mode = "q"; /* not a mode */
  blosc2_io mio = {.id = BLOSC2_IO_FILESYSTEM_MMAP, .name = "filesystem_mmap", .params = &bad_mode};
  CHECK(blosc2_schunk_open_offset_udio(f, 0, &mio) == NULL);
  mio.params = NULL; /* the mmap backend needs its struct */
  CHECK(blosc2_schunk_open_offset_udio(f, 0, &mio) == NULL);
  CHECK(blosc2_schunk_open("") == NULL);

  /* A sparse frame with a chunk file gone. */
  char *d = scratch_path("sparse_bad.b2frame");
  blosc2_storage sst = {.contiguous = false, .urlpath = d, .cparams = &cp};
  blosc2_schunk *s2 = blosc2_schunk_copy(sc, &sst);
  CHECK(s2 != NULL);
  blosc2_schunk_free(s2);
  char chunkfile[600];
  snprintf(chunkfile, sizeof(chunkfile), "%s/00000001.chunk", d);
  CHECK(remove(chunkfile) == 0);
  s2 = blosc2_schunk_open(d);
  if (s2 != NULL) {
    CHECK(blosc2_schunk_decompress_chunk(s2, 1, data, sizeof(data)) < 0);
    uint8_t *c = sentinel();
    bool cnf = true;
    CHECK(blosc2_schunk_get_chunk(s2, 1, &c, &cnf) < 0);
    CHECK(c == NULL && !cnf);
    CHECK(chunk_is(s2, 0, 0, 1000));
    blosc2_schunk_free(s2);
  }
  blosc2_remove_urlpath(d);

  if (nf) free(cframe);
  free(b);
  blosc2_schunk_free(sc);
}

int main(void) {
  /* No blosc2_init: nothing here needs it. */
  scratch_init("null");
  bad_handle(NULL);
  blosc2_schunk *fake = calloc(1, sizeof(blosc2_schunk));
  bad_handle(fake);
  memset(fake, 0xAB, sizeof(blosc2_schunk));
  bad_handle(fake);
  free(fake);

  CHECK(blosc2_schunk_new(NULL) == NULL);
  blosc2_cparams cp = BLOSC2_CPARAMS_DEFAULTS;
  cp.filters[0] = 100; /* undefined */
  blosc2_storage st = {.cparams = &cp};
  CHECK(blosc2_schunk_new(&st) == NULL);
  blosc2_io io = BLOSC2_IO_DEFAULTS;
  io.id = 200; /* unknown backend */
  blosc2_storage st2 = {.io = &io};
  CHECK(blosc2_schunk_new(&st2) == NULL);
  blosc2_storage st3 = {.contiguous = true, .urlpath = ""};
  CHECK(blosc2_schunk_new(&st3) == NULL);

  for (int kind = 0; kind < 4; kind++) {
    char *path = kind == 2 ? scratch_path("args.b2frame") : kind == 3 ? scratch_path("args_dir.b2frame") : NULL;
    blosc2_cparams icp = int32_cparams(BLOSC_BLOSCLZ, 5);
    blosc2_storage s = {.contiguous = kind == 1 || kind == 2, .urlpath = path, .cparams = &icp};
    blosc2_schunk *sc = make_schunk(&s, 3, 1000);
    CHECK(sc != NULL);
    if (sc != NULL) {
      bad_args(sc);
      CHECK_EQ(blosc2_schunk_free(sc), 0);
      /* A freed handle is not a handle any more. */
      CHECK(blosc2_schunk_free(sc) < 0);
      CHECK(blosc2_schunk_frame_len(sc) < 0);
    }
    if (path != NULL) blosc2_remove_urlpath(path);
  }
  corrupted_frames();

  /* Path helpers. */
  CHECK_EQ(blosc2_remove_urlpath(NULL), 0);
  CHECK_EQ(blosc2_remove_dir(NULL), BLOSC2_ERROR_INVALID_PARAM);
  CHECK_EQ(blosc2_remove_dir(""), BLOSC2_ERROR_INVALID_PARAM);
  CHECK_EQ(blosc2_rename_urlpath(NULL, NULL), 0);
  int64_t idx[2] = {7, 7};
  blosc2_unidim_to_multidim(2, NULL, 3, idx);
  CHECK_EQ(idx[0], 0);
  CHECK_EQ(idx[1], 0);
  blosc2_unidim_to_multidim(2, idx, 3, NULL);
  blosc2_unidim_to_multidim(200, idx, 3, idx);
  int64_t zero_shape[2] = {3, 0};
  blosc2_unidim_to_multidim(2, zero_shape, 3, idx);
  CHECK_EQ(idx[0], 0);
  CHECK_EQ(idx[1], 0);
  int64_t lin = 5;
  blosc2_multidim_to_unidim(NULL, 2, NULL, &lin);
  CHECK_EQ(lin, 0);
  blosc2_multidim_to_unidim(idx, 2, idx, NULL);

  scratch_done();
  TEST_DONE();
}
