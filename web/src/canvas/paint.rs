//! Drawing a venue on a 2D canvas: sections with their free seats when
//! zoomed out, the seats in view (one path per colour, the SVG map's own
//! shapes) when zoomed in, and any rectangle of it again for a change.

use web_sys::{CanvasRenderingContext2d, Path2d};

use crate::canvas::grid::SeatGrid;
use crate::canvas::venue::Sections;
use crate::layout::Bounds;
use crate::model::SeatLook;
use crate::viewport::Viewport;
use seat_state::SeatState;
use seat_state::drawing::decimal::push_uint;
use seat_state::drawing::shape::write_shape;

/// Seats are drawn one by one from this radius on screen (CSS pixels);
/// below it, sections are.
pub const SEATS_FROM_RADIUS_PX: f64 = 2.0;

/// The seat outline's width in map units (the SVG map's `stroke-width`).
const STROKE: f64 = 2.5;
const BACKGROUND: &str = "#ffffff";
const FREE_DEFAULT: &str = "#1b7f4b";

/// Where the map is on the canvas: CSS pixels per map unit and the map
/// point at the canvas's top left, as the SVG map's "meet" puts it.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Screen {
    pub visible: Bounds,
    pub scale: f64,
    pub origin_x: f64,
    pub origin_y: f64,
    /// The canvas's size in CSS pixels, and device pixels per CSS pixel.
    pub width: f64,
    pub height: f64,
    pub dpr: f64,
}

impl Screen {
    pub fn new(view: &Viewport, width: f64, height: f64, dpr: f64) -> Self {
        let visible = view.visible();
        let scale = (width / visible.width).min(height / visible.height).max(1e-6);
        let origin_x = visible.x - (width - visible.width * scale) / 2.0 / scale;
        let origin_y = visible.y - (height - visible.height * scale) / 2.0 / scale;
        Self { visible, scale, origin_x, origin_y, width, height, dpr }
    }

    /// The map point at a position on the canvas (CSS pixels from its top left).
    pub fn to_map(&self, x: f64, y: f64) -> (f64, f64) {
        (self.origin_x + x / self.scale, self.origin_y + y / self.scale)
    }

    /// The whole canvas, in map units.
    pub fn canvas_in_map(&self) -> Bounds {
        Bounds { x: self.origin_x, y: self.origin_y, width: self.width / self.scale, height: self.height / self.scale }
    }

    /// Whether seats, rather than sections, are drawn.
    pub fn shows_seats(&self, radius: f64) -> bool {
        radius * self.scale >= SEATS_FROM_RADIUS_PX
    }

    /// Draw in map units from here on.
    fn map_transform(&self, ctx: &CanvasRenderingContext2d) {
        let k = self.dpr * self.scale;
        let _ = ctx.set_transform(k, 0.0, 0.0, k, -self.origin_x * k, -self.origin_y * k);
    }
}

/// What a venue's canvas draws from: seat places, the grid over them,
/// sections, colours.
#[derive(Debug)]
pub struct Scene {
    pub points: Vec<(f64, f64)>,
    pub category_of: Vec<Option<u8>>,
    pub grid: SeatGrid,
    pub radius: f64,
    pub sections: Sections,
    /// Each category's colour (`#rrggbb`), in the show's order.
    pub colors: Vec<String>,
}

/// How a seat is painted: the SVG map's CSS rules, in their precedence.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Ink {
    Free(Option<u8>),
    Picked,
    Held,
    Sold,
    Mine,
    Locked,
    Blocked,
}

fn ink(look: SeatLook, category: Option<u8>) -> Ink {
    match look.state {
        _ if look.mine => Ink::Mine,
        SeatState::Sold => Ink::Sold,
        SeatState::Held => Ink::Held,
        _ if look.selected => Ink::Picked,
        _ if look.blocked => Ink::Blocked,
        _ if look.locked => Ink::Locked,
        _ => Ink::Free(category),
    }
}

