//! One helper for router tests: the real router over a real SQLite file,
//! driven with `oneshot`, no socket.

// Each test binary uses its own part of this module.
#![allow(dead_code)]

use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;
use std::task::Poll;

use axum::Router;
use axum::body::Body;
use axum::http::{Request, StatusCode};
use http_body_util::BodyExt;
use serde_json::Value;
use tower::ServiceExt;

use seathold_core::clock::{SharedClock, SystemClock, TestClock};
use seathold_core::store::{SqliteStore, Store};
use seathold_server::app::router;
use seathold_server::state::{AppState, Settings};

pub const ADMIN_TOKEN: &str = "test-admin-token-with-enough-entropy";

pub struct TestApp {
    pub router: Router,
    pub state: AppState,
    /// The store the app runs on; a restart keeps it.
    pub store: Arc<dyn Store>,
    clock: SharedClock,
    settings: Settings,
    /// The SQLite file's directory, when the app made one.
    _dir: Option<tempfile::TempDir>,
}

/// What an answer said.
#[derive(Debug)]
pub struct Answer {
    pub status: StatusCode,
    pub server_time_header: Option<i64>,
    pub headers: axum::http::HeaderMap,
    pub body: Value,
}

impl TestApp {
    pub async fn new(admin_token: Option<&str>) -> Self {
        Self::on_clock(admin_token, SystemClock::shared()).await
    }

    /// An app whose clock moves only when the test moves it.
    pub async fn with_test_clock(admin_token: Option<&str>, clock: &TestClock) -> Self {
        Self::on_clock(admin_token, clock.shared()).await
    }

    async fn on_clock(admin_token: Option<&str>, clock: SharedClock) -> Self {
        let settings = Settings { admin_token: admin_token.map(Arc::from), ..Settings::default() };
        Self::on_clock_with(clock, settings).await
    }

    /// An app with `settings` whose clock moves only when the test moves it.
    pub async fn with_test_clock_and_settings(clock: &TestClock, settings: Settings) -> Self {
        Self::on_clock_with(clock.shared(), settings).await
    }

    /// An app with `settings` (limits, cookies) on the system clock.
    pub async fn with_settings(settings: Settings) -> Self {
        Self::on_clock_with(SystemClock::shared(), settings).await
    }

    async fn on_clock_with(clock: SharedClock, settings: Settings) -> Self {
        let dir = tempfile::tempdir().expect("temp dir");
        let store = SqliteStore::open(dir.path().join("test.db")).await.expect("open store");
        Self::assemble(Arc::new(store), clock, settings, Some(dir))
    }

    /// An app over a given store (a `FaultyStore` over a `MemoryStore`, a
    /// SQLite file, …) whose clock moves only when the test moves it.
    pub fn over_store(admin_token: Option<&str>, store: Arc<dyn Store>, clock: &TestClock) -> Self {
        let settings = Settings { admin_token: admin_token.map(Arc::from), ..Settings::default() };
        Self::assemble(store, clock.shared(), settings, None)
    }

    /// An app over a given store on the system clock (what webhook
    /// deliveries need: their retries wait on real time).
    pub fn over_store_on_system_clock(store: Arc<dyn Store>, settings: Settings) -> Self {
        Self::assemble(store, SystemClock::shared(), settings, None)
    }

    /// The app after a restart: a new `AppState` (no engines, caches, index
    /// or replay window) over the same store and clock. The old state and its
    /// show writers go away.
    pub fn restart(self) -> Self {
        let Self { store, clock, settings, _dir, .. } = self;
        Self::assemble(store, clock, settings, _dir)
    }

    fn assemble(store: Arc<dyn Store>, clock: SharedClock, settings: Settings, dir: Option<tempfile::TempDir>) -> Self {
        let state = AppState::with_settings(Arc::clone(&store), Arc::clone(&clock), settings.clone());
        Self { router: router(state.clone(), None), state, store, clock, settings, _dir: dir }
    }

