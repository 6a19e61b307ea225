/* b2nd arrays through the C API: contexts, creation (empty, zeros,
 * uninit, nans, full, from_cbuffer), the public fields of b2nd_array_t,
 * slices to and from C buffers in 1 to 8 dimensions, sparse and
 * orthogonal selections, the metalayer helpers (serialize, deserialize,
 * the header's inline reader, print_meta), copy_buffer(2), and bad input. */
#include "b2nd_common.h"

#include <math.h>

static void test_create_and_fields(void) {
  int64_t shape[2] = {37, 23};
  int32_t chunks[2] = {10, 8};
  int32_t blocks[2] = {5, 4};
  b2nd_context_t *ctx = make_ctx(2, shape, chunks, blocks, 8, NULL, true);
  CHECK(ctx != NULL);
  b2nd_array_t *a = NULL;

  CHECK_EQ(b2nd_zeros(ctx, &a), 0);
  check_public(a, 2, shape, chunks, blocks);
  CHECK(a->dtype != NULL && strcmp(a->dtype, "|S8") == 0);
  CHECK_EQ(a->dtype_format, 0);
  CHECK(a->chunk_cache.data == NULL);
  CHECK_EQ(a->chunk_cache.nchunk, -1);
  CHECK_EQ(a->sc->typesize, 8);
  CHECK_EQ(a->sc->blocksize, 5 * 4 * 8);
  CHECK_EQ(a->sc->nchunks, 12);
  uint8_t *zero = calloc(37 * 23, 8);
  CHECK(content_is(a, zero));
  /* The b2nd metalayer is visible through the inline blosc2_meta_get. */
  uint8_t *smeta;
  int32_t smeta_len;
  CHECK(blosc2_meta_exists(a->sc, "b2nd") >= 0);
  CHECK_EQ(blosc2_meta_get(a->sc, "b2nd", &smeta, &smeta_len), 0);
  int8_t nd;
  int64_t sh[B2ND_MAX_DIM];
  int32_t ch[B2ND_MAX_DIM], bl[B2ND_MAX_DIM];
  char *dtype;
  int8_t fmt;
  CHECK_EQ(b2nd_deserialize_meta_inline(smeta, smeta_len, &nd, sh, ch, bl, &dtype, &fmt), smeta_len);
  CHECK_EQ(nd, 2);
  CHECK_EQ(sh[0], 37);
  CHECK_EQ(bl[1], 4);
  CHECK(strcmp(dtype, "|S8") == 0);
  free(dtype);
  free(smeta);
  CHECK_EQ(b2nd_free(a), 0);

  CHECK_EQ(b2nd_empty(ctx, &a), 0);
  CHECK(content_is(a, zero));
  CHECK_EQ(b2nd_free(a), 0);
  CHECK_EQ(b2nd_uninit(ctx, &a), 0);
  check_public(a, 2, shape, chunks, blocks);
  CHECK_EQ(b2nd_free(a), 0);

  CHECK_EQ(b2nd_nans(ctx, &a), 0);
  double *d = malloc(37 * 23 * 8);
  CHECK_EQ(b2nd_to_cbuffer(a, d, 37 * 23 * 8), 0);
  bool all_nan = true;
  for (int i = 0; i < 37 * 23; i++) all_nan &= isnan(d[i]);
  CHECK(all_nan);
  CHECK_EQ(b2nd_free(a), 0);

  int64_t v = -77;
  CHECK_EQ(b2nd_full(ctx, &a, &v), 0);
  CHECK_EQ(b2nd_to_cbuffer(a, d, 37 * 23 * 8), 0);
  bool all_v = true;
  for (int i = 0; i < 37 * 23; i++) all_v &= memcmp(&d[i], &v, 8) == 0;
  CHECK(all_v);
  CHECK_EQ(b2nd_free(a), 0);
  free(d);

  /* from_cbuffer / to_cbuffer round trip. */
  uint8_t *data = malloc(37 * 23 * 8);
  fill_bytes(data, 37 * 23 * 8, 1);
  CHECK_EQ(b2nd_from_cbuffer(ctx, &a, data, 37 * 23 * 8), 0);
  CHECK(content_is(a, data));
  CHECK_EQ(b2nd_free(a), 0);
#ifndef CAPI_REFERENCE
  /* Too small a buffer: an error and no array (3.3.5 leaves one). */
  a = (b2nd_array_t *)1;
  CHECK_EQ(b2nd_from_cbuffer(ctx, &a, data, 37 * 23 * 8 - 1), BLOSC2_ERROR_INVALID_PARAM);
  CHECK(a == NULL);
#endif
  free(data);
  free(zero);
  CHECK_EQ(b2nd_free_ctx(ctx), 0);

  /* NaNs need 4- or 8-byte items. */
  ctx = make_ctx(2, shape, chunks, blocks, 2, NULL, false);
  CHECK_EQ(b2nd_nans(ctx, &a), BLOSC2_ERROR_DATA);
#ifndef CAPI_REFERENCE
  CHECK(a == NULL);
#else
  b2nd_free(a);
#endif
  CHECK_EQ(b2nd_free_ctx(ctx), 0);

  /* 0-dimensional arrays hold one item. */
  ctx = make_ctx(0, NULL, NULL, NULL, 4, NULL, true);
  CHECK(ctx != NULL);
  float f = 42.5f, g = 0;
  CHECK_EQ(b2nd_from_cbuffer(ctx, &a, &f, 4), 0);
  CHECK_EQ(a->ndim, 0);
  CHECK_EQ(a->nitems, 1);
  CHECK_EQ(a->sc->nchunks, 1);
  CHECK_EQ(b2nd_to_cbuffer(a, &g, 4), 0);
  CHECK(g == 42.5f);
  int64_t none[1] = {0};
  f = -1.5f;
  CHECK_EQ(b2nd_set_slice_cbuffer(&f, none, 4, none, none, a), 0);
  CHECK_EQ(b2nd_get_slice_cbuffer(a, none, none, &g, none, 4), 0);
  CHECK(g == -1.5f);
  CHECK_EQ(b2nd_free(a), 0);
  CHECK_EQ(b2nd_free_ctx(ctx), 0);

  /* Empty dimensions. */
  int64_t eshape[2] = {0, 5};
  int32_t echunks[2] = {4, 5}, eblocks[2] = {2, 5};
  ctx = make_ctx(2, eshape, echunks, eblocks, 4, NULL, true);
  CHECK_EQ(b2nd_zeros(ctx, &a), 0);
  CHECK_EQ(a->nitems, 0);
  CHECK_EQ(a->sc->nchunks, 0);
  CHECK_EQ(a->sc->chunksize, 4 * 5 * 4);
  CHECK_EQ(b2nd_free(a), 0);
  CHECK_EQ(b2nd_free_ctx(ctx), 0);
}

