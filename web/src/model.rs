//! The seat map's seats and how each looks: plain vectors, not a signal
//! per seat (a stadium's 200,000 signals were a tenth of its page's
//! start). A view that follows a seat (the list's buttons, the canvas's
//! spoken seat) asks for it tracked, and only those seats get a trigger.
//!
//! The cells only mirror answers: what state a seat is in comes from
//! `seat-state`; whether it is selected comes from [`crate::selection`].

use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};

use leptos::prelude::*;
use seat_state::wire::{SeatDefinition, SeatOrder, ShowOffer};
use seat_state::{Access, OrphanRule, Rows, SeatId, ServerMillis};

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

/// One seat: what never changes (how it looks: [`MapModel::look`]).
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
    /// A wheelchair place or a companion seat (kept for customers who ask
    /// for them until the show releases them).
    pub access: Option<Access>,
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
    /// How each seat looks, by index.
    looks: Mutex<Vec<SeatLook>>,
    /// The seats a view follows, each with what tells it of a change.
    /// (A vector: a few dozen at most, and less wasm than a second map.)
    watched: Mutex<Vec<(usize, ArcTrigger)>>,
    /// The seats' ids by position, which compact maps and changes name
    /// seats by: also the model's index of ids (one, not two, 200,000 long).
    pub order: SeatOrder,
    pub layout: Layout,
    /// The seats by section and row, for the list picker.
    pub sections: Vec<ListSection>,
    /// The venue's sections as the definition names them (seats without
    /// one form a section of their own), and each seat's: what a canvas
    /// map draws when zoomed out.
    pub venue_sections: Vec<String>,
    pub section_of: Vec<u32>,
    /// The show's price categories, in its order.
    pub categories: Vec<Category>,
    /// The seats by row (model indices), for the orphan rule (none without it).
    pub rows: Rows,
    /// Whether a hold may leave a single seat alone in its row.
    pub orphan_rule: OrphanRule,
    /// From when access seats are for everyone (`None`: never).
    pub access_release_at: Option<ServerMillis>,
    /// What unlocks kept seats for this customer.
    offered: Offered,
    /// The map's repaint, while it is drawn: one call per changed seat
    /// instead of a render effect per seat (20,000 of them on an arena).
    painter: Painter,
}

/// What offers this customer seats kept for some: a channel's code was
/// entered; they asked for wheelchair places; the show released its
/// access seats.
#[derive(Debug, Default)]
struct Offered {
    code: AtomicBool,
    access: AtomicBool,
    released: AtomicBool,
}

