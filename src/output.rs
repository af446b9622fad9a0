//! Captured output: `sys.stdout` and `sys.stderr` in the sandbox are objects whose `write` appends to the
//! session's buffer, so `print()`, `print(file=sys.stderr)` and `sys.stdout.write` interleave in order.

use rustpython_vm::builtins::PyStrRef;
use rustpython_vm::{PyObjectRef, PyResult, VirtualMachine};

use crate::state::with_state;

/// Append to the output, keeping at most the session's cap and counting what is dropped.
fn write(text: PyStrRef) -> usize {
    let length = text.char_len();
    with_state(|state| {
        let cap = state.shared.as_ref().map_or(usize::MAX, |s| s.limits.max_output_chars);
        let room = cap.saturating_sub(state.output_chars);
        if length <= room {
            state.output.push_str(&text.to_string_lossy());
            state.output_chars += length;
        } else {
            state.output.extend(text.to_string_lossy().chars().take(room));
            state.output_chars += room;
            state.output_dropped += length - room;
        }
    });
    length
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

/// The run's output, with a note saying how much was dropped past the cap.
pub fn take_output() -> String {
    with_state(|state| {
        let mut output = std::mem::take(&mut state.output);
        let dropped = std::mem::take(&mut state.output_dropped);
        let kept = std::mem::take(&mut state.output_chars);
        if dropped > 0 {
            if !output.ends_with('\n') {
                output.push('\n');
            }
            output.push_str(&format!(
                "[output truncated: the first {kept} characters are shown, {dropped} more were dropped; print less, \
                 e.g. a slice, a count or a summary]"
            ));
        }
        output
    })
}
