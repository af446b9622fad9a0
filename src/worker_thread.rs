//! The worker threads that own the sessions' VMs. A RustPython VM cannot move between threads, so each
//! session is hosted by one thread that builds the VM, runs jobs from a channel one at a time, and
//! finalises the VM when the session ends. The thread then waits, idle, to host another session
//! (`thread_context` explains why that is safe and what it saves).

use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::mpsc::{channel, Receiver, Sender};
use std::collections::HashMap;
use std::sync::Arc;
use std::time::Duration;

use parking_lot::Mutex;
use pyo3::prelude::*;
use pyo3::types::PyDict;
use rustpython_vm::compiler::Mode;
use rustpython_vm::scope::Scope;
use rustpython_vm::signal::UserSignalReceiver;
use rustpython_vm::builtins::PyCode;
use rustpython_vm::{AsObject, PyObjectRef, PyRef, VirtualMachine};

use crate::errors::{self, ExceptionReport, SyntaxReport};
use crate::limits::{self, Shared, StopReason};
use crate::injection::Injections;
use crate::sandbox::{self, Namespace};
use crate::state::{release_with_gil, with_state, Field, FinishKind};
use crate::tools::{self, ToolSpec};
use crate::{convert, output};

/// Deep recursion in RustPython uses native stack; give the VM's thread plenty (it is reserved, not used).
const WORKER_STACK_BYTES: usize = 256 * 1024 * 1024;

pub struct ExecuteJob {
    pub code: String,
    pub variables: Option<Py<PyDict>>,
    /// A new tool table, or None to keep the current one.
    pub tools: Option<Vec<ToolSpec>>,
    pub fields: Option<Vec<Field>>,
    /// The caller's `contextvars.Context`, entered around every tool call.
    pub context: Option<Py<PyAny>>,
    /// The sessions waiting for this job, this one included (see `state::waiting_sessions`).
    pub waiting_sessions: Vec<u64>,
    /// A deliberate failure, for the tests that prove a panic never takes the process down.
    pub fault: Option<Fault>,
}

/// Where a test asks for a Rust panic.
#[derive(Clone, Copy, Debug)]
pub enum Fault {
    /// In the worker, while the VM runs the job.
    InVm,
    /// Inside the next host tool call, with the GIL held and sandbox frames on the stack.
    InTool,
    /// In the session handle's `execute()`, on the caller's thread.
    InHandle,
    /// Not a panic: the VM's thread overflows its native stack (SIGSEGV), for the tests of `rescue`.
    StackOverflow,
    /// Not a panic: the VM's thread aborts (SIGABRT), as an allocation failure on an infallible path does.
    Abort,
}

pub enum Job {
    Execute(Box<ExecuteJob>),
    Shutdown,
}

pub enum Outcome {
    /// What `execute()` returns when no finish call was accepted.
    Value(Py<PyAny>),
    Finish(FinishKind, Py<PyAny>),
    Syntax(SyntaxReport),
    Error { report: ExceptionReport, output: String },
    /// The host's input could not be used (e.g. a variable of an unsupported type); nothing was changed.
    BadInput(String),
    /// The session cannot go on.
    Dead(String),
}

/// What a worker thread needs to host one session.
pub struct Assignment {
    pub jobs: Receiver<Job>,
    pub replies: Sender<Outcome>,
    pub shared: Arc<Shared>,
    pub signals: UserSignalReceiver,
    /// Modules imported while the session is built, before its first job.
    pub preload: Vec<String>,
}

/// Threads waiting for a session: each takes the next assignment sent on its channel.
static IDLE: Mutex<Vec<Sender<Assignment>>> = Mutex::new(Vec::new());
/// At most this many threads wait idle; more than that exit after their session.
const MAX_IDLE_THREADS: usize = 32;
/// An idle thread exits after waiting this long for a session.
const IDLE_TIMEOUT: Duration = Duration::from_secs(60);

