//! `libblosc.so.1` (Cargo feature `abi-blosc1`) against c-blosc 1.21.
//!
//! Builds the library with `cargo build --lib --features abi-blosc1` into
//! `<target>/abi-blosc1` (debug profile, incremental), then runs the C
//! programs of `capi-tests/blosc1/`: built against `include/blosc1/blosc.h`
//! on our library and, when the system's c-blosc 1.21 (`libblosc-dev`) is
//! installed, built against the system's `blosc.h` and `-lblosc` and run on
//! both libraries (`LD_LIBRARY_PATH` swaps ours in), each library reading
//! the chunks the other one wrote. Without `libblosc-dev` those parts are
//! skipped with a note, unless `BLOSC1_REQUIRE_SYSTEM` is set (CI installs
//! it and sets that: `.ci/blosc1_interop.sh`).

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::sync::OnceLock;

/// The functions c-blosc 1.21.3's `libblosc.so.1` exports.
const EXPORTS_1_21: [&str; 25] = [
    "blosc_cbuffer_complib",
    "blosc_cbuffer_metainfo",
    "blosc_cbuffer_sizes",
    "blosc_cbuffer_validate",
    "blosc_cbuffer_versions",
    "blosc_compcode_to_compname",
    "blosc_compname_to_compcode",
    "blosc_compress",
    "blosc_compress_ctx",
    "blosc_decompress",
    "blosc_decompress_ctx",
    "blosc_destroy",
    "blosc_free_resources",
    "blosc_get_blocksize",
    "blosc_get_complib_info",
    "blosc_get_compressor",
    "blosc_get_nthreads",
    "blosc_get_version_string",
    "blosc_getitem",
    "blosc_init",
    "blosc_list_compressors",
    "blosc_set_blocksize",
    "blosc_set_compressor",
    "blosc_set_nthreads",
    "blosc_set_splitmode",
];

/// Environment variables the library reads; cleared for every run.
const BLOSC_ENV: [&str; 9] = [
    "BLOSC_CLEVEL",
    "BLOSC_SHUFFLE",
    "BLOSC_TYPESIZE",
    "BLOSC_COMPRESSOR",
    "BLOSC_BLOCKSIZE",
    "BLOSC_NTHREADS",
    "BLOSC_SPLITMODE",
    "BLOSC_NOLOCK",
    "BLOSC_WARN",
];

fn manifest_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// `<target>`, found from this test executable (`<target>/<profile>/deps/..`).
fn target_root() -> PathBuf {
    let exe = std::env::current_exe().expect("current_exe");
    exe.ancestors().nth(3).expect("target dir").to_path_buf()
}

/// A directory with our `libblosc.so.1` (and `libblosc.so` for `-lblosc`),
/// built once per test run.
fn our_lib_dir() -> &'static Path {
    static DIR: OnceLock<PathBuf> = OnceLock::new();
    DIR.get_or_init(|| {
        let target = target_root().join("abi-blosc1");
        let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
        let status = Command::new(cargo)
            .args(["build", "--lib", "--features", "abi-blosc1", "--manifest-path"])
            .arg(manifest_dir().join("Cargo.toml"))
            .env("CARGO_TARGET_DIR", &target)
            .status()
            .expect("running cargo build --features abi-blosc1");
        assert!(status.success(), "cargo build --features abi-blosc1 failed");
        let dir = target.join("blosc1-tests").join(format!("run-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).expect("create test dir");
        let lib = target.join("debug").join("libblosc2.so");
        for name in ["libblosc.so.1", "libblosc.so"] {
            std::fs::copy(&lib, dir.join(name)).expect("copy libblosc2.so");
        }
        dir
    })
}

/// The system's c-blosc 1.21 headers, when `libblosc-dev` is installed.
fn system_blosc() -> Option<&'static Path> {
    let header = Path::new("/usr/include/blosc.h");
    if header.exists() {
        return Some(header);
    }
    assert!(
        std::env::var_os("BLOSC1_REQUIRE_SYSTEM").is_none(),
        "BLOSC1_REQUIRE_SYSTEM is set but /usr/include/blosc.h is missing"
    );
    eprintln!("note: /usr/include/blosc.h not found (apt-get install libblosc-dev): system parts skipped");
    None
}

/// Which `blosc.h` and `-lblosc` a program is built with.
#[derive(Clone, Copy, PartialEq)]
enum Build {
    /// `include/blosc1/blosc.h`, our `libblosc.so`.
    Ours,
    /// The system's `blosc.h` and `libblosc.so`.
    System,
}

