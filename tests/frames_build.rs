//! Rebuilding the corpus' in-memory frames with this library, following
//! each entry's recorded operations: `to_cframe()` must give exactly the
//! bytes C-Blosc2 3.3.5 wrote.

mod frames_common;

use blosc2::engine::chunk::{make_special, SpecialKind};
use blosc2::engine::constants::EXTENDED_HEADER_LENGTH;
use blosc2::engine::context::{compress_vec, Context};
use blosc2::engine::frame::format::decode_metalayers;
use blosc2::engine::params::{CParams, DParams};
use blosc2::engine::schunk::{SChunk, Storage};
use frames_common::*;
use serde_json::Value;

fn arr6(v: &Value) -> [u8; 6] {
    let mut a = [0u8; 6];
    for (i, x) in v.as_array().expect("array").iter().enumerate().take(6) {
        a[i] = x.as_u64().expect("u8") as u8;
    }
    a
}

fn cparams_of(p: &Value) -> CParams {
    CParams {
        compcode: p["codec_id"].as_u64().unwrap() as u8,
        clevel: p["clevel"].as_u64().unwrap() as u8,
        typesize: p["typesize"].as_i64().unwrap() as i32,
        filters: arr6(&p["filters_ids"]),
        filters_meta: arr6(&p["filters_meta_u8"]),
        blocksize: p["blocksize_requested"].as_i64().unwrap() as i32,
        splitmode: p["splitmode_id"].as_i64().unwrap() as i32,
        nthreads: p["nthreads"].as_i64().unwrap() as i16,
        use_dict: p["use_dict"].as_bool().unwrap(),
        ..CParams::default()
    }
}

/// python-blosc2's vlmeta cparams: its defaults with typesize 1.
fn python_vlmeta_cparams() -> CParams {
    CParams {
        compcode: 5,
        clevel: 5,
        typesize: 1,
        splitmode: 3,
        nthreads: 1,
        ..CParams::default()
    }
}

fn special_chunk(cp: &CParams, nbytes: i32, kind: &str, value: Option<&[u8]>) -> Vec<u8> {
    let mut out = vec![0u8; EXTENDED_HEADER_LENGTH + 16];
    let k = match kind {
        "zero" => Some(SpecialKind::Zeros),
        "nan" => Some(SpecialKind::Nans),
        "uninit" => Some(SpecialKind::Uninit),
        _ => None,
    };
    let n = make_special(cp, nbytes, k, if k.is_none() { value } else { None }, &mut out).unwrap();
    out.truncate(n);
    out
}

