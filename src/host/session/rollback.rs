//! Bringing a session back after its process died: the checkpoint (or, before the first one, a new process
//! from the zygote, or from a new zygote when that one is gone too) takes over, and the runs journaled since
//! are replayed into it, their tool calls answered from the journal. The session is then exactly as it was
//! before the failed cell. A replay that cannot finish (a replayed cell that reads the clock takes another
//! path and dies, a mounted file changed) or a run too large to journal costs those cells, not the session:
//! it goes back to the latest checkpoint, and the caller is told how many cells were lost.

use std::os::fd::{AsRawFd, BorrowedFd, OwnedFd, RawFd};
use std::sync::atomic::Ordering;
use std::time::{Duration, Instant};

use pyo3::prelude::*;

use super::{Session, State};
use crate::host::journal::{self, Answer, Entry};
use crate::host::lineage::Lineage;
use crate::host::process::{self, Failure, Process};
use crate::host::outcome::Replay;
use crate::protocol::files::FileAnswer;
use crate::protocol::message::{ToHost, ToSession, ToolResult, REPLAY_BUDGET};

/// A replay that could not finish: why, and how many runs were replayed when the latest checkpoint came.
struct ReplayFailed {
    why: String,
    at_checkpoint: usize,
}

fn failed(reason: String, at_checkpoint: usize) -> ReplayFailed {
    ReplayFailed { why: format!("replaying them failed ({reason})"), at_checkpoint }
}

impl Session {
    /// Replace the dead process with the checkpoint and replay the journal: the session is then as it was
    /// before the failed run. An error when there is no checkpoint, or it cannot take over.
    pub(super) fn roll_back(&self, py: Python<'_>, state: &mut State) -> Result<Replay, String> {
        state.process.kill();
        let process = match (state.checkpoint.take(), &state.respawn_from) {
            (Some(checkpoint), _) => {
                py.detach(|| Process::resume(checkpoint, &self.options))
                    .map_err(|failure| format!("its checkpoint could not resume ({})", failure.into_reason()))?
            }
            (None, Some(zygote)) => {
                let zygote = zygote.as_raw_fd();
                // A rollback replays its runs, the first declaring the tools: no stand-ins are asked for here.
                let spawned = match py.detach(|| Process::spawn(zygote, &self.options, Vec::new())) {
                    // The zygote died (and the session with it): a new zygote serves the rollback.
                    Err(Failure::Zygote(reason)) => match self.live_zygote(py) {
                        Some(zygote) => {
                            let spawned = py.detach(|| Process::spawn(zygote.as_raw_fd(), &self.options, Vec::new()));
                            state.respawn_from = Some(zygote);
                            spawned
                        }
                        None => Err(Failure::Zygote(reason)),
                    },
                    other => other,
                };
                let process = spawned
                    .map_err(|failure| format!("a new session process could not be started ({})", failure.into_reason()))?;
                self.lineages.lock().push(Lineage::of(process.pid));
                process
            }
            (None, None) => return Err("there was no checkpoint to go back to".into()),
        };
        self.take_over_from(state, process);
        let (entries, unreplayable) = state.journal.take();
        let runs = entries.len();
        let mut replay = match self.replay(py, state, entries) {
            Ok(replay) => replay,
            Err(failed) => {
                // The resumed process made a checkpoint of itself before replaying (and maybe more since):
                // the session goes back to the latest, without the cells after it.
                let checkpoint = state.checkpoint.take().ok_or_else(|| failed.why.clone())?;
                let process = py.detach(|| Process::resume(checkpoint, &self.options)).map_err(|failure| {
                    format!("{}, and its checkpoint could not resume ({})", failed.why, failure.into_reason())
                })?;
                self.take_over_from(state, process);
                state.journal.clear();
                let lost = runs - failed.at_checkpoint + unreplayable;
                Replay { runs: failed.at_checkpoint, diverged: 0, lost: Some((lost, failed.why)) }
            }
        };
        if unreplayable > 0 && replay.lost.is_none() {
            let why = format!("the tool results of a cell were over {} MiB, too much to keep for a replay", journal::MAX_RUN_BYTES >> 20);
            replay.lost = Some((unreplayable, why));
        }
        // A tool table sent in a run that was not replayed (the failed one) is not in the process.
        state.resend_tools = true;
        Ok(replay)
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

    /// Run the journaled runs again in the resumed process, answering their tool calls from the journal.
    fn replay(&self, py: Python<'_>, state: &mut State, entries: Vec<Entry>) -> Result<Replay, ReplayFailed> {
        let mut replay = Replay { runs: entries.len(), diverged: 0, lost: None };
        let wait = self.grace() * 2 + self.timeout().unwrap_or(Duration::from_secs(60));
        // The whole replay within one run's limits and twice what the session's runs between checkpoints may
        // take: runs that were quick can be slow the second time (a cell that spins once the clock passes a
        // moment), and 60 of them, each held to a run's limits alone, made one rollback take 61 s at
        // timeout=1. Past it, the session is what its checkpoint held, and the cells after it are reported lost.
        let all_by = Instant::now() + wait + 2 * REPLAY_BUDGET;
        let mut at_checkpoint = 0;
        let mut replayed = 0;
        for entry in entries {
            process::send_request(&state.process.link, &entry.request).map_err(|e| failed(e.to_string(), at_checkpoint))?;
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
                    Ok((_, ToHost::ToolCall { name, .. } | ToHost::StreamPull { tool: name, .. }, _)) => match answers.next() {
                        Some(answer @ Answer::Tool(_)) => answer.clone(),
                        _ => {
                            replay.diverged += 1;
                            Answer::Tool(
                                ToSession::ToolResult(ToolResult::Refused(format!(
                                    "tool '{name}' was not called when this cell first ran; its replay is refused"
                                )), 0)
                                .encode(),
                            )
                        }
                    },
                    Ok((_, ToHost::FileOp(op), _)) => match self.mounts.not_journaled(&op, &mut changes) {
                        // Done again (see `HostMounts::answer`): a read, or a refusal that does not depend on
                        // the folder. A folder changed since may make the replayed cell end differently, which
                        // is reported like any divergence.
                        Some(answer) => {
                            let reply = ToSession::FileAnswer(answer).encode();
                            process::send_request(&state.process.link, &reply).map_err(|e| failed(e.to_string(), at_checkpoint))?;
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
                    Ok((_, other, _)) => return Err(failed(format!("it sent {}", process::name(&other)), at_checkpoint)),
                    Err(failure) => return Err(failed(failure.into_reason(), at_checkpoint)),
                };
                process::send_request(&state.process.link, answer.frame()).map_err(|e| failed(e.to_string(), at_checkpoint))?;
                given.push(answer);
            }
        }
        Ok(replay)
    }
}
