//! Round trips of the chunk engine over codecs, filters, typesizes,
//! levels, split modes and thread counts.

use crate::engine::constants::{codec, filter, splitmode, EXTENDED_HEADER_LENGTH};
use crate::engine::context::{compress_vec, decompress_vec, Context};
use crate::engine::params::{CParams, DParams, Prefilter, PrefilterArgs};

use super::*;

fn data(n: usize, kind: u32) -> Vec<u8> {
    let mut x: u64 = 0x9E37_79B9_7F4A_7C15 ^ u64::from(kind);
    (0..n)
        .map(|i| match kind {
            0 => (i / 7) as u8,
            1 => {
                x ^= x << 13;
                x ^= x >> 7;
                x ^= x << 17;
                x as u8
            }
            2 => ((i as u32).wrapping_mul(2654435761) >> 29) as u8,
            _ => 0,
        })
        .collect()
}

fn cp(compcode: u8, clevel: u8, typesize: i32, filters: [u8; 6], split: i32, nthreads: i16) -> CParams {
    CParams {
        compcode,
        clevel,
        typesize,
        filters,
        splitmode: split,
        nthreads,
        ..CParams::default()
    }
}

#[test]
fn round_trips_across_parameters() {
    let codecs = [codec::BLOSCLZ, codec::LZ4, codec::LZ4HC, codec::ZLIB, codec::ZSTD];
    let pipelines = [
        [0, 0, 0, 0, 0, 0],
        [0, 0, 0, 0, 0, 1],
        [0, 0, 0, 0, 0, 2],
        [0, 0, 0, 0, 3, 1],
        [3, 1, 2, 0, 0, 0],
    ];
    for (k, n) in [
        (0u32, 0usize),
        (0, 1),
        (1, 31),
        (0, 32),
        (2, 1000),
        (0, 70_001),
        (1, 40_000),
    ] {
        let src = data(n, k);
        for &c in &codecs {
            for f in pipelines {
                for ts in [1, 2, 4, 8, 3, 16, 33] {
                    for (cl, sm, nt) in [
                        (5, splitmode::FORWARD_COMPAT, 1),
                        (1, splitmode::ALWAYS, 2),
                        (9, splitmode::NEVER, 1),
                        (0, splitmode::AUTO, 1),
                    ] {
                        let p = cp(c, cl, ts, f, sm, nt);
                        let ch = compress_vec(&p, &src).unwrap();
                        let back = decompress_vec(&ch).unwrap_or_else(|e| panic!("{e} for {p:?} n={n}"));
                        assert_eq!(back, src, "{p:?} n={n}");
                    }
                }
            }
        }
    }
}

#[test]
fn output_does_not_depend_on_threads() {
    let src = data(3_000_000, 2);
    for c in [codec::ZSTD, codec::ZLIB, codec::BLOSCLZ] {
        let a = compress_vec(&cp(c, 5, 4, [0, 0, 0, 0, 3, 1], 4, 1), &src).unwrap();
        let b = compress_vec(&cp(c, 5, 4, [0, 0, 0, 0, 3, 1], 4, 3), &src).unwrap();
        assert_eq!(a, b);
        let mut d = Context::decompressor(DParams {
            nthreads: 3,
            ..DParams::default()
        });
        let mut out = vec![0u8; src.len()];
        assert_eq!(d.decompress(&a, &mut out).unwrap(), src.len());
        assert_eq!(out, src);
    }
}

#[test]
fn threaded_delta_fails_cleanly_when_block_0_is_corrupt() {
    // Blocks 1.. wait for block 0 before their DELTA step: a block 0 that
    // does not decode must end the call with an error, not a hang.
    let src = data(3_000_000, 2);
    let mut ch = compress_vec(&cp(codec::LZ4, 5, 4, [0, 0, 0, 0, 3, 1], 4, 1), &src).unwrap();
    let hl = EXTENDED_HEADER_LENGTH;
    let start0 = u32::from_le_bytes(ch[hl..hl + 4].try_into().unwrap()) as usize;
    let csize = i32::from_le_bytes(ch[start0..start0 + 4].try_into().unwrap());
    assert!(csize > 64, "block 0 starts with a coded stream");
    // Literal-length bytes that run past the block: LZ4 refuses it.
    ch[start0 + 4..start0 + 4 + 64].fill(0xFF);
    let mut d = Context::decompressor(DParams {
        nthreads: 2,
        ..DParams::default()
    });
    let mut out = vec![0u8; src.len()];
    assert!(d.decompress(&ch, &mut out).is_err());
}

