//! The `blosc2` tool's command line as a user meets it: `--help` on every
//! command and subcommand (exit 0, usage first), unknown options refused by
//! every one (exit 2, nothing run), the shell completions and the man page.

use std::path::PathBuf;
use std::process::{Command, Output};

/// Every command path of the tool.
const COMMANDS: &[&[&str]] = &[
    &["demo"],
    &["bench"],
    &["recordio"],
    &["recordio", "info"],
    &["recordio", "cat"],
    &["recordio", "pack"],
    &["compress"],
    &["decompress"],
    &["info"],
    &["verify"],
    &["completions"],
];

fn run(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_blosc2"))
        .args(args)
        .output()
        .expect("run blosc2")
}

fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

#[test]
fn help_works_on_every_command() {
    for cmd in COMMANDS {
        for help in ["--help", "-h"] {
            let args: Vec<&str> = cmd.iter().copied().chain([help]).collect();
            let o = run(&args);
            assert_eq!(o.status.code(), Some(0), "{args:?}: {}", text(&o.stderr));
            let want = format!("usage: blosc2 {}", cmd.join(" "));
            assert!(text(&o.stdout).starts_with(&want), "{args:?}: {}", text(&o.stdout));
            assert!(o.stderr.is_empty(), "{args:?}: {}", text(&o.stderr));
        }
    }
}

#[test]
fn unknown_options_fail_on_every_command() {
    for cmd in COMMANDS {
        let args: Vec<&str> = cmd.iter().copied().chain(["--bogus"]).collect();
        let o = run(&args);
        assert_eq!(o.status.code(), Some(2), "{args:?}: {}", text(&o.stdout));
        let msg = text(&o.stderr);
        assert!(msg.starts_with("blosc2: unknown option '--bogus'"), "{args:?}: {msg}");
        assert!(o.stdout.is_empty(), "{args:?} ran: {}", text(&o.stdout));
    }
}

#[test]
fn completions_for_each_shell() {
    for shell in ["bash", "zsh", "fish", "elvish", "powershell"] {
        let o = run(&["completions", shell]);
        assert_eq!(o.status.code(), Some(0), "{shell}");
        let script = text(&o.stdout);
        assert!(script.contains("blosc2") && script.contains("decompress"), "{shell}");
        assert!(script.contains("no-chunks"), "{shell}: subcommand options");
    }
    assert_eq!(run(&["completions", "tcsh"]).status.code(), Some(2));
}

#[test]
fn man_page_names_every_command() {
    let o = run(&["manpage"]);
    assert_eq!(o.status.code(), Some(0));
    let page = text(&o.stdout);
    assert!(page.starts_with(".ie"), "roff: {}", &page[..page.len().min(80)]);
    assert!(page.contains(".TH blosc2 1"), "title");
    for cmd in ["demo", "bench", "recordio", "compress", "decompress", "info", "verify"] {
        assert!(page.contains(cmd), "{cmd}");
    }
    // The options of the subcommands are in the page too.
    assert!(
        page.contains("no\\-chunks") || page.contains("no-chunks"),
        "subcommand options"
    );
}

#[test]
fn version() {
    let o = run(&["--version"]);
    assert_eq!(text(&o.stdout), format!("blosc2 {}\n", env!("CARGO_PKG_VERSION")));
}

/// Every command that writes to stdout, with its stdout closed after the
/// first line (`blosc2 demo | head -1`): it ends quietly, killed by
/// SIGPIPE as `cat` or `seq` are, with no panic message and no abort.
#[test]
fn a_closed_stdout_ends_the_tool_quietly() {
    use std::io::{BufRead, BufReader};
    use std::os::unix::process::ExitStatusExt;
    use std::process::Stdio;

    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("cli_options_pipe");
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let data = dir.join("data.bin");
    let lines: String = (0..200_000).map(|i| format!("line {i} of the data\n")).collect();
    std::fs::write(&data, lines).unwrap();
    let frame = dir.join("data.b2");
    let o = run(&["compress", "-q", data.to_str().unwrap(), frame.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(0), "compress: {}", text(&o.stderr));
    let frame = frame.to_str().unwrap();
    let cases: &[&[&str]] = &[
        &["demo", "--size", "1"],
        &["decompress", "-q", frame, "-"],
        &["info", frame, frame, frame, frame],
        &["completions", "bash"],
        &["manpage"],
    ];
    for args in cases {
        let mut child = Command::new(env!("CARGO_BIN_EXE_blosc2"))
            .args(*args)
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("run blosc2");
        let mut first = String::new();
        BufReader::new(child.stdout.take().unwrap())
            .read_line(&mut first)
            .unwrap();
        // The reader is dropped here: stdout is closed.
        let o = child.wait_with_output().unwrap();
        let err = text(&o.stderr);
        assert!(!first.is_empty(), "{args:?}: no first line");
        assert!(
            !err.contains("panic") && !err.contains("Broken pipe"),
            "{args:?}: {err}"
        );
        let quiet = o.status.code() == Some(0) || o.status.signal() == Some(libc::SIGPIPE);
        assert!(quiet, "{args:?}: {:?} {err}", o.status);
    }
}

/// `compress --help` says what the defaults are: filters and type size
/// chosen per chunk, with the bound on the extra work.
#[test]
fn compress_help_names_the_auto_defaults_and_their_cost() {
    let o = run(&["compress", "--help"]);
    let help = text(&o.stdout).split_whitespace().collect::<Vec<_>>().join(" ");
    for needle in [
        "auto (the default) chooses per chunk",
        "128 KiB sample",
        "at most 1.75 MiB of extra compression per chunk",
        "or auto (the default",
    ] {
        assert!(help.contains(needle), "{needle}: {help}");
    }
}
