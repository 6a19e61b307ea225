//! The recordio error type: what went wrong, and where in the file.

use std::fmt;

/// What kind of problem an [`Error`] reports.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum ErrorKind {
    /// The underlying reader or writer failed.
    Io,
    /// The file ends in the middle of a chunk, record or block.
    Truncated,
    /// A chunk or record failed its checks (CRC, size, magic, index).
    Corrupt,
    /// A block, header or record decodes to something malformed (bad
    /// varints, lengths beyond the block, wrong item count ...).
    Malformed,
    /// A transformer failed, or could not be built from its config.
    Transform,
    /// A transformer name is not registered.
    NotFound,
    /// An argument is out of range (bad location, bad shard, bad config).
    InvalidArgument,
    /// A call out of order (e.g. `add_header` after `append`).
    State,
    /// The index callback reported an error.
    Callback,
}

/// A recordio error. `offset`, when known, is the byte offset in the file
/// of the chunk, block or record where the problem was found.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Error {
    kind: ErrorKind,
    offset: Option<u64>,
    message: String,
}

/// Result alias of the recordio module.
pub type Result<T> = std::result::Result<T, Error>;

impl Error {
    /// A new error.
    pub fn new(kind: ErrorKind, message: impl Into<String>) -> Error {
        Error {
            kind,
            offset: None,
            message: message.into(),
        }
    }

    /// A new error located at a file offset.
    pub fn at(kind: ErrorKind, offset: u64, message: impl Into<String>) -> Error {
        Error {
            kind,
            offset: Some(offset),
            message: message.into(),
        }
    }

    /// The same error, located at `offset` unless it already has a location.
    pub fn with_offset(mut self, offset: u64) -> Error {
        if self.offset.is_none() {
            self.offset = Some(offset);
        }
        self
    }

    /// The kind of problem.
    pub fn kind(&self) -> ErrorKind {
        self.kind
    }

    /// The file offset of the problem, when known.
    pub fn offset(&self) -> Option<u64> {
        self.offset
    }

    /// The message, without the location.
    pub fn message(&self) -> &str {
        &self.message
    }

    pub(crate) fn io(e: &std::io::Error) -> Error {
        if e.kind() == std::io::ErrorKind::UnexpectedEof {
            Error::new(ErrorKind::Truncated, "unexpected end of file")
        } else {
            Error::new(ErrorKind::Io, e.to_string())
        }
    }

    pub(crate) fn malformed(message: impl Into<String>) -> Error {
        Error::new(ErrorKind::Malformed, message)
    }

    pub(crate) fn transform(message: impl Into<String>) -> Error {
        Error::new(ErrorKind::Transform, message)
    }

    pub(crate) fn invalid(message: impl Into<String>) -> Error {
        Error::new(ErrorKind::InvalidArgument, message)
    }

    pub(crate) fn state(message: impl Into<String>) -> Error {
        Error::new(ErrorKind::State, message)
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("recordio: ")?;
        if let Some(off) = self.offset {
            write!(f, "at offset {off}: ")?;
        }
        f.write_str(&self.message)
    }
}

impl std::error::Error for Error {}

impl From<std::io::Error> for Error {
    fn from(e: std::io::Error) -> Error {
        Error::io(&e)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn display_names_the_offset() {
        let e = Error::at(ErrorKind::Corrupt, 98304, "chunk checksum mismatch");
        assert_eq!(e.to_string(), "recordio: at offset 98304: chunk checksum mismatch");
        assert_eq!(e.clone().with_offset(1).offset(), Some(98304));
        let e = Error::malformed("x").with_offset(7);
        assert_eq!(e.offset(), Some(7));
        assert_eq!(e.kind(), ErrorKind::Malformed);
        let io = std::io::Error::from(std::io::ErrorKind::UnexpectedEof);
        assert_eq!(Error::from(io).kind(), ErrorKind::Truncated);
    }
}