/* Random slices against the model, 1 to 8 dimensions, every item size,
 * in memory (contiguous or not) and on disk. */
static void test_slices(void) {
  static const int budget[9] = {0, 300, 40, 12, 7, 5, 4, 3, 3};
  int k = 0;
  for (int nd = 1; nd <= 8; nd++) {
    for (int ts = 1; ts <= 16; ts *= 2) {
      int64_t shape[B2ND_MAX_DIM];
      int32_t chunks[B2ND_MAX_DIM], blocks[B2ND_MAX_DIM];
      for (int i = 0; i < nd; i++) {
        shape[i] = 1 + rnd(budget[nd]);
        chunks[i] = (int32_t)(1 + rnd(shape[i]));
        blocks[i] = (int32_t)(1 + rnd(chunks[i]));
      }
      for (int where = 0; where < 4; where++) {
        char name[32];
        snprintf(name, sizeof(name), "s%d.b2nd", k++);
        const char *path = where >= 2 ? scratch_path(name) : NULL;
        b2nd_context_t *ctx = make_ctx(nd, shape, chunks, blocks, ts, path, where % 2 == 1);
        CHECK(ctx != NULL);
        int64_t n = prod(nd, shape) * ts;
        uint8_t *model = malloc((size_t)n);
        fill_bytes(model, n, (uint32_t)k);
        b2nd_array_t *a;
        CHECK_EQ(b2nd_from_cbuffer(ctx, &a, model, n), 0);
        check_public(a, nd, shape, chunks, blocks);
        CHECK(content_is(a, model));
        for (int round = 0; round < 3; round++) {
          int64_t start[B2ND_MAX_DIM], stop[B2ND_MAX_DIM], sub[B2ND_MAX_DIM];
          for (int i = 0; i < nd; i++) {
            start[i] = rnd(shape[i]);
            stop[i] = start[i] + 1 + rnd(shape[i] - start[i]);
            sub[i] = stop[i] - start[i];
          }
          int64_t sn = prod(nd, sub) * ts;
          uint8_t *got = malloc((size_t)sn), *want = malloc((size_t)sn);
          CHECK_EQ(b2nd_get_slice_cbuffer(a, start, stop, got, sub, sn), 0);
          model_slice(nd, ts, model, shape, start, stop, want);
          CHECK(memcmp(got, want, (size_t)sn) == 0);
          fill_bytes(got, sn, (uint32_t)(round + 100 * k));
          CHECK_EQ(b2nd_set_slice_cbuffer(got, sub, sn, start, stop, a), 0);
          model_set(nd, ts, model, shape, start, stop, got);
          CHECK(content_is(a, model));
          free(got);
          free(want);
        }
        if (path != NULL) {
          b2nd_array_t *b;
          CHECK_EQ(b2nd_open(path, &b), 0);
          CHECK(content_is(b, model));
          check_public(b, nd, shape, chunks, blocks);
          CHECK_EQ(b2nd_free(b), 0);
        }
        CHECK_EQ(b2nd_free(a), 0);
        CHECK_EQ(b2nd_free_ctx(ctx), 0);
        free(model);
      }
    }
  }
}

