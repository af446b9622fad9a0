//! What `Session.execute()` hands the Python layer: a `RunOutcome`, one variant per way a run can end (the
//! value or the error, the limit that stopped the run, whether the session was rolled back), and the words for
//! a run whose process was lost.

use pyo3::exceptions::PyTypeError;
use pyo3::prelude::*;

use crate::host::convert;
use crate::protocol::message::{FinishKind, Outcome, Stop};
use crate::protocol::options::SessionOptions;
use crate::protocol::value::Value;

/// What a rollback replayed: the runs since the checkpoint, and how many of them ended differently.
pub struct Replay {
    pub runs: usize,
    pub diverged: usize,
    /// The latest cells that could not be brought back, and why: the session is as it was before them.
    pub lost: Option<(usize, String)>,
    /// Not even the cells before those could be: the session is a new, empty one.
    pub afresh: bool,
}

/// What a run ended with: one class per kind, which `_outcome.py` matches once. `results_too_large` counts the
/// tool results the run's calls had refused for `max_tool_result_bytes`.
#[pyclass(module = "dspy_rust_interpreter._native")]
pub enum RunOutcome {
    /// No finish call: the printed text or the trailing expression's value (or None); `value_size` the size of
    /// its data (`Value::data_size`), for the output counter of a value that is not text.
    Value { value: Py<PyAny>, value_size: u64, results_too_large: u32 },
    /// `SUBMIT(...)`: the dict of output fields.
    Submit { fields: Py<PyAny>, results_too_large: u32 },
    /// `FINAL(...)` / `FINAL_VAR(...)`: the dict of output fields.
    Final { fields: Py<PyAny>, results_too_large: u32 },
    /// The code does not parse.
    Syntax { error_type: String, message: String, lineno: Option<u64>, offset: Option<u64>, text: Option<String> },
    /// An exception ended the run: `output` is the text printed before it, `stop` the limit that stopped the
    /// run, `rolled_back` whether the session process died and the session was restored to before the run.
    Error {
        error_type: String,
        message: String,
        traceback: String,
        output: String,
        stop: Option<Stop>,
        rolled_back: bool,
        results_too_large: u32,
    },
    /// The session is gone (shut down, or lost): `message` says why.
    Dead { message: String },
}

#[pymethods]
impl RunOutcome {
    fn __repr__(&self) -> String {
        match self {
            RunOutcome::Value { .. } => "<RunOutcome Value>".to_owned(),
            RunOutcome::Submit { .. } => "<RunOutcome Submit>".to_owned(),
            RunOutcome::Final { .. } => "<RunOutcome Final>".to_owned(),
            RunOutcome::Syntax { message, .. } => format!("<RunOutcome Syntax {message:?}>"),
            RunOutcome::Error { error_type, message, .. } => format!("<RunOutcome Error {error_type}: {message:?}>"),
            RunOutcome::Dead { message } => format!("<RunOutcome Dead {message:?}>"),
        }
    }
}

impl RunOutcome {
    /// An error outcome with only its type and message.
    fn error(error_type: String, message: String) -> Self {
        RunOutcome::Error {
            error_type,
            message,
            traceback: String::new(),
            output: String::new(),
            stop: None,
            rolled_back: false,
            results_too_large: 0,
        }
    }

    /// The same outcome counting `count` refused tool results.
    pub fn with_results_too_large(mut self, count: u32) -> Self {
        match &mut self {
            RunOutcome::Value { results_too_large, .. }
            | RunOutcome::Submit { results_too_large, .. }
            | RunOutcome::Final { results_too_large, .. }
            | RunOutcome::Error { results_too_large, .. } => *results_too_large = count,
            RunOutcome::Syntax { .. } | RunOutcome::Dead { .. } => {}
        }
        self
    }

    pub fn dead(reason: &str) -> Self {
        RunOutcome::Dead { message: reason.to_owned() }
    }

    /// A completed run's outcome, each text in it capped at the session's `max_output_chars`; a TypeError
    /// when the host's input could not be used (nothing changed).
    pub fn of(py: Python<'_>, outcome: Outcome, options: &SessionOptions) -> PyResult<Self> {
        let max_chars = options.max_output_chars();
        Ok(match outcome.capped(max_chars) {
            Outcome::Value(value) => Self::converted(py, &value, "result", |value, value_size| RunOutcome::Value {
                value,
                value_size,
                results_too_large: 0,
            }),
            Outcome::Finish(kind, fields) => Self::converted(py, &fields, "output fields", |fields, _| match kind {
                FinishKind::Submit => RunOutcome::Submit { fields, results_too_large: 0 },
                FinishKind::Final => RunOutcome::Final { fields, results_too_large: 0 },
            }),
            Outcome::Syntax { kind, message, lineno, offset, text } => {
                RunOutcome::Syntax { error_type: kind, message, lineno, offset, text }
            }
            Outcome::Error { type_name, message, traceback, output, stop } => RunOutcome::Error {
                error_type: type_name,
                message,
                traceback,
                output,
                stop,
                rolled_back: false,
                results_too_large: 0,
            },
            Outcome::BadInput(message) => return Err(PyTypeError::new_err(message)),
        })
    }

