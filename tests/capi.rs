//! Builds the C programs of `capi-tests/` against `include/` and the
//! freshly built `libblosc2.so`, runs them, and expects exit status 0.
//!
//! `BLOSC2_CAPI_SANITIZE=address,undefined` (any `-fsanitize=` list) builds
//! the programs with those sanitizers. ASan's malloc interposition then also
//! checks the library's heap use (the Rust side allocates through libc
//! malloc) and LeakSanitizer reports leaks at exit; any report fails the run.
//! `BLOSC2_CAPI_WRAPPER="valgrind --error-exitcode=1 ..."` runs every program
//! under that command instead (used by `.ci/sanitizers.sh`).

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::OnceLock;

mod built_lib;
use built_lib::{built_library, profile_dir};

fn manifest_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// A private directory holding a copy of the library under both names a
/// C program may ask for (`-lblosc2` at link time, the SONAME at run time).
fn lib_dir() -> &'static Path {
    static DIR: OnceLock<PathBuf> = OnceLock::new();
    DIR.get_or_init(|| {
        let profile = profile_dir();
        let lib = built_library();
        let base = profile.join("capi-tests");
        remove_stale_runs(&base);
        let dir = base.join(format!("run-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).expect("create capi-tests dir");
        std::fs::copy(&lib, dir.join("libblosc2.so")).expect("copy libblosc2.so");
        std::fs::copy(&lib, dir.join("libblosc2.so.9")).expect("copy libblosc2.so.9");
        dir
    })
}

/// Remove the directories of earlier runs (older than an hour, so that
/// concurrent runs keep theirs).
fn remove_stale_runs(base: &Path) {
    let Ok(entries) = std::fs::read_dir(base) else { return };
    for e in entries.flatten() {
        let old = e
            .metadata()
            .and_then(|m| m.modified())
            .ok()
            .and_then(|t| t.elapsed().ok())
            .is_some_and(|age| age.as_secs() > 3600);
        if old && e.file_name().to_string_lossy().starts_with("run-") {
            let _ = std::fs::remove_dir_all(e.path());
        }
    }
}

/// The `-fsanitize=` list asked for by `BLOSC2_CAPI_SANITIZE`, if any.
fn sanitizers() -> Option<String> {
    std::env::var("BLOSC2_CAPI_SANITIZE")
        .ok()
        .filter(|s| !s.trim().is_empty())
}

/// Compile `capi-tests/<name>.c` into the private directory.
fn compile(name: &str) -> PathBuf {
    let dir = lib_dir();
    let src = manifest_dir().join("capi-tests").join(format!("{name}.c"));
    // Sanitized programs get their own name so a plain run never reuses them.
    let exe = dir.join(if sanitizers().is_some() {
        format!("{name}-san")
    } else {
        name.to_string()
    });
    let target = option_env!("BLOSC2_BUILD_TARGET").unwrap_or("x86_64-unknown-linux-gnu");
    let compiler = cc::Build::new()
        .cargo_metadata(false)
        .target(target)
        .host(target)
        .opt_level(1)
        .debug(true)
        .warnings(true)
        .get_compiler();
    let mut cmd = compiler.to_command();
    cmd.arg("-std=c11")
        .arg("-Wall")
        .arg("-Wextra")
        .arg("-Werror")
        .arg("-Wno-unused-function");
    if let Some(list) = sanitizers() {
        cmd.arg(format!("-fsanitize={list}"))
            .arg("-fno-omit-frame-pointer")
            .arg("-fno-sanitize-recover=all");
    }
    cmd.arg("-I")
        .arg(manifest_dir().join("include"))
        .arg("-I")
        .arg(manifest_dir().join("capi-tests"))
        .arg("-I")
        .arg(manifest_dir().join("src/capi/header"))
        .arg(&src)
        .arg("-o")
        .arg(&exe)
        .arg("-L")
        .arg(dir)
        .arg("-lblosc2")
        .arg(format!("-Wl,-rpath,{}", dir.display()))
        .arg("-lpthread");
    let out = cmd.output().unwrap_or_else(|e| panic!("running the C compiler: {e}"));
    assert!(
        out.status.success(),
        "compiling {name}.c failed:\n{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    exe
}

/// Compile and run `capi-tests/<name>.c` with extra environment variables.
fn run_with_env(name: &str, envs: &[(&str, &str)]) {
    run_with_args(name, envs, &[]);
}

/// Compile and run `capi-tests/<name>.c` with extra environment variables
/// and arguments; returns its standard output.
fn run_with_args(name: &str, envs: &[(&str, &str)], args: &[&std::ffi::OsStr]) -> String {
    let exe = compile(name);
    let wrapper = std::env::var("BLOSC2_CAPI_WRAPPER").unwrap_or_default();
    let mut words = wrapper.split_whitespace();
    let mut cmd = match words.next() {
        Some(program) => {
            let mut cmd = Command::new(program);
            cmd.args(words).arg(&exe);
            cmd
        }
        None => Command::new(&exe),
    };
    cmd.env("LD_LIBRARY_PATH", lib_dir());
    if sanitizers().is_some() {
        // Keep any options the caller set; ours come last and win.
        let asan = std::env::var("ASAN_OPTIONS").unwrap_or_default();
        cmd.env(
            "ASAN_OPTIONS",
            format!("{asan}:detect_leaks=1:abort_on_error=0:exitcode=23"),
        );
        let ubsan = std::env::var("UBSAN_OPTIONS").unwrap_or_default();
        cmd.env("UBSAN_OPTIONS", format!("{ubsan}:halt_on_error=1:print_stacktrace=1"));
    }
    for var in [
        "BLOSC_CLEVEL",
        "BLOSC_SHUFFLE",
        "BLOSC_DELTA",
        "BLOSC_TYPESIZE",
        "BLOSC_COMPRESSOR",
        "BLOSC_BLOCKSIZE",
        "BLOSC_NTHREADS",
        "BLOSC_SPLITMODE",
        "BLOSC_NOLOCK",
        "BLOSC_TRACE",
        "BLOSC_BLOSC1_COMPAT",
    ] {
        cmd.env_remove(var);
    }
    for (k, v) in envs {
        cmd.env(k, v);
    }
    cmd.args(args);
    let out = cmd
        .output()
        .unwrap_or_else(|e| panic!("running {}: {e}", exe.display()));
    assert!(
        out.status.success(),
        "{name} failed ({}):\n{}{}",
        out.status,
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).into_owned()
}

fn run(name: &str) {
    run_with_env(name, &[]);
}

#[test]
fn abi_layout() {
    run("abi_layout");
}

#[test]
fn prototypes() {
    run("prototypes");
}

#[test]
fn roundtrip() {
    run("roundtrip");
}

#[test]
fn getitem() {
    run("getitem");
}

#[test]
fn blosc1_api() {
    run("blosc1_api");
}

#[test]
fn special_chunks() {
    run("special_chunks");
}

#[test]
fn vl_blocks() {
    run("vl_blocks");
}

/// The public fields of `blosc2_schunk`, `blosc2_storage` and
/// `b2nd_array_t` after a sequence of edits are 3.3.5's
/// (`capi-tests/fields_dump.c`; the expected output is the reference
/// library's, see `.ci/fields_diff.sh`).
#[test]
fn fields_match_3_3_5() {
    let scratch = std::env::temp_dir().join(format!("blosc2-capi-fields-{}", std::process::id()));
    std::fs::create_dir_all(&scratch).expect("scratch dir");
    let got = run_with_args("fields_dump", &[], &[scratch.as_os_str()]);
    let _ = std::fs::remove_dir_all(&scratch);
    let want_path = manifest_dir().join("tests/corpus/fields/fields_dump.expected");
    let want = std::fs::read_to_string(&want_path).expect("expected output");
    let (want, got): (Vec<&str>, Vec<&str>) = (want.lines().collect(), got.lines().collect());
    assert_eq!(want.len(), got.len(), "line counts differ:\n{}", got.join("\n"));
    let diffs: Vec<String> = want
        .iter()
        .zip(&got)
        .filter(|(w, g)| w != g)
        .map(|(w, g)| format!("  3.3.5: {w}\n  ours:  {g}"))
        .collect();
    assert!(
        diffs.is_empty(),
        "{} of {} lines differ:\n{}",
        diffs.len(),
        want.len(),
        diffs.join("\n")
    );
}

/// Chunk edits of contiguous frames in memory and in files through the
/// file system, mmap and user callbacks leave 3.3.5's `cbytes`, frame
/// length and file size after every step (`capi-tests/frame_sizes.c`;
/// the expected output is the reference library's, see
/// `.ci/fields_diff.sh`).
#[test]
fn frame_sizes_match_3_3_5() {
    let scratch = std::env::temp_dir().join(format!("blosc2-capi-frame-sizes-{}", std::process::id()));
    std::fs::create_dir_all(&scratch).expect("scratch dir");
    let got = run_with_args("frame_sizes", &[], &[scratch.as_os_str()]);
    let _ = std::fs::remove_dir_all(&scratch);
    let want_path = manifest_dir().join("tests/corpus/fields/frame_sizes.expected");
    let want = std::fs::read_to_string(&want_path).expect("expected output");
    assert_eq!(want, got);
}

#[test]
fn instr_codec() {
    run("instr_codec");
}

#[test]
fn null_args() {
    run("null_args");
}

#[test]
fn misc() {
    run("misc");
}

#[test]
fn prefilter() {
    run("prefilter");
}

/// python-blosc2's use of pre/postfilters: every params field, a distinct
/// `tid` per running worker, disposable output, type-narrowing output.
#[test]
fn prefilter_contract() {
    run("prefilter_contract");
}

#[test]
fn env_vars() {
    run_with_env("env_vars", &[]);
    run_with_env("env_vars", &[("BLOSC_NOLOCK", "1")]);
    run_with_env(
        "env_vars",
        &[
            ("CAPI_ENV_MODE", "overrides"),
            ("BLOSC_CLEVEL", "0"),
            ("BLOSC_COMPRESSOR", "zstd"),
            ("BLOSC_NTHREADS", "2"),
            ("BLOSC_SPLITMODE", "NEVER"),
            ("BLOSC_TYPESIZE", "4"),
        ],
    );
    run_with_env("env_vars", &[("CAPI_ENV_MODE", "badthreads"), ("BLOSC_NTHREADS", "0")]);
    run_with_env(
        "env_vars",
        &[("CAPI_ENV_MODE", "blosc1_compat"), ("BLOSC_BLOSC1_COMPAT", "1")],
    );
}

#[test]
fn schunk_basic() {
    run("schunk_basic");
}

/// Chunks handed over with `copy = false` are kept (in memory) or freed
/// (frames) exactly once; refused ones stay with the caller.
#[test]
fn schunk_handed() {
    run("schunk_handed");
}

#[test]
fn schunk_frames() {
    run("schunk_frames");
}

#[test]
fn io_backends() {
    run("io_backends");
}

#[test]
fn mmap() {
    run("mmap");
}

/// Processes writing and opening one frame with locking on, three rounds
/// (`capi-tests/locking.c`).
#[test]
fn locking() {
    run("locking");
}

#[test]
fn schunk_meta() {
    run("schunk_meta");
}

/// Metalayer and vlmetalayer edits of a file frame keep `cbytes` and the
/// file size, as 3.3.5 (python-blosc2's proxy caches).
#[test]
fn vlmeta_in_place() {
    run("vlmeta_in_place");
}

#[test]
fn schunk_slices() {
    run("schunk_slices");
}

/// A user filter whose name is not text registers (python-blosc2 leaves
/// the name unset).
#[test]
fn register_unnamed_filter() {
    run("register_unnamed_filter");
}

/// Slices at and past the end return 3.3.5's codes (python-blosc2's
/// SChunk slices).
#[test]
fn slice_edges() {
    run("slice_edges");
}

#[test]
fn schunk_null_args() {
    run("schunk_null_args");
}

#[test]
fn schunk_fields() {
    run("schunk_fields");
}

#[test]
fn threads_callback() {
    run("threads_callback");
}

#[test]
fn lazy_trailer() {
    run("lazy_trailer");
}

#[test]
fn trace() {
    run("trace");
    run_with_env("trace", &[("BLOSC_TRACE", "1")]);
}

#[test]
fn recordio() {
    let out = lib_dir().join("recordio-out.rio");
    run_with_env(
        "recordio",
        &[
            ("RECORDIO_DIR", concat!(env!("CARGO_MANIFEST_DIR"), "/tests/recordio")),
            ("RECORDIO_OUT", out.to_str().expect("UTF-8 path")),
        ],
    );
}

#[test]
fn schunk_filters() {
    run("schunk_filters");
}

#[test]
fn schunk_threads() {
    run("schunk_threads");
}

#[test]
fn b2nd_basic() {
    run("b2nd_basic");
}

#[test]
fn b2nd_storage() {
    run("b2nd_storage");
}

#[test]
fn b2nd_shape() {
    run("b2nd_shape");
}

/// `b2nd_get_slice` / `b2nd_copy` with a context of another typesize, as
/// 3.3.5 (the program also passes against the reference library).
#[test]
fn b2nd_typesize_ctx() {
    run("b2nd_typesize_ctx");
}

#[test]
fn stress_threads() {
    run("stress_threads");
}
