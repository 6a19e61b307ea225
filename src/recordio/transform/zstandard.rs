//! `zstd [N]`: one standard zstd frame per block (with the content size).
//! N < 0 or missing selects level 5, as Go's recordiozstd does. Frames
//! with or without a content checksum or a content size are read, and so
//! are several concatenated frames.

use std::io::Read;
use std::sync::Arc;

use super::{atoi, IovReader, TransformFn};
use crate::recordio::error::{Error, Result};

/// Registry name.
pub const NAME: &str = "zstd";

/// Level used for a missing or negative N.
pub const DEFAULT_LEVEL: i32 = 5;

pub(super) fn forward(config: &str) -> Result<TransformFn> {
    let level = if config.is_empty() { -1 } else { atoi(config)? };
    let level = if level < 0 {
        DEFAULT_LEVEL
    } else {
        level.min(i64::from(i32::MAX)) as i32
    };
    let level = level.min(*::zstd::compression_level_range().end());
    Ok(Arc::new(move |input: &[&[u8]]| {
        let data;
        let flat: &[u8] = match input {
            [] => &[],
            [one] => one,
            many => {
                data = many.concat();
                &data
            }
        };
        ::zstd::bulk::compress(flat, level).map_err(|e| Error::transform(format!("zstd: {e}")))
    }))
}

pub(super) fn inverse(_config: &str) -> Result<TransformFn> {
    Ok(Arc::new(|input: &[&[u8]]| {
        let dec = ::zstd::stream::read::Decoder::new(IovReader::new(input))
            .map_err(|e| Error::transform(format!("zstd: {e}")))?;
        let cap = super::blosc::MAX_DECODED_BLOCK;
        let mut out = Vec::new();
        dec.take(cap + 1)
            .read_to_end(&mut out)
            .map_err(|e| Error::transform(format!("zstd: {e}")))?;
        if out.len() as u64 > cap {
            return Err(Error::transform(format!(
                "zstd: block decodes to more than {cap} bytes"
            )));
        }
        Ok(out)
    }))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn levels_and_frames() {
        let data = vec![42u8; 10_000];
        let inv = inverse("").unwrap();
        for cfg in ["", "-1", "0", "1", "19", "99"] {
            let c = forward(cfg).unwrap()(&[&data[..10], &data[10..]]).unwrap();
            assert_eq!(&c[..4], &[0x28, 0xb5, 0x2f, 0xfd]);
            assert_eq!(inv(&[&c]).unwrap(), data);
            assert!(inv(&[&c[..c.len() - 1]]).is_err());
        }
        // Two frames back to back decode to the concatenation.
        let c = forward("3").unwrap()(&[b"ab"]).unwrap();
        assert_eq!(inv(&[&c, &c]).unwrap(), b"abab");
        assert!(inv(&[b"not zstd"]).is_err());
        assert!(forward("1.5").is_err());
    }
}
