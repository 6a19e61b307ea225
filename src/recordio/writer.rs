//! The v2 writer (Go's `writerv2`): header, body blocks, optional trailer.
//!
//! Call order: `add_header* (append | flush)* set_trailer? finish`. The
//! header block is written lazily, on the first `append`, `set_trailer` or
//! `finish`. A block is flushed by `flush`, by `set_trailer`/`finish`, or
//! automatically once it holds `max_items + 1` items (Go's off-by-one:
//! its block buffer has capacity `MaxItems+1` and flushes when full).
//! Blocks are marshalled, transformed and written synchronously, in
//! order, so the index callback sees items in order.

use std::io::Write;

use super::chunk::{write_block, MAGIC_HEADER, MAGIC_PACKED, MAGIC_TRAILER};
use super::error::{Error, ErrorKind, Result};
use super::header::{Header, Value, KEY_TRAILER, KEY_TRANSFORMER};
use super::transform::Chain;
use super::varint::put_uvarint;
use super::ItemLocation;

/// Default `max_items` (Go's `DefaultPackedItems`).
pub const DEFAULT_MAX_ITEMS: u32 = 16 * 1024;
/// Largest `max_items` (Go's `MaxPackedItems`); larger values are clamped.
pub const MAX_MAX_ITEMS: u32 = 10 * 1024 * 1024;

/// The index callback: called for each item of each body block once the
/// block is written, with the block's offset (relative to the writer's
/// start) and the item's position in it. An error stops the writer.
pub type IndexFn = Box<dyn FnMut(ItemLocation, &[u8]) -> Result<()> + Send>;

/// Writer options (Go's `WriterOpts`).
#[derive(Default)]
pub struct WriterOpts {
    /// Transformer specs, applied in order (`"flate"`, `"zstd 3"`,
    /// `"blosc2 codec=lz4"` ...). Each one is recorded in the header.
    pub transformers: Vec<String>,
    /// Add `trailer: true` to the header (required by `set_trailer`).
    pub key_trailer: bool,
    /// Items per block: a block is flushed when it holds `max_items + 1`
    /// items. 0 means [`DEFAULT_MAX_ITEMS`]; clamped to [`MAX_MAX_ITEMS`].
    pub max_items: u32,
    /// Write no header block (to continue an existing file); index
    /// offsets are then relative to the writer's start.
    pub skip_header: bool,
    /// Called for every item after its block is written.
    pub index: Option<IndexFn>,
}

impl std::fmt::Debug for WriterOpts {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("WriterOpts")
            .field("transformers", &self.transformers)
            .field("key_trailer", &self.key_trailer)
            .field("max_items", &self.max_items)
            .field("skip_header", &self.skip_header)
            .field("index", &self.index.is_some())
            .finish()
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum State {
    Initial,
    Body,
    Trailer,
    Finished,
}

/// Writes a recordio file.
pub struct Writer<W: Write> {
    w: W,
    chain: Chain,
    header: Header,
    index: Option<IndexFn>,
    max_items: usize,
    state: State,
    /// Items of the current block, back to back, and their lengths.
    pending: Vec<u8>,
    lens: Vec<usize>,
    written: u64,
    err: Option<Error>,
}

impl<W: Write> Writer<W> {
    /// A writer over `w`. Fails when a transformer is not registered or
    /// its config is invalid.
    pub fn new(w: W, opts: WriterOpts) -> Result<Writer<W>> {
        let chain = Chain::forward(&opts.transformers)?;
        let mut header = Header::default();
        let state = if opts.skip_header {
            State::Body
        } else {
            for t in &opts.transformers {
                header.push(KEY_TRANSFORMER, t.as_str());
            }
            State::Initial
        };
        if opts.key_trailer {
            header.push(KEY_TRAILER, true);
        }
        let max_items = match opts.max_items {
            0 => DEFAULT_MAX_ITEMS,
            n => n.min(MAX_MAX_ITEMS),
        } as usize;
        Ok(Writer {
            w,
            chain,
            header,
            index: opts.index,
            max_items,
            state,
            pending: Vec::new(),
            lens: Vec::new(),
            written: 0,
            err: None,
        })
    }

