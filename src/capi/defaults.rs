//! `BLOSC2_CPARAMS_DEFAULTS` and `BLOSC2_DPARAMS_DEFAULTS`: the C structs'
//! defaults, at the bottom of the C layer (the parameter conversions and
//! the plugin callbacks both start from them).

use std::ptr;

use crate::engine::constants::{codec, filter};

use super::types::{blosc2_cparams, blosc2_dparams};

/// `BLOSC2_CPARAMS_DEFAULTS`.
pub(crate) const CPARAMS_DEFAULTS: blosc2_cparams = blosc2_cparams {
    compcode: codec::BLOSCLZ,
    compcode_meta: 0,
    clevel: 5,
    use_dict: 0,
    typesize: 8,
    nthreads: 1,
    blocksize: 0,
    splitmode: crate::engine::constants::splitmode::FORWARD_COMPAT,
    schunk: ptr::null_mut(),
    filters: [0, 0, 0, 0, 0, filter::SHUFFLE],
    filters_meta: [0; 6],
    prefilter: None,
    preparams: ptr::null_mut(),
    tuner_params: ptr::null_mut(),
    tuner_id: 0,
    instr_codec: false,
    codec_params: ptr::null_mut(),
    filter_params: [ptr::null_mut(); 6],
};

/// `BLOSC2_DPARAMS_DEFAULTS`.
pub(crate) const DPARAMS_DEFAULTS: blosc2_dparams = blosc2_dparams {
    nthreads: 1,
    schunk: ptr::null_mut(),
    postfilter: None,
    postparams: ptr::null_mut(),
    typesize: 8,
};
