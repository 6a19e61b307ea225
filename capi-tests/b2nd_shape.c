/* b2nd shape changes and arrays made from arrays through the C API:
 * resize (at the end and inside), insert, append (both paths), delete,
 * get_slice into a new array, copy (same and other partitions),
 * concatenate (aligned, unaligned, into a copy, into itself), and the
 * views of expand_dims, squeeze and squeeze_index. */
#include "b2nd_common.h"

enum { TS = 4 };

/* A model array. */
typedef struct {
  int ndim;
  int64_t shape[B2ND_MAX_DIM];
  uint8_t *data;
} model_t;

static void model_init(model_t *m, int ndim, const int64_t *shape, uint32_t seed) {
  m->ndim = ndim;
  memcpy(m->shape, shape, sizeof(int64_t) * ndim);
  int64_t n = prod(ndim, shape) * TS;
  m->data = xmalloc((size_t)n);
  fill_bytes(m->data, n, seed);
}

/* A new shape; items in `[0, keep)` are kept at offset `at` (per dim) and
 * the rest is zero. */
static void model_reshape(model_t *m, const int64_t *new_shape, const int64_t *src_start, const int64_t *src_stop,
                          const int64_t *dst_start) {
  int nd = m->ndim;
  int64_t n = prod(nd, new_shape) * TS;
  uint8_t *d = calloc((size_t)n + 1, 1);
  int64_t sub[B2ND_MAX_DIM], stop[B2ND_MAX_DIM];
  for (int i = 0; i < nd; i++) {
    sub[i] = src_stop[i] - src_start[i];
    stop[i] = dst_start[i] + sub[i];
  }
  int64_t sn = prod(nd, sub) * TS;
  uint8_t *tmp = xmalloc((size_t)sn);
  model_slice(nd, TS, m->data, m->shape, src_start, src_stop, tmp);
  model_set(nd, TS, d, new_shape, dst_start, stop, tmp);
  free(tmp);
  free(m->data);
  m->data = d;
  memcpy(m->shape, new_shape, sizeof(int64_t) * nd);
}

static b2nd_array_t *array_of(const model_t *m, const int32_t *chunks, const int32_t *blocks, bool contiguous) {
  b2nd_context_t *ctx = make_ctx(m->ndim, m->shape, chunks, blocks, TS, NULL, contiguous);
  b2nd_array_t *a = NULL;
  CHECK_EQ(b2nd_from_cbuffer(ctx, &a, m->data, prod(m->ndim, m->shape) * TS), 0);
  b2nd_free_ctx(ctx);
  return a;
}

