//! Bringing a session back after its process died: the checkpoint (or, before the first one, a new process
//! from the zygote, or from a new zygote when that one is gone too) takes over, and the runs journaled since
//! are replayed into it, their tool calls answered from the journal. The session is then exactly as it was
//! before the failed cell. A replay that cannot finish (a replayed cell that reads the clock takes another
//! path and dies, a mounted file changed) or a run too large to journal costs those cells, not the session:
//! it goes back to the last run that replayed cleanly (the latest checkpoint, with the runs replayed since
//! then replayed again), or, when not even that can be had, starts afresh; the caller is told which cells
//! were lost. Only a session for which no process can be had at all is lost.

use std::os::fd::{AsRawFd, BorrowedFd, OwnedFd, RawFd};
use std::sync::atomic::Ordering;
use std::time::{Duration, Instant};

use pyo3::prelude::*;

use super::{Session, State};
use crate::host::journal::{self, Answer, Entry};
use crate::host::lineage::Lineage;
use crate::host::outcome::Replay;
use crate::host::process::{self, Failure, Process};
use crate::protocol::files::FileAnswer;
use crate::protocol::message::{ToHost, ToSession, ToolResult, REPLAY_BUDGET};

/// A replay that could not finish: why, and how many runs were replayed when the latest checkpoint came.
struct ReplayFailed {
    why: String,
    at_checkpoint: usize,
}

/// Why a replayed cell that completed the first time did not, in the caller's words.
const ANOTHER_PATH: &str = "code that reads the clock or the system's randomness can take another path";

fn failed(reason: String, at_checkpoint: usize) -> ReplayFailed {
    ReplayFailed { why: format!("replaying them failed ({reason})"), at_checkpoint }
}

impl Session {
    /// Replace the dead process with the checkpoint and replay the journal: the session is then as it was
    /// before the failed run, or, when the replay fails, as of the last run that replayed cleanly (the runs
    /// after it reported lost), or afresh. An error only when no process can be had.
    pub(super) fn roll_back(&self, py: Python<'_>, state: &mut State) -> Result<Replay, String> {
        let (mut entries, unreplayable) = state.journal.take();
        let runs = entries.len();
        // The whole replay within one run's limits and twice what the session's runs between checkpoints may
        // take: runs that were quick can be slow the second time (a cell that spins once the clock passes a
        // moment), and 60 of them, each held to a run's limits alone, would make one rollback take a minute
        // at timeout=1. Once one fails, the runs that replayed cleanly since the latest checkpoint (a second of
        // runs at most, as it is forked per second of them) get the replay budget once more.
        let mut all_by = Instant::now() + self.replay_wait() + 2 * REPLAY_BUDGET;
        let retries_by = all_by + REPLAY_BUDGET;
        // How many of the journal's runs the checkpoint the next attempt resumes holds (one forked during a
        // replay), why runs were given up, and whether a new process took none of them.
        let mut base = 0;
        let mut given_up: Option<String> = None;
        let mut lost_all = false;
        loop {
            state.process.kill();
            if !self.alive.load(Ordering::SeqCst) {
                return Err("the session was shut down".into());
            }
            let resumed =
                state.checkpoint.take().map(|checkpoint| py.detach(|| Process::resume(checkpoint, &self.options)));
            let fresh = !matches!(resumed, Some(Ok(_)));
            let process = match resumed {
                Some(Ok(process)) => process,
                resumed => {
                    if let Some(Err(failure)) = resumed {
                        let why = format!("its checkpoint could not resume ({})", failure.into_reason());
                        given_up.get_or_insert(why);
                    }
                    // The journal goes back to the session's start only while the session keeps its zygote (no
                    // checkpoint yet): otherwise a new process can take none of it, and the session starts afresh.
                    if state.respawn_from.is_none() {
                        given_up.get_or_insert_with(|| "there was no checkpoint to go back to".into());
                        lost_all = true;
                        base = 0;
                        entries.clear();
                    }
                    self.new_process(py, state).map_err(|e| match &given_up {
                        Some(why) => format!("{why}, and {e}"),
                        None => e,
                    })?
                }
            };
            self.take_over_from(state, process);
            if !entries.is_empty() && Instant::now() >= all_by {
                // No time is left to replay them: the session is what the process holds.
                given_up.get_or_insert_with(|| "replaying them took too long".into());
                entries.clear();
            }
            let attempt = entries.len();
            match self.replay(py, state, std::mem::take(&mut entries), all_by) {
                Ok(mut replay) => {
                    let kept = base + attempt;
                    let too_large = || {
                        let limit = journal::MAX_RUN_BYTES >> 20;
                        format!("the tool results of a cell were over {limit} MiB, too much to keep for a replay")
                    };
                    if let Some(why) = given_up.or_else(|| (unreplayable > 0).then(too_large)) {
                        replay.lost = Some((runs.saturating_sub(kept) + unreplayable, why));
                        // Nothing of the cells before survived: a new process that none of them was replayed into.
                        replay.afresh = lost_all || (fresh && kept == 0);
                    }
                    // A tool table sent in a run that was not replayed (the failed one) is not in the process.
                    state.resend_tools = true;
                    return Ok(replay);
                }
                Err(failed) => {
                    given_up.get_or_insert(failed.why);
                    // The journal holds the runs that replayed cleanly since the latest checkpoint (or the start):
                    // the next attempt resumes that checkpoint (or a new process) and replays them; the failed
                    // run and those after it are dropped.
                    base += failed.at_checkpoint;
                    entries = state.journal.take().0;
                    all_by = retries_by;
                }
            }
        }
    }

