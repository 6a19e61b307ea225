//! Operations between arrays: slices into new arrays (`b2nd_get_slice`),
//! copies (`b2nd_copy`), concatenation (`b2nd_concatenate`) and the
//! arrays `b2nd_expand_dims` / `b2nd_squeeze` return.
//!
//! The pieces are generic over how each array holds its super-chunk, so
//! the C layer can run them on two handles it locked itself.

use std::borrow::BorrowMut;

use super::array::init_schunk;
use super::copy::nitems;
use super::{Array, ArrayParams, Fill, Geometry, MAX_DIM, META_NAME};
use crate::engine::error::{Error, Result};
use crate::engine::params::CParams;
use crate::engine::schunk::{SChunk, Storage};

/// Fill `dst` (of the slice's shape) with the slice of `src` starting at
/// `start`, chunk by chunk of `dst` (3.3.5's `b2nd_get_slice` loop).
///
/// The item sizes may differ, as in 3.3.5, which moves bytes, not items:
/// each chunk of `dst` takes the items of `src` it covers, packed with
/// `src`'s item size, then zeros up to its own size. A smaller `dst` item
/// size cannot hold them and is refused.
pub fn get_slice_array<A, B>(dst: &mut Array<A>, src: &mut Array<B>, start: &[i64]) -> Result<()>
where
    A: BorrowMut<SChunk>,
    B: BorrowMut<SChunk>,
{
    let g = dst.geom.clone();
    let nd = g.ndim;
    if g.nitems == 0 {
        return Ok(());
    }
    if start.len() < nd || src.geom.ndim != nd {
        return Err(Error::InvalidParam("slice of the wrong number of dimensions"));
    }
    let ts = src.itemsize()?;
    let dst_ts = dst.itemsize()?;
    if dst_ts < ts {
        return Err(Error::InvalidParam("items of the source do not fit the slice's"));
    }
    let mut buf = Vec::new();
    for n in 0..dst.schunk().nchunks() {
        let c = g.chunk_coords(n);
        let mut cstart = [0i64; MAX_DIM];
        let mut cstop = [0i64; MAX_DIM];
        let mut cshape = [0i64; MAX_DIM];
        let mut sstart = [0i64; MAX_DIM];
        let mut sstop = [0i64; MAX_DIM];
        for i in 0..nd {
            cstart[i] = c[i] * i64::from(g.chunkshape[i]);
            cstop[i] = (cstart[i] + i64::from(g.chunkshape[i])).min(g.shape[i]);
            cshape[i] = cstop[i] - cstart[i];
            sstart[i] = cstart[i] + start[i];
            sstop[i] = cstop[i] + start[i];
        }
        let n = nitems(&cshape[..nd])?;
        let bytes_of = |ts: usize| {
            n.checked_mul(ts as i64)
                .and_then(|n| usize::try_from(n).ok())
                .ok_or(Error::InvalidParam("chunk too large"))
        };
        let (src_len, len) = (bytes_of(ts)?, bytes_of(dst_ts)?);
        buf.clear();
        buf.resize(len, 0);
        src.get_slice_buffer(&sstart[..nd], &sstop[..nd], &mut buf[..src_len], &cshape[..nd])?;
        dst.set_slice_buffer(&cstart[..nd], &cstop[..nd], &buf, &cshape[..nd])?;
    }
    Ok(())
}

/// Copy the vlmetalayers of `src` into `dst`, compressed with `cparams`
/// (3.3.5's defaults when `None`).
pub fn copy_vlmetas(dst: &mut SChunk, src: &SChunk, cparams: Option<&CParams>) -> Result<()> {
    for name in src.vlmeta_names() {
        let content = src.vlmeta_get(&name)?;
        dst.vlmeta_add(&name, &content, cparams)?;
    }
    Ok(())
}

