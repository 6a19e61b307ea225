//! A cursor that turns fuzzer bytes into choices. Reading past the end
//! yields zeros, so every input, however short, is a valid program.

/// The fuzzer's bytes, consumed front to back.
pub struct Input<'a> {
    data: &'a [u8],
}

impl<'a> Input<'a> {
    /// A cursor at the start of `data`.
    pub fn new(data: &'a [u8]) -> Self {
        Input { data }
    }

    /// Whether every byte has been consumed.
    pub fn is_empty(&self) -> bool {
        self.data.is_empty()
    }

    /// The next byte, 0 once exhausted.
    pub fn byte(&mut self) -> u8 {
        match self.data.split_first() {
            Some((&b, rest)) => {
                self.data = rest;
                b
            }
            None => 0,
        }
    }

    /// The next two bytes, little-endian.
    pub fn u16(&mut self) -> u16 {
        u16::from_le_bytes([self.byte(), self.byte()])
    }

    /// The next four bytes, little-endian.
    pub fn u32(&mut self) -> u32 {
        u32::from_le_bytes([self.byte(), self.byte(), self.byte(), self.byte()])
    }

    /// A number in `0..n` (0 when `n` is 0).
    pub fn below(&mut self, n: usize) -> usize {
        if n == 0 {
            0
        } else {
            self.u32() as usize % n
        }
    }

    /// One element of `choices` (which must not be empty).
    pub fn pick<T: Copy>(&mut self, choices: &[T]) -> T {
        choices[usize::from(self.byte()) % choices.len()]
    }

    /// A coin flip.
    pub fn flag(&mut self) -> bool {
        self.byte() & 1 == 1
    }

    /// Up to `n` of the next bytes (fewer at the end).
    pub fn bytes(&mut self, n: usize) -> &'a [u8] {
        let (head, rest) = self.data.split_at(n.min(self.data.len()));
        self.data = rest;
        head
    }

    /// Everything not consumed yet.
    pub fn rest(self) -> &'a [u8] {
        self.data
    }
}

/// `len` bytes built from `seed`: repeated (compressible) when `seed` is
/// short, the seed itself followed by a ramp otherwise.
pub fn fill(seed: &[u8], len: usize) -> Vec<u8> {
    if seed.is_empty() {
        return (0..len).map(|i| (i / 7) as u8).collect();
    }
    (0..len)
        .map(|i| seed[i % seed.len()].wrapping_add((i / seed.len()) as u8 & 3))
        .collect()
}
