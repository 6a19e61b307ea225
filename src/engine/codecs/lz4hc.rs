//! LZ4HC: slower, denser compression into the standard LZ4 block format.
//!
//! Any LZ4 decoder reads the output ([`super::lz4::decompress`], C's
//! `LZ4_decompress_safe`); only the search for matches differs from the fast
//! compressor. Levels follow C's LZ4 1.10 (`LZ4_compress_HC`), which C-Blosc2
//! calls with its clevel:
//!
//! - 1-2: a "middle" strategy: greedy parsing with two single-entry hash
//!   tables (4-byte and 7-byte keys) and a one-step lookahead, skipping ever
//!   faster through stretches without matches.
//! - 3-9: hash chains searched `2^(level-1)` deep (4 at level 3, 256 at 9),
//!   with lazy parsing that weighs up to three overlapping matches before
//!   committing to one. Levels above 9 (C's optimal parser) search deeper
//!   with the same parser (up to 2048 candidates at 12).
//!
//! A dictionary acts as a prefix of the input that matches may reach into
//! (its last 64 KiB), as with C's `LZ4_loadDictHC` + `LZ4_compress_HC_continue`.

use std::cell::RefCell;

use super::lz4::block::{
    count_backward, count_forward, read_u16, read_u32, read_u64, with_prefix, Writer, LAST_LITERALS, MAX_DISTANCE,
    MAX_INPUT, MF_LIMIT, MIN_INPUT, MIN_MATCH,
};

/// Level used for `level < 1`, as C's `LZ4HC_CLEVEL_DEFAULT`.
const DEFAULT_LEVEL: i32 = 9;
/// Highest level; higher requests are clamped to it.
const MAX_LEVEL: i32 = 12;
/// Highest level using the middle strategy.
const MID_MAX_LEVEL: i32 = 2;

/// Compress `input` with LZ4HC at `level` (C-Blosc2 passes its clevel, 1-9;
/// below 1 means 9, above 12 means 12) into `output` as one LZ4 block.
///
/// `dict` is an optional dictionary whose last 64 KiB serve as a virtual
/// prefix for matches; the block then decodes with the same dictionary
/// (`lz4::decompress(.., Some(dict))`, C's `LZ4_decompress_safe_usingDict`).
///
/// Returns the compressed size, or 0 when the block does not fit in
/// `output` (or the input exceeds LZ4's 2 113 929 216-byte limit).
pub fn compress(level: i32, input: &[u8], output: &mut [u8], dict: Option<&[u8]>) -> usize {
    if input.len() > MAX_INPUT {
        return 0;
    }
    let level = if level < 1 { DEFAULT_LEVEL } else { level.min(MAX_LEVEL) };
    let (buf, start) = with_prefix(input, dict);
    let mut w = Writer::new(output);
    let done = with_tables(|t| {
        if level <= MID_MAX_LEVEL {
            compress_mid(t, &buf, start, &mut w)
        } else {
            compress_chain(t, &buf, start, 1 << (level - 1), &mut w)
        }
    });
    match done {
        Some(()) => w.len(),
        None => 0,
    }
}

/// log2 of the hash-head entries of the chain strategy (the middle strategy
/// uses each half as one of its two tables).
const HASH_LOG: u32 = 15;
/// Chain links, one per position of the 64 KiB window.
const CHAIN_SIZE: usize = 1 << 16;
/// Positions are stored plus this offset, so that 0 (an empty table entry)
/// is never within reach of a real position and needs no separate check.
const BASE: usize = 1 << 16;
/// Chain walks with more attempts than this jump over runs of one byte, as
/// LZ4's pattern analysis does from the same number of attempts up.
const RUN_HANDLING_MIN_ATTEMPTS: usize = 128;
/// Longest match whose length fits in the token nibble (no extra byte): when
/// two matches overlap, the first is cut to about this length if possible.
const OPTIMAL_ML: usize = 15 - 1 + MIN_MATCH;

/// Match-finder tables, reused across calls on a thread because zeroing a
/// fresh 128 KiB allocation per block would cost more than small blocks take
/// to compress at the low levels.
struct Tables {
    /// Most recent position (+ [`BASE`]) per hash; 0 = none.
    head: Box<[u32; 1 << HASH_LOG]>,
    /// Distance from a position (indexed modulo 64 Ki) back to the previous
    /// one with the same hash, capped at [`MAX_DISTANCE`]. Only read for
    /// positions already inserted, so it never needs clearing.
    chain: Box<[u16; CHAIN_SIZE]>,
}