/// The metalayers of `src` other than `b2nd`, as `b2nd_copy` hands them
/// to the new array.
pub fn user_metalayers(src: &SChunk) -> Vec<(String, Vec<u8>)> {
    src.metalayers()
        .iter()
        .filter(|(n, _)| n != META_NAME)
        .cloned()
        .collect()
}

/// Whether `b2nd_copy` can copy the super-chunk as it is: same chunk and
/// block shapes, and the same item size (`typesizes`: the source's and the
/// copy's). With another item size 3.3.5 copies the chunks as they are,
/// into an array whose chunks cannot be read back; the data is re-chunked
/// here instead, as for another partition.
pub fn same_partition(g: &Geometry, typesizes: (i32, i32), params: &ArrayParams) -> bool {
    let nd = g.ndim;
    typesizes.0 == typesizes.1
        && params.chunkshape.len() >= nd
        && params.blockshape.len() >= nd
        && g.chunkshape() == &params.chunkshape[..nd]
        && g.blockshape() == &params.blockshape[..nd]
}

/// Check that `src2` can be appended to an array of shape `shape` along
/// `axis`; returns the concatenated shape.
pub fn concatenated_shape(shape: &[i64], ts1: i32, src2: &Geometry, ts2: i32, axis: i64) -> Result<Vec<i64>> {
    let nd = shape.len();
    if axis < 0 || axis >= nd as i64 {
        return Err(Error::InvalidParam("axis out of bounds"));
    }
    if ts1 != ts2 {
        return Err(Error::InvalidParam("the two arrays must have the same typesize"));
    }
    if nd == 0 || src2.ndim == 0 {
        return Err(Error::InvalidParam("concatenation of 0-dim arrays is not supported"));
    }
    if src2.ndim != nd {
        return Err(Error::InvalidParam(
            "the two arrays must have the same number of dimensions",
        ));
    }
    let axis = axis as usize;
    let mut out = shape.to_vec();
    for i in 0..nd {
        if i == axis {
            out[i] = shape[i]
                .checked_add(src2.shape[i])
                .ok_or(Error::InvalidParam("array too large"))?;
        } else if shape[i] != src2.shape[i] {
            return Err(Error::InvalidParam("shapes differ outside the concatenation axis"));
        }
    }
    Ok(out)
}

/// Append `src2` to `dst` along `axis` (`b2nd_concatenate` once the
/// destination is chosen): `dst` grows, then receives the chunks of
/// `src2`, copied as they are when both arrays share chunk and block
/// shapes and `dst` ended on a chunk boundary.
pub fn concatenate<A, B>(dst: &mut Array<A>, src2: &mut Array<B>, axis: i64) -> Result<()>
where
    A: BorrowMut<SChunk>,
    B: BorrowMut<SChunk>,
{
    dst.refresh()?;
    src2.refresh()?;
    let old = dst.geom.shape().to_vec();
    let new_shape = concatenated_shape(&old, dst.typesize(), &src2.geom, src2.typesize(), axis)?;
    let axis = axis as usize;
    dst.resize(&new_shape, None)?;
    let g2 = src2.geom.clone();
    let nd = g2.ndim;
    let dg = dst.geom.clone();
    let cs_axis = i64::from(dg.chunkshape[axis]);
    let aligned = g2.chunkshape() == dg.chunkshape() && g2.blockshape() == dg.blockshape() && old[axis] % cs_axis == 0;
    let ts = src2.itemsize()?;
    let mut buf = vec![0u8; g2.chunk_nbytes(src2.typesize())? as usize];
    let chunkshape: Vec<i64> = g2.chunkshape().iter().map(|&c| i64::from(c)).collect();
    for n in 0..src2.schunk().nchunks() {
        let mut c = g2.chunk_coords(n);
        if aligned {
            let chunk = src2.schunk_mut().get_chunk(n)?.into_owned();
            c[axis] += old[axis] / cs_axis;
            let dest = dg.chunk_index(&c[..nd]);
            dst.schunk_mut().update_chunk(dest, &chunk)?;
        } else {
            let mut start = [0i64; MAX_DIM];
            let mut stop = [0i64; MAX_DIM];
            for i in 0..nd {
                start[i] = c[i] * chunkshape[i];
                stop[i] = (start[i] + chunkshape[i]).min(g2.shape[i]);
            }
            if (0..nd).any(|i| start[i] >= stop[i]) {
                continue;
            }
            let need = nitems(&chunkshape)? as usize * ts;
            if buf.len() < need {
                buf.resize(need, 0);
            }
            src2.get_slice_buffer(&start[..nd], &stop[..nd], &mut buf, &chunkshape)?;
            start[axis] += old[axis];
            stop[axis] += old[axis];
            dst.set_slice_buffer(&start[..nd], &stop[..nd], &buf, &chunkshape)?;
        }
    }
    Ok(())
}

