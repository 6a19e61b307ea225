//! Numbers fixed by the Blosc2 chunk format and by C-Blosc2 3.3.5's API.

/// Length of a Blosc1 (legacy) chunk header.
pub const MIN_HEADER_LENGTH: usize = 16;
/// Length of a Blosc2 extended chunk header.
pub const EXTENDED_HEADER_LENGTH: usize = 32;
/// Worst-case growth of a chunk over its input (`BLOSC2_MAX_OVERHEAD`).
pub const MAX_OVERHEAD: usize = EXTENDED_HEADER_LENGTH;
/// Largest uncompressed buffer a chunk can hold (`BLOSC2_MAX_BUFFERSIZE`).
pub const MAX_BUFFERSIZE: i32 = i32::MAX - MAX_OVERHEAD as i32;
/// Largest typesize stored in a header byte (`BLOSC_MAX_TYPESIZE`).
pub const MAX_TYPESIZE: i32 = 255;
/// Buffers shorter than this are always stored memcpyed (`BLOSC_MIN_BUFFERSIZE`).
pub const MIN_BUFFERSIZE: usize = 32;
/// Largest block size (`BLOSC2_MAXBLOCKSIZE`).
pub const MAX_BLOCKSIZE: i32 = 536_866_816;
/// Largest typesize accepted in cparams (`BLOSC2_MAXTYPESIZE`).
pub const MAX_TYPESIZE_PARAM: i32 = MAX_BLOCKSIZE;
/// Number of filter slots in the pipeline (`BLOSC2_MAX_FILTERS`).
pub const MAX_FILTERS: usize = 6;
/// Largest dictionary (`BLOSC2_MAXDICTSIZE`).
pub const MAX_DICT_SIZE: usize = 32 * 1024;
/// Smallest dictionary worth using (`BLOSC2_MINUSEFULDICT`).
pub const MIN_USEFUL_DICT: usize = 256;

/// Chunk format versions (header byte 0).
pub mod version {
    /// Blosc1 pre-1.0.
    pub const BLOSC1_PRE1: u8 = 1;
    /// Blosc1 (c-blosc 1.x) format.
    pub const BLOSC1: u8 = 2;
    /// Blosc2 alpha.
    pub const BLOSC2_ALPHA: u8 = 3;
    /// Blosc2 beta 1.
    pub const BLOSC2_BETA1: u8 = 4;
    /// Blosc2 stable: what 3.3.5 writes for regular chunks.
    pub const BLOSC2_STABLE: u8 = 5;
    /// Variable-length-block chunks.
    pub const BLOSC2_VL_BLOCKS: u8 = 6;
    /// Latest version this library reads.
    pub const LATEST: u8 = BLOSC2_VL_BLOCKS;
}

/// Codec ids (`BLOSC_BLOSCLZ` ...).
pub mod codec {
    /// BloscLZ.
    pub const BLOSCLZ: u8 = 0;
    /// LZ4.
    pub const LZ4: u8 = 1;
    /// LZ4HC.
    pub const LZ4HC: u8 = 2;
    /// Snappy (c-blosc 1.x chunks; Cargo feature `snappy`).
    pub const SNAPPY: u8 = 3;
    /// zlib.
    pub const ZLIB: u8 = 4;
    /// Zstandard.
    pub const ZSTD: u8 = 5;
    /// One past the last built-in codec.
    pub const LAST: u8 = 6;
    /// First id of globally registered plugin codecs.
    pub const GLOBAL_REGISTERED_START: u8 = 32;
    /// First id of user-registered codecs.
    pub const USER_REGISTERED_START: u8 = 160;
}

/// Codec *format* (library) numbers stored in header flags bits 5-7.
pub mod codec_format {
    /// BloscLZ library.
    pub const BLOSCLZ: u8 = 0;
    /// LZ4 / LZ4HC library.
    pub const LZ4: u8 = 1;
    /// Snappy library (c-blosc 1.x).
    pub const SNAPPY: u8 = 2;
    /// zlib library.
    pub const ZLIB: u8 = 3;
    /// Zstandard library.
    pub const ZSTD: u8 = 4;
    /// User-defined codec: the real id is in header byte 22.
    pub const UDCODEC: u8 = 6;
}

