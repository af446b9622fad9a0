//! The host's hold on one session process: its socket, its pidfd, and the socket of its latest checkpoint.
//! Starting one from the zygote, resuming a checkpoint in place of a dead one, forking, killing. Everything
//! read from the process is checked: a malformed frame, a frame too large, or a silence mid-frame is that
//! session's fault, never the host's.

use std::io;
use std::os::fd::{AsRawFd, OwnedFd, RawFd};
use std::time::{Duration, Instant};

use parking_lot::Mutex;

use crate::protocol::channel::Channel;
use crate::protocol::files::FilesOptions;
use crate::protocol::message::{spawn_stand_ins, variant_name, ToHost, ToSession, ToolDecl};
use crate::protocol::options::SessionOptions;
use crate::protocol::wire::Encoded;

/// The largest frame the host accepts from a session process...
pub const MAX_REPLY_BYTES: usize = 512 << 20;
/// ...and from one with a memory limit, the limit and this much more (printed output, an error's texts):
/// a session cannot make the host hold a value it could not hold itself.
const REPLY_BEYOND_LIMIT: u64 = 64 << 20;
/// How long a new session process may take to say `Ready` (the zygote may be busy preloading)...
const READY_WITHIN: Duration = Duration::from_secs(30);
/// ...and a frozen copy asked to take over (a checkpoint or a fork's copy answers within milliseconds; it is
/// the session's own process, so it is not waited for long).
const RESUMED_WITHIN: Duration = Duration::from_secs(5);
/// How long the host looks for `Ready` before it sleeps: a standby (`worker::zygote`) or a checkpoint answers
/// within about this, and a sleeping thread's wake-up costs tens of microseconds more (see
/// `Channel::readable_spinning`).
const READY_SPIN: Duration = Duration::from_micros(300);
/// Once a frame has begun, the whole of it must arrive within this, however it trickles in; and a frame
/// sent to a session process must have gone within this (one that stops reading is treated as dead). The
/// host never waits on a session process without a deadline.
const FRAME_WITHIN: Duration = Duration::from_secs(5);

/// Only one `Spawn` at a time goes down the zygote's control socket.
static CONTROL: Mutex<()> = Mutex::new(());

/// Why talking to a process failed.
#[derive(Debug)]
pub enum Failure {
    /// The zygote could not be reached (it is gone and must be started again).
    Zygote(String),
    /// The process said it could not serve (e.g. a preload module the sandbox does not offer).
    Refused(String),
    /// The process died, went silent or broke the protocol.
    Lost(String),
}

impl Failure {
    /// What went wrong, whichever kind it was.
    pub fn into_reason(self) -> String {
        match self {
            Failure::Zygote(reason) | Failure::Refused(reason) | Failure::Lost(reason) => reason,
        }
    }
}

pub struct Process {
    pub link: Channel,
    pidfd: Option<OwnedFd>,
    pub pid: u32,
    /// The largest frame read from it (`max_reply`).
    max_reply: usize,
}

/// The largest frame a session with these options may send the host.
pub fn max_reply(options: &SessionOptions) -> usize {
    let limit = options.memory_limit.map_or(MAX_REPLY_BYTES as u64, |limit| limit.saturating_add(REPLY_BEYOND_LIMIT));
    limit.min(MAX_REPLY_BYTES as u64) as usize
}

impl Process {
    /// Ask the zygote behind `control_fd` for a new session process, with the stand-ins of `stand_ins` made
    /// (see `ToSession::Spawn`).
    pub fn spawn(
        control_fd: RawFd,
        options: &SessionOptions,
        files: FilesOptions,
        stand_ins: Vec<ToolDecl>,
    ) -> Result<Process, Failure> {
        let request =
            ToSession::Spawn { options: options.clone(), files, stand_ins: spawn_stand_ins(stand_ins) }.encode();
        let (link, theirs) = Channel::pair().map_err(|e| Failure::Zygote(e.to_string()))?;
        link.attest_senders().map_err(|e| Failure::Zygote(e.to_string()))?;
        {
            let _one_at_a_time = CONTROL.lock();
            // SAFETY: borrowed for this call only; the Python layer keeps the control socket open.
            let control = std::mem::ManuallyDrop::new(unsafe { Channel::from_raw(control_fd) });
            // Within a deadline: a zygote that stops reading (or a socket that is not a zygote's) must not hold
            // this lock, and every other session's start behind it, for ever.
            control
                .send_by(&request.into_vec(), &[theirs.as_raw_fd()], Instant::now() + FRAME_WITHIN)
                .map_err(|e| Failure::Zygote(format!("the zygote is gone ({e})")))?;
        }
        drop(theirs);
        match Process::take_over(link, max_reply(options), READY_WITHIN) {
            Err(Failure::Lost(reason)) => Err(Failure::Zygote(reason)),
            other => other,
        }
    }

    /// Ask the process waiting on `link` (a checkpoint, or a fork's copy) to take over, and wait for `Ready`.
    pub fn resume(link: Channel, options: &SessionOptions) -> Result<Process, Failure> {
        link.attest_senders().map_err(|e| Failure::Lost(e.to_string()))?;
        link.send_by(&ToSession::Resume.encode().into_vec(), &[], Instant::now() + FRAME_WITHIN)
            .map_err(|e| Failure::Lost(format!("it is gone ({e})")))?;
        Process::take_over(link, max_reply(options), RESUMED_WITHIN)
    }

