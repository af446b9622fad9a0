//! A session process's life, from the zygote's fork to its exit: confine the process, answer `Ready`,
//! then serve the host's requests on the session socket. When a checkpoint is due (see `host::journal`)
//! the process forks a frozen copy of itself, which waits on a socket of its own for `Resume`; `Fork`
//! makes a live copy. The process exits on `Shutdown`, on end-of-file (the host let go or died), and
//! on anything it cannot read: the host is its only peer.

use std::cell::RefCell;
use std::os::fd::{AsRawFd, OwnedFd, RawFd};
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::time::{Duration, Instant};

use rustpython_vm::signal::UserSignalSender;
use rustpython_vm::VirtualMachine;
use seccompiler::BpfProgram;

use crate::protocol::channel::Channel;
use crate::protocol::files::FilesOptions;
use crate::protocol::files::{FileAnswer, FileOp};
#[cfg(feature = "fault-injection")]
use crate::protocol::message::FaultPlace;
use crate::protocol::message::REPLAY_BUDGET;
use crate::protocol::message::{Outcome, ToHost, ToSession, ToolResult};
use crate::protocol::options::SessionOptions;
use crate::protocol::value::Value;
use crate::sandbox::bridge::host::{self, Host};
use crate::sandbox::bridge::values::KeptValues;
use crate::sandbox::vm::limits::Shared;
use crate::sandbox::vm::namespace::Namespace;
use crate::worker::run::{self, Cells};
use crate::worker::{confine, fault, monitor};

/// A due checkpoint waits for a quiet moment at most this many runs.
const FORCE_CHECKPOINT_AFTER: u32 = 64;

/// How long the VM thread looks for the host's next message before it sleeps.
const SPIN: Duration = Duration::from_micros(150);

#[derive(PartialEq, Eq)]
enum Spin {
    Briefly,
    Never,
}

/// The host is trusted by the session process: its frames are bounded only by what the process can hold.
const MAX_REQUEST_BYTES: usize = 1 << 40;

thread_local! {
    /// The VM thread's socket to the host (replaced in a checkpoint or fork, which has its own).
    static LINK: RefCell<Option<Channel>> = const { RefCell::new(None) };
}

/// Exit codes, for whoever reads them in a debugger: the host learns what happened from the socket.
const EXIT_DONE: i32 = 0;
const EXIT_PROTOCOL: i32 = 3;
const EXIT_SETUP: i32 = 4;

fn exit(code: i32) -> ! {
    // SAFETY: ends the process at once, without unwinding or running the VM's finalizers: nothing of a
    // session outlives its process.
    unsafe { libc::_exit(code) }
}

fn send(reply: &ToHost, fds: &[RawFd]) {
    let frame = reply.encode();
    let sent = LINK.with(|link| link.borrow().as_ref().map(|c| c.send(&frame, fds)));
    if !matches!(sent, Some(Ok(()))) {
        exit(EXIT_DONE); // the host is gone
    }
}

/// The next request. `Spin::Briefly` when the host usually answers within microseconds (a tool result, the
/// next run): looking before sleeping saves both sides a wake-up. A frozen checkpoint just sleeps.
fn receive(spin: Spin) -> (ToSession, Vec<OwnedFd>) {
    let received = LINK.with(|link| {
        link.borrow().as_ref().map(|c| {
            if spin == Spin::Briefly {
                c.readable_spinning(SPIN);
            }
            c.recv_trusted(MAX_REQUEST_BYTES)
        })
    });
    let (frame, fds) = match received {
        Some(Ok(received)) => received,
        _ => exit(EXIT_DONE), // end-of-file: the host let go of this process
    };
    match ToSession::decode_frame(&frame) {
        Ok(request) => (request, fds),
        Err(_) => exit(EXIT_PROTOCOL),
    }
}

/// Serve the session on `socket` from now on, and report faults there.
fn use_link(socket: Channel) {
    let _ = fault::install(socket.as_raw_fd());
    LINK.with(|link| *link.borrow_mut() = Some(socket));
}

/// The sandbox's host, over the session socket: each call is a reply to the host's request, answered by the
/// host's next request (a `Shutdown` instead ends the process; anything else is a protocol error).
struct SocketHost;

impl Host for SocketHost {
    fn call_tool(&self, name: &str, args: Vec<Value>, kwargs: Vec<(String, Value)>) -> (ToolResult, Duration) {
        send(&ToHost::ToolCall { name: name.to_owned(), args, kwargs }, &[]);
        match receive(Spin::Briefly) {
            (ToSession::ToolResult(result, own), _) => (result, Duration::from_nanos(own)),
            (ToSession::Shutdown, _) => exit(EXIT_DONE),
            _ => exit(EXIT_PROTOCOL),
        }
    }

