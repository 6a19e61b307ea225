//! The codecs and filters C-Blosc2 3.3.5 ships as plugins (BYTEDELTA,
//! INT_TRUNC, NDCELL, NDMEAN, NDLZ, ZFP), and the registry through which
//! users add their own.
//!
//! The chunk pipeline calls four functions here for every filter id or
//! codec id outside the built-in ones: [`filter_forward`],
//! [`filter_backward`], [`codec_encode`] and [`codec_decode`]. The plugins
//! 3.3.5 carries are plain functions on one block; the registry
//! ([`registry`]) holds the names of every id and the callbacks users
//! register.
//!
//! The b2nd-aware plugins (NDCELL, NDMEAN, NDLZ, ZFP) learn the block
//! geometry from the super-chunk's `b2nd` metalayer; each works on one
//! block: filters with `forward`/`backward(src, dst, meta, typesize, b2nd)`,
//! codecs with `compress`/`decompress(src, dst, meta, typesize, b2nd)`.

pub mod bytedelta;
mod bytedelta_sse2;
pub mod int_trunc;
pub mod ndcell;
pub mod ndlz;
pub mod ndmean;
pub mod registry;
pub mod zfp;

use std::any::Any;
use std::sync::Arc;

use crate::engine::b2nd::meta::Meta;
use crate::engine::error::{Error, Result};
use crate::engine::params::CParams;

pub use registry::{register_codec, register_filter, register_tuner, UserCodec, UserFilter, UserTuner};

/// Plugin ids C-Blosc2 3.3.5 defines (`codecs-registry.h`,
/// `filters-registry.h`, `tuners-registry.h`).
pub mod ids {
    /// NDCELL filter.
    pub const FILTER_NDCELL: u8 = 32;
    /// NDMEAN filter.
    pub const FILTER_NDMEAN: u8 = 33;
    /// The first BYTEDELTA, kept for reading (see [`super::bytedelta`]).
    pub const FILTER_BYTEDELTA_BUGGY: u8 = 34;
    /// BYTEDELTA filter.
    pub const FILTER_BYTEDELTA: u8 = 35;
    /// INT_TRUNC filter.
    pub const FILTER_INT_TRUNC: u8 = 36;
    /// NDLZ codec.
    pub const CODEC_NDLZ: u8 = 32;
    /// ZFP, fixed accuracy.
    pub const CODEC_ZFP_FIXED_ACCURACY: u8 = 33;
    /// ZFP, fixed precision.
    pub const CODEC_ZFP_FIXED_PRECISION: u8 = 34;
    /// ZFP, fixed rate.
    pub const CODEC_ZFP_FIXED_RATE: u8 = 35;
    /// OpenHTJ2K (a library 3.3.5 loads at run time).
    pub const CODEC_OPENHTJ2K: u8 = 36;
    /// Grok (loaded at run time).
    pub const CODEC_GROK: u8 = 37;
    /// OpenZL (loaded at run time).
    pub const CODEC_OPENZL: u8 = 38;
    /// J2K (loaded at run time).
    pub const CODEC_J2K: u8 = 39;
    /// HTJ2K (loaded at run time).
    pub const CODEC_HTJ2K: u8 = 40;
    /// BTUNE tuner (loaded at run time).
    pub const TUNER_BTUNE: u8 = 32;
    /// First id of the range users register in.
    pub const USER_START: u8 = 160;
    /// First id of the globally registered (plugin) range.
    pub const GLOBAL_START: u8 = 32;
    /// One past the last filter id 3.3.5 defines in the global range.
    pub const FILTERS_GLOBAL_END: u8 = 37;
}

/// An opaque handle the C layer attaches to a super-chunk, handed back to
/// user callbacks (it becomes their `cparams->schunk` / `dparams->schunk`).
pub type HostRef = Arc<dyn Any + Send + Sync>;

/// What plugins learn about the super-chunk a chunk belongs to: C-Blosc2's
/// plugins read it through `cparams->schunk` / `dparams->schunk`.
#[derive(Clone, Default)]
pub struct PluginEnv {
    /// The super-chunk's parsed `b2nd` metalayer, if it has one.
    pub b2nd: Option<Arc<Meta>>,
    /// The super-chunk's typesize (`schunk->typesize`); `None` outside a
    /// super-chunk.
    pub schunk_typesize: Option<i32>,
    /// What user callbacks get as their super-chunk.
    pub host: Option<HostRef>,
}

