//! NDLZ with 4x4 cells (`ndlz4x4.c`).
//!
//! Row matches, rows numbered 0-3 in the cell, `off` a little-endian `u16`
//! distance back in the output, the rows not matched following as
//! literals (in order):
//!
//! | token | meaning |
//! | --- | --- |
//! | `32 \| j << 3` (40, 48, 56) | rows 0 and `j` match at `off1`, the other two at `off2` (no literals) |
//! | `224 \| (j + k - 2) << 3` | rows 0, `j`, `k` match: (0,1,2) 232, (0,1,3) 240, (0,2,3) 248; rows (1,2,3) 224 |
//! | `128 \| i << 5 \| j << 3` | rows `i`, `j` match; rows (2,3) are 128 |

use super::{encode_cells, slot, stream_bytes, Groups, Out, Tables, CORRUPT, MAX_DISTANCE};

/// Encode the cells of the `shape` block `src` after the header already in
/// `dst`; the stream's length, or 0 when it does not fit or is not smaller
/// than `src`.
pub(super) fn encode(src: &[u8], shape: [usize; 2], dst: &mut [u8]) -> usize {
    encode_cells::<4, 16, 2, 3>(src, shape, dst, row_matches)
}

/// Look for an earlier row pair + pair, row triple, then row pair, in
/// 3.3.5's order; write the first match found and return true. Records in
/// `update_*`/`hash_*` where the consecutive row groups would enter the
/// tables should the cell stay a literal.
fn row_matches(
    cell: &[u8; 16],
    tab: &Tables,
    out: &mut Out<'_>,
    (update_triple, hash_triple): Groups<'_, 2>,
    (update_pair, hash_pair): Groups<'_, 3>,
) -> bool {
    let row = |r: usize| &cell[4 * r..4 * r + 4];
    let anchor = out.pos;
    // A table entry's distance back from `anchor + ahead` when it holds
    // `bytes`, 0 otherwise; matches must be closer than MAX_DISTANCE.
    let near = |entry: u32, bytes: &[u8], ahead: usize, out: &Out<'_>| {
        let d = if out.holds(entry, bytes) {
            anchor + ahead - entry as usize
        } else {
            0
        };
        d != 0 && d < MAX_DISTANCE
    };

    // Rows 0 and j, and the other two, in two earlier places.
    for j in 1..4 {
        let mut pair = [0u8; 8];
        pair[..4].copy_from_slice(row(0));
        pair[4..].copy_from_slice(row(j));
        let first = tab.pair[slot(&pair)];
        if !near(first, &pair, 0, out) {
            continue;
        }
        let (l, m) = match j {
            1 => (2, 3),
            2 => (1, 3),
            _ => (1, 2),
        };
        pair[..4].copy_from_slice(row(l));
        pair[4..].copy_from_slice(row(m));
        let second = tab.pair[slot(&pair)];
        if near(second, &pair, 4 * l, out) {
            out.byte(32 | (j as u8) << 3);
            out.put(&((anchor - first as usize) as u16).to_le_bytes());
            out.put(&((anchor - second as usize) as u16).to_le_bytes());
            return true;
        }
    }

    // Three rows.
    for (i, j, k) in [(0, 1, 2), (0, 1, 3), (0, 2, 3), (1, 2, 3)] {
        let mut triple = [0u8; 12];
        triple[..4].copy_from_slice(row(i));
        triple[4..8].copy_from_slice(row(j));
        triple[8..].copy_from_slice(row(k));
        let hval = slot(&triple);
        let entry = tab.triple[hval];
        if entry == 0 && j - i == 1 && k - j == 1 {
            update_triple[i] = (anchor + 1 + 4 * i) as u32;
            hash_triple[i] = hval;
        }
        if near(entry, &triple, 4 * i, out) {
            let token = if i == 1 { 224 } else { 224 | ((j + k - 2) as u8) << 3 };
            out.byte(token);
            out.put(&((anchor - entry as usize) as u16).to_le_bytes());
            let rest = 6 - i - j - k;
            out.put(row(rest));
            return true;
        }
    }

    // Two rows.
    for i in 0..3 {
        for j in i + 1..4 {
            let mut pair = [0u8; 8];
            pair[..4].copy_from_slice(row(i));
            pair[4..].copy_from_slice(row(j));
            let hval = slot(&pair);
            let entry = tab.pair[hval];
            if entry == 0 && j - i == 1 {
                update_pair[i] = (anchor + 1 + 4 * i) as u32;
                hash_pair[i] = hval;
            }
            if near(entry, &pair, 4 * i, out) {
                let token = if i == 2 {
                    128
                } else {
                    128 | (i as u8) << 5 | (j as u8) << 3
                };
                out.byte(token);
                out.put(&((anchor - entry as usize) as u16).to_le_bytes());
                for k in (0..4).filter(|&k| k != i && k != j) {
                    out.put(row(k));
                }
                return true;
            }
        }
    }
    false
}

