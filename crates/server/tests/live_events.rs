//! `GET /api/shows/{id}/events`: snapshot first, then changes by version,
//! and replay after `Last-Event-ID`.

// Test code: a panic is the failure report.
#![allow(clippy::unwrap_used)]

mod support;

use std::collections::HashMap;
use std::time::Duration;

use axum::body::Body;
use axum::http::Request;
use http_body_util::BodyExt;
use seathold_core::engine::events::Ticks;
use seathold_server::state::Settings;
use serde_json::{Value, json};
use support::{ADMIN_TOKEN, TestApp, show_with};
use tower::ServiceExt;

/// One parsed server-sent event.
#[derive(Debug)]
struct Sse {
    event: String,
    id: i64,
    data: Value,
}

/// Reads events from a live stream until `count` arrived.
struct Stream {
    body: Body,
    buffer: String,
}

impl Stream {
    async fn open(app: &TestApp, last_event_id: Option<i64>) -> Self {
        let mut request = Request::get("/api/shows/s/events");
        if let Some(id) = last_event_id {
            request = request.header("last-event-id", id.to_string());
        }
        let response = app.router.clone().oneshot(request.body(Body::empty()).unwrap()).await.unwrap();
        assert_eq!(response.status(), 200);
        assert_eq!(response.headers()["content-type"], "text/event-stream");
        Self { body: response.into_body(), buffer: String::new() }
    }

    async fn next(&mut self) -> Sse {
        loop {
            if let Some(end) = self.buffer.find("\n\n") {
                let block: String = self.buffer.drain(..end + 2).collect();
                let field = |name: &str| {
                    block.lines().find_map(|line| line.strip_prefix(name)).map(str::trim).unwrap_or_default().to_owned()
                };
                if block.lines().all(|line| line.starts_with(':') || line.is_empty()) {
                    continue;
                }
                return Sse {
                    event: field("event:"),
                    id: field("id:").parse().unwrap(),
                    data: serde_json::from_str(&field("data:")).unwrap(),
                };
            }
            let frame =
                tokio::time::timeout(Duration::from_secs(5), self.body.frame()).await.expect("an event in time");
            let bytes = frame.expect("stream open").unwrap().into_data().unwrap();
            self.buffer.push_str(std::str::from_utf8(&bytes).unwrap());
        }
    }
}

impl Stream {
    /// Reads `change` events from version `known` on until one reaches
    /// `version`: each must follow what came before (API.md v4: `since`,
    /// else `version − 1`, at most the version known). Returns them and
    /// each seat's latest fact.
    async fn changes_until(&mut self, mut known: i64, version: i64) -> (Vec<Sse>, HashMap<String, Value>) {
        let (mut events, mut seats) = (Vec::new(), HashMap::new());
        while known < version {
            let event = self.next().await;
            let follows = event.data["since"].as_i64().unwrap_or(event.id - 1);
            assert!(follows <= known && event.id > known, "{event:?} does not follow v{known}");
            known = event.id;
            for seat in event.data["seats"].as_array().unwrap() {
                seats.insert(seat["id"].as_str().unwrap().to_owned(), seat.clone());
            }
            events.push(event);
        }
        assert_eq!(known, version, "no event past v{version}");
        (events, seats)
    }
}

#[tokio::test]
async fn viewers_get_a_snapshot_then_every_change_in_version_order() {
    let app = TestApp::new(Some(ADMIN_TOKEN)).await;
    app.create_show(&show_with("s", 10, 5, json!({"maxActiveHoldsPerHolder": 5}))).await;
    let mut stream = Stream::open(&app, None).await;
    let snapshot = stream.next().await;
    assert_eq!((snapshot.event.as_str(), snapshot.id), ("snapshot", 0));
    assert_eq!(snapshot.data["seats"].as_array().unwrap().len(), 10);

    let token = app.session().await;
    let held =
        app.hold(&token, "s", json!({"holdId": "live-hold-1", "seats": ["A3", "A4"], "areas": {"floor": 2}})).await;
    let change = stream.next().await;
    assert_eq!((change.event.as_str(), change.id), ("change", 1));
    assert_eq!(change.data["version"], 1);
    let seats: Vec<&str> = change.data["seats"].as_array().unwrap().iter().map(|s| s["id"].as_str().unwrap()).collect();
    assert_eq!(seats, ["A3", "A4"]);
    assert_eq!(change.data["seats"][0]["holdExpiresAt"], held.body["expiresAt"]);
    assert!(change.data["seats"][0].get("mine").is_none(), "events are public");
    assert_eq!(change.data["areas"][0]["holds"][0]["quantity"], 2);

    app.call("POST", "/api/holds/live-hold-1/confirm", Some(&token), None).await;
    let sold = stream.next().await;
    assert_eq!(sold.id, 2);
    assert_eq!(sold.data["seats"][0]["sold"], true);
    assert_eq!(sold.data["areas"][0]["sold"], 2);
}

