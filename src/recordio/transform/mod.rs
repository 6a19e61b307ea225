//! Transformers: functions applied to each serialized block before it is
//! stored (compression, encryption ...), and their inverses.
//!
//! A transformer is named in the header by a spec string `"name"` or
//! `"name config"`, split at the first space: `name` is looked up in a
//! process-wide registry and `config` (which may contain more spaces) is
//! handed to the factory. Writers apply a chain `[t0, t1, ...]` in order;
//! scanners undo it in reverse order.
//!
//! Built in: `flate [N]` (raw DEFLATE), `zstd [N]` and `blosc2 [config]`.
//! Users add their own with [`register_transformer`].

mod blosc;
mod flate;
mod zstandard;

use std::collections::BTreeMap;
use std::sync::Arc;

use super::error::{Error, ErrorKind, Result};
use crate::engine::threads::fork_lock::ForkSlots;

pub use blosc::Blosc2Config;

/// A block transformation: the input is a list of byte slices to be read
/// as their concatenation (the block's varint header and items on write,
/// the chunk payloads on read); the output is the transformed block.
pub type TransformFn = Arc<dyn Fn(&[&[u8]]) -> Result<Vec<u8>> + Send + Sync>;

/// Builds a [`TransformFn`] from the config part of a spec string.
pub type TransformerFactory = Arc<dyn Fn(&str) -> Result<TransformFn> + Send + Sync>;

#[derive(Clone)]
struct Entry {
    forward: TransformerFactory,
    inverse: TransformerFactory,
    builtin: bool,
}

/// The registered transformers by name; the built-in ones to start with.
#[derive(Clone)]
struct Table(BTreeMap<String, Entry>);

impl Default for Table {
    fn default() -> Table {
        let mut m = BTreeMap::new();
        let mut add = |name: &str, forward: TransformerFactory, inverse: TransformerFactory| {
            m.insert(
                name.to_owned(),
                Entry {
                    forward,
                    inverse,
                    builtin: true,
                },
            );
        };
        add(flate::NAME, Arc::new(flate::forward), Arc::new(flate::inverse));
        add(
            zstandard::NAME,
            Arc::new(zstandard::forward),
            Arc::new(zstandard::inverse),
        );
        add(blosc::NAME, Arc::new(blosc::forward), Arc::new(blosc::inverse));
        Table(m)
    }
}

/// Process-wide, and fork safe (see `ForkSlots`): a process forked while
/// one of its parent's threads was inside goes on with the registry as it
/// was before or after that thread's change.
static REGISTRY: ForkSlots<Table> = ForkSlots::new();

/// The registry could not be had (see `ForkSlots::lock`).
fn unavailable() -> Error {
    Error::new(ErrorKind::State, "the transformer registry is unavailable")
}

/// Register a transformer under `name` (no spaces): `forward` builds the
/// writer's function from a config string, `inverse` the scanner's. Both
/// factories and the functions they build must be thread safe. A name can
/// be registered once (Go panics; this returns an error).
pub fn register_transformer(name: &str, forward: TransformerFactory, inverse: TransformerFactory) -> Result<()> {
    if name.is_empty() || name.contains(' ') {
        return Err(Error::invalid(format!("invalid transformer name {name:?}")));
    }
    let entry = Entry {
        forward,
        inverse,
        builtin: false,
    };
    REGISTRY
        .change(|reg| {
            if reg.0.contains_key(name) {
                return Err(Error::invalid(format!("transformer {name} already registered")));
            }
            reg.0.insert(name.to_owned(), entry.clone());
            Ok(())
        })
        .unwrap_or_else(|| Err(unavailable()))
}

/// Remove a transformer registered with [`register_transformer`]. The
/// built-in ones cannot be removed.
pub fn unregister_transformer(name: &str) -> Result<()> {
    REGISTRY
        .change(|reg| match reg.0.get(name) {
            None => Err(Error::new(ErrorKind::NotFound, format!("transformer {name} not found"))),
            Some(e) if e.builtin => Err(Error::invalid(format!("transformer {name} is built in"))),
            Some(_) => {
                reg.0.remove(name);
                Ok(())
            }
        })
        .unwrap_or_else(|| Err(unavailable()))
}

/// Names of the registered transformers.
pub fn registered_transformers() -> Vec<String> {
    REGISTRY
        .lock_mirrored()
        .map(|reg| reg.0.keys().cloned().collect())
        .unwrap_or_default()
}

/// Split a spec string at its first space into name and config.
pub fn split_spec(spec: &str) -> (&str, &str) {
    spec.split_once(' ').unwrap_or((spec, ""))
}

fn build(spec: &str, forward: bool) -> Result<TransformFn> {
    let (name, config) = split_spec(spec);
    let factory = {
        let reg = REGISTRY.lock_mirrored().ok_or_else(unavailable)?;
        let e = reg
            .0
            .get(name)
            .ok_or_else(|| Error::new(ErrorKind::NotFound, format!("transformer {spec} not found")))?;
        if forward {
            e.forward.clone()
        } else {
            e.inverse.clone()
        }
    };
    factory(config).map_err(|e| {
        if e.kind() == ErrorKind::Transform || e.kind() == ErrorKind::InvalidArgument {
            Error::new(e.kind(), format!("transformer {spec:?}: {}", e.message()))
        } else {
            e
        }
    })
}

/// A chain of transformations, ready to apply to blocks.
#[derive(Clone, Default)]
pub struct Chain {
    stages: Vec<TransformFn>,
    specs: Vec<String>,
}

