//! Decisions as values: what a decision wants written, and under what
//! condition the write may happen.

use crate::hold::{Hold, HoldStatus};
use crate::ids::{HoldId, SeatId};
use crate::time::ServerMillis;

/// What a rule decided for a request that it accepts.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Decision {
    /// Nothing to write: an idempotent replay (answer with the hold as it
    /// stands), or a stale expiry.
    Unchanged,
    /// Write this change, conditionally, then [`crate::ShowState::apply`] it.
    Apply(Change),
}

/// One transition of one hold, or the box office blocking or unblocking
/// seats. Each documents the condition its decision relied on; `apply`
/// ignores one that no longer fits the state in memory. The stores check
/// only the show's version, which every decision on stale state fails.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Change {
    /// A new hold, status `HELD`. Condition: no hold with this id; at
    /// `hold.created_at`, every seat neither sold nor under an unexpired hold,
    /// each area's sold + unexpired holds + quantity ≤ capacity, and the
    /// holder under `maxActiveHoldsPerHolder` unexpired holds.
    Created { hold: Hold },
    /// `WHERE status = HELD AND expires_at = from AND expires_at > now`:
    /// set `expires_at = to` and `extensions`.
    Extended { hold: HoldId, from: ServerMillis, to: ServerMillis, extensions: u32 },
    /// `WHERE expires_at = deadline AND status = HELD`, and `deadline > now`
    /// unless `late`. A late confirm (`latePolicy: honorIfFree`) also
    /// accepts a stored `EXPIRED` and needs every seat and area place still
    /// free at the write's now. Sets `CONFIRMED`; its places become sold.
    Confirmed { hold: HoldId, deadline: ServerMillis, late: bool },
    /// `WHERE status = previous` (`HELD` or `EXPIRED`): sets `RELEASED`.
    Released { hold: HoldId, previous: HoldStatus },
    /// The expiry sweep: `WHERE status = HELD AND expires_at = deadline`
    /// (and `deadline <= now`): sets `EXPIRED`.
    Expired { hold: HoldId, deadline: ServerMillis },
    /// The box office takes seats off sale (each not blocked before): no
    /// new hold may take them. Holds and sales already made stand.
    Blocked { seats: Vec<SeatId>, reason: String },
    /// Blocked seats (each blocked before) are on sale again.
    Unblocked { seats: Vec<SeatId> },
}

impl Hold {
    /// Whether `change` (a change of this hold, not its creation) fits the
    /// hold as stored: the condition its write relied on.
    pub fn fits(&self, change: &Change) -> bool {
        match *change {
            Change::Created { .. } | Change::Blocked { .. } | Change::Unblocked { .. } => false,
            Change::Extended { from, .. } => self.stored_status == HoldStatus::Held && self.expires_at == from,
            Change::Confirmed { deadline, late, .. } => {
                let from_expired = late && self.stored_status == HoldStatus::Expired;
                (self.stored_status == HoldStatus::Held || from_expired) && self.expires_at == deadline
            }
            Change::Released { previous, .. } => {
                matches!(previous, HoldStatus::Held | HoldStatus::Expired) && self.stored_status == previous
            }
            Change::Expired { deadline, .. } => self.stored_status == HoldStatus::Held && self.expires_at == deadline,
        }
    }

    /// Makes the change on the hold's own fields. The one transition of a
    /// hold: [`crate::ShowState::apply`] calls it between unlinking and
    /// relinking the seats, and a store replaying a journal calls it alone.
    /// Check [`Self::fits`] first: this does not.
    pub fn take(&mut self, change: &Change) {
        match *change {
            Change::Created { .. } | Change::Blocked { .. } | Change::Unblocked { .. } => {}
            Change::Extended { to, extensions, .. } => (self.expires_at, self.extensions) = (to, extensions),
            Change::Confirmed { late, .. } => (self.stored_status, self.late) = (HoldStatus::Confirmed, late),
            Change::Released { .. } => self.stored_status = HoldStatus::Released,
            Change::Expired { .. } => self.stored_status = HoldStatus::Expired,
        }
    }
}

impl Change {
    /// The hold it changes; `None` for blocking and unblocking.
    pub fn hold_id(&self) -> Option<&HoldId> {
        match self {
            Self::Created { hold } => Some(&hold.id),
            Self::Extended { hold, .. }
            | Self::Confirmed { hold, .. }
            | Self::Released { hold, .. }
            | Self::Expired { hold, .. } => Some(hold),
            Self::Blocked { .. } | Self::Unblocked { .. } => None,
        }
    }
}
