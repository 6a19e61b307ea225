//! Calls into zfp 1.0.1 (the C library C-Blosc2 3.3.5 links, built from
//! `vendor/zfp-sys`), behind two safe functions: [`encode`] and [`decode`].
//!
//! zfp trusts its buffers: its bit-stream writer and reader never check the
//! capacity they were given, and it reads and writes the values through
//! `float*` / `double*`. So every buffer handed to it here is sized from
//! bounds computed before the call, and is one of ours, aligned for its
//! scalars: the compressed stream always sits in a `Vec<u64>` (zfp moves
//! whole 64-bit words), and values go through an aligned copy when the
//! caller's slice is not aligned.

#![allow(unsafe_code)]

use core::ffi::{c_uint, c_void, CStr};

use blosc2_zfp_sys as sys;

use crate::engine::error::{Error, Result};

/// The scalar type of the values.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Scalar {
    /// `float` (typesize 4).
    Float,
    /// `double` (typesize 8).
    Double,
}

impl Scalar {
    /// The scalar for a typesize, if zfp has one.
    pub fn from_typesize(typesize: usize) -> Option<Scalar> {
        match typesize {
            4 => Some(Scalar::Float),
            8 => Some(Scalar::Double),
            _ => None,
        }
    }

    fn size(self) -> usize {
        match self {
            Scalar::Float => 4,
            Scalar::Double => 8,
        }
    }

    fn zfp_type(self) -> sys::zfp_type {
        match self {
            Scalar::Float => sys::ZFP_TYPE_FLOAT,
            Scalar::Double => sys::ZFP_TYPE_DOUBLE,
        }
    }

    /// Bits of the common exponent a block header carries.
    fn exponent_bits(self) -> u64 {
        match self {
            Scalar::Float => 8,
            Scalar::Double => 11,
        }
    }
}

/// How zfp is told to compress (its `zfp_stream_set_*` call).
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Setting {
    /// `zfp_stream_set_accuracy(tolerance)`.
    Accuracy(f64),
    /// `zfp_stream_set_precision(bit planes)`.
    Precision(u32),
    /// `zfp_stream_set_rate(bits per value, type, dims, unaligned)`.
    Rate(f64),
}

/// `zfp_version_string` of the linked library.
pub fn version_string() -> &'static str {
    // SAFETY: zfp defines `zfp_version_string` as a `const char* const`
    // pointing at a NUL-terminated string literal, never changed.
    let text = unsafe { CStr::from_ptr(sys::zfp_version_string) };
    text.to_str().unwrap_or("zfp")
}

/// A `zfp_stream` with its settings and, once attached, its bit stream;
/// both are closed on drop.
struct Stream {
    zfp: *mut sys::zfp_stream,
    bits: *mut sys::bitstream,
}

impl Stream {
    fn open(setting: Setting, scalar: Scalar, ndim: usize) -> Result<Stream> {
        // SAFETY: a NULL bit stream is allowed ("may be NULL").
        let zfp = unsafe { sys::zfp_stream_open(core::ptr::null_mut()) };
        if zfp.is_null() {
            return Err(Error::MemoryAlloc);
        }
        let stream = Stream {
            zfp,
            bits: core::ptr::null_mut(),
        };
        // SAFETY: `stream.zfp` is a live stream from `zfp_stream_open`; the
        // setters only store parameters in it.
        unsafe {
            match setting {
                Setting::Accuracy(tolerance) => {
                    sys::zfp_stream_set_accuracy(stream.zfp, tolerance);
                }
                Setting::Precision(precision) => {
                    sys::zfp_stream_set_precision(stream.zfp, precision);
                }
                Setting::Rate(rate) => {
                    sys::zfp_stream_set_rate(stream.zfp, rate, scalar.zfp_type(), ndim as c_uint, 0);
                }
            }
        }
        Ok(stream)
    }

    /// `(minbits, maxbits)` per block of the settings.
    fn bit_limits(&self) -> (u64, u64) {
        let (mut minbits, mut maxbits): (c_uint, c_uint) = (0, 0);
        // SAFETY: `self.zfp` is live; the two pointers are valid `uint`s
        // and the other two may be NULL.
        unsafe {
            sys::zfp_stream_params(
                self.zfp,
                &mut minbits,
                &mut maxbits,
                core::ptr::null_mut(),
                core::ptr::null_mut(),
            );
        }
        (u64::from(minbits), u64::from(maxbits))
    }

    /// Attach `words` as the bit stream and rewind to its start. zfp keeps
    /// the pointer: `words` must outlive every later call on `self` (the
    /// callers below keep it borrowed until `self` drops).
    fn attach(&mut self, words: &mut [u64]) -> Result<()> {
        // SAFETY: `words` is valid for `len * 8` bytes, 8-byte aligned;
        // `stream_open` only records the pointer and capacity.
        let bits = unsafe { sys::stream_open(words.as_mut_ptr().cast::<c_void>(), words.len() * 8) };
        if bits.is_null() {
            return Err(Error::MemoryAlloc);
        }
        self.bits = bits;
        // SAFETY: both are live; the stream is attached, then rewound.
        unsafe {
            sys::zfp_stream_set_bit_stream(self.zfp, self.bits);
            sys::zfp_stream_rewind(self.zfp);
        }
        Ok(())
    }
}

