//! Choosing a chunk's filter pipeline and item size from its bytes.
//!
//! C-Blosc2 leaves the filters and the type size to the caller, and a
//! wrong guess is costly: shuffle at type size 8 makes an HTML page 2.5
//! times larger than no filter, while no filter makes a float array 1.3
//! times larger than shuffle. [`choose`] compresses a sample of the chunk
//! (a few slices spread over it, each compressed as a block of its own)
//! with every candidate pipeline at the caller's codec and level, and
//! keeps the smallest. Each chunk records its own filters and type size in
//! its header, so chunks chosen differently stay readable by any
//! C-Blosc2 3.x reader.
//!
//! Cost: the sample is [`SAMPLE_SLICES`] slices of [`SLICE_BYTES`]
//! (128 KiB, all of the chunk when it is smaller), compressed once per
//! candidate on one thread; for 4 MiB chunks that is about a third of the
//! chunk's bytes compressed again.

use crate::engine::constants::{filter, MAX_FILTERS, MAX_OVERHEAD};
use crate::engine::context::Context;
use crate::engine::error::Result;
use crate::engine::params::CParams;

/// Slices sampled per chunk.
pub const SAMPLE_SLICES: usize = 8;
/// Bytes per sampled slice, and the block size they are compressed with
/// (a multiple of every candidate type size).
pub const SLICE_BYTES: usize = 16 * 1024;

/// How much smaller (in percent) a filtered sample must be than the
/// unfiltered one for the filter to be chosen.
pub const NONE_MARGIN_PERCENT: usize = 2;

/// C-Blosc2's BYTEDELTA filter (a plugin registered by default in 3.x):
/// the difference of consecutive bytes of each shuffled stream.
pub const BYTEDELTA: u8 = 35;

/// A filter pipeline with the item size it works on.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Pipeline {
    /// The six filter slots of a chunk header, run first to last.
    pub filters: [u8; MAX_FILTERS],
    /// Each filter's meta byte.
    pub filters_meta: [u8; MAX_FILTERS],
    /// Item size in bytes.
    pub typesize: i32,
}

impl Pipeline {
    /// `filters` in the last slots, in order, as C-Blosc2's defaults put
    /// them.
    pub fn new(filters: &[u8], typesize: i32) -> Pipeline {
        let mut f = [filter::NOFILTER; MAX_FILTERS];
        f[MAX_FILTERS - filters.len()..].copy_from_slice(filters);
        Pipeline::from_slots(f, typesize)
    }

    /// The pipeline of these six slots at `typesize`. BYTEDELTA gets the
    /// type size as its meta: with meta 0 it would take the super-chunk's
    /// type size, which need not be the chunk's once chunks choose their
    /// own.
    pub fn from_slots(filters: [u8; MAX_FILTERS], typesize: i32) -> Pipeline {
        let mut filters_meta = [0u8; MAX_FILTERS];
        for (m, &f) in filters_meta.iter_mut().zip(&filters) {
            if f == BYTEDELTA {
                *m = u8::try_from(typesize).unwrap_or(0);
            }
        }
        Pipeline {
            filters,
            filters_meta,
            typesize,
        }
    }

    /// No filter: every slot empty.
    pub fn is_none(&self) -> bool {
        self.filters.iter().all(|&f| f == filter::NOFILTER)
    }

    /// `none`, `shuffle/8`, `delta,shuffle/4`...
    pub fn name(&self) -> String {
        name(&self.filters, self.typesize)
    }

    /// This pipeline in `cparams` (filters, their meta, type size).
    pub fn apply(&self, cparams: &mut CParams) {
        cparams.filters = self.filters;
        cparams.filters_meta = self.filters_meta;
        cparams.typesize = self.typesize;
    }
}

