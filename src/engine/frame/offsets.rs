//! The offsets ("chunk index") chunk of a frame: one little-endian int64
//! per chunk, either a byte offset (contiguous frames, relative to the end
//! of the header), a chunk file id (sparse frames), or a special value for
//! chunks that are not stored (zeros, NaNs, uninitialized).

use crate::engine::chunk::{self, SpecialKind};
use crate::engine::constants::{codec, filter, special, splitmode, EXTENDED_HEADER_LENGTH, MAX_OVERHEAD};
use crate::engine::context::Context;
use crate::engine::error::{Error, Result};
use crate::engine::params::{CParams, DParams};

/// Bit 63 marks a special offset.
const SPECIAL_BIT: u64 = 1 << 63;

/// What an offsets entry says about its chunk.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Entry {
    /// Stored at this offset (contiguous) or in this chunk file (sparse).
    Stored(i64),
    /// Not stored: a run of this special kind.
    Special(SpecialKind),
}

/// The offsets entry for a special chunk kind.
pub fn special_offset(kind: SpecialKind) -> i64 {
    let t: u64 = match kind {
        SpecialKind::Zeros => u64::from(special::ZERO),
        SpecialKind::Nans => u64::from(special::NAN),
        SpecialKind::Uninit => u64::from(special::UNINIT),
    };
    (SPECIAL_BIT | (t << 56)) as i64
}

/// Interpret an offsets entry. Special values are decoded the way 3.3.5
/// does (zero bit first, then uninit, then NaN); a negative value with
/// none of those bits is an error.
pub fn decode_entry(v: i64) -> Result<Entry> {
    if v >= 0 {
        return Ok(Entry::Stored(v));
    }
    let t = ((v as u64) >> 56) as u8;
    if t & special::ZERO != 0 {
        Ok(Entry::Special(SpecialKind::Zeros))
    } else if t & special::UNINIT != 0 {
        Ok(Entry::Special(SpecialKind::Uninit))
    } else if t & special::NAN != 0 {
        Ok(Entry::Special(SpecialKind::Nans))
    } else {
        Err(Error::Data("unknown special offset"))
    }
}

/// The special kind of a chunk that a frame stores as a special offset
/// (zeros, NaNs, uninit), or `None` if it must be stored.
pub fn chunk_special_kind(chunk_bytes: &[u8]) -> Option<SpecialKind> {
    let h = chunk::read_header(chunk_bytes).ok()?;
    if !h.is_extended() {
        return None;
    }
    match h.special_type() {
        special::ZERO => Some(SpecialKind::Zeros),
        special::NAN => Some(SpecialKind::Nans),
        special::UNINIT => Some(SpecialKind::Uninit),
        _ => None,
    }
}

/// The cparams 3.3.5 compresses the offsets chunk with when a frame is
/// edited (`frame_append_chunk` and friends).
fn index_cparams() -> CParams {
    CParams {
        compcode: codec::BLOSCLZ,
        clevel: 5,
        typesize: 8,
        nthreads: 1,
        blocksize: 16 * 1024,
        splitmode: splitmode::NEVER,
        filters: [0, 0, 0, 0, 0, filter::SHUFFLE],
        ..CParams::default()
    }
}

/// Compress the offsets into an index chunk. Blocks are written in order,
/// so the result is what 3.3.5 writes whenever its (4-thread) compressor
/// produces a single block, i.e. for up to 2048 chunks.
pub fn encode(offsets: &[i64]) -> Result<Vec<u8>> {
    encode_with_room(offsets, 0)
}

