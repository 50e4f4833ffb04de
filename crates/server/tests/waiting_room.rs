//! API.md "Waiting room (v3)" through the real router on a real SQLite
//! file, on a clock the test moves: joining, the draw at `opensAt`,
//! admission by the formula, `not_admitted` holds, lapses, the operator's
//! controls, a restart, the per-address cap and the progress stream.

mod support;

use axum::body::Body;
use axum::http::Request;
use http_body_util::BodyExt;
use serde_json::{Value, json};

use seat_state::ServerMillis;
use seathold_core::clock::TestClock;
use seathold_server::limits::Limits;
use seathold_server::state::Settings;
use support::{ADMIN_TOKEN, TestApp, assert_error, show_with};

const OPENS: i64 = 1_800_000_000_000;

fn queued_show(id: &str, on_sale: Value) -> Value {
    show_with(id, 20, 10, json!({"maxActiveHoldsPerHolder": 3, "onSale": on_sale}))
}

/// 60 a minute: one place a second from `OPENS`; 30 s to make a first hold.
fn one_a_second() -> Value {
    json!({"opensAt": OPENS, "admitPerMinute": 60, "preQueueSeconds": 900, "admissionSeconds": 30})
}

async fn app_at(clock: &TestClock) -> TestApp {
    let settings = Settings { admin_token: Some(ADMIN_TOKEN.into()), ..Settings::default() };
    TestApp::with_test_clock_and_settings(clock, settings).await
}

async fn join(app: &TestApp, token: &str, show: &str) -> support::Answer {
    app.call("POST", &format!("/api/shows/{show}/queue"), Some(token), None).await
}

async fn place(app: &TestApp, token: &str, show: &str) -> support::Answer {
    app.call("GET", &format!("/api/shows/{show}/queue"), Some(token), None).await
}

async fn admin(app: &TestApp, show: &str, body: Option<Value>) -> support::Answer {
    let path = format!("/api/admin/shows/{show}/queue");
    let method = if body.is_some() { "POST" } else { "GET" };
    let mut request =
        Request::builder().method(method).uri(path).header("authorization", format!("Bearer {ADMIN_TOKEN}"));
    let body = match body {
        Some(body) => {
            request = request.header("content-type", "application/json");
            Body::from(body.to_string())
        }
        None => Body::empty(),
    };
    app.send(request.body(body).expect("request")).await
}

/// Batches timed in `seathold_queue_draw_duration_seconds`.
async fn draws_timed(app: &TestApp) -> u64 {
    let metrics = app.get("/metrics").await.body;
    let line = metrics.as_str().and_then(|text| {
        text.lines().find_map(|line| line.strip_prefix("seathold_queue_draw_duration_seconds_count "))
    });
    line.and_then(|count| count.parse().ok()).expect("the draw histogram in /metrics")
}

fn seat(n: u32) -> Value {
    json!({"seats": [format!("A{n}")]})
}

#[tokio::test]
async fn bad_on_sale_values_are_refused_and_change_nothing() {
    let clock = TestClock::at(ServerMillis(OPENS));
    let app = app_at(&clock).await;
    for on_sale in [
        json!({"admitPerMinute": 60}),
        json!({"opensAt": OPENS}),
        json!({"opensAt": OPENS, "admitPerMinute": 0}),
        json!({"opensAt": OPENS, "admitPerMinute": 60, "preQueueSeconds": 0}),
        json!({"opensAt": OPENS, "admitPerMinute": 60, "admissionSeconds": 0}),
    ] {
        assert_error(&app.create_show(&queued_show("bad", on_sale.clone())).await, 422, "invalid_show");
    }
    for on_sale in
        [json!({"opensAt": "soon", "admitPerMinute": 60}), json!({"opensAt": OPENS, "admitPerMinute": true}), json!(5)]
    {
        assert_error(&app.create_show(&queued_show("bad", on_sale)).await, 400, "bad_request");
    }
    assert_error(&app.get("/api/shows/bad").await, 404, "unknown_show");
    // Defaults are filled in, and the definition keeps `onSale` as created.
    assert_eq!(app.create_show(&queued_show("good", json!({"opensAt": OPENS, "admitPerMinute": 5}))).await.status, 201);
    let definition = app.get("/api/shows/good").await.body;
    assert_eq!(
        definition["onSale"],
        json!({"opensAt": OPENS, "admitPerMinute": 5, "preQueueSeconds": 900, "admissionSeconds": 600})
    );
}

