//! The C-Blosc2 2.23.1 headers (`include/v2/`), made from the 3.3.5 ones
//! by changing only what differs between the two APIs: the version macros
//! and format constants, the `blosc2_schunk` and `b2nd_array_t` layouts
//! (3.x added `flags2`, `use_dict`, `change_tick` and `last_tick`), the
//! `int64_t` sizes of `blosc2_stdio_mmap`, and the declarations 3.x added.
//! Every edit names the text it replaces and panics when that text is
//! gone, so a change of the 3.3 header cannot silently leak into 2.23's.
//!
//! Included by build.rs (`#[path]`); `tests/header_drift.rs` checks the
//! committed copies.

use std::path::Path;

/// Functions of the 3.3 headers that 2.23.1 does not declare. The library
/// built with `abi-v2` still exports them (extra symbols harm no 2.x
/// program); the 2.23 header just does not offer them.
const ONLY_IN_3X: &[&str] = &[
    "blosc2_vlcompress_ctx",
    "blosc2_vldecompress_ctx",
    "blosc2_vlchunk_get_nblocks",
    "blosc2_vldecompress_block_ctx",
    "blosc2_getitem_bytes_ctx",
    "blosc2_schunk_lock",
    "blosc2_schunk_unlock",
    "blosc2_schunk_refresh",
    "blosc2_schunk_get_vlblock",
    "blosc2_schunk_get_sparse_buffer",
];

/// Same for b2nd.h.
const ONLY_IN_3X_B2ND: &[&str] = &["b2nd_get_sparse_cbuffer", "b2nd_refresh"];

/// The headers under `include/blosc2/` that 2.23 has too (the record-I/O
/// one is 3.x's).
pub const SUBHEADERS: &[&str] = &[
    "blosc2-export.h",
    "blosc2-common.h",
    "blosc2-stdio.h",
    "codecs-registry.h",
    "filters-registry.h",
    "tuners-registry.h",
];

/// `text` with `from` replaced by `to`; `from` must occur exactly once.
fn swap(text: &str, from: &str, to: &str) -> String {
    let n = text.matches(from).count();
    assert!(n == 1, "v2 header: expected one `{from}` in the 3.3 header, found {n}");
    text.replacen(from, to, 1)
}

/// Byte offset of the start of the line holding `at`.
fn line_start(text: &str, at: usize) -> usize {
    text[..at].rfind('\n').map_or(0, |i| i + 1)
}

/// Where the comment block (`/* ... */` or `/** ... */`, possibly several
/// lines) ending on the line just before `start` begins; `start` if none.
fn with_leading_comment(text: &str, start: usize) -> usize {
    let before = &text[..start];
    if !before.trim_end_matches('\n').ends_with("*/") || !before.ends_with("*/\n") {
        return start;
    }
    let open = before.rfind("/*").expect("comment start");
    line_start(text, open)
}

/// Remove the lines from `start` up to and including the line holding
/// `end`.
fn cut(text: &str, start: usize, end: usize) -> String {
    let stop = text[end..].find('\n').map_or(text.len(), |i| end + i + 1);
    format!("{}{}", &text[..start], &text[stop..])
}

/// Remove the declaration of function `name` (single- or multi-line, with
/// `BLOSC_EXPORT` on its own line or not) and its doc comment.
fn remove_function(text: &str, name: &str) -> String {
    let pat = format!("{name}(");
    let at = text
        .match_indices(&pat)
        .map(|(i, _)| i)
        .find(|&i| {
            let ls = line_start(text, i);
            let prev_line = &text[line_start(text, ls.saturating_sub(1))..ls];
            text[..i].ends_with([' ', '*'])
                && (text[ls..].starts_with("BLOSC_EXPORT ") || prev_line == "BLOSC_EXPORT\n")
        })
        .unwrap_or_else(|| panic!("v2 header: no declaration of {name} in the 3.3 header"));
    let mut start = line_start(text, at);
    if !text[start..].starts_with("BLOSC_EXPORT") {
        start = line_start(text, start - 1);
    }
    let end = at + text[at..].find(");").expect("end of the declaration");
    cut(text, with_leading_comment(text, start), end)
}

