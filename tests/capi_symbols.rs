//! The shared library exports exactly Blosc API symbols (names of the
//! 3.3.5 API, nothing from the Rust runtime or bundled codecs) and has the
//! SONAME of C-Blosc2 3.x.

use std::collections::BTreeSet;
use std::path::PathBuf;
use std::process::Command;

mod built_lib;
use built_lib::built_library;

/// Names of the 164 functions of the 3.3.5 API.
fn api_names() -> BTreeSet<String> {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("src/capi/header/prototypes.h");
    let text = std::fs::read_to_string(&path).expect("prototypes.h");
    text.lines()
        .filter(|l| l.starts_with("BLOSC_EXPORT "))
        .map(|l| {
            let head = &l[..l.find('(').expect("prototype")];
            let start = head
                .rfind(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
                .map_or(0, |i| i + 1);
            head[start..].to_owned()
        })
        .collect()
}

/// Names of the recordio functions declared in
/// `include/blosc2/blosc2-recordio.h` (an extension of the 3.3.5 API).
fn recordio_names() -> BTreeSet<String> {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("include/blosc2/blosc2-recordio.h");
    let text = std::fs::read_to_string(&path).expect("blosc2-recordio.h");
    let names: BTreeSet<String> = text
        .split("BLOSC_EXPORT ")
        .skip(1)
        .map(|decl| {
            let head = &decl[..decl.find('(').expect("prototype")];
            let start = head
                .rfind(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
                .map_or(0, |i| i + 1);
            head[start..].to_owned()
        })
        .collect();
    assert!(names.iter().all(|n| n.starts_with("blosc2_recordio_")), "{names:?}");
    names
}

#[test]
fn only_api_symbols_are_exported() {
    let lib = built_library();
    let out = Command::new("nm")
        .args(["-D", "--defined-only"])
        .arg(&lib)
        .output()
        .expect("running nm");
    assert!(
        out.status.success(),
        "nm failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let mut allowed = api_names();
    assert_eq!(allowed.len(), 164);
    let recordio = recordio_names();
    allowed.extend(recordio.iter().cloned());
    let mut exported = Vec::new();
    let mut stray = Vec::new();
    for line in String::from_utf8_lossy(&out.stdout).lines() {
        let fields: Vec<&str> = line.split_whitespace().collect();
        let (kind, name) = match fields.as_slice() {
            [_, kind, name] => (*kind, *name),
            [kind, name] => (*kind, *name),
            _ => continue,
        };
        if kind == "T" && allowed.contains(name) {
            exported.push(name.to_owned());
        } else {
            stray.push(format!("{kind} {name}"));
        }
    }
    assert!(
        stray.is_empty(),
        "symbols outside the Blosc API are exported: {stray:?}"
    );
    assert!(exported.len() >= 60, "only {} API functions exported", exported.len());
    let missing: Vec<&String> = recordio.iter().filter(|n| !exported.contains(n)).collect();
    assert!(
        missing.is_empty(),
        "recordio functions declared but not exported: {missing:?}"
    );
}

#[test]
fn soname_is_libblosc2_so_9() {
    let lib = built_library();
    let out = Command::new("objdump")
        .arg("-p")
        .arg(&lib)
        .output()
        .expect("running objdump");
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.lines()
            .any(|l| l.contains("SONAME") && l.trim_end().ends_with("libblosc2.so.9")),
        "no SONAME libblosc2.so.9"
    );
}