/// Decode a row-match token at `cur` into `cell`: the offset after it,
/// `None` for a token that is not one.
#[inline(always)]
pub(super) fn decode_rows(token: u8, src: &[u8], cur: usize, cell: &mut [u8; 16]) -> Option<super::Result<usize>> {
    let result = match token {
        224..=255 => {
            // (token >> 3): 28 -> rows 1,2,3; 29 -> 0,1,2; 30 -> 0,1,3; 31 -> 0,2,3.
            let rows = match token >> 3 {
                28 => [1, 2, 3],
                29 => [0, 1, 2],
                30 => [0, 1, 3],
                _ => [0, 2, 3],
            };
            (|| {
                let refs = stream_bytes(src, back(src, cur + 1, cur + 3, 3)?, 12)?;
                for (n, &r) in rows.iter().enumerate() {
                    cell[4 * r..4 * r + 4].copy_from_slice(&refs[4 * n..4 * n + 4]);
                }
                let rest = 6 - rows.iter().sum::<usize>();
                cell[4 * rest..4 * rest + 4].copy_from_slice(stream_bytes(src, cur + 3, 4)?);
                Ok(cur + 7)
            })()
        }
        128..=191 => {
            let (i, j) = if token == 128 {
                (2, 3)
            } else {
                let t = (token - 128) as usize;
                (t >> 5, (t >> 3) - ((t >> 5) << 2))
            };
            (|| {
                let refs = stream_bytes(src, back(src, cur + 1, cur + 3, 3)?, 8)?;
                cell[4 * i..4 * i + 4].copy_from_slice(&refs[..4]);
                cell[4 * j..4 * j + 4].copy_from_slice(&refs[4..]);
                let mut ip = cur + 3;
                for k in (0..4).filter(|&k| k != i && k != j) {
                    cell[4 * k..4 * k + 4].copy_from_slice(stream_bytes(src, ip, 4)?);
                    ip += 4;
                }
                Ok(ip)
            })()
        }
        40..=63 => {
            let j = ((token - 32) >> 3) as usize;
            let (l, m) = match j {
                1 => (2, 3),
                2 => (1, 3),
                _ => (1, 2),
            };
            (|| {
                let first = stream_bytes(src, back(src, cur + 1, cur + 5, 5)?, 8)?;
                let second = stream_bytes(src, back(src, cur + 3, cur + 5, 5)?, 8)?;
                cell[..4].copy_from_slice(&first[..4]);
                cell[4 * j..4 * j + 4].copy_from_slice(&first[4..]);
                cell[4 * l..4 * l + 4].copy_from_slice(&second[..4]);
                cell[4 * m..4 * m + 4].copy_from_slice(&second[4..]);
                Ok(cur + 5)
            })()
        }
        _ => return None,
    };
    Some(result)
}

/// Where a back reference points, as 3.3.5 computes it: `base` minus
/// the `u16` at `at` plus `bias` (added in 16 bits, wrapping as in 3.3.5).
fn back(src: &[u8], at: usize, base: usize, bias: u16) -> super::Result<usize> {
    let off = super::read_u16(src, at)?.wrapping_add(bias) as usize;
    base.checked_sub(off).ok_or(CORRUPT)
}
