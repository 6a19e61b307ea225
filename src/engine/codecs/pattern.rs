//! Short-period match copies shared by the LZ4 and BloscLZ decoders: a
//! match whose distance is below 16 repeats a pattern, which is built once
//! and stored 16 bytes at a time instead of copied byte by byte.

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
        _ => {
            let mut pat = head;
            for i in offset..16 {
                pat[i] = pat[i - offset];
            }
            u128::from_le_bytes(pat)
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
