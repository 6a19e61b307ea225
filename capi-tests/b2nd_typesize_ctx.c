/* b2nd_get_slice and b2nd_copy with a context whose typesize differs from
 * the source array's, as 3.3.5 does them: the new array has the context's
 * typesize, and each of its chunks takes the bytes of the source items it
 * covers (packed with the source's typesize, in C order) followed by
 * zeros; a smaller typesize cannot hold them and fails. 3.3.5 leaves the
 * half-made array in *array then, we leave NULL: the checks accept both.
 * Also passes built against the reference library (checked by hand:
 * cc -I$REF/include b2nd_typesize_ctx.c -L$REF/lib -lblosc2).
 *
 * Not checked here: b2nd_copy with the same chunk and block shapes and
 * another typesize. 3.3.5 copies the chunks as they are into an array
 * that cannot be read back; ours re-chunks the data as for another
 * partition. */
#include "capi_check.h"

#include "b2nd.h"
#include "blosc2.h"

#define ROWS 10
#define COLS 6
#define SRC_TS 4

static int32_t src_data[ROWS * COLS];

static b2nd_context_t *make_ctx(int32_t typesize, const int32_t *chunkshape, const int32_t *blockshape) {
  int64_t shape[2] = {ROWS, COLS};
  blosc2_cparams cp = BLOSC2_CPARAMS_DEFAULTS;
  cp.typesize = typesize;
  blosc2_storage st = {.cparams = &cp};
  return b2nd_create_ctx(&st, 2, shape, chunkshape, blockshape, NULL, 0, NULL, 0);
}

/* What 3.3.5 makes of the slice [start, start + shape) of the source in an
 * array of `typesize` items chunked by `chunkshape`. */
static uint8_t *expected(const int64_t *start, const int64_t *shape, const int32_t *chunkshape, int32_t typesize) {
  int64_t n = shape[0] * shape[1];
  uint8_t *out = calloc((size_t)(n * typesize), 1);
  uint8_t *packed = calloc((size_t)(chunkshape[0] * chunkshape[1] * typesize), 1);
  if (out == NULL || packed == NULL) exit(2);
  for (int64_t r0 = 0; r0 < shape[0]; r0 += chunkshape[0]) {
    for (int64_t c0 = 0; c0 < shape[1]; c0 += chunkshape[1]) {
      int64_t r1 = r0 + chunkshape[0] < shape[0] ? r0 + chunkshape[0] : shape[0];
      int64_t c1 = c0 + chunkshape[1] < shape[1] ? c0 + chunkshape[1] : shape[1];
      memset(packed, 0, (size_t)(chunkshape[0] * chunkshape[1] * typesize));
      int64_t k = 0;
      for (int64_t r = r0; r < r1; r++)
        for (int64_t c = c0; c < c1; c++, k++)
          memcpy(packed + k * SRC_TS, &src_data[(r + start[0]) * COLS + c + start[1]], SRC_TS);
      k = 0;
      for (int64_t r = r0; r < r1; r++)
        for (int64_t c = c0; c < c1; c++, k++)
          memcpy(out + (r * shape[1] + c) * typesize, packed + k * typesize, (size_t)typesize);
    }
  }
  free(packed);
  return out;
}

static void check_array(b2nd_array_t *a, const int64_t *start, const int64_t *shape, const int32_t *chunkshape,
                        int32_t typesize) {
  CHECK(a != NULL);
  if (a == NULL) return;
  CHECK_EQ(a->sc->typesize, typesize);
  CHECK_EQ(a->shape[0], shape[0]);
  CHECK_EQ(a->shape[1], shape[1]);
  int64_t nbytes = shape[0] * shape[1] * typesize;
  uint8_t *got = xmalloc((size_t)nbytes);
  CHECK_EQ(b2nd_to_cbuffer(a, got, nbytes), 0);
  uint8_t *want = expected(start, shape, chunkshape, typesize);
  CHECK(memcmp(got, want, (size_t)nbytes) == 0);
  free(want);
  free(got);
}

int main(void) {
  blosc2_init();
  for (int i = 0; i < ROWS * COLS; i++) src_data[i] = i;
  int32_t cs[2] = {4, 3}, bs[2] = {2, 3};
  int32_t other_cs[2] = {5, 2}, other_bs[2] = {5, 1};
  b2nd_context_t *ctx = make_ctx(SRC_TS, cs, bs);
  b2nd_array_t *src = NULL;
  CHECK_EQ(b2nd_from_cbuffer(ctx, &src, src_data, sizeof(src_data)), 0);
  if (src == NULL) return 1;

  int64_t start[2] = {1, 1}, stop[2] = {4, 5}, slice_shape[2] = {3, 4};
  int64_t origin[2] = {0, 0}, whole[2] = {ROWS, COLS};
  int32_t sizes[] = {1, 2, 8, 16};
  for (int k = 0; k < 4; k++) {
    int32_t ts = sizes[k];
    for (int same = 0; same < 2; same++) {
      const int32_t *c = same ? cs : other_cs;
      b2nd_context_t *c2 = make_ctx(ts, c, same ? bs : other_bs);
      CHECK(c2 != NULL);
      b2nd_array_t *slice = (b2nd_array_t *)1;
      int rc = b2nd_get_slice(c2, &slice, src, start, stop);
      if (ts < SRC_TS) {
        CHECK(rc < 0);
      } else {
        CHECK_EQ(rc, 0);
        check_array(slice, start, slice_shape, c, ts);
      }
      if (slice != NULL && slice != (b2nd_array_t *)1) b2nd_free(slice);
      if (!same) {
        b2nd_array_t *copy = NULL;
        rc = b2nd_copy(c2, src, &copy);
        if (ts < SRC_TS) {
          CHECK(rc < 0);
        } else {
          CHECK_EQ(rc, 0);
          check_array(copy, origin, whole, c, ts);
        }
        if (copy != NULL) b2nd_free(copy);
      }
      b2nd_free_ctx(c2);
    }
  }

  /* Bad input: negative codes, no array. */
  b2nd_array_t *none = NULL;
  CHECK(b2nd_get_slice(ctx, &none, NULL, start, stop) < 0);
  CHECK(none == NULL);
  CHECK(b2nd_get_slice(ctx, NULL, src, start, stop) < 0);
  CHECK(b2nd_get_slice(ctx, &none, src, NULL, stop) < 0);
  CHECK(none == NULL);

  b2nd_free(src);
  b2nd_free_ctx(ctx);
  blosc2_destroy();
  TEST_DONE();
}