impl Tables {
    fn new() -> Self {
        Tables {
            head: vec![0; 1 << HASH_LOG]
                .into_boxed_slice()
                .try_into()
                .expect("length matches"),
            chain: vec![0; CHAIN_SIZE]
                .into_boxed_slice()
                .try_into()
                .expect("length matches"),
        }
    }
}

thread_local! {
    static TABLES: RefCell<Option<Tables>> = const { RefCell::new(None) };
}

/// Runs `f` with cleared tables: the thread's cached ones, or fresh ones when
/// those are unavailable (thread teardown).
fn with_tables<R>(f: impl FnOnce(&mut Tables) -> R) -> R {
    let mut f = Some(f);
    let cached = TABLES.try_with(|cell| {
        let mut slot = cell.try_borrow_mut().ok()?;
        let t = slot.get_or_insert_with(Tables::new);
        t.head.fill(0);
        Some((f.take().expect("called once"))(t))
    });
    match cached {
        Ok(Some(r)) => r,
        _ => (f.take().expect("called once"))(&mut Tables::new()),
    }
}

/// A match: `len` bytes at `start` equal those at `source` (< `start`).
#[derive(Clone, Copy)]
struct Match {
    start: usize,
    len: usize,
    source: usize,
}

impl Match {
    #[inline(always)]
    fn end(&self) -> usize {
        self.start + self.len
    }

    /// Drops the first `n` bytes (the caller keeps `len` >= [`MIN_MATCH`]).
    #[inline(always)]
    fn skip(&mut self, n: usize) {
        self.start += n;
        self.source += n;
        self.len -= n;
    }
}

/// Hash of the 4 bytes at `pos` for the chain heads.
#[inline(always)]
fn hash4(buf: &[u8], pos: usize) -> usize {
    hash_key(read_u32(buf, pos), HASH_LOG)
}

/// `log`-bit hash of 4 bytes read as a little-endian `key` (LZ4's 4-byte
/// hash, for both strategies' tables).
#[inline(always)]
fn hash_key(key: u32, log: u32) -> usize {
    (key.wrapping_mul(2_654_435_761) >> (32 - log)) as usize
}

/// Hash-chain match finder over `buf`.
struct Chain<'t> {
    t: &'t mut Tables,
    /// Next position to insert into the chains.
    next: usize,
    /// Candidates examined per search.
    attempts: usize,
}

