/* User-defined I/O backends: registration rules, the blosc2_stdio_*
 * functions with bad input, an in-memory backend that keeps whole frames
 * out of the file system (so every access must go through it), and a
 * fault-injecting backend (over blosc2_stdio_* and over mmap) that fails,
 * tears or crashes at the n-th write of every kind of chunk edit: the edit
 * returns a negative code and the frame keeps its last committed state. */
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

#define NITEMS 5000

/* ---- an in-memory backend: files are named buffers -------------------- */

typedef struct {
  char path[512];
  uint8_t *data;
  int64_t len;
} mem_file;

typedef struct {
  mem_file files[16];
  int nfiles;
  int opens, closes, reads, writes, truncates, sizes, destroys;
} mem_fs;

static mem_file *mem_find(mem_fs *fs, const char *path) {
  for (int i = 0; i < fs->nfiles; i++) {
    if (strcmp(fs->files[i].path, path) == 0) return &fs->files[i];
  }
  return NULL;
}

static void *mem_open(const char *urlpath, const char *mode, void *params) {
  mem_fs *fs = params;
  fs->opens++;
  mem_file *f = mem_find(fs, urlpath);
  if (f == NULL) {
    if (mode[0] == 'r' || fs->nfiles == 16) return NULL;
    f = &fs->files[fs->nfiles++];
    snprintf(f->path, sizeof(f->path), "%s", urlpath);
    f->data = NULL;
    f->len = 0;
  } else if (mode[0] == 'w') {
    f->len = 0;
  }
  return f;
}

static int mem_close(void *stream) {
  (void)stream;
  return 0;
}

static mem_fs *current_fs;

static int64_t mem_size(void *stream) {
  current_fs->sizes++;
  return ((mem_file *)stream)->len;
}

static int64_t mem_write(const void *ptr, int64_t size, int64_t nitems, int64_t position, void *stream) {
  mem_file *f = stream;
  current_fs->writes++;
  int64_t n = size * nitems;
  if (position + n > f->len) {
    f->data = realloc(f->data, (size_t)(position + n));
    if (position > f->len) memset(f->data + f->len, 0, (size_t)(position - f->len));
    f->len = position + n;
  }
  memcpy(f->data + position, ptr, (size_t)n);
  return nitems;
}

static int64_t mem_read(void **ptr, int64_t size, int64_t nitems, int64_t position, void *stream) {
  mem_file *f = stream;
  current_fs->reads++;
  int64_t n = size * nitems;
  if (position < 0 || position + n > f->len) return 0;
  memcpy(*ptr, f->data + position, (size_t)n);
  return nitems;
}

static int mem_truncate(void *stream, int64_t size) {
  mem_file *f = stream;
  current_fs->truncates++;
  if (size > f->len) {
    f->data = realloc(f->data, (size_t)size);
    memset(f->data + f->len, 0, (size_t)(size - f->len));
  }
  f->len = size;
  return 0;
}

static int mem_destroy(void *params) {
  ((mem_fs *)params)->destroys++;
  return 0;
}

static void mem_free_all(mem_fs *fs) {
  for (int i = 0; i < fs->nfiles; i++) free(fs->files[i].data);
  fs->nfiles = 0;
}

/* ---- a fault-injecting backend over blosc2_stdio_* ---------------------- */

static int writes_left = -1; /* < 0: never fail */
static bool crash = false;     /* the failing write and every later one fail */
static int fault_destroys = 0;
static int faults_hit = 0;     /* writes and truncations failed so far */

