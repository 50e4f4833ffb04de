//! Live changes (v4): the changes of one tick conflated into one `change`
//! event, and the compact wire form of changes and seat maps
//! (`?format=compact`), a few bytes per seat.
//!
//! Facts are states, not deltas: a seat's latest fact stands for every
//! change before it, so a conflated event applied after any version in
//! `[since, version)` gives the map at `version`.

use std::collections::HashMap;

use serde::{Deserialize, Serialize};

use super::{AreaFact, ChangeEvent, SeatFact, SeatMap, ShowDocument};

/// The changes of a tick, gathered in version order, latest fact per seat
/// and area. O(1) per fact pushed.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Conflation {
    since: Option<i64>,
    version: i64,
    server_time: i64,
    seats: Vec<SeatFact>,
    seat_at: HashMap<String, usize>,
    areas: Vec<AreaFact>,
    area_at: HashMap<String, usize>,
}

impl Conflation {
    /// Adds the next event (its versions follow what was pushed before).
    pub fn push(&mut self, event: ChangeEvent) {
        if self.since.is_none() {
            self.since = Some(event.follows());
        }
        self.version = self.version.max(event.version);
        self.server_time = self.server_time.max(event.server_time);
        for fact in event.seats {
            match self.seat_at.get(&fact.id) {
                Some(&at) => self.seats[at] = fact,
                None => {
                    self.seat_at.insert(fact.id.clone(), self.seats.len());
                    self.seats.push(fact);
                }
            }
        }
        for fact in event.areas {
            match self.area_at.get(&fact.id) {
                Some(&at) => self.areas[at] = fact,
                None => {
                    self.area_at.insert(fact.id.clone(), self.areas.len());
                    self.areas.push(fact);
                }
            }
        }
    }

    /// Whether nothing was pushed since the last [`Conflation::take`].
    pub fn is_empty(&self) -> bool {
        self.since.is_none()
    }

    /// The one event for everything pushed (`None` when nothing was), and
    /// an empty conflation for the next tick.
    pub fn take(&mut self) -> Option<ChangeEvent> {
        let taken = std::mem::take(self);
        // A single change needs no `since`: it follows the version before it.
        taken.since.map(|since| ChangeEvent {
            version: taken.version,
            server_time: taken.server_time,
            since: (since != taken.version - 1).then_some(since),
            seats: taken.seats,
            areas: taken.areas,
        })
    }
}

impl ChangeEvent {
    /// The version this event follows: it carries every change in
    /// `(follows, version]` (`version − 1` for a single change).
    pub fn follows(&self) -> i64 {
        self.since.unwrap_or(self.version - 1)
    }
}

/// A show's seats in definition order, with what never changes about
/// them (their channel and access), which the compact form leaves out.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct SeatOrder {
    ids: Vec<String>,
    index: HashMap<String, u32>,
    channel: Vec<Option<String>>,
    access: Vec<Option<String>>,
}

/// A compact frame that does not fit its show.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CompactError(pub String);

impl std::fmt::Display for CompactError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for CompactError {}

impl SeatOrder {
    /// From each seat's id, channel and access, in definition order.
    pub fn new(seats: impl IntoIterator<Item = (String, Option<String>, Option<String>)>) -> Self {
        let mut order = Self::default();
        let seats = seats.into_iter();
        // Sized once: growing a stadium's index rehashed it over and over.
        order.index.reserve(seats.size_hint().0);
        for (at, (id, channel, access)) in seats.enumerate() {
            order.index.insert(id.clone(), at as u32);
            order.ids.push(id);
            order.channel.push(channel);
            order.access.push(access);
        }
        order
    }

    /// From a show's definition as `GET /api/shows/{id}` answers it.
    pub fn of_document(show: &ShowDocument) -> Self {
        let mut channel_of: HashMap<&str, &str> = HashMap::new();
        for channel in &show.channels {
            for seat in &channel.seats {
                channel_of.insert(seat, &channel.id);
            }
        }
        // A served definition's rows expand (the server expanded them); their seats follow.
        let rows = crate::parametric::expand(&show.rows).unwrap_or_default();
        Self::new(show.seats.iter().chain(&rows).map(|seat| {
            let id = &seat.seat.id;
            (id.clone(), channel_of.get(id.as_str()).map(|c| (*c).to_owned()), seat.access.clone())
        }))
    }

