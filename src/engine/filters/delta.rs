//! The DELTA filter of C-Blosc2 (`delta.c`): XOR coding, not subtraction.
//!
//! Block 0 of a chunk is the reference: each of its items is XORed with
//! the previous item. Every other block is XORed item by item with the
//! reference block. Items are `typesize` wide when typesize is 1, 2, 4 or
//! 8, 8-byte words when typesize is another multiple of 8, bytes otherwise.
//! Trailing bytes that do not form a whole item are left unchanged (3.3.5
//! leaves them undefined on encode, which is its known bug; keeping them
//! unchanged decodes correctly with both implementations).
//!
//! XOR is bytewise, so "XOR with the item `w` bytes back" and "XOR with the
//! reference" are plain slice XORs whatever the item width; only the prefix
//! chain of block 0's decoding depends on `w`, and it runs on whole words
//! held in a register (C reloads each item from memory).

/// The item width C-Blosc2 uses for delta coding at `typesize`.
fn word(typesize: usize) -> usize {
    match typesize {
        1 | 2 | 4 | 8 => typesize,
        t if t % 8 == 0 => 8,
        _ => 1,
    }
}

/// `dst = a ^ b` over the common length, 8 bytes at a time where possible.
fn xor_into(dst: &mut [u8], a: &[u8], b: &[u8]) {
    let n = dst.len().min(a.len()).min(b.len());
    let (dst, a, b) = (&mut dst[..n], &a[..n], &b[..n]);
    let body = n / 8 * 8;
    for ((d, x), y) in dst[..body]
        .chunks_exact_mut(8)
        .zip(a[..body].chunks_exact(8))
        .zip(b[..body].chunks_exact(8))
    {
        (u64::load(x) ^ u64::load(y)).store(d);
    }
    for ((d, x), y) in dst[body..].iter_mut().zip(&a[body..]).zip(&b[body..]) {
        *d = x ^ y;
    }
}

/// `buf ^= r` over the common length.
fn xor_in_place(buf: &mut [u8], r: &[u8]) {
    let n = buf.len().min(r.len());
    let (buf, r) = (&mut buf[..n], &r[..n]);
    let body = n / 8 * 8;
    for (d, y) in buf[..body].chunks_exact_mut(8).zip(r[..body].chunks_exact(8)) {
        (u64::load(d) ^ u64::load(y)).store(d);
    }
    for (d, y) in buf[body..].iter_mut().zip(&r[body..]) {
        *d ^= y;
    }
}

/// A fixed-width unsigned word read and written in native byte order.
trait Word: Copy + std::ops::BitXor<Output = Self> {
    const ZERO: Self;
    const N: usize;
    fn load(b: &[u8]) -> Self;
    fn store(self, b: &mut [u8]);
}

macro_rules! word_impl {
    ($t:ty) => {
        impl Word for $t {
            const ZERO: Self = 0;
            const N: usize = std::mem::size_of::<$t>();
            #[inline(always)]
            fn load(b: &[u8]) -> Self {
                <$t>::from_ne_bytes(b.try_into().unwrap_or([0; std::mem::size_of::<$t>()]))
            }
            #[inline(always)]
            fn store(self, b: &mut [u8]) {
                b.copy_from_slice(&self.to_ne_bytes());
            }
        }
    };
}
word_impl!(u16);
word_impl!(u32);
word_impl!(u64);

/// Undo block 0's coding in place: `buf[i] ^= buf[i - 1]` item-wise, the
/// previous decoded item carried in a register (C reloads it from memory).
fn chain_in_place<T: Word>(buf: &mut [u8]) {
    let mut prev = T::ZERO;
    for d in buf.chunks_exact_mut(T::N) {
        let v = T::load(d) ^ prev;
        v.store(d);
        prev = v;
    }
}

/// Undo block 0's coding from `src` into `dst`.
fn chain_into<T: Word>(src: &[u8], dst: &mut [u8]) {
    let mut prev = T::ZERO;
    for (d, s) in dst.chunks_exact_mut(T::N).zip(src.chunks_exact(T::N)) {
        let v = T::load(s) ^ prev;
        v.store(d);
        prev = v;
    }
}

/// One step of the byte-wide chain on eight bytes: a prefix XOR inside the
/// little-endian word by shifts, then the carried last byte of the previous
/// word (broadcast to every lane). Returns the decoded word.
#[inline(always)]
fn byte_chain_step(x: u64, carry: u64) -> u64 {
    let mut x = x;
    x ^= x << 8;
    x ^= x << 16;
    x ^= x << 32;
    x ^ carry
}

/// The broadcast of a decoded word's last byte, carried to the next word.
#[inline(always)]
fn byte_carry(x: u64) -> u64 {
    (x >> 56).wrapping_mul(0x0101_0101_0101_0101)
}

fn bytes_in_place(buf: &mut [u8]) {
    let body = buf.len() / 8 * 8;
    let mut carry = 0u64;
    for d in buf[..body].chunks_exact_mut(8) {
        let x = byte_chain_step(u64::from_le_bytes(d.try_into().unwrap_or([0; 8])), carry);
        d.copy_from_slice(&x.to_le_bytes());
        carry = byte_carry(x);
    }
    let mut prev = carry as u8;
    for d in &mut buf[body..] {
        *d ^= prev;
        prev = *d;
    }
}

