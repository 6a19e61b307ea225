//! The DELTA filter of C-Blosc2 (`delta.c`): XOR coding, not subtraction.
//!
//! Block 0 of a chunk is the reference: each of its items is XORed with
//! the previous item. Every other block is XORed item by item with the
//! reference block. Items are `typesize` wide when typesize is 1, 2, 4 or
//! 8, 8-byte words when typesize is another multiple of 8, bytes otherwise.
//! Trailing bytes that do not form a whole item are left unchanged (3.3.5
//! leaves them undefined on encode, which is its known bug; keeping them
//! unchanged decodes correctly with both implementations).

/// The item width C-Blosc2 uses for delta coding at `typesize`.
fn word(typesize: usize) -> usize {
    match typesize {
        1 | 2 | 4 | 8 => typesize,
        t if t % 8 == 0 => 8,
        _ => 1,
    }
}

fn xor_word(dst: &mut [u8], a: &[u8], b: &[u8]) {
    for ((d, x), y) in dst.iter_mut().zip(a).zip(b) {
        *d = x ^ y;
    }
}

/// Encode one block. `src` is the block's input to this filter; `dref` is
/// `None` for the reference block (block 0), else the reference block's raw
/// bytes (the start of the unfiltered chunk, as 3.3.5 does).
pub fn encode(typesize: usize, src: &[u8], dref: Option<&[u8]>, dst: &mut [u8]) {
    let n = src.len();
    let w = word(typesize);
    let body = n / w * w;
    match dref {
        None => {
            if body >= w {
                dst[..w].copy_from_slice(&src[..w]);
                // out[i] = in[i] ^ in[i-1], item-wise.
                for i in (w..body).step_by(w) {
                    let (prev, cur) = (&src[i - w..i], &src[i..i + w]);
                    xor_word(&mut dst[i..i + w], cur, prev);
                }
            }
        }
        Some(r) => {
            let m = body.min(r.len() / w * w);
            xor_word(&mut dst[..m], &src[..m], &r[..m]);
            dst[m..body].copy_from_slice(&src[m..body]);
        }
    }
    dst[body..n].copy_from_slice(&src[body..n]);
}

/// Decode one block in place. `dref` is `None` for block 0, else the fully
/// decoded block 0 of the same chunk.
pub fn decode(typesize: usize, buf: &mut [u8], dref: Option<&[u8]>) {
    let n = buf.len();
    let w = word(typesize);
    let body = n / w * w;
    match dref {
        None => {
            // Prefix XOR over items: each decoded item feeds the next.
            for i in (w..body).step_by(w) {
                for k in 0..w {
                    buf[i + k] ^= buf[i - w + k];
                }
            }
        }
        Some(r) => {
            let m = body.min(r.len() / w * w);
            for (b, x) in buf[..m].iter_mut().zip(&r[..m]) {
                *b ^= x;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trip_all_widths() {
        for ts in [1usize, 2, 3, 4, 8, 12, 16, 24] {
            let raw: Vec<u8> = (0..1003u32).map(|i| (i * 7 % 256) as u8).collect();
            let b0 = &raw[..500];
            let b1 = &raw[500..];
            let mut e0 = vec![0u8; b0.len()];
            let mut e1 = vec![0u8; b1.len()];
            encode(ts, b0, None, &mut e0);
            encode(ts, b1, Some(b0), &mut e1);
            decode(ts, &mut e0, None);
            assert_eq!(e0, b0);
            decode(ts, &mut e1, Some(&e0));
            assert_eq!(e1, b1, "typesize {ts}");
        }
    }
}