static void test_resize_insert_append_delete(void) {
  int64_t shape[3] = {10, 7, 6};
  int32_t chunks[3] = {4, 3, 4};
  int32_t blocks[3] = {2, 2, 3};
  for (int contiguous = 0; contiguous < 2; contiguous++) {
    model_t m;
    model_init(&m, 3, shape, 21);
    b2nd_array_t *a = array_of(&m, chunks, blocks, contiguous);
    int64_t z[3] = {0, 0, 0};

    /* Grow at the end: new items are zeros. */
    int64_t g1[3] = {13, 9, 6};
    CHECK_EQ(b2nd_resize(a, g1, NULL), 0);
    check_public(a, 3, g1, chunks, blocks);
    model_reshape(&m, g1, z, m.shape, z);
    CHECK(content_is(a, m.data));

    /* Grow inside (whole chunks at a chunk boundary). */
    int64_t g2[3] = {17, 9, 6};
    int64_t at[3] = {4, 0, 0};
    CHECK_EQ(b2nd_resize(a, g2, at), 0);
    {
      int64_t head_stop[3] = {4, 9, 6};
      int64_t tail_start[3] = {4, 0, 0};
      int64_t tail_dst[3] = {8, 0, 0};
      uint8_t *old = xmalloc((size_t)(prod(3, m.shape) * TS));
      memcpy(old, m.data, (size_t)(prod(3, m.shape) * TS));
      model_t copy = m;
      copy.data = old;
      model_reshape(&m, g2, z, head_stop, z);
      /* The tail moves 4 rows down. */
      int64_t tail_stop[3] = {13, 9, 6};
      int64_t sub[3] = {9, 9, 6};
      uint8_t *tmp = xmalloc((size_t)(prod(3, sub) * TS));
      model_slice(3, TS, copy.data, copy.shape, tail_start, tail_stop, tmp);
      int64_t dstop[3] = {17, 9, 6};
      model_set(3, TS, m.data, m.shape, tail_dst, dstop, tmp);
      free(tmp);
      free(old);
    }
    CHECK(content_is(a, m.data));
    /* Inside, only whole chunks. */
    int64_t bad_at[3] = {3, 0, 0};
    int64_t g3[3] = {21, 9, 6};
    CHECK_EQ(b2nd_resize(a, g3, bad_at), BLOSC2_ERROR_INVALID_PARAM);

    /* Insert two rows along axis 1 at the end, then a chunk of rows
     * along axis 0 at the start. */
    int64_t slab[3] = {17, 2, 6};
    int64_t sn = prod(3, slab) * TS;
    uint8_t *ins = xmalloc((size_t)sn);
    fill_bytes(ins, sn, 22);
    CHECK_EQ(b2nd_insert(a, ins, sn, 1, 9), 0);
    int64_t g4[3] = {17, 11, 6};
    model_reshape(&m, g4, z, m.shape, z);
    int64_t s0[3] = {0, 9, 0};
    model_set(3, TS, m.data, m.shape, s0, g4, ins);
    CHECK(content_is(a, m.data));
    free(ins);
    int64_t slab0[3] = {4, 11, 6};
    sn = prod(3, slab0) * TS;
    ins = xmalloc((size_t)sn);
    fill_bytes(ins, sn, 23);
    CHECK_EQ(b2nd_insert(a, ins, sn, 0, 0), 0);
    int64_t g5[3] = {21, 11, 6};
    int64_t down[3] = {4, 0, 0};
    model_reshape(&m, g5, z, m.shape, down);
    model_set(3, TS, m.data, m.shape, z, slab0, ins);
    CHECK(content_is(a, m.data));
    CHECK_EQ(b2nd_insert(a, ins, sn - 4, 0, 0), BLOSC2_ERROR_INVALID_PARAM);
    CHECK_EQ(b2nd_insert(a, ins, sn, 3, 0), BLOSC2_ERROR_INVALID_PARAM);
    free(ins);

    /* Append along axis 2. */
    int64_t slab2[3] = {21, 11, 3};
    sn = prod(3, slab2) * TS;
    ins = xmalloc((size_t)sn);
    fill_bytes(ins, sn, 24);
    CHECK_EQ(b2nd_append(a, ins, sn, 2), 0);
    int64_t g6[3] = {21, 11, 9};
    model_reshape(&m, g6, z, m.shape, z);
    int64_t s6[3] = {0, 0, 6};
    model_set(3, TS, m.data, m.shape, s6, g6, ins);
    CHECK(content_is(a, m.data));
    free(ins);

    /* Delete whole chunks inside, then items at the end. */
    CHECK_EQ(b2nd_delete(a, 0, 4, 8), 0);
    {
      int64_t g7[3] = {13, 11, 9};
      uint8_t *old = xmalloc((size_t)(prod(3, m.shape) * TS));
      memcpy(old, m.data, (size_t)(prod(3, m.shape) * TS));
      model_t copy = m;
      copy.data = old;
      int64_t keep[3] = {4, 11, 9};
      model_reshape(&m, g7, z, keep, z);
      int64_t from[3] = {12, 0, 0}, to[3] = {21, 11, 9}, dst[3] = {4, 0, 0}, sub[3] = {9, 11, 9};
      uint8_t *tmp = xmalloc((size_t)(prod(3, sub) * TS));
      model_slice(3, TS, copy.data, copy.shape, from, to, tmp);
      int64_t dstop[3] = {13, 11, 9};
      model_set(3, TS, m.data, m.shape, dst, dstop, tmp);
      free(tmp);
      free(old);
    }
    CHECK(content_is(a, m.data));
    CHECK_EQ(b2nd_delete(a, 2, 7, 2), 0);
    int64_t g8[3] = {13, 11, 7};
    model_reshape(&m, g8, z, g8, z);
    CHECK(content_is(a, m.data));
    CHECK_EQ(b2nd_delete(a, 1, 3, 2), BLOSC2_ERROR_INVALID_PARAM);
#ifndef CAPI_REFERENCE
    CHECK_EQ(b2nd_delete(a, 1, 0, 12), BLOSC2_ERROR_INVALID_PARAM);
    CHECK_EQ(b2nd_delete(a, -1, 0, 1), BLOSC2_ERROR_INVALID_PARAM);
    int64_t negative[3] = {-1, 11, 7};
    CHECK_EQ(b2nd_resize(a, negative, NULL), BLOSC2_ERROR_INVALID_PARAM);
#endif
    check_public(a, 3, g8, chunks, blocks);
    CHECK_EQ(b2nd_free(a), 0);
    free(m.data);
  }

  /* The fast append path: one whole chunk of a 2-D array whose chunks
   * span the other dimension. */
  int64_t s2[2] = {8, 6};
  int32_t c2[2] = {4, 6}, b2[2] = {2, 6};
  model_t m;
  model_init(&m, 2, s2, 31);
  b2nd_array_t *a = array_of(&m, c2, b2, true);
  uint8_t chunk[4 * 6 * TS];
  fill_bytes(chunk, sizeof(chunk), 32);
  int64_t before = a->sc->nchunks;
  CHECK_EQ(b2nd_append(a, chunk, sizeof(chunk), 0), 0);
  CHECK_EQ(a->sc->nchunks, before + 1);
  CHECK_EQ(a->shape[0], 12);
  int64_t z[2] = {0, 0}, g[2] = {12, 6}, at[2] = {8, 0};
  model_reshape(&m, g, z, m.shape, z);
  model_set(2, TS, m.data, m.shape, at, g, chunk);
  CHECK(content_is(a, m.data));
  CHECK_EQ(b2nd_free(a), 0);
  free(m.data);
}

