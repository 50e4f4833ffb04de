use leptos::prelude::*;
use seat_state::SeatState;

use crate::decimal::{push_dec, push_uint};
use crate::model::{SeatCell, SeatLook};
use crate::words;

/// The path of a seat's shape. Shapes differ by state, not only colour:
/// available is a ring, held a square, sold a ring crossed out, a picked
/// seat a disc with a tick, the customer's own a square with a tick, and
/// a seat kept for a channel (no code entered) a ring barred across.
pub fn shape(look: SeatLook, x: f64, y: f64, r: f64) -> String {
    let mut out = String::with_capacity(96);
    write_shape(&mut out, look, x, y, r);
    out
}

/// One path command: the letter, then numbers (`r` times each factor)
/// separated by commas, or by a space before an arc's flags.
fn command(out: &mut String, letter: char, r: f64, factors: &[f64]) {
    out.push(letter);
    for (at, factor) in factors.iter().enumerate() {
        if at > 0 {
            out.push(',');
        }
        push_dec(out, factor * r);
    }
}

/// [`shape`], written at the end of `out` (no string of its own: the map
/// writes 20,000 of them at once).
pub fn write_shape(out: &mut String, look: SeatLook, x: f64, y: f64, r: f64) {
    // Each piece starts at the seat's centre.
    let start = |out: &mut String| {
        out.push('M');
        push_dec(out, x);
        out.push(',');
        push_dec(out, y);
    };
    let ring = |out: &mut String| {
        start(out);
        command(out, 'm', r, &[-1.0, 0.0]);
        for factor in [2.0, -2.0] {
            command(out, 'a', r, &[1.0, 1.0]);
            out.push_str(" 0 1,0 ");
            push_dec(out, factor * r);
            out.push_str(",0");
        }
        out.push('z');
    };
    let square = |out: &mut String| {
        start(out);
        command(out, 'm', r, &[-0.85, -0.85]);
        command(out, 'h', r, &[1.7]);
        command(out, 'v', r, &[1.7]);
        command(out, 'h', r, &[-1.7]);
        out.push('z');
    };
    let tick = |out: &mut String| {
        start(out);
        command(out, 'm', r, &[-0.45, 0.0]);
        command(out, 'l', r, &[0.3, 0.35]);
        command(out, 'l', r, &[0.6, -0.65]);
    };
    match (look.state, look.mine, look.selected) {
        (SeatState::Free, _, true) => {
            ring(out);
            tick(out);
        }
        // Not for sale: a slashed ring (⊘), unlike sold's crossed one.
        (SeatState::Free, _, false) if look.blocked => {
            ring(out);
            start(out);
            command(out, 'm', r, &[0.55, -0.55]);
            command(out, 'l', r, &[-1.1, 1.1]);
        }
        (SeatState::Free, _, false) if look.locked => {
            ring(out);
            start(out);
            command(out, 'm', r, &[-0.55, 0.0]);
            command(out, 'h', r, &[1.1]);
        }
        (SeatState::Free, _, false) => ring(out),
        (_, true, _) => {
            square(out);
            tick(out);
        }
        (SeatState::Held, false, _) => square(out),
        (SeatState::Sold, false, _) => {
            ring(out);
            start(out);
            command(out, 'm', r, &[-0.45, -0.45]);
            command(out, 'l', r, &[0.9, 0.9]);
            command(out, 'm', r, &[0.0, -0.9]);
            command(out, 'l', r, &[-0.9, 0.9]);
        }
    }
}

/// `&`, `<`, `>` and `"` escaped, for an attribute value in markup.
pub fn escaped(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    push_escaped(&mut out, text);
    out
}

/// [`escaped`], written at the end of `out`.
pub fn push_escaped(out: &mut String, text: &str) {
    let mut rest = text;
    while let Some(at) = rest.find(['&', '<', '>', '"']) {
        out.push_str(&rest[..at]);
        out.push_str(match rest.as_bytes()[at] {
            b'&' => "&amp;",
            b'<' => "&lt;",
            b'>' => "&gt;",
            _ => "&quot;",
        });
        rest = &rest[at + 1..];
    }
    out.push_str(rest);
}

