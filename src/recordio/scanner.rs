//! The scanner (Go's `NewScanner` / `NewShardScanner`): reads v2 files and
//! both legacy formats, with header access, seeking, the trailer in
//! constant time, shards, and an opt-in recovery mode.

use std::io::{Read, Seek, SeekFrom};

use super::chunk::{
    ChunkReader, RawBlock, CHUNK_SIZE, MAGIC_HEADER, MAGIC_LEGACY_UNPACKED, MAGIC_PACKED, MAGIC_TRAILER,
};
use super::error::{Error, ErrorKind, Result};
use super::header::Header;
use super::legacy::{self, LegacyReader};
use super::transform::Chain;
use super::varint::uvarint;
use super::ItemLocation;

/// The file formats the scanner reads.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Format {
    /// The current chunked format (Go's `V2`).
    V2,
    /// The legacy record formats, packed or unpacked (Go's `V1`).
    Legacy,
}

/// Scanner options.
#[derive(Debug, Clone, Default)]
pub struct ScannerOpts {
    /// Skip corrupted blocks (or legacy records) instead of stopping, and
    /// report each skip through [`Scanner::skipped`]. Go cannot do this.
    pub recover: bool,
    /// For legacy packed records only: the transform their bodies went
    /// through, as a spec (`"flate"` for `.grail-rpk-gz` files). v2 files
    /// name their transformers in the header.
    pub legacy_transform: Option<String>,
}

impl ScannerOpts {
    /// Options for a legacy file chosen from its name as Go's recordioutil
    /// does: `.grail-rpk-gz` means packed records with raw-deflate bodies.
    pub fn for_path(path: &str) -> ScannerOpts {
        ScannerOpts {
            legacy_transform: path.ends_with(".grail-rpk-gz").then(|| "flate".to_string()),
            ..ScannerOpts::default()
        }
    }
}

/// A stretch of the file the recovery mode skipped.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Skipped {
    /// Offset of the first skipped byte (the failed block or record).
    pub offset: u64,
    /// Number of bytes skipped (up to the next good block or the end).
    pub length: u64,
    /// Why the block at `offset` could not be read.
    pub error: Error,
}

/// The items of one block: `data[first..]` holds them back to back and
/// `ends[i]` is where item `i` ends, relative to `first`.
#[derive(Debug, Default)]
struct Items {
    data: Vec<u8>,
    first: usize,
    ends: Vec<usize>,
}

impl Items {
    fn len(&self) -> usize {
        self.ends.len()
    }

    fn item(&self, i: usize) -> &[u8] {
        let start = if i == 0 { 0 } else { self.ends[i - 1] };
        &self.data[self.first + start..self.first + self.ends[i]]
    }

    fn clear(&mut self) {
        self.data.clear();
        self.ends.clear();
        self.first = 0;
    }
}

/// Parse a serialized block: `uvarint(K) uvarint(len_0) .. item_0 ..`,
/// which must account for every byte.
fn parse_block(data: Vec<u8>) -> Result<Items> {
    let (n, mut pos) =
        uvarint(&data).map_err(|e| Error::malformed(format!("failed to read number of packed items: {e}")))?;
    if n > (data.len() - pos) as u64 {
        return Err(Error::malformed(format!(
            "block claims {n} items but holds {} bytes",
            data.len()
        )));
    }
    let mut ends = Vec::with_capacity(n as usize);
    let mut total: u64 = 0;
    for i in 0..n {
        let (size, k) = uvarint(&data[pos..]).map_err(|e| {
            Error::malformed(format!(
                "likely corrupt data, failed to read size of packed item {i}: {e}"
            ))
        })?;
        total = total
            .checked_add(size)
            .filter(|&t| t <= data.len() as u64)
            .ok_or_else(|| Error::malformed(format!("item {i} ends beyond the block of {} bytes", data.len())))?;
        ends.push(total as usize);
        pos += k;
    }
    if total + pos as u64 != data.len() as u64 {
        return Err(Error::malformed(format!(
            "corrupt block header, got block size {}, expected {}",
            data.len(),
            total + pos as u64
        )));
    }
    Ok(Items { data, first: pos, ends })
}

