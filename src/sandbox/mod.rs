//! Building a sandboxed VM: settings that ignore the host, the module allow-list, our stand-in for `os`,
//! and the globals sandbox code runs in (finish calls, `call_tool`, captured output).

use rustpython_vm::builtins::{PyDictRef, PyModule, PyModuleDef, PyStrRef};
use rustpython_vm::frozen::FrozenModule;
use rustpython_vm::function::{FuncArgs, IntoFuncArgs};
use rustpython_vm::common::rc::PyRc;
use rustpython_vm::signal::UserSignalReceiver;
use rustpython_vm::{AsObject, Interpreter, PyObjectRef, PyPayload, PyRef, PyResult, Settings, VirtualMachine};

use self::state::with_state;

pub mod builtins;
pub mod bundle;
pub mod cell_code;
pub mod folded_constants;
pub mod errors;
pub mod files;
pub mod gc;
pub mod host;
pub mod finish;
pub mod limits;
pub mod native_recursion;
pub mod output;
mod preread;
pub mod respecialise;
pub mod state;
pub mod stdlib;
pub mod tools;
pub mod tzdata;
pub mod values;

pub use stdlib::MODULES as STDLIB_MODULES;

/// One stand-in, compiled to bytecode when this crate is built (compiling them when each zygote started cost
/// it ~17 ms). `include_str!` makes cargo rebuild the crate when the file changes.
macro_rules! stand_in {
    ($name:literal, $file:literal, $code_name:literal) => {{
        const _: &str = include_str!($file);
        ($name, FrozenModule { code: rustpython_vm::py_compile!(file = $file, module_name = $code_name), package: false })
    }};
}

/// The modules written here in place of the standard library's, or for the sandbox's own machinery
/// (`_sandbox_*`: its filesystem, streams, tracebacks, asyncio cells, imports, refusals): one per file of
/// `python/`, named after the module it provides, each saying what it does in its docstring (the list is written
/// by `build.rs`). Frozen, so an import finds them even after sandbox code deleted them from `sys.modules`.
fn stand_ins() -> Vec<(&'static str, FrozenModule)> {
    include!(concat!(env!("OUT_DIR"), "/stand_ins.rs")).into()
}

fn settings() -> Settings {
    let mut settings = Settings::default();
    settings.isolated = true;
    settings.ignore_environment = true;
    settings.import_site = false;
    settings.install_signal_handlers = false;
    settings.safe_path = true;
    settings.write_bytecode = false;
    settings.user_site_directory = false;
    settings.path_list = Vec::new();
    // A program name for argparse's usage line (CPython's is the script's name; an empty one printed "usage: [-h]").
    settings.argv = vec!["main.py".to_owned()];
    settings
}

pub fn new_interpreter(signals: UserSignalReceiver) -> Interpreter {
    let builder = Interpreter::builder(settings());
    let natives = rustpython_stdlib::stdlib_module_defs(&builder.ctx);
    builder
        .add_native_modules(&natives)
        .add_frozen_modules(rustpython_pylib::FROZEN_STDLIB)
        .init_hook(move |vm| {
            let state = PyRc::get_mut(&mut vm.state).expect("the VM's state is not shared during init hooks");
            // Not importable by name: only their stand-ins get them (see `hand_over`).
            HANDED_OVER_NATIVES.with(|natives| {
                let mut natives = natives.borrow_mut();
                natives.clear();
                natives.extend(HANDED_OVER.iter().filter_map(|name| Some((*name, state.module_defs.remove(name)?))));
            });
            state.module_defs.retain(|name, _| stdlib::native_allowed(name));
            state.frozen.retain(|name, _| stdlib::python_allowed(name));
            state.frozen.extend(stand_ins());
            vm.set_user_signal_channel(signals);
        })
        .build()
}

