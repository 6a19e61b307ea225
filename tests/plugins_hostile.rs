//! Hostile plugin chunks through the engine: corrupt streams, wrong metas,
//! missing or lying `b2nd` metalayers and cells that do not fit the block
//! give an error, never a crash or a wrong-sized block, for every plugin
//! that reads the block geometry (NDCELL, NDMEAN, NDLZ, ZFP; NDLZ's
//! decoder, like 3.3.5's, reads its stream's shape instead). Also: the
//! b2nd-aware decoders take the super-chunk's typesize, as 3.3.5's read
//! `schunk->typesize` (a chunk written at another typesize is refused).

use blosc2::engine::b2nd::meta::serialize_meta;
use blosc2::engine::constants::{codec, splitmode, MAX_FILTERS, MAX_OVERHEAD};
use blosc2::engine::context::Context;
use blosc2::engine::params::{CParams, DParams};
use blosc2::engine::plugins::{ids, PluginEnv};

/// Byte offsets in a chunk's extended header.
const COMPCODE_META: usize = 23;
const FILTERS_META: usize = 24;
const HEADER: usize = 32;

/// A super-chunk, as plugins see it, whose `b2nd` metalayer has this
/// block (and chunk) shape.
fn env(blockshape: &[i32], typesize: i32) -> PluginEnv {
    let shape: Vec<i64> = blockshape.iter().map(|&b| i64::from(b)).collect();
    let meta = serialize_meta(&shape, blockshape, blockshape, None, 0).unwrap();
    PluginEnv::of_schunk(&[("b2nd".to_string(), meta)], typesize, None)
}

/// One plugin set-up: parameters and the block geometry they need.
struct Case {
    name: &'static str,
    compcode: u8,
    compcode_meta: u8,
    filter: Option<(u8, u8)>,
    typesize: i32,
    blockshape: &'static [i32],
    lossless: bool,
}

const CASES: &[Case] = &[
    Case {
        name: "ndcell",
        compcode: codec::ZSTD,
        compcode_meta: 0,
        filter: Some((ids::FILTER_NDCELL, 4)),
        typesize: 4,
        blockshape: &[16, 16],
        lossless: true,
    },
    Case {
        name: "ndmean",
        compcode: codec::LZ4,
        compcode_meta: 0,
        filter: Some((ids::FILTER_NDMEAN, 4)),
        typesize: 4,
        blockshape: &[16, 16],
        lossless: false,
    },
    Case {
        name: "ndlz4",
        compcode: ids::CODEC_NDLZ,
        compcode_meta: 4,
        filter: None,
        typesize: 1,
        blockshape: &[32, 32],
        lossless: true,
    },
    Case {
        name: "ndlz8",
        compcode: ids::CODEC_NDLZ,
        compcode_meta: 8,
        filter: None,
        typesize: 1,
        blockshape: &[32, 32],
        lossless: true,
    },
    Case {
        name: "zfp-acc",
        compcode: ids::CODEC_ZFP_FIXED_ACCURACY,
        compcode_meta: (-4i8) as u8,
        filter: None,
        typesize: 4,
        blockshape: &[16, 16],
        lossless: false,
    },
    Case {
        name: "zfp-prec",
        compcode: ids::CODEC_ZFP_FIXED_PRECISION,
        compcode_meta: 12,
        filter: None,
        typesize: 8,
        blockshape: &[8, 8, 4],
        lossless: false,
    },
    Case {
        name: "zfp-rate",
        compcode: ids::CODEC_ZFP_FIXED_RATE,
        compcode_meta: 40,
        filter: None,
        typesize: 4,
        blockshape: &[64],
        lossless: false,
    },
];

impl Case {
    fn block_bytes(&self) -> usize {
        self.blockshape.iter().product::<i32>() as usize * self.typesize as usize
    }

    fn cparams(&self, env: PluginEnv) -> CParams {
        let mut filters = [0u8; MAX_FILTERS];
        let mut filters_meta = [0u8; MAX_FILTERS];
        if let Some((f, m)) = self.filter {
            filters[MAX_FILTERS - 1] = f;
            filters_meta[MAX_FILTERS - 1] = m;
        }
        CParams {
            compcode: self.compcode,
            compcode_meta: self.compcode_meta,
            typesize: self.typesize,
            blocksize: self.block_bytes() as i32,
            splitmode: splitmode::NEVER,
            filters,
            filters_meta,
            plugins: env,
            ..CParams::default()
        }
    }

    /// Two blocks of smooth data (compressible by every plugin, so that
    /// no block is stored as is).
    fn data(&self) -> Vec<u8> {
        let n = 2 * self.block_bytes() / self.typesize as usize;
        match self.typesize {
            1 => (0..n).map(|i| ((i / 64) % 7) as u8).collect(),
            4 => (0..n)
                .flat_map(|i| ((i as f32 / 40.0).sin() * 10.0).to_le_bytes())
                .collect(),
            _ => (0..n)
                .flat_map(|i| ((i as f64 / 40.0).sin() * 10.0).to_le_bytes())
                .collect(),
        }
    }

