//! The seat map's reactive cells: one signal per seat, so a change to one
//! seat re-renders that seat and nothing else.
//!
//! The cells only mirror answers: what state a seat is in comes from
//! `seat-state`; whether it is selected comes from [`crate::selection`].

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use leptos::prelude::*;
use seat_state::wire::{SeatDefinition, ShowOffer};

use crate::layout::Layout;
use crate::seat_list::{ListSection, sections};

/// How one seat looks (`seat-state`'s, which the server's picture of the map uses too).
pub use seat_state::drawing::SeatLook;

/// A price category as the legend and the hold panel show it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Category {
    pub id: String,
    pub name: String,
    /// Minor units of `currency`.
    pub price: i64,
    pub currency: String,
    /// `#rrggbb` (checked by the server).
    pub color: String,
    /// The price as the browser formats it: "€45.00".
    pub price_text: String,
}

/// One seat: what never changes, and a signal for what does.
#[derive(Debug, Clone)]
pub struct SeatCell {
    pub id: String,
    /// "Row B, seat 7".
    pub label: String,
    pub x: f64,
    pub y: f64,
    /// Index of its price category in [`MapModel::categories`].
    pub category: Option<usize>,
    /// Kept for a sales channel (its code unlocks it).
    pub channel: bool,
    pub look: RwSignal<SeatLook>,
}

/// Repaints the element of the seat at an index (with its cell) from one
/// look to another.
pub type Paint = Box<dyn Fn(usize, &SeatCell, SeatLook, SeatLook) + Send + Sync>;

/// What the drawn map registers so that a changed look repaints its seat.
#[derive(Default)]
struct Painter(Mutex<Option<Paint>>);

impl std::fmt::Debug for Painter {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Painter")
    }
}

/// Every seat of a show, their keyboard order and the map's bounds.
#[derive(Debug)]
pub struct MapModel {
    pub seats: Vec<SeatCell>,
    index: HashMap<String, usize>,
    pub layout: Layout,
    /// The seats by section and row, for the list picker.
    pub sections: Vec<ListSection>,
    /// The show's price categories, in its order.
    pub categories: Vec<Category>,
    /// The map's repaint, while it is drawn: one call per changed seat
    /// instead of a render effect per seat (20,000 of them on an arena).
    painter: Painter,
}

impl MapModel {
    /// Cells for the seats of a show definition, all free until told
    /// otherwise, with the box office's categories and channels (channel
    /// seats locked until a code is entered).
    pub fn new(definitions: &[SeatDefinition], offer: &ShowOffer) -> Arc<Self> {
        let categories: Vec<Category> = offer
            .categories
            .iter()
            .map(|c| Category {
                id: c.id.clone(),
                name: c.name.clone(),
                price: c.price,
                currency: c.currency.clone(),
                color: c.color.clone(),
                price_text: crate::price::format(c.price, &c.currency),
            })
            .collect();

        let layout = Layout::new(
            definitions.iter().map(|seat| (seat.x, seat.y, seat.label.as_deref().unwrap_or(seat.id.as_str()))),
        );
        let first = layout.first();
        let mut seats: Vec<SeatCell> = definitions
            .iter()
            .enumerate()
            .map(|(index, seat)| SeatCell {
                id: seat.id.clone(),
                label: seat.label.clone().unwrap_or_else(|| seat.id.clone()),
                x: seat.x,
                y: seat.y,
                category: seat.category.as_deref().and_then(|id| categories.iter().position(|c| c.id == id)),
                channel: false,
                look: RwSignal::new(SeatLook { tab_stop: Some(index) == first, ..SeatLook::FREE }),
            })
            .collect();
        let index: HashMap<String, usize> = seats.iter().enumerate().map(|(at, seat)| (seat.id.clone(), at)).collect();
        // A channel's seats are locked until a code is entered.
        for seat_id in offer.channels.iter().flat_map(|channel| &channel.seats) {
            if let Some(cell) = index.get(seat_id).and_then(|&at| seats.get_mut(at)) {
                cell.channel = true;
                cell.look.update_untracked(|look| look.locked = true);
            }
        }
        let sections =
            sections(seats.iter().zip(definitions).map(|(cell, seat)| (cell.label.as_str(), seat.category.as_deref())));
        Arc::new(Self { seats, index, layout, sections, categories, painter: Painter::default() })
    }

