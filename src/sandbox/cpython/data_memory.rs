//! numpy's array data counted against the session's memory limit: numpy's allocator for array data
//! (`PyDataMem_SetHandler`, numpy's C API) is replaced, on the VM thread, by one that allocates from the system
//! and counts on the session's budget like the VM's own large blocks: a request that would pass the run's
//! ceiling is refused (numpy raises its `MemoryError: Unable to allocate ...`), and what arrays hold counts
//! toward the limit the monitor enforces.

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

// SAFETY (all four): the C allocator's own contracts; the count uses the block's usable size both ways, so it
// holds whatever size numpy passes to `free`.
unsafe extern "C" fn counted_malloc(_: *mut c_void, size: usize) -> *mut c_void {
    if memory::refuses_any(size) {
        return std::ptr::null_mut();
    }
    // SAFETY: see above.
    unsafe { counted(libc::malloc(size.max(1))) }
}

unsafe extern "C" fn counted_calloc(_: *mut c_void, count: usize, size: usize) -> *mut c_void {
    if memory::refuses_any(count.saturating_mul(size)) {
        return std::ptr::null_mut();
    }
    // SAFETY: see above.
    unsafe { counted(libc::calloc(count.max(1), size.max(1))) }
}

unsafe extern "C" fn counted_realloc(_: *mut c_void, block: *mut c_void, size: usize) -> *mut c_void {
    // SAFETY: see above.
    let before = unsafe { usable(block) };
    if size > before && memory::refuses_any(size - before) {
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
    memory::account(-(unsafe { usable(block) } as isize));
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
pub fn install(py: Python<'_>) -> PyResult<()> {
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
