//! Safe LZ4 block decoder.
//!
//! Every read and write is bounds-checked by slice indexing; speed comes from
//! fixed-size chunk copies (which the compiler turns into plain vector loads
//! and stores) whenever the output has slack past the current sequence, with
//! exact copies near the end of the output.

use super::block::MIN_MATCH;
use super::choose::{mostly_bare, mostly_short_periods, BARE_MIN_OUTPUT, PROBE_AT, SHORT_PERIOD_MIN_OUTPUT};
use crate::engine::codecs::pattern::{copy_match_exact, copy_short, copy_short_period, INLINE_COPY_MAX};

/// Reads the extension bytes of a length whose nibble was 15. Saturates
/// rather than wraps (a hostile run of 255s on a 32-bit target), which the
/// callers' size checks then refuse.
#[inline(always)]
pub(super) fn read_len_ext(src: &[u8], ip: &mut usize) -> Option<usize> {
    let mut n = 0usize;
    loop {
        let b = *src.get(*ip)?;
        *ip += 1;
        n = n.saturating_add(b as usize);
        if b != 255 {
            return Some(n);
        }
    }
}

/// Copies `len` bytes from `out[op - offset..]` to `out[op..]` with LZ4's
/// forward semantics (an overlapping source repeats the last `offset` bytes).
/// The caller guarantees `offset <= op` and `op + len <= out.len()`.
#[inline(always)]
fn copy_match(out: &mut [u8], op: usize, offset: usize, len: usize) {
    let src = op - offset;
    let end = op + len;
    if end + 16 <= out.len() {
        // Chunks may overrun `end` by up to 15 bytes: that space exists and is
        // rewritten by the following sequences.
        if len > 64 && offset < 16 && len <= INLINE_COPY_MAX {
            // A run of a short pattern (a shuffled plane of small integers
            // is mostly these): pattern stores, not memmove calls.
            copy_short_period(out, op, offset, end);
            return;
        }
        if len > 64 {
            // Long match: whole-block copies (memmove) beat chunk loops. An
            // overlapping source holds a repeating pattern; copying from
            // `src` to a distance that is a multiple of the period keeps the
            // phase, and each copy doubles the span to copy from. A short
            // period first gets 64 bytes of pattern stores, sparing the
            // doubling its many tiny first copies (a run of one byte value
            // would otherwise take eight memmove calls per 256 bytes).
            let mut d = op;
            if offset < 16 {
                copy_short_period(out, op, offset, op + 64);
                // Keep `d - src` a multiple of the period.
                d = op + 64 / offset * offset;
            }
            while d < end {
                let n = (d - src).min(end - d);
                out.copy_within(src..src + n, d);
                d += n;
            }
            return;
        }
        if offset >= 16 {
            let (mut s, mut d) = (src, op);
            loop {
                out.copy_within(s..s + 16, d);
                d += 16;
                s += 16;
                if d >= end {
                    return;
                }
            }
        }
        copy_short_period(out, op, offset, end);
        return;
    }
    // Near the end of the output: exact copies only.
    copy_match_exact(out, op, offset, len);
}

/// Copies a match of `ml` bytes at distance `offset` to `out[op..]`,
/// reaching into `dict` (the bytes before `out`) when `DICT`. Returns the new
/// output position, `None` when the match is invalid or does not fit.
#[inline(always)]
fn do_match<const DICT: bool>(
    out: &mut [u8],
    mut op: usize,
    offset: usize,
    mut ml: usize,
    dict: &[u8],
) -> Option<usize> {
    if offset == 0 || ml > out.len() - op {
        return None;
    }
    if offset > op {
        if !DICT {
            return None;
        }
        // The match starts in the dictionary and may run on into `out`.
        let back = offset - op;
        if back > dict.len() {
            return None;
        }
        let from = dict.len() - back;
        let n = ml.min(back);
        out[op..op + n].copy_from_slice(&dict[from..from + n]);
        op += n;
        ml -= n;
        if ml == 0 {
            return Some(op);
        }
    }
    copy_match(out, op, offset, ml);
    Some(op + ml)
}

/// Decodes one block `src` into `out`, with `dict` as the bytes preceding
/// `out` (when `DICT`). `None` on malformed input or when `out` is too small.
pub(crate) fn decode<const DICT: bool>(src: &[u8], out: &mut [u8], dict: &[u8]) -> Option<usize> {
    decode_with::<DICT, true>(src, out, dict)
}

