//! What `Session.execute()` hands the Python layer: a typed `RunOutcome` (what happened, the value or the
//! error, the limit that stopped the run, whether the session was rolled back), and the words for a run
//! whose process was lost.

use pyo3::exceptions::PyTypeError;
use pyo3::prelude::*;

use crate::host::convert;
use crate::protocol::message::{FinishKind, Outcome, SessionOptions, Stop};
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

/// What a run ended with.
#[pyclass(eq, eq_int, frozen, module = "dspy_rust_interpreter._native")]
#[derive(Clone, Copy, PartialEq, Eq)]
pub enum OutcomeKind {
    /// No finish call: `value` is the printed text or the trailing expression's value (or None).
    Value,
    /// `SUBMIT(...)`: `value` is the dict of output fields.
    Submit,
    /// `FINAL(...)` / `FINAL_VAR(...)`: `value` is the dict of output fields.
    Final,
    /// The code does not parse: `message`, `lineno`, `offset`, `text`.
    Syntax,
    /// An exception ended the run: `error_type`, `message`, `traceback`, `output`, and `stop`.
    Error,
    /// The session is gone (shut down, or lost): `message` says why.
    Dead,
}

#[pyclass(frozen, get_all, module = "dspy_rust_interpreter._native")]
pub struct RunOutcome {
    pub kind: OutcomeKind,
    pub value: Py<PyAny>,
    pub error_type: String,
    pub message: String,
    pub traceback: String,
    /// Text printed before the error.
    pub output: String,
    pub lineno: Option<u64>,
    pub offset: Option<u64>,
    pub text: Option<String>,
    pub stop: Option<Stop>,
    /// The session process died during the run and the session was restored to before it.
    pub rolled_back: bool,
    /// Tool results the run's calls got refused for `max_tool_result_bytes`.
    pub results_too_large: u32,
    /// The data of `value` (`Value::data_size`), for the output counter of a value that is not text.
    pub value_size: u64,
}

#[pymethods]
impl RunOutcome {
    fn __repr__(&self) -> String {
        let kind = match self.kind {
            OutcomeKind::Value => "Value",
            OutcomeKind::Submit => "Submit",
            OutcomeKind::Final => "Final",
            OutcomeKind::Syntax => "Syntax",
            OutcomeKind::Error => "Error",
            OutcomeKind::Dead => "Dead",
        };
        format!("<RunOutcome {kind} {:?}>", self.message)
    }
}

impl RunOutcome {
    fn new(py: Python<'_>, kind: OutcomeKind) -> Self {
        Self {
            kind,
            value: py.None(),
            error_type: String::new(),
            message: String::new(),
            traceback: String::new(),
            output: String::new(),
            lineno: None,
            offset: None,
            text: None,
            stop: None,
            rolled_back: false,
            results_too_large: 0,
            value_size: 0,
        }
    }

    pub fn dead(py: Python<'_>, reason: &str) -> Self {
        Self { message: reason.to_owned(), ..Self::new(py, OutcomeKind::Dead) }
    }

    /// A completed run's outcome, each text in it capped at the session's `max_output_chars`; a TypeError
    /// when the host's input could not be used (nothing changed).
    pub fn of(py: Python<'_>, outcome: Outcome, options: &SessionOptions) -> PyResult<Self> {
        let max_chars = usize::try_from(options.max_output_chars).unwrap_or(usize::MAX);
        Ok(match outcome.capped(max_chars) {
            Outcome::Value(value) => Self::value_or_error(py, OutcomeKind::Value, &value, "result"),
            Outcome::Finish(FinishKind::Submit, fields) => Self::value_or_error(py, OutcomeKind::Submit, &fields, "output fields"),
            Outcome::Finish(FinishKind::Final, fields) => Self::value_or_error(py, OutcomeKind::Final, &fields, "output fields"),
            Outcome::Syntax { kind, message, lineno, offset, text } => {
                Self { error_type: kind, message, lineno, offset, text, ..Self::new(py, OutcomeKind::Syntax) }
            }
            Outcome::Error { type_name, message, traceback, output, stop } => Self {
                error_type: type_name,
                message,
                traceback,
                output,
                stop,
                ..Self::new(py, OutcomeKind::Error)
            },
            Outcome::BadInput(message) => return Err(PyTypeError::new_err(message)),
        })
    }

    /// A run's value as a host object; one the host cannot build (e.g. keys that are unhashable or collide
    /// here) is the cell's TypeError, as a value that cannot leave the sandbox is: the session is intact.
    fn value_or_error(py: Python<'_>, kind: OutcomeKind, value: &Value, what: &str) -> Self {
        match convert::from_value(value, py) {
            Ok(converted) => Self { value: converted, value_size: value.data_size() as u64, ..Self::new(py, kind) },
            Err(e) => Self {
                error_type: "TypeError".into(),
                message: format!("the cell's {}", e.describe(what)),
                ..Self::new(py, OutcomeKind::Error)
            },
        }
    }

    /// The outcome of a run whose process was replaced by its checkpoint, the runs since replayed.
    pub fn rolled_back(py: Python<'_>, cause: &Cause, options: &SessionOptions, replay: Replay) -> Self {
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
        Self {
            error_type: error_type.to_owned(),
            message: format!("{message}; {restored}: {state}"),
            stop: Some(cause.stop()),
            rolled_back: true,
            ..Self::new(py, OutcomeKind::Error)
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
    let grace = options.abandon_after_seconds;
    let memory = || match options.memory_limit {
        Some(limit) => format!("the sandbox's memory limit of {:.0} MiB", limit as f64 / (1024.0 * 1024.0)),
        None => "the memory the system could give".to_owned(),
    };
    match cause {
        Cause::Fault { out_of_memory: true, .. } | Cause::Abandoned(Stop::Memory) => (
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
        Cause::Abandoned(Stop::Timeout) => (
            "TimeoutError",
            format!(
                "execution exceeded the time limit of {} s and was stopped, but a long native operation ignored the \
                 stop for {grace} s and was abandoned",
                options.timeout_seconds.unwrap_or_default()
            ),
        ),
        Cause::Abandoned(Stop::Interrupt) => (
            "KeyboardInterrupt",
            format!("the run was interrupted, and a long native operation ignored the stop for {grace} s and was abandoned"),
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
