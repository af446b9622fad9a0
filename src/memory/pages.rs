//! The session VM thread's small blocks (up to `SMALL_MAX` bytes), kept in 64 KiB pages of one size class
//! each, carved from an address range reserved once. Under glibc's malloc, a burst of object creation and
//! release (json.loads) spends a large share of its time in its slow paths (`_int_malloc`, `malloc_consolidate`,
//! `unlink_chunk`); here a block is a pop from its page's free list and a free is a push, with nothing to
//! consolidate.
//!
//! Memory is counted by the page, not the block: a page is counted from when a class takes it until its
//! memory goes back to the kernel, so the budget sees what the session holds, fragmentation included (a
//! program that keeps one block alive in every page holds, and is charged for, every page). A page whose
//! blocks are all free waits for reuse, resident and still counted, up to the session's spare allowance
//! (`keep_spare`; `memory::spare_allowance`: a sixteenth of its memory limit, 2 to 64 MiB); past that its memory is returned
//! and it is no longer counted. A cell that splits a 1 MB context makes and frees ~20 MB of small objects: with
//! only 2 MiB kept, every run would give ~300 pages back (a `madvise` and a TLB shootdown each) and fault them
//! in again (16 faults a page), a large share of `split()`'s time per line.
//!
//! Each page is described in a table of its own beside the range (`Page`, a cache line, 64 to an OS page),
//! not in a header inside it: a session forked from the zygote copies a few descriptor pages on write instead
//! of one OS page per heap page it touches.
//!
//! The range is reserved `PROT_NONE` (no data-size cost) and made writable a step at a time, so the session's
//! data ceiling (`RLIMIT_DATA`) still bounds it. A fork (a session from the zygote, a checkpoint from a
//! session) copies it like the rest of the heap.

use std::ptr;
use std::sync::atomic::{AtomicPtr, Ordering};

use super::{Budget, SPARE_MIN};

/// The largest block served from pages; larger ones come from the system allocator.
pub const SMALL_MAX: usize = 1024;
/// The largest alignment a page block has (block sizes are multiples of it, and pages start aligned).
pub const SMALL_ALIGN: usize = 16;
const PAGE: usize = 64 << 10;
const PAGE_SHIFT: u32 = PAGE.trailing_zeros();
/// Classes of 16-byte steps up to 512 bytes, then 64-byte steps up to 1024.
const CLASSES: usize = 40;
/// How much is made writable at a time.
const COMMIT_STEP: usize = 1 << 20;

/// A free block: the next free block of its page (or of the remote-free list), and the heap's key, which
/// marks it as free. In a page's list the link is stored masked (`Heap::mask`), as glibc's safe-linking
/// does: a use-after-free in the VM that writes a freed block's first word cannot point the list at an
/// address of its choosing, and a double free is caught by the key, so either ends the session process
/// (the host rolls it back) instead of handing one block out twice.
struct Block {
    next: *mut Block,
    key: usize,
}

/// The descriptor of a page of the range (in the heap's table, at the page's index). A cache line each, so
/// that finding a descriptor and its page is shifts, not multiplications and divisions.
#[repr(C, align(64))]
struct Page {
    free: *mut Block,
    /// Neighbours in the class's list of pages with a free block, or in a spare list (`next` only).
    next: *mut Page,
    prev: *mut Page,
    /// Offset of the first block never handed out.
    bump: u32,
    /// Blocks handed out and not yet freed.
    used: u32,
    block_size: u32,
    class: u32,
    /// Whether the page is in its class's list (it has a free block, or is the class's last page).
    listed: bool,
}

#[inline(always)]
fn prefetch(block: *mut Block) {
    #[cfg(target_arch = "x86_64")]
    // SAFETY: a prefetch is a hint; it never faults, whatever the address.
    unsafe {
        std::arch::x86_64::_mm_prefetch(block as *const i8, std::arch::x86_64::_MM_HINT_T0)
    };
    #[cfg(target_arch = "aarch64")]
    // SAFETY: as above: `prfm` is a hint that never faults.
    unsafe {
        std::arch::asm!("prfm pldl1keep, [{0}]", in(reg) block, options(nostack, readonly, preserves_flags))
    };
    #[cfg(not(any(target_arch = "x86_64", target_arch = "aarch64")))]
    let _ = block;
}

