//! The chunk header: parsing (bounds-checked, every field untrusted) and
//! writing. Covers Blosc1 16-byte headers (versions 1-2) and Blosc2 32-byte
//! extended headers (versions 3-6).

use super::constants::{
    blosc2_flags, blosc2_flags2, codec, codec_format, filter, flags, special, version, EXTENDED_HEADER_LENGTH,
    MAX_FILTERS, MIN_HEADER_LENGTH,
};
use super::error::{Error, Result};

/// A decoded chunk header, with the filter pipeline normalised to six slots
/// whatever the header version.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ChunkHeader {
    /// Format version (byte 0).
    pub version: u8,
    /// Codec format version (byte 1).
    pub versionlz: u8,
    /// Raw flags byte (byte 2).
    pub flags: u8,
    /// Typesize as stored (byte 3).
    pub typesize: u8,
    /// Uncompressed size.
    pub nbytes: i32,
    /// Block size; for VL-block chunks, the number of blocks.
    pub blocksize: i32,
    /// Compressed size including the header.
    pub cbytes: i32,
    /// Filter pipeline (derived from flags for Blosc1 headers).
    pub filters: [u8; MAX_FILTERS],
    /// Filter metadata.
    pub filters_meta: [u8; MAX_FILTERS],
    /// Codec id (from flags for built-in codecs, byte 22 for user codecs).
    pub compcode: u8,
    /// Codec metadata (byte 23).
    pub compcode_meta: u8,
    /// `blosc2_flags2` (byte 30), 0 for Blosc1 headers.
    pub blosc2_flags2: u8,
    /// `blosc2_flags` (byte 31), 0 for Blosc1 headers.
    pub blosc2_flags: u8,
    /// Header length: 16 or 32.
    pub header_len: usize,
}

impl ChunkHeader {
    /// Parse the header at the start of `src`. Only the header itself is
    /// checked here; callers check `cbytes` against the buffer they hold.
    ///
    /// Inlined so that the fields stay in registers: a small chunk's whole
    /// decompression is ~100 ns, and a header returned through memory is
    /// written field by field, then read back in wider loads, which stall
    /// on store forwarding.
    #[inline(always)]
    pub fn parse(src: &[u8]) -> Result<ChunkHeader> {
        if src.len() < MIN_HEADER_LENGTH {
            return Err(Error::ReadBuffer);
        }
        let rd_i32 = |o: usize| i32::from_le_bytes([src[o], src[o + 1], src[o + 2], src[o + 3]]);
        let ver = src[0];
        let fl = src[2];
        let mut h = ChunkHeader {
            version: ver,
            versionlz: src[1],
            flags: fl,
            typesize: src[3],
            nbytes: rd_i32(4),
            blocksize: rd_i32(8),
            cbytes: rd_i32(12),
            filters: [0; MAX_FILTERS],
            filters_meta: [0; MAX_FILTERS],
            compcode: 0,
            compcode_meta: 0,
            blosc2_flags2: 0,
            blosc2_flags: 0,
            header_len: MIN_HEADER_LENGTH,
        };
        // Like 3.3.5, the version byte alone does not reject a chunk: a
        // newer version is refused only when it uses flags2 bits we do not
        // know (checked by the decoder).
        let extended = fl & flags::EXTENDED_HEADER == flags::EXTENDED_HEADER;
        let format = fl >> 5;
        if extended {
            if src.len() < EXTENDED_HEADER_LENGTH {
                return Err(Error::ReadBuffer);
            }
            h.header_len = EXTENDED_HEADER_LENGTH;
            h.filters.copy_from_slice(&src[16..22]);
            h.filters_meta.copy_from_slice(&src[24..30]);
            h.compcode_meta = src[23];
            h.blosc2_flags2 = src[30];
            h.blosc2_flags = src[31];
            if ver == version::BLOSC2_ALPHA {
                // The alpha format had only five usable slots.
                h.filters[5] = 0;
                h.filters_meta[5] = 0;
            }
            h.compcode = match format {
                codec_format::BLOSCLZ => codec::BLOSCLZ,
                // LZ4HC shares the LZ4 format; byte 22 tells them apart.
                codec_format::LZ4 if src[22] == codec::LZ4HC => codec::LZ4HC,
                codec_format::LZ4 => codec::LZ4,
                codec_format::ZLIB => codec::ZLIB,
                codec_format::ZSTD => codec::ZSTD,
                codec_format::UDCODEC => src[22],
                // Formats 2, 5 and 7 name no codec; decoding fails later
                // with CodecSupport, header queries still work.
                _ => UNKNOWN_CODEC,
            };
        } else {
            // Blosc1: the filters live in the flags byte.
            if fl & flags::DOSHUFFLE != 0 && h.typesize > 1 {
                h.filters[5] = filter::SHUFFLE;
            } else if fl & flags::DOBITSHUFFLE != 0 {
                h.filters[5] = filter::BITSHUFFLE;
            }
            if fl & flags::DODELTA != 0 {
                h.filters[4] = filter::DELTA;
            }
            h.compcode = match format {
                codec_format::BLOSCLZ => codec::BLOSCLZ,
                codec_format::LZ4 => codec::LZ4,
                #[cfg(feature = "snappy")]
                codec_format::SNAPPY => codec::SNAPPY,
                codec_format::ZLIB => codec::ZLIB,
                codec_format::ZSTD => codec::ZSTD,
                other => return Err(Error::CodecSupport(other)),
            };
        }
        if h.nbytes < 0 || h.cbytes < 0 || h.blocksize < 0 {
            return Err(Error::InvalidHeader);
        }
        if (h.cbytes as usize) < h.header_len {
            return Err(Error::InvalidHeader);
        }
        Ok(h)
    }

