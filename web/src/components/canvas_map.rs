use std::sync::Arc;

use leptos::prelude::*;
use wasm_bindgen::JsCast;
use wasm_bindgen::closure::Closure;
use web_sys::{HtmlCanvasElement, KeyboardEvent, MouseEvent};

use crate::canvas::grid::SeatGrid;
use crate::canvas::paint::Scene;
use crate::canvas::surface::Surface;
use crate::canvas::venue::Sections;
use crate::components::gesture::{MapGestures, Pointers};
use crate::components::minimap::Minimap;
use crate::components::seat::name;
use crate::components::zoom_controls::ZoomControls;
use crate::controller::Controller;
use crate::layout::{Bounds, Step};
use crate::model::{MapModel, SeatLook};
use crate::viewport::{Viewport, ZOOM_STEP};
use seat_state::drawing::shape::map_style;

/// Whether a seat counts as free in its section's summary.
fn free(look: SeatLook) -> bool {
    look.state == seat_state::SeatState::Free && !look.blocked && !look.locked
}

/// The scene of a model: places, the grid over them, sections, colours.
fn scene_of(model: &MapModel) -> Scene {
    let points: Vec<(f64, f64)> = model.seats.iter().map(|cell| (cell.x, cell.y)).collect();
    let radius = model.radius();
    let grid = SeatGrid::new(&points, model.layout.bounds, model.layout.pitch().max(radius) * 4.0);
    let sections =
        Sections::new(&model.venue_sections, &model.section_of, &points, |seat| model.look(seat).is_some_and(free));
    let category_of = model.seats.iter().map(|cell| cell.category.and_then(|c| u8::try_from(c).ok())).collect();
    let colors = model.categories.iter().map(|category| category.color.clone()).collect();
    Scene { points, category_of, grid, radius, sections, colors }
}

