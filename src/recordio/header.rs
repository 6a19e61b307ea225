//! The header block's key/value list (Go's `ParsedHeader`).
//!
//! ```text
//! header item := value(uint N) { value(string key) value(any) } * N
//! value       := typebyte payload
//!   0x01 bool   : 1 byte (any non-zero reads as true)
//!   0x02 int    : zigzag varint
//!   0x03 uint   : uvarint
//!   0x04 string : value(uint len) bytes  ==  04 03 <uvarint len> <bytes>
//! ```

use super::error::{Error, Result};
use super::varint::{put_uvarint, put_varint, uvarint, varint};

/// Reserved key: `true` when the file ends with a trailer block.
pub const KEY_TRAILER: &str = "trailer";
/// Reserved key: one entry per transformer, in the order applied on write.
pub const KEY_TRANSFORMER: &str = "transformer";

const TYPE_BOOL: u8 = 1;
const TYPE_INT: u8 = 2;
const TYPE_UINT: u8 = 3;
const TYPE_STRING: u8 = 4;

/// A header value. Go's int8..int64 are all stored as `Int`, uint8..uint64
/// as `Uint`; there is no float type.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Value {
    /// Type 1.
    Bool(bool),
    /// Type 2 (zigzag varint).
    Int(i64),
    /// Type 3 (uvarint).
    Uint(u64),
    /// Type 4. Bytes that are not UTF-8 are read with U+FFFD replacements.
    String(String),
}

impl Value {
    /// The wire type code (1 bool, 2 int, 3 uint, 4 string).
    pub fn type_code(&self) -> u8 {
        match self {
            Value::Bool(_) => TYPE_BOOL,
            Value::Int(_) => TYPE_INT,
            Value::Uint(_) => TYPE_UINT,
            Value::String(_) => TYPE_STRING,
        }
    }

    /// The type's name as the test manifests spell it.
    pub fn type_name(&self) -> &'static str {
        match self {
            Value::Bool(_) => "bool",
            Value::Int(_) => "int",
            Value::Uint(_) => "uint",
            Value::String(_) => "string",
        }
    }
}

impl From<bool> for Value {
    fn from(v: bool) -> Value {
        Value::Bool(v)
    }
}
impl From<i64> for Value {
    fn from(v: i64) -> Value {
        Value::Int(v)
    }
}
impl From<i32> for Value {
    fn from(v: i32) -> Value {
        Value::Int(v.into())
    }
}
impl From<u64> for Value {
    fn from(v: u64) -> Value {
        Value::Uint(v)
    }
}
impl From<u32> for Value {
    fn from(v: u32) -> Value {
        Value::Uint(v.into())
    }
}
impl From<&str> for Value {
    fn from(v: &str) -> Value {
        Value::String(v.to_owned())
    }
}
impl From<String> for Value {
    fn from(v: String) -> Value {
        Value::String(v)
    }
}

/// One header entry.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct KeyValue {
    /// The key.
    pub key: String,
    /// The value.
    pub value: Value,
}

/// The header: entries in file order, keys may repeat.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Header {
    /// The entries.
    pub entries: Vec<KeyValue>,
}

impl Header {
    /// Append an entry (repeated keys are kept, as Go does).
    pub fn push(&mut self, key: impl Into<String>, value: impl Into<Value>) {
        self.entries.push(KeyValue {
            key: key.into(),
            value: value.into(),
        });
    }

    /// The first value stored under `key`.
    pub fn get(&self, key: &str) -> Option<&Value> {
        self.entries.iter().find(|kv| kv.key == key).map(|kv| &kv.value)
    }

    /// Every value stored under `key`, in order.
    pub fn get_all<'a>(&'a self, key: &'a str) -> impl Iterator<Item = &'a Value> + 'a {
        self.entries.iter().filter(move |kv| kv.key == key).map(|kv| &kv.value)
    }

    /// True when the first `trailer` entry is the bool `true` (Go's
    /// `HasTrailer`).
    pub fn has_trailer(&self) -> bool {
        matches!(self.get(KEY_TRAILER), Some(Value::Bool(true)))
    }

    /// The `transformer` entries, in the order they were applied on write.
    /// An entry that is not a string is an error, as in Go's scanner.
    pub fn transformers(&self) -> Result<Vec<String>> {
        self.get_all(KEY_TRANSFORMER)
            .map(|v| match v {
                Value::String(s) => Ok(s.clone()),
                other => Err(Error::malformed(format!(
                    "expected a string value for key {KEY_TRANSFORMER}, found {other:?}"
                ))),
            })
            .collect()
    }

    /// Number of entries.
    pub fn len(&self) -> usize {
        self.entries.len()
    }

    /// True when there are no entries.
    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// The header item's bytes.
    pub fn encode(&self) -> Vec<u8> {
        let mut out = Vec::new();
        out.push(TYPE_UINT);
        put_uvarint(&mut out, self.entries.len() as u64);
        for kv in &self.entries {
            put_string(&mut out, kv.key.as_bytes());
            match &kv.value {
                Value::Bool(b) => {
                    out.push(TYPE_BOOL);
                    out.push(u8::from(*b));
                }
                Value::Int(i) => {
                    out.push(TYPE_INT);
                    put_varint(&mut out, *i);
                }
                Value::Uint(u) => {
                    out.push(TYPE_UINT);
                    put_uvarint(&mut out, *u);
                }
                Value::String(s) => put_string(&mut out, s.as_bytes()),
            }
        }
        out
    }

    /// Parse a header item. Bytes after the last entry are ignored, as Go
    /// does.
    pub fn decode(data: &[u8]) -> Result<Header> {
        let mut d = Decoder { data };
        let n = match d.value()? {
            Value::Uint(n) => n,
            _ => return Err(Error::malformed("header: failed to read the number of entries")),
        };
        // Each entry takes at least 5 bytes (04 03 00 plus a 2-byte value).
        if n > data.len() as u64 {
            return Err(Error::malformed(format!(
                "header: {n} entries cannot fit in {} bytes",
                data.len()
            )));
        }
        let mut h = Header::default();
        for _ in 0..n {
            let key = match d.value()? {
                Value::String(k) => k,
                _ => return Err(Error::malformed("header: failed to read a string key")),
            };
            let value = d.value()?;
            h.entries.push(KeyValue { key, value });
        }
        Ok(h)
    }
}

