//! NDLZ with 8x8 cells (`ndlz8x8.c`).
//!
//! Row matches, rows numbered 0-7 in the cell, `off` a little-endian `u16`
//! distance back in the output, the rows not matched following as
//! literals (in order):
//!
//! | token | meaning |
//! | --- | --- |
//! | `168 \| i` (i < 6) | rows `i..i+3` match at `off` |
//! | `136 \| i` (i < 7) | rows `i..i+2` match at `off` |

use super::{encode_cells, read_u16, slot, stream_bytes, Groups, Out, Tables, CORRUPT, MAX_DISTANCE};

/// Encode the cells of the `shape` block `src` after the header already in
/// `dst`; the stream's length, or 0 when it does not fit or is not smaller
/// than `src`.
pub(super) fn encode(src: &[u8], shape: [usize; 2], dst: &mut [u8]) -> usize {
    encode_cells::<8, 64, 6, 7>(src, shape, dst, row_matches)
}

/// Look for an earlier row triple, then row pair (consecutive rows), in
/// 3.3.5's order; write the first match found and return true. Records
/// where each group would enter the tables should the cell stay a literal.
fn row_matches(cell: &[u8; 64], tab: &Tables, out: &mut Out<'_>, triples: Groups<'_, 6>, pairs: Groups<'_, 7>) -> bool {
    find_rows::<3, 24>(cell, &tab.triple, out, triples.0, triples.1, 168)
        || find_rows::<2, 16>(cell, &tab.pair, out, pairs.0, pairs.1, 136)
}

/// Look for groups of `N` consecutive rows (`LEN` = `8 * N` bytes) in
/// `table`; on a match write `token | first row`, the distance and the
/// other rows.
#[inline(always)]
fn find_rows<const N: usize, const LEN: usize>(
    cell: &[u8; 64],
    table: &[u32],
    out: &mut Out<'_>,
    update: &mut [u32],
    hash: &mut [usize],
    token: u8,
) -> bool {
    let anchor = out.pos;
    for i in 0..=8 - N {
        let group: &[u8; LEN] = cell[8 * i..8 * i + LEN].try_into().expect("LEN bytes");
        let hval = slot(group);
        let entry = table[hval];
        if entry == 0 {
            update[i] = (anchor + 1 + 8 * i) as u32;
            hash[i] = hval;
        }
        let d = if out.holds(entry, group) {
            anchor + 8 * i - entry as usize
        } else {
            0
        };
        if d != 0 && d < MAX_DISTANCE {
            out.byte(token | i as u8);
            out.put(&((anchor - entry as usize) as u16).to_le_bytes());
            for l in (0..8).filter(|&l| l < i || l >= i + N) {
                out.put(&cell[8 * l..8 * l + 8]);
            }
            return true;
        }
    }
    false
}

/// Decode a row-match token at `cur` into `cell`: the offset after it,
/// `None` for a token that is not one.
#[inline(always)]
pub(super) fn decode_rows(token: u8, src: &[u8], cur: usize, cell: &mut [u8; 64]) -> Option<super::Result<usize>> {
    let nrows = match token >> 3 {
        21 => 3,
        17 => 2,
        _ => return None,
    };
    let first = (token & 7) as usize;
    Some((|| {
        if first + nrows > 8 {
            return Err(super::Error::Failure("NDLZ: row match out of the cell"));
        }
        let off = read_u16(src, cur + 1)? as usize;
        let from = cur.checked_sub(off).ok_or(CORRUPT)?;
        let refs = stream_bytes(src, from, 8 * nrows)?;
        cell[8 * first..8 * (first + nrows)].copy_from_slice(refs);
        let mut ip = cur + 3;
        for l in (0..8).filter(|&l| l < first || l >= first + nrows) {
            cell[8 * l..8 * l + 8].copy_from_slice(stream_bytes(src, ip, 8)?);
            ip += 8;
        }
        Ok(ip)
    })())
}
