//! Framed messages over a Unix stream socket: an 8-byte little-endian header (the frame's length, and the
//! core its sender ran on: see `readable_spinning`), then the frame. File
//! descriptors (a session's socket, a pidfd) travel as `SCM_RIGHTS` on the frame's first byte. Large frames
//! go out in one `sendmsg` of header and body, with no copy into a staging buffer.
//!
//! The receiving side decides the largest frame it accepts and never allocates for a length it has not
//! seen data for: a hostile peer announcing a huge frame costs nothing until it sends the bytes.

use std::io;
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd, RawFd};
use std::time::Instant;

/// At most this many descriptors come with one frame; more are closed and the frame is refused.
const MAX_FDS: usize = 4;
/// Bytes read at a time into a growing frame.
const CHUNK: usize = 1 << 20;
/// The header's top bit: the frame is out of line, in the memfd that comes with the header.
const OUT_OF_LINE: u64 = 1 << 63;
/// The header's bits 48-62: the core the sender was running on when it sent, plus one (0: not known). Only a
/// hint for `readable_spinning`, compared and never trusted: a peer that lies costs its own wait a spin.
const CORE_SHIFT: u32 = 48;
const CORE_BITS: u64 = 0x7fff << CORE_SHIFT;

/// The header of a frame of `len` bytes sent from this thread now.
fn header(len: u64) -> [u8; 8] {
    // SAFETY: sched_getcpu takes nothing (glibc reads it from the thread's rseq area); -1 when not known.
    let core = unsafe { libc::sched_getcpu() };
    let core = if (0..0x7fff).contains(&core) { core as u64 + 1 } else { 0 };
    (len | core << CORE_SHIFT).to_le_bytes()
}

fn checked_len(len: u64, max_frame: usize) -> io::Result<usize> {
    if len > max_frame as u64 {
        return Err(io::Error::new(
            io::ErrorKind::InvalidData,
            format!("a frame of {len} bytes is over the limit of {max_frame}"),
        ));
    }
    Ok(len as usize)
}

/// A received frame: read into memory, or mapped from the sender's memfd.
pub enum Frame {
    Inline(Vec<u8>),
    Mapped(Mapping),
}

/// A read-only private mapping of an out-of-line frame. Values decoded from it may adopt whole pages of it
/// as their heap blocks (`adopt`); the rest is unmapped with the frame.
pub struct Mapping {
    ptr: *const u8,
    len: usize,
    /// Page ranges now owned by adopted blocks, in order.
    adopted: std::cell::RefCell<Vec<(usize, usize)>>,
}

impl Mapping {
    /// `bytes`, a part of this frame starting on a page, as a heap block of their own: their pages leave the
    /// frame (see `memory::adopt`). None when they cannot be adopted; the caller copies them.
    pub fn adopt(&self, bytes: &[u8]) -> Option<Vec<u8>> {
        let (base, start) = (self.ptr as usize, bytes.as_ptr() as usize);
        if start < base || start + bytes.len() > base + self.len {
            return None;
        }
        let page = crate::memory::page_size();
        let mut adopted = self.adopted.borrow_mut();
        if adopted.last().is_some_and(|&(_, end)| start < end) {
            return None; // a page already given up
        }
        // SAFETY: pages of this private mapping, given up below: `drop` no longer unmaps them.
        let block = unsafe { crate::memory::adopt(bytes) }?;
        adopted.push((start, (start + bytes.len()).div_ceil(page) * page));
        Some(block)
    }
}

impl std::ops::Deref for Frame {
    type Target = [u8];

    fn deref(&self) -> &[u8] {
        match self {
            Frame::Inline(bytes) => bytes,
            // SAFETY: a live read-only mapping of `len` bytes, unmapped only on drop.
            Frame::Mapped(mapping) => unsafe { std::slice::from_raw_parts(mapping.ptr, mapping.len) },
        }
    }
}

