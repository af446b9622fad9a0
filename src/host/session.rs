//! `Session`: the handle CPython holds on one sandboxed session, which runs in a process of its own. One
//! `execute()` is one exchange on the session's socket: the request, any number of tool calls answered on
//! the caller's thread, then the outcome. A process that dies, stalls or misbehaves is killed and replaced
//! by its checkpoint (the session as of its last completed run): the caller gets an error naming what
//! happened, and the session goes on. Only `shutdown()` (or a failed rollback) ends a session.

use std::os::fd::{OwnedFd, RawFd};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::{Duration, Instant};

use parking_lot::Mutex;
use pyo3::exceptions::{PyConnectionError, PyRuntimeError, PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyDict, PyString};

use crate::host::convert;
use crate::host::file_server::HostMounts;
use crate::host::journal::{self, Answer, Entry, Journal};
use crate::host::lineage::Lineage;
use crate::host::mounts::Mount;
use crate::host::options::Options;
use crate::host::outcome::{self, Cause, RunOutcome};
use crate::host::process::{self, Failure, Process};
use crate::host::tools::{ToolHooks, ToolSpec, ToolTable, ValueRules};
use crate::protocol::channel::Channel;
use crate::protocol::files::FilesCommand;
use crate::protocol::files::FilesOptions;
#[cfg(feature = "fault-injection")]
use crate::protocol::message::FaultPlace;
use crate::protocol::message::{Execute, Field, Outcome, ToHost, ToSession, ToolDecl};
use crate::protocol::options::SessionOptions;
use crate::protocol::value::Value;
use crate::protocol::wire::Encoded;

mod host_calls;
mod rollback;

use host_calls::HostCalls;

/// How often the waiting caller looks for Ctrl-C and its deadlines while the session runs.
const TICK: Duration = Duration::from_millis(10);
/// How long the waiting caller looks for the session's answer before it sleeps (see `readable_spinning`).
const SPIN: Duration = Duration::from_micros(150);
/// str/bytes variables at least this large are kept by the session between runs (see `Kept`).
const KEPT_FROM: usize = 4096;
/// Frames read from a session process found gone when a run was sent (it sends a checkpoint between runs)...
const PENDING_BETWEEN_RUNS: usize = 4;
/// ...for at most this long.
const PENDING_WITHIN: Duration = Duration::from_secs(1);

#[pyclass(frozen, weakref, module = "dspy_rust_interpreter._native")]
pub struct Session {
    /// Process-unique, to recognise a call that would wait on itself through a chain of tools.
    id: u64,
    options: SessionOptions,
    /// The mounts and quotas its session processes are made with (a rollback's new process too).
    files: FilesOptions,
    /// Held for a whole exchange: concurrent callers queue here, never interleave.
    state: Mutex<Option<State>>,
    alive: AtomicBool,
    death_reason: Mutex<Option<String>>,
    /// The live process's pidfd and pid, for signals from other threads (shutdown). Updated under this
    /// lock when a checkpoint takes over, so a shutdown never misses the new process.
    live: Mutex<(RawFd, u32)>,
    /// `interrupt()` was called: a run waiting for host calls is answered at once (the exchange's thread
    /// sees this within a tick), so the sandbox runs again and raises the interrupt.
    interrupted: AtomicBool,
    /// The host folders mounted in the session, shared with its forks.
    mounts: std::sync::Arc<HostMounts>,
    /// What a value sent into the session may be (`strict_values`, `max_tool_result_bytes`, its libraries).
    value_rules: ValueRules,
    /// Gives the control socket of a live zygote (starting one if need be): a rollback before the first
    /// checkpoint whose zygote is gone spawns from the new one.
    zygote_source: Option<Py<PyAny>>,
    /// The identities of the session's processes (one per process the zygote started for it): the processes
    /// of each are ended when the last session holding it goes (`shutdown()`, or the handle's end).
    lineages: Mutex<Vec<Lineage>>,
}

