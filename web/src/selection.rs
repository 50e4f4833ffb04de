//! What the customer has picked but not yet held.
//!
//! A plain value: seats in the order they were picked and a quantity per
//! general-admission area, never more places than `maxSeatsPerHold`.

use seat_state::wire::{AreaMap, HoldRequestBody, RequestedQuantity};

/// What a click on a seat did.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Toggle {
    /// The seat is now selected.
    Added,
    /// The seat is no longer selected.
    Removed,
    /// The selection is full; nothing changed.
    OverLimit,
    /// The seat is held or sold; nothing changed.
    Unavailable,
}

/// The places picked for the next hold.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Selection {
    seats: Vec<String>,
    /// Quantity per area, none zero.
    areas: AreaMap<u32>,
    max_places: u32,
}

impl Selection {
    /// An empty selection allowing at most `max_places` places.
    pub fn new(max_places: u32) -> Self {
        Self { seats: Vec::new(), areas: AreaMap::new(), max_places }
    }

    /// The most places one hold may take.
    pub fn max_places(&self) -> u32 {
        self.max_places
    }

    /// Seats plus area quantities.
    pub fn places(&self) -> u32 {
        self.seats.len() as u32 + self.areas.values().sum::<u32>()
    }

    /// Whether nothing is picked.
    pub fn is_empty(&self) -> bool {
        self.places() == 0
    }

    /// The picked seats, in the order they were picked.
    pub fn seats(&self) -> &[String] {
        &self.seats
    }

    /// Whether `seat` is picked.
    pub fn contains(&self, seat: &str) -> bool {
        self.seats.iter().any(|picked| picked == seat)
    }

    /// How many places of `area` are picked.
    pub fn quantity(&self, area: &str) -> u32 {
        self.areas.get(area).copied().unwrap_or(0)
    }

    /// Picks or unpicks a seat; only an available seat can be picked, and
    /// only while there is room.
    pub fn toggle(&mut self, seat: &str, available: bool) -> Toggle {
        if let Some(at) = self.seats.iter().position(|picked| picked == seat) {
            self.seats.remove(at);
            Toggle::Removed
        } else if !available {
            Toggle::Unavailable
        } else if self.places() >= self.max_places {
            Toggle::OverLimit
        } else {
            self.seats.push(seat.to_owned());
            Toggle::Added
        }
    }

    /// Sets how many places of `area` are picked, up to `available` and the
    /// hold's limit. Returns the quantity set and whether the limit of
    /// places per hold cut it down.
    pub fn set_quantity(&mut self, area: &str, wanted: u32, available: u32) -> (u32, bool) {
        let others = self.places() - self.quantity(area);
        let room = self.max_places.saturating_sub(others);
        let quantity = wanted.min(available).min(room);
        if quantity == 0 {
            self.areas.remove(area);
        } else {
            self.areas.insert(area.to_owned(), quantity);
        }
        (quantity, wanted.min(available) > room)
    }

    /// Unpicks the given seats and keeps the rest; returns those that were picked.
    pub fn remove_seats(&mut self, seats: &[String]) -> Vec<String> {
        let removed: Vec<String> = self.seats.iter().filter(|picked| seats.contains(picked)).cloned().collect();
        self.seats.retain(|picked| !seats.contains(picked));
        removed
    }

    /// Unpicks everything.
    pub fn clear(&mut self) {
        self.seats.clear();
        self.areas = AreaMap::new();
    }

    /// The body of `POST /api/shows/{id}/holds` for this selection.
    pub fn to_request(&self, hold_id: &str) -> HoldRequestBody {
        let areas =
            self.areas.iter().map(|(area, quantity)| (area.clone(), RequestedQuantity::Integer(i64::from(*quantity))));
        let areas = areas.collect();
        HoldRequestBody { hold_id: Some(hold_id.to_owned()), seats: self.seats.clone(), areas }
    }
}
