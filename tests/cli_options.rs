//! The `blosc2` tool's command line as a user meets it: `--help` on every
//! command and subcommand (exit 0, usage first), unknown options refused by
//! every one (exit 2, nothing run), the shell completions and the man page.

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
