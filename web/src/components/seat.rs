use seat_state::SeatState;

pub use seat_state::drawing::shape::{STYLED_CATEGORIES, category_colors, escaped, push_escaped, shape, write_shape};

use crate::decimal::push_uint;
use crate::model::{SeatCell, SeatLook};
use crate::words;

/// One seat's element as markup: a single SVG path, focusable, a toggle
/// button for assistive technology, with the stable test hooks
/// `data-seat-id` (also how the map's delegated click and key handlers
/// find the seat), `data-state`, `data-mine` and `aria-pressed`; only an
/// unusable seat carries `aria-disabled` (absent reads as enabled). The whole
/// map's seats are parsed by the browser in one go (far fewer calls into the
/// DOM than one element at a time); [`repaint`] keeps each in step after.
/// Written piece by piece, without `format!`: the map writes 20,000.
pub fn markup(out: &mut String, cell: &SeatCell, look: SeatLook, radius: f64) {
    out.push_str(r#"<path class="seat" role="button" data-seat-id=""#);
    push_escaped(out, &cell.id);
    out.push_str(r#"" d=""#);
    write_shape(out, look, cell.x, cell.y, radius);
    out.push_str(r#"" data-state=""#);
    out.push_str(look.state.as_str());
    out.push_str(r#"" aria-label=""#);
    push_escaped(out, &cell.label);
    out.push_str(", ");
    if let Some(access) = access_words(cell) {
        out.push_str(access);
        out.push_str(", ");
    }
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
    if let Some(access) = &cell.access {
        out.push_str(r#" data-access=""#);
        out.push_str(access.as_str());
        out.push('"');
    }
    out.push_str(if look.locked { r#" data-locked="true"></path>"# } else { "></path>" });
}

/// What a seat is kept for, in its accessible name: "wheelchair place",
/// "companion seat", or nothing.
pub fn access_words(cell: &SeatCell) -> Option<&'static str> {
    cell.access.as_ref().map(|access| match access {
        seat_state::Access::Wheelchair => words::WHEELCHAIR_PLACE,
        seat_state::Access::Companion { .. } => words::COMPANION_SEAT,
    })
}

/// What a seat's accessible name says after its label (and access):
/// "available", "held, selected", "needs a code" for a channel's seat while
/// no code is entered, or that an access seat is kept for others.
fn name_suffix(look: SeatLook) -> &'static str {
    if look.blocked && look.state == SeatState::Free && !look.selected {
        words::NOT_FOR_SALE
    } else if look.locked && look.access && look.state == SeatState::Free && !look.selected {
        words::NEEDS_ACCESS
    } else if look.locked && look.state == SeatState::Free && !look.selected {
        words::NEEDS_CODE
    } else {
        words::seat_state_words(look.state, look.mine, look.selected)
    }
}

/// A seat's accessible name: "Row B, seat 7, available", "Row E, seat 1,
/// wheelchair place, available".
pub fn name(cell: &SeatCell, look: SeatLook) -> String {
    let suffix = name_suffix(look);
    let mut name = String::with_capacity(cell.label.len() + 24 + suffix.len());
    name.push_str(&cell.label);
    name.push_str(", ");
    if let Some(access) = access_words(cell) {
        name.push_str(access);
        name.push_str(", ");
    }
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
