//! Captured output: `sys.stdout` and `sys.stderr` in the sandbox are text streams (`_sandbox_streams`) whose
//! `write` appends to the session's buffers, one per stream.
//!
//! A run's output is what it wrote to stdout, exactly as CPython prints it, then, when it wrote anything to
//! stderr (a warning, argparse's usage error, logging's default handler, `traceback.print_exc()`), that text
//! after a line `[stderr]`. dspy's own `PythonInterpreter` captures stderr apart and drops it; here it still
//! reaches the model, which needs the warning or the usage error, without mixing into what was printed.

use rustpython_vm::builtins::PyStrRef;
use rustpython_vm::{PyObjectRef, PyResult, VirtualMachine};

use crate::sandbox::limits;
use crate::sandbox::state::{with_state, SessionState};

/// The line that starts what a run wrote to stderr, after what it printed.
pub const STDERR_HEADING: &str = "[stderr]\n";

/// How each note the host adds to a run's text begins: the stderr heading, the truncation note (both here), and
/// the heading of the output printed before an error (`_outcome.py`).
const NOTE_OPENINGS: &[&str] = &["[stderr]", "[output truncated:", "Output printed before the error:"];

/// `text` the code made (printed, a repr, an exception's message or traceback) with a backslash before each line
/// that opens as one of the host's notes (or as one already so escaped): a note in a run's text is always the
/// host's, whatever the code printed (a document the model was given may hold those words).
pub fn escape_notes(text: String) -> String {
    if !NOTE_OPENINGS.iter().any(|opening| text.contains(opening)) {
        return text;
    }
    let mut escaped = String::with_capacity(text.len() + 16);
    for line in text.split_inclusive('\n') {
        if NOTE_OPENINGS.iter().any(|opening| line.trim_start_matches('\\').starts_with(opening)) {
            escaped.push('\\');
        }
        escaped.push_str(line);
    }
    escaped
}

#[derive(Clone, Copy)]
enum Stream {
    Out,
    Err,
}

/// Append to a stream's buffer, keeping at most the session's cap (both streams together) and counting what is
/// dropped.
fn write_to(stream: Stream, text: PyStrRef) -> usize {
    let length = text.char_len();
    let cap = limits::max_output_chars();
    with_state(|state| {
        let room = cap.saturating_sub(state.output_chars);
        let kept = length.min(room);
        let buffer: &mut String = match stream {
            Stream::Out => &mut state.output,
            Stream::Err => &mut state.error_output,
        };
        if kept == length {
            buffer.push_str(&text.to_string_lossy());
        } else {
            buffer.extend(text.to_string_lossy().chars().take(kept));
        }
        state.output_chars += kept;
        state.output_dropped += length - kept;
    });
    length
}

fn writer(vm: &VirtualMachine, stream: Stream) -> (PyObjectRef, PyObjectRef) {
    let write = vm.new_function("write", move |text: PyStrRef| write_to(stream, text));
    let writelines = vm.new_function(
        "writelines",
        move |lines: rustpython_vm::function::ArgIterable<PyStrRef>, vm: &VirtualMachine| -> PyResult<()> {
            for line in lines.iter(vm)? {
                write_to(stream, line?);
            }
            Ok(())
        },
    );
    (write.into(), writelines.into())
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
    let (out_write, out_writelines) = writer(vm, Stream::Out);
    let (err_write, err_writelines) = writer(vm, Stream::Err);
    let streams = make.call((out_write, out_writelines, err_write, err_writelines), vm)?;
    match streams.downcast_ref::<rustpython_vm::builtins::PyTuple>().map(|pair| pair.as_slice().to_vec()).as_deref() {
        Some([stdout, stderr]) => Ok((stdout.clone(), stderr.clone())),
        _ => Err(vm.new_system_error("_sandbox_streams.make_streams did not return two streams")),
    }
}

/// What a run wrote, taken from the session's buffers at its end.
pub struct Printed {
    pub stdout: String,
    stderr: String,
    /// Characters kept (both streams), and characters dropped past the cap.
    kept: usize,
    dropped: usize,
}

impl Printed {
    pub fn is_empty(&self) -> bool {
        self.stdout.is_empty() && self.stderr.is_empty() && self.dropped == 0
    }

    /// The run's output as one text: stdout, then stderr under its heading, then a note saying how much was
    /// dropped past the cap.
    pub fn into_text(self) -> String {
        let Printed { stdout, stderr, kept, dropped } = self;
        let mut stdout = escape_notes(stdout);
        if !stderr.is_empty() {
            let stderr = escape_notes(stderr);
            if !stdout.is_empty() && !stdout.ends_with('\n') {
                stdout.push('\n');
            }
            stdout.push_str(STDERR_HEADING);
            stdout.push_str(&stderr);
        }
        if dropped > 0 {
            if !stdout.ends_with('\n') {
                stdout.push('\n');
            }
            stdout.push_str(&format!(
                "[output truncated: the first {kept} characters are shown, {dropped} more were dropped; print less, \
                 e.g. a slice, a count or a summary]"
            ));
        }
        stdout
    }
}

/// What the run wrote, leaving the buffers empty for the next.
pub fn take_output() -> Printed {
    with_state(|state: &mut SessionState| Printed {
        stdout: std::mem::take(&mut state.output),
        stderr: std::mem::take(&mut state.error_output),
        kept: std::mem::take(&mut state.output_chars),
        dropped: std::mem::take(&mut state.output_dropped),
    })
}
