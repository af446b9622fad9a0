//! The zygote: one process per host process, started by the host as `python -I -S -c <loader>` (see
//! `dspy_rust_interpreter/_zygote.py`), which loads this extension module by its file path and calls
//! `serve_zygote` with its control socket. A thread with a deep stack builds and prepares a VM once, then
//! forks a session process per `Spawn` request: each session starts from a copy-on-write image with the VM
//! ready and common modules imported, and no session ever sees another's memory.
//!
//! The zygote is its own process group (the host starts it in a new session): when its control socket
//! ends (the host is gone), it ends the whole group, sessions stuck in native code included.

use std::os::fd::{AsRawFd, OwnedFd, RawFd};

use pyo3::prelude::*;
use rustpython_vm::VirtualMachine;

use crate::protocol::channel::Channel;
use crate::protocol::files::FilesOptions;
use crate::protocol::message::{ToHost, ToSession};
use crate::protocol::options::SessionOptions;
use crate::sandbox::vm::namespace::Namespace;
use crate::sandbox::{self, prepare};
use crate::worker::{confine, monitor, session};

/// Deep recursion in RustPython uses native stack; the VM thread reserves plenty (reserved, not used).
const VM_STACK_BYTES: usize = 256 * 1024 * 1024;
/// Imported before any session starts, so that a session's first `import json` is a lookup. Nothing that
/// seeds itself at import (`random`): every session would start with the same seed.
const PRELOADED: &[&str] = &["json", "re", "math", "collections"];
/// Imported once the zygote has forked a session and then had nothing to do for `IDLE_BEFORE_PRELOAD`: too
/// slow for every cold start (asyncio: ~0.16 s), but every later session then finds it imported.
/// `_sandbox_traceback` writes each error report's frames (it imports `traceback`, ~45-70 ms): without it
/// here every session would pay that on its first error.
const PRELOADED_WHEN_IDLE: &[&str] = &["asyncio", "_sandbox_traceback"];
const IDLE_BEFORE_PRELOAD: std::time::Duration = std::time::Duration::from_secs(1);
/// How long the zygote waits, after serving a `Spawn` that came alone, for no other request before it forks
/// the next standby. Forked at once, its fork (~0.8 ms of copying page tables) and set-up would run beside the
/// session just handed over, on two cores, while the host waits for that session: at RLM's pace (a session
/// every 50 ms) the wait makes a new session with tools markedly quicker.
const QUIET_BEFORE_STANDBY: std::time::Duration = std::time::Duration::from_millis(10);
/// A `Spawn` this soon after the last one is part of a burst (sessions made back to back, a pool filling): the
/// next standby is forked at once, as it then is ready sooner than any wait would let it be.
const BURST_GAP: std::time::Duration = std::time::Duration::from_millis(20);
/// A control frame is a `Spawn` with its options.
const MAX_CONTROL_FRAME: usize = 1 << 20;

