//! API.md "On-sale (v3)" through the real router on a real SQLite file:
//! compression by `Accept-Encoding`, the immutable definition with its
//! `ETag` and `304`, and compact seat maps.

mod support;

use std::io::Read;

use axum::body::Body;
use axum::http::Request;
use http_body_util::BodyExt;
use serde_json::{Value, json};
use tower::ServiceExt;

use support::{ADMIN_TOKEN, TestApp, assert_error, show_with};

/// A raw answer: status, headers and the bytes on the wire.
async fn raw(app: &TestApp, path: &str, headers: &[(&str, &str)]) -> (u16, axum::http::HeaderMap, Vec<u8>) {
    let mut request = Request::get(path);
    for (name, value) in headers {
        request = request.header(*name, *value);
    }
    let response = app.router.clone().oneshot(request.body(Body::empty()).expect("request")).await.expect("answer");
    let status = response.status().as_u16();
    let headers = response.headers().clone();
    (status, headers, response.into_body().collect().await.expect("body").to_bytes().to_vec())
}

fn decoded(headers: &axum::http::HeaderMap, bytes: &[u8]) -> Value {
    let mut plain = Vec::new();
    match headers.get("content-encoding").map(|v| v.to_str().expect("ascii")) {
        Some("br") => brotli::BrotliDecompress(&mut &bytes[..], &mut plain).expect("brotli"),
        Some("gzip") => {
            flate2::read::GzDecoder::new(bytes).read_to_end(&mut plain).expect("gzip");
        }
        None => plain = bytes.to_vec(),
        Some(other) => panic!("unexpected encoding {other}"),
    }
    serde_json::from_slice(&plain).expect("JSON")
}

fn placed_show() -> Value {
    let seats: Vec<Value> = (1..=60)
        .map(|n| {
            json!({"id": format!("S{n}"), "x": n * 12, "y": 0, "section": "101", "row": "1", "number": n,
                        "label": format!("Section 101, row 1, seat {n}")})
        })
        .chain([
            json!({"id": "odd", "x": 0, "y": 40, "label": "The odd one"}),
            json!({"id": "plain", "x": 12, "y": 40}),
        ])
        .collect();
    json!({"id": "arena", "name": "Arena", "seats": seats})
}

#[tokio::test]
async fn answers_are_compressed_as_accepted_and_vary_by_it() {
    let app = TestApp::new(Some(ADMIN_TOKEN)).await;
    assert_eq!(app.create_show(&placed_show()).await.status, 201);
    for path in ["/api/shows/arena", "/api/shows/arena/seats", "/api/shows", "/api/time"] {
        for (accept, encoding) in [("gzip, deflate, br", Some("br")), ("gzip", Some("gzip")), ("identity", None)] {
            let (status, headers, bytes) = raw(&app, path, &[("accept-encoding", accept)]).await;
            assert_eq!(status, 200, "{path} {accept}");
            let said = headers.get("content-encoding").map(|v| v.to_str().expect("ascii"));
            assert_eq!(said, encoding, "{path} with Accept-Encoding: {accept}");
            assert!(
                headers.get_all("vary").iter().any(|v| v.to_str().is_ok_and(|v| v.contains("accept-encoding"))),
                "{path}: {headers:?}"
            );
            assert!(decoded(&headers, &bytes).is_object(), "{path} decodes to JSON");
        }
        // No Accept-Encoding at all: identity, never 406.
        let (status, headers, _) = raw(&app, path, &[]).await;
        assert_eq!((status, headers.get("content-encoding")), (200, None), "{path}");
    }
}

