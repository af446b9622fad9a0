//! Confinement of a session process, applied after it is forked and before any sandbox code runs:
//! resource limits (no core files, few descriptors, a hard data ceiling behind the counting allocator) and
//! a seccomp filter that allows only the system calls the VM, glibc and the session loop need. Everything
//! else fails with EPERM: no `open`, `socket`, `execve`, `ptrace`, `kill`, namespaces or new privileges,
//! whatever a memory-safety bug in the VM would let code do. `clone` passes only as a thread or as glibc's
//! `fork` (checkpoints and `fork()` of a session need it); `clone3` answers ENOSYS so that glibc falls back
//! to `clone`, whose flags the filter can see. `mmap` passes only for private mappings: shared memory is
//! not counted by `RLIMIT_DATA`, so a session holding it could outgrow its memory ceiling.
//!
//! A session has an identity of its own, so that `RLIMIT_NPROC` counts only its processes (it, its
//! checkpoints and its forks): under a root host a user id of the session's own (root is exempt from the
//! limit, and holds capabilities; the new id holds none), under any other host a user namespace of its own
//! where the host's kernel allows one (where it does not, the session is not bounded in processes; see
//! docs/security.md).
//!
//! The filter is built from one table, `SYSTEM_CALLS`, for x86_64 and aarch64 alike. To allow a call: add its
//! line with its number on each architecture (`none` where it has no such call) and its `Rule`; the build for
//! each architecture checks that architecture's numbers against `libc`, and the unit test checks both
//! architectures' filters against the table. A call the session must never make needs no line (every call
//! not allowed is refused); a line with `Rule::Refused` makes the test name it, and makes a prepared zygote refuse
//! it too (`zygote_filter`), unless a session's own set-up needs it (`SET_UP_BEFORE_FILTER`).

use std::collections::BTreeMap;
use std::io;

use seccompiler::{
    BpfProgram, SeccompAction, SeccompCmpArgLen, SeccompCmpOp, SeccompCondition, SeccompFilter, SeccompRule, TargetArch,
};

/// Descriptors a session process may hold: its socket, a checkpoint's socket pair, pidfds, a little slack. The
/// kernel also bounds by it the descriptors its user has in flight (sent, not yet read), and every session of a
/// lineage may have a checkpoint's socket waiting for the host to read it: two a session, and the slack.
const MAX_DESCRIPTORS: u64 = crate::protocol::process::MOST_SESSIONS_PER_LINEAGE as u64 * 2 + 32;
/// Tasks a lineage may have at once: each session's threads, its checkpoints, its forks (`interp.fork()`) with
/// theirs (`protocol::process`).
pub const MAX_PROCESSES: u64 = crate::protocol::process::MAX_LINEAGE_TASKS;
/// User ids drawn before a session gives up finding a free one (each is free unless ~2^22 are in use).
const IDENTITY_DRAWS: usize = 16;

/// What the filter does with one system call.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Rule {
    /// Passes, whatever its arguments.
    Allow,
    /// `clone`: passes only as a thread (no namespace flags) or as glibc's `fork`.
    ThreadOrFork,
    /// `mmap`: passes only for a private mapping.
    PrivateMapping,
    /// Passes only with this first argument (what installing the second filter takes).
    FirstArgument(u64),
    /// Answers ENOSYS, so that glibc falls back to a call the filter can see into (`clone3` to `clone`).
    NotImplemented,
    /// Named only to be checked (tests) as refused, like every call not named here.
    Refused,
}

/// A system call, its number on each architecture the wheel is built for (None: it has no such call), and
/// its rule.
struct SystemCall {
    // What the tests, and `SET_UP_BEFORE_FILTER`, name a call by.
    name: &'static str,
    x86_64: Option<i64>,
    aarch64: Option<i64>,
    rule: Rule,
}

/// The table below, with each number of the architecture being built checked against `libc`'s at compile
/// time (the numbers of the other are checked when the crate is built for it: `make wheel` builds both).
macro_rules! system_calls {
    ($($call:ident = $x86_64:tt, $aarch64:tt => $rule:expr;)*) => {
        const SYSTEM_CALLS: &[SystemCall] = &[
            $(SystemCall { name: stringify!($call), x86_64: number!($x86_64), aarch64: number!($aarch64), rule: $rule },)*
        ];
        #[cfg(target_arch = "x86_64")]
        const _: () = { $(same_number!($call, $x86_64);)* };
        #[cfg(target_arch = "aarch64")]
        const _: () = { $(same_number!($call, $aarch64);)* };
    };
}
macro_rules! number {
    (none) => {
        None
    };
    ($number:literal) => {
        Some($number)
    };
}
macro_rules! same_number {
    ($call:ident, none) => {};
    ($call:ident, $number:literal) => {
        assert!(libc::$call == $number, concat!(stringify!($call), "'s number"))
    };
}