static void test_selections(void) {
  int64_t shape[3] = {9, 10, 11};
  int32_t chunks[3] = {4, 5, 6};
  int32_t blocks[3] = {2, 3, 3};
  b2nd_context_t *ctx = make_ctx(3, shape, chunks, blocks, 2, NULL, true);
  int64_t n = 9 * 10 * 11 * 2;
  uint8_t *model = malloc((size_t)n);
  fill_bytes(model, n, 9);
  b2nd_array_t *a;
  CHECK_EQ(b2nd_from_cbuffer(ctx, &a, model, n), 0);

  /* Sparse gather by flat coordinates. */
  int64_t coords[6] = {0, 989, 5, 500, 5, 123};
  uint16_t got[6];
  CHECK_EQ(b2nd_get_sparse_cbuffer(a, 6, coords, got, sizeof(got)), 0);
  for (int i = 0; i < 6; i++) CHECK(memcmp(&got[i], model + coords[i] * 2, 2) == 0);
  CHECK_EQ(b2nd_get_sparse_cbuffer(a, 0, NULL, NULL, 0), 0);
  CHECK_EQ(b2nd_get_sparse_cbuffer(a, 6, coords, got, 11), BLOSC2_ERROR_INVALID_PARAM);
  coords[1] = 990;
  CHECK(b2nd_get_sparse_cbuffer(a, 6, coords, got, sizeof(got)) < 0);
  CHECK_EQ(b2nd_get_sparse_cbuffer(a, -1, coords, got, sizeof(got)), BLOSC2_ERROR_INVALID_PARAM);

  /* Orthogonal get and set. */
  int64_t s0[2] = {8, 1}, s1[3] = {0, 9, 4}, s2[2] = {10, 3};
  int64_t *sel[3] = {s0, s1, s2};
  int64_t sizes[3] = {2, 3, 2};
  int64_t bshape[3] = {2, 3, 2};
  uint16_t og[12];
  CHECK_EQ(b2nd_get_orthogonal_selection(a, sel, sizes, og, bshape, sizeof(og)), 0);
  int64_t st[3];
  strides_of(3, shape, st);
  for (int i = 0; i < 2; i++)
    for (int j = 0; j < 3; j++)
      for (int l = 0; l < 2; l++) {
        int64_t off = s0[i] * st[0] + s1[j] * st[1] + s2[l] * st[2];
        CHECK(memcmp(&og[(i * 3 + j) * 2 + l], model + off * 2, 2) == 0);
      }
  uint16_t os[12];
  for (int i = 0; i < 12; i++) os[i] = (uint16_t)(1000 + i);
  CHECK_EQ(b2nd_set_orthogonal_selection(a, sel, sizes, os, bshape, sizeof(os)), 0);
  for (int i = 0; i < 2; i++)
    for (int j = 0; j < 3; j++)
      for (int l = 0; l < 2; l++) {
        int64_t off = s0[i] * st[0] + s1[j] * st[1] + s2[l] * st[2];
        memcpy(model + off * 2, &os[(i * 3 + j) * 2 + l], 2);
      }
  CHECK(content_is(a, model));
  /* An index past the end. */
  s1[0] = 11;
  CHECK_EQ(b2nd_get_orthogonal_selection(a, sel, sizes, og, bshape, sizeof(og)), BLOSC2_ERROR_INVALID_INDEX);
  s1[0] = 0;
  /* 3.3.5 refuses a buffer larger than the selection. */
  uint16_t big[13];
  CHECK_EQ(b2nd_get_orthogonal_selection(a, sel, sizes, big, bshape, sizeof(big)), BLOSC2_ERROR_INVALID_PARAM);

  CHECK_EQ(b2nd_free(a), 0);
  CHECK_EQ(b2nd_free_ctx(ctx), 0);
  free(model);
}

