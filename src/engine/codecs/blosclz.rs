//! BloscLZ: placeholder until the real codec lands.

/// Compress `input` into `output`; returns the compressed size, or 0 when the
/// data does not compress into `output` (the caller then stores it raw).
pub fn compress(_clevel: u8, _input: &[u8], _output: &mut [u8]) -> usize {
    0
}

/// Decompress `input` into `output`; returns the decoded size, or `None` when
/// the stream is malformed or does not fit.
pub fn decompress(_input: &[u8], _output: &mut [u8]) -> Option<usize> {
    None
}