#[inline]
pub fn class_of(size: usize) -> usize {
    if size <= 512 {
        size.max(1).div_ceil(16) - 1
    } else {
        32 + (size - 512).div_ceil(64) - 1
    }
}

#[inline]
fn class_size(class: usize) -> usize {
    if class < 32 {
        (class + 1) * 16
    } else {
        512 + (class - 31) * 64
    }
}

/// One thread's page heap. Every method runs on the owning thread only; other threads know its range from
/// what the owner publishes (`memory::PAGES_START`, `PAGES_LEN`) and free into its remote list.
pub struct Heap {
    reserve: usize,
    base: usize,
    /// The next page never handed out, and the end of the writable part.
    top: usize,
    committed: usize,
    /// Set once reserving failed: every request then goes to the system allocator.
    unavailable: bool,
    /// The descriptor table: one `Page` per page of the range.
    pages: *mut Page,
    available: [*mut Page; CLASSES],
    /// Empty pages, resident, and pages whose memory went back (each list linked through `next`).
    resident: *mut Page,
    resident_count: usize,
    /// Empty pages kept resident at most.
    spare_pages: usize,
    returned: *mut Page,
    /// Masks free-list links and marks free blocks: random, per zygote (a session's fork keeps it).
    key: usize,
    /// Blocks freed by other threads, taken back on the next refill.
    remote: &'static AtomicPtr<u8>,
    budget: &'static Budget,
}

// SAFETY: the raw pointers are into the heap's own range, used by the owning thread only.
unsafe impl Send for Heap {}

impl Heap {
    /// A heap of at most `reserve` bytes (reserved on first use), counting its pages on `budget`.
    pub const fn new(reserve: usize, remote: &'static AtomicPtr<u8>, budget: &'static Budget) -> Self {
        Self {
            reserve,
            base: 0,
            top: 0,
            committed: 0,
            unavailable: false,
            pages: ptr::null_mut(),
            available: [ptr::null_mut(); CLASSES],
            resident: ptr::null_mut(),
            resident_count: 0,
            spare_pages: SPARE_MIN / PAGE,
            returned: ptr::null_mut(),
            key: 0,
            remote,
            budget,
        }
    }

    /// Keep up to `bytes` of empty pages resident for reuse; the rest give their memory back as they empty.
    pub fn keep_spare(&mut self, bytes: usize) {
        self.spare_pages = bytes / PAGE;
    }

    /// Reserve the range now (if not yet), and say where it is (start, length; 0, 0 when it could not be).
    pub fn reserve(&mut self) -> (usize, usize) {
        if self.base == 0 {
            self.reserve_range();
        }
        self.range()
    }

    /// The reserved range once there is one (start, length), for the ownership test.
    pub fn range(&self) -> (usize, usize) {
        (self.base, if self.base == 0 { 0 } else { self.reserve })
    }

