//! Drives `seat-state`'s sans-io [`SeatMapSync`] in the browser: feeds it
//! what arrives, copies what it answers into the per-seat signals, and keeps
//! one timer set for the next instant anything visible changes.
//!
//! Nothing here decides a seat's state: the machine does. Each input is
//! preceded by a `Tick` with the local clock, and after each input only the
//! seats the machine reports as changed are touched.

use std::collections::HashMap;
use std::sync::Arc;

use gloo_timers::callback::Timeout;
use leptos::prelude::*;
use seat_state::sync::{Input, Output};
use seat_state::wire::{CompactChange, CompactError, CompactMap, SeatOrder, ShowDefinition, ShowOffer};
use seat_state::{Countdown, CountdownView, HoldStatus, LocalMillis, SeatMapSync, SeatState};

use crate::hold::HoldSummary;
use crate::model::{AreaCell, MapModel};
use crate::selection::Selection;
use crate::words;

/// The signals the map's components render.
#[derive(Debug, Clone, Copy)]
pub struct Shown {
    /// The hold the panel shows, if any.
    pub hold: RwSignal<Option<HoldSummary>>,
    /// Its countdown, while it is held.
    pub countdown: RwSignal<Option<CountdownView>>,
    /// The places picked for the next hold.
    pub selection: RwSignal<Selection>,
    /// The urgent sentence (`role="alert"`).
    pub alert: RwSignal<Option<String>>,
    /// How many of my holds are active now.
    pub active_holds: RwSignal<u32>,
}

impl Shown {
    /// Fresh signals for a show allowing `max_places` per hold.
    pub fn new(max_places: u32) -> Self {
        Self {
            hold: RwSignal::new(None),
            countdown: RwSignal::new(None),
            selection: RwSignal::new(Selection::new(max_places)),
            alert: RwSignal::new(None),
            active_holds: RwSignal::new(0),
        }
    }
}

/// The show's seats in definition order with their channel and access:
/// what compact seat maps and changes name seats by (and leave out).
pub fn seat_order(show: &ShowDefinition, offer: &ShowOffer) -> SeatOrder {
    let mut channels: Vec<Option<String>> = vec![None; show.seats.len()];
    if !offer.channels.is_empty() {
        // The map's own kind of index (`MapModel`'s), not one more in the wasm.
        let index: HashMap<String, usize> =
            show.seats.iter().enumerate().map(|(at, seat)| (seat.id.clone(), at)).collect();
        for channel in &offer.channels {
            for at in channel.seats.iter().filter_map(|seat| index.get(seat)) {
                channels[*at] = Some(channel.id.clone());
            }
        }
    }
    SeatOrder::new(show.seats.iter().zip(channels).enumerate().map(|(at, (seat, channel))| {
        (seat.id.clone(), channel, offer.seats.get(at).and_then(|place| place.access.clone()))
    }))
}

/// The machine and what mirrors it.
pub struct LiveMap {
    sync: SeatMapSync,
    /// The show on screen: only my holds of this show count here.
    show_id: String,
    model: Arc<MapModel>,
    areas: Vec<AreaCell>,
    shown: Shown,
    /// How many extensions a hold may have.
    max_extensions: i64,
    /// The hold the panel follows (set when made or found on load).
    focus: Option<String>,
    /// Seats of a hold request under way: when they turn held, that is
    /// (most likely) this customer's own hold, not someone else's.
    in_flight: Vec<String>,
    local_now: fn() -> LocalMillis,
    /// Asked for when the machine misses a change (and again when a failed
    /// fetch's back-off ends): fetch a snapshot.
    on_resync: Box<dyn Fn(StoredValue<LiveMap, LocalStorage>)>,
    timer: Option<Timeout>,
    this: Option<StoredValue<LiveMap, LocalStorage>>,
}

impl LiveMap {
    /// A machine for `show`'s seats in `model` (in its order, [`seat_order`]);
    /// `local_now` is the local clock (a fake one in tests).
    pub fn create(
        model: Arc<MapModel>,
        areas: Vec<AreaCell>,
        shown: Shown,
        show: &ShowDefinition,
        local_now: fn() -> LocalMillis,
        on_resync: impl Fn(StoredValue<LiveMap, LocalStorage>) + 'static,
    ) -> StoredValue<LiveMap, LocalStorage> {
        let handle = StoredValue::new_local(Self {
            sync: SeatMapSync::with_buffer(Countdown::buffer_for_hold(show.hold_seconds)),
            show_id: show.id.clone(),
            model,
            areas,
            shown,
            max_extensions: show.max_extensions,
            focus: None,
            in_flight: Vec::new(),
            local_now,
            on_resync: Box::new(on_resync),
            timer: None,
            this: None,
        });
        handle.update_value(|live| live.this = Some(handle));
        handle
    }

