//! The session process's second thread. While a run is in progress it enforces the time limit (time in
//! host tools excluded), the memory limit and the host's interrupt by asking the VM to stop; a run that
//! ignores the stop for the grace period (a long native operation) ends the process with
//! `ToHost::Abandoned`, and the host rolls the session back to its checkpoint.
//!
//! The monitor holds no lock while the VM thread forks (checkpoints are forked between runs, and a fork's
//! child starts a monitor of its own on fresh state), so nothing it had locked can wedge a child.

use std::sync::atomic::{AtomicBool, AtomicPtr, Ordering};
use std::sync::{Arc, Condvar, Mutex};
use std::time::{Duration, Instant};

use crate::protocol::message::Stop;
use crate::sandbox::vm::limits::{Shared, Stopping};

/// How often the limits are checked while code runs.
const TICK: Duration = Duration::from_millis(2);

static INTERRUPTED: AtomicBool = AtomicBool::new(false);
static CURRENT: AtomicPtr<Monitor> = AtomicPtr::new(std::ptr::null_mut());

struct Monitor {
    run: Mutex<Watched>,
    wake: Condvar,
}

/// What the monitor watches, under its lock.
struct Watched {
    run: Option<Run>,
    /// The monitor sleeps on `wake` (after a while without runs) rather than ticking.
    parked: bool,
}

/// Without a run for this long, the monitor stops ticking and waits to be woken. Until then a new run
/// costs no wake-up: in a loop of short runs, waking the monitor for each would cost more than the run.
const PARK_AFTER: Duration = Duration::from_millis(100);

struct Run {
    started: Instant,
    shared: Arc<Shared>,
    /// The stop asked for, and since when.
    stopping: Option<(Stop, Instant)>,
}

extern "C" fn on_interrupt(_: libc::c_int) {
    INTERRUPTED.store(true, Ordering::SeqCst);
}

/// Note the host's interrupt signal from now on (inherited by every fork). SA_RESTART: the VM's own system
/// calls go on as if nothing happened.
pub fn install_interrupt_handler() -> std::io::Result<()> {
    // SAFETY: a zeroed sigaction with a handler that only stores to an atomic.
    unsafe {
        let mut action: libc::sigaction = std::mem::zeroed();
        action.sa_sigaction = on_interrupt as *const () as usize;
        action.sa_flags = libc::SA_RESTART;
        libc::sigemptyset(&mut action.sa_mask);
        if libc::sigaction(crate::protocol::process::INTERRUPT_SIGNAL, &action, std::ptr::null_mut()) != 0 {
            return Err(std::io::Error::last_os_error());
        }
    }
    Ok(())
}

/// Start this process's monitor thread (once per process: at spawn, resume and fork).
pub fn start() -> std::io::Result<()> {
    let watched = Watched { run: None, parked: false };
    let monitor: &'static Monitor = Box::leak(Box::new(Monitor { run: Mutex::new(watched), wake: Condvar::new() }));
    CURRENT.store(monitor as *const Monitor as *mut Monitor, Ordering::SeqCst);
    std::thread::Builder::new().name("session-monitor".into()).stack_size(256 << 10).spawn(move || watch(monitor))?;
    Ok(())
}

fn current() -> Option<&'static Monitor> {
    // SAFETY: monitors are leaked, so a pointer once stored stays valid.
    unsafe { CURRENT.load(Ordering::SeqCst).as_ref() }
}

/// Sandbox code starts running now, under `shared`'s limits.
pub fn begin_run(shared: Arc<Shared>) {
    INTERRUPTED.store(false, Ordering::SeqCst);
    if let Some(monitor) = current() {
        let mut watched = monitor.run.lock().unwrap_or_else(|e| e.into_inner());
        watched.run = Some(Run { started: Instant::now(), shared, stopping: None });
        if watched.parked {
            monitor.wake.notify_one();
        }
    }
}

/// The run is over: nothing to watch until the next one. Returns once the monitor is not acting on it.
pub fn end_run() {
    if let Some(monitor) = current() {
        monitor.run.lock().unwrap_or_else(|e| e.into_inner()).run = None;
    }
}

fn watch(monitor: &'static Monitor) {
    let mut last_run = Instant::now();
    loop {
        {
            let mut watched = monitor.run.lock().unwrap_or_else(|e| e.into_inner());
            if watched.run.is_none() && last_run.elapsed() >= PARK_AFTER {
                watched.parked = true;
                while watched.run.is_none() {
                    watched = monitor.wake.wait(watched).unwrap_or_else(|e| e.into_inner());
                }
                watched.parked = false;
            }
            if let Some(run) = watched.run.as_mut() {
                last_run = Instant::now();
                check(run);
            }
        }
        std::thread::sleep(TICK);
    }
}

/// Ask the running code to stop when a limit is passed; end the process if it ignored the stop too long.
fn check(run: &mut Run) {
    let wanted = match run.stopping {
        Some((reason, _)) => Some(reason),
        None if INTERRUPTED.swap(false, Ordering::SeqCst) => Some(Stop::Interrupt),
        None if run.shared.over_memory_limit() => Some(Stop::Memory),
        None if run
            .shared
            .options
            .timeout()
            .is_some_and(|limit| run.started.elapsed().saturating_sub(run.shared.tool_time()) > limit) =>
        {
            Some(Stop::Timeout)
        }
        None => {
            run.shared.request_collection_when_due();
            None
        }
    };
    if let Some(reason) = wanted {
        let since = run.stopping.get_or_insert((reason, Instant::now())).1;
        // A tool call is the host's time: the code is not ignoring the stop while one runs.
        if since.elapsed() > run.shared.options.abandon_after() && run.shared.tool_time_running().is_none() {
            crate::worker::fault::abandon(reason);
        }
        run.shared.request_stop(Stopping::Limit(reason));
        // Code of the packages running in CPython checks its own interrupt, not the VM's.
        crate::sandbox::cpython::interrupt();
    }
}
