//! `blosc2 compress`'s chunk encoder: the filter pipeline and type size of
//! each chunk (fixed by the user, or chosen per chunk by
//! `blosc2::engine::pipeline_choice`), the compression, and the running
//! list of chunk checksums.

use std::collections::BTreeMap;

use blosc2::engine::constants::{filter, MAX_FILTERS, MAX_OVERHEAD};
use blosc2::engine::context::Context;
use blosc2::engine::error::Error;
use blosc2::engine::params::{CParams, DParams};
use blosc2::engine::pipeline_choice::{self, Pipeline};
use blosc2::engine::plugins::ids;

use crate::checksum;

/// The type sizes tried when `--typesize auto`.
const AUTO_TYPESIZES: [i32; 4] = [1, 2, 4, 8];

/// What the user asked for with `--filter`.
#[derive(Clone, Debug, PartialEq)]
pub enum FilterArg {
    /// Choose per chunk.
    Auto,
    /// These filter slots on every chunk, with the metas the user gave
    /// (0: the default, the type size for BYTEDELTA).
    Fixed([u8; MAX_FILTERS], [u8; MAX_FILTERS]),
}

/// The pipeline of `filters` at `typesize`, with the user's non-zero
/// metas (INT_TRUNC's bits) over the defaults.
fn fixed(filters: [u8; MAX_FILTERS], metas: [u8; MAX_FILTERS], typesize: i32) -> Pipeline {
    let mut p = Pipeline::from_slots(filters, typesize);
    for (slot, &m) in p.filters_meta.iter_mut().zip(&metas) {
        if m != 0 {
            *slot = m;
        }
    }
    p
}

/// The candidates for a `--filter` and `--typesize` (`None`: auto).
pub fn candidates(filters: &FilterArg, typesize: Option<i32>) -> Vec<Pipeline> {
    match (filters, typesize) {
        (FilterArg::Fixed(f, m), Some(ts)) => vec![fixed(*f, *m, ts)],
        (FilterArg::Fixed(f, m), None) => {
            if f.iter().all(|&x| x == filter::NOFILTER) {
                // The type size means nothing without filters.
                vec![fixed(*f, *m, 1)]
            } else {
                AUTO_TYPESIZES.iter().map(|&ts| fixed(*f, *m, ts)).collect()
            }
        }
        (FilterArg::Auto, None) => pipeline_choice::candidates(),
        (FilterArg::Auto, Some(ts)) => {
            let mut v = vec![Pipeline::new(&[], ts)];
            let mut seen = vec![];
            for p in pipeline_choice::candidates().into_iter().filter(|p| !p.is_none()) {
                if !seen.contains(&p.filters) {
                    seen.push(p.filters);
                    v.push(Pipeline::from_slots(p.filters, ts));
                }
            }
            v
        }
    }
}

/// Compresses chunk after chunk.
pub struct Encoder {
    ctx: Context,
    candidates: Vec<Pipeline>,
    /// How many chunks took each pipeline, by name (for the summary).
    pub chosen: BTreeMap<String, u64>,
    /// The checksum of each chunk so far, when kept.
    pub checksums: Option<Vec<u64>>,
    out: Vec<u8>,
    /// For lossy codecs and filters, the decoder whose output the
    /// checksums are taken of (what `verify` and `decompress` get back is
    /// not the input).
    lossy: Option<(Context, Vec<u8>)>,
}

/// Whether chunks compressed with `cparams` or any of `candidates` decode
/// to something else than their input.
fn is_lossy(cparams: &CParams, candidates: &[Pipeline]) -> bool {
    let lossy_filters = [filter::TRUNC_PREC, ids::FILTER_INT_TRUNC, ids::FILTER_NDMEAN];
    (ids::CODEC_ZFP_FIXED_ACCURACY..=ids::CODEC_ZFP_FIXED_RATE).contains(&cparams.compcode)
        || candidates
            .iter()
            .any(|p| p.filters.iter().any(|f| lossy_filters.contains(f)))
}

