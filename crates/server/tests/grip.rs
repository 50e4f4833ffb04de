//! GRIP (`--grip-publish`, `SEATHOLD_GRIP_KEY`): a request to `…/events`
//! signed by the proxy is answered with the snapshot or the frames it
//! lacks and the instructions to hold the stream; each frame is published
//! once per form, its version the item's `id` and the version it follows
//! the `prev-id`. A request not signed with the key gets the plain stream.
//! (`tests/tests/pushpin_grip.rs` runs the same against a real Pushpin.)

// Test code: a panic is the failure report.
#![allow(clippy::unwrap_used)]

mod support;

use std::sync::{Arc, Mutex};
use std::time::Duration;

use axum::body::Body;
use axum::http::{HeaderMap, Request};
use seathold_server::grip::GripSettings;
use seathold_server::grip::signature::sign;
use seathold_server::state::Settings;
use serde_json::{Value, json};
use support::{ADMIN_TOKEN, TestApp, show_with};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tower::ServiceExt;

const KEY: &[u8] = b"grip-route-test-key";

/// A publish API that keeps every item it is sent and answers 200.
async fn receiver() -> (String, Arc<Mutex<Vec<Value>>>) {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("http://{}", listener.local_addr().unwrap());
    let items = Arc::new(Mutex::new(Vec::new()));
    let kept = Arc::clone(&items);
    tokio::spawn(async move {
        while let Ok((mut socket, _)) = listener.accept().await {
            let kept = Arc::clone(&kept);
            tokio::spawn(async move {
                let mut buffer = Vec::new();
                loop {
                    let Some(head_end) = buffer.windows(4).position(|w| w == b"\r\n\r\n").map(|at| at + 4) else {
                        let mut chunk = [0; 8192];
                        match socket.read(&mut chunk).await {
                            Ok(0) | Err(_) => return,
                            Ok(read) => buffer.extend_from_slice(&chunk[..read]),
                        }
                        continue;
                    };
                    let head = String::from_utf8_lossy(&buffer[..head_end]).to_ascii_lowercase();
                    let length: usize = head
                        .lines()
                        .find_map(|line| line.strip_prefix("content-length:"))
                        .and_then(|value| value.trim().parse().ok())
                        .unwrap_or(0);
                    while buffer.len() < head_end + length {
                        let mut chunk = [0; 8192];
                        match socket.read(&mut chunk).await {
                            Ok(0) | Err(_) => return,
                            Ok(read) => buffer.extend_from_slice(&chunk[..read]),
                        }
                    }
                    assert!(head.starts_with("post /publish/ "), "{head}");
                    let body: Vec<u8> = buffer.drain(..head_end + length).skip(head_end).collect();
                    let body: Value = serde_json::from_slice(&body).unwrap();
                    kept.lock().unwrap().extend(body["items"].as_array().unwrap().iter().cloned());
                    let _ = socket.write_all(b"HTTP/1.1 200 OK\r\ncontent-length: 0\r\n\r\n").await;
                }
            });
        }
    });
    (url, items)
}

async fn app(publish: String) -> TestApp {
    let grip = GripSettings { publish: vec![publish], key: Arc::from(KEY), instance: None };
    let settings = Settings { admin_token: Some(Arc::from(ADMIN_TOKEN)), grip: Some(grip), ..Settings::default() };
    let app = TestApp::with_settings(settings).await;
    assert_eq!(app.create_show(&show_with("s", 4, 10, json!({"maxActiveHoldsPerHolder": 10}))).await.status, 201);
    app
}

