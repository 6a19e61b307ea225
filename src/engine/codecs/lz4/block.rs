//! Pieces of the LZ4 block format shared by the fast compressor, the HC
//! compressor and the decoder.
//!
//! A block is a series of sequences: a token byte (literal length in the high
//! nibble, match length minus [`MIN_MATCH`] in the low nibble), optional
//! extra literal-length bytes, the literals, a little-endian u16 offset and
//! optional extra match-length bytes. Each length nibble of 15 is followed by
//! bytes that are added to it until one is not 255. The last sequence has
//! literals only.

/// Shortest match the format can express.
pub(crate) const MIN_MATCH: usize = 4;
/// The last 5 bytes of a block are always literals: C's decoder relies on it.
pub(crate) const LAST_LITERALS: usize = 5;
/// A match may not start within the last 12 bytes of a block (C's decoder
/// rejects blocks that break this rule).
pub(crate) const MF_LIMIT: usize = 12;
/// Inputs shorter than this are stored as one literal run.
pub(crate) const MIN_INPUT: usize = MF_LIMIT + 1;
/// Largest offset a 16-bit match distance can express.
pub(crate) const MAX_DISTANCE: usize = 65_535;
/// Largest input C's LZ4 accepts (`LZ4_MAX_INPUT_SIZE`); larger ones are
/// refused so that positions always fit in a `u32` with room to spare.
pub(crate) const MAX_INPUT: usize = 0x7E00_0000;

/// Reads 4 little-endian bytes at `i`.
#[inline(always)]
pub(crate) fn read_u32(buf: &[u8], i: usize) -> u32 {
    let mut b = [0u8; 4];
    b.copy_from_slice(&buf[i..i + 4]);
    u32::from_le_bytes(b)
}

/// Reads 2 little-endian bytes at `i`.
#[inline(always)]
pub(crate) fn read_u16(buf: &[u8], i: usize) -> u16 {
    let mut b = [0u8; 2];
    b.copy_from_slice(&buf[i..i + 2]);
    u16::from_le_bytes(b)
}

/// Reads 8 little-endian bytes at `i`.
#[inline(always)]
pub(crate) fn read_u64(buf: &[u8], i: usize) -> u64 {
    let mut b = [0u8; 8];
    b.copy_from_slice(&buf[i..i + 8]);
    u64::from_le_bytes(b)
}

/// Number of equal bytes going forward from `cand` and `cur` (`cand < cur`),
/// stopping before `cur` reaches `limit` (at most `buf.len()`).
#[inline(always)]
pub(crate) fn count_forward(buf: &[u8], cand: usize, cur: usize, limit: usize) -> usize {
    // Most matches of unfiltered data end within 8 bytes: test those first,
    // with no setup. Long matches go on in `count_forward_long`, whose loop
    // has no per-load bounds checks.
    if cur + 8 <= limit {
        let diff = read_u64(buf, cur) ^ read_u64(buf, cand);
        if diff != 0 {
            return (diff.trailing_zeros() / 8) as usize;
        }
        return 8 + count_forward_long(buf, cand + 8, cur + 8, limit);
    }
    count_forward_long(buf, cand, cur, limit)
}

/// [`count_forward`] past its first 8 bytes.
#[inline(always)]
fn count_forward_long(buf: &[u8], cand: usize, cur: usize, limit: usize) -> usize {
    // Two equal-length views of 8-byte words let the compiler drop
    // per-load bounds checks. (Word indexes, not `zip` of `chunks_exact`:
    // that zip's constructor stayed an out-of-line call, 4% of the
    // compressor's time on text; nor a byte index stepping by 8, whose
    // `n + 8` kept an overflow test in the loop: 9 instructions per word,
    // now 8.)
    let a = &buf[cur..limit];
    let b = &buf[cand..cand + a.len()];
    let (a_words, _) = a.as_chunks::<8>();
    let b_words = &b.as_chunks::<8>().0[..a_words.len()];
    let mut i = 0;
    while i < a_words.len() {
        let diff = u64::from_le_bytes(a_words[i]) ^ u64::from_le_bytes(b_words[i]);
        if diff != 0 {
            return 8 * i + (diff.trailing_zeros() / 8) as usize;
        }
        i += 1;
    }
    let mut n = 8 * a_words.len();
    while n < a.len() && a[n] == b[n] {
        n += 1;
    }
    n
}

