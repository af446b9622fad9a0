//! The last line of defence: a fatal signal on a session's worker thread stops that thread, not the process.
//!
//! Sandbox code should never get the VM to a fatal signal (deep native recursion is a RecursionError, large
//! allocations past the memory limit are refused), but the VM is big and an unforeseen path -- a native
//! recursion nobody guards, an allocation refused on a path that cannot fail -- would otherwise end in
//! SIGSEGV or SIGABRT and take the user's whole process down. Instead, a worker thread that receives one
//! records it for its waiting caller, hands its stack's memory back to the system and stays parked in the
//! handler for good: its VM is never run or freed again. The caller sees the session die with a clear
//! message; every other session and the host carry on.
//!
//! Signals on other threads, and on a worker while it holds the GIL (running host code, where a parked
//! thread would block every other Python thread), go to whoever handled them before.

use std::cell::Cell;
use std::ptr;
use std::sync::atomic::{AtomicI32, Ordering};
use std::sync::OnceLock;

use libc::{c_int, c_void, siginfo_t};

const FATAL_SIGNALS: [c_int; 5] = [libc::SIGSEGV, libc::SIGBUS, libc::SIGILL, libc::SIGFPE, libc::SIGABRT];
/// The handler's own stack: the thread's stack may be the very thing that ran out.
const ALT_STACK_BYTES: usize = 256 * 1024;
/// The top of a worker's stack, kept when the rest is handed back: the thread's control block lives there.
const KEEP_TOP_BYTES: usize = 1 << 20;

#[derive(Clone, Copy)]
struct Watch {
    /// Where to record the signal; null on threads that are not watched.
    crashed: *const AtomicI32,
    release_from: usize,
    release_len: usize,
}

const UNWATCHED: Watch = Watch { crashed: ptr::null(), release_from: 0, release_len: 0 };

thread_local! {
    // `const` and without a destructor: readable from a signal handler without allocating.
    static WATCH: Cell<Watch> = const { Cell::new(UNWATCHED) };
}

/// The handlers that were installed before ours, one per entry of FATAL_SIGNALS.
static PREVIOUS: OnceLock<[libc::sigaction; FATAL_SIGNALS.len()]> = OnceLock::new();

fn install() {
    PREVIOUS.get_or_init(|| {
        // SAFETY: plain sigaction calls with fully initialised structs.
        FATAL_SIGNALS.map(|signal| unsafe {
            let mut ours: libc::sigaction = std::mem::zeroed();
            ours.sa_sigaction = on_fatal_signal as *const () as usize;
            ours.sa_flags = libc::SA_SIGINFO | libc::SA_ONSTACK;
            libc::sigemptyset(&mut ours.sa_mask);
            let mut previous: libc::sigaction = std::mem::zeroed();
            libc::sigaction(signal, &ours, &mut previous);
            previous
        })
    });
}

extern "C" fn on_fatal_signal(signal: c_int, info: *mut siginfo_t, context: *mut c_void) {
    let watch = WATCH.try_with(Cell::get).unwrap_or(UNWATCHED);
    // SAFETY: PyGILState_Check only reads this thread's thread state.
    if watch.crashed.is_null() || unsafe { pyo3::ffi::PyGILState_Check() } == 1 {
        forward(signal, info, context);
        return;
    }
    // SAFETY: the budget outlives the watch (see `watched`); madvise and pause are async-signal-safe, and
    // nothing runs on the released part of the stack again.
    unsafe {
        (*watch.crashed).store(signal, Ordering::SeqCst);
        if watch.release_len > 0 {
            libc::madvise(watch.release_from as *mut c_void, watch.release_len, libc::MADV_DONTNEED);
        }
        loop {
            libc::pause();
        }
    }
}

/// Hand the signal to the handler that was there before ours, or to the default action.
fn forward(signal: c_int, info: *mut siginfo_t, context: *mut c_void) {
    let index = FATAL_SIGNALS.iter().position(|&s| s == signal).unwrap_or(0);
    // SAFETY: `PREVIOUS` is set before our handler is installed; the calls mirror what the kernel would do.
    unsafe {
        if let Some(previous) = PREVIOUS.get().map(|all| all[index]) {
            let handler = previous.sa_sigaction;
            if handler != libc::SIG_DFL && handler != libc::SIG_IGN {
                if previous.sa_flags & libc::SA_SIGINFO != 0 {
                    let f: extern "C" fn(c_int, *mut siginfo_t, *mut c_void) = std::mem::transmute(handler);
                    f(signal, info, context);
                } else {
                    let f: extern "C" fn(c_int) = std::mem::transmute(handler);
                    f(signal);
                }
            }
        }
        // Still here: let the default action end the process, as it would have without us.
        let mut default: libc::sigaction = std::mem::zeroed();
        default.sa_sigaction = libc::SIG_DFL;
        libc::sigemptyset(&mut default.sa_mask);
        libc::sigaction(signal, &default, ptr::null_mut());
        libc::raise(signal);
    }
}

/// An alternate signal stack for the current thread, removed on drop.
struct AltStack {
    base: *mut c_void,
}

