//! Build script: SONAME for the shared library, and `blosc2.h` generated
//! by cbindgen from `src/capi`.
//!
//! The header is written to `$OUT_DIR/blosc2.h`; with the environment
//! variable `BLOSC2_UPDATE_HEADER=1` it is also written to
//! `include/blosc2.h` (the committed copy, checked by `tests/header_drift.rs`).

use std::fs;
use std::path::{Path, PathBuf};

#[path = "src/capi/header/v2.rs"]
mod v2_header;

fn main() {
    // C programs link against libblosc2.so.9, as with C-Blosc2 3.x; the
    // older ABIs (Cargo features) keep their own SONAMEs.
    let abi_v2 = std::env::var_os("CARGO_FEATURE_ABI_V2").is_some();
    let abi_blosc1 = std::env::var_os("CARGO_FEATURE_ABI_BLOSC1").is_some();
    assert!(
        !(abi_v2 && abi_blosc1),
        "features abi-v2 and abi-blosc1 select different libraries: build them one at a time"
    );
    let soname = if abi_v2 {
        "libblosc2.so.7"
    } else if abi_blosc1 {
        "libblosc.so.1"
    } else {
        "libblosc2.so.9"
    };
    if std::env::var("CARGO_CFG_TARGET_OS").as_deref() == Ok("linux") {
        println!("cargo:rustc-cdylib-link-arg=-Wl,-soname,{soname}");
    }
    order_hot_functions();
    link_unwinder_statically();
    println!("cargo:rerun-if-changed=build.rs");
    println!("cargo:rerun-if-changed=cbindgen.toml");
    println!("cargo:rerun-if-changed=src/capi");
    println!("cargo:rerun-if-changed=include/b2nd.h");
    println!("cargo:rerun-if-changed=include/blosc2");
    println!("cargo:rerun-if-env-changed=BLOSC2_UPDATE_HEADER");
    // The C test programs (tests/capi.rs) are compiled for this target.
    if let Ok(target) = std::env::var("TARGET") {
        println!("cargo:rustc-env=BLOSC2_BUILD_TARGET={target}");
    }

    let root = PathBuf::from(std::env::var("CARGO_MANIFEST_DIR").expect("CARGO_MANIFEST_DIR"));
    let out = PathBuf::from(std::env::var("OUT_DIR").expect("OUT_DIR"));
    if abi_blosc1 {
        write_blosc1_hidden(&root.join("src").join("capi"), &out.join("blosc1_hidden.s"));
    }
    let header = generate_header(&root);
    fs::write(out.join("blosc2.h"), &header).expect("write $OUT_DIR/blosc2.h");
    if std::env::var("BLOSC2_UPDATE_HEADER").as_deref() == Ok("1") && !abi_v2 && !abi_blosc1 {
        let dest = root.join("include").join("blosc2.h");
        let old = fs::read_to_string(&dest).unwrap_or_default();
        if old != header {
            fs::write(&dest, &header).expect("write include/blosc2.h");
        }
    }
    // The C-Blosc2 2.23 headers (include/v2), derived from the 3.3 ones.
    let update_v2 = std::env::var("BLOSC2_UPDATE_HEADER").as_deref() == Ok("1") && !abi_blosc1;
    v2_header::write(&header, &root, &out, update_v2);
}

