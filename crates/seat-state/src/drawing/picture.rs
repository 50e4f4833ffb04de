//! A show page's seat map as a picture, for the server to put in the page's
//! HTML: the browser paints every seat while the app and the show's data
//! still download, and the app replaces the picture with its live map.
//!
//! The seats are drawn at the live map's positions, radius, row names and
//! frame, seats that look alike in one `<path>`: a handful of elements
//! instead of 20,000. Each seat is a dot, a zero-length line with a round
//! or square cap: a free seat a pale disc in its category's colour
//! (style.css), a held or own seat a square, a sold seat a small disc (by
//! shape, not colour alone). Each dot moves from the one before it in its
//! path (`m dx,dy h0`): seats along a row step alike, so the steps repeat
//! and compress several times better than absolute positions. The
//! browser's parse of the markup is most of the time to the first frame,
//! and the live map's outlines (rings as arcs, about 60 characters a
//! seat) made the arena's page 1.3 MB against 343 KB. (Measured on the 20,000-seat arena in headless
//! Chromium: stroked and dashed outlines also took its software rasterizer
//! 650–900 ms, filled discs about 150 ms, these dots about 200 ms.)
//! Nothing in it is a hook the live map has: no
//! `data-seat-id`, `data-state` or `data-mine`, nothing focusable, and the
//! whole block is `aria-hidden` (a picture that cannot be used yet).

use super::SeatLook;
use super::decimal::{push_dec, push_uint};
use super::layout::Layout;
use super::shape::{category_colors, map_style, push_escaped, row_labels, view_box};
use crate::SeatState;

/// The id of the picture's block in the page; the app removes it when its
/// own map is drawn, and `style.css` hides what comes after it until then.
pub const PICTURE_ID: &str = "prepaint";

/// One seat as the picture draws it.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct PictureSeat {
    pub x: f64,
    pub y: f64,
    /// Index of its price category in the show's list.
    pub category: Option<usize>,
    pub look: SeatLook,
}

/// What the picture shows: a show's name and seats.
#[derive(Debug, Clone, Copy)]
pub struct Picture<'a> {
    pub name: &'a str,
    /// The seats' layout (their rows and the map's bounds), in `seats`' order.
    pub layout: &'a Layout,
    pub seats: &'a [PictureSeat],
    /// Each price category's `#rrggbb`, in the show's order.
    pub colors: &'a [String],
    /// The show's version the seats are drawn as of (`data-version`).
    pub version: i64,
}

/// The classes of seats that look alike: state, then what sets them apart.
fn classes(out: &mut String, seat: &PictureSeat) {
    let look = seat.look;
    out.push_str("pic ");
    out.push_str(look.state.as_str());
    if look.mine {
        out.push_str(" mine");
    }
    if look.state == SeatState::Free && look.blocked {
        out.push_str(" blocked");
    } else if look.state == SeatState::Free && look.locked {
        out.push_str(" locked");
    }
    if look.state == SeatState::Free && look.access {
        out.push_str(" access");
    }
    if let Some(category) = seat.category.filter(|&at| at < super::shape::STYLED_CATEGORIES) {
        out.push_str(" c");
        super::decimal::push_uint(out, category as u64);
    }
}

