//! The waiting room (API.md "Waiting room (v3)"): who joined a show's
//! queue, in what order, and how far it is admitted at a given instant.
//!
//! The queue is a log of [`QueueEvent`]s with its own sequence (not the
//! show's version: a join changes no seat). [`Queue::apply`] is the only way
//! state changes; the `decide_*` functions name the event a request would
//! add, at the caller's `now`, and change nothing. Admission is not an
//! event: it is a pure function of the log and the instant
//! ([`Queue::admitted_through`]), so every process computes the same one.

mod admission;
mod decide;
mod draw;
mod history;
mod waiting;

use std::collections::HashMap;

use crate::hold::HolderId;
use crate::time::ServerMillis;

pub use admission::Admission;
pub use decide::{QueueRefusal, QueueSettings};
pub use draw::draw_order;
pub use history::QueueAt;
pub use waiting::{estimate_from_progress, wait_millis, wait_text};

/// A show's on-sale settings, as created (API.md defaults filled in).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct OnSale {
    pub opens_at: ServerMillis,
    pub admit_per_minute: u32,
    pub pre_queue_seconds: u32,
    pub admission_seconds: u32,
}

impl OnSale {
    /// The first instant a join is taken.
    pub fn pre_queue_from(&self) -> ServerMillis {
        self.opens_at.plus_millis(-i64::from(self.pre_queue_seconds) * 1000)
    }
}

/// One entry of a queue's log.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum QueueEvent {
    /// A session took a place (at the back, or into the pre-queue draw).
    Joined { holder: HolderId, address: String },
    /// The pre-queue was put in its random order, with this seed.
    Drawn { seed: u64 },
    /// The operator changed the rate, paused or resumed, or closed (or
    /// reopened) the queue; `None` leaves a setting as it was.
    Set { rate: Option<u32>, paused: Option<bool>, closed: Option<bool> },
}

/// A logged event: its place in the log and the writer's instant.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct QueueEntry {
    /// 1 for the first entry of a show's log, then one more each.
    pub seq: u64,
    pub at: ServerMillis,
    pub event: QueueEvent,
}

/// One place in the queue.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Place {
    holder: HolderId,
    joined_at: ServerMillis,
    address: String,
    /// Joined before `opensAt`: drawn, and counted from `opensAt`.
    pre_queue: bool,
}

/// From `from` on (until the next segment), admissions run at `rate` per
/// minute, or not at all while `paused`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Segment {
    from: ServerMillis,
    rate: u32,
    paused: bool,
}

/// A show's waiting room as its log makes it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Queue {
    on_sale: OnSale,
    seq: u64,
    latest_at: Option<ServerMillis>,
    /// Before the draw: the pre-queue in join order. After it: by position
    /// (index + 1), the drawn pre-queue first, then later joins.
    places: Vec<Place>,
    /// Every join's instant in log order (ascending, as a writer never
    /// decides earlier than it did; `joins_sorted` says if one did).
    join_times: Vec<ServerMillis>,
    joins_sorted: bool,
    /// Each holder's latest place (an index into `places`).
    by_holder: HashMap<HolderId, usize>,
    per_address: HashMap<String, u32>,
    seed: Option<u64>,
    /// The instant of the draw (admissions count from it).
    drawn_at: Option<ServerMillis>,
    /// The rate's history from `opensAt` on, oldest first, never empty.
    segments: Vec<Segment>,
    closed: bool,
}

impl Queue {
    /// An empty queue for a show's on-sale settings.
    pub fn new(on_sale: OnSale) -> Self {
        let first = Segment { from: on_sale.opens_at, rate: on_sale.admit_per_minute, paused: false };
        Self {
            on_sale,
            seq: 0,
            latest_at: None,
            places: Vec::new(),
            join_times: Vec::new(),
            joins_sorted: true,
            by_holder: HashMap::new(),
            per_address: HashMap::new(),
            seed: None,
            drawn_at: None,
            segments: vec![first],
            closed: false,
        }
    }

