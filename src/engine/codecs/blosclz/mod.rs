//! BloscLZ, the default Blosc codec (a FastLZ derivative).
//!
//! This is a port of the format and of the exact encoder decisions of
//! C-Blosc2's `blosclz.c` (BloscLZ 2.5.3, shipped with C-Blosc2 3.3.x): for
//! every `clevel` in 1..=9 [`compress`] produces the same bytes as
//! `blosclz_compress(clevel, input, len, output, maxout = output.len(), ctx)`
//! (the C function ignores `ctx`), and [`decompress`] accepts every stream
//! written by that encoder and by the older c-blosc 1.x ones.
//!
//! # Stream format
//!
//! A stream is a sequence of tokens, each starting with a control byte
//! `ctrl` (the first one has its top three bits used as a format marker and
//! masked off):
//!
//! * `ctrl < 32`: `ctrl + 1` literal bytes follow.
//! * `ctrl >= 32`: a back-reference. `ctrl >> 5` is the length code (7 means
//!   "more length bytes follow, each 255 continues"), the low 5 bits are the
//!   high bits of the distance and the next byte its low bits. The copied
//!   length is `length code + 2` (plus the extra bytes) and the distance is
//!   `value + 1`. A distance value of `31 << 8 | 255` announces a "far" match
//!   whose distance is a following big-endian `u16` plus 8191.
//!
//! Decoding stops when the input is exhausted after a token. The hash used by
//! the encoder reads 32-bit words in little-endian order, as C does on the
//! little-endian machines Blosc is used on.

use crate::engine::codecs::match_end::{first_difference, EndGuess};
use crate::engine::codecs::pattern::{copy_match_exact, copy_short, copy_short_period};

/// Longest literal run encoded by one control byte.
const MAX_COPY: usize = 32;
/// Biased distances below this are "near" (13 bits in the token); the
/// others are "far", stored as a 16-bit offset from this value.
const MAX_DISTANCE: usize = 8191;
/// Matches must be strictly closer than this (`65535 + MAX_DISTANCE - 1`).
const MAX_FARDISTANCE: usize = 65535 + MAX_DISTANCE - 1;
/// Knuth's multiplicative constant, as used by LZ4 and BloscLZ.
const HASH_MUL: u32 = 2_654_435_761;
/// How far the encoder backs off from what `match_end` returns (one past the
/// first mismatch): `n` equal bytes give an encoder length of `n - 3`, and
/// the token copies that plus 2, i.e. `n - 1` bytes.
const IPSHIFT: usize = 4;
/// Shortest encoder length worth a match token (7 equal bytes).
const MINLEN: usize = 4;
/// Minimum estimated compression ratio per clevel for the encoder to run at
/// all ("entropy probing"); below it the block is declared incompressible.
const CRATIO_MIN: [f64; 10] = [0.0, 2.0, 1.5, 1.2, 1.2, 1.2, 1.2, 1.15, 1.1, 1.0];

/// Compress `input` into `output`; returns the compressed size, or 0 when
/// the data does not compress into `output` (the caller then stores it raw).
///
/// `clevel` is 1..=9 (values above 9 behave as 9; 0 always returns 0, as C
/// never calls the codec at level 0). The output is byte-identical to
/// C-Blosc2 3.3.x's `blosclz_compress` with `maxout = output.len()`. Inputs
/// shorter than 16 bytes, outputs shorter than 66 bytes and inputs larger
/// than `i32::MAX` bytes (outside the C function's domain) return 0.
pub fn compress(clevel: u8, input: &[u8], output: &mut [u8]) -> usize {
    compress_reusing(&mut Tables::default(), clevel, input, output)
}

