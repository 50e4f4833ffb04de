//! The seat map as markup, written once for the browser and the server: the
//! web app draws its live map with it, and the server draws the same map as
//! a picture inside a show page's HTML, so the seats are on screen before
//! the app and the show's data have arrived ([`picture`]).
//!
//! Pure string building: no DOM, no I/O.

pub mod decimal;
pub mod layout;
pub mod picture;
pub mod shape;

use crate::SeatState;

/// Everything that decides how one seat looks.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SeatLook {
    /// Free, held or sold, as `seat-state` derives it.
    pub state: SeatState,
    /// Held or bought by this customer.
    pub mine: bool,
    /// Picked for the next hold.
    pub selected: bool,
    /// The one seat Tab lands on (roving tab stop).
    pub tab_stop: bool,
    /// Kept for a sales channel and no code was entered: not on offer to
    /// this customer, whatever its state.
    pub locked: bool,
    /// The box office blocked it: not on offer to anyone.
    pub blocked: bool,
    /// A wheelchair place or a companion seat (kept for requests that ask
    /// for access until the show releases them: then also `locked`).
    pub access: bool,
}

impl SeatLook {
    /// A free seat, not picked.
    pub const FREE: Self = Self {
        state: SeatState::Free,
        mine: false,
        selected: false,
        tab_stop: false,
        locked: false,
        blocked: false,
        access: false,
    };

    /// Whether a click may pick (or unpick) the seat.
    pub fn usable(self) -> bool {
        (self.state == SeatState::Free && !self.locked && !self.blocked) || self.selected
    }
}

/// A seat's shape radius in map units, from the usual distance between
/// neighbours in a row ([`layout::Layout::pitch`]).
pub fn radius(pitch: f64) -> f64 {
    (pitch * 0.4).clamp(2.0, 14.0)
}
