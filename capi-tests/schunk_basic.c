/* Super-chunks on every storage: creation, public fields, chunk edits,
 * reads through schunk->cctx/dctx, parameters, copies, reopening edited
 * frames from disk, files and the path helpers. */
#include "schunk_common.h"

enum { NITEMS = 2500, NBYTES = NITEMS * 4 };

static int64_t sum_cbytes(blosc2_schunk *sc) {
  int64_t total = 0;
  for (int64_t i = 0; i < sc->nchunks; i++) {
    uint8_t *c;
    bool nf;
    int cb = blosc2_schunk_get_chunk(sc, i, &c, &nf);
    CHECK(cb > 0);
    int32_t nb, cbytes, bs;
    CHECK_EQ(blosc2_cbuffer_sizes(c, &nb, &cbytes, &bs), 0);
    CHECK_EQ(cbytes, cb);
    total += cb;
    if (nf) free(c);
  }
  return total;
}

/* Expected content of the edited super-chunk: fill_chunk(k) for these k. */
static void check_content(blosc2_schunk *sc, const int32_t *ks, int n) {
  CHECK_EQ(sc->nchunks, n);
  CHECK_EQ(sc->nbytes, (int64_t)n * NBYTES);
  for (int i = 0; i < n; i++) {
    CHECK(chunk_is(sc, i, ks[i], NITEMS));
  }
}

static void check_public(blosc2_schunk *sc, bool contiguous, const char *urlpath) {
  CHECK_EQ(sc->typesize, 4);
  CHECK_EQ(sc->compcode, BLOSC_LZ4);
  CHECK_EQ(sc->clevel, 7);
  CHECK_EQ(sc->filters[BLOSC2_MAX_FILTERS - 1], BLOSC_SHUFFLE);
  CHECK_EQ(sc->splitmode, BLOSC_FORWARD_COMPAT_SPLIT);
  CHECK(sc->storage != NULL);
  CHECK_EQ(sc->storage->contiguous, contiguous);
  if (urlpath == NULL) {
    CHECK(sc->storage->urlpath == NULL);
  } else {
    CHECK(sc->storage->urlpath != NULL && strcmp(sc->storage->urlpath, urlpath) == 0);
  }
  CHECK(sc->storage->cparams != NULL);
  CHECK(sc->storage->dparams != NULL);
  CHECK(sc->storage->io != NULL);
  CHECK(sc->cctx != NULL);
  CHECK(sc->dctx != NULL);
  CHECK_EQ(sc->frame == NULL, !contiguous && urlpath == NULL);
}

