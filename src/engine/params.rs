//! Compression and decompression parameters, the engine's view of
//! `blosc2_cparams` / `blosc2_dparams`.

use std::sync::Arc;

use super::constants::{codec, filter, splitmode, MAX_FILTERS};
use super::plugins::PluginEnv;

/// Arguments handed to a prefilter for one block (`blosc2_prefilter_params`).
pub struct PrefilterArgs<'a> {
    /// The block of the source buffer being compressed.
    pub input: &'a [u8],
    /// Where the prefilter writes its output (same length as `input`).
    pub output: &'a mut [u8],
    /// Typesize of the output.
    pub output_typesize: i32,
    /// Offset of this block in the source buffer.
    pub output_offset: i32,
    /// Chunk number within a super-chunk (-1 outside one).
    pub nchunk: i64,
    /// Block number.
    pub nblock: i32,
    /// Thread id.
    pub tid: i32,
    /// Scratch space of `blocksize` bytes.
    pub ttmp: &'a mut [u8],
}

/// Arguments handed to a postfilter for one block (`blosc2_postfilter_params`).
pub struct PostfilterArgs<'a> {
    /// The decoded block.
    pub input: &'a [u8],
    /// Where the postfilter writes its output (same length as `input`).
    pub output: &'a mut [u8],
    /// Typesize of the data.
    pub typesize: i32,
    /// Offset of this block in the destination buffer.
    pub offset: i32,
    /// Chunk number within a super-chunk (-1 outside one).
    pub nchunk: i64,
    /// Block number.
    pub nblock: i32,
    /// Thread id.
    pub tid: i32,
    /// Scratch space of `blocksize` bytes.
    pub ttmp: &'a mut [u8],
}

/// A prefilter: runs on each block before the filter pipeline. Returns 0 on
/// success, a negative value on failure.
pub type Prefilter = Arc<dyn Fn(&mut PrefilterArgs<'_>) -> i32 + Send + Sync>;
/// A postfilter: runs on each block after decoding.
pub type Postfilter = Arc<dyn Fn(&mut PostfilterArgs<'_>) -> i32 + Send + Sync>;

/// Compression parameters (the engine's `blosc2_cparams`).
#[derive(Clone)]
pub struct CParams {
    /// Codec id (`constants::codec`).
    pub compcode: u8,
    /// Codec metadata (stored in header byte 23).
    pub compcode_meta: u8,
    /// Compression level 0-9.
    pub clevel: u8,
    /// Train and use a dictionary (zstd, lz4, lz4hc).
    pub use_dict: bool,
    /// Size of one item, in bytes.
    pub typesize: i32,
    /// Threads to use.
    pub nthreads: i16,
    /// Requested block size; 0 = automatic.
    pub blocksize: i32,
    /// Split mode (`constants::splitmode`).
    pub splitmode: i32,
    /// The six-slot filter pipeline.
    pub filters: [u8; MAX_FILTERS],
    /// Per-filter metadata.
    pub filters_meta: [u8; MAX_FILTERS],
    /// Produce instrumentation instead of data (`instr_codec`).
    pub instr_codec: bool,
    /// Optional prefilter run on each block before the filters.
    pub prefilter: Option<Prefilter>,
    /// The prefilter's output is thrown away (`output_is_disposable`: it
    /// computes something on the side, e.g. a reduction): each block is
    /// stored as runs of zeros instead of being filtered and compressed,
    /// and a failing prefilter does not fail the chunk.
    pub prefilter_output_disposable: bool,
    /// Which chunk header to write.
    pub header_format: HeaderFormat,
    /// The super-chunk as plugins see it (`cparams->schunk`).
    pub plugins: PluginEnv,
}

/// The chunk header layout a compression writes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum HeaderFormat {
    /// The 32-byte Blosc2 extended header (what 3.3.5 writes by default).
    Extended,
    /// A 16-byte Blosc1 header with this version byte: 5 is what 3.3.5
    /// writes under `BLOSC_BLOSC1_COMPAT`, 2 is what c-blosc 1.x writes.
    /// Only shuffle, bitshuffle and delta can be expressed; no runs, no
    /// dictionaries.
    Blosc1 {
        /// The version byte to write.
        version: u8,
    },
}

impl Default for CParams {
    /// `BLOSC2_CPARAMS_DEFAULTS`.
    fn default() -> Self {
        CParams {
            compcode: codec::BLOSCLZ,
            compcode_meta: 0,
            clevel: 5,
            use_dict: false,
            typesize: 8,
            nthreads: 1,
            blocksize: 0,
            splitmode: splitmode::FORWARD_COMPAT,
            filters: [0, 0, 0, 0, 0, filter::SHUFFLE],
            filters_meta: [0; MAX_FILTERS],
            instr_codec: false,
            prefilter: None,
            prefilter_output_disposable: false,
            header_format: HeaderFormat::Extended,
            plugins: PluginEnv::default(),
        }
    }
}

impl std::fmt::Debug for CParams {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("CParams")
            .field("compcode", &self.compcode)
            .field("clevel", &self.clevel)
            .field("typesize", &self.typesize)
            .field("nthreads", &self.nthreads)
            .field("blocksize", &self.blocksize)
            .field("splitmode", &self.splitmode)
            .field("filters", &self.filters)
            .field("filters_meta", &self.filters_meta)
            .field("use_dict", &self.use_dict)
            .finish_non_exhaustive()
    }
}

/// Decompression parameters (the engine's `blosc2_dparams`).
#[derive(Clone)]
pub struct DParams {
    /// Threads to use.
    pub nthreads: i16,
    /// Typesize hint (used by postfilters).
    pub typesize: i32,
    /// Optional postfilter run on each decoded block.
    pub postfilter: Option<Postfilter>,
    /// The super-chunk as plugins see it (`dparams->schunk`).
    pub plugins: PluginEnv,
}

impl Default for DParams {
    /// `BLOSC2_DPARAMS_DEFAULTS`.
    fn default() -> Self {
        DParams {
            nthreads: 1,
            typesize: 8,
            postfilter: None,
            plugins: PluginEnv::default(),
        }
    }
}

impl std::fmt::Debug for DParams {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("DParams")
            .field("nthreads", &self.nthreads)
            .finish_non_exhaustive()
    }
}
