//! Locks that a forked child never waits on for ever.
//!
//! A `Mutex` held by a thread of the parent when another thread forks
//! stays held in the child: that thread is not there to let go. A
//! [`ForkLock`] puts the holder's [`forks::token`] in front of its mutex.
//! A thread first claims the token word, then takes the mutex (only the
//! token's holder ever does, so it is free then); it lets go of the mutex
//! first, then of the token. So a child that finds the token of an
//! ancestor's thread can tell the two cases apart:
//! - the mutex is free: that thread was outside what the mutex guards
//!   (before taking or after leaving it), which is whole; the child takes
//!   over;
//! - the mutex is held: that thread was inside and may have left it half
//!   changed; [`LockError::Abandoned`], for ever, in this child.
//!
//! [`ForkSlots`] is for process-wide state that a child must keep using
//! even then: when the slot in use is abandoned it moves to the next one,
//! seeded from the mirrors the writers keep (see [`SlotGuard::mirror`]).

use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::{Mutex, MutexGuard, TryLockError};
use std::time::Duration;

use super::forks;

/// Why [`ForkLock::lock`] gave nothing.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LockError {
    /// The calling thread holds it already (a callback calling back in,
    /// or a fork made from inside).
    Reentry,
    /// A thread of an ancestor process was inside when a fork caught it.
    Abandoned,
}

/// A mutex a forked child can always get past (see the module comment).
pub struct ForkLock<T> {
    /// Token of the thread holding the lock, 0 when free.
    holder: AtomicU64,
    /// Taken only by the holder of `holder`.
    value: Mutex<T>,
}

/// Exclusive use of a [`ForkLock`]'s value.
pub struct ForkGuard<'a, T> {
    /// Some until dropped: it must go before the token (see `Drop`).
    value: Option<MutexGuard<'a, T>>,
    holder: &'a AtomicU64,
}

impl<T> ForkLock<T> {
    pub const fn new(value: T) -> ForkLock<T> {
        ForkLock {
            holder: AtomicU64::new(0),
            value: Mutex::new(value),
        }
    }

    /// Take the lock, waiting for another thread of this process to leave.
    pub fn lock(&self) -> Result<ForkGuard<'_, T>, LockError> {
        let me = forks::token();
        let mut waits = 0u32;
        loop {
            match self
                .holder
                .compare_exchange(0, me, Ordering::Acquire, Ordering::Relaxed)
            {
                Ok(_) => {
                    return self.enter().ok_or_else(|| {
                        // Unreachable by the order of taking and leaving;
                        // refused rather than waited on.
                        self.holder.store(0, Ordering::Release);
                        LockError::Abandoned
                    });
                }
                Err(holder) if forks::same_thread(holder, me) => return Err(LockError::Reentry),
                Err(holder) if forks::of_this_process(holder, me) => wait(&mut waits),
                Err(ancestor) => {
                    if self
                        .holder
                        .compare_exchange(ancestor, me, Ordering::Acquire, Ordering::Relaxed)
                        .is_err()
                    {
                        continue;
                    }
                    if let Some(guard) = self.enter() {
                        return Ok(guard);
                    }
                    // Left as the fork found it, for whoever comes next.
                    self.holder.store(ancestor, Ordering::Release);
                    return Err(LockError::Abandoned);
                }
            }
        }
    }

    /// Whether some thread holds it right now (or a fork caught one of an
    /// ancestor inside).
    pub fn is_held(&self) -> bool {
        self.holder.load(Ordering::Acquire) != 0
    }

    /// Take the mutex, holding the token; None when it is held.
    fn enter(&self) -> Option<ForkGuard<'_, T>> {
        let value = match self.value.try_lock() {
            Ok(g) => g,
            Err(TryLockError::Poisoned(p)) => p.into_inner(),
            Err(TryLockError::WouldBlock) => return None,
        };
        Some(ForkGuard {
            value: Some(value),
            holder: &self.holder,
        })
    }
}

