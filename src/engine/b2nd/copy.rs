//! Copies between N-dimensional C-order buffers padded to a shape
//! (`b2nd_copy_buffer2`), with every coordinate and length checked.

use super::MAX_DIM;
use crate::engine::error::{Error, Result};

fn bad(msg: &'static str) -> Error {
    Error::InvalidParam(msg)
}

/// Items in a buffer of `shape`, checked.
pub fn nitems(shape: &[i64]) -> Result<i64> {
    shape.iter().try_fold(1i64, |acc, &s| {
        if s < 0 {
            return Err(bad("negative shape"));
        }
        acc.checked_mul(s).ok_or(bad("shape product overflows"))
    })
}

/// C-order strides (in items) of a buffer of `shape`.
pub fn strides(shape: &[i64]) -> [i64; MAX_DIM] {
    let mut s = [0i64; MAX_DIM];
    let n = shape.len().min(MAX_DIM);
    if n > 0 {
        s[n - 1] = 1;
        for i in (0..n - 1).rev() {
            s[i] = s[i + 1].wrapping_mul(shape[i + 1]);
        }
    }
    s
}

/// C-order strides of `shape`, refusing overflows.
fn checked_strides(shape: &[i64]) -> Result<[i64; MAX_DIM]> {
    let mut s = [0i64; MAX_DIM];
    let n = shape.len();
    if n > 0 {
        s[n - 1] = 1;
        for i in (0..n - 1).rev() {
            s[i] = s[i + 1]
                .checked_mul(shape[i + 1])
                .ok_or(bad("shape product overflows"))?;
        }
    }
    Ok(s)
}

/// A checked N-dimensional region copy: plan first, then copy rows.
struct Plan {
    ndim: usize,
    copy_shape: [i64; MAX_DIM],
    src_strides: [i64; MAX_DIM],
    dst_strides: [i64; MAX_DIM],
    src_base: usize,
    dst_base: usize,
}

#[allow(clippy::too_many_arguments)]
fn plan(
    ndim: usize,
    itemsize: usize,
    src_len: usize,
    src_pad_shape: &[i64],
    src_start: &[i64],
    src_stop: &[i64],
    dst_len: usize,
    dst_pad_shape: &[i64],
    dst_start: &[i64],
) -> Result<Option<Plan>> {
    if ndim > MAX_DIM {
        return Err(bad("ndim must be in [0, 16]"));
    }
    if src_pad_shape.len() < ndim
        || src_start.len() < ndim
        || src_stop.len() < ndim
        || dst_pad_shape.len() < ndim
        || dst_start.len() < ndim
    {
        return Err(bad("shape arrays shorter than ndim"));
    }
    let (sp, dp) = (&src_pad_shape[..ndim], &dst_pad_shape[..ndim]);
    let mut copy_shape = [0i64; MAX_DIM];
    let mut empty = false;
    for i in 0..ndim {
        let (s0, s1, d0) = (src_start[i], src_stop[i], dst_start[i]);
        if s0 < 0 || s1 < s0 || s1 > sp[i] || d0 < 0 {
            return Err(bad("source region outside the source buffer"));
        }
        let n = s1 - s0;
        if d0.checked_add(n).is_none_or(|e| e > dp[i]) {
            return Err(bad("destination region outside the destination buffer"));
        }
        copy_shape[i] = n;
        empty |= n == 0;
    }
    if empty {
        return Ok(None);
    }
    let src_strides = checked_strides(sp)?;
    let dst_strides = checked_strides(dp)?;
    // The bytes each side touches: up to its last copied item.
    let isz = i64::try_from(itemsize).map_err(|_| bad("itemsize"))?;
    let extent = |last: &dyn Fn(usize) -> i64, st: &[i64; MAX_DIM]| -> Result<u64> {
        let mut items = 1i64;
        for i in 0..ndim {
            let term = last(i).checked_mul(st[i]).ok_or(bad("buffer size overflows"))?;
            items = items.checked_add(term).ok_or(bad("buffer size overflows"))?;
        }
        Ok(items.checked_mul(isz).ok_or(bad("buffer size overflows"))? as u64)
    };
    let src_need = extent(&|i| src_stop[i] - 1, &src_strides)?;
    let dst_need = extent(&|i| dst_start[i] + copy_shape[i] - 1, &dst_strides)?;
    if src_need > src_len as u64 || dst_need > dst_len as u64 {
        return Err(Error::ReadBuffer);
    }
    // In bounds: every copied item lies within the extents checked above.
    let base = |start: &[i64], st: &[i64; MAX_DIM]| -> usize {
        (0..ndim).map(|i| start[i] * st[i]).sum::<i64>() as usize * itemsize
    };
    Ok(Some(Plan {
        ndim,
        copy_shape,
        src_base: base(src_start, &src_strides),
        dst_base: base(dst_start, &dst_strides),
        src_strides,
        dst_strides,
    }))
}