/// Release builds: have the linker put the functions a typical C program
/// runs (tools/link-order/hot-symbols.txt, made by its generate.sh) next to
/// each other, in an output section of their own just before `.text`. The
/// kernel maps a library's pages 64 KiB at a time around each one touched,
/// and scattered over the 2.4 MiB of `.text` these functions touched 20
/// such windows (1,252 KiB resident in the 1 GiB round trip of a C program;
/// C-Blosc2 3.3.5: 492 KiB).
///
/// The list holds glob patterns, not symbol names: a Rust symbol's hash
/// depends on where the source tree is, and ThinLTO's `.llvm.<n>` suffixes
/// change with every edit, so an exact-name list (lld's
/// `--symbol-ordering-file`) lost 25 of 475 functions in another checkout
/// of the same commit. Every function has a section `.text.<symbol>`, or
/// `.text.unlikely.<symbol>` for a cold one (`-ffunction-sections`,
/// rustc's and the cc crate's default), so a linker script whose input
/// patterns are `.text.<pattern>` places them in the list's order whatever
/// the hashes; `INSERT BEFORE .text` keeps the linker's default layout for
/// the rest. A probe link with the same compiler, flags and linker decides
/// whether the linker takes it. Resident code of the round trip: 200 KiB.
fn order_hot_functions() {
    let dir = PathBuf::from(std::env::var("CARGO_MANIFEST_DIR").expect("CARGO_MANIFEST_DIR"))
        .join("tools")
        .join("link-order");
    let list = dir.join("hot-symbols.txt");
    // Kept by hand: what the training cannot see (see the file), first.
    let runtime = dir.join("hot-symbols-runtime.txt");
    println!("cargo:rerun-if-changed={}", list.display());
    println!("cargo:rerun-if-changed={}", runtime.display());
    // generate.sh profiles a build without the order: valgrind attributes
    // code outside `.text` to no object.
    println!("cargo:rerun-if-env-changed=BLOSC2_LINK_ORDER");
    if std::env::var("PROFILE").as_deref() != Ok("release")
        || std::env::var("BLOSC2_LINK_ORDER").as_deref() == Ok("off")
        || !list.is_file()
    {
        return;
    }
    let script = PathBuf::from(std::env::var("OUT_DIR").expect("OUT_DIR")).join("hot-functions.ld");
    let runtime_list = if runtime.is_file() {
        read(&runtime)
    } else {
        String::new()
    };
    let patterns = format!("{runtime_list}\n{}", read(&list));
    fs::write(&script, hot_functions_script(&patterns)).expect("write $OUT_DIR/hot-functions.ld");
    let args = [format!("-Wl,-T,{}", script.display())];
    if linker_takes(&args) {
        for arg in args {
            println!("cargo:rustc-cdylib-link-arg={arg}");
        }
    }
}

/// The linker script placing the sections of the functions `list` names
/// (one glob pattern a line, or an input section description such as
/// `*crtbeginS.o(.text)`; `#` comments) in that order, right after `.init`
/// and `.plt`. The loader runs `.init` first, and the kernel maps the 64 KiB
/// after it with it; lld would put `.plt`, which the C codecs' calls to
/// `memcpy` and every thread-local access (`__tls_get_addr`) pass through,
/// after `.text`, in a window of its own (64 KiB more).
fn hot_functions_script(list: &str) -> String {
    let descriptions: Vec<String> = list
        .lines()
        .map(str::trim)
        .filter(|pattern| !pattern.is_empty() && !pattern.starts_with('#'))
        .map(|pattern| {
            if pattern.contains('(') {
                // Already a description: code of the C runtime, which has
                // no section of its own.
                pattern.to_string()
            } else {
                format!("*(.text.{pattern} .text.unlikely.{pattern})")
            }
        })
        .collect();
    let mut script = String::from("SECTIONS\n{\n  .plt : { *(.plt) }\n  .text.blosc2_hot :\n  {\n");
    for description in &descriptions {
        script.push_str(&format!("    {description}\n"));
    }
    script.push_str("  }\n}\nINSERT BEFORE .text;\n");
    script
}