    fn start_tool(&self, name: &str, args: Vec<Value>, kwargs: Vec<(String, Value)>) -> u64 {
        static NEXT_CALL: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(1);
        let call_id = NEXT_CALL.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        send(&ToHost::ToolStart { call_id, name: name.to_owned(), args, kwargs }, &[]);
        call_id
    }

    fn wait_tools(&self, timeout: Option<f64>) -> Vec<(u64, ToolResult)> {
        send(&ToHost::Wait { timeout }, &[]);
        match receive(Spin::Briefly) {
            (ToSession::Woken(results), _) => results,
            (ToSession::Shutdown, _) => exit(EXIT_DONE),
            _ => exit(EXIT_PROTOCOL),
        }
    }

    fn pull_stream(&self, tool: &str, stream: u64, close: bool) -> (ToolResult, Duration) {
        send(&ToHost::StreamPull { tool: tool.to_owned(), stream, close }, &[]);
        match receive(Spin::Briefly) {
            (ToSession::ToolResult(result, own), _) => (result, Duration::from_nanos(own)),
            (ToSession::Shutdown, _) => exit(EXIT_DONE),
            _ => exit(EXIT_PROTOCOL),
        }
    }

    fn file_op(&self, op: FileOp) -> FileAnswer {
        send(&ToHost::FileOp(op), &[]);
        match receive(Spin::Briefly) {
            (ToSession::FileAnswer(answer), _) => answer,
            (ToSession::Shutdown, _) => exit(EXIT_DONE),
            _ => exit(EXIT_PROTOCOL),
        }
    }
}

/// What a new session process takes from the zygote.
pub struct Start<'a> {
    pub namespace: &'a Namespace,
    pub options: SessionOptions,
    pub files: FilesOptions,
    pub filters: &'a [BpfProgram],
    /// The data size of the zygote once its VM was prepared (the base of the session's data ceiling; what the
    /// zygote adds later, its idle preload, comes out of the ceiling's headroom).
    pub data_bytes: u64,
    pub signals: UserSignalSender,
    /// The zygote's pid, which the session is tied to (`confine::tie_to_parent`).
    pub zygote: libc::pid_t,
}

/// Where a new session process finds the host's socket.
pub enum Link {
    /// The socket itself: the zygote forked this process for a `Spawn` it has.
    Socket(OwnedFd),
    /// The zygote's end of a standby: this process gets ready before any `Spawn` asks for it, and the zygote
    /// sends the socket of the one that does down this pair (see `worker::zygote`).
    Standby(OwnedFd),
}

/// The zygote's child becomes a session; never returns. Everything up to `Ready` that needs no socket (the
/// confinement, the limits, the options' preloads and files) is done first, so that a standby has done it
/// before its session is asked for.
pub fn begin(vm: &VirtualMachine, start: Start<'_>, link: Link) -> ! {
    let (Link::Socket(fd) | Link::Standby(fd)) = &link;
    // SAFETY: plain system calls on this process; the zygote's serving thread is this one's parent, and it
    // lives as long as the zygote.
    unsafe {
        libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGKILL);
        close_all_but(fd.as_raw_fd());
    }
    host::install(&SocketHost);
    let session = set_up(vm, start);
    if session.is_ok() {
        start_monitor();
    }
    let socket = match link {
        Link::Socket(socket) => socket,
        Link::Standby(zygote) => {
            let zygote = Channel::from_owned(zygote);
            // A session already asked for is served at once: the rehearsal would only delay it (its faults then
            // fall in the first run, as in a forked session's).
            if let (Ok(session), false) = (&session, zygote.readable_within(Duration::ZERO).unwrap_or(true)) {
                run::rehearse(vm, session);
            }
            socket_from_zygote(zygote)
        }
    };
    use_link(Channel::from_owned(socket));
    match session {
        Ok(session) => {
            announce();
            // No checkpoint yet: until the first one, the host's journal goes back to the session's start,
            // and a rollback starts a new session process from the zygote instead.
            serve(vm, session)
        }
        Err(reason) => {
            send(&ToHost::Failed(reason), &[]);
            exit(EXIT_SETUP)
        }
    }
}

/// A standby's wait for its session: the socket the zygote sends, or the end (the zygote let it go: another
/// kind of session was asked for, or the zygote is gone).
fn socket_from_zygote(zygote: Channel) -> OwnedFd {
    match zygote.recv(16) {
        Ok((_, mut fds)) if fds.len() == 1 => fds.pop().expect("one descriptor"),
        _ => exit(EXIT_DONE),
    }
}

