//! Settled holds leave memory and come back when asked (issue 15): over a
//! real SQLite file, with a test clock, a confirmed and a released hold are
//! evicted, then read, retried, listed and shown on the map exactly as
//! before, also after a restart that loads the show from its checkpoint.

// Test code: a panic is the failure report.
#![allow(clippy::unwrap_used)]

mod support;

use std::sync::Arc;

use seathold_core::clock::TestClock;
use seathold_core::engine::Retention;
use seathold_server::state::Settings;
use serde_json::{Value, json};
use support::{ADMIN_TOKEN, TestApp, show_with};

fn counter(metrics: &Value, name: &str) -> u64 {
    let text = metrics.as_str().unwrap_or_default();
    text.lines().find_map(|line| line.strip_prefix(&format!("{name}_total "))).map_or(0, |n| n.trim().parse().unwrap())
}

/// Everything a customer can see of their holds and the map.
async fn seen(app: &TestApp, token: &str) -> Vec<Value> {
    let mut seen = Vec::new();
    for hold in ["hold-sold-0001", "hold-gone-0001", "hold-kept-0001"] {
        let answer = app.call("GET", &format!("/api/holds/{hold}"), Some(token), None).await;
        seen.push(json!([answer.status.as_u16(), answer.body["status"], answer.body["seats"]]));
    }
    let listed = app.call("GET", "/api/holds", Some(token), None).await;
    let ids: Vec<&Value> = listed.body["holds"].as_array().unwrap().iter().map(|hold| &hold["holdId"]).collect();
    seen.push(json!(ids));
    let map = app.call("GET", "/api/shows/settle/seats", Some(token), None).await;
    let mut seats = map.body["seats"].clone();
    for seat in seats.as_array_mut().unwrap() {
        seat.as_object_mut().unwrap().remove("holdExpiresAt");
    }
    seen.push(json!([seats, map.body["areas"][0]["sold"]]));
    seen
}

#[tokio::test]
async fn evicted_holds_answer_as_before_and_a_restart_loads_from_the_checkpoint() {
    let clock = TestClock::at(seat_state::ServerMillis(1_800_000_000_000));
    let retention = Retention { keep_settled_ms: 1_000, checkpoint_every: 3 };
    let settings = Settings { admin_token: Some(Arc::from(ADMIN_TOKEN)), retention, ..Settings::default() };
    let app = TestApp::with_test_clock_and_settings(&clock, settings).await;
    assert_eq!(app.create_show(&show_with("settle", 4, 5, json!({}))).await.status, 201);
    let token = app.session().await;
    let sold = json!({"holdId": "hold-sold-0001", "seats": ["A1"], "areas": {"floor": 2}});
    assert_eq!(app.hold(&token, "settle", sold.clone()).await.status, 201);
    let confirm = app.call("POST", "/api/holds/hold-sold-0001/confirm", Some(&token), None).await;
    assert_eq!(confirm.status, 200, "{confirm:?}");
    let gone = json!({"holdId": "hold-gone-0001", "seats": ["A2"]});
    assert_eq!(app.hold(&token, "settle", gone.clone()).await.status, 201);
    assert_eq!(app.call("DELETE", "/api/holds/hold-gone-0001", Some(&token), None).await.status, 204);
    let before = seen(&app, &token).await;

    // Two seconds on, the next decision lets both settled holds go.
    clock.advance(2_000);
    let kept = json!({"holdId": "hold-kept-0001", "seats": ["A3"]});
    assert_eq!(app.hold(&token, "settle", kept).await.status, 201);
    let metrics = app.get("/metrics").await.body;
    assert_eq!(counter(&metrics, "seathold_holds_evicted"), 2);
    assert!(counter(&metrics, "seathold_checkpoints") >= 1, "a checkpoint after 5 versions");
    let after = seen(&app, &token).await;
    assert_eq!(after[..2], before[..2], "the evicted holds read the same");
    assert_eq!(after[4][1], before[4][1], "the floor's sold places stay");
    assert_eq!(after[4][0][0], before[4][0][0], "A1 stays sold and mine");
    assert!(counter(&app.get("/metrics").await.body, "seathold_holds_recalled") >= 2);

    // A retry of the sold hold is a replay, not a second sale; the seat of
    // the released one can be held again.
    let retry = app.hold(&token, "settle", sold).await;
    assert_eq!((retry.status.as_u16(), &retry.body["status"]), (200, &json!("CONFIRMED")));
    let other = app.session().await;
    let taken = app.hold(&other, "settle", json!({"seats": ["A1"]})).await;
    assert_eq!(taken.status, 409, "{taken:?}");

    clock.advance(2_000);
    let app = app.restart();
    let restarted = seen(&app, &token).await;
    assert_eq!(restarted, seen(&app, &token).await);
    assert_eq!(restarted[..3], after[..3]);
    assert_eq!(restarted[4], after[4], "the map from the checkpoint and the journal after it");
    let again = app.hold(&other, "settle", json!({"seats": ["A1", "A2"]})).await;
    assert_eq!(again.status, 409, "A1 is still sold after the restart: {again:?}");
    assert_eq!(app.hold(&other, "settle", json!({"seats": ["A2"]})).await.status, 201);
}
