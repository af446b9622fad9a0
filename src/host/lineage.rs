//! A session's lineage: the session process a zygote started, its checkpoints and its forks, which share one
//! identity of their own (a user id under a root host, a user namespace otherwise; see `worker::confine`). A
//! session process taken over by hostile code can fork children the host knows nothing of (at most
//! `MAX_LINEAGE_TASKS`); when the last handle on a lineage goes, every process of its identity that descends from
//! this host process is found and killed (session processes are children of its zygotes, which adopt their
//! orphans as their subreapers).

use std::collections::HashMap;
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd, RawFd};
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::Arc;

use parking_lot::Mutex;

/// Who a lineage's processes are: their real user id and their user namespace.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
struct Identity {
    uid: u32,
    user_ns: u64,
}

/// Live handles on each identity, in this host process, and the generation that holds it: a session process
/// new from a zygote takes an identity no other task has (`worker::confine::own_identity`), so the handles of
/// an earlier holder of the same identity are stale, and their end must not end the new holder's processes.
static LIVE: Mutex<Option<HashMap<Identity, Held>>> = Mutex::new(None);
static NEXT_GENERATION: AtomicU64 = AtomicU64::new(1);

struct Held {
    generation: u64,
    handles: usize,
}

/// A handle on a lineage: the last one dropped ends the lineage's processes.
pub struct Lineage {
    identity: Option<Identity>,
    generation: u64,
    /// The lineage's live sessions (this handle's among them), counted whatever its identity: the host's bound
    /// on forks (`share_within`).
    sessions: Arc<AtomicUsize>,
}

impl Lineage {
    /// The lineage of `pid`, a session process new from a zygote. One without an identity of its own (no root,
    /// no user namespace) holds nothing: its processes cannot be told from the host's.
    pub fn of(pid: u32) -> Lineage {
        let own = |identity: Identity| identity != identity_of("self").unwrap_or(identity);
        let identity = identity_of(&pid.to_string()).filter(|identity| own(*identity));
        let generation = NEXT_GENERATION.fetch_add(1, Ordering::Relaxed);
        if let Some(identity) = identity {
            LIVE.lock().get_or_insert_with(HashMap::new).insert(identity, Held { generation, handles: 1 });
        }
        Lineage { identity, generation, sessions: Arc::new(AtomicUsize::new(1)) }
    }

    /// Another handle on the same lineage (a fork of the session), unless it has `most` sessions already.
    pub fn share_within(&self, most: usize) -> Option<Lineage> {
        self.sessions.fetch_update(Ordering::AcqRel, Ordering::Acquire, |n| (n < most).then_some(n + 1)).ok()?;
        if let Some(identity) = self.identity {
            if let Some(held) = LIVE.lock().get_or_insert_with(HashMap::new).get_mut(&identity) {
                if held.generation == self.generation {
                    held.handles += 1;
                }
            }
        }
        Some(Lineage { identity: self.identity, generation: self.generation, sessions: self.sessions.clone() })
    }
}

impl Drop for Lineage {
    fn drop(&mut self) {
        self.sessions.fetch_sub(1, Ordering::AcqRel);
        let Some(identity) = self.identity else { return };
        let last = {
            let mut live = LIVE.lock();
            let counts = live.get_or_insert_with(HashMap::new);
            match counts.get_mut(&identity) {
                Some(held) if held.generation == self.generation => {
                    held.handles = held.handles.saturating_sub(1);
                    let last = held.handles == 0;
                    if last {
                        counts.remove(&identity);
                    }
                    last
                }
                // Taken again by a newer lineage: nothing of this one is left to end.
                _ => false,
            }
        };
        if last {
            end_processes(identity, std::process::id());
        }
    }
}

/// The identity of `/proc/<process>`.
fn identity_of(process: &str) -> Option<Identity> {
    let status = std::fs::read_to_string(format!("/proc/{process}/status")).ok()?;
    let uid = field(&status, "Uid:")?;
    let user_ns =
        std::fs::metadata(format!("/proc/{process}/ns/user")).ok().map(|m| std::os::unix::fs::MetadataExt::ino(&m))?;
    Some(Identity { uid, user_ns })
}

/// The first number of a `/proc/<pid>/status` line.
fn field(status: &str, name: &str) -> Option<u32> {
    status.lines().find_map(|line| line.strip_prefix(name))?.split_whitespace().next()?.parse().ok()
}