impl Drop for Mapping {
    fn drop(&mut self) {
        let page = crate::memory::page_size();
        let mut from = self.ptr as usize;
        let end = (self.ptr as usize + self.len).div_ceil(page) * page;
        for &(start, stop) in self.adopted.borrow().iter().chain(std::iter::once(&(end, end))) {
            if start > from {
                // SAFETY: pages of the mapping made in `recv_trusted` that no block adopted, unmapped once.
                unsafe { libc::munmap(from as *mut libc::c_void, start - from) };
            }
            from = stop;
        }
    }
}

pub struct Channel {
    fd: OwnedFd,
    /// The core the peer ran on when it sent its last frame, plus one (0: not known; see `CORE_BITS`).
    peer_core: std::sync::atomic::AtomicU32,
}

impl Channel {
    /// Two connected ends, close-on-exec.
    pub fn pair() -> io::Result<(Channel, Channel)> {
        let mut fds = [0; 2];
        // SAFETY: `fds` has room for the two descriptors socketpair writes.
        if unsafe { libc::socketpair(libc::AF_UNIX, libc::SOCK_STREAM | libc::SOCK_CLOEXEC, 0, fds.as_mut_ptr()) } != 0
        {
            return Err(io::Error::last_os_error());
        }
        // SAFETY: both descriptors were just created and are owned by nobody else.
        Ok(unsafe { (Channel::from_raw(fds[0]), Channel::from_raw(fds[1])) })
    }

    /// # Safety
    /// `fd` must be an open socket descriptor that nothing else owns.
    pub unsafe fn from_raw(fd: RawFd) -> Self {
        Self::from_owned(unsafe { OwnedFd::from_raw_fd(fd) })
    }

    pub fn from_owned(fd: OwnedFd) -> Self {
        Self { fd, peer_core: Default::default() }
    }

    pub fn into_fd(self) -> OwnedFd {
        self.fd
    }

    /// Send one frame, with `fds` attached to its first byte.
    pub fn send(&self, frame: &[u8], fds: &[RawFd]) -> io::Result<()> {
        self.send_parts(&header(frame.len() as u64), frame, fds, None)
    }

    /// `send` to a peer that is not trusted: given up (`TimedOut`) when the whole frame has not gone by
    /// `deadline`, so a peer that stops reading cannot hold the sender.
    pub fn send_by(&self, frame: &[u8], fds: &[RawFd], deadline: Instant) -> io::Result<()> {
        self.send_parts(&header(frame.len() as u64), frame, fds, Some(deadline))
    }

    fn send_parts(&self, header: &[u8; 8], frame: &[u8], fds: &[RawFd], deadline: Option<Instant>) -> io::Result<()> {
        assert!(fds.len() <= MAX_FDS, "at most {MAX_FDS} descriptors per frame");
        let mut iov = [
            libc::iovec { iov_base: header.as_ptr() as *mut _, iov_len: header.len() },
            libc::iovec { iov_base: frame.as_ptr() as *mut _, iov_len: frame.len() },
        ];
        let mut control = ControlBuffer::new();
        // SAFETY: msghdr is plain data; every pointer set below outlives the sendmsg call.
        let mut msg: libc::msghdr = unsafe { std::mem::zeroed() };
        msg.msg_iov = iov.as_mut_ptr();
        msg.msg_iovlen = 2;
        if !fds.is_empty() {
            let fd_bytes = std::mem::size_of_val(fds) as u32;
            // SAFETY: the control buffer is sized and aligned for MAX_FDS descriptors (see ControlBuffer).
            unsafe {
                msg.msg_control = control.bytes.as_mut_ptr() as *mut _;
                msg.msg_controllen = libc::CMSG_SPACE(fd_bytes) as _;
                let cmsg = libc::CMSG_FIRSTHDR(&msg);
                (*cmsg).cmsg_level = libc::SOL_SOCKET;
                (*cmsg).cmsg_type = libc::SCM_RIGHTS;
                (*cmsg).cmsg_len = libc::CMSG_LEN(fd_bytes) as _;
                std::ptr::copy_nonoverlapping(fds.as_ptr(), libc::CMSG_DATA(cmsg) as *mut RawFd, fds.len());
            }
        }
        let total = header.len() + frame.len();
        // With a deadline, each call sends what fits now and the wait for room is a poll that ends with it.
        let flags = libc::MSG_NOSIGNAL | if deadline.is_some() { libc::MSG_DONTWAIT } else { 0 };
        let mut sent = loop {
            self.ready_by(libc::POLLOUT, deadline)?;
            // SAFETY: msg points at live buffers; MSG_NOSIGNAL turns a closed peer into EPIPE, not SIGPIPE.
            match retry_interrupted(|| unsafe { libc::sendmsg(self.fd.as_raw_fd(), &msg, flags) }) {
                Err(e) if e.kind() == io::ErrorKind::WouldBlock => continue,
                other => break other?,
            }
        };
        while sent < total {
            // The descriptors went with the first byte; the rest is plain data.
            let (buf, offset) = if sent < header.len() { (&header[..], sent) } else { (frame, sent - header.len()) };
            let rest = &buf[offset..];
            self.ready_by(libc::POLLOUT, deadline)?;
            // SAFETY: `rest` is a live slice.
            match retry_interrupted(|| unsafe {
                libc::send(self.fd.as_raw_fd(), rest.as_ptr() as *const _, rest.len(), flags)
            }) {
                Err(e) if e.kind() == io::ErrorKind::WouldBlock => continue,
                other => sent += other?,
            }
        }
        Ok(())
    }

