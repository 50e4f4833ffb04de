//! A show's single writer: it owns the show's authoritative state in memory,
//! decides each request with `seat-state`, and commits every decision of a
//! batch in one transaction (group commit) before answering any of them.

use std::sync::Arc;

use tokio::sync::mpsc;

use seat_state::wire::ChangeEvent;
use seat_state::{Change, Decision, HoldId, HolderId, Rejection, ServerMillis, ShowState};

use crate::error::AppError;
use crate::metrics::Metrics;
use crate::store::{CommitError, Store, Transition};

use super::commands::{Action, Command, Read, Write, Written};
use super::events::EventHub;

/// Most requests decided and committed together.
const MAX_BATCH: usize = 512;

/// The writer task's state.
pub struct ShowActor {
    pub show_id: String,
    pub state: ShowState,
    pub store: Arc<dyn Store>,
    pub metrics: Arc<Metrics>,
    pub events: EventHub,
}

/// A decided write, answered once its batch is durable.
enum Outcome {
    Written(Written),
    Expired(bool),
}

/// What a batch's decisions staged, in order.
#[derive(Default)]
struct Staged {
    transitions: Vec<Transition>,
    /// The public event of each transition, broadcast once the batch is durable.
    events: Vec<ChangeEvent>,
}

/// A batch decided: what to write, what to announce, what to answer.
struct Decided {
    transitions: Arc<[Transition]>,
    events: Vec<ChangeEvent>,
    outcomes: Vec<Result<Outcome, AppError>>,
}

impl Outcome {
    fn written(self) -> Result<Written, AppError> {
        match self {
            Self::Written(written) => Ok(written),
            Self::Expired(_) => Err(AppError::Internal(anyhow::anyhow!("an expiry outcome for a hold request"))),
        }
    }

    fn expired(self) -> Result<bool, AppError> {
        match self {
            Self::Expired(expired) => Ok(expired),
            Self::Written(_) => Err(AppError::Internal(anyhow::anyhow!("a hold outcome for an expiry"))),
        }
    }
}

impl ShowActor {
    /// Serves commands until every handle is dropped.
    pub async fn run(mut self, mut commands: mpsc::Receiver<Command>) {
        let mut batch = Vec::with_capacity(MAX_BATCH);
        while commands.recv_many(&mut batch, MAX_BATCH).await > 0 {
            let (mut writes, mut reads) = (Vec::new(), Vec::new());
            for command in batch.drain(..) {
                match command {
                    Command::Write(write) => writes.push(write),
                    Command::Read(read) => reads.push(read),
                }
            }
            if !writes.is_empty() {
                self.write(writes).await;
            }
            for read in reads {
                self.read(read);
            }
        }
    }

    async fn write(&mut self, writes: Vec<Write>) {
        let mut attempt = self.decide_all(&writes);
        let mut result = self.commit(&attempt.transitions).await;
        if let Err(CommitError::Stale(reason)) = &result {
            // Another writer changed the show (a second process on a shared
            // database): rebuild from storage and decide again, once.
            tracing::warn!(show = %self.show_id, %reason, "stale decision; reloading the show");
            result = match self.reload().await {
                Ok(()) => {
                    attempt = self.decide_all(&writes);
                    self.commit(&attempt.transitions).await
                }
                Err(error) => Err(CommitError::Failed(error)),
            };
        }
        let Decided { transitions, events, outcomes } = attempt;
        match result {
            Ok(()) => {
                for transition in transitions.iter() {
                    self.count(&transition.change);
                }
                for event in events {
                    self.events.publish(event);
                }
                for (command, outcome) in writes.into_iter().zip(outcomes) {
                    answer(command, outcome);
                }
            }
            Err(error) => {
                tracing::error!(show = %self.show_id, error = ?error, "commit failed; reloading the show");
                if let Err(error) = self.reload().await {
                    tracing::error!(show = %self.show_id, error = ?error, "reload failed");
                }
                for command in writes {
                    answer(command, Err(AppError::Internal(anyhow::anyhow!("commit failed"))));
                }
            }
        }
    }

    /// Decides every write in order, applying each accepted change to the
    /// in-memory state so later requests of the batch see it.
    fn decide_all(&mut self, writes: &[Write]) -> Decided {
        let mut staged = Staged::default();
        let outcomes = writes.iter().map(|command| self.decide(command, &mut staged)).collect();
        Decided { transitions: staged.transitions.into(), events: staged.events, outcomes }
    }

