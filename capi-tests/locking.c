/* Frame locking across processes (BLOSC_LOCKING=1, as python-blosc2 and
 * 3.3.5 use it):
 * - writers insert at 0, append and delete while openers open the frame
 *   over and over: no open fails and every chunk read is whole;
 * - an open waits while another handle holds the lock, then sees its edit;
 * - a second handle sees vlmetalayers another one added;
 * - b2nd_from_schunk takes no lock (3.3.5 takes none; python-blosc2 calls
 *   it holding its GIL while another thread may hold the lock);
 * - blosc2_remove_urlpath removes the .b2lock sidecar. */
#define _DEFAULT_SOURCE
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include "b2nd.h"
#include "schunk_common.h"

#define NITEMS 2000
#define WRITERS 2
#define OPENERS 2
#define EDITS 40
#define OPENS 60

static int64_t insert_front(blosc2_schunk *sc, int32_t k) {
  int32_t buf[NITEMS];
  fill_chunk(buf, NITEMS, k);
  uint8_t chunk[NITEMS * 4 + BLOSC2_MAX_OVERHEAD];
  blosc2_cparams cp = int32_cparams(BLOSC_LZ4, 5);
  blosc2_context *cctx = blosc2_create_cctx(cp);
  int csize = blosc2_compress_ctx(cctx, buf, sizeof(buf), chunk, sizeof(chunk));
  blosc2_free_ctx(cctx);
  return csize > 0 ? blosc2_schunk_insert_chunk(sc, 0, chunk, true) : csize;
}

/* Every chunk decompresses to some fill_chunk(k). */
static int chunks_whole(blosc2_schunk *sc) {
  int32_t buf[NITEMS];
  for (int64_t n = 0; n < sc->nchunks; n++) {
    if (blosc2_schunk_decompress_chunk(sc, n, buf, sizeof(buf)) != (int)sizeof(buf)) return 0;
    int32_t k = buf[0] / 1000;
    for (int32_t i = 0; i < NITEMS; i++) {
      if (buf[i] != k * 1000 + i / 3) return 0;
    }
  }
  return 1;
}

static void writer(const char *path, int w) {
  blosc2_init();
  int32_t buf[NITEMS];
  for (int i = 0; i < EDITS; i++) {
    blosc2_schunk *sc = blosc2_schunk_open(path);
    if (sc == NULL) {
      fprintf(stderr, "writer %d: open %d failed\n", w, i);
      _exit(1);
    }
    /* The lock also covers reading nchunks before the delete. */
    int64_t rc = blosc2_schunk_lock(sc);
    switch (rc < 0 ? -1 : (i + w) % 3) {
      case -1:
        break;
      case 0:
        rc = insert_front(sc, 10 + i);
        break;
      case 1:
        fill_chunk(buf, NITEMS, 20 + i);
        rc = blosc2_schunk_append_buffer(sc, buf, sizeof(buf));
        break;
      default:
        rc = sc->nchunks > 2 ? blosc2_schunk_delete_chunk(sc, sc->nchunks - 1) : 0;
        break;
    }
    if (rc < 0 || blosc2_schunk_unlock(sc) != 0) {
      fprintf(stderr, "writer %d: edit %d failed: %lld\n", w, i, (long long)rc);
      _exit(1);
    }
    blosc2_schunk_free(sc);
  }
  blosc2_destroy();
  _exit(0);
}

static void opener(const char *path, int o) {
  blosc2_init();
  for (int i = 0; i < OPENS; i++) {
    blosc2_schunk *sc = blosc2_schunk_open(path);
    if (sc == NULL) {
      fprintf(stderr, "opener %d: open %d failed\n", o, i);
      _exit(1);
    }
    /* Hold the lock across the reads, so that no writer moves the chunks
     * between them (each call alone is consistent either way). */
    if (blosc2_schunk_lock(sc) != 0 || sc->nchunks < 1 || !chunks_whole(sc)) {
      fprintf(stderr, "opener %d: open %d read a broken frame\n", o, i);
      _exit(1);
    }
    blosc2_schunk_unlock(sc);
    blosc2_schunk_free(sc);
  }
  blosc2_destroy();
  _exit(0);
}

static void stress(void) {
  char *path = scratch_path("stress.b2frame");
  blosc2_remove_urlpath(path); /* the previous round's, and its sidecar */
  blosc2_cparams cp = int32_cparams(BLOSC_LZ4, 5);
  blosc2_storage st = {.contiguous = true, .urlpath = path, .cparams = &cp};
  blosc2_schunk *sc = make_schunk(&st, 3, NITEMS);
  CHECK(sc != NULL);
  blosc2_schunk_free(sc);
  fflush(NULL);
  pid_t pids[WRITERS + OPENERS];
  for (int i = 0; i < WRITERS + OPENERS; i++) {
    pids[i] = fork();
    if (pids[i] == 0) {
      if (i < WRITERS) writer(path, i);
      opener(path, i - WRITERS);
    }
  }
  for (int i = 0; i < WRITERS + OPENERS; i++) {
    int status = 0;
    waitpid(pids[i], &status, 0);
    CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0);
  }
  sc = blosc2_schunk_open(path);
  CHECK(sc != NULL && chunks_whole(sc));
  if (sc) blosc2_schunk_free(sc);
}

