//! Builtins the sandbox puts in place of RustPython's own, where CPython behaves differently or is much faster
//! and code models write leans on them: one file per builtin, and `wording` for CPython's error messages.

mod sum;
pub mod wording;

use rustpython_vm::{PyResult, VirtualMachine};

/// Replace the builtins in the VM's `builtins` module (the zygote does it once, before any session exists).
pub fn install(vm: &VirtualMachine) -> PyResult<()> {
    vm.builtins.set_attr("sum", vm.new_function("sum", sum::sum), vm)?;
    wording::install(vm)
}