/// One seat's element as markup: a single SVG path, focusable, a toggle
/// button for assistive technology, with the stable test hooks
/// `data-seat-id` (also how the map's delegated click and key handlers
/// find the seat), `data-state`, `data-mine` and `aria-pressed`; only an
/// unusable seat carries `aria-disabled` (absent reads as enabled). The whole
/// map's seats are parsed by the browser in one go (far fewer calls into the
/// DOM than one element at a time); [`repaint`] keeps each in step after.
/// Written piece by piece, without `format!`: the map writes 20,000.
pub fn markup(out: &mut String, cell: &SeatCell, radius: f64) {
    let look = cell.look.get_untracked();
    out.push_str(r#"<path class="seat" role="button" data-seat-id=""#);
    push_escaped(out, &cell.id);
    out.push_str(r#"" d=""#);
    write_shape(out, look, cell.x, cell.y, radius);
    out.push_str(r#"" data-state=""#);
    out.push_str(look.state.as_str());
    out.push_str(r#"" aria-label=""#);
    push_escaped(out, &cell.label);
    out.push_str(", ");
    out.push_str(name_suffix(look));
    out.push_str(r#"" aria-pressed=""#);
    out.push_str(if look.selected { "true" } else { "false" });
    if !look.usable() {
        out.push_str(r#"" aria-disabled="true"#);
    }
    out.push_str(if look.tab_stop { r#"" tabindex="0""# } else { r#"" tabindex="-1""# });
    if look.mine {
        out.push_str(r#" data-mine="true""#);
    }
    if let Some(category) = cell.category {
        out.push_str(r#" data-category=""#);
        push_uint(out, category as u64);
        out.push('"');
    }
    if look.blocked {
        out.push_str(r#" data-blocked="true""#);
    }
    out.push_str(if look.locked { r#" data-locked="true"></path>"# } else { "></path>" });
}

/// What a seat's accessible name says after its label: "available",
/// "held, selected", or "needs a code" for a channel's seat while no code
/// is entered.
fn name_suffix(look: SeatLook) -> &'static str {
    if look.blocked && look.state == SeatState::Free && !look.selected {
        words::NOT_FOR_SALE
    } else if look.locked && look.state == SeatState::Free && !look.selected {
        words::NEEDS_CODE
    } else {
        words::seat_state_words(look.state, look.mine, look.selected)
    }
}

/// A seat's accessible name: "Row B, seat 7, available".
fn name(cell: &SeatCell, look: SeatLook) -> String {
    let suffix = name_suffix(look);
    let mut name = String::with_capacity(cell.label.len() + 2 + suffix.len());
    name.push_str(&cell.label);
    name.push_str(", ");
    name.push_str(suffix);
    name
}

/// Sets the attributes of a seat's element that differ between two looks.
pub fn repaint(element: &web_sys::Element, cell: &SeatCell, radius: f64, old: SeatLook, look: SeatLook) {
    let set = |name: &str, value: &str| {
        let _ = element.set_attribute(name, value);
    };
    let changed = |field: fn(&SeatLook) -> bool| field(&old) != field(&look);
    let drawn = (old.state, old.mine, old.selected) != (look.state, look.mine, look.selected);
    if drawn || changed(|look| look.locked) || changed(|look| look.blocked) {
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
    if changed(|look| look.blocked) {
        if look.blocked {
            set("data-blocked", "true");
        } else {
            let _ = element.remove_attribute("data-blocked");
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
        if look.usable() {
            let _ = element.remove_attribute("aria-disabled");
        } else {
            set("aria-disabled", "true");
        }
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
        style.push_str("--c");
        push_uint(&mut style, index as u64);
        style.push(':');
        style.push_str(&color);
        style.push(';');
    }
    style
}
