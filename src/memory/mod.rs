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
//! The VM thread's small blocks come from pages of its own (`pages`), counted by the page; larger ones, and
//! every other thread's, from the system allocator, counted by the block. Large str and bytes from the host
//! may be adopted pages of a memfd (`adopted`). SQLite allocates through the same budget (`sqlite`).

mod adopted;
mod pages;
pub mod sqlite;

use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::{Cell, UnsafeCell};
use std::ptr;
use std::sync::atomic::{AtomicBool, AtomicIsize, AtomicPtr, AtomicUsize, Ordering};

pub use adopted::{adopt, ADOPT_FROM};
use adopted::{adopted_slot, release_adopted};
use pages::{Heap, SMALL_ALIGN, SMALL_MAX};

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

/// The size of an OS page.
pub fn page_size() -> usize {
    // SAFETY: sysconf has no preconditions.
    let size = unsafe { libc::sysconf(libc::_SC_PAGESIZE) };
    if size > 0 {
        size as usize
    } else {
        4096
    }
}

/// The thread counted on `SESSION` (`this_thread()`, 0 when none): the one whose small blocks come from
/// `PAGES`. A plain static rather than a thread-local: in a shared library every thread-local read is a call
/// to `__tls_get_addr`, on every allocation.
static SESSION_THREAD: AtomicUsize = AtomicUsize::new(0);
/// How many threads count on a budget other than `SESSION` (unit tests): while none do, no thread needs to
/// look at `COUNTER`.
static OTHER_COUNTERS: AtomicUsize = AtomicUsize::new(0);

thread_local! {
    // `const` and without a destructor, so reading it never allocates (no allocator re-entry).
    static COUNTER: Cell<*const Budget> = const { Cell::new(ptr::null()) };
}

/// The page heap of the thread counted on `SESSION`: 32 GiB of address space, reserved when that thread
/// starts counting (`PROT_NONE`, so it costs no data size until used).
const PAGES_RESERVE: usize = 32 << 30;
static PAGES_REMOTE: AtomicPtr<u8> = AtomicPtr::new(ptr::null_mut());
struct PagesCell(UnsafeCell<Heap>);
// SAFETY: only the thread in `SESSION_THREAD` touches the heap (`session_pages`).
unsafe impl Sync for PagesCell {}
static PAGES: PagesCell = PagesCell(UnsafeCell::new(Heap::new(PAGES_RESERVE, &PAGES_REMOTE, &SESSION)));
/// The heap's range once reserved (start, length): whether a block is one of its blocks, from any thread.
static PAGES_START: AtomicUsize = AtomicUsize::new(0);
static PAGES_LEN: AtomicUsize = AtomicUsize::new(0);

/// This thread's identity: its thread pointer, one register read (what `pthread_self` returns, without the
/// call; this runs on every allocation and free).
#[inline]
fn this_thread() -> usize {
    #[cfg(target_arch = "x86_64")]
    {
        let pointer: usize;
        // SAFETY: reads the thread control block's self pointer at %fs:0 (the x86-64 TLS ABI), which every
        // thread has from its start.
        unsafe { std::arch::asm!("mov {}, fs:0", out(reg) pointer, options(nostack, readonly, preserves_flags)) };
        pointer
    }
    #[cfg(target_arch = "aarch64")]
    {
        let pointer: usize;
        // SAFETY: reads the thread pointer register, set for every thread.
        unsafe { std::arch::asm!("mrs {}, tpidr_el0", out(reg) pointer, options(nostack, nomem, preserves_flags)) };
        pointer
    }
    #[cfg(not(any(target_arch = "x86_64", target_arch = "aarch64")))]
    // SAFETY: no preconditions.
    unsafe {
        libc::pthread_self() as usize
    }
}

#[inline]
fn on_session_thread() -> bool {
    let owner = SESSION_THREAD.load(Ordering::Relaxed);
    owner != 0 && owner == this_thread()
}

/// # Safety
/// Only on the thread counted on `SESSION`, and not while another borrow of the heap lives.
#[inline]
unsafe fn session_pages() -> &'static mut Heap {
    // SAFETY: the caller's promise: one thread, one borrow at a time.
    unsafe { &mut *PAGES.0.get() }
}

#[inline]
fn in_pages(block: *mut u8) -> bool {
    // The length first: published after the start, so a thread that sees it sees the start too (a zero
    // start with a length would take every low address for a page block).
    let len = PAGES_LEN.load(Ordering::Acquire);
    len != 0 && (block as usize).wrapping_sub(PAGES_START.load(Ordering::Relaxed)) < len
}

