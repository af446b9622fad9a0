//! `Session`: the handle CPython holds. It owns only channels to the worker thread, so it is `Send` and
//! `Sync`, can be used from any Python thread, and releases the GIL while the sandbox runs.

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::mpsc::{channel, Receiver, Sender};

use std::sync::Arc;
use std::time::{Duration, Instant};

use parking_lot::Mutex;
use pyo3::exceptions::{PyRuntimeError, PyTypeError};
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyTuple};

use crate::limits::{Limits, Shared, StopReason};
use crate::memory::counted_on;
use crate::state::{Field, FinishKind};
use crate::tools::ToolSpec;
use crate::worker_thread::{self as worker, ExecuteJob, Fault, Job, Outcome};

#[pyclass(frozen, weakref, module = "dspy_rust_interpreter._native")]
pub struct Session {
    jobs: Sender<Job>,
    /// Held for the whole of a job: concurrent callers queue here, never interleave.
    replies: Mutex<Receiver<Outcome>>,
    /// Process-unique, to recognise a call that would wait on itself through a chain of tools.
    id: u64,
    alive: AtomicBool,
    death_reason: Mutex<Option<String>>,
    shared: Arc<Shared>,
    /// Set when the worker was left running uninterruptible code: it must not be joined.
    abandoned: AtomicBool,
    /// A failure a test asked for, delivered with the next job.
    fault: Mutex<Option<Fault>>,
}

/// How often the waiting caller checks the time limit and for Ctrl-C while the sandbox runs.
const TICK: Duration = Duration::from_millis(5);

impl Session {
    /// Hand a job to the worker and wait for its outcome, enforcing the time limit and passing Ctrl-C on.
    /// Runs without the GIL; returns the outcome and, if the caller was interrupted, the KeyboardInterrupt.
    fn run_job(&self, job: Job) -> (Outcome, Option<PyErr>) {
        let replies = self.replies.lock();
        if self.jobs.send(job).is_err() {
            return (Outcome::Dead("the sandbox thread is gone".into()), None);
        }
        let started = Instant::now();
        let mut stop_requested: Option<Instant> = None;
        let mut interrupt: Option<PyErr> = None;
        let mut first_wait = true;
        loop {
            let received = if std::mem::take(&mut first_wait) {
                crate::handoff::poll_for(&replies, crate::handoff::CALLER_SPIN)
            } else {
                replies.recv_timeout(TICK)
            };
            match received {
                Ok(outcome) => return (outcome, interrupt),
                Err(std::sync::mpsc::RecvTimeoutError::Disconnected) => {
                    return (Outcome::Dead("the sandbox thread is gone".into()), interrupt)
                }
                Err(std::sync::mpsc::RecvTimeoutError::Timeout) => {}
            }
            let signal = self.shared.crashed.load(Ordering::SeqCst);
            if signal != 0 {
                self.abandoned.store(true, Ordering::SeqCst);
                return (Outcome::Dead(crate::rescue::crash_message(signal)), interrupt);
            }
            // The limits first: they need no GIL, which some other host thread may hold for a while.
            let limit = if self.shared.over_memory_limit() {
                Some(StopReason::Memory)
            } else if self.shared.limits.timeout.is_some_and(|limit| {
                started.elapsed().saturating_sub(self.shared.tool_time()) > limit
            }) {
                Some(StopReason::Timeout)
            } else {
                None
            };
            if interrupt.is_none() && limit.is_none() {
                interrupt = Python::attach(|py| py.check_signals().err());
            }
            let reason = match (&interrupt, limit) {
                (Some(_), _) => StopReason::Interrupt,
                (None, Some(limit)) => limit,
                (None, None) => continue,
            };
            let since = *stop_requested.get_or_insert_with(Instant::now);
            if since.elapsed() > self.shared.limits.grace {
                self.abandoned.store(true, Ordering::SeqCst);
                let reason = format!(
                    "the sandbox was stopped ({}) but kept running a long native operation that cannot be \
                     interrupted (e.g. arithmetic on a huge number, or a huge repetition) for {:.1} s more; the \
                     session had to be abandoned and its state is lost. Create a new interpreter.",
                    match reason {
                        StopReason::Timeout => "time limit",
                        StopReason::Memory => "memory limit",
                        _ => "interrupted",
                    },
                    self.shared.limits.grace.as_secs_f64()
                );
                return (Outcome::Dead(reason), interrupt);
            }
            // Re-sent every tick: another VM may have consumed the eval loop's wake-up flag.
            self.shared.request_stop(reason);
        }
    }

