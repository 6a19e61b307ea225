//! The `blosc2` command-line tool.
//!
//! `blosc2 demo` (the default) compresses and decompresses built-in data
//! with every codec and prints the ratio and speed of each; `blosc2 bench`
//! is the speed benchmark, optionally against the reference C-Blosc2.

mod args;
mod bench;
mod checksum;
mod compress;
mod demo;
mod encoder;
mod info;
mod inspect;
mod manpage;
mod msgpack;
mod plugin_args;
mod progress;
mod recordio;
mod verify;

use std::process::ExitCode;

use clap::{ArgMatches, Command};

const USAGE: &str = "blosc2 [demo [--size MIB] [--clevel N] [--nthreads N]]
       blosc2 bench [--vs-reference] [--reference PATH] [--size MIB] [--reps N] [--quick]
                    [--csv FILE] [--filter TERMS]... (blosc2 bench --help for more)
       blosc2 recordio info|cat|pack ... (blosc2 recordio --help for more)
       blosc2 compress [--codec NAME] [--clevel N] [--filter LIST] [--typesize N]
                       [--chunksize N] [--blocksize N] [--nthreads N] [-f] [-q] IN OUT
       blosc2 decompress [--nthreads N] [-f] [-q] IN OUT
       blosc2 info [--json] [--no-chunks] FILE...
       blosc2 verify [-q] [--nthreads N] FILE...
       blosc2 completions bash|elvish|fish|powershell|zsh";

/// The whole command line: every subcommand with its options. The man
/// page and the shell completions are generated from it.
pub fn command() -> Command {
    Command::new("blosc2")
        .version(env!("CARGO_PKG_VERSION"))
        .about("Compress, decompress, inspect and verify Blosc2 frames and chunks; benchmark the codecs")
        .override_usage(USAGE)
        .help_template("usage: {usage}\n\n{about-with-newline}\ncommands:\n{subcommands}\n{after-help}")
        .after_help(
            "`blosc2 COMMAND --help` describes each; exit codes: 0 ok, 1 corrupt input or\n\
             failed operation, 2 bad arguments or missing files",
        )
        .disable_help_subcommand(true)
        .subcommands([
            demo::command(),
            bench::command(),
            recordio::command(),
            compress::compress_command(),
            compress::decompress_command(),
            info::command(),
            verify::command(),
            args::command(
                "completions",
                "blosc2 completions SHELL",
                "Print the completion script for SHELL (bash, elvish, fish, powershell or zsh).",
            )
            .arg(
                clap::Arg::new("shell")
                    .value_name("SHELL")
                    .required(true)
                    .value_parser(clap::value_parser!(clap_complete::Shell)),
            ),
            args::command("manpage", "blosc2 manpage", "Print the man page blosc2(1) in roff.").hide(true),
        ])
}

/// Let a write to a closed pipe end the process as it ends other Unix
/// tools (`blosc2 demo | head -1`): Rust starts programs with SIGPIPE
/// ignored, so every write would fail with EPIPE instead and `println!`
/// would panic (an abort in release builds). With the default action the
/// kernel ends the process quietly, as it ends `cat` or `seq`.
fn die_quietly_on_closed_pipe() {
    // SAFETY: `signal` with a valid signal number and `SIG_DFL` only
    // changes this process's disposition of SIGPIPE; it is called first
    // thing in `main`, before any other thread exists.
    #[allow(unsafe_code)]
    unsafe {
        libc::signal(libc::SIGPIPE, libc::SIG_DFL);
    }
}

fn main() -> ExitCode {
    die_quietly_on_closed_pipe();
    let matches = match command().try_get_matches() {
        Ok(m) => m,
        Err(e) => {
            use clap::error::ErrorKind;
            match e.kind() {
                ErrorKind::DisplayHelp | ErrorKind::DisplayVersion => {
                    let _ = e.print();
                    return ExitCode::SUCCESS;
                }
                ErrorKind::DisplayHelpOnMissingArgumentOrSubcommand => {
                    eprint!("{}", e.render());
                    return ExitCode::from(2);
                }
                _ => {}
            }
            eprintln!("blosc2: {}", args::clap_message(&e));
            return ExitCode::from(2);
        }
    };
    let result = match matches.subcommand() {
        None => demo::run(&demo::command().get_matches_from(["demo"])),
        Some(("demo", m)) => demo::run(m),
        Some(("bench", m)) => bench::run(m),
        Some(("recordio", m)) => recordio::run(m),
        Some(("compress", m)) => return compress::compress_main(m),
        Some(("decompress", m)) => return compress::decompress_main(m),
        Some(("info", m)) => return info::main(m),
        Some(("verify", m)) => return verify::main(m),
        Some(("completions", m)) => completions(m),
        Some(("manpage", _)) => manpage(),
        Some((other, _)) => Err(format!("unknown command '{other}'")),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(msg) => {
            eprintln!("blosc2: {msg}");
            ExitCode::from(2)
        }
    }
}

fn completions(m: &ArgMatches) -> Result<(), String> {
    let shell = *m
        .get_one::<clap_complete::Shell>("shell")
        .ok_or("completions needs a SHELL")?;
    clap_complete::generate(shell, &mut command(), "blosc2", &mut std::io::stdout());
    Ok(())
}

fn manpage() -> Result<(), String> {
    let mut out = std::io::stdout().lock();
    manpage::render(command(), &mut out).map_err(|e| format!("writing the man page: {e}"))
}