#[inline]
fn with_budget<R>(f: impl FnOnce(&Budget) -> R) -> Option<R> {
    if on_session_thread() {
        return Some(f(&SESSION));
    }
    if OTHER_COUNTERS.load(Ordering::Relaxed) == 0 {
        return None;
    }
    let counter = other_counter();
    // SAFETY: `counted_on` registers the budget only while it borrows it.
    (!counter.is_null()).then(|| f(unsafe { &*counter }))
}

/// This thread's budget other than `SESSION`, null when none. Out of line, so that the thread-local's
/// address (a call in a shared library) is not computed ahead of the check that makes it needless.
#[cold]
#[inline(never)]
fn other_counter() -> *const Budget {
    COUNTER.try_with(Cell::get).unwrap_or(ptr::null())
}

#[inline]
pub(crate) fn account(delta: isize) {
    with_budget(|budget| budget.used.fetch_add(delta, Ordering::Relaxed));
}

#[inline]
pub(crate) fn refused(extra: usize) -> bool {
    let refused = extra >= REFUSE_FROM && with_budget(|budget| budget.refuses(extra)).unwrap_or(false);
    if refused {
        note_allocation_failure();
    }
    refused
}

/// Whether a request of `extra` bytes, of any size, would pass the running job's ceiling: for native code that
/// handles a null itself (SQLite), so no failure is noted (nothing aborts after it).
#[inline]
pub(crate) fn refuses_any(extra: usize) -> bool {
    with_budget(|budget| budget.refuses(extra)).unwrap_or(false)
}

/// Set when the allocator could not satisfy a request: the abort that follows is a memory failure (the
/// session process's fault report says so, `worker::fault`).
static ALLOCATION_FAILED: AtomicBool = AtomicBool::new(false);

pub fn note_allocation_failure() {
    ALLOCATION_FAILED.store(true, Ordering::Relaxed);
}

/// Whether an allocation has failed in this process (async-signal-safe: one atomic load).
pub fn allocation_failed() -> bool {
    ALLOCATION_FAILED.load(Ordering::Relaxed)
}

#[cfg(test)]
pub fn forget_allocation_failure() {
    ALLOCATION_FAILED.store(false, Ordering::Relaxed);
}

#[inline]
fn checked(block: *mut u8) -> *mut u8 {
    if block.is_null() {
        note_allocation_failure();
    }
    block
}

/// A block of the session thread's page heap for `layout`; null on another thread, for a larger or more
/// aligned layout, or when no page can be had (the system allocator serves those).
#[inline]
fn small_block(layout: Layout) -> *mut u8 {
    if layout.size() <= SMALL_MAX && layout.align() <= SMALL_ALIGN && on_session_thread() {
        // SAFETY: on the session thread; the borrow ends here.
        unsafe { session_pages() }.alloc(layout.size())
    } else {
        ptr::null_mut()
    }
}

/// A block of the system allocator (zeroed if asked), counted; null when refused or not to be had.
fn system_block(layout: Layout, zeroed: bool) -> *mut u8 {
    if refused(layout.size()) {
        return ptr::null_mut();
    }
    // SAFETY: the caller's valid, non-zero-sized layout.
    let block = checked(unsafe {
        if zeroed {
            System.alloc_zeroed(layout)
        } else {
            System.alloc(layout)
        }
    });
    if !block.is_null() {
        account(layout.size() as isize);
    }
    block
}

