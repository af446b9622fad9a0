//! The messages: `ToSession` (host -> session process) and `ToHost` (session process -> host), named for where they
//! go: a tool call is the session's message to the host, its result the host's answer.
//!
//! One exchange per `execute()`: the host sends `Execute`, the session answers with any number of
//! `ToolCall`s (each answered by a `ToolResult` before the session goes on) and then `Done`. Between
//! runs the session sends `Checkpoint` with the socket of a frozen copy of itself; `Fork` asks for a live
//! copy. A process that takes over a session (new, resumed checkpoint, fork) first says `Ready`.

use std::time::Duration;

use serde::{Deserialize, Serialize};

use super::channel::Frame;
use super::codec;
use super::files::{FileAnswer, FileOp, FilesCommand, FilesOptions};
use super::options::SessionOptions;
use super::value::{widened_str, Value, MAX_VALUES, MAX_WIDENED};
use super::wire::{Encoded, Reader, WireError, WireResult};

/// A declared output field: name and, for the simple types dspy declares, the expected type.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Field {
    pub name: String,
    pub declared_type: Option<String>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum FinishKind {
    /// The seed protocol's `FINAL(...)` / `FINAL_VAR(...)` -> `FinalAnswerResult`.
    Final,
    /// dspy 3.4's `SUBMIT(...)` -> `FinalOutput`.
    Submit,
}

/// A tool as the session sees it: its name and the source of its stand-in (a `def` with the tool's own
/// signature and docstring, which binds a call's arguments), if any.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ToolDecl {
    pub name: String,
    pub source: Option<String>,
}

/// At most this many tools, with sources of at most `SPAWN_STAND_IN_BYTES` together, go with a `Spawn`: it is
/// one control frame, which the zygote reads whole (`worker::zygote`, 1 MiB). Tools past them are made by the
/// session, as before.
pub const SPAWN_STAND_INS: usize = 16;
pub const SPAWN_STAND_IN_BYTES: usize = 64 << 10;

/// The tools of `decls` whose stand-ins a `Spawn` asks the zygote to make: those with a source (a stand-in
/// without one is a closure, made in microseconds), within the bounds above.
pub fn spawn_stand_ins(decls: impl IntoIterator<Item = ToolDecl>) -> Vec<ToolDecl> {
    let mut bytes = 0;
    decls
        .into_iter()
        .filter(|decl| decl.source.is_some())
        .take_while(|decl| {
            bytes += decl.name.len() + decl.source.as_ref().map_or(0, String::len);
            bytes <= SPAWN_STAND_IN_BYTES
        })
        .take(SPAWN_STAND_INS)
        .collect()
}

/// Runs taking this long in all since the last checkpoint make one due even when the host did not ask: a
/// rollback replays at most about this much past the last run (the host holds a replay to it: see
/// `host::session::rollback`). A checkpoint is dear beside a run of some milliseconds: the fork copies page
/// tables, and then every heap page a run writes is copied once, even pages it only reads from, as reading an
/// object changes its reference count: a checkpoint after every run of some milliseconds would copy the heap
/// again and again.
pub const REPLAY_BUDGET: Duration = Duration::from_secs(1);

/// A host exception from a tool, as text: the session makes its own exception from it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct HostError {
    pub type_name: String,
    pub is_builtin: bool,
    pub message: String,
    pub host_type: String,
    pub traceback: String,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub enum ToolResult {
    Return(Value),
    Raise(HostError),
    /// The host could not use the call or its result; the message becomes a TypeError in the sandbox.
    Refused(String),
    /// The tool returned an iterator: its items stay on the host, pulled one by one (`ToHost::StreamPull`)
    /// through the stream of this id.
    Stream(u64),
    /// The answer to a `StreamPull` whose stream has no more items.
    End,
}

#[derive(Debug, PartialEq, Serialize, Deserialize)]
pub struct Execute {
    pub code: String,
    pub variables: Vec<(String, Value)>,
    /// A new tool table, or None to keep the current one.
    pub tools: Option<Vec<ToolDecl>>,
    pub fields: Option<Vec<Field>>,
    /// Fork a checkpoint after this run, however short it is (see `host::journal`).
    pub checkpoint: bool,
}

