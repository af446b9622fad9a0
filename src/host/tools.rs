//! Host tools, called on the caller's own thread when a session process asks: by name, only among the
//! tools this session registered, inside the caller's `contextvars` copy (so tools see dspy's settings).
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
}

impl ToolTable {
    pub fn new(specs: Vec<ToolSpec>) -> Self {
        let mut table = Self::default();
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
        let Some(callable) = self.callables.get(name) else {
            return ToolResult::Refused(format!("tool '{name}' is not registered with this interpreter"));
        };
        let refused = |what: String, e: crate::convert::ConvertError| ToolResult::Refused(format!("tool '{name}': {}", e.describe(&what)));
        let mut positional: Vec<Py<PyAny>> = Vec::with_capacity(args.len() + 1);
        positional.push(callable.clone_ref(py));
        for (i, value) in args.iter().enumerate() {
            match convert::from_value(value, py) {
                Ok(value) => positional.push(value),
                Err(e) => return refused(format!("positional argument {i}"), e),
            }
        }
        let keyword = PyDict::new(py);
        for (key, value) in &kwargs {
            let converted = match convert::from_value(value, py) {
                Ok(converted) => converted,
                Err(e) => return refused(format!("argument '{key}'"), e),
            };
            if let Err(err) = keyword.set_item(key, converted) {
                return ToolResult::Raise(host_error(py, err));
            }
        }
        let result = match context {
            Some(context) => PyTuple::new(py, positional)
                .and_then(|run_args| context.call_method(pyo3::intern!(py, "run"), run_args, Some(&keyword))),
            None => PyTuple::new(py, &positional[1..]).and_then(|call_args| callable.bind(py).call(call_args, Some(&keyword))),
        };
        match result {
            Ok(value) => match convert::to_value(&value) {
                Ok(value) => ToolResult::Return(value),
                Err(e) => ToolResult::Refused(format!("tool '{name}' returned a value that {}", e.describe("").trim_start())),
            },
            Err(err) => ToolResult::Raise(host_error(py, err)),
        }
    }
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
