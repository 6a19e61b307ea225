//! Super-chunks (`blosc2_schunk_*`): creation, copies, chunk edits and
//! reads, parameters and special fills.
//!
//! # Handles
//!
//! A `blosc2_schunk*` given to C points to a `calloc`ed
//! [`blosc2_schunk`] whose public fields C programs read directly. The
//! engine [`SChunk`] behind it lives in a side table ([`REGISTRY`]) keyed by
//! that address, together with what the handle owns on the C heap; a
//! pointer that is not in the table is refused with an error code instead
//! of being dereferenced. Each handle has its own mutex: calls on one
//! super-chunk from several threads are serialized, and a pre/postfilter
//! that calls back into the API with the super-chunk it is running for
//! gets `BLOSC2_ERROR_FAILURE` instead of a deadlock.
//!
//! Every call on an on-disk super-chunk first picks up changes another
//! handle or process made to the frame ([`State::follow_disk`], a header
//! read), as 3.3.5 does on chunk and vlmetalayer accesses.
//!
//! After every call [`State::sync`] copies the counters (`nchunks`,
//! `nbytes`, `cbytes`, `chunksize`, `blocksize`, `flags2`,
//! `current_nchunk`, `frame`, `data`/`data_len`) from the engine into the
//! public struct. The fields C programs write (`chunksize`,
//! `current_nchunk`, as python-blosc2 does) are read back at the start of
//! the next call when they differ from what was published, since 3.3.5
//! works from the struct itself; and
//! [`State::sync_metas`] keeps `metalayers`/`vlmetalayers` populated with
//! `malloc`ed names and contents for the header's inline `blosc2_meta_get`
//! and `blosc2_meta_exists`. The compression parameters of the public
//! struct (`typesize`, `compcode`, `filters`, ...) are written once, when
//! the handle is made, so that C code adjusting them (as python-blosc2
//! does) keeps its values.
//!
//! `frame` is NULL for an in-memory super-chunk without frame and an opaque
//! non-NULL marker otherwise (as in 3.3.5, C code only tests it). `data`
//! is, as in 3.3.5, NULL for frames and otherwise an array of `data_len`
//! bytes (grown a 4 KiB page at a time) whose entry `n` points at chunk
//! `n` as the engine holds it (C code such as python-blosc2's prefilters
//! reads `schunk->data[n]`); after `blosc2_schunk_from_buffer(copy =
//! true)` `data_len` reads 0 until a chunk is added, as in 3.3.5.
//! `cctx`/`dctx` are real contexts whose params point back to the
//! super-chunk, and they are used as in 3.3.5: `decompress_chunk` and
//! `get_vlblock` always go through `schunk->dctx`; slices and sparse reads
//! go through it when it has a postfilter; `append_buffer` and
//! `set_slice_buffer` compress through `schunk->cctx` when it has a
//! prefilter or parameters other than the super-chunk's (a context swapped
//! in by the caller, environment overrides). Otherwise the engine does the
//! work (same results; it also reproduces 3.3.5's block sizes across
//! chunks).

mod handle;
mod heap;
mod storage;

// The exports: cbindgen writes them to blosc2.h in this order (one group
// each, so that rustfmt does not sort them).
mod create;

mod chunks;

mod params;

pub use chunks::*;
pub use create::*;
pub(crate) use handle::*;
pub(crate) use heap::*;
pub use params::*;
pub(crate) use storage::*;
