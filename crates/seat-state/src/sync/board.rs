//! The facts the browser knows, indexed once by id, with every deadline in
//! one sorted list so that time passing touches only what it changes.

use std::collections::HashMap;

use crate::order::sort_by;
use crate::seat::{SeatState, seat_state};
use crate::time::ServerMillis;
use crate::wire;

/// Something whose visible state can change at a deadline.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub(super) enum Target {
    Seat(usize),
    Area(usize),
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct SeatEntry {
    pub id: String,
    pub sold: bool,
    pub hold_expires_at: Option<ServerMillis>,
    /// The snapshot said so; forgotten once a (public) change touches it.
    pub snapshot_mine: bool,
    /// The box office blocked it.
    pub blocked: bool,
}

impl SeatEntry {
    pub fn state(&self, now: ServerMillis) -> SeatState {
        seat_state(self.sold, self.hold_expires_at, now)
    }

    /// The deadline at which its state can change, if any.
    fn deadline(&self) -> Option<ServerMillis> {
        self.hold_expires_at.filter(|_| !self.sold)
    }
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct AreaEntry {
    pub id: String,
    pub capacity: u32,
    pub sold: u32,
    /// (deadline, quantity) of each hold in the area.
    pub holds: Vec<(ServerMillis, u32)>,
}

impl AreaEntry {
    /// Places a new hold could take at `now`. O(holds in the area).
    pub fn available(&self, now: ServerMillis) -> u32 {
        let held: u64 =
            self.holds.iter().filter(|(deadline, _)| *deadline > now).map(|(_, quantity)| u64::from(*quantity)).sum();
        let taken = held.saturating_add(u64::from(self.sold));
        u32::try_from(u64::from(self.capacity).saturating_sub(taken)).unwrap_or(0)
    }
}

fn clamp_u32(value: i64) -> u32 {
    u32::try_from(value.max(0)).unwrap_or(u32::MAX)
}

fn area_entry(fact: &wire::AreaFact) -> AreaEntry {
    AreaEntry {
        id: fact.id.clone(),
        capacity: clamp_u32(fact.capacity),
        sold: clamp_u32(fact.sold),
        holds: fact.holds.iter().map(|hold| (ServerMillis(hold.expires_at), clamp_u32(hold.quantity))).collect(),
    }
}

/// All seats and areas of one show, as last told.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(super) struct Board {
    pub seats: Vec<SeatEntry>,
    pub areas: Vec<AreaEntry>,
    seat_index: HashMap<String, usize>,
    area_index: HashMap<String, usize>,
    /// Sorted, without repeats. A Vec, not a BTreeSet: the set's code
    /// cost the browser's wasm more than moving a Vec's tail per update.
    deadlines: Vec<(ServerMillis, Target)>,
}

impl Board {
    /// Replaces every fact. Keeps the index when the seats and areas are the
    /// same ids in the same order (a re-sync); returns whether it did. O(n).
    /// Takes the map's ids rather than copying them (a stadium has 200,000).
    pub fn load(&mut self, map: wire::SeatMap) -> bool {
        let same_seats =
            self.seats.len() == map.seats.len() && self.seats.iter().zip(&map.seats).all(|(a, b)| a.id == b.id);
        let same_areas =
            self.areas.len() == map.areas.len() && self.areas.iter().zip(&map.areas).all(|(a, b)| a.id == b.id);
        self.deadlines.clear();
        self.seats = map
            .seats
            .into_iter()
            .map(|fact| SeatEntry {
                id: fact.id,
                sold: fact.sold,
                hold_expires_at: fact.hold_expires_at.map(ServerMillis),
                snapshot_mine: fact.mine.unwrap_or(false),
                blocked: fact.blocked,
            })
            .collect();
        self.areas = map.areas.iter().map(area_entry).collect();
        if !(same_seats && same_areas) {
            self.seat_index = enumerate_ids(self.seats.iter().map(|s| s.id.as_str()));
            self.area_index = enumerate_ids(self.areas.iter().map(|a| a.id.as_str()));
        }
        let seats = self.seats.iter().enumerate();
        let seats = seats.filter_map(|(at, seat)| Some((seat.deadline()?, Target::Seat(at))));
        let areas = self.areas.iter().enumerate();
        let areas =
            areas.flat_map(|(at, area)| area.holds.iter().map(move |&(deadline, _)| (deadline, Target::Area(at))));
        let entries: Vec<(ServerMillis, Target)> = seats.chain(areas).collect();
        self.deadlines = sorted(entries);
        same_seats && same_areas
    }

