//! The first symbols of a zlib stream whose first block uses the fixed
//! Huffman code (RFC 1951, 3.2.6), as zlib-ng's level 1 writes every block:
//! such a block declares no code lengths, so what it is made of is read
//! from its first symbols.

use super::dynamic_header::{deflate_body, Bits};

/// What the first symbols of a fixed-Huffman block are.
#[derive(Debug, PartialEq, Eq)]
pub struct FirstSymbols {
    /// Literals and matches read (the end-of-block symbol not counted).
    pub symbols: usize,
    /// Matches of length 7 at distance 7 or 8: one per item of an
    /// unshuffled 8-byte sequence whose items differ in their first byte.
    pub seven_near: usize,
}

/// Up to `limit` symbols of `stream`'s first block, when the stream is
/// zlib-wrapped DEFLATE and that block is fixed-Huffman: `None` otherwise,
/// and when the symbols read are malformed or cut short (the decoder then
/// reports it). Stops early at the end of the block.
pub fn first_symbols(stream: &[u8], limit: usize) -> Option<FirstSymbols> {
    let mut bits = Bits::new(deflate_body(stream)?);
    let _last = bits.take(1)?;
    if bits.take(2)? != 1 {
        return None;
    }
    let mut seen = FirstSymbols {
        symbols: 0,
        seven_near: 0,
    };
    while seen.symbols < limit {
        let symbol = litlen_symbol(&mut bits)?;
        if symbol == 256 {
            break;
        }
        seen.symbols += 1;
        if symbol < 256 {
            continue;
        }
        let length_extra = match symbol {
            265..=284 => (symbol - 261) / 4,
            257..=285 => 0,
            _ => return None,
        };
        bits.take(length_extra)?;
        // Distance codes are 5-bit Huffman codes, packed from their most
        // significant bit.
        let distance = (0..5).try_fold(0u32, |code, _| Some(code << 1 | bits.take(1)?))?;
        let distance_extra = match distance {
            0..=3 => 0,
            4..=29 => distance / 2 - 1,
            _ => return None,
        };
        bits.take(distance_extra)?;
        if symbol == 261 && distance == 5 {
            seen.seven_near += 1;
        }
    }
    Some(seen)
}

/// One literal/length symbol of the fixed code: 7-bit codes for 256-279,
/// 8-bit codes for 0-143 and 280-287, 9-bit codes for 144-255.
fn litlen_symbol(bits: &mut Bits) -> Option<u32> {
    let mut code = 0u32;
    for _ in 0..7 {
        code = code << 1 | bits.take(1)?;
    }
    if code <= 0b001_0111 {
        return Some(256 + code);
    }
    code = code << 1 | bits.take(1)?;
    match code {
        0b0011_0000..=0b1011_1111 => Some(code - 0b0011_0000),
        0b1100_0000..=0b1100_0111 => Some(280 + code - 0b1100_0000),
        _ => Some(144 + (code << 1 | bits.take(1)?) - 0b1_1001_0000),
    }
}

#[cfg(test)]
mod tests {
    use super::super::zlib;
    use super::{first_symbols, FirstSymbols};

    /// zlib level 1 writes fixed blocks: counting int64 is a literal and
    /// a 7-byte match 8 bytes back per item; text and shuffled numbers
    /// are not.
    #[test]
    fn counts_seven_byte_matches_eight_back() {
        let counting: Vec<u8> = (0u64..8192).flat_map(|i| (i * 3).to_le_bytes()).collect();
        let seen = first_symbols(&zlib::compressed(1, &counting), 64).unwrap();
        assert_eq!(seen.symbols, 64);
        assert!(seen.seven_near >= 30, "{seen:?}");
        let text: Vec<u8> = b"one two three four five six seven eight nine ten\n"
            .iter()
            .cycle()
            .take(65_536)
            .copied()
            .collect();
        let shuffled: Vec<u8> = (0..8)
            .flat_map(|b| (0..8192u64).map(move |i| (i >> (8 * b)) as u8))
            .collect();
        for data in [text, shuffled] {
            let seen = first_symbols(&zlib::compressed(1, &data), 64).unwrap();
            assert!(seen.seven_near < 4, "{seen:?}");
        }
        // Two literals and the end of the block.
        assert_eq!(
            first_symbols(&zlib::compressed(1, b"ab"), 64),
            Some(FirstSymbols {
                symbols: 2,
                seven_near: 0
            })
        );
    }

    /// Dynamic and stored blocks, other headers, and cut or damaged
    /// streams give `None` or some counts, never a panic.
    #[test]
    fn refuses_what_it_cannot_read() {
        let counting: Vec<u8> = (0u64..8192).flat_map(u64::to_le_bytes).collect();
        assert!(first_symbols(&zlib::compressed(5, &counting), 64).is_none(), "dynamic");
        assert!(first_symbols(&zlib::compressed(0, &counting), 64).is_none(), "stored");
        assert!(first_symbols(&[], 64).is_none());
        assert!(first_symbols(&[0x78, 0x01], 64).is_none());
        let good = zlib::compressed(1, &counting);
        for bad in zlib::cut_and_damaged(&good) {
            let _ = first_symbols(&bad, 64);
        }
    }
}
