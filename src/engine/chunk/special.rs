//! Special-value chunks: a 32-byte header that stands for a whole buffer
//! of zeros, NaNs, uninitialized bytes, or one repeated value.

use crate::engine::constants::{blosc2_flags, flags, special, version, EXTENDED_HEADER_LENGTH};
use crate::engine::error::{Error, Result};
use crate::engine::header::ChunkHeader;
use crate::engine::params::CParams;

use super::blocksize::compute_blocksize;
use super::compress::checked_typesize;

/// The kinds of special chunk that can be created.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SpecialKind {
    /// All zeros.
    Zeros,
    /// All NaN (typesize 4 or 8).
    Nans,
    /// Unspecified content.
    Uninit,
}

/// Build a special chunk of `nbytes` into `dest`; returns its length.
/// `value` is the repeated item for a repeated-value chunk (its length is
/// the typesize), `None` for the other kinds.
pub fn make_special(
    cp: &CParams,
    nbytes: i32,
    kind: Option<SpecialKind>,
    value: Option<&[u8]>,
    dest: &mut [u8],
) -> Result<usize> {
    let ts = cp.typesize;
    let total = EXTENDED_HEADER_LENGTH + value.map_or(0, |v| v.len());
    if dest.len() < total {
        return Err(Error::Data("dest too small"));
    }
    if ts <= 0 || nbytes < 0 {
        return Err(Error::InvalidParam("typesize/nbytes"));
    }
    let zeros_ok = kind == Some(SpecialKind::Zeros) && nbytes == 0;
    if !zeros_ok && nbytes % ts != 0 {
        return Err(Error::Data("nbytes must be a multiple of typesize"));
    }
    // No data is compressed, so codec-specific checks (use_dict) do not apply.
    let plain = CParams {
        use_dict: false,
        prefilter: None,
        ..cp.clone()
    };
    let capped = checked_typesize(&plain, nbytes as usize, dest.len())?;
    let st = match (kind, value) {
        (Some(SpecialKind::Zeros), _) => special::ZERO,
        // Like 3.3.5, any typesize is accepted here; decoding NaNs of a
        // typesize other than 4 or 8 fails.
        (Some(SpecialKind::Nans), _) => special::NAN,
        (Some(SpecialKind::Uninit), _) => special::UNINIT,
        (None, Some(v)) if v.len() == ts as usize => special::VALUE,
        _ => return Err(Error::InvalidParam("repeated value length")),
    };
    let has_shuffle = cp.filters.contains(&crate::engine::constants::filter::SHUFFLE);
    let bs = compute_blocksize(
        cp.compcode,
        cp.clevel,
        ts,
        nbytes,
        cp.blocksize,
        cp.splitmode,
        has_shuffle,
    );
    let h = ChunkHeader {
        version: version::BLOSC2_STABLE,
        versionlz: 1,
        flags: flags::EXTENDED_HEADER,
        typesize: capped as u8,
        nbytes,
        blocksize: bs,
        cbytes: total as i32,
        filters: [0; 6],
        filters_meta: [0; 6],
        compcode: 0,
        compcode_meta: 0,
        blosc2_flags2: 0,
        blosc2_flags: st << blosc2_flags::SPECIAL_SHIFT,
        header_len: EXTENDED_HEADER_LENGTH,
    };
    h.write_extended(dest);
    if let Some(v) = value {
        dest[EXTENDED_HEADER_LENGTH..total].copy_from_slice(v);
    }
    Ok(total)
}

/// The repeated-value chunk that decodes to what the zeros, NaN or
/// uninitialized chunk `c` decodes to (uninitialized content as zeros);
/// `None` for other chunks, for empty ones (a repeated-value chunk holds at
/// least one item) and for NaN chunks that do not decode.
///
/// Frames store special chunks as such only where their offsets can say
/// so; elsewhere (frames with variable chunk sizes) they are stored as
/// chunks. 3.3.5 reads repeated-value chunks back from frames on disk, but
/// its lazy-chunk reader (file and sparse frames) refuses the other
/// special kinds at a real offset.
pub fn as_value_chunk(c: &[u8]) -> Result<Option<Vec<u8>>> {
    let h = super::read_header(c)?;
    let value: Vec<u8> = match h.special_type() {
        special::ZERO | special::UNINIT => {
            // One item of zeros; one byte when the size is not a whole
            // number of items (zeros chunks allow that).
            let ts = usize::from(h.typesize);
            vec![0; if (h.nbytes as usize).is_multiple_of(ts) { ts } else { 1 }]
        }
        // NaN chunks of a typesize other than 4 or 8 do not decode at all;
        // they stay as they are.
        special::NAN => match super::decompress::nan_bytes(usize::from(h.typesize)) {
            Ok(v) => v.to_vec(),
            Err(_) => return Ok(None),
        },
        _ => return Ok(None),
    };
    if h.nbytes < value.len() as i32 {
        return Ok(None);
    }
    let total = EXTENDED_HEADER_LENGTH + value.len();
    let v = ChunkHeader {
        typesize: value.len() as u8,
        cbytes: total as i32,
        blosc2_flags: (h.blosc2_flags & !(special::MASK << blosc2_flags::SPECIAL_SHIFT))
            | (special::VALUE << blosc2_flags::SPECIAL_SHIFT),
        ..h
    };
    let mut out = vec![0u8; total];
    v.write_extended(&mut out);
    out[EXTENDED_HEADER_LENGTH..].copy_from_slice(&value);
    Ok(Some(out))
}
