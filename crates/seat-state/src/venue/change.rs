//! Decisions as values: what a decision wants written, and under what
//! condition the write may happen.

use crate::hold::{Hold, HoldStatus};
use crate::ids::HoldId;
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

/// One transition of one hold. Each carries what the conditional write must
/// check, so a write decided on stale state changes nothing.
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
}

impl Change {
    /// The hold it changes.
    pub fn hold_id(&self) -> &HoldId {
        match self {
            Self::Created { hold } => &hold.id,
            Self::Extended { hold, .. }
            | Self::Confirmed { hold, .. }
            | Self::Released { hold, .. }
            | Self::Expired { hold, .. } => hold,
        }
    }

    /// The status it writes.
    pub fn new_status(&self) -> HoldStatus {
        match self {
            Self::Created { .. } | Self::Extended { .. } => HoldStatus::Held,
            Self::Confirmed { .. } => HoldStatus::Confirmed,
            Self::Released { .. } => HoldStatus::Released,
            Self::Expired { .. } => HoldStatus::Expired,
        }
    }
}
