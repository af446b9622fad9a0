//! Per-session state that the sandbox's native functions reach, on the session process's VM thread (one
//! session per process, one VM per process).

use std::cell::RefCell;
use std::collections::HashMap;
use std::rc::Rc;

use rustpython_vm::builtins::{PyDictRef, PyTypeRef};
use rustpython_vm::PyObjectRef;

/// A host tool as the sandbox sees it (the callable stays in the host, which calls it by name).
pub struct ToolEntry {
    /// The source of its stand-in (see `tools::ToolSpec`), None for the generic one.
    pub source: Option<String>,
    /// The stand-in: the function the tool's global is, and what `call_tool(name, ...)` calls, so the VM binds
    /// a call's arguments to the tool's signature whichever way it is made.
    pub stand_in: PyObjectRef,
}

/// What the zygote makes once for every session's tools (`tools::new_stand_in_factory`): the stand-in maker,
/// and the class of a stream's sandbox end.
pub struct ToolFactory {
    pub make_tool: PyObjectRef,
    pub stream: PyObjectRef,
}

pub use crate::protocol::message::{Field, FinishKind};

/// Everything a session keeps between and during runs, on its VM thread.
#[derive(Default)]
pub struct SessionState {
    pub globals: Option<PyDictRef>,
    pub tools: HashMap<String, Rc<ToolEntry>>,
    pub tool_factory: Option<ToolFactory>,
    /// Stand-ins the zygote made before forking, by tool name and source (`tools::prepare_stand_ins`); a
    /// session takes each at most once.
    pub prepared_stand_ins: HashMap<(String, String), PyObjectRef>,
    pub fields: Option<Vec<Field>>,
    /// The accepted finish call of the current run: its kind and the output dict (a sandbox dict).
    pub finish: Option<(FinishKind, PyObjectRef)>,
    /// The types a host tool's exception takes, by host type name (`errors::tool_error_types`).
    pub tool_error_types: HashMap<String, PyTypeRef>,
    /// The VM's own `sys.modules`, for `sys.__getattr__` (see `sandbox::sys_getattr_fallback`).
    pub modules: Option<PyDictRef>,
    /// Host calls started from async code and not yet delivered: the tool's name by call id.
    pub host_calls: HashMap<u64, String>,
    /// Runs so far (the filesystem notes which run changed each file).
    pub runs: u64,
    /// The `_sandbox_files` module, as imported at start-up (see `files::module`).
    pub files_module: Option<PyObjectRef>,
    /// `_sandbox_files_host`, the host API over the files (`interp.files`), kept likewise.
    pub files_host_module: Option<PyObjectRef>,
}

thread_local! {
    static STATE: RefCell<SessionState> = RefCell::new(SessionState::default());
}

/// Borrow the session state briefly. Never call back into the VM while borrowed.
pub fn with_state<R>(f: impl FnOnce(&mut SessionState) -> R) -> R {
    STATE.with(|state| f(&mut state.borrow_mut()))
}
