//! Adopted pages: a large str or bytes the host sends arrives in pages of a memfd the session has mapped;
//! rather than be copied into fresh pages (which this kind of machine fills at ~2 µs a page), those pages
//! become the heap block of the value: counted like any block, and unmapped when it is freed.

use std::sync::atomic::{AtomicUsize, Ordering};

use super::{account, page_size, refused};

/// Blocks at least this large may be adopted pages.
pub const ADOPT_FROM: usize = 64 << 10;
/// At most this many adopted blocks live at once; past that, values are copied as usual.
const ADOPTED_SLOTS: usize = 64;
/// The start of each live adopted block (0: a free slot), and how many there are.
static ADOPTED: [AtomicUsize; ADOPTED_SLOTS] = [const { AtomicUsize::new(0) }; ADOPTED_SLOTS];
static ADOPTED_LIVE: AtomicUsize = AtomicUsize::new(0);

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
    let slot =
        ADOPTED.iter().find(|slot| slot.compare_exchange(0, start, Ordering::AcqRel, Ordering::Relaxed).is_ok())?;
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
pub(super) fn adopted_slot(block: *mut u8, size: usize) -> Option<&'static AtomicUsize> {
    if size < ADOPT_FROM || ADOPTED_LIVE.load(Ordering::Acquire) == 0 {
        return None;
    }
    ADOPTED.iter().find(|slot| slot.load(Ordering::Acquire) == block as usize)
}

/// Free `block` if it is adopted pages: unmapped, and its slot cleared first (the address may be reused
/// as soon as it is unmapped).
pub(super) fn release_adopted(block: *mut u8, size: usize) -> bool {
    let Some(slot) = adopted_slot(block, size) else { return false };
    slot.store(0, Ordering::Release);
    ADOPTED_LIVE.fetch_sub(1, Ordering::AcqRel);
    // SAFETY: the adopted block's pages (munmap rounds `size` up to the end of its last page).
    unsafe { libc::munmap(block as *mut libc::c_void, size) };
    account(-(size as isize));
    true
}

#[cfg(test)]
mod tests {
    use std::ptr;

    use super::*;
    use crate::memory::{counted_on, Budget};

    #[test]
    fn adopted_pages_are_a_counted_heap_block_that_unmaps_when_freed() {
        let page = page_size();
        let pages = ADOPT_FROM / page + 2;
        let len = (pages - 1) * page + 10;
        let budget = Budget::new();
        // SAFETY: a private mapping made here, given up to the block below.
        let map = unsafe {
            libc::mmap(ptr::null_mut(), pages * page, libc::PROT_READ, libc::MAP_PRIVATE | libc::MAP_ANONYMOUS, -1, 0)
        };
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
}
