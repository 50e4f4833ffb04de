//! Issue 11: live events cross processes. A viewer of process B's stream
//! gets every change made through process A, in order and without a gap
//! (each event follows the one before: API.md "Live changes (v4)"), soon
//! after A answered; the latency from A's answer to the B event that shows
//! the hold is measured over 50 holds and printed (p50, p99, max).
//!
//! Alone in its file, so no other test of this crate competes for the two
//! cores while it measures.

// Test code: a panic is the failure report.
#![allow(clippy::unwrap_used)]

use std::time::{Duration, Instant};

use anyhow::{Context, ensure};
use seathold_system_tests::api::{Api, Event};
use seathold_system_tests::postgres::Database;
use seathold_system_tests::{PATIENCE, Server};
use serde_json::json;

const THEATRE: &str = "demo-theatre";
/// Holds made on A, one at a time, each by a customer of its own.
const HOLDS: usize = 50;
/// A change reaches every stream within a tick (250 ms) plus delivery
/// (API.md "Live changes (v4)"); issue 34's target, at p99.
const TARGET: Duration = Duration::from_millis(500);

// Two workers: the viewer stamps events while the customer waits on A.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_change_made_on_one_process_reaches_a_viewer_of_the_other_quickly() -> anyhow::Result<()> {
    let database = Database::fresh().await?;
    let a = Server::start_on_database(&database.url, &[], &[]).await?;
    let b = Server::start_on_database(&database.url, &[], &[]).await?;
    // Notifications flow once both listen (the journal poll covers the
    // moments before, but at up to a second, not at this test's latency).
    database.until_listening(2).await?;
    let outcome = measure(&Api::new(&a, "A"), &Api::new(&b, "B")).await;
    outcome.map_err(|error| error.context(format!("--- log of A:\n{}\n--- log of B:\n{}", a.log(), b.log())))
}

async fn measure(a: &Api, b: &Api) -> anyhow::Result<()> {
    // The viewer reads B's stream on a task of its own, stamping each event
    // as it arrives.
    let mut stream = b.events(THEATRE).await?;
    let snapshot = tokio::time::timeout(PATIENCE, stream.next()).await.context("no snapshot in time")??;
    let snapshot = snapshot.context("the stream ended before its snapshot")?;
    ensure!(snapshot.kind == "snapshot", "B's first event: {snapshot:?}");
    let start_version = snapshot.data["version"].as_i64().context("the snapshot's version")?;
    let (mut events, viewer) = stream.forward();

    // Sessions first (alternately on A and B), so each hold is timed alone.
    let mut tokens = Vec::with_capacity(HOLDS);
    for n in 0..HOLDS {
        tokens.push(if n % 2 == 0 { a.session().await? } else { b.session().await? });
    }
    let mut answered = Vec::with_capacity(HOLDS);
    for (n, token) in tokens.iter().enumerate() {
        let seat = theatre_seat(n);
        let held = a.post("/api/shows/demo-theatre/holds", Some(token), Some(&json!({"seats": [&seat]}))).await?;
        let at = Instant::now();
        ensure!(held.status == 201, "hold {n} of {seat} on A: {held:?}");
        answered.push((seat, held.int("expiresAt")?, at));
    }

    // Every change arrives, in order: each event follows the version known
    // (its `since`), and carries each seat in its latest state.
    let last = start_version + HOLDS as i64;
    let (mut known, mut shown) = (start_version, std::collections::HashMap::new());
    let mut received: Vec<Event> = Vec::new();
    let deadline = tokio::time::Instant::now() + PATIENCE;
    while known < last {
        let Ok(event) = tokio::time::timeout_at(deadline, events.recv()).await else {
            anyhow::bail!("B's viewer is at v{known} of v{last} within {PATIENCE:?} of the last answer: {received:?}");
        };
        let event = event.context("B's stream ended")?;
        let version = event.data["version"].as_i64().context("a change's version")?;
        let follows = event.data["since"].as_i64().unwrap_or(version - 1);
        ensure!(
            event.kind == "change" && event.id == Some(version.to_string()) && follows <= known && version > known,
            "B's event after v{known} does not follow it: {event:?}"
        );
        for seat in event.data["seats"].as_array().context("the change's seats")? {
            let id = seat["id"].as_str().context("a seat id")?.to_owned();
            shown.insert(id, (seat["holdExpiresAt"].clone(), event.arrived));
        }
        known = version;
        received.push(event);
    }
    viewer.abort();
    let mut latencies = Vec::with_capacity(HOLDS);
    let mut early = 0;
    for (seat, expires, at) in &answered {
        let (shown_until, arrived) = shown.get(seat).with_context(|| format!("no event on B showed {seat}"))?;
        ensure!(*shown_until == *expires, "B shows {seat} held until {shown_until}, A answered {expires}");
        // The event may come before A's answer has been read.
        early += usize::from(arrived < at);
        latencies.push(arrived.saturating_duration_since(*at));
    }
    eprintln!("{} events on B carried the {HOLDS} changes", received.len());
    let mut sorted = latencies.clone();
    sorted.sort();
    let percentile = |p: f64| sorted[((p * HOLDS as f64).ceil() as usize).clamp(1, HOLDS) - 1];
    let (p50, p99, max) = (percentile(0.50), percentile(0.99), sorted[HOLDS - 1]);
    eprintln!(
        "A's answer → B's event over {HOLDS} holds: p50 {:.1} ms, p99 {:.1} ms, max {:.1} ms \
         ({early} arrived before A's answer was read; target p99 < {} ms); all (ms): {}",
        p50.as_secs_f64() * 1000.0,
        p99.as_secs_f64() * 1000.0,
        max.as_secs_f64() * 1000.0,
        TARGET.as_millis(),
        latencies.iter().map(|l| format!("{:.1}", l.as_secs_f64() * 1000.0)).collect::<Vec<_>>().join(" ")
    );
    ensure!(p99 < TARGET, "p99 {p99:?} is over the target {TARGET:?}: {latencies:?}");
    Ok(())
}

/// The `n`th seat of the demo theatre (rows A–H of 20).
fn theatre_seat(n: usize) -> String {
    let row = char::from(b'A' + u8::try_from(n / 20 % 8).unwrap_or(0));
    format!("{row}{}", n % 20 + 1)
}
