//! The recordio scanner over arbitrary bytes: v2 and legacy parsing, every
//! transformer's decoder, the trailer, seeks and recovery must never
//! panic. Seed the corpus with `tests/recordio/*.rio` and `*.grail-*`.
#![no_main]

use std::io::Cursor;

use blosc2::recordio::{ItemLocation, Scanner, ScannerOpts};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    for recover in [false, true] {
        let opts = ScannerOpts {
            recover,
            legacy_transform: (data.first() == Some(&0x2e)).then(|| "flate".to_string()),
        };
        let Ok(mut s) = Scanner::new(Cursor::new(data.to_vec()), opts) else {
            continue;
        };
        let mut first = None;
        while let Ok(Some(_)) = s.next_item() {
            first = first.or(s.last_location());
        }
        let _ = s.trailer();
        if let Some(loc) = first {
            let _ = s.seek(loc);
            let _ = s.next_item();
        }
        let _ = s.seek(ItemLocation { block: 32768, item: 0 });
        let _ = s.next_item();
    }
});
