//! The usual recordio pattern: write items through the blosc2 transformer,
//! collect their locations with the index callback, store the index in the
//! trailer, then read the trailer back in constant time and seek to any
//! item.
//!
//! `cargo run --example recordio_index [FILE]` (default: a temporary file).

use std::io::BufReader;
use std::sync::{Arc, Mutex};

use blosc2::recordio::{ItemLocation, Scanner, ScannerOpts, Writer, WriterOpts};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let path = std::env::args()
        .nth(1)
        .unwrap_or_else(|| std::env::temp_dir().join("recordio_index.rio").display().to_string());

    let index = Arc::new(Mutex::new(Vec::<ItemLocation>::new()));
    let sink = index.clone();
    let opts = WriterOpts {
        transformers: vec!["blosc2 codec=zstd,clevel=5,filter=shuffle,typesize=4".into()],
        key_trailer: true,
        max_items: 999, // blocks of 1000 items
        index: Some(Box::new(move |loc, _item| {
            sink.lock().expect("index lock").push(loc);
            Ok(())
        })),
        ..WriterOpts::default()
    };
    let mut w = Writer::new(std::fs::File::create(&path)?, opts)?;
    w.add_header("example", "recordio_index")?;
    for i in 0..10_000u32 {
        let item: Vec<u8> = (0..64u32).flat_map(|j| (i * 64 + j).to_le_bytes()).collect();
        w.append(&item)?;
    }
    w.flush()?;
    // The index: (block offset, item) pairs, 12 bytes each.
    let trailer: Vec<u8> = index
        .lock()
        .expect("index lock")
        .iter()
        .flat_map(|l| l.block.to_le_bytes().into_iter().chain((l.item as u32).to_le_bytes()))
        .collect();
    w.set_trailer(&trailer)?;
    w.finish()?;
    let size = w.bytes_written();
    println!("{path}: 10000 items of 256 bytes in {size} bytes");

    let mut s = Scanner::new(BufReader::new(std::fs::File::open(&path)?), ScannerOpts::default())?;
    let t = s.trailer()?.ok_or("no trailer")?;
    let locs: Vec<ItemLocation> = t
        .chunks_exact(12)
        .map(|c| ItemLocation {
            block: u64::from_le_bytes(c[..8].try_into().expect("8 bytes")),
            item: u32::from_le_bytes(c[8..].try_into().expect("4 bytes")) as usize,
        })
        .collect();
    for i in [7777usize, 0, 4242, 9999] {
        s.seek(locs[i])?;
        let item = s.next_item()?.ok_or("missing item")?;
        let first = u32::from_le_bytes(item[..4].try_into()?);
        println!(
            "item {i}: block {} item {} starts with {first}",
            locs[i].block, locs[i].item
        );
        assert_eq!(first, i as u32 * 64);
    }
    Ok(())
}