    pub async fn send(&self, request: Request<Body>) -> Answer {
        let response = self.router.clone().oneshot(request).await.expect("infallible");
        let status = response.status();
        let server_time_header =
            response.headers().get("x-server-time").and_then(|v| v.to_str().ok()).and_then(|v| v.parse().ok());
        let headers = response.headers().clone();
        let bytes = response.into_body().collect().await.expect("body").to_bytes();
        let body = if bytes.is_empty() {
            Value::Null
        } else {
            serde_json::from_slice(&bytes)
                .unwrap_or_else(|_| Value::String(String::from_utf8_lossy(&bytes).into_owned()))
        };
        Answer { status, server_time_header, headers, body }
    }

    pub async fn get(&self, path: &str) -> Answer {
        self.send(Request::get(path).body(Body::empty()).expect("request")).await
    }

    pub async fn post_admin(&self, path: &str, token: Option<&str>, body: impl Into<Body>) -> Answer {
        let mut request = Request::post(path).header("content-type", "application/json");
        if let Some(token) = token {
            request = request.header("authorization", format!("Bearer {token}"));
        }
        self.send(request.body(body.into()).expect("request")).await
    }

    pub async fn create_show(&self, show: &Value) -> Answer {
        self.post_admin("/api/admin/shows", Some(ADMIN_TOKEN), show.to_string()).await
    }
}

/// Asserts API.md's error format and returns the body.
pub fn assert_error(answer: &Answer, status: u16, code: &str) {
    assert_eq!(answer.status.as_u16(), status, "{answer:?}");
    assert_eq!(answer.body["error"], code, "{answer:?}");
    assert!(answer.body["message"].as_str().is_some_and(|m| !m.is_empty()), "{answer:?}");
    assert_eq!(answer.body["serverTime"].as_i64(), answer.server_time_header, "{answer:?}");
}

impl TestApp {
    /// A new session's token.
    pub async fn session(&self) -> String {
        let answer = self.send(Request::post("/api/sessions").body(Body::empty()).expect("request")).await;
        answer.body["token"].as_str().expect("token").to_owned()
    }

    /// A request with a session token and an optional JSON body.
    pub async fn call(&self, method: &str, path: &str, token: Option<&str>, body: Option<Value>) -> Answer {
        let mut request = Request::builder().method(method).uri(path);
        if let Some(token) = token {
            request = request.header("authorization", format!("Bearer {token}"));
        }
        let body = match body {
            Some(json) => {
                request = request.header("content-type", "application/json");
                Body::from(json.to_string())
            }
            None => Body::empty(),
        };
        self.send(request.body(body).expect("request")).await
    }

    /// `POST /api/shows/{show}/holds`.
    pub async fn hold(&self, token: &str, show: &str, body: Value) -> Answer {
        self.call("POST", &format!("/api/shows/{show}/holds"), Some(token), Some(body)).await
    }
}

/// A show with seats A1..A{seats} and one area, with overrides merged in.
pub fn show_with(id: &str, seats: usize, area_capacity: u32, overrides: Value) -> Value {
    let seats: Vec<Value> =
        (1..=seats).map(|n| serde_json::json!({"id": format!("A{n}"), "x": n * 30, "y": 0})).collect();
    let mut show = serde_json::json!({
        "id": id, "name": "Test show", "seats": seats,
        "areas": [{"id": "floor", "name": "Floor", "capacity": area_capacity}]
    });
    if let (Some(show), Value::Object(extra)) = (show.as_object_mut(), overrides) {
        show.extend(extra);
    }
    show
}

impl TestApp {
    /// Runs one expiry sweep round now; returns how many outbox entries it handled.
    pub async fn sweep(&self) -> usize {
        let state = &self.state;
        seathold_core::sweep::round(state.store.as_ref(), &state.engines, state.clock.as_ref()).await.expect("sweep")
    }
}

/// Polls a future once, so that it runs up to its first wait (a request
/// reaches its show writer's queue, or waits for its body), and says whether
/// it finished. Keep polling it afterwards (`.await` on the pinned future).
pub async fn poll_once<F: Future + ?Sized>(mut future: Pin<&mut F>) -> Poll<F::Output> {
    std::future::poll_fn(|context| Poll::Ready(future.as_mut().poll(context))).await
}