/// [`compress`] with the hash table kept in `tables` from one call to the
/// next: the same bytes, without clearing the table (up to 64 KiB, twice
/// per call: once for the entropy probe, once for the encoder).
pub fn compress_reusing(tables: &mut Tables, clevel: u8, input: &[u8], output: &mut [u8]) -> usize {
    if clevel == 0 || input.len() > i32::MAX as usize {
        return 0;
    }
    let clevel = clevel.min(9);
    // Hash table size per clevel is 2^12, 2^13, then 2^14 (C's `hashlog_`).
    // Monomorphizing on it makes the table a fixed-size array indexed by a
    // value the compiler knows to be in range.
    match clevel {
        1 => Encoder::<4096, 20>::run(tables, clevel, input, output),
        2 => Encoder::<8192, 19>::run(tables, clevel, input, output),
        _ => Encoder::<16384, 18>::run(tables, clevel, input, output),
    }
}

/// Decompress `input` into `output`; returns the decoded size, or `None`
/// when the stream is malformed or does not fit.
///
/// The semantics are those of C-Blosc2 3.3.x's `blosclz_decompress`,
/// including its corner cases: an empty input decodes to 0 bytes, and a
/// match token that consumes the last input byte ends decoding without
/// being copied. Unlike C, an endless run of 255 length bytes is rejected as
/// soon as the length exceeds the output (c-blosc2 issue #801).
pub fn decompress(input: &[u8], output: &mut [u8]) -> Option<usize> {
    let Some((&first, _)) = input.split_first() else {
        return Some(0);
    };
    let in_len = input.len();
    let out_len = output.len();
    let mut ip = 1usize;
    let mut op = 0usize;
    let mut ctrl = usize::from(first & 31);
    loop {
        if ctrl < 32 {
            let n = ctrl + 1;
            if op + MAX_COPY <= out_len && ip + MAX_COPY <= in_len {
                // Fixed-size copy (no memcpy call); the bytes past `n` are
                // overwritten by later tokens or lie past the decoded size.
                // Two 16-byte stores, not one of 32: in unshuffled integers
                // a 1-byte literal is followed by a match that reads the
                // bytes just stored, and a 32-byte store there (which
                // crosses a cache line 3 times in 8) held up each such read
                // (i64 counting up: 144 -> 117 us per 128 KiB block).
                let head: [u8; 16] = input[ip..ip + 16].try_into().unwrap();
                let tail: [u8; 16] = input[ip + 16..ip + MAX_COPY].try_into().unwrap();
                output[op..op + 16].copy_from_slice(&head);
                output[op + 16..op + MAX_COPY].copy_from_slice(&tail);
            } else {
                // (`n` <= 32: two fixed-size copies, not a memcpy call.)
                copy_short(output.get_mut(op..op + n)?, input.get(ip..ip + n)?);
            }
            op += n;
            ip += n;
            match input.get(ip) {
                Some(&c) => ctrl = usize::from(c),
                None => break,
            }
            ip += 1;
            continue;
        }
        // Back-reference.
        let mut len = (ctrl >> 5) - 1;
        let ofs = (ctrl & 31) << 8;
        if len == 6 {
            loop {
                if ip + 1 >= in_len {
                    return None;
                }
                let code = input[ip];
                ip += 1;
                len += usize::from(code);
                if code != 255 {
                    break;
                }
                if len > out_len {
                    // Cannot fit whatever follows; stop before the length
                    // can grow without bound.
                    return None;
                }
            }
        } else if ip + 1 >= in_len {
            return None;
        }
        let code = usize::from(input[ip]);
        ip += 1;
        len += 3;
        // `dist` is the biased distance: the source starts `dist + 1` back.
        let mut dist = ofs + code;
        if code == 255 && ofs == 31 << 8 {
            if ip + 1 >= in_len {
                return None;
            }
            dist = (usize::from(input[ip]) << 8 | usize::from(input[ip + 1])) + MAX_DISTANCE;
            ip += 2;
        }
        if op + len > out_len || dist >= op {
            return None;
        }
        match input.get(ip) {
            Some(&c) => ctrl = usize::from(c),
            // C stops here without copying the match.
            None => break,
        }
        ip += 1;
        copy_match(output, op, dist + 1, len);
        op += len;
    }
    Some(op)
}

