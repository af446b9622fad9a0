//! One `execute()` inside the session process: bind the variables and tools, run the cell under the limits,
//! and describe what happened as a protocol `Outcome`.

use std::collections::HashMap;
use std::sync::Arc;

use rustpython_vm::builtins::{PyBaseExceptionRef, PyCode};
use rustpython_vm::bytecode::CodeFlags;
use rustpython_vm::compiler::{CompileOpts, Mode};
use rustpython_vm::scope::Scope;
use rustpython_vm::{AsObject, PyObjectRef, PyPayload, PyRef, PyResult, VirtualMachine};

use crate::protocol::message::{Execute, Outcome, Stop};
use crate::protocol::value::Value;
use crate::sandbox::bridge::values::{self, KeptValues};
use crate::sandbox::bridge::{output, tools};
use crate::sandbox::rewrite::{cell_code, folded_constants, respecialise};
use crate::sandbox::vm::errors::{self, ExceptionReport};
use crate::sandbox::vm::limits::{self, Shared};
use crate::sandbox::vm::namespace::{self, Namespace};
use crate::worker::monitor;

/// The source of every code cell run in this session, for traceback lines, and the code compiled from it.
/// A source run again (a loop of `execute()` calls) is the same cell: its code object is reused, which skips
/// parsing and compiling and keeps the VM's specialised bytecode warm.
#[derive(Default)]
pub struct Cells {
    sources: Vec<String>,
    compiled: HashMap<String, PyRef<PyCode>>,
}

/// How many distinct sources keep their code object; past that the cache starts over.
const COMPILED_CELLS_KEPT: usize = 256;

impl Cells {
    fn compile(&mut self, vm: &VirtualMachine, code: &str, mode: Mode) -> Result<PyRef<PyCode>, Outcome> {
        if let Some(compiled) = self.compiled.get(code) {
            // Run again as code that never ran: its first run specialised it against globals it then added to.
            respecialise::forget(compiled);
            return Ok(compiled.clone());
        }
        self.sources.push(code.to_owned());
        let cell_name = format!("<cell {}>", self.sources.len());
        // A cell may await at top level, as in IPython: it then compiles to a coroutine (see `run_cell`).
        let opts = CompileOpts { allow_top_level_await: true, ..vm.compile_opts() };
        let compiled = vm.compile_with_opts(code, mode, cell_name, opts).map_err(|err| {
            let report = errors::syntax_report(vm, err, code);
            Outcome::Syntax {
                kind: report.kind,
                message: report.message,
                lineno: report.lineno.map(|n| n as u64),
                offset: report.offset.map(|n| n as u64),
                text: report.text,
            }
        })?;
        let compiled = match folded_constants::refolded(&compiled.code, code, vm) {
            Some(refolded) => PyCode::new(refolded).into_ref(&vm.ctx),
            None => compiled,
        };
        let compiled = match cell_code::with_global_loads(&compiled.code) {
            Some(code) => PyCode::new(code).into_ref(&vm.ctx),
            None => compiled,
        };
        if self.compiled.len() >= COMPILED_CELLS_KEPT {
            self.compiled.clear();
        }
        self.compiled.insert(code.to_owned(), compiled.clone());
        Ok(compiled)
    }

    /// Forget the specialisations of every function, lambda and generator expression the kept cells define
    /// (`respecialise`).
    fn forget_functions(&self) {
        for code in self.compiled.values() {
            respecialise::forget_held(code);
        }
    }

    fn line(&self, file: &str, line: usize) -> Option<String> {
        let index: usize = file.strip_prefix("<cell ")?.strip_suffix('>')?.parse().ok()?;
        let source = self.sources.get(index.checked_sub(1)?)?;
        source.lines().nth(line.checked_sub(1)?).map(str::to_owned)
    }
}

/// A session process's workspace: what it keeps between runs besides its VM.
pub struct Workspace {
    pub namespace: Namespace,
    pub cells: Cells,
    pub kept: KeptValues,
    pub shared: Arc<Shared>,
    /// The last run was stopped by a limit (see `settle_event_loops`).
    pub stopped: bool,
    /// How many names the globals held when the cells' functions last had their specialisations forgotten
    /// (`Cells::forget_functions`).
    pub names_seen: usize,
}

