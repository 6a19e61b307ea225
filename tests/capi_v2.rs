//! The C-Blosc2 2.23 ABI (`libblosc2.so.7`, Cargo feature `abi-v2`):
//! builds the library with the feature into its own target directory
//! (`<target>/abi-v2`, debug, incremental), compiles the C programs of
//! `capi-tests/v2/` against `include/v2` and runs them. Frames written by
//! the 3.3 library (this test run's `libblosc2.so.9`) and by the reference
//! C-Blosc2 3.3.5 (`tests/corpus/frames`) are read through the 2.23 ABI.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::OnceLock;

fn manifest_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// `target/<profile>` of this test run, found from the test executable.
fn profile_dir() -> PathBuf {
    let exe = std::env::current_exe().expect("current_exe");
    exe.parent().and_then(Path::parent).expect("profile dir").to_path_buf()
}

/// A fresh directory under this run's `target/<profile>/capi-v2/`.
fn scratch(name: &str) -> PathBuf {
    let dir = profile_dir()
        .join("capi-v2")
        .join(format!("run-{}", std::process::id()))
        .join(name);
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("create a scratch directory");
    dir
}

/// Copy `lib` into a new directory as `libblosc2.so` (for `-lblosc2`) and
/// under its SONAME (for the loader).
fn lib_dir(name: &str, lib: &Path, soname: &str) -> PathBuf {
    let dir = scratch(name);
    std::fs::copy(lib, dir.join("libblosc2.so")).expect("copy libblosc2.so");
    std::fs::copy(lib, dir.join(soname)).expect("copy libblosc2.so under its SONAME");
    dir
}

/// `libblosc2.so.7`: `cargo build --lib --features abi-v2`, once per run.
fn v2_lib_dir() -> &'static Path {
    static DIR: OnceLock<PathBuf> = OnceLock::new();
    DIR.get_or_init(|| {
        // `<target>/abi-v2`, next to this run's `<target>/<profile>`.
        let target = profile_dir().parent().expect("target dir").join("abi-v2");
        let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
        let out = Command::new(cargo)
            .args(["build", "--lib", "--features", "abi-v2"])
            .env("CARGO_TARGET_DIR", &target)
            .current_dir(manifest_dir())
            .output()
            .expect("running cargo build --features abi-v2");
        assert!(
            out.status.success(),
            "cargo build --features abi-v2 failed:\n{}",
            String::from_utf8_lossy(&out.stderr)
        );
        lib_dir("lib-v2", &target.join("debug").join("libblosc2.so"), "libblosc2.so.7")
    })
}

/// `libblosc2.so.9`: the 3.3 library Cargo built for this test run.
fn v3_lib_dir() -> &'static Path {
    static DIR: OnceLock<PathBuf> = OnceLock::new();
    DIR.get_or_init(|| {
        let profile = profile_dir();
        let lib = [profile.join("deps").join("libblosc2.so"), profile.join("libblosc2.so")]
            .into_iter()
            .filter_map(|p| Some((std::fs::metadata(&p).ok()?.modified().ok()?, p)))
            .max_by_key(|(t, _)| *t)
            .map(|(_, p)| p)
            .expect("libblosc2.so built for this test run");
        lib_dir("lib-v3", &lib, "libblosc2.so.9")
    })
}

/// Which API a program is compiled against.
#[derive(Clone, Copy)]
enum Abi {
    /// `include/v2`, linked to `libblosc2.so.7`.
    V2,
    /// `include/`, linked to `libblosc2.so.9`.
    V3,
}

impl Abi {
    fn include(self) -> PathBuf {
        match self {
            Abi::V2 => manifest_dir().join("include").join("v2"),
            Abi::V3 => manifest_dir().join("include"),
        }
    }

    fn lib_dir(self) -> &'static Path {
        match self {
            Abi::V2 => v2_lib_dir(),
            Abi::V3 => v3_lib_dir(),
        }
    }

    fn tag(self) -> &'static str {
        match self {
            Abi::V2 => "v2",
            Abi::V3 => "v3",
        }
    }
}

