//! Seat shapes and the map's other markup, as strings. Shapes differ by
//! state, not only colour; numbers are written with [`push_dec`] (no float
//! formatting: 20,000 seats are written at once).

use super::SeatLook;
use super::decimal::{Dec, push_dec, push_uint};
use super::layout::{Bounds, Layout};
use crate::SeatState;

/// The path of a seat's shape. Shapes differ by state, not only colour:
/// available is a ring, held a square, sold a ring crossed out, a picked
/// seat a disc with a tick, the customer's own a square with a tick, a
/// seat kept for a channel (no code entered) a ring barred across, and a
/// free wheelchair place or companion seat a ring with a ring inside
/// (barred too while it is kept from this customer).
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
    // A ring of `size` times r.
    let ring_of = |out: &mut String, size: f64| {
        start(out);
        command(out, 'm', r, &[-size, 0.0]);
        for factor in [2.0 * size, -2.0 * size] {
            command(out, 'a', r, &[size, size]);
            out.push_str(" 0 1,0 ");
            push_dec(out, factor * r);
            out.push_str(",0");
        }
        out.push('z');
    };
    let ring = |out: &mut String| ring_of(out, 1.0);
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
        (SeatState::Free, _, false) => {
            ring(out);
            if look.locked {
                start(out);
                command(out, 'm', r, &[-0.55, 0.0]);
                command(out, 'h', r, &[1.1]);
            }
            if look.access {
                ring_of(out, 0.4);
            }
        }
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

/// The SVG `viewBox` attribute showing `visible`.
pub fn view_box(visible: Bounds) -> String {
    let Bounds { x, y, width, height } = visible;
    let mut out = String::with_capacity(32);
    for (at, value) in [x, y, width, height].into_iter().enumerate() {
        if at > 0 {
            out.push(' ');
        }
        push_dec(&mut out, value);
    }
    out
}

/// The map's `style`: its aspect ratio (the page lays it out before any
/// seat is drawn) and the seat radius `--r` that dash patterns scale with.
pub fn map_style(bounds: Bounds, radius: f64) -> String {
    format!("aspect-ratio: {} / {}; --r: {}", Dec(bounds.width), Dec(bounds.height), Dec(radius))
}

/// The rows' names as `<text>` elements, one string (an arena has ~1,250).
pub fn row_labels(layout: &Layout, ys: impl Fn(usize) -> f64, radius: f64) -> String {
    let mut out = String::new();
    let font = Dec((radius * 1.3).max(4.0)).to_string();
    for label in layout.row_labels(ys) {
        out.push_str(r#"<text class="row-label" x=""#);
        push_dec(&mut out, label.x);
        out.push_str(r#"" y=""#);
        push_dec(&mut out, label.y);
        out.push_str(r#"" font-size=""#);
        out.push_str(&font);
        out.push_str(r#"">"#);
        push_escaped(&mut out, &label.text);
        out.push_str("</text>");
    }
    out
}
