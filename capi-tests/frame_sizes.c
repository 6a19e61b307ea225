/* Chunk edits (updates to larger, smaller, same-size and special chunks,
 * inserts, deletes, reorders, with and without vlmetalayers) of a
 * contiguous frame in memory and in a file through three I/O backends
 * (the file system, mmap and user callbacks), printing after each step
 * the sizes 3.3.5 leaves: `cbytes`, the frame length, the file size and
 * a checksum of the data read back. tests/capi.rs (frame_sizes_match_3_3_5)
 * compares the output with tests/corpus/fields/frame_sizes.expected, this
 * program's output against the reference library (.ci/fields_diff.sh).
 *
 * Usage: frame_sizes SCRATCH_DIR */
#define _POSIX_C_SOURCE 200809L
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "blosc2.h"

#define NITEMS 5000
#define USER_IO_ID 200

static const char *scratch;

/* FNV-1a over the decompressed chunks, in order. */
static uint64_t data_sum(blosc2_schunk *sc) {
  uint64_t h = 1469598103934665603ULL;
  int32_t buf[NITEMS];
  for (int64_t n = 0; n < sc->nchunks; n++) {
    int d = blosc2_schunk_decompress_chunk(sc, n, buf, sizeof(buf));
    if (d < 0) return (uint64_t)d;
    for (int i = 0; i < d; i++) {
      h ^= ((uint8_t *)buf)[i];
      h *= 1099511628211ULL;
    }
  }
  return h;
}

static int64_t file_size(const char *path) {
  struct stat st;
  return path != NULL && stat(path, &st) == 0 ? (int64_t)st.st_size : -1;
}

static void report(const char *tag, const char *step, blosc2_schunk *sc, const char *path, int rc) {
  /* mmap keeps its mapping's size until the frame is closed. */
  int64_t fsize = (path != NULL && strcmp(tag, "mmap") != 0) ? file_size(path) : -1;
  printf("%s/%s: rc=%d nchunks=%" PRId64 " nbytes=%" PRId64 " cbytes=%" PRId64 " frame_len=%" PRId64
         " file=%" PRId64 " sum=%016" PRIx64 "\n",
         tag, step, rc < 0 ? rc : 0, sc->nchunks, sc->nbytes, sc->cbytes, blosc2_schunk_frame_len(sc), fsize,
         data_sum(sc));
}

/* Chunk `k` of the sequence: its compressed size grows with `spread`. */
static int make_chunk(blosc2_schunk *sc, int k, int spread, uint8_t *chunk, int32_t cap) {
  int32_t buf[NITEMS];
  uint32_t x = 2463534242u + (uint32_t)k;
  for (int i = 0; i < NITEMS; i++) {
    x ^= x << 13;
    x ^= x >> 17;
    x ^= x << 5;
    buf[i] = k * 1000 + i / 7 + (int32_t)(x % (uint32_t)(spread + 1));
  }
  return blosc2_compress_ctx(sc->cctx, buf, sizeof(buf), chunk, cap);
}

