/*
 * blosc2-recordio.h: grailbio RecordIO files, with Blosc2 as a block
 * transformer. Part of the Rust re-implementation of C-Blosc2 (written by
 * hand; not generated).
 *
 * A recordio file stores items in blocks; each block may go through a
 * chain of transformers ("flate N", "zstd N", "blosc2 <config>" or your
 * own) and is stored as 32 KiB chunks with CRCs. Files written without
 * transformers are byte for byte what github.com/grailbio/base/recordio
 * (Go) writes; the scanner also reads the two legacy formats.
 *
 * Conventions: functions return 0 (BLOSC2_ERROR_SUCCESS) or a negative
 * BLOSC2_ERROR_* code; blosc2_recordio_last_error() then gives a message
 * naming the file offset when known. Buffers returned through `uint8_t **`
 * are malloc()ed: release them with free(). A writer or scanner handle
 * must not be used by two threads at once; different handles may.
 *
 * The "blosc2" transformer config is a list of key=value separated by
 * spaces or commas: codec (blosclz, lz4, lz4hc, zlib, zstd; default zstd),
 * clevel (0-9; 5), filter (nofilter, shuffle, bitshuffle, delta,
 * trunc_prec, or several joined with '+'; shuffle), typesize (1-255; 1),
 * nthreads (1), blocksize (0 = automatic), format (chunk or frame; chunk)
 * and chunksize (bytes per chunk of a frame; 8 MiB). Each block is stored
 * as one Blosc2 chunk, or as one contiguous frame with format=frame or
 * when the block is larger than a chunk can hold.
 */

#ifndef BLOSC_BLOSC2_RECORDIO_H
#define BLOSC_BLOSC2_RECORDIO_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "blosc2/blosc2-export.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Header value types. */
#define BLOSC2_RECORDIO_BOOL 1
#define BLOSC2_RECORDIO_INT 2
#define BLOSC2_RECORDIO_UINT 3
#define BLOSC2_RECORDIO_STRING 4

/* File formats (blosc2_recordio_scanner_format). */
#define BLOSC2_RECORDIO_FORMAT_LEGACY 1
#define BLOSC2_RECORDIO_FORMAT_V2 2

/* Writer flags: add "trailer: true" to the header (needed by
 * blosc2_recordio_writer_set_trailer); write no header block (to continue
 * an existing file; index offsets are then relative to the writer). */
#define BLOSC2_RECORDIO_KEY_TRAILER 0x1
#define BLOSC2_RECORDIO_SKIP_HEADER 0x2

/* Scanner flag: skip corrupted blocks (or legacy records) instead of
 * stopping, and report them (blosc2_recordio_scanner_skipped). */
#define BLOSC2_RECORDIO_RECOVER 0x1

/* Size of every chunk of a v2 file. */
#define BLOSC2_RECORDIO_CHUNK_SIZE 32768

typedef struct blosc2_recordio_writer blosc2_recordio_writer;
typedef struct blosc2_recordio_scanner blosc2_recordio_scanner;

/* Called for each item once its block is written: `block` is the offset of
 * the block's first chunk, `item` the item's index in it. Return 0, or
 * non-zero to stop the writer with an error. */
typedef int (*blosc2_recordio_index_cb)(void *user, uint64_t block, int64_t item, const uint8_t *data,
                                        int64_t len);

/* A transformer: read the concatenation of parts[0..nparts) (lens[i] bytes
 * each), store a malloc()ed result in *out and its size in *outlen (the
 * library frees it), return 0; or return non-zero on failure. `config` is
 * the text after the first space of the transformer spec ("" if none).
 * Must be thread safe. */
typedef int (*blosc2_recordio_transform_cb)(void *user, const char *config, const uint8_t *const *parts,
                                            const int64_t *lens, int nparts, uint8_t **out, int64_t *outlen);

typedef struct {
  const char *const *transformers; /* ntransformers specs, applied in order */
  int ntransformers;
  uint32_t max_items; /* a block is flushed at max_items + 1 items; 0 = 16384 */
  int flags;          /* BLOSC2_RECORDIO_KEY_TRAILER | BLOSC2_RECORDIO_SKIP_HEADER */
  blosc2_recordio_index_cb index; /* may be NULL */
  void *index_user;
} blosc2_recordio_writer_options;

/* Errors: the message and file offset (-1 if unknown) of the last failed
 * call on this thread. The string stays valid until the next failure. */
BLOSC_EXPORT const char *blosc2_recordio_last_error(void);
BLOSC_EXPORT int64_t blosc2_recordio_last_error_offset(void);

/* Writer. opts may be NULL. Call order: add_header* (append | flush)*
 * set_trailer? finish, then free. */
BLOSC_EXPORT int blosc2_recordio_writer_open(const char *path, const blosc2_recordio_writer_options *opts,
                                             blosc2_recordio_writer **out);
