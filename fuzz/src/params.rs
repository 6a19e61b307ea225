//! Compression parameters drawn from fuzzer bytes, always inside the
//! ranges the C API documents (invalid parameters are chunk_decode's and
//! the unit tests' business, not the round trips').

use blosc2::capi::blosc2_cparams;
use blosc2::capi::misc::blosc2_get_blosc2_cparams_defaults;

use super::input::Input;

/// BLOSCLZ, LZ4, LZ4HC, ZLIB, ZSTD.
pub const CODECS: [u8; 5] = [0, 1, 2, 4, 5];
/// `BLOSC_TRUNC_PREC`: the one lossy filter.
pub const TRUNC_PREC: u8 = 4;
/// `BLOSC_DELTA`.
pub const DELTA: u8 = 3;

/// Drawn parameters and what the round trip may expect of them.
#[derive(Clone, Copy)]
pub struct Drawn {
    pub cparams: blosc2_cparams,
    /// The pipeline truncates precision: decoding gives other bytes.
    pub lossy: bool,
}

/// Parameters for data of `len` bytes.
pub fn draw(input: &mut Input, len: usize) -> Drawn {
    let mut cp = blosc2_get_blosc2_cparams_defaults();
    cp.compcode = input.pick(&CODECS);
    cp.clevel = input.byte() % 10;
    cp.typesize = match input.byte() % 8 {
        0 => 1,
        1 => 2,
        2 => 4,
        3 => 8,
        4 => 16,
        5 => 3,
        _ => i32::from(input.byte().max(1)),
    };
    cp.nthreads = i16::from(input.byte() % 3 + 1);
    cp.splitmode = i32::from(input.byte() % 4 + 1);
    cp.use_dict = i32::from(input.byte().is_multiple_of(4));
    cp.blocksize = match input.byte() % 4 {
        0 | 1 => 0,
        2 => input.below(len * 2 + 64) as i32,
        _ => 1 << (input.byte() % 18),
    };
    let nfilters = input.byte() % 4;
    cp.filters = [0; 6];
    cp.filters_meta = [0; 6];
    let mut lossy = false;
    for _ in 0..nfilters {
        let slot = input.below(6);
        let filter = input.pick(&[1u8, 1, 2, 3, 4]);
        cp.filters[slot] = filter;
        if filter == TRUNC_PREC {
            lossy = true;
            // Bits of mantissa kept: 1..=23 for 4-byte items, 1..=52 for 8.
            let bits = if cp.typesize == 8 { 52 } else { 23 };
            cp.filters_meta[slot] = 1 + input.byte() % bits;
        } else if filter == DELTA {
            cp.filters_meta[slot] = 0;
        }
    }
    Drawn { cparams: cp, lossy }
}