impl Drop for Stream {
    fn drop(&mut self) {
        // SAFETY: each pointer is NULL or came from its `*_open`, and is
        // closed exactly once, here.
        unsafe {
            sys::zfp_stream_close(self.zfp);
            if !self.bits.is_null() {
                sys::stream_close(self.bits);
            }
        }
    }
}

/// A `zfp_field` describing `values` (C order `dims`); freed on drop.
struct Field {
    field: *mut sys::zfp_field,
}

impl Field {
    /// `values` must hold exactly `product(dims) * scalar size` bytes, be
    /// aligned for the scalar, and outlive the field.
    fn new(values: *mut c_void, scalar: Scalar, dims: &[usize]) -> Result<Field> {
        let t = scalar.zfp_type();
        // zfp's x is the fastest-varying (last, in C order) dimension.
        // SAFETY: the `zfp_field_*d` constructors only store the pointer,
        // type and extents in a new allocation.
        let field = unsafe {
            match *dims {
                [nx] => sys::zfp_field_1d(values, t, nx),
                [ny, nx] => sys::zfp_field_2d(values, t, nx, ny),
                [nz, ny, nx] => sys::zfp_field_3d(values, t, nx, ny, nz),
                [nw, nz, ny, nx] => sys::zfp_field_4d(values, t, nx, ny, nz, nw),
                _ => return Err(Error::Failure("ZFP: 1 to 4 dimensions")),
            }
        };
        if field.is_null() {
            return Err(Error::MemoryAlloc);
        }
        Ok(Field { field })
    }
}

impl Drop for Field {
    fn drop(&mut self) {
        // SAFETY: `self.field` came from a `zfp_field_*d` and is freed once.
        unsafe { sys::zfp_field_free(self.field) };
    }
}

/// `bytes` copied into 8-byte aligned storage (zero-padded to whole words,
/// plus `extra_words` zero words).
fn to_words(bytes: &[u8], extra_words: usize) -> Vec<u64> {
    let mut words = vec![0u64; bytes.len().div_ceil(8) + extra_words];
    // Whole words first (fixed-size loads the compiler turns into plain
    // moves: a variable-length copy per word cost 7% of a ZFP decode).
    let whole = bytes.chunks_exact(8);
    let tail = whole.remainder();
    let mut n = 0;
    for (word, piece) in words.iter_mut().zip(whole) {
        let mut le = [0u8; 8];
        le.copy_from_slice(piece);
        *word = u64::from_le_bytes(le);
        n += 1;
    }
    if !tail.is_empty() {
        let mut le = [0u8; 8];
        le[..tail.len()].copy_from_slice(tail);
        words[n] = u64::from_le_bytes(le);
    }
    words
}

/// The bytes of `words` (little-endian), the first `out.len()` of them.
fn words_to_bytes(words: &[u64], out: &mut [u8]) {
    let mut whole = out.chunks_exact_mut(8);
    let mut n = 0;
    for (piece, word) in (&mut whole).zip(words) {
        piece.copy_from_slice(&word.to_le_bytes());
        n += 1;
    }
    let tail = whole.into_remainder();
    if let Some(word) = words.get(n).filter(|_| !tail.is_empty()) {
        let len = tail.len();
        tail.copy_from_slice(&word.to_le_bytes()[..len]);
    }
}

fn is_aligned(bytes: &[u8], scalar: Scalar) -> bool {
    bytes.as_ptr().align_offset(scalar.size()) == 0
}

fn value_bytes(scalar: Scalar, dims: &[usize]) -> Result<usize> {
    dims.iter()
        .try_fold(scalar.size(), |n, &d| n.checked_mul(d))
        .ok_or(Error::Failure("ZFP: block too large"))
}

/// Compress the block `input` (C order `dims`, 1 to 4 of them) with zfp
/// into `output`: the stream's length, as `zfp_compress` writes it (a
/// multiple of 8 bytes), or 0 when zfp reports failure or the stream is
/// longer than `output` (which is then left as it was).
pub fn encode(setting: Setting, scalar: Scalar, dims: &[usize], input: &[u8], output: &mut [u8]) -> Result<usize> {
    if value_bytes(scalar, dims)? != input.len() {
        return Err(Error::Failure("ZFP: input is not one block"));
    }
    // zfp only reads the values, but through a `void*` of the field.
    let mut aligned_copy;
    let values = if is_aligned(input, scalar) {
        input.as_ptr().cast_mut().cast::<c_void>()
    } else {
        aligned_copy = to_words(input, 0);
        aligned_copy.as_mut_ptr().cast::<c_void>()
    };
    let field = Field::new(values, scalar, dims)?;
    let mut stream = Stream::open(setting, scalar, dims.len())?;
    // SAFETY: both are live; this only computes a size.
    let max_bytes = unsafe { sys::zfp_stream_maximum_size(stream.zfp, field.field) };
    if max_bytes == 0 {
        return Ok(0);
    }
    // zfp writes at most `max_bytes` (word-rounded); one spare word more.
    let mut out = vec![0u64; max_bytes.div_ceil(8) + 1];
    stream.attach(&mut out)?;
    // SAFETY: the field describes `input.len()` readable bytes aligned for
    // the scalar (`values`, alive until the end of this function); the bit
    // stream is `out`, larger than zfp's own bound for these settings and
    // this field, so the unchecked writer stays inside it.
    let written = unsafe { sys::zfp_compress(stream.zfp, field.field) };
    drop(stream);
    drop(field);
    if written == 0 || written > out.len() * 8 || written > output.len() {
        return Ok(0);
    }
    words_to_bytes(&out, &mut output[..written]);
    Ok(written)
}

