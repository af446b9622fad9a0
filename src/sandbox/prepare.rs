//! Building a sandboxed VM: settings that ignore the host, the module allow-list and the stand-ins, and a fresh
//! VM prepared for sandbox code (its builtins, filesystem, limits and the globals code runs in: finish calls,
//! `call_tool`, captured output). The one place that puts the sandbox's parts together.

use rustpython_vm::common::rc::PyRc;
use rustpython_vm::frozen::FrozenModule;
use rustpython_vm::function::FuncArgs;
use rustpython_vm::signal::UserSignalReceiver;
use rustpython_vm::{Interpreter, PyObjectRef, PyResult, Settings, VirtualMachine};

use crate::sandbox::bridge::{files, finish, output, tools};
use crate::sandbox::library;
use crate::sandbox::rewrite::folded_constants;
use crate::sandbox::vm::handed_over::{hand_over, hide_handed_over, HANDED_OVER, HANDED_OVER_NATIVES};
use crate::sandbox::vm::namespace::{restore_import_state, sys_getattr_fallback, Namespace};
use crate::sandbox::vm::{code_objects, errors, limits, native_recursion, sleep, stdlib, sys_clamps};

/// One stand-in, compiled to bytecode when this crate is built (compiling them when each zygote starts would
/// lengthen every cold start). `include_str!` makes cargo rebuild the crate when the file changes.
macro_rules! stand_in {
    ($name:literal, $file:literal, $code_name:literal) => {{
        const _: &str = include_str!($file);
        (
            $name,
            FrozenModule { code: rustpython_vm::py_compile!(file = $file, module_name = $code_name), package: false },
        )
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

/// Prepare a fresh VM for sandbox code: the `os` stand-in, the session's globals and the functions they hold.
pub fn prepare(vm: &VirtualMachine) -> PyResult<Namespace> {
    code_objects::forbid_code_crafting(vm);
    library::install(vm)?;
    for name in HANDED_OVER {
        hand_over(vm, name)?;
    }
    hide_handed_over(vm)?;
    library::zlib::install(vm)?;
    // Every native type exists before sandbox code runs, so that each gets its slots guarded.
    let natives: Vec<&'static str> = vm.state.module_defs.keys().copied().collect();
    for module in natives {
        // A module that cannot be imported here cannot be by sandbox code either.
        let _ = vm.import(module, 0);
    }
    native_recursion::guard_native_iterators(vm)?;
    files::install(vm)?;
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
    library::stdlib_fixes::install_after_files(vm)?;
    folded_constants::install(vm)?;
    // `sys.exit()` raises `SystemExit()`, as CPython's does (RustPython's raises `SystemExit(None)`, which a cell
    // would report as `SystemExit: None`); native, so no frame of its own shows in the traceback.
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
    sleep::install(vm)?;
    sys_clamps::install(vm)?;
    let scope = vm.new_scope_with_builtins();
    let globals = scope.globals;
    globals.set_item("__name__", vm.ctx.new_str("__main__").into(), vm)?;
    finish::install(vm, &globals)?;
    tools::install_call_tool(vm, &globals)?;
    let streams = output::new_streams(vm)?;
    // A module's import-time decisions see the streams a session sees (sympy's pretty printer picks Unicode by
    // `sys.stdout.encoding`): the zygote's preloads and packages import with them in place.
    output::install_streams(vm, &streams)?;
    let factory = tools::new_stand_in_factory(vm)?;
    limits::set_finish_exception_type(finish::new_stop_exception_type(vm));
    let tool_error_types = errors::tool_error_types(vm);
    let modules = vm
        .sys_module
        .get_attr("modules", vm)?
        .downcast::<rustpython_vm::builtins::PyDict>()
        .map_err(|_| vm.new_system_error("sys.modules is not a dict"))?;
    tools::set_up(factory, tool_error_types);
    crate::sandbox::vm::namespace::set_session(globals.clone(), modules.clone());
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
            let report = errors::exception_report(vm, &exc, |_, _| None);
            return Err(format!(
                "preload: module {name:?} cannot be imported in the sandbox ({}: {})",
                report.type_name, report.message
            ));
        }
    }
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
    let no_input =
        vm.new_function("input", |_args: rustpython_vm::function::FuncArgs, vm: &VirtualMachine| -> PyResult {
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
            crate::sandbox::vm::gc::install(vm).expect("safe-point collections");
            let (mut ran, mut raised) = (0, std::collections::BTreeMap::<String, usize>::new());
            for program in text.split("\n#---\n").filter(|program| !program.trim().is_empty()) {
                let scope = vm.new_scope_with_builtins();
                let compiled = vm.compile(program, rustpython_vm::compiler::Mode::Exec, "<program>".to_owned());
                // What a program raises is not judged, only what it does to memory; the kinds are counted, so a
                // run whose programs all stop at their first line shows it.
                if let Ok(Err(exc)) = compiled.map(|code| vm.run_code_obj(code, scope)) {
                    *raised.entry(rustpython_vm::AsObject::as_object(&exc).class().name().to_string()).or_default() +=
                        1;
                }
                ran += 1;
            }
            eprintln!("{ran} programs ran; raised: {raised:?}");
        });
    }
}