impl Chain<'_> {
    /// Links every position before `target` into the chains.
    #[inline(always)]
    fn insert_until(&mut self, buf: &[u8], target: usize) {
        if self.next >= target {
            return;
        }
        // One bounds check for all the keys rather than one per position.
        let keys = buf[self.next..target + MIN_MATCH - 1].windows(MIN_MATCH);
        for (idx, key) in (self.next + BASE..).zip(keys) {
            let h = hash_key(u32::from_le_bytes(key.try_into().expect("4 bytes")), HASH_LOG);
            let delta = (idx - self.t.head[h] as usize).min(MAX_DISTANCE);
            self.t.chain[idx & (CHAIN_SIZE - 1)] = delta as u16;
            self.t.head[h] = idx as u32;
        }
        self.next = target;
    }

    /// The longest match containing position `ip` that is longer than
    /// `longest`, may start as early as `low` (extending backward from `ip`)
    /// and ends by `limit`. `None` when there is none.
    #[inline(always)]
    fn find<const OUTLINED: bool>(
        &mut self,
        buf: &[u8],
        ip: usize,
        low: usize,
        limit: usize,
        longest: usize,
    ) -> Option<Match> {
        self.insert_until(buf, ip);
        // The chains also hold positions out of reach (older than 64 KiB);
        // `lowest` stops the walk there. Chain links are capped at
        // MAX_DISTANCE, so a capped link always lands below `lowest` too.
        let lowest = (ip + BASE).saturating_sub(MAX_DISTANCE).max(BASE);
        let cand = self.t.head[hash4(buf, ip)] as usize;
        let search = Search::new(buf, ip, low, limit, longest);
        // Two copies of the walk: the one for patterns that are no byte run
        // (most) has no run handling, which keeps its loop small enough for
        // its state to stay in registers. Run handling is LZ4's pattern
        // analysis, which starts at level 9 (more than 128 attempts); with
        // it and without it, the walk visits what LZ4's does, so the blocks
        // come out the same.
        let byte_run = search.pattern == search.pattern.rotate_left(8);
        let done = if byte_run && self.attempts > RUN_HANDLING_MIN_ATTEMPTS {
            self.walk::<true, OUTLINED>(buf, cand, lowest, search)
        } else {
            self.walk::<false, OUTLINED>(buf, cand, lowest, search)
        };
        done.best
    }

    /// Distance from position `idx` (+ [`BASE`], inserted) back to the
    /// previous one with the same hash.
    #[inline(always)]
    fn link(&self, idx: usize) -> usize {
        self.t.chain[idx & (CHAIN_SIZE - 1)] as usize
    }

    /// Walks the chain from `cand` down to `lowest` (both + [`BASE`]) for
    /// [`Self::find`]; `BYTE_RUN` says whether the searched pattern is one
    /// byte repeated (and run handling is on).
    #[inline(always)]
    fn walk<const BYTE_RUN: bool, const OUTLINED: bool>(
        &self,
        buf: &[u8],
        mut cand: usize,
        lowest: usize,
        mut search: Search,
    ) -> Search {
        let (ip, limit, pattern) = (search.ip, search.limit, search.pattern);
        let lowest_pos = lowest - BASE;
        // Length of the run of one byte that starts at `ip` (0: not counted yet).
        let mut src_run = 0;
        let mut attempts = self.attempts;
        while cand >= lowest && attempts > 0 {
            attempts -= 1;
            let c = cand - BASE;
            search.try_at::<OUTLINED>(buf, c);
            let delta = self.link(cand);
            if BYTE_RUN && delta == 1 && c > lowest_pos && read_u32(buf, c - 1) == pattern {
                // `ip` starts with a run of one byte and `c` sits in another
                // run of it, whose chain steps through the run one position
                // at a time, each giving about the same match: a long run
                // (zeros) would eat all the attempts. Jump instead, as LZ4's
                // pattern analysis does (so that the blocks come out the
                // same): to where the run ends as far from its end as the
                // source run is long, when the run holds the source run and
                // that position has not been tried yet; else to the run's
                // start, which is the next candidate (or, without look-back,
                // gives the match directly and the walk goes on below it).
                let b = pattern as u8;
                if src_run == 0 {
                    src_run = MIN_MATCH + count_byte(buf, ip + MIN_MATCH, limit, b);
                }
                let prev = c - 1;
                let fwd = MIN_MATCH + count_byte(buf, prev + MIN_MATCH, limit, b);
                let back = count_byte_back(buf, prev, lowest_pos, b);
                let segment = back + fwd;
                if segment >= src_run && fwd <= src_run {
                    cand = prev + fwd - src_run + BASE;
                    continue;
                }
                let run_start = prev - back;
                cand = run_start + BASE;
                if ip == search.low {
                    let len = segment.min(src_run);
                    if search.longest < len {
                        search.take(
                            buf,
                            Match {
                                start: ip,
                                len,
                                source: run_start,
                            },
                        );
                    }
                    cand -= self.link(cand);
                }
                continue;
            }
            cand -= delta;
        }
        search
    }
}

/// One search for a match containing `ip`: the bounds, and the best match so far.
struct Search {
    ip: usize,
    /// Lowest start allowed (backward extension stops here).
    low: usize,
    /// Matches end by here.
    limit: usize,
    /// The 4 bytes at `ip`.
    pattern: u32,
    /// Length (counted from `low`) that a new match must exceed.
    longest: usize,
    /// Offset from `ip` of the two bytes ending a match of `longest + 1`
    /// bytes counted from `low`, and those bytes: a candidate that differs
    /// there cannot beat `longest`, which rejects most candidates with one
    /// load. Callers keep `ip - low` below `longest`, so this looks ahead
    /// of `ip`.
    k: usize,
    tail: u16,
    best: Option<Match>,
}

impl Search {
    #[inline(always)]
    fn new(buf: &[u8], ip: usize, low: usize, limit: usize, longest: usize) -> Self {
        let mut s = Search {
            ip,
            low,
            limit,
            pattern: read_u32(buf, ip),
            longest,
            k: 0,
            tail: 0,
            best: None,
        };
        s.set_longest(buf, longest);
        s
    }

