//! `#[repr(C)]` mirrors of the super-chunk, storage, stdio/mmap and b2nd
//! structs, with compile-time layout checks against C-Blosc2 3.3.5 (and
//! against 2.23.1 under the Cargo feature `abi-v2`, whose `blosc2_schunk`
//! lacks `flags2`, `use_dict` and `change_tick`, and whose `b2nd_array_t`
//! lacks `last_tick`).

#![allow(non_camel_case_types)]

use std::ffi::{c_char, c_int, c_void};

use super::types::{blosc2_context, blosc2_cparams, blosc2_dparams, blosc2_io};

/// Opaque frame handle (`struct blosc2_frame_s`).
#[repr(C)]
pub struct blosc2_frame {
    _opaque: [u8; 0],
}

/// Opaque b2nd context (`struct b2nd_context_s`).
#[repr(C)]
pub struct b2nd_context_t {
    _opaque: [u8; 0],
}

/// Where and how a super-chunk is stored.
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct blosc2_storage {
    /// Contiguous (cframe) or sparse (sframe) storage.
    pub contiguous: bool,
    /// Path for persistent storage; NULL for in-memory.
    pub urlpath: *mut c_char,
    /// Compression parameters (NULL = defaults).
    pub cparams: *mut blosc2_cparams,
    /// Decompression parameters (NULL = defaults).
    pub dparams: *mut blosc2_dparams,
    /// I/O backend (NULL = filesystem).
    pub io: *mut blosc2_io,
}

/// A fixed-length metalayer. `name` and `content` live on the C heap.
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct blosc2_metalayer {
    /// Metalayer name.
    pub name: *mut c_char,
    /// Serialized content.
    pub content: *mut u8,
    /// Length of `content`.
    pub content_len: i32,
}

/// A super-chunk. Clients read many of these fields directly.
#[repr(C)]
pub struct blosc2_schunk {
    /// Format version.
    pub version: u8,
    /// Default codec.
    pub compcode: u8,
    /// Default codec metadata.
    pub compcode_meta: u8,
    /// Default compression level.
    pub clevel: u8,
    /// Split mode.
    pub splitmode: u8,
    /// Item size.
    pub typesize: i32,
    /// Requested block size (0 = automatic).
    pub blocksize: i32,
    /// Chunk size (0 when chunks differ in size).
    pub chunksize: i32,
    /// Chunk-format flags shared by all chunks.
    #[cfg(not(feature = "abi-v2"))]
    pub flags2: u8,
    /// Whether chunks use a dictionary.
    #[cfg(not(feature = "abi-v2"))]
    pub use_dict: u8,
    /// Filter pipeline.
    pub filters: [u8; 6],
    /// Filter metadata.
    pub filters_meta: [u8; 6],
    /// Number of chunks.
    pub nchunks: i64,
    /// Chunk being accessed.
    pub current_nchunk: i64,
    /// Uncompressed size.
    pub nbytes: i64,
    /// Compressed size.
    pub cbytes: i64,
    /// Chunk pointers of an in-memory super-chunk without frame.
    pub data: *mut *mut u8,
    /// Length of `data`.
    pub data_len: usize,
    /// Storage description.
    pub storage: *mut blosc2_storage,
    /// Frame backing the chunks, if any.
    pub frame: *mut blosc2_frame,
    /// Compression context.
    pub cctx: *mut blosc2_context,
    /// Decompression context.
    pub dctx: *mut blosc2_context,
    /// Fixed-length metalayers.
    pub metalayers: [*mut blosc2_metalayer; 16],
    /// Number of fixed-length metalayers.
    pub nmetalayers: u16,
    /// Variable-length metalayers.
    pub vlmetalayers: [*mut blosc2_metalayer; 8192],
    /// Number of variable-length metalayers.
    pub nvlmetalayers: i16,
    /// Tuner configuration.
    pub tuner_params: *mut c_void,
    /// Tuner id.
    pub tuner_id: c_int,
    /// Number of dimensions (for ZFP).
    pub ndim: i8,
    /// Block shape (for ZFP).
    pub blockshape: *mut i64,
    /// True for a view.
    pub view: bool,
    /// Bumped whenever the metalayers change.
    #[cfg(not(feature = "abi-v2"))]
    pub change_tick: i64,
}

/// The fields 3.x added to `blosc2_schunk`, set and read through these so
/// that the code using them needs no `cfg`.
#[cfg(not(feature = "abi-v2"))]
impl blosc2_schunk {
    /// Set `flags2`.
    pub(crate) fn set_flags2(&mut self, flags2: u8) {
        self.flags2 = flags2;
    }

