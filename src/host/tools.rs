//! Host tools, called on the caller's own thread when a session process asks: by name, only among the
//! tools this session registered, inside the caller's `contextvars` copy (so tools see dspy's settings).
//! Calls that async sandbox code starts run at the same time instead, on the interpreter's bounded pool
//! (`ConcurrentCalls` in `_concurrent_calls.py`), each in a copy of that context.
//! Arguments were bound to the tool's signature in the session (by its stand-in); here they only cross back
//! into host values, checked, as everything from a session process is. A result crosses into the session by one walk
//! (`convert`), which also counts it against `max_tool_result_bytes`; an iterator stays here, pulled item by
//! item (`ToolResult::Stream`, `ToHost::StreamPull`).

use std::cell::Cell;
use std::collections::HashMap;
use std::time::{Duration, Instant};

use pyo3::exceptions::PyTypeError;
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyTuple};

use crate::host::convert;
use crate::protocol::conversion::{ConvertError, ConvertErrorKind};
use crate::protocol::message::{HostError, ToolDecl, ToolResult};
use crate::protocol::value::Value;

/// What a value sent into the session may be, from its options: a tool's result of a kind the sandbox knows
/// (`strict_values`), else passed as its str(), and at most `max_bytes` of data (`max_tool_result_bytes`); any
/// value may be one of `libraries`' (the session's packages among numpy and pandas).
#[derive(Clone, Default)]
pub struct ValueRules {
    pub strict_values: bool,
    pub max_bytes: Option<u64>,
    pub libraries: std::sync::Arc<[String]>,
}

/// What a tool's host call returns for a result that is a stream (`ToolRuntime` keeps the iterator under
/// `id`): the session gets `ToolResult::Stream(id)` and pulls the items through `ToolHooks.pull_stream`.
#[pyclass(frozen, get_all, module = "dspy_rust_interpreter._native")]
pub struct StreamOpened {
    pub id: u64,
}

#[pymethods]
impl StreamOpened {
    #[new]
    fn new(id: u64) -> Self {
        Self { id }
    }
}

/// The host's part of what a session does with tools besides a plain call, as the Python layer provides it
/// (`ToolRuntime`): the next item of a stream, and the pool the calls of async sandbox code run on at once
/// (`ConcurrentCalls`). Each is a callable, checked when this is made; these five are the whole interface.
#[pyclass(frozen, module = "dspy_rust_interpreter._native")]
pub struct ToolHooks {
    /// `(tool, stream, close) -> (more, item)`: the next item of stream `stream` of `tool`, `(False, None)`
    /// at its end; with `close`, the stream is ended.
    pull_stream: Py<PyAny>,
    /// `() -> int`: a run starts using the pool; the eventfd its calls' outcomes are signalled on.
    begin: Py<PyAny>,
    /// `(call_id, func, args, kwargs, context) -> None`: run one call on the pool.
    start: Py<PyAny>,
    /// `() -> list[(call_id, ok, value or exception)]`: the outcomes handed back since the last take.
    take: Py<PyAny>,
    /// `() -> None`: the run is over; async calls still running are cancelled, outcomes still to come dropped.
    abandon: Py<PyAny>,
}

#[pymethods]
impl ToolHooks {
    #[new]
    #[pyo3(signature = (*, pull_stream, begin, start, take, abandon))]
    fn new(
        pull_stream: Bound<'_, PyAny>,
        begin: Bound<'_, PyAny>,
        start: Bound<'_, PyAny>,
        take: Bound<'_, PyAny>,
        abandon: Bound<'_, PyAny>,
    ) -> PyResult<Self> {
        let callable = |name: &str, hook: Bound<'_, PyAny>| {
            if hook.is_callable() {
                Ok(hook.unbind())
            } else {
                Err(PyTypeError::new_err(format!(
                    "ToolHooks: {name} must be callable, not {}",
                    hook.get_type().name().map(|n| n.to_string()).unwrap_or_default()
                )))
            }
        };
        Ok(Self {
            pull_stream: callable("pull_stream", pull_stream)?,
            begin: callable("begin", begin)?,
            start: callable("start", start)?,
            take: callable("take", take)?,
            abandon: callable("abandon", abandon)?,
        })
    }
}