    #[inline(always)]
    fn set_longest(&mut self, buf: &[u8], longest: usize) {
        self.longest = longest;
        self.k = longest - 1 - (self.ip - self.low);
        self.tail = read_u16(buf, self.ip + self.k);
    }

    /// Measures the match with candidate position `c` (< `ip`, in reach) and
    /// keeps it if longer than the best so far.
    #[inline(always)]
    fn try_at<const OUTLINED: bool>(&mut self, buf: &[u8], c: usize) {
        if read_u16(buf, c + self.k) != self.tail || read_u32(buf, c) != self.pattern {
            return;
        }
        if !OUTLINED {
            self.measure(buf, c);
            return;
        }
        // A match that ends within the next 8 bytes and cannot extend
        // backward (`ip == low`, as at a new position) is measured here;
        // others out of line.
        let from = self.ip + MIN_MATCH;
        if self.ip == self.low && from + 8 <= self.limit {
            let diff = read_u64(buf, from) ^ read_u64(buf, c + MIN_MATCH);
            if diff != 0 {
                let len = MIN_MATCH + (diff.trailing_zeros() / 8) as usize;
                if len > self.longest {
                    self.take(
                        buf,
                        Match {
                            start: self.ip,
                            len,
                            source: c,
                        },
                    );
                }
                return;
            }
        }
        self.measure_outlined(buf, c);
    }

    /// [`Self::measure`] out of line, for the search at a new position
    /// (`find::<true>`). Inlined there, the setup of its counting loops
    /// (bounds and word counts that depend on `ip` and `limit` only) was
    /// hoisted in front of every chain walk: 40 instructions per searched
    /// position, where most such walks measure nothing (shuffled f64: 2.2M
    /// walks, 88M instructions). The searches inside a match (for a
    /// longer overlapping one) measure several candidates per walk, where
    /// the hoisting pays: they keep it inlined. Short matches, the most
    /// common at new positions in text, are measured inline by `try_at`
    /// without that setup.
    #[inline(never)]
    fn measure_outlined(&mut self, buf: &[u8], c: usize) {
        self.measure(buf, c);
    }

    /// [`Self::try_at`] for a candidate that passed its two quick tests.
    #[inline(always)]
    fn measure(&mut self, buf: &[u8], c: usize) {
        // Measured, not guessed as LZ4 fast and BloscLZ do (`match_end`):
        // the candidates of one walk rarely end alike, and the guess's
        // bookkeeping cost more than it saved.
        let fwd = MIN_MATCH + count_forward(buf, c + MIN_MATCH, self.ip + MIN_MATCH, self.limit);
        let back = count_backward(buf, c, self.ip, self.low, 0);
        if fwd + back > self.longest {
            self.take(
                buf,
                Match {
                    start: self.ip - back,
                    len: fwd + back,
                    source: c - back,
                },
            );
        }
    }

    /// Makes `m` (longer than the best so far) the best.
    #[inline(always)]
    fn take(&mut self, buf: &[u8], m: Match) {
        self.best = Some(m);
        self.set_longest(buf, m.len);
    }
}

/// Number of bytes equal to `b` from `i` on, stopping at `limit`.
#[inline(always)]
fn count_byte(buf: &[u8], i: usize, limit: usize, b: u8) -> usize {
    let s = &buf[i..limit];
    let pat = u64::from_ne_bytes([b; 8]);
    let mut n = 0;
    for chunk in s.chunks_exact(8) {
        let diff = u64::from_le_bytes(chunk.try_into().expect("8 bytes")) ^ pat;
        if diff != 0 {
            return n + (diff.trailing_zeros() / 8) as usize;
        }
        n += 8;
    }
    while n < s.len() && s[n] == b {
        n += 1;
    }
    n
}

/// Number of bytes equal to `b` just before `i`, going no lower than `low`.
#[inline(always)]
fn count_byte_back(buf: &[u8], i: usize, low: usize, b: u8) -> usize {
    let s = &buf[low..i];
    let pat = u64::from_ne_bytes([b; 8]);
    let mut n = 0;
    for chunk in s.rchunks_exact(8) {
        let diff = u64::from_le_bytes(chunk.try_into().expect("8 bytes")) ^ pat;
        if diff != 0 {
            // The byte nearest `i` is the most significant (little-endian).
            return n + (diff.leading_zeros() / 8) as usize;
        }
        n += 8;
    }
    while n < s.len() && s[s.len() - n - 1] == b {
        n += 1;
    }
    n
}

