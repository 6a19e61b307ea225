//! LZ4 block codec (the `lz4` compressor of C-Blosc2; `lz4hc` shares the
//! block format and this decoder).
//!
//! Everything here is safe Rust written for this crate: a fast compressor
//! that honors LZ4's `acceleration` and a decoder for any LZ4 block. The
//! `lz4_flex` crate was measured first and set aside: its compressor has no
//! acceleration, insists on a worst-case-sized output buffer (C-Blosc2 hands
//! an output as long as the input), and panics on dictionaries over 64 KiB;
//! its safe decoder runs at half our speed on shuffled numeric data.
//!
//! Block format rules honored by the compressors (C's decoder enforces them):
//! the last 5 bytes are literals and no match starts in the last 12 bytes.

pub(crate) mod block;
mod choose;
mod decode;
mod decode_bare;
mod decode_fast;
mod fast;

pub use fast::FastTables;

/// Compress `input` as one LZ4 block into `output` (as C's
/// `LZ4_compress_fast`); C-Blosc2 passes `acceleration = 10 - clevel`.
///
/// `acceleration` (clamped to 1..=65537 like C) trades ratio for speed: the
/// search for a match steps `acceleration` bytes at first, one more every 64
/// misses. `dict`, when given, is a dictionary whose last 64 KiB serve as
/// the block's history (C's `LZ4_loadDict` + `LZ4_compress_fast_continue`):
/// decode with the same dictionary.
///
/// Returns the compressed size, or 0 when the block does not fit in
/// `output` (or the input exceeds LZ4's 2 113 929 216-byte limit).
pub fn compress(acceleration: i32, input: &[u8], output: &mut [u8], dict: Option<&[u8]>) -> usize {
    if input.len() > block::MAX_INPUT {
        return 0;
    }
    let acceleration = acceleration.clamp(1, 65_537) as u32;
    let (buf, start) = block::with_prefix(input, dict);
    fast::compress(&buf, start, acceleration, output)
}

/// [`compress`] with hash tables kept in `tables` from one call to the
/// next: the same bytes, without clearing a 16 KiB table per block (see
/// [`FastTables`]).
pub fn compress_reusing(
    tables: &mut FastTables,
    acceleration: i32,
    input: &[u8],
    output: &mut [u8],
    dict: Option<&[u8]>,
) -> usize {
    if input.len() > block::MAX_INPUT {
        return 0;
    }
    let acceleration = acceleration.clamp(1, 65_537) as u32;
    let (buf, start) = block::with_prefix(input, dict);
    fast::compress_reusing(tables, &buf, start, acceleration, output)
}

/// Decompress one LZ4 block (from either compressor, or C's LZ4/LZ4HC) into
/// `output`, with the dictionary it was compressed with, if any (as C's
/// `LZ4_decompress_safe` / `LZ4_decompress_safe_usingDict`).
///
/// Returns the decoded size; `None` when `input` is malformed or decodes to
/// more than `output.len()` bytes. Never panics on hostile input and runs in
/// time linear in the input and output sizes.
pub fn decompress(input: &[u8], output: &mut [u8], dict: Option<&[u8]>) -> Option<usize> {
    match dict {
        Some(d) if !d.is_empty() => decode::decode::<true>(input, output, d),
        _ => decode::decode::<false>(input, output, &[]),
    }
}

#[cfg(test)]
pub(crate) mod tests;
