//! Host folders mounted into sessions: `Mount`, what the user declares (checked when it is made), and the check
//! that no two mounts overlap. A session's open mounts, and the operations it asks for in their folders, are
//! `file_server`.

use std::ffi::CString;
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd};
use std::path::{Path, PathBuf};

use pyo3::exceptions::{PyFileNotFoundError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::PyTuple;

use crate::protocol::files::{MountDecl, MountMode};

/// Names longer than this (in bytes) are refused, as Linux does.
pub const MAX_NAME: usize = 255;

/// A host folder (or file) to show in the sandbox at `path`: read-only (`ro`), read-write (`rw`: writes go
/// to the host), or `overlay` (reads the host, writes stay in the session).
#[pyclass(frozen, eq, hash, module = "dspy_rust_interpreter._native")]
#[derive(Clone, PartialEq, Eq, Hash)]
pub struct Mount {
    /// Where it appears in the sandbox: absolute and normalised.
    #[pyo3(get)]
    pub(crate) path: String,
    /// The host folder or file, resolved (absolute, no links) when the mount was made.
    #[pyo3(get)]
    pub(crate) host_path: String,
    #[pyo3(get)]
    pub(crate) mode: String,
    /// A package set's folder (`Mount.of_package`): read-only, its hard-linked files shown.
    pub(crate) package: bool,
}

impl Mount {
    /// Where it appears in the sandbox.
    pub fn path(&self) -> &str {
        &self.path
    }

    pub fn decl(&self, is_file: bool) -> MountDecl {
        MountDecl { path: self.path.clone(), mode: self.mode(), is_file }
    }

    pub(crate) fn mode(&self) -> MountMode {
        MountMode::parse(&self.mode).expect("checked when made")
    }
}

/// Why `path` cannot be where a mount appears, if it cannot.
fn check_sandbox_path(path: &str) -> Result<(), String> {
    if !path.starts_with('/') {
        return Err(format!("a mount's sandbox path must be absolute, got {path:?}"));
    }
    if path == "/" {
        return Err("a mount cannot replace the sandbox's root '/'; mount at a folder such as '/data'".into());
    }
    let names: Vec<&str> = path[1..].split('/').collect();
    if names.iter().any(|n| n.is_empty() || *n == "." || *n == "..") {
        return Err(format!(
            "a mount's sandbox path must be normalised (no '.', '..', '//' or trailing '/'), got {path:?}"
        ));
    }
    if path.len() > 1024 || names.iter().any(|n| n.len() > MAX_NAME || n.contains('\0')) {
        return Err(format!("a mount's sandbox path is too long or contains NUL: {path:?}"));
    }
    Ok(())
}

#[pymethods]
impl Mount {
    #[new]
    #[pyo3(signature = (path, host_path, mode = "ro"))]
    fn new(path: String, host_path: PathBuf, mode: &str) -> PyResult<Self> {
        check_sandbox_path(&path).map_err(PyValueError::new_err)?;
        if MountMode::parse(mode).is_none() {
            return Err(PyValueError::new_err(format!("a mount's mode is 'ro', 'rw' or 'overlay', got {mode:?}")));
        }
        let resolved = std::fs::canonicalize(&host_path).map_err(|e| match e.kind() {
            std::io::ErrorKind::NotFound => {
                PyFileNotFoundError::new_err(format!("mount {path}: host path {} does not exist", host_path.display()))
            }
            _ => PyValueError::new_err(format!("mount {path}: host path {} cannot be used ({e})", host_path.display())),
        })?;
        let metadata = std::fs::metadata(&resolved).map_err(|e| PyValueError::new_err(format!("mount {path}: {e}")))?;
        if !metadata.is_dir() && !metadata.is_file() {
            return Err(PyValueError::new_err(format!(
                "mount {path}: host path {} is neither a folder nor a regular file",
                resolved.display()
            )));
        }
        let host_path = resolved
            .to_str()
            .ok_or_else(|| PyValueError::new_err(format!("mount {path}: the host path is not UTF-8")))?
            .to_owned();
        open_mount_root(&path, &resolved, metadata.is_file())?;
        Ok(Self { path, host_path, mode: mode.to_owned(), package: false })
    }

    /// A package set's folder or module, read-only, whose hard-linked files are shown (see the module's doc).
    #[staticmethod]
    fn of_package(path: String, host_path: PathBuf) -> PyResult<Self> {
        Ok(Self { package: true, ..Self::new(path, host_path, "ro")? })
    }

    fn __repr__(&self) -> String {
        match self.package {
            true => format!("Mount.of_package({:?}, {:?})", self.path, self.host_path),
            false => format!("Mount({:?}, {:?}, mode={:?})", self.path, self.host_path, self.mode),
        }
    }

    fn __reduce__<'py>(slf: &Bound<'py, Self>) -> PyResult<(Bound<'py, PyAny>, Bound<'py, PyTuple>)> {
        let me = slf.get();
        match me.package {
            true => Ok((slf.get_type().getattr("of_package")?, PyTuple::new(slf.py(), [&me.path, &me.host_path])?)),
            false => Ok((slf.get_type().into_any(), PyTuple::new(slf.py(), [&me.path, &me.host_path, &me.mode])?)),
        }
    }
}

