/* The prefilter/postfilter contract as python-blosc2 relies on it (its
 * lazy expressions, reductions and UDFs): the callback is installed on a
 * super-chunk's `storage->cparams`, `schunk->cctx` is recreated from them,
 * `current_nchunk` is written before each `blosc2_compress_ctx`, and the
 * callbacks run per block from every worker thread. Checked as 3.3.5 does it:
 * - every params field: nchunk (the super-chunk's current_nchunk), nblock,
 *   output_offset, output_size, output_typesize, ctx, ttmp/ttmp_nbytes (four
 *   extended blocks), tid in [0, nthreads) and never shared by two callbacks
 *   running at the same time;
 * - `output_is_disposable`: the prefilter runs on every block (a reduction
 *   on the side) and the chunk stores zeros (a header-only chunk), even when
 *   the prefilter fails;
 * - a type-narrowing prefilter (output_typesize < typesize) is accepted. */
#include <stdatomic.h>
#include "blosc2.h"
#include "capi_check.h"

#define NTHREADS 4
#define TYPESIZE 8
#define BLOCKSIZE 16384
#define NITEMS (8 * BLOCKSIZE / TYPESIZE + 100) /* 8 blocks and a leftover one */
#define TTMP_NBYTES (4 * (BLOCKSIZE + 4 * TYPESIZE))

typedef struct {
  atomic_int calls;
  atomic_int busy[NTHREADS];
  atomic_int bad_tid, shared_tid, bad_field;
  atomic_llong sum; /* the "reduction" of a disposable prefilter */
  blosc2_schunk *sc;
  int fail;
} state_t;

static void spin(void) {
  for (volatile int k = 0; k < 200000; k++) {
  }
}

static int enter(state_t *st, int32_t tid) {
  atomic_fetch_add(&st->calls, 1);
  if (tid < 0 || tid >= NTHREADS) {
    atomic_fetch_add(&st->bad_tid, 1);
    return 0;
  }
  if (atomic_fetch_add(&st->busy[tid], 1) != 0) atomic_fetch_add(&st->shared_tid, 1);
  return 1;
}

static void leave(state_t *st, int32_t tid) {
  spin();
  atomic_fetch_sub(&st->busy[tid], 1);
}

static int prefilter(blosc2_prefilter_params *p) {
  state_t *st = (state_t *)p->user_data;
  int owned = enter(st, p->tid);
  int32_t nitems = NITEMS;
  int32_t blen = p->nblock == 8 ? (nitems * TYPESIZE) % BLOCKSIZE : BLOCKSIZE;
  if (p->nchunk != st->sc->current_nchunk || p->ctx != st->sc->cctx) atomic_fetch_add(&st->bad_field, 1);
  if (p->output_offset != p->nblock * BLOCKSIZE || p->output_typesize != TYPESIZE) atomic_fetch_add(&st->bad_field, 1);
  if (p->output_size != blen || p->ttmp == NULL || p->ttmp_nbytes != TTMP_NBYTES) atomic_fetch_add(&st->bad_field, 1);
  memset(p->ttmp, 0xAB, p->ttmp_nbytes); /* all of it is ours to use */
  const int64_t *in = (const int64_t *)p->input;
  int64_t *out = (int64_t *)p->output;
  long long sum = 0;
  for (int32_t i = 0; i < p->output_size / TYPESIZE; i++) {
    out[i] = p->nchunk * 1000000 + p->output_offset / TYPESIZE + i + in[i];
    sum += out[i];
  }
  atomic_fetch_add(&st->sum, sum);
  if (owned) leave(st, p->tid);
  return st->fail;
}

static int postfilter(blosc2_postfilter_params *p) {
  state_t *st = (state_t *)p->user_data;
  int owned = enter(st, p->tid);
  if (p->nchunk != st->sc->current_nchunk || p->ctx != st->sc->dctx) atomic_fetch_add(&st->bad_field, 1);
  if (p->offset != p->nblock * BLOCKSIZE || p->typesize != TYPESIZE) atomic_fetch_add(&st->bad_field, 1);
  if (p->ttmp == NULL || p->ttmp_nbytes != TTMP_NBYTES) atomic_fetch_add(&st->bad_field, 1);
  const int64_t *in = (const int64_t *)p->input;
  int64_t *out = (int64_t *)p->output;
  for (int32_t i = 0; i < p->size / TYPESIZE; i++) out[i] = -in[i];
  if (owned) leave(st, p->tid);
  return 0;
}

static int narrowing(blosc2_prefilter_params *p) {
  state_t *st = (state_t *)p->user_data;
  atomic_fetch_add(&st->calls, 1);
  int32_t blen = p->nblock == 8 ? (NITEMS * TYPESIZE) % BLOCKSIZE : BLOCKSIZE;
  /* The block's items, at 4 bytes each. */
  if (p->output_typesize != 4 || p->output_size != blen / 2) atomic_fetch_add(&st->bad_field, 1);
  int32_t *out = (int32_t *)p->output;
  for (int32_t i = 0; i < p->output_size / 4; i++) out[i] = i;
  return 0;
}

static blosc2_schunk *new_schunk(blosc2_cparams *cp, blosc2_dparams *dp) {
  *cp = BLOSC2_CPARAMS_DEFAULTS;
  cp->typesize = TYPESIZE;
  cp->nthreads = NTHREADS;
  cp->blocksize = BLOCKSIZE;
  *dp = BLOSC2_DPARAMS_DEFAULTS;
  dp->nthreads = NTHREADS;
  blosc2_storage storage = {.contiguous = false, .cparams = cp, .dparams = dp};
  return blosc2_schunk_new(&storage);
}

/* What python-blosc2's _set_pref_expr does: prefilter and params on
 * storage->cparams, a new schunk->cctx from them. */
