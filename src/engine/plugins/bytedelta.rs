//! The BYTEDELTA plugin (C-Blosc2 3.3.5).
