//! The webhook admin endpoints (API.md "Box office (v3)", Webhooks): what
//! they take and refuse, what a new webhook gets, removal and redelivery.

// Test code: a panic is the failure report.
#![allow(clippy::unwrap_used)]

#[path = "support/hooks.rs"]
mod hooks;
#[path = "support/receiver.rs"]
mod receiver;
mod support;

use std::sync::Arc;

use serde_json::{Value, json};

use seathold_core::store::EventKind;
use seathold_server::state::Settings;

use hooks::{
    SALE_EVENTS, SECRET, add_webhook, check_in_order, deliveries, expected, fast, sale, shows, wait_delivered,
};
use receiver::{Policy, Receiver};
use support::{ADMIN_TOKEN, TestApp, assert_error};

async fn app() -> TestApp {
    TestApp::with_settings(Settings { admin_token: Some(Arc::from(ADMIN_TOKEN)), ..Settings::default() }).await
}

async fn create(app: &TestApp, body: Value) -> support::Answer {
    app.call("POST", "/api/admin/webhooks", Some(ADMIN_TOKEN), Some(body)).await
}

#[tokio::test]
async fn a_webhook_is_created_listed_and_removed() {
    let app = app().await;
    let body = json!({"url": "http://127.0.0.1:9/hook", "secret": SECRET, "events": ["confirmed", "held"]});
    let created = create(&app, body).await;
    assert_eq!(created.status, 201, "{created:?}");
    let id = created.body["id"].as_str().unwrap().to_owned();
    assert_eq!(created.body["url"], "http://127.0.0.1:9/hook");
    assert_eq!(created.body["events"], json!(["confirmed", "held"]));
    assert_eq!(created.body["serverTime"].as_i64(), created.server_time_header);
    assert!(created.body.get("secret").is_none(), "the secret is never shown again");

    let listed = app.call("GET", "/api/admin/webhooks", Some(ADMIN_TOKEN), None).await;
    assert_eq!(listed.status, 200);
    assert_eq!(listed.body["serverTime"].as_i64(), listed.server_time_header);
    assert_eq!(
        listed.body["webhooks"],
        json!([{"id": id, "url": "http://127.0.0.1:9/hook", "events": ["confirmed", "held"],
                "deliveries": {"pending": 0, "failed": 0, "attempts": 0, "lastStatus": null, "lastError": null}}])
    );

    let removed = app.call("DELETE", &format!("/api/admin/webhooks/{id}"), Some(ADMIN_TOKEN), None).await;
    assert_eq!(removed.status, 204, "{removed:?}");
    let listed = app.call("GET", "/api/admin/webhooks", Some(ADMIN_TOKEN), None).await;
    assert_eq!(listed.body["webhooks"], json!([]));
    let again = app.call("DELETE", &format!("/api/admin/webhooks/{id}"), Some(ADMIN_TOKEN), None).await;
    assert_error(&again, 404, "no_webhook");
}

#[tokio::test]
async fn bad_webhooks_are_refused_with_the_problem_named_and_change_nothing() {
    let app = app().await;
    let good = || json!({"url": "https://hooks.example.com/x", "secret": "s", "events": ["held"]});
    let with = |field: &str, value: Value| {
        let mut body = good();
        body[field] = value;
        body
    };
    let without = |field: &str| {
        let mut body = good();
        body.as_object_mut().unwrap().remove(field);
        body
    };
    for (body, says) in [
        (with("url", json!("ftp://example.com/x")), "url must be http or https"),
        (with("url", json!("not-a-url")), "is not a URL"),
        (with("url", json!("not a url")), "contains a space"),
        (with("secret", json!("")), "secret is empty"),
        (with("events", json!([])), "events names no kind"),
        (with("events", json!(["held", "sold"])), "\"sold\""),
        (with("events", json!(["held", "held"])), "held twice"),
        (without("url"), "url is required"),
        (without("secret"), "secret is required"),
        (without("events"), "events is required"),
    ] {
        let answer = create(&app, body.clone()).await;
        assert_error(&answer, 422, "invalid_webhook");
        let message = answer.body["message"].as_str().unwrap();
        assert!(message.contains(says), "{body}: {message}");
    }
    for body in [with("url", json!(7)), with("events", json!("held")), with("secret", json!(["s"])), json!([1])] {
        assert_error(&create(&app, body).await, 400, "bad_request");
    }
    assert_error(&app.call("POST", "/api/admin/webhooks", Some("wrong"), Some(good())).await, 401, "unauthorized");
    assert_error(&app.call("GET", "/api/admin/webhooks", None, None).await, 401, "unauthorized");
    let listed = app.call("GET", "/api/admin/webhooks", Some(ADMIN_TOKEN), None).await;
    assert_eq!(listed.body["webhooks"], json!([]), "nothing was created");

    let closed = TestApp::new(None).await;
    let answer = closed.call("POST", "/api/admin/webhooks", Some(ADMIN_TOKEN), Some(good())).await;
    assert_error(&answer, 403, "admin_disabled");
}

