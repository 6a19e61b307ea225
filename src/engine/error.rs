//! The engine's one error type, and its mapping to `BLOSC2_ERROR_*` codes.
//!
//! Every fallible engine function returns [`Result`]. The C layer turns an
//! [`Error`] into the negative code C-Blosc2 3.3.5 would return by calling
//! [`Error::code`], and nowhere else.

use std::ffi::CStr;
use std::fmt;

/// Everything that can go wrong in the engine.
///
/// Variants mirror C-Blosc2's `BLOSC2_ERROR_*` codes so that the mapping is
/// total and one-to-one; the payload says where the problem was found.
#[non_exhaustive]
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Error {
    /// Generic failure (`BLOSC2_ERROR_FAILURE`, -1).
    Failure(&'static str),
    /// Bad stream (`BLOSC2_ERROR_STREAM`, -2).
    Stream,
    /// Invalid data, e.g. a block that does not decode (`BLOSC2_ERROR_DATA`, -3).
    Data(&'static str),
    /// Allocation failed (`BLOSC2_ERROR_MEMORY_ALLOC`, -4).
    MemoryAlloc,
    /// Not enough space to read from the source buffer (`-5`).
    ReadBuffer,
    /// Not enough space to write into the destination buffer (`-6`).
    WriteBuffer,
    /// Codec not supported (`-7`).
    CodecSupport(u8),
    /// Bad codec parameter (`-8`).
    CodecParam,
    /// Dictionary problem (`-9`).
    CodecDict,
    /// Unsupported format version (`-10`).
    VersionSupport,
    /// Header is inconsistent (`-11`).
    InvalidHeader,
    /// A parameter is out of range (`-12`).
    InvalidParam(&'static str),
    /// File read failed (`-13`).
    FileRead,
    /// File write failed (`-14`).
    FileWrite,
    /// File could not be opened (`-15`).
    FileOpen,
    /// Item not found (`-16`).
    NotFound,
    /// Bad run-length encoding (`-17`).
    RunLength,
    /// Filter pipeline failed (`-18`).
    FilterPipeline,
    /// Chunk insert failed (`-19`).
    ChunkInsert,
    /// Chunk append failed (`-20`).
    ChunkAppend,
    /// Chunk update failed (`-21`).
    ChunkUpdate,
    /// A size goes over the 2 GiB limit of the chunk format (`-22`).
    TwoGbLimit,
    /// Super-chunk copy failed (`-23`).
    SchunkCopy,
    /// Wrong frame type (`-24`).
    FrameType,
    /// File truncate failed (`-25`).
    FileTruncate,
    /// Thread creation failed (`-26`).
    ThreadCreate,
    /// Postfilter failed (`-27`).
    Postfilter,
    /// Special frame failure (`-28`).
    FrameSpecial,
    /// Special super-chunk failure (`-29`).
    SchunkSpecial,
    /// I/O plugin failure (`-30`).
    PluginIo,
    /// File remove failed (`-31`).
    FileRemove,
    /// A required pointer was NULL (`-32`).
    NullPointer,
    /// An index is out of range (`-33`).
    InvalidIndex,
    /// Metalayer not found (`-34`).
    MetalayerNotFound,
    /// Maximum buffer size exceeded (`-35`).
    MaxBufsizeExceeded,
    /// Tuner failure (`-36`).
    Tuner,
    /// Lock failure (`-37`).
    Lock,
}

/// Result alias used throughout the engine.
pub type Result<T> = std::result::Result<T, Error>;

impl Error {
    /// The `BLOSC2_ERROR_*` code of this error (always negative).
    pub fn code(&self) -> i32 {
        match self {
            Error::Failure(_) => -1,
            Error::Stream => -2,
            Error::Data(_) => -3,
            Error::MemoryAlloc => -4,
            Error::ReadBuffer => -5,
            Error::WriteBuffer => -6,
            Error::CodecSupport(_) => -7,
            Error::CodecParam => -8,
            Error::CodecDict => -9,
            Error::VersionSupport => -10,
            Error::InvalidHeader => -11,
            Error::InvalidParam(_) => -12,
            Error::FileRead => -13,
            Error::FileWrite => -14,
            Error::FileOpen => -15,
            Error::NotFound => -16,
            Error::RunLength => -17,
            Error::FilterPipeline => -18,
            Error::ChunkInsert => -19,
            Error::ChunkAppend => -20,
            Error::ChunkUpdate => -21,
            Error::TwoGbLimit => -22,
            Error::SchunkCopy => -23,
            Error::FrameType => -24,
            Error::FileTruncate => -25,
            Error::ThreadCreate => -26,
            Error::Postfilter => -27,
            Error::FrameSpecial => -28,
            Error::SchunkSpecial => -29,
            Error::PluginIo => -30,
            Error::FileRemove => -31,
            Error::NullPointer => -32,
            Error::InvalidIndex => -33,
            Error::MetalayerNotFound => -34,
            Error::MaxBufsizeExceeded => -35,
            Error::Tuner => -36,
            Error::Lock => -37,
        }
    }

    /// The static description C-Blosc2's `blosc2_error_string` gives for `code`.
    pub fn describe_code(code: i32) -> &'static str {
        Error::describe_code_c(code).to_str().unwrap_or("Unknown error")
    }

    /// [`Error::describe_code`] as a C string constant, which
    /// `blosc2_error_string` hands out as it is (nothing built at first
    /// use, so a process forked meanwhile has nothing half-built).
    pub fn describe_code_c(code: i32) -> &'static CStr {
        match code {
            -1 => c"Generic failure",
            -2 => c"Bad stream",
            -3 => c"Invalid data",
            -4 => c"Memory alloc/realloc failure",
            -5 => c"Not enough space to read",
            -6 => c"Not enough space to write",
            -7 => c"Codec not supported",
            -8 => c"Invalid parameter supplied to codec",
            -9 => c"Codec dictionary error",
            -10 => c"Version not supported",
            -11 => c"Invalid value in header",
            -12 => c"Invalid parameter supplied to function",
            -13 => c"File read failure",
            -14 => c"File write failure",
            -15 => c"File open failure",
            -16 => c"Not found",
            -17 => c"Bad run length encoding",
            -18 => c"Filter pipeline error",
            -19 => c"Chunk insert failure",
            -20 => c"Chunk append failure",
            -21 => c"Chunk update failure",
            -22 => c"Sizes larger than 2gb not supported",
            -23 => c"Super-chunk copy failure",
            -24 => c"Wrong type for frame",
            -25 => c"File truncate failure",
            -26 => c"Thread or thread context creation failure",
            -27 => c"Postfilter failure",
            -28 => c"Special frame failure",
            -29 => c"Special super-chunk failure",
            -30 => c"IO plugin error",
            -31 => c"Remove file failure",
            -32 => c"Pointer is null",
            -33 => c"Invalid index",
            -34 => c"Metalayer has not been found",
            -35 => c"Maximum buffersize exceeded",
            -36 => c"Tuner failure",
            -37 => c"Frame lock failure",
            _ => c"Unknown error",
        }
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let base = Error::describe_code(self.code());
        match self {
            Error::Failure(w) | Error::Data(w) | Error::InvalidParam(w) => write!(f, "{base}: {w}"),
            Error::CodecSupport(id) => write!(f, "{base}: codec {id}"),
            _ => f.write_str(base),
        }
    }
}

impl std::error::Error for Error {}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn codes_are_negative_and_described() {
        for e in [Error::Failure("x"), Error::Lock, Error::NullPointer, Error::Data("d")] {
            assert!(e.code() < 0);
            assert_ne!(Error::describe_code(e.code()), "Unknown error");
        }
        assert_eq!(Error::describe_code(5), "Unknown error");
    }
}
