/* One blosc_compress / blosc_decompress call with fixed arguments; prints
   what the environment variables changed (the header written, the return
   codes and the global parameters afterwards), so that the output on two
   libraries can be compared. */
#include <blosc.h>

#include <stdint.h>

#include "check.h"

int main(void) {
  enum { NBYTES = 300000 };
  static unsigned char src[NBYTES], chunk[NBYTES + BLOSC_MAX_OVERHEAD], back[NBYTES];
  fill_data(src, NBYTES, 11);
  blosc_init();
  int rc = blosc_compress(5, BLOSC_SHUFFLE, 4, NBYTES, src, chunk, sizeof chunk);
  printf("compress: %s\n", rc > 0 ? "ok" : "failed");
  if (rc <= 0) printf("rc=%d\n", rc);
  const char *compressor = blosc_get_compressor();
  printf("globals: nthreads=%d compressor=%s blocksize=%d\n", blosc_get_nthreads(),
         compressor ? compressor : "(null)", blosc_get_blocksize());
  if (rc > 0) {
    int32_t nbytes, blocksize;
    memcpy(&nbytes, chunk + 4, 4);
    memcpy(&blocksize, chunk + 8, 4);
    printf("header: version=%d versionlz=%d flags=0x%02x typesize=%d nbytes=%d blocksize=%d complib=%s\n", chunk[0],
           chunk[1], chunk[2], chunk[3], nbytes, blocksize, blosc_cbuffer_complib(chunk));
    int n = blosc_decompress(chunk, back, sizeof back);
    printf("decompress: %d %s\n", n, n == NBYTES && memcmp(src, back, NBYTES) == 0 ? "same" : "different");
  }
  blosc_destroy();
  return 0;
}
