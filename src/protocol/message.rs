//! The messages: `ToSession` (host -> session process) and `ToHost` (session process -> host), named for where they
//! go: a tool call is the session's message to the host, its result the host's answer.
//!
//! One exchange per `execute()`: the host sends `Execute`, the session answers with any number of
//! `ToolCall`s (each answered by a `ToolResult` before the session goes on) and then `Done`. Between
//! runs the session sends `Checkpoint` with the socket of a frozen copy of itself; `Fork` asks for a live
//! copy. A process that takes over a session (new, resumed checkpoint, fork) first says `Ready`.

use std::time::Duration;

use super::channel::Frame;
use super::files::{FileAnswer, FileOp, FilesCommand, FilesOptions};
use super::value::{Value, MAX_VALUES};
use super::wire::{Encoded, Reader, WireError, WireResult, Writer};

/// A declared output field: name and, for the simple types dspy declares, the expected type.
#[derive(Clone, Debug, PartialEq)]
pub struct Field {
    pub name: String,
    pub declared_type: Option<String>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FinishKind {
    /// dspy 3.4's `SUBMIT(...)` -> `FinalOutput`.
    Submit,
    /// The seed protocol's `FINAL(...)` / `FINAL_VAR(...)` -> `FinalAnswerResult`.
    Final,
}

/// A tool as the session sees it: its name, the parameter names positional arguments bind to (when the host
/// callable must be called with keywords), and the source of its stand-in (a `def` with the tool's own
/// signature and docstring), if any.
#[derive(Clone, Debug, PartialEq)]
pub struct ToolDecl {
    pub name: String,
    pub positional_names: Option<Vec<String>>,
    pub source: Option<String>,
}

/// The session's limits, sent once when it starts (a fork or checkpoint keeps its parent's).
#[derive(Clone, Debug, PartialEq)]
pub struct SessionOptions {
    pub timeout_seconds: Option<f64>,
    /// How long a run that ignores a stop request (a long native operation) gets before it is abandoned.
    pub abandon_after_seconds: f64,
    pub max_output_chars: u64,
    pub memory_limit: Option<u64>,
    pub preload: Vec<String>,
    pub files: FilesOptions,
}

/// The longest wait any limit means (about 136 years): the host's `Options` reads a longer one, infinity
/// included, as this, so every deadline made from it (twice the grace, a limit plus its backstop, now plus a
/// wait) is one that both Rust's clocks and Python's waits can hold.
pub const LONGEST_WAIT: Duration = Duration::from_secs(u32::MAX as u64);

impl SessionOptions {
    /// The time limit of one run, None for none (the host's `Options` made it positive).
    pub fn timeout(&self) -> Option<Duration> {
        self.timeout_seconds.map(|seconds| Duration::try_from_secs_f64(seconds).unwrap_or(LONGEST_WAIT))
    }