    fn good_env(&self) -> PluginEnv {
        env(self.blockshape, self.typesize)
    }
}

fn compress(cp: CParams, src: &[u8]) -> blosc2::Result<Vec<u8>> {
    let mut out = vec![0u8; src.len() + MAX_OVERHEAD];
    let n = Context::compressor(cp).compress(src, &mut out)?;
    out.truncate(n);
    Ok(out)
}

/// Decode `chunk` in a super-chunk seen as `env`; the output must be whole.
fn decode(chunk: &[u8], env: &PluginEnv, nbytes: usize) -> blosc2::Result<Vec<u8>> {
    let mut ctx = Context::decompressor(DParams {
        plugins: env.clone(),
        ..DParams::default()
    });
    let mut out = vec![0u8; nbytes];
    let n = ctx.decompress(chunk, &mut out)?;
    assert_eq!(n, nbytes, "a decode that succeeds fills the output");
    Ok(out)
}

/// The chunk of each case, checked to decode with the right geometry.
fn good_chunk(c: &Case) -> (Vec<u8>, Vec<u8>) {
    let src = c.data();
    let chunk = compress(c.cparams(c.good_env()), &src).unwrap_or_else(|e| panic!("{}: {e}", c.name));
    assert!(
        chunk.len() < src.len(),
        "{}: stored as is, the plugin did not run",
        c.name
    );
    let back = decode(&chunk, &c.good_env(), src.len()).unwrap_or_else(|e| panic!("{}: {e}", c.name));
    if c.lossless {
        assert!(back == src, "{}: round trip", c.name);
    }
    (src, chunk)
}

#[test]
fn missing_or_lying_b2nd_metalayers_are_refused() {
    for c in CASES {
        let (src, chunk) = good_chunk(c);
        let n = src.len();
        if c.compcode == ids::CODEC_NDLZ {
            // 3.3.5's NDLZ decoder reads the block shape from its stream
            // and no metalayer: its chunks decode anywhere.
            let back = decode(&chunk, &PluginEnv::default(), n).unwrap();
            assert!(back == src);
            assert!(decode(&chunk, &env(&[1], 1), n).unwrap() == src);
            continue;
        }
        assert!(
            decode(&chunk, &PluginEnv::default(), n).is_err(),
            "{}: no super-chunk",
            c.name
        );
        let no_b2nd = PluginEnv::of_schunk(&[], c.typesize, None);
        assert!(decode(&chunk, &no_b2nd, n).is_err(), "{}: no b2nd metalayer", c.name);
        let garbage = PluginEnv::of_schunk(&[("b2nd".into(), vec![0x97, 0, 2, 0x92])], c.typesize, None);
        assert!(decode(&chunk, &garbage, n).is_err(), "{}: truncated metalayer", c.name);
        let bigger: Vec<i32> = c.blockshape.iter().map(|&b| b * 2).collect();
        let smaller: Vec<i32> = c.blockshape.iter().map(|&b| (b / 2).max(1)).collect();
        let negative: Vec<i32> = c.blockshape.iter().map(|&b| -b).collect();
        let huge = vec![i32::MAX; c.blockshape.len()];
        let mut wrapping = c.blockshape.to_vec();
        // A dimension whose product with the others wraps a 32-bit size
        // back onto the block's.
        wrapping.insert(0, 1 << 16);
        if c.compcode == ids::CODEC_ZFP_FIXED_ACCURACY
            || c.compcode == ids::CODEC_ZFP_FIXED_PRECISION
            || c.compcode == ids::CODEC_ZFP_FIXED_RATE
        {
            // A smaller block fits the output: 3.3.5's ZFP decodes that
            // many values and returns the block size, and so do we.
            let _ = decode(&chunk, &env(&smaller, c.typesize), n);
        } else {
            assert!(
                decode(&chunk, &env(&smaller, c.typesize), n).is_err(),
                "{}: smaller",
                c.name
            );
        }
        let lies: [&[i32]; 6] = [&bigger, &negative, &huge, &wrapping, &[], &[1; 9]];
        for lie in lies {
            assert!(
                decode(&chunk, &env(lie, c.typesize), n).is_err(),
                "{}: lying blockshape {lie:?}",
                c.name
            );
        }
    }
}

