//! The byte layout of a frame's msgpack header and trailer, as C-Blosc2
//! 3.3.5 writes them (see `API.md` §6.10), with bounds-checked decoders:
//! every length, count and offset read from a frame is untrusted.

use crate::engine::constants::MAX_FILTERS;
use crate::engine::error::{Error, Result};

/// Length of the fixed part of the header (up to the metalayers).
pub const HEADER_MINLEN: usize = 87;
/// Smallest possible trailer (no vlmetalayers).
pub const TRAILER_MINLEN: usize = 25;
/// Distance from the end of the frame to the `trailer_len` field.
pub const TRAILER_LEN_OFFSET: usize = 22;
/// Position of the `header_len` value.
pub const POS_HEADER_LEN: usize = 11;
/// Position of the `frame_len` value.
pub const POS_FRAME_LEN: usize = 16;
/// Position of the general flags byte.
pub const POS_FLAGS: usize = 25;
/// Position of the frame type byte.
pub const POS_TYPE: usize = 26;
/// Position of the `nbytes` value.
const POS_NBYTES: usize = 30;
/// Position of the `cbytes` value.
const POS_CBYTES: usize = 39;
/// Position of the typesize value.
const POS_TYPESIZE: usize = 48;
/// Position of the blocksize value.
const POS_BLOCKSIZE: usize = 53;
/// Position of the chunksize value.
const POS_CHUNKSIZE: usize = 58;
/// Position of the compression threads value.
const POS_NTHREADS_C: usize = 63;
/// Position of the decompression threads value.
const POS_NTHREADS_D: usize = 66;
/// Position of the has-vlmetalayers boolean.
const POS_HAS_VLMETA: usize = 68;
/// Position of the fixext16 type byte (number of filters).
const POS_FILTERS: usize = 70;
/// Maximum number of fixed metalayers (`BLOSC2_MAX_METALAYERS`).
pub const MAX_METALAYERS: usize = 16;
/// Longest metalayer name (`BLOSC2_METALAYER_NAME_MAXLEN`).
pub const METALAYER_NAME_MAXLEN: usize = 31;
/// Most vlmetalayers the 3.3.5 trailer writer accepts.
pub const MAX_VLMETALAYERS_WRITE: usize = 16;
/// Most vlmetalayers a trailer may declare (`BLOSC2_MAX_VLMETALAYERS`).
pub const MAX_VLMETALAYERS: usize = 8 * 1024;

/// Frame format version for fixed-size chunks.
pub const VERSION_RC1: u8 = 2;
/// Frame format version for variable-size chunks or VL-block chunks.
pub const VERSION_VL: u8 = 3;
/// 64-bit offsets bit pattern of the general flags.
pub const FLAG_OFFSETS_64: u8 = 0x10;
/// Variable-size chunks flag.
pub const FLAG_VARIABLE_CHUNKS: u8 = 0x40;
/// VL-block chunks flag.
pub const FLAG_VL_BLOCKS: u8 = 0x80;
/// Frame type of a contiguous frame.
pub const TYPE_CONTIGUOUS: u8 = 0;
/// Frame type of a sparse frame's index file.
pub const TYPE_SPARSE: u8 = 1;

/// The fixed fields of a frame header, exactly as stored.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FrameHeader {
    /// Length of the whole header, metalayers included.
    pub header_len: i32,
    /// Length of the whole frame.
    pub frame_len: i64,
    /// General flags (version, offsets width, variable chunks, VL blocks).
    pub general_flags: u8,
    /// 0 contiguous, 1 sparse index.
    pub frame_type: u8,
    /// Codec (low nibble) and clevel (high nibble).
    pub codec_flags: u8,
    /// `splitmode - 1` in bits 0-1.
    pub other_flags: u8,
    /// Uncompressed bytes in the frame.
    pub nbytes: i64,
    /// Length of the chunk data region (contiguous) or sum of chunk sizes (sparse).
    pub cbytes: i64,
    /// Item size.
    pub typesize: i32,
    /// Requested block size (0 = automatic).
    pub blocksize: i32,
    /// Chunk size: -1 empty, 0 variable.
    pub chunksize: i32,
    /// Compression threads.
    pub nthreads_c: i16,
    /// Decompression threads.
    pub nthreads_d: i16,
    /// Whether the trailer holds vlmetalayers.
    pub has_vlmeta: bool,
    /// The fixext16 type byte (number of filters, 6).
    pub nfilters: u8,
    /// Filter pipeline.
    pub filters: [u8; MAX_FILTERS],
    /// Filter metadata.
    pub filters_meta: [u8; MAX_FILTERS],
    /// Codec id (also for built-in codecs).
    pub udcodec: u8,
    /// Codec metadata.
    pub compcode_meta: u8,
    /// Bit 0: use_dict.
    pub other_flags2: u8,
}

