//! What both ends' conversions share (`host::convert`, `sandbox::bridge::values`): the plain-data set that crosses
//! (None, bool, int of any size, float, str, bytes, list, tuple, dict, set, frozenset, nested; on the host
//! side also the kinds of `host::known`), and the conversion error, which records where in
//! the value it happened, built while unwinding so that successful conversions pay nothing for it.

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
    /// A value of a library the session does not have (numpy's, pandas').
    #[error("is a {type_name}, which the sandbox has only when it is given {package}: RustInterpreter(packages=[\"{package}\"])")]
    NeedsPackage { type_name: String, package: String },
    #[error("is nested more than {MAX_DEPTH} levels deep, or contains itself")]
    TooDeep,
    #[error("holds more than {MAX_VALUES} values (counting shared parts each time they appear)")]
    TooLarge,
    #[error("could not be converted: {0}")]
    Failed(String),
    /// More data than the caller allows (`max_tool_result_bytes`), `seen` bytes when the walk stopped.
    #[error("holds more than {limit} bytes of data")]
    OverBudget { limit: usize, seen: usize },
}

impl ConvertErrorKind {
    /// Too deep or too large to show either: repr() of it would be as unbounded as converting it.
    pub fn is_size(&self) -> bool {
        matches!(self, Self::TooDeep | Self::TooLarge | Self::OverBudget { .. })
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
