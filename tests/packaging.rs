//! The package's paper work: every component linked into the libraries or
//! the tool (the normal dependencies, every feature on) is named, with its
//! licence text, in THIRD-PARTY-NOTICES.md, which CMake installs with
//! LICENSE under share/doc/blosc2.

use std::path::PathBuf;
use std::process::Command;

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

#[test]
fn every_linked_crate_has_its_notice() {
    let notices = std::fs::read_to_string(root().join("THIRD-PARTY-NOTICES.md")).expect("THIRD-PARTY-NOTICES.md");
    let out = Command::new(env!("CARGO"))
        .current_dir(root())
        .args([
            "tree",
            "--locked",
            "-e",
            "normal",
            "--all-features",
            "--prefix",
            "none",
            "-f",
            "{p}",
        ])
        .output()
        .expect("cargo tree");
    assert!(
        out.status.success(),
        "cargo tree: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let tree = String::from_utf8(out.stdout).unwrap();
    let mut missing = Vec::new();
    for line in tree.lines() {
        let mut parts = line.split_whitespace();
        let (Some(name), Some(version)) = (parts.next(), parts.next()) else {
            continue;
        };
        if name == "blosc2" {
            continue;
        }
        let version = version.trim_start_matches('v');
        let row = format!("| {name} | {version} |");
        let text = format!("### {name} {version}");
        if !notices.contains(&row) || !notices.contains(&text) {
            missing.push(format!("{name} {version}"));
        }
    }
    missing.sort();
    missing.dedup();
    assert!(missing.is_empty(), "not in THIRD-PARTY-NOTICES.md: {missing:?}");
    for bundled in ["zstd 1.5.7 (C library)", "libdeflate 1.26 (C library)", "C-Blosc2"] {
        assert!(notices.contains(&format!("### {bundled}")), "{bundled}");
    }
}

#[test]
fn cmake_installs_the_licence_notices_man_page_and_recordio_header() {
    let cmake = std::fs::read_to_string(root().join("CMakeLists.txt")).unwrap();
    for needle in [
        "LICENSE THIRD-PARTY-NOTICES.md README.md CHANGELOG.md DESTINATION \"${CMAKE_INSTALL_DOCDIR}\"",
        "include/blosc2/blosc2-recordio.h",
        "\"${_stage}/blosc2.1\" DESTINATION \"${CMAKE_INSTALL_MANDIR}/man1\"",
        "COMPONENT DEBUG EXCLUDE_FROM_ALL",
    ] {
        assert!(cmake.contains(needle), "CMakeLists.txt lacks {needle}");
    }
    let license = std::fs::read_to_string(root().join("LICENSE")).unwrap();
    assert!(license.starts_with("BSD 3-Clause License"));
    let manifest = std::fs::read_to_string(root().join("Cargo.toml")).unwrap();
    assert!(manifest.contains("license = \"BSD-3-Clause\""));
}

/// build.rs orders the release library's hot functions by the patterns of
/// tools/link-order/hot-symbols.txt; a pattern that kept a symbol's hash,
/// a crate disambiguator or a ThinLTO suffix would match only the build it
/// was made from (another checkout, the next edit), silently.
#[test]
fn link_order_patterns_hold_nothing_build_specific() {
    let list = std::fs::read_to_string(root().join("tools/link-order/hot-symbols.txt")).expect("hot-symbols.txt");
    let mut build_specific = Vec::new();
    for pattern in list
        .lines()
        .map(str::trim)
        .filter(|p| !p.is_empty() && !p.starts_with('#'))
    {
        let legacy_hash = pattern.starts_with("_ZN") && !pattern.ends_with("17h*");
        // v0: a crate's disambiguator is `Cs<base62>_`, kept as `Cs*_`.
        let crate_hash = pattern.starts_with("_R")
            && pattern.match_indices("Cs").any(|(at, _)| {
                let run: String = pattern[at + 2..]
                    .chars()
                    .take_while(char::is_ascii_alphanumeric)
                    .collect();
                !run.is_empty() && pattern[at + 2 + run.len()..].starts_with('_')
            });
        if legacy_hash || crate_hash || pattern.contains(".llvm.") {
            build_specific.push(pattern.to_string());
        }
    }
    assert!(
        build_specific.is_empty(),
        "regenerate with tools/link-order/generate.sh: {build_specific:?}"
    );
}
