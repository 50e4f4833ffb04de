//! Hold ids are global and each holder's holds are listed across shows: the
//! index the show writers keep, checked at commit, after a client went away
//! and after a restart rebuilt it from storage.

// Test code: a panic is the failure report.
#![allow(clippy::unwrap_used)]

mod support;

use std::pin::pin;
use std::sync::Arc;

use serde_json::{Value, json};
use support::{ADMIN_TOKEN, TestApp, assert_error, poll_once, show_with};

use seat_state::ServerMillis;
use seathold_core::clock::TestClock;
use seathold_core::store::MemoryStore;

const T0: i64 = 1_764_460_000_000;

/// Where an app stores: each store enforces hold ids on its own.
#[derive(Debug, Clone, Copy)]
enum Backend {
    Sqlite,
    Memory,
}

const BACKENDS: [Backend; 2] = [Backend::Sqlite, Backend::Memory];

/// An app with shows `x` and `y`, created in that order.
async fn app_with_two_shows(clock: &TestClock, overrides: Value) -> TestApp {
    app_on(Backend::Sqlite, clock, overrides).await
}

async fn app_on(backend: Backend, clock: &TestClock, overrides: Value) -> TestApp {
    let app = match backend {
        Backend::Sqlite => TestApp::with_test_clock(Some(ADMIN_TOKEN), clock).await,
        Backend::Memory => TestApp::over_store(Some(ADMIN_TOKEN), Arc::new(MemoryStore::default()), clock),
    };
    for id in ["x", "y"] {
        assert_eq!(app.create_show(&show_with(id, 10, 5, overrides.clone())).await.status, 201);
    }
    app
}

fn listed_ids(list: &support::Answer) -> Vec<String> {
    let holds = list.body["holds"].as_array().unwrap_or_else(|| panic!("{list:?}"));
    holds.iter().map(|hold| hold["holdId"].as_str().unwrap().to_owned()).collect()
}

#[tokio::test]
async fn a_hold_id_of_one_show_is_a_mismatch_in_another_even_after_a_restart() {
    for backend in BACKENDS {
        a_hold_id_of_one_show_is_a_mismatch_in_another(backend).await;
    }
}

async fn a_hold_id_of_one_show_is_a_mismatch_in_another(backend: Backend) {
    let clock = TestClock::at(ServerMillis(T0));
    let app = app_on(backend, &clock, json!({})).await;
    let (ann, bob) = (app.session().await, app.session().await);
    let created = app.hold(&ann, "x", json!({"holdId": "hold-shared-1", "seats": ["A1"]})).await;
    assert_eq!(created.status, 201, "{created:?}");
    let mismatch = app.hold(&ann, "y", json!({"holdId": "hold-shared-1", "seats": ["A1"]})).await;
    assert_eq!(mismatch.status, 409, "{backend:?}: {mismatch:?}");
    assert_error(&mismatch, 409, "idempotency_mismatch");

    // A restart rebuilds the index from storage: the id is still x's.
    let app = app.restart();
    for (who, token) in [("ann", &ann), ("bob", &bob)] {
        let mismatch = app.hold(token, "y", json!({"holdId": "hold-shared-1", "seats": ["A2"]})).await;
        assert_eq!(mismatch.status, 409, "{backend:?}, {who}: {mismatch:?}");
        assert_error(&mismatch, 409, "idempotency_mismatch");
    }
    let y = app.get("/api/shows/y/seats").await;
    assert!(y.body["seats"].as_array().unwrap().iter().all(|seat| seat["holdExpiresAt"].is_null()), "{y:?}");
    let read = app.call("GET", "/api/holds/hold-shared-1", Some(&ann), None).await;
    assert_eq!((read.status.as_u16(), read.body["showId"].as_str()), (200, Some("x")), "{read:?}");
}

/// Two shows' writers decide a new hold with the same id at once; neither
/// has it indexed yet. Storage lets one have it, the other answers a mismatch.
#[tokio::test]
async fn the_same_hold_id_sent_to_two_shows_at_once_is_created_once() {
    for backend in BACKENDS {
        the_same_hold_id_sent_to_two_shows_at_once(backend).await;
    }
}

