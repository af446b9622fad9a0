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
            // SAFETY: `count_on_this_thread` requires the counter to outlive its registration.
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

/// Count this thread's allocations and frees on `counter` from now on (None: stop counting).
///
/// # Safety
/// `counter` must stay alive until this thread calls `count_on_this_thread(None)` or ends.
pub unsafe fn count_on_this_thread(counter: Option<&AtomicIsize>) {
    let pointer = counter.map_or(ptr::null(), |c| c as *const AtomicIsize);
    let _ = COUNTER.try_with(|slot| slot.set(pointer));
}

/// Run `f` with this thread's allocations counted on `counter`, then restore what was counted before (the
/// thread may be another session's worker, calling `execute()` from a tool). Used for data that crosses
/// between a session's worker and other threads, so that its allocation and its release land on the same
/// counter.
pub fn counted_on<R>(counter: &AtomicIsize, f: impl FnOnce() -> R) -> R {
    let previous = COUNTER.try_with(|slot| slot.replace(counter as *const AtomicIsize)).unwrap_or(ptr::null());
    let result = f();
    let _ = COUNTER.try_with(|slot| slot.set(previous));
    result
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn allocations_on_a_counting_thread_are_counted_and_frees_subtracted() {
        let counter = AtomicIsize::new(0);
        unsafe { count_on_this_thread(Some(&counter)) };
        let block = vec![0u8; 1 << 20];
        let during = counter.load(Ordering::Relaxed);
        drop(block);
        let after = counter.load(Ordering::Relaxed);
        unsafe { count_on_this_thread(None) };
        let _untracked = vec![0u8; 1 << 20];
        assert!(during >= 1 << 20, "{during}");
        assert!(after < 1 << 20, "{after}");
        assert_eq!(counter.load(Ordering::Relaxed), after);
    }
}
