//! The seat map as the writer last published it: an immutable snapshot,
//! swapped after every durable batch, that seat maps and stream snapshots
//! are read from without a message to the writer (a read's wait must not
//! grow with the write queue).
//!
//! The seats live in a persistent vector (`imbl`): a batch's new snapshot
//! shares every untouched chunk with the last one, so publishing costs
//! O(seats touched · log n), not a copy of the show.

use std::sync::Arc;

use seat_state::wire::{
    AreaFact, AreaHoldFact, BitsMap, ChangeEvent, CompactMap, Positions, SeatFact, SeatMap, SeatOrder,
};
use seat_state::{HolderId, SeatScope, ServerMillis, ShowState};

/// What a seat's facts are made of; channel and access never change.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
struct SeatSlot {
    sold: bool,
    blocked: bool,
    hold_expires_at: Option<i64>,
    owner: Option<Arc<str>>,
}

/// An area's places sold and holds (quantity, deadline, holder).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
struct AreaSlot {
    sold: i64,
    holds: Vec<(i64, i64, Arc<str>)>,
}

/// What never changes about a show's map.
#[derive(Debug)]
pub struct Statics {
    pub show_id: String,
    pub order: SeatOrder,
    /// Per area: its id and capacity.
    areas: Vec<(String, i64)>,
}

impl Statics {
    fn of(state: &ShowState) -> Self {
        let show = state.show();
        // The seats' ids, channels and access, in definition order, as facts give them.
        let facts = state.seat_facts(None);
        let order = SeatOrder::new(facts.into_iter().map(|fact| (fact.id, fact.channel, fact.access)));
        Self {
            show_id: String::from(&show.id),
            order,
            areas: show.areas.iter().map(|area| (String::from(&area.id), i64::from(area.capacity))).collect(),
        }
    }
}

/// What one change did to the map: the touched seats and areas as they
/// stand right after it. Taken when the change is decided and applied to
/// the view once its batch is durable (the state may have moved on by then).
#[derive(Debug, Clone, Default)]
pub struct Patch {
    version: i64,
    seats: Vec<(usize, SeatSlot)>,
    areas: Vec<(usize, AreaSlot)>,
}

impl Patch {
    /// The patch of `change`, just applied to `state`. O(k log n).
    pub fn of(state: &ShowState, change: &seat_state::Change) -> Self {
        let (seats, areas) = state.positions_touched_by(change);
        Self {
            version: state.version(),
            seats: seats.into_iter().map(|seat| (seat, seat_slot(state, seat))).collect(),
            areas: areas.into_iter().map(|area| (area, area_slot(state, area))).collect(),
        }
    }
}

/// One published snapshot of a show's map.
#[derive(Debug, Clone)]
pub struct MapView {
    pub statics: Arc<Statics>,
    pub version: i64,
    /// The writer's latest instant when it published this.
    pub at: ServerMillis,
    seats: imbl::Vector<SeatSlot>,
    areas: imbl::Vector<AreaSlot>,
}

fn owner(holder: Option<&HolderId>) -> Option<Arc<str>> {
    holder.map(|holder| Arc::from(holder.as_str()))
}

impl MapView {
    /// The whole map of `state`. O(n).
    pub fn of(state: &ShowState, at: ServerMillis) -> Self {
        let statics = Arc::new(Statics::of(state));
        let seats = (0..statics.order.len()).map(|seat| seat_slot(state, seat)).collect();
        let areas = (0..statics.areas.len()).map(|area| area_slot(state, area)).collect();
        Self { statics, version: state.version(), at, seats, areas }
    }

    /// Takes a change's patch (made when it was decided).
    pub fn apply(&mut self, patch: Patch) {
        for (seat, slot) in patch.seats {
            if seat < self.seats.len() {
                self.seats.set(seat, slot);
            }
        }
        for (area, slot) in patch.areas {
            if area < self.areas.len() {
                self.areas.set(area, slot);
            }
        }
        self.version = self.version.max(patch.version);
    }

    /// The seat map `viewer` gets at `now` (never before this view's
    /// instant): the same as [`ShowState::seat_map_of`] at this version.
    pub fn seat_map(&self, scope: SeatScope, viewer: Option<&HolderId>, now: ServerMillis) -> SeatMap {
        let now = now.max(self.at);
        let mine = |owner: &Option<Arc<str>>| Some(viewer.is_some_and(|v| owner.as_deref() == Some(v.as_str())));
        let seats = self
            .seats
            .iter()
            .enumerate()
            .filter(|(_, slot)| scope == SeatScope::Every || taken_at(slot, now))
            .map(|(at, slot)| SeatFact { mine: mine(&slot.owner), ..self.public_fact(at, slot) })
            .collect();
        SeatMap {
            show_id: self.statics.show_id.clone(),
            server_time: now.0,
            version: self.version,
            seats,
            areas: self.area_facts(viewer),
        }
    }