    /// Wait until the socket is ready for `events` or `deadline` passes (`TimedOut`); at once without one.
    fn ready_by(&self, events: libc::c_short, deadline: Option<Instant>) -> io::Result<()> {
        let Some(deadline) = deadline else { return Ok(()) };
        let mut poll = libc::pollfd { fd: self.fd.as_raw_fd(), events, revents: 0 };
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            // Rounded up: a wait of 0.4 ms is not a poll of 0 that gives up early.
            let millis = left.as_micros().div_ceil(1000).min(i32::MAX as u128) as i32;
            // SAFETY: one valid pollfd.
            if retry_interrupted(|| unsafe { libc::poll(&mut poll, 1, millis) as isize })? > 0 {
                return Ok(());
            }
            if left.is_zero() {
                return Err(io::Error::new(io::ErrorKind::TimedOut, "the peer did not keep up"));
            }
        }
    }

    /// Receive one frame of at most `max_frame` bytes and the descriptors sent with it. A peer that closed
    /// its end gives `UnexpectedEof`; a frame over the limit, `InvalidData` (the channel is then unusable).
    pub fn recv(&self, max_frame: usize) -> io::Result<(Vec<u8>, Vec<OwnedFd>)> {
        self.recv_attested(max_frame).map(|(frame, fds, _)| (frame, fds))
    }

    /// `recv`, with the pid of the process that sent the frame as the kernel attests it (see
    /// `attest_senders`; None if not asked for before the frame was sent).
    pub fn recv_attested(&self, max_frame: usize) -> io::Result<(Vec<u8>, Vec<OwnedFd>, Option<u32>)> {
        self.recv_from(max_frame, None)
    }

    /// `recv_attested` from a peer that is not trusted: given up (`TimedOut`) when the whole frame has not
    /// arrived by `deadline`, however it trickles in.
    pub fn recv_by(&self, max_frame: usize, deadline: Instant) -> io::Result<(Vec<u8>, Vec<OwnedFd>, Option<u32>)> {
        self.recv_from(max_frame, Some(deadline))
    }

    fn recv_from(
        &self,
        max_frame: usize,
        deadline: Option<Instant>,
    ) -> io::Result<(Vec<u8>, Vec<OwnedFd>, Option<u32>)> {
        let (len, fds, sender) = self.read_header(deadline)?;
        // An out-of-line frame's flag makes its length far over any limit: refused here.
        let len = checked_len(len, max_frame)?;
        let mut frame: Vec<u8> = Vec::with_capacity(len.min(CHUNK));
        self.read_body(&mut frame, len, deadline)?;
        Ok((frame, fds, sender))
    }

    /// From now on, every message received carries its sender's pid as the kernel knows it
    /// (`SO_PASSCRED`): a peer cannot claim to be another process.
    pub fn attest_senders(&self) -> io::Result<()> {
        let on: libc::c_int = 1;
        // SAFETY: a valid int option on a socket we own.
        let done = unsafe {
            libc::setsockopt(
                self.fd.as_raw_fd(),
                libc::SOL_SOCKET,
                libc::SO_PASSCRED,
                &on as *const libc::c_int as *const libc::c_void,
                std::mem::size_of::<libc::c_int>() as libc::socklen_t,
            )
        };
        if done != 0 {
            return Err(io::Error::last_os_error());
        }
        Ok(())
    }

    /// `recv` from a peer that is trusted (the host, seen from a session process): the frame's buffer is
    /// allocated at once, and an out-of-line frame (see `send_out_of_line`) is mapped, not copied.
    pub fn recv_trusted(&self, max_frame: usize) -> io::Result<(Frame, Vec<OwnedFd>)> {
        let (len, mut fds, _) = self.read_header(None)?;
        if len & OUT_OF_LINE == 0 {
            let len = checked_len(len, max_frame)?;
            let mut frame: Vec<u8> = Vec::with_capacity(len);
            self.read_body(&mut frame, len, None)?;
            return Ok((Frame::Inline(frame), fds));
        }
        let len = checked_len(len & !OUT_OF_LINE, max_frame)?;
        let memfd = fds
            .pop()
            .ok_or_else(|| io::Error::new(io::ErrorKind::InvalidData, "an out-of-line frame without its file"))?;
        if len == 0 {
            return Ok((Frame::Inline(Vec::new()), fds));
        }
        // SAFETY: a fresh read-only private mapping of the sender's memfd, unmapped by `Mapping`'s drop. Its
        // pages are mapped at once (the frame is read whole), not a fault at a time.
        let flags = libc::MAP_PRIVATE | libc::MAP_POPULATE;
        let ptr = unsafe { libc::mmap(std::ptr::null_mut(), len, libc::PROT_READ, flags, memfd.as_raw_fd(), 0) };
        if ptr == libc::MAP_FAILED {
            return Err(io::Error::last_os_error());
        }
        Ok((Frame::Mapped(Mapping { ptr: ptr as *const u8, len, adopted: Default::default() }), fds))
    }

    /// Send a large frame out of line: its parts written once into a memfd, whose descriptor goes through the
    /// socket with the length (flagged), so the frame never squeezes through the socket's ~200 KB buffer. Only
    /// a peer that reads with `recv_trusted` accepts it. (The host sends with a deadline; tests without.)
    #[cfg(test)]
    pub fn send_out_of_line(&self, parts: &[&[u8]]) -> io::Result<()> {
        self.send_out_of_line_by(parts, None)
    }

    /// `send_out_of_line`, given up when the header has not gone by `deadline` (see `send_by`).
    pub fn send_out_of_line_by(&self, parts: &[&[u8]], deadline: Option<Instant>) -> io::Result<()> {
        // SAFETY: memfd_create with a static name; the descriptor is owned at once.
        let raw = unsafe { libc::memfd_create(c"frame".as_ptr(), libc::MFD_CLOEXEC) };
        if raw < 0 {
            return Err(io::Error::last_os_error());
        }
        // SAFETY: a descriptor we just created.
        let memfd = unsafe { OwnedFd::from_raw_fd(raw) };
        let mut len = 0;
        for part in parts {
            let mut written = 0;
            while written < part.len() {
                let rest = &part[written..];
                // SAFETY: writes from a live slice.
                written += retry_interrupted(|| unsafe {
                    libc::write(memfd.as_raw_fd(), rest.as_ptr() as *const _, rest.len())
                })?;
            }
            len += part.len();
        }
        let header = header(len as u64 | OUT_OF_LINE);
        self.send_parts(&header, &[], &[memfd.as_raw_fd()], deadline)
    }

    /// The length of the next frame (with its `OUT_OF_LINE` flag), with the descriptors that came with it; the
    /// sender's core is kept for `readable_spinning`.
    fn read_header(&self, deadline: Option<Instant>) -> io::Result<(u64, Vec<OwnedFd>, Option<u32>)> {
        let mut header = [0u8; 8];
        let mut got = 0;
        let mut fds = Vec::new();
        let mut sender = None;
        while got < header.len() {
            let mut iov = libc::iovec { iov_base: header[got..].as_mut_ptr() as *mut _, iov_len: header.len() - got };
            let mut control = ControlBuffer::new();
            // SAFETY: as in `send`: plain data pointing at buffers that outlive the call.
            let mut msg: libc::msghdr = unsafe { std::mem::zeroed() };
            msg.msg_iov = &mut iov;
            msg.msg_iovlen = 1;
            msg.msg_control = control.bytes.as_mut_ptr() as *mut _;
            msg.msg_controllen = control.bytes.len() as _;
            self.ready_by(libc::POLLIN, deadline)?;
            // SAFETY: msg is valid for the call; received descriptors are close-on-exec.
            let n =
                retry_interrupted(|| unsafe { libc::recvmsg(self.fd.as_raw_fd(), &mut msg, libc::MSG_CMSG_CLOEXEC) })?;
            // SAFETY: the kernel filled the control buffer as msg describes.
            unsafe { take_control(&msg, &mut fds, &mut sender) };
            if msg.msg_flags & libc::MSG_CTRUNC != 0 {
                return Err(io::Error::new(io::ErrorKind::InvalidData, "too many descriptors with one frame"));
            }
            if n == 0 {
                return Err(io::ErrorKind::UnexpectedEof.into());
            }
            got += n;
        }
        let header = u64::from_le_bytes(header);
        self.peer_core.store(((header & CORE_BITS) >> CORE_SHIFT) as u32, std::sync::atomic::Ordering::Relaxed);
        Ok((header & !CORE_BITS, fds, sender))
    }

    /// Read a frame body of `len` bytes into `frame`, growing it a chunk at a time as bytes arrive.
    fn read_body(&self, frame: &mut Vec<u8>, len: usize, deadline: Option<Instant>) -> io::Result<()> {
        while frame.len() < len {
            if frame.capacity() == frame.len() {
                frame.reserve((len - frame.len()).min(frame.len().max(CHUNK)));
            }
            let room = (frame.capacity() - frame.len()).min(len - frame.len());
            self.ready_by(libc::POLLIN, deadline)?;
            // SAFETY: reads into the spare capacity, then exposes only the bytes the kernel wrote.
            let n = retry_interrupted(|| unsafe {
                libc::recv(self.fd.as_raw_fd(), frame.as_mut_ptr().add(frame.len()) as *mut _, room, 0)
            })?;
            if n == 0 {
                return Err(io::ErrorKind::UnexpectedEof.into());
            }
            // SAFETY: `n` bytes past the old length were just written.
            unsafe { frame.set_len(frame.len() + n) };
        }
        Ok(())
    }

    /// Look for something to read for up to `spin` without sleeping (yielding the core to any other thread
    /// that wants it); true when there is. The peer usually answers within microseconds, and waking a
    /// sleeping thread costs tens of them (more in a VM, where the wake-up is an interrupt to another virtual
    /// CPU): a short spin first saves both sides that.
    ///
    /// Not while the peer last ran on this thread's core: the answer then needs this core, and yielding does
    /// not give it up (the kernel's EEVDF scheduler runs a yielding thread again at once when the other has
    /// had more than its share, as a peer that just computed has), so each spin would delay the answer it waits
    /// for by its whole length: with host and session on one core, most of a short cell's `execute()`.
    pub fn readable_spinning(&self, spin: std::time::Duration) -> bool {
        if self.peer_shares_core() {
            return self.readable_within(std::time::Duration::ZERO).unwrap_or(true);
        }
        let started = std::time::Instant::now();
        loop {
            if self.readable_within(std::time::Duration::ZERO).unwrap_or(true) {
                return true;
            }
            if started.elapsed() >= spin {
                return false;
            }
            // Not a busy spin: on a machine with few cores the thread that will answer (or a checkpoint
            // being forked or let go) may need this core.
            std::thread::yield_now();
        }
    }

    /// Whether the peer's last frame was sent from the core this thread runs on now.
    fn peer_shares_core(&self) -> bool {
        let peer = self.peer_core.load(std::sync::atomic::Ordering::Relaxed);
        // SAFETY: as in `header`.
        peer != 0 && peer as i64 == unsafe { libc::sched_getcpu() } as i64 + 1
    }

    /// Wait up to `timeout` for something to read (or the peer's hang-up); true when there is.
    pub fn readable_within(&self, timeout: std::time::Duration) -> io::Result<bool> {
        let mut poll = libc::pollfd { fd: self.fd.as_raw_fd(), events: libc::POLLIN, revents: 0 };
        let millis = timeout.as_millis().min(i32::MAX as u128) as i32;
        // SAFETY: one valid pollfd.
        let n = retry_interrupted(|| unsafe { libc::poll(&mut poll, 1, millis) as isize })?;
        Ok(n > 0)
    }
}