/// LZ77 copy of `len` bytes from `op - d` to `op` inside `buf`, where the
/// ranges may overlap (`d < len` repeats the last `d` bytes).
/// Requires `1 <= d <= op` and `op + len <= buf.len()`.
#[inline(always)]
fn copy_match(buf: &mut [u8], op: usize, d: usize, len: usize) {
    // Most matches are short: copy a fixed 32 bytes without calling memmove.
    // The bytes written past `op + len` are inside `buf` and get overwritten
    // by later tokens or lie past the decoded size.
    if len <= 32 && op + 32 <= buf.len() {
        if d >= 16 {
            // Each 16-byte step only reads bytes that are final: the second
            // one starts at `op - d + 16 <= op`, inside what the first wrote.
            let src = op - d;
            let a: [u8; 16] = buf[src..src + 16].try_into().unwrap();
            buf[op..op + 16].copy_from_slice(&a);
            let b: [u8; 16] = buf[src + 16..src + 32].try_into().unwrap();
            buf[op + 16..op + 32].copy_from_slice(&b);
            return;
        }
        if d == 1 {
            let b = buf[op - 1];
            buf[op..op + 32].fill(b);
            return;
        }
        if d >= 8 {
            // 8-byte steps (as C's wild_copy), each reading bytes that are
            // final: a wider read here would span the stores of earlier
            // tokens and defeat store-to-load forwarding.
            let mut k = 0;
            while k < len {
                let a: [u8; 8] = buf[op - d + k..op - d + k + 8].try_into().unwrap();
                buf[op + k..op + k + 8].copy_from_slice(&a);
                k += 8;
            }
            return;
        }
    }
    // Short periods (frequent in unshuffled integers) as a 16-byte pattern
    // rather than a chain of small overlapping copies.
    if d < 16 && op + len + 16 <= buf.len() {
        copy_short_period(buf, op, d, op + len);
        return;
    }
    copy_match_general(buf, op, d, len);
}

/// The long or near-the-end cases of [`copy_match`], kept out of line so
/// that the decoder's main loop stays small.
#[inline(never)]
fn copy_match_general(buf: &mut [u8], op: usize, d: usize, len: usize) {
    if d == 1 && len > 64 {
        // A long run of one byte: memset.
        let b = buf[op - 1];
        buf[op..op + len].fill(b);
    } else {
        copy_match_exact(buf, op, d, len);
    }
}

/// Reads a little-endian `u32` at `i`.
#[inline(always)]
fn read_u32(s: &[u8], i: usize) -> u32 {
    u32::from_le_bytes(s[i..i + 4].try_into().unwrap())
}

/// Whether the table's candidate `r` for position `ip` (whose 4 bytes are
/// `seq`) starts a match: `0 < ip - r < MAX_FARDISTANCE` (a zero distance is
/// the empty table's position 0 seen from position 0) and the same 4 bytes.
/// Both tests are evaluated and combined without a branch: each alone is
/// hard to predict, and one branch on the combination measured faster.
#[inline(always)]
fn is_candidate(s: &[u8], ip: usize, r: usize, seq: u32) -> bool {
    r < ip && ip - r < MAX_FARDISTANCE && read_u32(s, r) == seq
}

/// Reads a little-endian `u64` at `i`.
#[inline(always)]
fn read_u64(s: &[u8], i: usize) -> u64 {
    u64::from_le_bytes(s[i..i + 8].try_into().unwrap())
}