/// Remove the field declared by the line `decl` (e.g. `uint8_t flags2;`)
/// of the struct that ends with `} name;`, with its doc comment.
fn remove_field(text: &str, name: &str, decl: &str) -> String {
    let struct_end = text.find(&format!("}} {name};")).expect("struct end");
    let line = format!("  {decl}\n");
    let at = text[..struct_end].rfind(&line).expect("field in the struct");
    cut(text, with_leading_comment(text, at), at)
}

/// Remove the `typedef struct { ... } name;` with its doc comment.
fn remove_struct(text: &str, name: &str) -> String {
    let end = text.find(&format!("}} {name};")).expect("struct end");
    let open = text[..end].rfind("typedef struct").expect("struct start");
    cut(text, with_leading_comment(text, open), end)
}

/// Remove the block from the line starting with `head` to the next line
/// that is just `}`, with its leading comment.
fn remove_block(text: &str, head: &str) -> String {
    let at = text.find(&format!("\n{head}")).expect("block start") + 1;
    let end = at + text[at..].find("\n}\n").expect("block end") + 1;
    cut(text, with_leading_comment(text, at), end)
}

/// Collapse the runs of blank lines left by the removals.
fn tidy(text: &str) -> String {
    let mut out = text.to_owned();
    while out.contains("\n\n\n") {
        out = out.replace("\n\n\n", "\n\n");
    }
    out
}

/// `include/v2/blosc2.h` from the generated 3.3 `blosc2.h`.
pub fn blosc2_h(v3: &str) -> String {
    let mut t = swap(
        v3,
        "blosc2.h: the C API of C-Blosc2 3.3.5",
        "blosc2.h: the C API of C-Blosc2 2.23.1",
    );
    t = swap(
        &t,
        "#define BLOSC2_VERSION_MAJOR    3\n#define BLOSC2_VERSION_MINOR    3\n\
         #define BLOSC2_VERSION_RELEASE  5\n#define BLOSC2_VERSION_STRING   \"3.3.5\"\n\
         #define BLOSC2_VERSION_DATE     \"$Date:: 2026-09-24 #$\"\n",
        "#define BLOSC2_VERSION_MAJOR    2\n#define BLOSC2_VERSION_MINOR    23\n\
         #define BLOSC2_VERSION_RELEASE  1\n#define BLOSC2_VERSION_STRING   \"2.23.1\"\n\
         #define BLOSC2_VERSION_DATE     \"$Date:: 2026-03-03 #$\"\n\n\
         /* The maximum number of dimensions for Blosc2 NDim arrays (2.x only). */\n\
         #define BLOSC2_MAX_DIM 8\n",
    );
    // 2.23 writes and knows no variable-length-block chunks or frames.
    t = swap(
        &t,
        "  BLOSC2_VERSION_FORMAT_VL_BLOCKS = 6,\n  BLOSC2_VERSION_FORMAT = BLOSC2_VERSION_FORMAT_VL_BLOCKS,\n",
        "  BLOSC2_VERSION_FORMAT = BLOSC2_VERSION_FORMAT_STABLE,\n",
    );
    t = swap(
        &t,
        "  BLOSC2_VERSION_FRAME_FORMAT_VL_BLOCKS = 3,\n  \
         BLOSC2_VERSION_FRAME_FORMAT = BLOSC2_VERSION_FRAME_FORMAT_VL_BLOCKS,\n",
        "  BLOSC2_VERSION_FRAME_FORMAT = BLOSC2_VERSION_FRAME_FORMAT_RC1,\n",
    );
    t = swap(
        &t,
        "/* Blosc2 header flags (byte 30). */\nenum {\n  BLOSC2_VL_BLOCKS = 0x1,\n};\n\n",
        "",
    );
    t = swap(
        &t,
        "  BLOSC2_MAXDICTSIZE = 32 * 1024,\n  BLOSC2_MINUSEFULDICT = 256,\n",
        "  BLOSC2_MAXDICTSIZE = 128 * 1024,\n",
    );
    t = swap(
        &t,
        " * The library version, \"3.3.5\".\n",
        " * The library version, \"2.23.1\".\n",
    );
    t = swap(&t, "  BLOSC2_CHUNK_BLOSC2_FLAGS2 = 0x1e,\n", "");
    t = swap(&t, "  BLOSC2_ERROR_LOCK = -37,\n", "");
    for decl in ["uint8_t flags2;", "uint8_t use_dict;", "int64_t change_tick;"] {
        t = remove_field(&t, "blosc2_schunk", decl);
    }
    for field in ["initial_mapping_size", "file_size", "mapping_size"] {
        let end = t.find("} blosc2_stdio_mmap;").expect("mmap struct");
        let (head, tail) = t.split_at(end);
        let head = swap(head, &format!("  size_t {field};\n"), &format!("  int64_t {field};\n"));
        t = format!("{head}{tail}");
    }
    t = swap(
        &t,
        "\"r\", ((size_t)1 << 30), false, NULL, NULL, 0, 0, false, NULL, -1, -1, -1",
        "\"r\", (1 << 30), false, NULL, NULL, -1, -1, false, NULL, -1, -1, -1",
    );
    t = remove_struct(&t, "blosc2_stdio_params");
    t = swap(
        &t,
        "static const blosc2_stdio_params BLOSC2_STDIO_PARAMS_DEFAULTS = {false};\n",
        "",
    );
    for name in ONLY_IN_3X {
        t = remove_function(&t, name);
    }
    t = swap(
        &t,
        "BLOSC_EXPORT\nint64_t blosc2_get_slice_nchunks(",
        "BLOSC_EXPORT\nint blosc2_get_slice_nchunks(",
    );
    tidy(&t)
}