#[tokio::test]
async fn a_show_without_on_sale_has_no_queue_and_a_session_that_never_joined_is_not_queued() {
    let clock = TestClock::at(ServerMillis(OPENS));
    let app = app_at(&clock).await;
    assert_eq!(app.create_show(&show_with("plain", 5, 5, json!({}))).await.status, 201);
    assert_eq!(app.create_show(&queued_show("queued", one_a_second())).await.status, 201);
    let token = app.session().await;
    assert_error(&join(&app, &token, "plain").await, 404, "no_queue");
    assert_error(&app.get("/api/shows/plain/queue/events").await, 404, "no_queue");
    assert_error(&admin(&app, "plain", None).await, 404, "no_queue");
    assert_error(&place(&app, &token, "queued").await, 404, "not_queued");
    assert_error(&join(&app, &token, "nowhere").await, 404, "unknown_show");
    assert_error(&join(&app, "not-a-token", "queued").await, 401, "unauthorized");
    // A show without a queue holds as before.
    assert_eq!(app.hold(&token, "plain", seat(1)).await.status, 201);
}

#[tokio::test]
async fn the_pre_queue_is_drawn_at_opens_at_and_admitted_by_the_formula() {
    let clock = TestClock::at(ServerMillis(OPENS - 1_000_000));
    let app = app_at(&clock).await;
    assert_eq!(app.create_show(&queued_show("gig", one_a_second())).await.status, 201);
    let tokens = [app.session().await, app.session().await, app.session().await];
    // Before opensAt − preQueueSeconds: not open; a hold needs admission all the same.
    assert_error(&join(&app, &tokens[0], "gig").await, 409, "queue_not_open");
    let refused = app.hold(&tokens[0], "gig", seat(1)).await;
    assert_error(&refused, 403, "not_admitted");
    assert_eq!(
        (refused.body["position"].clone(), refused.body["estimatedAdmitAt"].clone()),
        (Value::Null, Value::Null)
    );

    clock.set(ServerMillis(OPENS - 600_000));
    for token in &tokens {
        let joined = join(&app, token, "gig").await;
        assert_eq!(joined.status, 201, "{joined:?}");
        assert_eq!(joined.body["state"], "waiting");
        assert_eq!(joined.body["position"], Value::Null, "no position before the draw");
        assert_eq!(joined.body["estimatedAdmitAt"], Value::Null);
        assert_eq!(join(&app, token, "gig").await.status, 200, "joining again keeps the place");
    }
    assert_eq!(admin(&app, "gig", None).await.body["drawSeed"], Value::Null);
    assert_eq!(draws_timed(&app).await, 0);

    clock.set(ServerMillis(OPENS));
    let mut positions = Vec::new();
    for token in &tokens {
        let body = place(&app, token, "gig").await.body;
        let position = body["position"].as_i64().expect("drawn");
        assert_eq!(body["ahead"], position - 1);
        assert_eq!(body["estimatedAdmitAt"], OPENS + 1000 * position, "{body}");
        positions.push(position);
    }
    let mut sorted = positions.clone();
    sorted.sort_unstable();
    assert_eq!(sorted, [1, 2, 3], "the draw is a permutation");
    let status = admin(&app, "gig", None).await.body;
    assert!(status["drawSeed"].as_u64().is_some(), "{status}");
    assert_eq!(draws_timed(&app).await, 1, "the batch that drew is timed on its own");
    assert_eq!((status["length"].clone(), status["admittedThrough"].clone()), (json!(3), json!(0)));

    let by_position = |p: i64| &tokens[positions.iter().position(|&q| q == p).expect("position")];
    clock.set(ServerMillis(OPENS + 1_000));
    let first = place(&app, by_position(1), "gig").await.body;
    assert_eq!((first["state"].clone(), first["admittedUntil"].clone()), (json!("admitted"), json!(OPENS + 31_000)));
    assert_eq!(app.hold(by_position(1), "gig", seat(1)).await.status, 201);
    let second = app.hold(by_position(2), "gig", seat(2)).await;
    assert_error(&second, 403, "not_admitted");
    assert_eq!(
        (second.body["position"].clone(), second.body["estimatedAdmitAt"].clone()),
        (json!(2), json!(OPENS + 2_000))
    );

    // A join after opensAt goes to the back.
    let late = app.session().await;
    assert_eq!(join(&app, &late, "gig").await.body["position"], 4);
    clock.set(ServerMillis(OPENS + 2_000));
    assert_eq!(app.hold(by_position(2), "gig", seat(2)).await.status, 201);

    // Position 3 is admitted at +3 s and lets its window pass: lapsed.
    clock.set(ServerMillis(OPENS + 33_000));
    assert_eq!(place(&app, by_position(3), "gig").await.body["state"], "lapsed");
    assert_error(&app.hold(by_position(3), "gig", seat(3)).await, 403, "not_admitted");
    // Position 1 held in its window: still admitted, and may hold again.
    assert_eq!(place(&app, by_position(1), "gig").await.body["state"], "admitted");
    assert_eq!(app.hold(by_position(1), "gig", seat(4)).await.status, 201);
    // The lapsed session joins again, at the back.
    let again = join(&app, by_position(3), "gig").await;
    assert_eq!((again.status.as_u16(), again.body["position"].clone()), (201, json!(5)));

    // A restart rebuilds the same queue from its log.
    let mut before = Vec::new();
    for token in &tokens {
        before.push(place(&app, token, "gig").await.body);
    }
    let app = app.restart();
    for (token, before) in tokens.iter().zip(before) {
        assert_eq!(place(&app, token, "gig").await.body, before);
    }
    assert_eq!(admin(&app, "gig", None).await.body["drawSeed"], status["drawSeed"]);
}