/// Confine the process and make its session; the reason to tell the host when that cannot be done.
fn set_up(vm: &VirtualMachine, start: Start<'_>) -> Result<run::Workspace, String> {
    let Start { namespace, options, files, filters, data_bytes, signals, zygote } = start;
    // The hard edge behind the counting allocator: what the process had, twice the limit, and room for the
    // monitor thread and the allocator's own structures.
    let ceiling = options.memory_limit().map(|limit| data_bytes + 2 * limit as u64 + (256 << 20));
    let confined = |error| format!("the session process could not be confined: {error}");
    let own = confine::own_identity().map_err(confined)?;
    if confine::tie_to_parent(zygote).is_err() {
        // The zygote is gone: the host reads this end of file as a lost zygote and starts another (a `Failed`
        // would read as a refusal of the session's options).
        exit(EXIT_DONE)
    }
    confine::set_limits(ceiling, own).and_then(|()| confine::apply(filters)).map_err(confined)?;
    crate::memory::keep_spare_for(options.memory_limit());
    crate::sandbox::prepare::preload(vm, &options.preload)?;
    let shared = Shared::new(options, signals, &crate::memory::SESSION);
    crate::sandbox::vm::limits::begin_session(shared.clone());
    crate::sandbox::bridge::files::configure(vm, &files).map_err(|exc| {
        let report = crate::sandbox::vm::errors::exception_report(vm, &exc, |_, _| None);
        format!("the session's files could not be set up ({}: {})", report.type_name, report.message)
    })?;
    Ok(run::Workspace {
        namespace: namespace.clone(),
        cells: Cells::default(),
        kept: KeptValues::default(),
        shared,
        stopped: false,
        names_seen: 0,
    })
}

/// Close every descriptor but the session socket (0, 1 and 2 are /dev/null, from the zygote).
unsafe fn close_all_but(keep: RawFd) {
    unsafe {
        if keep > 3 {
            libc::syscall(libc::SYS_close_range, 3u32, (keep - 1) as u32, 0u32);
        }
        libc::syscall(libc::SYS_close_range, (keep + 1) as u32, u32::MAX, 0u32);
    }
}

/// This process serves the session from now on: start its monitor and tell the host.
fn take_over() {
    start_monitor();
    announce();
}

/// The monitor thread, which enforces the limits of each run (a fork has none until it starts one).
fn start_monitor() {
    if monitor::start().is_err() {
        exit(EXIT_SETUP);
    }
}

/// Tell the host this process serves the session, with a pidfd made here (so the host can never signal a
/// recycled pid).
fn announce() {
    // SAFETY: pidfd_open on this process; the descriptor is closed once sent.
    let pidfd = unsafe { libc::syscall(libc::SYS_pidfd_open, libc::getpid(), 0) } as RawFd;
    let pid = std::process::id();
    send(&ToHost::Ready { pid }, if pidfd >= 0 { std::slice::from_ref(&pidfd) } else { &[] });
    if pidfd >= 0 {
        // SAFETY: our own descriptor, sent (the host has its copy).
        unsafe { libc::close(pidfd) };
    }
}

fn serve(vm: &VirtualMachine, mut session: run::Workspace) -> ! {
    #[cfg(feature = "fault-injection")]
    let mut fault: Option<FaultPlace> = None;
    // A checkpoint is due (the host asked, or a run was long), and how many runs it has waited for a quiet
    // moment: it is forked when no request follows a run at once, off the caller's path (an agent waiting
    // for its model leaves plenty), or after FORCE_CHECKPOINT_AFTER runs in a row that left no such moment.
    let mut due: Option<u32> = None;
    // How long the runs since the last checkpoint took (what a rollback would replay, about).
    let mut unsaved = Duration::ZERO;
    loop {
        if due.is_some() && !host_is_waiting() && checkpoint(&mut session) {
            (due, unsaved) = (None, Duration::ZERO);
        }
        match receive(Spin::Briefly).0 {
            ToSession::Execute(request) => {
                let started = Instant::now();
                let asked = request.checkpoint;
                #[cfg(feature = "fault-injection")]
                let place = fault.take();
                let outcome = catch_unwind(AssertUnwindSafe(|| {
                    #[cfg(feature = "fault-injection")]
                    if let Some(place) = place {
                        inject(place);
                    }
                    run::execute(vm, &mut session, *request)
                }));
                // A panic may leave the VM inconsistent: the process ends, the host rolls back.
                let outcome: Outcome = outcome.unwrap_or_else(|_| std::process::abort());
                send(&ToHost::Done(outcome), &[]);
                // Between checkpoints the host journals the runs (see `host::journal`); once they would
                // take long to replay, a checkpoint is due anyway.
                unsaved += started.elapsed();
                if asked || unsaved >= REPLAY_BUDGET {
                    due.get_or_insert(0);
                }
                if let Some(waited) = due.as_mut() {
                    *waited += 1;
                    // A quiet moment is waited for only while a rollback would replay little: runs that took
                    // REPLAY_BUDGET in all get their checkpoint now (a fork costs ~1 ms beside that second),
                    // so no rollback replays much more than REPLAY_BUDGET, whatever the pattern of runs.
                    if (*waited > FORCE_CHECKPOINT_AFTER || unsaved >= REPLAY_BUDGET) && checkpoint(&mut session) {
                        (due, unsaved) = (None, Duration::ZERO);
                    }
                }
            }
            ToSession::Files(command) => {
                let outcome = catch_unwind(AssertUnwindSafe(|| run::files_command(vm, &mut session, command)));
                send(&ToHost::Done(outcome.unwrap_or_else(|_| std::process::abort())), &[]);
            }
            ToSession::Fork => fork_live(&mut session),
            #[cfg(feature = "fault-injection")]
            ToSession::InjectFault(place) => fault = Some(place),
            ToSession::Shutdown => exit(EXIT_DONE),
            ToSession::Spawn { .. }
            | ToSession::Resume
            | ToSession::ToolResult(..)
            | ToSession::Woken(_)
            | ToSession::FileAnswer(_) => exit(EXIT_PROTOCOL),
        }
    }
}