/* A holds the lock while B opens: B waits, then sees A's chunk. */
static void open_waits(void) {
  char *path = scratch_path("wait.b2frame");
  blosc2_cparams cp = int32_cparams(BLOSC_LZ4, 5);
  blosc2_storage st = {.contiguous = true, .urlpath = path, .cparams = &cp};
  blosc2_schunk *a = make_schunk(&st, 2, NITEMS);
  CHECK(a != NULL);
  if (a == NULL) return;
  int ready[2], done[2];
  CHECK(pipe(ready) == 0 && pipe(done) == 0);
  fflush(NULL);
  pid_t pid = fork();
  if (pid == 0) {
    char c;
    if (read(ready[0], &c, 1) != 1) _exit(3);
    blosc2_schunk *b = blosc2_schunk_open(path); /* blocks until A unlocks */
    if (b == NULL) _exit(1);
    int64_t n = b->nchunks;
    if (write(done[1], "x", 1) != 1) _exit(3);
    blosc2_schunk_free(b);
    _exit(n == 3 ? 0 : 2);
  }
  CHECK_EQ(blosc2_schunk_lock(a), 0);
  CHECK(write(ready[1], "x", 1) == 1);
  usleep(300 * 1000); /* B is blocked in its open meanwhile */
  int32_t buf[NITEMS];
  fill_chunk(buf, NITEMS, 2);
  CHECK_EQ(blosc2_schunk_append_buffer(a, buf, sizeof(buf)), 3);
  CHECK_EQ(blosc2_schunk_unlock(a), 0);
  int status = 0;
  waitpid(pid, &status, 0);
  CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0);
  blosc2_schunk_free(a);
}

/* B sees the vlmetalayer A added after B opened. */
static void vlmeta_refresh(void) {
  char *path = scratch_path("vlmeta.b2frame");
  blosc2_cparams cp = int32_cparams(BLOSC_LZ4, 5);
  blosc2_storage st = {.contiguous = true, .urlpath = path, .cparams = &cp};
  blosc2_schunk *a = make_schunk(&st, 1, NITEMS);
  blosc2_schunk *b = blosc2_schunk_open(path);
  CHECK(a != NULL && b != NULL);
  if (a == NULL || b == NULL) return;
  CHECK_EQ(b->nvlmetalayers, 0);
  uint8_t content[4] = {1, 2, 3, 4};
  CHECK(blosc2_vlmeta_add(a, "seen", content, 4, NULL) >= 0);
  CHECK(blosc2_vlmeta_exists(b, "seen") >= 0);
  CHECK_EQ(b->nvlmetalayers, 1);
  CHECK(b->vlmetalayers[0] != NULL && strcmp(b->vlmetalayers[0]->name, "seen") == 0);
  blosc2_schunk_free(a);
  blosc2_schunk_free(b);
}

static volatile sig_atomic_t stuck = 0;
static void on_alarm(int sig) {
  (void)sig;
  stuck = 1;
  fprintf(stderr, "b2nd_from_schunk blocked on the frame lock\n");
  _exit(4);
}

/* b2nd_from_schunk on B while A holds the lock: no wait. */
static void from_schunk_takes_no_lock(void) {
  char *path = scratch_path("array.b2nd");
  blosc2_cparams cp = BLOSC2_CPARAMS_DEFAULTS;
  cp.typesize = 8;
  blosc2_storage st = {.contiguous = true, .urlpath = path, .cparams = &cp};
  int64_t shape[2] = {40, 30};
  int32_t chunkshape[2] = {20, 15};
  int32_t blockshape[2] = {10, 5};
  b2nd_context_t *ctx = b2nd_create_ctx(&st, 2, shape, chunkshape, blockshape, "<f8", 0, NULL, 0);
  b2nd_array_t *arr = NULL;
  CHECK_EQ(b2nd_zeros(ctx, &arr), 0);
  b2nd_free_ctx(ctx);
  if (arr == NULL) return;
  blosc2_schunk *a = blosc2_schunk_open(path);
  blosc2_schunk *b = blosc2_schunk_open(path);
  CHECK(a != NULL && b != NULL);
  if (a == NULL || b == NULL) return;
  CHECK_EQ(blosc2_schunk_lock(a), 0);
  signal(SIGALRM, on_alarm);
  alarm(20);
  b2nd_array_t *view = NULL;
  CHECK_EQ(b2nd_from_schunk(b, &view), 0);
  alarm(0);
  CHECK(view != NULL && view->shape[0] == 40 && view->shape[1] == 30);
  CHECK_EQ(blosc2_schunk_unlock(a), 0);
  if (view) b2nd_free(view); /* frees b */
  blosc2_schunk_free(a);
  b2nd_free(arr);
}

static void sidecar_removed(void) {
  char *path = scratch_path("sidecar.b2frame");
  char lock[600];
  snprintf(lock, sizeof(lock), "%s.b2lock", path);
  blosc2_cparams cp = int32_cparams(BLOSC_LZ4, 5);
  blosc2_storage st = {.contiguous = true, .urlpath = path, .cparams = &cp};
  blosc2_schunk *sc = make_schunk(&st, 1, NITEMS);
  CHECK(sc != NULL);
  blosc2_schunk_free(sc);
  CHECK(access(lock, F_OK) == 0);
  CHECK_EQ(blosc2_remove_urlpath(path), 0);
  CHECK(access(path, F_OK) != 0);
  CHECK(access(lock, F_OK) != 0);
}

int main(int argc, char **argv) {
  setenv("BLOSC_LOCKING", "1", 1);
  blosc2_init();
  scratch_init("locking");
  int rounds = argc > 1 ? atoi(argv[1]) : 3;
  for (int r = 0; r < rounds; r++) stress();
  open_waits();
  vlmeta_refresh();
  from_schunk_takes_no_lock();
  sidecar_removed();
  scratch_done();
  blosc2_destroy();
  TEST_DONE();
}
