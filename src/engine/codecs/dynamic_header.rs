//! The Huffman code lengths of the first block of a zlib stream, when it is
//! a dynamic-Huffman block (RFC 1951, 3.2.7): what the encoder counted, so
//! a cheap look at what the stream is made of before decoding it. The bit
//! reader and the zlib header check also serve [`super::fixed_block`].

/// Most literal/length and distance codes a block can declare.
const MAX_LITLEN: usize = 288;
const MAX_DIST: usize = 32;

/// Literal/length and distance code lengths of one dynamic block (on the
/// stack: a decoder asks for them before every block it decodes).
pub struct CodeLengths {
    /// The literal/length lengths, then the distance lengths.
    lengths: [u8; MAX_LITLEN + MAX_DIST],
    hlit: usize,
    hdist: usize,
}

impl CodeLengths {
    /// Code lengths of the literal/length symbols 0..HLIT (0: unused).
    pub fn litlen(&self) -> &[u8] {
        &self.lengths[..self.hlit]
    }

    /// Code lengths of the distance codes 0..HDIST (0: unused).
    pub fn dist(&self) -> &[u8] {
        &self.lengths[self.hlit..self.hlit + self.hdist]
    }
}

/// Order in which the code-length code's lengths are stored.
const CODE_LENGTH_ORDER: [usize; 19] = [16, 17, 18, 0, 8, 7, 9, 6, 10, 5, 11, 4, 12, 3, 13, 2, 14, 1, 15];

/// Reads bits least significant first, as DEFLATE packs them.
pub(super) struct Bits<'a> {
    bytes: &'a [u8],
    next: usize,
    buf: u64,
    count: u32,
}

impl<'a> Bits<'a> {
    /// A reader at the first bit of `bytes`.
    pub(super) fn new(bytes: &'a [u8]) -> Bits<'a> {
        Bits {
            bytes,
            next: 0,
            buf: 0,
            count: 0,
        }
    }

    /// Fills the buffer to at least `n` (at most 32) bits, or with what is
    /// left of the input.
    fn refill(&mut self, n: u32) {
        while self.count < n {
            let Some(&b) = self.bytes.get(self.next) else {
                return;
            };
            self.next += 1;
            self.buf |= u64::from(b) << self.count;
            self.count += 8;
        }
    }

    /// The next `n` (at most 16) bits, `None` past the end.
    pub(super) fn take(&mut self, n: u32) -> Option<u32> {
        self.refill(n);
        if self.count < n {
            return None;
        }
        let v = (self.buf & ((1 << n) - 1)) as u32;
        self.buf >>= n;
        self.count -= n;
        Some(v)
    }
}

/// Longest code of the code-length code.
const CL_BITS: u32 = 7;

/// The code-length code as a table indexed by its next 7 bits (as read,
/// least significant first): (symbol, code length), length 0 for bit
/// patterns that are no code.
struct CodeLengthCode([(u8, u8); 1 << CL_BITS]);

impl CodeLengthCode {
    /// From the 19 code lengths; `None` for an over-subscribed set.
    fn new(lengths: &[u8; 19]) -> Option<CodeLengthCode> {
        let mut table = [(0u8, 0u8); 1 << CL_BITS];
        // Canonical codes: by length, then by symbol.
        let mut code = 0u32;
        for len in 1..=CL_BITS as u8 {
            for (sym, _) in lengths.iter().enumerate().filter(|&(_, &l)| l == len) {
                if code >= 1 << len {
                    return None;
                }
                // Huffman codes are packed most significant bit first.
                let reversed = code.reverse_bits() >> (32 - u32::from(len));
                let mut at = reversed as usize;
                while at < table.len() {
                    table[at] = (sym as u8, len);
                    at += 1 << len;
                }
                code += 1;
            }
            code <<= 1;
        }
        Some(CodeLengthCode(table))
    }

