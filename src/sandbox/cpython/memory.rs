//! What the packages allocate, counted against the session's memory limit like the VM's own large blocks: a request
//! that would pass the run's ceiling is refused, and what is held counts toward the limit the monitor enforces.
//!
//! - numpy's array data: numpy's allocator for it (`PyDataMem_SetHandler`, numpy's C API) is replaced, on the VM
//!   thread, by one that allocates from the system and counts (a refusal is numpy's own `MemoryError: Unable to
//!   allocate ...`).
//! - CPython's own memory: its raw allocator (what large objects and C code take) and its arenas (small objects)
//!   are wrapped (`PyMem_SetAllocator`, `PyObject_SetArenaAllocator`): a block made through the wrapper carries a
//!   header that marks it counted, so blocks CPython made before (in the zygote, uncounted) are freed uncounted.
//!   A refusal is CPython's `MemoryError`, and noted first, so a crash in C code that ignores a null is reported
//!   as memory.

use std::ffi::{c_char, c_void, CStr};

use pyo3::prelude::*;
use pyo3::types::PyCapsule;

use crate::memory;

/// numpy's `PyDataMemAllocator` (numpy/ndarraytypes.h, version 1).
#[repr(C)]
struct Allocator {
    ctx: *mut c_void,
    malloc: unsafe extern "C" fn(*mut c_void, usize) -> *mut c_void,
    calloc: unsafe extern "C" fn(*mut c_void, usize, usize) -> *mut c_void,
    realloc: unsafe extern "C" fn(*mut c_void, *mut c_void, usize) -> *mut c_void,
    free: unsafe extern "C" fn(*mut c_void, *mut c_void, usize),
}

/// numpy's `PyDataMem_Handler`.
#[repr(C)]
struct Handler {
    name: [c_char; 127],
    version: u8,
    allocator: Allocator,
}

/// Large array blocks freed, kept for the next array of about their size (address, usable size): a vectorised
/// expression makes and frees a temporary of the same size at every step, and a fresh block costs a page fault per
/// page (the session's allocator maps every large block anew, `worker::zygote`), where CPython's malloc reuses the
/// memory. A kept block is not counted (it holds no data), so together they are bounded: at most a quarter of the
/// memory limit (`KEPT_WITHOUT_LIMIT` without one), and given back when a request would otherwise be refused.
static KEPT: std::sync::Mutex<Vec<(usize, usize)>> = std::sync::Mutex::new(Vec::new());
const KEEP_FROM: usize = 1 << 20;
const KEEP_AT_MOST: usize = 4;
const KEPT_WITHOUT_LIMIT: usize = 512 << 20;

fn kept_room() -> usize {
    crate::sandbox::vm::limits::shared()
        .and_then(|shared| shared.options.memory_limit())
        .map_or(KEPT_WITHOUT_LIMIT, |limit| limit / 4)
}

fn kept_block(size: usize) -> Option<*mut c_void> {
    let mut kept = KEPT.lock().unwrap_or_else(|e| e.into_inner());
    let best = kept
        .iter()
        .enumerate()
        .filter(|(_, &(_, usable))| usable >= size && usable / 2 <= size)
        .min_by_key(|(_, &(_, usable))| usable)
        .map(|(at, _)| at)?;
    let (block, usable) = kept.swap_remove(best);
    memory::account(usable as isize);
    Some(block as *mut c_void)
}

fn give_back_kept() {
    let blocks = std::mem::take(&mut *KEPT.lock().unwrap_or_else(|e| e.into_inner()));
    for (block, _usable) in blocks {
        // SAFETY: a block of the system allocator this module kept.
        unsafe { libc::free(block as *mut c_void) };
    }
}

/// Whether `size` more bytes would pass the run's ceiling, once the kept blocks are given back.
fn refused_even_without_kept(size: usize) -> bool {
    if !memory::refuses_any(size) {
        return false;
    }
    give_back_kept();
    memory::refuses_any(size)
}

// SAFETY (all four): the C allocator's own contracts; the count uses the block's usable size both ways, so it
// holds whatever size numpy passes to `free`.
unsafe extern "C" fn counted_malloc(_: *mut c_void, size: usize) -> *mut c_void {
    if size >= KEEP_FROM {
        if let Some(block) = kept_block(size) {
            return block;
        }
    }
    if refused_even_without_kept(size) {
        return std::ptr::null_mut();
    }
    // SAFETY: see above.
    unsafe { counted(libc::malloc(size.max(1))) }
}

