//! The v2 chunk layer: a block is stored as chunks of exactly 32 KiB.
//!
//! ```text
//! off  size  field
//! 0    8     magic
//! 8    4     crc32 (LE) = CRC32-IEEE(bytes[12 .. 28+size])
//! 12   4     flag  (LE) written as 0, ignored on read
//! 16   4     size  (LE) payload bytes in this chunk, <= 32740
//! 20   4     total (LE) chunks in this block
//! 24   4     index (LE) 0..total-1
//! 28   size  payload, then de ad be ef ... padding up to 32768 bytes
//! ```

use std::io::{Read, Seek, SeekFrom, Write};

use super::crc;
use super::error::{Error, ErrorKind, Result};

/// Size of every chunk on disk.
pub const CHUNK_SIZE: usize = 32 << 10;
/// Size of a chunk header.
pub const CHUNK_HEADER_SIZE: usize = 28;
/// Most payload bytes one chunk carries.
pub const MAX_CHUNK_PAYLOAD: usize = CHUNK_SIZE - CHUNK_HEADER_SIZE;

/// An 8-byte magic number.
pub type Magic = [u8; 8];

/// Chunks of the v2 header block; also the v2 file signature.
pub const MAGIC_HEADER: Magic = [0xd9, 0xe1, 0xd9, 0x5c, 0xc2, 0x16, 0x04, 0xf7];
/// Chunks of v2 body blocks, and records of legacy packed files.
pub const MAGIC_PACKED: Magic = [0x2e, 0x76, 0x47, 0xeb, 0x34, 0x07, 0x3c, 0x2e];
/// Chunks of the v2 trailer block.
pub const MAGIC_TRAILER: Magic = [0xfe, 0xba, 0x1a, 0xd7, 0xcb, 0xdf, 0x75, 0x3a];
/// Records of legacy unpacked files.
pub const MAGIC_LEGACY_UNPACKED: Magic = [0xfc, 0xae, 0x95, 0x31, 0xf0, 0xd9, 0xbd, 0x20];

/// A readable name for a magic number.
pub fn magic_name(m: &Magic) -> String {
    match *m {
        MAGIC_HEADER => "header".into(),
        MAGIC_PACKED => "packed".into(),
        MAGIC_TRAILER => "trailer".into(),
        MAGIC_LEGACY_UNPACKED => "legacy-unpacked".into(),
        _ => m.iter().map(|b| format!("{b:02x}")).collect(),
    }
}

const PADDING: [u8; 4] = [0xde, 0xad, 0xbe, 0xef];

/// Number of chunks a block of `len` bytes takes (Go: `(len-1)/32740+1`,
/// so an empty block still takes one chunk).
pub fn chunks_for(len: usize) -> usize {
    if len == 0 {
        1
    } else {
        (len - 1) / MAX_CHUNK_PAYLOAD + 1
    }
}

/// Write `payload` as one block of chunks with `magic`, byte for byte as
/// Go's `ChunkWriter` does. Returns the bytes written (a multiple of
/// 32 KiB).
pub fn write_block<W: Write + ?Sized>(w: &mut W, magic: &Magic, payload: &[u8]) -> std::io::Result<u64> {
    let total = chunks_for(payload.len());
    let total32 = u32::try_from(total).map_err(|_| std::io::Error::other("recordio: block too large"))?;
    let mut buf = vec![0u8; CHUNK_SIZE];
    let mut pieces = payload.chunks(MAX_CHUNK_PAYLOAD);
    for index in 0..total {
        let piece = pieces.next().unwrap_or(&[]);
        buf[..8].copy_from_slice(magic);
        buf[12..16].copy_from_slice(&0u32.to_le_bytes());
        buf[16..20].copy_from_slice(&(piece.len() as u32).to_le_bytes());
        buf[20..24].copy_from_slice(&total32.to_le_bytes());
        buf[24..28].copy_from_slice(&(index as u32).to_le_bytes());
        let end = CHUNK_HEADER_SIZE + piece.len();
        buf[CHUNK_HEADER_SIZE..end].copy_from_slice(piece);
        let sum = crc::checksum(&buf[12..end]);
        buf[8..12].copy_from_slice(&sum.to_le_bytes());
        // The padding pattern always starts at `de`.
        for (i, b) in buf[end..].iter_mut().enumerate() {
            *b = PADDING[i % 4];
        }
        w.write_all(&buf)?;
    }
    Ok((total * CHUNK_SIZE) as u64)
}

