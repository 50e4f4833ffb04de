//! The session cache: an unknown token asks the store once per window, not
//! on every request; the cache holds at most its capacity, and sessions it
//! let go of still work (the store knows them). Test clock: no waiting.

// Test code: a panic is the failure report.
#![allow(clippy::unwrap_used)]

mod support;

use seat_state::ServerMillis;
use seathold_core::clock::TestClock;
use seathold_server::session::DEFAULT_SESSION_CACHE;
use seathold_server::state::Settings;
use support::{TestApp, assert_error};

const UNKNOWN: &str = "0000000000000000000000000000000000000000000000000000000000000000";

#[tokio::test]
async fn an_unknown_token_asks_the_store_once_per_window() {
    let clock = TestClock::at(ServerMillis(1_800_000_000_000));
    let app = TestApp::with_test_clock_and_settings(&clock, Settings::default()).await;
    for _ in 0..5 {
        assert_error(&app.call("GET", "/api/holds", Some(UNKNOWN), None).await, 401, "unauthorized");
    }
    assert_eq!(app.state.sessions.store_lookups(), 1);
    clock.advance(10_000);
    assert_error(&app.call("GET", "/api/holds", Some(UNKNOWN), None).await, 401, "unauthorized");
    assert_eq!(app.state.sessions.store_lookups(), 2, "after the window the store is asked again");

    let customer = app.session().await;
    for _ in 0..3 {
        assert_eq!(app.call("GET", "/api/holds", Some(&customer), None).await.status, 200);
    }
    assert_eq!(app.state.sessions.store_lookups(), 2, "a session made here is known without asking");
}

#[tokio::test]
async fn the_cache_is_bounded_and_sessions_it_let_go_still_work() {
    assert_eq!(DEFAULT_SESSION_CACHE, 100_000);
    let clock = TestClock::at(ServerMillis(1_800_000_000_000));
    let app = TestApp::with_test_clock_and_settings(&clock, Settings { session_cache: 4, ..Settings::default() }).await;
    let mut tokens = Vec::new();
    for _ in 0..10 {
        tokens.push(app.session().await);
        assert!(app.state.sessions.len() <= 4, "{}", app.state.sessions.len());
    }
    for token in &tokens {
        assert_eq!(app.call("GET", "/api/holds", Some(token), None).await.status, 200);
        assert!(app.state.sessions.len() <= 4);
    }
    assert!(app.state.sessions.store_lookups() >= 6, "the first sessions came from the store again");
}

/// Sessions expire after `session_idle_ms` without a request; each use
/// keeps one alive, across a restart too (the store keeps when it was seen),
/// and a session in use is written back at most once per tenth of the idle time.
#[tokio::test]
async fn a_session_expires_once_idle_and_each_use_keeps_it_alive() {
    let clock = TestClock::at(ServerMillis(1_800_000_000_000));
    let settings = Settings { session_idle_ms: 10_000, ..Settings::default() };
    let app = TestApp::with_test_clock_and_settings(&clock, settings).await;
    let customer = app.session().await;
    for _ in 0..3 {
        clock.advance(9_000);
        assert_eq!(status(&app, &customer).await, 200, "used within the idle time");
    }
    let lookups = app.state.sessions.store_lookups();
    clock.advance(500);
    assert_eq!(status(&app, &customer).await, 200);
    assert_eq!(app.state.sessions.store_lookups(), lookups, "seen 0.5 s ago: the cache answers alone");

    let app = app.restart();
    clock.advance(9_000);
    assert_eq!(status(&app, &customer).await, 200, "the store knows when it was last seen");
    clock.advance(10_000);
    assert_error(&app.call("GET", "/api/holds", Some(&customer), None).await, 401, "unauthorized");
    clock.advance(60_000);
    assert_error(&app.call("GET", "/api/holds", Some(&customer), None).await, 401, "unauthorized");
}

async fn status(app: &TestApp, token: &str) -> u16 {
    app.call("GET", "/api/holds", Some(token), None).await.status.as_u16()
}