impl FrameHeader {
    /// The codec id (the user-defined slot when the nibble says so).
    pub fn compcode(&self) -> u8 {
        let c = self.codec_flags & 0x0F;
        if c == 6 {
            self.udcodec
        } else {
            c
        }
    }

    /// The compression level.
    pub fn clevel(&self) -> u8 {
        self.codec_flags >> 4
    }

    /// The split mode (1-4).
    pub fn splitmode(&self) -> i32 {
        i32::from(self.other_flags & 0x03) + 1
    }

    /// Whether the chunks use dictionaries.
    pub fn use_dict(&self) -> bool {
        self.other_flags2 & 1 != 0
    }

    /// The frame format version (low nibble of the general flags).
    pub fn version(&self) -> u8 {
        self.general_flags & 0x0F
    }

    /// Parse the fixed 87 bytes at the start of `b`, checking only what
    /// does not need the rest of the frame.
    pub fn parse(b: &[u8]) -> Result<FrameHeader> {
        let b = b.get(..HEADER_MINLEN).ok_or(Error::ReadBuffer)?;
        // The markers are what 3.3.5 writes; any other byte means this is
        // not a frame (or a corrupted one), so we refuse early.
        let markers: [(usize, u8); 15] = [
            (0, 0x9E),
            (1, 0xA8),
            (10, 0xD2),
            (15, 0xCF),
            (24, 0xA4),
            (29, 0xD3),
            (38, 0xD3),
            (47, 0xD2),
            (52, 0xD2),
            (57, 0xD2),
            (62, 0xD1),
            (65, 0xD1),
            (69, 0xD8),
            (2, b'b'),
            (9, 0),
        ];
        if markers.iter().any(|&(p, v)| b[p] != v) || &b[2..9] != b"b2frame" {
            return Err(Error::FrameType);
        }
        let has_vlmeta = match b[POS_HAS_VLMETA] {
            0xC2 => false,
            0xC3 => true,
            _ => return Err(Error::InvalidHeader),
        };
        let mut filters = [0u8; MAX_FILTERS];
        let mut filters_meta = [0u8; MAX_FILTERS];
        let nfilters = b[POS_FILTERS];
        if nfilters as usize > MAX_FILTERS {
            return Err(Error::InvalidHeader);
        }
        filters[..nfilters as usize].copy_from_slice(&b[71..71 + nfilters as usize]);
        filters_meta[..nfilters as usize].copy_from_slice(&b[79..79 + nfilters as usize]);
        Ok(FrameHeader {
            header_len: be_i32(b, POS_HEADER_LEN)?,
            frame_len: be_i64(b, POS_FRAME_LEN)?,
            general_flags: b[POS_FLAGS],
            frame_type: b[POS_TYPE],
            codec_flags: b[27],
            other_flags: b[28],
            nbytes: be_i64(b, POS_NBYTES)?,
            cbytes: be_i64(b, POS_CBYTES)?,
            typesize: be_i32(b, POS_TYPESIZE)?,
            blocksize: be_i32(b, POS_BLOCKSIZE)?,
            chunksize: be_i32(b, POS_CHUNKSIZE)?,
            nthreads_c: be_i16(b, POS_NTHREADS_C)?,
            nthreads_d: be_i16(b, POS_NTHREADS_D)?,
            has_vlmeta,
            nfilters,
            filters,
            filters_meta,
            udcodec: b[77],
            compcode_meta: b[78],
            other_flags2: b[85],
        })
    }

    /// Check the fields the way `get_header_info` does (and a bit more).
    pub fn validate(&self, sparse: bool) -> Result<()> {
        if self.version() > VERSION_VL {
            return Err(Error::VersionSupport);
        }
        let want = if sparse { TYPE_SPARSE } else { TYPE_CONTIGUOUS };
        if self.frame_type != want {
            return Err(Error::FrameType);
        }
        if (self.header_len as i64) < HEADER_MINLEN as i64 || i64::from(self.header_len) > self.frame_len {
            return Err(Error::InvalidHeader);
        }
        if self.typesize <= 0 || self.nbytes < 0 || self.cbytes < 0 || self.chunksize < -1 {
            return Err(Error::InvalidHeader);
        }
        Ok(())
    }

