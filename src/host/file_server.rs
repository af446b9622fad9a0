//! The host's side of a session's mounts: `HostMounts`, a session's mounts open on the host, which does the
//! operations the session asks for in a mount's folder.
//!
//! Nothing from the session is trusted: every name is checked again, every path is resolved by the kernel
//! beneath the mount's folder without following any link (`openat2` with `RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS
//! | RESOLVE_NO_MAGICLINKS | RESOLVE_NO_XDEV`), and only regular files with one name and directories are used:
//! links, hard-linked files, devices, FIFOs and sockets are neither listed nor opened. Writes go to read-write
//! mounts only, within the session's byte and entry budgets. A package set's folders (`Mount.of_package`) are
//! read-only and show hard-linked files too: installers link a package's files to their caches (uv does by
//! default), and a link planted in `site-packages` would need the write access that runs code in the host.

use std::ffi::CString;
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd, RawFd};
use std::path::Path;
use std::sync::atomic::{AtomicU64, Ordering};

use pyo3::exceptions::PyFileNotFoundError;
use pyo3::prelude::*;

use crate::protocol::files::{FileAnswer, FileKind, FileOp, FileStat, FilesOptions, MountMode, MAX_TRANSFER};

use crate::host::mounts::{check_distinct, open_mount_root, Mount, MAX_NAME};

/// Paths longer than this (in bytes, below the mount) are refused.
const MAX_PATH: usize = 4096;
/// Entries one listing answers with at most.
const MAX_LISTING: usize = 100_000;
/// Changes one cell may make to its mounts: each answer stays in the host's journal until the next checkpoint.
pub const MAX_CHANGES_PER_RUN: usize = 100_000;

/// One mount, open for a session.
struct OpenMount {
    /// The folder everything is resolved beneath (for a file mount, the folder holding it).
    root: OwnedFd,
    /// For a file mount: the file's name in `root`.
    file_name: Option<String>,
    mode: MountMode,
    /// Whether hard-linked files are shown (a package set's folder).
    linked_files: bool,
}

/// A session's mounts, and what it wrote to them.
pub struct HostMounts {
    mounts: Vec<OpenMount>,
    max_bytes: u64,
    max_files: u64,
    /// Bytes by which the session grew files in read-write mounts, and entries it created there.
    grown: AtomicU64,
    created: AtomicU64,
}

type OpResult<T> = Result<T, (i32, String)>;

fn last_error() -> (i32, String) {
    (std::io::Error::last_os_error().raw_os_error().unwrap_or(libc::EIO), String::new())
}

fn refused(detail: &str) -> (i32, String) {
    (libc::EACCES, detail.to_owned())
}

fn fstat(fd: RawFd) -> OpResult<libc::stat> {
    // SAFETY: `stat` is plain data, filled by the kernel.
    let mut st: libc::stat = unsafe { std::mem::zeroed() };
    // SAFETY: a valid descriptor and a valid out-pointer.
    if unsafe { libc::fstat(fd, &mut st) } != 0 {
        return Err(last_error());
    }
    Ok(st)
}

/// What `mount` shows of an entry with this status: a directory, a regular file with one name (or with more, in a
/// package set's folder), or nothing.
fn exposed(mount: &OpenMount, st: &libc::stat) -> OpResult<FileStat> {
    let mtime_ns =
        (st.st_mtime.max(0) as u64).saturating_mul(1_000_000_000).saturating_add(st.st_mtime_nsec.max(0) as u64);
    match st.st_mode & libc::S_IFMT {
        libc::S_IFDIR => Ok(FileStat { kind: FileKind::Dir, size: 4096, mtime_ns }),
        libc::S_IFREG if st.st_nlink <= 1 || mount.linked_files => {
            Ok(FileStat { kind: FileKind::File, size: st.st_size.max(0) as u64, mtime_ns })
        }
        libc::S_IFREG => Err(refused("a file with several hard links is not exposed by a mount")),
        _ => Err(refused("only regular files and folders are exposed by a mount")),
    }
}