    /// How long a run that ignores a stop request (a long native operation) gets before it is abandoned.
    pub fn grace(&self) -> Duration {
        Duration::try_from_secs_f64(self.abandon_after_seconds).unwrap_or(LONGEST_WAIT)
    }
}

/// A host exception from a tool, as text: the session makes its own exception from it.
#[derive(Clone, Debug, PartialEq)]
pub struct HostError {
    pub type_name: String,
    pub is_builtin: bool,
    pub message: String,
    pub host_type: String,
    pub traceback: String,
}

#[derive(Clone, Debug, PartialEq)]
pub enum ToolResult {
    Return(Value),
    /// The tool returned an iterator: its items stay on the host, pulled one by one (`ToHost::StreamPull`)
    /// through the stream of this id.
    Stream(u64),
    /// The answer to a `StreamPull` whose stream has no more items.
    End,
    Raise(HostError),
    /// The host could not use the call or its result; the message becomes a TypeError in the sandbox.
    Refused(String),
}

#[derive(Debug, PartialEq)]
pub struct Execute {
    pub code: String,
    pub variables: Vec<(String, Value)>,
    /// A new tool table, or None to keep the current one.
    pub tools: Option<Vec<ToolDecl>>,
    pub fields: Option<Vec<Field>>,
    /// Fork a checkpoint after this run, however short it is (see `host::journal`).
    pub checkpoint: bool,
}

#[derive(Debug, PartialEq)]
pub enum ToSession {
    /// To the zygote: start a session with these options on the socket passed with the message.
    Spawn(SessionOptions),
    Execute(Box<Execute>),
    ToolResult(ToolResult),
    /// The answer to `ToHost::Wait`: the host calls (started with `ToHost::ToolStart`) that finished since the
    /// last answer, by call id; none when the wait timed out.
    Woken(Vec<(u64, ToolResult)>),
    /// Make a live, independent copy of the session; it answers `Ready` on the socket sent back with `Forked`.
    Fork,
    /// To a checkpoint: become the live session.
    Resume,
    /// End the session: the process exits.
    Shutdown,
    /// For tests: make the next run fail in this way (see `FaultPlace`), to prove that the session survives.
    InjectFault(FaultPlace),
    /// The host API on the session's files, between runs; answered by `Done` like a run.
    Files(FilesCommand),
    /// The answer to `ToHost::FileOp`.
    FileAnswer(FileAnswer),
}

/// Where a test asks the session process to fail during its next run.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FaultPlace {
    /// A Rust panic while the VM runs.
    Panic = 0,
    /// An abort, as an allocation failure on a path that cannot fail ends.
    Abort = 1,
    /// The VM thread overflows its native stack.
    StackOverflow = 2,
}

/// Why a run was stopped before its code ended, defined once for both ends (Python sees it as `StopReason`):
/// a limit or the host's interrupt, in the VM (the run ended with the limit's exception) or, when the run
/// ignored the stop for the grace period (a long native operation), by ending the session process; or the
/// session process's death, which only the host sees (a session never sends `Crash`).
#[pyo3::pyclass(eq, eq_int, frozen, name = "StopReason", module = "dspy_rust_interpreter._native")]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Stop {
    Timeout = 0,
    Memory = 1,
    Interrupt = 2,
    /// The session process crashed.
    Crash = 3,
}

#[derive(Clone, Debug, PartialEq)]
pub enum Outcome {
    /// What `execute()` returns when no finish call was accepted: printed text or a value.
    Value(Value),
    Finish(FinishKind, Value),
    Syntax { message: String, lineno: Option<u64>, offset: Option<u64>, text: Option<String> },
    /// An exception ended the run; `stop` when it was a limit's.
    Error { type_name: String, message: String, traceback: String, output: String, stop: Option<Stop> },
    /// The host's input could not be used (e.g. a variable of an unsupported type); nothing was changed.
    BadInput(String),
}

/// An error's type name longer than this is cut (CPython's are a few dozen characters).
const MAX_TYPE_NAME_CHARS: usize = 256;
/// Room past `max_output_chars` for the note the sandbox adds to the printed output it truncated.
const OUTPUT_NOTE_CHARS: usize = 256;

impl Outcome {
    /// The outcome with each text that reaches the caller bounded by `max_chars` (the session's
    /// `max_output_chars`): an error's message and traceback together, its printed output, a syntax error's
    /// parts. Values (a `Value` or the fields of a finish call) are data, bounded by the frame's size.
    pub fn capped(self, max_chars: usize) -> Self {
        match self {
            Outcome::Error { mut type_name, mut message, mut traceback, mut output, stop } => {
                cap_text(&mut type_name, MAX_TYPE_NAME_CHARS);
                let message_chars = cap_text(&mut message, max_chars);
                cap_text(&mut traceback, max_chars.saturating_sub(message_chars));
                // The sandbox caps printed output itself and says how much it dropped: its note is kept.
                cap_text(&mut output, max_chars.saturating_add(OUTPUT_NOTE_CHARS));
                Outcome::Error { type_name, message, traceback, output, stop }
            }
            Outcome::Syntax { mut message, lineno, offset, mut text } => {
                cap_text(&mut message, max_chars);
                if let Some(text) = &mut text {
                    cap_text(text, max_chars);
                }
                Outcome::Syntax { message, lineno, offset, text }
            }
            Outcome::BadInput(mut message) => {
                cap_text(&mut message, max_chars);
                Outcome::BadInput(message)
            }
            other => other,
        }
    }
}

