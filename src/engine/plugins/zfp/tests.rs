//! The ZFP codecs against streams the reference C-Blosc2 3.3.5 wrote
//! (`testdata/`, made by `testdata/generate.py`), and against hostile input.

use super::*;
use std::path::PathBuf;

fn testdata(name: &str) -> Option<Vec<u8>> {
    let path: PathBuf = [env!("CARGO_MANIFEST_DIR"), "src/engine/plugins/zfp/testdata", name]
        .iter()
        .collect();
    std::fs::read(path).ok()
}

fn meta_for(blockshape: &[i32]) -> Meta {
    Meta {
        shape: blockshape.iter().map(|&d| i64::from(d)).collect(),
        chunkshape: blockshape.to_vec(),
        blockshape: blockshape.to_vec(),
        dtype: None,
        dtype_format: 0,
    }
}

struct Case {
    name: String,
    mode: Mode,
    meta: u8,
    typesize: usize,
    blockshape: Vec<i32>,
    input: Vec<u8>,
    /// The reference's stream; `None` when it declined.
    stream: Option<Vec<u8>>,
    decoded: Vec<u8>,
}

fn cases() -> Vec<Case> {
    let list = String::from_utf8(testdata("cases.txt").expect("cases.txt")).expect("utf-8");
    list.lines()
        .map(|line| {
            let f: Vec<&str> = line.split_whitespace().collect();
            let name = f[0].to_string();
            let mode = match f[1] {
                "acc" => Mode::Accuracy,
                "prec" => Mode::Precision,
                _ => Mode::Rate,
            };
            Case {
                mode,
                meta: f[2].parse().expect("meta"),
                typesize: if f[3] == "f4" { 4 } else { 8 },
                blockshape: f[4].split('x').map(|d| d.parse().expect("dim")).collect(),
                input: testdata(&format!("{name}.in")).expect("input"),
                stream: testdata(&format!("{name}.zfp")),
                decoded: testdata(&format!("{name}.out")).expect("output"),
                name,
            }
        })
        .collect()
}

#[test]
fn zfp_is_1_0_1() {
    assert!(
        version_string().starts_with("zfp version 1.0.1 "),
        "{}",
        version_string()
    );
}

#[test]
fn streams_are_the_references() {
    let cases = cases();
    assert_eq!(cases.len(), 18);
    for c in &cases {
        let b2nd = meta_for(&c.blockshape);
        let mut dst = vec![0u8; c.input.len() + 32];
        let n = compress(c.mode, &c.input, &mut dst, c.meta, c.typesize, &b2nd).expect(&c.name);
        match &c.stream {
            Some(stream) => assert_eq!(&dst[..n], &stream[..], "{}: stream", c.name),
            None => {
                assert_eq!(n, 0, "{}: declines", c.name);
                assert_eq!(c.decoded, c.input, "{}: stored as is", c.name);
            }
        }
    }
}

#[test]
fn decoded_values_are_the_references() {
    for c in cases() {
        let Some(stream) = &c.stream else { continue };
        let b2nd = meta_for(&c.blockshape);
        let mut out = vec![0u8; c.decoded.len()];
        let n = decompress(c.mode, stream, &mut out, c.meta, c.typesize, &b2nd).expect(&c.name);
        assert_eq!(n, out.len());
        assert_eq!(out, c.decoded, "{}: decoded", c.name);
    }
}

#[test]
fn unaligned_buffers_give_the_same_bytes() {
    for c in cases() {
        let Some(stream) = &c.stream else { continue };
        let b2nd = meta_for(&c.blockshape);
        // Input and output one byte off their alignment.
        let mut src = vec![0u8; c.input.len() + 1];
        src[1..].copy_from_slice(&c.input);
        let mut dst = vec![0u8; c.input.len() + 1];
        let n = compress(c.mode, &src[1..], &mut dst[1..], c.meta, c.typesize, &b2nd).expect(&c.name);
        assert_eq!(&dst[1..1 + n], &stream[..], "{}", c.name);
        let mut out = vec![0u8; c.decoded.len() + 1];
        decompress(c.mode, stream, &mut out[1..], c.meta, c.typesize, &b2nd).expect(&c.name);
        assert_eq!(&out[1..], &c.decoded[..], "{}", c.name);
    }
}

#[test]
fn encoder_refuses_what_the_reference_refuses() {
    let src = vec![0u8; 4 * 8 * 8];
    let mut dst = vec![0u8; src.len()];
    for mode in [Mode::Accuracy, Mode::Precision, Mode::Rate] {
        // A block dimension under 4.
        let small = meta_for(&[3, 8]);
        assert!(compress(mode, &src[..4 * 24], &mut dst, 0, 4, &small).is_err());
        // typesize 2 (float16): no zfp type.
        assert!(compress(mode, &src[..2 * 64], &mut dst, 0, 2, &meta_for(&[8, 8])).is_err());
        // 0 or 5 dimensions.
        assert!(compress(mode, &src[..4], &mut dst, 0, 4, &meta_for(&[])).is_err());
        assert!(compress(mode, &src, &mut dst, 0, 4, &meta_for(&[4, 4, 4, 4, 4])).is_err());
        // Not one whole block (a split stream): stored as is.
        assert_eq!(compress(mode, &src[..128], &mut dst, 0, 4, &meta_for(&[8, 8])), Ok(0));
    }
}