static void *fault_open(const char *urlpath, const char *mode, void *params) {
  (void)params;
  return blosc2_stdio_open(urlpath, mode, NULL);
}
static int fault_close(void *stream) { return blosc2_stdio_close(stream); }
static int64_t fault_size(void *stream) { return blosc2_stdio_size(stream); }
static int64_t fault_write(const void *ptr, int64_t size, int64_t nitems, int64_t position, void *stream) {
  if (writes_left == 0) {
    faults_hit++;
    /* A torn write: half of it lands (writes of up to 512 bytes at the
     * start of the file are sector-atomic: nothing lands). */
    if (position + size * nitems > 512) {
      blosc2_stdio_write(ptr, 1, size * nitems / 2, position, stream);
    }
    if (!crash) writes_left = -1;
    return 0;
  }
  if (writes_left > 0) writes_left--;
  return blosc2_stdio_write(ptr, size, nitems, position, stream);
}
static int64_t fault_read(void **ptr, int64_t size, int64_t nitems, int64_t position, void *stream) {
  return blosc2_stdio_read(ptr, size, nitems, position, stream);
}
static int fault_truncate(void *stream, int64_t size) {
  if (writes_left == 0) {
    faults_hit++;
    return -1;
  }
  return blosc2_stdio_truncate(stream, size);
}
static int fault_destroy(void *params) {
  (void)params;
  fault_destroys++;
  return 0;
}

/* The same faults over the mmap backend (`params` is its blosc2_stdio_mmap). */
static void *fault_mmap_open(const char *urlpath, const char *mode, void *params) {
  return blosc2_stdio_mmap_open(urlpath, mode, params);
}
static int fault_mmap_close(void *stream) { return blosc2_stdio_mmap_close(stream); }
static int64_t fault_mmap_size(void *stream) { return blosc2_stdio_mmap_size(stream); }
static int64_t fault_mmap_write(const void *ptr, int64_t size, int64_t nitems, int64_t position, void *stream) {
  if (writes_left == 0) {
    faults_hit++;
    if (position + size * nitems > 512) {
      blosc2_stdio_mmap_write(ptr, 1, size * nitems / 2, position, stream);
    }
    if (!crash) writes_left = -1;
    return 0;
  }
  if (writes_left > 0) writes_left--;
  return blosc2_stdio_mmap_write(ptr, size, nitems, position, stream);
}
static int64_t fault_mmap_read(void **ptr, int64_t size, int64_t nitems, int64_t position, void *stream) {
  return blosc2_stdio_mmap_read(ptr, size, nitems, position, stream);
}
static int fault_mmap_truncate(void *stream, int64_t size) {
  if (writes_left == 0) {
    faults_hit++;
    return -1;
  }
  return blosc2_stdio_mmap_truncate(stream, size);
}
static int fault_mmap_destroy(void *params) {
  fault_destroys++;
  return blosc2_stdio_mmap_destroy(params);
}

static blosc2_io_cb callbacks(uint8_t id, char *name, bool mem) {
  blosc2_io_cb cb;
  memset(&cb, 0, sizeof(cb));
  cb.id = id;
  cb.name = name;
  cb.is_allocation_necessary = true;
  cb.open = mem ? mem_open : fault_open;
  cb.close = mem ? mem_close : fault_close;
  cb.size = mem ? mem_size : fault_size;
  cb.write = mem ? mem_write : fault_write;
  cb.read = mem ? mem_read : fault_read;
  cb.truncate = mem ? mem_truncate : fault_truncate;
  cb.destroy = mem ? mem_destroy : fault_destroy;
  return cb;
}

