//! What the file commands share: telling frames from chunks, opening a
//! frame with a precise diagnosis when it is broken, decoding chunks, and
//! naming codecs, filters and special values.

use std::fs::File;
use std::io::Read;
use std::path::Path;

use blosc2::engine::chunk::{cbuffer_sizes, read_header, SpecialKind};
use blosc2::engine::codecs;
use blosc2::engine::constants::{filter, special, EXTENDED_HEADER_LENGTH, MIN_HEADER_LENGTH};
use blosc2::engine::context::Context;
use blosc2::engine::frame::format::{self, FrameHeader, HEADER_MINLEN, TRAILER_MINLEN};
use blosc2::engine::frame::{io, offsets, Entry, Frame, FrameKind};
use blosc2::engine::header::ChunkHeader;
use blosc2::engine::params::DParams;
use blosc2::engine::plugins::{registry, PluginEnv};

use crate::args::{failed, missing, Failure};
use crate::msgpack::{parse_b2nd, B2nd};

/// The first ten bytes of every frame.
pub const FRAME_MAGIC: &[u8; 10] = b"\x9e\xa8b2frame\0";

/// What a path holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    /// A frame: a file (contiguous) or a directory (sparse).
    Frame {
        /// A sparse frame directory.
        sparse: bool,
    },
    /// A single chunk (Blosc2 or Blosc1).
    Chunk,
}

/// Tell what `path` holds. A missing path is a usage failure (exit 2).
pub fn detect(path: &Path) -> Result<Kind, Failure> {
    let md = std::fs::metadata(path).map_err(|e| missing(path, &e))?;
    if md.is_dir() {
        if io::sframe_index_path(path).is_file() {
            return Ok(Kind::Frame { sparse: true });
        }
        return Err(failed(format!(
            "'{}' is a directory without a chunks.b2frame index, not a sparse frame",
            path.display()
        )));
    }
    let mut head = Vec::with_capacity(FRAME_MAGIC.len());
    File::open(path)
        .map_err(|e| missing(path, &e))?
        .take(FRAME_MAGIC.len() as u64)
        .read_to_end(&mut head)
        .map_err(|e| failed(format!("reading '{}': {e}", path.display())))?;
    let ext = path.extension().and_then(|e| e.to_str()).unwrap_or("");
    if head == FRAME_MAGIC || matches!(ext, "b2frame" | "b2nd" | "b2") {
        Ok(Kind::Frame { sparse: false })
    } else {
        Ok(Kind::Chunk)
    }
}

/// Threads to use by default: the available cores, at most 4.
pub fn default_nthreads() -> i16 {
    std::thread::available_parallelism().map_or(1, |n| n.get().min(4) as i16)
}

/// Name of a codec id.
pub fn codec_name(id: u8) -> String {
    match codecs::compname(id) {
        Some(n) => n.to_string(),
        None if id == blosc2::engine::header::UNKNOWN_CODEC => "unknown".to_string(),
        // Plugin codecs (ndlz, zfp_acc, ...) and registered ones by name.
        None => registry::codec_name(id).unwrap_or_else(|| format!("codec{id}")),
    }
}

/// Name of a filter id.
pub fn filter_name(id: u8) -> String {
    match id {
        filter::NOFILTER => "nofilter".into(),
        filter::SHUFFLE => "shuffle".into(),
        filter::BITSHUFFLE => "bitshuffle".into(),
        filter::DELTA => "delta".into(),
        filter::TRUNC_PREC => "trunc_prec".into(),
        // Plugin filters (bytedelta, int_trunc, ndcell, ...) by name.
        other => registry::filter_name(other).unwrap_or_else(|| format!("filter{other}")),
    }
}

/// The filters in use, in pipeline order (`delta,shuffle`, or `none`),
/// with non-zero metadata after a colon.
pub fn filters_text(filters: &[u8], meta: &[u8]) -> String {
    let used: Vec<String> = filters
        .iter()
        .zip(meta)
        .filter(|(f, _)| **f != filter::NOFILTER)
        .map(|(f, m)| {
            if *m == 0 {
                filter_name(*f)
            } else {
                format!("{}:{}", filter_name(*f), *m as i8)
            }
        })
        .collect();
    if used.is_empty() {
        "none".into()
    } else {
        used.join(",")
    }
}

