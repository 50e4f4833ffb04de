//! Issue 11: live events cross processes through the journal. A change
//! made on one process reaches a viewer of the other even while every
//! notification is lost (its listening connections are cut, again and
//! again), and a viewer whose reconnection lands on the other process gets
//! every change it missed, or a current snapshot, then live ones.

// Test code: a panic is the failure report.
#![allow(clippy::unwrap_used)]

use std::time::{Duration, Instant};

use anyhow::{Context, ensure};
use seathold_system_tests::api::{Api, Event, EventStream};
use seathold_system_tests::postgres::Database;
use seathold_system_tests::server::logs;
use seathold_system_tests::{PATIENCE, Server};
use serde_json::json;

const THEATRE: &str = "demo-theatre";
const HOLDS: &str = "/api/shows/demo-theatre/holds";

#[tokio::test]
async fn a_change_reaches_the_other_process_s_viewers_while_notifications_are_lost() -> anyhow::Result<()> {
    let database = Database::fresh().await?;
    let a = Server::start_on_database(&database.url, &[], &[]).await?;
    let b = Server::start_on_database(&database.url, &[], &[]).await?;
    let outcome = lost_notifications(&Api::new(&a, "A"), &Api::new(&b, "B"), &database).await;
    outcome.map_err(|error| error.context(logs(&[("A", &a), ("B", &b)])))
}

/// How long notifications are lost for.
const OUTAGE: Duration = Duration::from_secs(3);

