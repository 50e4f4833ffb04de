//! The seat map in headless Chromium: hooks, keyboard, selection limits,
//! conflicts, and that one change repaints one seat of a 20,000-seat arena.

// Test code: a panic is the failure report.
#![allow(clippy::unwrap_used)]

mod common;

use common::{change, click, facts, focused_seat, mount, press, server_now, show};
use leptos::task::tick;
use seat_state::sync::Input;
use seat_state::wire::ErrorBody;
use seathold_web::api::ApiError;
use std::cell::RefCell;
use std::rc::Rc;

use wasm_bindgen::JsCast;
use wasm_bindgen::prelude::Closure;
use wasm_bindgen_test::{console_log, wasm_bindgen_test, wasm_bindgen_test_configure};

wasm_bindgen_test_configure!(run_in_browser);

#[wasm_bindgen_test]
async fn every_seat_has_its_hooks_and_accessible_name() {
    let show = show(3, 4, 2);
    let facts = facts(&show, 1, &["B2"], server_now().plus_millis(60_000));
    let page = mount(show, facts);
    tick().await;
    assert_eq!(page.root.query_selector_all("[data-seat-id]").unwrap().length(), 12);
    assert_eq!(page.seat_attr("B1", "data-state"), "free");
    assert_eq!(page.seat_attr("B2", "data-state"), "held");
    assert_eq!(page.seat_attr("B1", "aria-label"), "Row B, seat 1, available");
    assert_eq!(page.seat_attr("B2", "aria-label"), "Row B, seat 2, held");
    assert_eq!(page.seat_attr("B1", "aria-pressed"), "false");
    assert_eq!(page.seat_attr("B1", "role"), "button");
    assert_eq!(page.seat_attr("A1", "tabindex"), "0", "the first seat is the tab stop");
    assert_eq!(page.seat_attr("B1", "tabindex"), "-1");
    assert!(page.seat("B2").get_attribute("data-mine").is_none());
    assert_eq!(page.find("[data-action=hold]").get_attribute("disabled").as_deref(), Some(""));
    let rows: Vec<String> = (0..3)
        .map(|at| page.root.query_selector_all(".row-label").unwrap().item(at).unwrap().text_content().unwrap())
        .collect();
    assert_eq!(rows, ["A", "B", "C"], "each row is named beside it, top to bottom");
}

#[wasm_bindgen_test]
async fn arrow_keys_move_between_seats_and_rows_and_enter_picks() {
    let show = show(3, 4, 4);
    let facts = facts(&show, 1, &[], server_now());
    let page = mount(show, facts);
    tick().await;
    let a1 = page.seat("A1").dyn_into::<web_sys::SvgElement>().unwrap();
    a1.focus().unwrap();
    let key = |name: &str| press(&document_active(), name);
    key("ArrowRight");
    tick().await;
    assert_eq!(focused_seat(), "A2");
    key("ArrowDown");
    tick().await;
    assert_eq!(focused_seat(), "B2");
    key("End");
    tick().await;
    assert_eq!(focused_seat(), "B4");
    key("ArrowRight");
    tick().await;
    assert_eq!(focused_seat(), "B4", "the row's end stops the focus");
    key("ArrowUp");
    key("ArrowUp");
    tick().await;
    assert_eq!(focused_seat(), "A4", "the first row stops the focus");
    key("Home");
    tick().await;
    assert_eq!(focused_seat(), "A1");
    assert_eq!(page.seat_attr("A1", "tabindex"), "0", "the tab stop follows the focus");
    assert_eq!(page.seat_attr("A4", "tabindex"), "-1");
    key("Enter");
    tick().await;
    assert_eq!(page.seat_attr("A1", "aria-pressed"), "true");
    assert_eq!(page.seat_attr("A1", "aria-label"), "Row A, seat 1, available, selected");
    key(" ");
    tick().await;
    assert_eq!(page.seat_attr("A1", "aria-pressed"), "false", "Space toggles back");
}

fn document_active() -> web_sys::Element {
    leptos::prelude::document().active_element().unwrap()
}

#[wasm_bindgen_test]
async fn picking_beyond_the_limit_says_so_and_changes_nothing() {
    let show = show(2, 4, 2);
    let facts = facts(&show, 1, &["B1"], server_now().plus_millis(60_000));
    let page = mount(show, facts);
    tick().await;
    click(&page.seat("A1"));
    click(&page.seat("A2"));
    tick().await;
    assert_eq!(page.seat_attr("A1", "aria-pressed"), "true");
    assert_eq!(page.seat_attr("A2", "aria-pressed"), "true");
    assert_eq!(page.alert(), "");
    click(&page.seat("A3"));
    tick().await;
    assert_eq!(page.seat_attr("A3", "aria-pressed"), "false");
    assert!(page.alert().contains("up to 2 places"), "alert was {:?}", page.alert());
    let picked = page.find(".picked").text_content().unwrap();
    assert!(picked.contains("2 places of 2 picked: A1 and A2"), "picked: {picked:?}");
    click(&page.seat("A1"));
    click(&page.seat("B1"));
    tick().await;
    assert_eq!(page.seat_attr("A1", "aria-pressed"), "false", "a picked seat unpicks");
    assert_eq!(page.seat_attr("B1", "aria-pressed"), "false", "a held seat cannot be picked");
    assert!(page.find("p.status").text_content().unwrap().contains("Row B, seat 1 is held"));
    assert!(page.find("[data-action=hold]").get_attribute("disabled").is_none());
}