    fn mark_dead(&self, reason: &str) {
        self.alive.store(false, Ordering::SeqCst);
        self.death_reason.lock().get_or_insert_with(|| reason.to_owned());
    }
}

#[pymethods]
impl Session {
    /// Start a worker thread and build its VM; returns once the sandbox is ready.
    #[new]
    #[pyo3(signature = (timeout=None, grace=5.0, max_output_chars=10_000_000, memory_limit=None, preload=Vec::new()))]
    fn new(
        py: Python<'_>,
        timeout: Option<f64>,
        grace: f64,
        max_output_chars: usize,
        memory_limit: Option<usize>,
        preload: Vec<String>,
    ) -> PyResult<Self> {
        let seconds = |value: f64, what: &str| {
            if value.is_finite() && value > 0.0 {
                Ok(Duration::from_secs_f64(value))
            } else {
                Err(pyo3::exceptions::PyValueError::new_err(format!("{what} must be a positive number of seconds")))
            }
        };
        let limits = Limits {
            timeout: timeout.map(|t| seconds(t, "timeout")).transpose()?,
            grace: seconds(grace, "grace")?,
            max_output_chars,
            memory_limit,
        };
        let (signal_sender, signal_receiver) = rustpython_vm::signal::user_signal_channel();
        let shared = Shared::new(limits, signal_sender);
        let (jobs, job_receiver) = channel();
        let (reply_sender, replies) = channel();
        let assignment = worker::Assignment { jobs: job_receiver, replies: reply_sender, shared: shared.clone(), signals: signal_receiver, preload };
        worker::start(assignment).map_err(|e| PyRuntimeError::new_err(format!("could not start the sandbox thread: {e}")))?;
        static NEXT_ID: AtomicU64 = AtomicU64::new(1);
        let id = NEXT_ID.fetch_add(1, Ordering::Relaxed);
        let (started, replies) = py.detach(move || (replies.recv(), replies));
        match started {
            Ok(Outcome::Value(_)) => {}
            Ok(Outcome::Dead(reason)) => return Err(PyRuntimeError::new_err(reason)),
            Ok(Outcome::BadInput(message)) => return Err(pyo3::exceptions::PyValueError::new_err(message)),
            _ => return Err(PyRuntimeError::new_err("the sandbox thread stopped while starting")),
        }
        Ok(Self {
            jobs,
            replies: Mutex::new(replies),
            id,
            alive: AtomicBool::new(true),
            death_reason: Mutex::new(None),
            shared,
            abandoned: AtomicBool::new(false),
            fault: Mutex::new(None),
        })
    }

    /// Run `code`; returns a tuple whose first item says what happened (see `_interpreter.py`).
    #[pyo3(signature = (code, variables=None, tools=None, fields=None, context=None))]
    fn execute(
        &self,
        py: Python<'_>,
        code: String,
        variables: Option<Bound<'_, PyDict>>,
        tools: Option<Vec<ToolSpec>>,
        fields: Option<Vec<(String, Option<String>)>>,
        context: Option<Bound<'_, PyAny>>,
    ) -> PyResult<Py<PyTuple>> {
        if self.would_wait_on_itself() {
            return Err(PyRuntimeError::new_err("execute() would wait on itself: it was called from a tool this session is running"));
        }
        if !self.alive.load(Ordering::SeqCst) {
            return dead(py, &self.death_reason());
        }
        let fault = self.fault.lock().take();
        if matches!(fault, Some(Fault::InHandle)) {
            panic!("fault injected in the session handle");
        }
        // Built on the session's memory counter: the worker releases this data, so it must count there.
        let job = counted_on(&self.shared.memory, || {
            Job::Execute(Box::new(ExecuteJob {
                code: code.clone(),
                variables: variables.map(Bound::unbind),
                tools: tools.map(|specs| {
                    specs
                        .into_iter()
                        .map(|(name, callable, params, source)| (name.clone(), callable, params.clone(), source.clone()))
                        .collect()
                }),
                fields: fields.as_ref().map(|fields| {
                    fields
                        .iter()
                        .map(|(name, declared_type)| Field { name: name.clone(), declared_type: declared_type.clone() })
                        .collect()
                }),
                context: context.map(Bound::unbind),
                waiting_sessions: {
                    let mut waiting = crate::state::waiting_sessions();
                    waiting.push(self.id);
                    waiting
                },
                fault,
            }))
        });
        let (outcome, interrupt) = py.detach(|| self.run_job(job));
        if let Outcome::Dead(reason) = &outcome {
            self.mark_dead(reason);
        }
        // The outcome's strings were allocated on the worker: count their release against its session.
        counted_on(&self.shared.memory, || match interrupt {
            Some(interrupt) => {
                drop(outcome);
                Err(interrupt)
            }
            None => outcome_tuple(py, outcome),
        })
    }

