//! Time against the show writers: requests that arrive before a deadline and
//! reach the writer after it, bodies that arrive late, clocks that step back,
//! holds that tie to the millisecond. Every test moves a `TestClock` by hand;
//! none waits on wall time.

// Test code: a panic is the failure report.
#![allow(clippy::unwrap_used)]

mod support;

use std::pin::pin;

use axum::body::{Body, Bytes};
use axum::http::Request;
use serde_json::{Value, json};
use support::{ADMIN_TOKEN, Answer, TestApp, assert_error, poll_once, show_with};

use seat_state::ServerMillis;
use seathold_core::clock::TestClock;

/// Where every test's clock starts.
const T0: i64 = 1_764_460_000_000;

fn clock() -> TestClock {
    TestClock::at(ServerMillis(T0))
}

/// An app on `clock` (over a SQLite file) with show `s`: seats A1..A10 and a floor of 5.
async fn app_with_show(clock: &TestClock, overrides: Value) -> TestApp {
    let app = TestApp::with_test_clock(Some(ADMIN_TOKEN), clock).await;
    assert_eq!(app.create_show(&show_with("s", 10, 5, overrides)).await.status, 201);
    app
}

/// The answer's instant: `X-Server-Time`, which the body's `serverTime` (if
/// there is a body) must equal.
fn stamped(answer: &Answer) -> i64 {
    let header = answer.server_time_header.unwrap_or_else(|| panic!("no X-Server-Time: {answer:?}"));
    if !answer.body.is_null() {
        assert_eq!(answer.body["serverTime"].as_i64(), Some(header), "{answer:?}");
    }
    header
}

/// One seat's facts in a seat map answer.
fn seat<'a>(map: &'a Answer, id: &str) -> &'a Value {
    map.body["seats"].as_array().unwrap().iter().find(|fact| fact["id"] == id).unwrap()
}

/// Whether a seat is held in a seat map answer (at the answer's own instant).
fn held(map: &Answer, id: &str) -> bool {
    let now = stamped(map);
    seat(map, id)["holdExpiresAt"].as_i64().is_some_and(|deadline| deadline > now)
}

#[derive(Debug, Clone, Copy)]
enum Act {
    Confirm,
    Extend,
}

impl Act {
    fn path(self, hold: &str) -> String {
        match self {
            Self::Confirm => format!("/api/holds/{hold}/confirm"),
            Self::Extend => format!("/api/holds/{hold}/extend"),
        }
    }
}

/// A confirm whose request arrived a millisecond before the deadline, and a
/// create of the same seat that arrived just after it, reach the writer
/// together: both are decided at the writer's one instant (past the
/// deadline), never the confirm at its arrival and the create at its own.
#[tokio::test]
async fn a_confirm_that_arrived_before_the_deadline_is_decided_at_the_writers_instant() {
    let clock = clock();
    let app = app_with_show(&clock, json!({"holdSeconds": 2})).await;
    let (ann, bob) = (app.session().await, app.session().await);
    let held_by_ann = app.hold(&ann, "s", json!({"holdId": "hold-ann-1", "seats": ["A1"]})).await;
    assert_eq!(held_by_ann.status, 201, "{held_by_ann:?}");
    let deadline = held_by_ann.body["expiresAt"].as_i64().unwrap();
    assert_eq!(deadline, T0 + 2_000);
    // Warm every lookup on the way to the writer, so that one poll queues a request.
    assert_eq!(app.call("GET", "/api/holds/hold-ann-1", Some(&ann), None).await.status, 200);

    clock.set(ServerMillis(deadline - 1));
    let confirm_path = Act::Confirm.path("hold-ann-1");
    let mut confirm = pin!(app.call("POST", &confirm_path, Some(&ann), None));
    assert!(poll_once(confirm.as_mut()).await.is_pending());
    clock.set(ServerMillis(deadline + 1));
    let mut create = pin!(app.hold(&bob, "s", json!({"seats": ["A1"]})));
    assert!(poll_once(create.as_mut()).await.is_pending());
    let (confirm, create) = tokio::join!(confirm, create);

    assert_error(&confirm, 410, "hold_expired");
    assert_eq!(create.status, 201, "{create:?}");
    assert_eq!(stamped(&confirm), deadline + 1, "decided at the writer's instant, not at arrival");
    assert_eq!(stamped(&create), deadline + 1);
    assert_eq!(create.body["expiresAt"], deadline + 1 + 2_000);
    let map = app.call("GET", "/api/shows/s/seats", Some(&bob), None).await;
    assert!(held(&map, "A1") && seat(&map, "A1")["mine"] == true, "{map:?}");
    assert_eq!(seat(&map, "A1")["sold"], false);
    let ann_hold = app.call("GET", "/api/holds/hold-ann-1", Some(&ann), None).await;
    assert_eq!(ann_hold.body["status"], "EXPIRED", "{ann_hold:?}");
}

