//! The ZFP codecs of C-Blosc2 3.3.5: ZFP_FIXED_ACCURACY (codec 33),
//! ZFP_FIXED_PRECISION (34) and ZFP_FIXED_RATE (35), lossy compression of
//! float32/float64 blocks of a b2nd array with the zfp library (1.0.1, the
//! version 3.3.5 links; its streams are bit for bit the reference's).
//!
//! One Blosc block is one zfp field: its shape is the `b2nd` metalayer's
//! blockshape (1 to 4 dimensions, each at least 4, zfp's cell edge), and the
//! stream carries no header: the codec meta and the metalayer say how to
//! read it.
//!
//! | codec | meta | zfp setting |
//! | --- | --- | --- |
//! | 33 | int8 `e` | accuracy, tolerance `10^e` |
//! | 34 | `p` | precision `p + 3 + 2 * ndim` bit planes (at most 64) |
//! | 35 | `r` | rate `r / 100 * typesize * 8` bits per value (`r`% of the input) |
//!
//! Compression declines (returns 0, so the block is stored as is) when the
//! input is not exactly one block (split streams) or zfp's output is not
//! smaller than the input; it fails for a block dimension under 4 or a
//! typesize other than 4 and 8, as 3.3.5's plugin does. A super-chunk
//! without a `b2nd` metalayer is the caller's case: 3.3.5's encoder then
//! declines, its decoder fails.

mod ffi;
#[cfg(test)]
mod tests;

use crate::engine::b2nd::meta::Meta;
use crate::engine::error::{Error, Result};

use ffi::{Scalar, Setting};

pub use ffi::version_string;

/// The most dimensions zfp handles.
const MAX_DIM: usize = 4;
/// zfp's cell edge: no block dimension may be smaller.
const CELL_EDGE: i32 = 4;

/// Which of the three ZFP codecs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Mode {
    /// ZFP_FIXED_ACCURACY (codec 33): meta is the int8 exponent `e` of the
    /// absolute error tolerance `10^e`.
    Accuracy,
    /// ZFP_FIXED_PRECISION (34): meta sets the bit planes kept.
    Precision,
    /// ZFP_FIXED_RATE (35): meta is the output size in % of the input.
    Rate,
}

impl Mode {
    /// The zfp setting for `meta` on `ndim`-dimensional blocks of
    /// `typesize`-byte values, computed as 3.3.5's plugin computes it (the
    /// same floating-point operations, so the same bits).
    fn setting(self, meta: u8, typesize: usize, ndim: usize) -> Setting {
        match self {
            Mode::Accuracy => Setting::Accuracy(10f64.powf(f64::from(meta as i8))),
            Mode::Precision => {
                let precision = u32::from(meta) + 3 + 2 * ndim as u32;
                Setting::Precision(precision.min(64))
            }
            Mode::Rate => {
                let ratio = f64::from(meta) / 100.0;
                Setting::Rate(ratio * typesize as f64 * 8.0)
            }
        }
    }
}

/// The block shape of `b2nd` (C order), checked as 3.3.5's encoder checks
/// it: 1 to 4 dimensions, none under zfp's cell edge.
fn block_dims_for_encoding(b2nd: &Meta) -> Result<Vec<usize>> {
    let ndim = b2nd.blockshape.len();
    if ndim == 0 || ndim > MAX_DIM {
        return Err(Error::Failure("ZFP: 1 to 4 dimensions"));
    }
    if b2nd.blockshape.iter().any(|&d| d < CELL_EDGE) {
        return Err(Error::Failure(
            "ZFP does not support blocks smaller than cells (4x...x4)",
        ));
    }
    Ok(b2nd.blockshape.iter().map(|&d| d as usize).collect())
}

/// The block shape of `b2nd` (C order), checked as 3.3.5's decoder checks
/// it: 1 to 4 positive dimensions whose values fit `capacity` bytes.
fn block_dims_for_decoding(b2nd: &Meta, typesize: usize, capacity: usize) -> Result<Vec<usize>> {
    let ndim = b2nd.blockshape.len();
    if ndim == 0 || ndim > MAX_DIM {
        return Err(Error::Failure("ZFP: 1 to 4 dimensions"));
    }
    if typesize == 0 {
        return Err(Error::Failure("ZFP: invalid typesize"));
    }
    let mut nbytes = typesize;
    for &d in &b2nd.blockshape {
        let d = usize::try_from(d)
            .ok()
            .filter(|&d| d > 0)
            .ok_or(Error::Failure("ZFP: invalid blockshape dimension"))?;
        nbytes = nbytes
            .checked_mul(d)
            .filter(|&n| n <= capacity)
            .ok_or(Error::Failure("ZFP: block bigger than the output buffer"))?;
    }
    Ok(b2nd.blockshape.iter().map(|&d| d as usize).collect())
}

/// Compress one block `src` into `dst` (`dst.len()` is the most the output
/// may take): the stream's length, or 0 when ZFP declines or the stream
/// does not fit (the block is then stored as is).
pub fn compress(mode: Mode, src: &[u8], dst: &mut [u8], meta: u8, typesize: usize, b2nd: &Meta) -> Result<usize> {
    let dims = block_dims_for_encoding(b2nd)?;
    let block_nbytes = dims.iter().try_fold(typesize, |n, &d| n.checked_mul(d));
    if block_nbytes != Some(src.len()) {
        // Not one whole block (e.g. ALWAYS_SPLIT streams): store it as is.
        return Ok(0);
    }
    let scalar = Scalar::from_typesize(typesize).ok_or(Error::Failure("ZFP: typesize must be 4 or 8"))?;
    // The stream must be shorter than the block, or the block is stored.
    let limit = dst.len().min(src.len() - 1);
    ffi::encode(
        mode.setting(meta, typesize, dims.len()),
        scalar,
        &dims,
        src,
        &mut dst[..limit],
    )
}

/// Decompress the stream `src` of one block into `dst` (`dst.len()` is the
/// block size the chunk declares): `dst.len()` on success, as 3.3.5's
/// decoder returns; the block's values fill the first
/// `product(blockshape) * typesize` bytes.
pub fn decompress(mode: Mode, src: &[u8], dst: &mut [u8], meta: u8, typesize: usize, b2nd: &Meta) -> Result<usize> {
    let dims = block_dims_for_decoding(b2nd, typesize, dst.len())?;
    let scalar = Scalar::from_typesize(typesize).ok_or(Error::Failure("ZFP: typesize must be 4 or 8"))?;
    ffi::decode(mode.setting(meta, typesize, dims.len()), scalar, &dims, src, dst)?;
    Ok(dst.len())
}