    /// End the session: the worker finalises its VM and goes back to wait for another session. Idempotent.
    /// Waits for that at most the grace period: finalisation runs sandbox finalizers, which are stopped, but
    /// a long native operation in one cannot be; the worker is then left to finish on its own.
    fn shutdown(&self, py: Python<'_>) {
        let first = self.alive.load(Ordering::SeqCst);
        self.mark_dead("the session was shut down");
        let _ = self.jobs.send(Job::Shutdown);
        // An abandoned worker finalises its VM once its stuck operation ends, if ever.
        if first && !self.would_wait_on_itself() && !self.abandoned.load(Ordering::SeqCst) {
            let deadline = Instant::now() + self.shared.limits.grace;
            py.detach(|| {
                while !self.shared.finished.load(Ordering::SeqCst) && Instant::now() < deadline {
                    std::thread::sleep(Duration::from_micros(200));
                    // The worker asks for the stop once; the eval loop's wake-up flag is process-wide, and
                    // another busy VM can take it first, so a finalizer would run on unstopped. Ask again.
                    self.shared.request_stop(StopReason::Shutdown);
                }
            });
        }
    }

    /// True when called from a tool that this session is (directly, or through tools calling other
    /// sessions) waiting for: running a job here then would deadlock.
    fn would_wait_on_itself(&self) -> bool {
        crate::state::waiting_sessions().contains(&self.id)
    }

    /// For tests only: make the next `execute()` panic in Rust: in the VM's thread ("vm"), in a tool call
    /// ("tool") or in this handle ("handle"); or make the VM's thread die of a fatal signal
    /// ("stack_overflow", "abort"); to prove that the process survives and the session is dead.
    fn _inject_fault(&self, place: &str) -> PyResult<()> {
        let fault = match place {
            "vm" => Fault::InVm,
            "tool" => Fault::InTool,
            "handle" => Fault::InHandle,
            "stack_overflow" => Fault::StackOverflow,
            "abort" => Fault::Abort,
            other => return Err(pyo3::exceptions::PyValueError::new_err(format!("unknown fault place {other:?}"))),
        };
        *self.fault.lock() = Some(fault);
        Ok(())
    }

    #[getter]
    fn alive(&self) -> bool {
        self.alive.load(Ordering::SeqCst)
    }

    /// For tests only: the serial number of the worker thread hosting this session (threads are reused).
    #[getter]
    fn _worker(&self) -> u64 {
        self.shared.worker.load(Ordering::SeqCst)
    }

    #[getter]
    fn death_reason(&self) -> String {
        self.death_reason.lock().clone().unwrap_or_default()
    }
}

impl Drop for Session {
    fn drop(&mut self) {
        // Without waiting: the worker finalises the VM on its own.
        let _ = self.jobs.send(Job::Shutdown);
    }
}

fn dead(py: Python<'_>, reason: &str) -> PyResult<Py<PyTuple>> {
    outcome_tuple(py, Outcome::Dead(reason.to_owned()))
}

fn outcome_tuple(py: Python<'_>, outcome: Outcome) -> PyResult<Py<PyTuple>> {
    let tuple = match outcome {
        Outcome::Value(value) => ("value", value).into_pyobject(py)?,
        Outcome::Finish(FinishKind::Submit, fields) => ("submit", fields).into_pyobject(py)?,
        Outcome::Finish(FinishKind::Final, fields) => ("final", fields).into_pyobject(py)?,
        Outcome::Syntax(report) => ("syntax", report.message, report.lineno, report.offset, report.text).into_pyobject(py)?,
        Outcome::Error { report, output } => {
            ("error", report.type_name, report.message, report.traceback, output).into_pyobject(py)?
        }
        Outcome::BadInput(message) => return Err(PyTypeError::new_err(message)),
        Outcome::Dead(reason) => ("dead", reason).into_pyobject(py)?,
    };
    Ok(tuple.unbind())
}