struct State {
    process: Process,
    /// The frozen copy of the session as of its latest checkpoint (the journal holds the runs since).
    checkpoint: Option<Channel>,
    /// The zygote's control socket, while there has been no checkpoint yet and the journal holds every run
    /// since the session started: a rollback then starts a new session process and replays them all (so a
    /// new session need not fork a checkpoint before its first run).
    respawn_from: Option<OwnedFd>,
    tools: ToolTable,
    /// The process serving now may not have `tools` (it was resumed from a checkpoint or forked).
    resend_tools: bool,
    /// The large str/bytes of the last run with the key the session keeps each under.
    kept: Vec<(Py<PyAny>, u64)>,
    next_key: u64,
    /// The runs since the checkpoint, replayed on rollback.
    journal: Journal,
    /// A run asked for a checkpoint, whose `Checkpoint` has not arrived yet (the session forks it at its next
    /// quiet moment): later runs need not ask again.
    checkpoint_pending: bool,
    /// A test's injected failure for the next run.
    #[cfg(feature = "fault-injection")]
    fault: Option<HostFault>,
}

#[cfg(feature = "fault-injection")]
#[derive(Clone, Copy)]
enum HostFault {
    /// In the session process, at this place.
    Session(FaultPlace),
    /// In this handle (a panic behind a method).
    Handle,
    /// In the tool call the next run makes.
    Tool,
}

thread_local! {
    /// The sessions this thread is waiting for, innermost last: a tool (run on this thread) that calls back
    /// into one of them would wait on itself.
    static WAITING: std::cell::RefCell<Vec<u64>> = const { std::cell::RefCell::new(Vec::new()) };
}

struct Waiting;

impl Waiting {
    fn on(id: u64) -> Self {
        WAITING.with(|w| w.borrow_mut().push(id));
        Waiting
    }
}

impl Drop for Waiting {
    fn drop(&mut self) {
        WAITING.with(|w| w.borrow_mut().pop());
    }
}

/// The answers the host gave during one run, kept for the journal while they fit in
/// `journal::MAX_RUN_BYTES`; past it none are kept (None) and the run is journaled as unreplayable.
struct RunAnswers {
    kept: Option<Vec<Answer>>,
    bytes: usize,
}

impl Default for RunAnswers {
    fn default() -> Self {
        Self { kept: Some(Vec::new()), bytes: 0 }
    }
}

impl RunAnswers {
    fn push(&mut self, answer: Answer) {
        self.bytes = self.bytes.saturating_add(answer.frame().len());
        if self.bytes > journal::MAX_RUN_BYTES {
            self.kept = None;
        }
        if let Some(kept) = &mut self.kept {
            kept.push(answer);
        }
    }
}

/// How an exchange ended.
enum Ending {
    Done(Outcome),
    Died(Cause),
}

impl State {
    /// A checkpoint as of the last run the host has seen arrived: it replaces the one before (whose process
    /// ends when its socket is dropped), and nothing before it needs replaying.
    fn got_checkpoint(&mut self, socket: Option<OwnedFd>) {
        // One without its socket is no checkpoint (a session process always sends one): the last stands.
        let Some(socket) = socket else { return };
        self.checkpoint = Some(Channel::from_owned(socket));
        self.journal.clear();
        self.respawn_from = None;
        self.checkpoint_pending = false;
    }

    /// Answer the session process's request with `reply`; the frame sent, for the run's journal.
    fn answer(&self, py: Python<'_>, reply: ToSession) -> std::io::Result<Encoded> {
        let reply = reply.encode();
        let link = &self.process.link;
        py.detach(|| process::send_request(link, &reply))?;
        Ok(reply)
    }
}

impl Session {
    fn new_with(
        options: SessionOptions,
        files: FilesOptions,
        process: Process,
        tools: ToolTable,
        respawn_from: Option<OwnedFd>,
        mounts: std::sync::Arc<HostMounts>,
        value_rules: ValueRules,
        zygote_source: Option<Py<PyAny>>,
        lineage: Lineage,
    ) -> Self {
        static NEXT_ID: AtomicU64 = AtomicU64::new(1);
        let live = (process.pidfd().unwrap_or(-1), process.pid);
        Self {
            id: NEXT_ID.fetch_add(1, Ordering::Relaxed),
            options,
            files,
            state: Mutex::new(Some(State {
                process,
                checkpoint: None,
                respawn_from,
                tools,
                resend_tools: true,
                kept: Vec::new(),
                next_key: 1,
                journal: Journal::default(),
                checkpoint_pending: false,
                #[cfg(feature = "fault-injection")]
                fault: None,
            })),
            alive: AtomicBool::new(true),
            death_reason: Mutex::new(None),
            live: Mutex::new(live),
            interrupted: AtomicBool::new(false),
            mounts,
            value_rules,
            zygote_source,
            lineages: Mutex::new(vec![lineage]),
        }
    }

