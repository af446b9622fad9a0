//! `str` as code models use it on whole contexts: methods by bytes for ASCII text (`ascii`), `count`, the
//! formatting of `str.format` (`format`), of `%` (`percent`) and of format specs (`format_spec`), and equal
//! strs cut from one text made once (`shared`).

pub mod ascii;
mod count;
mod format;
mod format_spec;
mod percent;
pub mod shared;

use rustpython_vm::{PyResult, VirtualMachine};

/// Replace the methods (the zygote does it once, before any session exists).
pub fn install(vm: &VirtualMachine) -> PyResult<()> {
    ascii::install(vm)?;
    count::install(vm)?;
    format_spec::install(vm)?;
    format::install(vm)?;
    percent::install(vm)
}