/// Kill every process of `identity` that descends from `root`, in rounds until a round finds none it has not
/// killed (one may fork while the others are killed; the processes are few, `MAX_PROCESSES`). A killed process
/// is not looked for again: it may take a millisecond to be gone (a session's threads exiting), but once
/// SIGKILL is sent it forks nothing more (the kernel fails a fork with a fatal signal pending). Waiting for
/// each to be gone would take up to eight rounds: most of every `shutdown()`.
fn end_processes(identity: Identity, root: u32) {
    let mut killed = std::collections::HashSet::new();
    for _ in 0..8 {
        let found: Vec<u32> = processes_of(identity, root).into_iter().filter(|pid| !killed.contains(pid)).collect();
        if found.is_empty() {
            return;
        }
        for pid in found {
            killed.insert(pid);
            // SAFETY: pidfd_open of a pid; the descriptor is owned at once. Checked again through the pidfd's
            // process (a pid reused since the scan names another process, which is then left alone).
            let pidfd = unsafe { libc::syscall(libc::SYS_pidfd_open, pid as libc::pid_t, 0) };
            if pidfd < 0 {
                continue;
            }
            // SAFETY: a descriptor just made, owned here.
            let pidfd = unsafe { OwnedFd::from_raw_fd(pidfd as RawFd) };
            if identity_of(&pid.to_string()) == Some(identity) {
                crate::host::process::signal(pidfd.as_raw_fd(), libc::SIGKILL);
            }
        }
        std::thread::yield_now();
    }
}

/// The pids of `identity` that descend from `root`. Read down from `root` through each thread's list of the
/// children it forked, so only this host's own descendants are read, however many processes the machine runs:
/// a scan of the whole of `/proc` costs every process on the machine, twice at every session's end (a large
/// part of each `shutdown()`). Where the kernel keeps no such lists, the whole of `/proc`.
fn processes_of(identity: Identity, root: u32) -> Vec<u32> {
    let candidates = if children_lists() { descendants(root) } else { descendants_by_scan(root) };
    candidates.into_iter().filter(|pid| identity_of(&pid.to_string()) == Some(identity)).collect()
}

/// Whether `/proc/<pid>/task/<tid>/children` exists (`CONFIG_PROC_CHILDREN`).
fn children_lists() -> bool {
    static KNOWN: std::sync::OnceLock<bool> = std::sync::OnceLock::new();
    *KNOWN.get_or_init(|| std::path::Path::new("/proc/thread-self/children").exists())
}

/// The most processes read below `root`: a session lineage may have `MAX_PROCESSES`, a host many sessions.
const MOST_DESCENDANTS: usize = 1 << 16;

/// Every process below `root`, from the threads' children lists (a read is not a snapshot: a process that
/// forks meanwhile is found by the next round of `end_processes`).
fn descendants(root: u32) -> Vec<u32> {
    let mut found = Vec::new();
    let mut seen = std::collections::HashSet::new();
    let mut next = vec![root];
    while let Some(pid) = next.pop() {
        let Ok(tasks) = std::fs::read_dir(format!("/proc/{pid}/task")) else { continue };
        for task in tasks.flatten() {
            let Ok(children) = std::fs::read_to_string(task.path().join("children")) else { continue };
            for child in children.split_whitespace().filter_map(|child| child.parse::<u32>().ok()) {
                if found.len() < MOST_DESCENDANTS && seen.insert(child) {
                    found.push(child);
                    next.push(child);
                }
            }
        }
    }
    found
}

