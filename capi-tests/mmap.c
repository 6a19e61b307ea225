/* Memory-mapped frames (BLOSC2_IO_FILESYSTEM_MMAP) in the four modes, with
 * a tiny initial mapping (every growth remaps) and the default one: the
 * bytes equal those of the file system backend, `c` keeps its writes in
 * memory, the public struct fields are filled as 3.3.5 fills them, the
 * "Opened memory-mapped file" line appears under BLOSC_INFO, and bad input
 * to every blosc2_stdio_mmap_* function gives an error, not a crash. */
#define _POSIX_C_SOURCE 200809L
#include <unistd.h>
#include <sys/mman.h>

#include "b2nd.h"
#include "schunk_common.h"

/* Insert fill_chunk(k) at position 0 as a compressed chunk. */
static int64_t insert_front(blosc2_schunk *sc, int32_t k, int32_t nitems) {
  int32_t *buf = xmalloc((size_t)nitems * 4);
  fill_chunk(buf, nitems, k);
  int32_t cap = nitems * 4 + BLOSC2_MAX_OVERHEAD;
  uint8_t *chunk = xmalloc((size_t)cap);
  blosc2_cparams cp = int32_cparams(BLOSC_LZ4, 5);
  blosc2_context *cctx = blosc2_create_cctx(cp);
  int csize = blosc2_compress_ctx(cctx, buf, nitems * 4, chunk, cap);
  blosc2_free_ctx(cctx);
  int64_t rc = csize > 0 ? blosc2_schunk_insert_chunk(sc, 0, chunk, true) : csize;
  free(chunk);
  free(buf);
  return rc;
}

#define NITEMS 3000

static long file_size(const char *path) {
  FILE *f = fopen(path, "rb");
  if (f == NULL) return -1;
  fseek(f, 0, SEEK_END);
  long n = ftell(f);
  fclose(f);
  return n;
}

static int same_files(const char *a, const char *b) {
  long na = file_size(a), nb = file_size(b);
  if (na < 0 || na != nb) return 0;
  char *ba = xmalloc((size_t)na + 1), *bb = xmalloc((size_t)nb + 1);
  FILE *fa = fopen(a, "rb"), *fb = fopen(b, "rb");
  size_t ra = fread(ba, 1, (size_t)na, fa), rb = fread(bb, 1, (size_t)nb, fb);
  fclose(fa);
  fclose(fb);
  int same = ra == rb && memcmp(ba, bb, ra) == 0;
  free(ba);
  free(bb);
  return same;
}