/// Compile `capi-tests/v2/<name>.c` for `abi`.
fn compile(name: &str, abi: Abi) -> PathBuf {
    // One executable per call: tests run in parallel and may build the
    // same program.
    static BUILDS: AtomicUsize = AtomicUsize::new(0);
    let lib = abi.lib_dir();
    let exe = lib.join(format!(
        "{name}-{}-{}",
        abi.tag(),
        BUILDS.fetch_add(1, Ordering::Relaxed)
    ));
    let target = option_env!("BLOSC2_BUILD_TARGET").unwrap_or("x86_64-unknown-linux-gnu");
    let compiler = cc::Build::new()
        .cargo_metadata(false)
        .target(target)
        .host(target)
        .opt_level(1)
        .debug(true)
        .get_compiler();
    let out = compiler
        .to_command()
        .args(["-std=c11", "-Wall", "-Wextra", "-Werror", "-Wno-unused-function"])
        .arg("-I")
        .arg(abi.include())
        .arg("-I")
        .arg(manifest_dir().join("capi-tests"))
        .arg(manifest_dir().join("capi-tests").join("v2").join(format!("{name}.c")))
        .arg("-o")
        .arg(&exe)
        .arg("-L")
        .arg(lib)
        .arg("-lblosc2")
        .arg(format!("-Wl,-rpath,{}", lib.display()))
        .arg("-lpthread")
        .output()
        .unwrap_or_else(|e| panic!("running the C compiler: {e}"));
    assert!(
        out.status.success(),
        "compiling {name}.c against {} failed:\n{}{}",
        abi.include().display(),
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    exe
}

/// Compile and run `capi-tests/v2/<name>.c` for `abi` with `args`.
fn run(name: &str, abi: Abi, args: &[String]) {
    let exe = compile(name, abi);
    let out = Command::new(&exe)
        .args(args)
        .env("LD_LIBRARY_PATH", abi.lib_dir())
        .output()
        .unwrap_or_else(|e| panic!("running {}: {e}", exe.display()));
    assert!(
        out.status.success(),
        "{name} ({}) {args:?} failed ({}):\n{}{}",
        abi.tag(),
        out.status,
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
}

#[test]
fn layout_matches_2_23() {
    run("layout", Abi::V2, &[]);
}

#[test]
fn library_soname_is_libblosc2_so_7() {
    let lib = std::fs::read(v2_lib_dir().join("libblosc2.so.7")).expect("read the library");
    // The SONAME string sits in .dynstr; the 3.3 one must not.
    let has = |s: &[u8]| lib.windows(s.len()).any(|w| w == s);
    assert!(has(b"libblosc2.so.7\0"));
    assert!(!has(b"libblosc2.so.9\0"));
}

#[test]
fn schunk_fields_and_inline_metalayer_reads() {
    run("schunk_meta", Abi::V2, &[]);
}

#[test]
fn b2nd_fields_and_schunk_through_array() {
    run("b2nd_fields", Abi::V2, &[]);
}

/// The metalayers `schunk_meta.c` writes, as `read_frame.c` arguments.
fn schunk_meta_expectations(path: &Path) -> Vec<String> {
    let mut args = vec![path.display().to_string(), "5".into(), "100000".into()];
    args.extend(["shape=93030405", "answer=2a", "label=a27632"].map(String::from));
    args
}

#[test]
fn frame_written_by_3_3_reads_through_2_23() {
    let path = scratch("from-v3").join("v3.b2frame");
    run("schunk_meta", Abi::V3, &[path.display().to_string()]);
    run("read_frame", Abi::V2, &schunk_meta_expectations(&path));
}

#[test]
fn frame_written_by_2_23_reads_through_3_3() {
    let path = scratch("from-v2").join("v2.b2frame");
    run("schunk_meta", Abi::V2, &[path.display().to_string()]);
    run("read_frame", Abi::V3, &schunk_meta_expectations(&path));
}

#[test]
fn reference_3_3_5_frames_read_through_2_23() {
    let corpus = manifest_dir().join("tests").join("corpus");
    let text = std::fs::read_to_string(corpus.join("manifest.json")).expect("read the corpus manifest");
    let manifest: serde_json::Value = serde_json::from_str(&text).expect("parse the corpus manifest");
    let entries = manifest["entries"].as_array().expect("entries");
    let mut read = 0;
    for e in entries {
        let file = e["file"].as_str().unwrap_or_default();
        // Variable-length-block chunks are a 3.x format that 2.23 never wrote.
        if !file.starts_with("frames/") || file.contains("vlblocks") || e["expected"] != "ok" {
            continue;
        }
        let mut args = vec![
            corpus.join(file).display().to_string(),
            e["nchunks"].as_i64().expect("nchunks").to_string(),
            e["nbytes"].as_i64().expect("nbytes").to_string(),
        ];
        if let Some(metas) = e["metalayers"].as_object() {
            for (name, m) in metas {
                args.push(format!("{name}={}", m["content_hex"].as_str().expect("content_hex")));
            }
        }
        run("read_frame", Abi::V2, &args);
        read += 1;
    }
    assert_eq!(read, 22, "frames of tests/corpus read");
}