/// Extends a match whose first bytes are at `ip` (candidate) and `r` (earlier
/// copy), never looking at `bound` or beyond. Mirrors C's `get_match_16`/
/// `get_run`: returns one past the first mismatching position, or `bound`
/// when everything up to it matches. Requires `r < ip < bound <= s.len()`.
///
/// `guess` carries the position of the first difference within 8 bytes
/// from one short match to the next (see [`first_difference`]).
#[inline(always)]
fn match_end(s: &[u8], ip: usize, r: usize, bound: usize, guess: &mut EndGuess) -> usize {
    match match_end_first_word(s, ip, r, bound, guess) {
        Ok(end) => end,
        Err(skip) => match_end_long(s, ip + skip, r + skip, bound),
    }
}

/// The first step of [`match_end`]: most matches of unfiltered data end
/// within 8 bytes, tested first with no setup. `Ok(end)` when the match
/// ends there; else `Err(skip)`, the bytes known equal (8, or 0 when fewer
/// than 8 lie before `bound`), for [`match_end_long`] to go on from. Long
/// matches (runs in shuffled data) go on 16 bytes at a time there.
#[inline(always)]
fn match_end_first_word(s: &[u8], ip: usize, r: usize, bound: usize, guess: &mut EndGuess) -> Result<usize, usize> {
    if ip + 8 > bound {
        return Err(0);
    }
    let x = read_u64(s, ip) ^ read_u64(s, r);
    if x != 0 {
        Ok(ip + first_difference(x, guess) + 1)
    } else {
        Err(8)
    }
}

/// [`match_end_long`] as a call, for the probe's matches that do not end
/// in their first 8 bytes: inlined into the probe's per-byte scan, its
/// loop costs that scan registers it needs on every byte.
#[inline(never)]
fn match_end_long_apart(s: &[u8], ip: usize, r: usize, bound: usize) -> usize {
    match_end_long(s, ip, r, bound)
}

/// [`match_end`] past its first 8 bytes.
#[inline(always)]
fn match_end_long(s: &[u8], ip: usize, r: usize, bound: usize) -> usize {
    let n = bound - ip;
    let a = &s[ip..bound];
    let b = &s[r..r + n];
    let mut i = 0;
    for (ca, cb) in a.chunks_exact(16).zip(b.chunks_exact(16)) {
        let x = u128::from_le_bytes(ca.try_into().unwrap()) ^ u128::from_le_bytes(cb.try_into().unwrap());
        if x != 0 {
            return ip + i + (x.trailing_zeros() / 8) as usize + 1;
        }
        i += 16;
    }
    for (ca, cb) in a[i..].iter().zip(&b[i..]) {
        if ca != cb {
            return ip + i + 1;
        }
        i += 1;
    }
    bound
}

/// Entries of the largest hash table (clevel 3 and up).
const TABLE_LEN: usize = 1 << 14;

/// BloscLZ's hash table, kept from one call to the next (in a worker's
/// codec scratch) so that a short pass need not start by clearing it, as
/// C's `blosclz_compress` does twice per call (entropy probe, encoder):
/// 64 KiB at clevel 3 and up, for each 512-byte stream of a shuffled 4 KiB
/// chunk.
///
/// The bytes stay those of a zeroed table. Passes expected to store fewer
/// than `N / 4` positions (`N` the slots in use) are "tagged": a slot holds
/// a position plus the pass's base, and every pass gets a base above all
/// the values stored before it, so a slot below the base is stale and
/// reads as position 0, which is what an empty slot of a zeroed table
/// names. Passes storing more clear the slots and store plain positions:
/// there the clear costs less than the tag arithmetic at every position
/// scanned (16 KiB streams of smooth f64, which store a position per byte
/// or so, ran 2% slower tagged). See [`Encoder::run`] for how a pass's
/// positions are foreseen. The table is also cleared when a base would
/// leave the `u32` range (every 4 GiB of tagged passes).
#[derive(Default)]
pub struct Tables {
    slots: Vec<u32>,
    next_base: u64,
}