fn untransform(chain: &Chain, block: &RawBlock) -> Result<Items> {
    let payloads = block.payloads();
    let data = chain.apply(&payloads)?;
    parse_block(data)
}

enum Source<R> {
    V2(ChunkReader<R>),
    Legacy(LegacyReader<R>),
}

/// Reads the items of a recordio file.
pub struct Scanner<R> {
    src: Source<R>,
    opts: ScannerOpts,
    header: Header,
    chain: Chain,
    legacy_chain: Option<Chain>,
    items: Items,
    block_offset: u64,
    next: usize,
    last: Option<ItemLocation>,
    err: Option<Error>,
    skipped: Vec<Skipped>,
}

impl<R: Read + Seek> Scanner<R> {
    /// Open a v2 or legacy file. A v2 file's header is read and its
    /// transformers looked up here; errors in it are returned.
    pub fn new(r: R, opts: ScannerOpts) -> Result<Scanner<R>> {
        Scanner::with_shard(r, opts, 0, 1, 1)
    }

    /// Open shard `[start, limit)` of `nshard` of a v2 file (Go's
    /// `NewShardScanner`): the chunks after the header are split evenly,
    /// and a block belongs to the shard holding its first chunk. Legacy
    /// files support only the single shard (0, 1, 1).
    pub fn with_shard(mut r: R, opts: ScannerOpts, start: usize, limit: usize, nshard: usize) -> Result<Scanner<R>> {
        if start >= limit || limit > nshard || nshard == 0 {
            return Err(Error::invalid(format!(
                "invalid sharding [{start},{limit}) of {nshard}"
            )));
        }
        let size = r.seek(SeekFrom::End(0))?;
        r.seek(SeekFrom::Start(0))?;
        let mut magic = [0u8; 8];
        let is_v2 = if size == 0 {
            false
        } else {
            if size < 8 {
                return Err(Error::at(ErrorKind::Truncated, 0, "file shorter than a magic number"));
            }
            r.read_exact(&mut magic)?;
            r.seek(SeekFrom::Start(0))?;
            magic == MAGIC_HEADER
        };
        let legacy_chain = match &opts.legacy_transform {
            Some(spec) if !is_v2 => Some(Chain::inverse(std::slice::from_ref(spec))?),
            _ => None,
        };
        let mut header = Header::default();
        let mut chain = Chain::default();
        let src = if !is_v2 {
            if (start, limit, nshard) != (0, 1, 1) {
                return Err(Error::invalid("legacy recordio files do not support sharding"));
            }
            Source::Legacy(LegacyReader::new(r)?)
        } else {
            let mut cr = ChunkReader::new(r)?;
            let block = cr
                .next_block()?
                .ok_or_else(|| Error::at(ErrorKind::Truncated, 0, "failed to read the header block"))?;
            if block.magic != MAGIC_HEADER {
                return Err(Error::at(ErrorKind::Malformed, 0, "first block is not a header block"));
            }
            let items = untransform(&Chain::default(), &block).map_err(|e| e.with_offset(0))?;
            if items.len() != 1 {
                return Err(Error::at(
                    ErrorKind::Malformed,
                    0,
                    format!("wrong number of items in header block, {}", items.len()),
                ));
            }
            header = Header::decode(items.item(0)).map_err(|e| e.with_offset(0))?;
            chain = Chain::inverse(&header.transformers().map_err(|e| e.with_offset(0))?)?;
            cr.recycle(block);
            // Go limits even a whole-file scanner to the whole chunks it
            // sees at open, which hides a truncated last chunk; only real
            // shards are limited here, so truncation is reported.
            if (start, limit, nshard) != (0, 1, 1) {
                cr.limit_shard(start, limit, nshard)?;
            }
            Source::V2(cr)
        };
        Ok(Scanner {
            src,
            opts,
            header,
            chain,
            legacy_chain,
            items: Items::default(),
            block_offset: 0,
            next: 0,
            last: None,
            err: None,
            skipped: Vec::new(),
        })
    }

