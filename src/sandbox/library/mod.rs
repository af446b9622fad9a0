//! The Python surface the sandbox puts in place of RustPython's, where CPython behaves differently or is much
//! faster and code models write leans on it, grouped as users know it: `builtins` (`sum`, `round`,
//! `__build_class__`), `str_methods` (methods, `format`, `%`, format specs), `re`, `set`, `collections`,
//! `heapq`, `itertools`, `sort`, `signatures` (builtins' `__text_signature__`), and `stdlib_fixes` for standard-library functions that take an argument
//! differently. The standard-library modules written here in Python are `stand_ins/`.

pub mod builtins;
mod collections;
pub mod dict_keys;
mod heapq;
mod itertools;
pub mod method;
pub mod re;
mod set;
mod signatures;
mod sort;
pub mod stdlib_fixes;
pub mod str_methods;
pub mod zlib;

use rustpython_vm::{PyResult, VirtualMachine};

use crate::sandbox::vm::wording;

/// Replace the builtins in the VM's `builtins` module (the zygote does it once, before any session exists).
pub fn install(vm: &VirtualMachine) -> PyResult<()> {
    builtins::install(vm)?;
    itertools::install(vm)?;
    collections::install(vm)?;
    dict_keys::install(vm)?;
    set::install(vm)?;
    // Before heapq, which takes `sorted` from builtins.
    sort::install(vm)?;
    heapq::install(vm)?;
    str_methods::install(vm)?;
    stdlib_fixes::install(vm)?;
    re::install(vm)?;
    signatures::install(vm)?;
    wording::install(vm)
}