/// A confirm (or extend) and a create of the same seat queued in one batch,
/// in either order, around the deadline: one instant decides both, so they
/// never both succeed, and each answer carries that instant.
#[tokio::test]
async fn a_create_and_a_confirm_or_extend_in_one_batch_never_both_succeed() {
    for act in [Act::Confirm, Act::Extend] {
        for offset in [-1, 0, 1] {
            for create_first in [false, true] {
                let case = format!("{act:?} at deadline{offset:+}, create first: {create_first}");
                let clock = clock();
                let app = app_with_show(&clock, json!({"holdSeconds": 2})).await;
                let (ann, bob) = (app.session().await, app.session().await);
                let created = app.hold(&ann, "s", json!({"holdId": "hold-ann-1", "seats": ["A1"]})).await;
                let deadline = created.body["expiresAt"].as_i64().unwrap();
                assert_eq!(app.call("GET", "/api/holds/hold-ann-1", Some(&ann), None).await.status, 200);

                let instant = deadline + offset;
                clock.set(ServerMillis(instant));
                let act_path = act.path("hold-ann-1");
                let acted = pin!(app.call("POST", &act_path, Some(&ann), None));
                let mut create = pin!(app.hold(&bob, "s", json!({"seats": ["A1"]})));
                if create_first {
                    assert!(poll_once(create.as_mut()).await.is_pending(), "{case}");
                }
                let (acted, create) = tokio::join!(acted, create);

                assert_eq!(stamped(&acted), instant, "{case}");
                assert_eq!(stamped(&create), instant, "{case}");
                assert!(!(acted.status.is_success() && create.status.is_success()), "{case}: both succeeded");
                if offset < 0 {
                    assert_eq!(acted.status, 200, "{case}: {acted:?}");
                    assert_error(&create, 409, "seats_taken");
                } else {
                    assert_error(&acted, 410, "hold_expired");
                    assert_eq!(create.status, 201, "{case}: {create:?}");
                    assert_eq!(create.body["expiresAt"], instant + 2_000, "{case}");
                }
                let map = app.get("/api/shows/s/seats").await;
                assert!(stamped(&map) >= instant, "{case}");
                let sold = seat(&map, "A1")["sold"] == true;
                assert!(held(&map, "A1") || sold, "{case}: A1 is someone's: {map:?}");
            }
        }
    }
}

