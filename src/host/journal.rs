//! The runs completed since the session's latest checkpoint, kept so that a rollback can bring the session
//! back to exactly where it was before the failed cell.
//!
//! Forking a checkpoint after every run would cost every `execute()` a fork and the copy-on-write faults
//! that follow it (every page the next runs write is copied once, a cost spread over the next few runs);
//! instead the session process forks one when the host asks (every 64 runs, or when
//! the journal holds much data) or when the runs since its last checkpoint took a second in all (see
//! `worker::session`). The runs in between are journaled: each
//! request as sent, the host's answers to its tool calls and waits, and a digest of its outcome. A rollback resumes
//! the checkpoint and replays the journal (tool calls are answered from it, host tools are not called
//! again), checking that each replayed run ends exactly as it did. Code is deterministic between forks but
//! for the clock and the system's randomness; a replay that ends differently is reported as such.

use std::hash::{Hash, Hasher};

use crate::protocol::wire::Encoded;

/// Ask for a checkpoint once this many runs are journaled...
pub const MAX_RUNS: usize = 64;
/// ...or once the journal holds this many bytes.
pub const MAX_BYTES: usize = 4 << 20;
/// The answers of one run kept for a replay, at most: past this the run is journaled as one that cannot be
/// replayed (a cell calling a tool that returns a fresh megabyte 1,200 times would hold the host 1.2 GB larger
/// until it ends). A rollback then brings the session back to before that run, and says so.
pub const MAX_RUN_BYTES: usize = 64 << 20;

/// A frame the host answered the session with during a run: a sync tool call's `ToolResult`, the `Woken`
/// that ended one of its event loop's waits for host calls, or a mount operation's `FileAnswer`.
#[derive(Clone)]
pub enum Answer {
    Tool(Encoded),
    Woken(Encoded),
    /// The answer to an operation that changed a mount's host folder (not done again on replay; reads are).
    File(Encoded),
}

impl Answer {
    pub fn frame(&self) -> &Encoded {
        match self {
            Answer::Tool(frame) | Answer::Woken(frame) | Answer::File(frame) => frame,
        }
    }
}

pub struct Entry {
    pub request: Encoded,
    /// Each answer the host gave during the run, in order.
    pub answers: Vec<Answer>,
    pub outcome: u64,
}

#[derive(Default)]
pub struct Journal {
    entries: Vec<Entry>,
    bytes: usize,
    /// Runs since the first that could not be journaled (none of them can be replayed: each builds on it).
    unreplayable: usize,
}

/// A digest of an outcome frame: replays compare digests, not frames (an outcome may be large).
pub fn digest(frame: &[u8]) -> u64 {
    let mut hasher = std::collections::hash_map::DefaultHasher::new();
    frame.hash(&mut hasher);
    hasher.finish()
}

impl Journal {
    /// Whether the run about to be sent should be followed by a checkpoint.
    pub fn wants_checkpoint(&self) -> bool {
        self.entries.len() + 1 >= MAX_RUNS || self.bytes >= MAX_BYTES || self.unreplayable > 0
    }

    pub fn record(&mut self, entry: Entry) {
        if self.unreplayable > 0 {
            self.unreplayable += 1;
            return;
        }
        self.bytes += entry.request.len() + entry.answers.iter().map(|answer| answer.frame().len()).sum::<usize>();
        self.entries.push(entry);
    }

    /// A run whose answers were too large to keep (`MAX_RUN_BYTES`): a rollback stops before it.
    pub fn record_unreplayable(&mut self) {
        self.unreplayable += 1;
    }

    /// A checkpoint as of the last recorded run arrived: nothing before it needs replaying.
    pub fn clear(&mut self) {
        self.entries.clear();
        self.bytes = 0;
        self.unreplayable = 0;
    }

    /// The runs a rollback can replay, and how many runs after them it cannot.
    pub fn take(&mut self) -> (Vec<Entry>, usize) {
        self.bytes = 0;
        (std::mem::take(&mut self.entries), std::mem::take(&mut self.unreplayable))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn frame(bytes: usize) -> Encoded {
        let mut w = crate::protocol::wire::Writer::default();
        w.buf = vec![0; bytes];
        w.finish()
    }

    fn entry(bytes: usize) -> Entry {
        Entry { request: frame(bytes), answers: vec![Answer::Tool(frame(bytes))], outcome: digest(b"done") }
    }

    #[test]
    fn a_checkpoint_is_wanted_after_a_few_runs_or_much_data() {
        let mut journal = Journal::default();
        for _ in 0..MAX_RUNS - 2 {
            journal.record(entry(10));
        }
        assert!(!journal.wants_checkpoint());
        journal.record(entry(10));
        assert!(journal.wants_checkpoint(), "the run about to be sent would make MAX_RUNS");
        journal.clear();
        assert!(!journal.wants_checkpoint());
        journal.record(entry(MAX_BYTES / 2));
        assert!(journal.wants_checkpoint(), "request and tool results count");
        assert_eq!(journal.take().0.len(), 1);
        assert!(!journal.wants_checkpoint());
    }

    #[test]
    fn runs_after_one_that_could_not_be_kept_are_not_kept_either() {
        let mut journal = Journal::default();
        journal.record(entry(10));
        journal.record_unreplayable();
        assert!(journal.wants_checkpoint(), "a checkpoint ends the stretch a rollback cannot replay");
        journal.record(entry(10));
        let (entries, unreplayable) = journal.take();
        assert_eq!((entries.len(), unreplayable), (1, 2));
        journal.record_unreplayable();
        journal.clear();
        journal.record(entry(10));
        assert_eq!(journal.take().1, 0);
    }

    #[test]
    fn digests_tell_outcomes_apart() {
        assert_eq!(digest(b"abc"), digest(b"abc"));
        assert_ne!(digest(b"abc"), digest(b"abd"));
    }
}
