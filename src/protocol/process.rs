//! What both ends know of a session process besides its socket: the signal that interrupts its running code
//! (the host sends it through the process's pidfd, `worker::monitor` answers it), and the user id it runs as
//! under a root host (`worker::confine` takes it, `host::lineage` finds the processes that share it).

/// The signal the host sends to interrupt the running code.
pub const INTERRUPT_SIGNAL: libc::c_int = libc::SIGUSR1;

/// Under a root host, session user ids are `SESSION_IDS_FROM + pid % SESSION_IDS`: far above the ids
/// distributions hand out, and one per live session (pids are below 2**22).
const SESSION_IDS_FROM: u32 = 0x7f00_0000;
const SESSION_IDS: u32 = 1 << 22;

/// The user id a session process started as `pid` runs as under a root host (its forks keep it).
pub fn session_user_id(pid: u32) -> u32 {
    SESSION_IDS_FROM + pid % SESSION_IDS
}
