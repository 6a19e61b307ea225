/* Prints the public fields of blosc2_schunk, blosc2_storage and
 * b2nd_array_t after a sequence of operations (create, append, insert,
 * update, delete, metalayers, copies, frames in memory and on disk, sparse
 * frames, reopen, b2nd create/resize/slice/from_schunk/views), one
 * `what: field=value` line each. Pointers print as 0/1 (set or not) or as
 * what they point to. tests/capi.rs (fields_match_3_3_5) compares the output with 3.3.5's
 * (tests/corpus/fields/fields_dump.expected, made by running this program
 * against the reference library: see .ci/fields_diff.sh).
 *
 * Usage: fields_dump SCRATCH_DIR */
#define _POSIX_C_SOURCE 200809L
#include <inttypes.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "b2nd.h"
#include "blosc2.h"

static const char *scratch;

static char *path_of(const char *name) {
  static char bufs[4][512];
  static int next = 0;
  char *b = bufs[next++ % 4];
  snprintf(b, 512, "%s/%s", scratch, name);
  return b;
}

static void print_u8s(const char *what, const char *field, const uint8_t *v, int n) {
  printf("%s: %s=", what, field);
  for (int i = 0; i < n; i++) printf(i ? ",%d" : "%d", v[i]);
  printf("\n");
}

static void print_i64s(const char *what, const char *field, const int64_t *v, int n) {
  printf("%s: %s=", what, field);
  for (int i = 0; i < n; i++) printf(i ? ",%" PRId64 : "%" PRId64, v[i]);
  printf("\n");
}

static void print_i32s(const char *what, const char *field, const int32_t *v, int n) {
  printf("%s: %s=", what, field);
  for (int i = 0; i < n; i++) printf(i ? ",%d" : "%d", v[i]);
  printf("\n");
}

static void dump_cparams(const char *what, const char *which, const blosc2_cparams *cp, const blosc2_schunk *sc) {
  printf("%s: %s.compcode=%d compcode_meta=%d clevel=%d use_dict=%d typesize=%d nthreads=%d blocksize=%d "
         "splitmode=%d schunk_is_sc=%d prefilter=%d tuner_id=%d instr_codec=%d\n",
         what, which, cp->compcode, cp->compcode_meta, cp->clevel, cp->use_dict, cp->typesize, cp->nthreads,
         cp->blocksize, cp->splitmode, cp->schunk == sc, cp->prefilter != NULL, cp->tuner_id, cp->instr_codec);
  printf("%s: %s.filters=%d,%d,%d,%d,%d,%d meta=%d,%d,%d,%d,%d,%d\n", what, which, cp->filters[0], cp->filters[1],
         cp->filters[2], cp->filters[3], cp->filters[4], cp->filters[5], cp->filters_meta[0], cp->filters_meta[1],
         cp->filters_meta[2], cp->filters_meta[3], cp->filters_meta[4], cp->filters_meta[5]);
}

static void dump_storage(const char *what, const blosc2_storage *st, const blosc2_schunk *sc) {
  if (st == NULL) {
    printf("%s: storage=0\n", what);
    return;
  }
  const char *url = st->urlpath;
  if (url != NULL && strncmp(url, scratch, strlen(scratch)) == 0) url += strlen(scratch);
  printf("%s: storage.contiguous=%d urlpath=%s cparams=%d dparams=%d io=%d\n", what, st->contiguous,
         url ? url : "(null)", st->cparams != NULL, st->dparams != NULL, st->io != NULL);
  if (st->cparams) dump_cparams(what, "storage.cparams", st->cparams, sc);
  if (st->dparams)
    printf("%s: storage.dparams.nthreads=%d schunk_is_sc=%d postfilter=%d typesize=%d\n", what,
           st->dparams->nthreads, st->dparams->schunk == sc, st->dparams->postfilter != NULL,
           st->dparams->typesize);
  if (st->io) printf("%s: storage.io.id=%d name=%s\n", what, st->io->id, st->io->name ? st->io->name : "(null)");
}

