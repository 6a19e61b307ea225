//! CPU feature detection for the SIMD filter kernels, done once and cached.
//!
//! The filters ask [`has_sse2`] / [`has_avx2`] which instruction set to use.
//! The hardware is probed on first use (`std::is_x86_feature_detected!`) and
//! the result is kept in an atomic, so later queries are one relaxed load.
//! On targets other than x86 / x86_64 no feature is ever reported and the
//! scalar kernels run.
//!
//! [`set_feature_mask`] lets tests and benchmarks hide features so that the
//! lower paths run on a machine that has the higher ones. It only narrows
//! what the hardware offers: a masked-in feature the CPU lacks stays off.

use std::sync::atomic::{AtomicU32, Ordering};

/// SSE2 (128-bit integer SIMD).
pub const FEATURE_SSE2: u32 = 1 << 0;
/// AVX2 (256-bit integer SIMD).
pub const FEATURE_AVX2: u32 = 1 << 1;
/// Every feature this module knows about.
pub const FEATURE_ALL: u32 = FEATURE_SSE2 | FEATURE_AVX2;

/// Sentinel meaning "not probed yet" (never a valid feature set).
const UNPROBED: u32 = 1 << 31;

static DETECTED: AtomicU32 = AtomicU32::new(UNPROBED);
static MASK: AtomicU32 = AtomicU32::new(FEATURE_ALL);

#[cfg(any(target_arch = "x86", target_arch = "x86_64"))]
fn probe() -> u32 {
    let mut f = 0;
    if std::is_x86_feature_detected!("sse2") {
        f |= FEATURE_SSE2;
        // The AVX2 kernels use SSE2 ones for their tails, so AVX2 is only
        // reported together with SSE2 (always the case on real CPUs).
        if std::is_x86_feature_detected!("avx2") {
            f |= FEATURE_AVX2;
        }
    }
    f
}

#[cfg(not(any(target_arch = "x86", target_arch = "x86_64")))]
fn probe() -> u32 {
    0
}

/// Features the hardware (and OS) support, ignoring the mask.
#[inline]
pub fn detected_features() -> u32 {
    let d = DETECTED.load(Ordering::Relaxed);
    if d != UNPROBED {
        return d;
    }
    // Concurrent first calls all compute the same value, so a plain store is
    // enough.
    let f = probe();
    DETECTED.store(f, Ordering::Relaxed);
    f
}

/// Features the dispatchers may use: detected ones, narrowed by the mask.
#[inline]
pub fn features() -> u32 {
    detected_features() & MASK.load(Ordering::Relaxed)
}

/// True when the SSE2 kernels may be used.
#[inline]
pub fn has_sse2() -> bool {
    features() & FEATURE_SSE2 != 0
}

/// True when the AVX2 kernels may be used.
#[inline]
pub fn has_avx2() -> bool {
    features() & FEATURE_AVX2 != 0
}

/// True when the CPU supports SSE2, whatever the mask says. The safe
/// wrappers of the SSE2 kernels check this before running them.
#[inline]
pub fn hw_has_sse2() -> bool {
    detected_features() & FEATURE_SSE2 != 0
}

/// True when the CPU supports AVX2, whatever the mask says. The safe
/// wrappers of the AVX2 kernels check this before running them.
#[inline]
pub fn hw_has_avx2() -> bool {
    detected_features() & FEATURE_AVX2 != 0
}

/// For tests and benchmarks: restrict the features the dispatchers use to
/// `mask` (a combination of the `FEATURE_*` bits; [`FEATURE_ALL`] restores
/// the default, 0 forces the scalar code). Returns the previous mask.
///
/// The mask is process-wide. It never affects results, only which kernel
/// computes them.
pub fn set_feature_mask(mask: u32) -> u32 {
    MASK.swap(mask & FEATURE_ALL, Ordering::Relaxed)
}

/// The current feature mask (see [`set_feature_mask`]).
pub fn feature_mask() -> u32 {
    MASK.load(Ordering::Relaxed)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn mask_only_narrows() {
        let hw = detected_features();
        assert_eq!(hw & !FEATURE_ALL, 0);
        if hw & FEATURE_AVX2 != 0 {
            assert!(hw & FEATURE_SSE2 != 0);
        }
        assert_eq!(features() & !hw, 0);
        assert_eq!(hw_has_sse2(), hw & FEATURE_SSE2 != 0);
        assert_eq!(hw_has_avx2(), hw & FEATURE_AVX2 != 0);
        #[cfg(target_arch = "x86_64")]
        assert!(hw_has_sse2());
    }
}