fn put_string(out: &mut Vec<u8>, s: &[u8]) {
    out.push(TYPE_STRING);
    out.push(TYPE_UINT);
    put_uvarint(out, s.len() as u64);
    out.extend_from_slice(s);
}

struct Decoder<'a> {
    data: &'a [u8],
}

impl Decoder<'_> {
    fn byte(&mut self) -> Result<u8> {
        let (&b, rest) = self
            .data
            .split_first()
            .ok_or_else(|| Error::malformed("header: failed to read a byte"))?;
        self.data = rest;
        Ok(b)
    }

    fn value(&mut self) -> Result<Value> {
        match self.byte()? {
            TYPE_BOOL => Ok(Value::Bool(self.byte()? != 0)),
            TYPE_UINT => Ok(Value::Uint(self.uvarint()?)),
            TYPE_INT => {
                let (v, n) = varint(self.data).map_err(|e| Error::malformed(format!("header: bad int: {e}")))?;
                self.data = &self.data[n..];
                Ok(Value::Int(v))
            }
            TYPE_STRING => {
                // The length is a whole uint value; Go recurses here and
                // rejects anything but a uint, so only 0x03 can follow.
                if self.byte()? != TYPE_UINT {
                    return Err(Error::malformed("header: string length is not a uint value"));
                }
                let n = self.uvarint()?;
                if n > self.data.len() as u64 {
                    return Err(Error::malformed(format!("header: invalid string length {n}")));
                }
                let (s, rest) = self.data.split_at(n as usize);
                self.data = rest;
                Ok(Value::String(String::from_utf8_lossy(s).into_owned()))
            }
            t => Err(Error::malformed(format!("header: illegal value type {t}"))),
        }
    }

    fn uvarint(&mut self) -> Result<u64> {
        let (v, n) = uvarint(self.data).map_err(|e| Error::malformed(format!("header: bad uint: {e}")))?;
        self.data = &self.data[n..];
        Ok(v)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn basic() -> Header {
        let mut h = Header::default();
        h.push("trailer", true);
        h.push("hh0", "vv0");
        h.push("hh1", 12345i64);
        h.push("hh2", 234u64);
        h.push("neg", -3i64);
        h.push("flag", false);
        h
    }

    #[test]
    fn encodes_like_go() {
        let want: Vec<u8> = [
            &[0x03, 0x06][..],
            &[0x04, 0x03, 0x07],
            b"trailer",
            &[0x01, 0x01],
            &[0x04, 0x03, 0x03],
            b"hh0",
            &[0x04, 0x03, 0x03],
            b"vv0",
            &[0x04, 0x03, 0x03],
            b"hh1",
            &[0x02, 0xf2, 0xc0, 0x01],
            &[0x04, 0x03, 0x03],
            b"hh2",
            &[0x03, 0xea, 0x01],
            &[0x04, 0x03, 0x03],
            b"neg",
            &[0x02, 0x05],
            &[0x04, 0x03, 0x04],
            b"flag",
            &[0x01, 0x00],
        ]
        .concat();
        let h = basic();
        assert_eq!(h.encode(), want);
        assert_eq!(Header::decode(&want).unwrap(), h);
        assert!(h.has_trailer());
        assert_eq!(Header::default().encode(), [0x03, 0x00]);
    }

    #[test]
    fn reserved_keys() {
        let mut h = Header::default();
        h.push("transformer", "flate 1");
        h.push("trailer", false);
        h.push("transformer", "zstd 19");
        h.push("trailer", true);
        assert!(!h.has_trailer(), "the first trailer entry wins");
        assert_eq!(h.transformers().unwrap(), ["flate 1", "zstd 19"]);
        h.push("transformer", 3u64);
        assert!(h.transformers().is_err());
        let mut h = Header::default();
        h.push("trailer", 1u64);
        assert!(!h.has_trailer());
    }

    #[test]
    fn rejects_malformed() {
        let good = basic().encode();
        for cut in 0..good.len() {
            // Every strict prefix either fails or is a shorter valid header.
            if let Ok(h) = Header::decode(&good[..cut]) {
                panic!("prefix {cut} decoded to {h:?}");
            }
        }
        assert!(Header::decode(&[0x04, 0x03, 0x00]).is_err(), "count must be a uint");
        assert!(
            Header::decode(&[0x03, 0x01, 0x03, 0x00, 0x01, 0x01]).is_err(),
            "key must be a string"
        );
        assert!(Header::decode(&[0x03, 0x01, 0x04, 0x04, 0x03, 0x00]).is_err());
        assert!(Header::decode(&[0x03, 0x01, 0x04, 0x03, 0x01, b'k', 0x09]).is_err());
        assert!(Header::decode(&[0x03, 0xff, 0xff, 0xff, 0x0f]).is_err());
        // Any non-zero bool byte is true.
        let h = Header::decode(&[0x03, 0x01, 0x04, 0x03, 0x01, b'k', 0x01, 0x07]).unwrap();
        assert_eq!(h.get("k"), Some(&Value::Bool(true)));
        // Trailing bytes are ignored.
        assert!(Header::decode(&[0x03, 0x00, 0xff]).unwrap().is_empty());
    }
}
