/* cparams.instr_codec: the chunk holds one blosc2_instr record per stream
 * (flag 0x80 in the header, nbytes and blocksize counting records), and
 * decompresses to those records with the filters skipped, as 3.3.5 does
 * (examples/instrument_codec.c). Each record's ratio is what the codec
 * achieved on its stream, so it is checked against the stream sizes of the
 * same data compressed without instrumentation: the same on any library
 * writing 3.3.5's bytes (the run is also made against the reference). */
#include "capi_check.h"

#include "blosc2.h"

#define NITEMS (100 * 1000)
#define BLOCKSIZE 40000

/* The csize word of stream `s` of block `b` of a plain chunk (streams of a
 * block follow each other: csize word, then csize bytes). */
static int32_t stream_csize(const uint8_t *chunk, int b, int s) {
  int32_t at;
  memcpy(&at, chunk + BLOSC_EXTENDED_HEADER_LENGTH + 4 * b, 4);
  int32_t csize = 0;
  for (int i = 0; i <= s; i++) {
    memcpy(&csize, chunk + at, 4);
    at += 4 + (csize > 0 ? csize : (csize < 0 ? 1 : 0));
  }
  return csize;
}

static void check(int splitmode, int nthreads, int streams_per_block) {
  float *data = xmalloc(NITEMS * sizeof(float));
  for (int i = 0; i < NITEMS; i++) {
    data[i] = (float)i;
  }
  int32_t isize = NITEMS * sizeof(float);
  int32_t cap = isize + BLOSC2_MAX_OVERHEAD;
  uint8_t *plain = xmalloc(cap);
  uint8_t *instr = xmalloc(cap);

  blosc2_cparams cp = BLOSC2_CPARAMS_DEFAULTS;
  cp.typesize = sizeof(float);
  cp.compcode = BLOSC_BLOSCLZ;
  cp.splitmode = splitmode;
  cp.clevel = 5;
  cp.nthreads = nthreads;
  cp.blocksize = BLOCKSIZE;
  blosc2_context *cctx = blosc2_create_cctx(cp);
  int psize = blosc2_compress_ctx(cctx, data, isize, plain, cap);
  CHECK(psize > 0);
  blosc2_free_ctx(cctx);

  cp.instr_codec = true;
  cctx = blosc2_create_cctx(cp);
  blosc2_cparams got;
  CHECK_EQ(blosc2_ctx_get_cparams(cctx, &got), 0);
  CHECK(got.instr_codec);
  int csize = blosc2_compress_ctx(cctx, data, isize, instr, cap);
  blosc2_free_ctx(cctx);
  int nblocks = isize / BLOCKSIZE;
  int nstreams = nblocks * streams_per_block;
  CHECK_EQ(csize, BLOSC_EXTENDED_HEADER_LENGTH + 4 * nblocks + nstreams * (4 + (int)sizeof(blosc2_instr)));
  CHECK_EQ(instr[BLOSC2_CHUNK_BLOSC2_FLAGS] & BLOSC2_INSTR_CODEC, BLOSC2_INSTR_CODEC);
  int32_t nbytes, cbytes, blocksize;
  CHECK_EQ(blosc2_cbuffer_sizes(instr, &nbytes, &cbytes, &blocksize), 0);
  CHECK_EQ(nbytes, nstreams * (int)sizeof(blosc2_instr));
  CHECK_EQ(cbytes, csize);
  CHECK_EQ(blocksize, streams_per_block * (int)sizeof(blosc2_instr));

  blosc2_dparams dp = BLOSC2_DPARAMS_DEFAULTS;
  dp.nthreads = nthreads;
  blosc2_context *dctx = blosc2_create_dctx(dp);
  blosc2_instr *records = xmalloc(nbytes);
  CHECK_EQ(blosc2_decompress_ctx(dctx, instr, csize, records, nbytes), nbytes);
  /* Too small a destination: refused, as for any chunk. */
  CHECK(blosc2_decompress_ctx(dctx, instr, csize, records, nbytes - 1) < 0);
  CHECK_EQ(blosc2_decompress_ctx(dctx, instr, csize, records, nbytes), nbytes);
  blosc2_free_ctx(dctx);
  int32_t neblock = BLOCKSIZE / streams_per_block;
  for (int b = 0; b < nblocks; b++) {
    for (int s = 0; s < streams_per_block; s++) {
      const blosc2_instr *r = &records[b * streams_per_block + s];
      int32_t pc = stream_csize(plain, b, s);
      if (pc <= 0) {
        /* A run: 4 bytes for zeros, 5 for another byte; flagged. */
        CHECK(r->cratio == (float)neblock / (float)(pc == 0 ? 4 : 5));
        CHECK_EQ(r->flags[0], 1);
      } else {
        CHECK(r->cratio == (float)neblock / (float)(pc + 4));
        CHECK_EQ(r->flags[0], 0);
      }
      CHECK(r->cspeed > 0);
      CHECK(r->filter_speed > 0);
    }
  }
  free(records);
  free(plain);
  free(instr);
  free(data);
}

int main(void) {
  blosc2_init();
  check(BLOSC_NEVER_SPLIT, 1, 1);
  check(BLOSC_NEVER_SPLIT, 2, 1);
  check(BLOSC_ALWAYS_SPLIT, 2, 4);

  /* Zeros: every stream a run. */
  blosc2_cparams cp = BLOSC2_CPARAMS_DEFAULTS;
  cp.typesize = 4;
  cp.instr_codec = true;
  cp.splitmode = BLOSC_NEVER_SPLIT;
  cp.blocksize = 16384;
  uint8_t *zeros = calloc(65536, 1);
  uint8_t *chunk = xmalloc(65536 + BLOSC2_MAX_OVERHEAD);
  blosc2_context *cctx = blosc2_create_cctx(cp);
  int csize = blosc2_compress_ctx(cctx, zeros, 65536, chunk, 65536 + BLOSC2_MAX_OVERHEAD);
  blosc2_free_ctx(cctx);
  CHECK(csize > 0);
  blosc2_instr records[4];
  CHECK_EQ(blosc2_decompress(chunk, csize, records, sizeof(records)), (int)sizeof(records));
  for (int i = 0; i < 4; i++) {
    CHECK(records[i].cratio == 16384.f / 4.f);
    CHECK_EQ(records[i].flags[0], 1);
  }
  free(zeros);
  free(chunk);
  blosc2_destroy();
  TEST_DONE();
}