impl Scene {
    /// `(fill, stroke)` of an ink.
    fn colors_of(&self, ink: Ink) -> (&str, &str) {
        match ink {
            Ink::Free(category) => {
                ("#ffffff", category.and_then(|c| self.colors.get(usize::from(c))).map_or(FREE_DEFAULT, |c| c.as_str()))
            }
            Ink::Picked => ("#1f5fbf", "#ffffff"),
            Ink::Held => ("#9a5300", "#9a5300"),
            Ink::Sold => ("#e3e6ec", "#5b6474"),
            Ink::Mine => ("#5b2a86", "#ffffff"),
            Ink::Locked => ("#eef0f3", "#5b6474"),
            Ink::Blocked => ("#d9dce1", "#5b6474"),
        }
    }

    /// The rectangle (map units) a seat's drawing covers.
    pub fn seat_box(&self, seat: usize) -> Bounds {
        let (x, y) = self.points[seat];
        let reach = self.radius * 1.6 + STROKE;
        Bounds { x: x - reach, y: y - reach, width: 2.0 * reach, height: 2.0 * reach }
    }

    /// Paints the whole canvas; answers how many seats it drew.
    pub fn paint(&self, ctx: &CanvasRenderingContext2d, screen: &Screen, look: &dyn Fn(usize) -> SeatLook) -> usize {
        let _ = ctx.set_transform(1.0, 0.0, 0.0, 1.0, 0.0, 0.0);
        ctx.set_fill_style_str(BACKGROUND);
        ctx.fill_rect(0.0, 0.0, screen.width * screen.dpr, screen.height * screen.dpr);
        self.paint_within(ctx, screen, screen.canvas_in_map(), look)
    }

    /// Paints only `rect` (map units) again, as it is now: a change
    /// repaints its seat's square, or its section when zoomed out.
    pub fn repaint(
        &self,
        ctx: &CanvasRenderingContext2d,
        screen: &Screen,
        rect: Bounds,
        look: &dyn Fn(usize) -> SeatLook,
    ) -> usize {
        ctx.save();
        screen.map_transform(ctx);
        ctx.begin_path();
        ctx.rect(rect.x, rect.y, rect.width, rect.height);
        ctx.clip();
        ctx.set_fill_style_str(BACKGROUND);
        ctx.fill_rect(rect.x, rect.y, rect.width, rect.height);
        let drawn = self.paint_within(ctx, screen, rect, look);
        ctx.restore();
        drawn
    }

    fn paint_within(
        &self,
        ctx: &CanvasRenderingContext2d,
        screen: &Screen,
        rect: Bounds,
        look: &dyn Fn(usize) -> SeatLook,
    ) -> usize {
        if screen.shows_seats(self.radius) {
            self.paint_seats(ctx, screen, rect, look)
        } else {
            self.paint_sections(ctx, screen, rect);
            0
        }
    }

    /// The seats whose drawing meets `rect`, one path per ink.
    fn paint_seats(
        &self,
        ctx: &CanvasRenderingContext2d,
        screen: &Screen,
        rect: Bounds,
        look: &dyn Fn(usize) -> SeatLook,
    ) -> usize {
        let reach = self.radius * 1.6 + STROKE;
        let wider = Bounds {
            x: rect.x - reach,
            y: rect.y - reach,
            width: rect.width + 2.0 * reach,
            height: rect.height + 2.0 * reach,
        };
        let mut inks: Vec<(Ink, String)> = Vec::new();
        let mut drawn = 0;
        self.grid.visit(wider, |seat| {
            let (x, y) = self.points[seat];
            if x < wider.x || x > wider.x + wider.width || y < wider.y || y > wider.y + wider.height {
                return;
            }
            let seat_look = look(seat);
            let ink = ink(seat_look, self.category_of[seat]);
            let at = inks.iter().position(|(known, _)| *known == ink).unwrap_or_else(|| {
                inks.push((ink, String::with_capacity(4096)));
                inks.len() - 1
            });
            write_shape(&mut inks[at].1, seat_look, x, y, self.radius);
            drawn += 1;
        });
        screen.map_transform(ctx);
        ctx.set_line_width(STROKE);
        ctx.set_line_join("round");
        ctx.set_line_cap("round");
        for (ink, path) in &inks {
            let Ok(path) = Path2d::new_with_path_string(path) else { continue };
            let (fill, stroke) = self.colors_of(*ink);
            ctx.set_fill_style_str(fill);
            ctx.fill_with_path_2d(&path);
            ctx.set_stroke_style_str(stroke);
            ctx.stroke_with_path(&path);
        }
        drawn
    }