/// Appends `m` (preceded by the literals since `anchor`) and moves `anchor`
/// past it.
#[inline(always)]
fn emit(w: &mut Writer<'_>, buf: &[u8], m: &Match, anchor: &mut usize) -> Option<()> {
    debug_assert!(m.start >= *anchor && m.len >= MIN_MATCH && m.end() + LAST_LITERALS <= buf.len());
    debug_assert!(m.start + MF_LIMIT <= buf.len() && m.source < m.start && m.start - m.source <= MAX_DISTANCE);
    w.sequence(buf, *anchor, m.start - *anchor, m.start - m.source, m.len)?;
    *anchor = m.end();
    Some(())
}

/// Levels 3+: hash chains with lazy parsing.
///
/// The parser keeps up to three matches in flight. Having found `m1`, it
/// looks for a longer `m2` starting inside `m1` (searching near `m1`'s end,
/// extending backward); if there is one, `m1` may be shortened so that `m2`
/// starts earlier, or dropped when it would keep fewer than 3 bytes. A third
/// match `m3` found likewise inside `m2` decides whether `m2` survives
/// between `m1` and `m3`. This is the parsing scheme of C's LZ4HC
/// (`LZ4HC_compress_hashChain`), which reaches its ratios with it.
fn compress_chain(t: &mut Tables, buf: &[u8], start: usize, attempts: usize, w: &mut Writer<'_>) -> Option<()> {
    let end = buf.len();
    if end - start < MIN_INPUT {
        return w.last_literals(&buf[start..]);
    }
    // Matches start by `mflimit` and end by `limit` (LZ4's end-of-block rules).
    let mflimit = end - MF_LIMIT;
    let limit = end - LAST_LITERALS;
    // Prefix (dictionary) positions get inserted by the first search.
    let mut f = Chain { t, next: 0, attempts };
    let mut anchor = start;
    let mut ip = start;

    'next_match: while ip <= mflimit {
        let Some(first) = f.find::<true>(buf, ip, ip, limit, MIN_MATCH - 1) else {
            ip += 1;
            continue;
        };
        let mut m1 = first;
        // `m0`: an earlier `m1` that was set aside for a longer overlapping
        // match; it comes back if the next match would squeeze it out anyway.
        let mut m0 = first;
        'search2: loop {
            let m2 = if m1.end() <= mflimit {
                f.find::<false>(buf, m1.end() - 2, m1.start, limit, m1.len)
            } else {
                None
            };
            let Some(mut m2) = m2 else {
                emit(w, buf, &m1, &mut anchor)?;
                ip = anchor;
                continue 'next_match;
            };
            // LZ4 measures `m0`'s length from where `m1` starts now, not
            // from where `m0` starts: keep its test, so that both parse
            // (and write) alike.
            if m0.start < m1.start && m2.start < m1.start + m0.len {
                m1 = m0;
            }
            if m2.start - m1.start < 3 {
                // `m1` would keep under 3 bytes before `m2`: drop it.
                m1 = m2;
                continue 'search2;
            }
            loop {
                // Shorten `m1` to about OPTIMAL_ML when `m2` overlaps it, so
                // that `m2` starts right after it (keeping `m2` >= MIN_MATCH).
                if m2.start - m1.start < OPTIMAL_ML {
                    let mut new_len = m1.len.min(OPTIMAL_ML);
                    if m1.start + new_len > m2.end() - MIN_MATCH {
                        new_len = m2.start - m1.start + m2.len - MIN_MATCH;
                    }
                    if m1.start + new_len > m2.start {
                        m2.skip(m1.start + new_len - m2.start);
                    }
                }
                let m3 = if m2.end() <= mflimit {
                    f.find::<false>(buf, m2.end() - 3, m2.start, limit, m2.len)
                } else {
                    None
                };
                let Some(m3) = m3 else {
                    // Nothing better: emit `m1` (cut where `m2` starts), then `m2`.
                    if m2.start < m1.end() {
                        m1.len = m2.start - m1.start;
                    }
                    emit(w, buf, &m1, &mut anchor)?;
                    emit(w, buf, &m2, &mut anchor)?;
                    ip = anchor;
                    continue 'next_match;
                };
                if m3.start < m1.end() + 3 {
                    // `m3` leaves `m2` under 3 bytes of its own.
                    if m3.start >= m1.end() {
                        // `m1` and `m3` do not overlap: emit `m1`, drop `m2`
                        // (kept aside as `m0`) and go on from `m3`.
                        if m2.start < m1.end() {
                            let cut = m1.end() - m2.start;
                            if m2.len < cut + MIN_MATCH {
                                m2 = m3;
                            } else {
                                m2.skip(cut);
                            }
                        }
                        emit(w, buf, &m1, &mut anchor)?;
                        m1 = m3;
                        m0 = m2;
                        continue 'search2;
                    }
                    // `m3` overlaps `m1`: it replaces `m2`.
                    m2 = m3;
                    continue;
                }
                // Three ascending matches: `m1` can be written, cut so that
                // `m2` follows it.
                if m2.start < m1.end() {
                    if m2.start - m1.start < OPTIMAL_ML {
                        m1.len = m1.len.min(OPTIMAL_ML);
                        if m1.end() > m2.end() - MIN_MATCH {
                            m1.len = m2.start - m1.start + m2.len - MIN_MATCH;
                        }
                        if m1.end() > m2.start {
                            m2.skip(m1.end() - m2.start);
                        }
                    } else {
                        m1.len = m2.start - m1.start;
                    }
                }
                emit(w, buf, &m1, &mut anchor)?;
                m1 = m2;
                m2 = m3;
            }
        }
    }
    w.last_literals(&buf[anchor..])
}

