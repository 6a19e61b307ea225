//! Go `encoding/binary` varints: LEB128 unsigned varints of at most 10
//! bytes, and zigzag signed varints.

/// Longest encoding of a 64-bit varint.
pub const MAX_VARINT_LEN: usize = 10;

/// Why a varint could not be read (Go's `n == 0` and `n < 0`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum VarintError {
    /// The buffer ends before the last byte of the varint.
    Short,
    /// The value does not fit in 64 bits.
    Overflow,
}

impl std::fmt::Display for VarintError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            VarintError::Short => "truncated varint",
            VarintError::Overflow => "varint overflows 64 bits",
        })
    }
}

/// Append the uvarint encoding of `v` to `out`.
pub fn put_uvarint(out: &mut Vec<u8>, mut v: u64) {
    while v >= 0x80 {
        out.push((v as u8) | 0x80);
        v >>= 7;
    }
    out.push(v as u8);
}

/// Append the zigzag varint encoding of `v` to `out`.
pub fn put_varint(out: &mut Vec<u8>, v: i64) {
    put_uvarint(out, ((v << 1) ^ (v >> 63)) as u64);
}

/// Number of bytes of the uvarint encoding of `v`.
pub fn uvarint_len(mut v: u64) -> usize {
    let mut n = 1;
    while v >= 0x80 {
        v >>= 7;
        n += 1;
    }
    n
}

/// Read a uvarint at the start of `buf`: the value and the bytes used.
/// Like Go's `binary.Uvarint`, non-minimal encodings are accepted and a
/// 10th byte above 1 is an overflow.
pub fn uvarint(buf: &[u8]) -> Result<(u64, usize), VarintError> {
    let mut x: u64 = 0;
    let mut s: u32 = 0;
    for (i, &b) in buf.iter().enumerate() {
        if i == MAX_VARINT_LEN {
            return Err(VarintError::Overflow);
        }
        if b < 0x80 {
            if i == MAX_VARINT_LEN - 1 && b > 1 {
                return Err(VarintError::Overflow);
            }
            return Ok((x | (u64::from(b) << s), i + 1));
        }
        x |= u64::from(b & 0x7f) << s;
        s += 7;
    }
    Err(VarintError::Short)
}

/// Read a zigzag varint at the start of `buf` (Go's `binary.Varint`).
pub fn varint(buf: &[u8]) -> Result<(i64, usize), VarintError> {
    let (ux, n) = uvarint(buf)?;
    let x = (ux >> 1) as i64;
    Ok((if ux & 1 != 0 { !x } else { x }, n))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trips_and_go_vectors() {
        for v in [0u64, 1, 127, 128, 234, 300, 16383, 16384, u32::MAX as u64, u64::MAX] {
            let mut b = Vec::new();
            put_uvarint(&mut b, v);
            assert_eq!(b.len(), uvarint_len(v));
            assert_eq!(uvarint(&b), Ok((v, b.len())));
        }
        for v in [0i64, -1, 1, -3, 12345, i64::MIN, i64::MAX] {
            let mut b = Vec::new();
            put_varint(&mut b, v);
            assert_eq!(varint(&b), Ok((v, b.len())));
        }
        let mut b = Vec::new();
        put_varint(&mut b, 12345);
        assert_eq!(b, [0xf2, 0xc0, 0x01]);
        b.clear();
        put_varint(&mut b, -3);
        assert_eq!(b, [0x05]);
        b.clear();
        put_uvarint(&mut b, 234);
        assert_eq!(b, [0xea, 0x01]);
    }

    #[test]
    fn malformed() {
        assert_eq!(uvarint(&[]), Err(VarintError::Short));
        assert_eq!(uvarint(&[0x80, 0x80]), Err(VarintError::Short));
        // Non-minimal encodings are accepted, as in Go.
        assert_eq!(uvarint(&[0x80, 0x00]), Ok((0, 2)));
        let mut ten = vec![0xff; 9];
        ten.push(0x01);
        assert_eq!(uvarint(&ten), Ok((u64::MAX, 10)));
        ten[9] = 0x02;
        assert_eq!(uvarint(&ten), Err(VarintError::Overflow));
        assert_eq!(uvarint(&[0xff; 11]), Err(VarintError::Overflow));
    }
}
