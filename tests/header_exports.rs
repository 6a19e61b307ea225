//! Every function the installed headers declare (`include/blosc2.h`,
//! `include/b2nd.h`, `include/blosc2/*.h`) is exported by the built
//! `libblosc2.so`, and a C program taking the address of each one links
//! against it: the headers never promise what the library lacks.
//!
//! Functions still being written would be listed in [`NOT_YET_EXPORTED`]
//! (empty today); the list may only shrink (a listed function that is now
//! exported fails the test until its entry is removed).

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::process::Command;

mod built_lib;
use built_lib::{built_library, profile_dir};

/// Declared by the headers but not exported yet: empty now that the
/// plugin registry and the I/O backends are in. A function added to a
/// header before its implementation goes here, and leaves once exported.
const NOT_YET_EXPORTED: &[&str] = &[];

fn manifest_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// The headers `cmake --install` puts in `P/include`.
fn installed_headers() -> Vec<PathBuf> {
    let inc = manifest_dir().join("include");
    let mut headers = vec![inc.join("blosc2.h"), inc.join("b2nd.h")];
    let mut sub: Vec<PathBuf> = std::fs::read_dir(inc.join("blosc2"))
        .expect("include/blosc2")
        .map(|e| e.expect("dir entry").path())
        .filter(|p| p.extension().is_some_and(|x| x == "h"))
        .collect();
    sub.sort();
    headers.extend(sub);
    headers
}

