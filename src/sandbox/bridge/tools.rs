//! Host tools inside the sandbox: each tool is a global stand-in function that forwards to the host
//! callable registered under its name *at call time*, so replacing a tool takes effect at once and removing
//! one revokes every reference sandbox code kept. `call_tool(name, *args, **kwargs)` is the generic door.
//!
//! Called from sync code, a tool answers at once, as a function does. Called from async code (a coroutine the
//! sandbox's event loop is running), it starts the host call and returns an awaitable of its result at once,
//! so calls gathered together run at the same time on the host (see `_sandbox_async`).

use std::cell::RefCell;
use std::collections::HashMap;
use std::rc::Rc;
use std::time::Duration;

use rustpython_vm::builtins::{PyBaseExceptionRef, PyDictRef, PyStrRef, PyTupleRef, PyTypeRef};
use rustpython_vm::function::FuncArgs;
use rustpython_vm::{AsObject, PyObjectRef, PyResult, VirtualMachine};

use crate::protocol::message::{HostError, ToolDecl, ToolResult, SPAWN_STAND_INS};
use crate::sandbox::bridge::host;
use crate::sandbox::bridge::values;
use crate::sandbox::vm::limits;

/// A host tool as the sandbox sees it (the callable stays in the host, which calls it by name).
pub struct ToolEntry {
    /// The source of its stand-in (see `ToolSpec`), None for the generic one.
    pub source: Option<String>,
    /// The stand-in: the function the tool's global is, and what `call_tool(name, ...)` calls, so the VM binds
    /// a call's arguments to the tool's signature whichever way it is made.
    pub stand_in: PyObjectRef,
}

/// What the zygote makes once for every session's tools (`new_stand_in_factory`): the stand-in maker, and the
/// class of a stream's sandbox end.
pub struct ToolFactory {
    pub make_tool: PyObjectRef,
    pub stream: PyObjectRef,
}

/// The session's tools, on its VM thread.
#[derive(Default)]
struct Tools {
    tools: HashMap<String, Rc<ToolEntry>>,
    tool_factory: Option<ToolFactory>,
    /// Stand-ins the zygote made before forking, by tool name and source (`prepare_stand_ins`); a session takes
    /// each at most once.
    prepared_stand_ins: HashMap<(String, String), PyObjectRef>,
    /// The types a host tool's exception takes, by host type name (`errors::tool_error_types`).
    tool_error_types: HashMap<String, PyTypeRef>,
    /// Host calls started from async code and not yet delivered: the tool's name by call id.
    host_calls: HashMap<u64, String>,
}

thread_local! {
    static TOOLS: RefCell<Tools> = RefCell::new(Tools::default());
}

/// Borrow the tools' state briefly. Never call back into the VM while borrowed.
fn with_state<R>(f: impl FnOnce(&mut Tools) -> R) -> R {
    TOOLS.with(|state| f(&mut state.borrow_mut()))
}

/// Keep what the zygote made for every session's tools.
pub fn set_up(factory: ToolFactory, tool_error_types: HashMap<String, PyTypeRef>) {
    with_state(|s| {
        s.tool_factory = Some(factory);
        s.tool_error_types = tool_error_types;
    });
}

/// Forget the host calls an earlier run left running; whether there were any.
pub fn forget_host_calls() -> bool {
    !with_state(|s| std::mem::take(&mut s.host_calls)).is_empty()
}

