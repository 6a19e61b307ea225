//! The plugin corpus (`tests/corpus/plugins`, written by C-Blosc2 3.3.5
//! with BYTEDELTA, INT_TRUNC, NDCELL, NDMEAN, NDLZ and ZFP; see its
//! README.md) through the C ABI.
//!
//! Read direction: every chunk and b2nd frame decodes to what the
//! reference decodes (whole, `getitem` ranges, super-chunk chunks, b2nd
//! slices). Write direction: every input written with the same parameters
//! declares the same codec, filters and metas, and decodes to the input
//! (lossless) or to the reference's own output (lossy); that the
//! reference reads what we write is checked by `.ci/plugins_interop.py`.
//! The refusal entries are refused, and their controls written.
//!
//! Groups whose plugin is still being written are listed in [`PENDING`]:
//! they run and report, but do not fail the test.

mod plugins_common;

use plugins_common::*;
use serde_json::Value;

/// Plugin groups not implemented yet: run, reported, not asserted.
const PENDING: &[&str] = &[];

fn pending(e: &Value) -> bool {
    PENDING.contains(&group_of(e))
}

/// Run `check` on every entry of `kind` with `direction`; fail on the
/// first failure of a group that is not pending, and print the counts.
fn run(kind: &str, direction: &str, check: impl Fn(&Value) -> Result<(), String>) {
    let mut tally = Tally::default();
    for e in entries() {
        if e["kind"] != kind || !has_direction(&e, direction) {
            continue;
        }
        let r = check(&e);
        let is_pending = pending(&e) || (group_of(&e) == "errors" && control_pending(&e, PENDING));
        tally.add(group_of(&e), r.is_ok());
        match r {
            Ok(()) => {}
            Err(msg) if is_pending => eprintln!("pending {}: {msg}", e["id"]),
            Err(msg) => panic!("{}: {msg}", e["id"]),
        }
    }
    tally.print(&format!("{kind} {direction}"));
    assert!(tally.total() > 0, "no {kind} entries for {direction}");
}

#[test]
fn chunks_read() {
    run("chunk", "read", read_chunk);
}

#[test]
fn b2nd_frames_read() {
    run("b2nd-frame", "read", read_b2nd);
}

#[test]
fn chunks_write() {
    run("chunk", "write", |e| write_chunk(e).map(|_| ()));
}

/// With one thread, the chunks we write are the reference's bytes (the
/// codecs under the plugins write 3.3.5's bytes here: see README.md).
#[test]
fn chunks_write_the_reference_bytes() {
    run("chunk", "write", |e| {
        let ours = write_chunk(e)?;
        let theirs = std::fs::read(corpus().join(e["file"].as_str().unwrap_or(""))).map_err(|x| x.to_string())?;
        if ours == theirs {
            Ok(())
        } else {
            Err(format!("{} bytes, the reference wrote {}", ours.len(), theirs.len()))
        }
    });
}

#[test]
fn b2nd_frames_write() {
    let dir = tempdir("plugins-write");
    run("b2nd-frame", "write", |e| write_b2nd(e, &dir).map(|_| ()));
}

#[test]
fn refusals_are_refused_and_controls_written() {
    let dir = tempdir("plugins-errors");
    run("write-error", "write", |e| write_error(e, &dir));
}

/// A small deterministic generator (xorshift) for the mutations below.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n.max(1) as u64) as usize
    }
}

/// Corrupt plugin streams, wrong metas and lying b2nd metalayers: every
/// plugin chunk and frame of the corpus with bytes flipped (in the
/// streams, the header's codec and filter metas, the frame's metalayer)
/// decodes to an error or to some bytes, never a crash.
#[test]
fn corrupted_plugin_chunks_and_frames_fail_cleanly() {
    let mut rng = Rng(0x9E37_79B9_7F4A_7C15);
    let dir = tempdir("plugins-hostile");
    for e in entries() {
        let Some(file) = e["file"].as_str() else { continue };
        let bytes = std::fs::read(corpus().join(file)).expect("corpus file");
        for round in 0..24 {
            let mut m = bytes.clone();
            let flips = 1 + rng.below(4);
            for _ in 0..flips {
                // Half the flips land in the first 300 bytes: chunk
                // headers (metas at 23..30), frame headers, metalayers.
                let at = if round % 2 == 0 {
                    rng.below(m.len().min(300))
                } else {
                    rng.below(m.len())
                };
                m[at] ^= 1 << rng.below(8);
            }
            if e["kind"] == "chunk" {
                let _ = decode_chunk(&m, std::ptr::null_mut());
            } else {
                let path = dir.join("m.b2nd");
                std::fs::write(&path, &m).expect("write");
                let _ = read_b2nd_file(&e, &path, true);
            }
        }
    }
}
