//! The small option parser shared by the file commands (`compress`,
//! `decompress`, `info`, `verify`), and the failure type that decides the
//! exit code: 0 success, 1 corrupt input or a failed operation, 2 bad
//! arguments or a missing input file.

use std::fmt::Display;
use std::path::Path;
use std::process::ExitCode;
use std::str::FromStr;

/// Why a command failed; each kind has its exit code.
#[derive(Debug)]
pub enum Failure {
    /// Bad arguments or a missing input file (exit code 2).
    Usage(String),
    /// Corrupt input, failed verification or a failed operation (exit
    /// code 1).
    Failed(String),
    /// Already reported on stderr; exit with this code.
    Reported(u8),
}

impl Failure {
    /// The exit code, after printing the message on stderr.
    pub fn exit(self) -> ExitCode {
        match self {
            Failure::Usage(msg) => {
                eprintln!("blosc2: {msg}");
                ExitCode::from(2)
            }
            Failure::Failed(msg) => {
                eprintln!("blosc2: {msg}");
                ExitCode::from(1)
            }
            Failure::Reported(code) => ExitCode::from(code),
        }
    }

    /// Print the message now and keep only the exit code.
    pub fn report(self) -> u8 {
        match self {
            Failure::Usage(msg) => {
                eprintln!("blosc2: {msg}");
                2
            }
            Failure::Failed(msg) => {
                eprintln!("blosc2: {msg}");
                1
            }
            Failure::Reported(code) => code,
        }
    }
}

/// A usage failure (exit code 2).
pub fn usage(msg: impl Into<String>) -> Failure {
    Failure::Usage(msg.into())
}

/// A corrupt-input or operation failure (exit code 1).
pub fn failed(msg: impl Into<String>) -> Failure {
    Failure::Failed(msg.into())
}

/// Run a command body and turn its outcome into an exit code.
pub fn finish(r: Result<(), Failure>) -> ExitCode {
    match r {
        Ok(()) => ExitCode::SUCCESS,
        Err(f) => f.exit(),
    }
}

/// One option a command accepts.
pub struct Opt {
    /// Long name, without the dashes.
    pub long: &'static str,
    /// Optional one-letter name.
    pub short: Option<char>,
    /// Whether it takes a value (`--name VALUE` or `--name=VALUE`).
    pub value: bool,
}

/// A flag (no value).
pub const fn flag(long: &'static str, short: Option<char>) -> Opt {
    Opt {
        long,
        short,
        value: false,
    }
}

/// An option with a value.
pub const fn valued(long: &'static str, short: Option<char>) -> Opt {
    Opt {
        long,
        short,
        value: true,
    }
}

/// Parsed command line: positional arguments and the options seen (the
/// last occurrence of an option wins).
#[derive(Debug, Default)]
pub struct Parsed {
    /// Positional arguments, in order (`-` is one).
    pub positional: Vec<String>,
    values: Vec<(&'static str, String)>,
    flags: Vec<&'static str>,
    /// `-h` or `--help` was given.
    pub help: bool,
}

impl Parsed {
    /// Whether flag `long` was given.
    pub fn flag(&self, long: &str) -> bool {
        self.flags.contains(&long)
    }

    /// The value of option `long`, if given.
    pub fn value(&self, long: &str) -> Option<&str> {
        self.values
            .iter()
            .rev()
            .find(|(n, _)| *n == long)
            .map(|(_, v)| v.as_str())
    }

    /// Option `long` as a number in `lo..=hi`, or `default`.
    pub fn number<T>(&self, long: &str, default: T, lo: T, hi: T) -> Result<T, Failure>
    where
        T: FromStr + PartialOrd + Display + Copy,
    {
        let Some(v) = self.value(long) else {
            return Ok(default);
        };
        match v.parse::<T>() {
            Ok(n) if n >= lo && n <= hi => Ok(n),
            _ => Err(usage(format!("--{long} must be a number from {lo} to {hi}, not '{v}'"))),
        }
    }

    /// Option `long` as a byte size (`4194304`, `4M`, `512K`, `1G`, `64KiB`)
    /// in `lo..=hi`, or `default`.
    pub fn size(&self, long: &str, default: u64, lo: u64, hi: u64) -> Result<u64, Failure> {
        let Some(v) = self.value(long) else {
            return Ok(default);
        };
        match parse_size(v) {
            Some(n) if n >= lo && n <= hi => Ok(n),
            Some(_) => Err(usage(format!("--{long} must be from {lo} to {hi} bytes, not '{v}'"))),
            None => Err(usage(format!(
                "--{long}: '{v}' is not a size (bytes, or a number with K, M or G)"
            ))),
        }
    }