/// Sandbox-side factory of stand-ins: a plain function per tool, so the tool has its own name and is
/// found by identity among the globals (dspy's facade looks tools up that way). Made once, in the zygote,
/// with the two classes every stand-in uses (`Default` for a default the host applies, `Stream` for a tool
/// that streams): a stand-in's source is then only its `def`, and a session with RLM's three tools does not
/// compile and build six classes before its first run.
const STAND_IN_FACTORY: &str = "\
def new_factory(invoke, pull):
    class Default:
        'A default the host applies itself (it is not a plain literal): the argument is left out.'
        __slots__ = ('text',)
        def __init__(self, text):
            self.text = text
        def __repr__(self):
            return self.text

    class Stream:
        'Items a host tool streams, pulled one by one; closed when abandoned or at the end of the run.'
        __slots__ = ('_tool', '_id', '_done')
        def __init__(self, tool, id):
            self._tool, self._id, self._done = tool, id, False
        def __iter__(self):
            return self
        def __next__(self):
            if self._done:
                raise StopIteration
            more, item = pull(self._tool, self._id, False)
            if not more:
                self._done = True
                raise StopIteration
            return item
        def close(self):
            'Stop the stream: the host closes its generator.'
            if not self._done:
                self._done = True
                pull(self._tool, self._id, True)
        def __enter__(self):
            return self
        def __exit__(self, *exc_info):
            self.close()
        def __del__(self):
            try:
                self.close()
            except BaseException:
                pass
        def __repr__(self):
            return f'<stream of items from tool {self._tool!r}>'

    for cls in (Default, Stream):
        cls.__module__ = 'tools'
        cls.__qualname__ = cls.__name__

    def make_tool(name, source=None):
        if source is None:
            def tool(*args, **kwargs):
                return invoke(name, args, kwargs)
            tool.__name__ = tool.__qualname__ = name
            tool.__doc__ = f'Host tool {name!r}.'
        else:
            namespace = {'__invoke': invoke, '__Default': Default, '__name__': 'tools'}
            exec(compile(source, '<tools>', 'exec'), namespace)
            tool = namespace[name]
        tool.__module__ = 'tools'
        return tool

    return make_tool, Stream
";

pub fn new_stand_in_factory(vm: &VirtualMachine) -> PyResult<ToolFactory> {
    let scope = vm.new_scope_with_builtins();
    let code = vm
        .compile(STAND_IN_FACTORY, rustpython_vm::compiler::Mode::Exec, "<tools>")
        .map_err(|e| vm.new_runtime_error(format!("tool factory does not compile: {e}")))?;
    vm.run_code_obj(code, scope.clone())?;
    let invoke = vm.new_function("invoke", invoke_from_stand_in);
    let pull = vm.new_function("pull", pull_stream);
    let made = scope.globals.get_item("new_factory", vm)?.call((invoke, pull), vm)?;
    let made = made
        .downcast::<rustpython_vm::builtins::PyTuple>()
        .map_err(|_| vm.new_type_error("the tool factory makes a pair"))?;
    let [make_tool, stream] = <[PyObjectRef; 2]>::try_from(made.as_slice().to_vec())
        .map_err(|_| vm.new_type_error("the tool factory makes a pair"))?;
    Ok(ToolFactory { make_tool, stream })
}

/// How many stand-ins a zygote keeps made (a few KiB each, shared by every session it forks): a host that
/// declares ever new tool sources makes the rest in its sessions, as without them.
const MAX_PREPARED_STAND_INS: usize = 64;

/// In the zygote, before it forks a session whose first run declares `decls`: make the stand-ins it does not
/// have yet, so that session and every later one with the same tools take them made. Compiling a stand-in's
/// `def` in every session is most of what tools add to a new session (RLM's three tools). A source that does
/// not compile is left for the session, which compiles it and reports its error.
pub fn prepare_stand_ins(vm: &VirtualMachine, decls: Vec<ToolDecl>) {
    let Some(factory) = with_state(|s| s.tool_factory.as_ref().map(|f| f.make_tool.clone())) else { return };
    for ToolDecl { name, source } in decls.into_iter().take(SPAWN_STAND_INS) {
        let Some(source) = source else { continue };
        let key = (name, source);
        if with_state(|s| {
            s.prepared_stand_ins.len() >= MAX_PREPARED_STAND_INS || s.prepared_stand_ins.contains_key(&key)
        }) {
            continue;
        }
        if let Ok(stand_in) = factory.call((vm.ctx.new_str(key.0.as_str()), vm.ctx.new_str(key.1.as_str())), vm) {
            with_state(|s| s.prepared_stand_ins.insert(key, stand_in));
        }
    }
}

/// The stand-in the zygote made for this tool, taken (a second request in this session makes a new one).
fn prepared_stand_in(name: &str, source: &str) -> Option<PyObjectRef> {
    with_state(|s| s.prepared_stand_ins.remove(&(name.to_owned(), source.to_owned())))
}