#[test]
fn parallel_compression_matches_serial_with_reused_contexts() {
    // Compressible, incompressible (memcpy fallback after an early give-up)
    // and mixed data, through the same threaded contexts again and again,
    // so staging buffers are parked, recycled and resized between calls.
    let mut mixed = data(600_000, 2);
    mixed.extend(data(600_000, 1));
    let inputs = [data(1_200_000, 2), data(1_200_000, 1), mixed, data(300_000, 0)];
    for c in [codec::LZ4, codec::BLOSCLZ, codec::ZSTD] {
        for nt in [2i16, 3] {
            let mut ctx = Context::compressor(cp(c, 5, 4, [0, 0, 0, 0, 0, 1], splitmode::FORWARD_COMPAT, nt));
            for _round in 0..2 {
                for src in &inputs {
                    let serial =
                        compress_vec(&cp(c, 5, 4, [0, 0, 0, 0, 0, 1], splitmode::FORWARD_COMPAT, 1), src).unwrap();
                    let mut out = vec![0u8; src.len() + 32];
                    let n = ctx.compress(src, &mut out).unwrap();
                    assert_eq!(&out[..n], &serial[..], "codec {c} nthreads {nt} n={}", src.len());
                    // One byte short: the blocks stop fitting part way
                    // (or the memcpy fallback does not fit): 0.
                    let mut short = vec![0u8; serial.len() - 1];
                    assert_eq!(ctx.compress(src, &mut short).unwrap(), 0);
                }
            }
        }
    }
}

#[test]
fn getitem_of_memcpyed_and_special_chunks_matches_decompress() {
    let src = data(300_000, 1);
    let mut p = cp(codec::LZ4, 0, 4, [0, 0, 0, 0, 0, 1], splitmode::FORWARD_COMPAT, 1);
    p.blocksize = 16 * 1024;
    let memcpyed = compress_vec(&p, &src).unwrap();
    assert_eq!(memcpyed.len(), src.len() + 32);
    let mut chunks = vec![memcpyed];
    for (kind, value) in [
        (Some(SpecialKind::Zeros), None),
        (Some(SpecialKind::Nans), None),
        (None, Some(&[1u8, 2, 3, 4][..])),
    ] {
        let mut c = vec![0u8; 64];
        let n = make_special(&p, 300_000, kind, value, &mut c).unwrap();
        c.truncate(n);
        chunks.push(c);
    }
    let mut ctx = Context::decompressor(DParams::default());
    for ch in &chunks {
        let all = decompress_vec(ch).unwrap();
        for (start, n) in [(0i64, 1i64), (4095, 2), (4096, 4096), (70_000, 4999), (74_999, 1)] {
            let mut out = vec![0xAAu8; (n * 4) as usize];
            assert_eq!(ctx.getitem(ch, start, n, &mut out).unwrap(), out.len());
            assert_eq!(out, &all[(start * 4) as usize..((start + n) * 4) as usize]);
        }
        let mut out = vec![0u8; 8];
        assert!(ctx.getitem(ch, 74_999, 2, &mut out).is_err());
        getitem_bytes_agrees_with_getitem(&mut ctx, ch);
    }
    // And a coded chunk, through the blocks.
    let coded = compress_vec(
        &cp(codec::LZ4, 5, 4, [0, 0, 0, 0, 0, 1], splitmode::FORWARD_COMPAT, 1),
        &data(300_000, 0),
    )
    .unwrap();
    getitem_bytes_agrees_with_getitem(&mut ctx, &coded);
}

/// `getitem_bytes` (byte ranges, checked without dividing) gives what
/// `getitem` gives for the same items, errors included, and refuses
/// ranges that are not whole items of the chunk's typesize (4 here).
fn getitem_bytes_agrees_with_getitem(ctx: &mut Context, ch: &[u8]) {
    let cases = [
        (0i64, 1i64, 4usize),
        (4095, 2, 8),
        (70_000, 4999, 20_000),
        (74_999, 1, 4),
        (74_999, 2, 8),
        (75_000, 0, 0),
        (75_001, 0, 0),
        (75_001, 1, 4),
        (10, 3, 8),
        (-1, 1, 4),
        (0, -1, 4),
    ];
    for (start, n, room) in cases {
        let (mut a, mut b) = (vec![0xAAu8; room], vec![0xAAu8; room]);
        let by_items = ctx.getitem(ch, start, n, &mut a).map_err(|e| e.code());
        let by_bytes = ctx.getitem_bytes(ch, start * 4, n * 4, &mut b).map_err(|e| e.code());
        assert_eq!(by_items, by_bytes, "items {start}+{n} into {room} bytes");
        assert_eq!(a, b);
    }
    let mut out = vec![0u8; 16];
    for (start, len) in [(2i64, 4i64), (4, 6), (1, 1)] {
        assert!(matches!(
            ctx.getitem_bytes(ch, start, len, &mut out),
            Err(Error::InvalidParam(_))
        ));
    }
}

