//! README.md's snippets are the ones CI compiles or runs: a fenced block
//! after `<!-- from FILE -->` must be a verbatim part of FILE (the C, CMake
//! and make snippets come from the consumer projects that
//! `.ci/install_consumers.sh` builds and runs), and the Rust snippet is
//! the body of `readme_rust_example` below.

use std::path::PathBuf;

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn read(rel: &str) -> String {
    let path = root().join(rel);
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("reading {}: {e}", path.display()))
}

/// (source file, snippet) for every `<!-- from FILE -->` block of the README.
fn sourced_snippets() -> Vec<(String, String)> {
    let readme = read("README.md");
    let mut out = Vec::new();
    let mut lines = readme.lines();
    while let Some(line) = lines.next() {
        let Some(rest) = line.trim().strip_prefix("<!-- from ") else {
            continue;
        };
        let file = rest
            .strip_suffix("-->")
            .expect("`<!-- from FILE -->`")
            .trim()
            .to_owned();
        let fence = lines.next().expect("a fenced block after `<!-- from ... -->`");
        assert!(
            fence.starts_with("```"),
            "no fenced block right after `<!-- from {file} -->`"
        );
        let body: Vec<&str> = lines.by_ref().take_while(|l| !l.starts_with("```")).collect();
        out.push((file, body.join("\n")));
    }
    out
}

#[test]
fn readme_snippets_are_parts_of_the_files_ci_builds() {
    let snippets = sourced_snippets();
    for file in [
        "capi-tests/cmake_consumer/CMakeLists.txt",
        "capi-tests/cmake_consumer/main.c",
        "capi-tests/pkgconfig_consumer/Makefile",
        "tests/readme.rs",
    ] {
        assert!(
            snippets.iter().any(|(f, _)| f == file),
            "README has no snippet from {file}"
        );
    }
    for (file, snippet) in &snippets {
        let source = read(file);
        let source = if file.ends_with(".rs") {
            // The Rust snippet is indented by four spaces in the test body.
            source
                .lines()
                .map(|l| l.strip_prefix("    ").unwrap_or(l))
                .collect::<Vec<_>>()
                .join("\n")
        } else {
            source
        };
        assert!(
            source.contains(snippet.as_str()),
            "README's snippet from {file} is not in that file:\n{snippet}"
        );
    }
}

#[test]
fn readme_rust_example() {
    use blosc2::engine::context::{compress_vec, decompress_vec};
    use blosc2::engine::params::CParams;

    let data: Vec<u8> = (0..1_000_000u32).flat_map(|i| i.to_le_bytes()).collect();
    let cparams = CParams {
        typesize: 4,
        ..CParams::default()
    };
    let chunk = compress_vec(&cparams, &data).unwrap();
    assert_eq!(decompress_vec(&chunk).unwrap(), data);
}