/// The zygote's entry point, called by the loader with the control socket's descriptor. Returns when the
/// host is gone, after ending every session of this zygote.
/// `tzdata_dir` is the folder of the host's `tzdata` package, when it has one (see `sandbox::zygote_data::tzdata`);
/// `packages` the manifest of a package set's files, for that set's zygote (see `sandbox::zygote_data::bundle`).
#[pyfunction]
#[pyo3(signature = (control_fd, tzdata_dir=None, packages=None))]
pub fn serve_zygote(
    py: Python<'_>,
    control_fd: RawFd,
    tzdata_dir: Option<std::path::PathBuf>,
    packages: Option<std::path::PathBuf>,
) -> PyResult<()> {
    // SAFETY: the loader hands over this descriptor, which nothing else in the process uses.
    let control = unsafe { Channel::from_raw(control_fd) };
    // Read before the zygote is confined (and before its VM exists, so a failure costs nothing but the data).
    let tzdata =
        tzdata_dir.as_deref().filter(|dir| !dir.as_os_str().is_empty()).and_then(sandbox::zygote_data::tzdata::read);
    let mut bundle = packages
        .as_deref()
        .map(sandbox::zygote_data::bundle::read)
        .transpose()
        .map_err(pyo3::exceptions::PyOSError::new_err)?;
    // Compiled packages are CPython's: imported here, on CPython's main thread, before anything is forked.
    let mut cpython_tops = bundle.as_mut().map(|b| std::mem::take(&mut b.cpython)).unwrap_or_default();
    // CPython's `zoneinfo` reads the host's `tzdata` package where it cannot read the system's zone files (a session
    // cannot): pandas' and dateutil's time zones need it.
    if let (false, Some(dir)) = (cpython_tops.is_empty(), tzdata_dir.as_ref().filter(|d| !d.as_os_str().is_empty())) {
        if !cpython_tops.iter().any(|(name, _)| name == "tzdata") {
            cpython_tops.push(("tzdata".to_owned(), dir.clone()));
        }
    }
    if let (false, Some(manifest)) = (cpython_tops.is_empty(), packages.as_deref()) {
        let config = manifest.parent().unwrap_or(std::path::Path::new("/")).join("cpython-config");
        let _ = std::fs::create_dir_all(&config);
        sandbox::cpython::zygote::prepare(py, &cpython_tops, &config)?;
    }
    let served = py.detach(move || {
        std::thread::Builder::new()
            .name("zygote".into())
            .stack_size(VM_STACK_BYTES)
            .spawn(move || {
                let serve = || crate::memory::counted_on(&crate::memory::SESSION, || serve(control, tzdata, bundle));
                // With the packages' CPython, the VM thread holds CPython's lock for the zygote's life, and so
                // for each session's (it is the thread every session continues on).
                if sandbox::cpython::active() {
                    Python::attach(|_| serve())
                } else {
                    serve()
                }
            })
            .map(|thread| thread.join())
    });
    // SAFETY: signals this process group: the zygote and its sessions.
    unsafe { libc::kill(0, libc::SIGKILL) };
    served.map(drop).map_err(|e| pyo3::exceptions::PyOSError::new_err(e.to_string()))
}