#[test]
fn wrong_metas_are_refused() {
    for c in CASES {
        let (src, chunk) = good_chunk(c);
        let n = src.len();
        let metas: &[u8] = match (c.filter, c.compcode) {
            // Cell edge 0, a cell larger than the 16x16 block.
            (Some((ids::FILTER_NDCELL, _)), _) => &[0, 17, 255],
            // Cell edge 0, an edge that is negative as an int8.
            (Some((ids::FILTER_NDMEAN, _)), _) => &[0, 128, 200],
            // NDLZ has cells of 4 or 8 only.
            (None, ids::CODEC_NDLZ) => &[0, 5, 16],
            _ => &[],
        };
        let at = if c.filter.is_some() {
            FILTERS_META + MAX_FILTERS - 1
        } else {
            COMPCODE_META
        };
        for &m in metas {
            let mut bad = chunk.clone();
            bad[at] = m;
            assert!(decode(&bad, &c.good_env(), n).is_err(), "{}: meta {m}", c.name);
        }
    }
}

#[test]
fn corrupt_streams_never_crash() {
    let mut seed = 0x2545_F491_4F6C_DD1Du64;
    let mut rnd = move |n: usize| {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        (seed % n as u64) as usize
    };
    for c in CASES {
        let (src, chunk) = good_chunk(c);
        let n = src.len();
        for _ in 0..200 {
            let mut bad = chunk.clone();
            for _ in 0..1 + rnd(4) {
                let at = HEADER + rnd(bad.len() - HEADER);
                bad[at] ^= 1 << rnd(8);
            }
            let _ = decode(&bad, &c.good_env(), n);
        }
        for cut in [HEADER, HEADER + 8, chunk.len() / 2, chunk.len() - 1] {
            assert!(
                decode(&chunk[..cut], &c.good_env(), n).is_err(),
                "{}: cut at {cut}",
                c.name
            );
        }
    }
}

#[test]
fn cells_that_do_not_fit_the_block_are_refused_when_compressing() {
    let f32s: Vec<u8> = (0..512).flat_map(|i| (i as f32).to_le_bytes()).collect();
    let cell = |filter: u8, meta: u8, typesize: i32, blockshape: &[i32]| CParams {
        compcode: codec::ZSTD,
        typesize,
        blocksize: f32s.len() as i32,
        filters: [0, 0, 0, 0, 0, filter],
        filters_meta: [0, 0, 0, 0, 0, meta],
        plugins: env(blockshape, typesize),
        ..CParams::default()
    };
    // NDCELL: cells of 23x23 (529 items) in a 16x32 block (512), edge 0.
    // (3.3.5 takes cells larger than a block dimension, clipped, as long
    // as the cell holds no more items than the block.)
    assert!(compress(cell(ids::FILTER_NDCELL, 23, 4, &[16, 32]), &f32s).is_err());
    assert!(compress(cell(ids::FILTER_NDCELL, 17, 4, &[16, 32]), &f32s).is_ok());
    assert!(compress(cell(ids::FILTER_NDCELL, 0, 4, &[16, 32]), &f32s).is_err());
    // A geometry that is not the block's.
    assert!(compress(cell(ids::FILTER_NDCELL, 4, 4, &[16, 16]), &f32s).is_err());
    // NDMEAN on 2-byte items, edge 128.
    assert!(compress(cell(ids::FILTER_NDMEAN, 4, 2, &[32, 32]), &f32s).is_err());
    assert!(compress(cell(ids::FILTER_NDMEAN, 128, 4, &[16, 32]), &f32s).is_err());
    // NDLZ needs 2-D; ZFP blocks of at least 4 per dimension.
    let codec_case = |compcode: u8, meta: u8, typesize: i32, blockshape: &[i32]| CParams {
        compcode,
        compcode_meta: meta,
        typesize,
        blocksize: f32s.len() as i32,
        splitmode: splitmode::NEVER,
        filters: [0; MAX_FILTERS],
        plugins: env(blockshape, typesize),
        ..CParams::default()
    };
    assert!(compress(codec_case(ids::CODEC_NDLZ, 4, 1, &[8, 16, 16]), &f32s).is_err());
    assert!(compress(codec_case(ids::CODEC_NDLZ, 4, 1, &[64, 64]), &f32s).is_err());
    assert!(compress(codec_case(ids::CODEC_ZFP_FIXED_RATE, 50, 4, &[2, 2, 128]), &f32s).is_err());
}

#[test]
fn cell_filters_undo_with_the_super_chunks_typesize() {
    // A chunk written at typesize 4 in a super-chunk whose typesize is 2:
    // 3.3.5's NDCELL/NDMEAN/ZFP decoders use schunk->typesize, so the
    // block (16x16 items of 2 bytes = 512 bytes) is not the chunk's 1024.
    for c in CASES.iter().filter(|c| c.typesize == 4 && c.blockshape.len() == 2) {
        let (src, chunk) = good_chunk(c);
        let other = env(c.blockshape, 2);
        assert!(decode(&chunk, &other, src.len()).is_err(), "{}", c.name);
        // Outside a super-chunk the chunk's own typesize stands in.
        let same = env(c.blockshape, 4);
        assert!(decode(&chunk, &same, src.len()).is_ok(), "{}", c.name);
    }
}
