//! The array type, its creation parameters (`b2nd_context_t`) and the
//! ways to make one: new (`b2nd_empty`, `zeros`, `uninit`, `nans`,
//! `full`), from a buffer, from a super-chunk, a frame or a file.

use std::borrow::BorrowMut;

use super::geometry::{validate, Geometry};
use super::meta::{deserialize_meta, deserialize_meta_dims, serialize_meta};
use super::{CATERVA_META_NAME, MAX_DIM, MAX_METALAYERS, META_NAME};
use crate::engine::chunk::{self, SpecialKind};
use crate::engine::constants::EXTENDED_HEADER_LENGTH;
use crate::engine::error::{Error, Result};
use crate::engine::frame::format::MAX_METALAYERS as SCHUNK_MAX_METALAYERS;
use crate::engine::schunk::{SChunk, Storage};

/// What fills a new array.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Fill {
    /// Zeros (`b2nd_empty`, `b2nd_zeros`).
    Zeros,
    /// Unspecified content (`b2nd_uninit`).
    Uninit,
    /// NaNs; the item size must be 4 or 8 (`b2nd_nans`).
    Nans,
    /// One item repeated; its length is the item size (`b2nd_full`).
    Value(Vec<u8>),
}

/// How to make an array (`b2nd_context_t`): storage, shapes, dtype and
/// extra metalayers.
#[derive(Debug, Clone)]
pub struct ArrayParams {
    /// Storage and compression parameters of the super-chunk. Its block
    /// size is set to one block of the array.
    pub storage: Storage,
    /// Shape.
    pub shape: Vec<i64>,
    /// Chunk shape.
    pub chunkshape: Vec<i32>,
    /// Block shape.
    pub blockshape: Vec<i32>,
    /// Data type (`None`: the metalayer records `|u1`).
    pub dtype: Option<String>,
    /// Data type format (0 = NumPy).
    pub dtype_format: i8,
    /// Metalayers added after `b2nd`.
    pub metalayers: Vec<(String, Vec<u8>)>,
}

impl ArrayParams {
    /// Parameters as `b2nd_create_ctx` makes them: shapes checked, the
    /// block size of `storage.cparams` set to `prod(blockshape) *
    /// typesize`, and a missing dtype replaced by `|S<typesize>`.
    pub fn new(
        mut storage: Storage,
        shape: &[i64],
        chunkshape: &[i32],
        blockshape: &[i32],
        dtype: Option<&str>,
        dtype_format: i8,
        metalayers: Vec<(String, Vec<u8>)>,
    ) -> Result<ArrayParams> {
        validate(shape, chunkshape, blockshape)?;
        if metalayers.len() > MAX_METALAYERS {
            return Err(Error::InvalidParam("too many metalayers"));
        }
        let ts = storage.cparams.typesize;
        let blocknitems = blockshape.iter().try_fold(1i32, |acc, &b| acc.checked_mul(b));
        storage.cparams.blocksize =
            blocknitems
                .and_then(|n| n.checked_mul(ts))
                .filter(|b| *b >= 0)
                .ok_or(Error::InvalidParam(
                    "blockshape product overflows the maximum blocksize",
                ))?;
        let dtype = dtype.map_or_else(|| format!("|S{ts}"), str::to_string);
        Ok(ArrayParams {
            storage,
            shape: shape.to_vec(),
            chunkshape: chunkshape.to_vec(),
            blockshape: blockshape.to_vec(),
            dtype: Some(dtype),
            dtype_format,
            metalayers,
        })
    }

    /// Number of dimensions.
    pub fn ndim(&self) -> usize {
        self.shape.len()
    }
}

/// An N-dimensional array over a super-chunk: owned (`Array<SChunk>`) or
/// borrowed (`Array<&mut SChunk>`, as the C layer uses it).
pub struct Array<S = SChunk> {
    pub(super) sc: S,
    pub(super) geom: Geometry,
    pub(super) dtype: Option<String>,
    pub(super) dtype_format: i8,
}