/// Memcpyed and special chunks large enough to be shared out between
/// workers decode to the same bytes on any number of threads, with fill
/// values of odd sizes.
#[test]
fn large_memcpyed_and_special_chunks_decode_on_any_threads() {
    for typesize in [3usize, 8] {
        let nitems = (3 << 20) / typesize + 5;
        let nbytes = nitems * typesize;
        let src = data(nbytes, 1);
        let p = cp(
            codec::LZ4,
            0,
            typesize as i32,
            [0, 0, 0, 0, 0, 1],
            splitmode::FORWARD_COMPAT,
            2,
        );
        let mut chunks = vec![compress_vec(&p, &src).unwrap()];
        let value: Vec<u8> = (1..=typesize as u8).collect();
        for (kind, value) in [(Some(SpecialKind::Zeros), None), (None, Some(&value[..]))] {
            let mut c = vec![0u8; 64];
            let n = make_special(&p, nbytes as i32, kind, value, &mut c).unwrap();
            c.truncate(n);
            chunks.push(c);
        }
        let expected = [src, vec![0u8; nbytes], value.repeat(nitems)];
        for (ch, want) in chunks.iter().zip(&expected) {
            for nthreads in [1, 2, 3] {
                let mut ctx = Context::decompressor(DParams {
                    nthreads,
                    ..DParams::default()
                });
                let mut out = vec![0xAAu8; nbytes];
                assert_eq!(ctx.decompress(ch, &mut out).unwrap(), nbytes);
                assert!(out == *want, "typesize {typesize} nthreads {nthreads}");
            }
        }
    }
}

#[test]
fn zeros_collapse_to_a_special_chunk() {
    let src = vec![0u8; 100_000];
    let ch = compress_vec(&CParams::default(), &src).unwrap();
    assert_eq!(ch.len(), 32);
    assert_eq!(ch[31], 0x10);
    assert_eq!(decompress_vec(&ch).unwrap(), src);
}

#[test]
fn zero_blocks_skipping_the_filters_give_the_pipelines_bytes() {
    // An identity prefilter keeps every block on the filter pipeline; the
    // chunks must be the same bytes with and without it. Zero blocks sit
    // among others, first or not, so DELTA's reference is zeros or not.
    let block = 32 * 1024;
    let mut zero_first = vec![0u8; 3 * block];
    zero_first.extend(data(2 * block, 2));
    zero_first.extend(vec![0u8; block + 1000]);
    let mut zero_later = data(block, 1);
    zero_later.extend(vec![0u8; 2 * block]);
    zero_later.extend(data(block, 2));
    let identity: Prefilter = std::sync::Arc::new(|a: &mut PrefilterArgs<'_>| {
        a.output.copy_from_slice(a.input);
        0
    });
    let pipelines = [
        [0, 0, 0, 0, 0, filter::SHUFFLE],
        [0, 0, 0, 0, 0, filter::BITSHUFFLE],
        [0, 0, 0, 0, filter::DELTA, filter::SHUFFLE],
        [0, 0, 0, 0, filter::SHUFFLE, filter::DELTA],
        [0, 0, 0, filter::DELTA, filter::BITSHUFFLE, filter::SHUFFLE],
    ];
    for src in [&zero_first, &zero_later, &vec![0u8; 4 * block]] {
        for filters in pipelines {
            for (typesize, nthreads) in [(8, 1), (4, 2), (1, 1)] {
                let mut p = cp(codec::LZ4, 5, typesize, filters, splitmode::ALWAYS, nthreads);
                p.blocksize = block as i32;
                let fast = compress_vec(&p, src).unwrap();
                p.prefilter = Some(identity.clone());
                let piped = compress_vec(&p, src).unwrap();
                assert_eq!(fast, piped, "filters {filters:?} typesize {typesize} n={}", src.len());
                assert_eq!(&decompress_vec(&fast).unwrap(), src);
            }
        }
    }
}