/// Keep at most `max_chars` characters of `text`, saying how many were dropped; the characters kept.
pub fn cap_text(text: &mut String, max_chars: usize) -> usize {
    let Some((cut, _)) = text.char_indices().nth(max_chars) else { return text.chars().count() };
    let dropped = text[cut..].chars().count();
    text.truncate(cut);
    text.push_str(&format!("\n[... {dropped} more characters were dropped: the text is over the output limit]"));
    max_chars
}

#[derive(Debug, PartialEq)]
pub enum ToHost {
    /// The process serving the session from now on (its pidfd travels with the message).
    Ready { pid: u32 },
    /// The session could not be built (e.g. a preload module the sandbox does not offer).
    Failed(String),
    ToolCall { name: String, args: Vec<Value>, kwargs: Vec<(String, Value)> },
    /// Start a host call that runs while the session goes on (a tool called in async code); its result comes
    /// in a `ToSession::Woken`.
    ToolStart { call_id: u64, name: String, args: Vec<Value>, kwargs: Vec<(String, Value)> },
    /// The session's event loop has nothing to run: answer with the host calls that finish within `timeout`
    /// seconds (at least one, when `None`).
    Wait { timeout: Option<f64> },
    /// An operation on a mount's host folder, which the host does and answers with `ToSession::FileAnswer`.
    FileOp(FileOp),
    /// The next item of a tool's stream (`ToolResult::Stream`), or (`close`) the end of it: answered with a
    /// `ToSession::ToolResult` (the item, `End`, or the tool's exception; `Return(None)` for a close).
    StreamPull { tool: String, stream: u64, close: bool },
    Done(Outcome),
    /// A frozen copy of the session as of the last completed run (its socket travels with the message).
    Checkpoint,
    /// The live copy asked for by `Fork` (its socket travels with the message).
    Forked,
    /// The process is dying of this signal; `out_of_memory` when an allocation failed first.
    Fault { signal: i32, out_of_memory: bool },
    /// The process is ending itself: the run was asked to stop and did not within the grace period.
    Abandoned(Stop),
}

fn write_tool_result(w: &mut Writer, result: &ToolResult) {
    match result {
        ToolResult::Return(value) => {
            w.u8(0);
            value.write(w);
        }
        ToolResult::Raise(error) => {
            w.u8(1);
            w.str(&error.type_name);
            w.bool(error.is_builtin);
            w.str(&error.message);
            w.str(&error.host_type);
            w.str(&error.traceback);
        }
        ToolResult::Refused(message) => {
            w.u8(2);
            w.str(message);
        }
        ToolResult::Stream(id) => {
            w.u8(3);
            w.u64(*id);
        }
        ToolResult::End => w.u8(4),
    }
}

fn read_tool_result(r: &mut Reader<'_>) -> WireResult<ToolResult> {
    Ok(match r.u8()? {
        0 => ToolResult::Return(Value::read(r)?),
        1 => ToolResult::Raise(HostError {
            type_name: r.string()?,
            is_builtin: r.bool()?,
            message: r.string()?,
            host_type: r.string()?,
            traceback: r.string()?,
        }),
        2 => ToolResult::Refused(r.string()?),
        3 => ToolResult::Stream(r.u64()?),
        4 => ToolResult::End,
        other => return Err(WireError::BadTag(other)),
    })
}

