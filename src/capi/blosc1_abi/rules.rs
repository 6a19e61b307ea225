//! How c-blosc 1.21 lays a buffer out in blocks: its automatic block size
//! (`compute_blocksize`) and its split decision (`split_block`), which
//! differ from C-Blosc2's (smaller blocks, a 128-byte minimum, no split for
//! zstd under FORWARD_COMPAT). The engine is then run with that block size
//! forced and the split decided, so chunks come out close to 1.21's.

use crate::engine::constants::{codec, splitmode};

/// `MIN_BUFFERSIZE` of c-blosc 1.21: smaller buffers are stored memcpyed,
/// and a split stream must hold at least this many bytes.
pub(crate) const MIN_BUFFERSIZE: i32 = 128;
/// `BLOSC_MAX_OVERHEAD`: the 16-byte header.
pub(crate) const MAX_OVERHEAD: i32 = 16;
/// `BLOSC_MAX_BUFFERSIZE`.
pub(crate) const MAX_BUFFERSIZE: i32 = i32::MAX - MAX_OVERHEAD;
/// `BLOSC_MAX_TYPESIZE`.
pub(crate) const MAX_TYPESIZE: i32 = 255;
/// `BLOSC_MAX_BLOCKSIZE`: (INT_MAX - 255 * 4) / 3.
pub(crate) const MAX_BLOCKSIZE: i32 = (i32::MAX - MAX_TYPESIZE * 4) / 3;
/// `BLOSC_MAX_THREADS`.
pub(crate) const MAX_THREADS: i32 = 256;
/// Streams a block may be split into at most (`MAX_SPLITS`).
const MAX_SPLITS: i32 = 16;
/// Level-1 cache size assumed by 1.21.
const L1: i32 = 32 * 1024;

/// High-compression-ratio codecs get larger blocks (`HCR`).
fn is_hcr(compcode: u8) -> bool {
    matches!(compcode, codec::LZ4HC | codec::ZLIB | codec::ZSTD)
}

/// Blocks of this size and typesize can be split in a way 1.21's decoder
/// agrees with: its `blosc_d` splits only under these conditions whatever
/// the header flag says.
fn splittable(typesize: i32, blocksize: i32) -> bool {
    typesize > 0 && typesize <= MAX_SPLITS && blocksize / typesize >= MIN_BUFFERSIZE
}

/// 1.21's `split_block`: should blocks be split into `typesize` streams?
/// Unlike 1.21, `ALWAYS` does not split blocks that its own decoder would
/// read unsplit (1.21 writes such chunks and then cannot read them).
pub(crate) fn split_block(mode: i32, compcode: u8, typesize: i32, blocksize: i32) -> bool {
    let can = splittable(typesize, blocksize);
    match mode {
        splitmode::ALWAYS => can,
        splitmode::AUTO => compcode == codec::BLOSCLZ && can,
        splitmode::FORWARD_COMPAT => compcode != codec::ZSTD && can,
        _ => false,
    }
}

/// Block size for `nbytes` bytes per 1.21's `compute_blocksize`;
/// `forced` is the block size asked for (0 = automatic). `typesize` must
/// already be capped to 255.
pub(crate) fn compute_blocksize(compcode: u8, clevel: i32, typesize: i32, nbytes: i32, forced: i32, mode: i32) -> i32 {
    if nbytes < typesize {
        return 1;
    }
    let mut bs = nbytes;
    if forced != 0 {
        bs = forced.clamp(MIN_BUFFERSIZE, MAX_BLOCKSIZE);
    } else if nbytes >= L1 {
        bs = if is_hcr(compcode) { 2 * L1 } else { L1 };
        bs = match clevel {
            0 => bs / 4,
            1 => bs / 2,
            2 => bs,
            3 => bs * 2,
            4 | 5 => bs * 4,
            6..=8 => bs * 8,
            _ if is_hcr(compcode) => bs * 16,
            _ => bs * 8,
        };
    }
    if clevel > 0 && split_block(mode, compcode, typesize, bs) {
        // Splitting codecs: at most 256 KB per stream, 64 KB to 1 MB per block.
        bs = bs.min(1 << 18).saturating_mul(typesize).clamp(1 << 16, 1 << 20);
    }
    bs = bs.min(nbytes);
    if bs > typesize {
        bs = bs / typesize * typesize;
    }
    bs
}

#[cfg(test)]
mod tests {
    use super::*;

    const FC: i32 = splitmode::FORWARD_COMPAT;

    #[test]
    fn blocksizes_as_in_1_21() {
        // Block sizes the system c-blosc 1.21.3 records for these calls.
        let n = 4_000_000;
        assert_eq!(compute_blocksize(codec::BLOSCLZ, 5, 4, n, 0, FC), 524_288);
        assert_eq!(compute_blocksize(codec::BLOSCLZ, 9, 8, n, 0, FC), 1 << 20);
        assert_eq!(compute_blocksize(codec::ZSTD, 5, 4, n, 0, FC), 262_144);
        assert_eq!(compute_blocksize(codec::ZSTD, 9, 4, n, 0, FC), 1 << 20);
        assert_eq!(compute_blocksize(codec::LZ4HC, 1, 4, n, 0, FC), 131_072);
        assert_eq!(compute_blocksize(codec::ZLIB, 3, 4, n, 0, FC), 524_288);
        assert_eq!(compute_blocksize(codec::BLOSCLZ, 5, 32, n, 0, FC), 131_072);
        assert_eq!(compute_blocksize(codec::BLOSCLZ, 5, 8, 1000, 0, FC), 1000);
        assert_eq!(compute_blocksize(codec::BLOSCLZ, 5, 8, 4, 0, FC), 1);
        assert_eq!(
            compute_blocksize(codec::BLOSCLZ, 5, 4, 10_000, 100, splitmode::NEVER),
            128
        );
        assert_eq!(
            compute_blocksize(codec::BLOSCLZ, 5, 3, 10_000, 1000, splitmode::NEVER),
            999
        );
    }

    #[test]
    fn split_only_where_1_21_reads_it_split() {
        assert!(split_block(FC, codec::LZ4, 4, 4096));
        assert!(!split_block(FC, codec::ZSTD, 4, 4096));
        assert!(!split_block(FC, codec::LZ4, 4, 256));
        assert!(!split_block(splitmode::ALWAYS, codec::LZ4, 17, 1 << 20));
        assert!(split_block(splitmode::ALWAYS, codec::ZSTD, 2, 1 << 20));
        assert!(!split_block(splitmode::AUTO, codec::LZ4, 2, 1 << 20));
        assert!(!split_block(splitmode::NEVER, codec::BLOSCLZ, 2, 1 << 20));
    }
}
