//! Native modules the sandbox does not offer by name, each handed once to its stand-in, which keeps only part
//! of it.

use rustpython_vm::builtins::PyModuleDef;
use rustpython_vm::{AsObject, PyObjectRef, PyResult, VirtualMachine};

/// Native modules kept out of the importable ones, each handed once to the stand-in of the same name, which
/// keeps only part of it: `_csv` (its dialect registry and field size limit are process-wide; the stand-in
/// keeps them per session) and `gc` (`get_objects`, `get_referrers` and `get_referents` would hand out every
/// object the VM holds, the sandbox's own machinery included); `zlib` is handed over whole, its errors worded
/// anew (`python/zlib.py`), `_string` whole, its `formatter_parser` CPython's (`python/_string.py`), and
/// `_sqlite3` whole, its `connect` confined (`python/_sqlite3.py`).
/// Deleting the attributes from the module would not do: a new import, `importlib.reload` or
/// `_imp.create_builtin` would make the whole module again.
pub const HANDED_OVER: &[&str] = &["_csv", "gc", "zlib", "_string", "_sqlite3"];

thread_local! {
    /// The definitions of the `HANDED_OVER` modules, taken out by the init hook of the VM built on this thread.
    pub static HANDED_OVER_NATIVES: std::cell::RefCell<Vec<(&'static str, &'static PyModuleDef)>> =
        const { std::cell::RefCell::new(Vec::new()) };
    /// The native modules handed over, and their stand-ins' names (see `hide_handed_over`).
    static HANDED_OVER_MODULES: std::cell::RefCell<Vec<(PyObjectRef, &'static str)>> =
        const { std::cell::RefCell::new(Vec::new()) };
    /// `builtin_function_or_method.__self__` as RustPython defines it.
    static NATIVE_SELF: std::cell::RefCell<Option<PyObjectRef>> = const { std::cell::RefCell::new(None) };
}

/// Import the stand-in `name`, handing it the native module as `<name>_native` only while it imports.
pub fn hand_over(vm: &VirtualMachine, name: &'static str) -> PyResult<()> {
    let def = HANDED_OVER_NATIVES
        .with(|natives| natives.borrow().iter().find(|(handed, _)| *handed == name).map(|(_, def)| *def));
    let Some(def) = def else { return Ok(()) };
    let native = def.create_module(vm)?;
    def.exec_module(vm, &native)?;
    let modules = vm.sys_module.get_attr("modules", vm)?;
    let native_name = format!("{name}_native");
    let native: PyObjectRef = native.into();
    HANDED_OVER_MODULES.with(|handed| handed.borrow_mut().push((native.clone(), name)));
    modules.set_item(native_name.as_str(), native, vm)?;
    let imported = vm.import(name, 0);
    modules.del_item(native_name.as_str(), vm)?;
    imported.map(drop)
}

/// A builtin function's `__self__` is, in RustPython, the module it was made in: for a function a stand-in
/// keeps of its native module (`gc.collect`, `_csv`'s reader, `_sqlite3`'s connect), that is the very module
/// the stand-in hides (`gc.get_objects`, the process-wide dialect registry, a connection without the time
/// limit). Such a function answers with its stand-in instead, as CPython's `gc.collect.__self__` is `gc`.
pub fn hide_handed_over(vm: &VirtualMachine) -> PyResult<()> {
    let function_type = vm.ctx.types.builtin_function_or_method_type;
    let original = function_type
        .get_attr(vm.ctx.intern_str("__self__"))
        .ok_or_else(|| vm.new_system_error("builtin functions have no __self__"))?;
    NATIVE_SELF.with(|native_self| *native_self.borrow_mut() = Some(original));
    let getter = vm.new_function("__self__", |function: PyObjectRef, vm: &VirtualMachine| -> PyResult {
        let original = NATIVE_SELF.with(|native_self| native_self.borrow().clone()).expect("set with the getter");
        let owner = vm.call_get_descriptor(&original, &function).unwrap_or_else(|| Ok(vm.ctx.none()))?;
        let stand_in = HANDED_OVER_MODULES
            .with(|handed| handed.borrow().iter().find(|(module, _)| module.is(&owner)).map(|(_, name)| *name));
        match stand_in {
            Some(name) => vm.import(name, 0),
            None => Ok(owner),
        }
    });
    let property = vm.ctx.types.property_type.as_object().call((getter,), vm)?;
    function_type.set_attr(vm.ctx.intern_str("__self__"), property);
    function_type.modified();
    Ok(())
}
