/* Super-chunks use schunk->cctx and schunk->dctx: prefilters and
 * postfilters given in the storage run in append_buffer, decompress_chunk,
 * slices and sparse reads, and see the chunk number; contexts swapped in
 * by the caller (as python-blosc2 does) are used. */
#include "schunk_common.h"

enum { NITEMS = 3000, NBYTES = NITEMS * 4 };

static int pre_calls, post_calls, bad_nchunk;
static int64_t expect_nchunk = -1;

/* out = in + 1000 * nchunk */
static int prefilter(blosc2_prefilter_params *p) {
  pre_calls++;
  if (expect_nchunk >= 0 && p->nchunk != expect_nchunk) bad_nchunk++;
  const int32_t *in = (const int32_t *)p->input;
  int32_t *out = (int32_t *)p->output;
  for (int32_t i = 0; i < p->output_size / 4; i++) out[i] = in[i] + 1000 * (int32_t)p->nchunk;
  return 0;
}

/* out = in + 1 */
static int postfilter(blosc2_postfilter_params *p) {
  post_calls++;
  if (expect_nchunk >= 0 && p->nchunk != expect_nchunk) bad_nchunk++;
  const int32_t *in = (const int32_t *)p->input;
  int32_t *out = (int32_t *)p->output;
  for (int32_t i = 0; i < p->size / 4; i++) out[i] = in[i] + 1;
  return 0;
}

static void run(int kind) {
  char *path = kind == 2 ? scratch_path("f.b2frame") : kind == 3 ? scratch_path("f_dir.b2frame") : NULL;
  blosc2_cparams cp = int32_cparams(BLOSC_LZ4, 5);
  cp.blocksize = 4000;
  blosc2_prefilter_params preparams = {0};
  cp.prefilter = prefilter;
  cp.preparams = &preparams;
  blosc2_dparams dp = BLOSC2_DPARAMS_DEFAULTS;
  blosc2_postfilter_params postparams = {0};
  dp.postfilter = postfilter;
  dp.postparams = &postparams;
  blosc2_storage st = {.contiguous = kind == 1 || kind == 2, .urlpath = path, .cparams = &cp, .dparams = &dp};
  blosc2_schunk *sc = blosc2_schunk_new(&st);
  CHECK(sc != NULL);
  if (sc == NULL) return;
  int32_t *zeros = calloc(NITEMS, 4);
  for (int k = 0; k < 3; k++) {
    expect_nchunk = k;
    CHECK_EQ(blosc2_schunk_append_buffer(sc, zeros, NBYTES), k + 1);
  }
  CHECK(pre_calls > 0);
  CHECK_EQ(bad_nchunk, 0);
  int32_t *out = xmalloc(NBYTES);
  for (int k = 0; k < 3; k++) {
    expect_nchunk = k;
    CHECK_EQ(blosc2_schunk_decompress_chunk(sc, k, out, NBYTES), NBYTES);
    CHECK_EQ(out[0], 1000 * k + 1);
    CHECK_EQ(out[NITEMS - 1], 1000 * k + 1);
  }
  CHECK(post_calls > 0);
  CHECK_EQ(bad_nchunk, 0);
  expect_nchunk = -1;
  /* Slices and sparse reads go through the postfilter too. */
  int32_t sl[4000];
  CHECK_EQ(blosc2_schunk_get_slice_buffer(sc, 2500, 6500, sl), 0);
  CHECK_EQ(sl[0], 1);
  CHECK_EQ(sl[499], 1);
  CHECK_EQ(sl[500], 1001);
  CHECK_EQ(sl[3999], 2001);
  int64_t coords[3] = {8999, 0, 4000};
  int32_t got[3];
  CHECK_EQ(blosc2_schunk_get_sparse_buffer(sc, 3, coords, got), 0);
  CHECK_EQ(got[0], 2001);
  CHECK_EQ(got[1], 1);
  CHECK_EQ(got[2], 1001);
  /* A slice write decompresses (postfilter) and recompresses (prefilter)
     the chunks it touches, as in 3.3.5. */
  int32_t ones[100];
  for (int i = 0; i < 100; i++) ones[i] = 7;
  CHECK_EQ(blosc2_schunk_set_slice_buffer(sc, 3000, 3100, ones), 0);
  CHECK_EQ(blosc2_schunk_decompress_chunk(sc, 1, out, NBYTES), NBYTES);
  CHECK_EQ(out[0], 7 + 1000 + 1);
  CHECK_EQ(out[100], 1001 + 1000 + 1);

  /* A compression context swapped in by the caller is used. */
  blosc2_cparams zcp = int32_cparams(BLOSC_ZSTD, 3);
  blosc2_free_ctx(sc->cctx);
  sc->cctx = blosc2_create_cctx(zcp);
  blosc2_free_ctx(sc->dctx);
  sc->dctx = blosc2_create_dctx(BLOSC2_DPARAMS_DEFAULTS);
  int32_t data[NITEMS];
  fill_chunk(data, NITEMS, 9);
  CHECK_EQ(blosc2_schunk_append_buffer(sc, data, NBYTES), 4);
  uint8_t *c;
  bool nf;
  CHECK(blosc2_schunk_get_chunk(sc, 3, &c, &nf) > 0);
  CHECK(strcmp(blosc2_cbuffer_complib(c), "Zstd") == 0);
  if (nf) free(c);
  CHECK(chunk_is(sc, 3, 9, NITEMS));
  /* No postfilter any more. */
  CHECK_EQ(blosc2_schunk_decompress_chunk(sc, 0, out, NBYTES), NBYTES);
  CHECK_EQ(out[0], 0);
  CHECK_EQ(blosc2_schunk_get_slice_buffer(sc, 0, 1, sl), 0);
  CHECK_EQ(sl[0], 0);
  blosc2_schunk_free(sc);
  if (path != NULL) blosc2_remove_urlpath(path);
  free(zeros);
  free(out);
}

int main(void) {
  blosc2_init();
  scratch_init("filters");
  for (int kind = 0; kind < 4; kind++) run(kind);
  scratch_done();
  blosc2_destroy();
  TEST_DONE();
}