/// Shapes of a view (`b2nd_expand_dims` / `b2nd_squeeze_index`): for
/// each dimension of the view, the dimension of the source it shows
/// (`None` for an added dimension of size 1).
#[derive(Debug, Clone)]
pub struct ViewPlan {
    /// Shape of the view.
    pub shape: Vec<i64>,
    /// Chunk shape of the view.
    pub chunkshape: Vec<i32>,
    /// Block shape of the view.
    pub blockshape: Vec<i32>,
    /// Source dimension of each view dimension.
    pub source: Vec<Option<usize>>,
}

impl ViewPlan {
    /// `b2nd_expand_dims`: `axis` has one entry per dimension of the view,
    /// true where a new dimension of size 1 goes. The others take the
    /// source's dimensions in order; there must be exactly `ndim` of them.
    pub fn expand_dims(g: &Geometry, axis: &[bool]) -> Result<ViewPlan> {
        if axis.len() > MAX_DIM {
            return Err(Error::InvalidParam("too many dimensions"));
        }
        let mut p = ViewPlan {
            shape: Vec::new(),
            chunkshape: Vec::new(),
            blockshape: Vec::new(),
            source: Vec::new(),
        };
        let mut old = 0usize;
        for &new in axis {
            if new {
                p.shape.push(1);
                p.chunkshape.push(1);
                p.blockshape.push(1);
                p.source.push(None);
            } else {
                if old == g.ndim {
                    return Err(Error::InvalidParam(
                        "the axis list implies more dimensions than the array has",
                    ));
                }
                p.shape.push(g.shape[old]);
                p.chunkshape.push(g.chunkshape[old]);
                p.blockshape.push(g.blockshape[old]);
                p.source.push(Some(old));
                old += 1;
            }
        }
        if old != g.ndim {
            return Err(Error::InvalidParam(
                "the axis list implies fewer dimensions than the array has",
            ));
        }
        Ok(p)
    }

    /// `b2nd_squeeze_index`: drop the dimensions where `index` is true
    /// (their size must be 1).
    pub fn squeeze(g: &Geometry, index: &[bool]) -> Result<ViewPlan> {
        if index.len() < g.ndim {
            return Err(Error::InvalidParam("index shorter than ndim"));
        }
        let mut p = ViewPlan {
            shape: Vec::new(),
            chunkshape: Vec::new(),
            blockshape: Vec::new(),
            source: Vec::new(),
        };
        for (i, &drop) in index.iter().enumerate().take(g.ndim) {
            if drop {
                if g.shape[i] != 1 {
                    return Err(Error::InvalidIndex);
                }
            } else {
                p.shape.push(g.shape[i]);
                p.chunkshape.push(g.chunkshape[i]);
                p.blockshape.push(g.blockshape[i]);
                p.source.push(Some(i));
            }
        }
        Ok(p)
    }

    /// The index of a `squeeze`: every dimension of size 1.
    pub fn squeeze_all(g: &Geometry) -> Vec<bool> {
        g.shape().iter().map(|&s| s == 1).collect()
    }
}