    /// How long one replayed run may take: a run's limits, and its grace twice.
    fn replay_wait(&self) -> Duration {
        self.options.abandon_after() * 2 + self.options.timeout().unwrap_or(Duration::from_secs(60))
    }

    /// A new session process from the session's zygote, or from a live one when that is gone or the session
    /// holds none (it checkpointed, or is a fork): that zygote is the session's from then on.
    fn new_process(&self, py: Python<'_>, state: &mut State) -> Result<Process, String> {
        // A rollback replays its runs, the first declaring the tools: no stand-ins are asked for here.
        let spawned = match &state.respawn_from {
            Some(zygote) => {
                let zygote = zygote.as_raw_fd();
                py.detach(|| Process::spawn(zygote, &self.options, self.files.clone(), Vec::new()))
            }
            None => Err(Failure::Zygote("the session has no zygote of its own".into())),
        };
        let spawned = match spawned {
            // The zygote died (and the session with it), or the session has none: a live zygote serves it. One
            // killed a moment ago may not have exited yet (a large one takes a while to let go of its memory), and
            // is handed out again until it has: asked again after a pause, a few times.
            Err(Failure::Zygote(reason)) => {
                let mut spawned = Err(Failure::Zygote(reason));
                for pause_ms in [0, 20, 100, 300, 1000] {
                    py.detach(|| std::thread::sleep(Duration::from_millis(pause_ms)));
                    let Some(zygote) = self.live_zygote(py) else { break };
                    spawned =
                        py.detach(|| Process::spawn(zygote.as_raw_fd(), &self.options, self.files.clone(), Vec::new()));
                    state.respawn_from = Some(zygote);
                    if !matches!(spawned, Err(Failure::Zygote(_))) {
                        break;
                    }
                }
                spawned
            }
            other => other,
        };
        let process = spawned
            .map_err(|failure| format!("a new session process could not be started ({})", failure.into_reason()))?;
        self.lineages.lock().push(Lineage::of(process.pid));
        Ok(process)
    }

    /// `process` serves the session from now on (the one before is killed with its handle).
    fn take_over_from(&self, state: &mut State, process: Process) {
        {
            // Under the lock a shutdown signals with: it either sees this process or finds it killed here.
            let mut live = self.live.lock();
            if self.alive.load(Ordering::SeqCst) {
                *live = (process.pidfd().unwrap_or(-1), process.pid);
            } else {
                process.kill();
            }
        }
        drop(std::mem::replace(&mut state.process, process));
        // The kept values of the checkpoint are not the host's latest: the next run sends values in full.
        state.kept.clear();
        state.checkpoint_pending = false;
    }

    /// A duplicate of a live zygote's control socket, from `zygote_source` (None without one, or when it
    /// fails: the rollback then reports the zygote's loss).
    fn live_zygote(&self, py: Python<'_>) -> Option<OwnedFd> {
        let fd: RawFd = self.zygote_source.as_ref()?.call0(py).ok()?.extract(py).ok()?;
        // SAFETY: the source returns the descriptor of a socket its zygote object keeps open during this call.
        unsafe { BorrowedFd::borrow_raw(fd) }.try_clone_to_owned().ok()
    }