    /// The codec format (flags bits 5-7), which selects the decoder.
    pub fn codec_format(&self) -> u8 {
        self.flags >> 5
    }

    /// True for a Blosc2 extended (32-byte) header.
    pub fn is_extended(&self) -> bool {
        self.header_len == EXTENDED_HEADER_LENGTH
    }

    /// True when the payload is stored without compression.
    pub fn memcpyed(&self) -> bool {
        self.flags & flags::MEMCPYED != 0
    }

    /// True when blocks are stored as one stream each.
    pub fn dont_split(&self) -> bool {
        self.flags & flags::DONT_SPLIT != 0
    }

    /// The special-value kind (`constants::special`).
    pub fn special_type(&self) -> u8 {
        (self.blosc2_flags >> blosc2_flags::SPECIAL_SHIFT) & special::MASK
    }

    /// True for a variable-length-block chunk.
    pub fn vl_blocks(&self) -> bool {
        self.blosc2_flags2 & blosc2_flags2::VL_BLOCKS != 0
    }

    /// True when a dictionary follows bstarts.
    pub fn use_dict(&self) -> bool {
        self.blosc2_flags & blosc2_flags::USEDICT != 0
    }

    /// True for a lazy chunk (header + bstarts + trailer, data elsewhere).
    pub fn lazy(&self) -> bool {
        self.blosc2_flags & blosc2_flags::LAZY_CHUNK != 0
    }

    /// Typesize as used for decoding: the stored byte, where 0 means 1
    /// (typesizes > 255 are stored as 1 by 3.3.5).
    pub fn effective_typesize(&self) -> usize {
        if self.typesize == 0 {
            1
        } else {
            self.typesize as usize
        }
    }

    /// Serialize an extended header into the first 32 bytes of `dst`.
    pub fn write_extended(&self, dst: &mut [u8]) {
        dst[0] = self.version;
        dst[1] = self.versionlz;
        dst[2] = self.flags;
        dst[3] = self.typesize;
        dst[4..8].copy_from_slice(&self.nbytes.to_le_bytes());
        dst[8..12].copy_from_slice(&self.blocksize.to_le_bytes());
        dst[12..16].copy_from_slice(&self.cbytes.to_le_bytes());
        dst[16..22].copy_from_slice(&self.filters);
        dst[22] = self.compcode;
        dst[23] = self.compcode_meta;
        dst[24..30].copy_from_slice(&self.filters_meta);
        dst[30] = self.blosc2_flags2;
        dst[31] = self.blosc2_flags;
    }

    /// Serialize the header in its own layout (16 or 32 bytes).
    pub fn write(&self, dst: &mut [u8]) {
        if self.is_extended() {
            self.write_extended(dst);
        } else {
            self.write_blosc1(dst);
        }
    }

    /// Serialize a Blosc1 (16-byte) header into the first 16 bytes of `dst`.
    pub fn write_blosc1(&self, dst: &mut [u8]) {
        dst[0] = self.version;
        dst[1] = self.versionlz;
        dst[2] = self.flags;
        dst[3] = self.typesize;
        dst[4..8].copy_from_slice(&self.nbytes.to_le_bytes());
        dst[8..12].copy_from_slice(&self.blocksize.to_le_bytes());
        dst[12..16].copy_from_slice(&self.cbytes.to_le_bytes());
    }
}

/// Codec id reported for a header whose format bits name no codec.
pub const UNKNOWN_CODEC: u8 = 0xFF;

/// The codec format number (flags bits 5-7) for a codec id.
pub fn codec_format_of(compcode: u8) -> u8 {
    match compcode {
        codec::BLOSCLZ => codec_format::BLOSCLZ,
        codec::LZ4 | codec::LZ4HC => codec_format::LZ4,
        #[cfg(feature = "snappy")]
        codec::SNAPPY => codec_format::SNAPPY,
        codec::ZLIB => codec_format::ZLIB,
        codec::ZSTD => codec_format::ZSTD,
        _ => codec_format::UDCODEC,
    }
}

/// Read a little-endian i32 at `off`, or fail if it is out of bounds.
pub fn read_i32(src: &[u8], off: usize) -> Result<i32> {
    let b = src
        .get(off..off.checked_add(4).ok_or(Error::ReadBuffer)?)
        .ok_or(Error::ReadBuffer)?;
    Ok(i32::from_le_bytes([b[0], b[1], b[2], b[3]]))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn short_buffers_fail() {
        assert_eq!(ChunkHeader::parse(&[0u8; 15]), Err(Error::ReadBuffer));
        let mut h = [0u8; 20];
        h[0] = 5;
        h[2] = 0x05;
        assert_eq!(ChunkHeader::parse(&h), Err(Error::ReadBuffer));
    }

    #[test]
    fn round_trip_extended() {
        let h = ChunkHeader {
            version: 5,
            versionlz: 1,
            flags: 0x05 | (4 << 5),
            typesize: 8,
            nbytes: 1000,
            blocksize: 1000,
            cbytes: 100,
            filters: [0, 0, 0, 0, 3, 1],
            filters_meta: [0; 6],
            compcode: 5,
            compcode_meta: 0,
            blosc2_flags2: 0,
            blosc2_flags: 0,
            header_len: 32,
        };
        let mut buf = [0u8; 32];
        h.write_extended(&mut buf);
        assert_eq!(ChunkHeader::parse(&buf).unwrap(), h);
    }
}
