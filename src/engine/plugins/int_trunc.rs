//! The INT_TRUNC plugin (C-Blosc2 3.3.5).
