//! Builtins the sandbox puts in place of RustPython's own, where CPython behaves differently or is much faster
//! and code models write leans on them: one file per builtin, `patched` for standard-library functions that
//! take an argument differently, and `wording` for CPython's error messages.

mod build_class;
mod compress;
mod count_elements;
mod heapq_select;
mod format_spec;
mod patched;
pub mod regex;
mod round;
mod sort;
mod str_ascii;
mod str_format;
mod str_percent;
mod sum;
pub mod wording;

use rustpython_vm::{PyResult, VirtualMachine};

/// Replace the builtins in the VM's `builtins` module (the zygote does it once, before any session exists).
pub fn install(vm: &VirtualMachine) -> PyResult<()> {
    vm.builtins.set_attr("sum", vm.new_function("sum", sum::sum), vm)?;
    vm.builtins.set_attr("round", vm.new_function("round", round::round), vm)?;
    build_class::install(vm)?;
    compress::install(vm)?;
    count_elements::install(vm)?;
    // Before heapq_select, which takes `sorted` from builtins.
    sort::install(vm)?;
    heapq_select::install(vm)?;
    str_ascii::install(vm)?;
    format_spec::install(vm)?;
    str_format::install(vm)?;
    str_percent::install(vm)?;
    patched::install(vm)?;
    regex::install(vm)?;
    wording::install(vm)
}