static void test_get_slice_and_copy(void) {
  int64_t shape[2] = {23, 17};
  int32_t chunks[2] = {6, 5}, blocks[2] = {3, 2};
  model_t m;
  model_init(&m, 2, shape, 41);
  b2nd_array_t *a = array_of(&m, chunks, blocks, true);
  CHECK(blosc2_vlmeta_add(a->sc, "note", (uint8_t *)"abc", 3, NULL) >= 0);

  /* A slice into a new array with another partition. */
  int32_t c2[2] = {4, 4}, b2[2] = {2, 4};
  int64_t placeholder[2] = {1, 1};
  b2nd_context_t *ctx = make_ctx(2, placeholder, c2, b2, TS, NULL, false);
  int64_t start[2] = {3, 2}, stop[2] = {20, 11}, sub[2] = {17, 9};
  b2nd_array_t *s;
  CHECK_EQ(b2nd_get_slice(ctx, &s, a, start, stop), 0);
  check_public(s, 2, sub, c2, b2);
  uint8_t *want = xmalloc((size_t)(prod(2, sub) * TS));
  model_slice(2, TS, m.data, m.shape, start, stop, want);
  CHECK(content_is(s, want));
  free(want);
  CHECK_EQ(b2nd_free(s), 0);
#ifndef CAPI_REFERENCE
  int64_t bad_stop[2] = {24, 11};
  s = (b2nd_array_t *)1;
  CHECK_EQ(b2nd_get_slice(ctx, &s, a, start, bad_stop), BLOSC2_ERROR_INVALID_PARAM);
  CHECK(s == NULL);
#endif

  /* Copies: another partition (re-chunked, vlmetalayers follow)... */
  b2nd_array_t *c;
  CHECK_EQ(b2nd_copy(ctx, a, &c), 0);
  check_public(c, 2, shape, c2, b2);
  CHECK(content_is(c, m.data));
  uint8_t *content;
  int32_t clen;
  CHECK(blosc2_vlmeta_get(c->sc, "note", &content, &clen) >= 0);
  CHECK_EQ(clen, 3);
  free(content);
  CHECK_EQ(b2nd_free(c), 0);
  CHECK_EQ(b2nd_free_ctx(ctx), 0);
  /* ...and the same one (the super-chunk is copied), onto disk. */
  const char *path = scratch_path("copy.b2nd");
  ctx = make_ctx(2, placeholder, chunks, blocks, TS, path, true);
  CHECK_EQ(b2nd_copy(ctx, a, &c), 0);
  check_public(c, 2, shape, chunks, blocks);
  CHECK(content_is(c, m.data));
  CHECK_EQ(b2nd_free(c), 0);
  CHECK_EQ(b2nd_open(path, &c), 0);
  CHECK(content_is(c, m.data));
  CHECK_EQ(b2nd_free(c), 0);
  CHECK_EQ(b2nd_free_ctx(ctx), 0);
  CHECK_EQ(b2nd_free(a), 0);
  free(m.data);
}