#[test]
fn encoder_declines_when_the_stream_does_not_fit() {
    let c = cases().into_iter().find(|c| c.name == "acc_f8_3d").expect("case");
    let stream = c.stream.as_ref().expect("stream");
    let b2nd = meta_for(&c.blockshape);
    let mut dst = vec![0u8; stream.len() - 1];
    assert_eq!(compress(c.mode, &c.input, &mut dst, c.meta, c.typesize, &b2nd), Ok(0));
    let mut dst = vec![0u8; stream.len()];
    assert_eq!(
        compress(c.mode, &c.input, &mut dst, c.meta, c.typesize, &b2nd),
        Ok(stream.len())
    );
}

#[test]
fn decoder_refuses_lying_geometry() {
    let stream = [0u8; 64];
    for mode in [Mode::Accuracy, Mode::Precision, Mode::Rate] {
        let mut out = vec![0u8; 4 * 64];
        // A blockshape bigger than the block buffer.
        assert!(decompress(mode, &stream, &mut out, 0, 4, &meta_for(&[8, 9])).is_err());
        assert!(decompress(mode, &stream, &mut out, 0, 4, &meta_for(&[i32::MAX, i32::MAX, 2, 2])).is_err());
        // Zero or negative dimensions, 0 or 5 dimensions, bad typesizes.
        assert!(decompress(mode, &stream, &mut out, 0, 4, &meta_for(&[0, 8])).is_err());
        assert!(decompress(mode, &stream, &mut out, 0, 4, &meta_for(&[-8, -8])).is_err());
        assert!(decompress(mode, &stream, &mut out, 0, 4, &meta_for(&[])).is_err());
        assert!(decompress(mode, &stream, &mut out, 0, 1, &meta_for(&[2, 2, 2, 2, 2])).is_err());
        assert!(decompress(mode, &stream, &mut out, 0, 0, &meta_for(&[8, 8])).is_err());
        assert!(decompress(mode, &stream, &mut out, 0, 2, &meta_for(&[8, 8])).is_err());
        // A block that fits decodes (zfp accepts blocks under 4 when reading).
        assert_eq!(
            decompress(mode, &stream, &mut out, 0, 4, &meta_for(&[8, 8])),
            Ok(out.len())
        );
        assert_eq!(
            decompress(mode, &stream, &mut out, 0, 4, &meta_for(&[3, 5])),
            Ok(out.len())
        );
    }
}

/// xorshift64*: a small deterministic generator for the fuzzing below.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }

    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
}

/// Random, truncated, bit-flipped and all-ones streams, with every mode
/// and many metas, on every geometry of the vectors: each call returns
/// (error or the block size), with nothing read or written outside the
/// buffers (zfp is handed only buffers sized by the decoder's bound).
#[test]
fn hostile_streams_never_escape_their_buffers() {
    let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
    for c in cases() {
        let b2nd = meta_for(&c.blockshape);
        let reference = c.stream.clone().unwrap_or_else(|| c.input.clone());
        let mut out = vec![0u8; c.decoded.len()];
        for round in 0..40 {
            let stream: Vec<u8> = match round % 5 {
                0 => (0..rng.below(reference.len() + 64)).map(|_| rng.next() as u8).collect(),
                1 => reference[..rng.below(reference.len() + 1)].to_vec(),
                2 => {
                    let mut s = reference.clone();
                    for _ in 0..1 + rng.below(8) {
                        let at = rng.below(s.len());
                        s[at] ^= 1 << rng.below(8);
                    }
                    s
                }
                3 => vec![0xff; rng.below(reference.len() + 64)],
                _ => Vec::new(),
            };
            let mode = [Mode::Accuracy, Mode::Precision, Mode::Rate][rng.below(3)];
            let meta = if round % 2 == 0 { c.meta } else { rng.next() as u8 };
            match decompress(mode, &stream, &mut out, meta, c.typesize, &b2nd) {
                Ok(n) => assert_eq!(n, out.len()),
                Err(e) => assert!(e.code() < 0),
            }
        }
    }
}

#[test]
fn big_block_round_trip_is_within_tolerance() {
    // 64x64 float64, accuracy 1e-3: zfp's error bound holds.
    let dims = [64i32, 64];
    let values: Vec<f64> = (0..64 * 64)
        .map(|i| ((i % 64) as f64 * 0.1).sin() * ((i / 64) as f64 * 0.05).cos())
        .collect();
    let src: Vec<u8> = values.iter().flat_map(|v| v.to_le_bytes()).collect();
    let b2nd = meta_for(&dims);
    let mut dst = vec![0u8; src.len()];
    let n = compress(Mode::Accuracy, &src, &mut dst, (-3i8) as u8, 8, &b2nd).expect("compress");
    assert!(n > 0 && n < src.len() / 2, "{n}");
    let mut out = vec![0u8; src.len()];
    decompress(Mode::Accuracy, &dst[..n], &mut out, (-3i8) as u8, 8, &b2nd).expect("decompress");
    for (a, b) in values.iter().zip(out.chunks_exact(8)) {
        let b = f64::from_le_bytes(b.try_into().expect("8 bytes"));
        assert!((a - b).abs() <= 1e-3, "{a} {b}");
    }
}