impl Picture<'_> {
    /// The page's content while the app loads, laid out as the show page
    /// lays it out (header, name, stage, the map in its frame): one block
    /// with the id [`PICTURE_ID`].
    pub fn markup(&self) -> String {
        let mut out = String::with_capacity(self.seats.len() * 16 + 65_536);
        out.push_str(r#"<div id=""#);
        out.push_str(PICTURE_ID);
        out.push_str(r#"" data-version=""#);
        out.push_str(&self.version.to_string());
        out.push_str(r#"" aria-hidden="true"><header class="top"><span class="brand">Seathold</span></header><main><div class="show-head"><p class="picture-title">"#);
        push_escaped(&mut out, self.name);
        out.push_str(r#"</p></div><div class="stage">Stage</div><div class="venue" style=""#);
        push_escaped(&mut out, &category_colors(self.colors.iter().cloned()));
        out.push_str(r#""><div class="map">"#);
        self.push_svg(&mut out);
        out.push_str("</div></div></main></div>");
        out
    }

    /// The map alone: the `<svg>` with the row names and every seat's dot
    /// (the operator's page draws it as it stands, coloured by state).
    pub fn svg(&self) -> String {
        let mut out = String::with_capacity(self.seats.len() * 16 + 4096);
        self.push_svg(&mut out);
        out
    }

    fn push_svg(&self, out: &mut String) {
        let radius = super::radius(self.layout.pitch());
        let bounds = self.layout.bounds;
        out.push_str(r#"<svg class="seat-picture" viewBox=""#);
        out.push_str(&view_box(bounds));
        out.push_str(r#"" style=""#);
        out.push_str(&map_style(bounds, radius));
        out.push_str(r#"" preserveAspectRatio="xMidYMid meet"><g class="row-labels">"#);
        out.push_str(&row_labels(self.layout, |seat| self.seats[seat].y, radius));
        out.push_str("</g>");
        for (class, attributes, path) in self.groups(radius) {
            out.push_str(r#"<path class=""#);
            out.push_str(&class);
            out.push_str(&attributes);
            out.push_str(r#"" d=""#);
            out.push_str(&path);
            out.push_str(r#""></path>"#);
        }
        out.push_str("</svg>");
    }

    /// Every seat's dot, gathered by class in the order classes first
    /// appear: `(class, the dot's attributes, path data)`.
    fn groups(&self, radius: f64) -> Vec<(String, String, String)> {
        let mut groups: Vec<(String, String, String)> = Vec::new();
        // Where each group's pen is, in tenths of a map unit.
        let mut pens: Vec<(i64, i64)> = Vec::new();
        let mut class = String::new();
        for seat in self.seats {
            class.clear();
            classes(&mut class, seat);
            let at = match groups.iter().position(|(known, _, _)| *known == class) {
                Some(at) => at,
                None => {
                    let (cap, width) = dot(seat.look, radius);
                    let mut attributes = String::from(r#"" stroke-linecap=""#);
                    attributes.push_str(cap);
                    attributes.push_str(r#"" stroke-width=""#);
                    push_dec(&mut attributes, width);
                    groups.push((class.clone(), attributes, String::with_capacity(self.seats.len() * 12)));
                    pens.push((0, 0));
                    groups.len() - 1
                }
            };
            let out = &mut groups[at].2;
            let (x, y) = (tenths(seat.x), tenths(seat.y));
            let pen = &mut pens[at];
            // A path's first `m` is from the origin: absolute.
            out.push('m');
            push_tenths(out, x - pen.0);
            if y - pen.1 >= 0 {
                out.push(',');
            }
            push_tenths(out, y - pen.1);
            out.push_str("h0");
            *pen = (x, y);
        }
        groups
    }
}

/// A position in tenths of a map unit, as [`push_dec`] rounds it; steps
/// between rounded positions add up exactly.
fn tenths(value: f64) -> i64 {
    if value.is_finite() { (value * 10.0).round() as i64 } else { 0 }
}

/// Writes `tenths / 10` as short as SVG reads it: `12`, `-3.5`, `.4`, `-.4`.
fn push_tenths(out: &mut String, tenths: i64) {
    if tenths < 0 {
        out.push('-');
    }
    let (whole, tenth) = (tenths.unsigned_abs() / 10, tenths.unsigned_abs() % 10);
    if whole != 0 || tenth == 0 {
        push_uint(out, whole);
    }
    if tenth != 0 {
        out.push('.');
        out.push(char::from(b'0' + tenth as u8));
    }
}

/// The live map draws seats with a 2.5-unit stroke; the picture's dots
/// cover what the live shapes do.
const STROKE: f64 = 2.5;

/// A dot's cap and width: a free seat's disc, a held or own seat's
/// square, a sold seat's small disc.
fn dot(look: SeatLook, radius: f64) -> (&'static str, f64) {
    match (look.state, look.mine) {
        (SeatState::Held, _) | (_, true) => ("square", 1.7 * radius + STROKE),
        (SeatState::Sold, false) => ("round", 1.2 * radius),
        (SeatState::Free, false) => ("round", 2.0 * radius + STROKE),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn seat(x: f64, state: SeatState, category: Option<usize>) -> PictureSeat {
        PictureSeat { x, y: 10.0, category, look: SeatLook { state, ..SeatLook::FREE } }
    }

    #[test]
    fn seats_that_look_alike_share_a_path_and_nothing_is_a_hook() {
        let seats = [
            seat(10.0, SeatState::Free, Some(0)),
            seat(20.0, SeatState::Held, Some(0)),
            seat(30.0, SeatState::Free, Some(0)),
            seat(40.0, SeatState::Sold, None),
        ];
        let labels = ["Row A, seat 1", "Row A, seat 2", "Row A, seat 3", "Row A, seat 4"];
        let layout = Layout::new(seats.iter().zip(labels).map(|(seat, label)| (seat.x, seat.y, label)));
        let colors = ["#112233".to_owned()];
        let html = Picture { name: "A <b> show", layout: &layout, seats: &seats, colors: &colors, version: 7 }.markup();
        assert_eq!(html.matches("<path").count(), 3, "{html}");
        assert!(html.contains(r#"<path class="pic free c0" stroke-linecap="round" stroke-width=""#), "{html}");
        assert!(html.contains(r#"d="m10,10h0m20,0h0""#), "both free seats in one path, the second a step: {html}");
        assert!(html.contains(r#"<path class="pic held c0" stroke-linecap="square" stroke-width=""#), "{html}");
        assert!(html.contains(r#"d="m20,10h0""#), "{html}");
        assert!(html.contains(r#"<path class="pic sold" stroke-linecap="round" stroke-width=""#), "{html}");
        assert!(html.contains(r#"d="m40,10h0""#), "{html}");
        assert!(html.contains("A &lt;b&gt; show"), "{html}");
        assert!(html.contains(r#"<text class="row-label""#), "{html}");
        for hook in ["data-seat-id", "data-state", "data-mine", "tabindex", "role="] {
            assert!(!html.contains(hook), "{hook} in {html}");
        }
        assert!(html.starts_with(r#"<div id="prepaint" data-version="7" aria-hidden="true">"#), "{html}");
    }

    #[test]
    fn steps_are_exact_and_short() {
        let mut out = String::new();
        for tenths in [120, -35, 4, -4, 0, -120] {
            push_tenths(&mut out, tenths);
            out.push(' ');
        }
        assert_eq!(out, "12 -3.5 .4 -.4 0 -12 ");
        // Steps between rounded positions: no rounding error adds up, and a
        // negative step needs no comma.
        let seats = [(-539.34, 10.0), (-527.46, 9.96), (-515.53, 9.5)];
        let seats: Vec<PictureSeat> =
            seats.iter().map(|&(x, y)| PictureSeat { x, y, category: None, look: SeatLook::FREE }).collect();
        let layout = Layout::new(seats.iter().map(|seat| (seat.x, seat.y, "Row A, seat 1")));
        let html = Picture { name: "", layout: &layout, seats: &seats, colors: &[], version: 1 }.markup();
        assert!(html.contains(r#"d="m-539.3,10h0m11.8,0h0m12-.5h0""#), "{html}");
    }
}
