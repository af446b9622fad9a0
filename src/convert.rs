//! What both ends' conversions share (`host::convert`, `worker::convert`): the plain-data set that crosses
//! (None, bool, int of any size, float, str, bytes, list, tuple, dict, set, frozenset, nested; on the host
//! side also the kinds of `host::known`), and the conversion error, which records where in
//! the value it happened, built while unwinding so that successful conversions pay nothing for it.

use pyo3::prelude::*;
use rustpython_vm::builtins::{PyInt as VmInt, PyStr as VmStr};
use rustpython_vm::{AsObject, PyObjectRef, VirtualMachine};

pub use crate::protocol::value::{MAX_DEPTH, MAX_VALUES};

const SUPPORTED: &str = "None, bool, int, float, str, bytes, list, tuple, dict, set or frozenset";

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Direction {
    IntoSandbox,
    OutOfSandbox,
}

#[derive(Debug, thiserror::Error)]
pub enum ConvertErrorKind {
    #[error("has type '{type_name}', which cannot {direction}; use {SUPPORTED}{hint}", direction = match .direction { Direction::IntoSandbox => "enter the sandbox", Direction::OutOfSandbox => "leave the sandbox" }, hint = match .direction { Direction::IntoSandbox => " (pydantic models, dataclasses and named tuples cross as dicts; dates, times, Decimal, UUID, enums and paths are converted too)", Direction::OutOfSandbox => " (convert it, e.g. with str() or a dict of its fields)" })]
    Unsupported { type_name: String, direction: Direction },
    #[error("is nested more than {MAX_DEPTH} levels deep, or contains itself")]
    TooDeep,
    #[error("holds more than {MAX_VALUES} values (counting shared parts each time they appear)")]
    TooLarge,
    #[error("could not be converted: {0}")]
    Failed(String),
}

impl ConvertErrorKind {
    /// Too deep or too large to show either: repr() of it would be as unbounded as converting it.
    pub fn is_size(&self) -> bool {
        matches!(self, Self::TooDeep | Self::TooLarge)
    }
}

/// A conversion failure and where it happened, e.g. `['items'][3]`.
#[derive(Debug)]
pub struct ConvertError {
    /// Path segments, innermost first (they are added while unwinding).
    segments: Vec<String>,
    pub kind: ConvertErrorKind,
}

impl ConvertError {
    pub(crate) fn new(kind: ConvertErrorKind) -> Self {
        Self { segments: Vec::new(), kind }
    }

    pub(crate) fn within(mut self, segment: String) -> Self {
        self.segments.push(segment);
        self
    }

    /// Describe the failure for a value called `root` (e.g. "variable 'data'" -> "data['k'][2] has type ...").
    pub fn describe(&self, root: &str) -> String {
        let path: String = self.segments.iter().rev().map(String::as_str).collect();
        format!("{root}{path} {}", self.kind)
    }
}

pub(crate) fn index_segment(i: usize) -> String {
    format!("[{i}]")
}

pub(crate) fn type_name(obj: &Bound<'_, PyAny>) -> String {
    obj.get_type().name().map(|n| n.to_string()).unwrap_or_else(|_| "?".into())
}

pub(crate) fn failed(py: Python<'_>, err: PyErr) -> ConvertError {
    ConvertError::new(ConvertErrorKind::Failed(err.value(py).to_string()))
}

pub(crate) fn sandbox_failed(vm: &VirtualMachine, exc: rustpython_vm::builtins::PyBaseExceptionRef) -> ConvertError {
    let message = exc.as_object().str(vm).map(|s| s.to_string_lossy().into_owned()).unwrap_or_default();
    ConvertError::new(ConvertErrorKind::Failed(format!("{}: {message}", exc.class().name())))
}

/// A dict key for an error path, without running sandbox code (a user `__repr__` could loop while the GIL
/// is held): strings and numbers as themselves, anything else by its type.
pub(crate) fn describe_sandbox_key(key: &PyObjectRef, vm: &VirtualMachine) -> String {
    if let Some(s) = key.downcast_ref::<VmStr>() {
        let text = s.to_string_lossy();
        format!("'{}'", text.replace('\\', "\\\\").replace('\'', "\\'").replace('\n', "\\n"))
    } else if key.downcast_ref::<VmInt>().is_some() && key.class().is(vm.ctx.types.int_type) {
        key.downcast_ref::<VmInt>().map(|i| i.as_bigint().to_string()).unwrap_or_default()
    } else {
        format!("<{} key>", key.class().name())
    }
}