impl HostMounts {
    /// Open `mounts` for a session; the folders must still be there.
    pub fn open(mounts: &[Mount], max_bytes: u64, max_files: u64) -> PyResult<Self> {
        let mut opened = Vec::with_capacity(mounts.len());
        for mount in mounts {
            let host = Path::new(&mount.host_path);
            let gone = |e: std::io::Error| {
                PyFileNotFoundError::new_err(format!(
                    "mount {}: host path {} cannot be opened ({e})",
                    mount.path, mount.host_path
                ))
            };
            let is_file = std::fs::metadata(host).map_err(gone)?.is_file();
            // Checked again where the session's mounts are opened: the folder at that path may have changed.
            let root = open_mount_root(&mount.path, host, is_file)?;
            let file_name = if is_file { host.file_name().and_then(|n| n.to_str()).map(str::to_owned) } else { None };
            opened.push(OpenMount { root, file_name, mode: mount.mode(), linked_files: mount.package });
        }
        Ok(Self { mounts: opened, max_bytes, max_files, grown: AtomicU64::new(0), created: AtomicU64::new(0) })
    }

    /// What the session is told about `mounts` (as opened here) and its quotas.
    pub fn options(&self, mounts: &[Mount]) -> FilesOptions {
        let decls = mounts.iter().zip(&self.mounts).map(|(m, open)| m.decl(open.file_name.is_some())).collect();
        FilesOptions { mounts: decls, files_max_bytes: self.max_bytes, files_max_count: self.max_files }
    }

    /// The answer to `op` when it is refused whatever the host folder holds (an unknown mount, a change to a
    /// mount that is not `rw`, a name that is not a plain name): such answers need no journal, a replay gets
    /// them again. None when `op` must be served.
    pub fn refused_up_front(&self, op: &FileOp) -> Option<FileAnswer> {
        let check = || -> OpResult<()> {
            let mount = self.mount(op.mount())?;
            if op.changes_host() {
                self.writable(mount)?;
            }
            match op {
                FileOp::Rename { from, to, .. } => self.relative(mount, from).and(self.relative(mount, to)).map(drop),
                FileOp::Stat { path, .. }
                | FileOp::List { path, .. }
                | FileOp::Read { path, .. }
                | FileOp::Write { path, .. }
                | FileOp::Truncate { path, .. }
                | FileOp::Mkdir { path, .. }
                | FileOp::Rmdir { path, .. }
                | FileOp::Unlink { path, .. }
                | FileOp::Utime { path, .. } => self.relative(mount, path).map(drop),
            }
        };
        check().err().map(|(errno, detail)| FileAnswer::Failed { errno, detail })
    }

    /// The answer to `op` during a run, and whether the journal must keep it: only the answers to changes the
    /// host may have made are kept (at most `MAX_CHANGES_PER_RUN` a cell); reads and up-front refusals are done
    /// again on replay, so a cell hammering its mounts costs the host no memory.
    pub fn answer(&self, op: &FileOp, changes: &mut usize) -> (FileAnswer, bool) {
        match self.not_journaled(op, changes) {
            Some(answer) => (answer, false),
            None => (self.serve(op), true),
        }
    }

    /// On replay: the answer to `op` when it is not in the journal (done again, see `answer`), None when the
    /// journal has it. Counts the changes as `answer` does.
    pub fn not_journaled(&self, op: &FileOp, changes: &mut usize) -> Option<FileAnswer> {
        if !op.changes_host() {
            return Some(self.serve(op));
        }
        if let Some(refusal) = self.refused_up_front(op) {
            return Some(refusal);
        }
        if *changes >= MAX_CHANGES_PER_RUN {
            return Some(FileAnswer::Failed {
                errno: libc::ENOSPC,
                detail: format!("a cell changes its mounts at most {MAX_CHANGES_PER_RUN} times"),
            });
        }
        *changes += 1;
        None
    }

    /// Do `op` and say how it went; never panics on what the session sent.
    pub fn serve(&self, op: &FileOp) -> FileAnswer {
        match self.serve_op(op) {
            Ok(answer) => answer,
            Err((errno, detail)) => FileAnswer::Failed { errno, detail },
        }
    }

    fn mount(&self, index: u32) -> OpResult<&OpenMount> {
        self.mounts.get(index as usize).ok_or((libc::ENOENT, "no such mount".into()))
    }