    /// Seat `at`'s public fact: what never changes from the seat order.
    fn public_fact(&self, at: usize, slot: &SeatSlot) -> SeatFact {
        let fixed = self.statics.order.seat(at as u32).unwrap_or_default();
        SeatFact { sold: slot.sold, hold_expires_at: slot.hold_expires_at, blocked: slot.blocked, ..fixed }
    }

    /// The one `change` event that takes a viewer of `before` to this map:
    /// every seat and area that differs, in its state now. O(n); for a
    /// reload, whose versions were never all announced.
    pub fn changes_since(&self, before: &MapView) -> ChangeEvent {
        let seats = (self.seats.iter().zip(before.seats.iter()).enumerate())
            .filter(|(_, (now, then))| now != then)
            .map(|(at, (now, _))| self.public_fact(at, now))
            .collect();
        let areas = self
            .area_facts(None)
            .into_iter()
            .zip(self.areas.iter().zip(before.areas.iter()))
            .filter(|(_, (now, then))| now != then)
            .map(|(mut fact, _)| {
                fact.holds.iter_mut().for_each(|hold| hold.mine = None);
                fact
            })
            .collect();
        ChangeEvent { version: self.version, server_time: self.at.0, since: Some(before.version), seats, areas }
    }

    /// The compact seat map (`?format=compact`) `viewer` gets at `now`.
    /// Built from the slots by position, with no per-seat facts: a sale's
    /// every page load and stream asks for one.
    pub fn compact_map(&self, viewer: Option<&HolderId>, now: ServerMillis) -> CompactMap {
        let now = now.max(self.at);
        let taken = self.taken_positions(viewer, now);
        CompactMap::of_positions(self.statics.show_id.clone(), now.0, self.version, &taken, self.area_facts(viewer))
    }

    /// The seat map as bit sets (`?format=bits`) `viewer` gets at `now`,
    /// built by position as [`MapView::compact_map`].
    pub fn bits_map(&self, viewer: Option<&HolderId>, now: ServerMillis) -> BitsMap {
        let now = now.max(self.at);
        let taken = self.taken_positions(viewer, now);
        BitsMap::of_positions(self.statics.show_id.clone(), now.0, self.version, &taken, self.area_facts(viewer))
    }

    /// The seats taken at `now` by position, grouped by state.
    fn taken_positions(&self, viewer: Option<&HolderId>, now: ServerMillis) -> Positions {
        let mut taken = Positions::default();
        for (at, slot) in self.seats.iter().enumerate().filter(|(_, slot)| taken_at(slot, now)) {
            let at = at as u32;
            match (slot.sold, slot.hold_expires_at) {
                (true, _) => taken.sold.push(at),
                (false, Some(deadline)) => taken.held.push((deadline, at)),
                (false, None) => {}
            }
            if slot.blocked {
                taken.blocked.push(at);
            }
            if viewer.is_some_and(|v| slot.owner.as_deref() == Some(v.as_str())) {
                taken.mine.push(at);
            }
        }
        taken.held.sort_unstable();
        taken
    }

    fn area_facts(&self, viewer: Option<&HolderId>) -> Vec<AreaFact> {
        self.areas
            .iter()
            .zip(&self.statics.areas)
            .map(|(slot, (id, capacity))| AreaFact {
                id: id.clone(),
                capacity: *capacity,
                sold: slot.sold,
                holds: slot
                    .holds
                    .iter()
                    .map(|(quantity, expires_at, holder)| AreaHoldFact {
                        quantity: *quantity,
                        expires_at: *expires_at,
                        mine: Some(viewer.is_some_and(|v| v.as_str() == &**holder)),
                    })
                    .collect(),
            })
            .collect()
    }
}

/// Sold, blocked, or held past `now` (`?only=taken`).
fn taken_at(slot: &SeatSlot, now: ServerMillis) -> bool {
    slot.sold || slot.blocked || slot.hold_expires_at.is_some_and(|deadline| deadline > now.0)
}

fn seat_slot(state: &ShowState, seat: usize) -> SeatSlot {
    let standing = state.seat_standing(seat);
    SeatSlot {
        sold: standing.sold,
        blocked: standing.blocked,
        hold_expires_at: standing.hold_expires_at,
        owner: owner(standing.owner),
    }
}

fn area_slot(state: &ShowState, area: usize) -> AreaSlot {
    let (sold, holds) = state.area_standing(area);
    AreaSlot {
        sold,
        holds: holds
            .into_iter()
            .map(|(quantity, deadline, holder)| (quantity, deadline, Arc::from(holder.as_str())))
            .collect(),
    }
}

#[cfg(test)]
mod tests {
    use seat_state::wire::{HoldOrder, ShowInput};
    use seat_state::{Change, Decision, HoldId, HolderId, SeatScope, ServerMillis, Show, ShowState};