static void registration(void) {
  CHECK_EQ(blosc2_register_io_cb(NULL), BLOSC2_ERROR_INVALID_PARAM);
  blosc2_io_cb low = callbacks(BLOSC2_IO_REGISTERED - 1, "low", true);
  CHECK_EQ(blosc2_register_io_cb(&low), BLOSC2_ERROR_PLUGIN_IO);
  blosc2_io_cb fs0 = callbacks(BLOSC2_IO_FILESYSTEM, "filesystem", true);
  CHECK_EQ(blosc2_register_io_cb(&fs0), BLOSC2_ERROR_PLUGIN_IO);
  blosc2_io_cb mem = callbacks(200, "memory", true);
  CHECK_EQ(blosc2_register_io_cb(&mem), 0);
  CHECK_EQ(blosc2_register_io_cb(&mem), 0);
  char same[] = "memory";
  blosc2_io_cb again = callbacks(200, same, true);
  CHECK_EQ(blosc2_register_io_cb(&again), 0);
  blosc2_io_cb other = callbacks(200, "other", true);
  CHECK_EQ(blosc2_register_io_cb(&other), BLOSC2_ERROR_PLUGIN_IO);
  blosc2_io_cb fault = callbacks(201, "faulty", false);
  CHECK_EQ(blosc2_register_io_cb(&fault), 0);
  blosc2_io_cb fault_mmap = fault;
  fault_mmap.id = 202;
  fault_mmap.name = "faulty_mmap";
  fault_mmap.is_allocation_necessary = false;
  fault_mmap.open = fault_mmap_open;
  fault_mmap.close = fault_mmap_close;
  fault_mmap.size = fault_mmap_size;
  fault_mmap.write = fault_mmap_write;
  fault_mmap.read = fault_mmap_read;
  fault_mmap.truncate = fault_mmap_truncate;
  fault_mmap.destroy = fault_mmap_destroy;
  CHECK_EQ(blosc2_register_io_cb(&fault_mmap), 0);

  blosc2_io_cb *got = blosc2_get_io_cb(200);
  CHECK(got != NULL && got->open == mem_open && strcmp(got->name, "memory") == 0);
  got = blosc2_get_io_cb(BLOSC2_IO_FILESYSTEM);
  CHECK(got != NULL && strcmp(got->name, "filesystem") == 0 && got->is_allocation_necessary);
  CHECK(got != NULL && got->open == blosc2_stdio_open && got->read == blosc2_stdio_read);
  got = blosc2_get_io_cb(BLOSC2_IO_FILESYSTEM_MMAP);
  CHECK(got != NULL && strcmp(got->name, "filesystem_mmap") == 0 && !got->is_allocation_necessary);
  CHECK(got != NULL && got->open == blosc2_stdio_mmap_open && got->destroy == blosc2_stdio_mmap_destroy);
  CHECK(blosc2_get_io_cb(222) == NULL);
}

static void stdio_functions(void) {
  char *path = scratch_path("stdio.bin");
  CHECK(blosc2_stdio_open(NULL, "wb", NULL) == NULL);
  CHECK(blosc2_stdio_open(path, NULL, NULL) == NULL);
  CHECK(blosc2_stdio_open(path, "rb", NULL) == NULL); /* missing */
  CHECK(blosc2_stdio_open(path, "q", NULL) == NULL);
  CHECK_EQ(blosc2_stdio_close(NULL), -1);
  CHECK_EQ(blosc2_stdio_size(NULL), -1);
  CHECK_EQ(blosc2_stdio_truncate(NULL, 0), -1);
  CHECK_EQ(blosc2_stdio_destroy(NULL), 0);
  char data[8] = "abcdefg";
  CHECK_EQ(blosc2_stdio_write(data, 1, 8, 0, NULL), 0);

  void *s = blosc2_stdio_open(path, "wb+", NULL);
  CHECK(s != NULL);
  if (s == NULL) return;
  CHECK(((blosc2_stdio_file *)s)->file != NULL);
  CHECK_EQ(blosc2_stdio_write(NULL, 1, 8, 0, s), 0);
  CHECK_EQ(blosc2_stdio_write(data, -1, 8, 0, s), 0);
  CHECK_EQ(blosc2_stdio_write(data, 1, 8, -1, s), 0);
  CHECK_EQ(blosc2_stdio_write(data, 2, 4, 10, s), 4);
  CHECK_EQ(blosc2_stdio_size(s), 18);
  char back[8] = {0};
  void *p = back;
  CHECK_EQ(blosc2_stdio_read(&p, 4, 2, 10, s), 2);
  CHECK(memcmp(back, data, 8) == 0);
  CHECK_EQ(blosc2_stdio_read(&p, 4, 2, 14, s), 1); /* a short read: one whole item */
  void *null_buf = NULL;
  CHECK_EQ(blosc2_stdio_read(&null_buf, 1, 4, 0, s), 0);
  CHECK_EQ(blosc2_stdio_read(NULL, 1, 4, 0, s), 0);
  CHECK_EQ(blosc2_stdio_read(&p, 1, 4, -5, s), 0);
  CHECK_EQ(blosc2_stdio_truncate(s, -1), -1);
  CHECK_EQ(blosc2_stdio_truncate(s, 3), 0);
  CHECK_EQ(blosc2_stdio_size(s), 3);
  CHECK_EQ(blosc2_stdio_close(s), 0);
}