/// The most bits zfp's decoder reads for one block of `4^ndim` values,
/// whatever the stream holds. Per block: the "nonzero" bit and the common
/// exponent, then at most 64 bit planes, each reading the values already
/// significant verbatim (at most `size`) and, through the group tests, at
/// most two bits per value that turns significant plus one to end the
/// plane; a block also skips up to `minbits`. The bit-budgeted decoder
/// (used when `maxbits` is the tighter limit) reads no more than that.
fn max_bits_per_block(scalar: Scalar, ndim: usize, minbits: u64) -> u64 {
    let size = 1u64 << (2 * ndim);
    let planes = u64::from(sys::ZFP_MAX_PREC);
    let coded = 1 + scalar.exponent_bits() + planes * size + 2 * size + planes;
    coded.max(minbits)
}

/// Decompress the zfp stream `input` into `output`, which receives the
/// block of C order `dims` (its first `product(dims) * size` bytes).
///
/// zfp's reader does not know where its input ends, so the stream is copied
/// into a zeroed buffer as long as the most the decoder can read for this
/// many blocks: a short or corrupt stream then decodes to some values, but
/// nothing outside our buffers is read or written.
pub fn decode(setting: Setting, scalar: Scalar, dims: &[usize], input: &[u8], output: &mut [u8]) -> Result<()> {
    let nbytes = value_bytes(scalar, dims)?;
    if output.len() < nbytes {
        return Err(Error::Failure("ZFP: block does not fit the output"));
    }
    let blocks = dims
        .iter()
        .try_fold(1u64, |n, &d| n.checked_mul((d as u64).div_ceil(4)))
        .ok_or(Error::Failure("ZFP: block too large"))?;
    let mut stream = Stream::open(setting, scalar, dims.len())?;
    let (minbits, _) = stream.bit_limits();
    let readable_bits = blocks
        .checked_mul(max_bits_per_block(scalar, dims.len(), minbits))
        .ok_or(Error::Failure("ZFP: block too large"))?;
    // Whole words the decoder may touch, plus its one-word look-ahead and
    // a spare one.
    let readable_words =
        usize::try_from(readable_bits.div_ceil(64) + 2).map_err(|_| Error::Failure("ZFP: block too large"))?;
    let extra = readable_words.saturating_sub(input.len().div_ceil(8));
    let mut words = to_words(input, extra);
    stream.attach(&mut words)?;

    let out = &mut output[..nbytes];
    let mut aligned_copy = Vec::new();
    let values = if is_aligned(out, scalar) {
        out.as_mut_ptr().cast::<c_void>()
    } else {
        aligned_copy = vec![0u64; nbytes.div_ceil(8)];
        aligned_copy.as_mut_ptr().cast::<c_void>()
    };
    let field = Field::new(values, scalar, dims)?;
    // SAFETY: the field describes `nbytes` writable bytes aligned for the
    // scalar (`out` or `aligned_copy`, both alive here), which zfp fills
    // block by block; the bit stream is `words`, which holds at least the
    // most bits the decoder reads for `blocks` blocks (see
    // `max_bits_per_block`) plus its look-ahead word.
    let read = unsafe { sys::zfp_decompress(stream.zfp, field.field) };
    drop(field);
    drop(stream);
    if read == 0 {
        return Err(Error::Data("ZFP: stream does not decode"));
    }
    if !aligned_copy.is_empty() {
        words_to_bytes(&aligned_copy, out);
    }
    Ok(())
}

#[cfg(test)]
mod word_tests {
    use super::{to_words, words_to_bytes};

    /// Little-endian words, zero-padded, and back, for every tail length.
    #[test]
    fn words_round_trip() {
        let bytes: Vec<u8> = (1..=40u8).collect();
        for len in 0..=bytes.len() {
            let words = to_words(&bytes[..len], 2);
            assert_eq!(words.len(), len.div_ceil(8) + 2);
            let mut naive = vec![0u8; words.len() * 8];
            naive[..len].copy_from_slice(&bytes[..len]);
            let want: Vec<u64> = naive
                .chunks(8)
                .map(|c| u64::from_le_bytes(c.try_into().unwrap()))
                .collect();
            assert_eq!(words, want, "len {len}");
            let mut out = vec![0xAAu8; len];
            words_to_bytes(&words, &mut out);
            assert_eq!(out, &bytes[..len], "len {len}");
        }
    }
}
