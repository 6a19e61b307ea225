//! Tests of the BloscLZ codec: golden vectors from C-Blosc2 3.3.5, old
//! c-blosc streams, round trips and hostile input.
use super::*;

// Deterministic test data; the golden hashes below were computed by
// feeding exactly these inputs to C-Blosc2 3.3.5's blosclz_compress.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }

    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
}

fn gen(kind: u8, len: usize, seed: u64) -> Vec<u8> {
    const WORDS: [&str; 12] = [
        "blosc", "chunk", "frame", "the", "of", "compress", "data", "shuffle", "block", "\n", "a", "typesize",
    ];
    let mut rng = Rng(seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1);
    let mut v = Vec::with_capacity(len);
    match kind {
        0 => v.resize(len, 0),
        1 => {
            while v.len() < len {
                let run = 1 + rng.below(300);
                let b = rng.next() as u8;
                v.resize(v.len() + run.min(len - v.len()), b);
            }
        }
        2 => {
            while v.len() < len {
                let w = WORDS[rng.below(WORDS.len())].as_bytes();
                v.extend_from_slice(&w[..w.len().min(len - v.len())]);
                if v.len() < len {
                    v.push(b' ');
                }
            }
        }
        3 => v.extend((0..len).map(|_| rng.next() as u8)),
        4 | 5 => {
            let ts = if kind == 4 { 4 } else { 8 };
            let start = rng.next() >> 40;
            let n = len / ts;
            v.resize(len, 0);
            for i in 0..n {
                let x = (start + i as u64).to_le_bytes();
                for (j, &byte) in x[..ts].iter().enumerate() {
                    // kind 4 is byte-shuffled (as Blosc's SHUFFLE filter does).
                    let at = if kind == 4 { j * n + i } else { i * ts + j };
                    v[at] = byte;
                }
            }
        }
        6 => v.extend((0..len).map(|_| (rng.below(4) as u8).wrapping_mul(61))),
        _ => {
            v.extend((0..len).map(|_| rng.next() as u8));
            const DISTS: [usize; 13] = [1, 2, 3, 16, 100, 8190, 8191, 8192, 8193, 20000, 73724, 73725, 73726];
            let mut i = 0;
            while i + 20 < len {
                let d = DISTS[rng.below(DISTS.len())];
                let l = 3 + rng.below(700);
                if i >= d {
                    for j in i..(i + l).min(len) {
                        v[j] = v[j - d];
                    }
                }
                i += l + rng.below(40);
            }
        }
    }
    v
}

/// Golden cases: (data kind, length, seed, maxout; 0 means the length).
const CASES: [(u8, usize, u64, usize); 14] = [
    (2, 65536, 1, 0),
    (4, 65536, 2, 0),
    (5, 65536, 3, 0),
    (6, 32768, 4, 0),
    (7, 200_000, 5, 0),
    (1, 100_000, 6, 0),
    (3, 16384, 7, 0),
    (0, 300_000, 8, 0),
    (2, 4096, 9, 1900),
    (2, 65536, 1, 28300),
    (2, 100, 11, 0),
    (1, 66, 12, 0),
    (6, 16, 13, 66),
    (4, 8191, 14, 0),
];

fn fnv1a(data: &[u8]) -> u64 {
    data.iter().fold(0xcbf2_9ce4_8422_2325, |h, &b| {
        (h ^ u64::from(b)).wrapping_mul(0x100_0000_01b3)
    })
}

fn roundtrip(data: &[u8], clevel: u8) -> usize {
    let mut comp = vec![0u8; data.len()];
    let n = compress(clevel, data, &mut comp);
    assert!(n < data.len().max(1), "compressed size must be below maxout");
    if n > 0 {
        let mut out = vec![0u8; data.len()];
        assert_eq!(decompress(&comp[..n], &mut out), Some(data.len()));
        assert!(out == data, "round trip mismatch (clevel {clevel}, len {})", data.len());
    }
    n
}