/// Every process below `root`, from every process's parent in `/proc`.
fn descendants_by_scan(root: u32) -> Vec<u32> {
    let Ok(entries) = std::fs::read_dir("/proc") else { return Vec::new() };
    let mut parents = HashMap::new();
    for entry in entries.flatten() {
        let Some(pid) = entry.file_name().to_str().and_then(|name| name.parse::<u32>().ok()) else { continue };
        let Ok(status) = std::fs::read_to_string(format!("/proc/{pid}/status")) else { continue };
        if let Some(parent) = field(&status, "PPid:") {
            parents.insert(pid, parent);
        }
    }
    let below = |pid: u32| {
        let mut at = pid;
        // Parent links end at init (0); a bound, as a scan is not a snapshot.
        for _ in 0..64 {
            match parents.get(&at) {
                Some(&parent) if parent == root => return true,
                Some(&parent) if parent > 1 => at = parent,
                _ => return false,
            }
        }
        false
    };
    parents.keys().copied().filter(|pid| below(*pid)).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Wait for `pid` to be gone (reaped by its parent, or a zombie), up to two seconds.
    fn gone(pid: u32) -> bool {
        for _ in 0..200 {
            let state = std::fs::read_to_string(format!("/proc/{pid}/status")).ok().and_then(|s| {
                s.lines().find_map(|l| l.strip_prefix("State:")).map(|v| v.trim().chars().next().unwrap_or('?'))
            });
            if matches!(state, None | Some('Z') | Some('X')) {
                return true;
            }
            std::thread::sleep(std::time::Duration::from_millis(10));
        }
        false
    }

    #[test]
    fn the_children_lists_and_the_scan_of_proc_find_the_same_descendants() {
        // A child that forks a grandchild, both waiting: found below this process both ways, and not below
        // another process.
        let mut pipe = [0; 2];
        // SAFETY: a pipe for the grandchild's pid; every call below is a plain system call.
        unsafe {
            assert_eq!(libc::pipe(pipe.as_mut_ptr()), 0);
            let child = libc::fork();
            if child == 0 {
                let grandchild = libc::fork();
                if grandchild == 0 {
                    libc::sleep(5);
                    libc::_exit(0);
                }
                libc::write(pipe[1], (&grandchild as *const libc::pid_t).cast(), 4);
                libc::sleep(5);
                libc::_exit(0);
            }
            let mut grandchild: libc::pid_t = 0;
            assert_eq!(libc::read(pipe[0], (&mut grandchild as *mut libc::pid_t).cast(), 4), 4);
            let root = std::process::id();
            assert!(children_lists(), "this kernel keeps children lists");
            for found in [descendants(root), descendants_by_scan(root)] {
                assert!(found.contains(&(child as u32)) && found.contains(&(grandchild as u32)), "{found:?}");
            }
            assert!(descendants(child as u32) == vec![grandchild as u32]);
            assert!(descendants_by_scan(child as u32) == vec![grandchild as u32]);
            libc::kill(grandchild, libc::SIGKILL);
            libc::kill(child, libc::SIGKILL);
            libc::waitpid(child, std::ptr::null_mut(), 0);
            libc::close(pipe[0]);
            libc::close(pipe[1]);
        }
    }

    #[test]
    fn the_last_handle_on_a_lineage_ends_processes_the_host_never_knew() {
        // A stands for a zygote (a subreaper, a child of this process); B for a session process with an
        // identity of its own, which forks C, a process the host never hears of. Both must end with the
        // lineage; A must not.
        let mut pipe = [0; 2];
        // SAFETY: a pipe for the children's pids; every call below is a plain system call.
        unsafe {
            assert_eq!(libc::pipe(pipe.as_mut_ptr()), 0);
            let zygote = libc::fork();
            if zygote == 0 {
                libc::prctl(libc::PR_SET_CHILD_SUBREAPER, 1);
                if libc::fork() == 0 {
                    let own = if libc::geteuid() == 0 {
                        let id = crate::protocol::process::session_user_id(libc::getpid() as u32 ^ 0x5a5a);
                        libc::setresuid(id, id, id) == 0
                    } else {
                        libc::unshare(libc::CLONE_NEWUSER) == 0
                    };
                    let child = if own { libc::fork() } else { -1 };
                    if child == 0 {
                        loop {
                            libc::pause();
                        }
                    }
                    let pids = [libc::getpid() as u32, child as u32];
                    libc::write(pipe[1], pids.as_ptr() as *const _, 8);
                    loop {
                        libc::pause();
                    }
                }
                loop {
                    libc::pause();
                }
            }
            let mut pids = [0u32; 2];
            assert_eq!(libc::read(pipe[0], pids.as_mut_ptr() as *mut _, 8), 8);
            let [session, unknown] = pids;
            assert_ne!(unknown, u32::MAX, "the stand-in session could not take an identity of its own");
            let lineage = Lineage::of(session);
            assert!(lineage.identity.is_some());
            let fork = lineage.share_within(2).expect("a second session of two");
            assert!(lineage.share_within(2).is_none(), "a third is past the bound");
            drop(lineage);
            std::thread::sleep(std::time::Duration::from_millis(50));
            assert!(!gone_now(unknown), "a fork still holds the lineage");
            drop(fork);
            assert!(gone(session) && gone(unknown), "the lineage's processes outlived it");
            assert!(!gone_now(zygote as u32), "the zygote is left alone");
            libc::kill(zygote, libc::SIGKILL);
            libc::waitpid(zygote, std::ptr::null_mut(), 0);
            libc::close(pipe[0]);
            libc::close(pipe[1]);
        }
    }

    fn gone_now(pid: u32) -> bool {
        std::fs::metadata(format!("/proc/{pid}")).is_err()
    }
}
