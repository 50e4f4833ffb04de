//! The browser's live seat map as a sans-io state machine (str0m style):
//! feed it what arrives with [`SeatMapSync::handle_input`], then call
//! [`SeatMapSync::poll_output`] until it answers [`Output::Timeout`], and
//! read states, availability and countdowns from it. It never reads a clock
//! or does I/O: local time comes in as [`Input::Tick`].
//!
//! Changes apply strictly in version order: duplicates and stale ones are
//! ignored, early ones wait, and a missing one asks for a re-sync. A
//! coalesced event (Live changes v4) carries every change after its
//! `since`, each seat in its latest state, so it applies on any version
//! from `since` on. Events
//! come over one ordered stream, so a gap is a real loss; the re-sync is
//! asked for at once (once per gap), and again after each failed fetch
//! (back-off from 250 ms doubling to 10 s, or the server's `Retry-After`)
//! until a newer snapshot arrives or the gap closes by itself. Before any
//! clock sample, the snapshot's `serverTime` at the tick it arrived anchors
//! server time with [`SeatMapSync::FALLBACK_UNCERTAINTY_MILLIS`] (before
//! any tick, server now is that `serverTime`); before any snapshot or time
//! at all, every hold counts as unexpired (never shown free too early).
//! Likewise server now is the earliest the clock estimate allows (the
//! sample's `serverTime` at the instant its answer arrived), so a seat
//! frees on screen at its deadline or up to a round trip after, never before.
//!
//! Its sibling [`Connection`] (module [`connection`]) is the policy of the
//! link that brings those inputs: when to open, give up or reopen the live
//! stream, poll while it is refused, and sample the clock. It is a machine
//! of its own, not a part of `SeatMapSync`: the operator's page needs the
//! link without a map, and the map's outputs stay what its users know; the
//! web app drives both, each with its timer.
//!
//! Costs: a snapshot is O(n log n) once per new seat list, O(n) after; a
//! change is O(seats in it · log n) plus moving the tail of the sorted
//! deadline list (a memmove of at most n entries per seat); time passing
//! is O(log n + what it changes); the next timer is O(log n + my holds).

mod board;
pub mod connection;
mod mine;
mod resync;
mod wait;

use std::collections::VecDeque;

use crate::clock::{ClockOffset, ClockSample, ClockSync};
use crate::countdown::Countdown;
use crate::order::sort_ascending;
use crate::seat::SeatState;
use crate::time::{LocalMillis, ServerMillis};
use crate::wire;
use board::{Board, Target};
use mine::MyHolds;
use resync::Resync;

pub use connection::{Connection, ConnectionStatus};
pub use mine::MyHoldView;

/// What arrives.
#[derive(Debug, Clone, PartialEq)]
pub enum Input {
    /// A seat map (`GET …/seats` or the `snapshot` event).
    Snapshot(wire::SeatMap),
    /// A `change` event.
    Change(wire::ChangeEvent),
    /// A round trip to `GET /api/time`.
    ClockSample(ClockSample),
    /// Answers about my holds (`GET /api/holds`, or any hold endpoint).
    MyHolds(Vec<wire::HoldBody>),
    /// The local clock reads this now (the timer fired, or before other input).
    Tick(LocalMillis),
    /// The fetch asked for by [`Output::ResyncNeeded`] failed (network,
    /// 5xx, 429…); it is asked for again when due.
    ResyncFailed {
        /// The server's `Retry-After`, when it gave one.
        retry_after_millis: Option<i64>,
        /// A random number in 0..=1000 (lengthens the wait by up to a
        /// quarter, so that many browsers do not retry in step).
        jitter_permille: u16,
    },
}

/// What the machine asks of its caller.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Output {
    /// A change after `last_version` is missing: reconnect the event stream
    /// with `Last-Event-ID: last_version`, or fetch a fresh snapshot. Feed
    /// the snapshot, or [`Input::ResyncFailed`] if the fetch fails.
    ResyncNeeded { last_version: i64 },
    /// Nothing more for now; tick again at this local instant (`None`: no
    /// timer needed).
    Timeout(Option<LocalMillis>),
}

/// How one seat looks.
#[cfg_attr(feature = "js", derive(serde::Serialize, tsify::Tsify), serde(rename_all = "camelCase"))]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct SeatView {
    pub state: SeatState,
    /// Held or sold to me.
    pub mine: bool,
    /// The box office blocked it: not holdable, whatever its state.
    pub blocked: bool,
}

/// How one general-admission area looks.
#[cfg_attr(feature = "js", derive(serde::Serialize, tsify::Tsify), serde(rename_all = "camelCase"))]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct AreaView {
    pub capacity: u32,
    /// Places a new hold could take now.
    pub available: u32,
}