static void sequence(const char *tag, blosc2_storage *st, const blosc2_io *reopen_io) {
  const char *path = st->urlpath;
  if (path != NULL) blosc2_remove_urlpath(path);
  blosc2_schunk *sc = blosc2_schunk_new(st);
  if (sc == NULL) {
    printf("%s: new failed\n", tag);
    return;
  }
  uint8_t chunk[NITEMS * 4 + BLOSC2_MAX_OVERHEAD];
  int32_t cap = sizeof(chunk);
  int rc = 0;
  for (int k = 0; k < 6; k++) {
    make_chunk(sc, k, 1 << (2 * k), chunk, cap);
    int64_t r = blosc2_schunk_append_chunk(sc, chunk, true);
    if (r < 0) rc = (int)r;
  }
  report(tag, "append6", sc, path, rc);

  make_chunk(sc, 10, 1 << 20, chunk, cap);
  rc = (int)blosc2_schunk_update_chunk(sc, 1, chunk, true);
  report(tag, "update1_larger", sc, path, rc);

  make_chunk(sc, 11, 0, chunk, cap);
  rc = (int)blosc2_schunk_update_chunk(sc, 4, chunk, true);
  report(tag, "update4_smaller", sc, path, rc);

  make_chunk(sc, 2, 1 << 4, chunk, cap);
  rc = (int)blosc2_schunk_update_chunk(sc, 2, chunk, true);
  report(tag, "update2_same", sc, path, rc);

  rc = blosc2_chunk_zeros(sc->storage->cparams[0], NITEMS * 4, chunk, cap);
  if (rc >= 0) rc = (int)blosc2_schunk_update_chunk(sc, 0, chunk, true);
  report(tag, "update0_zeros", sc, path, rc);

  make_chunk(sc, 12, 1 << 6, chunk, cap);
  rc = (int)blosc2_schunk_update_chunk(sc, 0, chunk, true);
  report(tag, "update0_from_zeros", sc, path, rc);

  make_chunk(sc, 13, 1 << 8, chunk, cap);
  rc = (int)blosc2_schunk_update_chunk(sc, 5, chunk, true);
  report(tag, "update5_last", sc, path, rc);

  make_chunk(sc, 14, 1 << 3, chunk, cap);
  rc = (int)blosc2_schunk_insert_chunk(sc, 2, chunk, true);
  report(tag, "insert2", sc, path, rc);

  rc = (int)blosc2_schunk_delete_chunk(sc, 1);
  report(tag, "delete1", sc, path, rc);

  int64_t order[16];
  for (int64_t i = 0; i < sc->nchunks; i++) order[i] = sc->nchunks - 1 - i;
  rc = blosc2_schunk_reorder_offsets(sc, order);
  report(tag, "reorder_reverse", sc, path, rc);

  make_chunk(sc, 15, 1 << 12, chunk, cap);
  rc = (int)blosc2_schunk_update_chunk(sc, 3, chunk, true);
  report(tag, "update3_after_reorder", sc, path, rc);

  uint8_t content[8] = {1, 2, 3, 4, 5, 6, 7, 8};
  rc = blosc2_vlmeta_add(sc, "v1", content, 8, NULL);
  report(tag, "vlmeta_add", sc, path, rc);

  make_chunk(sc, 16, 1 << 1, chunk, cap);
  rc = (int)blosc2_schunk_update_chunk(sc, 1, chunk, true);
  report(tag, "update1_with_vlmeta", sc, path, rc);

  rc = (int)blosc2_schunk_delete_chunk(sc, sc->nchunks - 1);
  report(tag, "delete_last", sc, path, rc);

  rc = blosc2_chunk_zeros(sc->storage->cparams[0], NITEMS * 4, chunk, cap);
  if (rc >= 0) rc = (int)blosc2_schunk_insert_chunk(sc, 0, chunk, true);
  report(tag, "insert0_zeros", sc, path, rc);

  make_chunk(sc, 17, 1 << 9, chunk, cap);
  rc = (int)blosc2_schunk_update_chunk(sc, 0, chunk, true);
  report(tag, "update0_special_to_regular", sc, path, rc);

  for (int k = 0; k < 3; k++) {
    rc = (int)blosc2_schunk_delete_chunk(sc, 0);
  }
  report(tag, "delete3", sc, path, rc);

  make_chunk(sc, 18, 1 << 5, chunk, cap);
  rc = (int)blosc2_schunk_append_chunk(sc, chunk, true);
  report(tag, "append", sc, path, rc);

  uint64_t before = data_sum(sc);
  blosc2_schunk_free(sc);
  if (path == NULL) return;
  blosc2_schunk *again = blosc2_schunk_open_offset_udio(path, 0, reopen_io);
  if (again == NULL) {
    printf("%s/reopen: failed\n", tag);
    return;
  }
  printf("%s/reopen: file=%" PRId64 " cbytes=%" PRId64 " same_data=%d\n", tag, file_size(path), again->cbytes,
         data_sum(again) == before);
  blosc2_schunk_free(again);
  blosc2_remove_urlpath(path);
}

int main(int argc, char **argv) {
  if (argc < 2) {
    fprintf(stderr, "usage: frame_sizes SCRATCH_DIR\n");
    return 2;
  }
  scratch = argv[1];
  setvbuf(stdout, NULL, _IOLBF, 0);
  blosc2_init();
  blosc2_cparams cp = BLOSC2_CPARAMS_DEFAULTS;
  cp.typesize = 4;
  cp.compcode = BLOSC_LZ4;
  cp.clevel = 5;
  cp.nthreads = 1;
  blosc2_dparams dp = BLOSC2_DPARAMS_DEFAULTS;
  char path[512];

  blosc2_storage cmem = {.contiguous = true, .cparams = &cp, .dparams = &dp};
  sequence("cframe", &cmem, NULL);

  snprintf(path, sizeof(path), "%s/fs.b2frame", scratch);
  blosc2_storage fs = {.contiguous = true, .urlpath = path, .cparams = &cp, .dparams = &dp};
  sequence("file", &fs, &BLOSC2_IO_DEFAULTS);

  blosc2_stdio_mmap mm = BLOSC2_STDIO_MMAP_DEFAULTS;
  mm.mode = "w+";
  blosc2_io io_mmap = {.id = BLOSC2_IO_FILESYSTEM_MMAP, .name = "filesystem_mmap", .params = &mm};
  snprintf(path, sizeof(path), "%s/mmap.b2frame", scratch);
  blosc2_storage ms = {.contiguous = true, .urlpath = path, .cparams = &cp, .dparams = &dp, .io = &io_mmap};
  blosc2_stdio_mmap mm_read = BLOSC2_STDIO_MMAP_DEFAULTS;
  mm_read.mode = "r";
  blosc2_io io_mmap_read = {.id = BLOSC2_IO_FILESYSTEM_MMAP, .name = "filesystem_mmap", .params = &mm_read};
  sequence("mmap", &ms, &io_mmap_read);

  blosc2_io_cb cb = {.id = USER_IO_ID,
                     .name = "user_stdio",
                     .is_allocation_necessary = true,
                     .open = blosc2_stdio_open,
                     .close = blosc2_stdio_close,
                     .size = blosc2_stdio_size,
                     .write = blosc2_stdio_write,
                     .read = blosc2_stdio_read,
                     .truncate = blosc2_stdio_truncate,
                     .destroy = blosc2_stdio_destroy};
  blosc2_register_io_cb(&cb);
  blosc2_io io_user = {.id = USER_IO_ID, .name = "user_stdio", .params = NULL};
  snprintf(path, sizeof(path), "%s/user.b2frame", scratch);
  blosc2_storage us = {.contiguous = true, .urlpath = path, .cparams = &cp, .dparams = &dp, .io = &io_user};
  sequence("user", &us, &io_user);

  blosc2_destroy();
  return 0;
}