/// The items published so far on `channel`, once at least `count` are.
async fn published(items: &Mutex<Vec<Value>>, channel: &str, count: usize) -> Vec<Value> {
    for _ in 0..500 {
        let on: Vec<Value> = items.lock().unwrap().iter().filter(|item| item["channel"] == channel).cloned().collect();
        if on.len() >= count {
            return on;
        }
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    panic!("fewer than {count} items on {channel}: {:?}", items.lock().unwrap());
}

/// `GET path` with `headers`: the answer's headers, and its body when `read`.
async fn get(app: &TestApp, path: &str, headers: &[(&str, String)], read: bool) -> (HeaderMap, String) {
    let mut request = Request::get(path);
    for (name, value) in headers {
        request = request.header(*name, value);
    }
    let response = app.router.clone().oneshot(request.body(Body::empty()).unwrap()).await.unwrap();
    assert_eq!(response.status(), 200);
    let headers = response.headers().clone();
    // A plain stream never ends: its body is not read.
    let body = if read {
        let bytes = http_body_util::BodyExt::collect(response.into_body()).await.unwrap().to_bytes();
        String::from_utf8(bytes.to_vec()).unwrap()
    } else {
        String::new()
    };
    (headers, body)
}

fn signed(exp_from_now_s: i64) -> (&'static str, String) {
    let now = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap().as_secs() as i64;
    ("grip-sig", sign(KEY, "pushpin", now + exp_from_now_s))
}

#[tokio::test]
async fn a_signed_request_is_held_on_the_shows_channel_from_the_version_the_next_frame_follows() {
    let (url, items) = receiver().await;
    let app = app(url).await;
    let token = app.session().await;
    assert_eq!(app.hold(&token, "s", json!({"seats": ["A1"]})).await.status, 201);
    // The frame of version 1 went out: the next follows it.
    let frames = published(&items, "show-s", 2).await;
    assert_eq!((&frames[1]["id"], &frames[1]["prev-id"]), (&json!("1"), &json!("0")), "{frames:?}");

    let (headers, body) = get(&app, "/api/shows/s/events", &[signed(3600)], true).await;
    assert_eq!(headers["content-type"], "text/event-stream");
    assert_eq!(headers["grip-hold"], "stream");
    assert_eq!(headers["grip-channel"], "show-s; prev-id=1");
    assert_eq!(headers["grip-link"], "</api/shows/s/events>; rel=next");
    assert_eq!(headers["grip-keep-alive"], ":\\n\\n; format=cstring; timeout=10");
    assert!(body.starts_with("event: snapshot\nid: 1\n"), "{body}");

    // The compact form on a channel of its own; `only=taken` keeps its form in the link.
    let (headers, body) = get(&app, "/api/shows/s/events?format=compact", &[signed(3600)], true).await;
    assert_eq!(headers["grip-channel"], "show-s.compact; prev-id=1");
    assert_eq!(headers["grip-link"], "</api/shows/s/events?format=compact>; rel=next");
    assert!(body.starts_with("event: snapshot\nid: 1\n") && !body.contains("\"seats\""), "{body}");
    let (headers, _) = get(&app, "/api/shows/s/events?only=taken", &[signed(3600)], true).await;
    assert_eq!(headers["grip-channel"], "show-s; prev-id=1");
    assert_eq!(headers["grip-link"], "</api/shows/s/events?only=taken>; rel=next");

    // The proxy asking for what it missed after version 0: the frame, not a snapshot.
    let last = ("grip-last", "show-s; last-id=0".to_owned());
    let (headers, body) = get(&app, "/api/shows/s/events", &[signed(3600), last], true).await;
    assert_eq!(headers["grip-channel"], "show-s; prev-id=1");
    assert!(body.starts_with("event: change\nid: 1\n"), "{body}");
    // A viewer resuming through the proxy with Last-Event-ID, already current: nothing to send.
    let resume = ("last-event-id", "1".to_owned());
    let (_, body) = get(&app, "/api/shows/s/events", &[signed(3600), resume], true).await;
    assert_eq!(body, "");
}

#[tokio::test]
async fn a_request_not_signed_with_the_key_gets_the_plain_stream() {
    let (url, _) = receiver().await;
    let app = app(url).await;
    let other = ("grip-sig", sign(b"another key", "pushpin", i64::from(u32::MAX)));
    for headers in [vec![], vec![signed(-1)], vec![other]] {
        let (headers, _) = get(&app, "/api/shows/s/events", &headers, false).await;
        assert_eq!(headers["content-type"], "text/event-stream");
        assert!(headers.get("grip-hold").is_none(), "{headers:?}");
    }
}

#[tokio::test]
async fn each_frame_is_published_once_per_form_following_the_one_before() {
    let (url, items) = receiver().await;
    let app = app(url).await;
    let token = app.session().await;
    for seat in ["A1", "A2", "A3"] {
        assert_eq!(app.hold(&token, "s", json!({"seats": [seat]})).await.status, 201);
        tokio::time::sleep(Duration::from_millis(300)).await;
    }
    for channel in ["show-s", "show-s.compact"] {
        let items = published(&items, channel, 4).await;
        // The hub's start (every held viewer asks for what it lacks), then one item per frame.
        assert_eq!((&items[0]["id"], &items[0]["prev-id"]), (&json!("0"), &json!("start")), "{items:?}");
        assert_eq!(items[0]["formats"]["http-stream"]["content"], "");
        for pair in items[1..].windows(2) {
            assert_eq!(pair[1]["prev-id"], pair[0]["id"], "{channel}: {items:?}");
        }
        let last = items.last().unwrap();
        assert_eq!(last["id"], "3");
        let content = last["formats"]["http-stream"]["content"].as_str().unwrap();
        assert!(content.starts_with("event: change\nid: 3\ndata: "), "{content}");
    }
}
