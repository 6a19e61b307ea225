/*
 * A b2nd array read the way 2.x programs read it: b2nd_array_t's fields
 * (2.23's layout has no last_tick) and, through array->sc, the 2.x
 * blosc2_schunk with its "b2nd" metalayer found by the inline
 * blosc2_meta_exists. Compiled against include/v2 (tests/capi_v2.rs) and
 * against the real C-Blosc2 2.23.1 (capi-tests/v2/swapin.sh).
 */
#include "b2nd.h"
#include "capi_check.h"

int main(void) {
  blosc2_init();
  const int64_t shape[2] = {50, 37};
  const int32_t chunkshape[2] = {20, 16};
  const int32_t blockshape[2] = {10, 8};
  blosc2_cparams cparams = BLOSC2_CPARAMS_DEFAULTS;
  cparams.typesize = sizeof(int32_t);
  cparams.compcode = BLOSC_LZ4;
  blosc2_storage storage = BLOSC2_STORAGE_DEFAULTS;
  storage.contiguous = true;
  storage.cparams = &cparams;
  blosc2_metalayer extra = {.name = "extra", .content = (uint8_t *)"\x2a", .content_len = 1};
  b2nd_context_t *ctx = b2nd_create_ctx(&storage, 2, shape, chunkshape, blockshape, "<i4", DTYPE_NUMPY_FORMAT,
                                        &extra, 1);
  CHECK(ctx != NULL);

  int32_t *data = xmalloc(50 * 37 * sizeof(int32_t));
  for (int i = 0; i < 50 * 37; i++) {
    data[i] = i * 3 - 7;
  }
  b2nd_array_t *arr = NULL;
  CHECK_EQ(b2nd_from_cbuffer(ctx, &arr, data, 50 * 37 * sizeof(int32_t)), 0);
  CHECK(arr != NULL);
  if (arr == NULL) {
    TEST_DONE();
  }
  CHECK_EQ(arr->ndim, 2);
  CHECK_EQ(arr->shape[0], 50);
  CHECK_EQ(arr->shape[1], 37);
  CHECK_EQ(arr->chunkshape[1], 16);
  CHECK_EQ(arr->blockshape[0], 10);
  CHECK_EQ(arr->extshape[0], 60);
  CHECK_EQ(arr->extshape[1], 48);
  CHECK_EQ(arr->nitems, 50 * 37);
  CHECK_EQ(arr->chunknitems, 20 * 16);
  CHECK_EQ(arr->dtype_format, DTYPE_NUMPY_FORMAT);
  CHECK(arr->dtype != NULL && strcmp(arr->dtype, "<i4") == 0);

  blosc2_schunk *sc = arr->sc;
  CHECK(sc != NULL);
  CHECK_EQ(sc->typesize, 4);
  CHECK_EQ(sc->compcode, BLOSC_LZ4);
  CHECK_EQ(sc->nchunks, 3 * 3);
  CHECK_EQ(sc->nbytes, 3 * 3 * 20 * 16 * 4);
  CHECK_EQ(sc->nmetalayers, 2);
  CHECK_EQ(blosc2_meta_exists(sc, "b2nd"), 0);
  CHECK_EQ(blosc2_meta_exists(sc, "extra"), 1);
  CHECK(strcmp(sc->metalayers[1]->name, "extra") == 0);
  uint8_t *smeta = NULL;
  int32_t smeta_len = 0;
  CHECK_EQ(blosc2_meta_get(sc, "b2nd", &smeta, &smeta_len), 0);
  int8_t ndim = 0;
  int64_t meta_shape[B2ND_MAX_DIM];
  int32_t meta_chunkshape[B2ND_MAX_DIM];
  int32_t meta_blockshape[B2ND_MAX_DIM];
  CHECK(b2nd_deserialize_meta(smeta, smeta_len, &ndim, meta_shape, meta_chunkshape, meta_blockshape, NULL, NULL) >
        0);
  CHECK_EQ(ndim, 2);
  CHECK_EQ(meta_shape[1], 37);
  CHECK_EQ(meta_chunkshape[0], 20);
  free(smeta);

  /* A slice, and the whole array back. */
  const int64_t start[2] = {5, 30};
  const int64_t stop[2] = {45, 37};
  const int64_t slice_shape[2] = {40, 7};
  int32_t slice[40 * 7];
  CHECK_EQ(b2nd_get_slice_cbuffer(arr, start, stop, slice, slice_shape, sizeof(slice)), 0);
  for (int i = 0; i < 40; i++) {
    for (int j = 0; j < 7; j++) {
      if (slice[i * 7 + j] != data[(5 + i) * 37 + 30 + j]) {
        CHECK_EQ(slice[i * 7 + j], data[(5 + i) * 37 + 30 + j]);
        i = 40;
        break;
      }
    }
  }
  int32_t *back = xmalloc(50 * 37 * sizeof(int32_t));
  CHECK_EQ(b2nd_to_cbuffer(arr, back, 50 * 37 * sizeof(int32_t)), 0);
  CHECK(memcmp(back, data, 50 * 37 * sizeof(int32_t)) == 0);
  free(back);
  free(data);
  CHECK_EQ(b2nd_free(arr), 0);
  CHECK_EQ(b2nd_free_ctx(ctx), 0);
  blosc2_destroy();
  TEST_DONE();
}