/// Copy the content of `src` into `dst`, a new array laid out by `plan`
/// (same items in the same order). Chunks are copied as they are when the
/// dimensions added or dropped have chunk and block sizes of 1 (then both
/// arrays share their chunk layout).
pub fn view<A, B>(dst: &mut Array<A>, src: &mut Array<B>, plan: &ViewPlan) -> Result<()>
where
    A: BorrowMut<SChunk>,
    B: BorrowMut<SChunk>,
{
    let sg = src.geom.clone();
    let dg = dst.geom.clone();
    if dg.nitems != sg.nitems || plan.source.len() != dg.ndim {
        return Err(Error::InvalidParam("view of a different size"));
    }
    if dg.nitems == 0 {
        return Ok(());
    }
    let mut shown = [false; MAX_DIM];
    for s in plan.source.iter().flatten() {
        shown[*s] = true;
    }
    let raw = (0..sg.ndim).all(|i| shown[i] || (sg.chunkshape[i] == 1 && sg.blockshape[i] == 1));
    if raw && dst.schunk().nchunks() == src.schunk().nchunks() {
        for n in 0..src.schunk().nchunks() {
            let c = src.schunk_mut().get_chunk(n)?.into_owned();
            dst.schunk_mut().update_chunk(n, &c)?;
        }
        return Ok(());
    }
    let ts = src.itemsize()?;
    let mut buf = Vec::new();
    for n in 0..dst.schunk().nchunks() {
        let c = dg.chunk_coords(n);
        let mut dstart = [0i64; MAX_DIM];
        let mut dstop = [0i64; MAX_DIM];
        let mut sstart = [0i64; MAX_DIM];
        let mut sstop = [1i64; MAX_DIM];
        for i in 0..dg.ndim {
            dstart[i] = c[i] * i64::from(dg.chunkshape[i]);
            dstop[i] = (dstart[i] + i64::from(dg.chunkshape[i])).min(dg.shape[i]);
            if let Some(j) = plan.source[i] {
                sstart[j] = dstart[i];
                sstop[j] = dstop[i];
            }
        }
        let dshape: Vec<i64> = (0..dg.ndim).map(|i| dstop[i] - dstart[i]).collect();
        let sshape: Vec<i64> = (0..sg.ndim).map(|i| sstop[i] - sstart[i]).collect();
        let len = nitems(&dshape)? as usize * ts;
        buf.resize(len, 0);
        src.get_slice_buffer(&sstart[..sg.ndim], &sstop[..sg.ndim], &mut buf, &sshape)?;
        dst.set_slice_buffer(&dstart[..dg.ndim], &dstop[..dg.ndim], &buf, &dshape)?;
    }
    Ok(())
}

/// The storage of a view: in memory, not contiguous, with `cparams`.
pub fn view_storage(cparams: CParams) -> Storage {
    Storage {
        contiguous: false,
        urlpath: None,
        cparams,
        ..Storage::default()
    }
}

/// A copy of `src` with `params` (`b2nd_copy`): the super-chunk is copied
/// as it is when the chunk and block shapes are unchanged, the data is
/// re-chunked otherwise (then the metalayers other than `b2nd` and the
/// vlmetalayers of `src` are carried over). `params.shape` is ignored.
pub fn copy_array<B: BorrowMut<SChunk>>(src: &mut Array<B>, params: &ArrayParams) -> Result<Array<SChunk>> {
    src.refresh()?;
    let g = src.geom.clone();
    let mut p = params.clone();
    p.shape = g.shape().to_vec();
    if same_partition(&g, (src.typesize(), p.storage.cparams.typesize), &p) {
        let sc = src.schunk_mut().copy(p.storage.clone())?;
        let geom = Geometry::new(&p.shape, &p.chunkshape[..g.ndim], &p.blockshape[..g.ndim])?;
        return Ok(Array::from_parts(sc, geom, p.dtype.clone(), p.dtype_format));
    }
    p.chunkshape.truncate(g.ndim);
    p.blockshape.truncate(g.ndim);
    p.metalayers = user_metalayers(src.schunk());
    let start = vec![0i64; g.ndim];
    let mut dst = Array::new(&p, Fill::Zeros)?;
    get_slice_array(&mut dst, src, &start)?;
    let cp = dst.schunk().cparams();
    copy_vlmetas(dst.schunk_mut(), src.schunk(), Some(&cp))?;
    Ok(dst)
}