/// Start hosting a session: on an idle worker thread if there is one, else on a new one. The thread
/// reports once on `replies` whether the VM could be built.
pub fn start(mut assignment: Assignment) -> std::io::Result<()> {
    loop {
        let Some(idle) = IDLE.lock().pop() else { break };
        match idle.send(assignment) {
            Ok(()) => return Ok(()),
            // That thread timed out meanwhile: try the next one.
            Err(std::sync::mpsc::SendError(returned)) => assignment = returned,
        }
    }
    std::thread::Builder::new()
        .name("dspy-rust-interpreter".into())
        .stack_size(WORKER_STACK_BYTES)
        .spawn(move || host_sessions(assignment))
        .map(drop)
}

/// A worker thread's life: host sessions one after the other while each leaves the thread clean.
fn host_sessions(first: Assignment) {
    static SERIALS: AtomicU64 = AtomicU64::new(1);
    let serial = SERIALS.fetch_add(1, Ordering::Relaxed);
    let mut next = Some(first);
    while let Some(assignment) = next.take() {
        let shared = assignment.shared.clone();
        shared.worker.store(serial, Ordering::SeqCst);
        let reusable = host_session(assignment);
        let (sender, receiver) = channel();
        let idle = reusable && {
            let mut idle = IDLE.lock();
            idle.len() < MAX_IDLE_THREADS && {
                idle.push(sender);
                true
            }
        };
        // Only now: a caller that waited for this session to end finds the thread idle.
        shared.finished.store(true, Ordering::SeqCst);
        if !idle {
            return;
        }
        next = receiver.recv_timeout(IDLE_TIMEOUT).ok();
    }
}

/// Host one session on this thread, from building its VM to finalising it; true when the thread can host
/// another (the VM was finalised normally, and what it left on the thread is unreachable).
fn host_session(assignment: Assignment) -> bool {
    let Assignment { jobs, replies, shared, signals, preload } = assignment;
    // Everything this thread allocates for the session belongs to the session's VM, and a fatal signal here
    // ends this session, not the process.
    let session = shared.clone();
    crate::rescue::watched(&shared.crashed, || {
        crate::memory::counted_on(&shared.memory, || run_session(jobs, replies, session, signals, &preload))
    })
}

fn run_session(
    jobs: Receiver<Job>,
    replies: Sender<Outcome>,
    shared: Arc<Shared>,
    signals: UserSignalReceiver,
    preload: &[String],
) -> bool {
    // Dropped last, after every use of the GIL below.
    let _python_thread = crate::python_thread::PythonThread::register();
    with_state(|s| s.shared = Some(shared));
    let built = catch_unwind(AssertUnwindSafe(|| {
        let interpreter = sandbox::new_interpreter(signals);
        let namespace = interpreter.enter(sandbox::prepare);
        let preloaded = namespace.is_ok().then(|| interpreter.enter(|vm| sandbox::preload(vm, preload)));
        (interpreter, namespace, preloaded)
    }));
    let (interpreter, namespace, preloaded) = match built {
        Ok((interpreter, Ok(namespace), preloaded)) => (interpreter, namespace, preloaded),
        Ok((interpreter, Err(exc), _)) => {
            let report = interpreter.enter(|vm| errors::exception_report(vm, &exc, |_, _| None));
            let reason = format!("the sandbox VM could not be prepared: {}: {}", report.type_name, report.message);
            let _ = replies.send(Outcome::Dead(reason));
            clear_state();
            return false;
        }
        Err(_) => {
            let _ = replies.send(Outcome::Dead("the sandbox VM could not be created".into()));
            clear_state();
            return false;
        }
    };
    let ready = match preloaded {
        Some(Err(message)) => Outcome::BadInput(message),
        _ => Outcome::Value(Python::attach(|py| py.None())),
    };
    let serving = matches!(ready, Outcome::Value(_));
    let _ = replies.send(ready);
    let mut cells = Cells::default();
    let mut injections = Injections::default();
    while let Some(job) = serving.then(|| crate::handoff::receive(&jobs, crate::handoff::WORKER_SPIN)).flatten() {
        let job = match job {
            Job::Execute(job) => job,
            Job::Shutdown => break,
        };
        let outcome = catch_unwind(AssertUnwindSafe(|| interpreter.enter(|vm| execute(vm, &namespace, &mut cells, &mut injections, *job))));
        match outcome {
            Ok(outcome) => {
                if replies.send(outcome).is_err() {
                    break;
                }
            }
            Err(panic) => {
                let reason = panic_message(&panic);
                let _ = replies.send(Outcome::Dead(format!("internal error in the sandbox: {reason}")));
                // The VM may be inconsistent after a panic: never run it again, never finalise it.
                forget_state();
                std::mem::forget(cells);
                std::mem::forget(injections);
                std::mem::forget(namespace);
                std::mem::forget(interpreter);
                return false;
            }
        }
    }
    // Finalizers and atexit callbacks run while the VM is torn down: they are stopped at their first
    // instruction and get no tool (the tool table is cleared), so they cannot hold the thread or reach out.
    if let Some(shared) = with_state(|s| s.shared.clone()) {
        shared.request_stop(StopReason::Shutdown);
    }
    clear_state();
    drop(cells);
    injections.clear();
    // Emptied, not just dropped: a function the session left in a cycle the collector cannot free keeps
    // these globals alive (see `thread_context`), and must not keep the session's data with them.
    interpreter.enter(|_vm| namespace.globals.clear());
    // Finalising the modules looks `sys.modules` up: without it RustPython recursed until the stack overflowed.
    let import_state = catch_unwind(AssertUnwindSafe(|| {
        interpreter.enter(|vm| sandbox::restore_import_state(vm, &namespace).is_ok())
    }))
    .unwrap_or(false);
    drop(namespace);
    let torn_down = catch_unwind(AssertUnwindSafe(move || tear_down(interpreter))).unwrap_or(false);
    import_state && torn_down && catch_unwind(crate::thread_context::clean_up_after_session).unwrap_or(false)
}