impl<S> std::fmt::Debug for Array<S> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Array")
            .field("shape", &self.geom.shape())
            .field("chunkshape", &self.geom.chunkshape())
            .field("blockshape", &self.geom.blockshape())
            .field("dtype", &self.dtype)
            .finish_non_exhaustive()
    }
}

/// Read the `b2nd` (or `caterva`) metalayer of a super-chunk.
pub(super) fn find_meta(sc: &SChunk) -> Result<Vec<u8>> {
    sc.meta_get(META_NAME)
        .or_else(|_| sc.meta_get(CATERVA_META_NAME))
        .map_err(|_| Error::MetalayerNotFound)
}

/// Make a new, empty super-chunk an array (3.3.5's `array_new`): record
/// the chunk size, add the `b2nd` metalayer and the extra ones, and fill
/// every chunk. Returns the geometry.
pub fn init_schunk(sc: &mut SChunk, params: &ArrayParams, fill: &Fill) -> Result<Geometry> {
    let geom = Geometry::new(&params.shape, &params.chunkshape, &params.blockshape)?;
    let ts = sc.typesize();
    if ts <= 0 {
        return Err(Error::InvalidParam("invalid typesize"));
    }
    if matches!(fill, Fill::Nans) && ts != 4 && ts != 8 {
        return Err(Error::Data("NaN needs a typesize of 4 or 8"));
    }
    if let Fill::Value(v) = fill {
        if v.len() != ts as usize {
            return Err(Error::InvalidParam("fill value length differs from the typesize"));
        }
    }
    let chunk_nbytes = geom.chunk_nbytes(ts)?;
    sc.set_chunksize(chunk_nbytes)?;
    if sc.metalayers().len() >= SCHUNK_MAX_METALAYERS {
        return Err(Error::Failure("too many metalayers"));
    }
    let smeta = serialize_meta(
        geom.shape(),
        geom.chunkshape(),
        geom.blockshape(),
        params.dtype.as_deref(),
        params.dtype_format,
    )?;
    sc.meta_add(META_NAME, &smeta)?;
    for (name, content) in &params.metalayers {
        sc.meta_add(name, content)?;
    }
    if geom.nitems != 0 {
        let nitems = geom
            .nchunks()
            .checked_mul(geom.extchunknitems)
            .ok_or(Error::InvalidParam("array too large"))?;
        let kind = match fill {
            Fill::Uninit => SpecialKind::Uninit,
            Fill::Nans => SpecialKind::Nans,
            Fill::Zeros | Fill::Value(_) => SpecialKind::Zeros,
        };
        sc.fill_special(nitems, kind, chunk_nbytes)?;
        if let Fill::Value(v) = fill {
            // 3.3.5's b2nd_full: a repeated-value chunk built with the
            // super-chunk's parameters replaces every chunk.
            let mut cp = sc.cparams();
            cp.blocksize = sc.blocksize();
            let mut c = vec![0u8; EXTENDED_HEADER_LENGTH + v.len()];
            let n = chunk::make_special(&cp, chunk_nbytes, None, Some(v), &mut c)?;
            c.truncate(n);
            for i in 0..sc.nchunks() {
                sc.update_chunk(i, &c)?;
            }
        }
    }
    Ok(geom)
}

impl Array<SChunk> {
    /// A new array filled with `fill` (`b2nd_empty`, `b2nd_zeros`,
    /// `b2nd_uninit`, `b2nd_nans`, `b2nd_full`).
    pub fn new(params: &ArrayParams, fill: Fill) -> Result<Array<SChunk>> {
        let mut sc = SChunk::new(params.storage.clone())?;
        let made = init_schunk(&mut sc, params, &fill);
        match made {
            Ok(geom) => Ok(Array {
                sc,
                geom,
                dtype: params.dtype.clone(),
                dtype_format: params.dtype_format,
            }),
            Err(e) => {
                discard(sc);
                Err(e)
            }
        }
    }

