use std::fmt::Write as _;

use leptos::prelude::*;
use seat_state::SeatState;

use crate::decimal::Dec;
use crate::model::{SeatCell, SeatLook};
use crate::words;

/// The path of a seat's shape. Shapes differ by state, not only colour:
/// available is a ring, held a square, sold a ring crossed out, a picked
/// seat a disc with a tick, the customer's own a square with a tick, and
/// a seat kept for a channel (no code entered) a ring barred across.
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
    let bar = format!("M{x},{y}m{},0h{}", d(-0.55), d(1.1));
    match (look.state, look.mine, look.selected) {
        (SeatState::Free, _, true) => ring + &tick,
        (SeatState::Free, _, false) if look.locked => ring + &bar,
        (SeatState::Free, _, false) => ring,
        (_, true, _) => square + &tick,
        (SeatState::Held, false, _) => square,
        (SeatState::Sold, false, _) => ring + &cross,
    }
}

/// `&`, `<`, `>` and `"` escaped, for an attribute value in markup.
pub fn escaped(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            _ => out.push(c),
        }
    }
    out
}

/// One seat's element as markup: a single SVG path, focusable, a toggle
/// button for assistive technology, with the stable test hooks
/// `data-seat-id`, `data-state`, `data-mine` and `aria-pressed`, and
/// `data-index` for the map's delegated click and key handlers. The whole
/// map's seats are parsed by the browser in one go (far fewer calls into the
/// DOM than one element at a time); [`repaint`] keeps each in step after.
pub fn markup(out: &mut String, cell: &SeatCell, index: usize, radius: f64) {
    let look = cell.look.get_untracked();
    let _ = write!(
        out,
        r#"<path class="seat" role="button" data-seat-id="{}" data-index="{index}" d="{}" data-state="{}" aria-label="{}" aria-pressed="{}" aria-disabled="{}" tabindex="{}"{}"#,
        escaped(&cell.id),
        shape(look, cell.x, cell.y, radius),
        look.state.as_str(),
        escaped(&name(cell, look)),
        look.selected,
        !look.usable(),
        if look.tab_stop { "0" } else { "-1" },
        if look.mine { r#" data-mine="true""# } else { "" },
    );
    if let Some(category) = cell.category {
        let _ = write!(out, r#" data-category="{category}""#);
    }
    out.push_str(if look.locked { r#" data-locked="true"></path>"# } else { "></path>" });
}

/// A seat's accessible name: "Row B, seat 7, available", or "…, needs a
/// code" for a channel's seat while no code is entered.
fn name(cell: &SeatCell, look: SeatLook) -> String {
    if look.locked && look.state == SeatState::Free && !look.selected {
        format!("{}, {}", cell.label, words::NEEDS_CODE)
    } else {
        words::seat_name(&cell.label, look.state, look.mine, look.selected)
    }
}

/// Sets the attributes of a seat's element that differ between two looks.
pub fn repaint(element: &web_sys::Element, cell: &SeatCell, radius: f64, old: SeatLook, look: SeatLook) {
    let set = |name: &str, value: &str| {
        let _ = element.set_attribute(name, value);
    };
    let changed = |field: fn(&SeatLook) -> bool| field(&old) != field(&look);
    let drawn = (old.state, old.mine, old.selected) != (look.state, look.mine, look.selected);
    if drawn || changed(|look| look.locked) {
        set("d", &shape(look, cell.x, cell.y, radius));
        if drawn {
            set("data-state", look.state.as_str());
        }
        set("aria-label", &name(cell, look));
    }
    if changed(|look| look.locked) {
        if look.locked {
            set("data-locked", "true");
        } else {
            let _ = element.remove_attribute("data-locked");
        }
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
    if changed(|look| look.usable()) {
        set("aria-disabled", if look.usable() { "false" } else { "true" });
    }
    if changed(|look| look.tab_stop) {
        set("tabindex", if look.tab_stop { "0" } else { "-1" });
    }
}

/// How many price categories get a colour and pattern of their own
/// (`style.css` has a rule for each index).
pub const STYLED_CATEGORIES: usize = 8;

/// The custom properties that colour each price category (`--c0`…), for
/// an element around the map and the legend: `style.css` draws category
/// `i`'s free seats in `--ci` with a dash pattern of its own (solid,
/// dashes, dots, dash-dot, in turn), so a category never reads by colour
/// alone. A style attribute, since the page's CSP allows no `<style>`.
pub fn category_colors(colors: impl Iterator<Item = String>) -> String {
    let mut style = String::new();
    for (index, color) in colors.take(STYLED_CATEGORIES).enumerate() {
        let _ = write!(style, "--c{index}:{color};");
    }
    style
}
