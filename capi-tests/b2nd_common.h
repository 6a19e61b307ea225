/* Helpers shared by the b2nd C tests: contexts, data, a plain C-order
 * model of an array, and whole-array checks.
 *
 * Define CAPI_REFERENCE when running against the reference C-Blosc2 3.3.5
 * to skip the checks of behaviour that differs on purpose (NULL handling,
 * bad input that 3.3.5 does not check). */
#ifndef CAPI_B2ND_COMMON_H
#define CAPI_B2ND_COMMON_H

#include <dirent.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "b2nd.h"
#include "capi_check.h"

char *mkdtemp(char *tmpl);

static char scratch_dir[256];

static void scratch_init(const char *tag) {
  snprintf(scratch_dir, sizeof(scratch_dir), "/tmp/b2nd-capi-%s-XXXXXX", tag);
  if (mkdtemp(scratch_dir) == NULL) {
    fprintf(stderr, "mkdtemp failed\n");
    exit(2);
  }
}

static char *scratch_path(const char *name) {
  static char bufs[8][512];
  static int next = 0;
  char *b = bufs[next++ % 8];
  snprintf(b, 512, "%s/%s", scratch_dir, name);
  return b;
}

/* Remove the scratch directory. blosc2_remove_urlpath does not recurse (as
 * in C-Blosc2), and the directory holds sparse frames (directories), so
 * each entry goes first. */
static void scratch_done(void) {
  DIR *d = opendir(scratch_dir);
  if (d != NULL) {
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
      if (strcmp(e->d_name, ".") != 0 && strcmp(e->d_name, "..") != 0) {
        blosc2_remove_urlpath(scratch_path(e->d_name));
      }
    }
    closedir(d);
  }
  blosc2_remove_urlpath(scratch_dir);
}

/* Items in a shape. */
static int64_t prod(int ndim, const int64_t *shape) {
  int64_t n = 1;
  for (int i = 0; i < ndim; i++) n *= shape[i];
  return n;
}

/* A context for `ndim`-dimensional arrays of `typesize`-byte items. */
static b2nd_context_t *make_ctx(int ndim, const int64_t *shape, const int32_t *chunks, const int32_t *blocks,
                                int32_t typesize, const char *urlpath, bool contiguous) {
  blosc2_cparams cp = BLOSC2_CPARAMS_DEFAULTS;
  cp.typesize = typesize;
  cp.compcode = BLOSC_LZ4;
  cp.clevel = 5;
  cp.nthreads = 1;
  /* 3.3.5 keeps the dparams pointer (and the urlpath) of the storage. */
  static blosc2_dparams dp = {1, NULL, NULL, NULL, 8};
  blosc2_storage st = BLOSC2_STORAGE_DEFAULTS;
  st.cparams = &cp;
  st.dparams = &dp;
  st.urlpath = (char *)urlpath;
  st.contiguous = contiguous;
  return b2nd_create_ctx(&st, (int8_t)ndim, shape, chunks, blocks, NULL, 0, NULL, 0);
}

/* Deterministic bytes. */
static void fill_bytes(uint8_t *buf, int64_t n, uint32_t seed) {
  uint32_t x = seed * 2654435761u + 7u;
  for (int64_t i = 0; i < n; i++) {
    x = x * 1103515245u + 12345u;
    buf[i] = (uint8_t)((i / 5) ^ (x >> 24));
  }
}

/* C-order strides of a shape. */
static void strides_of(int ndim, const int64_t *shape, int64_t *strides) {
  if (ndim == 0) return;
  strides[ndim - 1] = 1;
  for (int i = ndim - 2; i >= 0; i--) strides[i] = strides[i + 1] * shape[i + 1];
}

/* The model: copy `[start, stop)` of `src` (shape `shape`) into `dst`
 * (shape `stop - start`), item by item, independently of the library. */
static void model_slice(int ndim, int ts, const uint8_t *src, const int64_t *shape, const int64_t *start,
                        const int64_t *stop, uint8_t *dst) {
  int64_t sub[B2ND_MAX_DIM], sst[B2ND_MAX_DIM], dst_st[B2ND_MAX_DIM];
  for (int i = 0; i < ndim; i++) sub[i] = stop[i] - start[i];
  strides_of(ndim, shape, sst);
  strides_of(ndim, sub, dst_st);
  int64_t n = prod(ndim, sub);
  for (int64_t k = 0; k < n; k++) {
    int64_t rest = k, so = 0;
    for (int i = ndim - 1; i >= 0; i--) {
      int64_t c = rest % sub[i];
      rest /= sub[i];
      so += (start[i] + c) * sst[i];
    }
    memcpy(dst + k * ts, src + so * ts, (size_t)ts);
  }
}

