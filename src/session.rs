//! `Session`: the handle CPython holds. It owns only channels to the worker thread, so it is `Send` and
//! `Sync`, can be used from any Python thread, and releases the GIL while the sandbox runs.

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::mpsc::{channel, Receiver, Sender};
use std::thread::JoinHandle;

use parking_lot::Mutex;
use pyo3::exceptions::{PyRuntimeError, PyTypeError};
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyTuple};

use crate::state::{Field, FinishKind};
use crate::tools::ToolSpec;
use crate::worker::{self, ExecuteJob, Job, Outcome};

#[pyclass(frozen, module = "dspy_rust_interpreter._native")]
pub struct Session {
    jobs: Sender<Job>,
    /// Held for the whole of a job: concurrent callers queue here, never interleave.
    replies: Mutex<Receiver<Outcome>>,
    /// Process-unique, to recognise a call that would wait on itself through a chain of tools.
    id: u64,
    worker: Mutex<Option<JoinHandle<()>>>,
    alive: AtomicBool,
    death_reason: Mutex<Option<String>>,
}

impl Session {
    fn mark_dead(&self, reason: &str) {
        self.alive.store(false, Ordering::SeqCst);
        self.death_reason.lock().get_or_insert_with(|| reason.to_owned());
    }
}

#[pymethods]
impl Session {
    /// Start a worker thread and build its VM; returns once the sandbox is ready.
    #[new]
    fn new(py: Python<'_>) -> PyResult<Self> {
        let (jobs, job_receiver) = channel();
        let (reply_sender, replies) = channel();
        let handle = worker::spawn(job_receiver, reply_sender)
            .map_err(|e| PyRuntimeError::new_err(format!("could not start the sandbox thread: {e}")))?;
        static NEXT_ID: AtomicU64 = AtomicU64::new(1);
        let id = NEXT_ID.fetch_add(1, Ordering::Relaxed);
        let (started, replies) = py.detach(move || (replies.recv(), replies));
        match started {
            Ok(Outcome::Value(_)) => {}
            Ok(Outcome::Dead(reason)) => return Err(PyRuntimeError::new_err(reason)),
            _ => return Err(PyRuntimeError::new_err("the sandbox thread stopped while starting")),
        }
        Ok(Self {
            jobs,
            replies: Mutex::new(replies),
            id,
            worker: Mutex::new(Some(handle)),
            alive: AtomicBool::new(true),
            death_reason: Mutex::new(None),
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
        let job = Job::Execute(Box::new(ExecuteJob {
            code,
            variables: variables.map(Bound::unbind),
            tools,
            fields: fields.map(|fields| {
                fields.into_iter().map(|(name, declared_type)| Field { name, declared_type }).collect()
            }),
            context: context.map(Bound::unbind),
            waiting_sessions: {
                let mut waiting = crate::state::waiting_sessions();
                waiting.push(self.id);
                waiting
            },
        }));
        let outcome = py.detach(|| {
            let replies = self.replies.lock();
            self.jobs.send(job).ok()?;
            replies.recv().ok()
        });
        let outcome = outcome.unwrap_or_else(|| Outcome::Dead("the sandbox thread is gone".into()));
        if let Outcome::Dead(reason) = &outcome {
            self.mark_dead(reason);
        }
        outcome_tuple(py, outcome)
    }

    /// End the session: the worker finalises its VM and exits. Idempotent.
    fn shutdown(&self, py: Python<'_>) {
        self.mark_dead("the session was shut down");
        let _ = self.jobs.send(Job::Shutdown);
        let handle = self.worker.lock().take();
        if let Some(handle) = handle {
            if !self.would_wait_on_itself() {
                py.detach(|| {
                    let _ = handle.join();
                });
            }
        }
    }

    /// True when called from a tool that this session is (directly, or through tools calling other
    /// sessions) waiting for: running a job here then would deadlock.
    fn would_wait_on_itself(&self) -> bool {
        crate::state::waiting_sessions().contains(&self.id)
    }

    #[getter]
    fn alive(&self) -> bool {
        self.alive.load(Ordering::SeqCst)
    }

    #[getter]
    fn death_reason(&self) -> String {
        self.death_reason.lock().clone().unwrap_or_default()
    }
}

impl Drop for Session {
    fn drop(&mut self) {
        // Without joining: the worker finalises its VM and exits on its own.
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