    fn serve_op(&self, op: &FileOp) -> OpResult<FileAnswer> {
        let mount = self.mount(op.mount())?;
        match op {
            FileOp::Stat { path, .. } => {
                let fd = self.open_at(mount, path, libc::O_PATH)?;
                Ok(FileAnswer::Stat(exposed(mount, &fstat(fd.as_raw_fd())?)?))
            }
            FileOp::List { path, .. } => self.list(mount, path).map(FileAnswer::List),
            FileOp::Read { path, offset, size, .. } => {
                let fd = self.open_file(mount, path, libc::O_RDONLY)?;
                let want = (*size).min(MAX_TRANSFER as u64) as usize;
                let mut data = vec![0u8; want];
                let mut got = 0;
                while got < want {
                    // SAFETY: reads into the vector's own initialised bytes.
                    let n = unsafe {
                        libc::pread(
                            fd.as_raw_fd(),
                            data[got..].as_mut_ptr().cast(),
                            want - got,
                            (*offset + got as u64) as libc::off_t,
                        )
                    };
                    if n < 0 {
                        return Err(last_error());
                    }
                    if n == 0 {
                        break;
                    }
                    got += n as usize;
                }
                data.truncate(got);
                Ok(FileAnswer::Data(data))
            }
            FileOp::Write { path, offset, data, create, .. } => {
                self.writable(mount)?;
                let fd = if *create {
                    self.count_created()?;
                    self.open_file(mount, path, libc::O_WRONLY | libc::O_CREAT | libc::O_EXCL)?
                } else {
                    self.open_file(mount, path, libc::O_WRONLY)?
                };
                let size = fstat(fd.as_raw_fd())?.st_size.max(0) as u64;
                let end = offset.checked_add(data.len() as u64).ok_or((libc::EFBIG, String::new()))?;
                // A write inside the file leaves its size: only a truncation or a removal gives bytes back.
                self.grow(size, end.max(size))?;
                let mut done = 0;
                while done < data.len() {
                    // SAFETY: writes from the slice's own bytes.
                    let n = unsafe {
                        libc::pwrite(
                            fd.as_raw_fd(),
                            data[done..].as_ptr().cast(),
                            data.len() - done,
                            (*offset + done as u64) as libc::off_t,
                        )
                    };
                    if n < 0 {
                        return Err(last_error());
                    }
                    done += n as usize;
                }
                Ok(FileAnswer::Done)
            }
            FileOp::Truncate { path, size, .. } => {
                self.writable(mount)?;
                let fd = self.open_file(mount, path, libc::O_WRONLY)?;
                let old = fstat(fd.as_raw_fd())?.st_size.max(0) as u64;
                self.grow(old, *size)?;
                // SAFETY: a valid descriptor.
                if unsafe { libc::ftruncate(fd.as_raw_fd(), *size as libc::off_t) } != 0 {
                    return Err(last_error());
                }
                Ok(FileAnswer::Done)
            }
            FileOp::Mkdir { path, .. } => {
                self.writable(mount)?;
                self.count_created()?;
                let (parent, name) = self.parent_of(mount, path)?;
                // SAFETY: a valid directory descriptor and a checked, NUL-terminated name.
                if unsafe { libc::mkdirat(parent.as_raw_fd(), name.as_ptr(), 0o755) } != 0 {
                    return Err(last_error());
                }
                Ok(FileAnswer::Done)
            }
            FileOp::Rmdir { path, .. } | FileOp::Unlink { path, .. } => {
                self.writable(mount)?;
                let is_dir = matches!(op, FileOp::Rmdir { .. });
                let (parent, name) = self.parent_of(mount, path)?;
                let stat = self.entry_stat(mount, &parent, &name)?;
                if is_dir != (stat.kind == FileKind::Dir) {
                    return Err((if is_dir { libc::ENOTDIR } else { libc::EISDIR }, String::new()));
                }
                let flags = if is_dir { libc::AT_REMOVEDIR } else { 0 };
                // SAFETY: as above.
                if unsafe { libc::unlinkat(parent.as_raw_fd(), name.as_ptr(), flags) } != 0 {
                    return Err(last_error());
                }
                if !is_dir {
                    self.grown
                        .fetch_update(Ordering::SeqCst, Ordering::SeqCst, |g| Some(g.saturating_sub(stat.size)))
                        .ok();
                }
                Ok(FileAnswer::Done)
            }
            FileOp::Rename { from, to, .. } => {
                self.writable(mount)?;
                let (from_parent, from_name) = self.parent_of(mount, from)?;
                let (to_parent, to_name) = self.parent_of(mount, to)?;
                self.entry_stat(mount, &from_parent, &from_name)?;
                // What the name holds now is replaced: it must be something the mount shows (a link, a
                // hard-linked file or a FIFO it hides must not be removed this way).
                match self.entry_stat(mount, &to_parent, &to_name) {
                    Ok(_) => {}
                    Err((libc::ENOENT, _)) => {}
                    Err(refusal) => return Err(refusal),
                }
                // SAFETY: valid directory descriptors and checked names.
                if unsafe {
                    libc::renameat(from_parent.as_raw_fd(), from_name.as_ptr(), to_parent.as_raw_fd(), to_name.as_ptr())
                } != 0
                {
                    return Err(last_error());
                }
                Ok(FileAnswer::Done)
            }
            FileOp::Utime { path, atime_ns, mtime_ns, .. } => {
                self.writable(mount)?;
                let (parent, name) = self.parent_of(mount, path)?;
                self.entry_stat(mount, &parent, &name)?;
                let spec = |ns: u64| libc::timespec {
                    tv_sec: (ns / 1_000_000_000) as libc::time_t,
                    tv_nsec: (ns % 1_000_000_000) as _,
                };
                let times = [spec(*atime_ns), spec(*mtime_ns)];
                // SAFETY: valid descriptor, name and times.
                if unsafe {
                    libc::utimensat(parent.as_raw_fd(), name.as_ptr(), times.as_ptr(), libc::AT_SYMLINK_NOFOLLOW)
                } != 0
                {
                    return Err(last_error());
                }
                Ok(FileAnswer::Done)
            }
        }
    }