pub fn install_call_tool(vm: &VirtualMachine, globals: &PyDictRef) -> PyResult<()> {
    globals.set_item("call_tool", vm.new_function("call_tool", call_tool).into(), vm)
}

/// Make the sandbox's tools exactly `decls`: each name's global is its stand-in (a new one when the tool is new
/// or its source changed), and a removed tool's global goes (if it still is the stand-in); every stand-in
/// forwards to the callable the host registered under its name when it is called.
/// A stand-in's source, when given, is a `def <name>(...)` with the tool's own signature and docstring whose
/// body calls `__invoke(name, args, kwargs)`, so `help()`, `inspect.signature` and the VM's own argument
/// binding see the host function's shape.
pub fn replace_tools(vm: &VirtualMachine, globals: &PyDictRef, decls: Vec<ToolDecl>) -> PyResult<()> {
    let factory = with_state(|s| s.tool_factory.as_ref().map(|f| f.make_tool.clone())).expect("set at start-up");
    let old = with_state(|s| std::mem::take(&mut s.tools));
    for (name, entry) in &old {
        if decls.iter().any(|decl| decl.name == *name) {
            continue;
        }
        if globals.get_item_opt(name.as_str(), vm)?.is_some_and(|current| current.is(&entry.stand_in)) {
            globals.del_item(name.as_str(), vm)?;
        }
    }
    let mut table: HashMap<String, Rc<ToolEntry>> = HashMap::with_capacity(decls.len());
    for ToolDecl { name, source } in decls {
        let entry = match old.get(&name) {
            Some(entry) if entry.source == source => entry.clone(),
            _ => {
                let tool_name = vm.ctx.new_str(name.as_str());
                let stand_in = match &source {
                    Some(source) => match prepared_stand_in(&name, source) {
                        Some(made) => made,
                        None => factory.call((tool_name, vm.ctx.new_str(source.as_str())), vm)?,
                    },
                    None => factory.call((tool_name,), vm)?,
                };
                Rc::new(ToolEntry { source, stand_in })
            }
        };
        if !globals.get_item_opt(name.as_str(), vm)?.is_some_and(|current| current.is(&entry.stand_in)) {
            globals.set_item(name.as_str(), entry.stand_in.clone(), vm)?;
        }
        table.insert(name, entry);
    }
    with_state(|s| s.tools = table);
    Ok(())
}

fn invoke_from_stand_in(name: PyStrRef, args: PyTupleRef, kwargs: PyDictRef, vm: &VirtualMachine) -> PyResult {
    let keyword = kwargs
        .items_vec()
        .into_iter()
        .map(|(k, v)| Ok((k.str(vm)?.to_string_lossy().into_owned(), v)))
        .collect::<PyResult<Vec<_>>>()?;
    call_host_tool(&name.to_string_lossy(), args.as_slice().to_vec(), keyword, vm)
}

/// `call_tool(name, *args, **kwargs)`: the tool's stand-in called with the arguments, so they are bound to its
/// signature as a direct call binds them, with the VM's own errors.
fn call_tool(mut args: FuncArgs, vm: &VirtualMachine) -> PyResult {
    if args.args.is_empty() {
        return Err(vm.new_type_error("call_tool() needs the tool's name: call_tool(\"name\", *args, **kwargs)"));
    }
    let name = args.args.remove(0);
    let name = name.downcast::<rustpython_vm::builtins::PyStr>().map_err(|obj| {
        vm.new_type_error(format!("call_tool() takes the tool's name as a str, got {}", obj.class().name()))
    })?;
    let name = name.to_string_lossy();
    let Some(stand_in) = with_state(|s| s.tools.get(name.as_ref()).map(|entry| entry.stand_in.clone())) else {
        return Err(not_available(&name, vm));
    };
    stand_in.call(args, vm)
}

/// RuntimeError: no tool is registered as `name`, naming those that are.
fn not_available(name: &str, vm: &VirtualMachine) -> PyBaseExceptionRef {
    vm.new_runtime_error(format!(
        "tool '{name}' is not available: it is not (or no longer) registered with this interpreter; {}",
        available_tools()
    ))
}

fn available_tools() -> String {
    let mut names: Vec<String> = with_state(|s| s.tools.keys().cloned().collect());
    names.sort();
    if names.is_empty() {
        "there are no tools".to_owned()
    } else {
        format!("available tools: {}", names.join(", "))
    }
}