/// The fields of a chunk header.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ChunkHeader {
    /// Magic number.
    pub magic: Magic,
    /// Stored CRC.
    pub crc: u32,
    /// Flag word (unused).
    pub flag: u32,
    /// Payload size.
    pub size: u32,
    /// Chunks in the block.
    pub total: u32,
    /// Index of this chunk in the block.
    pub index: u32,
}

impl ChunkHeader {
    /// Decode the first 28 bytes of `b`.
    pub fn parse(b: &[u8]) -> ChunkHeader {
        let u = |i: usize| u32::from_le_bytes([b[i], b[i + 1], b[i + 2], b[i + 3]]);
        let mut magic = [0u8; 8];
        magic.copy_from_slice(&b[..8]);
        ChunkHeader {
            magic,
            crc: u(8),
            flag: u(12),
            size: u(16),
            total: u(20),
            index: u(24),
        }
    }
}

/// Check one whole 32 KiB chunk: its size field and its CRC. Returns the
/// header; `offset` locates errors.
pub fn check_chunk(buf: &[u8], offset: u64) -> Result<ChunkHeader> {
    let h = ChunkHeader::parse(buf);
    if h.size as usize > MAX_CHUNK_PAYLOAD {
        return Err(Error::at(
            ErrorKind::Corrupt,
            offset,
            format!("invalid chunk size {}", h.size),
        ));
    }
    let end = CHUNK_HEADER_SIZE + h.size as usize;
    let actual = crc::checksum(&buf[12..end]);
    if actual != h.crc {
        return Err(Error::at(
            ErrorKind::Corrupt,
            offset,
            format!("chunk checksum mismatch, expect {actual}, got {}", h.crc),
        ));
    }
    Ok(h)
}

/// One block read back from chunks (payloads not yet untransformed).
#[derive(Debug, Default)]
pub struct RawBlock {
    /// Magic of its chunks.
    pub magic: Magic,
    /// File offset of the first chunk.
    pub offset: u64,
    /// The whole chunks, 32 KiB each.
    chunks: Vec<Vec<u8>>,
}

impl RawBlock {
    /// The payload of each chunk, in order.
    pub fn payloads(&self) -> Vec<&[u8]> {
        self.chunks
            .iter()
            .map(|c| {
                let size = ChunkHeader::parse(c).size as usize;
                &c[CHUNK_HEADER_SIZE..CHUNK_HEADER_SIZE + size]
            })
            .collect()
    }

    /// Number of chunks.
    pub fn nchunks(&self) -> usize {
        self.chunks.len()
    }

    /// Bytes the block takes on disk.
    pub fn disk_len(&self) -> u64 {
        (self.chunks.len() * CHUNK_SIZE) as u64
    }
}

/// Reads blocks of chunks from a seekable stream (Go's `ChunkScanner`).
pub struct ChunkReader<R> {
    r: R,
    /// Offset of the next chunk to read.
    off: u64,
    /// Blocks starting at or after this offset are not read (sharding).
    limit: u64,
    file_size: u64,
    pool: Vec<Vec<u8>>,
}

impl<R: Read + Seek> ChunkReader<R> {
    /// A reader positioned at the start of the stream.
    pub fn new(mut r: R) -> Result<ChunkReader<R>> {
        let file_size = r.seek(SeekFrom::End(0))?;
        r.seek(SeekFrom::Start(0))?;
        Ok(ChunkReader {
            r,
            off: 0,
            limit: u64::MAX,
            file_size,
            pool: Vec::new(),
        })
    }