impl ToolHooks {
    /// A run starts using the pool: the eventfd to poll for its calls' outcomes.
    pub fn begin(&self, py: Python<'_>) -> PyResult<std::os::fd::RawFd> {
        self.begin.bind(py).call0()?.extract()
    }

    /// The outcomes of pooled calls since the last take; a malformed entry is skipped.
    pub fn take<'py>(&self, py: Python<'py>) -> Vec<(u64, PyResult<Bound<'py, PyAny>>)> {
        let Ok(done) = self.take.bind(py).call0() else { return Vec::new() };
        let Ok(items) = done.try_iter() else { return Vec::new() };
        items
            .flatten()
            .filter_map(|item| item.extract::<(u64, bool, Bound<'py, PyAny>)>().ok())
            .map(|(call_id, ok, value)| (call_id, if ok { Ok(value) } else { Err(PyErr::from_value(value)) }))
            .collect()
    }

    pub fn abandon(&self, py: Python<'_>) {
        // Nothing to do about a pool that fails to cancel: the run is over either way.
        drop(self.abandon.bind(py).call0());
    }
}

/// A tool as the Python layer hands it over: name, callable, and the source of its sandbox stand-in (None: a
/// generic one).
pub type ToolSpec = (String, Py<PyAny>, Option<String>);

/// The tools of one session: the callables stay here, the session gets their declarations.
#[derive(Default)]
pub struct ToolTable {
    callables: HashMap<String, Py<PyAny>>,
    declarations: Vec<ToolDecl>,
    rules: ValueRules,
    /// Results refused for `max_tool_result_bytes` since the last `take_results_too_large`.
    results_too_large: Cell<u32>,
}

impl ToolTable {
    pub fn new(specs: Vec<ToolSpec>, rules: ValueRules) -> Self {
        let mut table = Self { rules, ..Self::default() };
        for (name, callable, source) in specs {
            table.callables.insert(name.clone(), callable);
            table.declarations.push(ToolDecl { name, source });
        }
        table
    }

    pub fn declarations(&self) -> Vec<ToolDecl> {
        self.declarations.clone()
    }

    pub fn clone_ref(&self, py: Python<'_>) -> Self {
        Self {
            callables: self.callables.iter().map(|(name, callable)| (name.clone(), callable.clone_ref(py))).collect(),
            declarations: self.declarations.clone(),
            rules: self.rules.clone(),
            results_too_large: Cell::new(0),
        }
    }

    /// How many results were refused for `max_tool_result_bytes` since the last time this was asked.
    pub fn take_results_too_large(&self) -> u32 {
        self.results_too_large.take()
    }

    /// Call tool `name` for the session; every failure is an answer the session can raise.
    pub fn call(
        &self,
        py: Python<'_>,
        name: &str,
        args: Vec<Value>,
        kwargs: Vec<(String, Value)>,
        context: Option<&Bound<'_, PyAny>>,
    ) -> (ToolResult, Duration) {
        let (callable, positional, keyword) = match self.bind(py, name, &args, &kwargs) {
            Ok(bound) => bound,
            Err(refused) => return (refused, Duration::ZERO),
        };
        let called = Instant::now();
        let result = match context {
            Some(context) => {
                let run_args: Vec<Bound<'_, PyAny>> =
                    std::iter::once(callable.bind(py).clone()).chain(positional.iter()).collect();
                PyTuple::new(py, run_args)
                    .and_then(|run_args| context.call_method(pyo3::intern!(py, "run"), run_args, Some(&keyword)))
            }
            None => callable.bind(py).call(positional, Some(&keyword)),
        };
        // The tool's own run, as its host side measured it (`ToolRuntime.own`): checking the arguments against
        // the tool's annotations is inside the call, and is the session's work.
        let measured = called.elapsed();
        let own = callable
            .bind(py)
            .getattr(pyo3::intern!(py, "runtime"))
            .and_then(|runtime| runtime.getattr(pyo3::intern!(py, "own")))
            .and_then(|own| own.getattr(pyo3::intern!(py, "seconds")))
            .and_then(|seconds| seconds.extract::<f64>())
            .ok()
            .and_then(|seconds| Duration::try_from_secs_f64(seconds).ok())
            .map_or(measured, |own| own.min(measured));
        (self.outcome(py, name, result), own)
    }

    /// Start tool `name` for the session on the pool of `hooks`, to run while the session goes on; its outcome
    /// comes back from `hooks.take()`. A call that cannot start is answered at once.
    pub fn start(
        &self,
        py: Python<'_>,
        call_id: u64,
        name: &str,
        args: Vec<Value>,
        kwargs: Vec<(String, Value)>,
        context: Option<&Bound<'_, PyAny>>,
        hooks: &ToolHooks,
    ) -> Result<(), ToolResult> {
        let (callable, positional, keyword) = self.bind(py, name, &args, &kwargs)?;
        hooks
            .start
            .bind(py)
            .call1((call_id, callable.clone_ref(py), positional, keyword, context))
            .map(drop)
            .map_err(|err| ToolResult::Raise(host_error(py, err)))
    }

    /// The next item of stream `stream` of tool `tool` (or, with `close`, its end), run in the caller's
    /// `context` as the tool's own calls are.
    pub fn pull_stream(
        &self,
        py: Python<'_>,
        tool: &str,
        stream: u64,
        close: bool,
        context: Option<&Bound<'_, PyAny>>,
        hooks: Option<&ToolHooks>,
    ) -> (ToolResult, Duration) {
        let Some(hooks) = hooks else {
            return (ToolResult::Refused(format!("tool '{tool}': this interpreter has no streams")), Duration::ZERO);
        };
        let pull = hooks.pull_stream.bind(py);
        let called = Instant::now();
        let pulled = match context {
            Some(context) => context.call_method1(pyo3::intern!(py, "run"), (pull, tool, stream, close)),
            None => pull.call1((tool, stream, close)),
        };
        let own = called.elapsed();
        let pulled = pulled.and_then(|pair| pair.extract::<(bool, Bound<'_, PyAny>)>());
        let result = match pulled {
            Ok(_) if close => ToolResult::Return(Value::None),
            Ok((false, _)) => ToolResult::End,
            Ok((true, item)) => match self.outcome(py, tool, Ok(item)) {
                ToolResult::Stream(_) => {
                    ToolResult::Refused(format!("tool '{tool}': a stream's item cannot be a stream"))
                }
                answer => answer,
            },
            Err(err) => ToolResult::Raise(host_error(py, err)),
        };
        (result, own)
    }

    /// The callable and host arguments of a call, or the refusal the session gets.
    fn bind<'py>(
        &self,
        py: Python<'py>,
        name: &str,
        args: &[Value],
        kwargs: &[(String, Value)],
    ) -> Result<(&Py<PyAny>, Bound<'py, PyTuple>, Bound<'py, PyDict>), ToolResult> {
        let Some(callable) = self.callables.get(name) else {
            return Err(ToolResult::Refused(format!("tool '{name}' is not registered with this interpreter")));
        };
        let refused = |what: String, e: crate::protocol::conversion::ConvertError| {
            ToolResult::Refused(format!("tool '{name}': {}", e.describe(&what)))
        };
        let mut positional: Vec<Py<PyAny>> = Vec::with_capacity(args.len());
        for (i, value) in args.iter().enumerate() {
            positional
                .push(convert::from_value(value, py).map_err(|e| refused(format!("positional argument {i}"), e))?);
        }
        let keyword = PyDict::new(py);
        for (key, value) in kwargs {
            let converted = convert::from_value(value, py).map_err(|e| refused(format!("argument '{key}'"), e))?;
            keyword.set_item(key, converted).map_err(|err| ToolResult::Raise(host_error(py, err)))?;
        }
        let positional = PyTuple::new(py, positional).map_err(|err| ToolResult::Raise(host_error(py, err)))?;
        Ok((callable, positional, keyword))
    }

    /// What a tool's call came to, as the session's answer: its value (counted against `max_tool_result_bytes`
    /// as it is converted), a stream, or the exception.
    pub fn outcome(&self, py: Python<'_>, name: &str, result: PyResult<Bound<'_, PyAny>>) -> ToolResult {
        let value = match result {
            Ok(value) => value,
            Err(err) => return ToolResult::Raise(host_error(py, err)),
        };
        if let Ok(opened) = value.cast::<StreamOpened>() {
            return ToolResult::Stream(opened.get().id);
        }
        let ValueRules { strict_values, max_bytes, libraries } = &self.rules;
        let max_bytes = max_bytes.map(|max| usize::try_from(max).unwrap_or(usize::MAX));
        match convert::to_result_value(&value, !strict_values, max_bytes, libraries) {
            Ok((value, as_str)) => {
                if !as_str.is_empty() {
                    warn_as_str(py, name, &as_str);
                }
                ToolResult::Return(value)
            }
            Err(ConvertError { kind: ConvertErrorKind::OverBudget { limit, seen }, .. }) => {
                self.results_too_large.set(self.results_too_large.get().saturating_add(1));
                let message = format!(
                    "the result is larger than max_tool_result_bytes={limit} (about {seen}+ bytes); ask the tool for \
                     less (a narrower query, a smaller limit, or fewer fields)"
                );
                ToolResult::Raise(HostError {
                    type_name: "RuntimeError".into(),
                    is_builtin: true,
                    message,
                    host_type: "RuntimeError".into(),
                    traceback: String::new(),
                })
            }
            Err(e) => {
                ToolResult::Refused(format!("tool '{name}' returned a value that {}", e.describe("").trim_start()))
            }
        }
    }
}

/// The warning (on the "dspy_rust_interpreter" logger) that a tool's result had values of no kind the
/// sandbox knows, which crossed as their str().
fn warn_as_str(py: Python<'_>, tool: &str, type_names: &[String]) {
    let message = format!(
        "tool '{tool}' returned values of type {} that the sandbox has no equivalent for; they were passed as \
         their str() (RustInterpreter(strict_values=True) refuses them instead)",
        type_names.join(", ")
    );
    let logged = py
        .import(pyo3::intern!(py, "logging"))
        .and_then(|logging| logging.call_method1(pyo3::intern!(py, "getLogger"), ("dspy_rust_interpreter",)))
        .and_then(|logger| logger.call_method1(pyo3::intern!(py, "warning"), (message,)));
    // A broken logging setup must not fail the tool call.
    drop(logged);
}

/// A host exception as text, for the session to raise as its own.
fn host_error(py: Python<'_>, err: PyErr) -> HostError {
    let ty = err.get_type(py);
    let module = ty.module().map(|m| m.to_string()).unwrap_or_default();
    let type_name = ty.name().map(|n| n.to_string()).unwrap_or_else(|_| "Exception".into());
    let qualname = ty.qualname().map(|n| n.to_string()).unwrap_or_else(|_| type_name.clone());
    let is_builtin = module == "builtins";
    let host_type = if module.is_empty() || is_builtin { qualname } else { format!("{module}.{qualname}") };
    let message = err.value(py).to_string();
    let traceback = err
        .traceback(py)
        .and_then(|tb| tb.format().ok())
        .map(|tb| format!("{tb}{host_type}: {message}"))
        .unwrap_or_default();
    HostError { type_name, is_builtin, message, host_type, traceback }
}
