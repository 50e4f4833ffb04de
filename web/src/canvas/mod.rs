//! The canvas map for large venues: no DOM node per seat. A grid index
//! answers what is in view and what is under a pointer ([`grid`]);
//! sections are drawn when zoomed out ([`venue`]), seats when zoomed in,
//! and a change repaints only its rectangle ([`paint`]).

pub mod grid;
pub mod paint;
pub mod surface;
pub mod venue;

/// From this many seats a venue is drawn on a canvas (below, one SVG
/// element per seat). `?map=canvas` or `?map=svg` in the page's address
/// chooses either for any venue.
pub const CANVAS_FROM_SEATS: usize = 50_000;

/// Whether the page draws this many seats on a canvas.
pub fn uses_canvas(seats: usize) -> bool {
    let asked = leptos::prelude::window().location().search().unwrap_or_default();
    if asked.contains("map=canvas") {
        true
    } else if asked.contains("map=svg") {
        false
    } else {
        seats >= CANVAS_FROM_SEATS
    }
}
