/* Frames: in-memory buffers (to_buffer/from_buffer, copy or not, who
 * frees what), special chunks (fill_special), lazy chunks decompressed
 * through schunk->dctx and the global API, two handles on one file
 * (refresh, lock/unlock). */
#include <math.h>

#include "schunk_common.h"

enum { NITEMS = 5000, NBYTES = NITEMS * 4 };

static void check_all(blosc2_schunk *sc, int n) {
  CHECK_EQ(sc->nchunks, n);
  for (int i = 0; i < n; i++) CHECK(chunk_is(sc, i, i, NITEMS));
}

static void buffers(void) {
  blosc2_cparams cp = int32_cparams(BLOSC_ZSTD, 3);
  for (int kind = 0; kind < 4; kind++) {
    char *path = kind == 2 ? scratch_path("buf.b2frame") : kind == 3 ? scratch_path("buf_dir.b2frame") : NULL;
    blosc2_storage st = {.contiguous = kind == 1 || kind == 2, .urlpath = path, .cparams = &cp};
    blosc2_schunk *sc = make_schunk(&st, 4, NITEMS);
    CHECK(sc != NULL);
    if (sc == NULL) continue;
    uint8_t *cframe = NULL;
    bool needs_free = true;
    int64_t len = blosc2_schunk_to_buffer(sc, &cframe, &needs_free);
    CHECK(len > 0);
    CHECK(cframe != NULL);
    /* Only an in-memory frame hands out its own buffer. */
    CHECK_EQ(needs_free, kind != 1);
    if (kind == 1) CHECK_EQ(len, blosc2_schunk_frame_len(sc));
    for (int copy = 0; copy < 2; copy++) {
      blosc2_schunk *m = blosc2_schunk_from_buffer(cframe, len, copy);
      CHECK(m != NULL);
      if (m == NULL) continue;
      check_all(m, 4);
      CHECK_EQ(m->typesize, 4);
      CHECK_EQ(m->compcode, BLOSC_ZSTD);
      CHECK_EQ(m->clevel, 3);
      CHECK_EQ(m->chunksize, NBYTES);
      CHECK_EQ(m->nbytes, 4 * NBYTES);
      CHECK_EQ(m->storage->contiguous, !copy);
      CHECK(m->storage->urlpath == NULL);
      CHECK_EQ(m->frame == NULL, copy);
#ifdef CAPI_REFERENCE
      /* 3.3.5 edits the caller's buffer in place (realloc) when copy is
         false; this library never touches it. */
      if (!copy) {
        blosc2_schunk_free(m);
        continue;
      }
#endif
      /* The super-chunk is independent of the caller's buffer: edit it. */
      int32_t buf[NITEMS];
      fill_chunk(buf, NITEMS, 4);
      CHECK_EQ(blosc2_schunk_append_buffer(m, buf, NBYTES), 5);
      check_all(m, 5);
      uint8_t *c2;
      bool nf2;
      int64_t len2 = blosc2_schunk_to_buffer(m, &c2, &nf2);
      CHECK(len2 > len);
      CHECK_EQ(nf2, copy);
      blosc2_schunk *m2 = blosc2_schunk_from_buffer(c2, len2, true);
      CHECK(m2 != NULL);
      if (m2 != NULL) {
        check_all(m2, 5);
        blosc2_schunk_free(m2);
      }
      if (nf2) free(c2);
      blosc2_schunk_avoid_cframe_free(m, true);
      CHECK_EQ(blosc2_schunk_free(m), 0);
    }
    /* The original frame is untouched. */
    blosc2_schunk *again = blosc2_schunk_from_buffer(cframe, len, false);
    CHECK(again != NULL);
    if (again != NULL) {
      check_all(again, 4);
      blosc2_schunk_free(again);
    }
    if (needs_free) free(cframe);
    blosc2_schunk_free(sc);
    if (path != NULL) blosc2_remove_urlpath(path);
  }

  /* A malloc'ed frame handed over to the super-chunk: freed with it. */
  blosc2_storage st = {.contiguous = true, .cparams = &cp};
  blosc2_schunk *sc = make_schunk(&st, 3, NITEMS);
  uint8_t *cframe;
  bool nf;
  int64_t len = blosc2_schunk_to_buffer(sc, &cframe, &nf);
  uint8_t *mine = xmalloc((size_t)len);
  memcpy(mine, cframe, (size_t)len);
  if (nf) free(cframe);
  blosc2_schunk_free(sc);
  blosc2_schunk *m = blosc2_schunk_from_buffer(mine, len, false);
  CHECK(m != NULL);
  if (m != NULL) {
    check_all(m, 3);
    blosc2_schunk_avoid_cframe_free(m, false);
    CHECK_EQ(blosc2_schunk_free(m), 0); /* frees `mine` (checked by ASan/valgrind runs) */
  } else {
    free(mine);
  }
}