/// `include/v2/b2nd.h` from `include/b2nd.h`.
pub fn b2nd_h(v3: &str) -> String {
    let mut t = swap(
        v3,
        "C-Blosc2 3.3.5, implemented in Rust)",
        "C-Blosc2 2.23.1, implemented in Rust)",
    );
    t = remove_field(&t, "b2nd_array_t", "int64_t last_tick;");
    for name in ONLY_IN_3X_B2ND {
        t = remove_function(&t, name);
    }
    t = remove_block(&t, "static inline int b2nd_deserialize_meta_inline(");
    tidy(&t)
}

/// `include/v2/blosc2/<name>` from `include/blosc2/<name>`.
pub fn subheader(name: &str, v3: &str) -> String {
    match name {
        "codecs-registry.h" => {
            let t = swap(v3, "  BLOSC_CODEC_J2K = 39,\n", "");
            swap(&t, "  BLOSC_CODEC_HTJ2K = 40,\n", "")
        }
        "blosc2-stdio.h" => swap(
            v3,
            "blosc2_stdio_file, blosc2_stdio_params, blosc2_stdio_mmap",
            "blosc2_stdio_file, blosc2_stdio_mmap",
        ),
        _ => v3.to_owned(),
    }
}

/// Every 2.23 header as (path under `include/v2/`, text), from the 3.3
/// `blosc2.h` text and the hand-written headers under `root/include`.
pub fn all(blosc2_v3: &str, root: &Path) -> Vec<(String, String)> {
    let read = |rel: &str| {
        let path = root.join("include").join(rel);
        std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("reading {}: {e}", path.display()))
    };
    let mut out = vec![
        ("blosc2.h".to_owned(), blosc2_h(blosc2_v3)),
        ("b2nd.h".to_owned(), b2nd_h(&read("b2nd.h"))),
    ];
    for name in SUBHEADERS {
        out.push((
            format!("blosc2/{name}"),
            subheader(name, &read(&format!("blosc2/{name}"))),
        ));
    }
    out
}

/// Write the 2.23 headers to `$OUT_DIR/v2/` and, with `update`, to the
/// committed `include/v2/` (only the files whose text changed).
pub fn write(blosc2_v3: &str, root: &Path, out: &Path, update: bool) {
    for (rel, text) in all(blosc2_v3, root) {
        let generated = out.join("v2").join(&rel);
        std::fs::create_dir_all(generated.parent().expect("a parent directory")).expect("create $OUT_DIR/v2");
        std::fs::write(&generated, &text).expect("write a header under $OUT_DIR/v2");
        let committed = root.join("include").join("v2").join(&rel);
        if update && std::fs::read_to_string(&committed).ok().as_deref() != Some(text.as_str()) {
            std::fs::create_dir_all(committed.parent().expect("a parent directory")).expect("create include/v2");
            std::fs::write(&committed, &text).expect("write a header under include/v2");
        }
    }
}
