//! The sandbox's one way out of its process: what it asks of the host. A tool call (waited for, or started
//! while async code goes on and collected later) and an operation on a mounted host folder. The worker
//! implements `Host` over the session socket and hands it in when the session process starts
//! (`worker::session`); the runtime never sees the transport, and a test can hand in a host of its own.

use std::cell::Cell;
use std::time::Duration;

use crate::protocol::files::{FileAnswer, FileOp};
use crate::protocol::message::ToolResult;
use crate::protocol::value::Value;

pub trait Host {
    /// A tool call: ask the host and wait for its answer, with how long the tool's own code ran (the rest of
    /// the wait counts against the run's time limit).
    fn call_tool(&self, name: &str, args: Vec<Value>, kwargs: Vec<(String, Value)>) -> (ToolResult, Duration);
    /// Start a tool call that runs while sandbox code goes on; its result comes from `wait_tools`. Returns
    /// the call's id.
    fn start_tool(&self, name: &str, args: Vec<Value>, kwargs: Vec<(String, Value)>) -> u64;
    /// The started calls that finish within `timeout` seconds (at least one when `None`), by id.
    fn wait_tools(&self, timeout: Option<f64>) -> Vec<(u64, ToolResult)>;
    /// The next item of tool `tool`'s stream `stream` (`ToolResult::Stream`), or `End`; with `close`, the
    /// stream is ended on the host instead. With how long the tool's own code ran, as `call_tool`.
    fn pull_stream(&self, tool: &str, stream: u64, close: bool) -> (ToolResult, Duration);
    /// An operation on a mount's host folder.
    fn file_op(&self, op: FileOp) -> FileAnswer;
}

/// A host for a VM with none (tests that build a sandbox without a session process): every call is refused.
struct NoHost;

impl Host for NoHost {
    fn call_tool(&self, name: &str, _: Vec<Value>, _: Vec<(String, Value)>) -> (ToolResult, Duration) {
        (ToolResult::Refused(format!("tool '{name}': this sandbox has no host")), Duration::ZERO)
    }
    fn start_tool(&self, _: &str, _: Vec<Value>, _: Vec<(String, Value)>) -> u64 {
        0
    }
    fn wait_tools(&self, _: Option<f64>) -> Vec<(u64, ToolResult)> {
        Vec::new()
    }
    fn pull_stream(&self, tool: &str, _: u64, _: bool) -> (ToolResult, Duration) {
        self.call_tool(tool, Vec::new(), Vec::new())
    }
    fn file_op(&self, _: FileOp) -> FileAnswer {
        FileAnswer::Failed { errno: libc::ENOSYS, detail: "this sandbox has no host".into() }
    }
}

thread_local! {
    static HOST: Cell<&'static dyn Host> = const { Cell::new(&NoHost) };
}

/// Serve this thread's sandbox with `host` from now on.
pub fn install(host: &'static dyn Host) {
    HOST.with(|current| current.set(host));
}

/// The host this thread's sandbox talks to.
pub fn host() -> &'static dyn Host {
    HOST.with(Cell::get)
}