    pub fn on_sale(&self) -> &OnSale {
        &self.on_sale
    }

    /// How many entries the log has (the next entry's `seq` is one more).
    pub fn seq(&self) -> u64 {
        self.seq
    }

    /// The latest instant an entry was decided at: a writer never decides earlier.
    pub fn latest_at(&self) -> Option<ServerMillis> {
        self.latest_at
    }

    /// Places taken, in the pre-queue too.
    pub fn length(&self) -> u64 {
        self.places.len() as u64
    }

    /// The lottery's seed, once drawn.
    pub fn seed(&self) -> Option<u64> {
        self.seed
    }

    pub fn closed(&self) -> bool {
        self.closed
    }

    /// The rate now set (per minute) and whether admissions are paused.
    pub fn rate(&self) -> (u32, bool) {
        let last = self.current();
        (last.rate, last.paused)
    }

    /// Places a client address holds.
    pub fn places_of_address(&self, address: &str) -> u32 {
        self.per_address.get(address).copied().unwrap_or(0)
    }

    fn current(&self) -> Segment {
        // Never empty: `new` puts the first segment in and nothing removes one.
        self.segments.last().copied().unwrap_or(Segment {
            from: self.on_sale.opens_at,
            rate: self.on_sale.admit_per_minute,
            paused: false,
        })
    }

    /// Records one logged entry. Entries must come in `seq` order; one out
    /// of order is ignored (so a log read twice applies once).
    pub fn apply(&mut self, entry: &QueueEntry) {
        if entry.seq != self.seq + 1 {
            return;
        }
        self.seq = entry.seq;
        self.latest_at = Some(self.latest_at.map_or(entry.at, |latest| latest.max(entry.at)));
        match &entry.event {
            QueueEvent::Joined { holder, address } => {
                let pre_queue = self.seed.is_none();
                self.joins_sorted &= self.join_times.last().is_none_or(|&last| last <= entry.at);
                self.join_times.push(entry.at);
                self.by_holder.insert(holder.clone(), self.places.len());
                *self.per_address.entry(address.clone()).or_default() += 1;
                self.places.push(Place {
                    holder: holder.clone(),
                    joined_at: entry.at,
                    address: address.clone(),
                    pre_queue,
                });
            }
            QueueEvent::Drawn { seed } => {
                if self.seed.is_some() {
                    return;
                }
                self.seed = Some(*seed);
                self.drawn_at = Some(entry.at);
                let order = draw_order(self.places.len(), *seed);
                let mut drawn: Vec<Option<Place>> = std::mem::take(&mut self.places).into_iter().map(Some).collect();
                self.places = order.into_iter().filter_map(|from| drawn.get_mut(from).and_then(Option::take)).collect();
                self.by_holder.clear();
                for (at, place) in self.places.iter().enumerate() {
                    self.by_holder.insert(place.holder.clone(), at);
                }
            }
            QueueEvent::Set { rate, paused, closed } => {
                let last = self.current();
                let next = Segment {
                    from: entry.at.max(self.on_sale.opens_at),
                    rate: rate.unwrap_or(last.rate).max(1),
                    paused: paused.unwrap_or(last.paused),
                };
                match self.segments.last_mut() {
                    Some(last) if last.from >= next.from => *last = Segment { from: last.from, ..next },
                    _ => self.segments.push(next),
                }
                if let Some(closed) = closed {
                    self.closed = *closed;
                }
            }
        }
    }

    /// The holder's latest place: its 1-based position once drawn (`None`
    /// in the pre-queue before the draw), or `None` if it never joined.
    fn place_of(&self, holder: &HolderId) -> Option<(usize, &Place)> {
        let at = *self.by_holder.get(holder)?;
        Some((at, self.places.get(at)?))
    }

    /// The client address a holder's place was taken from.
    pub fn address_of(&self, holder: &HolderId) -> Option<&str> {
        self.place_of(holder).map(|(_, place)| place.address.as_str())
    }
}
