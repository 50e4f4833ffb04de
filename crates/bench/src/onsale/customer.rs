//! One customer of the storm: loads the arena's page, definition and seat
//! map (`?format=compact`, or `?only=taken` with `--format json`), samples
//! the clock three times, starts a session, opens the live stream in the
//! same form (kept open until the storm ends), holds two best-available
//! seats and confirms 60 % of its holds, as the web app does. A sample
//! customer also decodes its seat map with seat-state.

use std::sync::Arc;
use std::time::{Duration, Instant};

use hyper::Method;
use hyper::body::Bytes;
use hyper::header::{ACCEPT, ACCEPT_ENCODING, AUTHORIZATION, HeaderName, HeaderValue};

use super::steps::{Latencies, Step};
use super::{Held, Made, Storm};
use crate::http::{Answer, Connection, bearer};

/// What the storm's customers send, as a browser does.
pub fn accept_encoding() -> (HeaderName, HeaderValue) {
    (ACCEPT_ENCODING, HeaderValue::from_static("br, gzip"))
}

/// What one visit came to.
pub enum Visit {
    Held(Held),
    /// Held (`201`), then the confirm failed: the hold stands as told, unconfirmed.
    HeldThenFailed(Held, anyhow::Error),
    /// `409 not_enough_seats`: no pair left, an answer.
    SoldOut,
}

/// Runs customer `n`'s visit and records it.
pub async fn visit(storm: Arc<Storm>, n: usize) {
    let mut latencies = Latencies::default();
    let outcome = steps(&storm, n, &mut latencies).await;
    storm.record(latencies, outcome);
}

/// The visit on one connection of its pool; through the waiting room, the
/// connection given back while it waits and another taken once admitted.
async fn steps(storm: &Storm, n: usize, latencies: &mut Latencies) -> anyhow::Result<Visit> {
    let pool = storm.pool(n);
    let take = async || pool.take().await.map_err(|error| anyhow::anyhow!("connect: {error}"));
    let mut connection = take().await?;
    let outcome = match arrive(storm, n, &mut connection, latencies).await {
        Ok(token) if storm.opening.is_some() => {
            pool.give(connection);
            let queued = super::waiting::admitted(storm, n, &token, latencies).await?;
            storm.record_queued(queued);
            connection = take().await?;
            buy(storm, n, &mut connection, latencies, token).await
        }
        Ok(token) => buy(storm, n, &mut connection, latencies, token).await,
        Err(error) => Err(error),
    };
    pool.give(connection);
    outcome
}

/// Page, definition, map, clock, session and live stream: the session's token.
async fn arrive(
    storm: &Storm,
    n: usize,
    connection: &mut Connection,
    latencies: &mut Latencies,
) -> anyhow::Result<String> {
    let compressed = [accept_encoding()];
    let page = [accept_encoding(), (ACCEPT, HeaderValue::from_static("text/html"))];
    let first = Instant::now();
    let mut get = async |step: Step, path: &str, headers: &[(HeaderName, HeaderValue)]| {
        call(connection, latencies, step, Method::GET, path, headers, None, 200).await
    };
    let show = &storm.show;
    get(Step::Page, &format!("/shows/{show}"), &page).await?;
    get(Step::Definition, &format!("/api/shows/{show}"), &compressed).await?;
    let map = get(Step::SeatMap, &format!("/api/shows/{show}/seats{}", storm.form.query()), &compressed).await?;
    latencies.add(Step::PageDefinitionMap, first);
    let sample = n.is_multiple_of(storm.sample_every);
    if sample {
        // As the web app reads it (a sample: the generator shares the cores).
        let body = map.decoded()?;
        storm.form.seat_map(&body, &storm.order).map_err(|error| anyhow::anyhow!("seat map: {error}"))?;
    }
    for _ in 0..3 {
        call(connection, latencies, Step::Time, Method::GET, "/api/time", &compressed, None, 200).await?;
    }
    let token = session(connection, latencies).await?;

    let sent = Instant::now();
    let head = storm.open_stream(storm.pool(n).base(), token.clone(), sample);
    match tokio::time::timeout(Duration::from_secs(60), head).await {
        Ok(Ok(Ok(200))) => latencies.add(Step::Stream, sent),
        Ok(Ok(Ok(status))) => anyhow::bail!("stream: status {status}"),
        Ok(Ok(Err(error))) => anyhow::bail!("stream: {error}"),
        Ok(Err(_)) => anyhow::bail!("stream: ended before its head"),
        Err(_) => anyhow::bail!("stream: no head in 60 s"),
    }
    Ok(token)
}