#[tokio::test]
async fn the_operator_pauses_changes_the_rate_and_closes() {
    let clock = TestClock::at(ServerMillis(OPENS));
    let app = app_at(&clock).await;
    assert_eq!(app.create_show(&queued_show("ops", one_a_second())).await.status, 201);
    for _ in 0..30 {
        let token = app.session().await;
        assert_eq!(join(&app, &token, "ops").await.status, 201);
    }
    clock.set(ServerMillis(OPENS + 5_000));
    let paused = admin(&app, "ops", Some(json!({"paused": true}))).await;
    assert_eq!((paused.status.as_u16(), paused.body["paused"].clone()), (200, json!(true)));
    assert_eq!(paused.body["admittedThrough"], 5);
    let metrics = app.get("/metrics").await.body;
    let metrics = metrics.as_str().expect("text");
    for series in [
        "seathold_queue_joins_total 30",
        "seathold_queue_places{show=\"ops\"} 30",
        "seathold_queue_admitted{show=\"ops\"} 5",
    ] {
        assert!(metrics.lines().any(|line| line == series), "{series} in /metrics:\n{metrics}");
    }
    clock.set(ServerMillis(OPENS + 60_000));
    assert_eq!(admin(&app, "ops", None).await.body["admittedThrough"], 5, "no admissions while paused");
    let resumed = admin(&app, "ops", Some(json!({"paused": false, "admitPerMinute": 600}))).await.body;
    assert_eq!((resumed["ratePerMinute"].clone(), resumed["paused"].clone()), (json!(600), json!(false)));
    clock.set(ServerMillis(OPENS + 61_000));
    assert_eq!(admin(&app, "ops", None).await.body["admittedThrough"], 15, "10 a second from the change on");
    assert_error(&admin(&app, "ops", Some(json!({"admitPerMinute": 0}))).await, 422, "invalid_queue");
    assert_error(&admin(&app, "ops", Some(json!({"paused": "yes"}))).await, 400, "bad_request");

    // Closed: holds need no admission any more.
    let stranger = app.session().await;
    assert_error(&app.hold(&stranger, "ops", seat(1)).await, 403, "not_admitted");
    assert_eq!(admin(&app, "ops", Some(json!({"closed": true}))).await.body["closed"], true);
    assert_eq!(app.hold(&stranger, "ops", seat(1)).await.status, 201);
    let unauthorized = app.call("GET", "/api/admin/shows/ops/queue", Some("wrong"), None).await;
    assert_error(&unauthorized, 401, "unauthorized");
}