/// Ends the run's budget and monitoring however the run ends.
struct RunGuard<'a>(&'a Shared);

impl Drop for RunGuard<'_> {
    fn drop(&mut self) {
        monitor::end_run();
        self.0.end_memory_budget();
        self.0.reset_for_job();
    }
}

/// One of the host API's commands on the session's files (`interp.files`), under the limits of a run: the
/// filesystem's Python code is the session's to change.
pub fn files_command(
    vm: &VirtualMachine,
    session: &mut Workspace,
    command: crate::protocol::files::FilesCommand,
) -> Outcome {
    let shared = session.shared.clone();
    shared.reset_for_job();
    monitor::begin_run(shared.clone());
    let _guard = RunGuard(&shared);
    shared.begin_memory_budget();
    crate::sandbox::bridge::files::command(vm, command)
}

/// What a standby rehearses (see `rehearse`): the shapes most first cells have.
const REHEARSAL: &str = "_rehearsed = [str(n) for n in range(3)]\nprint(f'{len(_rehearsed)}:', *_rehearsed)\n";

/// A standby's rehearsal, before its session is asked for: one run of `REHEARSAL` in a copy of the globals,
/// with cells of its own, leaving the session as it was (its run count put back). A session process starts
/// sharing every page with the zygote, and a first run writes to ~200 of them (reference counts, free lists,
/// allocator headers, the compiler's and the streams' state), each a copy-on-write fault that a new session's
/// first `print(1)` would otherwise pay: here they are paid while the standby waits.
pub fn rehearse(vm: &VirtualMachine, session: &Workspace) {
    let mut scratch = Workspace {
        namespace: session.namespace.scratch(vm),
        cells: Cells::default(),
        kept: KeptValues::default(),
        shared: session.shared.clone(),
        stopped: false,
        names_seen: 0,
    };
    let runs = crate::sandbox::bridge::files::runs();
    let request =
        Execute { code: REHEARSAL.into(), variables: Vec::new(), tools: None, fields: None, checkpoint: false };
    drop(execute(vm, &mut scratch, request));
    drop(scratch);
    // What it printed is cleared when the session's first run starts, as every run's is.
    crate::sandbox::bridge::files::set_runs(runs);
}

