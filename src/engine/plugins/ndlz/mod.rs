//! The NDLZ codec (id 32) of C-Blosc2 3.3.5: Lempel-Ziv over the square
//! cells of a 2-D block.
//!
//! A stream is a header (`ndim` = 2 as one byte, then the block shape as
//! two little-endian `i32`) and one token per cell, cells in C order over
//! the cell grid; edge cells are clipped to the block. `meta` is the cell
//! edge: 4 ([`cell4`]) or 8 ([`cell8`]). Tokens both share:
//!
//! | token | cell |
//! | --- | --- |
//! | 0 | literal: the cell's bytes follow, row by row |
//! | 64 | every byte the same: one byte follows |
//! | 192 | same as an earlier literal cell: `u16` distance back to its bytes |
//!
//! and each has its own row matches (an earlier group of 2 or 3 rows, the
//! other rows as literals). The encoder finds matches through three
//! 4096-entry tables keyed by XXH32 (seed 1) of a cell, a row pair and a
//! row triple; only literal cells enter the tables, and only what 3.3.5's
//! encoder enters, so the streams are 3.3.5's byte for byte.
//!
//! Every read the decoder makes is checked against the stream: a corrupt
//! stream is an error, never a read outside it.

mod cell4;
mod cell8;
mod xxh32;

use crate::engine::b2nd::meta::Meta;
use crate::engine::error::{Error, Result};

/// Bytes of the stream header: `ndim`, then the block shape.
const HEADER_LEN: usize = 9;
/// A match must lie closer than this (`MAX_DISTANCE`).
const MAX_DISTANCE: usize = 65535;
/// log2 of the match tables' size (`HASH_LOG`).
const HASH_LOG: u32 = 12;

/// Compress the 2-D block `src` (one byte per item: typesize 1, or one
/// byte plane of a split block) into `dst` (`ndlz_compress`). Returns the
/// stream's length, or 0 when it would not fit `dst` or not be smaller
/// than `src` (3.3.5 stores the block as is then).
pub fn compress(src: &[u8], dst: &mut [u8], meta: u8, _typesize: usize, b2nd: &Meta) -> Result<usize> {
    let cell = match meta {
        4 | 8 => meta as usize,
        _ => return Err(Error::Failure("NDLZ: cell size must be 4 or 8")),
    };
    if b2nd.ndim() != 2 || b2nd.blockshape.len() != 2 {
        return Err(Error::Failure("NDLZ: only for 2-D arrays"));
    }
    let (rows, cols) = (b2nd.blockshape[0], b2nd.blockshape[1]);
    if rows < 0 || cols < 0 || src.len() as i64 != rows as i64 * cols as i64 {
        return Err(Error::Failure("NDLZ: length not equal to blocksize"));
    }
    if dst.len() < HEADER_LEN {
        return Err(Error::Failure("NDLZ: output too small"));
    }
    // 3.3.5 gives up on blocks smaller than a cell and on outputs smaller
    // than a 2-byte token per cell (and then some).
    let cell_size = cell * cell;
    let overhead = 17 + (src.len() as i64 / cell_size as i64 - 1) * 2;
    if src.len() < cell_size || (dst.len() as i64) < overhead {
        return Ok(0);
    }
    let shape = [rows as usize, cols as usize];
    dst[0] = 2;
    dst[1..5].copy_from_slice(&rows.to_le_bytes());
    dst[5..9].copy_from_slice(&cols.to_le_bytes());
    let n = if cell == 4 {
        cell4::encode(src, shape, dst)
    } else {
        cell8::encode(src, shape, dst)
    };
    Ok(n)
}

/// Decompress an NDLZ stream into `dst` (`ndlz_decompress`). Returns the
/// block's size (`rows * cols`), or 0 when `src` is shorter than the
/// header or `dst` smaller than the block, as 3.3.5 does. The block shape
/// is the stream's own: like 3.3.5's, the decoder reads no metalayer, so
/// it works outside a super-chunk too.
pub fn decompress(src: &[u8], dst: &mut [u8], meta: u8) -> Result<usize> {
    let cell = match meta {
        4 | 8 => meta as usize,
        _ => return Err(Error::Failure("NDLZ: cell size must be 4 or 8")),
    };
    if src.len() < HEADER_LEN {
        return Ok(0);
    }
    if src[0] != 2 {
        return Err(Error::Failure("NDLZ: only for 2-D arrays"));
    }
    let rows = i32::from_le_bytes([src[1], src[2], src[3], src[4]]);
    let cols = i32::from_le_bytes([src[5], src[6], src[7], src[8]]);
    if rows < 0 || cols < 0 {
        return Err(Error::Failure("NDLZ: negative blockshape"));
    }
    let nbytes = rows as u64 * cols as u64;
    if (dst.len() as u64) < nbytes {
        return Ok(0);
    }
    let shape = [rows as usize, cols as usize];
    let dst = &mut dst[..nbytes as usize];
    if cell == 4 {
        decode_cells::<4, 16>(src, dst, shape, cell4::decode_rows)?;
    } else {
        decode_cells::<8, 64>(src, dst, shape, cell8::decode_rows)?;
    }
    Ok(nbytes as usize)
}