impl PluginEnv {
    /// What plugins see of a super-chunk with these metalayers and
    /// typesize. A `b2nd` metalayer that does not parse is as good as
    /// none: the b2nd-aware plugins then refuse to run.
    pub fn of_schunk(metas: &[(String, Vec<u8>)], typesize: i32, host: Option<HostRef>) -> PluginEnv {
        let b2nd = metas
            .iter()
            .find(|(name, _)| name == "b2nd")
            .and_then(|(_, content)| crate::engine::b2nd::meta::deserialize_meta(content).ok())
            .map(|(meta, _)| Arc::new(meta));
        PluginEnv {
            b2nd,
            schunk_typesize: Some(typesize),
            host,
        }
    }
}

impl std::fmt::Debug for PluginEnv {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("PluginEnv")
            .field("b2nd", &self.b2nd)
            .field("schunk_typesize", &self.schunk_typesize)
            .field("host", &self.host.is_some())
            .finish()
    }
}

/// One call of a plugin: what C-Blosc2 passes in the `blosc2_cparams` /
/// `blosc2_dparams` it builds from the context for each block.
#[derive(Clone, Copy)]
pub struct Call<'a> {
    /// The context's typesize (`cparams->typesize`, or the chunk header's
    /// when decompressing).
    pub typesize: i32,
    /// Threads of the context.
    pub nthreads: i16,
    /// The super-chunk, as far as plugins see it.
    pub env: &'a PluginEnv,
    /// The compression parameters, when compressing.
    pub cparams: Option<&'a CParams>,
    /// When compressing, the whole source buffer; when decompressing, the
    /// chunk (the `chunk` argument of codec callbacks).
    pub chunk: &'a [u8],
}

/// An environment with nothing in it (a chunk outside any super-chunk).
pub fn no_env() -> &'static PluginEnv {
    // A constant, not built at first use: a process forked during that
    // first use would find it half-built.
    static EMPTY: PluginEnv = PluginEnv {
        b2nd: None,
        schunk_typesize: None,
        host: None,
    };
    &EMPTY
}

/// True for filter ids the plugin dispatch handles (everything past the
/// built-in range).
pub fn is_plugin_filter(id: u8) -> bool {
    id >= ids::GLOBAL_START
}

/// The `b2nd` metalayer a b2nd-aware plugin needs; C's plugins fail when
/// the super-chunk (or its metalayer) is missing.
fn b2nd_of<'a>(call: &Call<'a>) -> Result<&'a Meta> {
    call.env
        .b2nd
        .as_deref()
        .ok_or(Error::Failure("this plugin needs the b2nd metalayer of a super-chunk"))
}

/// The ZFP mode of codec `compcode` (one of the three ZFP ids).
fn zfp_mode(compcode: u8) -> zfp::Mode {
    match compcode {
        ids::CODEC_ZFP_FIXED_ACCURACY => zfp::Mode::Accuracy,
        ids::CODEC_ZFP_FIXED_PRECISION => zfp::Mode::Precision,
        _ => zfp::Mode::Rate,
    }
}

fn typesize_of(call: &Call<'_>) -> Result<usize> {
    usize::try_from(call.typesize)
        .ok()
        .filter(|&t| t > 0)
        .ok_or(Error::InvalidParam("typesize"))
}

/// The super-chunk's typesize (the context's outside one), as a size:
/// what 3.3.5's decoders of b2nd-aware plugins read.
fn schunk_typesize_of(call: &Call<'_>) -> Result<usize> {
    usize::try_from(call.env.schunk_typesize.unwrap_or(call.typesize))
        .ok()
        .filter(|&t| t > 0)
        .ok_or(Error::InvalidParam("typesize"))
}

