//! Build script: SONAME for the shared library.

fn main() {
    // C programs link against libblosc2.so.9, as with C-Blosc2 3.x.
    if std::env::var("CARGO_CFG_TARGET_OS").as_deref() == Ok("linux") {
        println!("cargo:rustc-cdylib-link-arg=-Wl,-soname,libblosc2.so.9");
    }
    println!("cargo:rerun-if-changed=build.rs");
}