    /// A new array holding `buffer`, the items in C order
    /// (`b2nd_from_cbuffer`).
    pub fn from_buffer(params: &ArrayParams, buffer: &[u8]) -> Result<Array<SChunk>> {
        let geom = Geometry::new(&params.shape, &params.chunkshape, &params.blockshape)?;
        let need = geom
            .nitems
            .checked_mul(i64::from(params.storage.cparams.typesize))
            .ok_or(Error::InvalidParam("array too large"))?;
        if (buffer.len() as u64) < need as u64 {
            return Err(Error::InvalidParam("buffer smaller than the array"));
        }
        let mut a = Array::new(params, Fill::Zeros)?;
        if geom.nitems != 0 {
            let shape = geom.shape().to_vec();
            let start = vec![0i64; shape.len()];
            if let Err(e) = a.set_slice_buffer(&start, &shape, buffer, &shape) {
                discard(a.sc);
                return Err(e);
            }
        }
        Ok(a)
    }

    /// Open the array stored in file (or sparse directory) `urlpath` at
    /// `offset` (`b2nd_open_offset`).
    pub fn open(urlpath: &str, offset: i64) -> Result<Array<SChunk>> {
        Array::from_schunk(SChunk::open(urlpath, offset)?)
    }

    /// An array out of a contiguous frame (`b2nd_from_cframe`).
    pub fn from_cframe(cframe: Vec<u8>, copy: bool) -> Result<Array<SChunk>> {
        Array::from_schunk(SChunk::from_cframe(cframe, copy)?)
    }
}

/// Drop a super-chunk made for an array that could not be completed,
/// removing what it wrote to disk.
fn discard(sc: SChunk) {
    let path = sc.urlpath().map(str::to_string);
    drop(sc);
    if let Some(p) = path {
        let _ = crate::engine::schunk::remove_urlpath(&p);
    }
}

impl<S: BorrowMut<SChunk>> Array<S> {
    /// An array over a super-chunk carrying a `b2nd` (or `caterva`)
    /// metalayer (`b2nd_from_schunk`). The metalayer is checked: a
    /// non-empty dimension needs non-zero chunk and block sizes, and no
    /// product may overflow.
    pub fn from_schunk(sc: S) -> Result<Array<S>> {
        let smeta = find_meta(sc.borrow())?;
        let (m, _) = deserialize_meta(&smeta)?;
        for i in 0..m.ndim() {
            if m.shape[i] != 0 && (m.chunkshape[i] == 0 || m.blockshape[i] == 0) {
                return Err(Error::InvalidParam("b2nd metalayer: chunk or block dimension is zero"));
            }
        }
        let geom = Geometry::new(&m.shape, &m.chunkshape, &m.blockshape)?;
        if sc.borrow().typesize() <= 0 {
            return Err(Error::InvalidHeader);
        }
        Ok(Array {
            sc,
            geom,
            dtype: m.dtype,
            dtype_format: m.dtype_format,
        })
    }

    /// An array from its parts, as the C layer keeps them between calls.
    pub fn from_parts(sc: S, geom: Geometry, dtype: Option<String>, dtype_format: i8) -> Array<S> {
        Array {
            sc,
            geom,
            dtype,
            dtype_format,
        }
    }

    /// The parts: super-chunk, geometry, dtype and dtype format.
    pub fn into_parts(self) -> (S, Geometry, Option<String>, i8) {
        (self.sc, self.geom, self.dtype, self.dtype_format)
    }

    /// The geometry.
    pub fn geometry(&self) -> &Geometry {
        &self.geom
    }

    /// Shape.
    pub fn shape(&self) -> &[i64] {
        self.geom.shape()
    }

    /// Number of dimensions.
    pub fn ndim(&self) -> usize {
        self.geom.ndim
    }

    /// The dtype recorded for the array (`None` when its metalayer has
    /// none).
    pub fn dtype(&self) -> Option<&str> {
        self.dtype.as_deref()
    }

    /// The dtype format.
    pub fn dtype_format(&self) -> i8 {
        self.dtype_format
    }

    /// Item size.
    pub fn typesize(&self) -> i32 {
        self.sc.borrow().typesize()
    }

    /// Whether the super-chunk holds exactly the chunks the shape implies.
    /// Arrays made here always do; a crafted frame may claim a shape of
    /// billions of chunks over a few, and work that walks every chunk of
    /// the shape (growing, views) refuses such an array first.
    pub fn holds_its_chunks(&self) -> bool {
        self.schunk().nchunks() == self.geom.nchunks()
    }