static void test_concatenate(void) {
  int64_t s1[2] = {12, 7}, s2[2] = {5, 7};
  int32_t chunks[2] = {4, 4}, blocks[2] = {2, 2};
  for (int variant = 0; variant < 4; variant++) {
    model_t m1, m2;
    model_init(&m1, 2, s1, 51);
    model_init(&m2, 2, s2, 52);
    int32_t c2[2] = {4, 4}, b2[2] = {2, 2};
    if (variant & 1) {
      /* Another partition: the unaligned path. */
      c2[0] = 3;
      b2[1] = 4;
    }
    b2nd_array_t *a = array_of(&m1, chunks, blocks, true);
    b2nd_array_t *b = array_of(&m2, c2, b2, false);
    bool copy = variant >= 2;
    b2nd_context_t *ctx = make_ctx(2, s1, chunks, blocks, TS, NULL, true);
    b2nd_array_t *r = NULL;
    CHECK_EQ(b2nd_concatenate(ctx, a, b, 0, copy, &r), 0);
    CHECK(copy ? r != a : r == a);
    int64_t g[2] = {17, 7}, z[2] = {0, 0}, at[2] = {12, 0};
    model_reshape(&m1, g, z, m1.shape, z);
    model_set(2, TS, m1.data, m1.shape, at, g, m2.data);
    CHECK(content_is(r, m1.data));
    check_public(r, 2, g, chunks, blocks);
    if (copy) {
      CHECK_EQ(a->shape[0], 12);
      CHECK_EQ(b2nd_free(r), 0);
    }
    /* Shapes that do not match, bad axes. */
    b2nd_array_t *x;
    CHECK_EQ(b2nd_concatenate(ctx, a, b, 1, false, &x), BLOSC2_ERROR_INVALID_PARAM);
    CHECK_EQ(b2nd_concatenate(ctx, a, b, 2, false, &x), BLOSC2_ERROR_INVALID_PARAM);
    CHECK_EQ(b2nd_free_ctx(ctx), 0);
    CHECK_EQ(b2nd_free(a), 0);
    CHECK_EQ(b2nd_free(b), 0);
    free(m1.data);
    free(m2.data);
  }
#ifndef CAPI_REFERENCE
  /* An array concatenated with itself (3.3.5 reads the source after
   * resizing it). */
  model_t m;
  model_init(&m, 2, s1, 53);
  b2nd_array_t *a = array_of(&m, chunks, blocks, true);
  b2nd_array_t *r;
  CHECK_EQ(b2nd_concatenate(NULL, a, a, 1, false, &r), 0);
  CHECK(r == a);
  int64_t g[2] = {12, 14}, z[2] = {0, 0}, at[2] = {0, 7};
  uint8_t *orig = xmalloc(12 * 7 * TS);
  memcpy(orig, m.data, 12 * 7 * TS);
  model_reshape(&m, g, z, m.shape, z);
  model_set(2, TS, m.data, m.shape, at, g, orig);
  CHECK(content_is(a, m.data));
  CHECK_EQ(b2nd_free(a), 0);
  free(orig);
  free(m.data);
#endif
}

