//! BYTEDELTA's decoding kernel on SSE2: the running byte sum of a stream,
//! 16 bytes per step (a log-step prefix sum inside the vector, then the
//! previous vector's last byte added to all 16), as 3.3.5's SIMD build
//! does. [`super::bytedelta`]'s scalar loop is the safe twin the tests
//! compare it with; it carries one byte at a time (~2 GB/s).

#![allow(unsafe_code)]

#[cfg(target_arch = "x86_64")]
use core::arch::x86_64::*;

/// Running sum of `input` into `output` (same length) starting from
/// `prev`; returns the last sum. Bytes past the last whole 16 are summed
/// by `scalar`.
#[cfg(target_arch = "x86_64")]
pub fn undelta(input: &[u8], output: &mut [u8], prev: u8, scalar: fn(&[u8], &mut [u8], u8) -> u8) -> u8 {
    let n = input.len().min(output.len());
    let whole = n / 16 * 16;
    if whole == 0 {
        return scalar(&input[..n], &mut output[..n], prev);
    }
    // SAFETY: SSE2 is part of the x86_64 baseline. Every load reads 16
    // bytes of `input` at `i` and every store writes 16 bytes of `output`
    // at `i`, with `i + 16 <= whole <= n` for both slices.
    unsafe {
        let mut carry = _mm_set1_epi8(prev as i8);
        let mut i = 0;
        while i < whole {
            let mut v = _mm_loadu_si128(input.as_ptr().add(i).cast());
            v = _mm_add_epi8(v, _mm_slli_si128(v, 1));
            v = _mm_add_epi8(v, _mm_slli_si128(v, 2));
            v = _mm_add_epi8(v, _mm_slli_si128(v, 4));
            v = _mm_add_epi8(v, _mm_slli_si128(v, 8));
            v = _mm_add_epi8(v, carry);
            _mm_storeu_si128(output.as_mut_ptr().add(i).cast(), v);
            // Byte 15 to every lane: bytes 8-15 doubled, then 12-15
            // quadrupled, then the last dword everywhere.
            let hi = _mm_unpackhi_epi8(v, v);
            let hi = _mm_unpackhi_epi16(hi, hi);
            carry = _mm_shuffle_epi32(hi, 0xFF);
            i += 16;
        }
    }
    let last = output[whole - 1];
    scalar(&input[whole..n], &mut output[whole..n], last)
}

/// Other targets: the scalar loop.
#[cfg(not(target_arch = "x86_64"))]
pub fn undelta(input: &[u8], output: &mut [u8], prev: u8, scalar: fn(&[u8], &mut [u8], u8) -> u8) -> u8 {
    scalar(input, output, prev)
}