    /// A block of `size` (at most `SMALL_MAX`) bytes aligned to `SMALL_ALIGN`; null when no page can be had
    /// (the caller asks the system allocator instead).
    #[inline]
    pub fn alloc(&mut self, size: usize) -> *mut u8 {
        let class = class_of(size);
        let mut page = self.available[class];
        if page.is_null() {
            page = self.refill(class);
            if page.is_null() {
                return ptr::null_mut();
            }
        }
        // SAFETY: a listed page is a live page of this heap with a free block or untouched room.
        unsafe {
            let p = &mut *page;
            let block = if !p.free.is_null() {
                let block = p.free;
                let next = self.mask(block, (*block).next);
                if !next.is_null()
                    && (next as usize ^ block as usize >= PAGE || !(next as usize).is_multiple_of(SMALL_ALIGN))
                {
                    corrupted("a free list's link leaves its page");
                }
                p.free = next;
                (*block).key = 0;
                // The next block of a free list is usually cold (freed long ago, often in a burst): start
                // loading it now, so the next request of this class does not wait for it. Not the null at the
                // end of a list: a prefetch of an unmapped address can walk the page tables every time (no TLB
                // entry holds it); with a block made and freed per call (a `Match` per line of a per-line
                // `re.search`), that walk would be most of `small_block`'s time.
                if !next.is_null() {
                    prefetch(next);
                }
                block as *mut u8
            } else {
                let block = (self.data(page) + p.bump as usize) as *mut Block;
                p.bump += p.block_size;
                // A page taken back from the spare list still holds the blocks freed in it before, each marked
                // with the key: unmarked, a block whose object never writes that word would pass for free when
                // it is freed, and the double-free check would walk its page's whole free list (much of a
                // split-and-count cell's time).
                (*block).key = 0;
                block as *mut u8
            };
            p.used += 1;
            if p.free.is_null() && p.bump as usize + p.block_size as usize > PAGE {
                self.unlist(page);
            }
            block
        }
    }

    /// Free a block of this heap.
    ///
    /// # Safety
    /// `block` was returned by `alloc` of this heap and is not freed yet.
    #[inline]
    pub unsafe fn free(&mut self, block: *mut u8) {
        let page = self.page_of(block);
        // SAFETY: the block lies in a live page of this heap (the caller's promise).
        unsafe {
            let p = &mut *page;
            if p.used == 0 || (*(block as *mut Block)).key == self.key && self.is_free(p, block) {
                corrupted("a block freed twice");
            }
            (block as *mut Block).write(Block { next: self.mask(block as *mut Block, p.free), key: self.key });
            p.free = block as *mut Block;
            p.used -= 1;
            if !p.listed {
                self.list(page);
            } else if p.used == 0 && !(p.next.is_null() && p.prev.is_null()) {
                // Empty, and not its class's only page (which stays, so one block made and freed over and
                // over does not take and give back a page each time).
                self.unlist(page);
                self.release(page);
            }
        }
    }

    /// A free-list link as stored in the block at `slot`, or back (the mask is its own inverse).
    #[inline(always)]
    fn mask(&self, slot: *mut Block, link: *mut Block) -> *mut Block {
        (link as usize ^ (slot as usize >> 12) ^ self.key) as *mut Block
    }

    /// Whether `block` is on its page's free list (a block whose key matches may hold that value as data).
    #[cold]
    fn is_free(&self, page: &Page, block: *mut u8) -> bool {
        let mut free = page.free;
        while !free.is_null() {
            if free as *mut u8 == block {
                return true;
            }
            // SAFETY: a block on the page's free list.
            free = self.mask(free, unsafe { (*free).next });
        }
        false
    }

    /// The usable size of a block of this heap.
    ///
    /// # Safety
    /// `block` is a live block of this heap.
    pub unsafe fn block_size(&self, block: *mut u8) -> usize {
        // SAFETY: the descriptor of the block's page, live while the block is.
        unsafe { (*self.page_of(block)).block_size as usize }
    }

    /// The descriptor of the page holding `block` (an address in the range).
    #[inline]
    fn page_of(&self, block: *mut u8) -> *mut Page {
        // SAFETY: the table has an entry for every page of the range.
        unsafe { self.pages.add((block as usize - self.base) >> PAGE_SHIFT) }
    }

    /// The first byte of the page `page` describes.
    #[inline]
    fn data(&self, page: *mut Page) -> usize {
        // SAFETY: `page` is an entry of the table.
        self.base + ((unsafe { page.offset_from(self.pages) } as usize) << PAGE_SHIFT)
    }