static void specials(void) {
  for (int kind = 0; kind < 4; kind++) {
    char *path = kind == 2 ? scratch_path("sp.b2frame") : kind == 3 ? scratch_path("sp_dir.b2frame") : NULL;
    blosc2_cparams cp = BLOSC2_CPARAMS_DEFAULTS;
    cp.typesize = 8;
    blosc2_storage st = {.contiguous = kind == 1 || kind == 2, .urlpath = path, .cparams = &cp};
    blosc2_schunk *sc = blosc2_schunk_new(&st);
    CHECK(sc != NULL);
    if (sc == NULL) continue;
    /* 10 chunks of 1000 items and one of 500. */
    CHECK_EQ(blosc2_schunk_fill_special(sc, 10500, BLOSC2_SPECIAL_NAN, 8000), 11);
    CHECK_EQ(sc->nchunks, 11);
    CHECK_EQ(sc->nbytes, 10500 * 8);
    CHECK_EQ(sc->chunksize, 8000);
    /* Nothing stored (a frame file may hold superseded bytes). */
    if (kind == 1 || kind == 3) CHECK_EQ(sc->cbytes, 0);
    double out[1000];
    CHECK_EQ(blosc2_schunk_decompress_chunk(sc, 3, out, sizeof(out)), 8000);
    CHECK(isnan(out[0]) && isnan(out[999]));
    CHECK_EQ(blosc2_schunk_decompress_chunk(sc, 10, out, sizeof(out)), 4000);
    CHECK(isnan(out[499]));
    uint8_t *c;
    bool nf;
    int cb = blosc2_schunk_get_chunk(sc, 10, &c, &nf);
    CHECK_EQ(cb, BLOSC_EXTENDED_HEADER_LENGTH);
    CHECK_EQ((c[BLOSC2_CHUNK_BLOSC2_FLAGS] >> 4) & BLOSC2_SPECIAL_MASK, BLOSC2_SPECIAL_NAN);
    int32_t nb;
    blosc2_cbuffer_sizes(c, &nb, NULL, NULL);
    CHECK_EQ(nb, 4000);
    if (nf) free(c);
    /* A slice across special chunks. */
    double sl[1500];
    CHECK_EQ(blosc2_schunk_get_slice_buffer(sc, 9500, 10500, sl), 0);
    CHECK(isnan(sl[0]) && isnan(sl[999]));
    /* Replace one special chunk by data. */
    double data[1000];
    for (int i = 0; i < 1000; i++) data[i] = i * 0.5;
    CHECK_EQ(blosc2_schunk_set_slice_buffer(sc, 2000, 3000, data), 0);
    CHECK_EQ(blosc2_schunk_decompress_chunk(sc, 2, out, sizeof(out)), 8000);
    CHECK(memcmp(out, data, sizeof(data)) == 0);
    /* Only empty super-chunks can be filled. */
    CHECK(blosc2_schunk_fill_special(sc, 10, BLOSC2_SPECIAL_ZERO, 80) < 0);
    blosc2_schunk_free(sc);
    if (path != NULL) {
      sc = blosc2_schunk_open(path);
      CHECK(sc != NULL);
      if (sc != NULL) {
        CHECK_EQ(sc->nchunks, 11);
        CHECK_EQ(blosc2_schunk_decompress_chunk(sc, 2, out, sizeof(out)), 8000);
        CHECK(memcmp(out, data, sizeof(data)) == 0);
        CHECK_EQ(blosc2_schunk_decompress_chunk(sc, 7, out, sizeof(out)), 8000);
        CHECK(isnan(out[7]));
        blosc2_schunk_free(sc);
      }
      blosc2_remove_urlpath(path);
    }
  }
  /* Zeros and uninit; bad kinds. */
  blosc2_storage st = {.contiguous = true};
  blosc2_schunk *sc = blosc2_schunk_new(&st);
  CHECK(blosc2_schunk_fill_special(sc, 100, BLOSC2_SPECIAL_VALUE, 800) < 0);
  CHECK(blosc2_schunk_fill_special(sc, 100, 9, 800) < 0);
  CHECK(blosc2_schunk_fill_special(sc, 100, BLOSC2_SPECIAL_ZERO, 0) < 0);
  CHECK(blosc2_schunk_fill_special(sc, -1, BLOSC2_SPECIAL_ZERO, 800) < 0);
  CHECK_EQ(blosc2_schunk_fill_special(sc, 0, BLOSC2_SPECIAL_ZERO, 800), 0);
  CHECK_EQ(blosc2_schunk_fill_special(sc, 250, BLOSC2_SPECIAL_ZERO, 800), 3);
  int64_t z[100];
  CHECK_EQ(blosc2_schunk_decompress_chunk(sc, 2, z, sizeof(z)), 400);
  for (int i = 0; i < 50; i++) CHECK_EQ(z[i], 0);
  blosc2_schunk_free(sc);
  sc = blosc2_schunk_new(&st);
  CHECK_EQ(blosc2_schunk_fill_special(sc, 200, BLOSC2_SPECIAL_UNINIT, 800), 2);
  CHECK_EQ(blosc2_schunk_decompress_chunk(sc, 1, z, sizeof(z)), 800);
  blosc2_schunk_free(sc);
}