pub fn execute(vm: &VirtualMachine, session: &mut Workspace, request: Execute) -> Outcome {
    let Execute { code, variables, tools: new_tools, fields, checkpoint: _ } = request;
    // The time limit applies from here on: converting values allocates, which can collect garbage and run
    // a finalizer the code left behind.
    let shared = session.shared.clone();
    shared.reset_for_job();
    monitor::begin_run(shared.clone());
    let _guard = RunGuard(&shared);
    // Converting runs the session's own modules (dates, decimals, UUIDs): under the import state it expects
    // and a memory budget that leaves room for the values themselves.
    if let Err(exc) = namespace::restore_import_state(vm, &session.namespace) {
        return error_outcome(vm, &exc, &session.cells, String::new());
    }
    shared.begin_memory_budget_beyond(variables.iter().map(|(_, value)| value.size_hint()).sum());
    // Convert every variable before binding any, so a bad one leaves the session untouched.
    let bindings = match session.kept.bind(variables, vm) {
        Ok(bindings) => bindings,
        Err(message) => return Outcome::BadInput(message),
    };
    let globals = session.namespace.globals.clone();
    if let Some(decls) = new_tools {
        if let Err(exc) = tools::replace_tools(vm, &globals, decls) {
            return error_outcome(vm, &exc, &session.cells, String::new());
        }
    }
    for (name, value) in bindings {
        if let Err(exc) = globals.set_item(name.as_str(), value, vm) {
            return error_outcome(vm, &exc, &session.cells, String::new());
        }
    }
    // The memory limit, once the host's values are in (a run may start above it, see `begin_memory_budget`).
    shared.begin_memory_budget();
    crate::sandbox::vm::sys_clamps::enforce(vm);
    limits::begin_job();
    crate::sandbox::cpython::clear_interrupt();
    crate::sandbox::bridge::finish::begin_run(fields);
    crate::sandbox::bridge::files::begin_run();
    output::begin_run();
    if let Err(exc) = output::install_streams(vm, &session.namespace.streams) {
        return error_outcome(vm, &exc, &session.cells, String::new());
    }

    let mode = errors::compile_mode(&code);
    let compiled = match session.cells.compile(vm, &code, mode) {
        Ok(compiled) => compiled,
        Err(syntax_error) => return syntax_error,
    };
    if std::mem::take(&mut session.stopped) {
        settle_event_loops(vm);
    }
    forget_host_calls(vm);
    // The globals gained or lost names since their functions last had their specialisations forgotten: those
    // made against the old names would read every global the slow way from now on (see `respecialise`).
    let names = globals.__len__();
    if names != session.names_seen {
        session.cells.forget_functions();
        session.names_seen = names;
    }
    let lends_annotation_set = lacks_annotation_set(&compiled);
    if lends_annotation_set {
        let set = rustpython_vm::builtins::PySet::default().into_ref(&vm.ctx);
        let _ = globals.set_item(ANNOTATION_SET, set.into(), vm);
    }
    if lacks_annotations_dict(&compiled) && !globals.contains_key("__annotations__", vm) {
        let _ = globals.set_item("__annotations__", vm.ctx.new_dict().into(), vm);
    }
    let scope = Scope::with_builtins(None, globals.clone(), vm);
    let result = run_cell(vm, compiled, scope);
    let result = result.and_then(|value| run_threads_left(vm, &session.namespace.modules).map(|()| value));
    if lends_annotation_set {
        let _ = globals.del_item(ANNOTATION_SET, vm);
    }

    // After an accepted finish call, let go of the unwound run (its frames, their locals, suspended
    // generators) while the stop still stands: whatever finalizer that runs is stopped at its first
    // instruction and gets no tool.
    let finish = crate::sandbox::bridge::finish::take_finish();
    let result = if finish.is_some() {
        drop(result);
        None
    } else {
        Some(result)
    };
    // The limit that stopped the run, if any (read before the stop is cleared).
    let stop = shared.limit_stop();
    session.stopped = stop.is_some();
    let result = match result {
        Some(Err(exc)) if stop.is_some() => Some(Err(limit_error(vm, &shared, exc))),
        other => other,
    };
    shared.reset_for_job();
    let printed = output::take_output();
    if let Some((kind, fields)) = finish {
        return match values::to_value(&fields, vm) {
            Ok(fields) => Outcome::Finish(kind, fields),
            Err(e) => Outcome::Error {
                type_name: "TypeError".into(),
                message: format!("an output field {}", e.describe("").trim_start()),
                traceback: String::new(),
                output: printed.into_text(),
                stop: None,
            },
        };
    }
    // The last operation may have grown past the memory limit with no instruction left to stop at: the
    // value it made is not handed to the host.
    match result {
        Some(Ok(_)) if shared.over_memory_limit() => {
            let exc = vm.new_memory_error(limits::memory_limit_message(&shared));
            stopped(error_outcome(vm, &exc, &session.cells, printed.into_text()), Some(Stop::Memory))
        }
        Some(Ok(value)) => value_outcome(vm, mode, value, printed, shared.options.max_output_chars())
            .unwrap_or_else(|(exc, printed)| error_outcome(vm, &exc, &session.cells, printed)),
        Some(Err(exc)) => stopped(error_outcome(vm, &exc, &session.cells, printed.into_text()), stop),
        None => unreachable!("a finish call returned above"),
    }
}

/// The set a module's annotated assignments record themselves in (PEP 649).
const ANNOTATION_SET: &str = "__conditional_annotations__";

/// Whether the cell's code names the annotation set as a global. RustPython's block-expression mode (a cell
/// with a trailing expression) compiles annotated assignments to add to that set but leaves out the module
/// prologue that makes it: `x: int = 5` followed by `print(x)` would fail with `NameError:
/// __conditional_annotations__`. The run is lent one (and it is taken back after), as the prologue would
/// have made it.
fn lacks_annotation_set(compiled: &PyCode) -> bool {
    compiled.code.names.iter().any(|name| name.as_str() == ANNOTATION_SET)
}

