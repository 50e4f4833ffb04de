use std::sync::Arc;

use leptos::prelude::*;
use wasm_bindgen::JsCast;
use web_sys::{KeyboardEvent, MouseEvent};

use crate::components::gesture::{MapGestures, Pointers};
use crate::components::minimap::Minimap;
use crate::components::seat::{markup, repaint};
use crate::components::zoom_controls::ZoomControls;
use crate::controller::Controller;
use crate::layout::Step;
use crate::model::{MapModel, SeatLook};
use crate::viewport::{Viewport, ZOOM_STEP, middle_near, nearest};
use seat_state::drawing::shape::{map_style, row_labels};

/// The smallest seat (CSS pixels) a finger is offered at the default zoom.
const MIN_TAP_PX: f64 = 24.0;

/// The index of the seat an event happened on (by its `data-seat-id`: the
/// markup carries no index, one attribute fewer on 20,000 elements).
fn seat_index(model: &MapModel, target: Option<web_sys::EventTarget>) -> Option<usize> {
    let seat = target?.dyn_into::<web_sys::Element>().ok()?.closest("[data-seat-id]").ok()??;
    model.find(&seat.get_attribute("data-seat-id")?)
}

/// The seat map: every seat at its place, the stage side at the top, with
/// zoom and pan (buttons, wheel, drag, pinch, `+`/`-`/`0`) and keyboard
/// navigation (arrows between seats and rows, Home/End, Enter/Space to
/// pick). Clicks and keys are handled once for the whole map, not per seat.
#[component]
pub fn SeatMap(
    /// Every seat with its signal, and their keyboard order.
    model: Arc<MapModel>,
    /// The stage's place on the map (the top middle when not given): a
    /// phone's map opens on the seats nearest it.
    #[prop(default = None)]
    stage: Option<(f64, f64)>,
) -> impl IntoView {
    // Picks go to the controller (context).
    let controller = expect_context::<Controller>();
    let bounds = model.layout.bounds;
    let viewport = RwSignal::new(Viewport::whole(bounds));
    let radius = model.radius();
    let svg_ref = NodeRef::<leptos::svg::Svg>::new();
    let pointers = StoredValue::new_local(Pointers::default());

    // The seats' group: its children are the seats, in the model's order.
    let seats_ref = NodeRef::<leptos::svg::G>::new();

    // The seat Tab lands on (roving tab stop): arrows and clicks move it.
    let tab_stop = StoredValue::new(model.layout.first().unwrap_or(0));
    let focus_seat = {
        let model = Arc::clone(&model);
        move |to: usize| {
            model.move_tab_stop(tab_stop.get_value(), to);
            tab_stop.set_value(to);
            if let Some(cell) = model.seats.get(to) {
                viewport.update(|view| *view = view.reveal(cell.x, cell.y, radius * 2.0));
            }
            let target = seats_ref
                .get_untracked()
                .and_then(|group| group.children().item(u32::try_from(to).ok()?))
                .and_then(|element| element.dyn_into::<web_sys::SvgElement>().ok());
            if let Some(element) = target {
                let _ = element.focus();
            }
        }
    };

    let on_keydown = {
        let model = Arc::clone(&model);
        let focus_seat = focus_seat.clone();
        move |event: KeyboardEvent| {
            let key = event.key();
            let zoom = match key.as_str() {
                "+" | "=" => Some(viewport.get_untracked().zoom(ZOOM_STEP)),
                "-" => Some(viewport.get_untracked().zoom(1.0 / ZOOM_STEP)),
                "0" => Some(Viewport::whole(bounds)),
                _ => None,
            };
            if let Some(view) = zoom {
                event.prevent_default();
                viewport.set(view);
                return;
            }
            let Some(index) = seat_index(&model, event.target()) else {
                return;
            };
            if let Some(step) = Step::from_key(&key) {
                event.prevent_default();
                focus_seat(model.layout.step(index, step));
            } else if key == "Enter" || key == " " {
                event.prevent_default();
                controller.toggle(index);
            }
        }
    };

    let on_click = {
        let model = Arc::clone(&model);
        move |event: MouseEvent| {
            let dragged = pointers.try_update_value(Pointers::take_dragged).unwrap_or(false);
            if dragged {
                return;
            }
            if let Some(index) = seat_index(&model, event.target()) {
                focus_seat(index);
                controller.toggle(index);
            }
        }
    };

    let element = move || svg_ref.get_untracked().map(web_sys::Element::from);
    let gestures = MapGestures { element, viewport, pointers };

    // Every seat's element in one string, parsed by the browser at once.
    let mut seats = String::with_capacity(model.seats.len() * 240);
    for (at, cell) in model.seats.iter().enumerate() {
        markup(&mut seats, cell, model.look(at).unwrap_or(SeatLook::FREE), radius);
    }
    // A changed look repaints only its seat, through the model (no render
    // effect per seat: setting up 20,000 of them cost the first render).
    model.set_painter(Some(Box::new(move |index, cell, old, look| {
        let element = seats_ref.get_untracked().and_then(|group| group.children().item(index as u32));
        if let Some(element) = element {
            repaint(&element, cell, radius, old, look);
        }
    })));
    {
        let model = Arc::clone(&model);
        on_cleanup(move || model.set_painter(None));
    }
    // The rows' names, as the seats, in one string (an arena has ~1,250).
    let row_labels = row_labels(&model.layout, |seat| model.seats[seat].y, radius);
    let rows = model.layout.row_lines(|seat| model.seats[seat].y);
    // A finger needs about 24 px: with a coarse pointer, start zoomed in on
    // the seats nearest the stage far enough for seats that size (pan and the
    // minimap reach the rest); a venue that fits stays whole.
    let opening_model = Arc::clone(&model);
    Effect::new(move |_| {
        let model = &opening_model;
        let Some(svg) = svg_ref.get() else {
            return;
        };
        let coarse = window().match_media("(pointer: coarse)").ok().flatten().is_some_and(|query| query.matches());
        if !coarse {
            return;
        }
        // Only now: reading the width lays out every seat before the first frame.
        let width = svg.get_bounding_client_rect().width();
        if width <= 0.0 {
            return;
        }
        let seat_px = 2.0 * radius * width / bounds.width.max(1e-6);
        if seat_px < MIN_TAP_PX {
            // The stage (or the top middle) may be empty space (a bowl's
            // opening): open on the block of seats around the seat nearest it.
            let zoomed = Viewport::whole(bounds).zoom(MIN_TAP_PX * 1.05 / seat_px);
            let (focus_x, focus_y) = stage.unwrap_or((bounds.x + bounds.width / 2.0, bounds.y));
            let places = || model.seats.iter().map(|cell| (cell.x, cell.y));
            let opening = nearest(places(), focus_x, focus_y).map_or(zoomed, |at| {
                let shown = zoomed.visible();
                let reach = shown.width.min(shown.height) / 2.0;
                let (x, y) = middle_near(places(), model.seats[at].x, model.seats[at].y, reach);
                zoomed.centred_on(x, y)
            });
            viewport.set(opening);
        }
    });
    let aspect = map_style(bounds, radius);
    view! {
        <div class="map">
            <ZoomControls viewport/>
            <Minimap viewport bounds rows/>
            <svg
                node_ref=svg_ref
                class="seat-map"
                class:zoomed=move || viewport.with(|view| !view.is_whole())
                style=aspect
                role="group"
                aria-label="Seat map. Arrow keys move between seats and rows; Enter or Space picks a seat."
                viewBox=move || viewport.with(Viewport::view_box)
                preserveAspectRatio="xMidYMid meet"
                on:keydown=on_keydown
                on:click=on_click
                on:wheel=gestures.on_wheel()
                on:pointerdown=gestures.on_pointerdown()
                on:pointermove=gestures.on_pointermove()
                on:pointerup=gestures.on_pointerup()
                on:pointercancel=gestures.on_pointerup()
            >
                <g class="row-labels" aria-hidden="true" inner_html=row_labels></g>
                <g class="seats" node_ref=seats_ref inner_html=seats></g>
            </svg>
        </div>
    }
}
