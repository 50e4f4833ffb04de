//! Rate limits (API.md "Limits (v2)"): a session or an address over its rate
//! gets `429 rate_limited` with `Retry-After` and changes nothing; everyone
//! else is untouched, and the defaults never limit a sale's real customers.
//! Quotas here are per minute, so no bucket refills during a test.

// Test code: a panic is the failure report.
#![allow(clippy::unwrap_used)]

mod support;

use std::num::NonZeroU32;

use axum::body::Body;
use axum::http::Request;
use clap::Parser;
use serde_json::json;
use support::{ADMIN_TOKEN, Answer, TestApp, assert_error, show_with};

use seathold_server::config::{Cli, Command};
use seathold_server::limits::{Limits, Quotas};
use seathold_server::state::Settings;

fn quota(n: u32) -> NonZeroU32 {
    NonZeroU32::new(n).unwrap()
}

async fn app(rates: Option<Quotas>, trust_forwarded_for: bool) -> TestApp {
    let limits = Limits { rates, trust_forwarded_for, ..Limits::default() };
    let app =
        TestApp::with_settings(Settings { admin_token: Some(ADMIN_TOKEN.into()), limits, ..Settings::default() }).await;
    assert_eq!(app.create_show(&show_with("sale", 600, 5, json!({"maxActiveHoldsPerHolder": 3}))).await.status, 201);
    app
}

fn rates(per_session: u32, per_address: u32, sessions: u32) -> Option<Quotas> {
    Some(Quotas {
        hold_writes_per_session: quota(per_session),
        hold_writes_per_address: quota(per_address),
        sessions_per_address: quota(sessions),
    })
}

/// The limits `seathold serve ARGS…` would run with.
fn serve_limits(args: &[&str]) -> Limits {
    let cli = Cli::try_parse_from(["seathold", "serve"].iter().chain(args)).unwrap();
    let Command::Serve(serve) = cli.command else { panic!("not serve") };
    serve.limits.limits()
}

fn assert_rate_limited(answer: &Answer) {
    assert_error(answer, 429, "rate_limited");
    let retry: u64 = answer.headers["retry-after"].to_str().unwrap().parse().unwrap();
    assert!((1..=60).contains(&retry), "{answer:?}");
}

/// A request from `address` as a trusted proxy reports it.
fn from(
    address: &str,
    method: &str,
    path: &str,
    token: Option<&str>,
    body: Option<serde_json::Value>,
) -> Request<Body> {
    let mut request =
        Request::builder().method(method).uri(path).header("x-forwarded-for", format!("10.9.9.9, {address}"));
    if let Some(token) = token {
        request = request.header("authorization", format!("Bearer {token}"));
    }
    match body {
        Some(body) => request.header("content-type", "application/json").body(Body::from(body.to_string())).unwrap(),
        None => request.body(Body::empty()).unwrap(),
    }
}

#[tokio::test]
async fn a_session_over_its_rate_gets_429_and_changes_nothing_while_others_are_untouched() {
    let app = app(rates(3, 1000, 1000), false).await;
    let (greedy, other) = (app.session().await, app.session().await);
    let held = app.hold(&greedy, "sale", json!({"seats": ["A1"]})).await;
    assert_eq!(held.status, 201, "{held:?}");
    let hold = held.body["holdId"].as_str().unwrap().to_owned();
    assert_eq!(app.call("POST", &format!("/api/holds/{hold}/extend"), Some(&greedy), None).await.status, 200);
    assert_eq!(app.hold(&greedy, "sale", json!({"seats": ["A2"]})).await.status, 201);
    assert_rate_limited(&app.call("DELETE", &format!("/api/holds/{hold}"), Some(&greedy), None).await);
    let still = app.call("GET", &format!("/api/holds/{hold}"), Some(&greedy), None).await;
    assert_eq!(still.body["status"], "HELD", "reads are not limited, and the refused release did nothing: {still:?}");
    assert_eq!(app.hold(&other, "sale", json!({"seats": ["A3"]})).await.status, 201);
}

