//! How fast a process that fell behind catches up on PostgreSQL.
//!
//! Two processes (two app states, two pools) share one database. Process A
//! makes k journal entries on a show (holds and releases by 32 customers);
//! process B, which last saw the show before them, then answers a seat map:
//! it reads the k entries after its version and applies them. For
//! comparison, a fresh process C answers the same seat map by loading the
//! whole history. `cargo bench -p seathold-server --bench catch_up` with
//! `SEATHOLD_TEST_POSTGRES` set (`cargo xtask postgres` prints one).

use std::sync::Arc;
use std::time::Instant;

use axum::Router;
use axum::body::Body;
use axum::http::{Request, StatusCode};
use http_body_util::BodyExt;
use tower::ServiceExt;

use seat_state::Show;
use seat_state::wire::ShowInput;
use seathold_core::clock::SystemClock;
use seathold_core::store::{PostgresStore, Store};
use seathold_server::app::router;
use seathold_server::state::AppState;

const CUSTOMERS: usize = 32;
const SEATS: usize = 2_000;

async fn process(url: &str) -> anyhow::Result<Router> {
    let store: Arc<dyn Store> = Arc::new(PostgresStore::open(url).await?);
    Ok(router(AppState::new(store, SystemClock::shared(), None), None))
}

async fn call(
    app: &Router,
    method: &str,
    path: &str,
    token: Option<&str>,
    body: Option<String>,
) -> anyhow::Result<(StatusCode, serde_json::Value)> {
    let mut request = Request::builder().method(method).uri(path);
    if let Some(token) = token {
        request = request.header("authorization", format!("Bearer {token}"));
    }
    if body.is_some() {
        request = request.header("content-type", "application/json");
    }
    let response = app.clone().oneshot(request.body(body.map_or_else(Body::empty, Body::from))?).await?;
    let status = response.status();
    let bytes = response.into_body().collect().await?.to_bytes();
    Ok((status, serde_json::from_slice(&bytes).unwrap_or(serde_json::Value::Null)))
}

/// Makes about `entries` journal entries on the show through process A.
async fn write_entries(app: &Router, tokens: &[String], entries: usize, round: usize) -> anyhow::Result<()> {
    let per_customer = entries.div_ceil(2 * CUSTOMERS);
    let mut tasks = Vec::new();
    for (customer, token) in tokens.iter().enumerate() {
        let (app, token) = (app.clone(), token.clone());
        tasks.push(tokio::spawn(async move {
            for n in 0..per_customer {
                let seat = (customer * 61 + n) % SEATS + 1;
                let id = format!("r{round}-c{customer}-n{n}");
                let body = format!(r#"{{"holdId": "{id}", "seats": ["S{seat}"]}}"#);
                let (status, _) = call(&app, "POST", "/api/shows/bench/holds", Some(&token), Some(body)).await?;
                if status == StatusCode::CREATED {
                    call(&app, "DELETE", &format!("/api/holds/{id}"), Some(&token), None).await?;
                }
            }
            anyhow::Ok(())
        }));
    }
    for task in tasks {
        task.await??;
    }
    Ok(())
}

async fn timed_seat_map(app: &Router) -> anyhow::Result<(f64, i64)> {
    let started = Instant::now();
    let (status, map) = call(app, "GET", "/api/shows/bench/seats", None, None).await?;
    anyhow::ensure!(status == StatusCode::OK, "seat map: {status}");
    Ok((started.elapsed().as_secs_f64() * 1000.0, map["version"].as_i64().unwrap_or(-1)))
}

#[tokio::main]
async fn main() -> anyhow::Result<()> {
    let base = std::env::var("SEATHOLD_TEST_POSTGRES")
        .map_err(|_| anyhow::anyhow!("set SEATHOLD_TEST_POSTGRES (`cargo xtask postgres` prints one)"))?;
    let name = format!("bench_catch_up_{}", std::process::id());
    let (admin, connection) = tokio_postgres::connect(&base, tokio_postgres::NoTls).await?;
    tokio::spawn(connection);
    admin.batch_execute(&format!("CREATE DATABASE {name}")).await?;
    let url = format!("{}/{name}", base.rsplit_once('/').map_or(base.as_str(), |(head, _)| head));

    let seats: Vec<serde_json::Value> =
        (1..=SEATS).map(|n| serde_json::json!({"id": format!("S{n}"), "x": n, "y": 0})).collect();
    let input: ShowInput = serde_json::from_value(serde_json::json!({"id": "bench", "name": "Bench", "seats": seats}))?;
    let show = Show::parse(&input)?;
    PostgresStore::open(&url)
        .await?
        .create_show(&show, seathold_core::clock::Clock::now(&SystemClock::default()))
        .await?;

    let (a, b) = (process(&url).await?, process(&url).await?);
    let mut tokens = Vec::new();
    for _ in 0..CUSTOMERS {
        let (_, session) = call(&a, "POST", "/api/sessions", None, None).await?;
        tokens.push(session["token"].as_str().unwrap_or_default().to_owned());
    }
    let (_, mut seen_by_b) = timed_seat_map(&b).await?;
    println!("{:>10} {:>14} {:>14} {:>18}", "behind by", "catch-up ms", "full load ms", "history (entries)");
    // Last, a few entries again: catching up costs what was missed, not the history.
    for (round, entries) in [10, 100, 1_000, 10_000, 10].into_iter().enumerate() {
        write_entries(&a, &tokens, entries, round).await?;
        let (_, before) = timed_seat_map(&a).await?;
        let (catch_up, version) = timed_seat_map(&b).await?;
        anyhow::ensure!(version == before, "process B caught up to {version}, A is at {before}");
        let (full, _) = timed_seat_map(&process(&url).await?).await?;
        println!("{:>10} {catch_up:>14.1} {full:>14.1} {version:>18}", version - seen_by_b);
        seen_by_b = version;
    }
    Ok(())
}
