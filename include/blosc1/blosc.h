/*
 * blosc.h: the c-blosc 1.21 API of libblosc.so.1, as built from this
 * repository with `cargo build --release --features abi-blosc1`.
 *
 * Written for this project from c-blosc 1.21's documented API: the same
 * function prototypes and macro values, so that programs written for
 * c-blosc 1.21 compile against it unchanged.
 */
#ifndef BLOSC_H
#define BLOSC_H

#include <limits.h>
#include <stdint.h>
#include <stdlib.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Exported functions carry default visibility. */
#if defined(_WIN32) && defined(BLOSC_SHARED_LIBRARY)
#define BLOSC_EXPORT __declspec(dllexport)
#elif (defined(__GNUC__) && __GNUC__ >= 4) || defined(__clang__)
#define BLOSC_EXPORT __attribute__((visibility("default")))
#else
#define BLOSC_EXPORT
#endif

/* Version of the c-blosc API this library provides. */
#define BLOSC_VERSION_MAJOR 1
#define BLOSC_VERSION_MINOR 21
#define BLOSC_VERSION_RELEASE 3
#define BLOSC_VERSION_STRING "1.21.3"
#define BLOSC_VERSION_REVISION "$Rev$"
#define BLOSC_VERSION_DATE "$Date:: 2022-12-15 #$"

/* Chunk format version written and read (one byte in the header). */
#define BLOSC_VERSION_FORMAT 2

/* Header length; also the largest growth of a buffer by compression. */
#define BLOSC_MIN_HEADER_LENGTH 16
#define BLOSC_MAX_OVERHEAD BLOSC_MIN_HEADER_LENGTH

/* Largest buffer that can be compressed. */
#define BLOSC_MAX_BUFFERSIZE (INT_MAX - BLOSC_MAX_OVERHEAD)

/* Larger typesizes are compressed as a stream of bytes. */
#define BLOSC_MAX_TYPESIZE 255

/* Largest block size. */
#define BLOSC_MAX_BLOCKSIZE ((INT_MAX - BLOSC_MAX_TYPESIZE * sizeof(int32_t)) / 3)

/* Largest number of threads. */
#define BLOSC_MAX_THREADS 256

/* Shuffle filters (the `doshuffle` argument). */
#define BLOSC_NOSHUFFLE 0
#define BLOSC_SHUFFLE 1
#define BLOSC_BITSHUFFLE 2

/* Header flags (as returned by blosc_cbuffer_metainfo). */
#define BLOSC_DOSHUFFLE 0x1
#define BLOSC_MEMCPYED 0x2
#define BLOSC_DOBITSHUFFLE 0x4

/* Codec codes. */
#define BLOSC_BLOSCLZ 0
#define BLOSC_LZ4 1
#define BLOSC_LZ4HC 2
#define BLOSC_SNAPPY 3
#define BLOSC_ZLIB 4
#define BLOSC_ZSTD 5

/* Codec names. */
#define BLOSC_BLOSCLZ_COMPNAME "blosclz"
#define BLOSC_LZ4_COMPNAME "lz4"
#define BLOSC_LZ4HC_COMPNAME "lz4hc"
#define BLOSC_SNAPPY_COMPNAME "snappy"
#define BLOSC_ZLIB_COMPNAME "zlib"
#define BLOSC_ZSTD_COMPNAME "zstd"

/* Codec library codes (below 8: they are stored in 3 header bits). */
#define BLOSC_BLOSCLZ_LIB 0
#define BLOSC_LZ4_LIB 1
#define BLOSC_SNAPPY_LIB 2
#define BLOSC_ZLIB_LIB 3
#define BLOSC_ZSTD_LIB 4

/* Codec library names. */
#define BLOSC_BLOSCLZ_LIBNAME "BloscLZ"
#define BLOSC_LZ4_LIBNAME "LZ4"
#define BLOSC_SNAPPY_LIBNAME "Snappy"
#define BLOSC_ZLIB_LIBNAME "Zlib"
#define BLOSC_ZSTD_LIBNAME "Zstd"

/* Codec formats stored in the header (LZ4HC writes the LZ4 format). */
#define BLOSC_BLOSCLZ_FORMAT BLOSC_BLOSCLZ_LIB
#define BLOSC_LZ4_FORMAT BLOSC_LZ4_LIB
#define BLOSC_LZ4HC_FORMAT BLOSC_LZ4_LIB
#define BLOSC_SNAPPY_FORMAT BLOSC_SNAPPY_LIB
#define BLOSC_ZLIB_FORMAT BLOSC_ZLIB_LIB
#define BLOSC_ZSTD_FORMAT BLOSC_ZSTD_LIB

/* Codec format versions stored in the header. */
#define BLOSC_BLOSCLZ_VERSION_FORMAT 1
#define BLOSC_LZ4_VERSION_FORMAT 1
#define BLOSC_LZ4HC_VERSION_FORMAT 1
#define BLOSC_SNAPPY_VERSION_FORMAT 1
#define BLOSC_ZLIB_VERSION_FORMAT 1
#define BLOSC_ZSTD_VERSION_FORMAT 1

/* Split modes (blosc_set_splitmode); FORWARD_COMPAT is the default. */
#define BLOSC_ALWAYS_SPLIT 1
#define BLOSC_NEVER_SPLIT 2
#define BLOSC_AUTO_SPLIT 3
#define BLOSC_FORWARD_COMPAT_SPLIT 4

/* Set up the global state. Optional here; kept for 1.21 programs. */
BLOSC_EXPORT void blosc_init(void);

