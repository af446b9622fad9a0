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
//!
//! A large str or bytes the host sends arrives in pages of a memfd the session has mapped; rather than be
//! copied into fresh pages (which this kind of machine fills at ~2 µs a page), those pages are *adopted*
//! as the heap block of the value (`adopt`): counted like any block, and unmapped when it is freed.

use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;
use std::ptr;
use std::sync::atomic::{AtomicIsize, AtomicUsize, Ordering};

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

/// Blocks at least this large may be adopted pages.
pub const ADOPT_FROM: usize = 64 << 10;
/// At most this many adopted blocks live at once; past that, values are copied as usual.
const ADOPTED_SLOTS: usize = 64;
/// The start of each live adopted block (0: a free slot), and how many there are.
static ADOPTED: [AtomicUsize; ADOPTED_SLOTS] = [const { AtomicUsize::new(0) }; ADOPTED_SLOTS];
static ADOPTED_LIVE: AtomicUsize = AtomicUsize::new(0);

pub fn page_size() -> usize {
    // SAFETY: sysconf has no preconditions.
    let size = unsafe { libc::sysconf(libc::_SC_PAGESIZE) };
    if size > 0 { size as usize } else { 4096 }
}

/// The mapped bytes `bytes` as a heap block of their own, counted on this thread's budget: they must start on
/// a page of a private mapping that nothing else will unmap, and the rest of their last page becomes part of
/// the block. None when they do not qualify or the budget refuses them (the caller copies them instead).
///
/// # Safety
/// `bytes` must lie in a private file mapping whose pages from `bytes`' start to the end of its last page the
/// caller gives up: from now on they are unmapped only when the block is freed.
pub unsafe fn adopt(bytes: &[u8]) -> Option<Vec<u8>> {
    let (start, len) = (bytes.as_ptr() as usize, bytes.len());
    if len < ADOPT_FROM || start % page_size() != 0 || refused(len) {
        return None;
    }
    let slot = ADOPTED.iter().find(|slot| slot.compare_exchange(0, start, Ordering::AcqRel, Ordering::Relaxed).is_ok())?;
    // Writable like any heap block (copy-on-write: nothing reaches the file).
    // SAFETY: pages of the caller's mapping, given up to this block.
    if unsafe { libc::mprotect(start as *mut libc::c_void, len, libc::PROT_READ | libc::PROT_WRITE) } != 0 {
        slot.store(0, Ordering::Release);
        return None;
    }
    ADOPTED_LIVE.fetch_add(1, Ordering::AcqRel);
    account(len as isize);
    // SAFETY: `len` initialised bytes at `start`, owned by this block from now on; this allocator frees it.
    Some(unsafe { Vec::from_raw_parts(start as *mut u8, len, len) })
}

/// The slot of `block` when it is adopted pages (cheap when none are: the hot path of every large free).
fn adopted_slot(block: *mut u8, size: usize) -> Option<&'static AtomicUsize> {
    if size < ADOPT_FROM || ADOPTED_LIVE.load(Ordering::Acquire) == 0 {
        return None;
    }
    ADOPTED.iter().find(|slot| slot.load(Ordering::Acquire) == block as usize)
}

/// Free `block` if it is adopted pages: unmapped, and its slot cleared first (the address may be reused
/// as soon as it is unmapped).
fn release_adopted(block: *mut u8, size: usize) -> bool {
    let Some(slot) = adopted_slot(block, size) else { return false };
    slot.store(0, Ordering::Release);
    ADOPTED_LIVE.fetch_sub(1, Ordering::AcqRel);
    // SAFETY: the adopted block's pages (munmap rounds `size` up to the end of its last page).
    unsafe { libc::munmap(block as *mut libc::c_void, size) };
    account(-(size as isize));
    true
}

// SAFETY: every call is forwarded to `System` unchanged, or refused with null as the trait allows; adopted
// blocks (see `adopt`) are unmapped instead of freed, and moved by copying.
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
        if release_adopted(block, layout.size()) {
            return;
        }
        unsafe { System.dealloc(block, layout) };
        account(-(layout.size() as isize));
    }

    unsafe fn realloc(&self, block: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        if refused(new_size.saturating_sub(layout.size())) {
            return ptr::null_mut();
        }
        if adopted_slot(block, layout.size()).is_some() {
            // SAFETY: a valid layout (the caller's size and alignment, as `realloc` guarantees).
            let moved = unsafe { self.alloc(Layout::from_size_align_unchecked(new_size, layout.align())) };
            if !moved.is_null() {
                // SAFETY: both blocks are live and hold at least the copied length.
                unsafe { ptr::copy_nonoverlapping(block, moved, layout.size().min(new_size)) };
                release_adopted(block, layout.size());
            }
            return moved;
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
    fn adopted_pages_are_a_counted_heap_block_that_unmaps_when_freed() {
        let page = page_size();
        let pages = ADOPT_FROM / page + 2;
        let len = (pages - 1) * page + 10;
        let budget = Budget::new();
        // SAFETY: a private mapping made here, given up to the block below.
        let map = unsafe { libc::mmap(ptr::null_mut(), pages * page, libc::PROT_READ, libc::MAP_PRIVATE | libc::MAP_ANONYMOUS, -1, 0) };
        assert_ne!(map, libc::MAP_FAILED);
        let bytes = unsafe { std::slice::from_raw_parts(map as *const u8, len) };
        let unaligned = unsafe { std::slice::from_raw_parts((map as *const u8).add(1), ADOPT_FROM) };
        counted_on(&budget, || {
            assert!(unsafe { adopt(unaligned) }.is_none(), "only whole pages are adopted");
            let mut block = unsafe { adopt(bytes) }.expect("adopted");
            assert_eq!(block.as_ptr() as usize, map as usize, "not copied");
            assert_eq!(budget.used(), len);
            block[0] = 7; // writable, like any block
            block.extend_from_slice(b"grown"); // a move by copy
            assert_ne!(block.as_ptr() as usize, map as usize);
            assert_eq!((block[0], &block[len..]), (7, &b"grown"[..]));
            let adopted = ADOPTED.iter().any(|slot| slot.load(Ordering::Acquire) == map as usize);
            assert!(!adopted, "the adopted pages were released when it moved");
            // SAFETY: probing whether the released page is still mapped.
            let still_mapped = unsafe { libc::madvise(map, page, libc::MADV_NORMAL) } == 0;
            assert!(!still_mapped, "released pages are unmapped");
            drop(block);
            assert!(budget.used() < page, "{}", budget.used());
        });
    }

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