const GOLDEN: [[(usize, u64); 9]; CASES.len()] = [
    [
        (28356, 0xbf4e727ed5b6d8c9),
        (28323, 0x1e182bcce90d838e),
        (28264, 0x45e86e6648986f7d),
        (28264, 0x45e86e6648986f7d),
        (28264, 0x45e86e6648986f7d),
        (28264, 0x45e86e6648986f7d),
        (28264, 0x45e86e6648986f7d),
        (28264, 0x45e86e6648986f7d),
        (28290, 0x4a6131f5d16466e1),
    ],
    [
        (864, 0x0d5eafce772d3872),
        (864, 0x0d5eafce772d3872),
        (864, 0x0d5eafce772d3872),
        (864, 0x0d5eafce772d3872),
        (864, 0x0d5eafce772d3872),
        (864, 0x0d5eafce772d3872),
        (864, 0x0d5eafce772d3872),
        (864, 0x0d5eafce772d3872),
        (864, 0x0d5eafce772d3872),
    ],
    [
        (0, 0xcbf29ce484222325),
        (40988, 0xa5e59801c017dc72),
        (40973, 0xcb79d9213f6ad44b),
        (40973, 0xcb79d9213f6ad44b),
        (40973, 0xcb79d9213f6ad44b),
        (40973, 0xcb79d9213f6ad44b),
        (40973, 0xcb79d9213f6ad44b),
        (40973, 0xcb79d9213f6ad44b),
        (40979, 0x11b84bf67251766d),
    ],
    [
        (0, 0xcbf29ce484222325),
        (0, 0xcbf29ce484222325),
        (0, 0xcbf29ce484222325),
        (0, 0xcbf29ce484222325),
        (0, 0xcbf29ce484222325),
        (0, 0xcbf29ce484222325),
        (0, 0xcbf29ce484222325),
        (0, 0xcbf29ce484222325),
        (32190, 0x738f411b44f6dcf7),
    ],
    [
        (46524, 0x52874c317029d000),
        (46176, 0xd86c7ef3c50c546c),
        (45212, 0x39088677991eb364),
        (45212, 0x39088677991eb364),
        (45212, 0x39088677991eb364),
        (45212, 0x39088677991eb364),
        (45212, 0x39088677991eb364),
        (45212, 0x39088677991eb364),
        (45215, 0x653985c64c7d8c93),
    ],
    [
        (4735, 0x5d8dee991f608c98),
        (4766, 0x6452232b684c3992),
        (4785, 0x37c5055754cf277d),
        (4785, 0x37c5055754cf277d),
        (4785, 0x37c5055754cf277d),
        (4785, 0x37c5055754cf277d),
        (4785, 0x37c5055754cf277d),
        (4785, 0x37c5055754cf277d),
        (4760, 0x41b9ee8a3febc412),
    ],
    [
        (0, 0xcbf29ce484222325),
        (0, 0xcbf29ce484222325),
        (0, 0xcbf29ce484222325),
        (0, 0xcbf29ce484222325),
        (0, 0xcbf29ce484222325),
        (0, 0xcbf29ce484222325),
        (0, 0xcbf29ce484222325),
        (0, 0xcbf29ce484222325),
        (0, 0xcbf29ce484222325),
    ],
    [
        (1188, 0x9d24ca2b2c782641),
        (1188, 0x9d24ca2b2c782641),
        (1188, 0x9d24ca2b2c782641),
        (1188, 0x9d24ca2b2c782641),
        (1188, 0x9d24ca2b2c782641),
        (1188, 0x9d24ca2b2c782641),
        (1188, 0x9d24ca2b2c782641),
        (1188, 0x9d24ca2b2c782641),
        (1188, 0x9d24ca2b2c782641),
    ],
    [
        (0, 0xcbf29ce484222325),
        (1848, 0xf2cadc299235c703),
        (1842, 0x9630d191eff7fe5e),
        (1842, 0x9630d191eff7fe5e),
        (1842, 0x9630d191eff7fe5e),
        (1842, 0x9630d191eff7fe5e),
        (1842, 0x9630d191eff7fe5e),
        (1842, 0x9630d191eff7fe5e),
        (1842, 0x9630d191eff7fe5e),
    ],
    [
        (0, 0xcbf29ce484222325),
        (0, 0xcbf29ce484222325),
        (28264, 0x45e86e6648986f7d),
        (28264, 0x45e86e6648986f7d),
        (28264, 0x45e86e6648986f7d),
        (28264, 0x45e86e6648986f7d),
        (28264, 0x45e86e6648986f7d),
        (28264, 0x45e86e6648986f7d),
        (28290, 0x4a6131f5d16466e1),
    ],
    [
        (0, 0xcbf29ce484222325),
        (0, 0xcbf29ce484222325),
        (0, 0xcbf29ce484222325),
        (0, 0xcbf29ce484222325),
        (0, 0xcbf29ce484222325),
        (0, 0xcbf29ce484222325),
        (0, 0xcbf29ce484222325),
        (90, 0x50493b0de40ccbdd),
        (90, 0x50493b0de40ccbdd),
    ],
    [
        (0, 0xcbf29ce484222325),
        (0, 0xcbf29ce484222325),
        (12, 0xc3bd08a272ce1e0b),
        (12, 0xc3bd08a272ce1e0b),
        (12, 0xc3bd08a272ce1e0b),
        (12, 0xc3bd08a272ce1e0b),
        (12, 0xc3bd08a272ce1e0b),
        (12, 0xc3bd08a272ce1e0b),
        (12, 0xc3bd08a272ce1e0b),
    ],
    [
        (0, 0xcbf29ce484222325),
        (0, 0xcbf29ce484222325),
        (0, 0xcbf29ce484222325),
        (0, 0xcbf29ce484222325),
        (0, 0xcbf29ce484222325),
        (0, 0xcbf29ce484222325),
        (0, 0xcbf29ce484222325),
        (0, 0xcbf29ce484222325),
        (0, 0xcbf29ce484222325),
    ],
    [
        (357, 0xc83334ab00a940b9),
        (357, 0xc83334ab00a940b9),
        (357, 0xc83334ab00a940b9),
        (357, 0xc83334ab00a940b9),
        (357, 0xc83334ab00a940b9),
        (357, 0xc83334ab00a940b9),
        (357, 0xc83334ab00a940b9),
        (357, 0xc83334ab00a940b9),
        (357, 0xc83334ab00a940b9),
    ],
];

