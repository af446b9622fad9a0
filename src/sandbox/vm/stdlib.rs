//! Every module of CPython's standard library, and where it stands in the sandbox: one table.
//!
//! Each top-level module of CPython 3.13's `sys.stdlib_module_names` (and the sandbox's own 3.14 ones) is
//! *available* (behaves as in CPython), *confined* (works, on the sandbox's own filesystem, clock and single
//! process: what it cannot reach fails as CPython fails without it) or *refused* (importing it raises
//! `ModuleNotFoundError`, an `ImportError`, saying why and what to use instead). A dotted entry overrides its package for that part.
//! The VM's allow-lists are made from this table (`native_allowed`, `python_allowed`), the refusals'
//! words too (`refusals`), and `tests/sandbox/vm/test_stdlib_table.py` walks it against CPython's list, imports every
//! entry in a sandbox and checks the table in docs/stdlib.md.
//!
//! How to add a module: give it a row, with the source that provides it. `Native` allows a Rust module of
//! `rustpython-stdlib` or the VM (each is attack surface: reaches no host resource, its limits hold; write the
//! attack as a test first); `Python` allows the frozen module or package from `rustpython-pylib` (what it
//! imports must be allowed too); `StandIn` is one of ours in `python/` (listed in `sandbox::stand_ins`).

/// Where an importable module's code comes from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Source {
    /// A Rust module built into the VM or `rustpython-stdlib`.
    Native,
    /// The frozen Python module or package of `rustpython-pylib`.
    Python,
    /// A module written here (`python/`) in place of the standard one.
    StandIn,
}

/// Why a module is refused; each says what to do instead.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Refusal {
    Network,
    Processes,
    NativeCode,
    HostSystem,
    Terminal,
    Gui,
    OtherPlatform,
    /// CPython's C accelerator of a module the sandbox runs in pure Python (named here).
    Accelerator(&'static str),
    /// Installs packages or makes environments.
    Installing,
}