/// Finalise a session's VM, leaving as little behind as RustPython allows. Unlike
/// `Interpreter::finalize`, no `atexit` callback runs (sandbox code gets no last word after shutdown), and
/// cycles are collected again after the modules are cleared. False when the thread must not host another
/// session (see `thread_context::refill_json_cache`).
fn tear_down(interpreter: rustpython_vm::Interpreter) -> bool {
    interpreter.enter(|vm| {
        vm.state.finalizing.store(true, Ordering::Release);
        vm.state.gc.collect_force(2);
        vm.finalize_modules();
        // Classes whose cycles the collector cannot see (those with `__slots__`: their member descriptors
        // point back at them untraced) stay alive, with the functions and module dicts they reach. Their
        // dicts are emptied, which breaks those cycles.
        for typ in sandbox::all_types(&vm.ctx.types.object_type.to_owned()) {
            let heap = typ.slots.flags.has_feature(rustpython_vm::types::PyTypeFlags::HEAPTYPE);
            if heap && !crate::thread_context::is_kept(&typ) {
                if let Some(dict) = typ.attributes.as_dict() {
                    dict.clear();
                }
            }
        }
        vm.state.atexit_funcs.lock().clear();
        for _ in 0..8 {
            if vm.state.gc.collect_force(2).collected == 0 {
                break;
            }
        }
        // The VM's last act: nothing of the session can run after it.
        crate::thread_context::refill_json_cache(vm)
    })
}


fn panic_message(panic: &Box<dyn std::any::Any + Send>) -> String {
    if let Some(s) = panic.downcast_ref::<&str>() {
        (*s).to_owned()
    } else if let Some(s) = panic.downcast_ref::<String>() {
        s.clone()
    } else {
        "a Rust panic".to_owned()
    }
}

/// Reset the session state for the thread's next session, while the VM is still alive; host objects are
/// released with the GIL.
fn clear_state() {
    let state = with_state(std::mem::take);
    let crate::state::SessionState { tools, caller_context, .. } = state;
    release_with_gil((tools, caller_context));
    crate::state::set_waiting_sessions(Vec::new());
}

fn forget_state() {
    with_state(|s| {
        std::mem::forget(s.globals.take());
        std::mem::forget(s.tool_factory.take());
        std::mem::forget(s.finish.take());
        std::mem::forget(s.stop_exception_type.take());
    });
}

