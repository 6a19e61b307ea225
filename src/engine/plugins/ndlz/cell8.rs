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

use super::{gather, read_u16, slot, stream_bytes, Out, Tables, CORRUPT, HEADER_LEN, MAX_DISTANCE};

/// Encode the cells of the `shape` block `src` after the header already in
/// `dst`; the stream's length, or 0 when it does not fit or is not smaller
/// than `src`.
pub(super) fn encode(src: &[u8], shape: [usize; 2], dst: &mut [u8]) -> usize {
    let [rows, cols] = shape;
    let grid = [rows.div_ceil(8), cols.div_ceil(8)];
    let mut out = Out {
        buf: dst,
        pos: HEADER_LEN,
    };
    let mut tab = Tables::new();
    // As in cell4: slots kept from cell to cell, as 3.3.5 keeps them.
    let mut hash_triple = [0usize; 6];
    let mut hash_pair = [0usize; 7];
    let mut cell = [0u8; 64];
    for i0 in 0..grid[0] {
        for i1 in 0..grid[1] {
            let mut update_triple = [0u32; 6];
            let mut update_pair = [0u32; 7];
            if out.pos + 65 > out.buf.len() {
                return 0;
            }
            let orig = i0 * 8 * cols + i1 * 8;
            let pad = [(rows - i0 * 8).min(8), (cols - i1 * 8).min(8)];
            if pad != [8, 8] {
                // Edge cells are literals.
                out.byte(0);
                gather(src, cols, orig, pad, &mut out);
            } else {
                for r in 0..8 {
                    let at = orig + r * cols;
                    cell[8 * r..8 * r + 8].copy_from_slice(&src[at..at + 8]);
                }
                let anchor = out.pos;
                let hash_cell = slot(&cell);
                let seen = tab.cell[hash_cell];
                let distance = if out.holds(seen, &cell) {
                    anchor - seen as usize
                } else {
                    0
                };
                if cell.iter().all(|&b| b == cell[0]) {
                    out.put(&[64, cell[0]]);
                } else if distance == 0 || distance >= MAX_DISTANCE {
                    let matched = row_matches(
                        &cell,
                        &tab,
                        &mut out,
                        (&mut update_triple, &mut hash_triple),
                        (&mut update_pair, &mut hash_pair),
                    );
                    if !matched {
                        tab.cell[hash_cell] = (anchor + 1) as u32;
                        if update_triple[0] != 0 {
                            for h in 0..6 {
                                tab.triple[hash_triple[h]] = update_triple[h];
                            }
                        }
                        if update_pair[0] != 0 {
                            for h in 0..7 {
                                tab.pair[hash_pair[h]] = update_pair[h];
                            }
                        }
                        out.byte(0);
                        out.put(&cell);
                    }
                } else {
                    out.byte(192);
                    out.put(&((anchor - seen as usize) as u16).to_le_bytes());
                }
            }
            if out.pos > src.len() {
                return 0;
            }
        }
    }
    out.pos
}

/// Look for an earlier row triple, then row pair (consecutive rows), in
/// 3.3.5's order; write the first match found and return true. Records
/// where each group would enter the tables should the cell stay a literal.
fn row_matches(
    cell: &[u8; 64],
    tab: &Tables,
    out: &mut Out<'_>,
    triples: (&mut [u32; 6], &mut [usize; 6]),
    pairs: (&mut [u32; 7], &mut [usize; 7]),
) -> bool {
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