/// `POST /api/sessions`: the new session's token.
pub(super) async fn session(connection: &mut Connection, latencies: &mut Latencies) -> anyhow::Result<String> {
    let compressed = [accept_encoding()];
    let session =
        call(connection, latencies, Step::Session, Method::POST, "/api/sessions", &compressed, None, 201).await?;
    let token = session.json()["token"].as_str().ok_or_else(|| anyhow::anyhow!("session: no token"))?.to_owned();
    Ok(token)
}

/// Holds best 2 and confirms 60 % of the holds.
pub(super) async fn buy(
    storm: &Storm,
    n: usize,
    connection: &mut Connection,
    latencies: &mut Latencies,
    token: String,
) -> anyhow::Result<Visit> {
    let auth = [accept_encoding(), (AUTHORIZATION, bearer(&token)?)];
    let open_streams = storm.open.load(std::sync::atomic::Ordering::Relaxed);
    let sent = Instant::now();
    let body = Bytes::from_static(br#"{"best":{"count":2}}"#);
    let holds = format!("/api/shows/{}/holds", storm.show);
    let answer = send(connection, latencies, Step::Hold, Method::POST, &holds, &auth, Some(body)).await?;
    let answered = Instant::now();
    let hold = answer.json();
    if answer.status == 409 && hold["error"] == "not_enough_seats" {
        return Ok(Visit::SoldOut);
    }
    check(Step::Hold, &answer, 201)?;
    let hold_id = hold["holdId"].as_str().unwrap_or_default().to_owned();
    let seats: Vec<String> =
        hold["seats"].as_array().into_iter().flatten().filter_map(|s| s.as_str().map(str::to_owned)).collect();
    let made = Made { sent, answered, decided_ms: hold["serverTime"].as_i64() };
    let mut held = Held { token, hold_id, seats, made, open_streams, confirm: None, released: false };
    if fastrand::Rng::with_seed(n as u64).u8(..100) < 60 {
        let confirm = format!("/api/holds/{}/confirm", held.hold_id);
        let sent = Instant::now();
        let answer = match call(connection, latencies, Step::Confirm, Method::POST, &confirm, &auth, None, 200).await {
            Ok(answer) => answer,
            Err(error) => return Ok(Visit::HeldThenFailed(held, error)),
        };
        let answered = Instant::now();
        held.confirm = Some(Made { sent, answered, decided_ms: answer.json()["serverTime"].as_i64() });
    }
    Ok(Visit::Held(held))
}

/// Sends a request, times it and counts its bytes under `step`.
pub async fn send(
    connection: &mut Connection,
    latencies: &mut Latencies,
    step: Step,
    method: Method,
    path: &str,
    headers: &[(HeaderName, HeaderValue)],
    body: Option<Bytes>,
) -> anyhow::Result<Answer> {
    let fail = |error: anyhow::Error| anyhow::anyhow!("{}: {error}", step.key());
    if connection.reopen_if_closed().await.map_err(fail)? {
        latencies.reopened += 1;
    }
    let (sent, before) = (Instant::now(), connection.received());
    let answer = match connection.send_with(method.clone(), path, headers, body.clone()).await {
        // Closed by the server as the request went out: once more on a new
        // connection, as a browser does with a kept-alive connection.
        Err(_) if connection.reopen_if_closed().await.map_err(fail)? => {
            latencies.reopened += 1;
            connection.send_with(method, path, headers, body).await.map_err(fail)?
        }
        answer => answer.map_err(fail)?,
    };
    latencies.add(step, sent);
    latencies.add_bytes(step, connection.received() - before);
    Ok(answer)
}

/// [`send`], then the answer when its status is `wanted` (else an error).
#[allow(clippy::too_many_arguments)]
pub async fn call(
    connection: &mut Connection,
    latencies: &mut Latencies,
    step: Step,
    method: Method,
    path: &str,
    headers: &[(HeaderName, HeaderValue)],
    body: Option<Bytes>,
    wanted: u16,
) -> anyhow::Result<Answer> {
    let answer = send(connection, latencies, step, method, path, headers, body).await?;
    check(step, &answer, wanted)?;
    Ok(answer)
}

/// An error naming the step, the status and the body's error code.
fn check(step: Step, answer: &Answer, wanted: u16) -> anyhow::Result<()> {
    let status = answer.status;
    anyhow::ensure!(
        status == wanted,
        "{}: status {status} {}",
        step.key(),
        answer.json()["error"].as_str().unwrap_or("")
    );
    Ok(())
}