    use super::MapView;

    /// A 12-seat row and an area: holds made, one confirmed, one released,
    /// one past its deadline, a seat blocked.
    fn busy_state() -> ShowState {
        let seats: Vec<serde_json::Value> =
            (1..=12).map(|n| serde_json::json!({"id": format!("S{n}"), "x": n, "y": 0})).collect();
        let input: ShowInput = serde_json::from_value(serde_json::json!({
            "id": "view", "name": "View", "seats": seats, "maxActiveHoldsPerHolder": 10, "holdSeconds": 60,
            "areas": [{"id": "floor", "name": "Floor", "capacity": 10}],
            "channels": [{"id": "presale", "code": "SECRET", "seats": ["S12"]}]
        }))
        .unwrap();
        let mut state = ShowState::new(Show::parse(&input).unwrap());
        let take = |state: &mut ShowState, who: &str, body: serde_json::Value, id: &str| {
            let order: HoldOrder = serde_json::from_value(body).unwrap();
            let request = state.parse_order(&order, HoldId::parse(id).unwrap()).unwrap();
            let Ok(Decision::Apply(change)) = state.decide_create(&HolderId::new(who), &request, ServerMillis(0))
            else {
                panic!("{id} is taken")
            };
            state.apply(&change);
        };
        take(&mut state, "ann", serde_json::json!({"seats": ["S1", "S2"], "areas": {"floor": 2}}), "hold-ann1");
        take(&mut state, "bob", serde_json::json!({"seats": ["S3"]}), "hold-bob01");
        take(&mut state, "cy", serde_json::json!({"seats": ["S4"], "areas": {"floor": 1}}), "hold-cy001");
        let bob = HoldId::parse("hold-bob01").unwrap();
        let Ok(Decision::Apply(confirm)) = state.decide_confirm(&HolderId::new("bob"), &bob, ServerMillis(1)) else {
            panic!("bob's hold is confirmed")
        };
        state.apply(&confirm);
        let Ok(Decision::Apply(block)) = state.decide_block(&[seat_state::SeatId::parse("S9").unwrap()], "press")
        else {
            panic!("S9 is blocked")
        };
        state.apply(&block);
        assert!(matches!(block, Change::Blocked { .. }));
        state
    }

    #[test]
    fn a_view_answers_the_maps_the_state_answers() {
        let state = busy_state();
        let view = MapView::of(&state, ServerMillis(0));
        for viewer in [None, Some(HolderId::new("ann")), Some(HolderId::new("bob"))] {
            for scope in [SeatScope::Every, SeatScope::Taken] {
                // Before every deadline, and after them (holds past due, not swept).
                for now in [ServerMillis(1_000), ServerMillis(5_000_000)] {
                    assert_eq!(
                        view.seat_map(scope, viewer.as_ref(), now),
                        state.seat_map_of(scope, viewer.as_ref(), now),
                        "{scope:?} at {now:?} for {viewer:?}"
                    );
                }
            }
        }
    }

    #[test]
    fn a_views_compact_map_is_the_compact_form_of_the_taken_map() {
        let state = busy_state();
        let view = MapView::of(&state, ServerMillis(0));
        for viewer in [None, Some(HolderId::new("ann")), Some(HolderId::new("bob"))] {
            for now in [ServerMillis(1_000), ServerMillis(5_000_000)] {
                let taken = state.seat_map_of(SeatScope::Taken, viewer.as_ref(), now);
                let encoded = seat_state::wire::CompactMap::encode(&taken, &view.statics.order).unwrap();
                assert_eq!(view.compact_map(viewer.as_ref(), now), encoded, "at {now:?} for {viewer:?}");
                let bits = seat_state::wire::BitsMap::encode(&taken, &view.statics.order).unwrap();
                assert_eq!(view.bits_map(viewer.as_ref(), now), bits, "at {now:?} for {viewer:?}");
            }
        }
    }

    #[test]
    fn an_updated_view_is_the_view_of_the_new_state() {
        let mut state = busy_state();
        let mut view = MapView::of(&state, ServerMillis(0));
        let ann = HoldId::parse("hold-ann1").unwrap();
        let Ok(Decision::Apply(release)) = state.decide_release(&HolderId::new("ann"), &ann, ServerMillis(2)) else {
            panic!("ann releases")
        };
        state.apply(&release);
        view.apply(super::Patch::of(&state, &release));
        let fresh = MapView::of(&state, ServerMillis(0));
        for viewer in [None, Some(HolderId::new("ann"))] {
            let now = ServerMillis(3);
            assert_eq!(
                view.seat_map(SeatScope::Every, viewer.as_ref(), now),
                fresh.seat_map(SeatScope::Every, viewer.as_ref(), now)
            );
        }
        assert_eq!(view.version, state.version());
    }
}