    /// How many seats the show has.
    pub fn len(&self) -> usize {
        self.ids.len()
    }

    /// Whether the show has no seats.
    pub fn is_empty(&self) -> bool {
        self.ids.is_empty()
    }

    /// The seat ids in definition order.
    pub fn ids(&self) -> impl Iterator<Item = &str> {
        self.ids.iter().map(String::as_str)
    }

    /// The id of the seat at `at` (definition order); empty past the end.
    pub fn id(&self, at: usize) -> &str {
        self.ids.get(at).map_or("", String::as_str)
    }

    /// A seat's position in definition order.
    pub fn position(&self, id: &str) -> Option<u32> {
        self.index.get(id).copied()
    }

    /// The seat at `at` as a free seat's public fact: its id, channel and
    /// access (`None` past the end).
    pub fn seat(&self, at: u32) -> Option<SeatFact> {
        self.fact(at).ok()
    }

    pub(super) fn fact(&self, at: u32) -> Result<SeatFact, CompactError> {
        let at = at as usize;
        let id = self.ids.get(at).ok_or_else(|| CompactError(format!("seat {at} is not in the show")))?;
        Ok(SeatFact {
            id: id.clone(),
            channel: self.channel[at].clone(),
            access: self.access[at].clone(),
            ..SeatFact::default()
        })
    }
}

/// Held seats that share a deadline: `[expiresAt − t, seats as gaps…]`.
pub type CompactHold = Vec<i64>;

/// The compact `change` event (`?format=compact`): seats by their
/// position in the definition, grouped by state; every seat it lists in
/// its state as of `v`. `mine` is never sent (events are public). Each
/// list of positions is ascending and written as gaps: the first position,
/// then each one's distance from the one before (`[3, 1, 1]` is 3, 4, 5).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[cfg_attr(feature = "js", derive(tsify::Tsify))]
pub struct CompactChange {
    /// The show's version after these changes; also the event's `id`.
    pub v: i64,
    /// The version these changes follow (`v − 1` when absent).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub p: Option<i64>,
    /// `serverTime`.
    pub t: i64,
    /// Seats now free: not held, not sold.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub f: Vec<u32>,
    /// Seats now sold.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub s: Vec<u32>,
    /// Held seats, one list per deadline: `[expiresAt − t, seats…]`.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub h: Vec<CompactHold>,
    /// Of the seats above, those the box office blocked.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub b: Vec<u32>,
    /// Areas changed, as in the JSON form.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub a: Vec<AreaFact>,
}

/// The compact seat map (`…/seats?format=compact` and a compact stream's
/// `snapshot`): only taken seats are listed, as with `?only=taken`; a seat
/// left out is free as of `serverTime`. Positions are written as gaps, as
/// in [`CompactChange`].
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[cfg_attr(feature = "js", derive(tsify::Tsify))]
#[serde(rename_all = "camelCase")]
pub struct CompactMap {
    pub show_id: String,
    /// `serverTime`.
    pub server_time: i64,
    pub version: i64,
    /// Seats sold.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub s: Vec<u32>,
    /// Held seats, one list per deadline: `[expiresAt − serverTime, seats…]`.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub h: Vec<CompactHold>,
    /// Seats blocked (free unless listed above).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub b: Vec<u32>,
    /// Seats held or sold to the asking session.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub m: Vec<u32>,
    /// Every area, as in the JSON form.
    #[serde(default)]
    pub areas: Vec<AreaFact>,
}

/// Seats by position, grouped by state, each list ascending: what the
/// compact forms are made of.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Positions {
    /// Not held, not sold (changes only: a map leaves free seats out).
    pub free: Vec<u32>,
    pub sold: Vec<u32>,
    /// (deadline, position), by deadline then position.
    pub held: Vec<(i64, u32)>,
    pub blocked: Vec<u32>,
    pub mine: Vec<u32>,
}

