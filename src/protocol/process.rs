//! What both ends know of a session process besides its socket: the signal that interrupts its running code
//! (the host sends it through the process's pidfd, `worker::monitor` answers it), and the user id it runs as
//! under a root host (`worker::confine` takes it, `host::lineage` finds the processes that share it).

/// The signal the host sends to interrupt the running code.
pub const INTERRUPT_SIGNAL: libc::c_int = libc::SIGUSR1;

/// Under a root host, session user ids are drawn from `SESSION_IDS_FROM..SESSION_IDS_FROM + SESSION_IDS`, far
/// above the ids distributions hand out; the kernel says which are free (`worker::confine::own_identity`).
const SESSION_IDS_FROM: u32 = 0x7f00_0000;
const SESSION_IDS: u32 = 1 << 22;

/// The session user id a random number picks (a new session process draws its own; its checkpoints and forks keep
/// it).
pub fn session_user_id(random: u32) -> u32 {
    SESSION_IDS_FROM + random % SESSION_IDS
}

/// Sessions one lineage may have live at once: a session and its forks (forks of forks included). The host
/// refuses a fork past it (`host::session`), before the kernel would.
pub const MOST_SESSIONS_PER_LINEAGE: usize = 64;

/// The tasks of a lineage the kernel allows (`RLIMIT_NPROC` of its identity): per session its VM and monitor
/// threads, its frozen checkpoint and the next one while the last ends, and slack for a rollback (a killed
/// process not yet gone beside the checkpoint that took over). What a session taken over by hostile code can
/// spawn is bounded by the same number.
pub const MAX_LINEAGE_TASKS: u64 = MOST_SESSIONS_PER_LINEAGE as u64 * 4 + 16;
