//! Captured output: `sys.stdout` and `sys.stderr` in the sandbox are text streams (`_sandbox_streams`) whose
//! `write` appends to the session's buffer, so `print()`, `print(file=sys.stderr)` and `sys.stdout.write`
//! interleave in order.

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
    let make = vm.import("_sandbox_streams", 0)?.get_attr("make_streams", vm)?;
    let streams = make.call((vm.new_function("write", write), vm.new_function("writelines", writelines)), vm)?;
    match streams.downcast_ref::<rustpython_vm::builtins::PyTuple>().map(|pair| pair.as_slice().to_vec()).as_deref() {
        Some([stdout, stderr]) => Ok((stdout.clone(), stderr.clone())),
        _ => Err(vm.new_system_error("_sandbox_streams.make_streams did not return two streams")),
    }
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
