//! Which process a lock holder belongs to, after `fork()`.
//!
//! A child process starts with one thread, the one that forked, but with
//! every lock word of the parent as the fork caught it: one held by another
//! thread of the parent stays held, and waiting for it would never end.
//! A [`token`] names the calling thread and the process generation it runs
//! in: the number of forks since the library was loaded along this line of
//! processes, counted by a `pthread_atfork` child handler. A lock holder
//! whose token is of an older generation ([`of_this_process`] false) is a
//! thread of an ancestor process, caught inside by the fork: it is not in
//! this process and will never let go.
//!
//! The generation costs two atomic loads; asking the kernel for the pid
//! (`getpid`, no longer cached by glibc) costs about 0.7 us on the VM we
//! measure on, a tenth of a small chunk's decompression.

// pthread_atfork is a C function; its handler only adds to an atomic.
#![allow(unsafe_code)]

use std::cell::Cell;
use std::sync::atomic::{AtomicBool, AtomicU32, Ordering};

/// Forks along this line of processes since the library was loaded.
static FORKS: AtomicU32 = AtomicU32::new(0);

/// Whether the fork counter is registered with `pthread_atfork`.
static COUNTING: AtomicBool = AtomicBool::new(false);

/// Serial numbers handed to threads (0 is never one).
static NEXT_SERIAL: AtomicU32 = AtomicU32::new(1);

thread_local! {
    static SERIAL: Cell<u32> = const { Cell::new(0) };
}

/// Runs in the child of every fork (async-signal-safe: one atomic add).
extern "C" fn count_fork() {
    FORKS.fetch_add(1, Ordering::Relaxed);
}

/// The generation of the calling process (see the module comment).
fn generation() -> u32 {
    if !COUNTING.load(Ordering::Acquire) {
        // Threads racing here may all register: the handler then runs more
        // than once per fork, which still moves the child's generation on.
        // A fork before this returns leaves a child that registers again.
        // SAFETY: pthread_atfork only records the three handler pointers;
        // `count_fork` stays valid while the library is loaded, and glibc
        // drops the handlers of a library when it is unloaded.
        let rc = unsafe { libc::pthread_atfork(None, None, Some(count_fork as unsafe extern "C" fn())) };
        if rc == 0 {
            COUNTING.store(true, Ordering::Release);
        }
    }
    FORKS.load(Ordering::Acquire)
}

/// A non-zero token for the calling thread in this process: its serial
/// number, and the process generation in the high 32 bits. The thread
/// that forks keeps its serial in the child, so a token of its own from
/// before the fork still reads as its own through [`same_thread`].
pub fn token() -> u64 {
    let serial = SERIAL.with(|s| {
        if s.get() == 0 {
            let mut n = NEXT_SERIAL.fetch_add(1, Ordering::Relaxed);
            if n == 0 {
                n = NEXT_SERIAL.fetch_add(1, Ordering::Relaxed);
            }
            s.set(n);
        }
        s.get()
    });
    (u64::from(generation()) << 32) | u64::from(serial)
}

/// Whether `holder` (a [`token`]) names a thread of this process, given
/// `me`, the caller's token.
pub fn of_this_process(holder: u64, me: u64) -> bool {
    holder >> 32 == me >> 32
}

/// Whether `holder` names the caller's own thread, before or after a fork
/// it made.
pub fn same_thread(holder: u64, me: u64) -> bool {
    holder as u32 == me as u32
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tokens_name_threads_of_one_generation() {
        let me = token();
        assert_ne!(me, 0);
        assert_eq!(token(), me);
        let other = std::thread::spawn(token).join().unwrap();
        assert!(!same_thread(other, me));
        assert!(of_this_process(other, me));
        // The same thread as a fork's child sees its token from before.
        let before_fork = me ^ (1 << 32);
        assert!(same_thread(before_fork, me));
        assert!(!of_this_process(before_fork, me));
    }
}