    fn mark_dead(&self, reason: &str) {
        self.alive.store(false, Ordering::SeqCst);
        self.death_reason.lock().get_or_insert_with(|| reason.to_owned());
    }

    /// The variables as protocol data; large str/bytes seen in the last run as the same object cross as a
    /// key only. Nothing is changed if one cannot cross.
    fn variables(
        state: &State,
        variables: Option<&Bound<'_, PyDict>>,
        libraries: &[String],
    ) -> PyResult<(Vec<(String, Value)>, Vec<(Py<PyAny>, u64)>, u64)> {
        let mut next_key = state.next_key;
        let mut kept = Vec::new();
        let mut converted = Vec::new();
        let Some(variables) = variables else { return Ok((converted, kept, next_key)) };
        for (name, value) in variables.iter() {
            let name: String = name.extract().map_err(|_| PyTypeError::new_err("variable names must be str"))?;
            let large = (value.is_exact_instance_of::<PyString>() || value.is_exact_instance_of::<PyBytes>())
                && value.len().is_ok_and(|n| n >= KEPT_FROM);
            if large {
                if let Some((_, key)) = state.kept.iter().find(|(host, _)| host.is(&value)) {
                    kept.push((value.clone().unbind(), *key));
                    converted.push((name, Value::Kept(*key)));
                    continue;
                }
            }
            let data = convert::to_value(&value, libraries)
                .map_err(|e| PyTypeError::new_err(e.describe(&format!("variable '{name}': {name}"))))?;
            if large {
                let key = next_key;
                next_key += 1;
                kept.push((value.clone().unbind(), key));
                converted.push((name, Value::Keep(key, Box::new(data))));
            } else {
                converted.push((name, data));
            }
        }
        Ok((converted, kept, next_key))
    }