/// Recurse until the stack runs out (an injected fault: only `rescue` stops it).
#[allow(unconditional_recursion)]
#[inline(never)]
fn overflow_the_stack(depth: u64) -> u64 {
    let frame = std::hint::black_box([depth; 64]);
    overflow_the_stack(depth + 1).wrapping_add(frame[(depth % 64) as usize])
}

/// The source of every code cell run in this session, for traceback lines, and the code compiled from it.
/// A source run again (a loop of `execute()` calls) is the same cell: its code object is reused, which skips
/// parsing and compiling and keeps the VM's specialised bytecode warm.
#[derive(Default)]
struct Cells {
    sources: Vec<String>,
    compiled: HashMap<String, PyRef<PyCode>>,
}

/// How many distinct sources keep their code object; past that the cache starts over.
const COMPILED_CELLS_KEPT: usize = 256;

impl Cells {
    fn compile(&mut self, vm: &VirtualMachine, code: &str, mode: Mode) -> Result<PyRef<PyCode>, Outcome> {
        if let Some(compiled) = self.compiled.get(code) {
            return Ok(compiled.clone());
        }
        self.sources.push(code.to_owned());
        let cell_name = format!("<cell {}>", self.sources.len());
        let compiled = vm.compile(code, mode, cell_name).map_err(|err| Outcome::Syntax(errors::syntax_report(vm, err, code)))?;
        if self.compiled.len() >= COMPILED_CELLS_KEPT {
            self.compiled.clear();
        }
        self.compiled.insert(code.to_owned(), compiled.clone());
        Ok(compiled)
    }

    fn line(&self, file: &str, line: usize) -> Option<String> {
        let index: usize = file.strip_prefix("<cell ")?.strip_suffix('>')?.parse().ok()?;
        let source = self.sources.get(index.checked_sub(1)?)?;
        source.lines().nth(line.checked_sub(1)?).map(str::to_owned)
    }
}

fn execute(
    vm: &VirtualMachine,
    namespace: &Namespace,
    cells: &mut Cells,
    injections: &mut Injections,
    job: ExecuteJob,
) -> Outcome {
    let ExecuteJob { code, variables, tools: new_tools, fields, context, waiting_sessions, fault } = job;
    match fault {
        Some(Fault::InVm) => panic!("fault injected in the VM's thread"),
        Some(Fault::InTool) => with_state(|s| s.panic_in_next_tool = true),
        Some(Fault::StackOverflow) => {
            std::hint::black_box(overflow_the_stack(0));
        }
        Some(Fault::Abort) => std::process::abort(),
        Some(Fault::InHandle) | None => {}
    }
    crate::state::set_waiting_sessions(waiting_sessions);
    // Convert every variable before binding any, so a bad one leaves the session untouched.
    let bindings = match variables {
        None => Vec::new(),
        Some(variables) => match crate::python_thread::with_host_gil(vm, |py| injections.convert(variables.bind(py), vm)) {
            Ok(bindings) => bindings,
            Err(message) => return Outcome::BadInput(message),
        },
    };
    let globals = &namespace.globals;
    if let Some(specs) = new_tools {
        if let Err(exc) = tools::replace_tools(vm, globals, specs) {
            return error_outcome(vm, &exc, cells, String::new());
        }
    }
    for (name, value) in bindings {
        if let Err(exc) = globals.set_item(name.as_str(), value, vm) {
            return error_outcome(vm, &exc, cells, String::new());
        }
    }
    let shared = with_state(|s| s.shared.clone()).expect("set at start-up");
    shared.reset_for_job();
    shared.begin_memory_budget();
    struct EndBudget<'a>(&'a Shared);
    impl Drop for EndBudget<'_> {
        fn drop(&mut self) {
            self.0.end_memory_budget();
        }
    }
    let _end_budget = EndBudget(&shared);
    limits::enforce_clamps(vm);
    if let Err(exc) = sandbox::restore_import_state(vm, namespace) {
        return error_outcome(vm, &exc, cells, String::new());
    }
    let old_context = with_state(|s| {
        s.fields = fields;
        s.output.clear();
        s.output_chars = 0;
        s.output_dropped = 0;
        s.finish = None;
        s.job_started = Some(std::time::Instant::now());
        std::mem::replace(&mut s.caller_context, context)
    });
    if old_context.is_some() {
        release_with_gil(old_context);
    }
    if let Err(exc) = output::install_streams(vm, &namespace.streams) {
        return error_outcome(vm, &exc, cells, String::new());
    }

    let mode = errors::compile_mode(&code);
    let compiled = match cells.compile(vm, &code, mode) {
        Ok(compiled) => compiled,
        Err(syntax_error) => return syntax_error,
    };
    let scope = Scope::with_builtins(None, globals.clone(), vm);
    let result = vm.run_code_obj(compiled, scope);

    // After an accepted finish call, let go of the unwound run (its frames, their locals, suspended
    // generators) while the stop still stands: whatever finalizer that runs is stopped at its first
    // instruction and gets no tool. Then end the stop request: from here on the stop signal stays quiet.
    let finish = with_state(|s| s.finish.take());
    let result = if finish.is_some() {
        drop(result);
        None
    } else {
        Some(result)
    };
    shared.reset_for_job();
    let printed = output::take_output();
    let context = with_state(|s| s.caller_context.take());
    if context.is_some() {
        release_with_gil(context);
    }
    if let Some((kind, fields)) = finish {
        return crate::python_thread::with_host_gil(vm, |py| match convert::to_host(&fields, vm, py) {
            Ok(fields) => Outcome::Finish(kind, fields),
            Err(e) => Outcome::Error {
                report: ExceptionReport {
                    type_name: "TypeError".into(),
                    message: format!("an output field {}", e.describe("").trim_start()),
                    traceback: String::new(),
                },
                output: printed,
            },
        });
    }
    // The last operation may have grown past the memory limit with no instruction left to stop at: the
    // value it made is not handed to the host.
    match result {
        Some(Ok(_)) if shared.over_memory_limit() => {
            let exc = vm.new_memory_error(limits::memory_limit_message(&shared));
            error_outcome(vm, &exc, cells, printed)
        }
        Some(Ok(value)) => value_outcome(vm, mode, value, printed),
        Some(Err(exc)) => error_outcome(vm, &exc, cells, printed),
        None => unreachable!("a finish call returned above"),
    }
}