#[tokio::test]
async fn a_reconnect_replays_what_it_missed_or_gets_a_snapshot() {
    let app = TestApp::new(Some(ADMIN_TOKEN)).await;
    app.create_show(&show_with("s", 10, 5, json!({"maxActiveHoldsPerHolder": 5}))).await;
    let token = app.session().await;
    for seat in ["A1", "A2", "A3"] {
        assert_eq!(app.hold(&token, "s", json!({"seats": [seat]})).await.status, 201);
    }
    let mut replay = Stream::open(&app, Some(1)).await;
    let (events, seats) = replay.changes_until(1, 3).await;
    assert!(events.iter().all(|event| event.event == "change"), "{events:?}");
    let mut changed: Vec<&String> = seats.keys().collect();
    changed.sort();
    assert_eq!(changed, ["A2", "A3"], "what it missed, and nothing before");

    let mut up_to_date = Stream::open(&app, Some(3)).await;
    app.hold(&token, "s", json!({"seats": ["A4"]})).await;
    assert_eq!(up_to_date.next().await.id, 4, "nothing replayed, the next change follows");

    let mut from_the_future = Stream::open(&app, Some(99)).await;
    let fresh = from_the_future.next().await;
    assert_eq!((fresh.event.as_str(), fresh.id), ("snapshot", 4));
}

#[tokio::test]
async fn a_new_event_source_can_resume_with_a_query_parameter() {
    let app = TestApp::new(Some(ADMIN_TOKEN)).await;
    app.create_show(&show_with("s", 10, 5, json!({"maxActiveHoldsPerHolder": 5}))).await;
    let token = app.session().await;
    for seat in ["A1", "A2"] {
        assert_eq!(app.hold(&token, "s", json!({"seats": [seat]})).await.status, 201);
    }
    let response = app
        .router
        .clone()
        .oneshot(Request::get("/api/shows/s/events?lastEventId=1").body(Body::empty()).unwrap())
        .await
        .unwrap();
    let mut stream = Stream { body: response.into_body(), buffer: String::new() };
    let next = stream.next().await;
    assert_eq!((next.event.as_str(), next.id), ("change", 2));
}

#[tokio::test]
async fn a_viewer_too_slow_to_keep_up_gets_a_fresh_snapshot() {
    // No tick: nearly every change is a frame of its own, so the viewer falls behind.
    let ticks = Ticks { tick: Duration::ZERO, ..Ticks::default() };
    let app =
        TestApp::with_settings(Settings { admin_token: Some(ADMIN_TOKEN.into()), ticks, ..Settings::default() }).await;
    app.create_show(&show_with("s", 2, 5, json!({}))).await;
    let token = app.session().await;
    let mut slow = Stream::open(&app, None).await;
    assert_eq!(slow.next().await.id, 0);
    // More changes than the broadcast and the replay window keep, while the viewer reads nothing.
    let changes = seathold_core::engine::events::REPLAY_FRAMES * 4 + 100;
    for n in 0..changes / 2 {
        let hold_id = format!("churn-hold-{n}");
        assert_eq!(app.hold(&token, "s", json!({"holdId": hold_id, "seats": ["A1"]})).await.status, 201);
        assert_eq!(app.call("DELETE", &format!("/api/holds/{hold_id}"), Some(&token), None).await.status, 204);
    }
    let caught_up = slow.next().await;
    assert_eq!((caught_up.event.as_str(), caught_up.id), ("snapshot", changes as i64));
    assert_eq!(caught_up.data["seats"][0]["holdExpiresAt"], serde_json::Value::Null);
}

#[tokio::test]
async fn blocking_and_unblocking_go_out_as_changes() {
    let app = TestApp::new(Some(ADMIN_TOKEN)).await;
    assert_eq!(app.create_show(&show_with("s", 4, 5, json!({}))).await.status, 201);
    let mut stream = Stream::open(&app, None).await;
    assert_eq!(stream.next().await.event, "snapshot");
    let block = |method: &str| {
        Request::builder()
            .method(method)
            .uri("/api/admin/shows/s/blocked")
            .header("authorization", format!("Bearer {ADMIN_TOKEN}"))
            .body(Body::from(r#"{"seats": ["A2"], "reason": "desk"}"#))
            .unwrap()
    };
    assert_eq!(app.send(block("POST")).await.status, 200);
    let change = stream.next().await;
    assert_eq!((change.event.as_str(), change.id), ("change", 1));
    assert_eq!(change.data["seats"], json!([{"id": "A2", "sold": false, "holdExpiresAt": null, "blocked": true}]));
    assert_eq!(app.send(block("DELETE")).await.status, 200);
    let change = stream.next().await;
    assert_eq!(change.id, 2);
    assert_eq!(change.data["seats"], json!([{"id": "A2", "sold": false, "holdExpiresAt": null}]));
}