#[test]
fn special_chunks_have_repeated_value_twins() {
    let p = |typesize| CParams {
        typesize,
        ..CParams::default()
    };
    // Zeros (a whole or partial number of items), NaNs and uninitialized.
    for (kind, typesize, nbytes) in [
        (SpecialKind::Zeros, 8i32, 800i32),
        (SpecialKind::Zeros, 4, 802),
        (SpecialKind::Nans, 4, 400),
        (SpecialKind::Nans, 8, 400),
        (SpecialKind::Uninit, 2, 100),
    ] {
        let mut special_chunk = vec![0u8; EXTENDED_HEADER_LENGTH];
        let zeros_partial = kind == SpecialKind::Zeros && nbytes % typesize != 0;
        let n = if zeros_partial {
            // make_special wants whole items; a zeros chunk of a partial
            // item comes from compression.
            special_chunk = compress_vec(&p(typesize), &vec![0u8; nbytes as usize]).unwrap();
            special_chunk.len()
        } else {
            make_special(&p(typesize), nbytes, Some(kind), None, &mut special_chunk).unwrap()
        };
        let twin = special::as_value_chunk(&special_chunk[..n]).unwrap().unwrap();
        let h = read_header(&twin).unwrap();
        assert_eq!(h.special_type(), crate::engine::constants::special::VALUE, "{kind:?}");
        let want = if kind == SpecialKind::Uninit {
            vec![0u8; nbytes as usize]
        } else {
            decompress_vec(&special_chunk[..n]).unwrap()
        };
        assert_eq!(decompress_vec(&twin).unwrap(), want, "{kind:?} {typesize} {nbytes}");
    }
    // No twin for other chunks, an empty zeros chunk, or NaNs of a
    // typesize that has none.
    let mut odd_nans = vec![0u8; EXTENDED_HEADER_LENGTH];
    make_special(&p(2), 100, Some(SpecialKind::Nans), None, &mut odd_nans).unwrap();
    assert!(special::as_value_chunk(&odd_nans).unwrap().is_none());
    let regular = compress_vec(&p(4), &data(1000, 0)).unwrap();
    assert!(special::as_value_chunk(&regular).unwrap().is_none());
    let mut empty = vec![0u8; EXTENDED_HEADER_LENGTH];
    make_special(&p(4), 0, Some(SpecialKind::Zeros), None, &mut empty).unwrap();
    assert!(special::as_value_chunk(&empty).unwrap().is_none());
}

#[test]
fn getitem_reads_ranges_including_delta() {
    let src = data(200_000, 0);
    for f in [[0, 0, 0, 0, 0, 1], [0, 0, 0, 0, 3, 1]] {
        let mut p = cp(codec::ZSTD, 5, 4, f, splitmode::FORWARD_COMPAT, 1);
        p.blocksize = 16 * 1024;
        let ch = compress_vec(&p, &src).unwrap();
        let mut ctx = Context::decompressor(DParams::default());
        for (start, n) in [(0i64, 1i64), (5000, 10_000), (49_990, 10), (20_000, 1)] {
            let mut out = vec![0u8; (n * 4) as usize];
            assert_eq!(ctx.getitem(&ch, start, n, &mut out).unwrap(), out.len());
            assert_eq!(out, &src[(start * 4) as usize..((start + n) * 4) as usize]);
        }
        let mut out = vec![0u8; 8];
        assert!(ctx.getitem(&ch, 49_999, 2, &mut out).is_err());
    }
}

#[test]
fn special_chunks_decode() {
    let p = CParams {
        typesize: 8,
        ..CParams::default()
    };
    let mut buf = [0u8; 64];
    let n = make_special(&p, 800, Some(SpecialKind::Nans), None, &mut buf).unwrap();
    let out = decompress_vec(&buf[..n]).unwrap();
    assert!(out
        .chunks(8)
        .all(|c| f64::from_le_bytes(c.try_into().unwrap()).is_nan()));
    let n = make_special(&p, 800, None, Some(&7u64.to_le_bytes()), &mut buf).unwrap();
    assert_eq!(n, 40);
    let out = decompress_vec(&buf[..n]).unwrap();
    assert!(out.chunks(8).all(|c| u64::from_le_bytes(c.try_into().unwrap()) == 7));
}