    fn writable(&self, mount: &OpenMount) -> OpResult<()> {
        match mount.mode {
            MountMode::ReadWrite => Ok(()),
            _ => Err((libc::EROFS, String::new())),
        }
    }

    fn count_created(&self) -> OpResult<()> {
        let max = self.max_files;
        self.created
            .fetch_update(Ordering::SeqCst, Ordering::SeqCst, |n| (n < max).then_some(n + 1))
            .map(drop)
            .map_err(|_| (libc::ENOSPC, format!("a session creates at most {max} entries in its mounts")))
    }

    /// A file growing from `old` to `new` bytes: within the session's budget for its mounts.
    fn grow(&self, old: u64, new: u64) -> OpResult<()> {
        let max = self.max_bytes;
        if new > max {
            return Err((libc::ENOSPC, format!("a file in a mount holds at most {max} bytes (files_max_bytes)")));
        }
        if new <= old {
            self.grown.fetch_update(Ordering::SeqCst, Ordering::SeqCst, |g| Some(g.saturating_sub(old - new))).ok();
            return Ok(());
        }
        self.grown
            .fetch_update(Ordering::SeqCst, Ordering::SeqCst, |g| {
                g.checked_add(new - old).filter(|total| *total <= max)
            })
            .map(drop)
            .map_err(|_| {
                (libc::ENOSPC, format!("a session writes at most {max} bytes into its mounts (files_max_bytes)"))
            })
    }

    /// The path below the mount's root that `names` lead to, each name checked; None for the root itself.
    fn relative(&self, mount: &OpenMount, names: &[String]) -> OpResult<Option<String>> {
        for name in names {
            let bad = name.is_empty() || name == "." || name == ".." || name.contains('/') || name.contains('\0');
            if bad {
                return Err((libc::EINVAL, "a path name in a mount must be a plain name".into()));
            }
            if name.len() > MAX_NAME {
                return Err((libc::ENAMETOOLONG, String::new()));
            }
        }
        let joined = names.join("/");
        if joined.len() > MAX_PATH {
            return Err((libc::ENAMETOOLONG, String::new()));
        }
        match &mount.file_name {
            Some(file) if names.is_empty() => Ok(Some(file.clone())),
            Some(_) => Err((libc::ENOTDIR, String::new())),
            None if names.is_empty() => Ok(None),
            None => Ok(Some(joined)),
        }
    }

