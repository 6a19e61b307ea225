//! Software prefetch: asking the CPU to bring bytes into cache before
//! they are read, where the hardware prefetchers cannot guess them.
//!
//! A b2nd block is gathered row by row from the caller's C-order buffer:
//! rows of a few hundred bytes, a buffer row apart (1 KiB for the bench's
//! 128-item rows of f64), so every fourth row starts a 4 KiB page the
//! hardware streamer has not seen and its load waits for memory. Rows a
//! few ahead are prefetched while the current one is shuffled.
//!
//! It is a hint: it reads nothing architecturally, never faults, and
//! changes no byte; on other targets it does nothing.

#![allow(unsafe_code)]

/// Bytes per cache line assumed (one prefetch each).
const LINE: usize = 64;

/// Prefetch `bytes[from..from + len]`, clipped to `bytes`, into all cache
/// levels.
#[inline]
pub fn prefetch_read(bytes: &[u8], from: usize, len: usize) {
    let Some(tail) = bytes.get(from..) else {
        return;
    };
    let span = &tail[..len.min(tail.len())];
    #[cfg(target_arch = "x86_64")]
    for at in (0..span.len()).step_by(LINE) {
        // SAFETY: `at < span.len()`, so the pointer is inside `span`, a
        // live borrow. A prefetch is a hint that reads nothing
        // architecturally and cannot fault; `prefetcht0` is SSE, part of
        // the x86_64 baseline.
        unsafe {
            use core::arch::x86_64::{_mm_prefetch, _MM_HINT_T0};
            _mm_prefetch::<_MM_HINT_T0>(span.as_ptr().add(at).cast());
        }
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = span;
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn any_range_is_a_no_op() {
        let v: Vec<u8> = (0..=255).collect();
        for (from, len) in [(0, 0), (0, 256), (200, 4096), (256, 1), (1 << 40, 8), (3, usize::MAX)] {
            prefetch_read(&v, from, len);
        }
        assert!(v.iter().enumerate().all(|(i, &b)| b == i as u8));
    }
}