    /// Set `use_dict`.
    pub(crate) fn set_use_dict(&mut self, use_dict: u8) {
        self.use_dict = use_dict;
    }

    /// `use_dict` as C code may have adjusted it.
    pub(crate) fn use_dict_or(&self, _engine: u8) -> u8 {
        self.use_dict
    }

    /// Set `change_tick`.
    pub(crate) fn set_change_tick(&mut self, tick: i64) {
        self.change_tick = tick;
    }
}

/// The 2.x layout has no room for the 3.x fields: writes are dropped and
/// reads give the engine's value.
#[cfg(feature = "abi-v2")]
impl blosc2_schunk {
    /// No `flags2` in 2.x.
    pub(crate) fn set_flags2(&mut self, _flags2: u8) {}

    /// No `use_dict` in 2.x.
    pub(crate) fn set_use_dict(&mut self, _use_dict: u8) {}

    /// No `use_dict` in 2.x: the engine's setting.
    pub(crate) fn use_dict_or(&self, engine: u8) -> u8 {
        engine
    }

    /// No `change_tick` in 2.x.
    pub(crate) fn set_change_tick(&mut self, _tick: i64) {}
}

/// A stdio stream.
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct blosc2_stdio_file {
    /// The stream.
    pub file: *mut libc::FILE,
}

/// Parameters of the stdio backend.
#[repr(C)]
#[derive(Debug, Clone, Copy, Default)]
pub struct blosc2_stdio_params {
    /// Use advisory file locking.
    pub locking: bool,
}

/// State and parameters of the memory-mapped file backend.
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct blosc2_stdio_mmap {
    /// Open mode: "r", "r+", "w+" or "c".
    pub mode: *const c_char,
    /// Initial size of the mapping for writable modes.
    pub initial_mapping_size: usize,
    /// Free this struct in the destroy callback.
    pub needs_free: bool,
    /// Start of the mapping.
    pub addr: *mut c_char,
    /// Path of the mapped file.
    pub urlpath: *mut c_char,
    /// File size.
    pub file_size: usize,
    /// Mapping size.
    pub mapping_size: usize,
    /// Changes stay in memory ("c" mode).
    pub is_memory_only: bool,
    /// The underlying stream.
    pub file: *mut libc::FILE,
    /// The underlying file descriptor.
    pub fd: c_int,
    /// Page access flags.
    pub access_flags: i64,
    /// Mapping flags.
    pub map_flags: i64,
}

/// Cache of the last decompressed chunk of a b2nd array.
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct chunk_cache_s {
    /// Decompressed data.
    pub data: *mut u8,
    /// Chunk number held.
    pub nchunk: i64,
}

/// An N-dimensional array (`b2nd.h`).
#[repr(C)]
pub struct b2nd_array_t {
    /// Backing super-chunk.
    pub sc: *mut blosc2_schunk,
    /// Shape.
    pub shape: [i64; 16],
    /// Chunk shape.
    pub chunkshape: [i32; 16],
    /// Shape rounded up to whole chunks.
    pub extshape: [i64; 16],
    /// Block shape.
    pub blockshape: [i32; 16],
    /// Chunk shape rounded up to whole blocks.
    pub extchunkshape: [i64; 16],
    /// Number of items.
    pub nitems: i64,
    /// Items per chunk.
    pub chunknitems: i32,
    /// Items in the extended shape.
    pub extnitems: i64,
    /// Items per block.
    pub blocknitems: i32,
    /// Items per extended chunk.
    pub extchunknitems: i64,
    /// Number of dimensions.
    pub ndim: i8,
    /// Last-chunk cache.
    pub chunk_cache: chunk_cache_s,
    /// Item strides in the array.
    pub item_array_strides: [i64; 16],
    /// Item strides in a chunk.
    pub item_chunk_strides: [i64; 16],
    /// Item strides in an extended chunk.
    pub item_extchunk_strides: [i64; 16],
    /// Item strides in a block.
    pub item_block_strides: [i64; 16],
    /// Block strides in a chunk.
    pub block_chunk_strides: [i64; 16],
    /// Chunk strides in the array.
    pub chunk_array_strides: [i64; 16],
    /// Data type description.
    pub dtype: *mut c_char,
    /// Data type format.
    pub dtype_format: i8,
    /// Change tick of the metalayers last deserialized.
    #[cfg(not(feature = "abi-v2"))]
    pub last_tick: i64,
}

impl b2nd_array_t {
    /// Set `last_tick`.
    #[cfg(not(feature = "abi-v2"))]
    pub(crate) fn set_last_tick(&mut self, tick: i64) {
        self.last_tick = tick;
    }