static void test_meta_helpers(void) {
  int64_t shape[2] = {37, 23};
  int32_t chunks[2] = {10, 8};
  int32_t blocks[2] = {5, 4};
  uint8_t *smeta = NULL;
  int len = b2nd_serialize_meta(2, shape, chunks, blocks, "<f8", 0, &smeta);
  /* Byte for byte what 3.3.5 writes (corpus entry b2nd-0002). */
  static const uint8_t want[] = {0x97, 0x00, 0x02, 0x92, 0xd3, 0, 0, 0, 0, 0, 0, 0, 0x25, 0xd3, 0, 0, 0, 0, 0,
                                 0, 0, 0x17, 0x92, 0xd2, 0, 0, 0, 0x0a, 0xd2, 0, 0, 0, 0x08, 0x92, 0xd2, 0,
                                 0, 0, 0x05, 0xd2, 0, 0, 0, 0x04, 0x00, 0xdb, 0, 0, 0, 3, '<', 'f', '8'};
  CHECK_EQ(len, (int)sizeof(want));
  CHECK(smeta != NULL && memcmp(smeta, want, sizeof(want)) == 0);

  int8_t nd = 0;
  int64_t sh[B2ND_MAX_DIM];
  int32_t ch[B2ND_MAX_DIM], bl[B2ND_MAX_DIM];
  char *dtype = NULL;
  int8_t fmt = -1;
  CHECK_EQ(b2nd_deserialize_meta(smeta, len, &nd, sh, ch, bl, &dtype, &fmt), len);
  CHECK_EQ(nd, 2);
  CHECK_EQ(sh[1], 23);
  CHECK_EQ(ch[0], 10);
  CHECK_EQ(bl[1], 4);
  CHECK(dtype != NULL && strcmp(dtype, "<f8") == 0);
  CHECK_EQ(fmt, 0);
  free(dtype);
  /* Without the dtype pointers only the dimensions are read. */
  CHECK_EQ(b2nd_deserialize_meta(smeta, len, &nd, sh, ch, bl, NULL, NULL), len - 9);
  CHECK_EQ(b2nd_deserialize_meta_inline(smeta, len, &nd, sh, ch, bl, NULL, NULL), len - 9);
  /* Every truncation is an error, never a crash. */
  for (int cut = 1; cut < len; cut++) {
    if (cut == len - 9) continue;
    dtype = NULL;
    CHECK(b2nd_deserialize_meta(smeta, cut, &nd, sh, ch, bl, &dtype, &fmt) < 0);
    CHECK(b2nd_deserialize_meta_inline(smeta, cut, &nd, sh, ch, bl, &dtype, &fmt) < 0);
  }
  smeta[2] = 17;
  CHECK(b2nd_deserialize_meta(smeta, len, &nd, sh, ch, bl, &dtype, &fmt) < 0);
  CHECK(b2nd_deserialize_meta_inline(smeta, len, &nd, sh, ch, bl, &dtype, &fmt) < 0);
  free(smeta);
  /* Default dtype, 0 dimensions. */
  len = b2nd_serialize_meta(0, NULL, NULL, NULL, NULL, 0, &smeta);
  CHECK_EQ(len, 15);
  CHECK(memcmp(smeta + 12, "|u1", 3) == 0);
  free(smeta);
  CHECK_EQ(b2nd_serialize_meta(1, shape, chunks, blocks, NULL, -1, &smeta), BLOSC2_ERROR_FAILURE);
#ifndef CAPI_REFERENCE
  CHECK_EQ(b2nd_serialize_meta(17, shape, chunks, blocks, NULL, 0, &smeta), BLOSC2_ERROR_FAILURE);
  CHECK_EQ(b2nd_deserialize_meta(NULL, 4, &nd, sh, ch, bl, NULL, NULL), BLOSC2_ERROR_NULL_POINTER);
#endif

  /* print_meta writes the metalayer on stdout. */
  b2nd_context_t *ctx = make_ctx(2, shape, chunks, blocks, 4, NULL, false);
  b2nd_array_t *a;
  CHECK_EQ(b2nd_zeros(ctx, &a), 0);
  fflush(stdout);
  CHECK_EQ(b2nd_print_meta(a), 0);
  fflush(stdout);
  CHECK_EQ(b2nd_free(a), 0);
  CHECK_EQ(b2nd_free_ctx(ctx), 0);
}