static void run_storage(bool contiguous, const char *urlpath) {
  blosc2_cparams cp = int32_cparams(BLOSC_LZ4, 7);
  blosc2_dparams dp = BLOSC2_DPARAMS_DEFAULTS;
  blosc2_storage st = {.contiguous = contiguous, .urlpath = (char *)urlpath, .cparams = &cp, .dparams = &dp};
  blosc2_schunk *sc = make_schunk(&st, 5, NITEMS);
  CHECK(sc != NULL);
  if (sc == NULL) return;
  check_public(sc, contiguous, urlpath);
  CHECK_EQ(sc->nchunks, 5);
  CHECK_EQ(sc->nbytes, 5 * NBYTES);
  CHECK_EQ(sc->chunksize, NBYTES);
  CHECK_EQ(sc->current_nchunk, 4);
  CHECK(sc->cbytes > 0 && sc->cbytes < sc->nbytes);
  if (contiguous && urlpath != NULL) {
    /* Edits of frame files never overwrite live bytes: until the frame is
       compacted, cbytes also counts superseded offsets and trailers. */
    CHECK(sc->cbytes >= sum_cbytes(sc));
  } else {
    CHECK_EQ(sc->cbytes, sum_cbytes(sc));
  }
  CHECK_EQ(sc->nmetalayers, 0);
  CHECK_EQ(sc->nvlmetalayers, 0);

  /* get_chunk ownership: pointers into memory, copies from disk. */
  uint8_t *c;
  bool needs_free = true;
  int cb = blosc2_schunk_get_chunk(sc, 2, &c, &needs_free);
  CHECK(cb > BLOSC_EXTENDED_HEADER_LENGTH);
  CHECK_EQ(needs_free, urlpath != NULL);
  CHECK_EQ(sc->current_nchunk, 2);
  if (needs_free) free(c);

  /* schunk->cctx and schunk->dctx are usable contexts. */
  int32_t *buf = xmalloc(NBYTES);
  uint8_t *chunk = xmalloc(NBYTES + BLOSC2_MAX_OVERHEAD);
  fill_chunk(buf, NITEMS, 5);
  int csize = blosc2_compress_ctx(sc->cctx, buf, NBYTES, chunk, NBYTES + BLOSC2_MAX_OVERHEAD);
  CHECK(csize > 0);
  int32_t *out = xmalloc(NBYTES);
  CHECK_EQ(blosc2_decompress_ctx(sc->dctx, chunk, csize, out, NBYTES), NBYTES);
  CHECK(memcmp(out, buf, NBYTES) == 0);
  CHECK_EQ(blosc2_schunk_append_chunk(sc, chunk, true), 6);

  /* Insert (the super-chunk takes over a malloc'ed chunk), update, delete. */
  fill_chunk(buf, NITEMS, 10);
  uint8_t *owned = xmalloc(NBYTES + BLOSC2_MAX_OVERHEAD);
  csize = blosc2_compress_ctx(sc->cctx, buf, NBYTES, owned, NBYTES + BLOSC2_MAX_OVERHEAD);
  CHECK(csize > 0);
  CHECK_EQ(blosc2_schunk_insert_chunk(sc, 0, owned, false), 7);
  CHECK_EQ(sc->current_nchunk, 0);
  fill_chunk(buf, NITEMS, 11);
  csize = blosc2_compress_ctx(sc->cctx, buf, NBYTES, chunk, NBYTES + BLOSC2_MAX_OVERHEAD);
  CHECK_EQ(blosc2_schunk_update_chunk(sc, 3, chunk, true), 7);
  CHECK_EQ(blosc2_schunk_delete_chunk(sc, 1), 6);
  int32_t ks[6] = {10, 1, 11, 3, 4, 5};
  check_content(sc, ks, 6);
  if (contiguous) {
    /* Contiguous frames keep the bytes of replaced chunks in cbytes. */
    CHECK(sc->cbytes >= sum_cbytes(sc));
  } else {
    CHECK_EQ(sc->cbytes, sum_cbytes(sc));
  }

  /* Reorder. */
  int64_t order[6] = {5, 4, 3, 2, 1, 0};
  CHECK_EQ(blosc2_schunk_reorder_offsets(sc, order), 0);
  int32_t ks2[6] = {5, 4, 3, 11, 1, 10};
  check_content(sc, ks2, 6);

  /* Frame properties. */
  int64_t flen = blosc2_schunk_frame_len(sc);
  if (urlpath != NULL && !contiguous) {
    /* Sparse frames: the index file only. */
    CHECK(flen > 0 && flen < sc->cbytes);
  } else {
    CHECK(flen > sc->cbytes);
  }
  int64_t *offsets = blosc2_frame_get_offsets(sc);
  if (sc->frame == NULL) {
    CHECK(offsets == NULL);
    CHECK_EQ(flen, sc->cbytes + 8 * sc->nchunks);
  } else {
    CHECK(offsets != NULL);
    if (urlpath != NULL && !contiguous) {
      /* Sparse frames: chunk file numbers, all different. */
      for (int i = 0; i < 6; i++) {
        for (int j = 0; j < i; j++) CHECK(offsets[i] != offsets[j]);
      }
    } else {
      for (int i = 0; i < 6; i++) CHECK(offsets[i] >= 0 && offsets[i] < sc->cbytes);
    }
  }
  free(offsets);

  /* Parameters. */
  blosc2_cparams *gcp = NULL;
  CHECK_EQ(blosc2_schunk_get_cparams(sc, &gcp), 0);
  CHECK(gcp != NULL);
  if (gcp != NULL) {
    CHECK_EQ(gcp->typesize, 4);
    CHECK_EQ(gcp->compcode, BLOSC_LZ4);
    CHECK_EQ(gcp->clevel, 7);
    CHECK_EQ(gcp->filters[5], BLOSC_SHUFFLE);
    CHECK(gcp->schunk == sc);
    CHECK_EQ(gcp->nthreads, 1);
    free(gcp);
  }
  blosc2_dparams *gdp = NULL;
  CHECK_EQ(blosc2_schunk_get_dparams(sc, &gdp), 0);
  CHECK(gdp != NULL);
  if (gdp != NULL) {
    CHECK(gdp->schunk == sc);
    CHECK_EQ(gdp->nthreads, 1);
    free(gdp);
  }

  /* Copies to every storage. */
  for (int kind = 0; kind < 4; kind++) {
    char *path = kind == 2 ? scratch_path("copy.b2frame") : kind == 3 ? scratch_path("copy_dir.b2frame") : NULL;
    blosc2_storage cst = {.contiguous = kind == 1 || kind == 2, .urlpath = path};
    blosc2_schunk *copy = blosc2_schunk_copy(sc, &cst);
    CHECK(copy != NULL);
    if (copy != NULL) {
      check_content(copy, ks2, 6);
      CHECK_EQ(copy->typesize, 4);
      CHECK_EQ(copy->compcode, BLOSC_LZ4);
      CHECK_EQ(copy->chunksize, NBYTES);
      CHECK_EQ(blosc2_schunk_free(copy), 0);
    }
    if (path != NULL) {
      blosc2_schunk *re = blosc2_schunk_open(path);
      CHECK(re != NULL);
      if (re != NULL) {
        check_content(re, ks2, 6);
        blosc2_schunk_free(re);
      }
      CHECK_EQ(blosc2_remove_urlpath(path), 0);
    }
  }

  /* to_file and append_file. */
  char *file = scratch_path("to_file.b2frame");
  int64_t wlen = blosc2_schunk_to_file(sc, file);
  CHECK(wlen > 0);
  blosc2_schunk *ff = blosc2_schunk_open(file);
  CHECK(ff != NULL);
  if (ff != NULL) {
    CHECK_EQ(blosc2_schunk_frame_len(ff), wlen);
    check_content(ff, ks2, 6);
    blosc2_schunk_free(ff);
  }
  int64_t off = blosc2_schunk_append_file(sc, file);
  CHECK_EQ(off, wlen);
  ff = blosc2_schunk_open_offset(file, off);
  CHECK(ff != NULL);
  if (ff != NULL) {
    check_content(ff, ks2, 6);
    blosc2_schunk_free(ff);
  }
  ff = blosc2_schunk_open_offset(file, 0);
  CHECK(ff != NULL);
  if (ff != NULL) {
    check_content(ff, ks2, 6);
    blosc2_schunk_free(ff);
  }
  CHECK_EQ(blosc2_remove_urlpath(file), 0);

  CHECK_EQ(blosc2_schunk_free(sc), 0);

  /* Reopen persistent super-chunks after the edits, edit again, reopen. */
  if (urlpath != NULL) {
    sc = blosc2_schunk_open(urlpath);
    CHECK(sc != NULL);
    if (sc != NULL) {
      check_public(sc, contiguous, urlpath);
      check_content(sc, ks2, 6);
      CHECK_EQ(sc->chunksize, NBYTES);
      fill_chunk(buf, NITEMS, 20);
      CHECK_EQ(blosc2_schunk_append_buffer(sc, buf, NBYTES), 7);
      CHECK_EQ(blosc2_schunk_delete_chunk(sc, 0), 6);
      blosc2_schunk_free(sc);
    }
    sc = blosc2_schunk_open(urlpath);
    CHECK(sc != NULL);
    int32_t ks3[6] = {4, 3, 11, 1, 10, 20};
    if (sc != NULL) {
      check_content(sc, ks3, 6);
      blosc2_schunk_free(sc);
    }
    /* Through the I/O backend API: the filesystem and read-only mmap. */
    blosc2_io io = BLOSC2_IO_DEFAULTS;
    sc = blosc2_schunk_open_udio(urlpath, &io);
    CHECK(sc != NULL);
    if (sc != NULL) {
      check_content(sc, ks3, 6);
      CHECK_EQ(sc->storage->io->id, BLOSC2_IO_FILESYSTEM);
      blosc2_schunk_free(sc);
    }
    if (contiguous) {
      blosc2_stdio_mmap mmap_params = BLOSC2_STDIO_MMAP_DEFAULTS;
      blosc2_io mio = {.id = BLOSC2_IO_FILESYSTEM_MMAP, .name = "filesystem_mmap", .params = &mmap_params};
      sc = blosc2_schunk_open_offset_udio(urlpath, 0, &mio);
      CHECK(sc != NULL);
      if (sc != NULL) {
        check_content(sc, ks3, 6);
        blosc2_schunk_free(sc);
      }
    }
    CHECK_EQ(blosc2_remove_urlpath(urlpath), 0);
  }
  free(buf);
  free(out);
  free(chunk);
}