#[test]
fn vl_blocks_round_trip() {
    let blocks: Vec<Vec<u8>> = (0..12).map(|i| data(1000 + 137 * i, (i % 3) as u32)).collect();
    let refs: Vec<&[u8]> = blocks.iter().map(|b| b.as_slice()).collect();
    for c in [codec::ZSTD, codec::LZ4, codec::ZLIB] {
        for dict in [false, c != codec::ZLIB] {
            let mut p = cp(c, 5, 1, [0; 6], splitmode::FORWARD_COMPAT, 2);
            p.use_dict = dict;
            let mut ctx = Context::compressor(p);
            let mut dest = vec![0u8; 40_000];
            let n = ctx.vlcompress(&refs, &mut dest).unwrap();
            let ch = &dest[..n];
            assert_eq!(vl_nblocks(ch).unwrap(), 12);
            let all = decompress_vec(ch).unwrap();
            assert_eq!(all, blocks.concat());
            let mut d = Context::decompressor(DParams::default());
            let outs: Vec<Vec<u8>> = d.vldecompress(ch, |n| Ok(vec![0u8; n])).unwrap();
            assert_eq!(outs, blocks);
            let b5: Vec<u8> = d.vldecompress_block(ch, 5, |n| Ok(vec![0u8; n])).unwrap();
            assert_eq!(b5, blocks[5]);
        }
    }
}

#[test]
fn dictionaries_round_trip() {
    let src = data(400_000, 2);
    for c in [codec::ZSTD, codec::LZ4, codec::LZ4HC] {
        let mut p = cp(c, 5, 4, [0, 0, 0, 0, 0, filter::SHUFFLE], splitmode::FORWARD_COMPAT, 1);
        p.use_dict = true;
        p.blocksize = 32 * 1024;
        let ch = compress_vec(&p, &src).unwrap();
        assert_eq!(decompress_vec(&ch).unwrap(), src, "codec {c}");
    }
}

#[test]
fn hostile_chunks_fail_cleanly() {
    let src = data(50_000, 0);
    let ch = compress_vec(&cp(codec::ZSTD, 5, 4, [0, 0, 0, 0, 0, 1], 4, 1), &src).unwrap();
    let mut x: u32 = 12345;
    for i in 0..2000 {
        let mut bad = ch.clone();
        x = x.wrapping_mul(1_103_515_245).wrapping_add(12345);
        let pos = (x as usize >> 3) % bad.len().min(200 + i);
        bad[pos] ^= (x >> 24) as u8 | 1;
        let _ = decompress_vec(&bad);
        let cut = (x as usize) % ch.len();
        let _ = decompress_vec(&ch[..cut]);
    }
}

#[test]
fn blosc1_headers_round_trip() {
    use crate::engine::params::HeaderFormat;
    let src = data(100_000, 2);
    for version in [2u8, 5] {
        for f in [[0, 0, 0, 0, 0, 1], [0, 0, 0, 0, 0, 2], [0, 0, 0, 0, 3, 1], [0; 6]] {
            for c in [codec::ZSTD, codec::BLOSCLZ, codec::ZLIB] {
                let mut p = cp(c, 5, 4, f, splitmode::FORWARD_COMPAT, 1);
                p.header_format = HeaderFormat::Blosc1 { version };
                let ch = compress_vec(&p, &src).unwrap();
                assert_eq!(ch[0], version);
                assert_eq!(
                    ch[2] & 0x05,
                    if f[5] == 1 {
                        1
                    } else if f[5] == 2 {
                        4
                    } else {
                        0
                    }
                );
                assert_eq!(decompress_vec(&ch).unwrap(), src);
                let z = compress_vec(&p, &vec![0u8; 5000]).unwrap();
                assert_eq!(decompress_vec(&z).unwrap(), vec![0u8; 5000]);
            }
        }
    }
}

