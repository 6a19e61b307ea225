//! Single chunks: compression, decompression, partial reads, special
//! values, variable-length blocks and header queries.

pub mod blocksize;
pub mod compress;
pub mod decompress;
pub mod getitem;
pub mod instr;
pub mod special;
pub mod vlblocks;

pub use compress::compress;
pub use decompress::{decode_blocks_each, decompress, read_header, stored_as_is, DecodeOptions};
pub use getitem::{getitem, getitem_bytes, is_multiple_of_typesize};
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

/// For a lazy chunk (header and block starts here, data in its frame),
/// check that `src` also holds the whole trailer after the block starts:
/// chunk number (4 bytes), chunk offset (8) and one compressed size per
/// block (4 each), as 3.3.5 does before reading it. Other chunks pass.
pub fn check_lazy_trailer(src: &[u8]) -> Result<()> {
    let h = read_header(src)?;
    if !h.is_extended() || !h.lazy() || h.special_type() != 0 {
        return Ok(());
    }
    let nblocks = if h.vl_blocks() {
        usize::try_from(h.blocksize).map_err(|_| Error::InvalidHeader)?
    } else {
        usize::try_from(h.nbytes)
            .map_err(|_| Error::InvalidHeader)?
            .div_ceil(usize::try_from(h.blocksize).ok().filter(|b| *b > 0).unwrap_or(1))
    };
    let end = nblocks
        .checked_mul(8)
        .and_then(|b| b.checked_add(super::constants::EXTENDED_HEADER_LENGTH + 12))
        .ok_or(Error::ReadBuffer)?;
    if src.len() < end {
        return Err(Error::ReadBuffer);
    }
    Ok(())
}

#[cfg(test)]
mod tests;