fn error_outcome(
    vm: &VirtualMachine,
    exc: &rustpython_vm::builtins::PyBaseExceptionRef,
    cells: &Cells,
    output: String,
) -> Outcome {
    let report = errors::exception_report(vm, exc, |file, line| cells.line(file, line));
    Outcome::Error { report, output }
}

/// The REPL-like result: printed text (with a trailing expression's repr appended, final newline dropped),
/// else the trailing expression's value (plain data as itself, anything else as its repr), else None.
fn value_outcome(vm: &VirtualMachine, mode: Mode, value: PyObjectRef, mut printed: String) -> Outcome {
    let value = (matches!(mode, Mode::BlockExpr) && !vm.is_none(&value)).then_some(value);
    let repr = |value: &PyObjectRef| {
        value
            .repr(vm)
            .map(|r| r.to_string_lossy().into_owned())
            .unwrap_or_else(|_| format!("<{} object>", value.class().name()))
    };
    // repr() runs sandbox code, so never with the GIL held: the waiting caller needs the GIL to see Ctrl-C,
    // and the time limit must be able to stop a __repr__ that loops.
    let host_str = |text: &str| Python::attach(|py| pyo3::types::PyString::new(py, text).into_any().unbind());
    if !printed.is_empty() {
        if let Some(value) = &value {
            if !printed.ends_with('\n') {
                printed.push('\n');
            }
            printed.push_str(&repr(value));
        }
        // Like dspy's own interpreters: the text without the final newline(s).
        return Outcome::Value(host_str(printed.trim_end_matches('\n')));
    }
    let Some(value) = value else { return Outcome::Value(Python::attach(|py| py.None())) };
    match crate::python_thread::with_host_gil(vm, |py| convert::to_host(&value, vm, py)) {
        Ok(host) => Outcome::Value(host),
        Err(e) if e.kind.is_size() => Outcome::Value(host_str(&format!("<{} object>", value.class().name()))),
        Err(_) => Outcome::Value(host_str(&repr(&value))),
    }
}