#[tokio::test]
async fn an_address_takes_at_most_its_cap_of_places() {
    let clock = TestClock::at(ServerMillis(OPENS));
    let limits = Limits { queue_places_per_address: 2, ..Limits::default() };
    let settings = Settings { admin_token: Some(ADMIN_TOKEN.into()), limits, ..Settings::default() };
    let app = TestApp::with_test_clock_and_settings(&clock, settings).await;
    assert_eq!(app.create_show(&queued_show("capped", one_a_second())).await.status, 201);
    for _ in 0..2 {
        let token = app.session().await;
        assert_eq!(join(&app, &token, "capped").await.status, 201);
    }
    let third = join(&app, &app.session().await, "capped").await;
    assert_error(&third, 429, "rate_limited");
    assert!(third.headers.get("retry-after").is_some(), "{third:?}");
    assert_eq!(admin(&app, "capped", None).await.body["length"], 2, "the refused join took nothing");
}

#[tokio::test]
async fn progress_streams_the_same_small_event_to_every_listener() {
    let clock = TestClock::at(ServerMillis(OPENS + 10_000));
    let app = app_at(&clock).await;
    assert_eq!(app.create_show(&queued_show("live", one_a_second())).await.status, 201);
    let token = app.session().await;
    assert_eq!(join(&app, &token, "live").await.status, 201);
    let request = Request::get("/api/shows/live/queue/events").body(Body::empty()).expect("request");
    let response = tower::ServiceExt::oneshot(app.router.clone(), request).await.expect("answer");
    assert_eq!(response.headers()["content-type"], "text/event-stream");
    let mut body = response.into_body();
    let frame = body.frame().await.expect("a frame").expect("no error").into_data().expect("data");
    let text = String::from_utf8(frame.to_vec()).expect("utf-8");
    assert!(text.starts_with("event: progress\ndata: "), "{text}");
    let data: Value = serde_json::from_str(text.trim_start_matches("event: progress\ndata: ").trim()).expect("JSON");
    let keys: Vec<&str> = data.as_object().expect("object").keys().map(String::as_str).collect();
    assert_eq!(keys, ["admittedThrough", "paused", "ratePerMinute", "serverTime"], "{data}");
    assert_eq!((data["ratePerMinute"].clone(), data["paused"].clone()), (json!(60), json!(false)));
}

async fn on_sale(app: &TestApp, show: &str) -> Value {
    let answer = app.call("GET", &format!("/api/admin/shows/{show}/onsale"), Some(ADMIN_TOKEN), None).await;
    assert_eq!(answer.status, 200, "{answer:?}");
    answer.body
}

/// One figure of every minute, oldest first.
fn series(history: &Value, key: &str) -> Vec<Value> {
    history["minutes"].as_array().expect("minutes").iter().map(|minute| minute[key].clone()).collect()
}