/// log2 of the entries of each middle-strategy table.
const MID_LOG: u32 = HASH_LOG - 1;
/// After `2^MID_SKIP` bytes without a match, the middle strategy advances
/// two bytes at a time, then three, and so on (as C's LZ4MID).
const MID_SKIP: u32 = 9;

#[inline(always)]
fn mid_hash4(buf: &[u8], pos: usize) -> usize {
    hash_key(read_u32(buf, pos), MID_LOG)
}

/// Hash of the 7 bytes at `pos` (8 are read; the shift drops the last),
/// with LZ4's 7-byte prime, so that the tables fill as C's do.
#[inline(always)]
fn mid_hash7(buf: &[u8], pos: usize) -> usize {
    ((read_u64(buf, pos) << 8).wrapping_mul(58_295_818_150_454_627) >> (64 - MID_LOG)) as usize
}

/// Levels 1-2: two single-entry tables, one keyed on 7 bytes (likely long
/// matches, tried first) and one on 4 bytes; greedy parsing with a look at
/// the next position when only a short match was found.
fn compress_mid(t: &mut Tables, buf: &[u8], start: usize, w: &mut Writer<'_>) -> Option<()> {
    let end = buf.len();
    if end - start < MIN_INPUT {
        return w.last_literals(&buf[start..]);
    }
    let mflimit = end - MF_LIMIT;
    let limit = end - LAST_LITERALS;
    let (t4, t7) = t.head.split_at_mut(1 << MID_LOG);
    let t4: &mut [u32; 1 << MID_LOG] = t4.try_into().expect("half table");
    let t7: &mut [u32; 1 << MID_LOG] = t7.try_into().expect("half table");
    // Stored values are position + BASE; 0 (empty) is never in reach.
    let reach = |stored: u32, ip: usize| ip + BASE - stored as usize <= MAX_DISTANCE;
    let slot = |pos: usize| (pos + BASE) as u32;
    // Dictionary prefix: every third position, as C does for speed.
    let mut p = 0;
    while p + MIN_MATCH <= start {
        t4[mid_hash4(buf, p)] = slot(p);
        t7[mid_hash7(buf, p)] = slot(p);
        p += 3;
    }

    let mut anchor = start;
    let mut ip = start;
    while ip <= mflimit {
        // Where this search started: the positions indexed below after a
        // match are counted from here, as C's LZ4 does (its `ipIndex`),
        // even when the match moved (one byte on, or back). The tables then
        // hold the same entries as C's, so the blocks come out the same.
        let searched = ip;
        let mut found = None;
        let h7 = mid_hash7(buf, ip);
        let c7 = t7[h7];
        t7[h7] = slot(ip);
        if reach(c7, ip) {
            let c = c7 as usize - BASE;
            let len = count_forward(buf, c, ip, limit);
            if len >= MIN_MATCH {
                found = Some((c, len));
            }
        }
        if found.is_none() {
            let h4 = mid_hash4(buf, ip);
            let c4 = t4[h4];
            t4[h4] = slot(ip);
            if reach(c4, ip) {
                let c = c4 as usize - BASE;
                let len = count_forward(buf, c, ip, limit);
                if len >= MIN_MATCH {
                    found = Some((c, len));
                    // A short match: a longer one may start one byte later.
                    if ip < mflimit {
                        let h = mid_hash7(buf, ip + 1);
                        let c2 = t7[h];
                        if reach(c2, ip + 1) {
                            let len2 = count_forward(buf, c2 as usize - BASE, ip + 1, limit);
                            if len2 > len {
                                t7[h] = slot(ip + 1);
                                ip += 1;
                                found = Some((c2 as usize - BASE, len2));
                            }
                        }
                    }
                }
            }
        }
        let Some((mut c, mut len)) = found else {
            ip += 1 + ((ip - anchor) >> MID_SKIP);
            continue;
        };
        let back = count_backward(buf, c, ip, anchor, 0);
        ip -= back;
        c -= back;
        len += back;
        // Index a few positions at both ends of the match (those inside it
        // are skipped, which is what makes this strategy fast). At the start
        // the keys come from the match and the positions from the search
        // (see `searched`); every entry still lies before later searches,
        // and matches are measured, so a stale one only costs a miss.
        t7[mid_hash7(buf, ip + 1)] = slot(searched + 1);
        t7[mid_hash7(buf, ip + 2)] = slot(searched + 2);
        t4[mid_hash4(buf, ip + 1)] = slot(searched + 1);
        w.sequence(buf, anchor, ip - anchor, ip - c, len)?;
        ip += len;
        anchor = ip;
        if ip + 6 <= end {
            // (the 7-byte hash reads 8 bytes from ip - 2)
            if ip > 5 {
                t7[mid_hash7(buf, ip - 5)] = slot(ip - 5);
            }
            t7[mid_hash7(buf, ip - 3)] = slot(ip - 3);
            t7[mid_hash7(buf, ip - 2)] = slot(ip - 2);
            t4[mid_hash4(buf, ip - 2)] = slot(ip - 2);
            t4[mid_hash4(buf, ip - 1)] = slot(ip - 1);
        }
    }
    w.last_literals(&buf[anchor..])
}

