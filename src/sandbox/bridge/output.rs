//! Captured output: `sys.stdout` and `sys.stderr` in the sandbox are text streams (`_sandbox_streams`) whose
//! `write` appends to the session's buffers, one per stream.
//!
//! A run's output is what it wrote to stdout, exactly as CPython prints it, then, when it wrote anything to
//! stderr (a warning, argparse's usage error, logging's default handler, `traceback.print_exc()`), that text
//! after a line `[stderr]`. dspy's own `PythonInterpreter` captures stderr apart and drops it; here it still
//! reaches the model, which needs the warning or the usage error, without mixing into what was printed.

use std::cell::RefCell;

use rustpython_vm::builtins::PyStrRef;
use rustpython_vm::{PyObjectRef, PyResult, VirtualMachine};

use crate::sandbox::vm::limits;

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

/// What a run wrote to one stream within the cap: its head, while the run's room for heads lasts, then the
/// last characters written after that, which the next write may push out.
#[derive(Default)]
struct Kept {
    head: String,
    tail: String,
    tail_chars: usize,
    /// Characters written to the stream in all.
    written: usize,
}

impl Kept {
    /// Add to the tail, keeping at least its last `budget` characters (trimmed in bulk, so each character is
    /// moved at most once more).
    fn push_tail(&mut self, text: &str, chars: usize, budget: usize) {
        if chars > budget {
            let skip = text.char_indices().nth(chars - budget).map_or(text.len(), |(at, _)| at);
            self.tail.clear();
            self.tail.push_str(&text[skip..]);
            self.tail_chars = budget;
            return;
        }
        self.tail.push_str(text);
        self.tail_chars += chars;
        if self.tail_chars > budget.saturating_mul(2) {
            self.keep_last(budget);
        }
    }

    fn keep_last(&mut self, chars: usize) {
        if self.tail_chars > chars {
            let skip = self.tail.char_indices().nth(self.tail_chars - chars).map_or(self.tail.len(), |(at, _)| at);
            self.tail.drain(..skip);
            self.tail_chars = chars;
        }
    }

    /// The stream's text as the host shows it: the head, then, when characters were dropped between head and
    /// tail, a note on its own line saying how many, then the tail. The code's own text is escaped
    /// (`escape_notes`) so that the note is the host's alone.
    fn into_text(self) -> String {
        let kept = self.head.chars().count() + self.tail_chars;
        let dropped = self.written - kept;
        let mut text = escape_notes(self.head);
        if dropped > 0 {
            if !text.is_empty() && !text.ends_with('\n') {
                text.push('\n');
            }
            text.push_str(&format!(
                "[output truncated: {dropped} of {} characters were dropped here, before the last {}; print less, \
                 e.g. a slice, a count or a summary]\n",
                self.written, self.tail_chars
            ));
        }
        text.push_str(&escape_notes(self.tail));
        text
    }
}

/// What the current run wrote to `sys.stdout` and to `sys.stderr`, kept apart (see the module's doc).
#[derive(Default)]
struct Capture {
    out: Kept,
    err: Kept,
    /// Characters in both heads.
    head_chars: usize,
}

impl Capture {
    /// Append to a stream, keeping at most `cap` characters of both streams together: the first half of the
    /// cap as written (both streams' heads), the second half the last characters written (each stream's
    /// tail). Both ends count: a loop's last lines, a final result or a traceback printed after much output are
    /// what the model reads first, and dspy's RLM shows the model the head and the tail of each step's output.
    fn write(&mut self, stream: Stream, text: &str, cap: usize) {
        self.write_counted(stream, text, text.chars().count(), cap);
    }

    /// `write`, the characters of `text` counted already (a str knows its length: a print needs no count).
    fn write_counted(&mut self, stream: Stream, text: &str, length: usize, cap: usize) {
        let tail_budget = cap / 2;
        let head_budget = cap - tail_budget;
        let room = head_budget - self.head_chars.min(head_budget);
        let kept = match stream {
            Stream::Out => &mut self.out,
            Stream::Err => &mut self.err,
        };
        // A stream whose tail has begun has no room left in the heads (it began when that room ran out).
        let head_length = length.min(room);
        let head = if head_length == length {
            text
        } else {
            &text[..text.char_indices().nth(head_length).map_or(text.len(), |(at, _)| at)]
        };
        kept.written += length;
        kept.head.push_str(head);
        self.head_chars += head_length;
        if head_length < length && tail_budget > 0 {
            kept.push_tail(&text[head.len()..], length - head_length, tail_budget);
        }
    }
}

thread_local! {
    static CAPTURE: RefCell<Capture> = RefCell::default();
}