/// Compile `capi-tests/blosc1/<name>.c`.
fn compile(name: &str, build: Build) -> PathBuf {
    let dir = our_lib_dir();
    let exe = dir.join(match build {
        Build::Ours => format!("{name}-ours"),
        Build::System => format!("{name}-system"),
    });
    let target = option_env!("BLOSC2_BUILD_TARGET").unwrap_or("x86_64-unknown-linux-gnu");
    let compiler = cc::Build::new()
        .cargo_metadata(false)
        .target(target)
        .host(target)
        .opt_level(1)
        .warnings(true)
        .get_compiler();
    let mut cmd = compiler.to_command();
    cmd.args(["-std=c11", "-Wall", "-Wextra", "-Werror"]);
    let src_dir = manifest_dir().join("capi-tests").join("blosc1");
    if build == Build::Ours {
        cmd.arg("-I").arg(manifest_dir().join("include").join("blosc1"));
    }
    cmd.arg("-I").arg(&src_dir);
    let our_header = manifest_dir().join("include").join("blosc1").join("blosc.h");
    cmd.arg(format!("-DOUR_BLOSC_H=\"{}\"", our_header.display()));
    cmd.arg(src_dir.join(format!("{name}.c"))).arg("-o").arg(&exe);
    if build == Build::Ours {
        cmd.arg("-L").arg(dir);
    }
    cmd.arg("-lblosc");
    let out = cmd.output().unwrap_or_else(|e| panic!("running the C compiler: {e}"));
    assert!(out.status.success(), "compiling {name}.c failed:\n{}", text(&out));
    exe
}

fn text(out: &Output) -> String {
    format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    )
}

/// Run `exe` on our library (`ours`) or the system's, with `envs`.
fn run(exe: &Path, ours: bool, args: &[&Path], envs: &[(&str, &str)]) -> Output {
    let mut cmd = Command::new(exe);
    cmd.args(args);
    for var in BLOSC_ENV {
        cmd.env_remove(var);
    }
    if ours {
        cmd.env("LD_LIBRARY_PATH", our_lib_dir());
    } else {
        cmd.env_remove("LD_LIBRARY_PATH");
    }
    cmd.envs(envs.iter().copied());
    cmd.output()
        .unwrap_or_else(|e| panic!("running {}: {e}", exe.display()))
}