/// Sandbox code must not build code objects of its own: the VM runs bytecode without verifying it, so crafted
/// bytecode could crash the process or worse. Code objects then only come from the compiler (`compile`,
/// `def`, `lambda`), and assigning one to `function.__code__` is no more than defining that function. The one
/// change left is what `types.coroutine` (which asyncio uses) makes: marking a generator's code as an
/// iterable coroutine, a flag that changes no bytecode.
fn forbid_code_crafting(vm: &VirtualMachine) {
    let code_type = vm.ctx.types.code_type;
    code_type.modified();
    code_type.attributes.remove(vm.ctx.intern_str("__replace__"));
    code_type.set_attr(vm.ctx.intern_str("replace"), vm.new_method("replace", code_type, mark_iterable_coroutine).into());
    code_type.slots.new.store(Some(refuse_code_construction));
}

/// `code.replace(co_flags=...)` that only sets CO_ITERABLE_COROUTINE; anything else is refused.
fn mark_iterable_coroutine(
    code: PyRef<rustpython_vm::builtins::PyCode>,
    args: rustpython_vm::function::FuncArgs,
    vm: &VirtualMachine,
) -> PyResult<PyRef<rustpython_vm::builtins::PyCode>> {
    use rustpython_vm::bytecode::CodeFlags;
    let old = code.code.flags;
    let flags = match (args.args.as_slice(), args.kwargs.len(), args.kwargs.get("co_flags")) {
        ([], 1, Some(flags)) => flags.try_to_value::<u32>(vm).ok().and_then(CodeFlags::from_bits),
        _ => None,
    };
    match flags {
        Some(flags) if old.contains(CodeFlags::GENERATOR) && flags == old | CodeFlags::ITERABLE_COROUTINE => {
            let mut marked = code.code.clone();
            marked.flags = flags;
            Ok(rustpython_vm::builtins::PyCode::new(marked).into_ref(&vm.ctx))
        }
        _ => Err(refused_code_change(vm)),
    }
}

fn refused_code_change(vm: &VirtualMachine) -> rustpython_vm::builtins::PyBaseExceptionRef {
    vm.new_exception_msg(
        vm.ctx.exceptions.permission_error.to_owned(),
        "code objects cannot be created or modified in the sandbox; write the code as def/lambda, or compile() it".into(),
    )
}

fn refuse_code_construction(_cls: rustpython_vm::builtins::PyTypeRef, _args: rustpython_vm::function::FuncArgs, vm: &VirtualMachine) -> PyResult {
    Err(refused_code_change(vm))
}

/// Call `function` of `_sandbox_async`, the sandbox's side of asyncio (`python/_sandbox_async.py`).
pub fn sandbox_async(vm: &VirtualMachine, function: &'static str, args: impl IntoFuncArgs) -> PyResult {
    vm.import("_sandbox_async", 0)?.get_attr(function, vm)?.call(args, vm)
}

/// Module `name` when this session has imported it (looked up in the VM's own `sys.modules`).
pub fn imported_module(vm: &VirtualMachine, name: &str) -> Option<PyObjectRef> {
    with_state(|s| s.modules.clone())?.get_item(name, vm).ok()
}

/// What one session's VM keeps for running code.
#[derive(Clone)]
pub struct Namespace {
    pub globals: PyDictRef,
    pub streams: (PyObjectRef, PyObjectRef),
    /// The VM's own `sys.modules`, and the `sys.__getattr__` that finds it (see `restore_import_state`).
    pub modules: PyDictRef,
    sys_getattr: PyObjectRef,
    /// `sys.modules['__main__']`, whose dict is the globals (as in CPython: `dataclasses` and `typing` look
    /// the module of a class up there).
    main: PyRef<PyModule>,
}