/// Call the host tool registered as `name` with sandbox arguments, as its stand-in bound them, and bring its
/// result back.
pub fn call_host_tool(
    name: &str,
    args: Vec<PyObjectRef>,
    kwargs: Vec<(String, PyObjectRef)>,
    vm: &VirtualMachine,
) -> PyResult {
    let shared = limits::shared();
    if stopping(shared.as_deref()) {
        return Err(stopped_tool(name, vm));
    }
    if with_state(|s| !s.tools.contains_key(name)) {
        return Err(not_available(name, vm));
    }
    // One count for the whole call: the host refuses a message of more than MAX_VALUES values.
    let seen = std::cell::Cell::new(0);
    let to_value = |value: &PyObjectRef, what: &str| {
        values::to_value_counted(value, vm, &seen)
            .map_err(|e| vm.new_type_error(format!("tool '{name}': {}", e.describe(what))))
    };
    let positional = args
        .iter()
        .enumerate()
        .map(|(i, value)| to_value(value, &format!("positional argument {i}")))
        .collect::<PyResult<Vec<_>>>()?;
    let keyword = kwargs
        .iter()
        .map(|(key, value)| Ok((key.clone(), to_value(value, &format!("argument '{key}'"))?)))
        .collect::<PyResult<Vec<_>>>()?;
    if in_running_event_loop(vm) {
        let call_id = host::host().start_tool(name, positional, keyword);
        with_state(|s| s.host_calls.insert(call_id, name.to_owned()));
        let waiter = vm.new_function("wait_for_host_calls", wait_for_host_calls);
        return crate::sandbox::vm::namespace::sandbox_async(vm, "start_call", (call_id, name.to_owned(), waiter));
    }
    let result = in_host_time(shared.as_deref(), || host::host().call_tool(name, positional, keyword));
    tool_result_in_sandbox(result, name, vm)
}

/// Whether the run is being stopped: after an accepted finish call, past a limit, or while the session shuts
/// down, whatever still runs (a finalizer, a `finally`) gets nothing from the host, which has its answer or
/// has let the session go.
fn stopping(shared: Option<&crate::sandbox::vm::limits::Shared>) -> bool {
    shared.is_some_and(|shared| shared.stopping().is_some())
}

fn stopped_tool(name: &str, vm: &VirtualMachine) -> PyBaseExceptionRef {
    vm.new_runtime_error(format!("tool '{name}' cannot be called: this run is being stopped"))
}

/// `f`, a wait for the host (a tool call, or for host calls to finish), and how much of it was the tools' own
/// time: that part is not counted against the run's time limit.
fn in_host_time<R>(shared: Option<&crate::sandbox::vm::limits::Shared>, f: impl FnOnce() -> (R, Duration)) -> R {
    if let Some(shared) = shared {
        shared.tool_call_started();
    }
    let (result, own) = f();
    if let Some(shared) = shared {
        shared.tool_call_ended(own);
    }
    result
}

/// `pull(tool, id, close)` for a stream's sandbox end: `(True, item)`, `(False, None)` once the stream has
/// no more items, or the tool's exception; with `close`, the host ends the stream. Always a wait for the host,
/// in async code too (an iterator's `__next__` cannot be awaited).
fn pull_stream(tool: PyStrRef, stream: u64, close: bool, vm: &VirtualMachine) -> PyResult {
    let name = tool.to_string_lossy();
    let shared = limits::shared();
    if stopping(shared.as_deref()) {
        return Err(stopped_tool(&name, vm));
    }
    let pair = |more: bool, item: PyObjectRef| vm.ctx.new_tuple(vec![vm.ctx.new_bool(more).into(), item]).into();
    match in_host_time(shared.as_deref(), || host::host().pull_stream(&name, stream, close)) {
        ToolResult::End => Ok(pair(false, vm.ctx.none())),
        ToolResult::Stream(_) => Err(vm.new_type_error(format!("tool '{name}': a stream's item cannot be a stream"))),
        item => Ok(pair(true, tool_result_in_sandbox(item, &name, vm)?)),
    }
}