impl Tables {
    /// The first `N` slots, tagged, for one pass storing positions below
    /// `span`.
    fn tagged<const N: usize>(&mut self, span: usize) -> Htab<'_, N, true> {
        if self.slots.is_empty() {
            self.slots = vec![0; TABLE_LEN];
        }
        if self.next_base + span as u64 > 1 << 32 {
            self.slots.fill(0);
            self.next_base = 0;
        }
        let base = self.next_base as u32;
        self.next_base += span as u64;
        let slots = (&mut self.slots[..N]).try_into().expect("N is at most TABLE_LEN");
        Htab { slots, base }
    }

    /// The first `N` slots, cleared, for one pass storing positions below
    /// `span`; later tagged passes start above them.
    fn cleared<const N: usize>(&mut self, span: usize) -> Htab<'_, N, false> {
        if self.slots.is_empty() {
            self.slots = vec![0; TABLE_LEN];
        }
        // The slots past N keep values below the current next_base.
        self.next_base = self.next_base.max(span as u64);
        let slots: &mut [u32; N] = (&mut self.slots[..N]).try_into().expect("N is at most TABLE_LEN");
        slots.fill(0);
        Htab { slots, base: 0 }
    }
}

#[cfg(test)]
impl Tables {
    /// Moves the next base forward by `n` (as many passes would), so that
    /// tests reach the clearing point quickly.
    fn skip_base(&mut self, n: u64) {
        self.next_base = (self.next_base + n).min(1 << 32);
    }
}

/// A hash table of `N` positions as one pass sees it (see [`Tables`]);
/// `TAGGED`: positions are stored plus `base`.
struct Htab<'a, const N: usize, const TAGGED: bool> {
    slots: &'a mut [u32; N],
    /// Added to positions stored; slots below it read as position 0.
    base: u32,
}

impl<const N: usize, const TAGGED: bool> Htab<'_, N, TAGGED> {
    /// The position slot `h` holds (0 when stale, as an empty slot), and
    /// `ip` stored in its place.
    #[inline(always)]
    fn replace(&mut self, h: usize, ip: usize) -> usize {
        let v = self.slots[h];
        let r = if TAGGED { v.saturating_sub(self.base) } else { v };
        self.put(h, ip);
        r as usize
    }

    /// Stores position `ip` in slot `h`.
    #[inline(always)]
    fn put(&mut self, h: usize, ip: usize) {
        self.slots[h] = if TAGGED { ip as u32 + self.base } else { ip as u32 };
    }
}

/// The encoder for one hash table size `N = 2^(32 - SHIFT)`.
struct Encoder<const N: usize, const SHIFT: u32>;

impl<const N: usize, const SHIFT: u32> Encoder<N, SHIFT> {
    /// Table slot of the 4 bytes `seq` (LZ4's multiplicative hash, as C).
    #[inline(always)]
    fn hash(seq: u32) -> usize {
        (seq.wrapping_mul(HASH_MUL) >> SHIFT) as usize
    }

    /// Scans positions `ip..ip_limit`, recording each in the hash table,
    /// for one whose 4 bytes equal those at the table's candidate within
    /// reach. Returns (position, candidate), or `(ip_limit, 0)` when none.
    ///
    /// Kept out of line: inside the encoder's loop the scan competes for
    /// registers with the match emission and measured slower.
    #[inline(never)]
    fn scan<const TAGGED: bool>(
        s: &[u8],
        mut ip: usize,
        ip_limit: usize,
        htab: &mut Htab<'_, N, TAGGED>,
    ) -> (usize, usize) {
        // The callers pass at most s.len() - 12; stating that it is at most
        // s.len() - 4 lets the compiler drop the bounds checks of the reads.
        let end = ip_limit.min(s.len().saturating_sub(4));
        while ip < end {
            let seq = read_u32(s, ip);
            let h = Self::hash(seq);
            let r = htab.replace(h, ip);
            if is_candidate(s, ip, r, seq) {
                return (ip, r);
            }
            ip += 1;
        }
        (ip_limit, 0)
    }