    /// Take back the blocks other threads freed.
    fn take_remote_frees(&mut self) {
        let mut block = self.remote.swap(ptr::null_mut(), Ordering::Acquire) as *mut Block;
        while !block.is_null() {
            // SAFETY: pushed by `push_remote` with this heap's blocks only; each is freed once.
            unsafe {
                let next = (*block).next;
                self.free(block as *mut u8);
                block = next;
            }
        }
    }

    #[cold]
    fn refill(&mut self, class: usize) -> *mut Page {
        self.take_remote_frees();
        if !self.available[class].is_null() {
            return self.available[class];
        }
        let page = self.take_page();
        if page.is_null() {
            return page;
        }
        let block_size = class_size(class) as u32;
        // SAFETY: a page of this heap, writable, no longer in any list.
        unsafe {
            page.write(Page {
                free: ptr::null_mut(),
                next: ptr::null_mut(),
                prev: ptr::null_mut(),
                bump: 0,
                used: 0,
                block_size,
                class: class as u32,
                listed: false,
            });
        }
        self.list(page);
        page
    }

    fn list(&mut self, page: *mut Page) {
        // SAFETY: a live page of this heap, not in a list.
        unsafe {
            let p = &mut *page;
            let head = self.available[p.class as usize];
            p.prev = ptr::null_mut();
            p.next = head;
            if !head.is_null() {
                (*head).prev = page;
            }
            p.listed = true;
            self.available[p.class as usize] = page;
        }
    }

    fn unlist(&mut self, page: *mut Page) {
        // SAFETY: a live page of this heap, in its class's list.
        unsafe {
            let p = &mut *page;
            if p.prev.is_null() {
                self.available[p.class as usize] = p.next;
            } else {
                (*p.prev).next = p.next;
            }
            if !p.next.is_null() {
                (*p.next).prev = p.prev;
            }
            p.next = ptr::null_mut();
            p.prev = ptr::null_mut();
            p.listed = false;
        }
    }

    /// An empty page that is out of every list (resident spare, returned, or never used), counted.
    fn take_page(&mut self) -> *mut Page {
        if !self.resident.is_null() {
            let page = self.resident;
            // SAFETY: a descriptor in the resident list, which links the next.
            self.resident = unsafe { (*page).next };
            self.resident_count -= 1;
            return page;
        }
        if !self.returned.is_null() {
            let page = self.returned;
            // SAFETY: a descriptor in the returned list, which links the next.
            self.returned = unsafe { (*page).next };
            self.count(PAGE as isize);
            return page;
        }
        if self.base == 0 && !self.reserve_range() {
            return ptr::null_mut();
        }
        if self.top + PAGE > self.base + self.reserve {
            return ptr::null_mut();
        }
        if self.top + PAGE > self.committed {
            let step = COMMIT_STEP.min(self.base + self.reserve - self.committed);
            // SAFETY: part of this heap's reserved range.
            let writable = unsafe {
                libc::mprotect(self.committed as *mut libc::c_void, step, libc::PROT_READ | libc::PROT_WRITE)
            };
            if writable != 0 {
                // Past the data ceiling: the system allocator says the same, and the caller reports it.
                return ptr::null_mut();
            }
            self.committed += step;
        }
        let page = self.page_of(self.top as *mut u8);
        self.top += PAGE;
        self.count(PAGE as isize);
        page
    }

    /// An empty page back: kept resident while there are few, else its memory goes back to the kernel.
    fn release(&mut self, page: *mut Page) {
        let data = self.data(page) as *mut libc::c_void;
        // SAFETY: the page's memory, which no live block is in any more.
        if self.resident_count < self.spare_pages || unsafe { libc::madvise(data, PAGE, libc::MADV_DONTNEED) } != 0 {
            // SAFETY: an empty page's descriptor, out of every list.
            unsafe { (*page).next = self.resident };
            self.resident = page;
            self.resident_count += 1;
            return;
        }
        // SAFETY: as above.
        unsafe { (*page).next = self.returned };
        self.returned = page;
        self.count(-(PAGE as isize));
    }