/* Release the global state's resources (parameters are kept). */
BLOSC_EXPORT void blosc_destroy(void);

/*
 * Compress `nbytes` bytes of `src` into `dest` (`destsize` bytes) with
 * level `clevel` (0-9), filter `doshuffle` (BLOSC_NOSHUFFLE, BLOSC_SHUFFLE
 * or BLOSC_BITSHUFFLE) and item size `typesize`, using the global codec,
 * block size, split mode and threads. Returns the chunk size, 0 when it
 * does not fit in `destsize` (never with destsize >= nbytes +
 * BLOSC_MAX_OVERHEAD), or a negative code.
 *
 * Environment variables override the arguments and global parameters:
 * BLOSC_CLEVEL, BLOSC_SHUFFLE (NOSHUFFLE, SHUFFLE, BITSHUFFLE),
 * BLOSC_TYPESIZE, BLOSC_COMPRESSOR, BLOSC_NTHREADS, BLOSC_BLOCKSIZE,
 * BLOSC_SPLITMODE (FORWARD_COMPAT, AUTO, ALWAYS, NEVER) and BLOSC_NOLOCK
 * (call blosc_compress_ctx with the global parameters instead of taking
 * the global lock).
 */
BLOSC_EXPORT int blosc_compress(int clevel, int doshuffle, size_t typesize, size_t nbytes, const void *src,
                                void *dest, size_t destsize);

/*
 * blosc_compress with its own codec name, block size (0 = automatic) and
 * thread count, no global lock and no environment variables.
 */
BLOSC_EXPORT int blosc_compress_ctx(int clevel, int doshuffle, size_t typesize, size_t nbytes, const void *src,
                                    void *dest, size_t destsize, const char *compressor, size_t blocksize,
                                    int numinternalthreads);

/*
 * Decompress the chunk `src` into `dest` (at most `destsize` bytes).
 * Returns the decompressed size, or 0 / a negative value on error.
 * Honours BLOSC_NTHREADS and BLOSC_NOLOCK.
 */
BLOSC_EXPORT int blosc_decompress(const void *src, void *dest, size_t destsize);

/* blosc_decompress with its own thread count and no global lock. */
BLOSC_EXPORT int blosc_decompress_ctx(const void *src, void *dest, size_t destsize, int numinternalthreads);

/*
 * Copy `nitems` items from item `start` of the chunk `src` into `dest`.
 * Returns the bytes copied or a negative code.
 */
BLOSC_EXPORT int blosc_getitem(const void *src, int start, int nitems, void *dest);

/* Threads of the global functions. */
BLOSC_EXPORT int blosc_get_nthreads(void);

/* Set the threads of the global functions; returns the previous number. */
BLOSC_EXPORT int blosc_set_nthreads(int nthreads);

/* Codec name of the global functions. */
BLOSC_EXPORT const char *blosc_get_compressor(void);

/* Select the codec of the global functions; returns its code or -1. */
BLOSC_EXPORT int blosc_set_compressor(const char *compname);

/* Name of codec `compcode` in `*compname`; returns the code or -1. */
BLOSC_EXPORT int blosc_compcode_to_compname(int compcode, const char **compname);

/* Code of the codec named `compname`, or -1. */
BLOSC_EXPORT int blosc_compname_to_compcode(const char *compname);

/* Comma-separated codec names of this build (static; do not free). */
BLOSC_EXPORT const char *blosc_list_compressors(void);

/* Version string of the library. */
BLOSC_EXPORT const char *blosc_get_version_string(void);

/*
 * Library name and version of codec `compname` in `*complib` and
 * `*version` (to be free()d; not set when NULL). Returns the library
 * code, or -1.
 */
BLOSC_EXPORT int blosc_get_complib_info(const char *compname, char **complib, char **version);

/* Release the thread pools; returns 0, or a negative value on error. */
BLOSC_EXPORT int blosc_free_resources(void);

/*
 * Uncompressed size, compressed size and block size of a chunk (from its
 * first BLOSC_MIN_HEADER_LENGTH bytes; zeros for an unsupported format).
 */
BLOSC_EXPORT void blosc_cbuffer_sizes(const void *cbuffer, size_t *nbytes, size_t *cbytes, size_t *blocksize);

/*
 * 0 (and the uncompressed size in `*nbytes`) when `cbytes` bytes at
 * `cbuffer` may be a chunk that is safe to decompress; -1 otherwise.
 */
BLOSC_EXPORT int blosc_cbuffer_validate(const void *cbuffer, size_t cbytes, size_t *nbytes);

/* Typesize and flags (BLOSC_DOSHUFFLE, BLOSC_MEMCPYED, BLOSC_DOBITSHUFFLE). */
BLOSC_EXPORT void blosc_cbuffer_metainfo(const void *cbuffer, size_t *typesize, int *flags);

/* Format version and codec format version of a chunk. */
BLOSC_EXPORT void blosc_cbuffer_versions(const void *cbuffer, int *version, int *compversion);

/* Codec library name of a chunk. */
BLOSC_EXPORT const char *blosc_cbuffer_complib(const void *cbuffer);

/* Block size forced on the global functions (0 = automatic). */
BLOSC_EXPORT int blosc_get_blocksize(void);

/* Force a block size on the global functions (0 = automatic). */
BLOSC_EXPORT void blosc_set_blocksize(size_t blocksize);

/* Split mode of the global functions (BLOSC_*_SPLIT). */
BLOSC_EXPORT void blosc_set_splitmode(int splitmode);

#ifdef __cplusplus
}
#endif

#endif /* BLOSC_H */