/// Where the bytes of a decoded cell are, row after row (`padding[1]`
/// bytes each).
enum CellBytes {
    /// In the stream, from this offset.
    Stream(usize),
    /// In the scratch cell.
    Scratch,
}

/// The decoding loop both cell sizes share (`CELL` items per side, `SIZE`
/// = `CELL * CELL`): tokens 0, 64 and 192 here, row matches in `rows_of`,
/// which gets `(token, stream, offset of the token, the scratch cell)`,
/// fills the scratch cell and returns the offset after the token's bytes,
/// `None` for a token it does not know.
#[inline(always)]
fn decode_cells<const CELL: usize, const SIZE: usize>(
    src: &[u8],
    dst: &mut [u8],
    shape: [usize; 2],
    rows_of: impl Fn(u8, &[u8], usize, &mut [u8; SIZE]) -> Option<Result<usize>>,
) -> Result<()> {
    let [rows, cols] = shape;
    let cell = CELL;
    let grid = [rows.div_ceil(cell), cols.div_ceil(cell)];
    let mut scratch = [0u8; SIZE];
    let mut ip = HEADER_LEN;
    for i0 in 0..grid[0] {
        let pad0 = if i0 + 1 == grid[0] { rows - i0 * cell } else { cell };
        for i1 in 0..grid[1] {
            let pad1 = if i1 + 1 == grid[1] { cols - i1 * cell } else { cell };
            let cur = ip;
            let token = *src.get(cur).ok_or(CORRUPT)?;
            let bytes = match token {
                0 => {
                    ip = in_stream(src, cur + 1, pad0 * pad1)?;
                    CellBytes::Stream(cur + 1)
                }
                192 => {
                    let offset = read_u16(src, cur + 1)? as usize;
                    let from = cur.checked_sub(offset).ok_or(CORRUPT)?;
                    in_stream(src, from, pad0 * pad1)?;
                    ip = cur + 3;
                    CellBytes::Stream(from)
                }
                64 => {
                    let b = *src.get(cur + 1).ok_or(CORRUPT)?;
                    scratch.fill(b);
                    ip = cur + 2;
                    CellBytes::Scratch
                }
                _ => {
                    ip = rows_of(token, src, cur, &mut scratch).ok_or(Error::Failure("NDLZ: invalid token"))??;
                    CellBytes::Scratch
                }
            };
            let from: &[u8] = match bytes {
                CellBytes::Stream(at) => &src[at..at + pad0 * pad1],
                CellBytes::Scratch => &scratch[..pad0 * pad1],
            };
            let orig = i0 * cell * cols + i1 * cell;
            if pad0 == CELL && pad1 == CELL {
                // Whole cells (all but the edges): rows of a known size.
                for (r, row) in from.chunks_exact(CELL).enumerate() {
                    let at = orig + r * cols;
                    dst[at..at + CELL].copy_from_slice(row);
                }
            } else {
                for (r, row) in from.chunks_exact(pad1).enumerate() {
                    let at = orig + r * cols;
                    dst[at..at + pad1].copy_from_slice(row);
                }
            }
        }
    }
    Ok(())
}

/// The error for a stream that points outside itself.
const CORRUPT: Error = Error::Failure("NDLZ: out-of-bounds reference in compressed stream");

/// Check that `len` bytes from `at` are in the stream; the offset after them.
fn in_stream(src: &[u8], at: usize, len: usize) -> Result<usize> {
    at.checked_add(len).filter(|&end| end <= src.len()).ok_or(CORRUPT)
}

/// `len` bytes of the stream from `at`.
fn stream_bytes(src: &[u8], at: usize, len: usize) -> Result<&[u8]> {
    src.get(at..in_stream(src, at, len)?).ok_or(CORRUPT)
}

fn read_u16(src: &[u8], at: usize) -> Result<u16> {
    let b = stream_bytes(src, at, 2)?;
    Ok(u16::from_le_bytes([b[0], b[1]]))
}

