//! The compact wire forms (`?format=compact`, API.md "Live changes (v4)")
//! in headless Chromium: a seat map and a coalesced change, read from their
//! JSON text as the app reads them and decoded with the show's seat order,
//! give the machine what their JSON forms give it, and the page looks the
//! same as a page fed the JSON forms, seat by seat and area by area.

// Test code: a panic is the failure report.
#![allow(clippy::unwrap_used)]

mod common;

use common::{Mounted, facts, json_text, mount_offer, server_now, show};
use leptos::prelude::*;
use leptos::task::tick;
use seat_state::sync::Input;
use seat_state::wire::{
    AreaFact, AreaHoldFact, ChangeEvent, ChannelDefinition, CompactChange, CompactMap, SeatFact, SeatMap, SeatPlace,
    ShowDefinition, ShowOffer,
};
use seathold_web::api::from_json;
use seathold_web::live_map::seat_order;
use wasm_bindgen_test::{wasm_bindgen_test, wasm_bindgen_test_configure};

wasm_bindgen_test_configure!(run_in_browser);

/// Three rows of four; C4 kept for a channel, C1 a wheelchair place.
fn show_and_offer() -> (ShowDefinition, ShowOffer) {
    let show = show(3, 4, 8);
    let mut seats = vec![SeatPlace::default(); show.seats.len()];
    seats[8].access = Some("wheelchair".into());
    let offer = ShowOffer {
        channels: vec![ChannelDefinition { id: "presale".into(), code: None, seats: vec!["C4".into()] }],
        seats,
        ..ShowOffer::default()
    };
    (show, offer)
}

/// A seat's facts as the JSON forms carry them (`mine` only in maps).
fn fact(id: &str, sold: bool, hold_expires_at: Option<i64>, mine: Option<bool>) -> SeatFact {
    let channel = (id == "C4").then(|| "presale".to_owned());
    let access = (id == "C1").then(|| "wheelchair".to_owned());
    SeatFact { id: id.into(), sold, hold_expires_at, mine, channel, access, ..SeatFact::default() }
}

fn standing(sold: i64, holds: Vec<AreaHoldFact>) -> AreaFact {
    AreaFact { id: "standing".into(), capacity: 10, sold, holds }
}

/// The seat map at version 4 as `GET …/seats?only=taken` answers it: A1
/// sold, A2 and A3 held by me, B1 held by someone else (another deadline),
/// B2 blocked, C4 sold and blocked, 3 standing places sold and 2 held.
fn json_map(show: &ShowDefinition) -> SeatMap {
    let now = server_now().0;
    let (soon, later) = (now + 60_000, now + 120_000);
    let mut blocked = fact("B2", false, None, Some(false));
    blocked.blocked = true;
    let mut sold_blocked = fact("C4", true, None, Some(false));
    sold_blocked.blocked = true;
    SeatMap {
        show_id: show.id.clone(),
        server_time: now,
        version: 4,
        seats: vec![
            fact("A1", true, None, Some(false)),
            fact("A2", false, Some(later), Some(true)),
            fact("A3", false, Some(later), Some(true)),
            fact("B1", false, Some(soon), Some(false)),
            blocked,
            sold_blocked,
        ],
        areas: vec![standing(3, vec![AreaHoldFact { quantity: 2, expires_at: soon, mine: Some(false) }])],
    }
}

/// Versions 5 to 7 in one event: A1 free again, A2 sold, B3 and C1 held
/// (one deadline), B2 unblocked, the standing holds gone.
fn json_change() -> ChangeEvent {
    let until = server_now().0 + 90_000;
    ChangeEvent {
        version: 7,
        server_time: server_now().0,
        since: Some(4),
        seats: vec![
            fact("A1", false, None, None),
            fact("A2", true, None, None),
            fact("B3", false, Some(until), None),
            fact("C1", false, Some(until), None),
            fact("B2", false, None, None),
        ],
        areas: vec![standing(3, vec![])],
    }
}

/// Every seat's element and every area's availability, as shown.
fn looks(page: &Mounted, show: &ShowDefinition) -> Vec<String> {
    let mut looks: Vec<String> = show.seats.iter().map(|seat| page.seat(&seat.id).outer_html()).collect();
    looks.push(format!("standing: {}", page.controller.live.with_value(|live| live.available("standing"))));
    looks
}

fn state(page: &Mounted, seat: &str) -> String {
    page.seat_attr(seat, "data-state")
}

/// Sorted by seat id (the compact form groups seats by state).
fn by_id(mut event: ChangeEvent) -> ChangeEvent {
    event.seats.sort_by(|a, b| a.id.cmp(&b.id));
    event
}