static void test_copy_buffer(void) {
  /* A 5x6 buffer of 2-byte items; copy [1:3, 2:5] to (1, 1) of a 3x4. */
  uint8_t src[60], dst[24];
  for (int i = 0; i < 60; i++) src[i] = (uint8_t)i;
  memset(dst, 0, sizeof(dst));
  int64_t sp[2] = {5, 6}, s0[2] = {1, 2}, s1[2] = {3, 5}, dp[2] = {3, 4}, d0[2] = {1, 1};
  CHECK_EQ(b2nd_copy_buffer2(2, 2, src, sp, s0, s1, dst, dp, d0), 0);
  static const uint8_t want[24] = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 16, 17, 18, 19, 20, 21, 0, 0, 28, 29, 30, 31, 32, 33};
  CHECK(memcmp(dst, want, 24) == 0);
  memset(dst, 0, sizeof(dst));
#if defined(__GNUC__)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"
#endif
  CHECK_EQ(b2nd_copy_buffer(2, 2, src, sp, s0, s1, dst, dp, d0), 0);
#if defined(__GNUC__)
#pragma GCC diagnostic pop
#endif
  CHECK(memcmp(dst, want, 24) == 0);
  /* Empty regions copy nothing. */
  int64_t e1[2] = {1, 2};
  CHECK_EQ(b2nd_copy_buffer2(2, 2, src, sp, s0, e1, dst, dp, d0), 0);
#ifndef CAPI_REFERENCE
  /* Regions outside the buffers are refused instead of overflowing. */
  int64_t far[2] = {3, 7};
  CHECK_EQ(b2nd_copy_buffer2(2, 2, src, sp, s0, far, dst, dp, d0), BLOSC2_ERROR_INVALID_PARAM);
  int64_t d2[2] = {2, 2};
  CHECK_EQ(b2nd_copy_buffer2(2, 2, src, sp, s0, s1, dst, dp, d2), BLOSC2_ERROR_INVALID_PARAM);
  CHECK_EQ(b2nd_copy_buffer2(17, 2, src, sp, s0, s1, dst, dp, d0), BLOSC2_ERROR_INVALID_PARAM);
  CHECK_EQ(b2nd_copy_buffer2(2, 2, src, NULL, s0, s1, dst, dp, d0), BLOSC2_ERROR_NULL_POINTER);
#endif
}