    fn decide(&mut self, command: &Write, staged: &mut Staged) -> Result<Outcome, AppError> {
        let (decision, hold_id, holder, now) = match command {
            Write::Create { holder, body, generated_id, foreign_id, now, reply: _ } => {
                let decided = self.state.parse_request(body, generated_id.clone()).and_then(|request| {
                    if *foreign_id {
                        return Err(Rejection::IdempotencyMismatch);
                    }
                    Ok((self.state.decide_create(holder, &request, *now)?, request.hold_id))
                });
                let (decision, hold_id) = decided.inspect_err(|r| self.count_rejection(r))?;
                (decision, hold_id, holder, *now)
            }
            Write::Act { action, holder, hold, now, reply: _ } => {
                let decision = match action {
                    Action::Extend => self.state.decide_extend(holder, hold, *now),
                    Action::Confirm => self.state.decide_confirm(holder, hold, *now),
                    Action::Release => self.state.decide_release(holder, hold, *now),
                }?;
                (decision, hold.clone(), holder, *now)
            }
            Write::Expire { due, now, reply: _ } => {
                let Decision::Apply(change) = self.state.decide_expiry(&due.hold_id, due.deadline, *now) else {
                    return Ok(Outcome::Expired(false));
                };
                let holder = self.state.hold(&due.hold_id).map(|hold| hold.holder.clone());
                let holder = holder.ok_or_else(|| AppError::Internal(anyhow::anyhow!("expiry of an unknown hold")))?;
                tracing::info!(hold = %due.hold_id, key = %due.idempotency_key, "hold expired: holder notified, payment authorisation released");
                self.stage(change, holder, *now, staged);
                return Ok(Outcome::Expired(true));
            }
        };
        let created = matches!(command, Write::Create { .. }) && matches!(decision, Decision::Apply(_));
        if let Decision::Apply(change) = decision {
            self.stage(change, holder.clone(), now, staged);
        }
        let hold = self.state.hold(&hold_id).ok_or(AppError::Rejected(Rejection::NoHold))?;
        Ok(Outcome::Written(Written { created, hold: hold.to_wire(&self.state.show().id, now) }))
    }

    fn stage(&mut self, change: Change, holder: HolderId, now: ServerMillis, staged: &mut Staged) {
        self.state.apply(&change);
        staged.events.push(self.state.change_event(&change, now));
        staged.transitions.push(Transition { change, holder, at: now, version: self.state.version() });
    }

    async fn commit(&self, transitions: &Arc<[Transition]>) -> Result<(), CommitError> {
        if transitions.is_empty() {
            return Ok(());
        }
        let started = std::time::Instant::now();
        let result = self.store.commit(&self.show_id, Arc::clone(transitions)).await;
        self.metrics.commit_batch.observe(transitions.len() as f64);
        self.metrics.commit_seconds.observe(started.elapsed().as_secs_f64());
        result
    }

    /// Rebuilds the state from storage (after a failed or stale commit).
    async fn reload(&mut self) -> anyhow::Result<()> {
        let (version, holds) = self.store.load_holds(&self.show_id).await?;
        let mut state = ShowState::new(self.state.show().clone());
        for hold in holds {
            state.restore(hold);
        }
        state.set_version(version);
        self.state = state;
        Ok(())
    }

    fn read(&self, command: Read) {
        match command {
            Read::Hold { holder, hold, now, reply } => {
                let found = self.state.hold(&hold).filter(|found| found.holder == holder);
                let answer = found.map(|found| found.to_wire(&self.state.show().id, now));
                let _ = reply.send(answer.ok_or(AppError::Rejected(Rejection::NoHold)));
            }
            Read::SeatMap { viewer, now, reply } => {
                let _ = reply.send(Ok(self.state.seat_map(viewer.as_ref(), now)));
            }
            Read::Subscribe { viewer, after, now, reply } => {
                let subscription =
                    self.events.subscribe(after, self.state.version(), || self.state.seat_map(viewer.as_ref(), now));
                let _ = reply.send(Ok(subscription));
            }
        }
    }

    fn count(&self, change: &Change) {
        let counter = match change {
            Change::Created { .. } => &self.metrics.holds_created,
            Change::Confirmed { .. } => &self.metrics.holds_confirmed,
            Change::Released { .. } => &self.metrics.holds_released,
            Change::Expired { .. } => &self.metrics.holds_expired,
            Change::Extended { .. } => return,
        };
        counter.inc();
    }

    fn count_rejection(&self, rejection: &Rejection) {
        if matches!(rejection, Rejection::SeatsTaken { .. } | Rejection::NotEnoughSeats { .. }) {
            self.metrics.hold_conflicts.inc();
        }
    }
}

fn answer(command: Write, outcome: Result<Outcome, AppError>) {
    match command {
        Write::Create { reply, .. } | Write::Act { reply, .. } => {
            let _ = reply.send(outcome.and_then(Outcome::written));
        }
        Write::Expire { reply, .. } => {
            let _ = reply.send(outcome.and_then(Outcome::expired));
        }
    }
}

/// A hold id the server makes when the client gave none: 128 random bits.
pub fn generated_hold_id() -> Result<HoldId, AppError> {
    let mut bytes = [0u8; 16];
    getrandom::fill(&mut bytes).map_err(|e| AppError::Internal(anyhow::anyhow!("no randomness: {e}")))?;
    HoldId::parse(&hex::encode(bytes)).map_err(|e| AppError::Internal(e.into()))
}
