//! The legacy formats (before 2018-03): variable-length records with no
//! chunking or padding.
//!
//! ```text
//! record := magic(8) | length u64 LE | crc32-IEEE(the 8 length bytes) u32 LE | payload[length]
//! ```
//! Magic `fcae9531f0d9bd20` (unpacked): the payload is one item. Magic
//! `2e7647eb34073c2e` (packed): the payload is
//! `crc32(varints) u32 LE | uvarint n | uvarint size_0 .. size_{n-1} | body`,
//! where `body`, the items back to back, may have gone through a transform
//! as a whole (the sizes are pre-transform sizes).

use std::io::{Read, Seek, SeekFrom, Write};

use super::chunk::{Magic, MAGIC_LEGACY_UNPACKED, MAGIC_PACKED};
use super::crc;
use super::error::{Error, ErrorKind, Result};
use super::transform::Chain;
use super::varint::{put_uvarint, uvarint};

/// Size of a record header.
pub const RECORD_HEADER_SIZE: usize = 20;
/// Largest record read (Go's `MaxReadRecordSize`, 512 MiB).
pub const MAX_RECORD_SIZE: u64 = 1 << 29;

/// One record as read.
#[derive(Debug)]
pub struct Record {
    /// Its magic.
    pub magic: Magic,
    /// Offset of its header.
    pub offset: u64,
    /// Its payload.
    pub payload: Vec<u8>,
}

impl Record {
    /// Bytes the record takes in the file.
    pub fn disk_len(&self) -> u64 {
        (RECORD_HEADER_SIZE + self.payload.len()) as u64
    }
}

/// Check a record header: `(magic, payload length)`.
fn parse_header(h: &[u8; RECORD_HEADER_SIZE], offset: u64) -> Result<(Magic, u64)> {
    let mut magic = [0u8; 8];
    magic.copy_from_slice(&h[..8]);
    let size = u64::from_le_bytes(h[8..16].try_into().unwrap_or_default());
    let stored = u32::from_le_bytes(h[16..20].try_into().unwrap_or_default());
    let actual = crc::checksum(&h[8..16]);
    if actual != stored {
        return Err(Error::at(
            ErrorKind::Corrupt,
            offset,
            format!("crc check failed - corrupt record header ({actual} != {stored})"),
        ));
    }
    Ok((magic, size))
}

/// Reads legacy records from a seekable stream.
pub struct LegacyReader<R> {
    r: R,
    off: u64,
    file_size: u64,
}

impl<R: Read + Seek> LegacyReader<R> {
    /// A reader at the start of `r`.
    pub fn new(mut r: R) -> Result<LegacyReader<R>> {
        let file_size = r.seek(SeekFrom::End(0))?;
        r.seek(SeekFrom::Start(0))?;
        Ok(LegacyReader { r, off: 0, file_size })
    }

    /// Offset of the next record.
    pub fn tell(&self) -> u64 {
        self.off
    }

    /// Read the next record from `off`.
    pub fn seek(&mut self, off: u64) {
        self.off = off;
    }

    /// Give the stream back.
    pub fn into_inner(self) -> R {
        self.r
    }

    /// Read the record at the current offset; `Ok(None)` at the end. On
    /// error the offset stays at the failed record.
    pub fn next_record(&mut self) -> Result<Option<Record>> {
        let off = self.off;
        if off >= self.file_size {
            return Ok(None);
        }
        if self.file_size - off < RECORD_HEADER_SIZE as u64 {
            return Err(Error::at(
                ErrorKind::Truncated,
                off,
                "failed to read record header: unexpected EOF",
            ));
        }
        let mut h = [0u8; RECORD_HEADER_SIZE];
        self.r
            .seek(SeekFrom::Start(off))
            .map_err(|e| Error::io(&e).with_offset(off))?;
        self.r.read_exact(&mut h).map_err(|e| Error::io(&e).with_offset(off))?;
        let (magic, size) = parse_header(&h, off)?;
        if size > MAX_RECORD_SIZE {
            return Err(Error::at(
                ErrorKind::Malformed,
                off,
                format!("unreasonably large read record encountered: {size} > {MAX_RECORD_SIZE} bytes"),
            ));
        }
        let avail = self.file_size - off - RECORD_HEADER_SIZE as u64;
        if size > avail {
            return Err(Error::at(
                ErrorKind::Truncated,
                off,
                format!("short record: {avail} < {size}"),
            ));
        }
        let mut payload = vec![0u8; size as usize];
        self.r
            .read_exact(&mut payload)
            .map_err(|e| Error::io(&e).with_offset(off))?;
        self.off = off + RECORD_HEADER_SIZE as u64 + size;
        Ok(Some(Record {
            magic,
            offset: off,
            payload,
        }))
    }