fn tool_result_in_sandbox(result: ToolResult, name: &str, vm: &VirtualMachine) -> PyResult {
    match result {
        ToolResult::Return(value) => values::into_sandbox(value, vm).map_err(|e| {
            vm.new_type_error(format!("tool '{name}' returned a value that {}", e.describe("").trim_start()))
        }),
        ToolResult::Stream(id) => {
            let stream = with_state(|s| s.tool_factory.as_ref().map(|f| f.stream.clone())).expect("set at start-up");
            stream.call((vm.ctx.new_str(name), id), vm)
        }
        ToolResult::End => {
            Err(vm.new_type_error(format!("tool '{name}': the host ended a stream that was not pulled")))
        }
        ToolResult::Raise(error) => Err(host_error_in_sandbox(error, vm, name)),
        ToolResult::Refused(message) => Err(vm.new_type_error(message)),
    }
}

/// Whether the caller runs inside the sandbox's event loop (asyncio imported, a loop running).
fn in_running_event_loop(vm: &VirtualMachine) -> bool {
    let Some(events) = crate::sandbox::vm::namespace::imported_module(vm, "asyncio.events") else { return false };
    events
        .get_attr("_get_running_loop", vm)
        .and_then(|running| running.call((), vm))
        .is_ok_and(|running| !vm.is_none(&running))
}

/// `wait_for_host_calls(timeout)`, for the event loop when it has nothing else to run: the host calls that
/// finish within `timeout` seconds (None: until one does), as `(call_id, ok, value or exception)`. The wait
/// is host time, not the run's (it is not counted against the time limit).
fn wait_for_host_calls(timeout: Option<f64>, vm: &VirtualMachine) -> PyResult<Vec<PyObjectRef>> {
    if timeout.is_some_and(|t| t.is_nan() || t < 0.0 || t.is_infinite()) {
        return Err(vm.new_value_error("timeout must be a non-negative number or None"));
    }
    let shared = limits::shared();
    if stopping(shared.as_deref()) {
        return Err(vm.new_runtime_error("host calls cannot be awaited: this run is being stopped"));
    }
    // A wait for calls running on the host: all of it is theirs.
    let results = in_host_time(shared.as_deref(), || (host::host().wait_tools(timeout), Duration::MAX));
    let mut delivered = Vec::with_capacity(results.len());
    for (call_id, result) in results {
        let Some(name) = with_state(|s| s.host_calls.remove(&call_id)) else { continue };
        let (ok, value) = match tool_result_in_sandbox(result, &name, vm) {
            Ok(value) => (true, value),
            Err(exc) => (false, exc.into()),
        };
        delivered
            .push(vm.ctx.new_tuple(vec![vm.ctx.new_int(call_id).into(), vm.ctx.new_bool(ok).into(), value]).into());
    }
    Ok(delivered)
}

/// The host's exception raised inside the sandbox, as "tool 'x' failed with ValueError: ...": for a built-in
/// type, the sandbox's same-named subclass of it and of RuntimeError (`errors::tool_error_types`; made
/// without calling it, so no sandbox code runs), else RuntimeError; either way carrying `tool` (the tool's
/// name), `host_type` (the host exception's qualified type name) and `host_traceback` (the host's traceback
/// text, for code that wants it; never printed by default).
fn host_error_in_sandbox(error: HostError, vm: &VirtualMachine, tool: &str) -> PyBaseExceptionRef {
    let HostError { type_name, is_builtin, message, host_type, traceback } = error;
    let cls = is_builtin.then(|| with_state(|s| s.tool_error_types.get(&type_name).cloned())).flatten();
    let text = format!("tool '{tool}' failed with {type_name}: {message}");
    let exc = vm.new_exception_msg(cls.unwrap_or_else(|| vm.ctx.exceptions.runtime_error.to_owned()), text.into());
    // Into the instance's dict directly: `setattr` would run a `__setattr__` sandbox code gave the type.
    let dict = exc.as_object().dict().unwrap_or_else(|| vm.ctx.new_dict());
    for (attr, value) in [("tool", tool.to_owned()), ("host_type", host_type), ("host_traceback", traceback)] {
        let _ = dict.set_item(attr, vm.ctx.new_str(value).into(), vm);
    }
    let _ = exc.as_object().set_dict(Some(dict));
    exc
}