unsafe extern "C" fn counted_calloc(_: *mut c_void, count: usize, size: usize) -> *mut c_void {
    let total = count.saturating_mul(size);
    if total >= KEEP_FROM {
        if let Some(block) = kept_block(total) {
            // SAFETY: a kept block of at least `total` bytes.
            unsafe { std::ptr::write_bytes(block as *mut u8, 0, total) };
            return block;
        }
    }
    if refused_even_without_kept(total) {
        return std::ptr::null_mut();
    }
    // SAFETY: see above.
    unsafe { counted(libc::calloc(count.max(1), size.max(1))) }
}

unsafe extern "C" fn counted_realloc(_: *mut c_void, block: *mut c_void, size: usize) -> *mut c_void {
    // SAFETY: see above.
    let before = unsafe { usable(block) };
    if size > before && refused_even_without_kept(size - before) {
        return std::ptr::null_mut();
    }
    // SAFETY: see above.
    let moved = unsafe { libc::realloc(block, size.max(1)) };
    if !moved.is_null() {
        // SAFETY: see above.
        memory::account(unsafe { usable(moved) } as isize - before as isize);
    }
    moved
}

unsafe extern "C" fn counted_free(_: *mut c_void, block: *mut c_void, _size: usize) {
    // SAFETY: see above.
    let usable = unsafe { usable(block) };
    memory::account(-(usable as isize));
    if usable >= KEEP_FROM {
        let room = kept_room();
        let mut kept = KEPT.lock().unwrap_or_else(|e| e.into_inner());
        let held: usize = kept.iter().map(|&(_, size)| size).sum();
        if kept.len() < KEEP_AT_MOST && held + usable <= room {
            kept.push((block as usize, usable));
            return;
        }
    }
    // SAFETY: see above.
    unsafe { libc::free(block) }
}

unsafe fn counted(block: *mut c_void) -> *mut c_void {
    if !block.is_null() {
        // SAFETY: a block malloc just returned.
        memory::account(unsafe { usable(block) } as isize);
    }
    block
}

unsafe fn usable(block: *mut c_void) -> usize {
    // SAFETY: null or a block of the system allocator.
    if block.is_null() {
        0
    } else {
        unsafe { libc::malloc_usable_size(block) }
    }
}

/// The handler's slot in numpy's C API table (`PyDataMem_SetHandler`, numpy/__multiarray_api.h).
const SET_HANDLER: usize = 304;
const HANDLER_NAME: &CStr = c"dspy_rust_interpreter_counted";

/// Make numpy allocate array data through the counted allocator in this thread's context (the zygote's VM
/// thread: every session it forks inherits it). Nothing when numpy is not imported.
pub fn install_numpy(py: Python<'_>) -> PyResult<()> {
    let Some(umath) =
        ["numpy._core._multiarray_umath", "numpy.core._multiarray_umath"].iter().find_map(|name| py.import(*name).ok())
    else {
        return Ok(());
    };
    let table = umath.getattr("_ARRAY_API")?;
    let table = table.cast::<PyCapsule>()?;
    // SAFETY: numpy's API table is an array of function pointers behind an unnamed capsule.
    let api = unsafe { pyo3::ffi::PyCapsule_GetPointer(table.as_ptr(), std::ptr::null()) } as *const *const c_void;
    if api.is_null() {
        return Ok(());
    }
    let mut name = [0 as c_char; 127];
    for (slot, byte) in name.iter_mut().zip(HANDLER_NAME.to_bytes()) {
        *slot = *byte as c_char;
    }
    // Lives as long as the process: numpy keeps a pointer to it in each array it allocates.
    let handler = Box::leak(Box::new(Handler {
        name,
        version: 1,
        allocator: Allocator {
            ctx: std::ptr::null_mut(),
            malloc: counted_malloc,
            calloc: counted_calloc,
            realloc: counted_realloc,
            free: counted_free,
        },
    }));
    // SAFETY: the capsule names the handler "mem_handler" as numpy requires; numpy reads it, never frees it.
    let capsule =
        unsafe { pyo3::ffi::PyCapsule_New(handler as *mut Handler as *mut c_void, c"mem_handler".as_ptr(), None) };
    if capsule.is_null() {
        return Err(PyErr::fetch(py));
    }
    // SAFETY: slot 304 of numpy's API (1.22 and later) is `PyObject *PyDataMem_SetHandler(PyObject *)`, which
    // returns a new reference to the previous handler.
    unsafe {
        let set: unsafe extern "C" fn(*mut pyo3::ffi::PyObject) -> *mut pyo3::ffi::PyObject =
            std::mem::transmute(*api.add(SET_HANDLER));
        let previous = set(capsule);
        pyo3::ffi::Py_DecRef(capsule);
        if previous.is_null() {
            return Err(PyErr::fetch(py));
        }
        pyo3::ffi::Py_DecRef(previous);
    }
    Ok(())
}