    /// Size of the stream.
    pub fn file_size(&self) -> u64 {
        self.file_size
    }

    /// Offset of the next block to read.
    pub fn tell(&self) -> u64 {
        self.off
    }

    /// Read the next block from `off`.
    pub fn seek(&mut self, off: u64) {
        self.off = off;
    }

    /// The current shard limit.
    pub fn limit(&self) -> u64 {
        self.limit
    }

    /// Give the stream back.
    pub fn into_inner(self) -> R {
        self.r
    }

    /// Return the chunk buffers of a block for reuse.
    pub fn recycle(&mut self, b: RawBlock) {
        if self.pool.len() < 64 {
            self.pool.extend(b.chunks);
        }
    }

    /// Read the 32 KiB at `off` into a buffer. `Ok(None)` when `off` is at
    /// or past the end of the stream; a truncated chunk is an error.
    fn read_raw(&mut self, off: u64) -> Result<Option<Vec<u8>>> {
        if off >= self.file_size {
            return Ok(None);
        }
        if self.file_size - off < CHUNK_SIZE as u64 {
            return Err(Error::at(
                ErrorKind::Truncated,
                off,
                format!("truncated chunk: {} of {CHUNK_SIZE} bytes", self.file_size - off),
            ));
        }
        let mut buf = self.pool.pop().unwrap_or_else(|| vec![0u8; CHUNK_SIZE]);
        self.r
            .seek(SeekFrom::Start(off))
            .map_err(|e| Error::io(&e).with_offset(off))?;
        self.r
            .read_exact(&mut buf)
            .map_err(|e| Error::io(&e).with_offset(off))?;
        Ok(Some(buf))
    }

    /// Read and check the chunk at `off` (size and CRC).
    pub fn read_chunk_at(&mut self, off: u64) -> Result<Option<(ChunkHeader, Vec<u8>)>> {
        let Some(buf) = self.read_raw(off)? else {
            return Ok(None);
        };
        match check_chunk(&buf, off) {
            Ok(h) => Ok(Some((h, buf))),
            Err(e) => {
                self.pool.push(buf);
                Err(e)
            }
        }
    }

    /// Read only the header of the chunk at `off`, unchecked (sharding).
    pub fn peek_header(&mut self, off: u64) -> Result<Option<ChunkHeader>> {
        if off.saturating_add(CHUNK_HEADER_SIZE as u64) > self.file_size {
            return Ok(None);
        }
        let mut h = [0u8; CHUNK_HEADER_SIZE];
        self.r
            .seek(SeekFrom::Start(off))
            .map_err(|e| Error::io(&e).with_offset(off))?;
        self.r.read_exact(&mut h).map_err(|e| Error::io(&e).with_offset(off))?;
        Ok(Some(ChunkHeader::parse(&h)))
    }

    /// Read the block at the current offset (Go's `ChunkScanner.Scan`):
    /// `Ok(None)` at the end of the stream or of the shard. On error the
    /// offset is left at the start of the failed block.
    pub fn next_block(&mut self) -> Result<Option<RawBlock>> {
        if self.off >= self.limit {
            return Ok(None);
        }
        let start = self.off;
        let b = self.block_at(start)?;
        if let Some(b) = &b {
            self.off = start + b.disk_len();
        }
        Ok(b)
    }

