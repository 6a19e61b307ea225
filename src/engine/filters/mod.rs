//! The six-slot filter pipeline: forward on compression (slot 0 to 5),
//! backward on decompression (slot 5 to 0).

pub mod bitshuffle;
pub mod delta;
pub mod shuffle;
pub mod trunc_prec;

use super::constants::{filter, MAX_FILTERS};
use super::error::{Error, Result};
use super::plugins::{self, Call};

/// The filter slots of a chunk with their metadata and the typesize they
/// work with.
#[derive(Debug, Clone, Copy)]
pub struct FilterSpec {
    /// Filter ids, slot 0 first.
    pub filters: [u8; MAX_FILTERS],
    /// Per-slot metadata.
    pub meta: [u8; MAX_FILTERS],
    /// Typesize used by the filters (already capped to 255 / 1).
    pub typesize: usize,
    /// Chunk format version (bitshuffle of version-2 chunks differs).
    pub chunk_version: u8,
}

/// Whether filter `f` has a step to undo on decompression (NOFILTER and
/// TRUNC_PREC have none).
fn undone_on_decompression(f: u8) -> bool {
    f != filter::NOFILTER && f != filter::TRUNC_PREC
}

impl FilterSpec {
    /// True when some filter changes data on compression.
    pub fn any_forward(&self) -> bool {
        self.filters.iter().any(|&f| f != filter::NOFILTER)
    }

    /// True when some filter must be undone on decompression (TRUNC_PREC
    /// has nothing to undo).
    pub fn any_backward(&self) -> bool {
        self.filters.iter().any(|&f| undone_on_decompression(f))
    }

    /// True when the forward pipeline needs its second scratch buffer:
    /// more than one filter to run ([`forward`] ping-pongs between them).
    pub fn forward_needs_tmp(&self) -> bool {
        self.filters.iter().filter(|&&f| f != filter::NOFILTER).count() > 1
    }

    /// True when undoing the pipeline needs a second scratch buffer
    /// besides its input: more than one filter to undo ([`backward`]).
    pub fn backward_needs_tmp(&self) -> bool {
        self.filters.iter().filter(|&&f| undone_on_decompression(f)).count() > 1
    }

    /// The width SHUFFLE groups bytes by, when it is the only filter to
    /// undo (a block's streams may then go straight to
    /// [`shuffle::planes::unshuffle_from`]).
    pub fn only_shuffle_width(&self) -> Option<usize> {
        let mut width = None;
        for (&f, &meta) in self.filters.iter().zip(&self.meta) {
            if !undone_on_decompression(f) {
                continue;
            }
            if f != filter::SHUFFLE || width.is_some() {
                return None;
            }
            width = Some(shuffle_width(meta, self.typesize));
        }
        width
    }

    /// True when the pipeline holds DELTA.
    pub fn has_delta(&self) -> bool {
        self.filters.contains(&filter::DELTA)
    }

    /// True when the pipeline holds SHUFFLE (used by the split heuristic).
    pub fn has_shuffle(&self) -> bool {
        self.filters.contains(&filter::SHUFFLE)
    }
}

pub(crate) fn shuffle_width(meta: u8, typesize: usize) -> usize {
    // A non-zero meta groups that many bytes instead of typesize.
    if meta == 0 {
        typesize
    } else {
        usize::from(meta)
    }
}

fn apply_forward(
    id: u8,
    meta: u8,
    spec: &FilterSpec,
    src: &[u8],
    dref: Option<&[u8]>,
    dst: &mut [u8],
    call: &Call<'_>,
) -> Result<()> {
    let ts = spec.typesize;
    match id {
        id if plugins::is_plugin_filter(id) => plugins::filter_forward(id, meta, src, dst, call)?,
        filter::SHUFFLE => shuffle::shuffle(shuffle_width(meta, ts), src, dst),
        filter::BITSHUFFLE => bitshuffle::bitshuffle_for_version(ts, src, dst, spec.chunk_version),
        filter::DELTA => delta::encode(ts, src, dref, dst),
        filter::TRUNC_PREC => trunc_prec::encode(meta, ts, src, dst)?,
        _ => return Err(Error::FilterPipeline),
    }
    Ok(())
}

/// Where the block currently lives during the pipeline.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Loc {
    Input,
    A,
    B,
}

/// Run the forward pipeline over one block. `delta_ref` is `None` for the
/// first block of a chunk and the raw first block otherwise. `a` and `b`
/// are scratch buffers at least as long as `block`. `call` is what plugin
/// filters get. Returns the filtered block (which is `block` itself when
/// no filter is active).
pub fn forward<'a>(
    spec: &FilterSpec,
    block: &'a [u8],
    delta_ref: Option<&[u8]>,
    a: &'a mut [u8],
    b: &'a mut [u8],
    call: &Call<'_>,
) -> Result<&'a [u8]> {
    let n = block.len();
    let mut loc = Loc::Input;
    for slot in 0..MAX_FILTERS {
        let id = spec.filters[slot];
        if id == filter::NOFILTER {
            continue;
        }
        let meta = spec.meta[slot];
        // For block 0 the delta reference is the filter's own input, which
        // `delta::encode` handles when given `None`.
        loc = match loc {
            Loc::Input => {
                apply_forward(id, meta, spec, block, delta_ref, &mut a[..n], call)?;
                Loc::A
            }
            Loc::A => {
                apply_forward(id, meta, spec, &a[..n], delta_ref, &mut b[..n], call)?;
                Loc::B
            }
            Loc::B => {
                apply_forward(id, meta, spec, &b[..n], delta_ref, &mut a[..n], call)?;
                Loc::A
            }
        };
    }
    Ok(match loc {
        Loc::Input => block,
        Loc::A => &a[..n],
        Loc::B => &b[..n],
    })
}

