//! A session process that dies says why: a handler for the fatal signals writes one pre-encoded
//! `ToHost::Fault` frame to the session's socket and lets the signal take the process. The host then rolls
//! the session back to its checkpoint and names the cause (an abort after a failed allocation reads as
//! MemoryError). Only async-signal-safe work happens in the handler: atomics and one `write`.

use std::io;
use std::os::fd::RawFd;
use std::sync::atomic::{AtomicI32, Ordering};

const FATAL_SIGNALS: [libc::c_int; 5] = [libc::SIGSEGV, libc::SIGBUS, libc::SIGILL, libc::SIGFPE, libc::SIGABRT];

/// The socket the report goes to, -1 before `install`.
static REPORT_FD: AtomicI32 = AtomicI32::new(-1);
/// Report fatal signals on `socket` from now on (also after a fork: the child inherits the handlers and
/// its copy of the socket number, which a checkpoint changes with `install` again).
pub fn install(socket: RawFd) -> io::Result<()> {
    REPORT_FD.store(socket, Ordering::SeqCst);
    for signal in FATAL_SIGNALS {
        // SAFETY: a zeroed sigaction with a valid handler; SA_RESETHAND restores the default before the
        // handler runs, so re-raising ends the process; SA_ONSTACK uses the thread's alternate stack (which
        // Rust's runtime sets up), so a stack overflow is reported too.
        unsafe {
            let mut action: libc::sigaction = std::mem::zeroed();
            action.sa_sigaction = on_fatal_signal as *const () as usize;
            action.sa_flags = libc::SA_RESETHAND | libc::SA_ONSTACK;
            libc::sigemptyset(&mut action.sa_mask);
            if libc::sigaction(signal, &action, std::ptr::null_mut()) != 0 {
                return Err(io::Error::last_os_error());
            }
        }
    }
    Ok(())
}

/// End the process after telling the host why: the run ignored its stop request for the grace period.
/// Called from the monitor thread, while the VM thread is stuck in a native operation.
pub fn abandon(reason: crate::protocol::message::Stop) -> ! {
    let fd = REPORT_FD.load(Ordering::SeqCst);
    if fd >= 0 {
        let body = crate::protocol::message::ToHost::Abandoned(reason).encode();
        let mut frame = (body.len() as u64).to_le_bytes().to_vec();
        frame.extend_from_slice(&body);
        // SAFETY: a plain send of an owned buffer; a failed send only loses the report.
        unsafe { libc::send(fd, frame.as_ptr() as *const _, frame.len(), libc::MSG_NOSIGNAL) };
    }
    // SAFETY: ends the process at once; nothing of it needs to run on.
    unsafe { libc::_exit(70) }
}

/// The frame `ToHost::Fault { signal, out_of_memory }` encodes to, built without allocating.
fn fault_frame(signal: i32, out_of_memory: bool) -> [u8; 14] {
    let mut frame = [0u8; 14];
    frame[..8].copy_from_slice(&6u64.to_le_bytes());
    frame[8] = 6; // ToHost::Fault's tag
    frame[9..13].copy_from_slice(&(signal as u32).to_le_bytes());
    frame[13] = out_of_memory as u8;
    frame
}

extern "C" fn on_fatal_signal(signal: libc::c_int) {
    let fd = REPORT_FD.load(Ordering::SeqCst);
    if fd >= 0 {
        let frame = fault_frame(signal, crate::memory::allocation_failed());
        // SAFETY: write(2) is async-signal-safe; a short or failed write only loses the report.
        unsafe { libc::send(fd, frame.as_ptr() as *const _, frame.len(), libc::MSG_NOSIGNAL) };
    }
    // SAFETY: the handler was reset to the default action, which ends the process.
    unsafe { libc::raise(signal) };
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::protocol::channel::Channel;
    use crate::protocol::message::ToHost;
    use std::os::fd::AsRawFd;

    #[test]
    fn the_frame_is_what_the_protocol_encodes() {
        let encoded = ToHost::Fault { signal: libc::SIGSEGV, out_of_memory: true }.encode();
        assert_eq!(&fault_frame(libc::SIGSEGV, true)[8..], &encoded[..]);
        assert_eq!(u64::from_le_bytes(fault_frame(1, false)[..8].try_into().unwrap()), encoded.len() as u64);
    }

    /// Fork a child that installs the reporter on its end of a channel and then runs `die`; return what the
    /// parent reads and how the child ended.
    fn report_of(die: fn()) -> (ToHost, i32) {
        let (parent, child) = Channel::pair().unwrap();
        // SAFETY: the child makes system calls only and never returns into the harness.
        let pid = unsafe { libc::fork() };
        if pid == 0 {
            // Other tests in this process make allocations fail on purpose: start from a clean record.
            crate::memory::forget_allocation_failure();
            install(child.as_raw_fd()).unwrap();
            die();
            unsafe { libc::_exit(0) };
        }
        drop(child);
        let (frame, _) = parent.recv(64).unwrap();
        let mut status = 0;
        // SAFETY: our own child.
        unsafe { libc::waitpid(pid, &mut status, 0) };
        assert!(libc::WIFSIGNALED(status), "the child must still die of its signal: status {status}");
        (ToHost::decode(&frame).unwrap(), libc::WTERMSIG(status))
    }

    #[test]
    fn an_abort_is_reported_and_still_ends_the_process() {
        let (reply, signal) = report_of(|| std::process::abort());
        assert_eq!(reply, ToHost::Fault { signal: libc::SIGABRT, out_of_memory: false });
        assert_eq!(signal, libc::SIGABRT);
    }

    #[test]
    fn a_crash_after_a_failed_allocation_reads_as_out_of_memory() {
        let (reply, signal) = report_of(|| {
            crate::memory::note_allocation_failure();
            // SAFETY: deliberately fatal.
            unsafe { libc::raise(libc::SIGSEGV) };
        });
        assert_eq!(reply, ToHost::Fault { signal: libc::SIGSEGV, out_of_memory: true });
        assert_eq!(signal, libc::SIGSEGV);
    }
}