impl Channel {
    /// Wait up to `timeout` for something to read here or on `other` (an eventfd another thread signals):
    /// which of the two is ready.
    pub fn readable_or(&self, other: RawFd, timeout: std::time::Duration) -> io::Result<(bool, bool)> {
        let mut polls = [
            libc::pollfd { fd: self.fd.as_raw_fd(), events: libc::POLLIN, revents: 0 },
            libc::pollfd { fd: other, events: libc::POLLIN, revents: 0 },
        ];
        let millis = timeout.as_millis().min(i32::MAX as u128) as i32;
        // SAFETY: two valid pollfds.
        retry_interrupted(|| unsafe { libc::poll(polls.as_mut_ptr(), 2, millis) as isize })?;
        Ok((polls[0].revents != 0, polls[1].revents != 0))
    }
}

impl AsRawFd for Channel {
    fn as_raw_fd(&self) -> RawFd {
        self.fd.as_raw_fd()
    }
}

/// Room for one SCM_RIGHTS message of MAX_FDS descriptors and one SCM_CREDENTIALS, aligned for `cmsghdr`.
#[repr(C)]
struct ControlBuffer {
    _align: [libc::cmsghdr; 0],
    bytes: [u8; 128],
}

impl ControlBuffer {
    fn new() -> Self {
        // SAFETY: CMSG_SPACE is a pure computation.
        debug_assert!(
            unsafe { libc::CMSG_SPACE((MAX_FDS * std::mem::size_of::<RawFd>()) as u32) }
                + unsafe { libc::CMSG_SPACE(std::mem::size_of::<libc::ucred>() as u32) }
                <= 128
        );
        Self { _align: [], bytes: [0; 128] }
    }
}

