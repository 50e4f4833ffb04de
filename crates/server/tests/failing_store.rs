//! Storage that fails mid-sale (a `FaultyStore` over a `MemoryStore`): a lost
//! commit, a commit written but reported failed, a reload that fails too.
//! The show answers `503 unavailable` with `Retry-After`, never from state
//! storage does not have, and retries take nothing twice.

// Test code: a panic is the failure report.
#![allow(clippy::unwrap_used)]

mod support;

use std::sync::Arc;

use serde_json::{Value, json};
use support::{ADMIN_TOKEN, Answer, TestApp, assert_error, show_with};

use seat_state::ServerMillis;
use seathold_core::clock::TestClock;
use seathold_core::engine::events::{Start, Subscription};
use seathold_core::store::{CommitFault, FaultyStore, MemoryStore};

const T0: i64 = 1_764_460_000_000;

/// An app over a store that fails when told to, with show `s` (seats A1..A10,
/// a floor of 5) already started.
async fn faulty_app(clock: &TestClock) -> (TestApp, FaultyStore) {
    let faulty = FaultyStore::new(Arc::new(MemoryStore::default()));
    let app = TestApp::over_store(Some(ADMIN_TOKEN), Arc::new(faulty.clone()), clock);
    assert_eq!(app.create_show(&show_with("s", 10, 5, json!({}))).await.status, 201);
    assert_eq!(app.get("/api/shows/s/seats").await.status, 200);
    (app, faulty)
}

/// `503 unavailable` in API.md's error format.
fn assert_unavailable(answer: &Answer) {
    assert_error(answer, 503, "unavailable");
}

fn seat<'a>(map: &'a Answer, id: &str) -> &'a Value {
    map.body["seats"].as_array().unwrap().iter().find(|fact| fact["id"] == id).unwrap()
}

fn listed_ids(list: &Answer) -> Vec<String> {
    let holds = list.body["holds"].as_array().unwrap_or_else(|| panic!("{list:?}"));
    holds.iter().map(|hold| hold["holdId"].as_str().unwrap().to_owned()).collect()
}

#[tokio::test]
async fn a_lost_commit_answers_503_and_its_retry_takes_the_places_once() {
    let clock = TestClock::at(ServerMillis(T0));
    let (app, faulty) = faulty_app(&clock).await;
    let (ann, bob) = (app.session().await, app.session().await);
    let body = json!({"holdId": "hold-ann-1", "seats": ["A1"], "areas": {"floor": 2}});

    faulty.fail_commit(CommitFault::Lost);
    assert_unavailable(&app.hold(&ann, "s", body.clone()).await);
    let map = app.get("/api/shows/s/seats").await;
    assert!(seat(&map, "A1")["holdExpiresAt"].is_null(), "nothing was taken: {map:?}");
    assert_eq!(map.body["areas"][0]["holds"], json!([]));
    assert_eq!(map.body["version"], 0);

    let retry = app.hold(&ann, "s", body.clone()).await;
    assert_eq!(retry.status, 201, "{retry:?}");
    assert_eq!(app.hold(&ann, "s", body.clone()).await.status, 200, "a second retry is a replay");
    let map = app.call("GET", "/api/shows/s/seats", Some(&ann), None).await;
    assert_eq!(seat(&map, "A1")["mine"], true);
    assert_eq!(map.body["areas"][0]["holds"].as_array().unwrap().len(), 1, "{map:?}");
    assert_eq!(map.body["version"], 1);
    assert_eq!(listed_ids(&app.call("GET", "/api/holds", Some(&ann), None).await), ["hold-ann-1"]);
    let too_many = app.hold(&bob, "s", json!({"areas": {"floor": 4}})).await;
    assert_error(&too_many, 409, "not_enough_seats");
    assert_eq!(too_many.body["available"], 3, "two of five places are taken, not four");
}

#[tokio::test]
async fn a_show_whose_commit_and_reload_fail_answers_503_until_storage_is_back() {
    let clock = TestClock::at(ServerMillis(T0));
    let (app, faulty) = faulty_app(&clock).await;
    let (ann, bob) = (app.session().await, app.session().await);
    let bobs = app.hold(&bob, "s", json!({"holdId": "hold-bob-1", "seats": ["A2"]})).await;
    assert_eq!(bobs.status, 201, "{bobs:?}");
    assert_eq!(listed_ids(&app.call("GET", "/api/holds", Some(&bob), None).await), ["hold-bob-1"]);
    let body = json!({"holdId": "hold-ann-1", "seats": ["A1"]});

    // The reload after the failed commit fails, and so do the next three.
    faulty.fail_loads(4);
    faulty.fail_commit(CommitFault::Lost);
    assert_unavailable(&app.hold(&ann, "s", body.clone()).await);
    assert_unavailable(&app.get("/api/shows/s/seats").await);
    assert_unavailable(&app.call("GET", "/api/holds/hold-bob-1", Some(&bob), None).await);
    assert_unavailable(&app.hold(&ann, "s", body.clone()).await);
    // The failed hold was never stored: unknown, or unavailable while the
    // show cannot tell, never readable.
    let ghost = app.call("GET", "/api/holds/hold-ann-1", Some(&ann), None).await;
    match ghost.status.as_u16() {
        503 => assert_unavailable(&ghost),
        _ => assert_error(&ghost, 404, "no_hold"),
    }

    // Loads work again: everything answers from storage.
    let map = app.get("/api/shows/s/seats").await;
    assert_eq!(map.status, 200, "{map:?}");
    assert!(seat(&map, "A1")["holdExpiresAt"].is_null(), "the failed hold is not there: {map:?}");
    assert_eq!(seat(&map, "A2")["holdExpiresAt"], bobs.body["expiresAt"]);
    assert_eq!(map.body["version"], 1);
    assert_eq!(app.call("GET", "/api/holds/hold-bob-1", Some(&bob), None).await.body["status"], "HELD");
    assert_error(&app.call("GET", "/api/holds/hold-ann-1", Some(&ann), None).await, 404, "no_hold");
    assert_eq!(listed_ids(&app.call("GET", "/api/holds", Some(&ann), None).await), Vec::<String>::new());
    assert_eq!(app.hold(&ann, "s", body).await.status, 201);
}