/// Name of a split mode (1-4).
pub fn splitmode_name(m: i32) -> &'static str {
    match m {
        1 => "always",
        2 => "never",
        3 => "auto",
        4 => "forward_compat",
        _ => "unknown",
    }
}

/// Name of the special value a chunk header declares, if any.
pub fn header_special(h: &ChunkHeader) -> Option<&'static str> {
    if !h.is_extended() {
        return None;
    }
    match h.special_type() {
        special::NONE => None,
        special::ZERO => Some("zero"),
        special::NAN => Some("nan"),
        special::VALUE => Some("value"),
        special::UNINIT => Some("uninit"),
        _ => Some("reserved"),
    }
}

/// Name of a special kind stored in a frame's offsets.
pub fn kind_name(k: SpecialKind) -> &'static str {
    match k {
        SpecialKind::Zeros => "zero",
        SpecialKind::Nans => "nan",
        SpecialKind::Uninit => "uninit",
    }
}

/// Where chunk `n` of `frame` is: its byte offset in the file
/// (contiguous), its chunk file (sparse), or nothing for special values
/// kept in the offsets.
pub enum Location {
    /// Byte offset in the frame file.
    Offset(u64),
    /// Chunk file of a sparse frame.
    File(String),
    /// Not stored: a special value in the offsets.
    Index(SpecialKind),
    /// The offsets entry itself is invalid.
    Invalid,
}

/// Location of chunk `n`.
pub fn location(frame: &Frame, n: i64) -> Location {
    match frame.entry(n) {
        Ok(Entry::Special(k)) => Location::Index(k),
        Ok(Entry::Stored(off)) => match frame.kind() {
            FrameKind::File { offset, .. } => Location::Offset(offset + frame.header().header_len as u64 + off as u64),
            FrameKind::Sparse { .. } => match io::sframe_chunk_path(Path::new(""), off) {
                Ok(p) => Location::File(p.display().to_string()),
                Err(_) => Location::Invalid,
            },
            FrameKind::Memory => Location::Offset(frame.header().header_len as u64 + off as u64),
        },
        Err(_) => Location::Invalid,
    }
}

/// `chunk N at byte X` / `chunk N (file 00000003.chunk)` for messages.
pub fn chunk_where(frame: &Frame, n: i64) -> String {
    match location(frame, n) {
        Location::Offset(o) => format!("chunk {n} at byte {o}"),
        Location::File(f) => format!("chunk {n} (file {f})"),
        Location::Index(k) => format!("chunk {n} ({} in the offsets index)", kind_name(k)),
        Location::Invalid => format!("chunk {n} (invalid offsets entry)"),
    }
}

/// Open the frame at `path`; when that fails, say what is wrong and where.
pub fn open_frame(path: &Path, sparse: bool) -> Result<Frame, Failure> {
    match Frame::open(io::std_fs(), path, 0) {
        Ok(f) => Ok(f),
        Err(e) => {
            let what = if sparse {
                diagnose_sparse(path)
            } else {
                diagnose_cframe(path)
            };
            Err(failed(format!(
                "{}: not a valid frame: {}",
                path.display(),
                what.unwrap_or_else(|| e.to_string())
            )))
        }
    }
}

fn read_at(f: &mut File, pos: u64, len: usize) -> Option<Vec<u8>> {
    use std::io::{Seek, SeekFrom};
    f.seek(SeekFrom::Start(pos)).ok()?;
    let mut b = vec![0u8; len];
    f.read_exact(&mut b).ok()?;
    Some(b)
}

/// Find the first inconsistency of a contiguous frame file, with its byte
/// offset, the way the frame reader walks it: fixed header, frame length,
/// trailer, metalayers, offsets chunk, offsets entries.
fn diagnose_cframe(path: &Path) -> Option<String> {
    let mut f = File::open(path).ok()?;
    let size = f.metadata().ok()?.len();
    diagnose_frame_bytes(size, &mut |pos, len| read_at(&mut f, pos, len), false)
}

/// The same for the index file of a sparse frame.
fn diagnose_sparse(dir: &Path) -> Option<String> {
    let index = io::sframe_index_path(dir);
    let mut f = File::open(&index).ok()?;
    let size = f.metadata().ok()?.len();
    diagnose_frame_bytes(size, &mut |pos, len| read_at(&mut f, pos, len), true)
        .map(|m| format!("index file chunks.b2frame: {m}"))
}

