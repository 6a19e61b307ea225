//! The `blosc2` command-line tool.

fn main() {
    println!("blosc2 {}", env!("CARGO_PKG_VERSION"));
}
