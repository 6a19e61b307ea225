//! The bytes of one chunk of an in-memory super-chunk: a vector the engine
//! owns, or a buffer its owner handed over. C-Blosc2 3.3.5's
//! `blosc2_schunk_append_chunk(copy = false)` (and insert, update) keeps
//! the caller's `malloc`ed chunk as the stored chunk; python-blosc2 appends
//! every chunk so. Copying it into a vector and freeing the original
//! instead leaves holes between the caller's other allocations: 68 MB more
//! peak memory in python-blosc2's 1 GiB round trip.

use std::ops::Deref;

use crate::engine::error::Error;

/// A chunk buffer its owner hands over to a super-chunk: the super-chunk
/// reads it, may shrink it, and releases it when the value is dropped (the
/// chunk replaced or removed, or the super-chunk dropped). The C API wraps
/// a `malloc`ed chunk in one.
pub trait HandedBytes: Send + Sync {
    /// The chunk's bytes.
    fn bytes(&self) -> &[u8];

    /// Keep only the first `len` bytes (`len` at most the current length),
    /// giving the rest of the allocation back.
    fn shrink_to(&mut self, len: usize);

    /// Give the buffer back to whoever handed it over, without releasing
    /// it: an edit that failed leaves the chunk with its owner.
    fn disown(self: Box<Self>);
}

/// An edit that refused a chunk, and the chunk, untouched: a handed-over
/// one is still its owner's (see [`HandedBytes::disown`]).
pub struct Refused {
    /// Why the edit failed.
    pub error: Error,
    /// The chunk.
    pub chunk: StoredChunk,
}

impl Refused {
    /// Give a handed-over chunk back to its owner; the error.
    pub fn give_back(self) -> Error {
        if let StoredChunk::Handed(h) = self.chunk {
            h.disown();
        }
        self.error
    }
}

impl std::fmt::Debug for Refused {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Refused({:?})", self.error)
    }
}

/// One stored chunk of an in-memory super-chunk.
pub enum StoredChunk {
    /// A vector the engine owns.
    Owned(Vec<u8>),
    /// A buffer handed over by its owner.
    Handed(Box<dyn HandedBytes>),
}

impl StoredChunk {
    /// The chunk as it is kept: `cbytes` bytes long. A chunk smaller than
    /// its data may sit in a buffer sized for the data (a caller compresses
    /// into `nbytes + BLOSC2_MAX_OVERHEAD` bytes): 3.3.5 shrinks a handed
    /// one to `cbytes` when `cbytes < nbytes`.
    pub(super) fn settle(self, cbytes: usize, nbytes: i32) -> StoredChunk {
        match self {
            StoredChunk::Owned(mut v) => {
                v.truncate(cbytes);
                v.shrink_to_fit();
                StoredChunk::Owned(v)
            }
            StoredChunk::Handed(mut h) => {
                let smaller = i64::try_from(cbytes).is_ok_and(|cb| cb < i64::from(nbytes));
                if smaller && cbytes < h.bytes().len() {
                    h.shrink_to(cbytes);
                }
                StoredChunk::Handed(h)
            }
        }
    }

    /// The chunk back, refused for `error`.
    pub(super) fn refused(self, error: Error) -> Refused {
        Refused { error, chunk: self }
    }
}

impl Deref for StoredChunk {
    type Target = [u8];
    fn deref(&self) -> &[u8] {
        match self {
            StoredChunk::Owned(v) => v,
            StoredChunk::Handed(h) => h.bytes(),
        }
    }
}