fn diagnose_frame_bytes(
    size: u64,
    read: &mut dyn FnMut(u64, usize) -> Option<Vec<u8>>,
    sparse: bool,
) -> Option<String> {
    if size < HEADER_MINLEN as u64 {
        return Some(format!(
            "the file is {size} bytes, shorter than a frame header ({HEADER_MINLEN} bytes)"
        ));
    }
    let head = read(0, HEADER_MINLEN)?;
    if head[..FRAME_MAGIC.len()] != FRAME_MAGIC[..] {
        return Some("bytes 0-9 are not the frame magic (\\x9e\\xa8b2frame\\0)".into());
    }
    let h = match FrameHeader::parse(&head) {
        Ok(h) => h,
        Err(e) => {
            // The msgpack type bytes in front of each fixed field.
            const MARKERS: [(usize, u8, &str); 12] = [
                (10, 0xd2, "header_len"),
                (15, 0xcf, "frame_len"),
                (24, 0xa4, "flags"),
                (29, 0xd3, "nbytes"),
                (38, 0xd3, "cbytes"),
                (47, 0xd2, "typesize"),
                (52, 0xd2, "blocksize"),
                (57, 0xd2, "chunksize"),
                (62, 0xd1, "nthreads_comp"),
                (65, 0xd1, "nthreads_decomp"),
                (69, 0xd8, "filters"),
                (0, 0x9e, "the header array"),
            ];
            if let Some((pos, want, field)) = MARKERS.iter().find(|(p, v, _)| head[*p] != *v) {
                return Some(format!(
                    "byte {pos} should be 0x{want:02x} (the msgpack marker of {field}) but is 0x{:02x}",
                    head[*pos]
                ));
            }
            if !matches!(head[68], 0xc2 | 0xc3) {
                return Some(format!(
                    "byte 68 (has_vlmetalayers) should be a msgpack boolean but is 0x{:02x}",
                    head[68]
                ));
            }
            if head[70] as usize > blosc2::engine::constants::MAX_FILTERS {
                return Some(format!("byte 70 (number of filters) is {}", head[70]));
            }
            return Some(format!("fixed header (bytes 0-86): {e}"));
        }
    };
    let want_type = u8::from(sparse);
    if h.frame_type != want_type {
        return Some(format!(
            "frame_type (byte 26) is {} but this is a {} frame",
            h.frame_type,
            if sparse { "sparse" } else { "contiguous" }
        ));
    }
    let flen = h.frame_len;
    if flen < (HEADER_MINLEN + TRAILER_MINLEN) as i64 || flen as u64 > size {
        return Some(format!("frame_len (byte 16) is {flen} but the file has {size} bytes"));
    }
    let flen = flen as u64;
    if (h.header_len as i64) < HEADER_MINLEN as i64 || h.header_len as u64 > flen {
        return Some(format!(
            "header_len (byte 11) is {} (frame_len is {flen})",
            h.header_len
        ));
    }
    if let Err(e) = h.validate(sparse) {
        return Some(format!("fixed header fields (bytes 0-86): {e}"));
    }
    let tail = read(flen - TRAILER_MINLEN as u64, TRAILER_MINLEN)?;
    let tl_pos = flen - format::TRAILER_LEN_OFFSET as u64;
    let tl = match format::trailer_len_from_tail(&tail) {
        Ok(t) => u64::from(t),
        Err(_) => return Some(format!("no trailer_len marker (0xce) at byte {}", tl_pos - 1)),
    };
    if tl < TRAILER_MINLEN as u64 || tl > flen - HEADER_MINLEN as u64 {
        return Some(format!("trailer_len (byte {tl_pos}) is {tl} (frame_len is {flen})"));
    }
    let trailer_pos = flen - tl;
    let hl = h.header_len as u64;
    if hl > trailer_pos {
        return Some(format!(
            "the header (to byte {hl}) overlaps the trailer (from byte {trailer_pos})"
        ));
    }
    let header = read(0, hl as usize)?;
    if let Err(e) = format::decode_metalayers(&header) {
        return Some(format!("metalayers (bytes {HEADER_MINLEN}-{}): {e}", hl - 1));
    }
    let trailer = read(trailer_pos, tl as usize)?;
    if let Err(e) = format::decode_trailer(&trailer) {
        return Some(format!("trailer (bytes {trailer_pos}-{}): {e}", flen - 1));
    }
    let off_pos = if sparse || (h.nbytes == 0 && trailer_pos == hl) {
        hl
    } else {
        match hl.checked_add(h.cbytes as u64) {
            Some(p) if p <= trailer_pos => p,
            _ => {
                return Some(format!(
                    "cbytes (byte 39) is {}, which puts the offsets chunk past the trailer at byte {trailer_pos}",
                    h.cbytes
                ))
            }
        }
    };
    let region_len = trailer_pos - off_pos;
    let by_size = h.nchunks_from_sizes().ok()?;
    if region_len == 0 {
        return match by_size {
            Some(0) => None,
            _ => Some(format!(
                "no offsets chunk at byte {off_pos} although nbytes (byte 30) is {}",
                h.nbytes
            )),
        };
    }
    let region = read(off_pos, region_len as usize)?;
    let oh = match read_header(&region) {
        Ok(oh) => oh,
        Err(e) => return Some(format!("offsets chunk at byte {off_pos}: {e}")),
    };
    if oh.cbytes as u64 > region_len {
        return Some(format!(
            "offsets chunk at byte {off_pos}: its cbytes ({}) runs into the trailer",
            oh.cbytes
        ));
    }
    let stored = match offsets::count(&region) {
        Ok(n) => n,
        Err(e) => return Some(format!("offsets chunk at byte {off_pos}: {e}")),
    };
    if let Some(n) = by_size {
        if h.nbytes > 0 && n != stored {
            return Some(format!(
                "nbytes (byte 30) and chunksize (byte 58) make {n} chunks, the offsets chunk at byte {off_pos} holds {stored}"
            ));
        }
    }
    let offs = match offsets::decode(&region[..oh.cbytes as usize], stored) {
        Ok(o) => o,
        Err(e) => return Some(format!("offsets chunk at byte {off_pos}: {e}")),
    };
    for (i, &o) in offs.iter().enumerate() {
        match offsets::decode_entry(o) {
            Err(e) => return Some(format!("offsets entry {i} (chunk {i}): {e}")),
            Ok(Entry::Stored(v)) if !sparse && v > h.cbytes - EXTENDED_HEADER_LENGTH as i64 => {
                return Some(format!(
                    "offsets entry {i} points chunk {i} to data offset {v} (byte {}), outside the {} data bytes",
                    hl as i64 + v,
                    h.cbytes
                ))
            }
            _ => {}
        }
    }
    None
}

