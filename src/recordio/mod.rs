//! grailbio RecordIO files: writer, scanner (current and legacy formats),
//! and block transformers, with Blosc2 as one of them.
//!
//! A recordio file stores a sequence of items, grouped into blocks. In the
//! current ("v2") format each block is serialized as
//! `uvarint(K) uvarint(len_0) .. uvarint(len_K-1) item_0 .. item_K-1`,
//! passed through the configured transformers (compression ...) and
//! stored as chunks of exactly 32 KiB with a CRC-checked header
//! ([`chunk`]). The first block holds the header key/values
//! ([`header`]), an optional last block holds the trailer. Files written
//! here without transformers are byte for byte what Go's
//! `github.com/grailbio/base/recordio` writes.
//!
//! ```
//! use blosc2::recordio::{Scanner, ScannerOpts, Writer, WriterOpts};
//! use std::io::Cursor;
//!
//! let opts = WriterOpts {
//!     transformers: vec!["blosc2 codec=zstd,clevel=5".into()],
//!     key_trailer: true,
//!     ..WriterOpts::default()
//! };
//! let mut w = Writer::new(Vec::new(), opts).unwrap();
//! w.add_header("source", "doc").unwrap();
//! w.append(b"first").unwrap();
//! w.append(b"second").unwrap();
//! w.set_trailer(b"index").unwrap();
//! w.finish().unwrap();
//! let file = w.into_inner();
//!
//! let mut s = Scanner::new(Cursor::new(file), ScannerOpts::default()).unwrap();
//! assert_eq!(s.next_item().unwrap(), Some(&b"first"[..]));
//! assert_eq!(s.next_item().unwrap(), Some(&b"second"[..]));
//! assert_eq!(s.next_item().unwrap(), None);
//! assert_eq!(s.trailer().unwrap().as_deref(), Some(&b"index"[..]));
//! ```

#![forbid(unsafe_code)]

pub mod chunk;
pub mod crc;
mod error;
pub mod header;
pub mod legacy;
mod scanner;
pub mod transform;
pub mod varint;
mod writer;

pub use error::{Error, ErrorKind, Result};
pub use header::{Header, KeyValue, Value, KEY_TRAILER, KEY_TRANSFORMER};
pub use scanner::{Format, Scanner, ScannerOpts, Skipped};
pub use transform::{
    register_transformer, registered_transformers, unregister_transformer, Blosc2Config, Chain, TransformFn,
    TransformerFactory,
};
pub use writer::{IndexFn, Writer, WriterOpts, DEFAULT_MAX_ITEMS, MAX_MAX_ITEMS};

/// Where an item is: the byte offset of its block's first chunk (or of
/// its legacy record) and its 0-based position in the block.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct ItemLocation {
    /// Offset of the block.
    pub block: u64,
    /// Index of the item in the block.
    pub item: usize,
}

/// Open a file for scanning, choosing the legacy transform from its name
/// (see [`ScannerOpts::for_path`]).
pub fn open(path: impl AsRef<std::path::Path>) -> Result<Scanner<std::io::BufReader<std::fs::File>>> {
    let p = path.as_ref();
    let f = std::fs::File::open(p).map_err(|e| Error::io(&e))?;
    Scanner::new(std::io::BufReader::new(f), ScannerOpts::for_path(&p.to_string_lossy()))
}