static void set_prefilter(blosc2_schunk *sc, blosc2_prefilter_fn fn, state_t *st, bool disposable, int32_t ots) {
  blosc2_cparams *cp = sc->storage->cparams;
  cp->prefilter = fn;
  /* Static, so that a super-chunk freed with its prefilter set leaks nothing. */
  static blosc2_prefilter_params params;
  blosc2_prefilter_params *pp = &params;
  memset(pp, 0, sizeof(*pp));
  pp->user_data = st;
  pp->output_is_disposable = disposable;
  pp->output_typesize = ots;
  cp->preparams = pp;
  blosc2_free_ctx(sc->cctx);
  sc->cctx = blosc2_create_cctx(*cp);
  CHECK(sc->cctx != NULL);
}

static void clear_prefilter(blosc2_schunk *sc) {
  blosc2_cparams *cp = sc->storage->cparams;
  cp->preparams = NULL;
  cp->prefilter = NULL;
}

static void check_threads(state_t *st, int expected_calls) {
  CHECK_EQ(atomic_load(&st->calls), expected_calls);
  CHECK_EQ(atomic_load(&st->bad_tid), 0);
  CHECK_EQ(atomic_load(&st->shared_tid), 0);
  CHECK_EQ(atomic_load(&st->bad_field), 0);
}

int main(void) {
  blosc2_init();
  const int32_t nbytes = NITEMS * TYPESIZE;
  int64_t *src = xmalloc(nbytes);
  int64_t *out = xmalloc(nbytes);
  int32_t chunk_len = nbytes + BLOSC2_MAX_OVERHEAD;
  uint8_t *chunk = xmalloc(chunk_len);
  for (int i = 0; i < NITEMS; i++) src[i] = 0;

  /* Prefilter fields, threads and the values written. */
  blosc2_cparams cp;
  blosc2_dparams dp;
  blosc2_schunk *sc = new_schunk(&cp, &dp);
  for (int c = 0; c < 3; c++) CHECK_EQ(blosc2_schunk_append_buffer(sc, src, nbytes), c + 1);
  state_t st = {.sc = sc};
  set_prefilter(sc, prefilter, &st, false, 0);
  sc->current_nchunk = 2;
  int csize = blosc2_compress_ctx(sc->cctx, src, nbytes, chunk, chunk_len);
  CHECK(csize > BLOSC_EXTENDED_HEADER_LENGTH);
  check_threads(&st, 9);
  CHECK_EQ(blosc2_decompress(chunk, csize, out, nbytes), nbytes);
  CHECK_EQ(out[0], 2000000);
  CHECK_EQ(out[NITEMS - 1], 2000000 + NITEMS - 1);
  CHECK_EQ(blosc2_schunk_update_chunk(sc, 2, chunk, true), 3);

  /* A disposable output: every block runs, the chunk holds zeros. */
  state_t red = {.sc = sc};
  set_prefilter(sc, prefilter, &red, true, 0);
  sc->current_nchunk = 1;
  csize = blosc2_compress_ctx(sc->cctx, src, nbytes, chunk, chunk_len);
  CHECK_EQ(csize, BLOSC_EXTENDED_HEADER_LENGTH);
  check_threads(&red, 9);
  long long expected = 0;
  for (long long i = 0; i < NITEMS; i++) expected += 1000000 + i;
  CHECK_EQ(atomic_load(&red.sum), expected);
  memset(out, 0xFF, nbytes);
  CHECK_EQ(blosc2_decompress(chunk, csize, out, nbytes), nbytes);
  CHECK_EQ(out[0], 0);
  CHECK_EQ(out[NITEMS - 1], 0);
  /* ... and a failing disposable prefilter does not fail the chunk. */
  red.fail = 1;
  CHECK_EQ(blosc2_compress_ctx(sc->cctx, src, nbytes, chunk, chunk_len), BLOSC_EXTENDED_HEADER_LENGTH);
  /* A failing prefilter otherwise fails the compression. */
  st.fail = 1;
  set_prefilter(sc, prefilter, &st, false, 0);
  CHECK(blosc2_compress_ctx(sc->cctx, src, nbytes, chunk, chunk_len) < 0);

  /* A type-narrowing prefilter (8-byte items in, 4-byte items out). */
  state_t nar = {.sc = sc};
  set_prefilter(sc, narrowing, &nar, false, 4);
  csize = blosc2_compress_ctx(sc->cctx, src, nbytes, chunk, chunk_len);
  CHECK(csize > 0);
  CHECK_EQ(atomic_load(&nar.calls), 9);
  CHECK_EQ(atomic_load(&nar.bad_field), 0);
  clear_prefilter(sc);

  /* Postfilter fields and threads, through schunk->dctx (python-blosc2's
   * _set_postfilter). */
  state_t post = {.sc = sc};
  blosc2_dparams *sdp = sc->storage->dparams;
  sdp->postfilter = postfilter;
  blosc2_postfilter_params *pp = calloc(1, sizeof(*pp));
  pp->user_data = &post;
  sdp->postparams = pp;
  blosc2_free_ctx(sc->dctx);
  sc->dctx = blosc2_create_dctx(*sdp);
  sc->current_nchunk = 2;
  CHECK_EQ(blosc2_schunk_decompress_chunk(sc, 2, out, nbytes), nbytes);
  check_threads(&post, 9);
  CHECK_EQ(out[0], -2000000);
  CHECK_EQ(out[NITEMS - 1], -(2000000 + NITEMS - 1));
  sdp->postfilter = NULL;
  sdp->postparams = NULL;
  free(pp);

  blosc2_schunk_free(sc);
  free(src);
  free(out);
  free(chunk);
  blosc2_destroy();
  TEST_DONE();
}