/// The host's messages, tagged on the wire by their order here (a new one goes last).
#[derive(Debug, PartialEq, Serialize, Deserialize)]
pub enum ToSession {
    /// To the zygote: start a session with these options on the socket passed with the message. The tools are
    /// those the session's first run will declare (`spawn_stand_ins` picks them): the zygote makes their
    /// stand-ins before it forks, once per zygote, so RLM's fresh interpreter per call, always with the same
    /// tools, compiles none of them (`sandbox::bridge::tools::prepare_stand_ins`).
    Spawn {
        options: SessionOptions,
        files: FilesOptions,
        stand_ins: Vec<ToolDecl>,
    },
    Execute(Box<Execute>),
    /// A tool call's answer, and how long (nanoseconds) the tool's own code ran on the host: the part of the
    /// session's wait that its time limit does not count. The host's work on the call (binding and converting
    /// the arguments, converting the result) is the session's: sandbox code chooses what it costs.
    ToolResult(ToolResult, u64),
    /// Make a live, independent copy of the session; it answers `Ready` on the socket sent back with `Forked`.
    Fork,
    /// To a checkpoint: become the live session.
    Resume,
    /// End the session: the process exits.
    Shutdown,
    /// For tests: make the next run fail in this way (see `FaultPlace`), to prove that the session survives.
    #[cfg(feature = "fault-injection")]
    InjectFault(FaultPlace),
    /// The answer to `ToHost::Wait`: the host calls (started with `ToHost::ToolStart`) that finished since the
    /// last answer, by call id; none when the wait timed out.
    Woken(Vec<(u64, ToolResult)>),
    /// The host API on the session's files, between runs; answered by `Done` like a run.
    Files(FilesCommand),
    /// The answer to `ToHost::FileOp`.
    FileAnswer(FileAnswer),
}

