//! Inputs a schema checker finds at the edges of the contract: a resume
//! point that is not an int64 gets API.md's JSON 400 (not axum's plain
//! text); a whole number written as a float is the integer it names; the
//! document states API.md's patterns, ranges and `X-Server-Time`.

// Test code: a panic is the failure report.
#![allow(clippy::unwrap_used)]

mod support;

use axum::body::Body;
use axum::http::Request;
use serde_json::json;
use support::{ADMIN_TOKEN, TestApp, assert_error, show_with};

#[tokio::test]
async fn a_resume_point_that_is_not_an_int64_is_a_json_400() {
    let app = TestApp::new(Some(ADMIN_TOKEN)).await;
    assert_eq!(app.create_show(&show_with("edge", 2, 5, json!({}))).await.status, 201);
    for query in ["lastEventId=9223372036854775808", "lastEventId=1.5", "lastEventId=x"] {
        assert_error(&app.get(&format!("/api/shows/edge/events?{query}")).await, 400, "bad_request");
    }
    for value in ["null", ""] {
        let header = Request::get("/api/shows/edge/events").header("last-event-id", value).body(Body::empty()).unwrap();
        assert_error(&app.send(header).await, 400, "bad_request");
    }
    assert_error(&app.get("/api/shows/edge/events?other=1").await, 400, "bad_request");
}

#[tokio::test]
async fn whole_numbers_written_as_floats_are_integers_and_fractions_are_refused() {
    let app = TestApp::new(Some(ADMIN_TOKEN)).await;
    let created =
        app.create_show(&show_with("floats", 2, 5, json!({"holdSeconds": 60.0, "maxSeatsPerHold": 4.0}))).await;
    assert_eq!(created.status, 201, "{created:?}");
    assert_eq!(created.body["holdSeconds"], 60, "{created:?}");
    let token = app.session().await;
    assert_eq!(app.hold(&token, "floats", json!({"areas": {"floor": 2.0}})).await.status, 201);
    let query = app
        .post_admin(
            "/api/admin/shows?maxSeatsPerHold=9",
            Some(ADMIN_TOKEN),
            show_with("q", 2, 5, json!({})).to_string(),
        )
        .await;
    assert_error(&query, 400, "bad_request");
    let fraction = app.create_show(&show_with("fraction", 2, 5, json!({"holdSeconds": 60.5}))).await;
    assert_error(&fraction, 400, "bad_request");
}

#[tokio::test]
async fn the_document_states_api_md_constraints_and_the_server_time_header() {
    let app = TestApp::new(None).await;
    let document = app.get("/api/openapi.json").await.body;
    let show = &document["components"]["schemas"]["ShowInput"];
    assert_eq!(show["properties"]["id"]["pattern"], "^[a-z0-9][a-z0-9-]{0,63}$");
    assert_eq!(show["properties"]["holdSeconds"]["minimum"], 1);
    assert_eq!(
        document["components"]["schemas"]["SeatDefinition"]["properties"]["id"]["pattern"],
        "^[A-Za-z0-9][A-Za-z0-9_-]{0,31}$"
    );
    let hold = &document["paths"]["/api/holds/{holdId}"]["get"];
    assert_eq!(hold["parameters"][0]["schema"]["pattern"], "^[A-Za-z0-9_-]{8,64}$");
    for (path, item) in document["paths"].as_object().unwrap() {
        for (method, operation) in item.as_object().unwrap() {
            for (status, response) in operation["responses"].as_object().unwrap() {
                assert!(response["headers"]["X-Server-Time"].is_object(), "{method} {path} {status}");
            }
            assert!(operation["responses"]["500"].is_object(), "{method} {path}");
        }
    }
}
