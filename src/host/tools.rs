//! Host tools, called on the caller's own thread when a session process asks: by name, only among the
//! tools this session registered, inside the caller's `contextvars` copy (so tools see dspy's settings).
//! Calls that async sandbox code starts run at the same time instead, on the interpreter's bounded pool
//! (`ConcurrentCalls` in `_concurrent_calls.py`), each in a copy of that context.
//! Arguments were bound to the tool's parameter names in the session; here they only cross back into host
//! values, checked, as everything from a session process is.

use std::collections::HashMap;

use pyo3::prelude::*;
use pyo3::types::{PyDict, PyTuple};

use crate::host::convert;
use crate::protocol::message::{HostError, ToolDecl, ToolResult};
use crate::protocol::value::Value;

/// A tool as the Python layer hands it over: name, callable, the parameter names positional arguments
/// bind to (None: passed through), and the source of its sandbox stand-in (None: a generic one).
pub type ToolSpec = (String, Py<PyAny>, Option<Vec<String>>, Option<String>);

/// The tools of one session: the callables stay here, the session gets their declarations.
#[derive(Default)]
pub struct ToolTable {
    callables: HashMap<String, Py<PyAny>>,
    declarations: Vec<ToolDecl>,
    /// A result of no kind the sandbox knows is refused (True) or crosses as its str() with a warning.
    strict_values: bool,
}

impl ToolTable {
    pub fn new(specs: Vec<ToolSpec>, strict_values: bool) -> Self {
        let mut table = Self { strict_values, ..Self::default() };
        for (name, callable, positional_names, source) in specs {
            table.callables.insert(name.clone(), callable);
            table.declarations.push(ToolDecl { name, positional_names, source });
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
            strict_values: self.strict_values,
        }
    }

    /// Call tool `name` for the session; every failure is an answer the session can raise.
    pub fn call(
        &self,
        py: Python<'_>,
        name: &str,
        args: Vec<Value>,
        kwargs: Vec<(String, Value)>,
        context: Option<&Bound<'_, PyAny>>,
    ) -> ToolResult {
        let (callable, positional, keyword) = match self.bind(py, name, &args, &kwargs) {
            Ok(bound) => bound,
            Err(refused) => return refused,
        };
        let result = match context {
            Some(context) => {
                let run_args: Vec<Bound<'_, PyAny>> = std::iter::once(callable.bind(py).clone()).chain(positional.iter()).collect();
                PyTuple::new(py, run_args).and_then(|run_args| context.call_method(pyo3::intern!(py, "run"), run_args, Some(&keyword)))
            }
            None => callable.bind(py).call(positional, Some(&keyword)),
        };
        self.outcome(py, name, result)
    }

    /// Start tool `name` for the session on `calls` (the interpreter's `ConcurrentCalls`), to run while the
    /// session goes on; its outcome comes back from `calls.take()`. A call that cannot start is answered at once.
    pub fn start(
        &self,
        py: Python<'_>,
        call_id: u64,
        name: &str,
        args: Vec<Value>,
        kwargs: Vec<(String, Value)>,
        context: Option<&Bound<'_, PyAny>>,
        calls: &Bound<'_, PyAny>,
    ) -> Result<(), ToolResult> {
        let (callable, positional, keyword) = self.bind(py, name, &args, &kwargs)?;
        calls
            .call_method1(pyo3::intern!(py, "start"), (call_id, callable.clone_ref(py), positional, keyword, context))
            .map(drop)
            .map_err(|err| ToolResult::Raise(host_error(py, err)))
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
        let refused = |what: String, e: crate::protocol::conversion::ConvertError| ToolResult::Refused(format!("tool '{name}': {}", e.describe(&what)));
        let mut positional: Vec<Py<PyAny>> = Vec::with_capacity(args.len());
        for (i, value) in args.iter().enumerate() {
            positional.push(convert::from_value(value, py).map_err(|e| refused(format!("positional argument {i}"), e))?);
        }
        let keyword = PyDict::new(py);
        for (key, value) in kwargs {
            let converted = convert::from_value(value, py).map_err(|e| refused(format!("argument '{key}'"), e))?;
            keyword.set_item(key, converted).map_err(|err| ToolResult::Raise(host_error(py, err)))?;
        }
        let positional = PyTuple::new(py, positional).map_err(|err| ToolResult::Raise(host_error(py, err)))?;
        Ok((callable, positional, keyword))
    }

    /// What a tool's call came to, as the session's answer.
    pub fn outcome(&self, py: Python<'_>, name: &str, result: PyResult<Bound<'_, PyAny>>) -> ToolResult {
        let value = match result {
            Ok(value) => value,
            Err(err) => return ToolResult::Raise(host_error(py, err)),
        };
        let returned = |e: crate::protocol::conversion::ConvertError| {
            ToolResult::Refused(format!("tool '{name}' returned a value that {}", e.describe("").trim_start()))
        };
        if self.strict_values {
            return convert::to_value(&value).map_or_else(returned, ToolResult::Return);
        }
        match convert::to_value_or_str(&value) {
            Ok((value, as_str)) => {
                if !as_str.is_empty() {
                    warn_as_str(py, name, &as_str);
                }
                ToolResult::Return(value)
            }
            Err(e) => returned(e),
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
