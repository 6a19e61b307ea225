//! Instrumented chunks (`instr_codec`, header flag 0x80), as 3.3.5 writes
//! them: every stream is replaced by one 16-byte `blosc2_instr` record
//! (compression ratio, codec speed, filter speed, run flag) behind a csize
//! word of 16, and the header claims 16 bytes per stream, so a plain
//! decompression (which skips the filters of such chunks) returns the
//! records one after the other.

use std::time::{Duration, Instant};

/// Size of one `blosc2_instr` record (three floats and four flag bytes).
pub const RECORD_LEN: usize = 16;

/// One stream's measurements.
pub(crate) struct Record {
    /// Stream bytes over stored bytes (the csize word included).
    pub cratio: f32,
    /// Stream bytes per second through the codec.
    pub cspeed: f32,
    /// Stream bytes per second through the filters of its block.
    pub filter_speed: f32,
    /// 1 when the stream was a run of one byte, 0 otherwise.
    pub run: bool,
}

impl Record {
    /// The record of a stream of `neblock` bytes stored in `stored` bytes
    /// (without the csize word), coded in `codec_time` after filters that
    /// took `filter_time` for its block. Speeds divide by the times as 3.3.5
    /// does, so a time of zero gives infinity.
    pub fn new(neblock: usize, stored: usize, codec_time: Duration, filter_time: Duration, run: bool) -> Record {
        let n = neblock as f32;
        Record {
            cratio: n / stored as f32,
            cspeed: n / codec_time.as_secs_f32(),
            filter_speed: n / filter_time.as_secs_f32(),
            run,
        }
    }

    /// The record's bytes in the machine's layout of `blosc2_instr`.
    pub fn to_bytes(&self) -> [u8; RECORD_LEN] {
        let mut b = [0u8; RECORD_LEN];
        b[0..4].copy_from_slice(&self.cratio.to_ne_bytes());
        b[4..8].copy_from_slice(&self.cspeed.to_ne_bytes());
        b[8..12].copy_from_slice(&self.filter_speed.to_ne_bytes());
        b[12] = u8::from(self.run);
        b
    }
}

/// Stored size of a run stream in a plain chunk: its csize word, plus
/// the token byte when the repeated byte is not zero.
pub(crate) fn run_stored_len(value: u8) -> usize {
    if value == 0 {
        4
    } else {
        5
    }
}

/// The header's `(nbytes, blocksize)` of an instrumented chunk with
/// `nstreams` streams in all: 16 bytes per stream, and a block of one
/// record per stream of a block.
pub(crate) fn header_sizes(nstreams: usize, split: bool, typesize: usize) -> (i32, i32) {
    let per_block = if split { RECORD_LEN * typesize } else { RECORD_LEN };
    ((nstreams * RECORD_LEN) as i32, per_block as i32)
}

/// A stopwatch for the stream being coded.
pub(crate) fn now() -> Instant {
    Instant::now()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn records_hold_the_ratio_speeds_and_run_flag() {
        let r = Record::new(1000, 250, Duration::from_millis(1), Duration::ZERO, true);
        let b = r.to_bytes();
        assert_eq!(f32::from_ne_bytes(b[0..4].try_into().unwrap()), 4.0);
        let cspeed = f32::from_ne_bytes(b[4..8].try_into().unwrap());
        assert!((cspeed - 1_000_000.0).abs() < 1.0, "{cspeed}");
        assert!(f32::from_ne_bytes(b[8..12].try_into().unwrap()).is_infinite());
        assert_eq!(&b[12..], &[1, 0, 0, 0]);
    }

    #[test]
    fn header_sizes_count_records() {
        assert_eq!(header_sizes(10, false, 4), (160, 16));
        assert_eq!(header_sizes(9, true, 4), (144, 64));
    }
}