static void frames(size_t initial) {
  blosc2_cparams cp = int32_cparams(BLOSC_BLOSCLZ, 9);
  char *plain = scratch_path("plain.b2frame");
  char *mapped = scratch_path("mapped.b2frame");
  blosc2_remove_urlpath(plain);
  blosc2_remove_urlpath(mapped);
  blosc2_storage st = {.contiguous = true, .urlpath = plain, .cparams = &cp};
  blosc2_schunk *a = make_schunk(&st, 2, NITEMS);
  CHECK(a != NULL);

  blosc2_stdio_mmap mm = BLOSC2_STDIO_MMAP_DEFAULTS;
  mm.mode = "w+";
  mm.initial_mapping_size = initial;
  blosc2_io io = {.id = BLOSC2_IO_FILESYSTEM_MMAP, .name = "filesystem_mmap", .params = &mm};
  blosc2_storage st2 = {.contiguous = true, .urlpath = mapped, .cparams = &cp, .io = &io};
  blosc2_schunk *b = make_schunk(&st2, 2, NITEMS);
  CHECK(b != NULL);
  if (a == NULL || b == NULL) return;
  CHECK(mm.addr != NULL && mm.mode == NULL && !mm.is_memory_only);
  CHECK(mm.urlpath != NULL && strcmp(mm.urlpath, mapped) == 0);
  CHECK(mm.file != NULL && mm.fd >= 0);
  CHECK_EQ(mm.access_flags, PROT_READ | PROT_WRITE);
  CHECK_EQ(mm.map_flags, MAP_SHARED);
  CHECK(mm.mapping_size >= mm.file_size);
  CHECK_EQ((int64_t)mm.file_size, b->frame == NULL ? -1 : blosc2_stdio_mmap_size(&mm));
  CHECK_EQ(blosc2_schunk_free(a), 0);
  CHECK_EQ(blosc2_schunk_free(b), 0);
  CHECK(mm.addr == NULL && mm.urlpath == NULL && mm.file == NULL);
  CHECK(same_files(plain, mapped));

  for (int i = 0; i < 2; i++) {
    mm = BLOSC2_STDIO_MMAP_DEFAULTS;
    mm.mode = "r";
    mm.initial_mapping_size = initial;
    io.params = &mm;
    blosc2_schunk *r = blosc2_schunk_open_udio(mapped, &io);
    CHECK(r != NULL);
    if (r == NULL) continue;
    CHECK_EQ(r->nchunks, 2);
    CHECK(chunk_is(r, 0, 0, NITEMS) && chunk_is(r, 1, 1, NITEMS));
    CHECK_EQ(mm.access_flags, PROT_READ);
    CHECK_EQ((long)mm.file_size, file_size(mapped));
    /* Writes through a read-only mapping fail cleanly. */
    int32_t *buf = xmalloc(NITEMS * 4);
    fill_chunk(buf, NITEMS, 5);
    CHECK(blosc2_schunk_append_buffer(r, buf, NITEMS * 4) < 0);
    free(buf);
    CHECK_EQ(blosc2_schunk_free(r), 0);
  }
  CHECK(same_files(plain, mapped));

  /* c: edits stay in memory. */
  mm = BLOSC2_STDIO_MMAP_DEFAULTS;
  mm.mode = "c";
  mm.initial_mapping_size = initial;
  io.params = &mm;
  blosc2_schunk *c = blosc2_schunk_open_udio(mapped, &io);
  CHECK(c != NULL);
  if (c != NULL) {
    CHECK(mm.is_memory_only);
    CHECK_EQ(mm.map_flags, MAP_PRIVATE);
    int32_t *buf = xmalloc(NITEMS * 4);
    fill_chunk(buf, NITEMS, 2);
    CHECK_EQ(blosc2_schunk_append_buffer(c, buf, NITEMS * 4), 3);
    CHECK_EQ(insert_front(c, 3, NITEMS), 4);
    CHECK(chunk_is(c, 0, 3, NITEMS) && chunk_is(c, 2, 1, NITEMS) && chunk_is(c, 3, 2, NITEMS));
    free(buf);
    CHECK_EQ(blosc2_schunk_free(c), 0);
  }
  CHECK(same_files(plain, mapped));

  /* r+: edits reach the file. */
  mm = BLOSC2_STDIO_MMAP_DEFAULTS;
  mm.mode = "r+";
  mm.initial_mapping_size = initial;
  io.params = &mm;
  blosc2_schunk *rw = blosc2_schunk_open_udio(mapped, &io);
  CHECK(rw != NULL);
  if (rw != NULL) {
    int32_t *buf = xmalloc(NITEMS * 4);
    fill_chunk(buf, NITEMS, 2);
    CHECK_EQ(blosc2_schunk_append_buffer(rw, buf, NITEMS * 4), 3);
    free(buf);
    CHECK_EQ(blosc2_schunk_free(rw), 0);
  }
  CHECK(!same_files(plain, mapped));
  blosc2_schunk *check = blosc2_schunk_open(mapped);
  CHECK(check != NULL);
  if (check != NULL) {
    CHECK_EQ(check->nchunks, 3);
    CHECK(chunk_is(check, 2, 2, NITEMS));
    blosc2_schunk_free(check);
  }

  /* needs_free: a malloc'ed struct is freed with the super-chunk. */
  blosc2_stdio_mmap *heap = malloc(sizeof(*heap));
  *heap = BLOSC2_STDIO_MMAP_DEFAULTS;
  heap->needs_free = true;
  heap->initial_mapping_size = initial;
  io.params = heap;
  blosc2_schunk *h = blosc2_schunk_open_udio(mapped, &io);
  CHECK(h != NULL);
  if (h != NULL) CHECK_EQ(blosc2_schunk_free(h), 0);
  /* ... and also when the open fails. */
  heap = malloc(sizeof(*heap));
  *heap = BLOSC2_STDIO_MMAP_DEFAULTS;
  heap->needs_free = true;
  io.params = heap;
  CHECK(blosc2_schunk_open_udio(scratch_path("missing.b2frame"), &io) == NULL);
}

/* A b2nd array created through a w+ mapping (python-blosc2's
 * mmap_mode="w+"): its metalayers change the header length before any
 * chunk, which rewrites the frame in place through the mapping. */