fn apply_backward(id: u8, meta: u8, spec: &FilterSpec, src: &[u8], dst: &mut [u8], call: &Call<'_>) -> Result<()> {
    let ts = spec.typesize;
    match id {
        id if plugins::is_plugin_filter(id) => plugins::filter_backward(id, meta, src, dst, call)?,
        filter::SHUFFLE => shuffle::unshuffle(shuffle_width(meta, ts), src, dst),
        filter::BITSHUFFLE => bitshuffle::bitunshuffle(ts, src, dst, spec.chunk_version),
        _ => return Err(Error::FilterPipeline),
    }
    Ok(())
}

/// Undo the pipeline for one block. The decoded codec output is in
/// `input` (which is also used as scratch), `tmp` is scratch of the same
/// length, and the result goes to `out`. `delta_ref` is `None` for the
/// first block and the decoded first block otherwise. `call` is what
/// plugin filters get.
pub fn backward(
    spec: &FilterSpec,
    input: &mut [u8],
    tmp: &mut [u8],
    out: &mut [u8],
    delta_ref: Option<&[u8]>,
    call: &Call<'_>,
) -> Result<()> {
    let n = out.len();
    // Filters to undo, last slot first (a fixed array: this runs per block).
    let mut slots = [(0u8, 0u8); MAX_FILTERS];
    let mut nactive = 0;
    for s in (0..MAX_FILTERS).rev() {
        let f = spec.filters[s];
        if undone_on_decompression(f) {
            slots[nactive] = (f, spec.meta[s]);
            nactive += 1;
        }
    }
    let active = &slots[..nactive];
    if active.is_empty() {
        out.copy_from_slice(&input[..n]);
        return Ok(());
    }
    // Data starts in `input`; ping-pong between input and tmp, and let the
    // last step write to `out`. `tmp` is sliced only by a step that is
    // neither DELTA nor the last: one filter needs no `tmp` at all.
    let mut in_tmp = false;
    let last = active.len() - 1;
    for (k, &(id, meta)) in active.iter().enumerate() {
        if k == last {
            let cur = if in_tmp { &mut tmp[..n] } else { &mut input[..n] };
            if id == filter::DELTA {
                delta::decode_into(spec.typesize, cur, out, delta_ref);
            } else {
                apply_backward(id, meta, spec, cur, out, call)?;
            }
            break;
        }
        if id == filter::DELTA {
            let cur = if in_tmp { &mut tmp[..n] } else { &mut input[..n] };
            delta::decode(spec.typesize, cur, delta_ref);
            continue;
        }
        let (cur, other): (&mut [u8], &mut [u8]) = if in_tmp {
            (&mut tmp[..n], &mut input[..n])
        } else {
            (&mut input[..n], &mut tmp[..n])
        };
        apply_backward(id, meta, spec, cur, other, call)?;
        in_tmp = !in_tmp;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn spec(filters: [u8; 6]) -> FilterSpec {
        FilterSpec {
            filters,
            meta: [0; 6],
            typesize: 4,
            chunk_version: 5,
        }
    }

    #[test]
    fn pipelines_round_trip() {
        let raw: Vec<u8> = (0..4096u32).flat_map(|i| (i * 3 + (i % 7)).to_le_bytes()).collect();
        let (b0, b1) = raw.split_at(8192);
        for f in [
            [0, 0, 0, 0, 0, 1],
            [0, 0, 0, 0, 3, 1],
            [0, 0, 0, 0, 0, 2],
            [3, 1, 2, 0, 0, 0],
            [1, 2, 1, 0, 0, 0],
            [0, 0, 0, 1, 0, 3],
        ] {
            let s = spec(f);
            let mut a = vec![0u8; b0.len()];
            // The second buffers only when said to be needed: a pipeline of
            // one filter runs without them.
            let second = |needed: bool| vec![0u8; if needed { b0.len() } else { 0 }];
            let mut b = second(s.forward_needs_tmp());
            let call = Call {
                typesize: 4,
                nthreads: 1,
                env: plugins::no_env(),
                cparams: None,
                chunk: &[],
            };
            let e0 = forward(&s, b0, None, &mut a, &mut b, &call).unwrap().to_vec();
            let e1 = forward(&s, b1, Some(b0), &mut a, &mut b, &call).unwrap().to_vec();
            let mut d0 = vec![0u8; b0.len()];
            let mut d1 = vec![0u8; b1.len()];
            let mut t = second(s.backward_needs_tmp());
            backward(&s, &mut e0.clone(), &mut t, &mut d0, None, &call).unwrap();
            assert_eq!(d0, b0, "{f:?}");
            backward(&s, &mut e1.clone(), &mut t, &mut d1, Some(&d0), &call).unwrap();
            assert_eq!(d1, b1, "{f:?}");
        }
    }
}