/// The `b2nd` (or legacy `caterva`) metalayer of a frame, parsed.
pub fn b2nd_of(frame: &Frame) -> Option<(String, Result<B2nd, String>)> {
    frame
        .metas()
        .iter()
        .find(|(n, _)| n == "b2nd")
        .or_else(|| frame.metas().iter().find(|(n, _)| n == "caterva"))
        .map(|(n, c)| (n.clone(), parse_b2nd(c)))
}

/// Check a parsed b2nd metalayer against the frame it describes: the
/// number of chunks and the chunk size must be those of the array.
pub fn check_b2nd_layout(b: &B2nd, h: &FrameHeader, nchunks: i64) -> Result<(), String> {
    let want = b.nchunks();
    if want != i128::from(nchunks) {
        return Err(format!(
            "shape {:?} in chunks of {:?} needs {want} chunks, the frame has {nchunks}",
            b.shape, b.chunkshape
        ));
    }
    let chunk_bytes = b.chunk_items() * i128::from(h.typesize);
    if nchunks > 0 && h.chunksize > 0 && chunk_bytes != i128::from(h.chunksize) {
        return Err(format!(
            "chunkshape {:?} padded to blockshape {:?} makes chunks of {chunk_bytes} bytes with typesize {}, the frame's chunksize is {}",
            b.chunkshape, b.blockshape, h.typesize, h.chunksize
        ));
    }
    Ok(())
}

/// Decodes chunks into one reused buffer.
pub struct Decoder {
    ctx: Context,
    /// The last decoded chunk.
    pub buf: Vec<u8>,
}