fn run_ok(exe: &Path, ours: bool, args: &[&Path]) -> String {
    let out = run(exe, ours, args, &[]);
    let which = if ours { "ours" } else { "system" };
    assert!(
        out.status.success(),
        "{} {args:?} on {which} failed ({}):\n{}",
        exe.display(),
        out.status,
        text(&out)
    );
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// Lines of `tool args... lib`, or `None` (with a note) when the tool is missing.
fn tool_lines(tool: &str, args: &[&str], lib: &Path) -> Option<Vec<String>> {
    let Ok(out) = Command::new(tool).args(args).arg(lib).output() else {
        eprintln!("note: {tool} not found: check skipped");
        return None;
    };
    assert!(out.status.success(), "{tool} failed:\n{}", text(&out));
    Some(
        String::from_utf8_lossy(&out.stdout)
            .lines()
            .map(str::to_string)
            .collect(),
    )
}

/// The defined dynamic symbols of `lib`.
fn exports(lib: &Path) -> Option<Vec<String>> {
    let lines = tool_lines("nm", &["-D", "--defined-only"], lib)?;
    let mut names: Vec<String> = lines
        .iter()
        .filter_map(|l| l.split_whitespace().nth(2).map(str::to_string))
        .collect();
    names.sort();
    Some(names)
}

#[test]
fn exports_the_1_21_symbols_only_and_soname() {
    let lib = our_lib_dir().join("libblosc.so.1");
    let Some(ours) = exports(&lib) else { return };
    assert_eq!(ours, EXPORTS_1_21, "exported symbols of libblosc.so.1");
    if let Some(dynamic) = tool_lines("readelf", &["-d"], &lib) {
        assert!(
            dynamic
                .iter()
                .any(|l| l.contains("SONAME") && l.contains("[libblosc.so.1]")),
            "SONAME libblosc.so.1 missing:\n{}",
            dynamic.join("\n")
        );
    }
    if system_blosc().is_some() {
        let out = Command::new("cc").args(["-print-file-name=libblosc.so.1"]).output();
        let path = out.map(|o| String::from_utf8_lossy(&o.stdout).trim().to_string());
        match path {
            Ok(p) if Path::new(&p).is_absolute() => {
                let system = exports(Path::new(&p)).expect("nm ran above");
                assert_eq!(ours, system, "exports differ from the system's {p}");
            }
            _ => eprintln!("note: the system libblosc.so.1 not found: export comparison skipped"),
        }
    }
}

#[test]
fn header_declares_what_the_system_header_declares() {
    let ours = std::fs::read_to_string(manifest_dir().join("include/blosc1/blosc.h")).expect("our blosc.h");
    let Some(system) = system_blosc() else { return };
    let system = std::fs::read_to_string(system).expect("system blosc.h");
    let defines = |text: &str| -> Vec<String> {
        text.lines()
            .filter_map(|l| l.trim_start().strip_prefix("#define "))
            .filter_map(|l| l.split_whitespace().next().map(str::to_string))
            .filter(|n| n != "BLOSC_H")
            .collect()
    };
    let ours_defined = defines(&ours);
    for name in defines(&system) {
        assert!(
            ours_defined.contains(&name),
            "{name} missing from include/blosc1/blosc.h"
        );
    }
    // Same tokens for every macro, compatible prototypes (see the C file).
    compile("header_match", Build::System);
}

#[test]
fn api_on_our_library() {
    let exe = compile("api", Build::Ours);
    run_ok(&exe, true, &[]);
}

#[test]
fn program_built_against_the_system_library_runs_on_ours() {
    if system_blosc().is_none() {
        return;
    }
    let exe = compile("api", Build::System);
    // The expectations hold for c-blosc 1.21 itself ...
    run_ok(&exe, false, &[]);
    // ... and the same binary runs on ours.
    run_ok(&exe, true, &[]);
}

#[test]
fn environment_variables_act_as_in_1_21() {
    let cases: [&[(&str, &str)]; 12] = [
        &[],
        &[("BLOSC_CLEVEL", "9")],
        &[("BLOSC_CLEVEL", "10")],
        &[("BLOSC_SHUFFLE", "BITSHUFFLE")],
        &[("BLOSC_TYPESIZE", "8")],
        &[("BLOSC_COMPRESSOR", "zstd")],
        &[("BLOSC_COMPRESSOR", "nope")],
        &[("BLOSC_BLOCKSIZE", "20000")],
        &[("BLOSC_NTHREADS", "3")],
        &[("BLOSC_SPLITMODE", "NEVER")],
        &[("BLOSC_SPLITMODE", "bogus")],
        &[("BLOSC_NOLOCK", "1"), ("BLOSC_COMPRESSOR", "lz4")],
    ];
    let system = system_blosc().map(|_| compile("env_vars", Build::System));
    let ours = compile("env_vars", Build::Ours);
    for envs in cases {
        let got = String::from_utf8_lossy(&run(&ours, true, &[], envs).stdout).into_owned();
        assert!(got.starts_with("compress: "), "{envs:?}: {got}");
        if let Some(exe) = &system {
            let want = String::from_utf8_lossy(&run(exe, false, &[], envs).stdout).into_owned();
            assert_eq!(got, want, "with {envs:?}");
            let swapped = String::from_utf8_lossy(&run(exe, true, &[], envs).stdout).into_owned();
            assert_eq!(swapped, want, "system build on ours with {envs:?}");
        }
    }
}

/// One stored case of `chunks.c`: (codec, clevel, shuffle, typesize, nbytes) -> chunk.
type Chunks = BTreeMap<[i32; 5], Vec<u8>>;

fn load_chunks(path: &Path) -> Chunks {
    let bytes = std::fs::read(path).expect("read chunk file");
    let word = |at: usize| i32::from_le_bytes(bytes[at..at + 4].try_into().expect("4 bytes"));
    let mut chunks = Chunks::new();
    let mut at = 0;
    while at < bytes.len() {
        let key = [word(at), word(at + 4), word(at + 8), word(at + 12), word(at + 16)];
        let len = word(at + 20) as usize;
        at += 24;
        chunks.insert(key, bytes[at..at + len].to_vec());
        at += len;
    }
    chunks
}

#[test]
fn chunks_interchange_with_the_system_library() {
    let dir = our_lib_dir();
    let ours_file = dir.join("chunks-ours.bin");
    let Some(_) = system_blosc() else {
        // Our library alone: what it writes, it reads.
        let exe = compile("chunks", Build::Ours);
        run_ok(&exe, true, &[Path::new("write"), &ours_file]);
        run_ok(&exe, true, &[Path::new("read"), &ours_file]);
        return;
    };
    let system_file = dir.join("chunks-system.bin");
    let exe = compile("chunks", Build::System);
    eprint!(
        "system writes: {}",
        run_ok(&exe, false, &[Path::new("write"), &system_file])
    );
    eprint!("ours writes: {}", run_ok(&exe, true, &[Path::new("write"), &ours_file]));
    eprint!(
        "system reads ours: {}",
        run_ok(&exe, false, &[Path::new("read"), &ours_file])
    );
    eprint!(
        "ours reads system's: {}",
        run_ok(&exe, true, &[Path::new("read"), &system_file])
    );
    eprint!(
        "ours reads ours: {}",
        run_ok(&exe, true, &[Path::new("read"), &ours_file])
    );

    // Same block sizes as 1.21 everywhere, and sizes close to its own.
    let system = load_chunks(&system_file);
    let ours = load_chunks(&ours_file);
    assert!(ours.len() > 5000, "only {} chunks written", ours.len());
    let mut totals: BTreeMap<i32, (usize, usize)> = BTreeMap::new();
    for (key, chunk) in &ours {
        let theirs = system
            .get(key)
            .unwrap_or_else(|| panic!("case {key:?} missing from the system's chunks"));
        assert_eq!(chunk[..2], theirs[..2], "version bytes of case {key:?}");
        assert_eq!(
            chunk[3..12],
            theirs[3..12],
            "typesize, nbytes, blocksize of case {key:?}"
        );
        let t = totals.entry(key[0]).or_default();
        t.0 += theirs.len();
        t.1 += chunk.len();
    }
    for (codec, (theirs, ours)) in totals {
        let ratio = ours as f64 / theirs as f64;
        eprintln!("codec {codec}: c-blosc 1.21 {theirs} bytes, ours {ours} bytes ({ratio:.3})");
        assert!((0.9..1.1).contains(&ratio), "codec {codec}: size ratio {ratio:.3}");
    }
}