fn serve(
    control: Channel,
    tzdata: Option<sandbox::zygote_data::tzdata::Data>,
    bundle: Option<sandbox::zygote_data::bundle::Bundle>,
) {
    // SAFETY: process-wide settings of the zygote, inherited by every session: children are reaped by the
    // kernel (no zombies), and checkpoints orphaned by a killed session are adopted here, not by init.
    unsafe {
        libc::signal(libc::SIGCHLD, libc::SIG_IGN);
        libc::prctl(libc::PR_SET_CHILD_SUBREAPER, 1);
        // Large blocks always get fresh pages: glibc would otherwise raise this threshold after the first
        // large free and serve large blocks from heap pages a checkpoint shares, so that filling one costs a
        // copy-on-write copy of every page instead of a zero-filled one.
        libc::mallopt(libc::M_MMAP_THRESHOLD, 1 << 20);
    }
    let (signals, receiver) = rustpython_vm::signal::user_signal_channel();
    let interpreter = prepare::new_interpreter(receiver);
    interpreter.enter(|vm| {
        // Huge pages before forking (`memory::Collapser`) cost the plain zygote milliseconds that would be its
        // first session's latency: it waits for the first idle second, as the idle preload does. A package set's
        // zygote has just spent seconds importing, and its sessions fork a far larger heap: it collapses now.
        let collapse_now = bundle.is_some();
        let prepared = prepare(vm, tzdata, bundle).and_then(|namespace| {
            sandbox::cpython::zygote::connect(vm).map(|()| namespace).map_err(|exc| {
                let report = crate::sandbox::vm::errors::exception_report(vm, &exc, |_, _| None);
                format!("{}: {}", report.type_name, report.message)
            })
        });
        // The Unicode tables of the regex automata (~1 ms from the ICU data's ranges): every session finds them.
        crate::sandbox::library::re::warm();
        let filters = confine::session_filters().map_err(|e| e.to_string());
        let interrupts = monitor::install_interrupt_handler().map_err(|e| e.to_string());
        let data_bytes = data_bytes();
        let collapser = crate::memory::Collapser::open();
        if let (true, Some(collapser)) = (collapse_now, &collapser) {
            collapser.collapse_for_forks();
        }
        // Prepared: from here the zygote opens no file and reaches nothing outside its sockets. Code it ran
        // (its packages', imported above) that runs again by any route meets the zygote's filter, and every
        // session starts behind it too. A zygote whose filter cannot be installed serves no session.
        let prepared = prepared.and_then(|namespace| match confine::SYSTEM_CALL_FILTER {
            false => Ok(namespace),
            true => confine::zygote_filter()
                .and_then(|filter| seccompiler::apply_filter(&filter).map_err(|e| std::io::Error::other(e.to_string())))
                .map(|()| namespace)
                .map_err(|e| format!("the zygote could not confine itself: {e}")),
        });
        let mut idle_preload_done = false;
        // When the last `Spawn` was served (none yet: nothing forked).
        let mut last_spawn: Option<std::time::Instant> = None;
        let mut standby: Option<Standby> = None;
        // Keys of the digests a zygote with CPython knows its standby's request by.
        let digests = Digest::keys();
        loop {
            if last_spawn.is_some()
                && !idle_preload_done
                && !control.readable_within(IDLE_BEFORE_PRELOAD).unwrap_or(true)
            {
                idle_preload_done = true;
                let _ = prepare::preload(vm, PRELOADED_WHEN_IDLE);
                if let Some(collapser) = &collapser {
                    collapser.collapse_for_forks();
                }
                // The standby was forked before all that: its sessions would not find it.
                standby = standby.take().and_then(|old| {
                    let frame = old.discard()?;
                    let Ok(ToSession::Spawn { options, files, .. }) = ToSession::decode(&frame) else { return None };
                    let (Ok(namespace), Ok(filters)) = (&prepared, &filters) else { return None };
                    Standby::fork(vm, frame, session_start(namespace, options, files, filters, data_bytes, &signals))
                });
            }
            let Ok((frame, mut fds)) = control.recv(MAX_CONTROL_FRAME) else { return };
            if sandbox::cpython::active() {
                if let (Ok(namespace), Ok(filters), Ok(()), Some(socket)) =
                    (&prepared, &filters, &interrupts, fds.pop())
                {
                    let mut frame = frame;
                    let start = || Decoded { namespace, filters, data_bytes, signals: &signals };
                    let digest = Digest::of(&digests, &frame);
                    let burst = last_spawn.is_some_and(|last| last.elapsed() < BURST_GAP);
                    last_spawn = Some(std::time::Instant::now());
                    let socket = match standby.take() {
                        Some(ready) if ready.made_for == MadeFor::Digest(digest) => ready.hand_over(socket),
                        other => {
                            other.map(Standby::discard);
                            Some(socket)
                        }
                    };
                    if let Some(socket) = socket {
                        let link = session::Link::Socket(socket);
                        if spawn_decoding_in_child(vm, &frame, link, start()).is_none() {
                            zero(&mut frame);
                            continue;
                        }
                    }
                    let quiet = if burst { std::time::Duration::ZERO } else { QUIET_BEFORE_STANDBY };
                    if !control.readable_within(quiet).unwrap_or(true) {
                        standby = Standby::fork_decoding(vm, &frame, digest, start());
                    }
                    zero(&mut frame);
                    continue;
                }
                // Not ready: the refusal below says why.
            }
            let (Ok(ToSession::Spawn { options, files, stand_ins }), Some(socket)) =
                (ToSession::decode(&frame), fds.pop())
            else {
                continue;
            };
            let ready = match (&prepared, &filters, &interrupts) {
                (Ok(namespace), Ok(filters), Ok(())) => Ok((namespace, filters)),
                (Err(e), _, _) | (_, Err(e), _) | (_, _, Err(e)) => Err(e.clone()),
            };
            let (namespace, filters) = match ready {
                Ok(ready) => ready,
                Err(reason) => {
                    let refusal = ToHost::Failed(format!("the sandbox could not be prepared: {reason}")).encode();
                    let _ = Channel::from_owned(socket).send(&refusal, &[]);
                    continue;
                }
            };
            let burst = last_spawn.is_some_and(|last| last.elapsed() < BURST_GAP);
            last_spawn = Some(std::time::Instant::now());
            let socket = match standby.take() {
                Some(ready) if ready.made_for.is_frame(&frame) => ready.hand_over(socket),
                other => {
                    other.map(Standby::discard);
                    Some(socket)
                }
            };
            sandbox::bridge::tools::prepare_stand_ins(vm, stand_ins);
            if let Some(socket) = socket {
                let start = session_start(namespace, options.clone(), files.clone(), filters, data_bytes, &signals);
                if fork_session(vm, start, session::Link::Socket(socket)).is_none() {
                    continue; // the socket went with the refusal
                }
            }
            // The next `Spawn` is most likely this one again (RLM makes a new interpreter per call, with the
            // same options and tools): a session process for it gets ready, at once in a burst, otherwise once
            // no other request came for a moment (one that comes is served first).
            let quiet = if burst { std::time::Duration::ZERO } else { QUIET_BEFORE_STANDBY };
            if !control.readable_within(quiet).unwrap_or(true) {
                standby =
                    Standby::fork(vm, frame, session_start(namespace, options, files, filters, data_bytes, &signals));
            }
        }
    });
}

