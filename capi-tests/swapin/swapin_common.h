/* Shared by the swap-in programs: they are compiled and linked against the
 * reference C-Blosc2 3.3.5 (headers and libblosc2.so.9 of the python-blosc2
 * wheel) and then run, unchanged, with either library (see run.sh). */
#ifndef SWAPIN_COMMON_H
#define SWAPIN_COMMON_H

#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <dlfcn.h>
#include <errno.h>
#include <sys/stat.h>

#include "blosc2.h"
#include "../capi_check.h"

/* The file the dynamic linker loaded blosc2_compress from. */
static void print_library(const char *prog) {
  Dl_info info;
  if (dladdr((void *)&blosc2_compress, &info) != 0 && info.dli_fname != NULL) {
    printf("%s: libblosc2 %s from %s\n", prog, blosc2_get_version_string(), info.dli_fname);
  } else {
    printf("%s: libblosc2 %s (location unknown)\n", prog, blosc2_get_version_string());
  }
}

static char *path_join(const char *dir, const char *name) {
  size_t n = strlen(dir) + strlen(name) + 2;
  char *p = xmalloc(n);
  snprintf(p, n, "%s/%s", dir, name);
  return p;
}

static void write_file(const char *path, const void *data, size_t n) {
  FILE *f = fopen(path, "wb");
  CHECK(f != NULL);
  if (f == NULL) return;
  CHECK(fwrite(data, 1, n, f) == n);
  CHECK(fclose(f) == 0);
}

/* The whole file in a malloc'ed buffer (NULL when missing). */
static uint8_t *read_file(const char *path, size_t *n) {
  FILE *f = fopen(path, "rb");
  if (f == NULL) return NULL;
  fseek(f, 0, SEEK_END);
  long len = ftell(f);
  fseek(f, 0, SEEK_SET);
  uint8_t *buf = xmalloc((size_t)len);
  *n = fread(buf, 1, (size_t)len, f);
  fclose(f);
  CHECK(*n == (size_t)len);
  return buf;
}

static int usage(const char *prog) {
  fprintf(stderr, "usage: %s write DIR | read DIR\n", prog);
  return 2;
}

#endif
