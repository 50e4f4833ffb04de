//! A sampled viewer's seat map, as the web app keeps it: a snapshot, then
//! every `change` event applied in order (API.md "Live changes (v4)": an
//! event may carry several changes, each seat in its latest state, and
//! follows the viewer's version when its `since` is at most that version).
//! Seats are kept by their position in the definition (`SeatOrder`), a few
//! bytes each: a sample stream keeps one map of the 20,000-seat arena.

use std::collections::BTreeMap;

use seat_state::wire::{AreaFact, ChangeEvent, CompactChange, CompactMap, SeatFact, SeatMap, SeatOrder};

/// The wire form of the customers' seat maps and streams.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Form {
    /// `?format=compact` (what the web app asks for).
    Compact,
    /// `?only=taken`: JSON with only the taken seats (API.md "On-sale (v3)").
    Json,
}

impl Form {
    pub fn parse(text: &str) -> anyhow::Result<Self> {
        match text {
            "compact" => Ok(Self::Compact),
            "json" => Ok(Self::Json),
            other => anyhow::bail!("--format is compact or json, not {other:?}"),
        }
    }

    /// The query of `…/seats` and `…/events`.
    pub fn query(self) -> &'static str {
        match self {
            Self::Compact => "?format=compact",
            Self::Json => "?only=taken",
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            Self::Compact => "compact",
            Self::Json => "JSON",
        }
    }

    /// A seat map (`…/seats` or a `snapshot` event's data) in this form,
    /// as the seat-map body listing the seats it lists.
    pub fn seat_map(self, data: &[u8], order: &SeatOrder) -> anyhow::Result<SeatMap> {
        Ok(match self {
            Self::Compact => serde_json::from_slice::<CompactMap>(data)?.decode(order)?,
            Self::Json => serde_json::from_slice(data)?,
        })
    }

    /// A `change` event's data in this form.
    pub fn change(self, data: &[u8], order: &SeatOrder) -> anyhow::Result<ChangeEvent> {
        Ok(match self {
            Self::Compact => serde_json::from_slice::<CompactChange>(data)?.decode(order)?,
            Self::Json => serde_json::from_slice(data)?,
        })
    }
}

/// What a viewer must come to show for a seat: the three states a
/// customer sees.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    Free = 0,
    Held = 1,
    Sold = 2,
}

/// A seat listed by an event: its position and the state it came in, packed
/// with the index of the frame that brought it (8 bytes a note: a sample
/// stream notes every seat change of the storm).
#[derive(Debug, Clone, Copy)]
pub struct Arrival {
    seat_and_kind: u32,
    pub frame: u32,
}

impl Arrival {
    pub fn new(seat: u32, kind: Kind, frame: usize) -> Self {
        Self { seat_and_kind: seat << 2 | kind as u32, frame: u32::try_from(frame).unwrap_or(u32::MAX) }
    }

    /// The key [`Arrival::key`] gives the same seat and state.
    pub fn key(&self) -> u32 {
        self.seat_and_kind
    }

    pub fn key_of(seat: u32, kind: Kind) -> u32 {
        seat << 2 | kind as u32
    }
}

/// A seat's state, one word: free, sold, or held until a deadline.
const FREE: i64 = i64::MIN;
const SOLD: i64 = i64::MIN + 1;

/// A viewer's map at `version`.
#[derive(Debug, Clone)]
pub struct ViewerMap {
    pub version: i64,
    /// By position: [`FREE`], [`SOLD`] or the hold's deadline.
    states: Vec<i64>,
    blocked: Vec<bool>,
    /// `mine` left out: events are public.
    areas: BTreeMap<String, AreaFact>,
}

impl ViewerMap {
    /// From a snapshot (or `GET …/seats`): every seat it leaves out is free.
    pub fn of_map(map: &SeatMap, order: &SeatOrder) -> anyhow::Result<Self> {
        let mut viewer = Self {
            version: map.version,
            states: vec![FREE; order.len()],
            blocked: vec![false; order.len()],
            areas: BTreeMap::new(),
        };
        for fact in &map.seats {
            viewer.set(fact, order)?;
        }
        for area in &map.areas {
            viewer.set_area(area);
        }
        Ok(viewer)
    }

    /// Sets a seat's fact; its position.
    pub fn set(&mut self, fact: &SeatFact, order: &SeatOrder) -> anyhow::Result<u32> {
        let at = order.position(&fact.id).ok_or_else(|| anyhow::anyhow!("seat {} is not in the show", fact.id))?;
        self.states[at as usize] = match (fact.sold, fact.hold_expires_at) {
            (true, _) => SOLD,
            (false, Some(deadline)) => deadline.max(SOLD + 1),
            (false, None) => FREE,
        };
        self.blocked[at as usize] = fact.blocked;
        Ok(at)
    }

