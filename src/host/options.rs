//! `Options`: every limit and setting of a session, with its default and its check, in one place. Made once,
//! where `RustInterpreter(**options)` is (the Python layer first turns dspy's file options and `packages` into
//! mounts), then handed unchanged to every session opened with it; `Session` takes nothing else, so what
//! protects the host (positive limits, mounts that do not overlap, the quotas) is checked here whoever calls.
//!
//! To add an option: a field below, its default in `DEFAULTS`, its check in `Options::new`, a line in
//! `_native.pyi`, its row in the README's table; then use it where it acts (`SessionOptions` if the session
//! process needs it).

use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyBool, PyDict, PyFloat, PyInt, PyList, PyString, PyTuple};

use crate::host::mounts::{check_distinct, Mount};
use crate::protocol::files::{DEFAULT_MAX_BYTES, DEFAULT_MAX_FILES};
use crate::protocol::message::LONGEST_WAIT;

/// The options, as the sandbox and the Python layer read them.
#[pyclass(frozen, get_all, module = "dspy_rust_interpreter._native")]
#[derive(Clone)]
pub struct Options {
    /// Seconds of sandbox execution per execute() (time inside host tools is not counted); None: no limit.
    pub timeout: Option<f64>,
    /// Seconds that code ignoring a stop (a long native operation) gets before the session is abandoned.
    pub abandon_after: f64,
    /// Characters of printed output kept per execute(); the rest is dropped with a note saying how much.
    pub max_output_chars: u64,
    /// Bytes the sandbox's VM may hold; growth past it is stopped with MemoryError. None: no limit.
    pub memory_limit: Option<u64>,
    /// Seconds one tool call may take before the sandbox gets TimeoutError; None: no limit.
    pub tool_timeout: Option<f64>,
    /// Tool calls per session (until shutdown); past it every call raises RuntimeError. None: unlimited.
    pub max_tool_calls: Option<u64>,
    /// Size of one tool result (or streamed item); past it the call raises. None: no limit.
    pub max_tool_result_bytes: Option<u64>,
    /// A tool call taking longer than this is logged as a warning.
    pub slow_tool_seconds: f64,
    /// Host threads for the tool calls async sandbox code has in flight at once.
    pub max_concurrent_tools: u64,
    /// Modules imported while the sandbox is built.
    pub preload: Vec<String>,
    /// Host folders (or files) shown in the sandbox's filesystem; no two overlap.
    pub mounts: Vec<Mount>,
    /// Bytes the session's files in memory hold at most, and bytes its writes may add to its mounts.
    pub files_max_bytes: u64,
    /// Files the session holds in memory at most (and entries it may create in its mounts).
    pub files_max_count: u64,
    /// True: a tool result holding a value of no kind the sandbox has is refused (TypeError in the code)
    /// rather than crossing as its str().
    pub strict_values: bool,
}

/// The defaults, by name, in the order the README lists them.
const DEFAULTS: &[(&str, Default)] = &[
    ("timeout", Default::Seconds(Some(30.0))),
    ("abandon_after", Default::Seconds(Some(5.0))),
    ("max_output_chars", Default::Count(Some(2_000_000))),
    ("memory_limit", Default::Count(Some(1 << 30))),
    ("tool_timeout", Default::Seconds(None)),
    ("max_tool_calls", Default::Count(None)),
    ("max_tool_result_bytes", Default::Count(None)),
    ("slow_tool_seconds", Default::Seconds(Some(5.0))),
    ("max_concurrent_tools", Default::Count(Some(8))),
    ("preload", Default::Empty),
    ("mounts", Default::Empty),
    ("files_max_bytes", Default::Count(Some(DEFAULT_MAX_BYTES))),
    ("files_max_count", Default::Count(Some(DEFAULT_MAX_FILES))),
    ("strict_values", Default::Flag(false)),
];

enum Default {
    Seconds(Option<f64>),
    Count(Option<u64>),
    Flag(bool),
    Empty,
}

impl Default {
    fn value<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        Ok(match self {
            Default::Seconds(value) => value.into_pyobject(py)?.into_any(),
            Default::Count(value) => value.into_pyobject(py)?.into_any(),
            Default::Flag(value) => PyBool::new(py, *value).to_owned().into_any(),
            Default::Empty => PyTuple::empty(py).into_any(),
        })
    }
}