    /// The format of the file.
    pub fn format(&self) -> Format {
        match self.src {
            Source::V2(_) => Format::V2,
            Source::Legacy(_) => Format::Legacy,
        }
    }

    /// The header (empty for legacy files).
    pub fn header(&self) -> &Header {
        &self.header
    }

    /// The error that stopped the scanner, if any.
    pub fn error(&self) -> Option<&Error> {
        self.err.as_ref()
    }

    /// What the recovery mode skipped so far.
    pub fn skipped(&self) -> &[Skipped] {
        &self.skipped
    }

    /// Location of the item last returned by [`Scanner::next_item`]: the
    /// block's (or legacy record's) offset and the item's index in it.
    pub fn last_location(&self) -> Option<ItemLocation> {
        self.last
    }

    /// The next item; `Ok(None)` at the end of the file (or shard). An
    /// error stops the scanner: it is returned again by later calls.
    pub fn next_item(&mut self) -> Result<Option<&[u8]>> {
        if let Some(e) = &self.err {
            return Err(e.clone());
        }
        while self.next >= self.items.len() {
            match self.next_block() {
                Ok(true) => {}
                Ok(false) => return Ok(None),
                Err(e) => {
                    self.err = Some(e.clone());
                    return Err(e);
                }
            }
        }
        let i = self.next;
        self.next += 1;
        self.last = Some(ItemLocation {
            block: self.block_offset,
            item: i,
        });
        Ok(Some(self.items.item(i)))
    }

    /// Read every remaining item.
    pub fn read_all(&mut self) -> Result<Vec<Vec<u8>>> {
        let mut out = Vec::new();
        while let Some(item) = self.next_item()? {
            out.push(item.to_vec());
        }
        Ok(out)
    }

    /// Load the next block with items. `Ok(false)` at the end.
    fn next_block(&mut self) -> Result<bool> {
        self.items.clear();
        self.next = 0;
        loop {
            let (start, outcome) = match &mut self.src {
                Source::V2(cr) => {
                    let start = cr.tell();
                    let outcome = match cr.next_block() {
                        Ok(None) => return Ok(false),
                        Ok(Some(b)) if b.magic == MAGIC_TRAILER => {
                            cr.recycle(b);
                            return Ok(false);
                        }
                        Ok(Some(b)) if b.magic == MAGIC_PACKED => {
                            let r = untransform(&self.chain, &b).map_err(|e| e.with_offset(b.offset));
                            cr.recycle(b);
                            r
                        }
                        Ok(Some(b)) => {
                            cr.recycle(b);
                            Err(Error::at(
                                ErrorKind::Malformed,
                                start,
                                "invalid magic number: a header block in the body",
                            ))
                        }
                        Err(e) => Err(e),
                    };
                    (start, outcome)
                }
                Source::Legacy(lr) => {
                    let start = lr.tell();
                    let outcome = match lr.next_record() {
                        Ok(None) => return Ok(false),
                        Ok(Some(rec)) => legacy_items(rec, self.legacy_chain.as_ref()),
                        Err(e) => Err(e),
                    };
                    (start, outcome)
                }
            };
            match outcome {
                Ok(items) => {
                    self.items = items;
                    self.block_offset = start;
                    return Ok(true);
                }
                Err(e) if self.opts.recover => self.skip_from(start, e)?,
                Err(e) => return Err(e),
            }
        }
    }

    /// Recovery: record a skip from `start` to the next good block.
    fn skip_from(&mut self, start: u64, error: Error) -> Result<()> {
        let next = match &mut self.src {
            Source::V2(cr) => {
                let next = cr.resync(start + CHUNK_SIZE as u64, &[MAGIC_PACKED, MAGIC_TRAILER])?;
                cr.seek(next);
                next
            }
            Source::Legacy(lr) => {
                let next = lr.resync(start + 1)?;
                lr.seek(next);
                next
            }
        };
        self.skipped.push(Skipped {
            offset: start,
            length: next - start,
            error,
        });
        Ok(())
    }