impl MapModel {
    /// Cells for the seats of a show definition, all free until told
    /// otherwise, with the box office's categories, channels and access
    /// seats (locked until a code is entered, or access asked for or
    /// released), rows and orphan rule.
    pub fn new(definitions: &[SeatDefinition], offer: &ShowOffer, order: SeatOrder) -> Arc<Self> {
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
        let mut looks = vec![SeatLook::FREE; definitions.len()];
        if let Some(look) = first.and_then(|at| looks.get_mut(at)) {
            look.tab_stop = true;
        }
        let mut last_category = 0;
        let mut seats: Vec<SeatCell> = definitions
            .iter()
            .enumerate()
            .map(|(index, seat)| SeatCell {
                id: seat.id.clone(),
                label: seat.label.clone().unwrap_or_else(|| seat.id.clone()),
                x: seat.x,
                y: seat.y,
                category: seat.category.as_deref().and_then(|id| category_of(&categories, &mut last_category, id)),
                channel: false,
                access: offer.seats.get(index).and_then(access_of),
            })
            .collect();
        for (cell, look) in seats.iter().zip(&mut looks) {
            if cell.access.is_some() {
                (look.access, look.locked) = (true, true);
            }
        }
        // A channel's seats are locked until a code is entered.
        for seat_id in offer.channels.iter().flat_map(|channel| &channel.seats) {
            if let Some(at) = order.position(seat_id).map(|at| at as usize).filter(|&at| at < seats.len()) {
                seats[at].channel = true;
                looks[at].locked = true;
            }
        }
        let (venue_sections, section_of) = venue_sections(offer, definitions.len());
        // The list's sections: a price category's name; in a venue drawn on
        // the canvas (sections first), the venue's own sections, which keep
        // a stadium's list to a few dozen rows a step instead of thousands.
        let by_venue_section = definitions.len() >= crate::canvas::CANVAS_FROM_SEATS && venue_sections.len() > 1;
        let titles: Vec<String> = if by_venue_section {
            venue_sections
                .iter()
                .map(|name| if name == "Seats" { name.clone() } else { format!("Section {name}") })
                .collect()
        } else {
            Vec::new()
        };
        let sections = sections(seats.iter().zip(&section_of).map(|(cell, &section)| {
            let group = if by_venue_section {
                titles.get(section as usize).map(String::as_str)
            } else {
                cell.category.and_then(|at| categories.get(at)).map(|category| category.name.as_str())
            };
            (cell.label.as_str(), group)
        }));
        let orphan_rule = offer.orphan_rule.as_deref().and_then(OrphanRule::parse).unwrap_or_default();
        // Only the orphan rule looks at rows: an arena without it does not pay for sorting them.
        let rows = if orphan_rule == OrphanRule::Off {
            Rows::default()
        } else {
            Rows::new((0..definitions.len()).map(|at| offer.seats.get(at).and_then(|p| p.place())))
        };
        Arc::new(Self {
            seats,
            looks: Mutex::new(looks),
            watched: Mutex::default(),
            order,
            layout,
            sections,
            venue_sections,
            section_of,
            categories,
            rows,
            orphan_rule,
            access_release_at: offer.access_release_at.map(ServerMillis),
            offered: Offered::default(),
            painter: Painter::default(),
        })
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

    /// Offers the channel seats (a code was entered: the server checks it
    /// when a hold carries it) or locks them again.
    pub fn offer_channel_seats(&self, offered: bool) {
        self.offered.code.store(offered, Ordering::Relaxed);
        self.relock();
    }

    /// Offers the access seats (the customer asked for wheelchair places:
    /// holds carry `access`) or locks them again, unless released.
    pub fn offer_access_seats(&self, asked: bool) {
        self.offered.access.store(asked, Ordering::Relaxed);
        self.relock();
    }

    /// Whether the customer asked for wheelchair places.
    pub fn asks_access(&self) -> bool {
        self.offered.access.load(Ordering::Relaxed)
    }

    /// Unlocks the access seats for everyone once the server's clock reads
    /// `now` at or after the show's release (`seat-state`'s rule).
    pub fn release_at(&self, now: ServerMillis) {
        let released = seat_state::access::may_take(true, false, self.access_release_at, now);
        if self.offered.released.swap(released, Ordering::Relaxed) != released {
            self.relock();
        }
    }

    /// Whether any seat is a wheelchair place or a companion seat.
    pub fn has_access_seats(&self) -> bool {
        self.seats.iter().any(|cell| cell.access.is_some())
    }

    /// Locks each kept seat that nothing offers this customer.
    fn relock(&self) {
        let offered = |flag: &AtomicBool| flag.load(Ordering::Relaxed);
        let code = offered(&self.offered.code);
        let access = offered(&self.offered.access) || offered(&self.offered.released);
        for (index, cell) in self.seats.iter().enumerate() {
            if cell.channel || cell.access.is_some() {
                let locked = (cell.channel && !code) || (cell.access.is_some() && !access);
                self.update(index, |look| look.locked = locked);
            }
        }
    }

    /// Whether seat `at` is free for a hold this customer would send now
    /// (tracked: a view reading it follows the seat): free, not blocked,
    /// not kept from them. What the orphan rule counts as free.
    pub fn free_for_me(&self, at: usize) -> bool {
        let look = self.look_tracked(at);
        at < self.seats.len() && look.state == seat_state::SeatState::Free && !look.blocked && !look.locked
    }

    /// The index of a seat id.
    pub fn find(&self, seat_id: &str) -> Option<usize> {
        self.order.position(seat_id).map(|at| at as usize)
    }

    /// The current look of a seat (without tracking).
    pub fn look(&self, index: usize) -> Option<SeatLook> {
        self.looks.lock().ok()?.get(index).copied()
    }

    /// The current look of a seat (free for an unknown one), tracked: the
    /// view reading it runs again when it changes.
    pub fn look_tracked(&self, index: usize) -> SeatLook {
        if let Ok(mut watched) = self.watched.lock() {
            match watched.iter().find(|(at, _)| *at == index) {
                Some((_, trigger)) => trigger.track(),
                None => {
                    let trigger = ArcTrigger::new();
                    trigger.track();
                    watched.push((index, trigger));
                }
            }
        }
        self.look(index).unwrap_or(SeatLook::FREE)
    }

    /// Changes one seat's look, notifying only when something differs.
    pub fn update(&self, index: usize, change: impl FnOnce(&mut SeatLook)) {
        let Some(seat) = self.seats.get(index) else {
            return;
        };
        let changed = self.looks.lock().ok().and_then(|mut looks| {
            let slot = looks.get_mut(index)?;
            let old = *slot;
            change(slot);
            (*slot != old).then_some((old, *slot))
        });
        if let Some((old, look)) = changed {
            // Told with no lock held: what runs may read looks again.
            let trigger =
                self.watched.lock().ok().and_then(|watched| {
                    watched.iter().find(|(at, _)| *at == index).map(|(_, trigger)| trigger.clone())
                });
            if let Some(trigger) = trigger {
                trigger.notify();
            }
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

    /// Sets the state, ownership and block of the seat at `at` as
    /// `seat-state` answered them.
    pub fn set_state_at(&self, at: usize, view: seat_state::SeatView) {
        self.update(at, |look| {
            look.state = view.state;
            look.mine = view.mine;
            look.blocked = view.blocked;
        });
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

/// A category's index by its id, the one found last tried first (seats
/// of a category mostly come together).
fn category_of(categories: &[Category], last: &mut usize, id: &str) -> Option<usize> {
    if categories.get(*last).is_none_or(|c| c.id != id) {
        *last = categories.iter().position(|c| c.id == id)?;
    }
    Some(*last)
}

/// The sections the definition names, in the order they first come, and
/// each seat's (those without one share a last section, "Seats").
fn venue_sections(offer: &ShowOffer, seats: usize) -> (Vec<String>, Vec<u32>) {
    let mut names: Vec<String> = Vec::new();
    let mut known: HashMap<&str, u32> = HashMap::new();
    let mut last: Option<(&str, u32)> = None;
    let of = (0..seats)
        .map(|at| {
            let name = offer.seats.get(at).and_then(|place| place.section.as_deref()).unwrap_or("Seats");
            // A section's seats come together: no hashing of each seat's name.
            if let Some((last_name, section)) = last
                && last_name == name
            {
                return section;
            }
            let section = *known.entry(name).or_insert_with(|| {
                names.push(name.to_owned());
                (names.len() - 1) as u32
            });
            last = Some((name, section));
            section
        })
        .collect();
    (names, of)
}

/// A seat's access from the definition (a companion whose wheelchair place
/// is not a valid id is read as a plain seat: the server checked them).
fn access_of(place: &seat_state::wire::SeatPlace) -> Option<Access> {
    match (place.access.as_deref(), place.companion_of.as_deref()) {
        (Some("wheelchair"), _) => Some(Access::Wheelchair),
        (Some("companion"), Some(of)) => SeatId::parse(of).ok().map(|of| Access::Companion { of }),
        _ => None,
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