    /// Send one run and serve its tool calls until it ends, one way or another.
    fn exchange<'py>(
        &self,
        py: Python<'py>,
        state: &mut State,
        frame: Encoded,
        context: Option<&Bound<'py, PyAny>>,
        hooks: Option<&ToolHooks>,
    ) -> (Ending, Option<PyErr>) {
        let gone = |e: std::io::Error| Ending::Died(Cause::Lost(format!("the session process is gone ({e})")));
        if let Err(e) = py.detach(|| process::send_request(&state.process.link, &frame)) {
            // It may have sent a checkpoint between runs before it died: the rollback starts from that. Only
            // one can be pending (it is sent between runs); a process that keeps writing is not read further.
            let looked = Instant::now();
            for _ in 0..PENDING_BETWEEN_RUNS {
                // Only what is already there, and for at most PENDING_WITHIN in all.
                if looked.elapsed() > PENDING_WITHIN
                    || !state.process.link.readable_within(Duration::ZERO).unwrap_or(false)
                {
                    break;
                }
                match py.detach(|| state.process.receive_frame()) {
                    Ok((_, ToHost::Checkpoint, mut fds)) => state.got_checkpoint(fds.pop()),
                    Ok(_) => {}
                    Err(_) => break,
                }
            }
            return (gone(e), None);
        }
        let mut answers = RunAnswers::default();
        let mut changes = 0;
        let mut host_calls = HostCalls::new(py, hooks, self.options.memory_limit());
        let started = Instant::now();
        let mut tool_time = Duration::ZERO;
        let mut interrupt: Option<(PyErr, Instant)> = None;
        let grace = self.options.abandon_after();
        let timeout = self.options.timeout();
        self.interrupted.store(false, Ordering::SeqCst);
        let ending = loop {
            if self.interrupted.swap(false, Ordering::SeqCst) {
                host_calls.cut_wait();
            }
            if let Some((answer, waited)) = host_calls.answer() {
                tool_time += waited;
                if let Err(e) = py.detach(|| process::send_request(&state.process.link, &answer)) {
                    break gone(e);
                }
                answers.push(Answer::Woken(answer));
            }
            let link = &state.process.link;
            let tick = host_calls.poll_timeout(TICK);
            let (readable, woken) = match host_calls.wake_fd() {
                None => {
                    (py.detach(|| link.readable_spinning(SPIN) || link.readable_within(tick).unwrap_or(true)), false)
                }
                Some(fd) => py.detach(|| link.readable_or(fd, tick).unwrap_or((true, false))),
            };
            if woken {
                host_calls.collect(&state.tools);
            }
            if readable {
                let received = py.detach(|| state.process.receive_frame());
                match received {
                    Ok((done, ToHost::Done(outcome), _)) => {
                        if !matches!(outcome, Outcome::BadInput(_)) {
                            match answers.kept {
                                Some(answers) => state.journal.record(Entry {
                                    request: frame,
                                    answers,
                                    outcome: journal::digest(&done),
                                }),
                                None => state.journal.record_unreplayable(),
                            }
                        }
                        break Ending::Done(outcome);
                    }
                    Ok((_, ToHost::Checkpoint, mut fds)) => state.got_checkpoint(fds.pop()),
                    Ok((_, ToHost::ToolCall { name, args, kwargs }, _)) => {
                        let called = Instant::now();
                        #[cfg(feature = "fault-injection")]
                        if matches!(state.fault, Some(HostFault::Tool)) {
                            state.fault = None;
                            panic!("fault injected in a tool call");
                        }
                        // Only the tool's own code is exempt from the time limit; binding and converting are the
                        // session's (values the host is slow to build made a 1 s run take 48 s).
                        let (result, own) = state.tools.call(py, &name, args, kwargs, context);
                        tool_time += own.min(called.elapsed());
                        match state.answer(py, ToSession::ToolResult(result, nanos(own))) {
                            Ok(reply) => answers.push(Answer::Tool(reply)),
                            Err(e) => break gone(e),
                        }
                    }
                    Ok((_, ToHost::ToolStart { call_id, name, args, kwargs }, _)) => {
                        if let Err(broken) = host_calls.start(&state.tools, call_id, name, args, kwargs, context) {
                            break Ending::Died(Cause::Lost(broken));
                        }
                    }
                    Ok((_, ToHost::Wait { timeout }, _)) => host_calls.wait(timeout),
                    Ok((_, ToHost::StreamPull { tool, stream, close }, _)) => {
                        let called = Instant::now();
                        let (result, own) = state.tools.pull_stream(py, &tool, stream, close, context, hooks);
                        tool_time += own.min(called.elapsed());
                        match state.answer(py, ToSession::ToolResult(result, nanos(own))) {
                            Ok(reply) => answers.push(Answer::Tool(reply)),
                            Err(e) => break gone(e),
                        }
                    }
                    Ok((_, ToHost::FileOp(op), _)) => {
                        let mounts = &self.mounts;
                        let (answer, journaled) = py.detach(|| mounts.answer(&op, &mut changes));
                        match state.answer(py, ToSession::FileAnswer(answer)) {
                            Ok(reply) if journaled => answers.push(Answer::File(reply)),
                            Ok(_) => {}
                            Err(e) => break gone(e),
                        }
                    }
                    Ok((_, ToHost::Fault { signal, out_of_memory }, _)) => {
                        break Ending::Died(Cause::Fault { signal, out_of_memory })
                    }
                    Ok((_, ToHost::Abandoned(reason), _)) => break Ending::Died(Cause::Abandoned(reason)),
                    Ok((_, other, _)) => {
                        break Ending::Died(Cause::Lost(format!(
                            "the session process sent {} during a run",
                            crate::protocol::message::variant_name(&other)
                        )))
                    }
                    Err(failure) => break Ending::Died(Cause::Lost(failure.into_reason())),
                }
            }
            // Checked after every frame too, not only when the session is quiet: a session process that
            // sends frame after frame (waits, checkpoints) is held to its limits all the same.
            if !self.alive.load(Ordering::SeqCst) {
                break Ending::Died(Cause::ShutDown);
            }
            if interrupt.is_none() {
                if let Err(err) = py.check_signals() {
                    if let Some(pidfd) = state.process.pidfd() {
                        process::signal(pidfd, crate::protocol::process::INTERRUPT_SIGNAL);
                    }
                    // A session waiting for host calls raises the interrupt once its wait is answered.
                    host_calls.cut_wait();
                    interrupt = Some((err, Instant::now()));
                }
            }
            // Backstops: the session's own monitor abandons a run that ignores its stop well before these.
            let backstop = 2 * grace + Duration::from_secs(2);
            if let Some((_, since)) = &interrupt {
                if since.elapsed() > backstop {
                    break Ending::Died(Cause::Abandoned(crate::protocol::message::Stop::Interrupt));
                }
            }
            if let Some(limit) = timeout {
                if started.elapsed().saturating_sub(tool_time + host_calls.waited()) > limit + backstop {
                    break Ending::Died(Cause::Abandoned(crate::protocol::message::Stop::Timeout));
                }
            }
        };
        host_calls.abandon();
        (ending, interrupt.map(|(err, _)| err))
    }

    fn take_state(&self) -> Option<State> {
        self.state.lock().take()
    }

    /// What an exchange's ending means for the caller; a dead process is rolled back (or the session lost).
    fn conclude(
        &self,
        py: Python<'_>,
        guard: &mut parking_lot::MutexGuard<'_, Option<State>>,
        ending: Ending,
        interrupt: Option<PyErr>,
    ) -> PyResult<RunOutcome> {
        let state = guard.as_mut().expect("the caller holds a live state");
        let result = match ending {
            Ending::Done(outcome) => RunOutcome::of(py, outcome, &self.options),
            // Shut down from another thread: its process was killed for that, not lost.
            Ending::Died(_) if !self.alive.load(Ordering::SeqCst) => Ok(RunOutcome::dead(&self.death_reason())),
            Ending::Died(cause) => match self.roll_back(py, state) {
                Ok(replay) => Ok(RunOutcome::rolled_back(&cause, &self.options, replay)),
                Err(why) => {
                    let reason = format!("{}; the session is lost: {why}", outcome::cause_text(&cause, &self.options));
                    self.mark_dead(&reason);
                    Ok(RunOutcome::dead(&reason))
                }
            },
        };
        if !self.alive.load(Ordering::SeqCst) {
            // Shut down meanwhile: the handle lets go of the processes here, with the GIL for the tools.
            guard.take();
        }
        match interrupt {
            Some(interrupt) => Err(interrupt),
            None => result,
        }
    }

    /// Run one of the host API's file commands in the session, between runs (journaled like a run).
    fn files_command(&self, py: Python<'_>, command: FilesCommand) -> PyResult<RunOutcome> {
        if self.would_wait_on_itself() {
            return Err(PyRuntimeError::new_err(
                "the session's files cannot be used from a tool this session is running",
            ));
        }
        let mut guard = py.detach(|| self.state.lock());
        let Some(state) = guard.as_mut().filter(|_| self.alive.load(Ordering::SeqCst)) else {
            return Ok(RunOutcome::dead(&self.death_reason()));
        };
        let frame = ToSession::Files(command).encode();
        let _waiting = Waiting::on(self.id);
        let (ending, interrupt) = self.exchange(py, state, frame, None, None);
        self.conclude(py, &mut guard, ending, interrupt)
    }
}

