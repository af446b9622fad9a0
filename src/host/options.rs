//! `Options`: every option of a session, checked once where `RustInterpreter(**options)` is made (the Python
//! layer first turns dspy's file options and `packages` into mounts), then handed unchanged to every session
//! opened with it; `Session` takes nothing else, so what protects the host (positive limits, mounts that do not
//! overlap, the quotas) is checked here whoever calls. Its two tables: `session` (`protocol::options::
//! SessionOptions`, what the session process enforces) and `host` (`HostOptions` below, what the host reads);
//! how to add an option is in `protocol::options`.

use pyo3::exceptions::PyTypeError;
use pyo3::prelude::*;
use pyo3::types::PyDict;

use crate::host::mounts::{check_distinct, Mount};
use crate::protocol::files::{DEFAULT_MAX_BYTES, DEFAULT_MAX_FILES};
use crate::protocol::options::{
    count, count_or_none, flag, options, seconds, seconds_or_none, sequence, SessionOptions,
};

options! {
    /// The options only the host reads.
    #[pyclass(frozen, get_all, module = "dspy_rust_interpreter._native")]
    #[derive(Clone)]
    pub struct HostOptions {
        /// Seconds one tool call may take before the sandbox gets TimeoutError; None: no limit.
        tool_timeout: Option<f64> = None, seconds_or_none;
        /// Tool calls per session (until shutdown); past it every call raises RuntimeError. None: unlimited.
        max_tool_calls: Option<u64> = None, count_or_none::<0>;
        /// Size of one tool result (or streamed item); past it the call raises. None: no limit.
        max_tool_result_bytes: Option<u64> = None, count_or_none::<0>;
        /// A tool call taking longer than this is logged as a warning.
        slow_tool_seconds: f64 = 5.0, seconds;
        /// Host threads for the tool calls async sandbox code has in flight at once.
        max_concurrent_tools: u64 = 8, count::<1>;
        /// Host folders (or files) shown in the sandbox's filesystem; no two overlap.
        mounts: Vec<Mount> = Vec::new(), mounts;
        /// Bytes the session's files in memory hold at most, and bytes its writes may add to its mounts.
        files_max_bytes: u64 = DEFAULT_MAX_BYTES, count::<0>;
        /// Files the session holds in memory at most (and entries it may create in its mounts).
        files_max_count: u64 = DEFAULT_MAX_FILES, count::<0>;
        /// True: a tool result holding a value of no kind the sandbox has is refused (TypeError in the code)
        /// rather than crossing as its str().
        strict_values: bool = false, flag;
    }
}

/// Every option of a session: what the session process enforces, and what the host reads.
#[pyclass(frozen, get_all, module = "dspy_rust_interpreter._native")]
#[derive(Clone)]
pub struct Options {
    pub session: SessionOptions,
    pub host: HostOptions,
}

#[pymethods]
impl Options {
    /// The options, each from `options` or its default; TypeError names an unknown one, ValueError (or
    /// TypeError for a wrong kind of container) says what a bad value should be.
    #[new]
    #[pyo3(signature = (**options))]
    fn new(py: Python<'_>, options: Option<&Bound<'_, PyDict>>) -> PyResult<Self> {
        let given = options.cloned().unwrap_or_else(|| PyDict::new(py));
        let names = Self::names();
        let mut unknown: Vec<String> = Vec::new();
        for key in given.keys() {
            let key: String = key.extract()?;
            if !names.contains(&key.as_str()) {
                unknown.push(key);
            }
        }
        if !unknown.is_empty() {
            unknown.sort();
            return Err(PyTypeError::new_err(format!(
                "RustInterpreter() got unexpected option(s) {}; the options are: {}",
                unknown.join(", "),
                names.join(", ")
            )));
        }
        Ok(Self { session: SessionOptions::read(&given)?, host: HostOptions::read(&given)? })
    }

    /// The options as keyword arguments of `Options(...)` (and of `RustInterpreter(...)`).
    fn as_dict<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let dict = PyDict::new(py);
        self.session.write(&dict)?;
        self.host.write(&dict)?;
        Ok(dict)
    }

    /// The names of the options, sorted.
    #[staticmethod]
    fn names() -> Vec<&'static str> {
        let mut names: Vec<&str> = SessionOptions::NAMES.iter().chain(HostOptions::NAMES).copied().collect();
        names.sort();
        names
    }
}

/// A list or tuple of `Mount`s, no two overlapping.
fn mounts(value: &Bound<'_, PyAny>, _name: &str) -> PyResult<Vec<Mount>> {
    let shown = || value.repr().map(|r| r.to_string()).unwrap_or_else(|_| "?".into());
    let items = sequence(value).ok_or_else(|| {
        PyTypeError::new_err(format!("mounts must be a list of Mount(path, host_path, mode), got {}", shown()))
    })?;
    let mounts = items
        .iter()
        .map(|item| {
            item.cast::<Mount>().map(|mount| mount.get().clone()).map_err(|_| {
                let item = item.repr().map(|r| r.to_string()).unwrap_or_else(|_| "?".into());
                PyTypeError::new_err(format!("each mount must be a Mount(path, host_path, mode), got {item}"))
            })
        })
        .collect::<PyResult<Vec<Mount>>>()?;
    check_distinct(mounts.iter().map(Mount::path))?;
    Ok(mounts)
}
