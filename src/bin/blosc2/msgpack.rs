//! A small, bounds-checked msgpack decoder for showing metalayer contents,
//! and the `b2nd` (formerly `caterva`) metalayer of b2nd arrays.

use crate::json::Json;

/// Deepest nesting accepted (metalayers are shallow; this bounds recursion).
const MAX_DEPTH: usize = 64;
/// Largest number of dimensions of a b2nd array (`B2ND_MAX_DIM` in 3.3.5).
pub const B2ND_MAX_DIM: usize = 16;

/// A decoded msgpack value.
#[derive(Debug, Clone, PartialEq)]
pub enum Value {
    /// nil.
    Nil,
    /// true / false.
    Bool(bool),
    /// Any integer (signed or unsigned, up to 64 bits).
    Int(i128),
    /// float 32 or float 64.
    Float(f64),
    /// A string (bytes as stored; usually UTF-8).
    Str(Vec<u8>),
    /// Binary data.
    Bin(Vec<u8>),
    /// An array.
    Array(Vec<Value>),
    /// A map, in stored order.
    Map(Vec<(Value, Value)>),
    /// An extension type and its data.
    Ext(i8, Vec<u8>),
}

struct Reader<'a> {
    buf: &'a [u8],
    pos: usize,
}

impl<'a> Reader<'a> {
    fn take(&mut self, n: usize) -> Result<&'a [u8], String> {
        let end = self
            .pos
            .checked_add(n)
            .filter(|e| *e <= self.buf.len())
            .ok_or_else(|| {
                format!(
                    "msgpack: {n} bytes wanted at byte {} but only {} left",
                    self.pos,
                    self.buf.len() - self.pos
                )
            })?;
        let s = &self.buf[self.pos..end];
        self.pos = end;
        Ok(s)
    }

    fn uint(&mut self, n: usize) -> Result<u64, String> {
        Ok(self.take(n)?.iter().fold(0u64, |a, b| (a << 8) | u64::from(*b)))
    }

    fn int(&mut self, n: usize) -> Result<i64, String> {
        let u = self.uint(n)?;
        let shift = 64 - 8 * n as u32;
        Ok(((u << shift) as i64) >> shift)
    }

    fn len(&mut self, n: usize) -> Result<usize, String> {
        usize::try_from(self.uint(n)?).map_err(|_| "msgpack: length too large".to_string())
    }

    /// A count of `per`-byte-minimum items that must fit in what is left.
    fn count(&mut self, n: usize, per: usize) -> Result<usize, String> {
        let at = self.pos;
        let c = self.len(n)?;
        if c.saturating_mul(per) > self.buf.len() - self.pos {
            return Err(format!("msgpack: {c} elements declared at byte {at} cannot fit"));
        }
        Ok(c)
    }

    fn value(&mut self, depth: usize) -> Result<Value, String> {
        if depth > MAX_DEPTH {
            return Err("msgpack: nested too deeply".into());
        }
        let at = self.pos;
        let m = self.take(1)?[0];
        Ok(match m {
            0x00..=0x7f => Value::Int(i128::from(m)),
            0x80..=0x8f => self.map((m & 0x0f) as usize, depth)?,
            0x90..=0x9f => self.array((m & 0x0f) as usize, depth)?,
            0xa0..=0xbf => Value::Str(self.take((m & 0x1f) as usize)?.to_vec()),
            0xc0 => Value::Nil,
            0xc2 => Value::Bool(false),
            0xc3 => Value::Bool(true),
            0xc4..=0xc6 => {
                let n = self.len(1 << (m - 0xc4))?;
                Value::Bin(self.take(n)?.to_vec())
            }
            0xc7..=0xc9 => {
                let n = self.len(1 << (m - 0xc7))?;
                let t = self.take(1)?[0] as i8;
                Value::Ext(t, self.take(n)?.to_vec())
            }
            0xca => Value::Float(f64::from(f32::from_bits(self.uint(4)? as u32))),
            0xcb => Value::Float(f64::from_bits(self.uint(8)?)),
            0xcc..=0xcf => Value::Int(i128::from(self.uint(1 << (m - 0xcc))?)),
            0xd0..=0xd3 => Value::Int(i128::from(self.int(1 << (m - 0xd0))?)),
            0xd4..=0xd8 => {
                let t = self.take(1)?[0] as i8;
                Value::Ext(t, self.take(1 << (m - 0xd4))?.to_vec())
            }
            0xd9..=0xdb => {
                let n = self.len(1 << (m - 0xd9))?;
                Value::Str(self.take(n)?.to_vec())
            }
            0xdc | 0xdd => {
                let n = self.count(2 << (m - 0xdc), 1)?;
                self.array(n, depth)?
            }
            0xde | 0xdf => {
                let n = self.count(2 << (m - 0xde), 2)?;
                self.map(n, depth)?
            }
            0xe0..=0xff => Value::Int(i128::from(m as i8)),
            0xc1 => return Err(format!("msgpack: byte {at} is 0xc1, which msgpack never uses")),
        })
    }

    fn array(&mut self, n: usize, depth: usize) -> Result<Value, String> {
        let mut v = Vec::with_capacity(n.min(1024));
        for _ in 0..n {
            v.push(self.value(depth + 1)?);
        }
        Ok(Value::Array(v))
    }

    fn map(&mut self, n: usize, depth: usize) -> Result<Value, String> {
        let mut v = Vec::with_capacity(n.min(1024));
        for _ in 0..n {
            let k = self.value(depth + 1)?;
            let x = self.value(depth + 1)?;
            v.push((k, x));
        }
        Ok(Value::Map(v))
    }
}