    /// Wait for the process on `link` to say `Ready` with a pidfd of itself. The host signals and kills
    /// through that pidfd, so it must be the sender's own: the kernel attests who sent the message
    /// (`attest_senders` was set before it was sent), and the pidfd must name that process. A session
    /// process taken over by hostile code cannot make the host kill anything else.
    fn take_over(link: Channel, max_reply: usize, ready_within: Duration) -> Result<Process, Failure> {
        if !link.readable_spinning(READY_SPIN) && !link.readable_within(ready_within).unwrap_or(false) {
            return Err(Failure::Lost("the session process did not start in time".into()));
        }
        let (frame, mut fds, sender) = link.recv_by(max_reply, Instant::now() + FRAME_WITHIN).map_err(lost_reading)?;
        match decode(&frame)? {
            ToHost::Ready { pid } => {
                let pidfd = fds.pop().ok_or_else(|| Failure::Lost("the session process sent no pidfd".into()))?;
                if sender != Some(pid) || pidfd_pid(&pidfd) != Some(pid) {
                    return Err(Failure::Lost("the session process sent a pidfd that is not its own".into()));
                }
                Ok(Process { link, pidfd: Some(pidfd), pid, max_reply })
            }
            ToHost::Failed(reason) => Err(Failure::Refused(reason)),
            other => {
                Err(Failure::Lost(format!("the session process answered {} instead of Ready", variant_name(&other))))
            }
        }
    }

    /// The pidfd, for signals from other threads (shutdown, interrupt).
    pub fn pidfd(&self) -> Option<RawFd> {
        self.pidfd.as_ref().map(AsRawFd::as_raw_fd)
    }

    pub fn send(&self, request: &ToSession) -> Result<(), Failure> {
        send_request(&self.link, &request.encode())
            .map_err(|e| Failure::Lost(format!("the session process is gone ({e})")))
    }

    /// Kill the process now. It cannot outlive this: the pidfd names exactly it.
    pub fn kill(&self) {
        if let Some(pidfd) = self.pidfd() {
            signal(pidfd, libc::SIGKILL);
        }
    }
}

impl Drop for Process {
    fn drop(&mut self) {
        // Closing its socket ends an idle process; a busy one is killed.
        self.kill();
    }
}

/// Requests at least this large go out of line (see `Channel::send_out_of_line`).
const OUT_OF_LINE_FROM: usize = 1 << 20;

/// Send an encoded request: large ones through a memfd, each part copied once, rather than the socket buffer.
/// Within `FRAME_WITHIN`: a session process that does not read is given up, not waited for.
pub fn send_request(link: &Channel, frame: &Encoded) -> io::Result<()> {
    let deadline = Instant::now() + FRAME_WITHIN;
    if frame.len() >= OUT_OF_LINE_FROM {
        link.send_out_of_line_by(&frame.parts(), Some(deadline))
    } else {
        link.send_by(&frame.contiguous(), &[], deadline)
    }
}

/// Send `signal` through a pidfd (no pid-reuse race). A process already gone is not an error.
pub fn signal(pidfd: RawFd, signal: libc::c_int) {
    // SAFETY: pidfd_send_signal with no siginfo; the descriptor is valid while the caller holds it.
    unsafe { libc::syscall(libc::SYS_pidfd_send_signal, pidfd, signal, std::ptr::null::<libc::siginfo_t>(), 0) };
}

/// The pid a pidfd refers to, from `/proc/self/fdinfo`.
fn pidfd_pid(pidfd: &OwnedFd) -> Option<u32> {
    let info = std::fs::read_to_string(format!("/proc/self/fdinfo/{}", pidfd.as_raw_fd())).ok()?;
    info.lines().find_map(|line| line.strip_prefix("Pid:")).and_then(|pid| pid.trim().parse().ok())
}

/// A reply as the session process sent it: malformed is its fault.
fn decode(frame: &[u8]) -> Result<ToHost, Failure> {
    ToHost::decode(frame).map_err(|e| Failure::Lost(format!("the session process sent a malformed message ({e:?})")))
}

fn lost_reading(e: io::Error) -> Failure {
    match e.kind() {
        io::ErrorKind::UnexpectedEof => Failure::Lost("the session process ended".into()),
        io::ErrorKind::WouldBlock | io::ErrorKind::TimedOut => {
            Failure::Lost("the session process stalled mid-message".into())
        }
        _ => Failure::Lost(format!("the session process's message could not be read ({e})")),
    }
}

impl Process {
    /// Read one reply (call when the link is readable: the whole frame must follow within `FRAME_WITHIN`):
    /// too large, malformed, cut short or trickled is the process's fault.
    pub fn receive(&self) -> Result<(ToHost, Vec<OwnedFd>), Failure> {
        self.receive_frame().map(|(_, reply, fds)| (reply, fds))
    }

    /// `receive`, with the frame the reply was decoded from.
    pub fn receive_frame(&self) -> Result<(Vec<u8>, ToHost, Vec<OwnedFd>), Failure> {
        let (frame, fds, _) = self.link.recv_by(self.max_reply, Instant::now() + FRAME_WITHIN).map_err(lost_reading)?;
        let reply = decode(&frame)?;
        Ok((frame, reply, fds))
    }
}