fn write_values(w: &mut Writer, values: &[Value]) {
    w.len(values.len());
    for value in values {
        value.write(w);
    }
}

fn read_values(r: &mut Reader<'_>) -> WireResult<Vec<Value>> {
    let n = r.count(1)?;
    r.room_for_values(n)?;
    (0..n).map(|_| Value::read(r)).collect()
}

fn write_named(w: &mut Writer, values: &[(String, Value)]) {
    w.len(values.len());
    for (name, value) in values {
        w.str(name);
        value.write(w);
    }
}

fn read_named(r: &mut Reader<'_>) -> WireResult<Vec<(String, Value)>> {
    let n = r.count(9)?;
    r.room_for_values(n)?;
    (0..n).map(|_| Ok((r.string()?, Value::read(r)?))).collect()
}

/// An optional stop: 0 for none, else 1 followed by the stop's tag.
fn write_stop(w: &mut Writer, stop: Option<Stop>) {
    match stop {
        None => w.u8(0),
        Some(stop) => {
            w.u8(1);
            w.u8(stop as u8);
        }
    }
}

fn read_stop(r: &mut Reader<'_>) -> WireResult<Stop> {
    Ok(match r.u8()? {
        0 => Stop::Timeout,
        1 => Stop::Memory,
        2 => Stop::Interrupt,
        other => return Err(WireError::BadTag(other)),
    })
}

impl ToSession {
    pub fn encode(&self) -> Encoded {
        let mut w = Writer::default();
        match self {
            ToSession::Spawn(options) => {
                w.u8(0);
                w.opt_f64(options.timeout_seconds);
                w.f64(options.abandon_after_seconds);
                w.u64(options.max_output_chars);
                w.opt_u64(options.memory_limit);
                w.strs(&options.preload);
                options.files.write(&mut w);
            }
            ToSession::Execute(execute) => {
                w.u8(1);
                w.str(&execute.code);
                write_named(&mut w, &execute.variables);
                w.bool(execute.tools.is_some());
                if let Some(tools) = &execute.tools {
                    w.len(tools.len());
                    for tool in tools {
                        w.str(&tool.name);
                        w.bool(tool.positional_names.is_some());
                        if let Some(names) = &tool.positional_names {
                            w.strs(names);
                        }
                        w.opt_str(tool.source.as_deref());
                    }
                }
                w.bool(execute.fields.is_some());
                if let Some(fields) = &execute.fields {
                    w.len(fields.len());
                    for field in fields {
                        w.str(&field.name);
                        w.opt_str(field.declared_type.as_deref());
                    }
                }
                w.bool(execute.checkpoint);
            }
            ToSession::ToolResult(result) => {
                w.u8(2);
                write_tool_result(&mut w, result);
            }
            ToSession::Woken(results) => {
                w.u8(7);
                w.len(results.len());
                for (call_id, result) in results {
                    w.u64(*call_id);
                    write_tool_result(&mut w, result);
                }
            }
            ToSession::Fork => w.u8(3),
            ToSession::Resume => w.u8(4),
            ToSession::Shutdown => w.u8(5),
            ToSession::InjectFault(place) => {
                w.u8(6);
                w.u8(*place as u8);
            }
            ToSession::Files(command) => {
                w.u8(8);
                command.write(&mut w);
            }
            ToSession::FileAnswer(answer) => {
                w.u8(9);
                answer.write(&mut w);
            }
        }
        w.finish()
    }

    pub fn decode(frame: &[u8]) -> WireResult<Self> {
        Self::read(Reader::new(frame))
    }

    /// A received request; its large values keep the frame's pages when it is mapped (see `Reader::of_frame`).
    pub fn decode_frame(frame: &Frame) -> WireResult<Self> {
        Self::read(Reader::of_frame(frame))
    }

