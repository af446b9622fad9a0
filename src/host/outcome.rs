//! What `Session.execute()` hands the Python layer: the run's outcome as a tuple whose first item says
//! what happened, and the words for a run whose process was lost and rolled back.

use pyo3::exceptions::PyTypeError;
use pyo3::prelude::*;
use pyo3::types::PyTuple;

use crate::host::convert;
use crate::host::session::Replay;
use crate::protocol::message::{Abandon, FinishKind, Outcome, SessionOptions};
use crate::protocol::value::Value;

/// Why the process serving a run was given up.
pub enum Cause {
    /// It died of a signal (after a failed allocation: out of memory).
    Fault { signal: i32, out_of_memory: bool },
    /// It ended itself: the run ignored a stop for the grace period (or the host's backstop fired).
    Abandoned(Abandon),
    /// It ended, went silent mid-message or broke the protocol.
    Lost(String),
    /// `shutdown()` killed it.
    ShutDown,
}

fn signal_name(signal: i32) -> String {
    match signal {
        libc::SIGSEGV => "SIGSEGV".into(),
        libc::SIGBUS => "SIGBUS".into(),
        libc::SIGILL => "SIGILL".into(),
        libc::SIGFPE => "SIGFPE".into(),
        libc::SIGABRT => "SIGABRT".into(),
        other => format!("signal {other}"),
    }
}

/// The error type the caller sees, and what happened.
fn described(cause: &Cause, options: &SessionOptions) -> (&'static str, String) {
    let grace = options.abandon_after_seconds;
    let memory = || match options.memory_limit {
        Some(limit) => format!("the sandbox's memory limit of {:.0} MiB", limit as f64 / (1024.0 * 1024.0)),
        None => "the memory the system could give".to_owned(),
    };
    match cause {
        Cause::Fault { out_of_memory: true, .. } | Cause::Abandoned(Abandon::Memory) => (
            "MemoryError",
            format!("the code needed more than {} in an operation that could not be stopped", memory()),
        ),
        Cause::Fault { signal, .. } => (
            "SystemError",
            format!(
                "the sandbox's process crashed ({}: a native operation failed, e.g. recursion too deep in native code)",
                signal_name(*signal)
            ),
        ),
        Cause::Abandoned(Abandon::Timeout) => (
            "TimeoutError",
            format!(
                "execution exceeded the time limit of {} s and was stopped, but a long native operation ignored the \
                 stop for {grace} s and was abandoned",
                options.timeout_seconds.unwrap_or_default()
            ),
        ),
        Cause::Abandoned(Abandon::Interrupt) => (
            "KeyboardInterrupt",
            format!("the run was interrupted, and a long native operation ignored the stop for {grace} s and was abandoned"),
        ),
        Cause::Lost(reason) => ("SystemError", format!("the sandbox's process failed: {reason}")),
        Cause::ShutDown => ("SystemError", "the session was shut down".to_owned()),
    }
}

/// What happened, as one sentence (for a session that could not be rolled back).
pub fn cause_text(cause: &Cause, options: &SessionOptions) -> String {
    let (type_name, message) = described(cause, options);
    format!("{type_name}: {message}")
}

/// The outcome of a run whose process was replaced by its checkpoint, the runs since replayed.
pub fn rolled_back(py: Python<'_>, cause: &Cause, options: &SessionOptions, replay: Replay) -> PyResult<Py<PyTuple>> {
    let (type_name, message) = described(cause, options);
    let state = match replay.diverged {
        0 => "variables are as they were before this cell".to_owned(),
        n => format!(
            "variables are as they were before this cell, except what {n} of the {} earlier cell(s) replayed to \
             restore them computed differently the second time (code that reads the clock or the system's \
             randomness)",
            replay.runs
        ),
    };
    let message = format!("{message}; the session was restored from its last good state: {state}");
    Ok(("error", type_name, message, "", "").into_pyobject(py)?.unbind())
}

pub fn dead(py: Python<'_>, reason: &str) -> PyResult<Py<PyTuple>> {
    Ok(("dead", reason).into_pyobject(py)?.unbind())
}

/// A value from the session as a host object: checked, as everything from a session process is.
fn host(py: Python<'_>, value: &Value) -> PyResult<Py<PyAny>> {
    convert::from_value(value, py).map_err(|e| PyTypeError::new_err(format!("the sandbox's result {}", e.describe("").trim_start())))
}

pub fn to_tuple(py: Python<'_>, outcome: Outcome) -> PyResult<Py<PyTuple>> {
    let tuple = match outcome {
        Outcome::Value(value) => ("value", host(py, &value)?).into_pyobject(py)?,
        Outcome::Finish(FinishKind::Submit, fields) => ("submit", host(py, &fields)?).into_pyobject(py)?,
        Outcome::Finish(FinishKind::Final, fields) => ("final", host(py, &fields)?).into_pyobject(py)?,
        Outcome::Syntax { message, lineno, offset, text } => ("syntax", message, lineno, offset, text).into_pyobject(py)?,
        Outcome::Error { type_name, message, traceback, output } => ("error", type_name, message, traceback, output).into_pyobject(py)?,
        Outcome::BadInput(message) => return Err(PyTypeError::new_err(message)),
    };
    Ok(tuple.unbind())
}