BLOSC_EXPORT int blosc2_recordio_writer_new_buffer(const blosc2_recordio_writer_options *opts,
                                                   blosc2_recordio_writer **out);
BLOSC_EXPORT int blosc2_recordio_writer_add_header_bool(blosc2_recordio_writer *w, const char *key, bool value);
BLOSC_EXPORT int blosc2_recordio_writer_add_header_int(blosc2_recordio_writer *w, const char *key, int64_t value);
BLOSC_EXPORT int blosc2_recordio_writer_add_header_uint(blosc2_recordio_writer *w, const char *key, uint64_t value);
BLOSC_EXPORT int blosc2_recordio_writer_add_header_string(blosc2_recordio_writer *w, const char *key,
                                                          const char *value);
BLOSC_EXPORT int blosc2_recordio_writer_append(blosc2_recordio_writer *w, const void *item, int64_t len);
BLOSC_EXPORT int blosc2_recordio_writer_flush(blosc2_recordio_writer *w);
BLOSC_EXPORT int blosc2_recordio_writer_set_trailer(blosc2_recordio_writer *w, const void *data, int64_t len);
BLOSC_EXPORT int blosc2_recordio_writer_finish(blosc2_recordio_writer *w);
BLOSC_EXPORT int64_t blosc2_recordio_writer_bytes(blosc2_recordio_writer *w);
/* A memory writer's bytes (after finish), malloc()ed. */
BLOSC_EXPORT int blosc2_recordio_writer_buffer(blosc2_recordio_writer *w, uint8_t **buf, int64_t *len);
BLOSC_EXPORT void blosc2_recordio_writer_free(blosc2_recordio_writer *w);

/* Scanner. A ".grail-rpk-gz" path selects the flate legacy transform;
 * open_buffer copies the buffer and takes the legacy transform spec (or
 * NULL). open_shard reads shard [start, limit) of nshard (v2 files). */
BLOSC_EXPORT int blosc2_recordio_scanner_open(const char *path, int flags, blosc2_recordio_scanner **out);
BLOSC_EXPORT int blosc2_recordio_scanner_open_shard(const char *path, int flags, int start, int limit, int nshard,
                                                    blosc2_recordio_scanner **out);
BLOSC_EXPORT int blosc2_recordio_scanner_open_buffer(const void *buf, int64_t len, int flags,
                                                     const char *legacy_transform, blosc2_recordio_scanner **out);
BLOSC_EXPORT int blosc2_recordio_scanner_format(blosc2_recordio_scanner *s);
BLOSC_EXPORT int64_t blosc2_recordio_scanner_header_count(blosc2_recordio_scanner *s);
/* Entry i: key, type, and value in *ival (bool, int), *uval (uint; bool as
 * 0/1) or *sval (string). Strings live as long as the scanner. Outputs may
 * be NULL. */
BLOSC_EXPORT int blosc2_recordio_scanner_header_entry(blosc2_recordio_scanner *s, int64_t i, const char **key,
                                                      int *type, int64_t *ival, uint64_t *uval,
                                                      const char **sval);
/* 1 and the item (valid until the next call on this scanner), 0 at the
 * end, or a negative code (then the scanner stays stopped). */
BLOSC_EXPORT int blosc2_recordio_scanner_next(blosc2_recordio_scanner *s, const uint8_t **item, int64_t *len);
/* Location of the item last returned (what the index callback saw). */
BLOSC_EXPORT int blosc2_recordio_scanner_location(blosc2_recordio_scanner *s, uint64_t *block, int64_t *item);
BLOSC_EXPORT int blosc2_recordio_scanner_seek(blosc2_recordio_scanner *s, uint64_t block, int64_t item);
/* 1 and a malloc()ed trailer, 0 when there is none, or a negative code. */
BLOSC_EXPORT int blosc2_recordio_scanner_trailer(blosc2_recordio_scanner *s, uint8_t **data, int64_t *len);
BLOSC_EXPORT int64_t blosc2_recordio_scanner_nskipped(blosc2_recordio_scanner *s);
BLOSC_EXPORT int blosc2_recordio_scanner_skipped(blosc2_recordio_scanner *s, int64_t i, uint64_t *offset,
                                                 uint64_t *length, int *code);
BLOSC_EXPORT void blosc2_recordio_scanner_free(blosc2_recordio_scanner *s);

/* Transformers registered by name (no spaces) for every writer and scanner
 * of the process. Built in: flate, zstd, blosc2 (cannot be removed). */
BLOSC_EXPORT int blosc2_recordio_register_transformer(const char *name, blosc2_recordio_transform_cb forward,
                                                      blosc2_recordio_transform_cb inverse, void *user);
BLOSC_EXPORT int blosc2_recordio_unregister_transformer(const char *name);

#ifdef __cplusplus
}
#endif

#endif /* BLOSC_BLOSC2_RECORDIO_H */