/* Chunk sizes: a short last chunk keeps the chunk size, a chunk after it
 * makes it variable (0). */
static void chunk_sizes(void) {
  for (int contiguous = 0; contiguous < 2; contiguous++) {
    blosc2_cparams cp = int32_cparams(BLOSC_BLOSCLZ, 5);
    blosc2_storage st = {.contiguous = contiguous, .cparams = &cp};
    blosc2_schunk *sc = blosc2_schunk_new(&st);
    CHECK(sc != NULL);
    if (sc == NULL) continue;
    CHECK_EQ(sc->chunksize, -1);
    CHECK_EQ(sc->nchunks, 0);
    CHECK_EQ(sc->nbytes, 0);
    int32_t buf[NITEMS];
    fill_chunk(buf, NITEMS, 1);
    CHECK_EQ(blosc2_schunk_append_buffer(sc, buf, NBYTES), 1);
    CHECK_EQ(blosc2_schunk_append_buffer(sc, buf, 4000), 2);
    CHECK_EQ(sc->chunksize, NBYTES);
    CHECK_EQ(sc->nbytes, NBYTES + 4000);
    CHECK_EQ(blosc2_schunk_append_buffer(sc, buf, NBYTES), 3);
    CHECK_EQ(sc->chunksize, 0);
    CHECK_EQ(sc->nbytes, 2 * NBYTES + 4000);
    int32_t out[NITEMS];
    CHECK_EQ(blosc2_schunk_decompress_chunk(sc, 1, out, NBYTES), 4000);
    CHECK(memcmp(out, buf, 4000) == 0);
    /* Too small a destination. */
    CHECK(blosc2_schunk_decompress_chunk(sc, 0, out, 100) < 0);
    /* Round trip through a frame buffer keeps the variable sizes. */
    uint8_t *cframe;
    bool nf;
    int64_t len = blosc2_schunk_to_buffer(sc, &cframe, &nf);
    CHECK(len > 0);
    blosc2_schunk *sc2 = blosc2_schunk_from_buffer(cframe, len, true);
    CHECK(sc2 != NULL);
    if (sc2 != NULL) {
      CHECK_EQ(sc2->nchunks, 3);
      CHECK_EQ(sc2->chunksize, 0);
      CHECK_EQ(blosc2_schunk_decompress_chunk(sc2, 1, out, NBYTES), 4000);
      blosc2_schunk_free(sc2);
    }
    if (nf) free(cframe);
    blosc2_schunk_free(sc);
  }
}