impl Positions {
    pub(super) fn of<'a>(
        facts: impl IntoIterator<Item = &'a SeatFact>,
        order: &SeatOrder,
    ) -> Result<Self, CompactError> {
        let mut groups = Self::default();
        for fact in facts {
            let at =
                order.position(&fact.id).ok_or_else(|| CompactError(format!("seat {} is not in the show", fact.id)))?;
            match (fact.sold, fact.hold_expires_at) {
                (true, _) => groups.sold.push(at),
                (false, Some(deadline)) => groups.held.push((deadline, at)),
                (false, None) => groups.free.push(at),
            }
            if fact.blocked {
                groups.blocked.push(at);
            }
            if fact.mine == Some(true) {
                groups.mine.push(at);
            }
        }
        for list in [&mut groups.free, &mut groups.sold, &mut groups.blocked, &mut groups.mine] {
            list.sort_unstable();
        }
        groups.held.sort_unstable();
        Ok(groups)
    }

    /// `[deadline − t, seats as gaps…]` per deadline, in deadline order.
    fn holds(&self, t: i64) -> Vec<CompactHold> {
        let mut holds: Vec<CompactHold> = Vec::new();
        let mut last = 0;
        for &(deadline, at) in &self.held {
            match holds.last_mut() {
                Some(group) if group[0] == deadline - t => group.push(i64::from(at - last)),
                _ => holds.push(vec![deadline - t, i64::from(at)]),
            }
            last = at;
        }
        holds
    }
}

/// Ascending positions as gaps: the first, then each one's distance from
/// the one before (small numbers: a few bytes per seat in JSON).
pub(super) fn gaps(ascending: &[u32]) -> Vec<u32> {
    let mut last = 0;
    ascending
        .iter()
        .map(|&at| {
            let gap = at - last;
            last = at;
            gap
        })
        .collect()
}

/// The positions `gaps` stands for.
pub(super) fn positions(gaps: &[u32]) -> Result<Vec<u32>, CompactError> {
    let mut at: u32 = 0;
    gaps.iter()
        .map(|&gap| {
            at = at.checked_add(gap).ok_or_else(|| CompactError("a seat position past the end".into()))?;
            Ok(at)
        })
        .collect()
}

/// Each seat of `h` with its deadline.
fn held_seats(h: &[CompactHold], t: i64) -> Result<Vec<(u32, i64)>, CompactError> {
    let mut seats = Vec::new();
    for group in h {
        let (&offset, listed) = group.split_first().ok_or_else(|| CompactError("an empty hold group".into()))?;
        let deadline = t.checked_add(offset).ok_or_else(|| CompactError("a deadline out of range".into()))?;
        let mut at: u32 = 0;
        for &gap in listed {
            at = u32::try_from(gap)
                .ok()
                .and_then(|gap| at.checked_add(gap))
                .ok_or_else(|| CompactError(format!("a seat gap {gap} out of range")))?;
            seats.push((at, deadline));
        }
    }
    Ok(seats)
}

impl CompactChange {
    /// The compact form of a `change` event of the show `order` describes.
    pub fn encode(event: &ChangeEvent, order: &SeatOrder) -> Result<Self, CompactError> {
        let groups = Positions::of(&event.seats, order)?;
        Ok(Self {
            v: event.version,
            p: event.since,
            t: event.server_time,
            h: groups.holds(event.server_time),
            f: gaps(&groups.free),
            s: gaps(&groups.sold),
            b: gaps(&groups.blocked),
            a: event.areas.clone(),
        })
    }

    /// The `change` event this stands for (seats by state, then position).
    pub fn decode(&self, order: &SeatOrder) -> Result<ChangeEvent, CompactError> {
        let mut seats = Vec::with_capacity(self.f.len() + self.s.len());
        for at in positions(&self.f)? {
            seats.push(order.fact(at)?);
        }
        for at in positions(&self.s)? {
            seats.push(SeatFact { sold: true, ..order.fact(at)? });
        }
        for (at, deadline) in held_seats(&self.h, self.t)? {
            seats.push(SeatFact { hold_expires_at: Some(deadline), ..order.fact(at)? });
        }
        mark_blocked(&mut seats, &positions(&self.b)?, order)?;
        Ok(ChangeEvent { version: self.v, server_time: self.t, since: self.p, seats, areas: self.a.clone() })
    }
}

