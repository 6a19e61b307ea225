/*
 * The C-Blosc2 2.23.1 ABI as seen through include/v2: the size, alignment
 * and field offsets of every public struct, the value of every constant,
 * and every exported function (their addresses must resolve when linked
 * against the abi-v2 library, libblosc2.so.7). The expected numbers were
 * measured by compiling this program against C-Blosc2 v2.23.1's own
 * headers (x86-64 / aarch64 Linux, LP64).
 */
#include "blosc2.h"
#include "b2nd.h"
#include "blosc2/blosc2-stdio.h"
#include "blosc2/codecs-registry.h"
#include "blosc2/filters-registry.h"
#include "blosc2/tuners-registry.h"
#include <stddef.h>
#include <stdio.h>

static int failures = 0;

#define CHECK_SIZE(T, size, align)                                                             \
  do {                                                                                         \
    if (sizeof(T) != (size) || _Alignof(T) != (align)) {                                       \
      printf("sizeof/alignof(%s) = %zu/%zu, 2.23.1 has %d/%d\n", #T, sizeof(T), _Alignof(T),   \
             (int)(size), (int)(align));                                                       \
      failures++;                                                                              \
    }                                                                                          \
  } while (0)
#define CHECK_OFFSET(T, field, off)                                                            \
  do {                                                                                         \
    if (offsetof(T, field) != (off)) {                                                         \
      printf("offsetof(%s, %s) = %zu, 2.23.1 has %d\n", #T, #field, offsetof(T, field), (int)(off)); \
      failures++;                                                                              \
    }                                                                                          \
  } while (0)
#define CHECK_CONST(name, value)                                                               \
  do {                                                                                         \
    if ((long long)(name) != (long long)(value)) {                                             \
      printf("%s = %lld, 2.23.1 has %lld\n", #name, (long long)(name), (long long)(value));     \
      failures++;                                                                              \
    }                                                                                          \
  } while (0)

/* Every function 2.23.1 declares (taking the address makes the link fail
   when the library lacks one), except those this library does not export
   in any ABI yet (src/capi/header/prototypes.h): the plugin registration
   functions, blosc2_get_io_cb and the blosc2_stdio_* / blosc2_stdio_mmap_*
   backend callbacks. */
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"
static void *const functions[] = {
  (void *)&b2nd_append,
  (void *)&b2nd_concatenate,
  (void *)&b2nd_copy,
  (void *)&b2nd_copy_buffer,
  (void *)&b2nd_copy_buffer2,
  (void *)&b2nd_create_ctx,
  (void *)&b2nd_delete,
  (void *)&b2nd_deserialize_meta,
  (void *)&b2nd_empty,
  (void *)&b2nd_expand_dims,
  (void *)&b2nd_free,
  (void *)&b2nd_free_ctx,
  (void *)&b2nd_from_cbuffer,
  (void *)&b2nd_from_cframe,
  (void *)&b2nd_from_schunk,
  (void *)&b2nd_full,
  (void *)&b2nd_get_orthogonal_selection,
  (void *)&b2nd_get_slice,
  (void *)&b2nd_get_slice_cbuffer,
  (void *)&b2nd_insert,
  (void *)&b2nd_nans,
  (void *)&b2nd_open,
  (void *)&b2nd_open_offset,
  (void *)&b2nd_print_meta,
  (void *)&b2nd_resize,
  (void *)&b2nd_save,
  (void *)&b2nd_save_append,
  (void *)&b2nd_serialize_meta,
  (void *)&b2nd_set_orthogonal_selection,
  (void *)&b2nd_set_slice_cbuffer,
  (void *)&b2nd_squeeze,
  (void *)&b2nd_squeeze_index,
  (void *)&b2nd_to_cbuffer,
  (void *)&b2nd_to_cframe,
  (void *)&b2nd_uninit,
  (void *)&b2nd_zeros,
  (void *)&blosc1_cbuffer_metainfo,
  (void *)&blosc1_cbuffer_sizes,
  (void *)&blosc1_cbuffer_validate,
  (void *)&blosc1_compress,
  (void *)&blosc1_decompress,
  (void *)&blosc1_get_blocksize,
  (void *)&blosc1_get_compressor,
  (void *)&blosc1_getitem,
  (void *)&blosc1_set_blocksize,
  (void *)&blosc1_set_compressor,
  (void *)&blosc1_set_splitmode,
  (void *)&blosc2_bitshuffle,
  (void *)&blosc2_bitunshuffle,
  (void *)&blosc2_cbuffer_complib,
  (void *)&blosc2_cbuffer_sizes,
  (void *)&blosc2_cbuffer_versions,
  (void *)&blosc2_chunk_nans,
  (void *)&blosc2_chunk_repeatval,
  (void *)&blosc2_chunk_uninit,
  (void *)&blosc2_chunk_zeros,
  (void *)&blosc2_compcode_to_compname,
  (void *)&blosc2_compname_to_compcode,
  (void *)&blosc2_compress,
  (void *)&blosc2_compress_ctx,
  (void *)&blosc2_create_cctx,
  (void *)&blosc2_create_dctx,
  (void *)&blosc2_ctx_get_cparams,
  (void *)&blosc2_ctx_get_dparams,
  (void *)&blosc2_decompress,
  (void *)&blosc2_decompress_ctx,
  (void *)&blosc2_destroy,
  (void *)&blosc2_error_string,
  (void *)&blosc2_frame_get_offsets,
  (void *)&blosc2_free_ctx,
  (void *)&blosc2_free_resources,
  (void *)&blosc2_get_blosc2_cparams_defaults,
  (void *)&blosc2_get_blosc2_dparams_defaults,
  (void *)&blosc2_get_blosc2_io_defaults,
  (void *)&blosc2_get_blosc2_stdio_mmap_defaults,
  (void *)&blosc2_get_blosc2_storage_defaults,
  (void *)&blosc2_get_complib_info,
  (void *)&blosc2_get_nthreads,
  (void *)&blosc2_get_slice_nchunks,
  (void *)&blosc2_get_version_string,
  (void *)&blosc2_getitem,
  (void *)&blosc2_getitem_ctx,
  (void *)&blosc2_init,
  (void *)&blosc2_list_compressors,
  (void *)&blosc2_meta_add,
  (void *)&blosc2_meta_update,
  (void *)&blosc2_multidim_to_unidim,
  (void *)&blosc2_remove_dir,
  (void *)&blosc2_remove_urlpath,
  (void *)&blosc2_rename_urlpath,
  (void *)&blosc2_schunk_append_buffer,
  (void *)&blosc2_schunk_append_chunk,
  (void *)&blosc2_schunk_append_file,
  (void *)&blosc2_schunk_avoid_cframe_free,
  (void *)&blosc2_schunk_copy,
  (void *)&blosc2_schunk_decompress_chunk,
  (void *)&blosc2_schunk_delete_chunk,
  (void *)&blosc2_schunk_fill_special,
  (void *)&blosc2_schunk_frame_len,
  (void *)&blosc2_schunk_free,
  (void *)&blosc2_schunk_from_buffer,
  (void *)&blosc2_schunk_get_chunk,
  (void *)&blosc2_schunk_get_cparams,
  (void *)&blosc2_schunk_get_dparams,
  (void *)&blosc2_schunk_get_lazychunk,
  (void *)&blosc2_schunk_get_slice_buffer,
  (void *)&blosc2_schunk_insert_chunk,
  (void *)&blosc2_schunk_new,
  (void *)&blosc2_schunk_open,
  (void *)&blosc2_schunk_open_offset,
  (void *)&blosc2_schunk_open_offset_udio,
  (void *)&blosc2_schunk_open_udio,
  (void *)&blosc2_schunk_reorder_offsets,
  (void *)&blosc2_schunk_set_slice_buffer,
  (void *)&blosc2_schunk_to_buffer,
  (void *)&blosc2_schunk_to_file,
  (void *)&blosc2_schunk_update_chunk,
  (void *)&blosc2_set_delta,
  (void *)&blosc2_set_maskout,
  (void *)&blosc2_set_nthreads,
  (void *)&blosc2_set_threads_callback,
  (void *)&blosc2_shuffle,
  (void *)&blosc2_unidim_to_multidim,
  (void *)&blosc2_unshuffle,
  (void *)&blosc2_vlmeta_add,
  (void *)&blosc2_vlmeta_delete,
  (void *)&blosc2_vlmeta_exists,
  (void *)&blosc2_vlmeta_get,
  (void *)&blosc2_vlmeta_get_names,
  (void *)&blosc2_vlmeta_update,
  (void *)&blosc_elapsed_nsecs,
  (void *)&blosc_elapsed_secs,
  (void *)&blosc_set_timestamp,
};

int main(void) {
  CHECK_SIZE(blosc2_instr, 16, 4);
  CHECK_OFFSET(blosc2_instr, cratio, 0);
  CHECK_OFFSET(blosc2_instr, cspeed, 4);
  CHECK_OFFSET(blosc2_instr, filter_speed, 8);
  CHECK_OFFSET(blosc2_instr, flags, 12);
  CHECK_SIZE(blosc2_io_cb, 80, 8);
  CHECK_OFFSET(blosc2_io_cb, id, 0);
  CHECK_OFFSET(blosc2_io_cb, name, 8);
  CHECK_OFFSET(blosc2_io_cb, is_allocation_necessary, 16);
  CHECK_OFFSET(blosc2_io_cb, open, 24);
  CHECK_OFFSET(blosc2_io_cb, close, 32);
  CHECK_OFFSET(blosc2_io_cb, size, 40);
  CHECK_OFFSET(blosc2_io_cb, write, 48);
  CHECK_OFFSET(blosc2_io_cb, read, 56);
  CHECK_OFFSET(blosc2_io_cb, truncate, 64);
  CHECK_OFFSET(blosc2_io_cb, destroy, 72);
  CHECK_SIZE(blosc2_io, 24, 8);
  CHECK_OFFSET(blosc2_io, id, 0);
  CHECK_OFFSET(blosc2_io, name, 8);
  CHECK_OFFSET(blosc2_io, params, 16);
  CHECK_SIZE(blosc2_tuner, 56, 8);
  CHECK_OFFSET(blosc2_tuner, init, 0);
  CHECK_OFFSET(blosc2_tuner, next_blocksize, 8);
  CHECK_OFFSET(blosc2_tuner, next_cparams, 16);
  CHECK_OFFSET(blosc2_tuner, update, 24);
  CHECK_OFFSET(blosc2_tuner, free, 32);
  CHECK_OFFSET(blosc2_tuner, id, 40);
  CHECK_OFFSET(blosc2_tuner, name, 48);
  CHECK_SIZE(blosc2_prefilter_params, 88, 8);
  CHECK_OFFSET(blosc2_prefilter_params, user_data, 0);
  CHECK_OFFSET(blosc2_prefilter_params, input, 8);
  CHECK_OFFSET(blosc2_prefilter_params, output, 16);
  CHECK_OFFSET(blosc2_prefilter_params, output_size, 24);
  CHECK_OFFSET(blosc2_prefilter_params, output_typesize, 28);
  CHECK_OFFSET(blosc2_prefilter_params, output_offset, 32);
  CHECK_OFFSET(blosc2_prefilter_params, nchunk, 40);
  CHECK_OFFSET(blosc2_prefilter_params, nblock, 48);
  CHECK_OFFSET(blosc2_prefilter_params, tid, 52);
  CHECK_OFFSET(blosc2_prefilter_params, ttmp, 56);
  CHECK_OFFSET(blosc2_prefilter_params, ttmp_nbytes, 64);
  CHECK_OFFSET(blosc2_prefilter_params, ctx, 72);
  CHECK_OFFSET(blosc2_prefilter_params, output_is_disposable, 80);
  CHECK_SIZE(blosc2_postfilter_params, 80, 8);
  CHECK_OFFSET(blosc2_postfilter_params, user_data, 0);
  CHECK_OFFSET(blosc2_postfilter_params, input, 8);
  CHECK_OFFSET(blosc2_postfilter_params, output, 16);
  CHECK_OFFSET(blosc2_postfilter_params, size, 24);
  CHECK_OFFSET(blosc2_postfilter_params, typesize, 28);
  CHECK_OFFSET(blosc2_postfilter_params, offset, 32);
  CHECK_OFFSET(blosc2_postfilter_params, nchunk, 40);
  CHECK_OFFSET(blosc2_postfilter_params, nblock, 48);
  CHECK_OFFSET(blosc2_postfilter_params, tid, 52);
  CHECK_OFFSET(blosc2_postfilter_params, ttmp, 56);
  CHECK_OFFSET(blosc2_postfilter_params, ttmp_nbytes, 64);
  CHECK_OFFSET(blosc2_postfilter_params, ctx, 72);
  CHECK_SIZE(blosc2_cparams, 136, 8);
  CHECK_OFFSET(blosc2_cparams, compcode, 0);
  CHECK_OFFSET(blosc2_cparams, compcode_meta, 1);
  CHECK_OFFSET(blosc2_cparams, clevel, 2);
  CHECK_OFFSET(blosc2_cparams, use_dict, 4);
  CHECK_OFFSET(blosc2_cparams, typesize, 8);
  CHECK_OFFSET(blosc2_cparams, nthreads, 12);
  CHECK_OFFSET(blosc2_cparams, blocksize, 16);
  CHECK_OFFSET(blosc2_cparams, splitmode, 20);
  CHECK_OFFSET(blosc2_cparams, schunk, 24);
  CHECK_OFFSET(blosc2_cparams, filters, 32);
  CHECK_OFFSET(blosc2_cparams, filters_meta, 38);
  CHECK_OFFSET(blosc2_cparams, prefilter, 48);
  CHECK_OFFSET(blosc2_cparams, preparams, 56);
  CHECK_OFFSET(blosc2_cparams, tuner_params, 64);
  CHECK_OFFSET(blosc2_cparams, tuner_id, 72);
  CHECK_OFFSET(blosc2_cparams, instr_codec, 76);
  CHECK_OFFSET(blosc2_cparams, codec_params, 80);
  CHECK_OFFSET(blosc2_cparams, filter_params, 88);
  CHECK_SIZE(blosc2_dparams, 40, 8);
  CHECK_OFFSET(blosc2_dparams, nthreads, 0);
  CHECK_OFFSET(blosc2_dparams, schunk, 8);
  CHECK_OFFSET(blosc2_dparams, postfilter, 16);
  CHECK_OFFSET(blosc2_dparams, postparams, 24);
  CHECK_OFFSET(blosc2_dparams, typesize, 32);
  CHECK_SIZE(blosc2_storage, 40, 8);
  CHECK_OFFSET(blosc2_storage, contiguous, 0);
  CHECK_OFFSET(blosc2_storage, urlpath, 8);
  CHECK_OFFSET(blosc2_storage, cparams, 16);
  CHECK_OFFSET(blosc2_storage, dparams, 24);
  CHECK_OFFSET(blosc2_storage, io, 32);
  CHECK_SIZE(blosc2_metalayer, 24, 8);
  CHECK_OFFSET(blosc2_metalayer, name, 0);
  CHECK_OFFSET(blosc2_metalayer, content, 8);
  CHECK_OFFSET(blosc2_metalayer, content_len, 16);
  CHECK_SIZE(blosc2_schunk, 65824, 8);
  CHECK_OFFSET(blosc2_schunk, version, 0);
  CHECK_OFFSET(blosc2_schunk, compcode, 1);
  CHECK_OFFSET(blosc2_schunk, compcode_meta, 2);
  CHECK_OFFSET(blosc2_schunk, clevel, 3);
  CHECK_OFFSET(blosc2_schunk, splitmode, 4);
  CHECK_OFFSET(blosc2_schunk, typesize, 8);
  CHECK_OFFSET(blosc2_schunk, blocksize, 12);
  CHECK_OFFSET(blosc2_schunk, chunksize, 16);
  CHECK_OFFSET(blosc2_schunk, filters, 20);
  CHECK_OFFSET(blosc2_schunk, filters_meta, 26);
  CHECK_OFFSET(blosc2_schunk, nchunks, 32);
  CHECK_OFFSET(blosc2_schunk, current_nchunk, 40);
  CHECK_OFFSET(blosc2_schunk, nbytes, 48);
  CHECK_OFFSET(blosc2_schunk, cbytes, 56);
  CHECK_OFFSET(blosc2_schunk, data, 64);
  CHECK_OFFSET(blosc2_schunk, data_len, 72);
  CHECK_OFFSET(blosc2_schunk, storage, 80);
  CHECK_OFFSET(blosc2_schunk, frame, 88);
  CHECK_OFFSET(blosc2_schunk, cctx, 96);
  CHECK_OFFSET(blosc2_schunk, dctx, 104);
  CHECK_OFFSET(blosc2_schunk, metalayers, 112);
  CHECK_OFFSET(blosc2_schunk, nmetalayers, 240);
  CHECK_OFFSET(blosc2_schunk, vlmetalayers, 248);
  CHECK_OFFSET(blosc2_schunk, nvlmetalayers, 65784);
  CHECK_OFFSET(blosc2_schunk, tuner_params, 65792);
  CHECK_OFFSET(blosc2_schunk, tuner_id, 65800);
  CHECK_OFFSET(blosc2_schunk, ndim, 65804);
  CHECK_OFFSET(blosc2_schunk, blockshape, 65808);
  CHECK_OFFSET(blosc2_schunk, view, 65816);
  CHECK_SIZE(blosc2_codec, 40, 8);
  CHECK_OFFSET(blosc2_codec, compcode, 0);
  CHECK_OFFSET(blosc2_codec, compname, 8);
  CHECK_OFFSET(blosc2_codec, complib, 16);
  CHECK_OFFSET(blosc2_codec, version, 17);
  CHECK_OFFSET(blosc2_codec, encoder, 24);
  CHECK_OFFSET(blosc2_codec, decoder, 32);
  CHECK_SIZE(blosc2_filter, 40, 8);
  CHECK_OFFSET(blosc2_filter, id, 0);
  CHECK_OFFSET(blosc2_filter, name, 8);
  CHECK_OFFSET(blosc2_filter, version, 16);
  CHECK_OFFSET(blosc2_filter, forward, 24);
  CHECK_OFFSET(blosc2_filter, backward, 32);
  CHECK_SIZE(struct chunk_cache_s, 16, 8);
  CHECK_OFFSET(struct chunk_cache_s, data, 0);
  CHECK_OFFSET(struct chunk_cache_s, nchunk, 8);
  CHECK_SIZE(b2nd_array_t, 1368, 8);
  CHECK_OFFSET(b2nd_array_t, sc, 0);
  CHECK_OFFSET(b2nd_array_t, shape, 8);
  CHECK_OFFSET(b2nd_array_t, chunkshape, 136);
  CHECK_OFFSET(b2nd_array_t, extshape, 200);
  CHECK_OFFSET(b2nd_array_t, blockshape, 328);
  CHECK_OFFSET(b2nd_array_t, extchunkshape, 392);
  CHECK_OFFSET(b2nd_array_t, nitems, 520);
  CHECK_OFFSET(b2nd_array_t, chunknitems, 528);
  CHECK_OFFSET(b2nd_array_t, extnitems, 536);
  CHECK_OFFSET(b2nd_array_t, blocknitems, 544);
  CHECK_OFFSET(b2nd_array_t, extchunknitems, 552);
  CHECK_OFFSET(b2nd_array_t, ndim, 560);
  CHECK_OFFSET(b2nd_array_t, chunk_cache, 568);
  CHECK_OFFSET(b2nd_array_t, item_array_strides, 584);
  CHECK_OFFSET(b2nd_array_t, item_chunk_strides, 712);
  CHECK_OFFSET(b2nd_array_t, item_extchunk_strides, 840);
  CHECK_OFFSET(b2nd_array_t, item_block_strides, 968);
  CHECK_OFFSET(b2nd_array_t, block_chunk_strides, 1096);
  CHECK_OFFSET(b2nd_array_t, chunk_array_strides, 1224);
  CHECK_OFFSET(b2nd_array_t, dtype, 1352);
  CHECK_OFFSET(b2nd_array_t, dtype_format, 1360);
  CHECK_SIZE(blosc2_stdio_file, 8, 8);
  CHECK_OFFSET(blosc2_stdio_file, file, 0);
  CHECK_SIZE(blosc2_stdio_mmap, 96, 8);
  CHECK_OFFSET(blosc2_stdio_mmap, mode, 0);
  CHECK_OFFSET(blosc2_stdio_mmap, initial_mapping_size, 8);
  CHECK_OFFSET(blosc2_stdio_mmap, needs_free, 16);
  CHECK_OFFSET(blosc2_stdio_mmap, addr, 24);
  CHECK_OFFSET(blosc2_stdio_mmap, urlpath, 32);
  CHECK_OFFSET(blosc2_stdio_mmap, file_size, 40);
  CHECK_OFFSET(blosc2_stdio_mmap, mapping_size, 48);
  CHECK_OFFSET(blosc2_stdio_mmap, is_memory_only, 56);
  CHECK_OFFSET(blosc2_stdio_mmap, file, 64);
  CHECK_OFFSET(blosc2_stdio_mmap, fd, 72);
  CHECK_OFFSET(blosc2_stdio_mmap, access_flags, 80);
  CHECK_OFFSET(blosc2_stdio_mmap, map_flags, 88);
  CHECK_SIZE(codec_info, 16, 8);
  CHECK_OFFSET(codec_info, encoder, 0);
  CHECK_OFFSET(codec_info, decoder, 8);
  CHECK_SIZE(filter_info, 16, 8);
  CHECK_OFFSET(filter_info, forward, 0);
  CHECK_OFFSET(filter_info, backward, 8);
  CHECK_SIZE(tuner_info, 40, 8);
  CHECK_OFFSET(tuner_info, init, 0);
  CHECK_OFFSET(tuner_info, next_blocksize, 8);
  CHECK_OFFSET(tuner_info, next_cparams, 16);
  CHECK_OFFSET(tuner_info, update, 24);
  CHECK_OFFSET(tuner_info, free, 32);
  CHECK_CONST(BLOSC1_VERSION_FORMAT, 2);
  CHECK_CONST(BLOSC1_VERSION_FORMAT_PRE1, 1);
  CHECK_CONST(BLOSC2_BIGENDIAN, 2);
  CHECK_CONST(BLOSC2_CHUNK_BLOCKSIZE, 8);
  CHECK_CONST(BLOSC2_CHUNK_BLOSC2_FLAGS, 31);
  CHECK_CONST(BLOSC2_CHUNK_CBYTES, 12);
  CHECK_CONST(BLOSC2_CHUNK_FILTER_CODES, 16);
  CHECK_CONST(BLOSC2_CHUNK_FILTER_META, 24);
  CHECK_CONST(BLOSC2_CHUNK_FLAGS, 2);
  CHECK_CONST(BLOSC2_CHUNK_NBYTES, 4);
  CHECK_CONST(BLOSC2_CHUNK_TYPESIZE, 3);
  CHECK_CONST(BLOSC2_CHUNK_VERSION, 0);
  CHECK_CONST(BLOSC2_CHUNK_VERSIONLZ, 1);
  CHECK_CONST(BLOSC2_DEFINED_CODECS_START, 0);
  CHECK_CONST(BLOSC2_DEFINED_CODECS_STOP, 31);
  CHECK_CONST(BLOSC2_DEFINED_FILTERS_START, 0);
  CHECK_CONST(BLOSC2_DEFINED_FILTERS_STOP, 31);
  CHECK_CONST(BLOSC2_DEFINED_TUNER_START, 0);
  CHECK_CONST(BLOSC2_DEFINED_TUNER_STOP, 31);
  CHECK_CONST(BLOSC2_ERROR_2GB_LIMIT, -22);
  CHECK_CONST(BLOSC2_ERROR_CHUNK_APPEND, -20);
  CHECK_CONST(BLOSC2_ERROR_CHUNK_INSERT, -19);
  CHECK_CONST(BLOSC2_ERROR_CHUNK_UPDATE, -21);
  CHECK_CONST(BLOSC2_ERROR_CODEC_DICT, -9);
  CHECK_CONST(BLOSC2_ERROR_CODEC_PARAM, -8);
  CHECK_CONST(BLOSC2_ERROR_CODEC_SUPPORT, -7);
  CHECK_CONST(BLOSC2_ERROR_DATA, -3);
  CHECK_CONST(BLOSC2_ERROR_FAILURE, -1);
  CHECK_CONST(BLOSC2_ERROR_FILE_OPEN, -15);
  CHECK_CONST(BLOSC2_ERROR_FILE_READ, -13);
  CHECK_CONST(BLOSC2_ERROR_FILE_REMOVE, -31);
  CHECK_CONST(BLOSC2_ERROR_FILE_TRUNCATE, -25);
  CHECK_CONST(BLOSC2_ERROR_FILE_WRITE, -14);
  CHECK_CONST(BLOSC2_ERROR_FILTER_PIPELINE, -18);
  CHECK_CONST(BLOSC2_ERROR_FRAME_SPECIAL, -28);
  CHECK_CONST(BLOSC2_ERROR_FRAME_TYPE, -24);
  CHECK_CONST(BLOSC2_ERROR_INVALID_HEADER, -11);
  CHECK_CONST(BLOSC2_ERROR_INVALID_INDEX, -33);
  CHECK_CONST(BLOSC2_ERROR_INVALID_PARAM, -12);
  CHECK_CONST(BLOSC2_ERROR_MAX_BUFSIZE_EXCEEDED, -35);
  CHECK_CONST(BLOSC2_ERROR_MEMORY_ALLOC, -4);
  CHECK_CONST(BLOSC2_ERROR_METALAYER_NOT_FOUND, -34);
  CHECK_CONST(BLOSC2_ERROR_NOT_FOUND, -16);
  CHECK_CONST(BLOSC2_ERROR_NULL_POINTER, -32);
  CHECK_CONST(BLOSC2_ERROR_PLUGIN_IO, -30);
  CHECK_CONST(BLOSC2_ERROR_POSTFILTER, -27);
  CHECK_CONST(BLOSC2_ERROR_READ_BUFFER, -5);
  CHECK_CONST(BLOSC2_ERROR_RUN_LENGTH, -17);
  CHECK_CONST(BLOSC2_ERROR_SCHUNK_COPY, -23);
  CHECK_CONST(BLOSC2_ERROR_SCHUNK_SPECIAL, -29);
  CHECK_CONST(BLOSC2_ERROR_STREAM, -2);
  CHECK_CONST(BLOSC2_ERROR_SUCCESS, 0);
  CHECK_CONST(BLOSC2_ERROR_THREAD_CREATE, -26);
  CHECK_CONST(BLOSC2_ERROR_TUNER, -36);
  CHECK_CONST(BLOSC2_ERROR_VERSION_SUPPORT, -10);
  CHECK_CONST(BLOSC2_ERROR_WRITE_BUFFER, -6);
  CHECK_CONST(BLOSC2_GLOBAL_REGISTERED_CODECS, 5);
  CHECK_CONST(BLOSC2_GLOBAL_REGISTERED_CODECS_START, 32);
  CHECK_CONST(BLOSC2_GLOBAL_REGISTERED_CODECS_STOP, 159);
  CHECK_CONST(BLOSC2_GLOBAL_REGISTERED_FILTERS, 5);
  CHECK_CONST(BLOSC2_GLOBAL_REGISTERED_FILTERS_START, 32);
  CHECK_CONST(BLOSC2_GLOBAL_REGISTERED_FILTERS_STOP, 159);
  CHECK_CONST(BLOSC2_GLOBAL_REGISTERED_TUNERS, 0);
  CHECK_CONST(BLOSC2_GLOBAL_REGISTERED_TUNER_START, 32);
  CHECK_CONST(BLOSC2_GLOBAL_REGISTERED_TUNER_STOP, 159);
  CHECK_CONST(BLOSC2_INSTR_CODEC, 128);
  CHECK_CONST(BLOSC2_IO_BLOSC_DEFINED, 32);
  CHECK_CONST(BLOSC2_IO_FILESYSTEM, 0);
  CHECK_CONST(BLOSC2_IO_FILESYSTEM_MMAP, 1);
  CHECK_CONST(BLOSC2_IO_REGISTERED, 160);
  CHECK_CONST(BLOSC2_IO_USER_DEFINED, 256);
  CHECK_CONST(BLOSC2_MAXBLOCKSIZE, 536866816);
  CHECK_CONST(BLOSC2_MAXDICTSIZE, 131072);
  CHECK_CONST(BLOSC2_MAXTYPESIZE, 536866816);
  CHECK_CONST(BLOSC2_MAX_BUFFERSIZE, 2147483615);
  CHECK_CONST(BLOSC2_MAX_FILTERS, 6);
  CHECK_CONST(BLOSC2_MAX_OVERHEAD, 32);
  CHECK_CONST(BLOSC2_MAX_UDFILTERS, 16);
  CHECK_CONST(BLOSC2_NO_SPECIAL, 0);
  CHECK_CONST(BLOSC2_SPECIAL_LASTID, 4);
  CHECK_CONST(BLOSC2_SPECIAL_MASK, 7);
  CHECK_CONST(BLOSC2_SPECIAL_NAN, 2);
  CHECK_CONST(BLOSC2_SPECIAL_UNINIT, 4);
  CHECK_CONST(BLOSC2_SPECIAL_VALUE, 3);
  CHECK_CONST(BLOSC2_SPECIAL_ZERO, 1);
  CHECK_CONST(BLOSC2_USEDICT, 1);
  CHECK_CONST(BLOSC2_USER_REGISTERED_CODECS_START, 160);
  CHECK_CONST(BLOSC2_USER_REGISTERED_CODECS_STOP, 255);
  CHECK_CONST(BLOSC2_USER_REGISTERED_FILTERS_START, 160);
  CHECK_CONST(BLOSC2_USER_REGISTERED_FILTERS_STOP, 255);
  CHECK_CONST(BLOSC2_USER_REGISTERED_TUNER_START, 160);
  CHECK_CONST(BLOSC2_USER_REGISTERED_TUNER_STOP, 255);
  CHECK_CONST(BLOSC2_VERSION_FORMAT, 5);
  CHECK_CONST(BLOSC2_VERSION_FORMAT_ALPHA, 3);
  CHECK_CONST(BLOSC2_VERSION_FORMAT_BETA1, 4);
  CHECK_CONST(BLOSC2_VERSION_FORMAT_STABLE, 5);
  CHECK_CONST(BLOSC2_VERSION_FRAME_FORMAT, 2);
  CHECK_CONST(BLOSC2_VERSION_FRAME_FORMAT_BETA2, 1);
  CHECK_CONST(BLOSC2_VERSION_FRAME_FORMAT_RC1, 2);
  CHECK_CONST(BLOSC_ALWAYS_SPLIT, 1);
  CHECK_CONST(BLOSC_AUTO_SPLIT, 3);
  CHECK_CONST(BLOSC_BITSHUFFLE, 2);
  CHECK_CONST(BLOSC_BLOSCLZ, 0);
  CHECK_CONST(BLOSC_BLOSCLZ_FORMAT, 0);
  CHECK_CONST(BLOSC_BLOSCLZ_LIB, 0);
  CHECK_CONST(BLOSC_BLOSCLZ_VERSION_FORMAT, 1);
  CHECK_CONST(BLOSC_BTUNE, 32);
  CHECK_CONST(BLOSC_CODEC_GROK, 37);
  CHECK_CONST(BLOSC_CODEC_NDLZ, 32);
  CHECK_CONST(BLOSC_CODEC_OPENHTJ2K, 36);
  CHECK_CONST(BLOSC_CODEC_OPENZL, 38);
  CHECK_CONST(BLOSC_CODEC_ZFP_FIXED_ACCURACY, 33);
  CHECK_CONST(BLOSC_CODEC_ZFP_FIXED_PRECISION, 34);
  CHECK_CONST(BLOSC_CODEC_ZFP_FIXED_RATE, 35);
  CHECK_CONST(BLOSC_DELTA, 3);
  CHECK_CONST(BLOSC_DOBITSHUFFLE, 4);
  CHECK_CONST(BLOSC_DODELTA, 8);
  CHECK_CONST(BLOSC_DOSHUFFLE, 1);
  CHECK_CONST(BLOSC_EXTENDED_HEADER_LENGTH, 32);
  CHECK_CONST(BLOSC_FILTER_BYTEDELTA, 35);
  CHECK_CONST(BLOSC_FILTER_BYTEDELTA_BUGGY, 34);
  CHECK_CONST(BLOSC_FILTER_INT_TRUNC, 36);
  CHECK_CONST(BLOSC_FILTER_NDCELL, 32);
  CHECK_CONST(BLOSC_FILTER_NDMEAN, 33);
  CHECK_CONST(BLOSC_FORWARD_COMPAT_SPLIT, 4);
  CHECK_CONST(BLOSC_IO_LAST_BLOSC_DEFINED, 2);
  CHECK_CONST(BLOSC_IO_LAST_REGISTERED, 32);
  CHECK_CONST(BLOSC_LAST_CODEC, 6);
  CHECK_CONST(BLOSC_LAST_FILTER, 5);
  CHECK_CONST(BLOSC_LAST_REGISTERED_CODEC, 36);
  CHECK_CONST(BLOSC_LAST_REGISTERED_FILTER, 36);
  CHECK_CONST(BLOSC_LAST_REGISTERED_TUNE, 31);
  CHECK_CONST(BLOSC_LAST_TUNER, 1);
  CHECK_CONST(BLOSC_LZ4, 1);
  CHECK_CONST(BLOSC_LZ4HC, 2);
  CHECK_CONST(BLOSC_LZ4HC_FORMAT, 1);
  CHECK_CONST(BLOSC_LZ4HC_VERSION_FORMAT, 1);
  CHECK_CONST(BLOSC_LZ4_FORMAT, 1);
  CHECK_CONST(BLOSC_LZ4_LIB, 1);
  CHECK_CONST(BLOSC_LZ4_VERSION_FORMAT, 1);
  CHECK_CONST(BLOSC_MAX_TYPESIZE, 255);
  CHECK_CONST(BLOSC_MEMCPYED, 2);
  CHECK_CONST(BLOSC_MIN_BUFFERSIZE, 32);
  CHECK_CONST(BLOSC_MIN_HEADER_LENGTH, 16);
  CHECK_CONST(BLOSC_NEVER_SPLIT, 2);
  CHECK_CONST(BLOSC_NOFILTER, 0);
  CHECK_CONST(BLOSC_NOSHUFFLE, 0);
  CHECK_CONST(BLOSC_SCHUNK_LIB, 7);
  CHECK_CONST(BLOSC_SHUFFLE, 1);
  CHECK_CONST(BLOSC_STUNE, 0);
  CHECK_CONST(BLOSC_TRUNC_PREC, 4);
  CHECK_CONST(BLOSC_UDCODEC_FORMAT, 6);
  CHECK_CONST(BLOSC_UDCODEC_LIB, 6);
  CHECK_CONST(BLOSC_UDCODEC_VERSION_FORMAT, 1);
  CHECK_CONST(BLOSC_ZLIB, 4);
  CHECK_CONST(BLOSC_ZLIB_FORMAT, 3);
  CHECK_CONST(BLOSC_ZLIB_LIB, 3);
  CHECK_CONST(BLOSC_ZLIB_VERSION_FORMAT, 1);
  CHECK_CONST(BLOSC_ZSTD, 5);
  CHECK_CONST(BLOSC_ZSTD_FORMAT, 4);
  CHECK_CONST(BLOSC_ZSTD_LIB, 4);
  CHECK_CONST(BLOSC_ZSTD_VERSION_FORMAT, 1);
  CHECK_CONST(B2ND_MAX_DIM, 16);
  CHECK_CONST(B2ND_MAX_METALAYERS, 15);
  CHECK_CONST(B2ND_METALAYER_VERSION, 0);
  CHECK_CONST(BLOSC2_MAX_DIM, 8);
  CHECK_CONST(BLOSC2_MAX_METALAYERS, 16);
  CHECK_CONST(BLOSC2_MAX_VLMETALAYERS, 8192);
  CHECK_CONST(BLOSC2_METALAYER_NAME_MAXLEN, 31);
  CHECK_CONST(BLOSC2_VERSION_MAJOR, 2);
  CHECK_CONST(BLOSC2_VERSION_MINOR, 23);
  CHECK_CONST(BLOSC2_VERSION_RELEASE, 1);
  CHECK_CONST(BLOSC_GCC_VERSION, 1202);
  for (size_t i = 0; i < sizeof(functions) / sizeof(functions[0]); i++) {
    if (functions[i] == NULL) {
      printf("function %zu has no address\n", i);
      failures++;
    }
  }
  if (strcmp(BLOSC2_VERSION_STRING, "2.23.1") != 0 || BLOSC2_MAX_DIM != 8) {
    printf("version macros: %s\n", BLOSC2_VERSION_STRING);
    failures++;
  }
  if (strcmp(blosc2_get_version_string(), BLOSC2_VERSION_STRING) != 0) {
    printf("blosc2_get_version_string() = %s\n", blosc2_get_version_string());
    failures++;
  }
  if (failures != 0) {
    printf("%d layout mismatches against C-Blosc2 2.23.1\n", failures);
    return 1;
  }
  printf("layout OK: %zu functions\n", sizeof(functions) / sizeof(functions[0]));
  return 0;
}