/// What a session forked by `spawn_decoding_in_child` starts from.
struct Decoded<'a> {
    namespace: &'a Namespace,
    filters: &'a [seccompiler::BpfProgram],
    data_bytes: u64,
    signals: &'a rustpython_vm::signal::UserSignalSender,
}

/// A zygote whose sessions have CPython can read their own memory (ctypes reaches it), and each starts with a copy
/// of the zygote's: so the zygote never keeps what one host's interpreter sent. It does not decode the request (its
/// options, files and tools would stay in the heap it forks): the child does, and the zygote zeroes the request's
/// bytes; a standby is known by the request's digest, and no tool stand-in is prepared ahead. The session's pid.
fn spawn_decoding_in_child(
    vm: &VirtualMachine,
    frame: &[u8],
    link: session::Link,
    start: Decoded<'_>,
) -> Option<libc::pid_t> {
    // SAFETY: a plain system call: the zygote's own pid (the session's parent), taken before the fork.
    let zygote = unsafe { libc::getpid() };
    fork_session_made_in_child(vm, link, || {
        let Ok(ToSession::Spawn { options, files, stand_ins: _ }) = ToSession::decode(frame) else { return None };
        let Decoded { namespace, filters, data_bytes, signals } = start;
        let signals = signals.clone();
        Some(session::Start { namespace, options, files, filters, data_bytes, signals, zygote })
    })
}

/// Zero a request's bytes (a zygote with CPython keeps none).
fn zero(frame: &mut [u8]) {
    for byte in frame.iter_mut() {
        // SAFETY: a byte of our own buffer; volatile, so the zeroing is not removed as a dead store.
        unsafe { std::ptr::write_volatile(byte, 0) };
    }
}

/// A request's digest: two keyed SipHash values (keys drawn once per zygote), so a standby is handed only the
/// socket of a request with the same bytes, and the zygote holds nothing of what the request said.
#[derive(Clone, Copy, PartialEq, Eq)]
struct Digest(u64, u64);

impl Digest {
    fn keys() -> [std::collections::hash_map::RandomState; 2] {
        [std::collections::hash_map::RandomState::new(), std::collections::hash_map::RandomState::new()]
    }

