use super::*;
use crate::engine::plugins::ndcell::tests::{cases, meta_for};

/// A small generator (LCG), enough to vary inputs and corruptions.
struct Rng(u64);

impl Rng {
    fn below(&mut self, n: usize) -> usize {
        self.0 = self
            .0
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        ((self.0 >> 33) as usize) % n
    }
}

/// A block of repeated tiles and rows, so every token kind turns up.
fn patches(rng: &mut Rng, rows: usize, cols: usize, cell: usize) -> Vec<u8> {
    let pool: Vec<u8> = (0..cell * 8).map(|_| rng.below(256) as u8).collect();
    let mut v = vec![0u8; rows * cols];
    for r in 0..rows {
        for c in 0..cols {
            let (tr, tc) = (r / cell, c / cell);
            let kind = (tr * 7 + tc * 3) % 5;
            v[r * cols + c] = match kind {
                0 => 7,
                1 => pool[(r % cell) * cell + c % cell],
                2 => pool[((r + tr) % 6) * cell + c % cell],
                3 => pool[((r * 5 + tc) % 6) * cell + c % cell],
                _ => rng.below(256) as u8,
            };
        }
    }
    v
}

#[test]
fn compresses_as_the_reference() {
    for c in cases("ndlz") {
        let mut out = vec![0u8; c.input.len()];
        let n = compress(&c.input, &mut out, c.meta, 1, &c.b2nd).unwrap();
        let shape = &c.b2nd.blockshape;
        match c.output {
            Some(want) => {
                assert!(
                    out[..n] == want[..],
                    "compress {shape:?} meta {}: {n} vs {}",
                    c.meta,
                    want.len()
                );
                let mut back = vec![0u8; c.input.len()];
                assert_eq!(decompress(&want, &mut back, c.meta), Ok(back.len()));
                assert!(back == c.input, "decompress {shape:?} meta {}", c.meta);
            }
            // The reference stored the block as is.
            None => assert!(n == 0 || n >= c.input.len(), "{shape:?} meta {}: {n}", c.meta),
        }
    }
}

#[test]
fn round_trips_any_geometry() {
    let mut rng = Rng(11);
    for _ in 0..200 {
        let meta = if rng.below(2) == 0 { 4 } else { 8 };
        let rows = 1 + rng.below(70);
        let cols = 1 + rng.below(70);
        let src = patches(&mut rng, rows, cols, meta as usize);
        let m = meta_for(&[rows as i32, cols as i32]);
        let mut out = vec![0u8; src.len()];
        let n = compress(&src, &mut out, meta, 1, &m).unwrap();
        if n == 0 {
            continue;
        }
        let mut back = vec![0u8; src.len()];
        assert_eq!(decompress(&out[..n], &mut back, meta), Ok(src.len()));
        assert!(back == src, "{rows}x{cols} meta {meta}");
    }
}

#[test]
fn refuses_what_the_reference_refuses() {
    let src = vec![3u8; 256];
    let mut dst = vec![0u8; 256];
    let m = meta_for(&[16, 16]);
    assert!(compress(&src, &mut dst, 5, 1, &m).is_err());
    assert!(compress(&src, &mut dst, 0, 1, &m).is_err());
    assert!(compress(&src, &mut dst, 4, 1, &meta_for(&[4, 8, 8])).is_err());
    assert!(compress(&src, &mut dst, 4, 1, &meta_for(&[256])).is_err());
    assert!(compress(&src, &mut dst, 4, 1, &meta_for(&[16, 15])).is_err());
    assert!(compress(&src, &mut dst, 4, 1, &meta_for(&[-16, -16])).is_err());
    assert!(compress(&src, &mut dst[..8], 4, 1, &m).is_err());
    // Too small to bother: a block under one cell, an output under the
    // per-cell overhead.
    assert_eq!(compress(&src[..32], &mut dst, 8, 1, &meta_for(&[4, 8])), Ok(0));
    assert_eq!(compress(&src, &mut dst[..40], 4, 1, &m), Ok(0));
    // An output that fills up.
    let noise: Vec<u8> = (0..256u32).map(|i| (i * 97 % 251) as u8).collect();
    assert_eq!(compress(&noise, &mut dst[..60], 4, 1, &m), Ok(0));
    assert_eq!(compress(&noise, &mut dst, 4, 1, &m), Ok(0));

    let mut stream = vec![0u8; 256];
    let n = compress(&src, &mut stream, 4, 1, &m).unwrap();
    assert!(n > 0);
    let stream = &stream[..n];
    assert!(decompress(stream, &mut dst, 5).is_err());
    assert_eq!(decompress(&stream[..8], &mut dst, 4), Ok(0));
    assert_eq!(decompress(stream, &mut dst[..255], 4), Ok(0));
    let mut bad = stream.to_vec();
    bad[0] = 3;
    assert!(decompress(&bad, &mut dst, 4).is_err());
    bad[0] = 2;
    bad[4] = 0x80;
    assert!(decompress(&bad, &mut dst, 4).is_err());
    assert!(decompress(&stream[..n - 1], &mut dst, 4).is_err());
}

#[test]
fn corrupt_streams_give_errors_not_panics() {
    let mut rng = Rng(5);
    for round in 0..400 {
        let meta = if round % 2 == 0 { 4 } else { 8 };
        let (rows, cols) = (8 + rng.below(40), 8 + rng.below(40));
        let src = patches(&mut rng, rows, cols, meta as usize);
        let m = meta_for(&[rows as i32, cols as i32]);
        let mut out = vec![0u8; src.len()];
        let n = compress(&src, &mut out, meta, 1, &m).unwrap();
        let mut stream = if n > 0 {
            out[..n].to_vec()
        } else {
            out[..HEADER_LEN].to_vec()
        };
        for _ in 0..1 + rng.below(6) {
            match rng.below(4) {
                0 if stream.len() > 1 => {
                    let at = rng.below(stream.len());
                    stream[at] = rng.below(256) as u8;
                }
                1 => stream.truncate(rng.below(stream.len() + 1)),
                2 => stream.push(rng.below(256) as u8),
                _ => {
                    let at = HEADER_LEN.min(stream.len());
                    let tokens = [0u8, 64, 192, 40, 48, 56, 128, 136, 168, 175, 224, 255, 143];
                    stream.insert(at, tokens[rng.below(tokens.len())]);
                }
            }
        }
        let mut dst = vec![0u8; rng.below(src.len() + 64)];
        // Either decodes or refuses; what matters is no panic.
        let _ = decompress(&stream, &mut dst, meta);
        let garbage: Vec<u8> = (0..rng.below(300)).map(|_| rng.below(256) as u8).collect();
        let _ = decompress(&garbage, &mut dst, meta);
    }
}