    /// Find the next offset after `from` where a record header with a
    /// known magic and a valid CRC starts (recovery); the end of the
    /// stream if there is none.
    pub fn resync(&mut self, from: u64) -> Result<u64> {
        const WINDOW: usize = 1 << 16;
        let mut pos = from;
        let mut buf = vec![0u8; WINDOW + RECORD_HEADER_SIZE];
        while pos + RECORD_HEADER_SIZE as u64 <= self.file_size {
            let n = ((self.file_size - pos) as usize).min(buf.len());
            self.r
                .seek(SeekFrom::Start(pos))
                .map_err(|e| Error::io(&e).with_offset(pos))?;
            self.r
                .read_exact(&mut buf[..n])
                .map_err(|e| Error::io(&e).with_offset(pos))?;
            for i in 0..=(n - RECORD_HEADER_SIZE) {
                let m = &buf[i..i + 8];
                if m != MAGIC_PACKED && m != MAGIC_LEGACY_UNPACKED {
                    continue;
                }
                let mut h = [0u8; RECORD_HEADER_SIZE];
                h.copy_from_slice(&buf[i..i + RECORD_HEADER_SIZE]);
                let at = pos + i as u64;
                if let Ok((_, size)) = parse_header(&h, at) {
                    if size <= MAX_RECORD_SIZE && at + RECORD_HEADER_SIZE as u64 + size <= self.file_size {
                        return Ok(at);
                    }
                }
            }
            if n < buf.len() {
                break;
            }
            pos += (n - RECORD_HEADER_SIZE + 1) as u64;
        }
        Ok(self.file_size)
    }
}

/// Split a packed record's payload into items (Go's `Unpacker.Unpack`),
/// undoing `transform` on the body when given. Returns the item data and
/// the end of each item in it.
pub fn unpack(buf: &[u8], transform: Option<&Chain>) -> Result<(Vec<u8>, Vec<usize>)> {
    if buf.len() < 4 {
        return Err(Error::malformed("failed to read crc32"));
    }
    let stored = u32::from_le_bytes([buf[0], buf[1], buf[2], buf[3]]);
    let mut pos = 4;
    let (n, k) =
        uvarint(&buf[pos..]).map_err(|e| Error::malformed(format!("failed to read number of packed items: {e}")))?;
    pos += k;
    if n > buf.len() as u64 {
        return Err(Error::malformed(format!(
            "likely corrupt data, number of packed items exceeds the number of bytes in the record ({n} > {})",
            buf.len()
        )));
    }
    let mut sizes = Vec::with_capacity(n as usize);
    let mut total: u64 = 0;
    for i in 0..n {
        let (s, k) = uvarint(&buf[pos..]).map_err(|e| {
            Error::malformed(format!(
                "likely corrupt data, failed to read size of packed item {i}: {e}"
            ))
        })?;
        total = total
            .checked_add(s)
            .ok_or_else(|| Error::malformed("packed item sizes overflow"))?;
        sizes.push(s);
        pos += k;
    }
    let actual = crc::checksum(&buf[4..pos]);
    if actual != stored {
        return Err(Error::malformed(format!(
            "likely corrupt data, crc check failed - corrupt packed record header ({actual} != {stored})?"
        )));
    }
    let body = match transform {
        Some(t) => t.apply(&[&buf[pos..]])?,
        None => buf[pos..].to_vec(),
    };
    if total > body.len() as u64 {
        return Err(Error::malformed(format!(
            "offset greater than buf size ({total} > {}), likely due to a mismatched transform or a truncated file",
            body.len()
        )));
    }
    let mut ends = Vec::with_capacity(sizes.len().max(1));
    let mut end = 0usize;
    for s in &sizes {
        end += *s as usize;
        ends.push(end);
    }
    if ends.is_empty() {
        // Go returns one empty item for a record of zero items.
        ends.push(0);
    }
    Ok((body, ends))
}

/// Write one unpacked legacy record. Returns the bytes written.
pub fn write_unpacked<W: Write + ?Sized>(w: &mut W, payload: &[u8]) -> std::io::Result<u64> {
    write_record(w, &MAGIC_LEGACY_UNPACKED, &[payload])
}

