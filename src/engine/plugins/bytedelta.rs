//! The BYTEDELTA filter (C-Blosc2 3.3.5, filter 35): the block is read as
//! `width` streams of `len / width` bytes (what SHUFFLE before it leaves),
//! and each byte is replaced by its difference from the byte before it in
//! its stream (the first from 0). Bytes past the last whole stream pass
//! unchanged.
//!
//! Filter 34 is the first version, which 3.3.5 still decodes: its SIMD
//! build delta-codes the first `16 * floor(L / 16)` bytes of each stream of
//! L bytes as filter 35 does, then restarts the tail from 0.

use super::PluginEnv;
use crate::engine::error::{Error, Result};

/// The stream width: `meta`, or the super-chunk's typesize when it is 0
/// (3.3.5 fails outside a super-chunk then).
pub fn width(meta: u8, env: &PluginEnv) -> Result<usize> {
    if meta != 0 {
        return Ok(usize::from(meta));
    }
    let ts = env
        .schunk_typesize
        .ok_or(Error::Failure("BYTEDELTA with meta 0 needs a super-chunk"))?;
    usize::try_from(ts)
        .ok()
        .filter(|&t| t > 0)
        .ok_or(Error::InvalidParam("typesize"))
}

/// Check the buffers and return the stream length.
fn stream_len(src: &[u8], dst: &[u8], width: usize) -> Result<usize> {
    if width == 0 || dst.len() < src.len() {
        return Err(Error::InvalidParam("BYTEDELTA buffers"));
    }
    Ok(src.len() / width)
}

/// Delta-code `input` into `output` (same length), starting from `prev`.
/// (Written as differences of neighbours, with no value carried from one
/// byte to the next, so that it compiles to vector code.)
fn delta(input: &[u8], output: &mut [u8], prev: u8) {
    let n = input.len().min(output.len());
    if n == 0 {
        return;
    }
    output[0] = input[0].wrapping_sub(prev);
    for ((o, &v), &before) in output[1..n].iter_mut().zip(&input[1..n]).zip(&input[..n - 1]) {
        *o = v.wrapping_sub(before);
    }
}

/// Undo [`delta`]: a running sum from `prev`, one byte at a time; returns
/// the last output byte. The safe twin of the SIMD kernel.
fn undelta_scalar(input: &[u8], output: &mut [u8], mut prev: u8) -> u8 {
    for (o, &v) in output.iter_mut().zip(input) {
        prev = prev.wrapping_add(v);
        *o = prev;
    }
    prev
}

/// Undo [`delta`] (the SIMD kernel where there is one).
fn undelta(input: &[u8], output: &mut [u8], prev: u8) -> u8 {
    super::bytedelta_sse2::undelta(input, output, prev, undelta_scalar)
}

/// Copy the bytes after the last whole stream.
fn pass_tail(src: &[u8], dst: &mut [u8], covered: usize) {
    dst[covered..src.len()].copy_from_slice(&src[covered..]);
}

/// Forward BYTEDELTA (filter 35) of one block.
pub fn forward(src: &[u8], dst: &mut [u8], width: usize) -> Result<()> {
    let n = stream_len(src, dst, width)?;
    if n > 0 {
        for (i, o) in src.chunks_exact(n).zip(dst.chunks_exact_mut(n)).take(width) {
            delta(i, o, 0);
        }
    }
    pass_tail(src, dst, n * width);
    Ok(())
}

/// Backward BYTEDELTA (filter 35) of one block.
pub fn backward(src: &[u8], dst: &mut [u8], width: usize) -> Result<()> {
    let n = stream_len(src, dst, width)?;
    if n > 0 {
        for (i, o) in src.chunks_exact(n).zip(dst.chunks_exact_mut(n)).take(width) {
            undelta(i, o, 0);
        }
    }
    pass_tail(src, dst, n * width);
    Ok(())
}

/// Forward of filter 34, as 3.3.5's SIMD build writes it: each stream's
/// tail (past its last 16-byte group) restarts from 0.
pub fn forward_buggy(src: &[u8], dst: &mut [u8], width: usize) -> Result<()> {
    let n = stream_len(src, dst, width)?;
    let head = n / 16 * 16;
    if n > 0 {
        for (i, o) in src.chunks_exact(n).zip(dst.chunks_exact_mut(n)).take(width) {
            delta(&i[..head], &mut o[..head], 0);
            delta(&i[head..], &mut o[head..], 0);
        }
    }
    pass_tail(src, dst, n * width);
    Ok(())
}

/// Backward of filter 34 (see [`forward_buggy`]).
pub fn backward_buggy(src: &[u8], dst: &mut [u8], width: usize) -> Result<()> {
    let n = stream_len(src, dst, width)?;
    let head = n / 16 * 16;
    if n > 0 {
        for (i, o) in src.chunks_exact(n).zip(dst.chunks_exact_mut(n)).take(width) {
            undelta(&i[..head], &mut o[..head], 0);
            undelta(&i[head..], &mut o[head..], 0);
        }
    }
    pass_tail(src, dst, n * width);
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trips_with_tails() {
        for len in [0usize, 1, 5, 16, 33, 100, 1000, 4099] {
            let src: Vec<u8> = (0..len).map(|i| (i * i % 251) as u8).collect();
            for w in [1usize, 2, 3, 4, 8, 16] {
                let mut enc = vec![0u8; len];
                let mut dec = vec![0u8; len];
                forward(&src, &mut enc, w).unwrap();
                backward(&enc, &mut dec, w).unwrap();
                assert_eq!(dec, src, "len {len} width {w}");
                forward_buggy(&src, &mut enc, w).unwrap();
                backward_buggy(&enc, &mut dec, w).unwrap();
                assert_eq!(dec, src, "buggy len {len} width {w}");
            }
        }
    }

    #[test]
    fn simd_running_sum_matches_the_scalar_one() {
        let mut x = 0x2545_F491_4F6C_DD1Du64;
        for len in [0usize, 1, 15, 16, 17, 31, 32, 33, 100, 257, 4096, 4111] {
            let src: Vec<u8> = (0..len)
                .map(|_| {
                    x ^= x << 13;
                    x ^= x >> 7;
                    x ^= x << 17;
                    x as u8
                })
                .collect();
            for prev in [0u8, 1, 200] {
                let (mut a, mut b) = (vec![0u8; len], vec![0u8; len]);
                let ra = undelta(&src, &mut a, prev);
                let rb = undelta_scalar(&src, &mut b, prev);
                assert_eq!((a, ra), (b, rb), "len {len} prev {prev}");
            }
        }
    }

    #[test]
    fn deltas_run_within_each_stream() {
        let src = [1u8, 3, 6, 10, 5, 5, 7, 0];
        let mut enc = [0u8; 8];
        forward(&src, &mut enc, 2).unwrap();
        assert_eq!(enc, [1, 2, 3, 4, 5, 0, 2, 0u8.wrapping_sub(7)]);
    }

    #[test]
    fn meta_zero_needs_a_super_chunk() {
        assert!(width(0, &PluginEnv::default()).is_err());
        let env = PluginEnv {
            schunk_typesize: Some(4),
            ..PluginEnv::default()
        };
        assert_eq!(width(0, &env).unwrap(), 4);
        assert_eq!(width(8, &PluginEnv::default()).unwrap(), 8);
    }
}
