//! Captured output: `sys.stdout` and `sys.stderr` in the sandbox are objects whose `write` appends to the
//! session's buffer, so `print()`, `print(file=sys.stderr)` and `sys.stdout.write` interleave in order.

use rustpython_vm::builtins::PyStrRef;
use rustpython_vm::{PyObjectRef, PyResult, VirtualMachine};

use crate::state::with_state;

fn write(text: PyStrRef) -> usize {
    with_state(|state| state.output.push_str(&text.to_string_lossy()));
    text.char_len()
}

fn writelines(lines: rustpython_vm::function::ArgIterable<PyStrRef>, vm: &VirtualMachine) -> PyResult<()> {
    for line in lines.iter(vm)? {
        write(line?);
    }
    Ok(())
}

/// A minimal text stream whose writes land in the session's output buffer.
fn new_stream(vm: &VirtualMachine, name: &str) -> PyResult<PyObjectRef> {
    let stream = vm.new_module(name, vm.ctx.new_dict(), None);
    stream.set_attr("write", vm.new_function("write", write), vm)?;
    stream.set_attr("writelines", vm.new_function("writelines", writelines), vm)?;
    stream.set_attr("flush", vm.new_function("flush", || {}), vm)?;
    stream.set_attr("isatty", vm.new_function("isatty", || false), vm)?;
    stream.set_attr("writable", vm.new_function("writable", || true), vm)?;
    stream.set_attr("encoding", vm.ctx.new_str("utf-8"), vm)?;
    Ok(stream.into())
}

/// Point `sys.stdout`/`sys.stderr` (and their `__stdout__` twins) at the capture streams. Done before every
/// run, so code that replaced them in an earlier run is still captured.
pub fn install_streams(vm: &VirtualMachine, streams: &(PyObjectRef, PyObjectRef)) -> PyResult<()> {
    let sys = &vm.sys_module;
    sys.set_attr("stdout", streams.0.clone(), vm)?;
    sys.set_attr("stderr", streams.1.clone(), vm)?;
    sys.set_attr("__stdout__", streams.0.clone(), vm)?;
    sys.set_attr("__stderr__", streams.1.clone(), vm)?;
    Ok(())
}

pub fn new_streams(vm: &VirtualMachine) -> PyResult<(PyObjectRef, PyObjectRef)> {
    Ok((new_stream(vm, "<stdout>")?, new_stream(vm, "<stderr>")?))
}

pub fn take_output() -> String {
    with_state(|state| std::mem::take(&mut state.output))
}