#[test]
fn decode_blocks_each_hands_over_the_blocks_asked_for() {
    // 300_000 bytes in 16 KiB blocks: 19 blocks, the last one partial.
    let src = data(300_000, 0);
    let bs = 16 * 1024;
    let mut chunks = Vec::new();
    for (clevel, f) in [
        (5, [0, 0, 0, 0, 0, 1]),
        (5, [0, 0, 0, 0, 3, 1]),
        (0, [0, 0, 0, 0, 0, 0]),
    ] {
        let mut p = cp(codec::LZ4, clevel, 4, f, splitmode::FORWARD_COMPAT, 1);
        p.blocksize = bs as i32;
        chunks.push(compress_vec(&p, &src).unwrap());
    }
    let mut p = cp(codec::LZ4, 5, 4, [0; 6], splitmode::FORWARD_COMPAT, 1);
    p.blocksize = bs as i32;
    for (kind, value) in [(Some(SpecialKind::Zeros), None), (None, Some(&[1u8, 2, 3, 4][..]))] {
        let mut c = vec![0u8; 64];
        let n = make_special(&p, 300_000, kind, value, &mut c).unwrap();
        c.truncate(n);
        chunks.push(c);
    }
    for threads in [1i16, 3] {
        let mut ctx = Context::decompressor(DParams {
            nthreads: threads,
            ..DParams::default()
        });
        for ch in &chunks {
            let all = decompress_vec(ch).unwrap();
            for blocks in [vec![0usize], vec![18, 3, 0], vec![7, 7, 18, 1, 2, 5, 9]] {
                let seen = std::sync::Mutex::new(vec![None; blocks.len()]);
                let each = ctx.decode_blocks_each(ch, &blocks, bs, |k, b| {
                    seen.lock().unwrap()[k] = Some(b.to_vec());
                    Ok(())
                });
                assert!(each.unwrap());
                for (k, got) in seen.into_inner().unwrap().into_iter().enumerate() {
                    let j = blocks[k];
                    assert_eq!(
                        got.as_deref(),
                        Some(&all[j * bs..((j + 1) * bs).min(all.len())]),
                        "block {j}"
                    );
                }
            }
            // Another block size, a block out of range, a sink that fails.
            assert!(!ctx
                .decode_blocks_each(ch, &[0], bs / 2, |_, _| panic!("no block"))
                .unwrap());
            assert!(ctx.decode_blocks_each(ch, &[19], bs, |_, _| Ok(())).is_err());
            let refused = ctx.decode_blocks_each(ch, &[0, 1, 2], bs, |_, _| Err(Error::Data("sink")));
            assert_eq!(refused, Err(Error::Data("sink")));
        }
    }
}

/// `instr_codec` chunks hold one 16-byte record per stream (flag 0x80 in
/// the header), and decompress to those records with the filters skipped,
/// whatever the thread count; runs are flagged.
#[test]
fn instrumented_chunks_hold_one_record_per_stream() {
    use crate::engine::constants::blosc2_flags;
    let floats: Vec<u8> = (0..100_000).flat_map(|i| (i as f32).to_le_bytes()).collect();
    for (split, nthreads, streams_per_block) in [(splitmode::NEVER, 1, 1), (splitmode::ALWAYS, 2, 4)] {
        let mut p = cp(codec::BLOSCLZ, 5, 4, [0, 0, 0, 0, 0, filter::SHUFFLE], split, nthreads);
        p.instr_codec = true;
        p.blocksize = 40_000;
        let c = compress_vec(&p, &floats).unwrap();
        assert_eq!(c[31] & blosc2_flags::INSTR_CODEC, blosc2_flags::INSTR_CODEC);
        let nstreams = 10 * streams_per_block;
        let (nbytes, cbytes, blocksize) = cbuffer_sizes(&c).unwrap();
        assert_eq!(
            (nbytes, blocksize),
            (16 * nstreams as i32, 16 * streams_per_block as i32)
        );
        assert_eq!(cbytes as usize, EXTENDED_HEADER_LENGTH + 4 * 10 + 20 * nstreams);
        let records = decompress_vec(&c).unwrap();
        assert_eq!(records.len(), 16 * nstreams);
        for r in records.chunks_exact(16) {
            let cratio = f32::from_ne_bytes(r[0..4].try_into().unwrap());
            assert!(cratio > 1.0, "{cratio}");
            assert!(f32::from_ne_bytes(r[4..8].try_into().unwrap()) > 0.0);
        }
    }
    let mut p = cp(codec::LZ4, 5, 4, [0; 6], splitmode::NEVER, 1);
    p.instr_codec = true;
    let zeros = vec![0u8; 64 * 1024];
    let records = decompress_vec(&compress_vec(&p, &zeros).unwrap()).unwrap();
    assert!(records
        .chunks_exact(16)
        .all(|r| r[12] == 1 && f32::from_ne_bytes(r[0..4].try_into().unwrap()) > 1000.0));
}

/// A buffer handed over block by block, as b2nd hands a chunk it gathers.
struct Blocks<'a> {
    bytes: &'a [u8],
    block_len: usize,
}

impl crate::engine::chunk::compress::BlockSource for Blocks<'_> {
    fn nbytes(&self) -> usize {
        self.bytes.len()
    }

    fn block_len(&self) -> usize {
        self.block_len
    }

    fn fill_block(&self, j: usize, out: &mut [u8]) -> crate::engine::error::Result<()> {
        out.copy_from_slice(&self.bytes[j * self.block_len..(j + 1) * self.block_len]);
        Ok(())
    }
}