#[pymethods]
impl Session {
    /// Start a session process with `options` from the zygote on `control_fd`, showing `package_mounts` too
    /// (the packages of that zygote). ConnectionError when the zygote is gone (the caller starts a new one),
    /// ValueError when a `preload` module is not in the sandbox or two mounts overlap.
    #[new]
    #[pyo3(signature = (control_fd, options, package_mounts=Vec::new(), zygote_source=None, stand_ins=Vec::new(), libraries=Vec::new()))]
    fn new(
        py: Python<'_>,
        control_fd: RawFd,
        options: PyRef<'_, Options>,
        package_mounts: Vec<Bound<'_, Mount>>,
        zygote_source: Option<Py<PyAny>>,
        stand_ins: Vec<(String, Option<String>)>,
        libraries: Vec<String>,
    ) -> PyResult<Self> {
        if control_fd < 0 {
            return Err(PyValueError::new_err(format!("control_fd must be a file descriptor, got {control_fd}")));
        }
        let mounts: Vec<Mount> =
            options.host.mounts.iter().cloned().chain(package_mounts.iter().map(|m| m.get().clone())).collect();
        let (host_mounts, files) =
            crate::host::file_server::open_mounts(&mounts, options.host.files_max_bytes, options.host.files_max_count)?;
        let value_rules = ValueRules {
            strict_values: options.host.strict_values,
            max_bytes: options.host.max_tool_result_bytes,
            libraries: libraries.into(),
        };
        let options = options.session.clone();
        let stand_ins = stand_ins.into_iter().map(|(name, source)| ToolDecl { name, source }).collect();
        let process =
            py.detach(|| Process::spawn(control_fd, &options, files.clone(), stand_ins)).map_err(|failure| {
                match failure {
                    Failure::Zygote(reason) => PyConnectionError::new_err(reason),
                    Failure::Refused(reason) => PyValueError::new_err(reason),
                    Failure::Lost(reason) => PyRuntimeError::new_err(reason),
                }
            })?;
        // The session's own hold on the zygote, for a rollback before its first checkpoint.
        // SAFETY: the Python layer keeps the control socket open for this call.
        let respawn_from = unsafe { std::os::fd::BorrowedFd::borrow_raw(control_fd) }.try_clone_to_owned().ok();
        let lineage = Lineage::of(process.pid);
        Ok(Self::new_with(
            options,
            files,
            process,
            ToolTable::default(),
            respawn_from,
            std::sync::Arc::new(host_mounts),
            value_rules,
            zygote_source,
            lineage,
        ))
    }

