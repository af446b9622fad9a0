//! The host calls of one run that async sandbox code started (`ToHost::ToolStart`): they run at the same time
//! on the pool of the interpreter's `ToolHooks` (`ConcurrentCalls`, a bounded thread pool), whose worker
//! threads hand their outcomes back through an eventfd; the exchange answers the session's event loop when
//! it waits (`ToHost::Wait`) with the calls finished since (`ToSession::Woken`), or when its wait times out.
//! Answers go only to a waiting session, so a rollback's replay can give them back at the same points.

use std::collections::HashMap;
use std::os::fd::RawFd;
use std::time::{Duration, Instant};

use pyo3::prelude::*;

use crate::host::tools::{ToolHooks, ToolTable};
use crate::protocol::message::{ToSession, ToolResult};
use crate::protocol::value::{str_host_bytes, Value};
use crate::protocol::wire::Encoded;

/// Calls one run may have running at once; past it a start is refused (sandbox code must await some first):
/// a session cannot make the host queue work without bound.
pub const MAX_RUNNING: usize = 1000;

/// The arguments the running calls may hold on the host, where the session has no memory limit. With one, they
/// may hold as much as the limit: the host makes its own copy of each call's arguments, so one 40 MB str
/// passed to 25 calls that wait on a model costs the host 1 GB, and a cell may start `MAX_RUNNING` of them.
pub const ARGUMENTS_WITHOUT_LIMIT: usize = 512 << 20;

pub struct HostCalls<'a, 'py> {
    /// The interpreter's pool; None: calls run one at a time, when started.
    pool: Option<&'a ToolHooks>,
    py: Python<'py>,
    wake_fd: Option<RawFd>,
    /// Running calls: the tool's name and the size of its arguments, by call id.
    running: HashMap<u64, (String, usize)>,
    /// The arguments of the running calls and the results not yet handed to the session, as the host holds them
    /// (`Value::host_size`: a str at 1, 2 or 4 bytes a character), and how much they may hold
    /// (`ARGUMENTS_WITHOUT_LIMIT`).
    held: usize,
    may_hold: usize,
    finished: Vec<(u64, ToolResult)>,
    /// The id of the latest call started (ids rise within a run).
    last_started: u64,
    /// The session waits: until when (None: until a call finishes), and since when.
    waiting: Option<(Option<Instant>, Instant)>,
}

impl<'a, 'py> HostCalls<'a, 'py> {
    /// The host calls of a run of a session with `memory_limit`.
    pub fn new(py: Python<'py>, pool: Option<&'a ToolHooks>, memory_limit: Option<usize>) -> Self {
        let may_hold = memory_limit.unwrap_or(ARGUMENTS_WITHOUT_LIMIT);
        Self {
            pool,
            py,
            wake_fd: None,
            running: HashMap::new(),
            held: 0,
            may_hold,
            finished: Vec::new(),
            last_started: 0,
            waiting: None,
        }
    }