    /// [`compress`] for one clevel (1..=9): probe, early exits, encode.
    fn run(tables: &mut Tables, clevel: u8, input: &[u8], output: &mut [u8]) -> usize {
        let length = input.len();

        // Entropy probing: dry-run the matcher on a window at the end of the
        // buffer and give up early when it does not compress well enough.
        let maxlen = match clevel {
            0..=1 => length / 8,
            2..=3 => length / 4,
            4..=6 => length / 2,
            _ => length,
        };
        let shift = length - maxlen;
        let limit = maxlen.min(N);
        let win = &input[shift..shift + limit];
        let cratio = if limit < N / 4 {
            Self::probe(win, &mut tables.tagged(limit))
        } else {
            Self::probe(win, &mut tables.cleared(limit))
        };
        if cratio < CRATIO_MIN[usize::from(clevel)] {
            return 0;
        }
        if length < 16 || output.len() < 66 {
            return 0;
        }
        // The encoder stores a position per literal scanned and one per
        // match: about one per output byte, `length / cratio` by the
        // probe's estimate. Shuffled integers (a stream of 16 KiB at 50x
        // and more) store a few hundred, where a clear writes 64 KiB:
        // 128 KiB chunks of i64 arange (shuffle, clevel 5) appended 1.05-1.18x
        // faster, half the bytes cleared gone; smooth f64 unchanged.
        let sparse = (length as f64 / cratio) < (N / 4) as f64;
        let encoded = match (sparse, clevel == 9) {
            (true, true) => Self::encode::<true, _>(input, output, &mut tables.tagged(length)),
            (true, false) => Self::encode::<false, _>(input, output, &mut tables.tagged(length)),
            (false, true) => Self::encode::<true, _>(input, output, &mut tables.cleared(length)),
            (false, false) => Self::encode::<false, _>(input, output, &mut tables.cleared(length)),
        };
        encoded.unwrap_or(0)
    }

    /// The entropy probe's matcher: scans positions `ip..ip_limit`,
    /// recording each in the hash table, for the next match the probe counts.
    /// Returns (position, encoder length, biased distance), or `None` when the
    /// scan reaches `ip_limit`.
    ///
    /// The probe is mostly scanning (on incompressible data it is all the
    /// codec does), and as a separate, non-inlined function this loop
    /// compiles to a tight per-byte loop with no bounds checks. The main
    /// encoder keeps its scan inline, which measured faster when matches are
    /// frequent.
    #[inline(never)]
    fn probe_match<const TAGGED: bool>(
        s: &[u8],
        mut ip: usize,
        ip_limit: usize,
        htab: &mut Htab<'_, N, TAGGED>,
        guess: &mut EndGuess,
    ) -> Option<(usize, usize, usize)> {
        // The caller passes s.len() - 12; stating that it is at most
        // s.len() - 4 lets the compiler drop the bounds checks of the reads.
        let ip_limit = ip_limit.min(s.len().saturating_sub(4));
        let ip_bound = s.len() - 1;
        while ip < ip_limit {
            let seq = read_u32(s, ip);
            let h = Self::hash(seq);
            let r = htab.replace(h, ip);
            // A zero distance (the empty table's position 0 seen from
            // position 0) and distances >= MAX_FARDISTANCE are no candidates.
            if r < ip && ip - r < MAX_FARDISTANCE && read_u32(s, r) == seq {
                // The first 8 bytes here (where most matches end), the
                // rest in a call.
                let end = match match_end_first_word(s, ip + 4, r + 4, ip_bound, guess) {
                    Ok(end) => end,
                    Err(skip) => match_end_long_apart(s, ip + 4 + skip, r + 4 + skip, ip_bound),
                };
                let len = end - IPSHIFT - ip;
                if len >= MINLEN {
                    return Some((ip, len, ip - r - 1));
                }
            }
            ip += 1;
        }
        None
    }