#[wasm_bindgen_test]
async fn a_conflict_names_the_taken_seats_and_keeps_the_rest_picked() {
    let show = show(2, 10, 8);
    let facts = facts(&show, 1, &[], server_now());
    let page = mount(show, facts);
    tick().await;
    for seat in ["B7", "B8", "B9"] {
        click(&page.seat(seat));
    }
    tick().await;
    let refusal = ApiError::Server {
        status: 409,
        body: ErrorBody {
            error: "seats_taken".into(),
            message: "B8 was just taken.".into(),
            server_time: server_now().0,
            seats: Some(vec!["B8".into()]),
            area: None,
            available: None,
            queue: None,
        },
        retry_after_millis: None,
    };
    page.controller.refused(&refusal);
    tick().await;
    assert!(page.alert().starts_with("Row B, seat 8 (B8) was just taken."), "alert was {:?}", page.alert());
    assert_eq!(page.seat_attr("B8", "aria-pressed"), "false");
    assert_eq!(page.seat_attr("B7", "aria-pressed"), "true");
    assert_eq!(page.seat_attr("B9", "aria-pressed"), "true");

    // Someone else takes a picked seat: it is unpicked and named at once.
    page.feed(vec![Input::Change(change(2, "B9", false, Some(server_now().plus_millis(60_000))))]);
    tick().await;
    assert_eq!(page.seat_attr("B9", "data-state"), "held");
    assert_eq!(page.seat_attr("B9", "aria-pressed"), "false");
    assert_eq!(page.seat_attr("B7", "aria-pressed"), "true");
    assert!(page.alert().starts_with("Row B, seat 9 (B9) was just taken."), "alert was {:?}", page.alert());
}

/// The seat ids that mutation records name.
fn seats_of(records: &js_sys::Array) -> Vec<String> {
    records
        .iter()
        .filter_map(|record| {
            let target = record.unchecked_into::<web_sys::MutationRecord>().target()?;
            target.unchecked_into::<web_sys::Element>().get_attribute("data-seat-id")
        })
        .collect()
}

/// Seats whose attributes changed while `act` ran, observed in the DOM.
async fn repainted(root: &web_sys::Element, act: impl FnOnce()) -> Vec<String> {
    let seen = Rc::new(RefCell::new(Vec::new()));
    let record = {
        let seen = Rc::clone(&seen);
        Closure::<dyn FnMut(js_sys::Array)>::new(move |records: js_sys::Array| {
            seen.borrow_mut().extend(seats_of(&records));
        })
    };
    let observer = web_sys::MutationObserver::new(record.as_ref().unchecked_ref()).unwrap();
    let options = web_sys::MutationObserverInit::new();
    options.set_attributes(true);
    options.set_subtree(true);
    observer.observe_with_options(root, &options).unwrap();
    act();
    tick().await;
    seen.borrow_mut().extend(seats_of(&observer.take_records()));
    observer.disconnect();
    let mut seats = seen.borrow().clone();
    seats.sort();
    seats.dedup();
    seats
}

#[wasm_bindgen_test]
async fn a_20000_seat_arena_renders_and_one_change_repaints_one_seat() {
    let show = show(100, 200, 8);
    let facts = facts(&show, 1, &[], server_now());
    let started = js_sys::Date::now();
    let page = mount(show, facts);
    tick().await;
    let rendered = js_sys::Date::now() - started;
    assert_eq!(page.root.query_selector_all("[data-seat-id]").unwrap().length(), 20_000);

    let svg = page.find("svg.seat-map");
    let started = js_sys::Date::now();
    let touched = repainted(&svg, || {
        page.feed(vec![Input::Change(change(2, "CV150", false, Some(server_now().plus_millis(60_000))))]);
    })
    .await;
    let applied = js_sys::Date::now() - started;
    assert_eq!(page.seat_attr("CV150", "data-state"), "held");
    assert_eq!(touched, vec!["CV150".to_owned()]);

    let touched = repainted(&svg, || click(&page.seat("A7"))).await;
    assert_eq!(
        touched,
        vec!["A1".to_owned(), "A7".to_owned()],
        "picking repaints the picked seat and the old tab stop"
    );
    console_log!("arena (debug build): first render {rendered:.0} ms, one change {applied:.1} ms");
}