static void test_views(void) {
  int64_t shape[3] = {1, 10, 3};
  int32_t chunks[3] = {1, 4, 3}, blocks[3] = {1, 3, 2};
  model_t m;
  model_init(&m, 3, shape, 61);
  b2nd_array_t *a = array_of(&m, chunks, blocks, true);
  /* squeeze drops the dimension of size 1. */
  b2nd_array_t *v;
  CHECK_EQ(b2nd_squeeze(a, &v), 0);
  CHECK_EQ(v->ndim, 2);
  CHECK_EQ(v->shape[0], 10);
  CHECK_EQ(v->shape[1], 3);
  CHECK(v->sc->view);
  CHECK(content_is(v, m.data));
  /* expand_dims adds dimensions back. */
  bool axis[4] = {true, false, true, false};
  b2nd_array_t *e;
  CHECK_EQ(b2nd_expand_dims(v, &e, axis, 4), 0);
  CHECK_EQ(e->ndim, 4);
  CHECK_EQ(e->shape[0], 1);
  CHECK_EQ(e->shape[1], 10);
  CHECK_EQ(e->shape[2], 1);
  CHECK_EQ(e->shape[3], 3);
  CHECK(content_is(e, m.data));
  CHECK_EQ(b2nd_free(e), 0);
  CHECK_EQ(b2nd_free(v), 0);
  /* squeeze_index: only where asked, and only dimensions of size 1. */
  bool idx[3] = {true, false, false};
  CHECK_EQ(b2nd_squeeze_index(a, &v, idx), 0);
  CHECK_EQ(v->ndim, 2);
  CHECK(content_is(v, m.data));
  CHECK_EQ(b2nd_free(v), 0);
  bool bad[3] = {false, true, false};
  CHECK_EQ(b2nd_squeeze_index(a, &v, bad), BLOSC2_ERROR_INVALID_INDEX);
#ifndef CAPI_REFERENCE
  bool too_few[2] = {true, false};
  CHECK_EQ(b2nd_expand_dims(a, &v, too_few, 2), BLOSC2_ERROR_INVALID_PARAM);
  CHECK(v == NULL);
#endif
  CHECK_EQ(b2nd_free(a), 0);
  free(m.data);
}

/* A context may have a zero chunkshape on a non-empty dimension when it
 * only serves empty slices (3.3.5's examples/b2nd/example_empty_shape.c);
 * an array of that shape made from it is refused. */
static void test_empty_slice_context(void) {
  int64_t shape[2] = {10, 10};
  int32_t chunks[2] = {4, 4}, blocks[2] = {2, 2};
  int32_t zchunks[2] = {0, 1}, zblocks[2] = {0, 1};
  blosc2_cparams cp = BLOSC2_CPARAMS_DEFAULTS;
  cp.typesize = 8;
  blosc2_storage st = {.cparams = &cp};
  b2nd_context_t *ctx = b2nd_create_ctx(&st, 2, shape, chunks, blocks, NULL, 0, NULL, 0);
  CHECK(ctx != NULL);
  b2nd_array_t *arr = NULL;
  CHECK_EQ(b2nd_zeros(ctx, &arr), 0);
  b2nd_context_t *zctx = b2nd_create_ctx(&st, 2, shape, zchunks, zblocks, NULL, 0, NULL, 0);
  CHECK(zctx != NULL);
#ifndef CAPI_REFERENCE
  /* (3.3.5 divides by zero here.) */
  b2nd_array_t *bad = NULL;
  CHECK(b2nd_empty(zctx, &bad) < 0);
  CHECK(bad == NULL);
#endif
  /* b2nd_get_slice sets the context's shape to the slice's, as 3.3.5. */
  int64_t start[2] = {2, 5}, stop[2] = {2, 6};
  b2nd_array_t *slice = NULL;
  CHECK_EQ(b2nd_get_slice(zctx, &slice, arr, start, stop), 0);
  CHECK(slice != NULL);
  if (slice != NULL) {
    CHECK_EQ(slice->shape[0], 0);
    CHECK_EQ(slice->shape[1], 1);
    CHECK_EQ(slice->nitems, 0);
    uint8_t one[8];
    CHECK_EQ(b2nd_to_cbuffer(slice, one, 0), 0);
    CHECK_EQ(b2nd_free(slice), 0);
  }
  int32_t negative[2] = {-1, 1};
  CHECK(b2nd_create_ctx(&st, 2, shape, negative, blocks, NULL, 0, NULL, 0) == NULL);
  int32_t zero_block[2] = {4, 0};
  CHECK(b2nd_create_ctx(&st, 2, shape, chunks, zero_block, NULL, 0, NULL, 0) == NULL);
  CHECK_EQ(b2nd_free(arr), 0);
  CHECK_EQ(b2nd_free_ctx(zctx), 0);
  CHECK_EQ(b2nd_free_ctx(ctx), 0);
}

int main(void) {
  blosc2_init();
  scratch_init("shape");
  test_resize_insert_append_delete();
  test_get_slice_and_copy();
  test_concatenate();
  test_views();
  test_empty_slice_context();
  scratch_done();
  blosc2_destroy();
  TEST_DONE();
}