/// Streams written by old c-blosc 1.x encoders (which are not byte-identical
/// to 2.5.3's) must still decode: (generator args, stream as hex).
const OLD_STREAMS: [((u8, usize, u64), &str); 2] = [
    // c-blosc 1.3.0, clevel 5.
    (
        (2, 400, 42),
        concat!(
            "366368756e6b207479706573697a6520636f6d7072657373e0010802746865600307612073687566666c200dc02c0364",
            "6174618004402409626c6f636b200a206f66400a017363200a0561206672616d601a200fe00037c029801cc056e0007a",
            "801e4052000ae00714205b8034e0004b800ee00305e00047609e01636860df20c48023805c800b6020c07e201820a380",
            "18e00042201420d3403de0058a20294014e00085e0000860528044c058800d80490061a0078095000a6001e0026c026f",
            "636b"
        ),
    ),
    // c-blosc 1.17.1 (BloscLZ 2.0.0), clevel 9.
    (
        (1, 1500, 43),
        concat!(
            "214f4fe0920000c2e0ff0f000057e026000074e0ea000027e011000001e03600003de076000034e046000081e09d0000",
            "7ce0a3000084e0770002848484"
        ),
    ),
];

fn unhex(s: &str) -> Vec<u8> {
    (0..s.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(&s[i..i + 2], 16).unwrap())
        .collect()
}

#[test]
fn golden_vectors_match_c() {
    for (case, &(kind, len, seed, maxout)) in CASES.iter().enumerate() {
        let data = gen(kind, len, seed);
        let maxout = if maxout == 0 { len } else { maxout };
        for clevel in 1..=9u8 {
            let mut comp = vec![0u8; maxout];
            let n = compress(clevel, &data, &mut comp);
            let (size, hash) = GOLDEN[case][usize::from(clevel) - 1];
            assert_eq!((n, fnv1a(&comp[..n])), (size, hash), "case {case}, clevel {clevel}");
            if n > 0 {
                let mut out = vec![0u8; len];
                assert_eq!(decompress(&comp[..n], &mut out), Some(len));
                assert!(out == data);
            }
        }
    }
}

#[test]
fn old_streams_decode() {
    for &((kind, len, seed), hex) in OLD_STREAMS.iter() {
        let data = gen(kind, len, seed);
        let mut out = vec![0u8; len];
        assert_eq!(decompress(&unhex(hex), &mut out), Some(len));
        assert!(out == data);
    }
}

#[test]
fn roundtrip_small_sizes() {
    for len in 0..=100 {
        for kind in 0..8 {
            let data = gen(kind, len, len as u64);
            for clevel in 1..=9 {
                let n = roundtrip(&data, clevel);
                if len < 66 {
                    assert_eq!(n, 0, "maxout < 66 never compresses");
                }
            }
        }
    }
}

#[test]
fn roundtrip_distance_boundaries_and_large() {
    for len in [
        8190,
        8191,
        8192,
        8193,
        16384,
        65535 + 8190,
        65535 + 8191,
        65535 + 8192,
        100_000,
    ] {
        for kind in 0..8 {
            let data = gen(kind, len, 99 + len as u64);
            for clevel in [1, 4, 9] {
                roundtrip(&data, clevel);
            }
        }
    }
    for kind in [0, 2, 4, 7] {
        let data = gen(kind, 1 << 20, 5);
        for clevel in [1, 5, 9] {
            let n = roundtrip(&data, clevel);
            assert!(n > 0, "1 MiB of kind {kind} must compress at clevel {clevel}");
        }
    }
}

