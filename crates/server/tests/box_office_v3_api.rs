//! API.md "Box office (v3)" through the router on a real SQLite file: the
//! orphan rule (`would_strand` after availability, lenient, best available
//! under strict) and accessible seating (wheelchair places and companions
//! kept for requests that ask, until `accessReleaseAt`).

// Test code: a panic is the failure report.
#![allow(clippy::unwrap_used)]

mod support;

use seat_state::ServerMillis;
use seathold_core::clock::TestClock;
use serde_json::{Value, json};
use support::{ADMIN_TOKEN, TestApp, assert_error};

const T0: i64 = 1_764_460_000_000;

/// Rows A and B of eight seats (section Stalls), the stage above A4-A5;
/// B1 and B8 wheelchair places with their companions B2 and B7; `extra`
/// overrides show fields.
fn room(extra: Value) -> Value {
    let mut seats = Vec::new();
    for (r, row) in ["A", "B"].iter().enumerate() {
        for n in 1..=8 {
            let mut seat = json!({"id": format!("{row}{n}"), "x": n * 10, "y": r * 10, "section": "Stalls",
                                  "row": row, "number": n});
            match (*row, n) {
                ("B", 1 | 8) => seat["access"] = json!("wheelchair"),
                ("B", 2) => (seat["access"], seat["companionOf"]) = (json!("companion"), json!("B1")),
                ("B", 7) => (seat["access"], seat["companionOf"]) = (json!("companion"), json!("B8")),
                _ => {}
            }
            seats.push(seat);
        }
    }
    let mut show = json!({"id": "room", "name": "Room", "maxActiveHoldsPerHolder": 9, "seats": seats,
                          "focus": {"x": 45, "y": -20}});
    for (key, value) in extra.as_object().unwrap() {
        show[key] = value.clone();
    }
    show
}

async fn app_with(extra: Value) -> TestApp {
    let app = TestApp::new(Some(ADMIN_TOKEN)).await;
    let created = app.create_show(&room(extra)).await;
    assert_eq!(created.status, 201, "{created:?}");
    app
}

#[tokio::test]
async fn strict_refuses_a_hold_that_strands_naming_the_seats_in_row_order() {
    let app = app_with(json!({"orphanRule": "strict"})).await;
    let ann = app.session().await;
    let refused = app.hold(&ann, "room", json!({"seats": ["A7", "A2", "B4"]})).await;
    assert_error(&refused, 409, "would_strand");
    // B3 sits between B2 (kept for access) and B4.
    assert_eq!(refused.body["seats"], json!(["A1", "A8", "B3"]), "{refused:?}");
    let held = app.hold(&ann, "room", json!({"seats": ["A1", "A2"]})).await;
    assert_eq!(held.status, 201, "{held:?}");
    // Availability answers first: A2 is taken, so seats_taken, not would_strand.
    let bob = app.session().await;
    let taken = app.hold(&bob, "room", json!({"seats": ["A2", "A4"]})).await;
    assert_error(&taken, 409, "seats_taken");
    assert_eq!(taken.body["seats"], json!(["A2"]));
    let strands = app.hold(&bob, "room", json!({"seats": ["A4", "A5"]})).await;
    assert_error(&strands, 409, "would_strand");
    assert_eq!(strands.body["seats"], json!(["A3"]));
}

#[tokio::test]
async fn lenient_refuses_only_when_another_block_in_the_row_strands_none() {
    let app = app_with(json!({"orphanRule": "lenient"})).await;
    let ann = app.session().await;
    let refused = app.hold(&ann, "room", json!({"seats": ["A2", "A3"]})).await;
    assert_error(&refused, 409, "would_strand");
    assert_eq!(refused.body["seats"], json!(["A1"]));
    for seats in [json!(["A1", "A2"]), json!(["A5", "A6"])] {
        assert_eq!(app.hold(&ann, "room", json!({"seats": seats})).await.status, 201);
    }
    // Left in row A: A3 A4 | A7 A8. Any single seat strands its neighbour: accepted.
    let bob = app.session().await;
    let held = app.hold(&bob, "room", json!({"seats": ["A3"]})).await;
    assert_eq!((held.status.as_u16(), &held.body["seats"]), (201, &json!(["A3"])), "{held:?}");
}

