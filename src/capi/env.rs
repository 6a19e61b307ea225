//! The environment variables C-Blosc2 3.3.5 reads in its global-API
//! functions and when creating contexts, parsed the way it parses them
//! (`strtol` base 10, exact keywords).

use crate::engine::constants::{filter, splitmode};

/// Raw value of `name`, if set (non-UTF-8 values read as "unrecognized").
fn raw(name: &str) -> Option<String> {
    std::env::var_os(name).map(|v| v.to_string_lossy().into_owned())
}

/// `strtol(s, NULL, 10)`: leading blanks, an optional sign, then digits;
/// 0 when there are none; saturates on overflow.
pub(crate) fn strtol(s: &str) -> i64 {
    let t = s.trim_start_matches([' ', '\t', '\n', '\r', '\x0b', '\x0c']);
    let (neg, digits) = match t.as_bytes().first() {
        Some(b'-') => (true, &t[1..]),
        Some(b'+') => (false, &t[1..]),
        _ => (false, t),
    };
    let mut v: i64 = 0;
    for b in digits.bytes() {
        if !b.is_ascii_digit() {
            break;
        }
        let d = i64::from(b - b'0');
        v = v.saturating_mul(10).saturating_add(d);
    }
    if neg {
        v.saturating_neg()
    } else {
        v
    }
}

/// `BLOSC_CLEVEL` when set to a value >= 0.
pub(crate) fn clevel() -> Option<i64> {
    raw("BLOSC_CLEVEL").map(|s| strtol(&s)).filter(|&v| v >= 0)
}

/// `BLOSC_SHUFFLE`: NOSHUFFLE, SHUFFLE or BITSHUFFLE.
pub(crate) fn shuffle() -> Option<i32> {
    match raw("BLOSC_SHUFFLE")?.as_str() {
        "NOSHUFFLE" => Some(i32::from(filter::NOFILTER)),
        "SHUFFLE" => Some(i32::from(filter::SHUFFLE)),
        "BITSHUFFLE" => Some(i32::from(filter::BITSHUFFLE)),
        _ => None,
    }
}

/// `BLOSC_DELTA`: "1" or "0".
pub(crate) fn delta() -> Option<bool> {
    match raw("BLOSC_DELTA")?.as_str() {
        "1" => Some(true),
        "0" => Some(false),
        _ => None,
    }
}

/// `BLOSC_TYPESIZE` when set to a value > 0.
pub(crate) fn typesize() -> Option<i64> {
    raw("BLOSC_TYPESIZE").map(|s| strtol(&s)).filter(|&v| v > 0)
}

/// `BLOSC_COMPRESSOR`, as given.
pub(crate) fn compressor() -> Option<String> {
    raw("BLOSC_COMPRESSOR")
}

/// `BLOSC_BLOCKSIZE` when set to a value > 0.
pub(crate) fn blocksize() -> Option<i64> {
    raw("BLOSC_BLOCKSIZE").map(|s| strtol(&s)).filter(|&v| v > 0)
}

/// `BLOSC_NTHREADS`, parsed but not range-checked.
pub(crate) fn nthreads() -> Option<i64> {
    raw("BLOSC_NTHREADS").map(|s| strtol(&s))
}

/// `BLOSC_SPLITMODE`: ALWAYS, NEVER, AUTO or FORWARD_COMPAT.
pub(crate) fn splitmode() -> Option<i32> {
    match raw("BLOSC_SPLITMODE")?.as_str() {
        "ALWAYS" => Some(splitmode::ALWAYS),
        "NEVER" => Some(splitmode::NEVER),
        "AUTO" => Some(splitmode::AUTO),
        "FORWARD_COMPAT" => Some(splitmode::FORWARD_COMPAT),
        _ => None,
    }
}

/// `BLOSC_NOLOCK` is set (any value).
pub(crate) fn nolock() -> bool {
    std::env::var_os("BLOSC_NOLOCK").is_some()
}

/// `BLOSC_BLOSC1_COMPAT` is set (any value).
pub(crate) fn blosc1_compat() -> bool {
    std::env::var_os("BLOSC_BLOSC1_COMPAT").is_some()
}

#[cfg(test)]
mod tests {
    use super::strtol;

    #[test]
    fn strtol_like_c() {
        assert_eq!(strtol("  42abc"), 42);
        assert_eq!(strtol("-7"), -7);
        assert_eq!(strtol("+3"), 3);
        assert_eq!(strtol("abc"), 0);
        assert_eq!(strtol(""), 0);
        assert_eq!(strtol("99999999999999999999999"), i64::MAX);
    }
}
