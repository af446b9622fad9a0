//! Builtins as CPython computes them: `sum`, `round`, and a correction to `__build_class__`.

mod build_class;
mod round;
mod sum;

use rustpython_vm::{PyResult, VirtualMachine};

/// Replace them in the VM's `builtins` module (the zygote does it once, before any session exists).
pub fn install(vm: &VirtualMachine) -> PyResult<()> {
    vm.builtins.set_attr("sum", vm.new_function("sum", sum::sum), vm)?;
    vm.builtins.set_attr("round", vm.new_function("round", round::round), vm)?;
    build_class::install(vm)
}