impl Plan {
    fn run(&self, itemsize: usize, mut row: impl FnMut(usize, usize, usize)) {
        if self.ndim == 0 {
            row(self.src_base, self.dst_base, itemsize);
            return;
        }
        let last = self.ndim - 1;
        let row_bytes = self.copy_shape[last] as usize * itemsize;
        if last == 0 {
            row(self.src_base, self.dst_base, row_bytes);
            return;
        }
        // The rows of the next-to-last dimension in a loop of their own
        // (rows are short, a block's few hundred bytes: the loop's upkeep
        // counts), and an odometer over the outer dimensions, with the item
        // offsets of both sides kept up to date as it turns.
        let inner = last - 1;
        let rows = self.copy_shape[inner] as usize;
        let src_step = self.src_strides[inner] as usize * itemsize;
        let dst_step = self.dst_strides[inner] as usize * itemsize;
        let mut idx = [0i64; MAX_DIM];
        let (mut so, mut d_o) = (0i64, 0i64);
        loop {
            let mut s = self.src_base + so as usize * itemsize;
            let mut d = self.dst_base + d_o as usize * itemsize;
            for _ in 0..rows {
                row(s, d, row_bytes);
                s += src_step;
                d += dst_step;
            }
            let mut i = inner;
            loop {
                if i == 0 {
                    return;
                }
                i -= 1;
                idx[i] += 1;
                so += self.src_strides[i];
                d_o += self.dst_strides[i];
                if idx[i] < self.copy_shape[i] {
                    break;
                }
                so -= idx[i] * self.src_strides[i];
                d_o -= idx[i] * self.dst_strides[i];
                idx[i] = 0;
            }
        }
    }
}

/// Copy the region `[src_start, src_stop)` of `src` (a C-order buffer of
/// `src_pad_shape` items of `itemsize` bytes) into `dst` (of
/// `dst_pad_shape`) at `dst_start` (`b2nd_copy_buffer2`). Regions outside
/// the padded shapes are refused, and each buffer must reach at least its
/// last copied item (see [`copy_extents`]). With `ndim` 0 one item is
/// copied.
#[allow(clippy::too_many_arguments)]
pub fn copy_buffer(
    ndim: usize,
    itemsize: usize,
    src: &[u8],
    src_pad_shape: &[i64],
    src_start: &[i64],
    src_stop: &[i64],
    dst: &mut [u8],
    dst_pad_shape: &[i64],
    dst_start: &[i64],
) -> Result<()> {
    let dst_len = dst.len();
    for_each_row(
        ndim,
        itemsize,
        src,
        src_pad_shape,
        src_start,
        src_stop,
        dst_len,
        dst_pad_shape,
        dst_start,
        |row, d| dst[d..d + row.len()].copy_from_slice(row),
    )
}

/// The rows a [`copy_buffer`] with these arguments copies, handed to
/// `row(src_row, dst_offset)` instead (the destination, `dst_len` bytes,
/// is the caller's to write): the caller may transform them on the way.
/// Checks the coordinates and lengths as [`copy_buffer`] does.
#[allow(clippy::too_many_arguments)]
pub fn for_each_row(
    ndim: usize,
    itemsize: usize,
    src: &[u8],
    src_pad_shape: &[i64],
    src_start: &[i64],
    src_stop: &[i64],
    dst_len: usize,
    dst_pad_shape: &[i64],
    dst_start: &[i64],
    mut row: impl FnMut(&[u8], usize),
) -> Result<()> {
    let p = plan(
        ndim,
        itemsize,
        src.len(),
        src_pad_shape,
        src_start,
        src_stop,
        dst_len,
        dst_pad_shape,
        dst_start,
    )?;
    if let Some(p) = p {
        p.run(itemsize, |s, d, n| row(&src[s..s + n], d));
    }
    Ok(())
}

/// The bytes of `src` and `dst` a [`copy_buffer`] with these arguments
/// touches (from the start of each buffer to its last copied item), or
/// `None` when the region is empty. Checks the coordinates as
/// [`copy_buffer`] does.
#[allow(clippy::too_many_arguments)]
pub fn copy_extents(
    ndim: usize,
    itemsize: usize,
    src_pad_shape: &[i64],
    src_start: &[i64],
    src_stop: &[i64],
    dst_pad_shape: &[i64],
    dst_start: &[i64],
) -> Result<Option<(usize, usize)>> {
    // Probe with unbounded lengths, then report what the plan needs.
    let p = plan(
        ndim,
        itemsize,
        usize::MAX,
        src_pad_shape,
        src_start,
        src_stop,
        usize::MAX,
        dst_pad_shape,
        dst_start,
    )?;
    Ok(p.map(|p| {
        let last = |st: &[i64; MAX_DIM], base: usize, hi: &dyn Fn(usize) -> i64| -> usize {
            let off: i64 = (0..p.ndim).map(|i| hi(i) * st[i]).sum();
            base + off as usize * itemsize + itemsize
        };
        let src = last(&p.src_strides, p.src_base, &|i| p.copy_shape[i] - 1);
        let dst = last(&p.dst_strides, p.dst_base, &|i| p.copy_shape[i] - 1);
        (src, dst)
    }))
}