#[tokio::test]
async fn the_definition_is_immutable_with_an_etag_and_304() {
    let app = TestApp::new(Some(ADMIN_TOKEN)).await;
    assert_eq!(app.create_show(&placed_show()).await.status, 201);
    let (status, headers, bytes) = raw(&app, "/api/shows/arena", &[("accept-encoding", "br")]).await;
    assert_eq!(status, 200);
    let definition = decoded(&headers, &bytes);
    assert_eq!(definition.get("serverTime"), None, "the one JSON body without serverTime");
    assert!(headers.contains_key("x-server-time"));
    let seats = definition["seats"].as_array().expect("seats");
    assert_eq!(seats[0].get("label"), None, "a default label is left out: {}", seats[0]);
    assert_eq!(seats[60]["label"], "The odd one");
    assert_eq!(seats[61].get("label"), None, "an unplaced seat's default is its id");
    let cache = headers["cache-control"].to_str().expect("ascii");
    let max_age: u64 = cache.split("max-age=").nth(1).and_then(|v| v.split(',').next()?.parse().ok()).expect("max-age");
    assert!(cache.contains("public") && max_age >= 60, "{cache}");
    let etag = headers["etag"].to_str().expect("ascii").to_owned();

    // The same bytes again: the same tag (no per-request content).
    let (_, again, again_bytes) = raw(&app, "/api/shows/arena", &[("accept-encoding", "br")]).await;
    assert_eq!((again["etag"].to_str().expect("ascii"), &again_bytes), (etag.as_str(), &bytes));
    // A new process writes the very same definition.
    let restarted = app.restart();
    let (_, fresh, _) = raw(&restarted, "/api/shows/arena", &[("accept-encoding", "br")]).await;
    assert_eq!(fresh["etag"], etag.as_str());

    for named in [etag.clone(), format!("W/{etag}"), format!("\"other\", {etag}")] {
        let (status, headers, body) =
            raw(&restarted, "/api/shows/arena", &[("accept-encoding", "br"), ("if-none-match", &named)]).await;
        assert_eq!((status, body.len()), (304, 0), "If-None-Match: {named}");
        assert_eq!(headers["etag"], etag.as_str());
    }
    let (status, ..) = raw(&restarted, "/api/shows/arena", &[("if-none-match", "\"stale\"")]).await;
    assert_eq!(status, 200);
    assert_error(&restarted.get("/api/shows/nope").await, 404, "unknown_show");
}

#[tokio::test]
async fn compact_seat_maps_list_only_taken_seats() {
    let app = TestApp::new(Some(ADMIN_TOKEN)).await;
    assert_eq!(app.create_show(&show_with("compact", 30, 10, json!({}))).await.status, 201);
    let token = app.session().await;
    assert_eq!(app.hold(&token, "compact", json!({"seats": ["A3", "A4"]})).await.status, 201);
    let blocked = app
        .post_admin("/api/admin/shows/compact/blocked", Some(ADMIN_TOKEN), json!({"seats": ["A9"]}).to_string())
        .await;
    assert_eq!(blocked.status, 200, "{blocked:?}");

    let full = app.call("GET", "/api/shows/compact/seats", Some(&token), None).await;
    assert_eq!(full.body["seats"].as_array().map(Vec::len), Some(30));
    let compact = app.call("GET", "/api/shows/compact/seats?only=taken", Some(&token), None).await;
    assert_eq!(compact.status, 200, "{compact:?}");
    let ids: Vec<&str> =
        compact.body["seats"].as_array().expect("seats").iter().map(|s| s["id"].as_str().expect("id")).collect();
    assert_eq!(ids, ["A3", "A4", "A9"]);
    assert_eq!(compact.body["seats"][0]["mine"], true);
    assert_eq!(compact.body["seats"][2]["blocked"], true);
    assert_eq!(compact.body["areas"], full.body["areas"], "areas are listed as before");
    assert_eq!(compact.body["version"], full.body["version"]);

    assert_error(&app.get("/api/shows/compact/seats?only=free").await, 400, "bad_request");
    assert_error(&app.get("/api/shows/compact/events?only=all").await, 400, "bad_request");
}

#[tokio::test]
async fn a_compact_stream_opens_with_a_compact_snapshot() {
    let app = TestApp::new(Some(ADMIN_TOKEN)).await;
    assert_eq!(app.create_show(&show_with("compact", 30, 10, json!({}))).await.status, 201);
    let token = app.session().await;
    assert_eq!(app.hold(&token, "compact", json!({"seats": ["A7"]})).await.status, 201);
    let request = Request::get("/api/shows/compact/events?only=taken").header("accept-encoding", "br, gzip");
    let response = app.router.clone().oneshot(request.body(Body::empty()).expect("request")).await.expect("answer");
    assert_eq!(response.status(), 200);
    assert_eq!(response.headers().get("content-encoding"), None, "live streams go out as they are");
    let mut body = response.into_body();
    let mut text = String::new();
    while !text.contains("\n\n") {
        let frame = body.frame().await.expect("a frame").expect("no error");
        if let Ok(data) = frame.into_data() {
            text.push_str(std::str::from_utf8(&data).expect("UTF-8"));
        }
    }
    assert!(text.contains("event: snapshot"), "{text}");
    let data = text.lines().find_map(|line| line.strip_prefix("data:")).expect("data line");
    let snapshot: Value = serde_json::from_str(data.trim()).expect("JSON");
    let seats = snapshot["seats"].as_array().expect("seats");
    assert_eq!(seats.len(), 1, "{snapshot}");
    assert_eq!(seats[0]["id"], "A7");
}