    /// Read the block whose first chunk is at `start`, ignoring the shard
    /// limit and leaving the offset alone.
    pub fn block_at(&mut self, start: u64) -> Result<Option<RawBlock>> {
        let mut block = RawBlock {
            offset: start,
            ..RawBlock::default()
        };
        let mut total = 0u32;
        let mut off = start;
        loop {
            let Some((h, buf)) = self.read_chunk_at(off)? else {
                if block.chunks.is_empty() {
                    return Ok(None);
                }
                self.recycle(block);
                return Err(Error::at(
                    ErrorKind::Truncated,
                    off,
                    format!("file ends inside a block of {total} chunks that starts at {start}"),
                ));
            };
            let n = block.chunks.len() as u32;
            let problem = if n == 0 {
                block.magic = h.magic;
                total = h.total;
                None
            } else if h.magic != block.magic {
                Some(format!(
                    "magic number changed in the middle of a chunk sequence, got {}, expect {}",
                    magic_name(&h.magic),
                    magic_name(&block.magic)
                ))
            } else {
                None
            };
            let problem = problem.or_else(|| {
                if h.index != n {
                    Some(format!("chunk index mismatch, got {}, expect {n}", h.index))
                } else if h.total != total {
                    Some(format!("chunk total mismatch, got {}, expect {total}", h.total))
                } else {
                    None
                }
            });
            if let Some(msg) = problem {
                self.pool.push(buf);
                self.recycle(block);
                return Err(Error::at(ErrorKind::Corrupt, off, msg));
            }
            block.chunks.push(buf);
            off += CHUNK_SIZE as u64;
            if h.index + 1 == total {
                return Ok(Some(block));
            }
        }
    }

    /// Restrict reading to shard `[start, limit)` of `nshard`, counted in
    /// chunks from the current offset, exactly as Go's `LimitShard`: a
    /// block belongs to the shard holding its first chunk.
    pub fn limit_shard(&mut self, start: usize, limit: usize, nshard: usize) -> Result<()> {
        let num_chunks = self.file_size.saturating_sub(self.off) / CHUNK_SIZE as u64;
        let per_shard = num_chunks as f64 / nshard as f64;
        let start_off = self.off;
        // Go truncates the float product to an integer number of chunks.
        self.off = start_off + ((start as f64 * per_shard) as u64) * CHUNK_SIZE as u64;
        self.limit = start_off + ((limit as f64 * per_shard) as u64) * CHUNK_SIZE as u64;
        if start == 0 {
            return Ok(());
        }
        let Some(h) = self.peek_header(self.off)? else {
            return Ok(());
        };
        if h.index == 0 {
            return Ok(());
        }
        if h.total <= h.index {
            return Err(Error::at(ErrorKind::Corrupt, self.off, "invalid chunk header"));
        }
        // Mid-block: the block belongs to the previous shard.
        self.off += CHUNK_SIZE as u64 * u64::from(h.total - h.index);
        Ok(())
    }

    /// Find the first chunk at or after `from` (on the 32 KiB grid) that
    /// passes its checks, has index 0 and one of `magics`. Returns its
    /// offset, or the end of the stream.
    pub fn resync(&mut self, from: u64, magics: &[Magic]) -> Result<u64> {
        let mut off = from.div_ceil(CHUNK_SIZE as u64) * CHUNK_SIZE as u64;
        while off + CHUNK_SIZE as u64 <= self.file_size {
            match self.read_chunk_at(off) {
                Ok(Some((h, buf))) => {
                    self.pool.push(buf);
                    if h.index == 0 && h.total >= 1 && magics.contains(&h.magic) {
                        return Ok(off);
                    }
                }
                Ok(None) => break,
                Err(e) if matches!(e.kind(), ErrorKind::Corrupt) => {}
                Err(e) => return Err(e),
            }
            off += CHUNK_SIZE as u64;
        }
        Ok(self.file_size)
    }