static void dump_schunk(const char *what, blosc2_schunk *sc) {
  if (sc == NULL) {
    printf("%s: schunk=NULL\n", what);
    return;
  }
  printf("%s: version=%d compcode=%d compcode_meta=%d clevel=%d splitmode=%d typesize=%d blocksize=%d "
         "chunksize=%d flags2=%d use_dict=%d\n",
         what, sc->version, sc->compcode, sc->compcode_meta, sc->clevel, sc->splitmode, sc->typesize,
         sc->blocksize, sc->chunksize, sc->flags2, sc->use_dict);
  print_u8s(what, "filters", sc->filters, 6);
  print_u8s(what, "filters_meta", sc->filters_meta, 6);
  printf("%s: nchunks=%" PRId64 " current_nchunk=%" PRId64 " nbytes=%" PRId64 " cbytes=%" PRId64 "\n", what,
         sc->nchunks, sc->current_nchunk, sc->nbytes, sc->cbytes);
  printf("%s: data=%d data_len=%zu frame=%d cctx=%d dctx=%d\n", what, sc->data != NULL, sc->data_len,
         sc->frame != NULL, sc->cctx != NULL, sc->dctx != NULL);
  printf("%s: tuner_id=%d tuner_params=%d ndim=%d blockshape=%d view=%d\n", what, sc->tuner_id,
         sc->tuner_params != NULL, sc->ndim, sc->blockshape != NULL, sc->view);
  dump_storage(what, sc->storage, sc);
  if (sc->cctx) {
    blosc2_cparams cp;
    if (blosc2_ctx_get_cparams(sc->cctx, &cp) == 0) dump_cparams(what, "cctx", &cp, sc);
  }
  if (sc->dctx) {
    blosc2_dparams dp;
    if (blosc2_ctx_get_dparams(sc->dctx, &dp) == 0)
      printf("%s: dctx.nthreads=%d schunk_is_sc=%d\n", what, dp.nthreads, dp.schunk == sc);
  }
  printf("%s: nmetalayers=%d nvlmetalayers=%d\n", what, sc->nmetalayers, sc->nvlmetalayers);
  for (int i = 0; i < sc->nmetalayers && i < 16; i++) {
    blosc2_metalayer *m = sc->metalayers[i];
    if (m == NULL) {
      printf("%s: metalayers[%d]=NULL\n", what, i);
    } else {
      printf("%s: metalayers[%d].name=%s content_len=%d\n", what, i, m->name, m->content_len);
    }
  }
  for (int i = 0; i < sc->nvlmetalayers && i < 16; i++) {
    blosc2_metalayer *m = sc->vlmetalayers[i];
    if (m == NULL) {
      printf("%s: vlmetalayers[%d]=NULL\n", what, i);
    } else {
      printf("%s: vlmetalayers[%d].name=%s content_len=%d\n", what, i, m->name, m->content_len);
    }
  }
}

static void dump_array(const char *what, b2nd_array_t *a) {
  if (a == NULL) {
    printf("%s: array=NULL\n", what);
    return;
  }
  int n = a->ndim;
  printf("%s: ndim=%d nitems=%" PRId64 " chunknitems=%d extnitems=%" PRId64 " blocknitems=%d extchunknitems=%" PRId64
         "\n",
         what, n, a->nitems, a->chunknitems, a->extnitems, a->blocknitems, a->extchunknitems);
  print_i64s(what, "shape", a->shape, n);
  print_i32s(what, "chunkshape", a->chunkshape, n);
  print_i64s(what, "extshape", a->extshape, n);
  print_i32s(what, "blockshape", a->blockshape, n);
  print_i64s(what, "extchunkshape", a->extchunkshape, n);
  print_i64s(what, "item_array_strides", a->item_array_strides, n);
  print_i64s(what, "item_chunk_strides", a->item_chunk_strides, n);
  print_i64s(what, "item_extchunk_strides", a->item_extchunk_strides, n);
  print_i64s(what, "item_block_strides", a->item_block_strides, n);
  print_i64s(what, "block_chunk_strides", a->block_chunk_strides, n);
  print_i64s(what, "chunk_array_strides", a->chunk_array_strides, n);
  printf("%s: dtype=%s dtype_format=%d chunk_cache.data=%d nchunk=%" PRId64 "\n", what,
         a->dtype ? a->dtype : "(null)", a->dtype_format, a->chunk_cache.data != NULL, a->chunk_cache.nchunk);
  char sub[128];
  snprintf(sub, sizeof(sub), "%s.sc", what);
  dump_schunk(sub, a->sc);
}