    /// Add a header entry. Keys may repeat (Go's `AddHeader` appends).
    /// Only before the first `append`, `set_trailer` or `finish`. The
    /// reserved key `transformer` is refused (Go would record a
    /// transformer the blocks never went through): use
    /// [`WriterOpts::transformers`]. `trailer: true` may be added here
    /// instead of [`WriterOpts::key_trailer`].
    pub fn add_header(&mut self, key: &str, value: impl Into<Value>) -> Result<()> {
        if self.state != State::Initial {
            return Err(Error::state("add_header after the header was written"));
        }
        if key == KEY_TRANSFORMER {
            return Err(Error::invalid(
                "the transformer key is reserved: list transformers in WriterOpts",
            ));
        }
        self.header.push(key, value);
        Ok(())
    }

    /// The header as it is (or will be) written.
    pub fn header(&self) -> &Header {
        &self.header
    }

    /// Bytes written so far.
    pub fn bytes_written(&self) -> u64 {
        self.written
    }

    /// The first error the writer met, if any (errors are sticky).
    pub fn error(&self) -> Option<&Error> {
        self.err.as_ref()
    }

    fn check(&self) -> Result<()> {
        match &self.err {
            Some(e) => Err(e.clone()),
            None => Ok(()),
        }
    }

    fn sticky<T>(&mut self, r: Result<T>) -> Result<T> {
        if let Err(e) = &r {
            if self.err.is_none() {
                self.err = Some(e.clone());
            }
        }
        r
    }

    fn write_header(&mut self) -> Result<()> {
        let item = self.header.encode();
        let mut block = Vec::with_capacity(item.len() + 12);
        put_uvarint(&mut block, 1);
        put_uvarint(&mut block, item.len() as u64);
        block.extend_from_slice(&item);
        let r = write_block(&mut self.w, &MAGIC_HEADER, &block).map_err(|e| Error::io(&e));
        let n = self.sticky(r)?;
        self.written += n;
        self.state = State::Body;
        Ok(())
    }

    /// Append one item to the current block.
    pub fn append(&mut self, item: &[u8]) -> Result<()> {
        self.check()?;
        match self.state {
            State::Initial => self.write_header()?,
            State::Body => {}
            _ => return Err(Error::state("append after set_trailer or finish")),
        }
        self.pending.extend_from_slice(item);
        self.lens.push(item.len());
        if self.lens.len() > self.max_items {
            self.flush_block()?;
        }
        Ok(())
    }

    /// End the current block; the next item starts a new one. Does
    /// nothing when no item is pending (empty blocks are never written).
    pub fn flush(&mut self) -> Result<()> {
        self.check()?;
        match self.state {
            State::Initial => Ok(()),
            State::Body => self.flush_block(),
            _ => Err(Error::state("flush after set_trailer or finish")),
        }
    }

    fn flush_block(&mut self) -> Result<()> {
        if self.lens.is_empty() {
            return Ok(());
        }
        let mut varints = Vec::with_capacity(self.lens.len() * 2 + 4);
        put_uvarint(&mut varints, self.lens.len() as u64);
        for &l in &self.lens {
            put_uvarint(&mut varints, l as u64);
        }
        let r = self.chain.apply(&[&varints, &self.pending]);
        let payload = self.sticky(r)?;
        let offset = self.written;
        let r = write_block(&mut self.w, &MAGIC_PACKED, &payload).map_err(|e| Error::io(&e));
        let n = self.sticky(r)?;
        self.written += n;
        if let Some(index) = self.index.as_mut() {
            let mut start = 0;
            for (i, &l) in self.lens.iter().enumerate() {
                let loc = ItemLocation { block: offset, item: i };
                if let Err(e) = index(loc, &self.pending[start..start + l]) {
                    let e = Error::new(ErrorKind::Callback, format!("index callback: {}", e.message()));
                    self.err.get_or_insert(e.clone());
                    return Err(e);
                }
                start += l;
            }
        }
        self.pending.clear();
        self.lens.clear();
        Ok(())
    }

    /// Write the trailer block (after flushing the pending items). The
    /// header must say `trailer: true`. Nothing can be appended after.
    pub fn set_trailer(&mut self, data: &[u8]) -> Result<()> {
        self.check()?;
        if !self.header.has_trailer() {
            return Err(Error::state(format!(
                "set_trailer: key '{KEY_TRAILER}' must be set to true"
            )));
        }
        match self.state {
            State::Initial => self.write_header()?,
            State::Body => self.flush_block()?,
            _ => return Err(Error::state("set_trailer called twice or after finish")),
        }
        let mut varints = Vec::with_capacity(12);
        put_uvarint(&mut varints, 1);
        put_uvarint(&mut varints, data.len() as u64);
        let r = self.chain.apply(&[&varints, data]);
        let payload = self.sticky(r)?;
        let r = write_block(&mut self.w, &MAGIC_TRAILER, &payload).map_err(|e| Error::io(&e));
        let n = self.sticky(r)?;
        self.written += n;
        self.state = State::Trailer;
        Ok(())
    }