/// Where a test asks the session process to fail during its next run.
#[cfg(feature = "fault-injection")]
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
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
#[pyo3::pyclass(eq, eq_int, frozen, from_py_object, name = "StopReason", module = "dspy_rust_interpreter._native")]
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum Stop {
    Timeout = 0,
    Memory = 1,
    Interrupt = 2,
    /// The session process crashed.
    Crash = 3,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub enum Outcome {
    /// What `execute()` returns when no finish call was accepted: printed text or a value.
    Value(Value),
    Finish(FinishKind, Value),
    /// `kind`: the exception's class, `SyntaxError` or one of its own (`IndentationError`, `TabError`), which the
    /// host raises (and only those).
    Syntax {
        kind: String,
        message: String,
        lineno: Option<u64>,
        offset: Option<u64>,
        text: Option<String>,
    },
    /// An exception ended the run; `stop` when it was a limit's.
    Error {
        type_name: String,
        message: String,
        traceback: String,
        output: String,
        stop: Option<Stop>,
    },
    /// The host's input could not be used (e.g. a variable of an unsupported type); nothing was changed.
    BadInput(String),
}

/// An error's type name longer than this is cut (CPython's are a few dozen characters).
const MAX_TYPE_NAME_CHARS: usize = 256;
/// Room past `max_output_chars` for what the sandbox adds to the printed output it keeps: a truncation note in each
/// stream it cut (stdout's and stderr's, each under 200 characters with the largest counts) and stderr's heading
/// (`sandbox::bridge::output`, whose tests hold it to this).
pub const OUTPUT_NOTE_CHARS: usize = 512;

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
                // The sandbox caps printed output itself and says how much it dropped: its notes are kept.
                cap_text(&mut output, max_chars.saturating_add(OUTPUT_NOTE_CHARS));
                Outcome::Error { type_name, message, traceback, output, stop }
            }
            Outcome::Syntax { mut kind, mut message, lineno, offset, mut text } => {
                cap_text(&mut kind, MAX_TYPE_NAME_CHARS);
                cap_text(&mut message, max_chars);
                if let Some(text) = &mut text {
                    cap_text(text, max_chars);
                }
                Outcome::Syntax { kind, message, lineno, offset, text }
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

/// The session process's messages, tagged on the wire by their order here (a new one goes last).
#[derive(Debug, PartialEq, Serialize, Deserialize)]
pub enum ToHost {
    /// The process serving the session from now on (its pidfd travels with the message).
    Ready {
        pid: u32,
    },
    /// The session could not be built (e.g. a preload module the sandbox does not offer).
    Failed(String),
    ToolCall {
        name: String,
        args: Vec<Value>,
        kwargs: Vec<(String, Value)>,
    },
    Done(Outcome),
    /// A frozen copy of the session as of the last completed run (its socket travels with the message).
    Checkpoint,
    /// The live copy asked for by `Fork` (its socket travels with the message).
    Forked,
    /// The process is dying of this signal; `out_of_memory` when an allocation failed first.
    Fault {
        signal: i32,
        out_of_memory: bool,
    },
    /// The process is ending itself: the run was asked to stop and did not within the grace period.
    Abandoned(Stop),
    /// Start a host call that runs while the session goes on (a tool called in async code); its result comes
    /// in a `ToSession::Woken`.
    ToolStart {
        call_id: u64,
        name: String,
        args: Vec<Value>,
        kwargs: Vec<(String, Value)>,
    },
    /// The session's event loop has nothing to run: answer with the host calls that finish within `timeout`
    /// seconds (at least one, when `None`).
    Wait {
        timeout: Option<f64>,
    },
    /// An operation on a mount's host folder, which the host does and answers with `ToSession::FileAnswer`.
    FileOp(FileOp),
    /// The next item of a tool's stream (`ToolResult::Stream`), or (`close`) the end of it: answered with a
    /// `ToSession::ToolResult` (the item, `End`, or the tool's exception; `Return(None)` for a close).
    StreamPull {
        tool: String,
        stream: u64,
        close: bool,
    },
}

impl ToSession {
    pub fn encode(&self) -> Encoded {
        codec::encode(self)
    }

    pub fn decode(frame: &[u8]) -> WireResult<Self> {
        codec::decode(Reader::new(frame))
    }

    /// A received request; its large values keep the frame's pages when it is mapped (see `Reader::of_frame`).
    pub fn decode_frame(frame: &Frame) -> WireResult<Self> {
        codec::decode(Reader::of_frame(frame))
    }
}

impl ToHost {
    pub fn encode(&self) -> Vec<u8> {
        codec::encode(self).into_vec()
    }

    /// A reply from a session process, which is not trusted: at most `MAX_VALUES` values in all, and nothing
    /// only the host may say (`Stop::Crash`) or cannot do (a file write past `MAX_TRANSFER`, a call whose
    /// arguments would take the host far more than their UTF-8).
    pub fn decode(frame: &[u8]) -> WireResult<Self> {
        let reply: Self = codec::decode(Reader::new(frame).with_value_budget(MAX_VALUES))?;
        let crash = Err(WireError::Malformed("a session process cannot report a crash".into()));
        match &reply {
            ToHost::Abandoned(Stop::Crash) | ToHost::Done(Outcome::Error { stop: Some(Stop::Crash), .. }) => {
                return crash
            }
            ToHost::FileOp(op) => op.check().map_err(WireError::Malformed)?,
            ToHost::ToolCall { args, kwargs, .. } => check_widening(args, kwargs)?,
            _ => {}
        }
        Ok(reply)
    }
}

/// A call's arguments are built on the host together, each by a conversion of its own that refuses a value
/// whose strs would take the host `MAX_WIDENED` beyond their UTF-8 (`host::convert`): together, keyword names
/// included, they may not either. Each value counts up to that bound only, as its conversion stops there: one
/// argument past it is refused by the call, as any value the host cannot build.
fn check_widening(args: &[Value], kwargs: &[(String, Value)]) -> WireResult<()> {
    let values = args.iter().chain(kwargs.iter().map(|(_, value)| value));
    let widened = values.map(|value| value.widened().min(MAX_WIDENED)).sum::<usize>()
        + kwargs.iter().map(|(key, _)| widened_str(key)).sum::<usize>();
    if widened > MAX_WIDENED {
        return Err(WireError::Malformed(format!(
            "a tool call's arguments would take the host more than {} MiB beyond their UTF-8 as Python strs (1, 2 or \
             4 bytes a character, by the widest): send less of such text, or send it as bytes",
            MAX_WIDENED >> 20
        )));
    }
    Ok(())
}

/// The name of the variant `message` is, as declared (for the words of a protocol error): read through serde,
/// which every message derives, so no list of names repeats the enum. Nothing is serialized: the first call
/// names the variant and stops.
pub fn variant_name<T: Serialize>(message: &T) -> &'static str {
    match message.serialize(VariantName) {
        Err(Named(name)) => name,
        Ok(never) => match never {},
    }
}

