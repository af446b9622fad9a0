//! The sandbox's filesystem from the session process's side: setting it up when a session starts (its mounts
//! and quotas, and the native doors `_sandbox_files` asks the host through), and the host API's commands
//! (`interp.files`), run between cells. The filesystem itself is Python (`machinery/_sandbox_files*.py`); a mount's
//! operations cross to the host as `ToHost::FileOp` (see `host::mounts`).

use rustpython_vm::builtins::{PyBytesRef, PyStr};
use rustpython_vm::function::FuncArgs;
use rustpython_vm::{PyObjectRef, PyResult, TryFromObject, VirtualMachine};

use crate::protocol::files::{FileAnswer, FileKind, FileOp, FileStat, FilesCommand, FilesOptions, MAX_TRANSFER};
use crate::protocol::message::Outcome;
use crate::protocol::value::Value;

/// The filesystem's modules, as imported at start-up (sandbox code removing them from `sys.modules` changes nothing
/// here), and the runs so far (the filesystem notes which run changed each file).
#[derive(Default)]
struct Files {
    files_module: Option<PyObjectRef>,
    files_host_module: Option<PyObjectRef>,
    runs: u64,
}

thread_local! {
    static FILES: std::cell::RefCell<Files> = std::cell::RefCell::new(Files::default());
}

fn with_state<R>(f: impl FnOnce(&mut Files) -> R) -> R {
    FILES.with(|state| f(&mut state.borrow_mut()))
}

/// Runs so far.
pub fn runs() -> u64 {
    with_state(|s| s.runs)
}

/// A run starts: the filesystem notes the changes it makes under its number.
pub fn begin_run() {
    with_state(|s| s.runs += 1);
}

/// Set the count of runs (a rehearsal's run is not the session's).
pub fn set_runs(runs: u64) {
    with_state(|s| s.runs = runs);
}

/// The `_sandbox_files` module (kept from start-up: sandbox code removing it from `sys.modules` changes
/// nothing here).
fn module(vm: &VirtualMachine) -> PyResult<PyObjectRef> {
    match with_state(|s| s.files_module.clone()) {
        Some(module) => Ok(module),
        None => vm.import("_sandbox_files", 0),
    }
}

/// The `_sandbox_files_host` module, kept likewise.
fn host_module(vm: &VirtualMachine) -> PyResult<PyObjectRef> {
    match with_state(|s| s.files_host_module.clone()) {
        Some(module) => Ok(module),
        None => vm.import("_sandbox_files_host", 0),
    }
}

/// Import the filesystem, make `open`/`io.open` its own, and configure it with no mounts and the default quotas;
/// at VM preparation (in the zygote, so that most sessions need no setting up of their own).
pub fn install(vm: &VirtualMachine) -> PyResult<()> {
    let files = vm.import("_sandbox_files", 0)?;
    let host = vm.import("_sandbox_files_host", 0)?;
    with_state(|s| {
        s.files_module = Some(files);
        s.files_host_module = Some(host);
    });
    vm.import("_sandbox_files_io", 0)?.get_attr("install", vm)?.call((), vm)?;
    configure_now(
        vm,
        &FilesOptions {
            mounts: Vec::new(),
            files_max_bytes: crate::protocol::files::DEFAULT_MAX_BYTES,
            files_max_count: crate::protocol::files::DEFAULT_MAX_FILES,
        },
    )
}

/// Give the session its mounts and quotas when they are not the zygote's (see `install`); once, when it starts.
pub fn configure(vm: &VirtualMachine, options: &FilesOptions) -> PyResult<()> {
    if options.mounts.is_empty()
        && options.files_max_bytes == crate::protocol::files::DEFAULT_MAX_BYTES
        && options.files_max_count == crate::protocol::files::DEFAULT_MAX_FILES
    {
        return Ok(());
    }
    configure_now(vm, options)
}

fn configure_now(vm: &VirtualMachine, options: &FilesOptions) -> PyResult<()> {
    let mounts: Vec<PyObjectRef> = options
        .mounts
        .iter()
        .enumerate()
        .map(|(index, mount)| vm.new_tuple((index, mount.path.clone(), mount.mode.name(), mount.is_file)).into())
        .collect();
    let request = vm.new_function("request", request);
    let run_id = vm.new_function("run_id", |_: FuncArgs| with_state(|s| s.runs));
    module(vm)?
        .get_attr("configure", vm)?
        .call((vm.ctx.new_list(mounts), options.files_max_bytes, options.files_max_count, request, run_id), vm)?;
    Ok(())
}