/// Wait a moment for a holder of this process: yield first (holders
/// mostly leave within microseconds), then sleep in short steps.
fn wait(waits: &mut u32) {
    if *waits < 64 {
        *waits += 1;
        std::thread::yield_now();
    } else {
        std::thread::sleep(Duration::from_micros(50));
    }
}

impl<T> std::ops::Deref for ForkGuard<'_, T> {
    type Target = T;
    fn deref(&self) -> &T {
        match &self.value {
            Some(v) => v,
            None => unreachable!("a guard's value goes only when it is dropped"),
        }
    }
}

impl<T> std::ops::DerefMut for ForkGuard<'_, T> {
    fn deref_mut(&mut self) -> &mut T {
        match &mut self.value {
            Some(v) => v,
            None => unreachable!("a guard's value goes only when it is dropped"),
        }
    }
}

impl<T> Drop for ForkGuard<'_, T> {
    fn drop(&mut self) {
        // The mutex before the token: a token of an ancestor with the
        // mutex free then means nothing was half done.
        drop(self.value.take());
        self.holder.store(0, Ordering::Release);
    }
}

/// Forks that each catch a thread inside a [`ForkSlots`] before it runs
/// out of slots.
const SLOTS: usize = 8;

/// Process-wide state that a forked child keeps using (see the module
/// comment).
pub struct ForkSlots<T> {
    slots: [ForkLock<Option<T>>; SLOTS],
    /// The slot in use.
    current: AtomicUsize,
    /// What a new slot starts from: copies the writers keep equal to the
    /// slot in use, between their calls. Two, changed one after the other
    /// under the slot's lock, so that a fork catching a writer in one
    /// leaves the other whole (the state before or after that change).
    mirrors: [ForkLock<Option<T>>; 2],
}

/// Exclusive use of the state of a [`ForkSlots`].
pub struct SlotGuard<'a, T> {
    slot: ForkGuard<'a, Option<T>>,
    mirrors: &'a [ForkLock<Option<T>>; 2],
}

impl<T> Default for ForkSlots<T> {
    fn default() -> Self {
        Self::new()
    }
}

impl<T> ForkSlots<T> {
    pub const fn new() -> ForkSlots<T> {
        ForkSlots {
            slots: [const { ForkLock::new(None) }; SLOTS],
            current: AtomicUsize::new(0),
            mirrors: [const { ForkLock::new(None) }; 2],
        }
    }

    /// The state, alone. A slot used for the first time starts as
    /// `seed(mirror)`: the value of a mirror no fork caught a writer in,
    /// None when there is none. None when the caller is already inside,
    /// or when forks that caught a thread inside used up every slot.
    pub fn lock(&self, seed: impl FnOnce(Option<&T>) -> T) -> Option<SlotGuard<'_, T>> {
        loop {
            let at = self.current.load(Ordering::Acquire);
            match self.slots.get(at)?.lock() {
                Ok(mut slot) => {
                    if slot.is_none() {
                        let mirror = self.mirrors[0].lock().or_else(|_| self.mirrors[1].lock());
                        *slot = Some(seed(mirror.as_ref().ok().and_then(|m| m.as_ref())));
                    }
                    return Some(SlotGuard {
                        slot,
                        mirrors: &self.mirrors,
                    });
                }
                Err(LockError::Reentry) => return None,
                Err(LockError::Abandoned) => {
                    let _ = self
                        .current
                        .compare_exchange(at, at + 1, Ordering::AcqRel, Ordering::Acquire);
                }
            }
        }
    }
}

impl<T: Clone + Default> ForkSlots<T> {
    /// [`ForkSlots::lock`] for state its writers change only through
    /// [`ForkSlots::change`]: a new slot starts as a mirror, or empty.
    pub fn lock_mirrored(&self) -> Option<SlotGuard<'_, T>> {
        self.lock(|mirror| mirror.cloned().unwrap_or_default())
    }

    /// Apply `change` to the state, then to its mirrors; what it returned
    /// for the state (None as for [`ForkSlots::lock`]).
    pub fn change<R>(&self, change: impl Fn(&mut T) -> R) -> Option<R> {
        let mut state = self.lock_mirrored()?;
        let r = change(&mut state);
        state.mirror(|m| {
            change(m.get_or_insert_with(T::default));
        });
        Some(r)
    }
}

