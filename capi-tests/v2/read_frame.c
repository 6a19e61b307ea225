/*
 * Open a frame written by someone else (the 3.3 build of this library, or
 * the reference C-Blosc2 3.3.5 for tests/corpus) through the 2.23 ABI and
 * check what a 2.x program reads from the blosc2_schunk struct:
 *
 *   read_frame PATH NCHUNKS NBYTES [NAME=HEX ...]
 *
 * NAME=HEX are the expected metalayers (all of them). The super-chunk is
 * opened from the file and, for a contiguous frame, from a copy in memory.
 */
#define _POSIX_C_SOURCE 200809L
#include <sys/stat.h>

#include "blosc2.h"
#include "capi_check.h"

static int hex_value(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  return -1;
}

/* Parse "NAME=HEX" into *name (in place) and a malloc'ed *content. */
static int32_t parse_meta(char *arg, char **name, uint8_t **content) {
  char *eq = strchr(arg, '=');
  if (eq == NULL) {
    fprintf(stderr, "bad metalayer argument %s\n", arg);
    exit(2);
  }
  *eq = '\0';
  *name = arg;
  size_t n = strlen(eq + 1) / 2;
  *content = xmalloc(n);
  for (size_t i = 0; i < n; i++) {
    (*content)[i] = (uint8_t)(hex_value(eq[1 + 2 * i]) * 16 + hex_value(eq[2 + 2 * i]));
  }
  return (int32_t)n;
}

static void check(blosc2_schunk *sc, int64_t nchunks, int64_t nbytes, int nmetas, char **metas) {
  CHECK_EQ(sc->nchunks, nchunks);
  CHECK_EQ(sc->nbytes, nbytes);
  CHECK(sc->cbytes >= 0); /* 0 for frames of special chunks only */
  CHECK(sc->typesize > 0);
  CHECK_EQ(sc->nmetalayers, nmetas);
  for (int i = 0; i < nmetas; i++) {
    char *arg = strdup(metas[i]);
    char *name;
    uint8_t *want;
    int32_t want_len = parse_meta(arg, &name, &want);
    int index = blosc2_meta_exists(sc, name);
    CHECK(index >= 0 && index < sc->nmetalayers);
    if (index >= 0 && index < sc->nmetalayers) {
      CHECK(strcmp(sc->metalayers[index]->name, name) == 0);
      CHECK_EQ(sc->metalayers[index]->content_len, want_len);
      uint8_t *content = NULL;
      int32_t len = -1;
      CHECK_EQ(blosc2_meta_get(sc, name, &content, &len), index);
      CHECK(len == want_len && (len == 0 || memcmp(content, want, (size_t)len) == 0));
      free(content);
    }
    free(want);
    free(arg);
  }
  /* Every chunk decompresses, and their sizes add up to nbytes. */
  int64_t total = 0;
  for (int64_t c = 0; c < sc->nchunks; c++) {
    uint8_t *chunk = NULL;
    bool needs_free = false;
    int csize = blosc2_schunk_get_chunk(sc, c, &chunk, &needs_free);
    CHECK(csize > 0);
    int32_t chunk_nbytes = 0;
    CHECK_EQ(blosc2_cbuffer_sizes(chunk, &chunk_nbytes, NULL, NULL), 0);
    if (needs_free) {
      free(chunk);
    }
    void *out = xmalloc((size_t)chunk_nbytes);
    CHECK_EQ(blosc2_schunk_decompress_chunk(sc, c, out, chunk_nbytes), chunk_nbytes);
    free(out);
    total += chunk_nbytes;
  }
  CHECK_EQ(total, nbytes);
}

int main(int argc, char **argv) {
  if (argc < 4) {
    fprintf(stderr, "usage: read_frame PATH NCHUNKS NBYTES [NAME=HEX ...]\n");
    return 2;
  }
  const char *path = argv[1];
  int64_t nchunks = strtoll(argv[2], NULL, 10);
  int64_t nbytes = strtoll(argv[3], NULL, 10);
  blosc2_init();
  blosc2_schunk *sc = blosc2_schunk_open(path);
  CHECK(sc != NULL);
  if (sc != NULL) {
    check(sc, nchunks, nbytes, argc - 4, argv + 4);
    blosc2_schunk_free(sc);
  }
  struct stat st;
  if (stat(path, &st) == 0 && S_ISREG(st.st_mode)) {
    FILE *f = fopen(path, "rb");
    CHECK(f != NULL);
    uint8_t *buf = xmalloc((size_t)st.st_size);
    CHECK_EQ(fread(buf, 1, (size_t)st.st_size, f), st.st_size);
    fclose(f);
    blosc2_schunk *mem = blosc2_schunk_from_buffer(buf, st.st_size, true);
    CHECK(mem != NULL);
    if (mem != NULL) {
      check(mem, nchunks, nbytes, argc - 4, argv + 4);
      blosc2_schunk_free(mem);
    }
    free(buf);
  }
  blosc2_destroy();
  TEST_DONE();
}
