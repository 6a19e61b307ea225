//! The LZ4 decoder's hot loop without per-copy bounds checks.
//!
//! Most sequences of a block are short: fewer than 15 literals and a match
//! of at most 18 bytes. For those, one comparison per sequence (input and
//! output both have tens of bytes of room) proves every access in bounds, so
//! the copies can be fixed-size unaligned loads and stores, as C's LZ4 does.
//! The safe decoder spent a third of its instructions re-checking what this
//! single test already guarantees. A match under 8 bytes back (a short
//! period, frequent in the byte streams of shuffled numeric data) is stored
//! as a 16-byte repeated pattern, twice.
//!
//! [`run`] decodes such sequences and stops before the first one it does not
//! handle (long literal run, long match with a short period, offset
//! reaching before the output, too close to an end, long match without room
//! for its wild copy); the safe loop in `decode.rs` takes that one and calls
//! back. [`run_checked`] is the same loop with indexing, compared with
//! [`run`] in the tests.

#![allow(unsafe_code)]

use super::block::MIN_MATCH;
use crate::engine::codecs::pattern::{pattern16, PATTERN_STEP};

/// Input bytes the fast path needs from a token on: the token, up to 14
/// literals read as one 16-byte chunk, and the 2-byte offset.
const IN_ROOM: usize = 1 + 16 + 2;
/// Output bytes the fast path needs from the sequence start: 14 literals
/// (written as 16), then a match of up to 18 bytes written as 24.
const OUT_ROOM: usize = 14 + 24;

/// One decoded sequence header, validated for the fast path.
#[cfg(test)]
struct Seq {
    lit: usize,
    offset: usize,
    /// Match length (MIN_MATCH included).
    ml: usize,
    /// Input position after the sequence header (and length extension).
    next_ip: usize,
}

/// Reads the sequence at `ip` when the fast path can take it: all reads of
/// `src` here are checked (they are cheap); `None` leaves it to the caller.
#[cfg(test)]
fn parse(src: &[u8], ip: usize, op: usize, oend: usize) -> Option<Seq> {
    if op + OUT_ROOM > oend {
        return None;
    }
    // One bounds check for the whole header: with `lit` under 15, the
    // offset lies within these bytes.
    let seq: &[u8; IN_ROOM] = src.get(ip..ip + IN_ROOM)?.try_into().ok()?;
    let token = seq[0];
    let lit = (token >> 4) as usize;
    if lit == 15 {
        return None;
    }
    let offset = u16::from_le_bytes([seq[1 + lit], seq[2 + lit]]) as usize;
    let mpos = op + lit;
    if offset == 0 || offset > mpos {
        return None;
    }
    let mut ml = (token & 15) as usize;
    let mut next_ip = ip + 3 + lit;
    if offset < 8 && (ml == 15 || mpos + 32 > oend) {
        return None;
    }
    if ml == 15 {
        // A long match: only with a period of 16 or more (whole 16-byte
        // chunks never read what they write) and room for the last chunk's
        // overrun.
        if offset < 16 {
            return None;
        }
        loop {
            let b = *src.get(next_ip)?;
            next_ip += 1;
            ml += b as usize;
            if b != 255 {
                break;
            }
        }
        if ml + MIN_MATCH + 16 > oend - mpos {
            return None;
        }
    }
    Some(Seq {
        lit,
        offset,
        ml: ml + MIN_MATCH,
        next_ip,
    })
}