#[test]
fn output_limit_is_exact() {
    let data = gen(2, 20_000, 3);
    for clevel in 1..=9 {
        let mut big = vec![0u8; data.len() * 2];
        let n = compress(clevel, &data, &mut big);
        assert!(n > 0);
        // C needs one spare byte after the last literal, so exactly `n`
        // bytes of room is a failure and `n + 1` a success.
        let mut out = vec![0u8; n + 1];
        assert_eq!(compress(clevel, &data, &mut out), n);
        assert_eq!(out[..n], big[..n]);
        assert_eq!(compress(clevel, &data, &mut out[..n]), 0);
        for m in [0, 1, 65, 66, 67, n / 2, n - 1] {
            assert_eq!(compress(clevel, &data, &mut out[..m]), 0);
        }
    }
}

#[test]
fn clevel_edges() {
    let data = gen(2, 10_000, 1);
    let mut a = vec![0u8; data.len()];
    let mut b = vec![0u8; data.len()];
    assert_eq!(compress(0, &data, &mut a), 0);
    let n9 = compress(9, &data, &mut a);
    assert!(n9 > 0);
    assert_eq!(compress(200, &data, &mut b), n9);
    assert_eq!(a[..n9], b[..n9]);
}

#[test]
fn decoder_corner_cases() {
    let mut out = [0u8; 64];
    assert_eq!(decompress(&[], &mut out), Some(0));
    // Literal run of 3; the marker bits of the first byte are ignored.
    assert_eq!(decompress(&[0x22, 1, 2, 3], &mut out), Some(3));
    assert_eq!(out[..3], [1, 2, 3]);
    // Literal longer than the input or the output.
    assert_eq!(decompress(&[0x23, 1, 2, 3], &mut out), None);
    assert_eq!(decompress(&[0x22, 1, 2, 3], &mut out[..2]), None);
    // Run: 'a' then a 5-byte match at distance 1, then one literal.
    assert_eq!(decompress(&[0x00, b'a', 0x60, 0x00, 0x00, b'b'], &mut out), Some(7));
    assert_eq!(&out[..7], b"aaaaaab");
    // The same match does not fit a 6-byte output.
    assert_eq!(decompress(&[0x00, b'a', 0x60, 0x00, 0x00, b'b'], &mut out[..6]), None);
    // Distance 2 with only one byte decoded so far.
    assert_eq!(decompress(&[0x00, b'a', 0x60, 0x01, 0x00, b'b'], &mut out), None);
    // A long match using the last input byte is not copied (as in C).
    assert_eq!(decompress(&[0x00, b'a', 0xE0, 0x00, 0x00], &mut out), Some(1));
    // Match tokens cut short (C wants a byte after a short match's
    // distance byte).
    assert_eq!(decompress(&[0x00, b'a', 0x60, 0x00], &mut out), None);
    assert_eq!(decompress(&[0x00, b'a', 0x60], &mut out), None);
    assert_eq!(decompress(&[0x00, b'a', 0xE0, 0xFF], &mut out), None);
    // Far match: 16-bit distance + 8191 reaching before the start.
    assert_eq!(
        decompress(&[0x00, b'a', 0x7F, 0xFF, 0x00, 0x00, 0x00, b'b'], &mut out),
        None
    );
    // c-blosc2 #801: an endless run of 255 length bytes must fail fast.
    let mut evil = vec![0x00, b'a', 0xE0];
    evil.resize(3 + (1 << 20), 0xFF);
    evil.extend_from_slice(&[0x00, 0x00, 0x00]);
    assert_eq!(decompress(&evil, &mut out), None);
    let mut big = vec![0u8; 300_000];
    assert_eq!(decompress(&evil, &mut big), None);
}