// The kernel's tables: arch/x86/entry/syscalls/syscall_64.tbl for x86_64; for aarch64, the generic table
// (include/uapi/asm-generic/unistd.h), which has no `open`, `poll`, `fork` or `vfork`, only `openat`,
// `ppoll` and `clone`. Every call not named here, or named as `Refused`, fails with EPERM.
system_calls! {
    // memory (mmap: see `Rule::PrivateMapping`)
    SYS_mmap = 9, 222 => Rule::PrivateMapping;
    SYS_munmap = 11, 215 => Rule::Allow;
    SYS_mremap = 25, 216 => Rule::Allow;
    SYS_mprotect = 10, 226 => Rule::Allow;
    SYS_madvise = 28, 233 => Rule::Allow;
    SYS_brk = 12, 214 => Rule::Allow;
    // its sockets, and the descriptors it was given
    SYS_read = 0, 63 => Rule::Allow;
    SYS_write = 1, 64 => Rule::Allow;
    SYS_readv = 19, 65 => Rule::Allow;
    SYS_writev = 20, 66 => Rule::Allow;
    SYS_sendmsg = 46, 211 => Rule::Allow;
    SYS_recvmsg = 47, 212 => Rule::Allow;
    SYS_sendto = 44, 206 => Rule::Allow;
    SYS_recvfrom = 45, 207 => Rule::Allow;
    SYS_poll = 7, none => Rule::Allow;
    SYS_ppoll = 271, 73 => Rule::Allow;
    SYS_close = 3, 57 => Rule::Allow;
    SYS_socketpair = 53, 199 => Rule::Allow;
    SYS_pidfd_open = 434, 434 => Rule::Allow;
    // threads and processes (see `Rule::ThreadOrFork`), time, randomness
    SYS_clone = 56, 220 => Rule::ThreadOrFork;
    SYS_clone3 = 435, 435 => Rule::NotImplemented;
    SYS_futex = 202, 98 => Rule::Allow;
    SYS_set_robust_list = 273, 99 => Rule::Allow;
    SYS_rseq = 334, 293 => Rule::Allow;
    SYS_sched_yield = 24, 124 => Rule::Allow;
    SYS_clock_gettime = 228, 113 => Rule::Allow;
    SYS_clock_nanosleep = 230, 115 => Rule::Allow;
    SYS_nanosleep = 35, 101 => Rule::Allow;
    SYS_getrandom = 318, 278 => Rule::Allow;
    SYS_gettid = 186, 178 => Rule::Allow;
    SYS_getpid = 39, 172 => Rule::Allow;
    // signals (the monitor's interrupt flag, fault reports)
    SYS_rt_sigaction = 13, 134 => Rule::Allow;
    SYS_rt_sigprocmask = 14, 135 => Rule::Allow;
    SYS_rt_sigreturn = 15, 139 => Rule::Allow;
    SYS_sigaltstack = 131, 132 => Rule::Allow;
    // installing the second filter, nothing else: more filters can only take more away
    SYS_prctl = 157, 167 => Rule::FirstArgument(libc::PR_SET_NO_NEW_PRIVS as u64);
    SYS_seccomp = 317, 277 => Rule::FirstArgument(libc::SECCOMP_SET_MODE_FILTER as u64);
    // the end
    SYS_exit = 60, 93 => Rule::Allow;
    SYS_exit_group = 231, 94 => Rule::Allow;
    // what a memory-safety bug in the VM would reach for first
    SYS_open = 2, none => Rule::Refused;
    SYS_openat = 257, 56 => Rule::Refused;
    SYS_socket = 41, 198 => Rule::Refused;
    SYS_connect = 42, 203 => Rule::Refused;
    SYS_execve = 59, 221 => Rule::Refused;
    SYS_execveat = 322, 281 => Rule::Refused;
    SYS_fork = 57, none => Rule::Refused;
    SYS_vfork = 58, none => Rule::Refused;
    SYS_ptrace = 101, 117 => Rule::Refused;
    SYS_kill = 62, 129 => Rule::Refused;
    SYS_tgkill = 234, 131 => Rule::Refused;
    SYS_unshare = 272, 97 => Rule::Refused;
    SYS_setns = 308, 268 => Rule::Refused;
    SYS_mount = 165, 40 => Rule::Refused;
    SYS_bpf = 321, 280 => Rule::Refused;
    SYS_perf_event_open = 298, 241 => Rule::Refused;
    SYS_io_uring_setup = 425, 425 => Rule::Refused;
    SYS_userfaultfd = 323, 282 => Rule::Refused;
    SYS_process_vm_writev = 311, 271 => Rule::Refused;
    SYS_memfd_create = 319, 279 => Rule::Refused;
    SYS_setrlimit = 160, 164 => Rule::Refused;
    SYS_prlimit64 = 302, 261 => Rule::Refused;
    // the rest of what a zygote refuses once prepared (`zygote_filter`): files by path, the network, other
    // processes' memory and signals, the system's own state
    SYS_openat2 = 437, 437 => Rule::Refused;
    SYS_creat = 85, none => Rule::Refused;
    SYS_open_by_handle_at = 304, 265 => Rule::Refused;
    SYS_name_to_handle_at = 303, 264 => Rule::Refused;
    SYS_truncate = 76, 45 => Rule::Refused;
    SYS_mknod = 133, none => Rule::Refused;
    SYS_mknodat = 259, 33 => Rule::Refused;
    SYS_link = 86, none => Rule::Refused;
    SYS_linkat = 265, 37 => Rule::Refused;
    SYS_symlink = 88, none => Rule::Refused;
    SYS_symlinkat = 266, 36 => Rule::Refused;
    SYS_unlink = 87, none => Rule::Refused;
    SYS_unlinkat = 263, 35 => Rule::Refused;
    SYS_rename = 82, none => Rule::Refused;
    // (aarch64 has it as 38, but libc names no constant for it there: glibc renames with renameat2.)
    SYS_renameat = 264, none => Rule::Refused;
    SYS_renameat2 = 316, 276 => Rule::Refused;
    SYS_mkdir = 83, none => Rule::Refused;
    SYS_mkdirat = 258, 34 => Rule::Refused;
    SYS_rmdir = 84, none => Rule::Refused;
    SYS_chmod = 90, none => Rule::Refused;
    SYS_fchmodat = 268, 53 => Rule::Refused;
    SYS_chown = 92, none => Rule::Refused;
    SYS_lchown = 94, none => Rule::Refused;
    SYS_fchownat = 260, 54 => Rule::Refused;
    SYS_bind = 49, 200 => Rule::Refused;
    SYS_listen = 50, 201 => Rule::Refused;
    SYS_accept = 43, 202 => Rule::Refused;
    SYS_accept4 = 288, 242 => Rule::Refused;
    SYS_process_vm_readv = 310, 270 => Rule::Refused;
    SYS_tkill = 200, 130 => Rule::Refused;
    SYS_rt_sigqueueinfo = 129, 138 => Rule::Refused;
    SYS_rt_tgsigqueueinfo = 297, 240 => Rule::Refused;
    SYS_pidfd_send_signal = 424, 424 => Rule::Refused;
    SYS_pidfd_getfd = 438, 438 => Rule::Refused;
    SYS_umount2 = 166, 39 => Rule::Refused;
    SYS_pivot_root = 155, 41 => Rule::Refused;
    SYS_chroot = 161, 51 => Rule::Refused;
    SYS_init_module = 175, 105 => Rule::Refused;
    SYS_finit_module = 313, 273 => Rule::Refused;
    SYS_kexec_load = 246, 104 => Rule::Refused;
    SYS_reboot = 169, 142 => Rule::Refused;
}