impl From<Vec<u8>> for StoredChunk {
    fn from(v: Vec<u8>) -> StoredChunk {
        StoredChunk::Owned(v)
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use std::sync::atomic::{AtomicUsize, Ordering};
    use std::sync::Arc;

    /// A handed-over buffer that counts how it ends: released (dropped)
    /// or given back.
    pub(crate) struct Counted {
        pub(crate) bytes: Vec<u8>,
        pub(crate) released: Arc<AtomicUsize>,
        pub(crate) given_back: Arc<AtomicUsize>,
        disowned: bool,
    }

    impl Counted {
        pub(crate) fn new(bytes: &[u8]) -> (Box<Counted>, Arc<AtomicUsize>, Arc<AtomicUsize>) {
            let released = Arc::new(AtomicUsize::new(0));
            let given_back = Arc::new(AtomicUsize::new(0));
            let c = Box::new(Counted {
                bytes: bytes.to_vec(),
                released: released.clone(),
                given_back: given_back.clone(),
                disowned: false,
            });
            (c, released, given_back)
        }
    }

    impl HandedBytes for Counted {
        fn bytes(&self) -> &[u8] {
            &self.bytes
        }
        fn shrink_to(&mut self, len: usize) {
            self.bytes.truncate(len);
        }
        fn disown(mut self: Box<Self>) {
            self.given_back.fetch_add(1, Ordering::SeqCst);
            self.disowned = true;
        }
    }

    impl Drop for Counted {
        fn drop(&mut self) {
            if !self.disowned {
                self.released.fetch_add(1, Ordering::SeqCst);
            }
        }
    }

    #[test]
    fn handed_chunk_shrinks_only_when_smaller_than_its_data() {
        let (c, released, _) = Counted::new(&[7u8; 100]);
        let s = StoredChunk::Handed(c).settle(60, 80);
        assert_eq!(s.len(), 60);
        // A chunk larger than its data (memcpyed) stays as it is.
        let s = s.settle(50, 40);
        assert_eq!(s.len(), 60);
        drop(s);
        assert_eq!(released.load(Ordering::SeqCst), 1);
        let v = StoredChunk::from(vec![1u8; 10]).settle(4, 100);
        assert_eq!(&*v, &[1u8; 4]);
    }

    #[test]
    fn refused_chunk_goes_back_unreleased() {
        let (c, released, given_back) = Counted::new(b"chunk");
        let r = StoredChunk::Handed(c).refused(Error::ChunkAppend);
        assert_eq!(&*r.chunk, b"chunk");
        assert_eq!(r.give_back(), Error::ChunkAppend);
        assert_eq!(released.load(Ordering::SeqCst), 0);
        assert_eq!(given_back.load(Ordering::SeqCst), 1);
    }

    /// Count of each kind of outcome so far.
    fn count(c: &Arc<AtomicUsize>) -> usize {
        c.load(Ordering::SeqCst)
    }

    #[test]
    fn super_chunk_keeps_handed_chunks_in_memory_and_releases_each_once() {
        use crate::engine::params::CParams;
        use crate::engine::schunk::{SChunk, Storage};
        let data: Vec<u8> = (0..40_000u32).map(|i| (i / 7) as u8).collect();
        for contiguous in [false, true] {
            let storage = Storage {
                contiguous,
                cparams: CParams {
                    typesize: 4,
                    ..CParams::default()
                },
                ..Storage::default()
            };
            let mut s = SChunk::new(storage).unwrap();
            let c = s.compress_buffer(&data, 0).unwrap();
            // In a buffer sized for the data, as C callers compress.
            let mut padded = c.clone();
            padded.resize(data.len() + 32, 0xee);
            let (a, a_released, _) = Counted::new(&padded);
            let (b, b_released, _) = Counted::new(&padded);
            assert_eq!(s.append_handed(a).unwrap(), 1);
            assert_eq!(s.insert_handed(0, b).unwrap(), 2);
            // A frame copies the chunk in and releases it; a list keeps it,
            // shrunk to the chunk.
            assert_eq!(count(&a_released), usize::from(contiguous));
            assert_eq!(&*s.get_chunk(1).unwrap(), &c[..]);
            assert_eq!(s.decompress_chunk_vec(0).unwrap(), data);
            assert!(s.cbytes() >= 2 * c.len() as i64);

            // Replaced and removed chunks are released once.
            let (u, u_released, _) = Counted::new(&c);
            assert_eq!(s.update_handed(1, u).unwrap(), 2);
            assert_eq!(count(&a_released), 1);
            assert_eq!(s.delete_chunk(0).unwrap(), 1);
            assert_eq!(count(&b_released), 1);

            // Refused chunks come back, unreleased.
            for n in [-1, 5] {
                let (r, r_released, r_back) = Counted::new(&c);
                let refused = if n < 0 {
                    s.update_handed(n, r).unwrap_err()
                } else {
                    s.insert_handed(n, r).unwrap_err()
                };
                refused.give_back();
                assert_eq!((count(&r_released), count(&r_back)), (0, 1));
            }
            let (bad, bad_released, bad_back) = Counted::new(&[1, 2, 3]);
            s.append_handed(bad).unwrap_err().give_back();
            assert_eq!((count(&bad_released), count(&bad_back)), (0, 1));

            assert_eq!(s.decompress_chunk_vec(0).unwrap(), data);
            drop(s);
            assert_eq!(count(&u_released), 1);
        }
    }
}