/// Linux with glibc: link libgcc's unwinder (`libgcc_eh.a`) into the
/// library instead of loading `libgcc_s.so.1` (std refers to `_Unwind_*`
/// for backtraces; with `panic = "abort"` nothing unwinds). Loading one
/// more shared library cost 100 KiB resident in every C program (its
/// headers, relocated data and the 64 KiB of code around its initializer);
/// the unwinder's own code is only read when a backtrace is taken. Listed
/// before the standard library's `-lgcc_s`, it resolves those symbols
/// first, and `--as-needed` then drops `libgcc_s` (from the executables
/// too). Not bundled: a static-library user links as before.
fn link_unwinder_statically() {
    let gnu_linux = std::env::var("CARGO_CFG_TARGET_OS").as_deref() == Ok("linux")
        && std::env::var("CARGO_CFG_TARGET_ENV").as_deref() == Ok("gnu");
    if gnu_linux && linker_takes(&["-Wl,--push-state,-Bstatic,-lgcc_eh,--pop-state".to_string()]) {
        println!("cargo:rustc-link-lib=static:-bundle=gcc_eh");
    }
}

/// Whether rustc links an empty cdylib with the link arguments `args`,
/// given this build's target, flags and linker.
fn linker_takes(args: &[String]) -> bool {
    let out = PathBuf::from(std::env::var("OUT_DIR").expect("OUT_DIR")).join("link_probe");
    if fs::create_dir_all(&out).is_err() || fs::write(out.join("probe.rs"), "").is_err() {
        return false;
    }
    let rustc = std::env::var("RUSTC").unwrap_or_else(|_| "rustc".to_string());
    let mut cmd = std::process::Command::new(rustc);
    cmd.arg("--crate-type=cdylib")
        .arg("--crate-name=link_probe")
        .arg("--out-dir")
        .arg(&out)
        .arg(out.join("probe.rs"));
    if let Ok(target) = std::env::var("TARGET") {
        cmd.arg("--target").arg(target);
    }
    if let Ok(linker) = std::env::var("RUSTC_LINKER") {
        cmd.arg("-C").arg(format!("linker={linker}"));
    }
    if let Ok(flags) = std::env::var("CARGO_ENCODED_RUSTFLAGS") {
        cmd.args(flags.split('\x1f').filter(|f| !f.is_empty()));
    }
    for arg in args {
        cmd.arg("-C").arg(format!("link-arg={arg}"));
    }
    let linked = cmd
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .status()
        .is_ok_and(|s| s.success());
    let _ = fs::remove_dir_all(&out);
    linked
}

/// libblosc.so.1 exports c-blosc 1.21's functions only: write an assembly
/// file (included by `src/capi/blosc1_abi`) that marks every other
/// `#[no_mangle]` function of `capi` hidden. GNU ld refuses a second
/// version script next to rustc's, but honours the hidden visibility.
fn write_blosc1_hidden(capi: &Path, dest: &Path) {
    let mut names = Vec::new();
    collect_exports(capi, &mut names);
    names.sort();
    names.dedup();
    let text: String = names.iter().map(|n| format!(".hidden {n}\n")).collect();
    fs::write(dest, text).expect("write $OUT_DIR/blosc1_hidden.s");
}

/// Names of the `#[no_mangle]` functions under `dir`, except the ones of
/// `blosc1_abi` (and any under a `#[cfg]`, which may not be compiled).
fn collect_exports(dir: &Path, names: &mut Vec<String>) {
    let mut entries: Vec<PathBuf> = fs::read_dir(dir)
        .unwrap_or_else(|e| panic!("reading {}: {e}", dir.display()))
        .map(|e| e.expect("directory entry").path())
        .collect();
    entries.sort();
    for path in entries {
        if path.is_dir() {
            if path.file_name().is_some_and(|n| n != "blosc1_abi") {
                collect_exports(&path, names);
            }
            continue;
        }
        if path.extension().is_none_or(|e| e != "rs") {
            continue;
        }
        let text = read(&path);
        let lines: Vec<&str> = text.lines().map(str::trim).collect();
        for (i, line) in lines.iter().enumerate() {
            if !line.contains("no_mangle]") {
                continue;
            }
            let attrs_above = lines[..i]
                .iter()
                .rev()
                .take_while(|l| l.starts_with("#[") || l.starts_with("///"));
            let attrs_below = lines[i + 1..].iter().take_while(|l| l.starts_with("#["));
            if attrs_above.chain(attrs_below).any(|l| l.starts_with("#[cfg")) {
                continue;
            }
            let Some(decl) = lines[i + 1..].iter().find(|l| l.contains("fn ")) else {
                continue;
            };
            let after = &decl[decl.find("fn ").expect("fn") + 3..];
            let name: String = after
                .chars()
                .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
                .collect();
            names.push(name);
        }
    }
}