#define NITEMS 5000

static void edit_sequence(const char *tag, blosc2_storage *st) {
  char what[128];
  int32_t buf[NITEMS];
  blosc2_schunk *sc = blosc2_schunk_new(st);
  snprintf(what, sizeof(what), "%s/new", tag);
  dump_schunk(what, sc);
  if (sc == NULL) return;
  /* Frames take metalayers before their first chunk only. */
  uint8_t content[10] = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10};
  blosc2_meta_add(sc, "m1", content, 10);
  snprintf(what, sizeof(what), "%s/meta_add", tag);
  dump_schunk(what, sc);
  for (int k = 0; k < 3; k++) {
    for (int i = 0; i < NITEMS; i++) buf[i] = k * 1000 + i / 3;
    blosc2_schunk_append_buffer(sc, buf, sizeof(buf));
  }
  snprintf(what, sizeof(what), "%s/append3", tag);
  dump_schunk(what, sc);

  uint8_t chunk[NITEMS * 4 + BLOSC2_MAX_OVERHEAD];
  for (int i = 0; i < NITEMS; i++) buf[i] = 7;
  int csize = blosc2_compress_ctx(sc->cctx, buf, sizeof(buf), chunk, sizeof(chunk));
  blosc2_schunk_insert_chunk(sc, 0, chunk, true);
  snprintf(what, sizeof(what), "%s/insert0", tag);
  dump_schunk(what, sc);

  for (int i = 0; i < NITEMS; i++) buf[i] = i * 13;
  csize = blosc2_compress_ctx(sc->cctx, buf, sizeof(buf), chunk, sizeof(chunk));
  (void)csize;
  blosc2_schunk_update_chunk(sc, 2, chunk, true);
  snprintf(what, sizeof(what), "%s/update2", tag);
  dump_schunk(what, sc);

  blosc2_schunk_delete_chunk(sc, 1);
  snprintf(what, sizeof(what), "%s/delete1", tag);
  dump_schunk(what, sc);

  blosc2_schunk_fill_special(sc, 2 * NITEMS, BLOSC2_SPECIAL_ZERO, NITEMS * 4);
  snprintf(what, sizeof(what), "%s/fill_zeros", tag);
  dump_schunk(what, sc);

  blosc2_vlmeta_add(sc, "v1", content, 5, NULL);
  blosc2_vlmeta_add(sc, "v2", content, 10, NULL);
  blosc2_meta_update(sc, "m1", content, 10);
  blosc2_vlmeta_delete(sc, "v1");
  snprintf(what, sizeof(what), "%s/metas", tag);
  dump_schunk(what, sc);

  int32_t back[NITEMS];
  blosc2_schunk_decompress_chunk(sc, 0, back, sizeof(back));
  snprintf(what, sizeof(what), "%s/decompress0", tag);
  dump_schunk(what, sc);

  uint8_t *cframe;
  bool needs_free;
  int64_t len = blosc2_schunk_to_buffer(sc, &cframe, &needs_free);
  snprintf(what, sizeof(what), "%s/to_buffer", tag);
  printf("%s: len=%" PRId64 " needs_free=%d\n", what, len, needs_free);
  dump_schunk(what, sc);
  if (len > 0) {
    blosc2_schunk *copy = blosc2_schunk_from_buffer(cframe, len, true);
    snprintf(what, sizeof(what), "%s/from_buffer", tag);
    dump_schunk(what, copy);
    if (copy) {
      /* data_len: 0 after the copy, a page once a chunk is added. */
      blosc2_schunk_delete_chunk(copy, 0);
      snprintf(what, sizeof(what), "%s/from_buffer_delete", tag);
      dump_schunk(what, copy);
      blosc2_schunk_append_buffer(copy, buf, sizeof(buf));
      snprintf(what, sizeof(what), "%s/from_buffer_append", tag);
      dump_schunk(what, copy);
      blosc2_schunk_free(copy);
    }
    if (needs_free) free(cframe);
  }

  blosc2_cparams cp2 = BLOSC2_CPARAMS_DEFAULTS;
  cp2.typesize = 4;
  cp2.compcode = BLOSC_ZSTD;
  cp2.clevel = 3;
  blosc2_storage st2 = {.contiguous = true, .cparams = &cp2};
  blosc2_schunk *copy = blosc2_schunk_copy(sc, &st2);
  snprintf(what, sizeof(what), "%s/copy_zstd", tag);
  dump_schunk(what, copy);
  if (copy) blosc2_schunk_free(copy);

  if (st->urlpath != NULL) {
    char *url = strdup(st->urlpath);
    blosc2_schunk_free(sc);
    sc = blosc2_schunk_open(url);
    snprintf(what, sizeof(what), "%s/reopen", tag);
    dump_schunk(what, sc);
    if (sc) {
      for (int i = 0; i < NITEMS; i++) buf[i] = i;
      blosc2_schunk_append_buffer(sc, buf, sizeof(buf));
      snprintf(what, sizeof(what), "%s/reopen_append", tag);
      dump_schunk(what, sc);
    }
    free(url);
  }
  if (sc) blosc2_schunk_free(sc);
}