// SAFETY: the session thread's small blocks come from its page heap (aligned to `SMALL_ALIGN`, at least as
// large as asked, freed there, by any thread); every other call is forwarded to `System` unchanged, or
// refused with null as the trait allows; adopted blocks (see `adopt`) are unmapped instead of freed; blocks
// move between kinds by copying.
unsafe impl GlobalAlloc for CountingAllocator {
    #[inline]
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        let block = small_block(layout);
        if !block.is_null() {
            return block;
        }
        system_block(layout, false)
    }

    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        let block = small_block(layout);
        if !block.is_null() {
            // SAFETY: a fresh block of at least this size.
            unsafe { block.write_bytes(0, layout.size()) };
            return block;
        }
        system_block(layout, true)
    }

    #[inline]
    unsafe fn dealloc(&self, block: *mut u8, layout: Layout) {
        if in_pages(block) {
            if on_session_thread() {
                // SAFETY: a live block of the session's heap, on its thread.
                unsafe { session_pages().free(block) };
            } else {
                // SAFETY: a live block of the session's heap, freed once.
                unsafe { pages::push_remote(&PAGES_REMOTE, block) };
            }
            return;
        }
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
        let in_pages = in_pages(block);
        if in_pages && new_size <= SMALL_MAX && on_session_thread() {
            // SAFETY: a live block of the session's page heap, on its thread; the borrow ends here.
            let room = unsafe { session_pages().block_size(block) };
            if pages::class_of(new_size) == pages::class_of(room) {
                return block;
            }
        }
        if in_pages || adopted_slot(block, layout.size()).is_some() {
            // SAFETY: a valid layout (the caller's size and alignment, as `realloc` guarantees).
            let moved = unsafe { self.alloc(Layout::from_size_align_unchecked(new_size, layout.align())) };
            if !moved.is_null() {
                // SAFETY: both blocks are live and hold at least the copied length.
                unsafe { ptr::copy_nonoverlapping(block, moved, layout.size().min(new_size)) };
                // SAFETY: the old block, live until now.
                unsafe { self.dealloc(block, layout) };
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
    if ptr::eq(budget, &SESSION) {
        return counted_on_session(f);
    }
    struct Restore(*const Budget);
    impl Drop for Restore {
        fn drop(&mut self) {
            let _ = COUNTER.try_with(|slot| slot.set(self.0));
            OTHER_COUNTERS.fetch_sub(1, Ordering::Relaxed);
        }
    }
    OTHER_COUNTERS.fetch_add(1, Ordering::Relaxed);
    let previous = COUNTER.try_with(|slot| slot.replace(budget as *const Budget)).unwrap_or(ptr::null());
    let _restore = Restore(previous);
    f()
}

/// `counted_on(&SESSION, f)`: one thread at a time, its small blocks from the page heap (reserved here).
fn counted_on_session<R>(f: impl FnOnce() -> R) -> R {
    struct Restore;
    impl Drop for Restore {
        fn drop(&mut self) {
            SESSION_THREAD.store(0, Ordering::Release);
        }
    }
    let claimed = SESSION_THREAD.compare_exchange(0, this_thread(), Ordering::AcqRel, Ordering::Relaxed);
    assert!(claimed.is_ok(), "one thread at a time counts on the session budget");
    let _restore = Restore;
    // SAFETY: on the session thread, which now owns the heap.
    let (start, len) = unsafe { session_pages() }.reserve();
    PAGES_START.store(start, Ordering::Relaxed);
    PAGES_LEN.store(len, Ordering::Release);
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
    fn the_spare_allowance_is_a_sixteenth_of_the_limit_within_its_bounds() {
        assert_eq!(spare_allowance(Some(1 << 30)), 64 << 20);
        assert_eq!(spare_allowance(Some(256 << 20)), 16 << 20);
        assert_eq!(spare_allowance(Some(1 << 20)), SPARE_MIN);
        assert_eq!(spare_allowance(Some(1 << 40)), SPARE_MAX);
        assert_eq!(spare_allowance(None), SPARE_MAX);
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

/// The memory a session keeps for reuse when its code frees it, at least and at most: a sixteenth of its
/// memory limit, within these (`spare_allowance`).
pub(crate) const SPARE_MIN: usize = 2 << 20;
pub(crate) const SPARE_MAX: usize = 64 << 20;

/// What a session with `memory_limit` (`None`: none set) keeps of the memory it frees.
fn spare_allowance(memory_limit: Option<usize>) -> usize {
    memory_limit.map_or(usize::MAX, |limit| limit / 16).clamp(SPARE_MIN, SPARE_MAX)
}

/// On the session thread: keep freed memory for reuse up to the session's allowance (`spare_allowance`):
/// empty heap pages stay resident, still counted as the session's, and glibc keeps as much before trimming.
pub fn keep_spare_for(memory_limit: Option<usize>) {
    let allowance = spare_allowance(memory_limit);
    if on_session_thread() {
        // SAFETY: on the session thread; the borrow ends here.
        unsafe { session_pages() }.keep_spare(allowance);
    }
    // The system allocator (blocks over `SMALL_MAX`): glibc gives the free top of its heap back past 128 KiB,
    // so a cell that makes and drops a megabyte of 4 KB slices would fault every page in again each run (a
    // 4,000 character slice at several times CPython's cost). Keep the same allowance before trimming. Setting
    // the trim threshold ends glibc's own rise of the mmap threshold (which would serve a freed 3 MB list buffer
    // from the heap the next time), so that one is set too: blocks up to the allowance (at most glibc's 32 MiB)
    // come from the heap and are reused; larger ones are mapped and unmapped, as glibc does by default.
    // SAFETY: plain settings of this process's allocator, made before the session's code runs.
    unsafe {
        libc::mallopt(libc::M_TRIM_THRESHOLD, allowance as libc::c_int);
        libc::mallopt(libc::M_MMAP_THRESHOLD, allowance.min(MMAP_THRESHOLD_MAX) as libc::c_int);
    }
}

/// glibc's largest mmap threshold on 64-bit (`HEAP_MAX_SIZE / 2`); a larger setting is refused.
const MMAP_THRESHOLD_MAX: usize = 32 << 20;

/// What it reads, opened once before the zygote is confined (it opens no file after): the kernel's huge-page size
/// and the zygote's own `/proc/self/maps`, read again from its start each time.
pub struct Collapser {
    maps: std::fs::File,
    huge: usize,
}

impl Collapser {
    /// None where collapsing would not pay (see `collapse_for_forks`) or the maps cannot be read.
    pub fn open() -> Option<Collapser> {
        const HUGE_AT_MOST: usize = 32 << 20;
        let huge = std::fs::read_to_string("/sys/kernel/mm/transparent_hugepage/hpage_pmd_size")
            .ok()
            .and_then(|text| text.trim().parse::<usize>().ok())
            .unwrap_or(2 << 20);
        if huge > HUGE_AT_MOST || !huge.is_power_of_two() || huge <= page_size() {
            return None;
        }
        Some(Collapser { maps: std::fs::File::open("/proc/self/maps").ok()?, huge })
    }

    /// See the function of that name below.
    pub fn collapse_for_forks(&self) {
        use std::io::{Read, Seek};
        let mut maps = String::new();
        let mut file = &self.maps;
        if file.rewind().is_err() || file.read_to_string(&mut maps).is_err() {
            return;
        }
        collapse_for_forks(&maps, self.huge);
    }
}

/// In the zygote, before it forks sessions: back its anonymous memory with huge pages where it is (nearly) all
/// resident already (`MADV_COLLAPSE`, synchronous), so a fork copies one page-table entry per 2 MiB instead of
/// 512 and a session's exit tears down as many fewer (it matters most for a large zygote: sympy imported is
/// 250 MB). Only spans with at most `HOLES_FILLED_BYTES` missing are collapsed: collapsing fills the holes with
/// zeroed memory (collapsing everything would grow the plain zygote several times over). An eighth of a 2 MiB
/// span may be filled: the plain zygote has spans a few dozen pages short, and collapsing them costs it well
/// under a MiB for a quicker standby fork. Each range is advised `MADV_NOHUGEPAGE` afterwards, so nothing
/// later is collapsed behind the page count's back (see `pages`); a session's first write to a shared huge
/// page splits it and copies one page, as a write to a shared 4 KiB page does.
/// The sizes are the kernel's: a huge page is 2 MiB over 4 KiB pages, but 32 MiB over 16 KiB and 512 MiB over
/// 64 KiB (aarch64), where collapsing would fill far more than it saves: spans over 32 MiB are left alone.
fn collapse_for_forks(maps: &str, huge: usize) {
    const HOLES_FILLED_BYTES: usize = 256 << 10;
    let small = page_size();
    let mut resident = vec![0u8; huge / small];
    for line in maps.lines() {
        let mut fields = line.split_whitespace();
        let (Some(range), Some(perms)) = (fields.next(), fields.next()) else { continue };
        let path = fields.nth(3).unwrap_or("");
        if perms != "rw-p" || !(path.is_empty() || path == "[heap]") {
            continue;
        }
        let Some((start, end)) = range.split_once('-') else { continue };
        let (Ok(start), Ok(end)) = (usize::from_str_radix(start, 16), usize::from_str_radix(end, 16)) else { continue };
        let mut span = (start + huge - 1) & !(huge - 1);
        while span + huge <= end {
            let at = span as *mut libc::c_void;
            span += huge;
            // SAFETY: `resident` has one byte per page of the span, which lies inside one mapping.
            if unsafe { libc::mincore(at, huge, resident.as_mut_ptr()) } != 0 {
                continue;
            }
            if resident.iter().filter(|page| **page & 1 == 0).count() > HOLES_FILLED_BYTES / small {
                continue;
            }
            // SAFETY: advice on a whole huge-page-aligned span of this process's own private anonymous
            // mapping; collapsing keeps every byte's content.
            unsafe {
                libc::madvise(at, huge, libc::MADV_HUGEPAGE);
                libc::madvise(at, huge, libc::MADV_COLLAPSE);
                libc::madvise(at, huge, libc::MADV_NOHUGEPAGE);
            }
        }
    }
}