    fn read(mut r: Reader<'_>) -> WireResult<Self> {
        let request = match r.u8()? {
            0 => ToSession::Spawn(SessionOptions {
                timeout_seconds: r.opt_f64()?,
                abandon_after_seconds: r.f64()?,
                max_output_chars: r.u64()?,
                memory_limit: r.opt_u64()?,
                preload: r.strings()?,
                files: FilesOptions::read(&mut r)?,
            }),
            1 => {
                let code = r.string()?;
                let variables = read_named(&mut r)?;
                let tools = if r.bool()? {
                    let n = r.count(10)?;
                    let mut tools = Vec::with_capacity(n);
                    for _ in 0..n {
                        let name = r.string()?;
                        let positional_names = if r.bool()? { Some(r.strings()?) } else { None };
                        tools.push(ToolDecl { name, positional_names, source: r.opt_string()? });
                    }
                    Some(tools)
                } else {
                    None
                };
                let fields = if r.bool()? {
                    let n = r.count(9)?;
                    Some((0..n).map(|_| Ok(Field { name: r.string()?, declared_type: r.opt_string()? })).collect::<WireResult<_>>()?)
                } else {
                    None
                };
                ToSession::Execute(Box::new(Execute { code, variables, tools, fields, checkpoint: r.bool()? }))
            }
            2 => ToSession::ToolResult(read_tool_result(&mut r)?),
            7 => {
                let n = r.count(10)?;
                let mut results = Vec::with_capacity(n);
                for _ in 0..n {
                    results.push((r.u64()?, read_tool_result(&mut r)?));
                }
                ToSession::Woken(results)
            }
            3 => ToSession::Fork,
            4 => ToSession::Resume,
            5 => ToSession::Shutdown,
            6 => ToSession::InjectFault(match r.u8()? {
                0 => FaultPlace::Panic,
                1 => FaultPlace::Abort,
                2 => FaultPlace::StackOverflow,
                other => return Err(WireError::BadTag(other)),
            }),
            8 => ToSession::Files(FilesCommand::read(&mut r)?),
            9 => ToSession::FileAnswer(FileAnswer::read(&mut r)?),
            other => return Err(WireError::BadTag(other)),
        };
        r.finish()?;
        Ok(request)
    }
}

impl ToHost {
    pub fn encode(&self) -> Vec<u8> {
        let mut w = Writer::default();
        match self {
            ToHost::Ready { pid } => {
                w.u8(0);
                w.u32(*pid);
            }
            ToHost::Failed(message) => {
                w.u8(1);
                w.str(message);
            }
            ToHost::ToolCall { name, args, kwargs } => {
                w.u8(2);
                w.str(name);
                write_values(&mut w, args);
                write_named(&mut w, kwargs);
            }
            ToHost::Done(outcome) => {
                w.u8(3);
                match outcome {
                    Outcome::Value(value) => {
                        w.u8(0);
                        value.write(&mut w);
                    }
                    Outcome::Finish(kind, fields) => {
                        w.u8(1);
                        w.bool(*kind == FinishKind::Submit);
                        fields.write(&mut w);
                    }
                    Outcome::Syntax { message, lineno, offset, text } => {
                        w.u8(2);
                        w.str(message);
                        w.opt_u64(*lineno);
                        w.opt_u64(*offset);
                        w.opt_str(text.as_deref());
                    }
                    Outcome::Error { type_name, message, traceback, output, stop } => {
                        w.u8(3);
                        w.str(type_name);
                        w.str(message);
                        w.str(traceback);
                        w.str(output);
                        write_stop(&mut w, *stop);
                    }
                    Outcome::BadInput(message) => {
                        w.u8(4);
                        w.str(message);
                    }
                }
            }
            ToHost::Checkpoint => w.u8(4),
            ToHost::Forked => w.u8(5),
            ToHost::Fault { signal, out_of_memory } => {
                w.u8(6);
                w.u32(*signal as u32);
                w.bool(*out_of_memory);
            }
            ToHost::Abandoned(reason) => {
                w.u8(7);
                w.u8(*reason as u8);
            }
            ToHost::ToolStart { call_id, name, args, kwargs } => {
                w.u8(8);
                w.u64(*call_id);
                w.str(name);
                write_values(&mut w, args);
                write_named(&mut w, kwargs);
            }
            ToHost::Wait { timeout } => {
                w.u8(9);
                w.opt_f64(*timeout);
            }
            ToHost::FileOp(op) => {
                w.u8(10);
                op.write(&mut w);
            }
            ToHost::StreamPull { tool, stream, close } => {
                w.u8(11);
                w.str(tool);
                w.u64(*stream);
                w.bool(*close);
            }
        }
        w.finish().into_vec()
    }

