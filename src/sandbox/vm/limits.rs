//! The limits that stop runaway sandbox code and keep the session, as the VM thread and the monitor thread share
//! them (`Shared`): a wall-time limit per `execute()`, the memory limit, a cap on captured output; and how a run
//! is stopped. The clamps on `sys` are `sys_clamps`; `time.sleep` under the time limit is `sleep`.
//!
//! Stopping works through the VM's signal queue, which the eval loop checks before every instruction: a
//! stop request queues a closure that raises the stop's exception and queues itself again, so sandbox code
//! that catches the exception (even `except BaseException:`, even in a loop) is stopped at the next
//! instruction all the same. The session process's monitor thread (`worker::monitor`) asks for the stop
//! when a limit is passed, and asks again every tick until the run ends.

use std::sync::atomic::{AtomicI64, AtomicU64, AtomicU8, AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use rustpython_vm::builtins::PyTypeRef;
use rustpython_vm::signal::{UserSignal, UserSignalSender};
use rustpython_vm::VirtualMachine;

use crate::memory::Budget;
use crate::protocol::message::Stop;
use crate::protocol::options::SessionOptions;

/// What a stop request asks of the running code: to end at a limit (the run's `Stop`, reported to the host),
/// or to unwind after an accepted finish call.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Stopping {
    Limit(Stop),
    Finish,
}

impl Stopping {
    /// As held in `Shared::stop` (0 is no request).
    fn code(self) -> u8 {
        match self {
            Self::Finish => 1,
            Self::Limit(stop) => 2 + stop as u8,
        }
    }

    fn from_code(code: u8) -> Option<Self> {
        Some(match code {
            1 => Self::Finish,
            2 => Self::Limit(Stop::Timeout),
            3 => Self::Limit(Stop::Memory),
            4 => Self::Limit(Stop::Interrupt),
            _ => return None,
        })
    }
}

/// The session's limits as its VM thread sees them: set when the session process starts (`begin_session`),
/// the exception an accepted finish call unwinds with (`set_finish_exception_type`), and when the current
/// run began (`begin_job`).
#[derive(Default)]
struct Current {
    shared: Option<Arc<Shared>>,
    finish_exception_type: Option<PyTypeRef>,
    job_started: Option<Instant>,
}

thread_local! {
    static CURRENT: std::cell::RefCell<Current> = std::cell::RefCell::new(Current::default());
}

pub fn begin_session(shared: Arc<Shared>) {
    CURRENT.with(|current| current.borrow_mut().shared = Some(shared));
}

pub fn set_finish_exception_type(exception_type: PyTypeRef) {
    CURRENT.with(|current| current.borrow_mut().finish_exception_type = Some(exception_type));
}

pub fn finish_exception_type() -> PyTypeRef {
    CURRENT.with(|current| current.borrow().finish_exception_type.clone()).expect("set at start-up")
}

pub fn begin_job() {
    CURRENT.with(|current| current.borrow_mut().job_started = Some(Instant::now()));
}

/// When the current run began (None before the first).
pub fn job_started() -> Option<Instant> {
    CURRENT.with(|current| current.borrow().job_started)
}

/// What the VM thread shares with the monitor thread; None before the session process started.
pub fn shared() -> Option<Arc<Shared>> {
    CURRENT.with(|current| current.borrow().shared.clone())
}

/// Characters of output a run keeps (every print asks: no reference counted for it).
pub fn max_output_chars() -> usize {
    CURRENT
        .with(|current| current.borrow().shared.as_ref().map_or(usize::MAX, |shared| shared.options.max_output_chars()))
}

/// What the VM thread and the monitor thread share about the running job.
pub struct Shared {
    pub options: SessionOptions,
    stop: AtomicU8,
    signals: UserSignalSender,
    epoch: Instant,
    /// Nanoseconds (since `epoch`) at which the current tool call began; 0 when no tool is running.
    tool_started: AtomicU64,
    /// The job's time in tools as one word, so the monitor never reads half an update (it once read a call as
    /// over but not yet counted, and stopped a run whose tools had taken longer than its limit): `T << 1 | 1`
    /// while a call runs, where the time in tools is `T` plus now (in nanoseconds since `epoch`); `T << 1`
    /// between calls, where it is `T`.
    tool_clock: AtomicI64,
    /// Bytes the session process holds, and the ceiling for large requests (see `memory`).
    pub memory: &'static Budget,
    /// Bytes past which the running job is stopped with MemoryError (usize::MAX between jobs).
    memory_threshold: AtomicUsize,
}

impl Shared {
    pub fn new(options: SessionOptions, signals: UserSignalSender, memory: &'static Budget) -> Arc<Self> {
        Arc::new(Self {
            options,
            stop: AtomicU8::new(0),
            signals,
            epoch: Instant::now(),
            tool_started: AtomicU64::new(0),
            tool_clock: AtomicI64::new(0),
            memory,
            memory_threshold: AtomicUsize::new(usize::MAX),
        })
    }