    pub fn seat_at(&self, id: &str) -> Option<usize> {
        self.seat_index.get(id).copied()
    }

    pub fn area_at(&self, id: &str) -> Option<usize> {
        self.area_index.get(id).copied()
    }

    /// Updates one seat from a change's fact (unknown ids are ignored).
    pub fn update_seat(&mut self, fact: &wire::SeatFact) -> Option<usize> {
        let at = self.seat_at(&fact.id)?;
        self.unlink_seat(at);
        let entry = &mut self.seats[at];
        entry.sold = fact.sold;
        entry.hold_expires_at = fact.hold_expires_at.map(ServerMillis);
        entry.snapshot_mine = fact.mine.unwrap_or(false);
        entry.blocked = fact.blocked;
        self.link_seat(at);
        Some(at)
    }

    /// Replaces one area from a change's fact. O(holds in it · log).
    pub fn update_area(&mut self, fact: &wire::AreaFact) -> Option<usize> {
        let at = self.area_at(&fact.id)?;
        self.unlink_area(at);
        self.areas[at] = area_entry(fact);
        self.link_area(at);
        Some(at)
    }

    /// Everything whose deadline lies in `(min(a, b), max(a, b)]`: what may
    /// look different at `b` than at `a`.
    pub fn between(&self, a: ServerMillis, b: ServerMillis) -> impl Iterator<Item = Target> + '_ {
        let (low, high) = if a <= b { (a, b) } else { (b, a) };
        self.deadlines[self.after(low)..self.after(high)].iter().map(|&(_, target)| target)
    }

    /// The first deadline after `now`.
    pub fn next_deadline(&self, now: ServerMillis) -> Option<ServerMillis> {
        self.deadlines.get(self.after(now)).map(|&(deadline, _)| deadline)
    }

    /// Where the first deadline after `instant` is. O(log n).
    fn after(&self, instant: ServerMillis) -> usize {
        self.deadlines.partition_point(|&(deadline, _)| deadline <= instant)
    }

    fn link(&mut self, entry: (ServerMillis, Target)) {
        if let Err(at) = self.deadlines.binary_search(&entry) {
            self.deadlines.insert(at, entry);
        }
    }

    fn unlink(&mut self, entry: (ServerMillis, Target)) {
        if let Ok(at) = self.deadlines.binary_search(&entry) {
            self.deadlines.remove(at);
        }
    }

    fn link_seat(&mut self, at: usize) {
        if let Some(deadline) = self.seats[at].deadline() {
            self.link((deadline, Target::Seat(at)));
        }
    }

    fn unlink_seat(&mut self, at: usize) {
        if let Some(deadline) = self.seats[at].deadline() {
            self.unlink((deadline, Target::Seat(at)));
        }
    }

    fn link_area(&mut self, at: usize) {
        for at_hold in 0..self.areas[at].holds.len() {
            self.link((self.areas[at].holds[at_hold].0, Target::Area(at)));
        }
    }

    fn unlink_area(&mut self, at: usize) {
        for at_hold in 0..self.areas[at].holds.len() {
            self.unlink((self.areas[at].holds[at_hold].0, Target::Area(at)));
        }
    }
}

/// `entries` sorted and without repeats, through the crate's one sort
/// (`order.rs`): a sort of these tuples would be another copy in the wasm.
fn sorted(entries: Vec<(ServerMillis, Target)>) -> Vec<(ServerMillis, Target)> {
    let mut order: Vec<usize> = (0..entries.len()).collect();
    sort_by(&mut order, &|a, b| entries[a].cmp(&entries[b]));
    let mut sorted: Vec<_> = order.into_iter().map(|at| entries[at]).collect();
    sorted.dedup();
    sorted
}

fn enumerate_ids<'a>(ids: impl Iterator<Item = &'a str>) -> HashMap<String, usize> {
    ids.enumerate().map(|(at, id)| (id.to_owned(), at)).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn deadlines_sort_exactly_and_once() {
        let (big, bigger) = (ServerMillis(i64::MAX - 1), ServerMillis(i64::MAX));
        let entries = vec![
            (bigger, Target::Seat(0)),
            (ServerMillis(5), Target::Seat(1)),
            (big, Target::Seat(2)),
            (ServerMillis(5), Target::Area(0)),
            (ServerMillis(5), Target::Area(0)),
            (big, Target::Area(1)),
        ];
        let mut expected: Vec<_> = entries.clone();
        expected.sort_unstable();
        expected.dedup();
        assert_eq!(sorted(entries), expected);
    }
}