    fn of(keys: &[std::collections::hash_map::RandomState; 2], frame: &[u8]) -> Digest {
        use std::hash::BuildHasher;
        Digest(keys[0].hash_one(frame), keys[1].hash_one(frame))
    }
}

fn session_start<'a>(
    namespace: &'a Namespace,
    options: SessionOptions,
    files: FilesOptions,
    filters: &'a [seccompiler::BpfProgram],
    data_bytes: u64,
    signals: &rustpython_vm::signal::UserSignalSender,
) -> session::Start<'a> {
    // SAFETY: a plain system call: the zygote's own pid, which its forks inherit as their parent's.
    let zygote = unsafe { libc::getpid() };
    session::Start { namespace, options, files, filters, data_bytes, signals: signals.clone(), zygote }
}

/// Fork a session process that starts with `start` and finds its socket by `link`; its pid, or None when the
/// fork failed (a `Link::Socket`'s host is then told so).
fn fork_session(vm: &VirtualMachine, start: session::Start<'_>, link: session::Link) -> Option<libc::pid_t> {
    fork_session_made_in_child(vm, link, || Some(start))
}

/// Fork a session process whose start `start` makes in the child (None: the child ends, not a session); its pid,
/// or None when the fork failed (a `Link::Socket`'s host is then told so).
fn fork_session_made_in_child<'a>(
    vm: &VirtualMachine,
    link: session::Link,
    start: impl FnOnce() -> Option<session::Start<'a>>,
) -> Option<libc::pid_t> {
    sandbox::cpython::zygote::before_fork();
    // SAFETY: this thread is the only one that runs Rust here (the main thread waits in CPython for it); the
    // child continues on this thread, with the VM, and never returns into the zygote's loop.
    let pid = unsafe { libc::fork() };
    if pid == 0 {
        if matches!(link, session::Link::Standby(_)) {
            // A standby is in a group of its own from its first instruction (the parent sets it too, `made`):
            // between the fork and the parent's call, the zygote's group, which a session's end kills, held it.
            // SAFETY: async-signal-safe, on this process itself.
            unsafe { libc::setpgid(0, 0) };
        }
        sandbox::cpython::zygote::after_fork_child();
        let begin = || {
            if let Some(start) = start() {
                session::begin(vm, start, link)
            }
        };
        let _ = std::panic::catch_unwind(std::panic::AssertUnwindSafe(begin));
        // SAFETY: a child that could not become a session ends here, never in the zygote's loop.
        unsafe { libc::_exit(4) }
    }
    sandbox::cpython::zygote::after_fork_parent();
    if pid == -1 {
        if let session::Link::Socket(socket) = link {
            let refusal = ToHost::Failed("the zygote could not fork a session process".into()).encode();
            let _ = Channel::from_owned(socket).send(&refusal, &[]);
        }
        return None;
    }
    Some(pid)
}

/// A session process forked ahead for the `Spawn` the zygote last served, confined and set up, waiting for
/// the socket of the next `Spawn` with the same bytes (a new session then costs what a pool's does: no fork,
/// no set-up, on its path). Another `Spawn` discards it. It holds no more than an idle session (one process,
/// copy-on-write pages of the zygote), the zygote keeps one at most, and it ends with the zygote (its
/// parent-death signal). Until it serves, it is in a process group of its own: the host tells whether a
/// zygote serves anyone by its group (`_zygote._group_has_others`).
struct Standby {
    pid: libc::pid_t,
    /// The `Spawn` it was made for.
    made_for: MadeFor,
    /// The zygote's end of the pair the standby waits on.
    zygote: Channel,
}

/// What a standby was made for: the request itself, or, in a zygote with CPython (which keeps no request), a
/// digest of it (`Digest`).
#[derive(PartialEq, Eq)]
enum MadeFor {
    Frame(Vec<u8>),
    Digest(Digest),
}