    fn count(&self, bytes: isize) {
        self.budget.used.fetch_add(bytes, Ordering::Relaxed);
    }

    #[cold]
    fn reserve_range(&mut self) -> bool {
        if self.unavailable {
            return false;
        }
        self.unavailable = true;
        let none = libc::PROT_NONE;
        let flags = libc::MAP_PRIVATE | libc::MAP_ANONYMOUS | libc::MAP_NORESERVE;
        // SAFETY: fresh anonymous mappings; `PAGE` more than needed, to start on a page boundary.
        let range = unsafe { libc::mmap(ptr::null_mut(), self.reserve + PAGE, none, flags, -1, 0) };
        if range == libc::MAP_FAILED {
            return false;
        }
        let table_bytes = self.reserve / PAGE * std::mem::size_of::<Page>();
        let rw = libc::PROT_READ | libc::PROT_WRITE;
        // SAFETY: as above; an entry is touched only once its page is handed out.
        let table = unsafe { libc::mmap(ptr::null_mut(), table_bytes, rw, flags, -1, 0) };
        if table == libc::MAP_FAILED {
            // SAFETY: the mapping made just above.
            unsafe { libc::munmap(range, self.reserve + PAGE) };
            return false;
        }
        // Huge pages would fill a returned page's neighbours back in behind the count's back (khugepaged
        // collapses a range with a few live pages into one resident 2 MiB page).
        // SAFETY: advice on the mapping made above.
        unsafe { libc::madvise(range, self.reserve + PAGE, libc::MADV_NOHUGEPAGE) };
        let mut key = 0usize;
        // SAFETY: writes at most size_of::<usize>() bytes into `key`.
        let got =
            unsafe { libc::getrandom(&mut key as *mut usize as *mut libc::c_void, std::mem::size_of::<usize>(), 0) };
        self.key = if got == std::mem::size_of::<usize>() as isize && key != 0 { key } else { range as usize | 1 };
        self.base = (range as usize + PAGE - 1) & !(PAGE - 1);
        self.top = self.base;
        self.committed = self.base;
        self.pages = table as *mut Page;
        self.unavailable = false;
        true
    }
}

/// The heap's lists are not what it left them: end the process (the host rolls the session back) rather than
/// go on from memory the sandbox may have written.
#[cold]
#[inline(never)]
fn corrupted(what: &str) -> ! {
    // No formatting: that would allocate, here, from the heap this very call found corrupted.
    for part in ["fatal: the session's heap is corrupted (", what, ")\n"] {
        // SAFETY: a write of a valid buffer to stderr; its result does not matter.
        unsafe { libc::write(2, part.as_ptr() as *const libc::c_void, part.len()) };
    }
    std::process::abort()
}