/// Compressing a buffer gathered block by block writes the very bytes
/// compressing it whole does: blocks gathered as they are encoded (shuffle,
/// bitshuffle, no filter; zero blocks, runs, incompressible data stored
/// memcpyed, clevel 0), and the whole-buffer fallback (DELTA, a dictionary,
/// blocks other than the chunk's), with 1 and 2 threads.
#[test]
fn compress_blocks_writes_what_compress_writes() {
    let n = 64 << 10;
    let noise = data(n, 1);
    let ramp: Vec<u8> = (0..n / 8).flat_map(|i| (i as u64 * 3).to_le_bytes()).collect();
    let mut mixed = ramp.clone();
    mixed[8 << 10..16 << 10].fill(0);
    mixed[24 << 10..32 << 10].fill(7);
    let zeros = vec![0u8; n];
    for data in [&ramp, &mixed, &noise, &zeros] {
        for (filters, clevel, use_dict, block_len) in [
            ([0, 0, 0, 0, 0, 1], 5, false, 8 << 10),
            ([0, 0, 0, 0, 0, 2], 5, false, 8 << 10),
            ([0; 6], 9, false, 16 << 10),
            ([0, 0, 0, 0, 0, 1], 0, false, 8 << 10),
            ([0, 0, 0, 0, 3, 1], 5, false, 8 << 10),
            ([0, 0, 0, 0, 0, 1], 5, true, 8 << 10),
            ([0, 0, 0, 0, 0, 1], 5, false, 4 << 10),
        ] {
            for nthreads in [1i16, 2] {
                for compcode in [0u8, 1, 5] {
                    if use_dict && compcode == 0 {
                        continue; // BloscLZ has no dictionaries
                    }
                    let cp = CParams {
                        typesize: 8,
                        compcode,
                        clevel,
                        filters,
                        use_dict,
                        blocksize: 8 << 10,
                        nthreads,
                        ..CParams::default()
                    };
                    let want = compress_vec(&cp, data).unwrap();
                    let mut ctx = Context::compressor(cp);
                    for fresh in [false, true] {
                        let mut out = vec![0u8; n + crate::engine::constants::MAX_OVERHEAD];
                        let source = Blocks { bytes: data, block_len };
                        let got = ctx.compress_blocks(&source, &mut out, fresh).unwrap();
                        assert_eq!(
                            &out[..got],
                            &want[..],
                            "codec {compcode}, filters {filters:?}, clevel {clevel}, dict {use_dict}, \
                             {block_len}-byte source blocks, {nthreads} threads, fresh {fresh}"
                        );
                    }
                }
            }
        }
    }
}

/// Compressing into a fresh buffer (its pages faulted in a block at a time
/// before they are written) writes the bytes compressing into a used one
/// does: whole buffers and gathered blocks, 1 and 2 threads, blocks whose
/// output spans many pages, zero runs and incompressible streams, and a
/// destination too small for the chunk.
#[test]
fn compressing_into_fresh_memory_writes_the_same_bytes() {
    let n = 1 << 20;
    let mut seed = 0x2545_f491_4f6c_dd1du64;
    let data: Vec<u8> = (0..n / 8)
        .flat_map(|i| {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            let v = if (i / 4096) % 3 == 1 {
                0
            } else {
                (i as u64 * 1000) ^ (seed & 0xffff)
            };
            v.to_le_bytes()
        })
        .collect();
    for nthreads in [1i16, 2] {
        for compcode in [0u8, 1, 5] {
            let cp = CParams {
                typesize: 8,
                compcode,
                clevel: 5,
                filters: [0, 0, 0, 0, 0, 1],
                blocksize: 64 << 10,
                nthreads,
                ..CParams::default()
            };
            let want = compress_vec(&cp, &data).unwrap();
            let mut ctx = Context::compressor(cp);
            let mut out = vec![0u8; n + crate::engine::constants::MAX_OVERHEAD];
            let got = ctx.compress_to_fresh(&data, &mut out).unwrap();
            assert_eq!(
                &out[..got],
                &want[..],
                "codec {compcode}, {nthreads} threads, whole buffer"
            );
            let mut out = vec![0u8; n + crate::engine::constants::MAX_OVERHEAD];
            let source = Blocks {
                bytes: &data,
                block_len: 64 << 10,
            };
            let got = ctx.compress_blocks(&source, &mut out, true).unwrap();
            assert_eq!(&out[..got], &want[..], "codec {compcode}, {nthreads} threads, gathered");
            // Too small a destination: 0, as into used memory.
            let mut small = vec![0u8; want.len() - 1];
            let mut used = small.clone();
            let a = ctx.compress_to_fresh(&data, &mut small).unwrap();
            let b = ctx.compress(&data, &mut used).unwrap();
            assert_eq!(a, b, "codec {compcode}, {nthreads} threads, short destination");
        }
    }
}