static void b2nd_arrays(void) {
  char *path = scratch_path("array.b2nd");
  blosc2_remove_urlpath(path);
  blosc2_stdio_mmap mm = BLOSC2_STDIO_MMAP_DEFAULTS;
  mm.mode = "w+";
  mm.initial_mapping_size = 1;
  blosc2_io io = {.id = BLOSC2_IO_FILESYSTEM_MMAP, .name = "filesystem_mmap", .params = &mm};
  blosc2_cparams cp = BLOSC2_CPARAMS_DEFAULTS;
  cp.typesize = 8;
  blosc2_storage st = {.contiguous = true, .urlpath = path, .cparams = &cp, .io = &io};
  int64_t shape[2] = {50, 40};
  int32_t chunkshape[2] = {20, 20};
  int32_t blockshape[2] = {10, 10};
  b2nd_context_t *ctx = b2nd_create_ctx(&st, 2, shape, chunkshape, blockshape, "<f8", 0, NULL, 0);
  CHECK(ctx != NULL);
  if (ctx == NULL) return;
  b2nd_array_t *arr = NULL;
  double buf[50 * 40];
  for (int i = 0; i < 50 * 40; i++) buf[i] = i * 0.5;
  CHECK_EQ(b2nd_from_cbuffer(ctx, &arr, buf, sizeof(buf)), 0);
  b2nd_free_ctx(ctx);
  if (arr == NULL) return;
  CHECK(blosc2_vlmeta_add(arr->sc, "attrs", (uint8_t *)"abc", 3, NULL) >= 0);
  CHECK_EQ(b2nd_free(arr), 0);
  b2nd_array_t *back = NULL;
  CHECK_EQ(b2nd_open(path, &back), 0);
  if (back == NULL) return;
  double out[50 * 40];
  CHECK_EQ(b2nd_to_cbuffer(back, out, sizeof(out)), 0);
  CHECK(memcmp(buf, out, sizeof(buf)) == 0);
  CHECK_EQ(b2nd_free(back), 0);
}