/// Decode `buf` as exactly one msgpack value.
pub fn decode(buf: &[u8]) -> Result<Value, String> {
    let mut r = Reader { buf, pos: 0 };
    let v = r.value(0)?;
    if r.pos != buf.len() {
        return Err(format!(
            "msgpack: {} bytes left after the value (at byte {})",
            buf.len() - r.pos,
            r.pos
        ));
    }
    Ok(v)
}

/// Lower-case hex.
pub fn hex(b: &[u8]) -> String {
    b.iter().map(|x| format!("{x:02x}")).collect()
}

impl Value {
    /// The value as JSON: binary data becomes `{"bin": HEX}`, extension
    /// types `{"ext": TYPE, "data": HEX}`, and map keys that are not
    /// strings their compact JSON text.
    pub fn to_json(&self) -> Json {
        match self {
            Value::Nil => Json::Null,
            Value::Bool(b) => Json::Bool(*b),
            Value::Int(i) => Json::Int(*i),
            Value::Float(f) => Json::Float(*f),
            Value::Str(s) => Json::Str(String::from_utf8_lossy(s).into_owned()),
            Value::Bin(b) => Json::obj().with("bin", hex(b)),
            Value::Ext(t, b) => Json::obj().with("ext", *t).with("data", hex(b)),
            Value::Array(v) => Json::Arr(v.iter().map(Value::to_json).collect()),
            Value::Map(kv) => Json::Obj(
                kv.iter()
                    .map(|(k, v)| {
                        let key = match k {
                            Value::Str(s) => String::from_utf8_lossy(s).into_owned(),
                            other => other.to_json().compact(),
                        };
                        (key, v.to_json())
                    })
                    .collect(),
            ),
        }
    }

    fn int(&self) -> Option<i128> {
        match self {
            Value::Int(i) => Some(*i),
            _ => None,
        }
    }
}

/// The contents of a `b2nd` metalayer.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct B2nd {
    /// Metalayer format version.
    pub version: i64,
    /// Array shape.
    pub shape: Vec<i64>,
    /// Chunk shape.
    pub chunkshape: Vec<i32>,
    /// Block shape.
    pub blockshape: Vec<i32>,
    /// Data type format (0: NumPy), absent in old caterva metalayers.
    pub dtype_format: Option<i64>,
    /// Data type, absent in old caterva metalayers.
    pub dtype: Option<String>,
}

impl B2nd {
    /// Number of dimensions.
    pub fn ndim(&self) -> usize {
        self.shape.len()
    }

    /// Number of chunks the array needs (`extnitems / chunknitems` in
    /// 3.3.5's `update_shape`): 0 when any dimension is 0.
    pub fn nchunks(&self) -> i128 {
        let mut n: i128 = 1;
        for (s, c) in self.shape.iter().zip(&self.chunkshape) {
            if *s == 0 {
                return 0;
            }
            let c = i128::from((*c).max(1));
            n *= (i128::from(*s) + c - 1) / c;
        }
        n
    }

    /// Items in one stored chunk: the chunk shape padded to whole blocks
    /// (`extchunknitems`).
    pub fn chunk_items(&self) -> i128 {
        let mut n: i128 = 1;
        for ((s, c), b) in self.shape.iter().zip(&self.chunkshape).zip(&self.blockshape) {
            let (c, b) = (i128::from(*c), i128::from((*b).max(1)));
            n *= if *s == 0 || c % b == 0 { c } else { c + b - c % b };
        }
        n
    }

    /// The metalayer as JSON.
    pub fn to_json(&self) -> Json {
        Json::obj()
            .with("version", self.version)
            .with("ndim", self.ndim())
            .with("shape", self.shape.clone())
            .with("chunkshape", self.chunkshape.clone())
            .with("blockshape", self.blockshape.clone())
            .with("dtype_format", self.dtype_format)
            .with("dtype", self.dtype.clone())
    }
}