    /// A run's value as a host object, made into an outcome by `make` (with the size of its data); one the host
    /// cannot build (e.g. keys that are unhashable or collide here) is the cell's TypeError, as a value that
    /// cannot leave the sandbox is: the session is intact.
    fn converted(py: Python<'_>, value: &Value, what: &str, make: impl FnOnce(Py<PyAny>, u64) -> Self) -> Self {
        match convert::from_value(value, py) {
            Ok(converted) => make(converted, value.data_size() as u64),
            Err(e) => Self::error("TypeError".into(), format!("the cell's {}", e.describe(what))),
        }
    }

    /// The outcome of a run whose process was replaced by its checkpoint, the runs since replayed.
    pub fn rolled_back(cause: &Cause, options: &SessionOptions, replay: Replay) -> Self {
        let (error_type, message) = described(cause, options);
        let state = match (&replay.lost, replay.diverged) {
            (Some((_, why)), _) if replay.afresh => format!(
                "every variable, function and import of the cells that ran before this one was lost: {why}; run \
                 them again if their results are needed"
            ),
            (Some((lost, why)), _) => format!(
                "variables are as they were before the {lost} cell(s) that ran before this one, which were lost: {why}; \
                 run them again if their results are needed"
            ),
            (None, 0) => "variables are as they were before this cell".to_owned(),
            (None, n) => format!(
                "variables are as they were before this cell, except what {n} of the {} earlier cell(s) replayed \
                 to restore them computed differently the second time (code that reads the clock or the \
                 system's randomness)",
                replay.runs
            ),
        };
        let restored = if replay.afresh {
            "the session could not be restored and was started afresh"
        } else {
            "the session was restored from its last good state"
        };
        RunOutcome::Error {
            error_type: error_type.to_owned(),
            message: format!("{message}; {restored}: {state}"),
            traceback: String::new(),
            output: String::new(),
            stop: Some(cause.stop()),
            rolled_back: true,
            results_too_large: 0,
        }
    }
}

/// Why the process serving a run was given up.
pub enum Cause {
    /// It died of a signal (after a failed allocation: out of memory).
    Fault { signal: i32, out_of_memory: bool },
    /// It ended itself: the run ignored a stop for the grace period (or the host's backstop fired).
    Abandoned(Stop),
    /// It ended, went silent mid-message or broke the protocol.
    Lost(String),
    /// `shutdown()` killed it.
    ShutDown,
}

impl Cause {
    fn stop(&self) -> Stop {
        match self {
            Cause::Fault { out_of_memory: true, .. } => Stop::Memory,
            Cause::Abandoned(stop) => *stop,
            Cause::Fault { .. } | Cause::Lost(_) | Cause::ShutDown => Stop::Crash,
        }
    }
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
    let grace = options.abandon_after;
    let memory = || match options.memory_limit {
        Some(limit) => format!("the sandbox's memory limit of {:.0} MiB", limit as f64 / (1024.0 * 1024.0)),
        None => "the memory the system could give".to_owned(),
    };
    match cause {
        Cause::Fault { out_of_memory: true, .. } | Cause::Abandoned(Stop::Memory) => {
            ("MemoryError", format!("the code needed more than {} in an operation that could not be stopped", memory()))
        }
        Cause::Fault { signal, .. } => (
            "SystemError",
            format!(
                "the sandbox's process crashed ({}: a native operation failed, e.g. recursion too deep in native code)",
                signal_name(*signal)
            ),
        ),
        Cause::Abandoned(Stop::Timeout) => (
            "TimeoutError",
            format!(
                "execution exceeded the time limit of {} s and was stopped, but a long native operation ignored the \
                 stop for {grace} s and was abandoned",
                options.timeout.unwrap_or_default()
            ),
        ),
        Cause::Abandoned(Stop::Interrupt) => (
            "KeyboardInterrupt",
            format!(
                "the run was interrupted, and a long native operation ignored the stop for {grace} s and was abandoned"
            ),
        ),
        Cause::Lost(reason) => ("SystemError", format!("the sandbox's process failed: {reason}")),
        // Not on the wire (a session never says it crashed): read as the loss it would be.
        Cause::Abandoned(Stop::Crash) => ("SystemError", "the sandbox's process failed".to_owned()),
        Cause::ShutDown => ("SystemError", "the session was shut down".to_owned()),
    }
}

/// What happened, as one sentence (for a session that could not be rolled back).
pub fn cause_text(cause: &Cause, options: &SessionOptions) -> String {
    let (type_name, message) = described(cause, options);
    format!("{type_name}: {message}")
}