/// `clone` flags a new thread may not combine with CLONE_THREAD: anything that makes namespaces.
const NAMESPACE_FLAGS: u64 = (libc::CLONE_NEWNS
    | libc::CLONE_NEWUTS
    | libc::CLONE_NEWIPC
    | libc::CLONE_NEWUSER
    | libc::CLONE_NEWPID
    | libc::CLONE_NEWNET
    | libc::CLONE_NEWCGROUP) as u64;

/// The bits of `mmap`'s flags that say private or shared (`MAP_SHARED_VALIDATE` included).
const MAP_TYPE: u64 = 0x0f;

/// The flags glibc's `fork()` passes to `clone` (on both architectures: the flags are `clone`'s first argument
/// on each).
const FORK_FLAGS: u64 = (libc::CLONE_CHILD_SETTID | libc::CLONE_CHILD_CLEARTID | libc::SIGCHLD) as u64;

/// An architecture the filter is built for: the one this crate is built for (`Arch::NATIVE`), or, in tests,
/// the other, whose filter is checked call by call without running on it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
// Outside tests only the native one is made.
#[cfg_attr(not(test), allow(dead_code))]
enum Arch {
    X86_64,
    Aarch64,
}

impl Arch {
    #[cfg(target_arch = "x86_64")]
    const NATIVE: Arch = Arch::X86_64;
    #[cfg(target_arch = "aarch64")]
    const NATIVE: Arch = Arch::Aarch64;

    fn number(self, call: &SystemCall) -> Option<i64> {
        match self {
            Arch::X86_64 => call.x86_64,
            Arch::Aarch64 => call.aarch64,
        }
    }

    fn target(self) -> TargetArch {
        match self {
            Arch::X86_64 => TargetArch::x86_64,
            Arch::Aarch64 => TargetArch::aarch64,
        }
    }
}

fn filter_error(error: seccompiler::BackendError) -> io::Error {
    io::Error::other(format!("seccomp filter: {error}"))
}

/// The two filters of this architecture, in the order they are installed: see `filters_for`.
pub fn session_filters() -> io::Result<[BpfProgram; 2]> {
    filters_for(Arch::NATIVE)
}

/// What a session's set-up does in the zygote's fork before its own filter (`own_identity`, `set_limits`), of the
/// calls a session refuses: the zygote's filter lets them through.
const SET_UP_BEFORE_FILTER: &[&str] = &["SYS_unshare", "SYS_setrlimit", "SYS_prlimit64"];

