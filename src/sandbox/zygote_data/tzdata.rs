//! Time-zone data for `zoneinfo`: the files of the host's `tzdata` package (a dependency of the wheel), read
//! once by the zygote before it is confined (`preread`) and handed to `_sandbox_tzdata`
//! (`python/_sandbox_tzdata.py`), which serves them as the `tzdata` package through `importlib.resources`, as
//! CPython's `zoneinfo` reads them.

use std::path::Path;
use std::sync::OnceLock;

use rustpython_vm::{PyResult, VirtualMachine};

use super::preread::Tree;

/// Bounds on what is read (tzdata 2026f: 597 zone files, 0.4 MB): a folder that is not `tzdata`'s costs the
/// zygote no more than this.
const MAX_FILES: usize = 4096;
const MAX_BYTES: u64 = 16 << 20;

/// The data of a `tzdata` package.
pub struct Data {
    /// "zoneinfo/Europe/Paris" (TZif bytes) and "zones" (the list of zones).
    files: Tree,
    /// The IANA release its `__init__.py` names.
    version: Option<String>,
}

/// The data of the `tzdata` package in `dir`; None when `dir` holds no zone data.
pub fn read(dir: &Path) -> Option<Data> {
    let mut files = Tree::new(MAX_FILES, MAX_BYTES);
    files.add("zoneinfo", &dir.join("zoneinfo"), |name| name == "__pycache__" || name.ends_with(".py")).ok()?;
    if files.is_empty() {
        return None;
    }
    let _ = files.add("zones", &dir.join("zones"), |_| false);
    let version = std::fs::read_to_string(dir.join("__init__.py")).ok().and_then(|text| {
        let line = text.lines().find(|line| line.starts_with("IANA_VERSION"))?;
        Some(line.split('"').nth(1)?.to_owned())
    });
    Some(Data { files, version })
}

static FILES: OnceLock<Tree> = OnceLock::new();

/// Hand the data to the sandbox's `tzdata` package.
pub fn install(vm: &VirtualMachine, Data { files, version }: Data) -> PyResult<()> {
    let version = match version {
        Some(version) => vm.ctx.new_str(version).into(),
        None => vm.ctx.none(),
    };
    if FILES.set(files).is_err() {
        return Ok(()); // a second VM in this process: the data is there already
    }
    let [read, _kind, keys] = super::preread::reader(vm, FILES.get().expect("set above"));
    vm.import("_sandbox_tzdata", 0)?.get_attr("install", vm)?.call((read, keys, version), vm)?;
    Ok(())
}