/// Write one packed legacy record holding `items`, the body optionally
/// transformed by `transform` (e.g. `flate` for `.grail-rpk-gz`).
pub fn write_packed<W: Write + ?Sized>(w: &mut W, items: &[&[u8]], transform: Option<&Chain>) -> Result<u64> {
    let mut hdr = vec![0u8; 4];
    put_uvarint(&mut hdr, items.len() as u64);
    for i in items {
        put_uvarint(&mut hdr, i.len() as u64);
    }
    let sum = crc::checksum(&hdr[4..]);
    hdr[..4].copy_from_slice(&sum.to_le_bytes());
    let n = match transform {
        Some(t) => {
            let body = t.apply(items)?;
            write_record(w, &MAGIC_PACKED, &[&hdr, &body])?
        }
        None => {
            let mut parts: Vec<&[u8]> = vec![&hdr];
            parts.extend_from_slice(items);
            write_record(w, &MAGIC_PACKED, &parts)?
        }
    };
    Ok(n)
}

fn write_record<W: Write + ?Sized>(w: &mut W, magic: &Magic, parts: &[&[u8]]) -> std::io::Result<u64> {
    let len: usize = parts.iter().map(|p| p.len()).sum();
    let mut h = [0u8; RECORD_HEADER_SIZE];
    h[..8].copy_from_slice(magic);
    h[8..16].copy_from_slice(&(len as u64).to_le_bytes());
    let sum = crc::checksum(&h[8..16]);
    h[16..20].copy_from_slice(&sum.to_le_bytes());
    w.write_all(&h)?;
    for p in parts {
        w.write_all(p)?;
    }
    Ok((RECORD_HEADER_SIZE + len) as u64)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Cursor;

    #[test]
    fn records_round_trip() {
        let mut f = Vec::new();
        write_unpacked(&mut f, b"").unwrap();
        assert_eq!(&f[16..20], &[0x69, 0xdf, 0x22, 0x65]);
        write_unpacked(&mut f, b"hello\n").unwrap();
        write_packed(&mut f, &[b"Foo", b"Baz"], None).unwrap();
        let mut r = LegacyReader::new(Cursor::new(f.clone())).unwrap();
        let a = r.next_record().unwrap().unwrap();
        assert_eq!((a.magic, a.payload.len()), (MAGIC_LEGACY_UNPACKED, 0));
        let b = r.next_record().unwrap().unwrap();
        assert_eq!(b.payload, b"hello\n");
        let c = r.next_record().unwrap().unwrap();
        assert_eq!(c.magic, MAGIC_PACKED);
        let (body, ends) = unpack(&c.payload, None).unwrap();
        assert_eq!((&body[..], &ends[..]), (&b"FooBaz"[..], &[3usize, 6][..]));
        assert!(r.next_record().unwrap().is_none());
        // Resync finds the next record after damage.
        let mut bad = f.clone();
        bad[9] ^= 0x40;
        let mut r = LegacyReader::new(Cursor::new(bad)).unwrap();
        assert_eq!(r.next_record().unwrap_err().kind(), ErrorKind::Corrupt);
        assert_eq!(r.resync(1).unwrap(), 20);
        let mut r = LegacyReader::new(Cursor::new(f[..f.len() - 1].to_vec())).unwrap();
        r.next_record().unwrap();
        r.next_record().unwrap();
        assert_eq!(r.next_record().unwrap_err().kind(), ErrorKind::Truncated);
    }

    #[test]
    fn unpack_edge_cases() {
        assert!(unpack(&[1, 2], None).is_err());
        let mut rec = Vec::new();
        write_packed(&mut rec, &[b"ab", b"c"], None).unwrap();
        let payload = &rec[RECORD_HEADER_SIZE..];
        let mut bad = payload.to_vec();
        bad[5] ^= 1;
        assert!(unpack(&bad, None).is_err(), "varint crc");
        assert!(unpack(&payload[..payload.len() - 1], None).is_err(), "short body");
        // Zero items: Go yields one empty item.
        let mut zero = vec![0u8; 4];
        zero.push(0);
        let sum = crc::checksum(&zero[4..]);
        zero[..4].copy_from_slice(&sum.to_le_bytes());
        assert_eq!(unpack(&zero, None).unwrap().1, [0]);
        // Transformed body.
        let t = Chain::forward(&["flate".to_string()]).unwrap();
        let inv = Chain::inverse(&["flate".to_string()]).unwrap();
        let mut rec = Vec::new();
        write_packed(&mut rec, &[b"xyz", b"", b"w"], Some(&t)).unwrap();
        let (body, ends) = unpack(&rec[RECORD_HEADER_SIZE..], Some(&inv)).unwrap();
        assert_eq!((&body[..], &ends[..]), (&b"xyzw"[..], &[3usize, 3, 4][..]));
    }
}