    /// Run `code`; what happened is a `RunOutcome`.
    /// Tools that async sandbox code calls run at the same time on the pool of `hooks`, which also serves
    /// tools' streams; without it, calls run one at a time and no tool streams.
    #[pyo3(signature = (code, variables=None, tools=None, fields=None, context=None, hooks=None))]
    #[allow(clippy::too_many_arguments)]
    fn execute(
        &self,
        py: Python<'_>,
        code: String,
        variables: Option<Bound<'_, PyDict>>,
        tools: Option<Vec<ToolSpec>>,
        fields: Option<Vec<(String, Option<String>)>>,
        context: Option<Bound<'_, PyAny>>,
        hooks: Option<PyRef<'_, ToolHooks>>,
    ) -> PyResult<RunOutcome> {
        if self.would_wait_on_itself() {
            return Err(PyRuntimeError::new_err(
                "execute() would wait on itself: it was called from a tool this session is running",
            ));
        }
        let mut guard = py.detach(|| self.state.lock());
        let Some(state) = guard.as_mut().filter(|_| self.alive.load(Ordering::SeqCst)) else {
            return Ok(RunOutcome::dead(&self.death_reason()));
        };
        let (variables, kept, next_key) = Self::variables(state, variables.as_ref(), &self.value_rules.libraries)?;
        if let Some(specs) = tools {
            state.tools = ToolTable::new(specs, self.value_rules.clone());
            state.resend_tools = true;
        }
        // A fault for the tool call stays armed until the exchange serves one.
        #[cfg(feature = "fault-injection")]
        let fault_request = match state.fault {
            Some(HostFault::Handle) => {
                state.fault = None;
                panic!("fault injected in the session handle")
            }
            Some(HostFault::Session(place)) => {
                state.fault = None;
                Some(ToSession::InjectFault(place).encode().into_vec())
            }
            Some(HostFault::Tool) | None => None,
        };
        let asks_checkpoint = !state.checkpoint_pending && state.journal.wants_checkpoint();
        let request = ToSession::Execute(Box::new(Execute {
            code,
            variables,
            tools: std::mem::take(&mut state.resend_tools).then(|| state.tools.declarations()),
            fields: fields
                .map(|fields| fields.into_iter().map(|(name, declared_type)| Field { name, declared_type }).collect()),
            checkpoint: asks_checkpoint,
        }));
        let frame = py.detach(|| request.encode());
        drop(request);
        #[cfg(feature = "fault-injection")]
        if let Some(fault_request) = fault_request {
            let _ = state.process.link.send(&fault_request, &[]);
        }
        let _waiting = Waiting::on(self.id);
        // The session keeps a checkpoint due until it can fork one: ask once.
        state.checkpoint_pending |= asks_checkpoint;
        let (ending, interrupt) = self.exchange(py, state, frame, context.as_ref(), hooks.as_deref());
        if matches!(&ending, Ending::Done(outcome) if !matches!(outcome, Outcome::BadInput(_))) {
            state.kept = kept;
            state.next_key = next_key;
        }
        let results_too_large = state.tools.take_results_too_large();
        Ok(self.conclude(py, &mut guard, ending, interrupt)?.with_results_too_large(results_too_large))
    }