/* A frame that lives only in the in-memory backend. */
static void in_memory_backend(void) {
  mem_fs fs;
  memset(&fs, 0, sizeof(fs));
  current_fs = &fs;
  blosc2_cparams cp = int32_cparams(BLOSC_ZSTD, 5);
  blosc2_io io = {.id = 200, .name = "memory", .params = &fs};
  char *path = scratch_path("mem.b2frame");
  blosc2_storage st = {.contiguous = true, .urlpath = path, .cparams = &cp, .io = &io};
  blosc2_schunk *sc = blosc2_schunk_new(&st);
  CHECK(sc != NULL);
  if (sc == NULL) return;
  uint8_t meta[3] = {1, 2, 3};
  CHECK(blosc2_meta_add(sc, "fixed", meta, 3) >= 0);
  int32_t *buf = xmalloc(NITEMS * 4);
  for (int k = 0; k < 4; k++) {
    fill_chunk(buf, NITEMS, k);
    CHECK_EQ(blosc2_schunk_append_buffer(sc, buf, NITEMS * 4), k + 1);
  }
  FILE *probe = fopen(path, "rb");
  CHECK(probe == NULL); /* nothing reached the file system */
  if (probe) fclose(probe);
  CHECK(fs.writes > 0 && fs.opens > 0);
  CHECK_EQ(insert_front(sc, 9, NITEMS), 5);
  CHECK_EQ(blosc2_schunk_delete_chunk(sc, 2), 4);
  CHECK(blosc2_vlmeta_add(sc, "vl", meta, 3, NULL) >= 0);
  int64_t reads_before = fs.reads;
  CHECK(chunk_is(sc, 0, 9, NITEMS));
  CHECK(fs.reads > reads_before);
  CHECK_EQ(blosc2_schunk_free(sc), 0);
  CHECK_EQ(fs.destroys, 1);

  blosc2_schunk *again = blosc2_schunk_open_udio(path, &io);
  CHECK(again != NULL);
  if (again != NULL) {
    CHECK_EQ(again->nchunks, 4);
    CHECK(chunk_is(again, 0, 9, NITEMS));
    CHECK(chunk_is(again, 1, 0, NITEMS));
    CHECK(chunk_is(again, 2, 2, NITEMS));
    CHECK(chunk_is(again, 3, 3, NITEMS));
    uint8_t *content = NULL;
    int32_t len = 0;
    CHECK(blosc2_vlmeta_get(again, "vl", &content, &len) >= 0 && len == 3);
    free(content);
    CHECK(blosc2_meta_exists(again, "fixed") >= 0);
    CHECK(again->storage->io->id == 200);
    CHECK_EQ(blosc2_schunk_free(again), 0);
  }
  CHECK_EQ(fs.destroys, 2);
  /* The plain file system does not have it. */
  CHECK(blosc2_schunk_open(path) == NULL);
  /* A path the backend does not have: NULL, and its params released. */
  CHECK(blosc2_schunk_open_udio(scratch_path("missing.b2frame"), &io) == NULL);
  CHECK_EQ(fs.destroys, 3);
  /* An id nothing is registered under. */
  blosc2_io unknown = {.id = 222, .name = "none", .params = NULL};
  st.io = &unknown;
  st.urlpath = scratch_path("unknown.b2frame");
  CHECK(blosc2_schunk_new(&st) == NULL);
  CHECK(blosc2_schunk_open_udio(path, &unknown) == NULL);
  CHECK(blosc2_schunk_open_udio(path, NULL) == NULL);
  CHECK(blosc2_schunk_open_udio(NULL, &io) == NULL);
  free(buf);
  mem_free_all(&fs);
}

