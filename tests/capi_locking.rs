//! Opt-in frame locking through the C ABI: with `BLOSC_LOCKING` set, a
//! disk super-chunk keeps a `.b2lock` sidecar whose generation counter
//! tells other handles (ours or C-Blosc2 3.3.5's) that the frame changed.

use std::ffi::CString;

use blosc2::capi::misc::{blosc2_get_blosc2_cparams_defaults, blosc2_get_blosc2_storage_defaults};
use blosc2::capi::schunk::*;
use blosc2::capi::schunk_frame::*;

#[test]
fn locking_sidecar_and_generations() {
    // This test binary owns its environment.
    std::env::set_var("BLOSC_LOCKING", "1");
    let dir = std::env::temp_dir().join(format!("blosc2-locking-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("locked.b2frame");
    let cpath = CString::new(path.to_str().unwrap()).unwrap();
    let mut cparams = blosc2_get_blosc2_cparams_defaults();
    cparams.typesize = 4;
    let mut storage = blosc2_get_blosc2_storage_defaults();
    storage.contiguous = true;
    storage.urlpath = cpath.as_ptr().cast_mut();
    storage.cparams = &mut cparams;
    let data: Vec<u8> = (0..40_000u32).flat_map(|i| i.to_le_bytes()).collect();
    // SAFETY: valid storage and buffers for the duration of the calls.
    unsafe {
        let a = blosc2_schunk_new(&mut storage);
        assert!(!a.is_null());
        assert_eq!(
            blosc2_schunk_append_buffer(a, data.as_ptr().cast(), data.len() as i32),
            1
        );
        let lock = dir.join("locked.b2frame.b2lock");
        assert!(lock.exists(), "sidecar next to the frame");
        let seq1 = std::fs::read(&lock).unwrap();
        assert_eq!(seq1.len(), 16, "generation counter at byte 8");

        let b = blosc2_schunk_open(cpath.as_ptr());
        assert!(!b.is_null());
        assert_eq!((*b).nchunks, 1);
        assert_eq!(blosc2_schunk_lock(a), 0);
        assert_eq!(blosc2_schunk_lock(a), 0, "nested lock");
        assert_eq!(
            blosc2_schunk_append_buffer(a, data.as_ptr().cast(), data.len() as i32),
            2
        );
        assert_eq!(blosc2_schunk_unlock(a), 0);
        assert_eq!(blosc2_schunk_unlock(a), 0);
        // The other handle sees the change through the counter.
        assert_eq!(
            blosc2_schunk_append_buffer(b, data.as_ptr().cast(), data.len() as i32),
            3
        );
        assert_eq!((*b).nchunks, 3);
        assert_eq!(blosc2_schunk_refresh(a), 1);
        assert_eq!((*a).nchunks, 3);
        let seq2 = std::fs::read(&lock).unwrap();
        assert!(
            u64::from_le_bytes(seq2[8..16].try_into().unwrap()) > u64::from_le_bytes(seq1[8..16].try_into().unwrap())
        );
        assert_eq!(blosc2_schunk_free(a), 0);
        assert_eq!(blosc2_schunk_free(b), 0);
    }
    std::fs::remove_dir_all(&dir).unwrap();
}