#[pymethods]
impl Options {
    /// The options, each from `options` or its default; TypeError names an unknown one, ValueError (or
    /// TypeError for a wrong kind of container) says what a bad value should be.
    #[new]
    #[pyo3(signature = (**options))]
    fn new(py: Python<'_>, options: Option<&Bound<'_, PyDict>>) -> PyResult<Self> {
        let given = options.cloned().unwrap_or_else(|| PyDict::new(py));
        let mut unknown: Vec<String> = Vec::new();
        for key in given.keys() {
            let key: String = key.extract()?;
            if !DEFAULTS.iter().any(|(name, _)| *name == key) {
                unknown.push(key);
            }
        }
        if !unknown.is_empty() {
            unknown.sort();
            return Err(PyTypeError::new_err(format!(
                "RustInterpreter() got unexpected option(s) {}; the options are: {}",
                unknown.join(", "),
                Self::names().join(", ")
            )));
        }
        let get = |name: &str| -> PyResult<Bound<'_, PyAny>> {
            match given.get_item(name)? {
                Some(value) => Ok(value),
                None => DEFAULTS.iter().find(|(known, _)| *known == name).expect("a known option").1.value(py),
            }
        };
        Ok(Self {
            timeout: optional(&get("timeout")?, |v| seconds(v, "timeout", "a positive number of seconds or None"))?,
            abandon_after: seconds(&get("abandon_after")?, "abandon_after", "a positive number of seconds")?,
            max_output_chars: count(&get("max_output_chars")?, 0, "max_output_chars", "a non-negative int")?,
            memory_limit: optional(&get("memory_limit")?, |v| {
                count(v, 1, "memory_limit", "a positive number of bytes or None")
            })?,
            tool_timeout: optional(&get("tool_timeout")?, |v| {
                seconds(v, "tool_timeout", "a positive number of seconds or None")
            })?,
            max_tool_calls: optional(&get("max_tool_calls")?, |v| {
                count(v, 0, "max_tool_calls", "a non-negative int or None")
            })?,
            max_tool_result_bytes: optional(&get("max_tool_result_bytes")?, |v| {
                count(v, 0, "max_tool_result_bytes", "a non-negative int or None")
            })?,
            slow_tool_seconds: seconds(&get("slow_tool_seconds")?, "slow_tool_seconds", "a positive number of seconds")?,
            max_concurrent_tools: count(&get("max_concurrent_tools")?, 1, "max_concurrent_tools", "a positive int")?,
            preload: module_names(&get("preload")?)?,
            mounts: mounts(&get("mounts")?)?,
            files_max_bytes: count(&get("files_max_bytes")?, 0, "files_max_bytes", "a non-negative int")?,
            files_max_count: count(&get("files_max_count")?, 0, "files_max_count", "a non-negative int")?,
            strict_values: flag(&get("strict_values")?, "strict_values")?,
        })
    }

    /// The options as keyword arguments of `Options(...)` (and of `RustInterpreter(...)`).
    fn as_dict<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let dict = PyDict::new(py);
        dict.set_item("timeout", self.timeout)?;
        dict.set_item("abandon_after", self.abandon_after)?;
        dict.set_item("max_output_chars", self.max_output_chars)?;
        dict.set_item("memory_limit", self.memory_limit)?;
        dict.set_item("tool_timeout", self.tool_timeout)?;
        dict.set_item("max_tool_calls", self.max_tool_calls)?;
        dict.set_item("max_tool_result_bytes", self.max_tool_result_bytes)?;
        dict.set_item("slow_tool_seconds", self.slow_tool_seconds)?;
        dict.set_item("max_concurrent_tools", self.max_concurrent_tools)?;
        dict.set_item("preload", PyTuple::new(py, &self.preload)?)?;
        dict.set_item("mounts", PyTuple::new(py, self.mounts.iter().cloned())?)?;
        dict.set_item("files_max_bytes", self.files_max_bytes)?;
        dict.set_item("files_max_count", self.files_max_count)?;
        dict.set_item("strict_values", self.strict_values)?;
        Ok(dict)
    }

    /// The names of the options, sorted.
    #[staticmethod]
    fn names() -> Vec<&'static str> {
        let mut names: Vec<&str> = DEFAULTS.iter().map(|(name, _)| *name).collect();
        names.sort();
        names
    }
}