/// Replay an entry's operations; `None` when the entry cannot be replayed
/// (edits whose original data the manifest does not record).
fn rebuild(e: &Value, reference: Option<&[Vec<u8>]>) -> Option<Vec<u8>> {
    let p = &e["params"];
    let fh = &e["frame_header"];
    let mut cp = cparams_of(p);
    let contiguous = !e["container"].as_str().unwrap().contains("sparse");
    if contiguous {
        cp.nthreads = fh["nthreads_comp"].as_i64().unwrap() as i16;
    }
    let dp = DParams {
        nthreads: fh["nthreads_decomp"].as_i64().unwrap() as i16,
        ..DParams::default()
    };
    let mut s = SChunk::new(Storage {
        contiguous,
        urlpath: None,
        cparams: cp.clone(),
        dparams: dp,
        fs: None,
    })
    .unwrap();
    // The metalayers, in the order the reference stored them.
    let orig = std::fs::read(corpus().join(e["file"].as_str().unwrap())).unwrap();
    let hl = i32::from_be_bytes([orig[11], orig[12], orig[13], orig[14]]) as usize;
    for (name, content) in decode_metalayers(&orig[..hl]).unwrap() {
        s.meta_add(&name, &content).unwrap();
    }
    let mut chunks = e["chunks"].as_array().unwrap().clone();
    // `chunks` lists the final order; undo a reordering to get the order
    // the data was appended in.
    if let Some(op) = e["operations"]
        .as_array()
        .unwrap()
        .iter()
        .find(|o| o["op"] == "reorder_offsets")
    {
        let order: Vec<usize> = op["order"]
            .as_array()
            .unwrap()
            .iter()
            .map(|v| v.as_u64().unwrap() as usize)
            .collect();
        let mut orig = chunks.clone();
        for (i, &k) in order.iter().enumerate() {
            orig[k] = chunks[i].clone();
        }
        chunks = orig;
    }
    let mut next = 0usize;
    for op in e["operations"].as_array().unwrap() {
        match op["op"].as_str().unwrap() {
            "append_data" => {
                for _ in 0..op.get("repeat").and_then(Value::as_u64).unwrap_or(1) {
                    match reference {
                        // A chunk later replaced by a special one: its bytes
                        // are gone from the reference, and any regular chunk
                        // of the same size leaves the same frame behind.
                        Some(r) if chunks[next].get("special").is_some() => s.append_chunk(&r[0]).unwrap(),
                        Some(r) => s.append_chunk(&r[next]).unwrap(),
                        None => s.append_buffer(&data(chunks[next].get("data")?)).unwrap(),
                    };
                    next += 1;
                }
            }
            "append_chunk" => {
                let c = match reference {
                    Some(r) => r[next].clone(),
                    None => compress_vec(&cparams_of(&op["chunk_cparams"]), &data(chunks[next].get("data")?)).unwrap(),
                };
                s.append_chunk(&c).unwrap();
                next += 1;
            }
            "append_chunk(vlcompress)" if reference.is_some() => {
                s.append_chunk(&reference?[next]).unwrap();
                next += 1;
            }
            "append_chunk(vlcompress)" => {
                let d = data(chunks[next].get("data")?);
                let mut blocks = Vec::new();
                let mut pos = 0;
                for b in op["vl_block_sizes"].as_array().unwrap() {
                    let n = b.as_u64().unwrap() as usize;
                    blocks.push(&d[pos..pos + n]);
                    pos += n;
                }
                // python-blosc2's vlcompress uses its default filters.
                let mut ctx = Context::compressor(CParams {
                    filters: [0, 0, 0, 0, 0, 1],
                    ..cp.clone()
                });
                let mut out = vec![0u8; d.len() + 64 * blocks.len() + 64];
                let n = ctx.vlcompress(&blocks, &mut out).unwrap();
                out.truncate(n);
                s.append_chunk(&out).unwrap();
                next += 1;
            }
            "reorder_offsets" => {
                let order: Vec<i64> = op["order"]
                    .as_array()
                    .unwrap()
                    .iter()
                    .map(|v| v.as_i64().unwrap())
                    .collect();
                s.reorder_offsets(&order).unwrap();
            }
            "update_special" => {
                let i = op["index"].as_i64().unwrap();
                let kind = op["special"].as_str().unwrap();
                let nbytes = s.chunk_nbytes(i).unwrap();
                let ts = cp.typesize as usize;
                let value = chunks[i as usize]
                    .get("data")
                    .and_then(|d| d["value_hex"].as_str())
                    .map(|h| unhex(h)[..ts].to_vec());
                let c = special_chunk(&cp, nbytes, kind, value.as_deref());
                // The data the chunk held before is not recorded: only the
                // chunk-list storage, whose frame does not keep it, can be
                // replayed.
                if contiguous && reference.is_none() {
                    return None;
                }
                s.update_chunk(i, &c).unwrap();
            }
            "vlmeta_set" => {
                let name = op["name"].as_str().unwrap();
                let content = unhex(e["vlmetalayers"][name]["content_hex"].as_str().unwrap());
                s.vlmeta_add(name, &content, Some(&python_vlmeta_cparams())).unwrap();
            }
            _ => return None,
        }
    }
    Some(s.to_cframe().unwrap())
}

