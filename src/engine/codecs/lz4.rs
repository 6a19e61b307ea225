//! LZ4 block format: placeholder until the real codec lands.

/// Compress with LZ4 (fast); `acceleration` as in `LZ4_compress_fast`.
/// Returns 0 when the output does not fit.
pub fn compress(_acceleration: i32, _input: &[u8], _output: &mut [u8], _dict: Option<&[u8]>) -> usize {
    0
}

/// Decompress an LZ4 block; `None` when malformed or too large for `output`.
pub fn decompress(input: &[u8], output: &mut [u8], dict: Option<&[u8]>) -> Option<usize> {
    let r = match dict {
        Some(d) => lz4_flex::block::decompress_into_with_dict(input, output, d),
        None => lz4_flex::block::decompress_into(input, output),
    };
    r.ok()
}
