//! Which loop decodes a block: the decoder's choosers, in one place with
//! the numbers behind them.
//!
//! `decode_fast::run_plain` decodes any block. Two kinds of block go
//! faster in a loop of their own, and each chooser reads a few sequence
//! headers to recognise its kind:
//! - integer ramps and other short periods, matches 8 to 15 bytes back:
//!   `decode_fast::run_short_periods` ([`mostly_short_periods`]);
//! - text, nearly every sequence a short match without literals:
//!   `decode_bare::run_bare` ([`mostly_bare`]). Blocks with literals in
//!   more than a few sequences decode 25% slower there (binary code), so
//!   only a block that qualifies gets it.

use super::decode::read_len_ext;

/// Smallest output for which the decoder samples a block for the
/// short-period loop.
pub(super) const SHORT_PERIOD_MIN_OUTPUT: usize = 16 * 1024;

/// Sequences [`mostly_short_periods`] looks at.
const SHORT_PERIOD_SAMPLE: usize = 8;

/// Smallest output for which the decoder looks for a block of bare
/// matches.
pub(super) const BARE_MIN_OUTPUT: usize = 64 * 1024;

/// Output decoded with the plain loop before [`mostly_bare`] looks at a
/// block: its first sequences, without history to match, carry literals.
pub(super) const PROBE_AT: usize = 16 * 1024;

/// Sequences [`mostly_bare`] looks at.
const BARE_SAMPLE: usize = 32;

/// The parts of a sequence header the choosers look at.
struct Header {
    token: u8,
    /// Literal count.
    lit: usize,
    /// Match offset.
    offset: u16,
}

/// The header of the sequence at `src[*ip..]`, moving `ip` to the next
/// sequence; `None` at the block's end or on a malformed header. Reads
/// only headers, bounds-checked.
fn next_header(src: &[u8], ip: &mut usize) -> Option<Header> {
    let token = *src.get(*ip)?;
    *ip += 1;
    let mut lit = (token >> 4) as usize;
    if lit == 15 {
        lit = lit.saturating_add(read_len_ext(src, ip)?);
    }
    *ip = ip.saturating_add(lit);
    let b = src.get(*ip..ip.saturating_add(2))?;
    let offset = u16::from_le_bytes([b[0], b[1]]);
    *ip += 2;
    if token & 15 == 15 {
        read_len_ext(src, ip)?;
    }
    Some(Header { token, lit, offset })
}

/// Whether all but at most one of the first [`SHORT_PERIOD_SAMPLE`]
/// sequences of the block `src` have a match 8 to 15 bytes back. Stops at
/// the second miss, so that other blocks pay for two or three headers
/// only: the byte planes of shuffled data come in blocks of a few KiB,
/// where a longer sample (16 sequences, up to 5 misses) cost 8% of the
/// decoding time.
#[inline(never)]
pub(super) fn mostly_short_periods(src: &[u8]) -> bool {
    let mut ip = 0;
    let mut misses = 0;
    for _ in 0..SHORT_PERIOD_SAMPLE {
        let Some(h) = next_header(src, &mut ip) else {
            return false;
        };
        if !(8..16).contains(&h.offset) {
            misses += 1;
            if misses > 1 {
                return false;
            }
        }
    }
    true
}

/// Whether the [`BARE_SAMPLE`] sequences from `src[ip..]` are at least 28
/// bare matches and at most one sequence `decode_fast::one_sequence` would
/// have to take. The benchmark's 4 MiB of text: LZ4 94% of the sequences
/// bare, 1.3% rare, 30 of 32 blocks picked; LZ4HC 91% and 5.7%, 7 of 16
/// blocks (neither loop is faster there). Binary code (35% bare, 26% rare)
/// and shuffled floats (6% bare) stay with the plain loop.
#[inline(never)]
pub(super) fn mostly_bare(src: &[u8], mut ip: usize) -> bool {
    let (mut bare, mut rare) = (0, 0);
    for _ in 0..BARE_SAMPLE {
        let Some(h) = next_header(src, &mut ip) else {
            return false;
        };
        bare += usize::from(h.lit == 0);
        rare += usize::from(h.lit >= 15 || h.token & 15 == 15 || h.offset < 8);
    }
    bare >= BARE_SAMPLE - 4 && rare <= 1
}
