/* A lazy chunk (blosc2_schunk_get_lazychunk of a file frame) handed back
 * shorter than its trailer is refused with BLOSC2_ERROR_READ_BUFFER, as
 * 3.3.5 does, for regular and VL-block chunks; whole, it decompresses
 * (the blocks of a lazy VL chunk one by one, or all, read from the frame). */
#include "schunk_common.h"

/* The blocks of the VL chunk, as given to blosc2_vlcompress_ctx. */
static const void *first_blocks[3];

static void check_truncated(blosc2_schunk *sc, int64_t nchunk, bool vl) {
  uint8_t *lazy;
  bool needs_free;
  int csize = blosc2_schunk_get_lazychunk(sc, nchunk, &lazy, &needs_free);
  CHECK(csize > BLOSC_EXTENDED_HEADER_LENGTH);
  if (csize <= BLOSC_EXTENDED_HEADER_LENGTH) {
    return;
  }
  if (vl) {
    /* Whole, its blocks are read from the frame, one by one or all. */
    static const int32_t want[3] = {400, 800, 4000};
    uint8_t *block = NULL;
    int32_t bsize;
    for (int i = 0; i < 3; i++) {
      CHECK_EQ(blosc2_vldecompress_block_ctx(sc->dctx, lazy, csize, i, &block, &bsize), want[i]);
      CHECK_EQ(bsize, want[i]);
      CHECK(block != NULL && ((int32_t *)block)[1] == ((int32_t *)first_blocks[i])[1]);
      free(block);
      block = NULL;
    }
    void *dests[4];
    int32_t dsizes[4];
#ifdef CAPI_REFERENCE
    /* 3.3.5 does not read a lazy chunk's blocks for the whole-chunk call. */
    CHECK_EQ(blosc2_vldecompress_ctx(sc->dctx, lazy, csize, dests, dsizes, 4), BLOSC2_ERROR_WRITE_BUFFER);
#else
    CHECK_EQ(blosc2_vldecompress_ctx(sc->dctx, lazy, csize, dests, dsizes, 4), 3);
    for (int i = 0; i < 3; i++) {
      CHECK_EQ(dsizes[i], want[i]);
      CHECK(memcmp(dests[i], first_blocks[i], want[i]) == 0);
      free(dests[i]);
    }
#endif
    /* Past the last block, or truncated: refused, nothing handed out. */
    CHECK_EQ(blosc2_vldecompress_block_ctx(sc->dctx, lazy, csize, 3, &block, &bsize), BLOSC2_ERROR_INVALID_PARAM);
    CHECK(block == NULL);
    CHECK_EQ(blosc2_vldecompress_block_ctx(sc->dctx, lazy, csize - 4, 0, &block, &bsize),
             BLOSC2_ERROR_READ_BUFFER);
    CHECK(block == NULL);
  } else {
    int32_t nbytes;
    CHECK_EQ(blosc2_cbuffer_sizes(lazy, &nbytes, NULL, NULL), 0);
    uint8_t *out = xmalloc(nbytes);
    CHECK_EQ(blosc2_decompress_ctx(sc->dctx, lazy, csize, out, nbytes), nbytes);
    CHECK_EQ(blosc2_decompress_ctx(sc->dctx, lazy, csize - 4, out, nbytes), BLOSC2_ERROR_READ_BUFFER);
    free(out);
  }
  if (needs_free) {
    free(lazy);
  }
}

int main(void) {
  blosc2_init();
  scratch_init("lazy-trailer");
  blosc2_cparams cp = BLOSC2_CPARAMS_DEFAULTS;
  cp.typesize = 4;
  cp.blocksize = 4096;
  blosc2_storage st = {.contiguous = true, .urlpath = scratch_path("regular.b2frame"), .cparams = &cp};
  blosc2_schunk *sc = blosc2_schunk_new(&st);
  int32_t data[10000];
  for (int i = 0; i < 10000; i++) {
    data[i] = i * 3;
  }
  CHECK_EQ(blosc2_schunk_append_buffer(sc, data, sizeof(data)), 1);
  check_truncated(sc, 0, false);
  CHECK_EQ(blosc2_schunk_free(sc), 0);

  blosc2_storage vst = {.contiguous = true, .urlpath = scratch_path("vl.b2frame"), .cparams = &cp};
  blosc2_schunk *vsc = blosc2_schunk_new(&vst);
  const void *srcs[3] = {data, data + 100, data + 1000};
  memcpy(first_blocks, srcs, sizeof(srcs));
  int32_t sizes[3] = {400, 800, 4000};
  int32_t cap = 5200 + BLOSC2_MAX_OVERHEAD;
  uint8_t *chunk = xmalloc(cap);
  int csize = blosc2_vlcompress_ctx(vsc->cctx, srcs, sizes, 3, chunk, cap);
  CHECK(csize > 0);
  CHECK_EQ(blosc2_schunk_append_chunk(vsc, chunk, true), 1);
  check_truncated(vsc, 0, true);
  free(chunk);
  CHECK_EQ(blosc2_schunk_free(vsc), 0);
  scratch_done();
  blosc2_destroy();
  TEST_DONE();
}