impl std::fmt::Debug for Chain {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Chain").field("specs", &self.specs).finish()
    }
}

impl Chain {
    /// The writer's chain for `specs`: `specs[0]` first.
    pub fn forward(specs: &[String]) -> Result<Chain> {
        Ok(Chain {
            stages: specs.iter().map(|s| build(s, true)).collect::<Result<_>>()?,
            specs: specs.to_vec(),
        })
    }

    /// The scanner's chain for `specs` (as listed in the header): the
    /// last transformer is undone first.
    pub fn inverse(specs: &[String]) -> Result<Chain> {
        let mut stages = specs.iter().map(|s| build(s, false)).collect::<Result<Vec<_>>>()?;
        stages.reverse();
        Ok(Chain {
            stages,
            specs: specs.to_vec(),
        })
    }

    /// True when no transformer is configured.
    pub fn is_identity(&self) -> bool {
        self.stages.is_empty()
    }

    /// The specs this chain was built from.
    pub fn specs(&self) -> &[String] {
        &self.specs
    }

    /// Run the chain over the concatenation of `input`.
    pub fn apply(&self, input: &[&[u8]]) -> Result<Vec<u8>> {
        let Some((first, rest)) = self.stages.split_first() else {
            return Ok(input.concat());
        };
        let mut data = first(input).map_err(as_transform_error)?;
        for stage in rest {
            data = stage(&[&data]).map_err(as_transform_error)?;
        }
        Ok(data)
    }
}

fn as_transform_error(e: Error) -> Error {
    match e.kind() {
        ErrorKind::Transform | ErrorKind::NotFound | ErrorKind::Callback => e,
        _ => Error::transform(e.message().to_owned()),
    }
}

/// A `Read` over a list of slices (an iovec), without concatenating them.
pub(crate) struct IovReader<'a> {
    parts: &'a [&'a [u8]],
    pos: usize,
}

impl<'a> IovReader<'a> {
    pub(crate) fn new(parts: &'a [&'a [u8]]) -> IovReader<'a> {
        IovReader { parts, pos: 0 }
    }
}

impl std::io::Read for IovReader<'_> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        while let Some((first, rest)) = self.parts.split_first() {
            if self.pos < first.len() {
                let n = buf.len().min(first.len() - self.pos);
                buf[..n].copy_from_slice(&first[self.pos..self.pos + n]);
                self.pos += n;
                return Ok(n);
            }
            self.parts = rest;
            self.pos = 0;
        }
        Ok(0)
    }
}

/// Parse a Go `strconv.Atoi` integer (optional sign, decimal digits).
pub(crate) fn atoi(s: &str) -> Result<i64> {
    let digits = s.strip_prefix(['+', '-']).unwrap_or(s);
    if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return Err(Error::invalid(format!("invalid integer {s:?}")));
    }
    s.parse::<i64>()
        .map_err(|_| Error::invalid(format!("integer out of range {s:?}")))
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Read;

    #[test]
    fn specs_and_registry() {
        assert_eq!(split_spec("zstd"), ("zstd", ""));
        assert_eq!(
            split_spec("blosc2 codec=lz4 clevel=3"),
            ("blosc2", "codec=lz4 clevel=3")
        );
        let names = registered_transformers();
        for n in ["blosc2", "flate", "zstd"] {
            assert!(names.contains(&n.to_string()));
        }
        let e = Chain::forward(&["nope 3".into()]).unwrap_err();
        assert_eq!(e.kind(), ErrorKind::NotFound);
        assert!(e.message().contains("nope 3"));
        assert!(unregister_transformer("zstd").is_err());
        assert!(register_transformer("zstd", Arc::new(flate::forward), Arc::new(flate::inverse)).is_err());
        assert!(register_transformer("a b", Arc::new(flate::forward), Arc::new(flate::inverse)).is_err());
    }

    #[test]
    fn chains_round_trip() {
        let data: Vec<u8> = (0..200_000u32).map(|i| (i % 97) as u8 ^ (i / 3000) as u8).collect();
        let (a, b) = data.split_at(777);
        for specs in [
            vec![],
            vec!["flate".to_string()],
            vec!["flate 9".into()],
            vec!["flate -2".into()],
            vec!["zstd".into()],
            vec!["zstd 1".into(), "flate 1".into()],
            vec!["flate 1".into(), "zstd 19".into()],
            vec!["blosc2".into()],
            vec![
                "blosc2 codec=lz4,clevel=9,filter=bitshuffle,typesize=4".into(),
                "zstd 3".into(),
            ],
        ] {
            let fwd = Chain::forward(&specs).unwrap();
            let inv = Chain::inverse(&specs).unwrap();
            let t = fwd.apply(&[a, b]).unwrap();
            let (x, y) = t.split_at(t.len() / 2);
            assert_eq!(inv.apply(&[x, y]).unwrap(), data, "{specs:?}");
        }
    }

    #[test]
    fn iov_reader_and_atoi() {
        let parts: [&[u8]; 4] = [b"ab", b"", b"cde", b"f"];
        let mut s = String::new();
        IovReader::new(&parts).read_to_string(&mut s).unwrap();
        assert_eq!(s, "abcdef");
        assert_eq!(atoi("+5").unwrap(), 5);
        assert_eq!(atoi("-1").unwrap(), -1);
        assert!(atoi(" 5").is_err());
        assert!(atoi("").is_err());
        assert!(atoi("5x").is_err());
    }
}
