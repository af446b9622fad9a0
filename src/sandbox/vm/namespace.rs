//! What one session's VM keeps for running code (its globals, streams and `sys.modules`), put back between runs
//! where code removed what the import system relies on; and lookups of the session's own modules.

use rustpython_vm::builtins::{PyDictRef, PyModule, PyStrRef};
use rustpython_vm::function::IntoFuncArgs;
use rustpython_vm::{AsObject, PyObjectRef, PyRef, PyResult, VirtualMachine};

use std::cell::RefCell;

thread_local! {
    /// The session's globals and its VM's own `sys.modules`, for the native functions that need them.
    static SESSION: RefCell<Option<(PyDictRef, PyDictRef)>> = const { RefCell::new(None) };
}

/// Keep the session's globals and `sys.modules` (once, when the VM is prepared).
pub fn set_session(globals: PyDictRef, modules: PyDictRef) {
    SESSION.with(|session| *session.borrow_mut() = Some((globals, modules)));
}

/// The session's globals.
pub fn globals() -> Option<PyDictRef> {
    SESSION.with(|session| session.borrow().as_ref().map(|(globals, _)| globals.clone()))
}

/// The VM's own `sys.modules` (for `sys.__getattr__`, see `sys_getattr_fallback`).
fn modules() -> Option<PyDictRef> {
    SESSION.with(|session| session.borrow().as_ref().map(|(_, modules)| modules.clone()))
}

/// Call `function` of `_sandbox_async`, the sandbox's side of asyncio (`python/_sandbox_async.py`).
pub fn sandbox_async(vm: &VirtualMachine, function: &'static str, args: impl IntoFuncArgs) -> PyResult {
    vm.import("_sandbox_async", 0)?.get_attr(function, vm)?.call(args, vm)
}

/// Module `name` when this session has imported it (looked up in the VM's own `sys.modules`).
pub fn imported_module(vm: &VirtualMachine, name: &str) -> Option<PyObjectRef> {
    modules()?.get_item(name, vm).ok()
}

/// What one session's VM keeps for running code.
#[derive(Clone)]
pub struct Namespace {
    pub globals: PyDictRef,
    pub streams: (PyObjectRef, PyObjectRef),
    /// The VM's own `sys.modules`, and the `sys.__getattr__` that finds it (see `restore_import_state`).
    pub modules: PyDictRef,
    pub sys_getattr: PyObjectRef,
    /// `sys.modules['__main__']`, whose dict is the globals (as in CPython: `dataclasses` and `typing` look
    /// the module of a class up there).
    pub main: PyRef<PyModule>,
}

/// A module attribute miss makes RustPython look up `sys.modules` as an attribute of `sys` (to word its
/// error), and a miss on that one does the same again: after `del sys.modules`, the next miss on any module
/// would recurse until the worker's stack overflowed, before any limit could act. `sys.__getattr__` (consulted on
/// a miss before that lookup) answers `modules` with the VM's own, as CPython's import keeps using it.
/// `restore_import_state` puts the attribute back between runs.
///
/// The function holds no reference (a native closure is opaque to the collector: a captured `sys.modules`
/// would keep every module alive); it finds the dict in the session's state.
pub fn sys_getattr_fallback(vm: &VirtualMachine) -> PyObjectRef {
    vm.new_function("__getattr__", |name: PyStrRef, vm: &VirtualMachine| -> PyResult {
        match modules() {
            Some(modules) if name.as_bytes() == b"modules" => Ok(modules.into()),
            _ => Err(vm.new_attribute_error(format!("module 'sys' has no attribute '{}'", name.to_string_lossy()))),
        }
    })
    .into()
}

impl Namespace {
    /// The same namespace with globals of its own (a copy): a standby's rehearsal runs in it, so the session's
    /// globals are not what it leaves (see `worker::run::rehearse`).
    pub fn scratch(&self, vm: &VirtualMachine) -> Namespace {
        let globals = vm.ctx.new_dict();
        for (key, value) in self.globals.clone() {
            let _ = globals.set_item(&*key, value, vm);
        }
        Namespace { globals, ..self.clone() }
    }
}

/// Put back what code removed or replaced of the import system's own references, which CPython's import
/// does not depend on: the `sys.modules` attribute and its fallback (see `sys_getattr_fallback`), and the
/// `sys`, `builtins` (without them no import worked) and `__main__` entries in it. Before each run, and
/// before the VM is finalised.
pub fn restore_import_state(vm: &VirtualMachine, namespace: &Namespace) -> PyResult<()> {
    let Namespace { modules, sys_getattr, main, .. } = namespace;
    let sys_dict = vm.sys_module.dict();
    for (name, value) in [("modules", modules.as_object()), ("__getattr__", sys_getattr.as_object())] {
        if !sys_dict.get_item_opt(name, vm)?.is_some_and(|current| current.is(value)) {
            sys_dict.set_item(name, value.to_owned(), vm)?;
        }
    }
    for (name, module) in [("sys", &vm.sys_module), ("builtins", &vm.builtins), ("__main__", main)] {
        if !modules.get_item_opt(name, vm)?.is_some_and(|current| current.is(module)) {
            modules.set_item(name, module.clone().into(), vm)?;
        }
    }
    Ok(())
}