/// CPython's `PyMemAllocatorEx` (cpython/pymem.h, 3.5 and later).
#[repr(C)]
#[derive(Clone, Copy)]
struct RawAllocator {
    ctx: *mut c_void,
    malloc: Option<unsafe extern "C" fn(*mut c_void, usize) -> *mut c_void>,
    calloc: Option<unsafe extern "C" fn(*mut c_void, usize, usize) -> *mut c_void>,
    realloc: Option<unsafe extern "C" fn(*mut c_void, *mut c_void, usize) -> *mut c_void>,
    free: Option<unsafe extern "C" fn(*mut c_void, *mut c_void)>,
}

/// CPython's `PyObjectArenaAllocator`.
#[repr(C)]
#[derive(Clone, Copy)]
struct ArenaAllocator {
    ctx: *mut c_void,
    alloc: Option<unsafe extern "C" fn(*mut c_void, usize) -> *mut c_void>,
    free: Option<unsafe extern "C" fn(*mut c_void, *mut c_void, usize)>,
}

// Not in the limited API, but in every CPython this wheel loads into (3.10 and later), with these layouts.
extern "C" {
    fn PyMem_GetAllocator(domain: std::ffi::c_int, allocator: *mut RawAllocator);
    fn PyMem_SetAllocator(domain: std::ffi::c_int, allocator: *mut RawAllocator);
    fn PyObject_GetArenaAllocator(allocator: *mut ArenaAllocator);
    fn PyObject_SetArenaAllocator(allocator: *mut ArenaAllocator);
}

const PYMEM_DOMAIN_RAW: std::ffi::c_int = 0;
/// Marks a raw block made through the wrapper: its header holds this mixed with the size counted, then the size
/// (a block from before has the system allocator's chunk header there, which would have to match both).
const COUNTED: u64 = 0x6473_7079_2d72_7573;
const HEADER: usize = 16;

/// The allocators wrapped, set once (in the zygote) before any wrapper runs.
static mut RAW: RawAllocator =
    RawAllocator { ctx: std::ptr::null_mut(), malloc: None, calloc: None, realloc: None, free: None };
static mut ARENA: ArenaAllocator = ArenaAllocator { ctx: std::ptr::null_mut(), alloc: None, free: None };

fn raw() -> RawAllocator {
    // SAFETY: written once, before the wrappers are installed; only read after.
    unsafe { *std::ptr::addr_of!(RAW) }
}

fn refuse(size: usize) -> bool {
    let refused = memory::refuses_any(size);
    if refused {
        memory::note_allocation_failure();
    }
    refused
}

/// The user's pointer of a block made at `block` holding `size` (the header written).
unsafe fn tagged(block: *mut c_void, size: usize) -> *mut c_void {
    if block.is_null() {
        return block;
    }
    // SAFETY: the block has `HEADER` bytes before what the caller gets, 16-aligned as malloc's.
    unsafe {
        let header = block as *mut u64;
        header.write(COUNTED ^ size as u64);
        header.add(1).write(size as u64);
        memory::account((size + HEADER) as isize);
        (block as *mut u8).add(HEADER) as *mut c_void
    }
}

/// The size a block was counted with, when the wrapper made it.
unsafe fn counted_size(user: *mut c_void) -> Option<usize> {
    if user.is_null() {
        return None;
    }
    // SAFETY: every block of the raw allocator has readable bytes before it: the wrapper's header, or the system
    // allocator's own chunk header (as large as `HEADER`).
    unsafe {
        let header = (user as *mut u8).sub(HEADER) as *mut u64;
        let size = header.add(1).read();
        (header.read() == COUNTED ^ size).then_some(size as usize)
    }
}

unsafe extern "C" fn raw_malloc(_: *mut c_void, size: usize) -> *mut c_void {
    if refuse(size) {
        return std::ptr::null_mut();
    }
    let inner = raw();
    // SAFETY: CPython's own allocator, with its own context.
    unsafe { tagged(inner.malloc.expect("wrapped")(inner.ctx, size + HEADER), size) }
}