/// Number of equal bytes going backward from just before `cand` and `cur`,
/// without `cur` going below `cur_low` nor `cand` below `cand_low`.
#[inline(always)]
pub(crate) fn count_backward(buf: &[u8], cand: usize, cur: usize, cur_low: usize, cand_low: usize) -> usize {
    let max = (cur - cur_low).min(cand - cand_low);
    // Usually nothing extends backward: one byte, behind a branch the CPU
    // predicts (a computed count would make the caller wait on the data).
    if max == 0 || buf[cand - 1] != buf[cur - 1] {
        return 0;
    }
    // Then 8 bytes at a time (LZ4HC's wider searches extend matches back
    // by tens of bytes); equal-length views drop per-load bounds checks.
    let a = &buf[cur - max..cur];
    let b = &buf[cand - max..cand];
    let mut n = 0;
    while n + 8 <= max {
        let at = max - n - 8;
        let diff = read_u64(a, at) ^ read_u64(b, at);
        if diff != 0 {
            // The byte nearest the end is the most significant one.
            return n + (diff.leading_zeros() / 8) as usize;
        }
        n += 8;
    }
    while n < max && a[max - n - 1] == b[max - n - 1] {
        n += 1;
    }
    n
}

/// The buffer the compressors work on: `input` preceded by the part of
/// `dict` that matches can reach (its last [`MAX_DISTANCE`] bytes), and the
/// position where `input` starts in it.
///
/// Treating the dictionary as a prefix of one contiguous buffer keeps the
/// match finders free of two-segment logic; the price is one copy of the
/// input, paid only when a dictionary is used. The block produced is the
/// same kind C's `LZ4_loadDict` + `LZ4_compress_fast_continue` produce:
/// offsets may point before the block start, into the dictionary's tail.
pub(crate) fn with_prefix<'a>(input: &'a [u8], dict: Option<&[u8]>) -> (std::borrow::Cow<'a, [u8]>, usize) {
    match dict {
        Some(d) if !d.is_empty() => {
            let d = &d[d.len().saturating_sub(MAX_DISTANCE)..];
            let mut buf = Vec::with_capacity(d.len() + input.len());
            buf.extend_from_slice(d);
            buf.extend_from_slice(input);
            (std::borrow::Cow::Owned(buf), d.len())
        }
        _ => (std::borrow::Cow::Borrowed(input), 0),
    }
}

/// Output cursor that refuses (returns `None`) instead of overflowing.
pub(crate) struct Writer<'a> {
    out: &'a mut [u8],
    pos: usize,
}

impl<'a> Writer<'a> {
    /// A writer at the start of `out`.
    #[inline]
    pub(crate) fn new(out: &'a mut [u8]) -> Self {
        Writer { out, pos: 0 }
    }

    /// Bytes written so far.
    #[inline]
    pub(crate) fn len(&self) -> usize {
        self.pos
    }

    /// Writes the extension bytes of a length whose nibble was 15.
    #[inline(always)]
    fn write_len_ext(&mut self, mut rest: usize) {
        while rest >= 255 {
            self.out[self.pos] = 255;
            self.pos += 1;
            rest -= 255;
        }
        self.out[self.pos] = rest as u8;
        self.pos += 1;
    }

    /// Copies `len` literals from `buf[from..]`.
    #[inline(always)]
    fn write_literals(&mut self, buf: &[u8], from: usize, len: usize) {
        // Short runs are the common case: one fixed 16-byte copy (which may
        // write garbage past the run, overwritten later) avoids a memcpy call
        // when both sides have the slack for it.
        if len <= 16 && from + 16 <= buf.len() && self.pos + 16 <= self.out.len() {
            self.out[self.pos..self.pos + 16].copy_from_slice(&buf[from..from + 16]);
        } else {
            self.out[self.pos..self.pos + len].copy_from_slice(&buf[from..from + len]);
        }
        self.pos += len;
    }

