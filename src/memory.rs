//! Memory accounting and the hard edge of the memory limit. RustPython has none of its own, and growth to
//! exhaustion would end in the allocator's abort path.
//!
//! A session process's VM thread counts every allocation it makes on `SESSION` (from the zygote on, so the
//! count includes the prepared VM); the monitor thread polls it and stops the code with MemoryError when
//! it passes the limit. Polling cannot stop a single native operation (`[None] * 10**9`), so while a run
//! goes on the budget also has a ceiling above the limit: a large request that would pass it is refused.
//! The VM makes its big allocations fallibly and turns a refusal into MemoryError; a refusal on a path that
//! cannot fail aborts, which ends the session process, and the host rolls the session back. Either way the
//! failure is noted first, so the report of an abort that follows says it was memory.
//!
//! In the host process nothing is counted (no thread points at a budget).

use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;
use std::ptr;
use std::sync::atomic::{AtomicIsize, Ordering};

pub struct CountingAllocator;

/// The budget of the session process's VM thread (unused in the host process).
pub static SESSION: Budget = Budget::new();

/// What a session's VM holds, and the ceiling no large request may pass while a job runs.
pub struct Budget {
    used: AtomicIsize,
    ceiling: AtomicIsize,
}

/// Requests smaller than this are never refused.
const REFUSE_FROM: usize = 1 << 20;

impl Budget {
    pub const fn new() -> Self {
        Self { used: AtomicIsize::new(0), ceiling: AtomicIsize::new(isize::MAX) }
    }

    pub fn used(&self) -> usize {
        self.used.load(Ordering::Relaxed).max(0) as usize
    }

    pub fn set_ceiling(&self, bytes: Option<usize>) {
        let ceiling = bytes.map_or(isize::MAX, |b| b.min(isize::MAX as usize) as isize);
        self.ceiling.store(ceiling, Ordering::Relaxed);
    }

    fn refuses(&self, extra: usize) -> bool {
        let ceiling = self.ceiling.load(Ordering::Relaxed);
        ceiling != isize::MAX
            && self.used.load(Ordering::Relaxed).saturating_add(extra.min(isize::MAX as usize) as isize) > ceiling
    }
}

thread_local! {
    // `const` and without a destructor, so reading it never allocates (no allocator re-entry).
    static COUNTER: Cell<*const Budget> = const { Cell::new(ptr::null()) };
}

#[inline]
fn with_budget<R>(f: impl FnOnce(&Budget) -> R) -> Option<R> {
    COUNTER
        .try_with(|counter| {
            let counter = counter.get();
            // SAFETY: `counted_on` registers the budget only while it borrows it.
            (!counter.is_null()).then(|| f(unsafe { &*counter }))
        })
        .ok()
        .flatten()
}

#[inline]
fn account(delta: isize) {
    with_budget(|budget| budget.used.fetch_add(delta, Ordering::Relaxed));
}

#[inline]
fn refused(extra: usize) -> bool {
    let refused = extra >= REFUSE_FROM && with_budget(|budget| budget.refuses(extra)).unwrap_or(false);
    if refused {
        crate::worker::fault::note_allocation_failure();
    }
    refused
}

#[inline]
fn checked(block: *mut u8) -> *mut u8 {
    if block.is_null() {
        crate::worker::fault::note_allocation_failure();
    }
    block
}

// SAFETY: every call is forwarded to `System` unchanged, or refused with null as the trait allows.
unsafe impl GlobalAlloc for CountingAllocator {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        if refused(layout.size()) {
            return ptr::null_mut();
        }
        let block = checked(unsafe { System.alloc(layout) });
        if !block.is_null() {
            account(layout.size() as isize);
        }
        block
    }

    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        if refused(layout.size()) {
            return ptr::null_mut();
        }
        let block = checked(unsafe { System.alloc_zeroed(layout) });
        if !block.is_null() {
            account(layout.size() as isize);
        }
        block
    }

    unsafe fn dealloc(&self, block: *mut u8, layout: Layout) {
        unsafe { System.dealloc(block, layout) };
        account(-(layout.size() as isize));
    }

    unsafe fn realloc(&self, block: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        if refused(new_size.saturating_sub(layout.size())) {
            return ptr::null_mut();
        }
        let moved = checked(unsafe { System.realloc(block, layout, new_size) });
        if !moved.is_null() {
            account(new_size as isize - layout.size() as isize);
        }
        moved
    }
}

/// Run `f` with this thread's allocations counted on `budget`, then restore what was counted before. The
/// previous counter comes back even if `f` panics, so the allocator never keeps a pointer to a counter it
/// was not given.
pub fn counted_on<R>(budget: &Budget, f: impl FnOnce() -> R) -> R {
    struct Restore(*const Budget);
    impl Drop for Restore {
        fn drop(&mut self) {
            let _ = COUNTER.try_with(|slot| slot.set(self.0));
        }
    }
    let previous = COUNTER.try_with(|slot| slot.replace(budget as *const Budget)).unwrap_or(ptr::null());
    let _restore = Restore(previous);
    f()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn allocations_on_a_counting_thread_are_counted_and_frees_subtracted() {
        let budget = Budget::new();
        let (during, after) = counted_on(&budget, || {
            let block = vec![0u8; 1 << 20];
            let during = budget.used();
            drop(block);
            (during, budget.used())
        });
        let _untracked = vec![0u8; 1 << 20];
        assert!(during >= 1 << 20, "{during}");
        assert!(after < 1 << 20, "{after}");
        assert_eq!(budget.used(), after);
    }

    #[test]
    fn a_large_request_past_the_ceiling_is_refused_and_small_ones_are_not() {
        let budget = Budget::new();
        budget.set_ceiling(Some(8 << 20));
        counted_on(&budget, || {
            let mut big: Vec<u8> = Vec::new();
            assert!(big.try_reserve_exact(16 << 20).is_err(), "a 16 MiB request past an 8 MiB ceiling");
            assert!(big.try_reserve_exact(4 << 20).is_ok(), "a 4 MiB request under it");
            let small: Vec<Vec<u8>> = (0..64).map(|_| vec![0u8; 256 << 10]).collect();
            assert!(budget.used() > 8 << 20, "small requests pass the ceiling: polling stops them");
            drop(small);
        });
        budget.set_ceiling(None);
        counted_on(&budget, || {
            let mut big: Vec<u8> = Vec::new();
            assert!(big.try_reserve_exact(16 << 20).is_ok(), "no ceiling between jobs");
        });
    }
}
