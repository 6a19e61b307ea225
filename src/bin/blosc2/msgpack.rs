//! Decoding msgpack (with `rmp`) for showing metalayer contents, and the
//! `b2nd` (formerly `caterva`) metalayer of b2nd arrays.

use rmp::decode as mp;
use rmp::Marker;
use serde_json::json;

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

/// `rmp` reads the markers and big-endian fields; this keeps the position
/// for error messages, takes the payloads and bounds declared counts by
/// what is left, so a hostile length allocates nothing.
struct Reader<'a> {
    rest: &'a [u8],
    len: usize,
}

impl<'a> Reader<'a> {
    fn pos(&self) -> usize {
        self.len - self.rest.len()
    }

    fn fail(&self, at: usize, e: impl std::fmt::Display) -> String {
        format!("msgpack: byte {at}: {e}")
    }

    fn take(&mut self, n: u32) -> Result<Vec<u8>, String> {
        let n = n as usize;
        if n > self.rest.len() {
            return Err(format!(
                "msgpack: {n} bytes wanted at byte {} but only {} left",
                self.pos(),
                self.rest.len()
            ));
        }
        let (head, tail) = self.rest.split_at(n);
        self.rest = tail;
        Ok(head.to_vec())
    }

    /// A count of `per`-byte-minimum items that must fit in what is left.
    fn count(&self, n: u32, per: usize, at: usize) -> Result<usize, String> {
        let n = n as usize;
        if n.saturating_mul(per) > self.rest.len() {
            return Err(format!("msgpack: {n} elements declared at byte {at} cannot fit"));
        }
        Ok(n)
    }

    fn value(&mut self, depth: usize) -> Result<Value, String> {
        if depth > MAX_DEPTH {
            return Err("msgpack: nested too deeply".into());
        }
        let at = self.pos();
        let first = *self.rest.first().ok_or_else(|| self.fail(at, "no value"))?;
        let rd = &mut self.rest;
        let e = |e: mp::ValueReadError| format!("msgpack: byte {at}: {e}");
        Ok(match Marker::from_u8(first) {
            Marker::Null => {
                mp::read_nil(rd).map_err(e)?;
                Value::Nil
            }
            Marker::True | Marker::False => Value::Bool(mp::read_bool(rd).map_err(e)?),
            Marker::FixPos(_) | Marker::U8 | Marker::U16 | Marker::U32 | Marker::U64 => {
                let v: u64 = mp::read_int(rd).map_err(|x| self::num_err(at, x))?;
                Value::Int(i128::from(v))
            }
            Marker::FixNeg(_) | Marker::I8 | Marker::I16 | Marker::I32 | Marker::I64 => {
                let v: i64 = mp::read_int(rd).map_err(|x| self::num_err(at, x))?;
                Value::Int(i128::from(v))
            }
            Marker::F32 => Value::Float(f64::from(mp::read_f32(rd).map_err(e)?)),
            Marker::F64 => Value::Float(mp::read_f64(rd).map_err(e)?),
            Marker::FixStr(_) | Marker::Str8 | Marker::Str16 | Marker::Str32 => {
                let n = mp::read_str_len(rd).map_err(e)?;
                Value::Str(self.take(n)?)
            }
            Marker::Bin8 | Marker::Bin16 | Marker::Bin32 => {
                let n = mp::read_bin_len(rd).map_err(e)?;
                Value::Bin(self.take(n)?)
            }
            Marker::FixArray(_) | Marker::Array16 | Marker::Array32 => {
                let n = mp::read_array_len(rd).map_err(e)?;
                let n = self.count(n, 1, at)?;
                let mut v = Vec::with_capacity(n);
                for _ in 0..n {
                    v.push(self.value(depth + 1)?);
                }
                Value::Array(v)
            }
            Marker::FixMap(_) | Marker::Map16 | Marker::Map32 => {
                let n = mp::read_map_len(rd).map_err(e)?;
                let n = self.count(n, 2, at)?;
                let mut v = Vec::with_capacity(n);
                for _ in 0..n {
                    let k = self.value(depth + 1)?;
                    v.push((k, self.value(depth + 1)?));
                }
                Value::Map(v)
            }
            Marker::FixExt1
            | Marker::FixExt2
            | Marker::FixExt4
            | Marker::FixExt8
            | Marker::FixExt16
            | Marker::Ext8
            | Marker::Ext16
            | Marker::Ext32 => {
                let meta = mp::read_ext_meta(rd).map_err(e)?;
                Value::Ext(meta.typeid, self.take(meta.size)?)
            }
            Marker::Reserved => return Err(self.fail(at, "0xc1, which msgpack never uses")),
        })
    }
}

fn num_err(at: usize, e: mp::NumValueReadError) -> String {
    format!("msgpack: byte {at}: {e}")
}

/// Decode `buf` as exactly one msgpack value.
pub fn decode(buf: &[u8]) -> Result<Value, String> {
    let mut r = Reader {
        rest: buf,
        len: buf.len(),
    };
    let v = r.value(0)?;
    if !r.rest.is_empty() {
        return Err(format!(
            "msgpack: {} bytes left after the value (at byte {})",
            r.rest.len(),
            r.pos()
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
    pub fn to_json(&self) -> serde_json::Value {
        match self {
            Value::Nil => serde_json::Value::Null,
            Value::Bool(b) => json!(b),
            // msgpack integers are i64 or u64.
            Value::Int(i) => i64::try_from(*i).map_or_else(|_| json!(*i as u64), |i| json!(i)),
            Value::Float(f) => json!(f),
            Value::Str(s) => json!(String::from_utf8_lossy(s)),
            Value::Bin(b) => json!({"bin": hex(b)}),
            Value::Ext(t, b) => json!({"ext": t, "data": hex(b)}),
            Value::Array(v) => v.iter().map(Value::to_json).collect(),
            Value::Map(kv) => kv
                .iter()
                .map(|(k, v)| {
                    let key = match k {
                        Value::Str(s) => String::from_utf8_lossy(s).into_owned(),
                        other => other.to_json().to_string(),
                    };
                    (key, v.to_json())
                })
                .collect::<serde_json::Map<_, _>>()
                .into(),
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
    pub fn to_json(&self) -> serde_json::Value {
        json!({
            "version": self.version,
            "ndim": self.ndim(),
            "shape": self.shape,
            "chunkshape": self.chunkshape,
            "blockshape": self.blockshape,
            "dtype_format": self.dtype_format,
            "dtype": self.dtype,
        })
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
            decode(&info).unwrap().to_json().to_string(),
            r#"{"producer":"make_corpus","n":3}"#
        );
        assert_eq!(decode(&unhex("cb3fe0000000000000")).unwrap(), Value::Float(0.5));
        assert_eq!(
            decode(&[0xc4, 2, 1, 2]).unwrap().to_json().to_string(),
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