#[test]
fn blocks_finished_ahead_of_their_turn_are_committed_in_order() {
    // Block 0 is held up (its prefilter sleeps), so the other workers
    // finish later blocks first and park them: into a buffer of the
    // engine's own, in `dest` while there is room and in spare buffers past
    // that (incompressible data, a short `dest`); into the caller's, as
    // copies when they are small (runs, zeros) and waiting otherwise, so
    // that nothing past the chunk is written. The chunk must be the serial
    // one, byte for byte.
    let slow_first: Prefilter = std::sync::Arc::new(|a: &mut PrefilterArgs<'_>| {
        if a.nblock == 0 {
            std::thread::sleep(std::time::Duration::from_millis(30));
        }
        a.output.copy_from_slice(a.input);
        0
    });
    let mut mixed = data(256 * 1024, 1);
    mixed.extend(data(256 * 1024, 2));
    let mut zeros_then_random = vec![0u8; 384 * 1024];
    zeros_then_random.extend(data(128 * 1024, 1));
    let sources = [
        data(512 * 1024, 2),
        data(512 * 1024, 1),
        mixed,
        data(512 * 1024, 0),
        zeros_then_random,
    ];
    for src in sources {
        for nthreads in [2i16, 3, 4] {
            let mut p = cp(codec::LZ4, 5, 4, [0, 0, 0, 0, 0, 1], splitmode::FORWARD_COMPAT, 1);
            p.blocksize = 32 * 1024;
            let serial = compress_vec(&p, &src).unwrap();
            p.nthreads = nthreads;
            p.prefilter = Some(slow_first.clone());
            let mut ctx = Context::compressor(p);
            for round in 0..2 {
                let mut out = vec![0xa5u8; src.len() + 32];
                let n = ctx.compress(&src, &mut out).unwrap();
                assert_eq!(&out[..n], &serial[..], "nthreads {nthreads} round {round}");
                assert!(
                    out[n..].iter().all(|&b| b == 0xa5),
                    "written past the chunk, nthreads {nthreads}"
                );
                let mut own = vec![0u8; src.len() + 32];
                let n = ctx.compress_to_own(&src, &mut own).unwrap();
                assert_eq!(&own[..n], &serial[..], "own dest, nthreads {nthreads} round {round}");
            }
            let mut short = vec![0u8; serial.len() - 1];
            assert_eq!(ctx.compress(&src, &mut short).unwrap(), 0, "nthreads {nthreads}");
            assert_eq!(
                ctx.compress_to_own(&src, &mut short).unwrap(),
                0,
                "own dest, nthreads {nthreads}"
            );
        }
    }
}

/// Shuffled counters behind a random low byte: the high byte planes are
/// runs (0 and other bytes) and the low one is stored as it is, which
/// decompression feeds to the unshuffle without writing them out; with
/// SHUFFLE alone, with another filter, split or not, blocks with a
/// leftover, on one and two threads.
#[test]
fn shuffled_blocks_with_run_and_stored_planes_round_trip() {
    let noise = data(50_000, 1);
    for ts in [2usize, 4, 8, 16, 3] {
        let src: Vec<u8> = noise
            .iter()
            .enumerate()
            .flat_map(|(i, &r)| {
                let v = (i as u128) << 8 | u128::from(r) | (0xA5u128 << (8 * (ts - 1)));
                v.to_le_bytes().into_iter().take(ts)
            })
            .collect();
        for c in [codec::BLOSCLZ, codec::LZ4, codec::ZSTD] {
            for f in [[0, 0, 0, 0, 0, 1], [0, 0, 0, 0, 1, 3], [0, 0, 0, 0, 2, 1]] {
                for (sm, nt) in [(splitmode::ALWAYS, 1), (splitmode::ALWAYS, 2), (splitmode::NEVER, 1)] {
                    let mut p = cp(c, 5, ts as i32, f, sm, nt);
                    p.blocksize = 24_000;
                    let ch = compress_vec(&p, &src).unwrap_or_else(|e| panic!("{e} for {p:?}"));
                    let back = decompress_vec(&ch).unwrap_or_else(|e| panic!("{e} for {p:?}"));
                    assert!(back == src, "{p:?}");
                }
            }
        }
    }
}