static void lazy(int variant) {
  blosc2_cparams cp = int32_cparams(BLOSC_LZ4, 5);
  cp.blocksize = 4096; /* several blocks per chunk */
  if (variant == 1) {
    cp.filters[4] = BLOSC_DELTA; /* blocks depend on block 0 */
  } else if (variant == 2) {
    cp.clevel = 0; /* memcpyed chunks */
  } else if (variant == 3) {
    cp.compcode = BLOSC_ZSTD;
    cp.use_dict = 1; /* a dictionary after the block starts */
  }
  for (int kind = 0; kind < 4; kind++) {
    char *path = kind == 2 ? scratch_path("lazy.b2frame") : kind == 3 ? scratch_path("lazy_dir.b2frame") : NULL;
    blosc2_storage st = {.contiguous = kind == 1 || kind == 2, .urlpath = path, .cparams = &cp};
    blosc2_schunk *sc = make_schunk(&st, 3, NITEMS);
    CHECK(sc != NULL);
    if (sc == NULL) continue;
    int32_t want[NITEMS];
    fill_chunk(want, NITEMS, 1);
    for (int reopen = 0; reopen < (path != NULL ? 2 : 1); reopen++) {
      if (reopen) {
        blosc2_schunk_free(sc);
        sc = blosc2_schunk_open(path);
        CHECK(sc != NULL);
        if (sc == NULL) break;
      }
      uint8_t *lc;
      bool nf;
      int lcb = blosc2_schunk_get_lazychunk(sc, 1, &lc, &nf);
      CHECK(lcb > 0);
      CHECK_EQ(nf, path != NULL);
      bool is_lazy = (lc[BLOSC2_CHUNK_BLOSC2_FLAGS] & 0x08) != 0;
      CHECK_EQ(is_lazy, path != NULL);
      int32_t out[NITEMS];
      memset(out, 0, sizeof(out));
      CHECK_EQ(blosc2_decompress_ctx(sc->dctx, lc, lcb, out, NBYTES), NBYTES);
      CHECK(memcmp(out, want, NBYTES) == 0);
      int32_t items[10];
#ifdef CAPI_REFERENCE
      /* 3.3.5's getitem ignores DELTA's dependency on block 0. */
      bool skip_getitem = variant == 1;
#else
      bool skip_getitem = false;
#endif
      if (!skip_getitem) {
        CHECK_EQ(blosc2_getitem_ctx(sc->dctx, lc, lcb, 3000, 10, items, sizeof(items)), 40);
        CHECK(memcmp(items, want + 3000, 40) == 0);
        CHECK_EQ(blosc2_getitem_bytes_ctx(sc->dctx, lc, lcb, 4 * 4000, 40, items, sizeof(items)), 40);
        CHECK(memcmp(items, want + 4000, 40) == 0);
      }
#ifndef CAPI_REFERENCE
      /* The global API finds the super-chunk of a lazy chunk too. */
      memset(out, 0, sizeof(out));
      CHECK_EQ(blosc2_decompress(lc, lcb, out, NBYTES), NBYTES);
      CHECK(memcmp(out, want, NBYTES) == 0);
      CHECK_EQ(blosc2_getitem(lc, lcb, 10, 10, items, sizeof(items)), 40);
      CHECK(memcmp(items, want + 10, 40) == 0);
      /* So does a context without super-chunk (3.3.5 fails there). */
      blosc2_context *d = blosc2_create_dctx(BLOSC2_DPARAMS_DEFAULTS);
      memset(out, 0, sizeof(out));
      CHECK_EQ(blosc2_decompress_ctx(d, lc, lcb, out, NBYTES), NBYTES);
      CHECK(memcmp(out, want, NBYTES) == 0);
      blosc2_free_ctx(d);
      if (is_lazy) {
        /* A lazy chunk whose super-chunk is gone cannot be completed. */
        uint8_t *copy = xmalloc((size_t)lcb);
        memcpy(copy, lc, (size_t)lcb);
        copy[12] ^= 0x01; /* no super-chunk has a chunk of that cbytes */
        CHECK(blosc2_decompress(copy, lcb, out, NBYTES) < 0);
        free(copy);
      }
#endif
      if (nf) free(lc);
    }
    if (sc != NULL) blosc2_schunk_free(sc);
    if (path != NULL) blosc2_remove_urlpath(path);
  }
}

