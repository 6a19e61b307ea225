//! The committed `include/blosc2.h` must be what `build.rs` generates from
//! `src/capi` (refresh it with `BLOSC2_UPDATE_HEADER=1 cargo build`), and
//! the headers must declare every function of the 3.3.5 API.

use std::path::PathBuf;

fn read(path: PathBuf) -> String {
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("reading {}: {e}", path.display()))
}

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// `BLOSC_EXPORT` lines of `src/capi/header/prototypes.h`.
fn prototypes() -> Vec<String> {
    read(root().join("src/capi/header/prototypes.h"))
        .lines()
        .filter(|l| l.starts_with("BLOSC_EXPORT "))
        .map(str::to_owned)
        .collect()
}

fn name_of(proto: &str) -> &str {
    let head = &proto[..proto.find('(').expect("prototype")];
    let start = head
        .rfind(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
        .map_or(0, |i| i + 1);
    &head[start..]
}

/// Number of function declarations of `name` in `text`.
fn declarations(text: &str, name: &str) -> usize {
    let pat = format!("{name}(");
    text.match_indices(&pat)
        .filter(|(i, _)| text[..*i].chars().next_back().is_some_and(|c| c == ' ' || c == '*'))
        .filter(|(i, _)| {
            // Skip calls inside the header's inline functions.
            let line_start = text[..*i].rfind('\n').map_or(0, |p| p + 1);
            let line = &text[line_start..*i];
            !line.contains('=') && !line.contains("return") && !line.trim_start().starts_with("if")
        })
        .count()
}

#[test]
fn committed_header_matches_generated() {
    let generated = read(PathBuf::from(concat!(env!("OUT_DIR"), "/blosc2.h")));
    let committed = read(root().join("include/blosc2.h"));
    assert!(
        generated == committed,
        "include/blosc2.h differs from the header generated from src/capi; \
         run `BLOSC2_UPDATE_HEADER=1 cargo build --lib` and commit the result"
    );
}

#[test]
fn all_164_functions_are_declared_once() {
    let blosc2 = read(root().join("include/blosc2.h"));
    let b2nd = read(root().join("include/b2nd.h"));
    let protos = prototypes();
    assert_eq!(protos.len(), 164);
    for p in &protos {
        let name = name_of(p);
        let (in_main, in_b2nd) = (declarations(&blosc2, name), declarations(&b2nd, name));
        if name.starts_with("b2nd_") {
            assert_eq!((in_main, in_b2nd), (0, 1), "{name} must be declared once, in b2nd.h");
            assert!(
                b2nd.contains(p.as_str()),
                "b2nd.h must carry the 3.3.5 prototype of {name}"
            );
        } else {
            assert_eq!((in_main, in_b2nd), (1, 0), "{name} must be declared once, in blosc2.h");
        }
    }
}

/// Relative paths of the files under `dir`, sorted.
fn files_under(dir: &std::path::Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut todo = vec![dir.to_path_buf()];
    while let Some(d) = todo.pop() {
        for entry in std::fs::read_dir(&d).unwrap_or_else(|e| panic!("reading {}: {e}", d.display())) {
            let path = entry.expect("directory entry").path();
            if path.is_dir() {
                todo.push(path);
            } else {
                out.push(path.strip_prefix(dir).expect("under dir").to_path_buf());
            }
        }
    }
    out.sort();
    out
}

#[test]
fn committed_v2_headers_match_generated() {
    let generated = PathBuf::from(concat!(env!("OUT_DIR"), "/v2"));
    let committed = root().join("include/v2");
    let names = files_under(&generated);
    assert_eq!(
        names,
        files_under(&committed),
        "include/v2 must hold exactly the generated 2.23 headers"
    );
    for name in &names {
        assert!(
            read(generated.join(name)) == read(committed.join(name)),
            "include/v2/{} differs from the header build.rs generates; \
             run `BLOSC2_UPDATE_HEADER=1 cargo build --lib` and commit the result",
            name.display()
        );
    }
}