    pub fn set_area(&mut self, area: &AreaFact) {
        let mut area = area.clone();
        area.holds.iter_mut().for_each(|hold| hold.mine = None);
        self.areas.insert(area.id.clone(), area);
    }

    /// A seat's state as the event that set it said (a past deadline still held).
    pub fn kind(&self, at: usize) -> Kind {
        match self.states[at] {
            FREE => Kind::Free,
            SOLD => Kind::Sold,
            _ => Kind::Held,
        }
    }

    /// The seats whose state or block differs from `other`'s.
    pub fn differing<'a>(&'a self, other: &'a ViewerMap) -> impl Iterator<Item = usize> + 'a {
        (0..self.states.len().min(other.states.len()))
            .filter(|&at| self.states[at] != other.states[at] || self.blocked[at] != other.blocked[at])
    }

    /// The first seat (or area) where this map and `other` differ as a
    /// customer sees them at server time `now`: sold, held (until the same
    /// deadline) or free (a deadline at or before `now` is free), blocked
    /// or not; `None` when they agree.
    pub fn differs_as_of(&self, other: &ViewerMap, now: i64, order: &SeatOrder) -> Option<String> {
        let seen = |state: i64| if state != SOLD && state != FREE && state <= now { FREE } else { state };
        let describe = |state: i64| match state {
            FREE => "free".to_owned(),
            SOLD => "sold".to_owned(),
            deadline => format!("held until {deadline}"),
        };
        if self.states.len() != other.states.len() {
            return Some(format!("{} seats, the other {}", self.states.len(), other.states.len()));
        }
        for at in 0..self.states.len() {
            let (mine, theirs) = (seen(self.states[at]), seen(other.states[at]));
            if mine != theirs || self.blocked[at] != other.blocked[at] {
                return Some(format!(
                    "seat {}: {}{} here, {}{} there",
                    order.id(at),
                    describe(mine),
                    if self.blocked[at] { " (blocked)" } else { "" },
                    describe(theirs),
                    if other.blocked[at] { " (blocked)" } else { "" }
                ));
            }
        }
        let current = |areas: &BTreeMap<String, AreaFact>| -> BTreeMap<String, AreaFact> {
            let mut areas = areas.clone();
            for area in areas.values_mut() {
                area.holds.retain(|hold| hold.expires_at > now);
            }
            areas
        };
        (current(&self.areas) != current(&other.areas)).then(|| "the areas differ".to_owned())
    }
}

#[cfg(test)]
mod tests {
    use seat_state::wire::{ChangeEvent, CompactChange, CompactMap, SeatFact, SeatMap, SeatOrder};

    use super::{Form, Kind, ViewerMap};

    fn order() -> SeatOrder {
        SeatOrder::new(["A1", "A2", "A3"].map(|id| (id.to_owned(), None, None)))
    }

    fn fact(id: &str, sold: bool, hold: Option<i64>) -> SeatFact {
        SeatFact { id: id.to_owned(), sold, hold_expires_at: hold, ..SeatFact::default() }
    }

    #[test]
    fn a_compact_snapshot_and_change_decode_to_the_json_forms_map() -> anyhow::Result<()> {
        let order = order();
        let map = SeatMap {
            show_id: "s".into(),
            server_time: 1_000,
            version: 4,
            seats: vec![fact("A1", true, None), fact("A2", false, Some(5_000))],
            areas: Vec::new(),
        };
        let compact = serde_json::to_vec(&CompactMap::encode(&map, &order)?)?;
        let json = serde_json::to_vec(&map)?;
        let from_compact = ViewerMap::of_map(&Form::Compact.seat_map(&compact, &order)?, &order)?;
        let from_json = ViewerMap::of_map(&Form::Json.seat_map(&json, &order)?, &order)?;
        assert_eq!(from_compact.differs_as_of(&from_json, 1_000, &order), None);
        assert_eq!(from_compact.kind(1), Kind::Held);

        let change = ChangeEvent {
            version: 7,
            server_time: 2_000,
            since: Some(4),
            seats: vec![fact("A2", true, None), fact("A3", false, Some(9_000))],
            areas: Vec::new(),
        };
        let decoded = Form::Compact.change(&serde_json::to_vec(&CompactChange::encode(&change, &order)?)?, &order)?;
        assert_eq!((decoded.version, decoded.follows()), (7, 4));
        let mut viewer = from_compact;
        for seat in &decoded.seats {
            viewer.set(seat, &order)?;
        }
        assert_eq!([viewer.kind(0), viewer.kind(1), viewer.kind(2)], [Kind::Sold, Kind::Sold, Kind::Held]);
        // A hold whose deadline has passed is free to a customer.
        let mut expired = viewer.clone();
        expired.set(&fact("A3", false, None), &order)?;
        assert_eq!(viewer.differs_as_of(&expired, 9_000, &order), None);
        assert!(viewer.differs_as_of(&expired, 8_999, &order).is_some());
        Ok(())
    }
}