/// [`decode`], with the unchecked hot loop of `decode_fast` when `FAST`
/// (without it: the all-safe decoder the tests compare with).
pub(crate) fn decode_with<const DICT: bool, const FAST: bool>(
    src: &[u8],
    out: &mut [u8],
    dict: &[u8],
) -> Option<usize> {
    let iend = src.len();
    let oend = out.len();
    let mut ip = 0usize;
    let mut op = 0usize;
    // Small blocks (the byte planes of shuffled data: a few KiB each) skip
    // the sample: there its cost (4% of the decoding time) outweighs what
    // early loads could save, and shuffled planes are not the unshuffled
    // integer ramps they serve.
    let short_periods = FAST && oend >= SHORT_PERIOD_MIN_OUTPUT && mostly_short_periods(src);
    // Blocks of 64 KiB or more may qualify for the loop of bare matches,
    // looked at once their first 16 KiB are decoded (see `choose`).
    let mut probe = FAST && !short_periods && oend >= BARE_MIN_OUTPUT;
    let mut bare = false;
    loop {
        if FAST {
            if probe {
                probe = false;
                (ip, op) = super::decode_fast::run_plain(src, &mut out[..PROBE_AT], ip, op);
                bare = mostly_bare(src, ip);
            }
            (ip, op) = if short_periods {
                super::decode_fast::run_short_periods(src, out, ip, op)
            } else if bare {
                super::decode_bare::run_bare(src, out, ip, op)
            } else {
                super::decode_fast::run_plain(src, out, ip, op)
            };
        }
        // Every path below leaves `ip < iend` or returns, except the first
        // iteration on an empty input (not a block: C refuses it too).
        let token = *src.get(ip)?;
        ip += 1;
        let mut lit = (token >> 4) as usize;
        let mut ml = (token & 15) as usize;
        if lit < 15 && ip + 18 <= iend && op + 48 <= oend {
            // The common sequence: the literal length fits in the token and
            // both buffers have room for fixed-size copies (16 bytes of
            // literals, up to 32 of a short match), so no length-dependent
            // branching is needed. It cannot be the block's last sequence:
            // that one ends the input.
            //
            // One bounds check covers everything read here: the literals
            // (under 15) and the offset lie within these 18 bytes.
            let seq: &[u8; 18] = src[ip..ip + 18].try_into().expect("18 bytes");
            out[op..op + 16].copy_from_slice(&seq[..16]);
            let offset = u16::from_le_bytes([seq[lit], seq[lit + 1]]) as usize;
            ip += lit + 2;
            op += lit;
            if ml < 15 {
                ml += MIN_MATCH;
                if offset >= 16 && offset <= op {
                    // Chunks no longer than the distance never overlap
                    // themselves; a later chunk may read what an earlier one
                    // wrote, as LZ4 wants.
                    let m = op - offset;
                    out.copy_within(m..m + 16, op);
                    out.copy_within(m + 16..m + 32, op + 16);
                    op += ml;
                } else if offset >= 8 && offset <= op {
                    let m = op - offset;
                    out.copy_within(m..m + 8, op);
                    out.copy_within(m + 8..m + 16, op + 8);
                    out.copy_within(m + 16..m + 24, op + 16);
                    op += ml;
                } else if offset != 0 && offset <= op {
                    copy_short_period(out, op, offset, op + ml);
                    op += ml;
                } else {
                    op = do_match::<DICT>(out, op, offset, ml, dict)?;
                }
                continue;
            }
            ml = ml.saturating_add(read_len_ext(src, &mut ip)?);
            op = do_match::<DICT>(out, op, offset, ml.saturating_add(MIN_MATCH), dict)?;
            if ip >= iend {
                return None;
            }
            continue;
        }
        // Literals.
        if lit == 15 {
            lit = lit.saturating_add(read_len_ext(src, &mut ip)?);
        }
        if lit > iend - ip || lit > oend - op {
            return None;
        }
        if lit <= 16 && ip + 16 <= iend && op + 16 <= oend {
            out[op..op + 16].copy_from_slice(&src[ip..ip + 16]);
        } else if lit <= INLINE_COPY_MAX && ip + lit + 16 <= iend && op + lit + 16 <= oend {
            // A medium run: 16-byte chunks (overrunning into bytes that are
            // rewritten next) cost less than a memcpy call.
            let mut k = 0;
            while k < lit {
                out[op + k..op + k + 16].copy_from_slice(&src[ip + k..ip + k + 16]);
                k += 16;
            }
        } else if lit <= 32 {
            copy_short(&mut out[op..op + lit], &src[ip..ip + lit]);
        } else {
            out[op..op + lit].copy_from_slice(&src[ip..ip + lit]);
        }
        ip += lit;
        op += lit;
        if ip == iend {
            // Only the final sequence may end after its literals.
            return Some(op);
        }
        // Match.
        if iend - ip < 2 {
            return None;
        }
        let offset = u16::from_le_bytes([src[ip], src[ip + 1]]) as usize;
        ip += 2;
        if ml == 15 {
            ml = ml.saturating_add(read_len_ext(src, &mut ip)?);
        }
        op = do_match::<DICT>(out, op, offset, ml.saturating_add(MIN_MATCH), dict)?;
        if ip >= iend {
            // A block must end with literals.
            return None;
        }
    }
}
