/* Concurrency stress through the C API, checking every byte:
 *   1. threads compressing and decompressing with their own contexts, every
 *      codec and filter, 1 and 2 threads inside each context;
 *   2. threads reading one super-chunk (in memory, in a memory frame, in a
 *      file frame) with decompress_chunk, get_slice_buffer and getitem;
 *   3. one writer appending to a file frame while readers, each with its
 *      own handle (reopened now and then), follow it and check every chunk
 *      they see;
 *   4. threads sharing one compression and one decompression context
 *      (undefined in C-Blosc2; here calls on one context take turns).
 * A watchdog alarm turns a deadlock into a failure instead of a hang.
 * Failures are counted atomically (the shared CHECK counter is not). */
#include <pthread.h>
#include <signal.h>
#include <unistd.h>

#include "schunk_common.h"

static int stress_failures = 0;

#define SCHECK(cond)                                                          \
  do {                                                                        \
    if (!(cond)) {                                                            \
      fprintf(stderr, "%s:%d: check failed: %s\n", __FILE__, __LINE__, #cond); \
      if (__atomic_add_fetch(&stress_failures, 1, __ATOMIC_RELAXED) > 20) exit(1); \
    }                                                                         \
  } while (0)

enum { NWORKERS = 4, CHUNK_ITEMS = 20000, SHARED_CHUNKS = 12, APPENDS = 40 };

/* ---- 1. own contexts ---- */

static const int codecs[] = {BLOSC_BLOSCLZ, BLOSC_LZ4, BLOSC_LZ4HC, BLOSC_ZLIB, BLOSC_ZSTD};
static const int filters[] = {BLOSC_SHUFFLE, BLOSC_BITSHUFFLE, BLOSC_DELTA};

static void *own_contexts(void *arg) {
  int id = (int)(intptr_t)arg;
  int32_t size = 96 * 1024 + id * 4099; /* not a multiple of the block size */
  uint8_t *src = xmalloc((size_t)size);
  uint8_t *comp = xmalloc((size_t)size + BLOSC2_MAX_OVERHEAD);
  uint8_t *back = xmalloc((size_t)size);
  for (int round = 0; round < 2; round++) {
    for (size_t c = 0; c < sizeof(codecs) / sizeof(codecs[0]); c++) {
      for (size_t f = 0; f < sizeof(filters) / sizeof(filters[0]); f++) {
        for (int16_t nthreads = 1; nthreads <= 2; nthreads++) {
          fill_data(src, (size_t)size, (uint32_t)(id * 100 + round * 10 + (int)c));
          blosc2_cparams cp = BLOSC2_CPARAMS_DEFAULTS;
          cp.compcode = (uint8_t)codecs[c];
          cp.clevel = (uint8_t)(1 + (id + round) % 9);
          cp.typesize = 4;
          cp.nthreads = nthreads;
          cp.filters[BLOSC2_MAX_FILTERS - 1] = (uint8_t)filters[f];
          blosc2_dparams dp = BLOSC2_DPARAMS_DEFAULTS;
          dp.nthreads = nthreads;
          blosc2_context *cctx = blosc2_create_cctx(cp);
          blosc2_context *dctx = blosc2_create_dctx(dp);
          SCHECK(cctx != NULL && dctx != NULL);
          if (cctx == NULL || dctx == NULL) continue;
          int csize = blosc2_compress_ctx(cctx, src, size, comp, size + BLOSC2_MAX_OVERHEAD);
          SCHECK(csize > 0);
          memset(back, 0xA5, (size_t)size);
          SCHECK(blosc2_decompress_ctx(dctx, comp, csize, back, size) == size);
          SCHECK(memcmp(src, back, (size_t)size) == 0);
          int32_t item;
          int start = (id * 977 + (int)c) % (size / 4);
          SCHECK(blosc2_getitem_ctx(dctx, comp, csize, start, 1, &item, 4) == 4);
          SCHECK(memcmp(&item, src + (size_t)start * 4, 4) == 0);
          blosc2_free_ctx(cctx);
          blosc2_free_ctx(dctx);
        }
      }
    }
  }
  free(src);
  free(comp);
  free(back);
  return NULL;
}

/* ---- 2. many readers of one super-chunk ---- */

static blosc2_schunk *shared;

static void *read_shared(void *arg) {
  int id = (int)(intptr_t)arg;
  int32_t *buf = xmalloc(CHUNK_ITEMS * 4);
  int32_t *want = xmalloc(CHUNK_ITEMS * 4);
  blosc2_dparams dp = BLOSC2_DPARAMS_DEFAULTS;
  blosc2_context *dctx = blosc2_create_dctx(dp);
  for (int i = 0; i < 3 * SHARED_CHUNKS; i++) {
    int k = (i * 5 + id) % SHARED_CHUNKS;
    fill_chunk(want, CHUNK_ITEMS, k);
    SCHECK(blosc2_schunk_decompress_chunk(shared, k, buf, CHUNK_ITEMS * 4) == CHUNK_ITEMS * 4);
    SCHECK(memcmp(buf, want, CHUNK_ITEMS * 4) == 0);
    /* A slice straddling two chunks. */
    int64_t start = (int64_t)k * CHUNK_ITEMS + CHUNK_ITEMS / 2;
    int64_t stop = start + (k + 1 < SHARED_CHUNKS ? CHUNK_ITEMS : CHUNK_ITEMS / 2);
    SCHECK(blosc2_schunk_get_slice_buffer(shared, start, stop, buf) == 0);
    SCHECK(memcmp(buf, want + CHUNK_ITEMS / 2, (CHUNK_ITEMS / 2) * 4) == 0);
    if (k + 1 < SHARED_CHUNKS) {
      fill_chunk(want, CHUNK_ITEMS, k + 1);
      SCHECK(memcmp(buf + CHUNK_ITEMS / 2, want, (CHUNK_ITEMS / 2) * 4) == 0);
      fill_chunk(want, CHUNK_ITEMS, k);
    }
    uint8_t *chunk;
    bool needs_free;
    int cbytes = blosc2_schunk_get_chunk(shared, k, &chunk, &needs_free);
    SCHECK(cbytes > 0);
    if (cbytes > 0) {
      int32_t item;
      int at = (i * 131) % CHUNK_ITEMS;
      SCHECK(blosc2_getitem_ctx(dctx, chunk, cbytes, at, 1, &item, 4) == 4);
      SCHECK(item == want[at]);
      if (needs_free) free(chunk);
    }
  }
  blosc2_free_ctx(dctx);
  free(buf);
  free(want);
  return NULL;
}

static void many_readers(blosc2_storage *st) {
  shared = make_schunk(st, SHARED_CHUNKS, CHUNK_ITEMS);
  SCHECK(shared != NULL);
  if (shared == NULL) return;
  pthread_t th[NWORKERS];
  for (intptr_t i = 0; i < NWORKERS; i++) pthread_create(&th[i], NULL, read_shared, (void *)i);
  for (int i = 0; i < NWORKERS; i++) pthread_join(th[i], NULL);
  blosc2_schunk_free(shared);
  shared = NULL;
}

/* ---- 3. one writer, readers following on their own handles ---- */

static const char *frame_path;
static int writer_done = 0;

static void *append_chunks(void *arg) {
  blosc2_schunk *sc = arg;
  int32_t *buf = xmalloc(CHUNK_ITEMS * 4);
  for (int k = 1; k < APPENDS; k++) {
    fill_chunk(buf, CHUNK_ITEMS, k);
    SCHECK(blosc2_schunk_append_buffer(sc, buf, CHUNK_ITEMS * 4) == k + 1);
  }
  __atomic_store_n(&writer_done, 1, __ATOMIC_RELEASE);
  free(buf);
  return NULL;
}

static void *follow_writer(void *arg) {
  int id = (int)(intptr_t)arg;
  int32_t *buf = xmalloc(CHUNK_ITEMS * 4);
  int32_t *want = xmalloc(CHUNK_ITEMS * 4);
  blosc2_schunk *sc = blosc2_schunk_open(frame_path);
  SCHECK(sc != NULL);
  int seen = 0, reopen = 0;
  while (sc != NULL && seen < APPENDS) {
    int done = __atomic_load_n(&writer_done, __ATOMIC_ACQUIRE);
    /* Every call follows the other handle's commits; a chunk not yet
     * committed is an error, never wrong bytes. */
    int rc = blosc2_schunk_decompress_chunk(sc, seen, buf, CHUNK_ITEMS * 4);
    if (rc == CHUNK_ITEMS * 4) {
      fill_chunk(want, CHUNK_ITEMS, seen);
      SCHECK(memcmp(buf, want, CHUNK_ITEMS * 4) == 0);
      SCHECK(sc->nchunks > seen);
      seen++;
    } else {
      SCHECK(rc < 0);
      if (done) { /* after the writer finished, every chunk must be there */
        fprintf(stderr, "reader %d: chunk %d missing after the writer finished (%d)\n", id, seen, rc);
        break;
      }
      sched_yield();
    }
    if (++reopen % (7 + id) == 0) {
      blosc2_schunk_free(sc);
      sc = blosc2_schunk_open(frame_path);
      SCHECK(sc != NULL);
    }
  }
  SCHECK(seen == APPENDS);
  if (sc != NULL) blosc2_schunk_free(sc);
  free(buf);
  free(want);
  return NULL;
}

static void writer_and_readers(void) {
  frame_path = scratch_path("follow.b2frame");
  blosc2_cparams cp = int32_cparams(BLOSC_ZSTD, 3);
  blosc2_storage st = {.contiguous = true, .urlpath = (char *)frame_path, .cparams = &cp};
  /* The readers need an existing frame to open: one chunk first. */
  blosc2_schunk *writer = make_schunk(&st, 1, CHUNK_ITEMS);
  SCHECK(writer != NULL);
  if (writer == NULL) return;
  pthread_t wth, rth[NWORKERS];
  for (intptr_t i = 0; i < NWORKERS; i++) pthread_create(&rth[i], NULL, follow_writer, (void *)i);
  pthread_create(&wth, NULL, append_chunks, writer);
  pthread_join(wth, NULL);
  for (int i = 0; i < NWORKERS; i++) pthread_join(rth[i], NULL);
  SCHECK(writer->nchunks == APPENDS);
  blosc2_schunk_free(writer);
}

/* ---- 4. shared contexts ---- */

static blosc2_context *shared_cctx, *shared_dctx;

static void *use_shared_contexts(void *arg) {
  int id = (int)(intptr_t)arg;
  enum { N = 4096 };
  int32_t src[N], back[N];
  uint8_t comp[N * 4 + BLOSC2_MAX_OVERHEAD];
  for (int i = 0; i < 2000; i++) {
    fill_chunk(src, N, id * 7919 + i);
    int csize = blosc2_compress_ctx(shared_cctx, src, sizeof(src), comp, sizeof(comp));
    SCHECK(csize > 0);
    if (csize <= 0) continue;
    SCHECK(blosc2_decompress_ctx(shared_dctx, comp, csize, back, sizeof(back)) == (int)sizeof(back));
    SCHECK(memcmp(src, back, sizeof(src)) == 0);
  }
  return NULL;
}

static void shared_contexts(void) {
  blosc2_cparams cp = int32_cparams(BLOSC_LZ4, 5);
  blosc2_dparams dp = BLOSC2_DPARAMS_DEFAULTS;
  shared_cctx = blosc2_create_cctx(cp);
  shared_dctx = blosc2_create_dctx(dp);
  SCHECK(shared_cctx != NULL && shared_dctx != NULL);
  if (shared_cctx == NULL || shared_dctx == NULL) return;
  pthread_t th[NWORKERS];
  for (intptr_t i = 0; i < NWORKERS; i++) pthread_create(&th[i], NULL, use_shared_contexts, (void *)i);
  for (int i = 0; i < NWORKERS; i++) pthread_join(th[i], NULL);
  blosc2_free_ctx(shared_cctx);
  blosc2_free_ctx(shared_dctx);
}

int main(void) {
  /* Generous for valgrind; a normal run takes a few seconds. */
  alarm(600);
  blosc2_init();
  scratch_init("stress");

  pthread_t th[NWORKERS];
  for (intptr_t i = 0; i < NWORKERS; i++) pthread_create(&th[i], NULL, own_contexts, (void *)i);
  for (int i = 0; i < NWORKERS; i++) pthread_join(th[i], NULL);

  blosc2_cparams cp = int32_cparams(BLOSC_LZ4, 5);
  blosc2_storage in_memory = {.contiguous = false, .cparams = &cp};
  many_readers(&in_memory);
  blosc2_storage memory_frame = {.contiguous = true, .cparams = &cp};
  many_readers(&memory_frame);
  blosc2_storage file_frame = {.contiguous = true, .urlpath = scratch_path("shared.b2frame"), .cparams = &cp};
  many_readers(&file_frame);
  blosc2_storage sparse_frame = {.contiguous = false, .urlpath = scratch_path("shared.b2sframe"), .cparams = &cp};
  many_readers(&sparse_frame);

  writer_and_readers();
#ifndef CAPI_REFERENCE
  shared_contexts();
#endif

  scratch_done();
  blosc2_destroy();
  capi_failures += stress_failures;
  TEST_DONE();
}