    /// Estimated compression ratio of `win` (C's `get_cratio`): the same
    /// matcher as [`Self::encode`] (without the far-match length rule or the
    /// clevel-9 extra hash), counting output bytes instead of writing them.
    /// Uses the whole of `htab` (C's `hashlen` entries), which must read
    /// as empty.
    fn probe<const TAGGED: bool>(win: &[u8], htab: &mut Htab<'_, N, TAGGED>) -> f64 {
        let limit = win.len();
        if limit <= 12 {
            return 0.0;
        }
        let ip_limit = limit - 12;
        let mut ip = 0usize;
        // Start of the pending literal run, and how many literals the
        // current control byte covers (C's `copy`, which wraps at 32). C
        // counts 5 bytes for a 4-byte literal it never emits, then scans
        // from position 0 anyway.
        let mut lit = 0usize;
        let mut copy = 4usize;
        let mut oc = 5usize;
        let mut guess = EndGuess::default();
        while let Some((anchor, len, d)) = Self::probe_match(win, ip, ip_limit, htab, &mut guess) {
            // Account for the literals [lit, anchor), one control byte per
            // 32, then drop the pending control byte if it is still empty.
            let k = anchor - lit;
            let t = copy + k;
            oc += k + t / MAX_COPY;
            if t.is_multiple_of(MAX_COPY) {
                oc -= 1;
            }
            copy = 0;
            if len >= 7 {
                oc += (len - 7) / 255 + 1;
            }
            oc += if d < MAX_DISTANCE { 2 } else { 4 };
            let ip2 = anchor + len;
            htab.put(Self::hash(read_u32(win, ip2)), ip2);
            ip = ip2 + 2;
            lit = ip;
            // The control byte assumed for the next literal run.
            oc += 1;
        }
        // Where C's scan stopped.
        let ip = ip.max(ip_limit);
        let k = ip - lit;
        oc += k + (copy + k) / MAX_COPY;
        ip as f64 / oc as f64
    }

    /// The main compression loop. `None` when the output does not fit: C
    /// gives up as soon as a literal, a match or the control byte that
    /// follows it would leave no room, which amounts to requiring
    /// `op < output.len()` after every literal run and every match.
    fn encode<const CLEVEL9: bool, const TAGGED: bool>(
        input: &[u8],
        output: &mut [u8],
        htab: &mut Htab<'_, N, TAGGED>,
    ) -> Option<usize> {
        let length = input.len();
        let maxout = output.len();
        let ip_bound = length - 1;
        let ip_limit = length - 12;
        // The first 4 bytes are always literals.
        let mut ip = 4usize;
        let mut lit = 0usize;
        let mut op = 0usize;
        let mut guess = EndGuess::default();
        loop {
            let (anchor, r) = Self::scan(input, ip, ip_limit, htab);
            if anchor >= ip_limit {
                break;
            }
            let dist = anchor - r;
            let end = match_end(input, anchor + 4, r + 4, ip_bound, &mut guess);
            let ip2 = end - IPSHIFT;
            let len = ip2 - anchor;
            // Biased distance, 0 meaning the previous byte.
            let d = dist - 1;
            if len < MINLEN || (len <= 5 && d >= MAX_DISTANCE) {
                ip = anchor + 1;
                continue;
            }
            let k = anchor - lit;
            if k <= 16 && len < 7 && d < MAX_DISTANCE && op + 32 < maxout && lit + 16 <= length {
                // The common short literal run and near short match: one
                // bounds check for both (the bytes written past the token
                // are overwritten by what follows, or lie past the data).
                let w: &mut [u8; 32] = (&mut output[op..op + 32]).try_into().unwrap();
                w[0] = (k as u8).wrapping_sub(1);
                w[1..17].copy_from_slice(&input[lit..lit + 16]);
                let o = k + usize::from(k > 0);
                w[o] = ((len << 5) + (d >> 8)) as u8;
                w[o + 1] = d as u8;
                op += o + 2;
            } else {
                op = emit_literals(input, lit, anchor, output, op)?;
                op = emit_match(output, op, len, d)?;
            }
            // Hash the match boundary (clevel 9 also the next position,
            // from the same word shifted, as C does).
            let seq2 = read_u32(input, ip2);
            htab.put(Self::hash(seq2), ip2);
            if CLEVEL9 {
                htab.put(Self::hash(seq2 >> 8), ip2 + 1);
            }
            ip = ip2 + 2;
            lit = ip;
        }
        op = emit_literals(input, lit, input.len(), output, op)?;
        debug_assert!(op < maxout);
        // Format marker in the top bits of the first (literal) control byte.
        output[0] |= 1 << 5;
        Some(op)
    }
}