/// The zygote's filter, installed on its serving thread once it has prepared: it is trusted, but it ran its
/// packages' code, and from then on it only forks sessions and talks to the host over the sockets it has. It
/// refuses what no session may do (every `Rule::Refused` line of the table) but for a session's own set-up, which
/// runs in its fork before the session's filter; every other call passes.
pub fn zygote_filter() -> io::Result<BpfProgram> {
    zygote_filter_for(Arch::NATIVE)
}

/// The calls the zygote refuses.
fn zygote_refused() -> impl Iterator<Item = &'static SystemCall> {
    SYSTEM_CALLS.iter().filter(|call| call.rule == Rule::Refused && !SET_UP_BEFORE_FILTER.contains(&call.name))
}

fn zygote_filter_for(arch: Arch) -> io::Result<BpfProgram> {
    let refused = zygote_refused().filter_map(|call| Some((arch.number(call)?, Vec::new()))).collect();
    SeccompFilter::new(refused, SeccompAction::Allow, SeccompAction::Errno(libc::EPERM as u32), arch.target())
        .map_err(filter_error)?
        .try_into()
        .map_err(filter_error)
}

/// The allow-list, then `clone3` -> ENOSYS (a later filter's errno wins over an earlier one's, so glibc sees
/// ENOSYS and falls back to `clone`), both for `arch`.
fn filters_for(arch: Arch) -> io::Result<[BpfProgram; 2]> {
    let condition = |op, value| SeccompCondition::new(0, SeccompCmpArgLen::Qword, op, value).map_err(filter_error);
    let rule = |conditions| SeccompRule::new(conditions).map_err(filter_error);
    let mut allowed: BTreeMap<i64, Vec<SeccompRule>> = BTreeMap::new();
    let mut not_implemented: BTreeMap<i64, Vec<SeccompRule>> = BTreeMap::new();
    for call in SYSTEM_CALLS {
        let Some(number) = arch.number(call) else { continue };
        match call.rule {
            Rule::Allow => {
                allowed.insert(number, Vec::new());
            }
            Rule::ThreadOrFork => {
                let thread = condition(
                    SeccompCmpOp::MaskedEq(libc::CLONE_THREAD as u64 | NAMESPACE_FLAGS),
                    libc::CLONE_THREAD as u64,
                )?;
                let fork = condition(SeccompCmpOp::Eq, FORK_FLAGS)?;
                allowed.insert(number, vec![rule(vec![thread])?, rule(vec![fork])?]);
            }
            Rule::PrivateMapping => {
                let private = SeccompCondition::new(
                    3,
                    SeccompCmpArgLen::Dword,
                    SeccompCmpOp::MaskedEq(MAP_TYPE),
                    libc::MAP_PRIVATE as u64,
                )
                .map_err(filter_error)?;
                allowed.insert(number, vec![rule(vec![private])?]);
            }
            Rule::FirstArgument(value) => {
                allowed.insert(number, vec![rule(vec![condition(SeccompCmpOp::Eq, value)?])?]);
            }
            Rule::NotImplemented => {
                not_implemented.insert(number, Vec::new());
            }
            Rule::Refused => {}
        }
    }
    let allow_list =
        SeccompFilter::new(allowed, SeccompAction::Errno(libc::EPERM as u32), SeccompAction::Allow, arch.target())
            .map_err(filter_error)?;
    let no_such_call = SeccompFilter::new(
        not_implemented,
        SeccompAction::Allow,
        SeccompAction::Errno(libc::ENOSYS as u32),
        arch.target(),
    )
    .map_err(filter_error)?;
    Ok([allow_list.try_into().map_err(filter_error)?, no_such_call.try_into().map_err(filter_error)?])
}

/// Whether sessions of this build install the filter: false only in the test build run under qemu-user (the
/// `unfiltered-for-emulation` feature; see Cargo.toml), which cannot install one.
pub const SYSTEM_CALL_FILTER: bool = !cfg!(feature = "unfiltered-for-emulation");

/// Install `filters` on the calling thread (and so on every thread and process it creates from now on).
/// Sets `PR_SET_NO_NEW_PRIVS` first, as seccomp requires. A failure is the session's end: a session whose
/// confinement cannot be installed runs no code (`worker::session`).
pub fn apply(filters: &[BpfProgram]) -> io::Result<()> {
    if !SYSTEM_CALL_FILTER {
        // SAFETY: a flag of this process's own; what seccompiler sets before each filter.
        return match unsafe { libc::prctl(libc::PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) } {
            0 => Ok(()),
            _ => Err(io::Error::last_os_error()),
        };
    }
    for filter in filters {
        seccompiler::apply_filter(filter).map_err(|e| {
            io::Error::other(format!(
                "its seccomp system-call filter could not be installed ({e}; emulators such as qemu-user cannot \
                 install one), and no session runs code without it"
            ))
        })?;
    }
    Ok(())
}