/// The seat at position `at` of a whole map.
fn seat(seats: &mut [SeatFact], at: u32) -> Result<&mut SeatFact, CompactError> {
    seats.get_mut(at as usize).ok_or_else(|| CompactError(format!("seat {at} is not in the show")))
}

/// Sets `blocked` on the listed seats, each of which must be in `seats`
/// (a change lists few seats: a scan, no hashing).
fn mark_blocked(seats: &mut [SeatFact], blocked: &[u32], order: &SeatOrder) -> Result<(), CompactError> {
    for &at in blocked {
        let id = order.fact(at)?.id;
        let listed = seats.iter_mut().find(|fact| fact.id == id);
        listed.ok_or_else(|| CompactError(format!("blocked seat {at} has no state")))?.blocked = true;
    }
    Ok(())
}

impl CompactMap {
    /// The compact form of a seat map: only its taken seats (sold,
    /// blocked, or held past its `serverTime`).
    pub fn encode(map: &SeatMap, order: &SeatOrder) -> Result<Self, CompactError> {
        let t = map.server_time;
        let taken =
            map.seats.iter().filter(|fact| fact.sold || fact.blocked || fact.hold_expires_at.is_some_and(|d| d > t));
        let groups = Positions::of(taken, order)?;
        Ok(Self::of_positions(map.show_id.clone(), t, map.version, &groups, map.areas.clone()))
    }

    /// The compact map of seats already grouped by position (a server
    /// that keeps its map by position builds no facts for it). `groups`
    /// must hold only taken seats; its `free` is ignored.
    pub fn of_positions(
        show_id: String,
        server_time: i64,
        version: i64,
        groups: &Positions,
        areas: Vec<AreaFact>,
    ) -> Self {
        // A taken seat that is neither sold nor held is blocked (and free).
        Self {
            show_id,
            server_time,
            version,
            s: gaps(&groups.sold),
            h: groups.holds(server_time),
            b: gaps(&groups.blocked),
            m: gaps(&groups.mine),
            areas,
        }
    }

    /// The seat map it stands for, listing only the taken seats (as
    /// `?only=taken`); [`CompactMap::decode_every`] lists every seat.
    pub fn decode(&self, order: &SeatOrder) -> Result<SeatMap, CompactError> {
        let every = self.decode_every(order)?;
        let t = self.server_time;
        let taken = |fact: &SeatFact| fact.sold || fact.blocked || fact.hold_expires_at.is_some_and(|d| d > t);
        Ok(SeatMap { seats: every.seats.into_iter().filter(taken).collect(), ..every })
    }

    /// The whole seat map it stands for, every seat in definition order as
    /// the JSON map gives it to the same session (a seat left out is free,
    /// `mine: false`). O(n), by position: no hashing, no sorting.
    pub fn decode_every(&self, order: &SeatOrder) -> Result<SeatMap, CompactError> {
        let mut seats: Vec<SeatFact> = (0..order.len() as u32)
            .map(|at| order.fact(at).map(|fact| SeatFact { mine: Some(false), ..fact }))
            .collect::<Result<_, _>>()?;
        for at in positions(&self.s)? {
            seat(&mut seats, at)?.sold = true;
        }
        for (at, deadline) in held_seats(&self.h, self.server_time)? {
            seat(&mut seats, at)?.hold_expires_at = Some(deadline);
        }
        for at in positions(&self.b)? {
            seat(&mut seats, at)?.blocked = true;
        }
        for at in positions(&self.m)? {
            seat(&mut seats, at)?.mine = Some(true);
        }
        Ok(SeatMap {
            show_id: self.show_id.clone(),
            server_time: self.server_time,
            version: self.version,
            seats,
            areas: self.areas.clone(),
        })
    }
}
