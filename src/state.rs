//! Per-session state that the sandbox's native functions reach. Every session has its own worker thread
//! and every worker thread hosts one VM, so a thread-local is exactly per-session.

use std::cell::RefCell;
use std::collections::HashMap;
use std::sync::Arc;

use pyo3::Py;
use pyo3::PyAny;
use rustpython_vm::builtins::{PyDictRef, PyTypeRef};
use rustpython_vm::PyObjectRef;

/// A host tool as the sandbox sees it.
pub struct ToolEntry {
    pub callable: Py<PyAny>,
    /// Names positional arguments bind to, when the tool must be called with keywords (RLM's wrappers).
    pub positional_names: Option<Vec<String>>,
    /// The source of its stand-in (see `tools::ToolSpec`), None for the generic one.
    pub source: Option<String>,
}

pub use crate::protocol::message::{Field, FinishKind};

/// Everything a session keeps between and during runs, on its worker thread.
#[derive(Default)]
pub struct SessionState {
    pub globals: Option<PyDictRef>,
    pub tools: HashMap<String, Arc<ToolEntry>>,
    pub tool_factory: Option<PyObjectRef>,
    pub fields: Option<Vec<Field>>,
    /// Output printed during the current run.
    pub output: String,
    /// The accepted finish call of the current run: its kind and the output dict (a sandbox dict).
    pub finish: Option<(FinishKind, PyObjectRef)>,
    /// Raised to unwind the sandbox after an accepted finish call; re-raised until the run ends.
    pub stop_exception_type: Option<PyTypeRef>,
    /// The caller's `contextvars.Context`, so tools see the caller's dspy settings.
    pub caller_context: Option<Py<PyAny>>,
    /// What this session shares with its waiting caller (limits, stop requests, tool time).
    pub shared: Option<Arc<crate::limits::Shared>>,
    pub job_started: Option<std::time::Instant>,
    /// Characters kept in `output`, and characters printed past the cap and dropped.
    pub output_chars: usize,
    pub output_dropped: usize,
    /// Set by a test's injected fault: the next tool call panics.
    pub panic_in_next_tool: bool,
    /// The built-in exception types by name, as the VM made them (sandbox code can rebind the names).
    pub builtin_exceptions: HashMap<String, PyTypeRef>,
    /// The VM's own `sys.modules`, for `sys.__getattr__` (see `sandbox::sys_getattr_fallback`).
    pub modules: Option<PyDictRef>,
}

thread_local! {
    /// On a worker thread while it runs a job: the sessions waiting for this job (the callers up the chain of
    /// tools calling `execute()` on other sessions) and this session itself. Empty on other threads.
    static WAITING_SESSIONS: RefCell<Vec<u64>> = const { RefCell::new(Vec::new()) };
    static STATE: RefCell<SessionState> = RefCell::new(SessionState::default());
}

pub fn waiting_sessions() -> Vec<u64> {
    WAITING_SESSIONS.with(|w| w.borrow().clone())
}

pub fn set_waiting_sessions(sessions: Vec<u64>) {
    WAITING_SESSIONS.with(|w| *w.borrow_mut() = sessions);
}

/// Drop host objects here, with the GIL, rather than leaving PyO3 to queue their release for later.
pub fn release_with_gil<T>(value: T) {
    pyo3::Python::attach(|_py| drop(value));
}

/// Borrow the session state briefly. Never call back into the VM or CPython while borrowed.
pub fn with_state<R>(f: impl FnOnce(&mut SessionState) -> R) -> R {
    STATE.with(|state| f(&mut state.borrow_mut()))
}