static void b2nd_sequence(const char *tag, blosc2_storage *st) {
  char what[128];
  int64_t shape[2] = {50, 40};
  int32_t chunkshape[2] = {20, 15};
  int32_t blockshape[2] = {10, 5};
  b2nd_context_t *ctx = b2nd_create_ctx(st, 2, shape, chunkshape, blockshape, "<i4", DTYPE_NUMPY_FORMAT, NULL, 0);
  b2nd_array_t *a = NULL;
  int32_t *data = malloc(50 * 40 * 4);
  if (data == NULL) return;
  for (int i = 0; i < 50 * 40; i++) data[i] = i;
  b2nd_from_cbuffer(ctx, &a, data, 50 * 40 * 4);
  snprintf(what, sizeof(what), "%s/from_cbuffer", tag);
  dump_array(what, a);
  if (a == NULL) goto done;

  int64_t newshape[2] = {70, 40};
  b2nd_resize(a, newshape, NULL);
  snprintf(what, sizeof(what), "%s/resize_grow", tag);
  dump_array(what, a);
  int64_t smaller[2] = {30, 25};
  b2nd_resize(a, smaller, NULL);
  snprintf(what, sizeof(what), "%s/resize_shrink", tag);
  dump_array(what, a);

  int32_t row[25];
  for (int i = 0; i < 25; i++) row[i] = -i;
  b2nd_append(a, row, sizeof(row), 0);
  snprintf(what, sizeof(what), "%s/append_row", tag);
  dump_array(what, a);

  b2nd_delete(a, 1, 3, 4);
  snprintf(what, sizeof(what), "%s/delete_cols", tag);
  dump_array(what, a);

  int32_t item = 99;
  int64_t start[2] = {1, 1}, stop[2] = {2, 2};
  int64_t bshape[2] = {1, 1};
  b2nd_set_slice_cbuffer(&item, bshape, 4, start, stop, a);
  snprintf(what, sizeof(what), "%s/set_slice", tag);
  dump_array(what, a);

  int64_t sstart[2] = {2, 3}, sstop[2] = {17, 20};
  blosc2_cparams scp = BLOSC2_CPARAMS_DEFAULTS;
  scp.typesize = 4;
  blosc2_storage sst = {.cparams = &scp};
  b2nd_context_t *sctx = b2nd_create_ctx(&sst, 2, shape, chunkshape, blockshape, "<i4", DTYPE_NUMPY_FORMAT, NULL, 0);
  b2nd_array_t *slice = NULL;
  b2nd_get_slice(sctx, &slice, a, sstart, sstop);
  snprintf(what, sizeof(what), "%s/get_slice", tag);
  dump_array(what, slice);
  if (slice) b2nd_free(slice);
  b2nd_free_ctx(sctx);

  b2nd_array_t *copy = NULL;
  b2nd_context_t *cctx = b2nd_create_ctx(&sst, 2, shape, chunkshape, blockshape, "<i4", DTYPE_NUMPY_FORMAT, NULL, 0);
  b2nd_copy(cctx, a, &copy);
  snprintf(what, sizeof(what), "%s/copy", tag);
  dump_array(what, copy);

  bool axis[3] = {true, false, false};
  b2nd_array_t *view = NULL;
  if (copy) b2nd_expand_dims(copy, &view, axis, 3);
  snprintf(what, sizeof(what), "%s/expand_dims", tag);
  dump_array(what, view);
  if (view) b2nd_free(view);
  if (copy) b2nd_free(copy);
  b2nd_free_ctx(cctx);

  uint8_t *cframe;
  int64_t cframe_len;
  bool needs_free;
  if (b2nd_to_cframe(a, &cframe, &cframe_len, &needs_free) == 0) {
    blosc2_schunk *sc = blosc2_schunk_from_buffer(cframe, cframe_len, true);
    b2nd_array_t *b = NULL;
    if (sc) b2nd_from_schunk(sc, &b);
    snprintf(what, sizeof(what), "%s/from_schunk", tag);
    dump_array(what, b);
    if (b) {
      b2nd_free(b);
    } else if (sc) {
      blosc2_schunk_free(sc);
    }
    if (needs_free) free(cframe);
  }
  if (st->urlpath) {
    char *url = strdup(st->urlpath);
    b2nd_free(a);
    a = NULL;
    b2nd_open(url, &a);
    snprintf(what, sizeof(what), "%s/open", tag);
    dump_array(what, a);
    free(url);
  }
  if (a) b2nd_free(a);
done:
  free(data);
  b2nd_free_ctx(ctx);
}

