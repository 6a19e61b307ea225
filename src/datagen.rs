//! Deterministic test data, bit-exact with the conformance corpus'
//! `gen_data.py` (`tests/corpus/gen_data.py`).
//!
//! Every generator is driven by a [`SplitMix64`] PRNG (state = seed mod
//! 2^64) or by exact integer/IEEE-754 arithmetic, so the bytes are the same
//! on every platform. The conformance tests regenerate each corpus input
//! from its manifest `data` spec and check it against `input_sha256`; the
//! command-line tool and the benchmarks use the same generators for
//! built-in data sets.
//!
//! ```
//! use blosc2::datagen::{generate, DataSpec};
//! let data = generate(&DataSpec::Arange { size: 8, typesize: 2, start: 1, step: 3 });
//! assert_eq!(data, [1, 0, 4, 0, 7, 0, 10, 0]);
//! ```
//!
//! The Python generators raise on a zero divisor (`period`, `maxrun`,
//! `density`, `typesize`); here such a value is treated as 1, so
//! [`generate`] never fails and always returns exactly
//! [`DataSpec::size`] bytes.

/// The SplitMix64 PRNG (Steele, Lea, Flood 2014) used by every random
/// generator.
#[derive(Debug, Clone)]
pub struct SplitMix64 {
    state: u64,
}

impl SplitMix64 {
    /// A generator whose state is `seed` (Python: `seed mod 2^64`; pass a
    /// negative Python seed as its two's complement).
    pub fn new(seed: u64) -> Self {
        SplitMix64 { state: seed }
    }

    /// The next 64-bit output.
    #[allow(clippy::should_implement_trait)]
    pub fn next(&mut self) -> u64 {
        self.state = self.state.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.state;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }
}

/// The words of the `text` generator, in `gen_data.py`'s order. There are
/// 54 of them (the Python source and the corpus README say 64, but the
/// generator takes `rng % len(WORDS)`, i.e. modulo 54).
pub const WORDS: [&str; 54] = [
    "lorem",
    "ipsum",
    "dolor",
    "sit",
    "amet",
    "consectetur",
    "adipiscing",
    "elit",
    "sed",
    "do",
    "eiusmod",
    "tempor",
    "incididunt",
    "ut",
    "labore",
    "et",
    "dolore",
    "magna",
    "aliqua",
    "blosc",
    "chunk",
    "frame",
    "block",
    "shuffle",
    "bitshuffle",
    "delta",
    "codec",
    "zstd",
    "lz4",
    "zlib",
    "header",
    "trailer",
    "offset",
    "index",
    "metalayer",
    "compress",
    "decompress",
    "buffer",
    "typesize",
    "splitmode",
    "dictionary",
    "special",
    "value",
    "zero",
    "nan",
    "uninit",
    "repeat",
    "data",
    "stream",
    "rust",
    "python",
    "array",
    "shape",
    "dtype",
];

/// Parameters of the `smooth_f64` / `smooth_f32` generators: value `k` is
/// `((base + slope*k) + (amp*t)/period) + noise*u`, with `p = k % period`,
/// `t = p` if `2p < period` else `period - p`, and `u = (rng >> 11) * 2^-53`.
#[derive(Debug, Clone, PartialEq)]
pub struct Smooth {
    /// Output length in bytes.
    pub size: usize,
    /// PRNG seed (for the noise; the PRNG advances once per item either way).
    pub seed: u64,
    /// Offset of the ramp (Python default 0.0).
    pub base: f64,
    /// Slope of the ramp (default 0.001).
    pub slope: f64,
    /// Amplitude of the triangle wave (default 10.0).
    pub amp: f64,
    /// Period of the triangle wave, in items (default 1000; 0 counts as 1).
    pub period: u64,
    /// Amplitude of the uniform noise (default 0.0).
    pub noise: f64,
}

impl Smooth {
    /// The Python defaults for `size` bytes and seed 0.
    pub fn new(size: usize) -> Self {
        Smooth {
            size,
            seed: 0,
            base: 0.0,
            slope: 0.001,
            amp: 10.0,
            period: 1000,
            noise: 0.0,
        }
    }
}

