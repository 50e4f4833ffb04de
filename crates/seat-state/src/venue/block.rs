//! Blocked seats (API.md "Box office (v2)"): the box office takes seats off
//! sale and puts them back. A blocked seat is never holdable (see
//! `ShowState::open_to`); holds and sales made before the block stand.

use super::{Change, Decision, ShowState};
use crate::ids::SeatId;
use crate::rejection::Rejection;

/// The longest reason a block may carry, in characters.
pub const MAX_BLOCK_REASON: usize = 200;

impl ShowState {
    /// Decides blocking `seats`: `InvalidSeats` naming every unknown one
    /// (or none, for an empty list); seats blocked already are left out, so
    /// blocking them again is `Unchanged`. O(k log n).
    pub fn decide_block(&self, seats: &[SeatId], reason: &str) -> Result<Decision, Rejection> {
        let changed = self.seats_to_flip(seats, true)?;
        Ok(if changed.is_empty() {
            Decision::Unchanged
        } else {
            Decision::Apply(Change::Blocked { seats: changed, reason: reason.to_owned() })
        })
    }

    /// Decides unblocking `seats`, as [`Self::decide_block`] the other way.
    pub fn decide_unblock(&self, seats: &[SeatId]) -> Result<Decision, Rejection> {
        let changed = self.seats_to_flip(seats, false)?;
        Ok(if changed.is_empty() { Decision::Unchanged } else { Decision::Apply(Change::Unblocked { seats: changed }) })
    }

    /// The seats of `seats` (first mention, in order) not yet `blocked`.
    fn seats_to_flip(&self, seats: &[SeatId], blocked: bool) -> Result<Vec<SeatId>, Rejection> {
        let unknown: Vec<String> =
            seats.iter().filter(|seat| !self.seat_index.contains_key(*seat)).map(ToString::to_string).collect();
        if seats.is_empty() || !unknown.is_empty() {
            return Err(Rejection::InvalidSeats { seats: unknown });
        }
        let mut flipped = vec![false; self.seats.len()];
        let mut changed = Vec::new();
        for seat in seats {
            let at = self.seat_index[seat];
            if self.blocked[at] != blocked && !flipped[at] {
                flipped[at] = true;
                changed.push(seat.clone());
            }
        }
        Ok(changed)
    }

    /// Whether the box office blocked `seat` (false for an unknown one).
    pub fn is_blocked(&self, seat: &SeatId) -> bool {
        self.seat_index.get(seat).is_some_and(|&at| self.blocked[at])
    }

    /// Every blocked seat, in definition order. O(n).
    pub fn blocked_seats(&self) -> impl Iterator<Item = &SeatId> {
        self.show.seats.iter().zip(&self.blocked).filter(|(_, blocked)| **blocked).map(|(seat, _)| &seat.id)
    }

    /// Marks seats read back from storage as blocked, without a version
    /// bump (as [`Self::restore`]); unknown ids are ignored.
    pub fn restore_blocked<'a>(&mut self, seats: impl IntoIterator<Item = &'a SeatId>) {
        for seat in seats {
            if let Some(&at) = self.seat_index.get(seat) {
                self.blocked[at] = true;
            }
        }
    }

    /// Applies a block (`blocked`) or an unblock: only when every seat is
    /// known and in the other state, so a stale change changes nothing.
    pub(super) fn set_blocked(&mut self, seats: &[SeatId], blocked: bool) -> bool {
        let Some(at) = seats.iter().map(|seat| self.seat_index.get(seat).copied()).collect::<Option<Vec<_>>>() else {
            return false;
        };
        let mut seen = vec![false; self.seats.len()];
        let fresh = at.iter().all(|&s| self.blocked[s] != blocked && !std::mem::replace(&mut seen[s], true));
        if seats.is_empty() || !fresh {
            return false;
        }
        for s in at {
            self.blocked[s] = blocked;
        }
        true
    }
}