#[test]
fn decoder_fuzz() {
    let mut rng = Rng(0x5eed);
    let mut out = vec![0u8; 70_000];
    // Random garbage.
    for _ in 0..3000 {
        let n = rng.below(300);
        let junk: Vec<u8> = (0..n).map(|_| rng.next() as u8).collect();
        let olen = rng.below(out.len());
        if let Some(k) = decompress(&junk, &mut out[..olen]) {
            assert!(k <= olen);
        }
    }
    // Truncated and mutated valid streams.
    for kind in [1, 2, 4, 6, 7] {
        let data = gen(kind, 60_000, u64::from(kind));
        let mut comp = vec![0u8; data.len()];
        let n = compress(9, &data, &mut comp);
        assert!(n > 0);
        let comp = &comp[..n];
        for _ in 0..200 {
            let cut = rng.below(n);
            if let Some(k) = decompress(&comp[..cut], &mut out[..data.len()]) {
                // Tokens are decoded in order: a prefix of the stream can
                // only yield a prefix of the data.
                assert!(k < data.len());
                assert!(out[..k] == data[..k]);
            }
        }
        for _ in 0..200 {
            let mut m = comp.to_vec();
            for _ in 0..1 + rng.below(4) {
                let i = rng.below(m.len());
                m[i] = rng.next() as u8;
            }
            let olen = data.len() - rng.below(2) * rng.below(data.len());
            if let Some(k) = decompress(&m, &mut out[..olen]) {
                assert!(k <= olen);
            }
        }
    }
}

/// The decoder's match copy takes different paths (run fill, 16-byte
/// steps, short-period patterns, memmove, doubling) by distance and room;
/// compare them all to the plain byte-by-byte LZ77 copy.
#[test]
fn copy_match_paths_agree_with_bytewise() {
    let mut rng = Rng(77);
    for _ in 0..3000 {
        let size = 1 + rng.below(400);
        let op = 1 + rng.below(size);
        let d = 1 + rng.below(op.min(80));
        let len = rng.below(size - op + 1);
        let mut a: Vec<u8> = (0..size).map(|_| rng.next() as u8).collect();
        let mut b = a.clone();
        copy_match(&mut a, op, d, len);
        for i in op..op + len {
            b[i] = b[i - d];
        }
        assert!(a[..op + len] == b[..op + len], "op {op} d {d} len {len} size {size}");
    }
}

/// The size `data` compresses to with fresh tables, and whether `tables`
/// reused give the same bytes.
fn reused_and_fresh(tables: &mut Tables, clevel: u8, data: &[u8]) -> (usize, bool) {
    let mut fresh = vec![0; data.len()];
    let mut reused = vec![0; data.len()];
    let a = compress(clevel, data, &mut fresh);
    let b = compress_reusing(tables, clevel, data, &mut reused);
    (a, fresh[..a] == reused[..b])
}

/// Streams compressed one after the other through one [`Tables`] are those
/// of a fresh (zeroed) table, for every clevel and kind of data: short
/// (tagged) passes, long (clearing) ones in between, at clevels with
/// smaller tables, and across the table's clearing point.
#[test]
fn reused_table_gives_the_bytes_of_a_fresh_one() {
    let mut rng = Rng(0x5EED_0000_ABCD_EF01);
    let mut tables = Tables::default();
    // A clearing pass over the smaller table of clevel 1 leaves the rest of
    // the slots as they were: the next tagged passes must still see them
    // as stale.
    for seed in 0..20 {
        tables.skip_base(1 << 20);
        for (clevel, len, kind) in [(5, 3000, 1), (1, 2000, 0), (5, 3000, 1)] {
            let (_, same) = reused_and_fresh(&mut tables, clevel, &gen(kind, len, seed));
            assert!(same, "clevel {clevel} len {len} kind {kind} seed {seed}");
        }
    }
    // Long passes: text stores too many positions and clears, runs store
    // few and are tagged, over the slots the text left.
    for seed in 0..6 {
        for (clevel, len, kind) in [
            (5, 16_384, 2),
            (5, 16_384, 1),
            (9, 40_000, 1),
            (5, 20_000, 2),
            (5, 9000, 0),
        ] {
            let (n, same) = reused_and_fresh(&mut tables, clevel, &gen(kind, len, seed));
            assert!(n > 0 && same, "long: clevel {clevel} len {len} kind {kind} seed {seed}");
        }
    }
    for (clevel, len, kind) in [(9, 30_000, 2), (2, 2000, 0), (5, 3000, 1)] {
        let (_, same) = reused_and_fresh(&mut tables, clevel, &gen(kind, len, 9));
        assert!(same, "clevel {clevel} len {len} kind {kind}");
    }
    for round in 0..400usize {
        if round == 150 || round == 300 {
            tables.skip_base((1 << 32) - 20_000);
        }
        let len = match round % 8 {
            0 => 16_384,
            1 => 1 + rng.below(70_000),
            2 => 16 + rng.below(300),
            3 => 4095,
            4 => 8191,
            _ => 66 + rng.below(9000),
        };
        let clevel = 1 + (round % 9) as u8;
        let (_, same) = reused_and_fresh(&mut tables, clevel, &gen((round % 6) as u8, len, round as u64));
        assert!(same, "kind {} len {len} clevel {clevel} round {round}", round % 6);
    }
}