/* Compress fill_chunk(k) with `codec` at `clevel` (0: stored as is, larger
 * than the other chunks; zstd 9: smaller) into `chunk`. */
static int compress_k(int32_t k, int codec, int clevel, uint8_t *chunk, int32_t cap) {
  int32_t *buf = xmalloc(NITEMS * 4);
  fill_chunk(buf, NITEMS, k);
  blosc2_cparams cp = int32_cparams(codec, clevel);
  blosc2_context *cctx = blosc2_create_cctx(cp);
  int csize = blosc2_compress_ctx(cctx, buf, NITEMS * 4, chunk, cap);
  blosc2_free_ctx(cctx);
  free(buf);
  return csize;
}

enum { OP_APPEND, OP_UPDATE_LARGER, OP_UPDATE_SMALLER, OP_INSERT, OP_DELETE, OP_REORDER, NOPS };
static const char *op_names[NOPS] = {"append", "update larger", "update smaller", "insert", "delete", "reorder"};

/* The chunks (fill_chunk ids) of the 4-chunk base frame after `op`. */
static int after_op(int op, int32_t *ks) {
  int32_t base[4] = {0, 1, 2, 3};
  memcpy(ks, base, sizeof(base));
  switch (op) {
    case OP_APPEND: ks[4] = 7; return 5;
    case OP_UPDATE_LARGER: ks[1] = 7; return 4;
    case OP_UPDATE_SMALLER: ks[2] = 8; return 4;
    case OP_INSERT: ks[0] = 9; for (int i = 0; i < 4; i++) ks[i + 1] = i; return 5;
    case OP_DELETE: ks[0] = 0; ks[1] = 2; ks[2] = 3; return 3;
    default: for (int i = 0; i < 4; i++) ks[i] = 3 - i; return 4;
  }
}

static int64_t run_op(blosc2_schunk *sc, int op, uint8_t *chunk, int32_t cap) {
  int32_t *buf = xmalloc(NITEMS * 4);
  int64_t rc;
  int64_t order[4] = {3, 2, 1, 0};
  switch (op) {
    case OP_APPEND:
      fill_chunk(buf, NITEMS, 7);
      rc = blosc2_schunk_append_buffer(sc, buf, NITEMS * 4);
      break;
    case OP_UPDATE_LARGER:
      rc = compress_k(7, BLOSC_LZ4, 0, chunk, cap);
      if (rc > 0) rc = blosc2_schunk_update_chunk(sc, 1, chunk, true);
      break;
    case OP_UPDATE_SMALLER:
      rc = compress_k(8, BLOSC_ZSTD, 9, chunk, cap);
      if (rc > 0) rc = blosc2_schunk_update_chunk(sc, 2, chunk, true);
      break;
    case OP_INSERT: rc = insert_front(sc, 9, NITEMS); break;
    case OP_DELETE: rc = blosc2_schunk_delete_chunk(sc, 1); break;
    default: rc = blosc2_schunk_reorder_offsets(sc, order); break;
  }
  free(buf);
  return rc;
}

/* Whether `re` holds exactly the chunks `ks`. */
static bool holds(blosc2_schunk *re, const int32_t *ks, int n) {
  if (re->nchunks != n) return false;
  for (int i = 0; i < n; i++) {
    if (!chunk_is(re, i, ks[i], NITEMS)) return false;
  }
  return true;
}

