//! The pieces every command's clap definition is built from (one help
//! layout, options whose values each command checks itself), the view of
//! the matches the commands read, and the failure type that decides the
//! exit code: 0 success, 1 corrupt input or a failed operation, 2 bad
//! arguments or a missing input file.

use std::fmt::Display;
use std::path::Path;
use std::process::ExitCode;
use std::str::FromStr;

use clap::{Arg, ArgAction, ArgMatches, Command};

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

/// The help layout shared by every command: the usage line first (tests
/// and scripts look for `usage: blosc2 CMD`), then the prose, the options
/// and the exit codes.
pub const HELP_TEMPLATE: &str = "usage: {usage}\n\n{about-with-newline}\n{all-args}{after-help}";

/// A subcommand with the shared help layout; repeating an option keeps
/// the last value, as the hand-written parser did. `about` is the whole
/// description shown by `--help`; its first sentence is the summary in
/// `blosc2 --help` and in the man page.
pub fn command(name: &'static str, usage: &'static str, about: &'static str) -> Command {
    let bytes = about.as_bytes();
    let end = (0..bytes.len())
        .find(|&i| bytes[i] == b'.' && bytes.get(i + 1).is_none_or(u8::is_ascii_whitespace))
        .unwrap_or(about.len());
    let summary = &about[..end];
    Command::new(name)
        .override_usage(usage)
        .about(summary.replace('\n', " "))
        .long_about(about)
        .help_template(HELP_TEMPLATE)
        .args_override_self(true)
        .disable_version_flag(true)
}

/// An option with a value (`--name VALUE`, `--name=VALUE`, `-xVALUE`); the
/// value stays text and each command checks it, so that the messages name
/// the option and the accepted range.
pub fn valued(long: &'static str, short: Option<char>, value: &'static str, help: &'static str) -> Arg {
    let a = Arg::new(long)
        .long(long)
        .value_name(value)
        .help(help)
        .action(ArgAction::Set)
        .allow_hyphen_values(true);
    match short {
        Some(c) => a.short(c),
        None => a,
    }
}

/// An option that may be given several times; every value is kept.
pub fn repeated(long: &'static str, short: Option<char>, value: &'static str, help: &'static str) -> Arg {
    valued(long, short, value, help).action(ArgAction::Append)
}

/// A flag (no value).
pub fn flag(long: &'static str, short: Option<char>, help: &'static str) -> Arg {
    let a = Arg::new(long).long(long).help(help).action(ArgAction::SetTrue);
    match short {
        Some(c) => a.short(c),
        None => a,
    }
}

/// The positional arguments, any number (the command checks the count).
pub fn positionals(name: &'static str, help: &'static str) -> Arg {
    Arg::new(POSITIONAL)
        .value_name(name)
        .help(help)
        .num_args(0..)
        .action(ArgAction::Append)
}

/// The id of the positional arguments in the matches.
const POSITIONAL: &str = "positional";

/// Parsed command line: positional arguments and the options seen.
#[derive(Debug)]
pub struct Parsed<'a> {
    /// Positional arguments, in order (`-` is one).
    pub positional: Vec<String>,
    matches: &'a ArgMatches,
}

impl<'a> Parsed<'a> {
    /// The arguments of one subcommand as clap matched them.
    pub fn new(matches: &'a ArgMatches) -> Parsed<'a> {
        let positional = match matches.try_get_many::<String>(POSITIONAL) {
            Ok(Some(v)) => v.cloned().collect(),
            _ => Vec::new(),
        };
        Parsed { positional, matches }
    }

    /// Whether flag `long` was given.
    pub fn flag(&self, long: &str) -> bool {
        matches!(self.matches.try_get_one::<bool>(long), Ok(Some(true)))
    }

    /// The value of option `long`, if given.
    pub fn value(&self, long: &str) -> Option<&str> {
        match self.matches.try_get_many::<String>(long) {
            Ok(Some(mut v)) => v.next_back().map(String::as_str),
            _ => None,
        }
    }

    /// Every value of a repeated option `long`, in order.
    pub fn values(&self, long: &str) -> Vec<String> {
        match self.matches.try_get_many::<String>(long) {
            Ok(Some(v)) => v.cloned().collect(),
            _ => Vec::new(),
        }
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

/// The message for what clap refused (exit code 2), in the tool's words:
/// `blosc2: unknown option '--x'`, `blosc2: option '--codec' needs a value`.
pub fn clap_message(e: &clap::Error) -> String {
    use clap::error::{ContextKind, ContextValue, ErrorKind};
    let arg = match e.get(ContextKind::InvalidArg) {
        Some(ContextValue::String(s)) => s.split_whitespace().next().unwrap_or("").to_string(),
        _ => String::new(),
    };
    let sub = match e.get(ContextKind::InvalidSubcommand) {
        Some(ContextValue::String(s)) => s.clone(),
        _ => String::new(),
    };
    match e.kind() {
        ErrorKind::UnknownArgument => format!("unknown option '{arg}' (see --help)"),
        ErrorKind::InvalidSubcommand => format!("unknown command '{sub}' (blosc2 --help lists them)"),
        ErrorKind::InvalidValue | ErrorKind::NoEquals
            if e.get(ContextKind::InvalidValue)
                .is_none_or(|v| matches!(v, ContextValue::String(s) if s.is_empty())) =>
        {
            format!("option '{arg}' needs a value")
        }
        _ => {
            let text = e.render().to_string();
            text.trim_start_matches("error: ").trim_end().to_string()
        }
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

    fn cmd() -> Command {
        command("t", "t [options] ARGS", "a test command").args([
            valued("clevel", Some('l'), "N", "level"),
            flag("force", Some('f'), "overwrite"),
            valued("chunksize", None, "N", "bytes"),
            positionals("ARGS", "anything"),
        ])
    }

    fn parse(args: &[&str]) -> Result<ArgMatches, clap::Error> {
        cmd().try_get_matches_from(std::iter::once("t").chain(args.iter().copied()))
    }

    #[test]
    fn options_and_positionals() {
        let m = parse(&["a", "--clevel", "3", "-f", "-", "--chunksize=1M", "--", "--x"]).unwrap();
        let p = Parsed::new(&m);
        assert_eq!(p.positional, v(&["a", "-", "--x"]));
        assert!(p.flag("force"));
        assert_eq!(p.number("clevel", 5u8, 0, 9).unwrap(), 3);
        assert_eq!(p.size("chunksize", 0, 1, u64::MAX).unwrap(), 1 << 20);
        let m = parse(&["-l7", "--clevel", "8"]).unwrap();
        assert_eq!(Parsed::new(&m).number("clevel", 5u8, 0, 9).unwrap(), 8);
        let e = parse(&["--nope"]).unwrap_err();
        assert_eq!(clap_message(&e), "unknown option '--nope' (see --help)");
        let e = parse(&["--clevel"]).unwrap_err();
        assert_eq!(clap_message(&e), "option '--clevel' needs a value");
        assert!(parse(&["--force=1"]).is_err());
        let m = parse(&["--clevel", "12"]).unwrap();
        assert!(Parsed::new(&m).number("clevel", 5u8, 0, 9).is_err());
        let e = parse(&["-h"]).unwrap_err();
        assert_eq!(e.kind(), clap::error::ErrorKind::DisplayHelp);
        assert!(e.render().to_string().starts_with("usage: t [options] ARGS"));
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