/// A generator spec: the manifest's `data` object as a Rust value.
#[derive(Debug, Clone, PartialEq)]
pub enum DataSpec {
    /// `zeros`: all bytes 0.
    Zeros {
        /// Output length in bytes.
        size: usize,
    },
    /// `repeat`: `pattern` repeated and truncated (zeros if it is empty).
    Repeat {
        /// Output length in bytes.
        size: usize,
        /// The repeated bytes (`value_hex`).
        pattern: Vec<u8>,
    },
    /// `random`: SplitMix64 outputs as little-endian u64s.
    Random {
        /// Output length in bytes.
        size: usize,
        /// PRNG seed.
        seed: u64,
    },
    /// `arange`: item `k` is `(start + k*step) mod 2^(8*typesize)`, little-endian.
    Arange {
        /// Output length in bytes.
        size: usize,
        /// Item width in bytes (Python default 1; 0 counts as 1).
        typesize: usize,
        /// First item (default 0).
        start: i64,
        /// Increment (default 1).
        step: i64,
    },
    /// `text`: words of [`WORDS`] (picked by `r % 54`) separated by a space or
    /// (when `r % 12 == 0`) a newline.
    Text {
        /// Output length in bytes.
        size: usize,
        /// PRNG seed.
        seed: u64,
    },
    /// `runs`: runs of one byte value, each `1 + r % maxrun` long.
    Runs {
        /// Output length in bytes.
        size: usize,
        /// PRNG seed.
        seed: u64,
        /// Longest run (Python default 64; 0 counts as 1).
        maxrun: u64,
    },
    /// `sparse`: a byte is `(r >> 8) & 0xFF` when `r % density == 0`, else 0.
    Sparse {
        /// Output length in bytes.
        size: usize,
        /// PRNG seed.
        seed: u64,
        /// One byte in about `density` is non-zero (default 16; 0 counts as 1).
        density: u64,
    },
    /// `smooth_f64`: little-endian f64 of the smooth sequence.
    SmoothF64(Smooth),
    /// `smooth_f32`: little-endian f32 (rounded to nearest even) of the smooth sequence.
    SmoothF32(Smooth),
    /// `bool`: one byte per item, `r & 1`.
    Bool {
        /// Output length in bytes.
        size: usize,
        /// PRNG seed.
        seed: u64,
    },
    /// `concat`: the concatenation of the parts.
    Concat(Vec<DataSpec>),
}

impl DataSpec {
    /// Number of bytes [`generate`] returns for this spec.
    pub fn size(&self) -> usize {
        match self {
            DataSpec::Zeros { size }
            | DataSpec::Repeat { size, .. }
            | DataSpec::Random { size, .. }
            | DataSpec::Arange { size, .. }
            | DataSpec::Text { size, .. }
            | DataSpec::Runs { size, .. }
            | DataSpec::Sparse { size, .. }
            | DataSpec::Bool { size, .. } => *size,
            DataSpec::SmoothF64(s) | DataSpec::SmoothF32(s) => s.size,
            DataSpec::Concat(parts) => parts.iter().map(DataSpec::size).sum(),
        }
    }

    /// The generator's name in `gen_data.py` (the spec's `gen` field).
    pub fn name(&self) -> &'static str {
        match self {
            DataSpec::Zeros { .. } => "zeros",
            DataSpec::Repeat { .. } => "repeat",
            DataSpec::Random { .. } => "random",
            DataSpec::Arange { .. } => "arange",
            DataSpec::Text { .. } => "text",
            DataSpec::Runs { .. } => "runs",
            DataSpec::Sparse { .. } => "sparse",
            DataSpec::SmoothF64(_) => "smooth_f64",
            DataSpec::SmoothF32(_) => "smooth_f32",
            DataSpec::Bool { .. } => "bool",
            DataSpec::Concat(_) => "concat",
        }
    }
}

/// Generate the bytes of `spec`: exactly [`DataSpec::size`] bytes, equal to
/// `gen_data.generate(spec)` in Python.
pub fn generate(spec: &DataSpec) -> Vec<u8> {
    let mut out = Vec::with_capacity(spec.size());
    generate_into(spec, &mut out);
    out
}

/// Append the bytes of `spec` to `out`.
fn generate_into(spec: &DataSpec, out: &mut Vec<u8>) {
    let base = out.len();
    match spec {
        DataSpec::Zeros { size } => out.resize(base + size, 0),
        DataSpec::Repeat { size, pattern } => {
            if pattern.is_empty() {
                out.resize(base + size, 0);
            } else {
                out.extend(pattern.iter().copied().cycle().take(*size));
            }
        }
        DataSpec::Random { size, seed } => {
            let mut rng = SplitMix64::new(*seed);
            while out.len() - base < *size {
                let bytes = rng.next().to_le_bytes();
                let n = (size - (out.len() - base)).min(8);
                out.extend_from_slice(&bytes[..n]);
            }
        }
        DataSpec::Arange {
            size,
            typesize,
            start,
            step,
        } => arange(out, *size, (*typesize).max(1), *start, *step),
        DataSpec::Text { size, seed } => {
            let mut rng = SplitMix64::new(*seed);
            while out.len() - base < *size {
                let w = WORDS[(rng.next() % WORDS.len() as u64) as usize];
                let sep = if rng.next().is_multiple_of(12) { b'\n' } else { b' ' };
                out.extend_from_slice(w.as_bytes());
                out.push(sep);
            }
            out.truncate(base + size);
        }
        DataSpec::Runs { size, seed, maxrun } => {
            let mut rng = SplitMix64::new(*seed);
            let maxrun = (*maxrun).max(1);
            while out.len() - base < *size {
                let v = (rng.next() & 0xFF) as u8;
                let len = 1 + rng.next() % maxrun;
                let len = usize::try_from(len)
                    .unwrap_or(usize::MAX)
                    .min(size - (out.len() - base));
                out.resize(out.len() + len, v);
            }
        }
        DataSpec::Sparse { size, seed, density } => {
            let mut rng = SplitMix64::new(*seed);
            let density = (*density).max(1);
            out.extend((0..*size).map(|_| {
                let r = rng.next();
                if r.is_multiple_of(density) {
                    ((r >> 8) & 0xFF) as u8
                } else {
                    0
                }
            }));
        }
        DataSpec::SmoothF64(s) => {
            let n = s.size.div_ceil(8);
            smooth_values(s, n, |v| out.extend_from_slice(&v.to_le_bytes()));
            out.truncate(base + s.size);
        }
        DataSpec::SmoothF32(s) => {
            let n = s.size.div_ceil(4);
            smooth_values(s, n, |v| out.extend_from_slice(&(v as f32).to_le_bytes()));
            out.truncate(base + s.size);
        }
        DataSpec::Bool { size, seed } => {
            let mut rng = SplitMix64::new(*seed);
            out.extend((0..*size).map(|_| (rng.next() & 1) as u8));
        }
        DataSpec::Concat(parts) => {
            for p in parts {
                generate_into(p, out);
            }
        }
    }
}