/// ValueError when two mounts (sandbox paths) are one folder, or one is inside another: each mount's
/// operations are resolved beneath its own folder only, so an overlap would give one tree two sets of rules.
/// Every pair is compared: in sorted order a folder and one inside it need not be neighbours (`/a`, `/a-b`,
/// `/a/b`), and a session has few mounts.
pub fn check_distinct<'a>(paths: impl IntoIterator<Item = &'a str>) -> PyResult<()> {
    let mut paths: Vec<&str> = paths.into_iter().collect();
    paths.sort_unstable();
    let inside = |inner: &str, outer: &str| inner.strip_prefix(outer).is_some_and(|rest| rest.starts_with('/'));
    for (i, first) in paths.iter().enumerate() {
        for second in &paths[i + 1..] {
            if second == first || inside(second, first) || inside(first, second) {
                return Err(PyValueError::new_err(format!(
                    "mounts {first} and {second} overlap: each needs a folder of its own"
                )));
            }
        }
    }
    Ok(())
}

/// `check_distinct` for the Python layer, which checks dspy's file paths before it makes any on the host.
#[pyfunction]
pub fn check_mount_paths(paths: Vec<String>) -> PyResult<()> {
    check_distinct(paths.iter().map(String::as_str))
}

/// Kernel filesystems, by `statfs` magic number (linux/magic.h): their files describe the host itself (its
/// processes' memory and environment in `/proc`, devices and the kernel in `/sys`), so a mount of one would let
/// sandbox code read the host through the host (`/proc/self/mem` is a regular file the host would read at the
/// sandbox's offsets). A mount cannot reach one from an ordinary folder (paths never cross into another
/// filesystem, `RESOLVE_NO_XDEV`); this refuses one as the mount's own folder.
const KERNEL_FILESYSTEMS: &[(i64, &str)] = &[
    (0x9fa0, "proc"),
    (0x6265_6572, "sysfs"),
    (0x6462_6720, "debugfs"),
    (0x7472_6163, "tracefs"),
    (0x7363_6673, "securityfs"),
    (0x0027_e0eb, "cgroup"),
    (0x6367_7270, "cgroup2"),
    (0xcafe_4a11, "bpf"),
    (0x1cd1, "devpts"),
    (0x6265_6570, "configfs"),
    (0x6165_676c, "pstore"),
    (0xde5e_81e4, "efivarfs"),
    (0xf97c_ff8c, "selinuxfs"),
    (0x4341_5d53, "smackfs"),
    (0x4249_4e4d, "binfmt_misc"),
    (0x6573_5543, "fusectl"),
    (0x6e73_6673, "nsfs"),
];

/// The kernel filesystem the open folder `fd` is on, if it is on one.
fn kernel_filesystem(fd: &OwnedFd) -> std::io::Result<Option<&'static str>> {
    // SAFETY: `statfs` is plain data, filled by the kernel for an open descriptor.
    let mut st: libc::statfs = unsafe { std::mem::zeroed() };
    // SAFETY: as above.
    if unsafe { libc::fstatfs(fd.as_raw_fd(), &mut st) } != 0 {
        return Err(std::io::Error::last_os_error());
    }
    let magic = st.f_type as i64 & 0xffff_ffff;
    Ok(KERNEL_FILESYSTEMS.iter().find(|(known, _)| *known == magic).map(|(_, name)| *name))
}

/// The folder a mount serves from `host` (its parent when it is a file), open, refused when it is on a kernel
/// filesystem.
pub fn open_mount_root(mount: &str, host: &Path, is_file: bool) -> PyResult<OwnedFd> {
    let folder = if is_file { host.parent().unwrap_or(Path::new("/")) } else { host };
    let gone = |e: std::io::Error| {
        PyFileNotFoundError::new_err(format!("mount {mount}: host path {} cannot be opened ({e})", host.display()))
    };
    let root = open_dir(folder).map_err(gone)?;
    match kernel_filesystem(&root).map_err(gone)? {
        None => Ok(root),
        Some(kind) => Err(PyValueError::new_err(format!(
            "mount {mount}: host path {} is on {kind}, a kernel filesystem whose files describe the host itself \
             (its processes, devices or kernel); mount a folder of ordinary files",
            host.display()
        ))),
    }
}

pub fn open_dir(path: &Path) -> std::io::Result<OwnedFd> {
    let c = CString::new(path.as_os_str().as_encoded_bytes())
        .map_err(|_| std::io::Error::from_raw_os_error(libc::EINVAL))?;
    // SAFETY: a plain open of a NUL-terminated path; the result is checked.
    let fd = unsafe { libc::open(c.as_ptr(), libc::O_PATH | libc::O_DIRECTORY | libc::O_CLOEXEC) };
    if fd < 0 {
        return Err(std::io::Error::last_os_error());
    }
    // SAFETY: a descriptor just opened, owned by nobody else.
    Ok(unsafe { OwnedFd::from_raw_fd(fd) })
}
