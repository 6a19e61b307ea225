//! The codecs and filters C-Blosc2 3.3.5 ships as plugins (BYTEDELTA,
//! INT_TRUNC, NDCELL, NDMEAN, NDLZ, ZFP), and the registry through which
//! users add their own.
//!
//! The b2nd-aware plugins (NDCELL, NDMEAN, NDLZ, ZFP) learn the block
//! geometry from the super-chunk's `b2nd` metalayer; each works on one
//! block: filters with `forward`/`backward(src, dst, meta, typesize, b2nd)`,
//! codecs with `compress`/`decompress(src, dst, meta, typesize, b2nd)`.

pub mod bytedelta;
pub mod int_trunc;
pub mod ndcell;
pub mod ndlz;
pub mod ndmean;
pub mod zfp;
