//! Per-thread zlib compressor and decompressor kept across blocks and calls.
//!
//! `compress2`/`uncompress` set up a new stream for every block: for
//! deflate that is ~270 KB of state allocated and cleared, which at level 1
//! cost as much as compressing a 64 KB block. A kept stream is reset
//! instead (zlib-rs then clears only the hash heads, like zlib-ng's
//! `deflateReset`). A reset stream writes exactly the bytes a fresh one
//! does, so those blocks stay identical to C-Blosc2's; the tests compare
//! with the one-shot functions in `zlib.rs`. From clevel 2, noise is
//! Huffman-coded alone, and from clevel 4 small noise blocks go to a kept
//! libdeflate compressor ([`super::zlib_choice`]).
//! Decompression goes through libdeflate ([`super::inflate`]), but for the
//! streams of unshuffled int64 sequences, which zlib-rs decodes faster
//! ([`super::inflate::prefers_zlib_rs`]).

#![allow(unsafe_code)]

use std::ops::Range;

use libz_rs_sys::{uInt, z_stream};

use super::deflate::Deflater;
use super::inflate::{self, Inflater};
use super::noise_runs::NoiseRuns;
use super::zlib::{self, new_stream};
use super::zlib_choice::{self, Encoder};
use crate::engine::error::{Error, Result};

/// An initialised deflate stream, boxed because zlib keeps a pointer to it
/// in its state (the stream must not move between calls). Dropping it ends
/// it.
struct Stream(Box<z_stream>);

impl Drop for Stream {
    fn drop(&mut self) {
        if self.0.state.is_null() {
            return;
        }
        // SAFETY: initialised by deflateInit_ (a non-null state), ended
        // once here.
        unsafe { libz_rs_sys::deflateEnd(&mut *self.0) };
    }
}

impl Stream {
    /// Compress all of `src` into `dst` (`avail_out` bytes) as one zlib
    /// stream at `level`, with the `huffman_only` ranges of `src` (in
    /// order, apart) coded by Huffman coding alone and the rest by `level`'s
    /// algorithm: zlib's return code for the last call and the bytes
    /// written. Without such ranges that is one `deflate` call with
    /// `Z_FINISH`, after the strategy is set back (a kept stream may still
    /// have an earlier block's). Each switch of strategy ends a DEFLATE
    /// block (`deflateParams`). The window carries over, but Huffman-coded
    /// bytes are not in the hash chains: later bytes cannot copy them (the
    /// finder of noise runs sees that none would).
    fn finish(
        &mut self,
        level: i32,
        src: &[u8],
        huffman_only: &[Range<usize>],
        dst: &mut [u8],
        avail_out: uInt,
    ) -> (i32, usize) {
        let z = &mut *self.0;
        z.next_out = dst.as_mut_ptr();
        z.avail_out = avail_out;
        let mut rc = libz_rs_sys::Z_OK;
        for (piece, huffman) in pieces(src.len(), huffman_only) {
            let strategy = if huffman {
                libz_rs_sys::Z_HUFFMAN_ONLY
            } else {
                libz_rs_sys::Z_DEFAULT_STRATEGY
            };
            // SAFETY: an initialised stream; `next_out`/`avail_out` still
            // describe the rest of `dst`, where the flush a switch makes
            // writes.
            rc = unsafe { libz_rs_sys::deflateParams(z, level, strategy) };
            if rc != libz_rs_sys::Z_OK {
                break;
            }
            let last = piece.end == src.len();
            let input = &src[piece];
            z.next_in = input.as_ptr().cast_mut();
            // Fits: all of `src` does (`stream_room`).
            z.avail_in = input.len() as uInt;
            let flush = if last {
                libz_rs_sys::Z_FINISH
            } else {
                libz_rs_sys::Z_NO_FLUSH
            };
            // SAFETY: `next_in`/`avail_in` describe `input`, and `next_out`/
            // `avail_out` the rest of `dst`; both live for this call.
            rc = unsafe { libz_rs_sys::deflate(z, flush) };
            // Input left over: out of room.
            if z.avail_in != 0 || last {
                break;
            }
        }
        let written = avail_out.saturating_sub(z.avail_out) as usize;
        z.next_in = std::ptr::null_mut();
        z.next_out = std::ptr::null_mut();
        (rc, written)
    }
}