/// Decodes the fast-path sequences from `(ip, op)` on and returns the
/// position of the first one it leaves to the caller. Never reads or writes
/// outside `src` and `out`; writes past the sequences it decodes only bytes
/// that later sequences overwrite (or that lie beyond the decoded size).
///
/// Same decisions as [`parse`] (the checked twin uses it), with the header
/// read without bounds checks.
#[inline(always)]
pub(super) fn run(src: &[u8], out: &mut [u8], mut ip: usize, mut op: usize) -> (usize, usize) {
    let (Some(ilimit), Some(olimit)) = (src.len().checked_sub(IN_ROOM), out.len().checked_sub(OUT_ROOM)) else {
        return (ip, op);
    };
    let oend = out.len();
    let s = src.as_ptr();
    let o = out.as_mut_ptr();
    while ip <= ilimit && op <= olimit {
        // SAFETY: ip + 19 <= src.len(): the token, and (lit < 15) the two
        // offset bytes at ip + 1 + lit <= ip + 15, are in bounds.
        let token = unsafe { *s.add(ip) };
        let lit = (token >> 4) as usize;
        if lit == 15 {
            break;
        }
        // SAFETY: see above.
        let offset = unsafe { u16::from_le_bytes(s.add(ip + 1 + lit).cast::<[u8; 2]>().read()) } as usize;
        let mpos = op + lit;
        if offset == 0 || offset > mpos {
            break;
        }
        let code = (token & 15) as usize;
        let mut next_ip = ip + 3 + lit;
        let m = mpos - offset;
        if offset < 8 {
            // A short period (runs in shuffled numeric data): a 16-byte
            // pattern stored twice covers the 18 bytes a short match can
            // have. Needs 32 bytes of room from the match on.
            if code == 15 || mpos + 32 > oend {
                break;
            }
            let step = PATTERN_STEP[offset];
            // SAFETY: the literals as below (ip + 17 <= src.len(),
            // op + 16 <= out.len()), copied first since the pattern may
            // start in them. The pattern is read at m..m + 16 with
            // m = mpos - offset >= 0 and m + 16 <= mpos + 15 < out.len();
            // the stores end by mpos + step + 16 <= mpos + 32 <= out.len().
            unsafe {
                std::ptr::copy_nonoverlapping(s.add(ip + 1), o.add(op), 16);
                let pat = pattern16(o.add(m).cast::<[u8; 16]>().read_unaligned(), offset);
                o.add(mpos).cast::<[u8; 16]>().write_unaligned(pat);
                o.add(mpos + step).cast::<[u8; 16]>().write_unaligned(pat);
            }
            op = mpos + code + MIN_MATCH;
            ip = next_ip;
            continue;
        }
        if code < 15 {
            // SAFETY: ip + 17 <= src.len() and op + 38 <= out.len(): the
            // 16 literal bytes are in bounds (and `src` and `out` are
            // distinct slices). The match (at most 18 bytes) is written as
            // three 8-byte chunks: mpos <= op + 14, so writes end by
            // op + 38; reads start at m = mpos - offset >= 0 and end by
            // mpos + 16. Each chunk's source and destination are
            // offset >= 8 bytes apart (no overlap); a later chunk may read
            // what an earlier one wrote, which is LZ4's forward copy.
            unsafe {
                std::ptr::copy_nonoverlapping(s.add(ip + 1), o.add(op), 16);
                std::ptr::copy_nonoverlapping(o.add(m), o.add(mpos), 8);
                std::ptr::copy_nonoverlapping(o.add(m + 8), o.add(mpos + 8), 8);
                std::ptr::copy_nonoverlapping(o.add(m + 16), o.add(mpos + 16), 8);
            }
            op = mpos + code + MIN_MATCH;
            ip = next_ip;
            continue;
        }
        // A long match: only with a period of 16 or more (16-byte chunks
        // never read what they write) and room for the last chunk's overrun.
        if offset < 16 {
            break;
        }
        let mut ml = code;
        loop {
            let Some(&b) = src.get(next_ip) else {
                return (ip, op);
            };
            next_ip += 1;
            ml += b as usize;
            if b != 255 {
                break;
            }
        }
        let ml = ml + MIN_MATCH;
        if ml + 16 > oend - mpos {
            break;
        }
        // SAFETY: the literals as above; the match chunks start below
        // mpos + ml, so they end by mpos + ml + 15 < out.len(), and read
        // 16 bytes at `offset` >= 16 before where they write.
        unsafe {
            std::ptr::copy_nonoverlapping(s.add(ip + 1), o.add(op), 16);
            let mut k = 0;
            while k < ml {
                std::ptr::copy_nonoverlapping(o.add(m + k), o.add(mpos + k), 16);
                k += 16;
            }
        }
        op = mpos + ml;
        ip = next_ip;
    }
    (ip, op)
}

/// [`run`] with checked indexing: the safe twin the tests compare it with.
#[cfg(test)]
pub(super) fn run_checked(src: &[u8], out: &mut [u8], mut ip: usize, mut op: usize) -> (usize, usize) {
    let oend = out.len();
    while let Some(s) = parse(src, ip, op, oend) {
        out[op..op + 16].copy_from_slice(&src[ip + 1..ip + 17]);
        op += s.lit;
        let m = op - s.offset;
        if s.offset < 8 {
            let head: [u8; 16] = out[m..m + 16].try_into().expect("16 bytes");
            let pat = pattern16(head, s.offset);
            let step = PATTERN_STEP[s.offset];
            out[op..op + 16].copy_from_slice(&pat);
            out[op + step..op + step + 16].copy_from_slice(&pat);
            op += s.ml;
            ip = s.next_ip;
            continue;
        }
        let (chunk, len) = if s.ml <= 18 { (8, 24) } else { (16, s.ml) };
        let mut k = 0;
        while k < len {
            out.copy_within(m + k..m + k + chunk, op + k);
            k += chunk;
        }
        op += s.ml;
        ip = s.next_ip;
    }
    (ip, op)
}