/* The model: write `buf` (shape `stop - start`) into `[start, stop)`. */
static void model_set(int ndim, int ts, uint8_t *dst, const int64_t *shape, const int64_t *start,
                      const int64_t *stop, const uint8_t *buf) {
  int64_t sub[B2ND_MAX_DIM], dst_st[B2ND_MAX_DIM];
  for (int i = 0; i < ndim; i++) sub[i] = stop[i] - start[i];
  strides_of(ndim, shape, dst_st);
  int64_t n = prod(ndim, sub);
  for (int64_t k = 0; k < n; k++) {
    int64_t rest = k, d = 0;
    for (int i = ndim - 1; i >= 0; i--) {
      int64_t c = rest % sub[i];
      rest /= sub[i];
      d += (start[i] + c) * dst_st[i];
    }
    memcpy(dst + d * ts, buf + k * ts, (size_t)ts);
  }
}

/* The whole array equals `want` (nitems * typesize bytes). */
static bool content_is(const b2nd_array_t *a, const uint8_t *want) {
  int64_t nbytes = a->nitems * a->sc->typesize;
  uint8_t *got = xmalloc((size_t)nbytes);
  int rc = b2nd_to_cbuffer(a, got, nbytes);
  bool ok = rc == 0 && (nbytes == 0 || memcmp(got, want, (size_t)nbytes) == 0);
  if (!ok) fprintf(stderr, "content differs (rc %d)\n", rc);
  free(got);
  return ok;
}

/* The public fields agree with shape/chunks/blocks, as 3.3.5 computes them. */
static void check_public(const b2nd_array_t *a, int ndim, const int64_t *shape, const int32_t *chunks,
                         const int32_t *blocks) {
  CHECK_EQ(a->ndim, ndim);
  int64_t nitems = 1, extnitems = 1, extchunknitems = 1;
  int32_t chunknitems = 1, blocknitems = 1;
  for (int i = 0; i < ndim; i++) {
    CHECK_EQ(a->shape[i], shape[i]);
    CHECK_EQ(a->chunkshape[i], chunks[i]);
    CHECK_EQ(a->blockshape[i], blocks[i]);
    int64_t ext = shape[i] % chunks[i] == 0 ? shape[i] : shape[i] + chunks[i] - shape[i] % chunks[i];
    int64_t extc = chunks[i] % blocks[i] == 0 ? chunks[i] : chunks[i] + blocks[i] - chunks[i] % blocks[i];
    CHECK_EQ(a->extshape[i], ext);
    CHECK_EQ(a->extchunkshape[i], extc);
    nitems *= shape[i];
    extnitems *= ext;
    extchunknitems *= extc;
    chunknitems *= chunks[i];
    blocknitems *= blocks[i];
  }
  CHECK_EQ(a->nitems, nitems);
  CHECK_EQ(a->extnitems, extnitems);
  CHECK_EQ(a->extchunknitems, extchunknitems);
  CHECK_EQ(a->chunknitems, chunknitems);
  CHECK_EQ(a->blocknitems, blocknitems);
  if (ndim > 0) {
    CHECK_EQ(a->item_array_strides[ndim - 1], 1);
    CHECK_EQ(a->item_block_strides[ndim - 1], 1);
    CHECK_EQ(a->block_chunk_strides[ndim - 1], 1);
    for (int i = ndim - 2; i >= 0; i--) {
      CHECK_EQ(a->item_array_strides[i], a->item_array_strides[i + 1] * shape[i + 1]);
      CHECK_EQ(a->item_block_strides[i], a->item_block_strides[i + 1] * blocks[i + 1]);
      CHECK_EQ(a->item_chunk_strides[i], a->item_chunk_strides[i + 1] * chunks[i + 1]);
      CHECK_EQ(a->item_extchunk_strides[i], a->item_extchunk_strides[i + 1] * a->extchunkshape[i + 1]);
      CHECK_EQ(a->block_chunk_strides[i], a->block_chunk_strides[i + 1] * (a->extchunkshape[i + 1] / blocks[i + 1]));
    }
  }
  CHECK(a->sc != NULL);
  CHECK_EQ(a->sc->nchunks, chunknitems ? extnitems / chunknitems : 0);
  CHECK_EQ(a->sc->chunksize, extchunknitems * a->sc->typesize);
}

/* A small random generator for shapes and slices. */
static uint32_t rng_state = 12345;
static int64_t rnd(int64_t n) {
  rng_state = rng_state * 1664525u + 1013904223u;
  return n <= 0 ? 0 : (int64_t)((rng_state >> 8) % (uint32_t)n);
}

#endif