/// What looks different since the last [`SeatMapSync::drain_changed`].
#[cfg_attr(feature = "js", derive(serde::Serialize, tsify::Tsify), serde(rename_all = "camelCase"))]
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Changed {
    /// Seat ids whose state or `mine` changed.
    pub seats: Vec<String>,
    /// Their positions in the snapshot's order (a caller whose seats are
    /// in that order looks no id up).
    #[cfg_attr(feature = "js", serde(skip))]
    pub positions: Vec<usize>,
    /// Area ids whose availability changed.
    pub areas: Vec<String>,
    /// A status or countdown of my holds changed.
    pub my_holds: bool,
}

/// The live seat map; see the module docs.
#[derive(Debug, Clone, PartialEq)]
pub struct SeatMapSync {
    board: Board,
    version: Option<i64>,
    /// Early changes, by version ascending, each version once.
    pending: Vec<wire::ChangeEvent>,
    resync: Option<Resync>,
    outputs: VecDeque<Output>,
    clock: ClockSync,
    fallback: Option<ClockOffset>,
    unanchored: Option<ServerMillis>,
    local_now: Option<LocalMillis>,
    now: Option<ServerMillis>,
    my: MyHolds,
    buffer_millis: i64,
    dirty_seats: Vec<usize>,
    dirty_areas: Vec<usize>,
    shown_seats: Vec<Option<SeatView>>,
    shown_areas: Vec<Option<AreaView>>,
    my_holds_changed: bool,
}

impl Default for SeatMapSync {
    fn default() -> Self {
        Self::new()
    }
}

impl SeatMapSync {
    /// Early changes kept while waiting for a missing one.
    pub const MAX_PENDING: usize = 4096;
    /// Uncertainty assumed for the snapshot anchor before any clock sample.
    pub const FALLBACK_UNCERTAINTY_MILLIS: i64 = 2_000;

    /// Empty, with the default countdown buffer.
    pub fn new() -> Self {
        Self::with_buffer(Countdown::DEFAULT_BUFFER_MILLIS)
    }

    /// Empty, with this countdown buffer.
    pub fn with_buffer(buffer_millis: i64) -> Self {
        Self {
            board: Board::default(),
            version: None,
            pending: Vec::new(),
            resync: None,
            outputs: VecDeque::new(),
            clock: ClockSync::new(),
            fallback: None,
            unanchored: None,
            local_now: None,
            now: None,
            my: MyHolds::default(),
            buffer_millis,
            dirty_seats: Vec::new(),
            dirty_areas: Vec::new(),
            shown_seats: Vec::new(),
            shown_areas: Vec::new(),
            my_holds_changed: false,
        }
    }

    /// Takes one input.
    pub fn handle_input(&mut self, input: Input) {
        match input {
            Input::Snapshot(map) => self.snapshot(map),
            Input::Change(event) => self.change(event),
            Input::ClockSample(sample) => {
                self.clock.add(sample);
            }
            Input::MyHolds(bodies) => {
                for seat in self.my.upsert(bodies) {
                    if let Some(at) = self.board.seat_at(&seat) {
                        self.dirty_seats.push(at);
                    }
                }
            }
            Input::Tick(local) => {
                self.local_now = Some(local);
                if let (None, Some(server)) = (self.fallback, self.unanchored.take()) {
                    self.fallback = Some(anchor(server, local));
                }
                if let Some(resync) = &mut self.resync
                    && resync.take_due(local)
                {
                    self.outputs.push_back(Output::ResyncNeeded { last_version: resync.from });
                }
            }
            Input::ResyncFailed { retry_after_millis, jitter_permille } => {
                if let Some(resync) = &mut self.resync {
                    resync.failed(self.local_now, retry_after_millis, jitter_permille);
                }
            }
        }
        self.advance();
    }

    /// The next thing to do: re-syncs first, then when to tick again.
    pub fn poll_output(&mut self) -> Output {
        self.outputs.pop_front().unwrap_or_else(|| Output::Timeout(self.next_timeout()))
    }

    /// The version of the facts shown; `None` before a snapshot.
    pub fn version(&self) -> Option<i64> {
        self.version
    }

    /// The earliest server now consistent with the clock estimate at the
    /// last tick: every state shown derives from it.
    pub fn server_now(&self) -> Option<ServerMillis> {
        self.now
    }

    /// The clock estimate (to schedule samples: [`ClockSync::next_sample_at`]).
    pub fn clock(&self) -> &ClockSync {
        &self.clock
    }

    /// How one seat looks now; `None` for an unknown id. O(log n).
    pub fn seat(&self, id: &str) -> Option<SeatView> {
        self.board.seat_at(id).map(|at| self.seat_view(at))
    }