    /// The super-chunk.
    pub fn schunk(&self) -> &SChunk {
        self.sc.borrow()
    }

    /// The super-chunk, for direct edits.
    pub fn schunk_mut(&mut self) -> &mut SChunk {
        self.sc.borrow_mut()
    }

    /// Item size as `usize`, refusing non-positive ones.
    pub(super) fn itemsize(&self) -> Result<usize> {
        match self.typesize() {
            t if t > 0 => Ok(t as usize),
            _ => Err(Error::InvalidHeader),
        }
    }

    /// Write the geometry into the `b2nd` metalayer (3.3.5's
    /// `publish_shape_meta`).
    pub(super) fn publish_meta(&mut self) -> Result<()> {
        let smeta = serialize_meta(
            self.geom.shape(),
            self.geom.chunkshape(),
            self.geom.blockshape(),
            self.dtype.as_deref(),
            self.dtype_format,
        )?;
        let sc = self.sc.borrow_mut();
        match sc.meta_exists(META_NAME)? {
            Some(i) if sc.metalayers()[i].1.len() == smeta.len() => {
                sc.meta_update(META_NAME, &smeta)?;
            }
            Some(_) => return Err(Error::Failure("b2nd metalayer cannot change size")),
            None => {
                sc.meta_add(META_NAME, &smeta)?;
            }
        }
        Ok(())
    }

    /// Follow changes another handle made (`b2nd_refresh`): re-read a
    /// disk frame that changed, then take the shape from the metalayer.
    /// Only the shape may change; a different number of dimensions, chunk
    /// shape or block shape is an error. Returns whether the shape
    /// changed.
    pub fn refresh(&mut self) -> Result<bool> {
        let sc = self.sc.borrow_mut();
        sc.refresh_if_changed()?;
        let Ok(smeta) = find_meta(sc) else {
            // 3.3.5 keeps the cached view when the metalayer is missing.
            return Ok(false);
        };
        let (m, _) = deserialize_meta_dims(&smeta)?;
        if m.shape.as_slice() == self.geom.shape() {
            return Ok(false);
        }
        if m.ndim() != self.geom.ndim
            || m.chunkshape.as_slice() != self.geom.chunkshape()
            || m.blockshape.as_slice() != self.geom.blockshape()
        {
            return Err(Error::Data("ndim, chunkshape or blockshape changed behind this handle"));
        }
        self.geom = self.geom.with_shape(&m.shape)?;
        Ok(true)
    }

    /// Decompress chunk `n`, which must hold exactly one extended chunk.
    pub(super) fn read_chunk(&mut self, n: i64) -> Result<Vec<u8>> {
        let ts = self.typesize();
        let len = self.geom.chunk_nbytes(ts)? as usize;
        let sc = self.sc.borrow_mut();
        // The chunk must say it holds one extended chunk before a buffer
        // that size (up to 2 GB, from an untrusted metalayer) is made.
        if sc.chunk_nbytes(n)? as usize != len {
            return Err(Error::Data("chunk size differs from the array's"));
        }
        let mut data = vec![0u8; len];
        if sc.decompress_chunk(n, &mut data)? != len {
            return Err(Error::Data("chunk size differs from the array's"));
        }
        Ok(data)
    }

    /// Compress `data` (one extended chunk) and store it as chunk `n`.
    pub(super) fn write_chunk(&mut self, n: i64, data: &[u8]) -> Result<()> {
        self.sc.borrow_mut().update_buffer(n, data)?;
        Ok(())
    }

    /// Check that a start/stop pair (and buffer shape) has `ndim` entries.
    pub(super) fn check_dims(&self, arrays: &[&[i64]]) -> Result<()> {
        let nd = self.geom.ndim;
        if nd > MAX_DIM || arrays.iter().any(|a| a.len() < nd) {
            return Err(Error::InvalidParam("coordinate arrays shorter than ndim"));
        }
        Ok(())
    }
}