#[wasm_bindgen_test]
async fn a_compact_map_and_a_compact_change_show_what_their_json_forms_show() {
    let (show, offer) = show_and_offer();
    let order = seat_order(&show, &offer);
    let (map, change) = (json_map(&show), json_change());
    // What the server sends with `?format=compact`, read as the app reads it.
    let compact_map: CompactMap = from_json(&json_text(&CompactMap::encode(&map, &order).unwrap())).unwrap();
    let compact_change: CompactChange =
        from_json(&json_text(&CompactChange::encode(&change, &order).unwrap())).unwrap();
    assert_eq!(compact_change.p, Some(4), "the coalesced event says what it follows");

    let json_page = mount_offer(show.clone(), &offer, facts(&show, 1, &[], server_now()));
    let compact_page = mount_offer(show.clone(), &offer, facts(&show, 1, &[], server_now()));

    // The machine gets the same map: the JSON form's seats, and every seat
    // it leaves out free (as the whole JSON map lists it: `mine: false`).
    let ids = show.seats.iter().map(|seat| seat.id.as_str());
    let expected = Input::Snapshot(map.clone().with_free_seats(ids));
    let Input::Snapshot(decoded) = compact_page.controller.live.with_value(|live| live.snapshot(&compact_map)).unwrap()
    else {
        panic!("a map is a snapshot")
    };
    assert_eq!((decoded.version, decoded.server_time, &decoded.areas), (map.version, map.server_time, &map.areas));
    assert_eq!(decoded.seats.len(), show.seats.len(), "every seat of the show");
    for fact in &decoded.seats {
        match map.seats.iter().find(|listed| listed.id == fact.id) {
            Some(listed) => assert_eq!(fact, listed),
            None => assert!(
                !fact.sold && fact.hold_expires_at.is_none() && !fact.blocked && fact.mine == Some(false),
                "{fact:?}"
            ),
        }
    }
    assert_eq!(by_id(compact_change.decode(&order).unwrap()), by_id(change.clone()));

    json_page.feed(vec![expected]);
    compact_page.controller.live.try_update_value(|live| live.feed_map(&compact_map)).unwrap().unwrap();
    tick().await;
    assert_eq!(looks(&compact_page, &show), looks(&json_page, &show));
    assert_eq!(state(&compact_page, "A1"), "sold");
    assert_eq!(compact_page.seat_attr("A2", "aria-label"), "Row A, seat 2, held by you");
    assert_eq!(state(&compact_page, "B1"), "held");
    assert_eq!(compact_page.seat_attr("B2", "data-blocked"), "true");
    assert_eq!(state(&compact_page, "C1"), "free");
    assert_eq!(compact_page.controller.live.with_value(|live| live.available("standing")), 5);

    json_page.feed(vec![Input::Change(change)]);
    compact_page.controller.live.try_update_value(|live| live.feed_change(&compact_change)).unwrap().unwrap();
    tick().await;
    assert_eq!(looks(&compact_page, &show), looks(&json_page, &show));
    assert_eq!(compact_page.controller.live.with_value(|live| live.version()), Some(7));
    assert_eq!(state(&compact_page, "A1"), "free");
    assert_eq!(state(&compact_page, "A2"), "sold");
    assert_eq!(state(&compact_page, "B3"), "held");
    assert_eq!(state(&compact_page, "C1"), "held");
    assert_eq!(compact_page.seat_attr("B2", "data-blocked"), "");
    assert_eq!(compact_page.controller.live.with_value(|live| live.available("standing")), 7);
}

#[wasm_bindgen_test]
async fn a_compact_frame_that_does_not_fit_the_show_is_refused_and_changes_nothing() {
    let (show, offer) = show_and_offer();
    let page = mount_offer(show.clone(), &offer, facts(&show, 1, &[], server_now()));
    // Seat 12 is past the show's twelve seats (0 to 11).
    let change: CompactChange = from_json(r#"{"v": 2, "t": 1764460000000, "s": [3, 12]}"#).unwrap();
    assert!(page.controller.live.try_update_value(|live| live.feed_change(&change)).unwrap().is_err());
    let map: CompactMap =
        from_json(r#"{"showId": "test-show", "serverTime": 1764460000000, "version": 3, "s": [12]}"#).unwrap();
    assert!(page.controller.live.try_update_value(|live| live.feed_map(&map)).unwrap().is_err());
    tick().await;
    assert_eq!(page.controller.live.with_value(|live| live.version()), Some(1));
    assert_eq!(state(&page, "A4"), "free", "nothing of the refused change was taken");
}