fn invalid(name: &str, should: &str, value: &Bound<'_, PyAny>) -> PyErr {
    let shown = value.repr().map(|r| r.to_string()).unwrap_or_else(|_| "?".into());
    PyValueError::new_err(format!("{name} must be {should}, got {shown}"))
}

fn optional<T>(value: &Bound<'_, PyAny>, check: impl FnOnce(&Bound<'_, PyAny>) -> PyResult<T>) -> PyResult<Option<T>> {
    if value.is_none() {
        Ok(None)
    } else {
        check(value).map(Some)
    }
}

/// A number of seconds of at least a microsecond (an int or a float, not a bool); one past `LONGEST_WAIT` is
/// that. An int's own value is read, never a subclass's `__float__`.
fn seconds(value: &Bound<'_, PyAny>, name: &str, should: &str) -> PyResult<f64> {
    let seconds = if value.is_instance_of::<PyBool>() {
        return Err(invalid(name, should, value));
    } else if let Ok(float) = value.cast::<PyFloat>() {
        float.value()
    } else if value.is_instance_of::<PyInt>() {
        let int: num_bigint::BigInt = value.extract()?;
        num_traits::ToPrimitive::to_f64(&int).unwrap_or(f64::INFINITY)
    } else {
        return Err(invalid(name, should, value));
    };
    if seconds >= 1e-6 {
        Ok(seconds.min(LONGEST_WAIT.as_secs_f64()))
    } else {
        Err(invalid(name, should, value))
    }
}

/// An int (not a bool) of at least `least`, its own value read (never a subclass's comparisons); one past u64
/// reads as u64's largest (no limit can be that large).
fn count(value: &Bound<'_, PyAny>, least: u64, name: &str, should: &str) -> PyResult<u64> {
    if value.is_instance_of::<PyBool>() || !value.is_instance_of::<PyInt>() {
        return Err(invalid(name, should, value));
    }
    let int: num_bigint::BigInt = value.extract()?;
    let number = match num_traits::ToPrimitive::to_u64(&int) {
        Some(number) => number,
        None if int.sign() == num_bigint::Sign::Plus => u64::MAX,
        None => return Err(invalid(name, should, value)),
    };
    if number < least {
        return Err(invalid(name, should, value));
    }
    Ok(number)
}

fn flag(value: &Bound<'_, PyAny>, name: &str) -> PyResult<bool> {
    value.cast::<PyBool>().map(|b| b.is_true()).map_err(|_| invalid(name, "True or False", value))
}

/// A list or tuple (not a string) of the items `value` holds.
fn sequence<'py>(value: &Bound<'py, PyAny>) -> Option<Vec<Bound<'py, PyAny>>> {
    if let Ok(list) = value.cast::<PyList>() {
        Some(list.iter().collect())
    } else {
        value.cast::<PyTuple>().ok().map(|tuple| tuple.iter().collect())
    }
}

fn module_names(value: &Bound<'_, PyAny>) -> PyResult<Vec<String>> {
    let should = "a list or tuple of module names";
    let items = sequence(value).ok_or_else(|| invalid("preload", should, value))?;
    items
        .iter()
        .map(|item| {
            // The string's own text (`to_str`), never a subclass's `__str__`.
            let name = item.cast::<PyString>().map_err(|_| invalid("preload", should, value))?.to_str()?.to_owned();
            let each_part_an_identifier = name.split('.').all(|part| {
                PyString::new(value.py(), part).call_method0("isidentifier").and_then(|is| is.is_truthy()).unwrap_or(false)
            });
            if each_part_an_identifier {
                Ok(name)
            } else {
                Err(invalid("preload", should, value))
            }
        })
        .collect()
}

fn mounts(value: &Bound<'_, PyAny>) -> PyResult<Vec<Mount>> {
    let shown = || value.repr().map(|r| r.to_string()).unwrap_or_else(|_| "?".into());
    let items = sequence(value)
        .ok_or_else(|| PyTypeError::new_err(format!("mounts must be a list of Mount(path, host_path, mode), got {}", shown())))?;
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