/// The reference's own chunks, in the order they were added.
fn reference_chunks(e: &Value, bytes: &[u8]) -> Option<Vec<Vec<u8>>> {
    let mut s = SChunk::from_cframe(bytes.to_vec(), false).ok()?;
    let mut out: Vec<Vec<u8>> = (0..s.nchunks()).map(|i| s.get_chunk(i).unwrap().into_owned()).collect();
    if let Some(op) = e["operations"]
        .as_array()
        .unwrap()
        .iter()
        .find(|o| o["op"] == "reorder_offsets")
    {
        let order: Vec<usize> = op["order"]
            .as_array()
            .unwrap()
            .iter()
            .map(|v| v.as_u64().unwrap() as usize)
            .collect();
        let mut orig = out.clone();
        for (i, &k) in order.iter().enumerate() {
            orig[k] = out[i].clone();
        }
        out = orig;
    }
    Some(out)
}

fn in_memory_entries() -> Vec<Value> {
    entries()
        .into_iter()
        .filter(|e| e["kind"] == "cframe" && e["container"].as_str().unwrap().contains("in-memory contiguous"))
        .collect()
}

fn first_difference(ours: &[u8], theirs: &[u8]) -> String {
    let at = ours
        .iter()
        .zip(theirs)
        .position(|(a, b)| a != b)
        .unwrap_or(ours.len().min(theirs.len()));
    format!(
        "differs at byte {at} (ours {} bytes, theirs {})",
        ours.len(),
        theirs.len()
    )
}

/// The frame layer alone: replaying the operations with the reference's
/// own chunks gives the reference's bytes exactly.
#[test]
fn frame_structure_is_byte_identical_to_3_3_5() {
    let mut matched = Vec::new();
    let mut failed = Vec::new();
    for e in in_memory_entries() {
        let theirs = std::fs::read(corpus().join(e["file"].as_str().unwrap())).unwrap();
        let id = e["id"].as_str().unwrap().to_string();
        let Some(chunks) = reference_chunks(&e, &theirs) else {
            failed.push(format!("{id}: the reference frame does not open"));
            continue;
        };
        let Some(ours) = rebuild(&e, Some(&chunks)) else {
            continue;
        };
        if ours == theirs {
            matched.push(id);
        } else {
            failed.push(format!("{id}: {}", first_difference(&ours, &theirs)));
        }
    }
    println!("byte-identical: {matched:?}");
    assert!(failed.is_empty(), "not byte-identical:\n{}", failed.join("\n"));
    assert!(matched.len() >= 12, "only {} frames replayed", matched.len());
}

/// Frame and chunk layers together: compressing the manifest's data with
/// the entry's parameters gives the reference's bytes. Entries whose chunk
/// bytes depend on codec output this library does not (yet) reproduce
/// exactly are reported, not failed; these must match.
#[test]
fn rebuilt_frames_are_byte_identical_to_3_3_5() {
    let must_match = [
        "cframe-0001",
        "cframe-0002",
        "cframe-0008",
        "cframe-0009",
        "cframe-0010",
        "cframe-0013",
        "cframe-0014",
        "cframe-0015",
    ];
    let mut report = Vec::new();
    let mut matched = Vec::new();
    let mut pool = in_memory_entries();
    pool.extend(entries().into_iter().filter(|e| e["id"] == "cframe-0017"));
    for e in pool {
        let Some(ours) = rebuild(&e, None) else { continue };
        let theirs = std::fs::read(corpus().join(e["file"].as_str().unwrap())).unwrap();
        let id = e["id"].as_str().unwrap().to_string();
        if ours == theirs {
            matched.push(id);
        } else {
            report.push(format!("{id}: {}", first_difference(&ours, &theirs)));
        }
    }
    println!("byte-identical: {matched:?}\nnot (codec output): {report:#?}");
    for id in must_match {
        assert!(
            matched.iter().any(|m| m == id),
            "{id} is no longer byte-identical: {report:#?}"
        );
    }
}
