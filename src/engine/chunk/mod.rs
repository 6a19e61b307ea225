//! Single chunks: compression, decompression, partial reads, special
//! values, variable-length blocks and header queries.

pub mod blocksize;
pub mod compress;
pub mod decompress;
pub mod getitem;
pub mod special;
pub mod vlblocks;

pub use compress::compress;
pub use decompress::{decompress, decompress_blocks, read_header, DecodeOptions};
pub use getitem::{getitem, getitem_bytes};
pub use special::{make_special, SpecialKind};
pub use vlblocks::{vl_nblocks, vlcompress, vldecompress, vldecompress_block};

use super::error::{Error, Result};

/// `(nbytes, cbytes, blocksize)` from a chunk header (`blosc2_cbuffer_sizes`).
pub fn cbuffer_sizes(src: &[u8]) -> Result<(i32, i32, i32)> {
    let h = read_header(src)?;
    Ok((h.nbytes, h.cbytes, h.blocksize))
}

/// Check that `src` may hold a valid chunk and return its nbytes
/// (`blosc1_cbuffer_validate`).
pub fn cbuffer_validate(src: &[u8]) -> Result<i32> {
    let h = read_header(src)?;
    if h.cbytes as usize > src.len() {
        return Err(Error::ReadBuffer);
    }
    Ok(h.nbytes)
}

#[cfg(test)]
mod tests;