    /// Open `names` beneath the mount's root, following no link and leaving neither the folder nor its
    /// filesystem.
    fn open_at(&self, mount: &OpenMount, names: &[String], flags: i32) -> OpResult<OwnedFd> {
        let path = self.relative(mount, names)?.unwrap_or_else(|| ".".into());
        let c = CString::new(path).map_err(|_| (libc::EINVAL, String::new()))?;
        let mut how: libc::open_how = unsafe { std::mem::zeroed() };
        // openat2 refuses flags that do not apply (O_PATH takes only O_DIRECTORY, O_NOFOLLOW and O_CLOEXEC).
        let extra = if flags & libc::O_PATH != 0 { 0 } else { libc::O_NOCTTY };
        how.flags = (flags | libc::O_CLOEXEC | libc::O_NOFOLLOW | extra) as u64;
        how.resolve =
            libc::RESOLVE_BENEATH | libc::RESOLVE_NO_SYMLINKS | libc::RESOLVE_NO_MAGICLINKS | libc::RESOLVE_NO_XDEV;
        if flags & libc::O_CREAT != 0 {
            how.mode = 0o644;
        }
        // SAFETY: openat2 with a valid directory descriptor, a NUL-terminated path and a filled `open_how`.
        let fd = unsafe {
            libc::syscall(
                libc::SYS_openat2,
                mount.root.as_raw_fd(),
                c.as_ptr(),
                &how as *const libc::open_how,
                std::mem::size_of::<libc::open_how>(),
            )
        };
        if fd < 0 {
            let (errno, _) = last_error();
            return Err(match errno {
                libc::ELOOP => refused("links are not followed in a mount"),
                libc::EXDEV => refused("the path leaves the mount"),
                other => (other, String::new()),
            });
        }
        // SAFETY: a descriptor just opened, owned by nobody else.
        Ok(unsafe { OwnedFd::from_raw_fd(fd as RawFd) })
    }

    /// Open a regular file of the mount (checked once open: what was opened is what is used).
    fn open_file(&self, mount: &OpenMount, names: &[String], flags: i32) -> OpResult<OwnedFd> {
        // A FIFO or device must not be opened for real: look first, without opening it.
        if flags & libc::O_CREAT == 0 {
            let probe = self.open_at(mount, names, libc::O_PATH)?;
            if exposed(mount, &fstat(probe.as_raw_fd())?)?.kind == FileKind::Dir {
                return Err((libc::EISDIR, String::new()));
            }
        }
        let fd = self.open_at(mount, names, flags | libc::O_NONBLOCK)?;
        let stat = exposed(mount, &fstat(fd.as_raw_fd())?)?;
        if stat.kind == FileKind::Dir {
            return Err((libc::EISDIR, String::new()));
        }
        Ok(fd)
    }

    /// The directory holding `names`' last entry (opened as `open_at` does), and that entry's name.
    fn parent_of(&self, mount: &OpenMount, names: &[String]) -> OpResult<(OwnedFd, CString)> {
        let Some((name, parent)) = names.split_last() else {
            return Err((libc::EBUSY, String::new()));
        };
        if mount.file_name.is_some() {
            return Err((libc::EBUSY, String::new()));
        }
        self.relative(mount, names)?;
        let dir = self.open_at(mount, parent, libc::O_PATH | libc::O_DIRECTORY)?;
        Ok((dir, CString::new(name.as_str()).map_err(|_| (libc::EINVAL, String::new()))?))
    }

    /// What the mount shows of entry `name` in `dir` (its own status: a link is not followed, and refused).
    fn entry_stat(&self, mount: &OpenMount, dir: &OwnedFd, name: &CString) -> OpResult<FileStat> {
        // SAFETY: `stat` is plain data.
        let mut st: libc::stat = unsafe { std::mem::zeroed() };
        // SAFETY: a valid directory descriptor, name and out-pointer.
        if unsafe { libc::fstatat(dir.as_raw_fd(), name.as_ptr(), &mut st, libc::AT_SYMLINK_NOFOLLOW) } != 0 {
            return Err(last_error());
        }
        exposed(mount, &st)
    }

