//! Mounts the seat map in headless Chromium with fixture facts.

// Test code: a panic is the failure report.
#![allow(clippy::unwrap_used)]

use leptos::prelude::*;
use leptos::task::tick;
use wasm_bindgen::JsCast;
use wasm_bindgen_test::{wasm_bindgen_test, wasm_bindgen_test_configure};

use seat_state::ServerMillis;
use seathold_web::components::seat_map::{SeatMap, SeatOnMap};

wasm_bindgen_test_configure!(run_in_browser);

const NOW: ServerMillis = ServerMillis(1_764_460_000_000);

fn seat(id: &str, x: f64, sold: bool, hold_expires_at: Option<ServerMillis>) -> SeatOnMap {
    SeatOnMap {
        id: id.into(),
        label: format!("Row A, seat {id}"),
        x,
        y: 0.0,
        sold,
        hold_expires_at,
    }
}

fn mount(seats: Vec<SeatOnMap>, now: Signal<ServerMillis>) -> (web_sys::HtmlElement, impl Sized) {
    let document = document();
    let wrapper: web_sys::HtmlElement =
        document.create_element("section").unwrap().unchecked_into();
    document.body().unwrap().append_child(&wrapper).unwrap();
    let handle = leptos::mount::mount_to(
        wrapper.clone(),
        move || view! { <SeatMap seats server_now=now/> },
    );
    (wrapper, handle)
}

fn state_of(root: &web_sys::HtmlElement, seat_id: &str) -> String {
    root.query_selector(&format!("[data-seat-id=\"{seat_id}\"]"))
        .unwrap()
        .unwrap_or_else(|| panic!("seat {seat_id} is not drawn"))
        .get_attribute("data-state")
        .unwrap()
}

#[wasm_bindgen_test]
async fn seats_render_the_state_seat_state_derives() {
    let seats = vec![
        seat("A1", 0.0, false, Some(NOW.plus_millis(-1))),
        seat("A2", 30.0, false, Some(NOW.plus_millis(60_000))),
        seat("A3", 60.0, true, None),
        seat("A4", 90.0, false, None),
    ];
    let (root, _handle) = mount(seats, Signal::stored(NOW));
    tick().await;
    assert_eq!(state_of(&root, "A1"), "free", "a past deadline is no hold");
    assert_eq!(state_of(&root, "A2"), "held");
    assert_eq!(state_of(&root, "A3"), "sold");
    assert_eq!(state_of(&root, "A4"), "free");
    assert_eq!(
        root.query_selector_all("[data-seat-id]").unwrap().length(),
        4
    );
}

#[wasm_bindgen_test]
async fn a_held_seat_turns_free_at_its_deadline_without_new_facts() {
    let now = RwSignal::new(NOW);
    let (root, _handle) = mount(
        vec![seat("B1", 0.0, false, Some(NOW.plus_millis(5_000)))],
        now.into(),
    );
    tick().await;
    assert_eq!(state_of(&root, "B1"), "held");
    let label = root
        .query_selector("[data-seat-id=\"B1\"]")
        .unwrap()
        .unwrap()
        .get_attribute("aria-label")
        .unwrap();
    assert_eq!(label, "Row A, seat B1, held");
    now.set(NOW.plus_millis(5_000));
    tick().await;
    assert_eq!(state_of(&root, "B1"), "free");
}
