//! What plugins see of a super-chunk: its typesize and its parsed `b2nd`
//! metalayer (C-Blosc2's plugins read both through `cparams->schunk`),
//! plus the handle the C layer gives user callbacks. Kept in the
//! parameters of both contexts and refreshed whenever a metalayer changes.

use super::SChunk;
use crate::engine::plugins::{HostRef, PluginEnv};

impl SChunk {
    /// Recompute the plugin environment from the metalayers.
    pub(crate) fn refresh_plugin_env(&mut self) {
        let env = PluginEnv::of_schunk(&self.metas, self.cparams.typesize, self.cparams.plugins.host.clone());
        self.cctx.cparams.plugins = env.clone();
        self.dctx.dparams.plugins = env.clone();
        self.dparams.plugins = env.clone();
        self.cparams.plugins = env;
    }

    /// Set what user plugin callbacks get as their super-chunk.
    pub fn set_plugin_host(&mut self, host: Option<HostRef>) {
        self.cparams.plugins.host = host;
        self.refresh_plugin_env();
    }

    /// What plugins see of this super-chunk.
    pub fn plugin_env(&self) -> &PluginEnv {
        &self.dparams.plugins
    }
}