    /// Number of chunks implied by a fixed chunk size, or `None` when it
    /// must come from the offsets chunk (variable sizes).
    pub fn nchunks_from_sizes(&self) -> Result<Option<i64>> {
        if self.nbytes == 0 {
            return Ok(Some(0));
        }
        match self.chunksize {
            c if c > 0 => Ok(Some((self.nbytes + i64::from(c) - 1) / i64::from(c))),
            0 => Ok(None),
            _ => Err(Error::InvalidHeader),
        }
    }

    /// Serialize the fixed part (87 bytes).
    pub fn encode_fixed(&self) -> [u8; HEADER_MINLEN] {
        let mut h = [0u8; HEADER_MINLEN];
        h[0] = 0x9E;
        h[1] = 0xA8;
        h[2..9].copy_from_slice(b"b2frame");
        h[10] = 0xD2;
        h[11..15].copy_from_slice(&self.header_len.to_be_bytes());
        h[15] = 0xCF;
        h[16..24].copy_from_slice(&self.frame_len.to_be_bytes());
        h[24] = 0xA4;
        h[25] = self.general_flags;
        h[26] = self.frame_type;
        h[27] = self.codec_flags;
        h[28] = self.other_flags;
        h[29] = 0xD3;
        h[30..38].copy_from_slice(&self.nbytes.to_be_bytes());
        h[38] = 0xD3;
        h[39..47].copy_from_slice(&self.cbytes.to_be_bytes());
        h[47] = 0xD2;
        h[48..52].copy_from_slice(&self.typesize.to_be_bytes());
        h[52] = 0xD2;
        h[53..57].copy_from_slice(&self.blocksize.to_be_bytes());
        h[57] = 0xD2;
        h[58..62].copy_from_slice(&self.chunksize.to_be_bytes());
        h[62] = 0xD1;
        h[63..65].copy_from_slice(&self.nthreads_c.to_be_bytes());
        h[65] = 0xD1;
        h[66..68].copy_from_slice(&self.nthreads_d.to_be_bytes());
        h[68] = if self.has_vlmeta { 0xC3 } else { 0xC2 };
        h[69] = 0xD8;
        h[70] = self.nfilters;
        h[71..77].copy_from_slice(&self.filters);
        h[77] = self.udcodec;
        h[78] = self.compcode_meta;
        h[79..85].copy_from_slice(&self.filters_meta);
        h[85] = self.other_flags2;
        h
    }
}

/// A named metalayer with its raw content.
pub type Meta = (String, Vec<u8>);

/// Serialize the complete header: fixed part plus metalayers. The
/// `header_len` field is filled in here.
pub fn encode_header(fixed: &FrameHeader, metas: &[Meta]) -> Result<Vec<u8>> {
    if metas.len() > MAX_METALAYERS {
        return Err(Error::InvalidParam("too many metalayers"));
    }
    let mut h = fixed.encode_fixed().to_vec();
    let (idx, contents) = encode_meta_section(metas, HEADER_MINLEN, 0)?;
    h.extend_from_slice(&idx);
    h.extend_from_slice(&contents);
    let len = i32::try_from(h.len()).map_err(|_| Error::InvalidParam("header too large"))?;
    h[POS_HEADER_LEN..POS_HEADER_LEN + 4].copy_from_slice(&len.to_be_bytes());
    Ok(h)
}

/// The `[0x93, idx_size, map, array]` section shared by the header
/// metalayers and the trailer vlmetalayers. `base` is where the section
/// starts in its enclosing buffer (offsets are relative to that buffer's
/// start) and `size_skip` how many leading bytes the stored index size
/// leaves out.
fn encode_meta_section(metas: &[Meta], base: usize, size_skip: usize) -> Result<(Vec<u8>, Vec<u8>)> {
    let n = u16::try_from(metas.len()).map_err(|_| Error::InvalidParam("too many metalayers"))?;
    let mut idx = vec![0x93, 0xCD, 0, 0, 0xDE];
    idx.extend_from_slice(&n.to_be_bytes());
    let mut slots = Vec::with_capacity(metas.len());
    for (name, _) in metas {
        if name.len() > METALAYER_NAME_MAXLEN {
            return Err(Error::InvalidParam("metalayer name longer than 31 bytes"));
        }
        idx.push(0xA0 + name.len() as u8);
        idx.extend_from_slice(name.as_bytes());
        idx.push(0xD2);
        slots.push(idx.len());
        idx.extend_from_slice(&[0; 4]);
    }
    // 3.3.5 stores the size of the map counted from the 0x93 marker in
    // the header, but from the byte after it in the trailer.
    let map_size =
        u16::try_from(idx.len() - size_skip).map_err(|_| Error::InvalidParam("metalayer index too large"))?;
    idx[2..4].copy_from_slice(&map_size.to_be_bytes());
    idx.push(0xDC);
    idx.extend_from_slice(&n.to_be_bytes());
    let mut contents = Vec::new();
    for (k, (_, content)) in metas.iter().enumerate() {
        let pos = i32::try_from(base + idx.len() + contents.len())
            .map_err(|_| Error::InvalidParam("metalayers too large"))?;
        idx[slots[k]..slots[k] + 4].copy_from_slice(&pos.to_be_bytes());
        let len = i32::try_from(content.len()).map_err(|_| Error::InvalidParam("metalayer too large"))?;
        contents.push(0xC6);
        contents.extend_from_slice(&len.to_be_bytes());
        contents.extend_from_slice(content);
    }
    Ok((idx, contents))
}