    /// Flush what is pending, write the header if nothing was written yet,
    /// and flush the underlying writer. Returns the first error met.
    pub fn finish(&mut self) -> Result<()> {
        self.check()?;
        match self.state {
            State::Initial => self.write_header()?,
            State::Body => self.flush_block()?,
            State::Trailer => {}
            State::Finished => return Err(Error::state("finish called twice")),
        }
        self.state = State::Finished;
        let r = self.w.flush().map_err(|e| Error::io(&e));
        self.sticky(r)
    }

    /// The underlying writer (call [`Writer::finish`] first).
    pub fn into_inner(self) -> W {
        self.w
    }

    /// The underlying writer, borrowed.
    pub fn get_ref(&self) -> &W {
        &self.w
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::recordio::chunk::CHUNK_SIZE;
    use std::sync::{Arc, Mutex};

    #[test]
    fn empty_file_is_one_chunk() {
        let mut w = Writer::new(Vec::new(), WriterOpts::default()).unwrap();
        w.finish().unwrap();
        let out = w.into_inner();
        assert_eq!(out.len(), CHUNK_SIZE);
        assert_eq!(&out[8..12], &0xd054_7badu32.to_le_bytes());
        assert_eq!(&out[28..32], &[1, 2, 3, 0]);
    }

    #[test]
    fn item_limit_is_max_items_plus_one() {
        let locs = Arc::new(Mutex::new(Vec::new()));
        let l2 = locs.clone();
        let opts = WriterOpts {
            max_items: 2,
            index: Some(Box::new(move |loc, _| {
                l2.lock().unwrap().push((loc.block, loc.item));
                Ok(())
            })),
            ..WriterOpts::default()
        };
        let mut w = Writer::new(Vec::new(), opts).unwrap();
        for i in 0..7u8 {
            w.append(&[i]).unwrap();
        }
        w.finish().unwrap();
        let c = CHUNK_SIZE as u64;
        assert_eq!(
            *locs.lock().unwrap(),
            [(c, 0), (c, 1), (c, 2), (2 * c, 0), (2 * c, 1), (2 * c, 2), (3 * c, 0)]
        );
        assert_eq!(w.into_inner().len(), 4 * CHUNK_SIZE);
    }

    #[test]
    fn state_errors() {
        let mut w = Writer::new(Vec::new(), WriterOpts::default()).unwrap();
        w.flush().unwrap();
        w.append(b"x").unwrap();
        assert_eq!(w.add_header("k", 1i64).unwrap_err().kind(), ErrorKind::State);
        let mut w2 = Writer::new(Vec::new(), WriterOpts::default()).unwrap();
        assert_eq!(
            w2.add_header(KEY_TRANSFORMER, "zstd").unwrap_err().kind(),
            ErrorKind::InvalidArgument
        );
        w2.add_header(KEY_TRAILER, true).unwrap();
        w2.set_trailer(b"t").unwrap();
        assert_eq!(w.set_trailer(b"t").unwrap_err().kind(), ErrorKind::State);
        w.finish().unwrap();
        assert!(w.append(b"y").is_err());
        assert!(w.finish().is_err());
        assert!(Writer::new(
            Vec::new(),
            WriterOpts {
                transformers: vec!["nosuch".into()],
                ..WriterOpts::default()
            }
        )
        .is_err());
    }

    #[test]
    fn index_errors_are_sticky() {
        let opts = WriterOpts {
            index: Some(Box::new(|_, _| Err(Error::invalid("no")))),
            ..WriterOpts::default()
        };
        let mut w = Writer::new(Vec::new(), opts).unwrap();
        w.append(b"a").unwrap();
        assert_eq!(w.flush().unwrap_err().kind(), ErrorKind::Callback);
        assert_eq!(w.append(b"b").unwrap_err().kind(), ErrorKind::Callback);
        assert!(w.finish().is_err());
    }
}