/// A module attribute miss makes RustPython look up `sys.modules` as an attribute of `sys` (to word its
/// error), and a miss on that one does the same again: after `del sys.modules`, the next miss on any module
/// recursed until the worker's stack overflowed, before any limit could act. `sys.__getattr__` (consulted on
/// a miss before that lookup) answers `modules` with the VM's own, as CPython's import keeps using it.
/// `restore_import_state` puts the attribute back between runs.
///
/// The function holds no reference (a native closure is opaque to the collector: a captured `sys.modules`
/// would keep every module alive); it finds the dict in the session's state.
fn sys_getattr_fallback(vm: &VirtualMachine) -> PyObjectRef {
    vm.new_function("__getattr__", |name: PyStrRef, vm: &VirtualMachine| -> PyResult {
        match with_state(|s| s.modules.clone()) {
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

/// Prepare a fresh VM for sandbox code: the `os` stand-in, the session's globals and the functions they hold.
pub fn prepare(vm: &VirtualMachine) -> PyResult<Namespace> {
    forbid_code_crafting(vm);
    crate::sandbox::builtins::install(vm)?;
    for name in HANDED_OVER {
        hand_over(vm, name)?;
    }
    hide_handed_over(vm)?;
    // Every native type exists before sandbox code runs, so that each gets its slots guarded.
    let natives: Vec<&'static str> = vm.state.module_defs.keys().copied().collect();
    for module in natives {
        // A module that cannot be imported here cannot be by sandbox code either.
        let _ = vm.import(module, 0);
    }
    crate::sandbox::native_recursion::guard_native_iterators(vm)?;
    crate::sandbox::files::install(vm)?;
    // Modules in `sys.path` folders of the sandbox's filesystem, after the standard library's.
    vm.import("_sandbox_importer", 0)?.get_attr("install", vm)?.call((), vm)?;
    // Refused modules say why on import (`python/_sandbox_refused.py`): first on the path, before the allow-list's
    // "No module named".
    let refusing = vm.import("_sandbox_refused", 0)?;
    let refused = refusing.get_attr("REFUSED", vm)?;
    for (name, reason) in stdlib::refusals() {
        refused.set_item(name, vm.ctx.new_str(reason).into(), vm)?;
    }
    let finder = refusing.get_attr("RefusedFinder", vm)?;
    vm.sys_module.get_attr("meta_path", vm)?.get_attr("insert", vm)?.call((0, finder), vm)?;
    scrub_sys(vm)?;
    let help = vm.import("_help", 0)?.get_attr("help", vm)?;
    vm.builtins.set_attr("help", help, vm)?;
    vm.import("_sitebuiltins", 0)?.get_attr("install", vm)?.call((vm.builtins.clone(),), vm)?;
    crate::sandbox::builtins::patched::install_after_files(vm)?;
    crate::sandbox::folded_constants::install(vm)?;
    // `sys.exit()` raises `SystemExit()`, as CPython's does (RustPython's raised `SystemExit(None)`, which a cell
    // reported as `SystemExit: None`); native, so no frame of its own shows in the traceback.
    let exit = vm.new_function("exit", |args: FuncArgs, vm: &VirtualMachine| -> PyResult {
        if !args.kwargs.is_empty() {
            return Err(vm.new_type_error("exit() takes no keyword arguments"));
        }
        if args.args.len() > 1 {
            return Err(vm.new_type_error(format!("exit expected at most 1 argument, got {}", args.args.len())));
        }
        // `sys.exit(None)` is `sys.exit()`: CPython raises the exception with no arguments for both.
        let status: Vec<PyObjectRef> = args.args.into_iter().filter(|status| !vm.is_none(status)).collect();
        Err(vm.new_exception(vm.ctx.exceptions.system_exit.to_owned(), status))
    });
    vm.sys_module.set_attr("exit", exit, vm)?;
    crate::sandbox::limits::install(vm)?;
    let scope = vm.new_scope_with_builtins();
    let globals = scope.globals;
    globals.set_item("__name__", vm.ctx.new_str("__main__").into(), vm)?;
    finish::install(vm, &globals)?;
    tools::install_call_tool(vm, &globals)?;
    let streams = output::new_streams(vm)?;
    let factory = tools::new_stand_in_factory(vm)?;
    limits::set_finish_exception_type(finish::new_stop_exception_type(vm));
    let tool_error_types = crate::sandbox::errors::tool_error_types(vm);
    let modules = vm.sys_module.get_attr("modules", vm)?.downcast::<rustpython_vm::builtins::PyDict>().map_err(|_| {
        vm.new_system_error("sys.modules is not a dict")
    })?;
    with_state(|s| {
        s.globals = Some(globals.clone());
        s.tool_error_types = tool_error_types;
        s.modules = Some(modules.clone());
        s.tool_factory = Some(factory);
    });
    let sys_getattr = sys_getattr_fallback(vm);
    let main = vm.new_module("__main__", globals.clone(), None);
    let namespace = Namespace { globals, streams, modules, sys_getattr, main };
    restore_import_state(vm, &namespace)?;
    Ok(namespace)
}

/// Import `modules` ahead of the session's first run, so that importing them then is a lookup. Refused
/// like an import in sandbox code would be (a module outside the allow-list is not found).
pub fn preload(vm: &VirtualMachine, modules: &[impl AsRef<str>]) -> Result<(), String> {
    for name in modules {
        let name = name.as_ref();
        if let Err(exc) = vm.import(&vm.ctx.new_str(name), 0) {
            let report = crate::sandbox::errors::exception_report(vm, &exc, |_, _| None);
            return Err(format!(
                "preload: module {name:?} cannot be imported in the sandbox ({}: {})",
                report.type_name, report.message
            ));
        }
    }
    Ok(())
}

/// Native modules kept out of the importable ones, each handed once to the stand-in of the same name, which
/// keeps only part of it: `_csv` (its dialect registry and field size limit are process-wide; the stand-in
/// keeps them per session) and `gc` (`get_objects`, `get_referrers` and `get_referents` would hand out every
/// object the VM holds, the sandbox's own machinery included); `zlib` is handed over whole, its errors worded
/// anew (`python/zlib.py`), and `_sqlite3` whole, its `connect` confined (`python/_sqlite3.py`).
/// Deleting the attributes from the module would not do: a new import, `importlib.reload` or
/// `_imp.create_builtin` would make the whole module again.
const HANDED_OVER: &[&str] = &["_csv", "gc", "zlib", "_sqlite3"];

thread_local! {
    /// The definitions of the `HANDED_OVER` modules, taken out by the init hook of the VM built on this thread.
    static HANDED_OVER_NATIVES: std::cell::RefCell<Vec<(&'static str, &'static PyModuleDef)>> =
        const { std::cell::RefCell::new(Vec::new()) };
    /// The native modules handed over, and their stand-ins' names (see `hide_handed_over`).
    static HANDED_OVER_MODULES: std::cell::RefCell<Vec<(PyObjectRef, &'static str)>> =
        const { std::cell::RefCell::new(Vec::new()) };
    /// `builtin_function_or_method.__self__` as RustPython defines it.
    static NATIVE_SELF: std::cell::RefCell<Option<PyObjectRef>> = const { std::cell::RefCell::new(None) };
}

/// Import the stand-in `name`, handing it the native module as `<name>_native` only while it imports.
fn hand_over(vm: &VirtualMachine, name: &'static str) -> PyResult<()> {
    let def = HANDED_OVER_NATIVES.with(|natives| natives.borrow().iter().find(|(handed, _)| *handed == name).map(|(_, def)| *def));
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
fn hide_handed_over(vm: &VirtualMachine) -> PyResult<()> {
    let function_type = vm.ctx.types.builtin_function_or_method_type;
    let original = function_type.get_attr(vm.ctx.intern_str("__self__")).ok_or_else(|| vm.new_system_error("builtin functions have no __self__"))?;
    NATIVE_SELF.with(|native_self| *native_self.borrow_mut() = Some(original));
    let getter = vm.new_function("__self__", |function: PyObjectRef, vm: &VirtualMachine| -> PyResult {
        let original = NATIVE_SELF.with(|native_self| native_self.borrow().clone()).expect("set with the getter");
        let owner = vm.call_get_descriptor(&original, &function).unwrap_or_else(|| Ok(vm.ctx.none()))?;
        let stand_in = HANDED_OVER_MODULES.with(|handed| handed.borrow().iter().find(|(module, _)| module.is(&owner)).map(|(_, name)| *name));
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

/// `sys` describes the host's installation (interpreter path, prefixes, search path); the sandbox has none,
/// and there is no standard input to read.
fn scrub_sys(vm: &VirtualMachine) -> PyResult<()> {
    let sys = &vm.sys_module;
    for name in ["executable", "_base_executable", "prefix", "base_prefix", "exec_prefix", "base_exec_prefix"] {
        sys.set_attr(name, vm.ctx.new_str(""), vm)?;
    }
    // The sandbox's own search path (`_sandbox_importer`): the working directory, as in CPython's REPL, and
    // where the `packages` option shows the user's packages, as CPython's site-packages.
    let path = vec![vm.ctx.new_str("").into(), vm.ctx.new_str("/packages").into()];
    sys.set_attr("path", vm.ctx.new_list(path), vm)?;
    sys.set_attr("orig_argv", vm.ctx.new_list(Vec::new()), vm)?;
    let no_input = vm.new_function("input", |_args: rustpython_vm::function::FuncArgs, vm: &VirtualMachine| -> PyResult {
        Err(vm.new_runtime_error(
            "input() is not available in the sandbox: nothing is attached to its standard input; the data you \
             need is in your variables, or reachable through the tools",
        ))
    });
    vm.builtins.set_attr("input", no_input, vm)
}

/// A sandbox VM for unit tests, on the calling thread.
#[cfg(test)]
pub fn with_test_vm<R>(f: impl FnOnce(&VirtualMachine) -> R) -> R {
    let (_signals, receiver) = rustpython_vm::signal::user_signal_channel();
    new_interpreter(receiver).enter(f)
}

#[cfg(test)]
mod tests {
    /// The programs `fuzz/fuzz_callbacks.py --emit` wrote to the file `DRI_CALLBACK_PROGRAMS` names, each run in a
    /// prepared sandbox VM in this process, for a memory checker to watch: native code that holds a pointer into an
    /// object while sandbox code changes it reads freed memory here, which valgrind reports (`make fuzz` runs this
    /// test under it). Ignored unless asked for.
    #[test]
    #[ignore]
    fn callback_programs_under_a_memory_checker() {
        let Ok(path) = std::env::var("DRI_CALLBACK_PROGRAMS") else { return };
        let text = std::fs::read_to_string(path).expect("the programs");
        super::with_test_vm(|vm| {
            super::prepare(vm).expect("a prepared VM");
            super::gc::install(vm).expect("safe-point collections");
            let (mut ran, mut raised) = (0, std::collections::BTreeMap::<String, usize>::new());
            for program in text.split("\n#---\n").filter(|program| !program.trim().is_empty()) {
                let scope = vm.new_scope_with_builtins();
                let compiled = vm.compile(program, rustpython_vm::compiler::Mode::Exec, "<program>".to_owned());
                // What a program raises is not judged, only what it does to memory; the kinds are counted, so a
                // run whose programs all stop at their first line shows it.
                if let Ok(Err(exc)) = compiled.map(|code| vm.run_code_obj(code, scope)) {
                    *raised.entry(rustpython_vm::AsObject::as_object(&exc).class().name().to_string()).or_default() += 1;
                }
                ran += 1;
            }
            eprintln!("{ran} programs ran; raised: {raised:?}");
        });
    }
}
