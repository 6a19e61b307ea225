//! Chunk checksums. The Blosc2 format has none, so a flipped byte inside a
//! compressed stream can decode to wrong data without any error.
//! `blosc2 compress` stores the XXH3-64 hash of each chunk's uncompressed
//! bytes in the vlmetalayer [`VLMETA`], a msgpack map
//! `{"algorithm": "xxh3-64", "chunks": [hash, ...]}` (one unsigned 64-bit
//! integer per chunk, in chunk order); `verify` and `decompress` compare.
//! A vlmetalayer is a plain part of the frame, so C-Blosc2 reads these
//! frames as any other.

use std::io::Read;

use blosc2::engine::frame::Frame;

use crate::inspect;

/// The vlmetalayer's name.
pub const VLMETA: &str = "chunk_checksums";
/// The hash, as named in the vlmetalayer.
pub const ALGORITHM: &str = "xxh3-64";

/// The checksum of one chunk's uncompressed bytes.
pub fn hash(data: &[u8]) -> u64 {
    xxhash_rust::xxh3::xxh3_64(data)
}

/// The vlmetalayer's content for these per-chunk hashes.
pub fn encode(hashes: &[u64]) -> Vec<u8> {
    use rmp::encode::{write_array_len, write_map_len, write_str, write_u64};
    let mut out = Vec::with_capacity(32 + 9 * hashes.len());
    // Writing to a Vec cannot fail.
    let _ = write_map_len(&mut out, 2);
    let _ = write_str(&mut out, "algorithm");
    let _ = write_str(&mut out, ALGORITHM);
    let _ = write_str(&mut out, "chunks");
    let _ = write_array_len(&mut out, hashes.len() as u32);
    for &h in hashes {
        let _ = write_u64(&mut out, h);
    }
    out
}

/// The per-chunk hashes of a vlmetalayer written by [`encode`].
pub fn decode(content: &[u8]) -> Result<Vec<u64>, String> {
    use rmp::decode::{read_array_len, read_int, read_map_len, read_str_len};
    let mut rd = content;
    let bad = |what: &str| format!("the {VLMETA} vlmetalayer is not a checksum list ({what})");
    fn read_string(rd: &mut &[u8]) -> Option<String> {
        let n = read_str_len(rd).ok()? as usize;
        if n > rd.len() {
            return None;
        }
        let mut buf = vec![0u8; n];
        rd.read_exact(&mut buf).ok()?;
        String::from_utf8(buf).ok()
    }
    let entries = read_map_len(&mut rd).map_err(|_| bad("not a map"))?;
    let mut algorithm = None;
    let mut hashes = None;
    for _ in 0..entries {
        match read_string(&mut rd).as_deref() {
            Some("algorithm") => algorithm = Some(read_string(&mut rd).ok_or_else(|| bad("algorithm"))?),
            Some("chunks") => {
                let n = read_array_len(&mut rd).map_err(|_| bad("chunks"))? as usize;
                // Each hash takes at least one byte: no allocation beyond
                // what the content can hold.
                if n > rd.len() {
                    return Err(bad("chunks"));
                }
                let mut v = Vec::with_capacity(n);
                for _ in 0..n {
                    v.push(read_int::<u64, _>(&mut rd).map_err(|_| bad("a hash"))?);
                }
                hashes = Some(v);
            }
            _ => return Err(bad("unknown key")),
        }
    }
    match (algorithm.as_deref(), hashes) {
        (Some(ALGORITHM), Some(h)) => Ok(h),
        (Some(other), Some(_)) => Err(format!("the {VLMETA} vlmetalayer uses '{other}', not {ALGORITHM}")),
        _ => Err(bad("missing keys")),
    }
}

/// Checks decoded chunks against the stored hashes, in chunk order.
pub struct Checker {
    hashes: Vec<u64>,
}

impl Checker {
    /// The checker for a frame's checksums, or `None` when it has none.
    pub fn for_frame(frame: &Frame) -> Result<Option<Checker>, String> {
        let Some((_, raw)) = frame.vlmetas().iter().find(|(name, _)| name == VLMETA) else {
            return Ok(None);
        };
        let content = inspect::vlmeta_content(raw).map_err(|e| format!("vlmetalayer '{VLMETA}': {e}"))?;
        Ok(Some(Checker {
            hashes: decode(&content)?,
        }))
    }

    /// Checksums stored.
    pub fn len(&self) -> usize {
        self.hashes.len()
    }

    /// Whether chunk `n`'s decoded bytes match; the message says what
    /// differs otherwise.
    pub fn check(&self, n: i64, data: &[u8]) -> Result<(), String> {
        let Some(&want) = usize::try_from(n).ok().and_then(|i| self.hashes.get(i)) else {
            return Err(format!("no checksum stored for it ({} stored)", self.hashes.len()));
        };
        let got = hash(data);
        if got != want {
            return Err(format!(
                "checksum mismatch: the decoded bytes hash to {got:016x}, the frame's {VLMETA} says {want:016x} \
                 (the chunk was altered after it was written)"
            ));
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trip() {
        for hashes in [vec![], vec![0], vec![1, u64::MAX, 0x1234_5678_9abc_def0]] {
            assert_eq!(decode(&encode(&hashes)).unwrap(), hashes);
        }
    }

    #[test]
    fn bytes_are_plain_msgpack() {
        let e = encode(&[7]);
        assert_eq!(e[0], 0x82, "fixmap of 2");
        assert_eq!(&e[1..11], b"\xa9algorithm");
        assert_eq!(&e[e.len() - 10..], b"\x91\xcf\x00\x00\x00\x00\x00\x00\x00\x07");
    }

    #[test]
    fn hostile_content_is_an_error() {
        let good = encode(&[1, 2, 3]);
        for cut in 0..good.len() {
            assert!(decode(&good[..cut]).is_err(), "cut at {cut}");
        }
        // A huge array length with nothing behind it.
        let mut e = encode(&[]);
        let n = e.len();
        e[n - 1] = 0xdd;
        e.extend_from_slice(&[0xff, 0xff, 0xff, 0xff]);
        assert!(decode(&e).is_err());
        assert!(decode(b"\x80").is_err());
        assert!(decode(b"\xc0").is_err());
    }

    #[test]
    fn checker() {
        let data = b"some bytes".to_vec();
        let c = Checker {
            hashes: vec![hash(&data)],
        };
        assert!(c.check(0, &data).is_ok());
        let mut bad = data.clone();
        bad[3] ^= 1;
        assert!(c.check(0, &bad).unwrap_err().contains("checksum mismatch"));
        assert!(c.check(1, &data).unwrap_err().contains("no checksum"));
    }
}
