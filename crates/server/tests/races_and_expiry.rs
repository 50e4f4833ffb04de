//! Concurrency and time: racing holders, deadlines without any sweep, and
//! late expiries that must do nothing.

// Test code: a panic is the failure report.
#![allow(clippy::unwrap_used)]

mod support;

use std::sync::Arc;
use std::time::Duration;

use serde_json::{Value, json};
use support::{ADMIN_TOKEN, TestApp, assert_error, show_with};

async fn app_with_show(overrides: Value) -> Arc<TestApp> {
    let app = TestApp::new(Some(ADMIN_TOKEN)).await;
    assert_eq!(app.create_show(&show_with("s", 60, 5, overrides)).await.status, 201);
    Arc::new(app)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn eight_holders_race_for_five_places_and_exactly_five_win() {
    let app = app_with_show(json!({})).await;
    let mut racers = Vec::new();
    for _ in 0..8 {
        let app = Arc::clone(&app);
        let token = app.session().await;
        racers.push(tokio::spawn(async move { app.hold(&token, "s", json!({"areas": {"floor": 1}})).await }));
    }
    let mut statuses = Vec::new();
    for racer in racers {
        let answer = racer.await.unwrap();
        if answer.status != 201 {
            assert_error(&answer, 409, "not_enough_seats");
        }
        statuses.push(answer.status.as_u16());
    }
    assert_eq!(statuses.iter().filter(|s| **s == 201).count(), 5, "{statuses:?}");
    let map = app.get("/api/shows/s/seats").await;
    assert_eq!(map.body["areas"][0]["holds"].as_array().unwrap().len(), 5);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn fifty_holders_race_for_overlapping_pairs_and_each_seat_has_one_winner() {
    let app = app_with_show(json!({})).await;
    let mut racers = Vec::new();
    for n in 0..50 {
        let app = Arc::clone(&app);
        let token = app.session().await;
        // Pairs A1+A2, A2+A3, … A10+A1 (five racers per pair): every pair overlaps two others.
        let (first, second) = (n % 10 + 1, (n + 1) % 10 + 1);
        let seats = json!([format!("A{first}"), format!("A{second}")]);
        racers.push(tokio::spawn(async move { (seats.clone(), app.hold(&token, "s", json!({"seats": seats})).await) }));
    }
    let mut owner = std::collections::HashMap::new();
    for racer in racers {
        let (seats, answer) = racer.await.unwrap();
        match answer.status.as_u16() {
            201 => {
                for seat in seats.as_array().unwrap() {
                    let hold = answer.body["holdId"].clone();
                    assert!(owner.insert(seat.as_str().unwrap().to_owned(), hold).is_none(), "{seat} won twice");
                }
            }
            _ => assert_error(&answer, 409, "seats_taken"),
        }
    }
    assert!(!owner.is_empty());
    let map = app.get("/api/shows/s/seats").await;
    let now = map.server_time_header.unwrap();
    for seat in map.body["seats"].as_array().unwrap() {
        let held = seat["holdExpiresAt"].as_i64().is_some_and(|t| t > now);
        assert_eq!(held, owner.contains_key(seat["id"].as_str().unwrap()), "{seat}");
    }
}

/// Waits until the server clock (as the app reports it) passes `deadline`.
async fn until_server_time_passes(app: &TestApp, deadline: i64) {
    loop {
        let now = app.get("/api/time").await.server_time_header.unwrap();
        if now > deadline {
            return;
        }
        tokio::time::sleep(Duration::from_millis((deadline - now + 1).clamp(1, 100) as u64)).await;
    }
}

#[tokio::test]
async fn a_past_deadline_frees_the_seat_without_any_sweep() {
    let app = app_with_show(json!({"holdSeconds": 1})).await;
    let (a, b) = (app.session().await, app.session().await);
    let held = app.hold(&a, "s", json!({"holdId": "will-expire", "seats": ["A1"], "areas": {"floor": 5}})).await;
    assert_eq!(held.status, 201);
    assert_error(&app.hold(&b, "s", json!({"seats": ["A1"]})).await, 409, "seats_taken");
    until_server_time_passes(&app, held.body["expiresAt"].as_i64().unwrap()).await;

    let status = app.call("GET", "/api/holds/will-expire", Some(&a), None).await;
    assert_eq!(status.body["status"], "EXPIRED");
    assert_error(&app.call("POST", "/api/holds/will-expire/confirm", Some(&a), None).await, 410, "hold_expired");
    assert_error(&app.call("POST", "/api/holds/will-expire/extend", Some(&a), None).await, 410, "hold_expired");
    let retaken = app.hold(&b, "s", json!({"seats": ["A1"], "areas": {"floor": 5}})).await;
    assert_eq!(retaken.status, 201, "{retaken:?}");
    // Releasing the expired hold now only makes a late confirm impossible.
    assert_eq!(app.call("DELETE", "/api/holds/will-expire", Some(&a), None).await.status, 204);
    assert_eq!(app.call("GET", "/api/holds/will-expire", Some(&a), None).await.body["status"], "RELEASED");
}

#[tokio::test]
async fn honor_if_free_confirms_late_only_when_every_place_is_still_free() {
    let app = app_with_show(json!({"holdSeconds": 1, "latePolicy": "honorIfFree", "maxActiveHoldsPerHolder": 2})).await;
    let (a, b) = (app.session().await, app.session().await);
    let free = app.hold(&a, "s", json!({"holdId": "late-but-free", "seats": ["A1"]})).await;
    let taken = app.hold(&a, "s", json!({"holdId": "late-and-taken", "seats": ["A2"]})).await;
    until_server_time_passes(
        &app,
        taken.body["expiresAt"].as_i64().unwrap().max(free.body["expiresAt"].as_i64().unwrap()),
    )
    .await;
    assert_eq!(app.hold(&b, "s", json!({"seats": ["A2"]})).await.status, 201);

    let late = app.call("POST", "/api/holds/late-but-free/confirm", Some(&a), None).await;
    assert_eq!(
        (late.status.as_u16(), late.body["late"].clone(), late.body["status"].clone()),
        (200, json!(true), json!("CONFIRMED"))
    );
    assert_error(&app.call("POST", "/api/holds/late-and-taken/confirm", Some(&a), None).await, 410, "hold_expired");
}

#[tokio::test]
async fn the_sweep_expires_due_holds_and_ignores_deadlines_that_moved() {
    let app = app_with_show(json!({"holdSeconds": 1, "extensionSeconds": 60, "maxActiveHoldsPerHolder": 2})).await;
    let a = app.session().await;
    let lapsing = app.hold(&a, "s", json!({"holdId": "lapsing-hold", "seats": ["A1"]})).await;
    let extended = app.hold(&a, "s", json!({"holdId": "extended-hold", "seats": ["A2"]})).await;
    assert_eq!(app.call("POST", "/api/holds/extended-hold/extend", Some(&a), None).await.status, 200);
    let old_deadline = extended.body["expiresAt"].as_i64().unwrap();
    until_server_time_passes(&app, old_deadline.max(lapsing.body["expiresAt"].as_i64().unwrap())).await;

    let handled = app.sweep().await;
    assert_eq!(handled, 2, "both outbox entries for the first deadlines were due");
    assert_eq!(app.call("GET", "/api/holds/lapsing-hold", Some(&a), None).await.body["status"], "EXPIRED");
    let still = app.call("GET", "/api/holds/extended-hold", Some(&a), None).await;
    assert_eq!(still.body["status"], "HELD", "the old deadline's entry did nothing");
    assert_eq!(app.sweep().await, 0, "entries are done once handled");
    let metrics = app.get("/metrics").await;
    assert!(metrics.body.as_str().unwrap().contains("seathold_holds_expired_total 1"), "{metrics:?}");
}

#[tokio::test]
async fn an_extended_area_hold_still_counts_after_its_first_deadline() {
    let app = app_with_show(json!({"holdSeconds": 1, "extensionSeconds": 60})).await;
    let (a, b) = (app.session().await, app.session().await);
    let held = app.hold(&a, "s", json!({"holdId": "floor-hold", "areas": {"floor": 5}})).await;
    assert_eq!(app.call("POST", "/api/holds/floor-hold/extend", Some(&a), None).await.status, 200);
    until_server_time_passes(&app, held.body["expiresAt"].as_i64().unwrap()).await;
    let short = app.hold(&b, "s", json!({"areas": {"floor": 1}})).await;
    assert_error(&short, 409, "not_enough_seats");
    assert_eq!(short.body["available"], 0);
}