/// The slot of `bytes` in a match table.
#[inline(always)]
fn slot(bytes: &[u8]) -> usize {
    (xxh32::xxh32(bytes, 1) >> (32 - HASH_LOG)) as usize
}

/// The encoder's output: `dst` with a write position.
struct Out<'a> {
    buf: &'a mut [u8],
    pos: usize,
}

impl Out<'_> {
    #[inline(always)]
    fn put(&mut self, bytes: &[u8]) {
        self.buf[self.pos..self.pos + bytes.len()].copy_from_slice(bytes);
        self.pos += bytes.len();
    }

    #[inline(always)]
    fn byte(&mut self, b: u8) {
        self.buf[self.pos] = b;
        self.pos += 1;
    }

    /// Whether the `len` bytes an entry of a match table points to (an
    /// offset into the output, 0 = empty) equal `bytes`.
    #[inline(always)]
    fn holds(&self, entry: u32, bytes: &[u8]) -> bool {
        entry != 0 && self.buf.get(entry as usize..entry as usize + bytes.len()) == Some(bytes)
    }
}

/// The three match tables of the encoder (`tab_cell`, `tab_triple`,
/// `tab_pair`): output offsets of literal cells' bytes, 0 = empty.
struct Tables {
    cell: Vec<u32>,
    triple: Vec<u32>,
    pair: Vec<u32>,
}

impl Tables {
    fn new() -> Tables {
        let n = 1 << HASH_LOG;
        Tables {
            cell: vec![0; n],
            triple: vec![0; n],
            pair: vec![0; n],
        }
    }
}

/// Copy the `pad0 x pad1` cell at `orig` of the `cols`-wide block `src`
/// into `out`, row after row.
#[inline(always)]
fn gather(src: &[u8], cols: usize, orig: usize, pad: [usize; 2], out: &mut Out<'_>) {
    for r in 0..pad[0] {
        let at = orig + r * cols;
        out.put(&src[at..at + pad[1]]);
    }
}

#[cfg(test)]
mod tests;

/// The slots of a cell's row groups in the triple and pair tables: where
/// each group would enter (`update`, 0 for none) and its slot (`hash`).
type Groups<'a, const N: usize> = (&'a mut [u32; N], &'a mut [usize; N]);

/// The encoder both cell sizes share: `E`x`E` cells (`A` = `E * E` bytes)
/// in C order, edge cells as literals, a cell all of one byte as token 64,
/// a repeat of an earlier literal cell as token 192, else what the cell
/// size's `row_matches` finds (`T` row triples, `P` row pairs), else a
/// literal. Returns the stream's length after the header already in
/// `dst`, or 0 when it does not fit or is not smaller than `src`.
fn encode_cells<const E: usize, const A: usize, const T: usize, const P: usize>(
    src: &[u8],
    shape: [usize; 2],
    dst: &mut [u8],
    row_matches: impl Fn(&[u8; A], &Tables, &mut Out<'_>, Groups<'_, T>, Groups<'_, P>) -> bool,
) -> usize {
    let [rows, cols] = shape;
    let grid = [rows.div_ceil(E), cols.div_ceil(E)];
    let mut out = Out {
        buf: dst,
        pos: HEADER_LEN,
    };
    let mut tab = Tables::new();
    // The slots a literal cell's row groups go to. Like 3.3.5, the slots
    // are not cleared between cells: a group that found its slot taken
    // leaves its offset 0 and an older cell's slot is cleared with it.
    let mut hash_triple = [0usize; T];
    let mut hash_pair = [0usize; P];
    let mut cell = [0u8; A];
    for i0 in 0..grid[0] {
        for i1 in 0..grid[1] {
            let mut update_triple = [0u32; T];
            let mut update_pair = [0u32; P];
            if out.pos + A + 1 > out.buf.len() {
                return 0;
            }
            let orig = i0 * E * cols + i1 * E;
            let pad = [(rows - i0 * E).min(E), (cols - i1 * E).min(E)];
            if pad != [E, E] {
                // Edge cells are literals.
                out.byte(0);
                gather(src, cols, orig, pad, &mut out);
            } else {
                for r in 0..E {
                    let at = orig + r * cols;
                    cell[E * r..E * r + E].copy_from_slice(&src[at..at + E]);
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
                            for h in 0..T {
                                tab.triple[hash_triple[h]] = update_triple[h];
                            }
                        }
                        if update_pair[0] != 0 {
                            for h in 0..P {
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
