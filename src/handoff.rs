//! Handing a job to the worker and its outcome back. A channel receive that blocks puts the thread to sleep,
//! and waking it costs tens of microseconds on each side, more than running a small cell. Both sides
//! therefore poll the channel for a short while before they block: a caller whose cell finishes quickly,
//! and a worker whose next job comes soon (a loop of `execute()` calls), never sleep.

use std::sync::mpsc::{Receiver, RecvTimeoutError, TryRecvError};
use std::time::{Duration, Instant};

/// How long the caller polls for the outcome before waiting in ticks: covers a small cell.
pub const CALLER_SPIN: Duration = Duration::from_micros(200);
/// How long the worker polls for the next job after replying: covers the caller's turnaround between
/// two `execute()` calls; an idle session costs this much CPU once per job, then sleeps.
pub const WORKER_SPIN: Duration = Duration::from_micros(200);

/// Poll `receiver` for up to `spin`. `Err(Timeout)` means nothing came in that time.
pub fn poll_for<T>(receiver: &Receiver<T>, spin: Duration) -> Result<T, RecvTimeoutError> {
    let started = Instant::now();
    let mut polls: u32 = 0;
    loop {
        match receiver.try_recv() {
            Ok(value) => return Ok(value),
            Err(TryRecvError::Disconnected) => return Err(RecvTimeoutError::Disconnected),
            Err(TryRecvError::Empty) => {}
        }
        polls = polls.wrapping_add(1);
        // Reading the clock is cheap, but not free: look at it every few polls.
        if polls % 16 == 0 {
            if started.elapsed() >= spin {
                return Err(RecvTimeoutError::Timeout);
            }
            // On a machine with more runnable threads than cores, let one of them have this core.
            std::thread::yield_now();
        }
        std::hint::spin_loop();
    }
}

/// Receive the next value, polling first, then blocking.
pub fn receive<T>(receiver: &Receiver<T>, spin: Duration) -> Option<T> {
    match poll_for(receiver, spin) {
        Ok(value) => Some(value),
        Err(RecvTimeoutError::Disconnected) => None,
        Err(RecvTimeoutError::Timeout) => receiver.recv().ok(),
    }
}
