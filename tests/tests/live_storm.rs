//! Live changes (v4) under a write storm: a fast viewer, a slow one that
//! reads nothing until the storm ends, one that breaks off and resumes with
//! `Last-Event-ID`, and a compact one all end with the map `GET /seats`
//! answers, each event following the one before it (`since`).

// Test code: a panic is the failure report.
#![allow(clippy::unwrap_used)]

use anyhow::Context;
use seat_state::wire::SeatMap;
use seathold_system_tests::api::{Api, one_row};
use seathold_system_tests::viewer::Viewer;
use seathold_system_tests::{PATIENCE, Server};
use serde_json::json;

const SHOW: &str = "storm";
const SEATS: usize = 60;
const CUSTOMERS: usize = 8;
const ROUNDS: usize = 40;

/// One customer's storm: holds of one to three seats (and sometimes area
/// places), then confirm, release or keep, as fast as answers come.
async fn customer(api: Api, n: usize) -> anyhow::Result<usize> {
    let token = api.session().await?;
    let mut written = 0;
    for round in 0..ROUNDS {
        let first = (n * 7 + round * 13) % SEATS + 1;
        let seats: Vec<String> = (0..1 + round % 3).map(|k| format!("A{}", (first + k - 1) % SEATS + 1)).collect();
        let mut body = json!({"seats": seats});
        if round % 4 == 0 {
            body["areas"] = json!({"floor": 1 + round % 2});
        }
        let hold = api.post(&format!("/api/shows/{SHOW}/holds"), Some(&token), Some(&body)).await?;
        if hold.status != 201 {
            continue;
        }
        written += 1;
        let id = hold.body["holdId"].as_str().context("a hold id")?.to_owned();
        let path = match round % 3 {
            0 => format!("/api/holds/{id}/confirm"),
            _ => format!("/api/holds/{id}"),
        };
        let method = if round % 3 == 0 { reqwest::Method::POST } else { reqwest::Method::DELETE };
        let settled = api.call(method, &path, Some(&token), None).await?;
        anyhow::ensure!(matches!(settled.status, 200 | 204), "settling {id}: {settled:?}");
        written += 1;
    }
    Ok(written)
}

#[tokio::test]
async fn fast_slow_resuming_and_compact_viewers_converge_on_the_seat_map_under_a_write_storm() -> anyhow::Result<()> {
    let show = json!({"id": SHOW, "name": "Storm", "seats": one_row(SEATS), "maxActiveHoldsPerHolder": 1000,
                      "areas": [{"id": "floor", "name": "Floor", "capacity": 40}]});
    // A short tick: many frames, so the slow viewer really falls behind.
    let server = Server::start_with_show(&show, &["--rate-limits", "off", "--tick", "5ms"]).await?;
    let api = Api::new(&server, "storm");
    let order = api.seat_order(SHOW).await?;

    let (mut fast_events, fast_reader) = api.events_with(SHOW, "", None).await?.forward();
    let (mut compact_events, compact_reader) = api.events_with(SHOW, "?format=compact", None).await?.forward();
    let mut slow_stream = api.events_with(SHOW, "?only=taken", None).await?;
    let mut resuming_stream = api.events_with(SHOW, "", None).await?;
    let viewer = |compact| Viewer::new(order.clone(), compact);
    let (mut fast, mut compact, mut slow, mut resuming) = (viewer(false), viewer(true), viewer(false), viewer(false));

    let storm: Vec<_> = (0..CUSTOMERS).map(|n| tokio::spawn(customer(api.clone(), n))).collect();
    // The resuming viewer reads a while, breaks off, and comes back after its last id.
    for _ in 0..5 {
        let event = tokio::time::timeout(PATIENCE, resuming_stream.next()).await??.context("an event")?;
        resuming.take(&event)?;
    }
    drop(resuming_stream);
    let mut writes = 0;
    for customer in storm {
        writes += customer.await??;
    }
    let mut resumed = api.events_after(SHOW, resuming.version).await?;

    let map: SeatMap = serde_json::from_value(api.get(&format!("/api/shows/{SHOW}/seats"), None).await?.body)?;
    assert!(map.version >= writes as i64, "{writes} writes answered, the map is at v{}", map.version);
    for (viewer, events, name) in
        [(&mut fast, &mut fast_events, "fast"), (&mut compact, &mut compact_events, "compact")]
    {
        while viewer.version.is_none_or(|known| known < map.version) {
            let event = tokio::time::timeout(PATIENCE, events.recv()).await.context("an event in time")?;
            viewer.take(&event.with_context(|| format!("the {name} stream ended"))?)?;
        }
        if let Some(why) = viewer.differs(&map) {
            anyhow::bail!("{name}: {why}");
        }
    }
    slow.catch_up(&mut slow_stream, map.version).await?;
    if let Some(why) = slow.differs(&map) {
        anyhow::bail!("slow: {why}");
    }
    resuming.catch_up(&mut resumed, map.version).await?;
    if let Some(why) = resuming.differs(&map) {
        anyhow::bail!("resuming: {why}");
    }
    println!(
        "{} changes; events received: fast {}, compact {}, slow {}, resuming {}",
        map.version,
        fast.snapshots + fast.changes,
        compact.snapshots + compact.changes,
        slow.snapshots + slow.changes,
        resuming.snapshots + resuming.changes
    );
    fast_reader.abort();
    compact_reader.abort();
    Ok(())
}