impl<S: BorrowMut<SChunk>> Array<S> {
    /// The slice `[start, stop)` as a new array made with `params` (its
    /// shape is replaced by the slice's) (`b2nd_get_slice`).
    pub fn get_slice(&mut self, params: &ArrayParams, start: &[i64], stop: &[i64]) -> Result<Array<SChunk>> {
        self.refresh()?;
        let nd = self.geom.ndim;
        self.check_dims(&[start, stop])?;
        for i in 0..nd {
            if start[i] < 0 || stop[i] < start[i] || stop[i] > self.geom.shape[i] {
                return Err(Error::InvalidParam("slice outside the array"));
            }
        }
        let mut p = params.clone();
        p.shape = (0..nd).map(|i| stop[i] - start[i]).collect();
        if p.chunkshape.len() < nd || p.blockshape.len() < nd {
            return Err(Error::InvalidParam("chunkshape or blockshape shorter than ndim"));
        }
        p.chunkshape.truncate(nd);
        p.blockshape.truncate(nd);
        let mut dst = Array::new(&p, Fill::Zeros)?;
        get_slice_array(&mut dst, self, start)?;
        Ok(dst)
    }

    /// A new in-memory array with dimensions of size 1 inserted where
    /// `axis` is true (`b2nd_expand_dims`).
    pub fn expand_dims(&mut self, axis: &[bool]) -> Result<Array<SChunk>> {
        self.refresh()?;
        let plan = ViewPlan::expand_dims(&self.geom, axis)?;
        self.make_view(&plan)
    }

    /// A new in-memory array without the dimensions of size 1 where
    /// `index` is true (`b2nd_squeeze_index`).
    pub fn squeeze_index(&mut self, index: &[bool]) -> Result<Array<SChunk>> {
        self.refresh()?;
        let plan = ViewPlan::squeeze(&self.geom, index)?;
        self.make_view(&plan)
    }

    /// A new in-memory array without any dimension of size 1
    /// (`b2nd_squeeze`).
    pub fn squeeze(&mut self) -> Result<Array<SChunk>> {
        self.refresh()?;
        let index = ViewPlan::squeeze_all(&self.geom);
        self.squeeze_index(&index)
    }

    /// Refuse views of arrays with metalayers other than `b2nd`, as 3.3.5
    /// does.
    pub(super) fn check_view_metas(&self) -> Result<()> {
        if self.schunk().metalayers().iter().any(|(n, _)| n != META_NAME) {
            return Err(Error::InvalidParam(
                "views of arrays with non-b2nd metalayers are not supported",
            ));
        }
        Ok(())
    }

    fn make_view(&mut self, plan: &ViewPlan) -> Result<Array<SChunk>> {
        self.check_view_metas()?;
        let params = ArrayParams::new(
            view_storage(self.schunk().cparams()),
            &plan.shape,
            &plan.chunkshape,
            &plan.blockshape,
            self.dtype.as_deref(),
            self.dtype_format,
            Vec::new(),
        )?;
        let mut sc = SChunk::new(params.storage.clone())?;
        let geom = init_schunk(&mut sc, &params, &Fill::Zeros)?;
        let mut dst = Array::from_parts(sc, geom, params.dtype.clone(), params.dtype_format);
        view(&mut dst, self, plan)?;
        copy_vlmetas(dst.schunk_mut(), self.schunk(), None)?;
        Ok(dst)
    }
}
