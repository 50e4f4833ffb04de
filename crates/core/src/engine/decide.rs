//! Deciding one batch: every write in arrival order, all at one instant,
//! each accepted change applied to the in-memory state so later writes of
//! the batch see it. Nothing here waits or writes; the actor commits.

use std::collections::HashSet;
use std::sync::Arc;

use seat_state::wire::ChangeEvent;
use seat_state::{Change, Decision, HoldId, HolderId, Rejection, ServerMillis};

use crate::store::Transition;

use super::actor::ShowActor;
use super::commands::{Action, Expiry, OPERATOR, Write, Written};
use super::error::EngineError;
use super::view::Patch;

/// A decided write, answered once its batch is durable.
pub enum Outcome {
    Written(Written),
    Expiry(Expiry),
    /// Every seat blocked once the block or unblock is applied.
    Blocked(Vec<String>),
}

/// A batch decided at one instant: what to write, announce and answer.
pub struct Decided {
    pub at: ServerMillis,
    pub transitions: Arc<[Transition]>,
    /// Each change's event and what it did to the map, to announce once durable.
    pub events: Vec<(ChangeEvent, Patch)>,
    pub outcomes: Vec<Result<Outcome, Rejection>>,
}

#[derive(Default)]
struct Staged {
    transitions: Vec<Transition>,
    events: Vec<(ChangeEvent, Patch)>,
}

impl ShowActor {
    /// Decides every write at `at`. `foreign`: hold ids that turned out to be
    /// taken by another show while this batch was committing.
    pub(super) fn decide_all(&mut self, writes: &[Write], at: ServerMillis, foreign: &HashSet<HoldId>) -> Decided {
        let mut staged = Staged::default();
        let outcomes = writes.iter().map(|write| self.decide(write, at, foreign, &mut staged)).collect();
        Decided { at, transitions: staged.transitions.into(), events: staged.events, outcomes }
    }

    fn decide(
        &mut self,
        write: &Write,
        now: ServerMillis,
        foreign: &HashSet<HoldId>,
        staged: &mut Staged,
    ) -> Result<Outcome, Rejection> {
        let (decision, hold_id, holder) = match write {
            Write::Create { holder, body, generated_id, admission, reply: _ } => {
                let request =
                    self.state.parse_order(body, generated_id.clone()).inspect_err(|r| self.count_conflict(r))?;
                if foreign.contains(&request.hold_id) || self.belongs_elsewhere(&request.hold_id) {
                    return Err(Rejection::IdempotencyMismatch);
                }
                let decision = self
                    .state
                    .decide_admitted_create(holder, &request, *admission, now)
                    .inspect_err(|r| self.count_conflict(r))?;
                (decision, request.hold_id, holder)
            }
            Write::Act { action, holder, hold, reply: _ } => {
                let decision = match action {
                    Action::Extend => self.state.decide_extend(holder, hold, now),
                    Action::Confirm => self.state.decide_confirm(holder, hold, now),
                    Action::Release => self.state.decide_release(holder, hold, now),
                    Action::OperatorRelease => self.state.decide_operator_release(hold, now),
                }?;
                (decision, hold.clone(), holder)
            }
            Write::Expire { due, reply: _ } => return Ok(Outcome::Expiry(self.decide_expiry(due, now, staged))),
            Write::Block { seats, reason, reply: _ } => {
                let decision = match reason {
                    Some(reason) => self.state.decide_block(seats, reason),
                    None => self.state.decide_unblock(seats),
                }?;
                if let Decision::Apply(change) = decision {
                    self.stage(change, HolderId::new(OPERATOR), now, staged);
                }
                return Ok(Outcome::Blocked(self.state.blocked_seats().map(ToString::to_string).collect()));
            }
        };
        let created = matches!(write, Write::Create { .. }) && matches!(decision, Decision::Apply(_));
        if let Decision::Apply(change) = decision {
            self.stage(change, holder.clone(), now, staged);
        }
        let hold = self.state.hold(&hold_id).ok_or(Rejection::NoHold)?;
        Ok(Outcome::Written(Written { created, hold: hold.to_wire(&self.state.show().id, now) }))
    }

    fn decide_expiry(&mut self, due: &crate::store::DueExpiry, now: ServerMillis, staged: &mut Staged) -> Expiry {
        let Some(hold) = self.state.hold(&due.hold_id) else { return Expiry::Stale };
        let holder = hold.holder.clone();
        let pending = hold.stored_status == seat_state::HoldStatus::Held && hold.expires_at == due.deadline;
        match self.state.decide_expiry(&due.hold_id, due.deadline, now) {
            Decision::Apply(change) => {
                tracing::info!(hold = %due.hold_id, key = %due.idempotency_key, "hold expired: holder notified, payment authorisation released");
                self.stage(change, holder, now, staged);
                Expiry::Expired
            }
            Decision::Unchanged if pending => Expiry::NotYetDue,
            Decision::Unchanged => Expiry::Stale,
        }
    }

    /// Whether another show already has a hold with this id.
    fn belongs_elsewhere(&self, hold: &HoldId) -> bool {
        // An index that cannot tell (another show's storage is failing)
        // counts as "not elsewhere": the store's constraint has the last word.
        self.index.show_of(hold).is_ok_and(|show| show.is_some_and(|show| *show != *self.show_id))
    }

    fn stage(&mut self, change: Change, holder: HolderId, now: ServerMillis, staged: &mut Staged) {
        self.state.apply(&change);
        staged.events.push((self.state.change_event(&change, now), Patch::of(&self.state, &change)));
        staged.transitions.push(Transition { change, holder, at: now, version: self.state.version() });
    }

    fn count_conflict(&self, rejection: &Rejection) {
        if matches!(
            rejection,
            Rejection::SeatsTaken { .. } | Rejection::NotEnoughSeats { .. } | Rejection::NoBlock { .. }
        ) {
            self.metrics.hold_conflicts.inc();
        }
    }
}

impl Outcome {
    pub fn written(self) -> Result<Written, EngineError> {
        match self {
            Self::Written(written) => Ok(written),
            _ => Err(EngineError::internal("another outcome for a hold request")),
        }
    }

    pub fn expiry(self) -> Result<Expiry, EngineError> {
        match self {
            Self::Expiry(expiry) => Ok(expiry),
            _ => Err(EngineError::internal("another outcome for an expiry")),
        }
    }

    pub fn blocked(self) -> Result<Vec<String>, EngineError> {
        match self {
            Self::Blocked(seats) => Ok(seats),
            _ => Err(EngineError::internal("another outcome for a block")),
        }
    }
}
