use super::*;
use crate::engine::constants::codec;

fn zstd5() -> CParams {
    CParams {
        compcode: codec::ZSTD,
        clevel: 5,
        typesize: 8,
        ..CParams::default()
    }
}

/// English-like text: words from a small vocabulary, pseudo-random order.
fn text(n: usize) -> Vec<u8> {
    let words = [
        "the ",
        "chunk ",
        "of ",
        "blosc ",
        "compresses ",
        "data ",
        "fast, ",
        "and ",
        "<p>",
        "</p>\n",
    ];
    let mut out = Vec::with_capacity(n + 16);
    let mut x: u32 = 12345;
    while out.len() < n {
        x = x.wrapping_mul(1_103_515_245).wrapping_add(12345);
        out.extend_from_slice(words[(x >> 16) as usize % words.len()].as_bytes());
    }
    out.truncate(n);
    out
}

fn float64_smooth(n: usize) -> Vec<u8> {
    (0..n / 8)
        .flat_map(|i| ((i as f64) * 0.001).sin().to_le_bytes())
        .collect()
}

fn float32_walk(n: usize) -> Vec<u8> {
    let mut x: u32 = 7;
    let mut v = 0f32;
    (0..n / 4)
        .flat_map(|_| {
            x = x.wrapping_mul(1_664_525).wrapping_add(1_013_904_223);
            v += ((x >> 8) as f32 / (1u32 << 24) as f32) - 0.5;
            v.to_le_bytes()
        })
        .collect()
}

fn int32_counts(n: usize) -> Vec<u8> {
    (0..n as i32 / 4)
        .flat_map(|i| (i * 3 + (i % 5)).to_le_bytes())
        .collect()
}

fn best(data: &[u8], only: impl Fn(&Pipeline) -> bool) -> (Pipeline, usize) {
    let c: Vec<Pipeline> = candidates().into_iter().filter(|p| only(p)).collect();
    choose(data, &zstd5(), &c).unwrap().expect("a candidate ran")
}

#[test]
fn text_gets_no_filter() {
    let (p, _) = best(&text(1 << 20), |_| true);
    assert_eq!(p.name(), "none");
}

#[test]
fn numbers_get_their_item_size() {
    for (data, typesize, what) in [
        (float64_smooth(1 << 20), 8, "float64"),
        (float32_walk(1 << 20), 4, "float32"),
        (int32_counts(1 << 20), 4, "int32"),
    ] {
        let (p, n) = best(&data, |_| true);
        assert_eq!(p.typesize, typesize, "{what}: {}", p.name());
        assert!(!p.is_none(), "{what}");
        // Better than no filter on the same sample.
        let (_, none) = best(&data, Pipeline::is_none);
        assert!(n < none, "{what}: {n} vs {none}");
    }
}

#[test]
fn bytedelta_is_a_candidate_that_runs() {
    // Floats whose high bytes change slowly: shuffle then bytedelta is
    // among the best, and it runs outside a super-chunk (meta = typesize).
    let data = float32_walk(1 << 20);
    let (p, n) = best(&data, |c| c.filters[5] == BYTEDELTA);
    assert_eq!(p.name(), "shuffle,bytedelta/4");
    let (_, none) = best(&data, Pipeline::is_none);
    assert!(n < none);
}

#[test]
fn restricted_choices() {
    let data = float64_smooth(1 << 20);
    let (p, _) = best(&data, |c| c.typesize == 4);
    assert_eq!(p.typesize, 4);
    let (p, _) = best(&data, |c| c.filters[5] == filter::BITSHUFFLE);
    assert_eq!(p.name(), "bitshuffle/8");
    assert_eq!(choose(&data, &zstd5(), &[]).unwrap(), None);
    // A filter the engine does not have is skipped.
    let unknown = Pipeline::new(&[250], 8);
    assert_eq!(choose(&data, &zstd5(), &[unknown]).unwrap(), None);
}

#[test]
fn samples() {
    let small = text(100_000);
    assert_eq!(sample(&small), small);
    let big = text(4 << 20);
    let s = sample(&big);
    assert_eq!(s.len(), SAMPLE_SLICES * SLICE_BYTES);
    assert_eq!(&s[..SLICE_BYTES], &big[..SLICE_BYTES]);
    assert_eq!(&s[s.len() - SLICE_BYTES..], &big[big.len() - SLICE_BYTES..]);
    // Tiny and empty inputs still choose.
    for n in [0, 1, 7, 100] {
        best(&text(n), |_| true);
    }
}

#[test]
fn names() {
    assert_eq!(name(&[0, 0, 0, 0, 3, 1], 4), "delta,shuffle/4");
    assert_eq!(name(&[0; 6], 8), "none");
    assert_eq!(
        Pipeline::new(&[filter::SHUFFLE, BYTEDELTA], 4).filters,
        [0, 0, 0, 0, 1, 35]
    );
    assert_eq!(
        Pipeline::new(&[filter::SHUFFLE, BYTEDELTA], 4).name(),
        "shuffle,bytedelta/4"
    );
}

#[test]
fn never_picks_a_lossy_filter() {
    use crate::engine::plugins::ids;
    // `--filter auto` must give the data back exactly: no TRUNC_PREC,
    // INT_TRUNC or NDMEAN among the pipelines it tries.
    let lossy = [filter::TRUNC_PREC, ids::FILTER_INT_TRUNC, ids::FILTER_NDMEAN];
    for p in candidates() {
        assert!(!p.filters.iter().any(|f| lossy.contains(f)), "{}", p.name());
    }
}
