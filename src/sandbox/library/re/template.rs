//! Replacement templates as `re` reads them (`re._parser.parse_template`), in pieces.

use rustpython_vm::{PyObjectRef, PyResult, VirtualMachine};

/// A piece of a replacement template: text, or a group's match.
pub(super) enum Piece {
    Text(String),
    Group(usize),
}

/// `re._parser.parse_template(template, pattern)`: literals and group numbers in turn, or `re`'s error.
pub(super) fn parse_template(
    template: &PyObjectRef,
    pattern: &PyObjectRef,
    vm: &VirtualMachine,
) -> PyResult<Vec<PyObjectRef>> {
    let parser = vm.import("re._parser", 0)?;
    let parser = parser.get_attr("_parser", vm).unwrap_or(parser);
    let parse = parser.get_attr("parse_template", vm)?;
    parse.call((template.clone(), pattern.clone()), vm)?.try_to_value(vm)
}