    /// Run the journaled runs again in the resumed process, answering their tool calls from the journal, all
    /// by `all_by`. Each run replayed cleanly is journaled again; a failed one is not.
    fn replay(
        &self,
        py: Python<'_>,
        state: &mut State,
        entries: Vec<Entry>,
        all_by: Instant,
    ) -> Result<Replay, ReplayFailed> {
        let mut replay = Replay { runs: entries.len(), diverged: 0, lost: None, afresh: false };
        let wait = self.replay_wait();
        let mut at_checkpoint = 0;
        let mut replayed = 0;
        for entry in entries {
            process::send_request(&state.process.link, &entry.request)
                .map_err(|e| failed(e.to_string(), at_checkpoint))?;
            let mut answers = entry.answers.iter();
            let mut changes = 0;
            let mut given = Vec::new();
            // The whole replayed run within one run's limits, however many frames it sends.
            let deadline = (Instant::now() + wait).min(all_by);
            loop {
                let link = &state.process.link;
                let left = deadline.saturating_duration_since(Instant::now());
                if left.is_zero() || !py.detach(|| link.readable_within(left)).unwrap_or(false) {
                    return Err(failed("a replayed cell did not finish".into(), at_checkpoint));
                }
                let received = py.detach(|| state.process.receive_frame());
                // Each tool call and each wait gets the answer it got the first time; a replay that asks
                // differently gets a refusal (a tool call) or nothing (a wait), and is reported.
                let answer = match received {
                    Ok((_, ToHost::Checkpoint, mut fds)) => {
                        state.got_checkpoint(fds.pop());
                        at_checkpoint = replayed;
                        continue;
                    }
                    Ok((_, ToHost::ToolStart { .. }, _)) => continue,
                    Ok((_, ToHost::ToolCall { name, .. } | ToHost::StreamPull { tool: name, .. }, _)) => {
                        match answers.next() {
                            Some(answer @ Answer::Tool(_)) => answer.clone(),
                            _ => {
                                replay.diverged += 1;
                                Answer::Tool(
                                    ToSession::ToolResult(
                                        ToolResult::Refused(format!(
                                    "tool '{name}' was not called when this cell first ran; its replay is refused"
                                )),
                                        0,
                                    )
                                    .encode(),
                                )
                            }
                        }
                    }
                    Ok((_, ToHost::FileOp(op), _)) => match self.mounts.not_journaled(&op, &mut changes) {
                        // Done again (see `HostMounts::answer`): a read, or a refusal that does not depend on
                        // the folder. A folder changed since may make the replayed cell end differently, which
                        // is reported like any divergence.
                        Some(answer) => {
                            let reply = ToSession::FileAnswer(answer).encode();
                            process::send_request(&state.process.link, &reply)
                                .map_err(|e| failed(e.to_string(), at_checkpoint))?;
                            continue;
                        }
                        None => match answers.next() {
                            Some(answer @ Answer::File(_)) => answer.clone(),
                            _ => {
                                replay.diverged += 1;
                                Answer::File(
                                    ToSession::FileAnswer(FileAnswer::Failed {
                                        errno: libc::EIO,
                                        detail: "this cell did not use its mounts this way when it first ran".into(),
                                    })
                                    .encode(),
                                )
                            }
                        },
                    },
                    Ok((_, ToHost::Wait { .. }, _)) => match answers.next() {
                        Some(answer @ Answer::Woken(_)) => answer.clone(),
                        _ => {
                            replay.diverged += 1;
                            Answer::Woken(ToSession::Woken(Vec::new()).encode())
                        }
                    },
                    Ok((done, ToHost::Done(_), _)) => {
                        let outcome = journal::digest(&done);
                        if outcome != entry.outcome {
                            replay.diverged += 1;
                        }
                        state.journal.record(Entry { request: entry.request, answers: given, outcome });
                        replayed += 1;
                        break;
                    }
                    // It ended the first time: this time it took another path.
                    Ok((_, ToHost::Abandoned(_), _)) => {
                        let why = "a cell ran differently the second time, and a native operation ignored its stop";
                        return Err(failed(format!("{why}; {ANOTHER_PATH}"), at_checkpoint));
                    }
                    Ok((_, ToHost::Fault { .. }, _)) => {
                        let why = "a cell ran differently the second time, and crashed the sandbox's process";
                        return Err(failed(format!("{why}; {ANOTHER_PATH}"), at_checkpoint));
                    }
                    Ok((_, other, _)) => {
                        let why = format!(
                            "the sandbox's process sent {} during a cell",
                            crate::protocol::message::variant_name(&other)
                        );
                        return Err(failed(why, at_checkpoint));
                    }
                    Err(failure) => return Err(failed(failure.into_reason(), at_checkpoint)),
                };
                process::send_request(&state.process.link, answer.frame())
                    .map_err(|e| failed(e.to_string(), at_checkpoint))?;
                given.push(answer);
            }
        }
        Ok(replay)
    }
}
