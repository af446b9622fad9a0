//! Memory accounting for the memory limit. RustPython has none of its own, and growth to exhaustion would
//! end in the allocator's abort path, taking the host process with it.
//!
//! This crate's global allocator (it sees the Rust allocations of this extension module only, i.e. the
//! sandbox VMs, never CPython's) adds every allocation's size to the counter of the thread's session, if the
//! thread has one. A session's worker thread points at its session's counter for its whole life, so the
//! counter holds the bytes its VM has live; the waiting caller polls it and stops the code with MemoryError
//! when it passes the limit. Allocations are never refused here: a refused infallible allocation would
//! abort the process, which is exactly what the limit exists to prevent.

use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;
use std::ptr;
use std::sync::atomic::{AtomicIsize, Ordering};

pub struct CountingAllocator;

thread_local! {
    // `const` and without a destructor, so reading it never allocates (no allocator re-entry).
    static COUNTER: Cell<*const AtomicIsize> = const { Cell::new(ptr::null()) };
}

#[inline]
fn account(delta: isize) {
    let _ = COUNTER.try_with(|counter| {
        let counter = counter.get();
        if !counter.is_null() {
            // SAFETY: `counted_on` registers the counter only while it borrows it.
            unsafe { (*counter).fetch_add(delta, Ordering::Relaxed) };
        }
    });
}

// SAFETY: every call is forwarded to `System` unchanged; we only count.
unsafe impl GlobalAlloc for CountingAllocator {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        let block = unsafe { System.alloc(layout) };
        if !block.is_null() {
            account(layout.size() as isize);
        }
        block
    }

    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
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
        let moved = unsafe { System.realloc(block, layout, new_size) };
        if !moved.is_null() {
            account(new_size as isize - layout.size() as isize);
        }
        moved
    }
}

/// Run `f` with this thread's allocations counted on `counter`, then restore what was counted before (the
/// thread may be another session's worker, calling `execute()` from a tool). A worker runs its whole life
/// this way; other threads use it for data that crosses to or from a worker, so that its allocation and its
/// release land on the same counter. The previous counter comes back even if `f` panics, so the allocator
/// never keeps a pointer to a counter it was not given.
pub fn counted_on<R>(counter: &AtomicIsize, f: impl FnOnce() -> R) -> R {
    struct Restore(*const AtomicIsize);
    impl Drop for Restore {
        fn drop(&mut self) {
            let _ = COUNTER.try_with(|slot| slot.set(self.0));
        }
    }
    let previous = COUNTER.try_with(|slot| slot.replace(counter as *const AtomicIsize)).unwrap_or(ptr::null());
    let _restore = Restore(previous);
    f()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn allocations_on_a_counting_thread_are_counted_and_frees_subtracted() {
        let counter = AtomicIsize::new(0);
        let (during, after) = counted_on(&counter, || {
            let block = vec![0u8; 1 << 20];
            let during = counter.load(Ordering::Relaxed);
            drop(block);
            (during, counter.load(Ordering::Relaxed))
        });
        let _untracked = vec![0u8; 1 << 20];
        assert!(during >= 1 << 20, "{during}");
        assert!(after < 1 << 20, "{after}");
        assert_eq!(counter.load(Ordering::Relaxed), after);
    }
}
