//! Builds zfp 1.0.1's C library (the sources in `zfp/`, as released) into a
//! static library, the way its own Makefile does: every `src/*.c` file,
//! `include/` on the include path, no OpenMP, no CUDA, the default 64-bit
//! stream word. Optimised at -O3 whatever the profile, so tests decode as
//! fast as a release build.

use std::fs;
use std::path::Path;

fn main() {
    let root = Path::new("zfp");
    let mut sources: Vec<_> = fs::read_dir(root.join("src"))
        .expect("zfp/src")
        .map(|entry| entry.expect("zfp/src entry").path())
        .filter(|path| path.extension().is_some_and(|ext| ext == "c"))
        .collect();
    sources.sort();
    cc::Build::new()
        .files(&sources)
        .include(root.join("include"))
        .std("c99")
        .opt_level(3)
        .define("NDEBUG", None)
        .warnings(false)
        .compile("zfp");
    println!("cargo:rerun-if-changed=zfp");
    println!("cargo:rerun-if-changed=build.rs");
}
