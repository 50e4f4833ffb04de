//! A webhook receiver for tests: a real HTTP server on 127.0.0.1:0 that
//! checks every delivery's signature itself (HMAC-SHA256 over
//! "<t>.<body>"), logs it, and answers as its policy says.

#![allow(dead_code)]

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use axum::body::Bytes;
use axum::extract::State;
use axum::http::{HeaderMap, StatusCode};
use hmac::{Hmac, KeyInit, Mac};
use serde_json::Value;
use sha2::Sha256;

/// How the receiver answers.
#[derive(Debug, Clone)]
pub enum Policy {
    /// 204 to everything.
    Accept,
    /// 500 to everything.
    Refuse,
    /// 500 with this probability, from a seeded generator (xorshift64*).
    Flaky { seed: u64, failure_rate: f64 },
    /// 500 to every event of this version, 204 to the rest.
    RefuseVersion(i64),
    /// Answers nothing until the policy changes.
    Hang,
}

/// One delivery as it arrived.
#[derive(Debug, Clone)]
pub struct Received {
    pub body: Value,
    /// The signature verified with the secret, and its `t` is within five
    /// minutes of the receiver's clock.
    pub signed: bool,
    /// What the receiver answered.
    pub status: u16,
}

impl Received {
    pub fn id(&self) -> &str {
        self.body["id"].as_str().unwrap_or_default()
    }

    pub fn show(&self) -> &str {
        self.body["showId"].as_str().unwrap_or_default()
    }

    pub fn version(&self) -> i64 {
        self.body["version"].as_i64().unwrap_or_default()
    }

    pub fn acknowledged(&self) -> bool {
        (200..300).contains(&self.status)
    }
}

#[derive(Default)]
struct Inner {
    log: Vec<Received>,
    /// Deliveries under way per show, and the most ever at once.
    in_flight: HashMap<String, usize>,
    most_at_once: usize,
    rng: u64,
}

#[derive(Clone)]
struct Shared {
    secret: Arc<str>,
    policy: Arc<tokio::sync::watch::Sender<Policy>>,
    inner: Arc<Mutex<Inner>>,
}

/// The running receiver; it stops when dropped.
pub struct Receiver {
    pub url: String,
    shared: Shared,
    task: tokio::task::JoinHandle<()>,
}

impl Drop for Receiver {
    fn drop(&mut self) {
        self.task.abort();
    }
}

impl Receiver {
    pub async fn start(secret: &str, policy: Policy) -> Self {
        let seed = match policy {
            Policy::Flaky { seed, .. } => seed.max(1),
            _ => 1,
        };
        let shared = Shared {
            secret: Arc::from(secret),
            policy: Arc::new(tokio::sync::watch::Sender::new(policy)),
            inner: Arc::new(Mutex::new(Inner { rng: seed, ..Inner::default() })),
        };
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let url = format!("http://{}/hook", listener.local_addr().unwrap());
        let app = axum::Router::new().route("/hook", axum::routing::post(receive)).with_state(shared.clone());
        let task = tokio::spawn(async move {
            axum::serve(listener, app).await.unwrap();
        });
        Self { url, shared, task }
    }

    pub fn set_policy(&self, policy: Policy) {
        self.shared.policy.send_replace(policy);
    }

    /// Every delivery so far, in the order they arrived.
    pub fn log(&self) -> Vec<Received> {
        self.shared.inner.lock().unwrap().log.clone()
    }

    /// The most deliveries of one show that were under way at once.
    pub fn most_at_once_per_show(&self) -> usize {
        self.shared.inner.lock().unwrap().most_at_once
    }
}

async fn receive(State(shared): State<Shared>, headers: HeaderMap, body: Bytes) -> StatusCode {
    let parsed: Value = serde_json::from_slice(&body).unwrap_or(Value::Null);
    let show = parsed["showId"].as_str().unwrap_or_default().to_owned();
    let signed = headers
        .get("seathold-signature")
        .and_then(|value| value.to_str().ok())
        .is_some_and(|header| verify(header, &shared.secret, &body));
    {
        let mut inner = shared.inner.lock().unwrap();
        let now = inner.in_flight.entry(show.clone()).or_default();
        *now += 1;
        let now = *now;
        inner.most_at_once = inner.most_at_once.max(now);
    }
    let mut policy = shared.policy.subscribe();
    let answer = loop {
        let current = policy.borrow_and_update().clone();
        match current {
            Policy::Hang => {
                if policy.changed().await.is_err() {
                    break StatusCode::SERVICE_UNAVAILABLE;
                }
            }
            Policy::Accept => break StatusCode::NO_CONTENT,
            Policy::Refuse => break StatusCode::INTERNAL_SERVER_ERROR,
            Policy::RefuseVersion(version) if parsed["version"].as_i64() == Some(version) => {
                break StatusCode::INTERNAL_SERVER_ERROR;
            }
            Policy::RefuseVersion(_) => break StatusCode::NO_CONTENT,
            Policy::Flaky { failure_rate, .. } => {
                let draw = next_unit(&mut shared.inner.lock().unwrap().rng);
                break if draw < failure_rate { StatusCode::INTERNAL_SERVER_ERROR } else { StatusCode::OK };
            }
        }
    };
    let mut inner = shared.inner.lock().unwrap();
    if let Some(now) = inner.in_flight.get_mut(&show) {
        *now -= 1;
    }
    inner.log.push(Received { body: parsed, signed, status: answer.as_u16() });
    answer
}

/// The receiver's own check of `Seathold-Signature`.
fn verify(header: &str, secret: &str, body: &[u8]) -> bool {
    let fields: HashMap<&str, &str> = header.split(',').filter_map(|part| part.split_once('=')).collect();
    let (Some(t), Some(v1)) = (fields.get("t"), fields.get("v1")) else { return false };
    let Ok(seconds) = t.parse::<i64>() else { return false };
    let now = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap().as_secs() as i64;
    let mut mac = Hmac::<Sha256>::new_from_slice(secret.as_bytes()).unwrap();
    mac.update(format!("{t}.").as_bytes());
    mac.update(body);
    (now - seconds).abs() <= 300 && hex::decode(v1).is_ok_and(|code| mac.verify_slice(&code).is_ok())
}

/// xorshift64*: a uniform number in [0, 1).
fn next_unit(state: &mut u64) -> f64 {
    *state ^= *state >> 12;
    *state ^= *state << 25;
    *state ^= *state >> 27;
    (state.wrapping_mul(0x2545_f491_4f6c_dd1d) >> 11) as f64 / (1u64 << 53) as f64
}