/// The seat map of a large venue, on a canvas: sections and how many of
/// their seats are free when zoomed out (a click zooms into one), the
/// seats in view when zoomed in (a click picks the seat under it, found
/// by a grid, not by a DOM node per seat), the same zoom and pan as the
/// SVG map (buttons, wheel, drag, pinch, `+`/`-`/`0`) and its keyboard
/// navigation (arrows between seats and rows, Enter or Space to pick), the
/// seat the keyboard is on read out by a live region. The list picker
/// below it is the way to every seat without the canvas.
#[component]
pub fn CanvasMap(
    /// Every seat with its signal, and their keyboard order.
    model: Arc<MapModel>,
) -> impl IntoView {
    let controller = expect_context::<Controller>();
    let bounds = model.layout.bounds;
    let viewport = RwSignal::new(Viewport::whole(bounds));
    let canvas_ref = NodeRef::<leptos::html::Canvas>::new();
    let pointers = StoredValue::new_local(Pointers::default());
    let first = model.layout.first().unwrap_or(0);
    let surface = StoredValue::new_local(Surface::new(scene_of(&model), first));
    let cursor = RwSignal::new(first);

    // One animation frame paints whatever changed since the last.
    let on_frame = {
        let model = Arc::clone(&model);
        Closure::<dyn FnMut(f64)>::new(move |_: f64| {
            let view = viewport.get_untracked();
            surface.update_value(|surface| surface.frame(&model, &view));
        })
    };
    let frames = StoredValue::new_local(on_frame);
    let schedule = move || {
        let request = surface.try_update_value(|s| !std::mem::replace(&mut s.pending, true)).unwrap_or(false);
        if request {
            frames.with_value(|frame| window().request_animation_frame(frame.as_ref().unchecked_ref()).ok());
        }
    };

    // A changed look repaints its seat's square (its section's when zoomed
    // out) and keeps its section's count.
    {
        let painted = Arc::clone(&model);
        model.set_painter(Some(Box::new(move |index, _, old, look| {
            surface.update_value(|surface| {
                if free(old) != free(look)
                    && let Some(&section) = painted.section_of.get(index)
                {
                    surface.scene.sections.count(section, free(look));
                }
                surface.touch_seat(&painted, index);
            });
            schedule();
        })));
        let model = Arc::clone(&model);
        on_cleanup(move || model.set_painter(None));
    }

    // Mounted: size the pixels, allow zooming to finger-sized seats, paint.
    Effect::new(move |_| {
        let Some(canvas) = canvas_ref.get() else { return };
        let canvas: HtmlCanvasElement = canvas;
        let view = viewport.get_untracked();
        if let Some(max) = surface.try_update_value(|s| s.attach(canvas, &view)).flatten() {
            viewport.set(view.with_max_scale(max));
        }
        schedule();
    });
    // Any view change paints the canvas whole, once per frame.
    Effect::new(move |_| {
        viewport.track();
        schedule();
    });
    let on_resize = window_event_listener(leptos::ev::resize, move |_| schedule());
    on_cleanup(move || on_resize.remove());

    // The keyboard's seat: shown on the map, in view, and read out.
    let move_cursor = {
        let model = Arc::clone(&model);
        move |to: usize| {
            let Some(cell) = model.seats.get(to) else { return };
            let (x, y) = (cell.x, cell.y);
            surface.update_value(|s| {
                let from = std::mem::replace(&mut s.cursor, to);
                s.touch_seat(&model, from);
                s.touch_seat(&model, to);
            });
            cursor.set(to);
            let seat_scale = surface.with_value(|s| s.seat_scale(&viewport.get_untracked())).unwrap_or(1.0);
            viewport.update(|view| {
                *view = if view.scale < seat_scale {
                    view.zoom(seat_scale / view.scale).centred_on(x, y)
                } else {
                    view.reveal(x, y, model.radius() * 3.0)
                }
            });
            schedule();
        }
    };

    let on_keydown = {
        let (model, move_cursor) = (Arc::clone(&model), move_cursor.clone());
        move |event: KeyboardEvent| {
            let key = event.key();
            let zoom = match key.as_str() {
                "+" | "=" => Some(viewport.get_untracked().zoom(ZOOM_STEP)),
                "-" => Some(viewport.get_untracked().zoom(1.0 / ZOOM_STEP)),
                "0" => Some(viewport.get_untracked().whole_like()),
                _ => None,
            };
            if let Some(view) = zoom {
                event.prevent_default();
                viewport.set(view);
            } else if let Some(step) = Step::from_key(&key) {
                event.prevent_default();
                move_cursor(model.layout.step(cursor.get_untracked(), step));
            } else if key == "Enter" || key == " " {
                event.prevent_default();
                move_cursor(cursor.get_untracked());
                controller.toggle(cursor.get_untracked());
            }
        }
    };

    let focus_changed = {
        let model = Arc::clone(&model);
        move |focused: bool| {
            surface.update_value(|s| {
                s.focused = focused;
                let at = s.cursor;
                s.touch_seat(&model, at);
            });
            schedule();
        }
    };
    let on_focus = {
        let focus_changed = focus_changed.clone();
        move |_| focus_changed(true)
    };

    let on_click = move |event: MouseEvent| {
        if pointers.try_update_value(Pointers::take_dragged).unwrap_or(false) {
            return;
        }
        let Some(canvas) = canvas_ref.get_untracked() else { return };
        let rect = canvas.get_bounding_client_rect();
        let (x, y) = (f64::from(event.client_x()) - rect.left(), f64::from(event.client_y()) - rect.top());
        if let Some(seat) = surface.with_value(|s| s.seat_at(x, y)) {
            move_cursor(seat);
            controller.toggle(seat);
        } else if let Some(section) = surface.with_value(|s| s.section_at(x, y)) {
            zoom_into(viewport, surface.with_value(|s| s.seat_scale(&viewport.get_untracked())), section);
        }
    };

    let element = move || canvas_ref.get_untracked().map(web_sys::Element::from);
    let gestures = MapGestures { element, viewport, pointers };

    let spoken = {
        let model = Arc::clone(&model);
        move || {
            let at = cursor.get();
            Some(name(model.seats.get(at)?, model.look_tracked(at)))
        }
    };
    let rows = model.layout.row_lines(|seat| model.seats[seat].y);
    let aspect = map_style(bounds, model.radius());
    view! {
        <div class="map">
            <ZoomControls viewport/>
            <Minimap viewport bounds rows/>
            <canvas
                node_ref=canvas_ref
                class="seat-canvas"
                class:zoomed=move || viewport.with(|view| !view.is_whole())
                style=aspect
                tabindex="0"
                role="application"
                aria-roledescription="seat map"
                aria-label="Seat map. Arrow keys move between seats and rows; Enter or Space picks a seat; the list below has every seat."
                data-seats=model.seats.len().to_string()
                data-view=move || viewport.with(Viewport::view_box)
                on:keydown=on_keydown
                on:focus=on_focus
                on:blur=move |_| focus_changed(false)
                on:click=on_click
                on:wheel=gestures.on_wheel()
                on:pointerdown=gestures.on_pointerdown()
                on:pointermove=gestures.on_pointermove()
                on:pointerup=gestures.on_pointerup()
                on:pointercancel=gestures.on_pointerup()
            ></canvas>
            <p class="visually-hidden" aria-live="polite" data-map-cursor="">{spoken}</p>
        </div>
    }
}

/// Zooms so that a section fills most of the view, at least far enough in
/// for its seats to be drawn.
fn zoom_into(viewport: RwSignal<Viewport>, seat_scale: Option<f64>, section: Bounds) {
    viewport.update(|view| {
        let base = view.base();
        let fit = (base.width / section.width.max(1.0)).min(base.height / section.height.max(1.0)) * 0.8;
        let scale = fit.max(seat_scale.unwrap_or(1.0));
        *view =
            view.zoom(scale / view.scale).centred_on(section.x + section.width / 2.0, section.y + section.height / 2.0);
    });
}