/// Items `(start + k*step) mod 2^(8*typesize)`, little-endian, truncated to
/// `size` bytes. Computed in i128 (exact for any i64 start/step and any
/// realistic item count) and sign-extended for items wider than 16 bytes.
fn arange(out: &mut Vec<u8>, size: usize, typesize: usize, start: i64, step: i64) {
    let base = out.len();
    let mut k: i128 = 0;
    while out.len() - base < size {
        let v = i128::from(start).wrapping_add(k.wrapping_mul(i128::from(step)));
        let le = v.to_le_bytes();
        let fill = if v < 0 { 0xFF } else { 0 };
        let want = (size - (out.len() - base)).min(typesize);
        for i in 0..want {
            out.push(le.get(i).copied().unwrap_or(fill));
        }
        k += 1;
    }
}

/// Call `emit` with the first `n` values of the smooth sequence, evaluated
/// exactly as `gen_data._smooth_values` does (no fused operations).
fn smooth_values(s: &Smooth, n: usize, mut emit: impl FnMut(f64)) {
    let period = s.period.max(1);
    let mut rng = SplitMix64::new(s.seed);
    let two_pow_m53 = 1.0 / 9_007_199_254_740_992.0; // 2^-53, exact
    for k in 0..n as u64 {
        let p = k % period;
        let t = if 2 * u128::from(p) < u128::from(period) {
            p
        } else {
            period - p
        };
        let u = (rng.next() >> 11) as f64 * two_pow_m53;
        let mut v = s.base + s.slope * k as f64;
        v += (s.amp * t as f64) / period as f64;
        v += s.noise * u;
        emit(v);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn splitmix_reference_values() {
        // SplitMix64 with seed 0, as published with the algorithm.
        let mut r = SplitMix64::new(0);
        assert_eq!(r.next(), 0xE220_A839_7B1D_CDAF);
        assert_eq!(r.next(), 0x6E78_9E6A_A1B9_65F4);
    }

    #[test]
    fn sizes_are_exact() {
        let specs = [
            DataSpec::Zeros { size: 3 },
            DataSpec::Repeat {
                size: 5,
                pattern: vec![1, 2],
            },
            DataSpec::Repeat {
                size: 5,
                pattern: vec![],
            },
            DataSpec::Random { size: 13, seed: 1 },
            DataSpec::Arange {
                size: 7,
                typesize: 32,
                start: -1,
                step: 1,
            },
            DataSpec::Text { size: 9, seed: 2 },
            DataSpec::Runs {
                size: 11,
                seed: 3,
                maxrun: 0,
            },
            DataSpec::Sparse {
                size: 4,
                seed: 4,
                density: 0,
            },
            DataSpec::SmoothF64(Smooth::new(13)),
            DataSpec::SmoothF32(Smooth {
                period: 0,
                ..Smooth::new(7)
            }),
            DataSpec::Bool { size: 6, seed: 5 },
        ];
        for s in &specs {
            assert_eq!(generate(s).len(), s.size(), "{}", s.name());
        }
        let all = DataSpec::Concat(specs.to_vec());
        assert_eq!(generate(&all).len(), all.size());
    }

    #[test]
    fn arange_wraps_and_sign_extends() {
        let v = generate(&DataSpec::Arange {
            size: 4,
            typesize: 1,
            start: 254,
            step: 1,
        });
        assert_eq!(v, [254, 255, 0, 1]);
        let v = generate(&DataSpec::Arange {
            size: 20,
            typesize: 20,
            start: -1,
            step: 0,
        });
        assert_eq!(v, [0xFF; 20]);
    }
}