async fn the_same_hold_id_sent_to_two_shows_at_once(backend: Backend) {
    let clock = TestClock::at(ServerMillis(T0));
    let app = app_on(backend, &clock, json!({})).await;
    let (ann, bob) = (app.session().await, app.session().await);
    for show in ["x", "y"] {
        assert_eq!(app.get(&format!("/api/shows/{show}/seats")).await.status, 200);
    }

    let body = json!({"holdId": "hold-twice-1", "seats": ["A1"]});
    let (in_x, in_y) = tokio::join!(app.hold(&ann, "x", body.clone()), app.hold(&bob, "y", body.clone()));
    let answers = [("x", &ann, &in_x), ("y", &bob, &in_y)];
    let winners: Vec<_> = answers.iter().filter(|(_, _, answer)| answer.status == 201).collect();
    assert_eq!(winners.len(), 1, "{backend:?}: {in_x:?}\n{in_y:?}");
    let (won_show, winner) = (winners[0].0, winners[0].1.as_str());
    for (show, token, answer) in answers {
        let map = app.get(&format!("/api/shows/{show}/seats")).await;
        let a1 = map.body["seats"].as_array().unwrap().iter().find(|seat| seat["id"] == "A1").unwrap().clone();
        if show == won_show {
            assert!(a1["holdExpiresAt"].is_i64(), "{map:?}");
        } else {
            assert_error(answer, 409, "idempotency_mismatch");
            assert!(a1["holdExpiresAt"].is_null(), "the losing show took nothing: {map:?}");
            let list = app.call("GET", "/api/holds", Some(token), None).await;
            assert_eq!(listed_ids(&list), Vec::<String>::new());
        }
    }
    let read = app.call("GET", "/api/holds/hold-twice-1", Some(winner), None).await;
    assert_eq!((read.status.as_u16(), read.body["showId"].as_str()), (200, Some(won_show)), "{read:?}");
    let app = app.restart();
    let read = app.call("GET", "/api/holds/hold-twice-1", Some(winner), None).await;
    assert_eq!((read.status.as_u16(), read.body["showId"].as_str()), (200, Some(won_show)), "{read:?}");
}

/// A client that hangs up once its hold is queued: the writer still commits
/// the hold and indexes it, so its id is taken and the hold is readable.
#[tokio::test]
async fn a_hold_whose_client_went_away_is_indexed_all_the_same() {
    let clock = TestClock::at(ServerMillis(T0));
    let app = app_with_two_shows(&clock, json!({})).await;
    let (ann, bob) = (app.session().await, app.session().await);
    assert_eq!(app.get("/api/shows/x/seats").await.status, 200);

    {
        let mut gone = pin!(app.hold(&ann, "x", json!({"holdId": "hold-gone-1", "seats": ["A1"]})));
        assert!(poll_once(gone.as_mut()).await.is_pending());
    }
    // The writer answers after the writes queued before are durable (seat
    // maps are read from what it published, without waiting for it).
    let x = app.state.engines.show("x").await.unwrap().unwrap();
    assert_eq!(x.version().await.unwrap().value, 1, "the hold was committed");
    let map = app.get("/api/shows/x/seats").await;
    assert_eq!(map.body["version"], 1, "and published: {map:?}");

    let read = app.call("GET", "/api/holds/hold-gone-1", Some(&ann), None).await;
    assert_eq!((read.status.as_u16(), read.body["status"].as_str()), (200, Some("HELD")), "{read:?}");
    assert_eq!(listed_ids(&app.call("GET", "/api/holds", Some(&ann), None).await), ["hold-gone-1"]);
    let mismatch = app.hold(&bob, "y", json!({"holdId": "hold-gone-1", "seats": ["A1"]})).await;
    assert_error(&mismatch, 409, "idempotency_mismatch");
    let replay = app.hold(&ann, "x", json!({"holdId": "hold-gone-1", "seats": ["A1"]})).await;
    assert_eq!(replay.status, 200, "the retry finds the hold: {replay:?}");
}

/// `GET /api/holds` is newest first across shows, also once a restart has
/// rebuilt the index show by show.
#[tokio::test]
async fn a_holders_holds_are_newest_first_across_shows_after_a_restart() {
    let clock = TestClock::at(ServerMillis(T0));
    let app = app_with_two_shows(&clock, json!({"maxActiveHoldsPerHolder": 5})).await;
    let ann = app.session().await;
    for (show, hold, seat) in [("x", "hold-x-first", "A1"), ("y", "hold-y-second", "A1"), ("x", "hold-x-third", "A2")] {
        let created = app.hold(&ann, show, json!({"holdId": hold, "seats": [seat]})).await;
        assert_eq!(created.status, 201, "{created:?}");
        clock.advance(1_000);
    }
    let newest_first = ["hold-x-third", "hold-y-second", "hold-x-first"];
    assert_eq!(listed_ids(&app.call("GET", "/api/holds", Some(&ann), None).await), newest_first);

    let app = app.restart();
    let list = app.call("GET", "/api/holds", Some(&ann), None).await;
    assert_eq!(listed_ids(&list), newest_first);
    assert_eq!(list.body["serverTime"].as_i64(), list.server_time_header);
}
