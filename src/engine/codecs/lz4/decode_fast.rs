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
//! A match 8 to 15 bytes back right after short literals (unshuffled
//! 64-bit integers that count up: a literal and a 7-byte match 8 back per
//! item) has its first bytes loaded before the literals are stored: see
//! [`loads_head_early`]. Text pays for even that one test per sequence (its
//! sequences take 9 cycles each), so the loop comes in two builds, and
//! [`mostly_short_periods`] picks one per block from its first sequences.
//!
//! [`run`] decodes such sequences and stops before the first one it does not
//! handle (long literal run, long match with a short period, offset
//! reaching before the output, too close to an end, long match without room
//! for its wild copy); the safe loop in `decode.rs` takes that one and calls
//! back. [`run_checked`] is the same loop with indexing, compared with
//! [`run`] in the tests.

#![allow(unsafe_code)]

use super::block::MIN_MATCH;
use super::decode::read_len_ext;
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

/// Whether the first 8 bytes of a match `offset` (>= 8) back, after `lit`
/// literals, come from before those literals, as far as they belong to the
/// match (its `code + MIN_MATCH` bytes).
///
/// Then they can be loaded before the literals are stored. Loaded after,
/// as usual, they span the previous match's 8-byte store and this
/// sequence's 16-byte literal store, which the CPU cannot forward to one
/// load: it waits for both to reach the cache. For an int64 ramp that
/// stall was half the decoding time. Loaded before, they may hold stale
/// bytes where the literals go, but only past the match's end, which the
/// next sequence overwrites.
#[inline(always)]
fn loads_head_early(offset: usize, lit: usize, code: usize) -> bool {
    offset >= lit + (code + MIN_MATCH).min(8)
}

/// Sequences [`mostly_short_periods`] looks at.
const SAMPLE: usize = 16;

/// Whether at least 3/4 of the first [`SAMPLE`] sequences of the block
/// `src` have a match 8 to 15 bytes back: then [`run`] with early loads
/// decodes it. Stops as soon as too many sequences missed, so that other
/// blocks pay for a few headers only. Reads only sequence headers,
/// bounds-checked; a malformed header ends the sample.
#[inline(never)]
pub(super) fn mostly_short_periods(src: &[u8]) -> bool {
    let mut ip = 0;
    let mut hits = 0;
    let mut misses = 0;
    while hits + misses < SAMPLE {
        let Some(&token) = src.get(ip) else { return false };
        ip += 1;
        let mut lit = (token >> 4) as usize;
        if lit == 15 {
            let Some(n) = read_len_ext(src, &mut ip) else {
                return false;
            };
            lit = lit.saturating_add(n);
        }
        let Some(b) = src.get(ip.saturating_add(lit)..ip.saturating_add(lit).saturating_add(2)) else {
            return false;
        };
        if (8..16).contains(&u16::from_le_bytes([b[0], b[1]])) {
            hits += 1;
        } else {
            misses += 1;
            if misses > SAMPLE / 4 {
                return false;
            }
        }
        ip += lit + 2;
        if token & 15 == 15 && read_len_ext(src, &mut ip).is_none() {
            return false;
        }
    }
    true
}

/// [`run`] with early loads, as a function of its own: inlined next to the
/// plain build, it made the compiler spill registers in that one.
#[inline(never)]
pub(super) fn run_short_periods(src: &[u8], out: &mut [u8], ip: usize, op: usize) -> (usize, usize) {
    run::<true>(src, out, ip, op)
}

/// Decodes the fast-path sequences from `(ip, op)` on and returns the
/// position of the first one it leaves to the caller. Never reads or writes
/// outside `src` and `out`; writes past the sequences it decodes only bytes
/// that later sequences overwrite (or that lie beyond the decoded size).
///
/// Same decisions as [`parse`] (the checked twin uses it), with the header
/// read without bounds checks.
///
/// `EARLY`: with the early loads of [`loads_head_early`].
#[inline(always)]
pub(super) fn run<const EARLY: bool>(src: &[u8], out: &mut [u8], mut ip: usize, mut op: usize) -> (usize, usize) {
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
                if EARLY && offset < 16 && loads_head_early(offset, lit, code) {
                    // The first chunk loaded before the literals are stored
                    // (m + 8 <= mpos: in bounds as above).
                    let head = o.add(m).cast::<[u8; 8]>().read_unaligned();
                    std::ptr::copy_nonoverlapping(s.add(ip + 1), o.add(op), 16);
                    o.add(mpos).cast::<[u8; 8]>().write_unaligned(head);
                } else {
                    std::ptr::copy_nonoverlapping(s.add(ip + 1), o.add(op), 16);
                    std::ptr::copy_nonoverlapping(o.add(m), o.add(mpos), 8);
                }
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
pub(super) fn run_checked<const EARLY: bool>(
    src: &[u8],
    out: &mut [u8],
    mut ip: usize,
    mut op: usize,
) -> (usize, usize) {
    let oend = out.len();
    while let Some(s) = parse(src, ip, op, oend) {
        let m = op + s.lit - s.offset;
        let early =
            EARLY && (8..16).contains(&s.offset) && s.ml <= 18 && loads_head_early(s.offset, s.lit, s.ml - MIN_MATCH);
        let head: Option<[u8; 8]> = early.then(|| out[m..m + 8].try_into().expect("8 bytes"));
        out[op..op + 16].copy_from_slice(&src[ip + 1..ip + 17]);
        op += s.lit;
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
        if let Some(head) = head {
            out[op..op + 8].copy_from_slice(&head);
            k = 8;
        }
        while k < len {
            out.copy_within(m + k..m + k + chunk, op + k);
            k += chunk;
        }
        op += s.ml;
        ip = s.next_ip;
    }
    (ip, op)
}
