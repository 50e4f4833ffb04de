//! Time and live changes in headless Chromium: the countdown against a fake
//! clock an hour off, the flip from held to free at the deadline by the
//! map's own timer, stale changes ignored, and the panel following the
//! newest active hold.

// Test code: a panic is the failure report.
#![allow(clippy::unwrap_used)]

mod common;

use common::{UNCERTAINTY, advance, change, facts, mount, my_hold, server_now, show, sleep};
use leptos::task::tick;
use seat_state::Countdown;
use seat_state::sync::Input;
use wasm_bindgen_test::{wasm_bindgen_test, wasm_bindgen_test_configure};

wasm_bindgen_test_configure!(run_in_browser);

#[wasm_bindgen_test]
async fn the_countdown_shows_buffered_server_time_and_ends_before_the_server() {
    let show = show(2, 4, 8);
    let deadline = server_now().plus_millis(600_000);
    let facts = facts(&show, 1, &["A1"], deadline);
    let page = mount(show, facts);
    page.feed(vec![Input::MyHolds(vec![my_hold("hold-0001", &["A1"], deadline)])]);
    page.focus("hold-0001");
    tick().await;
    // 600 s on the server clock, less the buffer and the estimate's uncertainty.
    let shown = 600_000 - Countdown::DEFAULT_BUFFER_MILLIS - UNCERTAINTY;
    let countdown = page.find("[data-countdown]");
    assert_eq!(countdown.get_attribute("data-countdown").unwrap(), "9:54");
    assert_eq!(countdown.text_content().unwrap(), "9:54");
    assert_eq!(countdown.get_attribute("data-remaining-ms").unwrap(), shown.to_string());
    assert_eq!(page.seat_attr("A1", "data-mine"), "true");
    assert_eq!(page.seat_attr("A1", "aria-label"), "Row A, seat 1, held by you");
    assert!(page.find("[data-action=extend]").text_content().unwrap().contains("2 extensions left"));

    // Within the same second nothing is written.
    advance(500);
    page.tick();
    tick().await;
    assert_eq!(countdown.get_attribute("data-remaining-ms").unwrap(), shown.to_string());

    // Down to the last minute: a warning.
    advance(shown - 60_000 - 500 + 1);
    page.tick();
    tick().await;
    let countdown = page.find("[data-countdown]");
    assert_eq!(countdown.text_content().unwrap(), "0:59");
    assert_eq!(countdown.get_attribute("data-phase").unwrap(), "warning");
    assert!(page.root.text_content().unwrap().contains("Less than a minute left"));

    // At the buffered end it shows expired while the server still holds it.
    advance(59_999);
    page.tick();
    tick().await;
    assert_eq!(page.find("[data-countdown]").text_content().unwrap(), "0:00");
    assert!(page.root.query_selector("[data-action=confirm]").unwrap().is_none(), "no Confirm once expired");
    assert!(page.root.text_content().unwrap().contains("Your hold has expired"));
    assert_eq!(page.seat_attr("A1", "data-state"), "held", "the server's deadline is still ahead");
}

#[wasm_bindgen_test]
async fn a_held_seat_turns_free_at_its_deadline_by_the_maps_own_timer() {
    let show = show(2, 4, 8);
    let deadline = server_now().plus_millis(300);
    let facts = facts(&show, 1, &["B2", "B3"], server_now().plus_millis(60_000));
    let page = mount(show, facts);
    page.feed(vec![Input::Change(change(2, "B2", false, Some(deadline)))]);
    tick().await;
    assert_eq!(page.seat_attr("B2", "data-state"), "held");
    // The fake clock jumps to the deadline as the server's clock surely
    // reads it (the estimate's uncertainty after its middle); only the
    // timer the map set for it (≈350 ms of real time) may notice.
    advance(300 + UNCERTAINTY);
    sleep(50).await;
    assert_eq!(page.seat_attr("B2", "data-state"), "held", "nothing re-derives the map every tick");
    sleep(400).await;
    assert_eq!(page.seat_attr("B2", "data-state"), "free");
    assert_eq!(page.seat_attr("B2", "aria-label"), "Row B, seat 2, available");
    assert_eq!(page.seat_attr("B3", "data-state"), "held", "a later deadline is untouched");
}

#[wasm_bindgen_test]
async fn stale_and_duplicate_changes_are_ignored() {
    let show = show(2, 4, 8);
    let facts = facts(&show, 5, &[], server_now());
    let page = mount(show, facts);
    let later = Some(server_now().plus_millis(60_000));
    page.feed(vec![Input::Change(change(4, "A2", true, None)), Input::Change(change(5, "A3", true, None))]);
    tick().await;
    assert_eq!(page.seat_attr("A2", "data-state"), "free", "version 4 is older than the snapshot");
    assert_eq!(page.seat_attr("A3", "data-state"), "free", "version 5 is already known");
    page.feed(vec![Input::Change(change(6, "A2", false, later))]);
    page.feed(vec![Input::Change(change(6, "A2", true, None))]);
    tick().await;
    assert_eq!(page.seat_attr("A2", "data-state"), "held", "a duplicate of version 6 changes nothing");
    page.feed(vec![Input::Change(change(8, "A4", true, None))]);
    tick().await;
    assert_eq!(page.seat_attr("A4", "data-state"), "free", "version 8 waits for version 7");
    page.feed(vec![Input::Change(change(7, "A1", true, None))]);
    tick().await;
    assert_eq!(page.seat_attr("A1", "data-state"), "sold");
    assert_eq!(page.seat_attr("A4", "data-state"), "sold", "then version 8 applies");
}

#[wasm_bindgen_test]
async fn on_load_the_panel_follows_the_newest_active_hold() {
    let mut show = show(2, 4, 8);
    show.max_active_holds_per_holder = 2;
    let until = server_now().plus_millis(600_000);
    let facts = facts(&show, 1, &["A1", "A2"], until);
    let page = mount(show, facts);
    // `GET /api/holds` lists them newest first.
    let holds = vec![my_hold("hold-new", &["A2"], until), my_hold("hold-old", &["A1"], until)];
    page.feed(vec![Input::MyHolds(holds)]);
    page.focus_newest_active();
    tick().await;
    assert_eq!(page.find(".held-places").text_content().unwrap(), "Held for you: Row A, seat 2");
}