/// Whether the cell's annotated assignments go to the module's `__annotations__` dict (`from __future__ import
/// annotations`, PEP 563) with no prologue to make it: RustPython's block-expression mode leaves out the
/// `SETUP_ANNOTATIONS` its other modes emit, so `x: int = 5` then `print(__annotations__)` would fail with
/// `NameError`. The dict is made as that instruction makes it, once, in the globals.
fn lacks_annotations_dict(compiled: &PyCode) -> bool {
    compiled.flags.contains(CodeFlags::FUTURE_ANNOTATIONS)
        && compiled.code.names.iter().any(|name| name.as_str() == "__annotations__")
}

/// Run the threads the cell started and no wait of its ran (the sandbox's `threading` runs threads one at a
/// time, at the first wait): they run before the cell ends, as CPython's would have run by then or right after.
fn run_threads_left(vm: &VirtualMachine, modules: &rustpython_vm::builtins::PyDictRef) -> PyResult<()> {
    let Ok(Some(threading)) = modules.get_item_opt("threading", vm) else { return Ok(()) };
    let Ok(pending) = threading.get_attr("_pending", vm) else { return Ok(()) };
    if !pending.is_true(vm)? {
        return Ok(());
    }
    vm.call_method(&threading, "_run_left", ()).map(|_| ())
}

/// Run a compiled cell. One that awaits at top level is a coroutine, run to its end on the session's event
/// loop (`_sandbox_async`); any other runs as it is.
fn run_cell(vm: &VirtualMachine, compiled: PyRef<PyCode>, scope: Scope) -> PyResult {
    let awaits = compiled.flags.contains(CodeFlags::COROUTINE);
    let result = vm.run_code_obj(compiled, scope)?;
    if !awaits {
        return Ok(result);
    }
    namespace::sandbox_async(vm, "run_cell", (result,)).inspect_err(trim_to_cell)
}

/// The event loop's frames are not the model's code: a top-level-await cell's traceback starts at the cell,
/// as IPython shows it (and is empty when the error arose in the loop itself, e.g. a limit's stop).
fn trim_to_cell(exc: &PyBaseExceptionRef) {
    let mut entry = exc.traceback();
    while let Some(tb) = entry.take() {
        if tb.frame.f_code().source_path().as_str().starts_with("<cell ") {
            entry = Some(tb);
            break;
        }
        entry = tb.next.lock().clone();
    }
    exc.set_traceback(entry);
}

/// A run a limit stopped unwound without running its `finally` blocks, so an event loop it was running still
/// reads as running (and `asyncio.run` would refuse to start another): end that as the loop's own cleanup
/// would have. Only if asyncio was imported.
fn settle_event_loops(vm: &VirtualMachine) {
    if namespace::imported_module(vm, "asyncio.events").is_some() {
        let _ = namespace::sandbox_async(vm, "settle", ());
    }
}

/// Host calls an earlier run started and left running: the host dropped their results when that run ended,
/// so their awaitables fail now instead of waiting for ever (and the event loop no longer waits for them).
fn forget_host_calls(vm: &VirtualMachine) {
    if !tools::forget_host_calls() {
        return;
    }
    let _ = namespace::sandbox_async(vm, "forget", ());
}

fn error_outcome(vm: &VirtualMachine, exc: &PyBaseExceptionRef, cells: &Cells, output: String) -> Outcome {
    let source_line = |file: &str, line: usize| cells.line(file, line).or_else(|| file_line(vm, file, line));
    let ExceptionReport { type_name, message, traceback } = errors::exception_report(vm, exc, source_line);
    // Words CPython leaves out that the model needs: why a module is missing, what a refused allocation reached.
    let message = match type_name.as_str() {
        "MemoryError" if message.is_empty() => limits::refused_allocation_message(),
        "ModuleNotFoundError" => errors::with_missing_module_reason(message),
        _ => message,
    };
    let (message, traceback) = (output::escape_notes(message), output::escape_notes(traceback));
    Outcome::Error { type_name, message, traceback, output, stop: None }
}

/// Line `line` of a module the sandbox imported from its own filesystem (`sandbox/machinery/_sandbox_importer.py`), read as
/// CPython's traceback reads it (`linecache`, through the sandbox's `open`); None for the `<...>` names of
/// cells, frozen and stand-in modules.
fn file_line(vm: &VirtualMachine, file: &str, line: usize) -> Option<String> {
    if file.starts_with('<') || file.is_empty() {
        return None;
    }
    let text = vm.import("linecache", 0).ok()?.get_attr("getline", vm).ok()?.call((file, line), vm).ok()?;
    let text = text.str(vm).ok()?.to_string_lossy().into_owned();
    (!text.trim().is_empty()).then_some(text)
}

