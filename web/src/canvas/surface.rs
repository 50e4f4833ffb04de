//! The canvas element's state between frames: its context and size, the
//! scene, what must be painted again, and the seat the keyboard is on.
//! Paints at most once per animation frame, whatever changed in between.

use wasm_bindgen::JsCast;
use web_sys::{CanvasRenderingContext2d, HtmlCanvasElement};

use crate::canvas::paint::{Scene, Screen};
use crate::layout::Bounds;
use crate::model::{MapModel, SeatLook};
use crate::viewport::Viewport;

/// A seat's radius on screen (CSS pixels) at the furthest zoom.
const LARGEST_SEAT_PX: f64 = 18.0;

/// What the canvas keeps between frames.
#[derive(Debug)]
pub struct Surface {
    pub scene: Scene,
    canvas: Option<(HtmlCanvasElement, CanvasRenderingContext2d)>,
    /// The screen last painted whole (`None`: paint it whole next).
    painted: Option<Screen>,
    /// Rectangles (map units) to paint again.
    dirty: Vec<Bounds>,
    /// A frame is requested and has not run yet.
    pub pending: bool,
    /// The seat the keyboard is on, and whether the map has the focus.
    pub cursor: usize,
    pub focused: bool,
    /// Partial repaints so far (a test hook: `data-repaints`).
    repaints: u32,
}

impl Surface {
    pub fn new(scene: Scene, cursor: usize) -> Self {
        Self {
            scene,
            canvas: None,
            painted: None,
            dirty: Vec::new(),
            pending: false,
            cursor,
            focused: false,
            repaints: 0,
        }
    }

    /// Takes the canvas (once mounted) and sizes its pixels to its box;
    /// answers how far in the view may zoom for seats of a finger's size.
    pub fn attach(&mut self, canvas: HtmlCanvasElement, view: &Viewport) -> Option<f64> {
        let context = canvas.get_context("2d").ok()??.dyn_into::<CanvasRenderingContext2d>().ok()?;
        self.canvas = Some((canvas, context));
        let screen = self.resize(&view.whole_like())?;
        Some(LARGEST_SEAT_PX / (self.scene.radius * screen.scale).max(1e-6))
    }

    /// Matches the canvas's pixels to its box now; the screen for `view`.
    pub fn resize(&mut self, view: &Viewport) -> Option<Screen> {
        let (canvas, _) = self.canvas.as_ref()?;
        let rect = canvas.get_bounding_client_rect();
        let dpr = leptos::prelude::window().device_pixel_ratio().max(1.0);
        let (width, height) = ((rect.width() * dpr).round() as u32, (rect.height() * dpr).round() as u32);
        if canvas.width() != width || canvas.height() != height {
            canvas.set_width(width);
            canvas.set_height(height);
            self.painted = None;
        }
        Some(Screen::new(view, rect.width(), rect.height(), dpr))
    }

    /// The screen as last painted.
    pub fn screen(&self) -> Option<Screen> {
        self.painted
    }

    /// Marks a seat's square to paint again (its section's, zoomed out).
    pub fn touch_seat(&mut self, model: &MapModel, seat: usize) {
        let Some(screen) = self.painted else { return };
        let rect = if screen.shows_seats(self.scene.radius) {
            self.scene.seat_box(seat)
        } else {
            let Some(section) = model.section_of.get(seat).and_then(|&s| self.scene.sections.list.get(s as usize))
            else {
                return;
            };
            let reach = self.scene.radius * 2.0;
            let b = section.bounds;
            Bounds { x: b.x - reach, y: b.y - reach, width: b.width + 2.0 * reach, height: b.height + 2.0 * reach }
        };
        let view = screen.canvas_in_map();
        let meets = rect.x <= view.x + view.width
            && rect.x + rect.width >= view.x
            && rect.y <= view.y + view.height
            && rect.y + rect.height >= view.y;
        if meets && !self.dirty.contains(&rect) {
            self.dirty.push(rect);
        }
    }

    /// Paints what the frame needs: everything when the view or size
    /// changed, else only the dirty rectangles.
    pub fn frame(&mut self, model: &MapModel, view: &Viewport) {
        self.pending = false;
        let Some(screen) = self.resize(view) else { return };
        let Some((canvas, ctx)) = self.canvas.clone() else { return };
        let look = |seat: usize| model.look(seat).unwrap_or(SeatLook::FREE);
        if self.painted != Some(screen) {
            self.dirty.clear();
            let drawn = self.scene.paint(&ctx, &screen, &look);
            self.painted = Some(screen);
            let _ = canvas.set_attribute("data-seats-drawn", &drawn.to_string());
        } else if !self.dirty.is_empty() {
            for rect in std::mem::take(&mut self.dirty) {
                self.scene.repaint(&ctx, &screen, rect, &look);
            }
            self.repaints += 1;
            let _ = canvas.set_attribute("data-repaints", &self.repaints.to_string());
        } else {
            return;
        }
        if self.focused && screen.shows_seats(self.scene.radius) {
            self.scene.paint_cursor(&ctx, &screen, self.cursor);
        }
    }

    /// The seat at a point on the canvas (CSS pixels from its top left),
    /// when seats are drawn.
    pub fn seat_at(&self, x: f64, y: f64) -> Option<usize> {
        let screen = self.painted?;
        if !screen.shows_seats(self.scene.radius) {
            return None;
        }
        let (mx, my) = screen.to_map(x, y);
        // A finger's width (about 12 px) or the seat, whichever is larger.
        let reach = (self.scene.radius * 1.2).max(12.0 / screen.scale);
        self.scene.grid.hit(&self.scene.points, mx, my, reach)
    }

    /// The section at a point on the canvas, when sections are drawn.
    pub fn section_at(&self, x: f64, y: f64) -> Option<Bounds> {
        let screen = self.painted?;
        let (mx, my) = screen.to_map(x, y);
        let pad = self.scene.radius * 2.0;
        self.scene
            .sections
            .list
            .iter()
            .map(|s| s.bounds)
            .filter(|b| mx >= b.x - pad && mx <= b.x + b.width + pad && my >= b.y - pad && my <= b.y + b.height + pad)
            .min_by(|a, b| (a.width * a.height).total_cmp(&(b.width * b.height)))
    }

    /// The zoom at which seats are drawn, for a view of this map.
    pub fn seat_scale(&self, view: &Viewport) -> Option<f64> {
        let whole = Screen::new(&view.whole_like(), self.painted?.width, self.painted?.height, 1.0);
        Some(crate::canvas::paint::SEATS_FROM_RADIUS_PX * 2.5 / (self.scene.radius * whole.scale))
    }
}
