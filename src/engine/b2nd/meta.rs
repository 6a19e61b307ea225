//! The `b2nd` metalayer, as C-Blosc2 3.3.5 writes it (msgpack):
//!
//! ```text
//! 0x97                      fixarray of 7 entries
//! version                   positive fixint (0)
//! ndim                      positive fixint
//! 0x90+ndim  (0xd3 i64)*    shape, big-endian
//! 0x90+ndim  (0xd2 i32)*    chunkshape
//! 0x90+ndim  (0xd2 i32)*    blockshape
//! dtype_format              positive fixint (0 = NumPy)
//! 0xdb len:u32 bytes        dtype, always a str32
//! ```
//!
//! Reading follows 3.3.5's `b2nd_deserialize_meta_inline`: the array and
//! per-entry markers are skipped rather than checked (so the 5-entry
//! `caterva` metalayer, which has no dtype, reads too), but every length
//! is checked against the buffer and `ndim` must be in `0..=16`.

use rmp::encode::{write_array_len, write_i32, write_i64, write_pfix};
use rmp::Marker;

use super::{DEFAULT_DTYPE, MAX_DIM, METALAYER_VERSION};
use crate::engine::error::{Error, Result};

/// The content of a `b2nd` metalayer.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Meta {
    /// Shape (one entry per dimension).
    pub shape: Vec<i64>,
    /// Chunk shape.
    pub chunkshape: Vec<i32>,
    /// Block shape.
    pub blockshape: Vec<i32>,
    /// Data type; `None` when the metalayer has no dtype entry.
    pub dtype: Option<String>,
    /// Format of `dtype` (0 = NumPy); 0 when there is no dtype entry.
    pub dtype_format: i8,
}

impl Meta {
    /// Number of dimensions.
    pub fn ndim(&self) -> usize {
        self.shape.len()
    }
}

/// Serialize a metalayer (`b2nd_serialize_meta`). `dtype` `None` records
/// [`DEFAULT_DTYPE`]. Fails for more than 16 dimensions, shapes of
/// different lengths, a negative `dtype_format` or a dtype longer than
/// `i32::MAX` bytes.
pub fn serialize_meta(
    shape: &[i64],
    chunkshape: &[i32],
    blockshape: &[i32],
    dtype: Option<&str>,
    dtype_format: i8,
) -> Result<Vec<u8>> {
    let ndim = shape.len();
    if ndim > MAX_DIM || chunkshape.len() != ndim || blockshape.len() != ndim {
        return Err(Error::InvalidParam("b2nd metalayer: bad number of dimensions"));
    }
    if dtype_format < 0 {
        return Err(Error::Failure("dtype_format cannot be negative"));
    }
    let dtype = dtype.unwrap_or(DEFAULT_DTYPE).as_bytes();
    let dtype_len = u32::try_from(dtype.len())
        .ok()
        .filter(|n| *n <= i32::MAX as u32)
        .ok_or(Error::Failure("dtype is too large"))?;
    let mut out = Vec::with_capacity(3 + 3 + ndim * (9 + 5 + 5) + 6 + dtype.len());
    // 3.3.5 writes every integer at its full width (int64 shape, int32
    // chunk and block shapes) and the dtype always as a str32, which
    // rmp's `write_i64`/`write_i32` and an explicit marker do; its
    // compact writers (`write_sint`, `write_str`) would change bytes. The
    // shape arrays' marker is 3.3.5's `0x90 + ndim`, which for 16
    // dimensions is 0xa0 rather than an array16, so it is written as is.
    // `write_pfix` takes values below 128 (checked above). Writing to a
    // Vec cannot fail.
    let dims_marker = 0x90 + ndim as u8;
    let _ = write_array_len(&mut out, 7);
    let _ = write_pfix(&mut out, METALAYER_VERSION);
    let _ = write_pfix(&mut out, ndim as u8);
    out.push(dims_marker);
    for s in shape {
        let _ = write_i64(&mut out, *s);
    }
    for dims in [chunkshape, blockshape] {
        out.push(dims_marker);
        for d in dims {
            let _ = write_i32(&mut out, *d);
        }
    }
    let _ = write_pfix(&mut out, dtype_format as u8);
    out.push(Marker::Str32.to_u8());
    out.extend_from_slice(&dtype_len.to_be_bytes());
    out.extend_from_slice(dtype);
    Ok(out)
}

/// A bounds-checked reader over the metalayer bytes.
struct Reader<'a> {
    buf: &'a [u8],
    pos: usize,
}

impl Reader<'_> {
    fn take(&mut self, n: usize) -> Result<&[u8]> {
        let end = self
            .pos
            .checked_add(n)
            .ok_or(Error::Failure("b2nd metalayer: truncated"))?;
        let s = self
            .buf
            .get(self.pos..end)
            .ok_or(Error::Failure("b2nd metalayer: truncated"))?;
        self.pos = end;
        Ok(s)
    }

    fn skip(&mut self, n: usize) -> Result<()> {
        self.take(n).map(|_| ())
    }

    fn array<const N: usize>(&mut self) -> Result<[u8; N]> {
        let mut a = [0u8; N];
        a.copy_from_slice(self.take(N)?);
        Ok(a)
    }
}

/// Read a metalayer (`b2nd_deserialize_meta`), dtype included when
/// present. Returns the content and the number of bytes read.
pub fn deserialize_meta(smeta: &[u8]) -> Result<(Meta, usize)> {
    read(smeta, true)
}

/// Read the dimensions only (what `b2nd_deserialize_meta` does when it is
/// not asked for the dtype): the dtype entry is neither read nor checked.
pub fn deserialize_meta_dims(smeta: &[u8]) -> Result<(Meta, usize)> {
    read(smeta, false)
}

fn read(smeta: &[u8], with_dtype: bool) -> Result<(Meta, usize)> {
    if smeta.is_empty() {
        return Err(Error::Failure("b2nd metalayer: empty"));
    }
    let mut r = Reader { buf: smeta, pos: 0 };
    // Array marker and version.
    r.skip(2)?;
    let nd = r.array::<1>()?[0] as i8;
    if nd < 0 || nd as usize > MAX_DIM {
        return Err(Error::Failure("b2nd metalayer: ndim out of range"));
    }
    let nd = nd as usize;
    r.skip(1)?;
    let mut shape = Vec::with_capacity(nd);
    for _ in 0..nd {
        r.skip(1)?;
        shape.push(i64::from_be_bytes(r.array()?));
    }
    let mut dims = [Vec::with_capacity(nd), Vec::with_capacity(nd)];
    for d in &mut dims {
        r.skip(1)?;
        for _ in 0..nd {
            r.skip(1)?;
            d.push(i32::from_be_bytes(r.array()?));
        }
    }
    let [chunkshape, blockshape] = dims;
    let mut meta = Meta {
        shape,
        chunkshape,
        blockshape,
        dtype: None,
        dtype_format: 0,
    };
    if with_dtype && r.pos < smeta.len() {
        let [format, marker] = r.array::<2>()?;
        // The length must be there before the marker is judged, as in 3.3.5.
        let len = i32::from_be_bytes(r.array()?);
        if marker != 0xdb {
            return Err(Error::Failure("b2nd metalayer: dtype is not a str32"));
        }
        let len = usize::try_from(len).map_err(|_| Error::Failure("b2nd metalayer: negative dtype length"))?;
        let s = r.take(len)?;
        meta.dtype_format = format as i8;
        meta.dtype = Some(String::from_utf8_lossy(s).into_owned());
    }
    Ok((meta, r.pos))
}
