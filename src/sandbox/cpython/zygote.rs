//! The CPython end in a package set's zygote: imported on CPython's main thread before the zygote thread starts
//! (`prepare`), connected to the sandbox's VM once it is prepared (`connect`), and kept consistent across the
//! forks that make sessions (`fork_child` and friends: CPython's own fork protocol, so that in a session the VM
//! thread is CPython's main thread and the only one it knows).

use std::ffi::CString;
use std::path::PathBuf;

use pyo3::prelude::*;
use pyo3::types::PyList;
use rustpython_vm::{PyResult as VmResult, VirtualMachine};

use super::{memory, natives, side, SIDE};

const SOURCE: &str = include_str!("cpython_side.py");

/// Import the packages (`tops`: each top-level module's import name and host path) into this process's CPython,
/// with every module inside them, and read their data files; `config_dir` is a folder of the zygote's own
/// (matplotlib's configuration and font cache). On CPython's main thread, before the zygote is confined. The
/// modules that failed to import, with why.
pub fn prepare(py: Python<'_>, tops: &[(String, PathBuf)], config_dir: &std::path::Path) -> PyResult<Vec<String>> {
    let source = CString::new(SOURCE).expect("the CPython end has no NUL");
    let module = PyModule::from_code(py, &source, c"cpython_side.py", c"_dspy_cpython_side")?;
    let modules = py.import("sys")?.getattr("modules")?;
    modules.set_item("_dspy_cpython_side", &module)?;
    // How numpy's and pandas' values cross to and from the host (`Value::Library`).
    modules.set_item("_dspy_library_data", crate::protocol::library_data::module(py)?)?;
    let tops: Vec<(String, String)> =
        tops.iter().map(|(name, path)| (name.clone(), path.to_string_lossy().into_owned())).collect();
    let failed = module.call_method1("prepare", (tops, config_dir.to_string_lossy().into_owned()))?;
    let failed: Vec<String> = failed.cast::<PyList>()?.extract()?;
    let _ = SIDE.set(module.unbind());
    Ok(failed)
}

/// Connect the two ends, on the zygote's VM thread once its VM is prepared: the sandbox imports the packages
/// through CPython, CPython's files, streams and warnings are the session's, numpy's array data is counted.
pub fn connect(vm: &VirtualMachine) -> VmResult<()> {
    if !super::active() {
        return Ok(());
    }
    let machinery = super::machinery(vm)?;
    natives::install(vm, &machinery)?;
    super::values::make_types();
    let names = Python::attach(|py| -> PyResult<Vec<String>> {
        let mut allowed: Vec<String> = side(py).call_method0("allowed_names")?.extract()?;
        // `tzdata` is CPython's for its own `zoneinfo` (pandas' time zones); the sandbox's `zoneinfo` reads its own
        // (`zygote_data::tzdata`), as a package of data files that a bridged module could not give it.
        allowed.retain(|name| name != "tzdata");
        let bridged: Vec<rustpython_vm::PyObjectRef> =
            allowed.iter().map(|n| vm.ctx.new_str(n.as_str()).into()).collect();
        let bridged = vm
            .builtins
            .get_attr("frozenset", vm)
            .and_then(|f| f.call((vm.ctx.new_list(bridged),), vm))
            .map_err(|_| pyo3::exceptions::PyRuntimeError::new_err("frozenset"))?;
        machinery.set_attr("BRIDGED", bridged, vm).map_err(|_| pyo3::exceptions::PyRuntimeError::new_err("BRIDGED"))?;
        let callback = wrap_pyfunction!(natives::sandbox_apply, py)?;
        side(py).call_method1("connect", (callback,))?;
        memory::install_cpython(py);
        memory::install_numpy(py)?;
        Ok(allowed)
    })
    .map_err(|e| vm.new_runtime_error(format!("the packages' CPython could not be connected: {e}")))?;
    // The packages are found before the standard library's finders and the sandbox's own path (after the
    // refusals, which name the standard library's modules only).
    let finder = machinery.get_attr("CPythonFinder", vm)?;
    vm.sys_module.get_attr("meta_path", vm)?.get_attr("insert", vm)?.call((1, finder), vm)?;
    // The sandbox's modules for the packages, made once here: a session's `import numpy` is then a lookup.
    for name in names {
        let _ = vm.import(&vm.ctx.new_str(name.as_str()), 0);
    }
    Ok(())
}

/// Before the zygote forks a session: CPython's own preparation (its import lock taken, `os.register_at_fork`
/// hooks run).
pub fn before_fork() {
    if super::active() {
        // SAFETY: on the zygote's VM thread, which holds CPython's lock.
        unsafe { pyo3::ffi::PyOS_BeforeFork() };
    }
}

/// In the zygote after it forked.
pub fn after_fork_parent() {
    if super::active() {
        // SAFETY: as `before_fork`, in the same thread after the fork.
        unsafe { pyo3::ffi::PyOS_AfterFork_Parent() };
    }
}

/// In a new session process: CPython forgets the zygote's other threads (its main thread waits there in
/// `serve_zygote`), makes this one its main thread (signals, the interrupt, are handled here), and what seeded
/// itself at import draws a fresh seed.
pub fn after_fork_child() {
    if super::active() {
        // SAFETY: in the child, on the thread that forked, which holds CPython's lock.
        unsafe { pyo3::ffi::PyOS_AfterFork_Child() };
        Python::attach(|py| {
            let _ = side(py).call_method0("reseed");
        });
    }
}