int main(int argc, char **argv) {
  if (argc < 2) {
    fprintf(stderr, "usage: fields_dump SCRATCH_DIR\n");
    return 2;
  }
  scratch = argv[1];
  blosc2_init();
  blosc2_cparams cp = BLOSC2_CPARAMS_DEFAULTS;
  cp.typesize = 4;
  cp.compcode = BLOSC_LZ4;
  cp.clevel = 5;
  blosc2_dparams dp = BLOSC2_DPARAMS_DEFAULTS;
  blosc2_storage mem = {.contiguous = false, .cparams = &cp, .dparams = &dp};
  edit_sequence("memory", &mem);
  blosc2_storage cmem = {.contiguous = true, .cparams = &cp};
  edit_sequence("cframe", &cmem);
  blosc2_remove_urlpath(path_of("f.b2frame"));
  blosc2_storage file = {.contiguous = true, .urlpath = path_of("f.b2frame"), .cparams = &cp};
  edit_sequence("file", &file);
  blosc2_remove_urlpath(path_of("s.b2frame"));
  blosc2_storage sparse = {.contiguous = false, .urlpath = path_of("s.b2frame"), .cparams = &cp};
  edit_sequence("sparse", &sparse);
  blosc2_cparams bcp = BLOSC2_CPARAMS_DEFAULTS;
  bcp.typesize = 4;
  blosc2_storage bmem = {.contiguous = false, .cparams = &bcp};
  b2nd_sequence("b2nd_memory", &bmem);
  blosc2_remove_urlpath(path_of("a.b2nd"));
  blosc2_storage bfile = {.contiguous = true, .urlpath = path_of("a.b2nd"), .cparams = &bcp};
  b2nd_sequence("b2nd_file", &bfile);
  blosc2_remove_urlpath(path_of("f.b2frame"));
  blosc2_remove_urlpath(path_of("s.b2frame"));
  blosc2_remove_urlpath(path_of("a.b2nd"));
  blosc2_destroy();
  return 0;
}