/// Decode the metalayers of a complete header (`header.len() == header_len`).
pub fn decode_metalayers(header: &[u8]) -> Result<Vec<Meta>> {
    decode_meta_section(header, HEADER_MINLEN, MAX_METALAYERS)
}

/// Decode a `[0x93, idx_size, map, array]` section that starts at `start`
/// in `buf`; content offsets are relative to the start of `buf`.
fn decode_meta_section(buf: &[u8], start: usize, max: usize) -> Result<Vec<Meta>> {
    let mut r = Reader { buf, pos: start };
    if r.u8()? != 0x93 || r.u8()? != 0xCD {
        return Err(Error::Data("bad metalayer section"));
    }
    let _idx_size = r.bytes(2)?;
    if r.u8()? != 0xDE {
        return Err(Error::Data("bad metalayer map"));
    }
    let n = u16::from_be_bytes(r.array2()?) as usize;
    if n > max {
        return Err(Error::Data("too many metalayers"));
    }
    let mut out = Vec::with_capacity(n);
    for _ in 0..n {
        let m = r.u8()?;
        if m & 0xE0 != 0xA0 {
            return Err(Error::Data("metalayer name is not a fixstr"));
        }
        let name = r.bytes((m & 0x1F) as usize)?;
        let name = String::from_utf8(name.to_vec()).map_err(|_| Error::Data("metalayer name is not UTF-8"))?;
        if r.u8()? != 0xD2 {
            return Err(Error::Data("metalayer offset is not an int32"));
        }
        let off = i32::from_be_bytes(r.array4()?);
        let off = usize::try_from(off).map_err(|_| Error::Data("negative metalayer offset"))?;
        let mut c = Reader { buf, pos: off };
        if c.u8()? != 0xC6 {
            return Err(Error::Data("metalayer content is not a bin32"));
        }
        let len = i32::from_be_bytes(c.array4()?);
        let len = usize::try_from(len).map_err(|_| Error::Data("negative metalayer length"))?;
        let content = c.bytes(len)?.to_vec();
        out.push((name, content));
    }
    Ok(out)
}

/// Serialize a trailer holding `vlmetas` (each content already a chunk).
pub fn encode_trailer(vlmetas: &[Meta]) -> Result<Vec<u8>> {
    if vlmetas.len() > MAX_VLMETALAYERS_WRITE {
        return Err(Error::InvalidParam("3.3.5 frames hold at most 16 vlmetalayers"));
    }
    let mut t = vec![0x94, 0x01];
    let (idx, contents) = encode_meta_section(vlmetas, 2, 1)?;
    // The trailer's index size counts from the trailer start, as 3.3.5's
    // `to_big(trailer + 4, ...)` with `tsize = 2` does.
    t.extend_from_slice(&idx);
    t.extend_from_slice(&contents);
    let total = t.len() + 23;
    let total32 = u32::try_from(total).map_err(|_| Error::InvalidParam("trailer too large"))?;
    t.push(0xCE);
    t.extend_from_slice(&total32.to_be_bytes());
    t.push(0xD8);
    t.push(0);
    t.extend_from_slice(&[0; 16]);
    Ok(t)
}

/// Read `trailer_len` from the last `TRAILER_MINLEN` bytes of a frame.
pub fn trailer_len_from_tail(tail: &[u8]) -> Result<u32> {
    if tail.len() < TRAILER_LEN_OFFSET + 1 {
        return Err(Error::ReadBuffer);
    }
    let p = tail.len() - TRAILER_LEN_OFFSET;
    if tail[p - 1] != 0xCE {
        return Err(Error::InvalidHeader);
    }
    Ok(u32::from_be_bytes([tail[p], tail[p + 1], tail[p + 2], tail[p + 3]]))
}