/// A hold request whose body arrives long after its headers is decided when
/// it reaches the writer, at the writer's instant, against the seats as they
/// are then: a seat held and released meanwhile is taken once, by it.
#[tokio::test]
async fn a_hold_whose_body_arrives_late_is_decided_at_the_writers_instant() {
    let clock = clock();
    let app = app_with_show(&clock, json!({"holdSeconds": 600})).await;
    let (late, cid, third) = (app.session().await, app.session().await, app.session().await);
    assert_eq!(app.get("/api/shows/s/seats").await.status, 200);

    let late_hold = {
        let (send_body, body) = tokio::sync::oneshot::channel::<Bytes>();
        let request = Request::post("/api/shows/s/holds")
            .header("authorization", format!("Bearer {late}"))
            .header("content-type", "application/json")
            .body(Body::from_stream(futures_util::stream::once(body)))
            .unwrap();
        let mut slow = pin!(app.send(request));
        assert!(poll_once(slow.as_mut()).await.is_pending(), "the request waits for its body");

        clock.advance(1_000);
        let taken = app.hold(&cid, "s", json!({"holdId": "zzzzzzzz", "seats": ["A1"]})).await;
        assert_eq!(taken.status, 201, "{taken:?}");
        assert_eq!(stamped(&taken), T0 + 1_000);
        clock.advance(1_000);
        let released = app.call("DELETE", "/api/holds/zzzzzzzz", Some(&cid), None).await;
        assert_eq!(released.status, 204, "{released:?}");
        assert_eq!(stamped(&released), T0 + 2_000);
        clock.advance(1_000);

        let late_body = json!({"holdId": "aaaaaaaa", "seats": ["A1"]}).to_string();
        send_body.send(Bytes::from(late_body)).unwrap();
        let late_hold = slow.await;
        assert_eq!(late_hold.status, 201, "{late_hold:?}");
        let decided = stamped(&late_hold);
        assert_eq!(decided, T0 + 3_000, "decided when the body came, not when the headers did");
        assert_eq!(late_hold.body["expiresAt"].as_i64(), Some(decided + 600_000));
        late_hold
    };

    let app = assert_seat_is_the_late_holds(app, &late, &third, &late_hold).await;
    assert_seat_is_the_late_holds(app.restart(), &late, &third, &late_hold).await;
}

async fn assert_seat_is_the_late_holds(app: TestApp, late: &str, third: &str, hold: &Answer) -> TestApp {
    let refused = app.hold(third, "s", json!({"seats": ["A1"]})).await;
    assert_error(&refused, 409, "seats_taken");
    assert_eq!(refused.body["seats"], json!(["A1"]));
    let map = app.call("GET", "/api/shows/s/seats", Some(late), None).await;
    assert!(held(&map, "A1"), "{map:?}");
    assert_eq!(seat(&map, "A1")["holdExpiresAt"], hold.body["expiresAt"]);
    assert_eq!(seat(&map, "A1")["mine"], true);
    app
}

/// A clock that steps back never makes a show decide earlier than it
/// already did, nor after a restart earlier than its journal's latest entry:
/// a hold that expired at the writer's instant stays expired.
#[tokio::test]
async fn decisions_never_go_back_in_time_even_across_a_restart() {
    let clock = clock();
    let app = app_with_show(&clock, json!({"holdSeconds": 8, "maxActiveHoldsPerHolder": 5})).await;
    let (ann, bob, cid) = (app.session().await, app.session().await, app.session().await);
    let ann_hold = app.hold(&ann, "s", json!({"holdId": "hold-ann-1", "seats": ["A1"]})).await;
    assert_eq!(ann_hold.body["expiresAt"], T0 + 8_000);

    let t = T0 + 10_000;
    clock.set(ServerMillis(t));
    let bob_hold = app.hold(&bob, "s", json!({"holdId": "hold-bob-1", "seats": ["A1"]})).await;
    assert_eq!(bob_hold.status, 201, "ann's hold expired at {}: {bob_hold:?}", T0 + 8_000);
    assert_eq!(stamped(&bob_hold), t);

    // Back 5 s: before ann's deadline on the clock, never for the show.
    clock.set(ServerMillis(t - 5_000));
    let confirm = app.call("POST", "/api/holds/hold-ann-1/confirm", Some(&ann), None).await;
    assert_error(&confirm, 410, "hold_expired");
    assert!(stamped(&confirm) >= t, "{confirm:?}");
    let cid_hold = app.hold(&cid, "s", json!({"seats": ["A2"]})).await;
    assert_eq!(cid_hold.status, 201, "{cid_hold:?}");
    let decided = stamped(&cid_hold);
    assert!(decided >= t, "decided at {decided}, after a decision at {t}");
    assert_eq!(cid_hold.body["expiresAt"].as_i64(), Some(decided + 8_000));
    let map = app.get("/api/shows/s/seats").await;
    assert!(stamped(&map) >= t && held(&map, "A1") && held(&map, "A2"), "{map:?}");
    assert_eq!(seat(&map, "A1")["holdExpiresAt"], bob_hold.body["expiresAt"]);

    let latest = app.store.journal("s", 0).await.unwrap().iter().map(|entry| entry.at.0).max().unwrap();
    assert!(latest >= t);
    let app = app.restart();
    assert_eq!(app.state.clock.now(), ServerMillis(t - 5_000), "the clock is still behind");
    let map = app.get("/api/shows/s/seats").await;
    assert!(stamped(&map) >= latest, "{map:?}");
    assert!(held(&map, "A1") && seat(&map, "A1")["holdExpiresAt"] == bob_hold.body["expiresAt"], "{map:?}");
    let confirm = app.call("POST", "/api/holds/hold-ann-1/confirm", Some(&ann), None).await;
    assert_error(&confirm, 410, "hold_expired");
    assert!(stamped(&confirm) >= latest, "{confirm:?}");
    let again = app.hold(&ann, "s", json!({"seats": ["A3"]})).await;
    assert_eq!(again.status, 201, "{again:?}");
    assert!(stamped(&again) >= latest, "{again:?}");
    let bob_now = app.call("GET", "/api/holds/hold-bob-1", Some(&bob), None).await;
    assert_eq!(bob_now.body["status"], "HELD", "{bob_now:?}");
    assert!(stamped(&bob_now) >= latest, "{bob_now:?}");
}