fn names(vm: &VirtualMachine, obj: PyObjectRef) -> PyResult<Vec<String>> {
    vm.extract_elements_with(&obj, |item| {
        item.downcast::<PyStr>().map(|s| s.to_string()).map_err(|_| vm.new_type_error("a path name must be a str"))
    })
}

/// `request(op, mount, names, offset, size, data, names2)`: one operation on a mount's host folder, asked of
/// the host; what it answers, or OSError with its errno.
fn request(args: FuncArgs, vm: &VirtualMachine) -> PyResult {
    let [op, mount, path, offset, size, data, path2]: [PyObjectRef; 7] =
        args.args.try_into().map_err(|_| vm.new_type_error("request() takes 7 arguments"))?;
    let op = u8::try_from_object(vm, op)?;
    let mount = u32::try_from_object(vm, mount)?;
    let path = names(vm, path)?;
    let offset = u64::try_from_object(vm, offset)?;
    let size = u64::try_from_object(vm, size)?;
    let op = match op {
        0 => FileOp::Stat { mount, path },
        1 => FileOp::List { mount, path },
        2 => FileOp::Read { mount, path, offset, size },
        3 => {
            let data = PyBytesRef::try_from_object(vm, data)?;
            if data.as_bytes().len() > MAX_TRANSFER {
                return Err(vm.new_value_error(format!("a write carries at most {MAX_TRANSFER} bytes")));
            }
            let data = data.as_bytes().to_vec();
            FileOp::Write { mount, path, offset, data, create: size != 0 }
        }
        4 => FileOp::Truncate { mount, path, size },
        5 => FileOp::Mkdir { mount, path },
        6 => FileOp::Rmdir { mount, path },
        7 => FileOp::Unlink { mount, path },
        8 => FileOp::Rename { mount, from: path, to: names(vm, path2)? },
        9 => FileOp::Utime { mount, path, atime_ns: offset, mtime_ns: size },
        other => return Err(vm.new_value_error(format!("unknown file operation {other}"))),
    };
    // `_sandbox_files` reads a status as (is a folder, size, mtime in ns), and a listing's entries as the name
    // followed by the same three.
    let fields = |stat: &FileStat| (matches!(stat.kind, FileKind::Dir) as u8, stat.size, stat.mtime_ns);
    match crate::sandbox::bridge::host::host().file_op(op) {
        FileAnswer::Done => Ok(vm.ctx.none()),
        FileAnswer::Stat(stat) => Ok(vm.new_tuple(fields(&stat)).into()),
        FileAnswer::List(entries) => {
            let entries = entries.iter().map(|(name, stat)| {
                let (is_dir, size, mtime) = fields(stat);
                vm.new_tuple((name.clone(), is_dir, size, mtime)).into()
            });
            Ok(vm.ctx.new_list(entries.collect()).into())
        }
        FileAnswer::Data(data) => Ok(vm.ctx.new_bytes(data).into()),
        FileAnswer::Failed { errno, detail } => Err(vm.new_errno_error(errno, detail).upcast()),
    }
}

/// Run one of the host API's commands on the session's files: its value, or the error it raised.
pub fn command(vm: &VirtualMachine, command: FilesCommand) -> Outcome {
    let result = (|| -> PyResult<Value> {
        let host = host_module(vm)?;
        let value = match command {
            FilesCommand::Write { path, data } => {
                let data = crate::sandbox::bridge::values::into_sandbox(data, vm)
                    .map_err(|e| vm.new_type_error(e.describe("data")))?;
                host.get_attr("host_write", vm)?.call((path, data), vm)?;
                Value::None
            }
            FilesCommand::Read { path } => {
                let data = host.get_attr("host_read", vm)?.call((path,), vm)?;
                Value::Bytes(PyBytesRef::try_from_object(vm, data)?.as_bytes().to_vec())
            }
            FilesCommand::List => {
                let list = host.get_attr("host_list", vm)?.call((), vm)?;
                Value::List(names(vm, list)?.into_iter().map(Value::Str).collect())
            }
            FilesCommand::Written => {
                let list = module(vm)?.get_attr("written", vm)?.call((), vm)?;
                Value::List(names(vm, list)?.into_iter().map(Value::Str).collect())
            }
        };
        Ok(value)
    })();
    match result {
        Ok(value) => Outcome::Value(value),
        Err(exc) => {
            let report = crate::sandbox::vm::errors::exception_report(vm, &exc, |_, _| None);
            Outcome::Error {
                type_name: report.type_name,
                message: report.message,
                traceback: String::new(),
                output: String::new(),
                stop: None,
            }
        }
    }
}
