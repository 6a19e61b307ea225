#ifdef __cplusplus
extern "C" {
#endif

/* Functions of the 3.3.5 API not exported by this build yet (declared so
   that code written against 3.3.5 compiles; see src/capi/header/prototypes.h). */
/* @PENDING_DECLARATIONS@ */

/* Default parameter sets (each also available through a getter). */
static const blosc2_io BLOSC2_IO_DEFAULTS = {BLOSC2_IO_FILESYSTEM, "filesystem", NULL};

static const blosc2_cparams BLOSC2_CPARAMS_DEFAULTS = {
  BLOSC_BLOSCLZ, 0, 5, 0, 8, 1, 0, BLOSC_FORWARD_COMPAT_SPLIT, NULL,
  {0, 0, 0, 0, 0, BLOSC_SHUFFLE}, {0, 0, 0, 0, 0, 0},
  NULL, NULL, NULL, 0, 0, NULL, {NULL, NULL, NULL, NULL, NULL, NULL}};

static const blosc2_dparams BLOSC2_DPARAMS_DEFAULTS = {1, NULL, NULL, NULL, 8};

static const blosc2_storage BLOSC2_STORAGE_DEFAULTS = {false, NULL, NULL, NULL, NULL};

static const blosc2_stdio_params BLOSC2_STDIO_PARAMS_DEFAULTS = {false};

static const blosc2_stdio_mmap BLOSC2_STDIO_MMAP_DEFAULTS = {
  "r", ((size_t)1 << 30), false, NULL, NULL, 0, 0, false, NULL, -1, -1, -1};

/* Kept for code that used it: the static description of an error code. */
static char *print_error(int rc) BLOSC_ATTRIBUTE_UNUSED;
static char *print_error(int rc) {
  return (char *)blosc2_error_string(rc);
}

/* Index of the fixed-length metalayer `name` of `schunk`, or a negative
   code (BLOSC2_ERROR_NOT_FOUND when there is none). Reads the schunk
   struct only, so it works without linking the library. */
static inline int blosc2_meta_exists(blosc2_schunk *schunk, const char *name) {
  if (name == NULL || strlen(name) > BLOSC2_METALAYER_NAME_MAXLEN) {
    BLOSC_TRACE_ERROR("Metalayer names have at most %d characters.", BLOSC2_METALAYER_NAME_MAXLEN);
    return BLOSC2_ERROR_INVALID_PARAM;
  }
  if (schunk == NULL) {
    BLOSC_TRACE_ERROR("%s", "The super-chunk is NULL.");
    return BLOSC2_ERROR_INVALID_PARAM;
  }
  for (int i = 0; i < schunk->nmetalayers && i < BLOSC2_MAX_METALAYERS; i++) {
    blosc2_metalayer *meta = schunk->metalayers[i];
    if (meta != NULL && meta->name != NULL && strcmp(name, meta->name) == 0) {
      return i;
    }
  }
  return BLOSC2_ERROR_NOT_FOUND;
}

/* Copy the content of the fixed-length metalayer `name` into a new buffer
   (*content, to be released with free(); NULL when empty) of *content_len
   bytes. Returns the metalayer index or a negative code. */
static inline int blosc2_meta_get(blosc2_schunk *schunk, const char *name, uint8_t **content,
                                  int32_t *content_len) {
  if (schunk == NULL || name == NULL || content == NULL || content_len == NULL) {
    BLOSC_TRACE_ERROR("%s", "NULL argument.");
    return BLOSC2_ERROR_INVALID_PARAM;
  }
  int index = blosc2_meta_exists(schunk, name);
  if (index < 0) {
    BLOSC_TRACE_WARNING("Metalayer \"%s\" not found.", name);
    return index;
  }
  blosc2_metalayer *meta = schunk->metalayers[index];
  int32_t len = meta->content_len;
  if (len < 0) {
    BLOSC_TRACE_ERROR("Metalayer \"%s\" has a negative length.", name);
    return BLOSC2_ERROR_DATA;
  }
  *content_len = len;
  *content = NULL;
  if (len == 0) {
    return index;
  }
  if (meta->content == NULL) {
    *content_len = 0;
    BLOSC_TRACE_ERROR("Metalayer \"%s\" has no content.", name);
    return BLOSC2_ERROR_DATA;
  }
  *content = (uint8_t *)malloc((size_t)len);
  if (*content == NULL) {
    *content_len = 0;
    BLOSC_TRACE_ERROR("Out of memory copying metalayer \"%s\".", name);
    return BLOSC2_ERROR_MEMORY_ALLOC;
  }
  memcpy(*content, meta->content, (size_t)len);
  return index;
}

/* Store the `size`-byte (1, 2, 4 or 8) big-endian value at `pa` into
   `dest` in native byte order. */
static inline void swap_store(void *dest, const void *pa, int size) {
  const uint8_t *src = (const uint8_t *)pa;
  uint8_t tmp[8];
  const uint16_t one = 1;
  const int little = *(const uint8_t *)&one == 1;
  if (size != 1 && size != 2 && size != 4 && size != 8) {
    fprintf(stderr, "Unhandled nitems: %d\n", size);
    return;
  }
  for (int i = 0; i < size; i++) {
    tmp[i] = little ? src[size - 1 - i] : src[i];
  }
  memcpy(dest, tmp, (size_t)size);
}

#ifdef __cplusplus
}  /* extern "C" */
#endif
