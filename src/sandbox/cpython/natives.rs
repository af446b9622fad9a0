//! The bridge's primitives at both ends: the sandbox end's (`_sandbox_cpython.getattr`, `call`, `method`,
//! `apply`, `module`), each one crossing into CPython, and the callback CPython's end calls to reach the sandbox
//! (`sandbox_apply`).

use pyo3::exceptions::PyRuntimeError;
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyTuple};
use rustpython_vm::builtins::PyStrRef;
use rustpython_vm::function::FuncArgs;
use rustpython_vm::{PyObjectRef, PyRef, PyResult as VmResult, VirtualMachine};

use super::values::{
    call_args, error_to_cpython, error_to_sandbox, sandbox_args, to_cpython, to_sandbox, CPythonRef, SandboxRef,
};
use super::{current_vm, enter, machinery, side};

type Ref = PyRef<CPythonRef>;

/// Put the sandbox end's primitives in `_sandbox_cpython` (the zygote does it once).
pub fn install(vm: &VirtualMachine, module: &PyObjectRef) -> VmResult<()> {
    module.set_attr("_getattr", vm.new_function("getattr", getattr), vm)?;
    module.set_attr("_call", vm.new_function("call", call), vm)?;
    module.set_attr("_method", vm.new_function("method", method), vm)?;
    module.set_attr("_apply", vm.new_function("apply", apply), vm)?;
    module.set_attr("_module", vm.new_function("module", import_module), vm)?;
    Ok(())
}

fn getattr(target: Ref, name: PyStrRef, vm: &VirtualMachine) -> VmResult {
    enter(vm, |py| {
        let name = name.to_string_lossy();
        let found = target.obj.bind(py).getattr(name).map_err(|e| error_to_sandbox(py, vm, e))?;
        to_sandbox(py, vm, &found)
    })
}

fn call(target: Ref, args: PyObjectRef, kwargs: PyObjectRef, vm: &VirtualMachine) -> VmResult {
    let args: Vec<PyObjectRef> = args.try_to_value(vm)?;
    enter(vm, |py| {
        let (args, kwargs) = call_args(py, vm, &args, Some(&kwargs))?;
        let result = target.obj.bind(py).call(args, kwargs.as_ref()).map_err(|e| error_to_sandbox(py, vm, e))?;
        to_sandbox(py, vm, &result)
    })
}

/// `type(obj).name(obj, *args, **kwargs)`: a special method, as CPython's own syntax calls it.
fn method(target: Ref, name: PyStrRef, args: PyObjectRef, kwargs: PyObjectRef, vm: &VirtualMachine) -> VmResult {
    let args: Vec<PyObjectRef> = args.try_to_value(vm)?;
    enter(vm, |py| {
        let obj = target.obj.bind(py);
        let (args, kwargs) = call_args(py, vm, &args, Some(&kwargs))?;
        let mut with_self = vec![obj.clone()];
        with_self.extend(args.iter());
        let with_self = PyTuple::new(py, with_self).map_err(|e| error_to_sandbox(py, vm, e))?;
        let result = obj
            .get_type()
            .getattr(&*name.to_string_lossy())
            .and_then(|function| function.call(with_self, kwargs.as_ref()))
            .map_err(|e| error_to_sandbox(py, vm, e))?;
        to_sandbox(py, vm, &result)
    })
}

/// One of the CPython end's own operations (`cpython_side.apply`), on an object of CPython's or on None.
fn apply(target: Option<Ref>, op: PyStrRef, args: PyObjectRef, vm: &VirtualMachine) -> VmResult {
    let args: Vec<PyObjectRef> = args.try_to_value(vm)?;
    enter(vm, |py| {
        let (args, _) = call_args(py, vm, &args, None)?;
        let target = target.map_or_else(|| py.None().into_bound(py), |target| target.obj.bind(py).clone());
        let result = side(py)
            .call_method1("apply", (target, &*op.to_string_lossy(), args, PyDict::new(py)))
            .map_err(|e| error_to_sandbox(py, vm, e))?;
        to_sandbox(py, vm, &result)
    })
}

/// The sandbox's module for CPython's module `name` (imported in the zygote; a session cannot read files to
/// import more).
fn import_module(name: PyStrRef, vm: &VirtualMachine) -> VmResult {
    enter(vm, |py| {
        let module = py.import(&*name.to_string_lossy()).map_err(|e| {
            let text = format!(
                "No module named '{}' (not among the modules of the packages this session was given)",
                name.to_string_lossy()
            );
            let _ = e;
            vm.new_exception_msg(vm.ctx.exceptions.module_not_found_error.to_owned(), text.into())
        })?;
        to_sandbox(py, vm, module.as_any())
    })
}

/// What CPython's end calls to reach the sandbox: an operation on a sandbox object it holds, or on the session's
/// files, streams and warnings (`_sandbox_cpython.apply`).
#[pyfunction]
#[pyo3(signature = (target, op, args, kwargs=None))]
pub fn sandbox_apply(
    py: Python<'_>,
    target: Option<pyo3::PyRef<'_, SandboxRef>>,
    op: &str,
    args: Bound<'_, PyTuple>,
    kwargs: Option<Bound<'_, PyDict>>,
) -> PyResult<Py<PyAny>> {
    let vm = current_vm().ok_or_else(|| PyRuntimeError::new_err("the sandbox is not running"))?;
    let target = target.map_or_else(|| vm.ctx.none(), |held| held.obj.clone());
    let outcome = (|| -> VmResult<PyObjectRef> {
        let FuncArgs { args, kwargs } = sandbox_args(py, vm, &args, kwargs.as_ref())?;
        let keywords = vm.ctx.new_dict();
        for (key, value) in kwargs {
            keywords.set_item(&*key.to_string_lossy(), value, vm)?;
        }
        let op = vm.ctx.new_str(op);
        machinery(vm)?.get_attr("apply", vm)?.call((target, op, vm.ctx.new_tuple(args), keywords), vm)
    })();
    match outcome.and_then(|result| to_cpython(py, vm, &result).map(Bound::unbind)) {
        Ok(result) => Ok(result),
        Err(exc) => Err(error_to_cpython(py, vm, exc)),
    }
}