    /// Read the trailer block from the end of the stream in constant time
    /// (Go's `ReadLastBlock`).
    pub fn last_block(&mut self) -> Result<RawBlock> {
        if self.file_size < CHUNK_SIZE as u64 {
            return Err(Error::new(ErrorKind::Malformed, "file too short for a trailer"));
        }
        let last = self.file_size - CHUNK_SIZE as u64;
        let (h, buf) = self
            .read_chunk_at(last)?
            .ok_or_else(|| Error::at(ErrorKind::Truncated, last, "missing trailer chunk"))?;
        if h.magic != MAGIC_TRAILER {
            self.pool.push(buf);
            return Err(Error::at(
                ErrorKind::Malformed,
                last,
                format!("missing magic trailer; found {}", magic_name(&h.magic)),
            ));
        }
        if h.index == 0 && h.total == 1 {
            return Ok(RawBlock {
                magic: h.magic,
                offset: last,
                chunks: vec![buf],
            });
        }
        self.pool.push(buf);
        let back = (u64::from(h.index) + 1) * CHUNK_SIZE as u64;
        if back > self.file_size {
            return Err(Error::at(
                ErrorKind::Corrupt,
                last,
                "trailer chunk index points before the file start",
            ));
        }
        let start = self.file_size - back;
        match self.block_at(start)? {
            Some(b) if b.offset + b.disk_len() == self.file_size => Ok(b),
            Some(b) => Err(Error::at(
                ErrorKind::Corrupt,
                start,
                format!("trailer block of {} chunks does not end the file", b.nchunks()),
            )),
            None => Err(Error::at(ErrorKind::Truncated, start, "failed to read the trailer")),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Cursor;

    #[test]
    fn smallest_file_matches_go() {
        let mut out = Vec::new();
        let n = write_block(&mut out, &MAGIC_HEADER, &[0x01, 0x02, 0x03, 0x00]).unwrap();
        assert_eq!(n, CHUNK_SIZE as u64);
        assert_eq!(out.len(), CHUNK_SIZE);
        assert_eq!(&out[..8], &MAGIC_HEADER);
        assert_eq!(&out[8..12], &0xd054_7badu32.to_le_bytes());
        assert_eq!(&out[12..28], &[0, 0, 0, 0, 4, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0]);
        assert_eq!(&out[28..32], &[1, 2, 3, 0]);
        assert!(out[32..].chunks(4).all(|c| c == PADDING));
    }

    #[test]
    fn chunk_counts() {
        assert_eq!(chunks_for(0), 1);
        assert_eq!(chunks_for(1), 1);
        assert_eq!(chunks_for(MAX_CHUNK_PAYLOAD), 1);
        assert_eq!(chunks_for(MAX_CHUNK_PAYLOAD + 1), 2);
        for len in [0, 5, MAX_CHUNK_PAYLOAD, MAX_CHUNK_PAYLOAD + 1, 100_000] {
            let payload: Vec<u8> = (0..len).map(|i| (i % 253) as u8).collect();
            let mut out = Vec::new();
            write_block(&mut out, &MAGIC_PACKED, &payload).unwrap();
            assert_eq!(out.len(), chunks_for(len) * CHUNK_SIZE);
            let mut r = ChunkReader::new(Cursor::new(out)).unwrap();
            let b = r.next_block().unwrap().unwrap();
            assert_eq!(b.payloads().concat(), payload);
            assert!(r.next_block().unwrap().is_none());
        }
    }

    #[test]
    fn detects_corruption() {
        let mut out = Vec::new();
        write_block(&mut out, &MAGIC_PACKED, &[7u8; 40000]).unwrap();
        write_block(&mut out, &MAGIC_TRAILER, b"T").unwrap();
        let mut bad = out.clone();
        bad[CHUNK_SIZE + 30] ^= 1;
        let mut r = ChunkReader::new(Cursor::new(bad)).unwrap();
        let e = r.next_block().unwrap_err();
        assert_eq!((e.kind(), e.offset()), (ErrorKind::Corrupt, Some(CHUNK_SIZE as u64)));
        assert_eq!(
            r.resync(1, &[MAGIC_PACKED, MAGIC_TRAILER]).unwrap(),
            2 * CHUNK_SIZE as u64
        );
        let mut r = ChunkReader::new(Cursor::new(out[..out.len() - 1].to_vec())).unwrap();
        r.next_block().unwrap();
        assert_eq!(r.next_block().unwrap_err().kind(), ErrorKind::Truncated);
        let mut r = ChunkReader::new(Cursor::new(out[..CHUNK_SIZE].to_vec())).unwrap();
        assert_eq!(r.next_block().unwrap_err().kind(), ErrorKind::Truncated);
        let mut r = ChunkReader::new(Cursor::new(out)).unwrap();
        assert_eq!(r.last_block().unwrap().payloads(), [b"T"]);
    }
}