fn bytes_into(src: &[u8], dst: &mut [u8]) {
    let n = src.len().min(dst.len());
    let body = n / 8 * 8;
    let mut carry = 0u64;
    for (d, s) in dst[..body].chunks_exact_mut(8).zip(src[..body].chunks_exact(8)) {
        let x = byte_chain_step(u64::from_le_bytes(s.try_into().unwrap_or([0; 8])), carry);
        d.copy_from_slice(&x.to_le_bytes());
        carry = byte_carry(x);
    }
    let mut prev = carry as u8;
    for (d, s) in dst[body..n].iter_mut().zip(&src[body..n]) {
        *d = s ^ prev;
        prev = *d;
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
                // out[i] = in[i] ^ in[i-1], item-wise: one slice XOR.
                xor_into(&mut dst[w..body], &src[w..body], &src[..body - w]);
            }
        }
        Some(r) => {
            let m = body.min(r.len() / w * w);
            xor_into(&mut dst[..m], &src[..m], &r[..m]);
            dst[m..body].copy_from_slice(&src[m..body]);
        }
    }
    dst[body..n].copy_from_slice(&src[body..n]);
}

/// Decode one block in place. `dref` is `None` for block 0, else the fully
/// decoded block 0 of the same chunk.
pub fn decode(typesize: usize, buf: &mut [u8], dref: Option<&[u8]>) {
    let w = word(typesize);
    let body = buf.len() / w * w;
    let buf = &mut buf[..body];
    match dref {
        None => match w {
            8 => chain_in_place::<u64>(buf),
            4 => chain_in_place::<u32>(buf),
            2 => chain_in_place::<u16>(buf),
            _ => bytes_in_place(buf),
        },
        Some(r) => {
            let m = body.min(r.len() / w * w);
            xor_in_place(&mut buf[..m], &r[..m]);
        }
    }
}

/// Decode one block from `src` into `dst` (same length): [`decode`] without
/// a copy first, for when DELTA is the last filter to undo.
pub fn decode_into(typesize: usize, src: &[u8], dst: &mut [u8], dref: Option<&[u8]>) {
    let n = dst.len();
    let w = word(typesize);
    let body = n / w * w;
    match dref {
        None => match w {
            8 => chain_into::<u64>(&src[..body], &mut dst[..body]),
            4 => chain_into::<u32>(&src[..body], &mut dst[..body]),
            2 => chain_into::<u16>(&src[..body], &mut dst[..body]),
            _ => bytes_into(&src[..body], &mut dst[..body]),
        },
        Some(r) => {
            let m = body.min(r.len() / w * w);
            xor_into(&mut dst[..m], &src[..m], &r[..m]);
            dst[m..body].copy_from_slice(&src[m..body]);
        }
    }
    dst[body..n].copy_from_slice(&src[body..n]);
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The byte-by-byte definition, as `delta.c` writes it.
    fn decode_reference(typesize: usize, buf: &mut [u8], dref: Option<&[u8]>) {
        let w = word(typesize);
        let body = buf.len() / w * w;
        match dref {
            None => {
                for i in w..body {
                    buf[i] ^= buf[i - w];
                }
            }
            Some(r) => {
                let m = body.min(r.len() / w * w);
                for i in 0..m {
                    buf[i] ^= r[i];
                }
            }
        }
    }

    fn encode_reference(typesize: usize, src: &[u8], dref: Option<&[u8]>) -> Vec<u8> {
        let w = word(typesize);
        let body = src.len() / w * w;
        let mut out = src.to_vec();
        match dref {
            None => {
                for i in w..body {
                    out[i] = src[i] ^ src[i - w];
                }
            }
            Some(r) => {
                for i in 0..body.min(r.len() / w * w) {
                    out[i] = src[i] ^ r[i];
                }
            }
        }
        out
    }

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
            let mut d0 = vec![0u8; e0.len()];
            decode_into(ts, &e0, &mut d0, None);
            decode(ts, &mut e0, None);
            assert_eq!(e0, b0);
            assert_eq!(d0, b0);
            let mut d1 = vec![0u8; e1.len()];
            decode_into(ts, &e1, &mut d1, Some(&e0));
            decode(ts, &mut e1, Some(&e0));
            assert_eq!(e1, b1, "typesize {ts}");
            assert_eq!(d1, b1, "typesize {ts}");
        }
    }

    #[test]
    fn word_wise_matches_the_byte_loops() {
        let mut x = 0x1234_5678_9abc_def0u64;
        let raw: Vec<u8> = (0..4200)
            .map(|_| {
                x ^= x << 13;
                x ^= x >> 7;
                x ^= x << 17;
                x as u8
            })
            .collect();
        for ts in [1usize, 2, 3, 4, 5, 8, 16, 24, 255] {
            for len in [0usize, 1, 7, 8, 9, 63, 64, 65, 1000, 2048, 2067] {
                let (b0, b1) = (&raw[..len], &raw[len..2 * len]);
                let mut e0 = vec![0u8; len];
                let mut e1 = vec![0u8; len];
                encode(ts, b0, None, &mut e0);
                encode(ts, b1, Some(b0), &mut e1);
                assert_eq!(e0, encode_reference(ts, b0, None), "ts {ts} len {len}");
                assert_eq!(e1, encode_reference(ts, b1, Some(b0)), "ts {ts} len {len}");
                // Decoding arbitrary bytes (not only encoder output).
                for (blk, dref) in [(b1, None), (b1, Some(b0)), (b1, Some(&raw[..len / 2]))] {
                    let mut want = blk.to_vec();
                    decode_reference(ts, &mut want, dref);
                    let mut got = blk.to_vec();
                    decode(ts, &mut got, dref);
                    assert_eq!(got, want, "ts {ts} len {len}");
                    let mut into = vec![0u8; len];
                    decode_into(ts, blk, &mut into, dref);
                    assert_eq!(into, want, "ts {ts} len {len}");
                }
            }
        }
    }
}