unsafe extern "C" fn raw_calloc(_: *mut c_void, count: usize, size: usize) -> *mut c_void {
    let Some(total) = count.checked_mul(size) else { return std::ptr::null_mut() };
    if refuse(total) {
        return std::ptr::null_mut();
    }
    let inner = raw();
    // SAFETY: as `raw_malloc`; calloc of the header too, so the user's bytes are zero.
    unsafe { tagged(inner.calloc.expect("wrapped")(inner.ctx, 1, total + HEADER), total) }
}

unsafe extern "C" fn raw_realloc(_: *mut c_void, user: *mut c_void, size: usize) -> *mut c_void {
    let inner = raw();
    // SAFETY: as `raw_malloc`.
    unsafe {
        match counted_size(user) {
            None if user.is_null() => raw_malloc(std::ptr::null_mut(), size),
            // A block from before the wrapper: it stays the system's, uncounted.
            None => inner.realloc.expect("wrapped")(inner.ctx, user, size),
            Some(before) => {
                if size > before && refuse(size - before) {
                    return std::ptr::null_mut();
                }
                let block = (user as *mut u8).sub(HEADER) as *mut c_void;
                let moved = inner.realloc.expect("wrapped")(inner.ctx, block, size + HEADER);
                if moved.is_null() {
                    return moved;
                }
                memory::account(-((before + HEADER) as isize));
                tagged(moved, size)
            }
        }
    }
}

unsafe extern "C" fn raw_free(_: *mut c_void, user: *mut c_void) {
    let inner = raw();
    // SAFETY: as `raw_malloc`.
    unsafe {
        match counted_size(user) {
            Some(size) => {
                let block = (user as *mut u8).sub(HEADER);
                (block as *mut u64).write(0);
                memory::account(-((size + HEADER) as isize));
                inner.free.expect("wrapped")(inner.ctx, block as *mut c_void);
            }
            None => inner.free.expect("wrapped")(inner.ctx, user),
        }
    }
}

/// The arenas the wrapper made (their addresses): an arena from before it is freed uncounted.
static ARENAS: std::sync::Mutex<Vec<usize>> = std::sync::Mutex::new(Vec::new());

unsafe extern "C" fn arena_alloc(_: *mut c_void, size: usize) -> *mut c_void {
    if refuse(size) {
        return std::ptr::null_mut();
    }
    // SAFETY: read after being set once.
    let inner = unsafe { *std::ptr::addr_of!(ARENA) };
    // SAFETY: CPython's own arena allocator.
    let arena = unsafe { inner.alloc.expect("wrapped")(inner.ctx, size) };
    if !arena.is_null() {
        memory::account(size as isize);
        ARENAS.lock().unwrap_or_else(|e| e.into_inner()).push(arena as usize);
    }
    arena
}

unsafe extern "C" fn arena_free(_: *mut c_void, arena: *mut c_void, size: usize) {
    let mut arenas = ARENAS.lock().unwrap_or_else(|e| e.into_inner());
    if let Some(at) = arenas.iter().position(|&a| a == arena as usize) {
        arenas.swap_remove(at);
        memory::account(-(size as isize));
    }
    drop(arenas);
    // SAFETY: read after being set once.
    let inner = unsafe { *std::ptr::addr_of!(ARENA) };
    // SAFETY: an arena CPython's allocator made.
    unsafe { inner.free.expect("wrapped")(inner.ctx, arena, size) }
}

/// Wrap CPython's raw allocator and arenas (in the zygote, with CPython's lock held, once).
pub fn install_cpython(_py: Python<'_>) {
    // SAFETY: CPython's documented hooks: the wrappers call the allocators they wrap, and a block keeps going to
    // the allocator that made it.
    unsafe {
        let raw = &mut *std::ptr::addr_of_mut!(RAW);
        if raw.malloc.is_some() {
            return;
        }
        PyMem_GetAllocator(PYMEM_DOMAIN_RAW, raw);
        let mut wrapper = RawAllocator {
            ctx: std::ptr::null_mut(),
            malloc: Some(raw_malloc),
            calloc: Some(raw_calloc),
            realloc: Some(raw_realloc),
            free: Some(raw_free),
        };
        PyMem_SetAllocator(PYMEM_DOMAIN_RAW, &mut wrapper);
        let arena = &mut *std::ptr::addr_of_mut!(ARENA);
        PyObject_GetArenaAllocator(arena);
        let mut wrapper =
            ArenaAllocator { ctx: std::ptr::null_mut(), alloc: Some(arena_alloc), free: Some(arena_free) };
        PyObject_SetArenaAllocator(&mut wrapper);
    }
}