/// Move every descriptor of the message's SCM_RIGHTS parts into `fds` (owned, so closed if dropped), and
/// note the sender's pid from an SCM_CREDENTIALS part (the first one seen counts).
///
/// # Safety
/// `msg` must have been filled by a successful `recvmsg`.
unsafe fn take_control(msg: &libc::msghdr, fds: &mut Vec<OwnedFd>, sender: &mut Option<u32>) {
    let mut cmsg = unsafe { libc::CMSG_FIRSTHDR(msg) };
    while !cmsg.is_null() {
        let header = unsafe { &*cmsg };
        if header.cmsg_level == libc::SOL_SOCKET && header.cmsg_type == libc::SCM_RIGHTS {
            let data = unsafe { libc::CMSG_DATA(cmsg) } as *const RawFd;
            let bytes = header.cmsg_len as usize - unsafe { libc::CMSG_LEN(0) } as usize;
            for i in 0..bytes / std::mem::size_of::<RawFd>() {
                let fd = unsafe { std::ptr::read_unaligned(data.add(i)) };
                fds.push(unsafe { OwnedFd::from_raw_fd(fd) });
            }
        } else if header.cmsg_level == libc::SOL_SOCKET && header.cmsg_type == libc::SCM_CREDENTIALS {
            let credentials = unsafe { std::ptr::read_unaligned(libc::CMSG_DATA(cmsg) as *const libc::ucred) };
            // Pid 0: the message was sent before the receiver asked; nothing is attested.
            if credentials.pid > 0 {
                sender.get_or_insert(credentials.pid as u32);
            }
        }
        cmsg = unsafe { libc::CMSG_NXTHDR(msg, cmsg) };
    }
}

