//! CPU feature detection, done once and cached: placeholder.