static void bad_input(void) {
  char *path = scratch_path("raw.bin");
  blosc2_stdio_mmap mm = BLOSC2_STDIO_MMAP_DEFAULTS;
  CHECK(blosc2_stdio_mmap_open(NULL, "r", &mm) == NULL);
  CHECK(blosc2_stdio_mmap_open(path, "r", NULL) == NULL);
  CHECK(blosc2_stdio_mmap_open(path, "r", &mm) == NULL); /* missing file */
  CHECK(mm.addr == NULL && mm.urlpath == NULL);
  mm.mode = "q";
  CHECK(blosc2_stdio_mmap_open(path, "r", &mm) == NULL);
  mm.mode = NULL;
  CHECK(blosc2_stdio_mmap_open(path, "r", &mm) == NULL);
  CHECK_EQ(blosc2_stdio_mmap_destroy(NULL), -1);
  CHECK_EQ(blosc2_stdio_mmap_destroy(&mm), -1); /* never opened */
  CHECK_EQ(blosc2_stdio_mmap_close(NULL), 0);
  CHECK_EQ(blosc2_stdio_mmap_size(&mm), 0); /* the struct's file_size */
  CHECK_EQ(blosc2_stdio_mmap_size(NULL), -1);
  CHECK_EQ(blosc2_stdio_mmap_truncate(&mm, 0), -1);

  mm = BLOSC2_STDIO_MMAP_DEFAULTS;
  mm.mode = "w+";
  mm.initial_mapping_size = 1;
  void *s = blosc2_stdio_mmap_open(path, "ignored", &mm);
  CHECK(s == &mm);
  if (s == NULL) return;
  CHECK(blosc2_stdio_mmap_open(path, "r", &mm) == &mm); /* once per struct */
  CHECK(blosc2_stdio_mmap_open(scratch_path("other"), "r", &mm) == NULL);
  char data[16] = "0123456789abcde";
  CHECK_EQ(blosc2_stdio_mmap_write(data, 1, 16, 0, s), 16);
  CHECK_EQ(blosc2_stdio_mmap_write(data, 4, 4, 100, s), 4);
  CHECK_EQ((long)mm.file_size, 116);
  CHECK(mm.mapping_size >= 116);
  CHECK_EQ(blosc2_stdio_mmap_write(NULL, 1, 4, 0, s), 0);
  CHECK_EQ(blosc2_stdio_mmap_write(data, -1, 4, 0, s), 0);
  CHECK_EQ(blosc2_stdio_mmap_write(data, 1, 4, -1, s), 0);
  CHECK_EQ(blosc2_stdio_mmap_write(data, INT64_MAX, 4, 0, s), 0);
  void *p = data;
  CHECK_EQ(blosc2_stdio_mmap_read(&p, 1, 16, 100, s), 16);
  CHECK(p != NULL && memcmp(p, data, 16) == 0);
  CHECK_EQ(blosc2_stdio_mmap_read(&p, 1, 17, 100, s), 0); /* past the end */
  CHECK(p == NULL);
  p = data;
  CHECK_EQ(blosc2_stdio_mmap_read(&p, 1, 4, -1, s), 0);
  CHECK(p == NULL);
  CHECK_EQ(blosc2_stdio_mmap_read(NULL, 1, 4, 0, s), 0);
  CHECK_EQ(blosc2_stdio_mmap_truncate(s, -1), -1);
  CHECK_EQ(blosc2_stdio_mmap_truncate(s, 10), 0);
  CHECK_EQ(blosc2_stdio_mmap_size(s), 10);
  CHECK_EQ(blosc2_stdio_mmap_read(&p, 1, 11, 0, s), 0);
  CHECK_EQ(blosc2_stdio_mmap_destroy(&mm), 0);
  CHECK_EQ(file_size(path), 10);
  CHECK_EQ(blosc2_stdio_mmap_size(&mm), 10); /* the last size, as 3.3.5 */
  CHECK(mm.addr == NULL);
  CHECK_EQ(blosc2_stdio_mmap_write(data, 1, 4, 0, &mm), 0); /* closed */
  p = data;
  CHECK_EQ(blosc2_stdio_mmap_read(&p, 1, 4, 0, &mm), 0);
  CHECK(p == NULL);

  /* A struct describing the caller's own memory (test_mmap_arithmetic). */
  uint8_t backing[32] = {0};
  blosc2_stdio_mmap own = BLOSC2_STDIO_MMAP_DEFAULTS;
  own.addr = (char *)backing;
  own.file_size = sizeof(backing);
  own.mapping_size = sizeof(backing);
  CHECK_EQ(blosc2_stdio_mmap_write(data, 1, 4, 8, &own), 4);
  CHECK(memcmp(backing + 8, data, 4) == 0);
  CHECK_EQ(blosc2_stdio_mmap_write(data, 1, 4, 30, &own), 0); /* no growth */
  CHECK_EQ(blosc2_stdio_mmap_read(&p, 1, 4, 8, &own), 4);
  CHECK(p == (void *)(backing + 8));
  CHECK_EQ(blosc2_stdio_mmap_read(&p, 1, 8, 28, &own), 0);
  CHECK(p == NULL);
}

/* The [INFO] line of 3.3.5, on stderr when BLOSC_INFO is set. */
static void info_line(void) {
  char *path = scratch_path("info.bin");
  FILE *f = fopen(path, "wb");
  fputs("x", f);
  fclose(f);
  char *log = scratch_path("stderr.txt");
  fflush(stderr);
  int saved = dup(2);
  FILE *sink = fopen(log, "wb");
  dup2(fileno(sink), 2);
  setenv("BLOSC_INFO", "1", 1);
  blosc2_stdio_mmap mm = BLOSC2_STDIO_MMAP_DEFAULTS;
  void *s = blosc2_stdio_mmap_open(path, "r", &mm);
  unsetenv("BLOSC_INFO");
  fflush(stderr);
  dup2(saved, 2);
  close(saved);
  fclose(sink);
  CHECK(s != NULL);
  if (s != NULL) blosc2_stdio_mmap_destroy(s);
  char text[1024] = {0};
  f = fopen(log, "rb");
  size_t n = fread(text, 1, sizeof(text) - 1, f);
  fclose(f);
  text[n] = 0;
  char want[600];
  snprintf(want, sizeof(want), "[INFO] - Opened memory-mapped file %s in mode r with an mapping size of 1 bytes.", path);
  CHECK(strstr(text, want) != NULL);
}

int main(void) {
  blosc2_init();
  scratch_init("mmap");
  blosc2_stdio_mmap defaults = BLOSC2_STDIO_MMAP_DEFAULTS;
  frames(1);
  frames(defaults.initial_mapping_size);
  b2nd_arrays();
  bad_input();
  info_line();
  scratch_done();
  blosc2_destroy();
  TEST_DONE();
}