fn retry_interrupted(mut call: impl FnMut() -> isize) -> io::Result<usize> {
    loop {
        let n = call();
        if n >= 0 {
            return Ok(n as usize);
        }
        let error = io::Error::last_os_error();
        if error.kind() != io::ErrorKind::Interrupted {
            return Err(error);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::{Read, Write};

    #[test]
    fn frames_of_any_size_arrive_whole_and_in_order() {
        let (a, b) = Channel::pair().unwrap();
        let big: Vec<u8> = (0..(10 << 20)).map(|i| (i % 251) as u8).collect();
        let expected = big.clone();
        let sender = std::thread::spawn(move || {
            a.send(b"first", &[]).unwrap();
            a.send(&big, &[]).unwrap();
            a.send(b"", &[]).unwrap();
        });
        assert_eq!(b.recv(1 << 30).unwrap().0, b"first");
        assert_eq!(b.recv(1 << 30).unwrap().0, expected);
        assert_eq!(b.recv(1 << 30).unwrap().0, b"");
        sender.join().unwrap();
    }

    #[test]
    fn an_out_of_line_frame_arrives_mapped_and_only_where_trusted() {
        let (a, b) = Channel::pair().unwrap();
        let big: Vec<u8> = (0..(3 << 20)).map(|i| (i % 253) as u8).collect();
        a.send_out_of_line(&[&big[..10], &big[10..]]).unwrap();
        a.send(b"after", &[]).unwrap();
        let (frame, fds) = b.recv_trusted(1 << 30).unwrap();
        assert!(matches!(frame, Frame::Mapped(_)) && fds.is_empty(), "the memfd is used up by the frame");
        assert!(*frame == big[..]);
        let (next, _) = b.recv_trusted(1 << 30).unwrap();
        assert_eq!(&*next, b"after");
        // An untrusting reader (the host) refuses it: its flagged length is over any limit.
        a.send_out_of_line(&[&big[..10], &big[10..]]).unwrap();
        assert_eq!(b.recv(1 << 30).unwrap_err().kind(), std::io::ErrorKind::InvalidData);
    }

    #[test]
    fn the_kernel_attests_who_sent_a_frame_once_asked() {
        let (a, b) = Channel::pair().unwrap();
        a.send(b"before", &[]).unwrap();
        b.attest_senders().unwrap();
        a.send(b"after", &[]).unwrap();
        assert_eq!(b.recv_attested(64).unwrap().2, None, "sent before the receiver asked");
        assert_eq!(b.recv_attested(64).unwrap().2, Some(std::process::id()));
    }

    #[test]
    fn descriptors_travel_with_a_frame() {
        let (a, b) = Channel::pair().unwrap();
        let (mut reader, writer) = std::io::pipe().unwrap();
        a.send(b"here", &[writer.as_raw_fd()]).unwrap();
        drop(writer);
        let (frame, fds) = b.recv(64).unwrap();
        assert_eq!(frame, b"here");
        assert_eq!(fds.len(), 1);
        let mut received = std::fs::File::from(fds.into_iter().next().unwrap());
        received.write_all(b"through the passed pipe").unwrap();
        drop(received);
        let mut text = String::new();
        reader.read_to_string(&mut text).unwrap();
        assert_eq!(text, "through the passed pipe");
    }

    #[test]
    fn an_announced_frame_over_the_limit_is_refused_without_allocating_it() {
        let (a, b) = Channel::pair().unwrap();
        // A hostile peer announces 2**47 bytes and sends none.
        let header = (1u64 << 47).to_le_bytes();
        // SAFETY: a live buffer on an open socket.
        assert_eq!(unsafe { libc::send(a.as_raw_fd(), header.as_ptr() as *const _, 8, 0) }, 8);
        let error = b.recv(1 << 30).unwrap_err();
        assert_eq!(error.kind(), io::ErrorKind::InvalidData);
    }

    #[test]
    fn a_trickled_frame_or_a_peer_that_does_not_read_is_given_up_by_the_deadline() {
        use std::time::{Duration, Instant};
        let (a, b) = Channel::pair().unwrap();
        let trickle = std::thread::spawn(move || {
            // A header announcing 100 bytes, then a byte every 100 ms: each renews any per-call timeout.
            // SAFETY: plain sends on a socket this thread owns.
            unsafe { libc::send(a.as_raw_fd(), 100u64.to_le_bytes().as_ptr() as *const _, 8, 0) };
            for _ in 0..20 {
                std::thread::sleep(Duration::from_millis(100));
                unsafe { libc::send(a.as_raw_fd(), b"x".as_ptr() as *const _, 1, libc::MSG_NOSIGNAL) };
            }
            a
        });
        let started = Instant::now();
        let error = b.recv_by(1 << 20, Instant::now() + Duration::from_millis(500)).unwrap_err();
        assert_eq!(error.kind(), io::ErrorKind::TimedOut);
        assert!(started.elapsed() < Duration::from_millis(1500), "{:?}", started.elapsed());
        let a = trickle.join().unwrap();
        // `b` never reads: sending frames to it fills the socket, and the sender gives up at its deadline.
        let started = Instant::now();
        let big = vec![0u8; 256 << 10];
        let sent = (0..64).try_for_each(|_| a.send_by(&big, &[], started + Duration::from_millis(300)));
        assert_eq!(sent.unwrap_err().kind(), io::ErrorKind::TimedOut);
        assert!(started.elapsed() < Duration::from_millis(1300), "{:?}", started.elapsed());
    }

    /// Pin the calling thread to one core.
    fn pin_to(core: usize) {
        // SAFETY: a zeroed cpu_set_t with one bit set, for this thread.
        unsafe {
            let mut set: libc::cpu_set_t = std::mem::zeroed();
            libc::CPU_SET(core, &mut set);
            assert_eq!(libc::sched_setaffinity(0, std::mem::size_of::<libc::cpu_set_t>(), &set), 0);
        }
    }

    #[test]
    fn each_frame_tells_the_receiver_whether_its_sender_ran_on_the_same_core() {
        let (a, b) = Channel::pair().unwrap();
        let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
        let receiver = std::thread::spawn(move || {
            pin_to(0);
            assert!(!b.peer_shares_core(), "nothing received yet");
            let mut seen = Vec::new();
            for _ in 0..2 {
                let (frame, _) = b.recv_trusted(1 << 20).unwrap();
                seen.push((frame.to_vec(), b.peer_shares_core()));
            }
            seen
        });
        let sender = std::thread::spawn(move || {
            pin_to(0);
            a.send(b"from core 0", &[]).unwrap();
            pin_to(cores - 1);
            a.send_out_of_line(&[b"from the last core"]).unwrap();
            a
        });
        let _a = sender.join().unwrap();
        let seen = receiver.join().unwrap();
        assert_eq!(seen[0], (b"from core 0".to_vec(), true));
        // Out of line, the flag and the core share the header with the length: the frame is read as sent.
        assert_eq!(seen[1], (b"from the last core".to_vec(), cores == 1));
    }

    #[test]
    fn a_closed_peer_is_end_of_file_even_mid_frame() {
        let (a, b) = Channel::pair().unwrap();
        let header = 100u64.to_le_bytes();
        // SAFETY: as above.
        unsafe { libc::send(a.as_raw_fd(), header.as_ptr() as *const _, 8, 0) };
        drop(a);
        assert_eq!(b.recv(1 << 20).unwrap_err().kind(), io::ErrorKind::UnexpectedEof);
        let (c, d) = Channel::pair().unwrap();
        drop(c);
        assert_eq!(d.recv(1 << 20).unwrap_err().kind(), io::ErrorKind::UnexpectedEof);
        assert!(d.readable_within(std::time::Duration::from_millis(10)).unwrap(), "a hang-up is readable");
    }
}