/// Writes `input[lit..anchor]` as literal tokens at `op`; `None` unless the
/// result leaves at least one free byte (C's per-literal `op + 2 > op_limit`
/// check).
#[inline(always)]
fn emit_literals(input: &[u8], lit: usize, anchor: usize, output: &mut [u8], op: usize) -> Option<usize> {
    let lits = &input[lit..anchor];
    let k = lits.len();
    let new_op = op + k + k.div_ceil(MAX_COPY);
    if new_op >= output.len() {
        return None;
    }
    if k <= 16 && lit + 16 <= input.len() && op + 17 <= output.len() {
        // The common short run between two matches: one fixed-size copy
        // instead of a memcpy call (the bytes written past the run are
        // overwritten by what follows, or lie past the compressed data).
        if k > 0 {
            output[op] = (k - 1) as u8;
            output[op + 1..op + 17].copy_from_slice(&input[lit..lit + 16]);
        }
        return Some(new_op);
    }
    let out = &mut output[op..new_op];
    let mut o = 0;
    for chunk in lits.chunks(MAX_COPY) {
        out[o] = (chunk.len() - 1) as u8;
        out[o + 1..o + 1 + chunk.len()].copy_from_slice(chunk);
        o += chunk.len() + 1;
    }
    Some(new_op)
}

/// Writes a match of encoder length `len` (>= 4, copied length `len + 2`)
/// and biased distance `d` at `op`; `None` unless at least one byte is left
/// free afterwards (room for the next control byte, as C checks).
#[inline(always)]
fn emit_match(output: &mut [u8], op: usize, len: usize, d: usize) -> Option<usize> {
    let maxout = output.len();
    if d < MAX_DISTANCE {
        if len < 7 {
            if op + 2 >= maxout {
                return None;
            }
            output[op] = ((len << 5) + (d >> 8)) as u8;
            output[op + 1] = d as u8;
            Some(op + 2)
        } else {
            let rest = len - 7;
            let n255 = rest / 255;
            let new_op = op + n255 + 3;
            if new_op >= maxout {
                return None;
            }
            let out = &mut output[op..new_op];
            out[0] = ((7 << 5) + (d >> 8)) as u8;
            out[1..1 + n255].fill(255);
            out[1 + n255] = (rest % 255) as u8;
            out[2 + n255] = d as u8;
            Some(new_op)
        }
    } else {
        let far = d - MAX_DISTANCE;
        if len < 7 {
            if op + 4 >= maxout {
                return None;
            }
            output[op..op + 4].copy_from_slice(&[((len << 5) + 31) as u8, 255, (far >> 8) as u8, far as u8]);
            Some(op + 4)
        } else {
            let rest = len - 7;
            let n255 = rest / 255;
            let new_op = op + n255 + 5;
            if new_op >= maxout {
                return None;
            }
            let out = &mut output[op..new_op];
            out[0] = (7 << 5) + 31;
            out[1..1 + n255].fill(255);
            out[1 + n255..].copy_from_slice(&[(rest % 255) as u8, 255, (far >> 8) as u8, far as u8]);
            Some(new_op)
        }
    }
}

#[cfg(test)]
mod tests;