    /// Takes one input (with the local time first) and shows its effects.
    pub fn feed(&mut self, input: Input) {
        self.sync.handle_input(Input::Tick((self.local_now)()));
        self.sync.handle_input(self.for_this_show(input));
        self.flush();
    }

    /// Takes several inputs, then shows their effects once.
    pub fn feed_all(&mut self, inputs: impl IntoIterator<Item = Input>) {
        self.sync.handle_input(Input::Tick((self.local_now)()));
        for input in inputs {
            self.sync.handle_input(self.for_this_show(input));
        }
        self.flush();
    }

    /// The machine's input for a seat map fetched or streamed, the one
    /// way every map of the show comes in: decoded by position with the
    /// show's seat order, every seat it leaves out (only the seats taken
    /// are listed) free. An error: the map does not fit the show.
    pub fn snapshot(&self, map: &CompactMap) -> Result<Input, CompactError> {
        Ok(Input::Snapshot(map.decode_every(&self.model.order)?))
    }

    /// Takes a seat map fetched or streamed (see [`LiveMap::snapshot`]).
    pub fn feed_map(&mut self, map: &CompactMap) -> Result<(), CompactError> {
        let input = self.snapshot(map)?;
        self.feed(input);
        Ok(())
    }

    /// Takes a streamed change (one or several, coalesced). An error: it
    /// does not fit the show, nothing was taken.
    pub fn feed_change(&mut self, change: &CompactChange) -> Result<(), CompactError> {
        let input = Input::Change(change.decode(&self.model.order)?);
        self.feed(input);
        Ok(())
    }

    /// Drops my holds of other shows (`GET /api/holds` lists them all): the
    /// hold limit counts per show, and seat ids repeat across shows.
    fn for_this_show(&self, input: Input) -> Input {
        match input {
            Input::MyHolds(holds) => {
                Input::MyHolds(holds.into_iter().filter(|hold| hold.show_id == self.show_id).collect())
            }
            other => other,
        }
    }

    /// The timer fired (or the caller wants the map brought up to now).
    pub fn tick(&mut self) {
        self.sync.handle_input(Input::Tick((self.local_now)()));
        self.flush();
    }

    /// Follows this hold in the panel (`None`: show no hold).
    pub fn focus(&mut self, hold_id: Option<String>) {
        self.focus = hold_id;
        self.show_holds();
    }

    /// Follows the newest active hold, if any (after a reload).
    pub fn focus_newest_active(&mut self) {
        self.focus =
            self.sync.my_holds().find(|view| view.status == HoldStatus::Held).map(|view| view.hold.hold_id.clone());
        self.show_holds();
    }

    /// Marks the seats of a hold request under way (empty: none).
    pub fn set_in_flight(&mut self, seats: Vec<String>) {
        self.in_flight = seats;
    }

    /// The hold the panel follows.
    pub fn focused(&self) -> Option<String> {
        self.focus.clone()
    }

    /// How a seat looks now, as the machine answers.
    pub fn seat_state(&self, seat_id: &str) -> Option<SeatState> {
        self.sync.seat(seat_id).map(|view| view.state)
    }

    /// Places a new hold could take in an area now.
    pub fn available(&self, area_id: &str) -> u32 {
        self.sync.area(area_id).map_or(0, |view| view.available)
    }

    /// The version of the facts shown.
    pub fn version(&self) -> Option<i64> {
        self.sync.version()
    }

    /// When the clock should be sampled next (local time; `None`: now).
    pub fn next_clock_sample(&self) -> Option<LocalMillis> {
        self.sync.clock().next_sample_at()
    }