impl MadeFor {
    fn is_frame(&self, frame: &[u8]) -> bool {
        matches!(self, MadeFor::Frame(made_for) if made_for == frame)
    }
}

impl Standby {
    fn fork(vm: &VirtualMachine, frame: Vec<u8>, start: session::Start<'_>) -> Option<Standby> {
        let (zygote, standby) = Channel::pair().ok()?;
        let pid = fork_session(vm, start, session::Link::Standby(standby.into_fd()))?;
        Some(Standby::made(pid, MadeFor::Frame(frame), zygote))
    }

    /// A standby whose child decodes `frame` itself (`spawn_decoding_in_child`), known by the frame's digest.
    fn fork_decoding(vm: &VirtualMachine, frame: &[u8], digest: Digest, start: Decoded<'_>) -> Option<Standby> {
        let (zygote, standby) = Channel::pair().ok()?;
        let pid = spawn_decoding_in_child(vm, frame, session::Link::Standby(standby.into_fd()), start)?;
        Some(Standby::made(pid, MadeFor::Digest(digest), zygote))
    }

    fn made(pid: libc::pid_t, made_for: MadeFor, zygote: Channel) -> Standby {
        // Both ends set the group, so it holds whichever runs first (the child: `fork_session_made_in_child`).
        // SAFETY: our child, which has not run anything but the sandbox's own set-up (it never execs).
        unsafe { libc::setpgid(pid, pid) };
        Standby { pid, made_for, zygote }
    }

    /// Send it the session's socket; the socket back when it could not take it (it is gone).
    fn hand_over(self, socket: OwnedFd) -> Option<OwnedFd> {
        // SAFETY: our child (a pid the zygote has not seen end: if it had, no other process would be its
        // child with that pid, and this fails harmlessly), back into the zygote's group, which ends with it.
        unsafe { libc::setpgid(self.pid, libc::getpgrp()) };
        match self.zygote.send(b"go", &[socket.as_raw_fd()]) {
            Ok(()) => None,
            Err(_) => {
                self.discard();
                Some(socket)
            }
        }
    }

    /// Let it go (it never served anyone): closing this end is its end of file, and it exits.
    fn discard(self) -> Option<Vec<u8>> {
        match self.made_for {
            MadeFor::Frame(frame) => Some(frame),
            MadeFor::Digest(_) => None,
        }
    }
}

fn prepare(
    vm: &rustpython_vm::VirtualMachine,
    tzdata: Option<sandbox::zygote_data::tzdata::Data>,
    bundle: Option<sandbox::zygote_data::bundle::Bundle>,
) -> Result<Namespace, String> {
    let reported = |exc| {
        let report = crate::sandbox::vm::errors::exception_report(vm, &exc, |_, _| None);
        format!("{}: {}", report.type_name, report.message)
    };
    // Before anything can open a database (a package's import may): SQLite takes a new allocator only then.
    crate::memory::sqlite::route_through_budget()?;
    let namespace = prepare::prepare(vm).map_err(reported)?;
    if let Some(data) = tzdata {
        sandbox::zygote_data::tzdata::install(vm, data).map_err(reported)?;
    }
    if let Some(bundle) = bundle {
        sandbox::zygote_data::bundle::install(vm, bundle).map_err(reported)?;
    }
    prepare::preload(vm, PRELOADED)?;
    // Last: what preparing left for the collector is collected once, and from here collections wait for a safe
    // point (`sandbox::vm::gc`).
    vm.state.gc.collect(2);
    sandbox::vm::gc::install(vm).map_err(reported)?;
    Ok(namespace)
}

/// The process's data size (`VmData`), which its sessions' data ceiling starts from.
fn data_bytes() -> u64 {
    std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|status| {
            let line = status.lines().find(|l| l.starts_with("VmData:"))?;
            let kib: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
            Some(kib * 1024)
        })
        .unwrap_or(1 << 30)
}