/// Append to a stream of the current run.
fn write_to(stream: Stream, text: PyStrRef) -> usize {
    let cap = limits::max_output_chars();
    let length = text.char_len();
    CAPTURE.with_borrow_mut(|capture| capture.write_counted(stream, &text.to_string_lossy(), length, cap));
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

/// Forget what an earlier run wrote (one that ended without taking it, e.g. stopped before it ran).
pub fn begin_run() {
    CAPTURE.take();
}

/// What a run wrote, taken from the session's buffers at its end.
pub struct Printed {
    capture: Capture,
    cap: usize,
}

impl Printed {
    pub fn is_empty(&self) -> bool {
        self.capture.out.written == 0 && self.capture.err.written == 0
    }

    /// Add to stdout after the run's end, as if the run had printed it (a trailing expression's repr).
    pub fn print(&mut self, text: &str) {
        let out = &self.capture.out;
        let ends_line = if out.tail_chars > 0 { out.tail.ends_with('\n') } else { out.head.ends_with('\n') };
        if out.written > 0 && !ends_line {
            self.capture.write(Stream::Out, "\n", self.cap);
        }
        self.capture.write(Stream::Out, text, self.cap);
    }

    /// The run's output as one text: stdout, then stderr under its heading. The tails share the second half
    /// of the cap: stderr's (a warning, a traceback) keeps at least half of it, stdout's what stderr leaves.
    pub fn into_text(self) -> String {
        let Capture { mut out, mut err, .. } = self.capture;
        let tail_budget = self.cap / 2;
        let err_tail = err.tail_chars.min((tail_budget / 2).max(tail_budget - out.tail_chars.min(tail_budget)));
        err.keep_last(err_tail);
        out.keep_last(tail_budget - err_tail);
        let mut text = out.into_text();
        if err.written > 0 {
            if !text.is_empty() && !text.ends_with('\n') {
                text.push('\n');
            }
            text.push_str(STDERR_HEADING);
            text.push_str(&err.into_text());
        }
        text
    }
}

/// `text` the code made as the host shows it: at most `cap` characters, its head and its tail, the notes escaped.
pub fn shown(text: &str, cap: usize) -> String {
    let mut printed = Printed { capture: Capture::default(), cap };
    printed.capture.write(Stream::Out, text, cap);
    printed.into_text()
}

/// What the run wrote, leaving the buffers empty for the next.
pub fn take_output() -> Printed {
    Printed { capture: CAPTURE.take(), cap: limits::max_output_chars() }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn shown(writes: &[(Stream, &str)], cap: usize) -> String {
        let mut printed = Printed { capture: Capture::default(), cap };
        for (stream, text) in writes {
            printed.capture.write(*stream, text, cap);
        }
        printed.into_text()
    }

    #[test]
    fn text_within_the_cap_is_kept_whole() {
        assert_eq!(shown(&[(Stream::Out, "abc"), (Stream::Err, "e")], 4), "abc\n[stderr]\ne");
    }

    #[test]
    fn past_the_cap_the_head_and_the_tail_are_kept_with_a_note_between() {
        let text = shown(&[(Stream::Out, "0123456789"), (Stream::Out, "abcdefghij")], 8);
        assert_eq!(
            text,
            "0123\n[output truncated: 12 of 20 characters were dropped here, before the last 4; print less, e.g. a \
             slice, a count or a summary]\nghij"
        );
    }

    #[test]
    fn characters_are_counted_and_cut_as_characters() {
        let text = shown(&[(Stream::Out, "ééééé"), (Stream::Out, "ü€😀")], 4);
        assert!(text.starts_with("éé\n[output truncated: 4 of 8 characters"), "{text}");
        assert!(text.ends_with("\n€😀"), "{text}");
    }

    #[test]
    fn stderr_keeps_its_tail_after_much_stdout() {
        // The tails share half the cap, each at least half of that: a warning within its share is kept whole.
        let text = shown(&[(Stream::Out, &"x".repeat(1000)), (Stream::Err, "warning")], 40);
        assert!(text.ends_with("[stderr]\nwarning"), "{text}");
        let kept: usize = text.lines().filter(|line| !line.starts_with('[')).map(|line| line.chars().count()).sum();
        assert_eq!(kept, 40, "{text}");
    }

    #[test]
    fn a_tail_of_many_writes_holds_only_its_last_characters() {
        let mut capture = Capture::default();
        for i in 0..100_000 {
            capture.write(Stream::Out, &format!("{i}\n"), 100);
        }
        assert!(capture.out.tail.len() <= 2 * 50 + 8, "{}", capture.out.tail.len());
        let text = Printed { capture, cap: 100 }.into_text();
        assert!(text.ends_with("99998\n99999\n"), "{text}");
    }

    #[test]
    fn what_the_notes_add_fits_the_room_the_host_leaves_for_them() {
        // Both streams cut, with as many characters written and dropped as counts go: the host's cap keeps all
        // of it. Each note's third count (the tail's length) is 1 here; it is at most as wide as the others.
        let cut =
            |text: &str| Kept { head: text.to_owned(), tail: text.to_owned(), tail_chars: 1, written: usize::MAX };
        let capture = Capture { out: cut("o"), err: cut("e"), head_chars: 2 };
        let text = Printed { capture, cap: usize::MAX / 2 }.into_text();
        let widest_tail_count = usize::MAX.to_string().len() - 1;
        let added = text.chars().count() - 4 + 2 * widest_tail_count;
        assert!(added <= crate::protocol::message::OUTPUT_NOTE_CHARS, "{added} characters: {text}");
    }

    #[test]
    fn a_cap_of_zero_or_one_keeps_at_most_that() {
        assert!(shown(&[(Stream::Out, "abc")], 0).starts_with("[output truncated: 3 of 3 characters"));
        assert!(shown(&[(Stream::Out, "abc")], 1).starts_with("a\n[output truncated: 2 of 3 characters"));
    }
}