    /// The host API on the session's files (see `interp.files`): write `data` (str or bytes) to the file at
    /// sandbox path `path`.
    fn files_write(&self, py: Python<'_>, path: String, data: Bound<'_, PyAny>) -> PyResult<RunOutcome> {
        let data = convert::to_value(&data, &[]).map_err(|e| PyTypeError::new_err(e.describe("data")))?;
        self.files_command(py, FilesCommand::Write { path, data })
    }

    /// The bytes of the file at sandbox path `path`.
    fn files_read(&self, py: Python<'_>, path: String) -> PyResult<RunOutcome> {
        self.files_command(py, FilesCommand::Read { path })
    }

    /// The files in the session's own tree (not in its mounts), as sandbox paths.
    fn files_list(&self, py: Python<'_>) -> PyResult<RunOutcome> {
        self.files_command(py, FilesCommand::List)
    }

    /// The files the last run created or changed.
    fn files_written(&self, py: Python<'_>) -> PyResult<RunOutcome> {
        self.files_command(py, FilesCommand::Written)
    }

    /// A new session with an identical, independent copy of this one's state (variables, functions,
    /// classes, imports); its tools are this session's.
    fn fork(&self, py: Python<'_>) -> PyResult<Session> {
        if self.would_wait_on_itself() {
            return Err(PyRuntimeError::new_err("fork() was called from a tool this session is running"));
        }
        let mut guard = py.detach(|| self.state.lock());
        let Some(state) = guard.as_mut().filter(|_| self.alive.load(Ordering::SeqCst)) else {
            return Err(PyRuntimeError::new_err(format!("the session is dead: {}", self.death_reason())));
        };
        let lost = |reason: String| PyRuntimeError::new_err(format!("the session could not be forked: {reason}"));
        // Held before the copy is asked for, let go if it is not made.
        let most = crate::protocol::process::MOST_SESSIONS_PER_LINEAGE;
        let lineage = self.lineages.lock().last().expect("a session has a lineage from its start").share_within(most);
        let lineage = lineage.ok_or_else(|| {
            lost(format!("it and its forks are {most} live sessions already, the most at once (shut some down first)"))
        })?;
        state.process.send(&ToSession::Fork).map_err(|_| lost("its process is gone".into()))?;
        // Only the checkpoint it may have pending comes before the copy: a process that keeps sending them is
        // not read for ever.
        let mut pending = 0..PENDING_BETWEEN_RUNS;
        let channel = loop {
            if pending.next().is_none() {
                return Err(lost("it sent checkpoints instead of the copy".into()));
            }
            match py.detach(|| state.process.receive()) {
                Ok((ToHost::Checkpoint, mut fds)) => state.got_checkpoint(fds.pop()),
                Ok((ToHost::Forked, mut fds)) => {
                    break fds
                        .pop()
                        .map(Channel::from_owned)
                        .ok_or_else(|| lost("no socket came with the copy".into()))?
                }
                Ok((ToHost::Failed(reason), _)) => return Err(lost(reason)),
                Ok((other, _)) => {
                    return Err(lost(format!(
                        "the session process answered {}",
                        crate::protocol::message::variant_name(&other)
                    )))
                }
                Err(failure) => return Err(lost(failure.into_reason())),
            }
        };
        let process =
            py.detach(|| Process::resume(channel, &self.options)).map_err(|failure| lost(failure.into_reason()))?;
        // A fork makes its first checkpoint at once: it never needs the zygote.
        Ok(Self::new_with(
            self.options.clone(),
            self.files.clone(),
            process,
            state.tools.clone_ref(py),
            None,
            self.mounts.clone(),
            self.value_rules.clone(),
            None,
            lineage,
        ))
    }

