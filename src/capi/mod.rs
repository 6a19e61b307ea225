//! The C ABI of C-Blosc2 3.3 (`include/blosc2.h`).