struct VariantName;

#[derive(Debug)]
struct Named(&'static str);

impl std::fmt::Display for Named {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.0)
    }
}

impl std::error::Error for Named {}

impl serde::ser::Error for Named {
    fn custom<M: std::fmt::Display>(_: M) -> Self {
        Named("")
    }
}

/// Every method ends at once: the variant methods with the variant's name, the rest with none.
macro_rules! not_a_variant {
    ($($method:ident($($arg:ty),*) -> $out:ty;)*) => {
        $(fn $method(self, $(_: $arg),*) -> Result<$out, Named> { Err(Named("")) })*
    };
}

impl serde::Serializer for VariantName {
    type Ok = std::convert::Infallible;
    type Error = Named;
    type SerializeSeq = serde::ser::Impossible<Self::Ok, Named>;
    type SerializeTuple = serde::ser::Impossible<Self::Ok, Named>;
    type SerializeTupleStruct = serde::ser::Impossible<Self::Ok, Named>;
    type SerializeTupleVariant = serde::ser::Impossible<Self::Ok, Named>;
    type SerializeMap = serde::ser::Impossible<Self::Ok, Named>;
    type SerializeStruct = serde::ser::Impossible<Self::Ok, Named>;
    type SerializeStructVariant = serde::ser::Impossible<Self::Ok, Named>;

