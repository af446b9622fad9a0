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

use std::collections::BTreeMap;
use std::io;

use seccompiler::{
    BpfProgram, SeccompAction, SeccompCmpArgLen, SeccompCmpOp, SeccompCondition, SeccompFilter, SeccompRule, TargetArch,
};

/// Descriptors a session process may hold: its socket, a checkpoint's socket pair, pidfds, a little slack.
const MAX_DESCRIPTORS: u64 = 32;
/// Processes a session may have at once: itself, its checkpoint, and its forks (`interp.fork()`) with theirs.
pub const MAX_PROCESSES: u64 = 32;
/// The system calls a session process makes.
const ALLOWED: &[i64] = &[
    // memory
    libc::SYS_munmap, libc::SYS_mremap, libc::SYS_mprotect, libc::SYS_madvise, libc::SYS_brk,
    // its sockets, and the descriptors it was given
    libc::SYS_read, libc::SYS_write, libc::SYS_readv, libc::SYS_writev, libc::SYS_sendmsg, libc::SYS_recvmsg,
    libc::SYS_sendto, libc::SYS_recvfrom, libc::SYS_poll, libc::SYS_ppoll, libc::SYS_close, libc::SYS_socketpair,
    libc::SYS_pidfd_open,
    // threads, time, randomness
    libc::SYS_futex, libc::SYS_set_robust_list, libc::SYS_rseq, libc::SYS_sched_yield, libc::SYS_clock_gettime,
    libc::SYS_clock_nanosleep, libc::SYS_nanosleep, libc::SYS_getrandom, libc::SYS_gettid, libc::SYS_getpid,
    // signals (the monitor's interrupt flag, fault reports)
    libc::SYS_rt_sigaction, libc::SYS_rt_sigprocmask, libc::SYS_rt_sigreturn, libc::SYS_sigaltstack,
    // the end
    libc::SYS_exit, libc::SYS_exit_group,
];

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

/// The flags glibc's `fork()` passes to `clone`.
const FORK_FLAGS: u64 = (libc::CLONE_CHILD_SETTID | libc::CLONE_CHILD_CLEARTID | libc::SIGCHLD) as u64;

fn arch() -> TargetArch {
    #[cfg(target_arch = "x86_64")]
    return TargetArch::x86_64;
    #[cfg(target_arch = "aarch64")]
    return TargetArch::aarch64;
}

fn filter_error(error: seccompiler::BackendError) -> io::Error {
    io::Error::other(format!("seccomp filter: {error}"))
}

/// The two filters, in the order they are installed: the allow-list, then `clone3` -> ENOSYS (a later
/// filter's errno wins over an earlier one's, so glibc sees ENOSYS and falls back to `clone`).
pub fn session_filters() -> io::Result<[BpfProgram; 2]> {
    let condition = |op, value| SeccompCondition::new(0, SeccompCmpArgLen::Qword, op, value).map_err(filter_error);
    let mut rules: BTreeMap<i64, Vec<SeccompRule>> = ALLOWED.iter().map(|call| (*call, Vec::new())).collect();
    let thread = SeccompRule::new(vec![condition(
        SeccompCmpOp::MaskedEq(libc::CLONE_THREAD as u64 | NAMESPACE_FLAGS),
        libc::CLONE_THREAD as u64,
    )?])
    .map_err(filter_error)?;
    let fork = SeccompRule::new(vec![condition(SeccompCmpOp::Eq, FORK_FLAGS)?]).map_err(filter_error)?;
    rules.insert(libc::SYS_clone, vec![thread, fork]);
    let private = SeccompCondition::new(3, SeccompCmpArgLen::Dword, SeccompCmpOp::MaskedEq(MAP_TYPE), libc::MAP_PRIVATE as u64)
        .map_err(filter_error)?;
    rules.insert(libc::SYS_mmap, vec![SeccompRule::new(vec![private]).map_err(filter_error)?]);
    // Only what installing the second filter takes; more filters can only take more away.
    let argument_is = |value: u64| SeccompRule::new(vec![condition(SeccompCmpOp::Eq, value)?]).map_err(filter_error);
    rules.insert(libc::SYS_prctl, vec![argument_is(libc::PR_SET_NO_NEW_PRIVS as u64)?]);
    rules.insert(libc::SYS_seccomp, vec![argument_is(libc::SECCOMP_SET_MODE_FILTER as u64)?]);
    let allow_list = SeccompFilter::new(rules, SeccompAction::Errno(libc::EPERM as u32), SeccompAction::Allow, arch())
        .map_err(filter_error)?;
    let no_clone3 = SeccompFilter::new(
        BTreeMap::from([(libc::SYS_clone3, Vec::new())]),
        SeccompAction::Allow,
        SeccompAction::Errno(libc::ENOSYS as u32),
        arch(),
    )
    .map_err(filter_error)?;
    Ok([allow_list.try_into().map_err(filter_error)?, no_clone3.try_into().map_err(filter_error)?])
}

/// Install `filters` on the calling thread (and so on every thread and process it creates from now on).
/// Sets `PR_SET_NO_NEW_PRIVS` first, as seccomp requires.
pub fn apply(filters: &[BpfProgram]) -> io::Result<()> {
    for filter in filters {
        seccompiler::apply_filter(filter).map_err(|e| io::Error::other(format!("seccomp: {e}")))?;
    }
    Ok(())
}

/// Give this process (single-threaded, not yet confined) an identity of its own: see the module's doc. Under
/// a root host every capability goes with the change of user. Whether it has one, so that `set_limits` can
/// bound its processes.
pub fn own_identity() -> io::Result<bool> {
    let check = |done: libc::c_int| if done == 0 { Ok(()) } else { Err(io::Error::last_os_error()) };
    // SAFETY: plain system calls on this process's own credentials.
    unsafe {
        if libc::geteuid() == 0 {
            let id = crate::protocol::process::session_user_id(libc::getpid() as u32);
            for capability in 0..64 {
                // Past the last capability the kernel knows this is EINVAL: nothing to drop.
                libc::prctl(libc::PR_CAPBSET_DROP, capability, 0, 0, 0);
            }
            check(libc::setgroups(0, std::ptr::null()))?;
            check(libc::setresgid(id, id, id))?;
            check(libc::setresuid(id, id, id))?;
            Ok(true)
        } else {
            // A user namespace of its own where the kernel allows one; without it, a process limit would count
            // every process of the host's user.
            Ok(libc::unshare(libc::CLONE_NEWUSER) == 0)
        }
    }
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
                if libc::execve(c"/bin/true".as_ptr(), argv.as_ptr(), std::ptr::null()) != -1 || errno() != libc::EPERM {
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
                    let ptr = libc::mmap(std::ptr::null_mut(), 1 << 20, libc::PROT_READ | libc::PROT_WRITE, flags, -1, 0);
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