/// Parse a `b2nd` (or `caterva`) metalayer: `[version, ndim, shape,
/// chunkshape, blockshape, dtype_format, dtype]` (the last two absent in
/// old caterva metalayers), checking every field.
pub fn parse_b2nd(content: &[u8]) -> Result<B2nd, String> {
    let v = decode(content)?;
    let Value::Array(items) = v else {
        return Err("not a msgpack array".into());
    };
    if !(5..=7).contains(&items.len()) || items.len() == 6 {
        return Err(format!("{} fields instead of 7", items.len()));
    }
    let version = items[0].int().ok_or("version is not an integer")?;
    let ndim = items[1].int().ok_or("ndim is not an integer")?;
    if !(0..=B2ND_MAX_DIM as i128).contains(&ndim) {
        return Err(format!("ndim {ndim} is not in 0..={B2ND_MAX_DIM}"));
    }
    let ndim = ndim as usize;
    let dims = |k: usize, what: &str| -> Result<Vec<i128>, String> {
        let Value::Array(a) = &items[k] else {
            return Err(format!("{what} is not an array"));
        };
        if a.len() != ndim {
            return Err(format!("{what} has {} entries, ndim is {ndim}", a.len()));
        }
        a.iter()
            .map(|x| x.int().ok_or_else(|| format!("{what} holds a non-integer")))
            .collect()
    };
    let shape = dims(2, "shape")?;
    let chunkshape = dims(3, "chunkshape")?;
    let blockshape = dims(4, "blockshape")?;
    for i in 0..ndim {
        let (s, c, b) = (shape[i], chunkshape[i], blockshape[i]);
        if s < 0 || s > i128::from(i64::MAX) {
            return Err(format!("shape[{i}] = {s} is out of range"));
        }
        let min = if s == 0 { 0 } else { 1 };
        if c < min || c > i128::from(i32::MAX) || b < min || b > i128::from(i32::MAX) {
            return Err(format!("chunkshape[{i}] = {c} / blockshape[{i}] = {b} is out of range"));
        }
        if b > c {
            return Err(format!("blockshape[{i}] = {b} is larger than chunkshape[{i}] = {c}"));
        }
    }
    let (dtype_format, dtype) = if items.len() == 7 {
        let f = items[5].int().ok_or("dtype_format is not an integer")?;
        let Value::Str(d) = &items[6] else {
            return Err("dtype is not a string".into());
        };
        let d = String::from_utf8(d.clone()).map_err(|_| "dtype is not UTF-8")?;
        (Some(f as i64), Some(d))
    } else {
        (None, None)
    };
    Ok(B2nd {
        version: i64::try_from(version).map_err(|_| "version out of range")?,
        shape: shape.iter().map(|&x| x as i64).collect(),
        chunkshape: chunkshape.iter().map(|&x| x as i32).collect(),
        blockshape: blockshape.iter().map(|&x| x as i32).collect(),
        dtype_format,
        dtype,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn unhex(s: &str) -> Vec<u8> {
        (0..s.len() / 2)
            .map(|i| u8::from_str_radix(&s[2 * i..2 * i + 2], 16).unwrap())
            .collect()
    }

    #[test]
    fn values() {
        assert_eq!(decode(&[0x2a]).unwrap(), Value::Int(42));
        assert_eq!(decode(&[0xff]).unwrap(), Value::Int(-1));
        assert_eq!(decode(&[0xd0, 0x80]).unwrap(), Value::Int(-128));
        assert_eq!(
            decode(&[0xcf, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff]).unwrap(),
            Value::Int(u64::MAX as i128)
        );
        let info = unhex("82a870726f6475636572ab6d616b655f636f72707573a16e03");
        assert_eq!(
            decode(&info).unwrap().to_json().compact(),
            r#"{"producer":"make_corpus","n":3}"#
        );
        assert_eq!(decode(&unhex("cb3fe0000000000000")).unwrap(), Value::Float(0.5));
        assert_eq!(
            decode(&[0xc4, 2, 1, 2]).unwrap().to_json().compact(),
            r#"{"bin":"0102"}"#
        );
        assert!(decode(&[0xc1]).is_err());
        assert!(decode(&[0x2a, 0]).is_err());
        assert!(decode(&[0xdd, 0xff, 0xff, 0xff, 0xff]).is_err());
        assert!(decode(&[0x91; 200]).is_err());
        assert!(decode(&[]).is_err());
    }

    #[test]
    fn b2nd_metalayer() {
        let m = unhex("97000292d30000000000000025d3000000000000001792d20000000ad20000000892d200000005d20000000400db000000033c6638");
        let b = parse_b2nd(&m).unwrap();
        assert_eq!(b.shape, vec![37, 23]);
        assert_eq!(b.chunkshape, vec![10, 8]);
        assert_eq!(b.blockshape, vec![5, 4]);
        assert_eq!(b.dtype.as_deref(), Some("<f8"));
        assert_eq!((b.nchunks(), b.chunk_items()), (12, 80));
        let mut bad = m.clone();
        bad[2] = 9; // ndim, with shapes of 2 entries
        assert!(parse_b2nd(&bad).is_err());
        bad[..4].copy_from_slice(&[0xc1; 4]);
        assert!(parse_b2nd(&bad).is_err());
        for cut in 0..m.len() {
            assert!(parse_b2nd(&m[..cut]).is_err());
        }
    }
}