/// Filter ids (`BLOSC_SHUFFLE` ...).
pub mod filter {
    /// No filter.
    pub const NOFILTER: u8 = 0;
    /// Byte shuffle.
    pub const SHUFFLE: u8 = 1;
    /// Bit shuffle.
    pub const BITSHUFFLE: u8 = 2;
    /// Delta (XOR against the first block).
    pub const DELTA: u8 = 3;
    /// Truncate floating point precision.
    pub const TRUNC_PREC: u8 = 4;
    /// One past the last built-in filter.
    pub const LAST: u8 = 5;
}

/// Split modes (`BLOSC_ALWAYS_SPLIT` ...).
pub mod splitmode {
    /// Always split blocks into typesize streams.
    pub const ALWAYS: i32 = 1;
    /// Never split.
    pub const NEVER: i32 = 2;
    /// Decide with the heuristic.
    pub const AUTO: i32 = 3;
    /// Default: same heuristic as AUTO.
    pub const FORWARD_COMPAT: i32 = 4;
}

/// Header byte 2 (`flags`) bits.
pub mod flags {
    /// Byte shuffle (Blosc1 headers only).
    pub const DOSHUFFLE: u8 = 0x1;
    /// Data stored without compression.
    pub const MEMCPYED: u8 = 0x2;
    /// Bit shuffle (Blosc1 headers only); with DOSHUFFLE marks an extended header.
    pub const DOBITSHUFFLE: u8 = 0x4;
    /// Delta filter present.
    pub const DODELTA: u8 = 0x8;
    /// Blocks are not split into streams.
    pub const DONT_SPLIT: u8 = 0x10;
    /// Both bits set mark a Blosc2 extended header.
    pub const EXTENDED_HEADER: u8 = DOSHUFFLE | DOBITSHUFFLE;
}

/// Header byte 31 (`blosc2_flags`) bits.
pub mod blosc2_flags {
    /// A dictionary follows bstarts.
    pub const USEDICT: u8 = 0x1;
    /// Written by a big-endian machine.
    pub const BIGENDIAN: u8 = 0x2;
    /// Lazy chunk (in-memory only).
    pub const LAZY_CHUNK: u8 = 0x8;
    /// Instrumented codec output.
    pub const INSTR_CODEC: u8 = 0x80;
    /// Shift of the special-value field (bits 4-6).
    pub const SPECIAL_SHIFT: u8 = 4;
}

/// Header byte 30 (`blosc2_flags2`) bits.
pub mod blosc2_flags2 {
    /// Variable-length blocks.
    pub const VL_BLOCKS: u8 = 0x1;
}

/// Special-value kinds stored in `blosc2_flags` bits 4-6.
pub mod special {
    /// Not special.
    pub const NONE: u8 = 0;
    /// All zeros.
    pub const ZERO: u8 = 1;
    /// All NaN.
    pub const NAN: u8 = 2;
    /// One repeated value.
    pub const VALUE: u8 = 3;
    /// Uninitialized.
    pub const UNINIT: u8 = 4;
    /// Mask of the special field after shifting.
    pub const MASK: u8 = 0x7;
}

/// Library (format) names and version strings reported by `get_complib_info`.
pub mod complib {
    /// BloscLZ version we implement the format of.
    pub const BLOSCLZ_VERSION: &str = "2.5.3";
    /// LZ4 format version reported.
    pub const LZ4_VERSION: &str = "1.10.0";
    /// Zstd version reported.
    pub const ZSTD_VERSION: &str = "1.5.7";
    /// Snappy: the version of the `snap` crate that implements it.
    pub const SNAPPY_VERSION: &str = "1.1.2";
}
