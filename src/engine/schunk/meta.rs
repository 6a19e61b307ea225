//! Fixed metalayers (in the frame header, fixed size once written) and
//! variable-length metalayers (in the trailer, each stored as a
//! compressed chunk).

use super::{Backend, SChunk};
use crate::engine::chunk;
use crate::engine::constants::MAX_OVERHEAD;
use crate::engine::context::Context;
use crate::engine::error::{Error, Result};
use crate::engine::frame::edit::Edit;
use crate::engine::frame::format::{MAX_METALAYERS, MAX_VLMETALAYERS, METALAYER_NAME_MAXLEN};
use crate::engine::frame::Meta;
use crate::engine::params::CParams;

fn check_name(name: &str) -> Result<()> {
    if name.len() > METALAYER_NAME_MAXLEN {
        return Err(Error::InvalidParam("metalayer names are at most 31 bytes"));
    }
    Ok(())
}

fn find(list: &[Meta], name: &str) -> Option<usize> {
    list.iter().position(|(n, _)| n == name)
}

impl SChunk {
    /// Index of metalayer `name` (`blosc2_meta_exists`).
    pub fn meta_exists(&self, name: &str) -> Result<Option<usize>> {
        check_name(name)?;
        Ok(find(&self.metas, name))
    }

    /// Content of metalayer `name` (`blosc2_meta_get`).
    pub fn meta_get(&self, name: &str) -> Result<Vec<u8>> {
        let i = self.meta_exists(name)?.ok_or(Error::MetalayerNotFound)?;
        Ok(self.metas[i].1.clone())
    }

    /// All metalayers, in order.
    pub fn metalayers(&self) -> &[Meta] {
        &self.metas
    }

    /// Add a metalayer (`blosc2_meta_add`); frames accept new metalayers
    /// only before data is added. Returns its index.
    pub fn meta_add(&mut self, name: &str, content: &[u8]) -> Result<usize> {
        if self.meta_exists(name)?.is_some() {
            return Err(Error::InvalidParam("metalayer already exists"));
        }
        if self.metas.len() >= MAX_METALAYERS {
            return Err(Error::InvalidParam("too many metalayers"));
        }
        i32::try_from(content.len()).map_err(|_| Error::InvalidParam("metalayer too large"))?;
        let mut metas = self.metas.clone();
        metas.push((name.to_string(), content.to_vec()));
        let props = self.props();
        if let Backend::Frame(f) = &mut self.backend {
            if self.cbytes > 0 {
                return Err(Error::InvalidParam("metalayers cannot be added after data"));
            }
            f.apply(Edit::Metas(metas.clone()), &props)?;
            self.cbytes = f.header().cbytes;
        }
        self.metas = metas;
        self.refresh_plugin_env();
        Ok(self.metas.len() - 1)
    }

    /// Overwrite the content of a metalayer (`blosc2_meta_update`). The
    /// new content may not be longer than the old one; a shorter one
    /// replaces only the first bytes, as in 3.3.5. Returns its index.
    pub fn meta_update(&mut self, name: &str, content: &[u8]) -> Result<usize> {
        let i = self.meta_exists(name)?.ok_or(Error::MetalayerNotFound)?;
        if content.len() > self.metas[i].1.len() {
            return Err(Error::InvalidParam("metalayer content cannot grow"));
        }
        let mut metas = self.metas.clone();
        metas[i].1[..content.len()].copy_from_slice(content);
        let props = self.props();
        if let Backend::Frame(f) = &mut self.backend {
            f.apply(Edit::Metas(metas.clone()), &props)?;
        }
        self.metas = metas;
        self.refresh_plugin_env();
        Ok(i)
    }

    /// Index of vlmetalayer `name` (`blosc2_vlmeta_exists`).
    pub fn vlmeta_exists(&self, name: &str) -> Result<Option<usize>> {
        check_name(name)?;
        Ok(find(&self.vlmetas, name))
    }