/// `0..len` cut at the edges of the `marked` ranges (sorted and apart),
/// each piece with whether it is one of them; empty gaps left out, but
/// never every piece (an empty `src` is still one piece).
fn pieces(len: usize, marked: &[Range<usize>]) -> impl Iterator<Item = (Range<usize>, bool)> + '_ {
    let gap_starts = std::iter::once(0).chain(marked.iter().map(|m| m.end));
    let gap_ends = marked.iter().map(|m| m.start).chain([len]);
    let gaps = gap_starts.zip(gap_ends).map(|(start, end)| (start..end, false));
    let runs = marked.iter().map(|m| Some((m.clone(), true))).chain([None]);
    gaps.zip(runs)
        .flat_map(|(gap, run)| std::iter::once(gap).chain(run))
        .filter(move |(piece, marked_piece)| *marked_piece || !piece.is_empty() || marked.is_empty())
}

// SAFETY: the stream and the state it points to are owned by this value
// alone; zlib holds no thread-local or shared data for them.
unsafe impl Send for Stream {}

/// The kept deflate stream (with its level), libdeflate compressor and
/// inflate decoder, and the finder of noise runs with its tables.
#[derive(Default)]
pub struct ZlibState {
    deflate: Option<(i32, Stream)>,
    libdeflate: Option<Deflater>,
    inflate: Option<Inflater>,
    noise: NoiseRuns,
}

impl ZlibState {
    /// Compress `src` into `dst` at `clevel` with the encoder
    /// [`zlib_choice::choose`] picks; 0 when it does not fit.
    pub fn compress(&mut self, clevel: u8, src: &[u8], dst: &mut [u8]) -> Result<usize> {
        match zlib_choice::choose(clevel, src, &mut self.noise) {
            Encoder::ZlibNg => self.compress_zlib_ng(clevel, src, dst),
            Encoder::NoiseRunsHuffmanOnly => {
                Self::compress_deflate(&mut self.deflate, clevel, src, self.noise.runs(), dst)
            }
            Encoder::Libdeflate(level) => {
                if self.libdeflate.as_ref().is_none_or(|d| d.level() != level) {
                    // Free a compressor of another level first.
                    self.libdeflate = None;
                    self.libdeflate = Deflater::new(level);
                }
                match &mut self.libdeflate {
                    Some(d) => Ok(d.compress(src, dst)),
                    // Out of memory for libdeflate's tables: zlib-ng's
                    // algorithm writes a valid block too.
                    None => self.compress_zlib_ng(clevel, src, dst),
                }
            }
        }
    }

    /// Compress `src` into `dst` at `clevel` as `compress2` does (zlib-ng's
    /// bytes); 0 when it does not fit.
    pub fn compress_zlib_ng(&mut self, clevel: u8, src: &[u8], dst: &mut [u8]) -> Result<usize> {
        Self::compress_deflate(&mut self.deflate, clevel, src, &[], dst)
    }

    /// [`Self::compress_zlib_ng`] with the kept stream in `deflate`, but
    /// with the `huffman_only` ranges of `src` Huffman-coded only.
    fn compress_deflate(
        deflate: &mut Option<(i32, Stream)>,
        clevel: u8,
        src: &[u8],
        huffman_only: &[Range<usize>],
        dst: &mut [u8],
    ) -> Result<usize> {
        let level = i32::from(clevel.min(9));
        let Some(avail_out) = stream_room(src, dst) else {
            return super::zlib::compress(clevel, src, dst);
        };
        let strm = match &mut *deflate {
            Some((l, s)) if *l == level => {
                // SAFETY: `s` was initialised by deflateInit_ and not ended.
                if unsafe { libz_rs_sys::deflateReset(&mut *s.0) } != libz_rs_sys::Z_OK {
                    return Err(Error::CodecParam);
                }
                s
            }
            slot => {
                // Drop (end) a stream of another level before the new one
                // is allocated.
                *slot = None;
                &mut slot.insert((level, deflate_stream(level)?)).1
            }
        };
        let (rc, written) = strm.finish(level, src, huffman_only, dst, avail_out);
        match rc {
            libz_rs_sys::Z_STREAM_END => Ok(written),
            // Out of room: `compress2` reports Z_BUF_ERROR, which is 0 here.
            libz_rs_sys::Z_OK | libz_rs_sys::Z_BUF_ERROR => Ok(0),
            _ => {
                *deflate = None;
                Err(Error::CodecParam)
            }
        }
    }