#[tokio::test]
async fn a_new_webhook_gets_the_events_committed_after_it_and_redelivery_resends_in_order() {
    let app = app().await;
    let _sender = seathold_server::webhooks::start(&app.state, fast()).unwrap();
    let receiver = Receiver::start(SECRET, Policy::Accept).await;
    shows(&app, &["north"]).await;
    sale(&app, "north", 0).await;
    let id = add_webhook(&app, &receiver.url, &EventKind::ALL.map(EventKind::name)).await;
    // A show made after the webhook: all its events are after it.
    shows(&app, &["south"]).await;
    sale(&app, "north", 1).await;
    sale(&app, "south", 0).await;
    let done = wait_delivered(&app, &id).await;
    assert_eq!(done["attempts"], 2 * SALE_EVENTS, "{done}");
    let mut later = expected(app.store.as_ref(), &["north"], &EventKind::ALL, SALE_EVENTS as i64).await;
    later.extend(expected(app.store.as_ref(), &["south"], &EventKind::ALL, 0).await);
    check_in_order(&receiver.log(), &later);

    let path = format!("/api/admin/webhooks/{id}/redeliver");
    let from = format!("north:{}", SALE_EVENTS + 4);
    let answer = app.call("POST", &path, Some(ADMIN_TOKEN), Some(json!({"fromEventId": from}))).await;
    assert_eq!(answer.status, 202, "{answer:?}");
    assert_eq!((&answer.body["id"], &answer.body["fromEventId"]), (&json!(id), &json!(from)));
    let done = hooks::wait_for(&app, &id, "the redelivery", |deliveries| {
        deliveries["pending"] == 0 && deliveries["attempts"] == 3 * SALE_EVENTS - 3
    })
    .await;
    assert_eq!(done["failed"], 0);
    let again: Vec<i64> = receiver.log()[2 * SALE_EVENTS as usize..].iter().map(receiver::Received::version).collect();
    let versions: Vec<i64> = (SALE_EVENTS as i64 + 4..=2 * SALE_EVENTS as i64).collect();
    assert_eq!(again, versions, "the event and every later one of its show, in order");
}

#[tokio::test]
async fn redelivery_names_a_webhook_and_an_event_that_exist() {
    let app = app().await;
    shows(&app, &["north"]).await;
    sale(&app, "north", 0).await;
    let id = add_webhook(&app, "http://127.0.0.1:9/hook", &["held"]).await;
    let redeliver = |webhook: &str, body: Value| {
        let path = format!("/api/admin/webhooks/{webhook}/redeliver");
        let app = &app;
        async move { app.call("POST", &path, Some(ADMIN_TOKEN), Some(body)).await }
    };
    assert_error(&redeliver("wh_nope", json!({"fromEventId": "north:1"})).await, 404, "no_webhook");
    assert_error(&redeliver("wh_nope", json!("not even an object")).await, 404, "no_webhook");
    for (body, says) in [
        (json!({}), "fromEventId is required"),
        (json!({"fromEventId": "north"}), "is not <showId>:<version>"),
        (json!({"fromEventId": "north:0"}), "is not <showId>:<version>"),
        (json!({"fromEventId": "south:1"}), "which does not exist"),
        (json!({"fromEventId": format!("north:{}", SALE_EVENTS + 1)}), "has no event 10 yet"),
    ] {
        let answer = redeliver(&id, body.clone()).await;
        assert_error(&answer, 422, "invalid_webhook");
        assert!(answer.body["message"].as_str().unwrap().contains(says), "{body}: {answer:?}");
    }
    assert_error(&redeliver(&id, json!({"fromEventId": 3})).await, 400, "bad_request");
    assert_eq!(deliveries(&app, &id).await["pending"], 0, "nothing was rewound");
    assert_eq!(redeliver(&id, json!({"fromEventId": "north:1"})).await.status, 202);
    assert_eq!(deliveries(&app, &id).await["pending"], 3, "the three holds of the sale go again");
}
