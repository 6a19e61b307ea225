//! `flate [N]`: raw DEFLATE (RFC 1951, no zlib or gzip wrapper), as Go's
//! recordioflate writes with klauspost/compress/flate. N is -2..=9
//! (-1, the default, is zlib's default level; -2 is Huffman-only). The
//! compressed bytes differ from Go's, the format does not.

use super::{atoi, TransformFn};
use crate::engine::codecs::zlib;
use crate::recordio::error::{Error, Result};
use std::sync::Arc;

/// Registry name.
pub const NAME: &str = "flate";

pub(super) fn forward(config: &str) -> Result<TransformFn> {
    let level = if config.is_empty() { -1 } else { atoi(config)? };
    if !(-2..=9).contains(&level) {
        return Err(Error::invalid(format!("flate level {level} out of range -2..=9")));
    }
    Ok(Arc::new(move |input: &[&[u8]]| {
        zlib::deflate_raw(level as i32, input).map_err(|e| Error::transform(format!("flate: {e}")))
    }))
}

pub(super) fn inverse(_config: &str) -> Result<TransformFn> {
    Ok(Arc::new(|input: &[&[u8]]| {
        zlib::inflate_raw(input, super::blosc::MAX_DECODED_BLOCK as usize)
            .map_err(|e| Error::transform(format!("flate: {e}")))
    }))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_go_streams() {
        // Go's writer ends every stream with an empty final block.
        let inv = inverse("").unwrap();
        assert_eq!(inv(&[&[0x03, 0x00]]).unwrap(), b"");
        // "hi" stored, then Go's empty final block.
        let stored = [0x00, 0x02, 0x00, 0xfd, 0xff, b'h', b'i', 0x03, 0x00];
        assert_eq!(inv(&[&stored[..4], &stored[4..]]).unwrap(), b"hi");
        assert!(inv(&[&stored[..6]]).is_err());
        assert!(forward("10").is_err());
        assert!(forward("x").is_err());
        let f = forward("0").unwrap();
        assert_eq!(inv(&[&f(&[b"abc"]).unwrap()]).unwrap(), b"abc");
    }
}