    /// End the session: its processes are killed at once, whatever the code is doing. Idempotent; may be
    /// called from any thread, also while another thread is in `execute()`.
    fn shutdown(&self, py: Python<'_>) {
        self.mark_dead("the session was shut down");
        {
            let mut live = self.live.lock();
            if live.0 >= 0 {
                process::signal(live.0, libc::SIGKILL);
            }
            // The descriptor is closed with the state: never signal that number again.
            live.0 = -1;
        }
        // The running exchange (if any) sees its process end at once and lets go of the state.
        let grace = self.options.abandon_after();
        let state = py.detach(|| self.state.try_lock_for(grace).and_then(|mut guard| guard.take()));
        drop(state);
        // Then whatever else its processes made (a taken-over session can fork), unless a fork still lives.
        let lineages = std::mem::take(&mut *self.lineages.lock());
        py.detach(|| drop(lineages));
    }

    /// Stop the code running now (as Ctrl-C would: KeyboardInterrupt in the sandbox; a native operation that
    /// ignores it is abandoned after the grace period and the session rolled back). From any thread; does
    /// nothing between runs.
    fn interrupt(&self) {
        let live = self.live.lock();
        if live.0 >= 0 {
            process::signal(live.0, crate::protocol::process::INTERRUPT_SIGNAL);
            self.interrupted.store(true, Ordering::SeqCst);
        }
    }

    /// True when called from a tool that this session is (directly, or through tools calling other
    /// sessions) waiting for: running a job here then would deadlock.
    fn would_wait_on_itself(&self) -> bool {
        WAITING.with(|w| w.borrow().contains(&self.id))
    }

    /// For tests only: make the next `execute()` fail: the session process panics ("vm"), aborts ("abort")
    /// or overflows its stack ("stack_overflow"); or this host process panics in the handle ("handle") or
    /// while serving the next tool call ("tool"). Only in test builds (the `fault-injection` feature).
    #[cfg(feature = "fault-injection")]
    fn _inject_fault(&self, place: &str) -> PyResult<()> {
        let fault = match place {
            "vm" => HostFault::Session(FaultPlace::Panic),
            "abort" => HostFault::Session(FaultPlace::Abort),
            "stack_overflow" => HostFault::Session(FaultPlace::StackOverflow),
            "handle" => HostFault::Handle,
            "tool" => HostFault::Tool,
            other => return Err(PyValueError::new_err(format!("unknown fault place {other:?}"))),
        };
        if let Some(state) = self.state.lock().as_mut() {
            state.fault = Some(fault);
        }
        Ok(())
    }

    #[getter]
    fn alive(&self) -> bool {
        self.alive.load(Ordering::SeqCst)
    }

    #[getter]
    fn death_reason(&self) -> String {
        self.death_reason.lock().clone().unwrap_or_default()
    }

    /// The pid of the process serving the session now (it changes when a checkpoint takes over).
    #[getter]
    fn pid(&self) -> u32 {
        self.live.lock().1
    }
}

impl Drop for Session {
    fn drop(&mut self) {
        // Its processes end with it: killed, and their sockets closed.
        self.alive.store(false, Ordering::SeqCst);
        if let Some(state) = self.take_state() {
            Python::attach(|_py| drop(state));
        }
    }
}

/// A duration in nanoseconds, as the protocol carries one.
fn nanos(duration: Duration) -> u64 {
    u64::try_from(duration.as_nanos()).unwrap_or(u64::MAX)
}
