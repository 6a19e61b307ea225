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