/// A run a limit stopped ends with the limit's exception, even when native code caught it and raised one of
/// its own (SQLite turns the exception its progress handler raised into `OperationalError: interrupted`); the
/// native error is kept as its context.
fn limit_error(vm: &VirtualMachine, shared: &limits::Shared, exc: PyBaseExceptionRef) -> PyBaseExceptionRef {
    match limits::stop_exception(vm, shared) {
        Some(limit) if !exc.as_object().class().is(limit.as_object().class()) => {
            limit.set_context(Some(exc));
            limit
        }
        _ => exc,
    }
}

/// An error outcome marked as the work of a limit.
fn stopped(outcome: Outcome, by: Option<Stop>) -> Outcome {
    match outcome {
        Outcome::Error { type_name, message, traceback, output, .. } => {
            Outcome::Error { type_name, message, traceback, output, stop: by }
        }
        other => other,
    }
}

/// The REPL-like result: the printed text exactly as printed (with a trailing expression's repr appended on
/// a line of its own), else the trailing expression's value (plain data as itself, anything else as its
/// repr), else None. The text is capped at `max_chars` as printed output is, the repr included.
///
/// As in CPython's REPL, a value whose repr raises is the cell's error, with what was printed (`Err`): an int
/// past `sys.get_int_max_str_digits()`, alone or inside data. Handed over as data, such an int would be a host
/// `int` that `str()` refuses, and RLM's `str(result)` would end the whole call.
fn value_outcome(
    vm: &VirtualMachine,
    mode: Mode,
    value: PyObjectRef,
    mut printed: output::Printed,
    max_chars: usize,
) -> Result<Outcome, (PyBaseExceptionRef, String)> {
    let value = (matches!(mode, Mode::BlockExpr) && !vm.is_none(&value)).then_some(value);
    if !printed.is_empty() {
        // The repr is shown where CPython's REPL shows it: after what was printed to stdout.
        if let Some(value) = &value {
            match value.repr(vm) {
                Ok(text) => printed.print(&text.to_string_lossy()),
                Err(exc) => return Err((exc, printed.into_text())),
            };
        }
        return Ok(Outcome::Value(Value::Str(printed.into_text())));
    }
    let Some(value) = value else { return Ok(Outcome::Value(Value::None)) };
    let repr = |value: &PyObjectRef| match value.repr(vm) {
        Ok(text) => Ok(output::shown(&text.to_string_lossy(), max_chars)),
        Err(exc) => Err((exc, String::new())),
    };
    match values::to_value(&value, vm) {
        Ok(data) if holds_int_of_bits(&data, LONG_INT_BITS) => {
            // The sandbox's own repr decides (its limit may have been raised): CPython's error, or the data.
            repr(&value).map(|_| Outcome::Value(data))
        }
        Ok(data) => Ok(Outcome::Value(data)),
        Err(e) if e.kind.is_size() => Ok(Outcome::Value(Value::Str(format!("<{} object>", value.class().name())))),
        Err(_) => repr(&value).map(|text| Outcome::Value(Value::Str(text))),
    }
}

/// Ints of more bits than this may have more decimal digits than `sys.get_int_max_str_digits()`'s default
/// (4,300 digits are over 14,280 bits): their value's repr is asked for.
const LONG_INT_BITS: usize = 14_000;

/// Whether `value` holds an int of more than `bits` bits.
fn holds_int_of_bits(value: &Value, bits: usize) -> bool {
    match value {
        Value::BigInt(bytes) => bytes.len() * 8 > bits,
        Value::List(items) | Value::Tuple(items) | Value::Set(items) | Value::FrozenSet(items) => {
            items.iter().any(|item| holds_int_of_bits(item, bits))
        }
        Value::Dict(pairs) => {
            pairs.iter().any(|(key, item)| holds_int_of_bits(key, bits) || holds_int_of_bits(item, bits))
        }
        Value::Keep(_, inner) => holds_int_of_bits(inner, bits),
        _ => false,
    }
}
