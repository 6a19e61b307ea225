//! Match and literal copies shared by the LZ4 and BloscLZ decoders, made
//! without memcpy / memmove calls, whose fixed cost dominates the short
//! copies of small blocks:
//! - a match whose distance is below 16 repeats a pattern, which is built
//!   once and stored 16 bytes at a time instead of copied byte by byte;
//! - a copy of up to 32 bytes whose length is known only at run time is
//!   made of two fixed-size copies that may overlap each other.
//!
//! Copies longer than [`INLINE_COPY_MAX`] still go to memcpy / memmove,
//! which are faster once their call overhead is spread over enough bytes.

/// Longest literal run or overlapping match copied inline, in chunks.
pub(crate) const INLINE_COPY_MAX: usize = 512;

/// For a period `offset` (1..16): the largest multiple of it that is at
/// most 16, the step between stores of a 16-byte pattern that keep its
/// phase (a table: a division would cost more than the stores it saves).
pub(crate) const PATTERN_STEP: [usize; 16] = [0, 16, 16, 15, 16, 15, 12, 14, 8, 9, 10, 11, 12, 13, 14, 15];

/// The 16 bytes of the pattern of period `offset` (1..16) whose first
/// period is the start of `head` (the rest of `head` is ignored).
#[inline(always)]
pub(crate) fn pattern16(head: [u8; 16], offset: usize) -> [u8; 16] {
    let h = u128::from_le_bytes(head);
    // Periods dividing 16 (the common ones) by multiplication; the others
    // byte by byte.
    match offset {
        1 => (h & 0xFF) * 0x0101_0101_0101_0101_0101_0101_0101_0101,
        2 => (h & 0xFFFF) * 0x0001_0001_0001_0001_0001_0001_0001_0001,
        4 => (h & 0xFFFF_FFFF) * 0x0000_0001_0000_0001_0000_0001_0000_0001,
        8 => (h & 0xFFFF_FFFF_FFFF_FFFF) * 0x0000_0000_0000_0001_0000_0000_0000_0001,
        // The others by doubling the pattern in a register: a byte loop
        // through memory would make the 16-byte read of the result wait
        // on byte stores it cannot be forwarded from.
        _ => {
            let mut p = h & ((1u128 << (8 * offset)) - 1);
            let mut len = offset;
            while len < 16 {
                p |= p << (8 * len);
                len *= 2;
            }
            p
        }
    }
    .to_le_bytes()
}

/// Fills `out[op..end]` with the pattern of period `offset` (1..16) that
/// ends at `op`, writing up to 15 bytes past `end` (the caller guarantees
/// `end + 16 <= out.len()`).
///
/// The 16 bytes of pattern are built once, then stored at steps that are a
/// multiple of the period: no store waits on a load of what was just
/// written, as a byte-by-byte or overlapping copy would.
#[inline(always)]
pub(crate) fn copy_short_period(out: &mut [u8], op: usize, offset: usize, end: usize) {
    let src = op - offset;
    // Fixed-size read (bytes from `op` on are stale, replaced next).
    let head: [u8; 16] = out[src..src + 16].try_into().expect("16 bytes");
    let pat = pattern16(head, offset);
    let step = PATTERN_STEP[offset];
    let mut d = op;
    loop {
        out[d..d + 16].copy_from_slice(&pat);
        d += step;
        if d >= end {
            return;
        }
    }
}

/// Fills `out[op..end]` with the pattern of period `offset` (1..16) that
/// ends at `op`, writing nothing past `end` (the exact twin of
/// [`copy_short_period`], for the end of the output).
#[inline(always)]
pub(crate) fn fill_period_exact(out: &mut [u8], op: usize, offset: usize, end: usize) {
    // Only the `offset` bytes before `op` are final (and may be all there is).
    let mut head = [0u8; 16];
    copy_short(&mut head[..offset], &out[op - offset..op]);
    let pat = pattern16(head, offset);
    let step = PATTERN_STEP[offset];
    let mut d = op;
    while d + 16 <= end {
        out[d..d + 16].copy_from_slice(&pat);
        d += step;
    }
    // `d - op` is a multiple of the period: the pattern starts in phase.
    copy_short(&mut out[d..end], &pat[..end - d]);
}

/// `dst.copy_from_slice(src)` for up to 32 bytes, as two fixed-size copies
/// (overlapping when the length is not their size) or, under 4 bytes, a
/// byte loop.
///
/// # Panics
/// If the lengths differ or exceed 32.
#[inline(always)]
pub(crate) fn copy_short(dst: &mut [u8], src: &[u8]) {
    let n = dst.len();
    assert!(n == src.len() && n <= 32);
    if n >= 16 {
        let (a, b): ([u8; 16], [u8; 16]) = (src[..16].try_into().unwrap(), src[n - 16..].try_into().unwrap());
        dst[..16].copy_from_slice(&a);
        dst[n - 16..].copy_from_slice(&b);
    } else if n >= 8 {
        let (a, b): ([u8; 8], [u8; 8]) = (src[..8].try_into().unwrap(), src[n - 8..].try_into().unwrap());
        dst[..8].copy_from_slice(&a);
        dst[n - 8..].copy_from_slice(&b);
    } else if n >= 4 {
        let (a, b): ([u8; 4], [u8; 4]) = (src[..4].try_into().unwrap(), src[n - 4..].try_into().unwrap());
        dst[..4].copy_from_slice(&a);
        dst[n - 4..].copy_from_slice(&b);
    } else {
        for (d, &s) in dst.iter_mut().zip(src) {
            *d = s;
        }
    }
}

