//! Memory accounting and the hard edge of the memory limit. RustPython has none of its own, and growth to
//! exhaustion would end in the allocator's abort path, taking the host process with it.
//!
//! This crate's global allocator (it sees the Rust allocations of this extension module only, i.e. the
//! sandbox VMs, never CPython's) adds every allocation's size to the budget of the thread's session, if the
//! thread has one. A session's worker thread points at its session's budget for its whole life, so the
//! budget holds the bytes its VM has live; the waiting caller polls it and stops the code with MemoryError
//! when it passes the limit.
//!
//! Polling cannot stop a single native operation (`[None] * 10**9`, a growing `list(range(...))`), so while a
//! job runs the budget also has a ceiling above the limit: a large request that would pass it is refused.
//! The VM makes its big allocations fallibly and turns a refusal into MemoryError; a refusal on a path that
//! cannot fail aborts, which `rescue` turns into the loss of that session only. Small requests are never
//! refused (they are the polled limit's job), nor are requests made while holding the GIL (host data being
//! converted, where an abort could not be contained).

use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;
use std::ptr;
use std::sync::atomic::{AtomicIsize, Ordering};

pub struct CountingAllocator;

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
            // SAFETY: only reads the thread's own thread state; never allocates.
            && unsafe { pyo3::ffi::PyGILState_Check() } == 0
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
    extra >= REFUSE_FROM && with_budget(|budget| budget.refuses(extra)).unwrap_or(false)
}

// SAFETY: every call is forwarded to `System` unchanged, or refused with null as the trait allows.
unsafe impl GlobalAlloc for CountingAllocator {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        if refused(layout.size()) {
            return ptr::null_mut();
        }
        let block = unsafe { System.alloc(layout) };
        if !block.is_null() {
            account(layout.size() as isize);
        }
        block
    }

    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        if refused(layout.size()) {
            return ptr::null_mut();
        }
        let block = unsafe { System.alloc_zeroed(layout) };
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
        let moved = unsafe { System.realloc(block, layout, new_size) };
        if !moved.is_null() {
            account(new_size as isize - layout.size() as isize);
        }
        moved
    }
}

/// Run `f` with this thread's allocations counted on `budget`, then restore what was counted before (the
/// thread may be another session's worker, calling `execute()` from a tool). A worker runs its whole life
/// this way; other threads use it for data that crosses to or from a worker, so that its allocation and its
/// release land on the same counter. The previous counter comes back even if `f` panics, so the allocator
/// never keeps a pointer to a counter it was not given.
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
        pyo3::Python::initialize(); // refusals look at the GIL, so the thread state must exist
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