    fn decode(&self, bits: &mut Bits) -> Option<u8> {
        bits.refill(CL_BITS);
        let (sym, len) = self.0[(bits.buf & ((1 << CL_BITS) - 1)) as usize];
        if len == 0 || u32::from(len) > bits.count {
            return None;
        }
        bits.buf >>= len;
        bits.count -= u32::from(len);
        Some(sym)
    }
}

/// The DEFLATE data of a zlib stream: `None` unless the header says
/// method 8 (deflate), no preset dictionary, and its check is valid.
pub(super) fn deflate_body(stream: &[u8]) -> Option<&[u8]> {
    let (&cmf, rest) = stream.split_first()?;
    let (&flg, body) = rest.split_first()?;
    let valid = cmf & 0x0f == 8 && flg & 0x20 == 0 && (u16::from(cmf) << 8 | u16::from(flg)) % 31 == 0;
    valid.then_some(body)
}

/// The code lengths of `stream`'s first block: `None` when the stream is
/// not zlib-wrapped DEFLATE, when that block is stored or fixed-Huffman, or
/// when its header is malformed or cut short (the decoder then reports it).
pub fn first_block(stream: &[u8]) -> Option<CodeLengths> {
    let mut bits = Bits::new(deflate_body(stream)?);
    let _last = bits.take(1)?;
    if bits.take(2)? != 2 {
        return None;
    }
    let hlit = bits.take(5)? as usize + 257;
    let hdist = bits.take(5)? as usize + 1;
    let hclen = bits.take(4)? as usize + 4;
    let mut cl_lengths = [0u8; 19];
    for &sym in &CODE_LENGTH_ORDER[..hclen] {
        cl_lengths[sym] = bits.take(3)? as u8;
    }
    let cl_code = CodeLengthCode::new(&cl_lengths)?;
    let mut lengths = [0u8; MAX_LITLEN + MAX_DIST];
    let mut n = 0usize;
    while n < hlit + hdist {
        let (value, repeat) = match cl_code.decode(&mut bits)? {
            sym @ 0..=15 => (sym, 1),
            16 => (*lengths[..n].last()?, 3 + bits.take(2)? as usize),
            17 => (0, 3 + bits.take(3)? as usize),
            _ => (0, 11 + bits.take(7)? as usize),
        };
        if n + repeat > hlit + hdist {
            return None;
        }
        lengths[n..n + repeat].fill(value);
        n += repeat;
    }
    Some(CodeLengths { lengths, hlit, hdist })
}

#[cfg(test)]
mod tests {
    use super::super::zlib;
    use super::first_block;

    fn stream(data: &[u8], level: u8) -> Vec<u8> {
        zlib::compressed(level, data)
    }

    /// Sum of 2^-length over the used symbols, in 1/2^15 units: a
    /// complete prefix code (what zlib writes when it uses two or more
    /// symbols) sums to exactly 1.
    fn kraft(lengths: &[u8]) -> u32 {
        lengths.iter().filter(|&&l| l > 0).map(|&l| 1u32 << (15 - l)).sum()
    }

    /// The lengths read agree with what the data holds: text has no
    /// literal 0 and many matches; unshuffled int64 counting up is mostly
    /// a literal and a 7-byte match 8 bytes back. Every set read is a
    /// complete prefix code (a misread length would break that).
    #[test]
    fn reads_what_the_encoder_counted() {
        for level in 1..=9u8 {
            for seed in 0..6u64 {
                let data: Vec<u8> = (0..100_000u64)
                    .map(|i| match seed {
                        0 => (i / 7 % 23) as u8,
                        1 => (i.wrapping_mul(0x9E37_79B9_7F4A_7C15) >> (56 - seed)) as u8,
                        2 => ((i / 8) >> (8 * (i % 8))) as u8,
                        _ => b"some words, some more words; and\n"[(i * seed % 33) as usize],
                    })
                    .collect();
                if let Some(code) = first_block(&stream(&data, level)) {
                    assert_eq!(kraft(code.litlen()), 1 << 15, "level {level} seed {seed}");
                    let dist_used = code.dist().iter().filter(|&&l| l > 0).count();
                    if dist_used > 1 {
                        assert_eq!(kraft(code.dist()), 1 << 15, "level {level} seed {seed}");
                    }
                }
            }
        }
        let text: Vec<u8> = b"the quick brown fox jumps over the lazy dog, and again; "
            .iter()
            .cycle()
            .take(200_000)
            .copied()
            .collect();
        let code = first_block(&stream(&text, 6)).unwrap();
        assert_eq!(code.litlen()[0], 0);
        assert!(code.litlen()[b'o' as usize] > 0);
        assert!(code.litlen().len() >= 257 && code.litlen()[256] > 0);
        let counting: Vec<u8> = (0u64..32_768).flat_map(u64::to_le_bytes).collect();
        let code = first_block(&stream(&counting, 5)).unwrap();
        assert_eq!(code.litlen()[261], 1);
        assert_eq!(code.dist()[5], 1);
    }

    /// Stored and fixed blocks, other headers, and every cut or damaged
    /// header give `None` or some lengths, never a panic.
    #[test]
    fn refuses_what_it_cannot_read() {
        let tiny = stream(b"ab", 6);
        assert!(first_block(&tiny).is_none(), "fixed Huffman");
        let stored = stream(&[7u8; 100], 0);
        assert!(first_block(&stored).is_none(), "stored");
        assert!(first_block(&[]).is_none());
        assert!(first_block(&[0x78]).is_none());
        assert!(first_block(&[0x78, 0x9c]).is_none());
        let counting: Vec<u8> = (0u64..4096).flat_map(u64::to_le_bytes).collect();
        let good = stream(&counting, 5);
        for bad in zlib::cut_and_damaged(&good) {
            let _ = first_block(&bad);
        }
    }
}
