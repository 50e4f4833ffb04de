//! Zoom and pan as a value: which part of the map the SVG shows.
//!
//! The map's full rectangle is the base; the view is a smaller rectangle of
//! it, `scale` times zoomed in, centred on `(cx, cy)`. Changing the view only
//! changes the SVG's `viewBox`: no seat is touched.

use crate::layout::Bounds;

/// The furthest one can zoom in.
pub const MAX_SCALE: f64 = 12.0;
/// How much one button press or wheel notch zooms.
pub const ZOOM_STEP: f64 = 1.5;

/// The visible part of the map.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Viewport {
    base: Bounds,
    /// The furthest this map zooms in ([`MAX_SCALE`] unless raised: a
    /// stadium drawn on a canvas needs more to reach a finger-sized seat).
    max_scale: f64,
    /// 1 shows the whole map; 2 shows half its width.
    pub scale: f64,
    /// The map point at the centre of the view.
    pub cx: f64,
    pub cy: f64,
}

impl Viewport {
    /// The whole map.
    pub fn whole(base: Bounds) -> Self {
        Self { base, max_scale: MAX_SCALE, scale: 1.0, cx: base.x + base.width / 2.0, cy: base.y + base.height / 2.0 }
    }

    /// The same view, allowed to zoom in up to `max_scale` (never below [`MAX_SCALE`]).
    pub fn with_max_scale(self, max_scale: f64) -> Self {
        Self { max_scale: max_scale.max(MAX_SCALE), ..self }
    }

    /// The whole map's rectangle.
    pub fn base(&self) -> Bounds {
        self.base
    }

    /// The whole map this view is part of.
    pub fn whole_like(&self) -> Self {
        Self::whole(self.base).with_max_scale(self.max_scale)
    }

    /// Whether this is the whole map, unzoomed.
    pub fn is_whole(&self) -> bool {
        *self == self.whole_like()
    }

    /// The rectangle shown, in map units.
    pub fn visible(&self) -> Bounds {
        let width = self.base.width / self.scale;
        let height = self.base.height / self.scale;
        Bounds { x: self.cx - width / 2.0, y: self.cy - height / 2.0, width, height }
    }

    /// The SVG `viewBox` attribute for this view.
    pub fn view_box(&self) -> String {
        seat_state::drawing::shape::view_box(self.visible())
    }

    /// Zooms by `factor` (above 1 zooms in) keeping the map point at
    /// `(fx, fy)` — fractions of the view's width and height — in place.
    pub fn zoom_at(self, factor: f64, fx: f64, fy: f64) -> Self {
        let scale = (self.scale * factor).clamp(1.0, self.max_scale);
        let before = self.visible();
        let anchor_x = before.x + fx * before.width;
        let anchor_y = before.y + fy * before.height;
        let width = self.base.width / scale;
        let height = self.base.height / scale;
        Self { scale, cx: anchor_x - fx * width + width / 2.0, cy: anchor_y - fy * height + height / 2.0, ..self }
            .clamped()
    }

    /// Zooms by `factor` around the view's centre.
    pub fn zoom(self, factor: f64) -> Self {
        self.zoom_at(factor, 0.5, 0.5)
    }

    /// Moves the view by fractions of its own width and height (dragging
    /// the map right by a tenth of its width is `pan(-0.1, 0.0)`).
    pub fn pan(self, dx: f64, dy: f64) -> Self {
        let visible = self.visible();
        Self { cx: self.cx + dx * visible.width, cy: self.cy + dy * visible.height, ..self }.clamped()
    }

    /// Moves the view by a distance in map units.
    pub fn pan_map(self, dx: f64, dy: f64) -> Self {
        Self { cx: self.cx + dx, cy: self.cy + dy, ..self }.clamped()
    }

    /// The same zoom centred on the map point `(x, y)` (as near as the map allows).
    pub fn centred_on(self, x: f64, y: f64) -> Self {
        Self { cx: x, cy: y, ..self }.clamped()
    }

    /// Brings the map point `(x, y)` into view when it is near an edge or
    /// outside, moving as little as possible; unchanged otherwise.
    pub fn reveal(self, x: f64, y: f64, margin: f64) -> Self {
        let visible = self.visible();
        let inside = x - margin >= visible.x
            && x + margin <= visible.x + visible.width
            && y - margin >= visible.y
            && y + margin <= visible.y + visible.height;
        if inside { self } else { Self { cx: x, cy: y, ..self }.clamped() }
    }

    /// Keeps the centre inside the map so it cannot be lost off screen.
    /// `max` then `min`, not `f64::clamp`: at scale 1 rounding can put the
    /// low bound a hair above the high one, where `clamp` panics, and its
    /// panic message alone links core's float printing (~12 KB of wasm).
    fn clamped(self) -> Self {
        let Bounds { x, y, width, height } = self.base;
        let half_w = width / self.scale / 2.0;
        let half_h = height / self.scale / 2.0;
        Self {
            cx: self.cx.max(x + half_w).min(x + width - half_w),
            cy: self.cy.max(y + half_h).min(y + height - half_h),
            ..self
        }
    }
}

/// The index of the point nearest `(x, y)`, if there is any point.
pub fn nearest(points: impl Iterator<Item = (f64, f64)>, x: f64, y: f64) -> Option<usize> {
    points
        .map(|(px, py)| (px - x).hypot(py - y))
        .enumerate()
        .min_by(|(_, a), (_, b)| a.total_cmp(b))
        .map(|(index, _)| index)
}

/// The middle of the points within `reach` of `(x, y)` (`(x, y)` itself
/// when there are none): centring there shows the block of seats around
/// a seat rather than the empty space beside it.
pub fn middle_near(points: impl Iterator<Item = (f64, f64)>, x: f64, y: f64, reach: f64) -> (f64, f64) {
    let (mut sum_x, mut sum_y, mut count) = (0.0, 0.0, 0.0);
    for (px, py) in points.filter(|(px, py)| (px - x).hypot(py - y) <= reach) {
        (sum_x, sum_y, count) = (sum_x + px, sum_y + py, count + 1.0);
    }
    if count > 0.0 { (sum_x / count, sum_y / count) } else { (x, y) }
}