async fn lost_notifications(a: &Api, b: &Api, database: &Database) -> anyhow::Result<()> {
    database.until_listening(2).await?;
    let mut viewer = b.events(THEATRE).await?;
    let snapshot = tokio::time::timeout(PATIENCE, viewer.next()).await.context("no snapshot in time")??;
    let snapshot = snapshot.context("the stream ended")?;
    ensure!(snapshot.kind == "snapshot", "the first event: {snapshot:?}");
    let mut version = snapshot.data["version"].as_i64().context("the snapshot's version")?;

    // Every listening connection to this database is cut, again and again:
    // notifications sent meanwhile reach nobody.
    let killer_sql = database.connect().await?;
    let name = database.name.clone();
    let killer = tokio::spawn(async move {
        let started = Instant::now();
        let mut cut = 0_u64;
        while started.elapsed() < OUTAGE {
            let rows = killer_sql
                .query(
                    "SELECT pg_terminate_backend(pid) FROM pg_stat_activity
                     WHERE datname = $1 AND query ILIKE 'LISTEN%' AND pid <> pg_backend_pid()",
                    &[&name],
                )
                .await?;
            cut += rows.len() as u64;
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
        anyhow::Ok(cut)
    });

    // Meanwhile holds made on A, one every 300 ms.
    let mut latencies = Vec::new();
    let mut n = 0;
    let started = Instant::now();
    while started.elapsed() < OUTAGE {
        let token = a.session().await?;
        let seat_id = format!("C{}", n + 1);
        let held = a.post(HOLDS, Some(&token), Some(&json!({"seats": [&seat_id]}))).await?;
        held.expect(201, &format!("hold {n} on A"))?;
        let answered = Instant::now();
        let event = tokio::time::timeout(PATIENCE, viewer.next())
            .await
            .with_context(|| format!("B's viewer never got the hold of {seat_id} made on A"))??
            .context("the stream ended")?;
        version += 1;
        ensure!(
            event.kind == "change" && event.data["version"] == version,
            "B's viewer expected change {version}, got {event:?}"
        );
        let seats = &event.data["seats"];
        ensure!(
            seats.as_array().is_some_and(|s| s.len() == 1) && seats[0]["id"] == seat_id.as_str(),
            "change {version} on B is not the hold of {seat_id}: {event:?}"
        );
        ensure!(seats[0]["holdExpiresAt"] == held.body["expiresAt"], "change {version}: {event:?}; hold {held:?}");
        latencies.push(event.arrived.saturating_duration_since(answered));
        n += 1;
        tokio::time::sleep(Duration::from_millis(300)).await;
    }
    let cut = killer.await??;
    ensure!(cut > 0, "no listening connection of this database was found to cut: no LISTEN in pg_stat_activity?");
    let shown: Vec<String> = latencies.iter().map(|l| format!("{}", l.as_millis())).collect();
    eprintln!(
        "{n} holds on A while {cut} LISTEN connections were cut over {} s; B's viewer got each after (ms): {}",
        OUTAGE.as_secs(),
        shown.join(" ")
    );

    // Once the outage is over, each process listens again.
    let started = Instant::now();
    database.until_listening(2).await?;
    eprintln!("both processes listen again {} ms after the outage", started.elapsed().as_millis());
    Ok(())
}

#[tokio::test]
async fn a_viewer_that_reconnects_to_the_other_process_gets_every_change_it_missed() -> anyhow::Result<()> {
    let database = Database::fresh().await?;
    let a = Server::start_on_database(&database.url, &[], &[]).await?;
    let b = Server::start_on_database(&database.url, &[], &[]).await?;
    database.until_listening(2).await?;
    let outcome = resume_elsewhere(&Api::new(&a, "A"), &Api::new(&b, "B")).await;
    outcome.map_err(|error| error.context(logs(&[("A", &a), ("B", &b)])))
}

/// The next event of `stream`, or a failure naming `what`.
async fn next_event(stream: &mut EventStream, what: &str) -> anyhow::Result<Event> {
    tokio::time::timeout(PATIENCE, stream.next())
        .await
        .with_context(|| format!("{what}: nothing in {PATIENCE:?}"))??
        .with_context(|| format!("{what}: the stream ended"))
}

async fn resume_elsewhere(a: &Api, b: &Api) -> anyhow::Result<()> {
    let mut on_a = a.events(THEATRE).await?;
    let snapshot = next_event(&mut on_a, "A's viewer's snapshot").await?;
    let mut version = snapshot.data["version"].as_i64().context("the snapshot's version")?;
    let mut seat = 0;
    // First B has never loaded the show, then it has but nobody watches it there.
    for b_state in ["cold", "loaded, unwatched"] {
        let mut deadlines = Vec::new();
        for _ in 0..4 {
            seat += 1;
            let token = a.session().await?;
            let held = a.post(HOLDS, Some(&token), Some(&json!({"seats": [format!("D{seat}")]}))).await?;
            held.expect(201, &format!("the hold of D{seat} on A"))?;
            deadlines.push((format!("D{seat}"), held.int("expiresAt")?));
        }
        // A's viewer gets its first change event (it may carry several of
        // the holds: API.md "Live changes (v4)"), then loses its connection.
        let first = next_event(&mut on_a, "A's viewer's change").await?;
        let seen = first.data["version"].as_i64().context("a change's version")?;
        let follows = first.data["since"].as_i64().unwrap_or(seen - 1);
        ensure!(
            first.kind == "change" && follows <= version && seen > version && first.id == Some(seen.to_string()),
            "A's viewer's first change after {version}: {first:?}"
        );
        drop(on_a);
        let last = version + 4;

        // Its reconnection lands on B: every change after the one it has, or a current snapshot.
        let mut on_b = b.events_after(THEATRE, Some(seen)).await?;
        if seen == last {
            // The first event had every change: B has nothing to send until the next.
            eprintln!("resumed after {seen} on B ({b_state}): nothing missed");
        } else {
            let event = next_event(&mut on_b, "B's answer to the resumption").await?;
            replayed(event, &mut on_b, (seen, last, version), &deadlines, b_state).await?;
        }
        // Then live changes made on A.
        seat += 1;
        let token = a.session().await?;
        let held = a.post(HOLDS, Some(&token), Some(&json!({"seats": [format!("D{seat}")]}))).await?;
        held.expect(201, "a hold on A after the resumption")?;
        let live = next_event(&mut on_b, "B's live change after the resumption").await?;
        // It follows the version resumed from (it may begin before it, as a
        // tick's frame carries every change since the one before).
        let lists_it =
            live.data["seats"].as_array().is_some_and(|seats| seats.iter().any(|s| s["id"] == format!("D{seat}")));
        ensure!(
            live.kind == "change"
                && live.id == Some((last + 1).to_string())
                && live.data["since"].as_i64().unwrap_or(last) <= last
                && lists_it,
            "B ({b_state})'s live change after the resumption: {live:?}"
        );
        version = last + 1;
        drop(on_b);
        // The next viewer starts on A again, at the current version.
        on_a = a.events_after(THEATRE, Some(version)).await?;
    }
    Ok(())
}

/// B's answer to a viewer resuming after `seen`: a snapshot at `last`, or
/// changes that follow one another up to `last` and show every hold made
/// after `seen` (holds `deadlines`, versions from `version + 1`).
async fn replayed(
    event: Event,
    on_b: &mut EventStream,
    (seen, last, version): (i64, i64, i64),
    deadlines: &[(String, i64)],
    b_state: &str,
) -> anyhow::Result<()> {
    if event.kind == "snapshot" {
        ensure!(event.data["version"] == last, "B ({b_state}) resumed {seen} with an old snapshot: {event:?}");
        eprintln!("resumed after {seen} on B ({b_state}): a snapshot at {last}");
        return Ok(());
    }
    let (mut event, mut known, mut shown) = (event, seen, std::collections::HashMap::new());
    loop {
        let at = event.data["version"].as_i64().context("a change's version")?;
        let follows = event.data["since"].as_i64().unwrap_or(at - 1);
        ensure!(
            event.kind == "change" && follows <= known && at > known,
            "B ({b_state}) resuming after {seen}: a change that does not follow v{known}: {event:?}"
        );
        for fact in event.data["seats"].as_array().context("a change's seats")? {
            shown.insert(fact["id"].as_str().unwrap_or_default().to_owned(), fact["holdExpiresAt"].clone());
        }
        known = at;
        if known >= last {
            break;
        }
        event = next_event(on_b, "B's replay").await?;
    }
    ensure!(known == last, "B ({b_state}) resuming after {seen} went past v{last}: v{known}");
    for (n, (seat_id, deadline)) in deadlines.iter().enumerate() {
        if version + 1 + (n as i64) > seen {
            ensure!(
                shown.get(seat_id) == Some(&json!(deadline)),
                "B ({b_state}) resuming after {seen}: {seat_id} missing or not held until {deadline}: {shown:?}"
            );
        }
    }
    eprintln!("resumed after {seen} on B ({b_state}): changes {} to {last} replayed", seen + 1);
    Ok(())
}
