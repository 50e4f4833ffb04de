//! What the state says on the wire: facts, not verdicts. Clients derive
//! FREE / HELD / SOLD from them with [`crate::seat_state`].

use super::{Change, ShowState};
use crate::hold::{HoldStatus, HolderId};
use crate::time::ServerMillis;
use crate::wire;

/// Whose facts: `mine` is answered for a session and omitted in public ones.
#[derive(Clone, Copy)]
enum Viewer<'a> {
    Public,
    Session(Option<&'a HolderId>),
}

impl Viewer<'_> {
    fn mine(self, holder: Option<&HolderId>) -> Option<bool> {
        match self {
            Self::Public => None,
            Self::Session(viewer) => Some(viewer.is_some_and(|v| Some(v) == holder)),
        }
    }
}

/// One seat as [`ShowState::seat_standing`] gives it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SeatStanding<'a> {
    pub sold: bool,
    pub blocked: bool,
    /// As the seat's fact gives it (`None` when sold or not held).
    pub hold_expires_at: Option<i64>,
    /// Whose it is: `mine` is true for this holder.
    pub owner: Option<&'a HolderId>,
}

/// Which seats a seat map lists.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum SeatScope {
    /// Every seat of the show.
    #[default]
    Every,
    /// Only seats sold, blocked or held (`?only=taken`).
    Taken,
}

impl ShowState {
    /// Whether every seat and every area place is sold (a waiting room
    /// ends then). O(n).
    pub fn sold_out(&self) -> bool {
        self.seats.iter().all(|seat| seat.sold)
            && self.areas.iter().zip(&self.show.areas).all(|(slot, area)| slot.sold >= area.capacity)
    }

    /// [`ShowState::seat_map`] or [`ShowState::taken_seat_map`].
    pub fn seat_map_of(&self, scope: SeatScope, viewer: Option<&HolderId>, now: ServerMillis) -> wire::SeatMap {
        match scope {
            SeatScope::Every => self.seat_map(viewer, now),
            SeatScope::Taken => self.taken_seat_map(viewer, now),
        }
    }

    /// Every seat's facts, in definition order, with `mine` answered for
    /// `viewer` (false for everyone when `None`). O(n).
    pub fn seat_facts(&self, viewer: Option<&HolderId>) -> Vec<wire::SeatFact> {
        (0..self.seats.len()).map(|at| self.seat_fact(at, Viewer::Session(viewer))).collect()
    }

    /// Every area's facts, in definition order, with `mine` for `viewer`.
    pub fn area_facts(&self, viewer: Option<&HolderId>) -> Vec<wire::AreaFact> {
        (0..self.areas.len()).map(|at| self.area_fact(at, Viewer::Session(viewer))).collect()
    }

    /// `GET /api/shows/{id}/seats` and the `snapshot` event. O(n + holds in areas).
    pub fn seat_map(&self, viewer: Option<&HolderId>, now: ServerMillis) -> wire::SeatMap {
        wire::SeatMap {
            show_id: String::from(&self.show.id),
            server_time: now.0,
            version: self.version,
            seats: self.seat_facts(viewer),
            areas: self.area_facts(viewer),
        }
    }

    /// `GET /api/shows/{id}/seats?only=taken` and its `snapshot` event
    /// (API.md "On-sale (v3)"): [`ShowState::seat_map`] with only the seats
    /// that are sold, blocked or held past `now`; a seat left out is free.
    /// O(n) over plain slots, facts built only for the seats listed.
    pub fn taken_seat_map(&self, viewer: Option<&HolderId>, now: ServerMillis) -> wire::SeatMap {
        let seats =
            (0..self.seats.len()).filter_map(|at| self.taken_seat_fact(at, Viewer::Session(viewer), now)).collect();
        wire::SeatMap {
            show_id: String::from(&self.show.id),
            server_time: now.0,
            version: self.version,
            seats,
            areas: self.area_facts(viewer),
        }
    }

    /// The seat's fact when it is taken at `now` (sold, blocked or held):
    /// the hold [`Self::seat_fact`] would give a deadline, unexpired.
    fn taken_seat_fact(&self, at: usize, viewer: Viewer<'_>, now: ServerMillis) -> Option<wire::SeatFact> {
        let held = || self.standing_hold(at).is_some_and(|hold| hold.expires_at > now);
        (self.seats[at].sold || self.blocked[at] || held()).then(|| self.seat_fact(at, viewer))
    }