    /// Names of the vlmetalayers (`blosc2_vlmeta_get_names`).
    pub fn vlmeta_names(&self) -> Vec<String> {
        self.vlmetas.iter().map(|(n, _)| n.clone()).collect()
    }

    /// The stored (compressed) content of vlmetalayer `name`.
    pub fn vlmeta_raw(&self, name: &str) -> Result<&[u8]> {
        let i = self.vlmeta_exists(name)?.ok_or(Error::NotFound)?;
        Ok(&self.vlmetas[i].1)
    }

    /// The decompressed content of vlmetalayer `name` (`blosc2_vlmeta_get`).
    pub fn vlmeta_get(&self, name: &str) -> Result<Vec<u8>> {
        let raw = self.vlmeta_raw(name)?;
        let (nbytes, cbytes, _) = chunk::cbuffer_sizes(raw)?;
        if cbytes as usize != raw.len() || nbytes < 0 {
            return Err(Error::Data("corrupted vlmetalayer"));
        }
        let mut out = vec![0u8; nbytes as usize];
        let mut ctx = Context::decompressor(self.dparams.clone());
        let n = ctx.decompress(raw, &mut out)?;
        if n != out.len() {
            return Err(Error::ReadBuffer);
        }
        Ok(out)
    }

    fn compress_vlmeta(content: &[u8], cparams: Option<&CParams>) -> Result<Vec<u8>> {
        if content.len() > i32::MAX as usize - MAX_OVERHEAD {
            return Err(Error::InvalidParam("vlmetalayer too large"));
        }
        let cp = cparams.cloned().unwrap_or_default();
        let mut ctx = Context::compressor(cp);
        let mut out = vec![0u8; content.len() + MAX_OVERHEAD];
        let n = ctx.compress(content, &mut out)?;
        if n == 0 {
            return Err(Error::WriteBuffer);
        }
        out.truncate(n);
        Ok(out)
    }

    fn set_vlmetas(&mut self, vlmetas: Vec<Meta>) -> Result<()> {
        let props = self.props();
        if let Backend::Frame(f) = &mut self.backend {
            f.apply(Edit::Vlmetas(vlmetas.clone()), &props)?;
            self.cbytes = f.header().cbytes;
        }
        self.vlmetas = vlmetas;
        Ok(())
    }

    /// Add a vlmetalayer, compressing `content` with `cparams` (3.3.5's
    /// defaults when `None`) (`blosc2_vlmeta_add`). Returns its index.
    pub fn vlmeta_add(&mut self, name: &str, content: &[u8], cparams: Option<&CParams>) -> Result<usize> {
        if self.vlmeta_exists(name)?.is_some() {
            return Err(Error::InvalidParam("vlmetalayer already exists"));
        }
        if self.vlmetas.len() >= MAX_VLMETALAYERS {
            return Err(Error::InvalidParam("too many vlmetalayers"));
        }
        let c = SChunk::compress_vlmeta(content, cparams)?;
        let mut v = self.vlmetas.clone();
        v.push((name.to_string(), c));
        self.set_vlmetas(v)?;
        Ok(self.vlmetas.len() - 1)
    }

    /// Replace the content of a vlmetalayer (`blosc2_vlmeta_update`).
    /// Returns its index.
    pub fn vlmeta_update(&mut self, name: &str, content: &[u8], cparams: Option<&CParams>) -> Result<usize> {
        let i = self.vlmeta_exists(name)?.ok_or(Error::NotFound)?;
        let c = SChunk::compress_vlmeta(content, cparams)?;
        let mut v = self.vlmetas.clone();
        v[i].1 = c;
        self.set_vlmetas(v)?;
        Ok(i)
    }

    /// Remove a vlmetalayer (`blosc2_vlmeta_delete`). Returns the number
    /// of vlmetalayers left.
    pub fn vlmeta_delete(&mut self, name: &str) -> Result<usize> {
        let i = self.vlmeta_exists(name)?.ok_or(Error::NotFound)?;
        let mut v = self.vlmetas.clone();
        v.remove(i);
        self.set_vlmetas(v)?;
        Ok(self.vlmetas.len())
    }
}