/// [`encode`] into a destination with room for `spare` more entries than
/// `offsets` holds. 3.3.5's `frame_delete_chunk` compresses the remaining
/// offsets into the room the old ones had, one entry more: with that room
/// a compressed index a little larger than the raw offsets still fits and
/// is kept, where [`encode`] stores the offsets raw (memcpyed).
pub fn encode_with_room(offsets: &[i64], spare: usize) -> Result<Vec<u8>> {
    let mut raw = Vec::with_capacity(offsets.len() * 8);
    for o in offsets {
        raw.extend_from_slice(&o.to_le_bytes());
    }
    let room = (offsets.len() + spare)
        .checked_mul(8)
        .filter(|n| *n <= i32::MAX as usize - EXTENDED_HEADER_LENGTH)
        .ok_or(Error::InvalidParam("too many chunks for the offsets chunk"))?;
    let mut ctx = Context::compressor(index_cparams());
    let mut out = vec![0u8; room + MAX_OVERHEAD];
    let n = ctx.compress(&raw, &mut out)?;
    if n == 0 {
        return Err(Error::WriteBuffer);
    }
    out.truncate(n);
    Ok(out)
}

/// The index chunk `fill_special` writes: a repeated-value chunk holding
/// `nchunks` copies of one special offset.
pub fn encode_repeated(nchunks: i64, value: i64) -> Result<Vec<u8>> {
    let nbytes = nchunks
        .checked_mul(8)
        .filter(|n| *n <= i64::from(i32::MAX) - EXTENDED_HEADER_LENGTH as i64);
    let nbytes = nbytes.ok_or(Error::InvalidParam("too many chunks for the offsets chunk"))? as i32;
    let cp = index_cparams();
    let mut out = vec![0u8; EXTENDED_HEADER_LENGTH + 8];
    let n = chunk::make_special(&cp, nbytes, None, Some(&value.to_le_bytes()), &mut out)?;
    out.truncate(n);
    Ok(out)
}

/// Decompress an index chunk found in `src` (which may extend past the
/// chunk) holding exactly `nchunks` entries.
pub fn decode(src: &[u8], nchunks: i64) -> Result<Vec<i64>> {
    let h = chunk::read_header(src)?;
    let want = nchunks.checked_mul(8).ok_or(Error::InvalidHeader)?;
    if i64::from(h.nbytes) != want || h.cbytes as usize > src.len() {
        return Err(Error::InvalidHeader);
    }
    let mut raw = vec![0u8; h.nbytes as usize];
    let mut ctx = Context::decompressor(DParams::default());
    let n = ctx.decompress(&src[..h.cbytes as usize], &mut raw)?;
    if n != raw.len() {
        return Err(Error::Data("short offsets chunk"));
    }
    Ok(raw
        .chunks_exact(8)
        .map(|c| i64::from_le_bytes([c[0], c[1], c[2], c[3], c[4], c[5], c[6], c[7]]))
        .collect())
}

/// Number of entries of an index chunk (its nbytes / 8), checked.
pub fn count(src: &[u8]) -> Result<i64> {
    let h = chunk::read_header(src)?;
    if h.nbytes % 8 != 0 {
        return Err(Error::InvalidHeader);
    }
    Ok(i64::from(h.nbytes / 8))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn special_offsets_round_trip() {
        for k in [SpecialKind::Zeros, SpecialKind::Nans, SpecialKind::Uninit] {
            assert_eq!(decode_entry(special_offset(k)).unwrap(), Entry::Special(k));
        }
        assert_eq!(special_offset(SpecialKind::Zeros) as u64, 0x8100_0000_0000_0000);
        assert!(decode_entry(i64::MIN).is_err());
        assert_eq!(decode_entry(42).unwrap(), Entry::Stored(42));
    }

    #[test]
    fn index_round_trip() {
        let offs: Vec<i64> = (0..5000).map(|i| i * 1234).collect();
        let c = encode(&offs).unwrap();
        assert_eq!(decode(&c, 5000).unwrap(), offs);
        assert!(decode(&c, 4999).is_err());
        let small = encode(&[0, 10]).unwrap();
        assert_eq!(&small[..4], &[5, 1, 7, 8]);
        let r = encode_repeated(3, special_offset(SpecialKind::Zeros)).unwrap();
        assert_eq!(decode(&r, 3).unwrap(), vec![special_offset(SpecialKind::Zeros); 3]);
    }
}