impl Decoder {
    /// A decoder using `nthreads` threads.
    pub fn new(nthreads: i16) -> Decoder {
        Decoder {
            ctx: Context::decompressor(DParams {
                nthreads,
                ..DParams::default()
            }),
            buf: Vec::new(),
        }
    }

    /// Decode the chunk at the start of `src` into `self.buf`; the error
    /// says what is wrong (callers add where).
    pub fn chunk(&mut self, src: &[u8]) -> Result<ChunkHeader, String> {
        if src.len() < MIN_HEADER_LENGTH {
            return Err(format!(
                "only {} bytes, shorter than a chunk header ({MIN_HEADER_LENGTH} bytes)",
                src.len()
            ));
        }
        let h = read_header(src).map_err(|e| format!("bad chunk header (bytes 0-31 of the chunk): {e}"))?;
        if h.cbytes as usize > src.len() {
            return Err(format!(
                "truncated: its header (cbytes, byte 12 of the chunk) says {} bytes, only {} are there",
                h.cbytes,
                src.len()
            ));
        }
        let n = h.nbytes as usize;
        self.buf.clear();
        self.buf.resize(n, 0);
        let got = self
            .ctx
            .decompress(&src[..h.cbytes as usize], &mut self.buf)
            .map_err(|e| format!("does not decode: {e}"))?;
        if got != n {
            return Err(format!("decoded to {got} bytes instead of the {n} its header says"));
        }
        Ok(h)
    }

    /// Decode chunk `n` of `frame` into `self.buf`. The plugins see the
    /// frame's metalayers and typesize, as they see a super-chunk's.
    pub fn frame_chunk(&mut self, frame: &mut Frame, n: i64) -> Result<ChunkHeader, String> {
        // (Parsing the metalayer again per chunk costs nothing next to
        // decoding the chunk.)
        self.ctx.dparams.plugins = PluginEnv::of_schunk(frame.metas(), frame.header().typesize, None);
        let c = frame.chunk(n).map_err(|e| format!("cannot be read: {e}"))?;
        self.chunk(&c)
    }
}

/// A vlmetalayer's stored chunk, decompressed.
pub fn vlmeta_content(raw: &[u8]) -> Result<Vec<u8>, String> {
    let (nbytes, cbytes, _) = cbuffer_sizes(raw).map_err(|e| e.to_string())?;
    if cbytes as usize != raw.len() || nbytes < 0 {
        return Err(format!("stored chunk of {} bytes says cbytes {cbytes}", raw.len()));
    }
    let mut out = vec![0u8; nbytes as usize];
    let n = Context::decompressor(DParams::default())
        .decompress(raw, &mut out)
        .map_err(|e| e.to_string())?;
    if n != out.len() {
        return Err(format!("decoded to {n} bytes instead of {nbytes}"));
    }
    Ok(out)
}

/// Read a single-chunk file, refusing files whose start is not a chunk
/// header.
pub fn read_chunk_file(path: &Path) -> Result<Vec<u8>, Failure> {
    let bytes = std::fs::read(path).map_err(|e| missing(path, &e))?;
    let p = path.display();
    if bytes.len() < MIN_HEADER_LENGTH {
        return Err(failed(format!(
            "{p}: {} bytes, too short for a frame or a chunk (a chunk header is {MIN_HEADER_LENGTH} bytes)",
            bytes.len()
        )));
    }
    if let Err(e) = read_header(&bytes) {
        return Err(failed(format!(
            "{p}: neither a frame nor a valid chunk (chunk header, bytes 0-31: {e})"
        )));
    }
    Ok(bytes)
}

#[cfg(test)]
mod plugin_name_tests {
    use super::*;

    #[test]
    fn names_every_plugin_id() {
        // Codecs 32-35 are built in, 36-40 the libraries 3.3.5 loads by
        // name; filters 32-36 (34 is the first BYTEDELTA).
        for id in 32..=40u8 {
            assert_ne!(codec_name(id), format!("codec{id}"), "codec {id}");
        }
        for id in 32..=36u8 {
            assert_ne!(filter_name(id), format!("filter{id}"), "filter {id}");
        }
        assert_eq!(codec_name(35), "zfp_rate");
        assert_eq!(filter_name(36), "int_trunc");
    }
}