impl Encoder {
    /// An encoder at `base`'s codec, level, block size and threads.
    pub fn new(base: CParams, candidates: Vec<Pipeline>, checksums: bool) -> Encoder {
        let lossy = (checksums && is_lossy(&base, &candidates)).then(|| {
            let dparams = DParams {
                nthreads: base.nthreads,
                plugins: base.plugins.clone(),
                ..DParams::default()
            };
            (Context::decompressor(dparams), Vec::new())
        });
        Encoder {
            ctx: Context::compressor(base),
            candidates,
            chosen: BTreeMap::new(),
            checksums: checksums.then(Vec::new),
            out: Vec::new(),
            lossy,
        }
    }

    /// The compressed chunk for `src`.
    pub fn encode(&mut self, src: &[u8]) -> Result<&[u8], Error> {
        let pipeline = match &self.candidates[..] {
            [only] => *only,
            many => pipeline_choice::choose(src, &self.ctx.cparams, many)?.map_or(many[0], |(p, _)| p),
        };
        pipeline.apply(&mut self.ctx.cparams);
        let need = src.len() + MAX_OVERHEAD;
        self.out.resize(need, 0);
        let n = self.ctx.compress(src, &mut self.out)?;
        if n == 0 {
            return Err(Error::WriteBuffer);
        }
        *self.chosen.entry(pipeline.name()).or_default() += 1;
        if let Some(c) = &mut self.checksums {
            match &mut self.lossy {
                Some((dctx, decoded)) => {
                    decoded.resize(src.len(), 0);
                    dctx.decompress(&self.out[..n], decoded)?;
                    c.push(checksum::hash(decoded));
                }
                None => c.push(checksum::hash(src)),
            }
        }
        Ok(&self.out[..n])
    }

    /// The choices as `shuffle/8 (3 chunks), none (1 chunk)`, most used
    /// first.
    pub fn summary(&self) -> String {
        let mut v: Vec<(&String, &u64)> = self.chosen.iter().collect();
        v.sort_by(|a, b| b.1.cmp(a.1).then(a.0.cmp(b.0)));
        v.iter()
            .map(|(name, n)| format!("{name} ({n} chunk{})", if **n == 1 { "" } else { "s" }))
            .collect::<Vec<_>>()
            .join(", ")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn candidate_sets() {
        let shuffle = {
            let mut f = [0; MAX_FILTERS];
            f[5] = filter::SHUFFLE;
            f
        };
        assert_eq!(
            candidates(&FilterArg::Fixed(shuffle, [0; MAX_FILTERS]), Some(4)).len(),
            1
        );
        let ts: Vec<i32> = candidates(&FilterArg::Fixed(shuffle, [0; MAX_FILTERS]), None)
            .iter()
            .map(|p| p.typesize)
            .collect();
        assert_eq!(ts, AUTO_TYPESIZES);
        assert_eq!(
            candidates(&FilterArg::Fixed([0; MAX_FILTERS], [0; MAX_FILTERS]), None).len(),
            1
        );
        let auto = candidates(&FilterArg::Auto, None);
        assert!(auto.len() >= 10 && auto[0].is_none());
        let at4 = candidates(&FilterArg::Auto, Some(4));
        assert!(at4.iter().all(|p| p.typesize == 4));
        let mut names: Vec<String> = at4.iter().map(Pipeline::name).collect();
        names.dedup();
        assert_eq!(names.len(), at4.len(), "no pipeline twice: {names:?}");
    }

    #[test]
    fn summary_and_checksums() {
        let mut e = Encoder::new(CParams::default(), candidates(&FilterArg::Auto, None), true);
        let text = b"hello hello hello world ".repeat(1000);
        e.encode(&text).unwrap();
        e.encode(&text).unwrap();
        assert_eq!(e.summary(), "none (2 chunks)");
        assert_eq!(e.checksums.as_deref(), Some(&[checksum::hash(&text); 2][..]));
    }
}
