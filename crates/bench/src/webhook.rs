//! `--webhook on`: a receiver on 127.0.0.1 that acknowledges every
//! delivery at once (204) and notes how far each trails its commit (now −
//! its `at`, one machine, one clock), subscribed to every kind before the
//! storm; after it, the wait until nothing is pending, then one line:
//! deliveries per second and the lag behind commit (no JSON line: the
//! storm's is the one `cargo xtask bench` reads).

use std::convert::Infallible;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use anyhow::Context;
use http_body_util::{BodyExt, Full};
use hyper::body::{Bytes, Incoming};
use hyper::{Request, Response, StatusCode};
use hyper_util::rt::TokioIo;
use serde_json::{Value, json};

use crate::Plan;

/// Deliveries as they arrived: when, and each one's lag (ms).
#[derive(Default)]
struct Arrivals {
    first: Option<Instant>,
    last: Option<Instant>,
    lags_ms: Vec<i64>,
}

/// The running receiver and its webhook.
pub struct Receiver {
    arrivals: Arc<Mutex<Arrivals>>,
    id: String,
    task: tokio::task::JoinHandle<()>,
}

impl Drop for Receiver {
    fn drop(&mut self) {
        self.task.abort();
    }
}

fn now_ms() -> i64 {
    std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0, |d| d.as_millis() as i64)
}

async fn receive(
    arrivals: Arc<Mutex<Arrivals>>,
    request: Request<Incoming>,
) -> Result<Response<Full<Bytes>>, Infallible> {
    let body = request.into_body().collect().await.map(|body| body.to_bytes()).unwrap_or_default();
    let at = serde_json::from_slice::<Value>(&body).ok().and_then(|event| event["at"].as_i64());
    if let (Some(at), Ok(mut arrivals)) = (at, arrivals.lock()) {
        let now = Instant::now();
        arrivals.first.get_or_insert(now);
        arrivals.last = Some(now);
        arrivals.lags_ms.push(now_ms() - at);
    }
    let mut answer = Response::new(Full::new(Bytes::new()));
    *answer.status_mut() = StatusCode::NO_CONTENT;
    Ok(answer)
}

impl Receiver {
    /// Starts the receiver and subscribes it to every kind.
    pub async fn start(client: &reqwest::Client, plan: &Plan, admin_token: &str) -> anyhow::Result<Self> {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await?;
        let url = format!("http://{}/", listener.local_addr()?);
        let arrivals = Arc::new(Mutex::new(Arrivals::default()));
        let shared = Arc::clone(&arrivals);
        let task = tokio::spawn(async move {
            while let Ok((stream, _)) = listener.accept().await {
                let arrivals = Arc::clone(&shared);
                let service = hyper::service::service_fn(move |request| receive(Arc::clone(&arrivals), request));
                tokio::spawn(
                    hyper::server::conn::http1::Builder::new().serve_connection(TokioIo::new(stream), service),
                );
            }
        });
        let kinds = ["held", "extended", "confirmed", "released", "expired", "blocked", "unblocked"];
        let answer = client
            .post(format!("{}/api/admin/webhooks", plan.base(0)))
            .bearer_auth(admin_token)
            .json(&json!({"url": url, "secret": "flash-sale-bench", "events": kinds}))
            .send()
            .await?;
        anyhow::ensure!(answer.status().is_success(), "adding the webhook: {}", answer.text().await?);
        let created: Value = answer.json().await?;
        let id = created["id"].as_str().context("no webhook id")?.to_owned();
        Ok(Self { arrivals, id, task })
    }

    /// Waits until nothing is pending, then prints the deliveries' line.
    pub async fn report(
        &self,
        client: &reqwest::Client,
        plan: &Plan,
        admin_token: &str,
        storm_end: Instant,
    ) -> anyhow::Result<()> {
        let deadline = Instant::now() + Duration::from_secs(300);
        let deliveries = loop {
            let list: Value = client
                .get(format!("{}/api/admin/webhooks", plan.base(0)))
                .bearer_auth(admin_token)
                .send()
                .await?
                .error_for_status()?
                .json()
                .await?;
            let mine = list["webhooks"]
                .as_array()
                .and_then(|all| all.iter().find(|webhook| webhook["id"] == self.id.as_str()));
            let deliveries = mine.context("the webhook is gone")?["deliveries"].clone();
            if deliveries["pending"] == 0 {
                break deliveries;
            }
            anyhow::ensure!(Instant::now() < deadline, "deliveries still pending after 300 s: {deliveries}");
            tokio::time::sleep(Duration::from_millis(100)).await;
        };
        let arrivals = self.arrivals.lock().map_err(|_| anyhow::anyhow!("receiver poisoned"))?;
        let mut lags = arrivals.lags_ms.clone();
        lags.sort_unstable();
        let quantile = |q: f64| lags.get(((lags.len() as f64 - 1.0) * q).round() as usize).copied().unwrap_or(0);
        let span = match (arrivals.first, arrivals.last) {
            (Some(first), Some(last)) => last.duration_since(first).as_secs_f64(),
            _ => 0.0,
        };
        let caught_up = arrivals.last.map_or(0.0, |last| last.saturating_duration_since(storm_end).as_secs_f64());
        println!(
            "webhooks: {} deliveries acknowledged ({} attempts, {} failed), {:.0} deliveries/s over {span:.1} s; \
             lag behind commit p50 {} ms, p99 {} ms, max {} ms; the last came {caught_up:.1} s after the storm",
            lags.len(),
            deliveries["attempts"],
            deliveries["failed"],
            lags.len() as f64 / span.max(f64::MIN_POSITIVE),
            quantile(0.5),
            quantile(0.99),
            lags.last().copied().unwrap_or(0),
        );
        Ok(())
    }
}
