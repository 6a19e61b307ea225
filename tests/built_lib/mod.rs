//! Where the library this test run built lives, for the tests that load,
//! link or inspect `libblosc2.so` itself.

use std::path::PathBuf;

/// `target/<profile>`, found from the test executable (`.../deps/<test>-*`).
pub fn profile_dir() -> PathBuf {
    let exe = std::env::current_exe().expect("current_exe");
    exe.parent()
        .and_then(|d| d.parent())
        .expect("target/<profile>")
        .to_path_buf()
}

/// The shared library Cargo built for this run: `deps/libblosc2.so`
/// (Cargo does not always copy it up to `target/<profile>/` for tests),
/// or the newer of the two.
pub fn built_library() -> PathBuf {
    let profile = profile_dir();
    let candidates = [profile.join("deps").join("libblosc2.so"), profile.join("libblosc2.so")];
    candidates
        .iter()
        .filter_map(|p| Some((std::fs::metadata(p).ok()?.modified().ok()?, p.clone())))
        .max_by_key(|(t, _)| *t)
        .map(|(_, p)| p)
        .unwrap_or_else(|| panic!("libblosc2.so not built under {}", profile.display()))
}