    fn serialize_unit_variant(self, _: &'static str, _: u32, variant: &'static str) -> Result<Self::Ok, Named> {
        Err(Named(variant))
    }
    fn serialize_newtype_variant<V: Serialize + ?Sized>(
        self,
        _: &'static str,
        _: u32,
        variant: &'static str,
        _: &V,
    ) -> Result<Self::Ok, Named> {
        Err(Named(variant))
    }
    fn serialize_tuple_variant(
        self,
        _: &'static str,
        _: u32,
        variant: &'static str,
        _: usize,
    ) -> Result<Self::SerializeTupleVariant, Named> {
        Err(Named(variant))
    }
    fn serialize_struct_variant(
        self,
        _: &'static str,
        _: u32,
        variant: &'static str,
        _: usize,
    ) -> Result<Self::SerializeStructVariant, Named> {
        Err(Named(variant))
    }
    fn serialize_newtype_struct<V: Serialize + ?Sized>(self, _: &'static str, _: &V) -> Result<Self::Ok, Named> {
        Err(Named(""))
    }
    fn serialize_some<V: Serialize + ?Sized>(self, _: &V) -> Result<Self::Ok, Named> {
        Err(Named(""))
    }
    not_a_variant! {
        serialize_bool(bool) -> Self::Ok;
        serialize_i8(i8) -> Self::Ok;
        serialize_i16(i16) -> Self::Ok;
        serialize_i32(i32) -> Self::Ok;
        serialize_i64(i64) -> Self::Ok;
        serialize_u8(u8) -> Self::Ok;
        serialize_u16(u16) -> Self::Ok;
        serialize_u32(u32) -> Self::Ok;
        serialize_u64(u64) -> Self::Ok;
        serialize_f32(f32) -> Self::Ok;
        serialize_f64(f64) -> Self::Ok;
        serialize_char(char) -> Self::Ok;
        serialize_str(&str) -> Self::Ok;
        serialize_bytes(&[u8]) -> Self::Ok;
        serialize_none() -> Self::Ok;
        serialize_unit() -> Self::Ok;
        serialize_unit_struct(&'static str) -> Self::Ok;
        serialize_seq(Option<usize>) -> Self::SerializeSeq;
        serialize_tuple(usize) -> Self::SerializeTuple;
        serialize_tuple_struct(&'static str, usize) -> Self::SerializeTupleStruct;
        serialize_map(Option<usize>) -> Self::SerializeMap;
        serialize_struct(&'static str, usize) -> Self::SerializeStruct;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn requests_round_trip() {
        let requests = vec![
            ToSession::Spawn {
                options: SessionOptions {
                    timeout: Some(1.5),
                    abandon_after: 2.0,
                    max_output_chars: 9,
                    memory_limit: None,
                    preload: vec!["json".into()],
                },
                files: FilesOptions {
                    mounts: vec![crate::protocol::files::MountDecl {
                        path: "/data".into(),
                        mode: crate::protocol::files::MountMode::Overlay,
                        is_file: false,
                    }],
                    files_max_bytes: 5,
                    files_max_count: 6,
                },
                stand_ins: vec![ToolDecl { name: "t".into(), source: Some("def t(): pass".into()) }],
            },
            ToSession::Files(FilesCommand::Write { path: "/a".into(), data: Value::Bytes(b"x".to_vec()) }),
            ToSession::FileAnswer(FileAnswer::List(vec![(
                "n".into(),
                crate::protocol::files::FileStat { kind: crate::protocol::files::FileKind::Dir, size: 1, mtime_ns: 2 },
            )])),
            ToSession::Execute(Box::new(Execute {
                code: "x = 1".into(),
                variables: vec![("v".into(), Value::Int(3))],
                tools: Some(vec![
                    ToolDecl { name: "t".into(), source: None },
                    ToolDecl { name: "u".into(), source: Some("def u(): pass".into()) },
                ]),
                fields: Some(vec![Field { name: "answer".into(), declared_type: Some("str".into()) }]),
                checkpoint: true,
            })),
            ToSession::Execute(Box::new(Execute {
                code: String::new(),
                variables: vec![],
                tools: Some(vec![]),
                fields: None,
                checkpoint: false,
            })),
            ToSession::Execute(Box::new(Execute {
                code: String::new(),
                variables: vec![],
                tools: None,
                fields: None,
                checkpoint: false,
            })),
            ToSession::ToolResult(
                ToolResult::Raise(HostError {
                    type_name: "ValueError".into(),
                    is_builtin: true,
                    message: "m".into(),
                    host_type: "ValueError".into(),
                    traceback: "tb".into(),
                }),
                0,
            ),
            ToSession::ToolResult(ToolResult::Refused("no".into()), 7),
            ToSession::ToolResult(ToolResult::Stream(9), u64::MAX),
            ToSession::ToolResult(ToolResult::End, 1),
            ToSession::Woken(vec![
                (3, ToolResult::Return(Value::Str("r".into()))),
                (1, ToolResult::Refused("no".into())),
            ]),
            ToSession::Woken(vec![]),
            ToSession::Fork,
            ToSession::Resume,
            ToSession::Shutdown,
        ];
        #[cfg(feature = "fault-injection")]
        let requests = requests.into_iter().chain([ToSession::InjectFault(FaultPlace::StackOverflow)]);
        for request in requests {
            assert_eq!(ToSession::decode(&request.encode().into_vec()).unwrap(), request);
        }
    }

    #[test]
    fn a_message_is_named_by_its_variant() {
        assert_eq!(variant_name(&ToHost::Checkpoint), "Checkpoint");
        assert_eq!(variant_name(&ToHost::Failed("x".into())), "Failed");
        assert_eq!(variant_name(&ToHost::Fault { signal: 9, out_of_memory: false }), "Fault");
        assert_eq!(variant_name(&ToSession::Shutdown), "Shutdown");
    }

    #[test]
    fn replies_round_trip() {
        let replies = vec![
            ToHost::Ready { pid: 42 },
            ToHost::ToolCall {
                name: "t".into(),
                args: vec![Value::None],
                kwargs: vec![("k".into(), Value::Bool(false))],
            },
            ToHost::Done(Outcome::Syntax {
                kind: "IndentationError".into(),
                message: "bad".into(),
                lineno: Some(1),
                offset: None,
                text: Some("x(".into()),
            }),
            ToHost::Done(Outcome::Finish(FinishKind::Submit, Value::Dict(vec![]))),
            ToHost::Done(Outcome::Error {
                type_name: "E".into(),
                message: "m".into(),
                traceback: "t".into(),
                output: "o".into(),
                stop: None,
            }),
            ToHost::Done(Outcome::Error {
                type_name: "E".into(),
                message: "m".into(),
                traceback: String::new(),
                output: String::new(),
                stop: Some(Stop::Timeout),
            }),
            ToHost::Checkpoint,
            ToHost::Fault { signal: 6, out_of_memory: true },
            ToHost::Abandoned(Stop::Memory),
            ToHost::ToolStart {
                call_id: 7,
                name: "t".into(),
                args: vec![Value::Int(1)],
                kwargs: vec![("k".into(), Value::None)],
            },
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
        assert!(matches!(ToHost::decode(&ToHost::Abandoned(Stop::Crash).encode()), Err(WireError::Malformed(_))));
        let crashed = Outcome::Error {
            type_name: "E".into(),
            message: String::new(),
            traceback: String::new(),
            output: String::new(),
            stop: Some(Stop::Crash),
        };
        assert!(matches!(ToHost::decode(&ToHost::Done(crashed).encode()), Err(WireError::Malformed(_))));
        assert_eq!(
            ToHost::decode(&ToHost::Abandoned(Stop::Interrupt).encode()).unwrap(),
            ToHost::Abandoned(Stop::Interrupt)
        );
    }

    #[test]
    fn a_session_cannot_send_more_file_data_than_one_message_carries() {
        let write = |n: usize| {
            ToHost::FileOp(FileOp::Write {
                mount: 0,
                path: vec!["f".into()],
                offset: 0,
                data: vec![1; n],
                create: true,
            })
        };
        assert!(ToHost::decode(&write(crate::protocol::files::MAX_TRANSFER).encode()).is_ok());
        assert!(matches!(
            ToHost::decode(&write(crate::protocol::files::MAX_TRANSFER + 1).encode()),
            Err(WireError::Malformed(_))
        ));
    }

    #[test]
    fn a_spawn_carries_a_bounded_set_of_stand_ins() {
        let decl = |name: String, source: Option<usize>| ToolDecl { name, source: source.map(|n| "x".repeat(n)) };
        // Only tools with a source (a closure is made in microseconds), at most SPAWN_STAND_INS of them.
        let picked = spawn_stand_ins(vec![decl("a".into(), None), decl("b".into(), Some(10))]);
        assert_eq!(picked.iter().map(|d| d.name.as_str()).collect::<Vec<_>>(), ["b"]);
        assert_eq!(spawn_stand_ins((0..100).map(|i| decl(i.to_string(), Some(100)))).len(), SPAWN_STAND_INS);
        // Sources within SPAWN_STAND_IN_BYTES together: the first that would pass it ends the list.
        let picked = spawn_stand_ins(vec![
            decl("a".into(), Some(SPAWN_STAND_IN_BYTES / 2)),
            decl("b".into(), Some(SPAWN_STAND_IN_BYTES)),
            decl("c".into(), Some(1)),
        ]);
        assert_eq!(picked.iter().map(|d| d.name.as_str()).collect::<Vec<_>>(), ["a"]);
        // So a Spawn frame stays far below what the zygote reads (1 MiB).
        let frame = ToSession::Spawn {
            options: SessionOptions::default(),
            files: FilesOptions { mounts: vec![], files_max_bytes: 1, files_max_count: 1 },
            stand_ins: spawn_stand_ins((0..100).map(|i| decl(i.to_string(), Some(1 << 20)))),
        }
        .encode();
        assert!(frame.len() < 1 << 17, "{}", frame.len());
    }

    /// The wire form is the one `wire.rs` documents, byte for byte (the hostile-session tests write frames by
    /// hand): a tag byte per variant, fields in order, `u64` lengths, an option as a `0`/`1` byte.
    #[test]
    fn the_derived_encoding_is_the_documented_layout() {
        let call = ToHost::ToolStart {
            call_id: 1,
            name: "ab".into(),
            args: vec![Value::Int(-1)],
            kwargs: vec![("k".into(), Value::None)],
        };
        let mut expected = vec![8];
        expected.extend_from_slice(&1u64.to_le_bytes());
        expected.extend_from_slice(&2u64.to_le_bytes());
        expected.extend_from_slice(b"ab");
        expected.extend_from_slice(&1u64.to_le_bytes());
        expected.push(3);
        expected.extend_from_slice(&(-1i64).to_le_bytes());
        expected.extend_from_slice(&1u64.to_le_bytes());
        expected.extend_from_slice(&1u64.to_le_bytes());
        expected.extend_from_slice(b"k");
        expected.push(0);
        assert_eq!(call.encode(), expected);
        let mut wait = vec![9, 1];
        wait.extend_from_slice(&0.5f64.to_le_bytes());
        assert_eq!(ToHost::Wait { timeout: Some(0.5) }.encode(), wait);
        assert_eq!(ToHost::Wait { timeout: None }.encode(), vec![9, 0]);
    }

    #[test]
    fn a_calls_arguments_may_take_the_host_a_bounded_amount_beyond_their_utf8() {
        // 3 bytes more per emoji-widened character: one emoji in a megabyte of ASCII is 3 MiB more on the host.
        let wide = Value::Str("x".repeat(1 << 20) + "😀");
        let call = |n: usize, key: &str| ToHost::ToolCall {
            name: "t".into(),
            args: vec![wide.clone(); n],
            kwargs: vec![(key.into(), Value::None)],
        };
        assert!(ToHost::decode(&call(20, "k").encode()).is_ok());
        assert!(matches!(ToHost::decode(&call(30, "k").encode()), Err(WireError::Malformed(_))));
        // A keyword name is built too.
        let name = "k".repeat(30 << 20) + "😀";
        assert!(matches!(ToHost::decode(&call(0, name.as_str()).encode()), Err(WireError::Malformed(_))));
        // One argument past the bound alone is left to its conversion, which refuses it for the call.
        let huge = Value::Str("x".repeat(30 << 20) + "😀");
        let one = ToHost::ToolCall { name: "t".into(), args: vec![huge], kwargs: vec![] };
        assert!(ToHost::decode(&one.encode()).is_ok());
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
        let capped = Outcome::Error {
            type_name: "E".repeat(10_000),
            message: long.clone(),
            traceback: long.clone(),
            output: long.clone(),
            stop: None,
        }
        .capped(30);
        let Outcome::Error { type_name, message, traceback, output, .. } = capped else { panic!() };
        assert!(type_name.chars().count() < MAX_TYPE_NAME_CHARS + 100, "{}", type_name.len());
        assert!(
            message.starts_with(&"é".repeat(30)) && message.contains("70 more characters were dropped"),
            "{message}"
        );
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
            ToHost::ToolCall {
                name: "t".into(),
                args: vec![Value::List(vec![Value::Int(1), Value::Str("x".into())])],
                kwargs: vec![("k".into(), Value::Dict(vec![(Value::None, Value::Float(1.0))]))],
            },
            ToHost::ToolStart {
                call_id: 3,
                name: "t".into(),
                args: vec![Value::Set(vec![Value::Bytes(vec![1])])],
                kwargs: vec![],
            },
            ToHost::Done(Outcome::Error {
                type_name: "E".into(),
                message: "m".into(),
                traceback: "t".into(),
                output: "o".into(),
                stop: Some(Stop::Memory),
            }),
            ToHost::Done(Outcome::Finish(
                FinishKind::Final,
                Value::Dict(vec![(Value::Str("a".into()), Value::BigInt(vec![1, 2, 3]))]),
            )),
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
