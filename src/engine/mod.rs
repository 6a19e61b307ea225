//! The safe engine: everything C-Blosc2 does, without C types or raw pointers.

pub mod chunk;
pub mod codecs;
pub mod constants;
pub mod context;
pub mod cpu;
pub mod error;
pub mod filters;
pub mod frame;
pub mod header;
pub mod params;
pub mod schunk;
pub mod threads;