impl Refusal {
    pub fn reason(self) -> String {
        match self {
            Refusal::Network => {
                "it reaches the network, and the sandbox has none; get the data through a tool the host registers"
                    .into()
            }
            Refusal::Processes => {
                "it starts processes, and the sandbox runs in one; use concurrent.futures.ThreadPoolExecutor or asyncio"
                    .into()
            }
            Refusal::NativeCode => {
                "it loads native code or maps memory, which the sandbox does not allow; use pure Python".into()
            }
            Refusal::HostSystem => {
                "it reaches the host system (users, terminals, resources), which the sandbox does not see".into()
            }
            Refusal::Terminal => "it drives a terminal, and the sandbox has none; print the text instead".into(),
            Refusal::Gui => "it opens windows, and the sandbox has no display; print the text instead".into(),
            Refusal::OtherPlatform => "it belongs to another platform (Windows, macOS, AIX, Android, iOS)".into(),
            Refusal::Accelerator(module) => {
                format!(
                    "it is CPython's C accelerator; the sandbox runs the pure-Python implementation: import {module}"
                )
            }
            Refusal::Installing => {
                "it installs packages or makes environments; the host preloads the packages a session needs".into()
            }
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Standing {
    Available(Source),
    /// Works on the sandbox's own resources; the text says which.
    Confined(Source, &'static str),
    Refused(Refusal),
}

use Refusal::*;
use Source::*;
use Standing::{Available as A, Confined as C, Refused as R};

const FILES: &str = "the sandbox's filesystem";
const NO_NETWORK: &str = "imports; connections fail: the sandbox has no network";
const ONE_PROCESS: &str = "names and errors; running a program is refused";
const SQLITE: &str = "databases in the session's memory: ':memory:', and a path names one kept for the session; \
                      no host file, no extensions";

/// The table. Sorted by name (a test checks), one row per module.
pub const MODULES: &[(&str, Standing)] = &[
    ("__future__", A(Python)),
    ("_abc", A(Native)),
    ("_aix_support", R(OtherPlatform)),
    ("_android_support", R(OtherPlatform)),
    ("_apple_support", R(OtherPlatform)),
    ("_ast", A(Native)),
    ("_ast_unparse", A(Python)),
    ("_asyncio", R(Accelerator("asyncio"))),
    ("_bisect", A(Native)),
    ("_blake2", A(Native)),
    ("_bz2", A(Native)),
    ("_codecs", A(Native)),
    ("_codecs_cn", A(Native)),
    ("_codecs_hk", A(Native)),
    ("_codecs_iso2022", A(Native)),
    ("_codecs_jp", A(Native)),
    ("_codecs_kr", A(Native)),
    ("_codecs_tw", A(Native)),
    ("_collections", A(Native)),
    ("_collections_abc", A(Python)),
    ("_colorize", A(Python)),
    ("_compat_pickle", A(Python)),
    ("_compression", A(StandIn)),
    ("_contextvars", A(Native)),
    ("_csv", A(StandIn)),
    ("_ctypes", R(NativeCode)),
    ("_curses", R(Terminal)),
    ("_curses_panel", R(Terminal)),
    ("_datetime", A(Native)),
    ("_dbm", R(NativeCode)),
    ("_decimal", R(Accelerator("decimal"))),
    ("_elementtree", A(Native)),
    ("_frozen_importlib", A(Python)),
    ("_frozen_importlib_external", A(Python)),
    ("_functools", A(Native)),
    ("_gdbm", R(NativeCode)),
    ("_hashlib", A(Native)),
    ("_heapq", A(Native)),
    ("_hmac", R(Accelerator("hmac"))),
    ("_imp", A(Native)),
    ("_interpchannels", R(Processes)),
    ("_interpqueues", R(Processes)),
    ("_interpreters", R(Processes)),
    ("_io", A(Native)),
    ("_ios_support", R(OtherPlatform)),
    ("_json", A(Native)),
    ("_locale", R(HostSystem)),
    ("_lsprof", R(Accelerator("cProfile"))),
    ("_lzma", A(Native)),
    ("_markupbase", A(Python)),
    ("_md5", A(Native)),
    ("_multibytecodec", A(Native)),
    ("_multiprocessing", R(Processes)),
    ("_opcode", A(Native)),
    ("_opcode_metadata", A(Python)),
    ("_operator", A(Native)),
    ("_osx_support", R(OtherPlatform)),
    ("_overlapped", R(OtherPlatform)),
    ("_pickle", A(Native)),
    ("_posixshmem", R(Processes)),
    ("_posixsubprocess", R(Processes)),
    ("_py_abc", A(Python)),
    ("_py_warnings", A(Python)),
    ("_pycodecs", A(Python)),
    ("_pydatetime", A(Python)),
    ("_pydecimal", A(Python)),
    ("_pyio", C(Python, FILES)),
    ("_pylong", A(Python)),
    ("_pyrepl", C(Python, "its pager, which pydoc uses; there is no terminal to edit lines in")),
    ("_queue", A(Native)),
    ("_random", A(Native)),
    ("_remote_debugging", R(HostSystem)),
    ("_scproxy", R(OtherPlatform)),
    ("_sha1", A(Native)),
    ("_sha2", R(Accelerator("hashlib"))),
    ("_sha256", A(Native)),
    ("_sha3", A(Native)),
    ("_sha512", A(Native)),
    ("_signal", R(Accelerator("signal"))),
    ("_sitebuiltins", A(Python)),
    ("_socket", R(Network)),
    ("_sqlite3", C(StandIn, SQLITE)),
    ("_sre", A(Native)),
    ("_ssl", R(Network)),
    ("_stat", A(Native)),
    ("_statistics", A(Native)),
    ("_string", A(StandIn)),
    ("_strptime", A(Python)),
    ("_struct", A(Native)),
    ("_suggestions", A(Native)),
    ("_symtable", A(Native)),
    ("_sysconfig", A(Native)),
    ("_sysconfigdata", A(Native)),
    ("_thread", A(Python)),
    ("_threading_local", A(Python)),
    ("_tkinter", R(Gui)),
    ("_tokenize", A(Native)),
    ("_tracemalloc", R(NativeCode)),
    ("_types", A(Native)),
    ("_typing", A(Native)),
    ("_uuid", R(Accelerator("uuid"))),
    ("_warnings", A(Native)),
    ("_weakref", A(Native)),
    ("_weakrefset", A(Python)),
    ("_winapi", R(OtherPlatform)),
    ("_wmi", R(OtherPlatform)),
    ("_zoneinfo", R(Accelerator("zoneinfo"))),
    ("_zstd", R(NativeCode)),
    ("abc", A(Python)),
    ("annotationlib", A(Python)),
    ("antigravity", R(Network)),
    ("argparse", A(Python)),
    ("array", A(Native)),
    ("ast", A(Python)),
    ("asyncio", C(Python, "one thread, the sandbox's clock; no network or subprocesses")),
    ("asyncio.unix_events", C(StandIn, "the event loop waits on the clock only")),
    ("atexit", A(Native)),
    ("base64", A(Python)),
    ("bdb", A(Python)),
    ("binascii", A(Native)),
    ("bisect", A(Python)),
    ("builtins", A(Native)),
    ("bz2", C(Python, FILES)),
    ("cProfile", A(StandIn)),
    ("calendar", A(Python)),
    ("cmath", A(Native)),
    ("cmd", A(Python)),
    ("code", A(Python)),
    ("codecs", A(Python)),
    ("codeop", A(Python)),
    ("collections", A(Python)),
    ("colorsys", A(Python)),
    ("compileall", C(Python, FILES)),
    ("compression", C(Python, FILES)),
    ("concurrent", C(Python, "threads run each task as it is submitted")),
    ("concurrent.futures.process", R(Processes)),
    ("concurrent.futures.thread", C(StandIn, "each task runs when it is submitted")),
    ("configparser", A(Python)),
    ("contextlib", A(Python)),
    ("contextvars", A(Python)),
    ("copy", A(Python)),
    ("copyreg", A(Python)),
    ("csv", A(Python)),
    ("ctypes", C(StandIn, "C data types and their sizes; loading a library or calling into C is refused")),
    ("curses", R(Terminal)),
    ("dataclasses", A(Python)),
    ("datetime", A(Python)),
    ("dbm", C(Python, "dbm.dumb files on the sandbox's filesystem")),
    ("dbm.gnu", R(NativeCode)),
    ("dbm.ndbm", R(NativeCode)),
    ("decimal", A(StandIn)),
    ("difflib", A(Python)),
    ("dis", A(Python)),
    ("doctest", A(Python)),
    ("email", A(Python)),
    ("encodings", A(Python)),
    ("ensurepip", R(Installing)),
    ("enum", A(Python)),
    ("errno", A(Native)),
    ("faulthandler", R(NativeCode)),
    ("fcntl", R(HostSystem)),
    ("filecmp", C(Python, FILES)),
    ("fileinput", C(Python, FILES)),
    ("fnmatch", A(Python)),
    ("fractions", A(Python)),
    ("ftplib", R(Network)),
    ("functools", A(Python)),
    ("gc", C(StandIn, "no functions that reach every object")),
    ("genericpath", A(Python)),
    ("getopt", A(Python)),
    ("getpass", C(Python, "no terminal: reads the sandbox's empty standard input")),
    ("gettext", A(Python)),
    ("glob", C(Python, FILES)),
    ("graphlib", A(Python)),
    ("grp", R(HostSystem)),
    ("gzip", C(Python, FILES)),
    ("hashlib", A(Python)),
    ("heapq", A(Python)),
    ("hmac", A(Python)),
    ("html", A(Python)),
    ("http", C(Python, NO_NETWORK)),
    ("http.server", R(Network)),
    ("idlelib", R(Gui)),
    ("imaplib", R(Network)),
    ("importlib", A(Python)),
    ("inspect", A(Python)),
    ("io", A(Python)),
    ("ipaddress", A(Python)),
    ("itertools", A(Native)),
    ("json", A(Python)),
    ("keyword", A(Python)),
    ("linecache", A(Python)),
    ("locale", C(Python, "the C locale only")),
    ("logging", A(Python)),
    ("lzma", C(Python, FILES)),
    ("mailbox", C(Python, FILES)),
    ("marshal", C(StandIn, "CPython's format for data; code objects neither load nor dump")),
    ("math", A(Native)),
    ("mimetypes", A(Python)),
    ("mmap", R(NativeCode)),
    ("modulefinder", A(Python)),
    ("msvcrt", R(OtherPlatform)),
    ("multiprocessing", R(Processes)),
    ("netrc", C(Python, FILES)),
    ("nt", R(OtherPlatform)),
    ("ntpath", A(Python)),
    ("nturl2path", A(Python)),
    ("numbers", A(Python)),
    ("opcode", A(Python)),
    ("operator", A(Python)),
    ("optparse", A(Python)),
    ("os", C(StandIn, FILES)),
    ("pathlib", C(Python, FILES)),
    ("pdb", C(StandIn, "imports; there is no debugger to stop in")),
    ("pickle", A(Python)),
    ("pickletools", A(Python)),
    ("pkgutil", A(Python)),
    ("platform", C(Python, "describes the sandbox, not the host")),
    ("plistlib", A(Python)),
    ("poplib", R(Network)),
    ("posix", C(StandIn, FILES)),
    ("posixpath", A(Python)),
    ("pprint", A(Python)),
    ("profile", A(Python)),
    ("pstats", A(Python)),
    ("pty", R(Terminal)),
    ("pwd", R(HostSystem)),
    ("py_compile", C(Python, FILES)),
    ("pyclbr", A(Python)),
    ("pydoc", A(Python)),
    ("pydoc_data", A(Python)),
    ("pyexpat", A(StandIn)),
    ("queue", A(Python)),
    ("quopri", A(Python)),
    ("random", A(Python)),
    ("re", A(Python)),
    ("readline", R(Terminal)),
    ("reprlib", A(Python)),
    ("resource", C(StandIn, "a session's limits and CPU time; setting a limit is refused")),
    ("rlcompleter", A(Python)),
    ("runpy", C(Python, FILES)),
    ("sched", A(Python)),
    ("secrets", A(Python)),
    ("select", R(HostSystem)),
    ("selectors", R(HostSystem)),
    ("shelve", C(Python, FILES)),
    ("shlex", A(Python)),
    ("shutil", C(Python, FILES)),
    ("signal", C(StandIn, "names; no signals reach the sandbox")),
    ("site", R(Installing)),
    ("smtplib", R(Network)),
    ("socket", C(StandIn, NO_NETWORK)),
    ("socketserver", R(Network)),
    ("sqlite3", C(Python, SQLITE)),
    ("sre_compile", A(Python)),
    ("sre_constants", A(Python)),
    ("sre_parse", A(Python)),
    ("ssl", R(Network)),
    ("stat", A(Python)),
    ("statistics", A(Python)),
    ("string", A(Python)),
    ("stringprep", A(Python)),
    ("struct", A(Python)),
    ("subprocess", C(StandIn, ONE_PROCESS)),
    ("symtable", A(Python)),
    ("sys", A(Native)),
    ("sysconfig", C(Python, "describes the sandbox, not the host")),
    ("syslog", R(HostSystem)),
    ("tabnanny", A(Python)),
    ("tarfile", C(Python, FILES)),
    ("tempfile", C(Python, FILES)),
    ("termios", R(Terminal)),
    ("textwrap", A(Python)),
    ("this", A(Python)),
    ("threading", C(StandIn, "threads run one at a time, each to its end, from the first wait")),
    ("time", A(Native)),
    ("timeit", A(Python)),
    ("tkinter", R(Gui)),
    ("token", A(Python)),
    ("tokenize", A(Python)),
    ("tomllib", A(Python)),
    ("trace", A(Python)),
    ("traceback", A(Python)),
    ("tracemalloc", R(NativeCode)),
    ("tty", R(Terminal)),
    ("turtle", R(Gui)),
    ("turtledemo", R(Gui)),
    ("types", A(Python)),
    ("typing", A(Python)),
    ("unicodedata", A(Native)),
    ("unittest", A(Python)),
    ("urllib", C(Python, NO_NETWORK)),
    ("uuid", A(Python)),
    ("venv", R(Installing)),
    ("warnings", A(Python)),
    ("wave", A(Python)),
    ("weakref", A(Python)),
    ("webbrowser", R(Network)),
    ("winreg", R(OtherPlatform)),
    ("winsound", R(OtherPlatform)),
    ("wsgiref", A(Python)),
    ("wsgiref.simple_server", R(Network)),
    ("xml", A(Python)),
    ("xmlrpc", R(Network)),
    ("zipapp", C(Python, FILES)),
    ("zipfile", C(Python, FILES)),
    ("zipimport", A(Python)),
    ("zlib", A(StandIn)),
    ("zoneinfo", C(Python, "the time-zone data of the tzdata package installed with this one")),
];

/// The row for `name`: its own, or the nearest enclosing package's.
pub fn standing(name: &str) -> Option<Standing> {
    let mut candidate = name;
    loop {
        if let Ok(index) = MODULES.binary_search_by(|(row, _)| row.cmp(&candidate)) {
            return Some(MODULES[index].1);
        }
        candidate = &candidate[..candidate.rfind('.')?];
    }
}

fn from_source(name: &str, wanted: Source) -> bool {
    matches!(standing(name), Some(A(source) | C(source, _)) if source == wanted)
}

/// A native module sandbox code may import (its own row, not a package's).
pub fn native_allowed(name: &str) -> bool {
    MODULES.binary_search_by(|(row, _)| row.cmp(&name)).is_ok() && from_source(name, Native)
}

/// A frozen Python module sandbox code may import (it or its package is available from `rustpython-pylib`).
pub fn python_allowed(name: &str) -> bool {
    from_source(name, Python)
}

/// A row in words: its kind, where its code comes from, and what it works on or why it is refused.
pub fn describe(standing: Standing) -> (&'static str, Option<&'static str>, String) {
    let source_name = |source| match source {
        Native => "native",
        Python => "python",
        StandIn => "stand-in",
    };
    match standing {
        A(source) => ("available", Some(source_name(source)), String::new()),
        C(source, what) => ("confined", Some(source_name(source)), what.to_owned()),
        R(refusal) => ("refused", None, refusal.reason()),
    }
}

/// Each refused module with the words its import fails with.
pub fn refusals() -> impl Iterator<Item = (&'static str, String)> {
    MODULES.iter().filter_map(|(name, standing)| match standing {
        R(refusal) => Some((*name, refusal.reason())),
        _ => None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_table_is_sorted_with_one_row_per_module() {
        for pair in MODULES.windows(2) {
            assert!(pair[0].0 < pair[1].0, "{} is not before {}", pair[0].0, pair[1].0);
        }
    }

    #[test]
    fn a_dotted_row_overrides_its_package() {
        assert!(python_allowed("http.client"));
        assert!(!python_allowed("http.server"));
        assert!(!python_allowed("http.server.extra"));
        assert!(python_allowed("xml.etree.ElementTree"));
        assert!(!python_allowed("json_extra"));
        assert!(native_allowed("math"));
        assert!(!native_allowed("math.sub"));
        assert!(!native_allowed("_socket"));
    }
}