    /// Each section meeting `rect` as its outline, filled by the share of
    /// its seats still free, with its name and that count when it fits.
    fn paint_sections(&self, ctx: &CanvasRenderingContext2d, screen: &Screen, rect: Bounds) {
        screen.map_transform(ctx);
        ctx.set_line_join("round");
        let meets = |b: &Bounds| {
            b.x - self.radius <= rect.x + rect.width
                && b.x + b.width + self.radius >= rect.x
                && b.y - self.radius <= rect.y + rect.height
                && b.y + b.height + self.radius >= rect.y
        };
        for section in self.sections.list.iter().filter(|s| meets(&s.bounds)) {
            ctx.begin_path();
            for (at, &(x, y)) in section.hull.iter().enumerate() {
                if at == 0 { ctx.move_to(x, y) } else { ctx.line_to(x, y) }
            }
            ctx.close_path();
            let share = f64::from(section.free) / f64::from(section.seats.max(1));
            // No float formatting (it would add ~12 KB of wasm): two digits by hand.
            let color = if section.free == 0 {
                "#c9cfdb".to_owned()
            } else {
                let percent = (25.0 + 65.0 * share).round() as u64;
                let mut color = String::from("rgba(27,127,75,0.");
                push_uint(&mut color, percent / 10);
                push_uint(&mut color, percent % 10);
                color.push(')');
                color
            };
            ctx.set_fill_style_str(&color);
            ctx.set_stroke_style_str(&color);
            // The outline runs through the outer seats' centres: a stroke a
            // seat wide covers the seats themselves.
            ctx.set_line_width(self.radius * 2.0);
            ctx.fill();
            ctx.stroke();
        }
        // Names in CSS pixels, so they read at any zoom.
        let k = screen.dpr;
        let _ = ctx.set_transform(k, 0.0, 0.0, k, 0.0, 0.0);
        ctx.set_font("600 11px system-ui, sans-serif");
        ctx.set_text_align("center");
        ctx.set_fill_style_str("#1d2330");
        for section in self.sections.list.iter().filter(|s| meets(&s.bounds)) {
            if section.bounds.width * screen.scale < 36.0 || section.bounds.height * screen.scale < 24.0 {
                continue;
            }
            let x = (section.bounds.x + section.bounds.width / 2.0 - screen.origin_x) * screen.scale;
            let y = (section.bounds.y + section.bounds.height / 2.0 - screen.origin_y) * screen.scale;
            let _ = ctx.fill_text(&section.name, x, y - 2.0);
            let _ = ctx.fill_text(&section.free.to_string(), x, y + 11.0);
        }
    }

    /// A ring around the seat the keyboard is on.
    pub fn paint_cursor(&self, ctx: &CanvasRenderingContext2d, screen: &Screen, seat: usize) {
        let Some(&(x, y)) = self.points.get(seat) else { return };
        screen.map_transform(ctx);
        ctx.begin_path();
        let _ = ctx.arc(x, y, self.radius * 1.45, 0.0, std::f64::consts::TAU);
        ctx.set_line_width(3.0 / screen.scale);
        ctx.set_stroke_style_str("#111111");
        ctx.stroke();
    }
}