    fn list(&self, mount: &OpenMount, names: &[String]) -> OpResult<Vec<(String, FileStat)>> {
        if mount.file_name.is_some() {
            return Err((libc::ENOTDIR, String::new()));
        }
        let dir = self.open_at(mount, names, libc::O_RDONLY | libc::O_DIRECTORY)?;
        // The directory stream owns a copy of the descriptor (closedir closes it).
        // SAFETY: duplicating a valid descriptor.
        let copy = unsafe { libc::fcntl(dir.as_raw_fd(), libc::F_DUPFD_CLOEXEC, 0) };
        if copy < 0 {
            return Err(last_error());
        }
        // SAFETY: `copy` is a directory descriptor this function owns; the stream takes it over.
        let stream = unsafe { libc::fdopendir(copy) };
        if stream.is_null() {
            // SAFETY: still ours when fdopendir failed.
            unsafe { libc::close(copy) };
            return Err(last_error());
        }
        let mut entries = Vec::new();
        let mut result = Ok(());
        loop {
            // SAFETY: a valid stream; the entry is read before the next call.
            let entry = unsafe { libc::readdir(stream) };
            if entry.is_null() {
                break;
            }
            // SAFETY: d_name is NUL-terminated within the entry.
            let name = unsafe { std::ffi::CStr::from_ptr((*entry).d_name.as_ptr()) };
            let Ok(text) = name.to_str() else { continue };
            if text == "." || text == ".." {
                continue;
            }
            if entries.len() >= MAX_LISTING {
                result = Err((libc::ENOMEM, format!("the folder has more than {MAX_LISTING} entries")));
                break;
            }
            if let Ok(stat) = self.entry_stat(mount, &dir, &name.to_owned()) {
                entries.push((text.to_owned(), stat));
            }
        }
        // SAFETY: the stream opened above, closed once.
        unsafe { libc::closedir(stream) };
        result.map(|()| entries)
    }
}