fn read(path: &Path) -> String {
    fs::read_to_string(path).unwrap_or_else(|e| panic!("reading {}: {e}", path.display()))
}

/// Run cbindgen on `src/capi` and finish the header text.
fn generate_header(root: &Path) -> String {
    let capi = root.join("src").join("capi");
    let mut config = cbindgen::Config::from_file(root.join("cbindgen.toml")).expect("parse cbindgen.toml");
    config.after_includes = Some(read(&capi.join("header").join("prelude.h")));
    let bindings = cbindgen::Builder::new()
        .with_config(config)
        .with_src(capi.join("mod.rs"))
        .generate()
        .expect("cbindgen failed on src/capi");
    let mut buf = Vec::new();
    bindings.write(&mut buf);
    let text = String::from_utf8(buf).expect("cbindgen output is UTF-8");
    let text = insert_trailer(&text, &read(&capi.join("header").join("trailer.h")));
    let text = tag_struct(&text, "blosc2_metalayer");
    let text = tag_struct(&text, "blosc2_schunk");
    let prototypes = read(&capi.join("header").join("prototypes.h"));
    add_pending_declarations(&text, &prototypes)
}

/// Put `trailer` just before the closing `#endif` of the include guard
/// (cbindgen's own trailer would land after it).
fn insert_trailer(text: &str, trailer: &str) -> String {
    let guard_end = text.rfind("#endif").expect("include guard end");
    format!("{}{}\n{}", &text[..guard_end], trailer, &text[guard_end..])
}

/// `typedef struct { ... } NAME;` -> `typedef struct NAME { ... } NAME;`
/// (3.3.5 declares these two structs with a tag, and clients use it).
fn tag_struct(text: &str, name: &str) -> String {
    let end = format!("}} {name};");
    let Some(end_at) = text.find(&end) else {
        panic!("struct {name} missing from the cbindgen output");
    };
    let open = "typedef struct {";
    let start = text[..end_at]
        .rfind(open)
        .expect("typedef struct before the struct end");
    format!(
        "{}typedef struct {name} {{{}",
        &text[..start],
        &text[start + open.len()..]
    )
}

/// The function name a prototype line declares.
fn declared_name(proto: &str) -> Option<&str> {
    let head = &proto[..proto.find('(')?];
    let start = head
        .rfind(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
        .map_or(0, |i| i + 1);
    Some(&head[start..])
}

/// True when `text` declares a function called `name`.
fn declares(text: &str, name: &str) -> bool {
    let pat = format!("{name}(");
    text.match_indices(&pat)
        .any(|(i, _)| text[..i].chars().next_back().is_some_and(|c| c == ' ' || c == '*'))
}

/// Replace the trailer's marker with the prototypes (b2nd.h's aside) that
/// cbindgen did not emit because src/capi does not export them yet.
fn add_pending_declarations(text: &str, prototypes: &str) -> String {
    const MARKER: &str = "/* @PENDING_DECLARATIONS@ */";
    let (body, _) = text.split_at(text.find(MARKER).expect("pending-declarations marker in the trailer"));
    let mut pending = String::new();
    for line in prototypes.lines().filter(|l| l.starts_with("BLOSC_EXPORT ")) {
        let name = declared_name(line).expect("prototype with a name");
        if name.starts_with("b2nd_") || declares(body, name) {
            continue;
        }
        pending.push_str(line);
        pending.push('\n');
    }
    if pending.ends_with('\n') {
        pending.pop();
    }
    text.replacen(MARKER, &pending, 1)
}