#[tokio::test]
async fn an_ambiguous_commit_answers_503_and_its_retry_finds_the_hold() {
    let clock = TestClock::at(ServerMillis(T0));
    let (app, faulty) = faulty_app(&clock).await;
    let (ann, bob) = (app.session().await, app.session().await);
    let body = json!({"holdId": "hold-ann-1", "seats": ["A1"]});

    faulty.fail_commit(CommitFault::Ambiguous);
    assert_unavailable(&app.hold(&ann, "s", body.clone()).await);
    // It was written: storage has it, so the show has it.
    let read = app.call("GET", "/api/holds/hold-ann-1", Some(&ann), None).await;
    assert_eq!((read.status.as_u16(), read.body["status"].as_str()), (200, Some("HELD")), "{read:?}");

    clock.advance(1_000);
    let retry = app.hold(&ann, "s", body.clone()).await;
    assert_eq!(retry.status, 200, "a replay, nothing more taken: {retry:?}");
    assert_eq!(retry.body["expiresAt"], T0 + 600_000, "the hold as first decided");
    assert_eq!(retry.body["seats"], json!(["A1"]));
    let read = app.call("GET", "/api/holds/hold-ann-1", Some(&ann), None).await;
    assert_eq!((read.status.as_u16(), read.body["status"].as_str()), (200, Some("HELD")), "{read:?}");
    assert_eq!(listed_ids(&app.call("GET", "/api/holds", Some(&ann), None).await), ["hold-ann-1"]);
    let map = app.call("GET", "/api/shows/s/seats", Some(&ann), None).await;
    assert_eq!((seat(&map, "A1")["mine"].as_bool(), map.body["version"].as_i64()), (Some(true), Some(1)));
    assert_error(&app.hold(&bob, "s", json!({"seats": ["A1"]})).await, 409, "seats_taken");
}

/// An ambiguous commit's change was stored but never announced as itself:
/// the reload announces what differs as one change. A viewer reconnecting
/// after any earlier version gets a snapshot, or frames that cover every
/// version since, never frames with that change missing.
#[tokio::test]
async fn after_a_reload_a_reconnecting_viewer_never_misses_a_version() {
    let clock = TestClock::at(ServerMillis(T0));
    let (app, faulty) = faulty_app(&clock).await;
    let mut tokens = Vec::new();
    for _ in 0..4 {
        tokens.push(app.session().await);
    }
    assert_eq!(app.hold(&tokens[0], "s", json!({"seats": ["A1"]})).await.status, 201);
    assert_eq!(app.hold(&tokens[1], "s", json!({"seats": ["A2"]})).await.status, 201);
    let show = app.state.engines.show("s").await.unwrap().unwrap();
    assert_eq!(covered(show.subscribe(Some(1)).await.unwrap(), 1, 2).await, Some(2), "a replay before the reload");

    faulty.fail_commit(CommitFault::Ambiguous);
    assert_unavailable(&app.hold(&tokens[2], "s", json!({"seats": ["A3"]})).await);
    assert_eq!(app.hold(&tokens[3], "s", json!({"seats": ["A4"]})).await.status, 201);
    let current = app.get("/api/shows/s/seats").await.body["version"].as_i64().unwrap();
    assert_eq!(current, 4, "the ambiguous hold is version 3");

    for after in 0..=current {
        let subscription = show.subscribe(Some(after)).await.unwrap();
        if let Some(reached) = covered(subscription, after, current).await {
            assert_eq!(reached, current, "after {after}");
        }
    }
}

/// Follows a subscription after `after` until `current`: `None` when it
/// starts with a snapshot (at `current`); else the version its frames
/// reach, each frame following the one before (no gap).
async fn covered(mut subscription: Subscription, after: i64, current: i64) -> Option<i64> {
    let mut known = after;
    let mut frames = match subscription.start {
        Start::Snapshot(view) => {
            assert_eq!(view.version, current, "a snapshot after {after}");
            return None;
        }
        Start::Replay(frames) => frames,
    };
    loop {
        for frame in frames.drain(..) {
            if frame.is_keep_alive() || frame.version <= known {
                continue;
            }
            assert!(frame.since <= known, "after {after}: a frame ({}, {}] past v{known}", frame.since, frame.version);
            known = frame.version;
        }
        if known >= current {
            return Some(known);
        }
        let next = tokio::time::timeout(std::time::Duration::from_secs(5), subscription.frames.recv()).await;
        frames.push(next.expect("a frame within a tick").expect("the hub is open"));
    }
}
