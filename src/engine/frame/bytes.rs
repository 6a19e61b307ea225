//! The bytes behind an in-memory frame: a frame read from a buffer keeps
//! using that buffer (the caller's own memory when the C API lends it,
//! as `blosc2_schunk_from_buffer(copy = false)` does), and only the first
//! edit that changes the chunk data copies the data region out of it.
//! Opening a frame of any size therefore costs its header, offsets and
//! trailer, not a copy of its chunks.

use std::ops::{Deref, Range};
use std::sync::Arc;

/// Bytes someone else owns and keeps alive and unchanged for as long as
/// this value exists (the C API wraps the caller's frame buffer in one).
pub trait LentBytes: Send + Sync {
    /// The bytes.
    fn bytes(&self) -> &[u8];
}

/// The bytes of a whole frame, shared without copying: our own vector, or
/// memory lent to us.
#[derive(Clone)]
pub enum FrameBytes {
    /// A buffer the engine owns.
    Owned(Arc<Vec<u8>>),
    /// A buffer lent by the caller.
    Lent(Arc<dyn LentBytes>),
}

impl FrameBytes {
    /// Bytes the engine owns from now on.
    pub fn owned(v: Vec<u8>) -> FrameBytes {
        FrameBytes::Owned(Arc::new(v))
    }
}

impl Deref for FrameBytes {
    type Target = [u8];
    fn deref(&self) -> &[u8] {
        match self {
            FrameBytes::Owned(v) => v,
            FrameBytes::Lent(b) => b.bytes(),
        }
    }
}

impl std::fmt::Debug for FrameBytes {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let what = match self {
            FrameBytes::Owned(_) => "owned",
            FrameBytes::Lent(_) => "lent",
        };
        write!(f, "FrameBytes({what}, {} bytes)", self.len())
    }
}

/// The chunk data region of an in-memory frame: a window on the bytes it
/// was read from until an edit needs its own copy (copy on write).
#[derive(Default)]
pub(crate) struct DataRegion {
    /// While unedited: the frame's bytes and where the region is in them.
    view: Option<(FrameBytes, Range<usize>)>,
    /// Once edited (or for a frame built here): the region itself.
    owned: Vec<u8>,
}

impl DataRegion {
    /// The region `range` of `bytes`, not copied.
    pub(crate) fn view(bytes: FrameBytes, range: Range<usize>) -> DataRegion {
        DataRegion {
            view: Some((bytes, range)),
            owned: Vec::new(),
        }
    }

    /// The region as a vector to edit, copied out of the frame's bytes on
    /// the first call.
    pub(crate) fn to_mut(&mut self) -> &mut Vec<u8> {
        if let Some((b, r)) = self.view.take() {
            self.owned = b[r].to_vec();
        }
        &mut self.owned
    }

    /// Empty the region (nothing copied).
    pub(crate) fn clear(&mut self) {
        self.view = None;
        self.owned.clear();
    }
}

impl Deref for DataRegion {
    type Target = [u8];
    fn deref(&self) -> &[u8] {
        match &self.view {
            Some((b, r)) => &b[r.clone()],
            None => &self.owned,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    struct Static(&'static [u8]);
    impl LentBytes for Static {
        fn bytes(&self) -> &[u8] {
            self.0
        }
    }

    #[test]
    fn view_copies_only_when_edited() {
        let lent = FrameBytes::Lent(Arc::new(Static(b"hhhhDATAtttt")));
        let mut d = DataRegion::view(lent.clone(), 4..8);
        assert_eq!(&*d, b"DATA");
        d.to_mut().extend_from_slice(b"++");
        assert_eq!(&*d, b"DATA++");
        assert_eq!(&lent[..], b"hhhhDATAtttt");
        assert!(d.view.is_none());
    }
}