/// Decode the vlmetalayers of a complete trailer.
pub fn decode_trailer(trailer: &[u8]) -> Result<Vec<Meta>> {
    if trailer.len() < TRAILER_MINLEN || trailer[0] & 0xF0 != 0x90 {
        return Err(Error::Data("bad trailer"));
    }
    decode_meta_section(trailer, 2, MAX_VLMETALAYERS)
}

/// Bounds-checked forward reader.
struct Reader<'a> {
    buf: &'a [u8],
    pos: usize,
}

impl<'a> Reader<'a> {
    fn bytes(&mut self, n: usize) -> Result<&'a [u8]> {
        let end = self.pos.checked_add(n).ok_or(Error::ReadBuffer)?;
        let s = self.buf.get(self.pos..end).ok_or(Error::ReadBuffer)?;
        self.pos = end;
        Ok(s)
    }
    fn u8(&mut self) -> Result<u8> {
        Ok(self.bytes(1)?[0])
    }
    fn array2(&mut self) -> Result<[u8; 2]> {
        let b = self.bytes(2)?;
        Ok([b[0], b[1]])
    }
    fn array4(&mut self) -> Result<[u8; 4]> {
        let b = self.bytes(4)?;
        Ok([b[0], b[1], b[2], b[3]])
    }
}

fn be_i16(b: &[u8], p: usize) -> Result<i16> {
    let s = b.get(p..p + 2).ok_or(Error::ReadBuffer)?;
    Ok(i16::from_be_bytes([s[0], s[1]]))
}

fn be_i32(b: &[u8], p: usize) -> Result<i32> {
    let s = b.get(p..p + 4).ok_or(Error::ReadBuffer)?;
    Ok(i32::from_be_bytes([s[0], s[1], s[2], s[3]]))
}

fn be_i64(b: &[u8], p: usize) -> Result<i64> {
    let s = b.get(p..p + 8).ok_or(Error::ReadBuffer)?;
    let mut a = [0u8; 8];
    a.copy_from_slice(s);
    Ok(i64::from_be_bytes(a))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sample() -> FrameHeader {
        FrameHeader {
            header_len: 0,
            frame_len: 1234,
            general_flags: 0x12,
            frame_type: 0,
            codec_flags: 0x55,
            other_flags: 3,
            nbytes: 1 << 40,
            cbytes: 99,
            typesize: 8,
            blocksize: 0,
            chunksize: -1,
            nthreads_c: 1,
            nthreads_d: 2,
            has_vlmeta: true,
            nfilters: 6,
            filters: [0, 0, 0, 0, 3, 1],
            filters_meta: [0, 0, 0, 0, 0, 7],
            udcodec: 5,
            compcode_meta: 0,
            other_flags2: 1,
        }
    }

    #[test]
    fn header_round_trip_with_metalayers() {
        let metas = vec![("b2nd".to_string(), vec![1, 2, 3]), ("x".to_string(), Vec::new())];
        let bytes = encode_header(&sample(), &metas).unwrap();
        let h = FrameHeader::parse(&bytes).unwrap();
        assert_eq!(h.header_len as usize, bytes.len());
        assert_eq!(
            FrameHeader {
                header_len: 0,
                ..h.clone()
            },
            sample()
        );
        assert_eq!((h.compcode(), h.clevel(), h.splitmode(), h.use_dict()), (5, 5, 4, true));
        assert_eq!(decode_metalayers(&bytes).unwrap(), metas);
        // The index size counts from the 0x93 marker at byte 87.
        assert_eq!(u16::from_be_bytes([bytes[89], bytes[90]]), 7 + 10 + 7);
        for cut in 0..bytes.len() {
            let _ = decode_metalayers(&bytes[..cut]);
        }
    }

    #[test]
    fn trailer_round_trip() {
        let vl = vec![("info".to_string(), vec![9; 40])];
        let t = encode_trailer(&vl).unwrap();
        assert_eq!(trailer_len_from_tail(&t).unwrap() as usize, t.len());
        assert_eq!(decode_trailer(&t).unwrap(), vl);
        assert_eq!(encode_trailer(&[]).unwrap().len(), TRAILER_MINLEN + 10);
        let many: Vec<Meta> = (0..17).map(|i| (format!("m{i}"), vec![])).collect();
        assert!(encode_trailer(&many).is_err());
        assert!(decode_trailer(&t[..10]).is_err());
    }

    #[test]
    fn bad_fixed_headers_are_rejected() {
        let good = sample().encode_fixed();
        for pos in [0usize, 1, 2, 10, 15, 24, 68, 69] {
            let mut b = good;
            b[pos] ^= 0x40;
            assert!(FrameHeader::parse(&b).is_err(), "byte {pos}");
        }
        assert!(FrameHeader::parse(&good[..86]).is_err());
    }
}