    /// Exactly `n` positional arguments, or a usage failure naming them.
    pub fn expect_positional(&self, names: &[&str]) -> Result<(), Failure> {
        if self.positional.len() != names.len() {
            let got = self.positional.len();
            return Err(usage(format!(
                "expected {} argument{} ({}), got {got}",
                names.len(),
                if names.len() == 1 { "" } else { "s" },
                names.join(" ")
            )));
        }
        Ok(())
    }
}

/// A byte size: digits with an optional K/M/G suffix (powers of 1024;
/// `KiB`, `KB`, `k` and `B` are accepted too).
pub fn parse_size(s: &str) -> Option<u64> {
    let s = s.trim();
    let digits = s.find(|c: char| !c.is_ascii_digit()).unwrap_or(s.len());
    let n: u64 = s[..digits].parse().ok()?;
    let unit = s[digits..].to_ascii_lowercase();
    let mult: u64 = match unit.as_str() {
        "" | "b" => 1,
        "k" | "kb" | "kib" => 1 << 10,
        "m" | "mb" | "mib" => 1 << 20,
        "g" | "gb" | "gib" => 1 << 30,
        _ => return None,
    };
    n.checked_mul(mult)
}

/// Parse `args` against `opts`. `--` ends the options; `-` is a
/// positional argument (stdin or stdout).
pub fn parse(args: &[String], opts: &[Opt]) -> Result<Parsed, Failure> {
    let mut p = Parsed::default();
    let mut it = args.iter();
    while let Some(a) = it.next() {
        if a == "--" {
            p.positional.extend(it.by_ref().cloned());
            break;
        }
        if a == "-h" || a == "--help" {
            p.help = true;
            continue;
        }
        let (opt, inline) = if let Some(rest) = a.strip_prefix("--") {
            let (name, inline) = match rest.split_once('=') {
                Some((n, v)) => (n, Some(v.to_string())),
                None => (rest, None),
            };
            let o = opts
                .iter()
                .find(|o| o.long == name)
                .ok_or_else(|| usage(format!("unknown option '--{name}'")))?;
            (o, inline)
        } else if a.len() > 1 && a.starts_with('-') {
            let mut cs = a[1..].chars();
            let c = cs.next().unwrap_or('-');
            let o = opts
                .iter()
                .find(|o| o.short == Some(c))
                .ok_or_else(|| usage(format!("unknown option '-{c}'")))?;
            let rest: String = cs.collect();
            (o, (!rest.is_empty()).then_some(rest))
        } else {
            p.positional.push(a.clone());
            continue;
        };
        if opt.value {
            let v = match inline {
                Some(v) => v,
                None => it
                    .next()
                    .cloned()
                    .ok_or_else(|| usage(format!("option '--{}' needs a value", opt.long)))?,
            };
            p.values.push((opt.long, v));
        } else {
            if inline.is_some() {
                return Err(usage(format!("option '--{}' takes no value", opt.long)));
            }
            p.flags.push(opt.long);
        }
    }
    Ok(p)
}

/// The message for an input path that cannot be read (exit code 2).
pub fn missing(path: &Path, err: &std::io::Error) -> Failure {
    let why = match err.kind() {
        std::io::ErrorKind::NotFound => "no such file or directory".to_string(),
        std::io::ErrorKind::PermissionDenied => "permission denied".to_string(),
        _ => err.to_string(),
    };
    usage(format!("cannot open '{}': {why}", path.display()))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn v(a: &[&str]) -> Vec<String> {
        a.iter().map(|s| s.to_string()).collect()
    }

    const OPTS: &[Opt] = &[
        valued("clevel", Some('l')),
        flag("force", Some('f')),
        valued("chunksize", None),
    ];

    #[test]
    fn options_and_positionals() {
        let p = parse(
            &v(&["a", "--clevel", "3", "-f", "-", "--chunksize=1M", "--", "--x"]),
            OPTS,
        )
        .unwrap();
        assert_eq!(p.positional, v(&["a", "-", "--x"]));
        assert!(p.flag("force"));
        assert_eq!(p.number("clevel", 5u8, 0, 9).unwrap(), 3);
        assert_eq!(p.size("chunksize", 0, 1, u64::MAX).unwrap(), 1 << 20);
        let p = parse(&v(&["-l7"]), OPTS).unwrap();
        assert_eq!(p.number("clevel", 5u8, 0, 9).unwrap(), 7);
        assert!(parse(&v(&["--nope"]), OPTS).is_err());
        assert!(parse(&v(&["--clevel"]), OPTS).is_err());
        assert!(parse(&v(&["--force=1"]), OPTS).is_err());
        let p = parse(&v(&["--clevel", "12"]), OPTS).unwrap();
        assert!(p.number("clevel", 5u8, 0, 9).is_err());
        assert!(parse(&v(&["-h"]), OPTS).unwrap().help);
    }

    #[test]
    fn sizes() {
        assert_eq!(parse_size("4M"), Some(4 << 20));
        assert_eq!(parse_size("64KiB"), Some(64 << 10));
        assert_eq!(parse_size("1g"), Some(1 << 30));
        assert_eq!(parse_size("123"), Some(123));
        assert_eq!(parse_size("1.5M"), None);
        assert_eq!(parse_size("M"), None);
        assert_eq!(parse_size("99999999999999999999G"), None);
    }
}