    /// The stop request that stands, if any.
    pub fn stopping(&self) -> Option<Stopping> {
        Stopping::from_code(self.stop.load(Ordering::SeqCst))
    }

    /// The limit that stopped the run, if one did.
    pub fn limit_stop(&self) -> Option<Stop> {
        match self.stopping() {
            Some(Stopping::Limit(stop)) => Some(stop),
            _ => None,
        }
    }

    /// Ask the running code to stop. The first reason wins; the request is (re-)sent either way.
    /// Ask for an automatic collection at the next safe point, if one is due (`sandbox::vm::gc`).
    pub fn request_collection_when_due(&self) {
        crate::sandbox::vm::gc::request_when_due(&self.signals);
    }

    pub fn request_stop(self: &Arc<Self>, reason: Stopping) {
        let _ = self.stop.compare_exchange(0, reason.code(), Ordering::SeqCst, Ordering::SeqCst);
        let _ = self.signals.send(stop_signal(self.clone()));
    }

    /// Called by the VM thread at the start and end of every run.
    pub fn reset_for_job(&self) {
        self.stop.store(0, Ordering::SeqCst);
        self.tool_clock.store(0, Ordering::SeqCst);
        self.tool_started.store(0, Ordering::SeqCst);
    }

    fn now_nanos(&self) -> u64 {
        (self.epoch.elapsed().as_nanos() as u64).max(1)
    }

    /// Only the VM thread starts and ends tool calls (so a load and a store make one update).
    pub fn tool_call_started(&self) {
        let clock = self.tool_clock.load(Ordering::SeqCst);
        if clock & 1 == 0 {
            let now = self.now_nanos();
            self.tool_clock.store(((clock >> 1) - now as i64) << 1 | 1, Ordering::SeqCst);
            self.tool_started.store(now, Ordering::SeqCst);
        }
    }

    /// The call ended; `own` of its wait was the tool's own time (the host's work on the call is the run's).
    pub fn tool_call_ended(&self, own: Duration) {
        let clock = self.tool_clock.load(Ordering::SeqCst);
        if clock & 1 == 1 {
            let started = self.tool_started.load(Ordering::SeqCst);
            let now = self.now_nanos();
            let exempt = now.saturating_sub(started).min(u64::try_from(own.as_nanos()).unwrap_or(u64::MAX));
            // While the call ran, the clock held its whole wait as tool time (`T - started`): from here `T + exempt`.
            self.tool_clock.store(((clock >> 1) + started as i64 + exempt as i64) << 1, Ordering::SeqCst);
            self.tool_started.store(0, Ordering::SeqCst);
        }
    }

    pub fn memory_used(&self) -> usize {
        self.memory.used()
    }

    /// Called by the VM thread once the run's variables are bound, right before sandbox code runs: from here
    /// the job may hold up to the limit. A job that starts above it (the host injected big values, or an
    /// earlier run was stopped mid-growth) may still run, and free things, within a small allowance; one that
    /// starts near it (a run stopped just past the limit unwinds to just under it) within a quarter of what it
    /// holds: freeing takes scratch memory of its own (a dict of a million entries hands its two million
    /// references over in one 16 MB vector before dropping them). Large requests past the threshold plus a
    /// margin are refused outright.
    pub fn begin_memory_budget(&self) {
        self.begin_memory_budget_beyond(0);
    }

    /// `begin_memory_budget`, with `incoming` more bytes allowed: while the host's values are converted
    /// (which may run sandbox code: a date is made by the session's own, possibly replaced, `datetime`), they
    /// may take their own size on top of the budget; once they are in, the budget starts again from there.
    pub fn begin_memory_budget_beyond(&self, incoming: usize) {
        let Some(limit) = self.options.memory_limit() else { return };
        let start = self.memory_used().saturating_add(incoming);
        let allowance = (limit / 2).min(64 << 20);
        let threshold = if start > limit { start + allowance } else { limit.max(start + allowance.min(start / 4)) };
        self.memory_threshold.store(threshold, Ordering::SeqCst);
        self.memory.set_ceiling(Some(threshold.saturating_add((limit / 4).max(16 << 20))));
    }

    /// Called by the VM thread when the run ends.
    pub fn end_memory_budget(&self) {
        self.memory_threshold.store(usize::MAX, Ordering::SeqCst);
        self.memory.set_ceiling(None);
    }

    /// Whether the running job grew the VM past its threshold.
    pub fn over_memory_limit(&self) -> bool {
        self.memory_used() > self.memory_threshold.load(Ordering::SeqCst)
    }

    /// How long the host tool now running has taken, None when no tool is running.
    pub fn tool_time_running(&self) -> Option<Duration> {
        let started = self.tool_started.load(Ordering::SeqCst);
        (started != 0).then(|| Duration::from_nanos(self.now_nanos().saturating_sub(started)))
    }

    /// Time spent in host tools so far in this job, including a call still running.
    pub fn tool_time(&self) -> Duration {
        let clock = self.tool_clock.load(Ordering::SeqCst);
        let running = if clock & 1 == 1 { self.now_nanos() as i64 } else { 0 };
        Duration::from_nanos(((clock >> 1) + running).max(0) as u64)
    }
}