/// The name of a filter pipeline as it stands in a chunk header (filter
/// slots and type size): `none`, `shuffle/8`, `delta,shuffle/4`.
pub fn name(slots: &[u8], typesize: i32) -> String {
    let names: Vec<&str> = slots
        .iter()
        .filter(|&&f| f != filter::NOFILTER)
        .map(|&f| match f {
            filter::SHUFFLE => "shuffle",
            filter::BITSHUFFLE => "bitshuffle",
            filter::DELTA => "delta",
            filter::TRUNC_PREC => "trunc_prec",
            BYTEDELTA => "bytedelta",
            crate::engine::plugins::ids::FILTER_INT_TRUNC => "int_trunc",
            _ => "filter?",
        })
        .collect();
    if names.is_empty() {
        "none".to_string()
    } else {
        format!("{}/{typesize}", names.join(","))
    }
}

/// Every pipeline [`choose`] considers, cheapest first (ties keep the
/// earlier one): no filter; shuffle and bitshuffle at type sizes 1 to 8;
/// delta then shuffle, for integer sequences; shuffle then bytedelta,
/// for floats.
pub fn candidates() -> Vec<Pipeline> {
    let mut v = vec![Pipeline::new(&[], 1)];
    for (filters, sizes) in [
        (&[filter::SHUFFLE][..], &[2, 4, 8][..]),
        (&[filter::BITSHUFFLE], &[1, 2, 4, 8]),
        (&[filter::DELTA, filter::SHUFFLE], &[2, 4, 8]),
        (&[filter::SHUFFLE, BYTEDELTA], &[2, 4, 8]),
    ] {
        v.extend(sizes.iter().map(|&ts| Pipeline::new(filters, ts)));
    }
    v
}

/// The bytes [`choose`] compresses: all of `src` when it is at most
/// `SAMPLE_SLICES * SLICE_BYTES`, else that many slices of `SLICE_BYTES`
/// at evenly spaced, 8-byte-aligned offsets.
pub fn sample(src: &[u8]) -> Vec<u8> {
    if src.len() <= SAMPLE_SLICES * SLICE_BYTES {
        return src.to_vec();
    }
    let span = src.len() - SLICE_BYTES;
    let mut out = Vec::with_capacity(SAMPLE_SLICES * SLICE_BYTES);
    for i in 0..SAMPLE_SLICES {
        let start = (span * i / (SAMPLE_SLICES - 1)) & !7;
        out.extend_from_slice(&src[start..start + SLICE_BYTES]);
    }
    out
}

/// The candidate whose compressed sample is smallest at `base`'s codec and
/// level (its blocksize and threads are not used), with that size.
/// Candidates the engine cannot run are skipped; `None` if none ran.
pub fn choose(src: &[u8], base: &CParams, candidates: &[Pipeline]) -> Result<Option<(Pipeline, usize)>> {
    let sample = sample(src);
    let mut ctx = Context::compressor(CParams {
        nthreads: 1,
        blocksize: SLICE_BYTES as i32,
        ..base.clone()
    });
    let mut dest = vec![0u8; sample.len() + MAX_OVERHEAD];
    let mut best: Option<(Pipeline, usize)> = None;
    let mut unfiltered: Option<(Pipeline, usize)> = None;
    for p in candidates {
        p.apply(&mut ctx.cparams);
        let Ok(n) = ctx.compress(&sample, &mut dest) else {
            continue;
        };
        if n == 0 {
            continue;
        }
        if p.is_none() && unfiltered.is_none() {
            unfiltered = Some((*p, n));
        }
        if best.is_none_or(|(_, b)| n < b) {
            best = Some((*p, n));
        }
    }
    // A filter must win clearly: the sample's fixed block size is not the
    // chunk's, and on mixed bytes (executables) a small gain on the sample
    // turned into a loss on the whole chunk.
    if let (Some((_, b)), Some(none)) = (best, unfiltered) {
        if b * (100 + NONE_MARGIN_PERCENT) / 100 >= none.1 {
            return Ok(Some(none));
        }
    }
    Ok(best)
}

#[cfg(test)]
mod tests;