static void path_helpers(void) {
  char *a = scratch_path("a.bin");
  char *b = scratch_path("b.bin");
  FILE *f = fopen(a, "wb");
  CHECK(f != NULL);
  if (f != NULL) {
    fputs("x", f);
    fclose(f);
  }
  CHECK_EQ(blosc2_rename_urlpath(a, b), 0);
  f = fopen(b, "rb");
  CHECK(f != NULL);
  if (f != NULL) fclose(f);
  CHECK(blosc2_rename_urlpath(a, b) < 0);
  CHECK_EQ(blosc2_remove_urlpath(b), 0);
  CHECK_EQ(blosc2_remove_urlpath(b), 0);
  char *d = scratch_path("dir.b2frame");
  blosc2_storage st = {.contiguous = false, .urlpath = d};
  blosc2_schunk *sc = make_schunk(&st, 2, 100);
  CHECK(sc != NULL);
  blosc2_schunk_free(sc);
  /* An existing path cannot be created again. */
  CHECK(blosc2_schunk_new(&st) == NULL);
  CHECK_EQ(blosc2_remove_dir(d), 0);
  CHECK(blosc2_schunk_open(d) == NULL);
  CHECK_EQ(blosc2_remove_dir(d), BLOSC2_ERROR_NOT_FOUND);
}

int main(void) {
#ifndef CAPI_REFERENCE
  /* blosc2_schunk_new works without blosc2_init (3.3.5 returns NULL). */
  {
    blosc2_storage st = BLOSC2_STORAGE_DEFAULTS;
    blosc2_schunk *sc = make_schunk(&st, 2, 1000);
    CHECK(sc != NULL);
    if (sc != NULL) {
      CHECK_EQ(sc->nchunks, 2);
      CHECK_EQ(sc->typesize, 8);
      CHECK(chunk_is(sc, 1, 1, 1000));
      CHECK_EQ(blosc2_schunk_free(sc), 0);
    }
  }
#endif
  blosc2_init();
  scratch_init("basic");
  run_storage(false, NULL);
  run_storage(true, NULL);
  run_storage(true, scratch_path("frame.b2frame"));
  run_storage(false, scratch_path("sparse.b2frame"));
  chunk_sizes();
  path_helpers();
  scratch_done();
  blosc2_destroy();
  TEST_DONE();
}
