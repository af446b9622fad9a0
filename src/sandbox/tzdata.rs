//! Time-zone data for `zoneinfo`: the files of the host's `tzdata` package (a dependency of the wheel), read
//! once by the zygote before it is confined and handed to `_sandbox_tzdata` (`sandbox_py/tzdata.py`), which
//! serves them as the `tzdata` package through `importlib.resources`, as CPython's `zoneinfo` reads them.

use std::path::Path;

use rustpython_vm::builtins::PyStrRef;
use rustpython_vm::{PyObjectRef, PyResult, VirtualMachine};

/// Bounds on what is read (tzdata 2026f: 597 zone files, 0.4 MB): a folder that is not `tzdata`'s costs the
/// zygote no more than this.
const MAX_FILES: usize = 4096;
const MAX_BYTES: u64 = 16 << 20;

/// The data of a `tzdata` package.
pub struct Data {
    /// ("zoneinfo/Europe/Paris", TZif bytes) and ("zones", the list of zones).
    files: Vec<(String, Vec<u8>)>,
    /// The IANA release its `__init__.py` names.
    version: Option<String>,
}

/// The data of the `tzdata` package in `dir`; None when `dir` holds no zone data.
pub fn read(dir: &Path) -> Option<Data> {
    let mut files = Vec::new();
    let mut total = 0u64;
    let mut pending = vec![dir.join("zoneinfo")];
    while let Some(folder) = pending.pop() {
        for entry in std::fs::read_dir(&folder).ok()?.flatten() {
            let path = entry.path();
            let name = entry.file_name();
            let name = name.to_str()?;
            let kind = entry.file_type().ok()?;
            if kind.is_dir() {
                if name != "__pycache__" {
                    pending.push(path);
                }
            } else if kind.is_file() && !name.ends_with(".py") {
                total += entry.metadata().ok()?.len();
                if files.len() >= MAX_FILES || total > MAX_BYTES {
                    return None;
                }
                let key = path.strip_prefix(dir).ok()?.to_str()?.to_owned();
                files.push((key, std::fs::read(&path).ok()?));
            }
        }
    }
    if files.is_empty() {
        return None;
    }
    if let Ok(zones) = std::fs::read(dir.join("zones")) {
        files.push(("zones".to_owned(), zones));
    }
    let version = std::fs::read_to_string(dir.join("__init__.py")).ok().and_then(|text| {
        let line = text.lines().find(|line| line.starts_with("IANA_VERSION"))?;
        Some(line.split('"').nth(1)?.to_owned())
    });
    Some(Data { files, version })
}

/// The data, kept in the zygote's memory for every session it forks (see `sandbox_py/tzdata.py` for why not
/// as Python objects).
static DATA: std::sync::OnceLock<Data> = std::sync::OnceLock::new();

/// Hand the data to the sandbox's `tzdata` package: functions that read a file and list the keys.
pub fn install(vm: &VirtualMachine, data: Data) -> PyResult<()> {
    let version = match &data.version {
        Some(version) => vm.ctx.new_str(version.as_str()).into(),
        None => vm.ctx.none(),
    };
    if DATA.set(data).is_err() {
        return Ok(()); // a second VM in this process: the data is there already
    }
    let read = vm.new_function("read", |key: PyStrRef, vm: &VirtualMachine| -> PyObjectRef {
        let found = DATA.get().and_then(|data| data.files.iter().find(|(name, _)| key.as_bytes() == name.as_bytes()));
        match found {
            Some((_, bytes)) => vm.ctx.new_bytes(bytes.clone()).into(),
            None => vm.ctx.none(),
        }
    });
    let keys = vm.new_function("keys", |vm: &VirtualMachine| -> PyObjectRef {
        let names = DATA.get().map(|data| data.files.iter().map(|(name, _)| vm.ctx.new_str(name.as_str()).into()).collect());
        vm.ctx.new_list(names.unwrap_or_default()).into()
    });
    vm.import("_sandbox_tzdata", 0)?.get_attr("install", vm)?.call((read, keys, version), vm)?;
    Ok(())
}