#[cfg(test)]
mod tests {
    use super::super::lz4::tests::{corpus, fast, hc, roundtrip, salad, shuffle};

    #[test]
    fn hc_never_larger_than_fast_at_the_same_clevel() {
        // C-Blosc2's clevel c maps to acceleration 10 - c for LZ4 and to
        // level c for LZ4HC.
        for (name, data, compressible) in corpus(64 << 10) {
            if !compressible {
                continue;
            }
            for clevel in 1..=9 {
                let f = roundtrip(&fast(10 - clevel), &data, None).len();
                let h = roundtrip(&hc(clevel), &data, None).len();
                assert!(h <= f, "{name} clevel {clevel}: hc {h} > fast {f}");
            }
        }
    }

    #[test]
    fn deeper_levels_compress_better() {
        let text = salad(200 << 10, 3);
        let floats: Vec<u8> = (0..(200 << 10) / 8)
            .flat_map(|i| ((i as f64).sqrt() * 3.0).to_le_bytes())
            .collect();
        for data in [text, shuffle(&floats, 8)] {
            let sizes: Vec<usize> = [1, 3, 5, 9]
                .iter()
                .map(|&l| roundtrip(&hc(l), &data, None).len())
                .collect();
            assert!(sizes.windows(2).all(|w| w[1] <= w[0]), "{sizes:?}");
            assert!(sizes[3] < sizes[0], "{sizes:?}");
        }
    }

    #[test]
    fn levels_one_and_two_match_c() {
        // C's LZ4 1.10 runs the same strategy at levels 1 and 2.
        let data = salad(50_000, 9);
        assert_eq!(roundtrip(&hc(1), &data, None), roundtrip(&hc(2), &data, None));
    }

    #[test]
    fn long_runs_stay_fast() {
        // Runs of one byte would make every chain walk step through the run;
        // with run skipping this is about as fast as any other input.
        let mut data = vec![0u8; 1 << 20];
        for (i, b) in data.iter_mut().enumerate() {
            if i % 4099 < 10 {
                *b = (i % 251) as u8;
            }
        }
        let start = std::time::Instant::now();
        let block = roundtrip(&hc(12), &data, None);
        assert!(block.len() < data.len() / 50);
        assert!(start.elapsed().as_secs() < 5);
    }
}
