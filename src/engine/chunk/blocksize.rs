//! Automatic block size and the split decision, as C-Blosc2 3.3.5's
//! `blosc_stune_next_blocksize` and `split_block` compute them.

use crate::engine::constants::{codec, splitmode, MIN_BUFFERSIZE};

/// Level-1 cache size assumed by the tuner.
const L1: i32 = 32 * 1024;
/// Largest number of streams a block is split into.
const MAX_STREAMS: i32 = 16;
/// Placeholder id of the OpenZL plugin codec, which never splits.
const CODEC_OPENZL: u8 = 38;

/// Should blocks of `blocksize` bytes be split into `typesize` streams?
pub fn split_block(mode: i32, compcode: u8, clevel: u8, has_shuffle: bool, typesize: i32, blocksize: i32) -> bool {
    match mode {
        splitmode::ALWAYS => return true,
        splitmode::NEVER => return false,
        _ => {}
    }
    if compcode == CODEC_OPENZL || typesize <= 0 {
        return false;
    }
    let fast_codec = compcode == codec::BLOSCLZ || compcode == codec::LZ4 || (compcode == codec::ZSTD && clevel <= 5);
    fast_codec && has_shuffle && typesize <= MAX_STREAMS && blocksize / typesize >= MIN_BUFFERSIZE as i32
}

/// High-compression-ratio codecs get larger blocks.
fn is_hcr(compcode: u8) -> bool {
    matches!(compcode, codec::LZ4HC | codec::ZLIB | codec::ZSTD)
}

/// The block size for a chunk of `nbytes`. `user_blocksize` 0 means
/// automatic. Unlike 3.3.5, a user block size is also rounded down to a
/// multiple of the typesize, so the header always records the block size
/// that was really used (see the corpus' known reference bug 1).
pub fn compute_blocksize(
    compcode: u8,
    clevel: u8,
    typesize: i32,
    nbytes: i32,
    user_blocksize: i32,
    split_mode: i32,
    has_shuffle: bool,
) -> i32 {
    if nbytes < typesize {
        return 1;
    }
    let split = split_block(split_mode, compcode, clevel, has_shuffle, typesize, nbytes);
    let mut bs = nbytes;
    if user_blocksize != 0 {
        bs = user_blocksize;
    } else {
        if nbytes >= L1 {
            bs = L1;
            if is_hcr(compcode) {
                bs *= 2;
            }
            bs = match clevel {
                0 => bs / 4,
                1 => bs / 2,
                2 => bs,
                3 => bs * 2,
                4 | 5 => bs * 4,
                6..=8 => bs * 8,
                _ => {
                    if is_hcr(compcode) {
                        bs * 16
                    } else {
                        bs * 8
                    }
                }
            };
        }
        if clevel > 0 && split {
            let per_item: i32 = match clevel {
                1..=3 => 32 * 1024,
                4..=6 => 64 * 1024,
                7 => 128 * 1024,
                8 => 256 * 1024,
                _ => 512 * 1024,
            };
            bs = per_item.saturating_mul(typesize).clamp(32 * 1024, 4 * 1024 * 1024);
        }
    }
    if bs > nbytes {
        bs = nbytes;
    }
    if bs > typesize {
        bs = bs / typesize * typesize;
    }
    bs.max(1)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn matches_measured_3_3_5_values() {
        // API.md 6.3: 4 MB of int32 with shuffle.
        let n = 4_000_000;
        let f = splitmode::FORWARD_COMPAT;
        assert_eq!(compute_blocksize(codec::BLOSCLZ, 1, 4, n, 0, f, true), 131072);
        assert_eq!(compute_blocksize(codec::BLOSCLZ, 5, 4, n, 0, f, true), 262144);
        assert_eq!(compute_blocksize(codec::LZ4, 9, 4, n, 0, f, true), 2097152);
        assert_eq!(compute_blocksize(codec::LZ4HC, 1, 4, n, 0, f, true), 32768);
        assert_eq!(compute_blocksize(codec::LZ4HC, 5, 4, n, 0, f, true), 262144);
        assert_eq!(compute_blocksize(codec::ZLIB, 9, 4, n, 0, f, true), 1048576);
        assert_eq!(compute_blocksize(codec::ZSTD, 1, 4, n, 0, f, true), 131072);
        assert_eq!(compute_blocksize(codec::ZSTD, 9, 4, n, 0, f, true), 1048576);
    }

    #[test]
    fn small_and_user_sizes() {
        let f = splitmode::FORWARD_COMPAT;
        assert_eq!(compute_blocksize(codec::BLOSCLZ, 5, 8, 4, 0, f, true), 1);
        assert_eq!(compute_blocksize(codec::BLOSCLZ, 5, 4, 1001, 2000, f, true), 1000);
        assert_eq!(compute_blocksize(codec::BLOSCLZ, 5, 4, 10_000, 1001, f, true), 1000);
    }
}