#[tokio::test]
async fn best_available_under_strict_picks_a_block_that_strands_none_or_none() {
    let app = app_with(json!({"orphanRule": "strict"})).await;
    let ann = app.session().await;
    for seats in [json!(["A1", "A2"]), json!(["A7", "A8"])] {
        assert_eq!(app.hold(&ann, "room", json!({"seats": seats})).await.status, 201);
    }
    // Row A's free A3..A6: the middle pair would strand A3 and A6.
    let bob = app.session().await;
    let held = app.hold(&bob, "room", json!({"best": {"count": 2}})).await;
    assert_eq!(held.status, 201, "{held:?}");
    assert!(held.body["seats"] == json!(["A3", "A4"]) || held.body["seats"] == json!(["A5", "A6"]), "{held:?}");
    // Row B's plain seats B3..B6 (the rest are kept for access): a block of 3 strands one.
    let cat = app.session().await;
    let refused = app.hold(&cat, "room", json!({"best": {"count": 3}})).await;
    assert_error(&refused, 409, "not_enough_seats");
    assert_eq!(refused.body["available"], 4, "B3..B6 as a whole strands none");
}

#[tokio::test]
async fn invalid_rules_and_access_fields_are_refused() {
    let app = TestApp::new(Some(ADMIN_TOKEN)).await;
    assert_error(&app.create_show(&room(json!({"orphanRule": "sometimes"}))).await, 422, "invalid_show");
    assert_error(&app.create_show(&room(json!({"orphanRule": 1}))).await, 400, "bad_request");
    assert_error(&app.create_show(&room(json!({"accessReleaseAt": "soon"}))).await, 400, "bad_request");
    let seat_field = |at: usize, field: &str, value: Value| {
        let mut show = room(json!({}));
        show["seats"][at][field] = value;
        show
    };
    let ramp = seat_field(0, "access", json!("ramp"));
    let answer = app.create_show(&ramp).await;
    assert_error(&answer, 422, "invalid_show");
    assert!(answer.body["message"].as_str().unwrap().contains("access must be"), "{answer:?}");
    // B2's companionOf names A1, not a wheelchair place.
    let answer = app.create_show(&seat_field(9, "companionOf", json!("A1"))).await;
    assert_error(&answer, 422, "invalid_show");
    assert!(answer.body["message"].as_str().unwrap().contains("names no wheelchair seat"), "{answer:?}");
    assert_error(&app.create_show(&seat_field(0, "companionOf", json!("B1"))).await, 422, "invalid_show");
    assert_error(&app.create_show(&seat_field(0, "access", json!(true))).await, 400, "bad_request");
    assert_error(&app.get("/api/shows/room").await, 404, "unknown_show");
}

#[tokio::test]
async fn the_definition_and_the_seat_map_carry_access() {
    // Read back after a restart: from the stored definition.
    let app = app_with(json!({"orphanRule": "lenient", "accessReleaseAt": T0})).await.restart();
    let read = app.get("/api/shows/room").await;
    assert_eq!((read.body["orphanRule"].as_str(), read.body["accessReleaseAt"].as_i64()), (Some("lenient"), Some(T0)));
    let companion = &read.body["seats"][9];
    assert_eq!((&companion["access"], &companion["companionOf"]), (&json!("companion"), &json!("B1")), "{companion}");
    assert_eq!(read.body["seats"][8]["access"], "wheelchair");
    assert_eq!(read.body["seats"][0].get("access"), None);
    let plain = app_with(json!({})).await;
    assert_eq!(plain.get("/api/shows/room").await.body["orphanRule"], "off", "the default is written out");
    let map = app.get("/api/shows/room/seats").await;
    let access: Vec<&Value> = map.body["seats"].as_array().unwrap().iter().map(|seat| &seat["access"]).collect();
    assert_eq!(access[8..10], [&json!("wheelchair"), &json!("companion")]);
    assert_eq!(*access[0], Value::Null);
}