impl<T> SlotGuard<'_, T> {
    /// Apply the change just made to the state to the mirrors too (a
    /// mirror a fork caught a writer in is left alone).
    pub fn mirror(&self, change: impl Fn(&mut Option<T>)) {
        for mirror in self.mirrors {
            if let Ok(mut m) = mirror.lock() {
                change(&mut m);
            }
        }
    }
}

impl<T: Clone> SlotGuard<'_, T> {
    /// Copy the state to the mirror (for small state).
    pub fn publish(&self) {
        self.mirror(|m| *m = Some((**self).clone()));
    }
}

impl<T> std::ops::Deref for SlotGuard<'_, T> {
    type Target = T;
    fn deref(&self) -> &T {
        match &*self.slot {
            Some(v) => v,
            None => unreachable!("a slot is seeded when first locked"),
        }
    }
}

impl<T> std::ops::DerefMut for SlotGuard<'_, T> {
    fn deref_mut(&mut self) -> &mut T {
        match &mut *self.slot {
            Some(v) => v,
            None => unreachable!("a slot is seeded when first locked"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_lock_serialises_threads_and_refuses_reentry() {
        let lock = ForkLock::new(0u64);
        std::thread::scope(|s| {
            for _ in 0..4 {
                s.spawn(|| {
                    for _ in 0..1000 {
                        *lock.lock().unwrap() += 1;
                    }
                });
            }
        });
        let g = lock.lock().unwrap();
        assert_eq!(*g, 4000);
        assert_eq!(lock.lock().err(), Some(LockError::Reentry));
        drop(g);
        assert!(lock.lock().is_ok());
    }

    /// What a child sees, made by hand: a token of an older generation.
    #[test]
    fn an_ancestors_token_is_taken_over_unless_it_was_inside() {
        let ancestor = (forks::token() ^ (1 << 32)) ^ 0xffff;
        let lock = ForkLock::new(7u8);
        // Caught before taking the mutex, or after leaving it.
        lock.holder.store(ancestor, Ordering::Release);
        assert_eq!(*lock.lock().unwrap(), 7);
        // Caught inside.
        let inside = lock.value.lock().unwrap();
        lock.holder.store(ancestor, Ordering::Release);
        assert_eq!(lock.lock().err(), Some(LockError::Abandoned));
        assert_eq!(lock.holder.load(Ordering::Acquire), ancestor);
        drop(inside);
    }

    #[test]
    fn slots_move_on_from_an_abandoned_slot_seeded_from_the_mirror() {
        let slots: ForkSlots<Vec<u32>> = ForkSlots::new();
        {
            let mut g = slots.lock(|m| m.cloned().unwrap_or_default()).unwrap();
            g.push(1);
            g.mirror(|m| m.get_or_insert_with(Vec::new).push(1));
            assert!(slots.lock(|_| Vec::new()).is_none(), "reentry");
        }
        // A writer caught inside slot 0 and the first mirror, half way
        // through a change.
        let ancestor = (forks::token() ^ (1 << 32)) ^ 0xffff;
        let inside = [&slots.slots[0], &slots.mirrors[0]].map(|lock| {
            let mut g = lock.value.lock().unwrap();
            lock.holder.store(ancestor, Ordering::Release);
            if let Some(v) = &mut *g {
                v.push(2);
            }
            g
        });
        let g = slots.lock(|m| m.cloned().unwrap_or_default()).unwrap();
        assert_eq!(*g, vec![1]);
        assert_eq!(slots.current.load(Ordering::Acquire), 1);
        drop(g);
        drop(inside);
    }
}
