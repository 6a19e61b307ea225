/* Helpers shared by the super-chunk C tests: scratch directories, data,
 * and whole-super-chunk checks.
 *
 * Define CAPI_REFERENCE when building against the reference C-Blosc2
 * 3.3.5 to skip the checks of behaviour that differs on purpose (NULL
 * handling, blosc2_schunk_new without blosc2_init, ...). */
#ifndef CAPI_SCHUNK_COMMON_H
#define CAPI_SCHUNK_COMMON_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "blosc2.h"
#include "capi_check.h"

char *mkdtemp(char *tmpl);

/* A fresh scratch directory (removed by scratch_done). */
static char scratch_dir[256];

static void scratch_init(const char *tag) {
  snprintf(scratch_dir, sizeof(scratch_dir), "/tmp/blosc2-capi-%s-XXXXXX", tag);
  if (mkdtemp(scratch_dir) == NULL) {
    fprintf(stderr, "mkdtemp failed\n");
    exit(2);
  }
}

/* `scratch_dir/name` in a static rotating buffer. */
static char *scratch_path(const char *name) {
  static char bufs[8][512];
  static int next = 0;
  char *b = bufs[next++ % 8];
  snprintf(b, 512, "%s/%s", scratch_dir, name);
  return b;
}

static void scratch_done(void) {
  blosc2_remove_urlpath(scratch_dir);
}

/* int32 items: chunk k holds k*1000 + i (plus a slow ramp), so every chunk
 * differs and compresses. */
static void fill_chunk(int32_t *buf, int32_t nitems, int32_t k) {
  for (int32_t i = 0; i < nitems; i++) {
    buf[i] = k * 1000 + i / 3;
  }
}

/* cparams for int32 data. */
static blosc2_cparams int32_cparams(int codec, int clevel) {
  blosc2_cparams cp = BLOSC2_CPARAMS_DEFAULTS;
  cp.typesize = 4;
  cp.compcode = (uint8_t)codec;
  cp.clevel = (uint8_t)clevel;
  cp.nthreads = 1;
  return cp;
}

/* A super-chunk with `storage` filled with `nchunks` chunks of `nitems`
 * int32 items (chunk k from fill_chunk(k)). */
static blosc2_schunk *make_schunk(blosc2_storage *storage, int nchunks, int32_t nitems) {
  blosc2_schunk *sc = blosc2_schunk_new(storage);
  if (sc == NULL) {
    return NULL;
  }
  int32_t *buf = xmalloc((size_t)nitems * 4);
  for (int k = 0; k < nchunks; k++) {
    fill_chunk(buf, nitems, k);
    if (blosc2_schunk_append_buffer(sc, buf, nitems * 4) != k + 1) {
      fprintf(stderr, "append_buffer failed at chunk %d\n", k);
      capi_failures++;
    }
  }
  free(buf);
  return sc;
}

/* Check that chunk n of `sc` decompresses to fill_chunk(expect_k) with
 * `nitems` items. */
static int chunk_is(blosc2_schunk *sc, int64_t n, int32_t expect_k, int32_t nitems) {
  int32_t *want = xmalloc((size_t)nitems * 4);
  int32_t *got = xmalloc((size_t)nitems * 4);
  fill_chunk(want, nitems, expect_k);
  int rc = blosc2_schunk_decompress_chunk(sc, n, got, nitems * 4);
  int ok = rc == nitems * 4 && memcmp(want, got, (size_t)nitems * 4) == 0;
  if (!ok) {
    fprintf(stderr, "chunk %lld: rc %d, expected fill_chunk(%d)\n", (long long)n, rc, expect_k);
  }
  free(want);
  free(got);
  return ok;
}

#endif