/// Two holds of one seat decided in the same millisecond, the later one with
/// the id that sorts first: the seat is the later one's, in memory and
/// after a restart, so a third customer cannot take it.
#[tokio::test]
async fn holds_in_one_millisecond_leave_the_seat_to_the_later_one_whatever_the_ids() {
    for one_batch in [false, true] {
        let clock = clock();
        let app = app_with_show(&clock, json!({})).await;
        let (zed, amy, third) = (app.session().await, app.session().await, app.session().await);
        let first = app.hold(&zed, "s", json!({"holdId": "zzzzzzzz", "seats": ["A1"]})).await;
        assert_eq!(first.status, 201, "{first:?}");
        let (released, second) = if one_batch {
            assert_eq!(app.call("GET", "/api/holds/zzzzzzzz", Some(&zed), None).await.status, 200);
            let mut release = pin!(app.call("DELETE", "/api/holds/zzzzzzzz", Some(&zed), None));
            assert!(poll_once(release.as_mut()).await.is_pending());
            tokio::join!(release, app.hold(&amy, "s", json!({"holdId": "aaaaaaaa", "seats": ["A1"]})))
        } else {
            let released = app.call("DELETE", "/api/holds/zzzzzzzz", Some(&zed), None).await;
            (released, app.hold(&amy, "s", json!({"holdId": "aaaaaaaa", "seats": ["A1"]})).await)
        };
        assert_eq!(released.status, 204, "{released:?}");
        assert_eq!(second.status, 201, "{second:?}");
        assert!([&first, &released, &second].iter().all(|answer| stamped(answer) == T0), "one millisecond");

        let app = assert_seat_is_amys(app, &amy, &third, &second).await;
        assert_seat_is_amys(app.restart(), &amy, &third, &second).await;
    }
}

/// A1 is held by `amy`'s hold `aaaaaaaa` (answered as `hold`), `zzzzzzzz` is
/// released, and `third` cannot take A1.
async fn assert_seat_is_amys(app: TestApp, amy: &str, third: &str, hold: &Answer) -> TestApp {
    let map = app.call("GET", "/api/shows/s/seats", Some(amy), None).await;
    assert!(held(&map, "A1"), "{map:?}");
    assert_eq!(seat(&map, "A1")["holdExpiresAt"], hold.body["expiresAt"]);
    assert_eq!(seat(&map, "A1")["mine"], true);
    let refused = app.hold(third, "s", json!({"seats": ["A1"]})).await;
    assert_error(&refused, 409, "seats_taken");
    assert_eq!(refused.body["seats"], json!(["A1"]));
    let amys = app.call("GET", "/api/holds/aaaaaaaa", Some(amy), None).await;
    assert_eq!(amys.body["status"], "HELD", "{amys:?}");
    app
}