    /// How the seat at a position of the snapshot's order looks now. O(1).
    pub fn seat_at_position(&self, at: usize) -> Option<(&str, SeatView)> {
        self.board.seats.get(at).map(|entry| (entry.id.as_str(), self.seat_view(at)))
    }

    /// Every seat, in snapshot order.
    pub fn seats(&self) -> impl Iterator<Item = (&str, SeatView)> {
        (0..self.board.seats.len()).map(|at| (self.board.seats[at].id.as_str(), self.seat_view(at)))
    }

    /// How one area looks now; `None` for an unknown id.
    pub fn area(&self, id: &str) -> Option<AreaView> {
        self.board.area_at(id).map(|at| self.area_view(at))
    }

    /// Every area, in snapshot order.
    pub fn areas(&self) -> impl Iterator<Item = (&str, AreaView)> {
        (0..self.board.areas.len()).map(|at| (self.board.areas[at].id.as_str(), self.area_view(at)))
    }

    /// My holds, newest first, with their buffered countdowns.
    pub fn my_holds(&self) -> impl Iterator<Item = MyHoldView<'_>> {
        self.my.views()
    }

    /// What looks different since last asked (first call: everything).
    /// O(what was touched).
    pub fn drain_changed(&mut self) -> Changed {
        self.drain(true)
    }

    /// [`SeatMapSync::drain_changed`] with the seats by position only
    /// (`seats` left empty): a stadium's first map copies no 200,000 ids.
    pub fn drain_changed_positions(&mut self) -> Changed {
        self.drain(false)
    }

    fn drain(&mut self, ids: bool) -> Changed {
        let mut changed = Changed { my_holds: std::mem::take(&mut self.my_holds_changed), ..Changed::default() };
        let mut seats = std::mem::take(&mut self.dirty_seats);
        sort_ascending(&mut seats);
        seats.dedup();
        for at in seats {
            let view = Some(self.seat_view(at));
            if self.shown_seats[at] != view {
                self.shown_seats[at] = view;
                if ids {
                    changed.seats.push(self.board.seats[at].id.clone());
                }
                changed.positions.push(at);
            }
        }
        let mut areas = std::mem::take(&mut self.dirty_areas);
        sort_ascending(&mut areas);
        areas.dedup();
        for at in areas {
            let view = Some(self.area_view(at));
            if self.shown_areas[at] != view {
                self.shown_areas[at] = view;
                changed.areas.push(self.board.areas[at].id.clone());
            }
        }
        changed
    }

    /// The next local instant at which anything visible changes (a
    /// deadline, or a shown second of my countdowns; these need a time
    /// estimate) or a failed re-sync is to be asked for again.
    pub fn next_timeout(&self) -> Option<LocalMillis> {
        let retry = self.resync.as_ref().and_then(Resync::retry_at);
        [self.next_visible_change(), retry].into_iter().flatten().min()
    }

    fn next_visible_change(&self) -> Option<LocalMillis> {
        let now = self.now?;
        let offset = self.offset()?;
        let next = [self.board.next_deadline(now), self.my.next_change(now)].into_iter().flatten().min()?;
        Some(offset.local_at(next))
    }

    /// The clock estimate at its earliest: a round trip's middle can be
    /// late by half the trip, and a seat shown free that early is refused
    /// when picked. The snapshot's anchor is earliest already (its
    /// `serverTime` was read before it arrived).
    fn offset(&self) -> Option<ClockOffset> {
        self.clock.offset().map(ClockOffset::earliest).or(self.fallback)
    }

    /// Every hold counts as unexpired before any estimate of time.
    fn now_or_min(&self) -> ServerMillis {
        self.now.unwrap_or(ServerMillis(i64::MIN))
    }

    fn seat_view(&self, at: usize) -> SeatView {
        let entry = &self.board.seats[at];
        let now = self.now_or_min();
        let state = entry.state(now);
        let mine = state != SeatState::Free && (entry.snapshot_mine || self.my.is_mine(&entry.id, state, now));
        SeatView { state, mine, blocked: entry.blocked }
    }

    fn area_view(&self, at: usize) -> AreaView {
        let entry = &self.board.areas[at];
        AreaView { capacity: entry.capacity, available: entry.available(self.now_or_min()) }
    }

    fn snapshot(&mut self, map: wire::SeatMap) {
        if self.version.is_some_and(|known| map.version < known) {
            return;
        }
        let (server_time, version) = (map.server_time, map.version);
        if !self.board.load(map) {
            self.shown_seats = vec![None; self.board.seats.len()];
            self.shown_areas = vec![None; self.board.areas.len()];
        }
        self.dirty_seats = (0..self.board.seats.len()).collect();
        self.dirty_areas = (0..self.board.areas.len()).collect();
        if self.clock.is_empty() {
            let server = ServerMillis(server_time);
            match self.local_now {
                Some(local) => self.fallback = Some(anchor(server, local)),
                None => self.unanchored = Some(server),
            }
        }
        self.version = Some(version);
        self.pending.retain(|event| event.version > version);
        match &mut self.resync {
            // Not past the gap: as good as a failed fetch.
            Some(resync) if version <= resync.from => resync.failed(self.local_now, None, 0),
            _ => self.resync = None,
        }
        self.catch_up();
    }

    fn change(&mut self, event: wire::ChangeEvent) {
        match self.version {
            Some(known) if event.version <= known => {}
            // A coalesced event follows any version from its `since` on.
            Some(known) if event.follows() <= known => {
                self.apply(&event);
                self.catch_up();
            }
            _ => {
                if self.pending.len() < Self::MAX_PENDING {
                    // A second copy of a waiting version replaces the first.
                    match self.pending.binary_search_by_key(&event.version, |waiting| waiting.version) {
                        Ok(at) => self.pending[at] = event,
                        Err(at) => self.pending.insert(at, event),
                    }
                }
                self.catch_up();
            }
        }
    }

    /// Applies waiting changes that are next in line; asks for a re-sync
    /// when some still wait behind a gap, and forgets it when none do.
    fn catch_up(&mut self) {
        let Some(mut known) = self.version else {
            return;
        };
        // Those at or before `known` can never be next in line.
        self.pending.retain(|event| event.version > known);
        while let Some(event) = self.pending.first().filter(|event| event.follows() <= known) {
            let event = event.clone();
            self.pending.remove(0);
            self.apply(&event);
            known = event.version;
            self.pending.retain(|event| event.version > known);
        }
        if self.pending.is_empty() {
            self.resync = None;
        } else if self.resync.as_ref().is_none_or(|resync| resync.from != known) {
            self.resync = Some(Resync::asked(known));
            self.outputs.push_back(Output::ResyncNeeded { last_version: known });
        }
    }

    fn apply(&mut self, event: &wire::ChangeEvent) {
        // A coalesced event that began before the version shown repeats
        // what the snapshot said of the seats changed in between: a seat it
        // lists as it stands keeps the snapshot's `mine` (as when every
        // change after the snapshot comes one by one).
        let overlaps = self.version.is_some_and(|known| event.follows() < known);
        for fact in &event.seats {
            if overlaps && self.board.seat_at(&fact.id).is_some_and(|at| stands(&self.board.seats[at], fact)) {
                continue;
            }
            if let Some(at) = self.board.update_seat(fact) {
                self.dirty_seats.push(at);
            }
        }
        for fact in &event.areas {
            if let Some(at) = self.board.update_area(fact) {
                self.dirty_areas.push(at);
            }
        }
        self.version = Some(event.version);
    }

    /// Moves to the current estimate of server now, marking what it changes.
    fn advance(&mut self) {
        // Before any tick, the snapshot's own time is the best guess.
        let next = match (self.local_now, self.offset()) {
            (Some(local), Some(offset)) => Some(offset.server_now(local)),
            _ => self.unanchored,
        };
        let from = self.now_or_min();
        if let Some(to) = next.filter(|to| Some(*to) != self.now) {
            for target in self.board.between(from, to) {
                match target {
                    Target::Seat(at) => self.dirty_seats.push(at),
                    Target::Area(at) => self.dirty_areas.push(at),
                }
            }
            self.now = Some(to);
        }
        let uncertainty = self.offset().map_or(0, |o| o.uncertainty_millis);
        let (changed, status_changed) = self.my.refresh(self.now, uncertainty, self.buffer_millis);
        self.my_holds_changed |= changed;
        if status_changed {
            for seat in self.my.claimed_seats() {
                if let Some(at) = self.board.seat_at(seat) {
                    self.dirty_seats.push(at);
                }
            }
        }
    }
}

/// Whether `fact` says what `entry` already shows (`mine` aside). Two
/// holds of a seat never share a deadline in practice (a hold ends its
/// hold time after the millisecond it was made), so the same facts are
/// the same hold.
fn stands(entry: &board::SeatEntry, fact: &wire::SeatFact) -> bool {
    entry.sold == fact.sold
        && entry.hold_expires_at == fact.hold_expires_at.map(ServerMillis)
        && entry.blocked == fact.blocked
}

fn anchor(server: ServerMillis, local: LocalMillis) -> ClockOffset {
    ClockOffset { offset_millis: server.0 - local.0, uncertainty_millis: SeatMapSync::FALLBACK_UNCERTAINTY_MILLIS }
}