/// Run the forward (compression) side of filter `id` over one block.
pub fn filter_forward(id: u8, meta: u8, src: &[u8], dst: &mut [u8], call: &Call<'_>) -> Result<()> {
    match id {
        ids::FILTER_BYTEDELTA => bytedelta::forward(src, dst, bytedelta::width(meta, call.env)?),
        ids::FILTER_BYTEDELTA_BUGGY => bytedelta::forward_buggy(src, dst, bytedelta::width(meta, call.env)?),
        ids::FILTER_INT_TRUNC => int_trunc::forward(src, dst, meta as i8, call.typesize),
        ids::FILTER_NDCELL => ndcell::forward(src, dst, meta, typesize_of(call)?, b2nd_of(call)?),
        ids::FILTER_NDMEAN => ndmean::forward(src, dst, meta, typesize_of(call)?, b2nd_of(call)?),
        _ => registry::user_filter_forward(id, meta, src, dst, call),
    }
}

/// Undo filter `id` over one block.
pub fn filter_backward(id: u8, meta: u8, src: &[u8], dst: &mut [u8], call: &Call<'_>) -> Result<()> {
    match id {
        ids::FILTER_BYTEDELTA => bytedelta::backward(src, dst, bytedelta::width(meta, call.env)?),
        ids::FILTER_BYTEDELTA_BUGGY => bytedelta::backward_buggy(src, dst, bytedelta::width(meta, call.env)?),
        ids::FILTER_INT_TRUNC => {
            // Truncation cannot be undone: the block passes as it is.
            dst.copy_from_slice(src);
            Ok(())
        }
        // 3.3.5's NDCELL and NDMEAN undo with `schunk->typesize`, not the
        // chunk header's (they differ when a chunk of another typesize was
        // appended); NDMEAN reads it as an `int8_t` itself.
        ids::FILTER_NDCELL => ndcell::backward(src, dst, meta, schunk_typesize_of(call)?, b2nd_of(call)?),
        ids::FILTER_NDMEAN => ndmean::backward(src, dst, meta, schunk_typesize_of(call)?, b2nd_of(call)?),
        _ => registry::user_filter_backward(id, meta, src, dst, call),
    }
}

/// Encode one stream with plugin codec `compcode`. Returns the encoded
/// size, 0 when it does not fit in `dst` (the stream is then stored raw).
pub fn codec_encode(compcode: u8, meta: u8, src: &[u8], dst: &mut [u8], call: &Call<'_>) -> Result<usize> {
    match compcode {
        ids::CODEC_NDLZ => ndlz::compress(src, dst, meta, typesize_of(call)?, b2nd_of(call)?),
        ids::CODEC_ZFP_FIXED_ACCURACY | ids::CODEC_ZFP_FIXED_PRECISION | ids::CODEC_ZFP_FIXED_RATE => {
            if call.env.schunk_typesize.is_none() {
                // 3.3.5's ZFP encoders decline without a super-chunk: the
                // block is stored as is.
                return Ok(0);
            }
            zfp::compress(zfp_mode(compcode), src, dst, meta, typesize_of(call)?, b2nd_of(call)?)
        }
        _ => registry::user_codec_encode(compcode, meta, src, dst, call),
    }
}

/// Decode one stream of plugin codec `compcode` into `dst`, which it must
/// fill exactly. Returns the decoded size.
pub fn codec_decode(compcode: u8, meta: u8, src: &[u8], dst: &mut [u8], call: &Call<'_>) -> Result<usize> {
    let n = match compcode {
        // 3.3.5's NDLZ decoder reads the block shape from the stream, not
        // from the super-chunk: NDLZ chunks decode on their own.
        ids::CODEC_NDLZ => ndlz::decompress(src, dst, meta)?,
        ids::CODEC_ZFP_FIXED_ACCURACY | ids::CODEC_ZFP_FIXED_PRECISION | ids::CODEC_ZFP_FIXED_RATE => {
            let b2nd = b2nd_of(call)?;
            // 3.3.5's ZFP decoders take the super-chunk's typesize.
            zfp::decompress(zfp_mode(compcode), src, dst, meta, schunk_typesize_of(call)?, b2nd)?
        }
        _ => registry::user_codec_decode(compcode, meta, src, dst, call)?,
    };
    if n != dst.len() {
        return Err(Error::Data("plugin stream does not decode to the block size"));
    }
    Ok(n)
}