    /// A reply from a session process, which is not trusted: at most `MAX_VALUES` values in all.
    pub fn decode(frame: &[u8]) -> WireResult<Self> {
        let mut r = Reader::new(frame).with_value_budget(MAX_VALUES);
        let reply = match r.u8()? {
            0 => ToHost::Ready { pid: r.u32()? },
            1 => ToHost::Failed(r.string()?),
            2 => ToHost::ToolCall { name: r.string()?, args: read_values(&mut r)?, kwargs: read_named(&mut r)? },
            3 => ToHost::Done(match r.u8()? {
                0 => Outcome::Value(Value::read(&mut r)?),
                1 => {
                    let kind = if r.bool()? { FinishKind::Submit } else { FinishKind::Final };
                    Outcome::Finish(kind, Value::read(&mut r)?)
                }
                2 => Outcome::Syntax {
                    message: r.string()?,
                    lineno: r.opt_u64()?,
                    offset: r.opt_u64()?,
                    text: r.opt_string()?,
                },
                3 => Outcome::Error {
                    type_name: r.string()?,
                    message: r.string()?,
                    traceback: r.string()?,
                    output: r.string()?,
                    stop: match r.u8()? {
                        0 => None,
                        _ => Some(read_stop(&mut r)?),
                    },
                },
                4 => Outcome::BadInput(r.string()?),
                other => return Err(WireError::BadTag(other)),
            }),
            4 => ToHost::Checkpoint,
            5 => ToHost::Forked,
            6 => ToHost::Fault { signal: r.u32()? as i32, out_of_memory: r.bool()? },
            7 => ToHost::Abandoned(read_stop(&mut r)?),
            8 => ToHost::ToolStart { call_id: r.u64()?, name: r.string()?, args: read_values(&mut r)?, kwargs: read_named(&mut r)? },
            9 => ToHost::Wait { timeout: r.opt_f64()? },
            10 => ToHost::FileOp(FileOp::read(&mut r)?),
            11 => ToHost::StreamPull { tool: r.string()?, stream: r.u64()?, close: r.bool()? },
            other => return Err(WireError::BadTag(other)),
        };
        r.finish()?;
        Ok(reply)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn requests_round_trip() {
        let requests = vec![
            ToSession::Spawn(SessionOptions { timeout_seconds: Some(1.5), abandon_after_seconds: 2.0, max_output_chars: 9, memory_limit: None, preload: vec!["json".into()], files: FilesOptions {
                mounts: vec![crate::protocol::files::MountDecl { path: "/data".into(), mode: crate::protocol::files::MountMode::Overlay, is_file: false }],
                max_bytes: 5,
                max_files: 6,
            } }),
            ToSession::Files(FilesCommand::Write { path: "/a".into(), data: Value::Bytes(b"x".to_vec()) }),
            ToSession::FileAnswer(FileAnswer::List(vec![("n".into(), crate::protocol::files::FileStat { kind: crate::protocol::files::FileKind::Dir, size: 1, mtime_ns: 2 })])),
            ToSession::Execute(Box::new(Execute {
                code: "x = 1".into(),
                variables: vec![("v".into(), Value::Int(3))],
                tools: Some(vec![
                    ToolDecl { name: "t".into(), positional_names: Some(vec!["a".into()]), source: None },
                    ToolDecl { name: "u".into(), positional_names: None, source: Some("def u(): pass".into()) },
                ]),
                fields: Some(vec![Field { name: "answer".into(), declared_type: Some("str".into()) }]),
                checkpoint: true,
            })),
            ToSession::Execute(Box::new(Execute { code: String::new(), variables: vec![], tools: Some(vec![]), fields: None, checkpoint: false })),
            ToSession::Execute(Box::new(Execute { code: String::new(), variables: vec![], tools: None, fields: None, checkpoint: false })),
            ToSession::ToolResult(ToolResult::Raise(HostError {
                type_name: "ValueError".into(),
                is_builtin: true,
                message: "m".into(),
                host_type: "ValueError".into(),
                traceback: "tb".into(),
            })),
            ToSession::ToolResult(ToolResult::Refused("no".into())),
            ToSession::ToolResult(ToolResult::Stream(9)),
            ToSession::ToolResult(ToolResult::End),
            ToSession::Woken(vec![(3, ToolResult::Return(Value::Str("r".into()))), (1, ToolResult::Refused("no".into()))]),
            ToSession::Woken(vec![]),
            ToSession::Fork,
            ToSession::Resume,
            ToSession::Shutdown,
            ToSession::InjectFault(FaultPlace::StackOverflow),
        ];
        for request in requests {
            assert_eq!(ToSession::decode(&request.encode().into_vec()).unwrap(), request);
        }
    }

    #[test]
    fn replies_round_trip() {
        let replies = vec![
            ToHost::Ready { pid: 42 },
            ToHost::ToolCall { name: "t".into(), args: vec![Value::None], kwargs: vec![("k".into(), Value::Bool(false))] },
            ToHost::Done(Outcome::Syntax { message: "bad".into(), lineno: Some(1), offset: None, text: Some("x(".into()) }),
            ToHost::Done(Outcome::Finish(FinishKind::Submit, Value::Dict(vec![]))),
            ToHost::Done(Outcome::Error { type_name: "E".into(), message: "m".into(), traceback: "t".into(), output: "o".into(), stop: None }),
            ToHost::Done(Outcome::Error { type_name: "E".into(), message: "m".into(), traceback: String::new(), output: String::new(), stop: Some(Stop::Timeout) }),
            ToHost::Checkpoint,
            ToHost::Fault { signal: 6, out_of_memory: true },
            ToHost::Abandoned(Stop::Memory),
            ToHost::ToolStart { call_id: 7, name: "t".into(), args: vec![Value::Int(1)], kwargs: vec![("k".into(), Value::None)] },
            ToHost::StreamPull { tool: "t".into(), stream: 3, close: true },
            ToHost::Wait { timeout: Some(0.25) },
            ToHost::Wait { timeout: None },
            ToHost::FileOp(FileOp::Read { mount: 1, path: vec!["x".into()], offset: 0, size: 10 }),
        ];
        for reply in replies {
            assert_eq!(ToHost::decode(&reply.encode()).unwrap(), reply);
        }
    }

    #[test]
    fn a_session_cannot_say_it_crashed() {
        // `Crash` is the host's own finding: a reply claiming it is malformed.
        assert!(matches!(ToHost::decode(&ToHost::Abandoned(Stop::Crash).encode()), Err(WireError::BadTag(3))));
        assert_eq!(ToHost::decode(&ToHost::Abandoned(Stop::Interrupt).encode()).unwrap(), ToHost::Abandoned(Stop::Interrupt));
    }

    #[test]
    fn a_reply_holds_at_most_max_values_values_however_small_they_are() {
        // Done(Value(list of n Nones)): one byte per value on the wire.
        let frame = |n: usize| {
            let mut frame = vec![3, 0, 8];
            frame.extend_from_slice(&(n as u64).to_le_bytes());
            frame.resize(frame.len() + n, 0);
            frame
        };
        assert!(ToHost::decode(&frame(MAX_VALUES - 1)).is_ok());
        assert!(matches!(ToHost::decode(&frame(MAX_VALUES)), Err(WireError::TooManyValues)));
        // A dict's claimed pairs are checked against the budget before anything is allocated for them.
        let mut dict = vec![3, 0, 10];
        dict.extend_from_slice(&(4 * MAX_VALUES as u64).to_le_bytes());
        dict.resize(dict.len() + 8 * MAX_VALUES, 0);
        assert!(matches!(ToHost::decode(&dict), Err(WireError::TooManyValues)));
    }

    #[test]
    fn every_text_of_an_outcome_is_capped() {
        let long = "é".repeat(100);
        let capped = Outcome::Error { type_name: "E".repeat(10_000), message: long.clone(), traceback: long.clone(), output: long.clone(), stop: None }.capped(30);
        let Outcome::Error { type_name, message, traceback, output, .. } = capped else { panic!() };
        assert!(type_name.chars().count() < MAX_TYPE_NAME_CHARS + 100, "{}", type_name.len());
        assert!(message.starts_with(&"é".repeat(30)) && message.contains("70 more characters were dropped"), "{message}");
        assert!(!traceback.contains('é'), "the message took the whole budget: {traceback}");
        assert!(output.ends_with(&long), "the room for the sandbox's own note keeps 100 characters over a cap of 30");
        let mut short = "abc".to_owned();
        assert_eq!(cap_text(&mut short, 3), 3);
        assert_eq!(short, "abc");
    }

    #[test]
    fn mutated_replies_decode_or_fail_but_never_panic() {
        // The host decodes whatever a session process sends: valid replies with bytes flipped, cut or
        // repeated, decoded many times over (a deterministic stream, so a failure replays).
        let seeds: Vec<Vec<u8>> = [
            ToHost::ToolCall { name: "t".into(), args: vec![Value::List(vec![Value::Int(1), Value::Str("x".into())])], kwargs: vec![("k".into(), Value::Dict(vec![(Value::None, Value::Float(1.0))]))] },
            ToHost::ToolStart { call_id: 3, name: "t".into(), args: vec![Value::Set(vec![Value::Bytes(vec![1])])], kwargs: vec![] },
            ToHost::Done(Outcome::Error { type_name: "E".into(), message: "m".into(), traceback: "t".into(), output: "o".into(), stop: Some(Stop::Memory) }),
            ToHost::Done(Outcome::Finish(FinishKind::Final, Value::Dict(vec![(Value::Str("a".into()), Value::BigInt(vec![1, 2, 3]))]))),
            ToHost::Wait { timeout: Some(1e19) },
            ToHost::FileOp(FileOp::Read { mount: 1, path: vec!["x".into()], offset: 0, size: 10 }),
        ]
        .iter()
        .map(ToHost::encode)
        .collect();
        let mut state = 0x9e37_79b9_7f4a_7c15u64;
        let mut next = move || {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            state
        };
        for round in 0..200_000 {
            let mut frame = seeds[round % seeds.len()].clone();
            for _ in 0..1 + next() % 4 {
                let at = (next() as usize) % frame.len().max(1);
                match next() % 4 {
                    0 if !frame.is_empty() => frame[at] = next() as u8,
                    1 => frame.truncate(at),
                    2 => frame.splice(at..at, (0..8).map(|_| next() as u8)).for_each(drop),
                    _ if !frame.is_empty() => frame[at] ^= 0x80,
                    _ => {}
                }
            }
            let _ = ToHost::decode(&frame);
        }
    }

    #[test]
    fn garbage_is_an_error_not_a_panic() {
        for frame in [&b""[..], b"\xff", b"\x03\x09", b"\x02\x01\x00\x00\x00\x00\x00\x00\x00\xff"] {
            assert!(ToHost::decode(frame).is_err());
        }
    }
}