static void two_handles(void) {
  for (int contiguous = 0; contiguous < 2; contiguous++) {
    char *path = scratch_path(contiguous ? "shared.b2frame" : "shared_dir.b2frame");
    blosc2_cparams cp = int32_cparams(BLOSC_BLOSCLZ, 5);
    blosc2_storage st = {.contiguous = contiguous, .urlpath = path, .cparams = &cp};
    blosc2_schunk *w = make_schunk(&st, 2, NITEMS);
    blosc2_schunk *r = blosc2_schunk_open(path);
    CHECK(w != NULL && r != NULL);
    if (w == NULL || r == NULL) continue;
    CHECK_EQ(r->nchunks, 2);
    CHECK_EQ(blosc2_schunk_lock(w), 0);
    int32_t buf[NITEMS];
    fill_chunk(buf, NITEMS, 2);
    CHECK_EQ(blosc2_schunk_append_buffer(w, buf, NBYTES), 3);
    uint8_t meta[3] = {1, 2, 3};
    CHECK(blosc2_vlmeta_add(w, "late", meta, 3, NULL) >= 0);
    CHECK_EQ(blosc2_schunk_unlock(w), 0);
#ifdef CAPI_REFERENCE
    /* 3.3.5 follows other handles by itself only with locking enabled. */
    CHECK(blosc2_schunk_refresh(r) >= 0);
#endif
    /* The reader follows the writer when it reads (no refresh needed). */
    CHECK(chunk_is(r, 2, 2, NITEMS));
    CHECK_EQ(r->nchunks, 3);
    CHECK_EQ(r->nbytes, 3 * NBYTES);
    CHECK(blosc2_vlmeta_exists(r, "late") >= 0);
    CHECK_EQ(r->nvlmetalayers, 1);
    CHECK_EQ(blosc2_schunk_refresh(r), 0);
    /* An explicit refresh picks up changes too. */
    CHECK_EQ(blosc2_schunk_append_buffer(w, buf, NBYTES), 4);
    CHECK(blosc2_schunk_refresh(r) >= 0);
    CHECK_EQ(r->nchunks, 4);
    CHECK_EQ(r->nbytes, 4 * NBYTES);
    CHECK_EQ(blosc2_schunk_refresh(r), 0);
#ifndef CAPI_REFERENCE
    /* And the writer follows the reader's edits. */
    CHECK_EQ(blosc2_schunk_delete_chunk(r, 0), 3);
    CHECK(chunk_is(w, 0, 1, NITEMS));
    CHECK_EQ(w->nchunks, 3);
#endif
    blosc2_schunk_free(r);
    blosc2_schunk_free(w);
    blosc2_remove_urlpath(path);
  }
  /* In memory: nothing to refresh. */
  blosc2_storage st = {.contiguous = true};
  blosc2_schunk *sc = blosc2_schunk_new(&st);
  CHECK_EQ(blosc2_schunk_refresh(sc), 0);
  CHECK_EQ(blosc2_schunk_lock(sc), 0);
  CHECK_EQ(blosc2_schunk_unlock(sc), 0);
  blosc2_schunk_free(sc);
}

int main(void) {
  blosc2_init();
  scratch_init("frames");
  buffers();
  specials();
  for (int variant = 0; variant < 4; variant++) lazy(variant);
  two_handles();
  scratch_done();
  blosc2_destroy();
  TEST_DONE();
}