/// The mounts open on the host, and as the session is told about them; none may overlap another.
pub fn open_mounts(mounts: &[Mount], max_bytes: u64, max_files: u64) -> PyResult<(HostMounts, FilesOptions)> {
    check_distinct(mounts.iter().map(Mount::path))?;
    let host = HostMounts::open(mounts, max_bytes, max_files)?;
    let options = host.options(mounts);
    Ok((host, options))
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::PathBuf;

    /// A fresh host folder with a file, a link out, a FIFO, a hard-linked file and a subfolder.
    fn folder(name: &str) -> PathBuf {
        let root = std::env::temp_dir().join(format!("dri-mounts-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&root);
        std::fs::create_dir_all(root.join("sub")).unwrap();
        std::fs::write(root.join("plain.txt"), b"plain").unwrap();
        std::fs::write(root.join("twice.txt"), b"twice").unwrap();
        std::fs::hard_link(root.join("twice.txt"), root.join("twice-again.txt")).unwrap();
        std::os::unix::fs::symlink("/etc/passwd", root.join("out")).unwrap();
        std::os::unix::fs::symlink("plain.txt", root.join("in")).unwrap();
        let fifo = CString::new(root.join("fifo").as_os_str().as_encoded_bytes()).unwrap();
        // SAFETY: a plain mkfifo of a NUL-terminated path.
        assert_eq!(unsafe { libc::mkfifo(fifo.as_ptr(), 0o644) }, 0);
        root
    }

    fn mounts(root: &Path, mode: &str, max_bytes: u64) -> HostMounts {
        let mount =
            Mount { path: "/data".into(), host_path: root.to_str().unwrap().into(), mode: mode.into(), package: false };
        HostMounts::open(&[mount], max_bytes, 4).unwrap()
    }

    #[test]
    fn mounts_that_share_a_folder_are_refused_wherever_they_sort() {
        Python::initialize();
        assert!(check_distinct(["/a", "/b", "/ab"]).is_ok());
        for paths in [["/a", "/a-b", "/a/b"], ["/data", "/data/x", "/z"], ["/x", "/y", "/x"]] {
            assert!(check_distinct(paths).is_err(), "{paths:?}");
        }
    }

    fn names(path: &[&str]) -> crate::protocol::files::RelPath {
        path.iter().map(|s| s.to_string()).collect()
    }

    fn errno(answer: FileAnswer) -> i32 {
        match answer {
            FileAnswer::Failed { errno, .. } => errno,
            other => panic!("expected a failure, got {other:?}"),
        }
    }

    #[test]
    fn only_regular_single_link_files_and_folders_are_listed_or_read() {
        let root = folder("exposed");
        let host = mounts(&root, "ro", 1 << 20);
        let FileAnswer::List(mut entries) = host.serve(&FileOp::List { mount: 0, path: vec![] }) else { panic!() };
        entries.sort_by(|a, b| a.0.cmp(&b.0));
        let listed: Vec<&str> = entries.iter().map(|(name, _)| name.as_str()).collect();
        assert_eq!(listed, ["plain.txt", "sub"]);
        let read = |name: &str| host.serve(&FileOp::Read { mount: 0, path: names(&[name]), offset: 0, size: 100 });
        assert_eq!(read("plain.txt"), FileAnswer::Data(b"plain".to_vec()));
        for refused in ["out", "in", "fifo", "twice.txt", "twice-again.txt"] {
            assert_eq!(errno(read(refused)), libc::EACCES, "{refused}");
        }
        std::fs::remove_dir_all(root).unwrap();
    }

    #[test]
    fn a_package_mount_also_lists_and_reads_hard_linked_files_and_writes_nothing() {
        let root = folder("package");
        let mount = Mount {
            path: "/packages".into(),
            host_path: root.to_str().unwrap().into(),
            mode: "ro".into(),
            package: true,
        };
        let host = HostMounts::open(&[mount], 1 << 20, 4).unwrap();
        let FileAnswer::List(mut entries) = host.serve(&FileOp::List { mount: 0, path: vec![] }) else { panic!() };
        entries.sort_by(|a, b| a.0.cmp(&b.0));
        let listed: Vec<&str> = entries.iter().map(|(name, _)| name.as_str()).collect();
        assert_eq!(listed, ["plain.txt", "sub", "twice-again.txt", "twice.txt"]);
        let read = |name: &str| host.serve(&FileOp::Read { mount: 0, path: names(&[name]), offset: 0, size: 100 });
        assert_eq!(read("twice.txt"), FileAnswer::Data(b"twice".to_vec()));
        for refused in ["out", "in", "fifo"] {
            assert_eq!(errno(read(refused)), libc::EACCES, "{refused}");
        }
        assert_eq!(errno(host.serve(&FileOp::Unlink { mount: 0, path: names(&["twice.txt"]) })), libc::EROFS);
        std::fs::remove_dir_all(root).unwrap();
    }

    #[test]
    fn names_that_could_leave_the_folder_are_refused() {
        let root = folder("names");
        let host = mounts(&root, "ro", 1 << 20);
        let long = "x".repeat(256);
        for (path, expected) in [
            (names(&[".."]), libc::EINVAL),
            (names(&["sub", "..", "..", "etc"]), libc::EINVAL),
            (names(&["/etc/passwd"]), libc::EINVAL),
            (names(&["a\0b"]), libc::EINVAL),
            (names(&[""]), libc::EINVAL),
            (names(&[&long]), libc::ENAMETOOLONG),
            (vec!["y".repeat(200); 30], libc::ENAMETOOLONG),
        ] {
            assert_eq!(errno(host.serve(&FileOp::Stat { mount: 0, path })), expected);
        }
        assert_eq!(errno(host.serve(&FileOp::Stat { mount: 7, path: vec![] })), libc::ENOENT);
        std::fs::remove_dir_all(root).unwrap();
    }

    #[test]
    fn only_rw_mounts_are_written_and_within_their_budgets() {
        let root = folder("writes");
        for mode in ["ro", "overlay"] {
            let host = mounts(&root, mode, 1 << 20);
            let write =
                FileOp::Write { mount: 0, path: names(&["new.txt"]), offset: 0, data: b"x".to_vec(), create: true };
            assert_eq!(errno(host.serve(&write)), libc::EROFS);
            assert_eq!(errno(host.serve(&FileOp::Unlink { mount: 0, path: names(&["plain.txt"]) })), libc::EROFS);
        }
        assert!(!root.join("new.txt").exists() && root.join("plain.txt").exists());
        let host = mounts(&root, "rw", 10);
        let write = |name: &str, data: &[u8], create| FileOp::Write {
            mount: 0,
            path: names(&[name]),
            offset: 0,
            data: data.to_vec(),
            create,
        };
        assert_eq!(host.serve(&write("a.txt", b"12345678", true)), FileAnswer::Done);
        assert_eq!(errno(host.serve(&write("b.txt", b"123", true))), libc::ENOSPC);
        // Through a link: never, not even to create the file it points to.
        assert_eq!(errno(host.serve(&write("out", b"x", false))), libc::EACCES);
        assert_eq!(errno(host.serve(&write("in", b"x", false))), libc::EACCES);
        assert_eq!(std::fs::read(root.join("plain.txt")).unwrap(), b"plain");
        // The mount's own root cannot be removed or renamed.
        assert_eq!(errno(host.serve(&FileOp::Rmdir { mount: 0, path: vec![] })), libc::EBUSY);
        std::fs::remove_dir_all(root).unwrap();
    }
}
