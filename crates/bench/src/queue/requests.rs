//! The waiting room's requests: the show, joins from many kept-alive
//! connections at once (each a session's `POST …/queue`), and the
//! operator's look at the queue around `opensAt`.

use std::collections::BTreeMap;
use std::time::{Duration, Instant};

use hyper::Method;
use hyper::body::Bytes;
use serde_json::json;

use crate::http::{Connection, bearer};
use crate::onsale::steps::percentile;

/// What a batch of joins came to.
#[derive(Debug, Default)]
pub struct Joins {
    /// Each answered join's latency, ms, sorted.
    pub ms: Vec<f64>,
    pub statuses: BTreeMap<u16, u64>,
    /// Requests that got no answer, by error.
    pub errors: BTreeMap<String, u64>,
    /// Sessions that did not join: the deadline came first.
    pub unsent: usize,
    pub elapsed: Duration,
}

impl Joins {
    pub fn joined(&self) -> u64 {
        self.statuses.get(&201).copied().unwrap_or(0)
    }

    pub fn per_second(&self) -> f64 {
        self.ms.len() as f64 / self.elapsed.as_secs_f64().max(f64::MIN_POSITIVE)
    }

    pub fn p(&self, fraction: f64) -> f64 {
        percentile(&self.ms, fraction)
    }
}

/// Creates a show of 100 seats with its queue, `onSale` as given.
pub async fn create_show(base: &str, admin_token: &str, id: &str, on_sale: serde_json::Value) -> anyhow::Result<()> {
    let seats: Vec<_> = (0..100).map(|n| json!({"id": format!("S{n}"), "x": n % 20 * 12, "y": n / 20 * 14})).collect();
    let show = json!({"id": id, "name": "Waiting room bench", "seats": seats, "onSale": on_sale});
    let mut connection = Connection::open(base).await?;
    let auth = bearer(admin_token)?;
    let body = Bytes::from(serde_json::to_vec(&show)?);
    let (status, answer) = connection.send(Method::POST, "/api/admin/shows", Some(&auth), Some(body)).await?;
    anyhow::ensure!(status == 201, "creating {id}: {status} {}", String::from_utf8_lossy(&answer));
    Ok(())
}

/// Every session joins the show's queue, `concurrency` at a time, worker
/// `w` on a connection of its own to `bases[w % len]`; none is sent at or
/// after `deadline`.
pub async fn join_all(
    bases: &[String],
    show: &str,
    tokens: &[String],
    concurrency: usize,
    deadline: Instant,
) -> anyhow::Result<Joins> {
    let mut connections = Vec::with_capacity(concurrency);
    for worker in 0..concurrency {
        connections.push(Connection::open(&bases[worker % bases.len()]).await?);
    }
    let tokens: std::sync::Arc<[String]> = tokens.into();
    let path: std::sync::Arc<str> = format!("/api/shows/{show}/queue").into();
    let started = Instant::now();
    let mut tasks = Vec::new();
    for (worker, mut connection) in connections.into_iter().enumerate() {
        let (tokens, path) = (std::sync::Arc::clone(&tokens), std::sync::Arc::clone(&path));
        tasks.push(tokio::spawn(async move {
            let mut joins = Joins::default();
            for token in tokens.iter().skip(worker).step_by(concurrency) {
                if Instant::now() >= deadline {
                    joins.unsent += 1;
                    continue;
                }
                let auth = bearer(token)?;
                let sent = Instant::now();
                match connection.send(Method::POST, &path, Some(&auth), None).await {
                    Ok((status, _)) => {
                        joins.ms.push(sent.elapsed().as_secs_f64() * 1000.0);
                        *joins.statuses.entry(status).or_default() += 1;
                    }
                    Err(error) => {
                        *joins.errors.entry(error.to_string()).or_default() += 1;
                        connection.reopen_if_closed().await?;
                    }
                }
            }
            anyhow::Ok(joins)
        }));
    }
    let mut total = Joins::default();
    for task in tasks {
        let part = task.await??;
        total.ms.extend(part.ms);
        total.unsent += part.unsent;
        for (status, count) in part.statuses {
            *total.statuses.entry(status).or_default() += count;
        }
        for (error, count) in part.errors {
            *total.errors.entry(error).or_default() += count;
        }
    }
    total.elapsed = started.elapsed();
    total.ms.sort_by(f64::total_cmp);
    Ok(total)
}

/// One `GET /api/admin/shows/{id}/queue`.
#[derive(Debug, Clone, Copy)]
pub struct Look {
    pub sent: Instant,
    pub ms: f64,
    /// The answer had a `drawSeed`: the pre-queue was drawn.
    pub drawn: bool,
}

/// The operator's view, asked every `every` from `from` until `until`, one
/// request at a time.
pub async fn look_between(
    base: &str,
    admin_token: &str,
    show: &str,
    from: Instant,
    until: Instant,
    every: Duration,
) -> anyhow::Result<Vec<Look>> {
    let mut connection = Connection::open(base).await?;
    let auth = bearer(admin_token)?;
    let path = format!("/api/admin/shows/{show}/queue");
    let mut looks = Vec::new();
    let mut at = from;
    while at < until {
        tokio::time::sleep_until(at.into()).await;
        connection.reopen_if_closed().await?;
        let sent = Instant::now();
        let (status, body) = connection.send(Method::GET, &path, Some(&auth), None).await?;
        let ms = sent.elapsed().as_secs_f64() * 1000.0;
        anyhow::ensure!(status == 200, "{path}: {status} {}", String::from_utf8_lossy(&body));
        let status: serde_json::Value = serde_json::from_slice(&body)?;
        looks.push(Look { sent, ms, drawn: status["drawSeed"].is_u64() });
        at += every;
    }
    Ok(looks)
}