    /// Decompress a zlib stream into `dst` as `uncompress` does; `None`
    /// when malformed or when it does not decode into `dst`.
    pub fn decompress(&mut self, src: &[u8], dst: &mut [u8]) -> Option<usize> {
        if inflate::prefers_zlib_rs(src, dst.len()) {
            return zlib::decompress(src, dst);
        }
        let inflater = match &mut self.inflate {
            Some(i) => i,
            slot => slot.insert(Inflater::new()?),
        };
        inflater.decompress(src, dst)
    }
}

/// `dst`'s length as a zlib count, when it and `src`'s fit in one (else
/// the one-shot calls, which feed zlib in pieces, take over).
fn stream_room(src: &[u8], dst: &[u8]) -> Option<uInt> {
    uInt::try_from(src.len()).ok()?;
    uInt::try_from(dst.len()).ok()
}

fn deflate_stream(level: i32) -> Result<Stream> {
    let mut s = Stream(Box::new(new_stream()));
    // SAFETY: a zeroed stream with allocator hooks, as deflateInit expects;
    // boxed, so the address zlib records stays valid.
    let rc = unsafe {
        libz_rs_sys::deflateInit_(
            &mut *s.0,
            level,
            libz_rs_sys::zlibVersion(),
            std::mem::size_of::<z_stream>() as i32,
        )
    };
    if rc != libz_rs_sys::Z_OK {
        // Nothing to end: a failed init leaves no state.
        s.0.state = std::ptr::null_mut();
        return Err(Error::CodecParam);
    }
    Ok(s)
}

#[cfg(test)]
mod tests {
    use super::super::zlib;
    use super::ZlibState;
    use crate::engine::filters::shuffle::test_util::Rng;

    fn data(seed: u32, len: usize) -> Vec<u8> {
        let mut x = seed.wrapping_mul(0x9E37_79B9) | 1;
        (0..len)
            .map(|i| {
                x ^= x << 13;
                x ^= x >> 17;
                x ^= x << 5;
                // Mostly compressible, with a noisy stretch in some inputs.
                if seed.is_multiple_of(3) && i % 4096 < 700 {
                    x as u8
                } else {
                    (i / (1 + seed as usize % 5) % 61) as u8
                }
            })
            .collect()
    }

    /// Noise at clevel 2-9 is written otherwise than `compress2` writes it
    /// (Huffman coding alone), and decoded by both inflaters; everything
    /// else, and every block at clevel 1, is `compress2`'s bytes.
    #[test]
    fn noise_leaves_compress2_from_clevel_2() {
        let mut rng = Rng(0x9E37_79B9_7F4A_7C15);
        // 240 values: Huffman coding saves a little, so it fits.
        let noise: Vec<u8> = (0..100_000).map(|_| (rng.next() >> 32) as u8 % 240).collect();
        let mut st = ZlibState::default();
        for clevel in [1u8, 3, 4, 5, 9, 6, 2] {
            for src in [&noise, &data(7, 100_000)] {
                // Room to spare: level 1's fixed codes expand noise.
                let mut a = vec![0u8; 2 * src.len()];
                let mut b = vec![0u8; 2 * src.len()];
                let na = st.compress(clevel, src, &mut a).unwrap();
                let nb = zlib::compress(clevel, src, &mut b).unwrap();
                assert!(na > 0 && nb > 0, "clevel {clevel}");
                let not_compress2 = clevel >= 2 && std::ptr::eq(src, &noise);
                assert_eq!(a[..na] != b[..nb], not_compress2, "clevel {clevel}");
                let mut d = vec![0u8; src.len()];
                assert_eq!(st.decompress(&a[..na], &mut d), Some(src.len()));
                assert_eq!(&d, src);
                assert_eq!(zlib::decompress(&a[..na], &mut d), Some(src.len()));
                assert_eq!(&d, src);
            }
        }
    }

