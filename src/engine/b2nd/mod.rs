//! N-dimensional arrays over super-chunks (`b2nd.h` of C-Blosc2 3.3.5).
//!
//! An array is a super-chunk carrying a `b2nd` metalayer (see [`meta`])
//! that records its shape, chunk shape, block shape and dtype. The array
//! is cut into chunks of `chunkshape` items (in C order over the chunk
//! grid), each chunk padded up to `extchunkshape` (the chunk shape
//! rounded up to whole blocks) and stored block by block: blocks in C
//! order, every block C-contiguous. Edge chunks and blocks are padded.
//! The super-chunk's typesize is the item size and its block size
//! `prod(blockshape) * itemsize`, so each block of the array is one
//! Blosc block and a slice decodes only the blocks it touches.
//!
//! - [`meta`]: the metalayer, byte for byte as 3.3.5 writes and reads it;
//! - [`geometry`]: shapes, padded shapes, item counts and the strides of
//!   `b2nd_array_t`, with every product checked;
//! - [`copy`]: copies between padded N-dimensional buffers
//!   (`b2nd_copy_buffer2`), bounds-checked;
//! - [`Array`]: creation, slices, selections, shape changes and copies,
//!   over an owned [`SChunk`](crate::engine::schunk::SChunk) or a borrowed
//!   one (the C layer keeps the super-chunk in its own handle).
//!
//! Where 3.3.5 trusts its input (metalayers, shapes, coordinates, buffer
//! sizes), this implementation checks it and returns an error.

#![forbid(unsafe_code)]
// Coordinates, shapes and strides are parallel arrays indexed by dimension.
#![allow(clippy::needless_range_loop)]

mod array;
pub mod copy;
mod gather;
pub mod geometry;
pub mod meta;
pub mod multi;
mod select;
mod shape;
mod slice;
#[cfg(test)]
mod tests;

pub use array::{init_schunk, Array, ArrayParams, Fill};
pub use geometry::Geometry;
pub use meta::{deserialize_meta, serialize_meta, Meta};
pub use multi::{concatenate, copy_array, get_slice_array, view, ViewPlan};

/// Largest number of dimensions (`B2ND_MAX_DIM`).
pub const MAX_DIM: usize = 16;
/// Version of the metalayer format written (`B2ND_METALAYER_VERSION`).
pub const METALAYER_VERSION: u8 = 0;
/// Metalayers left for the user next to `b2nd` (`B2ND_MAX_METALAYERS`).
pub const MAX_METALAYERS: usize = 15;
/// `dtype_format` of NumPy dtype strings (`DTYPE_NUMPY_FORMAT`).
pub const DTYPE_NUMPY_FORMAT: i8 = 0;
/// The dtype recorded when none is given (`B2ND_DEFAULT_DTYPE`).
pub const DEFAULT_DTYPE: &str = "|u1";
/// Name of the metalayer.
pub const META_NAME: &str = "b2nd";
/// Name of the metalayer of the arrays written by Caterva (read only).
pub const CATERVA_META_NAME: &str = "caterva";