/// Give this process (single-threaded, not yet confined) an identity of its own: see the module's doc. Under
/// a root host every capability goes with the change of user. Whether it has one, so that `set_limits` can
/// bound its processes.
pub fn own_identity() -> io::Result<bool> {
    // SAFETY: plain system calls on this process's own credentials.
    unsafe {
        if libc::geteuid() == 0 {
            for capability in 0..64 {
                // Past the last capability the kernel knows this is EINVAL: nothing to drop.
                libc::prctl(libc::PR_CAPBSET_DROP, capability, 0, 0, 0);
            }
            check(libc::setgroups(0, std::ptr::null()))?;
            let draws = std::iter::repeat_with(random_u32).take(IDENTITY_DRAWS);
            own_identity_from(draws.map(|random| random.map(crate::protocol::process::session_user_id)))?;
            Ok(true)
        } else {
            // A user namespace of its own where the kernel allows one; without it, a process limit would count
            // every process of the host's user.
            Ok(libc::unshare(libc::CLONE_NEWUSER) == 0)
        }
    }
}

/// Take the first of `ids` no other task has, in any process of any host or pid namespace: an id is never
/// shared by two live lineages, whatever pid each had (an id derived from a pid could be taken again by a new
/// session while a checkpoint of an earlier one keeps it). The kernel decides, atomically: a task counts toward
/// its real user's processes from the moment the id is taken, so of two processes taking one id at once, at
/// least one sees the other.
fn own_identity_from(ids: impl Iterator<Item = io::Result<u32>>) -> io::Result<()> {
    for id in ids {
        let id = id?;
        // SAFETY: plain system calls on this process's own credentials (root's, saved, until the last).
        unsafe {
            check(libc::setresgid(id, id, id))?;
            check(libc::setresuid(id, id, 0))?;
            if only_task_of_its_user()? {
                // The saved root id goes too, and with it every capability.
                return check(libc::setresuid(id, id, id));
            }
            check(libc::setresuid(0, 0, 0))?;
        }
    }
    Err(io::Error::other("every session user id drawn is in use by other processes"))
}

/// A credential call's result: Ok, or the error it left.
fn check(done: libc::c_int) -> io::Result<()> {
    if done == 0 {
        Ok(())
    } else {
        Err(io::Error::last_os_error())
    }
}

/// Whether this single-threaded process is the only task of its real user: with a soft `RLIMIT_NPROC` of 2 it
/// can start a thread only if no other task of the user exists.
fn only_task_of_its_user() -> io::Result<bool> {
    let mut old = libc::rlimit { rlim_cur: 0, rlim_max: 0 };
    // SAFETY: valid rlimit structures of this process's own limits.
    unsafe {
        if libc::getrlimit(libc::RLIMIT_NPROC, &mut old) != 0 {
            return Err(io::Error::last_os_error());
        }
        let two = libc::rlimit { rlim_cur: 2.min(old.rlim_max), rlim_max: old.rlim_max };
        if libc::setrlimit(libc::RLIMIT_NPROC, &two) != 0 {
            return Err(io::Error::last_os_error());
        }
    }
    let probe = std::thread::Builder::new().stack_size(64 << 10).spawn(|| ());
    // SAFETY: as above.
    unsafe { libc::setrlimit(libc::RLIMIT_NPROC, &old) };
    match probe {
        Ok(thread) => {
            let _ = thread.join();
            Ok(true)
        }
        Err(error) if error.raw_os_error() == Some(libc::EAGAIN) => Ok(false),
        Err(error) => Err(error),
    }
}

fn random_u32() -> io::Result<u32> {
    let mut bytes = [0u8; 4];
    // SAFETY: a buffer of 4 writable bytes.
    match unsafe { libc::getrandom(bytes.as_mut_ptr().cast(), 4, 0) } {
        4 => Ok(u32::from_ne_bytes(bytes)),
        _ => Err(io::Error::last_os_error()),
    }
}

/// End with `parent` (SIGKILL when it dies), set after `own_identity`: the kernel clears a parent-death signal
/// when the effective user changes, so set before, it would be gone. Checked, not assumed: a parent that died
/// before this was set is no longer this process's parent, and the process must not live on.
pub fn tie_to_parent(parent: libc::pid_t) -> io::Result<()> {
    // SAFETY: plain system calls on this process's own settings.
    unsafe {
        if libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGKILL) != 0 {
            return Err(io::Error::last_os_error());
        }
        let mut signal: libc::c_int = 0;
        libc::prctl(libc::PR_GET_PDEATHSIG, &mut signal as *mut libc::c_int);
        if signal != libc::SIGKILL || libc::getppid() != parent {
            return Err(io::Error::other("its parent is gone, or it could not be tied to it"));
        }
    }
    Ok(())
}

