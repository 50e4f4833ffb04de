use leptos::prelude::*;
use seat_state::SeatState;

use crate::decimal::Dec;
use crate::model::{SeatCell, SeatLook};
use crate::words;

/// The path of a seat's shape. Shapes differ by state, not only colour:
/// available is a ring, held a square, sold a ring crossed out, a picked
/// seat a disc with a tick, and the customer's own a square with a tick.
pub fn shape(look: SeatLook, x: f64, y: f64, r: f64) -> String {
    let (x, y, d) = (Dec(x), Dec(y), |v: f64| Dec(v * r));
    let ring = format!(
        "M{},{y}m{},0a{},{} 0 1,0 {},0a{},{} 0 1,0 {},0z",
        x,
        d(-1.0),
        d(1.0),
        d(1.0),
        d(2.0),
        d(1.0),
        d(1.0),
        d(-2.0)
    );
    let square = format!("M{x},{y}m{},{}h{}v{}h{}z", d(-0.85), d(-0.85), d(1.7), d(1.7), d(-1.7));
    let tick = format!("M{x},{y}m{},0l{},{}l{},{}", d(-0.45), d(0.3), d(0.35), d(0.6), d(-0.65));
    let cross =
        format!("M{x},{y}m{},{}l{},{}m0,{}l{},{}", d(-0.45), d(-0.45), d(0.9), d(0.9), d(-0.9), d(-0.9), d(0.9));
    match (look.state, look.mine, look.selected) {
        (SeatState::Free, _, true) => ring + &tick,
        (SeatState::Free, _, false) => ring,
        (_, true, _) => square + &tick,
        (SeatState::Held, false, _) => square,
        (SeatState::Sold, false, _) => ring + &cross,
    }
}

/// What a seat's element shows; the directive keeps it in step with the
/// seat's signal, so one change repaints one element.
#[derive(Clone)]
struct Paint {
    cell: SeatCell,
    radius: f64,
}

/// Sets every changing attribute of one seat from its signal, in one render
/// effect per seat (rather than one per attribute): 20,000 seats stay cheap.
fn paint(element: web_sys::Element, Paint { cell, radius }: Paint) {
    let effect = RenderEffect::new(move |previous: Option<SeatLook>| {
        let look = cell.look.get();
        let set = |name: &str, value: &str| {
            let _ = element.set_attribute(name, value);
        };
        let changed = |field: fn(&SeatLook) -> bool| previous.is_none_or(|old| field(&old) != field(&look));
        if previous.is_none_or(|old| (old.state, old.mine, old.selected) != (look.state, look.mine, look.selected)) {
            set("d", &shape(look, cell.x, cell.y, radius));
            set("data-state", look.state.as_str());
            set("aria-label", &words::seat_name(&cell.label, look.state, look.mine, look.selected));
        }
        if changed(|look| look.mine) {
            if look.mine {
                set("data-mine", "true");
            } else {
                let _ = element.remove_attribute("data-mine");
            }
        }
        if changed(|look| look.selected) {
            set("aria-pressed", if look.selected { "true" } else { "false" });
        }
        if changed(|look| look.state == SeatState::Free || look.selected) {
            let usable = look.state == SeatState::Free || look.selected;
            set("aria-disabled", if usable { "false" } else { "true" });
        }
        if changed(|look| look.tab_stop) {
            set("tabindex", if look.tab_stop { "0" } else { "-1" });
        }
        look
    });
    on_cleanup(move || drop(effect));
}

/// One seat of the map: a single SVG path, focusable, a toggle button for
/// assistive technology, with the stable test hooks `data-seat-id`,
/// `data-state`, `data-mine` and `aria-pressed`.
#[component]
pub fn Seat(
    /// The seat and its signal.
    cell: SeatCell,
    /// Its position in the map's seat list (`data-index`), used by the
    /// map's delegated click and key handlers.
    index: usize,
    /// The shape's radius in map units.
    radius: f64,
) -> impl IntoView {
    let id = cell.id.clone();
    let painted = Paint { cell, radius };
    view! { <path class="seat" role="button" data-seat-id=id data-index=index use:paint=painted></path> }
}