/// The names of the functions a header declares with `BLOSC_EXPORT`
/// (declarations may span lines; the name is the identifier before the
/// first parenthesis).
fn declared_functions(header: &Path) -> BTreeSet<String> {
    let text = std::fs::read_to_string(header).unwrap_or_else(|e| panic!("{}: {e}", header.display()));
    // Drop comments so that prose mentioning BLOSC_EXPORT is not parsed.
    let mut code = String::with_capacity(text.len());
    let mut rest = text.as_str();
    while let Some(i) = rest.find("/*") {
        code.push_str(&rest[..i]);
        rest = rest[i..].find("*/").map_or("", |j| &rest[i + j + 2..]);
    }
    code.push_str(rest);
    // Drop line comments and preprocessor directives (with their
    // continuation lines): `#define BLOSC_EXPORT ...` is not a function.
    let mut kept = Vec::new();
    let mut in_directive = false;
    for l in code.lines() {
        let l = l.find("//").map_or(l, |i| &l[..i]);
        let directive = in_directive || l.trim_start().starts_with('#');
        in_directive = directive && l.trim_end().ends_with('\\');
        if !directive {
            kept.push(l);
        }
    }
    let code = kept.join("\n");
    code.split("BLOSC_EXPORT")
        .skip(1)
        .filter_map(|decl| {
            let head = &decl[..decl.find(['(', ';'])?];
            if decl[head.len()..].starts_with(';') {
                return None; // a variable
            }
            let head = head.trim_end();
            let start = head
                .rfind(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
                .map_or(0, |i| i + 1);
            let name = &head[start..];
            (!name.is_empty()).then(|| name.to_owned())
        })
        .collect()
}

/// The functions the library exports.
fn exported_functions(lib: &Path) -> BTreeSet<String> {
    let out = Command::new("nm")
        .args(["-D", "--defined-only"])
        .arg(lib)
        .output()
        .expect("running nm");
    assert!(
        out.status.success(),
        "nm failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout)
        .lines()
        .filter_map(|l| {
            let f: Vec<&str> = l.split_whitespace().collect();
            match f.as_slice() {
                [_, "T", name] => Some((*name).to_owned()),
                _ => None,
            }
        })
        .collect()
}

fn all_declared() -> BTreeSet<String> {
    installed_headers().iter().flat_map(|h| declared_functions(h)).collect()
}

#[test]
fn headers_declare_the_3_3_5_api() {
    let declared = all_declared();
    // The 164 functions of 3.3.5 plus the recordio extension.
    assert!(declared.len() >= 164, "only {} declarations parsed", declared.len());
    for name in ["blosc2_compress_ctx", "b2nd_from_cbuffer", "blosc2_register_io_cb"] {
        assert!(declared.contains(name), "{name} not parsed from the headers");
    }
}

#[test]
fn every_declared_function_is_exported() {
    let declared = all_declared();
    let exported = exported_functions(&built_library());
    let waiting: BTreeSet<&str> = NOT_YET_EXPORTED.iter().copied().collect();
    let missing: Vec<&String> = declared
        .iter()
        .filter(|n| !exported.contains(*n) && !waiting.contains(n.as_str()))
        .collect();
    assert!(missing.is_empty(), "declared in include/ but not exported: {missing:?}");
    let done: Vec<&&str> = waiting.iter().filter(|n| exported.contains(**n)).collect();
    assert!(
        done.is_empty(),
        "now exported: remove {done:?} from NOT_YET_EXPORTED in tests/header_exports.rs"
    );
    let undeclared: Vec<&&str> = waiting.iter().filter(|n| !declared.contains(**n)).collect();
    assert!(undeclared.is_empty(), "not declared by any header: {undeclared:?}");
}

/// A C program that takes the address of every exported declared function
/// compiles against the installed headers and links with `-lblosc2`.
#[test]
fn every_declared_function_links() {
    let declared = all_declared();
    let waiting: BTreeSet<&str> = NOT_YET_EXPORTED.iter().copied().collect();
    let names: Vec<&String> = declared.iter().filter(|n| !waiting.contains(n.as_str())).collect();
    let mut src = String::from("#include \"blosc2.h\"\n#include \"b2nd.h\"\n");
    for h in installed_headers().iter().skip(2) {
        let file = h.file_name().and_then(|f| f.to_str()).expect("header name");
        src.push_str(&format!("#include \"blosc2/{file}\"\n"));
    }
    src.push_str("#include <stdio.h>\n\nstatic void (*const table[])(void) = {\n");
    for n in &names {
        src.push_str(&format!("  (void (*)(void))&{n},\n"));
    }
    src.push_str(
        "};\n\nint main(void) {\n  size_t n = sizeof(table) / sizeof(table[0]);\n  \
         for (size_t i = 0; i < n; i++) {\n    if (table[i] == NULL) return 1;\n  }\n  \
         printf(\"%zu\\n\", n);\n  return 0;\n}\n",
    );
    let dir = profile_dir().join(format!("header-exports-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("scratch dir");
    let lib = built_library();
    std::fs::copy(&lib, dir.join("libblosc2.so")).expect("copy libblosc2.so");
    std::fs::copy(&lib, dir.join("libblosc2.so.9")).expect("copy libblosc2.so.9");
    let c = dir.join("all_functions.c");
    std::fs::write(&c, src).expect("write C source");
    let exe = dir.join("all_functions");
    let target = option_env!("BLOSC2_BUILD_TARGET").unwrap_or("x86_64-unknown-linux-gnu");
    let compiler = cc::Build::new()
        .cargo_metadata(false)
        .target(target)
        .host(target)
        .opt_level(0)
        .get_compiler();
    let out = compiler
        .to_command()
        .arg("-std=c11")
        .arg("-Werror=implicit-function-declaration")
        .arg("-I")
        .arg(manifest_dir().join("include"))
        .arg(&c)
        .arg("-o")
        .arg(&exe)
        .arg("-L")
        .arg(&dir)
        .arg("-lblosc2")
        .arg(format!("-Wl,-rpath,{}", dir.display()))
        .arg("-Wl,--no-undefined")
        .output()
        .expect("running the C compiler");
    assert!(
        out.status.success(),
        "linking every declared function failed:\n{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    let run = Command::new(&exe).output().expect("running the program");
    assert!(run.status.success(), "{}", String::from_utf8_lossy(&run.stderr));
    assert_eq!(String::from_utf8_lossy(&run.stdout).trim(), names.len().to_string());
    let _ = std::fs::remove_dir_all(&dir);
}