/// No core files, few descriptors, at most `data_ceiling` bytes of data segment and anonymous memory, and, for
/// a process with an identity of its own (`own_identity`), at most `MAX_PROCESSES` processes.
pub fn set_limits(data_ceiling: Option<u64>, own_identity: bool) -> io::Result<()> {
    let set = |resource, value: u64| {
        let limit = libc::rlimit { rlim_cur: value, rlim_max: value };
        // SAFETY: a valid rlimit for a resource of this process.
        if unsafe { libc::setrlimit(resource, &limit) } != 0 {
            return Err(io::Error::last_os_error());
        }
        Ok(())
    };
    set(libc::RLIMIT_CORE, 0)?;
    set(libc::RLIMIT_NOFILE, MAX_DESCRIPTORS)?;
    if let Some(ceiling) = data_ceiling {
        set(libc::RLIMIT_DATA, ceiling)?;
    }
    if own_identity {
        set(libc::RLIMIT_NPROC, MAX_PROCESSES)?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Run `check` in a forked child confined by the session filters; its exit status is the result.
    fn in_confined_child(check: fn() -> i32) -> i32 {
        let filters = session_filters().unwrap();
        // SAFETY: the child only makes system calls and exits; it never returns into the test harness.
        let pid = unsafe { libc::fork() };
        assert!(pid >= 0);
        if pid == 0 {
            let code = match apply(&filters) {
                Ok(()) => check(),
                Err(_) => 100,
            };
            // SAFETY: leave without running the harness's exit handlers.
            unsafe { libc::_exit(code) };
        }
        let mut status = 0;
        // SAFETY: our own child.
        assert_eq!(unsafe { libc::waitpid(pid, &mut status, 0) }, pid);
        assert!(libc::WIFEXITED(status), "the confined child died: status {status}");
        libc::WEXITSTATUS(status)
    }

    fn errno() -> i32 {
        io::Error::last_os_error().raw_os_error().unwrap_or(0)
    }

    /// What the kernel hands a filter (`struct seccomp_data`): the call's number, the architecture, six arguments.
    struct Call {
        number: i64,
        arch: u32,
        args: [u64; 6],
    }

    const AUDIT_ARCH_64BIT_LE: u32 = 0x8000_0000 | 0x4000_0000;
    fn audit_arch(arch: Arch) -> u32 {
        AUDIT_ARCH_64BIT_LE
            | match arch {
                Arch::X86_64 => 62,   // EM_X86_64
                Arch::Aarch64 => 183, // EM_AARCH64
            }
    }

    /// Run a classic BPF program on `call` as the kernel would, for the instructions a seccomp filter uses:
    /// its return value.
    fn run(program: &[seccompiler::sock_filter], call: &Call) -> u32 {
        let word = |offset: u32| -> u32 {
            match offset {
                0 => call.number as u32,
                4 => call.arch,
                16..=63 if offset % 4 == 0 => {
                    let arg = call.args[(offset as usize - 16) / 8];
                    if offset % 8 == 0 {
                        arg as u32
                    } else {
                        (arg >> 32) as u32
                    }
                }
                _ => panic!("the filter reads offset {offset} of seccomp_data"),
            }
        };
        let (mut at, mut accumulator) = (0usize, 0u32);
        loop {
            let instruction = &program[at];
            let (jt, jf, k) = (instruction.jt as usize, instruction.jf as usize, instruction.k);
            at += 1;
            match instruction.code {
                0x20 => accumulator = word(k), // ld [k]
                0x54 => accumulator &= k,      // and #k
                0x06 => return k,              // ret #k
                0x05 => at += k as usize,      // ja
                0x15 | 0x25 | 0x35 | 0x45 => {
                    let taken = match instruction.code {
                        0x15 => accumulator == k,
                        0x25 => accumulator > k,
                        0x35 => accumulator >= k,
                        _ => accumulator & k != 0,
                    };
                    at += if taken { jt } else { jf };
                }
                code => panic!("an instruction this check does not know: {code:#x}"),
            }
        }
    }

    const RET_ALLOW: u32 = 0x7fff_0000;
    const RET_ERRNO: u32 = 0x0005_0000;

    /// The kernel's verdict over stacked filters: each runs, the most restrictive action wins, and of equal
    /// ones, the last installed's.
    fn verdict(filters: &[BpfProgram], call: &Call) -> u32 {
        let mut result = RET_ALLOW;
        for filter in filters.iter().rev() {
            let ret = run(filter, call);
            if ((ret & 0xffff_0000) as i32) < ((result & 0xffff_0000) as i32) {
                result = ret;
            }
        }
        result
    }

    /// Every system call number of both architectures, each through that architecture's filters: the calls the
    /// table allows pass (with the arguments their rule allows, and only those), `clone3` answers ENOSYS, every
    /// other number EPERM; and a call made with the other architecture's calling convention never passes.
    /// The aarch64 filter is checked here without running on aarch64 (qemu-user cannot install one).
    #[test]
    fn every_call_of_each_architecture_is_decided_by_the_table() {
        for arch in [Arch::X86_64, Arch::Aarch64] {
            let filters = filters_for(arch).unwrap();
            let ask = |number: i64, args: [u64; 6]| verdict(&filters, &Call { number, arch: audit_arch(arch), args });
            let eperm = RET_ERRNO | libc::EPERM as u32;
            let mut named = std::collections::HashMap::new();
            for call in SYSTEM_CALLS {
                if let Some(number) = arch.number(call) {
                    assert!(named.insert(number, call).is_none(), "{arch:?}: {} has a number already taken", call.name);
                }
            }
            for number in 0..1024 {
                let anything = [u64::MAX, 1, 2, 3, 4, 5];
                let Some(call) = named.get(&number) else {
                    assert_eq!(ask(number, anything), eperm, "{arch:?}: call {number} is not in the table");
                    continue;
                };
                let name = call.name;
                match call.rule {
                    Rule::Allow => assert_eq!(ask(number, anything), RET_ALLOW, "{arch:?}: {name}"),
                    Rule::Refused => assert_eq!(ask(number, [0; 6]), eperm, "{arch:?}: {name}"),
                    Rule::NotImplemented => assert_eq!(ask(number, [0; 6]), RET_ERRNO | libc::ENOSYS as u32, "{name}"),
                    Rule::FirstArgument(value) => {
                        assert_eq!(ask(number, [value, 0, 0, 0, 0, 0]), RET_ALLOW, "{arch:?}: {name}");
                        assert_eq!(ask(number, [value + 1, 0, 0, 0, 0, 0]), eperm, "{arch:?}: {name}");
                        assert_eq!(ask(number, [value | 1 << 32, 0, 0, 0, 0, 0]), eperm, "{arch:?}: {name}");
                    }
                    Rule::ThreadOrFork => {
                        let thread = (libc::CLONE_VM
                            | libc::CLONE_FS
                            | libc::CLONE_FILES
                            | libc::CLONE_SIGHAND
                            | libc::CLONE_THREAD
                            | libc::CLONE_SYSVSEM
                            | libc::CLONE_SETTLS
                            | libc::CLONE_PARENT_SETTID
                            | libc::CLONE_CHILD_CLEARTID) as u64;
                        assert_eq!(ask(number, [thread, 0, 0, 0, 0, 0]), RET_ALLOW, "{arch:?}: a thread");
                        assert_eq!(ask(number, [FORK_FLAGS, 0, 0, 0, 0, 0]), RET_ALLOW, "{arch:?}: fork");
                        for namespace in
                            [libc::CLONE_NEWUSER, libc::CLONE_NEWNET, libc::CLONE_NEWPID, libc::CLONE_NEWNS]
                        {
                            let flags = namespace as u64;
                            assert_eq!(
                                ask(number, [thread | flags, 0, 0, 0, 0, 0]),
                                eperm,
                                "{arch:?}: a thread in {flags:#x}"
                            );
                            assert_eq!(
                                ask(number, [FORK_FLAGS | flags, 0, 0, 0, 0, 0]),
                                eperm,
                                "{arch:?}: a fork in {flags:#x}"
                            );
                        }
                        assert_eq!(
                            ask(number, [libc::SIGCHLD as u64, 0, 0, 0, 0, 0]),
                            eperm,
                            "{arch:?}: another process"
                        );
                    }
                    Rule::PrivateMapping => {
                        let with = |flags: i32| [0, 1 << 20, 3, flags as u64, u64::MAX, 0];
                        assert_eq!(ask(number, with(libc::MAP_PRIVATE | libc::MAP_ANONYMOUS)), RET_ALLOW, "{arch:?}");
                        assert_eq!(ask(number, with(libc::MAP_SHARED | libc::MAP_ANONYMOUS)), eperm, "{arch:?}");
                        assert_eq!(ask(number, with(libc::MAP_SHARED_VALIDATE)), eperm, "{arch:?}");
                    }
                }
            }
            let other = if arch == Arch::X86_64 { Arch::Aarch64 } else { Arch::X86_64 };
            for call in SYSTEM_CALLS.iter().filter(|call| call.rule == Rule::Allow) {
                let number = arch.number(call).or(other.number(call)).unwrap();
                let ret = verdict(&filters, &Call { number, arch: audit_arch(other), args: [0; 6] });
                assert_ne!(ret, RET_ALLOW, "{arch:?}'s filter let {other:?}'s {} through", call.name);
            }
        }
    }

    /// The zygote's filter refuses every call of its table on both architectures and lets every call a session
    /// makes before its own filter through (the session's allow-list, and its set-up: identity, limits, the
    /// second filter).
    #[test]
    fn the_zygote_refuses_its_table_and_nothing_a_session_needs() {
        for arch in [Arch::X86_64, Arch::Aarch64] {
            let filter = [zygote_filter_for(arch).unwrap()];
            let ask = |number: i64| verdict(&filter, &Call { number, arch: audit_arch(arch), args: [0; 6] });
            for call in zygote_refused() {
                if let Some(number) = arch.number(call) {
                    assert_eq!(ask(number), RET_ERRNO | libc::EPERM as u32, "{arch:?}: {}", call.name);
                }
            }
            let needed = |call: &&SystemCall| call.rule != Rule::Refused || SET_UP_BEFORE_FILTER.contains(&call.name);
            for call in SYSTEM_CALLS.iter().filter(needed) {
                if let Some(number) = arch.number(call) {
                    assert_eq!(ask(number), RET_ALLOW, "{arch:?}: a session needs {}", call.name);
                }
            }
        }
        // The rest of a session's set-up, and the zygote's own calls, on this architecture.
        let filter = [zygote_filter().unwrap()];
        for number in
            [libc::SYS_setresuid, libc::SYS_setresgid, libc::SYS_setgroups, libc::SYS_close_range, libc::SYS_setpgid]
        {
            assert_eq!(
                verdict(&filter, &Call { number, arch: audit_arch(Arch::NATIVE), args: [0; 6] }),
                RET_ALLOW,
                "{number}"
            );
        }
    }

    /// In a child behind the zygote's filter: host files and the network are refused; forking, a socket pair and
    /// a session's own identity still work.
    #[test]
    fn a_confined_zygote_opens_nothing_and_still_forks() {
        // SAFETY: the child only makes system calls and exits; it never returns into the test harness.
        let pid = unsafe { libc::fork() };
        assert!(pid >= 0);
        if pid == 0 {
            let code = (|| {
                if seccompiler::apply_filter(&zygote_filter().unwrap()).is_err() {
                    return 100;
                }
                // SAFETY: plain system calls with valid arguments.
                unsafe {
                    if libc::open(c"/etc/hostname".as_ptr(), libc::O_RDONLY) != -1 || errno() != libc::EPERM {
                        return 1;
                    }
                    if libc::socket(libc::AF_UNIX, libc::SOCK_STREAM, 0) != -1 || errno() != libc::EPERM {
                        return 2;
                    }
                    if libc::kill(1, 0) != -1 || errno() != libc::EPERM {
                        return 3;
                    }
                    let mut pair = [0; 2];
                    if libc::socketpair(libc::AF_UNIX, libc::SOCK_SEQPACKET, 0, pair.as_mut_ptr()) != 0 {
                        return 4;
                    }
                    let child = libc::fork();
                    if child == 0 {
                        libc::_exit(0);
                    }
                    if child < 0 {
                        return 5;
                    }
                }
                0
            })();
            // SAFETY: leave without running the harness's exit handlers.
            unsafe { libc::_exit(code) };
        }
        let mut status = 0;
        // SAFETY: our own child.
        assert_eq!(unsafe { libc::waitpid(pid, &mut status, 0) }, pid);
        assert!(libc::WIFEXITED(status), "the child died: status {status}");
        assert_eq!(libc::WEXITSTATUS(status), 0, "check {} failed", libc::WEXITSTATUS(status));
    }

    #[test]
    fn files_sockets_and_programs_are_refused() {
        let code = in_confined_child(|| {
            // SAFETY: plain system calls with valid arguments.
            unsafe {
                if libc::open(c"/etc/passwd".as_ptr(), libc::O_RDONLY) != -1 || errno() != libc::EPERM {
                    return 1;
                }
                if libc::socket(libc::AF_INET, libc::SOCK_STREAM, 0) != -1 || errno() != libc::EPERM {
                    return 2;
                }
                let argv = [c"/bin/true".as_ptr(), std::ptr::null()];
                if libc::execve(c"/bin/true".as_ptr(), argv.as_ptr(), std::ptr::null()) != -1 || errno() != libc::EPERM
                {
                    return 3;
                }
                if libc::kill(1, 0) != -1 || errno() != libc::EPERM {
                    return 4;
                }
                if libc::unshare(libc::CLONE_NEWUSER) != -1 || errno() != libc::EPERM {
                    return 5;
                }
            }
            0
        });
        assert_eq!(code, 0, "check {code} was let through");
    }

    #[test]
    fn shared_memory_is_refused_private_memory_is_not() {
        let code = in_confined_child(|| {
            let map = |flags| {
                // SAFETY: a fresh anonymous mapping, unmapped at once when made.
                unsafe {
                    let ptr =
                        libc::mmap(std::ptr::null_mut(), 1 << 20, libc::PROT_READ | libc::PROT_WRITE, flags, -1, 0);
                    if ptr != libc::MAP_FAILED {
                        libc::munmap(ptr, 1 << 20);
                    }
                    ptr != libc::MAP_FAILED
                }
            };
            if map(libc::MAP_SHARED | libc::MAP_ANONYMOUS) || errno() != libc::EPERM {
                return 1;
            }
            if map(libc::MAP_SHARED_VALIDATE | libc::MAP_ANONYMOUS) {
                return 2;
            }
            if !map(libc::MAP_PRIVATE | libc::MAP_ANONYMOUS) {
                return 3;
            }
            0
        });
        assert_eq!(code, 0, "check {code} failed");
    }

    #[test]
    fn threads_forks_and_the_session_socket_still_work() {
        let code = in_confined_child(|| {
            let Ok((a, b)) = crate::protocol::channel::Channel::pair() else { return 1 };
            let worker = std::thread::spawn(move || a.send(b"from a thread", &[]).is_ok());
            if !worker.join().unwrap_or(false) {
                return 2;
            }
            if !matches!(b.recv(64), Ok((frame, _)) if frame == b"from a thread") {
                return 3;
            }
            // SAFETY: the grandchild exits at once.
            let pid = unsafe { libc::fork() };
            if pid == 0 {
                unsafe { libc::_exit(0) };
            }
            if pid < 0 {
                return 4;
            }
            0
        });
        assert_eq!(code, 0, "check {code} failed");
    }
}