impl AltStack {
    fn new() -> Option<Self> {
        // SAFETY: a fresh private mapping, registered for this thread only.
        unsafe {
            let base = libc::mmap(
                ptr::null_mut(),
                ALT_STACK_BYTES,
                libc::PROT_READ | libc::PROT_WRITE,
                libc::MAP_PRIVATE | libc::MAP_ANONYMOUS,
                -1,
                0,
            );
            if base == libc::MAP_FAILED {
                return None;
            }
            let stack = libc::stack_t { ss_sp: base, ss_flags: 0, ss_size: ALT_STACK_BYTES };
            if libc::sigaltstack(&stack, ptr::null_mut()) != 0 {
                libc::munmap(base, ALT_STACK_BYTES);
                return None;
            }
            Some(Self { base })
        }
    }
}

impl Drop for AltStack {
    fn drop(&mut self) {
        // SAFETY: we are not on the alternate stack (no handler returns), so it can go.
        unsafe {
            let disable = libc::stack_t { ss_sp: ptr::null_mut(), ss_flags: libc::SS_DISABLE, ss_size: 0 };
            libc::sigaltstack(&disable, ptr::null_mut());
            libc::munmap(self.base, ALT_STACK_BYTES);
        }
    }
}

/// The current thread's stack, lowest address first.
fn stack_bounds() -> Option<(usize, usize)> {
    // SAFETY: pthread_getattr_np fills `attr`, which is destroyed after use.
    unsafe {
        let mut attr: libc::pthread_attr_t = std::mem::zeroed();
        if libc::pthread_getattr_np(libc::pthread_self(), &mut attr) != 0 {
            return None;
        }
        let mut low: *mut c_void = ptr::null_mut();
        let mut size: libc::size_t = 0;
        let found = libc::pthread_attr_getstack(&attr, &mut low, &mut size) == 0;
        libc::pthread_attr_destroy(&mut attr);
        found.then_some((low as usize, size))
    }
}

/// Run `f` (a worker thread's whole life) with fatal signals on this thread recorded in `crashed` instead
/// of ending the process.
pub fn watched<R>(crashed: &AtomicI32, f: impl FnOnce() -> R) -> R {
    install();
    let _alt_stack = AltStack::new();
    let page = 4096;
    let (release_from, release_len) = match stack_bounds() {
        Some((low, size)) if size > KEEP_TOP_BYTES + page => {
            let from = (low + page - 1) & !(page - 1);
            let to = (low + size - KEEP_TOP_BYTES) & !(page - 1);
            (from, to.saturating_sub(from))
        }
        _ => (0, 0),
    };
    struct Unwatch;
    impl Drop for Unwatch {
        fn drop(&mut self) {
            let _ = WATCH.try_with(|watch| watch.set(UNWATCHED));
        }
    }
    WATCH.with(|watch| watch.set(Watch { crashed, release_from, release_len }));
    let _unwatch = Unwatch;
    f()
}

/// What the waiting caller tells the user when the worker stopped on `signal`.
pub fn crash_message(signal: i32) -> String {
    let what = match signal {
        libc::SIGSEGV | libc::SIGBUS => {
            "overflowed the VM's native stack or hit a fault in it (e.g. a very deep chain of nested native calls)"
        }
        libc::SIGABRT => "made the VM abort (most likely an allocation it could not make, past the memory limit)",
        _ => "made the VM fail fatally",
    };
    format!(
        "the sandbox code {what} (signal {signal}); the sandbox's thread was stopped and the session abandoned: \
         its variables are lost and the host process is unaffected. Create a new interpreter, and avoid the \
         construct that caused it"
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::{Duration, Instant};

    fn parks_the_thread(fault: fn()) -> i32 {
        pyo3::Python::initialize(); // the handler asks whether the thread holds the GIL
        let crashed: &'static AtomicI32 = Box::leak(Box::new(AtomicI32::new(0)));
        // Never joined: the thread stays parked in the handler, as a crashed worker does.
        let _ = std::thread::Builder::new().stack_size(1 << 20).spawn(move || watched(crashed, fault));
        let deadline = Instant::now() + Duration::from_secs(10);
        while crashed.load(Ordering::SeqCst) == 0 && Instant::now() < deadline {
            std::thread::sleep(Duration::from_millis(1));
        }
        crashed.load(Ordering::SeqCst)
    }

    #[allow(unconditional_recursion)]
    #[inline(never)]
    fn recurse(depth: u64) -> u64 {
        let frame = std::hint::black_box([depth; 32]);
        recurse(depth + 1).wrapping_add(frame[(depth % 32) as usize])
    }

    #[test]
    fn a_stack_overflow_on_a_watched_thread_parks_it_and_is_recorded() {
        assert_eq!(parks_the_thread(|| { std::hint::black_box(recurse(0)); }), libc::SIGSEGV);
    }

    #[test]
    fn an_abort_on_a_watched_thread_parks_it_and_is_recorded() {
        assert_eq!(parks_the_thread(|| std::process::abort()), libc::SIGABRT);
    }
}
