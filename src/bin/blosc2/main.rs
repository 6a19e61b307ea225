//! The `blosc2` command-line tool.
//!
//! `blosc2 demo` (the default) compresses and decompresses built-in data
//! with every codec and prints the ratio and speed of each; `blosc2 bench`
//! is the speed benchmark, optionally against the reference C-Blosc2.

mod args;
mod bench;
mod compress;
mod demo;
mod info;
mod inspect;
mod json;
mod msgpack;
mod progress;
mod recordio;
mod verify;

use std::process::ExitCode;

const USAGE: &str = "usage: blosc2 [demo [--size MIB] [--clevel N] [--nthreads N]]
       blosc2 bench [--vs-reference] [--reference PATH] [--size MIB] [--reps N] [--quick]
                    [--csv FILE] [--filter TERMS]... (blosc2 bench --help for more)
       blosc2 recordio info|cat|pack ... (blosc2 recordio --help for more)
       blosc2 compress [--codec NAME] [--clevel N] [--filter LIST] [--typesize N]
                       [--chunksize N] [--blocksize N] [--nthreads N] [-f] [-q] IN OUT
       blosc2 decompress [--nthreads N] [-f] [-q] IN OUT
       blosc2 info [--json] [--no-chunks] FILE...
       blosc2 verify [-q] [--nthreads N] FILE...

commands:
  demo    compress and decompress built-in data with every codec and print
          ratio and speed (the default when no command is given)
  bench   the speed benchmark: our engine, and with --vs-reference the
          reference C-Blosc2 libblosc2.so in the same process
  recordio  read and write grailbio recordio files (info, cat, pack)
  compress    compress a file (or - for stdin) into a .b2frame file (or -),
              one chunk at a time
  decompress  decompress a frame, sparse frame or chunk into a file (or -)
  info        header fields, metalayers, b2nd layout and chunk table of a
              frame or chunk (--json for machines)
  verify      decode everything; report the first problem and where it is
              (exit code 1)
`blosc2 COMMAND --help` describes each; exit codes: 0 ok, 1 corrupt input or
failed operation, 2 bad arguments or missing files";

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let (cmd, rest) = match args.split_first() {
        None => ("demo", &args[..]),
        Some((c, r)) => (c.as_str(), r),
    };
    let result = match cmd {
        "demo" => demo::run(rest),
        "bench" => bench::run(rest),
        "recordio" => recordio::run(rest),
        "compress" => return compress::compress_main(rest),
        "decompress" => return compress::decompress_main(rest),
        "info" => return info::main(rest),
        "verify" => return verify::main(rest),
        "-h" | "--help" | "help" => {
            println!("{USAGE}");
            Ok(())
        }
        "-V" | "--version" => {
            println!("blosc2 {}", env!("CARGO_PKG_VERSION"));
            Ok(())
        }
        other => Err(format!("unknown command '{other}'\n{USAGE}")),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(msg) => {
            eprintln!("blosc2: {msg}");
            ExitCode::from(2)
        }
    }
}