#[tokio::test]
async fn an_address_over_its_rate_gets_429_and_other_addresses_are_untouched() {
    let app = app(rates(1000, 2, 1000), true).await;
    let token = app.session().await;
    for seat in ["A1", "A2"] {
        let answer = app
            .send(from("203.0.113.7", "POST", "/api/shows/sale/holds", Some(&token), Some(json!({"seats": [seat]}))))
            .await;
        assert_eq!(answer.status, 201, "{answer:?}");
    }
    let third = from("203.0.113.7", "POST", "/api/shows/sale/holds", Some(&token), Some(json!({"seats": ["A3"]})));
    assert_rate_limited(&app.send(third).await);
    // Another customer behind another address, with a session of their own.
    let other = app.session().await;
    let answer = app
        .send(from("198.51.100.1", "POST", "/api/shows/sale/holds", Some(&other), Some(json!({"seats": ["A3"]}))))
        .await;
    assert_eq!(answer.status, 201, "{answer:?}");
}

#[tokio::test]
async fn forwarded_for_is_ignored_unless_trusted() {
    let app = app(rates(1000, 1000, 2), false).await;
    for address in ["192.0.2.1", "192.0.2.2"] {
        assert_eq!(app.send(from(address, "POST", "/api/sessions", None, None)).await.status, 201);
    }
    // A made-up X-Forwarded-For does not make a new address.
    assert_rate_limited(&app.send(from("192.0.2.3", "POST", "/api/sessions", None, None)).await);
}

#[tokio::test]
async fn session_creation_is_limited_per_address() {
    let app = app(rates(1000, 1000, 2), true).await;
    for _ in 0..2 {
        assert_eq!(app.send(from("203.0.113.9", "POST", "/api/sessions", None, None)).await.status, 201);
    }
    assert_rate_limited(&app.send(from("203.0.113.9", "POST", "/api/sessions", None, None)).await);
    assert_eq!(app.send(from("203.0.113.10", "POST", "/api/sessions", None, None)).await.status, 201);
}

/// 300 customers behind one NAT, each taking a session, holding, changing
/// their mind once and buying: the default limits never answer 429.
#[tokio::test]
async fn the_default_limits_never_touch_a_sales_real_customers() {
    let limits = serve_limits(&[]);
    assert!(limits.rates.is_some(), "rate limits are on by default");
    let app = app(limits.rates, false).await;
    for customer in 0..300 {
        let token = app.session().await;
        let first = app.hold(&token, "sale", json!({"seats": [format!("A{}", customer * 2 + 1)]})).await;
        assert_eq!(first.status, 201, "{first:?}");
        let hold = first.body["holdId"].as_str().unwrap();
        assert_eq!(app.call("DELETE", &format!("/api/holds/{hold}"), Some(&token), None).await.status, 204);
        let second = app.hold(&token, "sale", json!({"seats": [format!("A{}", customer * 2 + 2)]})).await;
        assert_eq!(second.status, 201, "{second:?}");
        let hold = second.body["holdId"].as_str().unwrap();
        assert_eq!(app.call("POST", &format!("/api/holds/{hold}/confirm"), Some(&token), None).await.status, 200);
    }
}

#[tokio::test]
async fn rate_limits_off_means_none() {
    assert!(serve_limits(&["--rate-limits", "off"]).rates.is_none());
    let app = app(None, false).await;
    for _ in 0..50 {
        assert_eq!(app.send(Request::post("/api/sessions").body(Body::empty()).unwrap()).await.status, 201);
    }
}

/// Through a real socket: the address is the peer's, as `listen` hands it on.
#[tokio::test]
async fn the_peer_address_is_what_a_real_connection_is_limited_by() {
    let app = app(rates(1000, 1000, 2), false).await;
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let address = listener.local_addr().unwrap();
    let serving = seathold_server::listen::serve(
        listener,
        app.router.clone(),
        std::time::Duration::from_secs(10),
        std::future::pending(),
    );
    tokio::spawn(serving);
    let mut statuses = Vec::new();
    for _ in 0..3 {
        use tokio::io::{AsyncReadExt, AsyncWriteExt};
        let mut client = tokio::net::TcpStream::connect(address).await.unwrap();
        let request = "POST /api/sessions HTTP/1.1\r\nHost: seathold\r\nContent-Length: 0\r\nConnection: close\r\n\r\n";
        client.write_all(request.as_bytes()).await.unwrap();
        let mut answer = String::new();
        client.read_to_string(&mut answer).await.unwrap();
        statuses.push(answer.split(' ').nth(1).unwrap_or("").to_owned());
        if statuses.len() == 3 {
            assert!(answer.to_ascii_lowercase().contains("retry-after:"), "{answer}");
        }
    }
    assert_eq!(statuses, ["201", "201", "429"]);
}