    /// Worst-case size of a sequence's token, length bytes and literals
    /// (the offset and match bytes are added by the caller).
    #[inline(always)]
    fn literal_cost(lit_len: usize) -> usize {
        1 + lit_len + if lit_len >= 15 { (lit_len - 15) / 255 + 1 } else { 0 }
    }

    /// Emits the literals `buf[anchor..anchor + lit_len]` followed by a match
    /// of `match_len` bytes at distance `offset`. `None` when it does not fit.
    #[inline(always)]
    pub(crate) fn sequence(
        &mut self,
        buf: &[u8],
        anchor: usize,
        lit_len: usize,
        offset: usize,
        match_len: usize,
    ) -> Option<()> {
        debug_assert!(match_len >= MIN_MATCH && (1..=MAX_DISTANCE).contains(&offset));
        let ml = match_len - MIN_MATCH;
        if lit_len < 15 && ml < 15 && anchor + 16 <= buf.len() && self.pos + 19 <= self.out.len() {
            // The common short sequence, through one 19-byte window (one
            // bounds check): token, 16 bytes from the literals (the bytes
            // past them are overwritten by what follows, or lie past the
            // block) and the offset. It always fits: it needs 3 + lit_len.
            let w: &mut [u8; 19] = (&mut self.out[self.pos..self.pos + 19]).try_into().unwrap();
            w[0] = ((lit_len as u8) << 4) | ml as u8;
            w[1..17].copy_from_slice(&buf[anchor..anchor + 16]);
            let o = 1 + lit_len;
            w[o..o + 2].copy_from_slice(&(offset as u16).to_le_bytes());
            self.pos += o + 2;
            return Some(());
        }
        let need = Self::literal_cost(lit_len) + 2 + if ml >= 15 { (ml - 15) / 255 + 1 } else { 0 };
        if need > self.out.len() - self.pos {
            return None;
        }
        let token_pos = self.pos;
        self.pos += 1;
        let lit_nib = if lit_len >= 15 {
            self.write_len_ext(lit_len - 15);
            15
        } else {
            lit_len as u8
        };
        self.write_literals(buf, anchor, lit_len);
        self.out[self.pos..self.pos + 2].copy_from_slice(&(offset as u16).to_le_bytes());
        self.pos += 2;
        let ml_nib = if ml >= 15 {
            self.write_len_ext(ml - 15);
            15
        } else {
            ml as u8
        };
        self.out[token_pos] = (lit_nib << 4) | ml_nib;
        Some(())
    }

    /// [`Writer::sequence`] without literals (`anchor` is where they
    /// would start): a token and an offset for a short match.
    #[inline(always)]
    pub(crate) fn match_only(&mut self, buf: &[u8], anchor: usize, offset: usize, match_len: usize) -> Option<()> {
        let ml = match_len - MIN_MATCH;
        if ml < 15 {
            if let Some(w) = self.out.get_mut(self.pos..self.pos + 3) {
                w[0] = ml as u8;
                w[1..3].copy_from_slice(&(offset as u16).to_le_bytes());
                self.pos += 3;
                return Some(());
            }
        }
        self.sequence(buf, anchor, 0, offset, match_len)
    }

    /// Emits the final literal-only sequence `lits`. `None` when it does not fit.
    pub(crate) fn last_literals(&mut self, lits: &[u8]) -> Option<()> {
        let n = lits.len();
        if Self::literal_cost(n) > self.out.len() - self.pos {
            return None;
        }
        if n >= 15 {
            self.out[self.pos] = 0xF0;
            self.pos += 1;
            self.write_len_ext(n - 15);
        } else {
            self.out[self.pos] = (n as u8) << 4;
            self.pos += 1;
        }
        self.out[self.pos..self.pos + n].copy_from_slice(lits);
        self.pos += n;
        Some(())
    }
}