#[tokio::test]
async fn access_seats_need_access_until_released_then_sell_like_any_seat() {
    let clock = TestClock::at(ServerMillis(T0));
    let app = TestApp::with_test_clock(Some(ADMIN_TOKEN), &clock).await;
    assert_eq!(app.create_show(&room(json!({"accessReleaseAt": T0 + 60_000}))).await.status, 201);
    let ann = app.session().await;
    let refused = app.hold(&ann, "room", json!({"seats": ["B1", "B2", "B3"]})).await;
    assert_error(&refused, 409, "seats_unavailable");
    assert_eq!(refused.body["seats"], json!(["B1", "B2"]));
    let held = app.hold(&ann, "room", json!({"seats": ["B1", "B2"], "access": true})).await;
    assert_eq!((held.status.as_u16(), &held.body["seats"]), (201, &json!(["B1", "B2"])), "{held:?}");
    let bob = app.session().await;
    assert_error(&app.hold(&bob, "room", json!({"seats": ["B8"], "access": "yes"})).await, 400, "bad_request");
    clock.set(ServerMillis(T0 + 60_000));
    let held = app.hold(&bob, "room", json!({"seats": ["B7", "B8"]})).await;
    assert_eq!((held.status.as_u16(), &held.body["seats"]), (201, &json!(["B7", "B8"])), "released: {held:?}");
}

#[tokio::test]
async fn best_available_with_wheelchair_places_holds_each_with_its_companion() {
    let app = app_with(json!({})).await;
    let ann = app.session().await;
    // Plain best skips the kept seats.
    let plain = app.hold(&ann, "room", json!({"best": {"count": 8}})).await;
    assert_eq!(
        (plain.status.as_u16(), &plain.body["seats"]),
        (201, &json!(["A1", "A2", "A3", "A4", "A5", "A6", "A7", "A8"]))
    );
    let bob = app.session().await;
    let body = json!({"holdId": "wheelchair-1", "best": {"count": 3, "wheelchair": 1}});
    let held = app.hold(&bob, "room", body.clone()).await;
    assert_eq!(held.status, 201, "{held:?}");
    assert!(
        held.body["seats"] == json!(["B1", "B2", "B3"]) || held.body["seats"] == json!(["B6", "B7", "B8"]),
        "{held:?}"
    );
    assert_eq!(app.hold(&bob, "room", body).await.status, 200, "a replay answers the same hold");
    let invalid = app.hold(&bob, "room", json!({"best": {"count": 3, "wheelchair": 2}})).await;
    assert_error(&invalid, 422, "invalid_seats");
    let cat = app.session().await;
    let second = app.hold(&cat, "room", json!({"best": {"count": 2, "wheelchair": 1}})).await;
    assert_eq!(second.status, 201, "the other place and its companion: {second:?}");
    let none = app.hold(&cat, "room", json!({"best": {"count": 2, "wheelchair": 1}})).await;
    assert_error(&none, 409, "not_enough_seats");
}

#[tokio::test]
async fn the_document_describes_the_new_fields() {
    let app = TestApp::new(None).await;
    let schemas = app.get("/api/openapi.json").await.body["components"]["schemas"].clone();
    assert_eq!(schemas["ShowInput"]["properties"]["orphanRule"]["enum"], json!(["off", "lenient", "strict", null]));
    assert!(schemas["ShowInput"]["properties"]["accessReleaseAt"].is_object());
    assert!(schemas["SeatFact"]["properties"]["access"].is_object());
    let order = schemas["HoldOrder"]["allOf"].as_array().unwrap().iter().find(|p| p["properties"].is_object()).unwrap();
    assert_eq!(order["properties"]["access"]["type"], json!(["boolean", "null"]), "{order}");
    assert_eq!(schemas["BestRequestBody"]["properties"]["wheelchair"]["minimum"], 0);
    let seat = schemas["VenueSeat"]["allOf"].as_array().unwrap().iter().find(|p| p["properties"].is_object()).unwrap();
    assert_eq!(seat["properties"]["access"]["enum"], json!(["wheelchair", "companion", null]), "{seat}");
}
