//! Dragging, pinching and wheel zoom on a map drawn "meet" in an element's
//! box: shared by the SVG map and the canvas map, which differ only in
//! what they draw.

use leptos::prelude::*;
use web_sys::{PointerEvent, WheelEvent};

use crate::viewport::Viewport;

/// How far (CSS pixels) a press may move and still count as a click.
pub const DRAG_THRESHOLD: f64 = 6.0;

/// How much one wheel notch zooms.
const WHEEL_STEP: f64 = 1.25;

/// Pointers on the map, for dragging and pinching.
#[derive(Debug, Default)]
pub struct Pointers {
    /// `(pointerId, x, y)` of each pointer down.
    down: Vec<(i32, f64, f64)>,
    /// Where the first pointer went down.
    start: (f64, f64),
    /// The gesture moved the map: the click that ends it selects nothing.
    pub dragged: bool,
}

/// Pixels per map unit and the map point under a client position, as
/// fractions of the visible rectangle, for a map drawn in `rect` as SVG's
/// `preserveAspectRatio="xMidYMid meet"` draws it.
pub fn locate(rect: &web_sys::DomRect, view: &Viewport, client_x: f64, client_y: f64) -> (f64, f64, f64) {
    let visible = view.visible();
    let scale = (rect.width() / visible.width).min(rect.height() / visible.height).max(1e-6);
    let left = rect.left() + (rect.width() - visible.width * scale) / 2.0;
    let top = rect.top() + (rect.height() - visible.height * scale) / 2.0;
    let fx = ((client_x - left) / (visible.width * scale)).clamp(0.0, 1.0);
    let fy = ((client_y - top) / (visible.height * scale)).clamp(0.0, 1.0);
    (scale, fx, fy)
}

/// The view after a wheel notch at a client position.
pub fn wheel(rect: &web_sys::DomRect, view: Viewport, delta_y: f64, client_x: f64, client_y: f64) -> Viewport {
    let (_, fx, fy) = locate(rect, &view, client_x, client_y);
    view.zoom_at(if delta_y < 0.0 { WHEEL_STEP } else { 1.0 / WHEEL_STEP }, fx, fy)
}

impl Pointers {
    /// A pointer went down.
    pub fn press(&mut self, id: i32, x: f64, y: f64) {
        if self.down.is_empty() {
            self.start = (x, y);
            self.dragged = false;
        }
        self.down.push((id, x, y));
    }

    /// A pointer went up or was cancelled.
    pub fn release(&mut self, id: i32) {
        self.down.retain(|(down, _, _)| *down != id);
    }

    /// Whether the gesture moved the map (and forgets it: the click that
    /// ends a drag selects nothing, the next one does).
    pub fn take_dragged(&mut self) -> bool {
        std::mem::take(&mut self.dragged)
    }

    /// A pointer moved: the view one finger drags to or two fingers pinch
    /// to, or `None` when the map stays. `capture` is called once when a
    /// press becomes a drag (to keep the pointer's events on the map).
    pub fn moved(
        &mut self,
        rect: &web_sys::DomRect,
        view: Viewport,
        (id, x, y): (i32, f64, f64),
        capture: impl FnOnce(i32),
    ) -> Option<Viewport> {
        let at = self.down.iter().position(|(down, _, _)| *down == id)?;
        let (_, old_x, old_y) = self.down[at];
        self.down[at] = (id, x, y);
        match self.down.len() {
            1 => {
                let moved = (x - self.start.0).hypot(y - self.start.1);
                if !self.dragged && moved > DRAG_THRESHOLD && !view.is_whole() {
                    self.dragged = true;
                    capture(id);
                }
                self.dragged.then(|| {
                    let (scale, _, _) = locate(rect, &view, x, y);
                    view.pan_map(-(x - old_x) / scale, -(y - old_y) / scale)
                })
            }
            2 => {
                let (_, other_x, other_y) = self.down[1 - at];
                let before = (old_x - other_x).hypot(old_y - other_y);
                let after = (x - other_x).hypot(y - other_y);
                self.dragged = true;
                (before > 1.0).then(|| {
                    let (_, fx, fy) = locate(rect, &view, (x + other_x) / 2.0, (y + other_y) / 2.0);
                    view.zoom_at(after / before, fx, fy)
                })
            }
            _ => None,
        }
    }
}

/// The wheel and pointer handlers of a map element: zoom at the wheel,
/// drag to pan, pinch to zoom. `element` finds the map's element.
#[derive(Clone, Copy)]
pub struct MapGestures<F> {
    pub element: F,
    pub viewport: RwSignal<Viewport>,
    pub pointers: StoredValue<Pointers, LocalStorage>,
}

impl<F: Fn() -> Option<web_sys::Element> + Copy + 'static> MapGestures<F> {
    pub fn on_wheel(self) -> impl Fn(WheelEvent) + Copy + 'static {
        move |event: WheelEvent| {
            let Some(element) = (self.element)() else { return };
            event.prevent_default();
            let rect = element.get_bounding_client_rect();
            let at = (f64::from(event.client_x()), f64::from(event.client_y()));
            self.viewport.set(wheel(&rect, self.viewport.get_untracked(), event.delta_y(), at.0, at.1));
        }
    }

    pub fn on_pointerdown(self) -> impl Fn(PointerEvent) + Copy + 'static {
        move |event: PointerEvent| {
            let (x, y) = (f64::from(event.client_x()), f64::from(event.client_y()));
            self.pointers.update_value(|p| p.press(event.pointer_id(), x, y));
        }
    }

    pub fn on_pointermove(self) -> impl Fn(PointerEvent) + Copy + 'static {
        move |event: PointerEvent| {
            let Some(element) = (self.element)() else { return };
            let moved = (event.pointer_id(), f64::from(event.client_x()), f64::from(event.client_y()));
            let rect = element.get_bounding_client_rect();
            let view = self.viewport.get_untracked();
            let next = self
                .pointers
                .try_update_value(|p| {
                    p.moved(&rect, view, moved, |id| {
                        let _ = element.set_pointer_capture(id);
                    })
                })
                .flatten();
            if let Some(view) = next {
                event.prevent_default();
                self.viewport.set(view);
            }
        }
    }

    /// For `pointerup` and `pointercancel`.
    pub fn on_pointerup(self) -> impl Fn(PointerEvent) + Copy + 'static {
        move |event: PointerEvent| {
            let id = event.pointer_id();
            self.pointers.update_value(|p| p.release(id));
        }
    }
}