/// The words of a MemoryError the VM raised itself (an allocation refused, past the ceiling above the limit, or by
/// the system), which has none of its own: what was reached, and that nothing else was lost.
pub fn refused_allocation_message() -> String {
    match shared().and_then(|shared| shared.options.memory_limit()) {
        Some(limit) => format!(
            "the code asked for more memory than {} allows, and the operation was refused; the session's variables \
             are intact. Work on smaller pieces, or del variables you no longer need",
            named_limit(limit)
        ),
        None => "the system could not give the memory the code asked for, and the operation was refused; the \
                 session's variables are intact. Work on smaller pieces"
            .to_owned(),
    }
}

pub fn memory_limit_message(shared: &Shared) -> String {
    format!(
        "{} was reached and the code was stopped; the session's variables are intact. Work on smaller pieces, or \
         del variables you no longer need",
        named_limit(shared.options.memory_limit().unwrap_or_default())
    )
}

/// The memory limit as the messages name it.
fn named_limit(limit: usize) -> String {
    format!("the sandbox's memory limit of {:.0} MiB", limit as f64 / (1024.0 * 1024.0))
}

/// The exception the stop that stands raises in sandbox code; None when none stands.
pub fn stop_exception(vm: &VirtualMachine, shared: &Shared) -> Option<rustpython_vm::builtins::PyBaseExceptionRef> {
    Some(match shared.stopping()? {
        Stopping::Finish => vm.new_exception_msg(finish_exception_type(), "finish call accepted".into()),
        Stopping::Limit(Stop::Timeout) => {
            let limit = shared.options.timeout.unwrap_or_default();
            vm.new_exception_msg(
                vm.ctx.exceptions.timeout_error.to_owned(),
                format!(
                    "execution exceeded the time limit of {limit} s and was stopped; the session's variables \
                     are intact. Make the code faster, or split the work across several executions"
                )
                .into(),
            )
        }
        Stopping::Limit(Stop::Interrupt) => vm.new_exception_empty(vm.ctx.exceptions.keyboard_interrupt.to_owned()),
        Stopping::Limit(Stop::Memory) => vm.new_memory_error(memory_limit_message(shared)),
        // Only the host says a session crashed; no request in the session process is one.
        Stopping::Limit(Stop::Crash) => return None,
    })
}

/// The closure queued into the VM: raise the stop's exception, and stay queued while the stop stands.
fn stop_signal(shared: Arc<Shared>) -> UserSignal {
    Box::new(move |vm: &VirtualMachine| {
        let Some(exception) = stop_exception(vm, &shared) else { return Ok(()) };
        let _ = shared.signals.send(stop_signal(shared.clone()));
        Err(exception)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn time_in_tools_never_seems_to_shrink_to_the_monitor() {
        static BUDGET: Budget = Budget::new();
        let (signals, _receiver) = rustpython_vm::signal::user_signal_channel();
        let options = SessionOptions { timeout: None, memory_limit: None, ..SessionOptions::default() };
        let shared = Shared::new(options, signals, &BUDGET);
        let reader = {
            let shared = shared.clone();
            std::thread::spawn(move || {
                // A reading may pass the call's end by the time between its load and its clock: microseconds.
                let mut last = Duration::ZERO;
                for _ in 0..2_000_000 {
                    let now = shared.tool_time();
                    assert!(now + Duration::from_millis(1) >= last, "tool time went back from {last:?} to {now:?}");
                    last = last.max(now);
                }
            })
        };
        let mut calls = 0u32;
        while !reader.is_finished() {
            shared.tool_call_started();
            std::thread::sleep(Duration::from_millis(2));
            shared.tool_call_ended(Duration::MAX);
            calls += 1;
        }
        reader.join().unwrap();
        assert!(shared.tool_time() >= Duration::from_millis(2) * calls);
    }

    #[test]
    fn only_the_tools_own_time_of_a_call_is_exempt() {
        static BUDGET: Budget = Budget::new();
        let (signals, _receiver) = rustpython_vm::signal::user_signal_channel();
        let options = SessionOptions { timeout: None, memory_limit: None, ..SessionOptions::default() };
        let shared = Shared::new(options, signals, &BUDGET);
        shared.tool_call_started();
        std::thread::sleep(Duration::from_millis(30));
        // While it runs the whole wait is held as tool time (the monitor cannot know yet) ...
        assert!(shared.tool_time() >= Duration::from_millis(30));
        // ... and once the host says its tool took 5 ms of it, the rest is the run's.
        shared.tool_call_ended(Duration::from_millis(5));
        assert_eq!(shared.tool_time(), Duration::from_millis(5));
        shared.tool_call_started();
        std::thread::sleep(Duration::from_millis(2));
        shared.tool_call_ended(Duration::MAX);
        let total = shared.tool_time();
        assert!(total >= Duration::from_millis(7) && total < Duration::from_millis(30), "{total:?}");
    }
}
