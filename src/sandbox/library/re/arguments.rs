//! What the `Pattern` methods are given, read as `_sre` reads it: a subject's length, an int.

use rustpython_vm::builtins::{PyInt, PyStr};
use rustpython_vm::{PyObject, VirtualMachine};

/// A subject's length as `_sre` counts it: characters of a `str`, bytes of a buffer (an `array('i')` is read as
/// its bytes); `None` for anything else.
pub(super) fn subject_len(string: &PyObject, vm: &VirtualMachine) -> Option<usize> {
    match string.downcast_ref::<PyStr>() {
        Some(text) => Some(text.char_len()),
        None => string.try_to_value::<rustpython_vm::protocol::PyBuffer>(vm).ok().map(|buffer| buffer.desc.len),
    }
}

/// An `int` (or a subclass: `re.RegexFlag`) that fits a machine word; `None` for anything else.
pub(super) fn int(value: &PyObject) -> Option<isize> {
    value.downcast_ref::<PyInt>()?.as_bigint().try_into().ok()
}