    /// Seat `at`'s latest hold, unless it was released or swept as expired.
    fn standing_hold(&self, at: usize) -> Option<&crate::hold::Hold> {
        self.seats[at]
            .hold
            .map(|h| &self.holds[h])
            .filter(|h| matches!(h.stored_status, HoldStatus::Held | HoldStatus::Confirmed))
    }

    /// The public facts (no `mine`) of every seat and area `change`'s hold
    /// names (or a block names), as they stand: call it after
    /// [`ShowState::apply`]. Empty for an unknown hold. O(k log n + Σ a).
    pub fn facts_touched_by(&self, change: &Change) -> (Vec<wire::SeatFact>, Vec<wire::AreaFact>) {
        let (seats, areas) = self.positions_touched_by(change);
        (
            seats.into_iter().map(|at| self.seat_fact(at, Viewer::Public)).collect(),
            areas.into_iter().map(|at| self.area_fact(at, Viewer::Public)).collect(),
        )
    }

    /// The positions (definition order) of the seats and areas `change`
    /// touches; see [`ShowState::facts_touched_by`].
    pub fn positions_touched_by(&self, change: &Change) -> (Vec<usize>, Vec<usize>) {
        if let Change::Blocked { seats, .. } | Change::Unblocked { seats } = change {
            return (seats.iter().filter_map(|seat| self.seat_index.get(seat).copied()).collect(), Vec::new());
        }
        let Some(hold) = change.hold_id().and_then(|id| self.hold(id)) else {
            return (Vec::new(), Vec::new());
        };
        let seats = hold.seats.iter().filter_map(|seat| self.seat_index.get(seat).copied()).collect();
        let areas = hold.areas.iter().filter_map(|(area, _)| self.area_index.get(area).copied()).collect();
        (seats, areas)
    }

    /// Seat `at`'s facts as a seat map gives them, with the holder `mine`
    /// is answered for: what a copy of the map kept outside needs.
    pub fn seat_standing(&self, at: usize) -> SeatStanding<'_> {
        let slot = self.seats[at];
        let hold = self.standing_hold(at);
        SeatStanding {
            sold: slot.sold,
            blocked: self.blocked[at],
            hold_expires_at: hold.filter(|_| !slot.sold).map(|h| h.expires_at.0),
            owner: hold.map(|h| &h.holder).or(self.retired_buyer[at].as_ref().filter(|_| slot.sold)),
        }
    }

    /// Area `at`'s places sold and its holds (quantity, deadline, holder),
    /// in the order its facts list them.
    pub fn area_standing(&self, at: usize) -> (i64, Vec<(i64, i64, &HolderId)>) {
        let slot = &self.areas[at];
        let holds = slot
            .holds
            .iter()
            .map(|((deadline, _), &(quantity, h))| (i64::from(quantity), deadline.0, &self.holds[h].holder))
            .collect();
        (i64::from(slot.sold), holds)
    }

    /// The `change` event for an applied `change`, at the current version.
    pub fn change_event(&self, change: &Change, now: ServerMillis) -> wire::ChangeEvent {
        let (seats, areas) = self.facts_touched_by(change);
        wire::ChangeEvent { version: self.version, server_time: now.0, since: None, seats, areas }
    }

    fn seat_fact(&self, at: usize, viewer: Viewer<'_>) -> wire::SeatFact {
        let slot = self.seats[at];
        let hold = self.standing_hold(at);
        wire::SeatFact {
            id: String::from(&self.show.seats[at].id),
            sold: slot.sold,
            hold_expires_at: hold.filter(|_| !slot.sold).map(|h| h.expires_at.0),
            mine: viewer.mine(hold.map(|h| &h.holder).or(self.retired_buyer[at].as_ref().filter(|_| slot.sold))),
            blocked: self.blocked[at],
            channel: self.seat_channel[at].map(|channel| String::from(&self.show.channels[channel].id)),
            access: self.show.seats[at].access.as_ref().map(|access| access.as_str().to_owned()),
        }
    }

    fn area_fact(&self, at: usize, viewer: Viewer<'_>) -> wire::AreaFact {
        let area = &self.show.areas[at];
        let slot = &self.areas[at];
        wire::AreaFact {
            id: String::from(&area.id),
            capacity: i64::from(area.capacity),
            sold: i64::from(slot.sold),
            holds: slot
                .holds
                .iter()
                .map(|((deadline, _), &(quantity, h))| wire::AreaHoldFact {
                    quantity: i64::from(quantity),
                    expires_at: deadline.0,
                    mine: viewer.mine(Some(&self.holds[h].holder)),
                })
                .collect(),
        }
    }
}