    /// Shuffled floats: noise planes then planes that repeat.
    fn planes(rng: &mut Rng, plane: usize) -> Vec<u8> {
        let mut v: Vec<u8> = (0..4 * plane).map(|_| (rng.next() >> 32) as u8).collect();
        v.extend((0..plane).map(|i| (i / 300 % 7) as u8 + 0x3F));
        v.extend(std::iter::repeat_n(0x40, plane));
        v
    }

    /// Blocks with noise runs Huffman-code them: the stream decodes with
    /// both inflaters, is no larger than `compress2`'s by more than the
    /// extra DEFLATE block headers, fails cleanly when out of room, and the
    /// kept stream then writes `compress2`'s bytes again.
    #[test]
    fn noise_runs_are_huffman_coded() {
        let mut rng = Rng(0x1234_5678_9ABC_DEF1);
        let mut st = ZlibState::default();
        for plane in [4096usize, 16_384, 32_768, 65_536] {
            let src = planes(&mut rng, plane);
            for clevel in [2u8, 3, 4, 5, 6, 7, 9] {
                let mut a = vec![0u8; src.len()];
                let mut b = vec![0u8; src.len()];
                let na = st.compress(clevel, &src, &mut a).unwrap();
                let nb = zlib::compress(clevel, &src, &mut b).unwrap();
                assert!(na > 0 && nb > 0, "plane {plane} clevel {clevel}");
                assert_ne!(a[..na], b[..nb], "plane {plane} clevel {clevel}");
                assert!(na <= nb + nb / 100, "plane {plane} clevel {clevel}: {na} > {nb}");
                let mut d = vec![0u8; src.len()];
                assert_eq!(st.decompress(&a[..na], &mut d), Some(src.len()));
                assert_eq!(d, src);
                assert_eq!(zlib::decompress(&a[..na], &mut d), Some(src.len()));
                assert_eq!(d, src);
                // Out of room at each stage: before, within and after the
                // noise runs.
                for room in [10, na / 3, na * 2 / 3, na - 1] {
                    assert_eq!(st.compress(clevel, &src, &mut a[..room]).unwrap(), 0, "room {room}");
                }
                let other = data(5, 100_000);
                let na = st.compress(clevel, &other, &mut a).unwrap();
                let nb = zlib::compress(clevel, &other, &mut b).unwrap();
                assert_eq!(a[..na], b[..nb]);
            }
        }
    }

    /// One kept state, used across levels, sizes and outputs that do not
    /// fit, gives exactly the bytes of a fresh `compress2`, and decodes
    /// what `uncompress` decodes.
    #[test]
    fn kept_streams_match_one_shot_calls() {
        let mut st = ZlibState::default();
        let mut seed = 0;
        for level in [1u8, 1, 5, 9, 5, 3, 0, 1] {
            for len in [1usize, 100, 4096, 65536, 200_000] {
                seed += 1;
                let src = data(seed, len);
                for room in [len + 64, len / 3] {
                    let mut a = vec![0u8; room];
                    let mut b = vec![0u8; room];
                    let na = st.compress_zlib_ng(level, &src, &mut a).unwrap();
                    let nb = zlib::compress(level, &src, &mut b).unwrap();
                    assert_eq!(na, nb, "level {level} len {len} room {room}");
                    assert_eq!(a[..na], b[..nb], "level {level} len {len} room {room}");
                    if na == 0 {
                        continue;
                    }
                    let mut d = vec![0u8; len];
                    assert_eq!(st.decompress(&a[..na], &mut d), Some(len));
                    assert_eq!(d, src);
                    // Truncated, corrupted and too-small outputs fail the
                    // same way for both, and do not spoil the kept stream.
                    assert_eq!(st.decompress(&a[..na / 2], &mut d), None);
                    assert_eq!(zlib::decompress(&a[..na / 2], &mut d), None);
                    let mut bad = a[..na].to_vec();
                    bad[na / 2] ^= 0x55;
                    assert_eq!(
                        st.decompress(&bad, &mut d).is_some(),
                        zlib::decompress(&bad, &mut d).is_some()
                    );
                    if len > 1 {
                        let mut short = vec![0u8; len - 1];
                        assert_eq!(st.decompress(&a[..na], &mut short), None);
                    }
                }
            }
        }
    }
}
