//! The benchmark's data sets, generated in-process from fixed seeds.

use blosc2::datagen::{generate, DataSpec, SplitMix64};

/// A named data set.
pub struct Dataset {
    /// Short name used in cell ids.
    pub name: &'static str,
    /// Item size handed to the filters.
    pub typesize: i32,
    /// The bytes.
    pub bytes: Vec<u8>,
}

const SEED: u64 = 0x005E_EDB1_05C2;

/// A uniform double in [0, 1).
fn unit(rng: &mut SplitMix64) -> f64 {
    (rng.next() >> 11) as f64 * (1.0 / (1u64 << 53) as f64)
}

/// Every data set, each `size` bytes (rounded down to a multiple of 8).
pub fn all(size: usize) -> Vec<Dataset> {
    let size = size / 8 * 8;
    let arange = generate(&DataSpec::Arange {
        size,
        typesize: 8,
        start: 0,
        step: 1,
    });
    let mut rng = SplitMix64::new(SEED);
    let smooth: Vec<u8> = (0..size / 8)
        .flat_map(|k| {
            let v = (k as f64 * 1e-3).sin() * 100.0 + (unit(&mut rng) - 0.5) * 1e-3;
            v.to_le_bytes()
        })
        .collect();
    let mut rng = SplitMix64::new(SEED + 1);
    let mut x = 0f32;
    let walk: Vec<u8> = (0..size / 4)
        .flat_map(|_| {
            x += (unit(&mut rng) as f32 - 0.5) * 0.1;
            x.to_le_bytes()
        })
        .collect();
    let random = generate(&DataSpec::Random { size, seed: SEED + 2 });
    let text = generate(&DataSpec::Text { size, seed: SEED + 3 });
    vec![
        Dataset {
            name: "i64-arange",
            typesize: 8,
            bytes: arange,
        },
        Dataset {
            name: "f64-smooth",
            typesize: 8,
            bytes: smooth,
        },
        Dataset {
            name: "f32-walk",
            typesize: 4,
            bytes: walk,
        },
        Dataset {
            name: "random",
            typesize: 1,
            bytes: random,
        },
        Dataset {
            name: "zeros",
            typesize: 8,
            bytes: vec![0u8; size],
        },
        Dataset {
            name: "text",
            typesize: 1,
            bytes: text,
        },
    ]
}
