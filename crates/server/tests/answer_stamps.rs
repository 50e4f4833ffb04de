//! What error and list answers carry: the headers an error sets (Retry-After)
//! and one instant for a whole list of holds.

// Test code: a panic is the failure report.
#![allow(clippy::unwrap_used)]

mod support;

use std::sync::Arc;

use serde_json::json;
use support::{ADMIN_TOKEN, TestApp, assert_error, show_with};

use seat_state::ServerMillis;
use seathold_core::clock::TestClock;
use seathold_core::store::{CommitFault, FaultyStore, MemoryStore};

const T0: i64 = 1_764_460_000_000;

/// API.md: `503 unavailable` with `Retry-After`. The server-time middleware
/// rebuilds error bodies; it must keep the error's headers.
#[tokio::test]
async fn an_unavailable_show_says_when_to_retry() {
    let clock = TestClock::at(ServerMillis(T0));
    let faulty = FaultyStore::new(Arc::new(MemoryStore::default()));
    let app = TestApp::over_store(Some(ADMIN_TOKEN), Arc::new(faulty.clone()), &clock);
    assert_eq!(app.create_show(&show_with("s", 10, 5, json!({}))).await.status, 201);
    assert_eq!(app.get("/api/shows/s/seats").await.status, 200);
    let ann = app.session().await;
    faulty.fail_loads(2);
    faulty.fail_commit(CommitFault::Lost);
    let write = app.hold(&ann, "s", json!({"seats": ["A1"]})).await;
    let read = app.get("/api/shows/s/seats").await;
    for answer in [&write, &read] {
        assert_error(answer, 503, "unavailable");
        let retry_after = answer.headers.get("retry-after").and_then(|value| value.to_str().ok());
        assert!(retry_after.and_then(|value| value.parse::<u64>().ok()).is_some_and(|s| s >= 1), "{answer:?}");
    }
}

/// `GET /api/holds` is read at one instant, never earlier than the
/// decisions it shows: after the clock steps back, the list's `serverTime`
/// is not earlier than an instant the client already saw, and no hold
/// listed `EXPIRED` has an `expiresAt` after it.
#[tokio::test]
async fn the_hold_list_is_not_earlier_than_the_decisions_it_shows() {
    let clock = TestClock::at(ServerMillis(T0));
    let app = TestApp::with_test_clock(Some(ADMIN_TOKEN), &clock).await;
    assert_eq!(app.create_show(&show_with("s", 10, 5, json!({"holdSeconds": 8}))).await.status, 201);
    let (ann, bob) = (app.session().await, app.session().await);
    assert_eq!(app.hold(&ann, "s", json!({"holdId": "hold-ann-1", "seats": ["A1"]})).await.status, 201);
    clock.set(ServerMillis(T0 + 10_000));
    let bobs = app.hold(&bob, "s", json!({"seats": ["A1"]})).await;
    assert_eq!(bobs.server_time_header, Some(T0 + 10_000));
    clock.set(ServerMillis(T0 + 5_000));
    let one = app.call("GET", "/api/holds/hold-ann-1", Some(&ann), None).await;
    assert_eq!((one.body["status"].as_str(), one.server_time_header), (Some("EXPIRED"), Some(T0 + 10_000)));
    let list = app.call("GET", "/api/holds", Some(&ann), None).await;
    let listed = &list.body["holds"][0];
    assert_eq!(listed["status"], "EXPIRED");
    assert_eq!(list.body["serverTime"].as_i64(), list.server_time_header);
    assert!(list.server_time_header >= listed["serverTime"].as_i64(), "{list:?}");
}