    /// The pool, told at this run's first call that a new run began (it drops what earlier runs' calls
    /// still hand back), with its eventfd.
    fn pool(&mut self) -> Option<&'a ToolHooks> {
        let pool = self.pool?;
        if self.wake_fd.is_none() {
            match pool.begin(self.py) {
                Ok(fd) => self.wake_fd = Some(fd),
                Err(_) => self.pool = None,
            }
        }
        self.pool
    }

    /// Start a call; one that cannot start (or, without a pool, the call itself) is finished at once. A
    /// call id not above the last one is the session process breaking the protocol (the sandbox numbers its
    /// calls upwards): Err, and the run ends, rather than the host running the tool again under one id.
    pub fn start(
        &mut self,
        tools: &ToolTable,
        call_id: u64,
        name: String,
        args: Vec<Value>,
        kwargs: Vec<(String, Value)>,
        context: Option<&Bound<'py, PyAny>>,
    ) -> Result<(), String> {
        if call_id <= self.last_started {
            return Err(format!("the session process started host call {call_id} after call {}", self.last_started));
        }
        self.last_started = call_id;
        if self.running.len() >= MAX_RUNNING {
            let refused = format!(
                "tool '{name}' was not started: {MAX_RUNNING} host calls are already running; await some first"
            );
            self.finished.push((call_id, ToolResult::Refused(refused)));
            return Ok(());
        }
        // Counted as the host builds them, not as they came: one emoji in a 1 MB str makes it 4 MB here.
        let size = args.iter().map(Value::host_size).sum::<usize>()
            + kwargs.iter().map(|(key, value)| str_host_bytes(key.as_bytes()) + value.host_size()).sum::<usize>();
        if self.held.saturating_add(size) > self.may_hold {
            let mib = |bytes: usize| bytes.div_ceil(1 << 20);
            let refused = format!(
                "tool '{name}' was not started: the host calls already running hold {} MiB of arguments, and this \
                 one's {} MiB would pass the {} MiB they may hold (the session's memory limit); await some first",
                mib(self.held),
                mib(size),
                mib(self.may_hold)
            );
            self.finished.push((call_id, ToolResult::Refused(refused)));
            return Ok(());
        }
        match self.pool() {
            Some(pool) => match tools.start(self.py, call_id, &name, args, kwargs, context, pool) {
                Ok(()) => {
                    self.held += size;
                    self.running.insert(call_id, (name, size));
                }
                Err(refused) => self.finished.push((call_id, refused)),
            },
            None => {
                let result = tools.call(self.py, &name, args, kwargs, context).0;
                self.held += returned_size(&result);
                self.finished.push((call_id, result));
            }
        }
        Ok(())
    }

    /// The session waits for calls to finish, at most `timeout` seconds (None: until one does). Any number
    /// the session sends is safe: NaN or a negative wait is no wait, one past what a clock can hold is none.
    pub fn wait(&mut self, timeout: Option<f64>) {
        let now = Instant::now();
        let deadline = match timeout {
            None => None,
            Some(t) if t.is_nan() || t <= 0.0 => Some(now),
            Some(t) => Duration::try_from_secs_f64(t).ok().and_then(|limit| now.checked_add(limit)),
        };
        self.waiting = Some((deadline, now));
    }

    /// End the session's wait now (an interrupt: the sandbox raises it once it runs again).
    pub fn cut_wait(&mut self) {
        if let Some((deadline, _)) = &mut self.waiting {
            *deadline = Some(Instant::now());
        }
    }

    /// The eventfd to poll beside the socket while calls run.
    pub fn wake_fd(&self) -> Option<RawFd> {
        self.wake_fd.filter(|_| !self.running.is_empty())
    }

    /// How long to sleep at most before the session's wait is due.
    pub fn poll_timeout(&self, tick: Duration) -> Duration {
        match self.waiting {
            Some((Some(deadline), _)) => deadline.saturating_duration_since(Instant::now()).min(tick),
            _ => tick,
        }
    }

    /// Take the outcomes the pool's threads handed back.
    pub fn collect(&mut self, tools: &ToolTable) {
        let Some(pool) = self.pool else { return };
        for (call_id, result) in pool.take(self.py) {
            let Some((name, size)) = self.running.remove(&call_id) else { continue };
            // From here its result is held until the session takes it (an echo's result is its arguments again):
            // counted in their place, so calls the session never awaits cannot pile results up.
            let result = tools.outcome(self.py, &name, result);
            self.held = self.held - size + returned_size(&result);
            self.finished.push((call_id, result));
        }
    }

    /// The answer to the session's wait, once it is due (a call finished, none is left, or time is up),
    /// and how long the session waited (host time, not the run's).
    pub fn answer(&mut self) -> Option<(Encoded, Duration)> {
        let (deadline, since) = self.waiting?;
        let due = !self.finished.is_empty() || self.running.is_empty() || deadline.is_some_and(|d| Instant::now() >= d);
        if !due {
            return None;
        }
        self.waiting = None;
        let given = std::mem::take(&mut self.finished);
        self.held -= given.iter().map(|(_, result)| returned_size(result)).sum::<usize>();
        Some((ToSession::Woken(given).encode(), since.elapsed()))
    }

    /// The run is over: the pool cancels the async calls still running (sync ones finish; every result still
    /// to come is dropped).
    pub fn abandon(self) {
        if let (Some(pool), false) = (self.pool, self.running.is_empty()) {
            pool.abandon(self.py);
        }
    }

    /// How long the session has been waiting so far.
    pub fn waited(&self) -> Duration {
        self.waiting.map(|(_, since)| since.elapsed()).unwrap_or_default()
    }
}

/// The size of what a finished call hands back, counted while the host holds it.
fn returned_size(result: &ToolResult) -> usize {
    match result {
        ToolResult::Return(value) => value.host_size(),
        _ => 0,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn any_wait_a_session_asks_for_is_safe() {
        Python::attach(|py| {
            for timeout in [1e19, f64::INFINITY, f64::MAX, f64::NAN, -1.0, 0.0, 1e-12] {
                let mut calls = HostCalls::new(py, None, None);
                calls.wait(Some(timeout));
                // No call is running: the wait is answered at once, whatever was asked.
                assert!(calls.answer().is_some(), "{timeout}");
            }
        });
    }
}