    /// No `last_tick` in 2.x.
    #[cfg(feature = "abi-v2")]
    pub(crate) fn set_last_tick(&mut self, _tick: i64) {}
}

/// A point in time (`struct timespec` on POSIX).
#[cfg(not(windows))]
pub type blosc_timestamp_t = libc::timespec;
/// A point in time (`LARGE_INTEGER` on Windows).
#[cfg(windows)]
pub type blosc_timestamp_t = i64;

#[cfg(target_pointer_width = "64")]
mod layout {
    use super::super::types::check_layout;
    use super::*;
    check_layout!(blosc2_storage, size 40, align 8;
        contiguous @ 0, urlpath @ 8, cparams @ 16, dparams @ 24, io @ 32);
    check_layout!(blosc2_metalayer, size 24, align 8; name @ 0, content @ 8, content_len @ 16);
    #[cfg(not(feature = "abi-v2"))]
    check_layout!(blosc2_schunk, size 65840, align 8;
        version @ 0, compcode @ 1, compcode_meta @ 2, clevel @ 3, splitmode @ 4, typesize @ 8,
        blocksize @ 12, chunksize @ 16, flags2 @ 20, use_dict @ 21, filters @ 22,
        filters_meta @ 28, nchunks @ 40, current_nchunk @ 48, nbytes @ 56, cbytes @ 64,
        data @ 72, data_len @ 80, storage @ 88, frame @ 96, cctx @ 104, dctx @ 112,
        metalayers @ 120, nmetalayers @ 248, vlmetalayers @ 256, nvlmetalayers @ 65792,
        tuner_params @ 65800, tuner_id @ 65808, ndim @ 65812, blockshape @ 65816, view @ 65824,
        change_tick @ 65832);
    #[cfg(feature = "abi-v2")]
    check_layout!(blosc2_schunk, size 65824, align 8;
        version @ 0, compcode @ 1, compcode_meta @ 2, clevel @ 3, splitmode @ 4, typesize @ 8,
        blocksize @ 12, chunksize @ 16, filters @ 20, filters_meta @ 26, nchunks @ 32,
        current_nchunk @ 40, nbytes @ 48, cbytes @ 56, data @ 64, data_len @ 72, storage @ 80,
        frame @ 88, cctx @ 96, dctx @ 104, metalayers @ 112, nmetalayers @ 240, vlmetalayers @ 248,
        nvlmetalayers @ 65784, tuner_params @ 65792, tuner_id @ 65800, ndim @ 65804,
        blockshape @ 65808, view @ 65816);
    check_layout!(blosc2_stdio_file, size 8, align 8; file @ 0);
    check_layout!(blosc2_stdio_params, size 1, align 1; locking @ 0);
    #[cfg(not(windows))]
    check_layout!(blosc2_stdio_mmap, size 96, align 8;
        mode @ 0, initial_mapping_size @ 8, needs_free @ 16, addr @ 24, urlpath @ 32,
        file_size @ 40, mapping_size @ 48, is_memory_only @ 56, file @ 64, fd @ 72,
        access_flags @ 80, map_flags @ 88);
    check_layout!(chunk_cache_s, size 16, align 8; data @ 0, nchunk @ 8);
    #[cfg(not(feature = "abi-v2"))]
    check_layout!(b2nd_array_t, size 1376, align 8;
        sc @ 0, shape @ 8, chunkshape @ 136, extshape @ 200, blockshape @ 328,
        extchunkshape @ 392, nitems @ 520, chunknitems @ 528, extnitems @ 536,
        blocknitems @ 544, extchunknitems @ 552, ndim @ 560, chunk_cache @ 568,
        item_array_strides @ 584, item_chunk_strides @ 712, item_extchunk_strides @ 840,
        item_block_strides @ 968, block_chunk_strides @ 1096, chunk_array_strides @ 1224,
        dtype @ 1352, dtype_format @ 1360, last_tick @ 1368);
    #[cfg(feature = "abi-v2")]
    check_layout!(b2nd_array_t, size 1368, align 8;
        sc @ 0, shape @ 8, chunkshape @ 136, extshape @ 200, blockshape @ 328,
        extchunkshape @ 392, nitems @ 520, chunknitems @ 528, extnitems @ 536,
        blocknitems @ 544, extchunknitems @ 552, ndim @ 560, chunk_cache @ 568,
        item_array_strides @ 584, item_chunk_strides @ 712, item_extchunk_strides @ 840,
        item_block_strides @ 968, block_chunk_strides @ 1096, chunk_array_strides @ 1224,
        dtype @ 1352, dtype_format @ 1360);
    #[cfg(not(windows))]
    check_layout!(blosc_timestamp_t, size 16, align 8);
}