/// Put a block of the heap whose remote-free list is `remote` on that list (from a thread other than its
/// owner).
///
/// # Safety
/// `block` is a live block of that heap, freed once.
pub unsafe fn push_remote(remote: &AtomicPtr<u8>, block: *mut u8) {
    let mut head = remote.load(Ordering::Relaxed);
    loop {
        // SAFETY: the block is ours to write now.
        unsafe { (block as *mut Block).write(Block { next: head as *mut Block, key: 0 }) };
        match remote.compare_exchange_weak(head, block, Ordering::Release, Ordering::Relaxed) {
            Ok(_) => return,
            Err(now) => head = now,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn heap(reserve: usize) -> (Heap, &'static Budget) {
        let budget: &'static Budget = Box::leak(Box::new(Budget::new()));
        let remote: &'static AtomicPtr<u8> = Box::leak(Box::new(AtomicPtr::new(ptr::null_mut())));
        (Heap::new(reserve, remote, budget), budget)
    }

    #[test]
    fn classes_cover_every_small_size_with_the_least_room_over() {
        for size in 1..=SMALL_MAX {
            let class = class_of(size);
            assert!(class < CLASSES && class_size(class) >= size, "{size}");
            assert!(class == 0 || class_size(class - 1) < size, "{size} fits a smaller class");
            assert_eq!(class_size(class) % SMALL_ALIGN, 0);
        }
    }

    #[test]
    fn a_block_carved_from_a_reused_page_is_not_marked_free() {
        // Fill pages of one class, free them all (the pages go to the spare list, their blocks marked), then
        // carve the same class again from those pages: no fresh block may carry the free mark, or freeing it
        // would take the double-free check's slow walk of its page (what made split-and-count cells slow).
        let (mut heap, _) = heap(64 << 20);
        let per_page = PAGE / class_size(class_of(24));
        let first: Vec<*mut u8> = (0..4 * per_page).map(|_| heap.alloc(24)).collect();
        for &block in &first {
            unsafe { heap.free(block) };
        }
        let second: Vec<*mut u8> = (0..4 * per_page).map(|_| heap.alloc(24)).collect();
        let reused = second.iter().filter(|block| first.contains(block)).count();
        assert!(reused > 3 * per_page, "the spare pages were not reused ({reused})");
        for &block in &second {
            assert_ne!(unsafe { (*(block as *mut Block)).key }, heap.key, "a live block marked free");
        }
        for &block in &second {
            unsafe { heap.free(block) };
        }
    }

    #[test]
    fn empty_pages_are_kept_up_to_the_spare_allowance_and_counted() {
        let (mut heap, budget) = heap(256 << 20);
        heap.keep_spare(8 << 20);
        let blocks: Vec<*mut u8> = (0..(32 << 20) / 512).map(|_| heap.alloc(512)).collect();
        let at_peak = budget.used();
        for &block in &blocks {
            unsafe { heap.free(block) };
        }
        // 8 MiB of empty pages stay, counted; the rest went back.
        assert_eq!(heap.resident_count, (8 << 20) / PAGE);
        assert!(budget.used() <= (8 << 20) + PAGE && budget.used() < at_peak, "{} of {at_peak}", budget.used());
    }

    #[test]
    fn blocks_are_distinct_aligned_in_range_and_reused_after_free() {
        let (mut heap, budget) = heap(64 << 20);
        let blocks: Vec<*mut u8> = (0..100_000).map(|i| heap.alloc(1 + i % SMALL_MAX)).collect();
        let (base, len) = heap.range();
        for (i, &block) in blocks.iter().enumerate() {
            assert!(!block.is_null());
            assert_eq!(block as usize % SMALL_ALIGN, 0);
            assert!((block as usize).wrapping_sub(base) < len);
            assert!(unsafe { heap.block_size(block) } >= 1 + i % SMALL_MAX);
            unsafe { block.write_bytes(i as u8, 1 + i % SMALL_MAX) };
        }
        let mut sorted = blocks.clone();
        sorted.sort();
        sorted.dedup();
        assert_eq!(sorted.len(), blocks.len(), "a block handed out twice");
        for (i, &block) in blocks.iter().enumerate() {
            let bytes = unsafe { std::slice::from_raw_parts(block, 1 + i % SMALL_MAX) };
            assert!(bytes.iter().all(|&b| b == i as u8), "block {i} was overwritten");
        }
        let held = budget.used();
        assert!(held >= blocks.iter().enumerate().map(|(i, _)| 1 + i % SMALL_MAX).sum::<usize>());
        let freed = blocks[5];
        unsafe { heap.free(freed) };
        assert_eq!(heap.alloc(1 + 5 % SMALL_MAX), freed, "the freed block is the next one of its class");
        for &block in &blocks {
            unsafe { heap.free(block) };
        }
        assert!(budget.used() < held / 4, "empty pages go back: {} of {held}", budget.used());
    }

    #[test]
    fn every_page_a_live_block_keeps_is_counted() {
        let (mut heap, budget) = heap(64 << 20);
        let per_page = PAGE / 16;
        let blocks: Vec<*mut u8> = (0..per_page * 100).map(|_| heap.alloc(16)).collect();
        for (i, &block) in blocks.iter().enumerate() {
            if i % per_page != 0 {
                unsafe { heap.free(block) };
            }
        }
        assert!(budget.used() >= 100 * PAGE, "one live block pins its page: {}", budget.used());
    }

    #[test]
    fn the_reserved_range_runs_out_into_null_and_returned_pages_are_reused() {
        let (mut heap, budget) = heap(8 * PAGE);
        let mut blocks = Vec::new();
        loop {
            let block = heap.alloc(SMALL_MAX);
            if block.is_null() {
                break;
            }
            blocks.push(block);
        }
        assert_eq!(blocks.len(), 8 * (PAGE / SMALL_MAX));
        assert_eq!(budget.used(), 8 * PAGE);
        for block in blocks.drain(..) {
            unsafe { heap.free(block) };
        }
        assert!(!heap.alloc(16).is_null(), "a freed page serves another class");
    }

    /// Run `check` in a forked child; its end: Ok(exit code) or Err(signal).
    fn in_child(check: fn()) -> Result<i32, i32> {
        // SAFETY: the child only runs `check` and exits; it never returns into the test harness.
        let pid = unsafe { libc::fork() };
        assert!(pid >= 0);
        if pid == 0 {
            check();
            // SAFETY: leave without running the harness's exit handlers.
            unsafe { libc::_exit(0) };
        }
        let mut status = 0;
        // SAFETY: waits for the child just forked.
        unsafe { libc::waitpid(pid, &mut status, 0) };
        if libc::WIFSIGNALED(status) {
            Err(libc::WTERMSIG(status))
        } else {
            Ok(libc::WEXITSTATUS(status))
        }
    }

    #[test]
    fn a_block_freed_twice_ends_the_process() {
        let twice = || {
            let (mut heap, _) = heap(8 << 20);
            let (a, _b) = (heap.alloc(32), heap.alloc(32));
            unsafe { heap.free(a) };
            unsafe { heap.free(a) };
        };
        assert_eq!(in_child(twice), Err(libc::SIGABRT));
        let once = || {
            let (mut heap, _) = heap(8 << 20);
            let (a, b) = (heap.alloc(32), heap.alloc(32));
            // A live block that holds the key as data is not taken for a free one.
            unsafe { (*(b as *mut Block)).key = heap.key };
            unsafe { heap.free(a) };
            unsafe { heap.free(b) };
        };
        assert_eq!(in_child(once), Ok(0));
    }

    #[test]
    fn a_free_list_link_overwritten_after_free_ends_the_process() {
        let overwritten = || {
            let (mut heap, _) = heap(8 << 20);
            let (a, b) = (heap.alloc(32), heap.alloc(32));
            unsafe { heap.free(a) };
            unsafe { heap.free(b) };
            // What a use-after-free would do: point the freed block's link at an address of its choosing.
            let target = Box::leak(Box::new([0u8; 64])).as_mut_ptr();
            unsafe { (*(b as *mut Block)).next = target as *mut Block };
            let _ = heap.alloc(32); // b
            let _ = heap.alloc(32); // would be `target` without the mask
        };
        assert_eq!(in_child(overwritten), Err(libc::SIGABRT));
    }

    #[test]
    fn blocks_freed_by_another_thread_come_back() {
        let (mut heap, _) = heap(64 << 20);
        let blocks: Vec<usize> = (0..(PAGE / 64) * 3).map(|_| heap.alloc(64) as usize).collect();
        let remote = heap.remote;
        let freed = blocks.clone();
        std::thread::spawn(move || {
            for &block in &freed {
                unsafe { push_remote(remote, block as *mut u8) };
            }
        })
        .join()
        .unwrap();
        heap.take_remote_frees();
        assert!(remote.load(Ordering::Acquire).is_null());
        let again = heap.alloc(64) as usize;
        assert!(blocks.contains(&again), "a block freed elsewhere is handed out again");
    }
}
