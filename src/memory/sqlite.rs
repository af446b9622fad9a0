//! SQLite's memory inside the session's budget: the bundled SQLite (the native `_sqlite3`) allocates through
//! these functions, set once in the zygote before SQLite initialises (`route_through_budget`), and so through
//! the counting allocator on the thread that runs it. The monitor sees a table grow as it sees any value, and
//! a request past the running job's ceiling is refused whatever its size: SQLite handles a null from its
//! allocator everywhere (`SQLITE_NOMEM`, the statement rolled back), which the sandbox raises as MemoryError,
//! as CPython does, and the session goes on.
//!
//! Each block carries its size in a header of 8 bytes (SQLite asks for no more alignment than that), as
//! SQLite's own allocator does over `malloc`.

use std::alloc::{self, Layout};
use std::ffi::{c_int, c_void};

use libsqlite3_sys::{sqlite3_config, sqlite3_mem_methods, SQLITE_CONFIG_MALLOC, SQLITE_OK};

const HEADER: usize = 8;
const ALIGN: usize = 8;

fn rounded(size: c_int) -> usize {
    (size.max(0) as usize + 7) & !7
}

fn layout(size: usize) -> Layout {
    // A size SQLite asked for (below 2^31), rounded, plus the header: never near isize::MAX.
    Layout::from_size_align(size + HEADER, ALIGN).expect("a block SQLite asks for fits a layout")
}

/// The block and the size stored in the header of `block`, a pointer `x_malloc` or `x_realloc` returned.
///
/// # Safety
/// `block` came from `x_malloc` or `x_realloc` and was not freed.
unsafe fn start_and_size(block: *mut c_void) -> (*mut u8, usize) {
    // SAFETY: the caller's block sits `HEADER` bytes into an allocation whose first word is its size.
    unsafe {
        let start = (block as *mut u8).sub(HEADER);
        (start, (start as *const u64).read() as usize)
    }
}

/// # Safety
/// `start` is a fresh allocation of `layout(size)`.
unsafe fn handed_out(start: *mut u8, size: usize) -> *mut c_void {
    if start.is_null() {
        return std::ptr::null_mut();
    }
    // SAFETY: the allocation holds the header and `size` bytes after it.
    unsafe {
        (start as *mut u64).write(size as u64);
        start.add(HEADER) as *mut c_void
    }
}

unsafe extern "C" fn x_malloc(size: c_int) -> *mut c_void {
    let size = rounded(size);
    if size == 0 || super::refuses_any(size + HEADER) {
        return std::ptr::null_mut();
    }
    // SAFETY: a non-zero-sized layout; the block is counted, and a null is SQLite's SQLITE_NOMEM.
    unsafe { handed_out(alloc::alloc(layout(size)), size) }
}

unsafe extern "C" fn x_free(block: *mut c_void) {
    if block.is_null() {
        return;
    }
    // SAFETY: SQLite frees only what its allocator gave it, once, with the layout it was made with.
    unsafe {
        let (start, size) = start_and_size(block);
        alloc::dealloc(start, layout(size));
    }
}

unsafe extern "C" fn x_realloc(block: *mut c_void, size: c_int) -> *mut c_void {
    if block.is_null() {
        // SAFETY: as `x_malloc`.
        return unsafe { x_malloc(size) };
    }
    let size = rounded(size);
    // SAFETY: SQLite's own block (it never asks to resize to 0: `sqlite3Realloc` frees instead).
    let (start, old) = unsafe { start_and_size(block) };
    if size == 0 || (size > old && super::refuses_any(size - old)) {
        // The old block stays valid, as `realloc`'s does on failure.
        return std::ptr::null_mut();
    }
    // SAFETY: the block's own layout, a new non-zero size.
    unsafe { handed_out(alloc::realloc(start, layout(old), size + HEADER), size) }
}

unsafe extern "C" fn x_size(block: *mut c_void) -> c_int {
    if block.is_null() {
        return 0;
    }
    // SAFETY: SQLite's own block.
    unsafe { start_and_size(block) }.1 as c_int
}

unsafe extern "C" fn x_roundup(size: c_int) -> c_int {
    rounded(size) as c_int
}

unsafe extern "C" fn x_init(_: *mut c_void) -> c_int {
    SQLITE_OK
}

unsafe extern "C" fn x_shutdown(_: *mut c_void) {}

/// Route SQLite's allocations through the session's budget. Called once, in the zygote, before anything opens
/// a database (SQLite refuses a new allocator once initialised); every session inherits it.
pub fn route_through_budget() -> Result<(), String> {
    let methods = sqlite3_mem_methods {
        xMalloc: Some(x_malloc),
        xFree: Some(x_free),
        xRealloc: Some(x_realloc),
        xSize: Some(x_size),
        xRoundup: Some(x_roundup),
        xInit: Some(x_init),
        xShutdown: Some(x_shutdown),
        pAppData: std::ptr::null_mut(),
    };
    // SAFETY: SQLite copies the methods (they need not outlive the call); not yet initialised in this process.
    let code = unsafe { sqlite3_config(SQLITE_CONFIG_MALLOC, &methods as *const sqlite3_mem_methods) };
    match code {
        SQLITE_OK => Ok(()),
        code => Err(format!("SQLite's allocator could not be set (SQLite's code {code})")),
    }
}