static void test_bad_input(void) {
  int64_t shape[2] = {10, 10};
  int32_t chunks[2] = {5, 5};
  int32_t blocks[2] = {5, 5};
  /* Contexts for impossible shapes are not made. */
  int64_t neg[2] = {-1, 10};
  CHECK(make_ctx(2, neg, chunks, blocks, 4, NULL, false) == NULL);
  int32_t zero_block[2] = {5, 0};
  CHECK(make_ctx(2, shape, chunks, zero_block, 4, NULL, false) == NULL);
  int32_t huge_block[2] = {1 << 16, 1 << 16};
  CHECK(make_ctx(2, shape, huge_block, huge_block, 4, NULL, false) == NULL);
  CHECK(make_ctx(-1, shape, chunks, blocks, 4, NULL, false) == NULL);
  CHECK(make_ctx(17, shape, chunks, blocks, 4, NULL, false) == NULL);
#ifndef CAPI_REFERENCE
  /* A context with no chunks on non-empty dimensions is made, as in
   * 3.3.5 (it may serve empty slices), but no array of that shape (3.3.5
   * divides by zero). */
  int32_t zero_chunk[2] = {0, 0};
  b2nd_context_t *zctx = make_ctx(2, shape, zero_chunk, zero_chunk, 4, NULL, false);
  CHECK(zctx != NULL);
  b2nd_array_t *za = (b2nd_array_t *)1;
  CHECK(b2nd_zeros(zctx, &za) < 0);
  CHECK(za == NULL);
  b2nd_free_ctx(zctx);
  CHECK(make_ctx(2, NULL, chunks, blocks, 4, NULL, false) == NULL);
  /* Shapes whose products overflow. */
  int64_t big[2] = {INT64_MAX / 2, 4};
  b2nd_context_t *ctx = make_ctx(2, big, chunks, blocks, 4, NULL, false);
  b2nd_array_t *a = (b2nd_array_t *)1;
  if (ctx != NULL) {
    CHECK(b2nd_zeros(ctx, &a) < 0);
    CHECK(a == NULL);
    b2nd_free_ctx(ctx);
  }
  /* Chunks too large for a chunk. */
  int32_t fat[2] = {1 << 15, 1 << 15}, fatb[2] = {1, 1};
  ctx = make_ctx(2, shape, fat, fatb, 4, NULL, false);
  CHECK(ctx != NULL);
  CHECK_EQ(b2nd_zeros(ctx, &a), BLOSC2_ERROR_MAX_BUFSIZE_EXCEEDED);
  b2nd_free_ctx(ctx);

  /* NULL and unknown handles. */
  CHECK_EQ(b2nd_free(NULL), BLOSC2_ERROR_NULL_POINTER);
  CHECK_EQ(b2nd_free_ctx(NULL), BLOSC2_ERROR_NULL_POINTER);
  CHECK_EQ(b2nd_zeros(NULL, &a), BLOSC2_ERROR_NULL_POINTER);
  b2nd_array_t fake;
  memset(&fake, 0, sizeof(fake));
  CHECK_EQ(b2nd_free(&fake), BLOSC2_ERROR_INVALID_PARAM);
  CHECK_EQ(b2nd_to_cbuffer(&fake, shape, 8), BLOSC2_ERROR_INVALID_PARAM);
  CHECK_EQ(b2nd_free_ctx((b2nd_context_t *)&fake), BLOSC2_ERROR_INVALID_PARAM);
  CHECK_EQ(b2nd_print_meta(NULL), BLOSC2_ERROR_NULL_POINTER);

  /* Slices outside the array, short buffers. */
  ctx = make_ctx(2, shape, chunks, blocks, 4, NULL, true);
  CHECK_EQ(b2nd_zeros(ctx, &a), 0);
  int32_t buf[100];
  int64_t s0[2] = {0, 0}, s1[2] = {10, 11}, bs[2] = {10, 11};
  CHECK(b2nd_get_slice_cbuffer(a, s0, s1, buf, bs, sizeof(buf)) < 0);
  int64_t s2[2] = {5, 5}, s3[2] = {4, 6}, bs2[2] = {5, 5};
  CHECK(b2nd_get_slice_cbuffer(a, s2, s3, buf, bs2, sizeof(buf)) < 0);
  int64_t s4[2] = {0, 0}, s5[2] = {10, 10}, bs3[2] = {10, 10};
  CHECK_EQ(b2nd_get_slice_cbuffer(a, s4, s5, buf, bs3, sizeof(buf) - 4), BLOSC2_ERROR_INVALID_PARAM);
  CHECK_EQ(b2nd_get_slice_cbuffer(a, s4, s5, buf, bs3, -1), BLOSC2_ERROR_INVALID_PARAM);
  CHECK_EQ(b2nd_set_slice_cbuffer(buf, bs3, sizeof(buf) - 4, s4, s5, a), BLOSC2_ERROR_INVALID_PARAM);
  CHECK_EQ(b2nd_to_cbuffer(a, buf, sizeof(buf) - 1), BLOSC2_ERROR_INVALID_PARAM);
  CHECK_EQ(b2nd_get_slice_cbuffer(a, NULL, s5, buf, bs3, sizeof(buf)), BLOSC2_ERROR_NULL_POINTER);
  CHECK_EQ(b2nd_free(a), 0);
  CHECK_EQ(b2nd_free_ctx(ctx), 0);
#endif
}

int main(void) {
  blosc2_init();
  scratch_init("basic");
  test_create_and_fields();
  test_slices();
  test_selections();
  test_meta_helpers();
  test_copy_buffer();
  test_bad_input();
  scratch_done();
  blosc2_destroy();
  TEST_DONE();
}