/* Fail (or tear, or crash at) the n-th write of every kind of chunk edit,
 * for every n, through a faulty backend over blosc2_stdio_* and one over
 * mmap: a negative code, and a reopened frame that holds the old chunks
 * or the new ones, never anything else. */
static void faults(void) {
  blosc2_cparams cp = int32_cparams(BLOSC_LZ4, 5);
  blosc2_io plain = {.id = 201, .name = "faulty", .params = NULL};
  int32_t cap = NITEMS * 4 + BLOSC2_MAX_OVERHEAD;
  uint8_t *chunk = xmalloc((size_t)cap);
  int failed = 0, passed = 0;
  int32_t before[4] = {0, 1, 2, 3};
  for (int use_mmap = 0; use_mmap < 2; use_mmap++) {
    for (int op = 0; op < NOPS; op++) {
      int32_t after[5];
      int nafter = after_op(op, after);
      for (int n = 0; n < 80; n++) {
        crash = n >= 40;
        char name[64];
        snprintf(name, sizeof(name), "fault-%d-%d-%d.b2frame", use_mmap, op, n);
        char *path = scratch_path(name);
        blosc2_storage st = {.contiguous = true, .urlpath = path, .cparams = &cp, .io = &plain};
        writes_left = -1;
        blosc2_schunk *sc = make_schunk(&st, 4, NITEMS);
        CHECK(sc != NULL);
        if (sc == NULL) break;
        blosc2_stdio_mmap mm = BLOSC2_STDIO_MMAP_DEFAULTS;
        mm.mode = "r+";
        blosc2_io mapped = {.id = 202, .name = "faulty_mmap", .params = &mm};
        if (use_mmap) {
          CHECK_EQ(blosc2_schunk_free(sc), 0);
          sc = blosc2_schunk_open_udio(path, &mapped);
          CHECK(sc != NULL);
          if (sc == NULL) break;
        }
        writes_left = n % 40;
        faults_hit = 0;
        int64_t rc = run_op(sc, op, chunk, cap);
        bool no_fault = faults_hit == 0;
        writes_left = -1;
        if (rc < 0) failed++; else passed++;
        CHECK_EQ(blosc2_schunk_free(sc), 0);
        blosc2_schunk *re = blosc2_schunk_open(path);
        CHECK(re != NULL);
        if (re == NULL) {
          fprintf(stderr, "%s%s: write %d failed: rc %lld, frame unreadable\n", op_names[op],
                  use_mmap ? " (mmap)" : "", n, (long long)rc);
        } else {
          bool ok = rc >= 0 ? holds(re, after, nafter) : (holds(re, before, 4) || holds(re, after, nafter));
          CHECK(ok);
          if (!ok) {
            fprintf(stderr, "%s%s: write %d failed: rc %lld, wrong chunks\n", op_names[op],
                    use_mmap ? " (mmap)" : "", n, (long long)rc);
          }
          blosc2_schunk_free(re);
        }
        blosc2_remove_urlpath(path);
        /* Past the edit's last write: a larger n fails nothing. */
        if (no_fault) {
          CHECK(rc >= 0);
          if (n >= 40) break;
          n = 39;
        }
      }
    }
  }
  CHECK(failed > 0 && passed > 0);
  CHECK(fault_destroys >= 80);
  free(chunk);
}

int main(void) {
  blosc2_init();
  scratch_init("io");
  registration();
  stdio_functions();
  in_memory_backend();
  faults();
  scratch_done();
  blosc2_destroy();
  CHECK(blosc2_get_io_cb(0) == NULL); /* as 3.3.5: NULL until blosc2_init */
  blosc2_init();
  CHECK(blosc2_get_io_cb(0) != NULL);
  blosc2_destroy();
  TEST_DONE();
}