/// Copies `len` bytes from `buf[op - offset..]` to `buf[op..]` for
/// `offset >= len` (the ranges do not overlap), without a call for up to
/// 32 bytes.
#[inline(always)]
pub(crate) fn copy_back(buf: &mut [u8], op: usize, offset: usize, len: usize) {
    if len <= 32 {
        let (before, after) = buf.split_at_mut(op);
        copy_short(&mut after[..len], &before[op - offset..op - offset + len]);
    } else {
        buf.copy_within(op - offset..op - offset + len, op);
    }
}

/// LZ77 forward copy of `len` bytes from `out[op - offset..]` to
/// `out[op..]` (`1 <= offset <= op`; an overlapping source repeats the last
/// `offset` bytes), writing nothing past `op + len`.
#[inline(always)]
pub(crate) fn copy_match_exact(out: &mut [u8], op: usize, offset: usize, len: usize) {
    if offset >= len {
        copy_back(out, op, offset, len);
    } else if len > INLINE_COPY_MAX {
        // A long run: memmoves from the match's source, each doubling the
        // span written so far. The first up to 64 bytes are made inline
        // (a whole number of periods, so that the distance between source
        // and destination keeps the pattern's phase), sparing tiny periods
        // a chain of tiny first copies.
        let (src, end) = (op - offset, op + len);
        let primed = 64 / offset * offset;
        if primed > 0 {
            copy_overlapping_inline(out, op, offset, primed);
        }
        let mut d = op + primed;
        while d < end {
            let n = (d - src).min(end - d);
            out.copy_within(src..src + n, d);
            d += n;
        }
    } else {
        copy_overlapping_inline(out, op, offset, len);
    }
}

/// [`copy_match_exact`] for `offset < len`, without calls.
#[inline(always)]
fn copy_overlapping_inline(out: &mut [u8], op: usize, offset: usize, len: usize) {
    let end = op + len;
    if offset < 16 {
        fill_period_exact(out, op, offset, end);
    } else {
        // 16-byte chunks never read what they write; then the exact tail.
        let mut d = op;
        while d + 16 <= end {
            out.copy_within(d - offset..d - offset + 16, d);
            d += 16;
        }
        copy_back(out, d, offset, end - d);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pattern16_repeats_the_first_period() {
        let head: [u8; 16] = core::array::from_fn(|i| 0xA0 ^ i as u8);
        for offset in 1..16 {
            let want: [u8; 16] = core::array::from_fn(|i| head[i % offset]);
            assert_eq!(pattern16(head, offset), want, "offset {offset}");
        }
    }

    #[test]
    fn fill_period_exact_matches_byte_copy_and_stops_at_end() {
        for offset in 1..16 {
            for len in 0..80 {
                let head: Vec<u8> = (1..=offset as u8).collect();
                let mut got = head.clone();
                got.resize(offset + len + 8, 0xEE);
                let mut want = got.clone();
                for i in offset..offset + len {
                    want[i] = want[i - offset];
                }
                fill_period_exact(&mut got, offset, offset, offset + len);
                assert_eq!(got, want, "offset {offset} len {len}");
            }
        }
    }

    #[test]
    fn copy_match_exact_matches_byte_copy_and_stops_at_end() {
        for offset in (1..40).chain([63, 64, 65, 200]) {
            for len in (0..100).chain([511, 512, 513, 700, 2000]) {
                let mut got: Vec<u8> = (0..offset as u8).map(|b| b.wrapping_mul(37)).collect();
                got.resize(offset + len + 20, 0xEE);
                let mut want = got.clone();
                for i in offset..offset + len {
                    want[i] = want[i - offset];
                }
                copy_match_exact(&mut got, offset, offset, len);
                assert_eq!(got, want, "offset {offset} len {len}");
            }
        }
    }

    #[test]
    fn copy_short_and_copy_back_copy_exactly() {
        for len in 0..=32 {
            let src: Vec<u8> = (0..len as u8).map(|b| b ^ 0x5A).collect();
            let mut dst = vec![0xEEu8; len + 4];
            copy_short(&mut dst[2..2 + len], &src);
            assert_eq!(&dst[2..2 + len], &src[..]);
            assert!(dst[..2].iter().chain(&dst[2 + len..]).all(|&b| b == 0xEE));
        }
        for len in 0..70 {
            for offset in len.max(1)..len + 3 {
                let mut buf: Vec<u8> = (0..(offset + len + 5) as u8).collect();
                let mut want = buf.clone();
                want.copy_within(0..len, offset);
                copy_back(&mut buf, offset, offset, len);
                assert_eq!(buf, want, "len {len} offset {offset}");
            }
        }
    }
}
