/* Chunk interchange between two c-blosc 1.21 libraries.

     chunks write FILE   compress a matrix of cases (every codec the running
                         library has, the three shuffles, several typesizes
                         and sizes, clevels 0, 1, 5, 9) and store the chunks
     chunks read FILE    decompress every stored chunk (of the codecs the
                         running library has) and compare with the data,
                         also through blosc_getitem and blosc_decompress_ctx

   FILE is a sequence of records: 6 int32 (compcode, clevel, doshuffle,
   typesize, nbytes, csize) then csize bytes of chunk. The data of a case is
   fill_data(nbytes, seed = nbytes + typesize), so the reader makes it again. */
#include <blosc.h>
#include <stdint.h>

#include "check.h"

static const size_t sizes[] = {0, 1, 3, 15, 16, 31, 100, 127, 128, 129, 1000, 4099, 32768, 65537, 300001};
static const size_t typesizes[] = {1, 2, 3, 4, 8, 16, 17, 255, 300};
static const int clevels[] = {0, 1, 5, 9};

static int write_chunks(const char *path) {
  FILE *f = fopen(path, "wb");
  if (!f) return 2;
  int count = 0;
  for (int code = 0; code <= BLOSC_ZSTD; code++) {
    const char *name = NULL;
    if (blosc_compcode_to_compname(code, &name) != code) continue;
    CHECK(blosc_set_compressor(name) == code);
    for (size_t s = 0; s < sizeof sizes / sizeof *sizes; s++) {
      size_t nbytes = sizes[s];
      unsigned char *src = malloc(nbytes + 1), *chunk = malloc(nbytes + BLOSC_MAX_OVERHEAD);
      for (size_t t = 0; t < sizeof typesizes / sizeof *typesizes; t++) {
        /* The largest sizes with a few typesizes only, to keep runs short. */
        if (nbytes > 40000 && typesizes[t] != 4 && typesizes[t] != 3 && typesizes[t] != 17) continue;
        fill_data(src, nbytes, (unsigned)(nbytes + typesizes[t]));
        for (int shuffle = 0; shuffle <= 2; shuffle++) {
          for (size_t c = 0; c < sizeof clevels / sizeof *clevels; c++) {
            int csize = blosc_compress(clevels[c], shuffle, typesizes[t], nbytes, src, chunk,
                                       nbytes + BLOSC_MAX_OVERHEAD);
            CHECK(csize >= BLOSC_MIN_HEADER_LENGTH);
            if (csize < BLOSC_MIN_HEADER_LENGTH) continue;
            int32_t rec[6] = {code, clevels[c], shuffle, (int32_t)typesizes[t], (int32_t)nbytes, csize};
            fwrite(rec, sizeof rec, 1, f);
            fwrite(chunk, 1, (size_t)csize, f);
            count++;
          }
        }
      }
      free(src);
      free(chunk);
    }
  }
  fclose(f);
  printf("wrote %d chunks\n", count);
  return 0;
}

static int read_chunks(const char *path) {
  FILE *f = fopen(path, "rb");
  if (!f) return 2;
  int count = 0, skipped = 0;
  int32_t rec[6];
  while (fread(rec, sizeof rec, 1, f) == 1) {
    size_t nbytes = (size_t)rec[4], csize = (size_t)rec[5], ts = (size_t)rec[3];
    unsigned char *chunk = malloc(csize), *src = malloc(nbytes + 1), *back = malloc(nbytes + 1);
    if (fread(chunk, 1, csize, f) != csize) {
      fprintf(stderr, "truncated file\n");
      return 2;
    }
    /* Memcpyed chunks name a codec but do not need it. */
    int memcpyed = (chunk[2] & BLOSC_MEMCPYED) != 0;
    if (!has_codec(rec[0]) && !memcpyed) {
      CHECK(blosc_decompress(chunk, back, nbytes) < 0);
      skipped++;
    } else {
      fill_data(src, nbytes, (unsigned)(nbytes + ts));
      size_t nb = 0, cb = 0, bs = 0;
      blosc_cbuffer_sizes(chunk, &nb, &cb, &bs);
      CHECK_EQ(nb, nbytes);
      CHECK_EQ(cb, csize);
      CHECK_EQ(blosc_cbuffer_validate(chunk, csize, &nb), 0);
      back[nbytes] = 0x5A;
      int n = blosc_decompress(chunk, back, nbytes);
      if (n != (int)nbytes || memcmp(src, back, nbytes) != 0) {
        fprintf(stderr, "case codec=%d clevel=%d shuffle=%d typesize=%zu nbytes=%zu: got %d\n", rec[0], rec[1],
                rec[2], ts, nbytes, n);
        CHECK(0);
      }
      CHECK_EQ(back[nbytes], 0x5A);
      CHECK_EQ(blosc_decompress_ctx(chunk, back, nbytes, 2), nbytes);
      CHECK(memcmp(src, back, nbytes) == 0);
      size_t its = chunk[3], nitems = nbytes / its;
      if (nitems > 2) {
        int start = (int)(nitems / 2), items = (int)(nitems - nitems / 2);
        CHECK_EQ(blosc_getitem(chunk, start, items, back), (long long)items * its);
        CHECK(memcmp(back, src + start * its, items * its) == 0);
      }
      count++;
    }
    free(chunk);
    free(src);
    free(back);
  }
  fclose(f);
  printf("read %d chunks, skipped %d of codecs this library lacks\n", count, skipped);
  return 0;
}

int main(int argc, char **argv) {
  if (argc != 3) {
    fprintf(stderr, "usage: chunks write|read FILE\n");
    return 2;
  }
  blosc_init();
  int rc = strcmp(argv[1], "write") == 0 ? write_chunks(argv[2]) : read_chunks(argv[2]);
  blosc_destroy();
  if (check_failures) {
    fprintf(stderr, "%d checks failed\n", check_failures);
    return 1;
  }
  return rc;
}
