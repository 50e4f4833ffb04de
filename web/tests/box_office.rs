//! The box office on the page in headless Chromium: the legend's prices,
//! seats marked by category, the hold's total, and a channel's seats
//! locked until a code is entered.

// Test code: a panic is the failure report.
#![allow(clippy::unwrap_used)]

mod common;

use common::{click, facts, mount_offer, my_hold, server_now, show};
use leptos::prelude::*;
use leptos::task::tick;
use seat_state::sync::Input;
use seat_state::wire::{CategoryDefinition, ChannelDefinition, ShowOffer};
use wasm_bindgen_test::{wasm_bindgen_test, wasm_bindgen_test_configure};

wasm_bindgen_test_configure!(run_in_browser);

fn category(id: &str, name: &str, price: i64) -> CategoryDefinition {
    CategoryDefinition { id: id.into(), name: name.into(), price, currency: "EUR".into(), color: "#1f6feb".into() }
}

#[wasm_bindgen_test]
async fn prices_categories_total_and_a_locked_channel_seat() {
    let mut show = show(2, 4, 4);
    for seat in &mut show.seats {
        seat.category = Some(if seat.id.starts_with('A') { "premium" } else { "standard" }.to_owned());
    }
    let offer = ShowOffer {
        categories: vec![category("premium", "Premium", 4500), category("standard", "Standard", 2500)],
        channels: vec![ChannelDefinition { id: "presale".into(), code: None, seats: vec!["B4".into()] }],
        ..ShowOffer::default()
    };
    let facts = facts(&show, 1, &[], server_now());
    let page = mount_offer(show, &offer, facts);
    tick().await;

    let prices = page.root.query_selector_all(".legend.prices .price").unwrap();
    assert_eq!(prices.length(), 2);
    let premium = prices.item(0).unwrap().text_content().unwrap();
    assert!(premium.contains("45"), "{premium:?}");
    assert_eq!(page.seat_attr("A1", "data-category"), "0");
    assert_eq!(page.seat_attr("B1", "data-category"), "1");

    assert_eq!(page.seat_attr("B4", "data-locked"), "true");
    assert_eq!(page.seat_attr("B4", "aria-disabled"), "true");
    assert_eq!(page.seat_attr("B4", "data-state"), "free", "its state is still the server's");
    assert!(page.seat_attr("B4", "aria-label").ends_with("needs a code"));
    click(&page.seat("B4"));
    tick().await;
    assert_eq!(page.seat_attr("B4", "aria-pressed"), "false", "not offered without a code");
    page.controller.set_code("SECRET");
    tick().await;
    assert_eq!(page.seat_attr("B4", "data-locked"), "");
    assert_eq!(page.seat_attr("B4", "aria-label"), "Row B, seat 4, available");
    click(&page.seat("B4"));
    tick().await;
    assert_eq!(page.seat_attr("B4", "aria-pressed"), "true", "offered with a code");
    assert_eq!(page.controller.code.get_untracked().as_deref(), Some("SECRET"));
    page.controller.set_code("");
    tick().await;
    assert_eq!(page.seat_attr("B4", "aria-pressed"), "false", "unpicked when the code goes");
    assert_eq!(page.seat_attr("B4", "data-locked"), "true");

    let hold = my_hold("h1", &["A1", "A2", "B1"], server_now().plus_millis(60_000));
    page.controller.live.update_value(|live| {
        live.focus(Some("h1".into()));
        live.feed(Input::MyHolds(vec![hold]));
    });
    tick().await;
    let total = page.find("[data-total]").text_content().unwrap();
    assert!(total.contains("115"), "45 + 45 + 25: {total:?}");
}