    fn flush(&mut self) {
        let changed = self.sync.drain_changed_positions();
        let mut taken = Vec::new();
        for &at in &changed.positions {
            let Some((seat_id, view)) = self.sync.seat_at_position(at) else {
                continue;
            };
            // Every map is decoded in the model's order (`snapshot`), so the
            // machine's positions are the model's: no lookup by id (a
            // stadium's first map changes 200,000 seats).
            self.model.set_state_at(at, view);
            if (view.state != SeatState::Free || view.blocked) && !self.in_flight.iter().any(|id| id == seat_id) {
                taken.push(seat_id.to_owned());
            }
        }
        if !taken.is_empty() {
            self.unpick_taken(&taken);
        }
        for area_id in &changed.areas {
            let available = self.available(area_id);
            if let Some(cell) = self.areas.iter().find(|cell| &cell.id == area_id)
                && cell.available.get_untracked() != available
            {
                cell.available.set(available);
            }
        }
        if changed.my_holds || !changed.positions.is_empty() {
            self.show_holds();
        }
        if self.model.access_release_at.is_some()
            && let Some(now) = self.sync.server_now()
        {
            self.model.release_at(now);
        }
        self.schedule();
    }

    /// Unpicks picked seats that someone else just took, and says so.
    fn unpick_taken(&self, taken: &[String]) {
        let mut removed = Vec::new();
        self.shown.selection.update(|selection| removed = selection.remove_seats(taken));
        if removed.is_empty() {
            return;
        }
        for seat_id in &removed {
            self.model.set_selected(seat_id, false);
        }
        let names: Vec<String> = removed.iter().map(|seat_id| self.model.spoken(seat_id)).collect();
        self.shown.alert.set(Some(words::taken(&names)));
    }

    fn show_holds(&self) {
        let active = self.sync.my_holds().filter(|view| view.status == HoldStatus::Held).count();
        let active = u32::try_from(active).unwrap_or(u32::MAX);
        if self.shown.active_holds.get_untracked() != active {
            self.shown.active_holds.set(active);
        }
        let focused = self.focus.as_deref().and_then(|id| self.sync.my_holds().find(|view| view.hold.hold_id == id));
        let (summary, countdown) = match focused {
            Some(view) if view.status != HoldStatus::Released => {
                let summary = HoldSummary {
                    places: self.describe(&view.hold.seats, &view.hold.areas),
                    expires_at: seat_state::ServerMillis(view.hold.expires_at),
                    extensions_left: view.hold.extensions_left(self.max_extensions),
                    status: view.status,
                    total: if view.hold.areas.is_empty() { self.model.total(&view.hold.seats) } else { None },
                };
                (Some(summary), view.countdown.cloned())
            }
            _ => (None, None),
        };
        if self.shown.hold.with_untracked(|old| old != &summary) {
            self.shown.hold.set(summary);
        }
        if self.shown.countdown.with_untracked(|old| old != &countdown) {
            self.shown.countdown.set(countdown);
        }
    }

    /// "Row B, seat 7, Row B, seat 8 and Standing × 2".
    fn describe(&self, seats: &[String], areas: &seat_state::wire::AreaMap<i64>) -> String {
        let mut names: Vec<String> = seats
            .iter()
            .map(|id| self.model.find(id).map_or_else(|| id.clone(), |at| self.model.seats[at].label.clone()))
            .collect();
        for (area_id, quantity) in areas {
            let name =
                self.areas.iter().find(|cell| &cell.id == area_id).map_or(area_id.as_str(), |cell| cell.name.as_str());
            names.push(format!("{name} × {quantity}"));
        }
        words::list(&names)
    }

    /// Answers the machine's requests: a re-sync at once, and one timer
    /// for the next instant anything visible changes or a failed re-sync
    /// is due again.
    fn schedule(&mut self) {
        let wake_at = loop {
            match self.sync.poll_output() {
                Output::ResyncNeeded { .. } => {
                    if let Some(this) = self.this {
                        (self.on_resync)(this);
                    }
                }
                Output::Timeout(at) => break at,
            }
        };
        // Also wake when the show releases its access seats, if still ahead.
        let release =
            self.model.access_release_at.filter(|&release| self.sync.server_now().is_some_and(|now| now < release));
        let release = release.and_then(|release| Some(self.sync.clock().offset()?.local_at(release)));
        let wake_at = match (wake_at, release) {
            (Some(at), Some(release)) => Some(at.min(release)),
            (at, release) => at.or(release),
        };
        self.timer = wake_at.and_then(|at| {
            let this = self.this?;
            let delay = (at.0 - (self.local_now)().0).clamp(0, i64::from(i32::MAX));
            // Never wake before the instant: a timer may fire a little early.
            let delay = u32::try_from(delay).unwrap_or(u32::MAX).saturating_add(1);
            Some(Timeout::new(delay, move || {
                this.try_update_value(LiveMap::tick);
            }))
        });
    }
}
