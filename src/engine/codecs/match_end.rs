//! The end of a short match, found without making the next match wait.
//!
//! Match finders compare 8 bytes at once and locate the first difference
//! in the XOR of the two words. See [`first_difference`] for why that
//! index is sometimes guessed.

/// Where the last short matches ended, for [`first_difference`]: the
/// index of the first differing byte in the last match (low 8 bits) and
/// how many matches in a row had that index (the bits above), packed in
/// one word so that the match finders' loops keep it in a register (as
/// two fields, LZ4's loop spilled both on text: 12 instructions per match
/// where computing the index takes 2).
#[derive(Clone, Copy, Default)]
pub(crate) struct EndGuess {
    packed: u32,
}

/// Matches in a row ending alike before [`first_difference`] trusts the
/// pattern.
pub(crate) const TRUSTED_STREAK: u32 = 8;

/// One match of streak in [`EndGuess::packed`].
const STREAK_ONE: u32 = 1 << 8;

/// Index of the lowest non-zero byte of `x` (non-zero).
///
/// Where an encoder resumes, and so every load after a match, depends on
/// this index. Computed (`trailing_zeros`), it makes the next match wait
/// for the data of this one: on unshuffled integers, a short match every
/// few bytes all ending alike, that chain of loads cost BloscLZ a third of
/// its time (0.73x C, whose byte loop has an exit the CPU predicts).
/// So once matches have ended alike for a while, the same index is tried
/// first behind a branch, which the CPU predicts and runs ahead of. Where
/// lengths vary (shuffled floats) the streak stays short and the branch is
/// never tried: always trying it mispredicted so often that those ran at
/// 0.7x.
#[inline(always)]
pub(crate) fn first_difference(x: u64, guess: &mut EndGuess) -> usize {
    // The streak grows only below TRUSTED_STREAK: from there on, a match
    // ending at the same index returns through the guess.
    if guess.packed >= TRUSTED_STREAK * STREAK_ONE {
        let g = guess.packed & 0xff;
        let below = (1u64 << (8 * g)) - 1;
        if x & below == 0 && (x >> (8 * g)) & 0xff != 0 {
            return g as usize;
        }
        // The guess failed, so the index below differs from g: the streak
        // restarts at 0.
    }
    let n = x.trailing_zeros() / 8;
    // Branch-free bookkeeping (a select): a branch here would mispredict
    // on varying lengths.
    guess.packed = if n == guess.packed & 0xff {
        guess.packed + STREAK_ONE
    } else {
        n
    };
    n as usize
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The guessed index of the first differing byte is always the computed
    /// one: through long streaks, streak breaks and random words.
    #[test]
    fn first_difference_agrees_with_trailing_zeros() {
        let mut guess = EndGuess::default();
        let mut state = 0x9E37_79B9_7F4A_7C15u64;
        let mut word = |byte: u32| {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            // Non-zero at `byte`, zero below it, anything above.
            ((state | 1) << (8 * byte)) | (1u64 << (8 * byte))
        };
        let mut xs = Vec::new();
        for round in 0..200u32 {
            let byte = round % 8;
            // A streak long enough to be trusted, then one that breaks it.
            xs.extend((0..TRUSTED_STREAK + 3).map(|_| word(byte)));
            xs.push(word((byte + 3) % 8));
            xs.extend((0..5).map(|i| word((round + i) % 8)));
        }
        for x in xs {
            assert_ne!(x, 0);
            assert_eq!(
                first_difference(x, &mut guess),
                (x.trailing_zeros() / 8) as usize,
                "{x:#x}"
            );
        }
    }
}