    /// Position so that the next item returned is `loc` (a location given
    /// to the index callback, or from [`Scanner::last_location`]). Clears
    /// an earlier error. Seeking to the trailer block gives the end.
    pub fn seek(&mut self, loc: ItemLocation) -> Result<()> {
        self.err = None;
        self.items.clear();
        self.next = 0;
        let block = match &mut self.src {
            Source::V2(cr) => {
                cr.seek(loc.block);
                match cr.next_block() {
                    Ok(None) => return Ok(()),
                    Ok(Some(b)) if b.magic == MAGIC_TRAILER => {
                        cr.recycle(b);
                        return Ok(());
                    }
                    Ok(Some(b)) if b.magic == MAGIC_PACKED => {
                        let r = untransform(&self.chain, &b).map_err(|e| e.with_offset(b.offset));
                        cr.recycle(b);
                        r
                    }
                    Ok(Some(b)) => {
                        cr.recycle(b);
                        Err(Error::at(ErrorKind::Malformed, loc.block, "invalid magic number"))
                    }
                    Err(e) => Err(e),
                }
            }
            Source::Legacy(lr) => {
                lr.seek(loc.block);
                match lr.next_record() {
                    Ok(None) => return Ok(()),
                    Ok(Some(rec)) => legacy_items(rec, self.legacy_chain.as_ref()),
                    Err(e) => Err(e),
                }
            }
        };
        let r = block.and_then(|items| {
            if loc.item >= items.len() {
                Err(Error::at(
                    ErrorKind::InvalidArgument,
                    loc.block,
                    format!(
                        "invalid location, item {} of a block of {} items",
                        loc.item,
                        items.len()
                    ),
                ))
            } else {
                Ok(items)
            }
        });
        match r {
            Ok(items) => {
                self.items = items;
                self.block_offset = loc.block;
                self.next = loc.item;
                Ok(())
            }
            Err(e) => {
                self.err = Some(e.clone());
                Err(e)
            }
        }
    }

    /// The trailer, read from the end of the file in constant time;
    /// `Ok(None)` when the header does not say `trailer: true` or the
    /// file is legacy. Like Go, fails once the scanner has stopped on an
    /// error. Does not move the scanner.
    pub fn trailer(&mut self) -> Result<Option<Vec<u8>>> {
        if let Some(e) = &self.err {
            return Err(e.clone());
        }
        let Source::V2(cr) = &mut self.src else {
            return Ok(None);
        };
        if !self.header.has_trailer() {
            return Ok(None);
        }
        let block = cr.last_block()?;
        let items = untransform(&self.chain, &block).map_err(|e| e.with_offset(block.offset))?;
        let off = block.offset;
        cr.recycle(block);
        if items.len() != 1 {
            return Err(Error::at(
                ErrorKind::Malformed,
                off,
                format!("expect exactly one trailer item, but found {}", items.len()),
            ));
        }
        Ok(Some(items.item(0).to_vec()))
    }

    /// Give the stream back.
    pub fn into_inner(self) -> R {
        match self.src {
            Source::V2(cr) => cr.into_inner(),
            Source::Legacy(lr) => lr.into_inner(),
        }
    }
}

fn legacy_items(rec: legacy::Record, chain: Option<&Chain>) -> Result<Items> {
    let off = rec.offset;
    match rec.magic {
        MAGIC_PACKED => {
            let (data, ends) = legacy::unpack(&rec.payload, chain).map_err(|e| e.with_offset(off))?;
            Ok(Items { data, first: 0, ends })
        }
        MAGIC_LEGACY_UNPACKED => {
            let n = rec.payload.len();
            Ok(Items {
                data: rec.payload,
                first: 0,
                ends: vec![n],
            })
        }
        _ => Err(Error::at(ErrorKind::Malformed, off, "invalid magic number")),
    }
}