#[tokio::test]
async fn the_operator_sees_the_last_hour_minute_by_minute() {
    // OPENS is a whole minute: the pre-queue joins open minute 38 of the
    // hour that ends 11 minutes after the sale opens.
    let clock = TestClock::at(ServerMillis(OPENS - 600_000));
    let app = app_at(&clock).await;
    assert_eq!(app.create_show(&queued_show("gig", one_a_second())).await.status, 201);
    assert_eq!(app.create_show(&show_with("plain", 5, 5, json!({}))).await.status, 201);
    let tokens = [app.session().await, app.session().await, app.session().await];
    for token in &tokens {
        assert_eq!(join(&app, token, "gig").await.status, 201);
    }
    clock.set(ServerMillis(OPENS + 5_000));
    let mut holds = Vec::new();
    for (n, token) in tokens.iter().enumerate() {
        let held = app.hold(token, "gig", seat(n as u32 + 1)).await;
        assert_eq!(held.status, 201, "{held:?}");
        holds.push(held.body);
    }
    let hold_id = holds[0]["holdId"].as_str().expect("a hold id");
    assert_eq!(app.call("POST", &format!("/api/holds/{hold_id}/confirm"), Some(&tokens[0]), None).await.status, 200);
    let expires = holds.iter().map(|hold| hold["expiresAt"].as_i64().expect("a deadline")).max().expect("holds");
    clock.set(ServerMillis(expires + 1));
    app.sweep().await;
    clock.set(ServerMillis(OPENS + 700_000));

    let history = on_sale(&app, "gig").await;
    assert_eq!(history["serverTime"], OPENS + 700_000);
    let starts: Vec<i64> = series(&history, "at").iter().filter_map(Value::as_i64).collect();
    assert_eq!(starts.len(), 60);
    assert_eq!(starts[59], OPENS + 660_000, "the last minute is the one under way");
    assert!(starts.windows(2).all(|pair| pair[1] - pair[0] == 60_000));
    let count = |key: &str| series(&history, key).iter().filter_map(Value::as_u64).collect::<Vec<u64>>();
    let (length, admitted) = (count("queueLength"), count("admittedThrough"));
    assert_eq!((length[37], length[38], length[59]), (0, 3, 3), "joined in minute 38");
    assert_eq!((admitted[47], admitted[48]), (0, 3), "admitted once the sale opened, in minute 48");
    assert_eq!(count("holds")[48], 3);
    assert_eq!(count("confirms")[48], 1);
    assert_eq!(count("expiries").iter().sum::<u64>(), 2, "the two unconfirmed holds expired");
    // The same figures as the queue's own status.
    let status = admin(&app, "gig", None).await.body;
    assert_eq!((json!(length[59]), json!(admitted[59])), (status["length"].clone(), status["admittedThrough"].clone()));

    let plain = on_sale(&app, "plain").await;
    assert!(series(&plain, "queueLength").iter().all(Value::is_null), "no waiting room: {plain}");
    assert_error(
        &app.call("GET", "/api/admin/shows/nowhere/onsale", Some(ADMIN_TOKEN), None).await,
        404,
        "unknown_show",
    );
    assert_error(&app.get("/api/admin/shows/gig/onsale").await, 401, "unauthorized");
}

/// Two processes share a database whose clock decides. A process whose own
/// clock runs ahead of the database's must not call a place admitted before
/// the database's instant: the other process would refuse its hold.
#[tokio::test]
async fn every_process_answers_the_queue_at_the_databases_instant() {
    use seathold_core::store::{SharedMemoryStore, Store};
    use std::sync::Arc;

    let database = TestClock::at(ServerMillis(OPENS - 600_000));
    let store: Arc<dyn Store> = Arc::new(SharedMemoryStore::new(database.shared()));
    let ahead = TestClock::at(ServerMillis(OPENS - 600_000 + 400));
    let a = TestApp::over_store(Some(ADMIN_TOKEN), Arc::clone(&store), &ahead);
    let b = TestApp::over_store(Some(ADMIN_TOKEN), store, &database);
    assert_eq!(a.create_show(&queued_show("gig", one_a_second())).await.status, 201);
    let ann = a.session().await;
    assert_eq!(join(&a, &ann, "gig").await.status, 201);

    // Position 1 is admitted at OPENS + 1 s by the database's clock; A's runs 400 ms ahead.
    database.set(ServerMillis(OPENS + 800));
    ahead.set(ServerMillis(OPENS + 1_200));
    let early = place(&a, &ann, "gig").await.body;
    assert_eq!(
        (early["state"].clone(), early["serverTime"].clone()),
        (json!("waiting"), json!(OPENS + 800)),
        "{early}"
    );
    assert_error(&b.hold(&ann, "gig", seat(1)).await, 403, "not_admitted");

    database.set(ServerMillis(OPENS + 1_000));
    ahead.set(ServerMillis(OPENS + 1_400));
    assert_eq!(place(&a, &ann, "gig").await.body["state"], "admitted");
    assert_eq!(b.hold(&ann, "gig", seat(1)).await.status, 201);
}
