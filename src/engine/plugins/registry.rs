//! The registry of plugin codecs, filters and tuners: every id 3.3.5
//! knows by name, plus what users register (`blosc2_register_codec`,
//! `blosc2_register_filter`, `blosc2_register_tuner`).
//!
//! One process-wide table behind a fork-safe lock (see `ForkSlots`):
//! registration may come from any thread, a lookup (once per block and
//! plugin) clones an `Arc` under the lock, and a process forked while one
//! of its parent's threads was inside goes on with the table as it was
//! before or after that thread's change. Ids and names follow 3.3.5: codecs and filters have
//! separate namespaces, users take 160..=255, the same id and name again is
//! accepted (and changes nothing), another name on a used id is refused.

use std::any::Any;
use std::sync::Arc;

use super::{ids, Call};
use crate::engine::error::{Error, Result};
use crate::engine::threads::fork_lock::ForkSlots;

/// A codec registered from outside the engine (the C layer wraps
/// `blosc2_codec` callbacks in one).
pub trait UserCodec: Send + Sync {
    /// Encode `src` into `dst`; returns the encoded size, 0 when it does
    /// not fit, a negative code on failure.
    fn encode(&self, src: &[u8], dst: &mut [u8], meta: u8, call: &Call<'_>) -> i32;
    /// Decode `src` into `dst`; returns the decoded size or a negative code.
    fn decode(&self, src: &[u8], dst: &mut [u8], meta: u8, call: &Call<'_>) -> i32;
}

/// A filter registered from outside the engine.
pub trait UserFilter: Send + Sync {
    /// Forward pass over one block; 0 on success.
    fn forward(&self, src: &[u8], dst: &mut [u8], meta: u8, id: u8, call: &Call<'_>) -> i32;
    /// Backward pass over one block; 0 on success.
    fn backward(&self, src: &[u8], dst: &mut [u8], meta: u8, id: u8, call: &Call<'_>) -> i32;
}

/// A tuner: the engine only keeps it by id; the C layer, which drives
/// tuners through their callbacks, knows what it holds.
pub type UserTuner = Arc<dyn Any + Send + Sync>;

/// Where the code of a registered id comes from.
enum Imp<T: ?Sized> {
    /// Compiled into this library (the dispatch in `plugins` handles it).
    Builtin,
    /// A library 3.3.5 loads by name when first used.
    Dynamic,
    /// Registered callbacks.
    User(Arc<T>),
}

impl<T: ?Sized> Clone for Imp<T> {
    fn clone(&self) -> Self {
        match self {
            Imp::Builtin => Imp::Builtin,
            Imp::Dynamic => Imp::Dynamic,
            Imp::User(x) => Imp::User(x.clone()),
        }
    }
}

struct Entry<T: ?Sized> {
    id: u8,
    name: String,
    version: u8,
    /// The library number (`complib`) of a codec; the id for others.
    complib: u8,
    imp: Imp<T>,
}

impl<T: ?Sized> Clone for Entry<T> {
    fn clone(&self) -> Self {
        Entry {
            id: self.id,
            name: self.name.clone(),
            version: self.version,
            complib: self.complib,
            imp: self.imp.clone(),
        }
    }
}

/// The ids registered so far.
#[derive(Clone)]
struct Table {
    codecs: Vec<Entry<dyn UserCodec>>,
    filters: Vec<Entry<dyn UserFilter>>,
    tuners: Vec<Entry<dyn Any + Send + Sync>>,
}

/// Loads a library 3.3.5 would load at run time by name (see
/// [`set_loader`]).
pub trait Loader: Send + Sync {
    /// A codec library called `name`.
    fn codec(&self, name: &str) -> Option<Arc<dyn UserCodec>>;
    /// A filter library called `name`.
    fn filter(&self, name: &str) -> Option<Arc<dyn UserFilter>>;
}

/// What 3.3.5 registers at start-up (`register_codecs`, `register_filters`,
/// `register_tuners`).
fn builtin_table() -> Table {
    fn e<T: ?Sized>(id: u8, name: &str, imp: Imp<T>) -> Entry<T> {
        Entry {
            id,
            name: name.to_string(),
            version: 1,
            complib: id,
            imp,
        }
    }
    Table {
        codecs: vec![
            e(ids::CODEC_NDLZ, "ndlz", Imp::Builtin),
            e(ids::CODEC_ZFP_FIXED_ACCURACY, "zfp_acc", Imp::Builtin),
            e(ids::CODEC_ZFP_FIXED_PRECISION, "zfp_prec", Imp::Builtin),
            e(ids::CODEC_ZFP_FIXED_RATE, "zfp_rate", Imp::Builtin),
            e(ids::CODEC_OPENHTJ2K, "openhtj2k", Imp::Dynamic),
            e(ids::CODEC_GROK, "grok", Imp::Dynamic),
            e(ids::CODEC_OPENZL, "openzl", Imp::Dynamic),
            e(ids::CODEC_J2K, "j2k", Imp::Dynamic),
            e(ids::CODEC_HTJ2K, "htj2k", Imp::Dynamic),
        ],
        filters: vec![
            e(ids::FILTER_NDCELL, "ndcell", Imp::Builtin),
            e(ids::FILTER_NDMEAN, "ndmean", Imp::Builtin),
            e(ids::FILTER_BYTEDELTA_BUGGY, "bytedelta_buggy", Imp::Builtin),
            e(ids::FILTER_BYTEDELTA, "bytedelta", Imp::Builtin),
            e(ids::FILTER_INT_TRUNC, "int_trunc", Imp::Builtin),
        ],
        tuners: vec![e(ids::TUNER_BTUNE, "btune", Imp::Dynamic)],
    }
}

impl Default for Table {
    fn default() -> Table {
        builtin_table()
    }
}

/// The registry, and what loads plugin libraries by name.
static TABLE: ForkSlots<Table> = ForkSlots::new();
static LOADER: ForkSlots<Option<Arc<dyn Loader>>> = ForkSlots::new();

/// `look` at the table; None when the table cannot be had (see
/// `ForkSlots::lock`).
fn read<R>(look: impl FnOnce(&Table) -> R) -> Option<R> {
    TABLE.lock_mirrored().map(|t| look(&t))
}

/// Install what loads plugin libraries by name (the C layer's dlopen).
pub fn set_loader(loader: Arc<dyn Loader>) {
    LOADER.change(|slot| *slot = Some(loader.clone()));
}

fn loader() -> Option<Arc<dyn Loader>> {
    LOADER.lock_mirrored().and_then(|l| l.clone())
}

/// Print a diagnostic when `BLOSC_TRACE` is set, as C-Blosc2's
/// `BLOSC_TRACE_ERROR` does.
pub fn trace_error(msg: &str) {
    if std::env::var_os("BLOSC_TRACE").is_some() {
        eprintln!("[error] - {msg} (plugins)");
    }
}

/// Why a registration was refused.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Refusal {
    /// The id is below the user range.
    IdOutOfRange,
    /// The id is taken under another name.
    NameClash,
    /// The table is full (255 entries).
    Full,
}

fn register<T: ?Sized>(list: &mut Vec<Entry<T>>, entry: Entry<T>) -> std::result::Result<(), Refusal> {
    if entry.id < ids::USER_START {
        return Err(Refusal::IdOutOfRange);
    }
    if let Some(old) = list.iter().find(|e| e.id == entry.id) {
        // 3.3.5 keeps the first registration when the name matches.
        return if old.name == entry.name {
            Ok(())
        } else {
            Err(Refusal::NameClash)
        };
    }
    if list.len() >= usize::from(u8::MAX) {
        return Err(Refusal::Full);
    }
    list.push(entry);
    Ok(())
}

/// Register a user codec (`blosc2_register_codec`).
pub fn register_codec(
    id: u8,
    name: &str,
    version: u8,
    complib: u8,
    codec: Arc<dyn UserCodec>,
) -> std::result::Result<(), Refusal> {
    let entry = Entry {
        id,
        name: name.to_string(),
        version,
        complib,
        imp: Imp::User(codec),
    };
    TABLE
        .change(|t| register(&mut t.codecs, entry.clone()))
        .unwrap_or(Err(Refusal::Full))
}

/// Register a user filter (`blosc2_register_filter`).
pub fn register_filter(
    id: u8,
    name: &str,
    version: u8,
    filter: Arc<dyn UserFilter>,
) -> std::result::Result<(), Refusal> {
    let entry = Entry {
        id,
        name: name.to_string(),
        version,
        complib: id,
        imp: Imp::User(filter),
    };
    TABLE
        .change(|t| register(&mut t.filters, entry.clone()))
        .unwrap_or(Err(Refusal::Full))
}

/// Register a user tuner (`blosc2_register_tuner`).
pub fn register_tuner(id: u8, name: &str, tuner: UserTuner) -> std::result::Result<(), Refusal> {
    let entry = Entry {
        id,
        name: name.to_string(),
        version: 1,
        complib: id,
        imp: Imp::User(tuner),
    };
    TABLE
        .change(|t| register(&mut t.tuners, entry.clone()))
        .unwrap_or(Err(Refusal::Full))
}

/// The tuner registered under `id`, if a user registered one.
pub fn tuner(id: u8) -> Option<UserTuner> {
    read(|t| {
        t.tuners.iter().find(|e| e.id == id).and_then(|e| match &e.imp {
            Imp::User(x) => Some(x.clone()),
            _ => None,
        })
    })
    .flatten()
}

/// Name of a tuner id.
pub fn tuner_name(id: u8) -> Option<String> {
    read(|t| t.tuners.iter().find(|e| e.id == id).map(|e| e.name.clone())).flatten()
}

/// Give a tuner 3.3.5 loads at run time (BTUNE) its loaded callbacks.
pub fn fill_tuner(id: u8, tuner: UserTuner) {
    TABLE.change(|t| {
        if let Some(e) = t.tuners.iter_mut().find(|e| e.id == id) {
            e.imp = Imp::User(tuner.clone());
        }
    });
}

/// Whether a tuner id is known (registered or 3.3.5's BTUNE).
pub fn tuner_known(id: u8) -> bool {
    read(|t| t.tuners.iter().any(|e| e.id == id)).unwrap_or(false)
}

/// Name of a plugin codec id.
pub fn codec_name(id: u8) -> Option<String> {
    read(|t| t.codecs.iter().find(|e| e.id == id).map(|e| e.name.clone())).flatten()
}

/// Id of a plugin codec name.
pub fn codec_id(name: &str) -> Option<u8> {
    read(|t| t.codecs.iter().find(|e| e.name == name).map(|e| e.id)).flatten()
}

/// `complib` of a plugin codec name (`blosc2_get_complib_info`).
pub fn codec_complib(name: &str) -> Option<u8> {
    read(|t| t.codecs.iter().find(|e| e.name == name).map(|e| e.complib)).flatten()
}

/// Name of the library number `complib`: the name of the first codec
/// registered with it (`clibcode_to_clibname`).
pub fn complib_name(complib: u8) -> Option<String> {
    read(|t| t.codecs.iter().find(|e| e.complib == complib).map(|e| e.name.clone())).flatten()
}

/// Format version of a plugin codec (written to header byte 1).
pub fn codec_version(id: u8) -> Option<u8> {
    read(|t| t.codecs.iter().find(|e| e.id == id).map(|e| e.version)).flatten()
}

/// Whether a codec id is registered.
pub fn codec_known(id: u8) -> bool {
    read(|t| t.codecs.iter().any(|e| e.id == id)).unwrap_or(false)
}

/// Name of a plugin filter id.
pub fn filter_name(id: u8) -> Option<String> {
    read(|t| t.filters.iter().find(|e| e.id == id).map(|e| e.name.clone())).flatten()
}

/// Whether a filter id is registered.
pub fn filter_known(id: u8) -> bool {
    read(|t| t.filters.iter().any(|e| e.id == id)).unwrap_or(false)
}

/// The callbacks of codec `id`, loading its library the first time when
/// 3.3.5 would.
fn user_codec(id: u8) -> Result<Arc<dyn UserCodec>> {
    let found = read(|t| {
        t.codecs
            .iter()
            .find(|e| e.id == id)
            .map(|e| (e.name.clone(), e.imp.clone()))
    })
    .ok_or(Error::Failure("plugin registry unavailable"))?;
    let Some((name, imp)) = found else {
        trace_error(&format!("User-defined compressor codec {id} not found"));
        return Err(Error::CodecSupport(id));
    };
    match imp {
        Imp::User(c) => Ok(c),
        Imp::Builtin => Err(Error::CodecSupport(id)),
        Imp::Dynamic => {
            let loaded = loader().and_then(|l| l.codec(&name));
            let Some(c) = loaded else {
                trace_error(&format!(
                    "Could not load codec {id}: no plugin library `libblosc2_{name}.so` was found"
                ));
                return Err(Error::CodecSupport(id));
            };
            TABLE.change(|t| {
                if let Some(e) = t.codecs.iter_mut().find(|e| e.id == id) {
                    e.imp = Imp::User(c.clone());
                }
            });
            Ok(c)
        }
    }
}

fn user_filter(id: u8) -> Result<Arc<dyn UserFilter>> {
    let found = read(|t| {
        t.filters
            .iter()
            .find(|e| e.id == id)
            .map(|e| (e.name.clone(), e.imp.clone()))
    })
    .ok_or(Error::Failure("plugin registry unavailable"))?;
    let Some((name, imp)) = found else {
        trace_error(&format!("User-defined filter {id} not found"));
        return Err(Error::FilterPipeline);
    };
    match imp {
        Imp::User(f) => Ok(f),
        Imp::Builtin => Err(Error::FilterPipeline),
        Imp::Dynamic => {
            let Some(f) = loader().and_then(|l| l.filter(&name)) else {
                trace_error(&format!("Could not load filter {id} (`{name}`)"));
                return Err(Error::FilterPipeline);
            };
            Ok(f)
        }
    }
}

/// Forward pass of a registered filter.
pub(super) fn user_filter_forward(id: u8, meta: u8, src: &[u8], dst: &mut [u8], call: &Call<'_>) -> Result<()> {
    let f = user_filter(id)?;
    if f.forward(src, dst, meta, id, call) != 0 {
        trace_error(&format!("User-defined filter {id} failed during compression"));
        return Err(Error::FilterPipeline);
    }
    Ok(())
}

/// Backward pass of a registered filter.
pub(super) fn user_filter_backward(id: u8, meta: u8, src: &[u8], dst: &mut [u8], call: &Call<'_>) -> Result<()> {
    let f = user_filter(id)?;
    if f.backward(src, dst, meta, id, call) != 0 {
        trace_error(&format!("User-defined filter {id} failed during decompression"));
        return Err(Error::FilterPipeline);
    }
    Ok(())
}

/// Encode with a registered codec.
pub(super) fn user_codec_encode(id: u8, meta: u8, src: &[u8], dst: &mut [u8], call: &Call<'_>) -> Result<usize> {
    let c = user_codec(id)?;
    let n = c.encode(src, dst, meta, call);
    if n < 0 {
        trace_error(&format!("User-defined codec {id} failed during compression"));
        return Err(Error::Data("user codec failed"));
    }
    let n = n as usize;
    if n > dst.len() {
        return Err(Error::WriteBuffer);
    }
    Ok(n)
}

/// Decode with a registered codec.
pub(super) fn user_codec_decode(id: u8, meta: u8, src: &[u8], dst: &mut [u8], call: &Call<'_>) -> Result<usize> {
    let c = user_codec(id)?;
    let n = c.decode(src, dst, meta, call);
    usize::try_from(n).map_err(|_| {
        trace_error(&format!("User-defined codec {id} failed during decompression"));
        Error::Data("user codec failed")
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    struct Nop;
    impl UserFilter for Nop {
        fn forward(&self, src: &[u8], dst: &mut [u8], _: u8, _: u8, _: &Call<'_>) -> i32 {
            dst.copy_from_slice(src);
            0
        }
        fn backward(&self, src: &[u8], dst: &mut [u8], _: u8, _: u8, _: &Call<'_>) -> i32 {
            dst.copy_from_slice(src);
            0
        }
    }

    #[test]
    fn filter_ids_and_names_follow_3_3_5() {
        assert_eq!(register_filter(100, "x", 1, Arc::new(Nop)), Err(Refusal::IdOutOfRange));
        assert_eq!(register_filter(250, "engine-test", 1, Arc::new(Nop)), Ok(()));
        assert_eq!(register_filter(250, "engine-test", 1, Arc::new(Nop)), Ok(()));
        assert_eq!(register_filter(250, "other", 1, Arc::new(Nop)), Err(Refusal::NameClash));
        assert_eq!(filter_name(250).as_deref(), Some("engine-test"));
        assert_eq!(filter_name(35).as_deref(), Some("bytedelta"));
        assert_eq!(codec_id("zfp_rate"), Some(35));
        assert_eq!(codec_name(37).as_deref(), Some("grok"));
    }
}