/// Whether the host sends a request within the spin: a checkpoint then waits for a quieter moment.
fn host_is_waiting() -> bool {
    LINK.with(|link| link.borrow().as_ref().is_some_and(|c| c.readable_spinning(SPIN)))
}

#[cfg(feature = "fault-injection")]
fn inject(place: FaultPlace) {
    match place {
        FaultPlace::Panic => panic!("fault injected in the session process"),
        FaultPlace::Abort => std::process::abort(),
        FaultPlace::StackOverflow => {
            std::hint::black_box(overflow_the_stack(0));
        }
    }
}

/// Recurse until the stack runs out (an injected fault).
#[cfg(feature = "fault-injection")]
#[allow(unconditional_recursion)]
#[inline(never)]
fn overflow_the_stack(depth: u64) -> u64 {
    let frame = std::hint::black_box([depth; 64]);
    overflow_the_stack(depth + 1).wrapping_add(frame[(depth % 64) as usize])
}

enum Side {
    /// In the copy, which now serves its own socket.
    Copy,
    /// In this process: the host's end of the copy's socket, to send.
    Original(Channel),
}

/// A copy of this process with a socket of its own.
fn fork_with_socket() -> Option<Side> {
    let (own, handed) = Channel::pair().ok()?;
    // SAFETY: the VM thread forks between runs; the monitor holds nothing the copy uses (the copy starts a
    // monitor of its own), and glibc's fork leaves the allocator usable in the copy.
    match unsafe { libc::fork() } {
        -1 => None,
        0 => {
            drop(handed);
            // Also closes the copy's descriptor of this process's socket, so that the host sees end-of-file
            // when this process dies.
            use_link(own);
            Some(Side::Copy)
        }
        _ => {
            drop(own);
            Some(Side::Original(handed))
        }
    }
}

/// Freeze a copy of the session as it is now and hand its socket to the host; false if the fork failed
/// (it is tried again later; the host keeps journaling meanwhile). The copy waits: `Resume` makes it the
/// live session (it returns into the serve loop), end-of-file ends it.
fn checkpoint(session: &mut run::Workspace) -> bool {
    match fork_with_socket() {
        None => false,
        Some(Side::Original(handed)) => {
            send(&ToHost::Checkpoint, &[handed.as_raw_fd()]);
            true
        }
        Some(Side::Copy) => {
            wait_for_resume(session);
            true
        }
    }
}

/// A frozen copy (checkpoint or fork) waits for `Resume`, then serves: it answers `Ready`, and makes a
/// checkpoint of itself at once (the host's journal is now relative to this process's state).
fn wait_for_resume(session: &mut run::Workspace) {
    match receive(Spin::Never).0 {
        ToSession::Resume => {
            take_over();
            checkpoint(session);
        }
        ToSession::Shutdown => exit(EXIT_DONE),
        _ => exit(EXIT_PROTOCOL),
    }
}

/// `interp.fork()`: a live, independent copy of the session. Like a checkpoint, the copy waits for the
/// host's `Resume` (sent once the host can attest who answers) before it answers `Ready`.
fn fork_live(session: &mut run::Workspace) {
    match fork_with_socket() {
        None => send(&ToHost::Failed("the session process could not be forked".into()), &[]),
        Some(Side::Original(handed)) => send(&ToHost::Forked, &[handed.as_raw_fd()]),
        Some(Side::Copy) => wait_for_resume(session),
    }
}
