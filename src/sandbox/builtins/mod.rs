//! Builtins the sandbox puts in place of RustPython's own, where CPython behaves differently or is much faster
//! and code models write leans on them: one file per builtin, `patched` for standard-library functions that
//! take an argument differently, and `wording` for CPython's error messages.

mod build_class;
mod compress;
mod count_elements;
mod distinct_strs;
mod heapq_select;
mod format_spec;
pub(crate) mod patched;
pub mod regex;
mod round;
mod shared_strs;
mod sort;
mod str_ascii;
mod str_count;
mod str_format;
mod str_percent;
mod sum;
pub mod wording;

use rustpython_vm::builtins::descriptor::PyMethodDescriptor;
use rustpython_vm::builtins::PyType;
use rustpython_vm::function::{IntoPyNativeFn, ItemDoc, PyMethodFlags};
use rustpython_vm::{Py, PyRef, PyResult, VirtualMachine};

/// Replace the builtins in the VM's `builtins` module (the zygote does it once, before any session exists).
pub fn install(vm: &VirtualMachine) -> PyResult<()> {
    vm.builtins.set_attr("sum", vm.new_function("sum", sum::sum), vm)?;
    vm.builtins.set_attr("round", vm.new_function("round", round::round), vm)?;
    build_class::install(vm)?;
    compress::install(vm)?;
    count_elements::install(vm)?;
    distinct_strs::install(vm)?;
    // Before heapq_select, which takes `sorted` from builtins.
    sort::install(vm)?;
    heapq_select::install(vm)?;
    str_ascii::install(vm)?;
    str_count::install(vm)?;
    format_spec::install(vm)?;
    str_format::install(vm)?;
    str_percent::install(vm)?;
    patched::install(vm)?;
    regex::install(vm)?;
    wording::install(vm)
}

/// A method of `class` whose body binds its own arguments (`FuncArgs`), to put in place of the class's method
/// `name`: it keeps that method's doc, so `__text_signature__` and `inspect.signature` read as before, and it is
/// flagged as taking its arguments by vector with keywords, so that RustPython's call specialisation calls its
/// body straight from the frame (`CALL_METHOD_DESCRIPTOR_FAST_WITH_KEYWORDS`). `vm.new_method` sets neither,
/// which kept every call on the general path (vectorcall, the descriptor's type check, the native-call guard,
/// the argument vector made again): over 108,657 lines `line.strip()` took 11.8 ms that way and 8.9 this way,
/// `w.lower()` 147 -> 122 ns a word (CPython: 16 and 43; the rest is RustPython's argument vector and binding).
pub fn fast_method<F, FKind>(vm: &VirtualMachine, name: &'static str, class: &'static Py<PyType>, body: F) -> PyRef<PyMethodDescriptor>
where
    F: IntoPyNativeFn<FKind>,
{
    let original = class.get_attr(vm.ctx.intern_str(name));
    let doc = original
        .as_ref()
        .and_then(|original| original.downcast_ref::<PyMethodDescriptor>())
        .map_or(ItemDoc::NONE, |original| original.method.item_doc());
    let flags = PyMethodFlags::METHOD | PyMethodFlags::FASTCALL | PyMethodFlags::KEYWORDS;
    vm.ctx.new_method_def(name, body, flags, doc).build_method(class, vm)
}