    /// The radius of a seat's shape, in map units.
    pub fn radius(&self) -> f64 {
        seat_state::drawing::radius(self.layout.pitch())
    }

    /// The price of these seats, formatted, when every one has a price in
    /// one currency (`None` otherwise, or for no seats).
    pub fn total(&self, seat_ids: &[String]) -> Option<String> {
        let mut currency: Option<&str> = None;
        let mut sum = 0_i64;
        for seat_id in seat_ids {
            let category = &self.categories[self.seats[self.find(seat_id)?].category?];
            if currency.is_some_and(|c| c != category.currency) {
                return None;
            }
            currency = Some(&category.currency);
            sum = sum.checked_add(category.price)?;
        }
        currency.map(|currency| crate::price::format(sum, currency))
    }

    /// Locks the channel seats (no code entered) or unlocks them (a code
    /// was entered: the server checks it when a hold carries it).
    pub fn lock_channel_seats(&self, locked: bool) {
        for (index, cell) in self.seats.iter().enumerate() {
            if cell.channel {
                self.update(index, |look| look.locked = locked);
            }
        }
    }

    /// The index of a seat id.
    pub fn find(&self, seat_id: &str) -> Option<usize> {
        self.index.get(seat_id).copied()
    }

    /// The current look of a seat (without tracking).
    pub fn look(&self, index: usize) -> Option<SeatLook> {
        self.seats.get(index).map(|seat| seat.look.get_untracked())
    }

    /// Changes one seat's look, notifying only when something differs.
    pub fn update(&self, index: usize, change: impl FnOnce(&mut SeatLook)) {
        let Some(seat) = self.seats.get(index) else {
            return;
        };
        let old = seat.look.get_untracked();
        let mut look = old;
        change(&mut look);
        if look != old {
            seat.look.set(look);
            if let Ok(painter) = self.painter.0.lock()
                && let Some(paint) = painter.as_ref()
            {
                paint(index, seat, old, look);
            }
        }
    }

    /// Sets (or with `None` removes) what repaints a seat whose look
    /// changed: the drawn map's seat elements.
    pub fn set_painter(&self, paint: Option<Paint>) {
        if let Ok(mut painter) = self.painter.0.lock() {
            *painter = paint;
        }
    }

    /// A seat's name for sentences: "Row B, seat 8 (B8)" (the id, as printed
    /// on tickets, only when the label is not the id itself).
    pub fn spoken(&self, seat_id: &str) -> String {
        match self.find(seat_id).map(|at| self.seats[at].label.as_str()) {
            Some(label) if label != seat_id => format!("{label} ({seat_id})"),
            _ => seat_id.to_owned(),
        }
    }

    /// Sets a seat's state, ownership and block as `seat-state` answered them.
    pub fn set_state(&self, seat_id: &str, view: seat_state::SeatView) {
        if let Some(index) = self.find(seat_id) {
            self.update(index, |look| {
                look.state = view.state;
                look.mine = view.mine;
                look.blocked = view.blocked;
            });
        }
    }

    /// Marks a seat picked or not.
    pub fn set_selected(&self, seat_id: &str, selected: bool) {
        if let Some(index) = self.find(seat_id) {
            self.update(index, |look| look.selected = selected);
        }
    }

    /// Moves the roving tab stop from one seat to another.
    pub fn move_tab_stop(&self, from: usize, to: usize) {
        if from != to {
            self.update(from, |look| look.tab_stop = false);
            self.update(to, |look| look.tab_stop = true);
        }
    }
}

/// A general-admission area: its name and how many places are left.
#[derive(Debug, Clone)]
pub struct AreaCell {
    pub id: String,
    pub name: String,
    /// Places a new hold could take now, as `seat-state` answers.
    pub available: RwSignal<u32>,
}
