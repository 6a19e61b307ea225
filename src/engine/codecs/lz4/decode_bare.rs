//! The LZ4 decoder's hot loop for blocks of bare matches: text, where
//! nearly every sequence is a short match with no literals before it.
//!
//! There the plain loop of `decode_fast` is bound by one chain of
//! dependences: the next token's position waits for this token's load
//! (its literal count), 8 cycles a sequence. This loop takes a sequence
//! without literals on a branch of its own, whose next token sits 3 bytes
//! on whatever the token holds, so the loads of the following tokens
//! start at once; it also skips the 16-byte literal copy those sequences
//! do not need. Every other sequence (literals, a long or short-period
//! match, anything near the ends) goes to `decode_fast::one_sequence`, out
//! of line, so that this loop keeps its state in registers.
//!
//! On blocks with literals in more than a few sequences the branch
//! mispredicts and the out-of-line calls add up: binary data decodes 25%
//! slower here than in the plain loop. So `choose::mostly_bare` looks at a block
//! after its first 16 KiB and the decoder picks this loop only for blocks
//! that qualify.
//!
//! Written once over `decode_fast`'s [`Access`]: [`run_bare`] unchecked,
//! [`run_bare_checked`] with slice indexing for the tests to compare.

#![allow(unsafe_code)]

use super::block::MIN_MATCH;
#[cfg(test)]
use super::decode_fast::Checked;
use super::decode_fast::{one_sequence, Access, Unchecked, IN_ROOM, OUT_ROOM};

/// Decodes sequences from `(ip, op)` on and returns the position of the
/// first one it leaves to the caller, as `decode_fast::run` does (same
/// bytes written).
#[inline(never)]
pub(super) fn run_bare(src: &[u8], out: &mut [u8], ip: usize, op: usize) -> (usize, usize) {
    run_bare_with::<Unchecked>(src, out, ip, op)
}

/// [`run_bare`] with checked indexing: the safe twin the tests compare.
#[cfg(test)]
pub(super) fn run_bare_checked(src: &[u8], out: &mut [u8], ip: usize, op: usize) -> (usize, usize) {
    run_bare_with::<Checked>(src, out, ip, op)
}

/// The loop of [`run_bare`], over the accesses of `A`.
#[inline(always)]
fn run_bare_with<A: Access>(src: &[u8], out: &mut [u8], mut ip: usize, mut op: usize) -> (usize, usize) {
    let (Some(ilimit), Some(olimit)) = (src.len().checked_sub(IN_ROOM), out.len().checked_sub(OUT_ROOM)) else {
        return (ip, op);
    };
    'sequences: while ip <= ilimit && op <= olimit {
        // Invariants here: ip + IN_ROOM <= iend, op + OUT_ROOM <= oend.
        // SAFETY: ip < iend.
        let token = unsafe { A::byte(src, ip) };
        let lit = (token >> 4) as usize;
        let code = (token & 15) as usize;
        'common: {
            // Kept a branch (not folded into `ip + 1 + lit`): see the
            // module comment.
            let (lp, mpos) = if lit == 0 {
                (ip + 1, op)
            } else if lit < 15 {
                // SAFETY: ip + 1 + 16 <= ip + IN_ROOM <= iend;
                // op + 16 <= oend.
                unsafe { A::copy_in::<16>(src, ip + 1, out, op) };
                (ip + 1 + lit, op + lit)
            } else {
                break 'common;
            };
            if code == 15 {
                break 'common;
            }
            // SAFETY: lp + 2 <= ip + 17 <= iend.
            let offset = unsafe { A::le16(src, lp) } as usize;
            if offset < 8 || offset > mpos {
                break 'common;
            }
            let m = mpos - offset;
            // Two 8-byte chunks and a 2-byte tail (the match is at most
            // 18 bytes), each read 8 or more bytes before where it is
            // written, as in `decode_fast`. SAFETY: reads from m >= 0 end
            // by mpos - 8 + 18 < oend; writes end by mpos + 18 <= op + 32
            // <= oend.
            unsafe {
                let head = A::load::<8>(out, m);
                A::store::<8>(out, mpos, head);
                let c1 = A::load::<8>(out, m + 8);
                A::store::<8>(out, mpos + 8, c1);
                let tail = A::load::<2>(out, m + 16);
                A::store::<2>(out, mpos + 16, tail);
            }
            op = mpos + code + MIN_MATCH;
            ip = lp + 2;
            continue 'sequences;
        }
        let (next_ip, next_op) = one_sequence::<A>(src, out, ip, op);
        if next_ip == ip {
            // Left to the safe loop (every sequence taken reads its token).
            break;
        }
        (ip, op) = (next_ip, next_op);
    }
    (ip, op)
}
